//! The timeline (`[[at]]`): one test per kind of change, each against a reference computed
//! from the definitions (serialization times, token rates, counts of a CBR schedule, the
//! binomial spread of a loss probability), plus the problems a bad timeline reports.

mod common;

use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, RunResults, Simulation};
use common::*;

/// Runs `base` with `at` (TOML `[[at]]` entries) appended.
fn run_at(base: &ScenarioToml, at: &str) -> RunResults {
    let text = format!("{}\n{at}", base.toml());
    let s = load_toml_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let r = run_scenario(&s, BuildOptions::default());
    assert_conserved(&r);
    r
}

/// The problems of `base` + `at` (which must not build).
fn problems(base: &ScenarioToml, at: &str) -> String {
    let text = format!("{}\n{at}", base.toml());
    match load_toml_str(&text) {
        Err(e) => e.to_string(),
        Ok(s) => match Simulation::build(&s, BuildOptions::default()) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("expected problems for\n{at}"),
        },
    }
}

/// Mean of a time series over (from, to].
fn mean_between(s: &[(f64, f64)], from: f64, to: f64) -> f64 {
    let v: Vec<f64> = s
        .iter()
        .filter(|(t, _)| *t > from + 1e-9 && *t <= to + 1e-9)
        .map(|(_, v)| *v)
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// sender → router (100 Mbit) → sink over `out` at `rate`, one UDP flow `f`.
fn chain(duration: &str, rate: &str, delay: &str, app: &str, out_extra: &str) -> ScenarioToml {
    ScenarioToml::new(duration)
        .sample_interval("100ms")
        .nodes(&["sender", "router", "sink"])
        .link("access", "sender", "router", "100Mbit", "0ms", "")
        .link("out", "router", "sink", rate, delay, out_extra)
        .flow("f", "sender", "sink", app, "")
}

#[test]
fn a_link_rate_halving_halves_the_delivered_rate_from_that_instant() {
    // Reference: a saturated link delivers its line rate. 1000 B payloads (1028 B IP) at
    // 8 Mbit/s into 10 Mbit/s, halved to 5 Mbit/s at 5 s: goodput 8 Mbit/s before (the
    // offered load), 5 Mbit/s × 1000/1028 after, each within 1 %.
    let base = chain("10s", "10Mbit", "1ms", &cbr_rate(1000, "8Mbit"), "")
        .qdisc("router.out", "kind = \"pfifo\"\nlimit = 50");
    let r = run_at(
        &base,
        "[[at]]\nat = \"5s\"\nlink = { name = \"out\", rate = \"5Mbit\" }\n",
    );
    let tput = series(&r.timeseries, "f", "throughput_bps");
    let before = mean_between(&tput, 1.0, 5.0);
    let after = mean_between(&tput, 6.0, 10.0);
    let want_after = 5e6 * 1000.0 / 1028.0;
    println!("before {before:.0} after {after:.0} (want 8e6, {want_after:.0})");
    assert!((before - 8e6).abs() / 8e6 < 0.01, "{before}");
    assert!((after - want_after).abs() / want_after < 0.01, "{after}");
    // The queue table reports the device's rate at the end.
    assert_eq!(queue(&r, "router.out").u("rate_bps"), 5_000_000);
    assert!(r.summary.to_json().contains("\"rate 5Mbit\""));
}

#[test]
fn a_rate_change_applies_to_the_next_packet_at_the_exact_instant() {
    // Reference: serialization times. One 1028 B packet every 20 ms on an idle 1 Mbit/s
    // link takes 8.224 ms; from the packet sent at exactly 1 s (the change fires first: it
    // was scheduled before the send) at 500 kbit/s, 16.448 ms. Delay = serialization at
    // both hops (100 Mbit: 82.24 us) + 1 ms, so the mean over 50 + 50 packets of a 2 s run
    // is the average of the two, exactly (to the ns).
    let base = chain("2s", "1Mbit", "1ms", &cbr_interval(1000, "20ms"), "");
    let r = run_at(
        &base,
        "[[at]]\nat = \"1s\"\nlink = { name = \"out\", rate = \"500kbit\" }\n",
    );
    let f = flow(&r, "f");
    assert_eq!(f.u("rx_packets"), 100);
    let access = serialization_ns(1028, 100_000_000);
    let slow = serialization_ns(1028, 500_000);
    let fast = serialization_ns(1028, 1_000_000);
    let want_ms = (access + 1_000_000) as f64 / 1e6 + (slow + fast) as f64 / 2.0 / 1e6;
    assert!(
        (f.f("delay_mean_ms") - want_ms).abs() < 1e-6,
        "{} vs {want_ms}",
        f.f("delay_mean_ms")
    );
    assert!((f.f("delay_max_ms") - (access + 1_000_000 + slow) as f64 / 1e6).abs() < 1e-6);
}

#[test]
fn a_shorter_delay_lets_new_packets_overtake_those_on_the_wire() {
    // Reference: netem's tfifo keeps each packet's time to send; a packet entering the wire
    // after the delay drops from 200 ms to 10 ms arrives 190 ms before the last ones sent
    // under the old delay. The minimum delay after the change is the new one; every packet
    // arrives (conservation, checked by run_at), and the longest delay is the old one.
    let base = chain("3s", "10Mbit", "200ms", &cbr_interval(1000, "5ms"), "");
    let r = run_at(
        &base,
        "[[at]]\nat = \"1s\"\nlink = { name = \"out\", delay = \"10ms\" }\n",
    );
    let f = flow(&r, "f");
    let tx = (serialization_ns(1028, 100_000_000) + serialization_ns(1028, 10_000_000)) as f64;
    // Packet k (sent at 5k ms) arrives by the end iff 5k ms + tx + 10 ms < 3 s: k ≤ 597.
    let arrive_by_end = (0..600u64)
        .filter(|k| (k * 5_000_000) as f64 + tx + 10e6 < 3e9)
        .count() as u64;
    assert_eq!(f.u("tx_packets"), 600);
    assert_eq!(f.u("rx_packets"), arrive_by_end);
    assert!((f.f("delay_min_ms") - (tx + 10e6) / 1e6).abs() < 1e-6);
    assert!((f.f("delay_max_ms") - (tx + 200e6) / 1e6).abs() < 1e-6);
}

#[test]
fn an_impairment_change_turns_loss_on_at_its_instant() {
    // Reference: Bernoulli loss p = 0.3 on the packets sent after 2 s: none lost before, and
    // the losses after within 4 standard deviations of n·p (n = 800 packets, σ = 13).
    let base = chain("4s", "10Mbit", "1ms", &cbr_interval(1000, "2500us"), "");
    let r = run_at(
        &base,
        "[[at]]\nat = \"2s\"\nlink = { name = \"out\", impairment = { loss = 0.3 } }\n",
    );
    let f = flow(&r, "f");
    let lost = f.u("drops_impairment") as f64;
    let n = 800.0;
    let sigma = (n * 0.3 * 0.7f64).sqrt();
    println!("lost {lost} of {n} (want {} ± {:.1})", n * 0.3, 4.0 * sigma);
    assert!((lost - n * 0.3).abs() < 4.0 * sigma);
    // No loss before the change: the first 2 s delivered every packet (800 sent, 800 in).
    let rx_before: f64 = series(&r.timeseries, "f", "throughput_bps")
        .iter()
        .filter(|(t, _)| *t <= 2.0 + 1e-9)
        .map(|(_, v)| v * 0.1 / 8000.0)
        .sum();
    assert!((rx_before - 800.0).abs() < 1.5, "{rx_before}");
    // And `{}` removes it again: no drops after 3 s.
    let r2 = run_at(
        &base,
        "[[at]]\nat = \"2s\"\nlink = { name = \"out\", impairment = { loss = 0.3 } }\n\
         [[at]]\nat = \"2s\"\nlink = { name = \"out\", impairment = {} }\n",
    );
    assert_eq!(flow(&r2, "f").u("drops_impairment"), 0);
}

#[test]
fn a_tbf_change_sets_the_new_token_rate() {
    // Reference: a token bucket's long-run output rate is its token rate (sch_tbf.c);
    // `tc qdisc change` replaces it (tbf_change). 5 Mbit/s offered into 2 Mbit/s, changed to
    // 1 Mbit/s at 10 s: IP output over 11–20 s within 1 % of 1 Mbit/s.
    let base = chain("20s", "10Mbit", "0ms", &cbr_interval(1000, "1600us"), "").qdisc(
        "router.out",
        "kind = \"tbf\"\nrate = \"2Mbit\"\nburst = 10000\nlimit = 50000",
    );
    let r = run_at(
        &base,
        "[[at]]\nat = \"10s\"\nqdisc = { dev = \"router.out\", change = { kind = \"tbf\", rate = \"1Mbit\", burst = 10000, limit = 50000 } }\n",
    );
    let tput = series(&r.timeseries, "f", "throughput_bps");
    let before = mean_between(&tput, 2.0, 10.0) * 1028.0 / 1000.0;
    let after = mean_between(&tput, 11.0, 20.0) * 1028.0 / 1000.0;
    println!("tbf before {before:.0} after {after:.0}");
    assert!((before - 2e6).abs() / 2e6 < 0.01);
    assert!((after - 1e6).abs() / 1e6 < 0.01);
}

#[test]
fn a_pfifo_limit_change_keeps_the_packets_above_it() {
    // Reference: sch_fifo.c's change (fifo_init) sets the limit without trimming: the
    // queue, full at 200 packets, keeps them and drains to the new limit of 20 at the line
    // rate (822.4 us per packet; 180 packets in 148 ms), and stays at most 20 after.
    let base = chain("4s", "10Mbit", "0ms", &cbr_rate(1000, "12Mbit"), "")
        .qdisc("router.out", "kind = \"pfifo\"\nlimit = 200");
    let r = run_at(
        &base,
        "[[at]]\nat = \"2s\"\nqdisc = { dev = \"router.out\", change = { kind = \"pfifo\", limit = 20 } }\n",
    );
    let backlog = series(&r.timeseries, "router.out", "backlog_packets");
    let at = |t: f64| {
        backlog
            .iter()
            .find(|(s, _)| (s - t).abs() < 1e-9)
            .unwrap()
            .1
    };
    assert!(at(2.0) >= 199.0, "full before the change: {}", at(2.0));
    // 100 ms after the change the queue still holds ~200 − 121 packets: not trimmed.
    assert!(at(2.1) > 60.0 && at(2.1) < 100.0, "{}", at(2.1));
    for (t, b) in &backlog {
        if *t >= 2.2 {
            assert!(*b <= 20.0, "{b} packets at {t}");
        }
    }
    assert_eq!(queue(&r, "router.out").u("drops_policy"), 0);
}

#[test]
fn a_replace_under_load_drops_what_the_old_qdisc_held_and_conserves_packets() {
    // Reference: Linux's qdisc_graft resets the old qdisc, freeing its packets; the new one
    // starts empty. 20 Mbit/s offered into 10 Mbit/s with pfifo limit 100: at 5 s the
    // pfifo holds 100 packets (99 just after a dequeue, until the next arrival 400 us
    // later), all dropped as `policy`; the new pfifo of 20 then overflows on its own.
    // Conservation (sent = delivered + dropped + in flight, and each root queue's
    // enqueued = dequeued + dropped + backlog over its life) is checked by run_at.
    let base = chain("8s", "10Mbit", "1ms", &cbr_rate(1000, "20Mbit"), "")
        .qdisc("router.out", "kind = \"pfifo\"\nlimit = 100");
    let r = run_at(
        &base,
        "[[at]]\nat = \"5s\"\nqdisc = { dev = \"router.out\", replace = { kind = \"pfifo\", limit = 20 } }\n",
    );
    let q = queue(&r, "router.out");
    assert!(
        (99..=100).contains(&q.u("drops_policy")),
        "{}",
        q.u("drops_policy")
    );
    let backlog = series(&r.timeseries, "router.out", "backlog_packets");
    assert!(backlog
        .iter()
        .filter(|(t, _)| *t > 5.0)
        .all(|(_, b)| *b <= 20.0));
    // Replacing a throttled shaper (its wake-up armed) by a work-conserving qdisc, and a
    // fifo by fq_codel: every packet still accounted for.
    let shaped = chain("8s", "10Mbit", "1ms", &cbr_rate(1000, "20Mbit"), "").qdisc(
        "router.out",
        "kind = \"tbf\"\nrate = \"2Mbit\"\nburst = 10000\nlimit = 100000",
    );
    let r = run_at(
        &shaped,
        "[[at]]\nat = \"3s\"\nqdisc = { dev = \"router.out\", replace = { kind = \"fq_codel\" } }\n\
         [[at]]\nat = \"6s\"\nqdisc = { dev = \"router.out\", replace = { kind = \"tbf\", rate = \"5Mbit\", burst = 10000, limit = 100000 } }\n",
    );
    let q = queue(&r, "router.out");
    assert!(q.u("drops_policy") > 50, "the tbf held packets at 3 s");
    assert_eq!(
        r.summary
            .timeline
            .iter()
            .map(|c| c.what.as_str())
            .collect::<Vec<_>>(),
        ["replace fq_codel", "replace tbf"]
    );
}

#[test]
fn flows_stop_start_and_restart_at_their_instants() {
    // Reference: counting a CBR schedule. One packet every 10 ms from 0 over 3 s is 300;
    // stopped at 1 s and started at 2 s: 100 + 100. Restarted at 1.005 s: 101 (0…1000 ms)
    // + 200 (1005…2995 ms). A flow whose `start` is 2 s, started by the timeline at 1 s:
    // 200.
    let app = cbr_interval(100, "10ms");
    let base = chain("3s", "10Mbit", "1ms", &app, "");
    let r = run_at(
        &base,
        "[[at]]\nat = \"1s\"\nflow = { name = \"f\", action = \"stop\" }\n\
         [[at]]\nat = \"2s\"\nflow = { name = \"f\", action = \"start\" }\n",
    );
    assert_eq!(flow(&r, "f").u("tx_packets"), 200);
    let r = run_at(
        &base,
        "[[at]]\nat = \"1005ms\"\nflow = { name = \"f\", action = \"restart\" }\n",
    );
    assert_eq!(flow(&r, "f").u("tx_packets"), 301);
    let late = ScenarioToml::new("3s")
        .nodes(&["sender", "sink"])
        .link("out", "sender", "sink", "10Mbit", "1ms", "")
        .flow("f", "sender", "sink", &app, "start = \"2s\"");
    let r = run_at(
        &late,
        "[[at]]\nat = \"1s\"\nflow = { name = \"f\", action = \"start\" }\n",
    );
    assert_eq!(flow(&r, "f").u("tx_packets"), 200);
    // Ping stops too: 1 request per second, stopped at 2.5 s: 3 requests (0, 1, 2 s).
    let ping = ScenarioToml::new("5s")
        .nodes(&["sender", "sink"])
        .link("out", "sender", "sink", "10Mbit", "1ms", "")
        .flow("p", "sender", "sink", "{ kind = \"ping\" }", "");
    let r = run_at(
        &ping,
        "[[at]]\nat = \"2500ms\"\nflow = { name = \"p\", action = \"stop\" }\n",
    );
    assert_eq!(flow(&r, "p").u("tx_packets"), 3);
}

#[test]
fn a_bad_timeline_is_reported_with_paths_and_fixes() {
    let base = chain("3s", "10Mbit", "1ms", &cbr_interval(100, "10ms"), "");
    let cases = [
        ("[[at]]\nat = \"5s\"\nflow = { name = \"f\", action = \"stop\" }\n", "at[0].at"),
        ("[[at]]\nat = \"1s\"\n", "give exactly one of"),
        ("[[at]]\nat = \"1s\"\nlink = { name = \"nope\", rate = \"1Mbit\" }\n", "at[0].link.name"),
        ("[[at]]\nat = \"1s\"\nlink = { name = \"out\" }\n", "changes nothing"),
        ("[[at]]\nat = \"1s\"\nflow = { name = \"g\", action = \"stop\" }\n", "at[0].flow.name"),
        ("[[at]]\nat = \"1s\"\nflow = { name = \"f\", action = \"pause\" }\n", "at[0].flow.action"),
        (
            "[[at]]\nat = \"1s\"\nqdisc = { dev = \"router.out\", change = { kind = \"bfifo\" } }\n",
            "at[0].qdisc.change.kind",
        ),
        (
            "[[at]]\nat = \"1s\"\nqdisc = { dev = \"router.out\", replace = { kind = \"fq_codel\" } }\n\
             [[at]]\nat = \"2s\"\nqdisc = { dev = \"router.out\", change = { kind = \"fq_codel\" } }\n",
            "at[1].qdisc.change: fq_codel does not support",
        ),
        (
            "[[at]]\nat = \"1s\"\nqdisc = { dev = \"router.out\", replace = { kind = \"tbf\", rate = \"1Mbit\", burst = 10 } }\n",
            "at[0].qdisc.replace.burst",
        ),
        (
            "[[at]]\nat = \"1s\"\nqdisc = { dev = \"router.x\", replace = { kind = \"pfifo\" } }\n",
            "at[0].qdisc.dev",
        ),
        (
            "[[at]]\nat = \"1s\"\nqdisc = { dev = \"router.out\", replace = { kind = \"prio\" } }\n",
            "a replacement needs the same classes",
        ),
        (
            "[[at]]\nat = \"1s\"\nqdisc = { dev = \"router.out\", replace = { kind = \"dfq\" } }\n",
            "at[0].qdisc.replace: dfq needs a node hook",
        ),
    ];
    for (at, want) in cases {
        let p = problems(&base, at);
        assert!(p.contains(want), "want {want:?} in:\n{p}");
    }
}

#[test]
fn the_shipped_timeline_example_does_what_its_description_says() {
    // Reference: the line rates. The three flows' goodput sums to the bottleneck's rate
    // times the payload share of a packet (1448/1500 for TCP, 1172/1200 for the CBR: 3.5 %
    // and 2.3 % of headers): between 1448/1500 − 1 % (TCP may leave the link idle briefly)
    // and 1172/1200 of 10 Mbit/s before 15 s and of 5 Mbit/s after; the CBR
    // sends nothing after 25 s; the summary lists the four changes in order; every packet
    // is accounted for.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/examples/rate-halving.toml"
    );
    let s = load_toml_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let r = run_scenario(&s, BuildOptions::default());
    assert_conserved(&r);
    let goodput = |from: f64, to: f64| {
        ["bulk0", "bulk1", "cbr"]
            .iter()
            .map(|f| mean_between(&series(&r.timeseries, f, "throughput_bps"), from, to))
            .sum::<f64>()
    };
    let (full, half) = (goodput(5.0, 15.0), goodput(16.0, 25.0));
    println!("goodput {full:.0} then {half:.0} bit/s");
    let share = (1448.0 / 1500.0 - 0.01)..=(1172.0 / 1200.0);
    assert!(share.contains(&(full / 10e6)), "{full}");
    assert!(share.contains(&(half / 5e6)), "{half}");
    let cbr = series(&r.timeseries, "cbr", "throughput_bps");
    assert!(mean_between(&cbr, 25.5, 40.0) == 0.0);
    let what: Vec<String> = r
        .summary
        .timeline
        .iter()
        .map(|c| format!("{} {} {}", c.at_seconds, c.target, c.what))
        .collect();
    assert_eq!(
        what,
        [
            "15 bottleneck rate 5Mbit",
            "25 cbr stop",
            "30 router.bottleneck replace fq_codel",
            "35 bottleneck rate 10Mbit"
        ]
    );
}

#[test]
fn a_tcp_bulk_transfer_restarted_opens_a_fresh_connection_in_slow_start() {
    // Reference: seed 003 §5.2 (Fig. 11) and RFC 5681 §3.1 — a restarted session is a new
    // connection whose congestion window starts at the initial window. A bulk transfer over
    // 10 Mbit/s with a 20 ms RTT, restarted at 3 s: two connections were opened; the cwnd
    // sampled just after the restart is back near the initial window (≤ 10 segments of
    // 1448 B, two RTTs of slow start from IW 2 at most … below 16 segments) while it stood
    // far above that before; the old connection's segments still travelling are ignored
    // (nothing is lost from the ledger: conservation holds), and the new connection
    // reaches the line rate again within a second.
    let tcp = "{ kind = \"bulk\" }\ntransport = { kind = \"tcp\", trace = true }";
    let base = ScenarioToml::new("6s")
        .sample_interval("10ms")
        .nodes(&["sender", "router", "sink"])
        .link("access", "sender", "router", "100Mbit", "0ms", "")
        .link("out", "router", "sink", "10Mbit", "10ms", "")
        .flow("f", "sender", "sink", tcp, "");
    let r = run_at(
        &base,
        "[[at]]\nat = \"3s\"\nflow = { name = \"f\", action = \"restart\" }\n",
    );
    assert_eq!(flow(&r, "f").u("connections"), 2);
    let cwnd = series(&r.timeseries, "f", "cwnd_bytes");
    let at = |t: f64| {
        cwnd.iter()
            .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
            .map(|(_, v)| *v)
            .unwrap()
    };
    println!("cwnd at 2.99 s {} at 3.01 s {}", at(2.99), at(3.01));
    assert!(
        at(2.99) > 30.0 * 1448.0,
        "cwnd before the restart {}",
        at(2.99)
    );
    assert!(
        at(3.01) < 16.0 * 1448.0,
        "cwnd after the restart {}",
        at(3.01)
    );
    let tput = series(&r.timeseries, "f", "throughput_bps");
    let late = mean_between(&tput, 4.5, 6.0);
    assert!(late > 9e6, "throughput after the restart {late}");

    // `stop` alone: nothing is delivered after the abort has drained (50 ms later).
    let r = run_at(
        &base,
        "[[at]]\nat = \"2s\"\nflow = { name = \"f\", action = \"stop\" }\n",
    );
    let tput = series(&r.timeseries, "f", "throughput_bps");
    assert_eq!(mean_between(&tput, 2.1, 6.0), 0.0);
    assert!(mean_between(&tput, 1.0, 2.0) > 9e6);
    // A TCP web flow is still refused, with the reason.
    let web = ScenarioToml::new("3s")
        .nodes(&["a", "b"])
        .link("l", "a", "b", "10Mbit", "1ms", "")
        .flow(
            "w",
            "a",
            "b",
            "{ kind = \"web\" }\ntransport = { kind = \"tcp\" }",
            "",
        );
    let msg = problems(
        &web,
        "[[at]]\nat = \"1s\"\nflow = { name = \"w\", action = \"restart\" }\n",
    );
    assert!(msg.contains("TCP bulk transfers only"), "{msg}");
}
