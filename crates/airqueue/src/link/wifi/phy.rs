//! PHY timing of 802.11b (HR/DSSS, Clause 16), 802.11a (OFDM, Clause 17) and 802.11g
//! (ERP, Clause 18) as IEEE 802.11-2016 gives it: frame durations, the interframe spaces,
//! the contention window, and the rate of control responses.
//!
//! Durations are integer nanoseconds (in practice whole microseconds: every PHY here counts
//! its PPDU in µs).
//!
//! - **HR/DSSS** (§16.2.2, §16.3.4): a long PLCP preamble + header is 144 + 48 bits at
//!   1 Mb/s = 192 µs; a short one 72 bits at 1 Mb/s + 48 bits at 2 Mb/s = 96 µs (not
//!   allowed at 1 Mb/s). The PSDU lasts `ceil(8·bytes / rate)` µs (the LENGTH field counts
//!   whole microseconds, §16.2.3.5). aSlotTime 20 µs, aSIFSTime 10 µs, aCWmin 31, aCWmax
//!   1023 (Table 16-4).
//! - **OFDM** (§17.4.3, Table 17-21): 16 µs preamble + 4 µs SIGNAL, then
//!   `N_SYM = ceil((16 + 8·bytes + 6) / N_DBPS)` symbols of 4 µs (SERVICE 16 bits, tail
//!   6 bits, rounded up to whole symbols by the pad bits). aSlotTime 9 µs, aSIFSTime
//!   16 µs, aCWmin 15, aCWmax 1023 (Table 17-21, 20 MHz).
//! - **ERP** (802.11g, §18.4.4 and Table 18-5): DSSS/CCK rates time as HR/DSSS; ERP-OFDM
//!   frames as OFDM plus a 6 µs signal extension (§18.3.2.4); aSIFSTime 10 µs; aSlotTime
//!   20 µs, or 9 µs when the BSS has only ERP stations (short slot, the default here);
//!   aCWmin 15 (31 when non-ERP stations are present — override `cw_min`).
//!
//! DIFS = SIFS + 2·slot (§10.3.2.3.5); AIFS[AC] = SIFS + AIFSN·slot (§10.3.2.3.6); EIFS =
//! SIFS + AckTxTime at the lowest mandatory rate + DIFS (§10.3.2.3.7). A control response
//! (ACK, CTS) goes at the highest rate of the BSSBasicRateSet that is no higher than the
//! rate of the frame it answers and of the same modulation class (§10.6.6.5.2); RTS, which
//! starts an exchange, here goes at that same basic rate (§10.6.6.2 allows any basic rate;
//! this is ns-3's `WifiRemoteStationManager` choice for non-HT control frames).

use crate::engine::SimTime;

/// Which 802.11 PHY a cell uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Standard {
    /// 802.11b (HR/DSSS): 1, 2, 5.5, 11 Mb/s.
    B,
    /// 802.11a (OFDM, 5 GHz): 6 … 54 Mb/s.
    A,
    /// 802.11g (ERP): the 802.11b rates and ERP-OFDM 6 … 54 Mb/s.
    G,
}

impl Standard {
    pub fn parse(s: &str) -> Option<Standard> {
        match s {
            "802.11b" | "b" => Some(Standard::B),
            "802.11a" | "a" => Some(Standard::A),
            "802.11g" | "g" => Some(Standard::G),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Standard::B => "802.11b",
            Standard::A => "802.11a",
            Standard::G => "802.11g",
        }
    }

    /// The PHY rates of the standard, in kbit/s.
    pub fn rates_kbps(self) -> &'static [u32] {
        match self {
            Standard::B => &DSSS_RATES,
            Standard::A => &OFDM_RATES,
            Standard::G => &ERP_RATES,
        }
    }

    /// The default BSSBasicRateSet, kbit/s: 802.11b {1, 2} (the mandatory DSSS rates,
    /// ns-3's and hostapd's default `basic_rates` for b), 802.11a the mandatory OFDM rates
    /// {6, 12, 24} (§17.3.5.7), 802.11g both (hostapd's g default: 1 2 5.5 11 6 12 24 is
    /// also common; override `basic_rates`).
    pub fn default_basic_kbps(self) -> &'static [u32] {
        match self {
            Standard::B => &[1_000, 2_000],
            Standard::A => &[6_000, 12_000, 24_000],
            Standard::G => &[1_000, 2_000, 6_000, 12_000, 24_000],
        }
    }
}

const DSSS_RATES: [u32; 4] = [1_000, 2_000, 5_500, 11_000];
const OFDM_RATES: [u32; 8] = [6_000, 9_000, 12_000, 18_000, 24_000, 36_000, 48_000, 54_000];
const ERP_RATES: [u32; 12] = [
    1_000, 2_000, 5_500, 11_000, 6_000, 9_000, 12_000, 18_000, 24_000, 36_000, 48_000, 54_000,
];

/// Whether a rate of `std` is an OFDM rate (the others are DSSS/CCK).
fn is_ofdm(std: Standard, kbps: u32) -> bool {
    match std {
        Standard::A => true,
        Standard::B => false,
        Standard::G => !DSSS_RATES.contains(&kbps),
    }
}

/// Bytes of an ACK and a CTS frame (§9.3.1.4, §9.3.1.3) and of an RTS (§9.3.1.2).
pub const ACK_BYTES: u32 = 14;
pub const CTS_BYTES: u32 = 14;
pub const RTS_BYTES: u32 = 20;
/// MAC framing around an IP packet in a data frame: 24 B header + 4 B FCS + 8 B LLC/SNAP
/// (RFC 1042 encapsulation), as ns-3 and Linux send it (non-QoS data).
pub const DATA_OVERHEAD_BYTES: u32 = 36;

/// The timing parameters of one cell, from its standard with any overrides applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Phy {
    pub standard: Standard,
    /// Short PLCP preamble for DSSS rates above 1 Mb/s.
    pub short_preamble: bool,
    pub slot: SimTime,
    pub sifs: SimTime,
    pub cw_min: u32,
    pub cw_max: u32,
    /// BSSBasicRateSet, kbit/s, ascending.
    pub basic_kbps: Vec<u32>,
}

impl Phy {
    /// The standard's defaults (see the module documentation).
    pub fn new(standard: Standard) -> Phy {
        let (slot, sifs, cw_min) = match standard {
            Standard::B => (20, 10, 31),
            Standard::A => (9, 16, 15),
            Standard::G => (9, 10, 15),
        };
        let mut basic = standard.default_basic_kbps().to_vec();
        basic.sort_unstable();
        Phy {
            standard,
            short_preamble: false,
            slot: SimTime::from_micros(slot),
            sifs: SimTime::from_micros(sifs),
            cw_min,
            cw_max: 1023,
            basic_kbps: basic,
        }
    }

    pub fn difs(&self) -> SimTime {
        self.aifs(2)
    }

    /// AIFS = SIFS + `aifsn` slots (§10.3.2.3.6; DIFS is AIFSN 2).
    pub fn aifs(&self, aifsn: u32) -> SimTime {
        SimTime(self.sifs.0 + aifsn as u64 * self.slot.0)
    }

    /// EIFS = SIFS + ACK at the lowest mandatory rate + DIFS (§10.3.2.3.7): 1 Mb/s DSSS
    /// (long preamble) for b and g, 6 Mb/s for a.
    pub fn eifs(&self) -> SimTime {
        let lowest = match self.standard {
            Standard::A => 6_000,
            _ => 1_000,
        };
        let ack = Phy {
            short_preamble: false,
            ..self.clone()
        }
        .duration(ACK_BYTES, lowest);
        SimTime(self.sifs.0 + ack.0 + self.difs().0)
    }

    /// Whether `kbps` is a rate of this cell's standard.
    pub fn has_rate(&self, kbps: u32) -> bool {
        self.standard.rates_kbps().contains(&kbps)
    }

    /// Air time of a PPDU carrying a `bytes`-byte PSDU (MPDU) at `kbps`.
    pub fn duration(&self, bytes: u32, kbps: u32) -> SimTime {
        let us = if is_ofdm(self.standard, kbps) {
            // N_DBPS = rate × 4 µs.
            let ndbps = kbps as u64 * 4 / 1000;
            let nsym = (16 + 8 * bytes as u64 + 6).div_ceil(ndbps);
            let ext = if self.standard == Standard::G { 6 } else { 0 };
            20 + 4 * nsym + ext
        } else {
            let plcp = if self.short_preamble && kbps > 1_000 {
                96
            } else {
                192
            };
            plcp + (8 * bytes as u64 * 1000).div_ceil(kbps as u64)
        };
        SimTime::from_micros(us)
    }

    /// Air time of the PLCP preamble and header of a PPDU at `kbps` (DSSS 192 µs long /
    /// 96 µs short; OFDM 20 µs): what ns-3 adds to SIFS + slot for the CTS and ACK
    /// timeouts (aRxPHYStartDelay in IEEE 802.11-2016 §10.3.2.7, §10.3.2.9).
    pub fn plcp(&self, kbps: u32) -> SimTime {
        let us = if is_ofdm(self.standard, kbps) {
            20
        } else if self.short_preamble && kbps > 1_000 {
            96
        } else {
            192
        };
        SimTime::from_micros(us)
    }

    /// The PLCP header of a PPDU at `kbps`: its offset from the PPDU's start, its duration
    /// and the rate it is sent at. DSSS (§16.2.2): after the 144 µs long preamble, 48 µs at
    /// 1 Mb/s; with the short preamble (above 1 Mb/s) after 72 µs, 24 µs at 2 Mb/s. OFDM
    /// (§17.3.2): the SIGNAL field, 4 µs at 6 Mb/s after the 16 µs preamble. What ns-3's
    /// `DsssPhy`/`OfdmPhy` check the header's PER over (the preamble itself is not).
    pub fn header_field(&self, kbps: u32) -> (SimTime, SimTime, u32) {
        let us = |x| SimTime::from_micros(x);
        if is_ofdm(self.standard, kbps) {
            (us(16), us(4), 6_000)
        } else if self.short_preamble && kbps > 1_000 {
            (us(72), us(24), 2_000)
        } else {
            (us(144), us(48), 1_000)
        }
    }

    /// Whether `kbps` is an OFDM rate of this standard.
    pub fn is_ofdm(&self, kbps: u32) -> bool {
        is_ofdm(self.standard, kbps)
    }

    /// The signal extension closing an ERP-OFDM PPDU (802.11g, 6 µs; §18.3.2.4), no bits.
    pub fn signal_extension(&self, kbps: u32) -> SimTime {
        if self.standard == Standard::G && is_ofdm(self.standard, kbps) {
            SimTime::from_micros(6)
        } else {
            SimTime::ZERO
        }
    }

    /// The rate of a control response to a frame sent at `kbps` (§10.6.6.5.2): the highest
    /// basic rate ≤ `kbps` of the same modulation class; if none, the lowest basic rate of
    /// that class; if the class has no basic rate, the highest mandatory rate of the class
    /// ≤ `kbps` (1 Mb/s DSSS, 6 Mb/s OFDM).
    #[inline]
    pub fn response_kbps(&self, kbps: u32) -> u32 {
        let ofdm = is_ofdm(self.standard, kbps);
        let same_class = || {
            self.basic_kbps
                .iter()
                .copied()
                .filter(move |&b| is_ofdm(self.standard, b) == ofdm)
        };
        same_class()
            .filter(|&b| b <= kbps)
            .max()
            .or_else(|| same_class().min())
            .unwrap_or(if ofdm { 6_000 } else { 1_000 })
    }

    /// Air time of the ACK answering a frame sent at `kbps`.
    pub fn ack_duration(&self, kbps: u32) -> SimTime {
        self.duration(ACK_BYTES, self.response_kbps(kbps))
    }

    /// Air time of a data frame carrying an IP packet of `ip_bytes` at `kbps`.
    pub fn data_duration(&self, ip_bytes: u32, kbps: u32) -> SimTime {
        self.duration(ip_bytes + DATA_OVERHEAD_BYTES, kbps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(t: SimTime) -> u64 {
        assert_eq!(t.0 % 1000, 0, "{t:?} is not whole µs");
        t.0 / 1000
    }

    /// §16.2.3.5 (LENGTH field in µs, rounded up): PSDU µs = ceil(8·L/rate) plus the
    /// 192 µs (long) or 96 µs (short) PLCP preamble and header.
    #[test]
    fn dsss_durations_follow_the_plcp_length_field() {
        let mut p = Phy::new(Standard::B);
        // 1536-B MPDU (1500 B IP): 8·1536/11 = 1117.09 → 1118 µs; +192.
        assert_eq!(us(p.data_duration(1500, 11_000)), 192 + 1118);
        assert_eq!(us(p.data_duration(1500, 1_000)), 192 + 12288);
        assert_eq!(us(p.data_duration(1500, 2_000)), 192 + 6144);
        assert_eq!(us(p.data_duration(1500, 5_500)), 192 + 2235); // 2234.18 → 2235
                                                                  // ACK: 112 bits at 2 Mb/s = 56 µs (ns-3's 802.11b ACK at 2 Mb/s: 248 µs).
        assert_eq!(us(p.ack_duration(11_000)), 248);
        assert_eq!(us(p.ack_duration(1_000)), 304);
        p.short_preamble = true;
        assert_eq!(us(p.ack_duration(11_000)), 96 + 56);
        // 1 Mb/s always uses the long preamble.
        assert_eq!(us(p.duration(14, 1_000)), 304);
    }

    /// Table 17-21 / §17.3.2.3: a 1536-B MPDU at 54 Mb/s: N_DBPS 216, (16 + 12288 + 6)/216
    /// = 56.99 → 57 symbols, 20 + 228 = 248 µs; ACK at 24 Mb/s: (16+112+6)/96 → 2 symbols
    /// = 28 µs (ns-3 prints 28 µs for an 802.11a ACK at 24 Mb/s); at 6 Mb/s 44 µs.
    #[test]
    fn ofdm_durations_round_to_whole_symbols() {
        let p = Phy::new(Standard::A);
        assert_eq!(us(p.data_duration(1500, 54_000)), 248);
        // 6 Mb/s: N_DBPS 24, 12310/24 = 512.9 → 513 symbols.
        assert_eq!(us(p.data_duration(1500, 6_000)), 20 + 4 * 513);
        assert_eq!(us(p.ack_duration(54_000)), 28);
        assert_eq!(us(p.ack_duration(6_000)), 44);
        assert_eq!(us(p.ack_duration(9_000)), 44);
        assert_eq!(us(p.ack_duration(18_000)), 20 + 4 * 3); // ACK at 12: 134/48 → 3
                                                            // g adds the 6 µs signal extension to OFDM frames, not to DSSS ones.
        let g = Phy::new(Standard::G);
        assert_eq!(us(g.data_duration(1500, 54_000)), 254);
        assert_eq!(us(g.data_duration(1500, 11_000)), 192 + 1118);
        // An OFDM frame is answered at an OFDM basic rate, a CCK one at a DSSS one.
        assert_eq!(g.response_kbps(54_000), 24_000);
        assert_eq!(g.response_kbps(11_000), 2_000);
    }

    /// Interframe spaces: b DIFS 50 µs, EIFS 10 + 304 + 50 = 364 µs; a DIFS 34 µs, EIFS
    /// 16 + 44 + 34 = 94 µs; g (short slot) DIFS 28 µs.
    #[test]
    fn interframe_spaces() {
        let b = Phy::new(Standard::B);
        assert_eq!((us(b.difs()), us(b.eifs())), (50, 364));
        let a = Phy::new(Standard::A);
        assert_eq!((us(a.difs()), us(a.eifs())), (34, 94));
        assert_eq!(us(Phy::new(Standard::G).difs()), 28);
        assert_eq!((b.cw_min, b.cw_max, a.cw_min), (31, 1023, 15));
    }
}
