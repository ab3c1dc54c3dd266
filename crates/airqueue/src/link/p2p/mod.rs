//! A wired point-to-point link: the first [`Medium`], two ports, one transmitter per
//! direction.
//!
//! Like a Linux device, each direction takes one packet from its qdisc when idle, holds it
//! while it is serialized at the line rate (size + `overhead` bytes), then puts it on the
//! wire for the propagation delay. It never buffers more than the one packet it is sending.
//! A constant-delay wire keeps its packets in a FIFO with one arrival event for its head
//! ([`Wire`]); a wire with jitter (which may reorder) gives each packet its own event.
//! The netem-like [`Impairment`] of a direction decides loss after serialization and the
//! extra delay.
//!
//! Event keys: `2·port` = the port's serialization ends, `2·port + 1` = the head of the
//! wire behind the port arrives, `4 + port` = netem's watchdog of the port's direction
//! (`slot`: its held packets may leave).
//!
//! The folder holds the whole medium: its scenario spec (`spec.rs`), its checks
//! (`checks.rs`), its builder from a spec (`build.rs`), the model (here, and the
//! constant-delay wire in `wire.rs`) and its unit tests.

pub mod build;
pub mod checks;
pub mod spec;
pub mod wire;

pub use spec::{LinkDirectionSpec, LinkSpec};

use crate::engine::{EventQueue, SimTime};
use crate::event::Event;
use crate::link::{
    Copies, Dequeue, Impairment, LinkChange, LinkCtx, LinkEffect, LinkView, Medium, Neighbour,
    PendingEvents, Wire, WireCx,
};
use crate::packet::{DropReason, Location, NodeId, PacketArena, PacketId};
use crate::topology::IfaceId;

/// One direction: the transmitter of a port and the wire behind it, with the direction's
/// own line rate and propagation delay (an asymmetric link has different ones).
struct Direction {
    rate_bps: u64,
    delay: SimTime,
    /// The packet being serialized, if any.
    sending: Option<PacketId>,
    /// Packets on the wire: those in `wire` and those with an arrival event of their own
    /// (a jittered wire).
    propagating: u32,
    /// The packets on a constant-delay wire, in arrival order.
    wire: Wire,
    impairment: Option<Impairment>,
    /// When netem's watchdog of this direction fires (`slot`); a pending event for
    /// another time is stale (the kernel reprograms its one hrtimer).
    watchdog: Option<SimTime>,
}

/// A full-duplex wired link between two interfaces.
pub struct P2pLink {
    name: String,
    overhead_bytes: u32,
    ports: [IfaceId; 2],
    /// `neighbours[p]`: the far end of port p.
    neighbours: [[Neighbour; 1]; 2],
    dirs: [Direction; 2],
}

const TX_DONE: u16 = 0;
const ARRIVE: u16 = 1;
/// `WATCHDOG + port`: netem's watchdog (keys 0–3 are the ports' serialization and wire).
const WATCHDOG: u16 = 4;

impl P2pLink {
    /// `ends[p]` = (interface, node) of port p; `rates[p]`, `delays[p]` and
    /// `impairments[p]` are those of what port p sends.
    pub fn new(
        name: String,
        rates: [u64; 2],
        delays: [SimTime; 2],
        overhead_bytes: u32,
        ends: [(IfaceId, NodeId); 2],
        impairments: [Option<Impairment>; 2],
    ) -> Self {
        let [i0, i1] = impairments;
        let dir = |p: usize, impairment| Direction {
            rate_bps: rates[p],
            delay: delays[p],
            sending: None,
            propagating: 0,
            wire: Wire::new(),
            impairment,
            watchdog: None,
        };
        let nb = |(iface, node)| Neighbour { node, iface };
        P2pLink {
            name,
            overhead_bytes,
            ports: [ends[0].0, ends[1].0],
            neighbours: [[nb(ends[1])], [nb(ends[0])]],
            dirs: [dir(0, i0), dir(1, i1)],
        }
    }

    /// Serialization time of a `size_bytes` packet sent by port `port`.
    #[inline(always)]
    pub fn tx_time(&self, port: usize, size_bytes: u32) -> SimTime {
        SimTime::transmission(
            (size_bytes + self.overhead_bytes) as u64,
            self.dirs[port].rate_bps,
        )
    }

    /// Packets on the wire behind port `port` (tests).
    pub fn on_wire(&self, port: usize) -> usize {
        self.dirs[port].wire.len()
    }

    /// Serialization of port `port`'s packet ends: the impairment decides its fate (and
    /// may make a copy, netem `duplicate`), it propagates, and the port can take the next
    /// packet.
    #[inline(always)]
    pub(crate) fn tx_done(&mut self, port: usize, cx: &mut LinkCtx<'_>) -> P2pOutcome {
        if self.dirs[port].impairment.is_none() {
            let iface = self.tx_done_plain(port, &mut cx.wire());
            return P2pOutcome::Ready { iface, lost: None };
        }
        let iface = self.ports[port];
        let pkt = self.take_sending(port);
        let p = cx.packets.get(pkt);
        let (flow, size) = (p.flow, p.size_bytes);
        let wire_bits = (u64::from(size) + u64::from(self.overhead_bytes)) * 8;
        let imp = self.dirs[port].impairment.as_mut().expect("checked above");
        match imp.admit(flow, wire_bits, false) {
            Copies::None => {
                return P2pOutcome::Ready {
                    iface,
                    lost: Some(pkt),
                }
            }
            Copies::One => {}
            Copies::Two => self.duplicate(port, pkt, flow, wire_bits, cx),
        }
        let imp = self.dirs[port].impairment.as_mut().expect("checked above");
        let f = imp.finish(flow, cx.now, size);
        if f.over_limit {
            cx.emit(LinkEffect::Drop {
                pkt,
                reason: DropReason::QdiscOverflow,
            });
            return P2pOutcome::Ready { iface, lost: None };
        }
        if f.corrupted {
            // netem flips a bit; the receiver's checksum discards the packet.
            return P2pOutcome::Ready {
                iface,
                lost: Some(pkt),
            };
        }
        self.netem_out(port, pkt, size, f.delay, f.reordered, cx);
        P2pOutcome::Ready { iface, lost: None }
    }

    /// A copy that netem keeps goes on: at once onto the wire (with netem's delay added
    /// to the wire's), or, with `slot` and not sent at once, into netem's queue to wait
    /// for its time and slot.
    #[inline(always)]
    fn netem_out(
        &mut self,
        port: usize,
        pkt: PacketId,
        size: u32,
        netem_delay: SimTime,
        reordered: bool,
        cx: &mut LinkCtx<'_>,
    ) {
        let imp = self.dirs[port]
            .impairment
            .as_mut()
            .expect("an impaired direction");
        if imp.slotted() && !reordered {
            imp.hold(pkt, cx.now + netem_delay, size);
            self.dirs[port].propagating += 1;
            cx.locate(pkt, Location::Propagating(self.ports[port].0));
            self.netem_dequeue(port, cx);
            return;
        }
        let own_event = reordered || imp.reorders();
        let delay = self.dirs[port].delay + netem_delay;
        self.propagate(port, pkt, delay, own_event, &mut cx.wire());
    }

    /// netem's dequeue (`slot`), run at each enqueue and when its watchdog fires: every
    /// held packet whose time and slot have come goes onto the wire; the watchdog is set
    /// for the next.
    fn netem_dequeue(&mut self, port: usize, cx: &mut LinkCtx<'_>) {
        loop {
            let d = &mut self.dirs[port];
            let imp = d.impairment.as_mut().expect("an impaired direction");
            match imp.dequeue(cx.now) {
                Dequeue::Packet(pkt) => {
                    // `propagate` counts it again.
                    d.propagating -= 1;
                    let delay = d.delay;
                    self.propagate(port, pkt, delay, false, &mut cx.wire());
                }
                Dequeue::WaitUntil(t) => {
                    if d.watchdog != Some(t) {
                        d.watchdog = Some(t);
                        cx.schedule(t, WATCHDOG + port as u16);
                    }
                    return;
                }
                Dequeue::Empty => {
                    d.watchdog = None;
                    return;
                }
            }
        }
    }

    /// netem's watchdog of `port`'s direction fires (a stale one, reprogrammed since,
    /// does nothing).
    pub(crate) fn watchdog(&mut self, port: usize, cx: &mut LinkCtx<'_>) -> P2pOutcome {
        if self.dirs[port].watchdog == Some(cx.now) {
            self.dirs[port].watchdog = None;
            self.netem_dequeue(port, cx);
        }
        P2pOutcome::Nothing
    }

    /// netem's duplicate: a copy of `pkt` enters the arena and meets the impairment on
    /// its own (loss, corruption, delay; it is not duplicated again), as netem's clone
    /// re-enters the qdisc before the original goes on.
    #[inline(always)]
    fn duplicate(
        &mut self,
        port: usize,
        pkt: PacketId,
        flow: crate::packet::FlowId,
        wire_bits: u64,
        cx: &mut LinkCtx<'_>,
    ) {
        let iface = self.ports[port];
        let copy = cx.packets.get(pkt).clone();
        let size = copy.size_bytes;
        let c = cx.packets.alloc(copy, Location::Propagating(iface.0));
        cx.emit(LinkEffect::Duplicate(c));
        let imp = self.dirs[port]
            .impairment
            .as_mut()
            .expect("a duplicating impairment");
        let lost = imp.admit(flow, wire_bits, true) == Copies::None;
        let f = (!lost).then(|| imp.finish(flow, cx.now, size));
        match f {
            Some(f) if f.over_limit => cx.emit(LinkEffect::Drop {
                pkt: c,
                reason: DropReason::QdiscOverflow,
            }),
            Some(f) if !f.corrupted => self.netem_out(port, c, size, f.delay, f.reordered, cx),
            _ => cx.emit(LinkEffect::Drop {
                pkt: c,
                reason: DropReason::Impairment,
            }),
        }
    }

    /// `pkt` goes on the wire behind `port` and arrives `delay` from now: in the wire's
    /// FIFO, or with an event of its own when it may overtake (`own_event`) or a shorter
    /// delay than the last packet's lets it.
    #[inline(always)]
    fn propagate(
        &mut self,
        port: usize,
        pkt: PacketId,
        delay: SimTime,
        own_event: bool,
        w: &mut WireCx<'_>,
    ) {
        let iface = self.ports[port];
        let d = &mut self.dirs[port];
        d.propagating += 1;
        w.packets.set_location(pkt, Location::Propagating(iface.0));
        let at = w.now + delay;
        // A delay shortened by the timeline lets this packet overtake those already on
        // the wire: it gets an event of its own, as on a jittered wire.
        if own_event || d.wire.last_arrival().is_some_and(|last| last > at) {
            w.events.schedule(at, Event::LinkPacket(pkt));
        } else {
            // The sequence number its own event would have had: ties resolve as if
            // every packet on the wire had its event in the heap.
            let seq = w.events.reserve();
            if d.wire.push(at, seq, pkt) {
                let (medium, key) = (w.medium, 2 * port as u16 + ARRIVE);
                w.events
                    .schedule_reserved(at, seq, Event::Link { medium, key });
            }
        }
    }

    /// The packet port `port` was serializing.
    #[inline(always)]
    fn take_sending(&mut self, port: usize) -> PacketId {
        self.dirs[port]
            .sending
            .take()
            .expect("serialization ends without a packet being sent")
    }

    /// Whether direction `port` has no netem: its serialization ends are
    /// [`tx_done_plain`](Self::tx_done_plain)'s.
    #[inline(always)]
    pub(crate) fn plain(&self, port: usize) -> bool {
        self.dirs[port].impairment.is_none()
    }

    /// [`tx_done`](Self::tx_done) of a direction without netem, as the simulation calls it
    /// directly: the packet goes onto the wire and the port is free (the interface is
    /// returned; the outcome is `Ready` with nothing lost).
    #[inline(always)]
    pub(crate) fn tx_done_plain(&mut self, port: usize, w: &mut WireCx<'_>) -> IfaceId {
        debug_assert!(self.plain(port));
        let pkt = self.take_sending(port);
        self.propagate(port, pkt, self.dirs[port].delay, false, w);
        self.ports[port]
    }

    /// The packet at the head of the wire behind `port` arrives; the next one (if any) gets
    /// the arrival event, under the sequence number reserved when it entered the wire.
    #[inline(always)]
    fn arrive(&mut self, port: usize, cx: &mut LinkCtx<'_>) -> P2pOutcome {
        let (pkt, to) = self.arrive_direct(port, cx.medium, cx.packets, cx.events);
        P2pOutcome::Deliver { pkt, to }
    }

    /// [`arrive`](Self::arrive) as the simulation calls it directly: the packet and the
    /// interface it is delivered to (a wire's arrival reports nothing else).
    #[inline(always)]
    pub(crate) fn arrive_direct(
        &mut self,
        port: usize,
        medium: u32,
        packets: &PacketArena,
        events: &mut EventQueue<Event>,
    ) -> (PacketId, IfaceId) {
        let d = &mut self.dirs[port];
        let pkt = d.wire.pop();
        if let Some((at, seq, next)) = d.wire.head() {
            let key = 2 * port as u16 + ARRIVE;
            events.schedule_reserved(at, seq, Event::Link { medium, key });
            // The packet arriving next gets its slot warmed ahead of use
            // (`engine::prefetch`): its arrival is a serialization time away, and after a
            // propagation delay it has usually left the core's caches (1 000 TCP flows: 4 %
            // less CPU; asking for the packet behind it, or its flow's state, as well
            // gained nothing).
            packets.prefetch(next);
        }
        d.propagating -= 1;
        (pkt, self.neighbours[port][0].iface)
    }

    /// [`Medium::send`] without the context, as the simulation calls it directly (the
    /// link touches only the packet and its own event): port `port` starts serializing
    /// `pkt`. Returns the sending interface; the caller records the transmission start
    /// for a capture, which is all the trait method reports.
    #[inline(always)]
    pub(crate) fn send_direct(
        &mut self,
        port: usize,
        pkt: PacketId,
        now: SimTime,
        medium: u32,
        packets: &mut PacketArena,
        events: &mut EventQueue<Event>,
    ) -> IfaceId {
        let iface = self.ports[port];
        debug_assert!(self.ready(port));
        let size = packets
            .relocate(pkt, Location::Transmitting(iface.0))
            .size_bytes;
        self.dirs[port].sending = Some(pkt);
        let done = now + self.tx_time(port, size);
        let key = 2 * port as u16 + TX_DONE;
        events.schedule(done, Event::Link { medium, key });
        iface
    }

    /// Which of the link's own events `key` is (see the module documentation).
    #[inline(always)]
    pub(crate) fn event_of(key: u16) -> P2pEvent {
        if key >= WATCHDOG {
            return P2pEvent::Watchdog(usize::from(key - WATCHDOG));
        }
        let port = usize::from(key / 2);
        if key % 2 == TX_DONE {
            P2pEvent::TxDone(port)
        } else {
            P2pEvent::Arrive(port)
        }
    }

    /// [`Medium::on_event`], with its effects returned rather than pushed: the simulation
    /// calls this directly for wired links (`AnyMedium::P2p`), the hot path of every wired
    /// scenario, and acts on the outcome exactly as it would on the effects the trait
    /// method emits.
    #[inline(always)]
    pub(crate) fn on_event_direct(&mut self, key: u16, cx: &mut LinkCtx<'_>) -> P2pOutcome {
        match Self::event_of(key) {
            P2pEvent::TxDone(port) => self.tx_done(port, cx),
            P2pEvent::Arrive(port) => self.arrive(port, cx),
            P2pEvent::Watchdog(port) => self.watchdog(port, cx),
        }
    }
}

/// One of a wired link's own events, decoded from its key.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum P2pEvent {
    /// Port p's serialization ends.
    TxDone(usize),
    /// The head of the wire behind port p arrives.
    Arrive(usize),
    /// netem's watchdog of port p's direction.
    Watchdog(usize),
}

/// What one of a wired link's own events did, in the order its effects would be
/// reported: a serialization end frees the port (after dropping the packet if the
/// impairment lost it); a wire's head arrival delivers the packet.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum P2pOutcome {
    Ready {
        iface: IfaceId,
        lost: Option<PacketId>,
    },
    Deliver {
        pkt: PacketId,
        to: IfaceId,
    },
    /// netem's watchdog: what it released went onto the wire.
    Nothing,
}

impl P2pOutcome {
    /// The outcome as the [`LinkEffect`]s the contract reports.
    fn emit(self, cx: &mut LinkCtx<'_>) {
        match self {
            P2pOutcome::Ready { iface, lost } => {
                if let Some(pkt) = lost {
                    cx.emit(LinkEffect::Drop {
                        pkt,
                        reason: DropReason::Impairment,
                    });
                }
                cx.emit(LinkEffect::Ready(iface));
            }
            P2pOutcome::Deliver { pkt, to } => cx.emit(LinkEffect::Deliver { pkt, to }),
            P2pOutcome::Nothing => {}
        }
    }
}

impl Medium for P2pLink {
    fn kind(&self) -> &'static str {
        "p2p"
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

    #[inline(always)]
    fn ready(&self, port: usize) -> bool {
        self.dirs[port].sending.is_none()
    }

    #[inline(always)]
    fn send(&mut self, port: usize, pkt: PacketId, cx: &mut LinkCtx<'_>) {
        // What tcpdump on this interface sees: the packet as it starts onto the wire.
        cx.tx_start(self.ports[port], pkt);
        self.send_direct(port, pkt, cx.now, cx.medium, cx.packets, cx.events);
    }

    fn on_event(&mut self, key: u16, cx: &mut LinkCtx<'_>) {
        self.on_event_direct(key, cx).emit(cx);
    }

    /// A packet on a jittered wire arrives.
    fn on_packet_event(&mut self, pkt: PacketId, cx: &mut LinkCtx<'_>) {
        let Location::Propagating(i) = cx.packets.location(pkt) else {
            unreachable!("an arriving packet is on a wire")
        };
        let port = usize::from(self.ports[1].0 == i);
        self.dirs[port].propagating -= 1;
        let to = self.neighbours[port][0].iface;
        cx.emit(LinkEffect::Deliver { pkt, to });
    }

    /// Rate, delay and impairment can all change. A new rate applies from the next packet
    /// (the one being serialized finishes at the old rate); a new delay applies to packets
    /// that finish serialization from now on; each applies to both directions (an
    /// asymmetric link becomes symmetric in it); a new impairment replaces both directions'
    /// parameters, keeping their random streams.
    fn check_change(&self, change: &LinkChange) -> Result<(), String> {
        if change.impairment.is_some() && self.dirs.iter().any(|d| d.impairment.is_none()) {
            return Err(format!(
                "link \"{}\" was built without room for an impairment",
                self.name
            ));
        }
        Ok(())
    }

    fn apply(&mut self, change: &LinkChange, cx: &mut LinkCtx<'_>) -> Result<(), String> {
        self.check_change(change)?;
        if let Some(delay) = change.delay {
            for d in &mut self.dirs {
                d.delay = delay;
            }
        }
        if let Some(spec) = &change.impairment {
            for d in &mut self.dirs {
                if let Some(imp) = &mut d.impairment {
                    imp.set(spec, cx.now);
                }
            }
        }
        if let Some(r) = change.rate_bps {
            for d in &mut self.dirs {
                d.rate_bps = r;
            }
            for &p in &self.ports {
                cx.emit(LinkEffect::ViewChanged(p));
            }
        }
        Ok(())
    }

    fn view(&self, port: usize, neighbour: NodeId) -> Option<LinkView> {
        (self.neighbours[port][0].node == neighbour).then(|| LinkView {
            neighbour,
            rate_bps: self.dirs[port].rate_bps,
            quality: None,
            rx_quality: None,
            rssi_dbm: None,
            can_send: true,
            hw_backlog: u32::from(self.dirs[port].sending.is_some()),
        })
    }

    fn held(&self, out: &mut Vec<(Location, u64)>) {
        for (p, d) in self.dirs.iter().enumerate() {
            let i = self.ports[p].0;
            out.push((Location::Transmitting(i), d.sending.is_some() as u64));
            out.push((Location::Propagating(i), u64::from(d.propagating)));
        }
    }

    /// A wire's packets are on their way when its in-order FIFO plus the packets with
    /// arrival events of their own make up its `propagating` count, and a non-empty FIFO
    /// has its head's arrival event pending.
    fn audit(&self, pending: &PendingEvents, out: &mut Vec<(Location, String)>) {
        for (p, d) in self.dirs.iter().enumerate() {
            let iface = self.ports[p];
            let loc = Location::Propagating(iface.0);
            let head_pending = pending.keys.contains(&(2 * p as u16 + ARRIVE));
            let own_events = pending.packets.iter().filter(|(_, l)| *l == loc).count() as u64;
            let in_order = d.wire.len() as u64;
            let in_netem = d.impairment.as_ref().map_or(0, |i| i.held() as u64);
            if in_netem > 0 && !pending.keys.contains(&(WATCHDOG + p as u16)) {
                out.push((
                    loc,
                    format!("netem holds {in_netem} packet(s) for slots but has no watchdog"),
                ));
            }
            if in_order > 0 && !head_pending {
                out.push((
                    loc,
                    format!("holds {in_order} packet(s) in order but no arrival event for them"),
                ));
            }
            if in_order + own_events + in_netem != u64::from(d.propagating) {
                out.push((
                    loc,
                    format!(
                        "counts {} packet(s) on it but holds {in_order} in order, {own_events} with arrival events of their own and {in_netem} in netem",
                        d.propagating
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link() -> P2pLink {
        P2pLink::new(
            "l".into(),
            [1_000_000; 2],
            [SimTime(1000); 2],
            0,
            [(IfaceId(0), NodeId(0)), (IfaceId(1), NodeId(1))],
            [None, None],
        )
    }

    /// Reference: the audit's definition (FIFO + own events = count; a non-empty FIFO has
    /// its head event). A count that disagrees with the packets on the wire is named.
    #[test]
    fn a_wire_count_that_disagrees_with_its_packets_is_reported() {
        let mut l = link();
        let mut out = Vec::new();
        l.audit(&PendingEvents::default(), &mut out);
        assert!(out.is_empty(), "{out:?}");
        l.dirs[1].propagating += 1;
        l.audit(&PendingEvents::default(), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, Location::Propagating(1));
        assert!(
            out[0].1.contains("with arrival events of their own"),
            "{out:?}"
        );
    }

    #[test]
    fn the_view_of_a_wire_is_its_rate_and_always_sendable() {
        let l = link();
        let v = l.view(0, NodeId(1)).unwrap();
        assert_eq!((v.rate_bps, v.can_send, v.hw_backlog), (1_000_000, true, 0));
        assert!(l.view(0, NodeId(0)).is_none());
    }
}
