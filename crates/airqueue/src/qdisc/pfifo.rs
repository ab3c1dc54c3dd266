//! `pfifo`: a packet-limited FIFO with tail drop (Linux `net/sched/sch_fifo.c`).
//!
//! Admits a packet iff fewer than `limit` packets are queued (`qlen < limit`), else drops
//! the arriving packet (reason: overflow). Linux's default limit is the device's
//! txqueuelen, 1000. The packet on the wire is not in the qdisc and does not count.

use super::fifo_queue::PacketFifo;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::ScenarioError;
use crate::packet::{DropReason, PacketId};
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

pub struct Pfifo {
    limit: u32,
    queue: PacketFifo,
    backlog: u64,
}

impl Pfifo {
    pub fn new(limit: u32) -> Self {
        Pfifo {
            limit,
            queue: PacketFifo::with_capacity(limit.min(4096) as usize),
            backlog: 0,
        }
    }
}

impl Qdisc for Pfifo {
    fn kind(&self) -> &'static str {
        "pfifo"
    }

    /// `fifo_init` sets the new limit; packets above it stay queued (Linux does not trim a fifo) (`sch_fifo.c`).
    fn change(&mut self, conf: &QdiscConf, _b: &BuildCtx, _errs: &mut ScenarioError) {
        if let QdiscConf::Pfifo(c) = conf {
            self.limit = c.limit;
        }
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        if (self.queue.len() as u64) < self.limit as u64 {
            self.backlog += ctx.len_of(pkt) as u64;
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
