//! ARF and AARF rate control: Auto Rate Fallback (Kamerman and Monteban, 1997) and Adaptive
//! ARF (Lacage, Manshaei and Turletti, "IEEE 802.11 Rate Adaptation: A Practical Approach",
//! MSWiM 2004, §4), as ns-3's `ArfWifiManager` and `AarfWifiManager` implement them (the
//! reference behaviour; their attribute defaults are the constants below).
//!
//! One instance per link direction. It reports on every data attempt (ACKed or not):
//!
//! - **Up**: after `success_threshold` consecutive successes, or when the timer (attempts
//!   since the last rate change or the last reset, successes and failures alike) reaches
//!   `timer_threshold`, the next higher rate is tried. The first attempt after a rise is
//!   the *recovery* (probe) attempt.
//! - **Down**: a failed probe falls back at once; otherwise every second consecutive
//!   failure (the 2nd, 4th, …) steps one rate down.
//! - **AARF**: a failed probe also doubles the success threshold (×`SUCCESS_K`, at most
//!   `MAX_SUCCESS_THRESHOLD`) and the timer threshold (×`TIMER_K`); a normal fallback
//!   resets them to 10 and 15. ARF keeps 10 and 15.
//!
//! Rates are indices into the PHY's supported rates in ascending order; both start at the
//! lowest, as ns-3's stations do. A discarded frame (retry limit) changes nothing beyond
//! its failed attempts (ns-3's `DoReportFinalDataFailed` is empty for both).

/// ns-3 `ArfWifiManager::SuccessThreshold` and `AarfWifiManager::MinSuccessThreshold`.
pub const MIN_SUCCESS_THRESHOLD: u32 = 10;
/// ns-3 `ArfWifiManager::TimerThreshold` and `AarfWifiManager::MinTimerThreshold`.
pub const MIN_TIMER_THRESHOLD: u32 = 15;
/// ns-3 `AarfWifiManager::MaxSuccessThreshold`.
pub const MAX_SUCCESS_THRESHOLD: u32 = 60;
/// ns-3 `AarfWifiManager::SuccessK` and `TimerK`: the thresholds' factor after a failed
/// probe.
pub const SUCCESS_K: u32 = 2;
pub const TIMER_K: u32 = 2;

/// The state of ARF or AARF for one link direction.
#[derive(Clone, Debug)]
pub struct Arf {
    /// AARF's adaptive thresholds (false: ARF's fixed ones).
    adaptive: bool,
    /// Number of rates; the current one.
    n: usize,
    rate: usize,
    success: u32,
    timer: u32,
    /// Consecutive failed attempts.
    retry: u32,
    /// The last rise has not been confirmed by a success yet.
    recovery: bool,
    success_threshold: u32,
    timer_threshold: u32,
}

impl Arf {
    /// ARF (`adaptive` false) or AARF over `n` rates, starting at the lowest.
    pub fn new(n: usize, adaptive: bool) -> Arf {
        assert!(n > 0, "a PHY has at least one rate");
        Arf {
            adaptive,
            n,
            rate: 0,
            success: 0,
            timer: 0,
            retry: 0,
            recovery: false,
            success_threshold: MIN_SUCCESS_THRESHOLD,
            timer_threshold: MIN_TIMER_THRESHOLD,
        }
    }

    /// The rate (index, ascending) of the next attempt.
    pub fn rate(&self) -> usize {
        self.rate
    }

    /// The current success threshold (AARF's adapts; ARF's stays 10).
    pub fn success_threshold(&self) -> u32 {
        self.success_threshold
    }

    /// The current timer threshold (AARF's adapts; ARF's stays 15).
    pub fn timer_threshold(&self) -> u32 {
        self.timer_threshold
    }

    /// An attempt was acknowledged (`ok`) or not. Returns whether the rate changed.
    pub fn report(&mut self, ok: bool) -> bool {
        let before = self.rate;
        if ok {
            self.ok();
        } else {
            self.failed();
        }
        self.rate != before
    }

    /// ns-3 `DoReportDataOk`.
    fn ok(&mut self) {
        self.timer += 1;
        self.success += 1;
        self.recovery = false;
        self.retry = 0;
        let due = self.success == self.success_threshold || self.timer == self.timer_threshold;
        if due && self.rate + 1 < self.n {
            self.rate += 1;
            self.timer = 0;
            self.success = 0;
            self.recovery = true;
        }
    }

    /// ns-3 `DoReportDataFailed`.
    fn failed(&mut self) {
        self.timer += 1;
        self.retry += 1;
        self.success = 0;
        if self.recovery {
            if self.retry == 1 {
                // The probe at the new rate failed: fall back at once.
                if self.adaptive {
                    self.success_threshold =
                        (self.success_threshold * SUCCESS_K).min(MAX_SUCCESS_THRESHOLD);
                    // ns-3 bounds the timer below by MinSuccessThreshold (10); doubling
                    // from ≥ 15 never reaches it.
                    self.timer_threshold =
                        (self.timer_threshold * TIMER_K).max(MIN_SUCCESS_THRESHOLD);
                }
                self.rate = self.rate.saturating_sub(1);
            }
            self.timer = 0;
        } else {
            if (self.retry - 1) % 2 == 1 {
                // The second (fourth, …) consecutive failure: normal fallback.
                if self.adaptive {
                    self.timer_threshold = MIN_TIMER_THRESHOLD;
                    self.success_threshold = MIN_SUCCESS_THRESHOLD;
                }
                self.rate = self.rate.saturating_sub(1);
            }
            if self.retry >= 2 {
                self.timer = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-3 `ArfWifiManager`: 10 consecutive successes raise the rate by one.
    #[test]
    fn arf_rises_after_ten_successes() {
        let mut a = Arf::new(4, false);
        for k in 1..10 {
            assert!(!a.report(true), "success {k}");
        }
        assert!(a.report(true));
        assert_eq!(a.rate(), 1);
        // From the lowest to the highest in 3 × 10 successes, then it stays.
        for _ in 0..20 {
            a.report(true);
        }
        assert_eq!(a.rate(), 3);
        for _ in 0..100 {
            assert!(!a.report(true));
        }
        assert_eq!(a.rate(), 3);
    }

    /// ns-3 `ArfWifiManager`: the timer (15 attempts since the last change or reset)
    /// raises the rate even without 10 consecutive successes.
    #[test]
    fn arf_rises_when_the_timer_reaches_fifteen() {
        let mut a = Arf::new(4, false);
        // 9 successes, 1 failure (retry 1: no fallback, timer kept), 4 successes: 14
        // attempts; the 15th (a success) fires the timer with success = 5.
        for _ in 0..9 {
            a.report(true);
        }
        a.report(false);
        for _ in 0..4 {
            a.report(true);
        }
        assert_eq!(a.rate(), 0);
        assert!(a.report(true));
        assert_eq!(a.rate(), 1);
    }

    /// ns-3 `ArfWifiManager`: two consecutive failures step down; a failed probe right
    /// after a rise falls back at once.
    #[test]
    fn arf_falls_back_after_two_failures_or_a_failed_probe() {
        let mut a = Arf::new(4, false);
        for _ in 0..20 {
            a.report(true);
        }
        assert_eq!(a.rate(), 2);
        // Confirm the rise, then two failures: down one.
        a.report(true);
        assert!(!a.report(false));
        assert!(a.report(false));
        assert_eq!(a.rate(), 1);
        // The 3rd consecutive failure keeps it, the 4th steps down again.
        assert!(!a.report(false));
        assert!(a.report(false));
        assert_eq!(a.rate(), 0);
        // At the lowest rate failures change nothing.
        for _ in 0..5 {
            assert!(!a.report(false));
        }
        // Rise, then the probe fails: back at once.
        for _ in 0..10 {
            a.report(true);
        }
        assert_eq!(a.rate(), 1);
        assert!(a.report(false));
        assert_eq!(a.rate(), 0);
        assert_eq!(a.success_threshold(), 10);
    }

    /// Lacage et al. 2004 §4 / ns-3 `AarfWifiManager`: each failed probe doubles the
    /// success threshold (10 → 20 → 40 → 60, the cap) and the timer (15 → 30 → 60 → 120);
    /// a normal fallback (two failures) resets them to 10 and 15.
    #[test]
    fn aarf_doubles_its_thresholds_after_failed_probes() {
        let mut a = Arf::new(4, true);
        let mut want = [(20, 30), (40, 60), (60, 120)].into_iter();
        let mut threshold = 10;
        for _ in 0..3 {
            for k in 1..=threshold {
                let changed = a.report(true);
                assert_eq!(changed, k == threshold, "success {k} of {threshold}");
            }
            assert_eq!(a.rate(), 1);
            assert!(a.report(false), "the failed probe falls back");
            assert_eq!(a.rate(), 0);
            let (s, t) = want.next().unwrap();
            assert_eq!((a.success_threshold(), a.timer_threshold()), (s, t));
            threshold = s;
        }
        // 60 successes rise (the timer, 120, does not fire first); confirm; two failures.
        for _ in 0..60 {
            a.report(true);
        }
        assert_eq!(a.rate(), 1);
        a.report(true);
        a.report(false);
        assert!(a.report(false));
        assert_eq!(a.rate(), 0);
        assert_eq!((a.success_threshold(), a.timer_threshold()), (10, 15));
    }

    /// ARF never adapts its thresholds.
    #[test]
    fn arf_keeps_ten_and_fifteen() {
        let mut a = Arf::new(4, false);
        for _ in 0..3 {
            for _ in 0..10 {
                a.report(true);
            }
            a.report(false);
        }
        assert_eq!((a.success_threshold(), a.timer_threshold()), (10, 15));
        assert_eq!(a.rate(), 0);
    }
}
