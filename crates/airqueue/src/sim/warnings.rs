//! Warnings: scenarios that are valid but almost certainly not what their author meant.
//! `validate` and `run` print them and `summary.json` lists them (`warnings`), each with
//! the field path and what to change, like a problem.
//!
//! - a classful qdisc where traffic can fall outside every class: HTB without `default`
//!   (Linux `sch_htb.c` sends unclassified packets to its direct queue, unshaped and ahead
//!   of every class), DRR without a catch-all class (Linux `sch_drr.c` drops them);
//! - a link slower than any packet can cross within the run (a 64-byte frame's
//!   serialization time plus the propagation delay exceed `run.duration`);
//! - a path longer than IP's TTL (RFC 1122 §3.2.1.7 default 64; airqueue's hosts send with
//!   64), or a routing loop: every packet ends in a TTL drop (added by the build);
//! - a run that will take a large share of the memory budget (added by the build).

use crate::scenario::words::entry_suffix;
use crate::scenario::{Problem, Scenario};
use serde_json::Value;

/// Warnings listed at most; the rest are counted in one last line.
pub const MAX_WARNINGS: usize = 50;

/// The smallest frame a link carries, for the "no packet can cross" check: 64 bytes (the
/// Ethernet minimum, and below any IP+transport header).
const MIN_FRAME_BITS: u128 = 64 * 8;

/// Warnings that need only the scenario.
pub fn scenario_warnings(s: &Scenario) -> Vec<Problem> {
    let mut out = Vec::new();
    let duration = s.run.duration.time().0 as u128;
    for l in &s.links {
        let bps = u128::from(l.rate.bps().max(1));
        let cross = MIN_FRAME_BITS * 1_000_000_000 / bps + l.delay.time().0 as u128;
        if cross >= duration {
            out.push(Problem::new(
                format!("links.{}.rate", l.name),
                format!(
                    "a 64-byte packet takes {:.3} s to cross this link (rate {}, delay {}), \
                     longer than the run ({}); nothing will arrive over it: raise the rate \
                     or lengthen run.duration",
                    cross as f64 / 1e9,
                    l.rate,
                    l.delay,
                    s.run.duration
                ),
            ));
        }
    }
    for q in &s.qdiscs {
        let Ok(v) = serde_json::to_value(&q.conf) else {
            continue;
        };
        qdisc_tree_warnings(&v, &format!("qdiscs.{}", q.dev), &mut out);
    }
    out
}

/// Walks a qdisc (and its children) as JSON, warning about classful qdiscs that let
/// traffic fall outside every class.
fn qdisc_tree_warnings(v: &Value, path: &str, out: &mut Vec<Problem>) {
    match v {
        Value::Object(m) => {
            match m.get("kind").and_then(Value::as_str) {
                Some("htb") if m.get("default").is_none_or(Value::is_null) => {
                    out.push(Problem::new(
                        format!("{path}.default"),
                        "is not set: packets no class `match`es go to HTB's direct queue, \
                         sent unshaped ahead of every class (Linux sch_htb), which can \
                         starve the classes; name a leaf class as `default`",
                    ));
                }
                Some("drr") => {
                    let classes = m.get("classes").and_then(Value::as_array);
                    let catch_all = classes.is_some_and(|cs| {
                        cs.iter().any(|c| c.get("match").is_none_or(Value::is_null))
                    });
                    if !catch_all {
                        out.push(Problem::new(
                            format!("{path}.classes"),
                            "every class has a `match`: packets none of them takes are \
                             dropped unclassified (Linux sch_drr); add a class without \
                             `match` to take the rest",
                        ));
                    }
                }
                _ => {}
            }
            for (k, child) in m {
                if child.is_object() || child.is_array() {
                    qdisc_tree_warnings(child, &format!("{path}.{k}"), out);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let p = format!("{path}{}", entry_suffix(i, item, "name"));
                qdisc_tree_warnings(item, &p, out);
            }
        }
        _ => {}
    }
}

/// At most [`MAX_WARNINGS`], then one line counting the rest.
pub fn capped(mut w: Vec<Problem>) -> Vec<Problem> {
    if w.len() > MAX_WARNINGS {
        let more = w.len() - MAX_WARNINGS;
        w.truncate(MAX_WARNINGS);
        w.push(Problem::new(
            "(warnings)",
            format!("{more} more warnings like the ones above are not listed"),
        ));
    }
    w
}
