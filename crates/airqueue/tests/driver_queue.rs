//! The driver (hardware) queue below a qdisc (issue 33 item 12): a Wi-Fi AP with fq_codel
//! above a 100-packet driver buffer, where the queue the downloads see is the buffer, not
//! the qdisc — the `driver_queues` table, the time series and the warning show it.

mod common;

use airqueue::metrics::{Column, Table};
use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, RunResults, Simulation};
use common::*;

const SCENARIO: &str = include_str!("../../../scenarios/examples/wifi-fq-codel.toml");

fn with_buffer(buffer: u32) -> String {
    SCENARIO.replace("buffer = 100 ", &format!("buffer = {buffer} "))
}

fn run(text: &str) -> (RunResults, Vec<String>) {
    let s = load_toml_str(text).unwrap();
    let mut sim = Simulation::build(&s, BuildOptions::default()).unwrap();
    let warnings = sim.warnings().iter().map(|p| p.message.clone()).collect();
    sim.run();
    (sim.results(), warnings)
}

fn table<'a>(r: &'a RunResults, name: &str) -> &'a Table {
    &r.more
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name} table"))
        .1
}

/// The `driver_queues` row of `iface`: (column → value) getters.
fn driver<'a>(r: &'a RunResults, iface: &str) -> impl Fn(&str) -> f64 + 'a {
    let t = table(r, "driver_queues");
    let Some(Column::Str(names)) = t.column("interface") else {
        panic!("no interface column")
    };
    let i = names
        .iter()
        .position(|n| n == iface)
        .unwrap_or_else(|| panic!("no driver queue {iface}"));
    move |c: &str| match t.column(c) {
        Some(Column::U64(v)) => v[i] as f64,
        Some(Column::F64(v)) => v[i],
        _ => panic!("no numeric column {c}"),
    }
}

/// Reference: Little's law, L = λW, over the post-warm-up window (18 s): the driver
/// buffer's time-averaged backlog L against its departure rate λ (packets dequeued / 18 s)
/// times their mean sojourn W. Exact but for the packets in the buffer at the window's
/// two ends (≤ 100 of some 12 000) and the few dropped (retry limit), so 3 %.
///
/// And the point of the table: fq_codel's own mean backlog stays under 5 % of the driver's
/// (about a packet and a half: the issue's "0.9 packets") and its sojourn under a tenth,
/// while the 100-packet buffer below it holds the TCP downloads' queue (mean > 80), its
/// sojourn above 100 ms
/// (100 frames of 1500 B at 11 Mb/s take ≥ 109 ms of air) — the delay fq_codel cannot see.
/// The run warns about it, naming the depth in packets and in milliseconds.
#[test]
fn a_deep_driver_buffer_holds_the_queue_below_fq_codel_and_is_warned_about() {
    let (r, warnings) = run(SCENARIO);
    assert_conserved(&r);
    let d = driver(&r, "ap.wlan");
    let span = 18.0;
    let (l, w) = (d("backlog_mean_packets"), d("sojourn_mean_ms") / 1e3);
    let lambda = d("dequeued_packets") / span;
    let little = lambda * w;
    assert!(
        (l - little).abs() / l < 0.03,
        "mean backlog {l:.2} vs λW = {lambda:.1}/s × {w:.4} s = {little:.2}"
    );
    eprintln!(
        "driver ap.wlan: mean {l:.2} packets, λW = {lambda:.1}/s × {:.1} ms = {little:.2}",
        w * 1e3
    );
    assert!(l > 80.0, "the driver buffer holds the queue: mean {l:.1}");
    assert!(w > 0.100, "sojourn {w:.3} s");
    assert_eq!(d("limit_packets"), 100.0);
    assert!(d("backlog_max_packets") <= 100.0);
    let q = queue(&r, "ap.wlan");
    let (qb, qs) = (q.f("backlog_mean_packets"), q.f("sojourn_mean_ms") / 1e3);
    eprintln!(
        "fq_codel ap.wlan: mean {qb:.2} packets, sojourn {:.1} ms",
        qs * 1e3
    );
    assert!(qb < 0.05 * l, "fq_codel's mean backlog {qb:.2} packets");
    assert!(qs < 0.1 * w, "fq_codel's mean sojourn {qs:.4} s");
    let warned: Vec<&String> = warnings
        .iter()
        .filter(|m| m.contains("ap.wlan") && m.contains("driver buffer of 100 packets"))
        .collect();
    assert_eq!(warned.len(), 1, "{warnings:#?}");
    assert!(warned[0].contains("≈ 109 ms"), "{}", warned[0]);
    // The time series has the driver's backlog at every sample (200 in 20 s), at most
    // the limit, and mostly high.
    let backlog = driver_series(&r.timeseries, "ap.wlan", "backlog_packets");
    assert_eq!(backlog.len(), 200);
    assert!(backlog.iter().all(|&v| v <= 100.0));
    let late = &backlog[40..];
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    assert!(mean > 80.0, "sampled driver backlog {mean:.1}");
}

/// The `kind = "driver"` rows of the time series for `name` and `metric`, in time order.
fn driver_series(t: &Table, name: &str, metric: &str) -> Vec<f64> {
    let cat = |col: &str| match t.column(col) {
        Some(Column::Cat { codes, categories }) => (codes.clone(), categories.clone()),
        other => panic!("column {col} is not categorical: {other:?}"),
    };
    let (kinds, kind_cats) = cat("kind");
    let (names, name_cats) = cat("name");
    let (metrics, metric_cats) = cat("metric");
    let value = t.f64s("value");
    (0..t.rows())
        .filter(|&i| {
            kind_cats[kinds[i] as usize] == "driver"
                && name_cats[names[i] as usize] == name
                && metric_cats[metrics[i] as usize] == metric
        })
        .map(|i| value[i])
        .collect()
}

/// With a 2-packet driver buffer the queue moves up into fq_codel (which then manages
/// it): the driver's mean backlog stays at most 2, and nothing is warned about.
#[test]
fn a_shallow_driver_buffer_is_not_warned_about_and_the_queue_is_in_the_qdisc() {
    let (r, warnings) = run(&with_buffer(2));
    assert_conserved(&r);
    let d = driver(&r, "ap.wlan");
    eprintln!(
        "shallow: driver mean {:.2}, sojourn {:.2} ms; fq_codel mean {:.2}, sojourn {:.2} ms",
        d("backlog_mean_packets"),
        d("sojourn_mean_ms"),
        queue(&r, "ap.wlan").f("backlog_mean_packets"),
        queue(&r, "ap.wlan").f("sojourn_mean_ms")
    );
    assert!(d("backlog_mean_packets") <= 2.0);
    assert!(d("backlog_max_packets") <= 2.0);
    assert!(d("sojourn_mean_ms") < 10.0, "{}", d("sojourn_mean_ms"));
    assert!(
        !warnings.iter().any(|m| m.contains("driver buffer")),
        "{warnings:#?}"
    );
    let q = queue(&r, "ap.wlan").f("backlog_mean_packets");
    assert!(q > 1.0, "fq_codel now holds the queue: mean {q:.2}");
}

/// A plain FIFO above the same buffer is not warned about (the buffer only adds to its
/// delay; it undoes nothing the FIFO does), nor are the stations (no qdisc of their own).
#[test]
fn a_fifo_above_a_deep_driver_buffer_is_not_warned_about() {
    let s = load_toml_str(&SCENARIO.replace("kind = \"fq_codel\"", "kind = \"pfifo\"")).unwrap();
    let sim = Simulation::build(&s, BuildOptions::default()).unwrap();
    assert!(
        !sim.warnings()
            .iter()
            .any(|p| p.message.contains("driver buffer")),
        "{:#?}",
        sim.warnings()
    );
}

/// Wired links model no driver queue (the wire holds the frame it serializes): no table.
#[test]
fn a_wired_scenario_has_no_driver_queue_table() {
    let text = include_str!("../../../scenarios/examples/dumbbell.toml")
        .replace("duration = \"60s\"", "duration = \"2s\"");
    let (r, warnings) = run(&text);
    assert!(r.more.iter().all(|(n, _)| n != "driver_queues"));
    assert!(warnings.is_empty());
}

/// With mac80211's queues on the AP (per-station FQ-CoDel TXQs below the qdisc, which then
/// holds nothing) the AP's driver queue is `kind = "mac80211"`: CoDel (target 20 ms, as
/// mac80211 sets it) keeps it short, its drops are CoDel's, Little's law holds on it
/// (within 5 %: CoDel's dropped packets spent time in it but are not in the mean sojourn),
/// and nothing is warned about.
#[test]
fn mac80211_queues_are_the_driver_queue_and_codel_keeps_them_short() {
    let text = SCENARIO.replace("buffer = 100 ", "ap_queues = \"mac80211\"\nbuffer = 100 ");
    let (r, warnings) = run(&text);
    assert_conserved(&r);
    let d = driver(&r, "ap.wlan");
    let (l, w) = (d("backlog_mean_packets"), d("sojourn_mean_ms") / 1e3);
    let lambda = d("dequeued_packets") / 18.0;
    eprintln!(
        "mac80211: mean {l:.2} packets, λW = {lambda:.1}/s × {:.1} ms = {:.2}, drops {} (aqm {})",
        w * 1e3,
        lambda * w,
        d("drops"),
        d("drops_aqm")
    );
    assert!((l - lambda * w).abs() / l < 0.05);
    assert!(w < 0.1, "CoDel keeps the TXQs' sojourn short: {w:.3} s");
    assert!(
        !warnings.iter().any(|m| m.contains("driver buffer")),
        "{warnings:#?}"
    );
    let t = table(&r, "driver_queues");
    let Some(Column::Str(kinds)) = t.column("kind") else {
        panic!("no kind column")
    };
    assert_eq!(kinds[0], "mac80211");
}

/// A piconet (master, two slaves, no ARQ, perfect channel) whose `extra` keys and flows
/// are appended: 60 s, 10 s warm-up.
fn piconet(piconet_keys: &str, flows: &str) -> String {
    format!(
        r#"
[run]
duration = "60s"
warmup = "10s"
seed = 3

[[nodes]]
name = "master"
[[nodes]]
name = "s1"
[[nodes]]
name = "s2"

[[piconets]]
name = "bt"
master = "master"
slaves = ["s1", "s2"]
polling = "e-limited"
limit = 5
slave_buffer = 20
{piconet_keys}

{flows}
"#
    )
}

/// Little's law L = λW on one driver queue over the 50 s after the warm-up, within `tol`.
fn little(r: &RunResults, iface: &str, tol: f64) -> f64 {
    let d = driver(r, iface);
    let (l, w) = (d("backlog_mean_packets"), d("sojourn_mean_ms") / 1e3);
    let lambda = d("dequeued_packets") / 50.0;
    eprintln!(
        "{iface}: mean {l:.3} packets, λW = {lambda:.1}/s × {:.2} ms = {:.3}, drops {}",
        w * 1e3,
        lambda * w,
        d("drops")
    );
    assert!(l > 0.0 && lambda > 0.0, "{iface} carried nothing");
    assert!(
        (l - lambda * w).abs() / l < tol,
        "{iface}: mean backlog {l:.3} vs λW {:.3}",
        lambda * w
    );
    l
}

/// A piconet's driver queues (issue 33 item 12 for Bluetooth): Poisson traffic from s1 to
/// s2 through the master fills s1's baseband buffer L (`kind = "baseband"`, limit 20
/// baseband packets) and the master's downlink queue (`"downlink"`, `master_buffer`);
/// Little's law holds on both within 3 % (only the packets queued at the window's ends
/// differ), nothing is dropped, and s2, which sends nothing, has an empty row.
#[test]
fn a_piconets_master_and_slave_queues_obey_littles_law() {
    let text = piconet(
        "",
        r#"[[flows]]
name = "up"
from = "s1"
to = "s2"
app = { kind = "poisson", size = 1000, rate = "250kbit" }"#,
    );
    let (r, warnings) = run(&text);
    assert_conserved(&r);
    assert!(warnings.is_empty(), "{warnings:#?}");
    little(&r, "s1.bt", 0.03);
    little(&r, "master.bt", 0.03);
    for iface in ["s1.bt", "master.bt"] {
        assert_eq!(driver(&r, iface)("drops"), 0.0);
    }
    assert_eq!(driver(&r, "s2.bt")("enqueued_packets"), 0.0);
    assert_eq!(driver(&r, "s1.bt")("limit_packets"), 20.0);
    assert_eq!(driver(&r, "master.bt")("limit_packets"), 1000.0);
    let t = table(&r, "driver_queues");
    let Some(Column::Str(kinds)) = t.column("kind") else {
        panic!("no kind column")
    };
    assert_eq!(kinds, &["downlink", "baseband", "baseband"]);
    let backlog = driver_series(&r.timeseries, "s1.bt", "backlog_packets");
    assert_eq!(backlog.len(), 600);
}

/// With L2CAP flow control (tb = 250 kbit/s) under 300 kbit/s of Poisson traffic, a
/// slave's token buffer S overflows (`kind = "l2cap"`, limit S + L = 25 + 20): the IP
/// packets a full S rejects, wholly or in part, are the driver queue's drops
/// (`qdisc_overflow`, the reason the flow loses them with). A partly rejected packet
/// spent time in the queue but has no sojourn (it was not sent), so the mean backlog is
/// at least λW of the packets sent, not equal to it.
#[test]
fn a_slaves_token_buffer_counts_its_drops() {
    let text = piconet(
        r#"flow_control = { token_rate = "250kbit", token_depth = "3KB", buffer = 25 }"#,
        r#"[[flows]]
name = "up"
from = "s1"
to = "master"
app = { kind = "poisson", size = 1000, rate = "300kbit" }"#,
    );
    let (r, _) = run(&text);
    assert_conserved(&r);
    let d = driver(&r, "s1.bt");
    let (l, w) = (d("backlog_mean_packets"), d("sojourn_mean_ms") / 1e3);
    let lambda = d("dequeued_packets") / 50.0;
    eprintln!(
        "s1.bt: mean {l:.3} packets, λW = {lambda:.1}/s × {:.2} ms = {:.3}, sent {}, drops {}",
        w * 1e3,
        lambda * w,
        d("dequeued_packets"),
        d("drops")
    );
    assert!(l >= 0.97 * lambda * w);
    assert!(d("drops") > 100.0, "drops {}", d("drops"));
    assert_eq!(d("drops"), d("drops_qdisc_overflow"));
    assert_eq!(d("limit_packets"), 45.0);
    // The flow loses the packets the queue dropped (perfect channel; the port is always
    // ready, so the qdisc above drops nothing), at reassembly a little later: a packet
    // or two may straddle the window's ends.
    let lost = flow(&r, "up").f("drops_qdisc_overflow");
    assert!(
        (lost - d("drops")).abs() <= 2.0,
        "flow {lost} vs driver {}",
        d("drops")
    );
}

/// Regression (found by the driver queues): with flow control, a baseband packet may
/// pass the token bucket at once and find L full while its IP packet is still being
/// segmented. Such an IP packet must end dropped (`qdisc_overflow`), never stay in the
/// piconet: before the fix its counts were still 0 then, wrapped, and it was never
/// delivered nor dropped. Reference: the conservation contract (every packet delivered,
/// dropped with a reason, or in flight) with in flight bounded by what S and L can hold
/// at the end — here L holds 3 baseband packets and S 25, so at most 28 IP packets.
#[test]
fn an_sdu_blocked_while_it_is_segmented_is_dropped_not_stuck() {
    let text = piconet(
        r#"flow_control = { token_rate = "2Mbit", token_depth = "64KB", buffer = 25 }"#,
        r#"[[flows]]
name = "up"
from = "s1"
to = "master"
app = { kind = "poisson", size = 1000, rate = "300kbit" }"#,
    )
    .replace("slave_buffer = 20", "slave_buffer = 3");
    let (r, _) = run(&text);
    assert_conserved(&r);
    let p = &r.summary.packets;
    eprintln!(
        "in flight at the end {}, dropped {:?}",
        p.in_flight, p.dropped
    );
    assert!(
        p.in_flight <= 28,
        "{} packets stuck in the piconet",
        p.in_flight
    );
    let lost = flow(&r, "up").f("drops_qdisc_overflow");
    assert!(lost > 100.0, "blocked SDUs dropped: {lost}");
}

/// A scatternet's bridge has a driver queue in each piconet: its buffer there
/// (`kind = "bridge"`).
#[test]
fn a_scatternet_bridge_reports_its_buffer_in_each_piconet() {
    let text = include_str!("../../../scenarios/bluetooth-tcp/scatternet-1-ppl.toml")
        .replace("duration = \"480s\"", "duration = \"20s\"")
        .replace("warmup = \"60s\"", "warmup = \"5s\"");
    let (r, _) = run(&text);
    assert_conserved(&r);
    let t = table(&r, "driver_queues");
    let (Some(Column::Str(ifaces)), Some(Column::Str(kinds))) =
        (t.column("interface"), t.column("kind"))
    else {
        panic!("no interface/kind columns")
    };
    let bridges: Vec<&String> = ifaces
        .iter()
        .zip(kinds)
        .filter(|(_, k)| *k == "bridge")
        .map(|(i, _)| i)
        .collect();
    eprintln!("{ifaces:?} {kinds:?}");
    assert_eq!(bridges.len(), 2, "{ifaces:?} {kinds:?}");
}

/// fq_codel on a piconet master's interface above its downlink queues: warned about with
/// the default `master_buffer` (1000 IP packets: the thesis's "large enough" master, where
/// the queue sits below fq_codel), not with `master_buffer = 2` (what the NAP scenarios
/// set so that packets wait in the qdisc); a slave's qdisc is never warned about.
#[test]
fn fq_codel_above_a_deep_master_buffer_is_warned_about() {
    let warnings = |keys: &str| -> Vec<String> {
        let text = piconet(
            keys,
            "[[qdiscs]]\ndev = \"master.bt\"\nkind = \"fq_codel\"\n\n\
             [[qdiscs]]\ndev = \"s1.bt\"\nkind = \"fq_codel\"\n",
        );
        let s = load_toml_str(&text).unwrap();
        let sim = Simulation::build(&s, BuildOptions::default()).unwrap();
        sim.warnings().iter().map(|p| p.message.clone()).collect()
    };
    let deep = warnings("");
    assert_eq!(deep.len(), 1, "{deep:#?}");
    assert!(
        deep[0].contains("master.bt") && deep[0].contains("driver buffer of 1000 packets"),
        "{}",
        deep[0]
    );
    assert!(deep[0].contains("piconets.bt.master_buffer"), "{}", deep[0]);
    eprintln!("{}", deep[0]);
    assert!(warnings("master_buffer = 2").is_empty());
}
