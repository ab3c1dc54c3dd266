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
use std::collections::VecDeque;

#[derive(Default)]
pub(crate) struct PacketFifo {
    queue: VecDeque<PacketId>,
}

/// The packets a FIFO has room for before its first growth.
///
/// A FIFO starts with room for `min(limit, INITIAL_CAPACITY)` packets and doubles when full
/// (it never holds more than its limit): a queue that reaches the default limit of 1 000
/// packets grows 4 times (64 → 1 024) in a whole run, and none once it has held its
/// largest backlog, so the steady state allocates nothing. Room for
/// the whole limit up front (`limit.min(4096)`, as before issue 37) cost 4 KiB per
/// interface: a 10 000-host star allocated (and freed) 80 MB for its 20 002 interfaces'
/// queues, most of which never hold more than one packet. The capacity is never observed,
/// so results do not depend on it.
pub(crate) const INITIAL_CAPACITY: u32 = 64;

impl PacketFifo {
    /// A FIFO for at most `limit` packets (see [`INITIAL_CAPACITY`]).
    pub fn for_limit(limit: u32) -> Self {
        PacketFifo {
            queue: VecDeque::with_capacity(limit.min(INITIAL_CAPACITY) as usize),
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    #[inline]
    pub fn push_back(&mut self, p: PacketId) {
        self.queue.push_back(p);
    }

    /// The queued packets, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.queue.iter().copied()
    }

    /// Removes the oldest packet, whoever it is for (head drop).
    #[inline]
    pub fn pop_front(&mut self) -> Option<PacketId> {
        self.queue.pop_front()
    }

    /// Position of the oldest packet the asker may take.
    #[inline]
    fn position(&self, ctx: &QdiscCtx) -> Option<usize> {
        match ctx.member {
            None => (!self.queue.is_empty()).then_some(0),
            Some(_) => self.queue.iter().position(|&p| ctx.is_for_asker(p)),
        }
    }

    /// The oldest packet for the asker.
    #[inline]
    pub fn peek(&self, ctx: &QdiscCtx) -> Option<PacketId> {
        if ctx.member.is_none() {
            return self.queue.front().copied();
        }
        self.position(ctx).map(|i| self.queue[i])
    }

    /// Takes the oldest packet for the asker. A real interface (no asking member) takes
    /// the head without a scan: this is on every dequeue of every FIFO. The member's
    /// scan is out of line, so that the common case costs the disciplines that inline
    /// this no registers.
    #[inline(always)]
    pub fn take(&mut self, ctx: &QdiscCtx) -> Option<PacketId> {
        if ctx.member.is_none() {
            return self.queue.pop_front();
        }
        self.take_for_member(ctx)
    }

    #[inline(never)]
    fn take_for_member(&mut self, ctx: &QdiscCtx) -> Option<PacketId> {
        match self.position(ctx)? {
            0 => self.queue.pop_front(),
            i => self.queue.remove(i),
        }
    }
}
