//! A trunk as the scenario format writes it (`[[trunks]]`): the spec of this folder's model
//! (the senders and receivers of [`super::trunk`], [`super::srr`], [`super::jkm`]), beside
//! its checks (`checks.rs`) and its builder (`build.rs`); the format (`crate::scenario`)
//! re-exports it. The doc comments are user documentation (the JSON Schema and
//! `docs/scenario-reference.md`).

use super::TimerConf;
use crate::conf::{Bytes, Duration};
use crate::engine::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The striping method of a trunk.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// Seed 004 §3: sequence numbers, round robin over idle members, resequencing under an
    /// adaptive reordering timer.
    #[default]
    Proposed,
    /// Surplus Round Robin (Adiseshu, Parulkar, Varghese 1996; seed 004 §2.1, §4.2.1):
    /// deficit counters with `quantum`, a marker per exhausted quantum, logical reception
    /// (`stripe/srr.rs`).
    Srr,
    /// Seed 004 §5's "JKM" (Jacquet, Kauffmann, Misson 2000): the proposed sender with a
    /// trunk-level selective-reject ARQ, positive and negative ACKs, holes held until
    /// filled (`stripe/jkm.rs`).
    Jkm,
}

/// A striped trunk between two nodes over several member media (seed 004).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrunkSpec {
    /// The trunk's name; each node's trunk device is `<node>.<name>` in the queue table.
    pub name: String,
    /// The two nodes; both stripe what they send to each other (data one way, TCP ACKs the
    /// other).
    pub between: [String; 2],
    /// The member media (links, segments or cells), each connecting both nodes; packets go
    /// out in round-robin order over these, in this order. Members have no qdisc of their
    /// own: every packet either node routes out of a member passes the trunk.
    pub members: Vec<String>,
    /// "proposed" (seed 004 §3; the default), "srr" (surplus round robin with markers,
    /// §2.1) or "jkm" (trunk-level selective-reject ARQ, §5).
    #[serde(default)]
    pub scheme: Scheme,
    /// The trunk's output queue, packets, used when every member is busy (§3.4: FreeBSD's
    /// default interface queue, 50). With "srr" each stripe has a queue of this many
    /// packets instead (SRR names the stripe of each packet as it arrives).
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// Drop late packets (sequence number below the last delivered) instead of delivering
    /// them, for a strict FIFO order (§3.5: what a real-time UDP application may ask for).
    #[serde(default)]
    pub strict_fifo: bool,
    /// The reordering timer's timeout at the start (the paper does not give it; default
    /// 1 ms, one step).
    #[serde(default = "one_ms")]
    pub initial_timeout: Duration,
    /// Added to the timeout for each late packet, used at once by a running timer (§3.6:
    /// 1 ms; Fig. 8 shows 1–3 ms give the same throughput).
    #[serde(default = "one_ms")]
    pub timeout_step: Duration,
    /// The timeout is halved when this long passes after the last late packet (§3.6:
    /// the adjusting timer, 1 s).
    #[serde(default = "one_s")]
    pub adjust_interval: Duration,
    /// The timeout never halves below this (the paper does not say; default 1 ms, one
    /// step, so that halving cannot reach zero).
    #[serde(default = "one_ms")]
    pub min_timeout: Duration,
    /// SRR's quantum per member and round (seed 004 §4.2.1: 3 000 B). Used by "srr" only.
    #[serde(default = "default_quantum")]
    pub quantum: Bytes,
    /// IP size of a control packet (an SRR marker, a JKM ACK or NAK). The papers give no
    /// format; default 40 B, a bare TCP/IP ACK's size. Used by "srr" and "jkm".
    #[serde(default = "default_control_bytes")]
    pub control_bytes: Bytes,
    /// JKM: the receiver sends a positive ACK after this many data packets (seed 004 §5:
    /// "many ACK packets"; default 1, an ACK per data packet received).
    #[serde(default = "one")]
    pub ack_every: u32,
    /// JKM: while a hole stays open the receiver repeats its NAKs this often (§5: it
    /// "continuously" asks until the packet arrives; the first NAK goes when the hole is
    /// seen). The seed gives no value; default 20 ms, several trunk round trips.
    #[serde(default = "twenty_ms")]
    pub nak_interval: Duration,
}

fn default_limit() -> u32 {
    50
}
fn one_ms() -> Duration {
    Duration(SimTime::from_millis(1))
}
fn one_s() -> Duration {
    Duration(SimTime::from_secs(1))
}
fn default_quantum() -> Bytes {
    Bytes(3000)
}
fn default_control_bytes() -> Bytes {
    Bytes(40)
}
fn one() -> u32 {
    1
}
fn twenty_ms() -> Duration {
    Duration(SimTime::from_millis(20))
}

impl TrunkSpec {
    pub fn timer_conf(&self) -> TimerConf {
        TimerConf {
            initial: self.initial_timeout.time(),
            step: self.timeout_step.time(),
            adjust_interval: self.adjust_interval.time(),
            min: self.min_timeout.time(),
            strict_fifo: self.strict_fifo,
        }
    }
}
