//! The netem-like link impairment against its distributions: Bernoulli loss (binomial loss
//! counts) and uniform jitter (support, mean, and the mean absolute delay variation).

mod common;

use common::*;

/// 972 B payload (1000 B on the wire) every 100 µs from t = 0 to `stop`, over a single
/// 100 Mbit / 1 ms link carrying `impairment`; the run lasts 100 ms longer than the flow so
/// that every packet is resolved (delivered or lost) before the end.
fn impaired_link(impairment: &str, stop_s: u64) -> ScenarioToml {
    ScenarioToml::new(&format!("{stop_s}.1s"))
        .nodes(&["sender", "receiver"])
        .link(
            "lossy",
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
            &format!("stop = \"{stop_s}s\""),
        )
}

/// Reference: with independent loss probability p per packet, the number k of n packets
/// lost is Binomial(n, p); the bound |k − np| ≤ 3.29·√(np(1−p)) holds with probability
/// 99.9 % (two-sided normal quantile z = 3.29; np ≥ 200 here, where the normal approximation
/// is good). n = 200 000 packets per run, p ∈ {0.001, 0.01, 0.05, 0.2}, seeds 1 and 2.
/// Tolerance: that 99.9 % bound on the loss count; exact for the accounting (every packet is
/// either delivered or dropped with reason `impairment`).
#[test]
fn bernoulli_loss_counts_lie_within_the_binomial_99_9_percent_bound() {
    for p in [0.001, 0.01, 0.05, 0.2] {
        let s = impaired_link(&format!("{{ loss = {p} }}"), 20).load();
        for seed in [1, 2] {
            let r = run_seed(&s, seed);
            let f = flow(&r, "cbr");
            let n = f.u("tx_packets");
            assert_eq!(n, 200_000);
            let k = f.u("drops_impairment");
            let mean = n as f64 * p;
            let sd = (mean * (1.0 - p)).sqrt();
            let z = (k as f64 - mean) / sd;
            eprintln!(
                "loss p = {p} seed {seed}: {k} of {n} lost (np = {mean:.0}, bound ±{:.1}, z = {z:+.2})",
                3.29 * sd
            );
            assert!(
                z.abs() <= 3.29,
                "p = {p}, seed {seed}: {k} lost, expected {mean} ± {}",
                3.29 * sd
            );
            assert_eq!(f.u("rx_packets") + k, n);
            assert_eq!(f.u("drops"), k);
            assert_eq!(r.summary.packets.dropped["impairment"], k);
            assert_eq!(r.summary.packets.in_flight, 0);
            assert_conserved(&r);
        }
    }
}

/// Reference: loss = 0 loses nothing and loss = 1 loses every packet (Bernoulli with
/// p ∈ {0, 1} is deterministic). Tolerance: none.
#[test]
fn loss_probability_zero_loses_nothing_and_one_loses_everything() {
    let r = impaired_link("{ loss = 0.0 }", 1).run();
    assert_eq!(flow(&r, "cbr").u("drops"), 0);
    assert_eq!(flow(&r, "cbr").u("rx_packets"), 10_000);
    let r = impaired_link("{ loss = 1.0 }", 1).run();
    assert_eq!(flow(&r, "cbr").u("drops_impairment"), 10_000);
    assert_eq!(flow(&r, "cbr").u("rx_packets"), 0);
    assert_conserved(&r);
}

/// Reference: netem-style uniform jitter J around an extra delay D adds U(D − J, D + J) to
/// every packet, so with no queueing each delay lies in [base − J, base + J], base =
/// 80 µs serialization + 1 ms propagation + D = 11.08 ms (D = 10 ms, J = 5 ms), and the mean of
/// n = 100 000 delays is base within 4 standard errors, 4·J/√(3n) = 36.5 µs. The extremes of
/// 100 000 uniform draws come within 0.1 % of the interval's width of its ends (failure
/// probability (1 − 0.001)^n ≈ e^−100). Tolerance: none on the support; 4 s.e. on the mean.
#[test]
fn uniform_jitter_keeps_delays_within_base_plus_minus_j_with_mean_base() {
    let r = impaired_link("{ delay = \"10ms\", jitter = \"5ms\" }", 10).run();
    let f = flow(&r, "cbr");
    let (base, j) = (
        serialization_ns(1000, 100_000_000) + 1_000_000 + 10_000_000,
        5_000_000u64,
    );
    assert_eq!(base, 11_080_000);
    let n = f.u("rx_packets");
    assert_eq!(n, 100_000);
    let (min, max, mean) = (
        ms_to_ns(f.f("delay_min_ms")),
        ms_to_ns(f.f("delay_max_ms")),
        f.f("delay_mean_ms") * 1e6,
    );
    let tolerance = 4.0 * j as f64 / (3.0 * n as f64).sqrt();
    eprintln!(
        "jitter: delays in [{min}, {max}] ns (support [{}, {}]), mean {mean:.0} ns vs base {base} (tolerance ±{tolerance:.0} ns)",
        base - j,
        base + j
    );
    assert!(min >= base - j && max <= base + j, "[{min}, {max}]");
    let edge = 2 * j / 1000;
    assert!(
        min <= base - j + edge && max >= base + j - edge,
        "[{min}, {max}]"
    );
    assert!(
        (mean - base as f64).abs() <= tolerance,
        "mean {mean} vs {base}"
    );
    assert_conserved(&r);
}

/// Reference: with jitter J = 40 µs and packets 100 µs apart, no packet overtakes another,
/// so consecutive arrivals are consecutive packets and their delay variation |U_i − U_{i+1}|
/// (IPDV, RFC 3393) of two independent U(−J, J) draws has mean 2J/3 = 26.667 µs. The standard
/// error of the mean of n such terms is 2J/√(15n) (variance w²/18 per term plus the lag-1
/// covariance w²/180 of terms sharing a draw, w = 2J): 0.065 µs for n = 100 000.
/// Tolerance: 4 standard errors (≈ 1 %).
#[test]
fn uniform_jitter_without_reordering_has_mean_ipdv_two_thirds_of_j() {
    let r = impaired_link("{ delay = \"1ms\", jitter = \"40us\" }", 10).run();
    let f = flow(&r, "cbr");
    let n = f.u("rx_packets") as f64;
    let j = 40_000.0;
    let expected = 2.0 * j / 3.0;
    let tolerance = 4.0 * 2.0 * j / (15.0 * n).sqrt();
    let ipdv = f.f("ipdv_mean_ms") * 1e6;
    eprintln!(
        "jitter IPDV: mean {ipdv:.1} ns vs 2J/3 = {expected:.1} ns (tolerance ±{tolerance:.1} ns)"
    );
    assert!(
        (ipdv - expected).abs() <= tolerance,
        "ipdv {ipdv} vs {expected}"
    );
}
