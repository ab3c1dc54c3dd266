//! Per-queue counters (what `tc -s qdisc show` reports), time-weighted backlog, sojourn
//! time distribution, and the identity `enqueued = dequeued + dropped after enqueue +
//! backlog` over the queue's whole life (ns-3's `QueueDisc` check), which the end-of-run
//! conservation check reports when it fails.

use super::DurationHistogram;
use crate::engine::SimTime;
use crate::packet::DropReason;

/// Whole-life counters of a root qdisc (never reset), for the identity check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueLedger {
    pub enqueued: u64,
    pub dequeued: u64,
    pub dropped_after_enqueue: u64,
}

impl QueueLedger {
    /// `enqueued − dequeued − dropped after enqueue`: what the queue should hold.
    pub fn expected_backlog(&self) -> i128 {
        self.enqueued as i128 - self.dequeued as i128 - self.dropped_after_enqueue as i128
    }
}

/// Counters of one root qdisc since the last reset.
#[derive(Clone, Debug)]
pub struct QueueStats {
    pub enqueued_packets: u64,
    pub enqueued_bytes: u64,
    pub dequeued_packets: u64,
    pub dequeued_bytes: u64,
    pub drops: [u64; DropReason::COUNT],
    /// Packets an AQM marked Congestion Experienced instead of dropping (ECN, RFC 3168).
    pub marks: u64,
    max_backlog_packets: u64,
    max_backlog_bytes: u64,
    sojourn_sum_ns: u128,
    backlog_packets_ns: u128,
    backlog_bytes_ns: u128,
    since: SimTime,
    last_change: SimTime,
    cur_packets: u64,
    cur_bytes: u64,
    /// Sojourn times of dequeued packets (HdrHistogram's buckets, 3 significant digits),
    /// for percentiles; only the range of buckets seen is kept (`DurationHistogram`).
    sojourn_hist: DurationHistogram,
    sojourn_min_ns: u64,
    sojourn_max_ns: u64,
    /// Whole-life counters (kept across resets).
    pub ledger: QueueLedger,
}

impl Default for QueueStats {
    fn default() -> Self {
        QueueStats {
            enqueued_packets: 0,
            enqueued_bytes: 0,
            dequeued_packets: 0,
            dequeued_bytes: 0,
            drops: [0; DropReason::COUNT],
            marks: 0,
            max_backlog_packets: 0,
            max_backlog_bytes: 0,
            sojourn_sum_ns: 0,
            backlog_packets_ns: 0,
            backlog_bytes_ns: 0,
            since: SimTime::ZERO,
            last_change: SimTime::ZERO,
            cur_packets: 0,
            cur_bytes: 0,
            sojourn_hist: DurationHistogram::default(),
            sojourn_min_ns: u64::MAX,
            sojourn_max_ns: 0,
            ledger: QueueLedger::default(),
        }
    }
}

impl QueueStats {
    /// Starts a new measurement period at `now` with the current backlog.
    pub fn reset(&mut self, now: SimTime) {
        let (p, b) = (self.cur_packets, self.cur_bytes);
        let mut hist = std::mem::take(&mut self.sojourn_hist);
        hist.reset();
        *self = QueueStats {
            since: now,
            last_change: now,
            cur_packets: p,
            cur_bytes: b,
            max_backlog_packets: p,
            max_backlog_bytes: b,
            sojourn_hist: hist,
            ledger: std::mem::take(&mut self.ledger),
            ..QueueStats::default()
        };
    }

    /// Packets in the queue as last recorded by [`backlog_changed`](Self::backlog_changed).
    #[inline]
    pub fn current_packets(&self) -> u64 {
        self.cur_packets
    }

    /// Records that the backlog is (`packets`, `bytes`) from `now` on.
    #[inline]
    pub fn backlog_changed(&mut self, now: SimTime, packets: u64, bytes: u64) {
        let dt = (now - self.last_change).0 as u128;
        if dt > 0 {
            // (Nothing accrues over zero time: a second change at one instant only
            // replaces the current backlog.)
            self.hold_current_as_max();
            self.backlog_packets_ns += self.cur_packets as u128 * dt;
            self.backlog_bytes_ns += self.cur_bytes as u128 * dt;
        }
        self.last_change = now;
        self.cur_packets = packets;
        self.cur_bytes = bytes;
    }

    /// Records that `packets` and `bytes` joined (positive) or left (negative) the
    /// backlog at `now`: [`backlog_changed`](Self::backlog_changed) for a queue whose
    /// owner keeps no byte count of its own (a medium's driver queue).
    #[inline]
    pub fn backlog_add(&mut self, now: SimTime, packets: i64, bytes: i64) {
        let p = self.cur_packets.saturating_add_signed(packets);
        let b = self.cur_bytes.saturating_add_signed(bytes);
        self.backlog_changed(now, p, b);
    }

    /// The maximum counts only backlogs that lasted: a packet that passes an empty queue and
    /// leaves at the same instant (Linux would bypass the qdisc) does not make it 1.
    fn hold_current_as_max(&mut self) {
        self.max_backlog_packets = self.max_backlog_packets.max(self.cur_packets);
        self.max_backlog_bytes = self.max_backlog_bytes.max(self.cur_bytes);
    }

    /// Largest backlog held for a non-zero time up to `now`, in (packets, bytes).
    pub fn max_backlog(&self, now: SimTime) -> (u64, u64) {
        if now > self.last_change {
            (
                self.max_backlog_packets.max(self.cur_packets),
                self.max_backlog_bytes.max(self.cur_bytes),
            )
        } else {
            (self.max_backlog_packets, self.max_backlog_bytes)
        }
    }

    #[inline]
    pub fn on_enqueue(&mut self, bytes: u32) {
        self.enqueued_packets += 1;
        self.enqueued_bytes += bytes as u64;
        self.ledger.enqueued += 1;
    }

    #[inline]
    pub fn on_dequeue(&mut self, bytes: u32, sojourn: SimTime) {
        self.dequeued_packets += 1;
        self.dequeued_bytes += bytes as u64;
        self.sojourn_sum_ns += sojourn.0 as u128;
        self.sojourn_min_ns = self.sojourn_min_ns.min(sojourn.0);
        self.sojourn_max_ns = self.sojourn_max_ns.max(sojourn.0);
        self.sojourn_hist.record(sojourn.0);
        self.ledger.dequeued += 1;
    }

    /// `n` packets the qdisc had accepted earlier were dropped (head drop, AQM, overflow
    /// of a child); drops of arriving packets are not counted here.
    #[inline]
    pub fn on_drops_after_enqueue(&mut self, n: usize) {
        self.ledger.dropped_after_enqueue += n as u64;
    }

    /// Sojourn-time quantile in seconds (HdrHistogram, ≤ 0.1 % relative error, clamped to
    /// the recorded extremes); NaN when nothing was dequeued.
    pub fn sojourn_quantile_s(&self, q: f64) -> f64 {
        if self.dequeued_packets == 0 {
            f64::NAN
        } else {
            let v = self.sojourn_hist.value_at_quantile(q);
            v.clamp(self.sojourn_min_ns, self.sojourn_max_ns) as f64 / 1e9
        }
    }

    #[inline]
    pub fn on_drop(&mut self, reason: DropReason) {
        self.drops[reason.index()] += 1;
    }

    pub fn drops_total(&self) -> u64 {
        self.drops.iter().sum()
    }

    pub fn current(&self) -> (u64, u64) {
        (self.cur_packets, self.cur_bytes)
    }

    /// Time-averaged backlog over [since, now] in packets and bytes.
    pub fn mean_backlog(&self, now: SimTime) -> (f64, f64) {
        let span = (now - self.since).0 as f64;
        if span <= 0.0 {
            return (self.cur_packets as f64, self.cur_bytes as f64);
        }
        let dt = (now - self.last_change).0 as u128;
        let p = self.backlog_packets_ns + self.cur_packets as u128 * dt;
        let b = self.backlog_bytes_ns + self.cur_bytes as u128 * dt;
        (p as f64 / span, b as f64 / span)
    }

    /// Mean time a dequeued packet spent in the qdisc, in seconds.
    pub fn sojourn_mean_s(&self) -> f64 {
        if self.dequeued_packets == 0 {
            f64::NAN
        } else {
            self.sojourn_sum_ns as f64 / self.dequeued_packets as f64 / 1e9
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_backlog_is_time_weighted() {
        let mut s = QueueStats::default();
        s.reset(SimTime(0));
        s.backlog_changed(SimTime(0), 4, 400); // 4 packets for 10 ns
        s.backlog_changed(SimTime(10), 0, 0); // 0 packets for 30 ns
        let (p, b) = s.mean_backlog(SimTime(40));
        assert_eq!(p, 1.0);
        assert_eq!(b, 100.0);
        assert_eq!(s.max_backlog(SimTime(40)), (4, 400));
    }

    #[test]
    fn sojourn_percentiles_survive_nothing_but_reset_while_the_ledger_does() {
        let mut s = QueueStats::default();
        for ms in 1..=100 {
            s.on_enqueue(100);
            s.on_dequeue(100, SimTime::from_millis(ms));
        }
        // Reference: nearest-rank p50 of 1..100 ms is 50 ms; HdrHistogram 3 digits: 0.1 %.
        assert!((s.sojourn_quantile_s(0.5) / 0.050 - 1.0).abs() < 1e-3);
        s.reset(SimTime(5));
        assert!(s.sojourn_quantile_s(0.5).is_nan());
        assert_eq!(s.ledger.expected_backlog(), 0);
        assert_eq!(s.ledger.enqueued, 100);
    }

    #[test]
    fn a_packet_passing_an_empty_queue_in_zero_time_leaves_max_backlog_zero() {
        let mut s = QueueStats::default();
        s.reset(SimTime(0));
        s.backlog_changed(SimTime(5), 1, 100);
        s.backlog_changed(SimTime(5), 0, 0);
        assert_eq!(s.max_backlog(SimTime(10)), (0, 0));
    }
}
