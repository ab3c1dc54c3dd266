//! One-way delay and goodput of an uncongested path against the closed form
//! delay = Σ over hops (serialization + propagation), serialization = ⌈bytes·8·10⁹/rate⌉ ns.
//!
//! With a CBR source whose interval exceeds every hop's serialization time, no packet ever
//! waits in a queue, so every packet's delay is the same and equals the closed form to the
//! nanosecond; the tolerance is zero.

mod common;

use common::*;

/// sender —(100 Mbit, 1 ms)— router —(10 Mbit, 20 ms)— receiver, CBR of 972 B payloads
/// (1000 B on the wire) at 7.776 Mbit/s of payload, i.e. one packet every 1 ms.
fn two_hop(extra_flow_keys: &str) -> ScenarioToml {
    ScenarioToml::new("10s")
        .nodes(&["sender", "router", "receiver"])
        .link("access", "sender", "router", "100Mbit", "1ms", "")
        .link("bottleneck", "router", "receiver", "10Mbit", "20ms", "")
        .flow(
            "cbr",
            "sender",
            "receiver",
            &cbr_rate(972, "7.776Mbit"),
            extra_flow_keys,
        )
}

/// Reference: closed form 1000·8/100e6 + 1 ms + 1000·8/10e6 + 20 ms = 21.880 000 ms for every
/// packet; packets counted as received are exactly those sent at k·1 ms with
/// k·1 ms + 21.88 ms < 10 s (the run processes events strictly before its end).
/// Tolerance: none (min, max and mean delay equal the closed form to the nanosecond; p50 and
/// p99 within HdrHistogram's 0.1 %).
#[test]
fn cbr_below_bottleneck_rate_has_every_delay_equal_to_serialization_plus_propagation() {
    let r = two_hop("").run();
    let wire = 972 + UDP_IP_HEADERS;
    assert_eq!(wire, 1000);
    let interval = 972 * 8 * NS / 7_776_000; // size·8 / rate
    assert_eq!(interval, 1_000_000);
    let (t_end, access_delay, bottleneck_delay) = (10 * NS, 1_000_000, 20_000_000);
    let delay = serialization_ns(wire, 100_000_000)
        + access_delay
        + serialization_ns(wire, 10_000_000)
        + bottleneck_delay;
    assert_eq!(delay, 21_880_000);
    let sent = instants_before(0, interval, t_end);
    let received = instants_before(0, interval, t_end - delay);
    assert_eq!((sent, received), (10_000, 9_979));

    let f = flow(&r, "cbr");
    eprintln!(
        "two-hop CBR: sent {} received {} delay min {} max {} mean {} ms (closed form {} ns)",
        f.u("tx_packets"),
        f.u("rx_packets"),
        f.f("delay_min_ms"),
        f.f("delay_max_ms"),
        f.f("delay_mean_ms"),
        delay
    );
    assert_eq!(f.u("tx_packets"), sent);
    assert_eq!(f.u("tx_bytes"), sent * 972);
    assert_eq!(f.u("rx_packets"), received);
    assert_eq!(f.u("rx_bytes"), received * 972);
    assert_eq!(f.u("drops"), 0);
    assert_eq!(ms_to_ns(f.f("delay_min_ms")), delay);
    assert_eq!(ms_to_ns(f.f("delay_max_ms")), delay);
    assert!(
        (f.f("delay_mean_ms") * 1e6 - delay as f64).abs() < 1e-3,
        "mean {}",
        f.f("delay_mean_ms")
    );
    for q in ["delay_p50_ms", "delay_p99_ms"] {
        let v = f.f(q) * 1e6;
        assert!((v / delay as f64 - 1.0).abs() <= 1e-3, "{q} = {v} ns");
    }
    assert_eq!(f.f("ipdv_mean_ms"), 0.0);
    // Goodput over the 10 s window counts the payload of the packets that arrived.
    let goodput = f.f("goodput_bps");
    assert!(
        (goodput - (received * 972 * 8) as f64 / 10.0).abs() < 1e-6,
        "goodput {goodput}"
    );

    // Nobody waited: both qdiscs had a zero time-averaged backlog and zero sojourn.
    for dev in ["sender.access", "router.bottleneck"] {
        let q = queue(&r, dev);
        assert_eq!(q.f("backlog_mean_packets"), 0.0, "{dev}");
        assert_eq!(q.f("sojourn_mean_ms"), 0.0, "{dev}");
        assert_eq!(q.u("drops"), 0, "{dev}");
    }
    assert_conserved(&r);
    let p = &r.summary.packets;
    assert_eq!(
        (p.sent, p.delivered, p.in_flight),
        (sent, received, sent - received)
    );
}

/// Reference: offered payload rate 7.776 Mbit/s; with `stop = 9.9s` every packet (the last
/// sent at 9.899 s) arrives before the run ends at 10 s, so goodput over the flow's active
/// window [0, 9.9 s) = 9 900 · 972 B · 8 / 9.9 s = 7 776 000 bit/s.
/// Tolerance: 1e-9 relative (floating-point division only).
#[test]
fn cbr_below_bottleneck_rate_gets_exactly_its_offered_payload_rate() {
    let r = two_hop("stop = \"9.9s\"").run();
    let f = flow(&r, "cbr");
    let goodput = f.f("goodput_bps");
    eprintln!("two-hop CBR with stop: goodput {goodput} bit/s (offered 7776000)");
    assert_eq!(f.u("tx_packets"), 9_900);
    assert_eq!(f.u("rx_packets"), 9_900);
    assert!(
        (goodput / 7_776_000.0 - 1.0).abs() < 1e-9,
        "goodput {goodput}"
    );
    assert_conserved(&r);
    assert_eq!(r.summary.packets.in_flight, 0);
}

/// Reference: tc's `overhead` adds bytes to every packet's serialization time:
/// delay = ⌈1038·8/100e6⌉ + 1 ms + ⌈1038·8/7e6⌉ + 20 ms = 83 040 + 1 000 000 + 1 186 286
/// (1 186 285.71… rounded up) + 20 000 000 = 22 269 326 ns for every packet (CBR every 2 ms,
/// above every serialization time, so nobody queues).
/// Tolerance: none (min = max = closed form to the nanosecond).
#[test]
fn link_overhead_adds_to_serialization_time_rounded_up_to_the_nanosecond() {
    let r = ScenarioToml::new("10s")
        .nodes(&["sender", "router", "receiver"])
        .link(
            "access",
            "sender",
            "router",
            "100Mbit",
            "1ms",
            "overhead = 38",
        )
        .link(
            "bottleneck",
            "router",
            "receiver",
            "7Mbit",
            "20ms",
            "overhead = 38",
        )
        .flow("cbr", "sender", "receiver", &cbr_interval(972, "2ms"), "")
        .run();
    let frame = 972 + UDP_IP_HEADERS + 38;
    let delay = serialization_ns(frame, 100_000_000)
        + 1_000_000
        + serialization_ns(frame, 7_000_000)
        + 20_000_000;
    assert_eq!(delay, 22_269_326);
    let (t_end, interval) = (10 * NS, 2_000_000);
    let f = flow(&r, "cbr");
    eprintln!(
        "overhead: delay min {} max {} ms (closed form {} ns), received {}",
        f.f("delay_min_ms"),
        f.f("delay_max_ms"),
        delay,
        f.u("rx_packets")
    );
    assert_eq!(ms_to_ns(f.f("delay_min_ms")), delay);
    assert_eq!(ms_to_ns(f.f("delay_max_ms")), delay);
    assert_eq!(f.u("tx_packets"), instants_before(0, interval, t_end));
    assert_eq!(
        f.u("rx_packets"),
        instants_before(0, interval, t_end - delay)
    );
    assert_conserved(&r);
}
