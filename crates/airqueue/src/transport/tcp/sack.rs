//! Selective acknowledgments: the SACK option's blocks (RFC 2018) and the sender's
//! scoreboard with the RFC 6675 loss-recovery routines.
//!
//! The receiver reports up to [`MAX_SACK_BLOCKS`] blocks of out-of-order data with each ACK
//! (RFC 2018 §4: the first block holds the segment that triggered the ACK, the others
//! repeat the most recently reported blocks). The sender keeps every SACKed range above
//! `snd_una` in a [`Scoreboard`] and derives from it what RFC 6675 §4 defines:
//!
//! * `IsLost(s)`: DupThresh discontiguous SACKed blocks above `s`, or more than
//!   (DupThresh − 1)·SMSS SACKed bytes above it. Both counts only grow as `s` falls, so
//!   every hole below one lost byte is lost too: the scoreboard computes the *loss
//!   boundary* L once per ACK ([`Scoreboard::loss_boundary`]) and `IsLost(s)` is
//!   "`s` < L and not SACKed".
//! * `SetPipe`: bytes not SACKed and not lost between `snd_una` and `snd_max`, plus the
//!   retransmitted bytes (below `HighRxt`) not SACKed ([`Scoreboard::pipe`]).
//! * `NextSeg` rules (1) and (3) ([`Scoreboard::next_hole`]); rule (2), new data, is the
//!   sender's; the optional rescue retransmission (4) is not modelled.
//!
//! Sequence numbers are the sender's `u64` byte offsets. The scoreboard never allocates
//! after it has grown to the largest number of holes seen.

/// Blocks an ACK carries: 3 with the timestamp option in the 40 B of TCP option space
/// (RFC 2018 §3: 2 + 8·n bytes; 10 B of timestamps leave room for 3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// The SACK option of one ACK: up to [`MAX_SACK_BLOCKS`] `[start, end)` blocks, first the
/// most recent.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u64, u64); MAX_SACK_BLOCKS],
    len: u8,
}

impl SackBlocks {
    /// No blocks (an ACK without the option).
    pub const NONE: SackBlocks = SackBlocks {
        blocks: [(0, 0); MAX_SACK_BLOCKS],
        len: 0,
    };

    /// Blocks from a slice (at most [`MAX_SACK_BLOCKS`] are kept).
    pub fn from_slice(blocks: &[(u64, u64)]) -> SackBlocks {
        let mut s = SackBlocks::NONE;
        for &b in blocks.iter().take(MAX_SACK_BLOCKS) {
            s.push(b);
        }
        s
    }

    /// Appends a block if there is room.
    pub fn push(&mut self, block: (u64, u64)) {
        if usize::from(self.len) < MAX_SACK_BLOCKS {
            self.blocks[usize::from(self.len)] = block;
            self.len += 1;
        }
    }

    /// The blocks, most recent first.
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..usize::from(self.len)]
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of TCP option space the blocks take on the wire (RFC 2018 §3: kind, length,
    /// 8 bytes per block; 0 without blocks), before padding.
    pub fn option_bytes(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            2 + 8 * u32::from(self.len)
        }
    }
}

/// The sender's record of SACKed data above `snd_una` (RFC 6675 §3 "scoreboard").
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Sorted, disjoint, non-adjacent SACKed ranges, all above the cumulative ACK.
    ranges: Vec<(u64, u64)>,
}

impl Scoreboard {
    pub fn new() -> Scoreboard {
        Scoreboard {
            ranges: Vec::with_capacity(8),
        }
    }

    /// Forgets everything (after a timeout: RFC 2018 §8, the receiver may renege).
    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    /// The SACKed ranges, ascending.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Takes an ACK: drops what the cumulative ACK `una` covers and records `blocks`
    /// (ignoring any part at or below `una`, or beyond `snd_max`, RFC 2018 §4 D-SACK-free).
    /// Returns whether a block SACKed something not SACKed before.
    pub fn update(&mut self, una: u64, snd_max: u64, blocks: &SackBlocks) -> bool {
        let drop = self.ranges.partition_point(|&(_, e)| e <= una);
        self.ranges.drain(..drop);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(una);
        }
        let mut new_data = false;
        for &(s, e) in blocks.as_slice() {
            let (s, e) = (s.max(una), e.min(snd_max));
            if s < e {
                new_data |= self.insert(s, e);
            }
        }
        new_data
    }

    /// [`Scoreboard::update`] that also calls `f(start, end)` for each part of a block
    /// that was not SACKed before (in block order), before recording it.
    pub fn update_each(
        &mut self,
        una: u64,
        snd_max: u64,
        blocks: &SackBlocks,
        mut f: impl FnMut(u64, u64),
    ) -> bool {
        let drop = self.ranges.partition_point(|&(_, e)| e <= una);
        self.ranges.drain(..drop);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(una);
        }
        let mut new_data = false;
        for &(s, e) in blocks.as_slice() {
            let (s, e) = (s.max(una), e.min(snd_max));
            if s >= e {
                continue;
            }
            let mut seq = s;
            let i = self.ranges.partition_point(|&(_, re)| re <= s);
            for &(rs, re) in &self.ranges[i..] {
                if rs >= e {
                    break;
                }
                if seq < rs {
                    f(seq, rs);
                }
                seq = seq.max(re);
            }
            if seq < e {
                f(seq, e);
            }
            new_data |= self.insert(s, e);
        }
        new_data
    }

    /// Inserts `[s, e)`; returns whether it covered bytes not SACKed before.
    fn insert(&mut self, s: u64, e: u64) -> bool {
        let i = self.ranges.partition_point(|&(_, re)| re < s);
        let mut j = i;
        let (mut ns, mut ne) = (s, e);
        let mut covered = 0;
        while j < self.ranges.len() && self.ranges[j].0 <= e {
            let (rs, re) = self.ranges[j];
            covered += re.min(e).saturating_sub(rs.max(s));
            ns = ns.min(rs);
            ne = ne.max(re);
            j += 1;
        }
        if j == i {
            self.ranges.insert(i, (ns, ne));
        } else {
            self.ranges[i] = (ns, ne);
            self.ranges.drain(i + 1..j);
        }
        covered < e - s
    }

    /// Whether byte `seq` has been SACKed.
    pub fn is_sacked(&self, seq: u64) -> bool {
        let i = self.ranges.partition_point(|&(_, e)| e <= seq);
        i < self.ranges.len() && self.ranges[i].0 <= seq
    }

    /// Bytes SACKed in `[from, to)`.
    pub fn sacked_in(&self, from: u64, to: u64) -> u64 {
        self.ranges
            .iter()
            .map(|&(s, e)| e.min(to).saturating_sub(s.max(from)))
            .sum()
    }

    /// The highest SACKed byte + 1 (0 if none).
    pub fn highest_sacked(&self) -> u64 {
        self.ranges.last().map_or(0, |r| r.1)
    }

    /// RFC 6675 §4 `IsLost` as a boundary: every byte below the returned sequence number
    /// that is not SACKed is lost, no byte at or above it is. For the hole just below the
    /// i-th SACKed range from the top (i = 1, 2, …), the blocks above it number i and the
    /// SACKed bytes above it are those of the top i ranges; the boundary is the start of
    /// the lowest-index range for which i ≥ `dup_thresh` or the bytes exceed
    /// (`dup_thresh` − 1)·`mss`. `una` if nothing is lost.
    pub fn loss_boundary(&self, una: u64, dup_thresh: u32, mss: u64) -> u64 {
        let limit = u64::from(dup_thresh.saturating_sub(1)) * mss;
        let mut bytes = 0;
        for (i, &(s, e)) in self.ranges.iter().rev().enumerate() {
            bytes += e - s;
            if i + 1 >= dup_thresh as usize || bytes > limit {
                return s;
            }
        }
        una
    }

    /// RFC 6675 §4 `SetPipe`: the bytes in `[una, snd_max)` neither SACKed nor lost
    /// (boundary `lost`), plus the bytes in `[una, high_rxt)` retransmitted and not SACKed.
    pub fn pipe(&self, una: u64, snd_max: u64, lost: u64, high_rxt: u64) -> u64 {
        let lost = lost.clamp(una, snd_max);
        let outstanding = (snd_max - lost) - self.sacked_in(lost, snd_max);
        let high_rxt = high_rxt.clamp(una, snd_max);
        let retransmitted = (high_rxt - una) - self.sacked_in(una, high_rxt);
        outstanding + retransmitted
    }

    /// RFC 6675 §4 `NextSeg` rules (1) and (3): the first hole (not SACKed) at or above
    /// `from` (= max(`snd_una`, `HighRxt`)) and below the highest SACKed byte, as
    /// `(start, bytes to its end)`, and whether it is lost (rule 1; rule 3 otherwise).
    /// `None` if there is no such hole.
    pub fn next_hole(&self, from: u64, lost: u64) -> Option<(u64, u64, bool)> {
        let mut seq = from;
        let i = self.ranges.partition_point(|&(_, e)| e <= seq);
        for &(s, e) in &self.ranges[i..] {
            if seq < s {
                return Some((seq, s - seq, seq < lost));
            }
            seq = seq.max(e);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(b: &[(u64, u64)]) -> SackBlocks {
        SackBlocks::from_slice(b)
    }

    #[test]
    fn blocks_hold_three_and_cost_their_option_bytes() {
        // RFC 2018 §3: length 2 + 8n; three fit beside the timestamp option.
        let b = blocks(&[(1, 2), (3, 4), (5, 6), (7, 8)]);
        assert_eq!(b.as_slice(), &[(1, 2), (3, 4), (5, 6)]);
        assert_eq!(b.option_bytes(), 26);
        assert_eq!(SackBlocks::NONE.option_bytes(), 0);
    }

    #[test]
    fn scoreboard_merges_blocks_and_trims_at_the_cumulative_ack() {
        let mut sb = Scoreboard::new();
        assert!(sb.update(0, 10_000, &blocks(&[(2_000, 3_000)])));
        assert!(sb.update(0, 10_000, &blocks(&[(4_000, 5_000), (2_000, 3_000)])));
        assert!(
            !sb.update(0, 10_000, &blocks(&[(2_000, 3_000)])),
            "nothing new"
        );
        assert!(sb.update(0, 10_000, &blocks(&[(3_000, 4_000)])));
        assert_eq!(sb.ranges(), &[(2_000, 5_000)]);
        sb.update(2_500, 10_000, &SackBlocks::NONE);
        assert_eq!(sb.ranges(), &[(2_500, 5_000)]);
        sb.update(6_000, 10_000, &SackBlocks::NONE);
        assert!(sb.is_empty());
    }

    #[test]
    fn is_lost_needs_three_blocks_or_more_than_two_segments_sacked_above() {
        // RFC 6675 §4 IsLost with DupThresh 3, SMSS 1000.
        let mut sb = Scoreboard::new();
        sb.update(0, 20_000, &blocks(&[(1_000, 2_000)]));
        assert_eq!(
            sb.loss_boundary(0, 3, 1_000),
            0,
            "one segment SACKed: nothing lost"
        );
        sb.update(0, 20_000, &blocks(&[(1_000, 3_000)]));
        assert_eq!(
            sb.loss_boundary(0, 3, 1_000),
            0,
            "two segments: not more than 2 SMSS"
        );
        sb.update(0, 20_000, &blocks(&[(1_000, 4_000)]));
        assert_eq!(
            sb.loss_boundary(0, 3, 1_000),
            1_000,
            "three segments: the hole is lost"
        );
        // Three discontiguous one-segment blocks: the holes below all three are lost...
        let mut sb = Scoreboard::new();
        sb.update(
            0,
            20_000,
            &blocks(&[(1_000, 2_000), (3_000, 4_000), (5_000, 5_500)]),
        );
        assert_eq!(sb.loss_boundary(0, 3, 1_000), 1_000);
        // ... and only those: pipe counts [5500, 20000) and the holes [2000, 3000) and
        // [4000, 5000), which have fewer than three blocks above them.
        assert_eq!(sb.pipe(0, 20_000, 1_000, 0), 14_500 + 1_000 + 1_000);
        // Retransmitting the lost [0, 1000) puts it back in the pipe.
        assert_eq!(sb.pipe(0, 20_000, 1_000, 1_000), 16_500 + 1_000);
        assert_eq!(sb.next_hole(1_000, 1_000), Some((2_000, 1_000, false)));
        assert_eq!(sb.next_hole(0, 1_000), Some((0, 1_000, true)));
        assert_eq!(sb.next_hole(5_500, 1_000), None, "nothing SACKed above");
    }
}
