//! Linux's `qdisc_peek_dequeued`: a discipline whose dequeue has side effects (an AQM that
//! drops on the way, a scheduler that advances its clock) answers `peek` by dequeuing the
//! packet for real and keeping it aside; the next `dequeue` returns it. The kept packet
//! still counts in the discipline's length and backlog, as in Linux (`gso_skb`).

use crate::packet::PacketId;

/// The packet a `peek` took out early, with its length.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PeekStash {
    kept: Option<(PacketId, u32)>,
}

impl PeekStash {
    /// The kept packet, if any (what the next dequeue must return).
    #[inline]
    pub fn take(&mut self) -> Option<PacketId> {
        self.kept.take().map(|(p, _)| p)
    }

    /// Keeps `pkt` (of `len` bytes) for the next dequeue and returns it.
    #[inline]
    pub fn keep(
        &mut self,
        pkt: Option<PacketId>,
        len: impl FnOnce(PacketId) -> u32,
    ) -> Option<PacketId> {
        debug_assert!(self.kept.is_none(), "peek over a kept packet");
        self.kept = pkt.map(|p| (p, len(p)));
        pkt
    }

    #[inline]
    pub fn peeked(&self) -> Option<PacketId> {
        self.kept.map(|(p, _)| p)
    }

    /// Packets kept (0 or 1).
    #[inline]
    pub fn len(&self) -> usize {
        self.kept.is_some() as usize
    }

    /// Bytes kept.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.kept.map_or(0, |(_, l)| l as u64)
    }
}
