//! A-MPDU assembly (IEEE 802.11-2020 §10.12, the format of §9.7): which of a station's
//! queued MPDUs for one receiver and TID go into one PPDU, and how long the PSDU is.
//!
//! **Format (§9.7.1).** An A-MPDU is a sequence of A-MPDU subframes, each a 4-octet MPDU
//! delimiter (EOF bit, MPDU length, CRC, signature) followed by the MPDU, padded with 0–3
//! octets so that every subframe but the last is a multiple of 4 octets long. An HT PPDU's
//! PSDU is that A-MPDU; a VHT or HE PPDU's APEP_LENGTH counts the last subframe's padding
//! too (a multiple of 4, §21.4.3, §27.4.3; the EOF padding after it carries no
//! information), the same rule as [`super::phy::s_mpdu_bytes`] for a lone MPDU.
//!
//! **Limits.** MPDUs are added in queue order while the A-MPDU stays within
//!
//! - the maximum A-MPDU length of the PPDU format: HT 65 535 octets (Table 9-163's largest
//!   exponent, 2^16 − 1), VHT 1 048 575 (2^20 − 1), HE 6 500 631 (§10.12.2) — and the
//!   scenario's `max_ampdu_bytes` (ns-3's `BE_MaxAmpduSize`, default 65 535 for every
//!   standard);
//! - the block ack window: at most `max_mpdus` MPDUs, their sequence numbers within the
//!   originator's window (`block_ack.rs`);
//! - aPPDUMaxTime: 5.484 ms for HT-mixed, VHT and HE SU PPDUs (the L-SIG LENGTH limit,
//!   (4095 + 3)/3 symbols of 4 µs + 20 µs; Tables 19-25, 21-29, 27-54), and within an
//!   EDCA TXOP the time the TXOP has left for the PPDU, SIFS and the BlockAck (§10.22.2.8).
//!
//! The first MPDU always goes (a TXOP's first frame may exceed its limit, as in
//! `frame_exchange.rs`). As ns-3's `MpduAggregator` and mac80211's `ieee80211_tx_dequeue`
//! with the driver's `max_rx_aggregation_subframes`, the assembly is greedy: it stops at
//! the first MPDU that does not fit. The PPDU's duration is the PHY's TXTIME for the whole
//! PSDU length ([`super::phy::Phy::psdu_duration`]).

use super::phy::Standard;
use crate::engine::SimTime;

/// Octets of an MPDU delimiter (§9.7.1).
pub const DELIMITER_BYTES: u32 = 4;

/// aPPDUMaxTime of HT-mixed, VHT and HE SU PPDUs: 5.484 ms.
pub const PPDU_MAX_TIME: SimTime = SimTime(5_484_000);

/// The largest A-MPDU of a standard's PPDUs, octets (§10.12.2; `None`: no aggregation).
pub fn max_ampdu_bytes(std: Standard) -> Option<u32> {
    match std {
        Standard::N => Some(65_535),
        Standard::Ac => Some(1_048_575),
        Standard::Ax => Some(6_500_631),
        _ => None,
    }
}

/// What bounds one A-MPDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Octets of the A-MPDU (the PSDU, without the last subframe's padding).
    pub max_bytes: u32,
    /// MPDUs.
    pub max_mpdus: u32,
    /// Air time of the PPDU.
    pub max_time: SimTime,
}

/// The length of an A-MPDU that already holds `bytes` octets once a subframe carrying an
/// `mpdu`-octet MPDU is added: the previous last subframe is padded to 4 octets, then
/// the delimiter and the MPDU (ns-3's `MpduAggregator::GetSizeIfAggregated`).
#[inline]
pub fn with_subframe(bytes: u32, mpdu: u32) -> u32 {
    bytes.next_multiple_of(4) + DELIMITER_BYTES + mpdu
}

/// The PSDU length a PHY's TXTIME takes for an A-MPDU of `bytes` octets: HT the A-MPDU
/// itself, VHT and HE its APEP_LENGTH (the last subframe padded to 4 octets).
#[inline]
pub fn psdu_bytes(std: Standard, bytes: u32) -> u32 {
    match std {
        Standard::N => bytes,
        _ => bytes.next_multiple_of(4),
    }
}

/// Greedy assembly: takes MPDUs of the lengths `mpdus` yields, in order, while the A-MPDU
/// stays within `lim` (`duration` gives a PPDU's air time for an A-MPDU length). Returns
/// how many were taken (at least one if `mpdus` yields any) and the A-MPDU's length.
pub fn assemble(
    lim: &Limits,
    mut duration: impl FnMut(u32) -> SimTime,
    mpdus: impl IntoIterator<Item = u32>,
) -> (u32, u32) {
    let (mut n, mut bytes) = (0u32, 0u32);
    for mpdu in mpdus {
        let next = with_subframe(bytes, mpdu);
        if n > 0 && (n >= lim.max_mpdus || next > lim.max_bytes || duration(next) > lim.max_time) {
            break;
        }
        n += 1;
        bytes = next;
    }
    (n, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::wifi::phy::{mcs_id, Phy};

    /// §9.7.1: 1538-octet QoS MPDUs (1500 B IP + 38 B) make 1542-octet subframes padded to
    /// 1544; two of them 1544 + 1542 = 3086 octets, three 4630.
    #[test]
    fn subframes_are_padded_to_four_octets_except_the_last() {
        assert_eq!(with_subframe(0, 1538), 1542);
        assert_eq!(with_subframe(1542, 1538), 3086);
        assert_eq!(with_subframe(3086, 1538), 4630);
        assert_eq!(with_subframe(0, 40), 44);
        assert_eq!(psdu_bytes(Standard::N, 3086), 3086);
        assert_eq!(psdu_bytes(Standard::Ac, 3086), 3088);
    }

    /// The HT byte limit: n subframes of 1538-octet MPDUs take 1544(n − 1) + 1542 octets;
    /// 41·1544 + 1542 = 64 846 ≤ 65 535 < 66 390, so 42 MPDUs (no time or count limit).
    #[test]
    fn the_byte_limit_stops_at_the_last_mpdu_that_fits() {
        let lim = Limits {
            max_bytes: 65_535,
            max_mpdus: 64,
            max_time: SimTime::MAX,
        };
        let (n, bytes) = assemble(&lim, |_| SimTime::ZERO, std::iter::repeat_n(1538, 100));
        assert_eq!((n, bytes), (42, 64_846));
        let lim = Limits {
            max_mpdus: 10,
            ..lim
        };
        assert_eq!(assemble(&lim, |_| SimTime::ZERO, [1538; 20]).0, 10);
        // The first MPDU always goes.
        let lim = Limits {
            max_time: SimTime::ZERO,
            ..lim
        };
        assert_eq!(assemble(&lim, |_| SimTime(1), [1538; 3]), (1, 1542));
    }

    /// aPPDUMaxTime at HT MCS 7, 20 MHz, 800 ns GI (N_DBPS 260, 36 µs preamble for one
    /// stream): N_SYM = ⌈(8·L + 22)/260⌉ ≤ (5484 − 36)/4 = 1362 symbols, so L ≤
    /// (1362·260 − 22)/8 = 44 262 octets: 1544(n − 1) + 1542 ≤ 44 262 gives n = 28
    /// (43 230 octets: ⌈345 862/260⌉ = 1331 symbols, 5 360 µs); 29 would be 44 774.
    #[test]
    fn the_ppdu_time_limit_at_ht_mcs_7() {
        let phy = Phy::new(Standard::N);
        let id = mcs_id(1, 7);
        let lim = Limits {
            max_bytes: 65_535,
            max_mpdus: 64,
            max_time: PPDU_MAX_TIME,
        };
        let (n, bytes) = assemble(&lim, |b| phy.psdu_duration(b, id), [1538; 64]);
        assert_eq!((n, bytes), (28, 43_230));
        assert_eq!(
            phy.psdu_duration(bytes, id),
            SimTime::from_micros(36 + 4 * 1331)
        );
        assert!(phy.psdu_duration(with_subframe(bytes, 1538), id) > PPDU_MAX_TIME);
    }

    /// VHT MCS 9, 80 MHz, 2 streams, 400 ns GI, the 65 535-octet limit: 42 MPDUs, 64 846
    /// octets, APEP 64 848; N_DBPS 3120, N_ES 2: N_SYM = ⌈(518 784 + 16 + 12)/3120⌉ = 167,
    /// short-GI data 4·⌈0.9·167⌉ = 604 µs after the 44 µs preamble (§21.4.3): 648 µs.
    #[test]
    fn a_vht_ampdu_at_the_byte_limit() {
        let mut phy = Phy::new(Standard::Ac);
        phy.width_mhz = 80;
        phy.gi_ns = 400;
        let id = mcs_id(2, 9);
        let lim = Limits {
            max_bytes: 65_535,
            max_mpdus: 64,
            max_time: PPDU_MAX_TIME,
        };
        let (n, bytes) = assemble(&lim, |b| phy.psdu_duration(b, id), [1538; 64]);
        assert_eq!((n, bytes), (42, 64_846));
        assert_eq!(phy.psdu_duration(bytes, id), SimTime::from_micros(648));
    }

    /// HE MCS 11, 80 MHz, 2 streams, 800 ns GI, 256 MPDUs (the HE window): 395 262 octets,
    /// APEP 395 264; N_DBPS 16 333, N_DBPS,short 4000: N_SYM,init = ⌈3 162 128/16 333⌉ =
    /// 194, N_excess 9859, a = 3; LDPC (§27.3.12.5.2): N_pld 3 164 269, N_avbits
    /// 3 797 200, N_CW 1954, N_shrt 1211, N_punc 165 — no extra symbol segment; T_PE 0
    /// (nominal padding 0 µs). 50.4 µs preamble + 194·13.6 µs = 2688.8 µs.
    #[test]
    fn an_he_ampdu_at_the_window() {
        let mut phy = Phy::new(Standard::Ax);
        phy.width_mhz = 80;
        let id = mcs_id(2, 11);
        let lim = Limits {
            max_bytes: 6_500_631,
            max_mpdus: 256,
            max_time: PPDU_MAX_TIME,
        };
        let (n, bytes) = assemble(&lim, |b| phy.psdu_duration(b, id), [1538; 300]);
        assert_eq!((n, bytes), (256, 395_262));
        assert_eq!(phy.psdu_duration(bytes, id), SimTime(2_688_800));
    }
}
