//! The scenario format: what a TOML scenario file may say, with defaults.
//!
//! The doc comments here are the user documentation: they become the descriptions of the
//! JSON Schema (`airqueue schema`) and of `docs/scenario-reference.md`. Keys use the words
//! of `tc`, `ip link`, iperf and the seed papers.

pub use crate::app::spec::*;
pub use crate::channel::GeModelConf;
pub use crate::conf::units::{Bytes, Duration, Probability, Rate};
use crate::engine::SimTime;
pub use crate::link::air::spec::*;
pub use crate::link::bluetooth::spec::*;
pub use crate::link::netem::spec::*;
pub use crate::link::p2p::spec::*;
pub use crate::link::segment::spec::*;
pub use crate::link::wifi::spec::*;
pub use crate::qdisc::QdiscConf;
pub use crate::stripe::{Scheme as TrunkScheme, TrunkSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A whole scenario: the network, its queueing disciplines and its traffic.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// One or two sentences saying what the scenario shows (listed by `airqueue list scenarios`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Run control: duration, warm-up, seed, sampling interval.
    pub run: RunSpec,
    /// Hosts and routers.
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    /// Wired point-to-point links (full duplex) between two nodes.
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Shared half-duplex segments (one frame at a time among all their nodes, ns-3's CSMA
    /// channel without collisions): a bus several nodes hang on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<SegmentSpec>,
    /// IEEE 802.11 cells: an access point and its stations on one channel, with the DCF
    /// (see docs/wifi.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<CellSpec>,
    /// Bluetooth BR piconets: a master and up to seven slaves on ACL links with TDD
    /// polling, L2CAP segmentation and flow control, IP over BNEP (see docs/bluetooth.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub piconets: Vec<PiconetSpec>,
    /// Scatternet bridges: a node that is a slave in two piconets and walks between them
    /// (the thesis's walk-in slave/slave bridge, seed 001 §2.3.2, §3.1.1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bridges: Vec<BridgeSpec>,
    /// The shared 2.4 GHz spectrum: piconets and 802.11b/g cells whose radios hear each
    /// other and interfere by time and frequency overlap (Golmie et al.; seed 000 §5.4).
    /// Without it every medium has the air to itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spectrum: Option<SpectrumSpec>,
    /// Who hears whom on the 802.11 channels: node positions (and motion) with a path-loss
    /// model and receive/carrier-sense thresholds, or an explicit hearing graph. Without
    /// it every interface on a channel hears every other (one collision domain). See
    /// docs/wifi.md, "Who hears whom".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub propagation: Option<PropagationSpec>,
    /// Virtual devices that schedule across several real interfaces of a node (Linux IMQ,
    /// seed 000 §2.1): packets routed out of any member pass the virtual device's qdisc.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub virtual_devs: Vec<VirtualDevSpec>,
    /// Striped trunks between two nodes over several member media (seed 004): sequence
    /// numbers, round robin over idle members, resequencing at the receiver.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trunks: Vec<TrunkSpec>,
    /// Queueing disciplines on egress interfaces or virtual devices (`tc qdisc add dev …`).
    /// An interface without an entry gets `pfifo` with `limit = 1000` (Linux's txqueuelen).
    #[serde(default)]
    pub qdiscs: Vec<QdiscSpec>,
    /// Static routes that override the computed shortest paths.
    #[serde(default)]
    pub routes: Vec<RouteSpec>,
    /// Traffic: one entry per flow (or `count` copies of it).
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// The timeline: changes applied while the scenario runs, each at an exact simulated
    /// instant (`[[at]]` with `at = "300s"` and one of `link`, `qdisc`, `flow`). Entries at
    /// the same instant apply in the order they are written. Listed in `summary.json`
    /// (`timeline`) and marked on time-series plots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub at: Vec<AtSpec>,
}

/// One change of the timeline: when, and exactly one of what. Later kinds (a box inserted
/// or bypassed, a station associating, a node moving) add a key each.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AtSpec {
    /// When the change applies (before `run.duration`), e.g. "300s". Events already due at
    /// the same instant that were scheduled earlier fire before it.
    pub at: Duration,
    /// Change a link's rate, delay or impairment (as `ip link set`/`tc qdisc change …
    /// netem` would).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkChangeSpec>,
    /// Change a root qdisc's parameters (`tc qdisc change`) or replace it (`tc qdisc
    /// replace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qdisc: Option<QdiscChangeSpec>,
    /// Stop, start or restart a flow's application.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<FlowChangeSpec>,
    /// A station of an 802.11 cell leaves (disassociates) or joins (associates again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub station: Option<StationChangeSpec>,
}

/// A station of an infrastructure cell leaving or (re)joining its AP (seed 002 Fig. 16:
/// the number of stations at each rate changes every 20 min). A station that left is
/// missing from the AP's association table (what a box polling the AP learns, e.g.
/// ADWISER's SNMP module), and frames for it or from it find no peer (dropped as
/// `no_route`); frames already in a driver buffer still go. Its flows are the scenario's
/// business: stop them at the same instant (`flow = { …, action = "stop" }`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StationChangeSpec {
    /// The cell's name.
    pub cell: String,
    /// The station's node (one of the cell's stations, not its AP).
    pub node: String,
    /// `leave` (disassociate) or `join` (associate again).
    pub action: StationAction,
}

/// What a station does in a timeline entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StationAction {
    Leave,
    Join,
}

/// A change of a link (both directions). Keys left out keep their value.
///
/// The packet being serialized when the rate changes finishes at the old rate (a NIC
/// renegotiating its speed, or netem's `rate`, applies to the next packet); packets
/// already on the wire keep their arrival times (netem's tfifo keeps each packet's
/// `time_to_send`), so a shorter delay lets new packets overtake them, as on netem.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkChangeSpec {
    /// The link's name.
    pub name: String,
    /// New line rate in each direction, e.g. "5Mbit".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// New one-way propagation delay, e.g. "50ms".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
    /// New impairment, replacing the whole previous one as `tc qdisc change … netem`
    /// does (parameters left out return to their defaults); `{}` removes every
    /// impairment. Random streams continue (they are not re-seeded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impairment: Option<ImpairmentSpec>,
}

/// A change of the root qdisc of a device: give exactly one of `change` and `replace`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QdiscChangeSpec {
    /// The device (`<node>.<link>` or a virtual device), or the `name` of its `[[qdiscs]]`
    /// entry.
    pub dev: String,
    /// `tc qdisc change`: the same kind with new parameters; the queued packets and the
    /// discipline's state stay (supported by pfifo, bfifo, pfifo_head_drop, tbf, and adwiser,
    /// whose `bypass` switches the ADWISER box in or out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<QdiscConf>,
    /// `tc qdisc replace`: a new discipline of any kind. As Linux's `qdisc_graft` resets
    /// the old qdisc, the packets it held are dropped (reason `policy`) and the new one
    /// starts empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace: Option<QdiscConf>,
}

/// A change of a flow's application (UDP sources, ping and TCP bulk transfers).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowChangeSpec {
    /// The flow's name.
    pub name: String,
    /// `stop` (no more packets; those sent travel on), `start` (send again from this
    /// instant, with the source's pattern, until the flow's `stop`) or `restart` (stop,
    /// then start at once: the pattern begins anew, as a restarted iperf). On a TCP bulk
    /// transfer `stop` aborts its connection (no FIN exchange: the endpoints' state is
    /// discarded, segments still travelling are ignored on arrival, as for a reset
    /// connection), `start` opens a fresh connection (new client port, handshake if
    /// configured, initial window, slow start) and `restart` is both (seed 003 §5.2, Fig.
    /// 11: the connection closed and a new TCP session started).
    pub action: FlowAction,
}

/// What a timeline entry does to a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowAction {
    Stop,
    Start,
    Restart,
}

/// Run control.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Simulated time to run; events at or after this instant are not processed.
    pub duration: Duration,
    /// Statistics (flow and queue tables) are reset at this instant; time series cover the whole run.
    #[serde(default)]
    pub warmup: Duration,
    /// Run seed; every component derives its own random stream from it and its name.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Resolution of the time series (per-flow throughput, per-queue and per-class backlog,
    /// per-class throughput).
    #[serde(default = "default_sample_interval")]
    pub sample_interval: Duration,
}

impl RunSpec {
    /// What the later stages check the rest of a scenario against when `run` itself failed
    /// to parse: a run no start or timeline entry can be late for, defaults otherwise.
    pub fn stand_in() -> RunSpec {
        RunSpec {
            duration: Duration(SimTime::MAX),
            warmup: Duration::default(),
            seed: default_seed(),
            sample_interval: default_sample_interval(),
        }
    }
}

fn default_seed() -> u64 {
    1
}
fn default_sample_interval() -> Duration {
    Duration(SimTime::from_millis(100))
}

/// What a node is; routers forward, hosts only send and receive (both can do both here,
/// the kind is informative and decides the default TTL handling later).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    #[default]
    Host,
    Router,
}

/// A host or router.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Unique name. With `count`, `{i}` in the name is replaced by 0…count−1 (or the index is appended).
    pub name: String,
    /// Expand this entry into `count` nodes (absent: one node).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100000))]
    pub count: Option<u32>,
    /// `host` (default) or `router`.
    #[serde(default)]
    pub kind: NodeKind,
    /// A real host for `airqueue live` (docs/live.md): a network namespace with a TUN
    /// interface holding the node's address (`address`, else 10.0.0.0/8 + node index + 1), whose programs'
    /// packets cross the emulated network. Its traffic comes from those programs, so no
    /// `[[flows]]` entry may start or end at it, but for an emulated node's ping to it (its
    /// kernel answers). `airqueue run` treats it as an ordinary host that sends nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub real: bool,
    /// The node's IPv4 address, e.g. "192.168.1.10". Absent: the address plan's, 10.0.0.0/8 +
    /// node index + 1 (10.0.0.1 for the first node). Every address must be unique (planned
    /// ones included) and a unicast one; a real host keeps it on its `aq0` interface. Not
    /// with `count` (each copy would need its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<std::net::Ipv4Addr>,
}

/// The first address of the plan: node i (in scenario order) is `PLAN_BASE + i`,
/// 10.0.0.1 onwards, unless it sets [`NodeSpec::address`].
pub const PLAN_BASE: u32 = 0x0A00_0001;

impl NodeSpec {
    /// The node's address: its `address`, or the plan's for node `index`.
    pub fn addr(&self, index: usize) -> u32 {
        self.address.map_or(PLAN_BASE + index as u32, u32::from)
    }
}

/// A virtual device in front of several real interfaces of one node (Linux IMQ). Its root
/// qdisc (a `[[qdiscs]]` entry with `dev` = this name) holds the packets routed out of every
/// member; each member's transmitter, when idle, takes the next packet the qdisc gives
/// *for that member*. Members have no qdisc of their own.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VirtualDevSpec {
    /// `<node>.<device>`, e.g. "nap.imq0"; the node owns every member.
    pub name: String,
    /// The member interfaces, `<node>.<link>` each, e.g. ["nap.wlan", "nap.bt"].
    pub members: Vec<String>,
    /// How packets leave the virtual device's qdisc: `"member"` (the default: each idle
    /// member asks it for a packet for itself; the members have no queue of their own) or
    /// `"imq"` (Linux IMQ: one dequeue path drains the qdisc whenever a packet arrives or
    /// its wake-up fires, and re-injects each packet into its member's own root qdisc —
    /// a `[[qdiscs]]` entry on the member, else pfifo with the txqueuelen 1000 — where it
    /// waits for the driver). docs/qdiscs/virtual-devices.md.
    #[serde(default, skip_serializing_if = "VdevDequeue::is_member")]
    pub dequeue: VdevDequeue,
}

/// How a virtual device's qdisc is dequeued ([`VirtualDevSpec::dequeue`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum VdevDequeue {
    /// Each idle member pulls its own next packet.
    #[default]
    Member,
    /// Linux IMQ: drained by one dequeue path into the members' own queues.
    Imq,
}

impl VdevDequeue {
    pub fn is_member(&self) -> bool {
        *self == VdevDequeue::Member
    }
}

/// A queueing discipline on an egress interface, as `tc qdisc add dev <dev> root <kind> …`.
#[derive(Clone, Debug, Serialize)]
pub struct QdiscSpec {
    /// The egress interface, `<node>.<link>`, e.g. "router.bottleneck", or a virtual
    /// device's name.
    pub dev: String,
    /// Name used in result tables and `--set` paths; defaults to `dev`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A size table (`tc qdisc add … stab overhead 14 linklayer ethernet mpu 64 …`,
    /// tc-stab(8)): the length every packet is charged in this qdisc tree, computed from
    /// `skb->len` (the datagram plus the link's `link_header`) as the kernel does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stab: Option<crate::qdisc::StabConf>,
    /// The discipline and its parameters.
    #[serde(flatten)]
    pub conf: QdiscConf,
}

impl QdiscSpec {
    pub fn display_name(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.dev)
    }
}

/// A static route: traffic at `node` for `to` leaves over link `via`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    /// The node whose forwarding table gets the route.
    pub node: String,
    /// Destination node.
    pub to: String,
    /// Link or segment to leave by (one of `node`'s).
    pub via: String,
    /// The neighbour on `via` to hand packets to (a gateway, as `ip route … via`); needed
    /// only when `via` is a segment with more than two nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_hop: Option<String>,
}

/// One flow of traffic from a source node to a destination node.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Unique name. With `count`, `{i}` in name/from/to is replaced by the copy's index
    /// (without `{i}`, the index is appended to the name).
    pub name: String,
    /// Expand this entry into `count` flows (absent: one flow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100000))]
    pub count: Option<u32>,
    /// Source node.
    pub from: String,
    /// Destination node.
    pub to: String,
    /// When the application starts.
    #[serde(default)]
    pub start: Duration,
    /// With `count`: copy i starts at start + i × start_spacing.
    #[serde(default)]
    pub start_spacing: Duration,
    /// When the application stops sending (absent: the end of the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// DSCP code point (0–63) written in the IP header.
    #[serde(default)]
    #[schemars(range(max = 63))]
    pub dscp: u8,
    /// Linux `skb->priority` (SO_PRIORITY) of the packets as they leave the sender, read by
    /// prio/pfifo_fast's priomap. Absent: derived from `dscp` as the IP_TOS socket option
    /// does (`rt_tos2priority`: DSCP 0 → 0, TOS 0x10 → 6 …). Routers set it from the TOS
    /// byte again (`ip_forward`), so beyond the first hop only `dscp` matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u32>,
    /// Transport protocol: `{ kind = "udp" }` (default) or `{ kind = "tcp", … }`.
    #[serde(default)]
    pub transport: TransportSpec,
    /// The application generating the traffic.
    pub app: AppSpec,
    /// The server's port: the destination port of the data (of a UDP flow, of a TCP
    /// flow's client-to-server packets). Default 5001 (iperf's) and 80 for `web`; what a
    /// `match` with `dport`/`sport` classifies by (5060 for SIP, 443 for HTTPS …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 65535))]
    pub port: Option<u16>,
    /// The answering half of a call (UDP sources): the name of the flow whose first packet,
    /// arriving at this flow's `from`, makes it start (a phone answering; with `count`,
    /// `{i}` is replaced as in `name`). It sends from that arrival, or from its `start` if
    /// that is later, until its `stop`; if no packet of that flow ever arrives (a call the
    /// network refused, e.g. ADWISER's admission control, seed 002 Fig. 21), it never sends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<String>,
}

crate::kind_enum! {
    /// Transport protocol of a flow.
    pub enum TransportSpec as "transport" {
        /// UDP: datagrams leave as the application writes them (28 B of IPv4+UDP headers added).
        "udp" => Udp(UdpSpec),
        /// TCP: Tahoe, Reno, NewReno (RFC 5681, RFC 6582) or CUBIC (RFC 9438) with the RFC 6298
        /// retransmission timer, delayed ACKs, optional ECN (RFC 3168) and window scaling (RFC
        /// 7323); data from `from` to `to`, over one connection (`bulk`, `message`) or one per
        /// object (`web`).
        "tcp" => Tcp(Box<TcpSpec>),
    }
}

impl Default for TransportSpec {
    fn default() -> Self {
        TransportSpec::Udp(UdpSpec {})
    }
}

/// UDP takes no parameters.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {}

/// TCP parameters. Defaults are those of the seeds' era (initial window 1 segment, 1 s
/// minimum RTO); `initial_window = 10` and `min_rto = "200ms"` give a modern Linux sender.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// A whole stack's defaults as a named kernel ran them: "linux-6.1", "linux-2.6.23"
    /// (ADWISER's testbed), "linux-2.4" (DFQ's gateway era) or "freebsd-4.8" (NCTUns, the
    /// striping paper). It sets every key of this table the flow does not write itself, so
    /// each stays overridable; docs/tcp-profiles.md lists the values and their sources.
    /// Absent: each key's own default below (the seeds' era).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<super::TcpProfile>,
    /// Congestion control: "tahoe", "reno", "newreno" or "cubic" (RFC 9438 growth and β = 0.7
    /// over NewReno's loss recovery).
    #[serde(default)]
    pub variant: TcpVariant,
    /// Maximum segment size in bytes (payload per segment). Segments carry 52 B of headers
    /// on the wire (IPv4 20 + TCP 20 + the 12 B timestamp option Linux and ns-3 send), so
    /// 1448 fills a 1500 B MTU.
    #[serde(default = "default_mss")]
    #[schemars(range(min = 1, max = 65483))]
    pub mss: u32,
    /// Initial congestion window in segments (RFC 5681 IW; 1 in the seeds' era, 10 per RFC 6928).
    #[serde(default = "default_initial_window")]
    #[schemars(range(min = 1))]
    pub initial_window: u32,
    /// Initial slow-start threshold in segments (absent: unlimited, RFC 5681; the thesis uses 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 2))]
    pub initial_ssthresh: Option<u32>,
    /// Retransmission timeout before the first RTT sample: how long a lost SYN or first
    /// segment waits. Absent: 1 s, RFC 6298 §2.1 (and Linux since 3.1). RFC 2988 §2.1, which
    /// it replaced, said 3 s, as Linux's `TCP_TIMEOUT_INIT` did until 3.0 (2.6.23: `3*HZ`).
    /// Must lie within [`min_rto`, `max_rto`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rto: Option<Duration>,
    /// Lower bound of the retransmission timeout (RFC 6298: 1 s; Linux: 200 ms).
    #[serde(default = "default_min_rto")]
    pub min_rto: Duration,
    /// How the retransmission timeout follows the RTT: "rfc6298" (default: RTO = SRTT +
    /// 4·RTTVAR, at least `min_rto`) or "linux" (Linux's `tcp_rtt_estimator`: RTO = SRTT +
    /// the round's largest deviation, at least `min_rto` *added* to SRTT, so about SRTT +
    /// 200 ms; a falling RTT moves the deviation slowly).
    #[serde(default, skip_serializing_if = "RtoKind::is_rfc6298")]
    pub rto: RtoKind,
    /// Upper bound of the retransmission timeout and its back-off.
    #[serde(default = "default_max_rto")]
    pub max_rto: Duration,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3); raise it to tolerate reordering.
    #[serde(default = "default_dupack_threshold")]
    #[schemars(range(min = 1))]
    pub dupack_threshold: u32,
    /// Whether the receiver delays ACKs (every 2nd segment or `delayed_ack_timeout`).
    #[serde(default = "default_true")]
    pub delayed_ack: bool,
    /// Delayed-ACK timer (at most 500 ms, RFC 5681 §4.2).
    #[serde(default = "default_delayed_ack_timeout")]
    pub delayed_ack_timeout: Duration,
    /// Receive buffer: the largest window the receiver advertises (the thesis: 8 × MSS). The
    /// default, 64 KiB as in the seeds' era, caps a flow at 64 KiB per RTT (5.2 Mbit/s at
    /// 100 ms); the flow table's `rwnd_limited_warning` says when a flow was mostly held by it.
    /// Linux starts at 128 KiB and autotunes up to 6 MiB: `rcv_buffer = "128KiB"`,
    /// `rcv_buffer_max = "6MiB"`, of which it advertises half (`adv_win_scale = 1`). With
    /// `adv_win_scale` this is buffer memory, not the window.
    #[serde(default = "default_rcv_buffer")]
    pub rcv_buffer: Bytes,
    /// Start each connection with a three-way handshake (SYN, SYN-ACK, ACK), so transfers pay
    /// their RTTs first. Absent: on for `web` (the client connects: two RTTs before the first
    /// byte arrives, as a real download), off for the other applications (with it, the sender
    /// connects: one RTT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake: Option<bool>,
    /// Record cwnd, ssthresh and smoothed RTT in the time series every `run.sample_interval`.
    #[serde(default)]
    pub trace: bool,
    /// Congestion-window validation: grow cwnd only when the last send round was limited by
    /// cwnd (not by the receive window or the application), as Linux does (RFC 7661 §4.3), so
    /// an rwnd- or application-limited sender's cwnd stays near what it really uses. `false`
    /// restores the classic model in which cwnd grows on every ACK.
    #[serde(default = "default_true")]
    pub cwnd_validation: bool,
    /// ECN (RFC 3168): data segments are ECN-capable (ECT(0)), so AQMs with `ecn` on mark them
    /// CE instead of dropping; the receiver echoes ECE until CWR; the sender reduces its window
    /// at most once per window of data.
    #[serde(default)]
    pub ecn: bool,
    /// Window scaling (RFC 7323 §2). Off: the advertised window cannot exceed 65 535 bytes,
    /// whatever `rcv_buffer` says, so throughput is at most 65 535 B per RTT.
    #[serde(default = "default_true")]
    pub window_scaling: bool,
    /// Selective acknowledgments (RFC 2018) with RFC 6675 loss recovery, as Linux and ns-3 run
    /// by default: several losses in one window are repaired in about one RTT instead of one
    /// per RTT. ACKs that carry blocks grow by 4 + 8 B per block (at most 3). Variants
    /// "newreno" and "cubic" only. Off by default (the seeds' era; the shipped scenarios).
    #[serde(default)]
    pub sack: bool,
    /// Receive-buffer autotuning, as Linux's `tcp_rmem` (default 4 KiB / 128 KiB / 6 MiB): the
    /// buffer starts at `rcv_buffer` (`tcp_rmem[1]`) and grows up to this size (`tcp_rmem[2]`)
    /// while the receiver sees the sender's rate grow (`tcp_rcv_space_adjust`). Absent: a
    /// fixed `rcv_buffer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcv_buffer_max: Option<Bytes>,
    /// Linux's `tcp_adv_win_scale`: when set, `rcv_buffer` and `rcv_buffer_max` are socket
    /// buffer memory, as Linux's `tcp_rmem` is (it also pays for every segment's skb), and the
    /// receiver advertises only `tcp_win_from_space` of it: space − space/2^scale (2: ¾, the
    /// default of Linux 2.4 to 3.3, so 87 380 B advertise 65 535 B; 1: ½, 3.4 to 6.5), or
    /// space/2^−scale for a scale ≤ 0. The Linux profiles set it. Absent: the two sizes are
    /// the advertised window itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -31, max = 31))]
    pub adv_win_scale: Option<i8>,
    /// How autotuning (`rcv_buffer_max`) grows the window once per receiver RTT, as Linux's
    /// `tcp_rcv_space_adjust` did: "linux-6.1" (default: at least 2·copied + 16 MSS, more
    /// while the sender speeds up; `copied` = the bytes of the last RTT) or "linux-2.6.23"
    /// (dynamic right-sizing as 2.6.7 introduced it: 2·copied, never less than before).
    #[serde(default, skip_serializing_if = "RcvSpaceAdjustKind::is_linux_6_1")]
    pub rcv_space_adjust: RcvSpaceAdjustKind,
    /// RFC 7323 timestamps as the RTT measurement: the receiver echoes the TSval of the segment
    /// at its window's left edge and every ACK of new data gives an RTT sample, now − TSecr
    /// (1 ms ticks), retransmissions included, as Linux measures. Off: RFC 6298's one timed
    /// segment per RTT with Karn's rule (no sample during loss recovery), the classic model.
    /// The option's 12 bytes are on the wire either way (see `mss`).
    #[serde(default)]
    pub timestamps: bool,
    /// PAWS (RFC 7323 §5): the receiver drops (and acknowledges) a data segment whose TSval is
    /// older than the last one it echoes. Needs `timestamps = true`.
    #[serde(default)]
    pub paws: bool,
    /// HyStart++ (RFC 9406) in the initial slow start: leave it when the rounds' minimum RTT
    /// rises by max(4 ms, min(RTT/8, 16 ms)), grow a quarter as fast for five rounds
    /// (conservative slow start, back to slow start if the RTT falls again), then congestion
    /// avoidance. Variants "newreno" and "cubic"; needs `timestamps = true` (an RTT sample per
    /// ACK). Off: RFC 5681 slow start until the first loss.
    #[serde(default)]
    pub hystart: bool,
    /// What the sender does when its own host's interface queue is full and refuses a data
    /// segment: "cwr" (default: Linux, `tcp_transmit_skb` → `tcp_enter_cwr`: the segment
    /// stays unsent, the window is reduced once, sending resumes at the next ACK), "quench"
    /// (FreeBSD 4.x, ENOBUFS → `tcp_quench`: unsent, cwnd = 1 segment) or "loss" (no
    /// feedback: the segment is lost as if dropped in the network, as ns-3 does). Matters
    /// only where a sender's own queue overflows, e.g. an upload over a WLAN station.
    #[serde(default)]
    pub local_congestion: LocalCongestionKind,
    /// RACK loss detection (RFC 8985 §6, as Linux 6.1's `tcp_recovery.c`): a segment is lost
    /// when one sent after it has been delivered and more than that one's RTT plus a
    /// reordering window (min RTT / 4) has passed since it was sent, lost retransmissions
    /// included; after a timeout only the segments deemed lost are resent. Replaces the
    /// DupThresh rule of RFC 6675. Needs `sack = true`. Off by default; Linux: on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rack: bool,
    /// Tail loss probe (RFC 8985 §7, Linux `tcp_send_loss_probe`): 2·SRTT (+ 2 ms; + 200 ms
    /// with one segment in flight) after the last send without an ACK, one probe segment
    /// (new data, or the last segment again) so a tail loss is repaired without the
    /// retransmission timeout. Needs `rack = true`. Off by default; Linux: on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tlp: bool,
    /// Proportional rate reduction (RFC 6937, Linux `tcp_cwnd_reduction`): during recovery the
    /// window falls to ssthresh in step with the data delivered instead of at once. Needs
    /// `rack = true` (modelled in RACK's recovery). Off by default; Linux: on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prr: bool,
    /// F-RTO (RFC 5682, SACK-enhanced, Linux `tcp_frto` = 2): after a timeout, new data on
    /// the next ACK tells a spurious timeout (never-retransmitted data then acknowledged:
    /// cwnd and ssthresh restored) from a real one. Needs `rack = true`. Off by default;
    /// Linux: on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub frto: bool,
    /// The send buffer, as Linux's `tcp_wmem` (default 4 KiB / 16 KiB / 4 MiB): the
    /// application's data enters the socket only while the bytes not yet acknowledged plus
    /// those not yet sent are below this size (`tcp_wmem[1]`, Linux `sk_sndbuf`), and a
    /// writer that found it full waits until ACKs have drained it to ⅔
    /// (`sk_stream_write_space`). A bulk sender's flight therefore stops growing at the
    /// buffer, whatever cwnd says. Absent: no send buffer (all offered data is in the
    /// socket), the classic model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snd_buffer: Option<Bytes>,
    /// Send-buffer autotuning (Linux `tcp_sndbuf_expand`): the buffer grows from `snd_buffer`
    /// to twice the congestion window's per-segment memory, up to this size (`tcp_wmem[2]`).
    /// Needs `snd_buffer`. Absent: a fixed `snd_buffer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snd_buffer_max: Option<Bytes>,
}

/// [`TcpSpec::rto`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoKind {
    #[default]
    Rfc6298,
    Linux,
}

impl RtoKind {
    fn is_rfc6298(&self) -> bool {
        *self == RtoKind::Rfc6298
    }
}

/// [`TcpSpec::rcv_space_adjust`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum RcvSpaceAdjustKind {
    #[default]
    #[serde(rename = "linux-6.1")]
    Linux6_1,
    #[serde(rename = "linux-2.6.23")]
    Linux2_6_23,
}

impl RcvSpaceAdjustKind {
    fn is_linux_6_1(&self) -> bool {
        *self == RcvSpaceAdjustKind::Linux6_1
    }
}

/// [`TcpSpec::local_congestion`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LocalCongestionKind {
    #[default]
    Cwr,
    Quench,
    Loss,
}

impl Default for TcpSpec {
    fn default() -> Self {
        TcpSpec {
            profile: None,
            variant: TcpVariant::default(),
            mss: default_mss(),
            initial_window: default_initial_window(),
            initial_ssthresh: None,
            initial_rto: None,
            min_rto: default_min_rto(),
            rto: RtoKind::default(),
            max_rto: default_max_rto(),
            dupack_threshold: default_dupack_threshold(),
            delayed_ack: true,
            delayed_ack_timeout: default_delayed_ack_timeout(),
            rcv_buffer: default_rcv_buffer(),
            handshake: None,
            trace: false,
            cwnd_validation: true,
            ecn: false,
            window_scaling: true,
            sack: false,
            rcv_buffer_max: None,
            adv_win_scale: None,
            rcv_space_adjust: RcvSpaceAdjustKind::default(),
            timestamps: false,
            paws: false,
            hystart: false,
            local_congestion: LocalCongestionKind::default(),
            rack: false,
            tlp: false,
            prr: false,
            frto: false,
            snd_buffer: None,
            snd_buffer_max: None,
        }
    }
}

fn default_initial_window() -> u32 {
    1
}
fn default_min_rto() -> Duration {
    Duration(SimTime::from_secs(1))
}
fn default_max_rto() -> Duration {
    Duration(SimTime::from_secs(64))
}
fn default_dupack_threshold() -> u32 {
    3
}
fn default_true() -> bool {
    true
}
fn default_delayed_ack_timeout() -> Duration {
    Duration(SimTime::from_millis(200))
}
fn default_rcv_buffer() -> Bytes {
    Bytes(64 * 1024)
}

fn default_mss() -> u32 {
    1448
}

/// TCP congestion-control variants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TcpVariant {
    Tahoe,
    Reno,
    #[default]
    Newreno,
    Cubic,
}
