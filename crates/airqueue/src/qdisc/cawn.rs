//! `cawn`: Channel Adaptive WLAN (Yip & Kwok, seed 000 §3.2, Algorithms 3–4, Figs. 7–9):
//! one qdisc on each of the NAP's two real interfaces (no IMQ), cooperating through a
//! shared **flag board**, with the WLAN side reading the channel state of its stations as
//! the driver reports it through the wireless extensions' IW_SPY.
//!
//! # Enqueue (Algorithm 3)
//!
//! Per-flow FIFOs with jiffies-based virtual times, voice and video flows given lower
//! virtual times ([`super::jiffy_flows`]). Then, on the WLAN side only:
//!
//! - **IW_SPY read** (line 13, Fig. 8): up to `IW_MAX_SPY` = 8 stations (the interface's
//!   first eight neighbours), each with its `iw_quality`. IW_SPY records, per spied
//!   address, the quality of the frames *received from* it (the driver calls
//!   `wireless_spy_update` on its receive path; HostAP from `hostap_rx`), so the link
//!   quality here is the driver's per-station estimate of the delivery of that station's
//!   frames to the AP ([`crate::link::LinkView::rx_quality`], from the retries it sees; the
//!   send-direction `quality` where a medium has none). On the NAP that is where the
//!   colocated Bluetooth master, 0.1 m from the AP's antenna, hits hardest. The read an
//!   enqueue calls for is made at the next dequeue (the simulation gives a qdisc the
//!   driver's view only when asked for a packet; see [`Cawn::spy`]). `updated` (§3.2):
//!   the driver sets it when the hardware refreshed a station's values and the
//!   wireless-extensions read clears it (Linux `iw_handler_get_spy`); here a station's
//!   entry is updated iff its quality changed since the last read. Stale entries are
//!   skipped (line 15 uses only updated values); a failed read goes on without waiting.
//! - **check-interference()** — the paper: "a sharp, significant and fast deterioration of
//!   WLAN channel quality" (§5.1). *Choice*: per station an average of its updated quality
//!   samples (EWMA, weight `ewma` = 1/8, as Linux's RTT and rate estimators); interference
//!   when an updated sample lies more than `drop` (0.1, ten percentage points of delivery
//!   probability) below that average, compared before the sample enters it.
//! - **Cooperation** (lines 17–29): if a CAWN with the Bluetooth role is on the same board
//!   (a CAWN on the node's Bluetooth interface: "check the existence … during run time"):
//!   on interference with its own flag off, both flags go ON ("alert Bluetooth"); else, own
//!   flag on and Bluetooth's off (Bluetooth handled it), its own goes OFF.
//!
//! # Dequeue (Algorithm 4)
//!
//! The backlogged flow with the lowest `vt`; with this interface's flag ON and a head of
//! `small` (500) bytes or more, the flag goes OFF ("interference handled"), the packet stays
//! at the head and nothing is sent: one dequeue skipped. So that the interface asks again,
//! the skip lasts one packet time (that packet's transmission time at its PHY rate).
//! Packets shorter than `small` (voice) go even with the flag ON, and — line 15 being in the
//! `else` branch — without advancing `vt`. Otherwise `vt += len/100`.
//!
//! The board is shared by the qdiscs of one node with the same `board` name; it exists only
//! when the simulation is built (a CAWN attached later by `[[at]]` is refused).

use super::jiffy_flows::JiffyFlows;
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::ScenarioError;
use crate::engine::SimTime;
use crate::packet::{NodeId, PacketId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Linux `IW_MAX_SPY` (include/linux/wireless.h).
pub const IW_MAX_SPY: usize = 8;

/// Which interface a CAWN sits on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CawnRole {
    /// The 802.11b interface: reads IW_SPY and raises the flags.
    Wlan,
    /// The Bluetooth (BNEP) interface: skips when alerted.
    Bluetooth,
}

/// Parameters of `cawn`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CawnConf {
    /// `"wlan"` or `"bluetooth"`: the interface this qdisc sits on.
    pub role: CawnRole,
    /// Name of the flag board: the CAWNs of one node with the same board cooperate.
    /// Default `"cawn"`.
    #[serde(default = "default_board")]
    pub board: String,
    /// Packets shorter than this (bytes) go even while interference is flagged (voice).
    /// Default 500.
    #[serde(default = "default_small")]
    pub small: u32,
    /// check-interference: an updated quality sample more than this below the station's
    /// average (delivery probability, 0 to 1). Default 0.1.
    #[serde(default = "default_drop")]
    pub drop: f64,
    /// Weight of a new sample in a station's quality average, 0 to 1. Default 0.125.
    #[serde(default = "default_ewma")]
    pub ewma: f64,
    /// Packets the qdisc may hold. Default 1000.
    #[serde(default = "super::stfq::default_limit")]
    #[schemars(range(min = 1))]
    pub limit: u32,
}

fn default_board() -> String {
    "cawn".into()
}
fn default_small() -> u32 {
    500
}
fn default_drop() -> f64 {
    0.1
}
fn default_ewma() -> f64 {
    0.125
}

/// `InterferenceFlag[interface]` and which roles have a CAWN attached.
#[derive(Default, Debug)]
pub struct FlagBoard {
    flag: [AtomicBool; 2],
    attached: [AtomicBool; 2],
}

impl FlagBoard {
    fn get(&self, r: CawnRole) -> bool {
        self.flag[r as usize].load(Ordering::Relaxed)
    }
    fn set(&self, r: CawnRole, on: bool) {
        self.flag[r as usize].store(on, Ordering::Relaxed)
    }
}

/// The flag boards of one simulation build, by `<node>:<board>`.
#[derive(Default)]
pub struct FlagBoards(RefCell<BTreeMap<String, Arc<FlagBoard>>>);

impl FlagBoards {
    fn get(&self, key: &str) -> Arc<FlagBoard> {
        self.0
            .borrow_mut()
            .entry(key.to_string())
            .or_default()
            .clone()
    }
}

/// The CSI copied from the driver (`q->buffer`, Fig. 8): per spied station its address and
/// the last quality read, and the statistics of line 15.
#[derive(Default)]
pub struct IwSpy {
    /// (station, last quality read, average of updated samples).
    stations: Vec<(NodeId, f64, f64)>,
    drop: f64,
    ewma: f64,
}

impl IwSpy {
    pub fn new(drop: f64, ewma: f64) -> Self {
        IwSpy {
            stations: Vec::new(),
            drop,
            ewma,
        }
    }

    /// One IW_SPY read of `readings` (station, quality; the first `IW_MAX_SPY` count) and
    /// the statistics update over the updated ones. Returns whether check-interference
    /// fires (an updated sample more than `drop` below its station's average).
    pub fn read(&mut self, readings: impl Iterator<Item = (NodeId, Option<f64>)>) -> bool {
        let mut hit = false;
        for (node, q) in readings.take(IW_MAX_SPY) {
            let Some(q) = q else { continue };
            match self.stations.iter_mut().find(|s| s.0 == node) {
                None => self.stations.push((node, q, q)),
                Some(s) if s.1 == q => {} // not updated: stale, skipped
                Some(s) => {
                    hit |= q < s.2 - self.drop;
                    s.1 = q;
                    s.2 += self.ewma * (q - s.2);
                }
            }
        }
        hit
    }
}

pub struct Cawn {
    role: CawnRole,
    small: u32,
    flows: JiffyFlows,
    board: Arc<FlagBoard>,
    spy: IwSpy,
    pause_until: SimTime,
    /// A packet was enqueued since the last IW_SPY read (see [`Cawn::spy`]).
    spy_due: bool,
    /// Skipped dequeues (for tests and reports).
    skips: u64,
    #[cfg(test)]
    fake_spy: Vec<(NodeId, Option<f64>)>,
}

impl Cawn {
    pub fn from_conf(c: &CawnConf, b: &BuildCtx, errs: &mut ScenarioError) -> Cawn {
        let p = &b.path;
        let node = b.dev.name.split('.').next().unwrap_or_default();
        let board = match b.boards {
            Some(boards) => boards.get(&format!("{node}:{}", c.board)),
            None => {
                errs.push(
                    p.clone(),
                    "cawn cannot be attached at run time yet (its flag board is made when the simulation is built); attach it in [[qdiscs]]",
                );
                Arc::default()
            }
        };
        if board.attached[c.role as usize].swap(true, Ordering::Relaxed) {
            errs.push(
                format!("{p}.role"),
                format!(
                    "board \"{}\" of node {node} has a {:?} CAWN already; one per role",
                    c.board, c.role
                ),
            );
        }
        if !(0.0..=1.0).contains(&c.drop) {
            errs.push(format!("{p}.drop"), "must be a probability in 0…1");
        }
        if !(c.ewma > 0.0 && c.ewma <= 1.0) {
            errs.push(format!("{p}.ewma"), "must be in (0, 1]");
        }
        if c.limit == 0 {
            errs.push(format!("{p}.limit"), "must be at least 1 packet");
        }
        Cawn {
            role: c.role,
            small: c.small,
            flows: JiffyFlows::new(c.limit),
            board,
            spy: IwSpy::new(c.drop, c.ewma),
            pause_until: SimTime::ZERO,
            spy_due: false,
            skips: 0,
            #[cfg(test)]
            fake_spy: Vec::new(),
        }
    }

    /// Dequeues skipped for interference so far.
    pub fn skips(&self) -> u64 {
        self.skips
    }

    /// IW_SPY-Operation-Read-Channel-State and update-channel-state-statistics.
    fn read_spy(&mut self, ctx: &QdiscCtx) -> bool {
        #[cfg(test)]
        if !self.fake_spy.is_empty() {
            return self.spy.read(self.fake_spy.iter().copied());
        }
        let Some(iface) = ctx.iface() else {
            return false;
        };
        let readings = ctx.neighbours(iface).iter().map(|n| {
            let v = ctx.link_of(iface, n.node);
            (n.node, v.and_then(|v| v.rx_quality.or(v.quality)))
        });
        self.spy.read(readings)
    }

    /// Lines 13–29 on the WLAN side, when an enqueue asked for them: the IW_SPY read, the
    /// statistics, the cooperation. The simulation gives a qdisc the driver's view only
    /// when it is asked for a packet, so the read an enqueue calls for is made at the next
    /// dequeue (or peek) — at once when the interface is idle, else when its current frame
    /// ends; enqueues in between would read the same values (not `updated`), so one read
    /// serves them all.
    fn spy(&mut self, ctx: &QdiscCtx) {
        #[cfg(test)]
        let fake = !self.fake_spy.is_empty();
        #[cfg(not(test))]
        let fake = false;
        if self.spy_due && (fake || ctx.iface().is_some()) {
            self.spy_due = false;
            let hit = self.read_spy(ctx);
            self.cooperate(hit);
        }
    }

    /// Lines 17–29.
    fn cooperate(&mut self, interference: bool) {
        let b = &self.board;
        if !b.attached[CawnRole::Bluetooth as usize].load(Ordering::Relaxed) {
            return;
        }
        let flag = b.get(CawnRole::Wlan);
        if interference && !flag {
            b.set(CawnRole::Wlan, true);
            b.set(CawnRole::Bluetooth, true);
        } else if flag && !b.get(CawnRole::Bluetooth) {
            b.set(CawnRole::Wlan, false);
        }
    }

    fn head(&self, ctx: &QdiscCtx) -> Option<usize> {
        self.flows
            .min_vt(|_| true)
            .filter(|&j| ctx.is_for_asker(self.flows.head(j).0))
    }

    fn skips_now(&self, len: u32) -> bool {
        self.board.get(self.role) && len >= self.small
    }
}

impl Qdisc for Cawn {
    fn kind(&self) -> &'static str {
        "cawn"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        if self.flows.enqueue(pkt, ctx).is_none() {
            return Verdict::Dropped;
        }
        if self.role == CawnRole::Wlan {
            self.spy_due = true;
            self.spy(ctx);
        }
        Verdict::Queued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.spy(ctx);
        if ctx.now < self.pause_until {
            return None;
        }
        let j = self.head(ctx)?;
        let (pkt, len) = self.flows.head(j);
        if self.skips_now(len) {
            self.board.set(self.role, false);
            let p = ctx.packets.get(pkt);
            let rate = ctx
                .link_of(p.out_iface, p.next_hop)
                .map_or(ctx.dev.rate_bps, |v| v.rate_bps)
                .max(1);
            self.pause_until = ctx.now + SimTime::transmission(len as u64, rate);
            self.skips += 1;
            return None;
        }
        let flagged = self.board.get(self.role);
        Some(self.flows.pop(j, !flagged).0)
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.spy(ctx);
        if ctx.now < self.pause_until {
            return None;
        }
        let j = self.head(ctx)?;
        let (pkt, len) = self.flows.head(j);
        (!self.skips_now(len)).then_some(pkt)
    }

    fn len(&self) -> usize {
        self.flows.qlen
    }

    fn backlog_bytes(&self) -> u64 {
        self.flows.backlog
    }

    fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        (self.flows.qlen > 0 && self.pause_until > now).then_some(self.pause_until)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::classify::NameTable;
    use crate::qdisc::testing::Harness;
    use crate::qdisc::QdiscConf;

    /// A WLAN and a Bluetooth CAWN on one board of node `nap`.
    fn pair(h: &mut Harness) -> (Cawn, Cawn) {
        let boards = FlagBoards::default();
        let names = NameTable::default();
        let mut make = |role: &str, dev: &str| {
            h.dev.name = dev.into();
            let c: QdiscConf =
                toml::from_str(&format!("kind = \"cawn\"\nrole = \"{role}\"")).unwrap();
            let QdiscConf::Cawn(c) = c else { panic!() };
            let mut errs = ScenarioError::default();
            let mut b = h.build_ctx(&names);
            b.boards = Some(&boards);
            let q = Cawn::from_conf(&c, &b, &mut errs);
            assert!(errs.problems.is_empty(), "{errs:?}");
            q
        };
        let w = make("wlan", "nap.wlan");
        let b = make("bluetooth", "nap.bt");
        (w, b)
    }

    /// Station 7's quality as the driver reports it at the next enqueue.
    fn spy(q: &mut Cawn, quality: f64) {
        q.fake_spy = vec![(NodeId(7), Some(quality))];
    }

    /// Reference: seed 000 Algorithms 3–4 and §3.2 — on detected interference the WLAN CAWN
    /// alerts the Bluetooth CAWN and *both* skip exactly one dequeue of a large packet
    /// ("This no dequeue operation is done once"), then resume; each skip lasts one packet
    /// time (1500 B at 10 Mbit/s = 1.2 ms).
    #[test]
    fn interference_makes_both_interfaces_skip_exactly_one_dequeue() {
        let mut h = Harness::new();
        let (mut w, mut b) = pair(&mut h);
        spy(&mut w, 0.95);
        for _ in 0..3 {
            let p = h.packet(0, 1500);
            h.enqueue(&mut w, p);
            let p = h.packet(1, 1500);
            h.enqueue(&mut b, p);
        }
        assert!(!w.board.get(CawnRole::Wlan), "no interference yet");
        spy(&mut w, 0.6); // a sharp drop of the station's quality
        let p = h.packet(0, 1500);
        h.enqueue(&mut w, p);
        assert!(w.board.get(CawnRole::Wlan) && w.board.get(CawnRole::Bluetooth));
        for q in [&mut w, &mut b] {
            assert_eq!(h.peek(q), None);
            assert_eq!(h.dequeue(q), None, "{:?} did not skip", q.role);
            assert_eq!(
                q.next_wakeup(h.now),
                Some(h.now + SimTime::from_micros(1200))
            );
        }
        h.now += SimTime::from_micros(1200);
        for q in [&mut w, &mut b] {
            let n = q.len();
            for _ in 0..n {
                assert!(h.dequeue(q).is_some(), "{:?} skipped twice", q.role);
            }
            assert_eq!(q.skips(), 1);
        }
        // Bluetooth handled it: the next WLAN enqueue clears nothing more and, the
        // station's quality being stale (unchanged), raises no new alert.
        let p = h.packet(0, 1500);
        h.enqueue(&mut w, p);
        assert!(!w.board.get(CawnRole::Wlan) && !w.board.get(CawnRole::Bluetooth));
    }

    /// Reference: seed 000 §3.2 and Algorithm 4 line 9 — while flagged, packets shorter
    /// than 500 B (voice) still go, without advancing vt, and the flag stays ON for the next
    /// large packet, which is skipped.
    #[test]
    fn small_packets_go_while_interference_is_flagged() {
        let mut h = Harness::new();
        let (_w, mut b) = pair(&mut h);
        b.board.set(CawnRole::Bluetooth, true);
        let voice = h.packet(1, 120);
        h.enqueue(&mut b, voice);
        let edge = h.packet(1, 499);
        h.enqueue(&mut b, edge);
        let big = h.packet(1, 500);
        h.enqueue(&mut b, big);
        let vt0 = b.flows.flows[0].vt;
        assert_eq!(h.dequeue(&mut b), Some(voice));
        assert_eq!(h.dequeue(&mut b), Some(edge));
        assert_eq!(b.flows.flows[0].vt, vt0, "vt advanced under the flag");
        assert!(
            b.board.get(CawnRole::Bluetooth),
            "a small packet cleared the flag"
        );
        assert_eq!(h.dequeue(&mut b), None, "500 B is not small");
        h.now += SimTime::from_micros(400);
        assert_eq!(h.dequeue(&mut b), Some(big));
    }

    /// Reference: the wireless extensions' IW_SPY (Linux `wireless.h`, `IW_MAX_SPY` = 8;
    /// seed 000 §3.2, Fig. 8): at most eight stations are read; an entry whose value did not
    /// change since the last read is stale (not `updated`) and skipped; an updated value more
    /// than `drop` below the station's average signals interference.
    #[test]
    fn iw_spy_reads_eight_stations_and_skips_stale_values() {
        let mut s = IwSpy::new(0.1, 0.125);
        let first: Vec<_> = (0..10).map(|k| (NodeId(k), Some(0.9))).collect();
        assert!(!s.read(first.iter().copied()));
        assert_eq!(s.stations.len(), IW_MAX_SPY);
        // Station 9 is beyond IW_MAX_SPY: its collapse is not seen.
        let mut r = first.clone();
        r[9].1 = Some(0.1);
        assert!(!s.read(r.iter().copied()));
        // Stale (unchanged) values do not move the average.
        for _ in 0..5 {
            assert!(!s.read(first.iter().copied()));
        }
        assert_eq!(s.stations[0].2, 0.9);
        // A small dip is no interference; a drop of more than 0.1 below average is.
        r = first.clone();
        r[3].1 = Some(0.85);
        assert!(!s.read(r.iter().copied()));
        r[3].1 = Some(0.7);
        assert!(s.read(r.iter().copied()));
        // A station without a quality (a wire) is not spied.
        assert!(!s.read([(NodeId(20), None)].into_iter()));
    }
}
