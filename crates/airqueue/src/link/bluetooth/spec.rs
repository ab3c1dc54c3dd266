//! The Bluetooth piconets and scatternet bridges as the scenario format writes them
//! (`[[piconets]]`, `[[bridges]]`): the spec of this folder's model ([`super::Piconet`],
//! [`super::Scatternet`]), beside the model, its checks (`checks.rs`) and its builder
//! (`build.rs`); the format (`crate::scenario`) re-exports it. The doc comments are
//! user documentation (the JSON Schema and `docs/scenario-reference.md`).

use crate::conf::{default_mtu, Bytes, Duration, Rate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    /// the thesis's IPL); perfect when absent (the thesis's PPL). Its table lists the keys
    /// of the channel type all wireless media share; a piconet rejects `per`, `gemodel`
    /// and `radio` ("a piconet's links take `ber` or `gilbert_elliott`").
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
