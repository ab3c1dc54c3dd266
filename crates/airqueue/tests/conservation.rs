//! Packet conservation (ARCHITECTURE.md, "Contracts"): every packet ends delivered,
//! dropped with a reason, or in flight; the run checks sent = delivered + dropped + in flight
//! at the end, reports it in the summary, and names the place where packets went missing.

mod common;

use airqueue::engine::SimTime;
use airqueue::packet::PacketId;
use airqueue::qdisc::{Pfifo, Qdisc, QdiscCtx, Verdict};
use airqueue::sim::{BuildOptions, Simulation};
use common::*;
use std::collections::VecDeque;

const EXAMPLE: &str = include_str!("../../../scenarios/examples/udp-bottleneck.toml");

/// Reference: the conservation identity of the ledger (sent = delivered + Σ dropped + in
/// flight), recomputed from the summary, for the shipped example (three CBR and two Poisson
/// flows overloading a 100-packet pfifo). The example overloads its bottleneck, so the
/// identity is exercised with drops and a full queue in flight. Tolerance: none.
#[test]
fn conservation_holds_and_is_reported_for_the_udp_bottleneck_example() {
    let s = airqueue::scenario::load_toml_str(EXAMPLE).unwrap();
    let r = run_scenario(&s, BuildOptions::default());
    let p = &r.summary.packets;
    eprintln!(
        "udp-bottleneck: sent {} delivered {} dropped {:?} in flight {}",
        p.sent, p.delivered, p.dropped, p.in_flight
    );
    assert!(p.dropped["qdisc_overflow"] > 0 && p.in_flight > 100);
    assert_conserved(&r);
}

/// Reference: the conservation identity, for an overloaded path with each tail/head-drop
/// discipline (pfifo, bfifo, pfifo_head_drop) on the bottleneck, a 1 % lossy link with ±3 ms
/// jitter that reorders packets, and a flow that stops early while the others run on.
/// Tolerance: none.
#[test]
fn conservation_holds_for_overloaded_lossy_and_jittery_scenarios() {
    let qdiscs = [
        "kind = \"pfifo\"\nlimit = 40",
        "kind = \"bfifo\"\nlimit = 30000",
        "kind = \"pfifo_head_drop\"\nlimit = 40",
    ];
    for conf in qdiscs {
        for impairment in [
            "",
            "impairment = { loss = 0.01, delay = \"5ms\", jitter = \"3ms\" }",
        ] {
            let r = ScenarioToml::new("10s")
                .warmup("1s")
                .nodes(&["a", "b", "router", "receiver"])
                .link("access-a", "a", "router", "100Mbit", "1ms", "")
                .link("access-b", "b", "router", "100Mbit", "2ms", "")
                .link(
                    "bottleneck",
                    "router",
                    "receiver",
                    "8Mbit",
                    "10ms",
                    impairment,
                )
                .qdisc("router.bottleneck", conf)
                .flow("cbr", "a", "receiver", &cbr_rate(1172, "5Mbit"), "")
                .flow(
                    "poisson",
                    "b",
                    "receiver",
                    &poisson_interval(472, "1ms"),
                    "stop = \"7s\"",
                )
                .flow("reverse", "receiver", "a", &cbr_interval(100, "10ms"), "")
                .run();
            let p = &r.summary.packets;
            eprintln!(
                "{} / {}: sent {} delivered {} dropped {:?} in flight {}",
                conf.replace('\n', " "),
                if impairment.is_empty() {
                    "no impairment"
                } else {
                    "lossy+jitter"
                },
                p.sent,
                p.delivered,
                p.dropped,
                p.in_flight
            );
            assert!(p.dropped["qdisc_overflow"] > 0 && p.in_flight > 0);
            if !impairment.is_empty() {
                assert!(p.dropped["impairment"] > 0);
            }
            assert_conserved(&r);
        }
    }
}

/// Reference: the check reported in the results is the check of the finished simulation
/// (`Simulation::conservation` after `run` equals `summary.packets`). Tolerance: none.
#[test]
fn summary_reports_the_end_of_run_conservation_check() {
    let s = airqueue::scenario::load_toml_str(EXAMPLE).unwrap();
    let mut sim = Simulation::build(&s, BuildOptions::default()).unwrap();
    sim.run();
    let direct = sim.conservation();
    let r = sim.results();
    assert_eq!(format!("{direct:?}"), format!("{:?}", r.summary.packets));
    assert!(r
        .summary
        .to_json()
        .contains(&format!("\"sent\": {}", direct.sent)));
}

/// A faulty FIFO for tests: every 100th packet it is given is forgotten — neither queued,
/// returned nor dropped — while it reports Queued.
struct ForgetfulFifo {
    queue: VecDeque<PacketId>,
    backlog: u64,
    given: u64,
}

impl Qdisc for ForgetfulFifo {
    fn kind(&self) -> &'static str {
        "forgetful_fifo"
    }
    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        self.given += 1;
        if !self.given.is_multiple_of(100) {
            self.backlog += ctx.len_of(pkt) as u64;
            self.queue.push_back(pkt);
        }
        Verdict::Queued
    }
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        let p = self.queue.pop_front()?;
        self.backlog -= ctx.len_of(p) as u64;
        Some(p)
    }
    fn peek(&mut self, _ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.queue.front().copied()
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn backlog_bytes(&self) -> u64 {
        self.backlog
    }
}

/// A faulty pfifo for tests: reports 3 packets more than it holds.
struct OverCountingFifo(Pfifo);

impl Qdisc for OverCountingFifo {
    fn kind(&self) -> &'static str {
        "over_counting_fifo"
    }
    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        self.0.enqueue(pkt, ctx)
    }
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.0.dequeue(ctx)
    }
    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.0.peek(ctx)
    }
    fn len(&self) -> usize {
        self.0.len() + 3
    }
    fn backlog_bytes(&self) -> u64 {
        self.0.backlog_bytes()
    }
    fn next_wakeup(&self, _now: SimTime) -> Option<SimTime> {
        None
    }
}

/// sender —(100 Mbit, 1 ms)— router —(10 Mbit, 20 ms)— receiver, one 1000 B packet every
/// 1 ms (never congested).
fn two_hop() -> ScenarioToml {
    ScenarioToml::new("10s")
        .nodes(&["sender", "router", "receiver"])
        .link("access", "sender", "router", "100Mbit", "1ms", "")
        .link("bottleneck", "router", "receiver", "10Mbit", "20ms", "")
        .flow("cbr", "sender", "receiver", &cbr_interval(972, "1ms"), "")
}

/// Reference: the packets given to router.bottleneck are those that reached the router,
/// sent at k·1 ms and arriving 80 µs + 1 ms later, strictly before 10 s: 9 999; a qdisc that
/// forgets every 100th leaks ⌊9 999/100⌋ = 99. The check must fail and name that qdisc and
/// that count, and the ledger must miss exactly those packets. Tolerance: none.
#[test]
fn a_qdisc_that_forgets_packets_fails_conservation_naming_it_and_the_count() {
    let s = two_hop().load();
    let q = ForgetfulFifo {
        queue: VecDeque::new(),
        backlog: 0,
        given: 0,
    };
    let r = run_with_qdisc(&s, "router.bottleneck", Box::new(q));
    let given = instants_before(
        serialization_ns(1000, 100_000_000) + 1_000_000,
        1_000_000,
        10 * NS,
    );
    assert_eq!(given, 9_999);
    let leaked = given / 100;
    let p = &r.summary.packets;
    eprintln!("forgetful qdisc: errors {:?}", p.errors);
    assert!(!p.ok && !r.summary.conservation_ok);
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    let line = &p.errors[0];
    assert!(
        line.contains(&format!("{leaked} packet(s) lost at the qdisc")),
        "{line}"
    );
    assert!(
        line.contains("(forgetful_fifo) on router.bottleneck"),
        "{line}"
    );
    let dropped: u64 = p.dropped.values().sum();
    assert_eq!(p.sent - (p.delivered + dropped + p.in_flight), leaked);
    assert_eq!(queue(&r, "router.bottleneck").u("enqueued_packets"), given);
    let json = r.summary.to_json();
    assert!(json.contains("\"conservation_ok\": false"), "{json}");
    assert!(json.contains("on router.bottleneck"), "{json}");
}

/// Reference: a qdisc whose len() reports 3 more packets than it holds makes the components
/// claim 3 packets the arena does not place there: the check must fail and name that qdisc
/// and the count 3. Tolerance: none.
#[test]
fn a_qdisc_that_over_reports_its_length_fails_conservation_naming_it() {
    let s = two_hop().load();
    let r = run_with_qdisc(
        &s,
        "router.bottleneck",
        Box::new(OverCountingFifo(Pfifo::new(1000))),
    );
    let p = &r.summary.packets;
    eprintln!("over-counting qdisc: errors {:?}", p.errors);
    assert!(!p.ok && !r.summary.conservation_ok);
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    let line = &p.errors[0];
    assert!(
        line.contains("(over_counting_fifo) on router.bottleneck"),
        "{line}"
    );
    assert!(
        line.contains("counts 3 packet(s) more than it was given"),
        "{line}"
    );
}

/// A faulty FIFO for tests: keeps every packet but reports every 100th as dropped.
struct LyingFifo {
    inner: Pfifo,
    given: u64,
}

impl Qdisc for LyingFifo {
    fn kind(&self) -> &'static str {
        "lying_fifo"
    }
    fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
        self.given += 1;
        let v = self.inner.enqueue(pkt, ctx);
        if self.given.is_multiple_of(100) {
            Verdict::Dropped
        } else {
            v
        }
    }
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.inner.dequeue(ctx)
    }
    fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
        self.inner.peek(ctx)
    }
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn backlog_bytes(&self) -> u64 {
        self.inner.backlog_bytes()
    }
}

/// Reference: ns-3 QueueDisc's identity enqueued = dequeued + dropped after enqueue +
/// backlog, over the queue's life. A qdisc that keeps packets it reports as dropped
/// passes the location check (the arena and the qdisc agree on where the packets are)
/// but breaks the identity: the run must fail and name it. 9 999 packets reach the
/// router (see above); 99 are misreported, so the counters claim 9 900 accepted while all
/// 9 999 were sent on. Tolerance: none.
#[test]
fn a_qdisc_that_misreports_its_verdict_breaks_the_queue_identity() {
    let s = two_hop().load();
    let q = LyingFifo {
        inner: Pfifo::new(1000),
        given: 0,
    };
    let r = run_with_qdisc(&s, "router.bottleneck", Box::new(q));
    let p = &r.summary.packets;
    eprintln!("lying qdisc: errors {:?}", p.errors);
    assert!(!p.ok && !r.summary.conservation_ok);
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    let line = &p.errors[0];
    assert!(line.contains("(lying_fifo) on router.bottleneck"), "{line}");
    assert!(
        line.contains("accepted 9900 packet(s), sent 9999 and dropped 0 of them, so it should hold -99, but it holds 0"),
        "{line}"
    );
}
