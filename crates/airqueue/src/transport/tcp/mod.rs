//! TCP as a sans-IO state machine: configuration, segment types and the two endpoints.
//!
//! One connection, unidirectional data: a [`TcpSender`] sends data segments
//! ([`Segment`]) and a [`TcpReceiver`] answers with pure acknowledgments ([`AckInfo`]).
//! Neither endpoint knows about packets, queues or events; the caller moves segments
//! between them and calls them back at the deadlines they ask for. See
//! [`crate::transport`] for the driving contract.
//!
//! # Sequence numbers
//!
//! Sequence numbers are byte offsets in a `u64` space starting at 0 (the initial send
//! sequence number of both ends is 0), so they never wrap in a simulation. Without the
//! handshake the first data byte is 0; with it the SYN occupies sequence number 0 and data
//! starts at 1 (the receiver's SYN-ACK likewise occupies its sequence number 0). A wire
//! header carries the low 32 bits ([`Segment::wire_seq`], [`AckInfo::wire_ack`]);
//! [`unwrap_seq`] recovers the full value next to a reference such as `snd_una` or
//! `rcv_nxt`.
//!
//! # Standards
//!
//! * RFC 5681: slow start, congestion avoidance, fast retransmit/recovery, duplicate-ACK
//!   definition, ACK generation (§4.2) — [`congestion`], [`sender`], [`receiver`].
//! * RFC 6582: NewReno — [`congestion`].
//! * RFC 6298: retransmission timer — [`rto`], [`sender`].
//! * RFC 3465: byte counting in slow start with L = 1·SMSS — [`congestion`].
//! * RFC 1122 §4.2.3.2 / RFC 9293 §3.8.6.3: delayed ACKs; RFC 1122 §4.2.2.16 / RFC 9293
//!   §3.8.6.2.2: no window shrinking — [`receiver`].
//! * RFC 9293 §3.5: the three-way handshake (optional here).
//! * RFC 9438: CUBIC ([`CongestionVariant::Cubic`]) — [`congestion`].
//! * RFC 7661 §4.3 / Linux `tcp_is_cwnd_limited`: congestion-window validation
//!   ([`TcpConfig::cwnd_validation`]) — [`congestion`], [`sender`].
//! * RFC 2018, RFC 6675: SACK and its loss recovery ([`TcpConfig::sack`]) — [`sack`],
//!   [`sender`], [`receiver`].
//! * Linux `tcp_rcv_space_adjust`: receive-buffer autotuning
//!   ([`TcpConfig::rcv_buffer_max`], 2.6.23's or 6.1's growth,
//!   [`TcpConfig::rcv_space_adjust`]) and `tcp_win_from_space`: the window a buffer's memory
//!   advertises ([`TcpConfig::adv_win_scale`]) — [`receiver`].
//! * RFC 3168 §6.1: ECN ([`TcpConfig::ecn`]) — [`sender`], [`receiver`].
//! * RFC 7323 §2: window scaling, as a cap of 65 535 B on the advertised window when off
//!   ([`TcpConfig::window_scaling`]) — [`receiver`].
//! * RFC 7323 §3-§5: timestamps ([`TcpConfig::timestamps`]): RTT samples from TSecr on
//!   every ACK of new data (§4), TS.Recent at the receiver (§4.3), PAWS optional
//!   ([`TcpConfig::paws`], §5) — [`sender`], [`receiver`].
//! * RFC 9406: HyStart++ ([`TcpConfig::hystart`]) — [`hystart`], [`congestion`].
//! * RFC 8985 §6: RACK loss detection, lost retransmissions included, with Linux 6.1's
//!   choices (`tcp_recovery.c`: reordering window min_rtt/4 capped by SRTT, 0 before
//!   reordering is seen in recovery; the timeout marks lost what RACK would) — [`rack`],
//!   [`sender`] ([`TcpConfig::rack`]).
//! * RFC 8985 §7: tail loss probe, Linux `tcp_schedule_loss_probe`/`tcp_send_loss_probe`/
//!   `tcp_process_tlp_ack` ([`TcpConfig::tlp`]) — [`sender`].
//! * RFC 6937: proportional rate reduction with PRR-SSRB, as Linux `tcp_cwnd_reduction`
//!   ([`TcpConfig::prr`]) — [`prr`], [`sender`].
//! * RFC 5682 §3.1: SACK-enhanced F-RTO with Linux's undo (`tcp_process_loss`,
//!   `tcp_try_undo_loss`) ([`TcpConfig::frto`]) — [`sender`].
//! * Linux `sk_sndbuf` with `tcp_wmem` autotuning (`tcp_sndbuf_expand`,
//!   `sk_stream_write_space`): the send buffer that bounds a bulk sender's data in flight
//!   and unsent ([`TcpConfig::snd_buffer`]) — [`sndbuf`], [`sender`].
//!
//! Not modelled: connection teardown (FIN/RST; completion is "all data acknowledged"),
//! limited transmit (RFC 3042), restart after idle (RFC 5681 §4.1), D-SACK (so RACK's
//! reordering window never grows past min_rtt/4, `tcp_rack_update_reo_wnd`, and a TLP
//! whose original also arrived is not recognised by its D-SACK), SACK reneging with RACK
//! (the scoreboard is kept across a timeout), Linux's undo of a fast recovery
//! (`tcp_try_undo_recovery`, Eifel/timestamps) and the Disorder/CWR states as states of
//! their own, pacing, the rescue retransmission of RFC 6675 (NextSeg rule 4), the window scale factor's 2^shift
//! granularity (windows are plain byte counts), zero-window probing (this receiver never
//! advertises less than one segment when its buffer holds at least one).

pub mod congestion;
pub mod hystart;
pub mod prr;
pub mod rack;
pub mod receiver;
pub mod rto;
pub mod sack;
pub mod sender;
pub mod sndbuf;

#[cfg(test)]
mod harness;

use std::fmt;
use std::ops::BitOr;

use crate::engine::SimTime;

pub use congestion::{Congestion, CongestionVariant, DupAckAction, NewAckAction};
pub use hystart::{HyStart, HyStartPhase};
pub use receiver::{tcp_win_from_space, RcvSpaceAdjust, ReceiverState, ReceiverStats, TcpReceiver};
pub use rto::{RtoEstimator, RtoStyle};
pub use sack::{SackBlocks, Scoreboard, MAX_SACK_BLOCKS};
pub use sender::{
    CwndStats, LimitedTime, RttStats, SenderState, SenderStats, TcpSender, TraceSample,
};

/// "Infinite" initial ssthresh (RFC 5681 §3.1: "arbitrarily high").
pub const SSTHRESH_INFINITE: u64 = u64::MAX;

/// Per-connection TCP parameters. Both endpoints take the same configuration (each reads
/// the fields that concern it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpConfig {
    /// Loss response. Default [`CongestionVariant::NewReno`].
    pub variant: CongestionVariant,
    /// Sender maximum segment size, payload bytes per segment. Default 1448 (1500-byte MTU
    /// minus IPv4, TCP and a 12-byte timestamp option, as Linux sends).
    pub mss: u32,
    /// Initial window in segments (RFC 5681 §3.1 IW). Default 1, the seeds' era (the
    /// thesis starts at 1 MSS); RFC 3390 allows up to 4 KiB (2-4 segments), RFC 6928 10.
    pub initial_cwnd_segments: u32,
    /// Initial ssthresh in bytes. Default [`SSTHRESH_INFINITE`]; the thesis (seed 001) uses
    /// 64 MSS, see [`TcpConfig::with_initial_ssthresh_segments`].
    pub initial_ssthresh: u64,
    /// Retransmission timeout before the first RTT sample (the SYN's, or the first
    /// segment's without a handshake). Default 1 s (RFC 6298 §2.1); RFC 2988 §2.1 and
    /// Linux's `TCP_TIMEOUT_INIT` up to 3.0 (2.6.23: `3*HZ`) used 3 s.
    pub initial_rto: SimTime,
    /// Lower bound of the RTO. Default 1 s (RFC 6298 §2.4); Linux uses 200 ms.
    pub min_rto: SimTime,
    /// How the RTO follows the RTT samples: RFC 6298's estimator (default) or Linux's, in
    /// which the minimum RTO is added to SRTT rather than put under the sum
    /// ([`RtoStyle::Linux`]).
    pub rto_style: RtoStyle,
    /// Upper bound of the RTO and of its exponential back-off. Default 64 s (RFC 6298
    /// §2.5 allows any cap of at least 60 s; 64 s is the thesis's value).
    pub max_rto: SimTime,
    /// Clock granularity G in RTO = SRTT + max(G, 4·RTTVAR) (RFC 6298 §2.3). The
    /// simulated clock is exact to the nanosecond, so G only keeps the RTO from collapsing
    /// onto SRTT when the RTT is constant. Default 1 ms (a Linux jiffy at HZ=1000).
    pub clock_granularity: SimTime,
    /// Duplicate ACKs that trigger fast retransmit. Default 3 (RFC 5681 §3.2); raise it to
    /// tolerate reordering (Linux's `tcp_reordering`).
    pub dupack_threshold: u32,
    /// Whether the receiver delays ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2). Default on.
    pub delayed_ack: bool,
    /// Delayed-ACK timer. Default 200 ms: RFC 1122 requires less than 0.5 s and RFC 5681
    /// §4.2 at most 500 ms; 200 ms is the classic BSD/Windows value (Linux adapts between
    /// 40 ms and 200 ms, which a fixed-parameter model cannot reproduce).
    pub delayed_ack_timeout: SimTime,
    /// With delayed ACKs on, acknowledge at least every this many in-order segments.
    /// Default 2 (RFC 5681 §4.2: "at least every second full-sized segment"; we count
    /// segments of any size, as BSD does and as Linux effectively does by adapting its
    /// receive-MSS estimate, so sub-MSS messages are not held for the timer).
    pub delayed_ack_segments: u32,
    /// Receive buffer in bytes, the largest window the receiver advertises. Default
    /// 64 KiB; the thesis uses 8 MSS ([`TcpConfig::with_rcv_buffer_segments`]). Must hold
    /// at least one segment.
    pub rcv_buffer: u32,
    /// Whether the connection starts with a three-way handshake (SYN, SYN-ACK, ACK; RFC
    /// 9293 §3.5). Default off: data flows from [`TcpSender::start`].
    pub handshake: bool,
    /// Which end sends the SYN when `handshake` is on. Default [`Opener::Sender`].
    pub opener: Opener,
    /// Congestion-window validation: grow cwnd only after a send round that cwnd limited
    /// (Linux's `tcp_is_cwnd_limited`; RFC 7661 §4.3 "non-validated" cwnd is not
    /// increased), so a receive-window- or application-limited sender's cwnd stays near
    /// what it uses. Default off here (the classic model the thesis and the reference
    /// tests use); scenarios turn it on by default (`transport.cwnd_validation`).
    pub cwnd_validation: bool,
    /// ECN (RFC 3168): data segments are ECN-capable (ECT(0) on first transmissions,
    /// §6.1.5), the receiver echoes a CE mark with ECE until it sees CWR (§6.1.3), the
    /// sender reduces its window at most once per window of data and sets CWR (§6.1.2).
    /// Both ends share the configuration, so negotiation (ECE|CWR on the SYN, ECE on the
    /// SYN-ACK, §6.1.1) always succeeds when on. Default off.
    pub ecn: bool,
    /// RFC 7323 §2 window scaling: with it the receiver advertises its whole buffer
    /// (windows are byte counts here, the scale factor's rounding to 2^shift is not
    /// modelled); without it the 16-bit window field caps the advertised window at
    /// 65 535 bytes. Default on (Linux's `tcp_window_scaling`).
    pub window_scaling: bool,
    /// Selective acknowledgments (RFC 2018) with RFC 6675 loss recovery: the receiver
    /// reports out-of-order blocks ([`TcpReceiver::sack_blocks`]), the sender keeps a
    /// scoreboard and, in recovery, sends by `pipe` instead of NewReno's inflated window.
    /// NewReno and CUBIC only. Default off.
    pub sack: bool,
    /// Receive-buffer autotuning (Linux `tcp_rcv_space_adjust`, "DRS"): when set, the
    /// receive buffer starts at [`TcpConfig::rcv_buffer`] (Linux `tcp_rmem[1]`) and grows
    /// up to this many bytes (`tcp_rmem[2]`) as the receiver sees the sender's rate grow;
    /// see [`receiver`]. `None` (default): a fixed buffer.
    pub rcv_buffer_max: Option<u32>,
    /// Linux's `tcp_adv_win_scale`: when set, [`TcpConfig::rcv_buffer`] and
    /// [`TcpConfig::rcv_buffer_max`] are socket-buffer memory (`tcp_rmem`, which also pays
    /// for each segment's skb overhead) and the receiver advertises only
    /// [`tcp_win_from_space`] of it: `space − space/2^scale` (2: ¾, Linux 2.4 to 3.3; 1: ½,
    /// 3.4 to 6.5), or `space/2^−scale` for a scale ≤ 0. `None` (default): the two sizes
    /// are the advertised window itself.
    pub adv_win_scale: Option<i8>,
    /// How autotuning grows the window once per receiver RTT ([`RcvSpaceAdjust`]); only
    /// with [`TcpConfig::rcv_buffer_max`]. Default [`RcvSpaceAdjust::Linux6_1`].
    pub rcv_space_adjust: RcvSpaceAdjust,
    /// RFC 7323 timestamps as the RTT measurement: every data segment carries TSval (the
    /// sender's clock, [`ts_clock`]), the receiver echoes TS.Recent in TSecr (§4.3) and
    /// every ACK of new data gives an RTT sample, now − TSecr (§4.1, RTTM), also for
    /// retransmitted data, which Karn's rule leaves untimed. Off (default): RFC 6298's
    /// one timed segment at a time with Karn's rule. Either way the wire carries the
    /// option's 12 bytes (the simulator's header size); this switch says whether the
    /// model uses them.
    pub timestamps: bool,
    /// PAWS (RFC 7323 §5.3): with timestamps, the receiver drops a segment whose TSval is
    /// older than TS.Recent and acknowledges it. Default off (Linux checks it always; in
    /// a simulation with 64-bit sequence numbers only a deliberately delayed duplicate can
    /// trip it).
    pub paws: bool,
    /// HyStart++ (RFC 9406) in the initial slow start: leave it when the round's minimum
    /// RTT rises, through conservative slow start. NewReno and CUBIC; needs
    /// [`TcpConfig::timestamps`] (an RTT sample per ACK). Default off.
    pub hystart: bool,
    /// What the sender does when its own host's interface queue refuses a data segment it
    /// has just handed down ([`LocalCongestion`]). Default [`LocalCongestion::Loss`] here
    /// (the classic model and ns-3's); scenarios choose Linux's by default
    /// (`transport.local_congestion`).
    pub local_congestion: LocalCongestion,
    /// RACK loss detection (RFC 8985 §6, Linux `tcp_recovery.c`; [`rack`]): segments are
    /// lost by time (sent before the most recently delivered one, more than its RTT plus
    /// a reordering window ago) instead of by DupThresh, lost retransmissions included;
    /// after a timeout only the segments RACK deems lost are resent (no go-back-N). Needs
    /// [`TcpConfig::sack`]. Linux default: on (`net.ipv4.tcp_recovery` = 1). Default off
    /// here (the RFC 6675 model the shipped scenarios use).
    pub rack: bool,
    /// Tail loss probe (RFC 8985 §7, Linux `tcp_schedule_loss_probe`/`tcp_send_loss_probe`):
    /// 2·SRTT after the last transmission with no ACK, send one probe so that a tail loss
    /// is repaired by RACK instead of the RTO. Needs [`TcpConfig::rack`]. Linux default: on
    /// (`tcp_early_retrans` = 3). Default off.
    pub tlp: bool,
    /// Proportional rate reduction during recovery (RFC 6937, Linux `tcp_cwnd_reduction`;
    /// [`prr`]). Modelled in the RACK recovery; needs [`TcpConfig::rack`] (Linux always
    /// uses PRR). Off: cwnd = ssthresh at once, as RFC 6675. Default off.
    pub prr: bool,
    /// F-RTO (RFC 5682 §3 SACK-enhanced, Linux `tcp_process_loss` with `tcp_frto` = 2):
    /// after a timeout, new data on the next ACKs tells a spurious timeout from a real one,
    /// and a spurious one is undone (cwnd and ssthresh restored, `tcp_try_undo_loss`).
    /// Needs [`TcpConfig::rack`]. Linux default: on. Default off.
    pub frto: bool,
    /// The send buffer (Linux `sk_sndbuf`, [`sndbuf`]): when set, the application's data
    /// enters the socket only while the bytes from `snd_una` to the end of the written
    /// data are below the buffer, and a writer that found it full waits until ACKs have
    /// drained it to ⅔; the sender sends only what was written. Starts at this many bytes
    /// (`tcp_wmem[1]`). `None` (default): the application's data is all in the socket at
    /// once (no send buffer), the classic model.
    pub snd_buffer: Option<u32>,
    /// Send-buffer autotuning (`tcp_sndbuf_expand`): with [`TcpConfig::snd_buffer`], the
    /// buffer grows to twice the congestion window's worth of per-segment memory, up to
    /// this many bytes (`tcp_wmem[2]`). `None`: a fixed buffer.
    pub snd_buffer_max: Option<u32>,
}

/// The sender's timestamp clock (RFC 7323 §5.4): milliseconds (Linux's `TCP_TS_HZ` =
/// 1000; the RFC asks for 1 ms to 1 s per tick) plus one, so that no valid TSval is 0,
/// the value a segment without a valid TSecr carries (§3.2, and Linux ignores a zero
/// TSecr). Wraps at 2^32 ticks (49.7 days).
pub fn ts_clock(now: SimTime) -> u32 {
    (now.as_nanos() / 1_000_000).wrapping_add(1) as u32
}

/// One timestamp tick in simulated time.
pub const TS_TICK: SimTime = SimTime::from_millis(1);

/// The largest window a TCP header can advertise without window scaling (RFC 7323 §2).
pub const MAX_UNSCALED_WINDOW: u32 = 65_535;

/// The end that opens the connection (sends the SYN) when the handshake is on.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Opener {
    /// The data sender connects, as an upload does: SYN from the sender, SYN-ACK from the
    /// receiver, then the sender's ACK and data.
    #[default]
    Sender,
    /// The data receiver connects, as a client fetching a file does: the receiver's SYN
    /// ([`TcpReceiver::connect`]), the sender's SYN-ACK, the receiver's ACK (which carries
    /// the request in HTTP), then data. The first data byte reaches the receiver two RTTs
    /// after its SYN left, as in a real download.
    Receiver,
}

/// What a sender learns when the queue of its own host's outgoing interface refuses a
/// segment (a qdisc full: Linux's `dev_queue_xmit` returns NET_XMIT_DROP, a BSD
/// `if_output` ENOBUFS). A real stack hears it at once and the data was never sent; a
/// simulator that treats it as a loss in the network makes the sender retransmit data that
/// never left it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum LocalCongestion {
    /// No feedback: the segment counts as sent and is lost like a drop anywhere else (ns-3,
    /// whose traffic-control layer does not tell TCP; the classic model).
    #[default]
    Loss,
    /// Linux (2.4 to today, `tcp_transmit_skb`): on NET_XMIT_DROP the socket enters CWR
    /// (`tcp_enter_cwr`: ssthresh from the congestion control, at most once per window and
    /// not during loss recovery, the state an ECN echo enters) and `tcp_write_xmit` stops;
    /// the segment stays at the head of the unsent data (snd_nxt is not advanced) and goes
    /// out on the next ACK, or from the probe timer when nothing is in flight. The window
    /// is reduced at once, as this model's ECN response is (Linux lowers it over the next
    /// window by rate halving).
    Cwr,
    /// FreeBSD 4.x (`tcp_output` on ENOBUFS, the kernel NCTUns ran for seed 004): snd_nxt
    /// backs out over the segment, the retransmission timer is armed if idle, and
    /// `tcp_quench` sets cwnd to one segment (ssthresh unchanged, so slow start regrows it).
    Quench,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            variant: CongestionVariant::NewReno,
            mss: 1448,
            initial_cwnd_segments: 1,
            initial_ssthresh: SSTHRESH_INFINITE,
            initial_rto: SimTime::from_secs(1),
            min_rto: SimTime::from_secs(1),
            rto_style: RtoStyle::Rfc6298,
            max_rto: SimTime::from_secs(64),
            clock_granularity: SimTime::from_millis(1),
            dupack_threshold: 3,
            delayed_ack: true,
            delayed_ack_timeout: SimTime::from_millis(200),
            delayed_ack_segments: 2,
            rcv_buffer: 64 * 1024,
            handshake: false,
            opener: Opener::Sender,
            cwnd_validation: false,
            ecn: false,
            window_scaling: true,
            sack: false,
            rcv_buffer_max: None,
            adv_win_scale: None,
            rcv_space_adjust: RcvSpaceAdjust::Linux6_1,
            timestamps: false,
            paws: false,
            hystart: false,
            local_congestion: LocalCongestion::Loss,
            rack: false,
            tlp: false,
            prr: false,
            frto: false,
            snd_buffer: None,
            snd_buffer_max: None,
        }
    }
}

impl TcpConfig {
    /// The largest window the receiver can advertise: its buffer (with
    /// [`TcpConfig::adv_win_scale`], the part of the buffer memory Linux advertises,
    /// [`tcp_win_from_space`]), capped at 65 535 bytes without window scaling (RFC 7323 §2).
    pub fn max_advertised_window(&self) -> u32 {
        let window = self.window_from_space(self.rcv_buffer);
        if self.window_scaling {
            window
        } else {
            window.min(MAX_UNSCALED_WINDOW)
        }
    }

    /// The window `space` bytes of receive buffer advertise: `space` itself, or with
    /// [`TcpConfig::adv_win_scale`] Linux's [`tcp_win_from_space`].
    pub fn window_from_space(&self, space: u32) -> u32 {
        match self.adv_win_scale {
            Some(scale) => tcp_win_from_space(space, scale),
            None => space,
        }
    }

    /// Sets the initial ssthresh to `segments` · MSS (the thesis: 64).
    pub fn with_initial_ssthresh_segments(mut self, segments: u32) -> Self {
        self.initial_ssthresh = u64::from(segments) * u64::from(self.mss);
        self
    }
    /// Sets the receive buffer to `segments` · MSS (the thesis: 8).
    pub fn with_rcv_buffer_segments(mut self, segments: u32) -> Self {
        self.rcv_buffer = segments.saturating_mul(self.mss);
        self
    }

    /// Checks the parameters; the endpoints' constructors panic on an invalid
    /// configuration, so scenario loading should call this first.
    pub fn validate(&self) -> Result<(), TcpConfigError> {
        let err = |msg: &str| Err(TcpConfigError(msg.to_string()));
        if self.mss == 0 {
            return err("mss must be positive");
        }
        if self.initial_cwnd_segments == 0 {
            return err("initial window must be at least one segment");
        }
        if self.initial_ssthresh < 2 * u64::from(self.mss) {
            return err("initial ssthresh must be at least 2 MSS");
        }
        if self.dupack_threshold == 0 {
            return err("dupack threshold must be at least 1");
        }
        if self.min_rto > self.max_rto || self.max_rto == SimTime::ZERO {
            return err("need 0 <= min RTO <= max RTO and max RTO > 0");
        }
        if self.initial_rto == SimTime::ZERO {
            return err("initial RTO must be positive");
        }
        if self.sack && !self.variant.newreno_recovery() {
            return err("SACK loss recovery needs variant NewReno or CUBIC");
        }
        if self.rcv_buffer_max.is_some_and(|m| m < self.rcv_buffer) {
            return err("the autotuning maximum must be at least the receive buffer");
        }
        if self.paws && !self.timestamps {
            return err("PAWS needs timestamps (RFC 7323 §5)");
        }
        if self.hystart && !self.timestamps {
            return err("HyStart++ needs timestamps (an RTT sample per ACK, RFC 9406 §4.2)");
        }
        if self.hystart && !self.variant.newreno_recovery() {
            return err("HyStart++ runs with variant NewReno or CUBIC");
        }
        if self.rack && !self.sack {
            return err("RACK (RFC 8985) needs SACK");
        }
        if (self.tlp || self.prr || self.frto) && !self.rack {
            return err("TLP, PRR and F-RTO are modelled in the RACK recovery: they need rack");
        }
        if self.adv_win_scale.is_some_and(|s| !(-31..=31).contains(&s)) {
            return err("adv_win_scale must lie in [-31, 31] (Linux's tcp_adv_win_scale)");
        }
        if self.window_from_space(self.rcv_buffer) < self.mss {
            return err("receive buffer must hold at least one MSS");
        }
        if self.snd_buffer_max.is_some() && self.snd_buffer.is_none() {
            return err("send-buffer autotuning needs a send buffer to start from");
        }
        if let Some(b) = self.snd_buffer {
            if b < self.mss {
                return err("send buffer must hold at least one MSS");
            }
            if self.snd_buffer_max.is_some_and(|m| m < b) {
                return err("the send-buffer maximum must be at least the send buffer");
            }
        }
        if self.delayed_ack {
            if self.delayed_ack_segments == 0 {
                return err("delayed ACK segment count must be at least 1");
            }
            if self.delayed_ack_timeout == SimTime::ZERO
                || self.delayed_ack_timeout > SimTime::from_millis(500)
            {
                return err("delayed ACK timeout must be in (0, 500 ms] (RFC 5681 §4.2)");
            }
        }
        Ok(())
    }
}

/// An invalid [`TcpConfig`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid TCP configuration: {0}")]
pub struct TcpConfigError(pub String);

/// What the sending application has to send.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AppData {
    /// An always-backlogged source (bulk transfer that never ends).
    Infinite,
    /// A finite amount: a file of `n` bytes, or `Bytes(0)` for a message source that hands
    /// data over with [`TcpSender::offer`] as it is generated.
    Bytes(u64),
}

/// TCP control flags, with the wire bit values of RFC 9293 §3.1.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct TcpFlags(u8);

impl TcpFlags {
    pub const NONE: TcpFlags = TcpFlags(0);
    /// Not produced by these endpoints (no teardown); defined for the wire mapping.
    pub const FIN: TcpFlags = TcpFlags(0x01);
    pub const SYN: TcpFlags = TcpFlags(0x02);
    pub const ACK: TcpFlags = TcpFlags(0x10);
    /// ECN-Echo (RFC 3168 §6.1).
    pub const ECE: TcpFlags = TcpFlags(0x40);
    /// Congestion Window Reduced (RFC 3168 §6.1).
    pub const CWR: TcpFlags = TcpFlags(0x80);

    /// The wire byte (FIN=0x01, SYN=0x02, ACK=0x10, as in `packet::TcpHeader::flags`).
    pub const fn bits(self) -> u8 {
        self.0
    }
    /// Flags from a wire byte (bits this model does not use are kept).
    pub const fn from_bits(bits: u8) -> TcpFlags {
        TcpFlags(bits)
    }
    pub const fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, rhs: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | rhs.0)
    }
}

impl fmt::Debug for TcpFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [
            (0x02, "SYN"),
            (0x10, "ACK"),
            (0x01, "FIN"),
            (0x40, "ECE"),
            (0x80, "CWR"),
        ];
        let mut first = true;
        for (bit, name) in names {
            if self.0 & bit != 0 {
                if !first {
                    f.write_str("|")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        let rest = self.0 & !0xd3;
        if rest != 0 || first {
            if !first {
                f.write_str("|")?;
            }
            write!(f, "{rest:#04x}")?;
        }
        Ok(())
    }
}

/// A segment from the sender to the receiver: data, a SYN, or the handshake's final ACK.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Sequence number of the first byte (or of the SYN).
    pub seq: u64,
    /// Payload bytes (0 for a SYN or a pure ACK).
    pub len: u32,
    /// Acknowledgment number (meaningful with [`TcpFlags::ACK`]; the receiver sends no
    /// data, so it is 1 after a handshake and 0 without one).
    pub ack: u64,
    pub flags: TcpFlags,
    /// Window the sender advertises for the reverse direction (its own buffer; unused in
    /// this one-way model).
    pub window: u32,
    /// Whether any byte of this segment (or this SYN) has been sent before. Informational:
    /// for traces and counters.
    pub is_retransmission: bool,
    /// RFC 7323 TSval ([`ts_clock`] at sending) with [`TcpConfig::timestamps`], else 0.
    pub tsval: u32,
}

impl Segment {
    /// One past the last sequence number the segment occupies (a SYN occupies one).
    pub fn end(&self) -> u64 {
        self.seq + u64::from(self.len) + u64::from(self.flags.contains(TcpFlags::SYN))
    }
    /// The 32-bit sequence number for a wire header.
    pub fn wire_seq(&self) -> u32 {
        self.seq as u32
    }
    /// The 32-bit acknowledgment number for a wire header.
    pub fn wire_ack(&self) -> u32 {
        self.ack as u32
    }
}

/// An acknowledgment from the receiver to the sender (a pure ACK or the SYN-ACK).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AckInfo {
    /// The receiver's own sequence number (0 on the SYN-ACK, 1 after it; 0 without a
    /// handshake). Carries no data.
    pub seq: u64,
    /// Cumulative acknowledgment: the next byte expected.
    pub ack: u64,
    /// Advertised receive window in bytes.
    pub window: u32,
    pub flags: TcpFlags,
    /// RFC 7323 TSecr: the receiver's TS.Recent with [`TcpConfig::timestamps`]; 0 when
    /// not valid (no timestamps, or nothing to echo yet).
    pub tsecr: u32,
}

impl AckInfo {
    /// The 32-bit sequence number for a wire header.
    pub fn wire_seq(&self) -> u32 {
        self.seq as u32
    }
    /// The 32-bit acknowledgment number for a wire header.
    pub fn wire_ack(&self) -> u32 {
        self.ack as u32
    }
}

/// Recovers a 64-bit sequence number from its low 32 bits `wire`, choosing the value
/// closest to `reference` (e.g. `rcv_nxt` for a received segment, `snd_una` for a received
/// ACK). Correct while the true value is within 2^31 of the reference, which TCP's window
/// limits guarantee (RFC 9293 §3.4).
pub fn unwrap_seq(wire: u32, reference: u64) -> u64 {
    let delta = wire.wrapping_sub(reference as u32) as i32;
    reference.wrapping_add_signed(i64::from(delta))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::harness::Wire;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let c = TcpConfig::default();
        assert_eq!(c.variant, CongestionVariant::NewReno);
        assert_eq!(c.mss, 1448);
        assert_eq!(c.initial_cwnd_segments, 1);
        assert_eq!(c.initial_ssthresh, SSTHRESH_INFINITE);
        assert_eq!(c.initial_rto, SimTime::from_secs(1));
        assert_eq!(c.min_rto, SimTime::from_secs(1));
        assert_eq!(c.max_rto, SimTime::from_secs(64));
        assert_eq!(c.clock_granularity, ms(1));
        assert_eq!(c.dupack_threshold, 3);
        assert!(c.delayed_ack);
        assert_eq!(c.delayed_ack_timeout, ms(200));
        assert_eq!(c.delayed_ack_segments, 2);
        assert_eq!(c.rcv_buffer, 65_536);
        assert!(!c.handshake);
        assert_eq!(c.validate(), Ok(()));
    }

    #[test]
    fn thesis_parameters_in_segments() {
        // Seed 001: MSS 1460, RcvBuffer 8 MSS, Threshold 64 MSS.
        let c = TcpConfig {
            mss: 1460,
            ..TcpConfig::default()
        }
        .with_rcv_buffer_segments(8)
        .with_initial_ssthresh_segments(64);
        assert_eq!(c.rcv_buffer, 8 * 1460);
        assert_eq!(c.initial_ssthresh, 64 * 1460);
    }

    #[test]
    fn validate_rejects_nonsense() {
        let bad = [
            TcpConfig {
                mss: 0,
                ..TcpConfig::default()
            },
            TcpConfig {
                rcv_buffer: 100,
                ..TcpConfig::default()
            },
            TcpConfig {
                dupack_threshold: 0,
                ..TcpConfig::default()
            },
            TcpConfig {
                min_rto: SimTime::from_secs(100),
                ..TcpConfig::default()
            },
            TcpConfig {
                delayed_ack_timeout: ms(600),
                ..TcpConfig::default()
            },
        ];
        for c in bad {
            assert!(c.validate().is_err(), "{c:?}");
        }
    }

    #[test]
    fn flags_use_wire_bits() {
        let f = TcpFlags::SYN | TcpFlags::ACK;
        assert_eq!(f.bits(), 0x12);
        assert!(f.contains(TcpFlags::SYN) && f.contains(TcpFlags::ACK));
        assert!(!f.contains(TcpFlags::FIN));
        assert_eq!(format!("{f:?}"), "SYN|ACK");
        assert_eq!(format!("{:?}", TcpFlags::NONE), "0x00");
        assert_eq!(TcpFlags::from_bits(0x10), TcpFlags::ACK);
    }

    #[test]
    fn wire_numbers_are_the_low_32_bits_and_unwrap_back() {
        let s = Segment {
            seq: (5 << 32) + 17,
            len: 1448,
            ack: 1,
            flags: TcpFlags::ACK,
            window: 0,
            is_retransmission: false,
            tsval: 0,
        };
        assert_eq!(s.wire_seq(), 17);
        assert_eq!(unwrap_seq(17, (5 << 32) + 10), (5 << 32) + 17);
        // Across a wrap, both directions.
        assert_eq!(unwrap_seq(5, (1 << 32) - 10), (1 << 32) + 5);
        assert_eq!(unwrap_seq(u32::MAX - 2, (1 << 32) + 4), (1 << 32) - 3);
        assert_eq!(unwrap_seq(3, 0), 3);
    }

    // ---- End-to-end behaviour of a connection, on the in-test wire. ----

    #[test]
    fn finite_transfer_completes_with_exact_byte_count_and_final_short_segment() {
        // 10 000 bytes at MSS 1448 = 6 full segments + one of 1312 bytes.
        let mut w = Wire::new(TcpConfig::default(), AppData::Bytes(10_000), ms(50));
        let done = w.run_to_completion(SimTime::from_secs(10));
        assert_eq!(w.receiver.delivered_bytes(), 10_000);
        let lens: Vec<u32> = w.sent.iter().map(|(_, s)| s.len).collect();
        assert_eq!(lens, [1448, 1448, 1448, 1448, 1448, 1448, 1312]);
        assert_eq!(w.sender.stats().bytes_acked, 10_000);
        assert_eq!(w.sender.stats().retransmissions, 0);
        assert!(w.sender.is_complete());
        assert_eq!(w.sender.completion_time(), Some(done));
        assert_eq!(
            done,
            w.acks.last().unwrap().0,
            "completion = arrival of last ACK"
        );
        // Nothing left to do: no segment, no timer.
        assert_eq!(w.sender.poll_transmit(done), None);
        assert_eq!(w.sender.next_timer(), None);
    }

    #[test]
    fn handshake_costs_one_rtt_before_data() {
        // RFC 9293 §3.5: SYN at 0, SYN-ACK back at 1 RTT, the ACK and the first data
        // segment leave at 1 RTT; without the handshake data leaves at 0.
        let cfg = TcpConfig {
            handshake: true,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(cfg, AppData::Bytes(3000), ms(50));
        w.run_until(ms(100));
        // The SYN-ACK gave the first RTT sample (RFC 6298 §2.2).
        assert_eq!(w.sender.srtt(), Some(ms(100)));
        let done = w.run_to_completion(SimTime::from_secs(10));
        let (t0, syn) = w.sent[0];
        assert_eq!(
            (t0, syn.seq, syn.len, syn.flags),
            (ms(0), 0, 0, TcpFlags::SYN)
        );
        let (t1, ack) = w.sent[1];
        assert_eq!(
            (t1, ack.seq, ack.len, ack.flags),
            (ms(100), 1, 0, TcpFlags::ACK)
        );
        let (t2, data) = w.sent[2];
        assert_eq!((t2, data.seq, data.len), (ms(100), 1, 1448));
        assert_eq!(w.receiver.delivered_bytes(), 3000);

        let mut plain = Wire::new(TcpConfig::default(), AppData::Bytes(3000), ms(50));
        let plain_done = plain.run_to_completion(SimTime::from_secs(10));
        assert_eq!(plain.sent[0].0, ms(0));
        assert_eq!(done - plain_done, ms(100), "exactly one RTT more");
    }

    fn download(one_way: SimTime) -> Wire {
        let cfg = TcpConfig {
            handshake: true,
            opener: Opener::Receiver,
            initial_cwnd_segments: 4,
            ..TcpConfig::default()
        };
        Wire::new(cfg, AppData::Bytes(1000), one_way)
    }

    #[test]
    fn receiver_opened_handshake_delivers_the_first_byte_two_rtts_after_the_syn() {
        // RFC 9293 §3.5 from the client's side: SYN (receiver) at 0, SYN-ACK (sender) at
        // 50 ms, the receiver's ACK at 100 ms reaches the sender at 150 ms, the data the
        // receiver at 200 ms: two RTTs, as a download (a web object) really costs.
        let mut w = download(ms(50));
        let done = w.run_to_completion(SimTime::from_secs(5));
        let (t, syn_ack) = w.sent[0];
        assert_eq!(
            (t, syn_ack.seq, syn_ack.ack, syn_ack.flags),
            (ms(50), 0, 1, TcpFlags::SYN | TcpFlags::ACK)
        );
        let (t, data) = w.sent[1];
        assert_eq!((t, data.seq, data.len, data.ack), (ms(150), 1, 1000, 1));
        assert_eq!(w.receiver.delivered_bytes(), 1000);
        assert_eq!(w.receiver.stats().syns_sent, 1);
        // The SYN-ACK was timed: its ACK came back one RTT later.
        assert_eq!(w.sender.stats().rtt.samples, 2);
        assert_eq!(w.sender.stats().rtt.min, Some(ms(100)));
        // The last byte is acknowledged after the 200 ms delayed-ACK timer.
        assert_eq!(done, ms(200 + 200 + 50));
        assert_eq!(w.sender.stats().segments_sent, 2, "no SYN of its own");
    }

    #[test]
    fn a_receiver_that_opens_retransmits_its_syn_with_back_off() {
        // RFC 6298 (5.5): the SYN timer starts at the initial RTO (1 s) and doubles.
        let mut w = download(ms(50));
        w.drop_ack(0, 1).drop_ack(0, 2); // the first two SYNs (they carry ack 0)
        w.run_to_completion(SimTime::from_secs(10));
        assert_eq!(w.receiver.stats().syns_sent, 3);
        // The third SYN left at 1 + 2 = 3 s: the SYN-ACK follows at 3.05 s.
        assert_eq!(w.sent[0].0, ms(3050));
        assert_eq!(w.receiver.delivered_bytes(), 1000);
    }

    #[test]
    fn a_lost_syn_ack_is_resent_and_the_sender_starts_with_one_segment() {
        // The SYN-ACK is lost: the sender's timer (1 s) and the receiver's repeated SYN
        // (1 s) both bring it again; RFC 5681 §3.1: after a lost SYN-ACK the initial window
        // is one segment; RFC 6298 (5.7): the RTO falls back to 3 s without a sample.
        let mut w = download(ms(50));
        w.drop_data(0, 1);
        w.run_until(SimTime::from_millis(1200));
        assert_eq!(w.sender.state(), SenderState::Established);
        assert_eq!(w.sender.cwnd(), 1448);
        assert!(w.sender.stats().retransmissions >= 1);
        assert_eq!(w.sender.stats().timeouts, 1);
        assert_eq!(w.receiver.stats().syns_sent, 2);
        w.run_to_completion(SimTime::from_secs(10));
        assert_eq!(w.receiver.delivered_bytes(), 1000);
    }

    #[test]
    fn lost_syn_is_retransmitted_on_rto_with_back_off() {
        // RFC 6298 §5: the SYN is timed like data; after a SYN timeout the RTO becomes 3 s
        // (§5 (7)) and the initial window one segment (RFC 5681 §3.1).
        let cfg = TcpConfig {
            handshake: true,
            initial_cwnd_segments: 4,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(cfg, AppData::Bytes(20_000), ms(50));
        w.drop_data(0, 1).drop_data(0, 2);
        w.run_until(SimTime::from_secs(3) + ms(100));
        let syns: Vec<SimTime> = w
            .sent
            .iter()
            .filter(|(_, s)| s.flags.contains(TcpFlags::SYN))
            .map(|(t, _)| *t)
            .collect();
        assert_eq!(syns, [ms(0), ms(1000), ms(3000)], "1 s then 2 s back-off");
        assert!(w
            .sent
            .iter()
            .filter(|(_, s)| s.flags.contains(TcpFlags::SYN))
            .skip(1)
            .all(|(_, s)| s.is_retransmission));
        assert_eq!(w.sender.state(), SenderState::Established);
        assert_eq!(w.sender.rto(), SimTime::from_secs(3));
        assert_eq!(
            w.sender.srtt(),
            None,
            "Karn: no sample from a retransmitted SYN"
        );
        assert_eq!(w.sender.cwnd(), 1448, "one-segment initial window");
        assert_eq!(w.sender.stats().timeouts, 2);
    }

    #[test]
    fn the_first_syn_and_the_first_segment_wait_the_initial_rto() {
        // Linux 2.6.23's TCP_TIMEOUT_INIT (RFC 2988): 3 s, then the 2× back-off.
        let cfg = TcpConfig {
            handshake: true,
            initial_rto: SimTime::from_secs(3),
            min_rto: ms(200),
            ..TcpConfig::default()
        };
        let mut w = Wire::new(cfg.clone(), AppData::Bytes(20_000), ms(50));
        w.drop_data(0, 1).drop_data(0, 2);
        w.run_until(SimTime::from_secs(9) + ms(100));
        let syns: Vec<SimTime> = w
            .sent
            .iter()
            .filter(|(_, s)| s.flags.contains(TcpFlags::SYN))
            .map(|(t, _)| *t)
            .collect();
        assert_eq!(syns, [ms(0), ms(3000), ms(9000)], "3 s then 6 s");
        // Without a handshake the first data segment is timed from the same RTO.
        let mut w = Wire::new(
            TcpConfig {
                handshake: false,
                ..cfg
            },
            AppData::Bytes(1000),
            ms(50),
        );
        w.drop_data(0, 1);
        w.run_until(SimTime::from_secs(4));
        let data: Vec<(SimTime, bool)> = w
            .sent
            .iter()
            .filter(|(_, s)| s.len > 0)
            .map(|(t, s)| (*t, s.is_retransmission))
            .collect();
        assert_eq!(data, [(ms(0), false), (ms(3000), true)]);
    }

    #[test]
    fn lost_syn_ack_is_recovered_by_the_syn_retransmission() {
        let cfg = TcpConfig {
            handshake: true,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(cfg, AppData::Bytes(1000), ms(50));
        w.drop_ack(1, 1); // the first SYN-ACK acknowledges 1
        let done = w.run_to_completion(SimTime::from_secs(10));
        assert_eq!(w.receiver.delivered_bytes(), 1000);
        assert_eq!(w.receiver.stats().syn_acks_sent, 2);
        // SYN again at 1 s, SYN-ACK at 1.1 s, data; the single delayed ACK at 1.35 s + 50.
        assert_eq!(done, ms(1400));
    }

    #[test]
    fn message_source_sends_offered_data_without_nagle() {
        // AppData::Bytes(0) + offer(): each message leaves as soon as the window allows,
        // short segments included; completion tracks "everything offered so far".
        let cfg = TcpConfig {
            delayed_ack: false,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(cfg, AppData::Bytes(0), ms(10));
        w.offer_at(ms(100), 500);
        w.offer_at(ms(300), 2000);
        w.run_until(ms(250));
        assert!(w.sender.is_complete());
        assert_eq!(w.sender.completion_time(), Some(ms(120)));
        w.run_until(SimTime::from_secs(5));
        let segs: Vec<(SimTime, u64, u32)> =
            w.sent.iter().map(|(t, s)| (*t, s.seq, s.len)).collect();
        // Byte counting (RFC 3465): the 500-byte ACK grew cwnd to 1448 + 500 = 1948, so
        // the 552-byte tail must wait for the first segment's ACK at 320 ms.
        assert_eq!(w.sender.stats().cwnd.max, 1448 + 500 + 1448 + 552);
        assert_eq!(
            segs,
            [
                (ms(100), 0, 500),
                (ms(300), 500, 1448),
                (ms(320), 1948, 552)
            ]
        );
        assert_eq!(w.receiver.delivered_bytes(), 2500);
        assert_eq!(w.sender.completion_time(), Some(ms(340)));
    }

    #[test]
    fn dupack_threshold_five_tolerates_reordering_of_depth_four() {
        // RFC 5681 §3.2 uses 3 duplicate ACKs; a segment overtaken by 4 others produces 4
        // duplicate ACKs, a spurious fast retransmit at threshold 3 but none at 5.
        let run = |threshold: u32| {
            let cfg = TcpConfig {
                dupack_threshold: threshold,
                initial_cwnd_segments: 10,
                rcv_buffer: 1 << 20,
                ..TcpConfig::default()
            };
            let mut w = Wire::new(cfg, AppData::Bytes(30 * 1448), ms(50));
            w.data_gap = ms(1);
            w.delay_data(2 * 1448, SimTime::from_micros(4500)); // overtaken by 4
            w.run_to_completion(SimTime::from_secs(10));
            assert_eq!(w.receiver.delivered_bytes(), 30 * 1448);
            w
        };
        let strict = run(3);
        assert_eq!(strict.sender.stats().fast_retransmits, 1);
        // The spurious fast retransmit of segment 2 sets recover = 13 segments, so the
        // following cumulative ACKs (7, 9, 11) are NewReno partial ACKs, each resending a
        // segment the receiver already holds (RFC 6582 §6 discusses this cost).
        let resent: Vec<u64> = strict
            .data_sends()
            .filter(|(_, s)| s.is_retransmission)
            .map(|(_, s)| s.seq / 1448)
            .collect();
        assert_eq!(resent, [2, 7, 9, 11]);
        assert_eq!(strict.sender.stats().partial_acks, 3);
        let tolerant = run(5);
        assert_eq!(tolerant.receiver.stats().dupacks_sent, 4);
        assert_eq!(tolerant.sender.stats().dupacks_received, 4);
        assert_eq!(tolerant.sender.stats().fast_retransmits, 0);
        assert_eq!(tolerant.sender.stats().retransmissions, 0);
    }
}
