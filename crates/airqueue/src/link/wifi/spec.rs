//! The 802.11 cells as the scenario format writes them (`[[cells]]`, `[propagation]`): the
//! spec of this folder's model ([`super::Cell`], the DCF/EDCA medium, and its per-station
//! hearing, [`super::dcf::hearing`]), beside the model, its checks (`checks.rs`) and
//! its builder (`build.rs`); the format (`crate::scenario`) re-exports it. The doc
//! comments are user documentation (the JSON Schema and `docs/scenario-reference.md`).

use crate::conf::{default_mtu, Duration, Probability, Rate};
use crate::link::air::spec::default_spectrum_nf;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    /// The PHY: "802.11b" (DSSS/CCK 1–11 Mb/s), "802.11a" (OFDM 6–54 Mb/s), "802.11g"
    /// (both; OFDM frames with the 6 µs signal extension), as ns-3's `WifiHelper::SetStandard`;
    /// or "802.11n" (HT), "802.11ac" (VHT) or "802.11ax" (HE SU), whose stations send at
    /// an `mcs` over `channel_width`, A-MPDUs under block ack (`aggregation`) with non-HT
    /// BlockAcks (docs/wifi.md, "HT, VHT and HE PHYs"). "b", "a", "g", "n", "ac", "ax"
    /// also work.
    pub standard: String,
    /// n and ax: the band, "2.4GHz" or "5GHz" (default "5GHz"; SIFS 10 us and a 6 us
    /// signal extension after OFDM PPDUs at 2.4 GHz, SIFS 16 us at 5 GHz). ac is 5 GHz
    /// only; b and g are 2.4 GHz, a 5 GHz (leave the key out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<BandKind>,
    /// n, ac, ax: channel width in MHz, 20 (default) or 40; ac and ax also 80 and 160
    /// (ax at 2.4 GHz: 20 or 40).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_width: Option<u32>,
    /// n, ac, ax: guard interval of the data symbols: n and ac "800ns" (default) or
    /// "400ns" (short GI); ax "800ns" (default), "1600ns" or "3200ns".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard_interval: Option<Duration>,
    /// n, ac, ax: MCS of stations that set no `mcs` or `rate` of their own. n: 0–31 in
    /// HT numbering (streams = mcs / 8 + 1, e.g. 15 = 2 streams of 64-QAM 5/6); ac: 0–9,
    /// ax: 0–11, each with `spatial_streams`. Default: the highest valid MCS (n 7; ac 9,
    /// or 8 at 20 MHz; ax 11). ac's MCS 9 is invalid at 20 MHz (except 3 streams), MCS 6
    /// at 80 MHz with 3 streams and MCS 9 at 160 MHz with 3 streams (IEEE 802.11-2020
    /// Tables 21-30 … 21-61).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcs: Option<u32>,
    /// ac and ax: spatial streams (1–4) of stations that set none (default 1). n carries
    /// the streams in its MCS number instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spatial_streams: Option<u32>,
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
    /// 11Mbit for b, 54Mbit for a and g). One of the standard's rates; in an n/ac/ax cell
    /// a non-HT rate of the band (non-HT PPDUs), the default there being `mcs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Short PLCP preamble for DSSS rates above 1 Mb/s (`iw … set bitrates` / hostapd
    /// `preamble=1`); 802.11b and g only.
    #[serde(default)]
    pub short_preamble: bool,
    /// BSSBasicRateSet (control responses go at the highest basic rate not above the
    /// eliciting frame's, IEEE 802.11-2016 §10.6.6.5.2). Default: b ["1Mbit", "2Mbit"], a
    /// ["6Mbit", "12Mbit", "24Mbit"], g both; n/ac/ax as a at 5 GHz and as g at 2.4 GHz
    /// (an HT/VHT/HE frame is answered at the highest basic rate not above its MCS's
    /// non-HT reference rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_rates: Option<Vec<Rate>>,
    /// aSlotTime override (default: b 20us, a, g, n, ac, ax 9us = short slot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<Duration>,
    /// aSIFSTime override (default: b, g and n/ax at 2.4 GHz 10us; a and n/ac/ax at 5 GHz
    /// 16us).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sifs: Option<Duration>,
    /// aCWmin override (default: b 31, the others 15).
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
    /// n, ac, ax: A-MPDU aggregation under block ack (IEEE 802.11-2020 §10.12, §10.25),
    /// e.g. `{ ampdu = true, max_ampdu_bytes = 65535, max_mpdus = 64 }`. Default: on, with
    /// ns-3's defaults (A-MPDUs up to 65535 bytes, the standard's window: 64 MPDUs for n
    /// and ac, 256 for ax; no A-MSDU). Not with `rts_threshold`,
    /// `[propagation]` yet; with mac80211 `ap_queues` the AP forms its aggregates from the
    /// TXQs as ath9k does. See docs/wifi.md, "A-MPDU aggregation and block ack".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregation: Option<AggregationSpec>,
    /// With "mac80211" `ap_queues` and A-MPDU aggregation: mac80211's airtime queue
    /// limits (AQL, Linux ≥ 5.5), e.g. `aql = {}` for Linux's defaults: a station's TXQ
    /// hands out frames while their estimated air time pending in the driver is below
    /// `txq_limit_low` (5ms), or below `txq_limit_high` (12ms) while the interface's total
    /// is below `threshold` (24ms). Default: off (a driver's opt-in in Linux; ath9k does not
    /// set it). See docs/wifi.md, "mac80211 TXQs with aggregation".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aql: Option<AqlSpec>,
}

/// mac80211's airtime queue limits (`aql_txq_limit`, `aql_threshold` in debugfs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AqlSpec {
    /// Per station and AC (IEEE80211_DEFAULT_AQL_TXQ_LIMIT_L): default 5ms.
    #[serde(default = "default_aql_low")]
    pub txq_limit_low: Duration,
    /// Per station and AC while the interface is below `threshold`
    /// (IEEE80211_DEFAULT_AQL_TXQ_LIMIT_H): default 12ms.
    #[serde(default = "default_aql_high")]
    pub txq_limit_high: Duration,
    /// The interface's total pending air time below which `txq_limit_high` applies
    /// (IEEE80211_AQL_THRESHOLD): default 24ms.
    #[serde(default = "default_aql_threshold")]
    pub threshold: Duration,
}

fn default_aql_low() -> Duration {
    Duration(super::txq::AQL_TXQ_LIMIT_L)
}

fn default_aql_high() -> Duration {
    Duration(super::txq::AQL_TXQ_LIMIT_H)
}

fn default_aql_threshold() -> Duration {
    Duration(super::txq::AQL_THRESHOLD)
}

/// A-MPDU aggregation of an 802.11n/ac/ax cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AggregationSpec {
    /// Send A-MPDUs under a block ack agreement (default true); false: one MPDU and its
    /// ACK per channel access.
    #[serde(default = "default_true_cell")]
    pub ampdu: bool,
    /// The largest A-MPDU in bytes (delimiters and padding included): at most the
    /// standard's, n 65535, ac 1048575, ax 6500631. Default 65535 (ns-3's
    /// `BE_MaxAmpduSize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ampdu_bytes: Option<u32>,
    /// The block ack window (buffer size), MPDUs per A-MPDU: 1 to the standard's, n and
    /// ac 64, ax 256 (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_mpdus: Option<u32>,
    /// A-MSDU aggregation inside each MPDU (not modelled yet: must be false).
    #[serde(default)]
    pub amsdu: bool,
    /// ns-3 3.44's reception through a collision (default false: every PPDU of a
    /// collision is lost, as in Bianchi's model). True: the receiver locks onto one of the
    /// colliding PPDUs; if only one other frame overlaps its PHY header, each of its MPDUs
    /// that no other frame overlaps arrives and is acknowledged (an A-MPDU that collided
    /// with a BlockAckReq arrives whole). For comparisons with ns-3
    /// (docs/ns3-wifi-comparison.md).
    #[serde(default)]
    pub tail_reception: bool,
}

/// The band of an 802.11n or 802.11ax cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum BandKind {
    /// 2.4 GHz.
    #[serde(rename = "2.4GHz")]
    Ghz2_4,
    /// 5 GHz.
    #[serde(rename = "5GHz")]
    Ghz5,
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
    /// Its fixed PHY rate, both directions (default: the cell's `rate`). In an n/ac/ax
    /// cell a non-HT rate of the band (its data then goes in non-HT PPDUs); use `mcs`
    /// for HT/VHT/HE.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// n/ac/ax: its MCS, both directions (default: the cell's `mcs`); numbering as the
    /// cell's `mcs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcs: Option<u32>,
    /// ac/ax: its spatial streams, 1–4 (default: the cell's `spatial_streams`, else 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spatial_streams: Option<u32>,
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
