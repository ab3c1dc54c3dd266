//! UDP traffic sources: constant bit rate, Poisson, and on/off (ns-3's OnOffApplication).
//!
//! A source only decides *when* the next datagram leaves; the simulator builds the packet.
//! Sizes are application payload bytes; 28 bytes of IPv4 + UDP headers go on the wire.

use crate::app::PeriodDistribution;
use crate::engine::{SimRng, SimTime};
use rand::Rng;
use rand_distr::{Distribution, Exp};

/// When the datagrams of a source leave.
pub enum Pattern {
    /// Fixed interval.
    Cbr { interval: SimTime },
    /// Exponential inter-arrival times with this mean (ns).
    Poisson { exp: Exp<f64> },
    /// CBR during on periods, silence during off periods. As in ns-3, the source starts with
    /// an off period; each on period begins with a packet (ns-3 carries residual bits across
    /// periods instead, which only matters for on periods shorter than one interval).
    OnOff {
        interval: SimTime,
        on_mean: SimTime,
        off_mean: SimTime,
        distribution: PeriodDistribution,
        on_until: SimTime,
    },
}

pub struct UdpSource {
    pub payload_bytes: u32,
    pub start: SimTime,
    pub stop: SimTime,
    pattern: Pattern,
    rng: SimRng,
}

fn draw_period(rng: &mut SimRng, mean: SimTime, d: PeriodDistribution) -> SimTime {
    match d {
        PeriodDistribution::Constant => mean,
        PeriodDistribution::Exponential => {
            if mean.0 == 0 {
                return SimTime::ZERO;
            }
            let u: f64 = rng.random::<f64>();
            // Inverse CDF; 1-u is in (0, 1].
            SimTime::from_secs_f64(-(1.0 - u).ln() * mean.as_secs_f64())
        }
    }
}

impl UdpSource {
    pub fn new(
        payload_bytes: u32,
        start: SimTime,
        stop: SimTime,
        pattern: Pattern,
        rng: SimRng,
    ) -> Self {
        UdpSource {
            payload_bytes,
            start,
            stop,
            pattern,
            rng,
        }
    }

    /// A Poisson pattern with the given mean inter-arrival time.
    pub fn poisson(mean: SimTime) -> Pattern {
        let rate_per_ns = 1.0 / mean.0.max(1) as f64;
        Pattern::Poisson {
            exp: Exp::new(rate_per_ns).expect("positive rate"),
        }
    }

    fn within(&self, t: SimTime) -> Option<SimTime> {
        (t < self.stop).then_some(t)
    }

    /// Time of the first datagram, if any.
    pub fn first(&mut self) -> Option<SimTime> {
        let start = self.start;
        let t = match &mut self.pattern {
            Pattern::Cbr { .. } => start,
            Pattern::Poisson { exp } => start + SimTime(exp.sample(&mut self.rng).round() as u64),
            Pattern::OnOff {
                on_mean,
                off_mean,
                distribution,
                on_until,
                ..
            } => {
                let off = draw_period(&mut self.rng, *off_mean, *distribution);
                let on = draw_period(&mut self.rng, *on_mean, *distribution);
                let t = start + off;
                *on_until = t + on;
                t
            }
        };
        self.within(t)
    }

    /// Time of the datagram after the one sent at `now`, if any.
    pub fn next(&mut self, now: SimTime) -> Option<SimTime> {
        let t = match &mut self.pattern {
            Pattern::Cbr { interval } => now + *interval,
            Pattern::Poisson { exp } => {
                now + SimTime(exp.sample(&mut self.rng).round().max(0.0) as u64)
            }
            Pattern::OnOff {
                interval,
                on_mean,
                off_mean,
                distribution,
                on_until,
            } => {
                let mut t = now + *interval;
                // Skip over off periods (and empty on periods) until t lies in an on period.
                while t >= *on_until {
                    let off = draw_period(&mut self.rng, *off_mean, *distribution);
                    let on = draw_period(&mut self.rng, *on_mean, *distribution);
                    t = *on_until + off;
                    *on_until = t + on;
                    if on.0 > 0 {
                        break;
                    }
                    if t >= self.stop {
                        return None;
                    }
                }
                t
            }
        };
        self.within(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;

    #[test]
    fn cbr_sends_at_fixed_intervals_until_stop() {
        let mut s = UdpSource::new(
            100,
            SimTime::from_millis(1),
            SimTime::from_millis(4),
            Pattern::Cbr {
                interval: SimTime::from_millis(1),
            },
            stream(1, "t"),
        );
        let mut times = vec![s.first().unwrap()];
        while let Some(t) = s.next(*times.last().unwrap()) {
            times.push(t);
        }
        assert_eq!(
            times,
            vec![
                SimTime::from_millis(1),
                SimTime::from_millis(2),
                SimTime::from_millis(3)
            ]
        );
    }

    #[test]
    fn poisson_mean_interval_matches_within_two_percent() {
        // Reference: the sample mean of n exponential draws has relative sd 1/sqrt(n) = 0.3 %.
        let mean = SimTime::from_millis(2);
        let mut s = UdpSource::new(
            100,
            SimTime::ZERO,
            SimTime::MAX,
            UdpSource::poisson(mean),
            stream(3, "p"),
        );
        let n = 100_000u64;
        let mut t = s.first().unwrap();
        for _ in 0..n {
            t = s.next(t).unwrap();
        }
        let observed = t.0 as f64 / n as f64;
        assert!(
            (observed / mean.0 as f64 - 1.0).abs() < 0.02,
            "mean {observed}"
        );
    }

    #[test]
    fn onoff_duty_cycle_matches_on_over_on_plus_off() {
        // Reference: long-run fraction of time on = on / (on + off) for any period law.
        let interval = SimTime::from_micros(100);
        let mut s = UdpSource::new(
            100,
            SimTime::ZERO,
            SimTime::from_secs(200),
            Pattern::OnOff {
                interval,
                on_mean: SimTime::from_millis(30),
                off_mean: SimTime::from_millis(70),
                distribution: PeriodDistribution::Exponential,
                on_until: SimTime::ZERO,
            },
            stream(5, "o"),
        );
        let mut n = 0u64;
        let mut t = s.first();
        while let Some(x) = t {
            n += 1;
            t = s.next(x);
        }
        let expected = 200.0 / interval.as_secs_f64() * 0.3;
        assert!(
            (n as f64 / expected - 1.0).abs() < 0.05,
            "{n} vs {expected}"
        );
    }
}
