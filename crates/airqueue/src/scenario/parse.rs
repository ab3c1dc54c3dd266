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

fn parse_entry<T: DeserializeOwned>(
    value: Value,
    prefix: &str,
    errs: &mut ScenarioError,
) -> Option<T> {
    match serde_path_to_error::deserialize::<_, T>(&value) {
        Ok(v) => Some(v),
        Err(e) => {
            let inner = crate::conf::words::named_path(e.path(), &value);
            let (path, msg) = problem_from_serde(prefix, &inner, &e.inner().to_string());
            errs.push(path, msg);
            None
        }
    }
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
            errs.push(label, "must be a table (key = value pairs)");
            continue;
        }
        if let Some(t) = parse_one(item, &label, errs) {
            out.push(t);
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

/// What parsing found: the scenario without the entries that failed (`None` when `run`
/// failed), every problem, and the labels and names of the entries that failed, so that
/// later stages can still check the rest without reporting those entries as missing.
pub struct Partial {
    pub scenario: Option<Scenario>,
    pub errs: ScenarioError,
    /// `(label, name)` of each list entry with a problem: `("flows.f", "f")`.
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
        parse_entry::<NodeSpec>,
    );
    let links = parse_section(
        &mut root,
        "links",
        "name",
        &mut errs,
        parse_entry::<LinkSpec>,
    );
    let segments = parse_section(
        &mut root,
        "segments",
        "name",
        &mut errs,
        parse_entry::<SegmentSpec>,
    );
    let cells = parse_section(
        &mut root,
        "cells",
        "name",
        &mut errs,
        parse_entry::<CellSpec>,
    );
    let piconets = parse_section(
        &mut root,
        "piconets",
        "name",
        &mut errs,
        parse_entry::<PiconetSpec>,
    );
    let bridges = parse_section(
        &mut root,
        "bridges",
        "node",
        &mut errs,
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
        parse_entry::<VirtualDevSpec>,
    );
    let trunks = parse_section(
        &mut root,
        "trunks",
        "name",
        &mut errs,
        parse_entry::<TrunkSpec>,
    );
    let qdiscs = parse_section(&mut root, "qdiscs", "dev", &mut errs, parse_qdisc);
    let routes = parse_section(
        &mut root,
        "routes",
        "node",
        &mut errs,
        parse_entry::<RouteSpec>,
    );
    let flows = parse_section(
        &mut root,
        "flows",
        "name",
        &mut errs,
        parse_entry::<FlowSpec>,
    );
    // Timeline entries are labelled by index (`at[2]`): their `at` is a time, not a name.
    let at = parse_section(&mut root, "at", "", &mut errs, parse_entry::<AtSpec>);
    // A value reported by the marker pass is not reported again as, e.g., "must be a
    // number, not an empty value".
    errs.problems.retain(|p| !is_under(&p.path, &invalid));
    invalid_errs.problems.append(&mut errs.problems);
    let errs = invalid_errs;
    let failed = labels
        .into_iter()
        .filter(|(label, _)| {
            errs.problems
                .iter()
                .any(|p| is_under(&p.path, std::slice::from_ref(label)))
        })
        .collect();
    Partial {
        scenario: run.map(|run| Scenario {
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
