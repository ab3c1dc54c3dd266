//! SINR-based reception in 802.11 cells (`capture = "sinr"`, issue 12): the saturation
//! cell against ns-3 3.37 with and without RTS/CTS, ns-3's hidden-terminal triangle, seed
//! 004's hidden UDP pair, determinism, conservation and the option being off by default.

mod common;

use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, RunResults};
use common::*;

fn stations(r: &RunResults) -> &airqueue::metrics::Table {
    &r.more
        .iter()
        .find(|(n, _)| n == "stations")
        .expect("a cell adds the stations table")
        .1
}

/// A shipped scenario with `edits` (`(from, to)` text replacements, each must apply).
fn shipped(path: &str, edits: &[(&str, &str)]) -> airqueue::scenario::Scenario {
    let path = format!("{}/../../scenarios/{path}", env!("CARGO_MANIFEST_DIR"));
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (a, b) in edits {
        assert!(text.contains(a), "{a}");
        text = text.replace(a, b);
    }
    load_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// `scenarios/validation/dcf-saturation.toml` with `n` stations, RTS/CTS or not, capture
/// on, run for `duration` (1 s warm-up).
fn saturation(n: usize, rts: bool, duration: &str) -> RunResults {
    let count = format!("count = {n}");
    let cell = format!(
        "rate = \"11Mbit\"\ncapture = \"sinr\"\nrts_threshold = {}\n",
        if rts { 500 } else { 2347 }
    );
    let dur = format!("duration = \"{duration}\"");
    let s = shipped(
        "validation/dcf-saturation.toml",
        &[
            ("count = 10", &count),
            ("rate = \"11Mbit\"\n", &cell),
            ("duration = \"20s\"", &dur),
        ],
    );
    let r = run_scenario(&s, BuildOptions::default());
    assert_conserved(&r);
    r
}

fn total_goodput(r: &RunResults, n: usize) -> f64 {
    (0..n)
        .map(|i| flow(r, &format!("up{i}")).f("goodput_bps"))
        .sum()
}

/// Failed channel accesses per access (data frames in basic access, RTS under RTS/CTS).
fn collisions_per_access(r: &RunResults) -> f64 {
    let t = stations(r);
    let c: u64 = t.u64s("collisions").iter().sum();
    let s: u64 = t.u64s("frames_sent").iter().sum();
    c as f64 / (c + s) as f64
}

/// Reference: ns-3 3.37 (Debian's libns3-dev), `tools/ns3/wifi_saturation --n=N
/// --rts={2347,500}` without a preamble detection model (`--preambleDetection=0`: its
/// receivers lock onto the first frame and judge it by the SINR of each chunk, the
/// capture this option models), UDP payload throughput over 19 s after a 1 s warm-up,
/// measured 2026-11-25 (docs/ns3-wifi-comparison.md, "Measured"). airqueue runs the same
/// cell with `capture = "sinr"` for 10 s after the warm-up (to keep CI short; the
/// difference to 19 s is below 0.5 % here). Tolerance 5 % (issue 12), both access modes.
/// And the capture itself: under RTS/CTS the fraction of RTS without a CTS drops below
/// the basic-access fraction of data frames without an ACK (without capture they are
/// equal: the same back-off, the same collisions), as in ns-3 (0.196 against 0.291 at
/// n = 10).
#[test]
fn saturation_with_capture_matches_ns3_with_and_without_rts_cts() {
    let ns3 = [
        (2, 6.395e6, 5.069e6),
        (5, 6.249e6, 5.250e6),
        (10, 5.863e6, 5.289e6),
        (20, 5.421e6, 5.275e6),
        (50, 4.797e6, 5.184e6),
    ];
    for (n, basic, rts) in ns3 {
        let mut cpa = [0.0; 2];
        for (i, (on, want)) in [(false, basic), (true, rts)].into_iter().enumerate() {
            let r = saturation(n, on, "11s");
            let got = total_goodput(&r, n);
            let err = got / want - 1.0;
            cpa[i] = collisions_per_access(&r);
            println!(
                "n = {n}, rts = {on}: airqueue {:.4} Mb/s, ns-3 {:.4} Mb/s ({:+.2} %), collisions per access {:.3}",
                got / 1e6,
                want / 1e6,
                100.0 * err,
                cpa[i]
            );
            assert!(err.abs() < 0.05, "n = {n}, rts = {on}: {got}");
        }
        assert!(cpa[1] < cpa[0], "n = {n}: {cpa:?}");
    }
}

/// The option is off by default and off means the old model: a cell without `capture`
/// and one with `capture = "none"` give byte-identical results; with capture the same
/// seed gives byte-identical results twice (one stream per receiver).
#[test]
fn capture_is_off_by_default_and_deterministic() {
    let base = shipped(
        "validation/dcf-saturation.toml",
        &[("count = 10", "count = 5")],
    );
    let none = shipped(
        "validation/dcf-saturation.toml",
        &[
            ("count = 10", "count = 5"),
            (
                "rate = \"11Mbit\"\n",
                "rate = \"11Mbit\"\ncapture = \"none\"\n",
            ),
        ],
    );
    let a = run_scenario(&base, BuildOptions::default());
    let b = run_scenario(&none, BuildOptions::default());
    assert_eq!(total_goodput(&a, 5), total_goodput(&b, 5));
    assert_eq!(
        stations(&a).u64s("collisions"),
        stations(&b).u64s("collisions")
    );
    let x = saturation(5, true, "3s");
    let y = saturation(5, true, "3s");
    assert_eq!(total_goodput(&x, 5), total_goodput(&y, 5));
    assert_eq!(
        stations(&x).u64s("collisions"),
        stations(&y).u64s("collisions")
    );
}

/// Bad capture settings are reported with their field path.
#[test]
fn bad_capture_settings_name_their_field() {
    let text = std::fs::read_to_string(format!(
        "{}/../../scenarios/validation/dcf-saturation.toml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let fc = text.replace(
        "rate = \"11Mbit\"\n",
        "rate = \"11Mbit\"\nframe_capture = true\n",
    );
    let e = load_toml_str(&fc).unwrap_err().to_string();
    assert!(e.contains("cells.wlan.frame_capture"), "{e}");
    let bad = text.replace(
        "rate = \"11Mbit\"\n",
        "rate = \"11Mbit\"\ncapture = \"yes\"\n",
    );
    assert!(load_toml_str(&bad).is_err());
    let qos = text.replace(
        "rate = \"11Mbit\"\n",
        "rate = \"11Mbit\"\ncapture = \"sinr\"\nqos = true\n",
    );
    let e = load_toml_str(&qos).unwrap_err().to_string();
    assert!(
        e.contains("cells.wlan.capture") && e.contains("EDCA"),
        "{e}"
    );
}

/// Seed 004 §4.2.4 (Fig. 29, NCTUns 1.0): greedy UDP node 2 → node 1 and node 3 → node 4
/// on one channel, node 2 hidden from node 3 (`scenarios/striping/hidden-terminal.toml`,
/// its hearing graph: the paper gives no distances, its Fig. 28 is lost), now with
/// `capture = "sinr"`. The paper: 0.3 and about 4 Mb/s. Without positions every frame
/// arrives at the same nominal power, so at node 1 node 2's 11 Mb/s frame and node 3's
/// overlap at 0 dB, which CCK does not survive (only the 2 Mb/s ACKs and RTS would):
/// capture changes nothing here and node 2 still gets (almost) nothing. Bounds as without
/// capture (tests/wifi_hidden.rs): node 2 < 0.5 Mb/s, node 3 > 3.5 Mb/s. See
/// docs/reproductions/wang-2005.md.
#[test]
fn seed_004_hidden_udp_pair_with_capture() {
    let s = shipped(
        "striping/hidden-terminal.toml",
        &[
            ("duration = \"60s\"", "duration = \"30s\""),
            (
                "rate = \"11Mbit\"\nbuffer",
                "rate = \"11Mbit\"\ncapture = \"sinr\"\nbuffer",
            ),
        ],
    );
    let r = run_scenario(&s, BuildOptions::default());
    assert_conserved(&r);
    let (hid, other) = (
        flow(&r, "n2-n1").f("goodput_bps"),
        flow(&r, "n3-n4").f("goodput_bps"),
    );
    println!(
        "UDP with capture: node 2 → 1 {:.3} Mb/s, node 3 → 4 {:.3} Mb/s (paper 0.3 / 4)",
        hid / 1e6,
        other / 1e6
    );
    assert!(hid < 0.5e6 && other > 3.5e6, "{hid} {other}");
}

/// An ad hoc triangle with positions (ns-3's default radio: log-distance exponent 3,
/// 16.02 dBm, decode from −82 dBm = 51.45 m): a 10 m and c 45 m from b, a and c 55 m apart
/// (hidden from each other); both send saturated UDP to b at 11 Mb/s.
fn near_far(capture: &str, seed: u64) -> String {
    format!(
        "[run]\nduration = \"11s\"\nwarmup = \"1s\"\nseed = {seed}\n\
         [[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[nodes]]\nname = \"c\"\n\
         [[cells]]\nname = \"w\"\nmode = \"adhoc\"\nstandard = \"802.11b\"\nrate = \"11Mbit\"\n\
         {capture}\nstations = [{{ node = \"a\" }}, {{ node = \"b\" }}, {{ node = \"c\" }}]\n\
         [propagation]\npositions = {{ a = [0, 0], b = [10, 0], c = [55, 0] }}\n\
         [[flows]]\nname = \"a\"\nfrom = \"a\"\nto = \"b\"\n\
         app = {{ kind = \"cbr\", size = 1472, rate = \"11Mbit\" }}\n\
         [[flows]]\nname = \"c\"\nfrom = \"c\"\nto = \"b\"\n\
         app = {{ kind = \"cbr\", size = 1472, rate = \"11Mbit\" }}\n"
    )
}

/// Capture with unequal powers. At b, a's frames arrive at −60.7 dBm and c's at −80.3 dBm:
/// SINR +19.6 dB for a's (the 11 Mb/s CCK PER of a 1 536-byte frame at 19.6 dB is below
/// 1e-9, docs/channels.md) and −19.6 dB for c's (certainly lost). So with capture a's
/// frames survive every overlap in which b locked onto them (a started first), and only
/// those in which b was already receiving c's frame fail (no frame capture), where
/// without capture every overlap destroys both: a's failed accesses must at least halve
/// and its goodput rise; c's frames still fail whenever a's overlap them. With ns-3's
/// frame capture model on as well, a's frames that start within 20 µs of c's also take
/// over: a does no worse (within 3 %; the 20 µs window is one 802.11b slot, so this is
/// rare). Means over seeds 1–4 (c's share varies from 0.16 to 0.34 Mb/s between seeds).
/// Every run conserves packets.
#[test]
fn the_stronger_of_two_hidden_senders_captures_the_receiver() {
    // Means over seeds 1-4 of a's and c's goodput and a's failed accesses per access.
    let run = |cap: &str| {
        let mut m = (0.0, 0.0, 0.0);
        for seed in 1..=4 {
            let s = load_toml_str(&near_far(cap, seed)).unwrap_or_else(|e| panic!("{e}"));
            let r = run_scenario(&s, BuildOptions::default());
            assert_conserved(&r);
            let t = stations(&r);
            // Rows in port order: a, b, c.
            let a = 0;
            assert!(
                matches!(t.column("station"), Some(airqueue::metrics::Column::Str(v)) if v[0].starts_with('a'))
            );
            let fails = t.u64s("collisions")[a] as f64;
            let sent = t.u64s("frames_sent")[a] as f64;
            m.0 += flow(&r, "a").f("goodput_bps") / 4.0;
            m.1 += flow(&r, "c").f("goodput_bps") / 4.0;
            m.2 += fails / (fails + sent) / 4.0;
        }
        m
    };
    let none = run("");
    let sinr = run("capture = \"sinr\"");
    let fc = run("capture = \"sinr\"\nframe_capture = true");
    for (label, (a, c, f)) in [("none", none), ("sinr", sinr), ("sinr + frame capture", fc)] {
        println!(
            "{label}: a {:.3} Mb/s, c {:.3} Mb/s, a's failed accesses {f:.3}",
            a / 1e6,
            c / 1e6
        );
    }
    assert!(sinr.2 < 0.5 * none.2, "{none:?} {sinr:?}");
    assert!(sinr.0 > none.0, "{none:?} {sinr:?}");
    assert!(fc.0 >= 0.97 * sinr.0, "{sinr:?} {fc:?}");
}

/// Reference: ns-3 3.37 `tools/ns3/wifi_hidden` (the table in `tests/wifi_hidden.rs`: mean
/// total UDP goodput over RngRun 1–5, a and c hidden, MatrixPropagationLossModel 50 dB to
/// b; ns-3's default preamble detection, which in a hidden overlap detects the first frame
/// and leaves the later one undetected, as airqueue's locked receiver treats it). With
/// capture, b keeps a 2 Mb/s RTS (802.11b) overlapped at 0 dB with probability 0.97 instead
/// of losing it. Tolerance 3 % (as without capture), seeds 1–5.
#[test]
fn hidden_triangle_with_capture_matches_ns3() {
    let cases = [
        ("802.11b", "11Mbit", false, 3.8016e6),
        ("802.11b", "11Mbit", true, 4.4932e6),
        ("802.11a", "54Mbit", false, 22.0012e6),
        ("802.11a", "54Mbit", true, 23.6949e6),
    ];
    for (standard, rate, rts, want) in cases {
        let mut sum = 0.0;
        for seed in 1..=5 {
            let s = load_toml_str(&ns3_triangle(
                standard,
                rate,
                true,
                rts,
                "capture = \"sinr\"\n",
                seed,
            ))
            .unwrap();
            let r = run_scenario(&s, BuildOptions::default());
            assert_conserved(&r);
            sum += flow(&r, "a").f("goodput_bps") + flow(&r, "c").f("goodput_bps");
        }
        let got = sum / 5.0;
        let err = got / want - 1.0;
        println!(
            "{standard} rts={rts} hidden, capture: airqueue {:.4} Mb/s, ns-3 {:.4} Mb/s ({:+.2} %)",
            got / 1e6,
            want / 1e6,
            100.0 * err
        );
        assert!(err.abs() < 0.03, "{standard} rts={rts}: {got}");
    }
}
