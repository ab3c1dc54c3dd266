//! The trunk receiver of seed 004 (§3.5–3.6): a node hook on the receiving node that puts
//! the packets arriving on the trunk's member interfaces back in sequence.
//!
//! With `N` the sequence number of the last packet delivered to the upper layer and `S`
//! the arriving packet's (Fig. 7):
//!
//! - `S = N + 1`: in order, delivered at once; then every queued packet that is in order
//!   behind it (the first hole filled, Fig. 6(c)); if a further hole remains, the
//!   reordering timer starts again for it, else it is stopped;
//! - `S > N + 1`: out of order, held in the resequencing queue; the reordering timer starts
//!   if it is not running (Fig. 6(a));
//! - `S = N`: a duplicate of the packet just delivered, dropped (`DropReason::Resequencer`;
//!   so is a second copy of a packet already queued);
//! - `S < N`: "late": delivered (the upper layer, TCP's reassembly queue, may still use
//!   it), or dropped as `resequencer` when `strict_fifo` asks for a strict FIFO order.
//!
//! When the reordering timer expires, every queued packet is delivered in sequence order,
//! past any holes, and `N` becomes the last of them (Fig. 6(b)).
//!
//! **The timeout adapts** (§3.6, Fig. 9): each late packet adds `timeout_step` (1 ms) to
//! it, and a running timer uses the new value at once (it expires at its start plus the
//! new timeout); each late packet also (re)arms the adjusting timer at its arrival plus
//! `adjust_interval` (1 s); when that expires the timeout is halved (not below
//! `min_timeout`; the paper gives no floor nor start value). The timeout's history is the
//! `trunk_timeout` table (Fig. 41); per receiver counts and the packet delivery latency
//! (from the moment the sending node's upper layer handed the packet to its trunk, through
//! the trunk queue, to delivery here: §4.2.9, Tables 1–2) are the `trunk_receivers` table.
//! Latency counts the whole run, warm-up included.
//!
//! Packets arriving on other interfaces, or without a trunk sequence number, pass
//! untouched. Queued packets are counted by `held` (the ledger's `Hook` location) until the
//! run ends.

use super::{push_row, receiver_row, Cell, Spread, TimerConf};
use crate::engine::{SimTime, TimerId};
use crate::hook::{HookBuild, HookCtx, HookVerdict, NodeHook};
use crate::metrics::Table;
use crate::packet::{DropReason, PacketId};
use crate::topology::IfaceId;
use std::collections::VecDeque;

const REORDER: u32 = 0;
const ADJUST: u32 = 1;

/// What one receiver counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReseqCounts {
    /// Delivered at once, in order.
    pub in_order: u64,
    /// Placed in the resequencing queue.
    pub queued: u64,
    /// Late packets (`S < N`), delivered or (strict FIFO) dropped.
    pub late: u64,
    /// Duplicates dropped (`S = N`, or a second copy of a queued packet).
    pub duplicates: u64,
    /// Reordering timer expiries (each flushes the queue past its holes).
    pub expiries: u64,
}

/// The receiving half of one trunk direction.
pub struct Resequencer {
    name: String,
    trunk: String,
    node: String,
    members: Vec<IfaceId>,
    conf: TimerConf,
    /// The last sequence number delivered (`N`).
    last: u64,
    /// Slot `i` holds the packet with sequence number `last + 1 + i`, if it arrived.
    queue: VecDeque<Option<PacketId>>,
    held: u64,
    timeout: SimTime,
    /// When the running reordering timer started (`None`: not running).
    started: Option<SimTime>,
    reorder: TimerId,
    adjust: TimerId,
    counts: ReseqCounts,
    latency: Spread,
    /// (time, timeout) at the start and after every change.
    series: Vec<(SimTime, SimTime)>,
}

impl Resequencer {
    /// The receiver of trunk `trunk` on node `node`, for packets arriving on `members`.
    pub fn new(trunk: &str, node: &str, members: Vec<IfaceId>, conf: TimerConf) -> Self {
        Resequencer {
            name: format!("trunk {trunk} receiver on {node}"),
            trunk: trunk.to_string(),
            node: node.to_string(),
            members,
            conf,
            last: 0,
            queue: VecDeque::new(),
            held: 0,
            timeout: conf.initial,
            started: None,
            reorder: TimerId(u32::MAX),
            adjust: TimerId(u32::MAX),
            counts: ReseqCounts::default(),
            latency: Spread::default(),
            series: vec![(SimTime::ZERO, conf.initial)],
        }
    }

    pub fn counts(&self) -> &ReseqCounts {
        &self.counts
    }

    /// The reordering timeout now.
    pub fn timeout(&self) -> SimTime {
        self.timeout
    }

    /// (time, timeout) at the start and after every change (Fig. 41).
    pub fn timeout_series(&self) -> &[(SimTime, SimTime)] {
        &self.series
    }

    fn delivered(&mut self, pkt: PacketId, cx: &HookCtx<'_>) {
        let at = cx.packets.get(pkt).enqueued;
        self.latency.record((cx.now - at).as_secs_f64());
    }

    /// Releases the queued packets that are in order behind `last`; restarts the
    /// reordering timer for a remaining hole or stops it.
    fn release_in_order(&mut self, cx: &mut HookCtx<'_>) {
        while let Some(Some(p)) = self.queue.front().copied() {
            self.queue.pop_front();
            self.held -= 1;
            self.last += 1;
            self.delivered(p, cx);
            cx.release(p);
        }
        if self.held == 0 {
            self.queue.clear();
            self.started = None;
            cx.cancel(self.reorder);
        } else {
            self.start_timer(cx);
        }
    }

    fn start_timer(&mut self, cx: &mut HookCtx<'_>) {
        self.started = Some(cx.now);
        cx.arm(self.reorder, cx.now + self.timeout);
    }

    fn on_late(&mut self, cx: &mut HookCtx<'_>) {
        self.counts.late += 1;
        self.timeout += self.conf.step;
        self.series.push((cx.now, self.timeout));
        if let Some(t0) = self.started {
            cx.arm(self.reorder, (t0 + self.timeout).max(cx.now));
        }
        cx.arm(self.adjust, cx.now + self.conf.adjust_interval);
    }
}

impl NodeHook for Resequencer {
    fn name(&self) -> &str {
        &self.name
    }

    fn attach(&mut self, b: &mut HookBuild<'_>) {
        self.reorder = b.timer(REORDER);
        self.adjust = b.timer(ADJUST);
    }

    fn on_arrival(&mut self, pkt: PacketId, iface: IfaceId, cx: &mut HookCtx<'_>) -> HookVerdict {
        let p = cx.packets.get(pkt);
        let s = p.trunk_seq;
        if s == 0 || p.trunk_ctl.is_control() || !self.members.contains(&iface) {
            return HookVerdict::Pass;
        }
        let n = self.last;
        if s == n + 1 {
            self.counts.in_order += 1;
            self.last = s;
            self.delivered(pkt, cx);
            if self.queue.is_empty() {
                return HookVerdict::Pass;
            }
            // Slot 0 was this packet's (empty); what follows it may now be in order. The
            // arriving packet goes first, then the released ones (the simulator marks a
            // held packet before it acts on the releases).
            self.queue.pop_front();
            cx.release(pkt);
            self.release_in_order(cx);
            HookVerdict::Hold
        } else if s > n + 1 {
            let i = (s - n - 1) as usize;
            if i < self.queue.len() && self.queue[i].is_some() {
                self.counts.duplicates += 1;
                return HookVerdict::Drop(DropReason::Resequencer);
            }
            if i >= self.queue.len() {
                self.queue.resize(i + 1, None);
            }
            self.queue[i] = Some(pkt);
            self.held += 1;
            self.counts.queued += 1;
            if self.started.is_none() {
                self.start_timer(cx);
            }
            HookVerdict::Hold
        } else if s == n {
            self.counts.duplicates += 1;
            HookVerdict::Drop(DropReason::Resequencer)
        } else {
            self.on_late(cx);
            if self.conf.strict_fifo {
                HookVerdict::Drop(DropReason::Resequencer)
            } else {
                self.delivered(pkt, cx);
                HookVerdict::Pass
            }
        }
    }

    fn on_timer(&mut self, key: u32, cx: &mut HookCtx<'_>) {
        match key {
            REORDER => {
                // Flush past every hole, in sequence order (Fig. 6(b)).
                self.counts.expiries += 1;
                let mut seq = self.last;
                while let Some(slot) = self.queue.pop_front() {
                    seq += 1;
                    if let Some(p) = slot {
                        self.last = seq;
                        self.delivered(p, cx);
                        cx.release(p);
                    }
                }
                self.held = 0;
                self.started = None;
            }
            _ => {
                let halved = SimTime::from_nanos(self.timeout.as_nanos() / 2);
                self.timeout = halved.max(self.conf.min);
                self.series.push((cx.now, self.timeout));
            }
        }
    }

    fn held(&self) -> u64 {
        self.held
    }

    fn report(&self, out: &mut Vec<(String, Table)>) {
        let c = &self.counts;
        receiver_row(
            out,
            (&self.trunk, &self.node),
            [
                c.in_order,
                c.queued,
                c.late,
                c.duplicates,
                c.expiries,
                self.held,
            ],
            self.timeout.as_secs_f64() * 1e3,
            &self.latency,
        );
        for &(t, v) in &self.series {
            push_row(
                out,
                "trunk_timeout",
                vec![
                    ("trunk", Cell::S(self.trunk.clone())),
                    ("node", Cell::S(self.node.clone())),
                    ("time_s", Cell::F(t.as_secs_f64())),
                    ("timeout_ms", Cell::F(v.as_secs_f64() * 1e3)),
                ],
            );
        }
    }
}

#[cfg(test)]
mod tests {
    //! The receiver's rules against hand-worked sequences of seed 004 Figs. 6, 7 and 9.
    use super::*;
    use crate::engine::{EventQueue, Timers};
    use crate::event::{Event, TimerOwner};
    use crate::hook::HookEffect;
    use crate::packet::{FlowId, Location, Packet, PacketArena};

    struct Rig {
        r: Resequencer,
        packets: PacketArena,
        events: EventQueue<Event>,
        timers: Timers,
        out: Vec<HookEffect>,
        now: SimTime,
    }

    const ON: IfaceId = IfaceId(4);

    fn conf() -> TimerConf {
        TimerConf {
            initial: SimTime::from_millis(5),
            step: SimTime::from_millis(1),
            adjust_interval: SimTime::from_secs(1),
            min: SimTime::from_millis(1),
            strict_fifo: false,
        }
    }

    impl Rig {
        fn new(conf: TimerConf) -> Rig {
            let mut timers = Timers::new();
            let mut owners: Vec<TimerOwner> = Vec::new();
            let mut r = Resequencer::new("t", "n1", vec![ON], conf);
            r.attach(&mut HookBuild {
                hook: 0,
                timers: &mut timers,
                owners: &mut owners,
            });
            Rig {
                r,
                packets: PacketArena::new(),
                events: EventQueue::new(),
                timers,
                out: Vec::new(),
                now: SimTime::ZERO,
            }
        }
        fn cx(&mut self) -> HookCtx<'_> {
            HookCtx {
                now: self.now,
                hook: 0,
                packets: &mut self.packets,
                events: &mut self.events,
                timers: &mut self.timers,
                out: &mut self.out,
            }
        }
        /// Sequence numbers the arrival of `seq` makes the node deliver, in order (the
        /// arriving packet's own, if it passes, first), and the verdict.
        fn arrive(&mut self, seq: u64) -> (HookVerdict, Vec<u64>) {
            let mut p = Packet::udp(FlowId(0), 1500, self.now);
            p.trunk_seq = seq;
            let id = self.packets.alloc(p, Location::Node(0));
            let mut r = std::mem::replace(&mut self.r, Resequencer::new("x", "x", vec![], conf()));
            let v = r.on_arrival(id, ON, &mut self.cx());
            self.r = r;
            let mut got: Vec<u64> = Vec::new();
            if v == HookVerdict::Pass {
                got.push(seq);
            }
            got.extend(self.released());
            (v, got)
        }
        fn released(&mut self) -> Vec<u64> {
            let out = std::mem::take(&mut self.out);
            out.iter()
                .map(|e| match e {
                    HookEffect::Release(p) => self.packets.get(*p).trunk_seq,
                    e => panic!("unexpected {e:?}"),
                })
                .collect()
        }
        fn fire(&mut self, key: u32) -> Vec<u64> {
            let id = if key == REORDER {
                self.r.reorder
            } else {
                self.r.adjust
            };
            self.now = self.timers.armed_at(id).expect("timer armed");
            self.timers.cancel(id);
            let mut r = std::mem::replace(&mut self.r, Resequencer::new("x", "x", vec![], conf()));
            r.on_timer(key, &mut self.cx());
            self.r = r;
            self.released()
        }
    }

    /// Fig. 7 (a, d, c, b) and Fig. 6 (c): in order passes, out of order waits, the filling
    /// packet releases the run behind it and the next hole restarts the timer.
    #[test]
    fn fig7_rules_and_fig6c_hole_filled() {
        let mut g = Rig::new(conf());
        assert_eq!(g.arrive(1), (HookVerdict::Pass, vec![1]));
        assert_eq!(g.arrive(3), (HookVerdict::Hold, vec![]));
        assert_eq!(g.arrive(4), (HookVerdict::Hold, vec![]));
        assert_eq!(g.arrive(6), (HookVerdict::Hold, vec![]));
        assert_eq!(g.r.held(), 3);
        assert_eq!(
            g.timers.armed_at(g.r.reorder),
            Some(SimTime::from_millis(5))
        );
        g.now = SimTime::from_millis(2);
        // 2 fills the first hole: 2, 3, 4 go up in order; 6 waits for 5, timer restarted.
        assert_eq!(g.arrive(2), (HookVerdict::Hold, vec![2, 3, 4]));
        assert_eq!(g.r.held(), 1);
        assert_eq!(
            g.timers.armed_at(g.r.reorder),
            Some(SimTime::from_millis(7))
        );
        // S = N + 1 releases the rest; the timer stops.
        assert_eq!(g.arrive(5), (HookVerdict::Hold, vec![5, 6]));
        assert_eq!(g.timers.armed_at(g.r.reorder), None);
        // S = N: dropped as a duplicate.
        assert_eq!(g.arrive(6).0, HookVerdict::Drop(DropReason::Resequencer));
        assert_eq!(g.r.counts().duplicates, 1);
        assert_eq!(g.r.held(), 0);
    }

    /// Fig. 6 (b): the timer expires before the hole fills; everything queued goes up past
    /// the holes, N becomes the last; the missing packet then arrives late, is delivered,
    /// and adds 1 ms to the timeout, which a running timer uses at once (§3.6).
    #[test]
    fn fig6b_expiry_flushes_past_holes_and_late_packets_grow_the_timeout() {
        let mut g = Rig::new(conf());
        g.arrive(1);
        g.arrive(3);
        g.arrive(5);
        assert_eq!(g.fire(REORDER), vec![3, 5]);
        assert_eq!(g.r.counts().expiries, 1);
        assert_eq!(g.now, SimTime::from_millis(5));
        // A new hole: 8 waits for 7 (timer from 6 ms to 11 ms).
        g.now = SimTime::from_millis(6);
        assert_eq!(g.arrive(6), (HookVerdict::Pass, vec![6]));
        assert_eq!(g.arrive(8), (HookVerdict::Hold, vec![]));
        assert_eq!(
            g.timers.armed_at(g.r.reorder),
            Some(SimTime::from_millis(11))
        );
        // 2 and 4 are late (S < N): delivered; each adds 1 ms, used by the running timer.
        g.now = SimTime::from_millis(7);
        assert_eq!(g.arrive(2), (HookVerdict::Pass, vec![2]));
        assert_eq!(g.r.timeout(), SimTime::from_millis(6));
        assert_eq!(
            g.timers.armed_at(g.r.reorder),
            Some(SimTime::from_millis(12))
        );
        g.now = SimTime::from_millis(8);
        assert_eq!(g.arrive(4), (HookVerdict::Pass, vec![4]));
        assert_eq!(g.r.timeout(), SimTime::from_millis(7));
        assert_eq!(
            g.timers.armed_at(g.r.reorder),
            Some(SimTime::from_millis(13))
        );
        // The adjusting timer follows the last late packet by 1 s, then halves (Fig. 9).
        assert_eq!(
            g.timers.armed_at(g.r.adjust),
            Some(SimTime::from_millis(1008))
        );
        g.fire(ADJUST);
        assert_eq!(g.r.timeout(), SimTime::from_nanos(3_500_000));
        assert_eq!(g.r.counts().late, 2);
        let series: Vec<u64> =
            g.r.timeout_series()
                .iter()
                .map(|&(_, v)| v.as_nanos() / 100_000)
                .collect();
        assert_eq!(series, vec![50, 60, 70, 35]);
    }

    /// §3.5: with a strict FIFO asked for, late packets are dropped; halving stops at the
    /// floor.
    #[test]
    fn strict_fifo_drops_late_packets_and_halving_stops_at_the_floor() {
        let mut g = Rig::new(TimerConf {
            strict_fifo: true,
            ..conf()
        });
        g.arrive(1);
        g.arrive(3);
        g.fire(REORDER);
        assert_eq!(g.arrive(2).0, HookVerdict::Drop(DropReason::Resequencer));
        for _ in 0..5 {
            g.timers.arm(&mut g.events, g.r.adjust, g.now);
            g.fire(ADJUST);
        }
        assert_eq!(g.r.timeout(), SimTime::from_millis(1));
    }
}
