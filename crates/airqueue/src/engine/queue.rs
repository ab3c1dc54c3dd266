//! The event queue: a binary min-heap ordered by (time, insertion sequence).
//!
//! Ties in time are broken by the order in which events were scheduled, which makes a run
//! independent of heap internals and therefore byte-for-byte reproducible. Cancellation is
//! lazy: a cancelled event stays in the heap and is skipped when it surfaces, so cancelling
//! is O(1) and scheduling stays allocation-free once the heap has grown.

use super::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Identifies a scheduled event so that it can be cancelled.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct EventId(u64);

struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
    #[inline(always)]
    fn le(&self, other: &Self) -> bool {
        other.key() <= self.key()
    }
    #[inline(always)]
    fn lt(&self, other: &Self) -> bool {
        other.key() < self.key()
    }
    #[inline(always)]
    fn ge(&self, other: &Self) -> bool {
        other.key() >= self.key()
    }
    #[inline(always)]
    fn gt(&self, other: &Self) -> bool {
        other.key() > self.key()
    }
}
impl<E> Entry<E> {
    /// (time, seq) as one number: comparing it is one wide compare without branches.
    #[inline(always)]
    fn key(&self) -> u128 {
        (u128::from(self.time.0) << 64) | u128::from(self.seq)
    }
}

impl<E> Ord for Entry<E> {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest (time, seq) first.
    #[inline(always)]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key().cmp(&self.key())
    }
}

/// The cancelled set is looked up for every surfacing event while it is non-empty, so it
/// uses FxHash (rustc-hash) instead of SipHash: with it the `event_queue/hold_cancel_10pct`
/// bench (benches/engine.rs) went from ~81 to ~60 ns per event at 1024 pending events. Keys
/// are our own sequence numbers and the set's order is never observed, so the hasher cannot
/// change results.
type SeqSet = rustc_hash::FxHashSet<u64>;

/// A deterministic future-event list.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    cancelled: SeqSet,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
            cancelled: SeqSet::default(),
            popped: 0,
        }
    }

    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(n),
            ..Self::new()
        }
    }

    /// Schedules `event` at `time`; events at equal times fire in scheduling order.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: E) -> EventId {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
        EventId(seq)
    }

    /// Takes the sequence number an event will have, without scheduling it yet: the event
    /// is given to [`schedule_reserved`](Self::schedule_reserved) later (possibly after other
    /// events were scheduled) and still ties with them as if it had been scheduled now.
    ///
    /// This lets a component keep events that must fire in order in its own FIFO and hand
    /// the queue only the earliest one (a wire's packets, see `link::Wire`), with exactly
    /// the order that scheduling each of them here would give.
    #[inline]
    pub fn reserve(&mut self) -> EventId {
        let seq = self.next_seq;
        self.next_seq += 1;
        EventId(seq)
    }

    /// Schedules `event` at `time` under a sequence number taken by
    /// [`reserve`](Self::reserve). Each reserved number must be scheduled at most once.
    #[inline]
    pub fn schedule_reserved(&mut self, time: SimTime, id: EventId, event: E) {
        debug_assert!(
            id.0 < self.next_seq,
            "sequence number {} not reserved",
            id.0
        );
        self.heap.push(Entry {
            time,
            seq: id.0,
            event,
        });
    }

    /// Cancels a pending event. Cancelling an event that already fired has no effect on
    /// the run; its stale entry is purged once stale entries outnumber pending events.
    pub fn cancel(&mut self, id: EventId) {
        if id.0 < self.next_seq {
            self.cancelled.insert(id.0);
            if self.cancelled.len() > self.heap.len() {
                self.purge_stale_cancellations();
            }
        }
    }

    /// Keeps only the cancellations of events still in the heap (amortized O(1) per cancel).
    fn purge_stale_cancellations(&mut self) {
        let pending: SeqSet = self.heap.iter().map(|e| e.seq).collect();
        self.cancelled.retain(|s| pending.contains(s));
    }

    /// Removes and returns the earliest live event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        loop {
            let e = self.heap.pop()?;
            if !self.cancelled.is_empty() && self.cancelled.remove(&e.seq) {
                continue;
            }
            self.popped += 1;
            return Some((e.time, e.event));
        }
    }

    /// Removes and returns the earliest live event if it is strictly before `limit`;
    /// otherwise leaves it in place (so end-of-run accounting still sees it).
    #[inline]
    pub fn pop_before(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        loop {
            let top = self.heap.peek()?;
            if top.time >= limit {
                return None;
            }
            let e = self.heap.pop().expect("peeked");
            if !self.cancelled.is_empty() && self.cancelled.remove(&e.seq) {
                continue;
            }
            self.popped += 1;
            return Some((e.time, e.event));
        }
    }

    /// The time of the earliest pending entry (possibly a cancelled one).
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    /// Pending entries, cancelled ones included.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Number of events delivered by `pop` so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// Iterates the live pending events in no particular order (for end-of-run accounting).
    pub fn pending(&self) -> impl Iterator<Item = (SimTime, &E)> {
        self.heap
            .iter()
            .filter(|e| !self.cancelled.contains(&e.seq))
            .map(|e| (e.time, &e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_pop_in_time_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), 'c');
        q.schedule(SimTime(10), 'a');
        q.schedule(SimTime(20), 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c']);
    }

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        for i in 0..100 {
            q.schedule(SimTime(5), i);
        }
        let order: Vec<i32> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, (0..100).collect::<Vec<_>>());
    }

    /// Reserving a sequence number and scheduling the event later gives the order that
    /// scheduling it at the time of reservation would have given (ties included).
    #[test]
    fn reserved_events_tie_as_if_scheduled_when_reserved() {
        let mut q = EventQueue::new();
        let early = q.reserve(); // taken first: fires first among ties at t = 5
        q.schedule(SimTime(5), "scheduled second");
        let late = q.reserve();
        q.schedule(SimTime(5), "scheduled fourth");
        q.schedule_reserved(SimTime(5), late, "reserved third");
        q.schedule_reserved(SimTime(5), early, "reserved first");
        q.schedule(SimTime(4), "earlier time");
        let order: Vec<&str> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            [
                "earlier time",
                "reserved first",
                "scheduled second",
                "reserved third",
                "scheduled fourth"
            ]
        );
    }

    #[test]
    fn cancelled_events_never_fire() {
        let mut q = EventQueue::new();
        let a = q.schedule(SimTime(1), "a");
        q.schedule(SimTime(2), "b");
        q.cancel(a);
        assert_eq!(q.pop(), Some((SimTime(2), "b")));
        assert_eq!(q.pop(), None);
        assert_eq!(q.events_processed(), 1);
    }

    #[test]
    fn many_cancellations_skip_exactly_the_cancelled_events() {
        let mut q = EventQueue::new();
        let ids: Vec<EventId> = (0..10_000u64)
            .map(|i| q.schedule(SimTime(i % 97), i))
            .collect();
        for id in ids.iter().step_by(2) {
            q.cancel(*id);
        }
        let got: Vec<u64> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        let mut want: Vec<u64> = (0..10_000u64).filter(|i| i % 2 == 1).collect();
        want.sort_by_key(|&i| (i % 97, i));
        assert_eq!(got, want);
    }

    #[test]
    fn cancelling_fired_events_leaves_no_lasting_entries() {
        let mut q = EventQueue::new();
        for i in 0..1000u64 {
            let id = q.schedule(SimTime(i), i);
            q.pop();
            q.cancel(id);
        }
        assert!(
            q.cancelled.len() <= 1,
            "{} stale entries",
            q.cancelled.len()
        );
        q.schedule(SimTime(5), 7);
        assert_eq!(q.pop(), Some((SimTime(5), 7)));
    }

    #[test]
    fn pending_skips_cancelled_events() {
        let mut q = EventQueue::new();
        let a = q.schedule(SimTime(1), 1);
        q.schedule(SimTime(2), 2);
        q.cancel(a);
        let live: Vec<i32> = q.pending().map(|(_, e)| *e).collect();
        assert_eq!(live, vec![2]);
    }
}
