//! Transport protocols as pure, sans-IO state machines.
//!
//! Nothing here knows about packets, links, queues or the event loop: an endpoint takes
//! segments and the current time in, and hands segments and timer deadlines out (in the
//! spirit of smoltcp). The only simulator type used is [`SimTime`](crate::engine::SimTime).
//! The simulator wraps each segment in a packet, schedules its arrival, and schedules a
//! wake-up at each deadline an endpoint asks for.
//!
//! [`tcp`] is byte-sequence TCP: Tahoe, Reno and NewReno congestion control of the seeds'
//! era (RFC 5681, RFC 6582) and CUBIC (RFC 9438), the RFC 6298 retransmission timer,
//! delayed ACKs, an optional three-way handshake opened by either end, ECN (RFC 3168),
//! congestion-window validation (RFC 7661) and the RFC 7323 window-scaling limit. Each sender/receiver pair is one
//! connection with data in one direction; the simulator's flows own as many as their
//! application needs (`sim::tcp_flow`).
//!
//! # Driving a TCP connection
//!
//! ```
//! use airqueue::engine::SimTime;
//! use airqueue::transport::tcp::{AppData, TcpConfig, TcpReceiver, TcpSender};
//!
//! let cfg = TcpConfig::default();
//! let mut tx = TcpSender::new(&cfg, AppData::Bytes(3000));
//! let mut rx = TcpReceiver::new(&cfg);
//! let now = SimTime::ZERO;
//!
//! tx.start(now);
//! // 1. After every call into the sender, drain its output ...
//! let mut to_receiver = Vec::new();
//! while let Some(seg) = tx.poll_transmit(now) {
//!     to_receiver.push(seg); // wrap in a packet, enqueue on the path
//! }
//! // 2. ... and (re)schedule a wake-up at its deadline.
//! assert_eq!(tx.next_timer(), Some(SimTime::from_secs(1))); // the initial RTO
//!
//! // A segment arrives at the receiver: it answers with an ACK now, or holds it (delayed
//! // ACK) and asks for a wake-up instead.
//! let t = SimTime::from_millis(50);
//! let reply = rx.on_segment(t, &to_receiver[0]);
//! assert!(reply.is_none());
//! assert_eq!(rx.next_timer(), Some(SimTime::from_millis(250)));
//! let ack = rx.on_timer(SimTime::from_millis(250)).unwrap();
//!
//! // The ACK arrives back at the sender.
//! tx.on_ack(SimTime::from_millis(300), &ack);
//! while let Some(seg) = tx.poll_transmit(SimTime::from_millis(300)) {
//!     assert_eq!(seg.seq, 1448); // the window has grown to two segments
//!     # break;
//! }
//! ```
//!
//! The contract, for both endpoints:
//!
//! * Inputs: [`tcp::TcpSender::start`], [`tcp::TcpSender::offer`],
//!   [`tcp::TcpSender::on_ack`], [`tcp::TcpSender::on_timer`], [`tcp::TcpSender::finish`];
//!   [`tcp::TcpReceiver::connect`] (when the receiver opens), [`tcp::TcpReceiver::on_segment`],
//!   [`tcp::TcpReceiver::on_timer`]. Each takes the current time; times must not go
//!   backwards.
//! * Outputs: after any sender input, call [`tcp::TcpSender::poll_transmit`] until it
//!   returns `None` (segments are due *now*; pacing, if any, is the network's business).
//!   The receiver returns its ACK directly from the input call.
//! * Timers: each endpoint has at most one deadline, read with `next_timer()` after every
//!   input. Schedule a wake-up there and call `on_timer(now)`. A wake-up whose deadline
//!   has since moved or vanished is ignored, so the caller never needs to cancel events —
//!   only to schedule a new one when the deadline changes.
//! * Sequence numbers are `u64`; wire headers get the low 32 bits
//!   ([`tcp::Segment::wire_seq`]), and [`tcp::unwrap_seq`] restores them.
//! * Completion of a finite transfer: [`tcp::TcpSender::is_complete`] and
//!   [`tcp::TcpSender::completion_time`]. Goodput: [`tcp::TcpReceiver::delivered_bytes`].

pub mod tcp;
