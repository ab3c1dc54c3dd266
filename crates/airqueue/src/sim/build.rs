//! Building a runnable network from a validated scenario.

use super::far::FarEvents;
use super::tcp_flow::{config_of, TcpApp, TcpFlow, EPHEMERAL_PORT_BASE, TCP_WIRE_HEADER_BYTES};
use super::{
    Endpoint, Event, FlowRt, HookRt, Interface, RootId, RootQueue, Simulation, TimerOwner,
};
use crate::app::{
    video_interval, voice_packets, Pattern, PingSource, UdpSource, WebSession,
    ICMP_ECHO_HEADER_BYTES,
};
use crate::app::{
    AppSpec, ArrivalDistribution, BulkSpec, CbrSpec, MessageSpec, OnoffSpec, PingSpec, PoissonSpec,
    VideoSpec, VoicePhase, VoiceSpec,
};
use crate::conf::ScenarioError;
use crate::engine::{stream, EventId, EventQueue, SimTime, Timers};
use crate::hook::{HookBuild, NodeHook};
use crate::link::bluetooth::build::{build_scatternet, piconet_conf, piconet_groups};
use crate::link::wifi::build::{build_cell, capture_of, cell_rate, hearing_of};
use crate::link::{AnyMedium, Impairment, Medium, MediumBuild, P2pLink, Segment};
use crate::metrics::{FlowStats, LatencyStats, TimeSeries};
use crate::packet::{
    FiveTuple, NodeId, PacketArena, Protocol, IPV4_HEADER_BYTES, UDP_HEADER_BYTES,
};
use crate::qdisc::classify::NameTable;
use crate::qdisc::{self, BuildCtx, DevInfo, DropSink, Qdisc};
use crate::scenario::{FlowSpec, Scenario, TransportSpec};
use crate::topology::{Hop, IfaceId, Node, PortRef, Routes};
use rand::Rng;
use std::collections::HashMap;

/// First IPv4 address handed out (10.0.0.1).
const BASE_ADDR: u32 = 0x0A00_0001;
/// Destination port of every flow's sink (iperf's classic port).
const SINK_PORT: u16 = 5001;
/// Port of a web flow's server.
const HTTP_PORT: u16 = 80;

/// Test and extension hooks: components that replace what the scenario would build.
#[derive(Default)]
pub struct BuildOptions {
    /// Overrides the run seed of the scenario.
    pub seed: Option<u64>,
    /// Replaces the qdisc of an interface (by `<node>.<link>`) or of a virtual device (by
    /// its name) with a given one.
    pub qdisc_overrides: Vec<(String, Box<dyn Qdisc>)>,
    /// Writes a pcap file per named link (see [`super::capture`]); off when `None`.
    pub capture: Option<super::CaptureSpec>,
    /// Node hooks to attach, by node name, in order (tests; the systems that use hooks add
    /// their scenario keys).
    pub hooks: Vec<(String, Box<dyn NodeHook>)>,
    /// Replaces the medium of a link or segment (by name) with one a factory builds from
    /// its ports' (interface, node) pairs (tests of the medium contract).
    pub media: Vec<(String, MediumFactory)>,
    /// Memory budget in bytes (`--max-memory`); `None`: [`super::budget::default_max_memory`].
    pub max_memory: Option<u64>,
}

/// Builds a medium from its ports' (interface, node) pairs, in port order.
pub type MediumFactory = Box<dyn FnOnce(&[(IfaceId, NodeId)]) -> Box<dyn Medium>>;

impl Simulation {
    /// Builds a simulation from a scenario that has passed [`crate::scenario::validate`].
    /// Checks that need routes (reachability, MTU along the path) are done here and
    /// reported as scenario problems.
    pub fn build(s: &Scenario, mut opts: BuildOptions) -> Result<Simulation, ScenarioError> {
        let seed = opts.seed.unwrap_or(s.run.seed);
        // Refuse what cannot fit before allocating per-flow state; the time series is
        // checked once the queues and classes are known (end of build).
        let budget = opts
            .max_memory
            .unwrap_or_else(super::budget::default_max_memory);
        let interval_text = s.run.sample_interval.to_string();
        let flows_only = super::budget::Estimate {
            flows: s.flows.len() as u64,
            series_rows: 0,
        };
        super::budget::check(&flows_only, budget, &interval_text)?;
        let mut errs = ScenarioError::default();
        let node_index: HashMap<&str, NodeId> = s
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.as_str(), NodeId(i as u32)))
            .collect();
        let mut nodes: Vec<Node> = s
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| Node {
                name: n.name.clone(),
                addr: BASE_ADDR + i as u32,
                ifaces: Vec::new(),
                hooks: Vec::new(),
            })
            .collect();
        let flow_names: Vec<String> = s.flows.iter().map(|f| f.name.clone()).collect();

        // Interfaces, in medium order: two per link (link order), then one per node of
        // each segment. `media_ends[m]` lists medium m's (interface, node) per port.
        struct MediumPlan {
            rate_bps: u64,
            /// An asymmetric link's rate from its second end (`reverse.rate`).
            reverse_rate_bps: Option<u64>,
            mtu: u32,
            overhead: u32,
            link_header: u32,
            ends: Vec<(IfaceId, NodeId)>,
        }
        let mut plans: Vec<MediumPlan> = Vec::new();
        let mut dev_names: Vec<String> = Vec::new();
        let mut iface_medium_name: Vec<&str> = Vec::new();
        let medium_ends = s
            .links
            .iter()
            .map(|l| {
                (
                    l.name.as_str(),
                    l.between.to_vec(),
                    l.rate,
                    l.mtu,
                    l.overhead,
                    l.link_header,
                )
            })
            .chain(s.segments.iter().map(|g| {
                (
                    g.name.as_str(),
                    g.nodes.clone(),
                    g.rate,
                    g.mtu,
                    g.overhead,
                    0,
                )
            }))
            .chain(s.cells.iter().map(|c| {
                let members: Vec<String> = c.members().cloned().collect();
                // The qdiscs see the cell's highest station rate as the device rate.
                let rate = c
                    .stations
                    .iter()
                    .map(|st| cell_rate(c, st).bps())
                    .max()
                    .unwrap_or(0);
                (
                    c.name.as_str(),
                    members,
                    crate::scenario::Rate(rate),
                    c.mtu,
                    crate::scenario::Bytes(crate::link::wifi::phy::DATA_OVERHEAD_BYTES as u64),
                    0,
                )
            }))
            .chain(s.piconets.iter().map(|p| {
                let members: Vec<String> = std::iter::once(p.master.clone())
                    .chain(p.slaves.iter().cloned())
                    .collect();
                // The qdiscs see the largest allowed packet's asymmetric maximum rate.
                let conf = piconet_conf(p, SimTime::ZERO);
                let rate = conf
                    .types
                    .largest()
                    .map_or(0.0, crate::link::bluetooth::baseband::max_asymmetric_bps);
                (
                    p.name.as_str(),
                    members,
                    crate::scenario::Rate(rate as u64),
                    p.mtu,
                    crate::scenario::Bytes(u64::from(p.overhead)),
                    0,
                )
            }));
        for (name, members, rate, mtu, overhead, link_header) in medium_ends {
            let mut ends = Vec::with_capacity(members.len());
            for n in &members {
                let id = IfaceId(dev_names.len() as u32);
                dev_names.push(format!("{n}.{name}"));
                iface_medium_name.push(name);
                let node = node_index[n.as_str()];
                nodes[node.0 as usize].ifaces.push(id);
                ends.push((id, node));
            }
            plans.push(MediumPlan {
                rate_bps: rate.bps(),
                reverse_rate_bps: None,
                mtu,
                overhead: overhead.0 as u32,
                link_header,
                ends,
            });
        }

        // Links come first among the plans (link order).
        for (plan, l) in plans.iter_mut().zip(&s.links) {
            plan.reverse_rate_bps = (l.rate_from(1) != l.rate_from(0)).then(|| l.rate_from(1));
        }

        // Where each plan's ports sit, (medium, first port): links and segments are media
        // of their own; cells on one channel share one medium, their ports in cell order.
        let first_cell = s.links.len() + s.segments.len();
        let mut place: Vec<(u32, u32)> = (0..first_cell).map(|m| (m as u32, 0)).collect();
        // Per cell medium: its channel and its cells.
        let mut cell_media: Vec<(Option<u32>, Vec<usize>)> = Vec::new();
        for (k, c) in s.cells.iter().enumerate() {
            let shared = c
                .channel
                .and_then(|ch| cell_media.iter().position(|g| g.0 == Some(ch)));
            let g = shared.unwrap_or_else(|| {
                cell_media.push((c.channel, Vec::new()));
                cell_media.len() - 1
            });
            let offset: usize = cell_media[g]
                .1
                .iter()
                .map(|&j| plans[first_cell + j].ends.len())
                .sum();
            cell_media[g].1.push(k);
            place.push(((first_cell + g) as u32, offset as u32));
        }

        // Piconets are media of their own, after the cell media; piconets joined by a
        // bridge share one (a scatternet), their ports in piconet order.
        let first_piconet = first_cell + s.cells.len();
        let piconet_groups = piconet_groups(&s.piconets, &s.bridges);
        for (k, g) in piconet_groups.iter().enumerate() {
            let offset: usize = piconet_groups[..k]
                .iter()
                .zip(&plans[first_piconet..])
                .filter(|(h, _)| *h == g)
                .map(|(_, p)| p.ends.len())
                .sum();
            place.push(((first_cell + cell_media.len() + g) as u32, offset as u32));
        }

        // The names `match` tables may use.
        let names = NameTable {
            flows: flow_names.clone(),
            nodes: nodes.iter().map(|n| (n.name.clone(), n.addr)).collect(),
            ifaces: dev_names.clone(),
        };
        // The flag boards the disciplines of one node may share (seed 000's CAWN).
        let boards = qdisc::FlagBoards::default();

        // Root queues: each interface that is no member of a virtual device has its own
        // (interface order), then the virtual devices.
        let qdisc_of: HashMap<&str, &crate::scenario::QdiscSpec> =
            s.qdiscs.iter().map(|q| (q.dev.as_str(), q)).collect();
        let member_of: HashMap<&str, usize> = s
            .virtual_devs
            .iter()
            .enumerate()
            .flat_map(|(v, d)| d.members.iter().map(move |m| (m.as_str(), v)))
            .collect();
        // Members of an IMQ-mode virtual device keep a root queue of their own (the real
        // device's qdisc the IMQ device re-injects into).
        let imq_member = |name: &str| {
            member_of
                .get(name)
                .is_some_and(|&v| s.virtual_devs[v].dequeue == crate::scenario::VdevDequeue::Imq)
        };
        // Trunk members (`<node>.<medium>` at both ends) feed their trunk's device.
        let trunk_member: std::collections::HashSet<String> = s
            .trunks
            .iter()
            .flat_map(|t| {
                t.members
                    .iter()
                    .flat_map(move |m| t.between.iter().map(move |n| format!("{n}.{m}")))
            })
            .collect();
        let mut timers = Timers::new();
        let mut timer_owners = Vec::new();
        let mut roots: Vec<RootQueue> = Vec::new();
        let mut ifaces: Vec<Interface> = Vec::with_capacity(dev_names.len());
        let mut ports: Vec<PortRef> = vec![PortRef { medium: 0, port: 0 }; dev_names.len()];
        for (m, plan) in plans.iter().enumerate() {
            for (p, &(id, node)) in plan.ends.iter().enumerate() {
                ports[id.0 as usize] = PortRef {
                    medium: place[m].0,
                    port: place[m].1 + p as u32,
                };
                let name = dev_names[id.0 as usize].clone();
                let dev = DevInfo {
                    stab: stab_of(&qdisc_of, &name),
                    name,
                    rate_bps: match (p, plan.reverse_rate_bps) {
                        (1, Some(r)) => r,
                        _ => plan.rate_bps,
                    },
                    mtu: plan.mtu,
                    psched_mtu: plan.mtu + plan.overhead,
                    link_header: plan.link_header,
                };
                let root = if (member_of.contains_key(dev.name.as_str())
                    && !imq_member(dev.name.as_str()))
                    || trunk_member.contains(dev.name.as_str())
                {
                    RootId::MAX // set with the virtual devices and trunks below
                } else {
                    let r = roots.len() as RootId;
                    let (name, q) = root_qdisc(
                        &dev,
                        &qdisc_of,
                        (&names, &boards),
                        seed,
                        &mut opts,
                        &mut errs,
                    );
                    let wakeup = timers.add();
                    timer_owners.push(TimerOwner::Root(r));
                    let port = ports[id.0 as usize];
                    roots.push(RootQueue::new(
                        dev.clone(),
                        name,
                        q,
                        vec![id],
                        false,
                        port,
                        wakeup,
                    ));
                    r
                };
                ifaces.push(Interface {
                    dev,
                    node,
                    root,
                    tx_root: root,
                });
            }
        }
        let iface_index: HashMap<&str, IfaceId> = dev_names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), IfaceId(i as u32)))
            .collect();
        for spec in &s.virtual_devs {
            let members: Vec<IfaceId> = spec
                .members
                .iter()
                .map(|m| iface_index[m.as_str()])
                .collect();
            let member_devs: Vec<&DevInfo> =
                members.iter().map(|m| &ifaces[m.0 as usize].dev).collect();
            let dev = DevInfo {
                name: spec.name.clone(),
                rate_bps: member_devs.iter().map(|d| d.rate_bps).sum(),
                mtu: member_devs.iter().map(|d| d.mtu).max().unwrap_or(1500),
                psched_mtu: member_devs
                    .iter()
                    .map(|d| d.psched_mtu)
                    .max()
                    .unwrap_or(1514),
                link_header: member_devs.iter().map(|d| d.link_header).max().unwrap_or(0),
                stab: stab_of(&qdisc_of, &spec.name),
            };
            let r = roots.len() as RootId;
            let imq = spec.dequeue == crate::scenario::VdevDequeue::Imq;
            for m in &members {
                let i = &mut ifaces[m.0 as usize];
                i.root = r;
                if !imq {
                    i.tx_root = r;
                }
            }
            let (name, q) = root_qdisc(
                &dev,
                &qdisc_of,
                (&names, &boards),
                seed,
                &mut opts,
                &mut errs,
            );
            let wakeup = timers.add();
            timer_owners.push(TimerOwner::Root(r));
            let port = ports[members[0].0 as usize];
            let mut root = RootQueue::new(dev, name, q, members, true, port, wakeup);
            root.imq = imq;
            roots.push(root);
        }
        // Trunks (seed 004): at each end a device over the node's member interfaces whose
        // root qdisc is the trunk sender, asked by idle members in round-robin order; the
        // receivers are hooks, attached below.
        let mut trunk_receivers = Vec::new();
        for t in &s.trunks {
            for (me, peer) in [(0, 1), (1, 0)] {
                let node = &t.between[me];
                let members: Vec<IfaceId> = t
                    .members
                    .iter()
                    .map(|m| iface_index[format!("{node}.{m}").as_str()])
                    .collect();
                let member_devs: Vec<&DevInfo> =
                    members.iter().map(|m| &ifaces[m.0 as usize].dev).collect();
                let dev = DevInfo {
                    name: format!("{node}.{}", t.name),
                    rate_bps: member_devs.iter().map(|d| d.rate_bps).sum(),
                    mtu: member_devs.iter().map(|d| d.mtu).max().unwrap_or(1500),
                    psched_mtu: member_devs
                        .iter()
                        .map(|d| d.psched_mtu)
                        .max()
                        .unwrap_or(1514),
                    link_header: member_devs.iter().map(|d| d.link_header).max().unwrap_or(0),
                    stab: None,
                };
                let r = roots.len() as RootId;
                for m in &members {
                    ifaces[m.0 as usize].root = r;
                    ifaces[m.0 as usize].tx_root = r;
                }
                let peer_id = node_index[t.between[peer].as_str()];
                // The receiver of what `node` sends sits on the peer.
                let peer_members: Vec<IfaceId> = t
                    .members
                    .iter()
                    .map(|m| iface_index[format!("{}.{m}", t.between[peer]).as_str()])
                    .collect();
                let (q, receiver) = trunk_direction(
                    t,
                    me,
                    (node_index[node.as_str()], peer_id),
                    &members,
                    peer_members,
                );
                trunk_receivers.extend(receiver);
                let wakeup = timers.add();
                timer_owners.push(TimerOwner::Root(r));
                let port = ports[members[0].0 as usize];
                let mut root = RootQueue::new(
                    dev.clone(),
                    dev.name.clone(),
                    q,
                    members,
                    true,
                    port,
                    wakeup,
                );
                root.round_robin = Some(0);
                roots.push(root);
            }
        }
        for (dev, _) in &opts.qdisc_overrides {
            errs.push(
                "(build)",
                format!("qdisc override for unknown interface \"{dev}\""),
            );
        }

        // The media. A link's impairment acts on each direction with streams of its own.
        let mut media: Vec<AnyMedium> = Vec::with_capacity(plans.len());
        for (l, plan) in s.links.iter().zip(&plans) {
            let direction =
                |me: usize| format!("{}:{}->{}", l.name, l.between[me], l.between[1 - me]);
            // A link whose impairment the timeline changes gets one (doing nothing until
            // then) even when it starts without.
            let none = crate::scenario::ImpairmentSpec::default();
            let changed = s.at.iter().any(|a| {
                a.link
                    .as_ref()
                    .is_some_and(|c| c.name == l.name && c.impairment.is_some())
            });
            let imp = |me: usize| {
                let spec = l.impairment_from(me).or(changed.then_some(&none));
                spec.map(|imp| Impairment::new(imp, seed, &direction(me), &flow_names))
            };
            media.push(AnyMedium::P2p(P2pLink::new(
                l.name.clone(),
                [l.rate_from(0), l.rate_from(1)],
                [l.delay_from(0).time(), l.delay_from(1).time()],
                plan.overhead,
                [plan.ends[0], plan.ends[1]],
                [imp(0), imp(1)],
            )));
        }
        for (g, plan) in s.segments.iter().zip(&plans[s.links.len()..]) {
            media.push(AnyMedium::Dyn(Box::new(Segment::new(
                g.name.clone(),
                plan.rate_bps,
                g.delay.time(),
                plan.overhead,
                &plan.ends,
            ))));
        }
        // The shared spectrum, if any: its members' radios are attached as they are built.
        let mut air = s
            .spectrum
            .as_ref()
            .map(|sp| crate::link::air::build::SpectrumBuild::new(sp, seed));
        for (_, members) in &cell_media {
            let bsses: Vec<(&crate::scenario::CellSpec, &[(IfaceId, NodeId)])> = members
                .iter()
                .map(|&k| (&s.cells[k], plans[first_cell + k].ends.as_slice()))
                .collect();
            let mut cell = build_cell(&bsses, &dev_names, seed, s.run.warmup.time());
            if let Some(pr) = &s.propagation {
                let mut at: Vec<(&str, Option<&crate::scenario::CellStationSpec>)> = Vec::new();
                for &(c, ends) in &bsses {
                    for (p, &(_, n)) in ends.iter().enumerate() {
                        let st = match c.ap {
                            Some(_) => (p > 0).then(|| &c.stations[p - 1]),
                            None => Some(&c.stations[p]),
                        };
                        at.push((nodes[n.0 as usize].name.as_str(), st));
                    }
                }
                if let Some((map, auto_snr)) = hearing_of(pr, &at) {
                    cell.set_hearing(map, auto_snr);
                }
            }
            if bsses[0].0.capture == crate::scenario::spec::CaptureKind::Sinr {
                cell.set_capture(capture_of(bsses[0].0, s.propagation.as_ref()), seed);
            }
            if let Some(sp) = air.as_mut() {
                let c = bsses[0].0;
                let at: Vec<&str> = bsses
                    .iter()
                    .flat_map(|b| b.1.iter())
                    .map(|&(_, n)| nodes[n.0 as usize].name.as_str())
                    .collect();
                let names: Vec<&str> = bsses.iter().map(|b| b.0.name.as_str()).collect();
                if let Some(a) = sp.cell(&names, c.channel, &at) {
                    cell.attach_air(a);
                }
            }
            media.push(AnyMedium::Dyn(Box::new(cell)));
        }
        let groups = piconet_groups.iter().copied().max().map_or(0, |g| g + 1);
        for g in 0..groups {
            let mut members = Vec::new();
            for (k, p) in s.piconets.iter().enumerate() {
                if piconet_groups[k] != g {
                    continue;
                }
                let mut piconet = crate::link::bluetooth::Piconet::new(
                    p.name.clone(),
                    piconet_conf(p, s.run.warmup.time()),
                    &plans[first_piconet + k].ends,
                    seed,
                    &p.slaves,
                );
                if let Some(a) = air.as_mut().and_then(|sp| sp.piconet(p)) {
                    piconet.attach_air(a);
                }
                members.push((p, piconet));
            }
            let bridge = s
                .bridges
                .iter()
                .find(|b| members.iter().any(|(p, _)| b.piconets.contains(&p.name)));
            match bridge {
                None => {
                    for (_, piconet) in members {
                        media.push(AnyMedium::Dyn(Box::new(piconet)));
                    }
                }
                Some(b) => media.push(AnyMedium::Dyn(Box::new(build_scatternet(
                    b,
                    members,
                    seed,
                    s.run.warmup.time(),
                )))),
            }
        }
        for (name, factory) in std::mem::take(&mut opts.media) {
            match media.iter().position(|m| m.get().name() == name) {
                Some(m) => {
                    let ends: Vec<(IfaceId, NodeId)> = plans
                        .iter()
                        .zip(&place)
                        .filter(|(_, pl)| pl.0 as usize == m)
                        .flat_map(|(p, _)| p.ends.iter().copied())
                        .collect();
                    media[m] = AnyMedium::Dyn(factory(&ends))
                }
                None => errs.push(
                    "(build)",
                    format!("medium override for unknown link \"{name}\""),
                ),
            }
        }
        for (m, medium) in media.iter_mut().enumerate() {
            medium.get_mut().attach(&mut MediumBuild {
                medium: m as u32,
                timers: &mut timers,
                owners: &mut timer_owners,
            });
        }

        // Hooks given by the caller (scenario keys for them come with the systems that use
        // them).
        let mut hooks = Vec::with_capacity(opts.hooks.len());
        for (node_name, mut hook) in std::mem::take(&mut opts.hooks) {
            let Some(&node) = node_index.get(node_name.as_str()) else {
                errs.push("(build)", format!("hook for unknown node \"{node_name}\""));
                continue;
            };
            let h = hooks.len() as u32;
            hook.attach(&mut HookBuild {
                hook: h,
                timers: &mut timers,
                owners: &mut timer_owners,
            });
            nodes[node.0 as usize].hooks.push(h);
            hooks.push(HookRt { node, hook });
        }

        // Trunk receivers, in trunk order (a→b's on b, then b→a's on a; a JKM sender's
        // ACK hook after its direction's receiver).
        for (node, mut hook) in trunk_receivers {
            let h = hooks.len() as u32;
            hook.attach(&mut HookBuild {
                hook: h,
                timers: &mut timers,
                owners: &mut timer_owners,
            });
            nodes[node.0 as usize].hooks.push(h);
            hooks.push(HookRt { node, hook });
        }

        // Hooks the root qdiscs ask for on their node (dfq's RTT detector), after the
        // caller's, in root order.
        for r in &roots {
            let Some(&first) = r.members.first() else {
                continue;
            };
            let node = ifaces[first.0 as usize].node;
            let n = &nodes[node.0 as usize];
            let Some(mut hook) = r.qdisc.node_hook(&n.name, n.addr, first.0) else {
                continue;
            };
            let h = hooks.len() as u32;
            hook.attach(&mut HookBuild {
                hook: h,
                timers: &mut timers,
                owners: &mut timer_owners,
            });
            nodes[node.0 as usize].hooks.push(h);
            hooks.push(HookRt { node, hook });
        }

        // Routes over the neighbour graph.
        let adj: Vec<Vec<Hop>> = nodes
            .iter()
            .map(|n| {
                n.ifaces
                    .iter()
                    .flat_map(|&i| {
                        let p = ports[i.0 as usize];
                        media[p.medium as usize]
                            .get()
                            .neighbours(p.port as usize)
                            .iter()
                            .map(move |nb| Hop {
                                iface: i,
                                via: nb.node,
                            })
                    })
                    .collect()
            })
            .collect();
        let mut routes = Routes::shortest_paths(&adj);
        // A trunk end routes whatever goes to (or through) its peer over the trunk (seed 004
        // §3.2: "a routing entry that specifies the trunk interface as the outgoing
        // interface"): its first member, whose packets enter the trunk device. Static
        // routes below still override.
        for t in &s.trunks {
            for (me, peer) in [(0, 1), (1, 0)] {
                let (a, b) = (
                    node_index[t.between[me].as_str()],
                    node_index[t.between[peer].as_str()],
                );
                let iface = iface_index[format!("{}.{}", t.between[me], t.members[0]).as_str()];
                for d in 0..nodes.len() {
                    let d = NodeId(d as u32);
                    if d != a && routes.next_hop(a, d).is_some_and(|h| h.via == b) {
                        routes.set(a, d, Hop { iface, via: b });
                    }
                }
            }
        }
        for r in &s.routes {
            let iface = iface_index[format!("{}.{}", r.node, r.via).as_str()];
            let p = ports[iface.0 as usize];
            let via = match &r.next_hop {
                Some(h) => node_index[h.as_str()],
                None => media[p.medium as usize].get().neighbours(p.port as usize)[0].node,
            };
            routes.set(
                node_index[r.node.as_str()],
                node_index[r.to.as_str()],
                Hop { iface, via },
            );
        }

        // Flows.
        let mut warnings = super::warnings::scenario_warnings(s);
        let duration = s.run.duration.time();
        let mut flows = Vec::with_capacity(s.flows.len());
        for (i, f) in s.flows.iter().enumerate() {
            let label = format!("flows.{}", f.name);
            let src = node_index[f.from.as_str()];
            let dst = node_index[f.to.as_str()];
            // A routing loop made by static routes runs (its packets end in TTL drops, as in
            // IP); only a walk that dead-ends is "no route". The MTU check below then covers
            // the interfaces of the loop.
            let direct = routes.path(src, dst);
            let looped = direct.is_none();
            let path = direct.or_else(|| routes.loop_path(src, dst));
            if let Some(p) = &path {
                if looped {
                    warnings.push(crate::scenario::Problem::new(
                        format!("{label}.to"),
                        format!(
                            "the routes from \"{}\" to \"{}\" form a loop: every packet \
                             ends in a TTL drop; fix the [[routes]]",
                            f.from, f.to
                        ),
                    ));
                } else if p.len() > usize::from(super::apps::INITIAL_TTL) {
                    warnings.push(crate::scenario::Problem::new(
                        format!("{label}.to"),
                        format!(
                            "the path from \"{}\" to \"{}\" crosses {} routers, but a TTL of \
                             {} (RFC 1122 default) lets a packet cross at most {}: every \
                             packet will be dropped for TTL; shorten the path",
                            f.from,
                            f.to,
                            p.len() - 1,
                            super::apps::INITIAL_TTL,
                            super::apps::INITIAL_TTL - 1
                        ),
                    ));
                }
            }
            let Some(path) = path else {
                errs.push(
                    format!("{label}.to"),
                    format!("no route from \"{}\" to \"{}\"; add a link (or a route) that connects them", f.from, f.to),
                );
                continue;
            };
            let path_mtu = path
                .iter()
                .map(|i| ifaces[i.0 as usize].dev.mtu)
                .min()
                .unwrap_or(u32::MAX);
            let stop = f.stop.map(|d| d.time()).unwrap_or(duration).min(duration);
            let Some(endpoint) = endpoint_of(f, i, seed, stop, path_mtu, &label, &mut errs) else {
                continue;
            };
            let (protocol, transport, dst_port) = match endpoint {
                Endpoint::Udp(_) => (
                    Protocol::Udp,
                    f.transport.kind(),
                    f.port.unwrap_or(SINK_PORT),
                ),
                Endpoint::Tcp(_) => (
                    Protocol::Tcp,
                    f.transport.kind(),
                    f.port.unwrap_or(SINK_PORT),
                ),
                // ICMP has no ports; the source port stands for the echo identifier.
                Endpoint::Ping(_) => (Protocol::Icmp, "icmp", 0),
            };
            flows.push(FlowRt {
                name: f.name.clone(),
                src,
                dst,
                tuple: FiveTuple {
                    src_addr: nodes[src.0 as usize].addr,
                    dst_addr: nodes[dst.0 as usize].addr,
                    src_port: EPHEMERAL_PORT_BASE + (i % 16384) as u16,
                    dst_port,
                    protocol,
                },
                dscp: f.dscp,
                priority: f
                    .priority
                    .unwrap_or_else(|| crate::qdisc::rt_tos2priority(f.dscp)),
                transport,
                app: f.app.kind(),
                from: f.from.clone(),
                to: f.to.clone(),
                start: f.start.time(),
                stop,
                traced: matches!(&endpoint, Endpoint::Tcp(t) if t.trace),
                endpoint,
                next_seq: 0,
                stats: FlowStats::default(),
                rtt: LatencyStats::default(),
                responses: LatencyStats::default(),
                pages: Vec::new(),
                rx_bytes_at_last_sample: 0,
                app_event: None,
                app_paused: false,
                answerers: Vec::new(),
                awaiting_call: false,
            });
        }
        // `answers`: the answering half of a call waits for the first packet of its call.
        for (i, f) in s.flows.iter().enumerate() {
            if let Some(k) = f
                .answers
                .as_ref()
                .and_then(|a| flow_names.iter().position(|n| n == a))
            {
                flows[k].answerers.push(i as u32);
                flows[i].awaiting_call = true;
            }
        }
        let timeline = super::timeline::build_timeline(
            s,
            &media,
            &roots,
            &flow_names,
            &names,
            seed,
            &mut errs,
        );
        errs.into_result()?;
        // Files are created only once the scenario is known to build.
        let capture = match &opts.capture {
            None => None,
            Some(spec) => {
                let c = super::capture::Capture::open(spec, &iface_medium_name)
                    .map_err(|(path, message)| ScenarioError::single(path, message))?;
                Some(Box::new(c))
            }
        };

        let sample_interval = s.run.sample_interval.time();
        let samples = (duration.0 / sample_interval.0.max(1)) as usize + 1;
        let mut sim = Simulation {
            now: SimTime::ZERO,
            stop: duration,
            warmup: s.run.warmup.time(),
            sample_interval,
            seed,
            events: EventQueue::with_capacity(1024),
            timers,
            timer_owners,
            far: Default::default(),
            packets: PacketArena::new(),
            nodes,
            ifaces,
            ports,
            hot: Vec::new(),
            media,
            roots,
            hooks,
            routes,
            // Reserve for the expected rows, capped: long runs grow the buffers as they go.
            timeseries: TimeSeries::with_capacity(
                samples
                    .saturating_mul(flows.len() + 3 * (dev_names.len() + s.virtual_devs.len()))
                    .min(1 << 20),
            ),
            flows,
            class_samples: Vec::new(),
            class_at_last_sample: Vec::new(),
            drops: DropSink::new(),
            ledger: Default::default(),
            last_sample: SimTime::ZERO,
            wall_seconds: 0.0,
            capture,
            scratch_sizes: Vec::new(),
            link_fx: Vec::with_capacity(16),
            hook_fx: Vec::new(),
            timeline,
            estimate: Default::default(),
            warnings: Vec::new(),
        };
        sim.hot = sim.hot_ifaces();
        sim.estimate = sim.estimate_resources();
        super::budget::check(&sim.estimate, budget, &interval_text)?;
        if let Some(w) = super::budget::large(&sim.estimate, budget) {
            warnings.push(w);
        }
        sim.warnings = super::warnings::capped(warnings);
        sim.schedule_initial_events();
        Ok(sim)
    }

    fn schedule_initial_events(&mut self) {
        for m in 0..self.media.len() {
            self.with_medium(m as u32, |md, cx| md.get_mut().start(cx));
        }
        let mut far: Vec<(SimTime, EventId, Event)> = Vec::new();
        for i in 0..self.flows.len() {
            if self.flows[i].awaiting_call {
                continue; // starts when its call arrives
            }
            let first = match &mut self.flows[i].endpoint {
                Endpoint::Udp(source) => source.first(),
                Endpoint::Ping(source) => source.first(),
                Endpoint::Tcp(t) => match &mut t.app {
                    TcpApp::Bulk(_) | TcpApp::Web(_) => Some(t.start),
                    TcpApp::Message(arrivals) => arrivals.first(),
                },
            };
            if let Some(t) = first {
                let id = self.events.reserve();
                far.push((t, id, Event::AppSend(i as u32)));
                self.flows[i].app_event = Some(id);
            }
            // A bulk transfer stops writing at the flow's `stop` (an AppSend after its start).
            let flow = &self.flows[i];
            if let Endpoint::Tcp(t) = &flow.endpoint {
                if matches!(t.app, TcpApp::Bulk(_)) && flow.stop < self.stop {
                    far.push((flow.stop, self.events.reserve(), Event::AppSend(i as u32)));
                }
            }
        }
        if self.warmup.0 > 0 {
            far.push((self.warmup, self.events.reserve(), Event::WarmupEnd));
        }
        self.events.schedule(self.sample_interval, Event::Sample);
        for q in &mut self.roots {
            q.stats.reset(SimTime::ZERO);
        }
        // Flows' starts and stops, the warm-up's end and the timeline's changes wait
        // outside the event queue until each is the earliest of them (`sim::far`),
        // numbered here, where they were met.
        self.timeline_events(&mut far);
        self.far = FarEvents::new(far, &mut self.events);
    }
}

/// The size table of the root qdisc on device `dev`, if its `[[qdiscs]]` entry has `stab`.
fn stab_of(
    qdisc_of: &HashMap<&str, &crate::scenario::QdiscSpec>,
    dev: &str,
) -> Option<std::sync::Arc<qdisc::SizeTable>> {
    let spec = qdisc_of.get(dev)?.stab.as_ref()?;
    Some(std::sync::Arc::new(qdisc::SizeTable::new(spec)))
}

/// The root qdisc of device `dev`: an override given by the caller, or what the scenario's
/// `[[qdiscs]]` entry for it says (pfifo by default), with its display name.
fn root_qdisc(
    dev: &DevInfo,
    qdisc_of: &HashMap<&str, &crate::scenario::QdiscSpec>,
    (names, boards): (&NameTable, &qdisc::FlagBoards),
    seed: u64,
    opts: &mut BuildOptions,
    errs: &mut ScenarioError,
) -> (String, Box<dyn Qdisc>) {
    let spec = qdisc_of.get(dev.name.as_str());
    let name = spec
        .map(|q| q.display_name().to_string())
        .unwrap_or_else(|| dev.name.clone());
    if let Some(i) = opts
        .qdisc_overrides
        .iter()
        .position(|(d, _)| *d == dev.name)
    {
        return (name, opts.qdisc_overrides.swap_remove(i).1);
    }
    let conf = spec.map(|q| q.conf.clone()).unwrap_or_default();
    let b = BuildCtx {
        dev,
        names,
        seed,
        path: format!("qdiscs.{name}"),
        boards: Some(boards),
    };
    // On a problem (reported in errs, so the build fails) a placeholder keeps the
    // numbering intact for the remaining checks.
    let q = qdisc::build(&conf, &b, errs).unwrap_or_else(|| Box::new(qdisc::Pfifo::new(0)));
    (name, q)
}

/// The mean interval of a source given as `rate` or `interval` (validated: exactly one).
fn interval_of(
    size: u32,
    rate: Option<crate::scenario::Rate>,
    interval: Option<crate::scenario::Duration>,
) -> SimTime {
    match (rate, interval) {
        (_, Some(i)) => i.time(),
        (Some(r), None) => SimTime::transmission(size as u64, r.bps()),
        (None, None) => unreachable!("validated: rate or interval"),
    }
}

/// Builds the transport end of a flow, or records why it cannot run on its path.
fn endpoint_of(
    f: &FlowSpec,
    index: usize,
    seed: u64,
    stop: SimTime,
    path_mtu: u32,
    label: &str,
    errs: &mut ScenarioError,
) -> Option<Endpoint> {
    let rng = || stream(seed, &format!("flow:{}", f.name));
    let start = f.start.time();
    let fits = |payload: u32, headers: u32, key: &str, errs: &mut ScenarioError| {
        if payload as u64 + headers as u64 > path_mtu as u64 {
            errs.push(
                format!("{label}.{key}"),
                format!(
                    "{payload} B of payload + {headers} B of headers exceed the path MTU ({path_mtu} B); use at most {} (airqueue does not fragment)",
                    path_mtu.saturating_sub(headers)
                ),
            );
            return false;
        }
        true
    };
    let udp_headers = IPV4_HEADER_BYTES + UDP_HEADER_BYTES;
    match &f.transport {
        TransportSpec::Udp(_) => {
            // A voice source's offset of its first packet (`phase = "random"`).
            let mut phase = SimTime::ZERO;
            let (pattern, size, key) = match &f.app {
                AppSpec::Cbr(CbrSpec {
                    size,
                    rate,
                    interval,
                }) => (
                    Pattern::Cbr {
                        interval: interval_of(*size, *rate, *interval),
                    },
                    *size,
                    "app.size",
                ),
                AppSpec::Poisson(PoissonSpec {
                    size,
                    rate,
                    interval,
                }) => (
                    UdpSource::poisson(interval_of(*size, *rate, *interval)),
                    *size,
                    "app.size",
                ),
                AppSpec::Onoff(OnoffSpec {
                    size,
                    rate,
                    on,
                    off,
                    distribution,
                }) => (
                    Pattern::OnOff {
                        interval: SimTime::transmission(*size as u64, rate.bps()),
                        on_mean: on.time(),
                        off_mean: off.time(),
                        distribution: *distribution,
                        on_until: SimTime::ZERO,
                    },
                    *size,
                    "app.size",
                ),
                AppSpec::Voice(VoiceSpec {
                    codec,
                    frames_per_packet,
                    header,
                    phase: voice_phase,
                }) => {
                    let (size, interval) = voice_packets(*codec, *frames_per_packet, *header);
                    if *voice_phase == VoicePhase::Random {
                        let mut r = stream(seed, &format!("flow:{}:phase", f.name));
                        phase = SimTime(r.random_range(0..interval.0.max(1)));
                    }
                    (Pattern::Cbr { interval }, size, "app.frames_per_packet")
                }
                AppSpec::Video(VideoSpec {
                    packets_per_second,
                    size,
                }) => (
                    Pattern::Cbr {
                        interval: video_interval(*packets_per_second),
                    },
                    *size,
                    "app.size",
                ),
                AppSpec::Ping(PingSpec { size, interval }) => {
                    if !fits(
                        *size,
                        IPV4_HEADER_BYTES + ICMP_ECHO_HEADER_BYTES,
                        "app.size",
                        errs,
                    ) {
                        return None;
                    }
                    return Some(Endpoint::Ping(Box::new(PingSource::new(
                        *size,
                        interval.time(),
                        start,
                        stop,
                        rng(),
                    ))));
                }
                AppSpec::Bulk(_) | AppSpec::Message(_) | AppSpec::Web(_) => {
                    unreachable!("validated: bulk, message and web need TCP")
                }
            };
            if !fits(size, udp_headers, key, errs) {
                return None;
            }
            Some(Endpoint::Udp(Box::new(UdpSource::new(
                size,
                start + phase,
                stop,
                pattern,
                rng(),
            ))))
        }
        TransportSpec::Tcp(t) => {
            if !fits(t.mss, TCP_WIRE_HEADER_BYTES, "transport.mss", errs) {
                return None;
            }
            let web = matches!(f.app, AppSpec::Web(_));
            let cfg = config_of(t, web);
            if let Err(e) = cfg.validate() {
                errs.push(format!("{label}.transport"), e.to_string());
                return None;
            }
            let (app, first_port, server_port) = match &f.app {
                AppSpec::Bulk(BulkSpec { bytes }) => (
                    TcpApp::Bulk(bytes.map(|b| b.0)),
                    index as u32,
                    f.port.unwrap_or(SINK_PORT),
                ),
                AppSpec::Message(MessageSpec {
                    size,
                    rate,
                    interval,
                    distribution,
                }) => {
                    let iv = interval_of(*size, *rate, *interval);
                    let pattern = match distribution {
                        ArrivalDistribution::Poisson => UdpSource::poisson(iv),
                        ArrivalDistribution::Constant => Pattern::Cbr { interval: iv },
                    };
                    let arrivals = UdpSource::new(*size, start, stop, pattern, rng());
                    (
                        TcpApp::Message(arrivals),
                        index as u32,
                        f.port.unwrap_or(SINK_PORT),
                    )
                }
                // A web client uses a new port per connection: start in the upper half of
                // the dynamic range, away from the single ports of the other flows.
                AppSpec::Web(spec) => (
                    TcpApp::Web(Box::new(WebSession::new(spec, rng()))),
                    8192 + (index as u32 * 512) % 8192,
                    f.port.unwrap_or(HTTP_PORT),
                ),
                other => {
                    errs.push(
                        format!("{label}.app"),
                        format!(
                            "a {} source runs over UDP; use app = {{ kind = \"bulk\" }}, \"message\" or \"web\" with TCP",
                            other.kind()
                        ),
                    );
                    return None;
                }
            };
            Some(Endpoint::Tcp(Box::new(TcpFlow::new(
                cfg,
                app,
                start,
                t.trace,
                first_port,
                server_port,
            ))))
        }
    }
}

/// One direction of trunk `t`, from `t.between[me]` to the other end (node ids `ends`):
/// the sender (the root qdisc of the trunk device over `members`) and the hooks it needs
/// (its receiver on the peer, over `peer_members`; for JKM also the ACK hook beside the
/// sender), by scheme.
#[allow(clippy::type_complexity)]
fn trunk_direction(
    t: &crate::stripe::TrunkSpec,
    me: usize,
    ends: (NodeId, NodeId),
    members: &[IfaceId],
    peer_members: Vec<IfaceId>,
) -> (Box<dyn Qdisc>, Vec<(NodeId, Box<dyn NodeHook>)>) {
    use crate::stripe::{jkm, resequencer, srr, trunk, ControlCounts, Scheme};
    use std::sync::{Arc, Mutex};
    let (from, to) = ends;
    let (node, peer) = (&t.between[me], &t.between[1 - me]);
    let counts = Arc::new(ControlCounts::default());
    match t.scheme {
        Scheme::Proposed => (
            Box::new(trunk::TrunkSender::new(t.limit, to)),
            vec![(
                to,
                Box::new(resequencer::Resequencer::new(
                    &t.name,
                    peer,
                    peer_members,
                    t.timer_conf(),
                )) as Box<dyn NodeHook>,
            )],
        ),
        Scheme::Srr => (
            Box::new(srr::SrrSender::new(
                t.limit,
                to,
                members.iter().map(|m| m.0).collect(),
                t.quantum.0 as u32,
                t.control_bytes.0 as u32,
                counts.clone(),
            )),
            vec![(
                to,
                Box::new(srr::SrrReceiver::new(
                    &t.name,
                    peer,
                    peer_members,
                    t.quantum.0 as u32,
                    counts,
                )) as Box<dyn NodeHook>,
            )],
        ),
        Scheme::Jkm => {
            let board: jkm::JkmShared = Arc::new(Mutex::new(jkm::JkmBoard::default()));
            let conf = jkm::JkmConf {
                ack_every: t.ack_every,
                nak_interval: t.nak_interval.time(),
                control_bytes: t.control_bytes.0 as u32,
            };
            (
                Box::new(trunk::TrunkSender::with_jkm(t.limit, to, board.clone())),
                vec![
                    (
                        to,
                        Box::new(jkm::JkmReceiver::new(
                            &t.name,
                            peer,
                            from,
                            peer_members,
                            conf,
                            counts.clone(),
                        )) as Box<dyn NodeHook>,
                    ),
                    (
                        from,
                        Box::new(jkm::JkmAckHook::new(
                            &t.name,
                            node,
                            members.to_vec(),
                            board,
                            counts,
                        )),
                    ),
                ],
            )
        }
    }
}
