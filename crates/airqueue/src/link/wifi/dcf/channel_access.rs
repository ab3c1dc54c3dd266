//! Channel access of the DCF (IEEE 802.11-2016 §10.3.2, §10.3.3, §10.3.4) and of EDCA
//! (§10.22.2): the interframe spaces, the random back-off, its freezing and resumption,
//! and the NAV. As ns-3 keeps `ChannelAccessManager` (tested alone by
//! `channel-access-manager-test.cc`) apart from frame exchanges, the rules live here in
//! three small value types whose methods take instants and return instants (integer ns),
//! with no event, queue or cell behind them:
//!
//! - [`Ifs`]: a PHY's slot, SIFS, DIFS and EIFS, and from when a back-off counts after a
//!   busy period (§10.3.2.3);
//! - [`Backoff`]: one channel-access function's counter and contention window (§10.3.3,
//!   §10.3.4.3; an EDCA function's AIFS, §10.22.2.4);
//! - [`Deferral`]: one station's own view of when the medium is idle for it, with its NAV
//!   (§10.3.2.4): the per-station medium of [`super::hearing`].
//!
//! The shared-slot medium keeps one `idle_from` for every port; the methods of [`Cell`]
//! at the end of this file apply the rules to it.
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

use super::Cell;
use crate::engine::{SimRng, SimTime};
use crate::link::wifi::edca::EdcaParams;
use crate::link::wifi::phy::Phy;
use crate::link::LinkCtx;
use rand::Rng;

/// The slot time and interframe spaces of a PHY, as channel access uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ifs {
    /// aSlotTime.
    pub(super) slot: SimTime,
    /// aSIFSTime (§10.3.2.3.3).
    pub(super) sifs: SimTime,
    /// DIFS = SIFS + 2·slot (§10.3.2.3.5).
    pub(super) difs: SimTime,
    /// EIFS = SIFS + AckTxTime at the lowest mandatory rate + DIFS (§10.3.2.3.7).
    pub(super) eifs: SimTime,
}

impl Ifs {
    /// The spaces of `phy` (its standard's values with the cell's overrides).
    pub(super) fn of(phy: &Phy) -> Ifs {
        Ifs {
            slot: phy.slot,
            sifs: phy.sifs,
            difs: phy.difs(),
            eifs: phy.eifs(),
        }
    }

    /// When a DCF back-off starts counting after a busy period that ends at `end`: DIFS
    /// after it (§10.3.2.3.5), or EIFS when the last frame was not received correctly
    /// (§10.3.2.3.7: a correct frame ends the EIFS, so the caller passes `false` then).
    #[inline]
    pub(super) fn idle_from(&self, end: SimTime, erroneous: bool) -> SimTime {
        end + if erroneous { self.eifs } else { self.difs }
    }

    /// Where a function of `aifsn` counts its slots from when the DCF counts from
    /// `idle_from`: AIFS[AC] = SIFS + AIFSN·slot after the busy period (§10.3.2.3.6,
    /// §10.22.2.4), i.e. `idle_from` − DIFS + AIFS (AIFSN 2: `idle_from` itself). An AIFSN
    /// below 2 before the first busy period counts from 0.
    #[inline]
    pub(super) fn aifs_reference(&self, idle_from: SimTime, aifsn: u32) -> SimTime {
        let slot = self.slot.0;
        SimTime((idle_from.0 + aifsn as u64 * slot).saturating_sub(2 * slot))
    }

    /// Slots wholly idle between `from` and `now` (none before `from`).
    #[inline]
    pub(super) fn idle_slots(&self, from: SimTime, now: SimTime) -> u64 {
        if now > from {
            (now.0 - from.0) / self.slot.0
        } else {
            0
        }
    }

    /// The end of the `slots`-th slot counted from `from`.
    #[inline]
    pub(super) fn after_slots(&self, from: SimTime, slots: u32) -> SimTime {
        SimTime(from.0 + slots as u64 * self.slot.0)
    }
}

/// The back-off of one channel-access function (the DCF of a port, or one EDCA function):
/// its AIFSN, contention window and counter — what ns-3's `Txop` hands its
/// `ChannelAccessManager`.
#[derive(Clone, Debug)]
pub(super) struct Backoff {
    aifsn: u32,
    cw_min: u32,
    cw_max: u32,
    cw: u32,
    /// Slots left, counted from the function's reference (`None`: no back-off pending).
    slots: Option<u32>,
}

impl Backoff {
    /// A function of parameters `par`, CW at CWmin, no back-off pending.
    pub(super) fn new(par: &EdcaParams) -> Backoff {
        Backoff {
            aifsn: par.aifsn,
            cw_min: par.cw_min,
            cw_max: par.cw_max,
            cw: par.cw_min,
            slots: None,
        }
    }

    /// The slots left (`None`: no back-off pending).
    #[inline]
    pub(super) fn slots(&self) -> Option<u32> {
        self.slots
    }

    #[cfg(test)]
    pub(super) fn cw(&self) -> u32 {
        self.cw
    }

    /// Where this function counts from when the DCF counts from `idle_from` (its AIFS
    /// reference, [`Ifs::aifs_reference`]).
    #[inline]
    pub(super) fn reference(&self, ifs: &Ifs, idle_from: SimTime) -> SimTime {
        ifs.aifs_reference(idle_from, self.aifsn)
    }

    /// A new back-off, uniform in `[0, CW]` (§10.3.3), drawn from `rng`: after every
    /// attempt (the post-back-off when no frame waits) and after an internal collision.
    #[inline]
    pub(super) fn draw(&mut self, rng: &mut SimRng) {
        self.slots = Some(rng.random_range(0..=self.cw));
    }

    /// The function transmits: its back-off is spent.
    #[inline]
    pub(super) fn clear(&mut self) {
        self.slots = None;
    }

    /// An attempt failed: CW takes the next value of its series, `2·CW + 1`, up to CWmax
    /// (§10.3.3).
    #[inline]
    pub(super) fn double_cw(&mut self) {
        self.cw = (2 * self.cw + 1).min(self.cw_max);
    }

    /// The frame is done (acknowledged, or discarded at its retry limit): CW returns to
    /// CWmin (§10.3.3).
    #[inline]
    pub(super) fn reset_cw(&mut self) {
        self.cw = self.cw_min;
    }

    /// A frame reaches the head at `now`; the medium is `idle` (for this function, past
    /// nothing but its count) and the function counts from `from`. It transmits at once if
    /// the medium has been idle since `from` and its post-back-off, if any, has run out
    /// (§10.3.4.2); otherwise it keeps its counter, or draws one when it has none
    /// (§10.3.4.3). Returns when it transmits if the medium stays idle.
    pub(super) fn on_frame(
        &mut self,
        ifs: &Ifs,
        from: SimTime,
        now: SimTime,
        idle: bool,
        rng: &mut SimRng,
    ) -> SimTime {
        let since = idle && now >= from;
        let elapsed = ifs.idle_slots(from, now);
        self.slots = match self.slots {
            // A post-back-off that ran out while the medium was idle: send at once.
            Some(b) if since && b as u64 <= elapsed => None,
            Some(b) => Some(b),
            None if since => None,
            None => Some(rng.random_range(0..=self.cw)),
        };
        match self.slots {
            Some(b) => ifs.after_slots(from, b),
            None => now,
        }
    }

    /// The medium became busy at `now` while the function counted from `from`: the slots
    /// wholly idle since then count, the rest waits for the medium to be idle for
    /// DIFS/AIFS or EIFS again (§10.3.4.3). Returns the slots left (`None`: none; only a
    /// post-back-off can run out unseen, a function with a frame transmits when its
    /// counter does).
    pub(super) fn freeze(&mut self, ifs: &Ifs, from: SimTime, now: SimTime) -> Option<u32> {
        if let Some(b) = self.slots {
            let elapsed = ifs.idle_slots(from, now);
            let left = b as u64 - elapsed.min(b as u64);
            self.slots = (left > 0).then_some(left as u32);
        }
        self.slots
    }

    /// When the function transmits if it counts from `from` and the medium stays idle:
    /// after its slots left (none pending: at `from`).
    #[inline]
    pub(super) fn expiry(&self, ifs: &Ifs, from: SimTime) -> SimTime {
        ifs.after_slots(from, self.slots.unwrap_or(0))
    }
}

/// One station's view of when its back-off may count (the per-station medium): the end of
/// its last busy period plus DIFS or EIFS, and its NAV, the virtual carrier sense that
/// the Duration field of frames it decodes sets (§10.3.2.4). Its counters run from
/// [`Deferral::idle_from`] = max(physically idle + IFS, NAV end + DIFS).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Deferral {
    /// Physically idle since, plus DIFS or EIFS.
    phys_idle_from: SimTime,
    /// When the NAV expires.
    nav_end: SimTime,
    idle_from: SimTime,
}

impl Deferral {
    /// Where its back-off counters count from.
    #[inline]
    pub(super) fn idle_from(&self) -> SimTime {
        self.idle_from
    }

    /// When its NAV expires.
    #[inline]
    pub(super) fn nav_end(&self) -> SimTime {
        self.nav_end
    }

    #[inline]
    fn update(&mut self, ifs: &Ifs) {
        self.idle_from = self.phys_idle_from.max(self.nav_end + ifs.difs);
    }

    /// The station senses the medium idle from `now` on, after a frame it received
    /// correctly or not (`erroneous`: EIFS, §10.3.2.3.7; else DIFS, §10.3.2.3.5). Its
    /// counters run once the NAV has expired too.
    pub(super) fn medium_idle(&mut self, ifs: &Ifs, now: SimTime, erroneous: bool) {
        self.phys_idle_from = ifs.idle_from(now, erroneous);
        self.update(ifs);
    }

    /// A decoded frame's Duration field reaches `until`: the NAV is updated only if that
    /// is later (§10.3.2.4). Returns whether it was. Takes effect when the medium is next
    /// idle ([`Self::medium_idle`]).
    pub(super) fn update_nav(&mut self, until: SimTime) -> bool {
        if until > self.nav_end {
            self.nav_end = until;
            true
        } else {
            false
        }
    }

    /// A NAV set by an RTS is reset at `now`, no reception having started in time after
    /// it (§10.3.2.4): the counters run DIFS after `now` unless the medium itself defers
    /// them longer.
    pub(super) fn reset_nav(&mut self, ifs: &Ifs, now: SimTime) {
        self.nav_end = now;
        self.update(ifs);
    }

    /// The station's CTS or ACK timeout expires at `now` (§10.3.2.7, §10.3.2.9): it
    /// counts DIFS after it at the earliest (ns-3's `ChannelAccessManager`).
    pub(super) fn timeout(&mut self, ifs: &Ifs, now: SimTime) {
        self.phys_idle_from = self.phys_idle_from.max(ifs.idle_from(now, false));
        self.update(ifs);
    }
}

/// The shared-slot medium's contention: one `idle_from` for every port.
impl Cell {
    /// Where function `k` counts its slots from: AIFS[AC] after the busy period (the DCF:
    /// `idle_from`).
    #[inline]
    pub(super) fn reference(&self, k: usize) -> SimTime {
        self.fns[k].backoff.reference(&self.ifs, self.idle_from)
    }

    /// A new back-off for function `k`, uniform in [0, CW], from its port's stream.
    pub(super) fn draw(&mut self, k: usize) {
        let p = self.fns[k].port as usize;
        self.fns[k].backoff.draw(&mut self.sta[p].rng);
    }

    /// Function `k` has a new head frame at `now` and is not on the air: when does it send?
    pub(super) fn contend(&mut self, k: usize, now: SimTime) {
        let from = self.reference(k);
        let idle = self.on_air.is_empty();
        let p = self.fns[k].port as usize;
        let at = self.fns[k]
            .backoff
            .on_frame(&self.ifs, from, now, idle, &mut self.sta[p].rng);
        self.fns[k].tx_at = at;
    }

    /// [`Self::contend`], or its per-station form with partial hearing.
    pub(super) fn contend_any(&mut self, k: usize, now: SimTime) {
        if self.hx.is_some() {
            self.hx_contend(k, now);
        } else {
            self.contend(k, now);
        }
    }

    /// The timer fired at `now`: the functions whose back-off expires now go on the air
    /// (`on_air`, in function order), every other counter freezes (§10.3.4.3). Returns
    /// whether anyone transmits.
    pub(super) fn seize(&mut self, now: SimTime) -> bool {
        if !self.fns.iter().any(|f| f.tx_at == now) {
            return false;
        }
        debug_assert!(self.on_air.is_empty());
        for k in 0..self.fns.len() {
            let from = self.reference(k);
            let f = &mut self.fns[k];
            if f.tx_at == now {
                f.tx_at = SimTime::MAX;
                f.backoff.clear();
                self.on_air.push(k as u32);
            } else if f.backoff.slots().is_some() {
                if f.backoff.freeze(&self.ifs, from, now).is_some() {
                    f.tx_at = SimTime::MAX; // set again when the medium is idle
                } else {
                    // Only a post-back-off (no frame) can have run out before now.
                    debug_assert!(f.buf.is_empty());
                }
            }
        }
        true
    }

    /// The exchange is settled and the medium idle from `idle_from`: every function with
    /// a frame counts its slots left from its reference again.
    pub(super) fn resume(&mut self) {
        for k in 0..self.fns.len() {
            if !self.fns[k].buf.is_empty() {
                let from = self.reference(k);
                self.fns[k].tx_at = self.fns[k].backoff.expiry(&self.ifs, from);
            }
        }
    }

    /// Arms the timer at the earliest transmission of a contending function.
    pub(super) fn rearm(&mut self, cx: &mut LinkCtx<'_>) {
        let next = self
            .fns
            .iter()
            .map(|f| f.tx_at)
            .min()
            .unwrap_or(SimTime::MAX);
        if next == SimTime::MAX {
            cx.cancel(self.timer);
        } else {
            cx.arm(self.timer, next);
        }
    }
}
