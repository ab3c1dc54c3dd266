//! `tbf`: Token Bucket Filter, a shaper (Linux `net/sched/sch_tbf.c`, iproute2 `tc/q_tbf.c`).
//!
//! Tokens are nanoseconds of credit at `rate`: the bucket holds at most `buffer = burst/rate`
//! and a packet of L bytes costs `L/rate`. With a `peakrate` P a second bucket of
//! `mtu/P` ns caps how fast the first bucket may be emptied. Both start full. The head packet
//! of the child qdisc leaves when both buckets, refilled for the time since the last
//! departure (at most one `buffer`), stay non-negative after paying for it; otherwise TBF
//! sleeps until the larger deficit is refilled ([`Qdisc::next_wakeup`], Linux's watchdog).
//! TBF never reorders: the child's head waits.
//!
//! Packets longer than `min(burst, mtu)` can never be sent and are dropped at enqueue
//! (reason `policy` until an `overlimit` reason exists; Linux counts them as drops; GSO
//! segmentation is not modelled). Costs
//! are `len · 8 · 10⁹ / rate` ns truncated, as Linux's `psched_l2t_ns` truncates; the
//! `mpu`, `overhead` and ATM link-layer options of tc are not modelled: the charged length is
//! the IP datagram length, as for every qdisc here.
//!
//! The child is a `bfifo` of `limit` bytes unless `qdisc` names another discipline (as
//! `tc qdisc add … parent 1:1 …` replaces it). `latency` instead of `limit` sets the limit
//! as tc does: `rate·latency + burst`, or, with a peak rate, the smaller of that and
//! `peakrate·latency + mtu`.
//!
//! **On a virtual device** (several member interfaces behind one qdisc, see `qdisc`) the
//! bucket stays **one**: TBF shapes the aggregate, whichever interface sends (seed 000
//! §2.3 puts a TBF on a PRIO band to cap it). A member asking for a packet is offered the
//! child's next packet *for it* (the child serves members: a member-aware child such as
//! the default bfifo gives each member its own oldest packet) and may send it if the
//! buckets allow it. One more rule keeps TBF's FIFO order of the tokens: a head packet
//! refused for lack of tokens *claims* them, and until its member takes them (or has not
//! come for them by their due time, being busy with another class's packet) another
//! member's *younger* packet is refused too, and asks again just after the due time.
//! Without it the members would race for every refill and the one asked first at each
//! wakeup would starve the other. An older packet of another member may still pass (it
//! would have been first in one FIFO, too). Each member is thus served in its own order at
//! the bucket's rate, the tokens going in arrival order among the members waiting for
//! them; no member waits behind another's packet while tokens are there for its own (no
//! head-of-line blocking), which is what separate queues in front of one bucket give.

use super::member_lanes::Lanes;
use super::{dequeue_for, peek_for, BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::{Bytes, Duration, Rate, ScenarioError};
use crate::engine::SimTime;
use crate::packet::{DropReason, PacketId};
use crate::qdisc::QdiscConf;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `tbf` (`tc qdisc add … tbf rate R burst B (limit L | latency T)
/// [peakrate P mtu M]`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TbfConf {
    /// Long-term rate the bucket refills at, e.g. "5Mbit". Required.
    pub rate: Rate,
    /// Bucket size in bytes: the largest burst sent back to back at line rate (tc `burst`,
    /// `buffer`, `maxburst`). Must hold a full-size packet. Required.
    pub burst: Bytes,
    /// Bytes the default child bfifo may queue. Give `limit` or `latency` (unless `qdisc`
    /// replaces the child).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Bytes>,
    /// Longest time a packet may wait in TBF; sets `limit` as tc does (rate × latency +
    /// burst, or the smaller of that and peakrate × latency + mtu).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<Duration>,
    /// Peak rate (must exceed `rate`): a second bucket of `mtu` bytes at this rate limits
    /// how fast the burst may leave. Absent: bursts leave at line rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peakrate: Option<Rate>,
    /// Size of the peak-rate bucket in bytes (tc `mtu`/`minburst`); required with
    /// `peakrate`, usually the device MTU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<Bytes>,
    /// Child qdisc holding the packets (absent: a bfifo of `limit` bytes), e.g.
    /// `qdisc = { kind = "fq_codel" }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qdisc: Option<Box<QdiscConf>>,
}

/// Linux `psched_l2t_ns`: nanoseconds to send `len` bytes at `rate_bps` (truncated).
#[inline]
fn l2t(rate_bps: u64, len: u64) -> i64 {
    ((len as u128 * 8_000_000_000) / rate_bps as u128).min(i64::MAX as u128) as i64
}

pub struct Tbf {
    rate_bps: u64,
    peak_bps: Option<u64>,
    /// Size of the rate bucket, ns of credit.
    buffer: i64,
    /// Size of the peak-rate bucket, ns of credit.
    mtu: i64,
    /// Longest packet that can ever be sent (bytes).
    max_size: u64,
    tokens: i64,
    ptokens: i64,
    /// Time of the last departure (Linux `t_c`).
    t_c: SimTime,
    child: Box<dyn Qdisc>,
    /// When the head packet will have its tokens (set when a dequeue was refused).
    watchdog: Option<SimTime>,
    /// On a virtual device: per member, when its refused head may leave.
    member_waits: Lanes<Option<SimTime>>,
    /// On a virtual device: the oldest head packet refused for lack of tokens whose member
    /// has not taken them yet (see the module documentation).
    claim: Option<Claim>,
    /// Whether members of a virtual device ask (then wakeups are merged over members).
    serving_members: bool,
    /// Dequeues refused for lack of tokens (`qdisc_qstats_overlimit` in `tbf_dequeue`).
    overlimits: u64,
}

/// A member's head packet that waits for tokens: younger packets of other members do not
/// take the tokens before it (TBF's FIFO order of the tokens).
#[derive(Clone, Copy, Debug)]
struct Claim {
    member: u32,
    /// When the packet entered the qdisc tree (`Packet::enqueued`).
    arrived: SimTime,
    /// When its tokens are due.
    due: SimTime,
}

/// The outcome of looking at the head packet: send it with these buckets, or wait.
enum Check {
    Empty,
    Send {
        pkt: PacketId,
        toks: i64,
        ptoks: i64,
    },
    /// The head `pkt` may leave at `at` (tokens short, or an older claim comes first).
    Wait {
        at: SimTime,
        pkt: PacketId,
    },
}

impl Tbf {
    /// A TBF at `rate_bps` with a `burst`-byte bucket, optionally a peak-rate bucket of
    /// `mtu` bytes at `peak_bps`, over `child`. Both buckets start full (Linux).
    pub fn new(rate_bps: u64, burst: u64, peak: Option<(u64, u64)>, child: Box<dyn Qdisc>) -> Self {
        let buffer = l2t(rate_bps, burst);
        let (peak_bps, mtu, max_size) = match peak {
            Some((p, m)) => (Some(p), l2t(p, m), burst.min(m)),
            None => (None, 0, burst),
        };
        Tbf {
            rate_bps,
            peak_bps,
            buffer,
            mtu,
            max_size,
            tokens: buffer,
            ptokens: mtu,
            t_c: SimTime::ZERO,
            child,
            watchdog: None,
            member_waits: Lanes::default(),
            claim: None,
            serving_members: false,
            overlimits: 0,
        }
    }

    /// Builds from the scenario, reporting inconsistent parameters under `b.path`.
    pub fn from_conf(c: &TbfConf, b: &BuildCtx, errs: &mut ScenarioError) -> Option<Tbf> {
        let before = errs.problems.len();
        let p = &b.path;
        let rate = c.rate.bps();
        if rate == 0 {
            errs.push(format!("{p}.rate"), "must be positive, e.g. \"5Mbit\"");
        }
        if c.burst.0 < b.dev.mtu as u64 {
            errs.push(
                format!("{p}.burst"),
                format!(
                    "{} is smaller than the device MTU ({} B): full-size packets could never be \
                     sent (Linux drops them); raise burst to at least the MTU",
                    c.burst, b.dev.mtu
                ),
            );
        }
        let peak = match (c.peakrate, c.mtu) {
            (Some(pr), Some(m)) => {
                if pr.bps() <= rate {
                    errs.push(
                        format!("{p}.peakrate"),
                        format!(
                            "{pr} must be higher than rate ({}), as Linux requires; raise it or remove it",
                            c.rate
                        ),
                    );
                }
                if m.0 < b.dev.mtu as u64 {
                    errs.push(
                        format!("{p}.mtu"),
                        format!(
                            "{m} is smaller than the device MTU ({} B): full-size packets could \
                             never be sent; use at least the MTU",
                            b.dev.mtu
                        ),
                    );
                }
                Some((pr.bps(), m.0))
            }
            (Some(_), None) => {
                errs.push(
                    format!("{p}.mtu"),
                    "is required with peakrate (the peak bucket's size, usually the device MTU); add `mtu = 1500`",
                );
                None
            }
            (None, Some(_)) => {
                errs.push(
                    format!("{p}.mtu"),
                    "sizes the peak-rate bucket and has no effect without peakrate; remove it or add `peakrate`",
                );
                None
            }
            (None, None) => None,
        };
        let child = match &c.qdisc {
            Some(child) => {
                for (key, given) in [
                    ("limit", c.limit.is_some()),
                    ("latency", c.latency.is_some()),
                ] {
                    if given {
                        errs.push(
                            format!("{p}.{key}"),
                            "sizes the default bfifo child and has no effect when `qdisc` is given; \
                             remove it and set the child's own limit",
                        );
                    }
                }
                super::build(child, &b.child("qdisc"), errs)
            }
            None => {
                let limit = match (c.limit, c.latency) {
                    (Some(l), None) => Some(l.0),
                    (None, Some(lat)) => Some(latency_limit(c, lat)),
                    (Some(_), Some(_)) => {
                        errs.push(
                            format!("{p}.latency"),
                            "give either limit or latency, not both (tc accepts one)",
                        );
                        None
                    }
                    (None, None) => {
                        errs.push(
                            format!("{p}.limit"),
                            "tbf needs `limit` (bytes) or `latency` (e.g. \"50ms\") to size its queue; add one",
                        );
                        None
                    }
                };
                limit.map(|l| Box::new(super::Bfifo::new(l)) as Box<dyn Qdisc>)
            }
        };
        if errs.problems.len() > before {
            return None;
        }
        Some(Tbf::new(rate, c.burst.0, peak, child?))
    }

    /// Checks whether the child's head (for the asker) may leave at `now`, without
    /// changing anything.
    #[inline]
    fn check(&mut self, ctx: &mut QdiscCtx) -> Check {
        let head = match ctx.member {
            None => self.child.peek(ctx),
            Some(_) => peek_for(&mut *self.child, ctx),
        };
        let Some(pkt) = head else {
            return Check::Empty;
        };
        let len = ctx.len_of(pkt) as u64;
        let now = ctx.now;
        let delta = ((now - self.t_c).0.min(i64::MAX as u64) as i64).min(self.buffer);
        let mut ptoks = 0;
        if let Some(peak) = self.peak_bps {
            ptoks = (delta + self.ptokens).min(self.mtu) - l2t(peak, len);
        }
        let toks = (delta + self.tokens).min(self.buffer) - l2t(self.rate_bps, len);
        if toks >= 0 && ptoks >= 0 {
            Check::Send { pkt, toks, ptoks }
        } else {
            let wait = (-toks).max(-ptoks) as u64;
            Check::Wait {
                at: now + SimTime(wait),
                pkt,
            }
        }
    }

    /// `check` for member `m` of a virtual device, with the claim rule.
    fn check_member(&mut self, ctx: &mut QdiscCtx) -> Check {
        let outcome = self.check(ctx);
        if let Check::Send { pkt, .. } = outcome {
            if let Some(c) = self.older_claim(pkt, ctx) {
                // At `due` the claimant is asked first or not at all (busy elsewhere);
                // a nanosecond later the claim has lapsed.
                return Check::Wait {
                    at: c.due + SimTime(1),
                    pkt,
                };
            }
        }
        outcome
    }

    /// A dequeue for member `m` of a virtual device.
    fn dequeue_member(&mut self, m: u32, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.serving_members = true;
        let outcome = self.check_member(ctx);
        self.note_member_outcome(m, &outcome, ctx);
        let Check::Send { pkt, toks, ptoks } = outcome else {
            self.overlimits += u64::from(matches!(outcome, Check::Wait { .. }));
            return None;
        };
        let got = dequeue_for(&mut *self.child, ctx);
        debug_assert_eq!(got, Some(pkt), "the child's dequeue differs from its peek");
        self.t_c = ctx.now;
        self.tokens = toks;
        self.ptokens = ptoks;
        got
    }

    /// The claim of another member's older packet that `pkt` (the asker's head) must
    /// leave the tokens to, if one is pending.
    #[inline]
    fn older_claim(&self, pkt: PacketId, ctx: &QdiscCtx) -> Option<Claim> {
        let m = ctx.member?;
        let c = self.claim?;
        (c.member != m && ctx.now <= c.due && c.arrived < ctx.packets.get(pkt).enqueued)
            .then_some(c)
    }

    /// Records what a member's request found (virtual devices only): the claim of the
    /// oldest refused head, and when the member may ask again.
    fn note_member_outcome(&mut self, m: u32, outcome: &Check, ctx: &QdiscCtx) {
        let now = ctx.now;
        let pending = self.claim.filter(|c| now <= c.due);
        let wait = self.member_waits.get_or_insert_with(m, || None);
        match *outcome {
            Check::Empty | Check::Send { .. } => {
                *wait = None;
                if pending.is_some_and(|c| c.member == m) {
                    self.claim = None;
                }
            }
            Check::Wait { at, pkt } => {
                let arrived = ctx.packets.get(pkt).enqueued;
                let replaces = match pending {
                    None => true,
                    Some(c) => c.member == m || arrived < c.arrived,
                };
                *wait = Some(at);
                if replaces {
                    self.claim = Some(Claim {
                        member: m,
                        arrived,
                        due: at,
                    });
                }
            }
        }
    }
}

/// tc's limit from latency: `rate·latency + burst`, or with a peak rate the smaller of
/// that and `peakrate·latency + mtu` (bytes, truncated).
fn latency_limit(c: &TbfConf, latency: Duration) -> u64 {
    let secs = latency.time().as_secs_f64();
    let mut lim = c.rate.bps() as f64 / 8.0 * secs + c.burst.0 as f64;
    if let (Some(pr), Some(m)) = (c.peakrate, c.mtu) {
        lim = lim.min(pr.bps() as f64 / 8.0 * secs + m.0 as f64);
    }
    lim as u64
}

impl Qdisc for Tbf {
    fn kind(&self) -> &'static str {
        "tbf"
    }

    /// `tbf_change` (`sch_tbf.c`): every parameter is replaced and both buckets are
    /// refilled (`q->tokens = q->buffer; q->ptokens = q->mtu`); the queued packets stay in
    /// the child, whose limit `fifo_set_limit` sets when it is a fifo: bytes for bfifo and,
    /// as in Linux, the same number as packets for pfifo (other children keep theirs). A
    /// new child (`qdisc`) is refused here: replace the tbf instead.
    fn change(&mut self, conf: &QdiscConf, b: &BuildCtx, errs: &mut ScenarioError) {
        let QdiscConf::Tbf(c) = conf else { return };
        if c.qdisc.is_some() {
            errs.push(
                format!("{}.qdisc", b.path),
                "a tbf change keeps its child qdisc; remove `qdisc`, or replace the tbf",
            );
            return;
        }
        let Some(fresh) = Tbf::from_conf(c, b, errs) else {
            return;
        };
        // from_conf checked that exactly one of limit and latency is given.
        let limit = match (c.limit, c.latency) {
            (Some(l), _) => l.0,
            (None, Some(lat)) => latency_limit(c, lat),
            (None, None) => return,
        };
        self.rate_bps = fresh.rate_bps;
        self.peak_bps = fresh.peak_bps;
        self.buffer = fresh.buffer;
        self.mtu = fresh.mtu;
        self.max_size = fresh.max_size;
        self.tokens = self.buffer;
        self.ptokens = self.mtu;
        let child_conf = match self.child.kind() {
            "bfifo" => Some(QdiscConf::Bfifo(super::BfifoConf {
                limit: Bytes(limit),
            })),
            "pfifo" => Some(QdiscConf::Pfifo(super::PfifoConf {
                limit: limit.min(u32::MAX as u64) as u32,
            })),
            _ => None,
        };
        if let Some(cc) = child_conf {
            self.child.change(&cc, &b.child("qdisc"), errs);
        }
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        if ctx.len_of(pkt) as u64 > self.max_size {
            // Larger than the bucket: could never be sent (Linux `qdisc_drop`).
            ctx.drop_packet(pkt, DropReason::Policy);
            return Verdict::Dropped;
        }
        self.child.enqueue(pkt, ctx)
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(m) = ctx.member {
            return self.dequeue_member(m, ctx);
        }
        match self.check(ctx) {
            Check::Empty => {
                self.watchdog = None;
                None
            }
            Check::Send { pkt, toks, ptoks } => {
                let got = self.child.dequeue(ctx);
                debug_assert_eq!(got, Some(pkt), "the child's dequeue differs from its peek");
                self.t_c = ctx.now;
                self.tokens = toks;
                self.ptokens = ptoks;
                self.watchdog = None;
                got
            }
            Check::Wait { at, .. } => {
                self.watchdog = Some(at);
                self.overlimits += 1;
                None
            }
        }
    }

    fn overlimits(&self) -> u64 {
        self.overlimits
    }

    fn reset_stats(&mut self) {
        self.overlimits = 0;
        self.child.reset_stats();
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let outcome = match ctx.member {
            None => self.check(ctx),
            Some(_) => self.check_member(ctx),
        };
        match outcome {
            Check::Send { pkt, .. } => Some(pkt),
            Check::Empty | Check::Wait { .. } => None,
        }
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.child.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.child.backlog_bytes()
    }

    fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        if self.child.is_empty() {
            return None;
        }
        // Tokens short: the watchdog; else the child itself is waiting (a shaper below).
        // On a virtual device one member may wait for tokens while another waits for the
        // child: the earlier of the two.
        if self.serving_members {
            let waits = self.member_waits.iter().flatten().copied();
            waits
                .chain(self.child.next_wakeup(now))
                .filter(|&t| t > now)
                .min()
        } else {
            self.watchdog
                .filter(|&t| t > now)
                .or_else(|| self.child.next_wakeup(now))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::Harness;
    use crate::qdisc::{Bfifo, Pfifo};

    const MBIT: u64 = 1_000_000;

    /// Drives a TBF as a transmitter of infinite speed would: dequeue whenever allowed,
    /// else jump to the wakeup. Returns the departure times.
    fn drain(h: &mut Harness, q: &mut Tbf, n: usize) -> Vec<SimTime> {
        let mut out = Vec::new();
        while out.len() < n {
            match h.dequeue(q) {
                Some(p) => {
                    out.push(h.now);
                    h.packets.free(p);
                }
                None => {
                    let t = q.next_wakeup(h.now).expect("backlogged TBF must wake up");
                    assert!(t > h.now);
                    h.now = t;
                }
            }
        }
        out
    }

    #[test]
    fn first_burst_is_burst_bytes_then_packets_leave_at_rate() {
        // Linux sch_tbf: a full bucket of 10 000 B lets 10 packets of 1000 B go at once;
        // the 11th waits 1000 B / 1 Mbit = 8 ms, then one every 8 ms.
        let mut h = Harness::new();
        let mut q = Tbf::new(MBIT, 10_000, None, Box::new(Bfifo::new(1_000_000)));
        for i in 0..30 {
            let p = h.packet(i, 1000);
            h.enqueue(&mut q, p);
        }
        let t = drain(&mut h, &mut q, 30);
        assert!(t[..10].iter().all(|&x| x == SimTime::ZERO), "{t:?}");
        for (k, x) in t[10..].iter().enumerate() {
            assert_eq!(x.0, (k as u64 + 1) * 8_000_000, "packet {}", k + 10);
        }
    }

    #[test]
    fn peakrate_spaces_the_burst_at_the_peak_rate() {
        // With peakrate 4 Mbit and a 1000 B peak bucket, the burst leaves one packet per
        // 1000 B / 4 Mbit = 2 ms instead of back to back; after the 10 000 B burst (drained
        // at 4 − 1 = 3 Mbit net: it lasts about 13 packets), the rate bucket paces at 8 ms.
        let mut h = Harness::new();
        let mut q = Tbf::new(
            MBIT,
            10_000,
            Some((4 * MBIT, 1000)),
            Box::new(Bfifo::new(1_000_000)),
        );
        for i in 0..40 {
            let p = h.packet(i, 1000);
            h.enqueue(&mut q, p);
        }
        let t = drain(&mut h, &mut q, 40);
        let gaps: Vec<u64> = t.windows(2).map(|w| (w[1] - w[0]).0).collect();
        assert_eq!(t[0], SimTime::ZERO);
        assert!(gaps[..10].iter().all(|&g| g == 2_000_000), "{gaps:?}");
        assert!(gaps[20..].iter().all(|&g| g == 8_000_000), "{gaps:?}");
        // No gap is ever shorter than the peak spacing.
        assert!(gaps.iter().all(|&g| g >= 2_000_000));
    }

    #[test]
    fn a_packet_larger_than_the_bucket_is_dropped_at_enqueue() {
        let mut h = Harness::new();
        let mut q = Tbf::new(MBIT, 1000, None, Box::new(Pfifo::new(10)));
        let p = h.packet(0, 1001);
        assert_eq!(h.enqueue(&mut q, p), Verdict::Dropped);
        assert_eq!(h.dropped(), vec![(p, DropReason::Policy)]);
    }

    #[test]
    fn tokens_refill_at_most_to_one_bucket() {
        // After a long idle period the bucket holds `burst`, not more.
        let mut h = Harness::new();
        let mut q = Tbf::new(MBIT, 3000, None, Box::new(Pfifo::new(100)));
        h.now = SimTime::from_secs(100);
        for i in 0..6 {
            let p = h.packet(i, 1000);
            h.enqueue(&mut q, p);
        }
        let t = drain(&mut h, &mut q, 6);
        assert_eq!(&t[..3], &[SimTime::from_secs(100); 3]);
        assert_eq!(t[3], SimTime::from_secs(100) + SimTime::from_millis(8));
    }

    /// Reference: TBF's FIFO order of the tokens (Linux `sch_tbf.c` serves one queue in
    /// order). On a virtual device the older head among the members waiting for tokens
    /// gets them first, whichever member asks first; the others never block behind it
    /// while tokens are there for them. 1 Mbit/s, a 1500 B bucket, 1000 B packets: a1
    /// (member 1) leaves at once and leaves 500 B; b1 (member 2, older than a2) needs 4 ms
    /// more; a2 another 8 ms.
    #[test]
    fn on_a_virtual_device_tokens_go_to_the_oldest_waiting_head_whoever_asks_first() {
        let mut h = Harness::new();
        let mut q = Tbf::new(MBIT, 1500, None, Box::new(Bfifo::new(1_000_000)));
        let a1 = h.member_packet(0, 1000, 1);
        h.enqueue(&mut q, a1);
        h.now = SimTime::from_micros(1);
        let b1 = h.member_packet(1, 1000, 2);
        h.enqueue(&mut q, b1);
        h.now = SimTime::from_micros(2);
        let a2 = h.member_packet(0, 1000, 1);
        h.enqueue(&mut q, a2);
        assert_eq!(h.dequeue_for(&mut q, 1), Some(a1));
        assert_eq!(h.dequeue_for(&mut q, 1), None, "500 B of tokens left");
        assert_eq!(h.dequeue_for(&mut q, 2), None);
        let due = h.now + SimTime::from_millis(4);
        assert_eq!(q.next_wakeup(h.now), Some(due));
        // At the due time member 1 asks first, but b1 is older: a2 waits.
        h.now = due;
        assert_eq!(h.peek_for(&mut q, 1), None);
        assert_eq!(h.dequeue_for(&mut q, 1), None);
        assert_eq!(h.dequeue_for(&mut q, 2), Some(b1));
        assert_eq!(h.dequeue_for(&mut q, 1), None);
        h.now = q.next_wakeup(h.now).unwrap();
        assert_eq!(h.now, due + SimTime::from_millis(8));
        assert_eq!(h.dequeue_for(&mut q, 1), Some(a2));
    }

    /// A claim lapses when its member does not come for the tokens (it was busy with a
    /// packet of another class): a younger packet of another member waits at most until
    /// one nanosecond after the claimed tokens were due.
    #[test]
    fn a_claim_lapses_if_its_member_does_not_take_the_tokens() {
        let mut h = Harness::new();
        let mut q = Tbf::new(MBIT, 1000, None, Box::new(Bfifo::new(1_000_000)));
        let b0 = h.member_packet(1, 1000, 2);
        h.enqueue(&mut q, b0);
        assert_eq!(h.dequeue_for(&mut q, 2), Some(b0));
        let b1 = h.member_packet(1, 1000, 2);
        h.enqueue(&mut q, b1);
        assert_eq!(
            h.dequeue_for(&mut q, 2),
            None,
            "b1 claims the next 8 ms of tokens"
        );
        h.now = SimTime::from_micros(1);
        let a1 = h.member_packet(0, 1000, 1);
        h.enqueue(&mut q, a1);
        assert_eq!(h.dequeue_for(&mut q, 1), None);
        let due = SimTime::from_millis(8);
        assert_eq!(q.next_wakeup(h.now), Some(due));
        h.now = due;
        assert_eq!(h.dequeue_for(&mut q, 1), None, "member 2 may still come");
        h.now = q.next_wakeup(h.now).unwrap();
        assert_eq!(h.now, due + SimTime(1));
        assert_eq!(h.dequeue_for(&mut q, 1), Some(a1));
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn latency_sets_limit_as_tc_does() {
        // tc q_tbf.c: limit = rate/8 · latency + burst = 125 000 B/s · 0.05 s + 5000 = 11 250.
        let c = TbfConf {
            rate: Rate(MBIT),
            burst: Bytes(5000),
            limit: None,
            latency: Some(Duration(SimTime::from_millis(50))),
            peakrate: None,
            mtu: None,
            qdisc: None,
        };
        assert_eq!(latency_limit(&c, c.latency.unwrap()), 11_250);
        // With peakrate 2 Mbit, mtu 1500: min(11 250, 250 000 · 0.05 + 1500 = 14 000).
        let c2 = TbfConf {
            peakrate: Some(Rate(2 * MBIT)),
            mtu: Some(Bytes(1500)),
            ..c.clone()
        };
        assert_eq!(latency_limit(&c2, c.latency.unwrap()), 11_250);
        let c3 = TbfConf {
            peakrate: Some(Rate(1_100_000)),
            mtu: Some(Bytes(1500)),
            ..c
        };
        // 137 500 · 0.05 + 1500 = 8375 < 11 250.
        assert_eq!(latency_limit(&c3, c3.latency.unwrap()), 8375);
    }
}
