//! The checks of `[[links]]` entries, beside their spec (`spec.rs`): `scenario/validate.rs`
//! calls them with the links and how to check a node reference, never the whole scenario.

use super::spec::LinkSpec;
use crate::conf::ScenarioError;
use crate::conf::{check_name, check_wired_mtu, unique};
use crate::link::netem::checks::check_impairment;

/// Checks `links`: a name fit for interface names and unique among links, two different
/// known nodes (`node_ref` reports an unknown one at the path it is given), a sane MTU,
/// rates above zero and netem's rules on each direction's impairment.
pub fn check_links(
    links: &[LinkSpec],
    node_ref: &dyn Fn(String, &str, &mut ScenarioError),
    errs: &mut ScenarioError,
) {
    for l in links {
        check_name(format!("links.{}.name", l.name), &l.name, errs);
        let [a, b] = &l.between;
        node_ref(format!("links.{}.between", l.name), a, errs);
        node_ref(format!("links.{}.between", l.name), b, errs);
        if a == b {
            errs.push(
                format!("links.{}.between", l.name),
                format!("joins \"{a}\" to itself; a link needs two different nodes"),
            );
        }
        check_wired_mtu(format!("links.{}.mtu", l.name), l.mtu, errs);
        if let Some(imp) = &l.impairment {
            check_impairment(imp, &format!("links.{}.impairment", l.name), errs);
        }
        if let Some(r) = &l.reverse {
            let path = format!("links.{}.reverse", l.name);
            if r.rate.is_some_and(|r| r.bps() == 0) {
                errs.push(format!("{path}.rate"), "must be above 0, e.g. \"1Mbit\"");
            }
            if let Some(imp) = &r.impairment {
                check_impairment(imp, &format!("{path}.impairment"), errs);
            }
        }
    }
    unique("links", links.iter().map(|l| l.name.as_str()), errs);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(errs: &ScenarioError) -> Vec<&str> {
        errs.problems.iter().map(|p| p.path.as_str()).collect()
    }

    #[test]
    fn a_link_is_checked_without_a_scenario() {
        let links: Vec<LinkSpec> = serde_json::from_value(json!([
            { "name": "ab", "between": ["a", "a"], "rate": "1Mbit", "mtu": 40,
              "reverse": { "impairment": { "gap": 0 } } },
            { "name": "ab", "between": ["a", "z"], "rate": "1Mbit" },
        ]))
        .unwrap();
        let mut errs = ScenarioError::default();
        let unknown = |path: String, name: &str, errs: &mut ScenarioError| {
            if name == "z" {
                errs.push(path, "no node is named \"z\"");
            }
        };
        check_links(&links, &unknown, &mut errs);
        assert_eq!(
            paths(&errs),
            [
                "links.ab.between",
                "links.ab.mtu",
                "links.ab.reverse.impairment.gap",
                "links.ab.reverse.impairment.gap",
                "links.ab.between",
                "links.ab.name",
            ]
        );
        assert_eq!(
            errs.problems[1].message,
            "40 is outside 68…65535 bytes; 1500 is Ethernet's"
        );
    }
}
