//! From a JSON/TOML value to a [`Scenario`], one entry at a time, so that every entry's
//! problem is reported (with its path) rather than only the first problem in the file.

use super::markers::{is_under, take_invalid};
use super::spec::{
    AtSpec, BridgeSpec, CellSpec, FlowSpec, LinkSpec, NodeSpec, PiconetSpec, QdiscConf, QdiscSpec,
    RouteSpec, RunSpec, Scenario, SegmentSpec, TrunkSpec, VirtualDevSpec,
};
use crate::conf::kind_enum::problem_from_serde;
use crate::conf::ScenarioError;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Top-level keys of the format.
const SECTIONS: [&str; 16] = [
    "description",
    "run",
    "nodes",
    "links",
    "segments",
    "cells",
    "piconets",
    "bridges",
    "spectrum",
    "propagation",
    "virtual_devs",
    "trunks",
    "qdiscs",
    "routes",
    "flows",
    "at",
];

/// The key that names the entries of a list section in field paths (`flows.voice`,
/// `qdiscs.router.bottleneck`); `Some("")` labels them by index (`at[2]`).
fn section_entry_key(section: &str) -> Option<&'static str> {
    match section {
        "run" | "description" => None,
        "qdiscs" => Some("dev"),
        "routes" | "bridges" => Some("node"),
        "at" => Some(""),
        _ => Some("name"),
    }
}

/// Keys reserved for models that later issues add; named so that users get a clear answer.
const FUTURE_SECTIONS: [(&str, &str); 2] = [
    ("systems", "the seed systems"),
    ("sweep", "sweeps (use `airqueue sweep`)"),
];

/// Most problems one entry reports: each one found costs a retry of the entry.
const MAX_PROBLEMS_PER_ENTRY: usize = 64;

/// What became of one entry.
enum Parsed<T> {
    /// It parsed as written.
    Clean(T),
    /// It parsed once its unknown keys were taken out: the rest is as written, so the
    /// later stages still check it.
    Repaired(T),
    /// Some value was wrong or missing: the entry is left out of the later stages.
    Failed,
}

impl<T> Parsed<T> {
    /// The entry, when it takes part in the later stages.
    fn kept(self) -> Option<T> {
        match self {
            Parsed::Clean(t) | Parsed::Repaired(t) => Some(t),
            Parsed::Failed => None,
        }
    }
}

/// A step into a JSON value: a table's key or a list's index.
enum Step {
    Key(String),
    Index(usize),
}

/// Where a problem's path (relative to the entry, as reported: `app.rate`,
/// `classes.voice.rate`, `between[1]`) leads in `root`: the steps to the deepest value on
/// it that exists and how much of the path they cover. A list entry is named by its `name`,
/// as [`crate::conf::words::named_path`] names it, or by `[i]`. A key that holds dots is
/// matched whole (the longest key that fits wins).
fn locate(root: &Value, path: &str) -> Vec<(Step, usize)> {
    let mut steps = Vec::new();
    let mut at = root;
    let mut rest = path;
    let fits = |r: &str, head: &str| {
        r.strip_prefix(head)
            .is_some_and(|t| t.is_empty() || t.starts_with('.') || t.starts_with('['))
    };
    while !rest.is_empty() {
        let (step, next, taken) = match at {
            Value::Object(m) => {
                let r = rest.strip_prefix('.').unwrap_or(rest);
                let Some((k, v)) = m
                    .iter()
                    .filter(|(k, _)| fits(r, k))
                    .max_by_key(|(k, _)| k.len())
                else {
                    break;
                };
                (Step::Key(k.clone()), v, rest.len() - r.len() + k.len())
            }
            Value::Array(items) => {
                if let Some(r) = rest.strip_prefix('[') {
                    let Some((n, _)) = r.split_once(']') else {
                        break;
                    };
                    let Some((i, v)) = n
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| Some((i, items.get(i)?)))
                    else {
                        break;
                    };
                    (Step::Index(i), v, n.len() + 2)
                } else {
                    let r = rest.strip_prefix('.').unwrap_or(rest);
                    let named = items.iter().enumerate().filter_map(|(i, v)| {
                        let name = v.get("name")?.as_str()?;
                        (!name.is_empty() && fits(r, name)).then_some((i, v, name.len()))
                    });
                    let Some((i, v, len)) = named.max_by_key(|(_, _, len)| *len) else {
                        break;
                    };
                    (Step::Index(i), v, rest.len() - r.len() + len)
                }
            }
            _ => break,
        };
        rest = &rest[taken..];
        let covered = path.len() - rest.len();
        steps.push((step, covered));
        at = next;
    }
    steps
}

/// Takes the value at `steps` out of `root`. A list entry goes only when no entry after it
/// is labelled by its index (the labels of the rest would shift); otherwise the whole list
/// goes. Returns how much of the problem's path the removed value covers, or `None` when
/// nothing below the entry itself could be taken out.
fn remove_at(root: &mut Value, mut steps: Vec<(Step, usize)>) -> Option<usize> {
    loop {
        let (last, covered) = steps.pop()?;
        let mut parent = &mut *root;
        for (step, _) in &steps {
            parent = match step {
                Step::Key(k) => parent.get_mut(k.as_str())?,
                Step::Index(i) => parent.get_mut(*i)?,
            };
        }
        match (last, parent) {
            (Step::Key(k), Value::Object(m)) => {
                m.remove(&k);
                return Some(covered);
            }
            (Step::Index(i), Value::Array(items)) => {
                let later_named = items[i + 1..].iter().all(|v| {
                    v.get("name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| !n.is_empty())
                });
                if later_named {
                    items.remove(i);
                    return Some(covered);
                }
            }
            _ => return None,
        }
    }
}

/// Parses one entry and reports every problem in it, not only the first serde meets: each
/// problem's value is taken out of the entry (an unknown key, a wrong value, a table that
/// misses a required key) and the entry is read again, at most
/// [`MAX_PROBLEMS_PER_ENTRY`] times. What only follows from a value taken out (the key it
/// held is now "required") is not reported. serde visits a table's keys in sorted order and
/// reports a missing key after all present ones, so the order is the same on every run.
fn parse_entry_all<T: DeserializeOwned>(
    mut value: Value,
    prefix: &str,
    errs: &mut ScenarioError,
) -> Parsed<T> {
    let mut removed: Vec<String> = Vec::new();
    let mut only_unknown_keys = true;
    for _ in 0..MAX_PROBLEMS_PER_ENTRY {
        let e = match serde_path_to_error::deserialize::<_, T>(&value) {
            Ok(t) if removed.is_empty() => return Parsed::Clean(t),
            Ok(t) if only_unknown_keys => return Parsed::Repaired(t),
            Ok(_) => return Parsed::Failed,
            Err(e) => e,
        };
        let inner = crate::conf::words::named_path(e.path(), &value);
        let (path, msg) = problem_from_serde(prefix, &inner, &e.inner().to_string());
        let rel = path
            .strip_prefix(prefix)
            .map_or(path.as_str(), |r| r.trim_start_matches('.'));
        let rel = rel.to_string();
        if !is_under(&rel, &removed) {
            // problem_from_serde words an unknown key this way and nothing else.
            only_unknown_keys &= msg.starts_with("unknown key \"");
            errs.push(path, msg);
        }
        let steps = locate(&value, &rel);
        let Some(covered) = remove_at(&mut value, steps) else {
            return Parsed::Failed;
        };
        removed.push(rel[..covered].to_string());
    }
    Parsed::Failed
}

fn parse_entry<T: DeserializeOwned>(
    value: Value,
    prefix: &str,
    errs: &mut ScenarioError,
) -> Option<T> {
    parse_entry_all(value, prefix, errs).kept()
}

/// The path label of the i-th entry of a section: by name when it has one, else by index.
fn entry_label(section: &str, i: usize, v: &Value, key: &str) -> String {
    format!("{section}{}", crate::conf::words::entry_suffix(i, v, key))
}

fn parse_section<T: DeserializeOwned>(
    root: &mut Map<String, Value>,
    section: &str,
    key: &str,
    errs: &mut ScenarioError,
    dropped: &mut Vec<String>,
    parse_one: impl Fn(Value, &str, &mut ScenarioError) -> Option<T>,
) -> Vec<T> {
    let Some(v) = root.remove(section) else {
        return Vec::new();
    };
    let Value::Array(items) = v else {
        errs.push(
            section,
            format!("must be a list of tables; write each entry as [[{section}]]"),
        );
        return Vec::new();
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let label = entry_label(section, i, &item, key);
        if !item.is_object() {
            errs.push(label.clone(), "must be a table (key = value pairs)");
            dropped.push(label);
            continue;
        }
        match parse_one(item, &label, errs) {
            Some(t) => out.push(t),
            None => dropped.push(label),
        }
    }
    out
}

fn parse_qdisc(item: Value, label: &str, errs: &mut ScenarioError) -> Option<QdiscSpec> {
    let Value::Object(mut m) = item else {
        return None;
    };
    let dev = match m.remove("dev") {
        Some(Value::String(s)) => Some(s),
        Some(_) => {
            errs.push(
                format!("{label}.dev"),
                "must be an interface name such as \"router.bottleneck\"",
            );
            None
        }
        None => {
            errs.push(
                format!("{label}.dev"),
                "is required; add `dev = \"<node>.<link>\"` naming the egress interface",
            );
            None
        }
    };
    let name = match m.remove("name") {
        Some(Value::String(s)) => Some(s),
        Some(_) => {
            errs.push(format!("{label}.name"), "must be a string");
            None
        }
        None => None,
    };
    let stab = match m.remove("stab") {
        Some(v) => parse_entry(v, &format!("{label}.stab"), errs),
        None => None,
    };
    if !m.contains_key("kind") {
        errs.push(
            format!("{label}.kind"),
            "is required; add e.g. `kind = \"pfifo\"` (see `airqueue list qdiscs`)",
        );
        return None;
    }
    let conf: QdiscConf = parse_entry(Value::Object(m), label, errs)?;
    Some(QdiscSpec {
        dev: dev?,
        name,
        stab,
        conf,
    })
}

/// Parses the structure of a scenario (types, units, unknown keys). Does not expand `count`
/// or check references; see [`super::load_value`] for the whole pipeline.
pub fn parse_value(value: Value) -> Result<Scenario, ScenarioError> {
    let p = parse_partial(value);
    match (p.scenario, p.errs.is_empty()) {
        (Some(s), true) => Ok(s),
        _ => Err(p.errs),
    }
}

/// What parsing found: the scenario without the entries that failed (`None` when the
/// value is not a table; a stand-in `run` when it failed), every problem, and the labels and names of the entries that failed, so that
/// later stages can still check the rest without reporting those entries as missing. An
/// entry whose only problems are unknown keys is kept without them (the rest is as
/// written) and is checked by the later stages like any other.
pub struct Partial {
    pub scenario: Option<Scenario>,
    pub errs: ScenarioError,
    /// `(label, name)` of each list entry left out: `("flows.f", "f")`.
    pub failed: Vec<(String, String)>,
}

impl Partial {
    /// Whether a later stage's problem is only a consequence of an entry that failed to
    /// parse: it is at that entry, or names it in quotes, alone or as a part of a dotted
    /// name (`no node is named "b"`, `"router.bottleneck" is not an interface`).
    pub fn is_consequence(&self, p: &super::Problem) -> bool {
        let quoted: Vec<&str> = p.message.split('"').skip(1).step_by(2).collect();
        self.failed.iter().any(|(label, name)| {
            is_under(&p.path, std::slice::from_ref(label))
                || (!name.is_empty()
                    && quoted
                        .iter()
                        .any(|q| *q == name || q.split('.').any(|part| part == name)))
        })
    }
}

/// `(label, name)` of every entry of the list sections in `root`.
fn entry_labels(root: &Map<String, Value>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (section, v) in root {
        let (Some(key), Value::Array(items)) = (section_entry_key(section), v) else {
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let name = item.get(key).and_then(Value::as_str).unwrap_or("");
            out.push((entry_label(section, i, item, key), name.to_string()));
        }
    }
    out
}

/// Parses what it can; see [`Partial`].
pub fn parse_partial(value: Value) -> Partial {
    let mut errs = ScenarioError::default();
    let Value::Object(mut root) = value else {
        return Partial {
            scenario: None,
            errs: ScenarioError::single(
                "(top)",
                "a scenario must be a table of sections ([run], [[nodes]], [[links]], [[flows]] …)",
            ),
            failed: Vec::new(),
        };
    };
    let mut invalid_errs = ScenarioError::default();
    let mut dropped: Vec<String> = Vec::new();
    let invalid = take_invalid(&mut root, section_entry_key, &mut invalid_errs);
    let labels = entry_labels(&root);
    let keys: Vec<String> = root.keys().cloned().collect();
    for k in &keys {
        if SECTIONS.contains(&k.as_str()) {
            continue;
        }
        if let Some((_, what)) = FUTURE_SECTIONS.iter().find(|(s, _)| s == k) {
            errs.push(
                k.clone(),
                format!(
                    "{what} are not supported by this version of airqueue yet; remove the section"
                ),
            );
        } else {
            errs.push(
                k.clone(),
                format!("unknown section; use one of {}", SECTIONS.join(", ")),
            );
        }
        root.remove(k);
    }
    let description = match root.remove("description") {
        None => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => {
            errs.push("description", "must be a string");
            None
        }
    };
    let run: Option<RunSpec> = match root.remove("run") {
        None => {
            errs.push(
                "run",
                "is required; add a [run] table with at least `duration = \"10s\"`",
            );
            None
        }
        Some(v) if !v.is_object() => {
            errs.push("run", "must be a table: [run]");
            None
        }
        Some(v) => parse_entry(v, "run", &mut errs),
    };
    let nodes = parse_section(
        &mut root,
        "nodes",
        "name",
        &mut errs,
        &mut dropped,
        parse_entry::<NodeSpec>,
    );
    let links = parse_section(
        &mut root,
        "links",
        "name",
        &mut errs,
        &mut dropped,
        parse_entry::<LinkSpec>,
    );
    let segments = parse_section(
        &mut root,
        "segments",
        "name",
        &mut errs,
        &mut dropped,
        parse_entry::<SegmentSpec>,
    );
    let cells = parse_section(
        &mut root,
        "cells",
        "name",
        &mut errs,
        &mut dropped,
        parse_entry::<CellSpec>,
    );
    let piconets = parse_section(
        &mut root,
        "piconets",
        "name",
        &mut errs,
        &mut dropped,
        parse_entry::<PiconetSpec>,
    );
    let bridges = parse_section(
        &mut root,
        "bridges",
        "node",
        &mut errs,
        &mut dropped,
        parse_entry::<BridgeSpec>,
    );
    let spectrum: Option<super::spec::SpectrumSpec> = match root.remove("spectrum") {
        None => None,
        Some(v) if !v.is_object() => {
            errs.push("spectrum", "must be a table: [spectrum]");
            None
        }
        Some(v) => parse_entry(v, "spectrum", &mut errs),
    };
    let propagation: Option<super::spec::PropagationSpec> = match root.remove("propagation") {
        None => None,
        Some(v) if !v.is_object() => {
            errs.push("propagation", "must be a table: [propagation]");
            None
        }
        Some(v) => parse_entry(v, "propagation", &mut errs),
    };
    let virtual_devs = parse_section(
        &mut root,
        "virtual_devs",
        "name",
        &mut errs,
        &mut dropped,
        parse_entry::<VirtualDevSpec>,
    );
    let trunks = parse_section(
        &mut root,
        "trunks",
        "name",
        &mut errs,
        &mut dropped,
        parse_entry::<TrunkSpec>,
    );
    let qdiscs = parse_section(
        &mut root,
        "qdiscs",
        "dev",
        &mut errs,
        &mut dropped,
        parse_qdisc,
    );
    let routes = parse_section(
        &mut root,
        "routes",
        "node",
        &mut errs,
        &mut dropped,
        parse_entry::<RouteSpec>,
    );
    let flows = parse_section(
        &mut root,
        "flows",
        "name",
        &mut errs,
        &mut dropped,
        |mut flow, label, errs| {
            super::tcp_profile::apply(&mut flow);
            parse_entry::<FlowSpec>(flow, label, errs)
        },
    );
    // Timeline entries are labelled by index (`at[2]`): their `at` is a time, not a name.
    let at = parse_section(
        &mut root,
        "at",
        "",
        &mut errs,
        &mut dropped,
        parse_entry::<AtSpec>,
    );
    // A value reported by the marker pass is not reported again as, e.g., "must be a
    // number, not an empty value".
    errs.problems.retain(|p| !is_under(&p.path, &invalid));
    invalid_errs.problems.append(&mut errs.problems);
    let errs = invalid_errs;
    let mut failed: Vec<(String, String)> = labels
        .into_iter()
        .filter(|(label, _)| dropped.contains(label))
        .collect();
    // Without a `run` that parsed, the rest is still checked, against a run that no start
    // or timeline entry can be late for; whatever is said about `run` itself is left out.
    let run = run.unwrap_or_else(|| {
        failed.push(("run".to_string(), String::new()));
        RunSpec::stand_in()
    });
    Partial {
        scenario: Some(Scenario {
            description,
            run,
            nodes,
            links,
            segments,
            cells,
            piconets,
            bridges,
            spectrum,
            propagation,
            virtual_devs,
            trunks,
            qdiscs,
            routes,
            flows,
            at,
        }),
        errs,
        failed,
    }
}

impl<'de> serde::Deserialize<'de> for QdiscSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let mut errs = ScenarioError::default();
        parse_qdisc(v, "qdisc", &mut errs).ok_or_else(|| serde::de::Error::custom(errs.to_string()))
    }
}
