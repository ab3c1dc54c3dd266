//! `stfq`: Start-time Fair Queueing (Goyal, Vin & Cheng, SIGCOMM'96 / IEEE/ACM ToN 5(5)
//! 1997), the scheduler of ADWISER (seed 002 §III-C.3, eqs. 4–5).
//!
//! Packet k of queue f, of (virtual) length L, arriving at A, gets the tags
//! `S = max(v(A), F_prev)` and `F = S + L/φ_f`, with `F_prev = 0` for the first packet.
//! Packets are served in increasing start tag (ties: lower class index first). The virtual
//! time v(t) is the start tag of the packet in service; when the server goes idle it is
//! the largest finish tag served so far. "In service" means: the last packet handed out,
//! until the next dequeue finds the qdisc empty (the transmitter asks again only when it
//! is free, so that call marks the end of the busy period), or, with `rate`, until the
//! packet's virtual service time has passed.
//!
//! Without classes every flow (5-tuple) gets its own queue of weight 1. Lengths are
//! virtual lengths ([`super::fair_classes`]): the wire length unless a class has a cost or
//! a [`VirtualLength`] callback is installed.
//!
//! With `rate` the server is ADWISER's virtual server (002 §III-C.3: "after releasing a
//! packet … the scheduler allows time for the virtual bits corresponding to the packet to
//! be served at the current service rate C"): after each packet of virtual length L the
//! next leaves no earlier than L·8/C later; [`FairControl::set_rate`] changes C at run time.
//!
//! Fairness (Goyal et al., Theorem 1): over any interval in which flows f and m are both
//! backlogged, |W_f/φ_f − W_m/φ_m| ≤ Lmax_f/φ_f + Lmax_m/φ_m, whatever the server rate does
//! (checked by a property test below).
//!
//! **On a virtual device** (several member interfaces behind one qdisc, see `qdisc`) each
//! member is a server of its own, so the qdisc runs one STFQ per member
//! ([`super::member_lanes`]): a packet is tagged with the virtual time of the server of
//! the interface it leaves by, and a member asking for a packet gets the smallest start
//! tag among its own packets; "in service" and "idle" are per member (a member's server
//! is idle once it asks and finds nothing), and with `rate` each member's virtual server
//! runs at that rate. v(t) is the start tag of *the* packet in service; with two members
//! two packets are in service at once, and one shared v would jump between the fast
//! member's tags and the slow member's, so the slow member's arrivals would be tagged
//! with the fast member's progress and starve its already backlogged queues (or the
//! reverse), which breaks Theorem 1 within each member. Per member, each member sees STFQ
//! exactly as if its packets were the whole input, and Theorem 1 holds for each member's
//! flows. Class limits stay shared (a class's packets for all members count against its
//! `limit`); a class whose packets leave by two members gets weight φ in each member's
//! server.

use super::fair_classes::{Admitted, FairClassConf, FairClasses, FairControl, VirtualLength};
use super::member_lanes::Lanes;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::{Rate, ScenarioError};
use crate::engine::SimTime;
use crate::packet::PacketId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Parameters of `stfq`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StfqConf {
    /// Weighted classes, e.g. `classes = [{ name = "gold", weight = 4, match = { dst = "sta0" } }]`.
    /// Absent or empty: one queue per flow (5-tuple), each of weight 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<FairClassConf>,
    /// Class taking packets no class matches; absent: such packets are dropped (reason
    /// `policy`), as Linux's `drr` does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Packets each queue (class, or flow without classes) may hold, unless the class sets
    /// its own. Default: 1000.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1))]
    pub limit: u32,
    /// Service rate of ADWISER's virtual server: after a packet of virtual length L, the
    /// next leaves no earlier than L × 8 / rate later. Absent: work-conserving.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
}

pub(crate) fn default_limit() -> u32 {
    1000
}

struct Entry {
    start: u128,
    vlen: u64,
    pkt: PacketId,
}

#[derive(Default)]
struct Queue {
    entries: VecDeque<Entry>,
    /// Finish tag of the last packet that arrived (F_prev).
    last_finish: u128,
}

/// One server: the whole qdisc on a real interface, one member of a virtual device (see
/// the module documentation).
#[derive(Default)]
struct Lane {
    /// Per class (index as in `classes`), created as classes are first used here.
    queues: Vec<Queue>,
    /// Start tag of each backlogged queue's head, smallest first.
    heads: BinaryHeap<Reverse<(u128, u32)>>,
    /// Start tag of the packet in service; `None` when the server is idle.
    in_service: Option<u128>,
    /// Largest finish tag served.
    max_finish: u128,
    qlen: usize,
    /// With a rate: when the virtual server may release the next packet.
    next_release: SimTime,
}

impl Lane {
    /// The virtual time v(t).
    #[inline]
    fn virtual_time(&self) -> u128 {
        self.in_service.unwrap_or(self.max_finish)
    }

    #[inline]
    fn throttled(&self, now: SimTime) -> bool {
        now < self.next_release
    }

    /// Tags and queues a packet of class c (Goyal et al. eqs. 4–5).
    fn enqueue(&mut self, c: usize, e: (PacketId, u64), classes: &FairClasses, now: SimTime) {
        let (pkt, vlen) = e;
        if self.qlen == 0 && !self.throttled(now) && classes.rate_bps() > 0 {
            // The virtual server finished its last packet: the busy period is over.
            self.in_service = None;
        }
        let v = self.virtual_time();
        if c >= self.queues.len() {
            self.queues.resize_with(c + 1, Queue::default);
        }
        let q = &mut self.queues[c];
        let start = v.max(q.last_finish);
        q.last_finish = start + vlen as u128 * classes.info[c].inv_weight as u128;
        if q.entries.is_empty() {
            self.heads.push(Reverse((start, c as u32)));
        }
        q.entries.push_back(Entry { start, vlen, pkt });
        self.qlen += 1;
    }

    /// The packet with the smallest start tag, as the server takes it into service.
    fn dequeue(&mut self, classes: &FairClasses, now: SimTime) -> Option<(usize, PacketId)> {
        if self.throttled(now) {
            return None;
        }
        let Some(Reverse((start, c))) = self.heads.pop() else {
            // Asked with nothing queued: the server is idle, v = largest finish tag.
            self.in_service = None;
            return None;
        };
        let c = c as usize;
        let q = &mut self.queues[c];
        let e = q.entries.pop_front().expect("a head tag has a packet");
        debug_assert_eq!(e.start, start);
        if let Some(next) = q.entries.front() {
            self.heads.push(Reverse((next.start, c as u32)));
        }
        let finish = start + e.vlen as u128 * classes.info[c].inv_weight as u128;
        self.in_service = Some(start);
        self.max_finish = self.max_finish.max(finish);
        self.qlen -= 1;
        let rate = classes.rate_bps();
        if rate > 0 {
            self.next_release = now + SimTime::transmission(e.vlen, rate);
        }
        Some((c, e.pkt))
    }

    fn peek(&self, now: SimTime) -> Option<PacketId> {
        if self.throttled(now) {
            return None;
        }
        let Reverse((_, c)) = *self.heads.peek()?;
        self.queues[c as usize].entries.front().map(|e| e.pkt)
    }
}

pub struct Stfq {
    classes: FairClasses,
    /// One server per member interface (one on a real interface).
    lanes: Lanes<Lane>,
    qlen: usize,
    backlog: u64,
}

impl Stfq {
    pub fn from_conf(c: &StfqConf, b: &BuildCtx, errs: &mut ScenarioError) -> Stfq {
        let rate = c.rate.map_or(0, |r| r.bps());
        if c.rate.is_some() && rate == 0 {
            errs.push(
                format!("{}.rate", b.path),
                "must be positive; remove it for a work-conserving server",
            );
        }
        let classes =
            FairClasses::from_conf(&c.classes, c.default.as_deref(), c.limit, rate, b, errs);
        Stfq {
            classes,
            lanes: Lanes::default(),
            qlen: 0,
            backlog: 0,
        }
    }

    /// The run-time control handle (class costs, service rate).
    pub fn control(&self) -> FairControl {
        self.classes.control()
    }

    /// Installs a per-packet virtual length (replaces the class costs).
    pub fn set_virtual_length(&mut self, f: Box<dyn VirtualLength>) {
        self.classes.set_virtual_length(f);
    }

    /// The index of a configured class by name.
    pub fn class_index(&self, name: &str) -> Option<usize> {
        self.classes.names.iter().position(|n| n == name)
    }

    /// The current virtual time v(t) (of the first member's server on a virtual device).
    pub fn virtual_time(&self) -> u128 {
        self.lanes.iter().next().map_or(0, Lane::virtual_time)
    }

    /// The server that serves the asker: the asking member's; on a real interface the
    /// only one (the first backlogged one, should packets of several interfaces be queued).
    #[inline]
    fn lane_for(&self, ctx: &QdiscCtx) -> Option<usize> {
        match ctx.member {
            Some(m) => self.lanes.position(m),
            None if self.lanes.len() == 1 => Some(0),
            None => self.lanes.iter().position(|l| l.qlen > 0),
        }
    }
}

impl Qdisc for Stfq {
    fn kind(&self) -> &'static str {
        "stfq"
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
        self.lanes.get_or_insert_with(out, Lane::default).enqueue(
            c,
            (pkt, vlen),
            &self.classes,
            ctx.now,
        );
        self.qlen += 1;
        self.backlog += len as u64;
        Verdict::Queued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let Some(lane) = self.lane_for(ctx) else {
            if ctx.member.is_none() {
                // Nothing queued at all: every server is idle.
                self.lanes.iter_mut().for_each(|l| l.in_service = None);
            }
            return None;
        };
        let (c, pkt) = self.lanes.at_mut(lane).dequeue(&self.classes, ctx.now)?;
        self.classes.left(c);
        self.qlen -= 1;
        self.backlog -= ctx.len_of(pkt) as u64;
        Some(pkt)
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.lanes.at(self.lane_for(ctx)?).peek(ctx.now)
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.qlen
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog
    }

    fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        self.lanes
            .iter()
            .filter(|l| l.qlen > 0 && l.throttled(now))
            .map(|l| l.next_release)
            .min()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::stream;
    use crate::packet::DropReason;
    use crate::qdisc::classify::NameTable;
    use crate::qdisc::testing::Harness;
    use crate::qdisc::DevInfo;
    use proptest::prelude::*;
    use rand::Rng;

    /// A BuildCtx whose flows are named f0, f1, …
    pub(crate) fn names(n: usize) -> NameTable {
        NameTable {
            flows: (0..n).map(|i| format!("f{i}")).collect(),
            nodes: vec![],
            ifaces: vec![],
        }
    }

    /// Classes c0, c1, … of the given weights, class i taking flow fi.
    pub(crate) fn classes(weights: &[f64]) -> Vec<FairClassConf> {
        weights
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                serde_json::from_value(serde_json::json!({
                    "name": format!("c{i}"), "weight": w, "match": { "flow": format!("f{i}") }
                }))
                .unwrap()
            })
            .collect()
    }

    impl Stfq {
        /// The start tag of class c's head packet (on a real interface: the one lane).
        fn head_start(&self, c: usize) -> Option<u128> {
            let lane = self.lanes.iter().next()?;
            lane.queues.get(c)?.entries.front().map(|e| e.start)
        }
    }

    pub(crate) fn build_stfq(conf: &StfqConf, n_flows: usize) -> Stfq {
        let names = names(n_flows);
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
        let q = Stfq::from_conf(conf, &b, &mut errs);
        assert!(errs.is_empty(), "{errs}");
        q
    }

    fn weighted(weights: &[f64]) -> StfqConf {
        StfqConf {
            classes: classes(weights),
            default: None,
            limit: 100_000,
            rate: None,
        }
    }

    #[test]
    fn tags_follow_the_paper_example() {
        // Goyal et al. eqs: f has weight 1, m weight 2, packets of 1000 B. All arrive at 0
        // to an idle server (v = 0): f gets S = 0, 1000, 2000; m gets S = 0, 500, 1000.
        // Service in start-tag order (ties: lower class first): f0 m0 m1 f1 m2 f2.
        let mut h = Harness::new();
        let mut q = build_stfq(&weighted(&[1.0, 2.0]), 2);
        let f: Vec<_> = (0..3).map(|_| h.packet(0, 1000)).collect();
        let m: Vec<_> = (0..3).map(|_| h.packet(1, 1000)).collect();
        for i in 0..3 {
            h.enqueue(&mut q, f[i]);
            h.enqueue(&mut q, m[i]);
        }
        let order: Vec<_> = std::iter::from_fn(|| h.dequeue(&mut q)).collect();
        assert_eq!(order, [f[0], m[0], m[1], f[1], m[2], f[2]]);
    }

    #[test]
    fn an_arrival_to_an_idle_server_starts_at_the_largest_finish_tag() {
        // v at idle = max finish served: after f's 1000 B packet (F = 1000) the server
        // empties; a later m packet gets S = 1000, not 0.
        let mut h = Harness::new();
        let mut q = build_stfq(&weighted(&[1.0, 1.0]), 2);
        let a = h.packet(0, 1000);
        h.enqueue(&mut q, a);
        assert_eq!(h.dequeue(&mut q), Some(a));
        assert_eq!(h.dequeue(&mut q), None); // the transmitter finds it empty: idle
        assert_eq!(q.virtual_time(), 1000u128 << 40);
        let b = h.packet(1, 10);
        h.enqueue(&mut q, b);
        assert_eq!(q.head_start(1), Some(1000u128 << 40));
    }

    #[test]
    fn arrivals_during_service_take_the_start_tag_of_the_packet_in_service() {
        let mut h = Harness::new();
        let mut q = build_stfq(&weighted(&[1.0, 1.0]), 2);
        let a = h.packet(0, 1000);
        let a2 = h.packet(0, 1000);
        h.enqueue(&mut q, a);
        h.enqueue(&mut q, a2);
        h.dequeue(&mut q); // a in service, S = 0
        h.dequeue(&mut q); // a2 in service, S = 1000
        let b = h.packet(1, 10);
        h.enqueue(&mut q, b); // queue empty but a2 still on the wire: v = 1000
        assert_eq!(q.head_start(1), Some(1000u128 << 40));
    }

    #[test]
    fn unmatched_packets_go_to_the_default_or_are_dropped() {
        let mut h = Harness::new();
        let mut q = build_stfq(&weighted(&[1.0]), 2);
        let p = h.packet(1, 100);
        assert_eq!(h.enqueue(&mut q, p), Verdict::Dropped);
        assert_eq!(h.dropped(), vec![(p, DropReason::Policy)]);
        let mut conf = weighted(&[1.0]);
        conf.default = Some("c0".into());
        let mut q = build_stfq(&conf, 2);
        let p = h.packet(1, 100);
        assert_eq!(h.enqueue(&mut q, p), Verdict::Queued);
    }

    #[test]
    fn per_class_limit_tail_drops() {
        let mut h = Harness::new();
        let mut conf = weighted(&[1.0, 1.0]);
        conf.classes[0].limit = Some(2);
        let mut q = build_stfq(&conf, 2);
        let p: Vec<_> = (0..3).map(|_| h.packet(0, 100)).collect();
        assert_eq!(h.enqueue(&mut q, p[0]), Verdict::Queued);
        assert_eq!(h.enqueue(&mut q, p[1]), Verdict::Queued);
        assert_eq!(h.enqueue(&mut q, p[2]), Verdict::Dropped);
        assert_eq!(h.dropped(), vec![(p[2], DropReason::QdiscOverflow)]);
    }

    #[test]
    fn without_classes_each_flow_gets_an_equal_queue() {
        // Two flows, sizes 1000 and 250: byte-fair alternation gives the small flow 4
        // packets per big packet.
        let mut h = Harness::new();
        let conf = StfqConf {
            classes: vec![],
            default: None,
            limit: 1000,
            rate: None,
        };
        let mut q = build_stfq(&conf, 2);
        for _ in 0..100 {
            let a = h.packet(0, 1000);
            h.packets.get_mut(a).tuple.src_port = 1;
            h.enqueue(&mut q, a);
            for _ in 0..4 {
                let b = h.packet(1, 250);
                h.packets.get_mut(b).tuple.src_port = 2;
                h.enqueue(&mut q, b);
            }
        }
        let mut bytes = [0u64; 2];
        for _ in 0..200 {
            let p = h.dequeue(&mut q).unwrap();
            bytes[h.packets.get(p).flow.0 as usize] += h.packets.size(p) as u64;
        }
        assert!(bytes[0].abs_diff(bytes[1]) <= 1250, "{bytes:?}");
    }

    #[test]
    fn cost_factor_scales_the_share_down() {
        // Equal weights, class 1 charged 3× its wire length: it gets a third of class 0's
        // bytes (seed 002: a station at a third of the PHY rate gets a third of the bits).
        let mut h = Harness::new();
        let conf = weighted(&[1.0, 1.0]);
        let mut q = build_stfq(&conf, 2);
        q.control().set_cost(1, 3.0, 0);
        for _ in 0..400 {
            for f in 0..2 {
                let p = h.packet(f, 500);
                h.enqueue(&mut q, p);
            }
        }
        let mut n = [0u32; 2];
        for _ in 0..400 {
            let p = h.dequeue(&mut q).unwrap();
            n[h.packets.get(p).flow.0 as usize] += 1;
        }
        assert_eq!(n, [300, 100]);
    }

    #[test]
    fn a_virtual_length_callback_overrides_class_costs() {
        let mut h = Harness::new();
        let mut q = build_stfq(&weighted(&[1.0, 1.0]), 2);
        // Flow 1's packets cost 4× (e.g. ADWISER's "an ACK costs an ACK and two data").
        q.set_virtual_length(Box::new(
            |p: &crate::packet::Packet, _c: usize, len: u32| {
                if p.flow.0 == 1 {
                    4 * len as u64
                } else {
                    len as u64
                }
            },
        ));
        for _ in 0..500 {
            for f in 0..2 {
                let p = h.packet(f, 100);
                h.enqueue(&mut q, p);
            }
        }
        let mut n = [0u32; 2];
        for _ in 0..500 {
            let p = h.dequeue(&mut q).unwrap();
            n[h.packets.get(p).flow.0 as usize] += 1;
        }
        assert_eq!(n, [400, 100]);
    }

    #[test]
    fn rate_spaces_releases_by_virtual_length_over_rate() {
        // ADWISER's virtual server at 1 Mbit/s: 1000 B (vlen) → 8 ms between releases;
        // a class with cost factor 2 → 16 ms after its packets.
        let mut h = Harness::new();
        let mut conf = weighted(&[1.0, 1.0]);
        conf.rate = Some(Rate(1_000_000));
        conf.classes[1].cost_factor = 2.0;
        let mut q = build_stfq(&conf, 2);
        for f in [0, 1, 0] {
            let p = h.packet(f, 1000);
            h.enqueue(&mut q, p);
        }
        let mut times = vec![];
        while q.len() > 0 {
            match h.dequeue(&mut q) {
                Some(_) => times.push(h.now.0),
                None => h.now = q.next_wakeup(h.now).unwrap(),
            }
        }
        // c0 (S 0), c1 (S 0), c0 (S 1000): gaps 8 ms then 16 ms.
        assert_eq!(times, [0, 8_000_000, 24_000_000]);
        q.control().set_rate(2_000_000);
        assert_eq!(q.control().rate(), 2_000_000);
    }

    /// Serves `arrivals` (time ns, flow, bytes) on a server of `rate_bps` through STFQ and
    /// checks Goyal et al.'s Theorem 1 on every interval of consecutive service decisions
    /// in which both flows stay backlogged.
    fn check_fairness_bound(weights: &[f64], arrivals: &[(u64, u32, u32)], rate_bps: u64) {
        let mut h = Harness::new();
        let mut q = build_stfq(&weighted(weights), weights.len());
        let n = weights.len();
        let mut lmax = vec![0u64; n];
        for a in arrivals {
            lmax[a.1 as usize] = lmax[a.1 as usize].max(a.2 as u64);
        }
        // Per decision: which flows are backlogged (have queued packets), who was served.
        let mut decisions: Vec<(Vec<bool>, usize, u64)> = Vec::new();
        let mut i = 0;
        let mut free_at = 0u64;
        loop {
            // Admit arrivals up to the moment the server is free.
            while i < arrivals.len() && arrivals[i].0 <= free_at {
                h.now = SimTime(arrivals[i].0.max(h.now.0));
                let p = h.packet(arrivals[i].1, arrivals[i].2);
                h.enqueue(&mut q, p);
                i += 1;
            }
            h.now = SimTime(free_at.max(h.now.0));
            let backlogged: Vec<bool> = (0..n).map(|c| q.head_start(c).is_some()).collect();
            match h.dequeue(&mut q) {
                Some(p) => {
                    let (f, len) = (h.packets.get(p).flow.0 as usize, h.packets.size(p) as u64);
                    decisions.push((backlogged, f, len));
                    free_at = h.now.0 + len * 8_000_000_000 / rate_bps;
                    h.packets.free(p);
                }
                None if i < arrivals.len() => free_at = arrivals[i].0,
                None => break,
            }
        }
        for f in 0..n {
            for m in (f + 1)..n {
                let bound = lmax[f] as f64 / weights[f] + lmax[m] as f64 / weights[m];
                for k1 in 0..decisions.len() {
                    let (mut wf, mut wm) = (0u64, 0u64);
                    for d in &decisions[k1..] {
                        if !(d.0[f] && d.0[m]) {
                            break;
                        }
                        if d.1 == f {
                            wf += d.2;
                        }
                        if d.1 == m {
                            wm += d.2;
                        }
                        let gap = (wf as f64 / weights[f] - wm as f64 / weights[m]).abs();
                        assert!(
                            gap <= bound + 1e-9,
                            "flows {f},{m}: |W_f/r_f − W_m/r_m| = {gap} > {bound}"
                        );
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Goyal, Vin & Cheng (ToN 1997), Theorem 1: the STFQ fairness bound holds over
        /// random weights, packet sizes and arrival processes.
        #[test]
        fn fairness_bound_holds_over_random_arrivals(
            weights in prop::collection::vec(0.1f64..10.0, 2..5),
            seed in any::<u64>(),
            mean_gap_us in 50u64..2000,
        ) {
            let mut rng = stream(seed, "test:stfq:arrivals");
            let mut t = 0u64;
            let arrivals: Vec<(u64, u32, u32)> = (0..400)
                .map(|_| {
                    t += rng.random_range(0..2 * mean_gap_us * 1000);
                    let f = rng.random_range(0..weights.len() as u32);
                    (t, f, rng.random_range(40..1500))
                })
                .collect();
            check_fairness_bound(&weights, &arrivals, 10_000_000);
        }
    }
}
