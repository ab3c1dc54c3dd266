//! The wired link's `impairment` with the channel models: `ber` (PER = 1 − (1 − BER)^bits
//! over the bits on the wire) and netem's `gemodel`, end to end through the simulator.

mod common;

use airqueue::channel::{per, GeModelParams};
use airqueue::scenario::load_toml_str;
use common::*;

/// 972 B payload (1000 B on the wire, `overhead` more with link overhead) every 100 µs for
/// `stop_s` seconds over one 100 Mbit / 1 ms link with `impairment`.
fn impaired_link(impairment: &str, extra_link: &str, stop_s: u64) -> ScenarioToml {
    ScenarioToml::new(&format!("{stop_s}.1s"))
        .nodes(&["sender", "receiver"])
        .link(
            "lossy",
            "sender",
            "receiver",
            "100Mbit",
            "1ms",
            &format!("impairment = {impairment}\n{extra_link}"),
        )
        .flow(
            "cbr",
            "sender",
            "receiver",
            &cbr_interval(972, "100us"),
            &format!("stop = \"{stop_s}s\""),
        )
}

/// Reference: seed 004 §4.2.3 / seed 001 §4.2.1, PER = 1 − (1 − BER)^bits with bits the
/// packet's bits on the wire (1000 B, then 1000 B + 38 B of link overhead); the loss count
/// of n = 200 000 packets lies within the binomial 99.9 % bound |k − n·PER| ≤
/// 3.29·√(n·PER(1 − PER)).
#[test]
fn wired_ber_loses_packets_at_the_per_of_their_bits_on_the_wire() {
    for (seed, ber, overhead) in [
        (1, 1e-6, 0u64),
        (2, 1e-5, 0),
        (3, 1e-5, 38),
        (4, 1e-5, 0),
        (5, 1e-4, 0),
    ] {
        let extra = if overhead > 0 {
            format!("overhead = {overhead}")
        } else {
            String::new()
        };
        let s = impaired_link(&format!("{{ ber = {ber} }}"), &extra, 20).load();
        let r = run_seed(&s, seed);
        let f = flow(&r, "cbr");
        let n = f.u("tx_packets");
        assert_eq!(n, 200_000);
        let k = f.u("drops_impairment") as f64;
        let p = per(ber, ((1000 + overhead) * 8) as f64);
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        let z = (k - n as f64 * p) / sd;
        eprintln!("ber {ber}, overhead {overhead}: {k} of {n} lost, PER {p:.5}, z = {z:+.2}");
        assert!(z.abs() <= 3.29, "ber {ber}: {k} lost vs {}", n as f64 * p);
        assert_conserved(&r);
    }
}

/// Reference: netem `gemodel 1% 10%` and `gemodel 2% 20% 80% 0.5%` on a wired link lose
/// the chain's stationary fraction π_G(1 − k) + π_B(1 − h) of 200 000 packets, within the
/// 99.9 % bound of the binomial variance inflated by the chain's autocorrelation
/// (1 + λ)/(1 − λ), λ = 1 − p − r.
#[test]
fn wired_gemodel_loses_the_stationary_fraction() {
    for prm in [
        GeModelParams {
            p: 0.01,
            r: 0.1,
            loss_bad: 1.0,
            loss_good: 0.0,
        },
        GeModelParams {
            p: 0.02,
            r: 0.2,
            loss_bad: 0.8,
            loss_good: 0.005,
        },
    ] {
        let imp = format!(
            "{{ gemodel = {{ p = {}, r = {}, loss_bad = {}, loss_good = {} }} }}",
            prm.p, prm.r, prm.loss_bad, prm.loss_good
        );
        let r = impaired_link(&imp, "", 20).run();
        let f = flow(&r, "cbr");
        let n = f.u("tx_packets") as f64;
        let k = f.u("drops_impairment") as f64;
        let pi = prm.stationary_bad();
        let lambda = 1.0 - prm.p - prm.r;
        let spread = prm.loss_bad - prm.loss_good;
        let state_var = pi * (1.0 - pi) * (1.0 + lambda) / (1.0 - lambda) * spread * spread;
        let rate = prm.loss_rate();
        let sd = ((state_var + rate * (1.0 - rate)) / n).sqrt();
        let z = (k / n - rate) / sd;
        eprintln!(
            "gemodel {prm:?}: loss {:.5} vs {rate:.5}, z = {z:+.2}",
            k / n
        );
        assert!(z.abs() <= 3.29);
        assert_conserved(&r);
    }
}

/// `loss` and `gemodel` together are refused with the field path and a fix; a BER of 2 is
/// not a probability.
#[test]
fn loss_with_gemodel_or_a_bad_ber_is_a_problem_with_a_path() {
    let load = |imp: &str| load_toml_str(&impaired_link(imp, "", 1).toml()).unwrap_err();
    let e = load("{ loss = 0.01, gemodel = { p = 0.01, r = 0.1 } }");
    assert_eq!(e.problems[0].path, "links.lossy.impairment.gemodel");
    assert!(e.problems[0].message.contains("keep one"));
    let e = load("{ ber = 2 }");
    assert_eq!(e.problems[0].path, "links.lossy.impairment.ber");
}
