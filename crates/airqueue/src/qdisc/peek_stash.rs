//! Linux's `qdisc_peek_dequeued`: a discipline whose dequeue has side effects (an AQM that
//! drops on the way, a scheduler that advances its clock) answers `peek` by dequeuing the
//! packet for real and keeping it aside; the next `dequeue` returns it. The kept packet
//! still counts in the discipline's length and backlog, as in Linux (`gso_skb`).
//!
//! On a virtual device each asking member may have its own kept packet (what the next
//! dequeue *for that member* returns); on a real interface there is at most one, kept for
//! `None`.

use crate::packet::PacketId;

/// The packets `peek` took out early, per asker, with their lengths.
#[derive(Clone, Debug, Default)]
pub(crate) struct PeekStash {
    kept: Vec<(Option<u32>, PacketId, u32)>,
}

impl PeekStash {
    /// Takes the packet kept for `member`, if any (what its next dequeue must return).
    #[inline]
    pub fn take(&mut self, member: Option<u32>) -> Option<PacketId> {
        if self.kept.is_empty() {
            return None;
        }
        let i = self.kept.iter().position(|k| k.0 == member)?;
        Some(self.kept.swap_remove(i).1)
    }

    /// Keeps `pkt` (of `len` bytes) for the next dequeue of `member` and returns it.
    #[inline]
    pub fn keep(
        &mut self,
        member: Option<u32>,
        pkt: Option<PacketId>,
        len: impl FnOnce(PacketId) -> u32,
    ) -> Option<PacketId> {
        debug_assert!(self.peeked(member).is_none(), "peek over a kept packet");
        if let Some(p) = pkt {
            self.kept.push((member, p, len(p)));
        }
        pkt
    }

    /// The packet kept for `member`, if any.
    #[inline]
    pub fn peeked(&self, member: Option<u32>) -> Option<PacketId> {
        if self.kept.is_empty() {
            return None;
        }
        self.kept.iter().find(|k| k.0 == member).map(|k| k.1)
    }

    /// Packets kept (one per asker at most).
    #[inline]
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// Bytes kept.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.kept.iter().map(|k| k.2 as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_member_gets_back_only_its_own_kept_packet() {
        let mut s = PeekStash::default();
        s.keep(Some(1), Some(PacketId(10)), |_| 100);
        s.keep(Some(2), Some(PacketId(20)), |_| 50);
        assert_eq!((s.len(), s.bytes()), (2, 150));
        assert_eq!(s.take(None), None);
        assert_eq!(s.peeked(Some(2)), Some(PacketId(20)));
        assert_eq!(s.take(Some(2)), Some(PacketId(20)));
        assert_eq!(s.take(Some(2)), None);
        assert_eq!(s.take(Some(1)), Some(PacketId(10)));
        assert_eq!((s.len(), s.bytes()), (0, 0));
    }
}
