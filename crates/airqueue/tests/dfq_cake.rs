//! DFQ (seed 003) and CAKE in whole runs: the RTT detector classifies the hosts behind an
//! 802.11 cell as wireless from the gateway's pings; CAKE's COBALT keeps the standing queue
//! near its target, its shaper holds the set rate and dual-dsthost shares a bottleneck
//! equally among hosts with unequal numbers of TCP flows.

mod common;

use airqueue::engine::SimTime;
use airqueue::qdisc::classify::NameTable;
use airqueue::qdisc::{BuildCtx, DevInfo, Dfq, DfqConf};
use airqueue::scenario::{load_toml_str, ScenarioError};
use airqueue::sim::BuildOptions;
use common::*;

const TESTBED: &str = include_str!("../../../scenarios/dfq/testbed.toml");

#[test]
fn the_rtt_detector_classifies_hosts_behind_the_wifi_cell_as_wireless() {
    // Reference: seed 003 §3 ("RTT detector can distinguish between wired and wireless
    // links by the collected RTT") and §2 (wired ≈ 300 µs, wireless ≈ 3 ms). The Fig. 7
    // testbed with its five bulk downloads and the gateway's 1 s pings: every client's
    // windowed-minimum RTT is below the 1 ms threshold for the wired clients and above it
    // for the three stations of the 802.11b cell.
    let s = load_toml_str(TESTBED).unwrap();
    let dev = DevInfo {
        name: "mouse.lan-a".into(),
        rate_bps: 100_000_000,
        mtu: 1500,
        psched_mtu: 1514,
        link_header: 0,
        stab: None,
    };
    let names = NameTable::default();
    let conf: DfqConf = toml::from_str("limit = 100").unwrap();
    let b = BuildCtx {
        dev: &dev,
        names: &names,
        seed: 1,
        path: "qdiscs.downlink".into(),
        boards: None,
    };
    let q = Dfq::from_conf(&conf, &b, &mut ScenarioError::default()).unwrap();
    let board = q.board().clone();
    let r = run_scenario(
        &s,
        BuildOptions {
            qdisc_overrides: vec![("mouse.lan-a".into(), Box::new(q))],
            ..Default::default()
        },
    );
    assert_conserved(&r);
    // Node addresses: 10.0.0.0 + scenario index + 1 (topology).
    let order = [
        "mouse", "sw-a", "sw-b", "dragon", "rabbit", "ap", "ms1", "ms2", "ms3",
    ];
    let addr = |n: &str| 0x0A00_0000 + order.iter().position(|x| *x == n).unwrap() as u32 + 1;
    let t = board.lock().unwrap();
    for (host, wireless) in [
        ("dragon", false),
        ("rabbit", false),
        ("ms1", true),
        ("ms2", true),
        ("ms3", true),
    ] {
        let e = t
            .get(addr(host))
            .unwrap_or_else(|| panic!("{host} never replied"));
        println!("{host}: min RTT {:?} over {} replies", e.min, e.samples);
        assert!(e.samples >= 20, "{host}: {} replies", e.samples);
        assert_eq!(
            e.min > SimTime::from_millis(1),
            wireless,
            "{host}: {:?}",
            e.min
        );
    }
}

/// A 10 Mbit bottleneck behind a 100 Mbit access: `hosts[i]` bulk TCP flows from the
/// server to host `h{i}`, with `qdisc` on the bottleneck.
fn bottleneck(duration: &str, qdisc: &str, hosts: &[u32]) -> airqueue::scenario::Scenario {
    let mut t = ScenarioToml::new(duration)
        .warmup("5s")
        .nodes(&["server", "router", "switch"])
        .link("access", "server", "router", "100Mbit", "5ms", "")
        .link("bottleneck", "router", "switch", "10Mbit", "5ms", "")
        .qdisc("router.bottleneck", qdisc);
    for (i, &n) in hosts.iter().enumerate() {
        let h = format!("h{i}");
        t = t
            .nodes(&[h.as_str()])
            .link(&format!("l{i}"), "switch", &h, "100Mbit", "1ms", "");
        for k in 0..n {
            t = t.flow(
                &format!("f{i}-{k}"),
                "server",
                &h,
                "{ kind = \"bulk\" }\ntransport = { kind = \"tcp\", rcv_buffer = \"1MiB\" }",
                "",
            );
        }
    }
    load_toml_str(&t.toml()).unwrap_or_else(|e| panic!("{e}\n{}", t.toml()))
}

#[test]
fn cake_dual_dsthost_shares_a_bottleneck_equally_among_hosts_with_unequal_flow_counts() {
    // Reference: tc-cake(8) dual-dsthost and Høiland-Jørgensen et al. 2018 §3.2 (host
    // isolation: per-host fairness regardless of flow count). Hosts with 1, 2 and 4 bulk
    // TCP flows: Jain's index over the hosts' goodputs ≥ 0.95; with pfifo the shares follow
    // the flow counts.
    let share = |q: &str| {
        let r = run_scenario(&bottleneck("25s", q, &[1, 2, 4]), BuildOptions::default());
        assert_conserved(&r);
        let per_host: Vec<f64> = [(0, 1), (1, 2), (2, 4)]
            .iter()
            .map(|&(i, n)| {
                (0..n)
                    .map(|k| flow(&r, &format!("f{i}-{k}")).f("goodput_bps"))
                    .sum()
            })
            .collect();
        per_host
    };
    let jain = |x: &[f64]| {
        let s: f64 = x.iter().sum();
        s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
    };
    let cake = share("kind = \"cake\"\nisolation = \"dual-dsthost\"");
    let fifo = share("kind = \"pfifo\"\nlimit = 100");
    println!(
        "cake {cake:?} Jain {:.4}; pfifo {fifo:?} Jain {:.4}",
        jain(&cake),
        jain(&fifo)
    );
    assert!(jain(&cake) >= 0.95, "{cake:?}");
    assert!(cake.iter().sum::<f64>() > 9.0e6, "{cake:?}");
    assert!(jain(&fifo) < jain(&cake));
}

#[test]
fn cobalt_keeps_the_standing_queue_near_its_target() {
    // Reference: Høiland-Jørgensen et al. 2018 §3.1 / RFC 8289 §4: with CoDel's 5 ms target
    // and 100 ms interval, long-lived TCP flows settle with a standing queue near the
    // target. Four bulk flows into a 10 Mbit bottleneck (1 MiB receive buffers, which
    // would fill a 1000-packet pfifo): CAKE's median sojourn lies between 1 and 15 ms
    // while the link stays busy (> 90 %); the pfifo's exceeds 100 ms.
    let sojourn = |q: &str| {
        let r = run_scenario(&bottleneck("25s", q, &[4]), BuildOptions::default());
        assert_conserved(&r);
        let row = queue(&r, "router.bottleneck");
        let goodput: f64 = (0..4)
            .map(|k| flow(&r, &format!("f0-{k}")).f("goodput_bps"))
            .sum();
        (row.f("sojourn_p50_ms"), goodput)
    };
    let (cake, cake_tput) = sojourn("kind = \"cake\"");
    let (fifo, _) = sojourn("kind = \"pfifo\"");
    println!("cake p50 sojourn {cake:.2} ms, goodput {cake_tput:.0}; pfifo {fifo:.2} ms");
    assert!((1.0..=15.0).contains(&cake), "{cake}");
    assert!(cake_tput > 9.0e6, "{cake_tput}");
    assert!(fifo > 100.0, "{fifo}");
}

#[test]
fn the_cake_shaper_holds_the_set_rate_within_one_percent() {
    // Reference: tc-cake(8) `bandwidth` and `overhead`: the shaper sends at the set rate in
    // adjusted bytes (IP length + overhead). A 30 Mbit/s UDP flow of 1000 B payloads
    // (1028 B IP) into cake at 10 Mbit/s with overhead 38 on a 100 Mbit link: goodput
    // 10 Mbit/s × 1000 / (1028 + 38), within 1 %. The buffer is made large enough not to
    // overflow in the run: on overflow BLUE's drop probability climbs against this
    // unresponsive flow until its head drops empty the queue now and then (Linux does the
    // same), which would measure the AQM, not the shaper.
    let t = ScenarioToml::new("12s")
        .warmup("2s")
        .nodes(&["a", "b"])
        .link("l", "a", "b", "100Mbit", "1ms", "")
        .qdisc(
            "a.l",
            "kind = \"cake\"\nbandwidth = \"10Mbit\"\noverhead = 38\ndiffserv = \"besteffort\"\nmemlimit = \"64MiB\"",
        )
        .flow("u", "a", "b", &cbr_rate(1000, "30Mbit"), "");
    let s = load_toml_str(&t.toml()).unwrap();
    let r = run_scenario(&s, BuildOptions::default());
    assert_conserved(&r);
    let got = flow(&r, "u").f("goodput_bps");
    let want = 10e6 * 1000.0 / (1028.0 + 38.0);
    println!("goodput {got:.0} want {want:.0}");
    assert!((got - want).abs() / want < 0.01, "{got} vs {want}");
}

#[test]
fn the_cake_ack_filter_lifts_a_download_limited_by_its_ack_path() {
    // Reference: Høiland-Jørgensen et al. 2018 §4.1 and tc-cake(8) `ack-filter`: on an
    // asymmetric link, a download's pure ACKs fill the slow upstream queue; filtering the
    // ACKs that later ones make redundant frees upstream capacity and lets the download
    // go faster. A 20 Mbit/s downstream with a 200 kbit/s upstream (ACKs of 52 B + 14 B of
    // Ethernet header: ≈ 380 ACKs/s, one per two segments ≈ 9 Mbit/s of download): with
    // the filter on the client's upstream the download rises well above that (≥ 1.5×),
    // the filter's drops are counted as `ack_filter`, and every packet is accounted for.
    let run = |filter: &str| {
        let t = ScenarioToml::new("20s")
            .warmup("5s")
            .nodes(&["server", "router", "client"])
            .link("core", "server", "router", "100Mbit", "5ms", "")
            .link(
                "last",
                "router",
                "client",
                "20Mbit",
                "10ms",
                "reverse = { rate = \"200kbit\" }",
            )
            .qdisc(
                "client.last",
                &format!("kind = \"cake\"\ndiffserv = \"besteffort\"\nack_filter = \"{filter}\""),
            )
            .flow(
                "down",
                "server",
                "client",
                "{ kind = \"bulk\" }\ntransport = { kind = \"tcp\", rcv_buffer = \"4MiB\" }",
                "",
            );
        let s = load_toml_str(&t.toml()).unwrap_or_else(|e| panic!("{e}\n{}", t.toml()));
        let r = run_scenario(&s, BuildOptions::default());
        assert_conserved(&r);
        let q = queue(&r, "client.last");
        (flow(&r, "down").f("goodput_bps"), q.f("drops_ack_filter"))
    };
    let (plain, plain_drops) = run("no-ack-filter");
    let (filtered, drops) = run("ack-filter");
    println!("download {plain:.0} b/s without, {filtered:.0} with the ACK filter ({drops} ACKs filtered)");
    assert_eq!(plain_drops, 0.0);
    assert!(drops > 1000.0, "{drops}");
    assert!(filtered > 1.5 * plain, "{filtered} vs {plain}");
}
