//! The retransmission-timeout estimator of RFC 6298 (Jacobson/Karels with Karn's
//! back-off).
//!
//! Integer nanoseconds throughout (no floating point, so runs are bit-for-bit
//! reproducible); the 1/8 and 1/4 gains are applied with integer division, which
//! truncates below one nanosecond.
//!
//! Which RTT samples are fed in (Karn's algorithm, RFC 6298 §3) is the sender's business;
//! see [`super::sender`].

use super::TcpConfig;
use crate::engine::SimTime;

/// RFC 6298 §5 (7): the RTO used once data transmission begins if the SYN was
/// retransmitted.
pub const SYN_TIMEOUT_FALLBACK_RTO: SimTime = SimTime::from_secs(3);

/// RFC 6298 SRTT/RTTVAR/RTO state.
#[derive(Clone, Debug)]
pub struct RtoEstimator {
    srtt: Option<SimTime>,
    rttvar: SimTime,
    rto: SimTime,
    min_rto: SimTime,
    max_rto: SimTime,
    granularity: SimTime,
    backoffs: u32,
}

impl RtoEstimator {
    /// A fresh estimator: RTO = `initial` (RFC 6298 §2.1: 1 s) until the first sample,
    /// clamped to [`min_rto`, `max_rto`].
    pub fn new(
        initial: SimTime,
        min_rto: SimTime,
        max_rto: SimTime,
        granularity: SimTime,
    ) -> RtoEstimator {
        RtoEstimator {
            srtt: None,
            rttvar: SimTime::ZERO,
            rto: initial.max(min_rto).min(max_rto),
            min_rto,
            max_rto,
            granularity,
            backoffs: 0,
        }
    }

    /// The estimator the configuration asks for.
    pub fn from_config(cfg: &TcpConfig) -> RtoEstimator {
        RtoEstimator::new(
            cfg.initial_rto,
            cfg.min_rto,
            cfg.max_rto,
            cfg.clock_granularity,
        )
    }

    /// Feeds one RTT measurement `r` and recomputes the RTO, which also discards any
    /// back-off (RFC 6298 §5: the backed-off RTO is kept until a new, valid sample
    /// arrives).
    ///
    /// * first sample (§2.2): SRTT = R, RTTVAR = R/2;
    /// * later samples (§2.3): RTTVAR = 3/4·RTTVAR + 1/4·|SRTT − R|, then
    ///   SRTT = 7/8·SRTT + 1/8·R (RTTVAR uses the SRTT from before this update);
    /// * RTO = SRTT + max(G, 4·RTTVAR), clamped to [min RTO, max RTO] (§2.4, §2.5).
    pub fn on_sample(&mut self, r: SimTime) {
        let r = u128::from(r.as_nanos());
        let (srtt, rttvar) = match self.srtt {
            None => (r, r / 2),
            Some(srtt) => {
                let srtt = u128::from(srtt.as_nanos());
                let var = u128::from(self.rttvar.as_nanos());
                let rttvar = (3 * var + srtt.abs_diff(r)) / 4;
                (((7 * srtt) + r) / 8, rttvar)
            }
        };
        self.srtt = Some(nanos(srtt));
        self.rttvar = nanos(rttvar);
        let g = u128::from(self.granularity.as_nanos());
        self.rto = nanos(srtt + g.max(4 * rttvar))
            .max(self.min_rto)
            .min(self.max_rto);
        self.backoffs = 0;
    }

    /// RFC 6298 §5.5: RTO = 2·RTO, capped at the maximum (§2.5 allows a cap of at least
    /// 60 s).
    pub fn back_off(&mut self) {
        self.rto = (self.rto + self.rto).min(self.max_rto);
        self.backoffs = self.backoffs.saturating_add(1);
    }

    /// Sets the RTO outright (RFC 6298 §5 (7): 3 s after a retransmitted SYN). Keeps the
    /// SRTT/RTTVAR state, if any.
    pub fn reinitialize(&mut self, rto: SimTime) {
        self.rto = rto.max(self.min_rto).min(self.max_rto);
        self.backoffs = 0;
    }

    /// The current RTO, back-off included.
    pub fn rto(&self) -> SimTime {
        self.rto
    }
    /// Smoothed RTT, once a sample has been taken.
    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt
    }
    /// RTT variation, once a sample has been taken.
    pub fn rttvar(&self) -> Option<SimTime> {
        self.srtt.map(|_| self.rttvar)
    }
    /// Number of doublings since the last sample.
    pub fn backoffs(&self) -> u32 {
        self.backoffs
    }
}

fn nanos(ns: u128) -> SimTime {
    SimTime::from_nanos(ns.min(u128::from(u64::MAX)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    fn linux_like() -> RtoEstimator {
        // 200 ms floor (Linux's TCP_RTO_MIN) so the hand-computed values are visible.
        RtoEstimator::new(
            SimTime::from_secs(1),
            ms(200),
            SimTime::from_secs(64),
            ms(1),
        )
    }

    #[test]
    fn initial_rto_is_one_second() {
        // RFC 6298 §2.1.
        let e = RtoEstimator::from_config(&TcpConfig::default());
        assert_eq!(e.rto(), SimTime::from_secs(1));
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rttvar(), None);
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        // RFC 6298 §2.2: SRTT = R, RTTVAR = R/2, RTO = SRTT + max(G, 4 RTTVAR).
        let mut e = linux_like();
        e.on_sample(ms(100));
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rttvar(), Some(ms(50)));
        assert_eq!(e.rto(), ms(300));
    }

    #[test]
    fn rto_follows_a_hand_computed_rfc6298_sequence() {
        // RFC 6298 §2.3 with samples 100, 200, 50 ms:
        // R=100: SRTT 100, RTTVAR 50, RTO 100 + 200 = 300
        // R=200: RTTVAR = 3/4*50 + 1/4*|100-200| = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5;
        //        RTO = 112.5 + 250 = 362.5
        // R=50:  RTTVAR = 3/4*62.5 + 1/4*|112.5-50| = 62.5; SRTT = 7/8*112.5 + 50/8
        //        = 104.6875; RTO = 104.6875 + 250 = 354.6875
        let mut e = linux_like();
        e.on_sample(ms(100));
        e.on_sample(ms(200));
        assert_eq!(e.rttvar(), Some(SimTime::from_micros(62_500)));
        assert_eq!(e.srtt(), Some(SimTime::from_micros(112_500)));
        assert_eq!(e.rto(), SimTime::from_micros(362_500));
        e.on_sample(ms(50));
        assert_eq!(e.rttvar(), Some(SimTime::from_micros(62_500)));
        assert_eq!(e.srtt(), Some(SimTime::from_nanos(104_687_500)));
        assert_eq!(e.rto(), SimTime::from_nanos(354_687_500));
    }

    #[test]
    fn rto_is_rounded_up_to_the_minimum() {
        // RFC 6298 §2.4: with the default 1 s floor the same samples give 1 s.
        let mut e = RtoEstimator::from_config(&TcpConfig::default());
        for r in [100, 200, 50] {
            e.on_sample(ms(r));
            assert_eq!(e.rto(), SimTime::from_secs(1));
        }
        // A long RTT is not clamped: 2 s + 4 * 1 s.
        let mut e = RtoEstimator::from_config(&TcpConfig::default());
        e.on_sample(SimTime::from_secs(2));
        assert_eq!(e.rto(), SimTime::from_secs(6));
    }

    #[test]
    fn clock_granularity_bounds_the_variance_term() {
        // RFC 6298 §2.3: max(G, 4 RTTVAR). A constant RTT drives RTTVAR towards 0, so the
        // RTO tends to SRTT + G.
        let mut e = RtoEstimator::new(ms(1000), SimTime::ZERO, SimTime::from_secs(64), ms(1));
        for _ in 0..60 {
            e.on_sample(ms(100));
        }
        assert!(e.rttvar().unwrap() < SimTime::from_micros(250));
        assert_eq!(e.rto(), ms(101));
    }

    #[test]
    fn back_off_doubles_up_to_the_cap() {
        // RFC 6298 §5.5 and §2.5 (cap 64 s here).
        let mut e = RtoEstimator::from_config(&TcpConfig::default());
        let mut seen = vec![e.rto().as_nanos() / 1_000_000_000];
        for _ in 0..8 {
            e.back_off();
            seen.push(e.rto().as_nanos() / 1_000_000_000);
        }
        assert_eq!(seen, [1, 2, 4, 8, 16, 32, 64, 64, 64]);
        assert_eq!(e.backoffs(), 8);
    }

    #[test]
    fn a_new_sample_discards_the_back_off() {
        // RFC 6298 §5 note / Karn: the backed-off RTO stays until a valid sample.
        let mut e = linux_like();
        e.on_sample(ms(100));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), ms(1200));
        e.on_sample(ms(100));
        // RTTVAR = 3/4*50 + 0 = 37.5; SRTT = 100; RTO = 100 + 150 = 250.
        assert_eq!(e.rto(), ms(250));
        assert_eq!(e.backoffs(), 0);
    }

    #[test]
    fn syn_fallback_reinitializes_to_three_seconds() {
        // RFC 6298 §5 (7).
        let mut e = RtoEstimator::from_config(&TcpConfig::default());
        e.back_off();
        e.back_off();
        e.reinitialize(SYN_TIMEOUT_FALLBACK_RTO);
        assert_eq!(e.rto(), SimTime::from_secs(3));
    }
}
