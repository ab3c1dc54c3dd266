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
pub struct EventId(pub(crate) u64);

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
///
/// Events are small `Copy` values. `pop` leaves the entry it returns at the top of the heap
/// (marked fired) and the next `schedule` overwrites it: a handler almost always schedules
/// an event, and one sift-down of the replacement costs less than a pop's sifts plus a
/// push's, most of all when the new event is due soon (the next transmission's end). A
/// `pop` that follows without a `schedule` removes the fired entry first. Entries have
/// unique (time, seq) keys, so the order of pops does not depend on the heap's layout.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    /// Whether the heap's top is the event `pop` returned last (already fired).
    top_fired: bool,
    next_seq: u64,
    cancelled: SeqSet,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            top_fired: false,
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
        self.insert(Entry { time, seq, event });
        EventId(seq)
    }

    /// Puts an entry in the heap, in the place of the fired top if there is one.
    #[inline]
    fn insert(&mut self, entry: Entry<E>) {
        if self.top_fired {
            self.top_fired = false;
            if let Some(mut top) = self.heap.peek_mut() {
                *top = entry; // sifted down when `top` is dropped
            }
        } else {
            self.heap.push(entry);
        }
    }

    /// Removes the fired top, if it is still there.
    #[inline]
    fn remove_fired(&mut self) {
        if self.top_fired {
            self.top_fired = false;
            self.heap.pop();
        }
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
        self.insert(Entry {
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
            if self.cancelled.len() > self.len() {
                self.purge_stale_cancellations();
            }
        }
    }

    /// Keeps only the cancellations of events still in the heap (amortized O(1) per cancel).
    fn purge_stale_cancellations(&mut self) {
        self.remove_fired();
        let pending: SeqSet = self.heap.iter().map(|e| e.seq).collect();
        self.cancelled.retain(|s| pending.contains(s));
    }

    /// Removes and returns the earliest live event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let (time, event) = self.next_live()?;
        self.fire();
        Some((time, event))
    }

    /// Removes and returns the earliest live event if it is strictly before `limit`;
    /// otherwise leaves it in place (so end-of-run accounting still sees it).
    #[inline]
    pub fn pop_before(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        let (time, event) = self.next_live()?;
        if time >= limit {
            return None;
        }
        self.fire();
        Some((time, event))
    }

    /// The earliest live event (time, sequence number, event), left at the top of the
    /// heap; [`fire_top`](Self::fire_top) then pops it. For merging another queue in
    /// (time, sequence number) order ([`super::Timers::pop_before`]).
    #[inline]
    pub fn peek_live(&mut self) -> Option<(SimTime, u64, E)> {
        self.remove_fired();
        loop {
            let top = self.heap.peek()?;
            if !self.cancelled.is_empty() && self.cancelled.remove(&top.seq) {
                self.heap.pop();
                continue;
            }
            return Some((top.time, top.seq, top.event));
        }
    }

    /// Pops the event [`peek_live`](Self::peek_live) returned.
    #[inline]
    pub fn fire_top(&mut self) {
        self.fire();
    }

    /// Counts an event that fired from another queue merged with this one (a timer).
    #[inline]
    pub fn count_fired(&mut self) {
        self.popped += 1;
    }

    /// The earliest live event, left at the top of the heap: the fired top and cancelled
    /// entries before it are removed first.
    #[inline]
    fn next_live(&mut self) -> Option<(SimTime, E)> {
        self.peek_live().map(|(t, _, e)| (t, e))
    }

    /// Marks the top (the event being returned) fired.
    #[inline]
    fn fire(&mut self) {
        self.top_fired = true;
        self.popped += 1;
    }

    /// The pending entries (cancelled ones included), without the fired top.
    fn entries(&self) -> impl Iterator<Item = &Entry<E>> {
        let fired = self
            .top_fired
            .then(|| self.heap.peek().map(|e| e.seq))
            .flatten();
        self.heap.iter().filter(move |e| Some(e.seq) != fired)
    }

    /// The time of the earliest pending entry (possibly a cancelled one).
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.remove_fired();
        self.heap.peek().map(|e| e.time)
    }

    /// Pending entries, cancelled ones included.
    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.top_fired)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of events delivered by `pop` so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// Iterates the live pending events in no particular order (for end-of-run accounting).
    pub fn pending(&self) -> impl Iterator<Item = (SimTime, &E)> {
        self.entries()
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

    /// One step of a client of the queue (the simulator's handlers do all of these).
    #[derive(Clone, Debug)]
    enum Op {
        /// Schedule an event `dt` after the current time.
        Schedule(u64),
        /// Reserve a sequence number now and schedule under it `dt` after the current time
        /// at the next `Release`.
        Reserve(u64),
        /// Schedule the oldest reserved event.
        Release,
        /// Cancel the k-th event scheduled so far (fired, pending or already cancelled).
        Cancel(usize),
        Pop,
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            3 => (0u64..4).prop_map(Op::Schedule),
            1 => (0u64..4).prop_map(Op::Reserve),
            1 => Just(Op::Release),
            1 => any::<usize>().prop_map(Op::Cancel),
            3 => Just(Op::Pop),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Reference: a plain list searched for its smallest (time, seq) at every pop, with
        /// cancelled events removed from it. The heap (with its fired top replaced in place,
        /// reservations and lazy cancellation) pops exactly the same events, and `len` and
        /// `pending` agree with the list.
        #[test]
        fn pops_match_a_sorted_list_reference(ops in proptest::collection::vec(op(), 1..200)) {
            let mut q = EventQueue::new();
            let mut list: Vec<(SimTime, u64)> = Vec::new(); // (time, seq); the event is seq
            let mut ids: Vec<EventId> = Vec::new();
            let mut reserved: std::collections::VecDeque<(SimTime, EventId)> = Default::default();
            let mut now = SimTime::ZERO;
            for op in ops {
                match op {
                    Op::Schedule(dt) => {
                        let seq = q.next_seq;
                        let id = q.schedule(now + SimTime(dt), seq);
                        list.push((now + SimTime(dt), seq));
                        ids.push(id);
                    }
                    Op::Reserve(dt) => reserved.push_back((now + SimTime(dt), q.reserve())),
                    Op::Release => {
                        if let Some((t, id)) = reserved.pop_front() {
                            q.schedule_reserved(t, id, id.0);
                            list.push((t, id.0));
                            ids.push(id);
                        }
                    }
                    Op::Cancel(k) => {
                        if !ids.is_empty() {
                            let id = ids[k % ids.len()];
                            q.cancel(id);
                            list.retain(|&(_, s)| s != id.0);
                        }
                    }
                    Op::Pop => {
                        let want = list.iter().copied().min();
                        list.retain(|e| Some(*e) != want);
                        let got = q.pop();
                        proptest::prop_assert_eq!(got, want);
                        if let Some((t, _)) = got {
                            now = t;
                        }
                    }
                }
                proptest::prop_assert_eq!(q.len() >= list.len(), true);
                let mut live: Vec<u64> = q.pending().map(|(_, &e)| e).collect();
                let mut want: Vec<u64> = list.iter().map(|&(_, s)| s).collect();
                live.sort_unstable();
                want.sort_unstable();
                proptest::prop_assert_eq!(live, want);
            }
        }
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
