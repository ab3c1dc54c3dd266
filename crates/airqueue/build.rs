//! Computes the source id of this build: a hash of the core's sources, its manifest and the
//! workspace's lock file, compiled in as `AIRQUEUE_SOURCE_ID` ([`airqueue::SOURCE_ID`]).
//!
//! The crate version stays 0.1.0 from commit to commit, so a result store keyed by it
//! would hand back results of an older model after a change (a sweep resumed after `git
//! pull`). Results are a function of the sources and the locked dependencies (runs are
//! deterministic), so their hash tells two builds that may give different results apart,
//! and rebuilding the same sources gives the same id.

use std::hash::Hasher;
use std::path::{Path, PathBuf};

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut files = Vec::new();
    files_under(&root.join("src"), &mut files);
    files.sort();
    files.push(root.join("Cargo.toml"));
    files.push(root.join("../../Cargo.lock"));
    // SipHash-1-3 with a fixed key: the same bytes give the same id on every machine.
    let mut h = siphasher::sip::SipHasher13::new_with_keys(0, 0);
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            continue; // no lock file in a packaged crate: the sources still count
        };
        let name = f.strip_prefix(&root).unwrap_or(f);
        h.write(name.to_string_lossy().as_bytes());
        h.write_u8(0);
        h.write_u64(bytes.len() as u64);
        h.write(&bytes);
    }
    println!("cargo:rustc-env=AIRQUEUE_SOURCE_ID={:016x}", h.finish());
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=../../Cargo.lock");
}
