//! The per-flow queues with jiffies-based virtual times that BoTh-WiN and CAWN share
//! (seed 000 Algorithms 1 and 3, lines 4–13; §3.2 "vt += skb->len/100").
//!
//! - A flow is a 5-tuple (the paper's `select-flow(src-ip, dst-ip, src-port, dst-port)`;
//!   BoTh-WiN adds the interface, which the 5-tuple fixes here since routing is per
//!   destination).
//! - A new flow starts at `vt = jiffies` (HZ = 100, one jiffy 10 ms), and each packet it
//!   sends advances `vt` by `len/100`. Kept exactly in hundredths of a jiffy: `vt` counts
//!   `jiffies·100` and advances by `len` (the paper's integer division truncates up to 99
//!   bytes per packet; exact arithmetic keeps the same order).
//! - `check-flow-types()`: "Video and Voice flows are given a lower virtual time". The paper
//!   does not say how much lower; *choice*: a flow whose packets carry DSCP EF (46, voice)
//!   or CS4/AF41–43 (32, 34, 36, 38, video) is, at each arrival, set just below the
//!   smallest `vt` of the other backlogged flows of its interface, so it is served next on
//!   that interface (the high band of PRIO + TBF, which the paper builds on, §3.1).
//! - A shared packet `limit` (Linux's txqueuelen, 1000); arrivals beyond it are
//!   tail-dropped (`qdisc_overflow`).

use super::QdiscCtx;
use crate::packet::{DropReason, FiveTuple, PacketId};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Linux's HZ on the paper's 2.4 kernels: one jiffy is 10 ms.
pub(crate) const JIFFY_NS: u64 = 10_000_000;

/// DSCPs taken as voice or video by `check-flow-types()`.
pub(crate) fn is_voice_or_video(dscp: u8) -> bool {
    matches!(dscp, 46 | 32 | 34 | 36 | 38)
}

pub(crate) struct JFlow {
    pub queue: VecDeque<(PacketId, u32)>,
    /// Virtual time in hundredths of a jiffy.
    pub vt: u64,
    /// The interface its packets leave by.
    pub out: u32,
}

#[derive(Default)]
pub(crate) struct JiffyFlows {
    index: FxHashMap<FiveTuple, u32>,
    pub flows: Vec<JFlow>,
    pub limit: u32,
    pub qlen: usize,
    pub backlog: u64,
}

impl JiffyFlows {
    pub fn new(limit: u32) -> Self {
        JiffyFlows {
            limit,
            ..Default::default()
        }
    }

    /// Algorithm 1/3 lines 4–13: finds or makes the flow, queues the packet, applies
    /// `check-flow-types()`. Returns the flow index, or `None` if the packet was dropped.
    pub fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Option<usize> {
        if self.qlen >= self.limit as usize {
            ctx.drop_packet(pkt, DropReason::QdiscOverflow);
            return None;
        }
        let p = ctx.packets.get(pkt);
        let (tuple, out, dscp) = (p.tuple, p.out_iface, p.dscp);
        let len = ctx.len_of(pkt);
        let now_cj = ctx.now.as_nanos() / JIFFY_NS * 100;
        let next = self.flows.len() as u32;
        let i = *self.index.entry(tuple).or_insert(next) as usize;
        if i == self.flows.len() {
            self.flows.push(JFlow {
                queue: VecDeque::new(),
                vt: now_cj,
                out,
            });
        }
        if is_voice_or_video(dscp) {
            let lowest = self
                .flows
                .iter()
                .enumerate()
                .filter(|&(k, f)| k != i && f.out == out && !f.queue.is_empty())
                .map(|(_, f)| f.vt)
                .min();
            if let Some(m) = lowest {
                let f = &mut self.flows[i];
                f.vt = f.vt.min(m.saturating_sub(1));
            }
        }
        self.flows[i].queue.push_back((pkt, len));
        self.qlen += 1;
        self.backlog += len as u64;
        Some(i)
    }

    /// The backlogged flow with the smallest `vt` among those `keep` accepts (ties: the
    /// older flow).
    pub fn min_vt(&self, keep: impl Fn(&JFlow) -> bool) -> Option<usize> {
        let mut best: Option<(u64, usize)> = None;
        for (k, f) in self.flows.iter().enumerate() {
            if !f.queue.is_empty() && keep(f) && best.is_none_or(|(v, _)| f.vt < v) {
                best = Some((f.vt, k));
            }
        }
        best.map(|(_, k)| k)
    }

    /// The head of flow `j`: packet and length.
    pub fn head(&self, j: usize) -> (PacketId, u32) {
        *self.flows[j].queue.front().expect("a backlogged flow")
    }

    /// Takes flow `j`'s head; `advance`: `vt += len/100`.
    pub fn pop(&mut self, j: usize, advance: bool) -> (PacketId, u32) {
        let (pkt, len) = self.flows[j].queue.pop_front().expect("a backlogged flow");
        if advance {
            self.flows[j].vt += len as u64;
        }
        self.qlen -= 1;
        self.backlog -= len as u64;
        (pkt, len)
    }
}
