//! The clock mapping: simulated time is nanoseconds of CLOCK_MONOTONIC since the run's
//! origin (`std::time::Instant` is CLOCK_MONOTONIC on Linux), so an event at `t` is due at
//! `origin + t` and a packet read at instant `i` enters at `i − origin`. CLOCK_MONOTONIC
//! is not stepped by NTP (only slewed), so the mapping never runs backwards.

use crate::engine::SimTime;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
pub struct Clock {
    origin: Instant,
}

impl Clock {
    /// A clock whose time 0 is now.
    pub fn start() -> Self {
        Clock::at(Instant::now())
    }

    /// A clock whose time 0 is now, and the wall-clock time (CLOCK_REALTIME, ns since the
    /// Unix epoch) of that origin: read between two monotonic reads, the origin being their
    /// midpoint, so the pair is off by at most half the (sub-microsecond) gap. Model times
    /// (a pcap's timestamps) plus this give wall-clock times.
    pub fn start_with_wall() -> (Self, u64) {
        let a = Instant::now();
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        let b = Instant::now();
        (Clock::at(a + (b - a) / 2), wall)
    }

    /// The instant of time 0.
    pub fn origin(&self) -> Instant {
        self.origin
    }

    /// A clock whose time 0 is `origin`.
    pub fn at(origin: Instant) -> Self {
        Clock { origin }
    }

    /// The simulated time of instant `i` (time 0 for an instant before the origin).
    pub fn sim(&self, i: Instant) -> SimTime {
        let ns = i.saturating_duration_since(self.origin).as_nanos();
        SimTime(u64::try_from(ns).unwrap_or(u64::MAX))
    }

    /// The instant simulated time `t` is due.
    pub fn instant(&self, t: SimTime) -> Instant {
        self.origin + Duration::from_nanos(t.0)
    }

    /// The simulated time now.
    pub fn now(&self) -> SimTime {
        self.sim(Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_instants_and_times_both_ways() {
        let o = Instant::now();
        let c = Clock::at(o);
        assert_eq!(c.sim(o), SimTime::ZERO);
        assert_eq!(
            c.sim(o + Duration::from_nanos(20_000_123)),
            SimTime(20_000_123)
        );
        assert_eq!(c.instant(SimTime(1_500)), o + Duration::from_nanos(1_500));
        for ns in [0u64, 1, 999, 20_000_000, 3_600_000_000_000] {
            assert_eq!(c.sim(c.instant(SimTime(ns))), SimTime(ns));
        }
    }

    #[test]
    fn an_instant_before_the_origin_is_time_zero() {
        let o = Instant::now() + Duration::from_millis(5);
        assert_eq!(Clock::at(o).sim(Instant::now()), SimTime::ZERO);
    }

    #[test]
    fn the_wall_origin_is_now() {
        let before = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        let (c, wall) = Clock::start_with_wall();
        assert!(
            wall >= before && wall - before < 1_000_000_000,
            "{before} {wall}"
        );
        assert!(c.now().0 < 1_000_000_000);
    }

    #[test]
    fn follows_the_monotonic_clock() {
        let c = Clock::start();
        let a = c.now();
        std::thread::sleep(Duration::from_millis(2));
        let b = c.now();
        assert!(b.0 - a.0 >= 2_000_000, "{a:?} → {b:?}");
    }
}
