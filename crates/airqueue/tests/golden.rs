//! Golden hashes of every shipped scenario's results (issue 10: the link-layer redesign must
//! leave every result byte-identical).
//!
//! Reference: the results of the same scenarios before the change, stored as one hash per
//! (scenario, table) in `tests/golden/hashes.txt`. Each hash covers a table's column names
//! and every value bit for bit (floats by their bits), and the summary without its wall-clock
//! `timing`. Tolerance: none.
//!
//! **Rule**: regenerate the file (`AIRQUEUE_BLESS=1 cargo test --release --test golden`)
//! only in a commit whose message says why the results changed (a model fix, a new default).
//! A refactoring must never need it.

use airqueue::metrics::{Column, Table};
use airqueue::scenario::load_toml_str;
use airqueue::sim::{run_scenario, RunResults};
use std::hash::Hasher;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.toml` under `scenarios/`, sorted, as (relative name, text).
fn shipped_scenarios() -> Vec<(String, String)> {
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
    let root = repo().join("scenarios");
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    // Fixtures for what the shipped scenarios do not exercise (jitter, static routes, …).
    let fixtures = repo().join("crates/airqueue/tests/golden");
    let mut extra = Vec::new();
    walk(&fixtures, &mut extra);
    extra.sort();
    files.extend(extra);
    files
        .into_iter()
        .map(|p| {
            let name = p
                .strip_prefix(&root)
                .or_else(|_| p.strip_prefix(repo().join("crates/airqueue/tests")))
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

fn hasher() -> siphasher::sip::SipHasher24 {
    siphasher::sip::SipHasher24::new_with_keys(0, 0)
}

fn table_hash(t: &Table) -> u64 {
    let mut h = hasher();
    for (name, col) in &t.columns {
        h.write(name.as_bytes());
        h.write_u8(0xff);
        match col {
            Column::F64(v) => v.iter().for_each(|x| h.write_u64(x.to_bits())),
            Column::U64(v) => v.iter().for_each(|x| h.write_u64(*x)),
            Column::Str(v) => v.iter().for_each(|s| {
                h.write(s.as_bytes());
                h.write_u8(0);
            }),
            Column::Cat { codes, categories } => codes.iter().for_each(|&c| {
                h.write(categories[c as usize].as_bytes());
                h.write_u8(0);
            }),
        }
    }
    h.finish()
}

fn summary_hash(r: &RunResults) -> u64 {
    let mut s = r.summary.clone();
    s.timing.wall_seconds = 0.0;
    s.timing.events_per_second = 0.0;
    let mut h = hasher();
    h.write(s.to_json().as_bytes());
    h.finish()
}

fn current_hashes() -> String {
    let mut out = String::new();
    for (name, text) in shipped_scenarios() {
        let s = load_toml_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = run_scenario(&s, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(r.summary.conservation_ok, "{name}: conservation failed");
        out.push_str(&format!("{name} summary {:016x}\n", summary_hash(&r)));
        for (table, t) in r.tables() {
            out.push_str(&format!("{name} {table} {:016x}\n", table_hash(t)));
        }
    }
    out
}

#[test]
fn shipped_scenarios_give_the_golden_results() {
    let file = repo().join("crates/airqueue/tests/golden/hashes.txt");
    let now = current_hashes();
    if std::env::var_os("AIRQUEUE_BLESS").is_some() {
        std::fs::write(&file, &now).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&file).expect("tests/golden/hashes.txt");
    let diff: Vec<String> = want
        .lines()
        .zip(now.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("  golden {a}\n  now    {b}"))
        .collect();
    assert!(
        diff.is_empty() && want.lines().count() == now.lines().count(),
        "results differ from the golden hashes (a refactoring must not change them; \
         a model change regenerates them with AIRQUEUE_BLESS=1 and says why in the commit):\n{}",
        diff.join("\n")
    );
}
