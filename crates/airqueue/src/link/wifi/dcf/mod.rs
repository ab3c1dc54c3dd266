//! An 802.11 cell as a medium: an infrastructure BSS on one channel, with the DCF
//! (IEEE 802.11-2016 §10.3) or EDCA (§10.22.2) as its channel access.
//!
//! # The model
//!
//! A medium is one channel; it carries one BSS, or several (co-channel cells) that share
//! the air. In each BSS the first port is the AP, the others its stations; a station
//! reaches only its AP (station → station traffic is routed through it, as a BSS relays
//! it, §4.3.5), the AP reaches every station of its BSS. An ad hoc BSS (IBSS, §11.1.4) has
//! no AP: each member reaches every other member directly and sends at its own rate (its
//! `ber` corrupts the frames it sends). Every port on the channel hears
//! every other (one collision domain: no hidden terminals), whichever BSS it belongs to. Each
//! port has a driver buffer of `buffer` packets below its egress qdisc (the port is
//! `ready()` while it has room); the head of the buffer is the frame the MAC is sending.
//! Every frame between the AP and station `k` goes at station `k`'s fixed PHY rate (rate
//! control off, the seeds' setting), or at the rate of Minstrel's retry chain for that
//! attempt ([`super::minstrel`], a station with `minstrel`). MAC frames (RTS, CTS, ACK) are timing only: they never
//! enter the packet arena.
//!
//! The medium is split as ns-3's wifi module splits it: `channel_access.rs` (interframe
//! spaces, back-off, NAV: ns-3's `ChannelAccessManager`, unit-tested alone),
//! `frame_exchange.rs` (exchange sequences, retries and their limits, TXOPs:
//! `FrameExchangeManager`), `rates.rs` (the glue to the rate managers, [`super::minstrel`]
//! and [`super::arf`]), `stats.rs` (counters and result tables), `setup.rs` (configuration
//! and construction) and [`hearing`] (the per-station medium: partial hearing, capture).
//! This file holds the cell's state and its [`Medium`] implementation.
//!
//! **EDCA** (§10.22.2; a BSS with `qos`). Each port runs four EDCA functions, one per
//! access category ([`super::edca`]), each with its own driver queue, back-off, CW and
//! retry counters and its parameters (AIFSN, CWmin, CWmax, TXOP limit). A packet goes to
//! the queue of its AC (Linux's `cfg80211_classify8021d` on its DSCP); the queues share
//! the port's driver buffer of `buffer` packets (the port is ready while the total has
//! room). An AC's counter counts slots from its own reference, `AIFS[AC]` after the busy
//! period (`idle_from` − DIFS + AIFS: the same event-driven scheme, one reference per
//! AIFSN), and the AC transmits after `b` idle slots past AIFS (as ns-3's
//! `ChannelAccessManager`; the standard's slot-boundary rule of §10.22.2.4 lets a counter
//! reaching zero transmit in the next slot, the same count). Counters of two ACs of one
//! port expiring in the same slot are an **internal collision**: the higher AC
//! transmits, each lower one acts as after a collision on the air (CW doubles, its retry
//! counter counts, it may discard the frame) without using the medium. A function that
//! won the medium holds a **TXOP** of `txop` (0: one exchange): after a success it sends
//! its next frame SIFS after the ACK if that exchange ends within the limit (the first
//! frame is always sent); a failure ends the TXOP with a new back-off. QoS data frames
//! carry a 2-byte QoS Control field (MPDU = IP + 38 B). A BSS without `qos` is the DCF: one
//! function per port with AIFSN 2 and the PHY's CW — exactly the model of
//! `channel_access.rs` and `frame_exchange.rs`.

use super::coexist::CellAir;
use super::edca::{classify, Ac};
use super::minstrel::ChainEntry;
use super::phy::Phy;
use super::txq::ApQueues;
use crate::channel::BitErrorModel;
use crate::engine::{SimRng, SimTime, TimerId};
use crate::link::{
    DriverQueue, LinkChange, LinkCtx, LinkEffect, LinkView, Medium, MediumBuild, Neighbour,
};
use crate::metrics::Table;
use crate::packet::{DropReason, Location, NodeId, PacketId};
use crate::topology::IfaceId;
use std::collections::VecDeque;

mod aggregate;
mod channel_access;
mod contention;
mod frame_exchange;
pub mod hearing;
mod rates;
mod setup;
mod stats;
use crate::link::DriverLedger;
pub use aggregate::AggConf;
use channel_access::{Backoff, Ifs};
use contention::Contention;
use frame_exchange::ewma;
use hearing::{Spatial, HX_EVENT};
use rates::{ber_table, RateCtl};
pub use setup::{BssConf, DcfConf, PortConf, RateControl, QOS_CONTROL_BYTES};
pub use stats::StationRows;
use stats::{AcStats, StaStats};

/// The event at the end of an exchange's deciding frame.
const OUTCOME: u16 = 0;

/// `ap_of` of a port in an ad hoc cell (IBSS): it has no AP.
const NO_AP: u32 = u32::MAX;

/// One channel-access function: the DCF of a port, or one EDCA function (one AC) of a
/// QoS port, with its driver queue.
struct Edcaf {
    port: u32,
    ac: Ac,
    /// Its TXOP limit (0: one exchange per channel access).
    txop: SimTime,
    buf: VecDeque<PacketId>,
    /// Its AIFSN, CW and back-off counter, counted from its AIFS reference.
    backoff: Backoff,
    src: u32,
    lrc: u32,
    /// Whether the head frame's attempts so far collided / were corrupted.
    collided: bool,
    corrupted: bool,
    /// With partial hearing: when this function transmits (`MAX`: it is not contending;
    /// the shared-slot medium keeps its contenders in [`contention`] instead).
    tx_at: SimTime,
    /// When the head frame reached the head.
    head_since: SimTime,
    /// Start of the TXOP it holds while it continues one (`None`: it holds none).
    txop_from: Option<SimTime>,
    /// The head frame's Minstrel retry chain, and the rate (index) of its last attempt.
    chain: Option<[ChainEntry; 4]>,
    attempt_rate: usize,
    stats: AcStats,
    /// Why the head frame was discarded (set by `fail`, taken by `finish`); `None`: it
    /// was delivered.
    discarded: Option<DropReason>,
}

/// A port: its functions' shared driver buffer, streams and link state.
struct Sta {
    /// Packets in all its functions' queues, and the buffer's capacity.
    len: usize,
    cap: usize,
    /// Its functions: `first .. first + count` in the cell's `fns`.
    first: u32,
    count: u32,
    /// MAC framing around an IP packet in its data frames (36 B, QoS 38 B).
    overhead: u32,
    rng: SimRng,
    /// Errors of this station's frames to the AP, and of the AP's frames to it.
    errors_up: BitErrorModel,
    errors_down: BitErrorModel,
    /// EWMA of attempt outcomes (1 = acknowledged) of this station's frames to its AP, and
    /// of the AP's frames to it (an AP: unused).
    quality_up: Option<f64>,
    quality_down: Option<f64>,
    stats: StaStats,
    /// An AP's mac80211 queues; its functions' `buf` then holds only the frame the
    /// hardware sends.
    txq: Option<Box<ApQueues>>,
    /// Minstrel of this station's frames to its AP, and of the AP's frames to it.
    rc_up: Option<Box<RateCtl>>,
    rc_down: Option<Box<RateCtl>>,
    /// With an SNR: the BER of each of the cell's rates (index as `Cell::rates`).
    ber_of_rate: Option<Vec<f64>>,
    snr_changes: Vec<(SimTime, f64)>,
}

/// What the exchange on the air will come to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Success,
    Corrupted,
    Collision,
    /// No response: the receiver did not decode the sender at all (out of range; the
    /// per-station medium only).
    Unanswered,
}

pub struct Cell {
    name: String,
    phy: Phy,
    conf: DcfConf,
    ifs: Ifs,
    ports: Vec<IfaceId>,
    names: Vec<String>,
    nodes: Vec<NodeId>,
    /// Per port: its AP's port (an AP: itself; a member of an IBSS: [`NO_AP`]).
    ap_of: Vec<u32>,
    /// Per port: the index of its cell (BSS) in `cells`.
    cell_of: Vec<u32>,
    cells: Vec<String>,
    rate_kbps: Vec<u32>,
    neighbours: Vec<Vec<Neighbour>>,
    sta: Vec<Sta>,
    /// The channel-access functions of all ports, port by port (ACs ascending).
    fns: Vec<Edcaf>,
    /// Who contends and when each transmits ([`contention`]).
    cont: Contention,
    /// Packets in the AP's buffer per destination port (its `hw_backlog` per neighbour).
    ap_backlog: Vec<u32>,
    /// Per port: its driver queue's statistics (the buffer, or an AP's TXQs and the
    /// frames the hardware sends), since the warm-up; see [`Medium::driver_queue`].
    dq: DriverLedger,
    /// End of the last busy period + DIFS/EIFS (the DCF's slot reference; an AC's is
    /// this − DIFS + AIFS[AC]).
    idle_from: SimTime,
    /// Functions transmitting in the exchange on the air (empty: none), and the air time
    /// of each one's part of it.
    on_air: Vec<u32>,
    air: Vec<SimTime>,
    outcome: Outcome,
    timer: TimerId,
    stats_from: SimTime,
    /// The standard's rates, ascending (Minstrel's and the SNR tables' rate indices).
    rates: Vec<u32>,
    /// Its radios on a shared spectrum (Bluetooth coexistence), if attached.
    coex: Option<Box<CellAir>>,
    /// Per port: whether the station is associated (a timeline `station` change; the AP
    /// and IBSS members always are).
    associated: Vec<bool>,
    /// Partial hearing: the per-station medium ([`hearing`]) instead of the shared slot.
    hx: Option<Box<Spatial>>,
    /// A-MPDU aggregation under block ack ([`aggregate`]), if the cell aggregates.
    agg: Option<Box<aggregate::Aggregation>>,
}

impl Cell {
    /// The port a frame from `port` carrying `pkt` goes to, if it is a neighbour.
    fn peer_of(&self, port: usize, next_hop: NodeId) -> Option<usize> {
        if self.ap_of[port] == NO_AP {
            let cell = self.cell_of[port];
            (0..self.nodes.len())
                .find(|&q| q != port && self.cell_of[q] == cell && self.nodes[q] == next_hop)
        } else if self.is_ap(port) {
            (0..self.nodes.len())
                .find(|&q| q != port && self.ap_of[q] as usize == port && self.nodes[q] == next_hop)
        } else {
            let ap = self.ap_of[port] as usize;
            (self.nodes[ap] == next_hop).then_some(ap)
        }
    }

    #[inline]
    fn is_ap(&self, p: usize) -> bool {
        self.ap_of[p] as usize == p
    }
}

impl Medium for Cell {
    fn kind(&self) -> &'static str {
        "cell"
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn ports(&self) -> &[IfaceId] {
        &self.ports
    }

    fn neighbours(&self, port: usize) -> &[Neighbour] {
        &self.neighbours[port]
    }

    fn attach(&mut self, b: &mut MediumBuild<'_>) {
        self.timer = b.timer(0);
    }

    fn ready(&self, port: usize) -> bool {
        let s = &self.sta[port];
        s.len < s.cap
    }

    fn send(&mut self, port: usize, pkt: PacketId, cx: &mut LinkCtx<'_>) {
        debug_assert!(self.ready(port));
        // Routing only picks neighbours on this cell; a frame for anyone else has no
        // receiver (and no PHY rate).
        let (next_hop, dscp, priority) = {
            let k = cx.packets.get(pkt);
            (k.next_hop, k.dscp, k.priority)
        };
        match self.peer_of(port, next_hop) {
            Some(q) if !(self.associated[port] && self.associated[q]) => {
                // A station that left has no peer (the AP no longer knows it).
                cx.emit(LinkEffect::Drop {
                    pkt,
                    reason: DropReason::NoRoute,
                });
                return;
            }
            None => {
                cx.emit(LinkEffect::Drop {
                    pkt,
                    reason: DropReason::NoRoute,
                });
                return;
            }
            Some(q) if self.is_ap(port) => self.ap_backlog[q] += 1,
            Some(_) => {}
        }
        cx.locate(pkt, Location::Transmitting(self.ports[port].0));
        let size = cx.packets.get(pkt).size_bytes;
        self.dq.enter(port, pkt, size, cx.now);
        let s = &mut self.sta[port];
        let fi = if s.count > 1 {
            classify(dscp, priority) as usize
        } else {
            0
        };
        let k = s.first as usize + fi;
        let on_air = match self.hx.as_deref() {
            Some(h) => h.busy_fn(port, k),
            None => self.on_air.contains(&(k as u32)),
        };
        if s.txq.is_some() {
            let q = self.peer_of(port, next_hop).expect("checked above");
            let counting = cx.now >= self.stats_from;
            self.sta[port].txq.as_mut().unwrap().enqueue(
                q,
                fi,
                pkt,
                cx,
                &mut self.ap_backlog,
                (&mut self.dq, port),
                counting,
            );
            if on_air || !self.fns[k].buf.is_empty() {
                return;
            }
            self.refill(k, cx);
            if self.fns[k].buf.is_empty() {
                return; // CoDel dropped it
            }
            self.contend_any(k, cx.now);
            if self.on_air.is_empty() {
                self.rearm(cx);
            }
            return;
        }
        s.len += 1;
        let f = &mut self.fns[k];
        f.buf.push_back(pkt);
        if f.buf.len() == 1 && !on_air {
            f.head_since = cx.now;
            self.contend_any(k, cx.now);
            if self.on_air.is_empty() {
                self.rearm(cx);
            }
        }
    }

    /// Schedules the stations' SNR changes (key 1 + their index in port order).
    fn start(&mut self, cx: &mut LinkCtx<'_>) {
        let mut key = 1u16;
        for s in &self.sta {
            for &(at, _) in &s.snr_changes {
                cx.schedule(at, key);
                key += 1;
            }
        }
    }

    fn on_event(&mut self, key: u16, cx: &mut LinkCtx<'_>) {
        if key == HX_EVENT {
            self.hx_step(cx);
            return;
        }
        if key == OUTCOME {
            self.settle(cx);
            return;
        }
        let mut left = key as usize - 1;
        for p in 0..self.sta.len() {
            let n = self.sta[p].snr_changes.len();
            if left < n {
                let snr = self.sta[p].snr_changes[left].1;
                self.sta[p].ber_of_rate = Some(ber_table(&self.rates, &self.phy, snr));
                return;
            }
            left -= n;
        }
    }

    fn on_timer(&mut self, _key: u32, cx: &mut LinkCtx<'_>) {
        if self.hx.is_some() {
            self.hx_step(cx);
        } else {
            self.transmit(cx);
        }
    }

    /// The PHY rate of the link (fixed per station, or Minstrel's best rate); the EWMA
    /// (weight ¼) of the attempt outcomes on that link in that direction (what the driver
    /// saw: ACKed or not), and in the other (`rx_quality`: the neighbour's attempts, which
    /// the receiver sees as retries); whether no exchange is on the air; the driver buffer's (or the
    /// AP's TXQ's) packets for that neighbour. The view changes with every exchange;
    /// `ViewChanged` is emitted only when Minstrel's best rate changes, so qdiscs read
    /// the rest when they dequeue.
    fn view(&self, port: usize, neighbour: NodeId) -> Option<LinkView> {
        let q = self.peer_of(port, neighbour)?;
        if !(self.associated[port] && self.associated[q]) {
            return None; // not in the AP's association table
        }
        Some(LinkView {
            neighbour,
            rate_bps: self.phy.rate_bps(self.rate(port, q)).round() as u64,
            quality: if self.is_ap(port) {
                self.sta[q].quality_down
            } else {
                self.sta[port].quality_up
            },
            rx_quality: if self.is_ap(port) {
                self.sta[q].quality_up
            } else {
                self.sta[port].quality_down
            },
            rssi_dbm: None,
            can_send: match self.hx.as_deref() {
                Some(h) => h.idle(port),
                None => self.on_air.is_empty(),
            },
            hw_backlog: if self.is_ap(port) {
                self.ap_backlog[q]
            } else {
                self.sta[port].len as u32
            },
        })
    }

    /// A cell takes one kind of change: a station leaving or joining its AP.
    fn check_change(&self, change: &LinkChange) -> Result<(), String> {
        if change.rate_bps.is_some() || change.delay.is_some() || change.impairment.is_some() {
            return Err(format!(
                "cell \"{}\": an 802.11 cell takes no rate, delay or impairment changes (give stations `rate`, `snr_changes`); only `station` joins and leaves",
                self.name
            ));
        }
        match change.associate {
            Some((node, _)) => match self.nodes.iter().position(|&n| n == node) {
                Some(p) if self.ap_of[p] != NO_AP && !self.is_ap(p) => Ok(()),
                _ => Err(format!(
                    "cell \"{}\": only a station of an infrastructure cell joins or leaves",
                    self.name
                )),
            },
            None => Ok(()),
        }
    }

    fn apply(&mut self, change: &LinkChange, _cx: &mut LinkCtx<'_>) -> Result<(), String> {
        self.check_change(change)?;
        if let Some((node, join)) = change.associate {
            if let Some(p) = self.nodes.iter().position(|&n| n == node) {
                self.associated[p] = join;
            }
        }
        Ok(())
    }

    fn held(&self, out: &mut Vec<(Location, u64)>) {
        for (p, s) in self.sta.iter().enumerate() {
            let queued = s.txq.as_ref().map_or(0, |t| t.len());
            // A head frame delivered before its ACK came back is no longer here.
            let delivered = self.hx.as_deref().map_or(0, |h| {
                (s.first as usize..(s.first + s.count) as usize)
                    .filter(|&k| h.delivered(k))
                    .count()
            });
            out.push((
                Location::Transmitting(self.ports[p].0),
                (s.len + queued - delivered) as u64,
            ));
        }
    }

    fn driver_queue(&self, port: usize) -> Option<DriverQueue<'_>> {
        let s = &self.sta[port];
        Some(match s.txq {
            // Each TXQ (per station and AC) holds up to FQ-CoDel's `limit`.
            Some(_) => DriverQueue {
                kind: "mac80211",
                limit_packets: super::txq::TXQ_LIMIT as u64,
                stats: &self.dq.stats[port],
            },
            None => DriverQueue {
                kind: "fifo",
                limit_packets: s.cap as u64,
                stats: &self.dq.stats[port],
            },
        })
    }

    fn warmup_end(&mut self, now: SimTime) {
        self.dq.reset(now);
    }

    fn report(&self, now: SimTime, tables: &mut Vec<(String, Table)>) {
        self.report_tables(now, tables);
    }
}
