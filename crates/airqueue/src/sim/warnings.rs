//! Warnings: scenarios that are valid but almost certainly not what their author meant.
//! `validate` and `run` print them and `summary.json` lists them (`warnings`), each with
//! the field path and what to change, like a problem.
//!
//! - a classful qdisc where traffic can fall outside every class: HTB without `default`
//!   whose leaf matches do not take every packet (Linux `sch_htb.c` sends unclassified
//!   packets to its direct queue, unshaped and ahead of every class), DRR without a
//!   catch-all class (Linux `sch_drr.c` drops them);
//! - a link slower than any packet can cross within the run (a 64-byte frame's
//!   serialization time plus the propagation delay exceed `run.duration`);
//! - a path longer than IP's TTL (RFC 1122 §3.2.1.7 default 64; airqueue's hosts send with
//!   64), or a routing loop: every packet ends in a TTL drop (added by the build);
//! - a run that will take a large share of the memory budget (added by the build);
//! - a qdisc that manages its queue (not a plain FIFO) above a deep driver buffer (an
//!   802.11 interface's `buffer`, a piconet master's `master_buffer`, of more than
//!   [`SHALLOW_DRIVER_PACKETS`]): once the buffer
//!   fills, the queue and its delay sit in the driver, below the qdisc, where an AQM or a
//!   fair scheduler cannot act on them — the bufferbloat BQL and mac80211's TXQs exist to
//!   fix (docs/qdiscs/fq_codel.md).

use crate::conf::words::entry_suffix;
use crate::conf::Problem;
use crate::scenario::Scenario;
use serde_json::Value;

/// Warnings listed at most; the rest are counted in one last line.
pub const MAX_WARNINGS: usize = 50;

/// The smallest frame a link carries, for the "no packet can cross" check: 64 bytes (the
/// Ethernet minimum, and below any IP+transport header).
const MIN_FRAME_BITS: u128 = 64 * 8;

/// Driver buffers of at most this many packets are shallow enough not to warn about: about
/// what BQL lets a NIC hold at these rates, and what mac80211's hardware queue holds under
/// its TXQs.
pub const SHALLOW_DRIVER_PACKETS: u32 = 4;

/// Warnings that need only the scenario.
pub fn scenario_warnings(s: &Scenario) -> Vec<Problem> {
    let mut out = Vec::new();
    driver_buffer_warnings(s, &mut out);
    let duration = s.run.duration.time().0 as u128;
    for l in &s.links {
        let bps = u128::from(l.rate.bps().max(1));
        let cross = MIN_FRAME_BITS * 1_000_000_000 / bps + l.delay.time().0 as u128;
        if cross >= duration {
            out.push(Problem::new(
                format!("links.{}.rate", l.name),
                format!(
                    "a 64-byte packet takes {:.3} s to cross this link (rate {}, delay {}), \
                     longer than the run ({}); nothing will arrive over it: raise the rate \
                     or lengthen run.duration",
                    cross as f64 / 1e9,
                    l.rate,
                    l.delay,
                    s.run.duration
                ),
            ));
        }
    }
    for q in &s.qdiscs {
        let Ok(v) = serde_json::to_value(&q.conf) else {
            continue;
        };
        // The interfaces whose packets reach this qdisc: a virtual device's members, or
        // the interface itself.
        let devs: Vec<&str> = match s.virtual_devs.iter().find(|d| d.name == q.dev) {
            Some(d) => d.members.iter().map(String::as_str).collect(),
            None => vec![q.dev.as_str()],
        };
        qdisc_tree_warnings(&v, &format!("qdiscs.{}", q.dev), &devs, &mut out);
    }
    out
}

/// Whether a qdisc of `kind` does something a deep driver buffer below it undoes: every
/// kind but the plain FIFOs (whose delay the buffer only adds to) and `btwn` (which itself
/// waits for the hardware queue towards a packet's next hop to empty, a limiter).
fn manages_its_queue(kind: &str) -> bool {
    !matches!(kind, "pfifo" | "bfifo" | "pfifo_head_drop" | "btwn")
}

/// A qdisc that manages its queue (an AQM, a scheduler: [`manages_its_queue`]) on an 802.11
/// interface or a piconet's master (or on a virtual device one of whose members is one)
/// whose driver buffer holds
/// more than [`SHALLOW_DRIVER_PACKETS`] with no limiter: the
/// buffer's depth in packets and in time at the fastest PHY rate the interface sends at
/// (a lower bound: MAC overhead, contention and retries make it longer), and what to do.
fn driver_buffer_warnings(s: &Scenario, out: &mut Vec<Problem>) {
    use crate::link::wifi::build::cell_rate;
    use crate::link::wifi::spec::ApQueuesKind;
    // (interface, buffer, fastest rate, the key that sets the buffer, MTU, a hint)
    let mut ports: Vec<(String, u32, u64, String, u32, String)> = Vec::new();
    for c in &s.cells {
        let cell = format!("cells.{}", c.name);
        if let Some(ap) = &c.ap {
            if c.ap_queues == ApQueuesKind::Driver {
                let rate = c.stations.iter().map(|st| cell_rate(c, st).bps()).max();
                let key = if c.ap_buffer.is_some() {
                    format!("{cell}.ap_buffer")
                } else {
                    format!("{cell}.buffer (or ap_buffer)")
                };
                ports.push((
                    format!("{ap}.{}", c.name),
                    c.ap_buffer.unwrap_or(c.buffer),
                    rate.unwrap_or(0),
                    key,
                    c.mtu,
                    format!(
                        ", or give the AP mac80211's per-station FQ-CoDel queues \
                         ({cell}.ap_queues = \"mac80211\")"
                    ),
                ));
            }
        }
        for (i, st) in c.stations.iter().enumerate() {
            let key = if st.buffer.is_some() {
                format!("{cell}.stations[{i}].buffer")
            } else {
                format!("{cell}.buffer")
            };
            ports.push((
                format!("{}.{}", st.node, c.name),
                st.buffer.unwrap_or(c.buffer),
                cell_rate(c, st).bps(),
                key,
                c.mtu,
                String::new(),
            ));
        }
    }
    // A piconet's master: its downlink queues take packets while they hold fewer than
    // `master_buffer` IP packets (default 1000), at the fastest ACL type's asymmetric
    // rate. A slave's buffers are not warned about: without flow control L holds a few
    // MTU packets (20 baseband packets: 4), and with it the port is always ready (the
    // thesis's L2CAP takes every SDU), so no qdisc above it ever holds a packet.
    for p in &s.piconets {
        use crate::link::bluetooth::baseband::{max_asymmetric_bps, PacketType};
        let bps = p
            .packet_types
            .iter()
            .filter_map(|t| PacketType::parse(t))
            .map(|t| max_asymmetric_bps(t) as u64)
            .max()
            .unwrap_or(0);
        ports.push((
            format!("{}.{}", p.master, p.name),
            p.master_buffer,
            bps,
            format!("piconets.{}.master_buffer", p.name),
            p.mtu,
            String::new(),
        ));
    }
    for (dev, limit, bps, key, mtu, hint) in ports {
        if limit <= SHALLOW_DRIVER_PACKETS || bps == 0 {
            continue;
        }
        let Some(q) = s.qdiscs.iter().find(|q| {
            q.dev == dev
                || s.virtual_devs
                    .iter()
                    .any(|v| v.name == q.dev && v.members.contains(&dev))
        }) else {
            continue;
        };
        let kind = serde_json::to_value(&q.conf)
            .ok()
            .and_then(|v| v.get("kind").and_then(Value::as_str).map(String::from))
            .unwrap_or_else(|| "qdisc".into());
        if !manages_its_queue(&kind) {
            continue;
        }
        let ms = f64::from(limit) * f64::from(mtu) * 8.0 / bps as f64 * 1e3;
        let via = if q.dev == dev {
            String::new()
        } else {
            format!(" (through {})", q.dev)
        };
        out.push(Problem::new(
            format!("qdiscs.{}", q.dev),
            format!(
                "the {kind} on {dev}{via} sits above a driver buffer of {limit} packets \
                     (≈ {ms:.0} ms of {mtu}-byte packets at {rate}, more with MAC overhead \
                     and retries) with no limiter like BQL: once the buffer fills, the queue \
                     and its delay are in the driver, where the {kind} cannot see or manage \
                     them (the driver_queues table shows them); set {key} to a few packets \
                     (e.g. 2){hint}",
                rate = crate::conf::Rate(bps),
            ),
        ));
    }
}

/// Whether the leaf classes of an HTB tree (JSON `classes`) take every packet leaving
/// through `devs`, so that none can reach the direct queue. Proven only for the cases a
/// tree is written with: a leaf whose `match` is empty (it takes everything), or leaves
/// that each match on one key only and together cover all its values: every interface in
/// `devs` (`dev`, as a virtual device's tree separates its members), every protocol a host
/// sends (`protocol`: tcp, udp, icmp), or every DSCP (0–63). Anything else counts as not
/// covered, so the warning errs on the side of being shown.
fn htb_leaves_cover_everything(classes: Option<&Value>, devs: &[&str]) -> bool {
    let Some(classes) = classes.and_then(Value::as_array) else {
        return false;
    };
    let parents: Vec<&str> = classes
        .iter()
        .filter_map(|c| c.get("parent").and_then(Value::as_str))
        .collect();
    let (mut dev_patterns, mut protocols, mut dscps) = (Vec::new(), Vec::new(), Vec::new());
    for c in classes {
        let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
        let Some(m) = c.get("match").and_then(Value::as_object) else {
            continue;
        };
        if parents.contains(&name) {
            continue;
        }
        let keys: Vec<(&String, &Value)> = m.iter().filter(|(_, v)| !v.is_null()).collect();
        let names = |v: &Value| -> Vec<String> {
            match v {
                Value::String(s) => vec![s.clone()],
                Value::Array(a) => a
                    .iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect(),
                _ => Vec::new(),
            }
        };
        match keys.as_slice() {
            [] => return true,
            [(k, v)] if k.as_str() == "dev" => dev_patterns.extend(names(v)),
            [(k, v)] if k.as_str() == "protocol" => protocols.extend(names(v)),
            [(k, Value::Array(a))] if k.as_str() == "dscp" => {
                dscps.extend(a.iter().filter_map(Value::as_u64))
            }
            _ => {}
        }
    }
    let matches_name = |p: &String, name: &str| match p.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => p == name,
    };
    let all_devs = devs
        .iter()
        .all(|d| dev_patterns.iter().any(|p| matches_name(p, d)));
    let all_protocols = ["tcp", "udp", "icmp"]
        .iter()
        .all(|p| protocols.iter().any(|x| x == p));
    let all_dscps = (0..64).all(|d| dscps.contains(&d));
    all_devs || all_protocols || all_dscps
}

/// Walks a qdisc (and its children) as JSON, warning about classful qdiscs that let
/// traffic fall outside every class; `devs` are the interfaces whose packets reach it.
fn qdisc_tree_warnings(v: &Value, path: &str, devs: &[&str], out: &mut Vec<Problem>) {
    match v {
        Value::Object(m) => {
            match m.get("kind").and_then(Value::as_str) {
                Some("htb")
                    if m.get("default").is_none_or(Value::is_null)
                        && !htb_leaves_cover_everything(m.get("classes"), devs) =>
                {
                    out.push(Problem::new(
                        format!("{path}.default"),
                        "is not set and the leaf classes' `match` tables do not take every \
                         packet: packets none of them takes go to HTB's direct queue, sent \
                         unshaped ahead of every class (Linux sch_htb), which can starve the \
                         classes; name a leaf class as `default`",
                    ));
                }
                Some("drr") => {
                    let classes = m.get("classes").and_then(Value::as_array);
                    let catch_all = classes.is_some_and(|cs| {
                        cs.iter().any(|c| c.get("match").is_none_or(Value::is_null))
                    });
                    if !catch_all {
                        out.push(Problem::new(
                            format!("{path}.classes"),
                            "every class has a `match`: packets none of them takes are \
                             dropped unclassified (Linux sch_drr); add a class without \
                             `match` to take the rest",
                        ));
                    }
                }
                _ => {}
            }
            for (k, child) in m {
                if child.is_object() || child.is_array() {
                    qdisc_tree_warnings(child, &format!("{path}.{k}"), devs, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let p = format!("{path}{}", entry_suffix(i, item, "name"));
                qdisc_tree_warnings(item, &p, devs, out);
            }
        }
        _ => {}
    }
}

/// At most [`MAX_WARNINGS`], then one line counting the rest.
pub fn capped(mut w: Vec<Problem>) -> Vec<Problem> {
    if w.len() > MAX_WARNINGS {
        let more = w.len() - MAX_WARNINGS;
        w.truncate(MAX_WARNINGS);
        w.push(Problem::new(
            "(warnings)",
            format!("{more} more warnings like the ones above are not listed"),
        ));
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_toml_str;

    const NAP: &str = include_str!("../../../../scenarios/examples/nap-imq-htb.toml");
    const BT_MATCH: &str = r#", match = { dev = "nap.bt" }"#;

    fn default_warnings(text: &str) -> Vec<String> {
        let s = load_toml_str(text).unwrap();
        scenario_warnings(&s)
            .into_iter()
            .map(|p| p.path)
            .filter(|p| p.ends_with(".default"))
            .collect()
    }

    /// Reference: Linux `sch_htb.c` (`htb_classify`): a packet no filter takes goes to the
    /// direct queue. The NAP's tree (seed 000, Fig. 3) matches each member interface of
    /// the virtual device, so every packet has a class.
    #[test]
    fn an_htb_whose_dev_matches_cover_every_member_is_not_warned_about() {
        assert_eq!(NAP.matches(BT_MATCH).count(), 1);
        assert!(default_warnings(NAP).is_empty());
    }

    #[test]
    fn an_htb_that_leaves_a_member_unmatched_is_warned_about() {
        let text = NAP.replace(BT_MATCH, "");
        assert_eq!(default_warnings(&text), ["qdiscs.nap.imq0.default"]);
        // A match that also needs a DSCP no longer takes every packet of the member.
        let text = NAP.replace(BT_MATCH, r#", match = { dev = "nap.bt", dscp = [46] }"#);
        assert_eq!(default_warnings(&text), ["qdiscs.nap.imq0.default"]);
        // A prefix pattern covering both members, or protocols covering all three, do.
        let text = NAP.replace(BT_MATCH, "").replace(
            r#"match = { dev = "nap.wlan" }"#,
            r#"match = { dev = "nap.*" }"#,
        );
        assert!(default_warnings(&text).is_empty());
        let text = NAP
            .replace(BT_MATCH, r#", match = { protocol = "tcp" }"#)
            .replace(
                r#"match = { dev = "nap.wlan" }"#,
                r#"match = { protocol = "udp" }"#,
            );
        assert_eq!(default_warnings(&text), ["qdiscs.nap.imq0.default"]);
    }
}
