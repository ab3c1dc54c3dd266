//! Packet capture: one pcap file per link, as `tcpdump -i <dev>` on both ends of the link
//! would see the packets leave (egress, both directions, one file).
//!
//! A packet is recorded when its transmitter starts to serialize it (the instant Linux
//! hands an skb to the driver, where `tcpdump` sees egress), with a nanosecond timestamp
//! (pcap magic `0xa1b23c4d`) and link type `LINKTYPE_RAW` (101, bare IPv4). The headers are
//! synthesized from the packet fields with `etherparse`:
//!
//! - IPv4: total length = the packet's size, TTL and DSCP as the packet carries them at this
//!   hop, DF set, identification = low 16 bits of the flow sequence number (per flow and
//!   direction), addresses 10.0.0.x of the nodes, header checksum computed.
//! - TCP: ports, seq and ack = the low 32 bits of the packet's u64 byte offsets, flags as
//!   sent; the window field carries `min(window, 65535)` (the model sends no window-scale
//!   option). Segments carry the 12-byte timestamp option the model pays for (NOP, NOP,
//!   TS with TSval = the capture time in ms and TSecr = 0, or the model's own values when the
//!   flow runs RFC 7323 timestamps).
//! - UDP: ports and length.
//!
//! Payload bytes are not stored: like `tcpdump -s <headers>`, a record holds the headers only
//! (`incl_len`) and states the full datagram length (`orig_len`), so a long run's capture
//! stays small. Transport checksums are those of a zero-filled payload of the right length.
//!
//! Capture is off unless asked ([`super::BuildOptions::capture`]); when off the transmitter
//! pays one `Option` check per packet.

use crate::engine::SimTime;
use crate::packet::{Packet, Protocol, IPV4_HEADER_BYTES, UDP_HEADER_BYTES};
use etherparse::{
    IcmpEchoHeader, Icmpv4Header, Icmpv4Type, IpDscp, IpNumber, Ipv4Header, TcpHeader,
    TcpOptionElement, UdpHeader,
};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

/// Largest header block a record holds (IPv4 and TCP with the largest options).
const SNAPLEN: u32 = 60 + 60;

/// What to capture: the links (by name) and the folder the files go to (`<link>.pcap`).
#[derive(Clone, Debug, Default)]
pub struct CaptureSpec {
    pub links: Vec<String>,
    pub dir: PathBuf,
}

/// A finished capture file.
#[derive(Clone, Debug)]
pub struct CaptureFile {
    pub link: String,
    pub path: PathBuf,
    /// Packets recorded (both directions).
    pub packets: u64,
}

struct LinkCapture {
    link: String,
    path: PathBuf,
    writer: Option<PcapWriter<BufWriter<File>>>,
    packets: u64,
}

/// The open capture files and, for each interface, which file (if any) it writes to.
pub(crate) struct Capture {
    by_iface: Vec<Option<u32>>,
    files: Vec<LinkCapture>,
    /// Zero bytes that stand for payloads in transport checksums (allocated once).
    zeros: Vec<u8>,
    /// The record being built (reused).
    buf: Vec<u8>,
    /// The first write error; capture stops there and [`Capture::finish`] reports it.
    error: Option<io::Error>,
}

impl Capture {
    /// Opens one file per link. `iface_link[i]` is the link name of interface i.
    pub(crate) fn open(
        spec: &CaptureSpec,
        iface_link: &[&str],
    ) -> Result<Capture, (String, String)> {
        let mut by_iface = vec![None; iface_link.len()];
        let mut files = Vec::with_capacity(spec.links.len());
        for link in &spec.links {
            if files.iter().any(|f: &LinkCapture| f.link == *link) {
                continue;
            }
            let ifaces: Vec<usize> = (0..iface_link.len())
                .filter(|&i| iface_link[i] == link.as_str())
                .collect();
            if ifaces.is_empty() {
                let mut known: Vec<&str> = iface_link.to_vec();
                known.dedup();
                return Err((
                    format!("pcap.{link}"),
                    format!(
                        "no link named \"{link}\"; capture one of: {}",
                        known.join(", ")
                    ),
                ));
            }
            let path = spec.dir.join(format!("{link}.pcap"));
            let writer = File::create(&path)
                .and_then(|f| {
                    let header = PcapHeader {
                        snaplen: SNAPLEN,
                        datalink: DataLink::RAW,
                        ts_resolution: TsResolution::NanoSecond,
                        endianness: Endianness::Little,
                        ..Default::default()
                    };
                    PcapWriter::with_header(BufWriter::new(f), header).map_err(io::Error::other)
                })
                .map_err(|e| {
                    (
                        format!("pcap.{link}"),
                        format!("cannot create {}: {e}", path.display()),
                    )
                })?;
            for i in ifaces {
                by_iface[i] = Some(files.len() as u32);
            }
            files.push(LinkCapture {
                link: link.clone(),
                path,
                writer: Some(writer),
                packets: 0,
            });
        }
        Ok(Capture {
            by_iface,
            files,
            zeros: vec![0; u16::MAX as usize],
            buf: Vec::with_capacity(SNAPLEN as usize),
            error: None,
        })
    }

    /// Records `p` leaving interface `iface` at `now`, if that interface's link is captured.
    pub(crate) fn record(&mut self, iface: u32, now: SimTime, p: &Packet) {
        let Some(file) = self.by_iface[iface as usize] else {
            return;
        };
        if self.error.is_some() {
            return;
        }
        self.buf.clear();
        if let Err(e) = headers(p, now, &self.zeros, &mut self.buf) {
            self.error = Some(e);
            return;
        }
        let f = &mut self.files[file as usize];
        let Some(w) = f.writer.as_mut() else {
            return;
        };
        let record = PcapPacket::new(
            std::time::Duration::from_nanos(now.0),
            p.size_bytes,
            &self.buf,
        );
        match w.write_packet(&record) {
            Ok(_) => f.packets += 1,
            Err(e) => self.error = Some(io::Error::other(e)),
        }
    }

    /// Flushes and closes every file.
    pub(crate) fn finish(&mut self) -> io::Result<Vec<CaptureFile>> {
        let mut out = Vec::with_capacity(self.files.len());
        for f in &mut self.files {
            if let Some(w) = f.writer.take() {
                w.into_writer().flush()?;
            }
            out.push(CaptureFile {
                link: f.link.clone(),
                path: f.path.clone(),
                packets: f.packets,
            });
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

/// Writes the IPv4 and transport headers of `p` into `buf`.
fn headers(p: &Packet, now: SimTime, zeros: &[u8], buf: &mut Vec<u8>) -> io::Result<()> {
    let t = &p.tuple;
    let ip_payload = p.size_bytes.saturating_sub(IPV4_HEADER_BYTES);
    let protocol = match t.protocol {
        Protocol::Tcp => IpNumber::TCP,
        Protocol::Udp => IpNumber::UDP,
        Protocol::Icmp => IpNumber::ICMP,
    };
    let mut ip = Ipv4Header::new(
        ip_payload.min(u16::MAX as u32 - IPV4_HEADER_BYTES) as u16,
        p.ttl,
        protocol,
        t.src_addr.to_be_bytes(),
        t.dst_addr.to_be_bytes(),
    )
    .map_err(io::Error::other)?;
    ip.dscp = IpDscp::try_new(p.dscp & 0x3f).map_err(io::Error::other)?;
    ip.identification = p.flow_seq as u16;
    ip.header_checksum = ip.calc_header_checksum();
    ip.write(buf)?;
    match t.protocol {
        Protocol::Tcp => {
            let h = &p.tcp;
            let mut tcp = TcpHeader::new(t.src_port, t.dst_port, h.seq as u32, 0);
            tcp.acknowledgment_number = h.ack as u32;
            tcp.window_size = h.window.min(u16::MAX as u32) as u16;
            tcp.fin = h.flags & 0x01 != 0;
            tcp.syn = h.flags & 0x02 != 0;
            tcp.rst = h.flags & 0x04 != 0;
            tcp.psh = h.flags & 0x08 != 0;
            tcp.ack = h.flags & 0x10 != 0;
            tcp.urg = h.flags & 0x20 != 0;
            tcp.ece = h.flags & 0x40 != 0;
            tcp.cwr = h.flags & 0x80 != 0;
            let options_len = ip_payload.saturating_sub(20 + p.payload_bytes);
            if options_len == 12 {
                // The model's own TSval/TSecr when it runs RFC 7323, else the capture time.
                let (tsval, tsecr) = if h.tsval != 0 {
                    (h.tsval, h.tsecr)
                } else {
                    ((now.0 / 1_000_000) as u32, 0)
                };
                tcp.set_options(&[
                    TcpOptionElement::Noop,
                    TcpOptionElement::Noop,
                    TcpOptionElement::Timestamp(tsval, tsecr),
                ])
                .map_err(io::Error::other)?;
            }
            let payload = &zeros[..ip_payload.saturating_sub(tcp.header_len() as u32) as usize];
            tcp.checksum = tcp
                .calc_checksum_ipv4(&ip, payload)
                .map_err(io::Error::other)?;
            tcp.write(buf)?;
        }
        Protocol::Udp => {
            let payload = &zeros[..ip_payload.saturating_sub(UDP_HEADER_BYTES) as usize];
            let udp = UdpHeader::with_ipv4_checksum(t.src_port, t.dst_port, &ip, payload)
                .map_err(io::Error::other)?;
            udp.write(buf)?;
        }
        Protocol::Icmp => {
            // Echo identifier = the requester's port, sequence = the request's number, as
            // ping writes them; a reply echoes both.
            let seq = p.flow_seq as u16;
            let kind = if p.icmp_type == crate::packet::ICMP_ECHO_REQUEST {
                Icmpv4Type::EchoRequest(IcmpEchoHeader {
                    id: t.src_port,
                    seq,
                })
            } else {
                Icmpv4Type::EchoReply(IcmpEchoHeader {
                    id: t.dst_port,
                    seq,
                })
            };
            let payload = &zeros[..ip_payload.saturating_sub(8) as usize];
            Icmpv4Header::with_checksum(kind, payload).write(buf)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{FiveTuple, TcpHeader as PktTcp};

    fn tcp_packet() -> Packet {
        Packet {
            flow_seq: 7,
            tuple: FiveTuple {
                src_addr: 0x0A00_0001,
                dst_addr: 0x0A00_0003,
                src_port: 49152,
                dst_port: 5001,
                protocol: Protocol::Tcp,
            },
            ttl: 63,
            dscp: 10,
            size_bytes: 1448 + 52,
            payload_bytes: 1448,
            tcp: PktTcp {
                seq: (1u64 << 32) + 1001,
                ack: 1,
                flags: 0x10,
                window: 1 << 20,
                ..PktTcp::default()
            },
            ..Packet::default()
        }
    }

    /// Reference: RFC 791 / RFC 9293 header layouts, read back with etherparse's parser.
    #[test]
    fn tcp_headers_carry_the_packet_fields_and_the_full_lengths() {
        let zeros = vec![0; 65535];
        let mut buf = Vec::new();
        headers(&tcp_packet(), SimTime::from_millis(1500), &zeros, &mut buf).unwrap();
        assert_eq!(buf.len(), 20 + 32);
        let (ip, rest) = Ipv4Header::from_slice(&buf).unwrap();
        assert_eq!(ip.total_len, 1500);
        assert_eq!(ip.time_to_live, 63);
        assert_eq!(ip.dscp.value(), 10);
        assert_eq!(ip.identification, 7);
        assert_eq!(ip.source, [10, 0, 0, 1]);
        assert_eq!(ip.destination, [10, 0, 0, 3]);
        assert_eq!(ip.calc_header_checksum(), ip.header_checksum);
        let (tcp, rest) = TcpHeader::from_slice(rest).unwrap();
        assert!(rest.is_empty());
        assert_eq!(tcp.sequence_number, 1001, "low 32 bits of the u64 offset");
        assert_eq!(tcp.acknowledgment_number, 1);
        assert!(tcp.ack && !tcp.syn);
        assert_eq!(tcp.window_size, 65535);
        assert_eq!(tcp.header_len(), 32);
        assert!(tcp
            .options_iterator()
            .any(|o| o == Ok(TcpOptionElement::Timestamp(1500, 0))));
        // The checksum is that of the full segment with a zero-filled payload.
        assert_eq!(
            tcp.calc_checksum_ipv4(&ip, &zeros[..1448]).unwrap(),
            tcp.checksum
        );
    }

    #[test]
    fn udp_headers_state_the_datagram_length() {
        let mut p = tcp_packet();
        p.tuple.protocol = Protocol::Udp;
        p.size_bytes = 1200;
        let zeros = vec![0; 65535];
        let mut buf = Vec::new();
        headers(&p, SimTime::ZERO, &zeros, &mut buf).unwrap();
        assert_eq!(buf.len(), 28);
        let (ip, rest) = Ipv4Header::from_slice(&buf).unwrap();
        assert_eq!(ip.protocol, IpNumber::UDP);
        let (udp, _) = UdpHeader::from_slice(rest).unwrap();
        assert_eq!(udp.length, 1180);
        assert_eq!(udp.destination_port, 5001);
    }

    /// Reference: RFC 792 echo layout (type 8 request / 0 reply, identifier, sequence),
    /// read back with etherparse; the reply echoes the request's identifier.
    #[test]
    fn icmp_echoes_are_written_as_request_and_reply_with_the_pings_identifier() {
        let mut p = tcp_packet();
        p.tuple.protocol = Protocol::Icmp;
        p.size_bytes = 84;
        p.icmp_type = crate::packet::ICMP_ECHO_REQUEST;
        let zeros = vec![0; 65535];
        let mut buf = Vec::new();
        headers(&p, SimTime::ZERO, &zeros, &mut buf).unwrap();
        let (ip, rest) = Ipv4Header::from_slice(&buf).unwrap();
        assert_eq!(ip.protocol, IpNumber::ICMP);
        let (icmp, _) = Icmpv4Header::from_slice(rest).unwrap();
        let echo = IcmpEchoHeader { id: 49152, seq: 7 };
        assert_eq!(icmp.icmp_type, Icmpv4Type::EchoRequest(echo));
        assert_eq!(icmp.checksum, icmp.icmp_type.calc_checksum(&zeros[..56]));

        let t = p.tuple;
        p.tuple.src_addr = t.dst_addr;
        p.tuple.dst_addr = t.src_addr;
        p.tuple.src_port = t.dst_port;
        p.tuple.dst_port = t.src_port;
        p.icmp_type = crate::packet::ICMP_ECHO_REPLY;
        buf.clear();
        headers(&p, SimTime::ZERO, &zeros, &mut buf).unwrap();
        let (_, rest) = Ipv4Header::from_slice(&buf).unwrap();
        let (icmp, _) = Icmpv4Header::from_slice(rest).unwrap();
        assert_eq!(icmp.icmp_type, Icmpv4Type::EchoReply(echo));
    }

    #[test]
    fn an_unknown_link_is_reported_with_the_links_that_exist() {
        let spec = CaptureSpec {
            links: vec!["nope".into()],
            dir: std::env::temp_dir(),
        };
        let links = ["access", "access", "bottleneck", "bottleneck"];
        let Err((path, message)) = Capture::open(&spec, &links) else {
            panic!("an unknown link was accepted")
        };
        assert_eq!(path, "pcap.nope");
        assert!(message.contains("access, bottleneck"), "{message}");
    }
}
