//! The scenario format: what a TOML scenario file may say, with defaults.
//!
//! The doc comments here are the user documentation: they become the descriptions of the
//! JSON Schema (`airqueue schema`) and of `docs/scenario-reference.md`. Keys use the words
//! of `tc`, `ip link`, iperf and the seed papers.

pub use crate::app::spec::*;
pub use crate::channel::GeModelConf;
use crate::conf::default_mtu;
pub use crate::conf::units::{Bytes, Duration, Probability, Rate};
use crate::engine::SimTime;
pub use crate::link::netem::spec::*;
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
}

/// A wired full-duplex point-to-point link; each end is an interface `<node>.<link>`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Unique name; the interfaces are `<node>.<name>` for both ends.
    pub name: String,
    /// The two nodes the link joins.
    pub between: [String; 2],
    /// Line rate in each direction, e.g. "10Mbit".
    pub rate: Rate,
    /// One-way propagation delay, e.g. "20ms".
    #[serde(default)]
    pub delay: Duration,
    /// Bytes of framing added to every packet's serialization time (tc's `overhead`;
    /// 0 = a bare IP point-to-point link, 38 = Ethernet preamble+header+FCS+gap).
    #[serde(default)]
    pub overhead: Bytes,
    /// Largest IP datagram the link carries, in bytes.
    #[serde(default = "default_mtu")]
    #[schemars(range(min = 68, max = 65535))]
    pub mtu: u32,
    /// Bytes of link-layer header that the qdiscs on this link's interfaces count in every
    /// packet's length, as Linux's `skb->len` includes the 14 B Ethernet header on Ethernet
    /// and veth devices (tbf and htb then charge 1514 B for a 1500 B datagram). Default 0:
    /// a raw-IP device (tun, ppp). Serialization time uses `overhead`, not this.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub link_header: u32,
    /// Optional netem-like impairment applied to both directions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impairment: Option<ImpairmentSpec>,
    /// An asymmetric link: what differs in the direction from `between[1]` to
    /// `between[0]` (an ADSL line, a satellite return channel). Keys left out are the
    /// link's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<LinkDirectionSpec>,
}

/// The direction `between[1]` → `between[0]` of an asymmetric link.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkDirectionSpec {
    /// Line rate in this direction, e.g. "1Mbit" for an ADSL uplink.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// One-way propagation delay in this direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
    /// The impairment of this direction instead of the link's (`{}` for none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impairment: Option<ImpairmentSpec>,
}

impl LinkSpec {
    /// Line rate of the direction leaving `between[end]`, bit/s.
    pub fn rate_from(&self, end: usize) -> u64 {
        match (&self.reverse, end) {
            (Some(LinkDirectionSpec { rate: Some(r), .. }), 1) => r.bps(),
            _ => self.rate.bps(),
        }
    }

    /// Propagation delay of the direction leaving `between[end]`.
    pub fn delay_from(&self, end: usize) -> Duration {
        match (&self.reverse, end) {
            (Some(LinkDirectionSpec { delay: Some(d), .. }), 1) => *d,
            _ => self.delay,
        }
    }

    /// Impairment of the direction leaving `between[end]`.
    pub fn impairment_from(&self, end: usize) -> Option<&ImpairmentSpec> {
        match (&self.reverse, end) {
            (
                Some(LinkDirectionSpec {
                    impairment: Some(i),
                    ..
                }),
                1,
            ) => Some(i),
            _ => self.impairment.as_ref(),
        }
    }
}

fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

/// A shared half-duplex segment: every node on it reaches every other, one frame at a time.
///
/// The channel is busy from the start of a frame's serialization (size + `overhead` at
/// `rate`) until its last bit has propagated (`delay` later); ports that want to send wait
/// for it in the order they asked (FIFO arbitration, ns-3's `CsmaChannel` without
/// collisions or back-off). Each node gets an interface `<node>.<name>`, with its own qdisc.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SegmentSpec {
    /// Unique name (among links and segments); the interfaces are `<node>.<name>`.
    pub name: String,
    /// The nodes on the segment (at least two, each once).
    pub nodes: Vec<String>,
    /// The segment's bit rate, shared by all its nodes, e.g. "100Mbit".
    pub rate: Rate,
    /// Propagation delay from any node to any other, e.g. "5us".
    #[serde(default)]
    pub delay: Duration,
    /// Bytes of framing added to every frame's serialization time (38 = Ethernet).
    #[serde(default)]
    pub overhead: Bytes,
    /// Largest IP datagram the segment carries, in bytes.
    #[serde(default = "default_mtu")]
    #[schemars(range(min = 68, max = 65535))]
    pub mtu: u32,
}

/// An IEEE 802.11 infrastructure BSS: an access point and its stations on one channel,
/// sharing it with the DCF (IEEE 802.11-2016 §10.3): binary exponential back-off, MAC
/// ACKs, RTS/CTS above `rts_threshold`, retry limits. Every node gets an interface
/// `<node>.<name>`; stations reach only the AP (station-to-station traffic goes through
/// it), the AP reaches every station and bridges them to its other links by routing. Each
/// interface has a driver buffer of `buffer` packets below its qdisc. Frames between the
/// AP and a station go at that station's fixed PHY `rate` (rate control off, as ns-3's
/// `ConstantRateWifiManager`). With `mode = "adhoc"` the cell is an IBSS instead: no AP,
/// every station reaches every other directly and sends at its own `rate`. A node may be
/// in several cells (one interface each, e.g. on channels 1, 6 and 11). See docs/wifi.md.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellSpec {
    /// Unique name (among links, segments and cells); the interfaces are `<node>.<name>`.
    pub name: String,
    /// The PHY: "802.11b" (DSSS/CCK 1–11 Mb/s), "802.11a" (OFDM 6–54 Mb/s) or "802.11g"
    /// (both; OFDM frames with the 6 µs signal extension), as ns-3's `WifiHelper::SetStandard`.
    pub standard: String,
    /// "infrastructure" (default: an AP and its stations) or "adhoc" (an IBSS, IEEE
    /// 802.11-2016 §11.1.4: no AP, every station reaches every other directly, for
    /// node-to-node trunks and multi-hop chains, seed 004 §4.2.8).
    #[serde(default)]
    pub mode: CellMode,
    /// The access point's node (infrastructure cells; an ad hoc cell has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ap: Option<String>,
    /// Channel number (e.g. 1, 6, 11 for b/g; 36, 40, … for a). Cells with the same
    /// `channel` share one medium: all their interfaces contend for it and collide with each
    /// other (co-channel cells); they must then agree on every PHY and MAC key. Different
    /// channels (or no `channel`) are independent media; partial overlap of adjacent 2.4 GHz
    /// channels is not modelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<u32>,
    /// The stations (at least one).
    pub stations: Vec<CellStationSpec>,
    /// PHY rate of stations that do not set their own (default: the standard's highest,
    /// 11Mbit for b, 54Mbit for a and g). One of the standard's rates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Short PLCP preamble for DSSS rates above 1 Mb/s (`iw … set bitrates` / hostapd
    /// `preamble=1`); 802.11b and g only.
    #[serde(default)]
    pub short_preamble: bool,
    /// BSSBasicRateSet (control responses go at the highest basic rate not above the
    /// eliciting frame's, IEEE 802.11-2016 §10.6.6.5.2). Default: b ["1Mbit", "2Mbit"], a
    /// ["6Mbit", "12Mbit", "24Mbit"], g both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_rates: Option<Vec<Rate>>,
    /// aSlotTime override (default: b 20us, a 9us, g 9us = short slot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<Duration>,
    /// aSIFSTime override (default: b and g 10us, a 16us).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sifs: Option<Duration>,
    /// aCWmin override (default: b 31, a and g 15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cw_min: Option<u32>,
    /// aCWmax override (default 1023).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cw_max: Option<u32>,
    /// MPDUs longer than this many bytes are preceded by RTS/CTS (`iw phy … set rts`;
    /// ns-3's `RtsCtsThreshold`). Default 2347: off. An MPDU is the IP packet + 36 B.
    #[serde(default = "default_rts_threshold")]
    pub rts_threshold: u32,
    /// dot11ShortRetryLimit: attempts of a frame not longer than `rts_threshold` (and of
    /// its RTS).
    #[serde(default = "default_short_retry")]
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit: attempts of a data frame sent after RTS/CTS.
    #[serde(default = "default_long_retry")]
    pub long_retry_limit: u32,
    /// Driver buffer (hardware queue) of every interface on the cell, in packets, below
    /// its qdisc (seed 002's testbed AP: 100).
    #[serde(default = "default_cell_buffer")]
    #[schemars(range(min = 1))]
    pub buffer: u32,
    /// The AP's driver buffer, if it differs from `buffer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ap_buffer: Option<u32>,
    /// Largest IP datagram, bytes (802.11 carries up to 2304 B; 1500 as bridged Ethernet).
    #[serde(default = "default_mtu")]
    #[schemars(range(min = 68, max = 2304))]
    pub mtu: u32,
    /// A QoS BSS: EDCA (IEEE 802.11-2016 §10.22.2) instead of the DCF. Every interface
    /// then has four access categories (AC_BK, AC_BE, AC_VI, AC_VO) with their own queue
    /// in the driver buffer, back-off and TXOP; a packet's AC follows from its DSCP as
    /// Linux's `cfg80211_classify8021d` maps it (EF → AC_VO, CS3/AF3x/CS4/AF4x/CS5 →
    /// AC_VI, CS1 → AC_BK, others AC_BE). Default false (the DCF).
    #[serde(default)]
    pub qos: bool,
    /// EDCA parameter overrides per access category (with `qos`); the defaults are
    /// 802.11-2016 Table 9-137 for the PHY (e.g. 802.11a: BE AIFSN 3 CW 15–1023, VO AIFSN
    /// 2 CW 3–7 TXOP 1504us).
    #[serde(default, skip_serializing_if = "EdcaSpec::is_default")]
    pub edca: EdcaSpec,
    /// The AP's queues below its qdisc: "driver" (a FIFO of `ap_buffer`/`buffer` packets,
    /// seed 002's testbed) or "mac80211" (Linux's per-station, per-AC FQ-CoDel queues with
    /// the airtime-fair scheduler of "Ending the Anomaly", USENIX ATC 2017; the qdisc above
    /// then holds nothing, as mac80211 runs with noqueue). See docs/wifi.md.
    #[serde(default)]
    pub ap_queues: ApQueuesKind,
    /// With "mac80211": schedule stations by air time (default true; false = plain round
    /// robin of packets, mac80211 without airtime fairness).
    #[serde(default = "default_true_cell")]
    pub airtime_fairness: bool,
    /// With "mac80211": air time added to a station's deficit per round (mac80211's
    /// default airtime weight, 256us).
    #[serde(default = "default_airtime_quantum")]
    pub airtime_quantum: Duration,
    /// Rate control of stations that do not set their own: "fixed" (default),
    /// "minstrel", "arf" or "aarf".
    #[serde(default)]
    pub rate_control: RateControlKind,
    /// Reception of overlapping frames: "none" (default: an overlap destroys every frame it
    /// touches, Bianchi's collision model) or "sinr" (ns-3's InterferenceHelper: a receiver
    /// locks onto the first frame it detects, the strongest of those starting within 4 µs,
    /// and keeps it with the probability of success of its PLCP header and payload at the
    /// SINR of each interval of overlap, the modulation's BER curve; later frames are
    /// interference). Runs the per-station medium; without positions every frame arrives
    /// at ns-3's default power 1 m away (−30.66 dBm), so equal-power overlaps are judged
    /// at 0 dB (a 2 Mb/s DQPSK RTS survives one, an 11 Mb/s CCK frame does not). See
    /// docs/wifi.md, "Capture".
    #[serde(default, skip_serializing_if = "CaptureKind::is_none")]
    pub capture: CaptureKind,
    /// With `capture = "sinr"`: ns-3's `SimpleFrameCaptureModel` as well: a receiver drops
    /// the frame it is receiving for a later one at least 5 dB stronger that starts within
    /// 16 µs of the first's preamble detection. Default false (ns-3's default: no frame
    /// capture model).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub frame_capture: bool,
}

/// How a receiver treats overlapping frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CaptureKind {
    /// Every frame of an overlap is lost.
    #[default]
    None,
    /// SINR-based reception, as ns-3's interference helper.
    Sinr,
}

impl CaptureKind {
    fn is_none(&self) -> bool {
        *self == CaptureKind::None
    }
}

impl CellSpec {
    /// The cell's nodes in port order: the AP (if any), then the stations.
    pub fn members(&self) -> impl Iterator<Item = &String> {
        self.ap
            .iter()
            .chain(self.stations.iter().map(|st| &st.node))
    }
}

/// How a cell's stations reach each other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CellMode {
    /// A BSS: stations reach only the AP, which relays (IEEE 802.11-2016 §4.3.5).
    #[default]
    Infrastructure,
    /// An IBSS: every station reaches every other directly (§11.1.4).
    Adhoc,
}

/// The AP's queues below its qdisc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ApQueuesKind {
    /// A FIFO driver buffer of `ap_buffer` (or `buffer`) packets.
    #[default]
    Driver,
    /// mac80211's per-station FQ-CoDel TXQs and airtime fairness.
    Mac80211,
}

fn default_true_cell() -> bool {
    true
}

fn default_airtime_quantum() -> Duration {
    Duration(crate::engine::SimTime::from_micros(256))
}

/// EDCA parameter overrides of a QoS cell, per access category.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EdcaSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bk: Option<EdcaAcSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub be: Option<EdcaAcSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vi: Option<EdcaAcSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vo: Option<EdcaAcSpec>,
}

impl EdcaSpec {
    pub fn is_default(&self) -> bool {
        *self == EdcaSpec::default()
    }
}

/// One access category's EDCA parameters (absent keys keep the default).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EdcaAcSpec {
    /// AIFS = SIFS + aifsn slots (1 … 15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aifsn: Option<u32>,
    /// CWmin, 2^k − 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cw_min: Option<u32>,
    /// CWmax, 2^k − 1, not below cw_min.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cw_max: Option<u32>,
    /// TXOP limit ("0us": one frame exchange per channel access).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txop: Option<Duration>,
}

/// A Bluetooth BR piconet (thesis, seed 001, §2.1 and §3.1): a master polls up to seven
/// active slaves in 625 µs TDD slots; every node gets an interface `<node>.<name>` (IP over
/// BNEP); slaves reach only the master, which routes slave-to-slave traffic. IP packets are
/// segmented by L2CAP into ACL baseband packets; with `flow_control` each slave's L2CAP
/// token bucket meters them into its baseband buffer. See docs/bluetooth.md.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PiconetSpec {
    /// Unique name (among links, segments, cells and piconets); the interfaces are
    /// `<node>.<name>`.
    pub name: String,
    /// The master's node.
    pub master: String,
    /// The active slaves' nodes (1 to 7), polled in this order.
    pub slaves: Vec<String>,
    /// Intra-piconet polling (thesis §2.3.1): "1-limited" (round robin), "exhaustive",
    /// "e-limited" with `limit` = M frames per visit, or "lwrr" (Limited and Weighted Round
    /// Robin: E-limited visits, idle slaves polled less often; `limit` optional).
    #[serde(default = "default_polling")]
    pub polling: String,
    /// M of E-limited polling: at most this many frames per visit (the thesis's M, 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// LWRR's MP: the largest weight; a slave found idle repeatedly is polled only every
    /// MP-th cycle (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_priority: Option<u32>,
    /// L2CAP segmentation: "osu" (minimum number of baseband packets: a 1500-byte IP packet
    /// is 4 DH5 + 1 DH3) or "best-fit".
    #[serde(default = "default_sar")]
    pub sar: String,
    /// Allowed ACL packet types (HCI Packet_Type), from "DM1", "DH1", "DM3", "DH3", "DM5",
    /// "DH5". Default: DH1, DH3, DH5 (the thesis's).
    #[serde(default = "default_packet_types")]
    pub packet_types: Vec<String>,
    /// Bytes added to each IP packet before segmentation: L2CAP header (4) + BNEP
    /// compressed Ethernet header (3).
    #[serde(default = "default_bt_overhead")]
    pub overhead: u32,
    /// Largest IP packet, bytes (BNEP carries up to 1691 − 15).
    #[serde(default = "default_mtu")]
    #[schemars(range(min = 68, max = 1676))]
    pub mtu: u32,
    /// L: each slave's baseband buffer, in baseband packets (thesis Table 3.1: 20).
    #[serde(default = "default_slave_buffer")]
    #[schemars(range(min = 1))]
    pub slave_buffer: u32,
    /// The master's downlink buffer, IP packets for all slaves together (the thesis's
    /// "large enough" master buffer).
    #[serde(default = "default_master_buffer")]
    #[schemars(range(min = 1))]
    pub master_buffer: u32,
    /// Baseband ARQ: retransmit a corrupted baseband packet until it arrives (off in the
    /// thesis, §3.2.3: TCP recovers the losses).
    #[serde(default)]
    pub arq: bool,
    /// L2CAP token-bucket flow control at every slave (thesis §3.1); none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow_control: Option<FlowControlSpec>,
    /// Each master–slave link's channel: `ber`, or `gilbert_elliott` (one chain per link,
    /// the thesis's IPL); perfect when absent (the thesis's PPL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<crate::channel::ChannelConf>,
    /// How a `gilbert_elliott` link's state meets a packet: "per-bit" (each state applies
    /// to its share of the packet's bits; the default) or "per-packet" (the state when
    /// the packet reaches its receiver sets the whole packet's error rate, as the thesis's
    /// simulator does, §4.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_state: Option<String>,
    /// On a shared `spectrum`: "none" (plain 79-channel hopping, the default), "afh"
    /// (adaptive frequency hopping: channels whose packet error rate over 2 s exceeds
    /// one half leave the hop set, at least 20 stay; Bluetooth Core 1.2) or "bias" (the
    /// master does not poll on hops classified bad; the hop set stays 79 channels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coexistence: Option<String>,
}

/// A walk-in slave/slave bridge joining two piconets into a scatternet (thesis, seed 001,
/// §2.3.2, §3.1.1, §3.2.3): the node is listed among the slaves of both piconets, has one
/// radio and stays one piconet cycle in each in turn, starting in the first. Each master
/// polls it E-limited with `limit` = M_b frames (after an opening POLL that finds whether
/// it is there); its buffer in each piconet holds `buffer` baseband packets. See
/// docs/bluetooth.md.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BridgeSpec {
    /// The bridge's node, a slave in both piconets.
    pub node: String,
    /// The two piconets it joins; it starts in the first.
    pub piconets: Vec<String>,
    /// M_b, frames per visit after the opening POLL; default n·M in each piconet (n its
    /// other active slaves, M its `limit`; the thesis's choice, Table 3.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// The bridge's buffer in each piconet, baseband packets; default M_b (Table 3.1:
    /// "bridge buffer size = n·M") plus the baseband packets of one MTU-sized IP packet
    /// less one: our bridge forwards whole IP packets, the thesis's relays baseband
    /// packets, and one visit of M_b frames may complete that much.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub buffer: Option<u32>,
    /// Where the second piconet's slot clock stands against the first's, below 1.25 ms
    /// (2T): the bridge waits up to this long for the other master's next frame (§2.1.1's
    /// clock synchronisation delay, 0 to 2T). Default: drawn uniformly from the run's seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_offset: Option<Duration>,
    /// How long it stays in a piconet: "cycle" (the default, the thesis's §3.1.1 read
    /// literally: one piconet cycle from its arrival, until the master has started a
    /// visit to every member once) or "visit" (it leaves as soon as its own visit ends:
    /// the rest of the master's cycle counted from the bridge's place in the polling
    /// order; the reading that matches the thesis's scatternet goodput and RTT,
    /// docs/reproductions/venugopal-2006.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residence: Option<String>,
}

impl BridgeSpec {
    /// M_b in piconet `p`: `limit`, else n·M (n the other active slaves, M the
    /// piconet's frames per visit); `None`: unbounded (an exhaustive piconet).
    pub fn m_b(&self, p: &PiconetSpec) -> Option<u32> {
        if let Some(l) = self.limit {
            return Some(l);
        }
        let m = match p.polling.as_str() {
            "1-limited" => 1,
            "exhaustive" => return None,
            _ => p.limit?,
        };
        Some(
            (p.slaves.len() as u32)
                .saturating_sub(1)
                .max(1)
                .saturating_mul(m),
        )
    }

    /// The bridge's buffer in piconet `p`, baseband packets, where an MTU-sized IP packet
    /// is `segs` of them: `buffer`, else M_b + segs − 1 — the thesis's M_b (Table 3.1)
    /// plus the rest of one IP packet, since our bridge forwards whole IP packets (it
    /// reassembles) where the thesis's relays baseband packets one by one: what one visit
    /// of M_b frames completes then fits (see docs/bluetooth.md).
    pub fn buffer_in(&self, p: &PiconetSpec, segs: u32) -> Option<u32> {
        self.buffer.or_else(|| {
            self.m_b(p)
                .map(|m| m.saturating_add(segs.saturating_sub(1)))
        })
    }
}

/// The shared 2.4 GHz spectrum (Golmie, Van Dyck, Soltanian 2001): every member's
/// transmissions are registered on their band (a Bluetooth hop's 1 MHz, an 802.11b
/// channel's 22 MHz) and each received packet's bit errors follow its SINR over time.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpectrumSpec {
    /// Names of the piconets and 802.11b/g cells (with a `channel`) that share the band.
    pub members: Vec<String>,
    /// Node positions in metres, `node = [x, y]`; nodes not listed stand at the origin.
    /// Radios of one node (a dual-mode access point) are `min_distance` apart.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub positions: std::collections::BTreeMap<String, [f64; 2]>,
    /// Path loss between any two radios (wanted signal and interference alike); default
    /// free space at 2441 MHz.
    #[serde(default = "default_spectrum_path_loss")]
    pub path_loss: crate::channel::PathLossConf,
    /// Bluetooth transmit power (EIRP), dBm: 0 (1 mW, class 3, as Golmie et al.).
    #[serde(default)]
    pub bluetooth_power_dbm: f64,
    /// 802.11 transmit power (EIRP), dBm: 14 (25 mW).
    #[serde(default = "default_wlan_power")]
    pub wlan_power_dbm: f64,
    /// Receivers' noise figure, dB (7); the noise is kTB over 1 MHz (Bluetooth) or 22 MHz.
    #[serde(default = "default_spectrum_nf")]
    pub noise_figure_db: f64,
    /// Shortest distance between two radios, metres (two on one node): 0.1.
    #[serde(default = "default_min_distance")]
    pub min_distance: f64,
}

fn default_spectrum_path_loss() -> crate::channel::PathLossConf {
    crate::channel::PathLossConf::Friis
}
fn default_wlan_power() -> f64 {
    14.0
}
fn default_spectrum_nf() -> f64 {
    7.0
}
fn default_min_distance() -> f64 {
    0.1
}

/// Who hears whom on the 802.11 channels (IEEE 802.11-2016 §10.3.2.1 carrier sense, the
/// NAV of §10.3.2.4). Give `positions` (every node of a cell, metres) with the radio keys,
/// or `hears` (and optionally `senses`) naming pairs of nodes. A receiver decodes a frame
/// whose received power reaches `rx_threshold_dbm` and senses the medium busy (without
/// decoding: EIFS afterwards) down to `cs_threshold_dbm`; weaker frames do not exist for
/// it. Defaults are ns-3 3.37's `YansWifiPhy`: 16.0206 dBm, log-distance loss with
/// exponent 3 and 46.6777 dB at 1 m, preamble detection at −82 dBm, noise figure 7 dB.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PropagationSpec {
    /// Node positions in metres, `node = [x, y]`; with positions every node of every cell
    /// must be placed.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub positions: std::collections::BTreeMap<String, [f64; 2]>,
    /// Constant-velocity motion (ns-3's `ConstantVelocityMobilityModel`): from `at` on the
    /// node moves at `velocity` m/s from wherever it is; a later entry for the same node
    /// changes its velocity (waypoint legs); `[0, 0]` stops it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub motion: Vec<MotionSpec>,
    /// Path loss between any two radios: default log-distance, exponent 3, 46.6777 dB at
    /// 1 m (ns-3's `LogDistancePropagationLossModel`); `{ model = "friis" }` is free space
    /// at `frequency_mhz`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_loss: Option<crate::channel::PathLossConf>,
    /// Carrier frequency for Friis and the default log-distance reference, MHz (2437).
    #[serde(default = "default_prop_frequency")]
    pub frequency_mhz: f64,
    /// Transmit power (EIRP) of every radio, dBm (ns-3: 16.0206 = 40 mW).
    #[serde(default = "default_prop_tx_power")]
    pub tx_power_dbm: f64,
    /// A frame is decoded (and its NAV honoured) at or above this power, dBm (−82: ns-3
    /// 3.37's preamble detection, 802.11-2016 §17.3.10.6's CCA sensitivity).
    #[serde(default = "default_prop_rx_threshold")]
    pub rx_threshold_dbm: f64,
    /// The medium is sensed busy at or above this power, dBm (default: `rx_threshold_dbm`,
    /// as ns-3 3.37 where carrier sense follows preamble detection; lower it for a
    /// carrier-sense range beyond the decode range, e.g. ns-2's 550 m vs 250 m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cs_threshold_dbm: Option<f64>,
    /// Receiver noise figure, dB (7); noise = kTB + NF over 22 MHz (DSSS) or 20 MHz
    /// (OFDM). With positions a station's data-frame errors follow the SNR of each frame
    /// at its PHY rate (the channel module's BER curves) unless it sets `ber` or `snr_db`.
    #[serde(default = "default_spectrum_nf")]
    pub noise_figure_db: f64,
    /// Explicit hearing graph instead of positions: pairs of nodes that decode each other
    /// (both ways). Pairs not listed do not hear each other at all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hears: Vec<[String; 2]>,
    /// With `hears`: pairs that sense each other busy but cannot decode (EIFS after).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub senses: Vec<[String; 2]>,
    /// Run the per-station medium even where every interface hears every other (for
    /// validation against the one-collision-domain model; slower). Default false: such
    /// channels keep the shared-slot fast path.
    #[serde(default)]
    pub per_station: bool,
}

/// A leg of a node's motion.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MotionSpec {
    pub node: String,
    /// From when, e.g. "0s".
    #[serde(default)]
    pub at: Duration,
    /// Velocity in m/s, `[vx, vy]`, e.g. [0.7, 0].
    pub velocity: [f64; 2],
}

fn default_prop_frequency() -> f64 {
    2437.0
}
fn default_prop_tx_power() -> f64 {
    16.0206
}
fn default_prop_rx_threshold() -> f64 {
    -82.0
}

/// L2CAP token-bucket flow control (thesis §3.1, Fig. 1.1(b)).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowControlSpec {
    /// tb: the token rate, e.g. "250kbit".
    pub token_rate: Rate,
    /// The token bucket's capacity (thesis Table 3.1: "3KB"); at least the largest
    /// allowed packet's payload.
    #[serde(default = "default_token_depth")]
    pub token_depth: Bytes,
    /// S: the token buffer, in baseband packets (thesis: 5 to 25); a baseband packet that
    /// finds it full is rejected and its IP packet is lost.
    pub buffer: u32,
}

fn default_polling() -> String {
    "1-limited".into()
}
fn default_sar() -> String {
    "osu".into()
}
fn default_packet_types() -> Vec<String> {
    vec!["DH1".into(), "DH3".into(), "DH5".into()]
}
fn default_bt_overhead() -> u32 {
    7
}
fn default_slave_buffer() -> u32 {
    20
}
fn default_master_buffer() -> u32 {
    1000
}
fn default_token_depth() -> Bytes {
    Bytes(3000)
}

/// A station of a cell.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellStationSpec {
    /// The station's node. With `count`, `{i}` is replaced by 0…count−1 (or the index is
    /// appended), as for nodes.
    pub node: String,
    /// Expand this entry into `count` stations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// Its fixed PHY rate, both directions (default: the cell's `rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Its driver buffer, packets (default: the cell's `buffer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<u32>,
    /// Bit error rate of its data frames, both directions (PER = 1 − (1 − ber)^bits of the
    /// MPDU); a corrupted frame is not acknowledged and is retried.
    #[serde(default)]
    pub ber: Probability,
    /// Its SNR, dB, both directions: each attempt's frame errors follow the BER of the
    /// attempt's PHY rate at this SNR (the channel module's modulation curves: ns-3's
    /// DSSS and NIST OFDM models) instead of `ber`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snr_db: Option<f64>,
    /// Later SNRs, e.g. [{ at = "20s", snr_db = 8 }] (a station moving away).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snr_changes: Vec<SnrChange>,
    /// "fixed" (the `rate`; the seeds' setting), "minstrel" (Linux mac80211's rate
    /// control), "arf" or "aarf" choose the rate of both directions, reported in the link
    /// view. Default: the cell's `rate_control`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_control: Option<RateControlKind>,
}

/// A station's SNR from an instant on.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnrChange {
    pub at: Duration,
    pub snr_db: f64,
}

/// How a station's PHY rate is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RateControlKind {
    /// The fixed `rate` (ns-3's ConstantRateWifiManager).
    #[default]
    Fixed,
    /// Minstrel (Linux `rc80211_minstrel`): EWMA success probabilities per rate, 10 %
    /// look-around, multi-rate retry chain.
    Minstrel,
    /// ARF (Kamerman and Monteban 1997; ns-3's `ArfWifiManager`): up after 10
    /// consecutive successes or 15 attempts, down after 2 consecutive failures or a failed
    /// probe.
    Arf,
    /// AARF (Lacage et al. 2004; ns-3's `AarfWifiManager`): ARF whose failed probes double
    /// the success threshold (up to 60) and the timer.
    Aarf,
}

fn default_rts_threshold() -> u32 {
    2347
}
fn default_short_retry() -> u32 {
    7
}
fn default_long_retry() -> u32 {
    4
}
fn default_cell_buffer() -> u32 {
    100
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
    /// Lower bound of the retransmission timeout (RFC 6298: 1 s; Linux: 200 ms).
    #[serde(default = "default_min_rto")]
    pub min_rto: Duration,
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
    /// `rcv_buffer_max = "6MiB"`.
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
            variant: TcpVariant::default(),
            mss: default_mss(),
            initial_window: default_initial_window(),
            initial_ssthresh: None,
            min_rto: default_min_rto(),
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
            timestamps: false,
            paws: false,
            hystart: false,
            local_congestion: LocalCongestionKind::default(),
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
