//! HyStart++ (RFC 9406): leaving the initial slow start on a rise of the round's minimum
//! RTT, through a "conservative slow start" (CSS) that can still change its mind.
//!
//! The state machine of RFC 9406 §4.2, with its constants (§4.3):
//!
//! * Rounds: a round ends when an ACK acknowledges `windowEnd`, the `SND.NXT` at the round's
//!   start. At each round's start `lastRoundMinRTT` = `currentRoundMinRTT`, the current
//!   one restarts at ∞ and the sample count at 0.
//! * Every ACK's RTT sample lowers `currentRoundMinRTT` and counts.
//! * Standard slow start: cwnd += min(N, L·SMSS) per ACK (N bytes newly acknowledged,
//!   L = 8 for a sender that does not pace). Once N_RTT_SAMPLE = 8 samples of this round
//!   and the previous round's minimum are known, RttThresh = clamp(lastRoundMinRTT /
//!   MIN_RTT_DIVISOR = 8, MIN_RTT_THRESH = 4 ms, MAX_RTT_THRESH = 16 ms); if
//!   currentRoundMinRTT ≥ lastRoundMinRTT + RttThresh the sender enters CSS with
//!   cssBaselineMinRtt = currentRoundMinRTT.
//! * CSS: cwnd += min(N, L·SMSS) / CSS_GROWTH_DIVISOR (4) per ACK. If, with 8 samples,
//!   currentRoundMinRTT < cssBaselineMinRtt, the exit was spurious: back to standard slow
//!   start. After CSS_ROUNDS = 5 rounds in CSS, ssthresh = cwnd: congestion avoidance
//!   (the RFC says "if CSS_ROUNDS rounds are complete"; we count the rounds that began
//!   in CSS, not the rest of the round in which it was entered, and leave at the start
//!   of the sixth).
//! * A loss or an ECN-Echo ends it (the controller's own response sets ssthresh), and, as
//!   §4.3 recommends, HyStart++ runs only in the initial slow start: later slow starts
//!   (after a timeout) are standard.
//!
//! It needs an RTT sample on (nearly) every ACK, which the model has with RFC 7323
//! timestamps ([`super::TcpConfig::timestamps`]); the configuration requires them.
//! Growth below one byte per ACK in CSS is carried to the next ACK.

use crate::engine::SimTime;

/// L for a sender that does not pace (RFC 9406 §4.3), in SMSS.
pub const HYSTART_L: u64 = 8;
/// MIN_RTT_THRESH (RFC 9406 §4.3).
pub const MIN_RTT_THRESH: SimTime = SimTime::from_millis(4);
/// MAX_RTT_THRESH (RFC 9406 §4.3).
pub const MAX_RTT_THRESH: SimTime = SimTime::from_millis(16);
/// MIN_RTT_DIVISOR (RFC 9406 §4.3).
pub const MIN_RTT_DIVISOR: u64 = 8;
/// N_RTT_SAMPLE (RFC 9406 §4.3).
pub const N_RTT_SAMPLE: u32 = 8;
/// CSS_GROWTH_DIVISOR (RFC 9406 §4.3).
pub const CSS_GROWTH_DIVISOR: u64 = 4;
/// CSS_ROUNDS (RFC 9406 §4.3).
pub const CSS_ROUNDS: u32 = 5;

/// Where HyStart++ stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HyStartPhase {
    /// Standard slow start, watching the RTT.
    SlowStart,
    /// Conservative slow start after an RTT rise.
    Css,
    /// Finished: congestion avoidance reached, a congestion event, or a later slow start.
    Done,
}

/// What one ACK in slow start tells the controller to do.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HyStartStep {
    /// Bytes to add to cwnd.
    pub increase: u64,
    /// CSS lasted CSS_ROUNDS rounds: set ssthresh = cwnd (after the increase).
    pub enter_avoidance: bool,
}

/// The HyStart++ state of one connection (RFC 9406 §4.2 variables).
#[derive(Clone, Debug)]
pub struct HyStart {
    phase: HyStartPhase,
    /// windowEnd, once the first round has begun.
    window_end: Option<u64>,
    last_round_min_rtt: Option<SimTime>,
    current_round_min_rtt: Option<SimTime>,
    rtt_sample_count: u32,
    css_baseline_min_rtt: Option<SimTime>,
    css_rounds: u32,
    /// CSS growth below one byte, in quarter bytes.
    carry: u64,
    /// Rounds started, and CSS entries and spurious exits, for tests and traces.
    pub rounds: u32,
    pub css_entries: u32,
    pub css_spurious_exits: u32,
}

impl Default for HyStart {
    fn default() -> Self {
        HyStart::new()
    }
}

impl HyStart {
    pub fn new() -> HyStart {
        HyStart {
            phase: HyStartPhase::SlowStart,
            window_end: None,
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            rtt_sample_count: 0,
            css_baseline_min_rtt: None,
            css_rounds: 0,
            carry: 0,
            rounds: 0,
            css_entries: 0,
            css_spurious_exits: 0,
        }
    }

    pub fn phase(&self) -> HyStartPhase {
        self.phase
    }

    /// cssBaselineMinRtt: the round minimum RTT at which CSS was last entered.
    pub fn css_baseline_min_rtt(&self) -> Option<SimTime> {
        self.css_baseline_min_rtt
    }

    /// HyStart++ is over for this connection (a congestion event, or congestion
    /// avoidance reached).
    pub fn finish(&mut self) {
        self.phase = HyStartPhase::Done;
    }

    /// One ACK in slow start that acknowledged `acked` new bytes up to `ack`, with
    /// `snd_nxt` the next sequence number to send and `rtt` this ACK's sample, if any.
    pub fn on_ack(
        &mut self,
        ack: u64,
        acked: u64,
        snd_nxt: u64,
        rtt: Option<SimTime>,
        mss: u64,
    ) -> HyStartStep {
        let mut step = HyStartStep {
            increase: 0,
            enter_avoidance: false,
        };
        let full = acked.min(HYSTART_L * mss);
        if self.phase == HyStartPhase::Done {
            step.increase = full;
            return step;
        }
        // A new round begins with the ACK that covers the previous round's windowEnd.
        if self.window_end.is_none_or(|end| ack >= end) {
            if self.window_end.is_some() && self.phase == HyStartPhase::Css {
                self.css_rounds += 1;
            }
            self.window_end = Some(snd_nxt);
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = None;
            self.rtt_sample_count = 0;
            self.rounds += 1;
        }
        if let Some(r) = rtt {
            self.current_round_min_rtt = Some(self.current_round_min_rtt.map_or(r, |m| m.min(r)));
            self.rtt_sample_count += 1;
        }
        let enough = self.rtt_sample_count >= N_RTT_SAMPLE;
        match self.phase {
            HyStartPhase::SlowStart => {
                step.increase = full;
                if let (true, Some(cur), Some(last)) =
                    (enough, self.current_round_min_rtt, self.last_round_min_rtt)
                {
                    let thresh = SimTime::from_nanos(last.as_nanos() / MIN_RTT_DIVISOR)
                        .clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                    if cur >= last + thresh {
                        self.phase = HyStartPhase::Css;
                        self.css_baseline_min_rtt = Some(cur);
                        self.css_rounds = 0;
                        self.css_entries += 1;
                    }
                }
            }
            HyStartPhase::Css => {
                let quarters = self.carry + full;
                step.increase = quarters / CSS_GROWTH_DIVISOR;
                self.carry = quarters % CSS_GROWTH_DIVISOR;
                if let (true, Some(cur), Some(base)) = (
                    enough,
                    self.current_round_min_rtt,
                    self.css_baseline_min_rtt,
                ) {
                    if cur < base {
                        // The RTT rise was spurious: back to standard slow start.
                        self.phase = HyStartPhase::SlowStart;
                        self.css_spurious_exits += 1;
                    }
                }
                if self.phase == HyStartPhase::Css && self.css_rounds > CSS_ROUNDS {
                    step.enter_avoidance = true;
                    self.phase = HyStartPhase::Done;
                }
            }
            HyStartPhase::Done => unreachable!(),
        }
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }
    fn us(v: u64) -> SimTime {
        SimTime::from_micros(v)
    }

    /// Drives one HyStart++ instance with one-segment ACKs, a round at a time.
    struct Driver {
        h: HyStart,
        ack: u64,
        /// cwnd increases, in bytes, of every ACK so far.
        growth: Vec<u64>,
        avoidance: bool,
    }

    impl Driver {
        fn new() -> Driver {
            Driver {
                h: HyStart::new(),
                ack: 0,
                growth: Vec::new(),
                avoidance: false,
            }
        }
        /// One ACK of one segment with this RTT sample, in a round `n` ACKs long.
        fn ack(&mut self, n: u64, rtt: SimTime) -> HyStartStep {
            self.ack += MSS;
            // SND.NXT: the round that starts here ends after n ACKs.
            let step = self
                .h
                .on_ack(self.ack, MSS, self.ack + n * MSS, Some(rtt), MSS);
            self.growth.push(step.increase);
            self.avoidance |= step.enter_avoidance;
            step
        }
        /// A whole round of `n` ACKs, all with this RTT.
        fn round(&mut self, n: u64, rtt: SimTime) {
            for _ in 0..n {
                self.ack(n, rtt);
            }
        }
    }

    #[test]
    fn rfc9406_leaves_slow_start_when_the_round_min_rtt_rises_by_the_threshold() {
        // RFC 9406 §4.2: after N_RTT_SAMPLE = 8 samples, if currentRoundMinRTT ≥
        // lastRoundMinRTT + RttThresh, with RttThresh = clamp(lastRoundMinRTT / 8, 4 ms,
        // 16 ms) = 12.5 ms for 100 ms, enter CSS. 112.5 ms does it at the 8th sample, not
        // before; 112.499 ms never does.
        let mut d = Driver::new();
        d.round(10, ms(100));
        d.round(10, ms(100));
        for i in 1..=10 {
            d.ack(10, us(112_500));
            let want = if i >= 8 {
                HyStartPhase::Css
            } else {
                HyStartPhase::SlowStart
            };
            assert_eq!(d.h.phase(), want, "sample {i}");
        }
        assert_eq!(d.h.css_entries, 1);

        let mut below = Driver::new();
        below.round(10, ms(100));
        below.round(10, ms(100));
        below.round(10, us(112_499));
        below.round(10, us(112_499 + 12_000)); // +12 ms on 112.5: below 14.06 ms
        assert_eq!(below.h.phase(), HyStartPhase::SlowStart);
        // Standard slow start: one SMSS per one-segment ACK throughout.
        assert!(below.growth.iter().all(|&g| g == MSS));
    }

    #[test]
    fn rfc9406_rtt_threshold_is_clamped_to_4_and_16_ms() {
        // lastRoundMinRTT 20 ms: 20/8 = 2.5 ms → MIN_RTT_THRESH 4 ms; 400 ms: 50 → 16 ms.
        for (base, below, at) in [(20, us(23_999), us(24_000)), (400, us(415_999), ms(416))] {
            for (rtt, css) in [(below, false), (at, true)] {
                let mut d = Driver::new();
                d.round(10, ms(base));
                d.round(10, rtt);
                assert_eq!(d.h.phase() == HyStartPhase::Css, css, "{base} ms → {rtt}");
            }
        }
    }

    #[test]
    fn rfc9406_css_grows_by_a_quarter_and_returns_to_slow_start_if_the_rtt_falls() {
        // §4.2: in CSS cwnd += min(N, L·SMSS) / CSS_GROWTH_DIVISOR; if the next round's
        // minimum falls below cssBaselineMinRtt (with 8 samples), resume slow start.
        let mut d = Driver::new();
        d.round(10, ms(100));
        d.round(10, ms(100));
        d.round(10, ms(120)); // CSS from the 8th ACK, baseline 120 ms
        assert_eq!(d.h.phase(), HyStartPhase::Css);
        // The ACK that detected the rise still grew as slow start; the next ones by ¼.
        assert_eq!(&d.growth[27..30], [MSS, MSS / 4, MSS / 4]);
        for i in 1..=8 {
            d.ack(10, ms(110)); // below the 120 ms baseline
            let want = if i == 8 {
                HyStartPhase::SlowStart
            } else {
                HyStartPhase::Css
            };
            assert_eq!(d.h.phase(), want, "sample {i}");
        }
        assert_eq!(d.h.css_spurious_exits, 1);
        assert_eq!(
            *d.growth.last().unwrap(),
            MSS / 4,
            "the 8th ACK still grew in CSS"
        );
        d.ack(10, ms(110));
        assert_eq!(
            *d.growth.last().unwrap(),
            MSS,
            "back to full slow start growth"
        );
    }

    #[test]
    fn rfc9406_css_rounds_end_in_congestion_avoidance() {
        // §4.2: "If CSS_ROUNDS rounds are complete, enter congestion avoidance by setting
        // the ssthresh to the current cwnd": the RTT stays up, five rounds begin and end in
        // CSS, and the first ACK of the sixth asks for ssthresh = cwnd.
        let mut d = Driver::new();
        d.round(10, ms(100));
        d.round(10, ms(100));
        d.round(10, ms(120));
        for _ in 0..CSS_ROUNDS {
            d.round(10, ms(120));
            assert!(!d.avoidance);
            assert_eq!(d.h.phase(), HyStartPhase::Css);
        }
        let step = d.ack(10, ms(120));
        assert!(step.enter_avoidance);
        assert_eq!(d.h.phase(), HyStartPhase::Done);
    }

    #[test]
    fn rfc9406_slow_start_growth_is_capped_at_l_segments_per_ack() {
        // §4.2: cwnd += min(N, L·SMSS), L = 8 without pacing.
        let mut h = HyStart::new();
        let step = h.on_ack(20 * MSS, 20 * MSS, 40 * MSS, Some(ms(50)), MSS);
        assert_eq!(step.increase, HYSTART_L * MSS);
        let step = h.on_ack(23 * MSS, 3 * MSS, 40 * MSS, Some(ms(50)), MSS);
        assert_eq!(step.increase, 3 * MSS);
        // Done (a congestion event): plain growth, no more tracking.
        h.finish();
        let step = h.on_ack(60 * MSS, 20 * MSS, 80 * MSS, Some(ms(500)), MSS);
        assert_eq!(
            (step.increase, h.phase()),
            (HYSTART_L * MSS, HyStartPhase::Done)
        );
    }
}
