//! The stepping API of live mode (`crate::live`, docs/live.md): a simulation built with
//! some hosts real is driven from outside by a real-time loop, which runs the events up to
//! a time ([`Simulation::run_until`]), puts packets a real host wrote at its node
//! ([`Simulation::inject`]) and takes the packets delivered to real hosts
//! ([`Simulation::take_delivered`]).
//!
//! Nothing here is on the path of a simulated packet: a real host's delivery is a node hook
//! (the receive path of a tunnel device, `hook/mod.rs`) that holds each packet addressed to
//! its node until the loop takes it, so `forward::deliver` and the run loop are unchanged;
//! the packets' bytes live in [`RealHosts`], a side table indexed by arena slot that only a
//! live simulation allocates (a simulated run carries `None`).

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::rc::Rc;

use super::{BuildOptions, Endpoint, FlowRt, Simulation};
use crate::conf::ScenarioError;
use crate::engine::{Next, SimTime};
use crate::hook::{HookCtx, HookVerdict, NodeHook};
use crate::metrics::{FlowStats, LatencyStats};
use crate::packet::real::{self, RealHeader, Unsupported};
use crate::packet::{DropReason, FiveTuple, FlowId, Location, NodeId, Packet, PacketId, Protocol};
use crate::scenario::Scenario;
use crate::topology::IfaceId;

/// What [`Simulation::run_due`] ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ran {
    /// Events run (as counted in `summary.json`'s `events`).
    pub events: u64,
    /// Events and timers run whose due time was before the `late_before` asked.
    pub late: u64,
    /// The earliest due time of any event or timer run (they run in time order).
    pub earliest: Option<SimTime>,
}

/// Packets held for one real host: (handle, the time the emulated network released it).
type Outbox = Rc<RefCell<Vec<(PacketId, SimTime)>>>;

/// The real hosts of a live simulation and the bytes of their packets in flight.
pub struct RealHosts {
    /// Real nodes, in scenario order, with their addresses.
    pub nodes: Vec<(NodeId, String, u32)>,
    /// Every node's address (real or emulated): where a real packet is going. Both maps are
    /// looked up for every packet read and use FxHash, as the event queue does: their keys
    /// come from the run's own real hosts, so SipHash's resistance to chosen keys buys
    /// nothing here and costs a share of a small packet (docs/live.md#throughput).
    by_addr: FxHashMap<u32, NodeId>,
    /// The flow of each real 5-tuple seen so far.
    flow_of: FxHashMap<FiveTuple, u32>,
    /// A real packet's bytes, by arena slot (buffers reused as slots are).
    bytes: Vec<Vec<u8>>,
    outboxes: Vec<(NodeId, Outbox)>,
    /// The emulated routers' ICMP error rate limit, per destination.
    icmp_limit: IcmpRateLimit,
    /// Counters for the conservation of real packets.
    pub counts: RealCounts,
}

/// Real packets, counted: every packet read is `unsupported`, `injected`, or an `answer`,
/// and every injected packet is written, dropped (with a reason, in the flows table),
/// `absorbed` or in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RealCounts {
    pub read: u64,
    pub unsupported: u64,
    pub injected: u64,
    pub written: u64,
    pub dropped: u64,
    pub in_flight: u64,
    /// Echo replies of real hosts to an emulated node's pings (`[[flows]]` with a ping
    /// app to a real host): they enter as the ping flow's replies and count in its ledger.
    pub answers: u64,
    /// Real ICMP packets that ended at an emulated node (an echo reply or an error
    /// addressed to it; an echo request is answered and its reply written).
    pub absorbed: u64,
    /// The emulator's own packets written to real hosts: its pings' echo requests.
    pub probes: u64,
    /// ICMP Time Exceeded messages the emulated routers sent to real hosts (a real packet's
    /// TTL ran out there: traceroute). They travel back like real packets, so
    /// `injected + errors = written + dropped + absorbed + in_flight`.
    pub errors: u64,
    /// Time Exceeded messages not sent: Linux's per-destination rate limit
    /// (`icmp_ratelimit`) held them back.
    pub errors_limited: u64,
    /// The largest packet written to a real host, in bytes: evidence that what the model
    /// scheduled was wire-sized (at most the TUN's MTU), never a GSO super-packet.
    pub max_written_bytes: u64,
}

/// Linux's ICMP rate limit (`icmpv4_xrlim_allow` → `inet_peer_xrlim_allow`, sysctl
/// `icmp_ratelimit` = 1000 ms with `XRLIM_BURST_FACTOR` 6): per destination, a token bucket
/// that gains one nanosecond a nanosecond up to six seconds, and an error costs one second;
/// a destination not seen before starts full (Linux's peer starts at time 0). So a burst
/// of six errors, then one a second: traceroute's three probes a hop pass. Linux's global
/// limit (`icmp_msgs_per_sec` 1000, burst 50) is not modelled.
#[derive(Default)]
struct IcmpRateLimit {
    peers: FxHashMap<u32, (u64, SimTime)>,
}

impl IcmpRateLimit {
    const COST_NS: u64 = 1_000_000_000;
    const BURST_NS: u64 = 6 * Self::COST_NS;

    /// Whether an error to `dst` may be sent now (and if so, pays for it).
    fn allow(&mut self, dst: u32, now: SimTime) -> bool {
        let (tokens, last) = self.peers.entry(dst).or_insert((Self::BURST_NS, now));
        *tokens = (*tokens + (now.0 - last.0)).min(Self::BURST_NS);
        *last = now;
        if *tokens < Self::COST_NS {
            return false;
        }
        *tokens -= Self::COST_NS;
        true
    }
}

/// The receive path of a real host: holds each packet addressed to the node for the live
/// loop (a real host forwards nothing; any other packet passes, and is dropped as having no
/// route on, as a host would).
struct RealHostHook {
    node: NodeId,
    name: String,
    outbox: Outbox,
}

impl NodeHook for RealHostHook {
    fn name(&self) -> &str {
        &self.name
    }

    fn on_arrival(&mut self, pkt: PacketId, _iface: IfaceId, cx: &mut HookCtx<'_>) -> HookVerdict {
        if cx.packets.get(pkt).dst_node != self.node {
            return HookVerdict::Pass;
        }
        self.outbox.borrow_mut().push((pkt, cx.now));
        HookVerdict::Hold
    }

    fn held(&self) -> u64 {
        self.outbox.borrow().len() as u64
    }
}

impl Simulation {
    /// Builds a scenario for live mode: each `real` node gets its receive hook and the
    /// simulation its [`RealHosts`]. A scenario without real hosts is refused.
    pub fn build_live(s: &Scenario, mut opts: BuildOptions) -> Result<Simulation, ScenarioError> {
        let real: Vec<&str> = s
            .nodes
            .iter()
            .filter(|n| n.real)
            .map(|n| n.name.as_str())
            .collect();
        if real.is_empty() {
            let mut e = ScenarioError::default();
            e.push(
                "nodes",
                "no node is real: mark the hosts whose programs take part with `real = true`",
            );
            return Err(e);
        }
        let mut outboxes = Vec::new();
        for name in &real {
            let outbox: Outbox = Rc::default();
            outboxes.push(outbox.clone());
            let idx = s
                .nodes
                .iter()
                .position(|n| n.name == *name)
                .expect("a node");
            opts.hooks.push((
                name.to_string(),
                Box::new(RealHostHook {
                    node: NodeId(idx as u32),
                    name: format!("real host {name}"),
                    outbox,
                }),
            ));
        }
        let mut sim = Simulation::build(s, opts)?;
        let mut nodes = Vec::new();
        let mut boxes = Vec::new();
        for (name, outbox) in real.iter().zip(outboxes) {
            let i = sim
                .nodes
                .iter()
                .position(|n| n.name == *name)
                .expect("a node");
            nodes.push((NodeId(i as u32), name.to_string(), sim.nodes[i].addr));
            boxes.push((NodeId(i as u32), outbox));
        }
        let by_addr = sim
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.addr, NodeId(i as u32)))
            .collect();
        sim.real = Some(Box::new(RealHosts {
            nodes,
            by_addr,
            flow_of: FxHashMap::default(),
            bytes: Vec::new(),
            outboxes: boxes,
            icmp_limit: IcmpRateLimit::default(),
            counts: RealCounts::default(),
        }));
        Ok(sim)
    }

    /// The stop time (`run.duration`).
    pub fn stop_time(&self) -> SimTime {
        self.stop
    }

    /// The earliest pending event or timer, if any: a lower bound (a cancelled event, or a
    /// timer re-armed later, may still sit at the front), so a loop that wakes then and
    /// finds nothing due just waits again.
    pub fn next_event_time(&mut self) -> Option<SimTime> {
        let e = self.events.peek_time();
        let t = self.timers.front_at();
        match (e, t) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs every event at or before `t` (and before the stop time), in the order of
    /// [`run_with`](Self::run_with); then the clock reads `t`. Returns the events run.
    pub fn run_until(&mut self, t: SimTime) -> u64 {
        self.run_due(t, SimTime::ZERO).events
    }

    /// [`run_until`](Self::run_until) `t`, also counting the events due before
    /// `late_before` (those the real-time loop runs late) and the earliest due time of any
    /// event run: the loop's measure of how far behind real time it ran them.
    pub fn run_due(&mut self, t: SimTime, late_before: SimTime) -> Ran {
        let t = t.min(self.stop);
        let limit = SimTime(t.0.saturating_add(1)).min(self.stop);
        let before = self.events_processed();
        let mut ran = Ran::default();
        while let Some((at, next)) = self.timers.pop_before(&mut self.events, limit) {
            if ran.earliest.is_none() {
                ran.earliest = Some(at);
            }
            ran.late += u64::from(at < late_before);
            self.now = at;
            match next {
                Next::Event(ev) => self.handle(ev),
                Next::Timer(id) => self.timer(id.0),
            }
        }
        self.now = self.now.max(t);
        ran.events = self.events_processed() - before;
        ran
    }

    /// Ends a live run at the current time (the duration, or earlier on Ctrl-C) after
    /// `wall_seconds`: the last time-series sample is taken and the real flows' goodput
    /// windows close now.
    pub fn finish_live(&mut self, wall_seconds: f64) {
        self.wall_seconds = wall_seconds;
        let now = self.now;
        self.stop = now;
        if let Some(r) = &self.real {
            for &f in r.flow_of.values() {
                let flow = &mut self.flows[f as usize];
                flow.stop = flow.stop.min(now).max(flow.start);
            }
        }
        if self.last_sample < now {
            self.sample();
        }
    }

    /// Counts a packet read from a real host's TUN.
    pub fn count_read(&mut self) {
        if let Some(r) = &mut self.real {
            r.counts.read += 1;
        }
    }

    /// The real hosts (`None` unless built by [`build_live`](Self::build_live)).
    pub fn real_hosts(&self) -> Option<&RealHosts> {
        self.real.as_deref()
    }

    /// The conservation of real packets now.
    pub fn real_counts(&self) -> RealCounts {
        let Some(r) = &self.real else {
            return RealCounts::default();
        };
        let mut c = r.counts;
        c.dropped = r
            .flow_of
            .values()
            .map(|&f| self.flows[f as usize].stats.drops.iter().sum::<u64>())
            .sum();
        // A real TCP or UDP packet addressed to an emulated node ends there (the node has no
        // socket for it; a kernel would answer with a reset or a port unreachable, which
        // the model does not make): it is delivered, counted in its flow's `rx_packets`,
        // and absorbed. Counted here from the flows, so the delivery path pays nothing.
        c.absorbed += r
            .flow_of
            .iter()
            .filter(|(t, &f)| {
                t.protocol != Protocol::Icmp
                    && !r.nodes.iter().any(|n| n.0 == self.flows[f as usize].dst)
            })
            .map(|(_, &f)| self.flows[f as usize].stats.rx_packets)
            .sum::<u64>();
        c.in_flight = c.injected + c.errors - c.written - c.dropped - c.absorbed;
        c
    }

    /// A real host (`from`) wrote `bytes`: the packet enters the emulated network at its
    /// node now, as a packet of the flow of its 5-tuple (a new one for a new 5-tuple, named
    /// by it). A packet for an address no node has is dropped as `no_route`.
    pub fn inject(&mut self, from: NodeId, bytes: &[u8]) -> Result<PacketId, Unsupported> {
        let r = self.real.as_mut().expect("a live simulation (build_live)");
        let h = match real::parse(bytes) {
            Ok(h) => h,
            Err(e) => {
                r.counts.unsupported += 1;
                return Err(e);
            }
        };
        if h.tuple.protocol == Protocol::Icmp && h.icmp_type == crate::packet::ICMP_ECHO_REPLY {
            if let Some((seq, sent)) = real::probe_reply(bytes) {
                if let Some(id) = self.inject_answer(from, &h, seq, sent) {
                    return Ok(id);
                }
            }
        }
        let r = self.real.as_mut().expect("live");
        let dst = r.by_addr.get(&h.tuple.dst_addr).copied();
        let f = match r.flow_of.get(&h.tuple) {
            Some(&f) => f,
            None => {
                let f = self.flows.len() as u32;
                r.flow_of.insert(h.tuple, f);
                let flow = self.real_flow(&h, from, dst);
                self.flows.push(flow);
                f
            }
        };
        self.real.as_mut().expect("live").counts.injected += 1;
        let id = self.alloc_real(f, &h, dst.unwrap_or(from), &bytes[..h.size as usize]);
        if dst.is_none() {
            self.drop_packet(id, DropReason::NoRoute, None);
        } else {
            let _ = self.forward(from, id);
        }
        Ok(id)
    }

    /// A packet of real flow `f` with header `h` and `bytes`, bound for `dst`, enters the
    /// arena now at its flow's source, counted sent (by the flow and the ledger); its bytes
    /// go to the side table, in the slot's reused buffer.
    fn alloc_real(&mut self, f: u32, h: &RealHeader, dst: NodeId, bytes: &[u8]) -> PacketId {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let pkt = Packet {
            enqueued: now,
            dst_node: dst,
            size_bytes: h.size,
            // A local socket's priority from its TOS (Linux's `rt_tos2priority`).
            priority: crate::qdisc::rt_tos2priority(h.dscp),
            flow: FlowId(f),
            tuple: h.tuple,
            payload_bytes: h.payload,
            ttl: h.ttl,
            dscp: h.dscp,
            ecn: h.ecn,
            icmp_type: h.icmp_type,
            created: now,
            flow_seq: flow.next_seq,
            ..Packet::default()
        };
        flow.next_seq += 1;
        flow.stats.on_send(h.payload);
        let id = self.packets.alloc(pkt, Location::Source(f));
        self.ledger.sent += 1;
        let r = self.real.as_mut().expect("live");
        let slot = id.0 as usize;
        if r.bytes.len() <= slot {
            r.bytes.resize_with(slot + 1, Vec::new);
        }
        r.bytes[slot].clear();
        r.bytes[slot].extend_from_slice(bytes);
        id
    }

    /// A real host's echo reply to an emulated node's ping (its data carries the request's
    /// send time, [`real::echo_request`]): it enters as the reply the ping flow's simulated
    /// host would have sent (`ping_receive`), so the pinger records the round trip and a
    /// hook reading replies (DFQ's RTT detector) sees the request's send time. `None` when
    /// no ping flow of this pinger, host and identifier exists (then it is a real packet).
    fn inject_answer(
        &mut self,
        from: NodeId,
        h: &RealHeader,
        seq: u16,
        sent: u64,
    ) -> Option<PacketId> {
        let t = h.tuple;
        let f = self.flows.iter().position(|fl| {
            matches!(fl.endpoint, Endpoint::Ping(_))
                && fl.tuple.src_addr == t.dst_addr
                && fl.tuple.dst_addr == t.src_addr
                && fl.tuple.src_port == t.src_port
        })?;
        let now = self.now;
        let flow = &self.flows[f];
        let ft = flow.tuple;
        let pkt = Packet {
            flow: FlowId(f as u32),
            flow_seq: u64::from(seq),
            tuple: FiveTuple {
                src_addr: ft.dst_addr,
                dst_addr: ft.src_addr,
                src_port: ft.dst_port,
                dst_port: ft.src_port,
                protocol: Protocol::Icmp,
            },
            dst_node: flow.src,
            dscp: h.dscp,
            ecn: h.ecn,
            priority: flow.priority,
            ttl: h.ttl,
            size_bytes: h.size,
            payload_bytes: h.payload,
            icmp_type: crate::packet::ICMP_ECHO_REPLY,
            created: SimTime(sent.min(now.0)),
            enqueued: now,
            ..Packet::default()
        };
        self.real.as_mut().expect("live").counts.answers += 1;
        let id = self.packets.alloc(pkt, Location::Source(f as u32));
        self.ledger.sent += 1;
        let _ = self.forward(from, id);
        Some(id)
    }

    /// A real host's ICMP packet reached an emulated node (`ping_receive` of a real flow):
    /// an echo request is answered as a host answers it (RFC 792: the request's bytes with
    /// the addresses swapped and type 0, so the real ping matches identifier, sequence and
    /// data), any other ICMP message ends here (`absorbed`).
    pub(super) fn answer_real_ping(&mut self, pkt: PacketId) {
        let now = self.now;
        let p = self.packets.get(pkt);
        let (f, at, created, payload, kind) = (
            p.flow.0 as usize,
            p.dst_node,
            p.created,
            p.payload_bytes,
            p.icmp_type,
        );
        self.flows[f].stats.on_receive(payload, now - created);
        self.ledger.delivered += 1;
        let r = self.real.as_mut().expect("a real flow runs live");
        if kind != crate::packet::ICMP_ECHO_REQUEST {
            r.counts.absorbed += 1;
            self.packets.free(pkt);
            return;
        }
        real::echo_to_reply(&mut r.bytes[pkt.0 as usize], super::apps::INITIAL_TTL);
        let src = self.flows[f].src;
        let p = self.packets.get_mut(pkt);
        let t = p.tuple;
        p.tuple = FiveTuple {
            src_addr: t.dst_addr,
            dst_addr: t.src_addr,
            src_port: t.dst_port,
            dst_port: t.src_port,
            protocol: t.protocol,
        };
        p.dst_node = src;
        p.ttl = super::apps::INITIAL_TTL;
        p.icmp_type = crate::packet::ICMP_ECHO_REPLY;
        p.created = now;
        p.enqueued = now;
        self.ledger.sent += 1;
        let _ = self.forward(at, pkt);
    }

    /// A real packet's TTL ran out at router `at` (`forward::ttl_expired`): the router
    /// answers its source with an ICMP Time Exceeded (RFC 792, RFC 1812 §5.3.1), within
    /// Linux's rate limit ([`IcmpRateLimit`]), unless the packet may not be answered
    /// ([`real::may_answer_with_error`]). The message comes from the router's address (a
    /// node has one; RFC 1812 §4.3.2.4 asks for the interface the packet came in on) and
    /// travels back through the emulated network as a packet of its own flow.
    pub(super) fn icmp_time_exceeded(&mut self, at: NodeId, pkt: PacketId) {
        let f = self.packets.get(pkt).flow.0 as usize;
        if !matches!(self.flows[f].endpoint, Endpoint::Real) {
            return;
        }
        let (host, now, router) = (self.flows[f].src, self.now, self.nodes[at.0 as usize].addr);
        let r = self.real.as_mut().expect("live");
        let offending = &r.bytes[pkt.0 as usize];
        if !real::may_answer_with_error(offending) {
            return;
        }
        let to = u32::from_be_bytes([offending[12], offending[13], offending[14], offending[15]]);
        if !r.icmp_limit.allow(to, now) {
            r.counts.errors_limited += 1;
            return;
        }
        let bytes = real::time_exceeded(router, offending, 1);
        let h = real::parse(&bytes).expect("a Time Exceeded message parses");
        let f = match r.flow_of.get(&h.tuple) {
            Some(&f) => f,
            None => {
                let f = self.flows.len() as u32;
                r.flow_of.insert(h.tuple, f);
                let flow = self.real_flow(&h, at, Some(host));
                self.flows.push(flow);
                f
            }
        };
        self.real.as_mut().expect("live").counts.errors += 1;
        let id = self.alloc_real(f, &h, host, &bytes);
        let _ = self.forward(at, id);
    }

    /// The run-time flow of a real 5-tuple, named by it (`udp 10.0.0.1:5000>10.0.0.2:5201`).
    fn real_flow(&self, h: &RealHeader, from: NodeId, dst: Option<NodeId>) -> FlowRt {
        let t = h.tuple;
        let ip = |a: u32| std::net::Ipv4Addr::from(a).to_string();
        let (transport, name) = match t.protocol {
            Protocol::Icmp => (
                "icmp",
                format!(
                    "icmp {}>{} id {}",
                    ip(t.src_addr),
                    ip(t.dst_addr),
                    t.src_port
                ),
            ),
            p => {
                let kind = if p == Protocol::Tcp { "tcp" } else { "udp" };
                (
                    kind,
                    format!(
                        "{kind} {}:{}>{}:{}",
                        ip(t.src_addr),
                        t.src_port,
                        ip(t.dst_addr),
                        t.dst_port
                    ),
                )
            }
        };
        FlowRt {
            endpoint: Endpoint::Real,
            tuple: t,
            src: from,
            dst: dst.unwrap_or(from),
            priority: crate::qdisc::rt_tos2priority(h.dscp),
            dscp: h.dscp,
            traced: false,
            next_seq: 0,
            rx_bytes_at_last_sample: 0,
            rtt: LatencyStats::default(),
            stats: FlowStats::default(),
            name,
            from: self.nodes[from.0 as usize].name.clone(),
            to: dst.map_or_else(|| ip(t.dst_addr), |d| self.nodes[d.0 as usize].name.clone()),
            transport,
            app: "real",
            start: self.now,
            stop: self.stop,
            responses: LatencyStats::default(),
            pages: Vec::new(),
            app_event: None,
            app_paused: false,
            answerers: Vec::new(),
            awaiting_call: false,
        }
    }

    /// Hands every packet delivered to a real host since the last call to `write`, with
    /// its node and the time the emulated network released it, its header carrying the
    /// TTL and ECN field it arrived with; the packet then counts as delivered.
    pub fn take_delivered(&mut self, mut write: impl FnMut(NodeId, SimTime, &mut [u8])) {
        self.take_delivered_flows(|node, _, released, bytes| write(node, released, bytes));
    }

    /// [`take_delivered`](Self::take_delivered), also naming each packet's flow (the
    /// index of its row in the flows table) for the timing table.
    pub fn take_delivered_flows(
        &mut self,
        mut write: impl FnMut(NodeId, FlowId, SimTime, &mut [u8]),
    ) {
        let Some(mut r) = self.real.take() else {
            return;
        };
        for (node, outbox) in &r.outboxes {
            let held = std::mem::take(&mut *outbox.borrow_mut());
            for (id, released) in held {
                let p = self.packets.get(id);
                let (f, payload, created, ttl, ecn) =
                    (p.flow.0 as usize, p.payload_bytes, p.created, p.ttl, p.ecn);
                let (t, size, seq, dscp, kind) =
                    (p.tuple, p.size_bytes, p.flow_seq, p.dscp, p.icmp_type);
                self.flows[f].stats.on_receive(payload, released - created);
                self.ledger.delivered += 1;
                self.packets.free(id);
                if matches!(self.flows[f].endpoint, Endpoint::Real) {
                    let buf = &mut r.bytes[id.0 as usize];
                    real::write_back(buf, ttl, ecn);
                    write(*node, FlowId(f as u32), released, buf);
                    r.counts.written += 1;
                    r.counts.max_written_bytes = r.counts.max_written_bytes.max(buf.len() as u64);
                } else if t.protocol == Protocol::Icmp && kind == crate::packet::ICMP_ECHO_REQUEST {
                    // An emulated node's ping (the only simulated flow validation lets
                    // reach a real host): its echo request, made as bytes.
                    let mut buf = real::echo_request(
                        t.src_addr,
                        t.dst_addr,
                        ttl,
                        (dscp << 2) | ecn,
                        t.src_port,
                        seq as u16,
                        created.0,
                        size,
                    );
                    write(*node, FlowId(f as u32), released, &mut buf);
                    r.counts.probes += 1;
                }
            }
        }
        self.real = Some(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_toml_str;

    /// An emulated gateway pings a real host across a 10 Mbit/s, 1 ms link, and the real
    /// host pings the gateway.
    fn sim() -> Simulation {
        let s = load_toml_str(
            r#"
            [run]
            duration = "5s"
            [[nodes]]
            name = "gw"
            kind = "router"
            [[nodes]]
            name = "h"
            real = true
            [[links]]
            name = "wire"
            between = ["gw", "h"]
            rate = "10Mbit"
            delay = "1ms"
            [[flows]]
            name = "probe"
            from = "gw"
            to = "h"
            app = { kind = "ping", interval = "1s" }
            "#,
        )
        .unwrap();
        Simulation::build_live(&s, BuildOptions::default()).unwrap()
    }

    fn delivered(sim: &mut Simulation) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        sim.take_delivered(|_, _, b| out.push(b.to_vec()));
        out
    }

    /// Reference: RFC 792 (an echo reply returns the request's identifier, sequence and
    /// data); the round trip is the two crossings of the link (84 B at 10 Mbit/s + 1 ms
    /// each way, 2.134 ms), measured from the send time the request's data carried.
    #[test]
    fn an_emulated_ping_reaches_a_real_host_and_its_kernels_reply_comes_back() {
        let mut sim = sim();
        let (gw, h) = (sim.nodes[0].addr, sim.nodes[1].addr);
        sim.run_until(SimTime::from_millis(10));
        let out = delivered(&mut sim);
        assert_eq!(out.len(), 1);
        let req = real::parse(&out[0]).unwrap();
        assert_eq!(req.icmp_type, crate::packet::ICMP_ECHO_REQUEST);
        assert_eq!((req.tuple.src_addr, req.tuple.dst_addr), (gw, h));
        // What the real kernel answers, read back 0.1 ms after the request was written.
        let mut rep = out[0].clone();
        real::echo_to_reply(&mut rep, 64);
        sim.run_until(SimTime::from_micros(10_100));
        sim.count_read();
        sim.inject(NodeId(1), &rep).unwrap();
        sim.run_until(SimTime::from_millis(30));
        let rtt = &sim.flows[0].rtt;
        assert_eq!(rtt.count(), 1);
        // The send time the request carried (after the magic, RFC 792's data at byte 36);
        // the reply arrived at 10.1 ms + 1.0672 ms.
        let sent = u64::from_be_bytes(out[0][36..44].try_into().unwrap());
        assert_eq!(&out[0][28..36], &real::PROBE_MAGIC);
        let want = (10_100_000 + 1_067_200 - sent) as f64 / 1e9;
        assert!(
            (rtt.mean_s() - want).abs() < 1e-6,
            "{} vs {want}",
            rtt.mean_s()
        );
        let c = sim.real_counts();
        assert_eq!((c.read, c.answers, c.injected, c.probes), (1, 1, 0, 1));
        assert_eq!(c.in_flight, 0);
    }

    /// A real host's ping to an emulated node is answered with the request's own bytes,
    /// addresses swapped and type 0 (what the host's ping matches), not stale bytes.
    #[test]
    fn a_real_ping_to_an_emulated_node_is_answered_with_its_own_bytes() {
        let mut sim = sim();
        let (gw, h) = (sim.nodes[0].addr, sim.nodes[1].addr);
        sim.run_until(SimTime::from_millis(10));
        let _ = delivered(&mut sim); // the gateway's own probe
        let req = real::echo_request(h, gw, 64, 0, 4242, 3, 0, 84);
        sim.count_read();
        sim.inject(NodeId(1), &req).unwrap();
        sim.run_until(SimTime::from_millis(20));
        let out = delivered(&mut sim);
        assert_eq!(out.len(), 1);
        let mut want = req.clone();
        real::echo_to_reply(&mut want, 64);
        assert_eq!(out[0], want);
        let c = sim.real_counts();
        assert_eq!((c.read, c.injected, c.written, c.in_flight), (1, 1, 1, 0));
    }

    /// Two real hosts behind a chain of two emulated routers (`a — r1 — r2 — b`).
    fn chain() -> Simulation {
        let s = load_toml_str(
            r#"
            [run]
            duration = "30s"
            [[nodes]]
            name = "a"
            real = true
            [[nodes]]
            name = "r1"
            kind = "router"
            [[nodes]]
            name = "r2"
            kind = "router"
            [[nodes]]
            name = "b"
            real = true
            [[links]]
            name = "l1"
            between = ["a", "r1"]
            rate = "100Mbit"
            [[links]]
            name = "l2"
            between = ["r1", "r2"]
            rate = "100Mbit"
            [[links]]
            name = "l3"
            between = ["r2", "b"]
            rate = "100Mbit"
            "#,
        )
        .unwrap();
        Simulation::build_live(&s, BuildOptions::default()).unwrap()
    }

    /// A UDP datagram with the given TTL from a to b (traceroute's probe).
    fn probe(sim: &Simulation, ttl: u8, port: u16) -> Vec<u8> {
        let (a, b) = (sim.nodes[0].addr, sim.nodes[3].addr);
        let mut out = Vec::new();
        etherparse::PacketBuilder::ipv4(a.to_be_bytes(), b.to_be_bytes(), ttl)
            .udp(40000, port)
            .write(&mut out, &[0u8; 32])
            .unwrap();
        out
    }

    /// Reference: RFC 792 / RFC 1812 §5.3.1 (a router that receives a datagram with TTL 1
    /// to forward discards it and sends Time Exceeded, code 0, to its source, quoting it),
    /// and traceroute's use of it: TTL 1 is answered by r1, TTL 2 by r2, TTL 3 reaches b.
    #[test]
    fn a_ttl_that_runs_out_at_an_emulated_router_is_answered_with_time_exceeded() {
        let mut sim = chain();
        let (r1, r2) = (sim.nodes[1].addr, sim.nodes[2].addr);
        for (ttl, port) in [(1, 33434), (2, 33435), (3, 33436)] {
            let p = probe(&sim, ttl, port);
            sim.count_read();
            sim.inject(NodeId(0), &p).unwrap();
        }
        sim.run_until(SimTime::from_millis(10));
        let mut at_a = Vec::new();
        let mut at_b = Vec::new();
        sim.take_delivered(|n, _, b| {
            if n == NodeId(0) {
                at_a.push(b.to_vec())
            } else {
                at_b.push(b.to_vec())
            }
        });
        assert_eq!(at_b.len(), 1, "TTL 3 crosses both routers");
        assert_eq!(at_a.len(), 2);
        for (msg, router, port) in [(&at_a[0], r1, 33434u16), (&at_a[1], r2, 33435)] {
            let ip = etherparse::Ipv4HeaderSlice::from_slice(msg).unwrap();
            assert_eq!(u32::from(ip.source_addr()), router);
            assert_eq!(u32::from(ip.destination_addr()), sim.nodes[0].addr);
            assert_eq!(ip.to_header().calc_header_checksum(), ip.header_checksum());
            // Type 11, code 0; the quoted datagram's UDP destination port names the probe.
            assert_eq!((msg[20], msg[21]), (11, 0));
            assert_eq!(u16::from_be_bytes([msg[28 + 22], msg[28 + 23]]), port);
            // The quoted header's TTL is the one it arrived with: 1 (RFC 1812 §5.3.1).
            assert_eq!(msg[28 + 8], 1);
        }
        let c = sim.real_counts();
        assert_eq!((c.read, c.injected, c.errors, c.written), (3, 3, 2, 3));
        assert_eq!(c.dropped, 2, "the two probes whose TTL ran out");
        assert_eq!(
            c.injected + c.errors,
            c.written + c.dropped + c.absorbed + c.in_flight
        );
    }

    /// Reference: Linux `icmpv4_xrlim_allow` (icmp_ratelimit 1000 ms, XRLIM_BURST_FACTOR 6):
    /// ten expired probes at once get six answers; one second later, one more.
    #[test]
    fn time_exceeded_messages_are_rate_limited_per_destination_as_linux_does() {
        let mut sim = chain();
        for k in 0..10 {
            let p = probe(&sim, 1, 33434 + k);
            sim.inject(NodeId(0), &p).unwrap();
        }
        sim.run_until(SimTime::from_millis(1000));
        let c = sim.real_counts();
        assert_eq!((c.errors, c.errors_limited), (6, 4));
        let p = probe(&sim, 1, 40000);
        sim.inject(NodeId(0), &p).unwrap();
        sim.run_until(SimTime::from_millis(1100));
        assert_eq!(sim.real_counts().errors, 7);
    }

    /// No ICMP error answers an ICMP error (RFC 1122 §3.2.2): a Time Exceeded from a to b
    /// whose own TTL runs out at r1 is dropped without an answer.
    #[test]
    fn an_icmp_error_is_never_answered_with_one() {
        let mut sim = chain();
        let (a, b) = (sim.nodes[0].addr, sim.nodes[3].addr);
        let mut from_b = Vec::new();
        etherparse::PacketBuilder::ipv4(b.to_be_bytes(), a.to_be_bytes(), 5)
            .udp(40000, 33434)
            .write(&mut from_b, &[0u8; 32])
            .unwrap();
        let mut err = real::time_exceeded(a, &from_b, 1);
        real::write_back(&mut err, 1, 0);
        assert!(!real::may_answer_with_error(&err));
        assert!(real::may_answer_with_error(&from_b));
        sim.inject(NodeId(0), &err).unwrap();
        sim.run_until(SimTime::from_millis(10));
        let c = sim.real_counts();
        assert_eq!((c.injected, c.errors, c.dropped, c.in_flight), (1, 0, 1, 0));
    }

    /// A real host's TCP segment and UDP datagram to an emulated node end there (the node
    /// has no socket: a host would reset or answer port unreachable, which the model does
    /// not make): no panic, and conservation (read = injected = absorbed, nothing in
    /// flight) holds.
    #[test]
    fn a_real_hosts_tcp_and_udp_to_an_emulated_node_end_there() {
        let mut sim = sim();
        let (gw, h) = (sim.nodes[0].addr, sim.nodes[1].addr);
        let ip = |a: u32| a.to_be_bytes();
        let mut syn = Vec::new();
        etherparse::PacketBuilder::ipv4(ip(h), ip(gw), 64)
            .tcp(40000, 80, 1, 64240)
            .syn()
            .write(&mut syn, &[])
            .unwrap();
        let mut udp = Vec::new();
        etherparse::PacketBuilder::ipv4(ip(h), ip(gw), 64)
            .udp(40001, 9)
            .write(&mut udp, &[0u8; 100])
            .unwrap();
        for p in [&syn, &udp] {
            sim.count_read();
            sim.inject(NodeId(1), p).unwrap();
        }
        sim.run_until(SimTime::from_millis(20));
        let _ = delivered(&mut sim); // the gateway's own probe
        let c = sim.real_counts();
        assert_eq!(
            (c.read, c.injected, c.absorbed, c.dropped, c.in_flight),
            (2, 2, 2, 0, 0)
        );
    }

    /// Only a ping from an emulated node may end at a real host; nothing may start there.
    #[test]
    fn only_an_emulated_nodes_ping_may_go_to_a_real_host() {
        let base = r#"
            [run]
            duration = "1s"
            [[nodes]]
            name = "gw"
            kind = "router"
            [[nodes]]
            name = "h"
            real = true
            [[nodes]]
            name = "g"
            real = true
            [[links]]
            name = "wire"
            between = ["gw", "h"]
            rate = "10Mbit"
            delay = "1ms"
            [[links]]
            name = "wire2"
            between = ["gw", "g"]
            rate = "10Mbit"
            delay = "1ms"
            [[flows]]
            "#;
        let err = |flow: &str| {
            load_toml_str(&format!("{base}{flow}"))
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            err(r#"name = "p"
            from = "gw"
            to = "h"
            app = { kind = "ping" }"#),
            Ok(())
        );
        let e = err(r#"name = "c"
            from = "gw"
            to = "h"
            app = { kind = "cbr", size = 100, rate = "1Mbit" }"#)
        .unwrap_err();
        assert!(e.contains("flows.c.to"), "{e}");
        let e = err(r#"name = "p"
            from = "g"
            to = "h"
            app = { kind = "ping" }"#)
        .unwrap_err();
        assert!(
            e.contains("flows.p.from") && e.contains("flows.p.to"),
            "{e}"
        );
    }
}
