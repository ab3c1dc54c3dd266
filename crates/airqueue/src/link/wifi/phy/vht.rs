//! The VHT PHY (802.11ac; IEEE 802.11-2020 Clause 21), single-user PPDUs, BCC coding:
//! data rates, the valid MCS/width/stream combinations and PPDU durations.
//!
//! - **Rates** (§21.5, Tables 21-30 … 21-61 for 1–4 streams): per-stream MCS 0 … 9 (HT's
//!   0–7 plus 256-QAM ¾ and ⅚, [`super::mcs_coding`]); `N_DBPS = N_SD · N_SS · N_BPSCS · R`
//!   with N_SD = 52, 108, 234, 468 at 20, 40, 80, 160 MHz; T_SYM 4 µs (long GI) or 3.6 µs
//!   (short GI).
//! - **BCC encoders** N_ES: one per 600 Mbit/s at the short GI (N_DBPS ≤ 2160 per encoder),
//!   except 160 MHz, 4 streams, MCS 7 where Table 21-60 lists 6 (ns-3's `VhtPhy` keeps the
//!   same rule and exception).
//! - **Valid combinations** (§21.5): the standard lists a combination as "not valid" where
//!   N_DBPS, N_DBPS/N_ES or N_CBPS/N_ES is not an integer; for 1–4 streams that leaves out
//!   MCS 9 at 20 MHz (except 3 streams), MCS 6 at 80 MHz with 3 streams and MCS 9 at
//!   160 MHz with 3 streams. [`valid`] applies the rule; the tests check it against that
//!   list.
//! - **TXTIME** (§21.4.3): `T_LEG_PREAMBLE (16) + T_L-SIG (4) + T_VHT-SIG-A (8) +
//!   T_VHT-STF (4) + N_VHT-LTF · 4 + T_VHT-SIG-B (4) + data`; N_VHT-LTF = 1, 2, 4, 4 for 1–4
//!   streams (Table 21-13); data = `4 µs · N_SYM` (long GI) or `4 µs · ceil(3.6 · N_SYM /
//!   4)` (short GI: the whole PPDU ends on a 4 µs boundary, the rule the short-GI
//!   disambiguation bit of VHT-SIG-A signals); `N_SYM = ceil((8·APEP_LENGTH + 16 +
//!   6·N_ES) / N_DBPS)` (§21.4.3, no STBC). VHT is a 5 GHz PHY: no signal extension.
//!
//! A VHT PPDU's PSDU is always an A-MPDU (IEEE 802.11-2020 §10.12, the "VHT single MPDU"):
//! a lone MPDU goes as an S-MPDU, one A-MPDU subframe (4-byte delimiter, MPDU, padding to
//! 4 bytes; VHT-SIG-B counts APEP_LENGTH in 4-byte units), whose length is APEP_LENGTH;
//! [`super::Phy::duration`] wraps it.
//!
//! Coding: BCC (mandatory; LDPC is optional in VHT and not modelled).

/// Data subcarriers N_SD at `width_mhz` (Table 21-6), `None` for another width.
pub fn n_sd(width_mhz: u32) -> Option<u32> {
    match width_mhz {
        20 => Some(52),
        40 => Some(108),
        80 => Some(234),
        160 => Some(468),
        _ => None,
    }
}

/// Coded bits per symbol N_CBPS and data bits N_DBPS ×`den` (to test integrality).
fn bits(m: u8, nss: u32, width_mhz: u32) -> (u32, u32, u32) {
    let (bpscs, num, den) = super::mcs_coding(m);
    let ncbps = n_sd(width_mhz).expect("a VHT width") * nss * bpscs;
    (ncbps, ncbps * num, den)
}

/// BCC encoders N_ES (module doc).
pub fn n_es(m: u8, nss: u32, width_mhz: u32) -> u32 {
    if (width_mhz, nss, m) == (160, 4, 7) {
        return 6;
    }
    let (_, d, den) = bits(m, nss, width_mhz);
    (d / den).div_ceil(2160)
}

/// Whether per-stream MCS `m` with `nss` streams at `width_mhz` is a valid VHT combination
/// (module doc).
pub fn valid(m: u8, nss: u32, width_mhz: u32) -> bool {
    if m > 9 || !(1..=4).contains(&nss) || n_sd(width_mhz).is_none() {
        return false;
    }
    let (ncbps, d, den) = bits(m, nss, width_mhz);
    if d % den != 0 {
        return false;
    }
    let (ndbps, nes) = (d / den, n_es(m, nss, width_mhz));
    ndbps % nes == 0 && ncbps % nes == 0
}

/// Data bits per symbol of a valid combination.
pub fn n_dbps(m: u8, nss: u32, width_mhz: u32) -> u32 {
    let (_, d, den) = bits(m, nss, width_mhz);
    d / den
}

/// VHT-LTFs of `nss` streams (Table 21-13): 1, 2, 4, 4.
pub fn n_ltf(nss: u32) -> u32 {
    super::ht::n_ltf(nss)
}

/// The VHT preamble, ns: L-STF, L-LTF, L-SIG, VHT-SIG-A, VHT-STF, VHT-LTFs, VHT-SIG-B.
pub fn preamble_ns(nss: u32) -> u64 {
    (16 + 4 + 8 + 4 + 4 * n_ltf(nss) as u64 + 4) * 1000
}

/// TXTIME of a VHT SU PPDU, ns (§21.4.3): APEP_LENGTH `apep` bytes at per-stream MCS `m`,
/// `nss` streams, `width_mhz`, short GI or not.
pub fn txtime_ns(apep: u32, m: u8, nss: u32, width_mhz: u32, sgi: bool) -> u64 {
    let ndbps = n_dbps(m, nss, width_mhz) as u64;
    let n = (8 * apep as u64 + 16 + 6 * n_es(m, nss, width_mhz) as u64).div_ceil(ndbps);
    let data_us = if sgi { 4 * (9 * n).div_ceil(10) } else { 4 * n };
    preamble_ns(nss) + data_us * 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The "not valid" entries of Tables 21-30 … 21-61 for 1–4 streams, and nothing else.
    #[test]
    fn invalid_combinations_are_the_standards() {
        let invalid = [(9, 1, 20), (9, 2, 20), (9, 4, 20), (6, 3, 80), (9, 3, 160)];
        for w in [20, 40, 80, 160] {
            for nss in 1..=4 {
                for m in 0..=9u8 {
                    assert_eq!(
                        valid(m, nss, w),
                        !invalid.contains(&(m, nss, w)),
                        "MCS {m} {nss} SS {w} MHz"
                    );
                }
            }
        }
        assert!(!valid(10, 1, 80) && !valid(0, 5, 80) && !valid(0, 1, 60));
    }

    /// Worked by hand from §21.4.3:
    ///
    /// - MCS 9, 80 MHz, 2 streams, short GI, APEP 1500 B: N_DBPS = 234·2·8·⅚ = 3120, N_ES =
    ///   ceil(3120/2160) = 2 (Table 21-47); N_SYM = ceil((12000 + 16 + 12)/3120) =
    ///   ceil(3.86) = 4; data = 4·ceil(3.6·4/4) = 4·ceil(3.6) = 16 µs; preamble 16 + 4 +
    ///   8 + 4 + 4·2 + 4 = 44 µs; TXTIME 60 µs.
    /// - MCS 0, 20 MHz, 1 stream, long GI, APEP 1540 B: N_DBPS 26; ceil((12320 + 22)/26) =
    ///   ceil(474.7) = 475; 40 + 1900 = 1940 µs.
    /// - MCS 8, 20 MHz, 1 stream, short GI, APEP 1544 B: N_DBPS = 52·8·¾ = 312; N_SYM =
    ///   ceil((12352 + 22)/312) = ceil(39.66) = 40; data 4·ceil(36) = 144 µs; TXTIME 184 µs.
    /// - MCS 9, 160 MHz, 4 streams, short GI, APEP 1544 B: N_DBPS = 468·4·8·⅚ = 12480,
    ///   N_ES = ceil(12480/2160) = 6; N_SYM = ceil((12352 + 16 + 36)/12480) = 1; data
    ///   4·ceil(0.9) = 4 µs; preamble 36 + 16 = 52; TXTIME 56 µs.
    #[test]
    fn txtime_matches_hand_worked_21_4_3_values() {
        assert_eq!(txtime_ns(1500, 9, 2, 80, true), 60_000);
        assert_eq!(txtime_ns(1540, 0, 1, 20, false), 1_940_000);
        assert_eq!(txtime_ns(1544, 8, 1, 20, true), 184_000);
        assert_eq!(txtime_ns(1544, 9, 4, 160, true), 56_000);
    }
}
