//! Surplus Round Robin (Adiseshu, Parulkar, Varghese, "A reliable and scalable striping
//! protocol", SIGCOMM 1996) as seed 004 used it for comparison (§2.1, §4.2.1): the
//! `scheme = "srr"` of a trunk.
//!
//! **Sender** ([`SrrSender`], the root qdisc of the trunk device; seed 004 Fig. 1): the
//! stripes (members) take turns in round-robin order. Each stripe has a deficit counter;
//! at the start of its turn a fresh `quantum` (3 000 B in §4.2.1) is added; every packet
//! sent on the stripe subtracts its size; when the counter is no longer positive the
//! stripe's quantum is exhausted, **a marker packet carrying the round number goes out on
//! the stripe** (§4.2.1: "When a channel's quantum is exhausted, a marker packet is sent on
//! the channel"), and the next stripe's turn begins (a new round after the last stripe).
//! The surplus a packet overdraws carries over to the stripe's next turn (DRR's deficit
//! turned into load sharing). The decision depends only on the packets already sent, not
//! on which member is idle: SRR assigns each packet to its stripe as it arrives, so each
//! stripe has its own FIFO of `limit` packets (standing in for the member interface's
//! output queue, FreeBSD's default 50; the one-packet member buffer of §3.4 is the
//! proposed method's configuration, under which SRR would stall the whole trunk on the
//! stripe the algorithm names). A packet the full FIFO refuses is dropped
//! (`qdisc_overflow`) after the algorithm charged it to the stripe, as an interface queue
//! refusing an already-striped packet: for the receiver it is a loss on that stripe. The
//! marker, though, is always sent (§4.2.1: "when a channel's quantum is exhausted, a
//! marker packet is sent on the channel"): it joins the stripe's FIFO beyond `limit`, so
//! markers are lost only on the channel; a marker that would follow another one (the
//! turn's data all dropped) updates it instead, so a FIFO holds at most one marker per data
//! packet, plus one. A packet routed out of a member for another node than the
//! peer waits in its member's FIFO without taking part.
//!
//! **Receiver** ([`SrrReceiver`], a node hook on the peer; Fig. 2): "logical reception".
//! Packets wait in a FIFO per stripe; the receiver runs the sender's algorithm with the
//! same quantum and reads the stripe it names: each data packet taken is delivered and
//! charged to the stripe's counter; when the counter is no longer positive, the next
//! stripe's turn begins. With no loss this restores the sender's order exactly without
//! sequence numbers. When the stripe it reads is empty, **the receiver waits on it**
//! (§2.1: "the receiving operation will block forever on the current stripe until some
//! new packets arrive"), holding what the other stripes bring; no timer frees it.
//!
//! **Markers** (Fig. 3; the seed says a marker carries "the current round number"; the
//! rules below are ours, the reading of `ALGORITHMS.md` §7): a marker `m` at the head of
//! the stripe being read in round `r`
//!
//! - `m < r`: the marker that closed one of the stripe's earlier turns (the normal case:
//!   the receiver's counter ended the turn before it reached the marker); consumed;
//! - `m = r`: the sender closed this turn while the receiver still expected bytes (a
//!   packet of the turn was lost); consumed, the turn ends, and the stripe's counter
//!   restarts from zero (the sender's surplus is unknown to the receiver);
//! - `m > r`: the sender is rounds ahead on this stripe (a whole turn was lost): the turn
//!   ends and the stripe is skipped until round `m`, the marker left in place.
//!
//! A loss thus misorders packets only until the marker that ends the turn. The blocking
//! the paper describes happens when a stripe being read has lost a packet and its turn is
//! not over at the sender (no marker yet), and the sender has nothing more to send there
//! because TCP's window waits for the packets the receiver holds: it lasts until TCP times
//! out and its retransmission reaches that stripe (§2.1, §4.2.1).
//!
//! The sender still stamps `Packet::trunk_seq` on the data it stripes: the receiver's
//! algorithm never reads it; it only recognizes trunk packets by it and counts, as a
//! measurement no real receiver makes, the deliveries that came out of order
//! (`trunk_control.misordered`; in `trunk_receivers`, a packet delivered on arrival is
//! `in_order` or, misordered, `late`, one that waited is `queued`).

use super::{control_row, receiver_row, ControlCounts, Spread, Waits};
use crate::hook::{HookCtx, HookVerdict, NodeHook};
use crate::metrics::Table;
use crate::packet::{DropReason, Location, NodeId, Packet, PacketId, TrunkCtl};
use crate::qdisc::{Qdisc, QdiscCtx, Verdict};
use crate::topology::IfaceId;
use std::collections::VecDeque;
use std::sync::Arc;

/// IP TTL of the packets a trunk makes.
const CONTROL_TTL: u8 = 64;

/// The SRR sending half of one trunk direction.
pub struct SrrSender {
    limit: u32,
    peer: NodeId,
    quantum: i64,
    control_bytes: u32,
    /// The member interfaces, in stripe order.
    members: Vec<u32>,
    /// Each stripe's FIFO (data and markers).
    stripes: Vec<VecDeque<PacketId>>,
    /// Data packets in each stripe's FIFO (what `limit` bounds; markers do not count).
    data: Vec<u32>,
    deficit: Vec<i64>,
    /// The stripe whose turn it is, and the round.
    cur: usize,
    round: u64,
    len: usize,
    backlog: u64,
    next_seq: u64,
    created: u64,
    /// Where the simulator files this queue's packets (learned from the first arrival),
    /// for the markers it makes.
    home: Option<Location>,
    counts: Arc<ControlCounts>,
}

impl SrrSender {
    /// A sender towards `peer` over `members` (interface ids, stripe order).
    pub fn new(
        limit: u32,
        peer: NodeId,
        members: Vec<u32>,
        quantum: u32,
        control_bytes: u32,
        counts: Arc<ControlCounts>,
    ) -> Self {
        let n = members.len();
        let mut deficit = vec![0; n];
        deficit[0] = i64::from(quantum);
        SrrSender {
            limit,
            peer,
            quantum: i64::from(quantum),
            control_bytes,
            members,
            stripes: vec![VecDeque::new(); n],
            data: vec![0; n],
            deficit,
            cur: 0,
            round: 0,
            len: 0,
            backlog: 0,
            next_seq: 1,
            created: 0,
            home: None,
            counts,
        }
    }

    fn stripe_of(&self, iface: u32) -> usize {
        self.members
            .iter()
            .position(|&m| m == iface)
            .expect("a trunk's packets leave by one of its members")
    }

    /// Appends data packet `pkt` to stripe `k`, or drops it when the stripe's FIFO holds
    /// `limit` data packets.
    fn push(&mut self, k: usize, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        if self.data[k] >= self.limit {
            ctx.drop_packet(pkt, DropReason::QdiscOverflow);
            return Verdict::Dropped;
        }
        self.data[k] += 1;
        self.append(k, pkt, ctx);
        Verdict::Queued
    }

    fn append(&mut self, k: usize, pkt: PacketId, ctx: &mut QdiscCtx) {
        self.len += 1;
        self.backlog += ctx.len_of(pkt) as u64;
        self.stripes[k].push_back(pkt);
    }

    /// Stripe `k`'s quantum is exhausted: its marker for this round goes behind the data,
    /// and the next stripe's turn begins with a fresh quantum.
    fn end_turn(&mut self, after: PacketId, ctx: &mut QdiscCtx) {
        let k = self.cur;
        self.send_marker(k, after, ctx);
        self.cur = (k + 1) % self.members.len();
        if self.cur == 0 {
            self.round += 1;
        }
        self.deficit[self.cur] += self.quantum;
    }

    /// Queues stripe `k`'s marker of this round. If the stripe's last queued packet is
    /// already a marker (the full FIFO dropped the whole turn's data), that marker is
    /// brought up to this round instead: the receiver acts on two markers in a row as on
    /// the later one alone (it ends the stripe's turns up to that round), and markers
    /// cannot pile up in an overloaded stripe.
    fn send_marker(&mut self, k: usize, after: PacketId, ctx: &mut QdiscCtx) {
        if let Some(&last) = self.stripes[k].back() {
            let last = ctx.packets.get_mut(last);
            if last.trunk_ctl == TrunkCtl::Marker {
                last.trunk_seq = self.round;
                return;
            }
        }
        let p = ctx.packets.get(after);
        let marker = Packet {
            flow: p.flow,
            tuple: p.tuple,
            dst_node: self.peer,
            next_hop: self.peer,
            out_iface: self.members[k],
            ttl: CONTROL_TTL,
            size_bytes: self.control_bytes,
            trunk_seq: self.round,
            trunk_ctl: TrunkCtl::Marker,
            created: ctx.now,
            enqueued: ctx.now,
            ..Packet::default()
        };
        let home = self.home.expect("a packet arrived before the first marker");
        let id = ctx.packets.alloc(marker, home);
        self.created += 1;
        ControlCounts::add(&self.counts.markers_sent);
        self.append(k, id, ctx);
    }
}

impl Qdisc for SrrSender {
    fn kind(&self) -> &'static str {
        "trunk_srr"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        self.home.get_or_insert(ctx.packets.location(pkt));
        let p = ctx.packets.get(pkt);
        if p.next_hop != self.peer || p.trunk_ctl.is_control() {
            let k = self.stripe_of(p.out_iface);
            return self.push(k, pkt, ctx);
        }
        let k = self.cur;
        // The IP length, as the receiver counts it (a trunk is a network-layer device; the
        // device's link header is not the packet's).
        let size = i64::from(ctx.packets.size(pkt));
        let seq = self.next_seq;
        self.next_seq += 1;
        let member = self.members[k];
        let p = ctx.packets.get_mut(pkt);
        p.trunk_seq = seq;
        p.out_iface = member;
        let verdict = self.push(k, pkt, ctx);
        // A packet the full FIFO dropped was charged all the same (and is still readable:
        // the simulator frees it after this call).
        self.deficit[k] -= size;
        if self.deficit[k] <= 0 {
            self.end_turn(pkt, ctx);
        }
        verdict
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let k = self.stripe_of(ctx.member?);
        let pkt = self.stripes[k].pop_front()?;
        self.len -= 1;
        self.backlog -= ctx.len_of(pkt) as u64;
        if ctx.packets.get(pkt).trunk_ctl != TrunkCtl::Marker {
            self.data[k] -= 1;
        }
        Some(pkt)
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let k = self.stripe_of(ctx.member?);
        self.stripes[k].front().copied()
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.len
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog
    }

    fn created(&self) -> u64 {
        self.created
    }
}

/// The SRR receiving half of one trunk direction (a node hook; see the module docs).
pub struct SrrReceiver {
    name: String,
    trunk: String,
    node: String,
    members: Vec<IfaceId>,
    quantum: i64,
    queues: Vec<VecDeque<PacketId>>,
    deficit: Vec<i64>,
    cur: usize,
    round: u64,
    held: u64,
    /// The highest sequence number delivered (to count misordered deliveries only).
    max_seq: u64,
    delivered: u64,
    misordered: u64,
    in_order: u64,
    queued: u64,
    late: u64,
    markers: u64,
    latency: Spread,
    waits: Waits,
    counts: Arc<ControlCounts>,
}

impl SrrReceiver {
    pub fn new(
        trunk: &str,
        node: &str,
        members: Vec<IfaceId>,
        quantum: u32,
        counts: Arc<ControlCounts>,
    ) -> Self {
        let n = members.len();
        let mut deficit = vec![0; n];
        deficit[0] = i64::from(quantum);
        SrrReceiver {
            name: format!("trunk {trunk} SRR receiver on {node}"),
            trunk: trunk.to_string(),
            node: node.to_string(),
            members,
            quantum: i64::from(quantum),
            queues: vec![VecDeque::new(); n],
            deficit,
            cur: 0,
            round: 0,
            held: 0,
            max_seq: 0,
            delivered: 0,
            misordered: 0,
            in_order: 0,
            queued: 0,
            late: 0,
            markers: 0,
            latency: Spread::default(),
            waits: Waits::default(),
            counts,
        }
    }

    /// The stripe being read and the round (for tests).
    pub fn position(&self) -> (usize, u64) {
        (self.cur, self.round)
    }

    fn next_turn(&mut self) {
        self.cur = (self.cur + 1) % self.queues.len();
        if self.cur == 0 {
            self.round += 1;
        }
        self.deficit[self.cur] += self.quantum;
    }

    /// Reads the stripes in the sender's order until the one it names is empty. Returns
    /// whether `arriving` was delivered, and if so out of order.
    fn drain(&mut self, arriving: PacketId, cx: &mut HookCtx<'_>) -> Option<bool> {
        let before = self.delivered;
        let mut arrived = None;
        while let Some(&pkt) = self.queues[self.cur].front() {
            let k = self.cur;
            let p = cx.packets.get(pkt);
            if p.trunk_ctl == TrunkCtl::Marker {
                let m = p.trunk_seq;
                if m > self.round {
                    self.next_turn();
                    continue;
                }
                self.queues[k].pop_front();
                self.held -= 1;
                self.markers += 1;
                cx.consume(pkt);
                if m == self.round {
                    self.deficit[k] = 0;
                    self.next_turn();
                }
                continue;
            }
            let (seq, size, at) = (p.trunk_seq, i64::from(p.size_bytes), p.enqueued);
            self.queues[k].pop_front();
            self.held -= 1;
            self.delivered += 1;
            let misordered = seq < self.max_seq;
            self.misordered += u64::from(misordered);
            self.max_seq = self.max_seq.max(seq);
            if pkt == arriving {
                arrived = Some(misordered);
            }
            self.latency.record((cx.now - at).as_secs_f64());
            cx.release(pkt);
            self.deficit[k] -= size;
            if self.deficit[k] <= 0 {
                self.next_turn();
            }
        }
        self.waits
            .update(self.delivered > before, self.held, cx.now);
        arrived
    }
}

impl NodeHook for SrrReceiver {
    fn name(&self) -> &str {
        &self.name
    }

    fn on_arrival(&mut self, pkt: PacketId, iface: IfaceId, cx: &mut HookCtx<'_>) -> HookVerdict {
        let p = cx.packets.get(pkt);
        let ours = match p.trunk_ctl {
            TrunkCtl::Marker => true,
            TrunkCtl::Data => p.trunk_seq != 0,
            _ => false,
        };
        let Some(k) = self.members.iter().position(|&m| m == iface) else {
            return HookVerdict::Pass;
        };
        if !ours {
            return HookVerdict::Pass;
        }
        let data = p.trunk_ctl == TrunkCtl::Data;
        self.queues[k].push_back(pkt);
        self.held += 1;
        match self.drain(pkt, cx) {
            _ if !data => {}
            None => self.queued += 1,
            Some(true) => self.late += 1,
            Some(false) => self.in_order += 1,
        }
        HookVerdict::Hold
    }

    fn held(&self) -> u64 {
        self.held
    }

    fn report(&self, out: &mut Vec<(String, Table)>) {
        receiver_row(
            out,
            (&self.trunk, &self.node),
            [self.in_order, self.queued, self.late, 0, 0, self.held],
            f64::NAN,
            &self.latency,
        );
        control_row(
            out,
            (&self.trunk, &self.node, "srr"),
            &self.counts,
            (self.markers, self.misordered),
            &self.waits,
        );
    }
}

#[cfg(test)]
mod tests {
    //! SRR's sender and receiver against hand-worked sequences (seed 004 Figs. 1–3; the
    //! deficit arithmetic of Adiseshu et al.'s SRR, DRR's surplus carried over).
    use super::*;
    use crate::engine::{EventQueue, SimTime, Timers};
    use crate::event::Event;
    use crate::hook::HookEffect;
    use crate::packet::{FlowId, PacketArena};
    use crate::qdisc::testing::Harness;

    const PEER: NodeId = NodeId(9);
    const SIZE: u32 = 1488;

    /// What each stripe holds, as "d<seq>" for data and "m<round>" for markers.
    fn contents(q: &SrrSender, h: &Harness) -> Vec<Vec<String>> {
        q.stripes
            .iter()
            .map(|s| {
                s.iter()
                    .map(|&p| {
                        let p = h.packets.get(p);
                        match p.trunk_ctl {
                            TrunkCtl::Marker => format!("m{}", p.trunk_seq),
                            _ => format!("d{}", p.trunk_seq),
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// Quantum 3 000 B, 1 488-B packets: a stripe's first turn takes three packets
    /// (3 000 → 1 512 → 24 → −1 464) and then its marker; the next turn starts from
    /// −1 464 + 3 000 = 1 536 and takes two (48, −1 440); the surplus carries over.
    #[test]
    fn sender_deficits_carry_the_surplus_and_markers_end_each_turn() {
        let mut h = Harness::new();
        let counts = Arc::new(ControlCounts::default());
        let mut q = SrrSender::new(50, PEER, vec![3, 5, 7], 3000, 40, counts.clone());
        for _ in 0..15 {
            let p = h.packet_with(0, SIZE, |p| {
                p.out_iface = 3;
                p.next_hop = PEER;
            });
            assert_eq!(h.enqueue(&mut q, p), Verdict::Queued);
        }
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            contents(&q, &h),
            vec![
                s(&["d1", "d2", "d3", "m0", "d10", "d11", "m1"]),
                s(&["d4", "d5", "d6", "m0", "d12", "d13", "m1"]),
                s(&["d7", "d8", "d9", "m0", "d14", "d15", "m1"]),
            ]
        );
        assert_eq!(q.created(), 6);
        assert_eq!(ControlCounts::get(&counts.markers_sent), 6);
        assert_eq!(q.len(), 21);
        // Each member takes only its own stripe, markers included (40 B, addressed to the
        // peer, out of that member).
        let got: Vec<PacketId> = (0..4).map(|_| h.dequeue_for(&mut q, 5).unwrap()).collect();
        let m = h.packets.get(got[3]);
        assert_eq!(
            (m.trunk_ctl, m.size_bytes, m.out_iface),
            (TrunkCtl::Marker, 40, 5)
        );
        assert_eq!(m.dst_node, PEER);
        assert_eq!(h.packets.get(got[0]).trunk_seq, 4);
    }

    /// A full stripe FIFO drops the packet the algorithm gave it, which is still charged.
    #[test]
    fn a_full_stripe_drops_but_charges() {
        let mut h = Harness::new();
        let mut q = SrrSender::new(1, PEER, vec![3, 5], 3000, 40, Default::default());
        let mut verdicts = Vec::new();
        for _ in 0..3 {
            let p = h.packet_with(0, SIZE, |p| {
                p.out_iface = 3;
                p.next_hop = PEER;
            });
            verdicts.push(h.enqueue(&mut q, p));
        }
        assert_eq!(
            verdicts,
            vec![Verdict::Queued, Verdict::Dropped, Verdict::Dropped]
        );
        // The third packet still ended stripe 0's turn: its marker is queued (always sent).
        let s0 = contents(&q, &h)[0].clone();
        assert_eq!(s0, vec!["d1".to_string(), "m0".to_string()]);
        assert_eq!((q.cur, q.created(), h.drops.pending.len()), (1, 1, 2));
        // Stripe 1's turn (d4 queued, d5 and d6 dropped, its m0), then stripe 0's round 1
        // (d7, d8) dropped whole: its marker is brought up to round 1, not queued twice.
        for _ in 0..5 {
            let p = h.packet_with(0, SIZE, |p| {
                p.out_iface = 3;
                p.next_hop = PEER;
            });
            h.enqueue(&mut q, p);
        }
        assert_eq!(q.cur, 1);
        assert_eq!(
            contents(&q, &h)[0],
            vec!["d1".to_string(), "m1".to_string()]
        );
        assert_eq!(
            contents(&q, &h)[1],
            vec!["d4".to_string(), "m0".to_string()]
        );
        assert_eq!(q.created(), 2);
    }

    struct Rig {
        r: SrrReceiver,
        packets: PacketArena,
        events: EventQueue<Event>,
        timers: Timers,
        out: Vec<HookEffect>,
    }

    impl Rig {
        fn new() -> Rig {
            let members = vec![IfaceId(3), IfaceId(5), IfaceId(7)];
            Rig {
                r: SrrReceiver::new("t", "n1", members, 3000, Default::default()),
                packets: PacketArena::new(),
                events: EventQueue::new(),
                timers: Timers::new(),
                out: Vec::new(),
            }
        }

        /// Data packet `seq` (or, `marker`, a marker of round `seq`) arrives on stripe
        /// `k`; returns what the receiver delivered (data sequence numbers, in order).
        fn arrive(&mut self, k: usize, seq: u64, marker: bool) -> Vec<u64> {
            let mut p = Packet::udp(FlowId(0), if marker { 40 } else { SIZE }, SimTime::ZERO);
            p.trunk_seq = seq;
            p.trunk_ctl = if marker {
                TrunkCtl::Marker
            } else {
                TrunkCtl::Data
            };
            let id = self.packets.alloc(p, Location::Node(0));
            let iface = [IfaceId(3), IfaceId(5), IfaceId(7)][k];
            let mut cx = HookCtx {
                now: SimTime::ZERO,
                hook: 0,
                packets: &mut self.packets,
                events: &mut self.events,
                timers: &mut self.timers,
                out: &mut self.out,
            };
            assert_eq!(self.r.on_arrival(id, iface, &mut cx), HookVerdict::Hold);
            std::mem::take(&mut self.out)
                .into_iter()
                .filter_map(|e| match e {
                    HookEffect::Release(p) => Some(self.packets.get(p).trunk_seq),
                    HookEffect::Consume(_) => None,
                    e => panic!("unexpected {e:?}"),
                })
                .collect()
        }
    }

    /// The sender's first round (stripes 0, 1, 2 with d1–d3, d4–d6, d7–d9 and their
    /// markers) arriving in any stripe order is delivered in the original order: logical
    /// reception restores FIFO without reading sequence numbers (Fig. 2).
    #[test]
    fn logical_reception_restores_the_senders_order() {
        let mut g = Rig::new();
        let mut got = Vec::new();
        got.extend(g.arrive(2, 7, false));
        got.extend(g.arrive(1, 4, false));
        assert!(got.is_empty(), "waits on stripe 0");
        assert_eq!(g.r.held(), 2);
        got.extend(g.arrive(0, 1, false));
        got.extend(g.arrive(0, 2, false));
        got.extend(g.arrive(1, 5, false));
        got.extend(g.arrive(0, 3, false));
        got.extend(g.arrive(2, 8, false));
        got.extend(g.arrive(1, 6, false));
        got.extend(g.arrive(2, 9, false));
        assert_eq!(got, (1..=9).collect::<Vec<u64>>());
        for k in 0..3 {
            g.arrive(k, 0, true);
        }
        assert_eq!(g.r.position(), (0, 1));
        // Round 1 (from −1 464 + 3 000): two packets per stripe.
        assert_eq!(g.arrive(0, 10, false), vec![10]);
        assert_eq!(g.arrive(0, 11, false), vec![11]);
        assert_eq!(g.r.position(), (1, 1));
        assert_eq!(g.r.misordered, 0);
        // Stripe 2's m0 waits for stripe 2's turn.
        assert_eq!(g.r.held(), 1);
    }

    /// Fig. 3: d2 is lost on stripe 0; the receiver takes d3 in its place and waits for
    /// more of stripe 0 (blocked, holding stripe 1's d4); the marker m0 that ends the
    /// sender's turn ends the receiver's too, and stripe 1 follows, in order. The
    /// receiver restarts stripe 0's counter from zero, so in round 1 it expects a full
    /// quantum where the sender (with its −1 464 surplus) sends two packets: the sender's
    /// marker m1 ends that turn.
    #[test]
    fn a_marker_of_this_round_ends_the_turn_after_a_loss() {
        let mut g = Rig::new();
        assert_eq!(g.arrive(0, 1, false), vec![1]);
        assert_eq!(g.arrive(1, 4, false), Vec::<u64>::new());
        assert_eq!(g.arrive(0, 3, false), vec![3]);
        assert_eq!(g.r.position(), (0, 0), "still expects bytes of stripe 0");
        assert_eq!(g.arrive(0, 0, true), vec![4]);
        assert_eq!(g.r.position(), (1, 0));
        for (k, seq) in [(1, 5), (1, 6), (2, 7), (2, 8), (2, 9)] {
            assert_eq!(g.arrive(k, seq, false), vec![seq]);
        }
        assert_eq!(g.r.position(), (0, 1));
        assert_eq!(g.arrive(1, 0, true), Vec::<u64>::new());
        assert_eq!(g.arrive(0, 10, false), vec![10]);
        assert_eq!(g.arrive(0, 11, false), vec![11]);
        assert_eq!(g.arrive(1, 12, false), Vec::<u64>::new());
        assert_eq!(
            g.r.position(),
            (0, 1),
            "waits for the rest of stripe 0's turn"
        );
        assert_eq!(g.arrive(0, 1, true), vec![12]);
        assert_eq!(g.r.misordered, 0);
        assert_eq!(g.r.markers, 3);
    }

    /// A marker of a later round than the receiver's (stripe 0's turns of rounds 0 and 1
    /// both lost, with their markers but the last) ends the turn and leaves the stripe
    /// skipped until that round; there the marker is consumed and the turn ends again.
    #[test]
    fn a_marker_of_a_later_round_skips_the_stripe() {
        let mut g = Rig::new();
        assert_eq!(g.arrive(0, 1, true), Vec::<u64>::new());
        assert_eq!(g.r.position(), (1, 0));
        assert_eq!(g.r.held(), 1, "the marker stays until round 1");
        for (k, seq) in [(1, 4), (1, 5), (1, 6), (2, 7), (2, 8), (2, 9)] {
            assert_eq!(g.arrive(k, seq, false), vec![seq]);
        }
        // Round 1: stripe 0's marker says its turn is over; stripe 1 follows.
        assert_eq!(g.r.position(), (1, 1));
        assert_eq!(g.r.held(), 0);
        assert_eq!(g.r.markers, 1);
    }
}
