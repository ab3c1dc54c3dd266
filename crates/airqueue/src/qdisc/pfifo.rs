//! `pfifo`: a packet-limited FIFO with tail drop (Linux `net/sched/sch_fifo.c`).
//!
//! Admits a packet iff fewer than `limit` packets are queued (`qlen < limit`), else drops
//! the arriving packet (reason: overflow). Linux's default limit is the device's
//! txqueuelen, 1000. The packet on the wire is not in the qdisc and does not count.
//!
//! The queue, dequeue and statistics are the FIFO core shared with `bfifo` and
//! `pfifo_head_drop` (`fifo.rs`, as Linux serves the three from one `sch_fifo.c`). What
//! differs here is `pfifo_enqueue`: the limit counts packets, whatever their size, as the
//! device's txqueuelen does, and a full queue refuses the newcomer (tail drop), keeping the
//! packets already queued.

use super::fifo::{refuse, Fifo, FifoLimit};
use super::fifo_queue::PacketFifo;
use super::{Qdisc, QdiscCtx, Verdict};
use crate::packet::PacketId;
use crate::qdisc::QdiscConf;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `pfifo` (`tc qdisc add … pfifo limit N`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PfifoConf {
    /// Maximum queued packets (the packet being transmitted is not counted, as in Linux).
    /// Default: txqueuelen 1000.
    #[serde(default = "default_limit")]
    pub limit: u32,
}

/// Linux's default txqueuelen.
pub(crate) fn default_limit() -> u32 {
    1000
}

impl Default for PfifoConf {
    fn default() -> Self {
        PfifoConf {
            limit: default_limit(),
        }
    }
}

/// `pfifo`: the FIFO with a limit in packets.
pub type Pfifo = Fifo<PfifoLimit>;

/// The limit of `pfifo`: queued packets.
pub struct PfifoLimit(u32);

impl Pfifo {
    pub fn new(limit: u32) -> Self {
        Fifo::with_queue(PfifoLimit(limit), PacketFifo::for_limit(limit))
    }
}

impl FifoLimit for PfifoLimit {
    const KIND: &'static str = "pfifo";

    /// `pfifo_enqueue`: queues while `qlen < limit`, else drops the arriving packet.
    #[inline]
    fn enqueue(fifo: &mut Pfifo, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        if (fifo.len() as u64) < fifo.limit.0 as u64 {
            fifo.enqueue_tail(pkt, ctx.len_of(pkt) as u64);
            Verdict::Queued
        } else {
            refuse(pkt, ctx)
        }
    }

    /// `fifo_init` sets the new limit; packets above it stay queued (Linux does not trim a fifo) (`sch_fifo.c`).
    fn changed(conf: &QdiscConf) -> Option<Self> {
        match conf {
            QdiscConf::Pfifo(c) => Some(PfifoLimit(c.limit)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::Harness;

    #[test]
    fn admits_exactly_limit_packets_then_tail_drops() {
        let mut h = Harness::new();
        let mut q = Pfifo::new(3);
        let p: Vec<_> = (0..5).map(|i| h.packet(i, 100)).collect();
        let v: Vec<_> = p.iter().map(|&x| h.enqueue(&mut q, x)).collect();
        assert_eq!(
            v,
            [
                Verdict::Queued,
                Verdict::Queued,
                Verdict::Queued,
                Verdict::Dropped,
                Verdict::Dropped
            ]
        );
        let dropped: Vec<_> = h.dropped().into_iter().map(|(x, _)| x).collect();
        assert_eq!(dropped, vec![p[3], p[4]]);
        assert_eq!(q.len(), 3);
        assert_eq!(q.backlog_bytes(), 300);
    }

    #[test]
    fn dequeues_in_arrival_order() {
        let mut h = Harness::new();
        let mut q = Pfifo::new(10);
        let p: Vec<_> = (0..4).map(|i| h.packet(i, 100 + i)).collect();
        for &x in &p {
            h.enqueue(&mut q, x);
        }
        let out: Vec<_> = std::iter::from_fn(|| h.dequeue(&mut q)).collect();
        assert_eq!(out, p);
        assert_eq!(q.backlog_bytes(), 0);
    }

    #[test]
    fn limit_zero_drops_everything_as_linux_does() {
        let mut h = Harness::new();
        let mut q = Pfifo::new(0);
        let p = h.packet(0, 100);
        assert_eq!(h.enqueue(&mut q, p), Verdict::Dropped);
    }
}
