//! Per-destination-host FIFOs with an active list: the classifier and queues shared by the
//! host-fair disciplines (`dfq`, seed 003 §3 "the Classifier dispatches the packet to a
//! proper queue according to the destination address"; `host_drr`).
//!
//! A host's queue is created the first time a packet for it arrives (its destination IP
//! address, what a gateway reads from the header) and kept for the run, so that per-host
//! state (counters, deficit, class) survives while the host is idle. The active list holds
//! the hosts with packets queued, in the order they became backlogged; the schedulers
//! rotate it.

use super::fifo_queue::PacketFifo;
use crate::packet::PacketId;
use std::collections::{HashMap, VecDeque};

/// One host's queue and the bytes in it.
#[derive(Default)]
pub(crate) struct HostQueue {
    /// The host's IP address.
    pub addr: u32,
    pub fifo: PacketFifo,
    pub bytes: u64,
    /// Whether the host is in the active list.
    pub active: bool,
}

/// The hosts' queues, the active list and the totals.
#[derive(Default)]
pub(crate) struct HostQueues {
    index: HashMap<u32, usize>,
    pub hosts: Vec<HostQueue>,
    pub active: VecDeque<usize>,
    pub len: usize,
    pub bytes: u64,
}

impl HostQueues {
    /// The index of the queue of host `addr`, created on first use.
    pub fn host(&mut self, addr: u32) -> usize {
        if let Some(&h) = self.index.get(&addr) {
            return h;
        }
        let h = self.hosts.len();
        self.hosts.push(HostQueue {
            addr,
            ..Default::default()
        });
        self.index.insert(addr, h);
        h
    }

    /// Appends `pkt` (of `len` bytes) to host `h`'s queue; a host that was idle joins the
    /// tail of the active list. Returns whether it joined.
    pub fn push(&mut self, h: usize, pkt: PacketId, len: u32) -> bool {
        let q = &mut self.hosts[h];
        q.fifo.push_back(pkt);
        q.bytes += len as u64;
        self.len += 1;
        self.bytes += len as u64;
        if !q.active {
            q.active = true;
            self.active.push_back(h);
            return true;
        }
        false
    }

    /// Takes the head packet of host `h` (of `len` bytes, as charged at enqueue). The caller
    /// removes an emptied host from the active list ([`HostQueues::retire_if_empty`]).
    pub fn pop(&mut self, h: usize, len: impl FnOnce(PacketId) -> u32) -> Option<PacketId> {
        let q = &mut self.hosts[h];
        let p = q.fifo.pop_front()?;
        let l = len(p) as u64;
        q.bytes -= l;
        self.len -= 1;
        self.bytes -= l;
        Some(p)
    }

    /// If host `h` (at the head of the active list) has emptied, it leaves the list;
    /// returns whether it left.
    pub fn retire_if_empty(&mut self, h: usize) -> bool {
        if self.hosts[h].fifo.len() > 0 {
            return false;
        }
        debug_assert_eq!(self.active.front(), Some(&h));
        self.active.pop_front();
        self.hosts[h].active = false;
        true
    }

    /// Drops-from-the-fattest helper: takes the head packet of host `h` wherever it stands
    /// in the active list, and removes the host from the list if it emptied.
    pub fn pop_anywhere(
        &mut self,
        h: usize,
        len: impl FnOnce(PacketId) -> u32,
    ) -> Option<PacketId> {
        let p = self.pop(h, len)?;
        if self.hosts[h].fifo.len() == 0 {
            self.hosts[h].active = false;
            if let Some(i) = self.active.iter().position(|&x| x == h) {
                self.active.remove(i);
            }
        }
        Some(p)
    }

    /// The host with the longest queue in bytes (ties: the earliest in the active list), if
    /// any packet is queued.
    pub fn fattest(&self) -> Option<usize> {
        let mut best: Option<usize> = None;
        for &h in &self.active {
            if best.is_none_or(|b| self.hosts[h].bytes > self.hosts[b].bytes) {
                best = Some(h);
            }
        }
        best
    }
}
