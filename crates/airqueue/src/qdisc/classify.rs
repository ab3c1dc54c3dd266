//! Packet classification: which class of a classful qdisc (or which queue of a fair queue)
//! a packet belongs to.
//!
//! Linux attaches filters (`tc filter … u32 match ip dst …`, `flow`, `fw`) to a classful
//! qdisc; here a class carries a `match` table instead, the common cases of those filters
//! written by name: the flow, the source or destination host, DSCP, `skb->priority`, the
//! protocol, the source and destination ports (`u32 match ip sport|dport`, single ports,
//! ranges and lists), the egress interface, and raw `u32` selectors (value and mask on a
//! 5-tuple field, as `tc filter … u32 match ip <field> <value> <mask>`). Rules are tried in
//! order and the first match wins, as with filters of increasing `prio`; packets no rule
//! takes go to the qdisc's `default`.
//!
//! Fair queues that hash flows (sfq, fq_codel) use [`flow_hash`] over the 5-tuple, as
//! Linux's flow dissector + jhash do; the perturbation makes the hash change with `perturb`.

use crate::conf::ScenarioError;
use crate::packet::{FiveTuple, Packet, Protocol};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use std::hash::Hasher;

/// One name or a list of names, as written in a `match` table (`flow = "voice0"` or
/// `flow = ["voice0", "voice1"]`). A trailing `*` matches every name with that prefix
/// (`flow = "voice*"` takes the copies of a `count = N` entry).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Names(pub Vec<String>);

/// The schema says what `deserialize` accepts: one name or a list (a derived schema would
/// only allow the list, rejecting `flow = "voice0"`).
impl JsonSchema for Names {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Names".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "One name or a list of names (`\"voice0\"`, `[\"voice0\", \"voice1\"]`); a trailing `*` matches a prefix (`\"voice*\"`).",
            "anyOf": [
                {"type": "string"},
                {"type": "array", "items": {"type": "string"}}
            ]
        })
    }
}

impl<'de> Deserialize<'de> for Names {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum OneOrMany {
            One(String),
            Many(Vec<String>),
        }
        match OneOrMany::deserialize(d) {
            Ok(OneOrMany::One(s)) => Ok(Names(vec![s])),
            Ok(OneOrMany::Many(v)) => Ok(Names(v)),
            Err(_) => Err(serde::de::Error::custom(
                "must be a name or a list of names, e.g. \"voice0\" or [\"voice0\", \"voice1\"]",
            )),
        }
    }
}

/// Which packets a class takes (a `tc filter`, by name). Every key given must match (AND);
/// within a key, any listed value matches (OR). An empty table matches every packet.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MatchSpec {
    /// Flow names (after `count` expansion; `"name*"` matches a prefix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<Names>,
    /// Source host names (the IP source address, as `u32 match ip src`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<Names>,
    /// Destination host names (the IP destination address, as `u32 match ip dst`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<Names>,
    /// DSCP code points (0–63), as `u32 match ip dsfield`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dscp: Option<Vec<u8>>,
    /// `skb->priority` values (SO_PRIORITY).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Vec<u32>>,
    /// IP protocol: "tcp", "udp" or "icmp".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<MatchProtocol>,
    /// Source ports: a port, a range "5000-5010", or a list of both (`u32 match ip sport`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sport: Option<Ports>,
    /// Destination ports, as `sport` (`u32 match ip dport`), e.g. 5060 or ["80", "443"].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dport: Option<Ports>,
    /// Raw selectors, all of which must hold (one `tc filter … u32` with several `match`
    /// clauses): `{ field = "src", value = 167772160, mask = 4294967040 }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub u32: Option<Vec<U32Selector>>,
    /// Egress interfaces `<node>.<link>` (what a class on a virtual device matches to
    /// separate the traffic of its member interfaces, as in seed 000's IMQ trees).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dev: Option<Names>,
}

/// IP protocols a match can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchProtocol {
    Tcp,
    Udp,
    Icmp,
}

/// Inclusive port ranges: `80`, `"5000-5010"`, or a list of both.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Ports(pub Vec<(u16, u16)>);

impl JsonSchema for Ports {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Ports".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A port (`5060`), a range (`\"5000-5010\"`), or a list of both.",
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": 65535},
                {"type": "string"},
                {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}
            ]
        })
    }
}

const PORTS_FIX: &str =
    "write a port (5060), a range (\"5000-5010\") or a list of them ([80, \"8000-8080\"])";

fn port_range(v: &serde_json::Value) -> Result<(u16, u16), String> {
    let port = |x: &str| x.trim().parse::<u16>().ok();
    match v {
        serde_json::Value::Number(n) => n
            .as_u64()
            .and_then(|p| u16::try_from(p).ok())
            .map(|p| (p, p))
            .ok_or_else(|| format!("{n} is not a port (0–65535); {PORTS_FIX}")),
        serde_json::Value::String(s) => {
            let (lo, hi) = s.split_once('-').unwrap_or((s, s));
            match (port(lo), port(hi)) {
                (Some(lo), Some(hi)) if lo <= hi => Ok((lo, hi)),
                _ => Err(format!("\"{s}\" is not a port or range; {PORTS_FIX}")),
            }
        }
        other => Err(format!("{other} is not a port; {PORTS_FIX}")),
    }
}

impl<'de> Deserialize<'de> for Ports {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        let items = match &v {
            serde_json::Value::Array(a) => a.iter().collect(),
            one => vec![one],
        };
        items
            .into_iter()
            .map(port_range)
            .collect::<Result<Vec<_>, _>>()
            .map(Ports)
            .map_err(serde::de::Error::custom)
    }
}

/// A 5-tuple field a `u32` selector reads (`u32 match ip <field>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum U32Field {
    /// IPv4 source address (32 bits).
    Src,
    /// IPv4 destination address (32 bits).
    Dst,
    /// Source port (16 bits).
    Sport,
    /// Destination port (16 bits).
    Dport,
    /// IP protocol number (8 bits: 6 TCP, 17 UDP, 1 ICMP).
    Protocol,
    /// The TOS byte (8 bits: DSCP << 2 | ECN).
    Tos,
}

/// `u32 match ip <field> <value> <mask>`: holds when `field & mask == value & mask`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct U32Selector {
    pub field: U32Field,
    pub value: u32,
    /// Default: all ones (the whole field).
    #[serde(default = "all_ones")]
    pub mask: u32,
}

fn all_ones() -> u32 {
    u32::MAX
}

impl U32Selector {
    #[inline]
    fn holds(&self, p: &Packet) -> bool {
        let t = &p.tuple;
        let v = match self.field {
            U32Field::Src => t.src_addr,
            U32Field::Dst => t.dst_addr,
            U32Field::Sport => u32::from(t.src_port),
            U32Field::Dport => u32::from(t.dst_port),
            U32Field::Protocol => match t.protocol {
                Protocol::Tcp => 6,
                Protocol::Udp => 17,
                Protocol::Icmp => 1,
            },
            U32Field::Tos => (u32::from(p.dscp) << 2) | u32::from(p.ecn & 0b11),
        };
        v & self.mask == self.value & self.mask
    }
}

/// The names a scenario defines, for resolving `match` tables (built once per run).
#[derive(Clone, Debug, Default)]
pub struct NameTable {
    /// Flow names in flow order (index = `FlowId`).
    pub flows: Vec<String>,
    /// Node names with their IPv4 addresses.
    pub nodes: Vec<(String, u32)>,
    /// Interface names `<node>.<link>` in interface order (index = interface id).
    pub ifaces: Vec<String>,
}

fn matches_name(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// Resolves each pattern against `known`, recording unknown names under `path`.
fn resolve<T: Copy + Ord>(
    pats: &Names,
    known: impl Iterator<Item = (String, T)> + Clone,
    what: &str,
    path: &str,
    errs: &mut ScenarioError,
) -> Vec<T> {
    let mut out = Vec::new();
    for p in &pats.0 {
        let hits: Vec<T> = known
            .clone()
            .filter(|(n, _)| matches_name(p, n))
            .map(|(_, v)| v)
            .collect();
        if hits.is_empty() {
            let some: Vec<String> = known.clone().take(6).map(|(n, _)| n).collect();
            errs.push(
                path,
                format!(
                    "\"{p}\" names no {what}; known {what}s include {}",
                    some.join(", ")
                ),
            );
        }
        out.extend(hits);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A resolved match: the sets of values a packet must hit, per key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Match {
    flows: Option<Vec<u32>>,
    src: Option<Vec<u32>>,
    dst: Option<Vec<u32>>,
    dscp: Option<Vec<u8>>,
    priority: Option<Vec<u32>>,
    protocol: Option<Protocol>,
    sport: Option<Vec<(u16, u16)>>,
    dport: Option<Vec<(u16, u16)>>,
    u32: Vec<U32Selector>,
    dev: Option<Vec<u32>>,
}

fn in_ports(set: &Option<Vec<(u16, u16)>>, port: u16) -> bool {
    set.as_ref()
        .is_none_or(|s| s.iter().any(|&(lo, hi)| (lo..=hi).contains(&port)))
}

fn hit<T: PartialEq>(set: &Option<Vec<T>>, v: T) -> bool {
    set.as_ref().is_none_or(|s| s.contains(&v))
}

impl Match {
    /// A match on flow indices (trees built in code: tests, benches).
    pub fn flows(ids: &[u32]) -> Match {
        Match {
            flows: Some(ids.to_vec()),
            ..Match::default()
        }
    }

    /// Resolves a match table against the scenario's names; unknown names are problems at
    /// `path.<key>`.
    pub fn resolve(
        spec: &MatchSpec,
        names: &NameTable,
        path: &str,
        errs: &mut ScenarioError,
    ) -> Match {
        let flows = || {
            names
                .flows
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i as u32))
        };
        let nodes = || names.nodes.iter().map(|(n, a)| (n.clone(), *a));
        let ifaces = || {
            names
                .ifaces
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i as u32))
        };
        for (i, d) in spec.dscp.iter().flatten().enumerate() {
            if *d > 63 {
                errs.push(
                    format!("{path}.dscp[{i}]"),
                    format!("{d} is not a DSCP (0–63)"),
                );
            }
        }
        Match {
            flows: spec
                .flow
                .as_ref()
                .map(|p| resolve(p, flows(), "flow", &format!("{path}.flow"), errs)),
            src: spec
                .src
                .as_ref()
                .map(|p| resolve(p, nodes(), "node", &format!("{path}.src"), errs)),
            dst: spec
                .dst
                .as_ref()
                .map(|p| resolve(p, nodes(), "node", &format!("{path}.dst"), errs)),
            dscp: spec.dscp.clone(),
            priority: spec.priority.clone(),
            protocol: spec.protocol.map(|p| match p {
                MatchProtocol::Tcp => Protocol::Tcp,
                MatchProtocol::Udp => Protocol::Udp,
                MatchProtocol::Icmp => Protocol::Icmp,
            }),
            sport: spec.sport.as_ref().map(|p| p.0.clone()),
            dport: spec.dport.as_ref().map(|p| p.0.clone()),
            u32: spec.u32.clone().unwrap_or_default(),
            dev: spec
                .dev
                .as_ref()
                .map(|p| resolve(p, ifaces(), "interface", &format!("{path}.dev"), errs)),
        }
    }

    /// Whether `p` satisfies every key of the match.
    #[inline]
    pub fn matches(&self, p: &Packet) -> bool {
        hit(&self.flows, p.flow.0)
            && hit(&self.src, p.tuple.src_addr)
            && hit(&self.dst, p.tuple.dst_addr)
            && hit(&self.dscp, p.dscp)
            && hit(&self.priority, p.priority)
            && self.protocol.is_none_or(|x| x == p.tuple.protocol)
            && in_ports(&self.sport, p.tuple.src_port)
            && in_ports(&self.dport, p.tuple.dst_port)
            && self.u32.iter().all(|s| s.holds(p))
            && hit(&self.dev, p.out_iface)
    }
}

/// Ordered rules `match → class`; the first match wins, else the default class.
#[derive(Clone, Debug, Default)]
pub struct Classifier {
    rules: Vec<(Match, u32)>,
    default: Option<u32>,
}

impl Classifier {
    pub fn new(rules: Vec<(Match, u32)>, default: Option<u32>) -> Self {
        Classifier { rules, default }
    }

    /// The class of `p`, or `None` when no rule takes it and there is no default.
    #[inline]
    pub fn classify(&self, p: &Packet) -> Option<u32> {
        self.rules
            .iter()
            .find(|(m, _)| m.matches(p))
            .map(|(_, c)| *c)
            .or(self.default)
    }
}

/// Hash of a packet's 5-tuple with a perturbation key, for hashing flows into buckets
/// (Linux: `skb_get_hash_perturb` = jhash over the flow-dissector keys). Deterministic
/// across runs and machines; a new `perturbation` gives an independent mapping.
#[inline]
pub fn flow_hash(t: &FiveTuple, perturbation: u64) -> u32 {
    let mut h = rustc_hash::FxHasher::default();
    h.write_u64(perturbation);
    h.write_u32(t.src_addr);
    h.write_u32(t.dst_addr);
    h.write_u32(((t.src_port as u32) << 16) | t.dst_port as u32);
    h.write_u8(t.protocol as u8);
    // FxHash alone maps consecutive ports almost to a permutation (too even to behave like
    // jhash, whose collisions SFQ's behaviour depends on); MurmurHash3's 64-bit finalizer
    // gives it full avalanche.
    let mut x = h.finish();
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^= x >> 33;
    x as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimTime;
    use crate::packet::FlowId;

    fn names() -> NameTable {
        NameTable {
            flows: vec!["voice0".into(), "voice1".into(), "bulk".into()],
            nodes: vec![("ap".into(), 1), ("sta0".into(), 2), ("sta1".into(), 3)],
            ifaces: vec!["ap.wlan".into(), "ap.bt".into()],
        }
    }

    fn pkt(flow: u32, dst: u32, dscp: u8, iface: u32) -> Packet {
        let mut p = Packet::udp(FlowId(flow), 200, SimTime::ZERO);
        p.tuple.dst_addr = dst;
        p.dscp = dscp;
        p.out_iface = iface;
        p
    }

    fn parse(v: serde_json::Value) -> MatchSpec {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn keys_are_anded_and_values_ored() {
        let mut errs = ScenarioError::default();
        let m = Match::resolve(
            &parse(serde_json::json!({"flow": "voice*", "dst": ["sta0", "sta1"], "dscp": [46]})),
            &names(),
            "q",
            &mut errs,
        );
        assert!(errs.is_empty(), "{errs}");
        assert!(m.matches(&pkt(0, 2, 46, 0)));
        assert!(m.matches(&pkt(1, 3, 46, 0)));
        assert!(!m.matches(&pkt(2, 2, 46, 0)), "bulk is not voice*");
        assert!(!m.matches(&pkt(0, 1, 46, 0)), "dst ap is not listed");
        assert!(!m.matches(&pkt(0, 2, 0, 0)), "dscp 0 is not 46");
    }

    /// Reference: tc-u32(8) semantics: `match ip sport 1000 0xfff0` takes ports
    /// 1000–1007…(mask) — here `field & mask == value & mask`; `match ip src 10.0.0.0/24`
    /// is a mask of 0xffffff00; port ranges are inclusive at both ends.
    #[test]
    fn port_ranges_and_u32_selectors_compare_as_tc_u32() {
        let mut errs = ScenarioError::default();
        let m = Match::resolve(
            &parse(serde_json::json!({
                "sport": ["1000-1010", 2000],
                "u32": [{"field": "dst", "value": 0x0a00_0000u32, "mask": 0xffff_ff00u32}]
            })),
            &names(),
            "q",
            &mut errs,
        );
        assert!(errs.is_empty(), "{errs}");
        let with = |sport: u16, dst: u32| {
            let mut p = pkt(0, dst, 0, 0);
            p.tuple.src_port = sport;
            m.matches(&p)
        };
        assert!(with(1000, 0x0a00_0001) && with(1010, 0x0a00_00ff) && with(2000, 0x0a00_0042));
        assert!(!with(999, 0x0a00_0001) && !with(1011, 0x0a00_0001) && !with(2001, 0x0a00_0001));
        assert!(!with(1000, 0x0a00_0101), "outside 10.0.0.0/24");
        let tos = U32Selector {
            field: U32Field::Tos,
            value: 46 << 2,
            mask: 0xfc,
        };
        let mut p = pkt(0, 1, 46, 0);
        p.ecn = 2;
        assert!(
            tos.holds(&p),
            "the DSCP bits of the TOS byte, ECN masked off"
        );
    }

    #[test]
    fn an_empty_match_takes_everything() {
        let mut errs = ScenarioError::default();
        let m = Match::resolve(&MatchSpec::default(), &names(), "q", &mut errs);
        assert!(m.matches(&pkt(2, 9, 7, 1)));
    }

    #[test]
    fn unknown_names_are_reported_at_their_key() {
        let mut errs = ScenarioError::default();
        Match::resolve(
            &parse(serde_json::json!({"flow": "video", "dev": "ap.eth"})),
            &names(),
            "qdiscs.x.classes.a.match",
            &mut errs,
        );
        let paths: Vec<_> = errs.problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "qdiscs.x.classes.a.match.flow",
                "qdiscs.x.classes.a.match.dev"
            ]
        );
    }

    #[test]
    fn first_matching_rule_wins_then_default() {
        let mut errs = ScenarioError::default();
        let n = names();
        let mut by_dev =
            |d: &str| Match::resolve(&parse(serde_json::json!({ "dev": d })), &n, "q", &mut errs);
        let c = Classifier::new(vec![(by_dev("ap.wlan"), 0), (by_dev("ap.*"), 1)], Some(7));
        assert_eq!(c.classify(&pkt(0, 2, 0, 0)), Some(0));
        assert_eq!(c.classify(&pkt(0, 2, 0, 1)), Some(1));
        assert_eq!(c.classify(&pkt(0, 2, 0, 5)), Some(7));
        assert_eq!(
            Classifier::new(vec![], None).classify(&pkt(0, 2, 0, 5)),
            None
        );
    }

    #[test]
    fn flow_hash_spreads_flows_and_changes_with_the_perturbation() {
        // 1024 distinct tuples into 1024 buckets: a uniform hash leaves about 1024/e ≈ 377
        // buckets empty (balls into bins); accept 330–420.
        let tuple = |i: u32| FiveTuple {
            src_addr: 0x0A00_0001,
            dst_addr: 0x0A00_0002,
            src_port: 49152 + i as u16,
            dst_port: 5001,
            protocol: Protocol::Tcp,
        };
        for perturb in [0u64, 1, 0xdead_beef] {
            let mut used = vec![false; 1024];
            for i in 0..1024 {
                used[(flow_hash(&tuple(i), perturb) % 1024) as usize] = true;
            }
            let empty = used.iter().filter(|u| !**u).count();
            assert!(
                (330..=420).contains(&empty),
                "perturb {perturb}: {empty} empty"
            );
        }
        let same = (0..1024)
            .filter(|&i| flow_hash(&tuple(i), 1) % 1024 == flow_hash(&tuple(i), 2) % 1024)
            .count();
        assert!(
            same < 10,
            "{same} tuples kept their bucket across perturbations"
        );
    }
}
