//! Simulated time: integer nanoseconds, never floating point in the event queue.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in (or a span of) simulated time, in nanoseconds.
///
/// One type serves for instants and durations, as ns-3's `Time` does; arithmetic saturates
/// at the ends instead of wrapping so that "never" (`SimTime::MAX`) stays never.
#[derive(Copy, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    /// Rounds to the nearest nanosecond; for converting user input and random draws only.
    pub fn from_secs_f64(s: f64) -> Self {
        if s <= 0.0 {
            SimTime::ZERO
        } else if s >= u64::MAX as f64 / 1e9 {
            SimTime::MAX
        } else {
            SimTime((s * 1e9).round() as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
    /// Time to serialize `bytes` at `rate_bps`, rounded up to the next nanosecond
    /// (a transmitter cannot finish early).
    #[inline]
    pub fn transmission(bytes: u64, rate_bps: u64) -> SimTime {
        debug_assert!(rate_bps > 0);
        // Every packet size takes the 64-bit path (it overflows beyond 2.3 GB); the same
        // quotient as the 128-bit one, without a call to the 128-bit division routine.
        if let Some(bit_ns) = bytes.checked_mul(8 * 1_000_000_000) {
            return SimTime(bit_ns.div_ceil(rate_bps));
        }
        let bits = bytes as u128 * 8 * 1_000_000_000;
        SimTime(bits.div_ceil(rate_bps as u128).min(u64::MAX as u128) as u64)
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(rhs.0))
    }
}
impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        *self = *self + rhs;
    }
}
impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(rhs.0))
    }
}

impl fmt::Debug for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self)
    }
}
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns.is_multiple_of(1_000_000_000) {
            write!(f, "{}s", ns / 1_000_000_000)
        } else if ns.is_multiple_of(1_000_000) {
            write!(f, "{}ms", ns / 1_000_000)
        } else if ns.is_multiple_of(1_000) {
            write!(f, "{}us", ns / 1_000)
        } else {
            write!(f, "{}ns", ns)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_is_exact_for_whole_nanoseconds() {
        // 1000 B at 10 Mbit/s = 8000 bits / 1e7 = 800 us.
        assert_eq!(
            SimTime::transmission(1000, 10_000_000),
            SimTime::from_micros(800)
        );
    }

    #[test]
    fn transmission_time_rounds_up() {
        // 1 B at 3 bit/s = 8/3 s = 2.666..s -> rounded up.
        assert_eq!(SimTime::transmission(1, 3).0, 2_666_666_667);
    }

    /// The 64-bit fast path and the 128-bit path agree on both sides of their boundary.
    #[test]
    fn transmission_time_is_the_same_on_both_sides_of_the_64_bit_boundary() {
        let limit = u64::MAX / 8_000_000_000; // the largest byte count on the fast path
        for bytes in [1, 1500, limit - 1, limit, limit + 1, u64::MAX / 8] {
            for rate in [1, 3, 9_600, 10_000_000, 1_000_000_007, u64::MAX] {
                let exact = (bytes as u128 * 8_000_000_000).div_ceil(rate as u128);
                let want = SimTime(exact.min(u64::MAX as u128) as u64);
                assert_eq!(
                    SimTime::transmission(bytes, rate),
                    want,
                    "{bytes} B at {rate}"
                );
            }
        }
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        assert_eq!(SimTime::MAX + SimTime(5), SimTime::MAX);
        assert_eq!(SimTime(3) - SimTime(5), SimTime::ZERO);
    }

    #[test]
    fn display_uses_the_largest_whole_unit() {
        assert_eq!(SimTime::from_millis(20).to_string(), "20ms");
        assert_eq!(SimTime(1_500).to_string(), "1500ns");
        assert_eq!(SimTime::from_secs(60).to_string(), "60s");
    }
}
