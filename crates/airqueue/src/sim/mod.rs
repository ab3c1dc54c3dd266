//! The run loop: events in (time, sequence) order, packets moved between sources, qdiscs,
//! transmitters, wires and sinks, with every packet accounted for.
//!
//! A run processes the events strictly before `run.duration`. Statistics reset at
//! `run.warmup`; time series cover the whole run; the packet ledger (sent, delivered,
//! dropped, in flight) covers the whole run and is checked at the end.

mod build;
mod capture;
mod conservation;
mod results;
mod tcp_flow;
mod virtual_dev;

pub use build::BuildOptions;
pub use capture::{CaptureFile, CaptureSpec};
pub use conservation::{Conservation, Ledger};
pub use results::{RunResults, Summary};
pub use tcp_flow::TCP_WIRE_HEADER_BYTES;
pub use virtual_dev::VirtualDev;

use crate::app::{PingSource, UdpSource};
use crate::engine::{EventId, EventQueue, SimTime};
use crate::link::{Impairment, P2pTransmitter};
use crate::metrics::{FlowStats, LatencyStats, QueueStats, SeriesKind, SeriesMetric, TimeSeries};
use crate::packet::{
    DropReason, FiveTuple, FlowId, Location, NodeId, Packet, PacketArena, PacketId, Protocol,
    TcpHeader, IPV4_HEADER_BYTES, UDP_HEADER_BYTES,
};
use crate::qdisc::{rt_tos2priority, ClassSample, DevInfo, DropSink, Qdisc, QdiscCtx, Verdict};
use crate::scenario::{Scenario, ScenarioError};
use crate::topology::{IfaceId, Node, Routes};
use crate::transport::tcp::{AckInfo, Segment, TcpFlags};
use tcp_flow::{Side, TcpApp, TcpFlow};

/// Everything that can happen. Kept small (8 bytes, a heap entry is 24) so the heap stays
/// cache-friendly.
#[derive(Copy, Clone, Debug)]
pub enum Event {
    /// Flow i's source emits its next datagram.
    AppSend(u32),
    /// Interface i finished serializing its packet.
    TxDone(u32),
    /// The packet at the head of interface i's wire reaches the far end (a constant-delay
    /// wire keeps its packets in order, see [`crate::link::Wire`]).
    Arrive(u32),
    /// A packet reaches the far end of a wire that may reorder (an impairment with
    /// jitter): one event per packet; the interface is the packet's location.
    ArriveReordered(PacketId),
    /// A non-work-conserving qdisc on interface i may be able to send now.
    QdiscWakeup(u32),
    /// The qdisc of virtual device v may be able to send now.
    VirtualWakeup(u32),
    /// Take a time-series sample.
    Sample,
    /// Reset statistics: the warm-up is over.
    WarmupEnd,
    /// An endpoint of connection `conn` (a slot of the flow's pool) of TCP flow `flow`
    /// asked to be woken up now.
    TcpTimer { flow: u32, conn: u16, side: Side },
}

const _: () = assert!(std::mem::size_of::<Event>() == 8);

/// An egress interface: its qdisc, its transmitter and the wire behind it.
pub struct Interface {
    pub dev: DevInfo,
    pub qdisc_name: String,
    pub qdisc_kind: &'static str,
    pub node: NodeId,
    pub peer: NodeId,
    pub qdisc: Box<dyn Qdisc>,
    pub tx: P2pTransmitter,
    pub impairment: Option<Impairment>,
    /// The pending QdiscWakeup of a throttled qdisc and its time.
    wakeup: Option<(EventId, SimTime)>,
    pub stats: QueueStats,
    drops_at_last_sample: u64,
    /// The virtual device this interface is a member of: its packets wait in that
    /// device's qdisc (this interface's own `qdisc` is then unused and reported nowhere).
    pub vdev: Option<u32>,
}

/// A flow at run time.
pub struct FlowRt {
    pub name: String,
    pub from: String,
    pub to: String,
    pub transport: &'static str,
    pub app: &'static str,
    pub src: NodeId,
    pub dst: NodeId,
    pub tuple: FiveTuple,
    pub dscp: u8,
    pub priority: u32,
    /// When the application starts and stops (the goodput window).
    pub start: SimTime,
    pub stop: SimTime,
    endpoint: Endpoint,
    next_seq: u64,
    pub stats: FlowStats,
    /// Round-trip times since the warm-up: TCP's RTT samples (RFC 6298, Karn-filtered),
    /// ping's echo round trips.
    pub rtt: LatencyStats,
    /// Completion times since the warm-up: web page response times.
    pub responses: LatencyStats,
    rx_bytes_at_last_sample: u64,
}

/// The transport end of a flow.
pub enum Endpoint {
    Udp(UdpSource),
    Tcp(Box<TcpFlow>),
    /// ICMP echo (ping).
    Ping(PingSource),
}

/// A built, runnable simulation.
pub struct Simulation {
    now: SimTime,
    stop: SimTime,
    warmup: SimTime,
    sample_interval: SimTime,
    seed: u64,
    events: EventQueue<Event>,
    packets: PacketArena,
    pub nodes: Vec<Node>,
    pub ifaces: Vec<Interface>,
    /// Virtual devices (IMQ-like) scheduling across member interfaces.
    pub vdevs: Vec<VirtualDev>,
    routes: Routes,
    pub flows: Vec<FlowRt>,
    drops: DropSink,
    ledger: Ledger,
    timeseries: TimeSeries,
    /// Per-class samples of the current sampling instant (reused buffer), and each class's
    /// counters at the previous one (for per-interval throughput and drops).
    class_samples: Vec<ClassSample>,
    class_at_last_sample: Vec<ClassSample>,
    last_sample: SimTime,
    wall_seconds: f64,
    /// Open pcap files, when asked for ([`BuildOptions::capture`]).
    capture: Option<Box<capture::Capture>>,
    /// Reused buffer for the object sizes a web page requests at once.
    scratch_sizes: Vec<u64>,
}

/// Loads, validates, builds and runs a scenario in one call.
pub fn run_scenario(s: &Scenario, seed: Option<u64>) -> Result<RunResults, ScenarioError> {
    let mut sim = Simulation::build(
        s,
        BuildOptions {
            seed,
            ..Default::default()
        },
    )?;
    sim.run();
    Ok(sim.results())
}

impl Simulation {
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Runs to the stop time.
    pub fn run(&mut self) {
        let started = std::time::Instant::now();
        while let Some((t, ev)) = self.events.pop_before(self.stop) {
            self.now = t;
            self.handle(ev);
        }
        self.now = self.stop;
        if self.last_sample < self.stop {
            self.sample();
        }
        self.wall_seconds = started.elapsed().as_secs_f64();
    }

    /// Flushes and closes the pcap files (none when capture was not asked for).
    pub fn finish_capture(&mut self) -> std::io::Result<Vec<CaptureFile>> {
        self.capture.as_mut().map_or(Ok(Vec::new()), |c| c.finish())
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.events.events_processed()
    }

    #[inline]
    fn handle(&mut self, ev: Event) {
        match ev {
            Event::AppSend(f) => self.app_send(f as usize),
            Event::TxDone(i) => self.tx_done(IfaceId(i)),
            Event::Arrive(i) => self.wire_arrive(i),
            Event::ArriveReordered(pkt) => {
                let Location::Propagating(i) = self.packets.location(pkt) else {
                    unreachable!("an arriving packet is on a wire")
                };
                let ifc = &mut self.ifaces[i as usize];
                ifc.tx.propagating -= 1;
                let node = ifc.peer;
                self.receive(node, pkt);
            }
            Event::QdiscWakeup(i) => {
                self.ifaces[i as usize].wakeup = None;
                self.kick(IfaceId(i));
            }
            Event::VirtualWakeup(v) => {
                self.vdevs[v as usize].wakeup = None;
                self.kick_vdev(v);
            }
            Event::Sample => {
                self.sample();
                let next = self.now + self.sample_interval;
                self.events.schedule(next, Event::Sample);
            }
            Event::WarmupEnd => self.reset_statistics(),
            Event::TcpTimer { flow, conn, side } => {
                self.tcp_timer(flow as usize, conn as usize, side)
            }
        }
    }

    fn app_send(&mut self, f: usize) {
        match &mut self.flows[f].endpoint {
            Endpoint::Udp(_) => self.udp_send(f),
            Endpoint::Tcp(_) => self.tcp_app_event(f),
            Endpoint::Ping(_) => self.ping_send(f),
        }
    }

    fn udp_send(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        let Endpoint::Udp(source) = &mut flow.endpoint else {
            unreachable!("udp_send on a TCP flow")
        };
        let payload = source.payload_bytes;
        let next = source.next(now);
        let pkt = Packet {
            flow: FlowId(f as u32),
            flow_seq: flow.next_seq,
            tuple: flow.tuple,
            dst_node: flow.dst,
            dscp: flow.dscp,
            priority: flow.priority,
            ttl: 64,
            size_bytes: payload + IPV4_HEADER_BYTES + UDP_HEADER_BYTES,
            payload_bytes: payload,
            created: now,
            enqueued: now,
            ..Packet::default()
        };
        flow.next_seq += 1;
        flow.stats.on_send(payload);
        let src = flow.src;
        if let Some(t) = next {
            self.events.schedule(t, Event::AppSend(f as u32));
        }
        self.send(f, pkt, src);
    }

    fn tcp_mut(&mut self, f: usize) -> &mut TcpFlow {
        match &mut self.flows[f].endpoint {
            Endpoint::Tcp(t) => t,
            _ => unreachable!("flow {f} is not TCP"),
        }
    }

    /// The application of a TCP flow acts: a bulk transfer starts, a message source writes
    /// its next message, a browser requests its next page.
    fn tcp_app_event(&mut self, f: usize) {
        let now = self.now;
        let Endpoint::Tcp(t) = &mut self.flows[f].endpoint else {
            unreachable!("flow {f} is not TCP")
        };
        let unopened = t.conns.is_empty();
        if !unopened && matches!(t.app, TcpApp::Bulk(_)) {
            // The flow's `stop`: the bulk application writes nothing more; the file is what
            // was sent, complete once it has all arrived.
            let c = &mut t.conns[0];
            c.sender.finish(now);
            c.object = c.sender.app_bytes();
            self.tcp_transmit(f, 0);
            self.tcp_check_object(f, 0);
            return;
        }
        // (open a connection for this object, bytes to write into connection 0, next write)
        let (open, write, next) = match &mut t.app {
            TcpApp::Bulk(bytes) => (unopened.then_some(*bytes), 0, None),
            TcpApp::Message(arrivals) => (
                unopened.then_some(Some(0)),
                u64::from(arrivals.payload_bytes),
                arrivals.next(now),
            ),
            TcpApp::Web(web) => (Some(Some(web.start_page(now))), 0, None),
        };
        if let Some(at) = next {
            self.events.schedule(at, Event::AppSend(f as u32));
        }
        if let Some(object) = open {
            self.tcp_open(f, object);
        }
        if write > 0 {
            self.tcp_mut(f).conns[0].sender.offer(write);
            self.tcp_transmit(f, 0);
        }
    }

    /// Opens a connection of flow `f` for `object` bytes and sends what it has to send.
    fn tcp_open(&mut self, f: usize, object: Option<u64>) {
        let now = self.now;
        let t = self.tcp_mut(f);
        let slot = t.open(now, object);
        if let Some(syn) = t.conns[slot].receiver.connect(now) {
            self.send_ack(f, slot, &syn);
        }
        self.tcp_transmit(f, slot);
    }

    /// Sends every segment the sender of connection `slot` has due now, then re-arms its
    /// timers.
    fn tcp_transmit(&mut self, f: usize, slot: usize) {
        let now = self.now;
        while let Some(seg) = self.tcp_mut(f).conns[slot].sender.poll_transmit(now) {
            self.send_segment(f, slot, &seg);
        }
        self.tcp_arm(f, slot);
    }

    fn tcp_arm(&mut self, f: usize, slot: usize) {
        for side in [Side::Sender, Side::Receiver] {
            if let Some(at) = self.tcp_mut(f).needs_arming(slot, side) {
                let at = at.max(self.now);
                self.events.schedule(
                    at,
                    Event::TcpTimer {
                        flow: f as u32,
                        conn: slot as u16,
                        side,
                    },
                );
            }
        }
    }

    fn tcp_timer(&mut self, f: usize, slot: usize, side: Side) {
        let now = self.now;
        let t = self.tcp_mut(f);
        t.fired(slot, side, now);
        if !t.conns[slot].open {
            return; // the connection closed after this event was scheduled
        }
        match side {
            Side::Sender => {
                t.conns[slot].sender.on_timer(now);
                self.tcp_transmit(f, slot);
            }
            Side::Receiver => {
                if let Some(ack) = t.conns[slot].receiver.on_timer(now) {
                    self.send_ack(f, slot, &ack);
                }
                self.tcp_arm(f, slot);
            }
        }
    }

    /// Wraps a data segment (or SYN, SYN-ACK) in a packet from `from` to `to`.
    fn send_segment(&mut self, f: usize, slot: usize, seg: &Segment) {
        let now = self.now;
        let t = self.tcp_mut(f);
        let ((src_port, dst_port), ecn) = (t.ports(slot, true), t.ip_ecn(slot, seg));
        let flow = &mut self.flows[f];
        let pkt = Packet {
            flow: FlowId(f as u32),
            flow_seq: flow.next_seq,
            tuple: FiveTuple {
                src_port,
                dst_port,
                ..flow.tuple
            },
            dst_node: flow.dst,
            dscp: flow.dscp,
            priority: flow.priority,
            ttl: 64,
            size_bytes: seg.len + tcp_flow::TCP_WIRE_HEADER_BYTES,
            payload_bytes: seg.len,
            ecn,
            tcp: TcpHeader {
                seq: seg.seq,
                ack: seg.ack,
                flags: seg.flags.bits(),
                window: seg.window,
            },
            created: now,
            enqueued: now,
            ..Packet::default()
        };
        flow.next_seq += 1;
        if seg.len > 0 {
            flow.stats.on_send(seg.len);
        }
        let src = flow.src;
        self.send(f, pkt, src);
    }

    /// Wraps an acknowledgment (or the receiver's SYN) in a packet from `to` back to `from`.
    fn send_ack(&mut self, f: usize, slot: usize, ack: &AckInfo) {
        let now = self.now;
        let tcp = self.tcp_mut(f);
        let ((src_port, dst_port), (sack_id, sack_bytes)) =
            (tcp.ports(slot, false), tcp.stash_sack(slot));
        let flow = &self.flows[f];
        let t = flow.tuple;
        let pkt = Packet {
            flow: FlowId(f as u32),
            flow_seq: sack_id,
            tuple: FiveTuple {
                src_addr: t.dst_addr,
                dst_addr: t.src_addr,
                src_port,
                dst_port,
                protocol: Protocol::Tcp,
            },
            dst_node: flow.src,
            dscp: flow.dscp,
            priority: flow.priority,
            ttl: 64,
            size_bytes: tcp_flow::TCP_WIRE_HEADER_BYTES + sack_bytes,
            payload_bytes: 0,
            tcp: TcpHeader {
                seq: ack.seq,
                ack: ack.ack,
                flags: ack.flags.bits(),
                window: ack.window,
            },
            created: now,
            enqueued: now,
            ..Packet::default()
        };
        let dst = flow.dst;
        self.send(f, pkt, dst);
    }

    /// A TCP packet reached the end host it was addressed to.
    fn tcp_receive(&mut self, pkt: PacketId) {
        let now = self.now;
        let p = self.packets.get(pkt);
        let (f, at, delay, h, len, tuple, ce, sack_id) = (
            p.flow.0 as usize,
            p.dst_node,
            now - p.created,
            p.tcp,
            p.payload_bytes,
            p.tuple,
            p.ecn == tcp_flow::ECN_CE,
            p.flow_seq,
        );
        self.ledger.delivered += 1;
        self.packets.free(pkt);
        let flags = TcpFlags::from_bits(h.flags);
        let to_receiver = at == self.flows[f].dst;
        let t = self.tcp_mut(f);
        let port = t.client_port(tuple.src_port, tuple.dst_port, to_receiver);
        let Some(slot) = t.slot_of_port(port) else {
            return; // a late segment of a closed connection: ignored, as by a real stack
        };
        if to_receiver {
            let seg = Segment {
                seq: h.seq,
                len,
                ack: h.ack,
                flags,
                window: h.window,
                is_retransmission: false,
            };
            let c = &mut t.conns[slot];
            let before = c.receiver.delivered_bytes();
            let reply = c.receiver.on_segment_ecn(now, &seg, ce);
            let delivered = c.receiver.delivered_bytes();
            // rx_packets: data segments (SYNs and the handshake's ACK are not counted, as
            // tx_packets does not count them); rx_bytes: new in-order bytes.
            if len > 0 {
                self.flows[f]
                    .stats
                    .on_receive((delivered - before) as u32, delay);
            }
            if let Some(ack) = reply {
                self.send_ack(f, slot, &ack);
            }
            self.tcp_arm(f, slot);
            self.tcp_check_object(f, slot);
        } else {
            let ack = AckInfo {
                seq: h.seq,
                ack: h.ack,
                window: h.window,
                flags,
            };
            let sack = t.take_sack(slot, sack_id);
            let c = &mut t.conns[slot];
            c.sender.on_ack_sack(now, &ack, &sack);
            let rtt = c.sender.stats().rtt;
            let new_sample = rtt.samples > c.rtt_samples_seen;
            c.rtt_samples_seen = rtt.samples;
            if let (true, Some(r)) = (new_sample, rtt.last) {
                self.flows[f].rtt.record(r);
            }
            self.tcp_transmit(f, slot);
        }
        self.tcp_mut(f).close_if_finished(slot);
    }

    /// Whether connection `slot` has just delivered the last byte of its object; if so the
    /// application hears of it.
    fn tcp_check_object(&mut self, f: usize, slot: usize) {
        let now = self.now;
        let c = &mut self.tcp_mut(f).conns[slot];
        let delivered = c.receiver.delivered_bytes();
        if c.delivered_at.is_none() && c.object.is_some_and(|n| delivered >= n) {
            c.delivered_at = Some(now);
            self.tcp_object_delivered(f);
        }
    }

    /// A connection of flow `f` delivered its whole object: a bulk file is complete; a
    /// browser requests what the page needs next, or records the page and starts thinking.
    fn tcp_object_delivered(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        let Endpoint::Tcp(t) = &mut flow.endpoint else {
            unreachable!("flow {f} is not TCP")
        };
        let TcpApp::Web(web) = &mut t.app else {
            if let TcpApp::Bulk(_) = t.app {
                t.completion = Some(now);
            }
            return;
        };
        let mut fetch = std::mem::take(&mut self.scratch_sizes);
        if let Some(response) = web.object_done(now, &mut fetch) {
            flow.responses.record(response);
            let next_page = now + web.think_time();
            if next_page < flow.stop {
                self.events.schedule(next_page, Event::AppSend(f as u32));
            }
        }
        for &size in &fetch {
            self.tcp_open(f, Some(size));
        }
        fetch.clear();
        self.scratch_sizes = fetch;
    }

    /// Sends flow `f`'s next echo request.
    fn ping_send(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        let Endpoint::Ping(source) = &mut flow.endpoint else {
            unreachable!("ping_send on a flow that does not ping")
        };
        let (data, size) = (source.data_bytes, source.packet_bytes());
        if let Some(t) = source.next(now) {
            self.events.schedule(t, Event::AppSend(f as u32));
        }
        let pkt = Packet {
            flow: FlowId(f as u32),
            flow_seq: flow.next_seq,
            tuple: flow.tuple,
            dst_node: flow.dst,
            dscp: flow.dscp,
            priority: flow.priority,
            ttl: 64,
            size_bytes: size,
            payload_bytes: data,
            icmp_type: crate::packet::ICMP_ECHO_REQUEST,
            created: now,
            enqueued: now,
            ..Packet::default()
        };
        flow.next_seq += 1;
        flow.stats.on_send(data);
        let src = flow.src;
        self.send(f, pkt, src);
    }

    /// An ICMP echo reached its destination: a request is answered with a reply that
    /// carries its send time; a reply gives the source a round-trip time.
    fn ping_receive(&mut self, pkt: PacketId) {
        let now = self.now;
        let p = self.packets.get(pkt);
        let (f, at, created, payload, t) = (
            p.flow.0 as usize,
            p.dst_node,
            p.created,
            p.payload_bytes,
            p.tuple,
        );
        let flow = &mut self.flows[f];
        if at == flow.src {
            flow.rtt.record(now - created);
            self.ledger.delivered += 1;
            self.packets.free(pkt);
            return;
        }
        flow.stats.on_receive(payload, now - created);
        // The reply copies the request's other fields (its size, data, creation time).
        let reply = Packet {
            tuple: FiveTuple {
                src_addr: t.dst_addr,
                dst_addr: t.src_addr,
                src_port: t.dst_port,
                dst_port: t.src_port,
                protocol: t.protocol,
            },
            dst_node: flow.src,
            ttl: 64,
            icmp_type: crate::packet::ICMP_ECHO_REPLY,
            enqueued: now,
            ..*p
        };
        self.ledger.delivered += 1;
        self.packets.free(pkt);
        let dst = flow.dst;
        self.send(f, reply, dst);
    }

    /// A packet arrives at `node` from a wire.
    fn receive(&mut self, node: NodeId, pkt: PacketId) {
        self.packets.set_location(pkt, Location::Node(node.0));
        let p = self.packets.get_mut(pkt);
        if p.dst_node == node {
            self.deliver(pkt);
            return;
        }
        // IP forwarding decrements the TTL and drops at zero (RFC 791 / RFC 1812).
        p.ttl = p.ttl.saturating_sub(1);
        if p.ttl == 0 {
            self.drop_packet(pkt, DropReason::Ttl, None);
            return;
        }
        // Linux `ip_forward` sets skb->priority from the TOS byte (what prio's and
        // pfifo_fast's priomap read at a router).
        p.priority = rt_tos2priority(p.dscp);
        self.forward(node, pkt);
    }

    /// Flow `f` sends `pkt` from `node`: the packet enters the arena, counts as sent (for
    /// the conservation check) and is routed.
    #[inline]
    fn send(&mut self, f: usize, pkt: Packet, node: NodeId) {
        let id = self.packets.alloc(pkt, Location::Source(f as u32));
        self.ledger.sent += 1;
        self.forward(node, id);
    }

    /// Routes a packet out of `node`.
    fn forward(&mut self, node: NodeId, pkt: PacketId) {
        let dst = self.packets.get(pkt).dst_node;
        match self.routes.next_hop(node, dst) {
            Some(i) => self.enqueue(i, pkt),
            None => self.drop_packet(pkt, DropReason::NoRoute, None),
        }
    }

    fn enqueue(&mut self, i: IfaceId, pkt: PacketId) {
        let now = self.now;
        let p = self.packets.get_mut(pkt);
        p.enqueued = now;
        p.out_iface = i.0;
        let size = p.size_bytes;
        if let Some(v) = self.ifaces[i.0 as usize].vdev {
            self.vdev_enqueue(v, pkt);
            return;
        }
        self.packets.set_location(pkt, Location::Qdisc(i.0));
        let ifc = &mut self.ifaces[i.0 as usize];
        let verdict = {
            let mut ctx = QdiscCtx::new(now, &mut self.packets, &ifc.dev, &mut self.drops);
            ifc.qdisc.enqueue(pkt, &mut ctx)
        };
        if verdict != Verdict::Dropped {
            ifc.stats.on_enqueue(size);
        }
        let refused = (verdict == Verdict::Dropped) as usize;
        ifc.stats
            .on_drops_after_enqueue(self.drops.pending.len().saturating_sub(refused));
        ifc.stats
            .backlog_changed(now, ifc.qdisc.len() as u64, ifc.qdisc.backlog_bytes());
        self.flush_drops(Some(i));
        self.kick(i);
    }

    /// Lets an idle transmitter pull its next packet from the qdisc (from its virtual
    /// device's qdisc if it is a member of one).
    fn kick(&mut self, i: IfaceId) {
        if let Some(v) = self.ifaces[i.0 as usize].vdev {
            self.kick_vdev(v);
            return;
        }
        let now = self.now;
        let ifc = &mut self.ifaces[i.0 as usize];
        if !ifc.tx.is_idle() {
            return;
        }
        let got = {
            let mut ctx = QdiscCtx::new(now, &mut self.packets, &ifc.dev, &mut self.drops);
            ifc.qdisc.dequeue(&mut ctx)
        };
        ifc.stats.on_drops_after_enqueue(self.drops.pending.len());
        ifc.stats
            .backlog_changed(now, ifc.qdisc.len() as u64, ifc.qdisc.backlog_bytes());
        match got {
            Some(pkt) => {
                let p = self.packets.get(pkt);
                let (size, sojourn) = (p.size_bytes, now - p.enqueued);
                ifc.stats.on_dequeue(size, sojourn);
                self.begin_tx(i, pkt);
            }
            None => {
                if !ifc.qdisc.is_empty() {
                    if let Some(t) = ifc.qdisc.next_wakeup(now) {
                        // A throttled shaper is asked again at every arrival: keep a pending
                        // wakeup that is already right instead of re-arming it each time.
                        let t = t.max(now);
                        if ifc.wakeup.is_none_or(|(_, at)| at != t) {
                            if let Some((old, _)) = ifc.wakeup.take() {
                                self.events.cancel(old);
                            }
                            let id = self.events.schedule(t, Event::QdiscWakeup(i.0));
                            ifc.wakeup = Some((id, t));
                        }
                    }
                }
            }
        }
        self.flush_drops(Some(i));
    }

    /// Interface `i` starts serializing `pkt` (its transmitter is idle).
    fn begin_tx(&mut self, i: IfaceId, pkt: PacketId) {
        let ifc = &mut self.ifaces[i.0 as usize];
        debug_assert!(ifc.tx.is_idle());
        let p = self.packets.get(pkt);
        // What tcpdump on this interface sees: the packet as it starts onto the wire.
        if let Some(cap) = &mut self.capture {
            cap.record(i.0, self.now, p);
        }
        let size = p.size_bytes;
        ifc.tx.sending = Some(pkt);
        self.packets.set_location(pkt, Location::Transmitting(i.0));
        let done = self.now + ifc.tx.tx_time(size);
        self.events.schedule(done, Event::TxDone(i.0));
    }

    fn tx_done(&mut self, i: IfaceId) {
        let now = self.now;
        let ifc = &mut self.ifaces[i.0 as usize];
        let pkt = ifc
            .tx
            .sending
            .take()
            .expect("TxDone without a packet in transmission");
        let mut delay = ifc.tx.delay;
        let mut lost = false;
        let mut reorders = false;
        if let Some(imp) = &mut ifc.impairment {
            let flow = self.packets.get(pkt).flow;
            lost = imp.lost(flow);
            if !lost {
                delay += imp.extra_delay(flow);
            }
            reorders = imp.reorders();
        }
        if lost {
            self.drop_packet(pkt, DropReason::Impairment, None);
        } else {
            ifc.tx.propagating += 1;
            self.packets.set_location(pkt, Location::Propagating(i.0));
            let at = now + delay;
            if reorders {
                self.events.schedule(at, Event::ArriveReordered(pkt));
            } else {
                // The sequence number its own event would have had: ties resolve as if
                // every packet on the wire had its event in the heap.
                let seq = self.events.reserve();
                if ifc.tx.wire.push(at, seq, pkt) {
                    self.events.schedule_reserved(at, seq, Event::Arrive(i.0));
                }
            }
        }
        self.kick(i);
    }

    /// The packet at the head of interface `i`'s wire arrives; the next one (if any) gets
    /// the arrival event, under the sequence number reserved when it entered the wire.
    fn wire_arrive(&mut self, i: u32) {
        let ifc = &mut self.ifaces[i as usize];
        let pkt = ifc.tx.wire.pop();
        if let Some((at, seq)) = ifc.tx.wire.head() {
            self.events.schedule_reserved(at, seq, Event::Arrive(i));
        }
        ifc.tx.propagating -= 1;
        let node = ifc.peer;
        self.receive(node, pkt);
    }

    fn deliver(&mut self, pkt: PacketId) {
        let p = self.packets.get(pkt);
        match p.tuple.protocol {
            Protocol::Tcp => return self.tcp_receive(pkt),
            Protocol::Icmp => return self.ping_receive(pkt),
            Protocol::Udp => {}
        }
        let delay = self.now - p.created;
        let (flow, payload) = (p.flow, p.payload_bytes);
        self.flows[flow.0 as usize].stats.on_receive(payload, delay);
        self.ledger.delivered += 1;
        self.packets.free(pkt);
    }

    /// Drops a packet for `reason`; `queue` is the interface whose qdisc dropped it.
    fn drop_packet(&mut self, pkt: PacketId, reason: DropReason, queue: Option<IfaceId>) {
        let flow = self.packets.get(pkt).flow;
        self.flows[flow.0 as usize].stats.on_drop(reason);
        if let Some(i) = queue {
            self.ifaces[i.0 as usize].stats.on_drop(reason);
        }
        self.ledger.dropped[reason.index()] += 1;
        self.packets.free(pkt);
    }

    /// Books the drops and CE marks a qdisc call recorded (usually none: twice per packet
    /// per hop, so the empty case returns at once).
    #[inline]
    fn flush_drops(&mut self, queue: Option<IfaceId>) {
        if self.drops.marks != 0 || !self.drops.is_empty() {
            self.flush_drops_slow(queue);
        }
    }

    #[cold]
    #[inline(never)]
    fn flush_drops_slow(&mut self, queue: Option<IfaceId>) {
        if let Some(i) = queue {
            let marks = self.drops.take_marks();
            self.ifaces[i.0 as usize].stats.marks += marks;
        }
        if self.drops.is_empty() {
            return;
        }
        // Swap the buffer out and back so that no allocation happens per drop.
        let mut pending = std::mem::take(&mut self.drops.pending);
        for &(pkt, reason) in &pending {
            self.drop_packet(pkt, reason, queue);
        }
        pending.clear();
        self.drops.pending = pending;
    }

    fn sample(&mut self) {
        let now = self.now;
        let span = (now - self.last_sample).as_secs_f64();
        self.last_sample = now;
        if span <= 0.0 {
            return;
        }
        for (i, f) in self.flows.iter_mut().enumerate() {
            let rx = f.stats.rx_bytes;
            let bytes = since_last_sample(rx, f.rx_bytes_at_last_sample);
            f.rx_bytes_at_last_sample = rx;
            self.timeseries.push(
                now.0,
                SeriesKind::Flow,
                i as u32,
                SeriesMetric::ThroughputBps,
                bytes as f64 * 8.0 / span,
            );
        }
        for (i, f) in self.flows.iter().enumerate() {
            let Endpoint::Tcp(t) = &f.endpoint else {
                continue;
            };
            if !t.trace {
                continue;
            }
            // Bulk and message flows: their one connection (web flows are not traced).
            let Some(c) = t.only_connection() else {
                continue;
            };
            let i = i as u32;
            let ss = c.sender.ssthresh();
            let ss = if ss == crate::transport::tcp::SSTHRESH_INFINITE {
                f64::INFINITY
            } else {
                ss as f64
            };
            let srtt = c.sender.srtt().map_or(f64::NAN, |r| r.as_secs_f64() * 1e3);
            self.timeseries.push(
                now.0,
                SeriesKind::Flow,
                i,
                SeriesMetric::CwndBytes,
                c.sender.cwnd() as f64,
            );
            self.timeseries
                .push(now.0, SeriesKind::Flow, i, SeriesMetric::SsthreshBytes, ss);
            self.timeseries
                .push(now.0, SeriesKind::Flow, i, SeriesMetric::SrttMs, srtt);
        }
        // Queues: interfaces that have their own qdisc, then virtual devices (entity index
        // = interface count + device index).
        let n = self.ifaces.len();
        let roots = self
            .ifaces
            .iter_mut()
            .enumerate()
            .filter(|(_, q)| q.vdev.is_none())
            .map(|(i, q)| (i, &*q.qdisc, &q.stats, &mut q.drops_at_last_sample));
        let virtuals = self
            .vdevs
            .iter_mut()
            .enumerate()
            .map(|(v, d)| (n + v, &*d.qdisc, &d.stats, &mut d.drops_at_last_sample));
        for (i, qdisc, stats, at_last) in roots.chain(virtuals) {
            let (p, b) = (qdisc.len() as f64, qdisc.backlog_bytes() as f64);
            let d = stats.drops_total();
            let new_drops = since_last_sample(d, *at_last);
            *at_last = d;
            let i = i as u32;
            self.timeseries
                .push(now.0, SeriesKind::Queue, i, SeriesMetric::BacklogPackets, p);
            self.timeseries
                .push(now.0, SeriesKind::Queue, i, SeriesMetric::BacklogBytes, b);
            self.timeseries.push(
                now.0,
                SeriesKind::Queue,
                i,
                SeriesMetric::Drops,
                new_drops as f64,
            );
        }
        self.sample_classes(now, span);
    }

    /// Fills `class_samples` with every class of every root qdisc, in class-table order
    /// (the first call also sizes the baselines: the set of classes never changes).
    fn collect_class_samples(&mut self) {
        self.class_samples.clear();
        let roots = self
            .ifaces
            .iter()
            .filter(|q| q.vdev.is_none())
            .map(|q| &q.qdisc);
        for q in roots.chain(self.vdevs.iter().map(|d| &d.qdisc)) {
            q.sample_classes(&mut self.class_samples);
        }
        let n = self.class_samples.len();
        if self.class_at_last_sample.len() != n {
            self.class_at_last_sample.resize(n, ClassSample::default());
        }
    }

    /// Per-class backlog, throughput (bytes dequeued) and drops of every classful root
    /// qdisc, as `tc -s class show` run every `sample_interval` would show them.
    fn sample_classes(&mut self, now: SimTime, span: f64) {
        self.collect_class_samples();
        for (k, (s, last)) in self
            .class_samples
            .iter()
            .zip(self.class_at_last_sample.iter_mut())
            .enumerate()
        {
            let k = k as u32;
            let bytes = since_last_sample(s.dequeued_bytes, last.dequeued_bytes);
            let drops = since_last_sample(s.drops, last.drops);
            *last = *s;
            let ts = &mut self.timeseries;
            ts.push(
                now.0,
                SeriesKind::Class,
                k,
                SeriesMetric::BacklogPackets,
                s.backlog_packets as f64,
            );
            ts.push(
                now.0,
                SeriesKind::Class,
                k,
                SeriesMetric::BacklogBytes,
                s.backlog_bytes as f64,
            );
            ts.push(
                now.0,
                SeriesKind::Class,
                k,
                SeriesMetric::ThroughputBps,
                bytes as f64 * 8.0 / span,
            );
            ts.push(
                now.0,
                SeriesKind::Class,
                k,
                SeriesMetric::Drops,
                drops as f64,
            );
        }
    }

    fn reset_statistics(&mut self) {
        let now = self.now;
        // The counters restart from zero; what they counted since the last sample still
        // belongs to the next sample's interval, so the baselines are rebased.
        self.collect_class_samples();
        for (last, s) in self
            .class_at_last_sample
            .iter_mut()
            .zip(&self.class_samples)
        {
            last.dequeued_bytes = rebase(last.dequeued_bytes, s.dequeued_bytes);
            last.drops = rebase(last.drops, s.drops);
        }
        for f in &mut self.flows {
            f.rx_bytes_at_last_sample = rebase(f.rx_bytes_at_last_sample, f.stats.rx_bytes);
            f.stats.reset();
            f.rtt.reset();
            f.responses.reset();
            if let Endpoint::Tcp(t) = &mut f.endpoint {
                t.reset_counters();
            }
        }
        for q in &mut self.ifaces {
            q.drops_at_last_sample = rebase(q.drops_at_last_sample, q.stats.drops_total());
            q.stats.reset(now);
            q.qdisc.reset_stats();
        }
        for d in &mut self.vdevs {
            d.drops_at_last_sample = rebase(d.drops_at_last_sample, d.stats.drops_total());
            d.stats.reset(now);
            d.qdisc.reset_stats();
        }
    }
}

/// What a counter counted since the last sample, given the baseline kept then.
#[inline]
fn since_last_sample(counter: u64, baseline: u64) -> u64 {
    counter.wrapping_sub(baseline)
}

/// The baseline to keep when a counter that stood at `counter` restarts from zero (the
/// warm-up end): minus what it counted since the last sample, modulo 2⁶⁴, so that the
/// next [`since_last_sample`] adds those units back and the interval across the warm-up
/// is neither cut short nor reported as zero.
#[inline]
fn rebase(baseline: u64, counter: u64) -> u64 {
    baseline.wrapping_sub(counter)
}
