//! Resource estimates before a run: how much memory the flows and the time series will
//! take, checked against a budget (`--max-memory`, by default half of this machine's RAM)
//! so that a scenario that cannot fit is refused with the number and the key to change
//! instead of being killed by the allocator halfway through.
//!
//! The per-item costs are measured, not derived (see `docs/limits.md`): peak resident memory
//! of `airqueue validate`/`run` over the flow count and over the time-series row count,
//! rounded up, so the estimate errs on the side of refusing.

use crate::conf::ScenarioError;

/// Memory a flow takes, a bound for one that carries traffic: an idle UDP flow takes
/// 0.8 KB (its histograms hold nothing before the first value, `metrics::histogram`), a
/// bulk TCP flow 43 KB at the heap peak of the 1 Gbit dumbbell with 1 000 flows (its delay
/// and RTT histograms); `tests/scale_memory.rs` measures both.
pub const BYTES_PER_FLOW: u64 = 64 * 1024;

/// Memory per time-series row, from the run through the result files (columns in the core,
/// the Arrow/pandas tables, parquet): measured ≈ 42 B with 1.7 M rows.
pub const BYTES_PER_SERIES_ROW: u64 = 64;

/// A run above this fraction of the budget gets a warning.
pub const WARN_FRACTION: f64 = 0.25;

/// Fallback budget where the machine's memory cannot be read: 4 GiB.
const FALLBACK_BUDGET: u64 = 4 << 30;

/// Half of the physical memory (`MemTotal` in /proc/meminfo), or 4 GiB where unknown.
pub fn default_max_memory() -> u64 {
    physical_memory().map_or(FALLBACK_BUDGET, |m| m / 2)
}

fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// `n` bytes for people: "6.3 GB".
pub fn human_bytes(n: u128) -> String {
    let n = n as f64;
    for (unit, size) in [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)] {
        if n >= size {
            return format!("{:.1} {unit}", n / size);
        }
    }
    format!("{n} B")
}

/// `n` with thousands separators: "207,360,016".
pub fn thousands(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What a run will hold in memory, roughly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Estimate {
    pub flows: u64,
    pub series_rows: u128,
}

impl Estimate {
    pub fn flow_bytes(&self) -> u128 {
        u128::from(self.flows) * u128::from(BYTES_PER_FLOW)
    }
    pub fn series_bytes(&self) -> u128 {
        self.series_rows * u128::from(BYTES_PER_SERIES_ROW)
    }
    pub fn bytes(&self) -> u128 {
        self.flow_bytes() + self.series_bytes()
    }
}

/// Rows the time series will have: one per (sample, row of a sample), a sample every
/// `interval_ns` from 0 to `duration_ns` inclusive.
pub fn series_rows(duration_ns: u64, interval_ns: u64, rows_per_sample: u64) -> u128 {
    let samples = u128::from(duration_ns / interval_ns.max(1)) + 2;
    samples * u128::from(rows_per_sample)
}

/// Refuses an estimate over `budget`, naming the key that dominates and what to change.
pub fn check(e: &Estimate, budget: u64, interval: &str) -> Result<(), ScenarioError> {
    let total = e.bytes();
    if total <= u128::from(budget) {
        return Ok(());
    }
    let over = format!(
        "over the memory budget of {} (--max-memory, by default half of this \
         machine's memory)",
        human_bytes(budget.into())
    );
    let mut errs = ScenarioError::default();
    if e.series_bytes() >= e.flow_bytes() {
        let fit =
            u128::from(budget).saturating_sub(e.flow_bytes()) / u128::from(BYTES_PER_SERIES_ROW);
        let factor = e.series_rows.div_ceil(fit.max(1));
        errs.push(
            "run.sample_interval",
            format!(
                "the time series would have {} rows (about {}), {over}; make the \
                 sample interval ({interval}) at least {factor} times longer, shorten \
                 run.duration, or raise --max-memory",
                thousands(e.series_rows),
                human_bytes(e.series_bytes())
            ),
        );
    } else {
        errs.push(
            "flows",
            format!(
                "{} flows need about {} ({} each), {over}; lower their `count` or raise \
                 --max-memory",
                thousands(e.flows.into()),
                human_bytes(e.flow_bytes()),
                human_bytes(BYTES_PER_FLOW.into())
            ),
        );
    }
    Err(errs)
}

/// A warning when the estimate is over [`WARN_FRACTION`] of the budget.
pub fn large(e: &Estimate, budget: u64) -> Option<crate::scenario::Problem> {
    let limit = (budget as f64 * WARN_FRACTION) as u128;
    (e.bytes() > limit).then(|| {
        crate::scenario::Problem::new(
            "run",
            format!(
                "this run will hold about {} in memory ({} flows, {} time-series rows), \
                 more than {:.0} % of the budget of {}; a longer run.sample_interval or fewer \
                 flows need less",
                human_bytes(e.bytes()),
                thousands(e.flows.into()),
                thousands(e.series_rows),
                WARN_FRACTION * 100.0,
                human_bytes(budget.into())
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_720_hour_run_at_the_default_interval_is_refused_on_a_small_budget() {
        // 720 h / 100 ms = 25.92 M samples; 8 rows each: 207 M rows ≈ 13 GB.
        let rows = series_rows(720 * 3600 * 1_000_000_000, 100_000_000, 8);
        let e = Estimate {
            flows: 5,
            series_rows: rows,
        };
        let err = check(&e, 4 << 30, "100ms").unwrap_err();
        assert_eq!(err.problems[0].path, "run.sample_interval");
        assert!(
            err.problems[0].message.contains("207,360,016 rows"),
            "{err}"
        );
    }

    #[test]
    fn many_flows_are_refused_at_flows() {
        let e = Estimate {
            flows: 100_000,
            series_rows: 1000,
        };
        let err = check(&e, 1 << 30, "100ms").unwrap_err();
        assert_eq!(err.problems[0].path, "flows");
        assert!(check(&e, 16 << 30, "100ms").is_ok());
    }
}
