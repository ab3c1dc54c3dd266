//! Cancellable component timers that cost nothing on the pops of other events.
//!
//! MACs re-arm and cancel timers all the time (802.11 back-off freezes, ACK timeouts,
//! Bluetooth polling). [`EventQueue::cancel`] keeps a set of cancelled sequence numbers
//! that every pop probes while it is non-empty, which taxes every later event. A timer
//! slot instead remembers the sequence number of the one event that is its live arming;
//! re-arming overwrites it and cancelling clears it. An older event of the slot that
//! surfaces is stale: the run loop recognises it by its sequence number
//! ([`EventQueue::pop_before_live`]) and discards it without counting it as processed,
//! exactly as a lazily cancelled event is skipped. Only timer events pay for the check
//! (one array load), and nothing is hashed.

use super::{EventId, EventQueue, SimTime};

/// A timer slot (an index into [`Timers`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TimerId(pub u32);

/// The armed state of every timer slot of a run.
#[derive(Default, Debug, Clone)]
pub struct Timers {
    /// Per slot: the sequence number of its live event plus one, or 0 when disarmed.
    armed: Vec<u64>,
    /// Per slot: the time of its live event.
    at: Vec<SimTime>,
}

impl Timers {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new, disarmed slot.
    pub fn add(&mut self) -> TimerId {
        self.armed.push(0);
        self.at.push(SimTime::ZERO);
        TimerId(self.armed.len() as u32 - 1)
    }

    pub fn len(&self) -> usize {
        self.armed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.armed.is_empty()
    }

    /// Arms `id` to fire `event` at `at`, replacing its previous arming (which becomes
    /// stale and will be discarded when it surfaces).
    #[inline]
    pub fn arm<E: Copy>(&mut self, q: &mut EventQueue<E>, id: TimerId, at: SimTime, event: E) {
        let EventId(seq) = q.schedule(at, event);
        self.armed[id.0 as usize] = seq + 1;
        self.at[id.0 as usize] = at;
    }

    /// Disarms `id` (no effect if it is not armed).
    #[inline]
    pub fn cancel(&mut self, id: TimerId) {
        self.armed[id.0 as usize] = 0;
    }

    /// When `id` fires, if it is armed.
    #[inline]
    pub fn armed_at(&self, id: TimerId) -> Option<SimTime> {
        (self.armed[id.0 as usize] != 0).then(|| self.at[id.0 as usize])
    }

    /// An event of slot `id` scheduled with sequence number `seq` surfaced: whether it is
    /// the live arming (the slot is then disarmed) or a stale one.
    #[inline]
    pub fn take(&mut self, id: TimerId, seq: EventId) -> bool {
        let a = &mut self.armed[id.0 as usize];
        if *a == seq.0 + 1 {
            *a = 0;
            true
        } else {
            false
        }
    }

    /// Whether an event of slot `id` with sequence number `seq` is the live arming
    /// (without disarming; end-of-run accounting).
    pub fn is_live(&self, id: TimerId, seq: EventId) -> bool {
        self.armed[id.0 as usize] == seq.0 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: a timer fires once per arming that was neither replaced nor cancelled,
    /// at the time of its last arming, and stale events are not counted as processed.
    #[test]
    fn only_the_last_arming_fires_and_stale_events_are_not_counted() {
        let mut q: EventQueue<u32> = EventQueue::new();
        let mut t = Timers::new();
        let a = t.add();
        let b = t.add();
        t.arm(&mut q, a, SimTime(10), 0);
        t.arm(&mut q, a, SimTime(30), 0); // replaces the arming at 10
        t.arm(&mut q, b, SimTime(20), 1);
        t.cancel(b);
        t.arm(&mut q, b, SimTime(40), 1);
        t.arm(&mut q, a, SimTime(5), 0); // earlier than the stale ones
        let mut fired = Vec::new();
        while let Some((time, slot)) =
            q.pop_before_live(SimTime::MAX, |&s, seq| t.take(TimerId(s), seq))
        {
            fired.push((time.0, slot));
        }
        assert_eq!(fired, vec![(5, 0), (40, 1)]);
        assert_eq!(q.events_processed(), 2);
        assert_eq!(t.armed_at(a), None);
    }

    #[test]
    fn a_cancelled_timer_never_fires() {
        let mut q: EventQueue<u32> = EventQueue::new();
        let mut t = Timers::new();
        let a = t.add();
        t.arm(&mut q, a, SimTime(10), 0);
        assert_eq!(t.armed_at(a), Some(SimTime(10)));
        t.cancel(a);
        assert!(q
            .pop_before_live(SimTime::MAX, |&s, seq| t.take(TimerId(s), seq))
            .is_none());
        assert_eq!(q.events_processed(), 0);
    }
}
