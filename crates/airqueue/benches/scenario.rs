//! Whole-scenario benchmarks: build a simulation from a scenario, then time `run()`.
//!
//! Each iteration runs a freshly built simulation to its stop time; building (topology,
//! routes, RNG streams) happens outside the timed region, and the run's results are dropped
//! outside it too. Throughput is `Throughput::Elements(events)`, so criterion's `thrpt` line
//! is simulated events per wall-clock second, and `time` is the wall time of one run.
//!
//! - `udp_bottleneck`: `scenarios/examples/udp-bottleneck.toml` (5 UDP flows, 20 s).
//! - `chain_50_flows`: 25 CBR + 25 Poisson flows through a 3-router chain with a 100 Mbit
//!   core, offered 120 Mbit (10 s), built in `common/mod.rs` as a TOML string.
//! - `tcp_dumbbell`: `scenarios/examples/dumbbell.toml` (10 NewReno bulk flows, 10 Mbit, 60 s),
//!   the workload we compare with ns-3.
//! - `tcp_dumbbell_1gbit`: the same with a 1 Gbit bottleneck (10 Gbit access, pfifo 1000,
//!   8 MiB receive windows so that cwnd, not rwnd, limits the flows), 10 s.
//! - `tcp_dumbbell_1gbit_1000_flows`: the same with 1 000 bulk flows (issue 18: events/s
//!   and memory with many flows).
//! - `bluetooth_piconet_2`: `scenarios/bluetooth-tcp/piconet-2-ppl.toml` (seed 001: two
//!   slaves, TCP NewReno through the master, token bucket, E-limited M = 5, 480 s).
//! - `wifi_saturated_10`, `wifi_saturated_100`: `scenarios/bench/wifi-saturated-*.toml`, an
//!   802.11b cell of 10 or 100 saturated stations (10 Mbit offered in all, 20 s).
//! - `build/star_10000`: `Simulation::build` of a 10 000-host star (one hub, a link per
//!   host, one flow): interfaces, media, root queues and routes. Hosts keep default
//!   routes, so only the hub has a routing row (issue 10: well under a second).

mod common;

use airqueue::scenario::{load_toml_str, Scenario};
use airqueue::sim::{BuildOptions, Simulation};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::time::Duration;

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

fn scenarios(c: &mut Criterion) {
    for (name, text) in common::all() {
        bench_scenario(c, name, &text);
    }
}

/// A star of `n` hosts around one router, one flow across it.
fn star(n: usize) -> String {
    let mut s =
        String::from("[run]\nduration = \"1s\"\n[[nodes]]\nname = \"hub\"\nkind = \"router\"\n");
    for i in 0..n {
        s += &format!("[[nodes]]\nname = \"h{i}\"\n");
    }
    for i in 0..n {
        s += &format!(
            "[[links]]\nname = \"l{i}\"\nbetween = [\"hub\", \"h{i}\"]\nrate = \"100Mbit\"\ndelay = \"1ms\"\n"
        );
    }
    s + "[[flows]]\nname = \"x\"\nfrom = \"h0\"\nto = \"h1\"\napp = { kind = \"cbr\", size = 972, interval = \"1ms\" }\n"
}

fn build_star(c: &mut Criterion) {
    let s = load_toml_str(&star(10_000)).expect("the star is valid");
    let mut g = c.benchmark_group("build");
    g.bench_function("star_10000", |b| b.iter(|| build(&s)));
    g.finish();
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
    targets = scenarios, build_star
}
criterion_main!(benches);
