//! The HE PHY (IEEE 802.11ax-2021, Clause 27, now part of IEEE 802.11-2024; sections
//! cited by the amendment's numbering), HE SU PPDUs, LDPC coding: data rates and PPDU
//! durations.
//!
//! - **Rates** (§27.5, Tables 27-55 … 27-110 for the 242/484/996/2×996-tone RUs of a
//!   20/40/80/160 MHz SU PPDU): per-stream MCS 0 … 11 (VHT's 0–9 plus 1024-QAM ¾ and ⅚,
//!   [`super::mcs_coding`]); N_SD = 234, 468, 980, 1960; `N_DBPS = floor(N_SD · N_SS ·
//!   N_BPSCS · R)` (LDPC needs no integer N_DBPS: MCS 11 at 80 MHz is 8166 bits, 600.4
//!   Mbit/s in the table); the data symbol is 12.8 µs plus a 0.8, 1.6 or 3.2 µs GI. Every
//!   MCS/width/stream combination is valid.
//! - **Coding**: LDPC. It is mandatory for an HE SU PPDU wider than 20 MHz, at MCS 10–11
//!   and above 4 streams (§27.3.12.5), and every HE station supports it; BCC is allowed
//!   only in the 20 MHz, MCS ≤ 9 corner, where Linux drivers (iwlwifi, ath11k, mt76)
//!   send LDPC too, so one code is modelled throughout.
//! - **N_SYM** (§27.3.12.5.2, the pre-FEC padding of §27.3.12.2): `N_SYM,init =
//!   ceil((8·APEP_LENGTH + 16) / N_DBPS)` (SERVICE 16 bits, no tail with LDPC); the last
//!   symbol's pre-FEC padding factor `a_init = min(ceil(N_excess / N_DBPS,short), 4)` (4 if
//!   N_excess = 0), N_DBPS,short = floor(N_SD,short · N_SS · N_BPSCS · R) with N_SD,short =
//!   60, 120, 240, 492; then the LDPC encoding of §19.3.11.7.5 on N_pld = (N_SYM,init − 1)
//!   · N_DBPS + N_DBPS,last,init and N_avbits = (N_SYM,init − 1) · N_CBPS + N_CBPS,last,init
//!   (codeword count and length from Table 19-16, shortening and puncturing) may add the
//!   "LDPC extra symbol segment": a = a_init + 1, or one more symbol with a = 1 if a_init
//!   was 4.
//! - **TXTIME** (§27.4.3): `T_HE-PREAMBLE + N_SYM · T_SYM + T_PE + SignalExtension` with
//!   the HE SU preamble L-STF 8 + L-LTF 8 + L-SIG 4 + RL-SIG 4 + HE-SIG-A 8 + HE-STF 4 µs +
//!   N_HE-LTF HE-LTF symbols (1, 2, 4, 4 for 1–4 streams, Table 27-16). The HE-LTF
//!   type/GI pair is the one every HE SU PPDU may use with that GI: 2× HE-LTF (6.4 µs)
//!   with 0.8 or 1.6 µs GI, 4× HE-LTF (12.8 µs) with 3.2 µs GI (§27.3.11.10). T_PE, the
//!   packet extension, follows Table 27-46 from `a` and the receiver's nominal packet
//!   padding (0, 8 or 16 µs: 0; max(0, 4a − 8); 4a µs); the cells use 0 µs. The signal
//!   extension is 6 µs in the 2.4 GHz band (§27.3.4 / aSignalExtension), 0 at 5 GHz.
//!
//! An HE PPDU's PSDU is an A-MPDU, like VHT's: a lone MPDU goes as an S-MPDU
//! ([`super::Phy::duration`] wraps it).

/// Data subcarriers N_SD of the full-width RU at `width_mhz`, `None` for another width.
pub fn n_sd(width_mhz: u32) -> Option<u32> {
    match width_mhz {
        20 => Some(234),
        40 => Some(468),
        80 => Some(980),
        160 => Some(1960),
        _ => None,
    }
}

/// N_SD,short of the RU at `width_mhz` (§27.3.12.2: 60, 120, 240, 492 for the 242-, 484-,
/// 996- and 2×996-tone RUs).
fn n_sd_short(width_mhz: u32) -> u32 {
    match width_mhz {
        20 => 60,
        40 => 120,
        80 => 240,
        _ => 492,
    }
}

/// Whether per-stream MCS `m` with `nss` streams at `width_mhz` is an HE SU combination.
pub fn valid(m: u8, nss: u32, width_mhz: u32) -> bool {
    m <= 11 && (1..=4).contains(&nss) && n_sd(width_mhz).is_some()
}

/// (N_CBPS, N_DBPS) of N_SD `sd` data subcarriers.
fn bits(sd: u32, m: u8, nss: u32) -> (u32, u32) {
    let (bpscs, num, den) = super::mcs_coding(m);
    let ncbps = sd * nss * bpscs;
    (ncbps, ncbps * num / den)
}

/// Data bits per symbol N_DBPS.
pub fn n_dbps(m: u8, nss: u32, width_mhz: u32) -> u32 {
    bits(n_sd(width_mhz).expect("an HE width"), m, nss).1
}

/// HE data symbol T_SYM, ns: 12.8 µs + the GI.
pub fn t_sym_ns(gi_ns: u32) -> u64 {
    12_800 + gi_ns as u64
}

/// One HE-LTF symbol, ns (module doc: 2× HE-LTF with 0.8/1.6 µs GI, 4× with 3.2 µs).
pub fn t_ltf_ns(gi_ns: u32) -> u64 {
    if gi_ns >= 3_200 {
        12_800 + gi_ns as u64
    } else {
        6_400 + gi_ns as u64
    }
}

/// The HE SU preamble, ns.
pub fn preamble_ns(nss: u32, gi_ns: u32) -> u64 {
    (8 + 8 + 4 + 4 + 8 + 4) * 1000 + super::ht::n_ltf(nss) as u64 * t_ltf_ns(gi_ns)
}

/// (N_SYM, a): data symbols and pre-FEC padding factor of an APEP_LENGTH of `apep` bytes
/// (LDPC, no STBC; module doc).
pub fn n_sym(apep: u32, m: u8, nss: u32, width_mhz: u32) -> (u64, u32) {
    let (_, num, den) = super::mcs_coding(m);
    let (ncbps, ndbps) = bits(n_sd(width_mhz).expect("an HE width"), m, nss);
    let (ncbps_s, ndbps_s) = bits(n_sd_short(width_mhz), m, nss);
    let (ncbps, ndbps, ncbps_s, ndbps_s) =
        (ncbps as u64, ndbps as u64, ncbps_s as u64, ndbps_s as u64);
    let payload = 8 * apep as u64 + 16;
    let nsym_init = payload.div_ceil(ndbps);
    let excess = payload % ndbps;
    let a_init = if excess == 0 {
        4
    } else {
        excess.div_ceil(ndbps_s).min(4)
    };
    let (dlast, clast) = if a_init == 4 {
        (ndbps, ncbps)
    } else {
        (a_init * ndbps_s, a_init * ncbps_s)
    };
    let n_pld = (nsym_init - 1) * ndbps + dlast;
    let n_avbits = (nsym_init - 1) * ncbps + clast;
    // Table 19-16: codewords and their length; R = num/den, so x·(1 − R) compares as
    // x·(den − num)/den.
    let (num, den) = (num as u64, den as u64);
    let covers = |extra: u64| n_avbits * den >= n_pld * den + extra * (den - num);
    let (n_cw, l) = if n_avbits <= 648 {
        (1, if covers(912) { 1296 } else { 648 })
    } else if n_avbits <= 1296 {
        (1, if covers(1464) { 1944 } else { 1296 })
    } else if n_avbits <= 1944 {
        (1, 1944)
    } else if n_avbits <= 2592 {
        (2, if covers(2916) { 1944 } else { 1296 })
    } else {
        ((n_pld * den).div_ceil(1944 * num), 1944)
    };
    let n_shrt = (n_cw * l * num / den).saturating_sub(n_pld);
    let n_punc = (n_cw * l).saturating_sub(n_avbits + n_shrt);
    // §19.3.11.7.5 d): punctured too much → one more symbol segment.
    let parity = n_cw * l * (den - num); // N_CW · L_LDPC · (1 − R), ×den
    let extra = (10 * n_punc * den > parity && 10 * n_shrt * (den - num) < 12 * n_punc * num)
        || 10 * n_punc * den > 3 * parity;
    match (extra, a_init) {
        (false, a) => (nsym_init, a as u32),
        (true, 4) => (nsym_init + 1, 1),
        (true, a) => (nsym_init, a as u32 + 1),
    }
}

/// Packet extension T_PE, ns (Table 27-46) for pre-FEC padding factor `a` and a nominal
/// packet padding of `nominal_us` (0, 8 or 16).
pub fn t_pe_ns(a: u32, nominal_us: u32) -> u64 {
    let us = match nominal_us {
        0 => 0,
        8 => (4 * a).saturating_sub(8),
        _ => 4 * a,
    };
    us as u64 * 1000
}

/// TXTIME of an HE SU PPDU, ns (§27.4.3): APEP_LENGTH `apep` bytes at per-stream MCS `m`,
/// `nss` streams, `width_mhz`, GI `gi_ns`, nominal packet padding `pe_us`, plus
/// `sig_ext_ns` (6 µs at 2.4 GHz).
pub fn txtime_ns(
    apep: u32,
    m: u8,
    nss: u32,
    width_mhz: u32,
    gi_ns: u32,
    pe_us: u32,
    sig_ext_ns: u64,
) -> u64 {
    let (n, a) = n_sym(apep, m, nss, width_mhz);
    preamble_ns(nss, gi_ns) + n * t_sym_ns(gi_ns) + t_pe_ns(a, pe_us) + sig_ext_ns
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked by hand from §27.4.3 and the padding of §27.3.12.2 / §19.3.11.7.5:
    ///
    /// - MCS 11, 80 MHz, 2 streams, 0.8 µs GI, APEP 1500 B, 5 GHz: N_CBPS = 980·2·10 =
    ///   19600, N_DBPS = floor(19600·⅚) = 16333; N_CBPS,short = 240·2·10 = 4800,
    ///   N_DBPS,short = 4000. Payload 8·1500 + 16 = 12016 → N_SYM,init = 1, N_excess =
    ///   12016, a_init = min(ceil(12016/4000), 4) = 4. N_pld = 16333, N_avbits = 19600 >
    ///   2592 → N_CW = ceil(16333/1620) = 11, L = 1944; N_shrt = 11·1620 − 16333 = 1487;
    ///   N_punc = 21384 − 19600 − 1487 = 297 ≤ 0.1·11·1944·⅙ = 356.4 → no extra symbol.
    ///   Preamble 36 + 2·(6.4 + 0.8) = 50.4 µs; TXTIME = 50.4 + 13.6 = 64.0 µs.
    /// - MCS 7, 20 MHz, 1 stream, 0.8 µs GI, APEP 1500 B at 2.4 GHz: N_CBPS = 1404, N_DBPS
    ///   = 1170, N_CBPS,short = 360, N_DBPS,short = 300. N_SYM,init = ceil(12016/1170) = 11,
    ///   N_excess = 12016 − 11700 = 316, a_init = ceil(316/300) = 2. N_pld = 11700 + 600 =
    ///   12300, N_avbits = 14040 + 720 = 14760 → N_CW = ceil(12300/1620) = 8; N_shrt =
    ///   12960 − 12300 = 660; N_punc = 15552 − 14760 − 660 = 132 ≤ 259.2 → no extra.
    ///   TXTIME = 36 + 7.2 + 11·13.6 + 6 (signal extension) = 43.2 + 149.6 + 6 = 198.8 µs.
    /// - MCS 0, 20 MHz, 1 stream, 3.2 µs GI, APEP 100 B: N_CBPS 234, N_DBPS 117;
    ///   N_CBPS,short 60, N_DBPS,short 30. Payload 816 → N_SYM,init = 7, N_excess = 816 −
    ///   702 = 114, a_init = ceil(114/30) = 4 → N_pld = 819, N_avbits = 1638 → one
    ///   codeword of 1944 (1296 < 1638 ≤ 1944); N_shrt = 972 − 819 = 153; N_punc = 1944 −
    ///   1638 − 153 = 153 > 0.1·1944·½ = 97.2 and N_shrt 153 < 1.2·153·1 = 183.6 → extra
    ///   symbol: N_SYM = 8, a = 1. Preamble 36 + 16 (4× HE-LTF + 3.2 µs) = 52 µs; TXTIME =
    ///   52 + 8·16 = 180 µs; with 16 µs nominal packet padding T_PE = 4 µs → 184 µs.
    #[test]
    fn txtime_matches_hand_worked_27_4_3_values() {
        assert_eq!(txtime_ns(1500, 11, 2, 80, 800, 0, 0), 64_000);
        assert_eq!(txtime_ns(1500, 7, 1, 20, 800, 0, 6_000), 198_800);
        assert_eq!(n_sym(100, 0, 1, 20), (8, 1));
        assert_eq!(txtime_ns(100, 0, 1, 20, 3_200, 0, 0), 180_000);
        assert_eq!(txtime_ns(100, 0, 1, 20, 3_200, 16, 0), 184_000);
    }
}
