//! Packets: the header fields the models need, an arena that owns them, and the reasons a
//! packet can be dropped.
//!
//! Packets live in a [`PacketArena`] and move between components by [`PacketId`] handle; a
//! packet is never copied on the hot path. Freed slots are recycled, so a steady-state run
//! allocates nothing per packet.

mod arena;
mod drop_reason;
pub mod real;

pub use arena::{Location, PacketArena};
pub use drop_reason::DropReason;

use crate::engine::SimTime;

/// Handle of a packet in the arena.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PacketId(pub u32);

/// Index of a flow in the scenario (the order of `flows` after `count` expansion).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FlowId(pub u32);

/// Index of a node in the scenario (the order of `nodes` after `count` expansion).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct NodeId(pub u32);

/// IP protocol numbers (IANA).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Protocol {
    /// ICMP (ping's echo request and reply).
    Icmp = 1,
    Tcp = 6,
    #[default]
    Udp = 17,
}

/// ECN codepoint "Congestion Experienced" (RFC 3168).
pub const ECN_CE: u8 = 3;

/// ICMP type of an echo request (RFC 792).
pub const ICMP_ECHO_REQUEST: u8 = 8;
/// ICMP type of an echo reply (RFC 792).
pub const ICMP_ECHO_REPLY: u8 = 0;
/// ICMP type of a time exceeded message (RFC 792).
pub const ICMP_TIME_EXCEEDED: u8 = 11;

/// IPv4 header bytes (no options).
pub const IPV4_HEADER_BYTES: u32 = 20;
/// UDP header bytes.
pub const UDP_HEADER_BYTES: u32 = 8;
/// TCP header bytes without options.
pub const TCP_HEADER_BYTES: u32 = 20;

/// The IP 5-tuple of a packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct FiveTuple {
    pub src_addr: u32,
    pub dst_addr: u32,
    pub src_port: u16,
    pub dst_port: u16,
    pub protocol: Protocol,
}

/// TCP header fields (RFC 9293). Sequence numbers are kept whole (u64 byte offsets, see
/// [`crate::transport::tcp`]); a wire header (pcap) carries their low 32 bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct TcpHeader {
    pub seq: u64,
    pub ack: u64,
    /// FIN=0x01 SYN=0x02 RST=0x04 PSH=0x08 ACK=0x10 ECE=0x40 CWR=0x80, as on the wire.
    pub flags: u8,
    /// Receive window in bytes (already scaled).
    pub window: u32,
    /// RFC 7323 timestamp option: TSval and TSecr (0 when the model does not use them).
    pub tsval: u32,
    pub tsecr: u32,
}

/// One packet as the network sees it.
///
/// `repr(C)`, in two 64-byte halves (an arena slot is 128 bytes on a line boundary): what
/// every hop reads or writes (routing, queueing, serialization, ECN marking,
/// classification) in the first, what only the source and the destination read (TCP
/// header, creation time, sequence numbers) in the second, so that a hop touches one cache
/// line of the packet (issue 18, item 4).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct Packet {
    /// When the packet entered its current queue (sojourn time for AQMs).
    pub enqueued: SimTime,
    /// Node the packet is addressed to (what routing looks up).
    pub dst_node: NodeId,
    /// The link-layer next hop routing chose with `out_iface`: the node this packet is for
    /// on that interface's medium (its MAC destination; on a wire, the far end).
    pub next_hop: NodeId,
    /// The real egress interface routing chose for this packet at the node it is leaving,
    /// set when the packet is enqueued there (meaningless before). Classifiers match on it
    /// (`match = { dev = … }`), and a virtual device (IMQ) uses it to hand the packet to
    /// its member interface.
    pub out_iface: u32,
    /// IP datagram length in bytes (headers included): what a qdisc charges.
    pub size_bytes: u32,
    /// Linux `skb->priority` (what prio/pfifo_fast's priomap reads).
    pub priority: u32,
    pub flow: FlowId,
    pub tuple: FiveTuple,
    /// Application payload bytes carried (goodput counts these).
    pub payload_bytes: u32,
    pub ttl: u8,
    /// DSCP code point (6 bits), as in the IPv4 TOS byte >> 2.
    pub dscp: u8,
    /// ECN field of the IP header (RFC 3168): 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE.
    pub ecn: u8,
    /// What the packet is to a striping trunk: user data (the default), a trunk-level
    /// retransmission of user data (JKM), or a control packet the trunk made (an SRR
    /// marker, a JKM ACK or NAK), which is no user data and no flow's.
    pub trunk_ctl: TrunkCtl,
    /// ICMP message type (RFC 792) of an ICMP packet: 8 echo request, 0 echo reply.
    pub icmp_type: u8,
    /// When the source created the packet.
    pub created: SimTime,
    /// Per-flow sequence number assigned by the source (0, 1, 2, ...).
    pub flow_seq: u64,
    /// Sequence number stamped by a striping trunk (0 when not striped); for a trunk
    /// control packet, the number it carries (an SRR marker's round, a JKM ACK's last
    /// in-order sequence number, a JKM NAK's missing one).
    pub trunk_seq: u64,
    pub tcp: TcpHeader,
}

const _: () = assert!(std::mem::size_of::<Packet>() == 120);
const _: () = assert!(std::mem::offset_of!(Packet, created) == 64);

/// A packet's role on a striping trunk (seed 004, `crate::stripe`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum TrunkCtl {
    /// User data (what every application sends).
    #[default]
    Data,
    /// A copy of user data the trunk sender sent again on a JKM NAK (§5).
    Retransmission,
    /// An SRR marker carrying the sender's round number in `trunk_seq` (§2.1).
    Marker,
    /// A JKM positive acknowledgment: every packet up to `trunk_seq` arrived (§5).
    Ack,
    /// A JKM negative acknowledgment: packet `trunk_seq` is missing, send it again (§5).
    Nak,
}

impl TrunkCtl {
    /// A control packet a trunk made (marker, ACK, NAK): it counts on no flow and ends at
    /// the peer's trunk (consumed) unless dropped on the way.
    #[inline]
    pub fn is_control(self) -> bool {
        matches!(self, TrunkCtl::Marker | TrunkCtl::Ack | TrunkCtl::Nak)
    }
}

impl Packet {
    /// Convenience for tests and models: a UDP packet of `size_bytes` on the wire.
    pub fn udp(flow: FlowId, size_bytes: u32, created: SimTime) -> Packet {
        Packet {
            flow,
            size_bytes,
            payload_bytes: size_bytes.saturating_sub(IPV4_HEADER_BYTES + UDP_HEADER_BYTES),
            ttl: 64,
            created,
            ..Packet::default()
        }
    }
}
