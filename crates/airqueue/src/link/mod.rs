//! The link layer: media, their ports, and what a driver tells the layers above.
//!
//! # The medium contract
//!
//! A **medium** ([`Medium`]) is whatever carries frames between interfaces: a wired
//! point-to-point link ([`P2pLink`]), a shared half-duplex segment ([`Segment`]), and in
//! later issues an 802.11 channel or a Bluetooth piconet. It owns its **ports** — the
//! interfaces `<node>.<medium>` — and knows which neighbours each port reaches. It keeps
//! its own per-port state (MAC state, hardware queues, frames on the air) and schedules its
//! own events, and it talks to the simulation only through [`LinkCtx`]:
//!
//! - the simulation **pushes** a packet into a port with [`Medium::send`] only when
//!   [`Medium::ready`] says the port can take one (the MAC pulls from the egress qdisc or
//!   virtual device: the qdisc decides the order, the medium decides when);
//! - the medium **reports** what happened as [`LinkEffect`]s pushed into the context:
//!   a packet delivered to an interface, a packet dropped with its [`DropReason`], a
//!   transmission start (what tcpdump on the sender sees), a port that can take a packet
//!   again, a change in what a driver would report about a neighbour. The simulation acts
//!   on them after the medium's call returns, in order, so a medium is never re-entered
//!   while it runs;
//! - its own events are [`LinkCtx::schedule`] (a 16-bit key it interprets), a packet event
//!   [`LinkCtx::schedule_packet`] (one event per packet, for media that reorder), and
//!   cancellable timers ([`LinkCtx::arm`]) from [`crate::engine::Timers`], so that `Event`
//!   stays 8 bytes and cancelling taxes no other event;
//! - it tells the conservation check what it holds ([`Medium::held`]): packets waiting at
//!   or being sent by a port are at [`Location::Transmitting`]`(iface)`, packets on the air
//!   or the wire behind a port at [`Location::Propagating`]`(iface)`.
//!
//! An IP packet stays one [`PacketId`] from the qdisc to the receiving node, through MAC
//! retries and segmentation: MAC frames (ACK, RTS/CTS, POLL/NULL, baseband segments) are
//! the medium's own state and never enter the packet arena.
//!
//! # Neighbours and the link-layer next hop
//!
//! A port may reach several neighbours (a shared segment, an 802.11 AP). Routing works on
//! the neighbour graph and sets [`crate::packet::Packet::next_hop`], the node the packet is
//! for on this medium (its MAC destination); the medium delivers it to that node's port.
//!
//! # Link views
//!
//! [`LinkView`] is what a real driver would tell a qdisc about the link to one neighbour —
//! `iw station dump`/nl80211 on Wi-Fi, an HCI on Bluetooth: the PHY rate its rate control
//! uses, a link-quality estimate built from what the MAC observed (ACK and retry history,
//! RSSI as reported), whether the MAC can send to that neighbour now, and the hardware
//! queue's backlog. **Never the simulator's truth**: no channel state, no true SNR, no
//! future hops. A medium reports a change with [`LinkEffect::ViewChanged`]; the qdiscs on
//! that port hear of it ([`crate::qdisc::Qdisc::link_changed`]) and are asked again.
//!
//! `docs/architecture.md` ("How to add a medium") walks through writing one.

pub mod air;
pub mod bluetooth;
mod driver;
pub mod netem;
pub mod p2p;
pub mod segment;
pub mod wifi;

pub(crate) use driver::DriverLedger;
pub use netem::impairment::{Copies, Dequeue, Finish, Impairment};
pub use p2p::wire::Wire;
pub use p2p::P2pLink;
pub(crate) use p2p::{P2pEvent, P2pOutcome};
pub use segment::Segment;

use crate::engine::{EventId, EventQueue, SimTime, TimerId, Timers};
use crate::event::Event;
use crate::metrics::{QueueStats, Table};
use crate::packet::{DropReason, Location, NodeId, PacketArena, PacketId};
use crate::topology::IfaceId;

/// A neighbour a port reaches: the node and its interface on the same medium.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Neighbour {
    pub node: NodeId,
    pub iface: IfaceId,
}

/// What a driver reports about the link from one port to one neighbour (see the module
/// documentation for what may and may not be here).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LinkView {
    pub neighbour: NodeId,
    /// The PHY rate the MAC's rate control uses now, bit/s (a wire: its line rate).
    pub rate_bps: u64,
    /// Estimated frame delivery probability from the MAC's ACK/retry history, in [0, 1];
    /// `None` when the MAC has no feedback (a wire).
    pub quality: Option<f64>,
    /// Estimated delivery probability of the neighbour's frames *to* this port, in [0,
    /// 1], as the receiver can tell from what arrives (retry flags, sequence numbers);
    /// `None` when the MAC has no feedback (a wire). What the wireless extensions' IW_SPY
    /// reports per spied station is the quality of frames received from it (seed 000 §3.2).
    pub rx_quality: Option<f64>,
    /// Received signal strength as a driver reports it, dBm; `None` on a wire.
    pub rssi_dbm: Option<f64>,
    /// Whether the MAC can send to this neighbour now (e.g. a Bluetooth slave that can be
    /// polled in the current slot); a wire: always.
    pub can_send: bool,
    /// Packets waiting in the hardware (driver) queue towards this neighbour, including
    /// the one being sent.
    pub hw_backlog: u32,
}

/// A port's driver (hardware) queue below its qdisc, as the medium models it: the queue
/// `tc -s qdisc` does not show — a NIC's ring (`ethtool -S`, BQL's
/// `/sys/class/net/*/queues/tx-*/byte_queue_limits`), mac80211's TXQs (debugfs `aqm`).
/// Its statistics count from the warm-up ([`Medium::warmup_end`]): packets enter when the
/// port takes them ([`Medium::send`]) and leave when the MAC is done with them (sent, or
/// dropped with a reason); the sojourn is the time between.
#[derive(Copy, Clone, Debug)]
pub struct DriverQueue<'a> {
    /// What it is: `"fifo"` (a driver buffer of `limit_packets`), `"mac80211"` (per-station
    /// FQ-CoDel TXQs and the frame the hardware sends).
    pub kind: &'static str,
    /// Packets it holds at most (a FIFO: the port takes no more, the qdisc above keeps
    /// them; mac80211: one TXQ's FQ-CoDel `limit`, which drops).
    pub limit_packets: u64,
    pub stats: &'a QueueStats,
}

/// What a medium tells the simulation; acted upon in order after the medium's call.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum LinkEffect {
    /// `pkt` reached interface `to`; its node receives it.
    Deliver { pkt: PacketId, to: IfaceId },
    /// `pkt` was lost on the medium.
    Drop { pkt: PacketId, reason: DropReason },
    /// `pkt` is a copy the medium made of a packet (netem `duplicate`), already in the
    /// arena at one of the medium's locations: a new packet in the ledger.
    Duplicate(PacketId),
    /// `pkt` starts onto the medium from `from` (what a capture on `from` records).
    TxStart { from: IfaceId, pkt: PacketId },
    /// Port `iface` can take a packet again: its root queue is asked.
    Ready(IfaceId),
    /// What `iface`'s driver reports about a neighbour changed: the qdiscs on it hear of
    /// it and are asked again.
    ViewChanged(IfaceId),
}

/// The pending events of one medium at the end of a run (for [`Medium::audit`]).
#[derive(Default, Debug)]
pub struct PendingEvents {
    /// Keys of its pending [`LinkCtx::schedule`] events.
    pub keys: Vec<u16>,
    /// Packets with a pending [`LinkCtx::schedule_packet`] event, with their locations.
    pub packets: Vec<(PacketId, Location)>,
}

/// A change of a medium's parameters at an instant of the timeline (`[[at]]` with `link`):
/// the fields that are `Some` change, in every direction. Media opt in through
/// [`Medium::check_change`] and [`Medium::apply`]; later kinds of change add fields.
#[derive(Clone, Debug, Default)]
pub struct LinkChange {
    /// New line rate, bit/s.
    pub rate_bps: Option<u64>,
    /// New propagation delay.
    pub delay: Option<SimTime>,
    /// New impairment (replacing the whole previous one, as netem `change`).
    pub impairment: Option<crate::link::netem::ImpairmentSpec>,
    /// A station of a cell associates (`true`) or leaves (`false`): the node, and what.
    pub associate: Option<(NodeId, bool)>,
}

/// Everything a medium may touch during one call.
pub struct LinkCtx<'a> {
    pub now: SimTime,
    /// This medium's index (its events carry it).
    pub(crate) medium: u32,
    pub(crate) events: &'a mut EventQueue<Event>,
    pub(crate) timers: &'a mut Timers,
    pub packets: &'a mut PacketArena,
    pub(crate) out: &'a mut Vec<LinkEffect>,
    /// Whether a capture records transmission starts (otherwise `tx_start` is free).
    pub(crate) capturing: bool,
}

impl<'a> LinkCtx<'a> {
    /// Schedules one of the medium's own events; [`Medium::on_event`] gets `key` back.
    #[inline]
    pub fn schedule(&mut self, at: SimTime, key: u16) -> EventId {
        let medium = self.medium;
        self.events.schedule(at, Event::Link { medium, key })
    }

    /// Takes the sequence number of a future [`schedule_reserved`](Self::schedule_reserved)
    /// (see [`Wire`]: ties resolve as if the event had been scheduled now).
    #[inline]
    pub fn reserve(&mut self) -> EventId {
        self.events.reserve()
    }

    #[inline]
    pub fn schedule_reserved(&mut self, at: SimTime, seq: EventId, key: u16) {
        let medium = self.medium;
        self.events
            .schedule_reserved(at, seq, Event::Link { medium, key })
    }

    /// Schedules an event for `pkt`, which must be at a location of this medium until it
    /// fires ([`Medium::on_packet_event`]).
    #[inline]
    pub fn schedule_packet(&mut self, at: SimTime, pkt: PacketId) {
        self.events.schedule(at, Event::LinkPacket(pkt));
    }

    /// Arms one of the medium's timers (allocated with [`MediumBuild::timer`]), replacing
    /// its previous arming.
    #[inline]
    pub fn arm(&mut self, timer: TimerId, at: SimTime) {
        self.timers.arm(self.events, timer, at);
    }

    #[inline]
    pub fn cancel(&mut self, timer: TimerId) {
        self.timers.cancel(timer);
    }

    /// Reports an effect to the simulation.
    #[inline]
    pub fn emit(&mut self, e: LinkEffect) {
        self.out.push(e);
    }

    /// `pkt` starts onto the medium from `from`: reported as [`LinkEffect::TxStart`] when
    /// a capture records it, and nothing otherwise (the hot path pays nothing).
    #[inline]
    pub fn tx_start(&mut self, from: IfaceId, pkt: PacketId) {
        if self.capturing {
            self.out.push(LinkEffect::TxStart { from, pkt });
        }
    }

    /// Puts `pkt` at `loc` (one of this medium's locations) in the packet ledger.
    #[inline]
    pub fn locate(&mut self, pkt: PacketId, loc: Location) {
        self.packets.set_location(pkt, loc);
    }

    /// The part of the context a wire's own path uses.
    #[inline(always)]
    pub(crate) fn wire(&mut self) -> WireCx<'_> {
        WireCx {
            now: self.now,
            medium: self.medium,
            packets: self.packets,
            events: self.events,
        }
    }
}

/// What a point-to-point link's serialization end touches: the time, the medium's index
/// (its events carry it), the packets and the event queue. Four fields where a
/// [`LinkCtx`] has seven: the simulation builds one for every wired hop.
pub(crate) struct WireCx<'a> {
    pub(crate) now: SimTime,
    pub(crate) medium: u32,
    pub(crate) packets: &'a mut PacketArena,
    pub(crate) events: &'a mut EventQueue<Event>,
}

/// Build-time services for a medium: timers with their owner recorded.
pub struct MediumBuild<'a> {
    pub(crate) medium: u32,
    pub(crate) timers: &'a mut Timers,
    pub(crate) owners: &'a mut Vec<crate::event::TimerOwner>,
}

impl MediumBuild<'_> {
    /// A cancellable timer of this medium; [`Medium::on_timer`] gets `key` back.
    pub fn timer(&mut self, key: u32) -> TimerId {
        let id = self.timers.add();
        self.owners.push(crate::event::TimerOwner::Medium {
            medium: self.medium,
            key,
        });
        id
    }
}

/// A medium as the simulation holds it: the wired link, the most common one and on the
/// hot path of every wired scenario, without dynamic dispatch (its methods inline into
/// the run loop); any other medium behind the [`Medium`] trait object. Both obey the same
/// contract; this is only how calls reach them. The wired link is stored inline on purpose
/// (no pointer to follow on the hot path); the others are behind a box anyway.
#[allow(clippy::large_enum_variant)]
pub enum AnyMedium {
    P2p(P2pLink),
    Dyn(Box<dyn Medium>),
}

impl AnyMedium {
    #[inline]
    pub fn get(&self) -> &dyn Medium {
        match self {
            AnyMedium::P2p(l) => l,
            AnyMedium::Dyn(m) => &**m,
        }
    }

    #[inline]
    pub fn get_mut(&mut self) -> &mut dyn Medium {
        match self {
            AnyMedium::P2p(l) => l,
            AnyMedium::Dyn(m) => &mut **m,
        }
    }

    #[inline(always)]
    pub fn ready(&self, port: usize) -> bool {
        match self {
            AnyMedium::P2p(l) => l.ready(port),
            AnyMedium::Dyn(m) => m.ready(port),
        }
    }

    #[inline]
    pub fn send(&mut self, port: usize, pkt: PacketId, cx: &mut LinkCtx<'_>) {
        match self {
            AnyMedium::P2p(l) => l.send(port, pkt, cx),
            AnyMedium::Dyn(m) => m.send(port, pkt, cx),
        }
    }

    #[inline]
    pub fn on_event(&mut self, key: u16, cx: &mut LinkCtx<'_>) {
        match self {
            AnyMedium::P2p(l) => l.on_event(key, cx),
            AnyMedium::Dyn(m) => m.on_event(key, cx),
        }
    }
}

/// A medium: see the module documentation for the contract.
pub trait Medium {
    /// The scenario's kind name (`"p2p"`, `"segment"`).
    fn kind(&self) -> &'static str;

    /// The scenario's name of this link or segment.
    fn name(&self) -> &str;

    /// The interfaces that are this medium's ports, in port order.
    fn ports(&self) -> &[IfaceId];

    /// The neighbours port `port` reaches, in a fixed order (routing breaks ties by it).
    fn neighbours(&self, port: usize) -> &[Neighbour];

    /// Called once when the simulation is built, before any event: allocate timers.
    fn attach(&mut self, _b: &mut MediumBuild<'_>) {}

    /// Called once at time zero, before the flows' first events: schedule what the medium
    /// does on its own (beacons, a polling cycle, a scheduled state change).
    fn start(&mut self, _cx: &mut LinkCtx<'_>) {}

    /// Whether port `port` can take a packet now.
    fn ready(&self, port: usize) -> bool;

    /// Port `port` takes `pkt` (only when [`ready`](Self::ready)); `pkt.next_hop` names
    /// the neighbour it is for.
    fn send(&mut self, port: usize, pkt: PacketId, cx: &mut LinkCtx<'_>);

    /// One of the medium's [`LinkCtx::schedule`] events fires.
    fn on_event(&mut self, key: u16, cx: &mut LinkCtx<'_>);

    /// A [`LinkCtx::schedule_packet`] event for `pkt` fires.
    fn on_packet_event(&mut self, _pkt: PacketId, _cx: &mut LinkCtx<'_>) {
        unreachable!("{} schedules no packet events", self.kind())
    }

    /// One of the medium's timers fires.
    fn on_timer(&mut self, _key: u32, _cx: &mut LinkCtx<'_>) {
        unreachable!("{} arms no timers", self.kind())
    }

    /// What the driver of `port` reports about `neighbour` (`None` if it is not one).
    fn view(&self, port: usize, neighbour: NodeId) -> Option<LinkView>;

    /// Adds what the medium holds to `out`, per location (conservation check).
    fn held(&self, out: &mut Vec<(Location, u64)>);

    /// End-of-run self-check given the medium's pending events: one entry per
    /// inconsistency, the place and what is wrong there (e.g. packets on a wire without
    /// an arrival event); the simulation names the place.
    fn audit(&self, _pending: &PendingEvents, _out: &mut Vec<(Location, String)>) {}

    /// The driver queue of port `port` below its qdisc, if the medium models one (a wired
    /// link holds only the frame it serializes: none). Default: none.
    fn driver_queue(&self, _port: usize) -> Option<DriverQueue<'_>> {
        None
    }

    /// The warm-up ends at `now`: the driver queues' statistics restart (what the medium
    /// counts from `run.warmup` by itself is its own business). Default: nothing.
    fn warmup_end(&mut self, _now: SimTime) {}

    /// Adds the medium's own result tables at the end of a run (`now` = the stop time) to
    /// `tables` (`RunResults::more`), appending rows to a table of the same name that
    /// another medium of the kind started (an 802.11 cell's `stations`). Default: none.
    fn report(&self, _now: SimTime, _tables: &mut Vec<(String, Table)>) {}

    /// Whether the medium can apply `change` (asked when the simulation is built, so that
    /// a timeline the medium cannot follow is a scenario problem, not a failure mid-run).
    /// The default refuses every change.
    fn check_change(&self, _change: &LinkChange) -> Result<(), String> {
        Err(format!(
            "a {} medium takes no timeline changes yet",
            self.kind()
        ))
    }

    /// Applies `change` at `cx.now` (only a change [`check_change`](Self::check_change)
    /// accepted). A medium whose rate changed reports [`LinkEffect::ViewChanged`] for its
    /// ports, so rate-aware qdiscs hear of it.
    fn apply(&mut self, change: &LinkChange, _cx: &mut LinkCtx<'_>) -> Result<(), String> {
        self.check_change(change)
    }

    /// The port of `iface`, if it is one of this medium's.
    fn port_of(&self, iface: IfaceId) -> Option<usize> {
        self.ports().iter().position(|&i| i == iface)
    }
}
