//! 79-channel frequency hopping, the AFH channel map, and the channel classification that
//! AFH and BIAS share (Bluetooth Core 1.2, Vol 2 Part B §2.6; seed 000 §5.4 and its refs.
//! [18], [20]; `../shared/design/ALGORITHMS.md` §6–7).
//!
//! **The hop sequence.** The specification's hop-selection kernel maps the master's clock
//! and address to a channel so that, over the sequence, each of the 79 channels is used
//! equally often and consecutive hops look independent. We keep exactly those statistics
//! with a counter-based generator: the channel of slot `n` is a 64-bit mix (SplitMix64's
//! finaliser) of the piconet's key and `n`, reduced modulo 79 (the bias of the reduction is
//! below 79/2⁶⁴). The key comes from the piconet's own stream `piconet:<name>:hop`, so
//! the sequence is reproducible and independent of every other component. Being a
//! function of the slot number (as the real kernel is a function of the clock), the master
//! can predict future hops — what BIAS needs — and skipped idle frames cost no draws.
//! A multi-slot packet stays on the channel of its first slot (§2.6.3).
//!
//! **AFH** (§2.6.4.5 remapping, §2.6.4.6 same-channel mechanism). With a channel map, a
//! hop onto an unused channel is remapped deterministically onto the list of used
//! channels: here uniformly, by a second mix of the slot number (the specification indexes
//! the used list with a kernel output; both spread the remapped hops evenly). A slave
//! answers on the master's channel. The map keeps at least [`AFH_MIN_CHANNELS`] = 20 used
//! channels (N_min, §2.6.4.5).
//!
//! **Classification** ([`Classifier`]): every channel's packet error rate is measured
//! over a window of `interval` from the baseband packets received on it (both ends: the
//! master's own measurement and the slaves' `LMP_channel_classification` reports, Core 1.2
//! Vol 2 Part C §4.1.4); a channel with at least [`MIN_SAMPLES`] packets in the window is
//! *bad* when its PER exceeds the threshold, *good* otherwise; a channel with fewer keeps
//! its class. An AFH channel map is the good channels, topped up with the least bad ones
//! to 20. A channel left out of the map is not observed again and keeps its class (a
//! static interferer, as in the seeds; re-probing excluded channels is not modelled).

use crate::engine::{stream, SimTime};
use rand::Rng;

/// Bluetooth BR channels: 2402 + k MHz, k = 0 … 78.
pub const CHANNELS: usize = 79;
/// AFH's N_min: the fewest used channels a map may have (Core 1.2 Vol 2 Part B §2.6.4.5).
pub const AFH_MIN_CHANNELS: usize = 20;
/// Packets a channel needs in a classification window to be (re)classified.
pub const MIN_SAMPLES: u32 = 4;

/// SplitMix64's finaliser: a bijective 64-bit mix with full avalanche.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A piconet's hop sequence and (with AFH) its channel map.
#[derive(Clone, Debug)]
pub struct Hopping {
    key: u64,
    /// Used channels (all 79 without AFH), ascending.
    used: Vec<u8>,
    in_map: [bool; CHANNELS],
}

impl Hopping {
    /// The sequence of piconet `name` (stream `piconet:<name>:hop`), all 79 channels used.
    pub fn new(seed: u64, name: &str) -> Self {
        let key = stream(seed, &format!("piconet:{name}:hop")).random::<u64>();
        Hopping {
            key,
            used: (0..CHANNELS as u8).collect(),
            in_map: [true; CHANNELS],
        }
    }

    /// The basic hop (no channel map) of slot `n`.
    #[inline]
    pub fn basic(&self, n: u64) -> u8 {
        (mix(self.key ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15)) % CHANNELS as u64) as u8
    }

    /// The channel of slot `n` under the current map.
    #[inline]
    pub fn channel(&self, n: u64) -> u8 {
        let f = self.basic(n);
        if self.in_map[f as usize] {
            f
        } else {
            let r = mix(self.key.rotate_left(32) ^ n.wrapping_mul(0xd1b5_4a32_d192_ed03));
            self.used[(r % self.used.len() as u64) as usize]
        }
    }

    /// The slot number of instant `t` (slots counted from time zero, the master's clock).
    #[inline]
    pub fn slot_of(t: SimTime) -> u64 {
        t.0 / super::baseband::SLOT.0
    }

    /// Installs a channel map (at least [`AFH_MIN_CHANNELS`] used channels).
    pub fn set_map(&mut self, map: &[bool; CHANNELS]) {
        debug_assert!(map.iter().filter(|&&u| u).count() >= AFH_MIN_CHANNELS);
        self.in_map = *map;
        self.used = (0..CHANNELS as u8).filter(|&k| map[k as usize]).collect();
    }

    /// Channels in use.
    pub fn used(&self) -> usize {
        self.used.len()
    }
}

/// Per-channel packet error rates over windows, and each channel's good/bad class.
#[derive(Clone, Debug)]
pub struct Classifier {
    threshold: f64,
    interval: SimTime,
    window_end: SimTime,
    sent: [u32; CHANNELS],
    lost: [u32; CHANNELS],
    /// Last measured PER per channel (0 until measured).
    per: [f64; CHANNELS],
    bad: [bool; CHANNELS],
    /// Windows closed so far.
    windows: u64,
}

impl Classifier {
    /// A channel is bad when its PER over a window of `interval` exceeds `threshold`.
    pub fn new(threshold: f64, interval: SimTime) -> Self {
        Classifier {
            threshold,
            interval,
            window_end: interval,
            sent: [0; CHANNELS],
            lost: [0; CHANNELS],
            per: [0.0; CHANNELS],
            bad: [false; CHANNELS],
            windows: 0,
        }
    }

    /// A baseband packet on channel `ch` was received at `now`, intact or not. Returns
    /// whether a window closed (the classes may have changed).
    pub fn observe(&mut self, ch: u8, lost: bool, now: SimTime) -> bool {
        let closed = self.roll(now);
        self.sent[ch as usize] += 1;
        self.lost[ch as usize] += u32::from(lost);
        closed
    }

    /// Closes the windows that ended by `now`; returns whether any did.
    fn roll(&mut self, now: SimTime) -> bool {
        if now < self.window_end {
            return false;
        }
        for k in 0..CHANNELS {
            if self.sent[k] >= MIN_SAMPLES {
                self.per[k] = f64::from(self.lost[k]) / f64::from(self.sent[k]);
                self.bad[k] = self.per[k] > self.threshold;
            }
        }
        self.sent = [0; CHANNELS];
        self.lost = [0; CHANNELS];
        self.windows += 1;
        // Windows without a packet close at once (no event is spent on them).
        let behind = (now.0 - self.window_end.0) / self.interval.0.max(1);
        self.window_end += SimTime((behind + 1) * self.interval.0);
        true
    }

    /// Whether channel `ch` is classified bad.
    #[inline]
    pub fn is_bad(&self, ch: u8) -> bool {
        self.bad[ch as usize]
    }

    /// Channels classified bad.
    pub fn bad_count(&self) -> usize {
        self.bad.iter().filter(|&&b| b).count()
    }

    /// The AFH channel map: the good channels, topped up with the bad ones of lowest
    /// measured PER (ties: the lower channel) to [`AFH_MIN_CHANNELS`].
    pub fn afh_map(&self) -> [bool; CHANNELS] {
        let mut map = [false; CHANNELS];
        let mut n = 0;
        for (used, &bad) in map.iter_mut().zip(&self.bad) {
            if !bad {
                *used = true;
                n += 1;
            }
        }
        if n < AFH_MIN_CHANNELS {
            let mut rest: Vec<usize> = (0..CHANNELS).filter(|&k| !map[k]).collect();
            rest.sort_by(|&a, &b| self.per[a].total_cmp(&self.per[b]).then(a.cmp(&b)));
            for k in rest.into_iter().take(AFH_MIN_CHANNELS - n) {
                map[k] = true;
            }
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Core 1.2 Vol 2 Part B §2.6: each channel equally often. Pearson's χ² over 79 bins
    /// (78 degrees of freedom) of 790 000 hops stays below the 99.9 % quantile, 124.8;
    /// consecutive hops are independent: the 79 × 79 pair table's χ² (6 240 d.o.f.,
    /// 99.9 % quantile ≈ 6 677) likewise.
    #[test]
    fn hops_are_uniform_over_79_channels_and_consecutive_hops_independent() {
        let h = Hopping::new(1, "bt");
        let n = 790_000u64;
        let mut bins = [0u64; CHANNELS];
        let mut pairs = vec![0u64; CHANNELS * CHANNELS];
        let mut prev = h.basic(0);
        for s in 0..n {
            let f = h.basic(s);
            bins[f as usize] += 1;
            if s > 0 {
                pairs[prev as usize * CHANNELS + f as usize] += 1;
            }
            prev = f;
        }
        let e = n as f64 / CHANNELS as f64;
        let chi: f64 = bins.iter().map(|&b| (b as f64 - e).powi(2) / e).sum();
        eprintln!("χ²(78) = {chi:.1}");
        assert!(chi < 124.8, "χ² {chi}");
        let e2 = (n - 1) as f64 / (CHANNELS * CHANNELS) as f64;
        let chi2: f64 = pairs.iter().map(|&b| (b as f64 - e2).powi(2) / e2).sum();
        eprintln!("pairs χ²(6240) = {chi2:.1}");
        assert!(chi2 < 6677.0, "pairs χ² {chi2}");
        // Another piconet hops differently.
        let g = Hopping::new(1, "bt2");
        let same = (0..79_000).filter(|&s| h.basic(s) == g.basic(s)).count();
        assert!(
            (same as f64 - 1000.0).abs() < 4.0 * 1000f64.sqrt(),
            "{same}"
        );
    }

    /// AFH (§2.6.4.5): with a map of 20 channels every hop lands on a used one, each used
    /// channel equally often (χ²(19) < 43.8, the 99.9 % quantile), and used hops keep
    /// their basic channel.
    #[test]
    fn afh_remaps_onto_the_used_channels_uniformly() {
        let mut h = Hopping::new(7, "bt");
        let mut map = [false; CHANNELS];
        map[40..60].fill(true);
        h.set_map(&map);
        assert_eq!(h.used(), 20);
        let n = 200_000u64;
        let mut bins = [0u64; CHANNELS];
        for s in 0..n {
            let f = h.channel(s);
            assert!(map[f as usize]);
            if map[h.basic(s) as usize] {
                assert_eq!(f, h.basic(s));
            }
            bins[f as usize] += 1;
        }
        let e = n as f64 / 20.0;
        let chi: f64 = bins[40..60]
            .iter()
            .map(|&b| (b as f64 - e).powi(2) / e)
            .sum();
        assert!(chi < 43.8, "χ² {chi}");
    }

    /// The classifier marks the channels whose PER exceeds the threshold, and the AFH map
    /// never falls below 20 channels (Core 1.2 N_min).
    #[test]
    fn classification_and_the_20_channel_floor() {
        let mut c = Classifier::new(0.5, SimTime::from_secs(1));
        for k in 0..CHANNELS as u8 {
            for i in 0..10 {
                c.observe(k, k < 22 && i < 8, SimTime::from_millis(10));
            }
        }
        assert!(c.observe(0, false, SimTime::from_secs(1)));
        assert_eq!(c.bad_count(), 22);
        assert!((0..22).all(|k| c.is_bad(k)));
        assert_eq!(c.afh_map().iter().filter(|&&u| u).count(), 57);
        // 70 bad channels: the map keeps the 9 good and the 11 least bad.
        let mut c = Classifier::new(0.5, SimTime::from_secs(1));
        for k in 0..CHANNELS as u8 {
            let lost = if k < 70 { 6 + (k % 4) as u32 } else { 0 };
            for i in 0..10 {
                c.observe(k, i < lost, SimTime::ZERO);
            }
        }
        c.observe(0, false, SimTime::from_secs(3));
        assert_eq!(c.bad_count(), 70);
        let map = c.afh_map();
        assert_eq!(map.iter().filter(|&&u| u).count(), AFH_MIN_CHANNELS);
        // The least bad: PER 0.6 at k ≡ 0 (mod 4), lowest first.
        assert!(map[0] && map[4] && map[40] && !map[1]);
    }
}
