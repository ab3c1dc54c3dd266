//! `bfifo`: a byte-limited FIFO with tail drop (Linux `net/sched/sch_fifo.c`).
//!
//! Admits a packet iff `backlog + len ≤ limit` (bytes). Linux's default limit is
//! txqueuelen × psched_mtu = 1000 × 1514 bytes.

use super::fifo_queue::PacketFifo;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::Bytes;
use crate::conf::ScenarioError;
use crate::packet::{DropReason, PacketId};
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

pub struct Bfifo {
    limit_bytes: u64,
    queue: PacketFifo,
    backlog: u64,
}

impl Bfifo {
    pub fn new(limit_bytes: u64) -> Self {
        Bfifo {
            limit_bytes,
            queue: PacketFifo::default(),
            backlog: 0,
        }
    }
}

impl Qdisc for Bfifo {
    fn kind(&self) -> &'static str {
        "bfifo"
    }

    /// `fifo_init` sets the new limit; bytes above it stay queued (Linux does not trim a fifo) (`sch_fifo.c`).
    fn change(&mut self, conf: &QdiscConf, _b: &BuildCtx, _errs: &mut ScenarioError) {
        if let QdiscConf::Bfifo(c) = conf {
            self.limit_bytes = c.limit.0;
        }
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let len = ctx.len_of(pkt) as u64;
        if self.backlog + len <= self.limit_bytes {
            self.backlog += len;
            self.queue.push_back(pkt);
            Verdict::Queued
        } else {
            ctx.drop_packet(pkt, DropReason::QdiscOverflow);
            Verdict::Dropped
        }
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

#[cfg(test)]
mod tests {
    use super::*;
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
