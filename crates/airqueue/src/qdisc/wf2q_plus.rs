//! `wf2q+`: Worst-case Fair Weighted Fair Queueing plus (Bennett & Zhang, "Hierarchical
//! packet fair queueing algorithms", SIGCOMM'96 / IEEE/ACM ToN 5(5) 1997), the reference
//! fair queue beside `stfq`.
//!
//! Each backlogged queue i has the tags of its head packet: when a packet reaches the head
//! of an empty queue, `S_i = max(F_i, V)`, else `S_i = F_i` (the previous head's finish);
//! `F_i = S_i + L/φ_i`. Only heads with `S_i ≤ V` are eligible; the eligible head with the
//! smallest `F` is served (exact ties: lower class index; tags are fixed point, so ties
//! within rounding go either way). The system virtual time advances by
//! the work done, `V ← max(V + L/Σφ, min S)`: without the GPS simulation of WFQ/PGPS, but
//! with the same delay bound and a worst-case fairness index of one packet. Σφ is the sum
//! of all weights, so that φ_i/Σφ is queue i's guaranteed share of the link (Bennett &
//! Zhang's rates r_i with Σr_i = C); without classes it counts every flow seen so far
//! (the `min S` term keeps V from lagging behind the backlogged queues).
//!
//! Classes, the per-flow default and virtual lengths are those of `stfq`
//! ([`super::fair_classes`]). Work-conserving.
//!
//! **On a virtual device** (several member interfaces behind one qdisc, see `qdisc`) each
//! member is a server of its own, so the qdisc runs one WF²Q+ per member
//! ([`super::member_lanes`]): a packet is tagged in the server of the interface it leaves
//! by, with that server's V, and a member asking for a packet gets the eligible head with
//! the smallest F among its own packets. V is the work one server has done
//! (`V ← V + L/Σφ` per packet it sends); one V shared by a fast and a slow member would
//! run with the fast member's work, so a slow member's queue that becomes backlogged would
//! start far ahead of that member's other queues (`S = max(F, V)`) and wait for them to
//! catch up, and the per-member fairness and delay bounds would be lost. Per member, each
//! member sees WF²Q+ exactly as if its packets were the whole input; its Σφ counts the
//! configured classes and the per-flow queues seen on it. Class limits stay shared (a
//! class's packets for all members count against its `limit`). A class whose packets
//! leave by two members (a `match` on something other than the destination) gets weight
//! φ in each member's server.

use super::fair_classes::{Admitted, FairClassConf, FairClasses, FairControl, VirtualLength};
use super::member_lanes::Lanes;
use super::peek_stash::PeekStash;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::ScenarioError;
use crate::packet::PacketId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Parameters of `wf2q+`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Wf2qPlusConf {
    /// Weighted classes, e.g. `classes = [{ name = "gold", weight = 4, match = { dst = "sta0" } }]`.
    /// Absent or empty: one queue per flow (5-tuple), each of weight 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<FairClassConf>,
    /// Class taking packets no class matches; absent: such packets are dropped (reason
    /// `policy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Packets each queue (class, or flow without classes) may hold, unless the class sets
    /// its own. Default: 1000.
    #[serde(default = "super::stfq::default_limit")]
    #[schemars(range(min = 1))]
    pub limit: u32,
}

/// Tags are fixed point (2⁻⁴⁰ byte per unit weight), so S = V in exact arithmetic may
/// differ by rounding: heads within this many units (about 10⁻⁵ byte) count as eligible.
const ELIGIBILITY_SLACK: u128 = 1 << 24;

#[derive(Default)]
struct Queue {
    /// Packets with their virtual lengths.
    entries: VecDeque<(PacketId, u64)>,
    start: u128,
    finish: u128,
    /// Whether the queue has had a packet in this lane (its weight then counts in Σφ).
    seen: bool,
}

/// One server: the whole qdisc on a real interface, one member of a virtual device (see
/// the module documentation).
struct Lane {
    /// Per class (index as in `classes`), created as classes are first used here.
    queues: Vec<Queue>,
    /// System virtual time.
    v: u128,
    /// Σ weights of the queues (fixed point) and 2^60 / it.
    total_weight: u64,
    inv_total_weight: u64,
    /// Backlogged heads not yet known eligible, by start tag.
    waiting: BinaryHeap<Reverse<(u128, u32)>>,
    /// Eligible heads (S ≤ V), by finish tag.
    eligible: BinaryHeap<Reverse<(u128, u32)>>,
    qlen: usize,
}

impl Lane {
    /// A server whose Σφ starts as the configured classes' weights.
    fn new(configured_weight: u64) -> Self {
        let mut l = Lane {
            queues: Vec::new(),
            v: 0,
            total_weight: 0,
            inv_total_weight: 0,
            waiting: BinaryHeap::new(),
            eligible: BinaryHeap::new(),
            qlen: 0,
        };
        l.set_total_weight(configured_weight);
        l
    }

    fn set_total_weight(&mut self, w: u64) {
        self.total_weight = w;
        self.inv_total_weight = if w == 0 {
            0
        } else {
            super::fair_classes::inverse_weight(w)
        };
    }

    /// Queue c of this lane, created on first use.
    #[inline]
    fn queue_mut(&mut self, c: usize) -> &mut Queue {
        if c >= self.queues.len() {
            self.queues.resize_with(c + 1, Queue::default);
        }
        &mut self.queues[c]
    }

    /// Gives queue c's head its tags and files it as waiting for eligibility.
    fn schedule_head(&mut self, c: usize, classes: &FairClasses) {
        let q = &mut self.queues[c];
        let (_, vlen) = *q.entries.front().expect("head exists");
        q.finish = q.start + vlen as u128 * classes.info[c].inv_weight as u128;
        self.waiting.push(Reverse((q.start, c as u32)));
    }

    /// Queues packet `pkt` of virtual length `vlen` in class c (Bennett & Zhang: a packet
    /// reaching the head of an empty queue starts at max(F, V)).
    fn enqueue(&mut self, c: usize, pkt: PacketId, vlen: u64, classes: &FairClasses) {
        let q = self.queue_mut(c);
        let first_sight = !q.seen;
        q.seen = true;
        let was_empty = q.entries.is_empty();
        q.entries.push_back((pkt, vlen));
        if first_sight && c >= classes.configured() {
            // A per-flow queue: its weight counts in Σφ from now on.
            let w = self.total_weight + classes.info[c].weight_fp;
            self.set_total_weight(w);
        }
        self.qlen += 1;
        if was_empty {
            let v = self.v;
            let q = &mut self.queues[c];
            q.start = q.finish.max(v);
            self.schedule_head(c, classes);
        }
    }

    /// WF²Q+'s decision: the smallest finish tag among eligible heads.
    fn dequeue(&mut self, classes: &FairClasses) -> Option<(usize, PacketId)> {
        if self.qlen == 0 {
            return None;
        }
        // V ≥ min S: someone is always eligible.
        if self.eligible.is_empty() {
            let Reverse((s, _)) = *self.waiting.peek().expect("backlogged heads");
            self.v = self.v.max(s);
        }
        while let Some(&Reverse((s, c))) = self.waiting.peek() {
            if s > self.v + ELIGIBILITY_SLACK {
                break;
            }
            self.waiting.pop();
            self.eligible
                .push(Reverse((self.queues[c as usize].finish, c)));
        }
        let Reverse((_, c)) = self.eligible.pop().expect("an eligible head");
        let c = c as usize;
        let (pkt, vlen) = self.queues[c].entries.pop_front().expect("head");
        self.v += vlen as u128 * self.inv_total_weight as u128;
        self.qlen -= 1;
        let q = &mut self.queues[c];
        if !q.entries.is_empty() {
            q.start = q.finish;
            self.schedule_head(c, classes);
        }
        Some((c, pkt))
    }
}

pub struct Wf2qPlus {
    classes: FairClasses,
    /// Σ weights of the configured classes (fixed point): every lane's initial Σφ.
    configured_weight: u64,
    /// One server per member interface (one on a real interface).
    lanes: Lanes<Lane>,
    qlen: usize,
    backlog: u64,
    stash: PeekStash,
}

impl Wf2qPlus {
    pub fn from_conf(c: &Wf2qPlusConf, b: &BuildCtx, errs: &mut ScenarioError) -> Wf2qPlus {
        let classes = FairClasses::from_conf(&c.classes, c.default.as_deref(), c.limit, 0, b, errs);
        let configured_weight = classes.info.iter().map(|i| i.weight_fp).sum();
        Wf2qPlus {
            classes,
            configured_weight,
            lanes: Lanes::default(),
            qlen: 0,
            backlog: 0,
            stash: PeekStash::default(),
        }
    }

    /// The run-time control handle (class costs).
    pub fn control(&self) -> FairControl {
        self.classes.control()
    }

    /// Installs a per-packet virtual length (replaces the class costs).
    pub fn set_virtual_length(&mut self, f: Box<dyn VirtualLength>) {
        self.classes.set_virtual_length(f);
    }

    /// The lane that serves the asker: the asking member's; on a real interface the only
    /// one (the first backlogged one, should packets of several interfaces be queued).
    #[inline]
    fn lane_for(&self, ctx: &QdiscCtx) -> Option<usize> {
        match ctx.member {
            Some(m) => self.lanes.position(m),
            None if self.lanes.len() == 1 => Some(0),
            None => self.lanes.iter().position(|l| l.qlen > 0),
        }
    }

    fn dequeue_inner(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let lane = self.lane_for(ctx)?;
        let (c, pkt) = self.lanes.at_mut(lane).dequeue(&self.classes)?;
        self.classes.left(c);
        self.qlen -= 1;
        self.backlog -= ctx.len_of(pkt) as u64;
        Some(pkt)
    }
}

impl Qdisc for Wf2qPlus {
    fn kind(&self) -> &'static str {
        "wf2q+"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let Some(Admitted {
            class: c,
            len,
            out,
            vlen,
        }) = self.classes.admit(pkt, ctx)
        else {
            return Verdict::Dropped;
        };
        let configured = self.configured_weight;
        self.lanes
            .get_or_insert_with(out, || Lane::new(configured))
            .enqueue(c, pkt, vlen, &self.classes);
        self.qlen += 1;
        self.backlog += len as u64;
        Verdict::Queued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.stash.take(ctx.member) {
            return Some(p);
        }
        self.dequeue_inner(ctx)
    }

    /// Linux-style `qdisc_peek_dequeued` (per asking member on a virtual device).
    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
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
        self.qlen + self.stash.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog + self.stash.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::stfq::tests::{classes, names};
    use crate::qdisc::testing::Harness;
    use crate::qdisc::DevInfo;

    fn build(weights: &[f64]) -> Wf2qPlus {
        let names = names(weights.len());
        let dev = DevInfo {
            name: "t.d".into(),
            rate_bps: 1_000_000,
            mtu: 1500,
            psched_mtu: 1500,
            link_header: 0,
            stab: None,
        };
        let b = BuildCtx {
            dev: &dev,
            names: &names,
            seed: 1,
            path: "qdiscs.t".into(),
            boards: None,
        };
        let mut errs = ScenarioError::default();
        let conf = Wf2qPlusConf {
            classes: classes(weights),
            default: None,
            limit: 100_000,
        };
        let q = Wf2qPlus::from_conf(&conf, &b, &mut errs);
        assert!(errs.is_empty(), "{errs}");
        q
    }

    #[test]
    fn worst_case_fairness_interleaves_a_heavy_class_with_light_ones() {
        // Bennett & Zhang's example (SIGCOMM'96 Fig. 1): one session of weight 0.5 and ten
        // of weight 0.05, all packets equal, all backlogged at 0. WFQ would send the heavy
        // session's first ten packets back to back; WF²Q+ alternates heavy and light.
        let mut w = vec![10.0];
        w.extend(std::iter::repeat_n(1.0, 10));
        let mut q = build(&w);
        let mut h = Harness::new();
        for f in 0..11u32 {
            let n = if f == 0 { 11 } else { 1 };
            for _ in 0..n {
                let p = h.packet(f, 1000);
                h.enqueue(&mut q, p);
            }
        }
        let order: Vec<u32> = (0..20)
            .map(|_| {
                let p = h.dequeue(&mut q).unwrap();
                h.packets.get(p).flow.0
            })
            .collect();
        // Heavy every other packet. The 19th and 20th packets (the heavy one's F = 1000 and
        // the last light one's F = 1000) tie exactly; fixed-point rounding may order them
        // either way, as ties may be broken arbitrarily.
        for (k, f) in order[..18].iter().enumerate() {
            assert_eq!(*f == 0, k % 2 == 0, "{order:?}");
        }
        let mut last = [order[18], order[19]];
        last.sort_unstable();
        assert_eq!(last, [0, 10], "{order:?}");
    }

    #[test]
    fn backlogged_classes_share_in_proportion_to_weight() {
        let mut q = build(&[1.0, 2.0, 5.0]);
        let mut h = Harness::new();
        for _ in 0..2000 {
            for f in 0..3 {
                let p = h.packet(f, 400 + 300 * f);
                h.enqueue(&mut q, p);
            }
        }
        let mut bytes = [0u64; 3];
        for _ in 0..2000 {
            let p = h.dequeue(&mut q).unwrap();
            bytes[h.packets.get(p).flow.0 as usize] += h.packets.size(p) as u64;
        }
        let total: u64 = bytes.iter().sum();
        for (f, w) in [1.0, 2.0, 5.0].iter().enumerate() {
            let share = bytes[f] as f64 / total as f64;
            assert!((share - w / 8.0).abs() < 0.01, "{bytes:?}");
        }
    }

    #[test]
    fn peek_keeps_the_packet_for_dequeue() {
        let mut q = build(&[1.0, 1.0]);
        let mut h = Harness::new();
        let a = h.packet(0, 100);
        let b = h.packet(1, 100);
        h.enqueue(&mut q, a);
        h.enqueue(&mut q, b);
        let mut ctx = QdiscCtx::new(h.now, &mut h.packets, &h.dev, &mut h.drops);
        let first = q.peek(&mut ctx);
        assert_eq!(q.len(), 2);
        assert_eq!(q.dequeue(&mut ctx), first);
        assert_eq!(q.len(), 1);
    }
}
