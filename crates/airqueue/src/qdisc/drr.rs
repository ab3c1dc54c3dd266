//! `drr`: Deficit Round Robin over classes (Linux `net/sched/sch_drr.c`; Shreedhar and
//! Varghese, SIGCOMM'95).
//!
//! Each class has a `quantum` (default psched_mtu, the device MTU plus its link-layer
//! header) and a child discipline (default pfifo). A class that becomes backlogged joins
//! the tail of the active list with `deficit = quantum`. Dequeue looks at the head class:
//! if its head packet fits the deficit, the deficit pays for it and the packet leaves (a
//! class that empties leaves the list); otherwise the class gets another quantum and moves
//! to the tail. As in Linux and unlike the paper, one packet leaves per call and deficits
//! are not zeroed while a class stays active. Shares of backlogged classes are
//! proportional to their quanta.
//!
//! Linux DRR has no default class: a packet no class takes is **dropped**, with reason
//! `policy` (the classifier refused it). If the head class's child has a packet but
//! will not release it now (a shaper), Linux's `drr_dequeue` returns nothing; so does this.
//!
//! On a virtual device, a member asking for a packet walks the active list from the head
//! and serves the first class holding a packet for it, applying the DRR rule to that
//! class; classes with nothing for the asker keep their places and deficits. The relative
//! order of each member's classes therefore changes only by that member's own rotations:
//! each member sees DRR over its own classes. A class holding packets for several members
//! shares one deficit between them.

use super::class_stats::{self, ClassView, Stash, WalkedClass};
use super::classify::{Classifier, Match, MatchSpec};
use super::{build_child, BuildCtx, Child, ClassReport, ClassSample, Qdisc, QdiscCtx, Verdict};
use crate::conf::{Bytes, ScenarioError};
use crate::engine::SimTime;
use crate::packet::{DropReason, PacketId};
use crate::qdisc::QdiscConf;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Parameters of `drr` (`tc qdisc add … drr`; classes `tc class add … drr quantum Q`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DrrConf {
    /// The classes, each with its filter, quantum and child qdisc. Packets no class
    /// `match` takes are dropped (reason `policy`), as Linux DRR does.
    pub classes: Vec<DrrClassConf>,
}

/// One class of `drr`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DrrClassConf {
    /// Name of the class in result tables.
    pub name: String,
    /// Bytes the class may send per round. Default: psched_mtu (link MTU + overhead,
    /// 1514 on Ethernet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Bytes>,
    /// Packets this class takes (first matching class wins). `{}` takes every packet.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub match_: Option<MatchSpec>,
    /// The class's child qdisc, any kind (default `pfifo`, limit 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qdisc: Option<Box<QdiscConf>>,
}

impl DrrConf {
    pub fn check(&self, path: &str, errs: &mut ScenarioError) {
        if self.classes.is_empty() {
            errs.push(
                format!("{path}.classes"),
                "is empty; add classes with `match` tables (drr drops what no class takes)",
            );
        } else if self.classes.iter().all(|c| c.match_.is_none()) {
            errs.push(
                format!("{path}.classes"),
                "no class has a `match`, so drr would drop every packet (Linux drr has no \
                 default class); give each class a `match`, `{}` for a catch-all",
            );
        }
        super::check_class_names(path, self.classes.iter().map(|c| c.name.as_str()), errs);
        for c in &self.classes {
            let p = format!("{path}.classes.{}", c.name);
            match c.quantum {
                Some(Bytes(0)) => errs.push(
                    format!("{p}.quantum"),
                    "must be at least 1 byte (Linux refuses a zero quantum)",
                ),
                Some(Bytes(q)) if q > u32::MAX as u64 => {
                    errs.push(format!("{p}.quantum"), "is larger than 4 GiB; lower it")
                }
                _ => {}
            }
            if let Some(q) = &c.qdisc {
                super::check(q, &format!("{p}.qdisc"), errs);
            }
        }
    }
}

struct DrrClass {
    name: String,
    quantum: u32,
    deficit: u32,
    active: bool,
    child: Child,
}

impl WalkedClass for DrrClass {
    #[inline]
    fn view(&self) -> ClassView<'_> {
        ClassView::leaf(&self.name, &self.child)
    }
    fn reset_stats(&mut self) {
        self.child.reset_stats();
    }
}

pub struct Drr {
    classes: Vec<DrrClass>,
    classifier: Classifier,
    /// Active classes, head first.
    active: VecDeque<u32>,
    stash: Stash,
    len: usize,
    backlog: u64,
}

impl Drr {
    pub fn build(c: &DrrConf, b: &BuildCtx, errs: &mut ScenarioError) -> Drr {
        let mut rules = Vec::new();
        let mut classes = Vec::with_capacity(c.classes.len());
        for (i, cc) in c.classes.iter().enumerate() {
            if let Some(m) = &cc.match_ {
                let path = format!("{}.classes.{}.match", b.path, cc.name);
                rules.push((Match::resolve(m, b.names, &path, errs), i as u32));
            }
            classes.push(DrrClass {
                name: cc.name.clone(),
                quantum: cc.quantum.map_or(b.dev.psched_mtu, |q| q.0 as u32),
                deficit: 0,
                active: false,
                child: build_child(cc.qdisc.as_deref(), &cc.name, b, errs),
            });
        }
        Drr {
            active: VecDeque::with_capacity(classes.len()),
            classes,
            classifier: Classifier::new(rules, None),
            stash: Stash::default(),
            len: 0,
            backlog: 0,
        }
    }

    /// Builds a DRR directly (tests, benches): one class per quantum, class i taking the
    /// packets of flow i, each with a pfifo of `limit` packets.
    pub fn with_flow_classes(quanta: &[u32], limit: u32) -> Drr {
        let classes = quanta
            .iter()
            .enumerate()
            .map(|(i, &q)| DrrClass {
                name: format!("c{i}"),
                quantum: q,
                deficit: 0,
                active: false,
                child: Child::new(Box::new(super::Pfifo::new(limit))),
            })
            .collect::<Vec<_>>();
        let rules = (0..quanta.len() as u32)
            .map(|i| (Match::flows(&[i]), i))
            .collect();
        Drr {
            active: VecDeque::with_capacity(classes.len()),
            classes,
            classifier: Classifier::new(rules, None),
            stash: Stash::default(),
            len: 0,
            backlog: 0,
        }
    }

    #[inline]
    fn sizes(&self, c: usize) -> (usize, u64) {
        let ch = &self.classes[c].child;
        (ch.len(), ch.backlog_bytes())
    }

    #[inline]
    fn account(&mut self, c: usize, before: (usize, u64)) {
        let (l, b) = self.sizes(c);
        self.len = self.len + l - before.0;
        self.backlog = self.backlog + b - before.1;
    }

    /// Takes class `pos` of the active list out of it (it emptied).
    #[inline]
    fn deactivate(&mut self, pos: usize) {
        let c = self
            .active
            .remove(pos)
            .expect("position in the active list");
        self.classes[c as usize].active = false;
    }

    /// One DRR decision for the asker (see the module documentation).
    fn dequeue_inner(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let mut pos = 0;
        while pos < self.active.len() {
            let c = self.active[pos] as usize;
            let before = self.sizes(c);
            let head = self.classes[c].child.peek(ctx);
            self.account(c, before);
            let Some(p) = head else {
                if self.classes[c].child.is_empty() {
                    // The child dropped its last packets while peeking (an AQM).
                    self.deactivate(pos);
                    continue;
                }
                if ctx.member.is_some() {
                    // Nothing for this member here: look further down the list.
                    pos += 1;
                    continue;
                }
                // Linux: a non-work-conserving class at the head stops the round.
                return None;
            };
            let len = ctx.len_of(p);
            let cl = &mut self.classes[c];
            if len <= cl.deficit {
                cl.deficit -= len;
                let got = cl.child.dequeue(ctx);
                debug_assert_eq!(got, Some(p), "drr: child dequeued another packet than peek");
                if cl.child.is_empty() {
                    self.deactivate(pos);
                }
                self.account(c, before);
                return got;
            }
            cl.deficit += cl.quantum;
            let c = self
                .active
                .remove(pos)
                .expect("position in the active list");
            self.active.push_back(c);
        }
        None
    }
}

impl Qdisc for Drr {
    fn kind(&self) -> &'static str {
        "drr"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let Some(c) = self.classifier.classify(ctx.packets.get(pkt)) else {
            ctx.drop_packet(pkt, DropReason::Policy);
            return Verdict::Dropped;
        };
        let c = c as usize;
        let before = self.sizes(c);
        let v = self.classes[c].child.enqueue(pkt, ctx);
        self.account(c, before);
        let cl = &mut self.classes[c];
        if !cl.active && !cl.child.is_empty() {
            cl.active = true;
            cl.deficit = cl.quantum;
            self.active.push_back(c as u32);
        }
        v
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.stash.take(ctx.member) {
            self.len -= 1;
            self.backlog -= ctx.len_of(p) as u64;
            return Some(p);
        }
        self.dequeue_inner(ctx)
    }

    /// Linux's `qdisc_peek_dequeued`: the DRR decision is made and its packet kept.
    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.stash.peek(ctx.member) {
            return Some(p);
        }
        let p = self.dequeue_inner(ctx)?;
        let len = ctx.len_of(p);
        self.stash.put(ctx.member, p, len);
        self.len += 1;
        self.backlog += len as u64;
        Some(p)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog
    }

    fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        self.active
            .iter()
            .filter_map(|&c| self.classes[c as usize].child.qdisc.next_wakeup(now))
            .filter(|&t| t > now)
            .min()
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn report_classes(&self, prefix: &str, parent: &str, out: &mut Vec<ClassReport>) {
        class_stats::report_classes("drr", &self.classes, prefix, parent, out);
    }

    fn sample_classes(&self, out: &mut Vec<ClassSample>) {
        class_stats::sample_classes(&self.classes, out);
    }

    fn reset_stats(&mut self) {
        class_stats::reset_classes(&mut self.classes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::classify::NameTable;
    use crate::qdisc::testing::Harness;

    fn served(h: &mut Harness, q: &mut Drr, n: usize) -> Vec<u32> {
        (0..n)
            .map(|_| {
                let p = h.dequeue(q).expect("backlogged");
                h.packets.get(p).flow.0
            })
            .collect()
    }

    /// Reference: Linux `drr_dequeue` on a hand-worked trace. Quanta 1500 / 1000 / 500,
    /// 500-byte packets, all three classes backlogged and activated in order a, b, c with
    /// deficit = quantum: a sends 3 (1500), b sends 2 (1000), c sends 1, then each earns a
    /// quantum per round: the service order repeats a a a b b c.
    #[test]
    fn serves_each_class_its_quantum_per_round_in_activation_order() {
        let mut h = Harness::new();
        let mut q = Drr::with_flow_classes(&[1500, 1000, 500], 100);
        for _ in 0..12 {
            for f in 0..3 {
                let p = h.packet(f, 500);
                h.enqueue(&mut q, p);
            }
        }
        assert_eq!(
            served(&mut h, &mut q, 12),
            [0, 0, 0, 1, 1, 2, 0, 0, 0, 1, 1, 2]
        );
    }

    /// Reference: sch_drr.c `drr_dequeue`: when the head packet exceeds the deficit, the
    /// class gets one quantum and goes to the tail; deficits carry over (not zeroed as in
    /// the paper). Class 0 sends 1500 B packets, class 1 400 B packets, quanta 1000 each;
    /// the exact order is worked out by hand below.
    #[test]
    fn a_packet_larger_than_the_deficit_waits_for_more_quanta() {
        let mut h = Harness::new();
        let mut q = Drr::with_flow_classes(&[1000, 1000], 100);
        for _ in 0..10 {
            let a = h.packet(0, 1500);
            h.enqueue(&mut q, a);
            let b = h.packet(1, 400);
            h.enqueue(&mut q, b);
        }
        // a: def 1000 < 1500 → def 2000, tail. b: def 1000 → 400, 400 (def 200) → tail with
        // 1200. a: 2000 → sends (500) → 500 < 1500 → 1500, tail. b: 1200 → 400, 400, 400
        // (def 0) → 1000, tail. a: 1500 → sends (0) → 1000, tail. b: 1000 → 400, 400 (200)
        // → 1200, tail …
        assert_eq!(served(&mut h, &mut q, 9), [1, 1, 0, 1, 1, 1, 0, 1, 1]);
    }

    /// Reference: Linux drr drops packets no class takes (no default class) and counts
    /// them as drops; reason `policy` here.
    #[test]
    fn unclassified_packets_are_dropped_for_policy() {
        let mut h = Harness::new();
        let mut q = Drr::with_flow_classes(&[1514], 10);
        let stray = h.packet(5, 100);
        assert_eq!(h.enqueue(&mut q, stray), Verdict::Dropped);
        assert_eq!(h.dropped(), [(stray, DropReason::Policy)]);
        assert!(q.is_empty());
    }

    /// Reference: the virtual-device contract: a member is served DRR over the classes
    /// holding its packets; classes of the other member keep their places and deficits,
    /// so interleaving members does not change either member's order.
    #[test]
    fn members_of_a_virtual_device_each_see_drr_over_their_own_classes() {
        let mut h = Harness::new();
        let mut q = Drr::with_flow_classes(&[500, 500, 500], 100);
        // flows 0 and 2 leave by member 0, flow 1 by member 1.
        for _ in 0..4 {
            for f in 0..3 {
                let p = h.packet_with(f, 500, |x| x.out_iface = (f == 1) as u32);
                h.enqueue(&mut q, p);
            }
        }
        let mut order = Vec::new();
        for i in 0..8 {
            let p = h.dequeue_for(&mut q, 0).unwrap();
            order.push(h.packets.get(p).flow.0);
            if i % 2 == 0 {
                let p = h.dequeue_for(&mut q, 1).unwrap();
                assert_eq!(h.packets.get(p).flow.0, 1);
            }
        }
        assert_eq!(order, [0, 2, 0, 2, 0, 2, 0, 2]);
        assert_eq!(h.dequeue_for(&mut q, 0), None);
    }

    /// Reference: `qdisc_peek_dequeued` semantics: peek makes the decision and the next
    /// dequeue returns the same packet; length and backlog still count it meanwhile.
    #[test]
    fn peek_keeps_the_decided_packet_for_the_next_dequeue() {
        let mut h = Harness::new();
        let mut q = Drr::with_flow_classes(&[100, 100], 10);
        let a = h.packet(0, 100);
        let b = h.packet(1, 100);
        h.enqueue(&mut q, a);
        h.enqueue(&mut q, b);
        assert_eq!(h.peek(&mut q), Some(a));
        assert_eq!(h.peek(&mut q), Some(a));
        assert_eq!((q.len(), q.backlog_bytes()), (2, 200));
        assert_eq!(h.dequeue(&mut q), Some(a));
        assert_eq!(h.dequeue(&mut q), Some(b));
        assert!(q.is_empty());
    }

    #[test]
    fn check_rejects_a_zero_quantum_and_classes_without_any_match() {
        let c: DrrConf = serde_json::from_value(serde_json::json!({
            "classes": [{"name": "a", "quantum": 0}]
        }))
        .unwrap();
        let mut errs = ScenarioError::default();
        c.check("qdiscs.d", &mut errs);
        let paths: Vec<_> = errs.problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["qdiscs.d.classes", "qdiscs.d.classes.a.quantum"]);
        let _ = NameTable::default();
    }
}
