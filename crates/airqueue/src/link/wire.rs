//! The wire behind a transmitter: the packets propagating on it, in arrival order.
//!
//! With a constant propagation delay, packets leave a wire in the order they entered it
//! (their transmissions end one after another, each at least a nanosecond after the last),
//! so the simulator needs only one pending arrival event per wire, for the packet at its
//! head, and keeps the others here: the pipeline of htsim-style simulators, instead of one
//! event per packet as ns-3 and OMNeT++ schedule. The event heap then holds one entry per
//! wire instead of one per packet in flight, which is what made heap pops the largest cost
//! of a fast link.
//!
//! Each packet keeps the event sequence number it would have had as an event of its own
//! (taken with [`EventQueue::reserve`](crate::engine::EventQueue::reserve) when it entered
//! the wire), so its arrival ties with other events at the same instant exactly as before.
//! A wire whose delay varies per packet (an impairment with jitter) may reorder packets;
//! the simulator schedules one event per packet for those and does not use this FIFO.

use crate::engine::{EventId, SimTime};
use crate::packet::PacketId;

/// A packet on the wire: when it arrives at the far end, and the sequence number of its
/// arrival event.
#[derive(Copy, Clone, Debug)]
struct InFlight {
    at: SimTime,
    seq: EventId,
    pkt: PacketId,
}

const EMPTY: InFlight = InFlight {
    at: SimTime::ZERO,
    seq: EventId(0),
    pkt: PacketId(u32::MAX),
};

/// Packets propagating in order on a wire with a constant delay: a ring buffer whose
/// capacity is a power of two (an index wraps with a mask, where `VecDeque` compares and
/// subtracts), grown to the most packets ever in flight on the wire and reused, so that
/// steady-state operation allocates nothing. Every packet a link sends passes here
/// (a push, a pop, two peeks), which is why it is not a `VecDeque`.
#[derive(Default)]
pub struct Wire {
    /// `buf.len()` is 0 or a power of two; the packets are `buf[head..head + len]`
    /// (indices modulo `buf.len()`), oldest first.
    buf: Vec<InFlight>,
    head: usize,
    len: usize,
}

impl Wire {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    /// Puts `pkt` on the wire, arriving `at` with event sequence number `seq`. Returns
    /// whether it is now the head (the wire was empty), whose arrival the caller schedules.
    #[inline]
    pub fn push(&mut self, at: SimTime, seq: EventId, pkt: PacketId) -> bool {
        debug_assert!(
            self.last_arrival().is_none_or(|b| b <= at),
            "a constant-delay wire cannot reorder packets"
        );
        if self.len == self.buf.len() {
            self.grow();
        }
        let i = (self.head + self.len) & self.mask();
        self.buf[i] = InFlight { at, seq, pkt };
        self.len += 1;
        self.len == 1
    }

    /// Doubles the ring (at least 8 places), its packets moved to the front in order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (2 * self.buf.len()).max(8);
        let mut buf = vec![EMPTY; cap];
        for (k, slot) in buf.iter_mut().enumerate().take(self.len) {
            *slot = self.buf[(self.head + k) & self.mask()];
        }
        self.buf = buf;
        self.head = 0;
    }

    /// Removes the packet at the head (the one whose arrival event fired).
    #[inline]
    pub fn pop(&mut self) -> PacketId {
        assert!(self.len > 0, "an arrival event fired for an empty wire");
        let h = self.buf[self.head];
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        h.pkt
    }

    /// The arrival time and event sequence number of the packet at the head, if any.
    #[inline]
    pub fn head(&self) -> Option<(SimTime, EventId)> {
        if self.len == 0 {
            return None;
        }
        let h = &self.buf[self.head];
        Some((h.at, h.seq))
    }

    /// The arrival time of the packet entered last, if any.
    #[inline]
    pub fn last_arrival(&self) -> Option<SimTime> {
        if self.len == 0 {
            return None;
        }
        Some(self.buf[(self.head + self.len - 1) & self.mask()].at)
    }

    /// Packets on the wire in this FIFO.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventQueue;

    /// The pipeline pops, in (time, sequence) order, exactly the events one event per
    /// packet gives, with other events tying at the same instants (the reference is the
    /// per-packet schedule itself).
    #[test]
    fn one_event_per_wire_gives_the_order_of_one_event_per_packet() {
        #[derive(Copy, Clone, Debug, PartialEq)]
        enum Ev {
            Other(u32),
            Arrive(u32),
        }
        // Transmissions end every 3 ns, the delay is 7 ns, and another event is scheduled
        // at each packet's arrival instant before and after it (ties on both sides).
        let delay = SimTime(7);
        let ends: Vec<SimTime> = (1..=20).map(|k| SimTime(3 * k)).collect();

        let mut per_packet = EventQueue::new();
        for (k, &end) in ends.iter().enumerate() {
            per_packet.schedule(end + delay, Ev::Other(2 * k as u32));
            per_packet.schedule(end + delay, Ev::Arrive(k as u32));
            per_packet.schedule(end + delay, Ev::Other(2 * k as u32 + 1));
        }
        let want: Vec<(SimTime, Ev)> = std::iter::from_fn(|| per_packet.pop()).collect();

        let mut q = EventQueue::new();
        let mut wire = Wire::new();
        for (k, &end) in ends.iter().enumerate() {
            q.schedule(end + delay, Ev::Other(2 * k as u32));
            let seq = q.reserve();
            if wire.push(end + delay, seq, PacketId(k as u32)) {
                q.schedule_reserved(end + delay, seq, Ev::Arrive(u32::MAX));
            }
            q.schedule(end + delay, Ev::Other(2 * k as u32 + 1));
        }
        let mut got = Vec::new();
        while let Some((t, ev)) = q.pop() {
            match ev {
                Ev::Arrive(_) => {
                    let pkt = wire.pop();
                    if let Some((at, seq)) = wire.head() {
                        q.schedule_reserved(at, seq, Ev::Arrive(u32::MAX));
                    }
                    got.push((t, Ev::Arrive(pkt.0)));
                }
                other => got.push((t, other)),
            }
        }
        assert_eq!(got, want);
        assert!(wire.is_empty());
    }

    /// The ring keeps FIFO order through wrap-arounds and growth (the reference is a
    /// `VecDeque` fed the same pushes and pops).
    #[test]
    fn the_ring_is_a_fifo_through_wraps_and_growth() {
        let mut wire = Wire::new();
        let mut want = std::collections::VecDeque::new();
        let mut t = 0u64;
        // Push k and pop k/2 in rounds, so the ring wraps and grows several times.
        for round in 1..40u32 {
            for _ in 0..round {
                t += 1;
                let pkt = PacketId(t as u32);
                assert_eq!(wire.push(SimTime(t), EventId(t), pkt), want.is_empty());
                want.push_back((SimTime(t), EventId(t), pkt));
                assert_eq!(wire.last_arrival(), Some(SimTime(t)));
            }
            for _ in 0..round / 2 + 1 {
                let Some(&(at, seq, pkt)) = want.front() else {
                    break;
                };
                assert_eq!(wire.head(), Some((at, seq)));
                assert_eq!(wire.pop(), pkt);
                want.pop_front();
            }
            assert_eq!(wire.len(), want.len());
        }
        while let Some((_, _, pkt)) = want.pop_front() {
            assert_eq!(wire.pop(), pkt);
        }
        assert!(wire.is_empty() && wire.head().is_none() && wire.last_arrival().is_none());
    }
}
