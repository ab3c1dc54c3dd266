//! What the weighted fair queues (`stfq`, `wf2q+`) share: their classes (a weight, a
//! `match`, a packet limit and a cost), the one-queue-per-flow default, and the
//! **virtual length** hook.
//!
//! A fair queue charges each packet a length when it computes its tags. By default that is
//! the wire length; ADWISER (seed 002 §III-C) instead charges "virtual bits": the bits the
//! packet will cost on the WLAN medium, which depend on the PHY rate of the station it is
//! for (and, for TCP, on the ACKs or data it triggers). Three ways to set it, from simple to
//! general:
//!
//! 1. In the scenario, per class: `cost_factor` × wire length + `cost_overhead` bytes.
//! 2. At run time, through a [`FairControl`] handle taken from the qdisc before it is
//!    handed to the simulator: `set_cost(class, factor, overhead)` (e.g. when a station
//!    changes PHY rate) and, for `stfq`, `set_rate(bps)` (ADWISER's service-rate adaptation).
//! 3. Per packet, with a [`VirtualLength`] callback installed on the qdisc (e.g. "an ACK
//!    costs one ACK plus two data frames").
//!
//! Virtual lengths are computed at enqueue, when the tags are; they are at least 1 byte.
//!
//! A queue over its `limit` tail-drops the arrival with reason `qdisc_overflow` (a per-flow
//! `flow_limit` reason would fit better once one exists); packets no class takes are dropped
//! with reason `policy`.

use super::classify::{Classifier, Match, MatchSpec};
use super::{BuildCtx, QdiscCtx};
use crate::conf::{Bytes, ScenarioError};
use crate::packet::{DropReason, FiveTuple, Packet, PacketId};
use rustc_hash::FxHashMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One class of a fair queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FairClassConf {
    /// Unique name of the class (used by `default` and in problems).
    pub name: String,
    /// Share of the server relative to the other classes (φ in the papers), 1e-6 to 1e6.
    /// Default: 1.
    #[serde(default = "one")]
    pub weight: f64,
    /// Which packets the class takes; rules are tried in class order, the first match
    /// wins. Default: an empty table, which takes every packet.
    #[serde(default, rename = "match")]
    pub matches: MatchSpec,
    /// Packets the class may queue (absent: the qdisc's `limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Virtual length = `cost_factor` × wire length + `cost_overhead`: the class's packets
    /// are charged this many bytes (seed 002's "virtual bits", e.g. 54/6 for a station at
    /// 6 Mbit/s against a 54 Mbit/s reference). Default: 1.
    #[serde(default = "one")]
    pub cost_factor: f64,
    /// Bytes added to every packet's virtual length (a per-frame MAC/PHY overhead
    /// expressed in bytes at the reference rate). Default: 0.
    #[serde(default)]
    pub cost_overhead: Bytes,
}

fn one() -> f64 {
    1.0
}

/// Fixed point of tags: a tag counts bytes/weight in units of 2⁻⁴⁰.
pub(crate) const TAG_SHIFT: u32 = 40;
/// Weights are kept as integers in units of 2⁻²⁰ (sums of weights are then exact).
pub(crate) const WEIGHT_SHIFT: u32 = 20;

/// A weight in fixed point (≥ 1).
pub(crate) fn weight_fp(w: f64) -> u64 {
    ((w * (1u64 << WEIGHT_SHIFT) as f64).round() as u64).max(1)
}

/// 2^(TAG_SHIFT+WEIGHT_SHIFT) / weight_fp, rounded to nearest: multiply a length by it to get length/weight as
/// a tag.
pub(crate) fn inverse_weight(w_fp: u64) -> u64 {
    let num = 1u128 << (TAG_SHIFT + WEIGHT_SHIFT);
    let w = w_fp as u128;
    ((num + w / 2) / w).min(u64::MAX as u128) as u64
}

/// Computes a packet's virtual length in bytes (see the module docs). `class` is the index
/// of the class in the qdisc's `classes` (or of the per-flow queue, numbered in order of
/// first appearance, when no classes are configured); `len` the wire length.
pub trait VirtualLength: Send {
    fn virtual_len(&self, pkt: &Packet, class: usize, len: u32) -> u64;
}

impl<F: Fn(&Packet, usize, u32) -> u64 + Send> VirtualLength for F {
    fn virtual_len(&self, pkt: &Packet, class: usize, len: u32) -> u64 {
        self(pkt, class, len)
    }
}

/// Run-time control of a fair queue, shared with the qdisc (take it with `control()`
/// before boxing the qdisc; changes apply to packets enqueued afterwards).
#[derive(Clone, Debug)]
pub struct FairControl(Arc<ControlInner>);

#[derive(Debug)]
struct ControlInner {
    /// Per configured class: cost factor (f64 bits) and overhead bytes.
    factor: Vec<AtomicU64>,
    overhead: Vec<AtomicU64>,
    /// Service rate in bit/s (0: work-conserving); used by `stfq`.
    rate_bps: AtomicU64,
}

impl FairControl {
    fn new(costs: &[(f64, u64)], rate_bps: u64) -> Self {
        FairControl(Arc::new(ControlInner {
            factor: costs
                .iter()
                .map(|c| AtomicU64::new(c.0.to_bits()))
                .collect(),
            overhead: costs.iter().map(|c| AtomicU64::new(c.1)).collect(),
            rate_bps: AtomicU64::new(rate_bps),
        }))
    }

    /// Sets the cost of configured class `class` (index in `classes`): virtual length =
    /// `factor` × wire length + `overhead` bytes. Panics if `factor` is not positive and
    /// finite, or the class does not exist.
    pub fn set_cost(&self, class: usize, factor: f64, overhead: u64) {
        assert!(
            factor.is_finite() && factor > 0.0,
            "cost factor must be positive"
        );
        self.0.factor[class].store(factor.to_bits(), Ordering::Relaxed);
        self.0.overhead[class].store(overhead, Ordering::Relaxed);
    }

    /// The cost of configured class `class`: (factor, overhead bytes).
    pub fn cost(&self, class: usize) -> (f64, u64) {
        (
            f64::from_bits(self.0.factor[class].load(Ordering::Relaxed)),
            self.0.overhead[class].load(Ordering::Relaxed),
        )
    }

    /// Sets the service rate of an `stfq` (bit/s; 0 makes it work-conserving).
    pub fn set_rate(&self, bps: u64) {
        self.0.rate_bps.store(bps, Ordering::Relaxed);
    }

    pub fn rate(&self) -> u64 {
        self.0.rate_bps.load(Ordering::Relaxed)
    }
}

/// A class at run time: what both schedulers need besides their tags.
pub(crate) struct ClassInfo {
    pub weight_fp: u64,
    /// Tag per byte: 2^40 / weight.
    pub inv_weight: u64,
    pub limit: u32,
}

/// Classification and costs of a fair queue.
/// A packet [`FairClasses::admit`] accepted: its class, wire length, the interface it
/// leaves by, and its virtual length.
pub(crate) struct Admitted {
    pub class: usize,
    pub len: u32,
    pub out: u32,
    pub vlen: u64,
}

pub(crate) struct FairClasses {
    /// `Some` with configured classes; `None`: one queue per 5-tuple.
    rules: Option<Classifier>,
    per_flow: FxHashMap<FiveTuple, u32>,
    pub info: Vec<ClassInfo>,
    pub names: Vec<String>,
    /// Packets queued per class over all lanes (the class limit is shared).
    queued: Vec<u32>,
    flow_limit: u32,
    control: FairControl,
    vlen: Option<Box<dyn VirtualLength>>,
}

impl FairClasses {
    /// Resolves the classes of a fair queue (problems under `b.path.classes.<name>`).
    pub fn from_conf(
        classes: &[FairClassConf],
        default: Option<&str>,
        limit: u32,
        rate_bps: u64,
        b: &BuildCtx,
        errs: &mut ScenarioError,
    ) -> FairClasses {
        let p = &b.path;
        if limit == 0 {
            errs.push(format!("{p}.limit"), "must be at least 1 packet");
        }
        let mut info = Vec::new();
        let mut rules = Vec::new();
        let mut costs = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for (i, c) in classes.iter().enumerate() {
            let cp = format!("{p}.classes.{}", c.name);
            if c.name.is_empty() {
                errs.push(format!("{p}.classes[{i}].name"), "must not be empty");
            } else if names.contains(&c.name) {
                errs.push(
                    format!("{cp}.name"),
                    format!(
                        "\"{}\" names two classes; class names must be unique",
                        c.name
                    ),
                );
            }
            if !(c.weight.is_finite() && (1e-6..=1e6).contains(&c.weight)) {
                errs.push(
                    format!("{cp}.weight"),
                    format!("{} is not a weight in 1e-6…1e6", c.weight),
                );
            }
            if !(c.cost_factor.is_finite() && c.cost_factor > 0.0 && c.cost_factor <= 1e6) {
                errs.push(
                    format!("{cp}.cost_factor"),
                    format!("{} must be positive (at most 1e6)", c.cost_factor),
                );
            }
            if c.limit == Some(0) {
                errs.push(format!("{cp}.limit"), "must be at least 1 packet");
            }
            let m = Match::resolve(&c.matches, b.names, &format!("{cp}.match"), errs);
            rules.push((m, i as u32));
            let w = weight_fp(c.weight.clamp(1e-6, 1e6));
            info.push(ClassInfo {
                weight_fp: w,
                inv_weight: inverse_weight(w),
                limit: c.limit.unwrap_or(limit),
            });
            costs.push((c.cost_factor, c.cost_overhead.0));
            names.push(c.name.clone());
        }
        let default_idx = default.and_then(|d| {
            let idx = names.iter().position(|n| n == d);
            if idx.is_none() {
                errs.push(
                    format!("{p}.default"),
                    if names.is_empty() {
                        format!("\"{d}\" names no class: without classes every flow has its own queue; remove `default`")
                    } else {
                        format!("\"{d}\" names no class; classes are {}", names.join(", "))
                    },
                );
            }
            idx.map(|i| i as u32)
        });
        FairClasses {
            rules: (!classes.is_empty()).then(|| Classifier::new(rules, default_idx)),
            per_flow: FxHashMap::default(),
            queued: vec![0; info.len()],
            info,
            names,
            flow_limit: limit,
            control: FairControl::new(&costs, rate_bps),
            vlen: None,
        }
    }

    pub fn control(&self) -> FairControl {
        self.control.clone()
    }

    pub fn set_virtual_length(&mut self, f: Box<dyn VirtualLength>) {
        self.vlen = Some(f);
    }

    /// Whether classes were configured (else: one queue per flow).
    pub fn configured(&self) -> usize {
        self.control.0.factor.len()
    }

    /// The class of `p`, creating a per-flow queue on first sight; `None`: no class takes
    /// it (configured classes, no match, no default).
    #[inline]
    fn classify(&mut self, p: &Packet) -> Option<usize> {
        match &self.rules {
            Some(r) => r.classify(p).map(|c| c as usize),
            None => {
                let next = self.info.len() as u32;
                let c = *self.per_flow.entry(p.tuple).or_insert(next);
                if c == next {
                    let w = weight_fp(1.0);
                    self.info.push(ClassInfo {
                        weight_fp: w,
                        inv_weight: inverse_weight(w),
                        limit: self.flow_limit,
                    });
                    self.queued.push(0);
                }
                Some(c as usize)
            }
        }
    }

    /// Admits `pkt` to its class, or drops it: `Policy` when no class takes it,
    /// `QdiscOverflow` when its class holds `limit` packets already (over all lanes). An
    /// admitted packet counts against its class until [`FairClasses::left`].
    #[inline]
    pub fn admit(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Option<Admitted> {
        let p = ctx.packets.get(pkt);
        let Some(class) = self.classify(p) else {
            ctx.drop_packet(pkt, DropReason::Policy);
            return None;
        };
        if self.queued[class] >= self.info[class].limit {
            ctx.drop_packet(pkt, DropReason::QdiscOverflow);
            return None;
        }
        self.queued[class] += 1;
        let (len, out) = (ctx.len_of(pkt), p.out_iface);
        let vlen = self.virtual_len(p, class, len);
        Some(Admitted {
            class,
            len,
            out,
            vlen,
        })
    }

    /// A packet of `class` left the queue (dequeued).
    #[inline]
    pub fn left(&mut self, class: usize) {
        self.queued[class] -= 1;
    }

    /// The virtual length of `p` (wire length `len`) in class `class`, at least 1 byte.
    #[inline]
    pub fn virtual_len(&self, p: &Packet, class: usize, len: u32) -> u64 {
        let v = match &self.vlen {
            Some(f) => f.virtual_len(p, class, len),
            None if class < self.configured() => {
                let (factor, overhead) = self.control.cost(class);
                if factor == 1.0 {
                    len as u64 + overhead
                } else {
                    (factor * len as f64).round() as u64 + overhead
                }
            }
            None => len as u64,
        };
        v.max(1)
    }

    /// The service rate (bit/s), 0 when work-conserving.
    #[inline]
    pub fn rate_bps(&self) -> u64 {
        self.control.rate()
    }
}
