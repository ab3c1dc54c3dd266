//! A TCP flow in the simulator: the sans-IO endpoints of [`crate::transport::tcp`] wired to
//! packets, routes and timer events.
//!
//! Data segments travel `from` → `to`, pure ACKs back; both are packets of the same flow
//! (its drops count both directions). Each endpoint has at most one deadline; the flow keeps
//! at most one pending timer event per endpoint, scheduled only when the deadline moves
//! *earlier* than the armed one. When an armed event fires early (the deadline moved later,
//! e.g. the RTO restarted on a new ACK), the endpoint ignores it and the flow re-arms at the
//! new deadline, so an ACK does not cost a heap insertion.
//!
//! Wire sizes: a segment carries 52 bytes of headers (IPv4 20 + TCP 20 + the 12-byte
//! timestamp option that Linux and ns-3 send by default); the model does not use the
//! timestamps (RTT timing is RFC 6298's one segment at a time), it only pays their bytes.

use crate::app::UdpSource;
use crate::engine::SimTime;
use crate::scenario::{TcpSpec, TcpVariant};
use crate::transport::tcp::{
    AppData, CongestionVariant, SenderStats, TcpConfig, TcpReceiver, TcpSender, SSTHRESH_INFINITE,
};

/// IPv4 + TCP + timestamp option bytes on every segment.
pub const TCP_WIRE_HEADER_BYTES: u32 = 20 + 20 + 12;

/// What writes into the connection.
pub enum TcpApp {
    /// Bulk transfer: infinite or a file (the sender knows the size).
    Bulk,
    /// Messages of `payload_bytes` at the instants of an arrival process.
    Message(UdpSource),
}

/// Which endpoint a timer event is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Side {
    Sender = 0,
    Receiver = 1,
}

pub struct TcpFlow {
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub app: TcpApp,
    pub start: SimTime,
    pub trace: bool,
    pub armed: [Option<SimTime>; 2],
    /// Sender counters at the last statistics reset (warm-up), subtracted in the tables.
    pub stats_at_reset: SenderStats,
}

/// The transport configuration a scenario's TCP spec describes.
pub fn config_of(t: &TcpSpec) -> TcpConfig {
    let base = TcpConfig {
        variant: match t.variant {
            TcpVariant::Tahoe => CongestionVariant::Tahoe,
            TcpVariant::Reno => CongestionVariant::Reno,
            TcpVariant::Newreno => CongestionVariant::NewReno,
        },
        mss: t.mss,
        initial_cwnd_segments: t.initial_window,
        initial_ssthresh: SSTHRESH_INFINITE,
        min_rto: t.min_rto.time(),
        max_rto: t.max_rto.time(),
        dupack_threshold: t.dupack_threshold,
        delayed_ack: t.delayed_ack,
        delayed_ack_timeout: t.delayed_ack_timeout.time(),
        rcv_buffer: t.rcv_buffer.0.min(u32::MAX as u64) as u32,
        handshake: t.handshake,
        ..TcpConfig::default()
    };
    match t.initial_ssthresh {
        Some(s) => base.with_initial_ssthresh_segments(s),
        None => base,
    }
}

impl TcpFlow {
    pub fn new(cfg: &TcpConfig, data: AppData, app: TcpApp, start: SimTime, trace: bool) -> Self {
        TcpFlow {
            sender: TcpSender::new(cfg, data),
            receiver: TcpReceiver::new(cfg),
            app,
            start,
            trace,
            armed: [None, None],
            stats_at_reset: SenderStats::default(),
        }
    }

    /// The deadline an endpoint currently wants.
    pub fn deadline(&self, side: Side) -> Option<SimTime> {
        match side {
            Side::Sender => self.sender.next_timer(),
            Side::Receiver => self.receiver.next_timer(),
        }
    }

    /// Whether a timer event must be scheduled at `d` (it is earlier than the armed one).
    pub fn needs_arming(&mut self, side: Side) -> Option<SimTime> {
        let d = self.deadline(side)?;
        let slot = &mut self.armed[side as usize];
        match *slot {
            Some(a) if a <= d => None,
            _ => {
                *slot = Some(d);
                Some(d)
            }
        }
    }

    /// Called when a timer event fires at `now`: disarms the slot if this was the armed event.
    pub fn fired(&mut self, side: Side, now: SimTime) -> bool {
        let slot = &mut self.armed[side as usize];
        if *slot == Some(now) {
            *slot = None;
            true
        } else {
            false
        }
    }
}
