//! The checks of `[[segments]]` entries, beside their spec (`spec.rs`):
//! `scenario/validate.rs` calls them with the node names and the links' names (links and
//! segments share one namespace), never the whole scenario.

use super::spec::SegmentSpec;
use crate::conf::ScenarioError;
use crate::conf::{check_name, check_wired_mtu, unique};
use std::collections::HashSet;

/// Checks `segments`: names unique among links and segments, known nodes, each once, at
/// least two, a sane MTU.
pub fn check_segments(
    segments: &[SegmentSpec],
    links: &HashSet<&str, impl std::hash::BuildHasher>,
    nodes: &HashSet<&str, impl std::hash::BuildHasher>,
    errs: &mut ScenarioError,
) {
    for g in segments {
        let label = format!("segments.{}", g.name);
        check_name(format!("{label}.name"), &g.name, errs);
        if links.contains(g.name.as_str()) {
            errs.push(
                format!("{label}.name"),
                format!("\"{}\" is also a link's name; links and segments share one namespace (interfaces are <node>.<name>)", g.name),
            );
        }
        if g.nodes.len() < 2 {
            errs.push(
                format!("{label}.nodes"),
                "a segment joins at least two nodes; list them, e.g. nodes = [\"a\", \"b\", \"c\"]",
            );
        }
        let mut seen = HashSet::new();
        for n in &g.nodes {
            if !nodes.contains(n.as_str()) {
                errs.push(
                    format!("{label}.nodes"),
                    format!("\"{n}\" is not a node; add it to [[nodes]] or fix the name"),
                );
            }
            if !seen.insert(n.as_str()) {
                errs.push(
                    format!("{label}.nodes"),
                    format!("\"{n}\" is listed twice; a node has one interface on a segment"),
                );
            }
        }
        check_wired_mtu(format!("{label}.mtu"), g.mtu, errs);
    }
    unique("segments", segments.iter().map(|g| g.name.as_str()), errs);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_segment_is_checked_against_the_links_names_and_the_nodes() {
        let segments: Vec<SegmentSpec> = serde_json::from_value(json!([
            { "name": "ab", "nodes": ["a", "a", "q"], "rate": "10Mbit" },
        ]))
        .unwrap();
        let links = HashSet::from(["ab"]);
        let nodes = HashSet::from(["a", "b"]);
        let mut errs = ScenarioError::default();
        check_segments(&segments, &links, &nodes, &mut errs);
        let messages: Vec<&str> = errs.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "\"ab\" is also a link's name; links and segments share one namespace (interfaces are <node>.<name>)",
                "\"a\" is listed twice; a node has one interface on a segment",
                "\"q\" is not a node; add it to [[nodes]] or fix the name",
            ]
        );
    }
}
