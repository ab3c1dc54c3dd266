//! EDCA (IEEE 802.11-2016 §10.22.2, 802.11e): the four access categories, their default
//! parameter sets per PHY, and how a packet finds its access category — Linux's
//! `cfg80211_classify8021d` (DSCP → 802.1D user priority) followed by mac80211's
//! `ieee802_1d_to_ac` table (user priority → AC, 802.11-2016 Table 10-1).
//!
//! The channel access itself (one EDCA function per AC with its own back-off, internal
//! collisions, TXOPs) lives in the medium, [`super::dcf`].

use super::phy::{Phy, Standard};
use crate::engine::SimTime;

/// An access category. The numeric order is the priority order (`Vo` highest), so an
/// internal collision is won by the larger index; Linux numbers them the other way
/// round (`IEEE80211_AC_VO` = 0), which matters nowhere here.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ac {
    Bk = 0,
    Be = 1,
    Vi = 2,
    Vo = 3,
}

impl Ac {
    pub const ALL: [Ac; 4] = [Ac::Bk, Ac::Be, Ac::Vi, Ac::Vo];

    pub fn name(self) -> &'static str {
        match self {
            Ac::Bk => "AC_BK",
            Ac::Be => "AC_BE",
            Ac::Vi => "AC_VI",
            Ac::Vo => "AC_VO",
        }
    }

    pub fn from_index(i: usize) -> Ac {
        Ac::ALL[i]
    }
}

/// The EDCA parameters of one access category (an EDCA Parameter Set record).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EdcaParams {
    /// AIFS = SIFS + `aifsn` slots (§10.3.2.3.6); at least 1 (2 for non-AP stations).
    pub aifsn: u32,
    pub cw_min: u32,
    pub cw_max: u32,
    /// TXOP limit (0: one frame exchange per channel access).
    pub txop: SimTime,
}

impl EdcaParams {
    /// The legacy DCF seen as one EDCA function: AIFSN 2 (AIFS = DIFS), the PHY's CW,
    /// no TXOP.
    pub fn dcf(phy: &Phy) -> EdcaParams {
        EdcaParams {
            aifsn: 2,
            cw_min: phy.cw_min,
            cw_max: phy.cw_max,
            txop: SimTime::ZERO,
        }
    }
}

/// The default EDCA parameter set (IEEE 802.11-2016 Table 9-137, the values a non-AP
/// station uses and that Linux's `ieee80211_set_wmm_default` installs on every interface,
/// AP included), indexed by [`Ac`] (BK, BE, VI, VO), from the PHY's aCWmin and aCWmax:
///
/// | AC | CWmin | CWmax | AIFSN | TXOP limit (DSSS/HR-DSSS) | (OFDM, ERP) |
/// | --- | --- | --- | --- | --- | --- |
/// | BK | aCWmin | aCWmax | 7 | 0 | 0 |
/// | BE | aCWmin | aCWmax | 3 | 0 | 0 |
/// | VI | (aCWmin+1)/2 − 1 | aCWmin | 2 | 6.016 ms | 3.008 ms |
/// | VO | (aCWmin+1)/4 − 1 | (aCWmin+1)/2 − 1 | 2 | 3.264 ms | 1.504 ms |
///
/// 802.11b takes the DSSS limits, 802.11a and g the OFDM ones (Linux: `use_11b` only on
/// a band without OFDM rates). hostapd's AP (dot11QAPEDCATable: VO/VI AIFSN 1, BE CWmax
/// 4·(aCWmin+1) − 1) differs; set it with the cell's `edca` overrides.
pub fn default_params(phy: &Phy) -> [EdcaParams; 4] {
    let (a_min, a_max) = (phy.cw_min, phy.cw_max);
    let dsss = phy.standard == Standard::B;
    let (vi_txop, vo_txop) = if dsss { (6016, 3264) } else { (3008, 1504) };
    // (aCWmin + 1)/2 − 1 and (aCWmin + 1)/4 − 1, aCWmin = 2^k − 1.
    let (half, quarter) = ((a_min + 1) >> 1, (a_min + 1) >> 2);
    [
        EdcaParams {
            aifsn: 7,
            cw_min: a_min,
            cw_max: a_max,
            txop: SimTime::ZERO,
        },
        EdcaParams {
            aifsn: 3,
            cw_min: a_min,
            cw_max: a_max,
            txop: SimTime::ZERO,
        },
        EdcaParams {
            aifsn: 2,
            cw_min: half - 1,
            cw_max: a_min,
            txop: SimTime::from_micros(vi_txop),
        },
        EdcaParams {
            aifsn: 2,
            cw_min: quarter - 1,
            cw_max: half - 1,
            txop: SimTime::from_micros(vo_txop),
        },
    ]
}

/// The 802.1D user priority of a packet as Linux's `cfg80211_classify8021d` (net/wireless/
/// util.c, without a QoS map or VLAN tag) gives it: `skb->priority` 256…263 names it
/// directly; otherwise the DSCP's three high bits (RFC 8325 §2.3's "default DSCP-to-UP"),
/// except where RFC 8325 §4 says otherwise (the exceptions Linux added in 2023): AF11–13
/// and CS2 → 0, AF21–23 → 3, CS3 and AF31–33 → 4, VA (44) and EF (46) → 6, CS6 → 7.
/// `dscp` is the 6-bit code point.
pub fn classify8021d(dscp: u8, priority: u32) -> u8 {
    if (256..=263).contains(&priority) {
        return (priority - 256) as u8;
    }
    let dscp = dscp & 0x3f;
    match dscp {
        10 | 12 | 14 | 16 => 0,
        18 | 20 | 22 => 3,
        24 | 26 | 28 | 30 => 4,
        44 | 46 => 6,
        48 => 7,
        d => d >> 3,
    }
}

/// User priority → access category (802.11-2016 Table 10-1; mac80211's
/// `ieee802_1d_to_ac`): 1, 2 → BK; 0, 3 → BE; 4, 5 → VI; 6, 7 → VO.
pub fn up_to_ac(up: u8) -> Ac {
    match up & 7 {
        1 | 2 => Ac::Bk,
        0 | 3 => Ac::Be,
        4 | 5 => Ac::Vi,
        _ => Ac::Vo,
    }
}

/// The access category of a packet with `dscp` and `skb->priority` `priority`.
pub fn classify(dscp: u8, priority: u32) -> Ac {
    up_to_ac(classify8021d(dscp, priority))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: RFC 8325 §4 (Figure 1) as Linux's `cfg80211_classify8021d` implements
    /// it, and 802.11-2016 Table 10-1 (UP → AC). Each row: DSCP name, value, UP, AC.
    #[test]
    fn dscp_maps_to_user_priority_and_ac_as_linux() {
        let table = [
            ("DF", 0, 0, Ac::Be),
            ("CS1", 8, 1, Ac::Bk),
            ("AF11", 10, 0, Ac::Be),
            ("AF13", 14, 0, Ac::Be),
            ("CS2", 16, 0, Ac::Be),
            ("AF21", 18, 3, Ac::Be),
            ("AF23", 22, 3, Ac::Be),
            ("CS3", 24, 4, Ac::Vi),
            ("AF31", 26, 4, Ac::Vi),
            ("CS4", 32, 4, Ac::Vi),
            ("AF41", 34, 4, Ac::Vi),
            ("AF43", 38, 4, Ac::Vi),
            ("CS5", 40, 5, Ac::Vi),
            ("VA", 44, 6, Ac::Vo),
            ("EF", 46, 6, Ac::Vo),
            ("CS6", 48, 7, Ac::Vo),
            ("CS7", 56, 7, Ac::Vo),
            // Unassigned code points: the three high bits.
            ("(4)", 4, 0, Ac::Be),
            ("(12)", 12, 0, Ac::Be),
            ("(42)", 42, 5, Ac::Vi),
        ];
        for (name, dscp, up, ac) in table {
            assert_eq!(classify8021d(dscp, 0), up, "{name}");
            assert_eq!(classify(dscp, 0), ac, "{name}");
        }
        // skb->priority 256 + UP overrides the DSCP.
        assert_eq!(classify8021d(46, 256 + 1), 1);
        assert_eq!(classify(0, 256 + 6), Ac::Vo);
        // Other priorities (e.g. rt_tos2priority's 6) do not.
        assert_eq!(classify(0, 6), Ac::Be);
        let up_ac: Vec<Ac> = (0..8).map(up_to_ac).collect();
        assert_eq!(
            up_ac,
            [
                Ac::Be,
                Ac::Bk,
                Ac::Bk,
                Ac::Be,
                Ac::Vi,
                Ac::Vi,
                Ac::Vo,
                Ac::Vo
            ]
        );
    }

    /// Reference: 802.11-2016 Table 9-137 with aCWmin 31 (802.11b) and 15 (802.11a).
    #[test]
    fn default_parameter_sets_follow_table_9_137() {
        let b = default_params(&Phy::new(Standard::B));
        let got: Vec<(u32, u32, u32, u64)> = b
            .iter()
            .map(|p| (p.aifsn, p.cw_min, p.cw_max, p.txop.0 / 1000))
            .collect();
        assert_eq!(
            got,
            [
                (7, 31, 1023, 0),
                (3, 31, 1023, 0),
                (2, 15, 31, 6016),
                (2, 7, 15, 3264)
            ]
        );
        let a = default_params(&Phy::new(Standard::A));
        let got: Vec<(u32, u32, u32, u64)> = a
            .iter()
            .map(|p| (p.aifsn, p.cw_min, p.cw_max, p.txop.0 / 1000))
            .collect();
        assert_eq!(
            got,
            [
                (7, 15, 1023, 0),
                (3, 15, 1023, 0),
                (2, 7, 15, 3008),
                (2, 3, 7, 1504)
            ]
        );
        assert_eq!(default_params(&Phy::new(Standard::G))[3].txop.0, 1_504_000);
    }
}
