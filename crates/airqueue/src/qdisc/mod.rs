//! Queueing disciplines: the [`Qdisc`] contract and the disciplines, one file each, named
//! by their `tc` ids.
//!
//! The contract follows Linux `net/sched` (and ns-3's `QueueDisc`): an egress interface
//! pushes packets with `enqueue` and pulls with `dequeue` when its transmitter is free.
//! A discipline sees only what a real box could know, through [`QdiscCtx`]: the clock, its
//! own interface's properties, the packets' header fields, and a drop sink that records the
//! reason of every packet it discards. Non-work-conserving disciplines (TBF, HTB) tell the
//! interface when to ask again through `next_wakeup`.
//!
//! # Classful trees
//!
//! Classful disciplines (`prio`, `drr`, `htb`) own child disciplines as `Box<dyn Qdisc>`,
//! any kind, nested to any depth, and count per class through [`Child`]: enqueued,
//! dequeued, drops by reason, marks, sojourn times, with the identity
//! `enqueued = dequeued + dropped after enqueue + backlog` checked in debug builds (as
//! ns-3's `QueueDisc` checks its own). [`Qdisc::report_classes`] lists them for the
//! per-class result table.
//!
//! # Virtual devices: dequeue for a member
//!
//! A virtual device (Linux IMQ, seed 000 §2.1) puts one qdisc in front of several real
//! interfaces. Each member's transmitter, when idle, asks that qdisc for a packet *for
//! itself*: `ctx.member` is then `Some(<its interface id>)` and the answer must be a packet
//! whose `out_iface` is that member (or `None`). On a real interface `ctx.member` is
//! `None` and every packet is for the asker. The rules:
//!
//! - A discipline that honours `ctx.member` says so with [`Qdisc::serves_members`]; every
//!   discipline here does, each in the way that keeps its semantics closest to what it
//!   would do if the asking member's packets were its whole input (see each file):
//!   - the FIFOs serve each member in its own arrival order (they skip packets of other
//!     members rather than block behind them), sharing one limit;
//!   - `prio` tries its bands in order, and `drr`, `htb`, `sfq` and `fq_codel` skip
//!     classes, slots or flows with nothing for the asker, leaving their round-robin
//!     state (places, deficits, allotments, new/old lists) for the other members untouched;
//!   - state that describes one queue drained by one server is kept per member
//!     (`member_lanes.rs`): CoDel's state in `codel` (and per flow in `fq_codel`), RED's
//!     average, the virtual time and tags of `stfq` and `wf2q+`, each member being a
//!     server of its own;
//!   - `tbf` keeps one bucket for the aggregate, handing tokens in arrival order among
//!     the members waiting for them.
//! - A discipline that does not (one written without virtual devices in mind) is served
//!   through [`dequeue_for`]/[`peek_for`]: its head goes to the asker only if it is the
//!   asker's (head-of-line blocking, never a wrong interface). It still works on a
//!   virtual device, less efficiently.
//! - `peek` must return exactly what the next `dequeue` with the same `ctx.member` returns
//!   (disciplines that decide at dequeue time keep the packet they peeked, as Linux's
//!   `qdisc_peek_dequeued` does, one per asking member).
//! - When a member asks and gets nothing while packets wait, `next_wakeup` says when any
//!   of them may become sendable; the simulator then asks every idle member again.
//! - A discipline is asked either always without a member (a real interface) or always by
//!   members (a virtual device). Some set up their per-member state at the first request
//!   of a member, so that the real-interface path does no per-member work.

pub mod adwiser;
mod bfifo;
mod btwn;
mod cake;
mod cawn;
mod cif_q;
mod class_stats;
pub mod classify;
mod codel;
mod conf;
pub mod dfq;
mod drr;
mod fair_classes;
mod fifo;
mod fifo_queue;
mod fq_codel;
mod host_drr;
mod host_queues;
mod htb;
mod jiffy_flows;
mod member_lanes;
mod peek_stash;
mod pfifo;
mod pfifo_fast;
mod pfifo_head_drop;
mod prio;
mod red;
mod sfq;
mod stab;
mod stfq;
mod tbf;
mod wf2q_plus;

pub use adwiser::{
    virtual_bytes, Adwiser, AdwiserConf, AdwiserMeasure, AdwiserPolicyConf, AdwiserQueues,
    AdwiserVoiceConf, AdwiserWanConf, AdwiserWeights,
};
pub use bfifo::{Bfifo, BfifoConf};
pub use btwn::{Btwn, BtwnConf};
pub use cake::{Cake, CakeConf, CakeDiffserv, CakeIsolation};
pub use cawn::{Cawn, CawnConf, CawnRole, FlagBoard, FlagBoards, IwSpy, IW_MAX_SPY};
pub use cif_q::{CifQ, CifQConf, CifVariant};
pub use class_stats::{Child, ClassReport, ClassSample, ClassStats};
pub use codel::{Codel, CodelConf};
pub use conf::QdiscConf;
pub use dfq::{drop_probability, Dfq, DfqConf, HostKind, MonitorReport};
pub use drr::{Drr, DrrClassConf, DrrConf};
pub use fair_classes::{FairClassConf, FairControl, VirtualLength};
pub use fq_codel::{FqCodel, FqCodelConf, FqCodelStats};
pub use host_drr::{HostDrr, HostDrrConf};
pub use htb::{Htb, HtbClassConf, HtbConf};
pub use pfifo::{Pfifo, PfifoConf};
pub use pfifo_fast::{PfifoFast, PfifoFastConf};
pub use pfifo_head_drop::{PfifoHeadDrop, PfifoHeadDropConf};
pub use prio::{rt_tos2priority, Prio, PrioClassConf, PrioConf};
pub use red::{Red, RedConf};
pub use sfq::{Sfq, SfqConf};
pub use stab::{LinkLayer, SizeTable, StabConf};
pub use stfq::{Stfq, StfqConf};
pub use tbf::{Tbf, TbfConf};
pub use wf2q_plus::{Wf2qPlus, Wf2qPlusConf};

use crate::conf::ScenarioError;
use crate::engine::{stream, SimRng, SimTime};
use crate::link::{AnyMedium, LinkView, Neighbour};
use crate::packet::{DropReason, NodeId, PacketArena, PacketId, ECN_CE};
use crate::topology::PortRef;
use classify::NameTable;

/// What `enqueue` did with the offered packet (Linux's NET_XMIT_* codes).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Queued (NET_XMIT_SUCCESS).
    Queued,
    /// Queued, but the discipline dropped other packets to make room (NET_XMIT_CN).
    Congested,
    /// The offered packet itself was dropped (NET_XMIT_DROP); it went to the drop sink.
    Dropped,
}

/// What a discipline may know about the interface it sits on.
#[derive(Clone, Debug)]
pub struct DevInfo {
    /// `<node>.<link>`.
    pub name: String,
    pub rate_bps: u64,
    pub mtu: u32,
    /// Linux's psched_mtu: MTU plus the link-layer header (here: MTU + overhead).
    pub psched_mtu: u32,
    /// Bytes of link-layer header counted in every packet's length as the qdiscs see it
    /// (Linux's `skb->len` includes the 14 B Ethernet header on Ethernet and veth); 0 on a
    /// raw-IP device.
    pub link_header: u32,
    /// The root qdisc's size table (`stab`), if any.
    pub stab: Option<std::sync::Arc<SizeTable>>,
}

/// Where disciplines put the packets they drop; the simulator frees and counts them. ECN
/// marks (packets kept but marked CE) are counted here too.
#[derive(Default)]
pub struct DropSink {
    pub(crate) pending: Vec<(PacketId, DropReason)>,
    pub(crate) marks: u64,
}

impl DropSink {
    pub fn new() -> Self {
        Self::default()
    }
    /// Takes the number of CE marks recorded since the last call.
    pub fn take_marks(&mut self) -> u64 {
        std::mem::take(&mut self.marks)
    }
    /// Takes the recorded drops (the buffer keeps its capacity).
    pub fn drain(&mut self) -> std::vec::Drain<'_, (PacketId, DropReason)> {
        self.pending.drain(..)
    }
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
}

/// Everything a discipline may touch during one call.
pub struct QdiscCtx<'a> {
    pub now: SimTime,
    pub packets: &'a mut PacketArena,
    pub dev: &'a DevInfo,
    /// On a virtual device, the member interface asking for a packet (`dequeue`/`peek`):
    /// only packets with that `out_iface` may be returned. `None` on a real interface and
    /// during `enqueue`. See the module documentation.
    pub member: Option<u32>,
    drops: &'a mut DropSink,
    links: Option<LinkAccess<'a>>,
}

/// Read-only access to the media below a root queue: what [`QdiscCtx::link`] reads.
#[derive(Copy, Clone)]
pub struct LinkAccess<'a> {
    /// (Vectors rather than slices: one pointer each to build for every qdisc call.)
    pub(crate) media: &'a Vec<AnyMedium>,
    /// Per interface: its medium and port.
    pub(crate) ports: &'a Vec<PortRef>,
    /// The interface a real device's qdisc sits on (`None` for a virtual device: the
    /// asking member is `QdiscCtx::member`).
    pub(crate) iface: Option<u32>,
}

impl<'a> QdiscCtx<'a> {
    pub fn new(
        now: SimTime,
        packets: &'a mut PacketArena,
        dev: &'a DevInfo,
        drops: &'a mut DropSink,
    ) -> Self {
        QdiscCtx {
            now,
            packets,
            dev,
            member: None,
            drops,
            links: None,
        }
    }

    /// A context with read access to the link views of the media below, built in place
    /// (what the root queues build for every call; [`with_links`](Self::with_links) moves
    /// a whole context to add them).
    #[inline(always)]
    pub(crate) fn linked(
        now: SimTime,
        packets: &'a mut PacketArena,
        dev: &'a DevInfo,
        drops: &'a mut DropSink,
        member: Option<u32>,
        links: LinkAccess<'a>,
    ) -> Self {
        QdiscCtx {
            now,
            packets,
            dev,
            member,
            drops,
            links: Some(links),
        }
    }

    /// The same context, with read access to the link views of the media below.
    #[inline]
    pub fn with_links(mut self, links: LinkAccess<'a>) -> Self {
        self.links = Some(links);
        self
    }

    /// What the driver of the asking interface (the device itself, or the asking member of
    /// a virtual device) reports about the link to `neighbour`: PHY rate, link quality,
    /// whether it can send there now, the hardware queue's backlog. Only what a real box
    /// could read (`iw station dump`, an HCI), never the simulator's channel state; see
    /// [`crate::link`]. `None` when the context has no link access (unit tests) or the node
    /// is no neighbour.
    pub fn link(&self, neighbour: NodeId) -> Option<LinkView> {
        let iface = self.member.or(self.links?.iface)?;
        self.link_of(iface, neighbour)
    }

    /// The link view of interface `iface` (e.g. any member of a virtual device) towards
    /// `neighbour`.
    pub fn link_of(&self, iface: u32, neighbour: NodeId) -> Option<LinkView> {
        let l = self.links?;
        let p = l.ports.get(iface as usize)?;
        l.media[p.medium as usize]
            .get()
            .view(p.port as usize, neighbour)
    }

    /// The interface asking: the device's own, or the asking member of a virtual device
    /// (`None` without link access).
    pub fn iface(&self) -> Option<u32> {
        self.member.or(self.links?.iface)
    }

    /// The neighbours interface `iface` reaches (empty without link access).
    pub fn neighbours(&self, iface: u32) -> &[Neighbour] {
        match self.links {
            Some(l) => match l.ports.get(iface as usize) {
                Some(p) => l.media[p.medium as usize].get().neighbours(p.port as usize),
                None => &[],
            },
            None => &[],
        }
    }

    /// The same context, asking on behalf of member interface `m` of a virtual device.
    pub fn for_member(mut self, m: u32) -> Self {
        self.member = Some(m);
        self
    }

    /// Whether `pkt` may go to the asker (always, unless a member of a virtual device asks
    /// and `pkt` leaves by another member).
    #[inline]
    pub fn is_for_asker(&self, pkt: PacketId) -> bool {
        self.member
            .is_none_or(|m| self.packets.get(pkt).out_iface == m)
    }

    /// A bookmark of the drops and marks recorded so far, to attribute what a child
    /// discipline drops or marks during one call to its class ([`Child`]).
    #[inline]
    pub(crate) fn tally(&self) -> (usize, u64) {
        (self.drops.pending.len(), self.drops.marks)
    }

    /// Reasons of the drops recorded since `tally` returned `mark`.
    #[inline]
    pub(crate) fn drops_since(&self, mark: usize) -> impl Iterator<Item = DropReason> + '_ {
        self.drops.pending[mark..].iter().map(|&(_, r)| r)
    }

    /// Discards `pkt` for `reason`. The discipline must not touch the handle afterwards.
    #[inline]
    pub fn drop_packet(&mut self, pkt: PacketId, reason: DropReason) {
        self.drops.pending.push((pkt, reason));
    }

    /// Marks `pkt` Congestion Experienced (RFC 3168) if it is ECN-capable and returns
    /// true; a Not-ECT packet is left alone and false is returned (the caller drops it,
    /// as Linux's `INET_ECN_set_ce` failing makes CoDel and RED drop).
    #[inline]
    pub fn mark_ce(&mut self, pkt: PacketId) -> bool {
        let p = self.packets.get_mut(pkt);
        if p.ecn == 0 {
            return false;
        }
        p.ecn = ECN_CE;
        self.drops.marks += 1;
        true
    }

    /// The length a discipline charges for a packet (Linux's `qdisc_pkt_len`): the IP
    /// datagram plus the device's link-layer header (`skb->len`; 0 by default, a raw-IP
    /// device such as tun or ppp), through the root qdisc's size table when it has one
    /// (`stab`, [`SizeTable`]). Link framing (`links.*.overhead`) is paid by the
    /// transmitter, not by the qdisc.
    #[inline]
    pub fn len_of(&self, pkt: PacketId) -> u32 {
        let len = self.packets.size(pkt) + self.dev.link_header;
        match &self.dev.stab {
            None => len,
            Some(t) => stab_len(t, len),
        }
    }
}

/// [`QdiscCtx::len_of`] through a size table, out of line: most devices have none, and
/// the table's arithmetic inlined into every discipline's enqueue and dequeue would cost
/// them registers.
#[cold]
#[inline(never)]
fn stab_len(t: &SizeTable, len: u32) -> u32 {
    t.pkt_len(len)
}

/// A queueing discipline.
pub trait Qdisc: Send {
    /// The `tc` id of the discipline (`"pfifo"`).
    fn kind(&self) -> &'static str;
    /// Offers a packet. Ownership passes to the discipline, which either queues it or hands
    /// it (or others) to `ctx.drop_packet`.
    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict;
    /// The next packet to transmit, if the discipline is willing to send now.
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId>;
    /// The packet `dequeue` would return, without removing it.
    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId>;
    /// Packets queued.
    fn len(&self) -> usize;
    /// Bytes queued.
    fn backlog_bytes(&self) -> u64;
    /// (`len`, `backlog_bytes`) in one call: the root queue's statistics read both after
    /// every enqueue and dequeue. Disciplines on the hot path return their two counters.
    #[inline]
    fn backlog(&self) -> (usize, u64) {
        (self.len(), self.backlog_bytes())
    }
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether `dequeue` of an empty instance returns `None` and changes nothing (no AQM
    /// state, no clock, no wake-up): the plain FIFOs, which Linux marks
    /// `TCQ_F_CAN_BYPASS` for the same reason. A root queue that knows such a discipline
    /// is empty does not ask it when its port frees (`sim::root_queue`), the common case
    /// after each packet on a lightly loaded link.
    fn idle_when_empty(&self) -> bool {
        false
    }
    /// For non-work-conserving disciplines: when `dequeue` may next succeed although it
    /// returned `None` with packets queued. Work-conserving disciplines return `None`.
    /// Classful parents pass on their children's wakeups that lie after `now` (a child
    /// that is due but was not asked, because its parent is throttled, is no reason to
    /// wake now; the parent's own schedule covers it).
    fn next_wakeup(&self, _now: SimTime) -> Option<SimTime> {
        None
    }
    /// Packets the discipline made itself over the run and sent or holds (a striping
    /// trunk's SRR markers; the conservation check adds them to what entered).
    fn created(&self) -> u64 {
        0
    }
    /// Whether `dequeue` and `peek` honour `ctx.member` (return only the asking member's
    /// packets). Disciplines that do not are served head-of-line through [`dequeue_for`].
    fn serves_members(&self) -> bool {
        false
    }
    /// Appends one row per class (and per class of nested classful children, named
    /// `<prefix><class>`, e.g. `wlan/voice`). `parent` is the class the discipline itself
    /// sits in (empty at the root). Classless disciplines report nothing.
    fn report_classes(&self, _prefix: &str, _parent: &str, _out: &mut Vec<ClassReport>) {}
    /// Appends the live numbers of every class, one per row of [`Qdisc::report_classes`]
    /// and in the same order, for the per-class time series. Called every
    /// `run.sample_interval`, so it must not allocate.
    fn sample_classes(&self, _out: &mut Vec<ClassSample>) {}
    /// Starts a new measurement period for per-class counters (the warm-up ended).
    fn reset_stats(&mut self) {}
    /// `tc -s`'s `overlimits`: how often the discipline was throttled (a shaper refused
    /// to send for lack of tokens: tbf per refused dequeue as `tbf_dequeue`, htb per class
    /// going over its limit as `htb_change_class_mode`). Since the last `reset_stats`.
    fn overlimits(&self) -> u64 {
        0
    }
    /// What the driver of interface `iface` below this discipline reports about a
    /// neighbour changed ([`QdiscCtx::link_of`] reads the new state). Called before the
    /// interface asks for packets again; disciplines that read link views refresh what
    /// they derived from them here.
    fn link_changed(&mut self, _iface: u32, _ctx: &mut QdiscCtx) {}
    /// `tc qdisc change`: takes the parameters of `conf`, which is of this discipline's
    /// kind (the caller checks; Linux refuses another kind with "Invalid qdisc name"),
    /// keeping the queued packets and the state Linux keeps. Problems go to `errs` under
    /// `b.path`. The default refuses: the discipline does not support `change` yet (use
    /// `replace`).
    /// A node hook this discipline needs on the node it sits on (`dfq`'s RTT detector,
    /// which reads the replies to the gateway's probes; `adwiser`'s WLAN meter), attached
    /// when the simulation is built. `node` names the node; `node_addr` is its IP address;
    /// `iface` is the interface the qdisc sits on (its first member's, for a virtual
    /// device).
    fn node_hook(
        &self,
        _node: &str,
        _node_addr: u32,
        _iface: u32,
    ) -> Option<Box<dyn crate::hook::NodeHook>> {
        None
    }
    fn change(&mut self, _conf: &QdiscConf, b: &BuildCtx, errs: &mut ScenarioError) {
        errs.push(
            b.path.clone(),
            format!(
                "{} does not support `tc qdisc change` here yet; use `replace = {{ kind = \"{}\", … }}` (its packets are dropped)",
                self.kind(),
                self.kind()
            ),
        );
    }
}

/// `q.peek(ctx)` for whoever asks: a discipline that does not serve members only offers its
/// head, and only to the member it is for (head-of-line blocking).
#[inline]
pub fn peek_for(q: &mut dyn Qdisc, ctx: &mut QdiscCtx) -> Option<PacketId> {
    let p = q.peek(ctx)?;
    (q.serves_members() || ctx.is_for_asker(p)).then_some(p)
}

/// `q.dequeue(ctx)` for whoever asks; see [`peek_for`].
#[inline]
pub fn dequeue_for(q: &mut dyn Qdisc, ctx: &mut QdiscCtx) -> Option<PacketId> {
    if ctx.member.is_some() && !q.serves_members() {
        let head = peek_for(q, ctx)?;
        let got = q.dequeue(ctx);
        debug_assert_eq!(
            got,
            Some(head),
            "{}: dequeue returned another packet than peek",
            q.kind()
        );
        return got;
    }
    q.dequeue(ctx)
}

/// What building a discipline may use: its device, the scenario's names (to resolve
/// `match` tables), the run seed for its random streams, and a path for its problems.
pub struct BuildCtx<'a> {
    pub dev: &'a DevInfo,
    pub names: &'a NameTable,
    pub seed: u64,
    /// Where the discipline sits in the scenario, e.g. `qdiscs.router.bottleneck` or
    /// `qdiscs.nap.classes.wlan.qdisc`: the prefix of its problems' paths and the stable
    /// name of its random streams.
    pub path: String,
    /// The flag boards through which disciplines on different interfaces of a node
    /// cooperate (`cawn`, seed 000 §3.2); `None` where none can be shared (a discipline
    /// attached at run time, benches).
    pub boards: Option<&'a FlagBoards>,
}

impl BuildCtx<'_> {
    /// The context of a child discipline at `self.path.<suffix>`.
    pub fn child(&self, suffix: &str) -> BuildCtx<'_> {
        BuildCtx {
            dev: self.dev,
            names: self.names,
            seed: self.seed,
            path: format!("{}.{suffix}", self.path),
            boards: self.boards,
        }
    }

    /// A random stream of this discipline (`purpose` e.g. "perturb"), independent of every
    /// other component's.
    pub fn rng(&self, purpose: &str) -> SimRng {
        stream(self.seed, &format!("qdisc:{}:{purpose}", self.path))
    }
}

/// Builds the discipline a scenario asks for. Problems that need the scenario's names
/// (unknown flows in a `match`, a `default` class that does not exist) go to `errs` with
/// their paths; the result is then `None`.
pub fn build(conf: &QdiscConf, b: &BuildCtx, errs: &mut ScenarioError) -> Option<Box<dyn Qdisc>> {
    let before = errs.problems.len();
    let q: Box<dyn Qdisc> = match conf {
        QdiscConf::Pfifo(c) => Box::new(Pfifo::new(c.limit)),
        QdiscConf::Bfifo(c) => Box::new(Bfifo::new(c.limit.0)),
        QdiscConf::PfifoHeadDrop(c) => Box::new(PfifoHeadDrop::new(c.limit)),
        QdiscConf::Codel(c) => Box::new(Codel::new(c, b.dev.psched_mtu)),
        QdiscConf::FqCodel(c) => Box::new(FqCodel::from_conf(c, b)),
        QdiscConf::Tbf(c) => Box::new(Tbf::from_conf(c, b, errs)?),
        QdiscConf::Sfq(c) => Box::new(Sfq::from_conf(c, b, errs)?),
        QdiscConf::Stfq(c) => Box::new(Stfq::from_conf(c, b, errs)),
        QdiscConf::Wf2qPlus(c) => Box::new(Wf2qPlus::from_conf(c, b, errs)),
        QdiscConf::Red(c) => Box::new(Red::from_conf(c, b, errs)?),
        QdiscConf::PfifoFast(c) => Box::new(PfifoFast::with_limit(c.limit, c.shared_limit)),
        QdiscConf::Prio(c) => Box::new(Prio::build(c, b, errs)),
        QdiscConf::Drr(c) => Box::new(Drr::build(c, b, errs)),
        QdiscConf::Htb(c) => Box::new(Htb::build(c, b, errs)),
        QdiscConf::Dfq(c) => Box::new(Dfq::from_conf(c, b, errs)?),
        QdiscConf::HostDrr(c) => Box::new(HostDrr::from_conf(c, b, errs)?),
        QdiscConf::Cake(c) => Box::new(Cake::from_conf(c, b, errs)?),
        QdiscConf::Adwiser(c) => Box::new(Adwiser::from_conf(c, b, errs)?),
        QdiscConf::CifQ(c) => Box::new(CifQ::from_conf(c, b, errs)),
        QdiscConf::Btwn(c) => Box::new(Btwn::from_conf(c, b, errs)),
        QdiscConf::Cawn(c) => Box::new(Cawn::from_conf(c, b, errs)),
    };
    (errs.problems.len() == before).then_some(q)
}

/// Builds the child discipline of class `class` (absent: Linux's default child, `pfifo`
/// with the device's txqueuelen), or a placeholder after a problem (the caller's result is
/// discarded then).
pub(crate) fn build_child(
    conf: Option<&QdiscConf>,
    class: &str,
    b: &BuildCtx,
    errs: &mut ScenarioError,
) -> Child {
    let default = QdiscConf::default();
    let conf = conf.unwrap_or(&default);
    let q = build(conf, &b.child(&format!("classes.{class}.qdisc")), errs)
        .unwrap_or_else(|| Box::new(Pfifo::new(0)));
    Child::new(q)
}

/// Semantic checks of a discipline's parameters that need no scenario names (ranges,
/// class trees), at `path` (`qdiscs.<name>`); children are checked recursively. Checks
/// that need names (flows in a `match`) happen in [`build`].
pub fn check(conf: &QdiscConf, path: &str, errs: &mut ScenarioError) {
    match conf {
        QdiscConf::Pfifo(_) | QdiscConf::PfifoHeadDrop(_) | QdiscConf::PfifoFast(_) => {}
        QdiscConf::Bfifo(c) => {
            if c.limit.0 > u32::MAX as u64 {
                errs.push(format!("{path}.limit"), "is larger than 4 GiB; lower it");
            }
        }
        QdiscConf::Prio(c) => c.check(path, errs),
        QdiscConf::Drr(c) => c.check(path, errs),
        QdiscConf::Htb(c) => c.check(path, errs),
        // Linux refuses more than 65536 (`fq_codel_change`); the flow table is allocated
        // at build, so a larger count would be an allocation, not an error.
        QdiscConf::FqCodel(c) if c.flows == 0 || c.flows > 65536 => errs.push(
            format!("{path}.flows"),
            format!(
                "{} flow queues: must be 1–65536 (Linux's limit), e.g. 1024",
                c.flows
            ),
        ),
        // The leaf disciplines check their parameters when they are built (tbf.rs …).
        QdiscConf::Codel(_)
        | QdiscConf::FqCodel(_)
        | QdiscConf::Tbf(_)
        | QdiscConf::Sfq(_)
        | QdiscConf::Stfq(_)
        | QdiscConf::Wf2qPlus(_)
        | QdiscConf::Red(_)
        | QdiscConf::Dfq(_)
        | QdiscConf::HostDrr(_)
        | QdiscConf::Cake(_)
        | QdiscConf::Adwiser(_)
        | QdiscConf::CifQ(_)
        | QdiscConf::Btwn(_)
        | QdiscConf::Cawn(_) => {}
    }
}

/// Checks the names of a classful discipline's classes: present, unique, and usable in
/// result tables (no `/`, which separates nested classes, no dots or spaces).
pub(crate) fn check_class_names<'a>(
    path: &str,
    names: impl Iterator<Item = &'a str>,
    errs: &mut ScenarioError,
) {
    let mut seen = std::collections::HashSet::new();
    for (i, n) in names.enumerate() {
        if n.is_empty() {
            errs.push(format!("{path}.classes[{i}].name"), "must not be empty");
        } else if n.contains(['/', '.']) || n.chars().any(char::is_whitespace) {
            errs.push(
                format!("{path}.classes.{n}.name"),
                format!("\"{n}\" may not contain '/', dots or spaces; use '-' or '_'"),
            );
        } else if !seen.insert(n) {
            errs.push(
                format!("{path}.classes.{n}.name"),
                format!("\"{n}\" names more than one class; class names must be unique"),
            );
        }
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! A small harness to drive a discipline without the simulator.
    use super::*;
    use crate::packet::{FlowId, Location, Packet};

    pub struct Harness {
        pub packets: PacketArena,
        pub dev: DevInfo,
        pub drops: DropSink,
        pub now: SimTime,
    }

    impl Harness {
        pub fn new() -> Self {
            Harness {
                packets: PacketArena::new(),
                dev: DevInfo {
                    name: "test.dev".into(),
                    rate_bps: 10_000_000,
                    mtu: 1500,
                    psched_mtu: 1514,
                    link_header: 0,
                    stab: None,
                },
                drops: DropSink::new(),
                now: SimTime::ZERO,
            }
        }
        pub fn packet(&mut self, flow: u32, size: u32) -> PacketId {
            self.packets.alloc(
                Packet::udp(FlowId(flow), size, self.now),
                Location::Source(flow),
            )
        }
        /// Offers `pkt` now (stamped `enqueued`, as the simulator does at the root).
        pub fn enqueue(&mut self, q: &mut dyn Qdisc, pkt: PacketId) -> Verdict {
            self.packets.get_mut(pkt).enqueued = self.now;
            let mut ctx = QdiscCtx::new(self.now, &mut self.packets, &self.dev, &mut self.drops);
            q.enqueue(pkt, &mut ctx)
        }
        pub fn dequeue(&mut self, q: &mut dyn Qdisc) -> Option<PacketId> {
            let mut ctx = QdiscCtx::new(self.now, &mut self.packets, &self.dev, &mut self.drops);
            q.dequeue(&mut ctx)
        }
        /// Dequeues on behalf of member `m` of a virtual device.
        pub fn dequeue_for(&mut self, q: &mut dyn Qdisc, m: u32) -> Option<PacketId> {
            let mut ctx = QdiscCtx::new(self.now, &mut self.packets, &self.dev, &mut self.drops)
                .for_member(m);
            dequeue_for(q, &mut ctx)
        }
        pub fn peek(&mut self, q: &mut dyn Qdisc) -> Option<PacketId> {
            let mut ctx = QdiscCtx::new(self.now, &mut self.packets, &self.dev, &mut self.drops);
            q.peek(&mut ctx)
        }
        /// Peeks on behalf of member `m` of a virtual device.
        pub fn peek_for(&mut self, q: &mut dyn Qdisc, m: u32) -> Option<PacketId> {
            let mut ctx = QdiscCtx::new(self.now, &mut self.packets, &self.dev, &mut self.drops)
                .for_member(m);
            peek_for(q, &mut ctx)
        }
        /// A packet of `flow` (its own 5-tuple) leaving by interface `out`.
        pub fn member_packet(&mut self, flow: u32, size: u32, out: u32) -> PacketId {
            self.packet_with(flow, size, |p| {
                p.out_iface = out;
                p.tuple.src_port = 1000 + flow as u16;
                p.tuple.dst_addr = out;
            })
        }
        /// A packet with header fields set by `f` (DSCP, priority, out_iface, …).
        pub fn packet_with(
            &mut self,
            flow: u32,
            size: u32,
            f: impl FnOnce(&mut Packet),
        ) -> PacketId {
            let mut p = Packet::udp(FlowId(flow), size, self.now);
            f(&mut p);
            self.packets.alloc(p, Location::Source(flow))
        }
        /// A context for building disciplines in tests (no scenario names).
        pub fn build_ctx<'a>(&'a self, names: &'a NameTable) -> BuildCtx<'a> {
            BuildCtx {
                dev: &self.dev,
                names,
                seed: 1,
                path: "qdiscs.test".into(),
                boards: None,
            }
        }
        pub fn dropped(&mut self) -> Vec<(PacketId, DropReason)> {
            self.drops.drain().collect()
        }
    }
}

#[cfg(test)]
mod member_contract_tests {
    //! The dequeue-for-a-member contract, checked for every discipline that serves members
    //! without needing a scenario (the classful ones have their own tests).
    use super::testing::Harness;
    use super::*;
    use std::collections::HashMap;

    /// Work-conserving configurations (tbf far above the offered load, red with its
    /// thresholds above the backlog), so that a member is owed a packet whenever one of
    /// its packets is queued.
    const KINDS: &[&str] = &[
        "kind = \"pfifo\"",
        "kind = \"bfifo\"",
        "kind = \"pfifo_head_drop\"",
        "kind = \"pfifo_fast\"",
        "kind = \"tbf\"\nrate = \"10Gbit\"\nburst = 100000\nlimit = 1000000",
        "kind = \"sfq\"",
        // Every flow of both members in one slot / flow queue (hash collisions).
        "kind = \"sfq\"\ndivisor = 1",
        "kind = \"codel\"",
        "kind = \"fq_codel\"",
        "kind = \"fq_codel\"\nflows = 1",
        "kind = \"red\"\nlimit = 4000000\nmin = 400000\nmax = 1200000",
        "kind = \"stfq\"",
        "kind = \"wf2q+\"",
        "kind = \"cif-q\"",
        "kind = \"cif-q\"\nvariant = \"simple\"",
    ];

    /// Reference: the contract in the module documentation. Packets of 6 flows, 3 per
    /// member (interfaces 1 and 2), the first ten all for member 2, are drained by the two
    /// members asking in an irregular order. Every answer is for the asker, `peek` (twice)
    /// returns what the next dequeue for the same asker returns, a member is never refused
    /// while a packet of its own is queued (no head-of-line blocking), each flow leaves in
    /// order, and every packet leaves.
    #[test]
    fn every_leaf_discipline_serves_each_member_its_own_packets_without_blocking() {
        for conf in KINDS {
            let mut h = Harness::new();
            let conf_t: QdiscConf = toml::from_str(conf).unwrap();
            let names = NameTable::default();
            let mut errs = ScenarioError::default();
            let mut q = build(&conf_t, &h.build_ctx(&names), &mut errs).expect(conf);
            assert!(q.serves_members(), "{conf}");
            let mut sent: HashMap<u32, Vec<PacketId>> = HashMap::new();
            let mut owed = [0usize; 3];
            for i in 0..60u32 {
                let flow = if i < 10 { 1 } else { i % 6 };
                let member = 1 + flow % 2;
                let p = h.member_packet(flow, 100 + 137 * (i % 11), member);
                assert_eq!(h.enqueue(&mut *q, p), Verdict::Queued, "{conf}");
                sent.entry(flow).or_default().push(p);
                owed[member as usize] += 1;
            }
            let mut got: HashMap<u32, Vec<PacketId>> = HashMap::new();
            let pattern = [1u32, 1, 2, 1, 2, 2, 2, 1];
            for step in 0.. {
                if owed[1] + owed[2] == 0 {
                    break;
                }
                assert!(step < 1000, "{conf}: does not drain");
                h.now += SimTime::from_micros(1);
                let m = pattern[step % pattern.len()];
                let peeked = h.peek_for(&mut *q, m);
                assert_eq!(
                    h.peek_for(&mut *q, m),
                    peeked,
                    "{conf}: peek is not idempotent"
                );
                let d = h.dequeue_for(&mut *q, m);
                assert_eq!(d, peeked, "{conf}: dequeue differs from peek");
                match d {
                    Some(p) => {
                        let pk = h.packets.get(p);
                        assert_eq!(pk.out_iface, m, "{conf}: a packet for another member");
                        owed[m as usize] -= 1;
                        got.entry(pk.flow.0).or_default().push(p);
                    }
                    None => assert_eq!(owed[m as usize], 0, "{conf}: member {m} blocked"),
                }
            }
            assert!(h.dropped().is_empty(), "{conf}");
            assert_eq!(q.len(), 0, "{conf}");
            assert_eq!(q.backlog_bytes(), 0, "{conf}");
            assert_eq!(got, sent, "{conf}: per-flow order");
        }
    }
}

#[cfg(test)]
mod member_view_tests {
    //! "Each member sees the discipline as if its packets were the whole input": for the
    //! disciplines that keep per-member lanes or skip other members' flows, a member's
    //! service on a virtual device equals that of a separate instance fed only its packets.
    use super::testing::Harness;
    use super::*;
    use crate::engine::stream;
    use rand::Rng;
    use std::collections::HashMap;

    /// Member interfaces and their line rates (a fast and a slow one, as WLAN and
    /// Bluetooth).
    const MEMBERS: [(u32, u64); 2] = [(1, 10_000_000), (2, 1_000_000)];
    /// Traffic mixes: (flow, member, offered rate in bit/s). In the first both members are
    /// overloaded (standing queues, drops); in the second the slow member's flows are
    /// sparse (they empty and come back: fq_codel's new-flow path).
    const MIXES: [&[(u32, u32, u64)]; 2] = [
        &[
            (0, 1, 8_000_000),
            (1, 2, 2_000_000),
            (2, 1, 4_000_000),
            (3, 2, 1_000_000),
            (4, 1, 300_000),
            (5, 2, 50_000),
        ],
        &[
            (0, 1, 12_000_000),
            (1, 2, 500_000),
            (2, 1, 300_000),
            (3, 2, 200_000),
            (5, 2, 50_000),
        ],
    ];
    const STEP_NS: u64 = 100_000;
    const STEPS: u64 = 20_000;

    /// What one member saw: per request the packet it got (flow, index in the flow), and
    /// the packets of its flows that were dropped.
    #[derive(Debug, Default, PartialEq)]
    struct View {
        answers: Vec<Option<(u32, u32)>>,
        drops: Vec<(u32, u32)>,
    }

    /// Runs `conf` with the flows of `members` only (arrivals from a fixed random stream,
    /// 64–1500 B); each member asks whenever its transmitter is free (it then sends for
    /// size × 8 / rate), in 100 µs steps.
    fn run(conf: &str, flows: &[(u32, u32, u64)], members: &[u32]) -> HashMap<u32, View> {
        let mut h = Harness::new();
        let conf_t: QdiscConf = toml::from_str(conf).unwrap();
        let names = NameTable::default();
        let mut errs = ScenarioError::default();
        let mut q = build(&conf_t, &h.build_ctx(&names), &mut errs).expect(conf);
        let mut rng = stream(7, "test:member_view");
        let mut next_arrival: Vec<u64> = flows.iter().map(|_| 0).collect();
        let mut count = vec![0u32; flows.len()];
        let mut id: HashMap<PacketId, (u32, u32)> = HashMap::new();
        let mut busy_until: HashMap<u32, u64> = HashMap::new();
        let mut views: HashMap<u32, View> = members.iter().map(|&m| (m, View::default())).collect();
        for step in 0..STEPS {
            let now = step * STEP_NS;
            h.now = SimTime(now);
            for (i, &(flow, member, rate)) in flows.iter().enumerate() {
                while next_arrival[i] <= now {
                    // The same draws whichever members run, so arrivals match.
                    let size = rng.random_range(64..1500u32);
                    next_arrival[i] += size as u64 * 8 * 1_000_000_000 / rate;
                    if !members.contains(&member) {
                        continue;
                    }
                    let p = h.member_packet(flow, size, member);
                    id.insert(p, (flow, count[i]));
                    count[i] += 1;
                    h.enqueue(&mut *q, p);
                }
            }
            for &(m, rate) in &MEMBERS {
                if !members.contains(&m) || busy_until.get(&m).is_some_and(|&t| t > now) {
                    continue;
                }
                let got = h.dequeue_for(&mut *q, m);
                views.get_mut(&m).unwrap().answers.push(got.map(|p| id[&p]));
                if let Some(p) = got {
                    busy_until.insert(m, now + h.packets.size(p) as u64 * 8_000_000_000 / rate);
                }
            }
            for (p, _) in h.dropped() {
                let m = h.packets.get(p).out_iface;
                views.get_mut(&m).unwrap().drops.push(id[&p]);
            }
        }
        views
    }

    /// Reference: the discipline fed one member's packets alone (a separate instance, as
    /// on that member's own interface). Each member's answers, request by request, and its
    /// drops must be identical when both members share one instance. Limits are set so
    /// that the shared buffer never binds (it is the one thing the members share).
    #[test]
    fn each_member_is_served_as_if_its_packets_were_the_whole_input() {
        for conf in [
            "kind = \"sfq\"\nlimit = 10000\nquantum = 1000",
            "kind = \"fq_codel\"",
            "kind = \"codel\"\nlimit = 100000",
            "kind = \"stfq\"",
            "kind = \"stfq\"\nrate = \"900kbit\"",
            "kind = \"wf2q+\"",
        ] {
            for (mix, flows) in MIXES.iter().enumerate() {
                let shared = run(conf, flows, &[1, 2]);
                for (m, _) in MEMBERS {
                    let alone = run(conf, flows, &[m]);
                    let (s, a) = (&shared[&m], &alone[&m]);
                    let sent = a.answers.iter().flatten().count();
                    assert!(sent > 100, "{conf}: member {m} sent only {sent}");
                    let first_diff = s.answers.iter().zip(&a.answers).position(|(x, y)| x != y);
                    assert!(
                    s == a,
                    "{conf}: member {m} is served differently beside the other: requests {} vs \
                     {} alone, first difference at request {first_diff:?}; drops {} vs {}",
                    s.answers.len(),
                    a.answers.len(),
                    s.drops.len(),
                    a.drops.len()
                );
                    eprintln!(
                        "{conf:?}, mix {mix}: member {m}: {sent} sent, {} dropped, identical",
                        a.drops.len()
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod check_tests {
    use super::*;

    /// fq_codel's flow table is allocated at build: a count above Linux's 65536 is refused
    /// at `qdiscs.<name>.flows` (4294967295 was 4 G flow queues reserved, an abort).
    #[test]
    fn fq_codel_flows_above_linuxs_limit_are_refused() {
        for (flows, bad) in [(65536u32, false), (65537, true), (u32::MAX, true)] {
            let conf: QdiscConf =
                toml::from_str(&format!("kind = \"fq_codel\"\nflows = {flows}")).unwrap();
            let mut errs = ScenarioError::default();
            check(&conf, "qdiscs.q", &mut errs);
            let refused = errs.problems.iter().any(|p| p.path == "qdiscs.q.flows");
            assert_eq!(refused, bad, "{flows}: {errs}");
        }
    }
}
