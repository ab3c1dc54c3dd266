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
//! refusing an already-striped packet: for the receiver it is a loss on that stripe.
//! Markers do not count against `limit` (a slot per stripe turn, at most one per two full
//! data packets). A packet routed out of a member for another node than the peer waits in
//! its member's FIFO without taking part.
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
//! measurement no real receiver makes, the deliveries that came out of order (`late`).

use super::{control_row, receiver_row, ControlCounts, Spread, Waits};
use crate::engine::SimTime;
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
    /// Data packets in each stripe's FIFO (what `limit` bounds).
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

    /// Appends `pkt` to stripe `k`, or drops it when the stripe's FIFO is full.
    fn push(&mut self, k: usize, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        if self.data[k] >= self.limit {
            ctx.drop_packet(pkt, DropReason::QdiscOverflow);
            return Verdict::Dropped;
        }
        self.data[k] += 1;
        self.len += 1;
        self.backlog += ctx.len_of(pkt) as u64;
        self.stripes[k].push_back(pkt);
        Verdict::Queued
    }

    /// Stripe `k`'s quantum is exhausted: its marker for this round goes behind the data,
    /// and the next stripe's turn begins with a fresh quantum.
    fn end_turn(&mut self, after: PacketId, ctx: &mut QdiscCtx) {
        let k = self.cur;
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
        self.len += 1;
        self.backlog += ctx.len_of(id) as u64;
        self.stripes[k].push_back(id);
        self.cur = (k + 1) % self.members.len();
        if self.cur == 0 {
            self.round += 1;
        }
        self.deficit[self.cur] += self.quantum;
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
        let size = i64::from(ctx.len_of(pkt));
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
        if !ctx.packets.get(pkt).trunk_ctl.is_control() {
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
    /// The highest sequence number delivered (for the `late` count only).
    max_seq: u64,
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

    /// Reads the stripes in the sender's order until the one it names is empty.
    fn drain(&mut self, cx: &mut HookCtx<'_>) {
        let before = self.in_order + self.late;
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
            if seq < self.max_seq {
                self.late += 1;
            } else {
                self.in_order += 1;
                self.max_seq = seq;
            }
            self.latency.record((cx.now - at).as_secs_f64());
            cx.release(pkt);
            self.deficit[k] -= size;
            if self.deficit[k] <= 0 {
                self.next_turn();
            }
        }
        let delivered = self.in_order + self.late > before;
        self.waits.update(delivered, self.held, cx.now);
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
        self.queues[k].push_back(pkt);
        self.held += 1;
        self.drain(cx);
        let data = !cx.packets.get(pkt).trunk_ctl.is_control();
        if data && self.queues[k].back() == Some(&pkt) {
            self.queued += 1;
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
            self.markers,
            &self.waits,
        );
    }
}
