//! Partial hearing in 802.11 cells (issue 12 item 3): hidden terminals, co-channel pairs
//! in and out of each other's range, a station walking out of range, determinism.

mod common;

use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, RunResults};
use common::*;

fn stations(r: &RunResults) -> &airqueue::metrics::Table {
    &r.more
        .iter()
        .find(|(n, _)| n == "stations")
        .expect("a cell adds the stations table")
        .1
}

/// The shipped validation scenario with `edits` (`(from, to)` text replacements).
fn validation(edits: &[(&str, &str)]) -> airqueue::scenario::Scenario {
    let path = format!(
        "{}/../../scenarios/validation/hidden-terminal.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (a, b) in edits {
        assert!(text.contains(a), "{a}");
        text = text.replace(a, b);
    }
    load_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

fn ip_rate(r: &RunResults, name: &str) -> f64 {
    flow(r, name).f("goodput_bps") * 1500.0 / 1472.0
}

#[test]
fn explore() {
    for (label, edits) in [
        ("all hear", vec![("c = [80, 0]", "c = [-1, 0]")]),
        ("hidden", vec![]),
        ("hidden rts", vec![("rate = \"11Mbit\"\nstations", "rate = \"11Mbit\"\nrts_threshold = 500\nstations")]),
        ("all hear rts", vec![("c = [80, 0]", "c = [-1, 0]"), ("rate = \"11Mbit\"\nstations", "rate = \"11Mbit\"\nrts_threshold = 500\nstations")]),
        ("all hear per-station", vec![("c = [80, 0]", "c = [-1, 0]"), ("positions = {", "per_station = true\npositions = {")]),
    ] {
        let s = validation(&edits);
        let r = run_scenario(&s, BuildOptions::default());
        assert_conserved(&r);
        let a = ip_rate(&r, "a-b");
        let c = ip_rate(&r, "c-b");
        println!("{label}: a {:.3} c {:.3} total {:.3} Mb/s; events {}", a / 1e6, c / 1e6, (a + c) / 1e6, r.summary.events);
        let t = stations(&r);
        println!("{:?}", t.columns.iter().map(|(n, c)| format!("{n}={c:?}")).collect::<Vec<_>>());
    }
}
