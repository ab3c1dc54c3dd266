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

use std::cell::RefCell;
use std::collections::HashMap;
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
    /// Every node's address (real or emulated): where a real packet is going.
    by_addr: HashMap<u32, NodeId>,
    /// The flow of each real 5-tuple seen so far.
    flow_of: HashMap<FiveTuple, u32>,
    /// A real packet's bytes, by arena slot (buffers reused as slots are).
    bytes: Vec<Vec<u8>>,
    outboxes: Vec<(NodeId, Outbox)>,
    /// Counters for the conservation of real packets.
    pub counts: RealCounts,
}

/// Real packets, counted: every packet read is `unsupported`, or `injected`, and every
/// injected packet is written, dropped (with a reason, in the flows table) or in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RealCounts {
    pub read: u64,
    pub unsupported: u64,
    pub injected: u64,
    pub written: u64,
    pub dropped: u64,
    pub in_flight: u64,
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
            flow_of: HashMap::new(),
            bytes: Vec::new(),
            outboxes: boxes,
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
        c.in_flight = c.injected - c.written - c.dropped;
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
        let r = self.real.as_mut().expect("live");
        r.counts.injected += 1;
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let pkt = Packet {
            enqueued: now,
            dst_node: dst.unwrap_or(from),
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
        let slot = id.0 as usize;
        if r.bytes.len() <= slot {
            r.bytes.resize_with(slot + 1, Vec::new);
        }
        r.bytes[slot].clear();
        r.bytes[slot].extend_from_slice(&bytes[..h.size as usize]);
        self.ledger.sent += 1;
        if dst.is_none() {
            self.drop_packet(id, DropReason::NoRoute, None);
        } else {
            let _ = self.forward(from, id);
        }
        Ok(id)
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
                self.flows[f].stats.on_receive(payload, released - created);
                self.ledger.delivered += 1;
                self.packets.free(id);
                let buf = &mut r.bytes[id.0 as usize];
                real::write_back(buf, ttl, ecn);
                write(*node, FlowId(f as u32), released, buf);
                r.counts.written += 1;
            }
        }
        self.real = Some(r);
    }
}
