//! Building a runnable network from a validated scenario.

use super::tcp_flow::{config_of, TcpApp, TcpFlow, EPHEMERAL_PORT_BASE, TCP_WIRE_HEADER_BYTES};
use super::{Endpoint, Event, FlowRt, Interface, Simulation, VirtualDev};
use crate::app::{
    video_interval, voice_packets, Pattern, PingSource, UdpSource, WebSession,
    ICMP_ECHO_HEADER_BYTES,
};
use crate::engine::{stream, EventQueue, SimTime};
use crate::link::{Impairment, P2pTransmitter};
use crate::metrics::{FlowStats, LatencyStats, QueueStats, TimeSeries};
use crate::packet::{
    FiveTuple, NodeId, PacketArena, Protocol, IPV4_HEADER_BYTES, UDP_HEADER_BYTES,
};
use crate::qdisc::classify::NameTable;
use crate::qdisc::{self, BuildCtx, DevInfo, DropSink, Qdisc};
use crate::scenario::{
    AppSpec, ArrivalDistribution, BulkSpec, CbrSpec, FlowSpec, MessageSpec, OnoffSpec, PingSpec,
    PoissonSpec, Scenario, ScenarioError, TransportSpec, VideoSpec, VoiceSpec,
};
use crate::topology::{IfaceId, Node, Routes};
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
}

impl Simulation {
    /// Builds a simulation from a scenario that has passed [`crate::scenario::validate`].
    /// Checks that need routes (reachability, MTU along the path) are done here and
    /// reported as scenario problems.
    pub fn build(s: &Scenario, mut opts: BuildOptions) -> Result<Simulation, ScenarioError> {
        let seed = opts.seed.unwrap_or(s.run.seed);
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
            })
            .collect();
        let flow_names: Vec<String> = s.flows.iter().map(|f| f.name.clone()).collect();

        // The names `match` tables may use; interfaces are two per link, in link order.
        let names = NameTable {
            flows: flow_names.clone(),
            nodes: nodes.iter().map(|n| (n.name.clone(), n.addr)).collect(),
            ifaces: s
                .links
                .iter()
                .flat_map(|l| l.between.iter().map(move |n| format!("{n}.{}", l.name)))
                .collect(),
        };

        // Interfaces: two per link, in link order.
        let qdisc_of: HashMap<&str, &crate::scenario::QdiscSpec> =
            s.qdiscs.iter().map(|q| (q.dev.as_str(), q)).collect();
        let mut ifaces: Vec<Interface> = Vec::with_capacity(s.links.len() * 2);
        let mut iface_peer: Vec<NodeId> = Vec::new();
        let mut iface_index: HashMap<String, IfaceId> = HashMap::new();
        for l in &s.links {
            for (me, peer) in [(0, 1), (1, 0)] {
                let node = node_index[l.between[me].as_str()];
                let peer_node = node_index[l.between[peer].as_str()];
                let dev_name = format!("{}.{}", l.between[me], l.name);
                let dev = DevInfo {
                    name: dev_name.clone(),
                    rate_bps: l.rate.bps(),
                    mtu: l.mtu,
                    psched_mtu: l.mtu + l.overhead.0 as u32,
                };
                let spec = qdisc_of.get(dev_name.as_str());
                let conf = spec.map(|q| q.conf.clone()).unwrap_or_default();
                let qdisc_name = spec
                    .map(|q| q.display_name().to_string())
                    .unwrap_or_else(|| dev_name.clone());
                let q = match opts
                    .qdisc_overrides
                    .iter()
                    .position(|(d, _)| *d == dev_name)
                {
                    Some(i) => opts.qdisc_overrides.swap_remove(i).1,
                    None => {
                        let b = BuildCtx {
                            dev: &dev,
                            names: &names,
                            seed,
                            path: format!("qdiscs.{qdisc_name}"),
                        };
                        // On a problem (reported in errs, so the build fails) a placeholder
                        // keeps the interface numbering intact for the remaining checks.
                        qdisc::build(&conf, &b, &mut errs)
                            .unwrap_or_else(|| Box::new(qdisc::Pfifo::new(0)))
                    }
                };
                let direction = format!("{}:{}->{}", l.name, l.between[me], l.between[peer]);
                let impairment = l
                    .impairment
                    .as_ref()
                    .map(|imp| Impairment::new(imp, seed, &direction, &flow_names));
                let id = IfaceId(ifaces.len() as u32);
                iface_index.insert(dev_name.clone(), id);
                nodes[node.0 as usize].ifaces.push(id);
                iface_peer.push(peer_node);
                ifaces.push(Interface {
                    dev,
                    qdisc_name,
                    qdisc_kind: q.kind(),
                    node,
                    peer: peer_node,
                    qdisc: q,
                    tx: P2pTransmitter::new(l.rate.bps(), l.delay.time(), l.overhead.0 as u32),
                    impairment,
                    wakeup: None,
                    stats: QueueStats::default(),
                    drops_at_last_sample: 0,
                    vdev: None,
                });
            }
        }

        // Virtual devices: their members' packets wait in the device's qdisc.
        let mut vdevs = Vec::with_capacity(s.virtual_devs.len());
        for (v, spec) in s.virtual_devs.iter().enumerate() {
            let members: Vec<IfaceId> = spec.members.iter().map(|m| iface_index[m]).collect();
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
            };
            for m in &members {
                ifaces[m.0 as usize].vdev = Some(v as u32);
            }
            let qspec = qdisc_of.get(spec.name.as_str());
            let qdisc_name = qspec
                .map(|q| q.display_name().to_string())
                .unwrap_or_else(|| spec.name.clone());
            let q = match opts
                .qdisc_overrides
                .iter()
                .position(|(d, _)| *d == spec.name)
            {
                Some(i) => opts.qdisc_overrides.swap_remove(i).1,
                None => {
                    let conf = qspec.map(|q| q.conf.clone()).unwrap_or_default();
                    let b = BuildCtx {
                        dev: &dev,
                        names: &names,
                        seed,
                        path: format!("qdiscs.{qdisc_name}"),
                    };
                    qdisc::build(&conf, &b, &mut errs)
                        .unwrap_or_else(|| Box::new(qdisc::Pfifo::new(0)))
                }
            };
            vdevs.push(VirtualDev::new(dev, qdisc_name, members, q));
        }
        for (dev, _) in &opts.qdisc_overrides {
            errs.push(
                "(build)",
                format!("qdisc override for unknown interface \"{dev}\""),
            );
        }

        let mut routes = Routes::shortest_paths(&nodes, &iface_peer);
        for r in &s.routes {
            let dev = format!("{}.{}", r.node, r.via);
            routes.set(
                node_index[r.node.as_str()],
                node_index[r.to.as_str()],
                iface_index[&dev],
            );
        }

        // Flows.
        let duration = s.run.duration.time();
        let mut flows = Vec::with_capacity(s.flows.len());
        for (i, f) in s.flows.iter().enumerate() {
            let label = format!("flows.{}", f.name);
            let src = node_index[f.from.as_str()];
            let dst = node_index[f.to.as_str()];
            // A routing loop made by static routes runs (its packets end in TTL drops, as in
            // IP); only a walk that dead-ends is "no route". The MTU check below then covers
            // the interfaces of the loop.
            let path = routes
                .path(src, dst, &iface_peer)
                .or_else(|| routes.loop_path(src, dst, &iface_peer));
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
                Endpoint::Udp(_) => (Protocol::Udp, f.transport.kind(), SINK_PORT),
                Endpoint::Tcp(_) => (Protocol::Tcp, f.transport.kind(), SINK_PORT),
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
                endpoint,
                next_seq: 0,
                stats: FlowStats::default(),
                rtt: LatencyStats::default(),
                responses: LatencyStats::default(),
                rx_bytes_at_last_sample: 0,
            });
        }
        errs.into_result()?;
        // Files are created only once the scenario is known to build.
        let capture = match &opts.capture {
            None => None,
            Some(spec) => {
                let iface_link: Vec<&str> = s
                    .links
                    .iter()
                    .flat_map(|l| [l.name.as_str(), l.name.as_str()])
                    .collect();
                let c = super::capture::Capture::open(spec, &iface_link)
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
            packets: PacketArena::new(),
            nodes,
            ifaces,
            vdevs,
            routes,
            // Reserve for the expected rows, capped: long runs grow the buffers as they go.
            timeseries: TimeSeries::with_capacity(
                samples
                    .saturating_mul(flows.len() + 3 * (s.links.len() * 2 + s.virtual_devs.len()))
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
        };
        sim.schedule_initial_events();
        Ok(sim)
    }

    fn schedule_initial_events(&mut self) {
        for i in 0..self.flows.len() {
            let first = match &mut self.flows[i].endpoint {
                Endpoint::Udp(source) => source.first(),
                Endpoint::Ping(source) => source.first(),
                Endpoint::Tcp(t) => match &mut t.app {
                    TcpApp::Bulk(_) | TcpApp::Web(_) => Some(t.start),
                    TcpApp::Message(arrivals) => arrivals.first(),
                },
            };
            if let Some(t) = first {
                self.events.schedule(t, Event::AppSend(i as u32));
            }
            // A bulk transfer stops writing at the flow's `stop` (an AppSend after its start).
            let flow = &self.flows[i];
            if let Endpoint::Tcp(t) = &flow.endpoint {
                if matches!(t.app, TcpApp::Bulk(_)) && flow.stop < self.stop {
                    self.events.schedule(flow.stop, Event::AppSend(i as u32));
                }
            }
        }
        if self.warmup.0 > 0 {
            self.events.schedule(self.warmup, Event::WarmupEnd);
        }
        self.events.schedule(self.sample_interval, Event::Sample);
        for q in &mut self.ifaces {
            q.stats.reset(SimTime::ZERO);
        }
        for d in &mut self.vdevs {
            d.stats.reset(SimTime::ZERO);
        }
    }
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
                }) => {
                    let (size, interval) = voice_packets(*codec, *frames_per_packet, *header);
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
                    return Some(Endpoint::Ping(PingSource::new(
                        *size,
                        interval.time(),
                        start,
                        stop,
                        rng(),
                    )));
                }
                AppSpec::Bulk(_) | AppSpec::Message(_) | AppSpec::Web(_) => {
                    unreachable!("validated: bulk, message and web need TCP")
                }
            };
            if !fits(size, udp_headers, key, errs) {
                return None;
            }
            Some(Endpoint::Udp(UdpSource::new(
                size,
                start,
                stop,
                pattern,
                rng(),
            )))
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
                AppSpec::Bulk(BulkSpec { bytes }) => {
                    (TcpApp::Bulk(bytes.map(|b| b.0)), index as u32, SINK_PORT)
                }
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
                    (TcpApp::Message(arrivals), index as u32, SINK_PORT)
                }
                // A web client uses a new port per connection: start in the upper half of
                // the dynamic range, away from the single ports of the other flows.
                AppSpec::Web(spec) => (
                    TcpApp::Web(Box::new(WebSession::new(spec, rng()))),
                    8192 + (index as u32 * 512) % 8192,
                    HTTP_PORT,
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
