//! The applications' parameters as the scenario format writes them (`flows.<name>.app`):
//! each traffic source registers its `kind` here, beside its model in this folder, and the
//! format (`crate::scenario`) re-exports them. The doc comments are user documentation (the
//! JSON Schema and `docs/scenario-reference.md`).

use crate::conf::{Bytes, Duration, Rate};
use crate::engine::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Inter-arrival distribution of an on/off source's periods.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PeriodDistribution {
    /// Exponentially distributed periods with the given means (ns-3 OnOff's usual setup).
    #[default]
    Exponential,
    /// Fixed periods.
    Constant,
}

crate::kind_enum! {
    /// Traffic generators. `size` is the application payload per packet in bytes (as iperf
    /// `-l` or D-ITG `-c`); rates are payload bit rates.
    pub enum AppSpec as "application kind" {
        /// Constant bit rate: one `size`-byte packet every `interval` (or at `rate`).
        "cbr" => Cbr(CbrSpec),
        /// Poisson arrivals: exponential inter-arrival times with mean `interval` (or size × 8 / rate).
        "poisson" => Poisson(PoissonSpec),
        /// On/off source: CBR at `rate` during on periods, silent during off periods (ns-3 OnOffApplication).
        "onoff" => Onoff(OnoffSpec),
        /// Bulk transfer over TCP (FTP-like): sends as fast as the window allows; with `bytes`,
        /// a file whose completion time is recorded.
        "bulk" => Bulk(BulkSpec),
        /// Message source over TCP (the thesis, seed 001 §4: fixed-size messages at rate λ).
        "message" => Message(MessageSpec),
        /// Web-like browsing over TCP (seed 002 §II): pages of a main object and 1–6 auxiliary
        /// objects with Pareto sizes, fetched over parallel connections, with think times
        /// between pages; page response times are recorded. `from` is the web server.
        "web" => Web(WebSpec),
        /// Voice over RTP/UDP as D-ITG generates it (seeds 000 and 002): G.711 or G.729 frames,
        /// a constant packet rate, no silence suppression. One direction of a call.
        "voice" => Voice(VoiceSpec),
        /// Video over UDP as seed 000 (Table 2) generates it with D-ITG: a constant number of
        /// packets per second of a constant size.
        "video" => Video(VideoSpec),
        /// Ping: ICMP echo requests at a fixed interval, answered by the destination; the
        /// round-trip times are recorded (the RTT probe of seed 003's DFQ).
        "ping" => Ping(PingSpec),
    }
}

/// Constant bit rate: one `size`-byte packet every `interval` (or at `rate`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbrSpec {
    /// Payload bytes per packet.
    #[schemars(range(min = 1))]
    pub size: u32,
    /// Payload rate; the interval is size × 8 / rate. Give `rate` or `interval`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Time between packets. Give `rate` or `interval`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
}

/// Poisson arrivals: exponential inter-arrival times with mean `interval` (or size × 8 / rate).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoissonSpec {
    /// Payload bytes per packet.
    #[schemars(range(min = 1))]
    pub size: u32,
    /// Mean payload rate. Give `rate` or `interval`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Mean time between packets. Give `rate` or `interval`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
}

/// On/off source: CBR at `rate` during on periods, silent during off periods
/// (ns-3 OnOffApplication).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnoffSpec {
    /// Payload bytes per packet.
    #[schemars(range(min = 1))]
    pub size: u32,
    /// Payload rate while on.
    pub rate: Rate,
    /// Mean (or fixed) length of an on period.
    pub on: Duration,
    /// Mean (or fixed) length of an off period.
    pub off: Duration,
    /// "exponential" (default) or "constant" period lengths.
    #[serde(default)]
    pub distribution: PeriodDistribution,
}

/// Bulk transfer over TCP (FTP-like): sends as fast as the window allows; with `bytes`, a
/// file whose completion time is recorded.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkSpec {
    /// Bytes to send; unlimited when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<Bytes>,
}

/// Message source over TCP (the thesis, seed 001 §4: fixed-size messages at rate λ): every
/// `interval` (mean, with `distribution = "poisson"`) the application writes `size` bytes
/// into the connection.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageSpec {
    /// Bytes per message (the thesis: 1460).
    #[schemars(range(min = 1))]
    pub size: u32,
    /// Message payload rate; the interval is size × 8 / rate. Give `rate` or `interval`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// (Mean) time between messages. Give `rate` or `interval`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
    /// "poisson" (default, exponential gaps) or "constant".
    #[serde(default)]
    pub distribution: ArrivalDistribution,
}

/// Web-like browsing (seed 002 §II): "Every page downloaded has a main file plus a random
/// number of auxiliary files; this random number takes values between 1 and 6. After each
/// page download, there is an inactive think time. The files ... are sampled from a Pareto
/// distribution (tail exponent 1.1) with an average file size of 20 kB ... downloaded in
/// parallel over separate TCP connections."
///
/// A page starts with the main object on one connection; when it has arrived, the
/// auxiliary objects are fetched over up to `parallel` connections at once, each its own TCP
/// connection (HTTP/1.0 style: a new connection, a new handshake, a new slow start per
/// object). The page's response time runs from the request of the main object to the
/// arrival of the last byte of the last object; the think time starts then.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSpec {
    /// Mean object size (seed 002: 20 kB).
    #[serde(default = "default_web_mean_size")]
    pub mean_size: Bytes,
    /// Tail exponent α of the Pareto object sizes, P(X > x) = (x_m / x)^α (seed 002: 1.1);
    /// must exceed 1 for the mean to exist. The scale is x_m = mean · (α − 1) / α.
    #[serde(default = "default_web_shape")]
    pub shape: f64,
    /// Fewest auxiliary objects per page (seed 002: 1); the count is uniform on
    /// [aux_min, aux_max].
    #[serde(default = "default_web_aux_min")]
    pub aux_min: u32,
    /// Most auxiliary objects per page (seed 002: 6).
    #[serde(default = "default_web_aux_max")]
    pub aux_max: u32,
    /// Mean think time between the end of a page and the next request. Seed 002 gives no
    /// value; 5 s is our default.
    #[serde(default = "default_web_think_time")]
    pub think_time: Duration,
    /// "exponential" (default) or "constant" think times.
    #[serde(default)]
    pub think_distribution: PeriodDistribution,
    /// Most auxiliary objects fetched at once, each over its own connection (browsers of
    /// the time opened 4–6 per server; 6 fetches every page's auxiliaries in parallel).
    #[serde(default = "default_web_parallel")]
    pub parallel: u32,
}

impl Default for WebSpec {
    fn default() -> Self {
        WebSpec {
            mean_size: default_web_mean_size(),
            shape: default_web_shape(),
            aux_min: default_web_aux_min(),
            aux_max: default_web_aux_max(),
            think_time: default_web_think_time(),
            think_distribution: PeriodDistribution::Exponential,
            parallel: default_web_parallel(),
        }
    }
}

fn default_web_mean_size() -> Bytes {
    Bytes(20_000)
}
fn default_web_shape() -> f64 {
    1.1
}
fn default_web_aux_min() -> u32 {
    1
}
fn default_web_aux_max() -> u32 {
    6
}
fn default_web_think_time() -> Duration {
    Duration(SimTime::from_secs(5))
}
fn default_web_parallel() -> u32 {
    6
}

/// Voice over RTP/UDP with D-ITG's codec model (`ITGSend -a VoIP -x <codec> -h <header>`):
/// each packet carries `frames_per_packet` 10-ms codec frames plus the RTP header, at a
/// constant rate. G.711 with 2 frames is the usual 20-ms packetization (160 B of speech, 200-B
/// IP packets: seed 002's "G.711 coding, 200-B packets"); with 1 frame (D-ITG's default
/// `G.711.1`) it is 100 packets/s of 80 B + 12 B RTP = 120-B IP packets, the Voice flow of
/// seed 000's Table 2.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VoiceSpec {
    /// "g711" (64 kbit/s: 80 B per 10-ms frame) or "g729" (8 kbit/s: 10 B per frame).
    #[serde(default)]
    pub codec: VoiceCodec,
    /// Codec frames of 10 ms per packet (D-ITG's "samples"): 2 gives 20-ms packets (default).
    #[serde(default = "default_voice_frames")]
    #[schemars(range(min = 1))]
    pub frames_per_packet: u32,
    /// Header inside the UDP payload: "rtp" (12 B, default) or "crtp" (compressed RTP, 2 B).
    #[serde(default)]
    pub header: VoiceHeader,
    /// When the first packet leaves: "aligned" (default: at `start`, so calls started
    /// together send in step) or "random" (at a uniformly random offset within one packet
    /// interval after `start`: independent phones are not in step, and calls started on
    /// whole seconds would otherwise all send in the same instant every 20 ms and collide).
    #[serde(default)]
    pub phase: VoicePhase,
}

/// The phase of a voice source's packets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VoicePhase {
    /// The first packet at the flow's `start`.
    #[default]
    Aligned,
    /// The first packet at `start` + U[0, interval) (its own random stream).
    Random,
}

fn default_voice_frames() -> u32 {
    2
}

/// Voice codecs (10-ms frames).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VoiceCodec {
    /// ITU-T G.711 PCM, 64 kbit/s: 80 bytes per 10 ms.
    #[default]
    G711,
    /// ITU-T G.729, 8 kbit/s: 10 bytes per 10 ms.
    G729,
}

/// The header a voice packet carries inside UDP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VoiceHeader {
    /// RTP, 12 bytes (RFC 3550).
    #[default]
    Rtp,
    /// Compressed RTP, 2 bytes (RFC 2508, as D-ITG models it).
    Crtp,
}

/// Video over UDP as seed 000 generates it with D-ITG (Table 2: 10 packets/s for the
/// Bluetooth client, 45 for the WLAN client, 1500 bytes each).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VideoSpec {
    /// Packets per second, sent at constant intervals.
    pub packets_per_second: f64,
    /// UDP payload bytes per packet. Default 1472, a 1500-byte IP packet: Table 2's size read
    /// as the packet size (as a payload it would need IP fragmentation, not modelled).
    #[serde(default = "default_video_size")]
    #[schemars(range(min = 1))]
    pub size: u32,
}

fn default_video_size() -> u32 {
    1472
}

/// Ping (`ping -i interval -s size`): an ICMP echo request every `interval`; the destination
/// answers each with an echo reply of the same size, and the source records the round trip.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PingSpec {
    /// Time between echo requests (ping's default: 1 s).
    #[serde(default = "default_ping_interval")]
    pub interval: Duration,
    /// ICMP data bytes per request (ping's default: 56, an 84-byte IP packet).
    #[serde(default = "default_ping_size")]
    pub size: u32,
}

fn default_ping_interval() -> Duration {
    Duration(SimTime::from_secs(1))
}
fn default_ping_size() -> u32 {
    56
}

/// Inter-arrival law of a message source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalDistribution {
    /// Exponential gaps (a Poisson process).
    #[default]
    Poisson,
    /// Fixed gaps.
    Constant,
}
