//! `count = N` expansion: one entry becomes N named copies.
//!
//! `{i}` in a name (and in a flow's `from`/`to`) becomes the copy's index 0…N−1; a name
//! without `{i}` gets the index appended (`bulk` → `bulk0 … bulk9`), as SCENARIOS.md shows.

use super::spec::{Duration, Scenario};
use crate::conf::ScenarioError;

/// Largest `count` accepted (a guard against typos such as `count = 1000000000`).
pub const MAX_COUNT: u32 = 100_000;

fn copy_name(template: &str, i: u32) -> String {
    if template.contains("{i}") {
        template.replace("{i}", &i.to_string())
    } else {
        format!("{template}{i}")
    }
}

fn check_count(path: String, count: Option<u32>, errs: &mut ScenarioError) -> Option<u32> {
    match count {
        None => Some(1),
        Some(0) => {
            errs.push(
                path,
                "must be at least 1; remove `count` for a single entry",
            );
            None
        }
        Some(n) if n > MAX_COUNT => {
            errs.push(
                path,
                format!("{n} is more than the {MAX_COUNT} copies allowed"),
            );
            None
        }
        Some(n) => Some(n),
    }
}

/// Expands every `count` in place. Entries without `count` keep their names unchanged.
pub fn expand(mut s: Scenario) -> Result<Scenario, ScenarioError> {
    let mut errs = ScenarioError::default();
    let mut nodes = Vec::with_capacity(s.nodes.len());
    for n in s.nodes.drain(..) {
        let Some(c) = check_count(format!("nodes.{}.count", n.name), n.count, &mut errs) else {
            continue;
        };
        if n.count.is_none() {
            nodes.push(n);
            continue;
        }
        if n.address.is_some() {
            errs.push(
                format!("nodes.{}.address", n.name),
                "cannot be given to every copy of a `count` entry (addresses are unique); \
                 remove `address` (the plan numbers the copies) or write each node as its own entry",
            );
            continue;
        }
        for i in 0..c {
            let mut copy = n.clone();
            copy.name = copy_name(&n.name, i);
            copy.count = None;
            nodes.push(copy);
        }
    }
    s.nodes = nodes;
    let mut flows = Vec::with_capacity(s.flows.len());
    for f in s.flows.drain(..) {
        let Some(c) = check_count(format!("flows.{}.count", f.name), f.count, &mut errs) else {
            continue;
        };
        if f.count.is_none() {
            flows.push(f);
            continue;
        }
        for i in 0..c {
            let mut copy = f.clone();
            copy.name = copy_name(&f.name, i);
            copy.from = f.from.replace("{i}", &i.to_string());
            copy.to = f.to.replace("{i}", &i.to_string());
            copy.answers = f.answers.as_ref().map(|a| a.replace("{i}", &i.to_string()));
            copy.start =
                Duration(f.start.0 + crate::engine::SimTime(f.start_spacing.0 .0 * i as u64));
            copy.start_spacing = Duration::default();
            copy.count = None;
            flows.push(copy);
        }
    }
    s.flows = flows;
    for cell in &mut s.cells {
        let mut stations = Vec::with_capacity(cell.stations.len());
        for st in cell.stations.drain(..) {
            let path = format!("cells.{}.stations.{}.count", cell.name, st.node);
            let Some(c) = check_count(path, st.count, &mut errs) else {
                continue;
            };
            if st.count.is_none() {
                stations.push(st);
                continue;
            }
            for i in 0..c {
                let mut copy = st.clone();
                copy.node = copy_name(&st.node, i);
                copy.count = None;
                stations.push(copy);
            }
        }
        cell.stations = stations;
    }
    errs.into_result().map(|_| s)
}
