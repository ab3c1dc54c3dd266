//! `host_drr`: Deficit Round Robin (Shreedhar and Varghese, SIGCOMM'95) over one queue per
//! destination host — what `tc qdisc add … drr` with one class per host and a `flow`
//! filter keyed on `dst` builds in Linux, with the classes made as hosts appear. It is the
//! per-host fairness baseline beside `dfq` (seed 003) and `cake dual-dsthost`: each
//! backlogged host gets an equal share of the link in bytes, whatever its RTT or number of
//! flows.
//!
//! The DRR rule is Linux `sch_drr.c`'s: a host that becomes backlogged joins the tail of
//! the active list with `deficit = quantum`; the head host sends its head packet if it fits
//! its deficit (a host that empties leaves the list), otherwise it gets another quantum and
//! moves to the tail. `limit` packets are shared by all hosts; when full, the longest host
//! queue loses its head packet (reason `overflow`), as `sfq` drops from its longest slot,
//! so that one host cannot take the whole buffer (Linux DRR's per-class pfifo children
//! would each have their own limit instead).

use super::host_queues::HostQueues;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::{Bytes, ScenarioError};
use crate::packet::{DropReason, PacketId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `host_drr`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostDrrConf {
    /// Packets queued over all hosts. Default 1000 (txqueuelen).
    #[serde(default = "super::pfifo::default_limit")]
    pub limit: u32,
    /// Bytes a host may send per round. Default: the device's psched_mtu.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Bytes>,
}

pub struct HostDrr {
    limit: u32,
    quantum: u64,
    queues: HostQueues,
    deficit: Vec<u64>,
}

impl HostDrr {
    pub fn from_conf(c: &HostDrrConf, b: &BuildCtx, errs: &mut ScenarioError) -> Option<Self> {
        let quantum = c.quantum.map_or(b.dev.psched_mtu as u64, |q| q.0);
        if quantum == 0 {
            errs.push(format!("{}.quantum", b.path), "must be at least 1 byte");
            return None;
        }
        if c.limit == 0 {
            errs.push(format!("{}.limit", b.path), "must be at least 1 packet");
            return None;
        }
        Some(HostDrr {
            limit: c.limit,
            quantum,
            queues: HostQueues::default(),
            deficit: Vec::new(),
        })
    }
}

impl Qdisc for HostDrr {
    fn kind(&self) -> &'static str {
        "host_drr"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let h = self.queues.host(ctx.packets.get(pkt).tuple.dst_addr);
        if h == self.deficit.len() {
            self.deficit.push(0);
        }
        if self.queues.push(h, pkt, ctx.len_of(pkt)) {
            self.deficit[h] = self.quantum;
        }
        if self.queues.len <= self.limit as usize {
            return Verdict::Queued;
        }
        let fat = self.queues.fattest().expect("a packet was just queued");
        let victim = self
            .queues
            .pop_anywhere(fat, |p| ctx.len_of(p))
            .expect("the fattest host has a packet");
        ctx.drop_packet(victim, DropReason::QdiscOverflow);
        if victim == pkt {
            Verdict::Dropped
        } else {
            Verdict::Congested
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        loop {
            let &h = self.queues.active.front()?;
            let head = self.queues.hosts[h].fifo.iter().next()?;
            let len = ctx.len_of(head) as u64;
            if len <= self.deficit[h] {
                self.deficit[h] -= len;
                let p = self.queues.pop(h, |p| ctx.len_of(p));
                self.queues.retire_if_empty(h);
                return p;
            }
            self.deficit[h] += self.quantum;
            self.queues.active.rotate_left(1);
        }
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        // The packet the DRR rule serves next: rotations that only add quanta do not
        // change which packet leaves, so they are made here as dequeue would make them.
        loop {
            let &h = self.queues.active.front()?;
            let head = self.queues.hosts[h].fifo.iter().next()?;
            if ctx.len_of(head) as u64 <= self.deficit[h] {
                return Some(head);
            }
            self.deficit[h] += self.quantum;
            self.queues.active.rotate_left(1);
        }
    }

    fn len(&self) -> usize {
        self.queues.len
    }

    fn backlog_bytes(&self) -> u64 {
        self.queues.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::super::classify::NameTable;
    use super::super::testing::Harness;
    use super::*;
    use crate::qdisc::QdiscConf;

    #[test]
    fn backlogged_hosts_share_bytes_equally_whatever_their_packet_sizes() {
        // Reference: DRR's fairness bound (Shreedhar & Varghese Lemma 2): over any run of
        // rounds, the bytes two backlogged queues send differ by less than quantum + max
        // packet size. Host 1 sends 1500 B packets, host 2 300 B, host 3 700 B.
        let mut h = Harness::new();
        let conf: QdiscConf = toml::from_str("kind = \"host_drr\"\nlimit = 100000").unwrap();
        let QdiscConf::HostDrr(c) = conf else {
            panic!()
        };
        let names = NameTable::default();
        let mut q =
            HostDrr::from_conf(&c, &h.build_ctx(&names), &mut ScenarioError::default()).unwrap();
        for (host, size, n) in [(1u32, 1500u32, 400), (2, 300, 2000), (3, 700, 1000)] {
            for _ in 0..n {
                let p = h.packet_with(host, size, |p| p.tuple.dst_addr = host);
                h.enqueue(&mut q, p);
            }
        }
        let mut sent = [0u64; 4];
        for _ in 0..1500 {
            let peeked = h.peek(&mut q);
            let p = h.dequeue(&mut q).unwrap();
            assert_eq!(peeked, Some(p));
            sent[h.packets.get(p).tuple.dst_addr as usize] += h.packets.size(p) as u64;
        }
        let (lo, hi) = (
            sent[1..].iter().min().unwrap(),
            sent[1..].iter().max().unwrap(),
        );
        println!("{sent:?}");
        assert!(hi - lo < 1514 + 1500, "{sent:?}");
    }
}
