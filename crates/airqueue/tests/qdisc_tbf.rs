//! Reference tests of `tbf` in whole scenarios (Linux `sch_tbf.c` semantics): the long-run
//! output rate is `rate`, the first burst is `burst` bytes, a peak rate caps the burst.

mod common;

use common::*;

/// IP bytes of each UDP packet with a 1000 B payload.
const PKT: u64 = 1000 + UDP_IP_HEADERS;

/// sender → router (100 Mbit) → sink (10 Mbit, no delay), a TBF on the router's egress and
/// one UDP flow of 1000 B payloads every `gap`.
fn tbf_scenario(duration: &str, tbf: &str, gap: &str) -> ScenarioToml {
    ScenarioToml::new(duration)
        .nodes(&["sender", "router", "sink"])
        .link("access", "sender", "router", "100Mbit", "0ms", "")
        .link("out", "router", "sink", "10Mbit", "0ms", "")
        .qdisc("router.out", tbf)
        .flow("f", "sender", "sink", &cbr_interval(1000, gap), "")
}

#[test]
fn long_run_output_rate_equals_rate_within_1_percent() {
    // Reference: a token bucket's long-run output rate is its token rate (sch_tbf.c). The
    // source offers 5 Mbit/s into a 2 Mbit/s bucket; over 20 s after a 1 s warm-up the
    // delivered IP bytes must be within 1 % of 2 Mbit/s, with the default bfifo child, with
    // a peak rate, and with an sfq child.
    for tbf in [
        "kind = \"tbf\"\nrate = \"2Mbit\"\nburst = 10000\nlimit = 50000",
        "kind = \"tbf\"\nrate = \"2Mbit\"\nburst = 10000\nlimit = 50000\npeakrate = \"4Mbit\"\nmtu = 1500",
        "kind = \"tbf\"\nrate = \"2Mbit\"\nburst = 10000\nqdisc = { kind = \"sfq\" }",
    ] {
        let s = tbf_scenario("21s", tbf, "1600us").warmup("1s");
        let r = s.run();
        assert_conserved(&r);
        let rx = flow(&r, "f").u("rx_packets");
        let rate = (rx * PKT * 8) as f64 / 20.0;
        let err = (rate - 2e6).abs() / 2e6;
        println!("tbf rate error {:.4} % ({tbf:?})", err * 100.0);
        assert!(err < 0.01, "output {rate} bit/s vs 2 Mbit/s\n{tbf}");
        assert!(flow(&r, "f").u("drops_qdisc_overflow") > 0, "the bucket must be saturated");
    }
}

#[test]
fn first_burst_is_burst_bytes() {
    // Reference: the bucket starts full (sch_tbf.c), so exactly `burst` bytes leave at line
    // rate before the shaper throttles. burst = 10 packets; rate 0.5 Mbit/s, so the 11th
    // packet needs 16.4 ms of tokens and leaves near 17 ms, while the 10 Mbit/s link could
    // carry 14 packets by 12 ms. At 12 ms exactly 10 packets have arrived.
    let tbf = format!(
        "kind = \"tbf\"\nrate = \"500kbit\"\nburst = {}\nlimit = 100000",
        10 * PKT
    );
    let r = tbf_scenario("12ms", &tbf, "100us").run();
    let f = flow(&r, "f");
    assert!(f.u("tx_packets") > 100);
    assert_eq!(f.u("rx_packets") * PKT, 10 * PKT, "first burst");
    // A bucket one packet larger lets exactly one more through.
    let tbf = format!(
        "kind = \"tbf\"\nrate = \"500kbit\"\nburst = {}\nlimit = 100000",
        11 * PKT
    );
    let r = tbf_scenario("12ms", &tbf, "100us").run();
    assert_eq!(flow(&r, "f").u("rx_packets"), 11);
}

#[test]
fn peakrate_caps_the_burst_rate() {
    // Reference: with peakrate P and a peak bucket of M bytes, no interval T carries more
    // than M + P·T bytes (sch_tbf.c's second bucket). A 30 kB burst at rate 1 Mbit/s and
    // P = 4 Mbit/s over 30 ms: between P·T − 2 packets and M + P·T bytes leave, where the
    // 10 Mbit/s line alone would carry 36 packets.
    let tbf = "kind = \"tbf\"\nrate = \"1Mbit\"\nburst = 30000\nlimit = 100000\npeakrate = \"4Mbit\"\nmtu = 1500";
    let r = tbf_scenario("30ms", tbf, "100us").run();
    let bytes = flow(&r, "f").u("rx_packets") * PKT;
    let pt = 4e6 * 0.030 / 8.0;
    assert!(
        bytes as f64 <= 1500.0 + pt && bytes as f64 >= pt - 2.0 * PKT as f64,
        "{bytes} B in 30 ms vs P·T = {pt} B"
    );
    let unshaped = "kind = \"tbf\"\nrate = \"1Mbit\"\nburst = 30000\nlimit = 100000";
    let r = tbf_scenario("30ms", unshaped, "100us").run();
    assert!(
        flow(&r, "f").u("rx_packets") >= 29,
        "without peakrate the burst goes at line rate"
    );
}
