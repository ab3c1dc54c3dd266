//! Runs bench scenarios once each, for counting instructions with callgrind (wall-clock
//! time on a shared machine is noisy; instruction counts are deterministic).
//!
//! ```text
//! cargo bench -p airqueue --bench instructions --no-run   # prints the binary's path
//! valgrind --tool=callgrind --toggle-collect='*Simulation*run*' \
//!     target/release/deps/instructions-<hash> tcp_dumbbell_1gbit
//! ```
//!
//! `--toggle-collect` counts only `Simulation::run` (building the simulation and parsing
//! the scenario are left out). Arguments name scenarios of `common::all()`; without one,
//! every scenario runs (which is what `cargo bench` does). Prints the events and wall time
//! of each run.

mod common;

use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, Simulation};

fn main() {
    // `cargo bench` passes `--bench`; scenario names are the arguments without a dash.
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let all = common::all();
    for w in &wanted {
        assert!(
            all.iter().any(|(name, _)| name == w),
            "unknown scenario {w:?}; known: {:?}",
            all.iter().map(|(n, _)| *n).collect::<Vec<_>>()
        );
    }
    for (name, text) in all {
        if !wanted.is_empty() && !wanted.iter().any(|w| w == name) {
            continue;
        }
        let s = load_toml_str(&text).expect("benchmark scenario is valid");
        let mut sim = Simulation::build(&s, BuildOptions::default()).expect("scenario builds");
        let started = std::time::Instant::now();
        sim.run();
        let wall = started.elapsed().as_secs_f64();
        let ok = sim.conservation().ok;
        println!(
            "{name}: {} events in {wall:.3} s, conservation {}",
            sim.events_processed(),
            if ok { "ok" } else { "FAILED" }
        );
    }
}
