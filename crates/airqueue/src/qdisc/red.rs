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

use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::engine::{SimRng, SimTime};
use crate::packet::{DropReason, PacketId};
use crate::scenario::{Bytes, Probability, Rate, ScenarioError};
use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

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
    /// Thresholds scaled by 2^Wlog (Linux `qth_min`, `qth_max`).
    qth_min: u64,
    qth_max: u64,
    wlog: u32,
    /// max_P / (max − min) (Linux `max_P_reciprocal`'s divisor), at least 1.
    max_p_delta: u64,
    /// Average queue in bytes, scaled by 2^Wlog.
    qavg: u64,
    qcount: i64,
    q_r: u64,
    idle_since: Option<SimTime>,
    /// Transmission time of avpkt at `bandwidth`, for the idle decay.
    avpkt_ns: f64,
    ecn: bool,
    harddrop: bool,
    limit: u64,
    queue: VecDeque<PacketId>,
    backlog: u64,
    rng: SimRng,
    /// Drops and marks by RED itself (not by the limit).
    aqm_drops: u64,
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
            qth_min: min << wlog,
            qth_max: max << wlog,
            wlog,
            max_p_delta: (max_p / delta).max(1),
            qavg: 0,
            qcount: -1,
            q_r: 0,
            idle_since: None,
            avpkt_ns: avpkt as f64 * 8e9 / bw as f64,
            ecn: c.ecn,
            harddrop: c.harddrop,
            limit,
            queue: VecDeque::new(),
            backlog: 0,
            rng: b.rng("red"),
            aqm_drops: 0,
        })
    }

    /// The average queue in bytes.
    pub fn average(&self) -> f64 {
        self.qavg as f64 / (1u64 << self.wlog) as f64
    }

    pub fn aqm_drops(&self) -> u64 {
        self.aqm_drops
    }

    /// Linux `red_random`: R uniform on [0, 2³²/max_p_delta).
    fn random(&mut self) -> u64 {
        self.rng.random::<u32>() as u64 / self.max_p_delta
    }

    /// Linux `red_calc_qavg`, then `red_end_of_idle_period`.
    fn update_average(&mut self, now: SimTime) {
        match self.idle_since.take() {
            None => {
                self.qavg = self.qavg + self.backlog - (self.qavg >> self.wlog);
            }
            Some(since) => {
                // Floyd & Jacobson: m = idle / transmission time of a typical packet.
                let m = (now - since).0 as f64 / self.avpkt_ns;
                let w = 1.0 / (1u64 << self.wlog) as f64;
                self.qavg = (self.qavg as f64 * (1.0 - w).powf(m)) as u64;
            }
        }
    }

    /// Linux `red_action`: whether to drop/mark (and whether it is a forced one).
    fn action(&mut self) -> Option<bool> {
        if self.qavg < self.qth_min {
            self.qcount = -1;
            None
        } else if self.qavg >= self.qth_max {
            self.qcount = -1;
            Some(true)
        } else {
            self.qcount += 1;
            if self.qcount > 0 {
                let excess = (self.qavg - self.qth_min) >> self.wlog;
                if excess * self.qcount as u64 >= self.q_r {
                    self.qcount = 0;
                    self.q_r = self.random();
                    return Some(false);
                }
            } else {
                self.q_r = self.random();
            }
            None
        }
    }
}

impl Qdisc for Red {
    fn kind(&self) -> &'static str {
        "red"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        self.update_average(ctx.now);
        if let Some(forced) = self.action() {
            let mark = self.ecn && !(forced && self.harddrop) && ctx.mark_ce(pkt);
            if !mark {
                self.aqm_drops += 1;
                ctx.drop_packet(pkt, DropReason::Aqm);
                return Verdict::Dropped;
            }
        }
        let len = ctx.len_of(pkt) as u64;
        if self.backlog + len > self.limit {
            ctx.drop_packet(pkt, DropReason::QdiscOverflow);
            return Verdict::Dropped;
        }
        self.backlog += len;
        self.queue.push_back(pkt);
        Verdict::Queued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        match self.queue.pop_front() {
            Some(p) => {
                self.backlog -= ctx.len_of(p) as u64;
                Some(p)
            }
            None => {
                // Linux `red_start_of_idle_period`.
                if self.idle_since.is_none() {
                    self.idle_since = Some(ctx.now);
                }
                None
            }
        }
    }

    fn peek(&mut self, _ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.queue.front().copied()
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog
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
            crate::scenario::QdiscConf::Red(c) => c,
            other => panic!("{other:?}"),
        };
        let h = Harness::new();
        let names = NameTable::default();
        let b = BuildCtx {
            dev: &h.dev,
            names: &names,
            seed: 1,
            path: "qdiscs.t".into(),
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
            q.backlog += 1000;
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
        assert_eq!(q.wlog, 5);
        assert_eq!(q.qth_min >> 5, 33_333);
        assert_eq!(q.qth_max >> 5, 100_000);
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

    #[test]
    fn the_average_decays_over_an_idle_period() {
        // F&J: avg ← avg·(1−W)^m, m = idle/(avpkt transmission time): 1000 B at 10 Mbit/s
        // is 0.8 ms; after 80 ms (m = 100) with W = 1/16 (burst 40: tc_red_eval_ewma gives
        // Wlog 4) the average keeps (15/16)^100 = 1.6 %.
        let mut h = Harness::new();
        let mut q = red("limit = 1000000\nmin = 30000\nmax = 90000\nburst = 40");
        assert_eq!(q.wlog, 4);
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
