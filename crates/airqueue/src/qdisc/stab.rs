//! Size tables (`tc … stab`, tc-stab(8)): the packet length a qdisc charges, computed from
//! the length Linux's qdiscs see (`skb->len`: the IP datagram plus the device's link-layer
//! header, `links.*.link_header`) as `__qdisc_calculate_pkt_len` (`net/sched/sch_api.c`)
//! does with the table `tc_calc_size_table` (iproute2 `tc/tc_stab.c`, `tc_core.c`) builds.
//!
//! - `linklayer = "ethernet"` without `mpu`: no table; the length is `skb->len + overhead`.
//! - otherwise a table of `tsize` cells of `2^cell_log` bytes (`cell_log` the smallest with
//!   `mtu >> cell_log <= tsize − 1`, `cell_align = −1`): slot = (len + overhead − 1) >>
//!   cell_log, and the charged length is `tc_adjust_size((slot + 1) << cell_log)`: at least
//!   `mpu`, and on ATM the 48-byte cells it takes times 53 (`tc_align_to_atm`). Slots past
//!   the table wrap as the kernel's `data[tsize−1] · (slot / tsize) + data[slot % tsize]`.
//! - the result is at least 1.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The link layer a size table accounts for (tc-stab(8) `linklayer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LinkLayer {
    /// Bytes as they are (plus `overhead`, at least `mpu`).
    #[default]
    Ethernet,
    /// ATM/ADSL: the length in 48-byte cell payloads, 53 bytes each.
    Atm,
}

/// A size table (`tc qdisc add … stab overhead O linklayer L mpu M …`, tc-stab(8)).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StabConf {
    /// Bytes added to every packet's length (may be negative), e.g. 14 for an Ethernet
    /// header the device does not count, or 38 for preamble, header, FCS and gap.
    #[serde(default)]
    pub overhead: i32,
    /// "ethernet" (default) or "atm".
    #[serde(default)]
    pub linklayer: LinkLayer,
    /// Minimum packet unit: shorter packets are charged this many bytes (e.g. 64 on Ethernet).
    #[serde(default)]
    pub mpu: u32,
    /// Largest length the table covers (tc's default 2047); longer packets wrap as the
    /// kernel computes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u32>,
    /// Cells in the table (tc's default 512).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tsize: Option<u32>,
}

/// A built size table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeTable {
    overhead: i32,
    cell_log: u32,
    /// Empty: no table (ethernet without mpu).
    data: Vec<u32>,
}

impl SizeTable {
    /// `tc_calc_size_table`. Problems (a zero `tsize`) are the caller's to report first.
    pub fn new(c: &StabConf) -> SizeTable {
        if c.linklayer == LinkLayer::Ethernet && c.mpu == 0 {
            return SizeTable {
                overhead: c.overhead,
                cell_log: 0,
                data: Vec::new(),
            };
        }
        let mtu = c.mtu.filter(|&m| m > 0).unwrap_or(2047);
        let tsize = c.tsize.filter(|&t| t > 1).unwrap_or(512);
        let mut cell_log = 0;
        while (mtu >> cell_log) > tsize - 1 {
            cell_log += 1;
        }
        let data = (0..tsize)
            .map(|i| adjust_size((i + 1) << cell_log, c.mpu, c.linklayer))
            .collect();
        SizeTable {
            overhead: c.overhead,
            cell_log,
            data,
        }
    }

    /// The length a qdisc charges for a packet of `len` bytes (`skb->len`).
    #[inline]
    pub fn pkt_len(&self, len: u32) -> u32 {
        let mut pkt_len = len as i64 + self.overhead as i64;
        if !self.data.is_empty() {
            // cell_align = −1
            let slot = ((pkt_len - 1).max(0) >> self.cell_log) as usize;
            let tsize = self.data.len();
            pkt_len = if slot < tsize {
                self.data[slot] as i64
            } else {
                self.data[tsize - 1] as i64 * (slot / tsize) as i64 + self.data[slot % tsize] as i64
            };
        }
        pkt_len.clamp(1, u32::MAX as i64) as u32
    }
}

/// `tc_adjust_size`: at least `mpu`, then the link layer's framing.
fn adjust_size(sz: u32, mpu: u32, ll: LinkLayer) -> u32 {
    let sz = sz.max(mpu);
    match ll {
        LinkLayer::Ethernet => sz,
        LinkLayer::Atm => sz.div_ceil(48) * 53,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: tc-stab(8) and `__qdisc_calculate_pkt_len`, computed by hand. Ethernet
    /// with an overhead only adds it; mpu 64 lifts short packets (table cells of 4 bytes
    /// for mtu 2047, tsize 512: a 61-byte packet is charged 64, a 1500-byte one 1500, a
    /// 1501-byte one 1504); ATM with overhead 10 charges 1500 B as 1510 → slot 377 →
    /// 1512 B → 32 cells → 1696 B, and 40 B as 50 → 52 B → 2 cells → 106 B.
    #[test]
    fn lengths_match_the_kernels_computation() {
        let eth = SizeTable::new(&StabConf {
            overhead: 14,
            ..Default::default()
        });
        assert_eq!((eth.pkt_len(1500), eth.pkt_len(40)), (1514, 54));
        let neg = SizeTable::new(&StabConf {
            overhead: -100,
            ..Default::default()
        });
        assert_eq!(neg.pkt_len(40), 1);
        let mpu = SizeTable::new(&StabConf {
            mpu: 64,
            ..Default::default()
        });
        assert_eq!(mpu.cell_log, 2);
        assert_eq!(
            (mpu.pkt_len(61), mpu.pkt_len(1500), mpu.pkt_len(1501)),
            (64, 1500, 1504)
        );
        let atm = SizeTable::new(&StabConf {
            overhead: 10,
            linklayer: LinkLayer::Atm,
            ..Default::default()
        });
        assert_eq!((atm.pkt_len(1500), atm.pkt_len(40)), (1696, 106));
        // Past the table (512 cells of 4 B): 3000 + 10 → slot 752 → data[511] · 1 +
        // data[240]: 2048 B → 43 cells = 2279 B, 964 B → 21 cells = 1113 B; 3392 B.
        assert_eq!(atm.pkt_len(3000), 2279 + 1113);
    }
}
