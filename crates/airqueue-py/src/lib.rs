//! `airqueue._native`: the Python binding of the airqueue core.
//!
//! Only conversions live here: scenario JSON text in, result columns out (numeric columns
//! become NumPy arrays that take over the Rust buffers, so no per-row conversion happens).
//! The run itself releases the GIL. No panic crosses into Python: a scenario problem raises
//! `ScenarioError` with every (path, message) pair; anything else raises `InternalError`.

use airqueue::channel;
use airqueue::metrics::{Column, Table};
use airqueue::scenario::{self, ScenarioError as CoreScenarioError};
use airqueue::sim::{load_and_build, BuildOptions, CaptureSpec, Progress, RunEnd, Simulation};
use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyMemoryView, PyTuple};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

mod oom;

/// An allocation failure exits with code 2 and a message, not SIGABRT (`oom.rs`).
#[global_allocator]
static ALLOCATOR: oom::ExitOnFailure = oom::ExitOnFailure;

create_exception!(
    _native,
    ScenarioError,
    PyValueError,
    "A scenario has problems; args[1] lists (path, message) pairs."
);
create_exception!(
    _native,
    InternalError,
    PyRuntimeError,
    "A bug inside airqueue (not a problem with the input)."
);

fn scenario_err(e: CoreScenarioError) -> PyErr {
    let problems: Vec<(String, String)> = e
        .problems
        .iter()
        .map(|p| (p.path.clone(), p.message.clone()))
        .collect();
    ScenarioError::new_err((e.to_string(), problems))
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Runs `f` and turns a panic into `InternalError`.
fn guarded<T>(f: impl FnOnce() -> Result<T, CoreScenarioError>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(scenario_err(e)),
        Err(p) => Err(InternalError::new_err(format!(
            "internal error in the airqueue core: {}; please report it with the scenario",
            panic_message(p)
        ))),
    }
}

/// A numeric column as a `memoryview` of `format` (`"d"`, `"Q"`, `"I"`: native f64, u64,
/// u32) over a `bytes` copy of the values: what the CLI's `run` asks for (`buffers=True`),
/// so that it never imports NumPy (issue 37: NumPy's import was a third of a small run).
fn buffer_column<'py, const N: usize>(
    py: Python<'py>,
    values: impl ExactSizeIterator<Item = [u8; N]>,
    format: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let bytes = PyBytes::new_with(py, values.len() * N, |buf| {
        for (chunk, v) in buf.chunks_exact_mut(N).zip(values) {
            chunk.copy_from_slice(&v);
        }
        Ok(())
    })?;
    PyMemoryView::from(&bytes.into_any())?.call_method1("cast", (format,))
}

fn table_to_py<'py>(py: Python<'py>, t: Table, buffers: bool) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for (name, col) in t.columns {
        let value: Bound<'py, PyAny> = match col {
            Column::F64(v) if buffers => buffer_column(py, v.iter().map(|x| x.to_ne_bytes()), "d")?,
            Column::U64(v) if buffers => buffer_column(py, v.iter().map(|x| x.to_ne_bytes()), "Q")?,
            Column::F64(v) => v.into_pyarray(py).into_any(),
            Column::U64(v) => v.into_pyarray(py).into_any(),
            Column::Str(v) => PyList::new(py, v)?.into_any(),
            Column::Cat { codes, categories } => {
                let codes = if buffers {
                    buffer_column(py, codes.iter().map(|x| x.to_ne_bytes()), "I")?
                } else {
                    codes.into_pyarray(py).into_any()
                };
                PyTuple::new(py, [codes, PyList::new(py, categories)?.into_any()])?.into_any()
            }
        };
        out.append((name, value))?;
    }
    Ok(out)
}

/// The airqueue core version.
#[pyfunction]
fn version() -> &'static str {
    airqueue::VERSION
}

/// A hash of the core's sources and locked dependencies: builds with the same id give the
/// same results (the result store's keys include it).
#[pyfunction]
fn source_id() -> &'static str {
    airqueue::SOURCE_ID
}

/// The memory budget a run gets without `max_memory`: half of what the tightest of this
/// machine's memory, its cgroup's limit and `ulimit -v` leaves (`sim/budget.rs`).
#[pyfunction]
fn default_max_memory() -> u64 {
    airqueue::sim::budget::default_max_memory()
}

/// The JSON Schema of the scenario format.
#[pyfunction]
fn schema() -> String {
    scenario::scenario_schema()
}

/// Validates a scenario given as JSON text; returns the resolved scenario as JSON text
/// (counts expanded, defaults filled in). Raises ScenarioError listing every problem.
#[pyfunction]
#[pyo3(signature = (scenario_json, max_memory=None))]
fn validate(py: Python<'_>, scenario_json: &str, max_memory: Option<u64>) -> PyResult<String> {
    check(py, scenario_json, max_memory).map(|(resolved, _)| resolved)
}

/// Like `validate`, and also returns the warnings: (resolved JSON, [(path, message)]).
#[pyfunction]
#[pyo3(signature = (scenario_json, max_memory=None))]
fn check(
    py: Python<'_>,
    scenario_json: &str,
    max_memory: Option<u64>,
) -> PyResult<(String, Vec<(String, String)>)> {
    let text = scenario_json.to_owned();
    py.detach(move || {
        guarded(|| {
            // Build too: reachability, path-MTU and memory problems are scenario problems,
            // reported with the loader's in one pass.
            let opts = BuildOptions {
                max_memory,
                ..Default::default()
            };
            let (s, sim) = load_and_build(&text, opts)?;
            let warnings = sim
                .warnings()
                .iter()
                .map(|w| (w.path.clone(), w.message.clone()))
                .collect();
            Ok((scenario::to_resolved_json(&s), warnings))
        })
    })
}

/// Like `check`, without the resolved scenario: the number of entries in each list section
/// after `count` expansion (sections with none left out), and the warnings. `airqueue
/// validate` needs only these, and skipping the resolved JSON (17 MB for 100 000 flows)
/// saves its serialization and Python's parse of it.
/// `check_counts`'s answer: (section, entries) pairs and (warning code, message) pairs.
type Counts = (Vec<(String, usize)>, Vec<(String, String)>);

#[pyfunction]
#[pyo3(signature = (scenario_json, max_memory=None))]
fn check_counts(py: Python<'_>, scenario_json: &str, max_memory: Option<u64>) -> PyResult<Counts> {
    let text = scenario_json.to_owned();
    py.detach(move || {
        guarded(|| {
            let opts = BuildOptions {
                max_memory,
                ..Default::default()
            };
            let (s, sim) = load_and_build(&text, opts)?;
            let warnings = sim
                .warnings()
                .iter()
                .map(|w| (w.path.clone(), w.message.clone()))
                .collect();
            let counts = [
                ("nodes", s.nodes.len()),
                ("links", s.links.len()),
                ("segments", s.segments.len()),
                ("cells", s.cells.len()),
                ("piconets", s.piconets.len()),
                ("bridges", s.bridges.len()),
                ("virtual_devs", s.virtual_devs.len()),
                ("trunks", s.trunks.len()),
                ("qdiscs", s.qdiscs.len()),
                ("routes", s.routes.len()),
                ("flows", s.flows.len()),
                ("at", s.at.len()),
            ];
            Ok((
                counts
                    .into_iter()
                    .filter(|&(_, n)| n > 0)
                    .map(|(k, n)| (k.to_owned(), n))
                    .collect(),
                warnings,
            ))
        })
    })
}

/// A scenario file's TOML text with `--set` overrides (`overrides_json`: a JSON list of
/// [dotted path, value] pairs, in order) as the scenario JSON the other functions take,
/// and whether the file has a `[sweep]` table (taken out); `None` when Python's loader
/// must read the file instead (syntax only TOML 1.1 has, a value JSON cannot hold, an
/// override Python refuses: its messages are Python's). Issue 37: the core parses large
/// files many times faster than Python's `tomllib`.
#[pyfunction]
fn prepare_toml(
    py: Python<'_>,
    text: &str,
    overrides_json: &str,
) -> PyResult<Option<(String, bool)>> {
    let text = text.to_owned();
    let overrides: Vec<(String, serde_json::Value)> = serde_json::from_str(overrides_json)
        .map_err(|e| PyValueError::new_err(format!("overrides_json: {e}")))?;
    py.detach(move || {
        guarded(|| {
            Ok(scenario::prepare_toml(&text, &overrides).map(|(v, sweep)| {
                (
                    serde_json::to_string(&v).expect("JSON values serialize"),
                    sweep,
                )
            }))
        })
    })
}

/// The resolved scenario's JSON text as the TOML text `tomli_w.dumps(json.loads(text))`
/// gives (a run's `scenario.toml`), or `None` where tomli_w would raise.
#[pyfunction]
fn resolved_toml(py: Python<'_>, resolved_json: &str) -> PyResult<Option<String>> {
    let text = resolved_json.to_owned();
    py.detach(move || guarded(|| Ok(scenario::resolved_toml(&text))))
}

/// Watches a run from inside the core's event loop (called every few thousand events):
/// every [`SIGNAL_CHECK`] of wall time it takes the GIL to run Python's signal handlers, so
/// that Ctrl-C (KeyboardInterrupt) stops the run within milliseconds, and every
/// [`PROGRESS_EVERY`] it calls the `progress` callable, if any, with (simulated seconds,
/// stop seconds, events, wall seconds).
struct Watcher {
    started: Instant,
    last_check: Instant,
    last_progress: Instant,
    progress: Option<Py<PyAny>>,
    error: Option<PyErr>,
}

const SIGNAL_CHECK: Duration = Duration::from_millis(10);
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

impl Watcher {
    fn new(progress: Option<Py<PyAny>>) -> Self {
        let now = Instant::now();
        Watcher {
            started: now,
            last_check: now,
            last_progress: now,
            progress,
            error: None,
        }
    }

    fn poll(&mut self, p: &Progress) -> bool {
        let now = Instant::now();
        if now.duration_since(self.last_check) < SIGNAL_CHECK {
            return true;
        }
        self.last_check = now;
        Python::attach(|py| {
            if let Err(e) = py.check_signals() {
                self.error = Some(e);
                return false;
            }
            if let Some(cb) = &self.progress {
                if now.duration_since(self.last_progress) >= PROGRESS_EVERY {
                    self.last_progress = now;
                    let args = (
                        p.now.as_secs_f64(),
                        p.stop.as_secs_f64(),
                        p.events,
                        now.duration_since(self.started).as_secs_f64(),
                    );
                    if let Err(e) = cb.call1(py, args) {
                        self.error = Some(e);
                        return false;
                    }
                }
            }
            true
        })
    }
}

/// Runs a scenario given as JSON text. Returns a dict with `summary_json`, `resolved_json`,
/// and `tables`: every result table as (name, columns) — `flows`, `queues`, `classes`,
/// `timeseries`, then whatever tables the scenario's media and systems add — where columns
/// are (column name, column) and a column is a NumPy array, a list of str, or (codes array,
/// categories list).
///
/// With `pcap_links` (link names) and `pcap_dir`, writes `<pcap_dir>/<link>.pcap` for each
/// link and adds `pcap`: a list of (link, path, packets). With `buffers`, numeric columns
/// (and category codes) are `memoryview`s of native f64/u64/u32 (`"d"`, `"Q"`, `"I"`)
/// instead of NumPy arrays, with the same values: NumPy is then not imported.
#[pyfunction]
#[pyo3(signature = (scenario_json, seed=None, pcap_links=None, pcap_dir=None, max_memory=None, progress=None, buffers=false))]
fn run<'py>(
    py: Python<'py>,
    scenario_json: &str,
    seed: Option<u64>,
    pcap_links: Option<Vec<String>>,
    pcap_dir: Option<std::path::PathBuf>,
    max_memory: Option<u64>,
    progress: Option<Py<PyAny>>,
    buffers: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let text = scenario_json.to_owned();
    let capture = pcap_links.map(|links| CaptureSpec {
        links,
        dir: pcap_dir.unwrap_or_else(|| ".".into()),
    });
    let mut watcher = Watcher::new(progress);
    let outcome = py.detach(|| {
        guarded(|| {
            let opts = BuildOptions {
                seed,
                capture,
                max_memory,
                ..Default::default()
            };
            let (mut s, mut sim) = load_and_build(&text, opts)?;
            if let Some(seed) = seed {
                // The resolved scenario names the seed the run used.
                s.run.seed = seed;
            }
            if sim.run_with(|p| watcher.poll(p)) == RunEnd::Stopped {
                // Interrupted: nothing of this run is returned (or written).
                let _ = sim.finish_capture();
                return Ok(None);
            }
            let captured = sim.finish_capture();
            let warnings: Vec<(String, String)> = sim
                .warnings()
                .iter()
                .map(|w| (w.path.clone(), w.message.clone()))
                .collect();
            let resolved = scenario::to_resolved_json(&s);
            Ok(Some((resolved, sim.results(), captured, warnings)))
        })
    });
    if let Some(e) = watcher.error.take() {
        return Err(e);
    }
    let Some((resolved, results, captured, warnings)) = outcome? else {
        return Err(InternalError::new_err("the run stopped without a reason"));
    };
    let captured =
        captured.map_err(|e| PyOSError::new_err(format!("writing the pcap files failed: {e}")))?;
    let d = PyDict::new(py);
    let (summary, tables) = results.into_tables();
    d.set_item("summary_json", summary.to_json())?;
    d.set_item("resolved_json", resolved)?;
    d.set_item("warnings", warnings)?;
    let named = PyList::empty(py);
    for (name, t) in tables {
        named.append((name, table_to_py(py, t, buffers)?))?;
    }
    d.set_item("tables", named)?;
    let pcap: Vec<(String, std::path::PathBuf, u64)> = captured
        .into_iter()
        .map(|c| (c.link, c.path, c.packets))
        .collect();
    d.set_item("pcap", pcap)?;
    Ok(d)
}

// ---- Live mode (`airqueue live`, docs/live.md).

/// Opens TUN interface `name` inside the network namespace `netns` (a path such as
/// `/run/netns/aq-123-a`) and returns its descriptor (non-blocking; the caller closes it).
/// The caller's own namespace is not touched (`airqueue::live::tun`).
#[pyfunction]
fn live_open_tun(netns: std::path::PathBuf, name: &str) -> PyResult<i32> {
    use std::os::fd::IntoRawFd;
    airqueue::live::tun::open_in_netns(&netns, name)
        .map(|fd| fd.into_raw_fd())
        .map_err(|e| PyOSError::new_err(format!("opening TUN {name} in {}: {e}", netns.display())))
}

/// Checks a scenario for live mode and returns its real hosts as (node, IPv4 address).
#[pyfunction]
fn live_hosts(py: Python<'_>, scenario_json: &str) -> PyResult<Vec<(String, String)>> {
    let text = scenario_json.to_owned();
    py.detach(move || {
        guarded(|| {
            let s = scenario::load_json_str(&text)?;
            let sim = Simulation::build_live(&s, BuildOptions::default())?;
            let r = sim.real_hosts().expect("built for live");
            Ok(r.nodes
                .iter()
                .map(|(_, name, addr)| (name.clone(), std::net::Ipv4Addr::from(*addr).to_string()))
                .collect())
        })
    })
}

/// Runs a scenario in real time with its real hosts' TUN descriptors (`tuns`: node name,
/// fd) until `run.duration` or Ctrl-C (KeyboardInterrupt ends the run; its results are
/// returned). Returns what `run` returns (its tables then `timing`, one row per packet
/// written to a real host; `pcap`: (node, path, packets) per capture file), plus `live`:
/// the real packets' conservation (`read`, `unsupported`, `injected`, `written`,
/// `dropped`, `in_flight`, `answers`, `absorbed`, `probes`, `errors`, `errors_limited`:
/// `read = unsupported + injected + answers`, `injected + errors = written + dropped +
/// absorbed + in_flight`; per host in `hosts`;
/// `max_written_bytes`), the release timing (`packets`, `p50_ns`, `p99_ns`, `max_ns`,
/// `behind`, `write_errors`, `timing_rows_dropped`), what ran behind real time
/// (`events_behind`, `max_event_late_ns`, `episodes`), `scheduling` and `priority`,
/// `origin_unix_ns`, `stopped`, `ended_s`, `wall_s` and `cpu_s` (the loop thread's CPU
/// time). `spin_us` (default 50) is how close to an event the loop stops sleeping and
/// spins; `priority` (default 50, 0 = normal) the loop thread's SCHED_FIFO priority;
/// `pcap_dir` asks for `<pcap_dir>/<node>.pcap` per real host.
#[pyfunction]
#[pyo3(signature = (scenario_json, tuns, seed=None, spin_us=None, priority=None, pcap_dir=None))]
#[allow(clippy::too_many_arguments)]
fn live_run<'py>(
    py: Python<'py>,
    scenario_json: &str,
    tuns: Vec<(String, i32)>,
    seed: Option<u64>,
    spin_us: Option<u64>,
    priority: Option<u8>,
    pcap_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    use airqueue::live::{self, LiveOptions};
    let text = scenario_json.to_owned();
    let mut interrupted: Option<PyErr> = None;
    let mut opts = LiveOptions::default();
    if let Some(us) = spin_us {
        opts.spin = Duration::from_micros(us);
    }
    if let Some(p) = priority {
        if p > 99 {
            return Err(PyValueError::new_err(format!(
                "priority {p}: SCHED_FIFO priorities are 1 to 99 (0: normal scheduling)"
            )));
        }
        opts.priority = p;
    }
    opts.pcap_dir = pcap_dir;
    let asked = opts.priority;
    let outcome = py.detach(|| {
        guarded(|| {
            let mut s = scenario::load_json_str(&text)?;
            if let Some(seed) = seed {
                s.run.seed = seed;
            }
            let mut sim = Simulation::build_live(&s, BuildOptions::default())?;
            let r = sim.real_hosts().expect("built for live");
            let mut fds = Vec::new();
            for (name, fd) in &tuns {
                let Some((node, _, _)) = r.nodes.iter().find(|n| &n.1 == name) else {
                    let mut e = CoreScenarioError::default();
                    e.push(
                        format!("nodes.{name}"),
                        "is not a real host (`real = true`)",
                    );
                    return Err(e);
                };
                fds.push((*node, *fd));
            }
            let report = live::run(&mut sim, &fds, opts, || {
                Python::attach(|py| match py.check_signals() {
                    Ok(()) => true,
                    Err(e) => {
                        interrupted = Some(e);
                        false
                    }
                })
            });
            let timing = report.as_ref().ok().map(|r| {
                r.records.table(
                    |n| sim.nodes[n.0 as usize].name.clone(),
                    |f| sim.flows[f.0 as usize].name.clone(),
                )
            });
            let names: Vec<String> = sim.nodes.iter().map(|n| n.name.clone()).collect();
            let warnings: Vec<(String, String)> = sim
                .warnings()
                .iter()
                .map(|w| (w.path.clone(), w.message.clone()))
                .collect();
            let resolved = scenario::to_resolved_json(&s);
            Ok((report, timing, names, resolved, sim.results(), warnings))
        })
    });
    let (report, timing, names, resolved, results, warnings) = outcome?;
    let report = report.map_err(|e| PyOSError::new_err(format!("live loop: {e}")))?;
    let d = PyDict::new(py);
    let (summary, tables) = results.into_tables();
    d.set_item("summary_json", summary.to_json())?;
    d.set_item("resolved_json", resolved)?;
    d.set_item("warnings", warnings)?;
    let named = PyList::empty(py);
    for (name, t) in tables {
        named.append((name, table_to_py(py, t, false)?))?;
    }
    if let Some(t) = timing {
        named.append(("timing", table_to_py(py, t, false)?))?;
    }
    d.set_item("tables", named)?;
    let pcap: Vec<(String, std::path::PathBuf, u64)> = report
        .pcap
        .iter()
        .map(|p| (p.node.clone(), p.path.clone(), p.packets))
        .collect();
    d.set_item("pcap", pcap)?;
    let l = PyDict::new(py);
    let c = report.counts;
    for (k, v) in [
        ("read", c.read),
        ("unsupported", c.unsupported),
        ("injected", c.injected),
        ("written", c.written),
        ("dropped", c.dropped),
        ("in_flight", c.in_flight),
        ("answers", c.answers),
        ("absorbed", c.absorbed),
        ("probes", c.probes),
        ("errors", c.errors),
        ("errors_limited", c.errors_limited),
        ("max_written_bytes", c.max_written_bytes),
    ] {
        l.set_item(k, v)?;
    }
    let hosts = PyDict::new(py);
    for h in &report.hosts {
        let e = PyDict::new(py);
        e.set_item("read", h.read)?;
        e.set_item("written", h.written)?;
        hosts.set_item(&names[h.node.0 as usize], e)?;
    }
    l.set_item("hosts", hosts)?;
    let t = report.timing;
    for (k, v) in [
        ("packets", t.packets),
        ("p50_ns", t.p50_ns),
        ("p99_ns", t.p99_ns),
        ("max_ns", t.max_ns),
        ("behind", t.behind),
        ("write_errors", t.write_errors),
        ("timing_rows_dropped", t.rows_dropped),
        ("events_behind", report.events_behind),
        ("max_event_late_ns", report.max_event_late_ns),
        ("episodes", report.episodes),
        ("origin_unix_ns", report.origin_unix_ns),
    ] {
        l.set_item(k, v)?;
    }
    l.set_item("loop_cpu_s", report.usage.cpu_s)?;
    l.set_item("loop_switches", report.usage.voluntary)?;
    l.set_item("loop_preempted", report.usage.involuntary)?;
    l.set_item("priority", report.scheduling.priority)?;
    l.set_item("scheduling", report.scheduling.describe(asked))?;
    l.set_item("stopped", report.stopped || interrupted.is_some())?;
    l.set_item("ended_s", report.ended_at.as_secs_f64())?;
    l.set_item("wall_s", report.wall_seconds)?;
    l.set_item("cpu_s", report.usage.cpu_s)?;
    d.set_item("live", l)?;
    Ok(d)
}

/// Runs the bare forwarder (`airqueue::live::bare`: no model, each packet read from a TUN
/// written at once to the TUN owning its destination address) over `tuns` (IPv4 address,
/// fd) for `duration_s` seconds or until Ctrl-C; the reference of `airqueue bench --live`.
/// Returns `read`, `written`, `unrouted`, `write_errors`, `max_bytes`, `stopped`, `wall_s`
/// and `cpu_s` (the forwarding thread's CPU time).
#[pyfunction]
fn live_bare_forward<'py>(
    py: Python<'py>,
    tuns: Vec<(String, i32)>,
    duration_s: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let mut fds = Vec::with_capacity(tuns.len());
    for (addr, fd) in &tuns {
        let a: std::net::Ipv4Addr = addr
            .parse()
            .map_err(|_| PyValueError::new_err(format!("{addr:?} is not an IPv4 address")))?;
        fds.push((u32::from(a), *fd));
    }
    if !(duration_s.is_finite() && duration_s >= 0.0) {
        return Err(PyValueError::new_err(format!(
            "duration_s must be a non-negative number of seconds, not {duration_s}"
        )));
    }
    let mut interrupted: Option<PyErr> = None;
    let report = py.detach(|| {
        airqueue::live::bare::forward(
            &fds,
            Duration::from_secs_f64(duration_s),
            airqueue::live::LiveOptions::default().spin,
            Duration::from_millis(10),
            || {
                Python::attach(|py| match py.check_signals() {
                    Ok(()) => true,
                    Err(e) => {
                        interrupted = Some(e);
                        false
                    }
                })
            },
        )
    });
    let r = report.map_err(|e| PyOSError::new_err(format!("bare forwarder: {e}")))?;
    let d = PyDict::new(py);
    for (k, v) in [
        ("read", r.read),
        ("written", r.written),
        ("unrouted", r.unrouted),
        ("write_errors", r.write_errors),
        ("max_bytes", r.max_bytes),
    ] {
        d.set_item(k, v)?;
    }
    d.set_item("stopped", r.stopped || interrupted.is_some())?;
    d.set_item("wall_s", r.wall_seconds)?;
    d.set_item("cpu_s", r.cpu_seconds)?;
    Ok(d)
}

// ---- Channel models (airqueue.channel): the core's closed forms, so that analysis and
// simulation share one formula.

/// PER = 1 − (1 − ber)^bits.
#[pyfunction]
fn channel_per(ber: f64, bits: f64) -> f64 {
    channel::per(ber, bits)
}

/// The PHY of `standard` with the given overrides (the scenario's `[[cells]]` keys).
#[allow(clippy::too_many_arguments)]
fn wifi_phy(
    standard: &str,
    short_preamble: bool,
    basic_kbps: Option<Vec<u32>>,
    slot_ns: Option<u64>,
    sifs_ns: Option<u64>,
    cw_min: Option<u32>,
    cw_max: Option<u32>,
) -> PyResult<airqueue::link::wifi::Phy> {
    use airqueue::engine::SimTime;
    use airqueue::link::wifi::{Phy, Standard};
    let std = Standard::parse(standard)
        .filter(|s| !s.has_mcs())
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "\"{standard}\" is not a supported PHY here; use \"802.11b\", \"802.11a\" or \"802.11g\" (the rate helpers take non-HT rates)"
            ))
        })?;
    let mut phy = Phy::new(std);
    phy.short_preamble = short_preamble;
    if let Some(mut b) = basic_kbps {
        b.sort_unstable();
        phy.basic_kbps = b;
    }
    if let Some(v) = slot_ns {
        phy.slot = SimTime(v);
    }
    if let Some(v) = sifs_ns {
        phy.sifs = SimTime(v);
    }
    if let Some(v) = cw_min {
        phy.cw_min = v;
    }
    if let Some(v) = cw_max {
        phy.cw_max = v;
    }
    Ok(phy)
}

/// C_i of seed 002 (eq. 1), `airqueue::link::wifi::rate::tcp_rate_bps`.
#[pyfunction]
#[pyo3(signature = (standard, rate_kbps, data_bytes, ack_bytes, segments_per_ack, rts_data, rts_ack, short_preamble, basic_kbps, slot_ns, sifs_ns, cw_min, cw_max))]
#[allow(clippy::too_many_arguments)]
fn wifi_tcp_rate(
    standard: &str,
    rate_kbps: u32,
    data_bytes: u32,
    ack_bytes: u32,
    segments_per_ack: u32,
    rts_data: bool,
    rts_ack: bool,
    short_preamble: bool,
    basic_kbps: Option<Vec<u32>>,
    slot_ns: Option<u64>,
    sifs_ns: Option<u64>,
    cw_min: Option<u32>,
    cw_max: Option<u32>,
) -> PyResult<f64> {
    use airqueue::link::wifi::rate::{tcp_rate_bps, TcpWorkload};
    let phy = wifi_phy(
        standard,
        short_preamble,
        basic_kbps,
        slot_ns,
        sifs_ns,
        cw_min,
        cw_max,
    )?;
    if !phy.has_rate(rate_kbps) {
        return Err(PyValueError::new_err(format!(
            "{rate_kbps} kbit/s is not a rate of {standard}; use one of {:?}",
            phy.standard.rates_kbps()
        )));
    }
    if segments_per_ack == 0 {
        return Err(PyValueError::new_err("segments_per_ack must be at least 1"));
    }
    let w = TcpWorkload {
        data_bytes,
        ack_bytes,
        segments_per_ack,
        rts_data,
        rts_ack,
    };
    Ok(tcp_rate_bps(&phy, rate_kbps, &w))
}

/// Air time (ns) of a PPDU carrying `bytes` of MPDU at `rate_kbps`.
#[pyfunction]
fn wifi_duration_ns(
    standard: &str,
    bytes: u32,
    rate_kbps: u32,
    short_preamble: bool,
) -> PyResult<u64> {
    let phy = wifi_phy(standard, short_preamble, None, None, None, None, None)?;
    if !phy.has_rate(rate_kbps) {
        return Err(PyValueError::new_err(format!(
            "{rate_kbps} kbit/s is not a rate of {standard}"
        )));
    }
    Ok(phy.duration(bytes, rate_kbps).0)
}

/// s^hops.
#[pyfunction]
fn channel_success_over_hops(per_hop_success: f64, hops: u32) -> f64 {
    channel::success_over_hops(per_hop_success, hops)
}

/// (P_good, P_bad) of a Gilbert-Elliott chain with mean sojourns `mean_good`, `mean_bad`.
#[pyfunction]
fn channel_ge_stationary(mean_good: f64, mean_bad: f64) -> (f64, f64) {
    channel::stationary(mean_good, mean_bad)
}

/// (1 − PER_G) P_g + (1 − PER_B) P_b.
#[pyfunction]
fn channel_ge_success(
    ber_good: f64,
    ber_bad: f64,
    mean_good: f64,
    mean_bad: f64,
    bits: f64,
) -> f64 {
    channel::expected_success(ber_good, ber_bad, mean_good, mean_bad, bits)
}

/// netem gemodel: (π_bad, loss rate, mean bad run in packets).
#[pyfunction]
fn channel_gemodel_stationary(p: f64, r: f64, loss_bad: f64, loss_good: f64) -> (f64, f64, f64) {
    let g = channel::GeModelParams {
        p,
        r,
        loss_bad,
        loss_good,
    };
    (g.stationary_bad(), g.loss_rate(), g.mean_bad_run())
}

fn modulation(name: &str) -> PyResult<channel::Modulation> {
    channel::Modulation::parse(name).map_err(PyValueError::new_err)
}

/// Effective BER of `modulation` at `snr_db`.
#[pyfunction]
fn channel_ber(modulation_name: &str, snr_db: f64) -> PyResult<f64> {
    Ok(modulation(modulation_name)?.ber(channel::db_to_ratio(snr_db)))
}

/// SNR in dB at which `modulation`'s BER falls to `ber`.
#[pyfunction]
fn channel_snr_for_ber(modulation_name: &str, ber: f64) -> PyResult<f64> {
    let m = modulation(modulation_name)?;
    Ok(10.0 * channel::snr_for_ber(m, ber).log10())
}

/// The modulation names.
#[pyfunction]
fn channel_modulations() -> Vec<String> {
    channel::Modulation::ALL.iter().map(|m| m.name()).collect()
}

#[pyfunction]
fn channel_friis_db(distance_m: f64, frequency_hz: f64) -> f64 {
    channel::friis_loss_db(distance_m, frequency_hz)
}

#[pyfunction]
fn channel_log_distance_db(
    distance_m: f64,
    reference_m: f64,
    reference_loss_db: f64,
    exponent: f64,
) -> f64 {
    channel::log_distance_loss_db(distance_m, reference_m, reference_loss_db, exponent)
}

#[pyfunction]
fn channel_noise_floor_dbm(bandwidth_hz: f64, noise_figure_db: f64) -> f64 {
    channel::noise_floor_dbm(bandwidth_hz, noise_figure_db)
}

/// Fraction of band a = [a_low, a_high) covered by band b (MHz).
#[pyfunction]
fn channel_overlap(a_low: f64, a_high: f64, b_low: f64, b_high: f64) -> f64 {
    let a = channel::Band {
        low_mhz: a_low,
        high_mhz: a_high,
    };
    let b = channel::Band {
        low_mhz: b_low,
        high_mhz: b_high,
    };
    channel::overlap_fraction(&a, &b)
}

#[pyfunction]
fn channel_bluetooth_hop(k: u8) -> (f64, f64) {
    let b = channel::Band::bluetooth_hop(k);
    (b.low_mhz, b.high_mhz)
}

#[pyfunction]
fn channel_wlan_11b(c: u8) -> (f64, f64) {
    let b = channel::Band::wlan_11b(c);
    (b.low_mhz, b.high_mhz)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(source_id, m)?)?;
    m.add_function(wrap_pyfunction!(default_max_memory, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(check_counts, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(prepare_toml, m)?)?;
    m.add_function(wrap_pyfunction!(resolved_toml, m)?)?;
    m.add_function(wrap_pyfunction!(live_open_tun, m)?)?;
    m.add_function(wrap_pyfunction!(live_hosts, m)?)?;
    m.add_function(wrap_pyfunction!(live_run, m)?)?;
    m.add_function(wrap_pyfunction!(live_bare_forward, m)?)?;
    m.add_function(wrap_pyfunction!(channel_per, m)?)?;
    m.add_function(wrap_pyfunction!(wifi_tcp_rate, m)?)?;
    m.add_function(wrap_pyfunction!(wifi_duration_ns, m)?)?;
    m.add_function(wrap_pyfunction!(channel_success_over_hops, m)?)?;
    m.add_function(wrap_pyfunction!(channel_ge_stationary, m)?)?;
    m.add_function(wrap_pyfunction!(channel_ge_success, m)?)?;
    m.add_function(wrap_pyfunction!(channel_gemodel_stationary, m)?)?;
    m.add_function(wrap_pyfunction!(channel_ber, m)?)?;
    m.add_function(wrap_pyfunction!(channel_snr_for_ber, m)?)?;
    m.add_function(wrap_pyfunction!(channel_modulations, m)?)?;
    m.add_function(wrap_pyfunction!(channel_friis_db, m)?)?;
    m.add_function(wrap_pyfunction!(channel_log_distance_db, m)?)?;
    m.add_function(wrap_pyfunction!(channel_noise_floor_dbm, m)?)?;
    m.add_function(wrap_pyfunction!(channel_overlap, m)?)?;
    m.add_function(wrap_pyfunction!(channel_bluetooth_hop, m)?)?;
    m.add_function(wrap_pyfunction!(channel_wlan_11b, m)?)?;
    Ok(())
}
