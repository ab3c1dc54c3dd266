//! L2CAP segmentation of an SDU (an IP packet plus its L2CAP and BNEP headers) into
//! baseband packets (thesis, seed 001, §2.3.3 and §3.1, after Das et al., its ref. [5]).
//!
//! - **OSU** (Optimum Slot Utilization): the minimum number of baseband packets,
//!   `⌈len / largest payload⌉`, all of the largest allowed type except the last, which is
//!   the allowed type with the smallest payload that holds the remainder. With DH1/DH3/DH5
//!   a 1500-byte IP packet (1507 B with the headers) is 4 DH5 + 1 DH3 and a TCP ACK one
//!   DH3 (thesis §3.1, §3.2.3).
//! - **Best Fit**: each packet is the largest allowed type that the remaining data fills
//!   completely; a remainder smaller than every type goes in the smallest type that holds
//!   it. It never sends a partly empty packet before the last, at the price of more, shorter
//!   packets (the thesis gives no formula; this is our reading of "segmented ... using best
//!   fit strategy", §2.3.3).
//!
//! Both are pure functions of the SDU length and the allowed types (what a real L2CAP
//! knows), writing `(type, bytes)` pairs through a callback so that nothing allocates.

use super::baseband::{PacketType, TypeSet};

/// A segmentation policy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sar {
    Osu,
    BestFit,
}

impl Sar {
    pub fn parse(s: &str) -> Option<Sar> {
        match s {
            "osu" => Some(Sar::Osu),
            "best-fit" | "best_fit" => Some(Sar::BestFit),
            _ => None,
        }
    }

    /// Calls `out(type, bytes)` for each baseband packet of an SDU of `len` bytes, in
    /// order; returns how many. `allowed` must not be empty; `len` ≥ 1.
    pub fn segment(self, len: u32, allowed: TypeSet, mut out: impl FnMut(PacketType, u32)) -> u32 {
        let largest = allowed.largest().expect("an allowed type");
        let fitting = |rem: u32| {
            allowed
                .by_payload()
                .find(|t| t.payload() >= rem)
                .unwrap_or(largest)
        };
        let mut rem = len;
        let mut n = 0;
        while rem > 0 {
            let t = match self {
                Sar::Osu if rem > largest.payload() => largest,
                Sar::Osu => fitting(rem),
                Sar::BestFit => allowed
                    .by_payload()
                    .filter(|t| t.payload() <= rem)
                    .last()
                    .unwrap_or_else(|| fitting(rem)),
            };
            let b = rem.min(t.payload());
            out(t, b);
            rem -= b;
            n += 1;
        }
        n
    }

    /// How many baseband packets an SDU of `len` bytes becomes.
    pub fn count(self, len: u32, allowed: TypeSet) -> u32 {
        self.segment(len, allowed, |_, _| {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PacketType::*;

    fn seg(sar: Sar, len: u32, allowed: TypeSet) -> Vec<(PacketType, u32)> {
        let mut v = Vec::new();
        sar.segment(len, allowed, |t, b| v.push((t, b)));
        v
    }

    /// Thesis §3.1 / §3.2.3: OSU makes a 1500-byte IP packet 4 DH5 + 1 DH3 and a TCP ACK
    /// (52 B here: IPv4, TCP, timestamps) one DH3, with L2CAP (4 B) and BNEP (3 B) headers.
    #[test]
    fn thesis_osu_1500_byte_packet_is_4_dh5_and_1_dh3_and_an_ack_one_dh3() {
        let v = seg(Sar::Osu, 1500 + 7, TypeSet::DH);
        let types: Vec<PacketType> = v.iter().map(|x| x.0).collect();
        assert_eq!(types, [Dh5, Dh5, Dh5, Dh5, Dh3]);
        assert_eq!(v.iter().map(|x| x.1).sum::<u32>(), 1507);
        assert_eq!(seg(Sar::Osu, 52 + 7, TypeSet::DH), [(Dh3, 59)]);
        // The thesis's own 40-byte ACK too.
        assert_eq!(seg(Sar::Osu, 40 + 7, TypeSet::DH), [(Dh3, 47)]);
        // Minimum count: ⌈len / 339⌉ for any length.
        for len in 1..3000 {
            assert_eq!(Sar::Osu.count(len, TypeSet::DH), len.div_ceil(339), "{len}");
        }
    }

    #[test]
    fn best_fit_fills_every_packet_but_the_last() {
        let v = seg(Sar::BestFit, 1507, TypeSet::DH);
        // 4 × 339 = 1356, 151 left: no DH3 is filled, 5 DH1 are (135), 16 B in a DH1.
        let types: Vec<PacketType> = v.iter().map(|x| x.0).collect();
        assert_eq!(types, [Dh5, Dh5, Dh5, Dh5, Dh1, Dh1, Dh1, Dh1, Dh1, Dh1]);
        assert!(v[..v.len() - 1].iter().all(|&(t, b)| b == t.payload()));
        assert_eq!(
            seg(Sar::BestFit, 59, TypeSet::DH),
            [(Dh1, 27), (Dh1, 27), (Dh1, 5)]
        );
        assert_eq!(seg(Sar::BestFit, 183, TypeSet::DH), [(Dh3, 183)]);
    }

    #[test]
    fn restricted_type_sets() {
        let dh1 = TypeSet::of(&[Dh1]);
        assert_eq!(Sar::Osu.count(1507, dh1), 56);
        let dm5 = TypeSet::of(&[Dm5]);
        assert_eq!(seg(Sar::Osu, 300, dm5), [(Dm5, 224), (Dm5, 76)]);
    }
}
