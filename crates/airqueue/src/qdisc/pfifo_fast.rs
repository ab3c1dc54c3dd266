//! `pfifo_fast`: Linux's classic default qdisc, three FIFO bands chosen by
//! `skb->priority` (Linux `net/sched/sch_generic.c`).
//!
//! A packet goes to band `priomap[skb->priority & 15]` with the fixed priomap
//! `1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1` (no filters); dequeue takes the first non-empty band.
//! Since Linux 4.16 (the lockless pfifo_fast, `pfifo_fast_init` → `skb_array_init(q,
//! dev->tx_queue_len)` per band) each band has its own ring of txqueuelen packets: a full
//! band 2 never refuses a band-0 packet. That is the default here. `shared_limit = true`
//! gives the kernels of the seeds' era (2.4/2.6, up to 4.15): one txqueuelen over the
//! three bands together (`qdisc->q.qlen < dev->tx_queue_len`). Skb priorities
//! come from the sending socket (the flow's `priority`, or its DSCP through IP_TOS) and,
//! at routers, from the TOS byte (`ip_forward` → `rt_tos2priority`).
//!
//! The bands are reported as classes `band0`–`band2`. On a virtual device each band is
//! served per member (see `fifo_queue`).

use super::class_stats::ClassStats;
use super::fifo_queue::PacketFifo;
use super::prio::DEFAULT_PRIOMAP;
use super::{ClassReport, ClassSample, Qdisc, QdiscCtx, Verdict};
use crate::packet::{DropReason, PacketId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `pfifo_fast` (tc takes none; the limit is the device's txqueuelen).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PfifoFastConf {
    /// Maximum queued packets of each band (`ip link set … txqueuelen N`; Linux ≥ 4.16
    /// gives every band a ring of this size), or of the three together with
    /// `shared_limit`. Default: 1000.
    #[serde(default = "super::pfifo::default_limit")]
    pub limit: u32,
    /// One limit over all three bands, as kernels before 4.16 (the seeds ran 2.4/2.6):
    /// a queue full of band-2 packets then refuses band-0 packets too. Default: false
    /// (a limit per band, Linux ≥ 4.16).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shared_limit: bool,
}

const BANDS: usize = 3;

pub struct PfifoFast {
    limit: u32,
    shared_limit: bool,
    bands: [PacketFifo; BANDS],
    stats: [ClassStats; BANDS],
    backlog: [u64; BANDS],
    len: usize,
}

impl PfifoFast {
    /// Linux ≥ 4.16: `limit` packets per band.
    pub fn new(limit: u32) -> Self {
        Self::with_limit(limit, false)
    }

    /// `shared_limit`: one limit over the three bands (Linux < 4.16).
    pub fn with_limit(limit: u32, shared_limit: bool) -> Self {
        PfifoFast {
            limit,
            shared_limit,
            bands: Default::default(),
            stats: Default::default(),
            backlog: [0; BANDS],
            len: 0,
        }
    }

    fn take(&mut self, ctx: &mut QdiscCtx, remove: bool) -> Option<PacketId> {
        for b in 0..BANDS {
            let got = if remove {
                self.bands[b].take(ctx)
            } else {
                self.bands[b].peek(ctx)
            };
            let Some(p) = got else { continue };
            if remove {
                let pk = ctx.packets.get(p);
                self.stats[b].on_dequeue(pk.size_bytes, ctx.now - pk.enqueued);
                self.backlog[b] -= ctx.len_of(p) as u64;
                self.len -= 1;
            }
            return Some(p);
        }
        None
    }
}

impl Qdisc for PfifoFast {
    fn kind(&self) -> &'static str {
        "pfifo_fast"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let p = ctx.packets.get(pkt);
        let (len, band) = (
            p.size_bytes,
            DEFAULT_PRIOMAP[(p.priority & 15) as usize] as usize,
        );
        let qlen = ctx.len_of(pkt) as u64;
        let queued = if self.shared_limit {
            self.len
        } else {
            self.bands[band].len()
        };
        if (queued as u64) < self.limit as u64 {
            self.bands[band].push_back(pkt);
            self.backlog[band] += qlen;
            self.len += 1;
            self.stats[band].on_enqueue(len);
            Verdict::Queued
        } else {
            self.stats[band].on_drop(DropReason::QdiscOverflow, false);
            ctx.drop_packet(pkt, DropReason::QdiscOverflow);
            Verdict::Dropped
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.take(ctx, true)
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.take(ctx, false)
    }

    /// A FIFO asked while empty only finds nothing (`TCQ_F_CAN_BYPASS` in Linux).
    fn idle_when_empty(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.len
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog.iter().sum()
    }

    fn backlog(&self) -> (usize, u64) {
        (self.len, self.backlog.iter().sum())
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn report_classes(&self, prefix: &str, parent: &str, out: &mut Vec<ClassReport>) {
        for b in 0..BANDS {
            self.stats[b].debug_check(self.bands[b].len(), "pfifo_fast band");
            out.push(ClassReport {
                class: format!("{prefix}band{b}"),
                parent: parent.to_string(),
                kind: "pfifo_fast",
                qdisc: "",
                rate_bps: 0,
                ceil_bps: 0,
                stats: self.stats[b].clone(),
                backlog_packets: self.bands[b].len() as u64,
                backlog_bytes: self.backlog[b],
            });
        }
    }

    fn sample_classes(&self, out: &mut Vec<ClassSample>) {
        for b in 0..BANDS {
            let n = self.bands[b].len() as u64;
            out.push(ClassSample::of(&self.stats[b], n, self.backlog[b]));
        }
    }

    fn reset_stats(&mut self) {
        self.stats.iter_mut().for_each(ClassStats::reset);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::Harness;

    /// Reference: Linux pfifo_fast (sch_generic.c, pre-4.16): band = prio2band[priority &
    /// 15], bands served 0, 1, 2, FIFO inside; one txqueuelen limit over all bands.
    /// Exact order and drops.
    #[test]
    fn serves_bands_in_order_and_drops_over_the_shared_limit() {
        let mut h = Harness::new();
        let mut q = PfifoFast::with_limit(4, true);
        // priority 2 → band 2, 0 → band 1, 6 → band 0, 7 → band 0, 1 → band 2 (dropped).
        let p: Vec<_> = [2u32, 0, 6, 7, 1]
            .iter()
            .map(|&pr| h.packet_with(0, 100, |x| x.priority = pr))
            .collect();
        let v: Vec<_> = p.iter().map(|&x| h.enqueue(&mut q, x)).collect();
        assert_eq!(v[4], Verdict::Dropped);
        assert_eq!(h.dropped(), [(p[4], DropReason::QdiscOverflow)]);
        let out: Vec<_> = std::iter::from_fn(|| h.dequeue(&mut q)).collect();
        assert_eq!(out, [p[2], p[3], p[1], p[0]]);
        let mut rows = Vec::new();
        q.report_classes("", "", &mut rows);
        let deq: Vec<u64> = rows.iter().map(|r| r.stats.dequeued_packets).collect();
        assert_eq!(deq, [2, 1, 1]);
        assert_eq!(rows[2].stats.drops_total(), 1);
    }

    /// Reference: Linux ≥ 4.16 pfifo_fast (`skb_array_produce` fails only when the band's
    /// own ring of txqueuelen is full): with limit 2, two packets fit in each band, a third
    /// band-2 packet is dropped, and band 0 still takes two.
    #[test]
    fn each_band_has_its_own_limit_by_default() {
        let mut h = Harness::new();
        let mut q = PfifoFast::new(2);
        let p: Vec<_> = [2u32, 2, 2, 6, 6, 6]
            .iter()
            .map(|&pr| h.packet_with(0, 100, |x| x.priority = pr))
            .collect();
        let v: Vec<_> = p.iter().map(|&x| h.enqueue(&mut q, x)).collect();
        use Verdict::*;
        assert_eq!(v, [Queued, Queued, Dropped, Queued, Queued, Dropped]);
        let out: Vec<_> = std::iter::from_fn(|| h.dequeue(&mut q)).collect();
        assert_eq!(out, [p[3], p[4], p[0], p[1]]);
    }
}
