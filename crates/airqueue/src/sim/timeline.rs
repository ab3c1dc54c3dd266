//! The timeline: `[[at]]` changes applied at exact simulated instants, through one
//! mechanism.
//!
//! Every entry becomes a [`Change`] in [`Timeline::entries`] when the simulation is built,
//! with everything resolved (the medium, the root queue, the flow) and checked: a medium
//! must accept the change ([`crate::link::Medium::check_change`]), a qdisc `change` is
//! rehearsed on a scratch copy of the discipline (same kind, parameters it accepts), and a
//! `replace` is built then, so its problems are reported with the scenario's. The run
//! schedules one [`super::Event::Change`] per entry carrying its index; entries at the same
//! instant apply in scenario order. Later kinds of change (a box inserted or bypassed, a
//! station associating or leaving, a node moving) add a [`Change`] variant and a key of
//! `[[at]]`; the event, the ordering and the summary listing stay as they are.

use super::{Endpoint, Event, RootId, Simulation};
use crate::conf::ScenarioError;
use crate::engine::{EventId, SimTime};
use crate::link::{AnyMedium, LinkChange};
use crate::packet::{DropReason, Location, NodeId, PacketId};
use crate::qdisc::classify::NameTable;
use crate::qdisc::QdiscConf;
use crate::qdisc::{self, BuildCtx, ClassReport, Qdisc};
use crate::scenario::{FlowAction, Scenario, StationAction};
use crate::topology::IfaceId;
use serde::Serialize;

/// What one timeline entry does, resolved.
pub(super) enum Change {
    /// A medium's parameters change.
    Link { medium: u32, change: LinkChange },
    /// `tc qdisc change` of root queue `root`.
    QdiscParams {
        root: RootId,
        conf: QdiscConf,
        path: String,
    },
    /// `tc qdisc replace` of root queue `root` by a discipline built before the run (taken
    /// when the change applies).
    QdiscReplace {
        root: RootId,
        qdisc: Option<Box<dyn Qdisc>>,
    },
    /// A flow's application stops, starts or restarts.
    Flow { flow: u32, action: FlowAction },
}

/// One applied change as `summary.json` lists it (and plots mark it).
#[derive(Clone, Debug, Serialize)]
pub struct TimelineRecord {
    /// When it applied, in seconds of simulated time.
    pub at_seconds: f64,
    /// `link`, `qdisc`, `flow` or `station`.
    pub kind: &'static str,
    /// The link, device or flow it changed.
    pub target: String,
    /// What changed, in words (`rate 5Mbit`, `replace fq_codel`, `stop`).
    pub what: String,
}

/// The run's timeline.
#[derive(Default)]
pub(super) struct Timeline {
    pub(super) entries: Vec<(SimTime, Change)>,
    pub(super) records: Vec<TimelineRecord>,
    /// The scenario's names, for building with the qdiscs' own code during the run.
    names: NameTable,
}

/// Resolves and checks the scenario's `[[at]]` entries against what was built.
pub(super) fn build_timeline(
    s: &Scenario,
    media: &[AnyMedium],
    roots: &[super::RootQueue],
    flow_names: &[String],
    names: &NameTable,
    seed: u64,
    errs: &mut ScenarioError,
) -> Timeline {
    let mut t = Timeline {
        names: names.clone(),
        ..Default::default()
    };
    // Scratch copies of the root qdiscs the timeline touches, to rehearse its changes in
    // time order: (root, scratch discipline).
    let mut scratch: Vec<(RootId, Box<dyn Qdisc>)> = Vec::new();
    let mut order: Vec<usize> = (0..s.at.len()).collect();
    order.sort_by_key(|&i| s.at[i].at.time()); // stable: scenario order within an instant
    for i in order {
        let a = &s.at[i];
        let label = format!("at[{i}]");
        let at = a.at.time();
        if let Some(l) = &a.link {
            let path = format!("{label}.link");
            let Some(m) = media.iter().position(|m| m.get().name() == l.name) else {
                continue; // reported by validation
            };
            let change = LinkChange {
                rate_bps: l.rate.map(|r| r.bps()),
                delay: l.delay.map(|d| d.time()),
                impairment: l.impairment.clone(),
                associate: None,
            };
            if let Err(e) = media[m].get().check_change(&change) {
                errs.push(path, e);
                continue;
            }
            let mut what = Vec::new();
            if let Some(r) = l.rate {
                what.push(format!("rate {r}"));
            }
            if let Some(d) = l.delay {
                what.push(format!("delay {d}"));
            }
            if l.impairment.is_some() {
                what.push("impairment".to_string());
            }
            t.records.push(record(at, "link", &l.name, what.join(", ")));
            t.entries.push((
                at,
                Change::Link {
                    medium: m as u32,
                    change,
                },
            ));
        }
        if let Some(q) = &a.qdisc {
            let path = format!("{label}.qdisc");
            let Some(r) = roots
                .iter()
                .position(|r| r.name == q.dev || r.dev.name == q.dev)
            else {
                continue; // reported by validation
            };
            let root = &roots[r];
            let slot = match scratch.iter().position(|(k, _)| *k == r as RootId) {
                Some(k) => k,
                None => {
                    let conf = s
                        .qdiscs
                        .iter()
                        .find(|d| d.dev == root.dev.name)
                        .map(|d| d.conf.clone())
                        .unwrap_or_default();
                    let b = BuildCtx {
                        dev: &root.dev,
                        names,
                        seed,
                        path: format!("qdiscs.{}", root.name),
                        boards: None,
                    };
                    let mut quiet = ScenarioError::default();
                    let Some(q0) = qdisc::build(&conf, &b, &mut quiet) else {
                        continue; // the root's own problem is reported by the build
                    };
                    scratch.push((r as RootId, q0));
                    scratch.len() - 1
                }
            };
            match (&q.change, &q.replace) {
                (Some(conf), None) => {
                    let path = format!("{path}.change");
                    let current = scratch[slot].1.kind();
                    if conf.kind() != current {
                        errs.push(
                            format!("{path}.kind"),
                            format!(
                                "\"{}\" is not the kind of the qdisc on \"{}\" at that time (\"{current}\"); Linux refuses a change of kind (\"Invalid qdisc name\"): use `replace`",
                                conf.kind(),
                                q.dev
                            ),
                        );
                        continue;
                    }
                    let b = BuildCtx {
                        dev: &root.dev,
                        names,
                        seed,
                        path: path.clone(),
                        boards: None,
                    };
                    let before = errs.problems.len();
                    scratch[slot].1.change(conf, &b, errs);
                    if errs.problems.len() > before {
                        continue;
                    }
                    t.records.push(record(
                        at,
                        "qdisc",
                        &q.dev,
                        format!("change {}", conf.kind()),
                    ));
                    t.entries.push((
                        at,
                        Change::QdiscParams {
                            root: r as RootId,
                            conf: conf.clone(),
                            path,
                        },
                    ));
                }
                (None, Some(conf)) => {
                    let path = format!("{path}.replace");
                    let b = BuildCtx {
                        dev: &root.dev,
                        names,
                        seed,
                        path: path.clone(),
                        boards: None,
                    };
                    let Some(new) = qdisc::build(conf, &b, errs) else {
                        continue;
                    };
                    if new.node_hook("", 0, 0).is_some() {
                        errs.push(
                            path,
                            format!(
                                "{} needs a node hook (dfq's RTT detector, adwiser's WLAN meter), attached when the simulation is built; the timeline cannot bring it in yet: put it in [[qdiscs]] (adwiser with `bypass = true`, switched in by a `change`) instead",
                                new.kind()
                            ),
                        );
                        continue;
                    }
                    // The class table and the per-class time series have one row per class
                    // for the whole run.
                    let classes = |q: &dyn Qdisc| {
                        let mut rows: Vec<ClassReport> = Vec::new();
                        q.report_classes("", "", &mut rows);
                        rows.into_iter().map(|c| c.class).collect::<Vec<_>>()
                    };
                    let (old_classes, new_classes) = (classes(&*scratch[slot].1), classes(&*new));
                    if old_classes != new_classes {
                        errs.push(
                            path,
                            format!(
                                "has the classes [{}] where the qdisc it replaces has [{}]; result tables keep one row per class for the whole run, so a replacement needs the same classes",
                                new_classes.join(", "),
                                old_classes.join(", ")
                            ),
                        );
                        continue;
                    }
                    let mut quiet = ScenarioError::default();
                    let rehearsal = qdisc::build(conf, &b, &mut quiet).expect("built once above");
                    scratch[slot].1 = rehearsal;
                    t.records.push(record(
                        at,
                        "qdisc",
                        &q.dev,
                        format!("replace {}", conf.kind()),
                    ));
                    t.entries.push((
                        at,
                        Change::QdiscReplace {
                            root: r as RootId,
                            qdisc: Some(new),
                        },
                    ));
                }
                _ => {} // reported by validation
            }
        }
        if let Some(st) = &a.station {
            let path = format!("{label}.station");
            let iface = format!("{}.{}", st.node, st.cell);
            let (Some(node), Some(ifc)) = (
                names.nodes.iter().position(|n| n.0 == st.node),
                names.ifaces.iter().position(|n| *n == iface),
            ) else {
                continue; // reported by validation
            };
            let Some(m) = media
                .iter()
                .position(|m| m.get().port_of(IfaceId(ifc as u32)).is_some())
            else {
                continue;
            };
            let join = st.action == StationAction::Join;
            let change = LinkChange {
                associate: Some((NodeId(node as u32), join)),
                ..LinkChange::default()
            };
            if let Err(e) = media[m].get().check_change(&change) {
                errs.push(path, e);
                continue;
            }
            let what = if join { "join" } else { "leave" };
            t.records
                .push(record(at, "station", &iface, what.to_string()));
            t.entries.push((
                at,
                Change::Link {
                    medium: m as u32,
                    change,
                },
            ));
        }
        if let Some(f) = &a.flow {
            let Some(k) = flow_names.iter().position(|n| *n == f.name) else {
                continue;
            };
            let what = match f.action {
                FlowAction::Stop => "stop",
                FlowAction::Start => "start",
                FlowAction::Restart => "restart",
            };
            t.records
                .push(record(at, "flow", &f.name, what.to_string()));
            t.entries.push((
                at,
                Change::Flow {
                    flow: k as u32,
                    action: f.action,
                },
            ));
        }
    }
    t
}

fn record(at: SimTime, kind: &'static str, target: &str, what: String) -> TimelineRecord {
    TimelineRecord {
        at_seconds: at.as_secs_f64(),
        kind,
        target: target.to_string(),
        what,
    }
}

impl Simulation {
    /// One `Change` event per timeline entry, numbered now (after every other initial
    /// event, so that the sequence numbers of the rest do not move), for the event queue's
    /// far list.
    pub(super) fn timeline_events(&mut self, far: &mut Vec<(SimTime, EventId, Event)>) {
        for (i, (at, _)) in self.timeline.entries.iter().enumerate() {
            far.push((*at, self.events.reserve(), Event::Change(i as u32)));
        }
    }

    /// Applies timeline entry `i`.
    pub(super) fn apply_change(&mut self, i: u32) {
        let i = i as usize;
        match &mut self.timeline.entries[i].1 {
            Change::Link { medium, change } => {
                let (m, change) = (*medium, change.clone());
                if let Some(rate) = change.rate_bps {
                    self.set_device_rates(m, rate);
                }
                self.with_medium(m, |md, cx| {
                    md.get_mut()
                        .apply(&change, cx)
                        .expect("the medium accepted this change before the run");
                });
            }
            Change::QdiscParams { root, conf, path } => {
                let (r, conf, path) = (*root, conf.clone(), path.clone());
                let q = &mut self.roots[r as usize];
                let b = BuildCtx {
                    dev: &q.dev,
                    names: &self.timeline.names,
                    seed: self.seed,
                    path,
                    boards: None,
                };
                let mut errs = ScenarioError::default();
                q.qdisc.change(&conf, &b, &mut errs);
                debug_assert!(errs.problems.is_empty(), "rehearsed before the run: {errs}");
                self.kick(r);
            }
            Change::QdiscReplace { root, qdisc } => {
                let r = *root;
                let new = qdisc.take().expect("a replacement applies once");
                self.replace_qdisc(r, new);
            }
            Change::Flow { flow, action } => {
                let (f, action) = (*flow as usize, *action);
                self.flow_action(f, action);
            }
        }
    }

    /// The interfaces of medium `m` (and the root queues they are the device of) now run
    /// at `rate`; a virtual device's rate stays the sum of its members'.
    fn set_device_rates(&mut self, m: u32, rate: u64) {
        let ports: Vec<u32> = self.media[m as usize]
            .get()
            .ports()
            .iter()
            .map(|p| p.0)
            .collect();
        for i in ports {
            self.ifaces[i as usize].dev.rate_bps = rate;
            let own = self.ifaces[i as usize].tx_root as usize;
            self.roots[own].dev.rate_bps = rate;
            let r = self.ifaces[i as usize].root as usize;
            let sum: u64 = self.roots[r]
                .members
                .iter()
                .map(|mm| self.ifaces[mm.0 as usize].dev.rate_bps)
                .sum();
            self.roots[r].dev.rate_bps = sum;
        }
    }

    /// `tc qdisc replace`: Linux's `qdisc_graft` resets the old qdisc (`qdisc_reset`, which
    /// frees every packet it holds) and attaches the new one, empty. Here the old qdisc's
    /// packets are dropped with reason `policy` (an administrative removal), counted as
    /// drops after enqueue of the root queue, so every packet stays in the ledger.
    fn replace_qdisc(&mut self, r: RootId, new: Box<dyn Qdisc>) {
        let held: Vec<PacketId> = self
            .packets
            .live_packets()
            .filter(|(_, loc)| *loc == Location::Queue(r))
            .map(|(p, _)| p)
            .collect();
        let q = &mut self.roots[r as usize];
        debug_assert_eq!(held.len(), q.qdisc.len());
        q.stats.on_drops_after_enqueue(held.len());
        q.kind = new.kind();
        q.idle_when_empty = new.idle_when_empty();
        q.qdisc = new;
        let now = self.now;
        q.stats.backlog_changed(now, 0, 0);
        for p in held {
            self.drop_packet(p, DropReason::Policy, Some(r));
        }
        let id = self.roots[r as usize].wakeup;
        self.timers.cancel(id);
        self.kick(r);
    }

    /// A flow's application stops, starts or restarts (UDP sources, ping and TCP bulk
    /// transfers; validated). `stop` cancels the pending send; `start` makes a stopped
    /// flow, or one whose `start` is still ahead, send from now on the source's pattern
    /// until the flow's `stop` (a running flow is unaffected); `restart` is both.
    fn flow_action(&mut self, f: usize, action: FlowAction) {
        if matches!(self.flows[f].endpoint, Endpoint::Tcp(_)) {
            return self.tcp_flow_action(f, action);
        }
        let now = self.now;
        let flow = &mut self.flows[f];
        if matches!(action, FlowAction::Stop | FlowAction::Restart) {
            if let Some(id) = flow.app_event.take() {
                self.far.cancel(&mut self.events, id);
            }
            flow.app_paused = true;
        }
        // A flow that has not sent yet (its `start` is ahead) starts now as well.
        let idle = flow.app_paused || flow.next_seq == 0;
        if matches!(action, FlowAction::Start | FlowAction::Restart) && idle {
            if let Some(id) = flow.app_event.take() {
                self.far.cancel(&mut self.events, id);
            }
            flow.app_paused = false;
            if now < flow.stop {
                let source = match &mut flow.endpoint {
                    Endpoint::Udp(s) => s,
                    Endpoint::Ping(p) => &mut p.schedule,
                    Endpoint::Tcp(_) | Endpoint::Real => {
                        unreachable!("validated: UDP and ping flows")
                    }
                };
                source.start = now;
                source.stop = flow.stop;
                if let Some(t) = source.first() {
                    flow.app_event = Some(self.events.schedule(t, Event::AppSend(f as u32)));
                }
            }
        }
    }

    /// Flow `f` answers its call (`answers`): its source starts now, or at its `start` if
    /// that is later, until its `stop`.
    pub(super) fn answer_call(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        if !std::mem::take(&mut flow.awaiting_call) || flow.app_event.is_some() {
            return;
        }
        let from = now.max(flow.start);
        if from >= flow.stop {
            return;
        }
        let Endpoint::Udp(source) = &mut flow.endpoint else {
            return; // validated: UDP sources only
        };
        source.start = from;
        source.stop = flow.stop;
        if let Some(t) = source.first() {
            flow.app_event = Some(self.events.schedule(t, Event::AppSend(f as u32)));
        }
    }

    /// The timeline acts on a TCP bulk transfer (seed 003 §5.2: "we close the connection
    /// of MS1 and start a new TCP session for it; its congestion window is set to one
    /// packet"). `stop` aborts the open connection ([`super::tcp_flow::TcpFlow::abort`]);
    /// `start` opens a fresh one, with its own client port, initial window and slow start,
    /// for the flow's whole object (an infinite stream, or the file again), if none is open
    /// and the flow's `stop` is ahead; `restart` is both. A flow whose `start` is still
    /// ahead starts now (its scheduled start is cancelled).
    fn tcp_flow_action(&mut self, f: usize, action: FlowAction) {
        let now = self.now;
        let flow = &mut self.flows[f];
        let Endpoint::Tcp(t) = &mut flow.endpoint else {
            unreachable!("tcp_flow_action on a flow that is not TCP")
        };
        let object = match t.app {
            super::tcp_flow::TcpApp::Bulk(bytes) => bytes,
            _ => unreachable!("validated: TCP bulk transfers only"),
        };
        if matches!(action, FlowAction::Stop | FlowAction::Restart) {
            t.abort(0);
            flow.app_paused = true;
        }
        if matches!(action, FlowAction::Start | FlowAction::Restart) && !t.any_open() {
            // The scheduled first open (a `start` still ahead) would now read as the
            // flow's stop; it is cancelled.
            if let Some(id) = flow.app_event.take() {
                self.far.cancel(&mut self.events, id);
            }
            flow.app_paused = false;
            if now < flow.stop {
                t.completion = None;
                self.tcp_open(f, object);
            }
        }
    }
}
