//! The shipped `scenarios/bluetooth-tcp/` runs (thesis, seed 001, §6): each builds, runs and
//! conserves packets; the 2-slave PPL run reaches the goodput the thesis reports in shape.

mod common;

use airqueue::scenario::load_toml_str;
use airqueue::sim::BuildOptions;
use common::*;

fn load(name: &str) -> airqueue::scenario::Scenario {
    let path = format!(
        "{}/../../scenarios/bluetooth-tcp/{name}.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    load_toml_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every shipped scenario runs and conserves packets; prints what the thesis plots.
#[test]
fn bluetooth_tcp_scenarios_run_and_conserve() {
    for n in [2, 4, 6] {
        for layer in ["ppl", "ipl"] {
            let name = format!("piconet-{n}-{layer}");
            let r = run_scenario(&load(&name), BuildOptions::default());
            assert_conserved(&r);
            let g: f64 = (1..=n)
                .map(|i| flow(&r, &format!("tcp{i}")).f("goodput_bps"))
                .sum::<f64>()
                / n as f64;
            let rtt: f64 = (1..=n)
                .map(|i| flow(&r, &format!("tcp{i}")).f("rtt_mean_ms"))
                .sum::<f64>()
                / n as f64;
            let to: u64 = (1..=n)
                .map(|i| flow(&r, &format!("tcp{i}")).u("timeouts"))
                .sum();
            eprintln!(
                "{name}: mean goodput {:.1} kb/s, RTT {rtt:.0} ms, timeouts {to}",
                g / 1e3
            );
            assert_tdd_timeline_covered(&r, 420.0);
            if name == "piconet-2-ppl" {
                // Offered 160 kb/s per connection, below the piconet's capacity (§6.1.1).
                assert!(g > 150e3, "{name}: {g}");
            }
        }
    }
}
