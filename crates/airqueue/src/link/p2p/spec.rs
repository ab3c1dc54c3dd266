//! A point-to-point link as the scenario format writes it (`[[links]]`): the spec of this
//! folder's model ([`super::P2pLink`]), beside its checks (`checks.rs`) and its builder
//! (`build.rs`); the format (`crate::scenario`) re-exports it. The doc comments are user
//! documentation (the JSON Schema and `docs/scenario-reference.md`).

use crate::conf::defaults::{default_mtu, is_zero_u32};
use crate::conf::{Bytes, Duration, Rate};
use crate::link::netem::spec::ImpairmentSpec;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
