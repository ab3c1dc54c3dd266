//! Cancellable component timers that cost nothing on the pops of other events.
//!
//! MACs re-arm and cancel timers all the time (802.11 back-off freezes, ACK timeouts,
//! Bluetooth polling). [`EventQueue::cancel`] keeps a set of cancelled sequence numbers
//! that every pop probes while it is non-empty, which taxes every later event. A timer
//! slot instead remembers the one heap entry that stands for it (its sequence number and
//! time) and when it is due:
//!
//! - **re-arming later** than that entry only moves the due time: no heap operation. When
//!   the entry surfaces before the due time it is put back at the due time (one sift of
//!   the entry just popped, with a fresh sequence number: ties then resolve as if the
//!   timer had been armed at that moment) and is not counted as an event;
//! - **re-arming earlier** schedules a new entry; the old one becomes stale;
//! - **cancelling** only clears the due time.
//!
//! Stale entries and cancelled ones are recognised by sequence number when they surface
//! ([`EventQueue::pop_before_live`]) and discarded without being counted, as a lazily
//! cancelled event is. Only timer events pay for the check (a few array loads), and
//! nothing is hashed. [`Timers::arm_exact`] always schedules a fresh entry when the time
//! changes (for timers whose tie order must follow the moment they were armed).

use super::{EventId, EventQueue, SimTime};

/// A timer slot (an index into [`Timers`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TimerId(pub u32);

/// What to do with a timer's heap entry that surfaced ([`EventQueue::pop_before_live`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Surfaced {
    /// The timer fires now.
    Fire,
    /// A stale or cancelled arming: discard it, uncounted.
    Discard,
    /// The timer was re-armed later: put the entry back at this time, uncounted.
    Defer(SimTime),
}

#[derive(Copy, Clone, Debug, Default)]
struct Slot {
    /// Sequence number + 1 of the heap entry standing for the timer; 0 = none.
    entry: u64,
    /// That entry's time.
    entry_at: SimTime,
    /// When the timer is due; `None` = disarmed.
    due: Option<SimTime>,
}

/// The armed state of every timer slot of a run.
#[derive(Default, Debug, Clone)]
pub struct Timers {
    slots: Vec<Slot>,
}

impl Timers {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new, disarmed slot.
    pub fn add(&mut self) -> TimerId {
        self.slots.push(Slot::default());
        TimerId(self.slots.len() as u32 - 1)
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Arms `id` to fire `event` at `at`, replacing its previous arming. A later time keeps
    /// the pending heap entry (see the module documentation).
    #[inline]
    pub fn arm<E: Copy>(&mut self, q: &mut EventQueue<E>, id: TimerId, at: SimTime, event: E) {
        let s = &mut self.slots[id.0 as usize];
        if s.entry != 0 && s.entry_at <= at {
            s.due = Some(at);
            return;
        }
        self.arm_exact(q, id, at, event);
    }

    /// Arms `id` at `at` with a heap entry of its own scheduled now (unless the pending
    /// entry is already at exactly that time): ties with other events at `at` resolve in
    /// the order of arming.
    #[inline]
    pub fn arm_exact<E: Copy>(
        &mut self,
        q: &mut EventQueue<E>,
        id: TimerId,
        at: SimTime,
        event: E,
    ) {
        let s = &mut self.slots[id.0 as usize];
        if s.entry != 0 && s.entry_at == at {
            s.due = Some(at);
            return;
        }
        let EventId(seq) = q.schedule(at, event);
        *s = Slot {
            entry: seq + 1,
            entry_at: at,
            due: Some(at),
        };
    }

    /// Disarms `id` (no effect if it is not armed).
    #[inline]
    pub fn cancel(&mut self, id: TimerId) {
        self.slots[id.0 as usize].due = None;
    }

    /// When `id` fires, if it is armed.
    #[inline]
    pub fn armed_at(&self, id: TimerId) -> Option<SimTime> {
        self.slots[id.0 as usize].due
    }

    /// An entry of slot `id` with sequence number `seq` surfaced: fire, discard or defer.
    /// Firing disarms the slot.
    #[inline]
    pub fn surfaced(&mut self, id: TimerId, seq: EventId) -> Surfaced {
        let s = &mut self.slots[id.0 as usize];
        if s.entry != seq.0 + 1 {
            return Surfaced::Discard;
        }
        match s.due {
            None => {
                s.entry = 0;
                Surfaced::Discard
            }
            Some(due) if due <= s.entry_at => {
                s.entry = 0;
                s.due = None;
                Surfaced::Fire
            }
            Some(due) => Surfaced::Defer(due),
        }
    }

    /// The entry of slot `id` was put back under sequence number `seq` at its due time.
    #[inline]
    pub fn deferred(&mut self, id: TimerId, seq: EventId) {
        let s = &mut self.slots[id.0 as usize];
        s.entry = seq.0 + 1;
        s.entry_at = s.due.unwrap_or(s.entry_at);
    }

    /// Whether an entry of slot `id` with sequence number `seq` stands for an armed timer
    /// (end-of-run accounting).
    pub fn is_live(&self, id: TimerId, seq: EventId) -> bool {
        let s = &self.slots[id.0 as usize];
        s.entry == seq.0 + 1 && s.due.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(q: &mut EventQueue<u32>, t: &mut Timers) -> Vec<(u64, u32)> {
        let t = std::cell::RefCell::new(t);
        let mut fired = Vec::new();
        while let Some((time, slot)) = q.pop_before_live(
            SimTime::MAX,
            |&s, seq| t.borrow_mut().surfaced(TimerId(s), seq),
            |&s, seq| t.borrow_mut().deferred(TimerId(s), seq),
        ) {
            fired.push((time.0, slot));
        }
        fired
    }

    /// Reference: a timer fires once per arming that was neither replaced nor cancelled,
    /// at the time of its last arming, and stale or deferred entries are not counted.
    #[test]
    fn only_the_last_arming_fires_and_stale_events_are_not_counted() {
        let mut q: EventQueue<u32> = EventQueue::new();
        let mut t = Timers::new();
        let a = t.add();
        let b = t.add();
        t.arm(&mut q, a, SimTime(10), 0);
        t.arm(&mut q, a, SimTime(30), 0); // later: the entry at 10 is deferred to 30
        t.arm(&mut q, b, SimTime(20), 1);
        t.cancel(b);
        t.arm(&mut q, b, SimTime(40), 1); // later than the cancelled entry: deferred
        t.arm(&mut q, a, SimTime(5), 0); // earlier: a new entry, the old one is stale
        assert_eq!(drain(&mut q, &mut t), vec![(5, 0), (40, 1)]);
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
        assert!(drain(&mut q, &mut t).is_empty());
        assert_eq!(q.events_processed(), 0);
    }

    /// A deferred timer ties with events at its new time as if armed when it was put back;
    /// an exact arming ties in the order of arming.
    #[test]
    fn deferred_and_exact_armings_tie_as_documented() {
        let mut q: EventQueue<u32> = EventQueue::new();
        let mut t = Timers::new();
        let a = t.add();
        let b = t.add();
        t.arm(&mut q, a, SimTime(10), 100);
        t.arm(&mut q, a, SimTime(50), 100); // deferred when it surfaces at 10
        t.arm_exact(&mut q, b, SimTime(5), 200);
        t.arm_exact(&mut q, b, SimTime(50), 200); // a new entry now
        q.schedule(SimTime(20), 7); // an ordinary event at 20
        let mut order = Vec::new();
        let t = std::cell::RefCell::new(&mut t);
        while let Some((time, e)) = q.pop_before_live(
            SimTime::MAX,
            |&e, seq| {
                if e >= 100 {
                    t.borrow_mut().surfaced(TimerId(e / 100 - 1), seq)
                } else {
                    Surfaced::Fire
                }
            },
            |&e, seq| t.borrow_mut().deferred(TimerId(e / 100 - 1), seq),
        ) {
            order.push((time.0, e));
        }
        // b's exact arming (scheduled before a was put back at 10) fires first at 50.
        assert_eq!(order, vec![(20, 7), (50, 200), (50, 100)]);
    }
}
