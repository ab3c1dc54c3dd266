//! Values the front end could not put into JSON (a TOML date, NaN, a number beyond 64 bits,
//! bytes) arrive as marker objects `{"$airqueue-invalid": "<message>"}` (see
//! `python/airqueue/values.py`); this pass reports each at its field path, named like every
//! other problem, and replaces it with nothing so that the rest of the scenario is still
//! checked in the same pass. It also bounds nesting depth before any recursive
//! deserialization can run out of stack.

use crate::conf::words::entry_suffix;
use crate::conf::ScenarioError;
use serde_json::{Map, Value};

/// The key of a marker object.
pub const INVALID_MARKER: &str = "$airqueue-invalid";

/// Deepest nesting of tables and lists accepted. The deepest valid scenario (an HTB tree of
/// Linux's 8 levels, TC_HTB_MAXDEPTH, each level a class list holding a child qdisc) needs
/// about 30.
pub const MAX_VALUE_DEPTH: usize = 64;

fn marker_message(v: &Value) -> Option<String> {
    let m = v.as_object()?;
    if m.len() != 1 {
        return None;
    }
    m.get(INVALID_MARKER)
        .map(|msg| msg.as_str().unwrap_or("is not a valid value").to_string())
}

/// Deepest nesting of child qdiscs (`qdisc = { … qdisc = { … } }`, a class's or band's
/// `qdisc`). Linux sets no number for qdisc nesting, but its deepest classful tree is HTB's
/// 8 levels (TC_HTB_MAXDEPTH); the same bound keeps every recursive walk over the tree short.
pub const MAX_QDISC_NESTING: usize = 8;

/// Where a walk is: its path, how many tables and lists deep, how many child qdiscs deep.
struct At<'a> {
    path: &'a str,
    depth: usize,
    qdiscs: usize,
}

fn walk(v: &mut Value, at: At<'_>, errs: &mut ScenarioError, found: &mut Vec<String>) {
    let At {
        path,
        depth,
        qdiscs,
    } = at;
    if qdiscs > MAX_QDISC_NESTING && v.is_object() {
        errs.push(
            path,
            format!(
                "child qdiscs nest more than {MAX_QDISC_NESTING} levels deep here; airqueue \
                 allows {MAX_QDISC_NESTING} (the depth of Linux's HTB class tree); flatten the tree"
            ),
        );
        found.push(path.to_string());
        *v = Value::Null;
        return;
    }
    if let Some(msg) = marker_message(v) {
        errs.push(path, msg);
        found.push(path.to_string());
        *v = Value::Null;
        return;
    }
    let nested = matches!(v, Value::Array(_) | Value::Object(_));
    if nested && depth >= MAX_VALUE_DEPTH {
        errs.push(
            path,
            format!(
                "is nested more than {MAX_VALUE_DEPTH} tables and lists deep; no scenario \
                 needs that (Linux's HTB allows 8 levels of classes)"
            ),
        );
        found.push(path.to_string());
        *v = Value::Null;
        return;
    }
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let p = format!("{path}{}", entry_suffix(i, item, "name"));
                let at = At {
                    path: &p,
                    depth: depth + 1,
                    qdiscs,
                };
                walk(item, at, errs, found);
            }
        }
        Value::Object(m) => {
            // A key whose value was reported is removed (not set to null), so that its
            // default applies and the rest of its table still parses and is checked.
            let mut reported = Vec::new();
            for (k, item) in m.iter_mut() {
                let p = format!("{path}.{k}");
                let qdiscs = qdiscs + usize::from(k == "qdisc" && item.is_object());
                let at = At {
                    path: &p,
                    depth: depth + 1,
                    qdiscs,
                };
                walk(item, at, errs, found);
                if found.last() == Some(&p) {
                    reported.push(k.clone());
                }
            }
            for k in reported {
                m.remove(&k);
            }
        }
        _ => {}
    }
}

/// Reports and removes the markers (and too-deep values) under `root`, whose list sections
/// label their entries by the key `entry_key(section)` gives. Returns the paths reported,
/// so that the parser can drop its own (consequential) problems at those paths.
pub fn take_invalid(
    root: &mut Map<String, Value>,
    entry_key: impl Fn(&str) -> Option<&'static str>,
    errs: &mut ScenarioError,
) -> Vec<String> {
    let mut found = Vec::new();
    for (section, v) in root.iter_mut() {
        match (entry_key(section), &mut *v) {
            (Some(key), Value::Array(items)) => {
                for (i, item) in items.iter_mut().enumerate() {
                    let p = format!("{section}{}", entry_suffix(i, item, key));
                    let at = At {
                        path: &p,
                        depth: 2,
                        qdiscs: 1,
                    };
                    walk(item, at, errs, &mut found);
                }
            }
            _ => {
                let at = At {
                    path: section,
                    depth: 1,
                    qdiscs: 0,
                };
                walk(v, at, errs, &mut found)
            }
        }
    }
    found
}

/// Whether `path` is at or under one of `roots`.
pub fn is_under(path: &str, roots: &[String]) -> bool {
    roots.iter().any(|r| {
        path == r
            || path
                .strip_prefix(r.as_str())
                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
    })
}
