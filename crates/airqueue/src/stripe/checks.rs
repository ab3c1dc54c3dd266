//! The checks of `[[trunks]]` entries, beside their spec (`spec.rs`): `scenario/validate.rs`
//! calls them with what they need of the rest of the scenario ([`TrunkSurroundings`]:
//! nodes, interfaces, virtual-device members, qdiscs, cell buffers), never the scenario
//! itself, which sits above this layer.

use super::spec::{Scheme, TrunkSpec};
use crate::conf::ScenarioError;
use crate::conf::{check_name, unique};
use crate::engine::SimTime;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// What a trunk's checks read of the rest of the scenario.
pub struct TrunkSurroundings<'a> {
    /// The nodes' names.
    pub nodes: &'a HashSet<&'a str>,
    /// Every interface `<node>.<medium>`, with its medium.
    pub devs: &'a HashMap<String, &'a str>,
    /// Each member interface of a virtual device, with the device.
    pub member_of: &'a HashMap<&'a str, &'a str>,
    /// The devices that have a `[[qdiscs]]` entry.
    pub qdisc_devs: &'a HashSet<&'a str>,
    /// The driver buffer (packets) of node `n`'s interface on medium `m` (`(m, n)`), if
    /// `m` is a cell: a trunk member holds at most one packet.
    pub cell_buffer: &'a dyn Fn(&str, &str) -> Option<u32>,
}

/// Checks `trunks`: two different existing nodes, members that join both, each interface in
/// one trunk at most and in no virtual device, no qdisc of its own on a member, sizes and
/// intervals the schemes can use.
pub fn check_trunks(trunks: &[TrunkSpec], around: &TrunkSurroundings, errs: &mut ScenarioError) {
    let mut in_trunk: HashMap<String, &str> = HashMap::default();
    for t in trunks {
        let label = format!("trunks.{}", t.name);
        check_name(format!("{label}.name"), &t.name, errs);
        let [a, b] = &t.between;
        for n in [a, b] {
            if !around.nodes.contains(n.as_str()) {
                errs.push(
                    format!("{label}.between"),
                    format!("\"{n}\" is not a node; name two nodes of [[nodes]]"),
                );
            }
        }
        if a == b {
            errs.push(
                format!("{label}.between"),
                format!("joins \"{a}\" to itself; a trunk needs two different nodes"),
            );
        }
        if t.control_bytes.0 < 20 || t.control_bytes.0 > 1500 {
            errs.push(
                format!("{label}.control_bytes"),
                "must be an IP packet of 20 to 1500 bytes, e.g. 40",
            );
        }
        if t.ack_every == 0 {
            errs.push(
                format!("{label}.ack_every"),
                "must be at least 1 (a positive ACK after every n data packets)",
            );
        }
        if t.nak_interval.time() == SimTime::ZERO {
            errs.push(
                format!("{label}.nak_interval"),
                "must be above 0, e.g. \"20ms\"",
            );
        }
        if t.scheme == Scheme::Srr && t.quantum.0 > u64::from(u32::MAX) {
            errs.push(format!("{label}.quantum"), "must be below 4 GB, e.g. 3000");
        }
        if t.members.is_empty() {
            errs.push(
                format!("{label}.members"),
                "is empty; list the media to stripe over, e.g. [\"ch1\", \"ch6\", \"ch11\"]",
            );
        }
        if t.limit == 0 {
            errs.push(
                format!("{label}.limit"),
                "must be at least 1 packet (the paper's trunk queue holds 50)",
            );
        }
        if t.timeout_step.time() == SimTime::ZERO || t.min_timeout.time() == SimTime::ZERO {
            errs.push(
                format!("{label}.timeout_step"),
                "timeout_step and min_timeout must be above 0, e.g. \"1ms\"",
            );
        }
        if t.quantum.0 == 0 {
            errs.push(format!("{label}.quantum"), "must be above 0, e.g. 3000");
        }
        let mut seen = HashSet::default();
        for (i, m) in t.members.iter().enumerate() {
            let path = format!("{label}.members[{i}]");
            if !seen.insert(m.as_str()) {
                errs.push(path, format!("\"{m}\" is listed twice"));
                continue;
            }
            for n in [a, b] {
                let dev = format!("{n}.{m}");
                if !around.devs.contains_key(&dev) {
                    errs.push(
                        path.clone(),
                        format!(
                            "\"{m}\" is not a medium that \"{n}\" is on (no interface \"{dev}\"); members are links, segments or cells joining both nodes"
                        ),
                    );
                    continue;
                }
                if let Some(v) = around.member_of.get(dev.as_str()) {
                    errs.push(
                        path.clone(),
                        format!("\"{dev}\" is a member of virtual device \"{v}\"; an interface can belong to a trunk or a virtual device, not both"),
                    );
                }
                // §3.4: each member's output queue holds at most one packet.
                if let Some(buffer) = (around.cell_buffer)(m, n).filter(|&b| b != 1) {
                    errs.push(
                        path.clone(),
                        format!("\"{dev}\" has a driver buffer of {buffer} packets, but a trunk member holds at most one (seed 004 §3.4); set buffer = 1 on cell \"{m}\" (or on its station \"{n}\")"),
                    );
                }
                if around.qdisc_devs.contains(dev.as_str()) {
                    errs.push(
                        path.clone(),
                        format!("\"{dev}\" has a [[qdiscs]] entry, but a trunk member holds only the packet it transmits (seed 004 §3.4); remove the qdisc"),
                    );
                }
                if let Some(other) = in_trunk.insert(dev.clone(), t.name.as_str()) {
                    errs.push(
                        path.clone(),
                        format!("\"{dev}\" is already a member of trunk \"{other}\"; an interface can belong to one trunk"),
                    );
                }
            }
        }
    }
    unique("trunks", trunks.iter().map(|t| t.name.as_str()), errs);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_trunk_member_is_checked_against_what_surrounds_it() {
        let trunks: Vec<TrunkSpec> = serde_json::from_value(json!([
            { "name": "t", "between": ["a", "b"], "members": ["l1", "c1"] },
        ]))
        .unwrap();
        let nodes: HashSet<&str> = ["a", "b"].into_iter().collect();
        let devs: HashMap<String, &str> = ["a.l1", "b.l1", "a.c1", "b.c1"]
            .into_iter()
            .map(|d| (d.to_string(), &d[2..]))
            .collect();
        let member_of: HashMap<&str, &str> = [("b.l1", "b.imq0")].into_iter().collect();
        let qdisc_devs: HashSet<&str> = ["a.l1"].into_iter().collect();
        let cell_buffer = |m: &str, _: &str| (m == "c1").then_some(4);
        let around = TrunkSurroundings {
            nodes: &nodes,
            devs: &devs,
            member_of: &member_of,
            qdisc_devs: &qdisc_devs,
            cell_buffer: &cell_buffer,
        };
        let mut errs = ScenarioError::default();
        check_trunks(&trunks, &around, &mut errs);
        let found: Vec<(&str, &str)> = errs
            .problems
            .iter()
            .map(|p| (p.path.as_str(), p.message.split(';').next().unwrap()))
            .collect();
        assert_eq!(
            found,
            [
                ("trunks.t.members[0]", "\"a.l1\" has a [[qdiscs]] entry, but a trunk member holds only the packet it transmits (seed 004 §3.4)"),
                ("trunks.t.members[0]", "\"b.l1\" is a member of virtual device \"b.imq0\""),
                ("trunks.t.members[1]", "\"a.c1\" has a driver buffer of 4 packets, but a trunk member holds at most one (seed 004 §3.4)"),
                ("trunks.t.members[1]", "\"b.c1\" has a driver buffer of 4 packets, but a trunk member holds at most one (seed 004 §3.4)"),
            ]
        );
    }
}
