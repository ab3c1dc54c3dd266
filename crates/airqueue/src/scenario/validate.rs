//! Semantic checks on an expanded scenario: names unique, references resolved, values in
//! range. Every problem is collected; nothing here panics on user input.
//!
//! A wired medium's own checks live beside its spec, in its folder (`link/p2p/checks.rs`,
//! `link/segment/checks.rs`, `link/netem/checks.rs`, `stripe/checks.rs`), and take what
//! they need of the scenario; this calls them, in the order the problems are reported.

use super::spec::{
    AppSpec, CbrSpec, FlowSpec, MessageSpec, OnoffSpec, PoissonSpec, Scenario, TcpVariant,
    TransportSpec,
};
use crate::conf::{check_name, unique, ScenarioError};
use crate::link::air::checks::check_spectrum;
use crate::link::bluetooth::checks::check_piconets;
use crate::link::netem::checks::check_impairment;
use crate::link::p2p::checks::check_links;
use crate::link::segment::checks::check_segments;
use crate::link::wifi::checks::{check_cell_next_hop, check_cells, check_propagation};
use crate::stripe::checks::{check_trunks, TrunkSurroundings};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Checks an expanded scenario and returns every problem found.
pub fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    let mut errs = ScenarioError::default();
    let run = &s.run;
    let duration = run.duration.time();
    if duration.0 == 0 {
        errs.push(
            "run.duration",
            "must be longer than zero; write e.g. \"10s\"",
        );
    }
    if run.warmup.time() >= duration && duration.0 > 0 {
        errs.push(
            "run.warmup",
            format!(
                "{} is not shorter than run.duration ({}); shorten the warm-up",
                run.warmup, run.duration
            ),
        );
    }
    if run.sample_interval.time().0 == 0 {
        errs.push(
            "run.sample_interval",
            "must be longer than zero; write e.g. \"100ms\"",
        );
    }

    // Nodes.
    for n in &s.nodes {
        check_name(format!("nodes.{}.name", n.name), &n.name, &mut errs);
    }
    unique("nodes", s.nodes.iter().map(|n| n.name.as_str()), &mut errs);
    check_real_hosts(s, &mut errs);
    check_addresses(s, &mut errs);
    let nodes: HashSet<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
    let known_nodes = || {
        let mut v: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).take(8).collect();
        if s.nodes.len() > 8 {
            v.push("…");
        }
        v.join(", ")
    };
    let node_ref = |path: String, name: &str, errs: &mut ScenarioError| {
        if !nodes.contains(name) {
            errs.push(
                path,
                format!(
                    "no node is named \"{name}\"; known nodes: {}",
                    known_nodes()
                ),
            );
        }
    };

    // Links and the interfaces they create.
    check_links(&s.links, &node_ref, &mut errs);
    let link_names: HashSet<&str> = s.links.iter().map(|l| l.name.as_str()).collect();
    check_segments(&s.segments, &link_names, &nodes, &mut errs);
    let mut taken: HashSet<&str> = s.links.iter().map(|l| l.name.as_str()).collect();
    taken.extend(s.segments.iter().map(|g| g.name.as_str()));
    let spectrum = s.spectrum.as_ref();
    check_cells(&s.cells, &taken, &nodes, spectrum, &mut errs);
    taken.extend(s.cells.iter().map(|c| c.name.as_str()));
    check_piconets(&s.piconets, &s.bridges, &taken, spectrum, &nodes, &mut errs);
    check_spectrum(spectrum, &s.piconets, &s.cells, &nodes, &mut errs);
    check_propagation(
        s.propagation.as_ref(),
        &s.cells,
        spectrum,
        &nodes,
        &mut errs,
    );
    let mut devs: HashMap<String, &str> = HashMap::default();
    let mut links_of: HashMap<&str, Vec<&str>> = HashMap::default();
    let ends = s
        .links
        .iter()
        .flat_map(|l| l.between.iter().map(move |n| (n, l.name.as_str())))
        .chain(
            s.segments
                .iter()
                .flat_map(|g| g.nodes.iter().map(move |n| (n, g.name.as_str()))),
        )
        .chain(
            s.cells
                .iter()
                .flat_map(|c| c.members().map(move |n| (n, c.name.as_str()))),
        )
        .chain(s.piconets.iter().flat_map(|p| {
            std::iter::once(&p.master)
                .chain(p.slaves.iter())
                .map(move |n| (n, p.name.as_str()))
        }));
    for (n, medium) in ends {
        devs.insert(format!("{n}.{medium}"), medium);
        links_of.entry(n.as_str()).or_default().push(medium);
    }

    // Virtual devices (IMQ-like): a name of their own, members on the same node.
    let member_of = check_virtual_devs(s, &devs, &nodes, &mut errs);
    let qdisc_devs: HashSet<&str> = s.qdiscs.iter().map(|q| q.dev.as_str()).collect();
    let around = TrunkSurroundings {
        nodes: &nodes,
        devs: &devs,
        member_of: &member_of,
        qdisc_devs: &qdisc_devs,
        cell_buffer: &|m: &str, n: &str| cell_buffer(s, m, n),
    };
    check_trunks(&s.trunks, &around, &mut errs);

    // Qdiscs.
    let mut roots = HashSet::default();
    for q in &s.qdiscs {
        let label = format!("qdiscs.{}", q.display_name());
        let is_virtual = s.virtual_devs.iter().any(|v| v.name == q.dev);
        let imq_member = member_of.get(q.dev.as_str()).is_some_and(|v| {
            s.virtual_devs
                .iter()
                .any(|d| d.name == *v && d.dequeue == crate::scenario::spec::VdevDequeue::Imq)
        });
        if let (Some(v), false) = (member_of.get(q.dev.as_str()), imq_member) {
            errs.push(
                format!("{label}.dev"),
                format!(
                    "\"{}\" is a member of virtual device \"{v}\", whose qdisc schedules its packets; attach the qdisc to \"{v}\" (or remove the member, or give \"{v}\" dequeue = \"imq\", where members keep queues of their own)",
                    q.dev
                ),
            );
        } else if !devs.contains_key(&q.dev) && !is_virtual {
            let mut hint: Vec<&String> = devs.keys().collect();
            hint.sort();
            hint.truncate(8);
            errs.push(
                format!("{label}.dev"),
                format!(
                    "\"{}\" is not an interface; interfaces are <node>.<link>, e.g. {}",
                    q.dev,
                    hint.iter()
                        .map(|s| format!("\"{s}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
        if !roots.insert(q.dev.as_str()) {
            errs.push(
                format!("{label}.dev"),
                format!(
                    "\"{}\" already has a root qdisc; give each interface one entry",
                    q.dev
                ),
            );
        }
        if let Some(n) = &q.name {
            if n.is_empty() {
                errs.push(format!("{label}.name"), "must not be empty");
            }
        }
        crate::qdisc::check(&q.conf, &label, &mut errs);
    }
    unique(
        "qdiscs",
        s.qdiscs.iter().map(|q| q.display_name()),
        &mut errs,
    );

    // Routes.
    for (i, r) in s.routes.iter().enumerate() {
        let label = format!("routes[{i}]");
        node_ref(format!("{label}.node"), &r.node, &mut errs);
        node_ref(format!("{label}.to"), &r.to, &mut errs);
        let attached = links_of.get(r.node.as_str()).cloned().unwrap_or_default();
        if nodes.contains(r.node.as_str()) && !attached.contains(&r.via.as_str()) {
            errs.push(
                format!("{label}.via"),
                format!(
                    "\"{}\" is not a link of \"{}\"; its links are: {}",
                    r.via,
                    r.node,
                    attached.join(", ")
                ),
            );
        }
        check_next_hop(s, r, &label, &mut errs);
    }

    // Flows.
    for f in &s.flows {
        let label = format!("flows.{}", f.name);
        check_name(format!("{label}.name"), &f.name, &mut errs);
        if f.port == Some(0) {
            errs.push(
                format!("{label}.port"),
                "port 0 is reserved; give 1–65535 (e.g. 5060 for SIP)",
            );
        }
        node_ref(format!("{label}.from"), &f.from, &mut errs);
        node_ref(format!("{label}.to"), &f.to, &mut errs);
        if f.from == f.to {
            errs.push(
                format!("{label}.to"),
                format!(
                    "is the same node as `from` (\"{}\"); a flow needs two nodes",
                    f.to
                ),
            );
        }
        if f.start.time() >= duration {
            errs.push(
                format!("{label}.start"),
                format!(
                    "{} is not before the end of the run ({}); start earlier",
                    f.start, run.duration
                ),
            );
        }
        if let Some(stop) = f.stop {
            if stop.time() <= f.start.time() {
                errs.push(
                    format!("{label}.stop"),
                    format!(
                        "{stop} is not after start ({}); stop later or remove `stop`",
                        f.start
                    ),
                );
            }
        }
        if f.dscp > 63 {
            errs.push(
                format!("{label}.dscp"),
                format!("{} is not a DSCP (0–63)", f.dscp),
            );
        }
        check_app(&label, f, &mut errs);
        if let Some(a) = &f.answers {
            check_answers(&label, f, a, s, &mut errs);
        }
    }
    unique("flows", s.flows.iter().map(|f| f.name.as_str()), &mut errs);
    check_timeline(s, &devs, &mut errs);
    errs.into_result()
}

/// `answers`: a UDP flow answering another UDP flow that arrives at its `from`.
/// Node addresses (`nodes.*.address`): unicast, and unique among every node's address,
/// the plan's included (a written address may not take a planned one).
fn check_addresses(s: &Scenario, errs: &mut ScenarioError) {
    let mut owner: rustc_hash::FxHashMap<u32, &str> = rustc_hash::FxHashMap::default();
    for (i, n) in s.nodes.iter().enumerate() {
        let path = format!("nodes.{}.address", n.name);
        if let Some(a) = n.address {
            if a.is_unspecified() || a.is_broadcast() || a.is_multicast() || a.is_loopback() {
                errs.push(
                    path.clone(),
                    format!("{a} is not a unicast host address; write e.g. \"192.168.1.10\""),
                );
                continue;
            }
        }
        let addr = n.addr(i);
        if let Some(other) = owner.insert(addr, &n.name) {
            // Planned addresses never clash with each other: one of the two was written.
            let (at, clash) = if n.address.is_some() {
                (n.name.as_str(), other)
            } else {
                (other, n.name.as_str())
            };
            errs.push(
                format!("nodes.{at}.address"),
                format!(
                    "{} is also node \"{clash}\"'s address (written, or the plan's 10.0.0.0/8 + \
                     node index + 1); give each node its own",
                    std::net::Ipv4Addr::from(addr)
                ),
            );
        }
    }
}

/// Real hosts (`nodes.*.real`, live mode): hosts whose traffic comes from the programs in
/// their namespace, so no simulated flow may start or end at one (its transport would be
/// simulated TCP or UDP inside a real kernel's host) — but an emulated node may ping one
/// (its kernel answers the echo requests written to it, as DFQ's RTT detector needs).
fn check_real_hosts(s: &Scenario, errs: &mut ScenarioError) {
    let real: HashSet<&str> = s
        .nodes
        .iter()
        .filter(|n| n.real)
        .map(|n| n.name.as_str())
        .collect();
    for n in s.nodes.iter().filter(|n| n.real) {
        if n.kind != super::spec::NodeKind::Host {
            errs.push(
                format!("nodes.{}.real", n.name),
                "only a host can be real (a router forwards emulated packets); \
                 remove `real` or make the node a host",
            );
        }
    }
    for f in &s.flows {
        for (key, node) in [("from", &f.from), ("to", &f.to)] {
            // An emulated node may ping a real host: the echo requests are written to it
            // as bytes and its kernel's replies come back to the ping (sim/live.rs).
            let ping_to_real =
                key == "to" && f.app.kind() == "ping" && !real.contains(f.from.as_str());
            if real.contains(node.as_str()) && !ping_to_real {
                errs.push(
                    format!("flows.{}.{key}", f.name),
                    format!(
                        "\"{node}\" is a real host (nodes.{node}.real): its traffic comes \
                         from the programs in its namespace (`airqueue live --exec`), not \
                         from a simulated {} application; remove the flow or the `real` key",
                        f.app.kind()
                    ),
                );
            }
        }
    }
}

fn check_answers(label: &str, f: &FlowSpec, a: &str, s: &Scenario, errs: &mut ScenarioError) {
    let path = format!("{label}.answers");
    let udp = |g: &FlowSpec| {
        matches!(g.transport, TransportSpec::Udp(_)) && !matches!(g.app, AppSpec::Ping(_))
    };
    if !udp(f) {
        errs.push(
            path.clone(),
            "only a UDP source answers (the answering half of a call); remove `answers`",
        );
    }
    match s.flows.iter().find(|g| g.name == a) {
        None => errs.push(path, format!("\"{a}\" is not a flow")),
        Some(g) if g.name == f.name => errs.push(path, "a flow cannot answer itself"),
        Some(g) if !udp(g) => errs.push(
            path,
            format!("\"{a}\" is not a UDP source; a flow answers the first packet of a UDP flow"),
        ),
        Some(g) if g.to != f.from => errs.push(
            path,
            format!(
                "\"{a}\" goes to \"{}\", not to this flow's `from` (\"{}\"); the answering side is where the call arrives",
                g.to, f.from
            ),
        ),
        Some(_) => {}
    }
}

/// Checks the `[[at]]` timeline: each entry before the end of the run, with exactly one
/// change, naming things that exist. Whether a qdisc accepts a `change` is checked when
/// the simulation is built (it needs the built discipline).
fn check_timeline(s: &Scenario, devs: &HashMap<String, &str>, errs: &mut ScenarioError) {
    let duration = s.run.duration.time();
    for (i, a) in s.at.iter().enumerate() {
        let label = format!("at[{i}]");
        if a.at.time() >= duration {
            errs.push(
                format!("{label}.at"),
                format!(
                    "{} is not before the end of the run ({}); move it earlier or lengthen the run",
                    a.at, s.run.duration
                ),
            );
        }
        let given = a.link.is_some() as u32
            + a.qdisc.is_some() as u32
            + a.flow.is_some() as u32
            + a.station.is_some() as u32;
        if given != 1 {
            errs.push(
                label.clone(),
                format!(
                    "gives {given} changes; give exactly one of `link = {{ … }}`, `qdisc = {{ … }}`, `flow = {{ … }}`, `station = {{ … }}` per [[at]] entry"
                ),
            );
        }
        if let Some(st) = &a.station {
            let path = format!("{label}.station");
            match s.cells.iter().find(|c| c.name == st.cell) {
                None => {
                    let names: Vec<&str> = s.cells.iter().map(|c| c.name.as_str()).collect();
                    errs.push(
                        format!("{path}.cell"),
                        format!(
                            "\"{}\" is not a cell; cells are: {}",
                            st.cell,
                            names.join(", ")
                        ),
                    );
                }
                Some(c) if c.mode == super::spec::CellMode::Adhoc => errs.push(
                    format!("{path}.cell"),
                    format!(
                        "\"{}\" is an ad hoc cell; only stations of an infrastructure cell associate with an AP",
                        st.cell
                    ),
                ),
                Some(c) if !c.stations.iter().any(|m| m.node == st.node) => errs.push(
                    format!("{path}.node"),
                    format!(
                        "\"{}\" is not a station of cell \"{}\" (its AP cannot leave); give one of its stations",
                        st.node, st.cell
                    ),
                ),
                Some(_) => {}
            }
        }
        if let Some(l) = &a.link {
            let path = format!("{label}.link");
            if !s.links.iter().any(|k| k.name == l.name) {
                let names: Vec<&str> = s.links.iter().map(|k| k.name.as_str()).collect();
                errs.push(
                    format!("{path}.name"),
                    format!(
                        "\"{}\" is not a link; links are: {}",
                        l.name,
                        names.join(", ")
                    ),
                );
            }
            if l.rate.is_none() && l.delay.is_none() && l.impairment.is_none() {
                errs.push(
                    path.clone(),
                    "changes nothing; give `rate`, `delay` or `impairment`",
                );
            }
            if let Some(imp) = &l.impairment {
                check_impairment(imp, &format!("{path}.impairment"), errs);
            }
        }
        if let Some(q) = &a.qdisc {
            let path = format!("{label}.qdisc");
            let known = devs.contains_key(&q.dev)
                || s.virtual_devs.iter().any(|v| v.name == q.dev)
                || s.qdiscs.iter().any(|d| d.display_name() == q.dev);
            if !known {
                errs.push(
                    format!("{path}.dev"),
                    format!(
                        "\"{}\" is neither an interface (<node>.<link>), a virtual device nor the name of a [[qdiscs]] entry",
                        q.dev
                    ),
                );
            }
            match (&q.change, &q.replace) {
                (Some(c), None) => crate::qdisc::check(c, &format!("{path}.change"), errs),
                (None, Some(r)) => crate::qdisc::check(r, &format!("{path}.replace"), errs),
                _ => errs.push(
                    path.clone(),
                    "give exactly one of `change = { kind = …, … }` (tc qdisc change) and `replace = { kind = …, … }` (tc qdisc replace)",
                ),
            }
        }
        if let Some(f) = &a.flow {
            let path = format!("{label}.flow");
            match s.flows.iter().find(|g| g.name == f.name) {
                None => errs.push(
                    format!("{path}.name"),
                    format!("\"{}\" is not a flow", f.name),
                ),
                Some(g)
                    if matches!(g.transport, super::spec::TransportSpec::Tcp(_))
                        && !matches!(g.app, AppSpec::Bulk(_)) =>
                {
                    errs.push(
                        format!("{path}.name"),
                        format!(
                            "\"{}\" is a TCP {} flow; the timeline stops and restarts UDP sources, ping and TCP bulk transfers only (give it `start`/`stop` instead)",
                            f.name,
                            g.app.kind()
                        ),
                    )
                }
                Some(_) => {}
            }
        }
    }
}

/// A route's `next_hop`: required when `via` is a segment with more than two nodes, and
/// then a node on that segment other than the route's own.
fn check_next_hop(s: &Scenario, r: &super::spec::RouteSpec, label: &str, errs: &mut ScenarioError) {
    if let Some(c) = s.cells.iter().find(|c| c.name == r.via) {
        check_cell_next_hop(c, &r.node, r.next_hop.as_ref(), label, errs);
        return;
    }
    let segment = s.segments.iter().find(|g| g.name == r.via);
    match (&r.next_hop, segment) {
        (None, Some(g)) if g.nodes.len() > 2 => errs.push(
            format!("{label}.next_hop"),
            format!(
                "\"{}\" is a segment with {} nodes; say which one to hand packets to, e.g. next_hop = \"{}\"",
                g.name,
                g.nodes.len(),
                g.nodes.iter().find(|n| **n != r.node).map_or("", |n| n.as_str())
            ),
        ),
        (Some(h), Some(g)) if *h == r.node || !g.nodes.contains(h) => errs.push(
            format!("{label}.next_hop"),
            format!(
                "\"{h}\" is not another node on segment \"{}\"; its nodes are: {}",
                g.name,
                g.nodes.join(", ")
            ),
        ),
        (Some(h), None) => {
            let peer = s
                .links
                .iter()
                .find(|l| l.name == r.via)
                .and_then(|l| l.between.iter().find(|n| **n != r.node));
            if peer.is_some_and(|p| p != h) {
                errs.push(
                    format!("{label}.next_hop"),
                    format!(
                        "\"{h}\" is not at the far end of link \"{}\"; remove next_hop (a link has one neighbour)",
                        r.via
                    ),
                );
            }
        }
        _ => {}
    }
}

/// Checks `virtual_devs` and returns each member interface with its virtual device.
fn check_virtual_devs<'a>(
    s: &'a Scenario,
    devs: &HashMap<String, &str>,
    nodes: &HashSet<&str>,
    errs: &mut ScenarioError,
) -> HashMap<&'a str, &'a str> {
    let mut member_of: HashMap<&str, &str> = HashMap::default();
    let mut names = HashSet::default();
    let mut hint: Vec<&String> = devs.keys().collect();
    hint.sort();
    hint.truncate(8);
    let hint = hint
        .iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ");
    for v in &s.virtual_devs {
        let label = format!("virtual_devs.{}", v.name);
        let node = match v.name.split_once('.') {
            Some((node, dev)) if nodes.contains(node) && !dev.is_empty() && !dev.contains('.') => {
                Some(node)
            }
            _ => {
                errs.push(
                    format!("{label}.name"),
                    format!(
                        "\"{}\" is not <node>.<device> with an existing node; write e.g. \"nap.imq0\"",
                        v.name
                    ),
                );
                None
            }
        };
        if devs.contains_key(&v.name) {
            errs.push(
                format!("{label}.name"),
                format!(
                    "\"{}\" is already a real interface; give the virtual device its own name (e.g. \"<node>.imq0\")",
                    v.name
                ),
            );
        }
        if !names.insert(v.name.as_str()) {
            errs.push(
                format!("{label}.name"),
                format!("\"{}\" names more than one virtual device", v.name),
            );
        }
        if v.members.is_empty() {
            errs.push(
                format!("{label}.members"),
                "is empty; list the interfaces it schedules, e.g. [\"nap.wlan\", \"nap.bt\"]",
            );
        }
        for (i, m) in v.members.iter().enumerate() {
            let path = format!("{label}.members[{i}]");
            if !devs.contains_key(m) {
                let mut own: Vec<String> = devs
                    .keys()
                    .filter(|d| node.is_some() && d.split_once('.').map(|(x, _)| x) == node)
                    .map(|d| format!("\"{d}\""))
                    .collect();
                own.sort();
                let known = if own.is_empty() {
                    format!("interfaces are <node>.<link>, e.g. {hint}")
                } else {
                    format!("the interfaces of its node are {}", own.join(", "))
                };
                errs.push(path, format!("\"{m}\" is not an interface; {known}"));
                continue;
            }
            if let Some(node) = node {
                if m.split_once('.').map(|(n, _)| n) != Some(node) {
                    errs.push(
                        path,
                        format!(
                            "\"{m}\" is not an interface of node \"{node}\"; a virtual device schedules its own node's interfaces"
                        ),
                    );
                    continue;
                }
            }
            if let Some(other) = member_of.insert(m.as_str(), v.name.as_str()) {
                errs.push(
                    path,
                    format!(
                        "\"{m}\" is already a member of \"{other}\"; an interface can belong to one virtual device"
                    ),
                );
            }
        }
    }
    member_of
}

/// The driver buffer (packets) of node `n`'s interface on medium `m`, if `m` is a cell:
/// the station's own, the AP's, or the cell's (what a trunk's checks need of a cell).
fn cell_buffer(s: &Scenario, m: &str, n: &str) -> Option<u32> {
    let c = s.cells.iter().find(|c| c.name == m)?;
    let own = c.stations.iter().find(|st| st.node == n);
    Some(
        own.and_then(|st| st.buffer)
            .or(if c.ap.as_deref() == Some(n) {
                c.ap_buffer
            } else {
                None
            })
            .unwrap_or(c.buffer),
    )
}

/// A source paced by `rate` or `interval` (exactly one, the interval non-zero).
fn check_rate_or_interval(
    app: &str,
    size: u32,
    rate: Option<super::spec::Rate>,
    interval: Option<super::spec::Duration>,
    example_rate: &str,
    errs: &mut ScenarioError,
) {
    match (rate, interval) {
        (Some(_), Some(_)) => errs.push(
            app,
            "gives both `rate` and `interval`; keep one (interval = size × 8 / rate)",
        ),
        (None, None) => errs.push(
            app,
            format!("needs `rate` (e.g. \"{example_rate}\") or `interval` (e.g. \"10ms\")"),
        ),
        (None, Some(i)) if i.time().0 == 0 => {
            errs.push(format!("{app}.interval"), "must be longer than zero")
        }
        (Some(r), None) => check_packet_rate(app, size, r, errs),
        _ => {}
    }
}

/// A source whose `size`-byte packets at `rate` come less than 1 ns apart: the clock's
/// step, so the interval would be rounded up to 1 ns and the run would send up to 10⁹
/// packets a second, none of which any link carries.
fn check_packet_rate(app: &str, size: u32, rate: super::spec::Rate, errs: &mut ScenarioError) {
    let bits = u128::from(size) * 8;
    if bits * 1_000_000_000 < u128::from(rate.bps()) {
        errs.push(
            format!("{app}.rate"),
            format!(
                "{} bit/s in {size}-byte packets is one packet every {:.3} ns, below the \
                 simulator's 1 ns clock step (at most {} bit/s at this size); give a rate \
                 a link can carry (e.g. \"10Mbit\")",
                rate.bps(),
                bits as f64 * 1e9 / rate.bps() as f64,
                bits * 1_000_000_000
            ),
        );
    }
}

fn check_app(label: &str, f: &super::spec::FlowSpec, errs: &mut ScenarioError) {
    let app = format!("{label}.app");
    let size_ok = |size: u32, errs: &mut ScenarioError| {
        if size == 0 {
            errs.push(format!("{app}.size"), "must be at least 1 byte");
        }
    };
    match (&f.app, &f.transport) {
        (
            AppSpec::Cbr(CbrSpec {
                size,
                rate,
                interval,
            }),
            _,
        )
        | (
            AppSpec::Poisson(PoissonSpec {
                size,
                rate,
                interval,
            }),
            _,
        ) => {
            size_ok(*size, errs);
            check_rate_or_interval(&app, *size, *rate, *interval, "1Mbit", errs);
        }
        (AppSpec::Onoff(OnoffSpec { size, on, rate, .. }), _) => {
            size_ok(*size, errs);
            check_packet_rate(&app, *size, *rate, errs);
            if on.time().0 == 0 {
                errs.push(format!("{app}.on"), "must be longer than zero");
            }
        }
        (AppSpec::Bulk(_) | AppSpec::Message(_) | AppSpec::Web(_), TransportSpec::Udp(_)) => errs.push(
            format!("{label}.transport"),
            format!(
                "a {} application needs TCP; write transport = {{ kind = \"tcp\" }}",
                f.app.kind()
            ),
        ),
        (AppSpec::Bulk(_), TransportSpec::Tcp(_)) => {}
        (AppSpec::Web(w), TransportSpec::Tcp(t)) => {
            check_web(&app, w, errs);
            if t.trace {
                errs.push(
                    format!("{label}.transport.trace"),
                    "a web flow opens a connection per object, so there is no one cwnd to trace; remove `trace` (page response times are in the flow table)",
                );
            }
        }
        (AppSpec::Voice(_) | AppSpec::Video(_), TransportSpec::Tcp(_)) => errs.push(
            format!("{label}.transport"),
            format!(
                "a {} flow runs over UDP (RTP, as D-ITG sends it); remove `transport` or write {{ kind = \"udp\" }}",
                f.app.kind()
            ),
        ),
        (AppSpec::Ping(_), TransportSpec::Tcp(_)) => errs.push(
            format!("{label}.transport"),
            "ping sends ICMP echo requests, not TCP; remove `transport`",
        ),
        (AppSpec::Voice(v), TransportSpec::Udp(_)) => {
            if v.frames_per_packet == 0 || v.frames_per_packet > 100 {
                errs.push(
                    format!("{app}.frames_per_packet"),
                    format!(
                        "{} is outside 1…100 frames of 10 ms; 2 is the usual 20-ms packet",
                        v.frames_per_packet
                    ),
                );
            }
        }
        (AppSpec::Video(v), TransportSpec::Udp(_)) => {
            size_ok(v.size, errs);
            let pps = v.packets_per_second;
            if !(pps.is_finite() && pps > 0.0 && pps <= 1e6) {
                errs.push(
                    format!("{app}.packets_per_second"),
                    format!("{pps} is not a packet rate in (0, 1e6]; seed 000 uses 10 and 45"),
                );
            }
        }
        (AppSpec::Ping(p), TransportSpec::Udp(_)) => {
            if p.interval.time().0 == 0 {
                errs.push(
                    format!("{app}.interval"),
                    "must be longer than zero; ping's default is \"1s\"",
                );
            }
        }
        (
            AppSpec::Message(MessageSpec {
                size,
                rate,
                interval,
                ..
            }),
            TransportSpec::Tcp(_),
        ) => {
            size_ok(*size, errs);
            check_rate_or_interval(&app, *size, *rate, *interval, "100kbit", errs);
        }
    }
    if let TransportSpec::Tcp(t) = &f.transport {
        check_tcp(&format!("{label}.transport"), t, errs);
    }
}

fn check_web(app: &str, w: &super::spec::WebSpec, errs: &mut ScenarioError) {
    if w.mean_size.0 == 0 {
        errs.push(
            format!("{app}.mean_size"),
            "must be at least 1 byte; seed 002 uses \"20kB\"",
        );
    }
    if !(w.shape.is_finite() && w.shape > 1.0) {
        errs.push(
            format!("{app}.shape"),
            format!(
                "{} is not a Pareto tail exponent above 1 (the mean would not exist); seed 002 uses 1.1",
                w.shape
            ),
        );
    }
    if w.aux_min > w.aux_max {
        errs.push(
            format!("{app}.aux_min"),
            format!(
                "{} exceeds aux_max ({}); the auxiliary count is uniform on [aux_min, aux_max]",
                w.aux_min, w.aux_max
            ),
        );
    }
    if w.aux_max > 1000 {
        errs.push(
            format!("{app}.aux_max"),
            format!(
                "{} auxiliary objects per page is more than 1000; lower it",
                w.aux_max
            ),
        );
    }
    if w.parallel == 0 || w.parallel > 1000 {
        errs.push(
            format!("{app}.parallel"),
            format!(
                "{} is outside 1…1000 connections at once; browsers used 4–6",
                w.parallel
            ),
        );
    }
}

fn check_tcp(path: &str, t: &super::spec::TcpSpec, errs: &mut ScenarioError) {
    if t.mss == 0 || t.mss > 65483 {
        errs.push(
            format!("{path}.mss"),
            format!(
                "{} is not a valid MSS; use 1…65483 bytes (1448 is typical)",
                t.mss
            ),
        );
    }
    if t.initial_window == 0 {
        errs.push(
            format!("{path}.initial_window"),
            "must be at least 1 segment",
        );
    }
    if let Some(ss) = t.initial_ssthresh {
        if ss < 2 {
            errs.push(
                format!("{path}.initial_ssthresh"),
                format!(
                    "{ss} is below 2 segments, the RFC 5681 minimum; remove it for \"unlimited\""
                ),
            );
        }
    }
    if let Some(init) = t.initial_rto {
        let (lo, hi) = (t.min_rto.time(), t.max_rto.time());
        if init.time().0 == 0 {
            errs.push(
                format!("{path}.initial_rto"),
                "must be longer than zero; RFC 6298 says \"1s\", Linux 2.6.23 used \"3s\"",
            );
        } else if init.time() < lo || init.time() > hi {
            errs.push(
                format!("{path}.initial_rto"),
                format!(
                    "{init} is outside [min_rto, max_rto] = [{}, {}], which bound every RTO; \
                     change it or the bound",
                    t.min_rto, t.max_rto
                ),
            );
        }
    }
    if t.min_rto.time() > t.max_rto.time() {
        errs.push(
            format!("{path}.min_rto"),
            format!("{} exceeds max_rto ({}); lower it", t.min_rto, t.max_rto),
        );
    }
    if t.max_rto.time().0 == 0 {
        errs.push(
            format!("{path}.max_rto"),
            "must be longer than zero; 64s is usual",
        );
    }
    if t.dupack_threshold == 0 {
        errs.push(
            format!("{path}.dupack_threshold"),
            "must be at least 1 (3 is RFC 5681's)",
        );
    }
    let dat = t.delayed_ack_timeout.time();
    if t.delayed_ack && (dat.0 == 0 || dat > crate::engine::SimTime::from_millis(500)) {
        errs.push(
            format!("{path}.delayed_ack_timeout"),
            format!(
                "{} is outside (0, 500ms] (RFC 5681 §4.2); 200ms is classic",
                t.delayed_ack_timeout
            ),
        );
    }
    let adv_win_scale = t.adv_win_scale.filter(|s| (-31..=31).contains(s));
    if t.adv_win_scale.is_some() && adv_win_scale.is_none() {
        errs.push(
            format!("{path}.adv_win_scale"),
            "must lie in [-31, 31], as Linux's tcp_adv_win_scale (2.6.23: 2, 6.1: 1)",
        );
    }
    // The window the buffer advertises (Linux tcp_win_from_space of the memory).
    let window = match adv_win_scale {
        Some(s) => u64::from(crate::transport::tcp::tcp_win_from_space(
            t.rcv_buffer.0.min(u32::MAX as u64) as u32,
            s,
        )),
        None => t.rcv_buffer.0,
    };
    if window < t.mss as u64 {
        errs.push(
            format!("{path}.rcv_buffer"),
            if t.adv_win_scale.is_some() {
                format!(
                    "{} advertises a window of {window} B (adv_win_scale = {}), smaller than one MSS ({} B); raise rcv_buffer",
                    t.rcv_buffer,
                    t.adv_win_scale.unwrap_or_default(),
                    t.mss
                )
            } else {
                format!(
                    "{} is smaller than one MSS ({} B); the receiver must hold at least one segment",
                    t.rcv_buffer, t.mss
                )
            },
        );
    } else if t.rcv_buffer.0 > u32::MAX as u64 {
        errs.push(
            format!("{path}.rcv_buffer"),
            "is larger than 4 GiB; lower it",
        );
    }
    if let Some(max) = t.rcv_buffer_max {
        if max.0 < t.rcv_buffer.0 {
            errs.push(
                format!("{path}.rcv_buffer_max"),
                format!(
                    "{max} is below rcv_buffer ({}); autotuning grows the buffer from rcv_buffer up to rcv_buffer_max",
                    t.rcv_buffer
                ),
            );
        } else if max.0 > u32::MAX as u64 {
            errs.push(
                format!("{path}.rcv_buffer_max"),
                "is larger than 4 GiB; lower it",
            );
        }
    }
    match (t.snd_buffer, t.snd_buffer_max) {
        (None, Some(_)) => errs.push(
            format!("{path}.snd_buffer_max"),
            "autotuning grows the send buffer from snd_buffer; set snd_buffer (Linux: \"16KiB\") or remove snd_buffer_max",
        ),
        (Some(b), max) => {
            if b.0 < t.mss as u64 {
                errs.push(
                    format!("{path}.snd_buffer"),
                    format!(
                        "{b} is smaller than one MSS ({} B); the send buffer must hold at least one segment",
                        t.mss
                    ),
                );
            } else if b.0 > u32::MAX as u64 {
                errs.push(format!("{path}.snd_buffer"), "is larger than 4 GiB; lower it");
            }
            if let Some(max) = max {
                if max.0 < b.0 {
                    errs.push(
                        format!("{path}.snd_buffer_max"),
                        format!(
                            "{max} is below snd_buffer ({b}); autotuning grows the send buffer from snd_buffer up to snd_buffer_max"
                        ),
                    );
                } else if max.0 > u32::MAX as u64 {
                    errs.push(
                        format!("{path}.snd_buffer_max"),
                        "is larger than 4 GiB; lower it",
                    );
                }
            }
        }
        (None, None) => {}
    }
    if t.sack && matches!(t.variant, TcpVariant::Tahoe | TcpVariant::Reno) {
        errs.push(
            format!("{path}.sack"),
            format!(
                "SACK loss recovery (RFC 6675) runs with variant \"newreno\" or \"cubic\", not \"{}\"; change the variant or set sack = false",
                match t.variant {
                    TcpVariant::Tahoe => "tahoe",
                    _ => "reno",
                }
            ),
        );
    }
    if t.paws && !t.timestamps {
        errs.push(
            format!("{path}.paws"),
            "PAWS (RFC 7323 §5) compares timestamps; set timestamps = true or paws = false",
        );
    }
    if t.hystart && !t.timestamps {
        errs.push(
            format!("{path}.hystart"),
            "HyStart++ (RFC 9406) needs an RTT sample per ACK; set timestamps = true or hystart = false",
        );
    }
    if t.hystart && matches!(t.variant, TcpVariant::Tahoe | TcpVariant::Reno) {
        errs.push(
            format!("{path}.hystart"),
            "HyStart++ runs with variant \"newreno\" or \"cubic\"; change the variant or set hystart = false",
        );
    }
    if t.rack && !t.sack {
        errs.push(
            format!("{path}.rack"),
            "RACK (RFC 8985) detects losses from SACKed segments, as Linux runs it only with SACK; set sack = true or rack = false",
        );
    }
    for (on, key, what) in [
        (t.tlp, "tlp", "the tail loss probe (RFC 8985 §7)"),
        (t.prr, "prr", "PRR (RFC 6937)"),
        (t.frto, "frto", "F-RTO (RFC 5682)"),
    ] {
        if on && !t.rack {
            errs.push(
                format!("{path}.{key}"),
                format!("{what} is modelled in RACK's loss recovery; set rack = true (and sack = true) or {key} = false"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    /// A CBR source at 1e15 bit/s in 1000-byte packets (one every 0.008 ns) is refused at
    /// `flows.<name>.app.rate` with the numbers; it used to run at one packet per 1 ns.
    #[test]
    fn a_source_faster_than_the_clock_step_is_refused_with_the_numbers() {
        let toml = |rate: &str| {
            format!(
                "[run]\nduration = \"1s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n\
                 [[links]]\nname = \"ab\"\nbetween = [\"a\", \"b\"]\nrate = \"10Mbit\"\n\
                 [[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n\
                 app = {{ kind = \"cbr\", size = 1000, rate = \"{rate}\" }}\n"
            )
        };
        let err = crate::scenario::load_toml_str(&toml("1e15bit")).unwrap_err();
        assert_eq!(err.problems[0].path, "flows.f.app.rate", "{err}");
        assert!(err.problems[0].message.contains("0.008 ns"), "{err}");
        assert!(crate::scenario::load_toml_str(&toml("1Gbit")).is_ok());
    }

    /// A two-node scenario with one bulk TCP flow `f` whose transport table holds
    /// `transport` (the keys under test).
    fn tcp_flow_toml(transport: &str) -> String {
        format!(
            "[run]\nduration = \"1s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n\
             [[links]]\nname = \"ab\"\nbetween = [\"a\", \"b\"]\nrate = \"10Mbit\"\n\
             [[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\napp = {{ kind = \"bulk\" }}\n\
             transport = {{ kind = \"tcp\", {transport} }}\n"
        )
    }

    /// RACK needs SACK (Linux runs RACK only on SACK connections); TLP, PRR and F-RTO are
    /// modelled in RACK's recovery: each missing prerequisite is named at its key.
    #[test]
    fn rack_tlp_prr_frto_name_their_prerequisites() {
        let toml = tcp_flow_toml;
        let err = crate::scenario::load_toml_str(&toml("rack = true")).unwrap_err();
        assert_eq!(err.problems[0].path, "flows.f.transport.rack", "{err}");
        assert!(err.problems[0].message.contains("sack = true"), "{err}");
        let err = crate::scenario::load_toml_str(&toml(
            "sack = true, tlp = true, prr = true, frto = true",
        ))
        .unwrap_err();
        let paths: Vec<&str> = err.problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "flows.f.transport.tlp",
                "flows.f.transport.prr",
                "flows.f.transport.frto"
            ],
            "{err}"
        );
        assert!(crate::scenario::load_toml_str(&toml(
            "sack = true, rack = true, tlp = true, prr = true, frto = true"
        ))
        .is_ok());
    }

    /// The send buffer: autotuning needs a start, the buffer must hold a segment and the
    /// maximum must not be below the start; each problem is named at its key.
    #[test]
    fn send_buffer_keys_name_their_problems() {
        let toml = tcp_flow_toml;
        let err = crate::scenario::load_toml_str(&toml("snd_buffer_max = \"4MiB\"")).unwrap_err();
        assert_eq!(
            err.problems[0].path, "flows.f.transport.snd_buffer_max",
            "{err}"
        );
        assert!(err.problems[0].message.contains("set snd_buffer"), "{err}");
        let err = crate::scenario::load_toml_str(&toml("snd_buffer = \"1KiB\"")).unwrap_err();
        assert_eq!(
            err.problems[0].path, "flows.f.transport.snd_buffer",
            "{err}"
        );
        let err = crate::scenario::load_toml_str(&toml(
            "snd_buffer = \"64KiB\", snd_buffer_max = \"16KiB\"",
        ))
        .unwrap_err();
        assert_eq!(
            err.problems[0].path, "flows.f.transport.snd_buffer_max",
            "{err}"
        );
        assert!(crate::scenario::load_toml_str(&toml(
            "snd_buffer = \"16KiB\", snd_buffer_max = \"4MiB\""
        ))
        .is_ok());
    }
}
