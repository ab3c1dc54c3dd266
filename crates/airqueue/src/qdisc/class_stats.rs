//! Per-class statistics of classful disciplines (what `tc -s class show` reports, plus
//! sojourn times), and [`Child`], the wrapper through which a classful discipline talks to
//! a child discipline so that every packet, drop and mark of the child is counted.
//!
//! Each class keeps the identity `enqueued = dequeued + dropped after enqueue + backlog`
//! over its whole life; debug builds check it after every operation, as ns-3's
//! `QueueDisc` checks its own counters, so a child that loses packets is caught at once.

use super::{dequeue_for, peek_for, Qdisc, QdiscCtx, Verdict};
use crate::engine::SimTime;
use crate::packet::{DropReason, PacketId};
use hdrhistogram::Histogram;

/// Counters of one class since the last reset (the warm-up end).
#[derive(Clone, Debug)]
pub struct ClassStats {
    /// Packets (bytes) the class accepted; a packet dropped on arrival is not counted.
    pub enqueued_packets: u64,
    pub enqueued_bytes: u64,
    pub dequeued_packets: u64,
    pub dequeued_bytes: u64,
    /// Drops inside the class (on arrival or later), by [`DropReason`].
    pub drops: [u64; DropReason::COUNT],
    /// Packets marked CE (ECN) inside the class.
    pub marks: u64,
    /// HTB: packets sent on the class's own rate (`lends` in `tc -s class show`).
    pub lends: u64,
    /// HTB: packets sent on tokens borrowed from an ancestor (`borrows`).
    pub borrows: u64,
    sojourn_sum_ns: u128,
    /// Time from entering the root qdisc to leaving the class, 3 significant digits.
    sojourn: Histogram<u64>,
    sojourn_min_ns: u64,
    sojourn_max_ns: u64,
    /// Whole-life counters behind the identity check (never reset).
    life_enqueued: u64,
    life_dequeued: u64,
    life_dropped_after_enqueue: u64,
}

impl Default for ClassStats {
    fn default() -> Self {
        ClassStats {
            enqueued_packets: 0,
            enqueued_bytes: 0,
            dequeued_packets: 0,
            dequeued_bytes: 0,
            drops: [0; DropReason::COUNT],
            marks: 0,
            lends: 0,
            borrows: 0,
            sojourn_sum_ns: 0,
            sojourn: Histogram::new(3).expect("3 significant digits is valid"),
            sojourn_min_ns: u64::MAX,
            sojourn_max_ns: 0,
            life_enqueued: 0,
            life_dequeued: 0,
            life_dropped_after_enqueue: 0,
        }
    }
}

impl ClassStats {
    /// Starts a new measurement period; the whole-life counters are kept.
    pub fn reset(&mut self) {
        let mut hist = std::mem::replace(&mut self.sojourn, Histogram::new(3).unwrap());
        hist.reset();
        *self = ClassStats {
            sojourn: hist,
            life_enqueued: self.life_enqueued,
            life_dequeued: self.life_dequeued,
            life_dropped_after_enqueue: self.life_dropped_after_enqueue,
            ..ClassStats::default()
        };
    }

    /// A packet of `bytes` was accepted.
    #[inline]
    pub fn on_enqueue(&mut self, bytes: u32) {
        self.enqueued_packets += 1;
        self.enqueued_bytes += bytes as u64;
        self.life_enqueued += 1;
    }

    /// A packet of `bytes` left after `sojourn` in the qdisc tree.
    #[inline]
    pub fn on_dequeue(&mut self, bytes: u32, sojourn: SimTime) {
        self.dequeued_packets += 1;
        self.dequeued_bytes += bytes as u64;
        self.life_dequeued += 1;
        self.sojourn_sum_ns += sojourn.0 as u128;
        self.sojourn_min_ns = self.sojourn_min_ns.min(sojourn.0);
        self.sojourn_max_ns = self.sojourn_max_ns.max(sojourn.0);
        if self.sojourn.record(sojourn.0.max(1)).is_err() {
            self.sojourn.saturating_record(sojourn.0);
        }
    }

    /// A packet was dropped for `reason`; `after_enqueue` when it had been accepted before
    /// (a head drop, an AQM drop at dequeue), not when it was refused on arrival.
    #[inline]
    pub fn on_drop(&mut self, reason: DropReason, after_enqueue: bool) {
        self.drops[reason.index()] += 1;
        self.life_dropped_after_enqueue += after_enqueue as u64;
    }

    pub fn drops_total(&self) -> u64 {
        self.drops.iter().sum()
    }

    /// Checks `enqueued = dequeued + dropped after enqueue + backlog` over the class's
    /// life (debug builds only).
    #[inline]
    pub fn debug_check(&self, backlog_packets: usize, who: &str) {
        debug_assert_eq!(
            self.life_enqueued,
            self.life_dequeued + self.life_dropped_after_enqueue + backlog_packets as u64,
            "class {who}: enqueued ≠ dequeued + dropped + backlog (a child lost or invented packets)"
        );
        let _ = (backlog_packets, who);
    }

    /// Mean sojourn time of dequeued packets in seconds (NaN without any).
    pub fn sojourn_mean_s(&self) -> f64 {
        if self.dequeued_packets == 0 {
            f64::NAN
        } else {
            self.sojourn_sum_ns as f64 / self.dequeued_packets as f64 / 1e9
        }
    }

    /// Sojourn-time quantile in seconds (HdrHistogram, ≤ 0.1 % relative error, clamped to
    /// the exact extremes); NaN without any dequeued packet.
    pub fn sojourn_quantile_s(&self, q: f64) -> f64 {
        if self.dequeued_packets == 0 {
            f64::NAN
        } else {
            let v = self.sojourn.value_at_quantile(q);
            v.clamp(self.sojourn_min_ns, self.sojourn_max_ns) as f64 / 1e9
        }
    }

    /// Adds another class's counters (an inner class reports the sum of its leaves).
    pub fn add(&mut self, o: &ClassStats) {
        self.enqueued_packets += o.enqueued_packets;
        self.enqueued_bytes += o.enqueued_bytes;
        self.dequeued_packets += o.dequeued_packets;
        self.dequeued_bytes += o.dequeued_bytes;
        for (a, b) in self.drops.iter_mut().zip(o.drops) {
            *a += b;
        }
        self.marks += o.marks;
        self.sojourn_sum_ns += o.sojourn_sum_ns;
        self.sojourn_min_ns = self.sojourn_min_ns.min(o.sojourn_min_ns);
        self.sojourn_max_ns = self.sojourn_max_ns.max(o.sojourn_max_ns);
        // Both histograms have the same precision; `add` only fails on a precision mismatch.
        let _ = self.sojourn.add(&o.sojourn);
        self.life_enqueued += o.life_enqueued;
        self.life_dequeued += o.life_dequeued;
        self.life_dropped_after_enqueue += o.life_dropped_after_enqueue;
    }
}

/// One row of the per-class result table.
#[derive(Clone, Debug)]
pub struct ClassReport {
    /// The class name; classes of nested disciplines are `<outer>/<inner>`.
    pub class: String,
    /// The parent class (empty for a class directly under the root discipline).
    pub parent: String,
    /// The discipline the class belongs to (`htb`, `prio`, …).
    pub kind: &'static str,
    /// The class's child discipline (`pfifo`, `sfq`, …), empty for inner HTB classes.
    pub qdisc: &'static str,
    /// HTB: guaranteed rate and ceiling (0 for other kinds).
    pub rate_bps: u64,
    pub ceil_bps: u64,
    pub stats: ClassStats,
    pub backlog_packets: u64,
    pub backlog_bytes: u64,
}

/// What the per-class time series samples of one class: its backlog now and its counters
/// since the warm-up (the simulation turns the counters into per-interval rates).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassSample {
    pub backlog_packets: u64,
    pub backlog_bytes: u64,
    pub dequeued_bytes: u64,
    pub drops: u64,
}

impl ClassSample {
    /// The sample of a class with these counters and this backlog.
    #[inline]
    pub fn of(stats: &ClassStats, backlog_packets: u64, backlog_bytes: u64) -> Self {
        ClassSample {
            backlog_packets,
            backlog_bytes,
            dequeued_bytes: stats.dequeued_bytes,
            drops: stats.drops_total(),
        }
    }

    /// Adds another class's numbers (an inner class samples the sum of its leaves).
    #[inline]
    pub fn add(&mut self, o: &ClassSample) {
        self.backlog_packets += o.backlog_packets;
        self.backlog_bytes += o.backlog_bytes;
        self.dequeued_bytes += o.dequeued_bytes;
        self.drops += o.drops;
    }
}

/// A child discipline inside a class, with the class's counters. Every call to the child
/// goes through here, so drops and marks the child records are attributed to the class.
pub struct Child {
    pub qdisc: Box<dyn Qdisc>,
    pub stats: ClassStats,
}

impl Child {
    pub fn new(qdisc: Box<dyn Qdisc>) -> Self {
        Child {
            qdisc,
            stats: ClassStats::default(),
        }
    }

    /// Counts what the child dropped or marked since `mark`; `arrival` is the offered
    /// packet when the child refused it (that drop is not an "after enqueue" one).
    #[inline]
    fn count(&mut self, ctx: &QdiscCtx, (mark, marks): (usize, u64), refused: bool) {
        let mut first_refusal = refused;
        for r in ctx.drops_since(mark) {
            // The refused packet is one of the drops; which one does not matter for the
            // counts, only that exactly one drop is not "after enqueue".
            self.stats.on_drop(r, !first_refusal);
            first_refusal = false;
        }
        self.stats.marks += ctx.tally().1 - marks;
    }

    #[inline]
    pub fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        let t = ctx.tally();
        let len = ctx.len_of(pkt);
        let v = self.qdisc.enqueue(pkt, ctx);
        if v != Verdict::Dropped {
            self.stats.on_enqueue(len);
        }
        self.count(ctx, t, v == Verdict::Dropped);
        self.stats.debug_check(self.qdisc.len(), self.qdisc.kind());
        v
    }

    /// The child's next packet for the asker (see [`peek_for`]); drops the child makes while
    /// peeking (an AQM deciding early) are counted.
    #[inline]
    pub fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let t = ctx.tally();
        let p = peek_for(&mut *self.qdisc, ctx);
        self.count(ctx, t, false);
        p
    }

    #[inline]
    pub fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let t = ctx.tally();
        let got = dequeue_for(&mut *self.qdisc, ctx);
        if let Some(p) = got {
            let pk = ctx.packets.get(p);
            self.stats.on_dequeue(pk.size_bytes, ctx.now - pk.enqueued);
        }
        self.count(ctx, t, false);
        self.stats.debug_check(self.qdisc.len(), self.qdisc.kind());
        got
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.qdisc.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.qdisc.is_empty()
    }

    #[inline]
    pub fn backlog_bytes(&self) -> u64 {
        self.qdisc.backlog_bytes()
    }

    /// This class's row (with the given names and rates), then the child's own classes.
    pub fn report(&self, row: ClassReport, out: &mut Vec<ClassReport>) {
        let prefix = format!("{}/", row.class);
        let name = row.class.clone();
        out.push(ClassReport {
            stats: self.stats.clone(),
            backlog_packets: self.len() as u64,
            backlog_bytes: self.backlog_bytes(),
            qdisc: self.qdisc.kind(),
            ..row
        });
        self.qdisc.report_classes(&prefix, &name, out);
    }

    /// This class's sample, then the child's own classes' (the order of [`Child::report`]).
    #[inline]
    pub fn sample(&self, out: &mut Vec<ClassSample>) {
        out.push(self.own_sample());
        self.qdisc.sample_classes(out);
    }

    /// This class's sample alone.
    #[inline]
    pub fn own_sample(&self) -> ClassSample {
        ClassSample::of(&self.stats, self.len() as u64, self.backlog_bytes())
    }

    pub fn reset_stats(&mut self) {
        self.stats.reset();
        self.qdisc.reset_stats();
    }
}

/// What the statistics walk reads of one class of a classful discipline.
pub(crate) struct ClassView<'a> {
    /// The class name (the row is `<prefix><name>`).
    pub name: &'a str,
    /// The parent class, by index among the discipline's classes (HTB); `None` for a class
    /// directly under the discipline.
    pub parent: Option<u32>,
    /// HTB: guaranteed rate and ceiling (0 for other kinds).
    pub rate_bps: u64,
    pub ceil_bps: u64,
    /// The leaf's child discipline; `None` for an inner class (HTB), whose row is the sum
    /// of the leaves below it.
    pub child: Option<&'a Child>,
    /// An inner class's own lends and borrows (HTB; a leaf's are in its child's stats).
    pub lends: u64,
    pub borrows: u64,
}

impl<'a> ClassView<'a> {
    /// A class with its child directly under the discipline, without rates (drr, prio).
    #[inline]
    pub fn leaf(name: &'a str, child: &'a Child) -> Self {
        ClassView {
            name,
            parent: None,
            rate_bps: 0,
            ceil_bps: 0,
            child: Some(child),
            lends: 0,
            borrows: 0,
        }
    }
}

/// A class of a classful discipline (drr, prio, htb), as the one statistics walk
/// ([`report_classes`], [`sample_classes`], [`reset_classes`]) visits it.
pub(crate) trait WalkedClass {
    fn view(&self) -> ClassView<'_>;
    /// Starts a new measurement period for the class's own counters and its child's.
    fn reset_stats(&mut self);
}

/// `Qdisc::report_classes` of a classful discipline of `kind` with these classes: a row
/// per class in order, each leaf's followed by its child's own classes ([`Child::report`]),
/// each inner class's the sum of the leaves below it.
pub(crate) fn report_classes<C: WalkedClass>(
    kind: &'static str,
    classes: &[C],
    prefix: &str,
    parent: &str,
    out: &mut Vec<ClassReport>,
) {
    for (i, cl) in classes.iter().enumerate() {
        let v = cl.view();
        let row = ClassReport {
            class: format!("{prefix}{}", v.name),
            parent: v.parent.map_or_else(
                || parent.to_string(),
                |p| format!("{prefix}{}", classes[p as usize].view().name),
            ),
            kind,
            qdisc: "",
            rate_bps: v.rate_bps,
            ceil_bps: v.ceil_bps,
            stats: ClassStats::default(),
            backlog_packets: 0,
            backlog_bytes: 0,
        };
        match v.child {
            Some(child) => child.report(row, out),
            None => {
                // An inner class counts what its leaves did, and its own lends/borrows.
                let mut stats = ClassStats::default();
                let (mut packets, mut bytes) = (0, 0);
                for child in leaves_under(classes, i) {
                    stats.add(&child.stats);
                    packets += child.len() as u64;
                    bytes += child.backlog_bytes();
                }
                stats.lends = v.lends;
                stats.borrows = v.borrows;
                out.push(ClassReport {
                    stats,
                    backlog_packets: packets,
                    backlog_bytes: bytes,
                    ..row
                });
            }
        }
    }
}

/// `Qdisc::sample_classes` of a classful discipline with these classes: one sample per row
/// of [`report_classes`], in the same order. Allocates nothing.
pub(crate) fn sample_classes<C: WalkedClass>(classes: &[C], out: &mut Vec<ClassSample>) {
    for (i, cl) in classes.iter().enumerate() {
        match cl.view().child {
            Some(child) => child.sample(out),
            None => {
                // As in `report_classes`: an inner class is the sum of its leaves.
                let mut sum = ClassSample::default();
                for child in leaves_under(classes, i) {
                    sum.add(&child.own_sample());
                }
                out.push(sum);
            }
        }
    }
}

/// `Qdisc::reset_stats` of these classes.
pub(crate) fn reset_classes<C: WalkedClass>(classes: &mut [C]) {
    for c in classes {
        c.reset_stats();
    }
}

/// The children of the leaves below class `c`, in class order.
fn leaves_under<C: WalkedClass>(classes: &[C], c: usize) -> impl Iterator<Item = &Child> {
    classes
        .iter()
        .enumerate()
        .filter_map(move |(l, cl)| cl.view().child.filter(|_| is_under(classes, l, c)))
}

/// Whether class `l` descends from class `c`.
fn is_under<C: WalkedClass>(classes: &[C], l: usize, c: usize) -> bool {
    let mut at = classes[l].view().parent;
    while let Some(p) = at {
        if p as usize == c {
            return true;
        }
        at = classes[p as usize].view().parent;
    }
    false
}

/// Packets a discipline dequeued to answer a `peek` (Linux's `qdisc_peek_dequeued`), kept
/// until the next `dequeue` for the same asker. Several members of a virtual device may
/// each have one.
#[derive(Default)]
pub(crate) struct Stash {
    held: Vec<(Option<u32>, PacketId, u32)>,
}

impl Stash {
    pub fn len(&self) -> usize {
        self.held.len()
    }
    /// The packet kept for `member`, if any.
    #[inline]
    pub fn peek(&self, member: Option<u32>) -> Option<PacketId> {
        self.held
            .iter()
            .find(|(m, _, _)| *m == member)
            .map(|&(_, p, _)| p)
    }
    /// Takes the packet kept for `member`, if any.
    #[inline]
    pub fn take(&mut self, member: Option<u32>) -> Option<PacketId> {
        if self.held.is_empty() {
            return None;
        }
        let i = self.held.iter().position(|(m, _, _)| *m == member)?;
        Some(self.held.swap_remove(i).1)
    }
    pub fn put(&mut self, member: Option<u32>, pkt: PacketId, len: u32) {
        self.held.push((member, pkt, len));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::Harness;
    use crate::qdisc::{Pfifo, PfifoHeadDrop};

    #[test]
    fn child_counts_arrivals_departures_and_refusals() {
        let mut h = Harness::new();
        let mut c = Child::new(Box::new(Pfifo::new(2)));
        let p: Vec<_> = (0..3).map(|i| h.packet(i, 100)).collect();
        let mut ctx = QdiscCtx::new(h.now, &mut h.packets, &h.dev, &mut h.drops);
        for &x in &p {
            c.enqueue(x, &mut ctx);
        }
        assert_eq!(c.dequeue(&mut ctx), Some(p[0]));
        let s = &c.stats;
        assert_eq!((s.enqueued_packets, s.dequeued_packets), (2, 1));
        assert_eq!(s.drops[DropReason::QdiscOverflow.index()], 1);
        assert_eq!((s.life_dropped_after_enqueue, c.len()), (0, 1));
    }

    #[test]
    fn a_head_drop_counts_as_a_drop_after_enqueue() {
        // pfifo_head_drop admits the newcomer and drops the oldest: the identity needs the
        // dropped packet to count against the backlog, not against arrivals.
        let mut h = Harness::new();
        let mut c = Child::new(Box::new(PfifoHeadDrop::new(1)));
        let a = h.packet(0, 100);
        let b = h.packet(1, 100);
        let mut ctx = QdiscCtx::new(h.now, &mut h.packets, &h.dev, &mut h.drops);
        c.enqueue(a, &mut ctx);
        c.enqueue(b, &mut ctx);
        assert_eq!(c.stats.enqueued_packets, 2);
        assert_eq!(c.stats.life_dropped_after_enqueue, 1);
        c.stats.debug_check(c.len(), "t");
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "enqueued ≠ dequeued + dropped + backlog")]
    fn the_identity_check_catches_a_child_that_forgets_packets() {
        let mut s = ClassStats::default();
        s.on_enqueue(100);
        s.debug_check(0, "forgetful");
    }

    #[test]
    fn sojourn_quantiles_stay_within_the_recorded_extremes() {
        let mut s = ClassStats::default();
        for ms in 1..=100 {
            s.on_dequeue(100, SimTime::from_millis(ms));
        }
        // Reference: nearest-rank p99 of 1..100 ms is 99 ms; HdrHistogram 3 digits: 0.1 %.
        assert!((s.sojourn_quantile_s(0.99) / 0.099 - 1.0).abs() < 1e-3);
        assert!((s.sojourn_mean_s() - 0.0505).abs() < 1e-12);
        let mut t = ClassStats::default();
        t.add(&s);
        assert_eq!(t.dequeued_packets, 100);
        assert_eq!(t.sojourn_quantile_s(1.0), 0.1);
    }
}
