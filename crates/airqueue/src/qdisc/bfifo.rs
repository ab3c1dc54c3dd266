//! `bfifo`: a byte-limited FIFO with tail drop (Linux `net/sched/sch_fifo.c`).
//!
//! Admits a packet iff `backlog + len ≤ limit` (bytes). Linux's default limit is
//! txqueuelen × psched_mtu = 1000 × 1514 bytes.
//!
//! The queue, dequeue and statistics are the FIFO core shared with `pfifo` and
//! `pfifo_head_drop` (`fifo.rs`, as Linux serves the three from one `sch_fifo.c`). What
//! differs here is `bfifo_enqueue`: the limit counts bytes (`sch->qstats.backlog +
//! qdisc_pkt_len(skb) <= limit`), so the queue holds a bounded amount of data, and thus
//! of delay at a given rate, whatever the packet sizes; a packet that does not fit is
//! refused (tail drop), even when a smaller one later would fit.

use super::fifo::{refuse, Fifo, FifoLimit};
use super::fifo_queue::PacketFifo;
use super::{Qdisc, QdiscCtx, Verdict};
use crate::conf::Bytes;
use crate::packet::PacketId;
use crate::qdisc::QdiscConf;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `bfifo` (`tc qdisc add … bfifo limit BYTES`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BfifoConf {
    /// Maximum queued bytes. Default: txqueuelen × psched_mtu = 1000 × 1514 B.
    #[serde(default = "default_limit")]
    pub limit: Bytes,
}

fn default_limit() -> Bytes {
    Bytes(1000 * 1514)
}

impl Default for BfifoConf {
    fn default() -> Self {
        BfifoConf {
            limit: default_limit(),
        }
    }
}

/// `bfifo`: the FIFO with a limit in bytes.
pub type Bfifo = Fifo<BfifoLimit>;

/// The limit of `bfifo`: queued bytes.
pub struct BfifoLimit(u64);

impl Bfifo {
    pub fn new(limit_bytes: u64) -> Self {
        Fifo::with_queue(BfifoLimit(limit_bytes), PacketFifo::default())
    }
}

impl FifoLimit for BfifoLimit {
    const KIND: &'static str = "bfifo";

    /// `bfifo_enqueue`: queues while `backlog + len ≤ limit`, else drops the arriving packet.
    #[inline]
    fn enqueue(fifo: &mut Bfifo, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let len = ctx.len_of(pkt) as u64;
        if fifo.backlog_bytes() + len <= fifo.limit.0 {
            fifo.enqueue_tail(pkt, len);
            Verdict::Queued
        } else {
            refuse(pkt, ctx)
        }
    }

    /// `fifo_init` sets the new limit; bytes above it stay queued (Linux does not trim a fifo) (`sch_fifo.c`).
    fn changed(conf: &QdiscConf) -> Option<Self> {
        match conf {
            QdiscConf::Bfifo(c) => Some(BfifoLimit(c.limit.0)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::DropReason;
    use crate::qdisc::testing::Harness;

    #[test]
    fn admits_while_backlog_plus_len_fits_the_byte_limit() {
        let mut h = Harness::new();
        let mut q = Bfifo::new(1000);
        let a = h.packet(0, 600);
        let b = h.packet(1, 500); // 600 + 500 > 1000: dropped
        let c = h.packet(2, 400); // 600 + 400 = 1000: fits exactly
        assert_eq!(h.enqueue(&mut q, a), Verdict::Queued);
        assert_eq!(h.enqueue(&mut q, b), Verdict::Dropped);
        assert_eq!(h.enqueue(&mut q, c), Verdict::Queued);
        assert_eq!(q.backlog_bytes(), 1000);
        assert_eq!(h.dropped(), vec![(b, DropReason::QdiscOverflow)]);
        assert_eq!(h.dequeue(&mut q), Some(a));
        assert_eq!(h.dequeue(&mut q), Some(c));
    }
}
