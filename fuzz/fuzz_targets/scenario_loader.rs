//! Coverage-guided fuzzing of the scenario loader (issue 18): any bytes, read as TOML and
//! as JSON, through `load_toml_str`/`load_json_str` and, when the scenario is valid,
//! `Simulation::build` under a 256 MiB budget. The contract (docs/limits.md): never a
//! panic, and every problem has a field path and a message that names no Rust or serde
//! type. A violated contract aborts the fuzzer with the input saved as a crash.
#![no_main]

use airqueue::scenario::words::names_a_type;
use airqueue::scenario::{load_json_str, load_toml_str, Scenario, ScenarioError};
use airqueue::sim::{BuildOptions, Simulation};
use libfuzzer_sys::fuzz_target;

fn check_clean(e: &ScenarioError) {
    assert!(!e.problems.is_empty(), "an error without problems");
    for p in &e.problems {
        assert!(!p.path.is_empty(), "a problem without a path: {}", p.message);
        if let Some(word) = names_a_type(&p.message) {
            panic!("{}: {} (names {word:?})", p.path, p.message);
        }
    }
}

fn check(loaded: Result<Scenario, ScenarioError>) {
    match loaded {
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

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    check(load_toml_str(text));
    check(load_json_str(text));
});
