//! Shared helpers of the reference tests: a small builder that writes scenarios as TOML
//! text (so every test shows the exact scenario it runs), runners, row accessors, and the
//! closed forms the tests compare against.
//!
//! The closed forms here are written independently of the core (integer arithmetic from
//! the definitions), so that a test compares the simulator with a reference, not with
//! itself.

#![allow(dead_code)] // each test file uses a different subset

use airqueue::metrics::{Column, Table};
use airqueue::qdisc::Qdisc;
use airqueue::scenario::{load_toml_str, Scenario};
use airqueue::sim::{BuildOptions, RunResults, Simulation};
use std::fmt::Write as _;

/// IPv4 (20 B) + UDP (8 B) headers added to every UDP payload on the wire.
pub const UDP_IP_HEADERS: u64 = 28;

/// Nanoseconds per second.
pub const NS: u64 = 1_000_000_000;

/// A scenario under construction, kept as TOML text.
#[derive(Clone, Debug)]
pub struct ScenarioToml {
    run: String,
    nodes: Vec<String>,
    links: String,
    qdiscs: String,
    routes: String,
    flows: String,
}

impl ScenarioToml {
    /// A scenario that runs for `duration` (e.g. `"10s"`), seed 1, no warm-up.
    pub fn new(duration: &str) -> Self {
        ScenarioToml {
            run: format!("duration = \"{duration}\"\n"),
            nodes: Vec::new(),
            links: String::new(),
            qdiscs: String::new(),
            routes: String::new(),
            flows: String::new(),
        }
    }

    /// Adds `key = value` (value written as TOML) to `[run]`.
    pub fn run_key(mut self, key: &str, value: &str) -> Self {
        writeln!(self.run, "{key} = {value}").unwrap();
        self
    }

    pub fn warmup(self, warmup: &str) -> Self {
        self.run_key("warmup", &format!("\"{warmup}\""))
    }

    pub fn seed(self, seed: u64) -> Self {
        self.run_key("seed", &seed.to_string())
    }

    pub fn sample_interval(self, interval: &str) -> Self {
        self.run_key("sample_interval", &format!("\"{interval}\""))
    }

    pub fn nodes(mut self, names: &[&str]) -> Self {
        self.nodes.extend(names.iter().map(|s| s.to_string()));
        self
    }

    /// A link `name` between `a` and `b`; `extra` is more TOML (`overhead = 38`, `impairment = {…}`).
    pub fn link(
        mut self,
        name: &str,
        a: &str,
        b: &str,
        rate: &str,
        delay: &str,
        extra: &str,
    ) -> Self {
        writeln!(
            self.links,
            "[[links]]\nname = \"{name}\"\nbetween = [\"{a}\", \"{b}\"]\nrate = \"{rate}\"\ndelay = \"{delay}\"\n{extra}\n"
        )
        .unwrap();
        self
    }

    /// A pfifo with `limit` packets on egress interface `dev` (`<node>.<link>`).
    pub fn pfifo(mut self, dev: &str, limit: u64) -> Self {
        writeln!(
            self.qdiscs,
            "[[qdiscs]]\ndev = \"{dev}\"\nkind = \"pfifo\"\nlimit = {limit}\n"
        )
        .unwrap();
        self
    }

    /// Any root qdisc on `dev`: `conf` is the TOML after `dev` (`kind = "bfifo"\nlimit = 30000`).
    pub fn qdisc(mut self, dev: &str, conf: &str) -> Self {
        writeln!(self.qdiscs, "[[qdiscs]]\ndev = \"{dev}\"\n{conf}\n").unwrap();
        self
    }

    /// A static route: at `node`, traffic for `to` leaves over link `via`.
    pub fn route(mut self, node: &str, to: &str, via: &str) -> Self {
        writeln!(
            self.routes,
            "[[routes]]\nnode = \"{node}\"\nto = \"{to}\"\nvia = \"{via}\"\n"
        )
        .unwrap();
        self
    }

    /// A flow; `app` is the TOML inline table of the application, `extra` more keys (`stop = "9s"`).
    pub fn flow(mut self, name: &str, from: &str, to: &str, app: &str, extra: &str) -> Self {
        writeln!(
            self.flows,
            "[[flows]]\nname = \"{name}\"\nfrom = \"{from}\"\nto = \"{to}\"\napp = {app}\n{extra}\n"
        )
        .unwrap();
        self
    }

    pub fn toml(&self) -> String {
        let mut s = format!("[run]\n{}\n", self.run);
        for n in &self.nodes {
            writeln!(s, "[[nodes]]\nname = \"{n}\"\n").unwrap();
        }
        s.push_str(&self.links);
        s.push_str(&self.qdiscs);
        s.push_str(&self.routes);
        s.push_str(&self.flows);
        s
    }

    pub fn load(&self) -> Scenario {
        let text = self.toml();
        load_toml_str(&text).unwrap_or_else(|e| panic!("scenario does not load: {e}\n{text}"))
    }

    pub fn run(&self) -> RunResults {
        run_scenario(&self.load(), BuildOptions::default())
    }
}

/// CBR application with a fixed interval (`"1ms"`, `"400001ns"`).
pub fn cbr_interval(payload: u64, interval: &str) -> String {
    format!("{{ kind = \"cbr\", size = {payload}, interval = \"{interval}\" }}")
}

/// CBR application at a payload rate (`"7.776Mbit"`).
pub fn cbr_rate(payload: u64, rate: &str) -> String {
    format!("{{ kind = \"cbr\", size = {payload}, rate = \"{rate}\" }}")
}

/// Poisson application with mean inter-arrival time `interval`.
pub fn poisson_interval(payload: u64, interval: &str) -> String {
    format!("{{ kind = \"poisson\", size = {payload}, interval = \"{interval}\" }}")
}

/// Builds, runs and collects; panics with the problems if the build fails.
pub fn run_scenario(s: &Scenario, opts: BuildOptions) -> RunResults {
    let mut sim = Simulation::build(s, opts).unwrap_or_else(|e| panic!("build failed: {e}"));
    sim.run();
    sim.results()
}

/// Runs with one qdisc replaced (`dev` = `<node>.<link>`).
pub fn run_with_qdisc(s: &Scenario, dev: &str, q: Box<dyn Qdisc>) -> RunResults {
    run_scenario(
        s,
        BuildOptions {
            seed: None,
            qdisc_overrides: vec![(dev.to_string(), q)],
            ..Default::default()
        },
    )
}

/// Runs with another seed.
pub fn run_seed(s: &Scenario, seed: u64) -> RunResults {
    run_scenario(
        s,
        BuildOptions {
            seed: Some(seed),
            ..Default::default()
        },
    )
}

/// One row of a result table.
pub struct Row<'a> {
    pub table: &'a Table,
    pub index: usize,
}

impl Row<'_> {
    pub fn u(&self, col: &str) -> u64 {
        self.table.u64s(col)[self.index]
    }
    pub fn f(&self, col: &str) -> f64 {
        self.table.f64s(col)[self.index]
    }
}

/// The flow-table row of flow `name`.
pub fn flow<'a>(r: &'a RunResults, name: &str) -> Row<'a> {
    let index = r
        .flows
        .row_of("flow", name)
        .unwrap_or_else(|| panic!("no flow {name}"));
    Row {
        table: &r.flows,
        index,
    }
}

/// The queue-table row of the qdisc on interface `dev` (`<node>.<link>`).
pub fn queue<'a>(r: &'a RunResults, dev: &str) -> Row<'a> {
    let index = r
        .queues
        .row_of("dev", dev)
        .unwrap_or_else(|| panic!("no queue on {dev}"));
    Row {
        table: &r.queues,
        index,
    }
}

/// A delay reported in milliseconds, back in whole nanoseconds.
pub fn ms_to_ns(ms: f64) -> u64 {
    let ns = (ms * 1e6).round();
    assert!(
        ns >= 0.0 && (ms * 1e6 - ns).abs() < 1e-3,
        "{ms} ms is not a whole number of ns"
    );
    ns as u64
}

/// Reference serialization time: ⌈bytes · 8 · 10⁹ / rate⌉ ns (a transmitter cannot finish early).
pub fn serialization_ns(bytes: u64, rate_bps: u64) -> u64 {
    let bits_ns = bytes as u128 * 8 * NS as u128;
    bits_ns.div_ceil(rate_bps as u128) as u64
}

/// Number of instants `start + k·interval` (k ≥ 0) strictly before `end`.
pub fn instants_before(start: u64, interval: u64, end: u64) -> u64 {
    if start >= end {
        0
    } else {
        (end - 1 - start) / interval + 1
    }
}

/// Asserts packet conservation as the run reports it: the summary flag, the check itself,
/// no error line, and sent + duplicated + created = delivered + consumed + Σ dropped + in
/// flight recomputed here (created and consumed: a striping trunk's control packets and
/// retransmissions).
pub fn assert_conserved(r: &RunResults) {
    let p = &r.summary.packets;
    let dropped: u64 = p.dropped.values().sum();
    assert!(p.errors.is_empty(), "conservation errors: {:?}", p.errors);
    assert!(
        p.ok && r.summary.conservation_ok,
        "conservation not ok: {p:?}"
    );
    assert_eq!(
        p.sent + p.duplicated + p.created,
        p.delivered + p.consumed + dropped + p.in_flight,
        "{p:?}"
    );
    let json = r.summary.to_json();
    assert!(json.contains("\"conservation_ok\": true"), "{json}");
    assert!(json.contains("\"in_flight\""), "{json}");
}

/// Values of one time series (`metric` of the flow or queue `name`), in time order.
pub fn series(t: &Table, name: &str, metric: &str) -> Vec<(f64, f64)> {
    let cat = |col: &str| match t.column(col) {
        Some(Column::Cat { codes, categories }) => (codes.clone(), categories.clone()),
        other => panic!("column {col} is not categorical: {other:?}"),
    };
    let (names, name_cats) = cat("name");
    let (metrics, metric_cats) = cat("metric");
    let time = t.f64s("time_s");
    let value = t.f64s("value");
    (0..t.rows())
        .filter(|&i| {
            name_cats[names[i] as usize] == name && metric_cats[metrics[i] as usize] == metric
        })
        .map(|i| (time[i], value[i]))
        .collect()
}

/// Whether two tables are identical column by column, bit for bit (NaN equals NaN).
pub fn assert_tables_identical(what: &str, a: &Table, b: &Table) {
    let names = |t: &Table| t.columns.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(a), names(b), "{what}: columns differ");
    for ((name, ca), (_, cb)) in a.columns.iter().zip(&b.columns) {
        match (ca, cb) {
            (Column::F64(x), Column::F64(y)) => {
                let bx: Vec<u64> = x.iter().map(|v| v.to_bits()).collect();
                let by: Vec<u64> = y.iter().map(|v| v.to_bits()).collect();
                assert!(bx == by, "{what}: column {name} differs");
            }
            _ => assert!(ca == cb, "{what}: column {name} differs"),
        }
    }
}

/// The master's TDD timeline is covered exactly once: over the counted span, the slots of
/// data frames (each half a packet or a POLL/NULL slot) plus two per POLL/NULL frame add
/// up to the span, to within the frames in flight at its ends.
pub fn assert_tdd_timeline_covered(r: &RunResults, span_s: f64) {
    let t = &r
        .more
        .iter()
        .find(|(n, _)| n == "piconet_links")
        .expect("piconet_links")
        .1;
    let sum = |c: &str| t.u64s(c).iter().sum::<u64>();
    let frames = sum("data_frames");
    let slots = sum("down_slots")
        + sum("up_slots")
        + (frames - sum("down_sent"))
        + (frames - sum("up_sent"))
        + 2 * sum("poll_null_frames");
    let expect = span_s / 625e-6;
    assert!(
        (slots as f64 - expect).abs() <= 10.0,
        "{slots} slots in {expect}"
    );
}

/// ns-3 3.37's wifi-hidden-terminal topology (`tools/ns3/wifi_hidden`) as airqueue writes
/// it: an ad hoc cell a, b, c; a and c send saturated UDP (1472-B datagrams at the PHY
/// rate) to b; `hidden`: a and c do not hear each other (`hears` lists a–b and b–c only),
/// else all three do. `cell_keys` are more lines of the cell (e.g. `capture = "sinr"`).
pub fn ns3_triangle(
    standard: &str,
    rate: &str,
    hidden: bool,
    rts: bool,
    cell_keys: &str,
    seed: u64,
) -> String {
    let mut s = format!(
        "[run]\nduration = \"10s\"\nwarmup = \"1s\"\nseed = {seed}\n\
         [[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[nodes]]\nname = \"c\"\n\
         [[cells]]\nname = \"w\"\nmode = \"adhoc\"\nstandard = \"{standard}\"\nrate = \"{rate}\"\n\
         {cell_keys}stations = [{{ node = \"a\" }}, {{ node = \"b\" }}, {{ node = \"c\" }}]\n"
    );
    if rts {
        s += "rts_threshold = 500\n";
    }
    if hidden {
        s += "[propagation]\nhears = [[\"a\", \"b\"], [\"b\", \"c\"]]\n";
    }
    for from in ["a", "c"] {
        s += &format!(
            "[[flows]]\nname = \"{from}\"\nfrom = \"{from}\"\nto = \"b\"\n\
             app = {{ kind = \"cbr\", size = 1472, rate = \"{rate}\" }}\n"
        );
    }
    s
}

/// The extra result table `name` of a run (`RunResults::more`; panics naming it if absent).
pub fn table<'a>(r: &'a RunResults, name: &str) -> &'a Table {
    &r.more
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name} table"))
        .1
}

/// The text column `c` of `t` (panics naming it if absent or not text).
pub fn strs(t: &Table, c: &str) -> Vec<String> {
    match t.column(c) {
        Some(Column::Str(v)) => v.clone(),
        _ => panic!("no text column {c}"),
    }
}
