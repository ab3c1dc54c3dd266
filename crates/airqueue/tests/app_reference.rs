//! The seeds' applications against their definitions: voice and video as D-ITG sends them
//! (seed 000 Table 2), ping's round trips against the path arithmetic and the queueing
//! delay it probes, web pages against the RTT arithmetic of seed 002 ("the TCP connection
//! setup followed by a Web download of a 20-kB file will take approximately five RTTs"),
//! and a bulk file's completion time.

mod common;

use common::{
    assert_conserved, flow, instants_before, ms_to_ns, queue, serialization_ns, ScenarioToml, NS,
};

/// One 10 Mbit, 10 ms link between `a` and `b`.
fn one_link(duration: &str) -> ScenarioToml {
    ScenarioToml::new(duration)
        .nodes(&["a", "b"])
        .link("l", "a", "b", "10Mbit", "10ms", "")
}

#[test]
fn voice_g711_one_frame_is_seed_000s_120_byte_flow_at_100_packets_per_second() {
    // Reference: D-ITG's G.711.1 (voIPParser: 80 B × 1 frame + 12 B RTP, 100 packets/s) is
    // seed 000's "Voice UDP – 120": 120-B IP packets every 10 ms. Exact counts and delays.
    let r = one_link("10s")
        .flow(
            "voice",
            "a",
            "b",
            "{ kind = \"voice\", codec = \"g711\", frames_per_packet = 1 }",
            "",
        )
        .run();
    assert_conserved(&r);
    let v = flow(&r, "voice");
    let delay = serialization_ns(120, 10_000_000) + 10_000_000;
    assert_eq!(v.u("tx_packets"), instants_before(0, 10_000_000, 10 * NS));
    // Received: those whose arrival falls before the end of the run.
    let n = instants_before(0, 10_000_000, 10 * NS - delay);
    assert_eq!(v.u("rx_packets"), n);
    assert_eq!(
        v.u("rx_bytes"),
        n * 92,
        "UDP payload: 80 B of speech + 12 B RTP"
    );
    assert_eq!(ms_to_ns(v.f("delay_min_ms")), delay);
    assert_eq!(ms_to_ns(v.f("delay_max_ms")), delay);
}

#[test]
fn voice_default_is_160_bytes_of_g711_every_20_ms_in_200_byte_packets() {
    // Reference: 64 kbit/s × 20 ms = 160 B of speech + 12 B RTP + 28 B UDP/IP = 200 B, seed
    // 002's "G.711 coding, 200-B packets"; 50 packets/s.
    let r = one_link("10s")
        .flow("voice", "a", "b", "{ kind = \"voice\" }", "")
        .run();
    let v = flow(&r, "voice");
    let delay = serialization_ns(200, 10_000_000) + 10_000_000;
    let n = instants_before(0, 20_000_000, 10 * NS - delay);
    assert_eq!(v.u("rx_packets"), n);
    assert_eq!(v.u("rx_bytes"), n * 172);
    assert_eq!(ms_to_ns(v.f("delay_mean_ms")), delay);
}

#[test]
fn video_sends_table_2s_packet_rate_of_1500_byte_packets() {
    // Reference: seed 000 Table 2, Video-WLAN: 45 packets/s of 1500 B (IP); the interval is
    // 1/45 s rounded to the ns (22 222 222 ns).
    let r = one_link("10s")
        .flow(
            "video",
            "a",
            "b",
            "{ kind = \"video\", packets_per_second = 45 }",
            "",
        )
        .run();
    let v = flow(&r, "video");
    let delay = serialization_ns(1500, 10_000_000) + 10_000_000;
    assert_eq!(v.u("tx_packets"), instants_before(0, 22_222_222, 10 * NS));
    let n = instants_before(0, 22_222_222, 10 * NS - delay);
    assert_eq!(n, 450);
    assert_eq!(v.u("rx_packets"), n);
    assert_eq!(v.u("rx_bytes"), n * 1472);
    assert_eq!(ms_to_ns(v.f("delay_max_ms")), delay);
}

/// host —100 Mbit, 1 ms— router —10 Mbit, 20 ms— host.
fn two_hops(duration: &str) -> ScenarioToml {
    ScenarioToml::new(duration)
        .nodes(&["sender", "router", "receiver"])
        .link("access", "sender", "router", "100Mbit", "1ms", "")
        .link("bottleneck", "router", "receiver", "10Mbit", "20ms", "")
}

#[test]
fn ping_on_an_idle_path_measures_serialization_and_propagation_both_ways() {
    // Reference: an 84-B echo (56 B data + 8 ICMP + 20 IP) serialized and propagated on
    // both links, there and back: 2 × (6 720 + 1 000 000 + 67 200 + 20 000 000) ns.
    let r = two_hops("10.5s")
        .flow("ping", "sender", "receiver", "{ kind = \"ping\" }", "")
        .run();
    assert_conserved(&r);
    let p = flow(&r, "ping");
    let rtt = 2 * (serialization_ns(84, 100_000_000) + 1_000_000)
        + 2 * (serialization_ns(84, 10_000_000) + 20_000_000);
    assert_eq!(p.u("tx_packets"), 11, "one request per second from 0 s");
    assert_eq!(p.u("rtt_samples"), 11);
    assert_eq!(ms_to_ns(p.f("rtt_min_ms")), rtt);
    assert_eq!(ms_to_ns(p.f("rtt_max_ms")), rtt);
    // The requests are the flow's packets: their one-way delay is half the round trip.
    assert_eq!(ms_to_ns(p.f("delay_mean_ms")) * 2, rtt);
    let row = r.flows.row_of("flow", "ping").unwrap();
    match r.flows.column("transport") {
        Some(airqueue::metrics::Column::Str(v)) => assert_eq!(v[row], "icmp"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn ping_measures_the_queueing_delay_that_a_bulk_flow_builds() {
    // Reference: a request waits in the bottleneck pfifo as long as the packets around it
    // (the queue's mean sojourn, measured by the qdisc) plus the residual transmission of
    // the segment on the wire (half of 1 500 B at 10 Mbit, 0.6 ms, the link being always
    // busy); the rest of its round trip is the idle-path RTT. Tolerance 5 % of the
    // queueing part. Pings every 10 ms over 50 s sample the slowly moving saw-tooth.
    // Measured: 75.83 ms of queueing vs 75.78 ms (+0.07 %).
    let r = two_hops("60s")
        .warmup("10s")
        .pfifo("router.bottleneck", 100)
        .flow(
            "bulk",
            "sender",
            "receiver",
            "{ kind = \"bulk\" }",
            "transport = { kind = \"tcp\", rcv_buffer = \"1MiB\" }",
        )
        .flow(
            "ping",
            "sender",
            "receiver",
            "{ kind = \"ping\", interval = \"10ms\" }",
            "",
        )
        .run();
    assert_conserved(&r);
    let idle = 2 * (serialization_ns(84, 100_000_000) + 1_000_000)
        + 2 * (serialization_ns(84, 10_000_000) + 20_000_000);
    let measured = flow(&r, "ping").f("rtt_mean_ms") * 1e6 - idle as f64;
    let sojourn = queue(&r, "router.bottleneck").f("sojourn_mean_ms") * 1e6;
    let residual = serialization_ns(1500, 10_000_000) as f64 / 2.0;
    let want = sojourn + residual;
    assert!(want > 50e6, "the queue must be loaded: {want}");
    assert!(
        (measured / want - 1.0).abs() < 0.05,
        "ping queueing {measured} ns vs qdisc sojourn + residual {want} ns"
    );
}

/// A web client 300 ms away from its server (seed 002's netem WAN), 100 Mbit so that
/// serialization is small; objects of a fixed size (a Pareto of huge shape is a point mass
/// at its mean), `aux` auxiliary objects, constant 1 s think times; ACK every segment, so
/// that slow start doubles per round.
fn web(aux: u32, parallel: u32, extra: &str, duration: &str) -> ScenarioToml {
    ScenarioToml::new(duration)
        .nodes(&["server", "client"])
        .link("wan", "server", "client", "100Mbit", "150ms", extra)
        .flow(
            "web",
            "server",
            "client",
            &format!(
                "{{ kind = \"web\", shape = 1e9, aux_min = {aux}, aux_max = {aux}, parallel = {parallel}, think_time = \"1s\", think_distribution = \"constant\" }}"
            ),
            "transport = { kind = \"tcp\", delayed_ack = false }",
        )
}

/// Rounds of slow start from one segment that `segments` need: the least k with 2^k − 1 ≥ n.
fn slow_start_rounds(segments: u64) -> u64 {
    (1..64).find(|k| (1u64 << k) > segments).unwrap()
}

#[test]
fn a_20_kb_web_object_takes_five_rtts() {
    // Reference (seed 002 §II-D: "the TCP connection setup followed by a Web download of a
    // 20-kB file will take approximately five RTTs"): the client's SYN, the server's SYN-ACK
    // and the client's ACK + request put the first byte at the client after 2 RTTs; 20 000 B
    // are 14 segments of 1 448 B, 4 rounds of slow start from one segment (1+2+4+8), so the
    // last byte arrives (2 + 4 − 1) RTT = 1.5 s after the request, plus serialization.
    // Tolerance 0.5 %. Pages: one every 1.5 s + 1 s of think time, 24 in 60 s.
    let rounds = slow_start_rounds(20_000u64.div_ceil(1448));
    assert_eq!(rounds, 4);
    let r = web(0, 1, "", "60s").run();
    assert_conserved(&r);
    let w = flow(&r, "web");
    let want = (2 + rounds - 1) as f64 * 0.3;
    assert!(
        (w.f("page_response_mean_s") / want - 1.0).abs() < 0.005,
        "{}",
        w.f("page_response_mean_s")
    );
    assert_eq!(w.u("pages_completed"), 24);
    assert_eq!(w.u("connections"), 24);
    assert_eq!(w.u("rx_bytes"), 24 * 20_000);
}

#[test]
fn auxiliary_objects_come_after_the_main_one_in_parallel_or_in_turn() {
    // Reference: the main object (5 RTTs), then 3 auxiliaries on parallel connections (5
    // RTTs more) or one at a time (15 RTTs more): 10 or 20 RTTs per page. Tolerance 0.5 %.
    for (parallel, rtts) in [(3, 10.0), (1, 20.0)] {
        let r = web(3, parallel, "", "60s").run();
        assert_conserved(&r);
        let got = flow(&r, "web").f("page_response_mean_s");
        assert!(
            (got / (rtts * 0.3) - 1.0).abs() < 0.005,
            "parallel {parallel}: {got} s"
        );
    }
}

#[test]
fn the_pages_table_lists_every_page_with_its_request_and_completion() {
    // Reference: the arithmetic of `a_20_kb_web_object_takes_five_rtts`: each page is
    // requested when the previous one's 1 s think time ends and answered 1.5 s (5 RTTs of
    // 0.3 s) later, so page k spans [2.5 k, 2.5 k + 1.5] s (0.5 % tolerance; the next page
    // is requested exactly 1 s after the previous one's last byte); the table's
    // pages after the warm-up are the flow table's `pages_completed` and their mean is its
    // `page_response_mean_s` (exact).
    let r = web(0, 1, "", "60s").run();
    let (_, pages) = r
        .more
        .iter()
        .find(|(n, _)| n == "pages")
        .expect("pages table");
    let (start, end) = (pages.f64s("start_s"), pages.f64s("end_s"));
    let response = pages.f64s("response_s");
    assert_eq!(pages.u64s("page"), (0..24).collect::<Vec<u64>>());
    for k in 0..24 {
        let want = 2.5 * k as f64;
        assert!(
            (start[k] - want).abs() <= 0.005 * want,
            "page {k} at {}",
            start[k]
        );
        if k > 0 {
            assert!(
                (start[k] - end[k - 1] - 1.0).abs() < 1e-9,
                "think time before {k}"
            );
        }
        assert!((end[k] - start[k] - 1.5).abs() <= 0.005 * 1.5, "page {k}");
        assert!((response[k] - (end[k] - start[k])).abs() < 1e-9);
    }
    let w = flow(&r, "web");
    assert_eq!(w.u("pages_completed"), pages.rows() as u64);
    let mean = response.iter().sum::<f64>() / response.len() as f64;
    assert!((mean - w.f("page_response_mean_s")).abs() < 1e-9);
    // A scenario without web flows has no pages table.
    let bulk = one_link("1s")
        .flow(
            "f",
            "a",
            "b",
            "{ kind = \"bulk\" }",
            "transport = { kind = \"tcp\" }",
        )
        .run();
    assert!(bulk.more.iter().all(|(n, _)| n != "pages"));
}

#[test]
fn web_pages_complete_over_a_lossy_path_and_every_packet_is_accounted_for() {
    // 3 % Bernoulli loss each way: handshakes, data and ACKs are lost and recovered; pages
    // keep completing (slower), no connection is left behind, conservation holds.
    // Measured over 600 s: 100 pages, 4.99 s mean response, 401 connections, 255
    // retransmissions, 158 timeouts.
    let r = web(3, 3, "impairment = { loss = 0.03 }", "600s").run();
    assert_conserved(&r);
    let w = flow(&r, "web");
    assert!(w.u("retransmits") > 0 && w.u("timeouts") > 0);
    let pages = w.u("pages_completed");
    assert!(pages > 50, "{pages} pages");
    assert!(w.f("page_response_mean_s") > 3.0);
    // Every page opened 4 connections; at most the current page's are still open.
    let conns = w.u("connections");
    assert!(
        conns >= 4 * pages && conns <= 4 * pages + 4,
        "{conns} for {pages}"
    );
}

#[test]
fn a_bulk_file_completes_when_its_last_byte_arrives() {
    // Reference: 100 000 B = 70 segments (69 × 1 448 + 88) over the idle 10 Mbit, 20 ms
    // path with an ACK per segment: slow start from one segment needs 7 rounds (1+2+…+64 ≥
    // 70); the window of the last round fits in the pipe, so the last byte arrives after 6
    // round trips plus one one-way trip (the first segment's), plus the serialization of
    // the last round's segments on the bottleneck. Measured: exactly that (288 626 560 ns);
    // tolerance 1 µs for the seconds column's rounding.
    let r = two_hops("10s")
        .flow(
            "file",
            "sender",
            "receiver",
            "{ kind = \"bulk\", bytes = \"100000B\" }",
            "transport = { kind = \"tcp\", delayed_ack = false }",
        )
        .run();
    assert_conserved(&r);
    let f = flow(&r, "file");
    assert_eq!(f.u("rx_bytes"), 100_000);
    let seg =
        |bytes: u64| serialization_ns(bytes, 100_000_000) + serialization_ns(bytes, 10_000_000);
    let ack = serialization_ns(52, 10_000_000) + serialization_ns(52, 100_000_000);
    let rtt = seg(1500) + ack + 2 * 21_000_000;
    let rounds = slow_start_rounds(70);
    assert_eq!(rounds, 7);
    // Last round: segments 64..70 (6 full + the 140-B tail) leave back to back.
    let last_round = 5 * serialization_ns(1500, 10_000_000) + serialization_ns(140, 10_000_000);
    let want = (rounds - 1) * rtt + seg(1500) + 21_000_000 + last_round;
    let got = (f.f("completion_s") * 1e9).round() as u64;
    assert!(
        got.abs_diff(want) <= 1_000,
        "completion {got} ns vs {want} ns"
    );
}

#[test]
fn a_bulk_flow_stops_writing_at_its_stop_time() {
    // The flow's `stop` ends the application's writes: what was sent is still delivered,
    // then the flow falls silent and its completion time is recorded.
    let r = two_hops("20s")
        .sample_interval("100ms")
        .pfifo("router.bottleneck", 100)
        .flow(
            "bulk",
            "sender",
            "receiver",
            "{ kind = \"bulk\" }",
            "stop = \"5s\"\ntransport = { kind = \"tcp\", rcv_buffer = \"1MiB\" }",
        )
        .run();
    assert_conserved(&r);
    let f = flow(&r, "bulk");
    let done = f.f("completion_s");
    // After 5 s at most a window (cwnd ≤ BDP + buffer ≈ 136 segments, 0.17 s at 10 Mbit)
    // and a couple of RTTs remain.
    assert!((5.0..5.5).contains(&done), "completion {done} s");
    let tput = common::series(&r.timeseries, "bulk", "throughput_bps");
    assert!(tput
        .iter()
        .filter(|(t, _)| *t > 6.0)
        .all(|(_, v)| *v == 0.0));
    assert!(tput.iter().any(|(t, v)| *t < 5.0 && *v > 9e6));
}
