//! A medium's attachment to the shared 2.4 GHz spectrum ([`Spectrum`]): where its radios
//! stand, how strongly they transmit, and the draws that turn a packet's SINR history into
//! its loss (the Golmie, Van Dyck and Soltanian interference model; seed 000 §5.4).
//!
//! Media never call each other: a medium attached to a spectrum registers each of its
//! transmissions when it starts ([`Air::register`]) and, when one of its packets has been
//! received, asks the spectrum whether it survived what else was on the air
//! ([`Air::survives`]). Because every medium registers at the start of a transmission
//! and asks at the end of a reception, everything that overlapped a packet is known when
//! it is asked about. The spectrum is shared by `Rc<RefCell<…>>`: one simulation runs on
//! one thread, and a medium's call never re-enters another medium.
//!
//! The wanted signal follows the same path loss as the interference (the same
//! propagation model for both, Golmie et al. §3); the receiver's noise is the thermal
//! floor of its bandwidth plus its noise figure. A transmitter and a receiver on one node
//! (a dual-mode access point) are `min_distance_m` apart (the spectrum's separation of
//! colocated antennas).
//!
//! The folder holds the whole shared air: what the scenario format writes (`[spectrum]`:
//! [`spec`], re-exported by `crate::scenario`), its checks (`checks`, called by
//! `crate::scenario::validate`), its builder (`build`: the spectrum and each member's
//! radios, called by `crate::sim`) and this model; the members' sides are
//! `bluetooth::coexist` and `wifi::coexist`.

pub(crate) mod build;
pub(crate) mod checks;
pub mod spec;

use crate::channel::mobility::Position;
use crate::channel::propagation::dbm_to_mw;
use crate::channel::{Band, PathLoss, Reception, Spectrum, Transmission};
use crate::engine::{SimRng, SimTime};
use rand::Rng;
use std::cell::RefCell;
use std::rc::Rc;

/// The spectrum as the media attached to it share it.
pub type SharedSpectrum = Rc<RefCell<Spectrum>>;

/// Transmissions that ended this long before a registration are forgotten: longer than
/// any packet a query could still be about (an 802.11b frame of 2 304 B at 1 Mb/s with
/// RTS/CTS takes under 25 ms).
const KEEP: SimTime = SimTime::from_millis(100);

/// One radio of a medium (one per port).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AirPort {
    /// Its number in the spectrum (unique among all attached media).
    pub source: u32,
    pub position: Position,
    /// Transmit power plus antenna gain, dBm.
    pub eirp_dbm: f64,
}

/// A medium's radios on the shared spectrum.
pub struct Air {
    spectrum: SharedSpectrum,
    ports: Vec<AirPort>,
    path_loss: PathLoss,
    /// Receiver noise in the medium's receive bandwidth, mW.
    noise_mw: f64,
    min_distance_m: f64,
    rng: SimRng,
    /// Packets asked about, and those the interference destroyed (since the warm-up).
    pub asked: u64,
    pub lost: u64,
}

impl Air {
    pub fn new(
        spectrum: SharedSpectrum,
        ports: Vec<AirPort>,
        path_loss: PathLoss,
        noise_dbm: f64,
        min_distance_m: f64,
        rng: SimRng,
    ) -> Self {
        Air {
            spectrum,
            ports,
            path_loss,
            noise_mw: dbm_to_mw(noise_dbm),
            min_distance_m,
            rng,
            asked: 0,
            lost: 0,
        }
    }

    /// Port `from` transmits in `band` during `[start, end)`.
    pub fn register(&self, from: usize, start: SimTime, end: SimTime, band: Band) {
        let p = self.ports[from];
        let mut s = self.spectrum.borrow_mut();
        if s.len() > 64 {
            s.prune(start.saturating_sub(KEEP));
        }
        s.register(Transmission {
            source: p.source,
            start,
            end,
            band,
            eirp_dbm: p.eirp_dbm,
            position: p.position,
        });
    }

    /// Forgets this medium's transmissions (any of its ports) that start at or after
    /// `from`: ones registered ahead of time that will not happen after all.
    pub fn retract_all(&self, from: SimTime) {
        let sources: Vec<u32> = self.ports.iter().map(|p| p.source).collect();
        self.spectrum.borrow_mut().retract(&sources, from);
    }

    /// Received power of port `from`'s signal at port `to`, mW.
    pub fn signal_mw(&self, from: usize, to: usize) -> f64 {
        let (a, b) = (self.ports[from], self.ports[to]);
        let d = a.position.distance(&b.position).max(self.min_distance_m);
        dbm_to_mw(a.eirp_dbm - self.path_loss.loss_db(d))
    }

    /// Probability that a packet from `from` to `to`, on the air during `[start, end)` in
    /// `band`, survives the interference: `Π_seg s(sinr_seg, share_seg)` where
    /// `s(sinr, share)` is the survival of the share (fraction of the packet's time) of
    /// its bits at that SINR, as `survival` computes it.
    pub fn survival(
        &self,
        from: usize,
        to: usize,
        start: SimTime,
        end: SimTime,
        band: Band,
        mut survival: impl FnMut(f64, f64) -> f64,
    ) -> f64 {
        let signal = self.signal_mw(from, to);
        let rx = Reception {
            source: self.ports[from].source,
            start,
            end,
            band,
            rx_position: self.ports[to].position,
            rx_gain_dbi: 0.0,
        };
        let total = end.0.saturating_sub(start.0).max(1) as f64;
        let noise = self.noise_mw;
        let mut p = 1.0;
        self.spectrum.borrow_mut().for_each_segment(&rx, |dur, i| {
            p *= survival(signal / (noise + i), dur as f64 / total);
        });
        p
    }

    /// Draws whether a packet survives with probability `p` (counted when `counting`).
    pub fn draw(&mut self, p: f64, counting: bool) -> bool {
        let ok = p >= 1.0 || self.rng.random::<f64>() < p;
        if counting {
            self.asked += 1;
            self.lost += u64::from(!ok);
        }
        ok
    }
}
