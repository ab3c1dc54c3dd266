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
//!
//! The two methods the paper compares with are selectable on the same trunk (`scheme`):
//!
//! - **SRR** ([`srr`], §2.1, §4.2.1): surplus round robin over per-stripe queues with
//!   marker packets, and logical reception at the receiver (no sequence numbers);
//! - **JKM** ([`jkm`], §5): the proposed sender and sequence numbers with a trunk-level
//!   selective-reject ARQ (positive and negative ACKs, holes held until filled).
//!
//! Their control packets (markers, ACKs, NAKs) are real packets on the member media
//! ([`crate::packet::TrunkCtl`]): they take air time, can be lost, and end consumed by the
//! peer's trunk; the `trunk_control` table counts them.

pub mod build;
pub mod checks;
pub mod jkm;
pub mod resequencer;
pub mod spec;
pub mod srr;
pub mod trunk;

pub use spec::{Scheme, TrunkSpec};

use crate::engine::SimTime;
use crate::metrics::{Column, Table};
use std::sync::atomic::{AtomicU64, Ordering};

/// The parameters of one trunk receiver's reordering timer (§3.6).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimerConf {
    pub initial: SimTime,
    pub step: SimTime,
    pub adjust_interval: SimTime,
    pub min: SimTime,
    pub strict_fifo: bool,
}

/// What one direction of a trunk counted of its control traffic, shared by its sender and
/// its receiver (the receiver reports the `trunk_control` row). Atomics only because
/// qdiscs and hooks must be `Send`; one run is one thread.
#[derive(Debug, Default)]
pub struct ControlCounts {
    /// SRR markers the sender made.
    pub markers_sent: AtomicU64,
    /// JKM ACKs and NAKs the receiver sent.
    pub acks_sent: AtomicU64,
    pub naks_sent: AtomicU64,
    /// JKM ACKs and NAKs that reached the sender.
    pub acks_received: AtomicU64,
    pub naks_received: AtomicU64,
    /// JKM retransmissions the sender made on NAKs.
    pub retransmissions: AtomicU64,
}

impl ControlCounts {
    pub fn add(c: &AtomicU64) {
        c.fetch_add(1, Ordering::Relaxed);
    }
    pub fn get(c: &AtomicU64) -> u64 {
        c.load(Ordering::Relaxed)
    }
}

/// Running mean and variance (Welford) with extremes, in seconds.
#[derive(Clone, Debug, Default)]
pub(crate) struct Spread {
    pub n: u64,
    pub mean: f64,
    m2: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    pub fn record(&mut self, x: f64) {
        if self.n == 0 {
            self.min = x;
            self.max = x;
        }
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }
    /// Sample standard deviation (NaN below two values).
    pub fn stdev(&self) -> f64 {
        if self.n < 2 {
            f64::NAN
        } else {
            (self.m2 / (self.n - 1) as f64).sqrt()
        }
    }
}

/// One cell of a trunk result row.
pub(crate) enum Cell {
    U(u64),
    F(f64),
    S(String),
}

/// Appends one row to table `name` of `out` (created on first use).
pub(crate) fn push_row(out: &mut Vec<(String, Table)>, name: &str, row: Vec<(&str, Cell)>) {
    let k = match out.iter().position(|(n, _)| n == name) {
        Some(k) => k,
        None => {
            let mut t = Table::default();
            for (c, v) in &row {
                t.columns.push((
                    c.to_string(),
                    match v {
                        Cell::U(_) => Column::U64(Vec::new()),
                        Cell::F(_) => Column::F64(Vec::new()),
                        Cell::S(_) => Column::Str(Vec::new()),
                    },
                ));
            }
            out.push((name.to_string(), t));
            out.len() - 1
        }
    };
    for ((_, col), (_, v)) in out[k].1.columns.iter_mut().zip(row) {
        match (col, v) {
            (Column::U64(c), Cell::U(x)) => c.push(x),
            (Column::F64(c), Cell::F(x)) => c.push(x),
            (Column::Str(c), Cell::S(x)) => c.push(x),
            _ => unreachable!("trunk table columns keep their types"),
        }
    }
}

/// What a receiver counted, as the `trunk_receivers` columns: in order, queued, late,
/// duplicates, timer expiries, held at the end.
pub(crate) type ReceiverCounts = [u64; 6];

/// The `trunk_receivers` row every scheme's receiver reports (the same columns, so that
/// trunks of different schemes share the table).
pub(crate) fn receiver_row(
    out: &mut Vec<(String, Table)>,
    who: (&str, &str),
    counts: ReceiverCounts,
    timeout_ms: f64,
    l: &Spread,
) {
    let nan_if_empty = |x: f64| if l.n == 0 { f64::NAN } else { x };
    let [in_order, queued, late, duplicates, expiries, held] = counts;
    push_row(
        out,
        "trunk_receivers",
        vec![
            ("trunk", Cell::S(who.0.to_string())),
            ("node", Cell::S(who.1.to_string())),
            ("in_order", Cell::U(in_order)),
            ("queued", Cell::U(queued)),
            ("late", Cell::U(late)),
            ("duplicates", Cell::U(duplicates)),
            ("timer_expiries", Cell::U(expiries)),
            ("held_at_end", Cell::U(held)),
            ("timeout_ms", Cell::F(timeout_ms)),
            ("latency_count", Cell::U(l.n)),
            ("latency_min_s", Cell::F(nan_if_empty(l.min))),
            ("latency_max_s", Cell::F(nan_if_empty(l.max))),
            ("latency_mean_s", Cell::F(nan_if_empty(l.mean))),
            ("latency_stdev_s", Cell::F(l.stdev())),
        ],
    );
}

/// The receiver's stalls: stretches in which it held packets but delivered none (SRR
/// waiting on the stripe its algorithm names, JKM on a hole). A stall runs from the last
/// delivery (or the arrival that left the receiver holding a packet) to the next delivery.
#[derive(Clone, Debug, Default)]
pub(crate) struct Waits {
    /// Since when the receiver holds packets without delivering.
    since: Option<SimTime>,
    total: SimTime,
    longest: SimTime,
    /// Stalls of 200 ms or more (TCP's minimum RTO, RFC 6298 as Linux: what stalls TCP).
    long: u64,
}

impl Waits {
    /// The receiver delivered something at `now` (or not, `delivered` false) and holds
    /// `held` packets after it.
    pub fn update(&mut self, delivered: bool, held: u64, now: SimTime) {
        if delivered {
            if let Some(t) = self.since.take() {
                let d = now - t;
                self.total += d;
                self.longest = self.longest.max(d);
                self.long += u64::from(d >= SimTime::from_millis(200));
            }
        }
        if held > 0 {
            self.since.get_or_insert(now);
        } else {
            self.since = None;
        }
    }
}

/// The `trunk_control` row of one trunk direction (its SRR or JKM receiver reports it):
/// the control packets each side made and received, the deliveries out of order (SRR),
/// and the receiver's stalls.
pub(crate) fn control_row(
    out: &mut Vec<(String, Table)>,
    who: (&str, &str, &str),
    c: &ControlCounts,
    (markers_received, misordered): (u64, u64),
    waits: &Waits,
) {
    let g = ControlCounts::get;
    push_row(
        out,
        "trunk_control",
        vec![
            ("trunk", Cell::S(who.0.to_string())),
            ("node", Cell::S(who.1.to_string())),
            ("scheme", Cell::S(who.2.to_string())),
            ("markers_sent", Cell::U(g(&c.markers_sent))),
            ("markers_received", Cell::U(markers_received)),
            ("acks_sent", Cell::U(g(&c.acks_sent))),
            ("acks_received", Cell::U(g(&c.acks_received))),
            ("naks_sent", Cell::U(g(&c.naks_sent))),
            ("naks_received", Cell::U(g(&c.naks_received))),
            ("retransmissions", Cell::U(g(&c.retransmissions))),
            ("misordered", Cell::U(misordered)),
            ("blocked_s", Cell::F(waits.total.as_secs_f64())),
            ("longest_block_s", Cell::F(waits.longest.as_secs_f64())),
            ("blocks_over_200ms", Cell::U(waits.long)),
        ],
    );
}
