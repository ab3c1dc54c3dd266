//! Bluetooth BR baseband packets and slot timing (Bluetooth Core 1.2, Vol. 2 Part B §6.5;
//! thesis, seed 001, §2.1.1 and Table 2.1).
//!
//! Time is divided into 625 µs slots (TDD): the master transmits starting in even slots,
//! the slave it addressed answers starting in the next slot after the master's packet
//! ends. An ACL packet occupies 1, 3 or 5 slots; POLL (master) and NULL (slave) carry no
//! payload and occupy one slot. A master–slave exchange (a *frame*) therefore lasts
//! `slots(master) + slots(slave)` slots, always an even number.
//!
//! User payload capacities are the specification's (Vol. 2 Part B Table 6.9): DM1 17 B,
//! DH1 27 B, DM3 121 B, DH3 183 B, DM5 224 B, DH5 339 B. DM packets protect their payload
//! with the 2/3 FEC, a (15,10) shortened Hamming code that corrects one error per 15-bit
//! codeword (§7.5). Their maximum asymmetric throughput is the payload of the forward
//! packet over the forward slots plus one return slot, the symmetric one the payload
//! over twice its slots: DH5 723.2 / 433.9 kb/s, DH1 172.8 kb/s symmetric, DM5
//! 477.8 kb/s asymmetric (§6.5.4, Table 6.9).

use crate::engine::SimTime;

/// One baseband slot, 625 µs.
pub const SLOT: SimTime = SimTime(625_000);

/// A baseband packet type on an ACL link, or POLL/NULL.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PacketType {
    Dm1,
    Dh1,
    Dm3,
    Dh3,
    Dm5,
    Dh5,
    /// Master's empty packet that polls a slave (1 slot).
    Poll,
    /// Slave's empty answer (1 slot).
    Null,
}

/// The six ACL data packet types, in the order of [`PacketType`].
pub const ACL_TYPES: [PacketType; 6] = [
    PacketType::Dm1,
    PacketType::Dh1,
    PacketType::Dm3,
    PacketType::Dh3,
    PacketType::Dm5,
    PacketType::Dh5,
];

impl PacketType {
    /// Slots the packet occupies.
    #[inline]
    pub const fn slots(self) -> u64 {
        match self {
            PacketType::Dm1 | PacketType::Dh1 | PacketType::Poll | PacketType::Null => 1,
            PacketType::Dm3 | PacketType::Dh3 => 3,
            PacketType::Dm5 | PacketType::Dh5 => 5,
        }
    }

    /// User payload capacity, bytes (0 for POLL/NULL).
    #[inline]
    pub const fn payload(self) -> u32 {
        match self {
            PacketType::Dm1 => 17,
            PacketType::Dh1 => 27,
            PacketType::Dm3 => 121,
            PacketType::Dh3 => 183,
            PacketType::Dm5 => 224,
            PacketType::Dh5 => 339,
            PacketType::Poll | PacketType::Null => 0,
        }
    }

    /// Whether the payload is protected by the 2/3 FEC (DM types).
    #[inline]
    pub const fn fec_2_3(self) -> bool {
        matches!(self, PacketType::Dm1 | PacketType::Dm3 | PacketType::Dm5)
    }

    /// Its air time counted in whole slots.
    #[inline]
    pub fn duration(self) -> SimTime {
        SimTime(SLOT.0 * self.slots())
    }

    /// The specification's name ("DH5").
    pub const fn name(self) -> &'static str {
        match self {
            PacketType::Dm1 => "DM1",
            PacketType::Dh1 => "DH1",
            PacketType::Dm3 => "DM3",
            PacketType::Dh3 => "DH3",
            PacketType::Dm5 => "DM5",
            PacketType::Dh5 => "DH5",
            PacketType::Poll => "POLL",
            PacketType::Null => "NULL",
        }
    }

    /// The ACL type called `name` (case-insensitive), if any.
    pub fn parse(name: &str) -> Option<PacketType> {
        ACL_TYPES
            .iter()
            .copied()
            .find(|t| t.name().eq_ignore_ascii_case(name))
    }

    /// Bits on which channel errors are drawn: the user payload capacity, as the thesis
    /// computes the PER (§4.2.1, Table 4.1: a DH5 is 2712 bits, a DH3 1464 bits, whatever
    /// its fill). Access code and header are sent with strong coding (the header with
    /// the 1/3 repetition code) and are not counted.
    #[inline]
    pub const fn error_bits(self) -> u64 {
        self.payload() as u64 * 8
    }

    /// Time on the air of a packet carrying `bytes` of user payload, at 1 Mb/s: access
    /// code 72 bits and header 54 bits, then (ACL data) the payload header (1 byte in a
    /// 1-slot packet, 2 in a multi-slot one), the payload and a 16-bit CRC, expanded by
    /// 15/10 for DM's 2/3 FEC (Core 1.2 Vol. 2 Part B §6.4–6.5). POLL/NULL: 126 µs.
    pub fn air_time(self, bytes: u32) -> SimTime {
        let head = 72 + 54;
        let bits = match self {
            PacketType::Poll | PacketType::Null => 0,
            t => {
                let ph = if t.slots() == 1 { 8 } else { 16 };
                let b = u64::from(ph + 8 * bytes.min(t.payload()) + 16);
                if t.fec_2_3() {
                    b.div_ceil(10) * 15
                } else {
                    b
                }
            }
        };
        SimTime::from_micros(head + bits)
    }

    /// (15,10) codewords of a DM payload (10 information bits each, §7.5); 0 for DH.
    #[inline]
    pub const fn codewords(self) -> u64 {
        if self.fec_2_3() {
            self.error_bits().div_ceil(10)
        } else {
            0
        }
    }
}

#[cfg(test)]
mod air_tests {
    use super::*;

    /// Core 1.2 Vol. 2 Part B §6.5: a full DH5 is 72 + 54 + 16 + 2712 + 16 = 2870 bits
    /// (under its 5 slots, 3125 µs), a full DH1 366 bits, POLL 126 bits.
    #[test]
    fn air_times_of_full_packets_follow_the_packet_format() {
        assert_eq!(PacketType::Dh5.air_time(339), SimTime::from_micros(2870));
        assert_eq!(PacketType::Dh1.air_time(27), SimTime::from_micros(366));
        assert_eq!(PacketType::Poll.air_time(0), SimTime::from_micros(126));
        // DM1: (8 + 136 + 16) bits → 16 codewords → 240 bits.
        assert_eq!(PacketType::Dm1.air_time(17), SimTime::from_micros(366));
        for t in ACL_TYPES {
            assert!(t.air_time(t.payload()) <= t.duration());
        }
    }
}

/// Maximum asymmetric throughput of `t`, bit/s: `t` forward, a 1-slot packet back.
pub fn max_asymmetric_bps(t: PacketType) -> f64 {
    f64::from(t.payload()) * 8.0 / ((t.slots() + 1) as f64 * SLOT.0 as f64 * 1e-9)
}

/// Maximum symmetric throughput of `t` per direction, bit/s: `t` both ways.
pub fn max_symmetric_bps(t: PacketType) -> f64 {
    f64::from(t.payload()) * 8.0 / ((2 * t.slots()) as f64 * SLOT.0 as f64 * 1e-9)
}

/// A set of allowed ACL packet types (HCI `Packet_Type` of a connection), as a bit mask
/// over [`ACL_TYPES`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TypeSet(pub u8);

impl TypeSet {
    /// DH1, DH3 and DH5: the thesis's packets (§3.1).
    pub const DH: TypeSet = TypeSet(0b10_1010);

    pub fn of(types: &[PacketType]) -> TypeSet {
        TypeSet(types.iter().fold(0, |m, &t| m | (1 << t as u8)))
    }

    #[inline]
    pub fn contains(self, t: PacketType) -> bool {
        self.0 & (1 << t as u8) != 0
    }

    /// The allowed types, smallest payload first ([`ACL_TYPES`] is in that order, a test
    /// checks it), without allocating: segmentation asks for every baseband packet.
    #[inline]
    pub fn by_payload(self) -> impl Iterator<Item = PacketType> {
        ACL_TYPES.into_iter().filter(move |&t| self.contains(t))
    }

    /// The allowed type with the largest payload.
    pub fn largest(self) -> Option<PacketType> {
        self.by_payload().last()
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `TypeSet::by_payload` relies on it: the ACL types ascend by payload.
    #[test]
    fn acl_types_ascend_by_payload() {
        assert!(ACL_TYPES
            .windows(2)
            .all(|w| w[0].payload() < w[1].payload()));
        let set = TypeSet::of(&[PacketType::Dh5, PacketType::Dm1, PacketType::Dh3]);
        let v: Vec<PacketType> = set.by_payload().collect();
        assert_eq!(v, [PacketType::Dm1, PacketType::Dh3, PacketType::Dh5]);
    }

    /// Bluetooth Core 1.2 Vol. 2 Part B Table 6.9 (and thesis Table 2.1's payloads): the
    /// maximum rates follow from slot arithmetic.
    #[test]
    fn spec_table_6_9_maximum_rates_from_slot_arithmetic() {
        let r = |x: f64| (x / 100.0).floor() / 10.0; // kb/s, one decimal, truncated as printed
        assert_eq!(r(max_asymmetric_bps(PacketType::Dh5)), 723.2);
        assert_eq!(r(max_symmetric_bps(PacketType::Dh5)), 433.9);
        assert_eq!(r(max_symmetric_bps(PacketType::Dh1)), 172.8);
        assert_eq!(r(max_asymmetric_bps(PacketType::Dm5)), 477.8);
        assert_eq!(r(max_asymmetric_bps(PacketType::Dh3)), 585.6);
        assert_eq!(r(max_asymmetric_bps(PacketType::Dm1)), 108.8);
    }

    #[test]
    fn thesis_table_4_1_error_bits() {
        assert_eq!(PacketType::Dh5.error_bits(), 2712);
        assert_eq!(PacketType::Dh3.error_bits(), 1464);
        assert_eq!(PacketType::parse("dh5"), Some(PacketType::Dh5));
        assert_eq!(
            TypeSet::DH,
            TypeSet::of(&[PacketType::Dh1, PacketType::Dh3, PacketType::Dh5])
        );
        assert_eq!(TypeSet::DH.largest(), Some(PacketType::Dh5));
    }
}
