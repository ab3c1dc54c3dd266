//! RACK (RFC 8985 §6): time-based loss detection over a per-segment record of the
//! outstanding data, as Linux 6.1 does it (`net/ipv4/tcp_recovery.c`).
//!
//! # The segment record
//!
//! [`RackBoard`] keeps one [`SegRec`] per segment sent and not yet cumulatively
//! acknowledged, in sequence order, in a ring that grows to the largest window seen and
//! then never allocates again: the segment's bounds, its last (re)transmission time and
//! four flags (SACKed; lost; a retransmission in flight, Linux's `TCPCB_SACKED_RETRANS`;
//! ever retransmitted, `TCPCB_EVER_RETRANS`). Retransmissions resend a record whole, so the
//! receiver's SACK blocks fall on record bounds. Counters in bytes give Linux's
//! `tcp_packets_in_flight` = outstanding − SACKed − lost + retransmitted ([`RackBoard::pipe`]).
//!
//! # Time order without a scan
//!
//! Linux walks `tsorted_sent_queue`, the segments in order of their last transmission,
//! from the oldest, and stops at the first one sent after the most recently delivered
//! one; SACKed and RACK-lost segments leave that list. Here the time order is the merge
//! of two lists that are each in time order already: segments sent once only (in
//! sequence order, since new data leaves in sequence order) and retransmissions (a FIFO of
//! `(record, send time)`, an entry stale once its record is delivered, lost or resent).
//! Each is walked from a cursor that only moves past records that can never be
//! candidates again (delivered, lost, retransmitted); SACKed runs are jumped over with
//! the scoreboard's ranges. Per ACK the work is the segments whose deadline has passed
//! (each marked once) plus those sent within the reordering window before RACK.xmit_ts,
//! the same bound Linux's walk has.
//!
//! # Linux choices where RFC 8985 leaves room
//!
//! * `RACK.rtt` is the RTT of the last delivered segment (`tcp_rack_advance`), skipped
//!   when that segment was retransmitted and the sample is below min_rtt (ambiguous);
//!   RACK.xmit_ts/end_seq advance only to a later-sent segment (`tcp_skb_sent_after`).
//! * Reordering window (`tcp_rack_reo_wnd`): 0 while no reordering has been seen and the
//!   connection is in recovery (or has DupThresh segments SACKed); otherwise
//!   min_rtt/4 · `reo_wnd_steps`, capped by SRTT. D-SACK is not modelled, so the steps
//!   stay 1 (`tcp_rack_update_reo_wnd` grows them only on D-SACK rounds). Reordering is
//!   "seen" (`tcp_check_sack_reordering`) when a segment never retransmitted is delivered
//!   below the highest SACKed sequence.
//! * min_rtt is the minimum of the RTTs of delivered never-retransmitted segments (Linux's
//!   windowed filter has a 300 s window, longer than the runs).
//! * A segment is lost when `xmit_ts + RACK.rtt + reo_wnd − now ≤ 0`
//!   (`tcp_rack_skb_timeout`), i.e. at the deadline exactly. The reordering timer is set
//!   for the largest remaining time of the segments still waiting (RFC 8985 §6.2 step 5
//!   "max"), plus Linux's `TCP_TIMEOUT_MIN` (2 ms) — done by the sender.
//! * A retransmission detected lost (a later-sent segment was delivered) becomes
//!   retransmittable again; that of a segment already marked lost is counted in
//!   [`RackBoard::lost_retransmits`] (Linux `tcp_mark_skb_lost` → `TCPLostRetransmit`); Linux keeps a lost
//!   TLP retransmission (a segment not marked lost before) out of the retransmit queue
//!   until the RTO, here it is retransmitted like any other lost segment.

use std::collections::VecDeque;

use super::sack::Scoreboard;
use crate::engine::SimTime;

const SACKED: u8 = 1;
const LOST: u8 = 2;
/// A retransmission of it is in flight (not yet delivered or declared lost).
const RETRANS: u8 = 4;
const EVER_RETRANS: u8 = 8;

/// One segment sent and not yet cumulatively acknowledged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SegRec {
    pub start: u64,
    pub end: u64,
    /// Time of its last (re)transmission.
    pub xmit: SimTime,
    flags: u8,
}

impl SegRec {
    /// A ring slot not holding a record.
    const EMPTY: SegRec = SegRec {
        start: 0,
        end: 0,
        xmit: SimTime::ZERO,
        flags: 0,
    };

    fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_sacked(&self) -> bool {
        self.flags & SACKED != 0
    }
    pub fn is_lost(&self) -> bool {
        self.flags & LOST != 0
    }
    pub fn is_retrans_in_flight(&self) -> bool {
        self.flags & RETRANS != 0
    }
    pub fn ever_retransmitted(&self) -> bool {
        self.flags & EVER_RETRANS != 0
    }
}

/// RFC 8985 §6.1 `RACK_sent_after(t1, seq1, t2, seq2)`.
fn sent_after(t1: SimTime, seq1: u64, t2: SimTime, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

/// The record of one send, to take it back when the host's own queue refuses it.
#[derive(Copy, Clone, Debug)]
enum Undo {
    None,
    New,
    Retransmit(u64, SegRec, bool),
}

/// What one loss-detection pass found.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Detection {
    /// Bytes newly marked lost (first-time losses and lost retransmissions).
    pub newly_lost: u64,
    /// Whether a retransmission was among them (Linux's `FLAG_LOST_RETRANS`).
    pub lost_retransmission: bool,
    /// The largest time a still-waiting segment has left before its deadline (RFC 8985
    /// §6.2 step 5), if any waits.
    pub reo_timeout: Option<SimTime>,
}

/// The per-segment record and RACK's state.
#[derive(Clone, Debug)]
pub struct RackBoard {
    /// The records in a ring addressed by absolute index: record `idx` is in slot
    /// `idx & mask` (the length is a power of two; it doubles when full, the only
    /// allocation after construction).
    ring: Vec<SegRec>,
    mask: u64,
    /// Absolute index of the oldest outstanding record (records are numbered in send
    /// order of new data) …
    head: u64,
    /// … and one past the newest.
    tail: u64,
    /// Where the last SACKed range ended (a guess for the next one).
    sack_hint: u64,
    /// Every never-retransmitted record below it is delivered, SACKed or lost.
    orig_cursor: u64,
    /// Retransmissions in send order: `(record index, send time)`.
    rtx_fifo: VecDeque<(u64, SimTime)>,
    /// No record below it is lost, unSACKed and without a retransmission in flight.
    rtx_hint: u64,
    sacked_bytes: u64,
    sacked_segs: u64,
    lost_bytes: u64,
    retrans_bytes: u64,
    /// Bytes lost, not SACKed, not being retransmitted: the retransmission queue.
    rtx_pending: u64,
    highest_sacked: u64,
    // RFC 8985 §6.1 RACK state.
    rack_xmit: SimTime,
    rack_end: u64,
    rack_rtt: SimTime,
    /// A delivery moved RACK since the last detection (Linux `rack.advanced`).
    advanced: bool,
    min_rtt: Option<SimTime>,
    /// Reordering observed (Linux `tp->reord_seen` > 0).
    reord_seen: bool,
    /// Segments RACK marked lost (retransmissions included; not the timeout's marks).
    pub rack_lost: u64,
    /// Retransmissions of lost segments found lost again (Linux `TCPLostRetransmit`).
    pub lost_retransmits: u64,
    undo: Undo,
    /// F-RTO: `high_seq`, the end of the data sent before the timeout …
    pub frto_high_seq: u64,
    /// … and whether the last ACK (S)ACKed a never-retransmitted segment below it (Linux
    /// `FLAG_ORIG_SACK_ACKED`); reset by the caller before each ACK.
    pub orig_delivered: bool,
}

impl RackBoard {
    /// A board sized for `segments` outstanding segments (it grows if a window exceeds
    /// it, and keeps the size).
    pub fn new(segments: usize) -> RackBoard {
        let cap = segments.max(16).next_power_of_two();
        RackBoard {
            ring: vec![SegRec::EMPTY; cap],
            mask: cap as u64 - 1,
            head: 0,
            tail: 0,
            sack_hint: 0,
            orig_cursor: 0,
            rtx_fifo: VecDeque::with_capacity(segments),
            rtx_hint: 0,
            sacked_bytes: 0,
            sacked_segs: 0,
            lost_bytes: 0,
            retrans_bytes: 0,
            rtx_pending: 0,
            highest_sacked: 0,
            rack_xmit: SimTime::ZERO,
            rack_end: 0,
            rack_rtt: SimTime::ZERO,
            advanced: false,
            min_rtt: None,
            reord_seen: false,
            rack_lost: 0,
            lost_retransmits: 0,
            undo: Undo::None,
            frto_high_seq: 0,
            orig_delivered: false,
        }
    }

    #[inline]
    fn rec(&self, idx: u64) -> &SegRec {
        &self.ring[(idx & self.mask) as usize]
    }
    #[inline]
    fn rec_mut(&mut self, idx: u64) -> &mut SegRec {
        &mut self.ring[(idx & self.mask) as usize]
    }
    fn end_idx(&self) -> u64 {
        self.tail
    }

    /// The first index in `[head, tail)` whose record fails `pred` (`tail` if none),
    /// for a `pred` that holds on a prefix: a binary search.
    fn partition_point(&self, pred: impl Fn(&SegRec) -> bool) -> u64 {
        let (mut lo, mut hi) = (self.head, self.tail);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(self.rec(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Doubles the ring (a window larger than any before).
    #[cold]
    fn grow(&mut self) {
        let cap = self.ring.len() * 2;
        let mask = cap as u64 - 1;
        let mut ring = vec![SegRec::EMPTY; cap];
        for idx in self.head..self.tail {
            ring[(idx & mask) as usize] = *self.rec(idx);
        }
        self.ring = ring;
        self.mask = mask;
    }

    /// The record with absolute index `idx`, if outstanding.
    pub fn get(&self, idx: u64) -> Option<&SegRec> {
        (idx >= self.head && idx < self.tail).then(|| self.rec(idx))
    }
    /// Absolute index of the record starting at `seq`.
    pub fn index_of(&self, seq: u64) -> Option<u64> {
        let i = self.partition_point(|r| r.start < seq);
        (i < self.tail && self.rec(i).start == seq).then_some(i)
    }
    /// The last record (the tail-loss probe's retransmission).
    pub fn last_index(&self) -> Option<u64> {
        (self.tail > self.head).then(|| self.tail - 1)
    }
    pub fn is_empty(&self) -> bool {
        self.tail == self.head
    }
    pub fn segments(&self) -> usize {
        (self.tail - self.head) as usize
    }

    /// Linux `tcp_packets_in_flight` in bytes for `outstanding` = snd_max − snd_una.
    pub fn pipe(&self, outstanding: u64) -> u64 {
        (outstanding + self.retrans_bytes).saturating_sub(self.sacked_bytes + self.lost_bytes)
    }
    pub fn lost_bytes(&self) -> u64 {
        self.lost_bytes
    }
    pub fn sacked_segments(&self) -> u64 {
        self.sacked_segs
    }
    /// Bytes waiting to be retransmitted.
    pub fn rtx_pending(&self) -> u64 {
        self.rtx_pending
    }
    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt
    }
    pub fn reordering_seen(&self) -> bool {
        self.reord_seen
    }
    /// `(RACK.xmit_ts, RACK.end_seq, RACK.rtt)`.
    pub fn rack(&self) -> (SimTime, u64, SimTime) {
        (self.rack_xmit, self.rack_end, self.rack_rtt)
    }
    pub fn advanced(&self) -> bool {
        self.advanced
    }

    /// A new segment `[start, end)` left at `now`.
    pub fn on_send_new(&mut self, start: u64, end: u64, now: SimTime) {
        if self.tail == self.head {
            self.head = self.head.max(self.orig_cursor);
            self.tail = self.head;
        } else if self.tail - self.head == self.ring.len() as u64 {
            self.grow();
        }
        let idx = self.tail;
        *self.rec_mut(idx) = SegRec {
            start,
            end,
            xmit: now,
            flags: 0,
        };
        self.tail += 1;
        self.undo = Undo::New;
    }

    /// Record `idx` was retransmitted at `now`.
    pub fn on_retransmit(&mut self, idx: u64, now: SimTime) {
        let before = *self.rec(idx);
        let len = before.len();
        if before.is_lost() && !before.is_retrans_in_flight() && !before.is_sacked() {
            self.rtx_pending -= len;
        }
        if !before.is_retrans_in_flight() {
            self.retrans_bytes += len;
        }
        let r = self.rec_mut(idx);
        r.xmit = now;
        r.flags |= RETRANS | EVER_RETRANS;
        self.rtx_fifo.push_back((idx, now));
        self.undo = Undo::Retransmit(idx, before, true);
    }

    /// Takes back the last send (the host's own queue refused it).
    pub fn undo_last_send(&mut self) {
        match std::mem::replace(&mut self.undo, Undo::None) {
            Undo::None => {}
            Undo::New => {
                self.tail -= 1;
            }
            Undo::Retransmit(idx, before, pushed) => {
                let len = before.len();
                let now = *self.rec(idx);
                if now.is_retrans_in_flight() && !before.is_retrans_in_flight() {
                    self.retrans_bytes -= len;
                }
                if before.is_lost() && !before.is_retrans_in_flight() && !before.is_sacked() {
                    self.rtx_pending += len;
                    self.rtx_hint = self.rtx_hint.min(idx);
                }
                *self.rec_mut(idx) = before;
                if pushed {
                    self.rtx_fifo.pop_back();
                }
            }
        }
    }

    /// The next lost record to retransmit, in sequence order (Linux
    /// `tcp_xmit_retransmit_queue`), as `(index, start, len)`.
    pub fn next_retransmit(&mut self) -> Option<(u64, u64, u64)> {
        if self.rtx_pending == 0 {
            return None;
        }
        let mut idx = self.rtx_hint.max(self.head);
        while idx < self.end_idx() {
            let r = *self.rec(idx);
            if r.is_lost() && !r.is_retrans_in_flight() && !r.is_sacked() {
                self.rtx_hint = idx;
                return Some((idx, r.start, r.len()));
            }
            idx += 1;
        }
        self.rtx_hint = idx;
        None
    }

    /// RFC 8985 §6.2 step 2 (`tcp_rack_advance`): segment `r` was delivered at `now`.
    fn advance(&mut self, r: SegRec, now: SimTime) {
        let rtt = now.saturating_sub(r.xmit);
        if r.ever_retransmitted() {
            if self.min_rtt.is_some_and(|m| rtt < m) {
                return; // ambiguous: the original may have been delivered
            }
        } else {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        self.advanced = true;
        self.rack_rtt = rtt;
        if sent_after(r.xmit, r.end, self.rack_xmit, self.rack_end) {
            self.rack_xmit = r.xmit;
            self.rack_end = r.end;
        }
    }

    /// Bookkeeping for a record leaving the lost/retransmitted counts when delivered.
    fn uncount(&mut self, r: SegRec) {
        let len = r.len();
        if r.is_lost() {
            self.lost_bytes -= len;
            if !r.is_retrans_in_flight() && !r.is_sacked() {
                self.rtx_pending -= len;
            }
        }
        if r.is_retrans_in_flight() {
            self.retrans_bytes -= len;
        }
    }

    /// Linux `tcp_check_sack_reordering`: a never-retransmitted segment delivered below
    /// the highest SACKed sequence was reordered, not lost.
    fn check_reordering(&mut self, r: &SegRec) {
        if !r.ever_retransmitted() && r.end <= self.highest_sacked {
            self.reord_seen = true;
        }
    }

    /// The SACK blocks newly covered `[s, e)`: every record inside is SACKed. Returns the
    /// bytes newly delivered.
    pub fn on_sacked_range(&mut self, s: u64, e: u64, now: SimTime) -> u64 {
        // The first record ending above `s`: where the last range ended, as usual when
        // the blocks grow in sequence order, else by binary search.
        let h = self.sack_hint;
        let mut i = if h >= self.head
            && h < self.tail
            && self.rec(h).end > s
            && (h == self.head || self.rec(h - 1).end <= s)
        {
            h
        } else {
            self.partition_point(|r| r.end <= s)
        };
        let mut delivered = 0;
        while i < self.tail && self.rec(i).start < e {
            let r = *self.rec(i);
            if !r.is_sacked() && r.start >= s && r.end <= e {
                self.check_reordering(&r);
                if !r.ever_retransmitted() && r.end <= self.frto_high_seq {
                    self.orig_delivered = true;
                }
                self.uncount(r);
                // A SACKed record leaves the lost count but keeps its LOST flag out of
                // the retransmission queue by the SACKED test.
                let rm = self.rec_mut(i);
                rm.flags = (rm.flags & !(RETRANS | LOST)) | SACKED;
                self.sacked_bytes += r.len();
                self.sacked_segs += 1;
                delivered += r.len();
                self.advance(r, now);
            }
            i += 1;
        }
        self.highest_sacked = self.highest_sacked.max(e);
        self.sack_hint = i;
        delivered
    }

    /// The cumulative ACK reached `una`: records ending at or below it leave. Returns the
    /// bytes newly delivered (not SACKed before).
    #[inline]
    pub fn on_cumulative_ack(&mut self, una: u64, now: SimTime) -> u64 {
        // The common case: what leaves is one run of segments sent once only, neither
        // SACKed nor lost, and nothing was ever retransmitted. Handled as the general loop
        // below handles a run (the last of the run alone advances RACK), without its setup.
        let head = self.head;
        if head < self.tail && self.rtx_fifo.is_empty() {
            let first = *self.rec(head);
            if first.flags == 0 && first.end <= una {
                let mut last = first;
                let mut delivered = first.len();
                let mut idx = head + 1;
                while idx < self.tail {
                    let n = *self.rec(idx);
                    if n.end > una || n.flags != 0 {
                        break;
                    }
                    delivered += n.len();
                    last = n;
                    idx += 1;
                }
                if idx == self.tail || self.rec(idx).end > una {
                    self.check_reordering(&first);
                    self.orig_delivered = true;
                    self.head = idx;
                    self.advance(last, now);
                    self.orig_cursor = self.orig_cursor.max(idx);
                    self.rtx_hint = self.rtx_hint.max(idx);
                    self.undo = Undo::None;
                    return delivered;
                }
            }
        }
        self.on_cumulative_ack_loop(una, now)
    }

    /// [`RackBoard::on_cumulative_ack`] in general.
    #[inline(never)]
    fn on_cumulative_ack_loop(&mut self, una: u64, now: SimTime) -> u64 {
        let mut delivered = 0;
        while self.head < self.tail {
            let r = *self.rec(self.head);
            if r.end > una {
                break;
            }
            self.head += 1;
            if r.flags == 0 {
                // A run of segments sent once only, neither SACKed nor lost: in sequence
                // order they were sent in time order, so the last of the run is the
                // latest sent and has the smallest RTT; it alone sets RACK.rtt, min_rtt
                // and RACK.xmit_ts, as `advance` on each in turn would. Reordering is
                // seen if the first (lowest) ends below the highest SACK.
                self.check_reordering(&r);
                self.orig_delivered = true;
                delivered += r.len();
                let mut last = r;
                while self.head < self.tail {
                    let n = *self.rec(self.head);
                    if n.end > una || n.flags != 0 {
                        break;
                    }
                    self.head += 1;
                    delivered += n.len();
                    last = n;
                }
                self.advance(last, now);
                continue;
            }
            if r.is_sacked() {
                self.sacked_bytes -= r.len();
                self.sacked_segs -= 1;
            } else {
                self.check_reordering(&r);
                self.orig_delivered |= !r.ever_retransmitted();
                self.uncount(r);
                delivered += r.len();
                self.advance(r, now);
            }
        }
        self.orig_cursor = self.orig_cursor.max(self.head);
        self.rtx_hint = self.rtx_hint.max(self.head);
        while self.rtx_fifo.front().is_some_and(|&(i, _)| i < self.head) {
            self.rtx_fifo.pop_front();
        }
        self.undo = Undo::None;
        delivered
    }

    /// Linux `tcp_rack_reo_wnd`: the reordering window.
    pub fn reo_wnd(&self, in_recovery: bool, dup_thresh: u32, srtt: Option<SimTime>) -> SimTime {
        if !self.reord_seen && (in_recovery || self.sacked_segs >= u64::from(dup_thresh)) {
            return SimTime::ZERO;
        }
        let quarter = SimTime::from_nanos(self.min_rtt.map_or(0, |m| m.as_nanos() / 4));
        srtt.map_or(quarter, |s| quarter.min(s))
    }

    /// Linux `tcp_mark_skb_lost`. A segment already lost whose retransmission is in
    /// flight counts in [`RackBoard::lost_retransmits`] (`LINUX_MIB_TCPLOSTRETRANSMIT`, on
    /// RACK's and the timeout's marks alike, as Linux counts it there).
    fn mark_lost(&mut self, idx: u64) -> (u64, bool) {
        let r = *self.rec(idx);
        if r.is_sacked() {
            return (0, false);
        }
        let len = r.len();
        let mut newly = 0;
        let was_rtx = r.is_retrans_in_flight();
        if was_rtx {
            self.retrans_bytes -= len;
            if r.is_lost() {
                self.lost_retransmits += 1;
            }
        }
        if !r.is_lost() {
            self.lost_bytes += len;
        }
        if !r.is_lost() || was_rtx {
            newly = len;
            self.rtx_pending += len;
        }
        self.rec_mut(idx).flags = (r.flags & !RETRANS) | LOST;
        self.rtx_hint = self.rtx_hint.min(idx);
        (newly, was_rtx)
    }

    /// RFC 8985 §6.2 step 5 (`tcp_rack_detect_loss`) at `now` with window `reo_wnd`.
    /// `sb` is the scoreboard whose ranges the SACKed records lie in.
    #[inline]
    pub fn detect_loss(&mut self, now: SimTime, reo_wnd: SimTime, sb: &Scoreboard) -> Detection {
        self.advanced = false;
        // The common case in order delivery: no retransmission in flight and the oldest
        // candidate sent once only was sent after RACK.xmit_ts (the walk below would stop
        // there at once).
        if self.rtx_fifo.is_empty() {
            let idx = self.orig_cursor.max(self.head);
            if idx == self.tail || {
                let r = self.rec(idx);
                r.flags == 0 && !sent_after(self.rack_xmit, self.rack_end, r.xmit, r.end)
            } {
                return Detection::default();
            }
        }
        self.detect_loss_walk(now, reo_wnd, sb)
    }

    /// [`RackBoard::detect_loss`] past its shortcut: the two time-ordered walks.
    #[inline(never)]
    fn detect_loss_walk(&mut self, now: SimTime, reo_wnd: SimTime, sb: &Scoreboard) -> Detection {
        let mut d = Detection::default();
        let deadline_of = |x: SimTime, rtt: SimTime| x + rtt + reo_wnd;
        let (rx, re, rtt) = (self.rack_xmit, self.rack_end, self.rack_rtt);
        let note_wait = |d: &mut Detection, deadline: SimTime| {
            let left = deadline - now;
            d.reo_timeout = Some(d.reo_timeout.map_or(left, |t: SimTime| t.max(left)));
        };
        // Segments sent once only, in sequence (= send) order.
        let mut idx = self.orig_cursor.max(self.head);
        let mut prefix = true;
        while idx < self.end_idx() {
            let r = *self.rec(idx);
            if r.is_sacked() {
                // Jump over the SACKed run.
                let ranges = sb.ranges();
                let k = ranges.partition_point(|&(_, e)| e <= r.start);
                let run_end = ranges.get(k).map_or(r.end, |&(_, e)| e.max(r.end));
                let j = self.partition_point(|x| x.start < run_end);
                if prefix {
                    self.orig_cursor = j;
                }
                idx = j.max(idx + 1);
                continue;
            }
            if r.is_lost() || r.ever_retransmitted() {
                if prefix {
                    self.orig_cursor = idx + 1;
                }
                idx += 1;
                continue;
            }
            if !sent_after(rx, re, r.xmit, r.end) {
                break;
            }
            let deadline = deadline_of(r.xmit, rtt);
            if deadline <= now {
                let (n, _) = self.mark_lost(idx);
                d.newly_lost += n;
                self.rack_lost += 1;
                if prefix {
                    self.orig_cursor = idx + 1;
                }
            } else {
                prefix = false;
                note_wait(&mut d, deadline);
            }
            idx += 1;
        }
        // Retransmissions, in send order.
        let mut k = 0;
        while k < self.rtx_fifo.len() {
            let (i, t) = self.rtx_fifo[k];
            let valid = i >= self.head && i < self.end_idx() && {
                let r = self.rec(i);
                r.is_retrans_in_flight() && r.xmit == t
            };
            if !valid {
                if k == 0 {
                    self.rtx_fifo.pop_front();
                } else {
                    k += 1;
                }
                continue;
            }
            let r = *self.rec(i);
            if !sent_after(rx, re, r.xmit, r.end) {
                break;
            }
            let deadline = deadline_of(r.xmit, rtt);
            if deadline <= now {
                let (n, _) = self.mark_lost(i);
                d.newly_lost += n;
                d.lost_retransmission = true;
                self.rack_lost += 1;
                if k == 0 {
                    self.rtx_fifo.pop_front();
                } else {
                    self.rtx_fifo.remove(k);
                }
            } else {
                note_wait(&mut d, deadline);
                k += 1;
            }
        }
        d
    }

    /// Linux `tcp_timeout_mark_lost` (RTO): the first outstanding segment and every
    /// segment not SACKed whose RACK deadline with no reordering window has passed are
    /// lost; segments sent more recently than that wait. Returns the bytes newly lost.
    pub fn mark_lost_on_rto(&mut self, now: SimTime) -> u64 {
        let mut newly = 0;
        for idx in self.head..self.end_idx() {
            let r = *self.rec(idx);
            if r.is_sacked() {
                continue;
            }
            if idx != self.head && r.xmit + self.rack_rtt > now {
                continue;
            }
            newly += self.mark_lost(idx).0;
        }
        newly
    }

    /// Linux `tcp_undo_cwnd_reduction(sk, true)` for a spurious RTO (F-RTO): every lost
    /// mark is cleared.
    pub fn unmark_all_lost(&mut self) {
        for idx in self.head..self.tail {
            self.rec_mut(idx).flags &= !LOST;
        }
        self.lost_bytes = 0;
        self.rtx_pending = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::SackBlocks;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// Ten 1000-byte segments sent 1 ms apart from t = 0.
    fn board() -> RackBoard {
        let mut b = RackBoard::new(4);
        for i in 0..10 {
            b.on_send_new(i * 1000, (i + 1) * 1000, ms(i));
        }
        b
    }

    fn sack(b: &mut RackBoard, sb: &mut Scoreboard, una: u64, s: u64, e: u64, now: SimTime) {
        sb.update(una, 10_000, &SackBlocks::from_slice(&[(s, e)]));
        b.on_sacked_range(s, e, now);
    }

    #[test]
    fn reordering_window_is_a_quarter_of_min_rtt_capped_by_srtt() {
        // RFC 8985 §6.2 step 4 / Linux tcp_rack_reo_wnd: min_rtt 40 ms → 10 ms; 0 while
        // no reordering is seen in recovery or with DupThresh SACKed segments.
        let mut b = board();
        let mut sb = Scoreboard::new();
        b.on_cumulative_ack(1000, ms(40)); // segment 0: RTT 40 ms
        assert_eq!(b.min_rtt(), Some(ms(40)));
        assert_eq!(b.reo_wnd(false, 3, Some(ms(50))), ms(10));
        assert_eq!(b.reo_wnd(false, 3, Some(ms(8))), ms(8), "capped by SRTT");
        assert_eq!(b.reo_wnd(true, 3, Some(ms(50))), SimTime::ZERO);
        for k in 3..6 {
            sack(&mut b, &mut sb, 1000, k * 1000, (k + 1) * 1000, ms(45));
        }
        assert_eq!(b.reo_wnd(false, 3, Some(ms(50))), SimTime::ZERO, "3 SACKed");
        // Segment 1 arrives after 3-5 were SACKed: reordering, the window comes back.
        b.on_cumulative_ack(2000, ms(46));
        assert!(b.reordering_seen());
        assert_eq!(b.reo_wnd(true, 3, Some(ms(50))), ms(10));
    }

    #[test]
    fn a_segment_is_lost_exactly_at_xmit_plus_rack_rtt_plus_reo_wnd() {
        // RFC 8985 §6.2 step 5: lost when xmit_ts + RACK.rtt + reo_wnd − now ≤ 0.
        // Segment 1 sent at 1 ms; segment 2 (sent at 2 ms) SACKed at 42 ms: RACK.rtt =
        // 40 ms, reo_wnd = min_rtt(40)/4 = 10 ms → deadline 1 + 40 + 10 = 51 ms.
        let mut b = board();
        let mut sb = Scoreboard::new();
        b.on_cumulative_ack(1000, ms(40));
        sack(&mut b, &mut sb, 1000, 2000, 3000, ms(42));
        assert_eq!(b.rack(), (ms(2), 3000, ms(40)));
        let w = b.reo_wnd(false, 3, Some(ms(40)));
        assert_eq!(w, ms(10));
        let d = b.detect_loss(ms(42), w, &sb);
        assert_eq!(d.newly_lost, 0);
        assert_eq!(d.reo_timeout, Some(ms(9)), "51 − 42");
        let d = b.detect_loss(ms(51) - SimTime::from_nanos(1), w, &sb);
        assert_eq!(d.newly_lost, 0, "1 ns before the deadline");
        let d = b.detect_loss(ms(51), w, &sb);
        assert_eq!((d.newly_lost, d.reo_timeout), (1000, None));
        assert!(b.get(1).unwrap().is_lost());
        assert!(!b.get(3).unwrap().is_lost(), "sent after RACK.xmit_ts");
        assert_eq!(b.next_retransmit(), Some((1, 1000, 1000)));
        // pipe: 9000 outstanding − 1000 SACKed − 1000 lost.
        assert_eq!(b.pipe(9000), 7000);
    }

    #[test]
    fn a_lost_retransmission_is_detected_when_a_later_sent_segment_is_delivered() {
        // RFC 8985 §6.2 / Linux tcp_rack_detect_loss over tsorted_sent_queue: the
        // retransmission of segment 1 at 60 ms is lost when segment 9, sent later, is
        // delivered and the retransmission's deadline has passed.
        let mut b = RackBoard::new(4);
        let mut sb = Scoreboard::new();
        for i in 0..3 {
            b.on_send_new(i * 1000, (i + 1) * 1000, ms(i));
        }
        b.on_cumulative_ack(1000, ms(40));
        sack(&mut b, &mut sb, 1000, 2000, 3000, ms(42));
        let w = b.reo_wnd(true, 3, Some(ms(40)));
        assert_eq!(b.detect_loss(ms(51), ms(10), &sb).newly_lost, 1000);
        let (idx, _, _) = b.next_retransmit().unwrap();
        b.on_retransmit(idx, ms(60));
        b.on_send_new(3000, 4000, ms(61));
        assert_eq!(b.pipe(3000), 2000, "the retransmission and segment 3");
        // Segment 3 SACKed at 101 ms (RTT 40): the retransmission (60 + 40 + 0 ≤ 101) lost.
        sb.update(1000, 4000, &SackBlocks::from_slice(&[(2000, 4000)]));
        b.on_sacked_range(3000, 4000, ms(101));
        let d = b.detect_loss(ms(101), w, &sb);
        assert_eq!(d.newly_lost, 1000);
        assert!(d.lost_retransmission);
        assert_eq!(b.lost_retransmits, 1);
        assert_eq!(b.next_retransmit(), Some((1, 1000, 1000)), "to send again");
    }

    /// What RFC 8985 §6.2 step 5 marks, by the definition rather than by a walk: every
    /// outstanding segment not SACKed, not waiting for its retransmission (lost and not
    /// resent: Linux skips those, `tcp_rack_detect_loss`), sent before RACK.xmit_ts, whose
    /// deadline xmit + RACK.rtt + reo_wnd has passed. Returns the board as it should be
    /// after, and the expected detection.
    fn full_scan(b: &RackBoard, now: SimTime, reo_wnd: SimTime) -> (RackBoard, Detection) {
        let mut want = b.clone();
        let mut d = Detection::default();
        let (rx, re, rtt) = b.rack();
        for idx in b.head..b.tail {
            let r = *b.get(idx).unwrap();
            if r.is_sacked() || (r.is_lost() && !r.is_retrans_in_flight()) {
                continue;
            }
            if !sent_after(rx, re, r.xmit, r.end) {
                continue;
            }
            let deadline = r.xmit + rtt + reo_wnd;
            if deadline <= now {
                let len = r.end - r.start;
                d.newly_lost += len;
                want.rack_lost += 1;
                if r.is_retrans_in_flight() {
                    d.lost_retransmission = true;
                    want.retrans_bytes -= len;
                    if r.is_lost() {
                        want.lost_retransmits += 1;
                    }
                }
                if !r.is_lost() {
                    want.lost_bytes += len;
                }
                want.rtx_pending += len;
                let w = want.rec_mut(idx);
                w.flags = (w.flags & !RETRANS) | LOST;
            } else {
                let left = deadline - now;
                d.reo_timeout = Some(d.reo_timeout.map_or(left, |t| t.max(left)));
            }
        }
        (want, d)
    }

    #[test]
    fn the_bounded_walk_marks_exactly_what_a_full_scan_marks() {
        // Linux tcp_rack_detect_loss walks tsorted_sent_queue from the oldest send and
        // stops at the first segment sent after RACK.xmit_ts; the board walks its two
        // time-ordered lists from cursors. Over random histories of sends, SACKs,
        // cumulative ACKs, retransmissions (in sequence order and of the last segment, as
        // the tail-loss probe does) and timeouts, every detection must mark the segments,
        // count the bytes and arm the reordering timer exactly as the definition does.
        use rand::{Rng, SeedableRng};
        let us = SimTime::from_micros;
        let mut detections = 0;
        let mut marked = 0;
        let mut waited = 0;
        for seed in 0..300u64 {
            let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
            let mut b = RackBoard::new(16);
            let mut sb = Scoreboard::new();
            let (mut una, mut snd_max, mut now) = (0u64, 0u64, 0u64);
            for _ in 0..400 {
                match rng.random_range(0..100) {
                    0..35 => {
                        let len = 100 * rng.random_range(1..=3);
                        b.on_send_new(snd_max, snd_max + len, us(now));
                        snd_max += len;
                        now += rng.random_range(0..=2);
                    }
                    35..60 if !b.is_empty() => {
                        // SACK a run of one to three records (the receiver's block).
                        let first = rng.random_range(b.head..b.tail);
                        let last = (first + rng.random_range(0..3)).min(b.tail - 1);
                        let (s, e) = (b.get(first).unwrap().start, b.get(last).unwrap().end);
                        now += rng.random_range(0..=3);
                        let blocks = SackBlocks::from_slice(&[(s, e)]);
                        sb.update_each(una, snd_max, &blocks, |s, e| {
                            b.on_sacked_range(s, e, us(now));
                        });
                    }
                    60..70 if !b.is_empty() => {
                        let upto = (b.head + rng.random_range(0..3)).min(b.tail - 1);
                        una = b.get(upto).unwrap().end;
                        now += rng.random_range(0..=3);
                        sb.update_each(una, snd_max, &SackBlocks::NONE, |_, _| {});
                        b.on_cumulative_ack(una, us(now));
                    }
                    70..85 => {
                        now += rng.random_range(1..=3);
                        if let Some((idx, _, _)) = b.next_retransmit() {
                            b.on_retransmit(idx, us(now));
                        } else if let Some(idx) = b.last_index() {
                            if !b.get(idx).unwrap().is_sacked() && rng.random_bool(0.3) {
                                b.on_retransmit(idx, us(now));
                            }
                        }
                    }
                    85..87 => {
                        now += rng.random_range(5..=20);
                        b.mark_lost_on_rto(us(now));
                    }
                    _ => {}
                }
                if !b.advanced() && !rng.random_bool(0.1) {
                    continue;
                }
                now += rng.random_range(0..=4);
                let reo = us(rng.random_range(0..=3) * rng.random_range(0..=2));
                let (want, want_d) = full_scan(&b, us(now), reo);
                let d = b.detect_loss(us(now), reo, &sb);
                let ctx = format!("seed {seed}, now {now} µs, reo {reo:?}");
                assert_eq!(d, want_d, "{ctx}");
                for idx in b.head..b.tail {
                    assert_eq!(b.get(idx), want.get(idx), "record {idx}, {ctx}");
                }
                assert_eq!(
                    (b.lost_bytes, b.retrans_bytes, b.rtx_pending),
                    (want.lost_bytes, want.retrans_bytes, want.rtx_pending),
                    "{ctx}"
                );
                assert_eq!(
                    (b.rack_lost, b.lost_retransmits),
                    (want.rack_lost, want.lost_retransmits),
                    "{ctx}"
                );
                detections += 1;
                marked += u64::from(d.newly_lost > 0);
                waited += u64::from(d.reo_timeout.is_some());
            }
        }
        // The histories exercise both outcomes, not just empty detections.
        assert!(detections > 10_000, "{detections}");
        assert!(marked > 1_000 && waited > 1_000, "{marked} {waited}");
    }
}
