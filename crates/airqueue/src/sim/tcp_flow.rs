//! A TCP flow in the simulator: a pool of connections made of the sans-IO endpoints of
//! [`crate::transport::tcp`], the application that writes into them, and their timers.
//!
//! A flow owns a pool of connections. Bulk transfers and message sources use one (slot 0)
//! for the whole run; web browsing opens a new connection per object (HTTP/1.0: each object
//! pays a handshake and a slow start) and several at once for a page's auxiliary objects.
//! A connection is closed once the receiver has the whole object and the sender has its
//! last ACK; its slot is then reused, so the pool holds at most the connections open at
//! once. Each connection has its own client port (taken in turn from the IANA dynamic range,
//! as a client's stack hands them out), so its packets carry a distinct 5-tuple — what a
//! flow-hashing qdisc sees — and name their connection; a packet whose connection has
//! closed meanwhile (a late duplicate) is delivered to the host and ignored, as TCP ignores
//! a segment for a closed port.
//!
//! Data segments travel `from` → `to`, pure ACKs back; both are packets of the flow (its
//! drops count both directions). Each endpoint has at most one deadline, kept in a slot of
//! the run's [`Timers`](crate::engine::Timers) (one per endpoint, allocated when the
//! connection's slot is first armed and kept when the slot is reused): a deadline that moves
//! later (the RTO restarted on a new ACK) costs no heap operation and no event (before,
//! the stale event fired, polled the sender and re-armed), and the flows' timers sit in
//! the timer heap rather than the event heap. Measured (docs/architecture.md, issue 10's
//! step 8): 2 % fewer instructions with 10 flows; a wash with 1 000, where every pop now
//! merges against a non-empty timer heap.
//!
//! Wire sizes: a segment carries 52 bytes of headers (IPv4 20 + TCP 20 + the 12-byte
//! timestamp option that Linux and ns-3 send by default); the model uses them for RTT
//! samples (RFC 7323 §4) with `timestamps = true`, and otherwise only pays their bytes
//! (RTT timing is then RFC 6298's one segment at a time).

use crate::app::{UdpSource, WebSession};
use crate::engine::{SimTime, TimerId};
pub use crate::event::Side;
use crate::scenario::{LocalCongestionKind, RcvSpaceAdjustKind, RtoKind, TcpSpec, TcpVariant};
use crate::transport::tcp::{
    AppData, CongestionVariant, LimitedTime, LocalCongestion, Opener, RcvSpaceAdjust, RtoStyle,
    SackBlocks, Segment, SenderStats, TcpConfig, TcpReceiver, TcpSender, SSTHRESH_INFINITE,
};
use std::collections::VecDeque;

/// A connection endpoint without a timer slot yet.
pub const NO_TIMER: TimerId = TimerId(u32::MAX);

/// IPv4 + TCP + timestamp option bytes on every segment.
pub const TCP_WIRE_HEADER_BYTES: u32 = 20 + 20 + 12;

/// ECT(0) in the IP header's ECN field (RFC 3168 §5).
pub const ECN_ECT0: u8 = 2;
/// CE in the IP header's ECN field (RFC 3168 §5).
pub const ECN_CE: u8 = 3;

/// First port of the IANA dynamic range, where client ports come from.
pub const EPHEMERAL_PORT_BASE: u16 = 49152;
/// Ports in the dynamic range (49152–65535).
const EPHEMERAL_PORTS: u32 = 16384;

/// What writes into the flow's connections.
pub enum TcpApp {
    /// Bulk transfer over one connection: infinite, or a file of this many bytes.
    Bulk(Option<u64>),
    /// Messages of `payload_bytes` at the instants of an arrival process, over one
    /// connection.
    Message(UdpSource),
    /// Web-like browsing: one connection per object.
    Web(Box<WebSession>),
}

/// Retransmission counters of a flow, summed over its connections.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpCounters {
    pub retransmissions: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Connections opened.
    pub connections: u64,
    /// ECN-Echo window reductions (RFC 3168).
    pub ecn_reductions: u64,
    /// Data segments the host's own interface queue refused, kept unsent
    /// (`transport.local_congestion` "cwr" or "quench").
    pub local_drops: u64,
    /// Linux's recovery counters, as nstat names them (0 without RACK-TLP / F-RTO):
    /// tail loss probes sent (`TcpExtTCPLossProbes`), …
    pub tcp_loss_probes: u64,
    /// … segments RACK marked lost (RFC 8985 §6.2; Linux keeps no counter of these), …
    pub rack_marked_lost: u64,
    /// … retransmissions of lost segments found lost again (`TcpExtTCPLostRetransmit`) …
    pub tcp_lost_retransmit: u64,
    /// … and timeouts F-RTO found spurious and undid (`TcpExtTCPSpuriousRTOs`).
    pub tcp_spurious_rtos: u64,
    /// Time the senders were application-, receive-window- and cwnd-limited.
    pub app_limited: SimTime,
    pub rwnd_limited: SimTime,
    pub cwnd_limited: SimTime,
}

impl TcpCounters {
    fn add(&mut self, s: &SenderStats) {
        self.retransmissions += s.retransmissions;
        self.fast_retransmits += s.fast_retransmits;
        self.timeouts += s.timeouts;
        self.ecn_reductions += s.ecn_reductions;
        self.local_drops += s.local_drops;
        self.tcp_loss_probes += s.tlp_probes;
        self.rack_marked_lost += s.rack_lost;
        self.tcp_lost_retransmit += s.lost_retransmits;
        self.tcp_spurious_rtos += s.spurious_rto_undone;
    }
    fn add_limited(&mut self, l: LimitedTime) {
        self.app_limited += l.app;
        self.rwnd_limited += l.rwnd;
        self.cwnd_limited += l.cwnd;
    }
    /// Fraction of the limited time spent receive-window-limited (NaN if none was
    /// recorded).
    pub fn rwnd_limited_fraction(&self) -> f64 {
        let total = self.app_limited + self.rwnd_limited + self.cwnd_limited;
        if total == SimTime::ZERO {
            f64::NAN
        } else {
            self.rwnd_limited.as_secs_f64() / total.as_secs_f64()
        }
    }
    /// Counts since `earlier`.
    pub fn since(&self, earlier: &TcpCounters) -> TcpCounters {
        TcpCounters {
            retransmissions: self.retransmissions - earlier.retransmissions,
            fast_retransmits: self.fast_retransmits - earlier.fast_retransmits,
            timeouts: self.timeouts - earlier.timeouts,
            connections: self.connections - earlier.connections,
            ecn_reductions: self.ecn_reductions - earlier.ecn_reductions,
            local_drops: self.local_drops - earlier.local_drops,
            tcp_loss_probes: self.tcp_loss_probes - earlier.tcp_loss_probes,
            rack_marked_lost: self.rack_marked_lost - earlier.rack_marked_lost,
            tcp_lost_retransmit: self.tcp_lost_retransmit - earlier.tcp_lost_retransmit,
            tcp_spurious_rtos: self.tcp_spurious_rtos - earlier.tcp_spurious_rtos,
            app_limited: self.app_limited - earlier.app_limited,
            rwnd_limited: self.rwnd_limited - earlier.rwnd_limited,
            cwnd_limited: self.cwnd_limited - earlier.cwnd_limited,
        }
    }
}

/// One connection of a flow.
///
/// `repr(C)`: the fields every segment and ACK of the connection reads (the port that
/// names it, the armed timers, the SACK stash) first, in one cache line, before the
/// endpoints (issue 18, item 4).
#[repr(C)]
pub struct TcpConn {
    /// The client's port: tells this connection's packets from the flow's others.
    pub port: u16,
    /// False once closed: the slot may be reused.
    pub open: bool,
    /// Each endpoint's timer slot (see the module documentation); [`NO_TIMER`] until the
    /// connection's slot is first armed.
    pub timers: [TimerId; 2],
    /// RTT samples of the sender already copied into the flow's statistics.
    pub rtt_samples_seen: u64,
    /// Bytes of the object (file) this connection carries, if finite.
    pub object: Option<u64>,
    /// When the receiver got the object's last byte.
    pub delivered_at: Option<SimTime>,
    /// SACK blocks of the ACKs in flight, by ACK number (see [`TcpFlow::stash_sack`]).
    sacks_in_flight: VecDeque<(u64, SackBlocks)>,
    next_sack_id: u64,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
}

impl TcpConn {
    /// Whether both ends are done with the object: all of it delivered and acknowledged.
    pub fn finished(&self) -> bool {
        self.delivered_at.is_some() && self.sender.is_complete()
    }
}

/// `repr(C)`: what each packet of the flow reads (the connection pool, the ports, whether
/// SACK is on) first, the configuration and counters after (issue 18, item 4).
#[repr(C)]
pub struct TcpFlow {
    /// The connection pool; closed slots are reused.
    pub conns: Vec<TcpConn>,
    /// The server's port.
    pub server_port: u16,
    /// Whether the client (whose ports identify connections) is the data sender (bulk,
    /// message: an upload) or the data receiver (web: a download from the server).
    pub client_is_sender: bool,
    /// `cfg.sack`, read by every ACK.
    sack: bool,
    pub trace: bool,
    pub cfg: TcpConfig,
    pub app: TcpApp,
    pub start: SimTime,
    /// The next client port, as an offset into the dynamic range.
    next_port: u32,
    /// Counters of closed connections.
    retired: TcpCounters,
    /// Counters at the last statistics reset (warm-up), subtracted in the tables.
    pub at_reset: TcpCounters,
    /// When a bulk file's last byte reached the receiver.
    pub completion: Option<SimTime>,
}

/// The transport configuration a scenario's TCP spec describes, for an application that
/// opens its connections from the data receiver (`client_is_receiver`, web) or not.
pub fn config_of(t: &TcpSpec, client_is_receiver: bool) -> TcpConfig {
    let base = TcpConfig {
        variant: match t.variant {
            TcpVariant::Tahoe => CongestionVariant::Tahoe,
            TcpVariant::Reno => CongestionVariant::Reno,
            TcpVariant::Newreno => CongestionVariant::NewReno,
            TcpVariant::Cubic => CongestionVariant::Cubic,
        },
        mss: t.mss,
        initial_cwnd_segments: t.initial_window,
        initial_ssthresh: SSTHRESH_INFINITE,
        min_rto: t.min_rto.time(),
        rto_style: match t.rto {
            RtoKind::Rfc6298 => RtoStyle::Rfc6298,
            RtoKind::Linux => RtoStyle::Linux,
        },
        max_rto: t.max_rto.time(),
        dupack_threshold: t.dupack_threshold,
        delayed_ack: t.delayed_ack,
        delayed_ack_timeout: t.delayed_ack_timeout.time(),
        rcv_buffer: t.rcv_buffer.0.min(u32::MAX as u64) as u32,
        handshake: t.handshake.unwrap_or(client_is_receiver),
        opener: if client_is_receiver {
            Opener::Receiver
        } else {
            Opener::Sender
        },
        cwnd_validation: t.cwnd_validation,
        ecn: t.ecn,
        window_scaling: t.window_scaling,
        sack: t.sack,
        rcv_buffer_max: t.rcv_buffer_max.map(|b| b.0.min(u32::MAX as u64) as u32),
        adv_win_scale: t.adv_win_scale,
        rcv_space_adjust: match t.rcv_space_adjust {
            RcvSpaceAdjustKind::Linux6_1 => RcvSpaceAdjust::Linux6_1,
            RcvSpaceAdjustKind::Linux2_6_23 => RcvSpaceAdjust::Linux2_6_23,
        },
        timestamps: t.timestamps,
        paws: t.paws,
        hystart: t.hystart,
        rack: t.rack,
        tlp: t.tlp,
        prr: t.prr,
        frto: t.frto,
        snd_buffer: t.snd_buffer.map(|b| b.0.min(u32::MAX as u64) as u32),
        snd_buffer_max: t.snd_buffer_max.map(|b| b.0.min(u32::MAX as u64) as u32),
        local_congestion: match t.local_congestion {
            LocalCongestionKind::Cwr => LocalCongestion::Cwr,
            LocalCongestionKind::Quench => LocalCongestion::Quench,
            LocalCongestionKind::Loss => LocalCongestion::Loss,
        },
        ..TcpConfig::default()
    };
    let base = TcpConfig {
        initial_rto: t.initial_rto.map_or(base.initial_rto, |d| d.time()),
        ..base
    };
    match t.initial_ssthresh {
        Some(s) => base.with_initial_ssthresh_segments(s),
        None => base,
    }
}

impl TcpFlow {
    /// A flow with no connection open yet. `first_port` spreads the client ports of
    /// different flows over the dynamic range.
    pub fn new(
        cfg: TcpConfig,
        app: TcpApp,
        start: SimTime,
        trace: bool,
        first_port: u32,
        server_port: u16,
    ) -> Self {
        let client_is_sender = !matches!(app, TcpApp::Web(_));
        TcpFlow {
            sack: cfg.sack,
            cfg,
            conns: Vec::with_capacity(1),
            app,
            start,
            trace,
            client_is_sender,
            server_port,
            next_port: first_port % EPHEMERAL_PORTS,
            retired: TcpCounters::default(),
            at_reset: TcpCounters::default(),
            completion: None,
        }
    }

    /// Opens a connection at `now` for `object` bytes (`None`: infinite; `Some(0)` and
    /// [`TcpSender::offer`]: a message stream) in a free slot, and starts its sender. The
    /// caller then sends the receiver's SYN, if [`TcpReceiver::connect`] gives one, and
    /// drains the sender.
    pub fn open(&mut self, now: SimTime, object: Option<u64>) -> usize {
        let data = object.map_or(AppData::Infinite, AppData::Bytes);
        let port = EPHEMERAL_PORT_BASE + self.next_port as u16;
        self.next_port = (self.next_port + 1) % EPHEMERAL_PORTS;
        let mut sender = TcpSender::new(&self.cfg, data);
        sender.start(now);
        let conn = TcpConn {
            sender,
            receiver: TcpReceiver::new(&self.cfg),
            timers: [NO_TIMER; 2],
            port,
            object: object.filter(|&n| n > 0),
            delivered_at: None,
            rtt_samples_seen: 0,
            open: true,
            sacks_in_flight: VecDeque::new(),
            next_sack_id: 1,
        };
        self.retired.connections += 1;
        match self.conns.iter().position(|c| !c.open) {
            Some(slot) => {
                // The slot's timers go on with the new connection (re-armed or cancelled
                // by the caller's next arming).
                let timers = self.conns[slot].timers;
                self.conns[slot] = TcpConn { timers, ..conn };
                slot
            }
            None => {
                self.conns.push(conn);
                self.conns.len() - 1
            }
        }
    }

    /// Closes the connection in `slot` if both ends are done with its object. Returns
    /// whether it closed.
    pub fn close_if_finished(&mut self, slot: usize) -> bool {
        let c = &mut self.conns[slot];
        if !c.open || !c.finished() {
            return false;
        }
        c.open = false;
        self.retired.add(c.sender.stats());
        self.retired.add_limited(c.sender.limited_time());
        true
    }

    /// Aborts the connection in `slot` (the timeline's `stop` of a bulk transfer): its
    /// endpoints' state is discarded at once, as by a reset, and its counters are kept
    /// with the closed connections'. Segments of it still travelling are ignored when they
    /// arrive (their port no longer names an open connection) and its pending timer
    /// events find the slot closed, or reused by a connection whose deadlines they do not
    /// match. Returns whether a connection was open.
    pub fn abort(&mut self, slot: usize) -> bool {
        let Some(c) = self.conns.get_mut(slot) else {
            return false;
        };
        if !c.open {
            return false;
        }
        c.open = false;
        self.retired.add(c.sender.stats());
        self.retired.add_limited(c.sender.limited_time());
        true
    }

    /// Whether any connection is open.
    pub fn any_open(&self) -> bool {
        self.conns.iter().any(|c| c.open)
    }

    /// The open connection whose client port is `port`.
    pub fn slot_of_port(&self, port: u16) -> Option<usize> {
        self.conns.iter().position(|c| c.open && c.port == port)
    }

    /// The client port a packet of this flow carries: the source port of a packet from the
    /// client, the destination port of one to it.
    pub fn client_port(&self, src_port: u16, dst_port: u16, from_sender: bool) -> u16 {
        if from_sender == self.client_is_sender {
            src_port
        } else {
            dst_port
        }
    }

    /// `(source port, destination port)` of a packet of the connection in `slot`, sent by
    /// the data sender (`from_sender`) or by the receiver.
    pub fn ports(&self, slot: usize, from_sender: bool) -> (u16, u16) {
        let client = self.conns[slot].port;
        if from_sender == self.client_is_sender {
            (client, self.server_port)
        } else {
            (self.server_port, client)
        }
    }

    /// Retransmission counters over every connection the flow has opened.
    pub fn counters(&self) -> TcpCounters {
        let mut c = self.retired;
        for conn in self.conns.iter().filter(|c| c.open) {
            c.add(conn.sender.stats());
            c.add_limited(conn.sender.limited_time());
        }
        c
    }

    /// Counters since the last [`TcpFlow::reset_counters`].
    pub fn counters_since_reset(&self) -> TcpCounters {
        self.counters().since(&self.at_reset)
    }

    /// Starts counting afresh (the warm-up ended).
    pub fn reset_counters(&mut self) {
        self.at_reset = self.counters();
    }

    /// The single connection of a bulk or message flow (its cwnd and trace are the
    /// flow's), if it has been opened.
    pub fn only_connection(&self) -> Option<&TcpConn> {
        match self.app {
            TcpApp::Web(_) => None,
            _ => self.conns.first(),
        }
    }

    /// The IP ECN field of a segment the sender of connection `slot` sends: ECT(0) on new
    /// data when ECN is on (RFC 3168 §6.1.5), Not-ECT otherwise.
    pub fn ip_ecn(&self, slot: usize, seg: &Segment) -> u8 {
        if self.conns[slot].sender.ect(seg) {
            ECN_ECT0
        } else {
            0
        }
    }

    /// The SACK blocks of the ACK the receiver of connection `slot` has just made travel
    /// beside its packet: they are kept here under a number the packet carries (its
    /// `flow_seq`, 0 for none), and the option's bytes are added to the packet. Returns
    /// `(number, extra wire bytes)`: NOP, NOP, kind, length and 8 B per block (RFC 2018 §3).
    pub fn stash_sack(&mut self, slot: usize) -> (u64, u32) {
        if !self.sack {
            return (0, 0);
        }
        let c = &mut self.conns[slot];
        let blocks = c.receiver.sack_blocks();
        if blocks.is_empty() {
            return (0, 0);
        }
        let id = c.next_sack_id;
        c.next_sack_id += 1;
        c.sacks_in_flight.push_back((id, blocks));
        (id, 2 + blocks.option_bytes())
    }

    /// The SACK blocks stashed under `id` for an ACK of connection `slot` that arrived
    /// (ACKs of a connection arrive in order; entries of ACKs lost on the way are
    /// dropped as later ones arrive).
    pub fn take_sack(&mut self, slot: usize, id: u64) -> SackBlocks {
        if id == 0 {
            return SackBlocks::NONE;
        }
        let q = &mut self.conns[slot].sacks_in_flight;
        while let Some(&(front, blocks)) = q.front() {
            if front > id {
                break;
            }
            q.pop_front();
            if front == id {
                return blocks;
            }
        }
        SackBlocks::NONE
    }

    /// The deadline an endpoint of the connection in `slot` currently wants.
    pub fn deadline(&self, slot: usize, side: Side) -> Option<SimTime> {
        let c = &self.conns[slot];
        if !c.open {
            return None;
        }
        match side {
            Side::Sender => c.sender.next_timer(),
            Side::Receiver => c.receiver.next_timer(),
        }
    }
}
