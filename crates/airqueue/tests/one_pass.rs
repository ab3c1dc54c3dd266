//! `airqueue validate` reports every problem in one pass (issue 33, item 11): an unknown
//! key no longer hides a wrong value in the same entry, a problem in one section no longer
//! hides one in another, and the order of the list is the same on every run.

use airqueue::scenario::{load_toml_str, ScenarioError};
use airqueue::sim::{load_and_build, BuildOptions};

fn paths(e: &ScenarioError) -> Vec<&str> {
    e.problems.iter().map(|p| p.path.as_str()).collect()
}

/// What `airqueue validate` does: load and build, from the TOML text.
fn check(text: &str) -> ScenarioError {
    let v: serde_json::Value = toml::from_str(text).unwrap();
    load_and_build(&v.to_string(), BuildOptions::default())
        .err()
        .expect("the scenario has problems")
}

/// The README's scenario ("A scenario").
const README: &str = include_str!("../../../README.md");

fn readme_scenario() -> String {
    let start = README
        .find("```toml\n[run]")
        .expect("the README's scenario")
        + 8;
    let len = README[start..].find("```").unwrap();
    README[start..start + len].to_string()
}

#[test]
fn the_readme_example_reports_both_problems_at_once() {
    let good = readme_scenario();
    load_toml_str(&good).expect("the README's scenario is valid");
    // README, "unknown keys are errors; every problem is reported": the bottleneck's
    // rate written "10 mbps" beside a `loss` that belongs in `impairment`.
    let broken = good.replacen("rate = \"10Mbit\"", "rate = \"10 mbps\"\nloss = \"1%\"", 1);
    let e = check(&broken);
    assert_eq!(
        paths(&e),
        ["links.bottleneck.loss", "links.bottleneck.rate"],
        "{e}"
    );
    assert!(
        e.problems[0].message.starts_with("unknown key \"loss\""),
        "{e}"
    );
    assert!(
        e.problems[1].message.contains("\"10 mbps\" is not a rate"),
        "{e}"
    );
    // The README's second problem, a payload beyond the path MTU, is found by the build:
    // it is reported beside an unknown key (the flow's entry is checked without it).
    let broken = good
        .replacen("delay = \"20ms\"", "delay = \"20ms\"\nloss = \"1%\"", 1)
        .replacen("size = 1172", "size = 1600", 1);
    let e = check(&broken);
    assert_eq!(
        paths(&e),
        [
            "links.bottleneck.loss",
            "flows.cbr0.app.size",
            "flows.cbr1.app.size",
            "flows.cbr2.app.size"
        ],
        "{e}"
    );
}

#[test]
fn an_unknown_key_does_not_hide_a_bad_value_in_the_same_entry() {
    let good = readme_scenario();
    // A nested table too: the impairment's unknown key and its bad value.
    let broken = good.replacen(
        "delay = \"20ms\"",
        "delay = \"20 ms\"\nimpairment = { losss = \"1%\", jitter = \"2\" }",
        1,
    );
    let e = check(&broken);
    assert_eq!(
        paths(&e),
        [
            "links.bottleneck.delay",
            "links.bottleneck.impairment.jitter",
            "links.bottleneck.impairment.losss",
        ],
        "{e}"
    );
}

const TWO_SECTIONS: &str = r#"
[run]
duration = "2s"
warmup = "20"
colour = 3

[[nodes]]
name = "a"
[[nodes]]
name = "b"

[[links]]
name = "ab"
between = ["a", "b"]
rate = "10 mbps"
delay = "x"
loss = "1%"

[[flows]]
name = "f"
from = "a"
to = "c"
colour = "red"
app = { kind = "cbr", size = 100, rate = "1Mbit", burst = 3 }

[[qdiscs]]
dev = "a.ab"
kind = "htb"
classes = [ { name = "c1", rate = "1 Mbit", ceil = "z" }, { name = "c2", rat = "1Mbit" } ]
"#;

#[test]
fn problems_in_different_sections_are_reported_together_in_a_fixed_order() {
    let e = load_toml_str(TWO_SECTIONS).unwrap_err();
    // Sections in the format's order, entries in the file's order, the keys of an entry
    // in sorted order (serde's), and what validation finds after what parsing found. A
    // `run` that failed does not stop the rest from being checked; the flow's entry, whose
    // only problems are unknown keys, is checked without them (its `to` names no node).
    let expected = [
        "run.colour",
        "run.warmup",
        "links.ab.delay",
        "links.ab.loss",
        "links.ab.rate",
        "qdiscs.a.ab.classes.c1.ceil",
        "qdiscs.a.ab.classes.c1.rate",
        "qdiscs.a.ab.classes.c2.rat",
        "qdiscs.a.ab.classes.c2.rate",
        "flows.f.app.burst",
        "flows.f.colour",
        "flows.f.to",
    ];
    assert_eq!(paths(&e), expected, "{e}");
    // The key taken out of `c2` is not what makes `rate` required: it was never given.
    assert!(e.problems[8].message.starts_with("is required"), "{e}");
    for _ in 0..5 {
        assert_eq!(load_toml_str(TWO_SECTIONS).unwrap_err(), e);
    }
}

#[test]
fn a_value_taken_out_is_not_reported_again_as_missing() {
    // `rate` is required: once its bad value is taken out, "is required" would follow.
    let e = load_toml_str(&readme_scenario().replacen("rate = \"10Mbit\"", "rate = 10", 1))
        .unwrap_err();
    assert_eq!(paths(&e), ["links.bottleneck.rate"], "{e}");
    // A table without its required key (an app without its `kind`) is taken out whole;
    // its parent's other keys are still read, and the parent's own "`app` is required" is
    // not reported.
    let e = load_toml_str(&readme_scenario().replacen(
        "app = { kind = \"cbr\", size = 1172, rate = \"2Mbit\" }",
        "app = { size = 1172, rate = \"2Mbit\" }\nstart = \"1\"",
        1,
    ))
    .unwrap_err();
    assert_eq!(paths(&e), ["flows.cbr.app.kind", "flows.cbr.start"], "{e}");
}

#[test]
fn the_retries_are_bounded() {
    // 200 unknown keys in one entry: the first 64 are reported, and loading ends.
    let keys: String = (0..200).map(|i| format!("k{i:03} = 1\n")).collect();
    let text = format!("[run]\nduration = \"1s\"\n{keys}");
    let e = load_toml_str(&text).unwrap_err();
    assert_eq!(e.problems.len(), 64, "{e}");
    assert_eq!(e.problems[0].path, "run.k000");
}
