//! netem's options beyond delay, uniform jitter and Bernoulli loss on a wired link, end to
//! end: `duplicate`, `corrupt`, `reorder` (with `gap`), the delay `distribution` tables,
//! checked against the statistics tc-netem(8) and `sch_netem.c` define; and asymmetric
//! links (a rate, delay and impairment per direction).

mod common;

use common::*;

/// 972 B payload (1000 B on the wire) every 100 µs for 20 s (200 000 packets) over one
/// 100 Mbit / 1 ms link with `impairment`.
fn netem_link(impairment: &str) -> airqueue::scenario::Scenario {
    ScenarioToml::new("20.1s")
        .nodes(&["sender", "receiver"])
        .link(
            "netem",
            "sender",
            "receiver",
            "100Mbit",
            "1ms",
            &format!("impairment = {impairment}"),
        )
        .flow(
            "cbr",
            "sender",
            "receiver",
            &cbr_interval(972, "100us"),
            "stop = \"20s\"",
        )
        .load()
}

/// |k − n·p| within the binomial 99.9 % bound.
fn assert_binomial(k: f64, n: f64, p: f64, what: &str) {
    let sd = (n * p * (1.0 - p)).sqrt();
    let z = (k - n * p) / sd;
    eprintln!("{what}: {k} of {n}, expected {:.1}, z = {z:+.2}", n * p);
    assert!(z.abs() <= 3.29, "{what}: {k} vs {}", n * p);
}

/// Reference: tc-netem(8) `duplicate 10%`: each packet is sent twice with probability
/// 0.1; the copy is a new packet in the ledger, so the receiver gets ≈ 1.1 × n and the
/// conservation check counts the copies.
#[test]
fn duplicate_sends_the_asked_share_twice_and_conservation_counts_the_copies() {
    let r = run_seed(&netem_link("{ duplicate = \"10%\" }"), 1);
    let f = flow(&r, "cbr");
    let n = f.u("tx_packets") as f64;
    let extra = f.u("rx_packets") as f64 - n;
    assert_binomial(extra, n, 0.1, "duplicates");
    assert_conserved(&r);
    assert_eq!(r.summary.packets.duplicated as f64, extra);
}

/// Reference: `sch_netem.c` `netem_enqueue`: a loss takes one copy away (`--count`), so a
/// duplicated packet that draws a loss still goes once, and the re-enqueued copy meets
/// the loss again. With duplicate d and loss l the receiver gets, per packet,
/// (1−d)(1−l) + d·l + d(1−l)(2 − l).
#[test]
fn a_loss_takes_one_copy_of_a_duplicated_packet() {
    let (d, l) = (0.2, 0.1);
    let r = run_seed(&netem_link("{ duplicate = 0.2, loss = 0.1 }"), 2);
    let f = flow(&r, "cbr");
    let n = f.u("tx_packets") as f64;
    let per_packet = (1.0 - d) * (1.0 - l) + d * l + d * (1.0 - l) * (2.0 - l);
    let got = f.u("rx_packets") as f64 / n;
    eprintln!("delivered per packet {got:.4}, netem's rule {per_packet:.4}");
    // A sum of n bounded per-packet counts: sd ≤ √(n·0.5); 99.9 % bound.
    assert!((got - per_packet).abs() * n <= 3.29 * (n * 0.5).sqrt());
    assert_conserved(&r);
}

/// Reference: tc-netem(8) `corrupt 5%`: 5 % of packets get a bit flipped and the
/// receiver's checksum discards them (counted as `impairment` drops).
#[test]
fn corrupt_discards_the_asked_share() {
    let r = run_seed(&netem_link("{ corrupt = \"5%\" }"), 3);
    let f = flow(&r, "cbr");
    let n = f.u("tx_packets") as f64;
    assert_binomial(f.u("drops_impairment") as f64, n, 0.05, "corrupted");
    assert_eq!(f.u("rx_packets") + f.u("drops_impairment"), n as u64);
    assert_conserved(&r);
}

/// Reference: tc-netem(8) `delay 10ms reorder 25%`: 25 % of packets are sent at once, the
/// rest after 10 ms; the mean one-way delay is then the link's 1 ms + 80 µs of
/// serialization + 0.75 × 10 ms, and the early packets overtake (the minimum delay is the
/// link's own).
#[test]
fn reorder_sends_the_asked_share_without_the_delay() {
    let r = run_seed(&netem_link("{ delay = \"10ms\", reorder = \"25%\" }"), 4);
    let f = flow(&r, "cbr");
    let base_ms = 1.0 + 0.08;
    let want = base_ms + 0.75 * 10.0;
    let mean = f.f("delay_mean_ms");
    // The share sent at once is binomial: sd of the mean = 10 ms·√(p(1−p)/n).
    let n = f.u("rx_packets") as f64;
    let tol = 3.29 * 10.0 * (0.25f64 * 0.75 / n).sqrt();
    eprintln!("mean delay {mean:.4} ms, expected {want:.4} ± {tol:.4}");
    assert!((mean - want).abs() <= tol + 0.001);
    assert!((f.f("delay_min_ms") - base_ms).abs() < 0.01);
    assert_eq!(f.u("rx_packets"), f.u("tx_packets"));
    assert_conserved(&r);
}

/// Reference: tc-netem(8) `delay 20ms 5ms distribution normal`: iproute2's normal table
/// scaled by the jitter; the delay's median is the mean (20 ms, plus the link's 1.08 ms)
/// and its 99th percentile is 2.326 σ above (floored at zero, which N(20, 5) never
/// reaches in practice).
#[test]
fn the_normal_distribution_gives_normal_delays() {
    let r = run_seed(
        &netem_link("{ delay = \"20ms\", jitter = \"5ms\", distribution = \"normal\" }"),
        5,
    );
    let f = flow(&r, "cbr");
    let base = 1.08;
    let (p50, p99) = (f.f("delay_p50_ms"), f.f("delay_p99_ms"));
    eprintln!("p50 {p50:.3} ms, p99 {p99:.3} ms");
    assert!((p50 - (base + 20.0)).abs() < 0.2, "p50 {p50}");
    assert!((p99 - (base + 20.0 + 2.326 * 5.0)).abs() < 0.4, "p99 {p99}");
    assert_conserved(&r);
}

/// Reference: iproute2 `q_netem.c` refuses reordering without a delay, a gap without a
/// reorder probability and a distribution without jitter; the scenario's validation names
/// the field.
#[test]
fn netem_combinations_iproute2_refuses_are_rejected_with_the_field() {
    for (imp, field) in [
        ("{ reorder = \"25%\" }", "impairment.reorder"),
        ("{ delay = \"1ms\", gap = 5 }", "impairment.gap"),
        (
            "{ delay = \"1ms\", distribution = \"pareto\" }",
            "impairment.distribution",
        ),
        (
            "{ loss_correlation = \"25%\" }",
            "impairment.loss_correlation",
        ),
    ] {
        let text = ScenarioToml::new("1s")
            .nodes(&["a", "b"])
            .link(
                "l",
                "a",
                "b",
                "10Mbit",
                "1ms",
                &format!("impairment = {imp}"),
            )
            .toml();
        let err = airqueue::scenario::load_toml_str(&text).expect_err(imp);
        assert!(err.to_string().contains(field), "{imp}: {err}");
    }
}

/// 1000 B on the wire every 10 ms over one 100 Mbit / 1 ms link with `impairment`.
fn sparse_link(impairment: &str, interval: &str) -> airqueue::scenario::Scenario {
    ScenarioToml::new("10.5s")
        .nodes(&["sender", "receiver"])
        .link(
            "netem",
            "sender",
            "receiver",
            "100Mbit",
            "1ms",
            &format!("impairment = {impairment}"),
        )
        .flow(
            "cbr",
            "sender",
            "receiver",
            &cbr_interval(972, interval),
            "stop = \"10s\"",
        )
        .load()
}

/// Reference: `sch_netem.c` `packet_time_ns`: (len + packetoverhead), rounded up to
/// cells of cellsize and given celloverhead each, × 8 / rate. A packet alone in the queue
/// is delayed by exactly its packet time: 1000 B at 1 Mbit/s = 8 ms; as ATM cells (48 B
/// + 5 B) 21 cells = 1113 B = 8.904 ms; with packetoverhead 14, 22 cells = 9.328 ms.
#[test]
fn rate_delays_a_lone_packet_by_its_packet_time() {
    for (imp, packet_ms) in [
        ("{ rate = \"1Mbit\" }", 8.0),
        (
            "{ rate = \"1Mbit\", cell_size = 48, cell_overhead = 5 }",
            8.904,
        ),
        (
            "{ rate = \"1Mbit\", packet_overhead = 14, cell_size = 48, cell_overhead = 5 }",
            9.328,
        ),
    ] {
        let r = run_seed(&sparse_link(imp, "10ms"), 6);
        let f = flow(&r, "cbr");
        let want = 1.0 + 0.08 + packet_ms;
        for col in ["delay_min_ms", "delay_max_ms"] {
            assert!((f.f(col) - want).abs() < 1e-3, "{imp}: {col} {}", f.f(col));
        }
        assert_conserved(&r);
    }
}

/// Reference: tc-netem(8) `rate`: offered 1.6 Mbit/s into `rate 1Mbit` leaves at 1 Mbit/s
/// (within 1 %), the rest waiting in netem's queue.
#[test]
fn rate_caps_the_output_at_the_rate() {
    let r = run_seed(&sparse_link("{ rate = \"1Mbit\" }", "5ms"), 7);
    let f = flow(&r, "cbr");
    // 10 s of sending; the receiver counts what arrived by 10.5 s: 10.5 s × 1 Mbit/s,
    // less the first packet's 1.08 ms + 8 ms head start.
    let got_bits = f.u("rx_packets") as f64 * 1000.0 * 8.0;
    let want = (10.5 - 0.00908) * 1e6;
    eprintln!("delivered {got_bits} bits, rate × time {want}");
    assert!((got_bits - want).abs() / want < 0.01);
    assert_conserved(&r);
}

/// Reference: the link model's own closed form per direction, serialization (size × 8 /
/// rate) + propagation delay: an ADSL-like link, 10 Mbit / 5 ms down and 1 Mbit / 50 ms
/// up with 10 % loss only up, delays a lone 1000 B packet by 0.8 + 5 ms down and 8 + 50 ms
/// up, and loses only upstream.
#[test]
fn an_asymmetric_link_has_its_own_rate_delay_and_impairment_per_direction() {
    let s = ScenarioToml::new("20.5s")
        .nodes(&["home", "isp"])
        .link(
            "adsl",
            "isp",
            "home",
            "10Mbit",
            "5ms",
            "reverse = { rate = \"1Mbit\", delay = \"50ms\", impairment = { loss = \"10%\" } }",
        )
        .flow(
            "down",
            "isp",
            "home",
            &cbr_interval(972, "10ms"),
            "stop = \"20s\"",
        )
        .flow(
            "up",
            "home",
            "isp",
            &cbr_interval(972, "10ms"),
            "stop = \"20s\"",
        )
        .load();
    let r = run_seed(&s, 8);
    let (down, up) = (flow(&r, "down"), flow(&r, "up"));
    for (f, want) in [(&down, 0.8 + 5.0), (&up, 8.0 + 50.0)] {
        for col in ["delay_min_ms", "delay_max_ms"] {
            assert!(
                (f.f(col) - want).abs() < 1e-3,
                "{col} {} vs {want}",
                f.f(col)
            );
        }
    }
    assert_eq!(down.u("drops_impairment"), 0);
    let n = up.u("tx_packets") as f64;
    assert_binomial(up.u("drops_impairment") as f64, n, 0.1, "upstream losses");
    assert_conserved(&r);
}
