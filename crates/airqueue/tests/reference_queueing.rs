//! Queueing against references: a deterministic overload of a pfifo (D/D/1/K, counted
//! exactly from first principles) and Poisson arrivals into a FIFO (M/D/1, against the
//! Pollaczek–Khinchine mean waiting time and Little's law).

mod common;

use common::*;

/// What a pfifo of `limit` packets in front of a link holds when CBR arrivals come twice as
/// fast as the link serves them, derived from first principles (no simulation).
#[derive(Debug, PartialEq, Eq)]
struct Overload {
    /// Packets the source emitted (at k·interval, strictly before the end).
    sent: u64,
    /// Packets that reached the qdisc (at offset + k·interval, strictly before the end).
    offered: u64,
    /// Transmissions completed on the bottleneck before the end.
    completed: u64,
    /// Packets in the qdisc at the end.
    queued: u64,
    /// Packets being serialized at the end.
    transmitting: u64,
    /// Completed transmissions still propagating on the bottleneck wire at the end.
    propagating: u64,
    /// Packets still between the source and the qdisc (on the access link).
    upstream: u64,
    delivered: u64,
}

/// Arrivals reach the qdisc at `offset + k·interval`; each packet takes `service` ns to
/// serialize and `prop` ns to propagate; the qdisc admits a packet iff fewer than `limit`
/// are queued (the packet in transmission does not count). Requires interval < service.
fn overload_reference(
    t_end: u64,
    interval: u64,
    service: u64,
    offset: u64,
    prop: u64,
    limit: u64,
) -> Overload {
    assert!(
        interval < service,
        "the reference needs an arrival rate above the service rate"
    );
    // No arrival instant offset + k·I equals a departure instant offset + m·S (m ≥ 1) before
    // the end, so no tie-breaking rule enters the count.
    let arrivals = instants_before(offset, interval, t_end);
    for m in 1..=instants_before(offset + service, service, t_end) {
        assert_ne!(
            (m * service) % interval,
            0,
            "arrival and departure coincide at m = {m}"
        );
    }
    // The first packet finds the link idle and starts at `offset`. Before the first drop,
    // the qdisc holds (arrivals so far) − (departures so far) − 1, and since I < S there are
    // more arrivals than departures at every departure instant: the link never idles. After
    // the first drop the qdisc is full; each departure takes one packet and the next arrival
    // (less than S later) refills it, so the link never idles afterwards either. Hence
    // departures happen at exactly offset + m·S, m = 1, 2, …
    let completed = instants_before(offset + service, service, t_end);
    let last_departure = offset + completed * service;
    let last_arrival = offset + (arrivals - 1) * interval;
    // First drop: arrival k finds k − 1 − ⌊k·I/S⌋ packets queued (k arrivals before it, of
    // which ⌊k·I/S⌋ + 1 have started transmission).
    let first_drop = (1..arrivals)
        .find(|&k| k - 1 - (k * interval) / service == limit)
        .expect("the qdisc overflows during the run");
    let first_drop_time = offset + first_drop * interval;
    // The qdisc is full at the end iff it had overflowed before the last departure and an
    // arrival refilled it after that departure.
    assert!(first_drop_time < last_departure && last_arrival > last_departure);
    let propagating = completed - instants_before(offset + service, service, t_end - prop);
    Overload {
        sent: instants_before(0, interval, t_end),
        offered: arrivals,
        completed,
        queued: limit,
        transmitting: 1,
        propagating,
        upstream: instants_before(0, interval, t_end) - arrivals,
        delivered: completed - propagating,
    }
}

/// Checks a run of the overload scenario against the reference; the qdisc is on `dev`.
fn check_overload(r: &airqueue::sim::RunResults, dev: &str, x: &Overload) {
    let dropped = x.offered - x.completed - x.queued - x.transmitting;
    let f = flow(r, "cbr");
    let q = queue(r, dev);
    let p = &r.summary.packets;
    eprintln!(
        "overload on {dev}: sent {} delivered {} dropped {} (reference {dropped}) queued {} in flight {} | reference {x:?}",
        p.sent,
        p.delivered,
        p.dropped["qdisc_overflow"],
        q.u("backlog_end_packets"),
        p.in_flight
    );
    assert_eq!(f.u("tx_packets"), x.sent);
    assert_eq!(f.u("rx_packets"), x.delivered);
    assert_eq!(f.u("drops_qdisc_overflow"), dropped);
    assert_eq!(f.u("drops"), dropped);
    assert_eq!(q.u("drops_qdisc_overflow"), dropped);
    assert_eq!(q.u("backlog_end_packets"), x.queued);
    assert_eq!(q.u("backlog_max_packets"), x.queued);
    // Every completed transmission and the one in progress were dequeued.
    assert_eq!(q.u("dequeued_packets"), x.completed + x.transmitting);
    assert_eq!(
        q.u("enqueued_packets"),
        x.completed + x.transmitting + x.queued
    );
    // The whole-run ledger: sent = delivered + dropped + in flight, each term as derived.
    assert_eq!(p.sent, x.sent);
    assert_eq!(p.delivered, x.delivered);
    assert_eq!(p.dropped["qdisc_overflow"], dropped);
    assert_eq!(p.dropped.values().sum::<u64>(), dropped);
    assert_eq!(
        p.in_flight,
        x.queued + x.transmitting + x.propagating + x.upstream
    );
    assert_eq!(p.sent, p.delivered + dropped + p.in_flight);
    assert_conserved(r);
}

/// Reference: D/D/1/K counted from first principles (see `overload_reference`): 1000 B on
/// a 10 Mbit link is 800 000 ns of service, a packet arrives every 400 001 ns (≈ 2× the
/// rate), the pfifo holds 50; the source is attached directly to the bottleneck, so the qdisc
/// is the sender's egress. drops = offered − completed − queued (50) − in transmission (1).
/// Tolerance: none (exact counts).
#[test]
fn oversubscribed_pfifo_at_the_source_drops_exactly_the_excess() {
    let r = ScenarioToml::new("10s")
        .nodes(&["sender", "receiver"])
        .link("bottleneck", "sender", "receiver", "10Mbit", "5ms", "")
        .pfifo("sender.bottleneck", 50)
        .flow(
            "cbr",
            "sender",
            "receiver",
            &cbr_interval(972, "400001ns"),
            "",
        )
        .run();
    let service = serialization_ns(1000, 10_000_000);
    assert_eq!(service, 800_000);
    let x = overload_reference(10 * NS, 400_001, service, 0, 5_000_000, 50);
    // 25 000 sent; the 12 500th transmission would end exactly at 10 s, which the run does
    // not process: 12 499 completed, one in transmission; 6 still on the 5 ms wire.
    assert_eq!(
        (x.sent, x.completed, x.propagating, x.upstream),
        (25_000, 12_499, 6, 0)
    );
    check_overload(&r, "sender.bottleneck", &x);
}

/// Reference: as above, behind a 1 Gbit / 1 ms access link: packets reach the router's
/// pfifo 8 µs + 1 ms after they are sent, a constant offset that shifts every arrival and
/// departure alike. Packets still on the access link are counted as in flight upstream.
/// Tolerance: none (exact counts).
#[test]
fn oversubscribed_pfifo_behind_a_fast_access_link_drops_exactly_the_excess() {
    let r = ScenarioToml::new("10s")
        .nodes(&["sender", "router", "receiver"])
        .link("access", "sender", "router", "1Gbit", "1ms", "")
        .link("bottleneck", "router", "receiver", "10Mbit", "5ms", "")
        .pfifo("router.bottleneck", 50)
        .flow(
            "cbr",
            "sender",
            "receiver",
            &cbr_interval(972, "400001ns"),
            "",
        )
        .run();
    let offset = serialization_ns(1000, 1_000_000_000) + 1_000_000;
    let x = overload_reference(10 * NS, 400_001, 800_000, offset, 5_000_000, 50);
    assert!(x.upstream > 0);
    check_overload(&r, "router.bottleneck", &x);
    // The access link never queued (8 µs of serialization every 400 µs).
    assert_eq!(queue(&r, "sender.access").u("drops"), 0);
    assert_eq!(queue(&r, "sender.access").f("sojourn_mean_ms"), 0.0);
}

/// Runs Poisson arrivals of 1000 B packets (972 B payload) with mean inter-arrival time
/// `interval_ns` into a pfifo with a limit no run can reach, on a 10 Mbit / 1 ms link the
/// source is attached to (service D = 800 µs), for about `packets` packets after a 10 s
/// warm-up; compares with M/D/1.
fn md1_against_pollaczek_khinchine(interval_ns: u64, packets: u64) {
    let (service, prop, warmup_s) = (800_000.0, 1_000_000.0, 10);
    let duration_s = packets * interval_ns / NS + warmup_s;
    let r = ScenarioToml::new(&format!("{duration_s}s"))
        .warmup(&format!("{warmup_s}s"))
        .sample_interval("1s")
        .nodes(&["sender", "receiver"])
        .link("link", "sender", "receiver", "10Mbit", "1ms", "")
        .pfifo("sender.link", 100_000_000)
        .flow(
            "poisson",
            "sender",
            "receiver",
            &poisson_interval(972, &format!("{interval_ns}ns")),
            "",
        )
        .run();
    assert_eq!(serialization_ns(1000, 10_000_000) as f64, service);
    let lambda = 1.0 / interval_ns as f64; // per ns
    let rho = lambda * service;
    // Pollaczek–Khinchine for deterministic service: W_q = ρ·D / (2(1 − ρ)).
    let wq = rho * service / (2.0 * (1.0 - rho));
    let lq = lambda * wq; // Little's law
    let q = queue(&r, "sender.link");
    let f = flow(&r, "poisson");
    // In Linux semantics the packet in service has left the qdisc: the qdisc sojourn is W_q.
    let wq_sojourn = q.f("sojourn_mean_ms") * 1e6;
    // FIFO and a dedicated link: one-way delay = W_q + D + propagation, packet by packet.
    let wq_delay = f.f("delay_mean_ms") * 1e6 - service - prop;
    let lq_measured = q.f("backlog_mean_packets");
    let window = (duration_s - warmup_s) as f64 * 1e9;
    let lambda_measured = q.u("dequeued_packets") as f64 / window;
    let rel = |x: f64, reference: f64| x / reference - 1.0;
    eprintln!(
        "M/D/1 rho {rho:.4}: {} packets; W_q reference {:.2} us, qdisc sojourn {:.2} us ({:+.2} %), \
         from delay {:.2} us ({:+.2} %); L_q reference {lq:.4}, time-averaged backlog {lq_measured:.4} ({:+.2} %), \
         lambda_hat*W_q_hat {:.4}",
        q.u("dequeued_packets"),
        wq / 1e3,
        wq_sojourn / 1e3,
        100.0 * rel(wq_sojourn, wq),
        wq_delay / 1e3,
        100.0 * rel(wq_delay, wq),
        100.0 * rel(lq_measured, lq),
        lambda_measured * wq_sojourn,
    );
    assert!(q.u("dequeued_packets") >= packets * 99 / 100);
    assert!(
        rel(wq_sojourn, wq).abs() < 0.05,
        "qdisc sojourn {wq_sojourn} ns vs W_q {wq} ns"
    );
    assert!(
        rel(wq_delay, wq).abs() < 0.05,
        "delay-based W_q {wq_delay} ns vs {wq} ns"
    );
    assert!(
        rel(lq_measured, lq).abs() < 0.05,
        "backlog {lq_measured} vs L_q {lq}"
    );
    // Little's law on the sample path itself (measured λ and W_q): only the packets queued at
    // the window's two edges differ, far below 0.5 %.
    assert!(rel(lq_measured, lambda_measured * wq_sojourn).abs() < 0.005);
    assert_eq!(q.u("drops"), 0);
    assert_conserved(&r);
}

/// Reference: M/D/1 Pollaczek–Khinchine mean wait W_q = ρD/(2(1−ρ)) = 400 µs at ρ = 0.5
/// (D = 800 µs, mean inter-arrival 1.6 ms) and Little's law L_q = λW_q = 0.25 packets.
/// Tolerance: 5 % relative on W_q (from the qdisc sojourn and from the one-way delay) and on
/// L_q (time-averaged qdisc backlog), over ~1 000 000 packets after a 10 s warm-up.
#[test]
fn poisson_into_fifo_at_load_0_5_waits_as_md1_pollaczek_khinchine() {
    md1_against_pollaczek_khinchine(1_600_000, 1_000_000);
}

/// Reference: as above at ρ = 800 000/1 230 769 = 0.650 000 04: W_q = 742.86 µs,
/// L_q = 0.6036 packets. Tolerance: 5 % relative, ~1 000 000 packets.
#[test]
fn poisson_into_fifo_at_load_0_65_waits_as_md1_pollaczek_khinchine() {
    md1_against_pollaczek_khinchine(1_230_769, 1_000_000);
}

/// Reference: as above at ρ = 0.8 (mean inter-arrival 1 ms): W_q = 1.6 ms, L_q = 1.6 packets.
/// Tolerance: 5 % relative, ~1 000 000 packets.
#[test]
fn poisson_into_fifo_at_load_0_8_waits_as_md1_pollaczek_khinchine() {
    md1_against_pollaczek_khinchine(1_000_000, 1_000_000);
}
