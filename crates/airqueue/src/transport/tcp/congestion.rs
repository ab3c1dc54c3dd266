//! Congestion control: the window arithmetic of RFC 5681 (slow start, congestion
//! avoidance, fast retransmit and fast recovery) and the three loss responses of the
//! seeds' era, Tahoe, Reno and NewReno (RFC 6582).
//!
//! [`Congestion`] owns `cwnd`, `ssthresh`, the duplicate-ACK counter and the fast-recovery
//! state. It never touches sequence space or timers: the sender reports ACKs and timeouts
//! and gets back an action ([`NewAckAction`], [`DupAckAction`]) that tells it what to
//! retransmit. All quantities are bytes.
//!
//! # Two axes, room for more
//!
//! The variants share one *window growth* rule (AIMD: [`Congestion::on_new_ack`] outside
//! recovery) and differ only in the *loss response*:
//!
//! | event | Tahoe | Reno | NewReno |
//! | --- | --- | --- | --- |
//! | 3rd dupack | ssthresh = max(FlightSize/2, 2·SMSS), cwnd = 1·SMSS, go-back-N | ssthresh as Tahoe, retransmit head, cwnd = ssthresh + 3·SMSS | as Reno, `recover` = highest seq sent, only if the ACK covers more than the old `recover` |
//! | further dupacks | nothing | cwnd += SMSS | cwnd += SMSS |
//! | partial ACK | slow start | exit recovery, cwnd = ssthresh | retransmit next hole, deflate cwnd, stay |
//! | full ACK | slow start | exit recovery, cwnd = ssthresh | exit recovery, cwnd = ssthresh |
//! | RTO | ssthresh as above (held on a repeated timeout), cwnd = 1·SMSS, go-back-N | same | same, `recover` = highest seq sent |
//!
//! CUBIC (RFC 9438) would add a variant that replaces the growth function and the
//! multiplicative decrease (β = 0.7) and keeps the Reno/NewReno recovery; SACK loss
//! recovery (RFC 6675) would add a recovery mode driven by a scoreboard and `pipe`
//! instead of the inflate/deflate arithmetic. Both fit behind the same two entry points
//! ([`Congestion::on_new_ack`], [`Congestion::on_duplicate_ack`]) and
//! [`Congestion::on_timeout`].

use super::TcpConfig;

/// Congestion-control variant (the loss response; growth is AIMD for all three).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum CongestionVariant {
    /// 4.3BSD-Tahoe (Jacobson 1988): fast retransmit, then slow start from one segment.
    Tahoe,
    /// 4.3BSD-Reno / RFC 5681 §3.2: fast retransmit and fast recovery.
    Reno,
    /// RFC 6582: Reno with partial-ACK handling, so several losses in one window are
    /// repaired in one recovery episode. The default, as in the thesis (seed 001).
    #[default]
    NewReno,
}

/// What the sender must do after a duplicate ACK.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DupAckAction {
    /// Nothing to retransmit (below the threshold, or inflation during recovery: the sender
    /// simply tries to send under the new window).
    None,
    /// Reno/NewReno fast retransmit: resend the segment at `snd_una` now, regardless of
    /// the window (RFC 5681 §3.2 step 3), and keep `snd_nxt`.
    RetransmitHead,
    /// Tahoe fast retransmit: reset `snd_nxt` to `snd_una` and slow-start from one
    /// segment (go-back-N, as 4.3BSD-Tahoe and ns-2's Tahoe agent do).
    GoBackN,
}

impl DupAckAction {
    /// Whether this duplicate ACK triggered a fast retransmit (for the counters).
    pub fn is_fast_retransmit(self) -> bool {
        !matches!(self, DupAckAction::None)
    }
}

/// What the sender must do after an ACK that acknowledges new data.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NewAckAction {
    /// Retransmit the first unacknowledged segment now (NewReno partial ACK, RFC 6582 §3.2
    /// step 3).
    pub retransmit_head: bool,
    /// Restart the retransmission timer if data is still outstanding (RFC 6298 §5.3).
    /// False only for the second and later partial ACKs of a NewReno recovery: RFC 6582
    /// resets the timer on the first partial ACK only (the "Impatient" variant).
    pub restart_timer: bool,
    /// This ACK was a NewReno partial ACK.
    pub partial_ack: bool,
    /// This ACK ended fast recovery.
    pub exited_recovery: bool,
}

/// Fast-recovery bookkeeping (Reno and NewReno).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Recovery {
    /// One past the highest sequence number sent when recovery began (RFC 6582 `recover`
    /// + 1): an ACK at or beyond it is a full ACK.
    recover_end: u64,
    /// Whether a partial ACK has already restarted the retransmission timer.
    partial_ack_seen: bool,
}

/// The congestion-control state of one connection. See the module documentation.
#[derive(Clone, Debug)]
pub struct Congestion {
    variant: CongestionVariant,
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    dupack_threshold: u32,
    dupacks: u32,
    recovery: Option<Recovery>,
    /// Bytes acknowledged in congestion avoidance since cwnd last grew (RFC 3465
    /// `bytes_acked`); reset whenever cwnd is reduced.
    bytes_acked: u64,
    /// NewReno's `recover` (RFC 6582 §3.2 step 1/2/4), stored exclusive (highest sequence
    /// number transmitted + 1). `None` until the first fast retransmit or timeout; see
    /// [`Congestion::may_fast_retransmit`].
    recover_end: Option<u64>,
}

impl Congestion {
    /// Initial state: cwnd = IW (RFC 5681 §3.1, `initial_cwnd_segments` · SMSS), ssthresh
    /// from the configuration ("arbitrarily high" by default).
    pub fn new(cfg: &TcpConfig) -> Congestion {
        let mss = u64::from(cfg.mss);
        Congestion {
            variant: cfg.variant,
            mss,
            cwnd: u64::from(cfg.initial_cwnd_segments) * mss,
            ssthresh: cfg.initial_ssthresh,
            dupack_threshold: cfg.dupack_threshold,
            dupacks: 0,
            recovery: None,
            bytes_acked: 0,
            recover_end: None,
        }
    }

    pub fn variant(&self) -> CongestionVariant {
        self.variant
    }
    /// Congestion window in bytes.
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
    /// Slow-start threshold in bytes.
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    /// Consecutive duplicate ACKs since the last ACK of new data.
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
    /// Whether Reno/NewReno fast recovery is in progress.
    pub fn in_recovery(&self) -> bool {
        self.recovery.is_some()
    }
    /// RFC 5681 §3.1: slow start while cwnd < ssthresh, congestion avoidance otherwise
    /// (at equality we choose congestion avoidance, as Linux and the thesis do).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
    /// NewReno's recovery point (exclusive), if one has been recorded.
    pub fn recover_end(&self) -> Option<u64> {
        self.recover_end
    }

    /// RFC 5681 §3.1 equation (4): ssthresh = max(FlightSize / 2, 2·SMSS).
    pub fn loss_ssthresh(&self, flight_size: u64) -> u64 {
        (flight_size / 2).max(2 * self.mss)
    }

    /// An ACK acknowledged `acked` > 0 new bytes, up to `ack`.
    ///
    /// Outside recovery the window grows (RFC 5681 §3.1): in slow start by
    /// min(acked, SMSS) per ACK (RFC 3465 appropriate byte counting with L = 1·SMSS, so a
    /// delayed ACK covering two segments still adds one SMSS); in congestion avoidance by
    /// byte counting, RFC 5681's RECOMMENDED method: acknowledged bytes accumulate and,
    /// each time they reach cwnd, cwnd grows by one SMSS — one SMSS per RTT whether or not
    /// the receiver delays its ACKs (RFC 3465 §2.1; Linux's `tcp_cong_avoid_ai` counts
    /// acknowledged segments the same way).
    ///
    /// Not equation (3) of RFC 5681 (SMSS·SMSS/cwnd per ACK, ns-2's and ns-3
    /// `TcpNewReno`'s rule): with delayed ACKs it grows only ½ SMSS per RTT, which RFC 5681
    /// itself names as the drawback that byte counting avoids.
    pub fn on_new_ack(&mut self, ack: u64, acked: u64) -> NewAckAction {
        self.dupacks = 0;
        let mut action = NewAckAction {
            retransmit_head: false,
            restart_timer: true,
            partial_ack: false,
            exited_recovery: false,
        };
        match self.recovery {
            Some(rec) if self.variant == CongestionVariant::NewReno && ack < rec.recover_end => {
                // RFC 6582 §3.2 step 3, partial acknowledgment: retransmit the first
                // unacknowledged segment, deflate cwnd by the newly acknowledged amount,
                // add back one SMSS if at least one SMSS was acknowledged, stay in fast
                // recovery; reset the timer for the first partial ACK only.
                let add_back = if acked >= self.mss { self.mss } else { 0 };
                self.cwnd = (self.cwnd.saturating_sub(acked) + add_back).max(self.mss);
                action.retransmit_head = true;
                action.partial_ack = true;
                action.restart_timer = !rec.partial_ack_seen;
                self.recovery = Some(Recovery {
                    partial_ack_seen: true,
                    ..rec
                });
            }
            Some(_) => {
                // RFC 5681 §3.2 step 6 (Reno: any new ACK) / RFC 6582 §3.2 step 3 full
                // acknowledgment (NewReno, option 2): deflate to ssthresh and exit.
                self.cwnd = self.ssthresh;
                self.bytes_acked = 0;
                self.recovery = None;
                action.exited_recovery = true;
            }
            None => self.grow(acked),
        }
        action
    }

    fn grow(&mut self, acked: u64) {
        if self.in_slow_start() {
            self.cwnd += acked.min(self.mss);
            return;
        }
        // RFC 3465 §2.1: "bytes_acked" reaches cwnd at most once per ACK worth of growth:
        // "cwnd MUST NOT be increased by more than SMSS bytes per RTT" (RFC 5681 §3.1).
        self.bytes_acked += acked;
        if self.bytes_acked >= self.cwnd {
            self.bytes_acked -= self.cwnd;
            self.cwnd += self.mss;
            self.bytes_acked = self.bytes_acked.min(self.cwnd - 1);
        }
    }

    /// RFC 6582 §3.2 step 2: NewReno enters fast retransmit only if the cumulative ACK
    /// "covers more than recover", i.e. `ack − 1 > recover` with `recover` the highest
    /// sequence number sent at the last fast retransmit or timeout. This is the "bugfix"
    /// that stops duplicate ACKs caused by go-back-N retransmissions of data the receiver
    /// already held from starting a second, spurious fast retransmit.
    ///
    /// Departure: RFC 6582 initialises `recover` to the ISN, which would forbid a fast
    /// retransmit of the very first data segment; we leave it unset until the first
    /// recovery or timeout (there is nothing to protect before that). Tahoe and Reno have
    /// no such check (RFC 5681).
    pub fn may_fast_retransmit(&self, ack: u64) -> bool {
        if self.variant != CongestionVariant::NewReno {
            return true;
        }
        match self.recover_end {
            None => true,
            Some(end) => ack > end,
        }
    }

    /// A duplicate ACK (RFC 5681 §2 definition, checked by the sender) for `ack` arrived
    /// with `flight_size` = `snd_max − snd_una` bytes outstanding and `snd_max` the highest
    /// sequence number sent + 1.
    pub fn on_duplicate_ack(&mut self, ack: u64, flight_size: u64, snd_max: u64) -> DupAckAction {
        self.dupacks = self.dupacks.saturating_add(1);
        if self.recovery.is_some() {
            // RFC 5681 §3.2 step 4: inflate by one SMSS per additional duplicate ACK.
            self.cwnd += self.mss;
            return DupAckAction::None;
        }
        if self.dupacks != self.dupack_threshold || !self.may_fast_retransmit(ack) {
            return DupAckAction::None;
        }
        // RFC 5681 §3.2 step 2.
        self.ssthresh = self.loss_ssthresh(flight_size);
        self.bytes_acked = 0;
        match self.variant {
            CongestionVariant::Tahoe => {
                // Loss window, slow start again, no fast recovery.
                self.cwnd = self.mss;
                DupAckAction::GoBackN
            }
            CongestionVariant::Reno | CongestionVariant::NewReno => {
                if self.variant == CongestionVariant::NewReno {
                    self.recover_end = Some(snd_max);
                }
                // RFC 5681 §3.2 step 3: cwnd = ssthresh + 3·SMSS, the three segments that
                // left the network. With a configurable threshold we inflate by
                // `dupack_threshold`·SMSS (identical at the default of 3).
                self.cwnd = self.ssthresh + u64::from(self.dupack_threshold) * self.mss;
                self.recovery = Some(Recovery {
                    recover_end: snd_max,
                    partial_ack_seen: false,
                });
                DupAckAction::RetransmitHead
            }
        }
    }

    /// The retransmission timer expired with `flight_size` bytes outstanding
    /// (RFC 5681 §3.1): ssthresh = max(FlightSize/2, 2·SMSS) unless `hold_ssthresh` (the
    /// segment was already retransmitted by the timer: "the value of ssthresh is held
    /// constant"), cwnd = LW = 1·SMSS, fast recovery is abandoned, and NewReno records
    /// `recover` = highest sequence number sent (RFC 6582 §3.2 step 4).
    ///
    /// A timeout *during* fast recovery keeps the ssthresh that recovery set when it is
    /// lower, as Linux's `tcp_enter_loss` does (one reduction per loss episode). RFC 5681
    /// asks for ssthresh "no more than" FlightSize/2, and there FlightSize overstates what
    /// the network holds: while NewReno repairs one hole per RTT, `snd_una` stays at a
    /// hole and the new data sent on inflated cwnd (segments the receiver already holds)
    /// swells `snd_max − snd_una` to several windows. Halving that would restart slow
    /// start towards a threshold far above the path's capacity, overshoot it, lose a
    /// window's worth again and time out again — a cycle we saw in a single flow over a
    /// 100-packet drop-tail queue.
    pub fn on_timeout(&mut self, flight_size: u64, snd_max: u64, hold_ssthresh: bool) {
        if !hold_ssthresh {
            let halved = self.loss_ssthresh(flight_size);
            self.ssthresh = if self.recovery.is_some() {
                self.ssthresh.min(halved)
            } else {
                halved
            };
        }
        self.cwnd = self.mss;
        self.bytes_acked = 0;
        self.dupacks = 0;
        self.recovery = None;
        if self.variant == CongestionVariant::NewReno {
            self.recover_end = Some(snd_max);
        }
    }

    /// RFC 5681 §3.1: "if the SYN or SYN/ACK is lost, the initial window used by a sender
    /// after a correctly transmitted SYN MUST be one segment".
    pub fn use_one_segment_initial_window(&mut self) {
        self.cwnd = self.mss;
        self.bytes_acked = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::SSTHRESH_INFINITE;

    const MSS: u64 = 1000;

    fn cc(variant: CongestionVariant, iw: u32) -> Congestion {
        let cfg = TcpConfig {
            variant,
            mss: MSS as u32,
            initial_cwnd_segments: iw,
            ..TcpConfig::default()
        };
        Congestion::new(&cfg)
    }

    #[test]
    fn initial_window_and_infinite_ssthresh() {
        // RFC 5681 §3.1: IW in segments, ssthresh "arbitrarily high".
        let c = cc(CongestionVariant::NewReno, 1);
        assert_eq!(c.cwnd(), MSS);
        assert_eq!(c.ssthresh(), SSTHRESH_INFINITE);
        assert!(c.in_slow_start());
    }

    #[test]
    fn slow_start_adds_at_most_one_smss_per_ack() {
        // RFC 5681 §3.1 with RFC 3465 L = 1·SMSS: cwnd += min(N, SMSS).
        let mut c = cc(CongestionVariant::Reno, 2);
        c.on_new_ack(1000, 1000);
        assert_eq!(c.cwnd(), 3000);
        // A delayed ACK for two segments still adds only one SMSS.
        c.on_new_ack(3000, 2000);
        assert_eq!(c.cwnd(), 4000);
        // A small ACK adds only what it acknowledged.
        c.on_new_ack(3100, 100);
        assert_eq!(c.cwnd(), 4100);
    }

    #[test]
    fn congestion_avoidance_adds_one_smss_per_cwnd_of_acknowledged_bytes() {
        // RFC 5681 §3.1 (the RECOMMENDED byte counting) / RFC 3465 §2.1: cwnd grows by
        // SMSS each time the bytes acknowledged reach cwnd.
        let mut c = cc(CongestionVariant::Reno, 10);
        c.ssthresh = 10 * MSS;
        assert!(
            !c.in_slow_start(),
            "cwnd == ssthresh uses congestion avoidance"
        );
        for i in 1..10 {
            c.on_new_ack(i * 1000, 1000);
            assert_eq!(c.cwnd(), 10_000, "after {i} ACKs");
        }
        c.on_new_ack(10_000, 1000);
        assert_eq!(c.cwnd(), 11_000);
        // The next increment needs 11 000 more bytes.
        for i in 0..10 {
            c.on_new_ack(11_000 + i * 1000, 1000);
        }
        assert_eq!(c.cwnd(), 11_000);
        c.on_new_ack(21_000, 1000);
        assert_eq!(c.cwnd(), 12_000);
    }

    #[test]
    fn congestion_avoidance_grows_one_smss_per_window_with_delayed_acks_too() {
        // One window of 10 segments acknowledged two at a time (delayed ACKs) adds one
        // SMSS, as with an ACK per segment (equation (3) would add only about half).
        let mut per_segment = cc(CongestionVariant::Reno, 10);
        per_segment.ssthresh = 10 * MSS;
        let mut delayed = per_segment.clone();
        for i in 1..=10 {
            per_segment.on_new_ack(i * 1000, 1000);
        }
        for i in 1..=5 {
            delayed.on_new_ack(i * 2000, 2000);
        }
        assert_eq!(per_segment.cwnd(), 11_000);
        assert_eq!(delayed.cwnd(), 11_000);
    }

    #[test]
    fn congestion_avoidance_adds_at_most_one_smss_per_ack() {
        // RFC 5681 §3.1: "cwnd MUST NOT be increased by more than SMSS bytes per RTT"; a
        // stretch ACK covering three windows grows cwnd once, and the surplus is capped.
        let mut c = cc(CongestionVariant::Reno, 4);
        c.ssthresh = 4 * MSS;
        c.on_new_ack(12_000, 12_000);
        assert_eq!(c.cwnd(), 5_000);
        c.on_new_ack(12_001, 1);
        assert_eq!(c.cwnd(), 6_000, "surplus kept below one window");
    }

    #[test]
    fn congestion_avoidance_counter_restarts_after_a_window_reduction() {
        // RFC 3465 §2.1 resets bytes_acked on a timeout; we reset it on every reduction, so
        // bytes counted before a loss do not grow the halved window.
        let mut c = cc(CongestionVariant::Reno, 10);
        c.ssthresh = 10 * MSS;
        for i in 1..=9 {
            c.on_new_ack(i * 1000, 1000);
        }
        for _ in 0..3 {
            c.on_duplicate_ack(9_000, 10_000, 19_000);
        }
        c.on_new_ack(19_000, 10_000); // full ACK: cwnd = ssthresh = 5 000
        assert_eq!(c.cwnd(), 5_000);
        for i in 1..=4 {
            c.on_new_ack(19_000 + i * 1000, 1000);
        }
        assert_eq!(
            c.cwnd(),
            5_000,
            "the 9 000 bytes counted before were forgotten"
        );
        c.on_new_ack(24_000, 1000);
        assert_eq!(c.cwnd(), 6_000);
    }

    #[test]
    fn loss_ssthresh_is_half_the_flight_but_at_least_two_segments() {
        // RFC 5681 §3.1 equation (4).
        let c = cc(CongestionVariant::Reno, 1);
        assert_eq!(c.loss_ssthresh(10_000), 5_000);
        assert_eq!(c.loss_ssthresh(3_000), 2_000);
        assert_eq!(c.loss_ssthresh(0), 2_000);
    }

    #[test]
    fn reno_fast_retransmit_inflates_then_deflates_to_ssthresh() {
        // RFC 5681 §3.2 steps 2-6, flight of 10 segments.
        let mut c = cc(CongestionVariant::Reno, 10);
        assert_eq!(c.on_duplicate_ack(0, 10_000, 10_000), DupAckAction::None);
        assert_eq!(c.on_duplicate_ack(0, 10_000, 10_000), DupAckAction::None);
        assert_eq!(c.cwnd(), 10_000, "no change before the threshold");
        assert_eq!(
            c.on_duplicate_ack(0, 10_000, 10_000),
            DupAckAction::RetransmitHead
        );
        assert_eq!(c.ssthresh(), 5_000);
        assert_eq!(c.cwnd(), 8_000); // ssthresh + 3 SMSS
        assert!(c.in_recovery());
        c.on_duplicate_ack(0, 10_000, 10_000);
        assert_eq!(c.cwnd(), 9_000);
        let a = c.on_new_ack(3_000, 3_000);
        assert!(a.exited_recovery && !a.retransmit_head && a.restart_timer);
        assert_eq!(c.cwnd(), 5_000);
        assert!(!c.in_recovery());
        assert_eq!(c.dupacks(), 0);
    }

    #[test]
    fn newreno_partial_ack_deflates_and_retransmits_full_ack_exits() {
        // RFC 6582 §3.2 step 3.
        let mut c = cc(CongestionVariant::NewReno, 10);
        for _ in 0..3 {
            c.on_duplicate_ack(0, 10_000, 10_000);
        }
        assert_eq!((c.ssthresh(), c.cwnd()), (5_000, 8_000));
        assert_eq!(c.recover_end(), Some(10_000));
        c.on_duplicate_ack(0, 10_000, 10_000);
        c.on_duplicate_ack(0, 10_000, 10_000);
        assert_eq!(c.cwnd(), 10_000);
        // Partial ACK of 4000 bytes: 10000 - 4000 + 1000.
        let a = c.on_new_ack(4_000, 4_000);
        assert!(a.partial_ack && a.retransmit_head && a.restart_timer);
        assert_eq!(c.cwnd(), 7_000);
        assert!(c.in_recovery());
        // Second partial ACK of less than one SMSS: no add-back, no timer reset.
        let a = c.on_new_ack(4_500, 500);
        assert!(a.partial_ack && a.retransmit_head && !a.restart_timer);
        assert_eq!(c.cwnd(), 6_500);
        // Full ACK (covers recover = 9999): cwnd = ssthresh, exit.
        let a = c.on_new_ack(10_000, 5_500);
        assert!(a.exited_recovery && !a.partial_ack);
        assert_eq!(c.cwnd(), 5_000);
        assert!(!c.in_recovery());
    }

    #[test]
    fn reno_treats_a_partial_ack_as_the_end_of_recovery() {
        // Reno has no notion of partial ACKs: RFC 5681 §3.2 step 6 on any new ACK.
        let mut c = cc(CongestionVariant::Reno, 10);
        for _ in 0..3 {
            c.on_duplicate_ack(0, 10_000, 10_000);
        }
        let a = c.on_new_ack(4_000, 4_000);
        assert!(a.exited_recovery && !a.retransmit_head);
        assert_eq!(c.cwnd(), 5_000);
    }

    #[test]
    fn tahoe_fast_retransmit_returns_to_one_segment() {
        // Tahoe: loss window, slow start again, no inflation.
        let mut c = cc(CongestionVariant::Tahoe, 10);
        c.on_duplicate_ack(0, 10_000, 10_000);
        c.on_duplicate_ack(0, 10_000, 10_000);
        assert_eq!(c.on_duplicate_ack(0, 10_000, 10_000), DupAckAction::GoBackN);
        assert_eq!((c.ssthresh(), c.cwnd()), (5_000, 1_000));
        assert!(!c.in_recovery());
        assert_eq!(c.on_duplicate_ack(0, 10_000, 10_000), DupAckAction::None);
        assert_eq!(c.cwnd(), 1_000, "further dupacks do nothing");
        c.on_new_ack(1_000, 1_000);
        assert_eq!(c.cwnd(), 2_000, "slow start");
    }

    #[test]
    fn timeout_sets_loss_window_and_holds_ssthresh_when_repeated() {
        // RFC 5681 §3.1: LW = 1 SMSS, ssthresh held constant on a repeated timeout.
        let mut c = cc(CongestionVariant::Reno, 10);
        c.on_timeout(10_000, 10_000, false);
        assert_eq!((c.ssthresh(), c.cwnd()), (5_000, 1_000));
        c.on_timeout(10_000, 10_000, true);
        assert_eq!((c.ssthresh(), c.cwnd()), (5_000, 1_000));
    }

    #[test]
    fn timeout_during_recovery_keeps_the_recovery_ssthresh() {
        // Fast retransmit with 10 segments out: ssthresh 5 000. Recovery sends 30 more
        // segments on inflated cwnd, then times out with FlightSize 40 000: ssthresh stays
        // 5 000 (not 20 000), as Linux's tcp_enter_loss; RFC 5681 allows "no more than"
        // FlightSize/2.
        let mut c = cc(CongestionVariant::NewReno, 10);
        for _ in 0..3 {
            c.on_duplicate_ack(0, 10_000, 10_000);
        }
        assert_eq!(c.ssthresh(), 5_000);
        c.on_timeout(40_000, 40_000, false);
        assert_eq!((c.ssthresh(), c.cwnd()), (5_000, 1_000));
        // Outside recovery a timeout halves the flight as usual.
        let mut d = cc(CongestionVariant::NewReno, 10);
        d.on_timeout(40_000, 40_000, false);
        assert_eq!(d.ssthresh(), 20_000);
    }

    #[test]
    fn timeout_abandons_fast_recovery() {
        let mut c = cc(CongestionVariant::NewReno, 10);
        for _ in 0..3 {
            c.on_duplicate_ack(0, 10_000, 10_000);
        }
        c.on_timeout(10_000, 12_000, false);
        assert!(!c.in_recovery());
        assert_eq!(c.cwnd(), 1_000);
        assert_eq!(c.recover_end(), Some(12_000), "RFC 6582 step 4");
    }

    #[test]
    fn newreno_does_not_fast_retransmit_for_acks_within_recover() {
        // RFC 6582 §3.2 step 2: after a timeout with 10 segments outstanding, dupacks whose
        // ACK does not cover more than recover are ignored ...
        let mut c = cc(CongestionVariant::NewReno, 10);
        c.on_timeout(10_000, 10_000, false);
        for _ in 0..5 {
            assert_eq!(c.on_duplicate_ack(7_000, 3_000, 10_000), DupAckAction::None);
        }
        assert_eq!(c.ssthresh(), 5_000, "ssthresh not reset");
        // ... also when the ACK equals recover + 1 (ack − 1 > recover is required) ...
        c.on_new_ack(10_000, 3_000);
        for _ in 0..3 {
            assert_eq!(
                c.on_duplicate_ack(10_000, 2_000, 12_000),
                DupAckAction::None
            );
        }
        // ... but beyond it fast retransmit works again.
        c.on_new_ack(11_000, 1_000);
        let actions: Vec<_> = (0..3)
            .map(|_| c.on_duplicate_ack(11_000, 4_000, 15_000))
            .collect();
        assert_eq!(actions[2], DupAckAction::RetransmitHead);
    }

    #[test]
    fn reno_has_no_recover_check() {
        let mut c = cc(CongestionVariant::Reno, 10);
        c.on_timeout(10_000, 10_000, false);
        c.on_duplicate_ack(7_000, 3_000, 10_000);
        c.on_duplicate_ack(7_000, 3_000, 10_000);
        assert_eq!(
            c.on_duplicate_ack(7_000, 3_000, 10_000),
            DupAckAction::RetransmitHead
        );
    }

    #[test]
    fn dupack_threshold_is_configurable() {
        let cfg = TcpConfig {
            mss: 1000,
            initial_cwnd_segments: 10,
            dupack_threshold: 5,
            ..TcpConfig::default()
        };
        let mut c = Congestion::new(&cfg);
        for _ in 0..4 {
            assert_eq!(c.on_duplicate_ack(0, 10_000, 10_000), DupAckAction::None);
        }
        assert_eq!(
            c.on_duplicate_ack(0, 10_000, 10_000),
            DupAckAction::RetransmitHead
        );
        assert_eq!(c.cwnd(), 5_000 + 5_000, "inflated by the threshold");
    }
}
