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

/// Reference: tc-netem(8) `limit` and `sch_netem.c` `netem_enqueue` (`t_len >= limit`:
/// drop): offered 1.6 Mbit/s into `rate 1Mbit limit 10`, netem holds at most 10 packets,
/// so no packet waits more than 10 packet times (80 ms) beyond the wire's 1.08 ms; the
/// surplus is dropped as `qdisc_overflow` and the output stays at the rate (within 1 %).
#[test]
fn limit_caps_what_netem_holds_and_drops_the_rest_as_overflow() {
    let r = run_seed(&sparse_link("{ rate = \"1Mbit\", limit = 10 }", "5ms"), 8);
    let f = flow(&r, "cbr");
    let max = f.f("delay_max_ms");
    eprintln!("max delay {max} ms");
    assert!(max <= 1.08 + 80.0 + 1e-3 && max > 1.08 + 72.0, "{max}");
    // Everything not delivered was dropped at netem's limit (the run outlasts the queue).
    let drops = f.u("drops_qdisc_overflow");
    assert_eq!(drops, f.u("tx_packets") - f.u("rx_packets"));
    // Busy at the rate from the first packet (1.08 ms) until the last of the 10 it held
    // when sending stopped at 10 s has left (≈ 10.08 s).
    let got_bits = f.u("rx_packets") as f64 * 8000.0;
    let want_bits = (10.08 - 0.00108) * 1e6;
    eprintln!("delivered {got_bits} bits, {drops} dropped");
    assert!(
        (got_bits - want_bits).abs() / want_bits < 0.01,
        "{got_bits}"
    );
    assert_conserved(&r);
}

/// Reference: tc-netem(8) `limit` defaults to 1000 packets: offered 4 Mbit/s into `rate
/// 1Mbit` for 10 s, the queue fills to 1000 (after ≈ 2.7 s), so the longest wait is 1000
/// packet times (8 s), and packets beyond it are dropped.
#[test]
fn the_default_limit_is_netems_1000_packets() {
    let s = ScenarioToml::new("20.5s")
        .nodes(&["sender", "receiver"])
        .link(
            "netem",
            "sender",
            "receiver",
            "100Mbit",
            "1ms",
            "impairment = { rate = \"1Mbit\" }",
        )
        .flow(
            "cbr",
            "sender",
            "receiver",
            &cbr_interval(972, "2ms"),
            "stop = \"10s\"",
        )
        .load();
    let r = run_seed(&s, 9);
    let f = flow(&r, "cbr");
    let max = f.f("delay_max_ms");
    assert!(max <= 1.08 + 8000.0 + 1e-3 && max > 1.08 + 7990.0, "{max}");
    assert!(f.u("drops_qdisc_overflow") > 0);
    assert_conserved(&r);
}

/// Reference: `sch_netem.c` `netem_dequeue`/`get_slot_next`: a packet due when the last
/// slot has passed waits for a new one, `min` after now; with `slot 10ms` and packets
/// 25 ms apart every packet waits exactly 10 ms (+ the wire's 1.08 ms).
#[test]
fn slot_min_delays_a_lone_packet_by_one_slot() {
    let r = run_seed(&sparse_link("{ slot = { min = \"10ms\" } }", "25ms"), 10);
    let f = flow(&r, "cbr");
    for col in ["delay_min_ms", "delay_max_ms"] {
        assert!((f.f(col) - 11.08).abs() < 1e-6, "{col} {}", f.f(col));
    }
    assert_conserved(&r);
}

/// Reference: tc-netem(8) `slot MIN MAX`: the gap to the next slot is uniform on
/// [MIN, MAX) (`min + (rnd × (max − min) >> 32)`): lone packets wait between 10 and 30 ms,
/// 20 ms on average (within the 99.9 % bound of 2 500 draws, sd 20/√12 ms).
#[test]
fn slot_min_max_draws_uniform_gaps() {
    let r = run_seed(
        &sparse_link("{ slot = { min = \"10ms\", max = \"30ms\" } }", "40ms"),
        11,
    );
    let f = flow(&r, "cbr");
    let n = f.u("rx_packets") as f64;
    let (lo, hi, mean) = (
        f.f("delay_min_ms"),
        f.f("delay_max_ms"),
        f.f("delay_mean_ms"),
    );
    eprintln!("{n} packets: slot wait min {lo} max {hi} mean {mean}");
    assert!(lo >= 11.08 && hi < 31.08, "{lo} {hi}");
    let bound = 3.29 * 20.0 / 12f64.sqrt() / n.sqrt();
    assert!((mean - 21.08).abs() < bound, "{mean} ± {bound}");
    assert_conserved(&r);
}

/// Reference: `slot distribution normal 20ms 5ms`: the gap is `tabledist` on the normal
/// table: 20 ms on average (99.9 % bound of the draws, sd 5 ms).
#[test]
fn slot_distribution_draws_from_the_table() {
    let imp = "{ slot = { distribution = \"normal\", delay = \"20ms\", jitter = \"5ms\" } }";
    let r = run_seed(&sparse_link(imp, "50ms"), 12);
    let f = flow(&r, "cbr");
    let n = f.u("rx_packets") as f64;
    let mean = f.f("delay_mean_ms");
    let bound = 3.29 * 5.0 / n.sqrt();
    eprintln!("{n} packets: mean wait {mean} ± {bound}");
    assert!((mean - 21.08).abs() < bound, "{mean}");
    assert!(f.f("delay_min_ms") < 15.0 && f.f("delay_max_ms") > 27.0);
    assert_conserved(&r);
}

/// Reference: tc-netem(8) `slot … packets N` / `bytes N` and the accounting in
/// `netem_dequeue` (a slot whose packets or bytes are used up draws the next from now;
/// the packet that crosses `bytes` still goes): a backlog leaves 2 packets per 10 ms slot
/// (200/s) with `packets 2`, 3 per slot (300/s) with `bytes 2500` and 1000 B packets.
/// Within 1 % of the closed form; the backlog beyond netem's limit is dropped.
#[test]
fn slot_packets_and_bytes_cap_each_slot() {
    for (imp, per_slot) in [
        ("{ slot = { min = \"10ms\", packets = 2 } }", 2.0),
        ("{ slot = { min = \"10ms\", bytes = 2500 } }", 3.0),
    ] {
        let r = run_seed(&sparse_link(imp, "1ms"), 13);
        let f = flow(&r, "cbr");
        // Slots every 10 ms from the first packet (1.08 ms) to the end (10.5 s).
        let want = per_slot * ((10.5f64 - 0.00108) / 0.010).floor();
        let got = f.u("rx_packets") as f64;
        eprintln!("{imp}: {got} delivered, {want} by the slot rule");
        assert!((got - want).abs() / want < 0.01, "{imp}: {got} vs {want}");
        assert!(f.u("drops_qdisc_overflow") > 0);
        assert_conserved(&r);
    }
}

/// Reference: iproute2's `slot` forms (`MIN [MAX]` or `distribution D DELAY JITTER`) and
/// netem's `limit` ≥ 1: anything else is a scenario problem naming the field.
#[test]
fn slot_and_limit_mistakes_are_rejected_with_the_field() {
    for (imp, field) in [
        ("{ limit = 0 }", "impairment.limit"),
        ("{ slot = { packets = 2 } }", "impairment.slot.min"),
        (
            "{ slot = { min = \"10ms\", max = \"5ms\" } }",
            "impairment.slot.max",
        ),
        ("{ slot = { max = \"5ms\" } }", "impairment.slot.min"),
        (
            "{ slot = { distribution = \"normal\", delay = \"5ms\" } }",
            "impairment.slot.distribution",
        ),
        (
            "{ slot = { min = \"1ms\", packets = 0 } }",
            "impairment.slot.packets",
        ),
        (
            "{ slot = { min = \"1ms\", distribution = \"normal\", delay = \"5ms\", jitter = \"1ms\" } }",
            "impairment.slot",
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
