//! Classful disciplines in whole runs (issue 4): HTB shares, borrowing and prio; DRR
//! fairness and weights; PRIO starvation and TOS-derived priorities; classful trees nested
//! in each other; per-class statistics and their identity.
//!
//! Traffic is UDP CBR at 1472 B of payload (1500 B IP datagrams), offered well above the
//! shares under test so every class stays backlogged; rates are measured over 10 s after a
//! 2 s warm-up. Qdiscs charge IP bytes, so a class's IP rate is goodput × 1500/1472.

mod common;

use airqueue::sim::RunResults;
use common::*;

const PAYLOAD: u64 = 1472;
/// IP bytes per payload byte (1500 / 1472).
const IP_PER_PAYLOAD: f64 = 1500.0 / 1472.0;

/// sender —(1 Gbit)— router —(100 Mbit)— receiver, with `qdisc` (TOML after `dev`) on the
/// router's egress to the receiver and one greedy CBR flow per (name, offered rate, extra).
fn bottleneck(qdisc: &str, flows: &[(&str, &str, &str)]) -> RunResults {
    let mut s = ScenarioToml::new("12s")
        .warmup("2s")
        .nodes(&["sender", "router", "receiver"])
        .link("access", "sender", "router", "1Gbit", "1ms", "")
        .link("bottleneck", "router", "receiver", "100Mbit", "1ms", "")
        .qdisc("router.bottleneck", qdisc);
    for (name, rate, extra) in flows {
        s = s.flow(name, "sender", "receiver", &cbr_rate(PAYLOAD, rate), extra);
    }
    let r = s.run();
    assert_conserved(&r);
    r
}

/// A flow's IP-layer throughput in bit/s.
fn ip_rate(r: &RunResults, name: &str) -> f64 {
    flow(r, name).f("goodput_bps") * IP_PER_PAYLOAD
}

fn within(measured: f64, expected: f64, rel: f64) -> bool {
    (measured / expected - 1.0).abs() <= rel
}

/// Jain's fairness index (Σx)² / (n Σx²).
fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

/// The class-table row of `class` on queue `queue`.
fn class<'a>(r: &'a RunResults, queue: &str, class: &str) -> Row<'a> {
    let t = &r.classes;
    let (q, c) = match (t.column("queue"), t.column("class")) {
        (Some(airqueue::metrics::Column::Str(q)), Some(airqueue::metrics::Column::Str(c))) => {
            (q, c)
        }
        _ => panic!("class table lacks queue/class"),
    };
    let index = (0..t.rows())
        .find(|&i| q[i] == queue && c[i] == class)
        .unwrap_or_else(|| panic!("no class {class} on {queue}: {c:?}"));
    Row { table: t, index }
}

const HTB_3_7: &str = r#"kind = "htb"
classes = [
  { name = "root", rate = "10Mbit" },
  { name = "a", parent = "root", rate = "3Mbit", ceil = "10Mbit", match = { flow = "a" } },
  { name = "b", parent = "root", rate = "7Mbit", ceil = "10Mbit", match = { flow = "b" } },
]"#;

/// Reference: HTB's guarantee (Devera's user guide, "rate": the bandwidth a class gets
/// when all classes want more than the parent can give): two leaves with rate 3 and
/// 7 Mbit under a 10 Mbit parent, both saturated, get 3 and 7 Mbit. Tolerance: 2 % on
/// each rate and on the 3/7 split.
#[test]
fn htb_leaves_at_3_and_7_mbit_under_10_mbit_get_their_rates_when_both_saturate() {
    let r = bottleneck(HTB_3_7, &[("a", "20Mbit", ""), ("b", "20Mbit", "")]);
    let (a, b) = (ip_rate(&r, "a"), ip_rate(&r, "b"));
    eprintln!(
        "htb 3/7: a {:.4} Mbit, b {:.4} Mbit, a share {:.5} (ideal 0.3)",
        a / 1e6,
        b / 1e6,
        a / (a + b)
    );
    assert!(within(a, 3e6, 0.02) && within(b, 7e6, 0.02), "{a} {b}");
    assert!(within(a / (a + b), 0.3, 0.02));
    // Both leaves overflowed their pfifo (the sources offer 20 Mbit each).
    assert!(class(&r, "router.bottleneck", "a").u("drops_qdisc_overflow") > 0);
    let root = class(&r, "router.bottleneck", "root");
    assert_eq!(
        root.u("dequeued_packets"),
        class(&r, "router.bottleneck", "a").u("dequeued_packets")
            + class(&r, "router.bottleneck", "b").u("dequeued_packets")
    );
}

/// Reference: HTB borrowing (user guide, "ceil"): with its sibling idle, a leaf borrows
/// from the parent up to its own ceil (8 Mbit here), and with ceil = 10 Mbit up to the
/// parent's 10 Mbit. Tolerance: 2 %. The class table shows the borrowed packets.
#[test]
fn htb_a_leaf_borrows_up_to_its_ceil_while_its_sibling_is_idle() {
    for (ceil, expected) in [("8Mbit", 8e6), ("10Mbit", 10e6)] {
        let conf = format!(
            r#"kind = "htb"
classes = [
  {{ name = "root", rate = "10Mbit" }},
  {{ name = "a", parent = "root", rate = "3Mbit", ceil = "{ceil}", match = {{ flow = "a" }} }},
  {{ name = "b", parent = "root", rate = "7Mbit", ceil = "10Mbit", match = {{ dscp = [10] }} }},
]"#
        );
        let r = bottleneck(&conf, &[("a", "20Mbit", "")]);
        let a = ip_rate(&r, "a");
        eprintln!("htb borrow, ceil {ceil}: a {:.4} Mbit", a / 1e6);
        assert!(within(a, expected, 0.02), "ceil {ceil}: {a}");
        let row = class(&r, "router.bottleneck", "a");
        // About 3/expected of a's packets went on its own rate, the rest borrowed.
        let borrowed = row.u("borrows") as f64 / row.u("dequeued_packets") as f64;
        assert!(within(borrowed, 1.0 - 3e6 / expected, 0.05), "{borrowed}");
    }
}

/// Reference: HTB `prio` (user guide, "Prioritizing bandwidth share"): excess bandwidth
/// goes to the leaf with the lower prio value first. a and b both have rate 2 Mbit and
/// ceil 10 Mbit under 10 Mbit; a has prio 0, b prio 1: a gets 2 + 6 = 8 Mbit, b only its
/// guaranteed 2 Mbit. Tolerance: 2 %.
#[test]
fn htb_prio_gives_the_excess_to_the_lower_prio_leaf() {
    let conf = r#"kind = "htb"
classes = [
  { name = "root", rate = "10Mbit" },
  { name = "a", parent = "root", rate = "2Mbit", ceil = "10Mbit", prio = 0, match = { flow = "a" } },
  { name = "b", parent = "root", rate = "2Mbit", ceil = "10Mbit", prio = 1, match = { flow = "b" } },
]"#;
    let r = bottleneck(conf, &[("a", "20Mbit", ""), ("b", "20Mbit", "")]);
    let (a, b) = (ip_rate(&r, "a"), ip_rate(&r, "b"));
    eprintln!("htb prio: a {:.4} Mbit, b {:.4} Mbit", a / 1e6, b / 1e6);
    assert!(within(a, 8e6, 0.02) && within(b, 2e6, 0.02), "{a} {b}");
}

/// Reference: HTB's excess sharing among equal prios is DRR with quantum = rate / r2q
/// (sch_htb.c htb_dequeue_tree; user guide, "quantum"): a (2 Mbit, quantum 25000 B) and b
/// (6 Mbit, quantum 75000 B) share the 2 Mbit excess 1:3, so a gets 2.5 and b 7.5 Mbit.
/// Tolerance: 2 %.
#[test]
fn htb_equal_prio_leaves_share_the_excess_in_proportion_to_their_quanta() {
    let conf = r#"kind = "htb"
classes = [
  { name = "root", rate = "10Mbit" },
  { name = "a", parent = "root", rate = "2Mbit", ceil = "10Mbit", match = { flow = "a" } },
  { name = "b", parent = "root", rate = "6Mbit", ceil = "10Mbit", match = { flow = "b" } },
]"#;
    let r = bottleneck(conf, &[("a", "20Mbit", ""), ("b", "20Mbit", "")]);
    let (a, b) = (ip_rate(&r, "a"), ip_rate(&r, "b"));
    eprintln!("htb quanta: a {:.4} Mbit, b {:.4} Mbit", a / 1e6, b / 1e6);
    assert!(within(a, 2.5e6, 0.02) && within(b, 7.5e6, 0.02), "{a} {b}");
}

/// Reference: Linux HTB with `default` naming no class sends unclassified packets to the
/// direct queue, unshaped (tc-htb(8), "default"): a flow no class matches gets the whole
/// 100 Mbit link it offers 30 Mbit to, while the shaped class stays at its 3 Mbit.
#[test]
fn htb_without_default_lets_unclassified_traffic_bypass_the_shaper() {
    let conf = r#"kind = "htb"
classes = [ { name = "a", rate = "3Mbit", match = { flow = "a" } } ]"#;
    let r = bottleneck(conf, &[("a", "20Mbit", ""), ("other", "30Mbit", "")]);
    let (a, o) = (ip_rate(&r, "a"), ip_rate(&r, "other"));
    eprintln!(
        "htb direct: a {:.4} Mbit, other {:.4} Mbit",
        a / 1e6,
        o / 1e6
    );
    assert!(within(a, 3e6, 0.02), "{a}");
    assert!(
        within(flow(&r, "other").f("goodput_bps"), 30e6, 0.01),
        "{o}"
    );
    assert!(class(&r, "router.bottleneck", "(direct)").u("dequeued_packets") > 0);
}

/// `n` DRR classes, class i taking flow `f<i>`, with the given quanta (absent: default).
fn drr_conf(quanta: &[Option<u32>]) -> String {
    let classes: Vec<String> = quanta
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let quantum = q.map_or(String::new(), |q| format!(", quantum = {q}"));
            format!("  {{ name = \"c{i}\"{quantum}, match = {{ flow = \"f{i}\" }} }},")
        })
        .collect();
    format!("kind = \"drr\"\nclasses = [\n{}\n]", classes.join("\n"))
}

/// Reference: DRR's fairness (Shreedhar & Varghese: equal quanta give backlogged flows
/// equal throughput in bytes) as Jain's index ≥ 0.99 for 8 greedy flows offering very
/// different loads (6 to 48 Mbit) with different packet sizes (200–1472 B payload) into a
/// 20 Mbit link. The same traffic through a pfifo is far from fair (shares follow the
/// offered loads), which shows the check can fail.
#[test]
fn drr_gives_n_greedy_flows_equal_shares_jain_at_least_0_99() {
    let sizes = [200u64, 1472, 576, 1472, 1000, 1472, 300, 1472];
    let run = |conf: &str| {
        let mut s = ScenarioToml::new("12s")
            .warmup("2s")
            .nodes(&["sender", "router", "receiver"])
            .link("access", "sender", "router", "1Gbit", "1ms", "")
            .link("bottleneck", "router", "receiver", "20Mbit", "1ms", "")
            .qdisc("router.bottleneck", conf);
        for (i, &size) in sizes.iter().enumerate() {
            let rate = format!("{}Mbit", 6 * (i + 1));
            s = s.flow(
                &format!("f{i}"),
                "sender",
                "receiver",
                &cbr_rate(size, &rate),
                "",
            );
        }
        let r = s.run();
        assert_conserved(&r);
        // IP bytes per flow (what DRR equalizes): goodput × (payload + 28) / payload.
        let x: Vec<f64> = sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| {
                flow(&r, &format!("f{i}")).f("goodput_bps") * (size + 28) as f64 / size as f64
            })
            .collect();
        (jain(&x), x)
    };
    let (j, x) = run(&drr_conf(&[None; 8]));
    let (j_fifo, _) = run("kind = \"pfifo\"\nlimit = 1000");
    eprintln!(
        "drr 8 flows: Jain {j:.5} (pfifo {j_fifo:.3}); Mbit/s {:?}",
        x.iter()
            .map(|v| (v / 1e4).round() / 100.0)
            .collect::<Vec<_>>()
    );
    assert!(j >= 0.99, "Jain {j}");
    assert!(
        j_fifo < 0.9,
        "pfifo Jain {j_fifo}: the traffic does not discriminate"
    );
    // Each flow gets 20/8 = 2.5 Mbit of IP throughput within 2 %.
    for v in &x {
        assert!(within(*v, 2.5e6, 0.02), "{v}");
    }
}

/// Reference: DRR's weighted shares (Shreedhar & Varghese: a backlogged flow's share is
/// proportional to its quantum): quanta 1514, 3028, 4542 B give 1:2:3 of a 12 Mbit link,
/// i.e. 2, 4 and 6 Mbit. Tolerance: 2 %.
#[test]
fn drr_quanta_weight_the_shares_proportionally() {
    let conf = drr_conf(&[Some(1514), Some(3028), Some(4542)]);
    let mut s = ScenarioToml::new("12s")
        .warmup("2s")
        .nodes(&["sender", "router", "receiver"])
        .link("access", "sender", "router", "1Gbit", "1ms", "")
        .link("bottleneck", "router", "receiver", "12Mbit", "1ms", "")
        .qdisc("router.bottleneck", &conf);
    for i in 0..3 {
        s = s.flow(
            &format!("f{i}"),
            "sender",
            "receiver",
            &cbr_rate(PAYLOAD, "10Mbit"),
            "",
        );
    }
    let r = s.run();
    assert_conserved(&r);
    let x: Vec<f64> = (0..3).map(|i| ip_rate(&r, &format!("f{i}"))).collect();
    eprintln!(
        "drr weights 1:2:3: {:?} Mbit",
        x.iter().map(|v| v / 1e6).collect::<Vec<_>>()
    );
    for (v, e) in x.iter().zip([2e6, 4e6, 6e6]) {
        assert!(within(*v, e, 0.02), "{v} vs {e}");
    }
}

/// Reference: sch_prio's strict priority: while band 0 is saturated, band 1 gets nothing
/// (starvation); when band 0 offers less than the link, band 1 gets the rest. 10 Mbit
/// link; "hi" matched into band 0, everything else into band 1.
#[test]
fn prio_starves_lower_bands_under_saturation_and_not_otherwise() {
    let conf = r#"kind = "prio"
bands = 2
priomap = [1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]
classes = [ { name = "hi", match = { flow = "hi" } }, { name = "lo", match = {} } ]"#;
    let run = |hi_rate: &str| {
        let r = ScenarioToml::new("12s")
            .warmup("2s")
            .nodes(&["sender", "router", "receiver"])
            .link("access", "sender", "router", "1Gbit", "1ms", "")
            .link("bottleneck", "router", "receiver", "10Mbit", "1ms", "")
            .qdisc("router.bottleneck", conf)
            .flow("hi", "sender", "receiver", &cbr_rate(PAYLOAD, hi_rate), "")
            .flow("lo", "sender", "receiver", &cbr_rate(PAYLOAD, "2Mbit"), "")
            .run();
        assert_conserved(&r);
        (ip_rate(&r, "hi"), ip_rate(&r, "lo"), r)
    };
    let (hi, lo, r) = run("12Mbit");
    eprintln!(
        "prio saturated: hi {:.4} Mbit, lo {:.6} Mbit",
        hi / 1e6,
        lo / 1e6
    );
    assert!(within(hi, 10e6, 0.01), "{hi}");
    // Starved: at most the few packets of the first instants (before hi's queue built up).
    assert!(lo < 0.001 * 10e6, "{lo}");
    assert!(class(&r, "router.bottleneck", "lo").u("drops") > 0);
    let (hi, lo, _) = run("5Mbit");
    eprintln!(
        "prio unsaturated: hi {:.4} Mbit, lo {:.4} Mbit",
        hi / 1e6,
        lo / 1e6
    );
    assert!(within(hi, 5e6 * IP_PER_PAYLOAD, 0.01) && within(lo, 2e6 * IP_PER_PAYLOAD, 0.01));
}

/// Reference: Linux routers set skb->priority from the TOS byte (`ip_forward` →
/// `rt_tos2priority`), and the default priomap sends TOS 0x10 "minimize delay"
/// (INTERACTIVE) to band 0 and TOS 0x08 "maximize throughput" (BULK) to band 2: with
/// a default `prio` (no filters) the low-delay flow keeps its full offered rate and the
/// bulk flow gets the rest of a 10 Mbit link, although the senders set the opposite
/// priorities (interactive 0 → band 1, bulk 6 → band 0): only the router's re-derivation
/// from the TOS byte puts the interactive flow first.
#[test]
fn prio_at_a_router_classifies_by_the_tos_byte_as_linux_forwarding_does() {
    let r = bottleneck(
        "kind = \"prio\"",
        &[
            ("bulk", "12Mbit", "dscp = 2\npriority = 6"),
            ("interactive", "4Mbit", "dscp = 4\npriority = 0"),
        ],
    );
    let r10 = |r: &RunResults| (ip_rate(r, "interactive"), ip_rate(r, "bulk"));
    let (i, b) = r10(&r);
    // On a 100 Mbit link both get what they offer; the bands show the classification.
    assert!(within(i, 4e6 * IP_PER_PAYLOAD, 0.01) && within(b, 12e6 * IP_PER_PAYLOAD, 0.01));
    let bands = |name: &str| class(&r, "router.bottleneck", name).u("enqueued_packets");
    assert!(bands("band0") > 0 && bands("band2") > 0 && bands("band1") == 0);
    // On a 10 Mbit link the interactive flow is served first.
    let r = ScenarioToml::new("12s")
        .warmup("2s")
        .nodes(&["sender", "router", "receiver"])
        .link("access", "sender", "router", "1Gbit", "1ms", "")
        .link("bottleneck", "router", "receiver", "10Mbit", "1ms", "")
        .qdisc("router.bottleneck", "kind = \"prio\"")
        .flow(
            "bulk",
            "sender",
            "receiver",
            &cbr_rate(PAYLOAD, "12Mbit"),
            "dscp = 2\npriority = 6",
        )
        .flow(
            "interactive",
            "sender",
            "receiver",
            &cbr_rate(PAYLOAD, "4Mbit"),
            "dscp = 4\npriority = 0",
        )
        .run();
    let (i, b) = r10(&r);
    eprintln!(
        "prio by TOS: interactive {:.4} Mbit, bulk {:.4} Mbit",
        i / 1e6,
        b / 1e6
    );
    assert!(within(i, 4e6 * IP_PER_PAYLOAD, 0.01), "{i}");
    assert!(within(b, 10e6 - i, 0.01), "{b}");
}

/// Reference: classful trees nest (tc attaches any qdisc to a class): an HTB leaf holding
/// a prio whose band holds a DRR, and another HTB leaf holding an inner HTB. Shares: the
/// outer split is 4/6 Mbit (both saturated); inside "x" prio gives "x/hi" everything it
/// offers (1 Mbit) and the rest to "x/lo", split equally by the DRR; inside "y" the inner
/// HTB splits 6 Mbit as 2/4. Tolerance: 2 %. Class names are nested `outer/inner`, and
/// every class's counters add up (checked in the run by debug builds, and here: a parent
/// class dequeued what its children dequeued).
#[test]
fn classful_qdiscs_nest_to_any_depth_with_per_class_stats() {
    let conf = r#"kind = "htb"
classes = [
  { name = "root", rate = "10Mbit" },
  { name = "x", parent = "root", rate = "4Mbit", match = { flow = "x*" }, qdisc = { kind = "prio", bands = 2, priomap = [1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1], classes = [ { name = "hi", match = { flow = "xhi" } }, { name = "lo", match = {}, qdisc = { kind = "drr", classes = [ { name = "d0", match = { flow = "xlo0" } }, { name = "d1", match = { flow = "xlo1" } } ] } } ] } },
  { name = "y", parent = "root", rate = "6Mbit", match = { flow = "y*" }, qdisc = { kind = "htb", classes = [ { name = "top", rate = "6Mbit" }, { name = "y0", parent = "top", rate = "2Mbit", match = { flow = "y0" } }, { name = "y1", parent = "top", rate = "4Mbit", match = { flow = "y1" } } ] } },
]"#;
    let r = bottleneck(
        conf,
        &[
            ("xhi", "1Mbit", ""),
            ("xlo0", "10Mbit", ""),
            ("xlo1", "10Mbit", ""),
            ("y0", "10Mbit", ""),
            ("y1", "10Mbit", ""),
        ],
    );
    let rate = |n: &str| ip_rate(&r, n);
    eprintln!(
        "nested: xhi {:.3} xlo0 {:.3} xlo1 {:.3} y0 {:.3} y1 {:.3} Mbit",
        rate("xhi") / 1e6,
        rate("xlo0") / 1e6,
        rate("xlo1") / 1e6,
        rate("y0") / 1e6,
        rate("y1") / 1e6
    );
    let xhi = 1e6 * IP_PER_PAYLOAD;
    assert!(within(rate("xhi"), xhi, 0.02));
    assert!(within(rate("xlo0"), (4e6 - xhi) / 2.0, 0.02));
    assert!(within(rate("xlo1"), (4e6 - xhi) / 2.0, 0.02));
    assert!(within(rate("y0"), 2e6, 0.02) && within(rate("y1"), 4e6, 0.02));
    let q = "router.bottleneck";
    for (name, parent, kind, qdisc) in [
        ("x", "root", "htb", "prio"),
        ("x/hi", "x", "prio", "pfifo"),
        ("x/lo", "x", "prio", "drr"),
        ("x/lo/d0", "x/lo", "drr", "pfifo"),
        ("y/top", "y", "htb", ""),
        ("y/y1", "y/top", "htb", "pfifo"),
    ] {
        let row = class(&r, q, name);
        let strs = |col: &str| match row.table.column(col) {
            Some(airqueue::metrics::Column::Str(v)) => v[row.index].clone(),
            _ => panic!(),
        };
        assert_eq!(
            (strs("parent"), strs("kind"), strs("qdisc")),
            (parent.to_string(), kind.to_string(), qdisc.to_string()),
            "{name}"
        );
    }
    let deq = |n: &str| class(&r, q, n).u("dequeued_packets");
    assert_eq!(deq("x"), deq("x/hi") + deq("x/lo"));
    assert_eq!(deq("x/lo"), deq("x/lo/d0") + deq("x/lo/d1"));
    assert_eq!(deq("y/top"), deq("y/y0") + deq("y/y1"));
    assert_eq!(queue(&r, q).u("dequeued_packets"), deq("x") + deq("y"));
    assert!(class(&r, q, "x/lo/d0").f("sojourn_p99_ms") > 0.0);
}

/// Reference: ns-3 QueueDisc's identity per class, enqueued = dequeued + dropped after
/// enqueue + backlog. Tail-drop leaves (pfifo) only drop on arrival, so without a warm-up
/// each leaf's row must satisfy enqueued = dequeued + backlog at the end exactly, and an
/// inner class the sum of its leaves; the queue row likewise. (Debug builds also assert
/// the identity inside the run after every operation.)
#[test]
fn class_counters_balance_exactly_over_a_whole_run() {
    let r = ScenarioToml::new("3s")
        .nodes(&["sender", "router", "receiver"])
        .link("access", "sender", "router", "1Gbit", "1ms", "")
        .link("bottleneck", "router", "receiver", "100Mbit", "1ms", "")
        .qdisc(
            "router.bottleneck",
            &HTB_3_7.replace(
                "match = { flow = \"a\" }",
                "match = { flow = \"a\" }, qdisc = { kind = \"pfifo\", limit = 50 }",
            ),
        )
        .flow("a", "sender", "receiver", &cbr_rate(PAYLOAD, "20Mbit"), "")
        .flow("b", "sender", "receiver", &cbr_rate(PAYLOAD, "20Mbit"), "")
        .run();
    assert_conserved(&r);
    let q = "router.bottleneck";
    for c in ["root", "a", "b"] {
        let row = class(&r, q, c);
        assert!(row.u("drops") > 0, "{c} overflowed");
        assert_eq!(
            row.u("enqueued_packets"),
            row.u("dequeued_packets") + row.u("backlog_end_packets"),
            "{c}"
        );
    }
    assert_eq!(class(&r, q, "a").u("backlog_end_packets"), 50);
    let qr = queue(&r, q);
    assert_eq!(
        qr.u("enqueued_packets"),
        qr.u("dequeued_packets") + qr.u("backlog_end_packets")
    );
    assert_eq!(qr.u("drops"), class(&r, q, "root").u("drops"));
}

/// One class's time series of `metric` (entities `<queue>/<class>`), as (time in s, value).
fn class_series(r: &RunResults, entity: &str, metric: &str) -> Vec<(f64, f64)> {
    let s = series(&r.timeseries, entity, metric);
    assert!(!s.is_empty(), "no {metric} series for class {entity}");
    s
}

/// Mean of a series over `from < t ≤ to`.
fn mean_between(s: &[(f64, f64)], from: f64, to: f64) -> f64 {
    let v: Vec<f64> = s
        .iter()
        .filter(|(t, _)| *t > from && *t <= to)
        .map(|x| x.1)
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// Per-class time series (what seed 000's bandwidth-over-time figures plot), against two
/// references. HTB's guarantee and borrowing (user guide): while both leaves are saturated
/// each sample shows 3 and 7 Mbit; once `b` has stopped and drained, `a` borrows up to its
/// 10 Mbit ceil.
/// Tolerance 2 % on the interval means. And the counters themselves (exact): the samples
/// of a class add up to the bytes its class-table row says it dequeued, an inner class's
/// throughput is the sum of its leaves' in every interval, and a saturated leaf's backlog
/// sits at its pfifo limit.
#[test]
fn class_time_series_show_htb_shares_then_borrowing_and_add_up_to_the_class_table() {
    let conf = r#"kind = "htb"
classes = [
  { name = "root", rate = "10Mbit" },
  { name = "a", parent = "root", rate = "3Mbit", ceil = "10Mbit", match = { flow = "a" },
    qdisc = { kind = "pfifo", limit = 50 } },
  { name = "b", parent = "root", rate = "7Mbit", ceil = "10Mbit", match = { flow = "b" } },
]"#;
    let r = bottleneck(
        conf,
        &[("a", "20Mbit", ""), ("b", "20Mbit", "stop = \"7s\"")],
    );
    let q = "router.bottleneck";
    let tput = |c: &str| class_series(&r, &format!("{q}/{c}"), "throughput_bps");
    let (a, b, root) = (tput("a"), tput("b"), tput("root"));
    let both = (mean_between(&a, 3.0, 7.0), mean_between(&b, 3.0, 7.0));
    // b's pfifo (1000 packets) drains at 7 Mbit for 1000·1500·8/7e6 = 1.71 s after it stops.
    let alone = mean_between(&a, 9.0, 12.0);
    eprintln!(
        "class series: a {:.4} / b {:.4} Mbit while both send, a {:.4} Mbit alone",
        both.0 / 1e6,
        both.1 / 1e6,
        alone / 1e6
    );
    assert!(
        within(both.0, 3e6, 0.02) && within(both.1, 7e6, 0.02),
        "{both:?}"
    );
    assert!(within(alone, 10e6, 0.02), "{alone}");

    assert_eq!(a.len(), root.len());
    for ((t, x), ((_, y), (_, z))) in a.iter().zip(b.iter().zip(&root)) {
        assert!(
            (x + y - z).abs() <= 1e-6 * z.max(1.0),
            "t {t}: {x} + {y} ≠ {z}"
        );
    }
    // The class counters restart at the warm-up (2 s); samples after it add up to them.
    let interval = 0.1;
    for c in ["a", "b", "root"] {
        let bits: f64 = tput(c)
            .iter()
            .filter(|(t, _)| *t > 2.0 + 1e-9)
            .map(|(_, v)| v * interval)
            .sum();
        let table = class(&r, q, c).u("dequeued_bytes") as f64 * 8.0;
        assert!(
            (bits - table).abs() <= 1e-6 * table,
            "{c}: series {bits} ≠ table {table}"
        );
    }
    let backlog = class_series(&r, &format!("{q}/a"), "backlog_packets");
    let full = backlog.iter().filter(|(t, _)| *t > 3.0 && *t <= 7.0);
    assert!(
        full.clone().all(|(_, v)| (49.0..=50.0).contains(v)),
        "{backlog:?}"
    );
    let drops: f64 = class_series(&r, &format!("{q}/a"), "drops")
        .iter()
        .map(|x| x.1)
        .sum();
    assert!(drops > 0.0);
}

/// Reference: `tc filter … u32 match ip dport 5060 0xffff` / `match ip sport`: classes
/// taken by port (a single port, a range, a list) and by a raw `u32` selector, as the
/// kernel's u32 classifier compares `field & mask == value & mask`. Under a 10 Mbit HTB
/// root with a 6 Mbit class for SIP (dport 5060) and a 4 Mbit class for the rest, a
/// 6 Mbit SIP flow beside an 8 Mbit bulk flow (iperf's port 5001) keeps its 6 Mbit (2 %).
#[test]
fn htb_classes_match_by_port_ranges_and_u32_selectors() {
    for sip_match in [
        "{ dport = 5060 }",
        "{ dport = \"5050-5100\", protocol = \"udp\" }",
        "{ dport = [80, \"5060-5061\"] }",
        "{ u32 = [ { field = \"dport\", value = 5060, mask = 65535 }, { field = \"protocol\", value = 17, mask = 255 } ] }",
    ] {
        let conf = format!(
            r#"kind = "htb"
default = "rest"
classes = [
  {{ name = "root", rate = "10Mbit" }},
  {{ name = "sip", parent = "root", rate = "6Mbit", ceil = "10Mbit", match = {sip_match} }},
  {{ name = "rest", parent = "root", rate = "4Mbit", ceil = "10Mbit" }},
]"#
        );
        let r = ScenarioToml::new("12s")
            .warmup("2s")
            .nodes(&["sender", "router", "receiver"])
            .link("access", "sender", "router", "1Gbit", "1ms", "")
            .link("bottleneck", "router", "receiver", "100Mbit", "1ms", "")
            .qdisc("router.bottleneck", &conf)
            .flow("sip", "sender", "receiver", &cbr_rate(PAYLOAD, "6Mbit"), "port = 5060")
            .flow("bulk", "sender", "receiver", &cbr_rate(PAYLOAD, "8Mbit"), "")
            .run();
        assert_conserved(&r);
        let (sip, bulk) = (ip_rate(&r, "sip"), ip_rate(&r, "bulk"));
        eprintln!("{sip_match}: sip {:.3} Mbit, bulk {:.3} Mbit", sip / 1e6, bulk / 1e6);
        assert!(within(sip, 6e6, 0.02), "{sip_match}: sip {sip}");
        assert!(within(bulk, 4e6, 0.02), "{sip_match}: bulk {bulk}");
    }
}

/// Reference: the scenario's own rule — a port range must run low to high and fit 16
/// bits; the error names the field.
#[test]
fn a_bad_port_range_is_rejected_with_its_field() {
    let conf = r#"kind = "prio"
bands = 2
classes = [ { name = "hi", match = { dport = "6000-5000" } }, { name = "lo" } ]"#;
    let text = ScenarioToml::new("1s")
        .nodes(&["a", "b"])
        .link("l", "a", "b", "10Mbit", "1ms", "")
        .qdisc("a.l", conf)
        .toml();
    let err = airqueue::scenario::load_toml_str(&text).expect_err("a reversed range");
    let msg = err.to_string();
    assert!(msg.contains("dport") && msg.contains("6000-5000"), "{msg}");
}
