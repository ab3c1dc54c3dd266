//! The driver queues' statistics of a medium's ports (an 802.11 cell's, a piconet's; see
//! [`crate::link::Medium::driver_queue`]): per port, the queue table's counters since the
//! warm-up; per packet in a driver queue, when it entered, in a table indexed by the
//! packet's arena slot (it grows to the most slots in use once, then never allocates). The
//! packet's own `enqueued` stamp is left alone: it belongs to whoever queued it before (a
//! striping receiver measures from it).

use crate::engine::SimTime;
use crate::metrics::QueueStats;
use crate::packet::{DropReason, PacketId};

pub(crate) struct DriverLedger {
    /// Per port.
    pub(crate) stats: Vec<QueueStats>,
    /// Per arena slot: when the packet in it entered its port's driver queue.
    since: Vec<SimTime>,
}

impl DriverLedger {
    pub(crate) fn new(ports: usize) -> DriverLedger {
        DriverLedger {
            stats: vec![QueueStats::default(); ports],
            since: Vec::new(),
        }
    }

    /// `pkt` of `size` bytes enters port `port`'s driver queue at `now`.
    #[inline]
    pub(crate) fn enter(&mut self, port: usize, pkt: PacketId, size: u32, now: SimTime) {
        let slot = pkt.0 as usize;
        if slot >= self.since.len() {
            self.since.resize(slot + 1, SimTime::ZERO);
        }
        self.since[slot] = now;
        let s = &mut self.stats[port];
        s.on_enqueue(size);
        s.backlog_add(now, 1, i64::from(size));
    }

    /// `pkt` of `size` bytes leaves port `port`'s driver queue at `now`: sent (`None`) or
    /// dropped for `reason`.
    #[inline]
    pub(crate) fn leave(
        &mut self,
        port: usize,
        pkt: PacketId,
        size: u32,
        now: SimTime,
        dropped: Option<DropReason>,
    ) {
        let s = &mut self.stats[port];
        match dropped {
            Some(reason) => {
                s.on_drop(reason);
                s.on_drops_after_enqueue(1);
            }
            None => s.on_dequeue(size, now - self.since[pkt.0 as usize]),
        }
        s.backlog_add(now, -1, -i64::from(size));
    }

    /// The warm-up ends: the counters restart (the backlog carries over).
    pub(crate) fn reset(&mut self, now: SimTime) {
        for s in &mut self.stats {
            s.reset(now);
        }
    }
}
