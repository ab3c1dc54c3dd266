//! An 802.11 cell as a medium: an infrastructure BSS on one channel, with the DCF
//! (IEEE 802.11-2016 §10.3) as its channel access.
//!
//! # The model
//!
//! A medium is one channel; it carries one BSS, or several (co-channel cells) that share
//! the air. In each BSS the first port is the AP, the others its stations; a station
//! reaches only its AP (station → station traffic is routed through it, as a BSS relays
//! it, §4.3.5), the AP reaches every station of its BSS. Every port on the channel hears
//! every other (one collision domain: no hidden terminals), whichever BSS it belongs to. Each
//! port has a driver buffer of `buffer` packets below its egress qdisc (the port is
//! `ready()` while it has room); the head of the buffer is the frame the MAC is sending.
//! Every frame between the AP and station `k` goes at station `k`'s fixed PHY rate (rate
//! control off, the seeds' setting). MAC frames (RTS, CTS, ACK) are timing only: they never
//! enter the packet arena.
//!
//! **Back-off, event-driven.** The medium keeps one reference instant, `idle_from`: the
//! end of the last busy period plus DIFS (or EIFS after a frame the others could not
//! decode, §10.3.2.3.7). A station's back-off counter `b` counts slots from `idle_from`, so
//! it expires at `idle_from + b·slot`; the medium arms one timer at the earliest expiry of
//! a station with a frame, and when it fires every station whose counter expires then
//! transmits (several = a collision). The others freeze (§10.3.4.3): they lose the slots
//! that were wholly idle, `⌊(now − idle_from)/slot⌋`, and resume from the next `idle_from`.
//! No event is spent per slot, and a transmission costs two events (its start and its
//! outcome), whatever the number of stations. A station with an empty buffer keeps
//! counting its post-back-off the same way, lazily.
//!
//! **Access.** A frame arriving at an idle station whose medium has been idle for DIFS (and
//! whose post-back-off is over) is sent at once (§10.3.4.2); otherwise the station draws a
//! back-off uniformly in `[0, CW]` (its stream `cell:<name>:backoff:<node>`). CW starts at
//! CWmin, becomes `2·CW + 1` (capped at CWmax) after each failed attempt, and returns to
//! CWmin after a success or a discard (§10.3.3); every transmission is followed by a new
//! back-off (post-back-off).
//!
//! **Exchanges.** A lone transmitter's frame exchange is `DATA SIFS ACK`, or `RTS SIFS CTS
//! SIFS DATA SIFS ACK` when the MPDU is longer than `rts_threshold` (§10.3.2.6). Everyone
//! hears the whole exchange (carrier sense, and the NAV that RTS/CTS and the Duration field
//! set, §10.3.2.4, cover the same interval in one collision domain), so its duration is
//! known when it starts. Several transmitters at once collide: the medium is busy for the
//! longest of their first frames (RTS or DATA), none is acknowledged, and everyone resumes
//! after EIFS. The colliding senders themselves would resume after their ACKTimeout
//! (§10.3.2.9), which ends before EIFS; this model aligns them to EIFS (one shared slot
//! reference, the assumption of Bianchi's model as well), which differs from ns-3 by at
//! most one slot per collision. A data frame is corrupted with the probability of the
//! station's bit-error model (`ber`, applied to the MPDU's bits; control frames are not
//! corrupted): the receiver sends no ACK and the others resume after EIFS.
//!
//! **Retries.** Failed attempts of a frame no longer than `rts_threshold` and failed RTS
//! count on the short retry counter, failed data frames sent after an RTS on the long one;
//! a frame is discarded when a counter reaches its limit (`short_retry_limit` 7,
//! `long_retry_limit` 4; §10.3.4.4). Its drop reason is `collision` when every attempt
//! collided, `channel_error` when every attempt was corrupted, `retry_limit` when both
//! happened.
//!
//! **Delivery.** The receiver gets the packet at the end of the data frame; the sender's
//! buffer frees its slot then too.

use super::phy::{Phy, CTS_BYTES, DATA_OVERHEAD_BYTES, RTS_BYTES};
use crate::channel::{BitErrorModel, BitErrors};
use crate::engine::{stream, SimRng, SimTime, TimerId};
use crate::link::{LinkCtx, LinkEffect, LinkView, Medium, MediumBuild, Neighbour};
use crate::metrics::{Column, Table};
use crate::packet::{DropReason, Location, NodeId, PacketId};
use crate::topology::IfaceId;
use rand::Rng;
use std::collections::VecDeque;

/// The event at the end of an exchange's deciding frame.
const OUTCOME: u16 = 0;

/// Per-cell MAC settings (the PHY's are in [`Phy`]).
#[derive(Clone, Debug)]
pub struct DcfConf {
    /// MPDUs longer than this (bytes) are preceded by RTS/CTS.
    pub rts_threshold: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
}

impl Default for DcfConf {
    /// dot11RTSThreshold off (Linux's default, 2347 = larger than any MPDU), retry limits
    /// 7 and 4 (dot11ShortRetryLimit, dot11LongRetryLimit).
    fn default() -> Self {
        DcfConf {
            rts_threshold: 2347,
            short_retry_limit: 7,
            long_retry_limit: 4,
        }
    }
}

/// One port of the cell: the AP (port 0) or a station.
pub struct PortConf {
    /// The interface's name, `<node>.<cell>` (streams and the stations table use it).
    pub name: String,
    pub iface: IfaceId,
    pub node: NodeId,
    /// PHY rate of frames between this station and the AP, kbit/s (the AP's own is unused).
    pub rate_kbps: u32,
    /// Driver buffer, packets.
    pub buffer: u32,
    /// Bit errors of data frames between this station and the AP (either direction).
    pub errors: BitErrors,
}

/// Counters of one port, since the warm-up.
#[derive(Clone, Debug, Default)]
struct StaStats {
    /// Data frames acknowledged.
    sent: u64,
    /// Attempts beyond each frame's first.
    retries: u64,
    /// Attempts that collided.
    collisions: u64,
    /// Attempts corrupted by the channel.
    errors: u64,
    drops_collision: u64,
    drops_channel: u64,
    drops_retry: u64,
    /// Air time of this port's exchanges (its frames and the responses to them), ns.
    airtime: u64,
    /// Sum over acknowledged frames of the time from reaching the head of the buffer to
    /// the end of the data frame, ns.
    access_delay: u64,
}

struct Sta {
    buf: VecDeque<PacketId>,
    cap: usize,
    /// Slots of back-off left, counted from the cell's `idle_from` (`None`: none pending).
    backoff: Option<u32>,
    cw: u32,
    src: u32,
    lrc: u32,
    /// Whether the head frame's attempts so far collided / were corrupted.
    collided: bool,
    corrupted: bool,
    /// When this station transmits (`MAX`: it is not contending).
    tx_at: SimTime,
    /// When the head frame reached the head.
    head_since: SimTime,
    rng: SimRng,
    /// Errors of this station's frames to the AP, and of the AP's frames to it.
    errors_up: BitErrorModel,
    errors_down: BitErrorModel,
    /// EWMA of attempt outcomes (1 = acknowledged) of this station's frames to its AP, and
    /// of the AP's frames to it (an AP: unused).
    quality_up: Option<f64>,
    quality_down: Option<f64>,
    stats: StaStats,
}

/// What the exchange on the air will come to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Success,
    Corrupted,
    Collision,
}

pub struct Cell {
    name: String,
    phy: Phy,
    conf: DcfConf,
    slot: u64,
    difs: SimTime,
    eifs: SimTime,
    ports: Vec<IfaceId>,
    names: Vec<String>,
    nodes: Vec<NodeId>,
    /// Per port: its AP's port (an AP: itself).
    ap_of: Vec<u32>,
    /// Per port: the index of its cell (BSS) in `cells`.
    cell_of: Vec<u32>,
    cells: Vec<String>,
    rate_kbps: Vec<u32>,
    neighbours: Vec<Vec<Neighbour>>,
    sta: Vec<Sta>,
    /// Packets in the AP's buffer per destination port (its `hw_backlog` per neighbour).
    ap_backlog: Vec<u32>,
    /// Start of back-off counting: end of the last busy period + DIFS/EIFS.
    idle_from: SimTime,
    /// Ports transmitting in the exchange on the air (empty: none).
    on_air: Vec<u32>,
    outcome: Outcome,
    timer: TimerId,
    stats_from: SimTime,
}

impl Cell {
    /// One BSS alone on its channel: `ports[0]` is the AP.
    pub fn new(
        name: String,
        phy: Phy,
        conf: DcfConf,
        ports: &[PortConf],
        seed: u64,
        stats_from: SimTime,
    ) -> Cell {
        Cell::shared(phy, conf, &[(name, ports)], seed, stats_from)
    }

    /// Several BSSs on one channel, each `(cell name, ports)` with its AP first; the
    /// medium takes the first cell's name.
    pub fn shared(
        phy: Phy,
        conf: DcfConf,
        bsses: &[(String, &[PortConf])],
        seed: u64,
        stats_from: SimTime,
    ) -> Cell {
        let mut ap_of = Vec::new();
        let mut cell_of = Vec::new();
        let mut ports: Vec<&PortConf> = Vec::new();
        for (c, (_, bss)) in bsses.iter().enumerate() {
            let ap = ports.len() as u32;
            for pc in bss.iter() {
                ap_of.push(ap);
                cell_of.push(c as u32);
                ports.push(pc);
            }
        }
        let neighbours = (0..ports.len())
            .map(|p| {
                if ap_of[p] as usize == p {
                    (0..ports.len())
                        .filter(|&q| q != p && ap_of[q] as usize == p)
                        .map(|q| Neighbour {
                            node: ports[q].node,
                            iface: ports[q].iface,
                        })
                        .collect()
                } else {
                    let ap = ports[ap_of[p] as usize];
                    vec![Neighbour {
                        node: ap.node,
                        iface: ap.iface,
                    }]
                }
            })
            .collect();
        let sta = ports
            .iter()
            .enumerate()
            .map(|(p, pc)| {
                let name = &bsses[cell_of[p] as usize].0;
                let is_ap = ap_of[p] as usize == p;
                let who = &pc.name;
                Sta {
                    buf: VecDeque::with_capacity(pc.buffer as usize),
                    cap: pc.buffer as usize,
                    backoff: None,
                    cw: phy.cw_min,
                    src: 0,
                    lrc: 0,
                    collided: false,
                    corrupted: false,
                    tx_at: SimTime::MAX,
                    head_since: SimTime::ZERO,
                    rng: stream(seed, &format!("cell:{name}:backoff:{who}")),
                    errors_up: BitErrorModel::new(
                        pc.errors,
                        stream(seed, &format!("cell:{name}:ber:{who}:up")),
                    ),
                    errors_down: BitErrorModel::new(
                        if is_ap { BitErrors::None } else { pc.errors },
                        stream(seed, &format!("cell:{name}:ber:{who}:down")),
                    ),
                    quality_up: None,
                    quality_down: None,
                    stats: StaStats::default(),
                }
            })
            .collect();
        Cell {
            slot: phy.slot.0,
            difs: phy.difs(),
            eifs: phy.eifs(),
            phy,
            conf,
            name: bsses[0].0.clone(),
            ap_of,
            cell_of,
            cells: bsses.iter().map(|b| b.0.clone()).collect(),
            ports: ports.iter().map(|p| p.iface).collect(),
            names: ports.iter().map(|p| p.name.clone()).collect(),
            nodes: ports.iter().map(|p| p.node).collect(),
            rate_kbps: ports.iter().map(|p| p.rate_kbps).collect(),
            neighbours,
            ap_backlog: vec![0; ports.len()],
            idle_from: SimTime::ZERO,
            on_air: Vec::with_capacity(ports.len()),
            outcome: Outcome::Success,
            timer: TimerId(u32::MAX),
            stats_from,
            sta,
        }
    }

    /// The port a frame from `port` carrying `pkt` goes to, if it is a neighbour.
    fn peer_of(&self, port: usize, next_hop: NodeId) -> Option<usize> {
        if self.is_ap(port) {
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

    /// Slots wholly idle between `idle_from` and `now`.
    #[inline]
    fn idle_slots(&self, now: SimTime) -> u64 {
        if now > self.idle_from {
            (now.0 - self.idle_from.0) / self.slot
        } else {
            0
        }
    }

    #[inline]
    fn expiry(&self, b: u32) -> SimTime {
        SimTime(self.idle_from.0 + b as u64 * self.slot)
    }

    fn draw(&mut self, p: usize) -> u32 {
        let s = &mut self.sta[p];
        s.rng.random_range(0..=s.cw)
    }

    /// Station `p` has a new head frame at `now` and is not on the air: when does it send?
    fn contend(&mut self, p: usize, now: SimTime) {
        let elapsed = self.idle_slots(now);
        let idle = now >= self.idle_from && self.on_air.is_empty();
        let b = match self.sta[p].backoff {
            // A post-back-off that ran out while the medium was idle: send at once.
            Some(b) if idle && b as u64 <= elapsed => None,
            Some(b) => Some(b),
            None if idle => None,
            None => Some(self.draw(p)),
        };
        self.sta[p].backoff = b;
        self.sta[p].tx_at = match b {
            Some(b) => self.expiry(b),
            None => now,
        };
    }

    /// Arms the timer at the earliest transmission of a contending station.
    fn rearm(&mut self, cx: &mut LinkCtx<'_>) {
        let next = self
            .sta
            .iter()
            .map(|s| s.tx_at)
            .min()
            .unwrap_or(SimTime::MAX);
        if next == SimTime::MAX {
            cx.cancel(self.timer);
        } else {
            cx.arm(self.timer, next);
        }
    }

    /// The PHY rate of frames between port `p` and port `q` (one of them the AP).
    #[inline]
    fn rate(&self, p: usize, q: usize) -> u32 {
        self.rate_kbps[if self.is_ap(p) { q } else { p }]
    }

    /// The timer fired: every station whose back-off expires now transmits.
    fn transmit(&mut self, cx: &mut LinkCtx<'_>) {
        let now = cx.now;
        if !self.sta.iter().any(|s| s.tx_at == now) {
            return;
        }
        let elapsed = self.idle_slots(now);
        debug_assert!(self.on_air.is_empty());
        for p in 0..self.sta.len() {
            let s = &mut self.sta[p];
            if s.tx_at == now {
                s.tx_at = SimTime::MAX;
                s.backoff = None;
                self.on_air.push(p as u32);
            } else if let Some(b) = s.backoff {
                // Freeze: the wholly idle slots count, the rest resumes later.
                let left = b as u64 - elapsed.min(b as u64);
                if left == 0 {
                    // Only a post-back-off (no frame) can have run out before now.
                    debug_assert!(s.buf.is_empty());
                    s.backoff = None;
                } else {
                    s.backoff = Some(left as u32);
                    if s.tx_at != SimTime::MAX {
                        s.tx_at = SimTime::MAX; // set again when the medium is idle
                    }
                }
            }
        }
        let sifs = self.phy.sifs;
        let (decide, busy_end, outcome) = if self.on_air.len() == 1 {
            let p = self.on_air[0] as usize;
            let pkt = *self.sta[p].buf.front().expect("a transmitter has a frame");
            let (size, next_hop) = {
                let k = cx.packets.get(pkt);
                (k.size_bytes, k.next_hop)
            };
            cx.tx_start(self.ports[p], pkt);
            let q = self.peer_of(p, next_hop).unwrap_or(p);
            let kbps = self.rate(p, q);
            let mpdu = size + DATA_OVERHEAD_BYTES;
            let ctl = self.phy.response_kbps(kbps);
            let mut t = now;
            if mpdu > self.conf.rts_threshold {
                t = t
                    + self.phy.duration(RTS_BYTES, ctl)
                    + sifs
                    + self.phy.duration(CTS_BYTES, ctl)
                    + sifs;
            }
            let data_end = t + self.phy.data_duration(size, kbps);
            let errors = if self.is_ap(p) {
                &mut self.sta[q].errors_down
            } else {
                &mut self.sta[p].errors_up
            };
            if errors.lost(8 * mpdu as u64) {
                (data_end, data_end + self.eifs, Outcome::Corrupted)
            } else {
                let ack_end = data_end + sifs + self.phy.ack_duration(kbps);
                (data_end, ack_end + self.difs, Outcome::Success)
            }
        } else {
            // A collision: each sends its first frame; the longest decides.
            let mut end = now;
            for k in 0..self.on_air.len() {
                let p = self.on_air[k] as usize;
                let pkt = *self.sta[p].buf.front().expect("a transmitter has a frame");
                let (size, next_hop) = {
                    let k = cx.packets.get(pkt);
                    (k.size_bytes, k.next_hop)
                };
                cx.tx_start(self.ports[p], pkt);
                let q = self.peer_of(p, next_hop).unwrap_or(p);
                let kbps = self.rate(p, q);
                let first = if size + DATA_OVERHEAD_BYTES > self.conf.rts_threshold {
                    self.phy.duration(RTS_BYTES, self.phy.response_kbps(kbps))
                } else {
                    self.phy.data_duration(size, kbps)
                };
                if now >= self.stats_from {
                    self.sta[p].stats.airtime += first.0;
                }
                end = end.max(now + first);
            }
            (end, end + self.eifs, Outcome::Collision)
        };
        if outcome != Outcome::Collision && now >= self.stats_from {
            let p = self.on_air[0] as usize;
            self.sta[p].stats.airtime += (busy_end - now).0
                - if outcome == Outcome::Success {
                    self.difs.0
                } else {
                    self.eifs.0
                };
        }
        self.outcome = outcome;
        self.idle_from = busy_end;
        cx.schedule(decide, OUTCOME);
    }

    /// The exchange's deciding frame ended: deliver or count the failure, then contend.
    fn settle(&mut self, cx: &mut LinkCtx<'_>) {
        let now = cx.now;
        let counting = now >= self.stats_from;
        for k in 0..self.on_air.len() {
            let p = self.on_air[k] as usize;
            let pkt = *self.sta[p].buf.front().expect("a transmitter has a frame");
            let (size, next_hop) = {
                let k = cx.packets.get(pkt);
                (k.size_bytes, k.next_hop)
            };
            let q = self.peer_of(p, next_hop);
            let link = match q {
                Some(q) if self.is_ap(p) => q,
                _ => p,
            };
            let up = !self.is_ap(p);
            let long = size + DATA_OVERHEAD_BYTES > self.conf.rts_threshold;
            let done = match self.outcome {
                Outcome::Success => {
                    ewma(&mut self.sta[link], up, 1.0);
                    let s = &mut self.sta[p];
                    if counting {
                        s.stats.sent += 1;
                        s.stats.access_delay += (now - s.head_since).0;
                    }
                    match q {
                        Some(q) => cx.emit(LinkEffect::Deliver {
                            pkt,
                            to: self.ports[q],
                        }),
                        None => cx.emit(LinkEffect::Drop {
                            pkt,
                            reason: DropReason::NoRoute,
                        }),
                    }
                    true
                }
                o => {
                    let (short_limit, long_limit) =
                        (self.conf.short_retry_limit, self.conf.long_retry_limit);
                    ewma(&mut self.sta[link], up, 0.0);
                    let s = &mut self.sta[p];
                    if o == Outcome::Collision {
                        s.collided = true;
                    } else {
                        s.corrupted = true;
                    }
                    if counting {
                        if o == Outcome::Collision {
                            s.stats.collisions += 1;
                        } else {
                            s.stats.errors += 1;
                        }
                    }
                    // An RTS failure or a short frame: the short counter; a long data
                    // frame after a CTS: the long one.
                    let exhausted = if long && o == Outcome::Corrupted {
                        s.lrc += 1;
                        s.lrc >= long_limit
                    } else {
                        s.src += 1;
                        s.src >= short_limit
                    };
                    if exhausted {
                        let reason = match (s.collided, s.corrupted) {
                            (true, false) => DropReason::Collision,
                            (false, true) => DropReason::ChannelError,
                            _ => DropReason::RetryLimit,
                        };
                        if counting {
                            match reason {
                                DropReason::Collision => s.stats.drops_collision += 1,
                                DropReason::ChannelError => s.stats.drops_channel += 1,
                                _ => s.stats.drops_retry += 1,
                            }
                        }
                        cx.emit(LinkEffect::Drop { pkt, reason });
                    } else {
                        s.cw = (2 * s.cw + 1).min(self.phy.cw_max);
                        if counting {
                            s.stats.retries += 1;
                        }
                    }
                    exhausted
                }
            };
            let s = &mut self.sta[p];
            if done {
                let was_full = s.buf.len() == s.cap;
                s.buf.pop_front();
                s.cw = self.phy.cw_min;
                s.src = 0;
                s.lrc = 0;
                s.collided = false;
                s.corrupted = false;
                s.head_since = now;
                if self.ap_of[p] as usize == p {
                    if let Some(q) = q {
                        self.ap_backlog[q] -= 1;
                    }
                }
                if was_full {
                    cx.emit(LinkEffect::Ready(self.ports[p]));
                }
            }
            // A new back-off after every attempt (post-back-off if the buffer is empty).
            let b = self.draw(p);
            self.sta[p].backoff = Some(b);
        }
        self.on_air.clear();
        for p in 0..self.sta.len() {
            if !self.sta[p].buf.is_empty() {
                self.sta[p].tx_at = match self.sta[p].backoff {
                    Some(b) => self.expiry(b),
                    // Frozen with a frame and no back-off cannot happen: a station with a
                    // frame either transmitted or kept a counter.
                    None => self.idle_from,
                };
            }
        }
        self.rearm(cx);
    }

    /// The `stations` table rows of this cell (see [`Medium::report`]).
    fn rows(&self, now: SimTime, t: &mut StationRows) {
        let span = now.saturating_sub(self.stats_from).as_secs_f64().max(1e-12);
        for (p, s) in self.sta.iter().enumerate() {
            let st = &s.stats;
            t.cell.push(self.cells[self.cell_of[p] as usize].clone());
            t.station.push(self.names[p].clone());
            t.role.push(if self.is_ap(p) { "ap" } else { "sta" }.into());
            t.rate.push(if self.is_ap(p) {
                0.0
            } else {
                self.rate_kbps[p] as f64 * 1e3
            });
            t.sent.push(st.sent);
            t.retries.push(st.retries);
            t.collisions.push(st.collisions);
            t.errors.push(st.errors);
            t.drops_collision.push(st.drops_collision);
            t.drops_channel.push(st.drops_channel);
            t.drops_retry.push(st.drops_retry);
            t.airtime.push(st.airtime as f64 / 1e9);
            t.share.push(st.airtime as f64 / 1e9 / span);
            t.delay.push(if st.sent > 0 {
                st.access_delay as f64 / st.sent as f64 / 1e6
            } else {
                f64::NAN
            });
        }
    }
}

/// Folds an attempt outcome into a link's delivery estimate (EWMA, weight ¼ on the new
/// outcome, as Minstrel's default EWMA level of 75 % on the old).
fn ewma(s: &mut Sta, up: bool, outcome: f64) {
    let q = if up {
        &mut s.quality_up
    } else {
        &mut s.quality_down
    };
    *q = Some(q.map_or(outcome, |x| 0.75 * x + 0.25 * outcome));
}

/// Columns of the `stations` table, filled cell by cell.
#[derive(Default)]
pub struct StationRows {
    cell: Vec<String>,
    station: Vec<String>,
    role: Vec<String>,
    rate: Vec<f64>,
    sent: Vec<u64>,
    retries: Vec<u64>,
    collisions: Vec<u64>,
    errors: Vec<u64>,
    drops_collision: Vec<u64>,
    drops_channel: Vec<u64>,
    drops_retry: Vec<u64>,
    airtime: Vec<f64>,
    share: Vec<f64>,
    delay: Vec<f64>,
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
        s.buf.len() < s.cap
    }

    fn send(&mut self, port: usize, pkt: PacketId, cx: &mut LinkCtx<'_>) {
        debug_assert!(self.ready(port));
        // Routing only picks neighbours on this cell; a frame for anyone else has no
        // receiver (and no PHY rate).
        let next_hop = cx.packets.get(pkt).next_hop;
        match self.peer_of(port, next_hop) {
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
        let s = &mut self.sta[port];
        s.buf.push_back(pkt);
        let on_air = self.on_air.contains(&(port as u32));
        if s.buf.len() == 1 && !on_air {
            s.head_since = cx.now;
            self.contend(port, cx.now);
            if self.on_air.is_empty() {
                self.rearm(cx);
            }
        }
    }

    fn on_event(&mut self, _key: u16, cx: &mut LinkCtx<'_>) {
        self.settle(cx);
    }

    fn on_timer(&mut self, _key: u32, cx: &mut LinkCtx<'_>) {
        self.transmit(cx);
    }

    /// The PHY rate of the link (fixed per station); the EWMA (weight ¼) of the attempt
    /// outcomes on that link in that direction (what the driver saw: ACKed or not); whether
    /// no exchange is on the air; the driver buffer's packets for that neighbour. The view
    /// changes with every exchange; no `ViewChanged` is emitted for that (the rate, which
    /// qdiscs act on, is fixed), so qdiscs read it when they dequeue.
    fn view(&self, port: usize, neighbour: NodeId) -> Option<LinkView> {
        let q = self.peer_of(port, neighbour)?;
        Some(LinkView {
            neighbour,
            rate_bps: self.rate(port, q) as u64 * 1000,
            quality: if self.is_ap(port) {
                self.sta[q].quality_down
            } else {
                self.sta[port].quality_up
            },
            rssi_dbm: None,
            can_send: self.on_air.is_empty(),
            hw_backlog: if self.is_ap(port) {
                self.ap_backlog[q]
            } else {
                self.sta[port].buf.len() as u32
            },
        })
    }

    fn held(&self, out: &mut Vec<(Location, u64)>) {
        for (p, s) in self.sta.iter().enumerate() {
            out.push((Location::Transmitting(self.ports[p].0), s.buf.len() as u64));
        }
    }

    fn report(&self, now: SimTime, tables: &mut Vec<(String, Table)>) {
        let mut rows = StationRows::default();
        self.rows(now, &mut rows);
        let t = match tables.iter_mut().find(|(n, _)| n == "stations") {
            Some(t) => t,
            None => {
                tables.push(("stations".into(), Table::default()));
                tables.last_mut().unwrap()
            }
        };
        append(&mut t.1, rows);
    }
}

/// Appends `rows` to the `stations` table `t` (creating its columns).
fn append(t: &mut Table, r: StationRows) {
    let cols: Vec<(&str, Column)> = vec![
        ("cell", Column::Str(r.cell)),
        ("station", Column::Str(r.station)),
        ("role", Column::Str(r.role)),
        ("phy_rate_bps", Column::F64(r.rate)),
        ("frames_sent", Column::U64(r.sent)),
        ("retries", Column::U64(r.retries)),
        ("collisions", Column::U64(r.collisions)),
        ("channel_errors", Column::U64(r.errors)),
        ("drops_collision", Column::U64(r.drops_collision)),
        ("drops_channel_error", Column::U64(r.drops_channel)),
        ("drops_retry_limit", Column::U64(r.drops_retry)),
        ("airtime_s", Column::F64(r.airtime)),
        ("airtime_share", Column::F64(r.share)),
        ("mean_access_delay_ms", Column::F64(r.delay)),
    ];
    if t.columns.is_empty() {
        for (n, c) in cols {
            t.push(n, c);
        }
        return;
    }
    for ((_, dst), (_, src)) in t.columns.iter_mut().zip(cols) {
        match (dst, src) {
            (Column::Str(a), Column::Str(b)) => a.extend(b),
            (Column::U64(a), Column::U64(b)) => a.extend(b),
            (Column::F64(a), Column::F64(b)) => a.extend(b),
            _ => unreachable!("the stations table's columns have fixed types"),
        }
    }
}
