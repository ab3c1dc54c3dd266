//! Queueing disciplines: the [`Qdisc`] contract and the disciplines, one file each, named
//! by their `tc` ids.
//!
//! The contract follows Linux `net/sched` (and ns-3's `QueueDisc`): an egress interface
//! pushes packets with `enqueue` and pulls with `dequeue` when its transmitter is free.
//! A discipline sees only what a real box could know, through [`QdiscCtx`]: the clock, its
//! own interface's properties, the packets' header fields, and a drop sink that records the
//! reason of every packet it discards. Non-work-conserving disciplines (TBF, HTB) tell the
//! interface when to ask again through `next_wakeup`.

mod bfifo;
pub mod classify;
mod codel;
mod fair_classes;
mod fq_codel;
mod peek_stash;
mod pfifo;
mod pfifo_head_drop;
mod red;
mod sfq;
mod stfq;
mod tbf;
mod wf2q_plus;

pub use bfifo::{Bfifo, BfifoConf};
pub use codel::{Codel, CodelConf};
pub use fair_classes::{FairClassConf, FairControl, VirtualLength};
pub use fq_codel::{FqCodel, FqCodelConf, FqCodelStats};
pub use pfifo::{Pfifo, PfifoConf};
pub use pfifo_head_drop::{PfifoHeadDrop, PfifoHeadDropConf};
pub use red::{Red, RedConf};
pub use sfq::{Sfq, SfqConf};
pub use stfq::{Stfq, StfqConf};
pub use tbf::{Tbf, TbfConf};
pub use wf2q_plus::{Wf2qPlus, Wf2qPlusConf};

use crate::engine::{stream, SimRng, SimTime};
use crate::packet::{DropReason, PacketArena, PacketId, ECN_CE};
use crate::scenario::{QdiscConf, ScenarioError};
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
    drops: &'a mut DropSink,
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
            drops,
        }
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

    /// Wire size of a packet in bytes (what Linux's `qdisc_pkt_len` returns). This is the
    /// IP datagram length: disciplines charge what a raw-IP device (tun, ppp) would; link
    /// framing (`links.*.overhead`) is paid by the transmitter, not by the qdisc.
    #[inline]
    pub fn len_of(&self, pkt: PacketId) -> u32 {
        self.packets.size(pkt)
    }
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
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// For non-work-conserving disciplines: when `dequeue` may next succeed although it
    /// returned `None` with packets queued. Work-conserving disciplines return `None`.
    fn next_wakeup(&self, _now: SimTime) -> Option<SimTime> {
        None
    }
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
}

impl BuildCtx<'_> {
    /// The context of a child discipline at `self.path.<suffix>`.
    pub fn child(&self, suffix: &str) -> BuildCtx<'_> {
        BuildCtx {
            dev: self.dev,
            names: self.names,
            seed: self.seed,
            path: format!("{}.{suffix}", self.path),
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
    };
    (errs.problems.len() == before).then_some(q)
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
        pub fn enqueue(&mut self, q: &mut dyn Qdisc, pkt: PacketId) -> Verdict {
            let mut ctx = QdiscCtx::new(self.now, &mut self.packets, &self.dev, &mut self.drops);
            q.enqueue(pkt, &mut ctx)
        }
        pub fn dequeue(&mut self, q: &mut dyn Qdisc) -> Option<PacketId> {
            let mut ctx = QdiscCtx::new(self.now, &mut self.packets, &self.dev, &mut self.drops);
            q.dequeue(&mut ctx)
        }
        pub fn dropped(&mut self) -> Vec<(PacketId, DropReason)> {
            self.drops.drain().collect()
        }
    }
}
