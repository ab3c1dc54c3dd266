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
use std::collections::VecDeque;

/// A packet on the wire: when it arrives at the far end, and the sequence number of its
/// arrival event.
#[derive(Copy, Clone, Debug)]
struct InFlight {
    at: SimTime,
    seq: EventId,
    pkt: PacketId,
}

/// Packets propagating in order on a wire with a constant delay. The ring buffer grows to
/// the most packets ever in flight on the wire and is reused, so steady-state operation
/// allocates nothing.
#[derive(Default)]
pub struct Wire {
    in_flight: VecDeque<InFlight>,
}

impl Wire {
    pub fn new() -> Self {
        Self::default()
    }

    /// Puts `pkt` on the wire, arriving `at` with event sequence number `seq`. Returns
    /// whether it is now the head (the wire was empty), whose arrival the caller schedules.
    #[inline]
    pub fn push(&mut self, at: SimTime, seq: EventId, pkt: PacketId) -> bool {
        debug_assert!(
            self.in_flight.back().is_none_or(|b| b.at <= at),
            "a constant-delay wire cannot reorder packets"
        );
        self.in_flight.push_back(InFlight { at, seq, pkt });
        self.in_flight.len() == 1
    }

    /// Removes the packet at the head (the one whose arrival event fired).
    #[inline]
    pub fn pop(&mut self) -> PacketId {
        self.in_flight
            .pop_front()
            .expect("an arrival event fired for an empty wire")
            .pkt
    }

    /// The arrival time, event sequence number and packet of the head, if any.
    #[inline]
    pub fn head(&self) -> Option<(SimTime, EventId, PacketId)> {
        self.in_flight.front().map(|h| (h.at, h.seq, h.pkt))
    }

    /// The arrival time of the packet entered last, if any.
    #[inline]
    pub fn last_arrival(&self) -> Option<SimTime> {
        self.in_flight.back().map(|b| b.at)
    }

    /// Packets on the wire in this FIFO.
    pub fn len(&self) -> usize {
        self.in_flight.len()
    }

    pub fn is_empty(&self) -> bool {
        self.in_flight.is_empty()
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
                    if let Some((at, seq, _)) = wire.head() {
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
}
