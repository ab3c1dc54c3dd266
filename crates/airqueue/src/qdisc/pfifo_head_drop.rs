//! `pfifo_head_drop`: a packet-limited FIFO that, when full, drops the oldest packet to
//! admit the new one (Linux `sch_fifo.c`, `pfifo_tail_enqueue`). Fresh data wins, which
//! suits real-time traffic.
//!
//! The queue, dequeue and statistics are the FIFO core shared with `pfifo` and `bfifo`
//! (`fifo.rs`, as Linux serves the three from one `sch_fifo.c`). What differs here is
//! `pfifo_tail_enqueue`: the limit counts packets as pfifo's does, but a full queue drops
//! its *oldest* packet and admits the newcomer, answering `NET_XMIT_CN` (congested, not
//! dropped: the sender's packet is in), since for real-time data the newest packet is the
//! one worth sending. With limit 0 there is no head to drop, and Linux drops the newcomer.

use super::fifo::{refuse, Fifo, FifoLimit};
use super::fifo_queue::PacketFifo;
use super::{Qdisc, QdiscCtx, Verdict};
use crate::packet::PacketId;
use crate::qdisc::QdiscConf;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `pfifo_head_drop` (`tc qdisc add … pfifo_head_drop limit N`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PfifoHeadDropConf {
    /// Maximum queued packets. Default: txqueuelen 1000.
    #[serde(default = "super::pfifo::default_limit")]
    pub limit: u32,
}

/// `pfifo_head_drop`: the FIFO with a limit in packets that drops from the head.
pub type PfifoHeadDrop = Fifo<HeadDropLimit>;

/// The limit of `pfifo_head_drop`: queued packets.
pub struct HeadDropLimit(u32);

impl PfifoHeadDrop {
    pub fn new(limit: u32) -> Self {
        Fifo::with_queue(HeadDropLimit(limit), PacketFifo::default())
    }
}

impl FifoLimit for HeadDropLimit {
    const KIND: &'static str = "pfifo_head_drop";

    /// `pfifo_tail_enqueue`: a full queue drops its oldest packet and takes the newcomer
    /// (`NET_XMIT_CN`).
    #[inline]
    fn enqueue(fifo: &mut PfifoHeadDrop, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        if fifo.limit.0 == 0 {
            // Linux: with limit 0 the arriving packet itself is dropped.
            return refuse(pkt, ctx);
        }
        let mut verdict = Verdict::Queued;
        if fifo.len() as u64 >= fifo.limit.0 as u64 {
            fifo.drop_head(ctx);
            verdict = Verdict::Congested;
        }
        fifo.enqueue_tail(pkt, ctx.len_of(pkt) as u64);
        verdict
    }

    /// `fifo_init` sets the new limit; packets above it stay queued until the next arrival drops from the head (`sch_fifo.c`).
    fn changed(conf: &QdiscConf) -> Option<Self> {
        match conf {
            QdiscConf::PfifoHeadDrop(c) => Some(HeadDropLimit(c.limit)),
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
    fn full_queue_drops_the_oldest_packet() {
        let mut h = Harness::new();
        let mut q = PfifoHeadDrop::new(2);
        let p: Vec<_> = (0..3).map(|i| h.packet(i, 100)).collect();
        assert_eq!(h.enqueue(&mut q, p[0]), Verdict::Queued);
        assert_eq!(h.enqueue(&mut q, p[1]), Verdict::Queued);
        assert_eq!(h.enqueue(&mut q, p[2]), Verdict::Congested);
        assert_eq!(h.dropped(), vec![(p[0], DropReason::QdiscOverflow)]);
        assert_eq!(h.dequeue(&mut q), Some(p[1]));
        assert_eq!(h.dequeue(&mut q), Some(p[2]));
    }
}
