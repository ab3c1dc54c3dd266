//! The first phase of the build: the nodes with their addresses, and the interfaces every
//! medium gives its nodes, in medium order, with where each medium's ports sit (cells on
//! one channel, and piconets a bridge joins, share a medium).

use super::{cell_rate, piconet_conf, piconet_groups, BuildOptions, Builder};
use crate::conf::ScenarioError;
use crate::conf::{Bytes, Rate};
use crate::engine::{SimTime, Timers};
use crate::packet::NodeId;
use crate::qdisc::classify::NameTable;
use crate::scenario::Scenario;
use crate::topology::{IfaceId, Node};
use rustc_hash::FxHashMap as HashMap;

/// What the qdiscs of one medium's interfaces see of it, and its ports.
pub(super) struct MediumPlan {
    pub(super) rate_bps: u64,
    /// An asymmetric link's rate from its second end (`reverse.rate`).
    pub(super) reverse_rate_bps: Option<u64>,
    pub(super) mtu: u32,
    pub(super) overhead: u32,
    pub(super) link_header: u32,
    /// Each port's (interface, node), in port order.
    pub(super) ends: Vec<(IfaceId, NodeId)>,
}

impl<'s> Builder<'s> {
    /// The nodes, each with its address; refuses a scenario whose flows alone cannot fit
    /// the memory budget, before allocating per-flow state (the time series is checked
    /// once the queues and classes are known, at the end).
    pub(super) fn new(s: &'s Scenario, opts: BuildOptions) -> Result<Self, ScenarioError> {
        let seed = opts.seed.unwrap_or(s.run.seed);
        let budget = opts.max_memory.map_or_else(
            crate::sim::budget::default_budget,
            crate::sim::budget::Budget::given,
        );
        let interval_text = s.run.sample_interval.to_string();
        let flows_only = crate::sim::budget::Estimate {
            flows: s.flows.len() as u64,
            series_rows: 0,
        };
        crate::sim::budget::check(&flows_only, &budget, &interval_text)?;
        let node_index = s
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.as_str(), NodeId(i as u32)))
            .collect();
        let nodes = s
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| Node {
                name: n.name.clone(),
                addr: n.addr(i),
                ifaces: Vec::new(),
                hooks: Vec::new(),
            })
            .collect();
        Ok(Builder {
            s,
            opts,
            seed,
            budget,
            interval_text,
            errs: ScenarioError::default(),
            node_index,
            nodes,
            flow_names: s.flows.iter().map(|f| f.name.clone()).collect(),
            dev_names: Vec::new(),
            iface_medium_name: Vec::new(),
            iface_index: HashMap::default(),
            plans: Vec::new(),
            place: Vec::new(),
            cell_media: Vec::new(),
            piconet_groups: Vec::new(),
            names: NameTable::default(),
            timers: Timers::new(),
            timer_owners: Vec::new(),
            roots: Vec::new(),
            ifaces: Vec::new(),
            ports: Vec::new(),
            trunk_receivers: Vec::new(),
            media: Vec::new(),
            hooks: Vec::new(),
            warnings: Vec::new(),
        })
    }

    /// Interfaces, in medium order: two per link (link order), then one per node of each
    /// segment, cell and piconet; a plan per medium entry lists its (interface, node) per
    /// port. Then where the plans' ports sit, and the names `match` tables may use.
    pub(super) fn interfaces(&mut self) {
        let s = self.s;
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
                    Rate(rate),
                    c.mtu,
                    Bytes(crate::link::wifi::phy::DATA_OVERHEAD_BYTES as u64),
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
                    Rate(rate as u64),
                    p.mtu,
                    Bytes(u64::from(p.overhead)),
                    0,
                )
            }));
        for (name, members, rate, mtu, overhead, link_header) in medium_ends {
            let mut ends = Vec::with_capacity(members.len());
            for n in &members {
                let id = IfaceId(self.dev_names.len() as u32);
                self.dev_names.push(format!("{n}.{name}"));
                self.iface_medium_name.push(name);
                let node = self.node_index[n.as_str()];
                self.nodes[node.0 as usize].ifaces.push(id);
                ends.push((id, node));
            }
            self.plans.push(MediumPlan {
                rate_bps: rate.bps(),
                reverse_rate_bps: None,
                mtu,
                overhead: overhead.0 as u32,
                link_header,
                ends,
            });
        }
        // Links come first among the plans (link order).
        for (plan, l) in self.plans.iter_mut().zip(&s.links) {
            plan.reverse_rate_bps = (l.rate_from(1) != l.rate_from(0)).then(|| l.rate_from(1));
        }
        self.places();
        self.iface_index = self
            .dev_names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), IfaceId(i as u32)))
            .collect();
        self.names = NameTable {
            flows: self.flow_names.clone(),
            nodes: self
                .nodes
                .iter()
                .map(|n| (n.name.clone(), n.addr))
                .collect(),
            ifaces: self.dev_names.clone(),
        };
    }

    /// Where each plan's ports sit, (medium, first port): links and segments are media
    /// of their own; cells on one channel share one medium, their ports in cell order;
    /// piconets are media of their own after the cell media, but piconets joined by a
    /// bridge share one (a scatternet), their ports in piconet order.
    fn places(&mut self) {
        let s = self.s;
        let first_cell = s.links.len() + s.segments.len();
        self.place = (0..first_cell).map(|m| (m as u32, 0)).collect();
        for (k, c) in s.cells.iter().enumerate() {
            let cell_media = &mut self.cell_media;
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
                .map(|&j| self.plans[first_cell + j].ends.len())
                .sum();
            cell_media[g].1.push(k);
            self.place.push(((first_cell + g) as u32, offset as u32));
        }
        let first_piconet = first_cell + s.cells.len();
        self.piconet_groups = piconet_groups(&s.piconets, &s.bridges);
        for (k, g) in self.piconet_groups.iter().enumerate() {
            let offset: usize = self.piconet_groups[..k]
                .iter()
                .zip(&self.plans[first_piconet..])
                .filter(|(h, _)| *h == g)
                .map(|(_, p)| p.ends.len())
                .sum();
            self.place.push((
                (first_cell + self.cell_media.len() + g) as u32,
                offset as u32,
            ));
        }
    }

    /// Index of the first cell's plan (links and segments come before).
    pub(super) fn first_cell(&self) -> usize {
        self.s.links.len() + self.s.segments.len()
    }

    /// Index of the first piconet's plan (after the cells').
    pub(super) fn first_piconet(&self) -> usize {
        self.first_cell() + self.s.cells.len()
    }
}
