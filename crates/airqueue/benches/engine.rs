//! Event-queue benchmarks: the classic "hold model".
//!
//! The queue is pre-filled with `N` pending events; each measured operation pops the
//! earliest event and schedules a new one at `now + increment`, so the queue size stays at
//! `N`. Increments come from a precomputed table (drawn once from an airqueue RNG stream),
//! so the RNG is not measured. One iteration is one event (pop + schedule), reported with
//! `Throughput::Elements(1)`: criterion's `time` line is the cost per event.
//!
//! `hold_cancel` adds the simulator's timer pattern (a qdisc wakeup being re-armed): in
//! 10 % of the operations a timer slot is re-armed, cancelling its pending event (if any)
//! and scheduling a replacement, so cancelled entries sit in the heap until they surface.
//!
//! Target (issue): ≤ 150 ns per event on a 2-core machine.

use airqueue::engine::{stream, EventId, EventQueue, Next, SimTime, TimerId, Timers};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::Rng;
use std::hint::black_box;
use std::time::Duration;

/// A 16-byte `Copy` event: a heap entry is then 32 bytes (time, sequence, event). The
/// simulator's `sim::Event` is 8 bytes (24-byte entries) since the wires keep their packets
/// themselves; the bench keeps 16 so that its numbers compare with earlier ones.
#[derive(Copy, Clone, Debug)]
enum BenchEvent {
    /// An ordinary event (a packet arrival, a transmission end, …). The fields are never
    /// read: they only give the event its realistic size.
    #[allow(dead_code)]
    Regular { iface: u32, pkt: u32, flow: u32 },
    /// A cancellable timer (a qdisc wakeup) owned by slot `.0`.
    Timer(u32),
}

const _: () = assert!(std::mem::size_of::<BenchEvent>() == 16);

/// Queue sizes: tiny, a busy network, a very large one.
const SIZES: [usize; 3] = [16, 1024, 65536];
/// Length of the increment table (a power of two, so the index wraps with a mask).
const TABLE: usize = 1 << 16;
/// Mean increment: 1 µs (uniform on 1 ns … 2 µs).
const MEAN_NS: u64 = 1_000;
/// Number of cancellable timers in `hold_cancel`.
const TIMER_SLOTS: usize = 64;

/// Precomputed increments, uniform on [1, 2 × MEAN_NS] ns.
fn increments() -> Vec<u64> {
    let mut rng = stream(1, "bench:engine:hold");
    (0..TABLE)
        .map(|_| rng.random_range(1..=2 * MEAN_NS))
        .collect()
}

/// A queue in steady state: `n` events spread as the hold model spreads them.
fn prefilled(n: usize, inc: &[u64]) -> EventQueue<BenchEvent> {
    let mut q = EventQueue::with_capacity(n + TIMER_SLOTS + 1);
    for i in 0..n {
        let ev = BenchEvent::Regular {
            iface: i as u32,
            pkt: i as u32,
            flow: 0,
        };
        q.schedule(SimTime(inc[i % TABLE]), ev);
    }
    // Warm up: cycle every event through the queue a few times so that the time spread is
    // the hold model's stationary one rather than the initial uniform one.
    for k in 0..(4 * n).max(10_000) {
        let (t, ev) = q.pop().expect("queue is never empty");
        q.schedule(t + SimTime(inc[k & (TABLE - 1)]), ev);
    }
    q
}

fn hold(c: &mut Criterion) {
    let inc = increments();
    let mut g = c.benchmark_group("event_queue/hold");
    g.throughput(Throughput::Elements(1));
    for &n in &SIZES {
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            let mut q = prefilled(n, &inc);
            let mut k = 0usize;
            b.iter(|| {
                let (t, ev) = q.pop().expect("queue is never empty");
                let d = inc[k & (TABLE - 1)];
                k = k.wrapping_add(1);
                q.schedule(t + SimTime(d), black_box(ev));
            });
        });
    }
    g.finish();
}

fn hold_cancel(c: &mut Criterion) {
    let inc = increments();
    let mut g = c.benchmark_group("event_queue/hold_cancel_10pct");
    g.throughput(Throughput::Elements(1));
    for &n in &SIZES {
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            let mut q = prefilled(n, &inc);
            let mut timers: [Option<EventId>; TIMER_SLOTS] = [None; TIMER_SLOTS];
            let mut k = 0usize;
            b.iter(|| {
                let (t, ev) = q.pop().expect("queue is never empty");
                let d = inc[k & (TABLE - 1)];
                k = k.wrapping_add(1);
                match ev {
                    // A regular event is replaced (the hold model).
                    BenchEvent::Regular { .. } => {
                        q.schedule(t + SimTime(d), black_box(ev));
                    }
                    // A timer that fired is not re-armed here; it frees its slot.
                    BenchEvent::Timer(slot) => timers[slot as usize] = None,
                }
                // 10 % of the operations re-arm a timer: cancel it if pending, schedule anew.
                if d.is_multiple_of(10) {
                    let slot = (d / 10) as usize % TIMER_SLOTS;
                    if let Some(old) = timers[slot].take() {
                        q.cancel(old);
                    }
                    let when = t + SimTime(inc[(k ^ 0x5555) & (TABLE - 1)]);
                    timers[slot] = Some(q.schedule(when, BenchEvent::Timer(slot as u32)));
                }
            });
        });
    }
    g.finish();
}

/// The MAC timer pattern at wireless scale (issue 10): half of the operations re-arm or
/// cancel a timer slot (`engine::Timers`: back-off freezes, ACK timeouts, polling). Timers
/// live in an indexed heap of their own, one entry per slot, merged with the event queue
/// at every pop (`Timers::pop_before`): a re-arm to a later time moves only the due time,
/// an earlier one sifts the slot's entry up, a cancel clears the due time; nothing stale
/// enters the event heap. Target: within 1.5× of the plain hold model at the same size.
fn hold_timers_50pct(c: &mut Criterion) {
    let inc = increments();
    let mut g = c.benchmark_group("event_queue/hold_timers_50pct");
    g.throughput(Throughput::Elements(1));
    for &n in &SIZES {
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            let mut q = prefilled(n, &inc);
            let mut timers = Timers::new();
            let slots: Vec<TimerId> = (0..TIMER_SLOTS).map(|_| timers.add()).collect();
            let mut k = 0usize;
            b.iter(|| {
                let (t, next) = timers
                    .pop_before(&mut q, SimTime::MAX)
                    .expect("queue is never empty");
                let d = inc[k & (TABLE - 1)];
                k = k.wrapping_add(1);
                if let Next::Event(ev) = next {
                    q.schedule(t + SimTime(d), black_box(ev));
                }
                // Half of the operations touch a timer: 4 in 5 re-arm it (replacing the
                // pending arming), 1 in 5 cancels it.
                if d.is_multiple_of(2) {
                    let slot = slots[(d / 2) as usize % TIMER_SLOTS];
                    if d.is_multiple_of(10) {
                        timers.cancel(slot);
                    } else {
                        let when = t + SimTime(inc[(k ^ 0x5555) & (TABLE - 1)]);
                        timers.arm(&mut q, slot, when);
                    }
                }
            });
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = hold, hold_cancel, hold_timers_50pct
}
criterion_main!(benches);
