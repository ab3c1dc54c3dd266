//! Ping: ICMP echo requests at a fixed interval (RFC 792, `ping -i interval -s size`). The
//! destination host answers every request at once with an echo reply of the same size; the
//! reply carries the request's send time (as ping puts a timestamp in the data), so the
//! source measures the round trip when the reply arrives.
//!
//! The requests are the flow's packets (sent, received and their one-way delay count in
//! the flow table like any flow's); the replies, like TCP's ACKs, count only in drops and
//! in the round-trip statistics.

use super::{Pattern, UdpSource};
use crate::engine::{SimRng, SimTime};
use crate::packet::IPV4_HEADER_BYTES;

/// ICMP echo header bytes (type, code, checksum, identifier, sequence number).
pub const ICMP_ECHO_HEADER_BYTES: u32 = 8;

/// The request schedule and size of a ping flow.
pub struct PingSource {
    pub(crate) schedule: UdpSource,
    /// ICMP data bytes per request (ping's `-s`).
    pub data_bytes: u32,
}

impl PingSource {
    pub fn new(
        data_bytes: u32,
        interval: SimTime,
        start: SimTime,
        stop: SimTime,
        rng: SimRng,
    ) -> Self {
        PingSource {
            schedule: UdpSource::new(data_bytes, start, stop, Pattern::Cbr { interval }, rng),
            data_bytes,
        }
    }

    /// IP packet size of a request (and of its reply).
    pub fn packet_bytes(&self) -> u32 {
        self.data_bytes + ICMP_ECHO_HEADER_BYTES + IPV4_HEADER_BYTES
    }

    /// Time of the first request, if any.
    pub fn first(&mut self) -> Option<SimTime> {
        self.schedule.first()
    }

    /// Time of the request after the one sent at `now`, if any.
    pub fn next(&mut self, now: SimTime) -> Option<SimTime> {
        self.schedule.next(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;

    #[test]
    fn default_ping_is_an_84_byte_packet_every_second() {
        // Linux ping: 56 data bytes + 8 ICMP + 20 IP = 84 bytes, once a second.
        let mut p = PingSource::new(
            56,
            SimTime::from_secs(1),
            SimTime::ZERO,
            SimTime::from_secs(3),
            stream(1, "p"),
        );
        assert_eq!(p.packet_bytes(), 84);
        let t0 = p.first().unwrap();
        let t1 = p.next(t0).unwrap();
        let t2 = p.next(t1).unwrap();
        assert_eq!(
            (t0, t1, t2),
            (SimTime::ZERO, SimTime::from_secs(1), SimTime::from_secs(2))
        );
        assert_eq!(p.next(t2), None);
    }
}
