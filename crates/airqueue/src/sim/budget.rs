//! Resource estimates before a run: how much memory the flows and the time series will
//! take, checked against a budget (`--max-memory`, by default [`default_budget`]: half of
//! what the tightest of this machine's RAM, its cgroup's memory limit and its address-space
//! limit leaves) so that a scenario that cannot fit is refused with the number and the key
//! to change instead of being killed by the allocator halfway through.
//!
//! The per-item costs are measured, not derived (see `docs/limits.md`): peak resident memory
//! of `airqueue validate`/`run` over the flow count and over the time-series row count,
//! rounded up, so the estimate errs on the side of refusing.

use std::path::{Path, PathBuf};

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

/// Fallback budget where no limit can be read: 4 GiB.
const FALLBACK_BUDGET: u64 = 4 << 30;

/// A memory budget in bytes and where it came from, for the message that refuses a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    pub bytes: u64,
    /// What set it, in words: "--max-memory", "half of this machine's 23.4 GiB of memory",
    /// "half of what ulimit -v 1500000 (1.4 GiB of address space) leaves after the 380 MB
    /// this process already maps".
    pub source: String,
}

impl Budget {
    /// A budget the caller gave (`--max-memory`, `max_memory=`).
    pub fn given(bytes: u64) -> Self {
        Budget {
            bytes,
            source: "--max-memory".to_string(),
        }
    }
}

/// One limit on this process's memory: its size, what the process already holds against
/// it, and its name for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Limit {
    total: u64,
    used: u64,
    name: String,
    /// How `used` is described: "this process already maps".
    used_as: &'static str,
}

impl Limit {
    /// Half of what the limit leaves: the other half covers what the estimate does not
    /// count (the libraries Python loads after the check, vectors' spare capacity).
    fn budget(&self) -> Budget {
        let bytes = self.total.saturating_sub(self.used) / 2;
        let source = if self.used == 0 {
            format!("half of {}", self.name)
        } else {
            format!(
                "half of what {} leaves after the {} {}",
                self.name,
                human_bytes(self.used.into()),
                self.used_as
            )
        };
        Budget { bytes, source }
    }
}

/// The default budget: half of what the tightest of these leaves —
/// physical memory (`MemTotal`), the memory limit of this process's cgroup or any of its
/// ancestors (v2 `memory.max`, v1 `memory.limit_in_bytes`) less this process's resident
/// memory, and its address-space limit (`ulimit -v`, `RLIMIT_AS`) less what it already
/// maps (`VmSize`: Python and its libraries count). 4 GiB where none can be read.
pub fn default_budget() -> Budget {
    tightest(&limits()).unwrap_or_else(|| Budget {
        bytes: FALLBACK_BUDGET,
        source: "4 GiB, as this machine's memory and limits could not be read".to_string(),
    })
}

/// A warning when a budget given with `--max-memory` is above what a hard limit of this
/// process (its cgroup's, `ulimit -v`) leaves: a run that needs it would not be refused
/// but stopped by the allocator (exit 2) or killed by the kernel (a cgroup).
pub fn given_above_limits(given: u64) -> Option<crate::scenario::Problem> {
    given_above(given, &limits())
}

fn given_above(given: u64, limits: &[Limit]) -> Option<crate::scenario::Problem> {
    let hard = limits
        .iter()
        // Physical memory is not a hard limit of this process (it has no `used_as`).
        .filter(|l| !l.used_as.is_empty())
        .map(|l| (l.total.saturating_sub(l.used), l))
        .min_by_key(|(left, _)| *left)?;
    (given > hard.0).then(|| {
        crate::scenario::Problem::new(
            "run",
            format!(
                "--max-memory {} is above the {} that {} leaves this process; a run that \
                 needs more than that is stopped with exit 2 (ulimit -v) or killed by the \
                 kernel (a cgroup's limit) instead of being refused; the default budget \
                 here is {}",
                human_bytes(given.into()),
                human_bytes(hard.0.into()),
                hard.1.name,
                human_bytes(hard.1.budget().bytes.into())
            ),
        )
    })
}

/// This process's memory limits: physical memory, its cgroup's, its address space's.
fn limits() -> Vec<Limit> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mut limits = Vec::new();
    if let Some(ram) = read("/proc/meminfo").and_then(|t| parse_meminfo_total(&t)) {
        limits.push(Limit {
            total: ram,
            used: 0,
            name: format!("this machine's {} of memory", human_binary(ram)),
            used_as: "",
        });
    }
    if let Some(cg) = cgroup_memory_limit() {
        limits.push(Limit {
            total: cg.bytes,
            used: parse_status_kib(&status, "VmRSS").unwrap_or(0),
            name: format!(
                "cgroup {} {} ({})",
                cg.file,
                human_binary(cg.bytes),
                cg.dir.display()
            ),
            used_as: "this process holds",
        });
    }
    if let Some(rl) = read("/proc/self/limits").and_then(|t| parse_address_space_limit(&t)) {
        limits.push(Limit {
            total: rl,
            used: parse_status_kib(&status, "VmSize").unwrap_or(0),
            name: format!(
                "ulimit -v {} ({} of address space)",
                rl / 1024,
                human_binary(rl)
            ),
            used_as: "this process already maps",
        });
    }
    limits
}

/// The default budget in bytes ([`default_budget`]).
pub fn default_max_memory() -> u64 {
    default_budget().bytes
}

/// The smallest budget the limits give.
fn tightest(limits: &[Limit]) -> Option<Budget> {
    limits.iter().map(Limit::budget).min_by_key(|b| b.bytes)
}

fn read(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// `MemTotal` of /proc/meminfo, in bytes.
fn parse_meminfo_total(meminfo: &str) -> Option<u64> {
    parse_status_kib(meminfo, "MemTotal")
}

/// A `NAME:   123 kB` line of /proc/self/status (or /proc/meminfo), in bytes.
fn parse_status_kib(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.split(':').next() == Some(name))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The soft address-space limit (`ulimit -v`, in bytes) from /proc/self/limits, `None`
/// when unlimited: `Max address space   1536000000   unlimited   bytes`.
fn parse_address_space_limit(limits: &str) -> Option<u64> {
    let rest = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max address space"))?;
    rest.split_whitespace().next()?.parse().ok()
}

/// This process's cgroup v2 path from /proc/self/cgroup (the `0::/path` line).
fn parse_cgroup_v2_path(proc_cgroup: &str) -> Option<&str> {
    proc_cgroup.lines().find_map(|l| l.strip_prefix("0::"))
}

/// This process's cgroup v1 memory-controller path from /proc/self/cgroup
/// (`4:memory:/path`; the controller may share its hierarchy: `5:cpu,memory:/path`).
fn parse_cgroup_v1_memory_path(proc_cgroup: &str) -> Option<&str> {
    proc_cgroup.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then_some(path)
    })
}

/// A memory-limit file's value in bytes, `None` for no limit: v2 writes `max`, v1 a
/// number near 2^63 (`9223372036854771712`).
fn parse_limit(text: &str) -> Option<u64> {
    let n: u64 = text.trim().parse().ok()?;
    (n < 1 << 62).then_some(n)
}

/// A cgroup memory limit: its value, its file's name and the folder that set it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct CgroupLimit {
    bytes: u64,
    file: &'static str,
    dir: PathBuf,
}

/// The tightest `file` limit of the cgroup at `path` under `root` and of its ancestors up
/// to `root` itself (inside a container `root` is the container's own cgroup; a folder or
/// file that does not exist is skipped).
fn tightest_in_tree(root: &Path, path: &str, file: &'static str) -> Option<CgroupLimit> {
    let mut dir = root.join(path.trim_start_matches('/'));
    let mut best: Option<CgroupLimit> = None;
    loop {
        let here = read(dir.join(file)).and_then(|t| parse_limit(&t));
        if let Some(bytes) = here.filter(|&n| best.as_ref().is_none_or(|b| n < b.bytes)) {
            best = Some(CgroupLimit {
                bytes,
                file,
                dir: dir.clone(),
            });
        }
        if dir == root || !dir.pop() || !dir.starts_with(root) {
            return best;
        }
    }
}

/// The tightest memory limit of this process's cgroups: v2 (`memory.max`, under
/// /sys/fs/cgroup or, on a hybrid system, /sys/fs/cgroup/unified) and v1
/// (`memory.limit_in_bytes` under /sys/fs/cgroup/memory).
fn cgroup_memory_limit() -> Option<CgroupLimit> {
    let text = read("/proc/self/cgroup")?;
    let mut found = Vec::new();
    if let Some(path) = parse_cgroup_v2_path(&text) {
        for root in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
            found.extend(tightest_in_tree(Path::new(root), path, "memory.max"));
        }
    }
    if let Some(path) = parse_cgroup_v1_memory_path(&text) {
        found.extend(tightest_in_tree(
            Path::new("/sys/fs/cgroup/memory"),
            path,
            "memory.limit_in_bytes",
        ));
    }
    found.into_iter().min_by_key(|l| l.bytes)
}

/// A limit for people in the binary units limits are usually written in: "1 GiB",
/// "1.5 GiB", "512 MiB".
pub fn human_binary(n: u64) -> String {
    for (unit, shift) in [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if n >= 1 << shift {
            let v = n as f64 / (1u64 << shift) as f64;
            let text = format!("{v:.1}");
            return format!("{} {unit}", text.trim_end_matches(".0"));
        }
    }
    format!("{n} B")
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
pub fn check(e: &Estimate, budget: &Budget, interval: &str) -> Result<(), ScenarioError> {
    let total = e.bytes();
    if total <= u128::from(budget.bytes) {
        return Ok(());
    }
    let over = format!(
        "over the memory budget of {} ({})",
        human_bytes(budget.bytes.into()),
        budget.source
    );
    let budget = budget.bytes;
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
pub fn large(e: &Estimate, budget: &Budget) -> Option<crate::scenario::Problem> {
    let budget = budget.bytes;
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
        let err = check(&e, &Budget::given(4 << 30), "100ms").unwrap_err();
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
        let err = check(&e, &Budget::given(1 << 30), "100ms").unwrap_err();
        assert_eq!(err.problems[0].path, "flows");
        assert!(check(&e, &Budget::given(16 << 30), "100ms").is_ok());
    }
    #[test]
    fn the_message_names_where_the_budget_came_from() {
        let e = Estimate {
            flows: 5,
            series_rows: 200_000_000,
        };
        let b = Limit {
            total: 1 << 30,
            used: 100_000_000,
            name: "cgroup memory.max 1 GiB (/sys/fs/cgroup/x)".into(),
            used_as: "this process holds",
        }
        .budget();
        assert_eq!(b.bytes, ((1u64 << 30) - 100_000_000) / 2);
        let err = check(&e, &b, "100ms").unwrap_err();
        let msg = &err.problems[0].message;
        assert!(msg.contains("memory budget of 486.9 MB (half of what cgroup memory.max 1 GiB (/sys/fs/cgroup/x) leaves after the 100.0 MB this process holds)"), "{msg}");
        assert!(Budget::given(1).source.contains("--max-memory"));
    }

    #[test]
    fn the_tightest_limit_wins() {
        let ram = Limit {
            total: 24 << 30,
            used: 0,
            name: "this machine's 24 GiB of memory".into(),
            used_as: "",
        };
        let ulimit = Limit {
            total: 1_536_000_000,
            used: 400_000_000,
            name: "ulimit -v 1500000".into(),
            used_as: "this process already maps",
        };
        let b = tightest(&[ram.clone(), ulimit]).unwrap();
        assert_eq!(b.bytes, 568_000_000);
        assert!(
            b.source
                .starts_with("half of what ulimit -v 1500000 leaves after the 400.0 MB"),
            "{}",
            b.source
        );
        assert_eq!(
            tightest(&[ram]).unwrap().source,
            "half of this machine's 24 GiB of memory"
        );
        assert_eq!(tightest(&[]), None);
        // A limit below what is already used leaves nothing, not an underflow.
        let tiny = Limit {
            total: 10,
            used: 20,
            name: "x".into(),
            used_as: "",
        };
        assert_eq!(tiny.budget().bytes, 0);
    }

    #[test]
    fn proc_files_are_parsed() {
        let meminfo = "MemTotal:       24589636 kB\nMemFree:        15000000 kB\n";
        assert_eq!(parse_meminfo_total(meminfo), Some(24_589_636 * 1024));
        let status =
            "Name:\tpython\nVmPeak:\t  400000 kB\nVmSize:\t  392352 kB\nVmRSS:\t  114532 kB\n";
        assert_eq!(parse_status_kib(status, "VmSize"), Some(392_352 * 1024));
        assert_eq!(parse_status_kib(status, "VmRSS"), Some(114_532 * 1024));
        assert_eq!(parse_status_kib(status, "VmSwap"), None);
        let limits =
            "Limit                     Soft Limit           Hard Limit           Units     \n\
Max stack size            8388608              unlimited            bytes     \n\
Max address space         1536000000           unlimited            bytes     \n";
        assert_eq!(parse_address_space_limit(limits), Some(1_536_000_000));
        let unlimited = limits.replace("1536000000", "unlimited ");
        assert_eq!(parse_address_space_limit(&unlimited), None);
    }

    #[test]
    fn cgroup_paths_and_limits_are_parsed() {
        let hybrid = "9:name=systemd:/\n5:cpu,memory:/docker/abc\n1:cpu:/\n0::/user.slice/x\n";
        assert_eq!(parse_cgroup_v2_path(hybrid), Some("/user.slice/x"));
        assert_eq!(parse_cgroup_v1_memory_path(hybrid), Some("/docker/abc"));
        assert_eq!(parse_cgroup_v1_memory_path("0::/\n"), None);
        assert_eq!(parse_cgroup_v2_path("4:memory:/a\n"), None);
        assert_eq!(parse_limit("max\n"), None);
        assert_eq!(parse_limit("1073741824\n"), Some(1 << 30));
        assert_eq!(parse_limit("9223372036854771712\n"), None);
        assert_eq!(human_binary(1 << 30), "1 GiB");
        assert_eq!(human_binary(3 << 29), "1.5 GiB");
        assert_eq!(human_binary(512 << 20), "512 MiB");
    }

    #[test]
    fn a_cgroups_ancestors_limit_it_too() {
        let root = std::env::temp_dir().join(format!("airqueue-cgroup-{}", std::process::id()));
        let leaf = root.join("a/b");
        std::fs::create_dir_all(&leaf).unwrap();
        std::fs::write(root.join("a/memory.max"), "1073741824\n").unwrap();
        std::fs::write(leaf.join("memory.max"), "max\n").unwrap();
        let found = tightest_in_tree(&root, "/a/b", "memory.max").unwrap();
        assert_eq!((found.bytes, found.dir), (1 << 30, root.join("a")));
        std::fs::write(leaf.join("memory.max"), "536870912\n").unwrap();
        assert_eq!(
            tightest_in_tree(&root, "/a/b", "memory.max").unwrap().dir,
            leaf
        );
        // The root itself counts (a container's own cgroup), a missing folder is skipped.
        std::fs::write(root.join("memory.max"), "1000\n").unwrap();
        assert_eq!(
            tightest_in_tree(&root, "/gone/c", "memory.max")
                .unwrap()
                .bytes,
            1000
        );
        assert_eq!(
            tightest_in_tree(&root.join("none"), "/", "memory.max"),
            None
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_given_budget_above_a_hard_limit_is_warned_about() {
        let ram = Limit {
            total: 24 << 30,
            used: 0,
            name: "this machine's 24 GiB of memory".into(),
            used_as: "",
        };
        let ulimit = Limit {
            total: 1_536_000_000,
            used: 436_000_000,
            name: "ulimit -v 1500000 (1.4 GiB of address space)".into(),
            used_as: "this process already maps",
        };
        let w = given_above(10_000_000_000, &[ram.clone(), ulimit.clone()]).unwrap();
        assert_eq!(w.path, "run");
        assert!(
            w.message.starts_with(
                "--max-memory 10.0 GB is above the 1.1 GB that ulimit -v 1500000 (1.4 GiB of \
                 address space) leaves this process"
            ),
            "{}",
            w.message
        );
        assert!(
            w.message.ends_with("the default budget here is 550.0 MB"),
            "{}",
            w.message
        );
        assert_eq!(given_above(1_000_000_000, &[ram.clone(), ulimit]), None);
        // Above physical memory alone: the user's call, no warning.
        assert_eq!(given_above(100 << 30, &[ram]), None);
    }
}
