//! Real IPv4 headers: what a qdisc classifies on (addresses, ports, protocol, DSCP, ECN,
//! ICMP type), read from the bytes a real host wrote to its TUN, and the two fields the
//! emulated network changes on the way, written back before the bytes leave: the TTL
//! (each emulated router decrements it, RFC 1812 §5.3.1) and the ECN field (an AQM's CE
//! mark, RFC 3168 §5), each with the header checksum updated incrementally (RFC 1624,
//! eqn. 3), as Linux's `ip_decrease_ttl` and `IP_ECN_set_ce` do.

use crate::packet::{FiveTuple, Protocol, ECN_CE};
use etherparse::Ipv4HeaderSlice;

/// The fields of a real IPv4 packet the emulated network reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RealHeader {
    pub tuple: FiveTuple,
    /// IPv4 total length (what a qdisc charges).
    pub size: u32,
    /// Transport payload bytes (goodput counts these): UDP and TCP data, ICMP after its
    /// 8-byte header.
    pub payload: u32,
    pub ttl: u8,
    pub dscp: u8,
    pub ecn: u8,
    /// ICMP message type (0 for other protocols).
    pub icmp_type: u8,
}

/// Why a packet read from a TUN is not carried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// Not an IPv4 packet (IPv6 router solicitations, for instance), or a malformed one.
    NotIpv4,
    /// An IPv4 protocol other than ICMP, TCP and UDP.
    Protocol(u8),
    /// A fragment (the emulated network carries whole datagrams; Linux's TUN MTU keeps
    /// a host from fragmenting its own packets).
    Fragment,
}

/// Reads the header of a real IPv4 packet; ICMP echo messages take their identifier as
/// the source port, as Linux's ping sockets and conntrack do.
pub fn parse(bytes: &[u8]) -> Result<RealHeader, Unsupported> {
    let ip = Ipv4HeaderSlice::from_slice(bytes).map_err(|_| Unsupported::NotIpv4)?;
    if ip.more_fragments() || ip.fragments_offset().value() != 0 {
        return Err(Unsupported::Fragment);
    }
    let size = u32::from(ip.total_len());
    if size as usize > bytes.len() {
        return Err(Unsupported::NotIpv4);
    }
    let l4 = &bytes[usize::from(ip.ihl()) * 4..size as usize];
    let word = |at: usize| -> u16 {
        l4.get(at..at + 2)
            .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]))
    };
    let (protocol, src_port, dst_port, header, icmp_type) = match ip.protocol().0 {
        1 => {
            let kind = l4.first().copied().unwrap_or(0);
            (Protocol::Icmp, word(4), 0, 8, kind)
        }
        6 => {
            let offset = l4.get(12).map_or(20, |b| u32::from(b >> 4) * 4);
            (Protocol::Tcp, word(0), word(2), offset, 0)
        }
        17 => (Protocol::Udp, word(0), word(2), 8, 0),
        other => return Err(Unsupported::Protocol(other)),
    };
    Ok(RealHeader {
        tuple: FiveTuple {
            src_addr: u32::from_be_bytes(ip.source()),
            dst_addr: u32::from_be_bytes(ip.destination()),
            src_port,
            dst_port,
            protocol,
        },
        size,
        payload: (l4.len() as u32).saturating_sub(header),
        ttl: ip.ttl(),
        dscp: ip.dcp().value(),
        ecn: ip.ecn().value(),
        icmp_type,
    })
}

/// RFC 1624 eqn. 3: the checksum `hc` of a header in which the 16-bit word `old` became
/// `new`: HC' = ~(~HC + ~m + m').
pub fn checksum_update(hc: u16, old: u16, new: u16) -> u16 {
    let mut sum = u32::from(!hc) + u32::from(!old) + u32::from(new);
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Replaces the 16-bit word at `at` of an IPv4 header, updating the checksum (bytes 10–11).
fn set_word(h: &mut [u8], at: usize, new: u16) {
    let old = u16::from_be_bytes([h[at], h[at + 1]]);
    if old == new {
        return;
    }
    let hc = u16::from_be_bytes([h[10], h[11]]);
    h[at..at + 2].copy_from_slice(&new.to_be_bytes());
    h[10..12].copy_from_slice(&checksum_update(hc, old, new).to_be_bytes());
}

/// Writes the emulated network's changes into the real header: the TTL it arrived with,
/// and CE when an AQM marked it (RFC 3168 §5: only an ECN-capable packet is marked; a
/// Not-ECT one was dropped instead, and CE is never cleared).
pub fn write_back(bytes: &mut [u8], ttl: u8, ecn: u8) {
    if bytes.len() < 20 {
        return;
    }
    // Word 4 (bytes 8–9): TTL and protocol.
    set_word(bytes, 8, u16::from_be_bytes([ttl, bytes[9]]));
    if ecn == ECN_CE && bytes[1] & 3 != 0 {
        // Word 0 (bytes 0–1): version/IHL and TOS.
        set_word(bytes, 0, u16::from_be_bytes([bytes[0], bytes[1] | ECN_CE]));
    }
}

/// The data an echo request written by the emulator to a real host starts with, before its
/// send time (8 bytes, big-endian nanoseconds of the model's clock): ping keeps its send
/// time in the data the same way, and a reply echoes the data (RFC 792).
pub const PROBE_MAGIC: [u8; 8] = *b"airqueue";

/// An IPv4 ICMP echo request of `size` bytes (RFC 792) from `src` to `dst` carrying
/// [`PROBE_MAGIC`] and `sent_ns`: an emulated node's ping, as bytes for a real host.
#[allow(clippy::too_many_arguments)]
pub fn echo_request(
    src: u32,
    dst: u32,
    ttl: u8,
    tos: u8,
    id: u16,
    seq: u16,
    sent_ns: u64,
    size: u32,
) -> Vec<u8> {
    let mut data = vec![0u8; (size.max(44) - 28) as usize];
    data[..8].copy_from_slice(&PROBE_MAGIC);
    data[8..16].copy_from_slice(&sent_ns.to_be_bytes());
    let mut out = Vec::with_capacity(data.len() + 28);
    etherparse::PacketBuilder::ipv4(src.to_be_bytes(), dst.to_be_bytes(), ttl)
        .icmpv4_echo_request(id, seq)
        .write(&mut out, &data)
        .expect("an echo request fits in a Vec");
    let word = u16::from_be_bytes([out[0], tos]);
    set_word(&mut out, 0, word);
    out
}

/// The ICMP identifier and sequence of an echo message, and the send time its data carries
/// when it answers an [`echo_request`] (a reply echoes the request's data).
pub fn probe_reply(bytes: &[u8]) -> Option<(u16, u64)> {
    let ihl = usize::from(bytes.first()? & 0x0f) * 4;
    let icmp = bytes.get(ihl..)?;
    if icmp.first() != Some(&crate::packet::ICMP_ECHO_REPLY) || icmp.get(8..16)? != PROBE_MAGIC {
        return None;
    }
    let seq = u16::from_be_bytes([icmp[6], icmp[7]]);
    let sent = u64::from_be_bytes(icmp.get(16..24)?.try_into().ok()?);
    Some((seq, sent))
}

/// Turns a real echo request into the reply to it in place (RFC 792: addresses swapped,
/// type 0, the identifier, sequence and data unchanged), leaving with TTL `ttl`. Swapping
/// the addresses leaves the IPv4 checksum as it was (a one's-complement sum does not depend
/// on the order); the TTL and the ICMP type word are updated incrementally (RFC 1624).
pub fn echo_to_reply(bytes: &mut [u8], ttl: u8) {
    let ihl = usize::from(bytes[0] & 0x0f) * 4;
    if bytes.len() < ihl + 8 {
        return;
    }
    let (src, dst) = (bytes[12..16].to_vec(), bytes[16..20].to_vec());
    bytes[12..16].copy_from_slice(&dst);
    bytes[16..20].copy_from_slice(&src);
    set_word(bytes, 8, u16::from_be_bytes([ttl, bytes[9]]));
    let icmp = &mut bytes[ihl..];
    let old = u16::from_be_bytes([icmp[0], icmp[1]]);
    let new = u16::from_be_bytes([crate::packet::ICMP_ECHO_REPLY, icmp[1]]);
    let hc = u16::from_be_bytes([icmp[2], icmp[3]]);
    icmp[0] = crate::packet::ICMP_ECHO_REPLY;
    icmp[2..4].copy_from_slice(&checksum_update(hc, old, new).to_be_bytes());
}

/// The ICMP types that report an error (RFC 1122 §3.2.2: destination unreachable, source
/// quench, redirect, time exceeded, parameter problem). No ICMP error is sent about one of
/// these (§3.2.2, RFC 1812 §4.3.2.7), so two routers never answer each other's errors.
const ICMP_ERROR_TYPES: [u8; 5] = [3, 4, 5, 11, 12];

/// RFC 1812 §4.3.2.3: an ICMP error carries as much of the offending datagram as fits in
/// 576 bytes; Linux's `icmp_send` quotes that much (576 − 20 − 8 = 548 bytes).
const ICMP_ERROR_MAX: usize = 576;

/// Whether a router may answer `bytes` with an ICMP error (RFC 1812 §4.3.2.7): not an ICMP
/// error itself, not a fragment after the first, not to a broadcast or multicast source.
pub fn may_answer_with_error(bytes: &[u8]) -> bool {
    let Ok(h) = Ipv4HeaderSlice::from_slice(bytes) else {
        return false;
    };
    let ihl = usize::from(h.ihl()) * 4;
    let icmp_error = h.protocol() == etherparse::IpNumber::ICMP
        && bytes.get(ihl).is_some_and(|t| ICMP_ERROR_TYPES.contains(t));
    let src = h.source_addr();
    !icmp_error && h.fragments_offset().value() == 0 && !src.is_broadcast() && !src.is_multicast()
}

/// An ICMP Time Exceeded message, code 0 "time to live exceeded in transit" (RFC 792), from
/// router address `src` to the source of `offending` (the datagram as it arrived at the
/// router, its TTL written as it arrived: Linux's `ip_forward` sends the error before it
/// decrements). It quotes the offending header and data up to 576 bytes in all (RFC 1812
/// §4.3.2.3), leaves with TTL 64 and precedence "internetwork control" (Linux's `icmp_send`:
/// TOS = the offending TOS bits | 0xc0).
pub fn time_exceeded(src: u32, offending: &[u8], arrived_ttl: u8) -> Vec<u8> {
    let mut quoted = offending[..offending.len().min(ICMP_ERROR_MAX - 28)].to_vec();
    write_back(&mut quoted, arrived_ttl, 0);
    let dst = [offending[12], offending[13], offending[14], offending[15]];
    let tos = (offending[1] & 0x1e) | 0xc0;
    let mut out = Vec::with_capacity(quoted.len() + 28);
    etherparse::PacketBuilder::ipv4(src.to_be_bytes(), dst, 64)
        .icmpv4(etherparse::Icmpv4Type::TimeExceeded(
            etherparse::icmpv4::TimeExceededCode::TtlExceededInTransit,
        ))
        .write(&mut out, &quoted)
        .expect("an ICMP error fits in a Vec");
    let word = u16::from_be_bytes([out[0], tos]);
    set_word(&mut out, 0, word);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;

    /// A UDP packet with DSCP EF (46) and the given ECN field, its checksum recomputed.
    fn udp(ecn: u8) -> Vec<u8> {
        let mut out = Vec::new();
        PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .udp(5000, 5201)
            .write(&mut out, &[7u8; 100])
            .unwrap();
        out[1] = (46 << 2) | ecn;
        let sum = Ipv4HeaderSlice::from_slice(&out)
            .unwrap()
            .to_header()
            .calc_header_checksum();
        out[10..12].copy_from_slice(&sum.to_be_bytes());
        out
    }

    fn checksum_ok(h: &[u8]) -> bool {
        let ip = Ipv4HeaderSlice::from_slice(h).unwrap();
        ip.to_header().calc_header_checksum() == ip.header_checksum()
    }

    #[test]
    fn reads_the_five_tuple_dscp_and_ecn() {
        let h = parse(&udp(2)).unwrap();
        assert_eq!(h.tuple.src_addr, 0x0a00_0001);
        assert_eq!(h.tuple.dst_addr, 0x0a00_0002);
        assert_eq!((h.tuple.src_port, h.tuple.dst_port), (5000, 5201));
        assert_eq!(h.tuple.protocol, Protocol::Udp);
        assert_eq!(
            (h.size, h.payload, h.ttl, h.dscp, h.ecn),
            (128, 100, 64, 46, 2)
        );
    }

    #[test]
    fn reads_icmp_echo_identifier_and_tcp_data_offset() {
        let mut out = Vec::new();
        PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .icmpv4_echo_request(0x1234, 1)
            .write(&mut out, &[0; 56])
            .unwrap();
        let h = parse(&out).unwrap();
        assert_eq!(h.tuple.protocol, Protocol::Icmp);
        assert_eq!(
            (h.icmp_type, h.tuple.src_port, h.payload, h.size),
            (8, 0x1234, 56, 84)
        );
        let mut out = Vec::new();
        PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .tcp(40000, 5201, 1, 65535)
            .write(&mut out, &[0; 10])
            .unwrap();
        let h = parse(&out).unwrap();
        assert_eq!(
            (h.tuple.protocol, h.tuple.dst_port, h.payload),
            (Protocol::Tcp, 5201, 10)
        );
    }

    #[test]
    fn refuses_what_it_cannot_carry() {
        assert_eq!(parse(&[0x60; 40]), Err(Unsupported::NotIpv4));
        let mut p = udp(0);
        p[9] = 2; // IGMP
        assert_eq!(parse(&p), Err(Unsupported::Protocol(2)));
        let mut p = udp(0);
        p[6] |= 0x20; // more fragments
        assert_eq!(parse(&p), Err(Unsupported::Fragment));
    }

    /// RFC 3168 §6.1.1.1: a router sets CE on an ECT packet and leaves the rest of the
    /// header alone; the incremental checksum (RFC 1624) equals the recomputed one.
    #[test]
    fn ce_mark_and_ttl_keep_the_checksum_right() {
        for ecn in [1, 2] {
            let mut p = udp(ecn);
            write_back(&mut p, 61, ECN_CE);
            let h = parse(&p).unwrap();
            assert_eq!((h.ecn, h.dscp, h.ttl), (ECN_CE, 46, 61));
            assert!(checksum_ok(&p));
        }
        // Not-ECT is never marked (the AQM dropped it instead).
        let mut p = udp(0);
        write_back(&mut p, 64, ECN_CE);
        assert_eq!(parse(&p).unwrap().ecn, 0);
        assert_eq!(p, udp(0));
        assert!(checksum_ok(&p));
    }

    /// RFC 1624 §4's example: HC 0xDD2F, a word 0x5555 → 0x3285 gives HC' 0x0000.
    #[test]
    fn incremental_checksum_follows_rfc_1624() {
        assert_eq!(checksum_update(0xdd2f, 0x5555, 0x3285), 0x0000);
    }

    /// Reference: RFC 792's echo layout and checksums, read back with etherparse; the
    /// request's data (magic + send time) comes back in the reply a kernel would make.
    #[test]
    fn the_emulators_echo_request_and_a_real_reply_to_it() {
        use etherparse::{IcmpEchoHeader, Icmpv4Slice, Icmpv4Type, SlicedPacket};
        let req = echo_request(0x0a00_0001, 0x0a00_0007, 63, 0, 49152, 7, 123_456_789, 84);
        assert_eq!(req.len(), 84);
        assert!(checksum_ok(&req));
        let h = parse(&req).unwrap();
        assert_eq!((h.icmp_type, h.tuple.src_port, h.ttl), (8, 49152, 63));
        let icmp = Icmpv4Slice::from_slice(&req[20..]).unwrap();
        let echo = IcmpEchoHeader { id: 49152, seq: 7 };
        assert_eq!(icmp.icmp_type(), Icmpv4Type::EchoRequest(echo));
        assert_eq!(
            icmp.checksum(),
            icmp.icmp_type().calc_checksum(icmp.payload())
        );
        assert_eq!(probe_reply(&req), None, "a request is not a reply");
        // The reply a kernel makes: addresses swapped, type 0, data echoed.
        let mut rep = req.clone();
        echo_to_reply(&mut rep, 64);
        assert!(checksum_ok(&rep));
        let sliced = SlicedPacket::from_ip(&rep).unwrap();
        let ip = sliced.net.unwrap();
        let etherparse::NetSlice::Ipv4(ip) = ip else {
            panic!()
        };
        assert_eq!(ip.header().source(), [10, 0, 0, 7]);
        assert_eq!(ip.header().destination(), [10, 0, 0, 1]);
        assert_eq!(ip.header().ttl(), 64);
        let icmp = Icmpv4Slice::from_slice(&rep[20..]).unwrap();
        assert_eq!(icmp.icmp_type(), Icmpv4Type::EchoReply(echo));
        assert_eq!(
            icmp.checksum(),
            icmp.icmp_type().calc_checksum(icmp.payload())
        );
        assert_eq!(probe_reply(&rep), Some((7, 123_456_789)));
    }
}
