//! `red`: Random Early Detection (Floyd & Jacobson, IEEE/ACM ToN 1(4) 1993) as Linux
//! implements it (`net/sched/sch_red.c`, `include/net/red.h`, iproute2 `tc/q_red.c`).
//!
//! At each arrival the average queue `avg ← avg + W·(backlog − avg)` (bytes, W = 2^−Wlog)
//! is compared with `min` and `max`: below `min` the packet is queued; at or above `max`
//! it is dropped (or CE-marked with `ecn`, unless `harddrop`); between them it is dropped
//! with a probability that grows from 0 to `probability` and, as in the paper, with the
//! drops spread uniformly: after a drop a random `R` is drawn and the next drop comes when
//! `count · (avg − min) ≥ R`, R uniform on [0, (max − min)/probability) (Linux's `qcount`
//! and `qR`), so the drop fraction at a steady average is `2p_b/(1 + p_b)` with
//! `p_b = probability · (avg − min)/(max − min)`. Accepted packets go to a bfifo of
//! `limit` bytes.
//!
//! Parameters default as tc computes them: `max = limit/4` (or 3·min), `min = max/3`,
//! `burst = (2·min + max)/(3·avpkt)`, Wlog the smallest with
//! `burst + 1 − min/avpkt ≤ (1 − (1−W)^burst)/W` (tc_red_eval_ewma).
//!
//! Differences from Linux: the average's decay over an idle period is Floyd & Jacobson's
//! `avg·(1−W)^m` with m = idle time / transmission time of `avpkt` at `bandwidth`, computed
//! directly instead of from tc's 256-entry table; the adaptive mode and `nodrop` are not
//! modelled. Drops by RED have the reason `aqm`; bfifo overflows `qdisc_overflow`.
//!
//! **On a virtual device** (several member interfaces behind one qdisc, see `qdisc`) each
//! member is served its own oldest packet (the FIFO is scanned past other members'
//! packets, see `fifo_queue`), and RED keeps **one average per member**
//! ([`super::member_lanes`]): the average, `count` and `R` of an arriving packet are those
//! of the queue of its own interface (`out_iface`), and a member's idle period starts when
//! it asks and finds nothing. The byte `limit` is shared. Why: RED's average estimates
//! the queue an arriving packet will wait in (Floyd & Jacobson §4), and on a virtual
//! device a packet waits only behind its own member's packets, drained at that member's
//! rate; one average over both would drop a fast member's packets for a slow member's
//! backlog. Each member thus sees RED as if its packets were the whole input. The idle
//! decay uses the one `bandwidth` for every member (default: the virtual device's rate,
//! the sum of the members'). The per-member states are created at the first request of a
//! member (only the first arrival comes before it, which leaves RED's state as new); on a
//! real interface (no member ever asks) RED runs one state, unchanged.

use super::fifo_queue::PacketFifo;
use super::member_lanes::Lanes;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::{Bytes, Probability, Rate, ScenarioError};
use crate::engine::{SimRng, SimTime};
use crate::packet::{DropReason, PacketId};
use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `red` (`tc qdisc add … red limit B [min B] [max B] [avpkt B] [burst N]
/// [probability P] [bandwidth R] [ecn] [harddrop]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedConf {
    /// Hard limit on queued bytes (the bfifo behind RED). Required.
    pub limit: Bytes,
    /// Average queue (bytes) below which nothing is dropped. Default: max/3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Bytes>,
    /// Average queue (bytes) at or above which every packet is dropped (or marked).
    /// Default: 3 × min, or limit/4 without min.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Bytes>,
    /// Average packet size in bytes, for the EWMA constant and the idle decay. Default: 1000.
    #[serde(default = "default_avpkt")]
    pub avpkt: Bytes,
    /// Burst in packets the average should absorb; sets the EWMA weight. Default:
    /// (2·min + max) / (3·avpkt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub burst: Option<u32>,
    /// Drop probability when the average reaches `max` (max_p). Default: 0.02.
    #[serde(default = "default_probability")]
    pub probability: Probability,
    /// Link rate used to decay the average over idle periods. Default: the device's rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<Rate>,
    /// Mark ECN-capable packets CE instead of dropping them. Default: false.
    #[serde(default)]
    pub ecn: bool,
    /// With `ecn`, still drop (not mark) above `max`. Default: false.
    #[serde(default)]
    pub harddrop: bool,
}

fn default_avpkt() -> Bytes {
    Bytes(1000)
}
fn default_probability() -> Probability {
    Probability(0.02)
}

/// tc's `tc_red_eval_ewma`: the EWMA weight exponent for a burst of `burst` packets.
fn eval_ewma(qmin: u64, burst: u32, avpkt: u64) -> Option<u32> {
    let mut w = 0.5f64;
    let a = burst as f64 + 1.0 - qmin as f64 / avpkt as f64;
    if a < 1.0 {
        return None;
    }
    for wlog in 1..32 {
        if a <= (1.0 - (1.0 - w).powi(burst as i32)) / w {
            return Some(wlog);
        }
        w /= 2.0;
    }
    None
}

pub struct Red {
    p: RedParams,
    queue: PacketFifo,
    /// RED's state on a real interface; its `backlog` is the qdisc's, all members.
    own: RedLane,
    /// On a virtual device: RED's state per member interface (created at the first
    /// request of a member; see the module documentation).
    members: Option<Lanes<RedLane>>,
    rng: SimRng,
    /// Drops and marks by RED itself (not by the limit).
    aqm_drops: u64,
}

/// RED's parameters (Linux `struct red_parms`).
struct RedParams {
    /// Thresholds scaled by 2^Wlog (Linux `qth_min`, `qth_max`).
    qth_min: u64,
    qth_max: u64,
    wlog: u32,
    /// max_P / (max − min) (Linux `max_P_reciprocal`'s divisor), at least 1.
    max_p_delta: u64,
    /// Transmission time of avpkt at `bandwidth`, for the idle decay.
    avpkt_ns: f64,
    ecn: bool,
    harddrop: bool,
    limit: u64,
}

/// The RED state of one queue (Linux `struct red_vars`): the qdisc's on a real interface,
/// one member's on a virtual device (its average and drop spacing over its own backlog).
#[derive(Clone, Copy, Debug)]
struct RedLane {
    /// Average queue in bytes, scaled by 2^Wlog.
    qavg: u64,
    qcount: i64,
    q_r: u64,
    idle_since: Option<SimTime>,
    /// Bytes queued for this member.
    backlog: u64,
}

impl Default for RedLane {
    /// Linux `red_set_vars`: average 0, `qcount` −1, not idle.
    fn default() -> Self {
        RedLane {
            qavg: 0,
            qcount: -1,
            q_r: 0,
            idle_since: None,
            backlog: 0,
        }
    }
}

impl Red {
    pub fn from_conf(c: &RedConf, b: &BuildCtx, errs: &mut ScenarioError) -> Option<Red> {
        let p = &b.path;
        let before = errs.problems.len();
        let limit = c.limit.0;
        let avpkt = c.avpkt.0;
        if avpkt == 0 {
            errs.push(format!("{p}.avpkt"), "must be positive, e.g. 1000");
        }
        let max = c
            .max
            .map(|m| m.0)
            .unwrap_or_else(|| c.min.map_or(limit / 4, |m| m.0 * 3));
        let min = c.min.map_or(max / 3, |m| m.0);
        if min >= max {
            errs.push(
                format!("{p}.min"),
                format!("{min} B must be below max ({max} B)"),
            );
        }
        if max > limit {
            errs.push(
                format!("{p}.max"),
                format!("{max} B is above limit ({limit} B): RED could never act; lower max or raise limit"),
            );
        }
        let burst = c
            .burst
            .unwrap_or(((2 * min + max) / (3 * avpkt.max(1))) as u32);
        let wlog = eval_ewma(min, burst, avpkt.max(1));
        if wlog.is_none() && errs.problems.len() == before {
            errs.push(
                format!("{p}.burst"),
                format!(
                    "{burst} is too small for min = {min} B and avpkt = {avpkt} B (tc: \"failed to calculate EWMA constant\"); try burst = {}",
                    1 + min / avpkt.max(1)
                ),
            );
        }
        let bw = c.bandwidth.map_or(b.dev.rate_bps, |r| r.bps());
        if bw == 0 {
            errs.push(format!("{p}.bandwidth"), "must be positive");
        }
        if errs.problems.len() > before {
            return None;
        }
        let wlog = wlog?;
        let max_p = (c.probability.0 * 4_294_967_296.0).min(u32::MAX as f64) as u64;
        let delta = (max - min).max(1);
        Some(Red {
            p: RedParams {
                qth_min: min << wlog,
                qth_max: max << wlog,
                wlog,
                max_p_delta: (max_p / delta).max(1),
                avpkt_ns: avpkt as f64 * 8e9 / bw as f64,
                ecn: c.ecn,
                harddrop: c.harddrop,
                limit,
            },
            queue: PacketFifo::default(),
            own: RedLane::default(),
            members: None,
            rng: b.rng("red"),
            aqm_drops: 0,
        })
    }

    /// The average queue in bytes (on a virtual device: of the first member's queue).
    pub fn average(&self) -> f64 {
        let qavg = match &self.members {
            None => self.own.qavg,
            Some(lanes) => lanes.iter().next().map_or(0, |l| l.qavg),
        };
        qavg as f64 / (1u64 << self.p.wlog) as f64
    }

    pub fn aqm_drops(&self) -> u64 {
        self.aqm_drops
    }

    /// An arrival on a virtual device: judged by the average of its own member.
    #[inline(never)]
    fn enqueue_member(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let total = self.own.backlog;
        let (rng, drops) = (&mut self.rng, &mut self.aqm_drops);
        let lanes = self.members.as_mut().expect("on a virtual device");
        let out = ctx.packets.get(pkt).out_iface;
        let lane = lanes.get_or_insert_with(out, RedLane::default);
        if let Some(v) = self.p.admit(lane, total, rng, drops, pkt, ctx) {
            return v;
        }
        let len = ctx.len_of(pkt) as u64;
        lane.backlog += len;
        self.own.backlog += len;
        self.queue.push_back(pkt);
        Verdict::Queued
    }

    /// Member `m`'s oldest packet; an empty member queue starts its idle period.
    #[inline(never)]
    fn dequeue_member(&mut self, m: u32, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let queue = &self.queue;
        let lanes = self.members.get_or_insert_with(|| {
            // The first request of a member: the packets queued so far join their lanes.
            // On a virtual device only the first arrival comes before it, and an arrival
            // to an empty RED leaves its state as new: fresh lanes lose nothing.
            let mut lanes = Lanes::default();
            for p in queue.iter() {
                let pk = ctx.packets.get(p);
                lanes
                    .get_or_insert_with(pk.out_iface, RedLane::default)
                    .backlog += ctx.len_of(p) as u64;
            }
            lanes
        });
        let lane = lanes.get_or_insert_with(m, RedLane::default);
        match self.queue.take(ctx) {
            Some(p) => {
                let len = ctx.len_of(p) as u64;
                lane.backlog -= len;
                self.own.backlog -= len;
                Some(p)
            }
            None => {
                lane.idle_since.get_or_insert(ctx.now);
                None
            }
        }
    }
}

impl RedParams {
    /// Linux `red_random`: R uniform on [0, 2³²/max_p_delta).
    fn random(&self, rng: &mut SimRng) -> u64 {
        rng.random::<u32>() as u64 / self.max_p_delta
    }

    /// Linux `red_calc_qavg`, then `red_end_of_idle_period`.
    #[inline]
    fn update_average(&self, l: &mut RedLane, now: SimTime) {
        match l.idle_since.take() {
            None => {
                l.qavg = l.qavg + l.backlog - (l.qavg >> self.wlog);
            }
            Some(since) => {
                // Floyd & Jacobson: m = idle / transmission time of a typical packet.
                let m = (now - since).0 as f64 / self.avpkt_ns;
                let w = 1.0 / (1u64 << self.wlog) as f64;
                l.qavg = (l.qavg as f64 * (1.0 - w).powf(m)) as u64;
            }
        }
    }

    /// Linux `red_action`: whether to drop/mark (and whether it is a forced one).
    #[inline]
    fn action(&self, l: &mut RedLane, rng: &mut SimRng) -> Option<bool> {
        if l.qavg < self.qth_min {
            l.qcount = -1;
            None
        } else if l.qavg >= self.qth_max {
            l.qcount = -1;
            Some(true)
        } else {
            l.qcount += 1;
            if l.qcount > 0 {
                let excess = (l.qavg - self.qth_min) >> self.wlog;
                if excess * l.qcount as u64 >= l.q_r {
                    l.qcount = 0;
                    l.q_r = self.random(rng);
                    return Some(false);
                }
            } else {
                l.q_r = self.random(rng);
            }
            None
        }
    }

    /// RED's decision for `pkt` arriving to the queue of state `l` while `total` bytes
    /// are queued: `Some(Dropped)` if it went (counted in `aqm_drops` when RED dropped it).
    #[inline(always)]
    fn admit(
        &self,
        l: &mut RedLane,
        total: u64,
        rng: &mut SimRng,
        aqm_drops: &mut u64,
        pkt: PacketId,
        ctx: &mut QdiscCtx,
    ) -> Option<Verdict> {
        self.update_average(l, ctx.now);
        if let Some(forced) = self.action(l, rng) {
            let mark = self.ecn && !(forced && self.harddrop) && ctx.mark_ce(pkt);
            if !mark {
                *aqm_drops += 1;
                ctx.drop_packet(pkt, DropReason::Aqm);
                return Some(Verdict::Dropped);
            }
        }
        if total + ctx.len_of(pkt) as u64 > self.limit {
            ctx.drop_packet(pkt, DropReason::QdiscOverflow);
            return Some(Verdict::Dropped);
        }
        None
    }
}

impl Qdisc for Red {
    fn kind(&self) -> &'static str {
        "red"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        if self.members.is_some() {
            return self.enqueue_member(pkt, ctx);
        }
        let total = self.own.backlog;
        let (rng, drops) = (&mut self.rng, &mut self.aqm_drops);
        if let Some(v) = self.p.admit(&mut self.own, total, rng, drops, pkt, ctx) {
            return v;
        }
        self.own.backlog += ctx.len_of(pkt) as u64;
        self.queue.push_back(pkt);
        Verdict::Queued
    }

    /// On a virtual device: the asking member's oldest packet (see `fifo_queue`).
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(m) = ctx.member {
            return self.dequeue_member(m, ctx);
        }
        let Some(p) = self.queue.pop_front() else {
            // Linux `red_start_of_idle_period`.
            self.own.idle_since.get_or_insert(ctx.now);
            return None;
        };
        self.own.backlog -= ctx.len_of(p) as u64;
        Some(p)
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.queue.peek(ctx)
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.own.backlog
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::classify::NameTable;
    use crate::qdisc::testing::Harness;

    fn red(conf: &str) -> Red {
        // Through QdiscConf, as a scenario is read (the kind-enum goes via JSON values).
        let c = match toml::from_str(&format!("kind = \"red\"\n{conf}")).unwrap() {
            crate::qdisc::QdiscConf::Red(c) => c,
            other => panic!("{other:?}"),
        };
        let h = Harness::new();
        let names = NameTable::default();
        let b = BuildCtx {
            dev: &h.dev,
            names: &names,
            seed: 1,
            path: "qdiscs.t".into(),
            boards: None,
        };
        let mut errs = ScenarioError::default();
        let q = Red::from_conf(&c, &b, &mut errs);
        assert!(errs.is_empty(), "{errs}");
        q.unwrap()
    }

    /// Offers `n` packets of 1000 B while the instantaneous backlog is held at `backlog`
    /// bytes (each accepted packet is matched by a departure); returns the dropped fraction.
    fn drop_fraction_at(q: &mut Red, h: &mut Harness, backlog: u64, n: usize) -> f64 {
        while q.backlog_bytes() < backlog {
            let p = h.packet(0, 1000);
            q.queue.push_back(p);
            q.own.backlog += 1000;
        }
        let mut dropped = 0;
        for _ in 0..n {
            let p = h.packet(0, 1000);
            if h.enqueue(q, p) == Verdict::Dropped {
                dropped += 1;
            } else {
                let d = h.dequeue(q).unwrap();
                h.packets.free(d);
            }
            for (p, _) in h.dropped() {
                h.packets.free(p);
            }
        }
        dropped as f64 / n as f64
    }

    #[test]
    fn tc_defaults_for_thresholds_burst_and_ewma() {
        // tc q_red.c: max = limit/4 = 100 000, min = max/3 = 33 333,
        // burst = (2·33 333 + 100 000)/3000 = 55; tc_red_eval_ewma(33 333, 55, 1000) = 5:
        // a = 55 + 1 − 33.3 = 22.7; (1−(1−2^−5)^55)/2^−5 = 26.4 ≥ a while the 2^−4 value
        // 15.5 < a.
        let q = red("limit = 400000");
        assert_eq!(q.p.wlog, 5);
        assert_eq!(q.p.qth_min >> 5, 33_333);
        assert_eq!(q.p.qth_max >> 5, 100_000);
        assert_eq!(eval_ewma(33_333, 55, 1000), Some(5));
    }

    #[test]
    fn drop_fraction_between_thresholds_is_uniformized_max_p_times_excess() {
        // Floyd & Jacobson §4: with the average held at the midpoint of [min, max],
        // p_b = max_p/2 = 0.05 and uniformly spread drops give p_a = 2p_b/(1+p_b) = 0.0952.
        let mut h = Harness::new();
        let mut q = red("limit = 1000000\nmin = 30000\nmax = 90000\nprobability = 0.1");
        drop_fraction_at(&mut q, &mut h, 60_000, 2000); // settle the average
        assert!((q.average() - 60_000.0).abs() < 1000.0, "{}", q.average());
        let f = drop_fraction_at(&mut q, &mut h, 60_000, 200_000);
        let want = 2.0 * 0.05 / 1.05;
        assert!(
            (f - want).abs() / want < 0.03,
            "drop fraction {f} vs {want}"
        );
    }

    #[test]
    fn nothing_is_dropped_below_min_and_everything_above_max() {
        let mut h = Harness::new();
        let mut q = red("limit = 1000000\nmin = 30000\nmax = 90000");
        assert_eq!(drop_fraction_at(&mut q, &mut h, 20_000, 5000), 0.0);
        let mut q = red("limit = 1000000\nmin = 30000\nmax = 90000");
        drop_fraction_at(&mut q, &mut h, 95_000, 3000);
        assert_eq!(drop_fraction_at(&mut q, &mut h, 95_000, 1000), 1.0);
    }

    /// Reference: Floyd & Jacobson §4 (the average estimates the queue an arrival will
    /// wait in), per member on a virtual device. Member 2's queue is held at 95 KB (above
    /// max: its arrivals are all dropped once its average has risen), member 1's at zero:
    /// member 1 loses nothing, as alone; one average over both would drop all of its
    /// packets.
    #[test]
    fn on_a_virtual_device_each_member_has_its_own_average() {
        let mut h = Harness::new();
        let mut q = red("limit = 1000000\nmin = 30000\nmax = 90000");
        while q.backlog_bytes() < 95_000 {
            let p = h.member_packet(2, 1000, 2);
            h.enqueue(&mut q, p);
        }
        let mut dropped = [0u32; 3];
        for i in 0..4000 {
            let m = 1 + i % 2;
            let p = h.member_packet(m, 1000, m);
            if h.enqueue(&mut q, p) == Verdict::Dropped {
                dropped[m as usize] += 1;
            } else {
                let d = h.dequeue_for(&mut q, m).unwrap();
                assert_eq!(h.packets.get(d).out_iface, m);
            }
            h.dropped();
        }
        assert_eq!(dropped[1], 0, "member 1 pays for member 2's queue");
        assert!(dropped[2] > 1500, "{dropped:?}");
        let lanes = q.members.as_ref().unwrap();
        let avg = |m: u32| lanes.at(lanes.position(m).unwrap()).qavg >> q.p.wlog;
        assert!(avg(2) > 90_000 && avg(1) < 1000, "{} {}", avg(1), avg(2));
    }

    #[test]
    fn the_average_decays_over_an_idle_period() {
        // F&J: avg ← avg·(1−W)^m, m = idle/(avpkt transmission time): 1000 B at 10 Mbit/s
        // is 0.8 ms; after 80 ms (m = 100) with W = 1/16 (burst 40: tc_red_eval_ewma gives
        // Wlog 4) the average keeps (15/16)^100 = 1.6 %.
        let mut h = Harness::new();
        let mut q = red("limit = 1000000\nmin = 30000\nmax = 90000\nburst = 40");
        assert_eq!(q.p.wlog, 4);
        drop_fraction_at(&mut q, &mut h, 20_000, 3000);
        let avg = q.average();
        while let Some(p) = h.dequeue(&mut q) {
            h.packets.free(p);
        }
        h.dequeue(&mut q); // finds it empty: idle from now
        h.now = SimTime::from_millis(80);
        let p = h.packet(0, 1000);
        h.enqueue(&mut q, p);
        let want = avg * (15.0f64 / 16.0).powi(100);
        assert!(
            (q.average() - want).abs() / want < 0.01,
            "{} vs {want}",
            q.average()
        );
    }
}
