//! netem's per-packet decisions beyond plain loss and uniform jitter, as Linux's
//! `sch_netem.c` takes them: correlated draws (`get_crandom`), the delay distribution
//! tables iproute2 ships (`netem/normal.c`, `pareto.c`, `paretonormal.c`) looked up by
//! `tabledist`, reordering with a gap, duplication and corruption.
//!
//! One random stream per link direction (`link:<link>:<a>-><b>:netem`) feeds every
//! decision made here, in the kernel's order for one packet: duplicate, loss (when
//! correlated), then — for the copy netem re-enqueues — the copy's own decisions, then
//! corruption, then reorder-or-delay. netem draws all of them from one generator too
//! (`q->prng`); correlation therefore runs over successive packets of the direction,
//! whatever their flow, as on a real netem qdisc. The options that existed before these
//! (Bernoulli loss, uniform jitter) keep their per-flow streams when uncorrelated, so
//! scenarios without the new options draw exactly what they drew before.
//!
//! The folder holds the impairment's spec (`spec.rs`), netem's consistency rules on it
//! (`checks.rs`), the per-direction model (`impairment.rs`) and these decisions; a link
//! builds its impairments (`link/p2p/build.rs`).

pub mod checks;
pub mod impairment;
pub mod spec;

pub use spec::{ImpairmentSpec, NetemDistribution, SlotSpec};

use crate::engine::{stream, SimRng, SimTime};
use rand::Rng;
use std::sync::OnceLock;

/// `NETEM_DIST_SCALE`: table entries are the inverse CDF times this.
const DIST_SCALE: i64 = 8192;
/// iproute2's generators work on 16 384 points and keep every fourth: 4 096 entries.
const TABLESIZE: usize = 16384;

/// A probability as netem stores it: `rint(p × UINT32_MAX)` (iproute2 `get_percent`),
/// compared as `value >= draw`.
fn scaled(p: f64) -> u32 {
    (p * f64::from(u32::MAX)).round_ties_even() as u32
}

/// Correlated uniform 32-bit draws, the kernel's `get_crandom`: each draw is a weighted
/// mean of a fresh one and the previous answer, weight ρ = the correlation. (As netem's,
/// the mean stays ½ but the spread shrinks as ρ grows; a correlated 1 % loss is then not
/// 1 %: that is how netem behaves, and tc-netem(8) warns about it.)
#[derive(Clone, Debug)]
pub struct Crandom {
    rho: u32,
    last: u32,
}

impl Crandom {
    pub fn new(correlation: f64) -> Self {
        Crandom {
            rho: scaled(correlation),
            last: 0,
        }
    }

    pub fn next(&mut self, rng: &mut SimRng) -> u32 {
        let value = u64::from(rng.random::<u32>());
        if self.rho == 0 {
            return value as u32;
        }
        let rho = u64::from(self.rho) + 1;
        let answer = (value * ((1u64 << 32) - rho) + u64::from(self.last) * rho) >> 32;
        self.last = answer as u32;
        self.last
    }
}

fn normal_cdf(x: f64) -> f64 {
    0.5 + 0.5 * libm::erf(x / std::f64::consts::SQRT_2)
}

/// iproute2 `normal.c`'s inverse-CDF points (before keeping every fourth).
fn normal_points() -> Vec<f64> {
    let mut table = vec![0.0; TABLESIZE + 1];
    let mut x = -10.0f64;
    while x < 10.05 {
        let i = (TABLESIZE as f64 * normal_cdf(x)).round_ties_even() as usize;
        table[i] = x;
        x += 0.00005;
    }
    table
}

fn clamp_i16(v: i64) -> i16 {
    v.clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16
}

/// iproute2 `pareto.c`'s value for point `i` of 65 536 (shape a = 3, shifted by 1.5 and
/// scaled by 4/3 so that the table has mean ≈ 0 and unit scale).
fn pareto_value(i: i64) -> i64 {
    let d = i as f64 / 65536.0;
    let d = (1.0 / d.powf(1.0 / 3.0) - 1.5) * (4.0 / 3.0) * DIST_SCALE as f64;
    d.min(32767.0).round_ties_even() as i64
}

fn build_table(dist: NetemDistribution) -> Vec<i16> {
    match dist {
        NetemDistribution::Uniform => Vec::new(),
        NetemDistribution::Normal => {
            let t = normal_points();
            (0..TABLESIZE)
                .step_by(4)
                .map(|i| clamp_i16((t[i] * DIST_SCALE as f64).round_ties_even() as i64))
                .collect()
        }
        NetemDistribution::Pareto => (1..=65536 / 16)
            .rev()
            .map(|k| clamp_i16(pareto_value(k * 16)))
            .collect(),
        NetemDistribution::Paretonormal => {
            let t = normal_points();
            (0..TABLESIZE)
                .step_by(4)
                .map(|i| {
                    let norm = (t[i] * DIST_SCALE as f64).round_ties_even() as i64;
                    let par = pareto_value(65536 - 4 * i as i64);
                    // C integer division truncates towards zero, as Rust's does.
                    clamp_i16((norm + 3 * par) / 4)
                })
                .collect()
        }
    }
}

/// The table of `dist` (4 096 entries), built once per process.
pub fn table(dist: NetemDistribution) -> &'static [i16] {
    static TABLES: [OnceLock<Vec<i16>>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    let k = dist as usize;
    TABLES[k].get_or_init(|| build_table(dist))
}

/// The kernel's `tabledist(mu, sigma, …)`, in ns: uniform without a table, else the table
/// entry scaled by sigma with netem's rounding.
fn tabledist(mu: i64, sigma: i64, rnd: u32, dist: Option<&[i16]>) -> i64 {
    if sigma == 0 {
        return mu;
    }
    let Some(t) = dist else {
        return (i64::from(rnd) % (2 * sigma)) + mu - sigma;
    };
    let t = i64::from(t[rnd as usize % t.len()]);
    let mut x = (sigma % DIST_SCALE) * t;
    if x >= 0 {
        x += DIST_SCALE / 2;
    } else {
        x -= DIST_SCALE / 2;
    }
    x / DIST_SCALE + (sigma / DIST_SCALE) * t + mu
}

/// What netem decided for one packet after its loss draw: whether it goes at once
/// (reordered) and its delay.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Delay {
    pub delay: SimTime,
    pub reordered: bool,
}

/// The state of the netem options of one link direction.
pub struct Netem {
    rng: SimRng,
    loss: u32,
    loss_cor: Crandom,
    /// Delay draws come from here (correlated or from a table) rather than from the
    /// per-flow jitter streams.
    own_delay: bool,
    delay_cor: Crandom,
    dist: Option<&'static [i16]>,
    reorder: u32,
    reorder_cor: Crandom,
    gap: u32,
    counter: u32,
    duplicate: u32,
    dup_cor: Crandom,
    corrupt: u32,
    corrupt_cor: Crandom,
    rate: Option<NetemRate>,
    slot: Option<Slot>,
}

/// netem's `slot` (`sch_netem.c`: `get_slot`, `get_slot_next`, the slot accounting in
/// `netem_dequeue`): delayed packets leave only once the current slot has opened, at
/// most `max_packets` packets and `max_bytes` bytes per slot.
#[derive(Clone, Debug)]
struct Slot {
    /// `slot MIN MAX`, in ns (uniform gap).
    min: i64,
    max: i64,
    /// `slot distribution D DELAY JITTER`: (delay, jitter, table; `None` = uniform).
    dist: Option<(i64, i64, Option<&'static [i16]>)>,
    max_packets: i64,
    max_bytes: i64,
    /// `slot_next`: when the current slot opens.
    next: SimTime,
    packets_left: i64,
    bytes_left: i64,
}

/// What netem's dequeue finds at the head of its time-ordered queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SlotStep {
    /// The head may leave now.
    Go,
    /// Nothing may leave before this time (netem's watchdog).
    WaitUntil(SimTime),
}

/// netem's `rate` (with `packetoverhead`, `cellsize`, `celloverhead`): packets leave one
/// after another at the rate, after their delay.
#[derive(Clone, Debug)]
struct NetemRate {
    bps: u64,
    packet_overhead: i64,
    cell_size: u64,
    cell_overhead: i64,
    /// When the last packet leaves (`time_to_send` of the queue's tail).
    last: SimTime,
}

impl NetemRate {
    /// `packet_time_ns`: (size + overhead), in whole cells if asked, at the rate, rounded
    /// down to the ns as the kernel's `div64_u64`.
    fn packet_time(&self, size: u32) -> SimTime {
        let mut len = (i64::from(size) + self.packet_overhead).max(0);
        if self.cell_size > 0 {
            let cells = (len as u64).div_ceil(self.cell_size) as i64;
            len = cells * (self.cell_size as i64 + self.cell_overhead);
        }
        let bits = len.max(0) as u128 * 8 * 1_000_000_000;
        SimTime((bits / u128::from(self.bps)) as u64)
    }
}

impl Slot {
    /// `get_slot`: zero allowances mean unlimited (`INT_MAX`); the first slot opens at
    /// once (`slot_next = now`).
    fn new(c: &SlotSpec, now: SimTime) -> Slot {
        let ns = |d: Option<crate::conf::Duration>| d.map_or(0, |d| d.time().0 as i64);
        let min = ns(c.min);
        let dist = c.distribution.map(|d| {
            let table = (d != NetemDistribution::Uniform).then(|| table(d));
            (ns(c.delay), ns(c.jitter).min(i64::from(i32::MAX)), table)
        });
        let unlimited =
            |v: Option<u32>| v.filter(|&v| v > 0).map_or(i64::from(i32::MAX), i64::from);
        Slot {
            min,
            max: c.max.map_or(min, |d| d.time().0 as i64),
            dist,
            max_packets: unlimited(c.packets),
            max_bytes: unlimited(c.bytes),
            next: now,
            packets_left: unlimited(c.packets),
            bytes_left: unlimited(c.bytes),
        }
    }
}

impl Netem {
    /// The options of `spec` on direction `direction` from `now` (a slot opens at once),
    /// or `None` when none is on.
    pub fn new(spec: &ImpairmentSpec, seed: u64, direction: &str, now: SimTime) -> Option<Netem> {
        if !spec.uses_netem_stream() {
            return None;
        }
        let dist =
            (spec.distribution != NetemDistribution::Uniform).then(|| table(spec.distribution));
        Some(Netem {
            rng: stream(seed, &format!("link:{direction}:netem")),
            loss: if spec.loss_correlation.0 > 0.0 {
                scaled(spec.loss.0)
            } else {
                0
            },
            loss_cor: Crandom::new(spec.loss_correlation.0),
            own_delay: spec.delay_correlation.0 > 0.0 || dist.is_some(),
            delay_cor: Crandom::new(spec.delay_correlation.0),
            dist,
            reorder: scaled(spec.reorder.0),
            reorder_cor: Crandom::new(spec.reorder_correlation.0),
            // iproute2: a reorder probability without a gap means gap 1.
            gap: if spec.reorder.0 > 0.0 {
                spec.gap.unwrap_or(1).max(1)
            } else {
                0
            },
            counter: 0,
            duplicate: scaled(spec.duplicate.0),
            dup_cor: Crandom::new(spec.duplicate_correlation.0),
            corrupt: scaled(spec.corrupt.0),
            corrupt_cor: Crandom::new(spec.corrupt_correlation.0),
            rate: spec.rate.map(|r| NetemRate {
                bps: r.bps(),
                packet_overhead: i64::from(spec.packet_overhead),
                cell_size: u64::from(spec.cell_size),
                cell_overhead: i64::from(spec.cell_overhead),
                last: SimTime::ZERO,
            }),
            slot: spec.slot.as_ref().map(|c| Slot::new(c, now)),
        })
    }

    /// Whether delayed packets wait for slots (`slot`).
    pub fn slotted(&self) -> bool {
        self.slot.is_some()
    }

    /// `get_slot_next`: the next slot opens a gap after `now` — uniform on [min, max)
    /// as `min + (rnd × (max − min) >> 32)`, or `tabledist(delay, jitter)` — and gets a
    /// fresh packet and byte allowance.
    fn next_slot(&mut self, now: SimTime) {
        let Some(s) = &mut self.slot else { return };
        let rnd = self.rng.random::<u32>();
        let gap = match s.dist {
            None => s.min + ((i64::from(rnd) * (s.max - s.min)) >> 32),
            Some((mu, sigma, table)) => tabledist(mu, sigma, rnd, table),
        };
        s.next = SimTime(now.0.saturating_add_signed(gap.max(0)));
        s.packets_left = s.max_packets;
        s.bytes_left = s.max_bytes;
    }

    /// `netem_dequeue`'s look at the head (due at `due`) at `now`: when the slot opened
    /// before the head was due, a new slot is drawn from now; the head goes once both
    /// its time and the slot have come.
    pub fn slot_step(&mut self, now: SimTime, due: SimTime) -> SlotStep {
        let Some(s) = &self.slot else {
            return if due <= now {
                SlotStep::Go
            } else {
                SlotStep::WaitUntil(due)
            };
        };
        if s.next < due {
            self.next_slot(now);
        }
        let next = self.slot.as_ref().map_or(now, |s| s.next);
        if due <= now && next <= now {
            SlotStep::Go
        } else {
            SlotStep::WaitUntil(due.max(next))
        }
    }

    /// A `size`-byte packet left in the current slot: it uses the slot's allowance, and
    /// a used-up slot draws the next from `now`.
    pub fn slot_sent(&mut self, now: SimTime, size: u32) {
        let Some(s) = &mut self.slot else { return };
        s.packets_left -= 1;
        s.bytes_left -= i64::from(size);
        if s.packets_left <= 0 || s.bytes_left <= 0 {
            self.next_slot(now);
        }
    }

    /// Whether this packet gets a copy (`duplicate`).
    pub fn duplicated(&mut self) -> bool {
        self.duplicate != 0 && self.duplicate >= self.dup_cor.next(&mut self.rng)
    }

    /// Whether loss is decided here (correlated) instead of on the per-flow streams.
    pub fn decides_loss(&self) -> bool {
        self.loss != 0
    }

    /// The correlated loss draw (`loss random P CORR`).
    pub fn lost(&mut self) -> bool {
        self.loss != 0 && self.loss >= self.loss_cor.next(&mut self.rng)
    }

    /// Whether this packet is corrupted (`corrupt`).
    pub fn corrupted(&mut self) -> bool {
        self.corrupt != 0 && self.corrupt >= self.corrupt_cor.next(&mut self.rng)
    }

    /// Whether packets may go at once (and so overtake delayed ones).
    pub fn reorders(&self) -> bool {
        self.reorder != 0
    }

    /// netem's reorder-or-delay step for a `size`-byte packet at `now`: inside the gap, or
    /// when the reorder draw fails, the packet is delayed (`tabledist` here when the delay
    /// is correlated or from a table, else `per_flow_delay()`), then paced by `rate` if
    /// set, and the counter advances; otherwise it goes at once and the counter restarts.
    pub fn delay(
        &mut self,
        now: SimTime,
        size: u32,
        latency: SimTime,
        jitter: SimTime,
        per_flow_delay: impl FnOnce() -> SimTime,
    ) -> Delay {
        let delayed = self.gap == 0
            || self.counter < self.gap - 1
            || self.reorder < self.reorder_cor.next(&mut self.rng);
        if !delayed {
            self.counter = 0;
            return Delay {
                delay: SimTime::ZERO,
                reordered: true,
            };
        }
        self.counter = self.counter.saturating_add(1);
        let delay = if self.own_delay {
            let rnd = self.delay_cor.next(&mut self.rng);
            let d = tabledist(latency.0 as i64, jitter.0 as i64, rnd, self.dist);
            SimTime(d.max(0) as u64)
        } else {
            per_flow_delay()
        };
        let delay = match &mut self.rate {
            None => delay,
            // `netem_enqueue` with a rate: the packet leaves after the one before it
            // (the queue's last `time_to_send`) or after its delay, whichever is later,
            // plus its own packet time.
            Some(r) => {
                let leave = (now + delay).max(r.last) + r.packet_time(size);
                r.last = leave;
                leave - now
            }
        };
        Delay {
            delay,
            reordered: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: iproute2's shipped `normal.dist` starts -32768 … and has 4 096 entries;
    /// its middle is ≈ 0 and the table is antisymmetric (inverse CDF of N(0, 1) × 8192).
    #[test]
    fn the_normal_table_is_iproute2s() {
        let t = table(NetemDistribution::Normal);
        assert_eq!(t.len(), 4096);
        assert_eq!(t[0], i16::MIN); // -10 × 8192, clamped
        assert!(t[2048].abs() <= 2, "{}", t[2048]);
        // The 84.1 % point of N(0,1) is +1σ: entry 0.8413 × 4096 ≈ 3446 → 8192.
        assert!((i32::from(t[3446]) - 8192).abs() < 40, "{}", t[3446]);
        for w in t.windows(2) {
            assert!(w[0] <= w[1], "an inverse CDF is non-decreasing");
        }
    }

    /// Reference: `pareto.c`'s first printed value (i = 65536: (1 − 1.5) × 4/3 × 8192 =
    /// −5461) and its last (i = 16: clamped at 32767).
    #[test]
    fn the_pareto_table_is_iproute2s() {
        let t = table(NetemDistribution::Pareto);
        assert_eq!(t.len(), 4096);
        assert_eq!(t[0], -5461);
        assert_eq!(t[4095], 32767);
    }

    /// Reference: the definition (`paretonormal.c`): each entry is (normal + 3 × pareto)/4.
    #[test]
    fn paretonormal_mixes_a_quarter_normal_and_three_quarters_pareto() {
        let t = table(NetemDistribution::Paretonormal);
        assert_eq!(t.len(), 4096);
        let n = normal_points();
        let norm = (n[4 * 100] * 8192.0).round_ties_even() as i64;
        let par = pareto_value(65536 - 4 * 400);
        assert_eq!(i64::from(t[100]), (norm + 3 * par) / 4);
    }

    /// Reference: `get_crandom` with ρ = 0 is the plain generator; with ρ > 0 successive
    /// answers are positively correlated with lag-1 coefficient ≈ ρ (an AR(1) mean).
    #[test]
    fn correlated_draws_have_the_asked_lag_one_correlation() {
        let mut rng = stream(3, "test:netem:crandom");
        for rho in [0.0, 0.25, 0.75] {
            let mut c = Crandom::new(rho);
            let xs: Vec<f64> = (0..200_000).map(|_| f64::from(c.next(&mut rng))).collect();
            let mean = xs.iter().sum::<f64>() / xs.len() as f64;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>();
            let cov: f64 = xs.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum();
            let r = cov / var;
            assert!((r - rho).abs() < 0.01, "rho {rho}: lag-1 correlation {r}");
            assert!((mean / f64::from(u32::MAX) - 0.5).abs() < 0.01);
        }
    }

    /// Reference: `tabledist` on the normal table gives mean ≈ mu and standard deviation
    /// ≈ sigma (the table is N(0, 1) × 8192).
    #[test]
    fn tabledist_on_the_normal_table_has_mean_mu_and_sd_sigma() {
        let mut rng = stream(4, "test:netem:tabledist");
        let t = table(NetemDistribution::Normal);
        let (mu, sigma) = (10_000_000i64, 2_000_000i64);
        let n = 200_000;
        let xs: Vec<f64> = (0..n)
            .map(|_| tabledist(mu, sigma, rng.random::<u32>(), Some(t)) as f64)
            .collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!(
            (mean - mu as f64).abs() / (mu as f64) < 0.005,
            "mean {mean}"
        );
        assert!((sd - sigma as f64).abs() / (sigma as f64) < 0.02, "sd {sd}");
    }

    /// Reference: tc-netem(8), `reorder 25% gap 5`: the 5th (10th, …) packet may go at
    /// once; with P = 100 % exactly every 5th does.
    #[test]
    fn reorder_with_gap_sends_every_nth_packet_at_once() {
        let spec = ImpairmentSpec {
            delay: crate::conf::Duration::parse("10ms").unwrap(),
            reorder: crate::conf::Probability(1.0),
            gap: Some(5),
            ..Default::default()
        };
        let mut n = Netem::new(&spec, 1, "l:a->b", SimTime::ZERO).unwrap();
        let pattern: Vec<bool> = (0..15)
            .map(|_| {
                n.delay(
                    SimTime::ZERO,
                    100,
                    SimTime(10_000_000),
                    SimTime::ZERO,
                    || SimTime(10_000_000),
                )
                .reordered
            })
            .collect();
        let expect: Vec<bool> = (1..=15).map(|k| k % 5 == 0).collect();
        assert_eq!(pattern, expect);
    }
}
