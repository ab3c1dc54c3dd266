//! Bluetooth BR piconets (issue 13): the baseband against the specification's slot
//! arithmetic, the polling schemes' defining properties, L2CAP segmentation (OSU), the
//! token bucket's long-run rate, ARQ, and the thesis's (seed 001) per-packet success rates.

mod common;

use airqueue::channel::bit_error::per;
use airqueue::channel::stationary;
use airqueue::metrics::Table;
use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, RunResults};
use common::*;

/// Slot length, seconds.
const SLOT_S: f64 = 625e-6;

/// A piconet `bt` with master `m` and `n` slaves `s1..sn`, extra piconet keys `keys`
/// (TOML lines), and the given flows (TOML).
fn piconet(dur: &str, warmup: &str, n: usize, keys: &str, flows: &str) -> String {
    let mut s =
        format!("[run]\nduration = \"{dur}\"\nwarmup = \"{warmup}\"\n[[nodes]]\nname = \"m\"\n");
    let slaves: Vec<String> = (1..=n).map(|i| format!("\"s{i}\"")).collect();
    for i in 1..=n {
        s += &format!("[[nodes]]\nname = \"s{i}\"\n");
    }
    s += &format!(
        "[[piconets]]\nname = \"bt\"\nmaster = \"m\"\nslaves = [{}]\n{keys}\n",
        slaves.join(", ")
    );
    s + flows
}

fn udp(name: &str, from: &str, to: &str, payload: u32, rate: &str) -> String {
    format!("[[flows]]\nname = \"{name}\"\nfrom = \"{from}\"\nto = \"{to}\"\napp = {{ kind = \"cbr\", size = {payload}, rate = \"{rate}\" }}\n")
}

fn run(toml: &str) -> RunResults {
    let s = load_toml_str(toml).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let r = run_scenario(&s, BuildOptions::default());
    assert_conserved(&r);
    r
}

fn links(r: &RunResults) -> &Table {
    &r.more
        .iter()
        .find(|(n, _)| n == "piconet_links")
        .expect("piconet_links")
        .1
}

/// Row of slave `name` in `piconet_links`.
fn slave<'a>(r: &'a RunResults, name: &str) -> Row<'a> {
    let t = links(r);
    Row {
        table: t,
        index: t
            .row_of("slave", name)
            .unwrap_or_else(|| panic!("no slave {name}")),
    }
}

/// Bluetooth Core 1.2 Vol. 2 Part B Table 6.9, from slot arithmetic: with every baseband
/// packet full, the payload carried per slot of the frames is exactly the specification's
/// maximum, and the saturated link wastes no frame on POLL/NULL.
#[test]
fn spec_max_throughputs_dh5_asym_723_2_sym_433_9_dh1_sym_172_8_dm5_asym_477_8() {
    // (type, payload per packet, packets per IP packet, symmetric?, spec kb/s)
    for (ty, payload, k, sym, spec) in [
        ("DH5", 339u32, 4u32, false, 723.2),
        ("DH5", 339, 4, true, 433.9),
        ("DH1", 27, 40, true, 172.8),
        ("DM5", 224, 6, false, 477.8),
    ] {
        // IP packet + 7 B of L2CAP/BNEP = k full packets; UDP payload = that − 28.
        let udp_payload = payload * k - 7 - 28;
        let mut flows = udp("down", "m", "s1", udp_payload, "2Mbit");
        if sym {
            flows += &udp("up", "s1", "m", udp_payload, "2Mbit");
        }
        let keys = format!("packet_types = [\"{ty}\"]\nslave_buffer = {}", 2 * k);
        let r = run(&piconet("10s", "1s", 1, &keys, &flows));
        let row = slave(&r, "s1");
        let frames = row.u("data_frames");
        assert_eq!(
            row.u("poll_null_frames"),
            0,
            "{ty}: saturated link polled idle"
        );
        let slots_per_frame = if sym { 2 } else { 1 } * (row.u("down_slots") / row.u("down_sent"));
        let slots_per_frame = if sym {
            slots_per_frame
        } else {
            slots_per_frame + 1
        };
        let span = frames as f64 * slots_per_frame as f64 * SLOT_S;
        // The frames fill the 9 s after the warm-up, to within one frame.
        assert!(
            (span - 9.0).abs() <= slots_per_frame as f64 * SLOT_S + 1e-9,
            "{ty}: {span}"
        );
        let rate = row.u("down_payload_bytes") as f64 * 8.0 / span;
        let kbps = (rate / 100.0).floor() / 10.0;
        assert_eq!(kbps, spec, "{ty} sym={sym}: {rate} b/s");
        assert_eq!(
            row.u("down_payload_bytes"),
            row.u("down_sent") * u64::from(payload)
        );
        if sym {
            let up = row.u("up_payload_bytes") as f64 * 8.0 / span;
            assert_eq!((up / 100.0).floor() / 10.0, spec, "{ty} uplink");
        }
    }
}

/// 1-limited polling (round robin, thesis §2.3.1) of n saturated slaves: each gets 1/n of
/// the uplink within 1 %.
#[test]
fn one_limited_polling_shares_equally_among_saturated_slaves() {
    for n in [2usize, 4, 7] {
        let flows: String = (1..=n)
            .map(|i| udp(&format!("u{i}"), &format!("s{i}"), "m", 1465, "1Mbit"))
            .collect();
        let r = run(&piconet("20s", "2s", n, "polling = \"1-limited\"", &flows));
        let g: Vec<f64> = (1..=n)
            .map(|i| flow(&r, &format!("u{i}")).f("goodput_bps"))
            .collect();
        let total: f64 = g.iter().sum();
        eprintln!("1-limited n={n}: goodputs {g:?}");
        for (i, x) in g.iter().enumerate() {
            assert!(
                (x / total - 1.0 / n as f64).abs() < 0.01 / n as f64,
                "n={n} slave {}: {g:?}",
                i + 1
            );
        }
        // 1500-byte packets: 4 DH5 + 1 DH3 up, POLL down: 23 + 5 slots per 5 frames.
        let cap = 1500.0 * 8.0 / (28.0 * SLOT_S) * 1472.0 / 1500.0;
        assert!((total / cap - 1.0).abs() < 0.01, "n={n}: {total} vs {cap}");
    }
}

/// E-limited with M = ∞ is exhaustive service (thesis §2.3.1): identical runs.
#[test]
fn e_limited_with_unbounded_m_equals_exhaustive() {
    let flows = udp("a", "s1", "m", 1000, "150kbit")
        + &udp("b", "m", "s2", 500, "100kbit")
        + &udp("c", "s3", "m", 1400, "200kbit");
    let ex = run(&piconet("10s", "0s", 3, "polling = \"exhaustive\"", &flows));
    let el = run(&piconet(
        "10s",
        "0s",
        3,
        "polling = \"e-limited\"\nlimit = 4294967295",
        &flows,
    ));
    assert_tables_identical("flows", &ex.flows, &el.flows);
    assert_tables_identical("piconet_links", links(&ex), links(&el));
    let one = run(&piconet(
        "10s",
        "0s",
        3,
        "polling = \"e-limited\"\nlimit = 1",
        &flows,
    ));
    let rr = run(&piconet("10s", "0s", 3, "polling = \"1-limited\"", &flows));
    assert_tables_identical("piconet_links", links(&one), links(&rr));
    // And M = 5 is neither.
    let m5 = run(&piconet(
        "10s",
        "0s",
        3,
        "polling = \"e-limited\"\nlimit = 5",
        &flows,
    ));
    assert_ne!(
        slave(&m5, "s1").u("poll_null_frames"),
        slave(&ex, "s1").u("poll_null_frames")
    );
}

/// A slave with nothing to send costs one POLL/NULL frame (two slots) per visit: under
/// 1-limited polling beside a saturated slave it is visited once per cycle.
#[test]
fn idle_slave_costs_one_poll_null_pair_per_visit() {
    let flows = udp("u", "s1", "m", 1465, "1Mbit");
    for polling in ["1-limited", "e-limited\"\nlimit = \"5"] {
        let keys = format!("polling = \"{polling}\"").replace("\"5\"", "5");
        let r = run(&piconet("10s", "1s", 2, &keys, &flows));
        let busy = slave(&r, "s1");
        let idle = slave(&r, "s2");
        assert_eq!(idle.u("data_frames"), 0);
        // Visits to s1: each ends after M data frames (or at a POLL/NULL): count them.
        let visits = if polling == "1-limited" {
            busy.u("data_frames")
        } else {
            busy.u("data_frames").div_ceil(5)
        };
        assert!(
            idle.u("poll_null_frames").abs_diff(visits) <= 1,
            "{polling}: {} vs {visits}",
            idle.u("poll_null_frames")
        );
        // Time accounting: data slots + 2 per POLL/NULL + 1 per POLL/NULL half fill the span.
        let slots = busy.u("up_slots")
            + busy.u("data_frames")
            + 2 * idle.u("poll_null_frames")
            + 2 * busy.u("poll_null_frames");
        assert!(
            (slots as f64 * SLOT_S - 9.0).abs() < 0.01,
            "{polling}: {slots}"
        );
    }
    // An idle piconet polls round robin: one POLL/NULL frame every 1.25 ms.
    let r = run(&piconet("10s", "0s", 3, "", ""));
    let total: u64 = (1..=3)
        .map(|i| slave(&r, &format!("s{i}")).u("poll_null_frames"))
        .sum();
    assert_eq!(total, 8000);
}

/// OSU (thesis §3.1): a 1500-byte IP packet is 4 DH5 + 1 DH3 (23 slots) and a TCP ACK
/// (52 B) one DH3.
#[test]
fn osu_1500_byte_packet_is_4_dh5_and_1_dh3_and_ack_one_dh3() {
    let flows = "[[flows]]\nname = \"one\"\nfrom = \"m\"\nto = \"s1\"\napp = { kind = \"cbr\", size = 1472, interval = \"1s\" }\nstop = \"0.5s\"\n[[flows]]\nname = \"ack\"\nfrom = \"s1\"\nto = \"m\"\napp = { kind = \"cbr\", size = 24, interval = \"1s\" }\nstop = \"0.5s\"\n";
    let r = run(&piconet("1s", "0s", 1, "", flows));
    let row = slave(&r, "s1");
    assert_eq!(
        (row.u("sent_dh5"), row.u("sent_dh3"), row.u("sent_dh1")),
        (4, 2, 0)
    );
    assert_eq!(row.u("down_slots"), 23);
    assert_eq!(row.u("down_payload_bytes"), 1507);
    assert_eq!(row.u("up_slots"), 3);
    assert_eq!(flow(&r, "one").u("rx_packets"), 1);
}

/// Losing one baseband packet loses its IP packet without ARQ (thesis §3.2.3, §4.2) —
/// delivered fraction = Π(1 − PER) over its 4 DH5 + 1 DH3 — and not with ARQ.
#[test]
fn lost_baseband_packet_loses_the_ip_packet_without_arq_only() {
    let flows = udp("d", "m", "s1", 1472, "100kbit");
    let ber = 2e-5;
    let keys = format!("channel = {{ ber = {ber} }}");
    let off = run(&piconet("200s", "0s", 1, &keys, &flows));
    let f = flow(&off, "d");
    let expect = (1.0 - per(ber, 2712.0)).powi(4) * (1.0 - per(ber, 1464.0));
    let got = f.u("rx_packets") as f64 / f.u("tx_packets") as f64;
    let n = f.u("tx_packets") as f64;
    let sd = (expect * (1.0 - expect) / n).sqrt();
    assert!((got - expect).abs() < 4.0 * sd, "{got} vs {expect} ± {sd}");
    assert!(f.u("drops_channel_error") > 0);
    let on = run(&piconet("200s", "0s", 1, &(keys + "\narq = true"), &flows));
    let f = flow(&on, "d");
    assert_eq!(f.u("drops_channel_error"), 0);
    assert!(
        slave(&on, "s1").u("down_lost") > 0,
        "no baseband loss to recover"
    );
    assert!(
        f.u("tx_packets") - f.u("rx_packets") <= 2,
        "only the packets in flight at the end"
    );
}

/// L2CAP token bucket (thesis §3.1): with the slave offered more than tb, the long-run rate
/// into the baseband buffer equals tb (within 1 %, the bucket's 3 KB burst included) and
/// the token buffer S overflows; offered less than tb, nothing is dropped.
#[test]
fn token_bucket_long_run_rate_is_tb_and_drops_when_s_overflows() {
    for tb in [100_000u64, 250_000] {
        let keys = format!("flow_control = {{ token_rate = \"{tb}bit\", buffer = 25 }}");
        let flows = udp("u", "s1", "m", 1472, &format!("{}bit", tb * 2));
        let r = run(&piconet("60s", "5s", 1, &keys, &flows));
        let row = slave(&r, "s1");
        let rate = row.f("token_rate_bps");
        eprintln!(
            "tb {tb}: rate into L {rate:.0} b/s, {} token drops",
            row.u("token_drops")
        );
        assert!((rate / tb as f64 - 1.0).abs() < 0.01, "tb={tb}: {rate}");
        assert!(row.u("token_drops") > 0);
        assert!(flow(&r, "u").u("drops_qdisc_overflow") > 0);
        let low = udp("u", "s1", "m", 1472, &format!("{}bit", tb / 2));
        let r = run(&piconet("60s", "5s", 1, &keys, &low));
        assert_eq!(slave(&r, "s1").u("token_drops"), 0);
        assert_eq!(flow(&r, "u").u("drops_qdisc_overflow"), 0);
    }
    // A larger S absorbs bursts a smaller one rejects.
    let burst = "[[flows]]\nname = \"u\"\nfrom = \"s1\"\nto = \"m\"\napp = { kind = \"onoff\", size = 1472, rate = \"1Mbit\", on = \"50ms\", off = \"950ms\" }\n";
    let drops = |s: u32| {
        let keys = format!("flow_control = {{ token_rate = \"250kbit\", buffer = {s} }}");
        slave(&run(&piconet("30s", "0s", 1, &keys, burst)), "s1").u("token_drops")
    };
    assert!(drops(5) > drops(25), "S = 5 vs 25");
}

/// Thesis §3.1 and §6.1.1 ("too high tb will overload the baseband buffer L"; the
/// "blocking probability" of L): two saturated slaves under 1-limited polling each drain
/// one DH5 (339 B) per 12 slots, 361.6 kb/s. With tb = 600 kb/s above that, packets that
/// hold a token find L (20) full and are lost (`l_drops`, their IP packets as
/// `qdisc_overflow`), and the rate into L equals the drain (within 1 %); with tb = 200
/// kb/s below it, L never blocks.
#[test]
fn token_rate_above_the_drain_blocks_the_baseband_buffer() {
    let drain = 339.0 * 8.0 / (12.0 * SLOT_S);
    for (tb, blocks) in [(600_000u64, true), (200_000, false)] {
        let keys = format!(
            "polling = \"1-limited\"\nslave_buffer = 20\nflow_control = {{ token_rate = \"{tb}bit\", buffer = 25 }}"
        );
        let flows = udp("u1", "s1", "m", 1472, "700kbit") + &udp("u2", "s2", "m", 1472, "700kbit");
        let r = run(&piconet("60s", "5s", 2, &keys, &flows));
        let row = slave(&r, "s1");
        eprintln!(
            "tb {tb}: into L {:.0} b/s, {} blocked at L, {} token drops",
            row.f("token_rate_bps"),
            row.u("l_drops"),
            row.u("token_drops")
        );
        if blocks {
            assert!(row.u("l_drops") > 0);
            let into_l = row.f("token_rate_bps");
            assert!((into_l / drain - 1.0).abs() < 0.01, "{into_l} vs {drain}");
        } else {
            assert_eq!(row.u("l_drops"), 0);
        }
    }
}

/// Thesis Tables 6.1/6.2 from simulation: over the Gilbert-Elliott channel with the
/// §6.3 BERs, the simulated per-hop success of DH5 and DH3 packets, composed as the
/// thesis composes them (4 DH5 + 1 DH3 + the ACK's DH3, over 2 and 4 hops), is within 2 %
/// of the tables' 0.59622 and 0.355478.
#[test]
fn thesis_table_6_2_segment_success_from_simulated_packet_losses() {
    let ge = "channel = { gilbert_elliott = { mean_good = \"437.5ms\", mean_bad = \"55.8ms\", ber_good = 6.8979e-6, ber_bad = 1.263e-4 } }";
    let n = 7;
    let flows: String = (1..=n)
        .map(|i| {
            udp(&format!("u{i}"), &format!("s{i}"), "m", 1472, "120kbit")
                + &udp(&format!("a{i}"), &format!("s{i}"), "m", 24, "30kbit")
        })
        .collect();
    let r = run(&piconet("600s", "0s", n, ge, &flows));
    let t = links(&r);
    let sum = |c: &str| t.u64s(c).iter().sum::<u64>() as f64;
    let s5 = 1.0 - sum("lost_dh5") / sum("sent_dh5");
    let s3 = 1.0 - sum("lost_dh3") / sum("sent_dh3");
    let seg = s5.powi(4) * s3.powi(2);
    eprintln!(
        "simulated s5 {s5:.5} s3 {s3:.5}: 2 hops {:.5}, 4 hops {:.5}",
        seg.powi(2),
        seg.powi(4)
    );
    for (hops, table) in [(2, 0.59622), (4, 0.355478)] {
        let x = seg.powi(hops);
        assert!(
            (x / table - 1.0).abs() < 0.02,
            "{hops} hops: {x} vs {table} (s5 {s5}, s3 {s3})"
        );
    }
    // The same closed form from the exact PERs (Table 6.1's rounding aside).
    let (pg, pb) = stationary(0.4375, 0.0558);
    let s5x = (1.0 - per(6.8979e-6, 2712.0)) * pg + (1.0 - per(1.263e-4, 2712.0)) * pb;
    assert!((s5 / s5x - 1.0).abs() < 0.01, "{s5} vs {s5x}");
}

/// Same scenario and seed, same results, byte for byte.
#[test]
fn piconet_runs_are_deterministic() {
    let flows = udp("a", "s1", "s2", 1000, "60kbit") + &udp("b", "s2", "s1", 1400, "90kbit");
    let toml = piconet(
        "20s",
        "1s",
        2,
        "polling = \"e-limited\"\nlimit = 5\nflow_control = { token_rate = \"250kbit\", buffer = 10 }\nchannel = { gilbert_elliott = { mean_good = \"437.5ms\", mean_bad = \"55.8ms\", ber_good = 6.8979e-6, ber_bad = 1.263e-4 } }",
        &flows,
    );
    let a = run(&toml);
    let b = run(&toml);
    assert_tables_identical("flows", &a.flows, &b.flows);
    assert_tables_identical("piconet_links", links(&a), links(&b));
    // Slave to slave goes through the master: both hops carry it.
    assert!(flow(&a, "a").u("rx_packets") > 0);
    assert!(slave(&a, "s1").u("up_sent") > 0 && slave(&a, "s2").u("down_sent") > 0);
}

/// Bad input names the field and the fix.
#[test]
fn bad_piconet_keys_name_the_field() {
    let cases = [
        ("polling = \"round-robin\"", "piconets.bt.polling"),
        ("polling = \"e-limited\"", "piconets.bt.limit"),
        ("packet_types = [\"DH7\"]", "piconets.bt.packet_types"),
        ("sar = \"fastest\"", "piconets.bt.sar"),
        ("slave_buffer = 3", "piconets.bt.slave_buffer"),
        (
            "flow_control = { token_rate = \"250kbit\", buffer = 5, token_depth = 100 }",
            "piconets.bt.flow_control.token_depth",
        ),
        ("channel = { per = 0.1 }", "piconets.bt.channel.per"),
    ];
    for (keys, path) in cases {
        let toml = piconet("1s", "0s", 2, keys, "");
        let e = load_toml_str(&toml)
            .err()
            .unwrap_or_else(|| panic!("{keys} accepted"))
            .to_string();
        assert!(e.contains(path), "{keys}: {e}");
    }
    let eight = piconet("1s", "0s", 8, "", "");
    assert!(load_toml_str(&eight)
        .unwrap_err()
        .to_string()
        .contains("piconets.bt.slaves"));
}

/// The largest `slave_buffer` a user can write builds and runs: the slave's buffer grows
/// with the packets it holds (it was reserved up front: 4294967295 slots, 34 GB, an abort).
#[test]
fn the_largest_slave_buffer_builds_without_reserving_it() {
    let toml = piconet(
        "200ms",
        "0s",
        1,
        "slave_buffer = 4294967295",
        &udp("up", "s1", "m", 200, "64kbit"),
    );
    let r = run(&toml);
    assert!(flow(&r, "up").u("rx_packets") > 0);
}

fn lwrr_keys(mp: u32) -> String {
    format!("polling = \"lwrr\"\nlimit = 1\nmax_priority = {mp}")
}

/// LWRR (Capone, Gerla, Kapoor, ICC 2001; thesis §2.3.1): an idle slave's weight falls to
/// 1 and it is then polled once every MP cycles — one POLL/NULL frame per MP visits of
/// the busy slave — while saturated slaves keep weight MP and share as round robin.
#[test]
fn lwrr_polls_an_idle_slave_once_every_mp_cycles_and_busy_slaves_round_robin() {
    for mp in [2u32, 4, 8] {
        let flows = udp("u", "s1", "m", 1465, "1Mbit");
        let r = run(&piconet("20s", "1s", 2, &lwrr_keys(mp), &flows));
        let busy = slave(&r, "s1").u("data_frames");
        let idle = slave(&r, "s2").u("poll_null_frames");
        let expect = busy as f64 / f64::from(mp);
        assert!(
            (idle as f64 - expect).abs() <= 2.0,
            "MP={mp}: {idle} POLL/NULL vs {expect}"
        );
        assert_tdd_timeline_covered(&r, 19.0);
    }
    let n = 4;
    let flows: String = (1..=n)
        .map(|i| udp(&format!("u{i}"), &format!("s{i}"), "m", 1465, "1Mbit"))
        .collect();
    let r = run(&piconet("20s", "2s", n, &lwrr_keys(4), &flows));
    let g: Vec<f64> = (1..=n)
        .map(|i| flow(&r, &format!("u{i}")).f("goodput_bps"))
        .collect();
    let total: f64 = g.iter().sum();
    for x in &g {
        assert!((x / total - 0.25).abs() < 0.0025, "{g:?}");
    }
}

/// The reason for adaptive polling: beside six idle slaves, one busy slave gets more of
/// the piconet under LWRR than under 1-limited polling, which wastes a POLL/NULL frame per
/// idle slave per cycle.
#[test]
fn lwrr_gives_a_lone_busy_slave_more_than_round_robin() {
    let flows = udp("u", "s1", "m", 1465, "1Mbit");
    let rr = run(&piconet("10s", "1s", 7, "polling = \"1-limited\"", &flows));
    let lw = run(&piconet("10s", "1s", 7, &lwrr_keys(4), &flows));
    let (a, b) = (
        flow(&rr, "u").f("goodput_bps"),
        flow(&lw, "u").f("goodput_bps"),
    );
    // 1-limited: 28 data slots per 5 frames + 12 POLL/NULL slots per frame → 5·1465·8 B per 88 slots.
    let rr_expect = 1465.0 * 8.0 / ((28.0 + 5.0 * 12.0) / 5.0 * SLOT_S) / 5.0 * 5.0 / 5.0;
    assert!(
        (a / rr_expect - 1.0).abs() < 0.01,
        "1-limited {a} vs {rr_expect}"
    );
    assert!(b > 1.5 * a, "LWRR {b} vs 1-limited {a}");
}

/// Bursty traffic under LWRR with dormant periods: packets conserved, the TDD timeline
/// covered once, runs reproducible.
#[test]
fn lwrr_with_dormant_periods_conserves_and_covers_the_timeline() {
    let flows = "[[flows]]\nname = \"u\"\nfrom = \"s2\"\nto = \"s3\"\napp = { kind = \"onoff\", size = 1000, rate = \"300kbit\", on = \"100ms\", off = \"900ms\" }\n".to_string()
        + &udp("d", "m", "s1", 200, "20kbit");
    let keys = lwrr_keys(3) + "\nflow_control = { token_rate = \"100kbit\", buffer = 10 }";
    let toml = piconet("30s", "0s", 3, &keys, &flows);
    let a = run(&toml);
    assert_tdd_timeline_covered(&a, 30.0);
    assert!(flow(&a, "u").u("rx_packets") > 0 && flow(&a, "d").u("rx_packets") > 0);
    let b = run(&toml);
    assert_tables_identical("piconet_links", links(&a), links(&b));
    // The same with E-limited polling.
    let e = run(&piconet("30s", "0s", 3, "polling = \"e-limited\"\nlimit = 3\nflow_control = { token_rate = \"100kbit\", buffer = 10 }", &flows));
    assert_tdd_timeline_covered(&e, 30.0);
}

mod view {
    use airqueue::packet::PacketId;
    use airqueue::qdisc::{Qdisc, QdiscCtx, Verdict};
    use std::collections::VecDeque;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use std::sync::Arc;

    /// A FIFO on the master that hands the piconet a packet only when the link view says
    /// the master holds nothing for its slave (`can_send`), and records the largest
    /// `hw_backlog` it saw and the `link_changed` calls.
    pub struct CanSendFifo {
        pub q: VecDeque<PacketId>,
        pub bytes: u64,
        pub changes: Arc<AtomicU64>,
        pub max_backlog: Arc<AtomicU64>,
    }

    impl CanSendFifo {
        fn sendable(&self, ctx: &QdiscCtx) -> Option<PacketId> {
            let &head = self.q.front()?;
            let v = ctx
                .link(ctx.packets.get(head).next_hop)
                .expect("a slave's view");
            self.max_backlog.fetch_max(u64::from(v.hw_backlog), Relaxed);
            assert_eq!(v.rate_bps, 723_200);
            v.can_send.then_some(head)
        }
    }

    impl Qdisc for CanSendFifo {
        fn kind(&self) -> &'static str {
            "can_send_fifo"
        }
        fn enqueue(&mut self, pkt: PacketId, ctx: &mut QdiscCtx) -> Verdict {
            self.bytes += u64::from(ctx.len_of(pkt));
            self.q.push_back(pkt);
            Verdict::Queued
        }
        fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
            let p = self.sendable(ctx)?;
            self.q.pop_front();
            self.bytes -= u64::from(ctx.len_of(p));
            Some(p)
        }
        fn peek(&mut self, ctx: &mut QdiscCtx) -> Option<PacketId> {
            self.sendable(ctx)
        }
        fn len(&self) -> usize {
            self.q.len()
        }
        fn backlog_bytes(&self) -> u64 {
            self.bytes
        }
        fn link_changed(&mut self, _iface: u32, _ctx: &mut QdiscCtx) {
            self.changes.fetch_add(1, Relaxed);
        }
    }
}

/// The master's link view per slave (the contract in `link/mod.rs`: what an HCI reports):
/// a qdisc that sends only while the master holds nothing for a slave keeps the baseband's
/// queue per slave at one packet, is woken by `ViewChanged` when a slave's queue empties,
/// and delivers everything (no stall).
#[test]
fn master_link_view_can_send_and_backlog_per_slave() {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use std::sync::Arc;
    let flows = udp("a", "m", "s1", 1000, "100kbit") + &udp("b", "m", "s2", 300, "50kbit");
    let toml = piconet("20s", "0s", 2, "", &flows);
    let s = load_toml_str(&toml).unwrap();
    let changes = Arc::new(AtomicU64::new(0));
    let max_backlog = Arc::new(AtomicU64::new(0));
    let q = view::CanSendFifo {
        q: Default::default(),
        bytes: 0,
        changes: changes.clone(),
        max_backlog: max_backlog.clone(),
    };
    let r = run_with_qdisc(&s, "m.bt", Box::new(q));
    assert_conserved(&r);
    assert!(changes.load(Relaxed) > 100, "{}", changes.load(Relaxed));
    assert!(max_backlog.load(Relaxed) <= 1);
    for f in ["a", "b"] {
        let row = flow(&r, f);
        assert!(
            row.u("tx_packets") - row.u("rx_packets") <= 2,
            "{f} stalled"
        );
    }
}
