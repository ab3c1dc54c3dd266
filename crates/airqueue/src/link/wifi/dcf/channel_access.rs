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

    /// Its AIFSN.
    #[inline]
    pub(super) fn aifsn(&self) -> u32 {
        self.aifsn
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
        self.lose(ifs.idle_slots(from, now))
    }

    /// The counter loses `elapsed` wholly idle slots at a freeze (or at several in a row:
    /// their idle slots summed, [`super::contention`]); one that reaches 0 is spent.
    #[inline]
    pub(super) fn lose(&mut self, elapsed: u64) -> Option<u32> {
        if let Some(b) = self.slots {
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

/// The shared-slot medium's contention: one `idle_from` for every port. The counters are
/// kept lazily ([`super::contention`]): a busy period costs O(AIFSN classes), a function
/// that (re)contends O(log n), whatever the number of stations.
impl Cell {
    /// Where function `k` counts its slots from: AIFS[AC] after the busy period (the DCF:
    /// `idle_from`).
    #[inline]
    pub(super) fn reference(&self, k: usize) -> SimTime {
        self.fns[k].backoff.reference(&self.ifs, self.idle_from)
    }

    /// Brings function `k`'s counter up to date: it loses the idle slots its class counted
    /// in the busy periods since it was last read (each one a freeze, §10.3.4.3).
    #[inline]
    pub(super) fn sync(&mut self, k: usize) {
        if let Some(elapsed) = self.cont.synced(k) {
            self.fns[k].backoff.lose(elapsed);
        }
    }

    /// A new back-off for function `k`, uniform in [0, CW], from its port's stream.
    pub(super) fn draw(&mut self, k: usize) {
        self.sync(k);
        let p = self.fns[k].port as usize;
        self.fns[k].backoff.draw(&mut self.sta[p].rng);
    }

    /// Function `k` (with a frame) contends with its slots left, counted from its
    /// reference: the current idle period's, or the next one's while the medium is busy.
    pub(super) fn file(&mut self, k: usize) {
        self.sync(k);
        let left = self.fns[k].backoff.slots().unwrap_or(0);
        self.cont.file_slots(k, left);
    }

    /// Function `k` has a new head frame at `now` and is not on the air: when does it send?
    pub(super) fn contend(&mut self, k: usize, now: SimTime) {
        self.sync(k);
        let from = self.reference(k);
        let idle = self.on_air.is_empty();
        let p = self.fns[k].port as usize;
        let at = self.fns[k]
            .backoff
            .on_frame(&self.ifs, from, now, idle, &mut self.sta[p].rng);
        match self.fns[k].backoff.slots() {
            // `at` = `from` + b·slot: filed by its count, it follows the medium.
            Some(b) => self.cont.file_slots(k, b),
            None => self.cont.file_at(k, at),
        }
    }

    /// [`Self::contend`], or its per-station form with partial hearing.
    pub(super) fn contend_any(&mut self, k: usize, now: SimTime) {
        if self.hx.is_some() {
            self.hx_contend(k, now);
        } else {
            self.contend(k, now);
        }
    }

    /// When class `c`'s function filed under `key` transmits if the medium stays idle.
    #[inline]
    fn class_tx_at(&self, c: usize, key: u64) -> SimTime {
        let class = &self.cont.classes[c];
        debug_assert!(key >= class.counted, "a contender's count ran out unseen");
        let from = self.ifs.aifs_reference(self.idle_from, class.aifsn);
        self.ifs
            .after_slots(from, key.saturating_sub(class.counted) as u32)
    }

    /// When the next transmission starts if the medium stays idle (`MAX`: nobody
    /// contends): the earliest explicit instant or class expiry.
    pub(super) fn next_tx(&self) -> SimTime {
        let mut next = self
            .cont
            .explicit
            .min()
            .map_or(SimTime::MAX, |(t, _)| SimTime(t));
        for c in 0..self.cont.classes.len() {
            if let Some((key, _)) = self.cont.classes[c].heap.min() {
                next = next.min(self.class_tx_at(c, key));
            }
        }
        next
    }

    /// The timer fired at `now`: the functions whose back-off expires now go on the air
    /// (`on_air`, in function order), every other counter freezes (§10.3.4.3: its class
    /// folds the idle slots in). Returns whether anyone transmits.
    pub(super) fn seize(&mut self, now: SimTime) -> bool {
        if self.next_tx() != now {
            return false;
        }
        debug_assert!(self.on_air.is_empty());
        while let Some((t, k)) = self.cont.explicit.min() {
            if t != now.0 {
                break;
            }
            self.cont.explicit.pop();
            self.on_air.push(k);
        }
        for c in 0..self.cont.classes.len() {
            while let Some((key, k)) = self.cont.classes[c].heap.min() {
                if self.class_tx_at(c, key) != now {
                    break;
                }
                self.cont.classes[c].heap.pop();
                self.on_air.push(k);
            }
        }
        self.on_air.sort_unstable();
        let (ifs, idle_from) = (self.ifs, self.idle_from);
        self.cont
            .fold(|aifsn| ifs.idle_slots(ifs.aifs_reference(idle_from, aifsn), now));
        self.cont.seized.clear();
        for j in 0..self.on_air.len() {
            let k = self.on_air[j] as usize;
            self.sync(k);
            self.fns[k].backoff.clear();
            self.cont.seized.push(k as u32);
        }
        true
    }

    /// The exchange is settled and the medium idle from `idle_from`: the functions that
    /// transmitted count their new back-off from their reference (the others' counts
    /// follow the reference by themselves).
    pub(super) fn resume(&mut self) {
        // An explicit instant that did not come (none is expected): from the reference.
        while let Some((_, k)) = self.cont.explicit.pop() {
            if !self.fns[k as usize].buf.is_empty() {
                self.file(k as usize);
            }
        }
        for j in 0..self.cont.seized.len() {
            let k = self.cont.seized[j] as usize;
            if !self.fns[k].buf.is_empty() {
                self.file(k);
            }
        }
    }

    /// Arms the timer at the earliest transmission of a contending function (with
    /// partial hearing, whose ports each freeze and resume anyway, a pass over them).
    pub(super) fn rearm(&mut self, cx: &mut LinkCtx<'_>) {
        let next = if self.hx.is_some() {
            self.fns
                .iter()
                .map(|f| f.tx_at)
                .min()
                .unwrap_or(SimTime::MAX)
        } else {
            self.next_tx()
        };
        if next == SimTime::MAX {
            cx.cancel(self.timer);
        } else {
            cx.arm(self.timer, next);
        }
    }
}

/// Contention alone, as ns-3's `channel-access-manager-test.cc` tests its
/// `ChannelAccessManager`: each test names the clause of IEEE 802.11-2016 whose rule it
/// checks, and its expected instants are worked by hand from that rule and the PHY's
/// constants (802.11b, Table 16-4: aSlotTime 20 µs, aSIFSTime 10 µs, aCWmin 31, aCWmax
/// 1023; 802.11a, Table 17-21: 9 µs, 16 µs), exact to the nanosecond.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;
    use crate::link::wifi::edca::default_params;
    use crate::link::wifi::phy::{Standard, ACK_BYTES, CTS_BYTES, DATA_OVERHEAD_BYTES};

    fn us(n: u64) -> SimTime {
        SimTime::from_micros(n)
    }

    /// 802.11b's spaces (long preamble, basic rates 1 and 2 Mb/s).
    fn ifs_b() -> Ifs {
        Ifs::of(&Phy::new(Standard::B))
    }

    /// The DCF's function on 802.11b: AIFSN 2 (AIFS = DIFS), CW 31 … 1023.
    fn dcf_b() -> Backoff {
        Backoff::new(&EdcaParams::dcf(&Phy::new(Standard::B)))
    }

    /// §10.3.2.3.5 DIFS = aSIFSTime + 2·aSlotTime; §10.3.2.3.7 EIFS = aSIFSTime +
    /// AckTxTime + DIFS, AckTxTime at the lowest mandatory rate. 802.11b: DIFS = 10 + 2·20
    /// = 50 µs; a 14-byte ACK at 1 Mb/s with the long PLCP (192 µs) lasts 192 + 112 =
    /// 304 µs, so EIFS = 10 + 304 + 50 = 364 µs. 802.11a: DIFS = 16 + 2·9 = 34 µs; the ACK
    /// at 6 Mb/s (24 data bits a symbol) is 20 µs + ⌈(16 + 112 + 6)/24⌉ = 6 symbols of
    /// 4 µs = 44 µs, so EIFS = 16 + 44 + 34 = 94 µs.
    #[test]
    fn ifs_of_80211b_and_80211a_follow_the_standard() {
        let b = ifs_b();
        assert_eq!(
            (b.slot, b.sifs, b.difs, b.eifs),
            (us(20), us(10), us(50), us(364))
        );
        assert_eq!(Phy::new(Standard::B).duration(ACK_BYTES, 1_000), us(304));
        let a = Ifs::of(&Phy::new(Standard::A));
        assert_eq!(
            (a.slot, a.sifs, a.difs, a.eifs),
            (us(9), us(16), us(34), us(94))
        );
    }

    /// §10.3.4.3: the back-off counter decrements once per slot the medium is idle past
    /// DIFS, freezes when the medium goes busy, and resumes once the medium has been idle
    /// for DIFS again. 802.11b, a counter of k = 5: a frame received correctly ends at
    /// 1 000 µs, the count starts at 1 000 + 50 = 1 050 µs and would end at 1 050 + 5·20 =
    /// 1 150 µs. Another station's frame starts at 1 117 µs, after j = 3 wholly idle slots
    /// (1 050 … 1 110 µs) and 7 µs of the fourth: 5 − 3 = 2 slots are left. That frame
    /// (received correctly) ends at 1 517 µs: the count resumes at 1 567 µs and the
    /// station transmits at 1 567 + 2·20 = 1 607 µs.
    #[test]
    fn backoff_freezes_after_idle_slots_and_resumes_after_difs() {
        let ifs = ifs_b();
        let mut bo = dcf_b();
        bo.slots = Some(5);
        let from = ifs.idle_from(us(1_000), false);
        assert_eq!(from, us(1_050));
        assert_eq!(bo.expiry(&ifs, from), us(1_150));
        assert_eq!(bo.freeze(&ifs, from, us(1_117)), Some(2));
        let from = ifs.idle_from(us(1_517), false);
        assert_eq!(from, us(1_567));
        assert_eq!(bo.expiry(&ifs, from), us(1_607));

        // A busy start on a slot boundary: the slot that ended then was wholly idle.
        let mut bo = dcf_b();
        bo.slots = Some(5);
        assert_eq!(bo.freeze(&ifs, us(1_050), us(1_110)), Some(2));
        // Busy again before DIFS has elapsed (1 040 µs < 1 050 µs): no slot counts.
        assert_eq!(bo.freeze(&ifs, us(1_050), us(1_040)), Some(2));
        // 19 µs into the first slot: still none.
        assert_eq!(bo.freeze(&ifs, us(1_050), us(1_069)), Some(2));
        // A post-back-off whose slots all elapsed is spent.
        assert_eq!(bo.freeze(&ifs, us(1_050), us(1_090)), None);
        assert_eq!(bo.freeze(&ifs, us(1_050), us(1_200)), None);
    }

    /// §10.3.4.2: a frame that finds the medium idle for at least DIFS, with no back-off
    /// pending, is sent at once; otherwise the station backs off (§10.3.4.3), keeping a
    /// post-back-off that has not run out. 802.11b, medium idle from 1 050 µs (a correct
    /// frame ended at 1 000 µs).
    #[test]
    fn a_frame_on_an_idle_medium_goes_at_once_otherwise_it_backs_off() {
        let ifs = ifs_b();
        let mut rng = stream(1, "test");
        let from = us(1_050);
        // Idle for DIFS and more, nothing pending: now.
        let mut bo = dcf_b();
        assert_eq!(
            bo.on_frame(&ifs, from, us(1_200), true, &mut rng),
            us(1_200)
        );
        assert_eq!(bo.slots(), None);
        // Exactly at the end of DIFS: now too.
        assert_eq!(
            bo.on_frame(&ifs, from, us(1_050), true, &mut rng),
            us(1_050)
        );
        // A post-back-off of 2 slots has run out by 1 090 µs (1 050 + 2·20): now.
        bo.slots = Some(2);
        assert_eq!(
            bo.on_frame(&ifs, from, us(1_095), true, &mut rng),
            us(1_095)
        );
        assert_eq!(bo.slots(), None);
        // A post-back-off of 5 slots at 1 090 µs keeps counting: 1 050 + 5·20 = 1 150 µs.
        bo.slots = Some(5);
        assert_eq!(
            bo.on_frame(&ifs, from, us(1_090), true, &mut rng),
            us(1_150)
        );
        assert_eq!(bo.slots(), Some(5));
        // Within DIFS (1 030 µs < 1 050 µs), nothing pending: a back-off b in [0, 31] is
        // drawn and the frame goes at 1 050 + b·20 µs.
        let mut bo = dcf_b();
        let at = bo.on_frame(&ifs, from, us(1_030), true, &mut rng);
        let b = bo.slots().expect("a back-off is drawn");
        assert!(b <= 31);
        assert_eq!(at, us(1_050 + 20 * b as u64));
        // A busy medium draws as well (the instant holds once it is idle from `from`).
        let mut bo = dcf_b();
        bo.on_frame(&ifs, from, us(1_200), false, &mut rng);
        assert!(bo.slots().is_some());
    }

    /// §10.3.2.3.7: after a frame that was not received correctly a station defers EIFS,
    /// not DIFS; a correctly received frame ends that and DIFS applies again. 802.11b, a
    /// counter of 3: an erroneous frame ends at 2 000 µs, the count starts at 2 000 + 364 =
    /// 2 364 µs and the station transmits at 2 364 + 3·20 = 2 424 µs. A correct frame
    /// ending at 3 000 µs: it starts at 3 050 µs and transmits at 3 110 µs.
    #[test]
    fn eifs_follows_an_erroneous_frame_and_difs_a_correct_one() {
        let ifs = ifs_b();
        let mut bo = dcf_b();
        bo.slots = Some(3);
        // The shared-slot medium's reference.
        assert_eq!(ifs.idle_from(us(2_000), true), us(2_364));
        assert_eq!(ifs.idle_from(us(3_000), false), us(3_050));
        // A station's own view.
        let mut d = Deferral::default();
        d.medium_idle(&ifs, us(2_000), true);
        assert_eq!(d.idle_from(), us(2_364));
        assert_eq!(bo.expiry(&ifs, d.idle_from()), us(2_424));
        d.medium_idle(&ifs, us(3_000), false);
        assert_eq!(d.idle_from(), us(3_050));
        assert_eq!(bo.expiry(&ifs, d.idle_from()), us(3_110));
    }

    /// §10.3.2.4: a station that decodes a frame addressed to another sets its NAV from
    /// the Duration field, and defers until the NAV has expired (plus DIFS) even while it
    /// senses the medium idle; a shorter Duration does not shorten it. 802.11b, a
    /// 1 500-byte IP packet at 11 Mb/s after RTS/CTS, control frames at 2 Mb/s (the highest
    /// basic rate ≤ 11 Mb/s, §10.6.6.5.2). The RTS's Duration covers SIFS + CTS + SIFS +
    /// DATA + SIFS + ACK: CTS and ACK (14 B at 2 Mb/s) = 192 + 56 = 248 µs each, DATA (1 536
    /// B at 11 Mb/s) = 192 + ⌈12 288/11⌉ = 1 310 µs, so 3·10 + 248 + 1 310 + 248 = 1 836
    /// µs. A station that hears the RTS, ending at 5 000 µs, and nothing after it (the
    /// receiver is hidden from it): NAV until 6 836 µs, count from 6 886 µs, and with 2
    /// slots it transmits at 6 926 µs, not at 5 050 + 40 = 5 090 µs.
    #[test]
    fn nav_defers_a_station_on_a_physically_idle_medium() {
        let phy = Phy::new(Standard::B);
        let ifs = Ifs::of(&phy);
        assert_eq!(phy.response_kbps(11_000), 2_000);
        assert_eq!(phy.duration(CTS_BYTES, 2_000), us(248));
        assert_eq!(phy.ack_duration(11_000), us(248));
        assert_eq!(phy.duration(1_500 + DATA_OVERHEAD_BYTES, 11_000), us(1_310));
        let nav_end = us(5_000) + us(3 * 10 + 248 + 1_310 + 248);
        assert_eq!(nav_end, us(6_836));

        let mut d = Deferral::default();
        assert!(d.update_nav(nav_end));
        d.medium_idle(&ifs, us(5_000), false);
        assert_eq!(d.nav_end(), us(6_836));
        assert_eq!(d.idle_from(), us(6_886));
        let mut bo = dcf_b();
        bo.slots = Some(2);
        assert_eq!(bo.expiry(&ifs, d.idle_from()), us(6_926));
        // The CTS's own Duration (ends earlier) leaves the NAV as it is.
        assert!(!d.update_nav(us(5_500)));
        assert_eq!(d.nav_end(), us(6_836));
        // Without the NAV the count would have started at 5 050 µs.
        let mut plain = Deferral::default();
        plain.medium_idle(&ifs, us(5_000), false);
        assert_eq!(bo.expiry(&ifs, plain.idle_from()), us(5_090));
        // EIFS after an undecodable frame ends later than the NAV: EIFS rules.
        let mut d = Deferral::default();
        d.update_nav(us(5_100));
        d.medium_idle(&ifs, us(5_000), true);
        assert_eq!(d.idle_from(), us(5_364));
    }

    /// §10.3.2.4: a NAV set by an RTS may be reset when no PHY-RXSTART follows within
    /// 2·SIFS + CTS_Time + aRxPHYStartDelay + 2·aSlotTime of the RTS's end; the station
    /// then counts from DIFS after the reset. 802.11b, the RTS of the previous test ending
    /// at 5 000 µs: 2·10 + 248 + 192 (long PLCP) + 2·20 = 500 µs, reset at 5 500 µs, count
    /// from 5 550 µs.
    #[test]
    fn nav_set_by_an_rts_is_reset_when_no_reception_follows() {
        let ifs = ifs_b();
        let mut d = Deferral::default();
        d.update_nav(us(6_836));
        d.medium_idle(&ifs, us(5_000), false);
        assert_eq!(d.idle_from(), us(6_886));
        d.reset_nav(&ifs, us(5_500));
        assert_eq!(d.nav_end(), us(5_500));
        assert_eq!(d.idle_from(), us(5_550));
    }

    /// §10.3.2.9 (and ns-3's `ChannelAccessManager`): a sender whose ACK does not come
    /// back counts from DIFS after its ACKTimeout. 802.11b, DATA ends at 8 000 µs, the
    /// timeout (SIFS + slot + the 2 Mb/s ACK's long PLCP: 10 + 20 + 192 µs) at 8 222 µs:
    /// count from 8 272 µs.
    #[test]
    fn a_response_timeout_defers_difs_after_it() {
        let ifs = ifs_b();
        let mut d = Deferral::default();
        d.medium_idle(&ifs, us(8_000), false);
        d.timeout(&ifs, us(8_000) + us(10 + 20 + 192));
        assert_eq!(d.idle_from(), us(8_272));
    }

    /// §10.3.3: CW takes the next value of aCWmin, 2·aCWmin + 1, …, aCWmax at every failed
    /// attempt, stays at aCWmax, and returns to aCWmin after a success (or a discard).
    /// 802.11b: 31, 63, 127, 255, 511, 1023, 1023. EDCA AC_VO on 802.11b (Table 9-137):
    /// CWmin (31 + 1)/4 − 1 = 7, CWmax (31 + 1)/2 − 1 = 15: 7, 15, 15.
    #[test]
    fn cw_doubles_on_failure_up_to_cwmax_and_resets_on_success() {
        let mut bo = dcf_b();
        let mut seen = vec![bo.cw()];
        for _ in 0..6 {
            bo.double_cw();
            seen.push(bo.cw());
        }
        assert_eq!(seen, [31, 63, 127, 255, 511, 1023, 1023]);
        bo.reset_cw();
        assert_eq!(bo.cw(), 31);

        let vo = default_params(&Phy::new(Standard::B))[3];
        let mut bo = Backoff::new(&vo);
        assert_eq!(bo.cw(), 7);
        bo.double_cw();
        assert_eq!(bo.cw(), 15);
        bo.double_cw();
        assert_eq!(bo.cw(), 15);
        bo.reset_cw();
        assert_eq!(bo.cw(), 7);
    }

    /// §10.3.3: the back-off is drawn uniformly from [0, CW]. At CW = 7, 4 000 draws take
    /// every value 0 … 7 and none above (each value about 500 times).
    #[test]
    fn draws_are_uniform_in_zero_to_cw() {
        let mut rng = stream(7, "draws");
        let mut bo = Backoff::new(&default_params(&Phy::new(Standard::B))[3]);
        let mut count = [0u32; 8];
        for _ in 0..4_000 {
            bo.draw(&mut rng);
            count[bo.slots().unwrap() as usize] += 1;
        }
        assert!(count.iter().all(|&c| (400..600).contains(&c)), "{count:?}");
    }

    /// §10.3.2.3.6 and §10.22.2.4: an EDCA function counts from AIFS[AC] = aSIFSTime +
    /// AIFSN·aSlotTime after the busy period. 802.11b, a busy period ending (correctly) at
    /// 10 000 µs: DIFS ends at 10 050 µs; AC_BK (AIFSN 7) counts from 10 000 + 10 + 140 =
    /// 10 150 µs, AC_BE (3) from 10 070 µs, AC_VO (2) from 10 050 µs like the DCF, and an
    /// AP's AIFSN 1 from 10 030 µs.
    #[test]
    fn aifs_reference_counts_from_sifs_plus_aifsn_slots() {
        let ifs = ifs_b();
        let idle_from = ifs.idle_from(us(10_000), false);
        let params = default_params(&Phy::new(Standard::B));
        let refs: Vec<SimTime> = params
            .iter()
            .map(|p| Backoff::new(p).reference(&ifs, idle_from))
            .collect();
        assert_eq!(refs, [us(10_150), us(10_070), us(10_050), us(10_050)]);
        assert_eq!(dcf_b().reference(&ifs, idle_from), us(10_050));
        assert_eq!(ifs.aifs_reference(idle_from, 1), us(10_030));
        // A counter of 4 slots of AC_BK: 10 150 + 4·20 = 10 230 µs.
        let mut bk = Backoff::new(&params[0]);
        bk.slots = Some(4);
        assert_eq!(bk.expiry(&ifs, refs[0]), us(10_230));
    }
}
