//! `codel`: Controlled Delay AQM (Nichols & Jacobson 2012, RFC 8289) as Linux implements it
//! (`net/sched/sch_codel.c`, `include/net/codel_impl.h`), and the CoDel state machine that
//! `fq_codel` runs per flow.
//!
//! CoDel drops (or ECN-marks) at dequeue when the sojourn time of the packets has stayed at
//! or above `target` for at least one `interval` while more than one MTU is queued. In the
//! dropping state the next drop is due `interval/√count` after the previous one (the
//! control law), so the drop rate grows until the queue drains below `target`. On entering
//! the dropping state again soon after leaving it (within 16 intervals), `count` resumes
//! from `count − lastcount` instead of 1.
//!
//! Modelled as Linux does it, bit for bit: the CoDel clock counts 1024 ns ticks in a
//! wrapping `u32` (`codel_get_time() = ns >> 10`), and `1/√count` is kept as a Q0.16
//! number updated by one Newton step per `count` change (`codel_Newton_step`), not by an
//! exact square root. The Newton value is coarse for small counts (after the first
//! increment 1/√2 is taken as 0.5) and converges as `count` grows; see the control-law
//! test below. Linux's `ce_threshold` is not modelled.
//!
//! **On a virtual device** (IMQ-like, several member interfaces behind one qdisc, see
//! `qdisc`) the `codel` qdisc serves each member its own oldest packet (the FIFO is scanned
//! past other members' packets, as the FIFOs do, see `fifo_queue`) and runs **one CoDel
//! per member**: the dropping state, `count`, the control-law schedule and the
//! `backlog ≤ mtu` test are those of the member's own packets
//! ([`super::member_lanes`]). The `limit` is shared. Why per member: each member drains
//! its packets at its own rate, so its packets' sojourn times describe its own standing
//! queue. One shared state would mix two queues' signals: the fast member's short sojourn
//! times would keep resetting `first_above_time`, so a slow member's standing queue would
//! never be controlled, and once dropping, the fast member's packets would pay for the slow
//! member's queue. Per member, each member's packets see exactly the CoDel they would see
//! if they were the qdisc's whole input (under Linux IMQ, too, the standing queues form
//! per member, in each member's own device queue). The per-member states are created at
//! the first request of a member; on a real interface (no member ever asks) the qdisc
//! runs the one CoDel above, unchanged.

use super::fifo_queue::PacketFifo;
use super::member_lanes::Lanes;
use super::peek_stash::PeekStash;
use super::{Qdisc, QdiscCtx, Verdict};
use crate::conf::Duration;
use crate::engine::SimTime;
use crate::packet::{DropReason, PacketId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `codel` (`tc qdisc add … codel limit N target T interval I [ecn]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodelConf {
    /// Maximum queued packets; arrivals beyond it are tail-dropped. Default: 1000.
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// Acceptable standing queue delay. Default: 5ms.
    #[serde(default = "default_target")]
    pub target: Duration,
    /// Window over which the delay must stay above `target` before CoDel acts (about a
    /// worst-case RTT). Default: 100ms.
    #[serde(default = "default_interval")]
    pub interval: Duration,
    /// Mark ECN-capable packets Congestion Experienced instead of dropping them (Not-ECT
    /// packets are still dropped). Default: false (Linux `codel` has ECN off; `fq_codel` on).
    #[serde(default)]
    pub ecn: bool,
}

fn default_limit() -> u32 {
    1000
}
pub(crate) fn default_target() -> Duration {
    Duration(SimTime::from_millis(5))
}
pub(crate) fn default_interval() -> Duration {
    Duration(SimTime::from_millis(100))
}

impl Default for CodelConf {
    fn default() -> Self {
        CodelConf {
            limit: default_limit(),
            target: default_target(),
            interval: default_interval(),
            ecn: false,
        }
    }
}

/// CoDel time: 1024 ns ticks in a wrapping u32 (Linux `codel_time_t`, `CODEL_SHIFT` 10).
pub(crate) type CodelTime = u32;

/// Linux's `CODEL_SHIFT`.
const CODEL_SHIFT: u32 = 10;
/// Bits of `rec_inv_sqrt` (Linux `REC_INV_SQRT_BITS`: a u16) and its shift into Q0.32.
const REC_INV_SQRT_SHIFT: u32 = 32 - 16;

/// Converts simulated time to CoDel ticks (`ktime_get_ns() >> CODEL_SHIFT`, truncated to u32).
#[inline]
pub(crate) fn codel_time(t: SimTime) -> CodelTime {
    (t.0 >> CODEL_SHIFT) as u32
}

/// Converts a duration to CoDel ticks, as tc's microsecond values become `us * 1000 >> 10`.
pub(crate) fn codel_duration(d: Duration) -> CodelTime {
    (d.time().0 >> CODEL_SHIFT).min(u32::MAX as u64 / 2) as u32
}

#[inline]
fn before(a: CodelTime, b: CodelTime) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}
#[inline]
fn after(a: CodelTime, b: CodelTime) -> bool {
    (b.wrapping_sub(a) as i32) < 0
}
#[inline]
fn after_eq(a: CodelTime, b: CodelTime) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

/// Parameters shared by every CoDel instance of a qdisc (Linux `struct codel_params`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CodelParams {
    pub target: CodelTime,
    pub interval: CodelTime,
    /// Backlog (bytes) at or below which CoDel never drops: psched_mtu of the device.
    pub mtu: u32,
    pub ecn: bool,
}

/// Per-queue CoDel state (Linux `struct codel_vars`; `codel_vars_init` zeroes it).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CodelVars {
    /// Drops (or marks) since entering the dropping state, plus the resumed count.
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    pub dropping: bool,
    /// 1/√count in Q0.16.
    pub rec_inv_sqrt: u16,
    /// When the sojourn time will have been above target for one interval (0: below).
    pub first_above_time: CodelTime,
    /// When the next drop is due in the dropping state.
    pub drop_next: CodelTime,
    /// Sojourn time of the last dequeued packet.
    pub ldelay: CodelTime,
}

impl CodelVars {
    /// One Newton step towards 1/√count: `x ← x/2 · (3 − count·x²)` in fixed point
    /// (Linux `codel_Newton_step`).
    pub(crate) fn newton_step(&mut self) {
        let invsqrt = (self.rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT;
        let invsqrt2 = ((invsqrt as u64 * invsqrt as u64) >> 32) as u32;
        let mut val: u64 = (3u64 << 32).wrapping_sub(self.count as u64 * invsqrt2 as u64);
        val >>= 2; // avoid overflow in the following multiply
        val = (val * invsqrt as u64) >> (32 - 2 + 1);
        self.rec_inv_sqrt = (val >> REC_INV_SQRT_SHIFT) as u16;
    }

    /// `t + interval/√count` (Linux `codel_control_law`, `reciprocal_scale`).
    pub(crate) fn control_law(&self, t: CodelTime, interval: CodelTime) -> CodelTime {
        let scale = (self.rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT;
        t.wrapping_add(((interval as u64 * scale as u64) >> 32) as u32)
    }
}

/// The queue CoDel takes packets from: the head of a FIFO plus the backlog it judges.
pub(crate) trait CodelQueue {
    /// Removes the head packet (Linux's `dequeue_func`), keeping the queue's counters.
    fn pop(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId>;
    /// Bytes the `backlog ≤ mtu` test looks at (the whole qdisc's backlog in Linux, also
    /// for fq_codel).
    fn backlog(&self) -> u64;
}

/// Linux `codel_should_drop`.
fn should_drop(
    pkt: Option<PacketId>,
    vars: &mut CodelVars,
    params: &CodelParams,
    backlog: u64,
    now: CodelTime,
    ctx: &QdiscCtx,
) -> bool {
    let Some(pkt) = pkt else {
        vars.first_above_time = 0;
        return false;
    };
    vars.ldelay = now.wrapping_sub(codel_time(ctx.packets.get(pkt).enqueued));
    if before(vars.ldelay, params.target) || backlog <= params.mtu as u64 {
        // Went below: stay below for at least an interval.
        vars.first_above_time = 0;
        return false;
    }
    if vars.first_above_time == 0 {
        // Just went above from below; if it stays above for an interval, drop.
        vars.first_above_time = now.wrapping_add(params.interval);
        false
    } else {
        after(now, vars.first_above_time)
    }
}

/// Drops a packet CoDel chose (Linux `drop_func`); returns nothing, the caller dequeues on.
#[inline]
fn aqm_drop(pkt: PacketId, ctx: &mut QdiscCtx, drops: &mut u32) {
    ctx.drop_packet(pkt, DropReason::Aqm);
    *drops += 1;
}

/// Linux `codel_dequeue`: the next packet CoDel lets through, dropping (or marking) per the
/// control law on the way. `drops` counts the packets dropped by this call.
pub(crate) fn codel_dequeue<Q: CodelQueue>(
    q: &mut Q,
    params: &CodelParams,
    vars: &mut CodelVars,
    ctx: &mut QdiscCtx,
    drops: &mut u32,
) -> Option<PacketId> {
    let mut pkt = q.pop(ctx);
    if pkt.is_none() {
        vars.dropping = false;
        return None;
    }
    let now = codel_time(ctx.now);
    let drop = should_drop(pkt, vars, params, q.backlog(), now, ctx);
    if vars.dropping {
        if !drop {
            // Sojourn time below target: leave the dropping state.
            vars.dropping = false;
        } else if after_eq(now, vars.drop_next) {
            // Time for the next drop (possibly several: a large backlog may make the next
            // drop due at once).
            while vars.dropping && after_eq(now, vars.drop_next) {
                vars.count = vars.count.wrapping_add(1);
                vars.newton_step();
                let p = pkt.expect("CoDel holds a packet while dropping");
                if params.ecn && ctx.mark_ce(p) {
                    vars.drop_next = vars.control_law(vars.drop_next, params.interval);
                    return pkt;
                }
                aqm_drop(p, ctx, drops);
                pkt = q.pop(ctx);
                if !should_drop(pkt, vars, params, q.backlog(), now, ctx) {
                    vars.dropping = false;
                } else {
                    vars.drop_next = vars.control_law(vars.drop_next, params.interval);
                }
            }
        }
    } else if drop {
        let p = pkt.expect("should_drop is false without a packet");
        if !(params.ecn && ctx.mark_ce(p)) {
            aqm_drop(p, ctx, drops);
            pkt = q.pop(ctx);
            should_drop(pkt, vars, params, q.backlog(), now, ctx);
        }
        vars.dropping = true;
        // If we went above target close to when we last went below, the drop rate that
        // controlled the queue last time is a good starting point.
        let delta = vars.count.wrapping_sub(vars.lastcount);
        if delta > 1 && before(now.wrapping_sub(vars.drop_next), 16 * params.interval) {
            vars.count = delta;
            vars.newton_step();
        } else {
            vars.count = 1;
            vars.rec_inv_sqrt = (!0u32 >> REC_INV_SQRT_SHIFT) as u16;
        }
        vars.lastcount = vars.count;
        vars.drop_next = vars.control_law(now, params.interval);
    }
    pkt
}

/// The `codel` qdisc: one FIFO under CoDel, tail drop at `limit` packets.
pub struct Codel {
    limit: u32,
    params: CodelParams,
    fifo: PacketFifo,
    /// Bytes queued, all members.
    backlog: u64,
    /// CoDel's state on a real interface.
    vars: CodelVars,
    /// On a virtual device: CoDel's state and the backlog it judges, per member interface
    /// (created at the first request of a member; see the module documentation).
    members: Option<Lanes<CodelLane>>,
    stash: PeekStash,
    aqm_drops: u64,
}

/// One member's CoDel: its control state and its packets' bytes.
#[derive(Clone, Copy, Debug, Default)]
struct CodelLane {
    vars: CodelVars,
    backlog: u64,
}

/// The FIFO as the CoDel of a real interface sees it.
struct FifoView<'a> {
    fifo: &'a mut PacketFifo,
    backlog: &'a mut u64,
}

impl CodelQueue for FifoView<'_> {
    #[inline]
    fn pop(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let p = self.fifo.pop_front()?;
        *self.backlog -= ctx.len_of(p) as u64;
        Some(p)
    }
    #[inline]
    fn backlog(&self) -> u64 {
        *self.backlog
    }
}

/// The FIFO as the CoDel of member lane `lane` sees it: it takes the member's oldest
/// packet and judges the member's backlog.
struct MemberView<'a> {
    fifo: &'a mut PacketFifo,
    backlog: &'a mut u64,
    lanes: &'a mut Lanes<CodelLane>,
    lane: usize,
}

impl CodelQueue for MemberView<'_> {
    #[inline]
    fn pop(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let p = self.fifo.take(ctx)?;
        let len = ctx.len_of(p) as u64;
        *self.backlog -= len;
        self.lanes.at_mut(self.lane).backlog -= len;
        Some(p)
    }
    #[inline]
    fn backlog(&self) -> u64 {
        self.lanes.at(self.lane).backlog
    }
}

impl Codel {
    /// A CoDel queue; `mtu` is the device's psched_mtu.
    pub fn new(conf: &CodelConf, mtu: u32) -> Self {
        Codel {
            limit: conf.limit,
            params: CodelParams {
                target: codel_duration(conf.target),
                interval: codel_duration(conf.interval),
                mtu,
                ecn: conf.ecn,
            },
            fifo: PacketFifo::for_limit(conf.limit),
            backlog: 0,
            vars: CodelVars::default(),
            members: None,
            stash: PeekStash::default(),
            aqm_drops: 0,
        }
    }

    /// Packets CoDel has dropped so far (not counting tail drops).
    pub fn aqm_drops(&self) -> u64 {
        self.aqm_drops
    }

    /// One CoDel dequeue for the asker (Linux `codel_qdisc_dequeue`).
    fn dequeue_inner(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let mut drops = 0;
        let p = match ctx.member {
            None => {
                let mut view = FifoView {
                    fifo: &mut self.fifo,
                    backlog: &mut self.backlog,
                };
                codel_dequeue(&mut view, &self.params, &mut self.vars, ctx, &mut drops)
            }
            Some(m) => self.dequeue_for_member(m, ctx, &mut drops),
        };
        self.aqm_drops += drops as u64;
        p
    }

    /// Member `m`'s CoDel dequeues its oldest packet.
    #[inline(never)]
    fn dequeue_for_member(
        &mut self,
        m: u32,
        ctx: &mut QdiscCtx,
        drops: &mut u32,
    ) -> Option<PacketId> {
        let fifo = &self.fifo;
        let lanes = self.members.get_or_insert_with(|| {
            // The first request of a member: the packets queued so far join their lanes.
            let mut lanes = Lanes::default();
            for p in fifo.iter() {
                let pk = ctx.packets.get(p);
                lanes
                    .get_or_insert_with(pk.out_iface, CodelLane::default)
                    .backlog += ctx.len_of(p) as u64;
            }
            lanes
        });
        let lane = lanes.index_or_insert_with(m, CodelLane::default);
        let mut vars = lanes.at(lane).vars;
        let mut view = MemberView {
            fifo: &mut self.fifo,
            backlog: &mut self.backlog,
            lanes,
            lane,
        };
        let p = codel_dequeue(&mut view, &self.params, &mut vars, ctx, drops);
        lanes.at_mut(lane).vars = vars;
        p
    }
}

impl Qdisc for Codel {
    fn kind(&self) -> &'static str {
        "codel"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        if (self.len() as u64) < self.limit as u64 {
            let len = ctx.len_of(pkt) as u64;
            let p = ctx.packets.get_mut(pkt);
            p.enqueued = ctx.now;
            self.backlog += len;
            if let Some(lanes) = &mut self.members {
                lanes
                    .get_or_insert_with(p.out_iface, CodelLane::default)
                    .backlog += len;
            }
            self.fifo.push_back(pkt);
            Verdict::Queued
        } else {
            ctx.drop_packet(pkt, DropReason::QdiscOverflow);
            Verdict::Dropped
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.stash.take(ctx.member) {
            return Some(p);
        }
        self.dequeue_inner(ctx)
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        // Linux codel peeks with `qdisc_peek_dequeued`: CoDel runs, the survivor is kept
        // (per asking member on a virtual device).
        if let Some(p) = self.stash.peeked(ctx.member) {
            return Some(p);
        }
        let p = self.dequeue_inner(ctx);
        self.stash.keep(ctx.member, p, |p| ctx.len_of(p))
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.fifo.len() + self.stash.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog + self.stash.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::Harness;

    const MS: u64 = 1_000_000;

    /// Reference: the exact CoDel control law of RFC 8289 §5.6 / the paper,
    /// `interval/√count`, independent of the fixed-point code above.
    fn exact_spacing_ns(interval_ns: f64, count: u32) -> f64 {
        interval_ns / (count as f64).sqrt()
    }

    #[test]
    fn newton_iteration_converges_to_the_reciprocal_square_root() {
        // Reference: 1/√n. Linux takes one Newton step per increment starting from 1.0;
        // the known coarse start (1/√2 ≈ 0.5) must have converged within 0.5 % by count 16
        // and stay there.
        let mut v = CodelVars {
            count: 1,
            rec_inv_sqrt: (!0u32 >> REC_INV_SQRT_SHIFT) as u16,
            ..CodelVars::default()
        };
        for n in 2..=2000u32 {
            v.count = n;
            v.newton_step();
            let got = v.rec_inv_sqrt as f64 / 65536.0;
            let want = 1.0 / (n as f64).sqrt();
            if n >= 16 {
                assert!(
                    (got - want).abs() / want < 0.005,
                    "count {n}: {got} vs {want}"
                );
            }
        }
    }

    /// A constructed trace: packets of 1000 B arrive every 1 ms into a link that takes one
    /// every 2 ms (dequeues at 2 ms steps), so the sojourn time grows without bound and CoDel
    /// must enter the dropping state once and drop at `interval/√count` spacings (about
    /// 2400 drops in 10 s).
    #[test]
    fn drop_spacing_follows_the_control_law_interval_over_sqrt_count() {
        let mut h = Harness::new();
        let conf = CodelConf {
            limit: 100_000,
            ..CodelConf::default()
        };
        let mut q = Codel::new(&conf, 1514);
        let mut drop_times: Vec<u64> = Vec::new();
        let end = 10_000 * MS;
        let mut t = 0;
        while t < end {
            h.now = SimTime(t);
            // Two arrivals per dequeue.
            for _ in 0..2 {
                let p = h.packet(0, 1000);
                assert_eq!(h.enqueue(&mut q, p), Verdict::Queued);
            }
            let before = q.aqm_drops();
            h.dequeue(&mut q);
            let dropped = h.dropped();
            assert_eq!(dropped.len() as u64, q.aqm_drops() - before);
            for (_, r) in &dropped {
                assert_eq!(*r, DropReason::Aqm);
            }
            drop_times.extend(std::iter::repeat_n(t, dropped.len()));
            t += 2 * MS;
        }
        // First drop: the sojourn exceeds target (5 ms) at about 10 ms and stays above for
        // an interval (100 ms) → the first drop comes about 110 ms in (tick-rounded).
        assert!(
            (108 * MS..=114 * MS).contains(&drop_times[0]),
            "first drop at {} ms",
            drop_times[0] / MS
        );
        assert!(drop_times.len() > 100, "{} drops", drop_times.len());
        // Spacings: the k-th gap (between drop k and k+1, count = k+1 at drop k+1) follows
        // interval/√count. Dequeues happen every 2 ms, so each drop happens at the first
        // dequeue at or after its due time: compare the cumulative schedule, within one
        // dequeue period plus the Newton error (≤ 0.5 % of the elapsed time beyond count
        // 16, with the early coarse steps bounded separately).
        let interval = 100.0 * MS as f64;
        let mut due = drop_times[0] as f64;
        // Linux's schedule, replayed in CoDel ticks with the same fixed point.
        let mut v = CodelVars {
            count: 1,
            rec_inv_sqrt: (!0u32 >> REC_INV_SQRT_SHIFT) as u16,
            ..CodelVars::default()
        };
        let mut linux_due = v.control_law(
            codel_time(SimTime(drop_times[0])),
            codel_duration(conf.interval),
        );
        for (k, w) in drop_times.windows(2).enumerate() {
            let count = k as u32 + 2;
            due += exact_spacing_ns(interval, count);
            let gap = (w[1] - w[0]) as f64;
            // Each actual gap is the exact law's spacing, quantized to the 2 ms dequeue grid.
            if count >= 16 {
                let want = exact_spacing_ns(interval, count);
                assert!(
                    (gap - want).abs() <= 2.0 * MS as f64 + 0.005 * want,
                    "count {count}: gap {gap} ns, law {want} ns"
                );
            }
            // And the drop instants match Linux's fixed-point schedule to the dequeue grid.
            let linux_ns = (linux_due as u64) << CODEL_SHIFT;
            assert!(
                w[1] >= linux_ns && w[1] < linux_ns + 2 * MS + 1024,
                "drop {count} at {} ns, Linux schedule {linux_ns} ns",
                w[1]
            );
            v.count = count;
            v.newton_step();
            linux_due = v.control_law(linux_due, codel_duration(conf.interval));
        }
        // Over the whole run, the exact law and the simulated drops agree within 1 %.
        let last = *drop_times.last().unwrap() as f64;
        assert!(
            (last - due).abs() / (due - drop_times[0] as f64) < 0.01,
            "last drop {last} vs law {due}"
        );
    }

    #[test]
    fn never_drops_while_at_most_one_mtu_is_queued() {
        // RFC 8289 §5.4 / Linux: backlog ≤ mtu stops CoDel however old the packet.
        let mut h = Harness::new();
        let mut q = Codel::new(&CodelConf::default(), 1514);
        let p = h.packet(0, 1500);
        h.enqueue(&mut q, p);
        h.now = SimTime::from_secs(10);
        assert_eq!(h.dequeue(&mut q), Some(p));
        assert!(h.dropped().is_empty());
    }

    #[test]
    fn ecn_capable_packets_are_marked_instead_of_dropped() {
        let mut h = Harness::new();
        let conf = CodelConf {
            ecn: true,
            ..CodelConf::default()
        };
        let mut q = Codel::new(&conf, 1514);
        let mut marked = 0;
        for step in 0..200u64 {
            h.now = SimTime(step * 2 * MS);
            for _ in 0..2 {
                let p = h.packet(0, 1000);
                h.packets.get_mut(p).ecn = 2; // ECT(0)
                h.enqueue(&mut q, p);
            }
            if let Some(p) = h.dequeue(&mut q) {
                if h.packets.get(p).ecn == crate::packet::ECN_CE {
                    marked += 1;
                }
            }
        }
        assert!(h.dropped().is_empty(), "ECT packets must not be dropped");
        assert!(marked > 0);
        assert_eq!(h.drops.take_marks(), marked);
    }

    #[test]
    fn tail_drops_beyond_the_packet_limit() {
        let mut h = Harness::new();
        let conf = CodelConf {
            limit: 2,
            ..CodelConf::default()
        };
        let mut q = Codel::new(&conf, 1514);
        let p: Vec<_> = (0..3).map(|_| h.packet(0, 100)).collect();
        assert_eq!(h.enqueue(&mut q, p[0]), Verdict::Queued);
        assert_eq!(h.enqueue(&mut q, p[1]), Verdict::Queued);
        assert_eq!(h.enqueue(&mut q, p[2]), Verdict::Dropped);
        assert_eq!(h.dropped(), vec![(p[2], DropReason::QdiscOverflow)]);
    }
}
