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
use crate::conf::ScenarioError;
use crate::engine::{SimTime, Timers};
use crate::hook::NodeHook;
use crate::link::{AnyMedium, Medium};
use crate::packet::NodeId;
use crate::qdisc::classify::NameTable;
use crate::qdisc::Qdisc;
use crate::scenario::{Problem, Scenario};
use crate::topology::{IfaceId, Node, PortRef};
use interfaces::MediumPlan;
use std::collections::HashMap;

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
    budget: u64,
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

/// A QoS cell's EDCA parameter set: the defaults of IEEE 802.11-2016 Table 9-137 for its
/// PHY, with the cell's `edca` overrides per access category.
fn edca_params(
    phy: &crate::link::wifi::Phy,
    c: &crate::scenario::CellSpec,
) -> [crate::link::wifi::EdcaParams; 4] {
    use crate::link::wifi::Ac;
    let mut p = crate::link::wifi::edca::default_params(phy);
    for (ac, o) in [
        (Ac::Bk, &c.edca.bk),
        (Ac::Be, &c.edca.be),
        (Ac::Vi, &c.edca.vi),
        (Ac::Vo, &c.edca.vo),
    ] {
        let Some(o) = o else { continue };
        let e = &mut p[ac as usize];
        if let Some(v) = o.aifsn {
            e.aifsn = v;
        }
        if let Some(v) = o.cw_min {
            e.cw_min = v;
        }
        if let Some(v) = o.cw_max {
            e.cw_max = v;
        }
        if let Some(d) = o.txop {
            e.txop = d.time();
        }
    }
    p
}

/// A station's PHY rate: its own, the cell's, or the standard's highest.
fn cell_rate(
    c: &crate::scenario::CellSpec,
    st: &crate::scenario::CellStationSpec,
) -> crate::scenario::Rate {
    use crate::link::wifi::Standard;
    st.rate.or(c.rate).unwrap_or_else(|| {
        let std = Standard::parse(&c.standard).expect("validated");
        crate::scenario::Rate(*std.rates_kbps().iter().max().unwrap() as u64 * 1000)
    })
}

/// The medium of validated `[[cells]]` entries on one channel (they agree on the PHY and
/// MAC keys); each with its (interface, node) pairs, the AP's first.
fn build_cell(
    bsses: &[(&crate::scenario::CellSpec, &[(IfaceId, NodeId)])],
    dev_names: &[String],
    seed: u64,
    stats_from: SimTime,
) -> crate::link::wifi::Cell {
    use crate::channel::BitErrors;
    use crate::link::wifi::{BssConf, Cell, DcfConf, Phy, PortConf, RateControl, Standard};
    let c = bsses[0].0;
    let mut phy = Phy::new(Standard::parse(&c.standard).expect("validated"));
    phy.short_preamble = c.short_preamble;
    if let Some(d) = c.slot {
        phy.slot = d.time();
    }
    if let Some(d) = c.sifs {
        phy.sifs = d.time();
    }
    if let Some(v) = c.cw_min {
        phy.cw_min = v;
    }
    if let Some(v) = c.cw_max {
        phy.cw_max = v;
    }
    if let Some(b) = &c.basic_rates {
        phy.basic_kbps = b.iter().map(|r| (r.bps() / 1000) as u32).collect();
        phy.basic_kbps.sort_unstable();
        phy.basic_kbps.dedup();
    }
    let conf = DcfConf {
        rts_threshold: c.rts_threshold,
        short_retry_limit: c.short_retry_limit,
        long_retry_limit: c.long_retry_limit,
    };
    let port_confs = |c: &crate::scenario::CellSpec, ends: &[(IfaceId, NodeId)]| -> Vec<PortConf> {
        ends.iter()
            .enumerate()
            .map(|(p, &(iface, node))| {
                // An infrastructure cell's first port is the AP; an ad hoc cell has none.
                let st = match c.ap {
                    Some(_) => (p > 0).then(|| &c.stations[p - 1]),
                    None => Some(&c.stations[p]),
                };
                PortConf {
                    name: dev_names[iface.0 as usize].clone(),
                    iface,
                    node,
                    rate_kbps: st.map_or(0, |st| (cell_rate(c, st).bps() / 1000) as u32),
                    buffer: match st {
                        None => c.ap_buffer.unwrap_or(c.buffer),
                        Some(st) => st.buffer.unwrap_or(c.buffer),
                    },
                    errors: match st {
                        Some(st) if st.ber.0 > 0.0 => BitErrors::Ber(st.ber.0),
                        _ => BitErrors::None,
                    },
                    edca: c.qos.then(|| edca_params(&phy, c)),
                    txq: (st.is_none() && c.ap_queues == crate::scenario::ApQueuesKind::Mac80211)
                        .then(|| crate::link::wifi::txq::TxqConf {
                            quantum: c.airtime_quantum.time(),
                            airtime_fair: c.airtime_fairness,
                        }),
                    rate_control: st.map_or(RateControl::Fixed, |st| {
                        use crate::scenario::RateControlKind as K;
                        match st.rate_control.unwrap_or(c.rate_control) {
                            K::Fixed => RateControl::Fixed,
                            K::Minstrel => RateControl::Minstrel,
                            K::Arf => RateControl::Arf { adaptive: false },
                            K::Aarf => RateControl::Arf { adaptive: true },
                        }
                    }),
                    snr_db: st.and_then(|st| st.snr_db),
                    snr_changes: st.map_or(Vec::new(), |st| {
                        st.snr_changes
                            .iter()
                            .map(|ch| (ch.at.time(), ch.snr_db))
                            .collect()
                    }),
                }
            })
            .collect()
    };
    let confs: Vec<(String, Vec<PortConf>)> = bsses
        .iter()
        .map(|&(c, ends)| (c.name.clone(), port_confs(c, ends)))
        .collect();
    let refs: Vec<BssConf<'_>> = confs
        .iter()
        .zip(bsses)
        .map(|((n, p), (c, _))| BssConf {
            name: n.clone(),
            adhoc: c.mode == crate::scenario::CellMode::Adhoc,
            ports: p.as_slice(),
        })
        .collect();
    Cell::shared(phy, conf, &refs, seed, stats_from)
}

/// Which medium each piconet is in, counted from the first piconet medium: a piconet
/// alone is one; the piconets a bridge joins share the first one's.
fn piconet_groups(s: &crate::scenario::Scenario) -> Vec<usize> {
    let mut group: Vec<usize> = Vec::with_capacity(s.piconets.len());
    let mut next = 0;
    for p in &s.piconets {
        let joined = s
            .bridges
            .iter()
            .filter(|b| b.piconets.contains(&p.name))
            .flat_map(|b| b.piconets.iter())
            .filter_map(|q| s.piconets.iter().position(|x| x.name == *q))
            .find(|&q| q < group.len());
        match joined {
            Some(q) => group.push(group[q]),
            None => {
                group.push(next);
                next += 1;
            }
        }
    }
    group
}

/// A scatternet from its bridge and its piconets (scenario order): each piconet learns
/// which slave is the bridge, its M_b and buffer; the bridge starts in its first piconet,
/// and its second piconet's clock runs `clock_offset` behind (default: uniform in
/// [0, 2T) from stream `bridge:<node>:clock`, microsecond steps).
fn build_scatternet(
    b: &crate::scenario::BridgeSpec,
    members: Vec<(
        &crate::scenario::PiconetSpec,
        crate::link::bluetooth::Piconet,
    )>,
    seed: u64,
    warmup: SimTime,
) -> crate::link::bluetooth::Scatternet {
    use crate::link::bluetooth::{polling::IDLE_FRAME, Residence, Scatternet, WalkIn};
    use rand::RngCore;
    let offset = b.clock_offset.map_or_else(
        || {
            let us = crate::engine::stream(seed, &format!("bridge:{}:clock", b.node)).next_u64()
                % (IDLE_FRAME.0 / 1000);
            SimTime(us * 1000)
        },
        |d| d.0,
    );
    let mut names = Vec::new();
    let mut piconets = Vec::new();
    for (p, mut piconet) in members {
        let j = p.slaves.iter().position(|n| *n == b.node).unwrap_or(0);
        let m_b = b.m_b(p).unwrap_or(u32::MAX);
        let conf = piconet_conf(p, warmup);
        let segs = conf.sar.count(conf.mtu + conf.overhead, conf.types);
        let buffer = b.buffer_in(p, segs).unwrap_or(u32::MAX);
        let first = b.piconets.first() == Some(&p.name);
        let mut walk_in = WalkIn::new(j, m_b.saturating_add(1), buffer, first, warmup);
        walk_in.set_residence(match b.residence.as_deref() {
            Some("visit") => Residence::Visit,
            _ => Residence::Cycle,
        });
        piconet.set_bridge(walk_in);
        if !first {
            piconet.set_clock_phase(offset);
        }
        names.push(p.name.clone());
        piconets.push(piconet);
    }
    Scatternet::new(piconets, names, b.node.clone())
}

/// Who hears whom among a cell medium's ports (`at`: each port's node and station entry,
/// in port order) under a validated `[propagation]`, and per port whether its link's frame
/// errors follow the SNR; `None` for a hearing graph in which everyone decodes everyone
/// (unless `per_station`): the shared-slot medium then applies unchanged.
fn hearing_of(
    pr: &crate::scenario::PropagationSpec,
    at: &[(&str, Option<&crate::scenario::CellStationSpec>)],
) -> Option<(crate::link::wifi::dcf::hearing::Hearing, Vec<bool>)> {
    use crate::channel::{noise_floor_dbm, PathLoss, PathLossConf, Position, Track};
    use crate::link::wifi::dcf::hearing::{Hearing, Level, RadioModel};
    let n = at.len();
    let placed = !pr.positions.is_empty();
    let map = if placed {
        let f_hz = pr.frequency_mhz * 1e6;
        let path_loss = match &pr.path_loss {
            None => PathLoss::LogDistance {
                reference_m: 1.0,
                reference_loss_db: 46.6777,
                exponent: 3.0,
            },
            Some(PathLossConf::Friis) => PathLoss::Friis { frequency_hz: f_hz },
            Some(PathLossConf::LogDistance {
                exponent,
                reference_distance_m,
                reference_loss_db,
            }) => PathLoss::LogDistance {
                reference_m: *reference_distance_m,
                reference_loss_db: reference_loss_db.unwrap_or_else(|| {
                    crate::channel::propagation::friis_loss_db(*reference_distance_m, f_hz)
                }),
                exponent: *exponent,
            },
        };
        let tracks = at
            .iter()
            .map(|&(node, _)| {
                let xy = pr.positions.get(node).copied().unwrap_or([0.0, 0.0]);
                let legs: Vec<(SimTime, Position)> = pr
                    .motion
                    .iter()
                    .filter(|m| m.node == node)
                    .map(|m| {
                        (
                            m.at.time(),
                            Position::new(m.velocity[0], m.velocity[1], 0.0),
                        )
                    })
                    .collect();
                Track::new(Position::new(xy[0], xy[1], 0.0), &legs)
            })
            .collect();
        Hearing::positions(
            tracks,
            RadioModel {
                tx_power_dbm: pr.tx_power_dbm,
                path_loss,
                rx_threshold_dbm: pr.rx_threshold_dbm,
                cs_threshold_dbm: pr.cs_threshold_dbm.unwrap_or(pr.rx_threshold_dbm),
                noise_dsss_dbm: noise_floor_dbm(22e6, pr.noise_figure_db),
                noise_ofdm_dbm: noise_floor_dbm(20e6, pr.noise_figure_db),
            },
        )
    } else {
        let pair = |list: &[[String; 2]], a: &str, b: &str| {
            list.iter()
                .any(|[x, y]| (x == a && y == b) || (x == b && y == a))
        };
        Hearing::graph(n, |p, r| {
            let (a, b) = (at[p].0, at[r].0);
            if a == b || pair(&pr.hears, a, b) {
                Level::Decode
            } else if pair(&pr.senses, a, b) {
                Level::Sense
            } else {
                Level::None
            }
        })
    };
    // With positions frame errors depend on each pair's distance: always per station.
    if map.complete() && !pr.per_station && !placed {
        return None;
    }
    let auto_snr = at
        .iter()
        .map(|&(_, st)| placed && st.is_none_or(|st| st.ber.0 == 0.0 && st.snr_db.is_none()))
        .collect();
    Some((map, auto_snr))
}

/// SINR-based reception of a cell with `capture = "sinr"`: noise floors from
/// `[propagation]`'s noise figure (7 dB without one), the nominal power of frames without
/// positions, ns-3's frame capture model (5 dB, 16 µs) if asked for.
fn capture_of(
    c: &crate::scenario::CellSpec,
    pr: Option<&crate::scenario::PropagationSpec>,
) -> crate::link::wifi::dcf::hearing::Capture {
    use crate::channel::noise_floor_dbm;
    use crate::link::wifi::dcf::hearing::{dbm_to_mw, Capture, NOMINAL_RX_DBM};
    let nf = pr.map_or(7.0, |p| p.noise_figure_db);
    Capture {
        noise_dsss_mw: dbm_to_mw(noise_floor_dbm(22e6, nf)),
        noise_ofdm_mw: dbm_to_mw(noise_floor_dbm(20e6, nf)),
        nominal_mw: dbm_to_mw(NOMINAL_RX_DBM),
        frame_capture: c.frame_capture.then_some((5.0, SimTime::from_micros(16))),
    }
}

/// The medium parameters of a validated `[[piconets]]` entry.
fn piconet_conf(
    p: &crate::scenario::PiconetSpec,
    warmup: SimTime,
) -> crate::link::bluetooth::PiconetConf {
    use crate::link::bluetooth::{
        ChannelKind, FlowControl, PacketType, PiconetConf, Polling, Sar, TypeSet,
    };
    let types: Vec<PacketType> = p
        .packet_types
        .iter()
        .filter_map(|t| PacketType::parse(t))
        .collect();
    let channel = match &p.channel {
        Some(c) => match (&c.gilbert_elliott, c.ber) {
            (Some(ge), _) if p.channel_state.as_deref() == Some("per-packet") => {
                ChannelKind::GilbertElliottPerPacket(ge.params())
            }
            (Some(ge), _) => ChannelKind::GilbertElliott(ge.params()),
            (None, Some(b)) => ChannelKind::Ber(b.0),
            (None, None) => ChannelKind::Perfect,
        },
        None => ChannelKind::Perfect,
    };
    PiconetConf {
        polling: Polling::parse(&p.polling, p.limit, p.max_priority)
            .unwrap_or(Polling::ONE_LIMITED),
        sar: Sar::parse(&p.sar).unwrap_or(Sar::Osu),
        types: TypeSet::of(&types),
        overhead: p.overhead,
        mtu: p.mtu,
        slave_buffer: p.slave_buffer,
        master_buffer: p.master_buffer,
        flow: p.flow_control.as_ref().map(|f| FlowControl {
            rate_bps: f.token_rate.bps(),
            depth_bytes: f.token_depth.0,
            buffer: f.buffer,
        }),
        arq: p.arq,
        channel,
        warmup,
    }
}
