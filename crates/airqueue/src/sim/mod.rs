//! The simulation: a scenario built into nodes, media, root queues, hooks and flows, and
//! the run loop that pops events in (time, sequence) order and dispatches them.
//!
//! A run processes the events strictly before `run.duration`. Statistics reset at
//! `run.warmup`; time series cover the whole run; the packet ledger (sent, delivered,
//! dropped, in flight) covers the whole run and is checked at the end.
//!
//! The loop is split by concern: `forward.rs` (the IP layer: routing, hooks, delivery,
//! drops), `root_queue.rs` (root qdiscs and the ports that pull from them), `media.rs`
//! (calling media and acting on their effects; the media themselves are in `crate::link`),
//! `apps.rs` (sources and TCP endpoints), `sampling.rs` (time series and warm-up),
//! `conservation.rs`, `results.rs`, `build/` (building a scenario, one file per phase).

mod apps;
pub mod budget;
mod build;
mod capture;
mod conservation;
mod far;
mod forward;
mod live;
mod media;
mod results;
mod root_queue;
mod sampling;
mod tcp_flow;
mod timeline;
mod warnings;

pub use crate::event::{Event, RootId, TimerOwner};
pub use build::{load_and_build, BuildOptions, MediumFactory};
pub use capture::{CaptureFile, CaptureSpec};
pub use conservation::{Conservation, Ledger};
pub use live::{Ran, RealCounts, RealHosts};
pub use results::{RunResults, Summary};
pub use root_queue::RootQueue;
pub use tcp_flow::TCP_WIRE_HEADER_BYTES;
pub use timeline::TimelineRecord;

use crate::app::{PingSource, UdpSource};
use crate::conf::ScenarioError;
use crate::engine::{EventId, EventQueue, Next, SimTime, Timers};
use crate::hook::{HookEffect, NodeHook};
use crate::link::{AnyMedium, LinkEffect};
use crate::metrics::{FlowStats, LatencyStats, TimeSeries};
use crate::packet::{FiveTuple, NodeId, PacketArena};
use crate::qdisc::{ClassSample, DevInfo, DropSink};
use crate::scenario::Scenario;
use crate::topology::{IfaceId, Node, PortRef, Routes};
use tcp_flow::TcpFlow;

/// An IP interface of a node: a port of a medium, fed by a root queue.
pub struct Interface {
    /// Name `<node>.<medium>`, rate, MTU: what a qdisc on it sees.
    pub dev: DevInfo,
    pub node: NodeId,
    /// The root queue routing puts its packets into (its own, or its virtual device's).
    pub root: RootId,
    /// The root queue its port takes packets from: `root`, except for a member of an
    /// IMQ-mode virtual device, whose own queue the device re-injects into.
    pub tx_root: RootId,
}

/// What the hot path reads about an interface on every packet, gathered at build time
/// from `ifaces`, `nodes` and `roots` so that one bounds-checked lookup replaces a chain
/// of them (interface → node → hooks; interface → root → kind). 12 bytes; fixed once the
/// simulation is built (hooks, roots and their kinds never change during a run).
#[derive(Copy, Clone, Debug)]
pub(super) struct IfaceHot {
    /// The interface's node.
    pub node: NodeId,
    /// `Interface::root` (where routing puts packets leaving by this interface).
    pub root: RootId,
    /// `Interface::tx_root`, packed with whether it is the interface's own real root (not
    /// a virtual device's): then a port that can take a packet again pulls from it
    /// directly ([`Simulation::kick_interface`]), skipping the virtual-device dispatch.
    tx: u32,
    /// Whether the interface's node has hooks (most have none).
    pub hooks: bool,
}

impl IfaceHot {
    const OWN: u32 = 1 << 31;

    pub fn new(node: NodeId, root: RootId, tx_root: RootId, own: bool, hooks: bool) -> Self {
        assert!(tx_root < Self::OWN, "too many root queues");
        IfaceHot {
            node,
            root,
            tx: tx_root | if own { Self::OWN } else { 0 },
            hooks,
        }
    }

    /// `Interface::tx_root`.
    #[inline(always)]
    pub fn tx_root(self) -> RootId {
        self.tx & !Self::OWN
    }

    /// `tx_root` is this interface's own real-interface root.
    #[inline(always)]
    pub fn own_root(self) -> bool {
        self.tx & Self::OWN != 0
    }
}

/// Web pages a flow keeps for the `pages` table (16 bytes each: 160 kB per flow at most).
pub const MAX_PAGES_KEPT: usize = 10_000;

/// A flow at run time.
///
/// `repr(C)` keeps the declared order: the fields a packet's handling reads (addressing,
/// the endpoint, the counters and the RTT statistics) come first and share a few cache
/// lines; names, configuration and rarely touched state follow. With 1 000 flows their
/// state no longer fits a core's cache, so each line a packet touches is a likely miss
/// (issue 18, item 4; `docs/limits.md`, "Scale").
#[repr(C)]
pub struct FlowRt {
    // Hot: every packet of the flow.
    endpoint: Endpoint,
    pub tuple: FiveTuple,
    pub src: NodeId,
    pub dst: NodeId,
    pub priority: u32,
    pub dscp: u8,
    /// A TCP flow whose cwnd, ssthresh and SRTT are sampled (`trace`), kept here so that
    /// sampling does not read every flow's TCP state.
    traced: bool,
    next_seq: u64,
    /// Bytes received at the previous time-series sample (beside the endpoint: a sample
    /// reads both for every flow).
    rx_bytes_at_last_sample: u64,
    /// Round-trip times since the warm-up: TCP's RTT samples (RFC 6298, Karn-filtered),
    /// ping's echo round trips.
    pub rtt: LatencyStats,
    pub stats: FlowStats,
    // Cold: configuration, names, sampling, the timeline, web pages.
    pub name: String,
    pub from: String,
    pub to: String,
    pub transport: &'static str,
    pub app: &'static str,
    /// When the application starts and stops (the goodput window).
    pub start: SimTime,
    pub stop: SimTime,
    /// Completion times since the warm-up: web page response times.
    pub responses: LatencyStats,
    /// Every web page this flow completed (from the start of the run, warm-up included):
    /// when it was requested and when its last object arrived, for the `pages` table (the
    /// per-page plots of seed 002 Figs. 10, 11, 24, 25). At most [`MAX_PAGES_KEPT`] per
    /// flow; `pages_completed` in the flow table counts them all.
    pub pages: Vec<(SimTime, SimTime)>,
    /// The pending send of a UDP or ping source (so that the timeline can cancel it).
    app_event: Option<EventId>,
    /// Stopped by the timeline.
    app_paused: bool,
    /// Flows that answer this one (`answers`): they start at its first arrival.
    answerers: Vec<u32>,
    /// Waiting for the first packet of the flow it answers (sends nothing until then).
    awaiting_call: bool,
}

/// The transport end of a flow.
///
/// Each variant is boxed so that the endpoint takes 16 bytes of the flow's hot fields.
pub enum Endpoint {
    Udp(Box<UdpSource>),
    Tcp(Box<TcpFlow>),
    /// ICMP echo (ping).
    Ping(Box<PingSource>),
    /// A real host's 5-tuple in live mode (`sim::live`): its packets come from a real
    /// program, so the simulation sends nothing for it.
    Real,
}

/// A node hook at run time.
pub struct HookRt {
    pub node: NodeId,
    pub hook: Box<dyn NodeHook>,
}

/// A built, runnable simulation.
/// A port with a driver queue, for the time series and the `driver_queues` table.
#[derive(Clone, Debug)]
struct DriverRt {
    medium: u32,
    port: u32,
    iface: IfaceId,
    /// Its drops at the previous sample (for per-interval drops).
    drops_at_last_sample: u64,
}

pub struct Simulation {
    now: SimTime,
    stop: SimTime,
    warmup: SimTime,
    sample_interval: SimTime,
    seed: u64,
    events: EventQueue<Event>,
    /// Cancellable timers (root wake-ups, media, hooks) and who owns each.
    timers: Timers,
    timer_owners: Vec<TimerOwner>,
    /// Events known at build, waiting outside the queue (`sim::far`).
    far: far::FarEvents,
    packets: PacketArena,
    pub nodes: Vec<Node>,
    pub ifaces: Vec<Interface>,
    /// Per interface: its medium and port.
    ports: Vec<PortRef>,
    /// Per interface: what the hot path reads (`IfaceHot`), derived from `ifaces`, `nodes`
    /// and `roots` once they are built.
    hot: Vec<IfaceHot>,
    /// The media: wired links and segments, in scenario order.
    pub media: Vec<AnyMedium>,
    /// Root queues: interfaces with their own qdisc (interface order), then virtual
    /// devices.
    pub roots: Vec<RootQueue>,
    pub hooks: Vec<HookRt>,
    routes: Routes,
    pub flows: Vec<FlowRt>,
    drops: DropSink,
    ledger: Ledger,
    timeseries: TimeSeries,
    /// Per-class samples of the current sampling instant (reused buffer), and each class's
    /// counters at the previous one (for per-interval throughput and drops).
    class_samples: Vec<ClassSample>,
    class_at_last_sample: Vec<ClassSample>,
    /// The ports whose medium models a driver queue below the qdisc
    /// ([`crate::link::Medium::driver_queue`]), in medium and port order.
    drivers: Vec<DriverRt>,
    last_sample: SimTime,
    wall_seconds: f64,
    /// Open pcap files, when asked for ([`BuildOptions::capture`]).
    capture: Option<Box<capture::Capture>>,
    /// Reused buffer for the object sizes a web page requests at once.
    scratch_sizes: Vec<u64>,
    /// Effects reported by media and hooks, acted upon after their calls (reused).
    link_fx: Vec<LinkEffect>,
    hook_fx: Vec<HookEffect>,
    /// The `[[at]]` changes (`sim::timeline`).
    timeline: timeline::Timeline,
    /// Memory the run will take, estimated at build time (`sim::budget`).
    estimate: budget::Estimate,
    /// Warnings found at build time (`sim::warnings`).
    warnings: Vec<crate::scenario::Problem>,
    /// Live mode's real hosts and their packets' bytes (`sim::live`); `None` in a
    /// simulated run, which therefore allocates nothing for them.
    real: Option<Box<RealHosts>>,
}

/// Events between two calls of the observer of [`Simulation::run_with`]: at 30 M events/s
/// about every 140 µs, often enough to stop within a few milliseconds of an interrupt.
pub const POLL_EVENTS: u32 = 4096;

/// Where a run is, as [`Simulation::run_with`] reports it.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub now: SimTime,
    pub stop: SimTime,
    pub events: u64,
}

/// How [`Simulation::run_with`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Ran to the stop time.
    Finished,
    /// The observer asked to stop (an interrupt); the results are incomplete.
    Stopped,
}

/// Loads, validates, builds and runs a scenario in one call.
pub fn run_scenario(s: &Scenario, seed: Option<u64>) -> Result<RunResults, ScenarioError> {
    let mut sim = Simulation::build(
        s,
        BuildOptions {
            seed,
            ..Default::default()
        },
    )?;
    sim.run();
    Ok(sim.results())
}

impl Simulation {
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Nodes whose routes are a full row (the others use a default route).
    pub fn route_rows(&self) -> usize {
        self.routes.rows()
    }

    /// Runs to the stop time.
    pub fn run(&mut self) {
        self.run_with(|_| true);
    }

    /// Runs to the stop time, calling `poll` every [`POLL_EVENTS`] events with the progress
    /// so far; when `poll` returns `false` the run stops there (an interrupt) and this
    /// returns [`RunEnd::Stopped`]: the results of a stopped run are incomplete and must
    /// not be written. The check is one counter decrement per event.
    pub fn run_with(&mut self, mut poll: impl FnMut(&Progress) -> bool) -> RunEnd {
        let started = std::time::Instant::now();
        let mut countdown = POLL_EVENTS;
        // Events and timer slots (a heap of their own, see `engine::timers`) in one
        // (time, sequence number) order.
        while let Some((t, next)) = self.timers.pop_before(&mut self.events, self.stop) {
            countdown -= 1;
            if countdown == 0 {
                countdown = POLL_EVENTS;
                let p = Progress {
                    now: self.now,
                    stop: self.stop,
                    events: self.events_processed(),
                };
                if !poll(&p) {
                    self.wall_seconds = started.elapsed().as_secs_f64();
                    return RunEnd::Stopped;
                }
            }
            self.now = t;
            match next {
                Next::Event(ev) => self.handle(ev),
                Next::Timer(id) => self.timer(id.0),
            }
        }
        self.now = self.stop;
        if self.last_sample < self.stop {
            self.sample();
        }
        self.wall_seconds = started.elapsed().as_secs_f64();
        RunEnd::Finished
    }

    /// The per-interface hot-path data (`IfaceHot`) of the built interfaces, nodes and
    /// root queues.
    fn hot_ifaces(&self) -> Vec<IfaceHot> {
        self.ifaces
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let tx = &self.roots[f.tx_root as usize];
                let own = !tx.virtual_dev && tx.members.first().is_some_and(|m| m.0 == i as u32);
                let hooks = !self.nodes[f.node.0 as usize].hooks.is_empty();
                IfaceHot::new(f.node, f.root, f.tx_root, own, hooks)
            })
            .collect()
    }

    /// Flushes and closes the pcap files (none when capture was not asked for).
    pub fn finish_capture(&mut self) -> std::io::Result<Vec<CaptureFile>> {
        self.capture.as_mut().map_or(Ok(Vec::new()), |c| c.finish())
    }

    /// What the scenario probably did not mean (see `sim::warnings`), each with its path.
    pub fn warnings(&self) -> &[crate::scenario::Problem] {
        &self.warnings
    }

    /// The memory estimate checked at build time.
    pub fn estimate(&self) -> budget::Estimate {
        self.estimate
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.events.events_processed()
    }

    #[inline(always)]
    fn handle(&mut self, ev: Event) {
        match ev {
            Event::AppSend(f) => self.app_send(f as usize),
            Event::Link { medium, key } => self.link_event(medium, key),
            Event::LinkPacket(pkt) => self.link_packet_event(pkt),
            Event::Sample => {
                self.sample();
                let next = self.now + self.sample_interval;
                self.events.schedule(next, Event::Sample);
            }
            Event::WarmupEnd => self.reset_statistics(),
            Event::Change(i) => self.apply_change(i),
            Event::Far(k) => self.far_event(k),
        }
    }

    fn timer(&mut self, id: u32) {
        match self.timer_owners[id as usize] {
            TimerOwner::Root(r) => self.kick(r),
            TimerOwner::Medium { medium, key } => {
                self.with_medium(medium, |m, cx| m.get_mut().on_timer(key, cx));
            }
            TimerOwner::Hook { hook, key } => self.with_hook(hook, |h, cx| h.on_timer(key, cx)),
            TimerOwner::Tcp { flow, conn, side } => {
                self.tcp_timer(flow as usize, conn as usize, side)
            }
        }
    }
}
