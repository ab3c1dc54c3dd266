//! netem's impairments as the scenario format writes them (`links.<name>.netem`, the
//! `[[at]]` changes of a link): the spec of this folder's model ([`super::Netem`],
//! [`super::impairment::Impairment`]); the format (`crate::scenario`) re-exports it. The doc
//! comments are user documentation (the JSON Schema and `docs/scenario-reference.md`).

use crate::channel::GeModelConf;
use crate::conf::defaults::is_zero_u32;
use crate::conf::{Duration, Probability, Rate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A netem-like impairment: extra delay with jitter (uniform, or netem's `normal`,
/// `pareto`, `paretonormal` tables), Bernoulli loss or netem's Gilbert-Elliott `gemodel`,
/// bit errors (`ber`), and netem's correlation, `reorder`, `duplicate` and `corrupt`. See
/// docs/channels.md.
///
/// As in netem without `rate`, jitter may reorder packets. `loss` and jitter draw from
/// per-(link, direction, flow) random streams, so adding a flow never changes another
/// flow's losses; `gemodel` and `ber` describe the wire and draw from one stream per link
/// direction.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpairmentSpec {
    /// Extra fixed delay on top of the link's propagation delay (netem `delay`).
    #[serde(default)]
    pub delay: Duration,
    /// Uniform jitter: each packet's extra delay is drawn from [delay − jitter, delay + jitter]
    /// (netem's default distribution), floored at zero.
    #[serde(default)]
    pub jitter: Duration,
    /// Independent (Bernoulli) loss probability per packet, e.g. 0.01 or "1%" (netem `loss random`).
    #[serde(default)]
    pub loss: Probability,
    /// Bit error rate on the wire: a packet is corrupted (and dropped as `impairment`) with
    /// probability 1 − (1 − ber)^bits, bits = (size + link overhead) × 8, e.g. 1e-6. One
    /// random stream per link direction (`link:<link>:<a>-><b>:ber`). Default 0 (off).
    #[serde(default, skip_serializing_if = "is_zero_probability")]
    pub ber: Probability,
    /// netem's Gilbert-Elliott loss model (`loss gemodel p r 1-h 1-k`), one chain per link
    /// direction advanced once per packet (`link:<link>:<a>-><b>:gemodel`); an alternative
    /// to `loss`, e.g. `gemodel = { p = 0.01, r = 0.1 }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gemodel: Option<GeModelConf>,
    /// Correlation of successive `loss` draws (netem `loss random P CORR`, the kernel's
    /// `get_crandom`). Non-zero: the draws come from the direction's netem stream
    /// (`link:<link>:<a>-><b>:netem`), one sequence over all flows as in netem.
    #[serde(default, skip_serializing_if = "is_zero_probability")]
    pub loss_correlation: Probability,
    /// Correlation of successive delay draws (netem `delay D J CORR`).
    #[serde(default, skip_serializing_if = "is_zero_probability")]
    pub delay_correlation: Probability,
    /// Jitter distribution (netem `distribution`): `uniform` (the default), or iproute2's
    /// tables `normal`, `pareto`, `paretonormal`, scaled by `jitter` around `delay`.
    #[serde(default, skip_serializing_if = "NetemDistribution::is_uniform")]
    pub distribution: NetemDistribution,
    /// Share of packets sent at once, without `delay` (netem `reorder P`): they overtake
    /// the delayed ones. Needs a `delay`.
    #[serde(default, skip_serializing_if = "is_zero_probability")]
    pub reorder: Probability,
    /// Correlation of successive reorder draws (netem `reorder P CORR`).
    #[serde(default, skip_serializing_if = "is_zero_probability")]
    pub reorder_correlation: Probability,
    /// netem `reorder P gap N`: only every N-th packet may be sent at once (with
    /// probability `reorder`); the others are delayed. Default 1 (any packet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<u32>,
    /// Probability that a packet is duplicated (netem `duplicate P`): the copy is a new
    /// packet in the ledger and meets the impairment on its own (loss, corruption, delay),
    /// as netem's clone re-enters the qdisc.
    #[serde(default, skip_serializing_if = "is_zero_probability")]
    pub duplicate: Probability,
    /// Correlation of successive duplicate draws (netem `duplicate P CORR`).
    #[serde(default, skip_serializing_if = "is_zero_probability")]
    pub duplicate_correlation: Probability,
    /// Probability that a packet is corrupted (netem `corrupt P`: one bit flipped). The
    /// receiver's checksum then discards it: dropped as `impairment`.
    #[serde(default, skip_serializing_if = "is_zero_probability")]
    pub corrupt: Probability,
    /// Correlation of successive corrupt draws (netem `corrupt P CORR`).
    #[serde(default, skip_serializing_if = "is_zero_probability")]
    pub corrupt_correlation: Probability,
    /// netem `rate`: after the link, packets leave at this rate, one after another, each
    /// taking (size + `packet_overhead`, rounded up to cells of `cell_size` +
    /// `cell_overhead`) × 8 / rate; a packet waits for the one before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// netem `rate … packetoverhead`: bytes added to (or, negative, taken from) each
    /// packet's size for `rate` (e.g. 14 for the Ethernet header netem's skb carries).
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub packet_overhead: i32,
    /// netem `rate … cellsize`: the size is rounded up to whole cells (e.g. 48 for ATM).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub cell_size: u32,
    /// netem `rate … celloverhead`: bytes added per cell (e.g. 5 for ATM's header).
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub cell_overhead: i32,
    /// netem `limit`: the most packets netem holds while they wait for their delay (and
    /// slot); one more is dropped as `qdisc_overflow` (`sch_netem.c`: `t_len >= limit`).
    /// Default 1000, netem's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// netem `slot`: delayed packets leave only in slots, as on a bursty MAC (DOCSIS,
    /// Wi-Fi, LTE), e.g. `slot = { min = "10ms", max = "20ms", packets = 4 }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<SlotSpec>,
}

/// netem's `slot` (tc-netem(8)): `slot MIN [MAX] [packets N] [bytes N]` (`min`, `max`)
/// or `slot distribution D DELAY JITTER [packets N] [bytes N]` (`distribution`, `delay`,
/// `jitter`). Each slot opens a delay drawn from these after the last one (uniform on
/// [min, max), or `tabledist` of the distribution) and lets out at most `packets`
/// packets and `bytes` bytes (unlimited when not given) of those whose delay is over.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlotSpec {
    /// Shortest gap to the next slot (`slot MIN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Duration>,
    /// Longest gap to the next slot (`slot MIN MAX`); default `min`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Duration>,
    /// The gap's distribution (`slot distribution NAME DELAY JITTER`), instead of
    /// `min`/`max`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<NetemDistribution>,
    /// The gap's centre with `distribution`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
    /// The gap's spread with `distribution`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<Duration>,
    /// Most packets one slot lets out (`packets N`); default unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets: Option<u32>,
    /// Most bytes one slot lets out (`bytes N`); the packet that crosses it still goes.
    /// Default unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u32>,
}

fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

/// netem's delay distributions (`tc qdisc … netem delay D J distribution NAME`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NetemDistribution {
    /// Uniform on [delay − jitter, delay + jitter].
    #[default]
    Uniform,
    /// iproute2's `normal` table: delay + jitter × N(0, 1).
    Normal,
    /// iproute2's `pareto` table (shape 3, shifted to mean zero).
    Pareto,
    /// iproute2's `paretonormal` table: ¼ normal + ¾ pareto.
    Paretonormal,
}

impl NetemDistribution {
    fn is_uniform(&self) -> bool {
        *self == NetemDistribution::Uniform
    }
}

impl ImpairmentSpec {
    /// Whether any option beyond delay, uniform jitter, Bernoulli loss, `gemodel` and
    /// `ber` is on (those draw from the direction's netem stream).
    pub fn uses_netem_stream(&self) -> bool {
        self.loss_correlation.0 > 0.0
            || self.delay_correlation.0 > 0.0
            || !self.distribution.is_uniform()
            || self.reorder.0 > 0.0
            || self.duplicate.0 > 0.0
            || self.corrupt.0 > 0.0
            || self.rate.is_some()
            || self.slot.is_some()
    }
}

fn is_zero_probability(p: &Probability) -> bool {
    p.0 == 0.0
}
