//! Striping over several channels (seed 004: Wang, Hwang, Chou, "On striping traffic over
//! multiple IEEE 802.11(b) wireless channels", 2005).
//!
//! A *trunk* (`[[trunks]]`) joins two nodes over several member media (802.11 channels in
//! the paper; any medium that connects both nodes here: wired links, segments, cells). It
//! is the paper's tunnel interface (§3.2), one per direction:
//!
//! - the **sender** ([`trunk::TrunkSender`]) is the root qdisc of a virtual device over the
//!   node's member interfaces: it stamps a network-layer sequence number on each packet
//!   (§3.3) and hands it to the next *idle* member in round-robin order, each member holding
//!   at most the packet it transmits; when all are busy the packet waits in the trunk's own
//!   output queue of 50 packets; the search restarts at the member that just became idle
//!   (§3.4; the run loop's round-robin kick in `sim/root_queue.rs`);
//! - the **receiver** ([`resequencer::Resequencer`]) is a node hook on the peer: in-order
//!   packets pass at once, out-of-order ones wait in a resequencing queue under an adaptive
//!   reordering timer (§3.5–3.6).
//!
//! Both directions stripe: TCP's data one way and its ACKs the other, as in the paper's
//! tunnel interfaces on both nodes.

pub mod resequencer;
pub mod trunk;

use crate::engine::SimTime;
use crate::scenario::{Bytes, Duration};
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
    /// Surplus Round Robin (Adiseshu, Parulkar, Varghese 1996; seed 004 §2.1). Not yet.
    Srr,
    /// Seed 004 §5's "JKM" selective-reject ARQ at the trunk level. Not yet.
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
    /// "proposed" (seed 004 §3; the default). "srr" and "jkm" are not implemented yet.
    #[serde(default)]
    pub scheme: Scheme,
    /// The trunk's output queue, packets, used when every member is busy (§3.4: FreeBSD's
    /// default interface queue, 50).
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

/// The parameters of one trunk receiver's reordering timer (§3.6).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimerConf {
    pub initial: SimTime,
    pub step: SimTime,
    pub adjust_interval: SimTime,
    pub min: SimTime,
    pub strict_fifo: bool,
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
