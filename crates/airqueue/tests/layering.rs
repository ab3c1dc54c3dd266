//! The layer order of `crates/airqueue/src`, checked: every `crate::<module>` a file names
//! (in a `use` line, a grouped `use crate::{…}` or a path in code) must be a module of a
//! lower layer than the file's own top-level module, except the edges the order allows by
//! name. The order is read from `docs/architecture.md` (between `<!-- layers -->` and
//! `<!-- /layers -->`), so the page and the code cannot drift apart: a new top-level module
//! must be placed there, and an import that runs up the order fails here with its file and
//! line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The documented order: each module's layer, and the upward edges allowed by name.
struct Order {
    layer: BTreeMap<String, usize>,
    allowed: BTreeSet<(String, String)>,
}

/// Parses the block: one layer a line (`<n> <module> <module> …`, bottom first, then a
/// description after two spaces or more), and
/// `allowed: <from> -> <to>` lines.
fn parse_order(doc: &str) -> Order {
    let start = doc
        .find("<!-- layers -->")
        .expect("architecture.md has <!-- layers -->");
    let end = doc
        .find("<!-- /layers -->")
        .expect("architecture.md has <!-- /layers -->");
    let mut layer = BTreeMap::new();
    let mut allowed = BTreeSet::new();
    for line in doc[start..end].lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("allowed:") {
            let (a, b) = rest.split_once("->").expect("allowed: <from> -> <to>");
            allowed.insert((a.trim().to_string(), b.trim().to_string()));
            continue;
        }
        let Some((n, rest)) = line.split_once(char::is_whitespace) else {
            continue;
        };
        let Ok(n) = n.parse::<usize>() else {
            continue;
        };
        // The modules, then (after two spaces or more) what they are.
        let modules = rest.trim_start().split("  ").next().unwrap_or("");
        for m in modules.split_whitespace() {
            assert!(
                layer.insert(m.to_string(), n).is_none(),
                "{m} is placed twice in the layer order"
            );
        }
    }
    Order { layer, allowed }
}

/// One reference from a file of module `from` to module `to`, at `file:line`.
#[derive(Debug, PartialEq, Eq)]
struct Edge {
    from: String,
    to: String,
    at: String,
}

/// The top-level module names a line of code refers to with `crate::`.
fn modules_named(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a::X, b, c::{Y, Z}}`: every name at the group's top level.
            let mut depth = 0;
            let mut word = String::new();
            let mut at_start = true;
            for ch in group.chars() {
                match ch {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => at_start = true,
                    c if at_start && (c.is_ascii_alphanumeric() || c == '_') => word.push(c),
                    c if at_start && !c.is_whitespace() => {
                        if !word.is_empty() {
                            out.push(std::mem::take(&mut word));
                        }
                        at_start = false;
                    }
                    _ => {}
                }
            }
            if !word.is_empty() {
                out.push(word);
            }
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

/// Every cross-module reference in the files given as (path under `src/`, text). Comments
/// are skipped; `crate::<macro>!` counts as the module that defines the macro.
fn edges(files: &[(String, String)]) -> Vec<Edge> {
    let top_of = |rel: &str| -> String {
        let first = rel.split('/').next().unwrap_or(rel);
        first.trim_end_matches(".rs").to_string()
    };
    let mut macro_home = BTreeMap::new();
    for (rel, text) in files {
        for line in text.lines() {
            if let Some(rest) = line.trim().strip_prefix("macro_rules!") {
                let name = rest.trim().trim_end_matches('{').trim().to_string();
                macro_home.insert(name, top_of(rel));
            }
        }
    }
    // The top-level modules, as lib.rs declares them; other root names (`crate::VERSION`)
    // are the crate's own constants, not a layer.
    let modules: BTreeSet<String> = files
        .iter()
        .filter(|(rel, _)| rel == "lib.rs")
        .flat_map(|(_, text)| text.lines())
        .filter_map(|l| {
            l.trim()
                .strip_prefix("pub mod ")
                .or(l.trim().strip_prefix("mod "))
        })
        .map(|m| m.trim_end_matches(';').to_string())
        .collect();
    let mut out = Vec::new();
    for (rel, text) in files {
        let from = top_of(rel);
        if from == "lib" {
            continue;
        }
        // Grouped `use` statements may span lines: join each statement before reading it.
        let mut pending = String::new();
        let mut pending_line = 0;
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if pending.is_empty() {
                pending_line = i + 1;
            }
            pending.push_str(code);
            let open = pending.matches('{').count() > pending.matches('}').count();
            if pending.contains("use crate::{") && open {
                continue;
            }
            for name in modules_named(&pending) {
                let to = macro_home.get(&name).cloned().unwrap_or(name);
                if to != from && modules.contains(&to) {
                    out.push(Edge {
                        from: from.clone(),
                        to,
                        at: format!("{rel}:{pending_line}"),
                    });
                }
            }
            pending.clear();
        }
    }
    out
}

/// The references that break the order: to a module of the same or a higher layer, not
/// allowed by name; and the modules the order does not place.
fn violations(order: &Order, edges: &[Edge]) -> Vec<String> {
    let mut bad = Vec::new();
    let mut unplaced = BTreeSet::new();
    for e in edges {
        let (Some(&a), Some(&b)) = (order.layer.get(&e.from), order.layer.get(&e.to)) else {
            for m in [&e.from, &e.to] {
                if !order.layer.contains_key(m) {
                    unplaced.insert(m.clone());
                }
            }
            continue;
        };
        if b >= a && !order.allowed.contains(&(e.from.clone(), e.to.clone())) {
            bad.push(format!(
                "{}: {} (layer {a}) uses {} (layer {b})",
                e.at, e.from, e.to
            ));
        }
    }
    for m in unplaced {
        bad.push(format!(
            "module {m} is not placed in docs/architecture.md's layer order"
        ));
    }
    bad
}

fn rust_files(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src is readable")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, root, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p.strip_prefix(root).expect("under src").to_string_lossy();
            let text = std::fs::read_to_string(&p).expect("source is UTF-8");
            out.push((rel.replace('\\', "/"), text));
        }
    }
}

#[test]
fn no_module_imports_a_module_above_it() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(manifest.join("../../docs/architecture.md"))
        .expect("docs/architecture.md is readable");
    let order = parse_order(&doc);
    let src = manifest.join("src");
    let mut files = Vec::new();
    rust_files(&src, &src, &mut files);
    let all = edges(&files);
    assert!(
        all.len() > 100,
        "the reader found only {} references: it is broken",
        all.len()
    );
    let bad = violations(&order, &all);
    assert!(
        bad.is_empty(),
        "imports that run up the layer order of docs/architecture.md:\n  {}",
        bad.join("\n  ")
    );
    // Every allowed edge is still used (an exception nobody needs is removed from the page).
    for (a, b) in &order.allowed {
        assert!(
            all.iter().any(|e| &e.from == a && &e.to == b),
            "the allowed edge {a} -> {b} is no longer used: remove it from architecture.md"
        );
    }
}

#[test]
fn the_checker_finds_an_upward_import_and_passes_a_downward_one() {
    let doc = "<!-- layers -->\n0 engine\n1 qdisc\n2 link\n3 sim\nallowed: qdisc -> link\n<!-- /layers -->";
    let order = parse_order(doc);
    let files = vec![
        (
            "link/mod.rs".to_string(),
            "use crate::engine::SimTime;\n// crate::sim in a comment\nuse crate::{\n    qdisc::Qdisc,\n    sim::Event,\n};\n".to_string(),
        ),
        (
            "qdisc/mod.rs".to_string(),
            "use crate::link::LinkView;\nfn f() { crate::kind!(x) }\n".to_string(),
        ),
        (
            "sim/mod.rs".to_string(),
            "macro_rules! kind {\n() => {}\n}\nfn v() { crate::VERSION }\n".to_string(),
        ),
        (
            "lib.rs".to_string(),
            "pub mod engine;\npub mod link;\npub mod qdisc;\npub mod sim;\n".to_string(),
        ),
    ];
    let e = edges(&files);
    let bad = violations(&order, &e);
    assert_eq!(
        bad,
        vec![
            "link/mod.rs:3: link (layer 2) uses sim (layer 3)".to_string(),
            "qdisc/mod.rs:2: qdisc (layer 1) uses sim (layer 3)".to_string(),
        ],
        "edges read: {e:?}"
    );
}
