//! The transmitter of one direction of a wired point-to-point link.
//!
//! Like a Linux device, it pulls one packet from its qdisc when idle, holds it while it is
//! serialized at the line rate (size + `overhead` bytes), then puts it on the wire for the
//! propagation delay. It never buffers more than the one packet it is sending.

use super::Wire;
use crate::engine::SimTime;
use crate::packet::PacketId;

pub struct P2pTransmitter {
    pub rate_bps: u64,
    pub delay: SimTime,
    pub overhead_bytes: u32,
    /// The packet being serialized, if any.
    pub sending: Option<PacketId>,
    /// Packets on the wire (propagating) behind this transmitter: those in `wire` and
    /// those with an arrival event of their own (a jittered wire).
    pub propagating: u32,
    /// The packets on a constant-delay wire, in arrival order.
    pub wire: Wire,
}

impl P2pTransmitter {
    pub fn new(rate_bps: u64, delay: SimTime, overhead_bytes: u32) -> Self {
        P2pTransmitter {
            rate_bps,
            delay,
            overhead_bytes,
            sending: None,
            propagating: 0,
            wire: Wire::new(),
        }
    }

    /// Serialization time of a `size_bytes` packet.
    #[inline]
    pub fn tx_time(&self, size_bytes: u32) -> SimTime {
        SimTime::transmission((size_bytes + self.overhead_bytes) as u64, self.rate_bps)
    }

    pub fn is_idle(&self) -> bool {
        self.sending.is_none()
    }
}
