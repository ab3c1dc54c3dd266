//! Events known before the run and mostly far ahead of it: each flow's start and, for a
//! bulk transfer, its stop; the warm-up's end; the timeline's changes.
//!
//! With every one of them in the event queue, a run of 1 000 (or 100 000) flows starting one
//! after the other sifts each of its events through a heap deepened by the starts still to
//! come (the 1 Gbit dumbbell with 1 000 flows held ~500 of them on average, against ~5
//! events in progress). They wait here instead, in (time, sequence number) order, and only
//! the earliest is in the queue, as an [`Event::Far`] under the sequence number it was given
//! at build: when it fires, the next one goes in (under its own reserved number), and the
//! entry is dispatched as the event it stands for. The order of events is exactly that of
//! scheduling them all at build (the same keys), the event count too (one pop each), and
//! other events' pops get no extra check (as `link::Wire` does for a wire's packets). The
//! one measured cost is indirect: with the new `Event` variant the run loop compiled to
//! 6 more instructions per event (register allocation; docs/architecture.md, step 9).
//!
//! Cancelling (the timeline stops a flow before its start) goes through
//! [`FarEvents::cancel`]: an entry still waiting is marked and skipped; the one in the
//! queue is cancelled there and the next one takes its place.

use super::{Event, Simulation};
use crate::engine::{EventId, EventQueue, SimTime};

/// A far event: its time, the sequence number it was given at build, and the event it
/// stands for (24 bytes; the list is sorted in place, so a run of 100 000 flows holds one
/// copy of it).
type FarEntry = (SimTime, EventId, Event);

/// The far events of a run, in (time, sequence number) order.
#[derive(Default, Debug)]
pub(super) struct FarEvents {
    entries: Vec<FarEntry>,
    /// The first entry not yet put in the queue.
    next: usize,
    /// The entry in the queue, if any.
    queued: Option<usize>,
    /// Sequence numbers of entries cancelled while waiting (empty unless the timeline
    /// stopped a flow before its start).
    cancelled: rustc_hash::FxHashSet<u64>,
}

impl FarEvents {
    /// The far events of a run, `(time, reserved sequence number, event)`; the earliest
    /// goes in the queue.
    pub(super) fn new(mut entries: Vec<FarEntry>, events: &mut EventQueue<Event>) -> Self {
        entries.sort_unstable_by_key(|&(at, id, _)| (at, id.0));
        let mut far = FarEvents {
            entries,
            ..FarEvents::default()
        };
        far.feed(events);
        far
    }

    /// Puts the next entry that is not cancelled in the queue.
    fn feed(&mut self, events: &mut EventQueue<Event>) {
        self.queued = None;
        while let Some(&(at, id, _)) = self.entries.get(self.next) {
            let k = self.next;
            self.next += 1;
            if self.cancelled.is_empty() || !self.cancelled.remove(&id.0) {
                self.queued = Some(k);
                events.schedule_reserved(at, id, Event::Far(k as u32));
                return;
            }
        }
    }

    /// Cancels the event `id`, a far entry or an ordinary event (no effect if it fired).
    pub(super) fn cancel(&mut self, events: &mut EventQueue<Event>, id: EventId) {
        if self.queued.is_some_and(|k| self.entries[k].1 == id) {
            events.cancel(id);
            self.feed(events);
            return;
        }
        // (A linear search: cancelling comes from the timeline, seldom.)
        if self.entries[self.next..].iter().any(|e| e.1 == id) {
            self.cancelled.insert(id.0);
            return;
        }
        events.cancel(id);
    }
}

impl Simulation {
    /// Far entry `k` fires: the next one goes in the queue, and `k` acts as the event it
    /// stands for.
    #[inline(never)]
    pub(super) fn far_event(&mut self, k: u32) {
        let event = self.far.entries[k as usize].2;
        self.far.feed(&mut self.events);
        match event {
            Event::AppSend(f) => self.app_send(f as usize),
            Event::WarmupEnd => self.reset_statistics(),
            Event::Change(i) => self.apply_change(i),
            other => unreachable!("{other:?} is not a far event"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pops everything, replacing each far entry by the event it stands for (as
    /// `Simulation::far_event` does, which feeds the next entry first).
    fn drain(far: &mut FarEvents, q: &mut EventQueue<Event>) -> Vec<(u64, u32)> {
        let mut got = Vec::new();
        while let Some((t, ev)) = q.pop() {
            let ev = match ev {
                Event::Far(k) => {
                    far.feed(q);
                    far.entries[k as usize].2
                }
                ev => ev,
            };
            let Event::AppSend(f) = ev else {
                unreachable!("the test schedules flow events only")
            };
            got.push((t.0, f));
        }
        got
    }

    /// Reference: the same events scheduled in one queue, under the same sequence numbers,
    /// with the same cancellations. The far list pops them identically (ties included),
    /// holds one entry in the queue at a time, and a cancelled entry never fires, whether
    /// it was in the queue or still waiting.
    #[test]
    fn far_events_pop_as_if_all_were_scheduled_at_build() {
        let times = [50u64, 10, 30, 10, 70, 30, 90, 20];
        let mut q: EventQueue<Event> = EventQueue::new();
        let mut plain: EventQueue<Event> = EventQueue::new();
        let mut list = Vec::new();
        let mut plain_ids = Vec::new();
        for (f, &t) in times.iter().enumerate() {
            if f == 4 {
                // An ordinary event between them, tying with two far ones at 10.
                q.schedule(SimTime(10), Event::AppSend(100));
                plain.schedule(SimTime(10), Event::AppSend(100));
            }
            list.push((SimTime(t), q.reserve(), Event::AppSend(f as u32)));
            plain_ids.push(plain.schedule(SimTime(t), Event::AppSend(f as u32)));
        }
        let mut far = FarEvents::new(list.clone(), &mut q);
        assert_eq!(q.len(), 2, "the ordinary event and one far entry");
        // Flow 1 (at 10, numbered first) is the entry in the queue; flow 4 waits.
        for f in [1, 4] {
            far.cancel(&mut q, list[f].1);
            plain.cancel(plain_ids[f]);
        }
        let want: Vec<(u64, u32)> = std::iter::from_fn(|| plain.pop())
            .map(|(t, ev)| match ev {
                Event::AppSend(f) => (t.0, f),
                _ => unreachable!("flow events only"),
            })
            .collect();
        assert_eq!(want.len(), 7);
        assert_eq!(drain(&mut far, &mut q), want);
    }
}
