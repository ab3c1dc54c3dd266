//! `fq_codel`: Fair Queuing with Controlled Delay (RFC 8290) as Linux implements it
//! (`net/sched/sch_fq_codel.c`).
//!
//! Packets are hashed by 5-tuple into `flows` queues, each under its own CoDel
//! ([`super::codel`]). A deficit round robin with two lists serves them: a flow that
//! becomes active joins `new_flows` with one quantum of credit and is served before the
//! `old_flows`, so sparse flows (VoIP, DNS, TCP handshakes) pass with almost no queueing;
//! a flow that uses up its quantum moves to the tail of `old_flows`. When the qdisc holds
//! more than `limit` packets (or `memory_limit` bytes), the flow with the largest backlog
//! loses packets from its head, up to half its bytes or `drop_batch` packets, and its CoDel
//! `count` grows by as many (Linux `fq_codel_drop`).
//!
//! Differences from Linux, all documented at their parameter: memory is counted as packet
//! bytes (Linux counts `skb->truesize`, which includes the sk_buff overhead), `ce_threshold`
//! and the flow classifier hook are not modelled. The flow hash is [`flow_hash`] keyed by a
//! per-qdisc random value (Linux: `skb_get_hash`, keyed per boot), scaled to `flows` with
//! Linux's `reciprocal_scale`.
//!
//! **On a virtual device** (several member interfaces behind one qdisc, see `qdisc`) a
//! member asking for a packet walks `new_flows`, then `old_flows`, from the front to the
//! first flow in its view, and applies the fq_codel rule to that flow with its own
//! packets: a flow out of deficit gets a quantum and moves to the tail of `old_flows`; a
//! flow whose CoDel finds nothing more for the member leaves its list as Linux's empty
//! flows do (a new flow through `old_flows`). Flows of other members keep their places,
//! deficits, list membership and CoDel states. Routing is per destination, so a flow's
//! packets all leave by one interface: each member sees fq_codel's new/old round robin
//! over its own flows, with CoDel per flow, exactly as if its packets were the whole
//! input. CoDel's `backlog ≤ mtu` test looks at the asking member's backlog (Linux: the
//! qdisc's, which on a real interface is the same). `limit`, `memory_limit` and the
//! fat-flow drop stay shared (one buffer). Flows of two members that collide in one hash
//! bucket share one queue, its deficit and its CoDel, as colliding flows do in Linux;
//! each member takes its own oldest packet from it, and the flow stays listed while the
//! other member's packets remain.

use super::classify::flow_hash;
use super::codel::{
    codel_dequeue, codel_duration, default_interval, default_target, CodelParams, CodelQueue,
    CodelVars,
};
use super::member_lanes::Lanes;
use super::peek_stash::PeekStash;
use super::{Qdisc, QdiscCtx, Verdict};
use crate::conf::{Bytes, Duration};
use crate::packet::{DropReason, PacketId};
use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Parameters of `fq_codel` (`tc qdisc add … fq_codel [limit N] [flows N] [quantum B]
/// [target T] [interval I] [ecn|noecn] [memory_limit B] [drop_batch N]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqCodelConf {
    /// Maximum queued packets over all flows. Default: 10240.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1))]
    pub limit: u32,
    /// Number of flow queues (hash buckets). Default: 1024.
    #[serde(default = "default_flows")]
    #[schemars(range(min = 1, max = 65536))]
    pub flows: u32,
    /// Bytes a flow may send per round. Default: the device's psched_mtu (MTU plus link
    /// overhead: 1514 on Ethernet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub quantum: Option<u32>,
    /// CoDel's acceptable standing delay, per flow. Default: 5ms.
    #[serde(default = "default_target")]
    pub target: Duration,
    /// CoDel's interval. Default: 100ms.
    #[serde(default = "default_interval")]
    pub interval: Duration,
    /// Mark ECN-capable packets CE instead of dropping them (Not-ECT packets are dropped).
    /// Default: true (Linux fq_codel).
    #[serde(default = "default_true")]
    pub ecn: bool,
    /// Maximum bytes queued before the fat flow loses packets. Default: 32 MiB. (Linux counts
    /// skb->truesize; here packet bytes.)
    #[serde(default = "default_memory_limit")]
    pub memory_limit: Bytes,
    /// At most this many packets are dropped from the fat flow per overflow. Default: 64.
    #[serde(default = "default_drop_batch")]
    #[schemars(range(min = 1))]
    pub drop_batch: u32,
}

fn default_limit() -> u32 {
    10240
}
fn default_flows() -> u32 {
    1024
}
fn default_true() -> bool {
    true
}
fn default_memory_limit() -> Bytes {
    Bytes(32 << 20)
}
fn default_drop_batch() -> u32 {
    64
}

impl Default for FqCodelConf {
    fn default() -> Self {
        FqCodelConf {
            limit: default_limit(),
            flows: default_flows(),
            quantum: None,
            target: default_target(),
            interval: default_interval(),
            ecn: true,
            memory_limit: default_memory_limit(),
            drop_batch: default_drop_batch(),
        }
    }
}

/// Which list a flow is on (Linux: `flowchain`, empty when on none).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Listed {
    No,
    New,
    Old,
}

struct Flow {
    packets: FlowQueue,
    deficit: i32,
    vars: CodelVars,
    listed: Listed,
}

/// The packets of one flow queue, with the interface they leave by.
#[derive(Default)]
struct FlowQueue {
    queue: VecDeque<PacketId>,
    backlog: u32,
    /// On a virtual device: the interface (`out_iface`) of the packet that made the queue
    /// non-empty, and how many queued packets leave by another one (flows of two members
    /// colliding in a bucket). With `others == 0` every packet is for `iface`.
    iface: u32,
    others: u32,
}

impl FlowQueue {
    #[inline]
    fn push(&mut self, pkt: PacketId, len: u32) {
        self.queue.push_back(pkt);
        self.backlog += len;
    }

    /// `push` on a virtual device: also tracks the packets' interfaces.
    #[inline]
    fn push_tracked(&mut self, pkt: PacketId, len: u32, out: u32) {
        if self.queue.is_empty() {
            self.iface = out;
        } else if out != self.iface {
            self.others += 1;
        }
        self.push(pkt, len);
    }

    /// Sets `iface` and `others` from the queued packets (when a virtual device's member
    /// first asks).
    fn track(&mut self, ctx: &QdiscCtx) {
        let out = |p: PacketId| ctx.packets.get(p).out_iface;
        self.iface = self.queue.front().map_or(0, |&p| out(p));
        self.others = self.queue.iter().filter(|&&p| out(p) != self.iface).count() as u32;
    }

    /// Removes the head packet; returns it with its length.
    #[inline]
    fn pop(&mut self, ctx: &QdiscCtx) -> Option<(PacketId, u32)> {
        let p = self.queue.pop_front()?;
        let len = ctx.len_of(p);
        self.backlog -= len;
        Some((p, len))
    }

    /// Position of member `m`'s oldest packet.
    #[inline]
    fn position_for(&self, m: u32, ctx: &QdiscCtx) -> Option<usize> {
        if self.others > 0 {
            self.queue
                .iter()
                .position(|&p| ctx.packets.get(p).out_iface == m)
        } else {
            (m == self.iface && !self.queue.is_empty()).then_some(0)
        }
    }

    /// Whether the queue is in member `m`'s view: it holds a packet for `m`, or it is an
    /// empty queue `m`'s packets last used (Linux's dequeue visits such a queue to take it
    /// off its list).
    #[inline]
    fn seen_by(&self, m: u32, ctx: &QdiscCtx) -> bool {
        self.iface == m
            || (self.others > 0
                && self
                    .queue
                    .iter()
                    .any(|&p| ctx.packets.get(p).out_iface == m))
    }

    /// `pop` of the packet at `at` on a virtual device; returns it with its length and
    /// interface.
    #[inline]
    fn take_tracked(&mut self, at: usize, ctx: &QdiscCtx) -> (PacketId, u32, u32) {
        let p = match at {
            0 => self.queue.pop_front(),
            _ => self.queue.remove(at),
        }
        .expect("position in the flow queue");
        let (len, out) = (ctx.len_of(p), ctx.packets.get(p).out_iface);
        if out != self.iface {
            self.others -= 1;
        }
        self.backlog -= len;
        (p, len, out)
    }
}

/// Qdisc-wide counters.
#[derive(Default)]
struct Totals {
    qlen: usize,
    backlog: u64,
    memory: u64,
    /// On a virtual device: bytes queued per member interface (created at the first
    /// request of a member).
    members: Option<Lanes<u64>>,
}

impl Totals {
    /// A packet of `len` bytes leaving by `out` left the qdisc.
    #[inline]
    fn remove(&mut self, len: u32, out: Option<u32>) {
        self.qlen -= 1;
        self.backlog -= len as u64;
        self.memory -= len as u64;
        if let (Some(lanes), Some(out)) = (&mut self.members, out) {
            if let Some(b) = lanes.get_mut(out) {
                *b -= len as u64;
            }
        }
    }
}

/// The counters the CoDel of one flow updates as it dequeues on a real interface.
struct FlowView<'a> {
    packets: &'a mut FlowQueue,
    total: &'a mut Totals,
}

impl CodelQueue for FlowView<'_> {
    #[inline]
    fn pop(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let (p, len) = self.packets.pop(ctx)?;
        self.total.remove(len, None);
        Some(p)
    }
    #[inline]
    fn backlog(&self) -> u64 {
        // Linux passes the qdisc's backlog (`sch->qstats.backlog`), not the flow's.
        self.total.backlog
    }
}

/// The same for member `member` of a virtual device: it takes the member's packets only
/// and judges the member's backlog (its lane `lane` in `total.members`).
struct MemberFlowView<'a> {
    packets: &'a mut FlowQueue,
    total: &'a mut Totals,
    member: u32,
    lane: usize,
}

impl CodelQueue for MemberFlowView<'_> {
    #[inline]
    fn pop(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let at = self.packets.position_for(self.member, ctx)?;
        let (p, len, out) = self.packets.take_tracked(at, ctx);
        self.total.remove(len, Some(out));
        Some(p)
    }
    #[inline]
    fn backlog(&self) -> u64 {
        self.total
            .members
            .as_ref()
            .map_or(0, |lanes| *lanes.at(self.lane))
    }
}

/// Counters `tc -s qdisc show` prints for fq_codel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FqCodelStats {
    /// Packets dropped by CoDel.
    pub aqm_drops: u64,
    /// Packets dropped because `limit` or `memory_limit` was exceeded (`drop_overlimit`).
    pub overlimit_drops: u64,
    /// Flows that became active (`new_flow_count`).
    pub new_flow_count: u64,
}

pub struct FqCodel {
    flows: Vec<Flow>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    totals: Totals,
    limit: u32,
    memory_limit: u64,
    drop_batch: u32,
    quantum: i32,
    params: CodelParams,
    perturbation: u64,
    stash: PeekStash,
    stats: FqCodelStats,
}

impl FqCodel {
    /// An fq_codel for a device of psched_mtu `mtu`, its hash keyed by `perturbation`.
    pub fn new(conf: &FqCodelConf, mtu: u32, perturbation: u64) -> Self {
        FqCodel {
            flows: (0..conf.flows)
                .map(|_| Flow {
                    packets: FlowQueue::default(),
                    deficit: 0,
                    vars: CodelVars::default(),
                    listed: Listed::No,
                })
                .collect(),
            new_flows: VecDeque::with_capacity(conf.flows as usize),
            old_flows: VecDeque::with_capacity(conf.flows as usize),
            totals: Totals::default(),
            limit: conf.limit,
            memory_limit: conf.memory_limit.0,
            drop_batch: conf.drop_batch,
            quantum: conf.quantum.unwrap_or(mtu).min(i32::MAX as u32) as i32,
            params: CodelParams {
                target: codel_duration(conf.target),
                interval: codel_duration(conf.interval),
                mtu,
                ecn: conf.ecn,
            },
            perturbation,
            stash: PeekStash::default(),
            stats: FqCodelStats::default(),
        }
    }

    /// Builds from the scenario: the hash key comes from the qdisc's own random stream.
    pub fn from_conf(conf: &FqCodelConf, b: &super::BuildCtx) -> Self {
        FqCodel::new(conf, b.dev.psched_mtu, b.rng("hash").random())
    }

    pub fn stats(&self) -> FqCodelStats {
        self.stats
    }

    /// The flow queue a packet hashes to (Linux `fq_codel_hash`: `reciprocal_scale`).
    #[inline]
    fn flow_of(&self, pkt: PacketId, ctx: &QdiscCtx) -> usize {
        let h = flow_hash(&ctx.packets.get(pkt).tuple, self.perturbation);
        ((h as u64 * self.flows.len() as u64) >> 32) as usize
    }

    /// Linux `fq_codel_drop`: head-drops from the fattest flow until half its bytes or
    /// `max_packets` are gone; returns the flow.
    fn drop_from_fat_flow(&mut self, max_packets: u32, ctx: &mut QdiscCtx) -> usize {
        let mut idx = 0;
        let mut max_backlog = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.packets.backlog > max_backlog {
                max_backlog = f.packets.backlog;
                idx = i;
            }
        }
        let threshold = max_backlog >> 1;
        let flow = &mut self.flows[idx];
        let (mut len, mut i) = (0u32, 0u32);
        let tracked = self.totals.members.is_some();
        while !flow.packets.queue.is_empty() {
            let (p, l, out) = if tracked {
                let (p, l, out) = flow.packets.take_tracked(0, ctx);
                (p, l, Some(out))
            } else {
                let (p, l) = flow.packets.pop(ctx).expect("non-empty");
                (p, l, None)
            };
            self.totals.remove(l, out);
            ctx.drop_packet(p, DropReason::QdiscOverflow);
            len += l;
            i += 1;
            if i >= max_packets || len >= threshold {
                break;
            }
        }
        // Tell CoDel to increase its signal strength too.
        flow.vars.count = flow.vars.count.wrapping_add(i);
        self.stats.overlimit_drops += i as u64;
        idx
    }

    fn dequeue_inner(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        loop {
            let (from_new, idx) = match self.new_flows.front() {
                Some(&i) => (true, i as usize),
                None => (false, *self.old_flows.front()? as usize),
            };
            let flow = &mut self.flows[idx];
            if flow.deficit <= 0 {
                flow.deficit += self.quantum;
                flow.listed = Listed::Old;
                self.pop_list(from_new);
                self.old_flows.push_back(idx as u32);
                continue;
            }
            let Flow { packets, vars, .. } = flow;
            let mut view = FlowView {
                packets,
                total: &mut self.totals,
            };
            let mut drops = 0;
            let got = codel_dequeue(&mut view, &self.params, vars, ctx, &mut drops);
            self.stats.aqm_drops += drops as u64;
            match got {
                None => {
                    // Force a pass through old_flows to prevent starvation.
                    self.pop_list(from_new);
                    if from_new && !self.old_flows.is_empty() {
                        self.flows[idx].listed = Listed::Old;
                        self.old_flows.push_back(idx as u32);
                    } else {
                        self.flows[idx].listed = Listed::No;
                    }
                }
                Some(p) => {
                    self.flows[idx].deficit -= ctx.len_of(p) as i32;
                    return Some(p);
                }
            }
        }
    }

    /// The fq_codel decision for member `m` of a virtual device: the lists are walked
    /// (`new_flows` first) to the first flow in `m`'s view, and the rule of
    /// [`Self::dequeue_inner`] is applied to it with `m`'s packets only; flows of other
    /// members keep their places, deficits and CoDel states (see the module documentation).
    #[inline(never)]
    fn dequeue_for_member(&mut self, m: u32, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let lane = self.member_lane(m, ctx);
        let (mut from_new, mut pos) = (true, 0);
        loop {
            let list = if from_new {
                &self.new_flows
            } else {
                &self.old_flows
            };
            let Some(&i) = list.get(pos) else {
                if from_new {
                    (from_new, pos) = (false, 0);
                    continue;
                }
                return None;
            };
            let idx = i as usize;
            if !self.flows[idx].packets.seen_by(m, ctx) {
                pos += 1;
                continue;
            }
            let flow = &mut self.flows[idx];
            if flow.deficit <= 0 {
                flow.deficit += self.quantum;
                flow.listed = Listed::Old;
                self.list_mut(from_new).remove(pos);
                self.old_flows.push_back(idx as u32);
                continue;
            }
            let Flow { packets, vars, .. } = flow;
            let mut view = MemberFlowView {
                packets,
                total: &mut self.totals,
                member: m,
                lane,
            };
            let mut drops = 0;
            let got = codel_dequeue(&mut view, &self.params, vars, ctx, &mut drops);
            self.stats.aqm_drops += drops as u64;
            match got {
                Some(p) => {
                    self.flows[idx].deficit -= ctx.len_of(p) as i32;
                    return Some(p);
                }
                None if self.flows[idx].packets.queue.is_empty() => {
                    // As Linux does with an empty flow: off the list, a new flow through
                    // old_flows first if the member has old flows.
                    self.list_mut(from_new).remove(pos);
                    if from_new && self.has_old_flows(m, ctx) {
                        self.flows[idx].listed = Listed::Old;
                        self.old_flows.push_back(idx as u32);
                    } else {
                        self.flows[idx].listed = Listed::No;
                    }
                }
                // Only other members' packets are left: the flow keeps its place for them.
                None => pos += 1,
            }
        }
    }

    /// Member `m`'s lane of backlog. At the first request of any member the qdisc starts
    /// tracking members: the queued packets join their lanes and flows.
    fn member_lane(&mut self, m: u32, ctx: &QdiscCtx) -> usize {
        if self.totals.members.is_none() {
            let mut lanes = Lanes::default();
            for f in &mut self.flows {
                f.packets.track(ctx);
                for &p in &f.packets.queue {
                    let pk = ctx.packets.get(p);
                    *lanes.get_or_insert_with(pk.out_iface, || 0) += ctx.len_of(p) as u64;
                }
            }
            self.totals.members = Some(lanes);
        }
        let lanes = self.totals.members.as_mut().expect("tracking members");
        lanes.index_or_insert_with(m, || 0)
    }

    /// Whether member `m` has a flow on `old_flows` (Linux: `!list_empty(&q->old_flows)`,
    /// the list as `m` alone would have it).
    fn has_old_flows(&self, m: u32, ctx: &QdiscCtx) -> bool {
        self.old_flows
            .iter()
            .any(|&i| self.flows[i as usize].packets.seen_by(m, ctx))
    }

    #[inline]
    fn list_mut(&mut self, new: bool) -> &mut VecDeque<u32> {
        if new {
            &mut self.new_flows
        } else {
            &mut self.old_flows
        }
    }

    #[inline]
    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }
}

impl Qdisc for FqCodel {
    fn kind(&self) -> &'static str {
        "fq_codel"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let idx = self.flow_of(pkt, ctx);
        let len = ctx.len_of(pkt);
        let p = ctx.packets.get_mut(pkt);
        p.enqueued = ctx.now;
        let out = p.out_iface;
        let flow = &mut self.flows[idx];
        match &mut self.totals.members {
            None => flow.packets.push(pkt, len),
            Some(lanes) => {
                flow.packets.push_tracked(pkt, len, out);
                *lanes.get_or_insert_with(out, || 0) += len as u64;
            }
        }
        self.totals.backlog += len as u64;
        if flow.listed == Listed::No {
            flow.listed = Listed::New;
            flow.deficit = self.quantum;
            self.new_flows.push_back(idx as u32);
            self.stats.new_flow_count += 1;
        }
        self.totals.memory += len as u64;
        let memory_limited = self.totals.memory > self.memory_limit;
        self.totals.qlen += 1;
        if self.len() <= self.limit as usize && !memory_limited {
            return Verdict::Queued;
        }
        let fat = self.drop_from_fat_flow(self.drop_batch, ctx);
        // Drops are from the head, so the arrival (at the tail) went iff its flow emptied.
        if fat == idx && self.flows[idx].packets.queue.is_empty() {
            Verdict::Dropped
        } else {
            Verdict::Congested
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        if let Some(p) = self.stash.take(ctx.member) {
            return Some(p);
        }
        match ctx.member {
            None => self.dequeue_inner(ctx),
            Some(m) => self.dequeue_for_member(m, ctx),
        }
    }

    /// Linux's `qdisc_peek_dequeued` (per asking member on a virtual device).
    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
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
        self.totals.qlen + self.stash.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.totals.backlog + self.stash.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimTime;
    use crate::packet::{FiveTuple, Protocol};
    use crate::qdisc::testing::Harness;

    fn tuple(port: u16) -> FiveTuple {
        FiveTuple {
            src_addr: 0x0A00_0001,
            dst_addr: 0x0A00_0002,
            src_port: port,
            dst_port: 5001,
            protocol: Protocol::Udp,
        }
    }

    fn pkt(h: &mut Harness, port: u16, size: u32) -> PacketId {
        let p = h.packet(port as u32, size);
        h.packets.get_mut(p).tuple = tuple(port);
        p
    }

    /// Two ports that hash to different flows of `q`.
    fn distinct_ports(q: &FqCodel, h: &mut Harness, n: usize) -> Vec<u16> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        let mut port = 1000;
        while out.len() < n {
            let p = pkt(h, port, 100);
            let ctx = QdiscCtx::new(h.now, &mut h.packets, &h.dev, &mut h.drops);
            if seen.insert(q.flow_of(p, &ctx)) {
                out.push(port);
            }
            h.packets.free(p);
            port += 1;
        }
        out
    }

    #[test]
    fn a_new_sparse_flow_is_served_before_backlogged_old_flows() {
        // RFC 8290 §4.2 / Linux: new flows first.
        let mut h = Harness::new();
        let mut q = FqCodel::new(&FqCodelConf::default(), 1514, 7);
        let ports = distinct_ports(&q, &mut h, 2);
        for _ in 0..20 {
            let p = pkt(&mut h, ports[0], 1500);
            h.enqueue(&mut q, p);
        }
        // Bulk flow: one packet out (its deficit 1514 − 1500 > 0), then it is still new;
        // a second packet exhausts it and moves it to old.
        h.dequeue(&mut q);
        h.dequeue(&mut q);
        let voice = pkt(&mut h, ports[1], 200);
        h.enqueue(&mut q, voice);
        assert_eq!(h.dequeue(&mut q), Some(voice));
    }

    #[test]
    fn flows_get_byte_fair_shares_per_round() {
        // DRR (Shreedhar & Varghese): with quantum 1514, a flow of 300 B packets sends 5×300
        // = 1500 B (deficit 14 > 0 → a 6th packet) per round while a flow of 1500 B packets
        // sends 1500 B (deficit 14 > 0 → a 2nd packet, 3000 B) … over many rounds both get
        // equal bytes within one quantum.
        let mut h = Harness::new();
        let mut q = FqCodel::new(&FqCodelConf::default(), 1514, 7);
        let ports = distinct_ports(&q, &mut h, 2);
        for _ in 0..2000 {
            let a = pkt(&mut h, ports[0], 300);
            h.enqueue(&mut q, a);
        }
        for _ in 0..400 {
            let b = pkt(&mut h, ports[1], 1500);
            h.enqueue(&mut q, b);
        }
        let mut bytes = [0u64; 2];
        for _ in 0..1200 {
            let p = h.dequeue(&mut q).unwrap();
            let port = h.packets.get(p).tuple.src_port;
            bytes[(port == ports[1]) as usize] += h.packets.size(p) as u64;
            h.packets.free(p);
        }
        let diff = bytes[0].abs_diff(bytes[1]);
        assert!(diff <= 2 * 1514, "{bytes:?}");
    }

    #[test]
    fn overflow_head_drops_half_of_the_fattest_flow() {
        // Linux fq_codel_drop: the fat flow loses packets from its head until half of its
        // bytes (or drop_batch packets) are gone; CoDel's count grows by as many.
        let mut h = Harness::new();
        let conf = FqCodelConf {
            limit: 10,
            ..FqCodelConf::default()
        };
        let mut q = FqCodel::new(&conf, 1514, 7);
        let ports = distinct_ports(&q, &mut h, 2);
        let fat: Vec<_> = (0..8).map(|_| pkt(&mut h, ports[0], 1000)).collect();
        for &p in &fat {
            h.enqueue(&mut q, p);
        }
        for _ in 0..2 {
            let p = pkt(&mut h, ports[1], 100);
            assert_eq!(h.enqueue(&mut q, p), Verdict::Queued);
        }
        let p = pkt(&mut h, ports[1], 100);
        assert_eq!(h.enqueue(&mut q, p), Verdict::Congested);
        let dropped: Vec<_> = h.dropped();
        // 8000 B backlog → threshold 4000 B → 4 packets of 1000 B, the oldest ones.
        assert_eq!(
            dropped,
            fat[..4]
                .iter()
                .map(|&p| (p, DropReason::QdiscOverflow))
                .collect::<Vec<_>>()
        );
        let i = q.flow_of(
            fat[4],
            &QdiscCtx::new(h.now, &mut h.packets, &h.dev, &mut h.drops),
        );
        assert_eq!(q.flows[i].vars.count, 4);
        assert_eq!(q.len(), 7);
        assert_eq!(q.stats().overlimit_drops, 4);
    }

    #[test]
    fn an_arrival_that_is_the_whole_fat_flow_is_reported_dropped() {
        let mut h = Harness::new();
        let conf = FqCodelConf {
            limit: 1,
            ..FqCodelConf::default()
        };
        let mut q = FqCodel::new(&conf, 1514, 7);
        let ports = distinct_ports(&q, &mut h, 2);
        let a = pkt(&mut h, ports[0], 100);
        assert_eq!(h.enqueue(&mut q, a), Verdict::Queued);
        let b = pkt(&mut h, ports[1], 1000);
        assert_eq!(h.enqueue(&mut q, b), Verdict::Dropped);
        assert_eq!(h.dropped(), vec![(b, DropReason::QdiscOverflow)]);
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn codel_runs_per_flow_and_drops_with_reason_aqm() {
        // One flow kept 20 ms deep for a second: CoDel (target 5 ms, interval 100 ms) must
        // drop; a packet is dequeued every 1 ms and two arrive every 2 ms plus the initial
        // 20-packet standing queue.
        let mut h = Harness::new();
        let mut q = FqCodel::new(&FqCodelConf::default(), 1514, 7);
        let ports = distinct_ports(&q, &mut h, 1);
        for _ in 0..20 {
            let p = pkt(&mut h, ports[0], 1000);
            h.enqueue(&mut q, p);
        }
        for ms in 0..1000u64 {
            h.now = SimTime::from_millis(ms);
            let p = pkt(&mut h, ports[0], 1000);
            h.enqueue(&mut q, p);
            if let Some(p) = h.dequeue(&mut q) {
                h.packets.free(p);
            }
        }
        let drops = h.dropped();
        assert!(!drops.is_empty());
        assert!(drops.iter().all(|(_, r)| *r == DropReason::Aqm));
        assert_eq!(q.stats().aqm_drops, drops.len() as u64);
    }

    #[test]
    fn peek_returns_what_dequeue_then_returns() {
        let mut h = Harness::new();
        let mut q = FqCodel::new(&FqCodelConf::default(), 1514, 7);
        let ports = distinct_ports(&q, &mut h, 2);
        let a = pkt(&mut h, ports[0], 500);
        let b = pkt(&mut h, ports[1], 500);
        h.enqueue(&mut q, a);
        h.enqueue(&mut q, b);
        let mut ctx = QdiscCtx::new(h.now, &mut h.packets, &h.dev, &mut h.drops);
        let peeked = q.peek(&mut ctx);
        assert_eq!(q.len(), 2);
        assert_eq!(q.backlog_bytes(), 1000);
        assert_eq!(q.dequeue(&mut ctx), peeked);
        assert_eq!(q.len(), 1);
    }
}
