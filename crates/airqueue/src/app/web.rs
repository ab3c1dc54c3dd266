//! Web-like browsing, as seed 002 (ADWISER, §II) generates it: "Every page downloaded has a
//! main file plus a random number of auxiliary files; this random number takes values
//! between 1 and 6. After each page download, there is an inactive think time. The files in
//! the Web page are sampled from a Pareto distribution (tail exponent 1.1) with an average
//! file size of 20 kB ... downloaded in parallel over separate TCP connections."
//!
//! [`WebSession`] is the browser's page logic only: it decides object sizes, what to fetch
//! when, and when a page is done; the simulator runs one TCP connection per object (the
//! flow's connection pool, see `sim::tcp_flow`). Where the paper is silent:
//!
//! * the main object is fetched first, the auxiliary objects once it has arrived (a browser
//!   learns of them from the main file), at most `parallel` at a time, each over a new
//!   connection (HTTP/1.0: new handshake, new slow start);
//! * the auxiliary count is uniform on [aux_min, aux_max] (mean 3.5 for 1–6, so 4.5 objects
//!   per page; the paper's "on an average, every page has four files" is close to this);
//! * think times are exponential with a configurable mean (the paper gives no value);
//! * sizes are whole bytes, at least one.

use crate::app::{PeriodDistribution, WebSpec};
use crate::engine::{SimRng, SimTime};
use rand::Rng;
use rand_distr::{Distribution, Pareto};

/// The page logic of one browsing client.
pub struct WebSession {
    sizes: Pareto<f64>,
    aux_min: u32,
    aux_max: u32,
    think_mean: SimTime,
    think_distribution: PeriodDistribution,
    parallel: u32,
    rng: SimRng,
    page: Option<Page>,
}

/// The page being fetched.
struct Page {
    started: SimTime,
    main_done: bool,
    /// Auxiliary objects not yet requested (sizes in bytes).
    queued: Vec<u64>,
    /// Objects being fetched.
    active: u32,
}

impl WebSession {
    /// A session with `spec`'s parameters (validated: shape > 1, mean > 0,
    /// aux_min ≤ aux_max, parallel ≥ 1).
    pub fn new(spec: &WebSpec, rng: SimRng) -> WebSession {
        let scale = spec.mean_size.0 as f64 * (spec.shape - 1.0) / spec.shape;
        WebSession {
            sizes: Pareto::new(scale, spec.shape).expect("validated Pareto parameters"),
            aux_min: spec.aux_min,
            aux_max: spec.aux_max,
            think_mean: spec.think_time.time(),
            think_distribution: spec.think_distribution,
            parallel: spec.parallel,
            rng,
            page: None,
        }
    }

    /// One object size in bytes.
    pub fn object_size(&mut self) -> u64 {
        (self.sizes.sample(&mut self.rng).round() as u64).max(1)
    }

    /// Starts a page at `now` and returns the size of its main object, which the caller
    /// fetches over a new connection.
    pub fn start_page(&mut self, now: SimTime) -> u64 {
        let main = self.object_size();
        let n = self.rng.random_range(self.aux_min..=self.aux_max);
        let mut queued = self.page.take().map(|p| p.queued).unwrap_or_default();
        queued.clear();
        for _ in 0..n {
            let size = self.object_size();
            queued.push(size);
        }
        self.page = Some(Page {
            started: now,
            main_done: false,
            queued,
            active: 1,
        });
        main
    }

    /// An object of the current page has arrived completely at `now`. Appends to `fetch`
    /// the sizes of the objects to request now (each over a new connection) and returns the
    /// page's response time if this was its last object.
    pub fn object_done(&mut self, now: SimTime, fetch: &mut Vec<u64>) -> Option<SimTime> {
        let page = self.page.as_mut()?;
        page.active -= 1;
        page.main_done = true;
        while page.active < self.parallel {
            let Some(size) = page.queued.pop() else { break };
            fetch.push(size);
            page.active += 1;
        }
        // The page is complete when nothing is being fetched (and so nothing is queued).
        (page.active == 0).then(|| now - page.started)
    }

    /// Whether a page is being fetched.
    pub fn page_in_progress(&self) -> bool {
        self.page.as_ref().is_some_and(|p| p.active > 0)
    }

    /// Whether the current page's main object has arrived.
    pub fn main_done(&self) -> bool {
        self.page.as_ref().is_some_and(|p| p.main_done)
    }

    /// The think time after a page.
    pub fn think_time(&mut self) -> SimTime {
        match self.think_distribution {
            PeriodDistribution::Constant => self.think_mean,
            PeriodDistribution::Exponential => {
                if self.think_mean == SimTime::ZERO {
                    return SimTime::ZERO;
                }
                let u: f64 = self.rng.random::<f64>();
                SimTime::from_secs_f64(-(1.0 - u).ln() * self.think_mean.as_secs_f64())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;

    fn session(spec: WebSpec) -> WebSession {
        WebSession::new(&spec, stream(7, "web"))
    }

    #[test]
    fn object_sizes_follow_the_pareto_of_seed_002() {
        // Reference: Pareto with α = 1.1 and mean 20 kB has scale x_m = 20 000 · 0.1 / 1.1
        // = 1 818.2 B, median x_m · 2^(1/α) = 3 414 B and P(X > 20 kB) = (x_m / 20 000)^α
        // = 0.0715. (The sample mean converges too slowly to test: the variance is
        // infinite.) 200 000 draws: the median within 1 %, the tail fraction within 3 % —
        // both more than 5 binomial standard errors.
        let mut w = session(WebSpec::default());
        let n = 200_000;
        let mut v: Vec<u64> = (0..n).map(|_| w.object_size()).collect();
        v.sort_unstable();
        let xm = 20_000.0 * 0.1 / 1.1;
        let median = xm * 2f64.powf(1.0 / 1.1);
        assert!(
            (v[n / 2] as f64 / median - 1.0).abs() < 0.01,
            "{}",
            v[n / 2]
        );
        let tail = v.iter().filter(|&&x| x > 20_000).count() as f64 / n as f64;
        let want = (xm / 20_000.0f64).powf(1.1);
        assert!((tail / want - 1.0).abs() < 0.03, "{tail} vs {want}");
        assert!(v[0] as f64 >= xm.floor());
    }

    #[test]
    fn auxiliary_objects_follow_the_main_one_at_most_parallel_at_a_time() {
        let spec = WebSpec {
            aux_min: 5,
            aux_max: 5,
            parallel: 2,
            ..WebSpec::default()
        };
        let mut w = session(spec);
        let t = SimTime::from_secs(1);
        w.start_page(t);
        assert!(w.page_in_progress() && !w.main_done());
        let mut fetch = Vec::new();
        // Main object done: two auxiliaries start.
        assert_eq!(w.object_done(t + SimTime::from_secs(1), &mut fetch), None);
        assert_eq!(fetch.len(), 2);
        // Each completion starts one more until the five are out.
        for expect in [3, 4, 5, 5] {
            assert_eq!(w.object_done(t + SimTime::from_secs(2), &mut fetch), None);
            assert_eq!(fetch.len(), expect);
        }
        // The last one ends the page: response time from the page's request.
        let r = w.object_done(t + SimTime::from_secs(3), &mut fetch);
        assert_eq!(r, Some(SimTime::from_secs(3)));
        assert!(!w.page_in_progress());
    }

    #[test]
    fn auxiliary_count_is_uniform_between_the_bounds() {
        // Reference: uniform on {1..6}: each value with probability 1/6; 60 000 pages,
        // each count within 5 % of 10 000 (> 5 standard errors).
        let mut w = session(WebSpec {
            parallel: 100,
            ..WebSpec::default()
        });
        let mut counts = [0u32; 7];
        let mut fetch = Vec::new();
        for _ in 0..60_000 {
            w.start_page(SimTime::ZERO);
            fetch.clear();
            w.object_done(SimTime::ZERO, &mut fetch);
            counts[fetch.len()] += 1;
            for _ in 0..fetch.len() {
                w.object_done(SimTime::ZERO, &mut Vec::new());
            }
        }
        assert_eq!(counts[0], 0);
        for c in &counts[1..] {
            assert!((*c as f64 / 10_000.0 - 1.0).abs() < 0.05, "{counts:?}");
        }
    }

    #[test]
    fn think_times_have_the_configured_mean() {
        // Reference: the sample mean of 100 000 exponential draws, relative sd 0.3 %.
        let mut w = session(WebSpec::default());
        let n = 100_000;
        let total: f64 = (0..n).map(|_| w.think_time().as_secs_f64()).sum();
        assert!((total / n as f64 / 5.0 - 1.0).abs() < 0.015);
        let mut c = session(WebSpec {
            think_distribution: PeriodDistribution::Constant,
            ..WebSpec::default()
        });
        assert_eq!(c.think_time(), SimTime::from_secs(5));
    }
}
