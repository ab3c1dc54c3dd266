//! The shared 2.4 GHz spectrum: who transmits where, in which band and when, and the
//! interference a receiver sees (the Bluetooth / 802.11b coexistence model of Golmie, Van
//! Dyck and Soltanian, "Interference of Bluetooth and IEEE 802.11: simulation modeling and
//! performance evaluation", MSWiM 2001 — ref. [19] of seed 000).
//!
//! A transmission occupies a frequency band for a time interval: a Bluetooth hop k
//! occupies 1 MHz centred at 2402 + k MHz (k = 0 … 78); an 802.11b channel c occupies
//! 22 MHz centred at 2412 + 5(c − 1) MHz (c = 1 … 13). At a receiver, every other
//! transmission that overlaps the victim packet in time *and* band contributes
//! interference power in proportion to the spectral overlap: its received power times the
//! fraction of its band that falls inside the victim's band (a flat power spectral density
//! over the occupied band, the first-order form of Golmie's model). A 1 MHz hop inside a
//! WLAN receiver's 22 MHz band thus adds all its power; a 22 MHz WLAN frame adds 1/22 of
//! its power to a Bluetooth receiver.
//!
//! The victim packet is cut into segments at every start and end of an overlapping
//! transmission; each segment has its SINR = S / (N + Σ I), hence a BER from the victim's
//! modulation, and the packet survives with `Π (1 − BER_seg)^{bits_seg}`, the bits split
//! in proportion to time (the same share-of-the-bits rule as Gilbert-Elliott). A packet
//! untouched by interference gets `(1 − BER(S/N))^bits`.
//!
//! Media never call each other: each registers its transmissions here when they start and
//! asks at the receive end; [`Spectrum::prune`] forgets transmissions that ended before any
//! packet still on the air began. The scratch buffers are reused, so a query allocates
//! nothing once the buffers have grown to the largest overlap seen.

use super::mobility::Position;
use super::propagation::{dbm_to_mw, PathLoss};
use crate::engine::SimTime;

/// A frequency band [low, high) in MHz.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    pub low_mhz: f64,
    pub high_mhz: f64,
}

impl Band {
    /// The band of a transmission centred at `centre_mhz`, `width_mhz` wide.
    pub fn centred(centre_mhz: f64, width_mhz: f64) -> Band {
        Band {
            low_mhz: centre_mhz - width_mhz / 2.0,
            high_mhz: centre_mhz + width_mhz / 2.0,
        }
    }

    /// Bluetooth hop `k` (0 … 78): 1 MHz at 2402 + k MHz (Bluetooth Core, Vol 2 Part A §2).
    pub fn bluetooth_hop(k: u8) -> Band {
        Band::centred(2402.0 + k as f64, 1.0)
    }

    /// 802.11b channel `c` (1 … 14): 22 MHz centred at 2412 + 5(c − 1) MHz (channel 14 at
    /// 2484 MHz; IEEE 802.11-2016 §16.4.4.3).
    pub fn wlan_11b(c: u8) -> Band {
        let centre = if c == 14 {
            2484.0
        } else {
            2412.0 + 5.0 * (c as f64 - 1.0)
        };
        Band::centred(centre, 22.0)
    }

    pub fn width_mhz(&self) -> f64 {
        self.high_mhz - self.low_mhz
    }

    /// Width of the intersection with `other`, in MHz (0 when disjoint).
    pub fn overlap_mhz(&self, other: &Band) -> f64 {
        (self.high_mhz.min(other.high_mhz) - self.low_mhz.max(other.low_mhz)).max(0.0)
    }
}

/// Fraction of band `a` covered by band `b`: 1 for a hop inside a WLAN channel, 0.5 for a
/// hop straddling its edge, 0 outside. With a flat spectrum it is also the fraction of
/// `a`'s power that a receiver tuned to `b` collects.
pub fn overlap_fraction(a: &Band, b: &Band) -> f64 {
    let w = a.width_mhz();
    if w <= 0.0 {
        0.0
    } else {
        a.overlap_mhz(b) / w
    }
}

/// One transmission on the air.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transmission {
    /// Who transmits (a medium's own numbering of its radios); a victim never interferes
    /// with itself.
    pub source: u32,
    pub start: SimTime,
    pub end: SimTime,
    pub band: Band,
    /// EIRP: transmit power plus antenna gain, dBm.
    pub eirp_dbm: f64,
    pub position: Position,
}

/// A packet being received: what [`Spectrum`] is asked about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reception {
    /// The transmitter of the packet (its own transmission is not interference).
    pub source: u32,
    pub start: SimTime,
    pub end: SimTime,
    /// The receiver's band.
    pub band: Band,
    pub rx_position: Position,
    /// Receive antenna gain, dBi (applies to interferers too).
    pub rx_gain_dbi: f64,
}

/// The shared spectrum.
pub struct Spectrum {
    path_loss: PathLoss,
    /// Distances are at least this (radios on one node stand this far apart).
    min_distance_m: f64,
    on_air: Vec<Transmission>,
    /// Scratch: (overlapping interferer's clipped interval, in-band power mW).
    hits: Vec<(SimTime, SimTime, f64)>,
    /// Scratch: segment boundaries.
    cuts: Vec<SimTime>,
}

impl Spectrum {
    /// A spectrum whose interferers' received power follows `path_loss`.
    pub fn new(path_loss: PathLoss) -> Self {
        Spectrum {
            path_loss,
            min_distance_m: 0.0,
            on_air: Vec::new(),
            hits: Vec::new(),
            cuts: Vec::new(),
        }
    }

    /// Sets the shortest distance between two radios, metres (colocated radios: two on
    /// one node, whose positions coincide).
    pub fn set_min_distance(&mut self, metres: f64) {
        self.min_distance_m = metres;
    }

    /// Records a transmission (call when it starts; its end is known from its length).
    pub fn register(&mut self, tx: Transmission) {
        self.on_air.push(tx);
    }

    /// Forgets the transmissions of `sources` that start at or after `from` (registered
    /// ahead of time, then called off).
    pub fn retract(&mut self, sources: &[u32], from: SimTime) {
        self.on_air
            .retain(|t| t.start < from || !sources.contains(&t.source));
    }

    /// Forgets transmissions that ended at or before `before`.
    pub fn prune(&mut self, before: SimTime) {
        self.on_air.retain(|t| t.end > before);
    }

    /// Transmissions currently remembered.
    pub fn len(&self) -> usize {
        self.on_air.len()
    }

    pub fn is_empty(&self) -> bool {
        self.on_air.is_empty()
    }

    /// Interference power in mW that `tx` puts into the receiver's band at its position.
    pub fn in_band_power_mw(&self, tx: &Transmission, rx: &Reception) -> f64 {
        let frac = overlap_fraction(&tx.band, &rx.band);
        if frac <= 0.0 {
            return 0.0;
        }
        let d = tx
            .position
            .distance(&rx.rx_position)
            .max(self.min_distance_m);
        let rx_dbm = tx.eirp_dbm + rx.rx_gain_dbi - self.path_loss.loss_db(d);
        dbm_to_mw(rx_dbm) * frac
    }

    /// Collects the interferers of `rx` (overlapping in time and band) into the scratch
    /// list; returns how many.
    fn collect(&mut self, rx: &Reception) -> usize {
        let mut hits = std::mem::take(&mut self.hits);
        hits.clear();
        for tx in &self.on_air {
            if tx.source == rx.source || tx.end <= rx.start || tx.start >= rx.end {
                continue;
            }
            let p = self.in_band_power_mw(tx, rx);
            if p > 0.0 {
                hits.push((tx.start.max(rx.start), tx.end.min(rx.end), p));
            }
        }
        let n = hits.len();
        self.hits = hits;
        n
    }

    /// Whether any other transmission overlaps `rx` in time and band.
    pub fn is_interfered(&mut self, rx: &Reception) -> bool {
        self.collect(rx) > 0
    }

    /// Calls `segment(duration_ns, interference_mw)` for each piece of `[rx.start, rx.end)`
    /// with constant interference (zero-interference pieces included).
    pub fn for_each_segment(&mut self, rx: &Reception, mut segment: impl FnMut(u64, f64)) {
        let n = self.collect(rx);
        if n == 0 {
            segment(rx.end.0.saturating_sub(rx.start.0), 0.0);
            return;
        }
        let mut cuts = std::mem::take(&mut self.cuts);
        cuts.clear();
        cuts.push(rx.start);
        cuts.push(rx.end);
        for &(a, b, _) in &self.hits {
            cuts.push(a);
            cuts.push(b);
        }
        cuts.sort_unstable();
        cuts.dedup();
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let i: f64 = self
                .hits
                .iter()
                .filter(|&&(s, e, _)| s <= a && e >= b)
                .map(|&(_, _, p)| p)
                .sum();
            segment(b.0 - a.0, i);
        }
        self.cuts = cuts;
    }

    /// Probability that a packet of `bits` bits received as `rx`, with signal power
    /// `signal_mw` and noise `noise_mw`, arrives intact, given the victim's BER curve
    /// `ber(sinr)`.
    pub fn success_probability(
        &mut self,
        rx: &Reception,
        signal_mw: f64,
        noise_mw: f64,
        bits: u64,
        ber: impl Fn(f64) -> f64,
    ) -> f64 {
        let total = rx.end.0.saturating_sub(rx.start.0).max(1) as f64;
        let b = bits as f64;
        let mut log_s = 0.0;
        self.for_each_segment(rx, |dur, i| {
            let sinr = signal_mw / (noise_mw + i);
            let share = b * dur as f64 / total;
            log_s += share * libm::log1p(-ber(sinr));
        });
        if b <= 0.0 {
            1.0
        } else {
            log_s.exp()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::bit_error::success;
    use crate::channel::modulation::Modulation;
    use crate::engine::stream;
    use rand::Rng;

    /// Golmie et al.: a 1 MHz hop inside the 22 MHz channel is fully overlapped, one
    /// straddling the edge half, one outside not at all.
    #[test]
    fn hop_inside_partly_overlapping_and_outside_a_22_mhz_channel() {
        let ch1 = Band::wlan_11b(1); // 2401–2423 MHz
        assert_eq!((ch1.low_mhz, ch1.high_mhz), (2401.0, 2423.0));
        assert_eq!(overlap_fraction(&Band::bluetooth_hop(10), &ch1), 1.0);
        assert_eq!(overlap_fraction(&Band::bluetooth_hop(21), &ch1), 0.5); // 2422.5–2423.5
        assert_eq!(overlap_fraction(&Band::bluetooth_hop(22), &ch1), 0.0);
        assert_eq!(overlap_fraction(&Band::bluetooth_hop(78), &ch1), 0.0);
        // Power a 22 MHz frame leaves in a hop's 1 MHz: 1/22.
        assert!((overlap_fraction(&ch1, &Band::bluetooth_hop(10)) - 1.0 / 22.0).abs() < 1e-15);
        // Channel 6 (2426–2448): hops 24 and 46 straddle its edges.
        let ch6 = Band::wlan_11b(6);
        assert_eq!(overlap_fraction(&Band::bluetooth_hop(24), &ch6), 0.5);
        assert_eq!(overlap_fraction(&Band::bluetooth_hop(46), &ch6), 0.5);
        assert_eq!(overlap_fraction(&Band::bluetooth_hop(23), &ch6), 0.0);
        // Over the 79 hops, the overlap fractions of a channel inside the band sum to
        // its width: 22 (channel 6); channel 1 loses the 0.5 MHz below hop 0.
        let sum = |b: &Band| -> f64 {
            (0..79)
                .map(|k| overlap_fraction(&Band::bluetooth_hop(k), b))
                .sum()
        };
        assert_eq!(sum(&ch6), 22.0);
        assert_eq!(sum(&ch1), 21.5);
    }

    fn wlan_always_on(channel: u8) -> Spectrum {
        let mut s = Spectrum::new(PathLoss::Friis {
            frequency_hz: 2.437e9,
        });
        s.register(Transmission {
            source: 1,
            start: SimTime::ZERO,
            end: SimTime::MAX,
            band: Band::wlan_11b(channel),
            eirp_dbm: 14.0, // 25 mW (seed 000, Table 1)
            position: Position::new(1.0, 0.0, 0.0),
        });
        s
    }

    /// Golmie et al. / ALGORITHMS.md §6: with a WLAN on channel 1 transmitting all the
    /// time and uniform hops, the fraction of Bluetooth packets that overlap it → 22/79
    /// (hops 0–21), within the binomial 99.9 % bound over 200 000 hops.
    #[test]
    fn uniform_hops_collide_with_an_always_on_wlan_in_22_of_79_cases() {
        let mut s = wlan_always_on(1);
        let mut rng = stream(1, "test:hops");
        let n = 200_000u64;
        let slot = 625_000u64;
        let mut hit = 0u64;
        for i in 0..n {
            let k: u8 = rng.random_range(0..79);
            let rx = Reception {
                source: 2,
                start: SimTime(i * slot),
                end: SimTime(i * slot + 366_000),
                band: Band::bluetooth_hop(k),
                rx_position: Position::new(0.0, 0.0, 0.0),
                rx_gain_dbi: 0.0,
            };
            if s.is_interfered(&rx) {
                hit += 1;
            }
        }
        let p = 22.0 / 79.0;
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        eprintln!(
            "hops hitting the WLAN: {hit} of {n} = {:.5} vs 22/79 = {p:.5}, z = {:+.2}",
            hit as f64 / n as f64,
            (hit as f64 - n as f64 * p) / sd
        );
        assert!(
            (hit as f64 - n as f64 * p).abs() <= 3.29 * sd,
            "{hit} of {n}"
        );
    }

    /// SIR → BER → PER: a DH1-sized GFSK packet of 1 mW at 1 m with an always-on 25 mW WLAN
    /// on top of it gets (1 − BER(S/(N + I/22)))^bits, I by Friis; half-overlapped in time,
    /// half the bits see the interference.
    #[test]
    fn victim_success_follows_sir_ber_per_for_the_overlapped_part() {
        let pl = PathLoss::Friis {
            frequency_hz: 2.437e9,
        };
        let signal = dbm_to_mw(0.0 - pl.loss_db(1.0));
        let noise = dbm_to_mw(-110.0);
        let i_full = dbm_to_mw(14.0 - pl.loss_db(1.0)) / 22.0;
        let gfsk = |x: f64| Modulation::Gfsk.ber(x);
        let mut s = Spectrum::new(pl);
        s.register(Transmission {
            source: 1,
            start: SimTime(0),
            end: SimTime(500_000),
            band: Band::wlan_11b(1),
            eirp_dbm: 14.0,
            position: Position::new(1.0, 0.0, 0.0),
        });
        let rx = Reception {
            source: 2,
            start: SimTime(0),
            end: SimTime(1_000_000),
            band: Band::bluetooth_hop(5),
            rx_position: Position::new(0.0, 0.0, 0.0),
            rx_gain_dbi: 0.0,
        };
        let bits = 366u64;
        let got = s.success_probability(&rx, signal, noise, bits, gfsk);
        let expect =
            success(gfsk(signal / (noise + i_full)), 183.0) * success(gfsk(signal / noise), 183.0);
        assert!((got - expect).abs() < 1e-12, "{got} vs {expect}");
        // Outside the channel: only noise.
        let rx_out = Reception {
            band: Band::bluetooth_hop(60),
            ..rx
        };
        let got = s.success_probability(&rx_out, signal, noise, bits, gfsk);
        assert!((got - success(gfsk(signal / noise), 366.0)).abs() < 1e-12);
        // Pruning forgets what ended.
        s.prune(SimTime(500_000));
        assert!(s.is_empty());
    }
}
