//! `cif-q`: Channel-condition Independent Fair Queueing (Ng, Stoica & Zhang, INFOCOM'98),
//! in the two versions seed 000 ran on its NAP (§2.5, §5.1): **CIF-Simple** and
//! **CIF-Complete** (`variant = "simple" | "complete"`).
//!
//! # The algorithm (ALGORITHMS.md §3 and §7; choices marked *choice*)
//!
//! Sessions are the classes of the qdisc, or one per flow (5-tuple) without classes, with
//! weight r_i (the class `weight`, 1 per flow). An error-free **reference system**, STFQ
//! over the *active* sessions A, picks who owns the next slot: `i = argmin_A v_i`, and
//! `v_i += l / r_i` with l the length of the packet actually sent in that slot. `lag_i` is
//! reference service minus real service, in bytes: > 0 lagging, < 0 leading, and
//! Σ lag_i = 0 at all times (every transfer moves l bytes from one session to another).
//!
//! A session *can send* when it has a packet, its channel is good and (on a virtual device
//! asked per member) the packet leaves by the asking member. The channel is the two-state
//! model of CIF-Q, good or bad, and where the state comes from is `csi`:
//!
//! - **`csi = "rate"`** (the default; seed 000 §2.5: CIFQ "uses the data rate of each flow
//!   of traffic as the Channel State Information for that flow"). The paper gives no rule
//!   that turns a rate into good/bad; *choice*: the paper's own neighbouring definition,
//!   BoTh-WiN's interference detection (§3.1, Algorithm 2 lines 30–41, Fig. 6), per
//!   session instead of per interface. Every `sample_period` (100 ms, BoTh-WiN's "not so
//!   frequent" sampling) each session's rate is sampled: the bytes it was served since the
//!   last sample over the time since. Its moving average is the mean of the last
//!   `ma_window` (10) samples, this one included. A sample below the average adds one to
//!   the session's count, one at or above it resets the count to 0, and the channel is
//!   *bad* while the count exceeds `threshold` (3: "three consecutive samples … lower than
//!   the MA" confirm a persistent drop, §3.1). A session held for a bad channel is served
//!   nothing, so its samples are 0: once its average has decayed to 0 (`ma_window`
//!   samples) the next sample is no longer below it and the channel is good again — the
//!   rate CSI cannot tell a held flow from an idle one, so it probes again. Samples are
//!   taken at the first call (enqueue, dequeue, peek) after a period has passed, as
//!   BoTh-WiN samples in its dequeue; while packets wait and nothing can be sent, the
//!   qdisc asks to be woken at the next sample (the watchdog a Linux qdisc arms).
//! - **`csi = "link_quality"`**: *good* when the driver's link quality towards the
//!   packet's next hop ([`crate::link::LinkView::quality`], the delivery probability its
//!   ACK history estimates, or HCI `Read_Link_Quality` on a piconet) is at least
//!   `good_quality` (*choice*: 0.5); no quality (a wire) is good.
//!
//! 1. i not leading and can send: i sends.
//! 2. i leading and some lagging session can send: CIF-Simple gives the slot up always (no
//!    graceful degradation, α = 0); CIF-Complete keeps a fraction `alpha` of its turns —
//!    it sends iff `c_i ≤ α·v_i` (then `c_i += l/r_i`), with `c_i := α·v_i` when it
//!    becomes leading. Else (nobody to compensate) i sends.
//! 3. i gave its slot up or cannot send: the slot goes to a lagging session that can send
//!    — CIF-Simple: the largest `lag_j / r_j` (*choice*; the most behind first),
//!    CIF-Complete: the smallest compensation tag `g_j` (`g_j += l/r_j` per compensation,
//!    ALGORITHMS.md §7 reading (a), which shares compensation in proportion to r_j) — or,
//!    if none lags, to any session that can send: CIF-Complete by the smallest extra-service
//!    tag `f_j` (`f_j += l/r_j`), CIF-Simple by the smallest `v_j`. Then `lag_i += l`,
//!    `lag_j −= l`. If nobody can send, the slot stays idle and nothing changes.
//!
//! A session joins A when a packet arrives and it is not in A, with
//! `v_i = max(v_i, min_A v)` (and likewise `f`, `g`, so a newcomer cannot claim past
//! turns). It leaves A when its queue is empty and it is not leading; its lag (≥ 0) is then
//! spread over A in proportion to the weights, so Σ lag stays 0. A leading session whose
//! queue empties stays in A until its lead is consumed (its turns go to others by case 3).
//!
//! **Virtual time advance.** Seed 000 §5.1: CIF-Complete's "virtual time advances by the
//! length of the packet sent l", CIF-Simple's "with l/r_i", r_i "the rate of the flow i",
//! and CIF-Simple "chooses the flow to dequeue by finding the lowest value of
//! lag_i/r_i … Thus, a flow with high bandwidth can gain its network share more easily".
//! With `csi = "rate"`, CIF-Simple does exactly that with r_i the session's measured rate
//! (its moving average, bytes/s): `v_i += l/r_i`, and a slot given up goes to the lagging
//! session with the lowest `lag_j/r_j`. *Choice*: r_i is floored at one MTU (the
//! device's) per sample period, the smallest rate the sampling resolves, so that a
//! session with no measured rate yet (or a held one) still has finite tags.
//! CIF-Complete, and both variants with `csi = "link_quality"`, advance by l/r_i with r_i
//! the configured weight (CIF-Q's reserved rate; 1 by default, so l) and CIF-Simple's
//! compensation goes to the largest `lag_j/r_j` (the most behind first).
//!
//! **On a virtual device** the reference system is one STFQ over the sessions of all
//! members (seed 000 runs CIF at imq0 as if WLAN and Bluetooth were one channel, which is
//! its point in §6). A session whose packets leave by another member than the asker cannot
//! send in this slot (case 3), so each member is work-conserving over its own sessions and
//! the lags record how far each session is from its share of the one reference channel.
//!
//! Selection is a linear scan over the active sessions (a NAP has a handful); lags and
//! tags are `f64` (the seed notes CIFQ's floating point, §6).

use super::fair_classes::{FairClassConf, FairClasses};
use super::{BuildCtx, Qdisc, QdiscCtx, Verdict};
use crate::conf::{Duration, ScenarioError};
use crate::engine::SimTime;
use crate::packet::{NodeId, PacketId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Which of seed 000's two CIF-Q implementations.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CifVariant {
    /// CIF-Simple: lag and compensation, no graceful degradation of leaders, no
    /// extra-service tags.
    Simple,
    /// CIF-Complete (CIF-Q's full version): leaders keep `alpha` of their turns.
    #[default]
    Complete,
}

/// Where a session's channel state comes from.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CifCsi {
    /// The session's measured data rate against its moving average (seed 000 §2.5).
    #[default]
    Rate,
    /// The driver's link quality towards the packet's next hop (≥ `good_quality`).
    LinkQuality,
}

/// Most samples the rate moving average may span.
const MAX_WINDOW: usize = 64;

/// Parameters of `cif-q`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CifQConf {
    /// `"simple"` (CIF-Simple) or `"complete"` (CIF-Complete, the default).
    #[serde(default)]
    pub variant: CifVariant,
    /// CIF-Complete's graceful degradation: the fraction of its reference turns a leading
    /// session keeps while lagging sessions wait, 0 to 1. Default 0.5. Not allowed with
    /// `variant = "simple"` (which has α = 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Channel state information: `"rate"` (the session's measured data rate against its
    /// moving average, seed 000 §2.5; the default) or `"link_quality"` (the driver's).
    #[serde(default)]
    pub csi: CifCsi,
    /// `csi = "rate"`: rate sampling period. Default 100 ms.
    #[serde(default = "default_period")]
    pub sample_period: Duration,
    /// `csi = "rate"`: samples in the moving average, 1 to 64. Default 10.
    #[serde(default = "default_window")]
    pub ma_window: u32,
    /// `csi = "rate"`: the channel is bad while more than this many consecutive samples
    /// were below the moving average. Default 3.
    #[serde(default = "default_threshold")]
    pub threshold: u32,
    /// `csi = "link_quality"`: the channel to a next hop is *good* when the driver's link
    /// quality (delivery probability) is at least this, 0 to 1. Default 0.5.
    #[serde(default = "default_good_quality")]
    pub good_quality: f64,
    /// Weighted sessions; absent: one session per flow (5-tuple), weight 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<FairClassConf>,
    /// Class taking packets no class matches; absent: they are dropped (reason `policy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Packets each session may hold (unless its class sets a limit). Default 1000.
    #[serde(default = "super::stfq::default_limit")]
    #[schemars(range(min = 1))]
    pub limit: u32,
}

fn default_good_quality() -> f64 {
    0.5
}
fn default_period() -> Duration {
    Duration(SimTime::from_millis(100))
}
fn default_window() -> u32 {
    10
}
fn default_threshold() -> u32 {
    3
}

/// A session's rate measurement (`csi = "rate"`): BoTh-WiN's per-interface
/// `struct btwn_flow_data` (seed 000 §3.1) kept per session.
#[derive(Clone)]
struct RateCsi {
    /// Bytes served since the last sample.
    bytes: u64,
    /// The last samples, bytes/s (ring of `window`).
    hist: [u64; MAX_WINDOW],
    n: usize,
    pos: usize,
    /// Consecutive samples below the moving average.
    below: u32,
}

impl Default for RateCsi {
    fn default() -> Self {
        RateCsi {
            bytes: 0,
            hist: [0; MAX_WINDOW],
            n: 0,
            pos: 0,
            below: 0,
        }
    }
}

impl RateCsi {
    /// Takes a sample over `dt_ns` (> 0): the rate, then the count against the average.
    fn sample(&mut self, dt_ns: u64, window: usize) {
        let rate = (self.bytes as u128 * 1_000_000_000 / dt_ns as u128) as u64;
        self.bytes = 0;
        self.hist[self.pos] = rate;
        self.pos = (self.pos + 1) % window;
        self.n = (self.n + 1).min(window);
        let sum: u64 = self.hist[..self.n].iter().sum();
        // rate < sum / n, exactly.
        if (rate as u128) * (self.n as u128) < sum as u128 {
            self.below += 1;
        } else {
            self.below = 0;
        }
    }

    /// The moving average, bytes/s (0 before the first sample).
    fn average(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.hist[..self.n].iter().sum::<u64>() as f64 / self.n as f64
        }
    }
}

/// One session's state.
#[derive(Default)]
struct Session {
    queue: VecDeque<(PacketId, u32)>,
    /// Weight r_i.
    r: f64,
    /// Reference start tag v_i.
    v: f64,
    /// Reference service minus real service, bytes.
    lag: f64,
    /// CIF-Complete: normalised service kept while leading.
    c: f64,
    /// CIF-Complete: extra-service tag.
    f: f64,
    /// CIF-Complete: compensation tag.
    g: f64,
    active: bool,
    /// Rate CSI (`csi = "rate"`).
    csi: RateCsi,
}

/// What the next slot does: the reference owner `i`, the sender `j`, its packet.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Slot {
    i: usize,
    j: usize,
    pkt: PacketId,
    len: u32,
    /// Whether i, leading, kept this turn under graceful degradation (`c_i += l/r_i`).
    kept: bool,
    /// How j got the slot when j ≠ i.
    via: Via,
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum Via {
    Own,
    Compensation,
    Extra,
}

pub struct CifQ {
    variant: CifVariant,
    alpha: f64,
    csi: CifCsi,
    good_quality: f64,
    period: SimTime,
    window: usize,
    threshold: u32,
    /// The last rate sample's time.
    last_sample: SimTime,
    /// CIF-Simple with rate CSI: r_i is the measured rate, floored at this (bytes/s).
    min_rate: f64,
    classes: FairClasses,
    sessions: Vec<Session>,
    qlen: usize,
    backlog: u64,
    /// Test hook: sessions whose channel is forced bad (unit tests have no link views).
    #[cfg(test)]
    forced_bad: Vec<bool>,
}

impl CifQ {
    pub fn from_conf(c: &CifQConf, b: &BuildCtx, errs: &mut ScenarioError) -> CifQ {
        let p = &b.path;
        let alpha = match (c.variant, c.alpha) {
            (CifVariant::Simple, Some(_)) => {
                errs.push(
                    format!("{p}.alpha"),
                    "CIF-Simple has no graceful degradation (α = 0); remove `alpha` or use variant = \"complete\"",
                );
                0.0
            }
            (CifVariant::Simple, None) => 0.0,
            (CifVariant::Complete, a) => {
                let a = a.unwrap_or(0.5);
                if !(0.0..=1.0).contains(&a) {
                    errs.push(format!("{p}.alpha"), format!("{a} is not in 0…1"));
                }
                a
            }
        };
        if !(0.0..=1.0).contains(&c.good_quality) {
            errs.push(
                format!("{p}.good_quality"),
                format!("{} is not a delivery probability in 0…1", c.good_quality),
            );
        }
        if c.sample_period.0 == SimTime::ZERO {
            errs.push(
                format!("{p}.sample_period"),
                "must be positive, e.g. \"100ms\"",
            );
        }
        if !(1..=MAX_WINDOW as u32).contains(&c.ma_window) {
            errs.push(format!("{p}.ma_window"), "must be 1 to 64 samples");
        }
        let period = c.sample_period.0.max(SimTime(1));
        CifQ {
            variant: c.variant,
            alpha,
            csi: c.csi,
            good_quality: c.good_quality,
            period,
            window: (c.ma_window as usize).clamp(1, MAX_WINDOW),
            threshold: c.threshold,
            last_sample: SimTime::ZERO,
            min_rate: b.dev.mtu.max(1) as f64 / period.as_secs_f64(),
            classes: FairClasses::from_conf(&c.classes, c.default.as_deref(), c.limit, 0, b, errs),
            sessions: Vec::new(),
            qlen: 0,
            backlog: 0,
            #[cfg(test)]
            forced_bad: Vec::new(),
        }
    }

    /// Σ lag_i over all sessions (0 up to rounding: the conservation CIF-Q keeps).
    pub fn lag_sum(&self) -> f64 {
        self.sessions.iter().map(|s| s.lag).sum()
    }

    /// The lag of session `i` in bytes (> 0 lagging, < 0 leading).
    pub fn lag(&self, i: usize) -> f64 {
        self.sessions.get(i).map_or(0.0, |s| s.lag)
    }

    /// Whether session `i`'s rate channel state is good (`csi = "rate"`).
    pub fn rate_channel_good(&self, i: usize) -> bool {
        self.sessions
            .get(i)
            .is_none_or(|s| s.csi.below <= self.threshold)
    }

    /// Session `i`'s measured rate (moving average), bytes/s.
    pub fn measured_rate(&self, i: usize) -> f64 {
        self.sessions.get(i).map_or(0.0, |s| s.csi.average())
    }

    fn channel_good(&self, j: usize, out: u32, next_hop: NodeId, ctx: &QdiscCtx) -> bool {
        #[cfg(test)]
        if self.forced_bad.get(j).copied().unwrap_or(false) {
            return false;
        }
        match self.csi {
            CifCsi::Rate => self.rate_channel_good(j),
            CifCsi::LinkQuality => match ctx.link_of(out, next_hop).and_then(|v| v.quality) {
                Some(q) => q >= self.good_quality,
                None => true,
            },
        }
    }

    /// `csi = "rate"`: samples every session's rate if a period has passed since the last
    /// sample (module docs).
    fn sample_rates(&mut self, now: SimTime) {
        if self.csi != CifCsi::Rate {
            return;
        }
        let dt = now.saturating_sub(self.last_sample).as_nanos();
        if dt < self.period.as_nanos() {
            return;
        }
        self.last_sample = now;
        let window = self.window;
        for s in &mut self.sessions {
            s.csi.sample(dt, window);
        }
    }

    /// Whether CIF-Simple's rules use the measured rate as r_i.
    fn measured_r(&self) -> bool {
        self.csi == CifCsi::Rate && self.variant == CifVariant::Simple
    }

    /// r_i for the virtual time and CIF-Simple's compensation: the measured rate (floored)
    /// for CIF-Simple with rate CSI, else the configured weight.
    fn r_of(&self, s: &Session) -> f64 {
        if self.measured_r() {
            s.csi.average().max(self.min_rate)
        } else {
            s.r
        }
    }

    /// Whether session `j` can send in this slot (for the asker of `ctx`).
    fn can_send(&self, j: usize, ctx: &QdiscCtx) -> bool {
        let Some(&(pkt, _)) = self.sessions[j].queue.front() else {
            return false;
        };
        let p = ctx.packets.get(pkt);
        ctx.is_for_asker(pkt) && self.channel_good(j, p.out_iface, p.next_hop, ctx)
    }

    /// The decision for the next slot, without changing state (so `peek` = `dequeue`).
    fn decide(&self, ctx: &QdiscCtx) -> Option<Slot> {
        let i = self.reference_owner()?;
        let si = &self.sessions[i];
        let i_can = self.can_send(i, ctx);
        let some_lagging_can = || {
            self.sessions
                .iter()
                .enumerate()
                .any(|(j, s)| j != i && s.active && s.lag > 0.0 && self.can_send(j, ctx))
        };
        if i_can {
            let leading = si.lag < 0.0;
            let (send, kept) = if !leading || !some_lagging_can() {
                (true, false)
            } else {
                match self.variant {
                    CifVariant::Simple => (false, false),
                    CifVariant::Complete => {
                        let ok = si.c <= self.alpha * si.v;
                        (ok, ok)
                    }
                }
            };
            if send {
                let (pkt, len) = *si.queue.front().expect("can send");
                return Some(Slot {
                    i,
                    j: i,
                    pkt,
                    len,
                    kept,
                    via: Via::Own,
                });
            }
        }
        // Case 3: the slot goes to a lagging session, else to anyone able.
        let (j, via) = self
            .pick(i, ctx, true)
            .map(|j| (j, Via::Compensation))
            .or_else(|| self.pick(i, ctx, false).map(|j| (j, Via::Extra)))?;
        let (pkt, len) = *self.sessions[j].queue.front().expect("can send");
        Some(Slot {
            i,
            j,
            pkt,
            len,
            kept: false,
            via,
        })
    }

    /// `argmin_A v`, ties to the lower index.
    fn reference_owner(&self) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        for (k, s) in self.sessions.iter().enumerate() {
            if s.active && best.is_none_or(|(v, _)| s.v < v) {
                best = Some((s.v, k));
            }
        }
        best.map(|(_, k)| k)
    }

    /// The session that takes a slot given up by `i`: among lagging ones (`lagging`) or
    /// among all that can send, by the variant's rule (module docs, case 3).
    fn pick(&self, i: usize, ctx: &QdiscCtx, lagging: bool) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        for (j, s) in self.sessions.iter().enumerate() {
            if j == i || (lagging && s.lag <= 0.0) || !self.can_send(j, ctx) {
                continue;
            }
            // Smaller key wins.
            let key = match (self.variant, lagging) {
                // Seed 000 §5.1: "the lowest value of lag_i/r_i", r_i the flow's rate.
                (CifVariant::Simple, true) if self.measured_r() => s.lag / self.r_of(s),
                (CifVariant::Simple, true) => -s.lag / s.r,
                (CifVariant::Complete, true) => s.g,
                (CifVariant::Simple, false) => s.v,
                (CifVariant::Complete, false) => s.f,
            };
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, j));
            }
        }
        best.map(|(_, j)| j)
    }

    /// Carries out a slot: tags, lags, departures.
    fn apply(&mut self, s: Slot) {
        let l = s.len as f64;
        let ri = self.r_of(&self.sessions[s.i]);
        self.sessions[s.j].csi.bytes += s.len as u64;
        let si = &mut self.sessions[s.i];
        let was_leading = si.lag < 0.0;
        if s.kept {
            si.c += l / si.r;
        }
        si.v += l / ri;
        if s.j == s.i && !s.kept {
            // A turn outside the degradation regime: no credit is saved for later.
            si.c = self.alpha * si.v;
        }
        if s.j != s.i {
            self.sessions[s.i].lag += l;
            let sj = &mut self.sessions[s.j];
            sj.lag -= l;
            match s.via {
                Via::Compensation => sj.g += l / sj.r,
                Via::Extra => sj.f += l / sj.r,
                Via::Own => {}
            }
            // j may have just become leading: its degradation counter starts there.
            if sj.lag < 0.0 && sj.lag + l >= 0.0 {
                sj.c = self.alpha * sj.v;
            }
        }
        let si = &mut self.sessions[s.i];
        if !was_leading && si.lag < 0.0 {
            si.c = self.alpha * si.v;
        }
        let popped = self.sessions[s.j].queue.pop_front();
        debug_assert_eq!(popped.map(|p| p.0), Some(s.pkt));
        self.leave_if_done(s.j);
        if s.i != s.j {
            self.leave_if_done(s.i);
        }
    }

    /// Takes session `k` out of A if its queue is empty and it is not leading, spreading
    /// its lag over the others in proportion to their weights.
    fn leave_if_done(&mut self, k: usize) {
        let s = &self.sessions[k];
        if !s.active || !s.queue.is_empty() || s.lag < 0.0 {
            return;
        }
        let lag = s.lag;
        self.sessions[k].active = false;
        self.sessions[k].lag = 0.0;
        let total_r: f64 = self.sessions.iter().filter(|s| s.active).map(|s| s.r).sum();
        if total_r > 0.0 {
            for s in self.sessions.iter_mut().filter(|s| s.active) {
                s.lag += lag * s.r / total_r;
            }
        } else {
            // A is empty: the lag, 0 up to rounding, has nowhere to go.
            debug_assert!(lag.abs() < 1e-3, "lag {lag} lost");
        }
    }

    /// Session `c` (class index) joins A.
    fn join(&mut self, c: usize) {
        let min = |f: fn(&Session) -> f64, ss: &[Session]| {
            ss.iter()
                .filter(|s| s.active)
                .map(f)
                .fold(f64::INFINITY, f64::min)
        };
        let (mv, mf, mg) = (
            min(|s| s.v, &self.sessions),
            min(|s| s.f, &self.sessions),
            min(|s| s.g, &self.sessions),
        );
        let s = &mut self.sessions[c];
        if mv.is_finite() {
            s.v = s.v.max(mv);
            s.f = s.f.max(mf);
            s.g = s.g.max(mg);
        }
        s.active = true;
    }
}

impl Qdisc for CifQ {
    fn kind(&self) -> &'static str {
        "cif-q"
    }

    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        self.sample_rates(ctx.now);
        let Some(a) = self.classes.admit(pkt, ctx) else {
            return Verdict::Dropped;
        };
        while self.sessions.len() <= a.class {
            let k = self.sessions.len();
            self.sessions.push(Session {
                r: self.classes.info[k].weight_fp as f64
                    / (1u64 << super::fair_classes::WEIGHT_SHIFT) as f64,
                ..Session::default()
            });
        }
        if !self.sessions[a.class].active {
            self.join(a.class);
        }
        self.sessions[a.class].queue.push_back((pkt, a.len));
        self.qlen += 1;
        self.backlog += a.len as u64;
        Verdict::Queued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.sample_rates(ctx.now);
        let s = self.decide(ctx)?;
        self.apply(s);
        self.classes.left(s.j);
        self.qlen -= 1;
        self.backlog -= s.len as u64;
        Some(s.pkt)
    }

    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.sample_rates(ctx.now);
        self.decide(ctx).map(|s| s.pkt)
    }

    /// With rate CSI, packets that no session can send wait for the next sample, when a
    /// channel state may change.
    fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        (self.csi == CifCsi::Rate && self.qlen > 0)
            .then(|| (self.last_sample + self.period).max(now))
    }

    fn serves_members(&self) -> bool {
        true
    }

    fn len(&self) -> usize {
        self.qlen
    }

    fn backlog_bytes(&self) -> u64 {
        self.backlog
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{stream, SimTime};
    use crate::qdisc::testing::Harness;
    use crate::qdisc::QdiscConf;
    use rand::Rng;

    fn cif(h: &Harness, conf: &str) -> CifQ {
        let c: QdiscConf = toml::from_str(conf).unwrap();
        let QdiscConf::CifQ(c) = c else { panic!() };
        let names = Default::default();
        let mut errs = ScenarioError::default();
        let q = CifQ::from_conf(&c, &h.build_ctx(&names), &mut errs);
        assert!(errs.problems.is_empty(), "{errs:?}");
        q
    }

    /// A packet of `flow` with its own 5-tuple (one session per flow).
    fn pkt(h: &mut Harness, flow: u32, size: u32) -> PacketId {
        h.packet_with(flow, size, |p| p.tuple.src_port = 1000 + flow as u16)
    }

    fn force_bad(q: &mut CifQ, j: usize, bad: bool) {
        if q.forced_bad.len() <= j {
            q.forced_bad.resize(j + 1, false);
        }
        q.forced_bad[j] = bad;
    }

    /// Reference: CIF-Q's invariant Σ lag_i = 0 (Ng et al. §3; seed 000 §2.5), under
    /// random arrivals, random channel errors and sessions coming and going, for both
    /// versions. Tolerance 1e-6 bytes (f64 rounding); also no packet is lost or duplicated.
    #[test]
    fn lag_bookkeeping_sums_to_zero_across_flows() {
        for v in ["simple", "complete"] {
            let mut h = Harness::new();
            let mut q = cif(&h, &format!("kind = \"cif-q\"\nvariant = \"{v}\""));
            let mut rng = stream(3, "test:cifq");
            let (mut sent, mut got) = (0usize, 0usize);
            let mut max_abs_lag: f64 = 0.0;
            for step in 0..20_000 {
                h.now = SimTime::from_micros(step);
                for f in 0..5u32 {
                    if rng.random_bool(if f == 0 { 0.5 } else { 0.1 }) {
                        let p = pkt(&mut h, f, rng.random_range(40..1500));
                        h.enqueue(&mut q, p);
                        sent += 1;
                    }
                }
                for j in 0..q.sessions.len() {
                    if rng.random_bool(0.05) {
                        let bad = rng.random_bool(0.3);
                        force_bad(&mut q, j, bad);
                    }
                }
                if h.dequeue(&mut q).is_some() {
                    got += 1;
                }
                let s = q.lag_sum();
                assert!(s.abs() < 1e-6, "{v}: Σ lag = {s} at step {step}");
                for j in 0..q.sessions.len() {
                    max_abs_lag = max_abs_lag.max(q.lag(j).abs());
                }
            }
            assert!(max_abs_lag > 1000.0, "{v}: errors never moved service");
            q.forced_bad.clear();
            while h.dequeue(&mut q).is_some() {
                got += 1;
            }
            let dropped = h.dropped().len();
            assert_eq!(got + dropped, sent, "{v}");
            assert_eq!(q.len(), 0);
        }
    }

    /// Reference: CIF-Q property 2, long-term fairness for a session that saw errors (Ng
    /// et al. §2). Two backlogged sessions of 1000 B packets; session 0's channel is bad
    /// for 100 slots (session 1 takes them all), then good. Afterwards session 0 must get
    /// the lost service back: it is served more than its fair half until its lag is 0,
    /// and over the whole run both sessions end within one packet of equal service.
    #[test]
    fn a_flow_in_a_bad_channel_is_compensated_when_it_recovers() {
        for v in ["simple", "complete"] {
            let mut h = Harness::new();
            let mut q = cif(&h, &format!("kind = \"cif-q\"\nvariant = \"{v}\""));
            for _ in 0..1000 {
                for f in 0..2 {
                    let p = pkt(&mut h, f, 1000);
                    h.enqueue(&mut q, p);
                }
            }
            force_bad(&mut q, 0, true);
            let mut served = [0u64; 2];
            for _ in 0..100 {
                let p = h.dequeue(&mut q).unwrap();
                served[h.packets.get(p).flow.0 as usize] += 1;
            }
            assert_eq!(served, [0, 100], "{v}: the bad session sent");
            assert_eq!(q.lag(0), 50_000.0, "{v}: half the slots were session 0's");
            force_bad(&mut q, 0, false);
            let mut recovered = [0u64; 2];
            for _ in 0..200 {
                let p = h.dequeue(&mut q).unwrap();
                recovered[h.packets.get(p).flow.0 as usize] += 1;
            }
            served[0] += recovered[0];
            served[1] += recovered[1];
            assert!(
                recovered[0] > 140,
                "{v}: session 0 got only {recovered:?} of 200 slots after recovering"
            );
            assert!(
                served[0].abs_diff(served[1]) <= 1,
                "{v}: long-term service {served:?}"
            );
            assert!(q.lag(0).abs() <= 1000.0, "{v}: lag {}", q.lag(0));
        }
    }

    /// Reference: CIF-Q property 4, graceful degradation (Ng et al. §3, α): while lagging
    /// sessions can send, a leading session keeps a fraction α of its reference turns
    /// (CIF-Complete) and none (CIF-Simple, α = 0). Session 0 leads by 100 packets; over
    /// the next 100 slots in which session 1 (lagging) is backlogged, session 0 must send
    /// about α·50 packets (its 50 reference turns times α), within 2 packets.
    #[test]
    fn leading_flows_give_up_at_most_their_degradation_share() {
        for (conf, alpha) in [
            ("variant = \"simple\"", 0.0),
            ("variant = \"complete\"\nalpha = 0.5", 0.5),
            ("variant = \"complete\"\nalpha = 0.2", 0.2),
        ] {
            let mut h = Harness::new();
            let mut q = cif(&h, &format!("kind = \"cif-q\"\n{conf}"));
            for _ in 0..400 {
                for f in 0..2 {
                    let p = pkt(&mut h, f, 1000);
                    h.enqueue(&mut q, p);
                }
            }
            force_bad(&mut q, 1, true);
            for _ in 0..200 {
                h.dequeue(&mut q).unwrap();
            }
            assert!(q.lag(0) < -99_000.0, "{conf}: lag {}", q.lag(0));
            force_bad(&mut q, 1, false);
            let mut leader = 0;
            for _ in 0..100 {
                let p = h.dequeue(&mut q).unwrap();
                leader += (h.packets.get(p).flow.0 == 0) as i64;
            }
            let want = (alpha * 50.0) as i64;
            assert!(
                (leader - want).abs() <= 2,
                "{conf}: the leader sent {leader} of 100, α·50 = {want}"
            );
        }
    }

    /// Reference: the rate CSI rule as documented (seed 000 §2.5 "the data rate of each
    /// flow … as the Channel State Information", with BoTh-WiN's detection, §3.1 and
    /// Algorithm 2 lines 30–41: 100 ms samples, a moving average of 10, bad after the
    /// fourth consecutive sample below it). Constructed: CIF-Simple on one interface,
    /// dequeued every 1 ms; session 1 always backlogged, session 0 fed one 1000-B packet
    /// every 2 ms (its fair half) until 1.0 s, nothing until 1.5 s, then again. Exact
    /// expectations: session 0's samples at 1.1–1.4 s are 0, so from the sample at 1.4 s
    /// (fourth below the average) its channel is bad and it is held from 1.5 s although
    /// it has packets; its samples stay 0 (held), its average reaches 0 with the tenth
    /// zero sample (2.0 s), which is then no longer below it: good again at 2.0 s, when
    /// it is served at once; the slots it owned while held went to session 1, so it
    /// lags then (> 0), and CIF-Simple's compensation pays that back within the next
    /// 100 ms (lag ≤ one packet at 2.1 s). Σ lag = 0 throughout (1e-6 B).
    #[test]
    fn rate_csi_turns_bad_after_four_low_samples_and_recovers_when_the_average_decays() {
        let mut h = Harness::new();
        let mut q = cif(&h, "kind = \"cif-q\"\nvariant = \"simple\"\nlimit = 5000");
        assert_eq!(q.csi, CifCsi::Rate);
        // Session 0 is flow 0 (its first packet comes first), session 1 flow 1.
        let p = pkt(&mut h, 0, 1000);
        h.enqueue(&mut q, p);
        for _ in 0..3000 {
            let p = pkt(&mut h, 1, 1000);
            h.enqueue(&mut q, p);
        }
        let mut first_bad = None;
        let mut first_good_again = None;
        let mut held_with_packets = 0;
        let mut lag_at_recovery = 0.0;
        for ms in 0..2100u64 {
            h.now = SimTime::from_millis(ms);
            let feeding = !(1000..1500).contains(&ms);
            if feeding && ms % 2 == 0 && ms > 0 {
                let p = pkt(&mut h, 0, 1000);
                h.enqueue(&mut q, p);
            }
            let lag_before = q.lag(0);
            let Some(p) = h.dequeue(&mut q) else {
                panic!(
                    "nothing at {ms} ms: good {} {}, below {} {}, avg {:.0} {:.0}, q {} {}",
                    q.rate_channel_good(0),
                    q.rate_channel_good(1),
                    q.sessions[0].csi.below,
                    q.sessions[1].csi.below,
                    q.measured_rate(0),
                    q.measured_rate(1),
                    q.sessions[0].queue.len(),
                    q.sessions[1].queue.len()
                );
            };
            let flow = h.packets.get(p).flow.0;
            let good = q.rate_channel_good(0);
            if !good && first_bad.is_none() {
                first_bad = Some(ms);
            }
            if good && first_bad.is_some() && first_good_again.is_none() {
                first_good_again = Some(ms);
                assert_eq!(flow, 0, "served at once when good again");
                lag_at_recovery = lag_before;
            }
            if !good && !q.sessions[0].queue.is_empty() {
                held_with_packets += 1;
                assert_eq!(flow, 1, "a bad session sent at {ms} ms");
            }
            assert!(q.lag_sum().abs() < 1e-6, "Σ lag {}", q.lag_sum());
        }
        assert_eq!(first_bad, Some(1400), "bad from the fourth zero sample");
        assert_eq!(first_good_again, Some(2000), "good when the average is 0");
        assert_eq!(held_with_packets, 500, "held from 1.5 s to 2.0 s");
        assert!(lag_at_recovery > 0.0, "it lagged: {lag_at_recovery}");
        assert!(q.lag(0) <= 1000.0, "lag paid back: {}", q.lag(0));
    }

    /// Reference: seed 000 §5.1, CIF-Simple "advances the value of the virtual time with
    /// l/r_i" with r_i "the rate of the flow i", so that "a flow with high bandwidth can
    /// gain its network share more easily". Two backlogged sessions whose measured rates
    /// are 10:1 (forced samples): over 1100 reference turns the fast one owns the reference
    /// 10 times as often (1000 vs 100, ±1), where CIF-Complete (v += l) alternates.
    #[test]
    fn cif_simple_advances_virtual_time_by_the_measured_rate() {
        for (v, want) in [("simple", 1000), ("complete", 550)] {
            let mut h = Harness::new();
            let mut q = cif(&h, &format!("kind = \"cif-q\"\nvariant = \"{v}\""));
            for _ in 0..2000 {
                for f in 0..2 {
                    let p = pkt(&mut h, f, 1000);
                    h.enqueue(&mut q, p);
                }
            }
            for (j, rate) in [(0, 1_000_000u64), (1, 100_000)] {
                let c = &mut q.sessions[j].csi;
                c.hist[0] = rate;
                c.n = 1;
            }
            let mut served = [0i64; 2];
            for _ in 0..1100 {
                let p = h.dequeue(&mut q).unwrap();
                served[h.packets.get(p).flow.0 as usize] += 1;
            }
            assert!((served[0] - want).abs() <= 1, "{v}: {served:?}");
        }
    }

    /// Reference: the dequeue-for-a-member contract (`qdisc` module docs): on a virtual
    /// device each member gets only its own packets and is never refused while one waits
    /// (a session of the other member cannot send in this slot: case 3).
    #[test]
    fn each_member_gets_its_own_packets_and_lags_record_the_imbalance() {
        let mut h = Harness::new();
        let mut q = cif(&h, "kind = \"cif-q\"\nvariant = \"simple\"");
        for _ in 0..100 {
            for (f, m) in [(0, 1), (1, 2)] {
                let p = h.member_packet(f, 1000, m);
                h.enqueue(&mut q, p);
            }
        }
        // The fast member (1) asks ten times as often as the slow one (2).
        for k in 0..110 {
            let m = if k % 11 == 10 { 2 } else { 1 };
            let p = h.dequeue_for(&mut q, m).expect("never refused");
            assert_eq!(h.packets.get(p).out_iface, m);
            assert!(q.lag_sum().abs() < 1e-6);
        }
        assert!(q.lag(1) > 0.0 && q.lag(0) < 0.0, "slow member's flow lags");
    }
}
