//! fq_codel in a whole scenario (RFC 8290 §1, §4; Linux `sch_fq_codel.c`): a sparse
//! VoIP-like flow beside bulk TCP flows sees sub-millisecond queueing, while the bulk
//! flows hold a standing queue near CoDel's target (5 ms). A pfifo run of the same
//! traffic is the contrast.

mod common;

use common::*;

/// 4 bulk TCP flows and one G.711-like flow (160 B payload every 20 ms over UDP) through a
/// 20 Mbit/s, 10 ms bottleneck under `qdisc`.
fn voip_beside_bulk(qdisc: &str) -> ScenarioToml {
    let mut s = ScenarioToml::new("40s")
        .warmup("10s")
        .nodes(&["sender", "phone", "router", "receiver"])
        .link("access", "sender", "router", "100Mbit", "1ms", "")
        .link("phoneline", "phone", "router", "100Mbit", "1ms", "")
        .link("bottleneck", "router", "receiver", "20Mbit", "10ms", "")
        .qdisc("router.bottleneck", qdisc)
        .flow(
            "voip",
            "phone",
            "receiver",
            &cbr_interval(160, "20ms"),
            "start = \"1s\"",
        );
    for i in 0..4 {
        s = s.flow(
            &format!("bulk{i}"),
            "sender",
            "receiver",
            "{ kind = \"bulk\" }",
            &format!(
                "start = \"{}ms\"\ntransport = {{ kind = \"tcp\", initial_window = 10, min_rto = \"200ms\", rcv_buffer = 4000000 }}",
                50 * i
            ),
        );
    }
    s
}

/// The VoIP packet's delay without queueing: propagation 1 + 10 ms and serialization of
/// 188 B at 100 and 20 Mbit/s.
fn voip_base_ms() -> f64 {
    let bytes = 160 + UDP_IP_HEADERS;
    11.0 + (serialization_ns(bytes, 100_000_000) + serialization_ns(bytes, 20_000_000)) as f64 / 1e6
}

#[test]
fn sparse_flow_sees_sub_millisecond_queueing_while_bulk_flows_hold_about_target() {
    let r = voip_beside_bulk("kind = \"fq_codel\"").run();
    assert_conserved(&r);
    let v = flow(&r, "voip");
    let base = voip_base_ms();
    let (p99, max) = (v.f("delay_p99_ms") - base, v.f("delay_max_ms") - base);
    let q = queue(&r, "router.bottleneck");
    let sojourn = q.f("sojourn_mean_ms");
    let bulk_rtt: Vec<f64> = (0..4)
        .map(|i| flow(&r, &format!("bulk{i}")).f("rtt_mean_ms"))
        .collect();
    let goodput: f64 = (0..4)
        .map(|i| flow(&r, &format!("bulk{i}")).f("goodput_bps"))
        .sum();
    println!(
        "fq_codel: voip queueing p99 {p99:.3} ms, max {max:.3} ms; bulk sojourn mean {sojourn:.2} ms; \
         bulk RTT {bulk_rtt:?} ms; bulk goodput {goodput:.0}; aqm drops {}",
        q.u("drops_aqm")
    );
    // RFC 8290 §1: sparse flows bypass the bulk queues. The VoIP packet waits at most for
    // the packet on the wire (1500 B at 20 Mbit/s = 0.6 ms) and one quantum of a flow
    // that just turned new.
    assert!(p99 < 1.0, "voip p99 queueing {p99} ms");
    assert_eq!(v.u("drops"), 0);
    // CoDel (RFC 8289): the bulk flows' standing queue settles near target = 5 ms (CoDel
    // lets the sojourn exceed target only transiently); accept target ± 50 % for the mean.
    assert!((2.5..7.5).contains(&sojourn), "bulk sojourn {sojourn} ms");
    assert!(q.u("drops_aqm") > 0);
    assert!(goodput > 0.9 * 20e6 - 64_000.0, "link underused: {goodput}");

    // Contrast: the same traffic through a 1000-packet pfifo queues the VoIP flow behind
    // the bulk flows' standing queue (tens of milliseconds).
    let r = voip_beside_bulk("kind = \"pfifo\"\nlimit = 1000").run();
    let p99_fifo = flow(&r, "voip").f("delay_p99_ms") - base;
    println!("pfifo: voip queueing p99 {p99_fifo:.3} ms");
    assert!(
        p99_fifo > 20.0 * p99.max(0.1),
        "pfifo {p99_fifo} ms vs fq_codel {p99} ms"
    );
}
