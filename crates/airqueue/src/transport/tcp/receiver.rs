//! The receiving endpoint: cumulative ACKs, an out-of-order buffer, delayed ACKs and the
//! advertised window.
//!
//! # ACK generation (RFC 5681 §4.2, RFC 1122 §4.2.3.2, RFC 9293 §3.8.6.3)
//!
//! * An out-of-order segment (a gap before it) is acknowledged immediately: a duplicate
//!   ACK carrying the same cumulative ACK number as before.
//! * A segment that fills all or part of a gap is acknowledged immediately.
//! * A segment entirely below `rcv_nxt` (a duplicate), or one that does not fit in the
//!   window, is acknowledged immediately (RFC 9293 §3.10.7.4: reply to an unacceptable
//!   segment with an ACK) and otherwise ignored.
//! * Otherwise, with delayed ACKs on, an ACK goes out for every
//!   [`TcpConfig::delayed_ack_segments`]-th in-order segment (default 2), or when the
//!   delayed-ACK timer (default 200 ms, started by the first unacknowledged segment and not
//!   restarted by later ones) expires. With delayed ACKs off every segment is acknowledged.
//!
//! # Window (RFC 9293 §3.8.6.2.2, RFC 1122 §4.2.2.16)
//!
//! The application reads in-order data at once, so the buffer holds only out-of-order
//! bytes and the free space is `rcv_buffer − out_of_order_bytes`. That free space is what
//! the receiver advertises, except that it never moves the right edge of the window
//! (`rcv_nxt + window`) to the left: "a receiving TCP SHOULD NOT shrink the window". So
//! while a gap is open the duplicate ACKs all carry the same window (which RFC 5681's
//! duplicate-ACK definition requires), and the held bytes show up as a smaller window once
//! the gap is partly filled. A segment is accepted if it ends at or before the advertised
//! right edge (which never exceeds `rcv_nxt + rcv_buffer`, so the buffer cannot overflow).
//!
//! # ECN (RFC 3168 §6.1.3)
//!
//! With [`TcpConfig::ecn`], a data segment that arrives with CE in its IP header
//! ([`TcpReceiver::on_segment_ecn`]) makes the receiver set ECE on every ACK it sends
//! until a data segment carrying CWR arrives (a CWR segment that is itself CE-marked sets
//! it again). Delayed ACKs are unchanged.
//!
//! # SACK (RFC 2018 §4)
//!
//! With [`TcpConfig::sack`], every ACK sent while out-of-order data is held carries up to
//! three blocks ([`TcpReceiver::sack_blocks`], read right after the call that returned
//! the ACK): first the block containing the most recently received segment, then the
//! blocks of the previous ACK still held (as they have grown), then the highest others.
//!
//! # Buffer memory and the advertised window (Linux `tcp_win_from_space`)
//!
//! Linux's receive buffer (`sk_rcvbuf`, from `tcp_rmem`) is memory: it pays for every
//! queued segment's skb (its truesize, payload plus headers and `struct sk_buff`), so the
//! receiver advertises only part of it, `tcp_win_from_space(space)` = space −
//! space/2^`tcp_adv_win_scale` (include/net/tcp.h; 2.4 to 3.3 default scale 2, ¾ of the
//! buffer, which is why 2.4's and 2.6's `tcp_rmem[1]` = 87 380 B gave the classic 65 535-B
//! window; 3.4 to 6.5 default 1, ½). With [`TcpConfig::adv_win_scale`] the configured
//! buffer sizes are that memory and the model works in window bytes from there on: the
//! largest window is `tcp_win_from_space(rcv_buffer)` (Linux's `tcp_full_space`, the
//! window clamp of `tcp_init_buffer_space`), the autotuning cap
//! `tcp_win_from_space(rcv_buffer_max)` (`__tcp_select_window` advertises at most
//! `tcp_full_space` of the grown `sk_rcvbuf`), and out-of-order data takes its payload
//! from the window (Linux charges its truesize to the memory, ≈ the same window bytes,
//! since autotuning sizes memory per segment so that `tcp_win_from_space` of it is one
//! MSS). Not modelled: `tcp_app_win`'s one-MSS reservation off the initial clamp (64 087
//! instead of 65 535 B in 2.6.23) and the gradual opening by `rcv_ssthresh`
//! (`tcp_grow_window`): the first window is 4 MSS in 2.6.23 and 10 in 6.1
//! (`tcp_select_initial_window`), and each in-order full-sized segment opens it by 2 MSS,
//! faster than any sender's slow start grows, so it limits only a sender whose initial
//! window is larger than that (none here: 2.6.23's IW is 3, 6.1's 10).
//!
//! # Receive-buffer autotuning (Linux `tcp_rcv_space_adjust`)
//!
//! With [`TcpConfig::rcv_buffer_max`] the window grows as Linux's dynamic right-sizing
//! grows it: the receiver estimates the RTT as the time it takes to receive one advertised
//! window of data (`tcp_rcv_rtt_measure` without timestamps; smoothed 7/8 old + 1/8 new),
//! and once per estimated RTT it looks at the bytes delivered in that RTT (`copied`) and
//! the previous RTT's (`space`); the window never shrinks and never passes the cap. How it
//! grows is [`RcvSpaceAdjust`]: Linux 6.1 makes it at least rcvwin = (2·copied +
//! 16·MSS)·(1 + 2·(copied − space)/space) when the rate grew; Linux 2.6.23 makes it
//! space = max(space, 2·copied), twice the bytes of the last RTT. (Linux sizes memory,
//! rcvwin/MSS segments of a truesize rounded up until `tcp_win_from_space` of one is at
//! least an MSS, and clamps the window to rcvwin (2.6.23) or to `tcp_win_from_space` of
//! that memory (6.1, within 3 % of rcvwin); we size the window directly.)
//!
//! # Timestamps (RFC 7323 §4.3, §5)
//!
//! With [`TcpConfig::timestamps`] the receiver keeps TS.Recent, the TSval to echo: a
//! segment's TSval is copied into it when it is not older than TS.Recent and the segment
//! starts at or before Last.ACK.sent, the left edge of the last ACK (§4.3 (2)). So a
//! delayed ACK echoes the earliest of the segments it acknowledges (the RTT includes the
//! delay), a duplicate ACK for a gap echoes the segment before the gap, and the ACK a
//! retransmission provokes by filling the gap echoes the retransmission. Every ACK
//! carries TS.Recent in TSecr. With [`TcpConfig::paws`] a data segment whose TSval is
//! older than TS.Recent (modulo 2^32) is dropped and acknowledged (§5.3 R1, R2), and
//! counted ([`ReceiverStats::paws_rejected`]).
//!
//! # Window scaling (RFC 7323 §2)
//!
//! Without [`TcpConfig::window_scaling`] the advertised window is capped at 65 535 bytes,
//! what the 16-bit header field holds.
//!
//! # Handshake
//!
//! With [`TcpConfig::handshake`] the receiver waits for a SYN (data before it is ignored),
//! answers every SYN with a SYN-ACK (the sender's SYN retransmission covers a lost
//! SYN-ACK, so the receiver keeps no timer of its own) and becomes established on the first
//! segment that acknowledges its SYN (the handshake ACK or any data segment).
//!
//! With [`Opener::Receiver`] the receiver is the client that connects: [`TcpReceiver::connect`]
//! emits its SYN, retransmitted by a timer that starts at the initial RTO and doubles up to
//! the maximum (RFC 6298 §5 and (5.5); Linux's `tcp_syn_retries` gives up after 6 tries,
//! we never give up); the sender's SYN-ACK is answered with the ACK that completes the
//! handshake (and, in a web client, would carry the request), and again for every repeated
//! SYN-ACK.

use super::sack::SackBlocks;
use super::{AckInfo, Opener, Segment, TcpConfig, TcpFlags};
use crate::engine::SimTime;

/// Linux's `tcp_win_from_space` (include/net/tcp.h, 2.4 to 6.5): the window `space` bytes
/// of receive-buffer memory advertise, `space − space/2^scale` for a positive
/// `tcp_adv_win_scale`, `space/2^−scale` otherwise (the rest pays for skb overhead and the
/// application's unread data). 2.6.23: scale 2, so 87 380 B advertise 65 535 B.
pub fn tcp_win_from_space(space: u32, adv_win_scale: i8) -> u32 {
    if adv_win_scale <= 0 {
        space >> u32::from(adv_win_scale.unsigned_abs()).min(31)
    } else {
        space - (space >> u32::from(adv_win_scale.unsigned_abs()).min(31))
    }
}

/// How receive-buffer autotuning grows the window once per receiver RTT (Linux
/// `tcp_rcv_space_adjust`; see the module documentation).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum RcvSpaceAdjust {
    /// Linux 6.1: when the bytes of the last RTT (`copied`) exceed the previous RTT's
    /// (`space`), the window becomes at least rcvwin = 2·copied + 16·MSS, grown by
    /// 2·rcvwin·(copied − space)/space for a sender still speeding up.
    #[default]
    Linux6_1,
    /// Linux 2.6.23 (the dynamic right-sizing of 2.6.7): space = max(space, 2·copied), and
    /// the window (`window_clamp`) follows space whenever the buffer it needs grows.
    Linux2_6_23,
}

/// Connection state of the receiver.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReceiverState {
    /// Created with [`Opener::Receiver`], [`TcpReceiver::connect`] not yet called.
    Closed,
    /// Our SYN is out ([`Opener::Receiver`]), waiting for the SYN-ACK.
    SynSent,
    /// Waiting for a SYN (handshake on).
    Listen,
    /// SYN received, SYN-ACK sent, waiting for the ACK of the SYN-ACK.
    SynReceived,
    /// Data flows.
    Established,
}

/// Receiver counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct ReceiverStats {
    /// Every segment handed to [`TcpReceiver::on_segment`].
    pub segments_received: u64,
    /// Payload bytes received, duplicates included.
    pub bytes_received: u64,
    /// In-order bytes delivered to the application: the goodput counter.
    pub bytes_delivered: u64,
    /// ACKs sent (SYN-ACKs included).
    pub acks_sent: u64,
    /// ACKs whose acknowledgment number repeats the previous ACK's.
    pub dupacks_sent: u64,
    /// ACKs sent because the delayed-ACK timer expired.
    pub delayed_acks_by_timer: u64,
    /// SYN-ACKs sent.
    pub syn_acks_sent: u64,
    /// SYNs sent ([`Opener::Receiver`]), retransmissions included.
    pub syns_sent: u64,
    /// Segments that arrived beyond a gap.
    pub out_of_order_segments: u64,
    /// Segments entirely below `rcv_nxt` (already received).
    pub duplicate_segments: u64,
    /// Segments dropped because they ended beyond the advertised window.
    pub beyond_window_segments: u64,
    /// Largest number of out-of-order bytes held at once.
    pub max_out_of_order_bytes: u64,
    /// Segments that arrived CE-marked (ECN on).
    pub ce_segments: u64,
    /// ACKs sent with ECE.
    pub ece_acks_sent: u64,
    /// Data segments dropped by PAWS (RFC 7323 §5.3).
    pub paws_rejected: u64,
}

/// The receiving endpoint. See the module documentation.
///
/// `repr(C)`: the state every segment reads first, then the per-segment counters; what
/// only the handshake (SYN timer, initial RTO) reads last (issue 18, item 4).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct TcpReceiver {
    state: ReceiverState,
    delayed_ack: bool,
    ecn: bool,
    /// Echo ECE on the ACKs until CWR arrives.
    ece: bool,
    sack: bool,
    /// RFC 7323: timestamps on, PAWS on, and TS.Recent (0 until a TSval arrived).
    timestamps: bool,
    paws: bool,
    handshake: bool,
    unacked_segments: u32,
    delayed_ack_segments: u32,
    ts_recent: u32,
    buffer: u64,
    mss: u64,
    /// Our sequence number for ACKs (0 before/with the SYN-ACK, 1 after it).
    snd_seq: u64,
    rcv_nxt: u64,
    /// Right edge of the last advertised window (never decreases).
    right_edge: u64,
    /// Out-of-order data as sorted, disjoint, non-adjacent `[start, end)` ranges above
    /// `rcv_nxt`.
    ooo: Vec<(u64, u64)>,
    ooo_bytes: u64,
    delack_deadline: Option<SimTime>,
    delayed_ack_timeout: SimTime,
    /// SYN retransmission timer of a receiver that opens: `(deadline, current RTO)`.
    syn_timer: Option<(SimTime, SimTime)>,
    last_ack_sent: Option<u64>,
    /// Last.ACK.sent (RFC 7323 §4.3): the left edge of the last ACK, initially the first
    /// sequence number expected.
    last_ack_edge: u64,
    /// Autotuning: the largest buffer, the MSS, and the DRS state.
    autotune_max: Option<u64>,
    rcv_space_adjust: RcvSpaceAdjust,
    /// RTT measurement in progress: `(rcv_nxt that ends it, start time)`.
    rtt_probe: Option<(u64, SimTime)>,
    rcv_rtt: Option<SimTime>,
    /// Start of the current DRS period: time, `rcv_nxt`, and the previous period's bytes.
    space_time: SimTime,
    space_seq: u64,
    space: u64,
    /// Start of the most recent out-of-order segment (RFC 2018 §4's first block).
    last_ooo: Option<u64>,
    /// The SACK blocks of the last ACK made.
    last_blocks: SackBlocks,
    stats: ReceiverStats,
    initial_rto: SimTime,
    max_rto: SimTime,
}

impl TcpReceiver {
    /// A receiver for `cfg` (see [`TcpConfig`]). Without a handshake it expects data from
    /// sequence number 0.
    ///
    /// # Panics
    /// If `cfg` fails [`TcpConfig::validate`].
    pub fn new(cfg: &TcpConfig) -> TcpReceiver {
        if let Err(e) = cfg.validate() {
            panic!("{e}");
        }
        let buffer = u64::from(cfg.max_advertised_window());
        TcpReceiver {
            buffer,
            handshake: cfg.handshake,
            delayed_ack: cfg.delayed_ack,
            delayed_ack_segments: cfg.delayed_ack_segments,
            delayed_ack_timeout: cfg.delayed_ack_timeout,
            syn_timer: None,
            initial_rto: cfg.initial_rto.max(cfg.min_rto).min(cfg.max_rto),
            max_rto: cfg.max_rto,
            state: match (cfg.handshake, cfg.opener) {
                (false, _) => ReceiverState::Established,
                (true, Opener::Sender) => ReceiverState::Listen,
                (true, Opener::Receiver) => ReceiverState::Closed,
            },
            snd_seq: 0,
            rcv_nxt: 0,
            right_edge: buffer,
            ooo: Vec::with_capacity(8),
            ooo_bytes: 0,
            unacked_segments: 0,
            delack_deadline: None,
            last_ack_sent: None,
            stats: ReceiverStats::default(),
            ecn: cfg.ecn,
            ece: false,
            sack: cfg.sack,
            autotune_max: cfg.rcv_buffer_max.map(|m| {
                let m = TcpConfig {
                    rcv_buffer: m,
                    ..cfg.clone()
                };
                u64::from(m.max_advertised_window())
            }),
            rcv_space_adjust: cfg.rcv_space_adjust,
            mss: u64::from(cfg.mss),
            rtt_probe: None,
            rcv_rtt: None,
            space_time: SimTime::ZERO,
            space_seq: 0,
            // `tcp_init_buffer_space`: rcvq_space.space starts at the first window, which
            // `tcp_select_initial_window` limits to 10 MSS (6.1) or 4 MSS (2.6.23).
            space: buffer.min(
                match cfg.rcv_space_adjust {
                    RcvSpaceAdjust::Linux6_1 => 10,
                    RcvSpaceAdjust::Linux2_6_23 => 4,
                } * u64::from(cfg.mss),
            ),
            last_ooo: None,
            last_blocks: SackBlocks::NONE,
            timestamps: cfg.timestamps,
            paws: cfg.paws,
            ts_recent: 0,
            last_ack_edge: 0,
        }
    }

    /// Opens the connection ([`Opener::Receiver`]): returns the SYN to send and starts
    /// its retransmission timer. Returns `None` if the receiver does not open or has
    /// already done so.
    pub fn connect(&mut self, now: SimTime) -> Option<AckInfo> {
        if self.state != ReceiverState::Closed {
            return None;
        }
        self.state = ReceiverState::SynSent;
        self.syn_timer = Some((now + self.initial_rto, self.initial_rto));
        Some(self.syn())
    }

    fn syn(&mut self) -> AckInfo {
        self.stats.syns_sent += 1;
        AckInfo {
            seq: 0,
            ack: 0,
            window: self.buffer.min(u64::from(u32::MAX)) as u32,
            // RFC 3168 §6.1.1: an ECN-setup SYN.
            flags: if self.ecn {
                TcpFlags::SYN | TcpFlags::ECE | TcpFlags::CWR
            } else {
                TcpFlags::SYN
            },
            tsecr: 0,
        }
    }

    /// [`TcpReceiver::on_segment`] for a segment whose IP header carried CE (`ce`) or not
    /// (RFC 3168 §6.1.3; without [`TcpConfig::ecn`] the mark is ignored).
    pub fn on_segment_ecn(&mut self, now: SimTime, seg: &Segment, ce: bool) -> Option<AckInfo> {
        if self.ecn {
            if seg.flags.contains(TcpFlags::CWR) && !seg.flags.contains(TcpFlags::SYN) {
                self.ece = false;
            }
            if ce {
                self.stats.ce_segments += 1;
                self.ece = true;
            }
        }
        self.on_segment(now, seg)
    }

    /// Processes a segment from the sender. Returns the ACK to send now, or `None` (the
    /// ACK is delayed, or the segment needs no answer). After the call, re-read
    /// [`TcpReceiver::next_timer`].
    pub fn on_segment(&mut self, now: SimTime, seg: &Segment) -> Option<AckInfo> {
        self.stats.segments_received += 1;
        if self.timestamps && seg.tsval != 0 {
            // RFC 7323 §5.3 R1: PAWS, for data on an established connection.
            if self.paws
                && self.state == ReceiverState::Established
                && seg.len > 0
                && self.ts_recent != 0
                && (seg.tsval.wrapping_sub(self.ts_recent) as i32) < 0
            {
                self.stats.paws_rejected += 1;
                return Some(self.ack_now());
            }
            // §4.3 (2): TS.Recent follows the segment at the left edge of the last ACK.
            if seg.seq <= self.last_ack_edge
                && (self.ts_recent == 0 || seg.tsval.wrapping_sub(self.ts_recent) as i32 >= 0)
            {
                self.ts_recent = seg.tsval;
            }
        }
        if seg.flags.contains(TcpFlags::SYN) {
            return self.on_syn(seg);
        }
        match self.state {
            ReceiverState::Closed | ReceiverState::SynSent | ReceiverState::Listen => return None,
            ReceiverState::SynReceived => {
                if seg.flags.contains(TcpFlags::ACK) && seg.ack == 1 {
                    self.state = ReceiverState::Established;
                    self.snd_seq = 1;
                } else {
                    return None;
                }
            }
            ReceiverState::Established => {}
        }
        if seg.len == 0 {
            return None; // a pure ACK (the handshake's third segment)
        }
        self.on_data(now, seg.seq, seg.seq + u64::from(seg.len))
    }

    fn on_syn(&mut self, seg: &Segment) -> Option<AckInfo> {
        if !self.handshake {
            return None;
        }
        if self.state == ReceiverState::SynSent {
            // Our SYN answered (RFC 9293 §3.5): the SYN-ACK must acknowledge it.
            if !(seg.flags.contains(TcpFlags::ACK) && seg.ack == 1) {
                return None;
            }
            self.rcv_nxt = seg.seq + 1;
            self.right_edge = self.rcv_nxt + self.buffer;
            self.state = ReceiverState::Established;
            self.snd_seq = 1;
            self.syn_timer = None;
            return Some(self.ack_now());
        }
        if self.state == ReceiverState::Closed {
            return None;
        }
        if self.state == ReceiverState::Listen {
            self.rcv_nxt = seg.seq + 1;
            self.right_edge = self.rcv_nxt + self.buffer;
            self.state = ReceiverState::SynReceived;
        }
        if self.state == ReceiverState::SynReceived {
            self.stats.syn_acks_sent += 1;
            let mut flags = TcpFlags::SYN | TcpFlags::ACK;
            if self.ecn {
                flags = flags | TcpFlags::ECE; // RFC 3168 §6.1.1: ECN-setup SYN-ACK
            }
            let ack = self.make_ack(0, flags);
            return Some(ack);
        }
        // A stale SYN once established: just acknowledge.
        Some(self.ack_now())
    }

    fn on_data(&mut self, now: SimTime, start: u64, end: u64) -> Option<AckInfo> {
        self.stats.bytes_received += end - start;
        if end <= self.rcv_nxt {
            self.stats.duplicate_segments += 1;
            return Some(self.ack_now());
        }
        if end > self.right_edge {
            self.stats.beyond_window_segments += 1;
            return Some(self.ack_now());
        }
        if start > self.rcv_nxt {
            self.stats.out_of_order_segments += 1;
            self.insert_out_of_order(start, end);
            self.last_ooo = Some(start);
            return Some(self.ack_now());
        }
        let filled_gap = !self.ooo.is_empty();
        self.advance(end);
        if self.autotune_max.is_some() {
            self.autotune(now);
        }
        if filled_gap || !self.delayed_ack {
            return Some(self.ack_now());
        }
        self.unacked_segments += 1;
        if self.unacked_segments >= self.delayed_ack_segments {
            return Some(self.ack_now());
        }
        if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.delayed_ack_timeout);
        }
        None
    }

    /// Receive-buffer autotuning after in-order data arrived (see the module
    /// documentation).
    fn autotune(&mut self, now: SimTime) {
        let Some(max) = self.autotune_max else {
            return;
        };
        // tcp_rcv_rtt_measure: the time to receive one advertised window.
        match self.rtt_probe {
            Some((seq, start)) if self.rcv_nxt >= seq => {
                let sample = now.saturating_sub(start);
                self.rcv_rtt = Some(match self.rcv_rtt {
                    None => sample,
                    Some(old) => SimTime::from_nanos((7 * old.as_nanos() + sample.as_nanos()) / 8),
                });
                self.rtt_probe = None;
            }
            Some(_) => {}
            None => {}
        }
        if self.rtt_probe.is_none() {
            self.rtt_probe = Some((self.rcv_nxt + self.advertised_window(), now));
        }
        // tcp_rcv_space_adjust: once per estimated RTT.
        let Some(rtt) = self.rcv_rtt else {
            return;
        };
        if now.saturating_sub(self.space_time) < rtt {
            return;
        }
        let copied = self.rcv_nxt - self.space_seq;
        match self.rcv_space_adjust {
            RcvSpaceAdjust::Linux6_1 => {
                if copied > self.space {
                    let base = 2 * copied + 16 * self.mss;
                    let grown = base + base * 2 * (copied - self.space) / self.space.max(1);
                    self.buffer = self.buffer.max(grown.min(max));
                    self.space = copied;
                }
            }
            RcvSpaceAdjust::Linux2_6_23 => {
                let space = self.space.max(2 * copied);
                if space != self.space {
                    self.space = space;
                    self.buffer = self.buffer.max(space.min(max));
                }
            }
        }
        self.space_time = now;
        self.space_seq = self.rcv_nxt;
    }

    /// The receiver's RTT estimate for autotuning, once measured.
    pub fn rcv_rtt(&self) -> Option<SimTime> {
        self.rcv_rtt
    }

    /// The current receive buffer (the largest window advertised; grows with autotuning).
    pub fn buffer(&self) -> u64 {
        self.buffer
    }

    /// In-order data up to `end` arrived: deliver it and whatever out-of-order data it
    /// joins.
    fn advance(&mut self, end: u64) {
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        let mut joined = 0;
        for &(s, e) in &self.ooo {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo_bytes -= e - s;
            joined += 1;
        }
        self.ooo.drain(..joined);
        self.stats.bytes_delivered += self.rcv_nxt - before;
    }

    fn insert_out_of_order(&mut self, start: u64, end: u64) {
        // First range that overlaps or touches [start, end).
        let i = self.ooo.partition_point(|&(_, e)| e < start);
        let (mut s, mut e) = (start, end);
        let mut j = i;
        let mut merged_bytes = 0;
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            merged_bytes += self.ooo[j].1 - self.ooo[j].0;
            j += 1;
        }
        if j == i {
            self.ooo.insert(i, (s, e));
        } else {
            self.ooo[i] = (s, e);
            self.ooo.drain(i + 1..j);
        }
        self.ooo_bytes = self.ooo_bytes - merged_bytes + (e - s);
        self.stats.max_out_of_order_bytes = self.stats.max_out_of_order_bytes.max(self.ooo_bytes);
    }

    /// The delayed-ACK deadline, if an ACK is being held, or the SYN retransmission
    /// deadline of a receiver that opens.
    pub fn next_timer(&self) -> Option<SimTime> {
        self.syn_timer.map(|(d, _)| d).or(self.delack_deadline)
    }

    /// Fires the delayed-ACK timer (or the SYN retransmission timer) if its deadline has
    /// been reached (earlier or stale calls return `None`).
    pub fn on_timer(&mut self, now: SimTime) -> Option<AckInfo> {
        if let Some((deadline, rto)) = self.syn_timer {
            if now < deadline {
                return None;
            }
            let rto = (rto + rto).min(self.max_rto); // RFC 6298 (5.5)
            self.syn_timer = Some((now + rto, rto));
            return Some(self.syn());
        }
        match self.delack_deadline {
            Some(deadline) if now >= deadline => {
                self.stats.delayed_acks_by_timer += 1;
                Some(self.ack_now())
            }
            _ => None,
        }
    }

    fn ack_now(&mut self) -> AckInfo {
        let flags = if self.ece {
            self.stats.ece_acks_sent += 1;
            TcpFlags::ACK | TcpFlags::ECE
        } else {
            TcpFlags::ACK
        };
        self.make_ack(self.snd_seq, flags)
    }

    fn make_ack(&mut self, seq: u64, flags: TcpFlags) -> AckInfo {
        self.unacked_segments = 0;
        self.delack_deadline = None;
        let window = self.advertised_window();
        self.right_edge = self.rcv_nxt + window;
        self.stats.acks_sent += 1;
        if self.last_ack_sent == Some(self.rcv_nxt) {
            self.stats.dupacks_sent += 1;
        }
        self.last_ack_sent = Some(self.rcv_nxt);
        self.last_ack_edge = self.rcv_nxt;
        if self.sack {
            self.last_blocks = self.make_sack_blocks();
        }
        AckInfo {
            seq,
            ack: self.rcv_nxt,
            window: window.min(u64::from(u32::MAX)) as u32,
            flags,
            tsecr: if self.timestamps { self.ts_recent } else { 0 },
        }
    }

    /// RFC 2018 §4: the block holding the latest out-of-order segment, the previously
    /// reported blocks still held, then the highest remaining ones.
    fn make_sack_blocks(&self) -> SackBlocks {
        let mut b = SackBlocks::NONE;
        if self.ooo.is_empty() {
            return b;
        }
        let containing = |seq: u64| {
            let i = self.ooo.partition_point(|&(_, e)| e <= seq);
            self.ooo.get(i).copied().filter(|&(s, _)| s <= seq)
        };
        let add = |b: &mut SackBlocks, r: (u64, u64)| {
            if !b.as_slice().contains(&r) {
                b.push(r);
            }
        };
        if let Some(r) = self.last_ooo.and_then(containing) {
            add(&mut b, r);
        }
        for &(s, _) in self.last_blocks.as_slice() {
            if let Some(r) = containing(s) {
                add(&mut b, r);
            }
        }
        for &r in self.ooo.iter().rev() {
            add(&mut b, r);
        }
        b
    }

    /// The SACK blocks of the ACK most recently returned (empty without
    /// [`TcpConfig::sack`] or when no out-of-order data is held). Read it right after the
    /// call that returned the ACK.
    pub fn sack_blocks(&self) -> SackBlocks {
        self.last_blocks
    }

    /// The window the next ACK will advertise: free buffer space, without moving the
    /// right edge left (see the module documentation).
    pub fn advertised_window(&self) -> u64 {
        let free = self.buffer - self.ooo_bytes;
        free.max(self.right_edge.saturating_sub(self.rcv_nxt))
    }

    /// TS.Recent, the TSval the next ACK echoes (RFC 7323 §4.3); 0 before any.
    pub fn ts_recent(&self) -> u32 {
        self.ts_recent
    }

    /// Next in-order sequence number expected (the cumulative ACK).
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    /// In-order bytes delivered to the application (goodput).
    pub fn delivered_bytes(&self) -> u64 {
        self.stats.bytes_delivered
    }
    /// Out-of-order bytes held in the buffer.
    pub fn out_of_order_bytes(&self) -> u64 {
        self.ooo_bytes
    }
    /// The held out-of-order ranges, `[start, end)`, ascending.
    pub fn out_of_order_ranges(&self) -> &[(u64, u64)] {
        &self.ooo
    }
    pub fn state(&self) -> ReceiverState {
        self.state
    }
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn cfg(delayed_ack: bool) -> TcpConfig {
        TcpConfig {
            mss: MSS,
            delayed_ack,
            rcv_buffer: 8 * MSS,
            ..TcpConfig::default()
        }
    }

    fn data(seq: u64, len: u32) -> Segment {
        Segment {
            seq,
            len,
            ack: 0,
            flags: TcpFlags::ACK,
            window: 0,
            is_retransmission: false,
            tsval: 0,
        }
    }

    fn seg_n(n: u64) -> Segment {
        data(n * u64::from(MSS), MSS)
    }

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// Segment `n` stamped with TSval `ts`.
    fn ts_seg(n: u64, ts: u32) -> Segment {
        Segment {
            tsval: ts,
            ..seg_n(n)
        }
    }

    fn ts_cfg(paws: bool) -> TcpConfig {
        TcpConfig {
            timestamps: true,
            paws,
            ..cfg(true)
        }
    }

    #[test]
    fn rfc7323_ts_recent_follows_the_left_edge_of_the_last_ack() {
        // RFC 7323 §4.3 (2): TS.Recent takes a segment's TSval only if SEG.SEQ ≤
        // Last.ACK.sent. Its examples: a delayed ACK for two segments echoes the first's
        // TSval; a duplicate ACK for a hole echoes the segment before the hole; the
        // segment that fills the hole (a retransmission) is echoed by the ACK it provokes.
        let mut r = TcpReceiver::new(&ts_cfg(false));
        let t = ms(0);
        assert_eq!(r.on_segment(t, &ts_seg(0, 10)), None); // delayed
        let a = r.on_segment(t, &ts_seg(1, 12)).unwrap();
        assert_eq!((a.ack, a.tsecr), (2 * u64::from(MSS), 10));
        // Segment 2 is lost; 3 arrives out of order: duplicate ACK, TS.Recent unchanged.
        let a = r.on_segment(t, &ts_seg(3, 20)).unwrap();
        assert_eq!((a.ack, a.tsecr), (2 * u64::from(MSS), 10));
        // The retransmission of 2 (a later TSval) fills the hole and is echoed.
        let a = r.on_segment(t, &ts_seg(2, 90)).unwrap();
        assert_eq!((a.ack, a.tsecr), (4 * u64::from(MSS), 90));
        // Without timestamps nothing is echoed.
        let mut plain = TcpReceiver::new(&cfg(false));
        assert_eq!(plain.on_segment(t, &ts_seg(0, 10)).unwrap().tsecr, 0);
    }

    #[test]
    fn rfc7323_paws_drops_a_segment_older_than_ts_recent_and_acknowledges() {
        // RFC 7323 §5.3 R1/R2: with PAWS a data segment whose TSval is below TS.Recent
        // (modulo 2^32) is dropped and answered with an ACK; without PAWS (the default) the
        // same segment is accepted. The segment here is an old duplicate that happens to
        // fall in the window (what a wrapped sequence number would look like).
        for paws in [false, true] {
            let mut r = TcpReceiver::new(&ts_cfg(paws));
            let t = ms(0);
            r.on_segment(t, &ts_seg(0, 100));
            r.on_segment(t, &ts_seg(1, 100));
            assert_eq!(r.ts_recent(), 100);
            let reply = r.on_segment(t, &ts_seg(2, 40));
            if paws {
                let a = reply.expect("PAWS answers with an ACK");
                assert_eq!((a.ack, a.tsecr), (2 * u64::from(MSS), 100));
                assert_eq!(r.stats().paws_rejected, 1);
                assert_eq!(r.delivered_bytes(), 2 * u64::from(MSS));
            } else {
                assert_eq!(r.stats().paws_rejected, 0);
                assert_eq!(r.delivered_bytes(), 3 * u64::from(MSS));
            }
            // Across the 2^32 wrap a TSval just past zero is newer, not older.
            let mut w = TcpReceiver::new(&ts_cfg(true));
            w.on_segment(t, &ts_seg(0, u32::MAX - 5));
            w.on_segment(t, &ts_seg(1, 3));
            assert_eq!(w.stats().paws_rejected, 0);
            assert_eq!(w.delivered_bytes(), 2 * u64::from(MSS));
        }
        assert!(TcpConfig {
            paws: true,
            ..cfg(true)
        }
        .validate()
        .is_err());
    }

    #[test]
    fn delayed_ack_acknowledges_every_second_segment() {
        // RFC 5681 §4.2 / RFC 1122 §4.2.3.2.
        let mut r = TcpReceiver::new(&cfg(true));
        assert_eq!(r.on_segment(ms(0), &seg_n(0)), None);
        assert_eq!(r.next_timer(), Some(ms(200)));
        let a = r
            .on_segment(ms(1), &seg_n(1))
            .expect("second segment is acked");
        assert_eq!((a.ack, a.flags), (2000, TcpFlags::ACK));
        assert_eq!(r.next_timer(), None, "the ACK cancels the timer");
        assert_eq!(r.on_segment(ms(2), &seg_n(2)), None);
        assert!(r.on_segment(ms(3), &seg_n(3)).is_some());
    }

    #[test]
    fn delayed_ack_timer_fires_after_200ms() {
        // RFC 1122 §4.2.3.2 (< 0.5 s); the timer starts with the first unacked segment and
        // is not restarted.
        let mut r = TcpReceiver::new(&cfg(true));
        assert_eq!(r.on_segment(ms(10), &data(0, 300)), None);
        assert_eq!(r.next_timer(), Some(ms(210)));
        assert_eq!(r.on_timer(ms(209)), None, "early call ignored");
        let a = r.on_timer(ms(210)).expect("timer ACK");
        assert_eq!(a.ack, 300);
        assert_eq!(r.stats().delayed_acks_by_timer, 1);
        assert_eq!(r.next_timer(), None);
        assert_eq!(r.on_timer(ms(400)), None, "stale call ignored");
    }

    #[test]
    fn delayed_ack_off_acknowledges_every_segment() {
        let mut r = TcpReceiver::new(&cfg(false));
        for n in 0..3 {
            let a = r.on_segment(ms(n), &seg_n(n)).unwrap();
            assert_eq!(a.ack, (n + 1) * 1000);
        }
        assert_eq!(r.next_timer(), None);
    }

    #[test]
    fn out_of_order_segments_yield_immediate_duplicate_acks() {
        // RFC 5681 §4.2: out-of-order data is acknowledged at once with the same ACK
        // number; the window does not change (right edge is kept).
        let mut r = TcpReceiver::new(&cfg(true));
        assert_eq!(r.on_segment(ms(0), &seg_n(0)), None); // delayed
        let acks: Vec<AckInfo> = (2..5)
            .map(|n| r.on_segment(ms(n), &seg_n(n)).unwrap())
            .collect();
        assert!(acks.iter().all(|a| a.ack == 1000 && a.window == 7000));
        assert_eq!(r.stats().out_of_order_segments, 3);
        assert_eq!(
            r.stats().dupacks_sent,
            2,
            "first of them also acks segment 0"
        );
        assert_eq!(r.out_of_order_ranges(), &[(2000, 5000)]);
        assert_eq!(r.out_of_order_bytes(), 3000);
        assert_eq!(r.next_timer(), None);
    }

    #[test]
    fn hole_fill_yields_an_immediate_cumulative_ack() {
        // RFC 5681 §4.2: a segment that fills a gap is acked immediately (even with
        // delayed ACKs on).
        let mut r = TcpReceiver::new(&cfg(true));
        for n in [1, 2, 3] {
            r.on_segment(ms(n), &seg_n(n));
        }
        let a = r.on_segment(ms(5), &seg_n(0)).expect("immediate");
        assert_eq!(a.ack, 4000);
        assert_eq!(a.window, 8000);
        assert_eq!(r.out_of_order_bytes(), 0);
        assert_eq!(r.delivered_bytes(), 4000);
    }

    #[test]
    fn partial_hole_fill_acks_up_to_the_next_hole_and_shows_held_bytes_in_the_window() {
        // Segments 0..8 sent, 0 and 6 lost: 1-5 and 7 are held (6000 bytes). Filling
        // segment 0 advances to 6000 with 1000 bytes still held: free space 7000, right
        // edge 13000 (it was 8000, so it moves right: no shrinking).
        let mut r = TcpReceiver::new(&cfg(false));
        for n in [1, 2, 3, 4, 5, 7] {
            let a = r.on_segment(ms(n), &seg_n(n)).unwrap();
            assert_eq!((a.ack, a.window), (0, 8000));
        }
        let a = r.on_segment(ms(10), &seg_n(0)).unwrap();
        assert_eq!((a.ack, a.window), (6000, 7000));
        let a = r.on_segment(ms(11), &seg_n(6)).unwrap();
        assert_eq!((a.ack, a.window), (8000, 8000));
    }

    #[test]
    fn window_never_shrinks_below_the_advertised_right_edge() {
        // RFC 1122 §4.2.2.16. Segments 0 and 2 lost of 0..8: after 0 is filled, 5000
        // bytes (3..8) are held, free space is 3000, but the right edge stays at 8000 so
        // the window is 6000.
        let mut r = TcpReceiver::new(&cfg(false));
        for n in [1, 3, 4, 5, 6, 7] {
            r.on_segment(ms(n), &seg_n(n));
        }
        let a = r.on_segment(ms(10), &seg_n(0)).unwrap();
        assert_eq!((a.ack, a.window), (2000, 6000));
        assert_eq!(r.out_of_order_bytes(), 5000);
        let a = r.on_segment(ms(11), &seg_n(2)).unwrap();
        assert_eq!((a.ack, a.window), (8000, 8000));
    }

    #[test]
    fn duplicate_segment_is_acked_immediately_and_not_delivered_twice() {
        // RFC 9293 §3.10.7.4; goodput counts in-order bytes once.
        let mut r = TcpReceiver::new(&cfg(true));
        r.on_segment(ms(0), &seg_n(0));
        r.on_segment(ms(1), &seg_n(1));
        let a = r.on_segment(ms(2), &seg_n(0)).expect("immediate");
        assert_eq!(a.ack, 2000);
        assert_eq!(r.stats().duplicate_segments, 1);
        assert_eq!(r.delivered_bytes(), 2000);
        assert_eq!(r.stats().bytes_received, 3000);
        // Overlapping retransmission: only the new part is delivered.
        r.on_segment(ms(3), &data(1500, 1000));
        assert_eq!(r.delivered_bytes(), 2500);
    }

    #[test]
    fn out_of_order_ranges_merge() {
        let mut r = TcpReceiver::new(&cfg(false));
        r.on_segment(ms(0), &data(5000, 1000));
        r.on_segment(ms(0), &data(2000, 1000));
        r.on_segment(ms(0), &data(3500, 500));
        assert_eq!(
            r.out_of_order_ranges(),
            &[(2000, 3000), (3500, 4000), (5000, 6000)]
        );
        r.on_segment(ms(0), &data(2500, 3000)); // bridges all three
        assert_eq!(r.out_of_order_ranges(), &[(2000, 6000)]);
        assert_eq!(r.out_of_order_bytes(), 4000);
        r.on_segment(ms(0), &data(6000, 1000)); // adjacent
        assert_eq!(r.out_of_order_ranges(), &[(2000, 7000)]);
        r.on_segment(ms(0), &data(0, 2000));
        assert_eq!(r.rcv_nxt(), 7000);
        assert_eq!(r.delivered_bytes(), 7000);
        assert_eq!(r.stats().max_out_of_order_bytes, 5000);
    }

    #[test]
    fn segment_beyond_the_window_is_dropped_with_an_ack() {
        let mut r = TcpReceiver::new(&cfg(true));
        let a = r.on_segment(ms(0), &data(7500, 1000)).unwrap();
        assert_eq!(a.ack, 0);
        assert_eq!(r.stats().beyond_window_segments, 1);
        assert_eq!(r.out_of_order_bytes(), 0);
    }

    #[test]
    fn handshake_answers_syn_with_syn_ack_and_establishes_on_ack() {
        // RFC 9293 §3.5.
        let c = TcpConfig {
            handshake: true,
            ..cfg(true)
        };
        let mut r = TcpReceiver::new(&c);
        assert_eq!(r.state(), ReceiverState::Listen);
        assert_eq!(r.on_segment(ms(0), &data(1, 1000)), None, "data before SYN");
        let syn = Segment {
            seq: 0,
            len: 0,
            ack: 0,
            flags: TcpFlags::SYN,
            window: 0,
            is_retransmission: false,
            tsval: 0,
        };
        let sa = r.on_segment(ms(1), &syn).unwrap();
        assert_eq!(
            (sa.seq, sa.ack, sa.flags, sa.window),
            (0, 1, TcpFlags::SYN | TcpFlags::ACK, 8000)
        );
        assert_eq!(r.state(), ReceiverState::SynReceived);
        // A retransmitted SYN gets the SYN-ACK again.
        assert_eq!(r.on_segment(ms(2), &syn), Some(sa));
        let ack = Segment {
            seq: 1,
            len: 0,
            ack: 1,
            flags: TcpFlags::ACK,
            window: 0,
            is_retransmission: false,
            tsval: 0,
        };
        assert_eq!(r.on_segment(ms(3), &ack), None);
        assert_eq!(r.state(), ReceiverState::Established);
        let a = r.on_segment(
            ms(4),
            &Segment {
                seq: 1,
                ack: 1,
                ..seg_n(0)
            },
        );
        assert_eq!(a, None, "first data segment is delayed");
        let a = r.on_timer(ms(204)).unwrap();
        assert_eq!((a.seq, a.ack, a.flags), (1, 1001, TcpFlags::ACK));
    }

    #[test]
    fn data_segment_completes_the_handshake_if_the_ack_was_lost() {
        let c = TcpConfig {
            handshake: true,
            delayed_ack: false,
            ..cfg(true)
        };
        let mut r = TcpReceiver::new(&c);
        let syn = Segment {
            seq: 0,
            len: 0,
            ack: 0,
            flags: TcpFlags::SYN,
            window: 0,
            is_retransmission: false,
            tsval: 0,
        };
        r.on_segment(ms(0), &syn);
        let a = r
            .on_segment(
                ms(1),
                &Segment {
                    seq: 1,
                    ack: 1,
                    ..seg_n(0)
                },
            )
            .unwrap();
        assert_eq!(a.ack, 1001);
        assert_eq!(r.state(), ReceiverState::Established);
    }

    // ---- tcp_win_from_space and tcp_rcv_space_adjust (Linux 2.6.23, 6.1). ----

    #[test]
    fn tcp_win_from_space_advertises_three_quarters_in_2_6_23_and_half_in_6_1() {
        // include/net/tcp.h tcp_win_from_space: space − (space >> tcp_adv_win_scale) for a
        // positive scale, space >> −scale otherwise. 2.6.23 (scale 2): tcp_rmem[1] = 87 380 B
        // advertises 87 380 − 21 845 = 65 535 B, tcp_rmem[2] = 4 MiB advertises 3 MiB. 6.1
        // (scale 1): 131 072 → 65 536, 6 MiB → 3 MiB. Scale −2: a quarter; 0: all of it.
        assert_eq!(tcp_win_from_space(87_380, 2), 65_535);
        assert_eq!(tcp_win_from_space(4 << 20, 2), 3 << 20);
        assert_eq!(tcp_win_from_space(131_072, 1), 65_536);
        assert_eq!(tcp_win_from_space(6 << 20, 1), 3 << 20);
        assert_eq!(tcp_win_from_space(87_380, -2), 21_845);
        assert_eq!(tcp_win_from_space(87_380, 0), 87_380);
        // The receiver advertises that window, not the memory (tcp_full_space).
        let c = TcpConfig {
            rcv_buffer: 87_380,
            adv_win_scale: Some(2),
            delayed_ack: false,
            ..cfg(false)
        };
        let mut r = TcpReceiver::new(&c);
        assert_eq!(r.on_segment(ms(0), &seg_n(0)).unwrap().window, 65_535);
        let six = TcpConfig {
            rcv_buffer: 131_072,
            adv_win_scale: Some(1),
            ..c
        };
        assert_eq!(six.max_advertised_window(), 65_536);
    }

    /// A receiver fed segment `n` at `10·n` ms, in order, ACKing every segment.
    fn drs(c: &TcpConfig, segments: u64) -> TcpReceiver {
        let mut r = TcpReceiver::new(c);
        for n in 0..segments {
            r.on_segment(ms(10 * n), &seg_n(n));
        }
        r
    }

    fn drs_cfg(adjust: RcvSpaceAdjust) -> TcpConfig {
        TcpConfig {
            rcv_buffer: 10 * MSS,
            rcv_buffer_max: Some(1_000_000),
            rcv_space_adjust: adjust,
            delayed_ack: false,
            ..cfg(false)
        }
    }

    #[test]
    fn tcp_rcv_space_adjust_2_6_23_doubles_the_bytes_of_the_last_rtt() {
        // Linux 2.6.23 tcp_rcv_space_adjust: once per receiver RTT, space = max(space,
        // 2·copied) and the window clamp follows it. Window 10 000 B, 1000-B segments every
        // 10 ms: the first RTT sample (tcp_rcv_rtt_measure: the time to receive one window
        // after the first segment, 1000 + 10 000 B) is 100 ms, taken at segment 10, when
        // copied = 11 000 B: the window becomes 2 × 11 000 = 22 000 B.
        let c = drs_cfg(RcvSpaceAdjust::Linux2_6_23);
        let r = drs(&c, 11);
        assert_eq!(r.rcv_rtt(), Some(ms(100)));
        assert_eq!(r.buffer(), 22_000);
        // Linux 6.1 from the same bytes: rcvq_space.space starts at 10 MSS (10 000 B), so
        // rcvwin = 2·11 000 + 16·1000 = 38 000, grown by 2·38 000·(11 000 − 10 000)/10 000
        // = 7600: 45 600 B.
        let r = drs(&drs_cfg(RcvSpaceAdjust::Linux6_1), 11);
        assert_eq!(r.buffer(), 45_600);
        // 2.6.23 at a steady rate: the next RTT (segments 11..=20) copies 10 000 B, and
        // 2·10 000 < 22 000, so the window stays (space is a maximum, never shrinks).
        let r = drs(&c, 21);
        assert_eq!(r.buffer(), 22_000);
    }

    #[test]
    fn tcp_rcv_space_adjust_caps_the_window_at_tcp_win_from_space_of_tcp_rmem_2() {
        // 2.6.23 with tcp_adv_win_scale 2: buffer memory 87 380 B (window 65 535 B), maximum
        // 120 000 B of memory, so at most tcp_win_from_space(120 000) = 90 000 B advertised
        // (__tcp_select_window: min(window_clamp, tcp_full_space)). The first RTT sample is
        // taken at segment 66 (1000 + 65 535 B after the first) at 660 ms with 67 000 B
        // copied: 2·67 000 = 134 000 B would be the window; the cap makes it 90 000 B.
        let c = TcpConfig {
            rcv_buffer: 87_380,
            rcv_buffer_max: Some(120_000),
            adv_win_scale: Some(2),
            ..drs_cfg(RcvSpaceAdjust::Linux2_6_23)
        };
        let mut r = drs(&c, 66);
        assert_eq!(r.buffer(), 65_535);
        let a = r.on_segment(ms(660), &seg_n(66)).unwrap();
        assert_eq!(r.rcv_rtt(), Some(ms(660)));
        assert_eq!(r.buffer(), 90_000);
        assert_eq!(a.window, 90_000);
    }
}
