//! A shared segment as the scenario format writes it (`[[segments]]`): the spec of this
//! folder's model ([`super::Segment`]), beside its checks (`checks.rs`) and its builder
//! (`build.rs`); the format (`crate::scenario`) re-exports it. The doc comments are user
//! documentation (the JSON Schema and `docs/scenario-reference.md`).

use crate::conf::defaults::default_mtu;
use crate::conf::{Bytes, Duration, Rate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
