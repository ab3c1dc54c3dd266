//! Whole-scenario benchmarks: build a simulation from a scenario, then time `run()`.
//!
//! Each iteration runs a freshly built simulation to its stop time; building (topology,
//! routes, RNG streams) happens outside the timed region, and the run's results are dropped
//! outside it too. Throughput is `Throughput::Elements(events)`, so criterion's `thrpt` line
//! is simulated events per wall-clock second, and `time` is the wall time of one run.
//!
//! - `udp_bottleneck`: `scenarios/examples/udp-bottleneck.toml` (5 UDP flows, 20 s).
//! - `chain_50_flows`: 25 CBR + 25 Poisson flows through a 3-router chain with a 100 Mbit
//!   core, offered 120 Mbit (10 s), built below as a TOML string.
//! - `tcp_dumbbell`: `scenarios/examples/dumbbell.toml` (10 NewReno bulk flows, 10 Mbit, 60 s),
//!   the workload we compare with ns-3.
//! - `tcp_dumbbell_1gbit`: the same with a 1 Gbit bottleneck (10 Gbit access, pfifo 1000,
//!   8 MiB receive windows so that cwnd, not rwnd, limits the flows), 10 s.

use airqueue::scenario::{load_toml_str, Scenario};
use airqueue::sim::{BuildOptions, Simulation};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::time::Duration;

const UDP_BOTTLENECK: &str = include_str!("../../../scenarios/examples/udp-bottleneck.toml");
const DUMBBELL: &str = include_str!("../../../scenarios/examples/dumbbell.toml");

/// The dumbbell with every rate scaled up: `airqueue bench … --set
/// links.bottleneck.rate=1Gbit --set links.access.rate=10Gbit --set
/// qdiscs.router.bottleneck.limit=1000 --set flows.bulk.transport.rcv_buffer=8MiB`.
fn dumbbell_1gbit() -> String {
    let edits = [
        ("duration = \"60s\"", "duration = \"10s\""),
        ("rate = \"100Mbit\"", "rate = \"10Gbit\""),
        ("rate = \"10Mbit\"", "rate = \"1Gbit\""),
        ("limit = 100\n", "limit = 1000\n"),
        ("mss = 1448 }", "mss = 1448, rcv_buffer = \"8MiB\" }"),
    ];
    let mut text = DUMBBELL.to_string();
    for (from, to) in edits {
        assert_eq!(
            text.matches(from).count(),
            1,
            "dumbbell.toml changed: {from}"
        );
        text = text.replace(from, to);
    }
    text
}

/// 50 flows from `src` to `dst` over src —1G— r0 —100M— r1 —100M— r2 —1G— dst.
/// 25 CBR flows at 2.4 Mbit and 25 Poisson flows at 2.4 Mbit offer 120 Mbit to a 100 Mbit
/// core, so r0's 1000-packet pfifo fills and tail-drops, as in a loaded network.
const CHAIN_50_FLOWS: &str = r#"
description = "Benchmark: 50 UDP flows through a 3-router chain with a 100 Mbit core."

[run]
duration = "10s"
warmup = "1s"
seed = 1
sample_interval = "100ms"

[[nodes]]
name = "src"
[[nodes]]
name = "r{i}"
count = 3
kind = "router"
[[nodes]]
name = "dst"

[[links]]
name = "edge_in"
between = ["src", "r0"]
rate = "1Gbit"
delay = "100us"

[[links]]
name = "core0"
between = ["r0", "r1"]
rate = "100Mbit"
delay = "5ms"

[[links]]
name = "core1"
between = ["r1", "r2"]
rate = "100Mbit"
delay = "5ms"

[[links]]
name = "edge_out"
between = ["r2", "dst"]
rate = "1Gbit"
delay = "100us"

[[qdiscs]]
dev = "r0.core0"
kind = "pfifo"
limit = 1000

[[flows]]
name = "cbr{i}"
count = 25
from = "src"
to = "dst"
start_spacing = "1ms"
app = { kind = "cbr", size = 1172, rate = "2.4Mbit" }

[[flows]]
name = "poisson{i}"
count = 25
from = "src"
to = "dst"
start = "500us"
start_spacing = "1ms"
app = { kind = "poisson", size = 972, rate = "2.4Mbit" }
"#;

fn build(s: &Scenario) -> Simulation {
    Simulation::build(s, BuildOptions::default()).expect("benchmark scenario builds")
}

/// Events one run processes (the same in every run: the simulation is deterministic).
fn events_per_run(s: &Scenario) -> u64 {
    let mut sim = build(s);
    sim.run();
    sim.events_processed()
}

fn bench_scenario(c: &mut Criterion, name: &str, text: &str) {
    let s = load_toml_str(text).expect("benchmark scenario is valid");
    let events = events_per_run(&s);
    let mut g = c.benchmark_group("scenario");
    g.throughput(Throughput::Elements(events));
    g.bench_function(format!("{name}/{events}_events"), |b| {
        b.iter_batched(
            || build(&s),
            |mut sim| {
                sim.run();
                debug_assert_eq!(sim.events_processed(), events);
                sim
            },
            BatchSize::PerIteration,
        );
    });
    g.finish();
}

fn udp_bottleneck(c: &mut Criterion) {
    bench_scenario(c, "udp_bottleneck", UDP_BOTTLENECK);
}

fn chain_50_flows(c: &mut Criterion) {
    bench_scenario(c, "chain_50_flows", CHAIN_50_FLOWS);
}

fn tcp_dumbbell(c: &mut Criterion) {
    bench_scenario(c, "tcp_dumbbell", DUMBBELL);
}

fn tcp_dumbbell_1gbit(c: &mut Criterion) {
    bench_scenario(c, "tcp_dumbbell_1gbit", &dumbbell_1gbit());
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
}

criterion_group! {
    name = benches;
    config = config();
    targets = udp_bottleneck, chain_50_flows, tcp_dumbbell, tcp_dumbbell_1gbit
}
criterion_main!(benches);
