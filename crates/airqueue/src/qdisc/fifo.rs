//! The one FIFO behind `pfifo`, `bfifo` and `pfifo_head_drop`, as in Linux, where
//! `net/sched/sch_fifo.c` serves all three with one queue and three `Qdisc_ops` that
//! share dequeue, peek, reset and `fifo_init`, and differ only in their enqueue
//! (`pfifo_enqueue`, `bfifo_enqueue`, `pfifo_tail_enqueue`): which limit it checks, and
//! which packet it drops when the limit is reached.
//!
//! Here the three are [`Fifo`] with a different [`FifoLimit`]; each kind's file holds its
//! limit, its enqueue and its parameters. Static dispatch: `Fifo<L>` is one type per kind,
//! with the kind's enqueue inlined into its own, as the three separate types were.
//!
//! On a virtual device the FIFO serves each asking member its own oldest packet (see
//! `fifo_queue`).

use super::fifo_queue::PacketFifo;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::ScenarioError;
use crate::packet::{DropReason, PacketId};
use crate::qdisc::QdiscConf;

/// What makes a [`Fifo`] a `pfifo`, a `bfifo` or a `pfifo_head_drop`: its limit, and the
/// enqueue that checks it (Linux's `enqueue` of the kind's `Qdisc_ops`).
pub trait FifoLimit: Sized + Send {
    /// `tc`'s name of the kind (`"pfifo"`).
    const KIND: &'static str;
    /// Offers `pkt` to `fifo`: queues it, or drops it or another packet.
    fn enqueue(fifo: &mut Fifo<Self>, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict;
    /// The limit that `tc qdisc change` with `conf` sets, if `conf` is of this kind
    /// (`fifo_init`: the limit only; the queued packets stay).
    fn changed(conf: &QdiscConf) -> Option<Self>;
}

/// A FIFO bounded by `L`. The kinds name it `Pfifo`, `Bfifo` and `PfifoHeadDrop`.
pub struct Fifo<L> {
    pub(super) limit: L,
    queue: PacketFifo,
    backlog: u64,
}

impl<L: FifoLimit> Fifo<L> {
    /// An empty FIFO with this limit, queuing in `queue` (empty, perhaps with capacity).
    pub(super) fn with_queue(limit: L, queue: PacketFifo) -> Self {
        Fifo {
            limit,
            queue,
            backlog: 0,
        }
    }

    /// Linux's `qdisc_enqueue_tail`: queues `pkt` of `len` bytes.
    #[inline]
    pub(super) fn enqueue_tail(&mut self, pkt: PacketId, len: u64) {
        self.backlog += len;
        self.queue.push_back(pkt);
    }

    /// Linux's `__qdisc_queue_drop_head`: drops the oldest packet, whoever it is for
    /// (overflow). The queue must not be empty.
    #[inline]
    pub(super) fn drop_head(&mut self, ctx: &mut QdiscCtx) {
        let old = self.queue.pop_front().expect("full queue has a head");
        self.backlog -= ctx.len_of(old) as u64;
        ctx.drop_packet(old, DropReason::QdiscOverflow);
    }
}

/// Linux's `qdisc_drop`: the arriving packet is dropped (overflow).
#[inline]
pub(super) fn refuse(pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
    ctx.drop_packet(pkt, DropReason::QdiscOverflow);
    Verdict::Dropped
}

impl<L: FifoLimit> Qdisc for Fifo<L> {
    fn kind(&self) -> &'static str {
        L::KIND
    }

    /// `fifo_init`: the kind's new limit ([`FifoLimit::changed`]).
    fn change(&mut self, conf: &QdiscConf, _b: &BuildCtx, _errs: &mut ScenarioError) {
        if let Some(limit) = L::changed(conf) {
            self.limit = limit;
        }
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        L::enqueue(self, pkt, ctx)
    }

    /// On a virtual device: the oldest packet for the asking member (see `fifo_queue`).
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let p = self.queue.take(ctx)?;
        self.backlog -= ctx.len_of(p) as u64;
        Some(p)
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.queue.peek(ctx)
    }

    fn serves_members(&self) -> bool {
        true
    }

    /// A FIFO asked while empty only finds nothing (`TCQ_F_CAN_BYPASS` in Linux).
    fn idle_when_empty(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog
    }

    fn backlog(&self) -> (usize, u64) {
        (self.queue.len(), self.backlog)
    }
}
