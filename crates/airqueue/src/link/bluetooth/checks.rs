//! The checks of `[[piconets]]` and `[[bridges]]`: names, master and slaves, polling, SAR
//! and packet types, buffers, flow control, the channel, and each bridge's piconets, M_b
//! and buffer. They run on the piconets' specs ([`super::spec`]) with what they need of the
//! rest of the scenario passed in (node names, the names the piconets share a namespace
//! with, the shared spectrum), so the medium's folder holds its own rules and the format
//! (`crate::scenario::validate`) only calls them. Every problem is collected; nothing here
//! panics on user input.

use super::spec::{BridgeSpec, PiconetSpec};
use super::{PacketType, Polling, Sar, TypeSet};
use crate::conf::{check_name, unique, ScenarioError, MIN_MTU};
use crate::link::air::spec::SpectrumSpec;
use std::collections::{HashMap, HashSet};

/// Checks `piconets`: a unique name among all media, a known master and 1–7 distinct
/// known slaves, a polling scheme, SAR and packet types that exist, buffers that can hold
/// what they must, a channel the baseband models. Everything the build converts is
/// checked here ([`super::build`] builds the medium only from a valid entry).
///
/// `taken`: the names of the links, segments and cells (one namespace with the
/// piconets); `nodes`: the scenario's nodes; the bridges are checked too
/// ([`check_bridges`]), against `spectrum`.
pub fn check_piconets(
    piconets: &[PiconetSpec],
    bridges: &[BridgeSpec],
    taken: &HashSet<&str, impl std::hash::BuildHasher>,
    spectrum: Option<&SpectrumSpec>,
    nodes: &HashSet<&str, impl std::hash::BuildHasher>,
    errs: &mut ScenarioError,
) {
    for p in piconets {
        let label = format!("piconets.{}", p.name);
        check_name(format!("{label}.name"), &p.name, errs);
        if taken.contains(p.name.as_str()) {
            errs.push(
                format!("{label}.name"),
                format!("\"{}\" is also a link's, segment's or cell's name; they share one namespace (interfaces are <node>.<name>)", p.name),
            );
        }
        if !nodes.contains(p.master.as_str()) {
            errs.push(
                format!("{label}.master"),
                format!("unknown node \"{}\"; add it to [[nodes]]", p.master),
            );
        }
        if p.slaves.is_empty() || p.slaves.len() > 7 {
            errs.push(
                format!("{label}.slaves"),
                format!(
                    "has {} slaves; a piconet has 1 to 7 active slaves (3-bit LT_ADDR)",
                    p.slaves.len()
                ),
            );
        }
        let mut seen = HashSet::new();
        for sl in &p.slaves {
            if !nodes.contains(sl.as_str()) {
                errs.push(
                    format!("{label}.slaves"),
                    format!("unknown node \"{sl}\"; add it to [[nodes]]"),
                );
            }
            if *sl == p.master {
                errs.push(
                    format!("{label}.slaves"),
                    format!("\"{sl}\" is the master; a node is master or slave"),
                );
            }
            if !seen.insert(sl.as_str()) {
                errs.push(
                    format!("{label}.slaves"),
                    format!("\"{sl}\" is listed twice"),
                );
            }
        }
        if let Err(e) = Polling::parse(&p.polling, p.limit, p.max_priority) {
            let key = if e.contains("`limit`") {
                "limit"
            } else if e.contains("`max_priority`") {
                "max_priority"
            } else {
                "polling"
            };
            errs.push(format!("{label}.{key}"), e);
        }
        let sar = Sar::parse(&p.sar);
        if sar.is_none() {
            errs.push(
                format!("{label}.sar"),
                format!(
                    "\"{}\" is not a segmentation policy; use \"osu\" or \"best-fit\"",
                    p.sar
                ),
            );
        }
        let mut types = Vec::new();
        for t in &p.packet_types {
            match PacketType::parse(t) {
                Some(t) => types.push(t),
                None => errs.push(
                    format!("{label}.packet_types"),
                    format!(
                        "\"{t}\" is not an ACL packet type; use DM1, DH1, DM3, DH3, DM5 or DH5"
                    ),
                ),
            }
        }
        if p.packet_types.is_empty() {
            errs.push(
                format!("{label}.packet_types"),
                "must name at least one type, e.g. [\"DH1\", \"DH3\", \"DH5\"]",
            );
        }
        if p.mtu < MIN_MTU || p.mtu > 1676 {
            errs.push(
                format!("{label}.mtu"),
                format!("{} is outside {MIN_MTU}…1676 bytes (BNEP's 1691-byte L2CAP MTU less its 15-byte header)", p.mtu),
            );
        }
        if p.slave_buffer == 0 {
            errs.push(
                format!("{label}.slave_buffer"),
                "must be at least 1 baseband packet (the thesis's L is 20)",
            );
        }
        if p.master_buffer == 0 {
            errs.push(
                format!("{label}.master_buffer"),
                "must be at least 1 IP packet",
            );
        }
        let set = TypeSet::of(&types);
        if let (Some(sar), false) = (sar, set.is_empty()) {
            let segs = sar.count(p.mtu + p.overhead, set);
            if p.flow_control.is_none() && segs > p.slave_buffer {
                errs.push(
                    format!("{label}.slave_buffer"),
                    format!("{} baseband packets cannot hold one {}-byte IP packet ({segs} packets); raise it to at least {segs}", p.slave_buffer, p.mtu),
                );
            }
        }
        if let Some(f) = &p.flow_control {
            if f.token_rate.bps() == 0 {
                errs.push(
                    format!("{label}.flow_control.token_rate"),
                    "must be positive, e.g. \"250kbit\"",
                );
            }
            if f.buffer == 0 {
                errs.push(
                    format!("{label}.flow_control.buffer"),
                    "must be at least 1 baseband packet (the thesis's S is 5 to 25)",
                );
            }
            let largest = set.largest().map_or(0, |t| t.payload());
            if f.token_depth.0 < u64::from(largest) {
                errs.push(
                    format!("{label}.flow_control.token_depth"),
                    format!("{} B cannot hold the tokens of one {largest}-byte baseband packet; use at least {largest} B (the thesis's 3KB)", f.token_depth.0),
                );
            }
        }
        match p.channel_state.as_deref() {
            None | Some("per-bit") => {}
            Some("per-packet")
                if p.channel
                    .as_ref()
                    .is_some_and(|c| c.gilbert_elliott.is_some()) => {}
            Some("per-packet") => errs.push(
                format!("{label}.channel_state"),
                "is for a `gilbert_elliott` channel; add one or remove channel_state",
            ),
            Some(other) => errs.push(
                format!("{label}.channel_state"),
                format!(
                    "\"{other}\" is not a channel state mode; use \"per-bit\" or \"per-packet\""
                ),
            ),
        }
        if let Some(c) = &p.channel {
            let path = format!("{label}.channel");
            c.check(&path, errs);
            for (key, set) in [
                ("per", c.per.is_some()),
                ("gemodel", c.gemodel.is_some()),
                ("radio", c.radio.is_some()),
            ] {
                if set {
                    errs.push(
                        format!("{path}.{key}"),
                        "a piconet's links take `ber` or `gilbert_elliott`; remove it",
                    );
                }
            }
        }
    }
    let all = piconets.iter().map(|p| p.name.as_str());
    unique("piconets", all, errs);
    // A node is a member of one piconet, except a bridge's node (a slave in the two it
    // joins).
    let mut member: HashMap<&str, &str> = HashMap::new();
    for p in piconets {
        for n in std::iter::once(&p.master).chain(&p.slaves) {
            let bridged = bridges
                .iter()
                .any(|b| b.node == *n && b.piconets.contains(&p.name));
            if let Some(other) = member.insert(n.as_str(), p.name.as_str()) {
                if other != p.name && !bridged {
                    errs.push(
                        format!("piconets.{}.slaves", p.name),
                        format!("\"{n}\" is also in piconet \"{other}\"; a node in two piconets is a scatternet bridge: declare it in [[bridges]] (node = \"{n}\", piconets = [\"{other}\", \"{}\"])", p.name),
                    );
                }
            }
        }
    }
    check_bridges(piconets, bridges, spectrum, errs);
}

/// Checks `bridges` (scatternets, thesis §2.3.2, §3.1.1): a bridge joins two distinct
/// piconets in which its node is a slave; a piconet has at most one bridge and a node
/// bridges once; the piconets poll E-limited (1-limited, exhaustive) and are on no shared
/// spectrum; M_b and the buffer are at least 1 (the buffer holds an MTU-sized IP packet),
/// and an exhaustive piconet needs them set; `clock_offset` is below 2T (1.25 ms).
fn check_bridges(
    piconets: &[PiconetSpec],
    bridges: &[BridgeSpec],
    spectrum: Option<&SpectrumSpec>,
    errs: &mut ScenarioError,
) {
    let mut bridged: HashMap<&str, &str> = HashMap::new();
    let mut nodes_seen = HashSet::new();
    for b in bridges {
        let label = format!("bridges.{}", b.node);
        if !nodes_seen.insert(b.node.as_str()) {
            errs.push(
                format!("{label}.node"),
                "is listed twice; a node bridges one pair of piconets",
            );
        }
        if b.piconets.len() != 2 || b.piconets[0] == b.piconets[1] {
            errs.push(
                format!("{label}.piconets"),
                "must name two different piconets, e.g. [\"p1\", \"p2\"] (the thesis's slave/slave bridge joins two)",
            );
        }
        if b.limit == Some(0) {
            errs.push(
                format!("{label}.limit"),
                "must be at least 1 frame (M_b; default n·M)",
            );
        }
        if b.buffer == Some(0) {
            errs.push(
                format!("{label}.buffer"),
                "must be at least 1 baseband packet (default M_b)",
            );
        }
        if let Some(r) = b
            .residence
            .as_deref()
            .filter(|r| !matches!(*r, "cycle" | "visit"))
        {
            errs.push(
                format!("{label}.residence"),
                format!(
                    "\"{r}\" is not a residence; use \"cycle\" (one piconet cycle from its \
                     arrival, the default) or \"visit\" (until its own visit ends)"
                ),
            );
        }
        if let Some(c) = b.clock_offset {
            if c.0 >= super::polling::IDLE_FRAME {
                errs.push(
                    format!("{label}.clock_offset"),
                    "must be below 1.25ms (two slots, the master clocks' period of even slots)",
                );
            }
        }
        let mut named = HashSet::new();
        for name in b.piconets.iter().filter(|n| named.insert(n.as_str())) {
            let Some(p) = piconets.iter().find(|p| p.name == *name) else {
                errs.push(
                    format!("{label}.piconets"),
                    format!("\"{name}\" is no piconet; name one of [[piconets]]"),
                );
                continue;
            };
            let path = format!("piconets.{name}");
            if !p.slaves.contains(&b.node) {
                errs.push(
                    format!("{path}.slaves"),
                    format!(
                        "must list the bridge \"{}\" (a slave/slave bridge is a slave in both piconets)",
                        b.node
                    ),
                );
            }
            if let Some(other) = bridged.insert(name.as_str(), b.node.as_str()) {
                errs.push(
                    format!("{label}.piconets"),
                    format!(
                        "piconet \"{name}\" already has bridge \"{other}\"; one bridge per piconet"
                    ),
                );
            }
            if p.polling == "lwrr" {
                errs.push(
                    format!("{path}.polling"),
                    "a piconet with a walk-in bridge polls \"e-limited\", \"1-limited\" or \"exhaustive\" (thesis §3.1.1); lwrr is not supported with bridges",
                );
            }
            if p.coexistence.is_some() || spectrum.is_some_and(|sp| sp.members.contains(name)) {
                errs.push(
                    format!("{path}.coexistence"),
                    "a piconet with a bridge cannot be on the shared spectrum yet; remove it from spectrum.members",
                );
            }
            let types: Vec<PacketType> = p
                .packet_types
                .iter()
                .filter_map(|t| PacketType::parse(t))
                .collect();
            let set = TypeSet::of(&types);
            let segs = match (Sar::parse(&p.sar), set.is_empty()) {
                (Some(sar), false) => sar.count(p.mtu + p.overhead, set),
                _ => 1,
            };
            match b.buffer_in(p, segs) {
                None => errs.push(
                    format!("{label}.buffer"),
                    format!("piconet \"{name}\" polls exhaustively, so M_b = n·M is unbounded; set `limit` and `buffer`"),
                ),
                // A zero `limit` is reported above; its default buffer would be too.
                Some(buf) if b.limit != Some(0) && buf > 0 && segs > buf => {
                    errs.push(
                        format!("{label}.buffer"),
                        format!("{buf} baseband packets in piconet \"{name}\" cannot hold one {}-byte IP packet ({segs} packets); set `buffer` to at least {segs}", p.mtu),
                    );
                }
                Some(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_bridge_joins_two_different_piconets() {
        let p: PiconetSpec =
            serde_json::from_value(json!({ "name": "p1", "master": "m", "slaves": ["s", "b"] }))
                .unwrap();
        let b: BridgeSpec =
            serde_json::from_value(json!({ "node": "b", "piconets": ["p1", "p1"] })).unwrap();
        let nodes: HashSet<&str> = ["m", "s", "b"].into();
        let mut errs = ScenarioError::default();
        check_piconets(&[p], &[b], &HashSet::new(), None, &nodes, &mut errs);
        let paths: Vec<&str> = errs.problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["bridges.b.piconets"]);
    }
}
