//! Glue between the medium and the rate managers ([`minstrel`], [`arf`]): the PHY rate
//! of each link and of each attempt, and what the manager is told after it. The managers
//! themselves live in their own files, as ns-3 keeps each `WifiRemoteStationManager`.
//!
//! A station's rate control drives both directions of its link to the AP (its frames up,
//! the AP's frames down to it), each with its own manager. Minstrel picks a retry chain
//! at a frame's first attempt (after its statistics update) and the attempt number picks
//! the rate within it; ARF/AARF has one current rate. With an SNR the link's BER follows
//! the rate of each attempt ([`ber_table`]).
//!
//! [`minstrel`]: crate::link::wifi::minstrel
//! [`arf`]: crate::link::wifi::arf

use super::{Cell, RateControl};
use crate::engine::{SimRng, SimTime};
use crate::link::wifi::arf::Arf;
use crate::link::wifi::minstrel::{rate_of_attempt, Minstrel};
use crate::link::wifi::phy::Phy;
use crate::link::{LinkCtx, LinkEffect};

/// The rate control of one link direction.
pub(super) enum RateCtl {
    Minstrel(Minstrel),
    Arf(Arf),
}

impl RateCtl {
    /// The rate (index into the cell's ascending rates) it reports: Minstrel's best
    /// throughput rate, ARF's current one.
    pub(super) fn current(&self) -> usize {
        match self {
            RateCtl::Minstrel(m) => m.best(),
            RateCtl::Arf(a) => a.rate(),
        }
    }
}

/// Air time of a 1500-B frame exchange (DIFS, mean back-off, DATA, SIFS, ACK) at each of
/// `rates`: Minstrel's "perfect" transmission times.
fn exchange_times(phy: &Phy, rates: &[u32]) -> Vec<SimTime> {
    rates
        .iter()
        .map(|&k| {
            phy.difs()
                + SimTime(phy.cw_min as u64 * phy.slot.0 / 2)
                + phy.data_duration(1500, k)
                + phy.sifs
                + phy.ack_duration(k)
        })
        .collect()
}

/// A link direction's rate control of kind `rc` over `rates` (Minstrel draws its samples
/// from `rng()`); `None` for a fixed rate.
pub(super) fn rate_ctl(
    rc: RateControl,
    phy: &Phy,
    rates: &[u32],
    rng: impl FnOnce() -> SimRng,
) -> Option<Box<RateCtl>> {
    match rc {
        RateControl::Fixed => None,
        RateControl::Minstrel => Some(Box::new(RateCtl::Minstrel(Minstrel::new(
            exchange_times(phy, rates),
            rng(),
        )))),
        RateControl::Arf { adaptive } => {
            Some(Box::new(RateCtl::Arf(Arf::new(rates.len(), adaptive))))
        }
    }
}

/// The BER of each of `rates` at SNR `snr_db` (the channel module's modulation curves;
/// an MCS's SNR is the per-stream SNR over the channel's width, `Modulation::Mcs`).
pub(super) fn ber_table(rates: &[u32], phy: &Phy, snr_db: f64) -> Vec<f64> {
    let snr = 10f64.powf(snr_db / 10.0);
    rates.iter().map(|&k| phy.modulation(k).ber(snr)).collect()
}

impl Cell {
    /// The PHY rate of frames between port `p` and port `q` (one of them the AP).
    #[inline]
    pub(super) fn rate(&self, p: usize, q: usize) -> u32 {
        let (link, rc) = if self.is_ap(p) {
            (q, &self.sta[q].rc_down)
        } else {
            (p, &self.sta[p].rc_up)
        };
        match rc {
            Some(m) => self.rates[m.current()],
            None => self.rate_kbps[link],
        }
    }

    /// The rate of the next attempt of function `k`'s head frame to port `q`: the fixed
    /// rate, ARF's current rate, or the entry of the frame's Minstrel retry chain for this
    /// attempt (the chain is drawn at the frame's first attempt, after Minstrel's
    /// statistics update).
    pub(super) fn attempt_kbps(&mut self, k: usize, q: usize, cx: &mut LinkCtx<'_>) -> u32 {
        let p = self.fns[k].port as usize;
        let ap = self.is_ap(p);
        let link = if ap { q } else { p };
        let s = &mut self.sta[link];
        let rc = if ap {
            s.rc_down.as_deref_mut()
        } else {
            s.rc_up.as_deref_mut()
        };
        let m = match rc {
            None => return self.rate(p, q),
            Some(RateCtl::Arf(a)) => {
                let r = a.rate();
                self.fns[k].attempt_rate = r;
                return self.rates[r];
            }
            Some(RateCtl::Minstrel(m)) => m,
        };
        if self.fns[k].chain.is_none() {
            if m.update(cx.now) {
                cx.emit(LinkEffect::ViewChanged(self.ports[p]));
                cx.emit(LinkEffect::ViewChanged(self.ports[q]));
            }
            self.fns[k].chain = Some(m.chain());
        }
        let f = &mut self.fns[k];
        let r = rate_of_attempt(f.chain.as_ref().unwrap(), f.src + f.lrc);
        f.attempt_rate = r;
        self.rates[r]
    }

    /// Tells the link's rate control how function `k`'s attempt to `q` went (a change of
    /// ARF's rate changes both ends' views).
    #[inline(always)]
    pub(super) fn rc_report(&mut self, k: usize, q: usize, ok: bool, cx: &mut LinkCtx<'_>) {
        let p = self.fns[k].port as usize;
        let ap = self.is_ap(p);
        let link = if ap { q } else { p };
        let r = self.fns[k].attempt_rate;
        let s = &mut self.sta[link];
        let rc = if ap {
            s.rc_down.as_deref_mut()
        } else {
            s.rc_up.as_deref_mut()
        };
        let changed = match rc {
            None => false,
            Some(RateCtl::Minstrel(m)) => {
                m.report(r, ok);
                false
            }
            Some(RateCtl::Arf(a)) => a.report(ok),
        };
        if changed {
            cx.emit(LinkEffect::ViewChanged(self.ports[p]));
            cx.emit(LinkEffect::ViewChanged(self.ports[q]));
        }
    }
}
