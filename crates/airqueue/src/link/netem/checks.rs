//! netem's own consistency rules on an impairment as the scenario writes it (a link's
//! `impairment`, its `reverse.impairment`, an `[[at]]` change of a link): beside the spec
//! they check (`spec.rs`); `scenario/validate.rs` calls them with each impairment's path.

use super::spec::{ImpairmentSpec, NetemDistribution, SlotSpec};
use crate::conf::ScenarioError;
use crate::engine::SimTime;

/// netem `slot`: either `min` [`max`] or `distribution` with `delay` and `jitter` (the
/// two forms of tc-netem(8)), `max` not below `min`, allowances of at least one.
fn check_slot(slot: &SlotSpec, path: &str, errs: &mut ScenarioError) {
    let uniform_form = slot.min.is_some() || slot.max.is_some();
    let dist_form = slot.distribution.is_some() || slot.delay.is_some() || slot.jitter.is_some();
    if uniform_form && dist_form {
        errs.push(
            path.to_string(),
            "give either `min` (and `max`) or `distribution` with `delay` and `jitter`, not both",
        );
    } else if !uniform_form && !dist_form {
        errs.push(
            format!("{path}.min"),
            "a slot needs its gap: `min = \"10ms\"` (and `max`), or `distribution`, `delay`, `jitter`",
        );
    }
    if slot.max.is_some() && slot.min.is_none() {
        errs.push(format!("{path}.min"), "`max` needs a `min` (slot MIN MAX)");
    }
    if let (Some(min), Some(max)) = (slot.min, slot.max) {
        if max.time() < min.time() {
            errs.push(format!("{path}.max"), "must not be below `min`");
        }
    }
    if slot.distribution.is_some() && (slot.delay.is_none() || slot.jitter.is_none()) {
        errs.push(
            format!("{path}.distribution"),
            "a slot distribution needs `delay` and `jitter` (slot distribution D DELAY JITTER)",
        );
    }
    if (slot.delay.is_some() || slot.jitter.is_some()) && slot.distribution.is_none() {
        errs.push(
            format!("{path}.distribution"),
            "`delay` and `jitter` of a slot go with a `distribution` (e.g. \"normal\"); or use `min`/`max`",
        );
    }
    for (key, v) in [("packets", slot.packets), ("bytes", slot.bytes)] {
        if v == Some(0) {
            errs.push(
                format!("{path}.{key}"),
                "must be at least 1; leave it out for no limit",
            );
        }
    }
}

/// netem's own consistency rules (iproute2's `q_netem.c` refuses the same combinations).
pub fn check_impairment(imp: &ImpairmentSpec, path: &str, errs: &mut ScenarioError) {
    if imp.gemodel.is_some() && imp.loss.0 > 0.0 {
        errs.push(
            format!("{path}.gemodel"),
            "loss and gemodel are alternative loss models (netem takes one); keep one of them",
        );
    }
    if imp.reorder.0 > 0.0 && imp.delay.time() == SimTime::ZERO {
        errs.push(
            format!("{path}.reorder"),
            "reordering sends some packets without the delay, so it needs a `delay` (as netem)",
        );
    }
    if let Some(gap) = imp.gap {
        if imp.reorder.0 == 0.0 {
            errs.push(
                format!("{path}.gap"),
                "gap without a `reorder` probability does nothing; give `reorder` or remove `gap`",
            );
        }
        if gap == 0 {
            errs.push(
                format!("{path}.gap"),
                "must be at least 1 (1 = any packet may be reordered)",
            );
        }
    }
    if imp.distribution != NetemDistribution::Uniform && imp.jitter.time() == SimTime::ZERO {
        errs.push(
            format!("{path}.distribution"),
            "a delay distribution is scaled by `jitter`; give a `jitter` (as netem)",
        );
    }
    if imp.rate.is_none()
        && (imp.packet_overhead != 0 || imp.cell_size != 0 || imp.cell_overhead != 0)
    {
        errs.push(
            format!("{path}.rate"),
            "packet_overhead, cell_size and cell_overhead shape netem's `rate`; give a `rate`",
        );
    }
    if imp.rate.is_some_and(|r| r.bps() == 0) {
        errs.push(format!("{path}.rate"), "must be above 0, e.g. \"1Mbit\"");
    }
    if imp.limit == Some(0) {
        errs.push(
            format!("{path}.limit"),
            "must be at least 1 packet (netem's default is 1000)",
        );
    }
    if let Some(slot) = &imp.slot {
        check_slot(slot, &format!("{path}.slot"), errs);
    }
    if imp.cell_size == 0 && imp.cell_overhead != 0 {
        errs.push(
            format!("{path}.cell_overhead"),
            "is added per cell; give a `cell_size`",
        );
    }
    let pairs = [
        (
            "loss_correlation",
            imp.loss_correlation,
            imp.loss.0 > 0.0,
            "loss",
        ),
        (
            "delay_correlation",
            imp.delay_correlation,
            imp.jitter.time() > SimTime::ZERO,
            "jitter",
        ),
        (
            "reorder_correlation",
            imp.reorder_correlation,
            imp.reorder.0 > 0.0,
            "reorder",
        ),
        (
            "duplicate_correlation",
            imp.duplicate_correlation,
            imp.duplicate.0 > 0.0,
            "duplicate",
        ),
        (
            "corrupt_correlation",
            imp.corrupt_correlation,
            imp.corrupt.0 > 0.0,
            "corrupt",
        ),
    ];
    for (key, corr, on, base) in pairs {
        if corr.0 > 0.0 && !on {
            errs.push(
                format!("{path}.{key}"),
                format!("correlates successive `{base}` draws, but `{base}` is off; give `{base}` or remove it"),
            );
        }
    }
}
