//! A distribution of durations: round-trip times (ping echoes, TCP RTT samples) and
//! completion times (files, web pages).

use super::DurationHistogram;
use crate::engine::SimTime;

/// Count, exact mean/min/max, and quantiles (HdrHistogram, 3 significant digits) of
/// durations recorded since the last reset.
///
/// `repr(C)`: the histogram's header right after the exact statistics, so that a record
/// touches as few cache lines as possible (a flow's RTT samples, issue 18).
#[repr(C)]
pub struct LatencyStats {
    count: u64,
    min: SimTime,
    sum_ns: u128,
    max: SimTime,
    hist: DurationHistogram,
}

impl Default for LatencyStats {
    fn default() -> Self {
        LatencyStats {
            count: 0,
            sum_ns: 0,
            min: SimTime::MAX,
            max: SimTime::ZERO,
            hist: DurationHistogram::default(),
        }
    }
}

impl LatencyStats {
    /// Forgets every value (keeps the histogram's allocation).
    pub fn reset(&mut self) {
        self.count = 0;
        self.sum_ns = 0;
        self.min = SimTime::MAX;
        self.max = SimTime::ZERO;
        self.hist.reset();
    }

    pub fn record(&mut self, d: SimTime) {
        self.count += 1;
        self.sum_ns += u128::from(d.0);
        self.min = self.min.min(d);
        self.max = self.max.max(d);
        self.hist.record(d.0);
    }

    /// Values recorded since the last reset.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Exact mean in seconds (NaN when empty).
    pub fn mean_s(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.sum_ns as f64 / self.count as f64 / 1e9
        }
    }

    /// Smallest value in seconds (NaN when empty).
    pub fn min_s(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.min.as_secs_f64()
        }
    }

    /// Largest value in seconds (NaN when empty).
    pub fn max_s(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.max.as_secs_f64()
        }
    }

    /// Quantile `q` in seconds (NaN when empty), within 0.1 % and clamped to the exact
    /// extremes (HdrHistogram answers with the top of a bucket).
    pub fn quantile_s(&self, q: f64) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            let v = self.hist.value_at_quantile(q);
            v.clamp(self.min.0, self.max.0) as f64 / 1e9
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_statistics_are_nan_and_zero() {
        let s = LatencyStats::default();
        assert_eq!(s.count(), 0);
        assert!(s.mean_s().is_nan() && s.min_s().is_nan() && s.quantile_s(0.95).is_nan());
    }

    #[test]
    fn mean_extremes_and_nearest_rank_quantile_of_1_to_100_ms() {
        // Reference: values 1..=100 ms; mean 50.5 ms exactly, p95 = 95 ms (nearest rank)
        // within HdrHistogram's 0.1 %.
        let mut s = LatencyStats::default();
        for v in 1..=100 {
            s.record(SimTime::from_millis(v));
        }
        assert_eq!(s.count(), 100);
        assert!((s.mean_s() - 0.0505).abs() < 1e-12);
        assert_eq!((s.min_s(), s.max_s()), (0.001, 0.1));
        assert!((s.quantile_s(0.95) / 0.095 - 1.0).abs() < 1e-3);
        s.reset();
        assert_eq!(s.count(), 0);
        assert!(s.max_s().is_nan());
    }
}
