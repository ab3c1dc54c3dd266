//! Minstrel rate control for one link direction, as Linux's mac80211 implements it for
//! legacy (non-HT) rates (`net/mac80211/rc80211_minstrel.c`, Derek Smithies and Felix
//! Fietkau; the HT version `rc80211_minstrel_ht.c` keeps the same statistics):
//!
//! - Per rate, the attempts and successes since the last update. Every 100 ms
//!   (`update_interval`), at the next frame, each rate with attempts gets
//!   `p = successes / attempts` folded into its EWMA success probability with weight
//!   75 % on the old value (`EWMA_LEVEL`); the first sample initialises it. Its
//!   throughput is `p / t`, t the rate's air time for a 1500-B frame exchange (DATA SIFS
//!   ACK plus DIFS and the mean back-off: the "perfect" transmission time), and 0 below
//!   p = 10 %.
//! - The retry chain of a frame (the multi-rate retry of the hardware): the best and the
//!   second-best throughput rate, the rate of highest probability (the highest
//!   throughput among those above 95 %, else the most probable), and the lowest rate.
//!   Each entry is tried as often as fits a 6 ms segment (`segment_size`), at least 2,
//!   at most 7 (the short retry limit bounds the whole chain anyway).
//! - Look-around: 10 % of frames (`lookaround_rate`) sample a random other rate. A rate
//!   faster than the best is tried first, once; a slower one only after one attempt at
//!   the best rate (the "indirect" sample), so sampling a bad low rate costs little.
//!
//! Simplifications, stated: the sample rate is drawn uniformly among the other rates
//! (Minstrel walks a pre-shuffled table, the same in distribution); rates start with no
//! statistics and the lowest rate as the best (as `minstrel_rate_init`).

use crate::engine::{SimRng, SimTime};
use rand::Rng;

/// Minstrel's update interval, EWMA weight of the old value, look-around share.
const UPDATE: SimTime = SimTime::from_millis(100);
const EWMA_OLD: f64 = 0.75;
const LOOKAROUND: f64 = 0.10;
const SEGMENT: SimTime = SimTime::from_millis(6);

/// One entry of a retry chain: a rate (index) and how many attempts at it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ChainEntry {
    pub rate: usize,
    pub count: u32,
}

pub struct Minstrel {
    /// Air time of a 1500-B frame exchange per rate (rates in ascending order).
    time: Vec<SimTime>,
    att: Vec<u32>,
    succ: Vec<u32>,
    prob: Vec<Option<f64>>,
    tp: Vec<f64>,
    retry: Vec<u32>,
    max_tp: [usize; 2],
    max_prob: usize,
    next_update: SimTime,
    rng: SimRng,
}

impl Minstrel {
    /// Minstrel over rates whose exchanges last `time` (ascending rates).
    pub fn new(time: Vec<SimTime>, rng: SimRng) -> Minstrel {
        let n = time.len();
        let retry = time
            .iter()
            .map(|t| ((SEGMENT.0 / t.0.max(1)) as u32).clamp(2, 7))
            .collect();
        Minstrel {
            att: vec![0; n],
            succ: vec![0; n],
            prob: vec![None; n],
            tp: vec![0.0; n],
            retry,
            max_tp: [0, 0],
            max_prob: 0,
            next_update: UPDATE,
            time,
            rng,
        }
    }

    /// The rate (index) it considers best now: what the driver reports.
    pub fn best(&self) -> usize {
        self.max_tp[0]
    }

    /// EWMA success probability of rate `r`, if sampled.
    pub fn probability(&self, r: usize) -> Option<f64> {
        self.prob[r]
    }

    /// Folds the interval's counts into the statistics if the update is due (returns
    /// whether the best rate changed).
    pub fn update(&mut self, now: SimTime) -> bool {
        if now < self.next_update {
            return false;
        }
        self.next_update = now + UPDATE;
        let before = self.max_tp[0];
        for r in 0..self.time.len() {
            if self.att[r] > 0 {
                let p = self.succ[r] as f64 / self.att[r] as f64;
                self.prob[r] = Some(match self.prob[r] {
                    None => p,
                    Some(old) => EWMA_OLD * old + (1.0 - EWMA_OLD) * p,
                });
                self.att[r] = 0;
                self.succ[r] = 0;
            }
            let p = self.prob[r].unwrap_or(0.0);
            self.tp[r] = if p < 0.1 {
                0.0
            } else {
                p / (self.time[r].0 as f64 * 1e-9)
            };
        }
        let mut order: Vec<usize> = (0..self.time.len()).collect();
        // Highest throughput first; ties to the faster rate.
        order.sort_by(|&a, &b| self.tp[b].total_cmp(&self.tp[a]).then(b.cmp(&a)));
        if self.tp[order[0]] > 0.0 {
            self.max_tp = [order[0], order[1.min(order.len() - 1)]];
        }
        let reliable = (0..self.time.len())
            .filter(|&r| self.prob[r].is_some_and(|p| p > 0.95))
            .max_by(|&a, &b| self.tp[a].total_cmp(&self.tp[b]));
        self.max_prob = reliable.unwrap_or_else(|| {
            (0..self.time.len())
                .max_by(|&a, &b| {
                    self.prob[a]
                        .unwrap_or(0.0)
                        .total_cmp(&self.prob[b].unwrap_or(0.0))
                })
                .unwrap_or(0)
        });
        self.max_tp[0] != before
    }

    /// The retry chain of a new frame (see the module documentation).
    pub fn chain(&mut self) -> [ChainEntry; 4] {
        let e = |rate: usize, retry: &[u32]| ChainEntry {
            rate,
            count: retry[rate],
        };
        let mut c = [
            e(self.max_tp[0], &self.retry),
            e(self.max_tp[1], &self.retry),
            e(self.max_prob, &self.retry),
            e(0, &self.retry),
        ];
        let n = self.time.len();
        if n > 1 && self.rng.random::<f64>() < LOOKAROUND {
            let mut s = self.rng.random_range(0..n - 1);
            if s >= self.max_tp[0] {
                s += 1;
            }
            let sample = ChainEntry { rate: s, count: 1 };
            if self.time[s] < self.time[self.max_tp[0]] {
                c = [sample, c[0], c[2], c[3]];
            } else {
                c = [
                    ChainEntry {
                        rate: self.max_tp[0],
                        count: 1,
                    },
                    sample,
                    c[2],
                    c[3],
                ];
            }
        }
        c
    }

    /// One attempt at rate `r` succeeded or failed.
    pub fn report(&mut self, r: usize, ok: bool) {
        self.att[r] += 1;
        if ok {
            self.succ[r] += 1;
        }
    }
}

/// The chain entry covering attempt `a` (0-based) of a frame: past the chain, its last.
pub fn rate_of_attempt(chain: &[ChainEntry; 4], a: u32) -> usize {
    let mut left = a;
    for e in chain {
        if left < e.count {
            return e.rate;
        }
        left -= e.count;
    }
    chain[3].rate
}
