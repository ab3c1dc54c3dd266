//! `sfq`: Stochastic Fairness Queueing (McKenney 1990) as Linux ≥ 3.3 implements it
//! (`net/sched/sch_sfq.c`).
//!
//! Packets are hashed by 5-tuple into `divisor` buckets; each bucket in use owns one of
//! `flows` slots (a FIFO of at most `depth` packets). Active slots form a ring served by
//! deficit round robin: a slot sends while its allotment is positive and gets `quantum`
//! more when its turn comes with none left (allotments count 8-byte units, as Linux's
//! `SFQ_ALLOT_SIZE`). A newly active slot joins at the end of the round. When more than
//! `limit` packets are queued, the longest slot loses one (its tail, or its head with
//! `headdrop`); ties go to the slot that reached that length last, as Linux's depth lists
//! order them. Every `perturb` the hash is rekeyed from the qdisc's random stream and the
//! queued packets are rehashed (in slot order, without reordering within a flow; packets
//! that no longer fit are dropped), as `sfq_rehash` does.
//!
//! The per-flow RED option and external filters of Linux SFQ are not modelled; the hash is
//! [`flow_hash`] (Linux: siphash over the flow-dissector keys). All drops have the reason
//! `qdisc_overflow` (a depth drop is Linux's per-flow limit).
//!
//! **On a virtual device** (several member interfaces behind one qdisc, seed 000 §2.4's
//! SFQ on imq0; see `qdisc`) a member asking for a packet walks the ring from its front to
//! the first slot holding a packet for it and applies the round-robin rule to that slot
//! (send while the allotment is positive, else go to the end of the ring with one more
//! quantum). Slots with nothing for the asker keep their places and allotments. Routing is
//! per destination, so a flow's packets all leave by one interface: the slots of one member
//! keep their relative order except for that member's own turns, and each member sees
//! SFQ's round robin over its own flows, exactly as if its packets were SFQ's whole input.
//! The buffer stays one: `limit`, `depth`, the longest-slot drop and the perturbation are
//! shared. Flows of two members that collide in one bucket share one slot (one FIFO):
//! each member takes its own oldest packet from it, and they share its allotment, as
//! colliding flows share a slot in Linux.

use super::classify::flow_hash;
use super::peek_stash::PeekStash;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::{Duration, ScenarioError};
use crate::engine::{SimRng, SimTime};
use crate::packet::{DropReason, PacketId};
use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Parameters of `sfq` (`tc qdisc add … sfq [limit N] [perturb SECS] [quantum B]
/// [divisor N] [flows N] [depth N] [headdrop]`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SfqConf {
    /// Maximum queued packets over all flows (at least 2). Default: 127. When given, Linux
    /// also lowers `flows` to at most `limit` and `limit` to at most depth × flows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 2))]
    pub limit: Option<u32>,
    /// Number of flow slots that can be active at once (at most `divisor`). Default: 128.
    #[serde(default = "default_flows")]
    #[schemars(range(min = 1, max = 65408))]
    pub flows: u32,
    /// Hash buckets, a power of two up to 65536. Default: 1024.
    #[serde(default = "default_divisor")]
    pub divisor: u32,
    /// Maximum packets per flow (at most 127). Default: 127.
    #[serde(default = "default_depth")]
    #[schemars(range(min = 1, max = 127))]
    pub depth: u32,
    /// Bytes a flow may send per round. Default: the device's psched_mtu (MTU plus link
    /// overhead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 262136))]
    pub quantum: Option<u32>,
    /// Rehash period (a new hash key; queued packets are rehashed). "0s" (default) never
    /// rehashes; Linux advises about 60s when used.
    #[serde(default)]
    pub perturb: Duration,
    /// Drop from the head instead of the tail of a full flow (tc `headdrop`). Default: false.
    #[serde(default)]
    pub headdrop: bool,
}

/// Linux `SFQ_MAX_DEPTH`.
const MAX_DEPTH: u32 = 127;
/// Linux `SFQ_MAX_FLOWS` (65536 − 127 − 1).
const MAX_FLOWS: u32 = 65408;
/// Linux `SFQ_ALLOT_SHIFT`: allotments count 8-byte units.
const ALLOT_SHIFT: u32 = 3;
/// No slot (Linux `SFQ_EMPTY_SLOT`).
const EMPTY: u32 = u32::MAX;

fn default_flows() -> u32 {
    128
}
fn default_divisor() -> u32 {
    1024
}
fn default_depth() -> u32 {
    MAX_DEPTH
}

impl Default for SfqConf {
    fn default() -> Self {
        SfqConf {
            limit: None,
            flows: default_flows(),
            divisor: default_divisor(),
            depth: default_depth(),
            quantum: None,
            perturb: Duration(SimTime::ZERO),
            headdrop: false,
        }
    }
}

/// Linux `SFQ_ALLOT_SIZE`: bytes in 8-byte units, rounded up.
#[inline]
fn allot_size(bytes: u32) -> i32 {
    bytes.div_ceil(1 << ALLOT_SHIFT) as i32
}

struct Slot {
    queue: VecDeque<PacketId>,
    backlog: u32,
    allot: i32,
    /// The bucket this slot serves.
    hash: u32,
    /// On a virtual device: the interface (`out_iface`) of the packet that opened the
    /// slot, and how many queued packets leave by another one (flows of two members
    /// colliding in a bucket). With `others == 0` every packet is for `iface`.
    iface: u32,
    others: u32,
}

pub struct Sfq {
    slots: Vec<Slot>,
    /// Bucket → slot, or EMPTY.
    ht: Vec<u32>,
    /// Depth lists (Linux `dep`): doubly linked, slot i at index i, the anchor of the list
    /// of slots holding d packets at index `slots.len() + d`.
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Length of the longest slot.
    cur_depth: u32,
    /// The ring of active slots: front = `tail->next` (served next), back = `tail`.
    ring: VecDeque<u32>,
    qlen: usize,
    backlog: u64,
    limit: u32,
    maxdepth: u32,
    divisor_mask: u32,
    scaled_quantum: i32,
    headdrop: bool,
    perturbation: u64,
    perturb_period: SimTime,
    next_perturb: SimTime,
    rng: SimRng,
    stash: PeekStash,
    /// Whether members of a virtual device ask (from their first request on, the slots
    /// track their packets' interfaces).
    tracking: bool,
}

impl Sfq {
    /// Checks the parameters as Linux's `sfq_change` does, then builds.
    pub fn from_conf(c: &SfqConf, b: &BuildCtx, errs: &mut ScenarioError) -> Option<Sfq> {
        let before = errs.problems.len();
        let p = &b.path;
        if !c.divisor.is_power_of_two() || c.divisor > 65536 {
            errs.push(
                format!("{p}.divisor"),
                format!(
                    "{} must be a power of two up to 65536, e.g. 1024",
                    c.divisor
                ),
            );
        }
        if c.flows == 0 || c.flows > MAX_FLOWS {
            errs.push(format!("{p}.flows"), format!("must be 1–{MAX_FLOWS}"));
        }
        if c.depth == 0 || c.depth > MAX_DEPTH {
            errs.push(
                format!("{p}.depth"),
                format!("must be 1–{MAX_DEPTH} (Linux's SFQ_MAX_DEPTH)"),
            );
        }
        if c.limit.is_some_and(|l| l < 2) {
            errs.push(format!("{p}.limit"), "must be at least 2 (Linux rejects 1)");
        }
        let quantum = c.quantum.unwrap_or(b.dev.psched_mtu);
        if quantum == 0 || allot_size(quantum) > i16::MAX as i32 {
            errs.push(
                format!("{p}.quantum"),
                "must be 1–262136 bytes (Linux keeps it in 16 bits of 8-byte units)",
            );
        }
        if errs.problems.len() > before {
            return None;
        }
        Some(Sfq::new(c, quantum, b.rng("perturb")))
    }

    /// An SFQ with `quantum` bytes per round; `rng` draws the hash keys.
    pub fn new(c: &SfqConf, quantum: u32, mut rng: SimRng) -> Sfq {
        // Linux sfq_change: flows ≤ divisor; limit ≤ depth × flows; flows ≤ limit.
        let mut maxflows = c.flows.min(MAX_FLOWS).min(c.divisor);
        let maxdepth = c.depth.min(MAX_DEPTH);
        let mut limit = MAX_DEPTH;
        if let Some(l) = c.limit {
            limit = l.min(maxdepth * maxflows);
            maxflows = maxflows.min(limit);
        }
        let n = maxflows as usize;
        let anchors = maxdepth as usize + 1;
        let mut q = Sfq {
            slots: (0..n)
                .map(|_| Slot {
                    queue: VecDeque::new(),
                    backlog: 0,
                    allot: 0,
                    hash: 0,
                    iface: 0,
                    others: 0,
                })
                .collect(),
            ht: vec![EMPTY; c.divisor as usize],
            next: (0..(n + anchors) as u32).collect(),
            prev: (0..(n + anchors) as u32).collect(),
            cur_depth: 0,
            ring: VecDeque::with_capacity(n),
            qlen: 0,
            backlog: 0,
            limit,
            maxdepth,
            divisor_mask: c.divisor - 1,
            scaled_quantum: allot_size(quantum),
            headdrop: c.headdrop,
            perturbation: rng.random(),
            perturb_period: c.perturb.time(),
            next_perturb: if c.perturb.time() > SimTime::ZERO {
                c.perturb.time()
            } else {
                SimTime::MAX
            },
            rng,
            stash: PeekStash::default(),
            tracking: false,
        };
        // Linux sfq_init: every slot starts on the depth-0 (free) list.
        for x in 0..maxflows {
            q.link(x);
        }
        q
    }

    #[inline]
    fn anchor(&self, depth: u32) -> u32 {
        self.slots.len() as u32 + depth
    }

    #[inline]
    fn qlen_of(&self, x: u32) -> u32 {
        self.slots[x as usize].queue.len() as u32
    }

    /// Linux `sfq_link`: puts slot x at the head of the list of its depth.
    fn link(&mut self, x: u32) {
        let a = self.anchor(self.qlen_of(x));
        let n = self.next[a as usize];
        self.next[x as usize] = n;
        self.prev[x as usize] = a;
        self.next[a as usize] = x;
        self.prev[n as usize] = x;
    }

    #[inline]
    fn unlink(&mut self, x: u32) -> (u32, u32) {
        let (n, p) = (self.next[x as usize], self.prev[x as usize]);
        self.next[p as usize] = n;
        self.prev[n as usize] = p;
        (n, p)
    }

    /// Linux `sfq_inc`, after a packet was added to slot x.
    fn inc(&mut self, x: u32) {
        self.unlink(x);
        let d = self.qlen_of(x);
        self.cur_depth = self.cur_depth.max(d);
        self.link(x);
    }

    /// Linux `sfq_dec`, after a packet was removed from slot x (its old length + 1 is gone).
    fn dec(&mut self, x: u32) {
        let (n, p) = self.unlink(x);
        if n == p && self.cur_depth == self.qlen_of(x) + 1 {
            self.cur_depth -= 1;
        }
        self.link(x);
    }

    #[inline]
    fn bucket(&self, pkt: PacketId, ctx: &QdiscCtx) -> u32 {
        flow_hash(&ctx.packets.get(pkt).tuple, self.perturbation) & self.divisor_mask
    }

    /// The first free slot (Linux `q->dep[0].next`), if any.
    #[inline]
    fn free_slot(&self) -> Option<u32> {
        let x = self.next[self.anchor(0) as usize];
        ((x as usize) < self.slots.len()).then_some(x)
    }

    /// Adds `pkt` to slot x, making the slot active (end of the round) if it was empty.
    fn add_to_slot(&mut self, x: u32, pkt: PacketId, ctx: &QdiscCtx) {
        let len = ctx.len_of(pkt);
        let s = &mut self.slots[x as usize];
        if self.tracking {
            let out = ctx.packets.get(pkt).out_iface;
            if s.queue.is_empty() {
                s.iface = out;
            } else if out != s.iface {
                s.others += 1;
            }
        }
        s.queue.push_back(pkt);
        s.backlog += len;
        self.backlog += len as u64;
        self.qlen += 1;
        self.inc(x);
        if self.qlen_of(x) == 1 {
            self.ring.push_back(x);
            self.slots[x as usize].allot = self.scaled_quantum;
        }
    }

    /// Removes the head (or tail) packet of slot x and updates the counters.
    fn take_from_slot(&mut self, x: u32, head: bool, ctx: &QdiscCtx) -> PacketId {
        let at = if head {
            0
        } else {
            self.slots[x as usize].queue.len() - 1
        };
        self.take_at(x, at, ctx)
    }

    /// Removes the packet at position `at` of slot x and updates the counters.
    fn take_at(&mut self, x: u32, at: usize, ctx: &QdiscCtx) -> PacketId {
        let s = &mut self.slots[x as usize];
        let p = match at {
            0 => s.queue.pop_front(),
            _ => s.queue.remove(at),
        }
        .expect("slot holds a packet");
        let len = ctx.len_of(p);
        if self.tracking && ctx.packets.get(p).out_iface != s.iface {
            s.others -= 1;
        }
        s.backlog -= len;
        self.backlog -= len as u64;
        self.qlen -= 1;
        self.dec(x);
        p
    }

    /// Linux `sfq_drop`: the queue is over its limit; the longest slot loses a packet.
    fn drop_one(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let d = self.cur_depth;
        let x = if d > 1 {
            self.next[self.anchor(d) as usize]
        } else if d == 1 {
            // Every slot holds one packet: the next one to be served loses it.
            let x = self.ring.pop_front()?;
            self.ht[self.slots[x as usize].hash as usize] = EMPTY;
            x
        } else {
            return None;
        };
        let p = self.take_from_slot(x, self.headdrop, ctx);
        ctx.drop_packet(p, DropReason::QdiscOverflow);
        Some(p)
    }

    /// Runs the perturbation timers due by `now` (Linux `sfq_perturbation`).
    fn perturb_due(&mut self, ctx: &mut QdiscCtx) {
        while ctx.now >= self.next_perturb {
            self.perturbation = self.rng.random();
            if !self.ring.is_empty() {
                self.rehash(ctx);
            }
            self.next_perturb += self.perturb_period;
        }
    }

    /// Linux `sfq_rehash`: empties every slot in index order and re-inserts the packets
    /// under the new hash; packets that find no slot or a full one are dropped.
    fn rehash(&mut self, ctx: &mut QdiscCtx) {
        let mut all = Vec::with_capacity(self.qlen);
        for x in 0..self.slots.len() as u32 {
            while self.qlen_of(x) > 0 {
                all.push(self.take_from_slot(x, true, ctx));
            }
            let h = self.slots[x as usize].hash;
            self.ht[h as usize] = EMPTY;
        }
        self.ring.clear();
        for p in all {
            let h = self.bucket(p, ctx);
            let mut x = self.ht[h as usize];
            if x == EMPTY {
                match self.free_slot() {
                    Some(f) => {
                        x = f;
                        self.ht[h as usize] = x;
                        self.slots[x as usize].hash = h;
                    }
                    None => {
                        ctx.drop_packet(p, DropReason::QdiscOverflow);
                        continue;
                    }
                }
            }
            if self.qlen_of(x) >= self.maxdepth {
                ctx.drop_packet(p, DropReason::QdiscOverflow);
                continue;
            }
            self.add_to_slot(x, p, ctx);
        }
    }

    fn dequeue_inner(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        loop {
            let a = *self.ring.front()?;
            if self.slots[a as usize].allot <= 0 {
                // End of this slot's turn: it becomes the tail with a new quantum.
                self.ring.pop_front();
                self.ring.push_back(a);
                self.slots[a as usize].allot += self.scaled_quantum;
                continue;
            }
            let p = self.take_from_slot(a, true, ctx);
            if self.qlen_of(a) == 0 {
                self.ht[self.slots[a as usize].hash as usize] = EMPTY;
                self.ring.pop_front();
            } else {
                self.slots[a as usize].allot -= allot_size(ctx.len_of(p));
            }
            return Some(p);
        }
    }

    /// Position in slot x of the oldest packet for member `m` (with no colliding flow of
    /// another member in the slot: the head, or none).
    #[inline]
    fn position_for(&self, x: u32, m: u32, ctx: &QdiscCtx) -> Option<usize> {
        let s = &self.slots[x as usize];
        if s.others == 0 {
            return (s.iface == m && !s.queue.is_empty()).then_some(0);
        }
        s.queue
            .iter()
            .position(|&p| ctx.packets.get(p).out_iface == m)
    }

    /// The DRR decision for member `m` of a virtual device: the ring is walked from its
    /// front to the first slot holding a packet for `m`, and the rule of
    /// [`Self::dequeue_inner`] is applied to that slot; slots with nothing for `m` keep
    /// their places and allotments (see the module documentation).
    #[inline(never)]
    fn dequeue_for_member(&mut self, m: u32, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if !self.tracking {
            // The first request of a member: the slots learn their packets' interfaces.
            self.tracking = true;
            for s in &mut self.slots {
                let out = |p: PacketId| ctx.packets.get(p).out_iface;
                s.iface = s.queue.front().map_or(0, |&p| out(p));
                s.others = s.queue.iter().filter(|&&p| out(p) != s.iface).count() as u32;
            }
        }
        let mut pos = 0;
        while pos < self.ring.len() {
            let a = self.ring[pos];
            let Some(at) = self.position_for(a, m, ctx) else {
                pos += 1;
                continue;
            };
            if self.slots[a as usize].allot <= 0 {
                // End of this slot's turn: it goes behind every other slot (so behind all
                // of this member's) with a new quantum.
                self.ring.remove(pos);
                self.ring.push_back(a);
                self.slots[a as usize].allot += self.scaled_quantum;
                continue;
            }
            let p = self.take_at(a, at, ctx);
            if self.qlen_of(a) == 0 {
                self.ht[self.slots[a as usize].hash as usize] = EMPTY;
                self.ring.remove(pos);
            } else {
                self.slots[a as usize].allot -= allot_size(ctx.len_of(p));
            }
            return Some(p);
        }
        None
    }
}

impl Qdisc for Sfq {
    fn kind(&self) -> &'static str {
        "sfq"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        self.perturb_due(ctx);
        let h = self.bucket(pkt, ctx);
        let mut x = self.ht[h as usize];
        if x == EMPTY {
            let Some(free) = self.free_slot() else {
                ctx.drop_packet(pkt, DropReason::QdiscOverflow);
                return Verdict::Dropped;
            };
            x = free;
            self.ht[h as usize] = x;
            self.slots[x as usize].hash = h;
        } else if self.qlen_of(x) >= self.maxdepth {
            if !self.headdrop {
                ctx.drop_packet(pkt, DropReason::QdiscOverflow);
                return Verdict::Dropped;
            }
            // Headdrop: the oldest packet of the flow makes room.
            let old = self.take_from_slot(x, true, ctx);
            ctx.drop_packet(old, DropReason::QdiscOverflow);
            self.add_to_slot(x, pkt, ctx);
            return Verdict::Congested;
        }
        self.add_to_slot(x, pkt, ctx);
        if self.len() <= self.limit as usize {
            return Verdict::Queued;
        }
        match self.drop_one(ctx) {
            Some(d) if d == pkt => Verdict::Dropped,
            _ => Verdict::Congested,
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.stash.take(ctx.member) {
            return Some(p);
        }
        self.perturb_due(ctx);
        match ctx.member {
            None => self.dequeue_inner(ctx),
            Some(m) => self.dequeue_for_member(m, ctx),
        }
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        // Linux sfq peeks with `qdisc_peek_dequeued` (here: per asking member).
        if let Some(p) = self.stash.peeked(ctx.member) {
            return Some(p);
        }
        let p = self.dequeue(ctx);
        self.stash.keep(ctx.member, p, |p| ctx.len_of(p))
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.qlen + self.stash.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog + self.stash.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;
    use crate::packet::{FiveTuple, Protocol};
    use crate::qdisc::testing::Harness;

    fn sfq(conf: &SfqConf) -> Sfq {
        Sfq::new(conf, 1514, stream(1, "test:sfq"))
    }

    fn pkt(h: &mut Harness, port: u16, size: u32) -> PacketId {
        let p = h.packet(port as u32, size);
        h.packets.get_mut(p).tuple = FiveTuple {
            src_addr: 1,
            dst_addr: 2,
            src_port: port,
            dst_port: 80,
            protocol: Protocol::Tcp,
        };
        p
    }

    /// `n` ports that land in distinct buckets of `q`.
    fn distinct_ports(q: &Sfq, h: &mut Harness, n: usize) -> Vec<u16> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        let mut port = 1000;
        while out.len() < n {
            let p = pkt(h, port, 100);
            let ctx = QdiscCtx::new(h.now, &mut h.packets, &h.dev, &mut h.drops);
            if seen.insert(q.bucket(p, &ctx)) {
                out.push(port);
            }
            h.packets.free(p);
            port += 1;
        }
        out
    }

    #[test]
    fn defaults_are_linux_defaults() {
        // sch_sfq.c: limit 127 (SFQ_MAX_DEPTH), 128 flows, divisor 1024, depth 127.
        let q = sfq(&SfqConf::default());
        assert_eq!(q.limit, 127);
        assert_eq!(q.slots.len(), 128);
        assert_eq!(q.ht.len(), 1024);
        assert_eq!(q.maxdepth, 127);
        assert_eq!(q.scaled_quantum, 190); // ⌈1514 / 8⌉
    }

    #[test]
    fn given_limit_lowers_flows_as_linux_does() {
        let q = sfq(&SfqConf {
            limit: Some(10),
            ..SfqConf::default()
        });
        assert_eq!((q.limit, q.slots.len()), (10, 10));
        let q = sfq(&SfqConf {
            limit: Some(100_000),
            flows: 4,
            depth: 5,
            ..SfqConf::default()
        });
        assert_eq!((q.limit, q.slots.len()), (20, 4));
    }

    #[test]
    fn round_robin_serves_one_quantum_per_flow_per_round() {
        // Two backlogged flows of 1500 B packets, quantum 1514 (190 units, a packet costs
        // 188): a new slot's first turn sends 2 packets (190 → 2 → −186); the overdraft
        // carries over, so later turns start at −186 + 190 = 4 and send one packet each.
        let mut h = Harness::new();
        let mut q = sfq(&SfqConf::default());
        let ports = distinct_ports(&q, &mut h, 2);
        for _ in 0..10 {
            for &port in &ports {
                let p = pkt(&mut h, port, 1500);
                h.enqueue(&mut q, p);
            }
        }
        let order: Vec<u16> = (0..8)
            .map(|_| {
                let p = h.dequeue(&mut q).unwrap();
                h.packets.get(p).tuple.src_port
            })
            .collect();
        let (a, b) = (ports[0], ports[1]);
        assert_eq!(order, [a, a, b, b, a, b, a, b]);
    }

    #[test]
    fn overflow_drops_the_tail_of_the_longest_flow() {
        let mut h = Harness::new();
        let mut q = sfq(&SfqConf {
            limit: Some(5),
            ..SfqConf::default()
        });
        let ports = distinct_ports(&q, &mut h, 2);
        let long: Vec<_> = (0..4).map(|_| pkt(&mut h, ports[0], 100)).collect();
        for &p in &long {
            assert_eq!(h.enqueue(&mut q, p), Verdict::Queued);
        }
        let s = pkt(&mut h, ports[1], 100);
        assert_eq!(h.enqueue(&mut q, s), Verdict::Queued);
        let s2 = pkt(&mut h, ports[1], 100);
        assert_eq!(h.enqueue(&mut q, s2), Verdict::Congested);
        assert_eq!(h.dropped(), vec![(long[3], DropReason::QdiscOverflow)]);
        // An arrival to the longest flow is itself the victim.
        let l5 = pkt(&mut h, ports[0], 100);
        assert_eq!(h.enqueue(&mut q, l5), Verdict::Dropped);
        assert_eq!(h.dropped(), vec![(l5, DropReason::QdiscOverflow)]);
    }

    #[test]
    fn depth_limits_one_flow_with_tail_or_head_drop() {
        for headdrop in [false, true] {
            let mut h = Harness::new();
            let mut q = sfq(&SfqConf {
                depth: 3,
                headdrop,
                ..SfqConf::default()
            });
            let p: Vec<_> = (0..4).map(|_| pkt(&mut h, 7, 100)).collect();
            for &x in &p[..3] {
                h.enqueue(&mut q, x);
            }
            let v = h.enqueue(&mut q, p[3]);
            if headdrop {
                assert_eq!(v, Verdict::Congested);
                assert_eq!(h.dropped(), vec![(p[0], DropReason::QdiscOverflow)]);
            } else {
                assert_eq!(v, Verdict::Dropped);
                assert_eq!(h.dropped(), vec![(p[3], DropReason::QdiscOverflow)]);
            }
            assert_eq!(q.len(), 3);
        }
    }

    #[test]
    fn perturbation_rehashes_queued_packets_without_reordering_a_flow() {
        let mut h = Harness::new();
        let mut q = sfq(&SfqConf {
            perturb: Duration(SimTime::from_secs(1)),
            ..SfqConf::default()
        });
        let key0 = q.perturbation;
        let mut sent: Vec<Vec<PacketId>> = vec![Vec::new(); 20];
        for round in 0..5 {
            for (f, s) in sent.iter_mut().enumerate() {
                let p = pkt(&mut h, 2000 + f as u16, 100 + round);
                h.enqueue(&mut q, p);
                s.push(p);
            }
        }
        h.now = SimTime::from_millis(1500);
        let mut got: Vec<Vec<PacketId>> = vec![Vec::new(); 20];
        while let Some(p) = h.dequeue(&mut q) {
            let f = (h.packets.get(p).tuple.src_port - 2000) as usize;
            got[f].push(p);
        }
        assert_ne!(q.perturbation, key0, "the key changed at 1 s");
        assert!(h.dropped().is_empty());
        assert_eq!(got, sent, "each flow's packets leave in order");
    }

    #[test]
    fn peek_then_dequeue_agree() {
        let mut h = Harness::new();
        let mut q = sfq(&SfqConf::default());
        let ports = distinct_ports(&q, &mut h, 2);
        for &port in &ports {
            let p = pkt(&mut h, port, 700);
            h.enqueue(&mut q, p);
        }
        let mut ctx = QdiscCtx::new(h.now, &mut h.packets, &h.dev, &mut h.drops);
        let a = q.peek(&mut ctx);
        assert_eq!(q.len(), 2);
        assert_eq!(q.backlog_bytes(), 1400);
        assert_eq!(q.dequeue(&mut ctx), a);
        assert_eq!(q.len(), 1);
    }
}
