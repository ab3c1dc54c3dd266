//! Bit error rate as a function of the signal-to-noise(-plus-interference) ratio for the
//! 802.11b, 802.11a/g and Bluetooth modulations.
//!
//! The SNR is the linear ratio of received signal power to noise (plus interference)
//! power in the receiver's bandwidth (22 MHz for 802.11b, 20 MHz for OFDM, 1 MHz for
//! Bluetooth). [`Modulation::ber`] returns the *effective* bit error rate: the rate that,
//! in `PER = 1 − (1 − BER)^bits`, gives the packet error rate of the model cited. Sources:
//!
//! - **802.11b DSSS/CCK**: ns-3's `DsssErrorRateModel` (G. Pei, 2010; the GSL variant),
//!   which the ns-3 802.11b validation uses. Processing gain: Eb/N0 = SNR · 22 MHz / symbol
//!   rate / bits per symbol.
//!   - 1 Mbit/s DBPSK: `BER = ½ exp(−Eb/N0)`, Eb/N0 = 22·SNR (differentially coherent
//!     BPSK; Proakis, *Digital Communications*, 4th ed., eq. 5.2-69).
//!   - 2 Mbit/s DQPSK: `BER = (√2 + 1)/√(8π√2) · (Eb/N0)^{−½} · exp(−(2 − √2) Eb/N0)`,
//!     Eb/N0 = 11·SNR (the large-SNR approximation for DQPSK with Gray coding).
//!   - 5.5 / 11 Mbit/s CCK: symbol error probability of the CCK code sets as M-ary
//!     biorthogonal-like signalling, `SEP_16(e) = 1 − ∫_{−β}^{∞} (2Φ(x + β) − 1)^{7} φ(x) dx`
//!     with β = √(2e), e = 2 Eb/N0 and Eb/N0 = SNR · 22/1.375/4 (5.5 Mbit/s, 4 bits per
//!     symbol); 11 Mbit/s (8 bits per symbol, Eb/N0 = SNR · 22/1.375/8, e = 4 Eb/N0):
//!     `SEP_256(e) = 1 − (1 − SEP_16(e/2))²`. A packet survives with `(1 − SEP)^{bits/k}`
//!     (k bits per symbol), so the effective BER is `1 − (1 − SEP)^{1/k}`. The integral is
//!     computed as `Q(β) + ∫ (1 − (1 − 2Q(x+β))^7) φ(x) dx` (no cancellation) by composite
//!     Simpson with 4 000 panels (≈ 100 µs: a medium should tabulate it, not call it per
//!     packet).
//! - **802.11a/g OFDM** (6 … 54 Mbit/s): the NIST error rate model (G. Pei and T. R.
//!   Henderson, "Validation of OFDM error rate model in ns-3", Boeing, 2010). Uncoded BER
//!   of the subcarrier constellation: BPSK `½ erfc(√SNR)`, QPSK `½ erfc(√(SNR/2))`, 16-QAM
//!   `¾ · ½ erfc(√(SNR/10))`, 64-QAM `7/12 · ½ erfc(√(SNR/42))`; then the union bound of
//!   the convolutional code with hard-decision Viterbi decoding,
//!   `P_e ≤ (1/b) Σ_d a_d P_d` with the Chernoff bound `P_d ≈ D^d`, `D = √(4p(1 − p))`,
//!   and the distance spectra of the rate-1/2 (dfree 10) code and its punctured 2/3 and
//!   3/4 versions (Frenger, Orten, Ottosson, IEEE Comm. Letters 3(11), 1999, tables as
//!   used by Pei & Henderson); capped at 1. Rates: 6 = BPSK ½, 9 = BPSK ¾, 12 = QPSK ½,
//!   18 = QPSK ¾, 24 = 16-QAM ½, 36 = 16-QAM ¾, 48 = 64-QAM ⅔, 54 = 64-QAM ¾ (IEEE
//!   802.11-2016 Table 17-4).
//! - **802.11n/ac/ax MCS** (per-stream MCS 0 … 11, [`Modulation::Mcs`]): the same NIST
//!   construction extended as ns-3's `NistErrorRateModel` extends it: the uncoded BER of
//!   square M-QAM with Gray coding, `(2/log₂M)(1 − 1/√M) · ½ erfc(√(3·SNR / (2(M − 1))))`
//!   (which is the 16- and 64-QAM expressions above; 256-QAM `15/64 · ½ erfc(√(SNR/170))`,
//!   1024-QAM `31/160 · ½ erfc(√(SNR/682))`), then the BCC union bound, for rate ⅚ with the
//!   distance spectrum of the punctured code in Haccoun and Bégin, IEEE Trans. Commun.
//!   37(11), 1989, Table V (dfree 4, b = 5). Approximations, stated: the SNR is the per-
//!   stream SNR over the channel's bandwidth (no MIMO combining gain, no power split
//!   between streams, as ns-3 with as many receive antennas as streams); the union bound
//!   of the BCC stands in for LDPC (HE) as well, so HE curves are conservative by the
//!   ~2 dB LDPC coding gain.
//! - **Bluetooth GFSK** (1 Mbit/s in 1 MHz, so Eb/N0 = SNR): non-coherent binary FSK,
//!   `BER = ½ exp(−Eb/(2N0))` (Proakis, 4th ed., eq. 5.4-47). Bluetooth's modulation index
//!   (0.28–0.35) makes its tones non-orthogonal, so a real receiver needs a few dB more;
//!   this is the common first-order model (used, with measured curves, by Golmie et al.).
//!
//! Documented curve crossings (tested): the BER = 10⁻⁵ SNR thresholds in
//! `docs/channels.md`, and the SNR at which 802.11b's 11 Mbit/s CCK and 802.11g's
//! 12 Mbit/s QPSK ½ have equal BER.

use std::f64::consts::{FRAC_1_SQRT_2, PI, SQRT_2};

/// Gaussian tail `Q(x) = ½ erfc(x/√2)`.
#[inline]
pub fn q_function(x: f64) -> f64 {
    0.5 * libm::erfc(x * FRAC_1_SQRT_2)
}

/// A PHY rate and its modulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Modulation {
    /// 802.11b 1 Mbit/s DBPSK.
    Dsss1,
    /// 802.11b 2 Mbit/s DQPSK.
    Dsss2,
    /// 802.11b 5.5 Mbit/s CCK.
    Cck5_5,
    /// 802.11b 11 Mbit/s CCK.
    Cck11,
    /// 802.11a/g OFDM at this rate in Mbit/s (6, 9, 12, 18, 24, 36, 48, 54).
    Ofdm(u8),
    /// Bluetooth basic rate GFSK, 1 Mbit/s.
    Gfsk,
    /// An 802.11n/ac/ax data subcarrier's modulation and coding: per-stream MCS 0 … 11
    /// (BPSK ½ … 1024-QAM ⅚; HT MCS `8·(N_SS − 1) + m` uses `m`). Not a scenario name.
    Mcs(u8),
}

/// Subcarrier constellations of the OFDM rates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Constellation {
    Bpsk,
    Qpsk,
    Qam16,
    Qam64,
    Qam256,
    Qam1024,
}

/// Convolutional code rates of the OFDM rates (b in the union bound: 1/2 → 1, 2/3 → 2,
/// 3/4 → 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CodeRate {
    Half,
    TwoThirds,
    ThreeQuarters,
    FiveSixths,
}

impl Modulation {
    /// Every modulation, for tables and tests.
    pub const ALL: [Modulation; 13] = [
        Modulation::Dsss1,
        Modulation::Dsss2,
        Modulation::Cck5_5,
        Modulation::Cck11,
        Modulation::Ofdm(6),
        Modulation::Ofdm(9),
        Modulation::Ofdm(12),
        Modulation::Ofdm(18),
        Modulation::Ofdm(24),
        Modulation::Ofdm(36),
        Modulation::Ofdm(48),
        Modulation::Ofdm(54),
        Modulation::Gfsk,
    ];

    /// The name used in scenarios and Python: "dsss1", "dsss2", "cck5.5", "cck11",
    /// "ofdm6" … "ofdm54", "gfsk".
    pub fn name(self) -> String {
        match self {
            Modulation::Dsss1 => "dsss1".into(),
            Modulation::Dsss2 => "dsss2".into(),
            Modulation::Cck5_5 => "cck5.5".into(),
            Modulation::Cck11 => "cck11".into(),
            Modulation::Ofdm(r) => format!("ofdm{r}"),
            Modulation::Gfsk => "gfsk".into(),
            Modulation::Mcs(m) => format!("mcs{m}"),
        }
    }

    /// Parses a name of [`Modulation::name`]; the error lists the valid names.
    pub fn parse(s: &str) -> Result<Modulation, String> {
        Modulation::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                let names: Vec<String> = Modulation::ALL.iter().map(|m| m.name()).collect();
                format!(
                    "\"{s}\" is not a modulation; use one of {}",
                    names.join(", ")
                )
            })
    }

    /// Data rate in bit/s (an 802.11n/ac/ax MCS: its rate with one stream at 20 MHz and
    /// the 0.8 µs GI, N_DBPS/4 µs with 52 data subcarriers).
    pub fn rate_bps(self) -> u64 {
        match self {
            Modulation::Dsss1 | Modulation::Gfsk => 1_000_000,
            Modulation::Dsss2 => 2_000_000,
            Modulation::Cck5_5 => 5_500_000,
            Modulation::Cck11 => 11_000_000,
            Modulation::Ofdm(r) => r as u64 * 1_000_000,
            Modulation::Mcs(m) => {
                let (c, code) = Modulation::mcs(m).unwrap_or((Constellation::Bpsk, CodeRate::Half));
                let bits = match c {
                    Constellation::Bpsk => 1,
                    Constellation::Qpsk => 2,
                    Constellation::Qam16 => 4,
                    Constellation::Qam64 => 6,
                    Constellation::Qam256 => 8,
                    Constellation::Qam1024 => 10,
                };
                let (num, den) = match code {
                    CodeRate::Half => (1, 2),
                    CodeRate::TwoThirds => (2, 3),
                    CodeRate::ThreeQuarters => (3, 4),
                    CodeRate::FiveSixths => (5, 6),
                };
                52 * bits * num / den * 250_000
            }
        }
    }

    fn ofdm(rate: u8) -> Option<(Constellation, CodeRate)> {
        use CodeRate::*;
        use Constellation::*;
        Some(match rate {
            6 => (Bpsk, Half),
            9 => (Bpsk, ThreeQuarters),
            12 => (Qpsk, Half),
            18 => (Qpsk, ThreeQuarters),
            24 => (Qam16, Half),
            36 => (Qam16, ThreeQuarters),
            48 => (Qam64, TwoThirds),
            54 => (Qam64, ThreeQuarters),
            _ => return None,
        })
    }

    /// Constellation and code rate of per-stream MCS `m` (IEEE 802.11-2020 Table 19-27
    /// for 0–7, Table 21-30 for 8–9, 802.11ax Table 27-55 for 10–11).
    fn mcs(m: u8) -> Option<(Constellation, CodeRate)> {
        use CodeRate::*;
        use Constellation::*;
        Some(match m {
            0 => (Bpsk, Half),
            1 => (Qpsk, Half),
            2 => (Qpsk, ThreeQuarters),
            3 => (Qam16, Half),
            4 => (Qam16, ThreeQuarters),
            5 => (Qam64, TwoThirds),
            6 => (Qam64, ThreeQuarters),
            7 => (Qam64, FiveSixths),
            8 => (Qam256, ThreeQuarters),
            9 => (Qam256, FiveSixths),
            10 => (Qam1024, ThreeQuarters),
            11 => (Qam1024, FiveSixths),
            _ => return None,
        })
    }

    /// Effective bit error rate at linear SNR `snr` (module doc). An OFDM rate other than
    /// the eight of 802.11a/g has BER 0.5.
    pub fn ber(self, snr: f64) -> f64 {
        let snr = snr.max(0.0);
        match self {
            Modulation::Dsss1 => 0.5 * (-(snr * 22.0)).exp(),
            Modulation::Dsss2 => dqpsk_ber(snr * 11.0),
            Modulation::Cck5_5 => {
                let ebn0 = snr * 22.0 / 1.375 / 4.0;
                let sep = sep_16cck(2.0 * ebn0);
                1.0 - (1.0 - sep).powf(0.25)
            }
            Modulation::Cck11 => {
                let ebn0 = snr * 22.0 / 1.375 / 8.0;
                let s16 = sep_16cck(4.0 * ebn0 / 2.0);
                let sep = 1.0 - (1.0 - s16) * (1.0 - s16);
                1.0 - (1.0 - sep).powf(0.125)
            }
            Modulation::Ofdm(r) => match Modulation::ofdm(r) {
                Some((c, code)) => coded_ber(uncoded_ber(c, snr), code),
                None => 0.5,
            },
            Modulation::Gfsk => 0.5 * (-snr / 2.0).exp(),
            Modulation::Mcs(m) => match Modulation::mcs(m) {
                Some((c, code)) => coded_ber(uncoded_ber(c, snr), code),
                None => 0.5,
            },
        }
    }
}

/// DQPSK bit error rate at Eb/N0 (large-SNR approximation, module doc); 0.5 at most.
fn dqpsk_ber(ebn0: f64) -> f64 {
    if ebn0 <= 0.0 {
        return 0.5;
    }
    let c = (SQRT_2 + 1.0) / (8.0 * PI * SQRT_2).sqrt();
    (c / ebn0.sqrt() * (-(2.0 - SQRT_2) * ebn0).exp()).min(0.5)
}

/// Uncoded BER of an OFDM subcarrier constellation (Pei & Henderson 2010).
fn uncoded_ber(c: Constellation, snr: f64) -> f64 {
    match c {
        Constellation::Bpsk => 0.5 * libm::erfc(snr.sqrt()),
        Constellation::Qpsk => 0.5 * libm::erfc((snr / 2.0).sqrt()),
        Constellation::Qam16 => 0.75 * 0.5 * libm::erfc((snr / 10.0).sqrt()),
        Constellation::Qam64 => 7.0 / 12.0 * 0.5 * libm::erfc((snr / 42.0).sqrt()),
        Constellation::Qam256 => 15.0 / 64.0 * 0.5 * libm::erfc((snr / 170.0).sqrt()),
        Constellation::Qam1024 => 31.0 / 160.0 * 0.5 * libm::erfc((snr / 682.0).sqrt()),
    }
}

/// Distance spectra (a_d from d = dfree) of the 802.11 convolutional code (K = 7,
/// generators 133, 171 octal) and its punctured versions, as in Pei & Henderson 2010.
const SPECTRUM_HALF: (i32, [f64; 9]) = (
    10,
    [
        36.0,
        211.0,
        1404.0,
        11633.0,
        77433.0,
        502690.0,
        3322763.0,
        21292910.0,
        134365911.0,
    ],
);
const SPECTRUM_TWO_THIRDS: (i32, [f64; 10]) = (
    6,
    [
        3.0, 70.0, 285.0, 1276.0, 6160.0, 27128.0, 117019.0, 498860.0, 2103891.0, 8784123.0,
    ],
);
const SPECTRUM_THREE_QUARTERS: (i32, [f64; 10]) = (
    5,
    [
        42.0,
        201.0,
        1492.0,
        10469.0,
        62935.0,
        379644.0,
        2253373.0,
        13073811.0,
        75152755.0,
        428005675.0,
    ],
);

/// Rate ⅚ (Haccoun and Bégin 1989, Table V; ns-3's `NistErrorRateModel`).
const SPECTRUM_FIVE_SIXTHS: (i32, [f64; 10]) = (
    4,
    [
        92.0,
        528.0,
        8694.0,
        79453.0,
        792114.0,
        7375573.0,
        67884974.0,
        610875423.0,
        5427275376.0,
        47664215639.0,
    ],
);

/// Union bound on the decoded bit error rate for channel BER `p` (capped at 1). The
/// rate-1/2 spectrum lists only even distances (every second d).
fn coded_ber(p: f64, code: CodeRate) -> f64 {
    if p <= 0.0 {
        return 0.0;
    }
    let dd = (4.0 * p * (1.0 - p)).sqrt();
    let pe = match code {
        CodeRate::Half => {
            let (d0, a) = SPECTRUM_HALF;
            0.5 * a
                .iter()
                .enumerate()
                .map(|(i, ad)| ad * dd.powi(d0 + 2 * i as i32))
                .sum::<f64>()
        }
        CodeRate::TwoThirds => {
            let (d0, a) = SPECTRUM_TWO_THIRDS;
            a.iter()
                .enumerate()
                .map(|(i, ad)| ad * dd.powi(d0 + i as i32))
                .sum::<f64>()
                / 4.0
        }
        CodeRate::ThreeQuarters => {
            let (d0, a) = SPECTRUM_THREE_QUARTERS;
            a.iter()
                .enumerate()
                .map(|(i, ad)| ad * dd.powi(d0 + i as i32))
                .sum::<f64>()
                / 6.0
        }
        CodeRate::FiveSixths => {
            let (d0, a) = SPECTRUM_FIVE_SIXTHS;
            a.iter()
                .enumerate()
                .map(|(i, ad)| ad * dd.powi(d0 + i as i32))
                .sum::<f64>()
                / 10.0
        }
    };
    pe.min(1.0)
}

/// Symbol error probability of 16-CCK (n = 8 in the integral) at `e` (module doc).
fn sep_16cck(e: f64) -> f64 {
    let beta = (2.0 * e).sqrt();
    let phi = |x: f64| (-0.5 * x * x).exp() / (2.0 * PI).sqrt();
    // 1 − (1 − 2Q(x+β))^7, accurate when Q is tiny.
    let f = |x: f64| {
        let q = q_function(x + beta);
        -libm::expm1(7.0 * libm::log1p(-2.0 * q)) * phi(x)
    };
    let a = (-beta).max(-12.0);
    let b = 12.0f64;
    let tail = q_function(beta);
    if a >= b {
        return tail;
    }
    let n = 4000;
    let h = (b - a) / n as f64;
    let mut s = f(a) + f(b);
    for i in 1..n {
        let x = a + i as f64 * h;
        s += if i % 2 == 1 { 4.0 * f(x) } else { 2.0 * f(x) };
    }
    (tail + s * h / 3.0).clamp(0.0, 1.0)
}

/// The linear SNR at which `m`'s BER falls to `target`, by bisection on the dB scale in
/// [−20, 40] dB (every curve here decreases with SNR).
pub fn snr_for_ber(m: Modulation, target: f64) -> f64 {
    let (mut lo, mut hi) = (-20.0f64, 40.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if m.ber(10f64.powf(mid / 10.0)) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    10f64.powf(0.5 * (lo + hi) / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(x: f64) -> f64 {
        10f64.powf(x / 10.0)
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    /// Reference values computed independently with mpmath (50 digits) from the formulas
    /// cited in the module doc (script in docs/channels.md), at 5 or more SNRs per
    /// modulation; equal to 1e-9 relative (the CCK integral to 1e-6).
    #[test]
    fn ber_equals_the_cited_formulas_at_five_snrs_each() {
        for (m, rel, pts) in super::reference::POINTS {
            assert!(pts.len() >= 5);
            for &(snr_db, expect) in pts.iter() {
                let got = m.ber(db(snr_db));
                assert!(
                    close(got, expect, rel),
                    "{} at {snr_db} dB: {got} vs {expect}",
                    m.name()
                );
            }
        }
    }

    /// The textbook BPSK point: Pb = 1e−5 at Eb/N0 = 9.59 dB (Q(√(2Eb/N0))); OFDM BPSK's
    /// uncoded BER is that curve with SNR = Eb/N0.
    #[test]
    fn uncoded_bpsk_reaches_1e_minus_5_at_9_59_db() {
        let p = uncoded_ber(Constellation::Bpsk, db(9.5879));
        assert!((p - 1e-5).abs() < 1e-8, "{p}");
    }

    /// Documented crossings (docs/channels.md): the SNR at which each curve reaches
    /// BER 1e−5, to 0.01 dB, and that faster rates need more SNR within each family.
    #[test]
    fn ber_curves_cross_1e_minus_5_at_the_documented_snrs() {
        for (m, thr_db) in super::reference::THRESHOLDS_1E5 {
            let got = 10.0 * snr_for_ber(m, 1e-5).log10();
            assert!(
                (got - thr_db).abs() < 0.01,
                "{}: {got} dB vs {thr_db} dB",
                m.name()
            );
        }
        let t = |m| snr_for_ber(m, 1e-5);
        assert!(t(Modulation::Dsss1) < t(Modulation::Dsss2));
        assert!(t(Modulation::Dsss2) < t(Modulation::Cck5_5));
        assert!(t(Modulation::Cck5_5) < t(Modulation::Cck11));
        let ofdm = [6, 9, 12, 18, 24, 36, 48, 54];
        for w in ofdm.windows(2) {
            assert!(
                t(Modulation::Ofdm(w[0])) < t(Modulation::Ofdm(w[1])),
                "{w:?}"
            );
        }
    }

    #[test]
    fn names_round_trip() {
        for m in Modulation::ALL {
            assert_eq!(Modulation::parse(&m.name()), Ok(m));
        }
        assert!(Modulation::parse("qam").unwrap_err().contains("cck11"));
    }

    /// The HT/VHT/HE MCS curves (module doc). MCS 0–6 are the 802.11a curve of the same
    /// modulation and code rate exactly (6, 12, 18, 24, 36, 48, 54 Mb/s: IEEE 802.11-2020
    /// Tables 17-4 and 19-27). Reference for the whole ladder: the receiver minimum input
    /// sensitivity of the standard (PER 10 % for a 4096-octet PSDU, 20 MHz: HT Table 19-23
    /// −82, −79, −77, −74, −70, −66, −65, −64 dBm for MCS 0–7; VHT Table 21-25 −59, −57 for
    /// MCS 8–9; 802.11ax, HE minimum input sensitivity, −54, −52 for MCS 10–11): the SNR at which a
    /// 4096-octet PSDU has PER 10 % under these curves, relative to MCS 0, follows the
    /// table's steps relative to MCS 0 within 2 dB (the noise figure and implementation
    /// margin cancel in the differences).
    #[test]
    fn mcs_curves_follow_the_standards_sensitivity_steps() {
        use Modulation::{Mcs, Ofdm};
        for (m, r) in [
            (0u8, 6u8),
            (1, 12),
            (2, 18),
            (3, 24),
            (4, 36),
            (5, 48),
            (6, 54),
        ] {
            for snr_db in [0.0, 5.0, 10.0, 20.0, 30.0] {
                assert_eq!(Mcs(m).ber(db(snr_db)), Ofdm(r).ber(db(snr_db)), "MCS {m}");
            }
        }
        let per10 = |m: u8| {
            let (mut lo, mut hi) = (-20.0f64, 50.0f64);
            for _ in 0..100 {
                let mid = 0.5 * (lo + hi);
                let per = 1.0 - (1.0 - Mcs(m).ber(db(mid))).powf(4096.0 * 8.0);
                if per > 0.1 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            0.5 * (lo + hi)
        };
        let sens = [
            -82.0, -79.0, -77.0, -74.0, -70.0, -66.0, -65.0, -64.0, -59.0, -57.0, -54.0, -52.0,
        ];
        let base = per10(0);
        for (m, s) in sens.iter().enumerate() {
            let got = per10(m as u8) - base;
            let want = s - sens[0];
            println!("MCS {m}: +{got:.2} dB vs the table's +{want} dB");
            assert!((got - want).abs() <= 2.0, "MCS {m}: {got} vs {want}");
        }
    }
}

/// Reference values for the tests, printed by `tools/channel_reference.py` (the cited
/// formulas evaluated with mpmath at 50 digits, printed to 17 significant digits).
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod reference {
    use super::Modulation;
    use super::Modulation::*;

    /// (modulation, relative tolerance, [(SNR dB, BER)]).
    pub type Points = (Modulation, f64, &'static [(f64, f64)]);

    pub const POINTS: [Points; 13] = [
        (
            Dsss1,
            1e-9,
            &[
                (-12.0, 0.12477373044704816),
                (-10.0, 0.055401579181166942),
                (-8.0, 0.015299850773850822),
                (-6.0, 0.0019906434916439355),
                (-4.0, 7.8571231833232352e-5),
                (-2.0, 4.6827563106666723e-7),
            ],
        ),
        (
            Dsss2,
            1e-9,
            &[
                (-8.0, 0.11045331322666697),
                (-6.0, 0.048279756065224985),
                (-4.0, 0.014880656465573329),
                (-2.0, 0.0026363580117293783),
                (0.0, 0.00019420478319069855),
                (2.0, 3.5601660279476491e-6),
            ],
        ),
        (
            Cck5_5,
            1e-6,
            &[
                (-4.0, 0.065791763464465888),
                (-2.0, 0.026208530805931758),
                (0.0, 0.0060544626118540763),
                (2.0, 0.00056570248306613084),
                (4.0, 1.2426859669787356e-5),
                (6.0, 2.903006556899615e-8),
            ],
        ),
        (
            Cck11,
            1e-6,
            &[
                (-2.0, 0.091672229553783079),
                (0.0, 0.043931331064230863),
                (2.0, 0.013841840216202544),
                (4.0, 0.0021596876202001036),
                (6.0, 0.00010687888750588213),
                (8.0, 8.7341146540687415e-7),
            ],
        ),
        (
            Ofdm(6),
            1e-9,
            &[
                (2.0, 0.0087692103635066261),
                (3.0, 0.00024428171480195207),
                (4.0, 7.6202468283872463e-6),
                (5.0, 1.5602226958228484e-7),
                (6.0, 1.4996807667976848e-9),
                (7.0, 5.1502863907058776e-12),
            ],
        ),
        (
            Ofdm(9),
            1e-9,
            &[
                (4.0, 0.20476175732724939),
                (5.0, 0.0045309466539315014),
                (6.0, 0.00014583737610899112),
                (7.0, 5.3420971213858462e-6),
                (8.0, 1.3142342350343797e-7),
                (9.0, 1.5578703435726314e-9),
            ],
        ),
        (
            Ofdm(12),
            1e-9,
            &[
                (5.0, 0.009118044772307956),
                (6.0, 0.00025304730026152452),
                (7.0, 7.9086294302922891e-6),
                (8.0, 1.6294782100409977e-7),
                (9.0, 1.5806943872865618e-9),
                (10.0, 5.4942697218590313e-12),
            ],
        ),
        (
            Ofdm(18),
            1e-9,
            &[
                (7.0, 0.21297251914993404),
                (8.0, 0.0047058366870795155),
                (9.0, 0.00015082759926622959),
                (10.0, 5.5345855455243835e-6),
                (11.0, 1.3697843251822917e-7),
                (12.0, 1.6382977621203753e-9),
            ],
        ),
        (
            Ofdm(24),
            1e-9,
            &[
                (10.0, 0.67365733036363455),
                (11.0, 0.024804660357961353),
                (12.0, 0.00095714710935907872),
                (13.0, 4.4004544405759825e-5),
                (14.0, 1.6477684701251764e-6),
                (15.0, 3.5796132164660866e-8),
            ],
        ),
        (
            Ofdm(36),
            1e-9,
            &[
                (14.0, 0.041856774082297841),
                (15.0, 0.0013475339740905763),
                (16.0, 5.9396670522263654e-5),
                (17.0, 2.4443014740225904e-6),
                (18.0, 6.2556544283973196e-8),
                (19.0, 7.5263422404225921e-10),
            ],
        ),
        (
            Ofdm(48),
            1e-9,
            &[
                (18.0, 0.17523619732241546),
                (19.0, 0.010768329531579348),
                (20.0, 0.00055905568800780697),
                (21.0, 2.6987383495260387e-5),
                (22.0, 1.0353436813807509e-6),
                (23.0, 2.5049583022358291e-8),
            ],
        ),
        (
            Ofdm(54),
            1e-9,
            &[
                (19.0, 0.61650783263331194),
                (20.0, 0.024888321574008373),
                (21.0, 0.0010449053227354479),
                (22.0, 5.565324310973336e-5),
                (23.0, 2.6709908685643483e-6),
                (24.0, 8.1171682610829404e-8),
            ],
        ),
        (
            Gfsk,
            1e-9,
            &[
                (6.0, 0.068311098222614817),
                (8.0, 0.021323747889132948),
                (10.0, 0.0033689734995427335),
                (12.0, 0.0001808915020055879),
                (14.0, 1.7558116345776564e-6),
                (16.0, 1.132876675884519e-9),
            ],
        ),
    ];
    pub const THRESHOLDS_1E5: [(Modulation, f64); 13] = [
        (Dsss1, -3.0820432),
        (Dsss2, 1.5608296),
        (Cck5_5, 4.0899892),
        (Cck11, 7.1002892),
        (Ofdm(6), 3.9243446),
        (Ofdm(9), 6.815744),
        (Ofdm(12), 6.9346445),
        (Ofdm(18), 9.8260439),
        (Ofdm(24), 13.466213),
        (Ofdm(36), 16.570634),
        (Ofdm(48), 21.315658),
        (Ofdm(54), 22.578001),
        (Gfsk, 13.352484),
    ];
}
