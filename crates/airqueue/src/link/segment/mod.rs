//! A shared half-duplex segment: one frame at a time among all its ports, granted in the
//! order the ports asked (FIFO arbitration), as ns-3's `CsmaChannel` behaves without
//! collisions. The second [`Medium`], proving the contract: a port reaches every other
//! port, and the link-layer next hop (`Packet::next_hop`) picks the receiver.
//!
//! The channel is busy from the start of a frame's serialization (size + `overhead` bytes
//! at the segment rate) until its last bit has propagated (`delay` later), as ns-3's
//! channel goes TRANSMITTING → PROPAGATING → IDLE; then the receiver gets the packet, the
//! next waiting port (if any) is granted the channel, and only then may the port that just
//! sent take its next packet — so saturated ports take turns, each sending one frame per
//! round. Each port holds at most the one packet it is waiting to send or sending (a
//! NIC with a one-frame transmit ring); the qdisc above holds the rest.
//!
//! What it does not model: collisions and back-off (ns-3's `CsmaNetDevice` backs off a
//! random number of slots when the channel is busy; FIFO arbitration is its collision-free
//! limit), broadcast, and per-port rates.
//!
//! The folder holds the whole medium: its scenario spec (`spec.rs`), its checks
//! (`checks.rs`), its builder from a spec (`build.rs`) and the model (here).

pub mod build;
pub mod checks;
pub mod spec;

pub use spec::SegmentSpec;

use crate::engine::SimTime;
use crate::link::{LinkCtx, LinkEffect, LinkView, Medium, Neighbour};
use crate::packet::{DropReason, Location, NodeId, PacketId};
use crate::topology::IfaceId;
use std::collections::VecDeque;

const SERIALIZED: u16 = 0;
const PROPAGATED: u16 = 1;

/// The frame on the channel.
#[derive(Copy, Clone, Debug)]
struct OnAir {
    port: u32,
    pkt: PacketId,
    /// Serialization is over and its bits are propagating.
    propagating: bool,
}

pub struct Segment {
    name: String,
    rate_bps: u64,
    delay: SimTime,
    overhead_bytes: u32,
    ports: Vec<IfaceId>,
    nodes: Vec<NodeId>,
    /// Per port: every other port, in port order.
    neighbours: Vec<Vec<Neighbour>>,
    /// Per port: the packet it holds (waiting for the channel or on it).
    holding: Vec<Option<PacketId>>,
    /// Ports waiting for the channel, in the order they asked.
    waiting: VecDeque<u32>,
    on_air: Option<OnAir>,
}

impl Segment {
    /// `ends[p]` = (interface, node) of port p.
    pub fn new(
        name: String,
        rate_bps: u64,
        delay: SimTime,
        overhead_bytes: u32,
        ends: &[(IfaceId, NodeId)],
    ) -> Self {
        let neighbours = (0..ends.len())
            .map(|p| {
                ends.iter()
                    .enumerate()
                    .filter(|&(q, _)| q != p)
                    .map(|(_, &(iface, node))| Neighbour { node, iface })
                    .collect()
            })
            .collect();
        Segment {
            name,
            rate_bps,
            delay,
            overhead_bytes,
            ports: ends.iter().map(|e| e.0).collect(),
            nodes: ends.iter().map(|e| e.1).collect(),
            neighbours,
            holding: vec![None; ends.len()],
            waiting: VecDeque::with_capacity(ends.len()),
            on_air: None,
        }
    }

    fn tx_time(&self, size_bytes: u32) -> SimTime {
        SimTime::transmission((size_bytes + self.overhead_bytes) as u64, self.rate_bps)
    }

    /// Port `port` gets the idle channel for the packet it holds.
    fn start(&mut self, port: u32, cx: &mut LinkCtx<'_>) {
        let pkt = self.holding[port as usize].expect("a granted port holds a packet");
        self.on_air = Some(OnAir {
            port,
            pkt,
            propagating: false,
        });
        cx.tx_start(self.ports[port as usize], pkt);
        let size = cx.packets.get(pkt).size_bytes;
        cx.schedule(cx.now + self.tx_time(size), SERIALIZED);
    }

    /// The frame's last bit left its port: it propagates for `delay`.
    fn serialized(&mut self, cx: &mut LinkCtx<'_>) {
        let a = self.on_air.as_mut().expect("a frame is on the channel");
        a.propagating = true;
        let iface = self.ports[a.port as usize];
        cx.locate(a.pkt, Location::Propagating(iface.0));
        cx.schedule(cx.now + self.delay, PROPAGATED);
    }

    /// The frame reached its receiver: deliver it, grant the channel to the next waiting
    /// port, then let the sender take its next packet (it waits behind the others).
    fn propagated(&mut self, cx: &mut LinkCtx<'_>) {
        let a = self.on_air.take().expect("a frame is on the channel");
        self.holding[a.port as usize] = None;
        let next_hop = cx.packets.get(a.pkt).next_hop;
        match self.nodes.iter().position(|&n| n == next_hop) {
            Some(r) if r != a.port as usize => cx.emit(LinkEffect::Deliver {
                pkt: a.pkt,
                to: self.ports[r],
            }),
            // Routing only picks neighbours on this segment; a frame for anyone else has
            // no receiver.
            _ => cx.emit(LinkEffect::Drop {
                pkt: a.pkt,
                reason: DropReason::NoRoute,
            }),
        }
        if let Some(next) = self.waiting.pop_front() {
            self.start(next, cx);
        }
        cx.emit(LinkEffect::Ready(self.ports[a.port as usize]));
    }
}

impl Medium for Segment {
    fn kind(&self) -> &'static str {
        "segment"
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn ports(&self) -> &[IfaceId] {
        &self.ports
    }

    fn neighbours(&self, port: usize) -> &[Neighbour] {
        &self.neighbours[port]
    }

    fn ready(&self, port: usize) -> bool {
        self.holding[port].is_none()
    }

    fn send(&mut self, port: usize, pkt: PacketId, cx: &mut LinkCtx<'_>) {
        debug_assert!(self.ready(port));
        self.holding[port] = Some(pkt);
        cx.locate(pkt, Location::Transmitting(self.ports[port].0));
        if self.on_air.is_none() {
            self.start(port as u32, cx);
        } else {
            self.waiting.push_back(port as u32);
        }
    }

    fn on_event(&mut self, key: u16, cx: &mut LinkCtx<'_>) {
        match key {
            SERIALIZED => self.serialized(cx),
            _ => self.propagated(cx),
        }
    }

    /// Carrier sense: the port can send when the channel is idle; the rate is the
    /// segment's.
    fn view(&self, port: usize, neighbour: NodeId) -> Option<LinkView> {
        self.neighbours[port]
            .iter()
            .any(|n| n.node == neighbour)
            .then(|| LinkView {
                neighbour,
                rate_bps: self.rate_bps,
                quality: None,
                rx_quality: None,
                rssi_dbm: None,
                can_send: self.on_air.is_none(),
                hw_backlog: u32::from(self.holding[port].is_some()),
            })
    }

    fn held(&self, out: &mut Vec<(Location, u64)>) {
        for (p, h) in self.holding.iter().enumerate() {
            let i = self.ports[p].0;
            let propagating = self
                .on_air
                .is_some_and(|a| a.port as usize == p && a.propagating);
            out.push((
                Location::Transmitting(i),
                u64::from(h.is_some() && !propagating),
            ));
            out.push((Location::Propagating(i), u64::from(propagating)));
        }
    }
}
