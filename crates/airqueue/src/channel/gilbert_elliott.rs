//! The continuous-time Gilbert-Elliott channel: a two-state Markov chain (good, bad) with
//! exponentially distributed sojourns of means ρG and ρB and a bit error rate per state
//! (thesis, seed 001, §3.1.3, after its ref. [5]; one chain per master–slave pair).
//!
//! **Lazy evaluation.** The chain schedules no events: it remembers its current state,
//! when that state began and when it ends, and advances (drawing the next sojourns) only
//! when a transmission asks about a time past the end. A channel nobody uses costs
//! nothing, and the run's event count does not depend on it.
//!
//! **Packets spanning a state change.** A packet on the air during `[t0, t1)` sees each
//! state for the share of its bits sent in that state: with `f_G + f_B = 1` the fractions
//! of `[t0, t1)` spent in each state, it survives with probability
//! `(1 − P_G)^{f_G·L} (1 − P_B)^{f_B·L}`. That is exact for independent bit errors at a
//! constant bit rate, and it makes a long packet more exposed to a state change than a
//! short one, as on a real channel. The thesis instead evaluates the state when the
//! packet is received; for its parameters (DH5 lasts 3.125 ms, ρB = 55.8 ms) fewer than
//! 1.5 % of the packets span a change, and its closed form below ignores them.
//!
//! **Start.** The initial state is drawn from the stationary distribution
//! `P_G = ρG/(ρG + ρB)`; with exponential sojourns (memoryless) the chain is then
//! stationary from time zero. A mean of zero makes that state unreachable (ρB = 0 is the
//! thesis's error-free-bad-state row of Table 5.2).
//!
//! **Streams.** One chain per link direction, drawing from its own stream
//! (`link:<link>:<a>-><b>:ge`).
//!
//! Queries must come in non-decreasing `t0` order per chain (as transmissions on one
//! link direction do); a query that starts before the current sojourn is counted from the
//! start of the current sojourn.

use super::bit_error::{log_bit_success, per, success_from_log};
use crate::engine::{SimRng, SimTime};
use rand::Rng;

/// A state of the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeState {
    Good,
    Bad,
}

/// Parameters of the continuous-time Gilbert-Elliott channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GilbertElliottParams {
    /// ρG: mean sojourn in the good state.
    pub mean_good: SimTime,
    /// ρB: mean sojourn in the bad state.
    pub mean_bad: SimTime,
    /// P_G: bit error rate in the good state.
    pub ber_good: f64,
    /// P_B: bit error rate in the bad state.
    pub ber_bad: f64,
}

/// Stationary probabilities `(P_g, P_b) = (ρG, ρB)/(ρG + ρB)` of a chain with mean
/// sojourns ρG, ρB (thesis §5, the 1-hop success rate). Both zero gives (1, 0).
pub fn stationary(mean_good: f64, mean_bad: f64) -> (f64, f64) {
    let total = mean_good + mean_bad;
    if total <= 0.0 {
        return (1.0, 0.0);
    }
    (mean_good / total, mean_bad / total)
}

/// Expected success of one packet of `bits` bits: `(1 − PER_G) P_g + (1 − PER_B) P_b`
/// (thesis §5, success rate of a packet for one hop; the state is taken as constant
/// during the packet).
pub fn expected_success(
    ber_good: f64,
    ber_bad: f64,
    mean_good: f64,
    mean_bad: f64,
    bits: f64,
) -> f64 {
    let (pg, pb) = stationary(mean_good, mean_bad);
    (1.0 - per(ber_good, bits)) * pg + (1.0 - per(ber_bad, bits)) * pb
}

/// One lazily evaluated continuous-time Gilbert-Elliott chain.
pub struct GilbertElliott {
    state: GeState,
    /// When the current sojourn began.
    since: SimTime,
    /// When it ends (`SimTime::MAX` when the other state is unreachable).
    until: SimTime,
    /// Mean sojourns in ns, as f64 for the exponential draws: [good, bad].
    mean_ns: [f64; 2],
    /// `ln(1 − BER)` per state: [good, bad].
    ln_q: [f64; 2],
    rng: SimRng,
}

#[inline]
fn idx(s: GeState) -> usize {
    match s {
        GeState::Good => 0,
        GeState::Bad => 1,
    }
}

impl GilbertElliott {
    /// A chain starting at `start` in a state drawn from the stationary distribution.
    pub fn new(p: GilbertElliottParams, mut rng: SimRng, start: SimTime) -> Self {
        let mean_ns = [p.mean_good.0 as f64, p.mean_bad.0 as f64];
        let (pg, _) = stationary(mean_ns[0], mean_ns[1]);
        let state = if rng.random::<f64>() < pg {
            GeState::Good
        } else {
            GeState::Bad
        };
        let mut ge = GilbertElliott {
            state,
            since: start,
            until: start,
            mean_ns,
            ln_q: [log_bit_success(p.ber_good), log_bit_success(p.ber_bad)],
            rng,
        };
        ge.until = ge.sojourn_end(start);
        ge
    }

    /// The end of a sojourn in the current state that begins at `from`: an exponential
    /// draw of the state's mean, rounded to the nearest ns (at least 1 ns so that time
    /// advances), or never when the other state cannot be entered.
    fn sojourn_end(&mut self, from: SimTime) -> SimTime {
        let other = 1 - idx(self.state);
        if self.mean_ns[other] <= 0.0 {
            return SimTime::MAX;
        }
        let mean = self.mean_ns[idx(self.state)];
        // 1 − U lies in (0, 1], so the logarithm is finite.
        let u: f64 = self.rng.random();
        let d = (-mean * (1.0 - u).ln()).round().max(1.0);
        from + SimTime(d as u64)
    }

    /// Moves the chain forward until its current sojourn contains `now`.
    #[inline]
    pub fn advance(&mut self, now: SimTime) {
        while self.until <= now {
            self.state = match self.state {
                GeState::Good => GeState::Bad,
                GeState::Bad => GeState::Good,
            };
            self.since = self.until;
            self.until = self.sojourn_end(self.since);
        }
    }

    /// The state at `now` (advancing the chain).
    pub fn state_at(&mut self, now: SimTime) -> GeState {
        self.advance(now);
        self.state
    }

    /// The current sojourn: its state, start and end.
    pub fn sojourn(&self) -> (GeState, SimTime, SimTime) {
        (self.state, self.since, self.until)
    }

    /// Probability that a packet of `bits` bits on the air during `[t0, t1)` arrives
    /// intact, each state applying to its share of the bits (module doc).
    #[inline]
    pub fn success_probability(&mut self, t0: SimTime, t1: SimTime, bits: u64) -> f64 {
        self.advance(t0);
        if t1 <= self.until {
            return success_from_log(self.ln_q[idx(self.state)], bits as f64);
        }
        self.spanning_success(t0, t1, bits)
    }

    /// The rare case of a packet that outlives the current sojourn.
    #[cold]
    fn spanning_success(&mut self, t0: SimTime, t1: SimTime, bits: u64) -> f64 {
        let mut time_in = [0u64; 2];
        let mut t = t0.max(self.since);
        while self.until < t1 {
            time_in[idx(self.state)] += self.until.0 - t.0;
            t = self.until;
            self.advance(t);
        }
        time_in[idx(self.state)] += t1.0.saturating_sub(t.0);
        let total = (time_in[0] + time_in[1]).max(1) as f64;
        let b = bits as f64;
        let log_s = b * (time_in[0] as f64 / total) * self.ln_q[0]
            + b * (time_in[1] as f64 / total) * self.ln_q[1];
        if b <= 0.0 {
            1.0
        } else {
            log_s.exp()
        }
    }

    /// Draws whether a packet of `bits` bits on the air during `[t0, t1)` is corrupted.
    #[inline]
    pub fn lost(&mut self, t0: SimTime, t1: SimTime, bits: u64) -> bool {
        let s = self.success_probability(t0, t1, bits);
        self.rng.random::<f64>() >= s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::bit_error::success_over_hops;
    use crate::engine::stream;

    /// Seed 001 §3.1.3 parameters.
    fn thesis(ber_good: f64, ber_bad: f64) -> GilbertElliottParams {
        GilbertElliottParams {
            mean_good: SimTime(437_500_000),
            mean_bad: SimTime(55_800_000),
            ber_good,
            ber_bad,
        }
    }

    /// The thesis's TCP segment (4 DH5 + 1 DH3) and its ACK (1 DH3), §5: the per-hop
    /// success of each packet, multiplied, then raised to the number of hops.
    fn segment_success(
        per_dh5: (f64, f64),
        per_dh3: (f64, f64),
        rg: f64,
        rb: f64,
        hops: u32,
    ) -> f64 {
        let (pg, pb) = stationary(rg, rb);
        let s5 = (1.0 - per_dh5.0) * pg + (1.0 - per_dh5.1) * pb;
        let s3 = (1.0 - per_dh3.0) * pg + (1.0 - per_dh3.1) * pb;
        success_over_hops(s5.powi(4) * s3.powi(2), hops)
    }

    /// Seed 001 Table 6.2: the 2-hop and 4-hop segment success with the thesis's own
    /// Table 6.1 PERs equals the closed form to the 6 printed digits; with exact PERs it
    /// is within 0.1 % (the table's PERs were rounded).
    #[test]
    fn thesis_table_6_2_two_and_four_hop_segment_success_equals_the_closed_form() {
        let printed = ((0.018483, 0.29004), (0.01002, 0.168825));
        for (hops, table) in [(2u32, 0.59622), (4, 0.355478)] {
            let s = segment_success(printed.0, printed.1, 0.4375, 0.0558, hops);
            assert!(
                (s - table).abs() / table < 5e-6,
                "{hops} hops: {s} vs {table}"
            );
            let exact = (
                (per(6.8979e-6, 2712.0), per(1.263e-4, 2712.0)),
                (per(6.8979e-6, 1464.0), per(1.263e-4, 1464.0)),
            );
            let s = segment_success(exact.0, exact.1, 0.4375, 0.0558, hops);
            assert!(
                (s - table).abs() / table < 1e-3,
                "{hops} hops exact: {s} vs {table}"
            );
        }
    }

    /// Seed 001 Table 5.2, the rows the closed form reproduces: (ρG, ρB) = (437.5, 55.8) ms
    /// and (493.3, 0) ms, with the Table 4.1 PERs, to the printed 4 digits. (Rows 2–6 of
    /// the table are 0.6–5 % below the closed form of the same section for their stated
    /// ρG, ρB; docs/channels.md records the discrepancy.)
    #[test]
    fn thesis_table_5_2_two_hop_segment_success_equals_the_closed_form() {
        let printed = ((0.1702, 0.96753), (0.09581, 0.84279));
        for (rg, rb, table) in [(0.4375, 0.0558, 0.04043), (0.4933, 0.0, 0.15026)] {
            let s = segment_success(printed.0, printed.1, rg, rb, 2);
            assert!(
                (s - table).abs() / table < 5e-4,
                "({rg}, {rb}): {s} vs {table}"
            );
        }
    }

    /// Kolmogorov's limiting distribution: P(√n·D > x) = 2 Σ (−1)^{k−1} e^{−2k²x²}.
    fn kolmogorov_p_value(d: f64, n: usize) -> f64 {
        let x = d * (n as f64).sqrt();
        let mut p = 0.0;
        for k in 1..=100 {
            let k = k as f64;
            let term = 2.0 * (-2.0 * k * k * x * x).exp();
            p += if k as u32 % 2 == 1 { term } else { -term };
        }
        p.clamp(0.0, 1.0)
    }

    /// Seed 001 Table 5.1 / §5.1.1: the simulated mean sojourns equal ρG and ρB within
    /// 2 % over 200 000 sojourns of each, and their distribution passes a
    /// Kolmogorov–Smirnov test against the exponential (p > 0.01).
    #[test]
    fn sojourns_have_means_rho_g_rho_b_within_2_percent_and_pass_ks_against_exponential() {
        let p = thesis(6.8979e-5, 1.263e-3);
        let mut ge = GilbertElliott::new(p, stream(11, "test:ge"), SimTime::ZERO);
        let mut good = Vec::new();
        let mut bad = Vec::new();
        // Skip the first (possibly partial from the caller's view) sojourn.
        let (_, _, end) = ge.sojourn();
        ge.advance(end);
        while good.len() < 200_000 || bad.len() < 200_000 {
            let (s, since, until) = ge.sojourn();
            let d = (until.0 - since.0) as f64;
            match s {
                GeState::Good => good.push(d),
                GeState::Bad => bad.push(d),
            }
            ge.advance(until);
        }
        for (mut v, mean) in [(good, 437.5e6), (bad, 55.8e6)] {
            let m = v.iter().sum::<f64>() / v.len() as f64;
            assert!((m - mean).abs() / mean < 0.02, "mean {m} vs {mean}");
            v.sort_by(f64::total_cmp);
            let n = v.len();
            let mut d: f64 = 0.0;
            for (i, x) in v.iter().enumerate() {
                let f = 1.0 - (-x / mean).exp();
                d = d.max((f - i as f64 / n as f64).abs());
                d = d.max(((i + 1) as f64 / n as f64 - f).abs());
            }
            let pv = kolmogorov_p_value(d, n);
            eprintln!(
                "sojourns: mean {m:.0} ns vs {mean:.0} ns ({:+.3} %), KS D = {d:.5}, p = {pv:.3}",
                (m / mean - 1.0) * 100.0
            );
            assert!(pv > 0.01, "KS D = {d}, p = {pv}");
        }
    }

    /// Seed 001 §5: simulated per-packet success of DH5 packets, one every 3.75 ms
    /// (6 slots) for 20 000 s, is within 2 % of `(1 − PER_G)P_g + (1 − PER_B)P_b`.
    #[test]
    fn simulated_per_packet_success_is_within_2_percent_of_the_closed_form() {
        for (bg, bb) in [(6.8979e-5, 1.263e-3), (6.8979e-6, 1.263e-4)] {
            let p = thesis(bg, bb);
            let mut ge = GilbertElliott::new(p, stream(5, "test:ge:pkt"), SimTime::ZERO);
            let slot = 625_000u64;
            let (mut sent, mut ok) = (0u64, 0u64);
            let mut t = 0u64;
            while t < 20_000_000_000_000 {
                sent += 1;
                if !ge.lost(SimTime(t), SimTime(t + 5 * slot), 2712) {
                    ok += 1;
                }
                t += 6 * slot;
            }
            let sim = ok as f64 / sent as f64;
            let closed = expected_success(bg, bb, 437.5, 55.8, 2712.0);
            eprintln!(
                "per-packet success: {sim:.5} vs {closed:.5} ({:+.3} %), {sent} packets",
                (sim / closed - 1.0) * 100.0
            );
            assert!((sim - closed).abs() / closed < 0.02, "{sim} vs {closed}");
        }
    }

    #[test]
    fn a_packet_spanning_a_change_sees_each_state_for_its_share_of_the_bits() {
        let p = GilbertElliottParams {
            mean_good: SimTime(1_000),
            mean_bad: SimTime(1_000),
            ber_good: 0.0,
            ber_bad: 1e-3,
        };
        let mut ge = GilbertElliott::new(p, stream(2, "test:span"), SimTime::ZERO);
        // Find a packet window that spans exactly one change and check the exposure.
        let (s, _, until) = ge.sojourn();
        let t0 = SimTime(until.0.saturating_sub(10));
        let t1 = until + SimTime(30);
        let mut probe = ge_clone(&ge);
        probe.advance(until);
        let (_, _, next) = probe.sojourn();
        if next < t1 {
            return; // two changes inside 40 ns: not this test's case
        }
        let bad_share = if s == GeState::Good { 30.0 } else { 10.0 } / 40.0;
        let expect = (1000.0 * bad_share * libm::log1p(-1e-3)).exp();
        let got = ge.success_probability(t0, t1, 1000);
        assert!((got - expect).abs() < 1e-12, "{got} vs {expect}");
    }

    fn ge_clone(g: &GilbertElliott) -> GilbertElliott {
        GilbertElliott {
            state: g.state,
            since: g.since,
            until: g.until,
            mean_ns: g.mean_ns,
            ln_q: g.ln_q,
            rng: g.rng.clone(),
        }
    }

    #[test]
    fn a_zero_bad_mean_never_leaves_the_good_state() {
        let mut p = thesis(1e-5, 1e-3);
        p.mean_bad = SimTime::ZERO;
        let mut ge = GilbertElliott::new(p, stream(1, "z"), SimTime::ZERO);
        assert_eq!(ge.state_at(SimTime(1_000_000_000_000)), GeState::Good);
    }
}
