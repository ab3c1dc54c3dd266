//! Application glue: the sources and TCP endpoints of the flows turned into packets, and
//! the packets that reach an end host turned back into what the endpoint hears.

use super::root_queue::Xmit;
use super::tcp_flow::{self, Side, TcpApp, TcpFlow, NO_TIMER};
use super::{Endpoint, Event, Simulation, TimerOwner};
use crate::engine::TimerId;

/// The IP TTL every host sends with (RFC 1122 §3.2.1.7 recommends 64; Linux's default).
pub(super) const INITIAL_TTL: u8 = 64;
use crate::packet::{
    FiveTuple, FlowId, Packet, PacketId, Protocol, TcpHeader, IPV4_HEADER_BYTES, UDP_HEADER_BYTES,
};
use crate::transport::tcp::{ts_clock, AckInfo, Segment, TcpFlags};

impl Simulation {
    pub(super) fn app_send(&mut self, f: usize) {
        match &mut self.flows[f].endpoint {
            Endpoint::Udp(_) => self.udp_send(f),
            Endpoint::Tcp(_) => self.tcp_app_event(f),
            Endpoint::Ping(_) => self.ping_send(f),
            Endpoint::Real => {}
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
            ttl: INITIAL_TTL,
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
            flow.app_event = Some(self.events.schedule(t, Event::AppSend(f as u32)));
        }
        let _ = self.send(f, pkt, src);
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
            // was sent, complete once it has all arrived. (A connection the timeline aborted
            // has nothing left to finish.)
            let c = &mut t.conns[0];
            if !c.open {
                return;
            }
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
    pub(super) fn tcp_open(&mut self, f: usize, object: Option<u64>) {
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
    ///
    /// A data segment that the host's own interface queue refuses is handed back to the
    /// sender ([`TcpSender::on_local_drop`]): with Linux's or BSD's behaviour it stays
    /// unsent and the sender stops until the next ACK or timer, as `tcp_write_xmit` does;
    /// an AQM's early drop of it reduces the window (NET_XMIT_CN, Linux's
    /// `tcp_enter_cwr` in `tcp_transmit_skb`).
    fn tcp_transmit(&mut self, f: usize, slot: usize) {
        let now = self.now;
        while let Some(seg) = self.tcp_mut(f).conns[slot].sender.poll_transmit(now) {
            match self.send_segment(f, slot, &seg) {
                Xmit::Queued => {}
                Xmit::Dropped => {
                    let sender = &mut self.tcp_mut(f).conns[slot].sender;
                    if sender.on_local_drop(now, &seg) {
                        break;
                    }
                }
                Xmit::Congested => self.tcp_mut(f).conns[slot].sender.on_local_congestion(),
            }
        }
        self.tcp_arm(f, slot);
    }

    /// Arms each endpoint's timer slot at its deadline, or disarms it when it has none.
    fn tcp_arm(&mut self, f: usize, slot: usize) {
        let now = self.now;
        for side in [Side::Sender, Side::Receiver] {
            let t = self.tcp_mut(f);
            let deadline = t.deadline(slot, side);
            let mut id = t.conns[slot].timers[side as usize];
            if id == NO_TIMER {
                if deadline.is_none() {
                    continue;
                }
                id = self.tcp_timer_slot(f, slot, side);
            }
            match deadline {
                Some(at) => self.timers.arm(&mut self.events, id, at.max(now)),
                None => self.timers.cancel(id),
            }
        }
    }

    /// A timer slot for endpoint `side` of connection `slot` of flow `f` (the first time
    /// the slot is armed; the pool keeps it when the slot is reused).
    #[cold]
    fn tcp_timer_slot(&mut self, f: usize, slot: usize, side: Side) -> TimerId {
        let id = self.timers.add();
        self.timer_owners.push(TimerOwner::Tcp {
            flow: f as u32,
            conn: slot as u16,
            side,
        });
        debug_assert_eq!(self.timer_owners.len(), self.timers.len());
        self.tcp_mut(f).conns[slot].timers[side as usize] = id;
        id
    }

    pub(super) fn tcp_timer(&mut self, f: usize, slot: usize, side: Side) {
        let now = self.now;
        let t = self.tcp_mut(f);
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
    fn send_segment(&mut self, f: usize, slot: usize, seg: &Segment) -> Xmit {
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
            ttl: INITIAL_TTL,
            size_bytes: seg.len + tcp_flow::TCP_WIRE_HEADER_BYTES,
            payload_bytes: seg.len,
            ecn,
            tcp: TcpHeader {
                seq: seg.seq,
                ack: seg.ack,
                flags: seg.flags.bits(),
                window: seg.window,
                tsval: seg.tsval,
                tsecr: 0,
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
        self.send(f, pkt, src)
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
            ttl: INITIAL_TTL,
            size_bytes: tcp_flow::TCP_WIRE_HEADER_BYTES + sack_bytes,
            payload_bytes: 0,
            tcp: TcpHeader {
                seq: ack.seq,
                ack: ack.ack,
                flags: ack.flags.bits(),
                window: ack.window,
                tsval: if ack.tsecr != 0 { ts_clock(now) } else { 0 },
                tsecr: ack.tsecr,
            },
            created: now,
            enqueued: now,
            ..Packet::default()
        };
        let dst = flow.dst;
        let _ = self.send(f, pkt, dst);
    }

    /// A TCP packet reached the end host it was addressed to.
    pub(super) fn tcp_receive(&mut self, pkt: PacketId) {
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
        let Endpoint::Tcp(t) = &mut self.flows[f].endpoint else {
            // A real host's segment at an emulated node (live mode): it ends there, as at
            // a host with no socket on that port (counted as absorbed, `real_counts`).
            self.flows[f].stats.on_receive(len, delay);
            return;
        };
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
                tsval: h.tsval,
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
                tsecr: h.tsecr,
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
            if flow.pages.len() < super::MAX_PAGES_KEPT {
                flow.pages.push((now - response, now));
            }
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
            flow.app_event = Some(self.events.schedule(t, Event::AppSend(f as u32)));
        }
        let pkt = Packet {
            flow: FlowId(f as u32),
            flow_seq: flow.next_seq,
            tuple: flow.tuple,
            dst_node: flow.dst,
            dscp: flow.dscp,
            priority: flow.priority,
            ttl: INITIAL_TTL,
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
        let _ = self.send(f, pkt, src);
    }

    /// An ICMP echo reached its destination: a request is answered with a reply that
    /// carries its send time; a reply gives the source a round-trip time.
    pub(super) fn ping_receive(&mut self, pkt: PacketId) {
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
        if matches!(flow.endpoint, Endpoint::Real) {
            // A real host's ICMP at an emulated node (live mode).
            return self.answer_real_ping(pkt);
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
            ttl: INITIAL_TTL,
            icmp_type: crate::packet::ICMP_ECHO_REPLY,
            enqueued: now,
            ..*p
        };
        self.ledger.delivered += 1;
        self.packets.free(pkt);
        let dst = flow.dst;
        let _ = self.send(f, reply, dst);
    }
}
