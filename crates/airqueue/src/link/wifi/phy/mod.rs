//! PHY timing of 802.11b (HR/DSSS, Clause 16), 802.11a (OFDM, Clause 17) and 802.11g
//! (ERP, Clause 18) as IEEE 802.11-2016 gives it, and of 802.11n/ac/ax (HT, VHT, HE: one
//! file each, [`ht`], [`vht`], [`he`], after IEEE 802.11-2020 and 802.11ax): frame
//! durations, the interframe spaces, the contention window, and the rate of control
//! responses.
//!
//! An HT/VHT/HE cell has one band, channel width and guard interval; its stations send
//! data PPDUs at an MCS (rate ids of [`mcs_id`]), one MPDU per PPDU (VHT and HE as an
//! S-MPDU), answered by a non-HT ACK (§10.6.6.5.2 with the MCS's non-HT reference rate).
//! Their slot, SIFS and CW are the OFDM ones of the band: 9 µs slot, SIFS 10 µs at 2.4 GHz
//! (with the 6 µs signal extension after OFDM PPDUs) and 16 µs at 5 GHz, CWmin 15.
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

use crate::channel::modulation::Modulation;
use crate::engine::SimTime;

pub mod he;
pub mod ht;
pub mod vht;

/// Which 802.11 PHY a cell uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Standard {
    /// 802.11b (HR/DSSS): 1, 2, 5.5, 11 Mb/s.
    B,
    /// 802.11a (OFDM, 5 GHz): 6 … 54 Mb/s.
    A,
    /// 802.11g (ERP): the 802.11b rates and ERP-OFDM 6 … 54 Mb/s.
    G,
    /// 802.11n (HT, Clause 19; [`ht`]): MCS 0–31 at 20/40 MHz, 2.4 or 5 GHz.
    N,
    /// 802.11ac (VHT, Clause 21; [`vht`]): MCS 0–9, 1–4 streams, 20–160 MHz, 5 GHz.
    Ac,
    /// 802.11ax (HE, Clause 27; [`he`]): HE SU MCS 0–11, 1–4 streams, 20–160 MHz.
    Ax,
}

impl Standard {
    pub fn parse(s: &str) -> Option<Standard> {
        match s {
            "802.11b" | "b" => Some(Standard::B),
            "802.11a" | "a" => Some(Standard::A),
            "802.11g" | "g" => Some(Standard::G),
            "802.11n" | "n" => Some(Standard::N),
            "802.11ac" | "ac" => Some(Standard::Ac),
            "802.11ax" | "ax" => Some(Standard::Ax),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Standard::B => "802.11b",
            Standard::A => "802.11a",
            Standard::G => "802.11g",
            Standard::N => "802.11n",
            Standard::Ac => "802.11ac",
            Standard::Ax => "802.11ax",
        }
    }

    /// Whether the standard sends HT/VHT/HE PPDUs at an MCS (n, ac, ax).
    pub fn has_mcs(self) -> bool {
        matches!(self, Standard::N | Standard::Ac | Standard::Ax)
    }

    /// The band a cell of this standard is in unless it says otherwise: 2.4 GHz for b and
    /// g, 5 GHz for a, n, ac and ax (n and ax may set `band = "2.4GHz"`).
    pub fn default_band(self) -> Band {
        match self {
            Standard::B | Standard::G => Band::Ghz2_4,
            _ => Band::Ghz5,
        }
    }

    /// The non-HT PHY rates of the standard in its default band, in kbit/s (n/ac/ax: the
    /// OFDM rates of 802.11a; see [`Phy::rates`] for a cell's whole set).
    pub fn rates_kbps(self) -> &'static [u32] {
        legacy_rates_kbps(self, self.default_band())
    }

    /// The default BSSBasicRateSet, kbit/s: 802.11b {1, 2} (the mandatory DSSS rates,
    /// ns-3's and hostapd's default `basic_rates` for b), 802.11a the mandatory OFDM rates
    /// {6, 12, 24} (§17.3.5.7), 802.11g both (hostapd's g default: 1 2 5.5 11 6 12 24 is
    /// also common; override `basic_rates`). n and ax in the 2.4 GHz band as g, n/ac/ax
    /// at 5 GHz as a.
    pub fn default_basic_kbps(self) -> &'static [u32] {
        default_basic(self, self.default_band())
    }
}

fn default_basic(std: Standard, band: Band) -> &'static [u32] {
    match (std, band) {
        (Standard::B, _) => &[1_000, 2_000],
        (Standard::A, _) | (_, Band::Ghz5) => &[6_000, 12_000, 24_000],
        _ => &[1_000, 2_000, 6_000, 12_000, 24_000],
    }
}

/// The non-HT rates of `std` in `band`, kbit/s.
fn legacy_rates_kbps(std: Standard, band: Band) -> &'static [u32] {
    match (std, band) {
        (Standard::B, _) => &DSSS_RATES,
        (Standard::A, _) | (_, Band::Ghz5) => &OFDM_RATES,
        _ => &ERP_RATES,
    }
}

/// The frequency band of a cell.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Band {
    /// 2.4 GHz: SIFS 10 µs, ERP-OFDM and HT/HE PPDUs end with a 6 µs signal extension.
    Ghz2_4,
    /// 5 GHz: SIFS 16 µs, no signal extension.
    Ghz5,
}

const DSSS_RATES: [u32; 4] = [1_000, 2_000, 5_500, 11_000];
const OFDM_RATES: [u32; 8] = [6_000, 9_000, 12_000, 18_000, 24_000, 36_000, 48_000, 54_000];
const ERP_RATES: [u32; 12] = [
    1_000, 2_000, 5_500, 11_000, 6_000, 9_000, 12_000, 18_000, 24_000, 36_000, 48_000, 54_000,
];

/// Marks a rate id as an HT/VHT/HE MCS rather than a non-HT rate in kbit/s: the cell's
/// rates are `u32` ids, `kbps` for b/a/g rates and `MCS_FLAG | nss << 8 | m` for per-stream
/// MCS `m` (0 … 11) with `nss` streams (HT MCS `8·(nss − 1) + m`); the width and GI are
/// the cell's ([`Phy::width_mhz`], [`Phy::gi_ns`]).
pub const MCS_FLAG: u32 = 1 << 31;

/// The rate id of per-stream MCS `m` with `nss` streams.
pub const fn mcs_id(nss: u32, m: u8) -> u32 {
    MCS_FLAG | nss << 8 | m as u32
}

/// `(nss, m)` of an MCS rate id, `None` for a non-HT rate.
#[inline]
pub fn mcs_of(id: u32) -> Option<(u32, u8)> {
    (id & MCS_FLAG != 0).then_some(((id >> 8) & 0xff, (id & 0xff) as u8))
}

/// Per-stream modulation and coding of MCS `m`: (N_BPSCS, R numerator, R denominator).
/// HT Table 19-27 for 0–7 (BPSK ½, QPSK ½, QPSK ¾, 16-QAM ½, 16-QAM ¾, 64-QAM ⅔, 64-QAM
/// ¾, 64-QAM ⅚), VHT Table 21-30 adds 256-QAM ¾ and ⅚, HE Table 27-55 1024-QAM ¾ and ⅚.
pub fn mcs_coding(m: u8) -> (u32, u32, u32) {
    match m {
        0 => (1, 1, 2),
        1 => (2, 1, 2),
        2 => (2, 3, 4),
        3 => (4, 1, 2),
        4 => (4, 3, 4),
        5 => (6, 2, 3),
        6 => (6, 3, 4),
        7 => (6, 5, 6),
        8 => (8, 3, 4),
        9 => (8, 5, 6),
        10 => (10, 3, 4),
        _ => (10, 5, 6),
    }
}

/// The non-HT reference rate of per-stream MCS `m`, kbit/s (IEEE 802.11-2020 §10.6.6.5.2
/// and Table 10-10: the 802.11a rate of the same modulation and code rate; 64-QAM ⅚ and
/// above map to 54 Mb/s): what a control response to an HT/VHT/HE PPDU is compared with.
pub fn non_ht_reference_kbps(m: u8) -> u32 {
    [6_000, 12_000, 18_000, 24_000, 36_000, 48_000, 54_000][m.min(6) as usize]
}

/// Bytes of an ACK and a CTS frame (§9.3.1.4, §9.3.1.3) and of an RTS (§9.3.1.2).
pub const ACK_BYTES: u32 = 14;
pub const CTS_BYTES: u32 = 14;
pub const RTS_BYTES: u32 = 20;
/// MAC framing around an IP packet in a data frame: 24 B header + 4 B FCS + 8 B LLC/SNAP
/// (RFC 1042 encapsulation), as ns-3 and Linux send it (non-QoS data).
pub const DATA_OVERHEAD_BYTES: u32 = 36;

/// APEP_LENGTH of an S-MPDU carrying one `mpdu`-byte MPDU (VHT and HE PPDUs always carry
/// an A-MPDU, §10.12): a 4-byte MPDU delimiter, the MPDU, padding to a 4-byte boundary
/// (§9.7.1).
pub fn s_mpdu_bytes(mpdu: u32) -> u32 {
    4 + mpdu.next_multiple_of(4)
}

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
    /// The band (b and g 2.4 GHz, a and ac 5 GHz; n and ax either).
    pub band: Band,
    /// Channel width of HT/VHT/HE PPDUs, MHz (20, 40, 80, 160); 20 for b/a/g.
    pub width_mhz: u32,
    /// Guard interval of HT/VHT/HE data symbols, ns: 800 or 400 (short GI) for n and ac;
    /// 800, 1600 or 3200 for ax.
    pub gi_ns: u32,
}

impl Phy {
    /// The standard's defaults in its default band (see the module documentation).
    pub fn new(standard: Standard) -> Phy {
        Phy::in_band(standard, standard.default_band())
    }

    /// The standard's defaults in `band` (n and ax: 2.4 or 5 GHz): aSlotTime 9 µs (short
    /// slot at 2.4 GHz), aSIFSTime 10 µs at 2.4 GHz and 16 µs at 5 GHz, aCWmin 15
    /// (Tables 19-25, 21-29, 27-54: HT/VHT/HE take the OFDM/ERP values of their band);
    /// 20 MHz, 0.8 µs GI.
    pub fn in_band(standard: Standard, band: Band) -> Phy {
        let (slot, sifs, cw_min) = match (standard, band) {
            (Standard::B, _) => (20, 10, 31),
            (Standard::A, _) | (_, Band::Ghz5) => (9, 16, 15),
            _ => (9, 10, 15),
        };
        let mut basic = default_basic(standard, band).to_vec();
        basic.sort_unstable();
        Phy {
            standard,
            short_preamble: false,
            slot: SimTime::from_micros(slot),
            sifs: SimTime::from_micros(sifs),
            cw_min,
            cw_max: 1023,
            basic_kbps: basic,
            band,
            width_mhz: 20,
            gi_ns: 800,
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
    /// (long preamble) for b and g and in the 2.4 GHz band, 6 Mb/s for a and at 5 GHz.
    pub fn eifs(&self) -> SimTime {
        let lowest = match (self.standard, self.band) {
            (Standard::A, _) | (_, Band::Ghz5) => 6_000,
            _ => 1_000,
        };
        let ack = Phy {
            short_preamble: false,
            ..self.clone()
        }
        .duration(ACK_BYTES, lowest);
        SimTime(self.sifs.0 + ack.0 + self.difs().0)
    }

    /// Whether `id` is a rate of this cell: a non-HT rate of its standard and band, or a
    /// valid MCS at its width.
    pub fn has_rate(&self, id: u32) -> bool {
        match mcs_of(id) {
            None => legacy_rates_kbps(self.standard, self.band).contains(&id),
            Some((nss, m)) => self.valid_mcs(nss, m),
        }
    }

    /// Whether per-stream MCS `m` with `nss` streams is valid for this cell's standard and
    /// width (HT: m ≤ 7, 1–4 streams, 20/40 MHz; VHT: [`vht::valid`]; HE: [`he::valid`]).
    pub fn valid_mcs(&self, nss: u32, m: u8) -> bool {
        match self.standard {
            Standard::N => m <= 7 && (1..=4).contains(&nss) && ht::n_sd(self.width_mhz).is_some(),
            Standard::Ac => vht::valid(m, nss, self.width_mhz),
            Standard::Ax => he::valid(m, nss, self.width_mhz),
            _ => false,
        }
    }

    /// Every rate id of the cell: the non-HT rates, then (n/ac/ax) the valid MCSs of 1–4
    /// streams at its width by ascending data rate.
    pub fn rates(&self) -> Vec<u32> {
        let mut v = legacy_rates_kbps(self.standard, self.band).to_vec();
        v.sort_unstable();
        if self.standard.has_mcs() {
            let mut m: Vec<u32> = (1..=4u32)
                .flat_map(|nss| (0..=11u8).map(move |m| mcs_id(nss, m)))
                .filter(|&id| self.has_rate(id))
                .collect();
            m.sort_by(|a, b| {
                self.rate_bps(*a)
                    .total_cmp(&self.rate_bps(*b))
                    .then(a.cmp(b))
            });
            v.extend(m);
        }
        v
    }

    /// (N_DBPS, T_SYM in ns) of MCS rate `(nss, m)` at the cell's width and GI.
    pub fn mcs_symbol(&self, nss: u32, m: u8) -> (u32, u64) {
        let w = self.width_mhz;
        match self.standard {
            Standard::N => (ht::n_dbps(m, nss, w), 3_200 + self.gi_ns as u64),
            Standard::Ac => (vht::n_dbps(m, nss, w), 3_200 + self.gi_ns as u64),
            _ => (he::n_dbps(m, nss, w), he::t_sym_ns(self.gi_ns)),
        }
    }

    /// The data rate of rate id `id`, bit/s (an MCS: N_DBPS / T_SYM).
    pub fn rate_bps(&self, id: u32) -> f64 {
        match mcs_of(id) {
            None => id as f64 * 1e3,
            Some((nss, m)) => {
                let (bits, t) = self.mcs_symbol(nss, m);
                bits as f64 * 1e9 / t as f64
            }
        }
    }

    /// A name of rate id `id` for reports: "54Mbit", "HT MCS 15", "VHT MCS 9 2SS".
    pub fn rate_name(&self, id: u32) -> String {
        match mcs_of(id) {
            None => format!("{}Mbit", id as f64 / 1000.0),
            Some((nss, m)) => match self.standard {
                Standard::N => format!("HT MCS {}", 8 * (nss - 1) + m as u32),
                Standard::Ac => format!("VHT MCS {m} {nss}SS"),
                _ => format!("HE MCS {m} {nss}SS"),
            },
        }
    }

    /// The modulation whose BER curve a frame at rate id `id` follows.
    pub fn modulation(&self, id: u32) -> Modulation {
        match (mcs_of(id), id) {
            (Some((_, m)), _) => Modulation::Mcs(m),
            (None, 1_000) => Modulation::Dsss1,
            (None, 2_000) => Modulation::Dsss2,
            (None, 5_500) => Modulation::Cck5_5,
            (None, 11_000) => Modulation::Cck11,
            (None, k) => Modulation::Ofdm((k / 1000) as u8),
        }
    }

    /// Air time of a PPDU carrying a `bytes`-byte PSDU (MPDU) at rate id `kbps`.
    #[inline]
    pub fn duration(&self, bytes: u32, kbps: u32) -> SimTime {
        if kbps & MCS_FLAG != 0 {
            return self.mcs_duration(bytes, kbps);
        }
        let us = if self.is_ofdm(kbps) {
            // N_DBPS = rate × 4 µs.
            let ndbps = kbps as u64 * 4 / 1000;
            let nsym = (16 + 8 * bytes as u64 + 6).div_ceil(ndbps);
            20 + 4 * nsym + self.ext_us()
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

    /// The signal extension of an OFDM PPDU in this cell, µs: 6 in the 2.4 GHz band (ERP,
    /// HT, HE), 0 at 5 GHz.
    #[inline]
    fn ext_us(&self) -> u64 {
        if self.band == Band::Ghz2_4 {
            6
        } else {
            0
        }
    }

    /// Air time of a PPDU carrying one `mpdu`-byte MPDU at MCS rate id `id`: HT as an
    /// MPDU, VHT and HE as an S-MPDU ([`s_mpdu_bytes`]); TXTIME of [`ht`], [`vht`], [`he`]
    /// (HE with no packet extension: a nominal packet padding of 0 µs).
    #[cold]
    fn mcs_duration(&self, mpdu: u32, id: u32) -> SimTime {
        let (nss, m) = mcs_of(id).expect("an MCS id");
        let (w, gi) = (self.width_mhz, self.gi_ns);
        let ext = self.ext_us() * 1000;
        SimTime(match self.standard {
            Standard::N => ht::txtime_ns(mpdu, m, nss, w, gi == 400, ext),
            Standard::Ac => vht::txtime_ns(s_mpdu_bytes(mpdu), m, nss, w, gi == 400),
            _ => he::txtime_ns(s_mpdu_bytes(mpdu), m, nss, w, gi, 0, ext),
        })
    }

    /// Air time of an HT, VHT or HE PPDU at MCS rate id `id` carrying an A-MPDU of
    /// `ampdu` octets (its subframes, delimiters and padding but the last subframe's:
    /// [`super::ampdu`]): TXTIME of [`ht`] for the A-MPDU as the PSDU, of [`vht`] and
    /// [`he`] for APEP_LENGTH (the A-MPDU padded to 4 octets).
    pub fn psdu_duration(&self, ampdu: u32, id: u32) -> SimTime {
        let (nss, m) = mcs_of(id).expect("an A-MPDU goes at an MCS");
        let (w, gi) = (self.width_mhz, self.gi_ns);
        let ext = self.ext_us() * 1000;
        let apep = super::ampdu::psdu_bytes(self.standard, ampdu);
        SimTime(match self.standard {
            Standard::N => ht::txtime_ns(apep, m, nss, w, gi == 400, ext),
            Standard::Ac => vht::txtime_ns(apep, m, nss, w, gi == 400),
            _ => he::txtime_ns(apep, m, nss, w, gi, 0, ext),
        })
    }

    /// Air time of the PLCP preamble and header of a PPDU at `kbps` (DSSS 192 µs long /
    /// 96 µs short; OFDM 20 µs; an HT/VHT/HE PPDU counts its non-HT part, 20 µs): what ns-3
    /// adds to SIFS + slot for the CTS and ACK timeouts (aRxPHYStartDelay in IEEE
    /// 802.11-2016 §10.3.2.7, §10.3.2.9).
    pub fn plcp(&self, kbps: u32) -> SimTime {
        let us = if self.is_ofdm(kbps) {
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
    /// (§17.3.2): the SIGNAL field, 4 µs at 6 Mb/s after the 16 µs preamble (an HT/VHT/HE
    /// PPDU: its L-SIG). What ns-3's `DsssPhy`/`OfdmPhy` check the header's PER over (the
    /// preamble itself is not).
    pub fn header_field(&self, kbps: u32) -> (SimTime, SimTime, u32) {
        let us = |x| SimTime::from_micros(x);
        if self.is_ofdm(kbps) {
            (us(16), us(4), 6_000)
        } else if self.short_preamble && kbps > 1_000 {
            (us(72), us(24), 2_000)
        } else {
            (us(144), us(48), 1_000)
        }
    }

    /// Whether rate id `kbps` is an OFDM rate of this cell (an MCS, or a non-HT OFDM rate;
    /// the others are DSSS/CCK).
    #[inline]
    pub fn is_ofdm(&self, kbps: u32) -> bool {
        match self.standard {
            Standard::B => false,
            Standard::A => true,
            _ => kbps & MCS_FLAG != 0 || !DSSS_RATES.contains(&kbps),
        }
    }

    /// The signal extension closing an OFDM PPDU in the 2.4 GHz band (ERP §18.3.2.4, HT
    /// §19.4.4, HE §27.3.4: 6 µs), no bits.
    pub fn signal_extension(&self, kbps: u32) -> SimTime {
        if self.standard != Standard::B && self.is_ofdm(kbps) {
            SimTime::from_micros(self.ext_us())
        } else {
            SimTime::ZERO
        }
    }

    /// The rate of a control response to a frame sent at rate id `kbps` (§10.6.6.5.2): the
    /// highest basic rate ≤ `kbps` of the same modulation class; if none, the lowest basic
    /// rate of that class; if the class has no basic rate, the highest mandatory rate of
    /// the class ≤ `kbps` (1 Mb/s DSSS, 6 Mb/s OFDM). An HT/VHT/HE PPDU is answered in
    /// non-HT OFDM, compared by its MCS's non-HT reference rate
    /// ([`non_ht_reference_kbps`]: 24 Mb/s from 16-QAM ½ up with the default basic set).
    #[inline]
    pub fn response_kbps(&self, kbps: u32) -> u32 {
        let kbps = match mcs_of(kbps) {
            Some((_, m)) => non_ht_reference_kbps(m),
            None => kbps,
        };
        let ofdm = self.is_ofdm(kbps);
        let same_class = || {
            self.basic_kbps
                .iter()
                .copied()
                .filter(move |&b| self.is_ofdm(b) == ofdm)
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

    /// Mbit/s of `(nss, m)` in a cell of `std` at `width` MHz and GI `gi` ns.
    fn mbps(std: Standard, width: u32, gi: u32, nss: u32, m: u8) -> f64 {
        let mut p = Phy::new(std);
        (p.width_mhz, p.gi_ns) = (width, gi);
        assert!(p.valid_mcs(nss, m), "{std:?} {width} MHz {nss} SS MCS {m}");
        p.rate_bps(mcs_id(nss, m)) / 1e6
    }

    /// Reference: the published rates (Mbit/s, one decimal) of IEEE 802.11-2020 Tables
    /// 19-27 … 19-34 (HT), 21-30 … 21-61 (VHT) and 802.11ax Tables 27-55 … 27-110 (HE),
    /// a representative subset typed from the tables; every other valid combination is
    /// enumerated from the standard's parameters and must give a positive rate that grows
    /// with the MCS. Tolerance: the tables' rounding, 0.05 Mbit/s.
    #[test]
    fn rates_match_the_standards_mcs_tables() {
        use Standard::*;
        #[rustfmt::skip]
        let table: &[(Standard, u32, u32, u32, &[f64])] = &[
            // (standard, width, GI ns, N_SS, rates of MCS 0, 1, …)
            (N, 20, 800, 1, &[6.5, 13.0, 19.5, 26.0, 39.0, 52.0, 58.5, 65.0]),
            (N, 20, 400, 1, &[7.2, 14.4, 21.7, 28.9, 43.3, 57.8, 65.0, 72.2]),
            (N, 20, 800, 2, &[13.0, 26.0, 39.0, 52.0, 78.0, 104.0, 117.0, 130.0]),
            (N, 20, 400, 4, &[28.9, 57.8, 86.7, 115.6, 173.3, 231.1, 260.0, 288.9]),
            (N, 40, 800, 1, &[13.5, 27.0, 40.5, 54.0, 81.0, 108.0, 121.5, 135.0]),
            (N, 40, 400, 1, &[15.0, 30.0, 45.0, 60.0, 90.0, 120.0, 135.0, 150.0]),
            (N, 40, 400, 2, &[30.0, 60.0, 90.0, 120.0, 180.0, 240.0, 270.0, 300.0]),
            (N, 40, 800, 3, &[40.5, 81.0, 121.5, 162.0, 243.0, 324.0, 364.5, 405.0]),
            (N, 40, 400, 4, &[60.0, 120.0, 180.0, 240.0, 360.0, 480.0, 540.0, 600.0]),
            (Ac, 20, 800, 1, &[6.5, 13.0, 19.5, 26.0, 39.0, 52.0, 58.5, 65.0, 78.0]),
            (Ac, 20, 400, 1, &[7.2, 14.4, 21.7, 28.9, 43.3, 57.8, 65.0, 72.2, 86.7]),
            (Ac, 20, 800, 3, &[19.5, 39.0, 58.5, 78.0, 117.0, 156.0, 175.5, 195.0, 234.0, 260.0]),
            (Ac, 40, 800, 1, &[13.5, 27.0, 40.5, 54.0, 81.0, 108.0, 121.5, 135.0, 162.0, 180.0]),
            (Ac, 40, 400, 1, &[15.0, 30.0, 45.0, 60.0, 90.0, 120.0, 135.0, 150.0, 180.0, 200.0]),
            (Ac, 80, 800, 1, &[29.3, 58.5, 87.8, 117.0, 175.5, 234.0, 263.3, 292.5, 351.0, 390.0]),
            (Ac, 80, 400, 1, &[32.5, 65.0, 97.5, 130.0, 195.0, 260.0, 292.5, 325.0, 390.0, 433.3]),
            (Ac, 80, 400, 2, &[65.0, 130.0, 195.0, 260.0, 390.0, 520.0, 585.0, 650.0, 780.0, 866.7]),
            (Ac, 160, 800, 1, &[58.5, 117.0, 175.5, 234.0, 351.0, 468.0, 526.5, 585.0, 702.0, 780.0]),
            (Ac, 160, 400, 1, &[65.0, 130.0, 195.0, 260.0, 390.0, 520.0, 585.0, 650.0, 780.0, 866.7]),
            (Ac, 160, 400, 4, &[260.0, 520.0, 780.0, 1040.0, 1560.0, 2080.0, 2340.0, 2600.0, 3120.0, 3466.7]),
            (Ax, 20, 800, 1, &[8.6, 17.2, 25.8, 34.4, 51.6, 68.8, 77.4, 86.0, 103.2, 114.7, 129.0, 143.4]),
            (Ax, 20, 1600, 1, &[8.1, 16.3, 24.4, 32.5, 48.8, 65.0, 73.1, 81.3, 97.5, 108.3, 121.9, 135.4]),
            (Ax, 20, 3200, 1, &[7.3, 14.6, 21.9, 29.3, 43.9, 58.5, 65.8, 73.1, 87.8, 97.5, 109.7, 121.9]),
            (Ax, 40, 800, 1, &[17.2, 34.4, 51.6, 68.8, 103.2, 137.6, 154.9, 172.1, 206.5, 229.4, 258.1, 286.8]),
            (Ax, 80, 800, 1, &[36.0, 72.1, 108.1, 144.1, 216.2, 288.2, 324.3, 360.3, 432.4, 480.4, 540.4, 600.4]),
            (Ax, 80, 3200, 1, &[30.6, 61.3, 91.9, 122.5, 183.8, 245.0, 275.6, 306.3, 367.5, 408.3, 459.4, 510.4]),
            (Ax, 160, 800, 1, &[72.1, 144.1, 216.2, 288.2, 432.4, 576.5, 648.5, 720.6, 864.7, 960.7, 1080.9, 1201.0]),
            (Ax, 160, 800, 2, &[144.1, 288.2, 432.4, 576.5, 864.7, 1152.9, 1297.1, 1441.2, 1729.4, 1921.5, 2161.8, 2401.9]),
            (Ax, 160, 800, 4, &[288.2, 576.5, 864.7, 1152.9, 1729.4, 2305.9, 2594.1, 2882.4, 3458.8, 3843.1, 4323.5, 4803.9]),
        ];
        for &(std, w, gi, nss, rates) in table {
            for (m, &want) in rates.iter().enumerate() {
                let got = mbps(std, w, gi, nss, m as u8);
                assert!(
                    (got - want).abs() <= 0.05 + 1e-9,
                    "{std:?} {w} MHz GI {gi} {nss} SS MCS {m}: {got} vs {want}"
                );
            }
        }
        // HT MCS 15 at 20 MHz = 130, MCS 31 at 40 MHz SGI = 600 (by HT index).
        let ht = |mcs: u32, w, gi| mbps(N, w, gi, mcs / 8 + 1, (mcs % 8) as u8);
        assert!((ht(15, 20, 800) - 130.0).abs() < 0.05);
        assert!((ht(31, 40, 400) - 600.0).abs() < 0.05);
        // The whole tables: every valid combination has a rate, increasing with the MCS.
        let mut count = 0;
        for (std, widths, gis, top) in [
            (N, &[20, 40][..], &[800, 400][..], 7u8),
            (Ac, &[20, 40, 80, 160][..], &[800, 400][..], 9),
            (Ax, &[20, 40, 80, 160][..], &[800, 1600, 3200][..], 11),
        ] {
            for &w in widths {
                for &gi in gis {
                    let mut p = Phy::new(std);
                    (p.width_mhz, p.gi_ns) = (w, gi);
                    for nss in 1..=4 {
                        let mut last = 0.0;
                        for m in 0..=top {
                            if !p.valid_mcs(nss, m) {
                                continue;
                            }
                            let r = p.rate_bps(mcs_id(nss, m));
                            assert!(r > last, "{std:?} {w} {gi} {nss} {m}");
                            last = r;
                            count += 1;
                        }
                    }
                }
            }
        }
        // HT 2·2·4·8 = 128; VHT 2·(4·4·10 − 5) = 310; HE 3·4·4·12 = 576.
        assert_eq!(count, 128 + 310 + 576);
    }

    /// A cell's PPDUs: HT carries the MPDU, VHT and HE an S-MPDU (4 + 1536 = 1540 B for a
    /// 1500-B IP packet); the ACK goes in non-HT OFDM at the highest basic rate ≤ the
    /// MCS's non-HT reference rate (§10.6.6.5.2), with the 2.4 GHz signal extension.
    ///
    /// - HT MCS 7, 20 MHz, 5 GHz, 1536-B MPDU: N_SYM = ceil((12288 + 22)/260) = ceil(47.35)
    ///   = 48; 36 + 192 = 228 µs. ACK at 24 Mb/s: 28 µs.
    /// - VHT MCS 0, 20 MHz: APEP 1540 → 1940 µs (worked in `vht`); ACK at 6 Mb/s: 44 µs.
    /// - HT MCS 7 at 2.4 GHz: 228 + 6 = 234 µs; ACK at 24 Mb/s ERP-OFDM 28 + 6 = 34 µs;
    ///   SIFS 10 µs, EIFS = 10 + 304 (ACK at 1 Mb/s) + 28 = 342 µs.
    #[test]
    fn cells_time_their_mpdus_and_answer_in_non_ht_ofdm() {
        let n = Phy::new(Standard::N);
        assert_eq!(us(n.data_duration(1500, mcs_id(1, 7))), 228);
        assert_eq!(n.response_kbps(mcs_id(1, 7)), 24_000);
        assert_eq!(n.response_kbps(mcs_id(2, 2)), 12_000); // ref 18 → basic 12
        assert_eq!(us(n.ack_duration(mcs_id(1, 7))), 28);
        assert_eq!((us(n.sifs), us(n.difs()), us(n.eifs())), (16, 34, 94));
        let ac = Phy::new(Standard::Ac);
        assert_eq!(us(ac.data_duration(1500, mcs_id(1, 0))), 1940);
        assert_eq!(us(ac.ack_duration(mcs_id(1, 0))), 44);
        let g = Phy::in_band(Standard::N, Band::Ghz2_4);
        assert_eq!(us(g.data_duration(1500, mcs_id(1, 7))), 234);
        assert_eq!(us(g.ack_duration(mcs_id(1, 7))), 34);
        assert_eq!((us(g.sifs), us(g.eifs())), (10, 342));
        assert!(g.has_rate(11_000) && !n.has_rate(11_000) && !n.has_rate(mcs_id(1, 8)));
    }
}
