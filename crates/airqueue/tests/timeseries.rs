//! The fixed-interval time series across the warm-up. Counters restart at the warm-up end,
//! but the interval that contains it must still report everything that happened in it:
//! neither a zero (warm-up on a sample instant) nor a partial interval (warm-up between
//! two instants).
//!
//! Scenario: one UDP CBR flow of 1000 B datagrams every 1 ms (8.224 Mbit/s of IP) into a
//! 5 Mbit link with pfifo limit 20, so the flow's delivered rate and the queue's drop rate
//! are constant in steady state, and an HTB class carries the same traffic.

mod common;

use airqueue::sim::RunResults;
use common::*;

const INTERVAL_S: f64 = 0.1;

fn saturated_link(warmup: &str, qdisc: &str) -> RunResults {
    let r = ScenarioToml::new("4s")
        .warmup(warmup)
        .nodes(&["a", "b"])
        .link("l", "a", "b", "5Mbit", "1ms", "")
        .qdisc("a.l", qdisc)
        .flow("f", "a", "b", &cbr_interval(1000, "1ms"), "")
        .run();
    assert_conserved(&r);
    r
}

/// Samples of `s` from 0.5 s on (past the start-up transient), as values.
fn steady(s: &[(f64, f64)]) -> Vec<f64> {
    assert!(!s.is_empty());
    s.iter().filter(|(t, _)| *t >= 0.5).map(|x| x.1).collect()
}

/// Reference: the link's payload rate. The link sends 1028 B IP packets back to back at
/// 5 Mbit/s, 1 644.8 µs each, i.e. 60.8 packets per 100 ms: every interval delivers 60 or
/// 61 datagrams of 1000 B of payload, and the 100 − 60.8 offered in excess are dropped (39
/// or 40 per interval). Checked for every sample, the ones at and after the warm-up end
/// included, with the warm-up on a sample instant (2 s) and between two (2.05 s).
#[test]
fn flow_queue_and_class_series_report_whole_intervals_across_the_warm_up() {
    let htb = r#"kind = "htb"
classes = [{ name = "all", rate = "100Mbit", qdisc = { kind = "pfifo", limit = 20 } }]
default = "all""#;
    for warmup in ["2s", "2.05s"] {
        let r = saturated_link(warmup, "kind = \"pfifo\"\nlimit = 20");
        let tput = steady(&series(&r.timeseries, "f", "throughput_bps"));
        let drops = steady(&series(&r.timeseries, "a.l", "drops"));
        eprintln!("warm-up {warmup}: throughput {tput:?}\ndrops {drops:?}");
        let per_interval = |bits: f64| bits * INTERVAL_S / 8000.0;
        assert!(
            tput.iter()
                .all(|&v| [60.0, 61.0].contains(&per_interval(v))),
            "{tput:?}"
        );
        assert!(
            drops.iter().all(|&d| (39.0..=40.0).contains(&d)),
            "{drops:?}"
        );

        let r = saturated_link(warmup, htb);
        let class = steady(&series(&r.timeseries, "a.l/all", "throughput_bps"));
        let class_drops = steady(&series(&r.timeseries, "a.l/all", "drops"));
        // The class counts IP bytes (1028 B per datagram).
        let per_interval = |bits: f64| bits * INTERVAL_S / (8.0 * 1028.0);
        assert!(
            class
                .iter()
                .all(|&v| [60.0, 61.0].contains(&per_interval(v))),
            "{class:?}"
        );
        assert!(
            class_drops.iter().all(|&d| (39.0..=40.0).contains(&d)),
            "{class_drops:?}"
        );
    }
}
