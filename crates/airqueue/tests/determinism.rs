//! Determinism (ARCHITECTURE.md, "Contracts"): events are ordered by (time, insertion
//! sequence) and every component draws from its own stream derived from (run seed, stable
//! component name), so a scenario and a seed determine the results bit for bit, and adding
//! a flow does not change another flow's random draws.

mod common;

use airqueue::sim::RunResults;
use common::*;

const EXAMPLE: &str = include_str!("../../../scenarios/examples/udp-bottleneck.toml");

/// A scenario that uses every random component of the core: Poisson and exponential on/off
/// sources, Bernoulli loss and uniform jitter, and a congested pfifo.
fn every_random_component() -> ScenarioToml {
    ScenarioToml::new("5s")
        .warmup("500ms")
        .nodes(&["sender", "router", "receiver"])
        .link("access", "sender", "router", "100Mbit", "1ms", "")
        .link(
            "bottleneck",
            "router",
            "receiver",
            "5Mbit",
            "10ms",
            "impairment = { loss = 0.02, delay = \"2ms\", jitter = \"1ms\" }",
        )
        .pfifo("router.bottleneck", 30)
        .flow(
            "poisson",
            "sender",
            "receiver",
            &poisson_interval(972, "1ms"),
            "",
        )
        .flow(
            "onoff",
            "sender",
            "receiver",
            "{ kind = \"onoff\", size = 500, rate = \"4Mbit\", on = \"50ms\", off = \"50ms\" }",
            "",
        )
        .flow(
            "cbr",
            "sender",
            "receiver",
            &cbr_rate(1172, "1Mbit"),
            "start = \"30ms\"",
        )
}

/// The summary as JSON without the `timing` object (wall-clock time, the only part of a
/// result allowed to differ between identical runs).
fn summary_json_without_timing(r: &RunResults) -> String {
    let mut s = r.summary.clone();
    s.timing.wall_seconds = 0.0;
    s.timing.events_per_second = 0.0;
    s.to_json()
}

fn assert_identical_runs(what: &str, a: &RunResults, b: &RunResults) {
    assert_tables_identical(&format!("{what}: flows"), &a.flows, &b.flows);
    assert_tables_identical(&format!("{what}: queues"), &a.queues, &b.queues);
    assert_tables_identical(&format!("{what}: timeseries"), &a.timeseries, &b.timeseries);
    assert_eq!(
        summary_json_without_timing(a),
        summary_json_without_timing(b),
        "{what}: summary"
    );
}

/// Reference: the determinism contract. Two runs of the same scenario with the same seed
/// give identical flow, queue and time-series tables (every column, bit for bit) and the
/// same summary JSON apart from `timing`. Tolerance: none.
#[test]
fn same_scenario_and_seed_give_bit_identical_results() {
    let example = airqueue::scenario::load_toml_str(EXAMPLE).unwrap();
    let s = every_random_component().load();
    for (what, sc) in [
        ("udp-bottleneck example", &example),
        ("random components", &s),
    ] {
        let a = run_scenario(sc, Default::default());
        let b = run_scenario(sc, Default::default());
        assert!(a.summary.packets.sent > 0 && a.timeseries.rows() > 0);
        assert_identical_runs(what, &a, &b);
        // An explicit seed equal to the scenario's is the same run.
        let c = run_seed(sc, sc.run.seed);
        assert_identical_runs(what, &a, &c);
        eprintln!(
            "{what}: two runs identical ({} events, {} packets sent, {} time-series rows)",
            a.summary.events,
            a.summary.packets.sent,
            a.timeseries.rows()
        );
    }
}

/// Reference: the seed is an input: another seed draws other Poisson inter-arrival times,
/// so the Poisson flow sends another number of packets and sees other delays; the CBR
/// flow's sending schedule has no randomness and is unchanged. Tolerance: none.
#[test]
fn a_different_seed_changes_a_poisson_flows_results() {
    let s = airqueue::scenario::load_toml_str(EXAMPLE).unwrap();
    let a = run_seed(&s, 1);
    let b = run_seed(&s, 2);
    let (pa, pb) = (flow(&a, "poisson0"), flow(&b, "poisson0"));
    eprintln!(
        "poisson0: seed 1 sent {} mean delay {} ms; seed 2 sent {} mean delay {} ms",
        pa.u("tx_packets"),
        pa.f("delay_mean_ms"),
        pb.u("tx_packets"),
        pb.f("delay_mean_ms")
    );
    assert_ne!(pa.u("tx_packets"), pb.u("tx_packets"));
    assert_ne!(
        pa.f("delay_mean_ms").to_bits(),
        pb.f("delay_mean_ms").to_bits()
    );
    assert_eq!(
        flow(&a, "cbr0").u("tx_packets"),
        flow(&b, "cbr0").u("tx_packets")
    );
    assert_eq!(a.summary.seed, 1);
    assert_eq!(b.summary.seed, 2);
}

/// A lossy, jittery 100 Mbit link carrying flow A (972 B every 1 ms from t = 0), and with
/// `with_b` also flow B (every 1 ms from t = 0.5 ms), declared *before* A so that A's index
/// changes too. A transmission takes 80 µs, so the two never meet in the transmitter.
fn lossy_link(with_b: bool) -> ScenarioToml {
    let s = ScenarioToml::new("20s")
        .nodes(&["sender", "receiver"])
        .link(
            "lossy",
            "sender",
            "receiver",
            "100Mbit",
            "5ms",
            "impairment = { loss = 0.1, delay = \"2ms\", jitter = \"1ms\" }",
        );
    let s = if with_b {
        s.flow(
            "B",
            "sender",
            "receiver",
            &cbr_interval(972, "1ms"),
            "start = \"500us\"",
        )
    } else {
        s
    };
    s.flow("A", "sender", "receiver", &cbr_interval(972, "1ms"), "")
}

/// Reference: the per-flow random streams of the impairment (named by link, direction and
/// flow). Adding flow B (no congestion) leaves every column of A's row identical — its
/// `drops_impairment`, `rx_packets` and delays — and A's per-interval throughput series,
/// i.e. A's loss and jitter pattern. Tolerance: none (bit-identical).
#[test]
fn adding_a_flow_does_not_change_another_flows_random_losses() {
    let alone = lossy_link(false).run();
    let shared = lossy_link(true).run();
    let (a1, a2) = (flow(&alone, "A"), flow(&shared, "A"));
    eprintln!(
        "flow A alone: {} lost, {} received; with B: {} lost, {} received (B lost {})",
        a1.u("drops_impairment"),
        a1.u("rx_packets"),
        a2.u("drops_impairment"),
        a2.u("rx_packets"),
        flow(&shared, "B").u("drops_impairment")
    );
    assert!(a1.u("drops_impairment") > 1000);
    for (name, _) in &alone.flows.columns {
        match name.as_str() {
            "flow" | "from" | "to" | "transport" | "app" => {}
            col => assert_eq!(
                a1.f(col).to_bits(),
                a2.f(col).to_bits(),
                "column {col} of flow A changed when B was added: {} vs {}",
                a1.f(col),
                a2.f(col)
            ),
        }
    }
    let s1 = series(&alone.timeseries, "A", "throughput_bps");
    let s2 = series(&shared.timeseries, "A", "throughput_bps");
    assert_eq!(s1.len(), 200);
    assert_eq!(s1, s2);
    // B is no copy of A: its own stream loses other packets.
    assert_ne!(
        flow(&shared, "B").u("drops_impairment"),
        a2.u("drops_impairment")
    );
    assert_conserved(&shared);
}
