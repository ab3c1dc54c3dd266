//! `pfifo_head_drop`: a packet-limited FIFO that, when full, drops the oldest packet to
//! admit the new one (Linux `sch_fifo.c`, `pfifo_tail_enqueue`). Fresh data wins, which
//! suits real-time traffic.

use super::fifo_queue::PacketFifo;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::ScenarioError;
use crate::packet::{DropReason, PacketId};
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

pub struct PfifoHeadDrop {
    limit: u32,
    queue: PacketFifo,
    backlog: u64,
}

impl PfifoHeadDrop {
    pub fn new(limit: u32) -> Self {
        PfifoHeadDrop {
            limit,
            queue: PacketFifo::default(),
            backlog: 0,
        }
    }
}

impl Qdisc for PfifoHeadDrop {
    fn kind(&self) -> &'static str {
        "pfifo_head_drop"
    }

    /// `fifo_init` sets the new limit; packets above it stay queued until the next arrival drops from the head (`sch_fifo.c`).
    fn change(&mut self, conf: &QdiscConf, _b: &BuildCtx, _errs: &mut ScenarioError) {
        if let QdiscConf::PfifoHeadDrop(c) = conf {
            self.limit = c.limit;
        }
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        if self.limit == 0 {
            // Linux: with limit 0 the arriving packet itself is dropped.
            ctx.drop_packet(pkt, DropReason::QdiscOverflow);
            return Verdict::Dropped;
        }
        let mut verdict = Verdict::Queued;
        if self.queue.len() as u64 >= self.limit as u64 {
            let old = self.queue.pop_front().expect("full queue has a head");
            self.backlog -= ctx.len_of(old) as u64;
            ctx.drop_packet(old, DropReason::QdiscOverflow);
            verdict = Verdict::Congested;
        }
        self.backlog += ctx.len_of(pkt) as u64;
        self.queue.push_back(pkt);
        verdict
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
}

#[cfg(test)]
mod tests {
    use super::*;
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
