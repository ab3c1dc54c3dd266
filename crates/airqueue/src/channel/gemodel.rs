//! netem's discrete Gilbert-Elliott loss model, `gemodel p [r [1-h [1-k]]]` (Linux
//! `net/sched/sch_netem.c`, `loss_gilb_ell`; tc-netem(8)): a two-state chain advanced once
//! per packet.
//!
//! Per packet, as the kernel does: from the current state, first draw the transition
//! (good → bad with probability `p`, bad → good with probability `r`), then draw the loss
//! with the loss probability *of the state the packet started in* (`1 − k` in good,
//! `1 − h` in bad). The chain starts in the good state, as netem's does.
//!
//! Closed forms (a two-state chain with transition matrix [[1−p, p], [r, 1−r]]):
//! stationary `π_B = p/(p + r)`, loss rate `π_G(1 − k) + π_B(1 − h)`; with `1 − h = 1` and
//! `1 − k = 0` (the simple Gilbert model) losses are exactly the bad-state packets and a
//! loss burst has geometric length with mean `1/r`.
//!
//! Also usable as a wired link's impairment (`impairment = { gemodel = { … } }`), one
//! chain per link direction with its own stream (`link:<link>:<a>-><b>:gemodel`).

use crate::engine::SimRng;
use rand::Rng;

/// netem `gemodel` parameters (probabilities in [0, 1]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeModelParams {
    /// p: probability of moving from good to bad, per packet.
    pub p: f64,
    /// r: probability of moving from bad to good, per packet.
    pub r: f64,
    /// 1 − h: loss probability in the bad state.
    pub loss_bad: f64,
    /// 1 − k: loss probability in the good state.
    pub loss_good: f64,
}

impl GeModelParams {
    /// Stationary probability of the bad state, `p/(p + r)` (0 when both are 0: the chain
    /// stays in its good start state).
    pub fn stationary_bad(&self) -> f64 {
        if self.p + self.r <= 0.0 {
            0.0
        } else {
            self.p / (self.p + self.r)
        }
    }

    /// Long-run loss rate `π_G(1 − k) + π_B(1 − h)`.
    pub fn loss_rate(&self) -> f64 {
        let pb = self.stationary_bad();
        (1.0 - pb) * self.loss_good + pb * self.loss_bad
    }

    /// Mean sojourn in the bad state, in packets: `1/r` (the mean loss burst of the simple
    /// Gilbert model, `1 − h = 1`, `1 − k = 0`).
    pub fn mean_bad_run(&self) -> f64 {
        1.0 / self.r
    }
}

/// One netem `gemodel` chain.
pub struct GeModel {
    params: GeModelParams,
    bad: bool,
    rng: SimRng,
}

impl GeModel {
    pub fn new(params: GeModelParams, rng: SimRng) -> Self {
        GeModel {
            params,
            bad: false,
            rng,
        }
    }

    pub fn params(&self) -> GeModelParams {
        self.params
    }

    /// New parameters (netem `change`): as `get_loss_clg` in `sch_netem.c`, the chain
    /// restarts in the good state; its random stream continues.
    pub fn set_params(&mut self, params: GeModelParams) {
        self.params = params;
        self.bad = false;
    }

    /// Whether the chain is in the bad state (before the next packet).
    pub fn is_bad(&self) -> bool {
        self.bad
    }

    /// Advances the chain by one packet and says whether that packet is lost (two draws,
    /// as `loss_gilb_ell`).
    #[inline]
    pub fn lost(&mut self) -> bool {
        let was_bad = self.bad;
        let u1: f64 = self.rng.random();
        let u2: f64 = self.rng.random();
        if was_bad {
            if u1 < self.params.r {
                self.bad = false;
            }
            u2 < self.params.loss_bad
        } else {
            if u1 < self.params.p {
                self.bad = true;
            }
            u2 < self.params.loss_good
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;

    /// Bound on a sample mean of a two-state chain's indicator: the binomial variance
    /// π(1 − π)/n inflated by the chain's autocorrelation, (1 + λ)/(1 − λ) with
    /// λ = 1 − p − r its second eigenvalue; 3.29 standard deviations (99.9 %).
    fn chain_bound(pi: f64, lambda: f64, n: f64) -> f64 {
        3.29 * (pi * (1.0 - pi) / n * (1.0 + lambda) / (1.0 - lambda)).sqrt()
    }

    /// netem `gemodel 1% 10%` (simple Gilbert: 1 − h = 1, 1 − k = 0): the loss rate equals
    /// π_B = p/(p + r) and the mean burst 1/r, within 99.9 % bounds, over 2 M packets.
    #[test]
    fn simple_gilbert_loss_rate_and_mean_burst_equal_the_stationary_values() {
        let prm = GeModelParams {
            p: 0.01,
            r: 0.1,
            loss_bad: 1.0,
            loss_good: 0.0,
        };
        let mut m = GeModel::new(prm, stream(9, "test:gemodel"));
        let n = 2_000_000usize;
        let (mut losses, mut bursts, mut run) = (0u64, Vec::new(), 0u64);
        for _ in 0..n {
            if m.lost() {
                losses += 1;
                run += 1;
            } else if run > 0 {
                bursts.push(run);
                run = 0;
            }
        }
        let rate = losses as f64 / n as f64;
        let pi = prm.stationary_bad();
        let lambda = 1.0 - prm.p - prm.r;
        eprintln!(
            "simple gilbert: loss {rate:.5} vs {pi:.5}, bound {:.5}",
            chain_bound(pi, lambda, n as f64)
        );
        assert!(
            (rate - pi).abs() <= chain_bound(pi, lambda, n as f64),
            "{rate} vs {pi}"
        );
        // Bursts are independent geometric lengths: mean 1/r, variance (1 − r)/r².
        let k = bursts.len() as f64;
        let mean = bursts.iter().sum::<u64>() as f64 / k;
        let sd = ((1.0 - prm.r) / (prm.r * prm.r) / k).sqrt();
        eprintln!(
            "simple gilbert: mean burst {mean:.4} vs {}, bound {:.4}",
            1.0 / prm.r,
            3.29 * sd
        );
        assert!(
            (mean - prm.mean_bad_run()).abs() <= 3.29 * sd,
            "{mean} vs {}",
            1.0 / prm.r
        );
    }

    /// The full four-parameter model `gemodel 2% 20% 80% 0.5%`: the loss rate equals
    /// π_G(1 − k) + π_B(1 − h) within the 99.9 % bound (state part inflated by the chain's
    /// autocorrelation, plus the independent per-state Bernoulli part).
    #[test]
    fn four_parameter_loss_rate_equals_the_stationary_value() {
        let prm = GeModelParams {
            p: 0.02,
            r: 0.2,
            loss_bad: 0.8,
            loss_good: 0.005,
        };
        let mut m = GeModel::new(prm, stream(4, "test:gemodel4"));
        let n = 2_000_000usize;
        let losses = (0..n).filter(|_| m.lost()).count() as f64;
        let rate = losses / n as f64;
        let pi = prm.stationary_bad();
        let lambda = 1.0 - prm.p - prm.r;
        let spread = prm.loss_bad - prm.loss_good;
        let state_sd = chain_bound(pi, lambda, n as f64) / 3.29 * spread;
        let bern_sd = (prm.loss_rate() * (1.0 - prm.loss_rate()) / n as f64).sqrt();
        let bound = 3.29 * (state_sd * state_sd + bern_sd * bern_sd).sqrt();
        eprintln!(
            "gemodel 4: loss {rate:.5} vs {:.5}, bound {bound:.5}",
            prm.loss_rate()
        );
        assert!(
            (rate - prm.loss_rate()).abs() <= bound,
            "{rate} vs {}",
            prm.loss_rate()
        );
    }
}
