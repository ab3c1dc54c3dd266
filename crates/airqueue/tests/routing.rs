//! Routing and TTL: unreachable destinations fail before the run, static routes override
//! the computed shortest paths, and a routing loop ends in TTL drops (RFC 791 / RFC 1812:
//! each forwarding hop decrements the TTL and drops the packet at zero).

mod common;

use airqueue::sim::{BuildOptions, Simulation};
use common::*;

/// Reference: a flow whose destination no link reaches cannot run; the build reports it as
/// a scenario problem at `flows.<name>.to` (before any event runs). Tolerance: none.
#[test]
fn a_flow_to_an_unreachable_node_is_rejected_before_the_run_naming_flows_to() {
    let s = ScenarioToml::new("1s")
        .nodes(&["a", "b", "island"])
        .link("ab", "a", "b", "10Mbit", "1ms", "")
        .flow("lost", "a", "island", &cbr_interval(100, "1ms"), "")
        .flow("fine", "a", "b", &cbr_interval(100, "1ms"), "")
        .load();
    let err = Simulation::build(&s, BuildOptions::default())
        .err()
        .expect("a flow to an unreachable node must not build");
    eprintln!("unreachable: {err}");
    assert_eq!(err.problems.len(), 1, "{err}");
    assert_eq!(err.problems[0].path, "flows.lost.to");
    assert!(
        err.problems[0]
            .message
            .contains("no route from \"a\" to \"island\""),
        "{err}"
    );
}

/// The answering half of a call between two nodes no link joins: both halves are "no
/// route" problems, as without `answers` (the build used to index the flows it had built
/// by scenario position and panicked).
#[test]
fn a_call_between_unlinked_nodes_is_no_route_not_a_panic() {
    let s = ScenarioToml::new("1s")
        .nodes(&["a", "b"])
        .flow("call", "a", "b", "{ kind = \"voice\" }", "")
        .flow(
            "reply",
            "b",
            "a",
            "{ kind = \"voice\" }",
            "answers = \"call\"",
        )
        .load();
    let err = Simulation::build(&s, BuildOptions::default())
        .err()
        .expect("a call without a route must not build");
    let paths: Vec<&str> = err.problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["flows.call.to", "flows.reply.to"], "{err}");
    assert!(err.problems[1].message.contains("no route"), "{err}");
}

/// Triangle a, b, c of 100 Mbit links: a–c direct (5 ms), a–b (`ab_delay`) and b–c (10 ms).
/// One 1000 B packet every `interval` from a to c during `duration`.
fn triangle(duration: &str, interval: &str, ab_delay: &str) -> ScenarioToml {
    ScenarioToml::new(duration)
        .nodes(&["a", "b", "c"])
        .link("ab", "a", "b", "100Mbit", ab_delay, "")
        .link("bc", "b", "c", "100Mbit", "10ms", "")
        .link("ac", "a", "c", "100Mbit", "5ms", "")
        .flow("f", "a", "c", &cbr_interval(972, interval), "")
}

/// Reference: shortest path a→c is the direct link, delay 80 µs + 5 ms; the static route
/// "at a, to c, via ab" sends traffic a→b→c instead, delay 2 × (80 µs + 10 ms); every
/// packet's delay equals the closed form of its path. Tolerance: none.
#[test]
fn a_static_route_overrides_the_shortest_path() {
    let ser = serialization_ns(1000, 100_000_000);
    let direct = triangle("2s", "10ms", "10ms").run();
    let routed = triangle("2s", "10ms", "10ms").route("a", "c", "ab").run();
    let (d1, d2) = (flow(&direct, "f"), flow(&routed, "f"));
    eprintln!(
        "triangle: direct delay {} ms, static route via b {} ms",
        d1.f("delay_max_ms"),
        d2.f("delay_max_ms")
    );
    for (f, expected) in [(&d1, ser + 5_000_000), (&d2, 2 * (ser + 10_000_000))] {
        assert_eq!(ms_to_ns(f.f("delay_min_ms")), expected);
        assert_eq!(ms_to_ns(f.f("delay_max_ms")), expected);
    }
    // The traffic used the links the route names, and not the direct one.
    assert_eq!(queue(&direct, "a.ac").u("dequeued_packets"), 200);
    assert_eq!(queue(&direct, "a.ab").u("dequeued_packets"), 0);
    assert_eq!(queue(&routed, "a.ac").u("dequeued_packets"), 0);
    assert_eq!(queue(&routed, "a.ab").u("dequeued_packets"), 200);
    // b forwards what reached it before the end (sent at k·10 ms, at b 10.08 ms later).
    let at_b = instants_before(ser + 10_000_000, 10_000_000, 2 * NS);
    assert_eq!(queue(&routed, "b.bc").u("dequeued_packets"), at_b);
    assert_conserved(&routed);
}

/// Reference: static routes "at a, to c, via ab" and "at b, to c, via ab" make a loop
/// a→b→a→…; a packet leaves with TTL 64 and each arrival at a node that would forward it
/// decrements the TTL, so the 64th arrival finds TTL 0 and drops it (RFC 1812 §5.3.1, which
/// drops a packet arriving with TTL 1) after 64 hops of 80 µs + 1 ms: at k·100 ms + 69.12 ms,
/// before the next packet is sent (so nothing queues). Drops with reason `ttl` = packets whose
/// 64th hop ends before 2.05 s (20 of 21); the rest are in flight; nothing is delivered;
/// conservation holds. Tolerance: none.
#[test]
fn a_routing_loop_drops_packets_by_ttl_and_conserves_them() {
    // One packet every 100 ms, so that each packet's 64 hops end before the next is sent.
    let r = triangle("2.05s", "100ms", "1ms")
        .route("a", "c", "ab")
        .route("b", "c", "ab")
        .run();
    let hop = serialization_ns(1000, 100_000_000) + 1_000_000;
    let (interval, t_end) = (100_000_000, 2_050_000_000);
    assert!(64 * hop < interval);
    let sent = instants_before(0, interval, t_end);
    let expired = instants_before(64 * hop, interval, t_end);
    let f = flow(&r, "f");
    eprintln!(
        "routing loop: sent {} dropped by ttl {} (reference {expired}) delivered {} in flight {}",
        f.u("tx_packets"),
        f.u("drops_ttl"),
        f.u("rx_packets"),
        r.summary.packets.in_flight
    );
    assert_eq!((sent, expired), (21, 20));
    assert_eq!(f.u("tx_packets"), sent);
    assert_eq!(f.u("drops_ttl"), expired);
    assert_eq!(f.u("drops"), expired);
    assert_eq!(f.u("rx_packets"), 0);
    assert_eq!(r.summary.packets.dropped["ttl"], expired);
    assert_eq!(r.summary.packets.in_flight, sent - expired);
    let (ab, ba) = (
        queue(&r, "a.ab").u("dequeued_packets"),
        queue(&r, "b.ab").u("dequeued_packets"),
    );
    // Each expired packet crossed a→b and b→a 32 times each; the packet still looping (sent
    // at 2 s) started its hops at 2 s + j·1.08 ms, 47 of them before the end, alternately
    // a→b (24) and b→a (23).
    let started = instants_before((sent - 1) * interval, hop, t_end);
    assert_eq!(started, 47);
    assert_eq!(
        (ab, ba),
        (
            32 * expired + started.div_ceil(2),
            32 * expired + started / 2
        )
    );
    assert_eq!(queue(&r, "a.ac").u("dequeued_packets"), 0);
    assert_conserved(&r);
}
