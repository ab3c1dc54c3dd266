//! The second phase of the build: the root queues. Each interface that is no member of a
//! virtual device or trunk has its own (interface order), then each virtual device has
//! one over its members, then each end of each trunk (its sender is the root qdisc). One
//! constructor ([`Builder::add_root`]) makes every root queue with its wakeup timer.

use super::{BuildOptions, Builder};
use crate::conf::ScenarioError;
use crate::event::{RootId, TimerOwner};
use crate::qdisc::classify::NameTable;
use crate::qdisc::{self, BuildCtx, DevInfo, Qdisc};
use crate::scenario::{QdiscSpec, VdevDequeue};
use crate::sim::{Interface, RootQueue};
use crate::stripe::build::{trunk_end, trunk_member_devices};
use crate::topology::{IfaceId, PortRef};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// What the root qdiscs built from the scenario read: the `[[qdiscs]]` entries by device,
/// and the flag boards the disciplines of one node may share (seed 000's CAWN).
struct QdiscSource<'s> {
    qdisc_of: HashMap<&'s str, &'s QdiscSpec>,
    boards: qdisc::FlagBoards,
}

impl Builder<'_> {
    /// Every root queue, and the interfaces with the root queues they feed and are fed by;
    /// a qdisc override naming no device is a problem.
    pub(super) fn root_queues(&mut self) {
        let s = self.s;
        let src = QdiscSource {
            qdisc_of: s.qdiscs.iter().map(|q| (q.dev.as_str(), q)).collect(),
            boards: qdisc::FlagBoards::default(),
        };
        self.interface_roots(&src);
        self.virtual_dev_roots(&src);
        self.trunk_roots();
        for (dev, _) in &self.opts.qdisc_overrides {
            self.errs.push(
                "(build)",
                format!("qdisc override for unknown interface \"{dev}\""),
            );
        }
    }

    /// The interfaces, each with its port and, unless it feeds a virtual device or a
    /// trunk, a root queue of its own.
    fn interface_roots(&mut self, src: &QdiscSource) {
        let s = self.s;
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
                .is_some_and(|&v| s.virtual_devs[v].dequeue == VdevDequeue::Imq)
        };
        // Trunk members (`<node>.<medium>` at both ends) feed their trunk's device.
        let trunk_member: HashSet<String> =
            s.trunks.iter().flat_map(trunk_member_devices).collect();
        self.ifaces.reserve(self.dev_names.len());
        self.ports = vec![PortRef { medium: 0, port: 0 }; self.dev_names.len()];
        for m in 0..self.plans.len() {
            for p in 0..self.plans[m].ends.len() {
                let plan = &self.plans[m];
                let (id, node) = plan.ends[p];
                self.ports[id.0 as usize] = PortRef {
                    medium: self.place[m].0,
                    port: self.place[m].1 + p as u32,
                };
                let name = self.dev_names[id.0 as usize].clone();
                let dev = DevInfo {
                    stab: stab_of(&src.qdisc_of, &name),
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
                    RootId::MAX // set with the virtual devices and trunks
                } else {
                    let r = self.roots.len() as RootId;
                    self.qdisc_root(dev.clone(), vec![id], false, src);
                    r
                };
                self.ifaces.push(Interface {
                    dev,
                    node,
                    root,
                    tx_root: root,
                });
            }
        }
    }

    /// A root queue per virtual device, over its members: they route into it; an
    /// IMQ-mode device's members still send from their own queues.
    fn virtual_dev_roots(&mut self, src: &QdiscSource) {
        for spec in &self.s.virtual_devs {
            let members: Vec<IfaceId> = spec
                .members
                .iter()
                .map(|m| self.iface_index[m.as_str()])
                .collect();
            let dev = self.device_over(
                spec.name.clone(),
                &members,
                stab_of(&src.qdisc_of, &spec.name),
            );
            let r = self.roots.len() as RootId;
            let imq = spec.dequeue == VdevDequeue::Imq;
            for m in &members {
                let i = &mut self.ifaces[m.0 as usize];
                i.root = r;
                if !imq {
                    i.tx_root = r;
                }
            }
            self.qdisc_root(dev, members, true, src).imq = imq;
        }
    }

    /// Trunks (seed 004): at each end a device over the node's member interfaces whose
    /// root qdisc is the trunk sender, asked by idle members in round-robin order; the
    /// receivers are hooks, attached with the hooks.
    fn trunk_roots(&mut self) {
        for t in &self.s.trunks {
            for me in [0, 1] {
                let end = trunk_end(t, me, &self.node_index, &self.iface_index);
                let dev = self.device_over(end.device, &end.members, None);
                let r = self.roots.len() as RootId;
                for m in &end.members {
                    self.ifaces[m.0 as usize].root = r;
                    self.ifaces[m.0 as usize].tx_root = r;
                }
                self.trunk_receivers.extend(end.hooks);
                let name = dev.name.clone();
                self.add_root(dev, name, end.sender, end.members, true)
                    .round_robin = Some(0);
            }
        }
    }

    /// A device over `members` (a virtual device, a trunk end): the sum of their rates,
    /// the largest of their MTUs and link headers.
    fn device_over(
        &self,
        name: String,
        members: &[IfaceId],
        stab: Option<std::sync::Arc<qdisc::SizeTable>>,
    ) -> DevInfo {
        let member_devs: Vec<&DevInfo> = members
            .iter()
            .map(|m| &self.ifaces[m.0 as usize].dev)
            .collect();
        DevInfo {
            name,
            rate_bps: member_devs.iter().map(|d| d.rate_bps).sum(),
            mtu: member_devs.iter().map(|d| d.mtu).max().unwrap_or(1500),
            psched_mtu: member_devs
                .iter()
                .map(|d| d.psched_mtu)
                .max()
                .unwrap_or(1514),
            link_header: member_devs.iter().map(|d| d.link_header).max().unwrap_or(0),
            stab,
        }
    }

    /// A root queue for `dev` over `members` whose qdisc the scenario (or the caller's
    /// override) gives.
    fn qdisc_root(
        &mut self,
        dev: DevInfo,
        members: Vec<IfaceId>,
        virtual_dev: bool,
        src: &QdiscSource,
    ) -> &mut RootQueue {
        let (name, q) = root_qdisc(
            &dev,
            &src.qdisc_of,
            (&self.names, &src.boards),
            self.seed,
            &mut self.opts,
            &mut self.errs,
        );
        self.add_root(dev, name, q, members, virtual_dev)
    }

    /// Adds the root queue of `dev` (shown as `name`) with qdisc `q` over `members`, with
    /// its wakeup timer; its port is the first member's.
    fn add_root(
        &mut self,
        dev: DevInfo,
        name: String,
        q: Box<dyn Qdisc>,
        members: Vec<IfaceId>,
        virtual_dev: bool,
    ) -> &mut RootQueue {
        let r = self.roots.len() as RootId;
        let wakeup = self.timers.add();
        self.timer_owners.push(TimerOwner::Root(r));
        let port = self.ports[members[0].0 as usize];
        self.roots.push(RootQueue::new(
            dev,
            name,
            q,
            members,
            virtual_dev,
            port,
            wakeup,
        ));
        self.roots.last_mut().expect("just pushed")
    }
}

/// The size table of the root qdisc on device `dev`, if its `[[qdiscs]]` entry has `stab`.
fn stab_of(
    qdisc_of: &HashMap<&str, &QdiscSpec>,
    dev: &str,
) -> Option<std::sync::Arc<qdisc::SizeTable>> {
    let spec = qdisc_of.get(dev)?.stab.as_ref()?;
    Some(std::sync::Arc::new(qdisc::SizeTable::new(spec)))
}

/// The root qdisc of device `dev`: an override given by the caller, or what the scenario's
/// `[[qdiscs]]` entry for it says (pfifo by default), with its display name.
fn root_qdisc(
    dev: &DevInfo,
    qdisc_of: &HashMap<&str, &QdiscSpec>,
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
