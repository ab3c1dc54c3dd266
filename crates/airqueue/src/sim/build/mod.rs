//! Building a runnable network from a validated scenario, in phases, one file each, in the
//! order [`Simulation::build`] runs them: the nodes and their interfaces
//! (`interfaces.rs`), the root queues of interfaces, virtual devices and trunks
//! (`roots.rs`), the media (`media.rs`), the node hooks (`hooks.rs`), the routes
//! (`routes.rs`), the flows (`flows.rs`, their transport ends in `endpoint.rs`), then the
//! timeline, the capture, the simulation itself and its first events (`finish.rs`). The
//! phases hand each other what they built in a [`Builder`]. Each medium's builder from its
//! spec lives in the medium's folder (`link/p2p/build.rs`, `link/segment/build.rs`,
//! `stripe/build.rs`); the wireless media's are below, until they move to theirs.

mod endpoint;
mod finish;
mod flows;
mod hooks;
mod interfaces;
mod media;
mod roots;
mod routes;

use super::{HookRt, Interface, RootQueue, Simulation, TimerOwner};
use crate::conf::Problem;
use crate::conf::ScenarioError;
use crate::engine::Timers;
use crate::hook::NodeHook;
use crate::link::bluetooth::build::{build_scatternet, piconet_conf, piconet_groups};
use crate::link::wifi::build::{build_cell, capture_of, cell_rate, hearing_of};
use crate::link::{AnyMedium, Medium};
use crate::packet::NodeId;
use crate::qdisc::classify::NameTable;
use crate::qdisc::Qdisc;
use crate::scenario::Scenario;
use crate::topology::{IfaceId, Node, PortRef};
use interfaces::MediumPlan;
use rustc_hash::FxHashMap as HashMap;

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
    /// Memory budget in bytes (`--max-memory`); `None`: [`super::budget::default_budget`].
    pub max_memory: Option<u64>,
}

/// Builds a medium from its ports' (interface, node) pairs, in port order.
pub type MediumFactory = Box<dyn FnOnce(&[(IfaceId, NodeId)]) -> Box<dyn Medium>>;

impl Simulation {
    /// Builds a simulation from a scenario that has passed [`crate::scenario::validate`].
    /// Checks that need routes (reachability, MTU along the path) are done here and
    /// reported as scenario problems.
    pub fn build(s: &Scenario, opts: BuildOptions) -> Result<Simulation, ScenarioError> {
        let mut b = Builder::new(s, opts)?;
        b.interfaces();
        b.root_queues();
        b.media();
        b.hooks();
        let routes = b.routes();
        let flows = b.flows(&routes);
        b.finish(routes, flows)
    }
}

/// Loads a scenario written as JSON text ([`crate::scenario::load_value_all`]) and builds
/// it, with the problems of both in one list: a scenario whose only problems were unknown
/// keys (taken out) is built too, so that a path-MTU or memory problem is not hidden behind
/// them until they are fixed.
pub fn load_and_build(
    text: &str,
    opts: BuildOptions,
) -> Result<(Scenario, Simulation), ScenarioError> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| ScenarioError::single("(file)", format!("not valid JSON: {e}")))?;
    let (s, mut errs) = crate::scenario::load_value_all(v);
    let Some(s) = s else {
        return Err(errs);
    };
    match Simulation::build(&s, opts) {
        Ok(sim) if errs.is_empty() => Ok((s, sim)),
        Ok(_) => Err(errs),
        Err(mut e) => {
            errs.problems.append(&mut e.problems);
            Err(errs)
        }
    }
}

/// What the phases of a build hand each other, filled in phase order. Interfaces are
/// numbered in medium order (two per link in link order, then one per node of each
/// segment, cell and piconet); every per-interface vector is indexed by [`IfaceId`].
struct Builder<'s> {
    s: &'s Scenario,
    opts: BuildOptions,
    /// The run's seed (the scenario's, or the caller's override).
    seed: u64,
    /// The memory budget, and the sampling interval as the scenario wrote it (for its
    /// message).
    budget: crate::sim::budget::Budget,
    interval_text: String,
    /// Problems found while building; the build fails with them at the end.
    errs: ScenarioError,
    node_index: HashMap<&'s str, NodeId>,
    nodes: Vec<Node>,
    flow_names: Vec<String>,
    /// Each interface's name `<node>.<medium>` and its medium's name.
    dev_names: Vec<String>,
    iface_medium_name: Vec<&'s str>,
    iface_index: HashMap<String, IfaceId>,
    /// One plan per link, segment, cell and piconet, in that order.
    plans: Vec<MediumPlan>,
    /// Where each plan's ports sit: (medium, first port).
    place: Vec<(u32, u32)>,
    /// Per cell medium: its channel and its cells (cells on one channel share one).
    cell_media: Vec<(Option<u32>, Vec<usize>)>,
    /// Per piconet, its medium counted from the first piconet medium.
    piconet_groups: Vec<usize>,
    /// The names `match` tables may use.
    names: NameTable,
    timers: Timers,
    timer_owners: Vec<TimerOwner>,
    roots: Vec<RootQueue>,
    ifaces: Vec<Interface>,
    ports: Vec<PortRef>,
    /// The trunks' receivers (and JKM's ACK hooks), attached with the hooks.
    trunk_receivers: Vec<(NodeId, Box<dyn NodeHook>)>,
    media: Vec<AnyMedium>,
    hooks: Vec<HookRt>,
    warnings: Vec<Problem>,
}
