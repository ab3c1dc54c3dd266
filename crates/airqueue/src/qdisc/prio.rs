//! `prio`: strict priority over bands, each band a child discipline (Linux
//! `net/sched/sch_prio.c`).
//!
//! Classification (`prio_classify`): the first class whose `match` takes the packet gives
//! its band (a `tc filter … flowid 1:<band+1>`); a packet no rule takes goes to band
//! `priomap[skb->priority & 15]`, or `priomap[0]` when `skb->priority` has a major number
//! (≥ 65536). Linux also lets `skb->priority = <handle>:<minor>` name a band directly;
//! qdiscs have no handles here, so that case does not exist.
//!
//! Dequeue: the first band, from 0 up, whose child yields a packet. Lower bands starve
//! while a higher one has packets; putting a shaper (`tbf`) in the higher bands, as seed
//! 000 Fig. 4 does, bounds that. Each band is pfifo with the device's txqueuelen (1000) by
//! default, as `prio_tune` creates them. Default 3 bands and priomap
//! `1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1` (also pfifo_fast's): TC_PRIO_INTERACTIVE (6) and
//! CONTROL (7) → band 0, BESTEFFORT (0) → band 1, BULK (2) → band 2.
//!
//! On a virtual device the bands are tried in order for the asking member; a band with
//! nothing for it is passed over (strict priority per member).

use super::class_stats::{self, ClassView, WalkedClass};
use super::classify::{Classifier, Match, MatchSpec};
use super::{build_child, BuildCtx, Child, ClassReport, ClassSample, Qdisc, QdiscCtx, Verdict};
use crate::conf::ScenarioError;
use crate::engine::SimTime;
use crate::packet::PacketId;
use crate::qdisc::QdiscConf;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Linux's default priomap (`TC_PRIO_*` → band), shared by prio and pfifo_fast.
pub(crate) const DEFAULT_PRIOMAP: [u8; 16] = [1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1];

/// Linux's `ip_tos2prio`: the `skb->priority` (TC_PRIO_*) that a TOS byte implies, indexed
/// by the four old TOS bits (`IPTOS_TOS(tos) >> 1`). BESTEFFORT 0, BULK 2,
/// INTERACTIVE_BULK 4, INTERACTIVE 6 (the "cost" bit maps like its neighbour).
const IP_TOS2PRIO: [u32; 16] = [0, 0, 0, 0, 2, 2, 2, 2, 6, 6, 6, 6, 4, 4, 4, 4];

/// `rt_tos2priority`: the `skb->priority` Linux gives a packet from its DSCP (the TOS byte
/// is `dscp << 2 | ecn`). `ip_forward` sets it on every forwarded packet, and the IP_TOS
/// socket option on a socket's packets. E.g. TOS 0x10 (low delay) → 6 (band 0 of the
/// default priomap); DSCP 46 (EF, TOS 0xb8) → 4 (band 1); DSCP 0 → 0 (band 1).
pub fn rt_tos2priority(dscp: u8) -> u32 {
    let tos = dscp << 2;
    IP_TOS2PRIO[((tos & 0x1e) >> 1) as usize]
}

fn default_priomap() -> Vec<u8> {
    DEFAULT_PRIOMAP.to_vec()
}

/// Parameters of `prio` (`tc qdisc add … prio bands N priomap P0 … P15`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrioConf {
    /// Number of bands, 2–16. Default: 3, or the number of `classes` if that is larger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 2, max = 16))]
    pub bands: Option<u8>,
    /// Band of each `skb->priority` value 0–15 for packets no class `match` takes (16
    /// entries). Default: Linux's 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1.
    #[serde(default = "default_priomap")]
    pub priomap: Vec<u8>,
    /// The bands in order (first = band 0, served first): name, filter and child qdisc.
    /// Bands without an entry are named `band<i>` and hold a pfifo.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<PrioClassConf>,
}

impl Default for PrioConf {
    fn default() -> Self {
        PrioConf {
            bands: None,
            priomap: default_priomap(),
            classes: Vec::new(),
        }
    }
}

/// One band of `prio`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrioClassConf {
    /// Name of the band in result tables.
    pub name: String,
    /// Packets this band takes, before the priomap is consulted (first matching band
    /// wins). Absent: only the priomap sends packets here; `{}` takes every packet.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub match_: Option<MatchSpec>,
    /// The band's child qdisc, any kind (default `pfifo`, limit 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qdisc: Option<Box<QdiscConf>>,
}

impl PrioConf {
    /// The number of bands this configuration builds.
    pub fn band_count(&self) -> usize {
        self.bands.map_or(3.max(self.classes.len()), |b| b as usize)
    }

    /// Range checks (Linux `prio_tune`: 2 ≤ bands ≤ 16, every priomap entry < bands).
    pub fn check(&self, path: &str, errs: &mut ScenarioError) {
        let bands = self.band_count();
        if let Some(b) = self.bands {
            if !(2..=16).contains(&b) {
                errs.push(format!("{path}.bands"), format!("{b} is outside 2–16"));
            }
        }
        if self.classes.len() > bands {
            errs.push(
                format!("{path}.classes"),
                format!(
                    "lists {} bands but `bands` is {bands}; raise `bands` or remove classes",
                    self.classes.len()
                ),
            );
        }
        if self.priomap.len() != 16 {
            errs.push(
                format!("{path}.priomap"),
                format!(
                    "has {} entries; give one band for each priority 0–15 (16 entries)",
                    self.priomap.len()
                ),
            );
        }
        if self.priomap[..] == DEFAULT_PRIOMAP && bands < 3 {
            errs.push(
                format!("{path}.priomap"),
                format!(
                    "the default priomap (1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1) uses band 2, which \
                     {bands} bands do not have (Linux refuses it too); give a priomap, e.g. \
                     priomap = [1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]"
                ),
            );
            return self.check_classes(path, errs);
        }
        for (i, &b) in self.priomap.iter().enumerate() {
            if b as usize >= bands {
                errs.push(
                    format!("{path}.priomap[{i}]"),
                    format!("band {b} does not exist; bands are 0–{}", bands - 1),
                );
            }
        }
        self.check_classes(path, errs);
    }

    fn check_classes(&self, path: &str, errs: &mut ScenarioError) {
        super::check_class_names(path, self.classes.iter().map(|c| c.name.as_str()), errs);
        for c in &self.classes {
            if let Some(q) = &c.qdisc {
                super::check(q, &format!("{path}.classes.{}.qdisc", c.name), errs);
            }
        }
    }
}

struct Band {
    name: String,
    child: Child,
}

impl WalkedClass for Band {
    #[inline]
    fn view(&self) -> ClassView<'_> {
        ClassView::leaf(&self.name, &self.child)
    }
    fn reset_stats(&mut self) {
        self.child.reset_stats();
    }
}

pub struct Prio {
    bands: Vec<Band>,
    priomap: [u8; 16],
    classifier: Classifier,
    len: usize,
    backlog: u64,
}

impl Prio {
    /// Builds the bands, resolving their `match` tables against the scenario's names.
    pub fn build(c: &PrioConf, b: &BuildCtx, errs: &mut ScenarioError) -> Prio {
        let n = c.band_count();
        let mut rules = Vec::new();
        let mut bands = Vec::with_capacity(n);
        for i in 0..n {
            let conf = c.classes.get(i);
            let name = conf.map_or_else(|| format!("band{i}"), |c| c.name.clone());
            if let Some(m) = conf.and_then(|c| c.match_.as_ref()) {
                let path = format!("{}.classes.{name}.match", b.path);
                rules.push((Match::resolve(m, b.names, &path, errs), i as u32));
            }
            let child = build_child(conf.and_then(|c| c.qdisc.as_deref()), &name, b, errs);
            bands.push(Band { name, child });
        }
        let mut priomap = DEFAULT_PRIOMAP;
        for (dst, &src) in priomap.iter_mut().zip(&c.priomap) {
            *dst = src.min(n as u8 - 1);
        }
        Prio {
            bands,
            priomap,
            classifier: Classifier::new(rules, None),
            len: 0,
            backlog: 0,
        }
    }

    /// `prio_classify`: a matching band, else the priomap.
    #[inline]
    fn band_of(&self, pkt: PacketId, ctx: &QdiscCtx) -> usize {
        let p = ctx.packets.get(pkt);
        if let Some(b) = self.classifier.classify(p) {
            return b as usize;
        }
        let prio = if p.priority >> 16 != 0 {
            0
        } else {
            p.priority & 15
        };
        self.priomap[prio as usize] as usize
    }

    /// Rebuilds the totals after a call that may have changed a band.
    #[inline]
    fn account(&mut self, band: usize, before: (usize, u64)) {
        let c = &self.bands[band].child;
        self.len = self.len + c.len() - before.0;
        self.backlog = self.backlog + c.backlog_bytes() - before.1;
    }
}

impl Qdisc for Prio {
    fn kind(&self) -> &'static str {
        "prio"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let b = self.band_of(pkt, ctx);
        let c = &mut self.bands[b].child;
        let before = (c.len(), c.backlog_bytes());
        let v = c.enqueue(pkt, ctx);
        self.account(b, before);
        v
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        for b in 0..self.bands.len() {
            let c = &mut self.bands[b].child;
            if c.is_empty() {
                continue;
            }
            let before = (c.len(), c.backlog_bytes());
            let got = c.dequeue(ctx);
            self.account(b, before);
            if got.is_some() {
                return got;
            }
        }
        None
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        for b in 0..self.bands.len() {
            let c = &mut self.bands[b].child;
            if c.is_empty() {
                continue;
            }
            let before = (c.len(), c.backlog_bytes());
            let got = c.peek(ctx);
            self.account(b, before);
            if got.is_some() {
                return got;
            }
        }
        None
    }

    fn len(&self) -> usize {
        self.len
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog
    }

    /// The earliest wakeup of a non-work-conserving band (a `tbf` child).
    fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        self.bands
            .iter()
            .filter(|b| !b.child.is_empty())
            .filter_map(|b| b.child.qdisc.next_wakeup(now))
            .filter(|&t| t > now)
            .min()
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn report_classes(&self, prefix: &str, parent: &str, out: &mut Vec<ClassReport>) {
        class_stats::report_classes("prio", &self.bands, prefix, parent, out);
    }

    fn sample_classes(&self, out: &mut Vec<ClassSample>) {
        class_stats::sample_classes(&self.bands, out);
    }

    fn reset_stats(&mut self) {
        class_stats::reset_classes(&mut self.bands);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::DropReason;
    use crate::qdisc::classify::NameTable;
    use crate::qdisc::testing::Harness;

    fn conf(v: serde_json::Value) -> PrioConf {
        serde_json::from_value(v).unwrap()
    }

    fn names() -> NameTable {
        NameTable {
            flows: vec!["voice".into(), "bulk".into()],
            nodes: vec![],
            ifaces: vec!["a.wlan".into(), "a.bt".into()],
        }
    }

    fn build(h: &Harness, c: &PrioConf) -> Prio {
        let n = names();
        let mut errs = ScenarioError::default();
        let q = Prio::build(c, &h.build_ctx(&n), &mut errs);
        assert!(errs.is_empty(), "{errs}");
        q
    }

    /// Reference: Linux `ip_tos2prio` via `rt_tos2priority` and the default priomap
    /// (sch_prio.c / pfifo_fast): TOS 0x10 "minimize delay" → TC_PRIO_INTERACTIVE (6) →
    /// band 0; DSCP 0 → BESTEFFORT (0) → band 1; TOS 0x08 "maximize throughput" → BULK (2)
    /// → band 2; EF (46, TOS 0xb8) → INTERACTIVE_BULK (4) → band 1 (the well-known surprise).
    #[test]
    fn tos_maps_to_priority_and_band_as_linux_does() {
        assert_eq!(rt_tos2priority(0x10 >> 2), 6);
        assert_eq!(rt_tos2priority(0), 0);
        assert_eq!(rt_tos2priority(0x08 >> 2), 2);
        assert_eq!(rt_tos2priority(46), 4);
        assert_eq!(rt_tos2priority(34), 2, "AF41 (TOS 0x88) is BULK");
        let bands: Vec<u8> = [6u32, 0, 2, 4]
            .iter()
            .map(|&p| DEFAULT_PRIOMAP[p as usize])
            .collect();
        assert_eq!(bands, [0, 1, 2, 1]);
    }

    /// Reference: `prio_dequeue` serves band 0 before 1 before 2, FIFO inside a band,
    /// with packets placed by priomap[skb->priority & 15] and priorities with a major
    /// number falling back to priomap[0]. Exact order.
    #[test]
    fn dequeues_strictly_by_band_then_fifo() {
        let mut h = Harness::new();
        let mut q = build(&h, &PrioConf::default());
        // priorities: 0 → band 1, 6 → band 0, 2 → band 2, 0x10006 (major) → priomap[0] = 1.
        let prios = [0u32, 2, 6, 0, 0x1_0006, 7, 2];
        let p: Vec<_> = prios
            .iter()
            .enumerate()
            .map(|(i, &pr)| h.packet_with(i as u32, 100, |x| x.priority = pr))
            .collect();
        for &x in &p {
            assert_eq!(h.enqueue(&mut q, x), Verdict::Queued);
        }
        assert_eq!((q.len(), q.backlog_bytes()), (7, 700));
        let out: Vec<_> = std::iter::from_fn(|| h.dequeue(&mut q)).collect();
        assert_eq!(out, [p[2], p[5], p[0], p[3], p[4], p[1], p[6]]);
        assert_eq!((q.len(), q.backlog_bytes()), (0, 0));
    }

    /// Reference: filters win over the priomap (prio_classify consults them first), the
    /// first matching band wins, and each band's child applies its own limit (tail drop
    /// of pfifo, `sch_fifo.c`). Exact drops.
    #[test]
    fn matches_choose_the_band_and_each_band_drops_at_its_own_limit() {
        let mut h = Harness::new();
        let c = conf(serde_json::json!({
            "bands": 2,
            "priomap": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],
            "classes": [
                {"name": "voice", "match": {"flow": "voice"}, "qdisc": {"kind": "pfifo", "limit": 2}},
                {"name": "rest", "match": {}, "qdisc": {"kind": "pfifo", "limit": 1}},
            ]
        }));
        let mut q = build(&h, &c);
        let v: Vec<_> = (0..3).map(|_| h.packet(0, 100)).collect();
        let b: Vec<_> = (0..2).map(|_| h.packet(1, 100)).collect();
        let verdicts: Vec<_> = [b[0], v[0], v[1], v[2], b[1]]
            .iter()
            .map(|&x| h.enqueue(&mut q, x))
            .collect();
        use Verdict::*;
        assert_eq!(verdicts, [Queued, Queued, Queued, Dropped, Dropped]);
        assert_eq!(
            h.dropped(),
            [
                (v[2], DropReason::QdiscOverflow),
                (b[1], DropReason::QdiscOverflow)
            ]
        );
        let out: Vec<_> = std::iter::from_fn(|| h.dequeue(&mut q)).collect();
        assert_eq!(out, [v[0], v[1], b[0]]);
        let mut rows = Vec::new();
        q.report_classes("", "", &mut rows);
        let voice = &rows[0].stats;
        assert_eq!(rows[0].class, "voice");
        assert_eq!((voice.enqueued_packets, voice.dequeued_packets), (2, 2));
        assert_eq!(voice.drops[DropReason::QdiscOverflow.index()], 1);
    }

    /// Reference: strict priority per member on a virtual device: a member skips bands
    /// whose packets all leave by the other member, and within a band the FIFO hands it
    /// its own oldest packet (no head-of-line blocking). Exact order.
    #[test]
    fn on_a_virtual_device_each_member_gets_its_own_highest_band() {
        let mut h = Harness::new();
        let mut q = build(&h, &PrioConf::default());
        let mk = |h: &mut Harness, pr: u32, dev: u32| {
            h.packet_with(0, 100, |x| {
                x.priority = pr;
                x.out_iface = dev;
            })
        };
        let hi_bt = mk(&mut h, 6, 1);
        let lo_wlan = mk(&mut h, 2, 0);
        let be_bt = mk(&mut h, 0, 1);
        let be_wlan = mk(&mut h, 0, 0);
        for x in [hi_bt, lo_wlan, be_bt, be_wlan] {
            h.enqueue(&mut q, x);
        }
        assert_eq!(h.dequeue_for(&mut q, 0), Some(be_wlan));
        assert_eq!(h.dequeue_for(&mut q, 0), Some(lo_wlan));
        assert_eq!(h.dequeue_for(&mut q, 0), None);
        assert_eq!(h.dequeue_for(&mut q, 1), Some(hi_bt));
        assert_eq!(h.dequeue_for(&mut q, 1), Some(be_bt));
        assert!(q.is_empty());
    }

    #[test]
    fn two_bands_with_the_default_priomap_get_one_clear_problem() {
        let c = conf(serde_json::json!({"bands": 2}));
        let mut errs = ScenarioError::default();
        c.check("qdiscs.q", &mut errs);
        assert_eq!(errs.problems.len(), 1, "{errs}");
        assert_eq!(errs.problems[0].path, "qdiscs.q.priomap");
    }

    #[test]
    fn check_rejects_a_priomap_naming_a_missing_band() {
        let c = conf(serde_json::json!({"bands": 2, "priomap": [0,1,2,1,1,1,1,1,1,1,1,1,1,1,1,1]}));
        let mut errs = ScenarioError::default();
        c.check("qdiscs.q", &mut errs);
        assert_eq!(errs.problems[0].path, "qdiscs.q.priomap[2]");
    }
}
