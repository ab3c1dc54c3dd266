//! The packet FIFO inside the tail/head-drop disciplines, served per member on a virtual
//! device.
//!
//! On a real interface it is a plain FIFO. On a virtual device (IMQ-like, several member
//! interfaces behind one qdisc) a member asks only for its own packets: the FIFO hands it
//! the oldest packet *for that member*, skipping the others' packets instead of blocking
//! behind them. Why not head-of-line blocking: in Linux IMQ the virtual device drains its
//! qdisc into each member's own device queue at once (`imq_dev_xmit` re-injects every
//! packet as soon as it is dequeued), so a FIFO on imq0 never makes one interface wait for
//! another's packet; it keeps the arrival order per interface and shares one limit. This
//! does the same without the second queue. The cost is a scan past the other members'
//! packets at the head (zero on a real interface).

use super::QdiscCtx;
use crate::packet::PacketId;

/// A FIFO of packet handles: a ring buffer whose capacity is a power of two (an index
/// wraps with a mask, where `VecDeque` compares and subtracts), grown as needed and
/// reused. Every packet a FIFO-based discipline queues passes here.
#[derive(Default)]
pub(crate) struct PacketFifo {
    /// `buf.len()` is 0 or a power of two; the packets are `buf[head..head + len]`
    /// (indices modulo `buf.len()`), oldest first.
    buf: Vec<PacketId>,
    head: usize,
    len: usize,
}

impl PacketFifo {
    pub fn with_capacity(n: usize) -> Self {
        let cap = if n == 0 { 0 } else { n.next_power_of_two() };
        PacketFifo {
            buf: vec![PacketId(u32::MAX); cap],
            head: 0,
            len: 0,
        }
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    /// The buffer index of the `k`-th oldest packet.
    #[inline(always)]
    fn slot(&self, k: usize) -> usize {
        (self.head + k) & self.mask()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn push_back(&mut self, p: PacketId) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let i = self.slot(self.len);
        self.buf[i] = p;
        self.len += 1;
    }

    /// Doubles the ring (at least 8 places), its packets moved to the front in order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (2 * self.buf.len()).max(8);
        let mut buf = vec![PacketId(u32::MAX); cap];
        for (k, b) in buf.iter_mut().enumerate().take(self.len) {
            *b = self.buf[self.slot(k)];
        }
        self.buf = buf;
        self.head = 0;
    }

    /// The queued packets, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        (0..self.len).map(|k| self.buf[self.slot(k)])
    }

    /// Removes the oldest packet, whoever it is for (head drop).
    #[inline]
    pub fn pop_front(&mut self) -> Option<PacketId> {
        if self.len == 0 {
            return None;
        }
        let p = self.buf[self.head];
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(p)
    }

    /// Removes the `k`-th oldest packet, keeping the others in order.
    fn remove(&mut self, k: usize) -> Option<PacketId> {
        if k >= self.len {
            return None;
        }
        let p = self.buf[self.slot(k)];
        for j in k..self.len - 1 {
            let (to, from) = (self.slot(j), self.slot(j + 1));
            self.buf[to] = self.buf[from];
        }
        self.len -= 1;
        Some(p)
    }

    /// Position of the oldest packet the asker may take.
    #[inline]
    fn position(&self, ctx: &QdiscCtx) -> Option<usize> {
        match ctx.member {
            None => (self.len > 0).then_some(0),
            Some(_) => self.iter().position(|p| ctx.is_for_asker(p)),
        }
    }

    /// The oldest packet for the asker.
    #[inline]
    pub fn peek(&self, ctx: &QdiscCtx) -> Option<PacketId> {
        if ctx.member.is_none() {
            return (self.len > 0).then(|| self.buf[self.head]);
        }
        self.position(ctx).map(|k| self.buf[self.slot(k)])
    }

    /// Takes the oldest packet for the asker. A real interface (no asking member) takes
    /// the head without a scan: this is on every dequeue of every FIFO. The member's
    /// scan is out of line, so that the common case costs the disciplines that inline
    /// this no registers.
    #[inline(always)]
    pub fn take(&mut self, ctx: &QdiscCtx) -> Option<PacketId> {
        if ctx.member.is_none() {
            return self.pop_front();
        }
        self.take_for_member(ctx)
    }

    #[inline(never)]
    fn take_for_member(&mut self, ctx: &QdiscCtx) -> Option<PacketId> {
        match self.position(ctx)? {
            0 => self.pop_front(),
            k => self.remove(k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// The ring keeps FIFO order through wrap-arounds, growth and removals from the
    /// middle (the reference is a `VecDeque` given the same operations).
    #[test]
    fn the_ring_behaves_as_a_deque() {
        let mut f = PacketFifo::with_capacity(3);
        let mut want: VecDeque<PacketId> = VecDeque::new();
        let mut n = 0u32;
        for round in 1..30usize {
            for _ in 0..round {
                n += 1;
                f.push_back(PacketId(n));
                want.push_back(PacketId(n));
            }
            // Remove from the middle, then from the front.
            let k = round % want.len().max(1);
            assert_eq!(f.remove(k), want.remove(k));
            for _ in 0..round / 2 {
                assert_eq!(f.pop_front(), want.pop_front());
            }
            assert_eq!(f.len(), want.len());
            assert!(f.iter().eq(want.iter().copied()));
        }
        assert_eq!(f.remove(f.len()), None);
        while let Some(p) = want.pop_front() {
            assert_eq!(f.pop_front(), Some(p));
        }
        assert_eq!(f.pop_front(), None);
    }
}
