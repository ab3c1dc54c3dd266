//! The "JKM" scheme of seed 004 §5 (the wireless striping scheme of Jacquet, Kauffmann and
//! Misson, 2000, the seed's reference [5]): `scheme = "jkm"` on a trunk.
//!
//! What the seed says of it, and all this model takes from it: "the JKM scheme implements
//! a selective reject ACK scheme with positive and negative ACK packets at the trunk
//! level"; it "will continuously issue retransmission requests to the trunk sender to ask
//! it to resend a lost packet until it is eventually received"; "if there is a hole in
//! received packets and the hole has not been filled, the trunk receiver will not deliver
//! those received packets after the hole to the upper layer" (§5). The seed gives no
//! parameter; the choices below are ours, each a field of the trunk:
//!
//! - **Sender**: the proposed method's (sequence numbers at dispatch, round robin over
//!   idle members, the 50-packet queue; `trunk.rs`), which also keeps a copy of every data
//!   packet it dispatched ([`JkmBoard`]) until a positive ACK covers it. A NAK for a packet
//!   it still holds makes it send a copy again ([`TrunkCtl::Retransmission`], a new packet
//!   in the ledger), ahead of its queue (an ARQ sender serves its retransmissions first,
//!   as HDLC's selective reject does). The ACKs and NAKs arrive at a node hook beside the
//!   sender ([`JkmAckHook`]).
//! - **Receiver** ([`JkmReceiver`]): in-order packets pass, out-of-order ones wait; a
//!   packet at or below the last delivered is a duplicate (dropped as `resequencer`);
//!   nothing is ever flushed past a hole. **Positive ACKs** are cumulative (the last
//!   in-order sequence number) and go after every `ack_every` data packets received (1:
//!   the seed's "many ACK packets"). **Negative ACKs** (selective reject) name one missing
//!   packet each: one for every new hole as soon as a packet beyond it arrives, and again
//!   for every hole still open each `nak_interval` (20 ms) until it fills.
//! - Control packets are `control_bytes` (40 B) IP packets sent back over the reverse
//!   direction of the trunk (they take turns on its members like any packet, without a
//!   sequence number), and consumed by the hook beside the sender. They can be lost like
//!   data: a lost ACK is covered by the next, a lost NAK by its repetition.
//!
//! The receiver's latency (`trunk_receivers`) counts a retransmitted packet from the moment
//! its copy entered the sender's trunk queue, not the original's.
//!
//! Striping reorders packets across channels even without loss, and a selective-reject
//! receiver cannot tell reordering from loss: every packet that arrives ahead of another
//! sends a NAK, and a retransmission that crosses the late original is dropped at the
//! receiver as a duplicate. That cost is the scheme's as described; the `trunk_control`
//! table counts NAKs and retransmissions, `trunk_receivers.duplicates` the crossings.

use super::{control_row, receiver_row, ControlCounts, Spread, Waits};
use crate::engine::{SimTime, TimerId};
use crate::hook::{HookBuild, HookCtx, HookVerdict, NodeHook};
use crate::metrics::Table;
use crate::packet::{DropReason, FiveTuple, FlowId, NodeId, Packet, PacketId, TrunkCtl};
use crate::topology::IfaceId;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// The sender's copies of the data packets it dispatched and no ACK has covered yet.
#[derive(Debug, Default)]
pub struct JkmBoard {
    /// The sequence number of `copies[0]`.
    base: u64,
    copies: VecDeque<Option<Packet>>,
}

/// The board as the sender qdisc and its ACK hook share it.
pub type JkmShared = Arc<Mutex<JkmBoard>>;

impl JkmBoard {
    /// Keeps a copy of data packet `seq` (dispatched in increasing order).
    pub fn record(&mut self, seq: u64, p: &Packet) {
        if self.copies.is_empty() {
            self.base = seq;
        }
        let i = (seq - self.base) as usize;
        if i >= self.copies.len() {
            self.copies.resize(i + 1, None);
        }
        self.copies[i] = Some(p.clone());
    }

    /// Every packet up to `n` arrived: forget their copies.
    pub fn ack(&mut self, n: u64) {
        while self.base <= n && self.copies.pop_front().is_some() {
            self.base += 1;
        }
        if self.copies.is_empty() {
            self.base = self.base.max(n + 1);
        }
    }

    /// The copy of packet `seq`, if no ACK covered it yet.
    pub fn get(&self, seq: u64) -> Option<&Packet> {
        let i = seq.checked_sub(self.base)?;
        self.copies.get(i as usize)?.as_ref()
    }

    /// Copies held.
    pub fn len(&self) -> usize {
        self.copies.iter().filter(|c| c.is_some()).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A control packet from a trunk end to its peer: `what` with number `n`, of `bytes`,
/// reusing the flow (for the per-flow channel streams) and the reversed addresses of the
/// data packet that occasioned it.
fn control_packet(
    what: TrunkCtl,
    n: u64,
    bytes: u32,
    to: NodeId,
    about: (FlowId, FiveTuple),
    now: SimTime,
) -> Packet {
    let t = about.1;
    Packet {
        flow: about.0,
        tuple: FiveTuple {
            src_addr: t.dst_addr,
            dst_addr: t.src_addr,
            src_port: t.dst_port,
            dst_port: t.src_port,
            protocol: t.protocol,
        },
        dst_node: to,
        ttl: 64,
        size_bytes: bytes,
        trunk_seq: n,
        trunk_ctl: what,
        created: now,
        enqueued: now,
        ..Packet::default()
    }
}

/// The hook beside a JKM sender: reads the ACKs and NAKs its peer's receiver sends.
pub struct JkmAckHook {
    name: String,
    members: Vec<IfaceId>,
    board: JkmShared,
    counts: Arc<ControlCounts>,
}

impl JkmAckHook {
    pub fn new(
        trunk: &str,
        node: &str,
        members: Vec<IfaceId>,
        board: JkmShared,
        counts: Arc<ControlCounts>,
    ) -> Self {
        JkmAckHook {
            name: format!("trunk {trunk} JKM sender on {node}"),
            members,
            board,
            counts,
        }
    }
}

impl NodeHook for JkmAckHook {
    fn name(&self) -> &str {
        &self.name
    }

    fn on_arrival(&mut self, pkt: PacketId, iface: IfaceId, cx: &mut HookCtx<'_>) -> HookVerdict {
        let p = cx.packets.get(pkt);
        let (what, n) = (p.trunk_ctl, p.trunk_seq);
        if !matches!(what, TrunkCtl::Ack | TrunkCtl::Nak) || !self.members.contains(&iface) {
            return HookVerdict::Pass;
        }
        let mut board = self.board.lock().expect("the JKM board is never poisoned");
        if what == TrunkCtl::Ack {
            ControlCounts::add(&self.counts.acks_received);
            board.ack(n);
        } else {
            ControlCounts::add(&self.counts.naks_received);
            if let Some(copy) = board.get(n) {
                let mut again = copy.clone();
                again.trunk_ctl = TrunkCtl::Retransmission;
                again.enqueued = cx.now;
                drop(board);
                cx.send_new(again);
                ControlCounts::add(&self.counts.retransmissions);
            }
        }
        HookVerdict::Consume
    }

    fn held(&self) -> u64 {
        0
    }
}

/// The parameters of a JKM receiver.
#[derive(Copy, Clone, Debug)]
pub struct JkmConf {
    pub ack_every: u32,
    pub nak_interval: SimTime,
    pub control_bytes: u32,
}

/// The JKM receiving half of one trunk direction (a node hook on the peer).
pub struct JkmReceiver {
    name: String,
    trunk: String,
    node: String,
    /// The sender's node, where the ACKs and NAKs go.
    sender: NodeId,
    members: Vec<IfaceId>,
    conf: JkmConf,
    /// The last sequence number delivered (`N`).
    last: u64,
    /// Slot `i` holds packet `last + 1 + i`, if it arrived.
    queue: VecDeque<Option<PacketId>>,
    held: u64,
    since_ack: u32,
    nak_timer: TimerId,
    about: (FlowId, FiveTuple),
    in_order: u64,
    queued: u64,
    duplicates: u64,
    nak_rounds: u64,
    latency: Spread,
    waits: Waits,
    counts: Arc<ControlCounts>,
}

impl JkmReceiver {
    pub fn new(
        trunk: &str,
        node: &str,
        sender: NodeId,
        members: Vec<IfaceId>,
        conf: JkmConf,
        counts: Arc<ControlCounts>,
    ) -> Self {
        JkmReceiver {
            name: format!("trunk {trunk} JKM receiver on {node}"),
            trunk: trunk.to_string(),
            node: node.to_string(),
            sender,
            members,
            conf,
            last: 0,
            queue: VecDeque::new(),
            held: 0,
            since_ack: 0,
            nak_timer: TimerId(u32::MAX),
            about: (FlowId(0), FiveTuple::default()),
            in_order: 0,
            queued: 0,
            duplicates: 0,
            nak_rounds: 0,
            latency: Spread::default(),
            waits: Waits::default(),
            counts,
        }
    }

    fn send(&mut self, what: TrunkCtl, n: u64, cx: &mut HookCtx<'_>) {
        let p = control_packet(
            what,
            n,
            self.conf.control_bytes,
            self.sender,
            self.about,
            cx.now,
        );
        cx.send_new(p);
        let c = if what == TrunkCtl::Ack {
            &self.counts.acks_sent
        } else {
            &self.counts.naks_sent
        };
        ControlCounts::add(c);
    }

    fn delivered(&mut self, pkt: PacketId, cx: &HookCtx<'_>) {
        let at = cx.packets.get(pkt).enqueued;
        self.latency.record((cx.now - at).as_secs_f64());
    }

    /// Releases the queued packets in order behind `last`; when no hole is left the NAK
    /// timer stops.
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
            cx.cancel(self.nak_timer);
        }
        self.waits.update(true, self.held, cx.now);
    }

    /// Packet `s` (beyond `last + 1`) waits; the holes it reveals are NAKed at once.
    fn hold(&mut self, pkt: PacketId, s: u64, cx: &mut HookCtx<'_>) -> HookVerdict {
        let i = (s - self.last - 1) as usize;
        if i < self.queue.len() && self.queue[i].is_some() {
            self.duplicates += 1;
            return HookVerdict::Drop(DropReason::Resequencer);
        }
        let seen = self.queue.len();
        if i >= seen {
            self.queue.resize(i + 1, None);
            for j in seen..i {
                self.send(TrunkCtl::Nak, self.last + 1 + j as u64, cx);
            }
        }
        self.queue[i] = Some(pkt);
        self.held += 1;
        self.queued += 1;
        if self.held == 1 {
            cx.arm(self.nak_timer, cx.now + self.conf.nak_interval);
        }
        self.waits.update(false, self.held, cx.now);
        HookVerdict::Hold
    }
}

impl NodeHook for JkmReceiver {
    fn name(&self) -> &str {
        &self.name
    }

    fn attach(&mut self, b: &mut HookBuild<'_>) {
        self.nak_timer = b.timer(0);
    }

    fn on_arrival(&mut self, pkt: PacketId, iface: IfaceId, cx: &mut HookCtx<'_>) -> HookVerdict {
        let p = cx.packets.get(pkt);
        let s = p.trunk_seq;
        if s == 0 || p.trunk_ctl.is_control() || !self.members.contains(&iface) {
            return HookVerdict::Pass;
        }
        self.about = (p.flow, p.tuple);
        let verdict = if s == self.last + 1 {
            self.in_order += 1;
            self.last = s;
            self.delivered(pkt, cx);
            if self.queue.is_empty() {
                HookVerdict::Pass
            } else {
                self.queue.pop_front();
                cx.release(pkt);
                self.release_in_order(cx);
                HookVerdict::Hold
            }
        } else if s > self.last + 1 {
            self.hold(pkt, s, cx)
        } else {
            self.duplicates += 1;
            HookVerdict::Drop(DropReason::Resequencer)
        };
        self.since_ack += 1;
        if self.since_ack >= self.conf.ack_every {
            self.since_ack = 0;
            self.send(TrunkCtl::Ack, self.last, cx);
        }
        verdict
    }

    /// The NAK timer: every hole still open is asked for again.
    fn on_timer(&mut self, _key: u32, cx: &mut HookCtx<'_>) {
        if self.held == 0 {
            return;
        }
        self.nak_rounds += 1;
        for j in 0..self.queue.len() {
            if self.queue[j].is_none() {
                self.send(TrunkCtl::Nak, self.last + 1 + j as u64, cx);
            }
        }
        cx.arm(self.nak_timer, cx.now + self.conf.nak_interval);
    }

    fn held(&self) -> u64 {
        self.held
    }

    fn report(&self, out: &mut Vec<(String, Table)>) {
        receiver_row(
            out,
            (&self.trunk, &self.node),
            [
                self.in_order,
                self.queued,
                0,
                self.duplicates,
                self.nak_rounds,
                self.held,
            ],
            f64::NAN,
            &self.latency,
        );
        control_row(
            out,
            (&self.trunk, &self.node, "jkm"),
            &self.counts,
            (0, 0),
            &self.waits,
        );
    }
}

#[cfg(test)]
mod tests {
    //! The JKM receiver's rules (seed 004 §5) against hand-worked sequences, and the
    //! sender's copy board.
    use super::*;
    use crate::engine::{EventQueue, Timers};
    use crate::event::{Event, TimerOwner};
    use crate::hook::HookEffect;
    use crate::packet::{Location, PacketArena};

    const ON: IfaceId = IfaceId(4);

    #[test]
    fn the_board_keeps_copies_until_an_ack_covers_them() {
        let mut b = JkmBoard::default();
        for s in 5..=9 {
            let mut p = Packet::udp(FlowId(0), 1500, SimTime::ZERO);
            p.trunk_seq = s;
            b.record(s, &p);
        }
        assert_eq!(b.len(), 5);
        b.ack(6);
        assert!(b.get(6).is_none());
        assert_eq!(b.get(7).map(|p| p.trunk_seq), Some(7));
        b.ack(9);
        assert!(b.is_empty() && b.get(9).is_none());
        let p = Packet::udp(FlowId(0), 1500, SimTime::ZERO);
        b.record(10, &p);
        assert_eq!(b.get(10).map(|p| p.size_bytes), Some(1500));
    }

    struct Rig {
        r: JkmReceiver,
        packets: PacketArena,
        events: EventQueue<Event>,
        timers: Timers,
        out: Vec<HookEffect>,
        now: SimTime,
    }

    impl Rig {
        fn new() -> Rig {
            let mut timers = Timers::new();
            let mut owners: Vec<TimerOwner> = Vec::new();
            let conf = JkmConf {
                ack_every: 1,
                nak_interval: SimTime::from_millis(20),
                control_bytes: 40,
            };
            let mut r = JkmReceiver::new("t", "n1", NodeId(2), vec![ON], conf, Default::default());
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

        /// What the last call did: delivered sequence numbers (the arriving packet's own
        /// first if it passed) and the control packets sent, as "a<n>" / "n<n>".
        fn effects(&mut self, passed: Option<u64>) -> (Vec<u64>, Vec<String>) {
            let mut got: Vec<u64> = passed.into_iter().collect();
            let mut sent = Vec::new();
            for e in std::mem::take(&mut self.out) {
                match e {
                    HookEffect::Release(p) => got.push(self.packets.get(p).trunk_seq),
                    HookEffect::Send(p) => {
                        let p = self.packets.get(p);
                        assert_eq!((p.dst_node, p.size_bytes), (NodeId(2), 40));
                        let k = if p.trunk_ctl == TrunkCtl::Ack {
                            'a'
                        } else {
                            'n'
                        };
                        sent.push(format!("{k}{}", p.trunk_seq));
                    }
                    e => panic!("unexpected {e:?}"),
                }
            }
            (got, sent)
        }

        fn arrive(&mut self, seq: u64) -> (HookVerdict, Vec<u64>, Vec<String>) {
            let mut p = Packet::udp(FlowId(0), 1500, self.now);
            p.trunk_seq = seq;
            let id = self.packets.alloc(p, Location::Node(0));
            let mut r = std::mem::replace(
                &mut self.r,
                JkmReceiver::new(
                    "x",
                    "x",
                    NodeId(0),
                    vec![],
                    JkmConf {
                        ack_every: 1,
                        nak_interval: SimTime::from_millis(1),
                        control_bytes: 40,
                    },
                    Default::default(),
                ),
            );
            let v = r.on_arrival(id, ON, &mut self.cx());
            self.r = r;
            let (got, sent) = self.effects((v == HookVerdict::Pass).then_some(seq));
            (v, got, sent)
        }
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    /// Every data packet is acknowledged (cumulatively); a gap is NAKed packet by packet
    /// as soon as it is seen; what follows a hole waits, however long, until the hole
    /// fills; a copy of what was delivered is dropped; the NAK timer repeats the NAKs of
    /// the holes still open.
    #[test]
    fn acks_every_packet_naks_holes_and_holds_until_they_fill() {
        let mut g = Rig::new();
        assert_eq!(g.arrive(1), (HookVerdict::Pass, vec![1], s(&["a1"])));
        assert_eq!(
            g.arrive(4),
            (HookVerdict::Hold, vec![], s(&["n2", "n3", "a1"]))
        );
        assert_eq!(g.arrive(6), (HookVerdict::Hold, vec![], s(&["n5", "a1"])));
        // No timer flushes: 20 ms later the open holes are asked for again.
        let t = g
            .timers
            .armed_at(g.r.nak_timer)
            .expect("the NAK timer runs");
        assert_eq!(t, SimTime::from_millis(20));
        g.now = t;
        g.timers.cancel(g.r.nak_timer);
        let mut r = std::mem::replace(&mut g.r, Rig::new().r);
        r.on_timer(0, &mut g.cx());
        g.r = r;
        assert_eq!(g.effects(None), (vec![], s(&["n2", "n3", "n5"])));
        assert_eq!(g.arrive(3), (HookVerdict::Hold, vec![], s(&["a1"])));
        assert_eq!(g.arrive(2), (HookVerdict::Hold, vec![2, 3, 4], s(&["a4"])));
        assert_eq!(g.arrive(5), (HookVerdict::Hold, vec![5, 6], s(&["a6"])));
        assert_eq!(g.timers.armed_at(g.r.nak_timer), None);
        let (v, got, sent) = g.arrive(5);
        assert_eq!(v, HookVerdict::Drop(DropReason::Resequencer));
        assert_eq!((got, sent), (vec![], s(&["a6"])));
        assert_eq!(g.r.held(), 0);
        assert_eq!((g.r.in_order, g.r.queued, g.r.duplicates), (3, 3, 1));
    }
}
