//! Node hooks: components attached to a node that see each packet arriving there, with
//! the interface it came in on, before it is delivered or forwarded (Linux's netfilter
//! PREROUTING, or the receive path of a tunnel device).
//!
//! A hook answers each arrival with a [`HookVerdict`]: pass it on, hold it (the hook keeps
//! the handle, and the packet ledger counts it at [`Location::Hook`] until the hook
//! releases or drops it), or drop it with a reason. Hooks have their own timers
//! ([`HookCtx::arm`]) and report releases and later drops as [`HookEffect`]s, acted upon
//! after the hook's call returns. A released packet continues at the node as if this hook
//! had passed it: through the node's later hooks, then delivery or forwarding.
//!
//! The striping resequencer (seed 004, `stripe/resequencer.rs`) and a gateway that watches both directions of its
//! traffic (seed 003) are hooks. Packets a node's own applications send do not pass its
//! hooks (they do not arrive).

use crate::engine::{EventQueue, SimTime, TimerId, Timers};
use crate::event::{Event, TimerOwner};
use crate::packet::{DropReason, Location, Packet, PacketArena, PacketId};
use crate::topology::IfaceId;

/// What a hook does with an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HookVerdict {
    /// The packet goes on (later hooks, then delivery or forwarding).
    Pass,
    /// The hook keeps the packet; it releases or drops it later ([`HookEffect`]).
    Hold,
    /// The packet is dropped for this reason.
    Drop(DropReason),
    /// The packet ends here, taken by the hook: a control packet addressed to the layer
    /// the hook stands for (a striping trunk's marker or ACK). The ledger counts it as
    /// consumed.
    Consume,
}

/// What a hook reports outside `on_arrival`'s verdict.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HookEffect {
    /// A held packet goes on.
    Release(PacketId),
    /// A held packet is dropped.
    Drop(PacketId, DropReason),
    /// A held packet ends here, taken by the hook (see [`HookVerdict::Consume`]).
    Consume(PacketId),
    /// A packet the hook made ([`HookCtx::send_new`]: a trunk's ACK, NAK or
    /// retransmission) leaves the node, routed as if its upper layer had sent it; the
    /// ledger counts it as created.
    Send(PacketId),
}

/// Everything a hook may touch during one call.
pub struct HookCtx<'a> {
    pub now: SimTime,
    /// The calling hook's index (the ledger location of what it holds).
    pub(crate) hook: u32,
    /// The packets' headers (read them; do not free).
    pub packets: &'a mut PacketArena,
    pub(crate) events: &'a mut EventQueue<Event>,
    pub(crate) timers: &'a mut Timers,
    pub(crate) out: &'a mut Vec<HookEffect>,
}

impl HookCtx<'_> {
    /// Arms one of the hook's timers (from [`HookBuild::timer`]).
    pub fn arm(&mut self, timer: TimerId, at: SimTime) {
        self.timers.arm(self.events, timer, at);
    }

    pub fn cancel(&mut self, timer: TimerId) {
        self.timers.cancel(timer);
    }

    /// Releases a held packet.
    pub fn release(&mut self, pkt: PacketId) {
        self.out.push(HookEffect::Release(pkt));
    }

    /// Drops a held packet.
    pub fn drop_packet(&mut self, pkt: PacketId, reason: DropReason) {
        self.out.push(HookEffect::Drop(pkt, reason));
    }

    /// Ends a held packet here (a control packet the hook has read).
    pub fn consume(&mut self, pkt: PacketId) {
        self.out.push(HookEffect::Consume(pkt));
    }

    /// Makes a new packet and sends it from the hook's node (routed like a packet of its
    /// upper layer). It enters the ledger as created.
    pub fn send_new(&mut self, packet: Packet) -> PacketId {
        let id = self.packets.alloc(packet, Location::Hook(self.hook));
        self.out.push(HookEffect::Send(id));
        id
    }
}

/// Build-time services for a hook.
pub struct HookBuild<'a> {
    pub(crate) hook: u32,
    pub(crate) timers: &'a mut Timers,
    pub(crate) owners: &'a mut Vec<TimerOwner>,
}

impl HookBuild<'_> {
    /// A cancellable timer of this hook; [`NodeHook::on_timer`] gets `key` back.
    pub fn timer(&mut self, key: u32) -> TimerId {
        let id = self.timers.add();
        self.owners.push(TimerOwner::Hook {
            hook: self.hook,
            key,
        });
        id
    }
}

/// A component on a node's receive path (see the module documentation).
pub trait NodeHook {
    /// A name for messages (the ledger names held packets' place by it).
    fn name(&self) -> &str;

    /// Called once when the simulation is built: allocate timers.
    fn attach(&mut self, _b: &mut HookBuild<'_>) {}

    /// `pkt` arrived at the node on `iface`.
    fn on_arrival(&mut self, pkt: PacketId, iface: IfaceId, cx: &mut HookCtx<'_>) -> HookVerdict;

    /// One of the hook's timers fires.
    fn on_timer(&mut self, _key: u32, _cx: &mut HookCtx<'_>) {}

    /// Packets the hook holds now (conservation check).
    fn held(&self) -> u64;

    /// Appends the hook's result tables (rows of shared tables such as `trunk_receivers`)
    /// at the end of the run.
    fn report(&self, _out: &mut Vec<(String, crate::metrics::Table)>) {}
}

/// The ledger location of packets held by hook `h`.
pub fn location(h: u32) -> Location {
    Location::Hook(h)
}
