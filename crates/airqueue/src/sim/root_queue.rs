//! Root queues: one owner for each root qdisc, its statistics, its wake-up and its name,
//! for real interfaces and virtual devices alike.
//!
//! A root queue feeds one or more member interfaces. A real interface's root has one
//! member (itself) and its qdisc is asked without `QdiscCtx::member`. A virtual device
//! (IMQ, seed 000 §2.1) is a root with several members: packets routed out of any member
//! enter its qdisc, and each member's medium port pulls from it *for itself*
//! (`QdiscCtx::member`, see `qdisc` for the contract). Whenever something may have changed
//! — a packet arrived, a port can take a packet again, the qdisc's wake-up fired, a link
//! view changed — [`Simulation::kick`] lets every ready member pull until none takes one
//! (a packet one member takes can unblock another's turn), then arms the wake-up if a
//! ready member got nothing while packets wait.
//!
//! Linux IMQ differs in one respect: its device "transmits" by re-injecting each dequeued
//! packet into the member's own device queue (`imq_dev_xmit` → `nf_reinject`), draining
//! its qdisc as fast as it can. A work-conserving root on imq0 is then almost a
//! pass-through in front of each member's pfifo_fast, and IMQ schedules only through
//! shaping below the members' rates (as seed 000's HTB and TBF setups do). Pulling
//! instead models IMQ with member queues of zero length, which is what schedulers that
//! act at the IMQ dequeue (BoTh-WiN's "no dequeue for one packet time") assume: the
//! decision the qdisc makes is the order on the air.
//!
//! **IMQ mode** (`dequeue = "imq"`, [`RootQueue::imq`]) is the kernel's behaviour: the
//! IMQ patch's `imq_nf_queue` enqueues a diverted packet into imq0's qdisc and then runs
//! `while (!netif_queue_stopped(dev) && qdisc_restart(dev) < 0);` — one dequeue path,
//! asked without regard to any member, until the qdisc returns nothing; `imq_dev_xmit`
//! never stops the queue and hands each packet back to netfilter (`nf_reinject`), from
//! where it continues to the real device's `dev_queue_xmit` and waits in that device's
//! own qdisc for the driver. A qdisc that returns nothing while it holds packets is run
//! again at the next packet diverted to imq0 or when its watchdog fires
//! (`next_wakeup`). Here: [`Simulation::kick`] of an IMQ root drains it (no member in
//! the context), enqueuing each packet into its member's own root queue
//! (`Interface::tx_root`), whose port pulls as any real interface's does.
//!
//! A virtual device is a row of the queues table (rate = sum of the members' rates); its
//! members have no qdisc of their own and are not. The wake-up is a timer slot: a pending
//! wake-up that is already at the right time is kept rather than re-armed.

use super::{RootId, Simulation};
use crate::engine::TimerId;
use crate::metrics::QueueStats;
use crate::packet::{DropReason, Location, PacketId};
use crate::qdisc::{dequeue_for, DevInfo, LinkAccess, Qdisc, QdiscCtx, Verdict};
use crate::topology::{IfaceId, PortRef};

/// A root qdisc and everything that belongs to it.
pub struct RootQueue {
    /// The device its qdisc sees: the interface's, or for a virtual device its name with
    /// the sum of the members' rates and the largest MTU/psched_mtu among them.
    pub dev: DevInfo,
    /// The qdisc's display name (its `[[qdiscs]]` name, or the device's).
    pub name: String,
    pub kind: &'static str,
    pub qdisc: Box<dyn Qdisc>,
    /// The interfaces it feeds.
    pub members: Vec<IfaceId>,
    /// A virtual device (members ask for themselves) rather than a real interface.
    pub virtual_dev: bool,
    /// A virtual device in IMQ mode: drained by one dequeue path into the members' own
    /// root queues (module docs).
    pub imq: bool,
    /// A real interface's port (its only member's), looked up once.
    pub(super) port: PortRef,
    /// Its first member (a real interface: the interface itself), looked up once.
    pub(super) iface: u32,
    pub(super) wakeup: TimerId,
    /// A striping trunk (seed 004 §3.4): idle members are asked in round-robin order from
    /// this member index (after the one served last, or the one that just became idle).
    /// `None` for other devices, whose members are asked in member order.
    pub(super) round_robin: Option<u32>,
    pub stats: QueueStats,
    /// Its qdisc finds nothing and changes nothing when asked while empty
    /// ([`Qdisc::idle_when_empty`]): a freed port does not ask it while `stats` says it
    /// holds no packet.
    pub(super) idle_when_empty: bool,
    pub(super) drops_at_last_sample: u64,
    /// The qdisc's backlog changed at `now` and `stats` has not heard of it yet
    /// ([`Simulation::enqueue`] tells it after the kick that follows, once, rather than
    /// before and after a packet that passes an idle port at the same instant).
    backlog_stale: bool,
}

impl RootQueue {
    pub fn new(
        dev: DevInfo,
        name: String,
        qdisc: Box<dyn Qdisc>,
        members: Vec<IfaceId>,
        virtual_dev: bool,
        port: PortRef,
        wakeup: TimerId,
    ) -> Self {
        RootQueue {
            dev,
            name,
            kind: qdisc.kind(),
            idle_when_empty: qdisc.idle_when_empty(),
            qdisc,
            iface: members.first().map_or(u32::MAX, |m| m.0),
            members,
            virtual_dev,
            imq: false,
            port,
            wakeup,
            round_robin: None,
            stats: QueueStats::default(),
            drops_at_last_sample: 0,
            backlog_stale: false,
        }
    }
}

impl RootQueue {
    /// Whether the qdisc is known to hold nothing and to find nothing if asked: its
    /// backlog as last recorded is zero and nothing entered since (every enqueue records
    /// the backlog after it, so a recorded zero is never above the truth's zero).
    #[inline(always)]
    fn known_idle(&self) -> bool {
        self.idle_when_empty && !self.backlog_stale && self.stats.current_packets() == 0
    }

    /// The statistics of one dequeue that returned `got` while the qdisc recorded
    /// `dropped` drops; `got` back. Nothing changes when nothing left and nothing was
    /// dropped: the backlog is what it was (the common "asked while empty" case after a
    /// port becomes ready).
    #[inline(always)]
    fn book_dequeue(
        &mut self,
        now: crate::engine::SimTime,
        got: Option<PacketId>,
        dropped: usize,
        packets: &crate::packet::PacketArena,
    ) -> Option<PacketId> {
        if got.is_none() && dropped == 0 {
            return None;
        }
        self.stats.on_drops_after_enqueue(dropped);
        self.backlog_stale = false;
        let (len, bytes) = self.qdisc.backlog();
        self.stats.backlog_changed(now, len as u64, bytes);
        let pkt = got?;
        let p = packets.get(pkt);
        self.stats.on_dequeue(p.size_bytes, now - p.enqueued);
        Some(pkt)
    }
}

/// What handing a packet to an interface's root queue tells a sender on the same host,
/// as Linux's `dev_queue_xmit` return codes do (`NET_XMIT_*`, `include/linux/netdevice.h`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Xmit {
    /// Queued (NET_XMIT_SUCCESS), or dropped in a way the stack does not hear of: a
    /// classifier's drop (Linux returns success with `__NET_XMIT_BYPASS`), no route. The
    /// "congested" answer of the flow-queueing qdiscs ([`Verdict::Congested`]: another
    /// packet was dropped to make room) is not passed on: Linux gives NET_XMIT_CN there
    /// only when the drop hit the sender's own flow, which the verdict does not say.
    Queued,
    /// The packet itself was refused for lack of room (a full FIFO, a flow or class
    /// limit): NET_XMIT_DROP, the data never left the host. One approximation: when
    /// fq_codel's overflow drop takes the arriving packet's own flow, Linux answers
    /// NET_XMIT_CN (the segment counts as sent and lost); the verdict cannot tell that
    /// case from a refusal, so it is treated as one (kept unsent).
    Dropped,
    /// The packet itself was dropped early by an AQM (RED's `congestion_drop`):
    /// NET_XMIT_CN, the stack reduces its window but counts the packet as sent.
    Congested,
}

impl Simulation {
    /// `pkt` (its `out_iface` and `next_hop` set by routing) enters root queue `r`.
    #[inline(always)]
    pub(super) fn enqueue(&mut self, r: RootId, pkt: PacketId) {
        let size = self.packets.relocate(pkt, Location::Queue(r)).size_bytes;
        let _ = self.enqueue_located(r, pkt, size);
    }

    /// [`enqueue`](Self::enqueue) of a packet of `size` bytes already at
    /// `Location::Queue(r)`.
    #[inline(always)]
    pub(super) fn enqueue_located(&mut self, r: RootId, pkt: PacketId, size: u32) -> Xmit {
        let now = self.now;
        debug_assert_eq!(self.packets.location(pkt), Location::Queue(r));
        let q = &mut self.roots[r as usize];
        let verdict = {
            let mut ctx = QdiscCtx::new(now, &mut self.packets, &q.dev, &mut self.drops);
            q.qdisc.enqueue(pkt, &mut ctx)
        };
        let refused = matches!(verdict, Verdict::Dropped);
        let xmit = if refused {
            refusal(&self.drops.pending, pkt)
        } else {
            Xmit::Queued
        };
        if !refused {
            q.stats.on_enqueue(size);
        }
        let refused = usize::from(refused);
        q.stats
            .on_drops_after_enqueue(self.drops.pending.len().saturating_sub(refused));
        // The statistics hear of the new backlog after the kick (a dequeue there tells
        // them, or the check below does): two changes at one instant integrate as the
        // last one alone (`QueueStats::backlog_changed`: nothing accrues over zero time
        // and a backlog that lasts no time is no maximum).
        q.backlog_stale = true;
        self.flush_drops(r);
        self.kick(r);
        let q = &mut self.roots[r as usize];
        if q.backlog_stale {
            q.backlog_stale = false;
            let (len, bytes) = q.qdisc.backlog();
            q.stats.backlog_changed(now, len as u64, bytes);
        }
        xmit
    }

    /// Lets every ready member of root `r` pull packets until none takes one; then, if a
    /// ready member got nothing while packets wait, arms the qdisc's wake-up.
    #[inline(always)]
    pub(super) fn kick(&mut self, r: RootId) {
        let q = &self.roots[r as usize];
        if !q.virtual_dev {
            return self.kick_interface(r);
        }
        if q.imq {
            return self.kick_imq(r);
        }
        let members = q.members.len();
        loop {
            let mut progress = false;
            let mut starved = false;
            let start = self.roots[r as usize].round_robin.unwrap_or(0) as usize;
            for j in 0..members {
                let k = (start + j) % members;
                let m = self.roots[r as usize].members[k];
                let PortRef { medium, port } = self.ports[m.0 as usize];
                if !self.media[medium as usize].ready(port as usize) {
                    continue;
                }
                match self.dequeue_for_member(r, Some(m)) {
                    Some(pkt) => {
                        let q = &mut self.roots[r as usize];
                        if q.round_robin.is_some() {
                            q.round_robin = Some(((k + 1) % members) as u32);
                        }
                        self.link_send(medium, port as usize, pkt);
                        progress = true;
                    }
                    None => starved = true,
                }
                self.flush_drops(r);
            }
            if !progress {
                if starved {
                    self.arm_wakeup(r);
                }
                return;
            }
        }
    }

    /// Member `iface` of root `r` can take a packet again: a trunk restarts its round-robin
    /// search there (seed 004 §3.4, the ISR's hint); then the members are asked.
    #[inline(always)]
    pub(super) fn member_ready(&mut self, r: RootId, iface: IfaceId) {
        let q = &mut self.roots[r as usize];
        if q.round_robin.is_some() {
            if let Some(k) = q.members.iter().position(|&m| m == iface) {
                q.round_robin = Some(k as u32);
            }
        }
        self.kick(r);
    }

    /// [`kick`](Self::kick) for a real interface `m` (the root's only member): its port
    /// pulls while it can take packets; if it is left wanting while packets wait, the
    /// wake-up is armed. The same steps as the general loop, without its bookkeeping.
    #[inline(always)]
    pub(super) fn kick_interface(&mut self, r: RootId) {
        let PortRef { medium, port } = self.roots[r as usize].port;
        if self.media[medium as usize].ready(port as usize) {
            self.pull_interface(r, medium, port as usize);
        }
    }

    /// [`kick_interface`](Self::kick_interface) of root `r` whose port (`medium`,
    /// `port`) is known to be ready: a wired port whose serialization just ended.
    #[inline(always)]
    pub(super) fn pull_interface(&mut self, r: RootId, medium: u32, port: usize) {
        debug_assert_eq!(
            self.roots[r as usize].port,
            PortRef {
                medium,
                port: port as u32
            }
        );
        debug_assert!(self.media[medium as usize].ready(port));
        if self.roots[r as usize].known_idle() {
            debug_assert!(self.roots[r as usize].qdisc.is_empty());
            return;
        }
        loop {
            match self.dequeue_interface(r) {
                Some(pkt) => {
                    let may_take_more = self.link_send(medium, port, pkt);
                    self.flush_drops(r);
                    if !may_take_more {
                        debug_assert!(!self.media[medium as usize].ready(port));
                        return;
                    }
                    if !self.media[medium as usize].ready(port) {
                        return;
                    }
                }
                None => {
                    self.flush_drops(r);
                    self.arm_wakeup(r);
                    return;
                }
            }
        }
    }

    /// [`kick`](Self::kick) for an IMQ-mode virtual device: its qdisc is dequeued (for no
    /// member in particular) until it returns nothing, and each packet is re-injected
    /// into its member's own root queue (`imq_nf_queue`'s `qdisc_restart` loop,
    /// `imq_dev_xmit` → `nf_reinject` → `dev_queue_xmit`). If packets are left, the
    /// qdisc's wake-up is armed (its watchdog).
    fn kick_imq(&mut self, r: RootId) {
        loop {
            let got = self.dequeue_for_member(r, None);
            self.flush_drops(r);
            match got {
                Some(pkt) => {
                    let out = self.packets.get(pkt).out_iface;
                    let own = self.ifaces[out as usize].tx_root;
                    debug_assert_ne!(own, r, "an IMQ member has its own root");
                    self.packets.get_mut(pkt).enqueued = self.now;
                    self.enqueue(own, pkt);
                }
                None => {
                    self.arm_wakeup(r);
                    return;
                }
            }
        }
    }

    /// One dequeue of a real interface's root `r` ([`dequeue_for_member`] without a member,
    /// with the interface's link view): the path of every packet on a wired hop.
    ///
    /// [`dequeue_for_member`]: Self::dequeue_for_member
    #[inline(always)]
    fn dequeue_interface(&mut self, r: RootId) -> Option<PacketId> {
        let now = self.now;
        let q = &mut self.roots[r as usize];
        debug_assert!(!q.virtual_dev && !q.imq);
        let links = LinkAccess {
            media: &self.media,
            ports: &self.ports,
            iface: Some(q.iface),
        };
        let got = {
            let mut ctx =
                QdiscCtx::linked(now, &mut self.packets, &q.dev, &mut self.drops, None, links);
            q.qdisc.dequeue(&mut ctx)
        };
        q.book_dequeue(now, got, self.drops.pending.len(), &self.packets)
    }

    /// One dequeue of root `r` (a virtual device: on behalf of member `m`; an IMQ-mode
    /// device for none), with the statistics it implies.
    #[inline(always)]
    fn dequeue_for_member(&mut self, r: RootId, m: Option<IfaceId>) -> Option<PacketId> {
        let now = self.now;
        let q = &mut self.roots[r as usize];
        let links = LinkAccess {
            media: &self.media,
            ports: &self.ports,
            iface: (m.is_none() && !q.imq).then_some(q.members[0].0),
        };
        let got = {
            let member = m.map(|m| m.0);
            let mut ctx = QdiscCtx::linked(
                now,
                &mut self.packets,
                &q.dev,
                &mut self.drops,
                member,
                links,
            );
            dequeue_for(&mut *q.qdisc, &mut ctx)
        };
        let pkt = q.book_dequeue(now, got, self.drops.pending.len(), &self.packets)?;
        if let Some(m) = m {
            assert_eq!(
                self.packets.get(pkt).out_iface,
                m.0,
                "qdisc {} of virtual device {} gave member {} a packet for another interface",
                q.kind,
                q.dev.name,
                self.ifaces[m.0 as usize].dev.name
            );
        }
        Some(pkt)
    }

    /// Arms root `r`'s wake-up at its qdisc's `next_wakeup`, keeping a pending one that is
    /// already right (a throttled shaper is asked again at every arrival).
    fn arm_wakeup(&mut self, r: RootId) {
        let now = self.now;
        let q = &self.roots[r as usize];
        if q.qdisc.is_empty() {
            return;
        }
        if let Some(t) = q.qdisc.next_wakeup(now) {
            let t = t.max(now);
            if self.timers.armed_at(q.wakeup) != Some(t) {
                let id = q.wakeup;
                self.timers.arm_exact(&mut self.events, id, t);
            }
        }
    }

    /// What the driver below member `iface` of root `r` reports changed: the qdisc hears
    /// of it, then the members are asked again.
    pub(super) fn link_changed(&mut self, r: RootId, iface: IfaceId) {
        let now = self.now;
        let q = &mut self.roots[r as usize];
        let links = LinkAccess {
            media: &self.media,
            ports: &self.ports,
            iface: (!q.virtual_dev).then_some(iface.0),
        };
        {
            let mut ctx =
                QdiscCtx::linked(now, &mut self.packets, &q.dev, &mut self.drops, None, links);
            q.qdisc.link_changed(iface.0, &mut ctx);
        }
        self.flush_drops(r);
        self.kick(r);
    }

    /// Books the drops and CE marks a qdisc call recorded (usually none: twice per packet
    /// per hop, so the empty case returns at once).
    #[inline]
    fn flush_drops(&mut self, r: RootId) {
        if self.drops.marks != 0 || !self.drops.is_empty() {
            self.flush_drops_slow(r);
        }
    }

    #[cold]
    #[inline(never)]
    fn flush_drops_slow(&mut self, r: RootId) {
        let marks = self.drops.take_marks();
        self.roots[r as usize].stats.marks += marks;
        if self.drops.is_empty() {
            return;
        }
        // Swap the buffer out and back so that no allocation happens per drop.
        let mut pending = std::mem::take(&mut self.drops.pending);
        for &(pkt, reason) in &pending {
            self.drop_packet(pkt, reason, Some(r));
        }
        pending.clear();
        self.drops.pending = pending;
    }
}

/// What the sender of `pkt`, which the qdisc has just refused, is told (its drop is still
/// among the sink's `pending`).
#[cold]
fn refusal(pending: &[(PacketId, DropReason)], pkt: PacketId) -> Xmit {
    match pending.iter().rev().find(|&&(p, _)| p == pkt) {
        Some((_, DropReason::QdiscOverflow | DropReason::FlowLimit | DropReason::Overlimit)) => {
            Xmit::Dropped
        }
        Some((_, DropReason::Aqm)) => Xmit::Congested,
        _ => Xmit::Queued,
    }
}
