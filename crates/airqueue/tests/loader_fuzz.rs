//! Property tests (proptest) of the scenario loader over arbitrary JSON values and mutated
//! shipped scenarios (issue 18): `load_value` and `Simulation::build` never panic, and every
//! problem they report has a field path and a message in the project's words (no Rust or
//! serde type names). The reference is the project's error contract (docs/limits.md).
//! `PROPTEST_CASES` sets the number of cases (CI default below; longer runs locally).

use airqueue::scenario::words::names_a_type;
use airqueue::scenario::{load_value, ScenarioError};
use airqueue::sim::{BuildOptions, Simulation};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The shipped scenarios, and the seeds `tests/mutant_seeds/` adds for the sections no
/// shipped scenario carries (ten qdisc kinds, `segments`, the on/off source), as JSON
/// values, read once.
fn shipped() -> &'static [Value] {
    static ALL: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    ALL.get_or_init(read_shipped)
}

fn read_shipped() -> Vec<Value> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    walk(&repo.join("scenarios"), &mut files);
    walk(&repo.join("tests/mutant_seeds"), &mut files);
    files.sort();
    files
        .iter()
        .map(|f| {
            let mut v: Value = toml::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
            v.as_object_mut().unwrap().remove("sweep");
            v
        })
        .collect()
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        prop_oneof![
            Just(0u64),
            Just(1),
            Just(100_000),
            Just(100_001),
            Just(u64::MAX)
        ]
        .prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z0-9. {}]{0,10}".prop_map(Value::from),
        prop_oneof![
            Just("10Mbit"),
            Just("1ns"),
            Just("720h"),
            Just("0s"),
            Just("1bit"),
            Just("pfifo"),
            Just("htb"),
            Just("tcp"),
        ]
        .prop_map(Value::from),
    ]
}

fn any_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every (pointer) path to a value inside `v`.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(c, p, out);
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(c, p, out);
            }
        }
        _ => {}
    }
}

fn check_clean(e: &ScenarioError) {
    assert!(!e.problems.is_empty());
    for p in &e.problems {
        assert!(!p.path.is_empty(), "{e}");
        if let Some(w) = names_a_type(&p.message) {
            panic!("{}: {} (names {w:?})", p.path, p.message);
        }
    }
}

fn load_and_build(v: Value) {
    match load_value(v) {
        Err(e) => check_clean(&e),
        Ok(s) => {
            let opts = BuildOptions {
                max_memory: Some(256 << 20),
                ..Default::default()
            };
            if let Err(e) = Simulation::build(&s, opts) {
                check_clean(&e);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Arbitrary JSON as a whole scenario, or as one section of a valid one.
    #[test]
    fn arbitrary_values_never_panic(v in any_value(), section in 0usize..13) {
        const SECTIONS: [&str; 13] = ["run", "nodes", "links", "segments", "cells",
            "virtual_devs", "qdiscs", "routes", "flows", "at", "description", "piconets",
            "spectrum"];
        load_and_build(v.clone());
        let mut base = json!({"run": {"duration": "1s"}, "nodes": [{"name": "a"}]});
        base[SECTIONS[section]] = v;
        load_and_build(base);
    }

    /// One value of a shipped scenario replaced by an arbitrary one, or removed.
    #[test]
    fn mutated_shipped_scenarios_never_panic(
        which in any::<prop::sample::Index>(),
        place in any::<prop::sample::Index>(),
        remove in any::<bool>(),
        value in any_value(),
    ) {
        let all = shipped();
        let mut v = all[which.index(all.len())].clone();
        let mut ptrs = Vec::new();
        pointers(&v, String::new(), &mut ptrs);
        let ptr = &ptrs[place.index(ptrs.len())];
        let (parent, key) = ptr.rsplit_once('/').unwrap();
        match v.pointer_mut(if parent.is_empty() { "" } else { parent }) {
            Some(Value::Object(m)) if remove => { m.remove(&key.replace("~1", "/").replace("~0", "~")); }
            _ => { *v.pointer_mut(ptr).unwrap() = value; }
        }
        load_and_build(v);
    }
}
