//! The event and timer contract, below every model: what can happen ([`Event`]), whose
//! timer slot fired ([`TimerOwner`]), the root-queue index ([`RootId`]) and the TCP
//! endpoint a timer names ([`Side`]). Media, hooks and qdiscs schedule these through their
//! contexts (`link::LinkCtx`, `hook::HookCtx`); the run loop (`crate::sim`) dispatches them.
//! As smoltcp's `time.rs`, this file imports nothing of the models that use it.

use crate::packet::PacketId;

/// Index of a root queue.
pub type RootId = u32;

/// Everything that can happen. Kept small (8 bytes, a heap entry is 24) so the heap stays
/// cache-friendly.
#[derive(Copy, Clone, Debug)]
pub enum Event {
    /// Flow i's source emits its next datagram.
    AppSend(u32),
    /// One of medium `medium`'s own events (`crate::link::LinkCtx::schedule`): a
    /// transmission ends, a frame arrives, …; the key is the medium's.
    Link { medium: u32, key: u16 },
    /// An event for one packet held by a medium (e.g. arrival over a wire that reorders);
    /// the packet's location names the medium.
    LinkPacket(PacketId),
    /// Take a time-series sample.
    Sample,
    /// Reset statistics: the warm-up is over.
    WarmupEnd,
    /// Timeline entry i applies (`sim::timeline`).
    Change(u32),
    /// Far entry i (`sim::far`): a flow's start or stop, the warm-up's end or a timeline
    /// change, known at build and kept out of the queue until it is the earliest of them.
    Far(u32),
}

const _: () = assert!(std::mem::size_of::<Event>() == 8);

/// Who a timer slot belongs to.
#[derive(Copy, Clone, Debug)]
pub enum TimerOwner {
    /// The wake-up of a root queue's non-work-conserving qdisc.
    Root(RootId),
    Medium {
        medium: u32,
        key: u32,
    },
    Hook {
        hook: u32,
        key: u32,
    },
    /// An endpoint of a TCP connection (`sim::tcp_flow`).
    Tcp {
        flow: u32,
        conn: u16,
        side: Side,
    },
}

/// A timer slot stores its owner beside its due time; 12 bytes keeps a slot small.
const _: () = assert!(std::mem::size_of::<TimerOwner>() == 12);

/// Which endpoint a timer event is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Side {
    Sender = 0,
    Receiver = 1,
}
