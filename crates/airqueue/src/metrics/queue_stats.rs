//! Per-queue counters (what `tc -s qdisc show` reports) and time-weighted backlog.

use crate::engine::SimTime;
use crate::packet::DropReason;

/// Counters of one root qdisc since the last reset.
#[derive(Clone, Debug, Default)]
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
}

impl QueueStats {
    /// Starts a new measurement period at `now` with the current backlog.
    pub fn reset(&mut self, now: SimTime) {
        let (p, b) = (self.cur_packets, self.cur_bytes);
        *self = QueueStats {
            since: now,
            last_change: now,
            cur_packets: p,
            cur_bytes: b,
            max_backlog_packets: p,
            max_backlog_bytes: b,
            ..QueueStats::default()
        };
    }

    /// Records that the backlog is (`packets`, `bytes`) from `now` on.
    #[inline]
    pub fn backlog_changed(&mut self, now: SimTime, packets: u64, bytes: u64) {
        let dt = (now - self.last_change).0 as u128;
        if dt > 0 {
            self.hold_current_as_max();
        }
        self.backlog_packets_ns += self.cur_packets as u128 * dt;
        self.backlog_bytes_ns += self.cur_bytes as u128 * dt;
        self.last_change = now;
        self.cur_packets = packets;
        self.cur_bytes = bytes;
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
    }

    #[inline]
    pub fn on_dequeue(&mut self, bytes: u32, sojourn: SimTime) {
        self.dequeued_packets += 1;
        self.dequeued_bytes += bytes as u64;
        self.sojourn_sum_ns += sojourn.0 as u128;
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
    fn a_packet_passing_an_empty_queue_in_zero_time_leaves_max_backlog_zero() {
        let mut s = QueueStats::default();
        s.reset(SimTime(0));
        s.backlog_changed(SimTime(5), 1, 100);
        s.backlog_changed(SimTime(5), 0, 0);
        assert_eq!(s.max_backlog(SimTime(10)), (0, 0));
    }
}
