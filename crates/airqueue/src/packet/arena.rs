//! The packet arena: owns every live packet and knows where each one is.
//!
//! Each live packet records its [`Location`] (which queue, wire or node holds it). At the end
//! of a run the simulator compares these locations with what each component says it holds;
//! a packet that a component forgot is thereby found and named (see `sim::conservation`).

use super::{Packet, PacketId};

/// Where a live packet currently is. Indices are interface, node or flow numbers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// Created by a source, not yet handed to the network.
    Source(u32),
    /// In a root queue (the qdisc of an interface or of a virtual device), by root index.
    Queue(u32),
    /// Held by the medium at the port of an interface: waiting for or in transmission
    /// (MAC queue, hardware ring, retries).
    Transmitting(u32),
    /// Sent by the port of an interface and on its way (a wire, the air).
    Propagating(u32),
    /// Inside a node (between arrival and forwarding).
    Node(u32),
    /// Held by a node hook (by hook index), see [`crate::hook`].
    Hook(u32),
}

/// A packet and where it is (`None`: the slot is free). 128 bytes on a cache-line
/// boundary: a packet spans exactly two lines (with a separate `live` flag a slot took
/// 136 bytes and a third of them straddled three lines; issue 18, item 4).
#[repr(align(64))]
struct Slot {
    packet: Packet,
    location: Option<Location>,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 128);

/// Arena of packets with a free list; handles are slot indices.
#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
    peak_live: usize,
    allocated: u64,
}

impl PacketArena {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores a packet and returns its handle. Reuses a freed slot when there is one.
    #[inline]
    pub fn alloc(&mut self, packet: Packet, location: Location) -> PacketId {
        self.live += 1;
        self.allocated += 1;
        if self.live > self.peak_live {
            self.peak_live = self.live;
        }
        if let Some(i) = self.free.pop() {
            let s = &mut self.slots[i as usize];
            s.packet = packet;
            s.location = Some(location);
            PacketId(i)
        } else {
            let i = self.slots.len() as u32;
            self.slots.push(Slot {
                packet,
                location: Some(location),
            });
            PacketId(i)
        }
    }

    /// Releases a packet. Only the simulator's delivery and drop paths call this.
    #[inline]
    pub(crate) fn free(&mut self, id: PacketId) {
        let s = &mut self.slots[id.0 as usize];
        assert!(s.location.take().is_some(), "packet {} freed twice", id.0);
        self.live -= 1;
        self.free.push(id.0);
    }

    /// Asks the CPU to bring packet `id`'s slot (both its lines) into the cache ahead of
    /// use: a packet that spent a propagation delay on a wire has usually left the per-core
    /// caches by the time it arrives (with 1 000 TCP flows, one of the two reads of every
    /// delivered packet missed the 1 MiB L2; issue 18). A hint only (`engine::prefetch`).
    #[inline(always)]
    pub fn prefetch(&self, id: PacketId) {
        if let Some(s) = self.slots.get(id.0 as usize) {
            crate::engine::prefetch::prefetch(s, std::mem::size_of::<Slot>());
        }
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        let s = &self.slots[id.0 as usize];
        debug_assert!(s.location.is_some(), "use of freed packet {}", id.0);
        &s.packet
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        let s = &mut self.slots[id.0 as usize];
        debug_assert!(s.location.is_some(), "use of freed packet {}", id.0);
        &mut s.packet
    }

    #[inline]
    pub fn size(&self, id: PacketId) -> u32 {
        self.get(id).size_bytes
    }

    #[inline]
    pub fn set_location(&mut self, id: PacketId, loc: Location) {
        let s = &mut self.slots[id.0 as usize];
        debug_assert!(s.location.is_some(), "use of freed packet {}", id.0);
        s.location = Some(loc);
    }

    /// Puts the packet at `loc` and returns it: one lookup where the hot path would make
    /// two ([`set_location`](Self::set_location), then [`get_mut`](Self::get_mut)).
    #[inline]
    pub fn relocate(&mut self, id: PacketId, loc: Location) -> &mut Packet {
        let s = &mut self.slots[id.0 as usize];
        debug_assert!(s.location.is_some(), "use of freed packet {}", id.0);
        s.location = Some(loc);
        &mut s.packet
    }

    /// Where live packet `id` is.
    ///
    /// # Panics
    /// If `id` was freed.
    pub fn location(&self, id: PacketId) -> Location {
        self.slots[id.0 as usize]
            .location
            .unwrap_or_else(|| panic!("location of freed packet {}", id.0))
    }

    /// Packets currently alive.
    pub fn live(&self) -> usize {
        self.live
    }

    /// The most packets alive at once during the run.
    pub fn peak_live(&self) -> usize {
        self.peak_live
    }

    /// Packets ever allocated.
    pub fn allocated(&self) -> u64 {
        self.allocated
    }

    /// Live packets with their locations (end-of-run accounting only).
    pub fn live_packets(&self) -> impl Iterator<Item = (PacketId, Location)> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.location.map(|l| (PacketId(i as u32), l)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimTime;
    use crate::packet::FlowId;

    #[test]
    fn freed_slots_are_reused() {
        let mut a = PacketArena::new();
        let p = a.alloc(
            Packet::udp(FlowId(0), 100, SimTime::ZERO),
            Location::Source(0),
        );
        a.free(p);
        let q = a.alloc(
            Packet::udp(FlowId(1), 200, SimTime::ZERO),
            Location::Source(1),
        );
        assert_eq!(p, q);
        assert_eq!(a.get(q).size_bytes, 200);
        assert_eq!(a.live(), 1);
        assert_eq!(a.allocated(), 2);
        assert_eq!(a.peak_live(), 1);
    }

    #[test]
    #[should_panic(expected = "freed twice")]
    fn double_free_is_caught() {
        let mut a = PacketArena::new();
        let p = a.alloc(Packet::default(), Location::Source(0));
        a.free(p);
        a.free(p);
    }
}
