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
    /// The largest packet written to a real host, in bytes: evidence that what the model
    /// scheduled was wire-sized (at most the TUN's MTU), never a GSO super-packet.
    pub max_written_bytes: u64,
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
        c.in_flight = c.injected - c.written - c.dropped - c.absorbed;
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
