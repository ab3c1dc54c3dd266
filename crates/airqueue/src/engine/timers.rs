//! Cancellable component timers that cost nothing on the pops of other events.
//!
//! MACs re-arm and cancel timers all the time (802.11 back-off freezes, ACK timeouts,
//! Bluetooth polling). [`EventQueue::cancel`] keeps a set of cancelled sequence numbers
//! that every pop probes while it is non-empty, which taxes every later event. Timers
//! therefore live in a queue of their own: an **indexed binary heap** with one entry per
//! armed slot (at most one per slot, so re-arming never leaves a stale entry behind and
//! the main heap never grows with them), merged with the [`EventQueue`] at every pop by
//! (time, sequence number) — [`Timers::pop_before`]. A slot's entry is its heap position,
//! time and sequence number (drawn from the event queue's counter, so timers and events
//! share one total order):
//!
//! - **re-arming later** than the entry only moves the due time: no heap operation. When
//!   the entry reaches the front before the due time it is put back at the due time (one
//!   sift of a heap of timers, under a fresh sequence number: ties then resolve as if the
//!   timer had been armed at that moment) and is not counted as an event;
//! - **re-arming earlier** gives the entry a new time and sequence number (sifted up);
//! - **cancelling** only clears the due time; the entry is dropped, uncounted, when it
//!   reaches the front (a re-arm before then reuses it, as a later re-arm does);
//! - **firing** leaves the entry at the front, dead, until the next arming of a slot
//!   without an entry takes its place (one sift down instead of a removal and a push: a
//!   MAC re-arms as it handles its timer) or the next pop removes it.
//!
//! [`Timers::arm_exact`] always gives the entry a fresh sequence number when the time
//! changes (for timers whose tie order must follow the moment they were armed).
//!
//! The order of firings is exactly that of the earlier design, in which each arming was an
//! entry of the main heap and stale ones were discarded when they surfaced: discarding
//! consumed no sequence number and had no effect, and deferring took the next one at the
//! same point of the run. Only the cost changed (`event_queue/hold_timers_50pct` in
//! benches/engine.rs).

use super::{EventId, EventQueue, SimTime};

/// A timer slot (an index into [`Timers`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TimerId(pub u32);

/// What happened to a timer entry that reached the front of the timer heap.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Surfaced {
    /// The timer fires now.
    Fire,
    /// A cancelled arming: dropped, uncounted.
    Discard,
    /// The timer was re-armed later: the entry was put back at this time, uncounted.
    Defer(SimTime),
}

/// What [`Timers::pop_before`] returns: an ordinary event, or a timer that fires.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Next<E> {
    Event(E),
    Timer(TimerId),
}

/// No heap position: the slot has no entry.
const NONE: u32 = u32::MAX;

/// The due time of a disarmed slot. A timer armed at `SimTime::MAX` never fires (every run
/// stops before it), so it may share the value.
const DISARMED: SimTime = SimTime::MAX;

/// 32 bytes: `due` is a plain time with a sentinel rather than an `Option` (16 bytes).
#[derive(Copy, Clone, Debug)]
struct Slot {
    /// The entry's time and sequence number (its tie order).
    entry_at: SimTime,
    seq: u64,
    /// When the timer is due; [`DISARMED`] = not armed.
    due: SimTime,
    /// Position of the slot's entry in `Timers::heap`; [`NONE`] = no entry.
    pos: u32,
}

impl Slot {
    #[inline(always)]
    fn key(&self) -> Key {
        Key {
            at: self.entry_at.0,
            seq: self.seq,
        }
    }
}

/// A timer entry's place in the total order: entry time, then sequence number. Stored as
/// two `u64`s rather than one `u128`, which is 16-byte aligned and would pad [`HeapEntry`]
/// to 32 bytes; compared as one `u128` built on the fly (a wide compare without branches:
/// the lexicographic compare a derived order makes branches twice, unpredictably, in
/// every sift step).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Key {
    at: u64,
    seq: u64,
}

impl Key {
    #[inline(always)]
    fn wide(self) -> u128 {
        (u128::from(self.at) << 64) | u128::from(self.seq)
    }
}

impl PartialOrd for Key {
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
    #[inline(always)]
    fn lt(&self, other: &Self) -> bool {
        self.wide() < other.wide()
    }
    #[inline(always)]
    fn le(&self, other: &Self) -> bool {
        self.wide() <= other.wide()
    }
}

impl Ord for Key {
    #[inline(always)]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.wide().cmp(&other.wide())
    }
}

/// One entry of the timer heap (24 bytes): its key kept inline, so that sifting compares
/// without following the slot index.
#[derive(Copy, Clone, Debug)]
struct HeapEntry {
    key: Key,
    slot: u32,
}

/// The armed state of every timer slot of a run, and the heap of their entries.
#[derive(Default, Debug, Clone)]
pub struct Timers {
    slots: Vec<Slot>,
    /// A binary min-heap by (entry time, sequence number).
    heap: Vec<HeapEntry>,
    /// The front entry has fired and waits to be replaced: the next arming of a slot with
    /// no entry takes its place (one sift down, where removing it and pushing the new
    /// entry would sift twice), and anything else that reads the heap removes it first
    /// ([`settle`](Self::settle)). The event queue keeps its fired top the same way.
    front_fired: bool,
}

impl Timers {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new, disarmed slot.
    pub fn add(&mut self) -> TimerId {
        self.slots.push(Slot {
            entry_at: SimTime::ZERO,
            seq: 0,
            due: DISARMED,
            pos: NONE,
        });
        TimerId(self.slots.len() as u32 - 1)
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Arms `id` at `at`, replacing its previous arming. A later time keeps the pending
    /// entry (see the module documentation).
    #[inline]
    pub fn arm<E: Copy>(&mut self, q: &mut EventQueue<E>, id: TimerId, at: SimTime) {
        let s = &mut self.slots[id.0 as usize];
        if s.pos != NONE && s.entry_at <= at {
            s.due = at;
            return;
        }
        self.arm_exact(q, id, at);
    }

    /// Arms `id` at `at` with an entry whose sequence number is taken now (unless the
    /// pending entry is already at exactly that time): ties with other events at `at`
    /// resolve in the order of arming.
    #[inline]
    pub fn arm_exact<E: Copy>(&mut self, q: &mut EventQueue<E>, id: TimerId, at: SimTime) {
        let s = &self.slots[id.0 as usize];
        if s.pos != NONE {
            if s.entry_at == at {
                self.slots[id.0 as usize].due = at;
                return;
            }
            // The entry moves within the heap: the fired front must be gone first.
            self.settle();
        }
        let s = &mut self.slots[id.0 as usize];
        let EventId(seq) = q.reserve();
        let earlier = at < s.entry_at;
        s.seq = seq;
        s.entry_at = at;
        s.due = at;
        let e = HeapEntry {
            key: s.key(),
            slot: id.0,
        };
        let pos = s.pos;
        if pos == NONE && self.front_fired {
            // In the fired front's place: any key may sift down from the root.
            self.front_fired = false;
            self.sift_down(0, e);
        } else if pos == NONE {
            self.heap.push(e);
            self.sift_up(self.heap.len() - 1, e);
        } else if earlier {
            // A smaller key only moves up (a sift down after it would stop at once).
            self.sift_up(pos as usize, e);
        } else {
            // A later time (and a fresh sequence number): a larger key only moves down.
            self.sift_down(pos as usize, e);
        }
    }

    /// Disarms `id` (no effect if it is not armed).
    #[inline]
    pub fn cancel(&mut self, id: TimerId) {
        self.slots[id.0 as usize].due = DISARMED;
    }

    /// When `id` fires, if it is armed.
    #[inline]
    pub fn armed_at(&self, id: TimerId) -> Option<SimTime> {
        let due = self.slots[id.0 as usize].due;
        (due != DISARMED).then_some(due)
    }

    /// Number of armed timers (end-of-run accounting: timers that would still fire).
    pub fn armed(&self) -> usize {
        self.slots.iter().filter(|s| s.due != DISARMED).count()
    }

    /// The earliest event before `limit`, of `q` or of the timers, in (time, sequence
    /// number) order: an ordinary event is popped from `q`; a timer entry that reaches the
    /// front fires (and counts as an event of `q`), or is dropped or deferred uncounted.
    /// Entries at or after `limit` stay where they are.
    #[inline]
    pub fn pop_before<E: Copy>(
        &mut self,
        q: &mut EventQueue<E>,
        limit: SimTime,
    ) -> Option<(SimTime, Next<E>)> {
        self.settle();
        loop {
            let main = q.peek_live();
            let timer_first = match (self.heap.first(), &main) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some(e), Some((t, seq, _))) => e.key < Key { at: t.0, seq: *seq },
            };
            if !timer_first {
                let (t, _, ev) = main?;
                if t >= limit {
                    return None;
                }
                q.fire_top();
                return Some((t, Next::Event(ev)));
            }
            let front = self.heap[0];
            let at = SimTime(front.key.at);
            if at >= limit {
                return None;
            }
            if self.surface(q) == Surfaced::Fire {
                q.count_fired();
                return Some((at, Next::Timer(TimerId(front.slot))));
            }
        }
    }

    /// The entry at the front of the heap is due: fire, drop or defer it. Firing disarms
    /// the slot.
    #[inline]
    fn surface<E: Copy>(&mut self, q: &mut EventQueue<E>) -> Surfaced {
        let id = self.heap[0].slot;
        let s = &mut self.slots[id as usize];
        match s.due {
            DISARMED => {
                self.remove_front();
                Surfaced::Discard
            }
            due if due <= s.entry_at => {
                s.due = DISARMED;
                s.pos = NONE;
                self.front_fired = true;
                Surfaced::Fire
            }
            due => {
                s.seq = q.reserve().0;
                s.entry_at = due;
                let e = HeapEntry {
                    key: s.key(),
                    slot: id,
                };
                self.sift_down(0, e);
                Surfaced::Defer(due)
            }
        }
    }

    /// Removes the fired front, if it is still there.
    #[inline(always)]
    /// The time of the front entry (the earliest armed slot, or a lower bound of it: a
    /// slot re-armed later keeps its entry until it surfaces); for a loop that waits for
    /// the next due time (live mode).
    pub fn front_at(&mut self) -> Option<SimTime> {
        self.settle();
        self.heap.first().map(|e| SimTime(e.key.at))
    }

    fn settle(&mut self) {
        if self.front_fired {
            self.front_fired = false;
            self.pop_front();
        }
    }

    fn remove_front(&mut self) {
        let front = self.heap[0].slot as usize;
        self.slots[front].pos = NONE;
        self.pop_front();
    }

    /// Takes the front entry out of the heap (its slot's `pos` is already cleared).
    fn pop_front(&mut self) {
        let last = self.heap.pop().expect("a front entry");
        if !self.heap.is_empty() {
            self.sift_down(0, last);
        }
    }

    /// Puts `e` (whose place is the hole at `p`) as far up as it goes; returns its place.
    #[inline(never)]
    fn sift_up(&mut self, mut p: usize, e: HeapEntry) -> usize {
        // (The sifts work on the two vectors as slices: the heap's length is then fixed
        // for the loop and its index checks fold into the loop's own bounds test.)
        let (heap, slots) = (&mut self.heap[..], &mut self.slots[..]);
        while p > 0 {
            let parent = (p - 1) / 2;
            let above = heap[parent];
            if above.key <= e.key {
                break;
            }
            place(heap, slots, p, above);
            p = parent;
        }
        place(heap, slots, p, e);
        p
    }

    /// Puts `e` (whose place is the hole at `p`) as far down as it goes.
    #[inline(never)]
    fn sift_down(&mut self, mut p: usize, e: HeapEntry) {
        let (heap, slots) = (&mut self.heap[..], &mut self.slots[..]);
        let n = heap.len();
        loop {
            let l = 2 * p + 1;
            if l >= n {
                break;
            }
            // The smaller child, chosen without a branch (which child wins is a coin
            // flip the predictor cannot learn).
            let r = l + 1;
            let c = if r < n {
                l + usize::from(heap[r].key < heap[l].key)
            } else {
                l
            };
            let below = heap[c];
            if e.key <= below.key {
                break;
            }
            place(heap, slots, p, below);
            p = c;
        }
        place(heap, slots, p, e);
    }
}

/// Puts entry `e` at heap place `p` and tells its slot.
#[inline(always)]
fn place(heap: &mut [HeapEntry], slots: &mut [Slot], p: usize, e: HeapEntry) {
    heap[p] = e;
    slots[e.slot as usize].pos = p as u32;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pops everything: (time, event) for events, (time, 1000 + slot) for timers.
    /// A popped event or timer as (time, label): an event's own number, 1000 + a timer's
    /// slot.
    fn labelled((time, next): (SimTime, Next<u32>)) -> (u64, u32) {
        match next {
            Next::Event(e) => (time.0, e),
            Next::Timer(id) => (time.0, 1000 + id.0),
        }
    }

    fn drain(q: &mut EventQueue<u32>, t: &mut Timers) -> Vec<(u64, u32)> {
        std::iter::from_fn(|| t.pop_before(q, SimTime::MAX).map(labelled)).collect()
    }

    /// The reference for the interleaved test: one sorted list of every arming's entry and
    /// every event, with the lazy rules spelled out (a stale entry is skipped, a later due
    /// time defers the entry under a fresh sequence number).
    #[derive(Default)]
    struct Reference {
        next_seq: u64,
        list: Vec<(u64, u64, u32)>,
        /// Per slot: (sequence number, time) of its live entry, and its due time.
        live: Vec<Option<(u64, u64)>>,
        due: Vec<Option<u64>>,
    }

    impl Reference {
        fn schedule(&mut self, at: u64, what: u32) {
            self.list.push((at, self.next_seq, what));
            self.next_seq += 1;
        }

        /// `exact`: `arm_exact` (a new entry unless one is at exactly `at`), else `arm`
        /// (a new entry unless one is at or before `at`).
        fn arm(&mut self, k: usize, at: u64, exact: bool) {
            let keep = self.live[k].is_some_and(|(_, e)| if exact { e == at } else { e <= at });
            if !keep {
                self.live[k] = Some((self.next_seq, at));
                self.schedule(at, 1000 + k as u32);
            }
            self.due[k] = Some(at);
        }

        fn pop(&mut self) -> Option<(u64, u32)> {
            loop {
                self.list.sort();
                if self.list.is_empty() {
                    return None;
                }
                let (at, seq, what) = self.list.remove(0);
                if what < 1000 {
                    return Some((at, what));
                }
                let k = (what - 1000) as usize;
                if self.live[k].map(|(s, _)| s) != Some(seq) {
                    continue; // stale
                }
                match self.due[k] {
                    None => self.live[k] = None,
                    Some(d) if d <= at => {
                        self.live[k] = None;
                        self.due[k] = None;
                        return Some((at, what));
                    }
                    Some(d) => {
                        self.live[k] = Some((self.next_seq, d));
                        self.schedule(d, what);
                    }
                }
            }
        }
    }

    /// Armings, cancellations and events interleaved with pops, as a simulation makes
    /// them (mostly at or after the time of the last pop): a fired front that the next
    /// arming replaces, or that the next pop removes, gives the reference's order.
    #[test]
    fn interleaved_armings_and_pops_give_the_reference_order() {
        use rand::Rng;
        let mut rng = crate::engine::stream(11, "test:timers:interleaved");
        for _case in 0..300 {
            let mut q: EventQueue<u32> = EventQueue::new();
            let mut t = Timers::new();
            let n = rng.random_range(1..8usize);
            let slots: Vec<TimerId> = (0..n).map(|_| t.add()).collect();
            let mut r = Reference {
                live: vec![None; n],
                due: vec![None; n],
                ..Reference::default()
            };
            let mut now = 0u64;
            for _ in 0..200 {
                // Mostly ahead of the last pop, as a simulation arms; sometimes before it,
                // which the heap must order as well.
                let at = (now + rng.random_range(0..40u64)).saturating_sub(8);
                let k = rng.random_range(0..n);
                match rng.random_range(0..6) {
                    0 | 1 => {
                        let got = t.pop_before(&mut q, SimTime::MAX).map(labelled);
                        assert_eq!(got, r.pop());
                        if let Some((at, _)) = got {
                            now = at;
                        }
                    }
                    2 => {
                        q.schedule(SimTime(at), k as u32);
                        r.schedule(at, k as u32);
                    }
                    3 => {
                        t.arm(&mut q, slots[k], SimTime(at));
                        r.arm(k, at, false);
                    }
                    4 => {
                        t.arm_exact(&mut q, slots[k], SimTime(at));
                        r.arm(k, at, true);
                    }
                    _ => {
                        t.cancel(slots[k]);
                        r.due[k] = None;
                    }
                }
            }
            let want: Vec<(u64, u32)> = std::iter::from_fn(|| r.pop()).collect();
            assert_eq!(drain(&mut q, &mut t), want);
        }
    }

    /// Reference: a timer fires once per arming that was neither replaced nor cancelled,
    /// at the time of its last arming, and replaced or deferred armings are not counted.
    #[test]
    fn only_the_last_arming_fires_and_stale_armings_are_not_counted() {
        let mut q: EventQueue<u32> = EventQueue::new();
        let mut t = Timers::new();
        let a = t.add();
        let b = t.add();
        t.arm(&mut q, a, SimTime(10));
        t.arm(&mut q, a, SimTime(30)); // later: the entry at 10 is deferred to 30
        t.arm(&mut q, b, SimTime(20));
        t.cancel(b);
        t.arm(&mut q, b, SimTime(40)); // later than the cancelled entry: deferred
        t.arm(&mut q, a, SimTime(5)); // earlier: the entry moves to 5
        assert_eq!(drain(&mut q, &mut t), vec![(5, 1000), (40, 1001)]);
        assert_eq!(q.events_processed(), 2);
        assert_eq!(t.armed_at(a), None);
    }

    #[test]
    fn a_cancelled_timer_never_fires() {
        let mut q: EventQueue<u32> = EventQueue::new();
        let mut t = Timers::new();
        let a = t.add();
        t.arm(&mut q, a, SimTime(10));
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
        t.arm(&mut q, a, SimTime(10));
        t.arm(&mut q, a, SimTime(50)); // deferred when it surfaces at 10
        t.arm_exact(&mut q, b, SimTime(5));
        t.arm_exact(&mut q, b, SimTime(50)); // a new sequence number now
        q.schedule(SimTime(20), 7); // an ordinary event at 20
        q.schedule(SimTime(50), 8); // scheduled before a is put back at 10
                                    // b's exact arming and event 8 (both numbered before a was put back) fire first.
        assert_eq!(
            drain(&mut q, &mut t),
            vec![(20, 7), (50, 1001), (50, 8), (50, 1000)]
        );
    }

    /// Reference: the earlier design, every arming an entry of one heap (a sorted list
    /// here), stale armings skipped and deferrals re-numbered when they surface. Random
    /// arms, exact arms, cancels and events give the same firing order.
    #[test]
    fn the_timer_heap_orders_firings_as_one_heap_of_armings_would() {
        use rand::Rng;
        let mut rng = crate::engine::stream(7, "test:timers:reference");
        for _case in 0..200 {
            let mut q: EventQueue<u32> = EventQueue::new();
            let mut t = Timers::new();
            let slots: Vec<TimerId> = (0..5).map(|_| t.add()).collect();
            let mut r = Reference {
                live: vec![None; 5],
                due: vec![None; 5],
                ..Reference::default()
            };
            for _ in 0..30 {
                let at = rng.random_range(0..100u64);
                let k = rng.random_range(0..5usize);
                match rng.random_range(0..4) {
                    0 => {
                        q.schedule(SimTime(at), k as u32);
                        r.schedule(at, k as u32);
                    }
                    1 => {
                        t.arm(&mut q, slots[k], SimTime(at));
                        r.arm(k, at, false);
                    }
                    2 => {
                        t.arm_exact(&mut q, slots[k], SimTime(at));
                        r.arm(k, at, true);
                    }
                    _ => {
                        t.cancel(slots[k]);
                        r.due[k] = None;
                    }
                }
            }
            let want: Vec<(u64, u32)> = std::iter::from_fn(|| r.pop()).collect();
            assert_eq!(drain(&mut q, &mut t), want);
        }
    }
}
