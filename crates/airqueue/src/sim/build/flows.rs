//! The sixth phase of the build: the flows — each one's path checked (no route, a loop,
//! too many routers), its transport end built for the path's MTU (`endpoint.rs`), its
//! five-tuple; then the answering halves of calls.

use super::endpoint::{endpoint_of, SINK_PORT};
use super::Builder;
use crate::conf::Problem;
use crate::metrics::{FlowStats, LatencyStats};
use crate::packet::{FiveTuple, Protocol};
use crate::scenario::{FlowSpec, TransportSpec};
use crate::sim::apps::INITIAL_TTL;
use crate::sim::tcp_flow::EPHEMERAL_PORT_BASE;
use crate::sim::{Endpoint, FlowRt};
use crate::topology::{IfaceId, Routes};

impl Builder<'_> {
    /// Every flow that can run on its path (the others are problems), with the warnings
    /// about the scenario and its paths.
    pub(super) fn flows(&mut self, routes: &Routes) -> Vec<FlowRt> {
        let s = self.s;
        self.warnings = crate::sim::warnings::scenario_warnings(s);
        let duration = s.run.duration.time();
        let mut flows = Vec::with_capacity(s.flows.len());
        for (i, f) in s.flows.iter().enumerate() {
            let label = format!("flows.{}", f.name);
            let src = self.node_index[f.from.as_str()];
            let dst = self.node_index[f.to.as_str()];
            let Some(path) = self.path_of(f, &label, routes) else {
                continue;
            };
            let path_mtu = path
                .iter()
                .map(|i| self.ifaces[i.0 as usize].dev.mtu)
                .min()
                .unwrap_or(u32::MAX);
            let stop = f.stop.map(|d| d.time()).unwrap_or(duration).min(duration);
            let Some(endpoint) =
                endpoint_of(f, i, self.seed, stop, path_mtu, &label, &mut self.errs)
            else {
                continue;
            };
            let (protocol, transport, dst_port) = match endpoint {
                Endpoint::Udp(_) => (
                    Protocol::Udp,
                    f.transport.kind(),
                    f.port.unwrap_or(SINK_PORT),
                ),
                // The flow table states the stack profile a TCP flow ran ("tcp/linux-6.1").
                Endpoint::Tcp(_) => (
                    Protocol::Tcp,
                    match &f.transport {
                        TransportSpec::Tcp(t) => t.profile.map_or("tcp", |p| p.transport_label()),
                        _ => f.transport.kind(),
                    },
                    f.port.unwrap_or(SINK_PORT),
                ),
                // ICMP has no ports; the source port stands for the echo identifier.
                Endpoint::Ping(_) => (Protocol::Icmp, "icmp", 0),
                Endpoint::Real => unreachable!("real flows appear in a live run"),
            };
            flows.push(FlowRt {
                name: f.name.clone(),
                src,
                dst,
                tuple: FiveTuple {
                    src_addr: self.nodes[src.0 as usize].addr,
                    dst_addr: self.nodes[dst.0 as usize].addr,
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
        // Indices are those of the flows built: a flow without a route is not among them
        // (it is a problem already), and neither half of a call that lost one is wired.
        let built: rustc_hash::FxHashMap<&str, usize> = flows
            .iter()
            .enumerate()
            .map(|(i, g)| (g.name.as_str(), i))
            .collect();
        let calls: Vec<(usize, usize)> = s
            .flows
            .iter()
            .filter_map(|f| {
                let k = *built.get(f.answers.as_deref()?)?;
                Some((*built.get(f.name.as_str())?, k))
            })
            .collect();
        for (i, k) in calls {
            flows[k].answerers.push(i as u32);
            flows[i].awaiting_call = true;
        }
        flows
    }

    /// The interfaces flow `f` leaves by, hop by hop, with a warning for a path no packet
    /// survives; `None` (a problem) when there is no route.
    fn path_of(&mut self, f: &FlowSpec, label: &str, routes: &Routes) -> Option<Vec<IfaceId>> {
        let src = self.node_index[f.from.as_str()];
        let dst = self.node_index[f.to.as_str()];
        // A routing loop made by static routes runs (its packets end in TTL drops, as in
        // IP); only a walk that dead-ends is "no route". The MTU check then covers the
        // interfaces of the loop.
        let direct = routes.path(src, dst);
        let looped = direct.is_none();
        let path = direct.or_else(|| routes.loop_path(src, dst));
        if let Some(p) = &path {
            if looped {
                self.warnings.push(Problem::new(
                    format!("{label}.to"),
                    format!(
                        "the routes from \"{}\" to \"{}\" form a loop: every packet \
                         ends in a TTL drop; fix the [[routes]]",
                        f.from, f.to
                    ),
                ));
            } else if p.len() > usize::from(INITIAL_TTL) {
                self.warnings.push(Problem::new(
                    format!("{label}.to"),
                    format!(
                        "the path from \"{}\" to \"{}\" crosses {} routers, but a TTL of \
                         {} (RFC 1122 default) lets a packet cross at most {}: every \
                         packet will be dropped for TTL; shorten the path",
                        f.from,
                        f.to,
                        p.len() - 1,
                        INITIAL_TTL,
                        INITIAL_TTL - 1
                    ),
                ));
            }
        }
        if path.is_none() {
            self.errs.push(
                format!("{label}.to"),
                format!(
                    "no route from \"{}\" to \"{}\"; add a link (or a route) that connects them",
                    f.from, f.to
                ),
            );
        }
        path
    }
}
