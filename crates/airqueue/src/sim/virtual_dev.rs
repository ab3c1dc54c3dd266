//! Virtual devices: one qdisc in front of several real interfaces of a node (Linux IMQ, the
//! "Intermediate Queueing Device" seed 000 §2.1 schedules WLAN and Bluetooth with).
//!
//! Packets routed out of any member interface (`Packet::out_iface` says which) are
//! enqueued into the virtual device's qdisc. Each member's transmitter pulls: whenever it
//! is idle (a packet arrived, it finished sending, the qdisc's wakeup fired, or another
//! member just took a packet) it asks the qdisc for a packet *for itself*
//! (`QdiscCtx::member`, see `qdisc` for the contract). So a member never idles while the
//! qdisc is willing to give it one of its packets, and the order on each wire is the
//! qdisc's order.
//!
//! Linux IMQ differs in one respect: its device "transmits" by re-injecting each dequeued
//! packet into the member's own device queue (`imq_dev_xmit` → `nf_reinject`), draining
//! its qdisc as fast as it can. A work-conserving root on imq0 is then almost a
//! pass-through in front of each member's pfifo_fast, and IMQ schedules only through
//! shaping below the members' rates (as seed 000's HTB and TBF setups do). Pulling
//! instead models IMQ with member queues of zero length, which is what schedulers that
//! act at the IMQ dequeue (BoTh-WiN's "no dequeue for one packet time") assume: the
//! decision the qdisc makes is the order on the air. To model the second queue, give the
//! members their own traffic instead of a virtual device.
//!
//! The virtual device is a row of the queues table (rate = sum of the members' rates);
//! its members have no qdisc of their own and are not. Packet conservation counts its
//! packets at `VirtualQdisc(v)`.

use super::{Event, Simulation};
use crate::engine::EventId;
use crate::metrics::QueueStats;
use crate::packet::{Location, PacketId};
use crate::qdisc::{dequeue_for, DevInfo, Qdisc, QdiscCtx, Verdict};
use crate::topology::IfaceId;

/// A virtual device at run time.
pub struct VirtualDev {
    /// Name `<node>.<device>`, with the sum of the members' rates and the largest
    /// MTU/psched_mtu among them (what its qdisc sees as "the device").
    pub dev: DevInfo,
    pub qdisc_name: String,
    pub qdisc_kind: &'static str,
    pub members: Vec<IfaceId>,
    pub qdisc: Box<dyn Qdisc>,
    pub(super) wakeup: Option<EventId>,
    pub stats: QueueStats,
    pub(super) drops_at_last_sample: u64,
}

impl VirtualDev {
    pub fn new(
        dev: DevInfo,
        qdisc_name: String,
        members: Vec<IfaceId>,
        qdisc: Box<dyn Qdisc>,
    ) -> Self {
        VirtualDev {
            dev,
            qdisc_name,
            qdisc_kind: qdisc.kind(),
            members,
            qdisc,
            wakeup: None,
            stats: QueueStats::default(),
            drops_at_last_sample: 0,
        }
    }
}

impl Simulation {
    /// A packet routed out of a member of virtual device `v` enters its qdisc.
    pub(super) fn vdev_enqueue(&mut self, v: u32, pkt: PacketId) {
        let now = self.now;
        self.packets.set_location(pkt, Location::VirtualQdisc(v));
        let size = self.packets.size(pkt);
        let d = &mut self.vdevs[v as usize];
        let verdict = {
            let mut ctx = QdiscCtx::new(now, &mut self.packets, &d.dev, &mut self.drops);
            d.qdisc.enqueue(pkt, &mut ctx)
        };
        if verdict != Verdict::Dropped {
            d.stats.on_enqueue(size);
        }
        let refused = (verdict == Verdict::Dropped) as usize;
        d.stats
            .on_drops_after_enqueue(self.drops.pending.len().saturating_sub(refused));
        d.stats
            .backlog_changed(now, d.qdisc.len() as u64, d.qdisc.backlog_bytes());
        self.flush_vdev_drops(v);
        self.kick_vdev(v);
    }

    /// Lets every idle member of `v` pull a packet for itself, until none takes one (a
    /// packet one member takes can unblock another's turn in the qdisc); then, if packets
    /// wait that no idle member could take, arms the qdisc's wakeup.
    pub(super) fn kick_vdev(&mut self, v: u32) {
        let now = self.now;
        let members = self.vdevs[v as usize].members.len();
        loop {
            let mut progress = false;
            for k in 0..members {
                let m = self.vdevs[v as usize].members[k];
                if !self.ifaces[m.0 as usize].tx.is_idle() {
                    continue;
                }
                let d = &mut self.vdevs[v as usize];
                let got = {
                    let mut ctx = QdiscCtx::new(now, &mut self.packets, &d.dev, &mut self.drops)
                        .for_member(m.0);
                    dequeue_for(&mut *d.qdisc, &mut ctx)
                };
                d.stats.on_drops_after_enqueue(self.drops.pending.len());
                d.stats
                    .backlog_changed(now, d.qdisc.len() as u64, d.qdisc.backlog_bytes());
                if let Some(pkt) = got {
                    let p = self.packets.get(pkt);
                    assert_eq!(
                        p.out_iface, m.0,
                        "qdisc {} of virtual device {} gave member {} a packet for another interface",
                        d.qdisc_kind, d.dev.name, self.ifaces[m.0 as usize].dev.name
                    );
                    d.stats.on_dequeue(p.size_bytes, now - p.enqueued);
                    self.begin_tx(m, pkt);
                    progress = true;
                }
                self.flush_vdev_drops(v);
            }
            if !progress {
                break;
            }
        }
        self.arm_vdev_wakeup(v);
    }

    /// Schedules the next attempt when an idle member got nothing while packets wait.
    fn arm_vdev_wakeup(&mut self, v: u32) {
        let now = self.now;
        let any_idle = self.vdevs[v as usize]
            .members
            .iter()
            .any(|m| self.ifaces[m.0 as usize].tx.is_idle());
        let d = &mut self.vdevs[v as usize];
        if !any_idle || d.qdisc.is_empty() {
            return;
        }
        if let Some(t) = d.qdisc.next_wakeup(now) {
            if let Some(old) = d.wakeup.take() {
                self.events.cancel(old);
            }
            d.wakeup = Some(self.events.schedule(t.max(now), Event::VirtualWakeup(v)));
        }
    }

    /// Drops and CE marks the virtual device's qdisc recorded, counted for it.
    fn flush_vdev_drops(&mut self, v: u32) {
        let marks = self.drops.take_marks();
        self.vdevs[v as usize].stats.marks += marks;
        if self.drops.is_empty() {
            return;
        }
        let mut pending = std::mem::take(&mut self.drops.pending);
        for &(pkt, reason) in &pending {
            self.vdevs[v as usize].stats.on_drop(reason);
            self.drop_packet(pkt, reason, None);
        }
        pending.clear();
        self.drops.pending = pending;
    }
}
