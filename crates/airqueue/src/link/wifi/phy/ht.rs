//! The HT PHY (802.11n; IEEE 802.11-2020 Clause 19), HT-mixed format, BCC coding: data
//! rates and PPDU durations.
//!
//! - **Rates** (§19.3.5, Tables 19-27 … 19-34 for 1–4 equal-modulation streams): MCS
//!   `8·(N_SS − 1) + m`, per-stream MCS `m` = 0 … 7 (BPSK ½ … 64-QAM ⅚, [`super::mcs_coding`]);
//!   `N_DBPS = N_SD · N_SS · N_BPSCS · R` with N_SD = 52 data subcarriers at 20 MHz and 108
//!   at 40 MHz; rate = N_DBPS / T_SYM, T_SYM = 4 µs (long GI, 0.8 µs) or 3.6 µs (short GI,
//!   0.4 µs). MCS 32 (40 MHz duplicate) and the unequal-modulation MCSs 33–76 are not
//!   modelled.
//! - **BCC encoders** N_ES: one per 300 Mbit/s at the short GI (N_DBPS ≤ 1080 bits per
//!   encoder), which reproduces the N_ES column of Tables 19-27 … 19-34 (2 encoders only at
//!   40 MHz for 3 streams from MCS 21 and 4 streams from MCS 28; ns-3's `HtPhy` states the
//!   same rule as 320/350 Mbit/s at the long/short GI).
//! - **TXTIME** (§19.4.3, HT-mixed format):
//!   `T_LEG_PREAMBLE (16) + T_L-SIG (4) + T_HT-SIG (8) + T_HT-STF (4) +
//!   N_LTF · T_HT-LTF (4) + data + signal extension`, with N_LTF = 1, 2, 4, 4 HT-LTFs for 1, 2, 3, 4 streams
//!   (Table 19-13, no STBC, no extension LTFs); data = `4 µs · N_SYM` at the long GI and
//!   `4 µs · ceil(3.6 · N_SYM / 4)` at the short GI; `N_SYM = ceil((8·L + 16 + 6·N_ES) /
//!   N_DBPS)` (SERVICE 16 bits, 6 tail bits per encoder, §19.3.11.5); the signal extension
//!   is 6 µs in the 2.4 GHz band (aSignalExtension, §19.4.4), 0 at 5 GHz.
//!
//! Coding: BCC, the mandatory code and what ath9k sends (its HT LDPC support is receive
//! only on most chips); LDPC (optional in HT) is not modelled.

/// Data subcarriers N_SD at `width_mhz` (Table 19-6), `None` for a width HT lacks.
pub fn n_sd(width_mhz: u32) -> Option<u32> {
    match width_mhz {
        20 => Some(52),
        40 => Some(108),
        _ => None,
    }
}

/// Data bits per OFDM symbol of per-stream MCS `m` (0 … 7) with `nss` streams.
pub fn n_dbps(m: u8, nss: u32, width_mhz: u32) -> u32 {
    let (bpscs, num, den) = super::mcs_coding(m);
    n_sd(width_mhz).expect("an HT width") * nss * bpscs * num / den
}

/// BCC encoders of a PPDU with `n_dbps` data bits per symbol (module doc).
pub fn n_es(n_dbps: u32) -> u32 {
    n_dbps.div_ceil(1080)
}

/// HT-LTFs N_LTF of `nss` streams without STBC (Table 19-13): 1, 2, 4, 4.
pub fn n_ltf(nss: u32) -> u32 {
    match nss {
        1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// The HT-mixed preamble, ns: L-STF, L-LTF, L-SIG, HT-SIG, HT-STF and the HT-LTFs.
pub fn preamble_ns(nss: u32) -> u64 {
    (16 + 4 + 8 + 4 + 4 * n_ltf(nss) as u64) * 1000
}

/// OFDM symbols of an `len`-byte PSDU (BCC; module doc).
pub fn n_sym(len: u32, n_dbps: u32) -> u64 {
    (8 * len as u64 + 16 + 6 * n_es(n_dbps) as u64).div_ceil(n_dbps as u64)
}

/// TXTIME of an HT-mixed PPDU, ns (§19.4.3): a `len`-byte PSDU at per-stream MCS `m`,
/// `nss` streams, `width_mhz`, short GI or not, plus `sig_ext_ns` (6 µs at 2.4 GHz).
pub fn txtime_ns(len: u32, m: u8, nss: u32, width_mhz: u32, sgi: bool, sig_ext_ns: u64) -> u64 {
    let n = n_sym(len, n_dbps(m, nss, width_mhz));
    let data_us = if sgi { 4 * (9 * n).div_ceil(10) } else { 4 * n };
    preamble_ns(nss) + data_us * 1000 + sig_ext_ns
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked by hand from §19.4.3 (not from this code):
    ///
    /// - MCS 7, 20 MHz, long GI, 1500-B PSDU, 5 GHz: N_DBPS = 52·1·6·⅚ = 260, N_ES = 1;
    ///   N_SYM = ceil((12000 + 16 + 6)/260) = ceil(46.24) = 47; TXTIME = 16 + 4 + 8 + 4 +
    ///   4·1 + 4·47 = 36 + 188 = 224 µs.
    /// - MCS 15 (2 streams, 64-QAM ⅚), 40 MHz, short GI, 1500 B, 5 GHz: N_DBPS =
    ///   108·2·6·⅚ = 1080, N_ES = 1; N_SYM = ceil(12022/1080) = ceil(11.13) = 12; data =
    ///   4·ceil(3.6·12/4) = 4·ceil(10.8) = 44 µs; preamble 32 + 4·2 = 40; TXTIME 84 µs.
    /// - MCS 7, 20 MHz, long GI, 1500 B at 2.4 GHz: 224 + 6 µs signal extension = 230 µs.
    /// - MCS 31 (4 streams, 64-QAM ⅚), 40 MHz, long GI, 1500 B: N_DBPS = 108·4·6·⅚ = 2160,
    ///   N_ES = 2 (Table 19-34); N_SYM = ceil((12000 + 16 + 12)/2160) = ceil(5.57) = 6;
    ///   preamble 32 + 4·4 = 48; TXTIME = 48 + 24 = 72 µs.
    /// - 14-B frame at MCS 0, 20 MHz, long GI: N_DBPS 26; ceil((112 + 22)/26) = ceil(5.15)
    ///   = 6 symbols; 36 + 24 = 60 µs.
    #[test]
    fn txtime_matches_hand_worked_19_4_3_values() {
        assert_eq!(txtime_ns(1500, 7, 1, 20, false, 0), 224_000);
        assert_eq!(txtime_ns(1500, 7, 2, 40, true, 0), 84_000);
        assert_eq!(txtime_ns(1500, 7, 1, 20, false, 6_000), 230_000);
        assert_eq!(txtime_ns(1500, 7, 4, 40, false, 0), 72_000);
        assert_eq!(txtime_ns(14, 0, 1, 20, false, 0), 60_000);
    }

    /// N_ES of Tables 19-27 … 19-34: 2 at 40 MHz for MCS 21–23 and 28–31 only.
    #[test]
    fn two_encoders_exactly_where_the_tables_list_them() {
        for w in [20, 40] {
            for mcs in 0..32u8 {
                let (nss, m) = (mcs as u32 / 8 + 1, mcs % 8);
                let want = if w == 40 && matches!(mcs, 21..=23 | 28..=31) {
                    2
                } else {
                    1
                };
                assert_eq!(n_es(n_dbps(m, nss, w)), want, "MCS {mcs} {w} MHz");
            }
        }
    }
}
