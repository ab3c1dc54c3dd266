//! The qdisc zoo (`scenarios/examples/qdisc-zoo.toml`): the same traffic (4 bulk TCP
//! flows, a G.711 voice call, a 2 Mbit Poisson UDP flow) over five parallel 10 Mbit, 20 ms
//! bottlenecks, each under another tree, in one run. Each tree must show its defining
//! property against its reference, side by side in one flow table.

mod common;

use airqueue::metrics::Column;
use airqueue::sim::{BuildOptions, RunResults};
use common::*;

/// Seconds measured (duration 40 s − warm-up 10 s).
const WINDOW_S: f64 = 30.0;

fn zoo() -> RunResults {
    let text = include_str!("../../../scenarios/examples/qdisc-zoo.toml");
    let s = airqueue::scenario::load_toml_str(text).expect("the zoo loads");
    run_scenario(&s, BuildOptions::default())
}

/// The voice packet's delay without queueing: phone line 1 ms + bottleneck 20 ms, and the
/// serialization of its 200-B IP packet (G.711, 20 ms: 160 B + 12 B RTP + 28 B UDP/IP) at
/// 1 Gbit/s and 10 Mbit/s.
fn voice_base_ms() -> f64 {
    21.0 + (serialization_ns(200, 1_000_000_000) + serialization_ns(200, 10_000_000)) as f64 / 1e6
}

/// IP throughput in bit/s of class `class` of the root qdisc on `dev`, over the window.
fn class_rate(r: &RunResults, dev: &str, class: &str) -> f64 {
    let t = &r.classes;
    let col = |name: &str| match t.column(name) {
        Some(Column::Str(v)) => v.clone(),
        other => panic!("{name}: {other:?}"),
    };
    let (queues, classes) = (col("queue"), col("class"));
    let i = (0..t.rows())
        .find(|&i| queues[i] == dev && classes[i] == class)
        .unwrap_or_else(|| panic!("no class {class} on {dev}"));
    t.u64s("dequeued_bytes")[i] as f64 * 8.0 / WINDOW_S
}

#[test]
fn the_zoo_shows_each_trees_defining_property_in_one_flow_table() {
    let r = zoo();
    assert_conserved(&r);
    assert_eq!(r.flows.rows(), 30, "six flows per tree, five trees");
    let base = voice_base_ms();
    let voice = |tree: &str| {
        let v = flow(&r, &format!("{tree}_voice"));
        assert_eq!(v.u("drops"), 0, "{tree}: voice lost packets");
        (v.f("delay_mean_ms") - base, v.f("delay_p99_ms") - base)
    };

    // pfifo: in one FIFO every packet waits behind the same standing queue, so the voice
    // packets' mean queueing equals the queue's mean sojourn time (within 2 %); the bulk
    // flows keep it at hundreds of milliseconds.
    let (fifo_mean, fifo_p99) = voice("pfifo");
    let sojourn = queue(&r, "router.pfifo").f("sojourn_mean_ms");
    eprintln!("pfifo: voice queueing mean {fifo_mean:.2} ms, p99 {fifo_p99:.2} ms; queue sojourn {sojourn:.2} ms");
    assert!(
        (fifo_mean / sojourn - 1.0).abs() < 0.02,
        "{fifo_mean} vs {sojourn}"
    );
    assert!(fifo_mean > 100.0);

    // fq_codel (RFC 8290 §1, §4): the sparse voice flow bypasses the bulk queues; it waits
    // for the packet on the wire (1.2 ms at 10 Mbit/s) and new flows' first quanta: p99
    // below 5 ms, against the FIFO's hundreds.
    let (_, fq_p99) = voice("fq_codel");
    eprintln!("fq_codel: voice queueing p99 {fq_p99:.2} ms (pfifo {fifo_p99:.1} ms)");
    assert!(
        fq_p99 < 5.0 && fq_p99 * 20.0 < fifo_p99,
        "{fq_p99} vs {fifo_p99}"
    );

    // htb with sfq leaves (Devera's HTB guide: a class gets its rate; ceil = rate caps it
    // there): the saturated udp and bulk classes carry 1.5 and 7.5 Mbit within 2 %.
    for (class, rate) in [("udp", 1.5e6), ("bulk", 7.5e6)] {
        let got = class_rate(&r, "router.htb_sfq", class);
        eprintln!("htb_sfq {class}: {got:.0} bit/s (rate {rate})");
        assert!((got / rate - 1.0).abs() < 0.02, "htb {class}: {got}");
    }

    // prio with tbf bands (seed 000 Fig. 4): voice has strict priority (it waits at most
    // for the packet on the wire, 1.2 ms); the TBFs hold the udp band at 1.5 Mbit and the
    // bulk band at 8 Mbit (Linux sch_tbf: the bucket's rate), within 1 and 2 %.
    let (_, prio_p99) = voice("prio_tbf");
    assert!(prio_p99 < 2.0, "prio voice p99 queueing {prio_p99} ms");
    for (class, rate, tol) in [("udp", 1.5e6, 0.01), ("bulk", 8e6, 0.02)] {
        let got = class_rate(&r, "router.prio_tbf", class);
        eprintln!("prio_tbf {class}: {got:.0} bit/s (tbf rate {rate})");
        assert!((got / rate - 1.0).abs() < tol, "prio {class}: {got}");
    }

    // stfq with weights (Goyal et al. 1997, Theorem 1): backlogged classes share in
    // proportion to their weights, bulk_a (3) : bulk_b (1) = 3 within 3 %.
    let goodput =
        |names: &[&str]| -> f64 { names.iter().map(|n| flow(&r, n).f("goodput_bps")).sum() };
    let a = goodput(&["stfq_bulk0", "stfq_bulk1"]);
    let b = goodput(&["stfq_bulk2", "stfq_bulk3"]);
    eprintln!(
        "stfq: bulk_a {a:.0}, bulk_b {b:.0} bit/s, ratio {:.4}",
        a / b
    );
    assert!((a / b / 3.0 - 1.0).abs() < 0.03, "stfq ratio {}", a / b);
}

/// Reference: the determinism contract for the shipped example.
#[test]
fn the_zoo_runs_deterministically() {
    let (a, b) = (zoo(), zoo());
    for (what, x, y) in [
        ("flows", &a.flows, &b.flows),
        ("queues", &a.queues, &b.queues),
        ("classes", &a.classes, &b.classes),
    ] {
        assert_tables_identical(what, x, y);
    }
}
