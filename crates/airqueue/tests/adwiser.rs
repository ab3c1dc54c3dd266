//! ADWISER (seed 002) in whole runs: the paper's scenarios (`scenarios/adwiser/`) with the
//! box bypassed and in the path, checked against the paper's §IV numbers with stated
//! tolerances. Short forms (the box fixed for the whole run, the averages taken after the
//! rate adaptation's transient) keep CI cheap; `airqueue reproduce hegde-adwiser-*` runs
//! the longer ones.

mod common;

use airqueue::scenario::load_toml_str;
use airqueue::sim::RunResults;
use common::*;

const FIG17: &str = include_str!("../../../scenarios/adwiser/fig17-mixed-rates.toml");
const FIG18: &str = include_str!("../../../scenarios/adwiser/fig18-up-down.toml");
const TABLE1: &str = include_str!("../../../scenarios/adwiser/table1-policy.toml");

/// Runs `text` with the box fixed (`bypass`) from the start, for `duration`, averaging
/// after `warmup`.
fn run(text: &str, duration: &str, warmup: &str, bypass: bool) -> RunResults {
    let mut v: toml::Table = toml::from_str(text).unwrap();
    v.remove("at");
    let run = v["run"].as_table_mut().unwrap();
    run.insert("duration".into(), duration.into());
    run.insert("warmup".into(), warmup.into());
    for q in v["qdiscs"].as_array_mut().unwrap() {
        let q = q.as_table_mut().unwrap();
        if q.get("name").and_then(|n| n.as_str()) == Some("box") {
            q.insert("bypass".into(), bypass.into());
        }
    }
    let s = load_toml_str(&toml::to_string(&v).unwrap()).unwrap();
    let r = run_scenario(&s, Default::default());
    assert_conserved(&r);
    r
}

/// Prints the box's rows of the class table: C (`rate_bps` of `wlan`), C* (`ceil_bps`).
fn print_box(r: &RunResults) {
    let c = &r.classes;
    for name in ["voice", "wan", "wlan"] {
        if let Some(i) = c.row_of("class", name) {
            let row = Row { table: c, index: i };
            println!(
                "  {name}: rate {} C* {} dequeued {} drops {}",
                row.u("rate_bps"),
                row.u("ceil_bps"),
                row.u("dequeued_packets"),
                row.u("drops")
            );
        }
    }
}

/// `text` with the TCP the scenarios ran before they took the `linux-2.6.23` profile (issue
/// 38): a fixed `rcv_buffer` window (256 KiB, or 8 MiB for the 54 Mb/s flows) instead of the
/// profile's autotuning. With the profile, these short forms' Fig. 17 total (3.323 Mb/s,
/// above C* = 3.26), Fig. 16's 1/2/3 period (8.133 Mb/s, below 85 % of C* = 10.659) and
/// Fig. 22's carried measurement (C reaches C* = 21.324 also with loss semantics) go
/// outside their references; docs/reproductions/hegde-2013.md, "TCP stack profile", reports
/// the profile's reading. These tests check the box with the TCP of that page's "before".
fn pre_profile(text: &str, rcv_buffer: &str) -> String {
    let t = text.replace(
        r#"profile = "linux-2.6.23""#,
        &format!(r#"rcv_buffer = "{rcv_buffer}""#),
    );
    assert_ne!(t, text, "the scenario runs the linux-2.6.23 profile");
    t
}

fn mbit(r: &RunResults, name: &str) -> f64 {
    flow(r, name).f("goodput_bps") / 1e6
}

/// Reference: seed 002 §IV-A.2, Fig. 18 — five uploads and five downloads at 11 Mb/s:
/// bypassed, the downloads starve (§II-B: the uploads take "by far the larger part"); with
/// the box, "the individual throughputs of the 10 file transfers (about 0.48 Mb/s each)".
/// Tolerances: each transfer within 20 % of 0.48 Mb/s with the box (the paper's hybrid
/// testbed is Qualnet's DCF, ours is the DCF of docs/wifi.md); bypassed, downloads get
/// less than a third of the uploads' total.
#[test]
fn fig18_the_box_equalizes_five_uploads_and_five_downloads_near_0_48() {
    let off = run(FIG18, "60s", "20s", true);
    let (up, down): (f64, f64) = (
        (0..5).map(|i| mbit(&off, &format!("up{i}"))).sum(),
        (0..5).map(|i| mbit(&off, &format!("down{i}"))).sum(),
    );
    println!("bypassed: uploads {up:.3}, downloads {down:.3} Mb/s");
    assert!(down < up / 3.0, "uploads {up}, downloads {down}");

    let on = run(FIG18, "100s", "50s", false);
    for i in 0..5 {
        for dir in ["up", "down"] {
            let g = mbit(&on, &format!("{dir}{i}"));
            println!("{dir}{i}: {g:.3} Mb/s");
            assert!((g / 0.48 - 1.0).abs() < 0.2, "{dir}{i}: {g}");
        }
    }
}

/// Reference: seed 002 §IV-A.1, Fig. 17 — stations at 11, 5.5 and 2 Mb/s, one upload and
/// one download each: with the box, upload = download at each rate, the rates' pairs get
/// 1.556/1.09/0.51 Mb/s (the ratio of C_i = 4.89/3.33/1.58) and the total 3.156 Mb/s stays
/// below C* = 3.26. Tolerances: each pair within 15 % of the paper's; the ratio of the
/// 11 and 2 Mb/s pairs within 15 % of C_11/C_2; total below C* and above 85 % of 3.156.
#[test]
fn fig17_the_box_shares_by_the_c_i_and_stays_below_c_star() {
    let on = run(&pre_profile(FIG17, "256KiB"), "100s", "50s", false);
    let pair = |r: &str| mbit(&on, &format!("up{r}")) + mbit(&on, &format!("down{r}"));
    let (p11, p5, p2) = (pair("11"), pair("5"), pair("2"));
    let total = p11 + p5 + p2;
    println!("pairs 11: {p11:.3}, 5.5: {p5:.3}, 2: {p2:.3}; total {total:.3} Mb/s");
    for r in ["11", "5", "2"] {
        println!(
            "  {r}: up {:.3} down {:.3}",
            mbit(&on, &format!("up{r}")),
            mbit(&on, &format!("down{r}"))
        );
    }
    for (got, want) in [(p11, 1.556), (p5, 1.09), (p2, 0.51)] {
        assert!((got / want - 1.0).abs() < 0.15, "{got} vs {want}");
    }
    assert!(((p11 / p2) / (4.89 / 1.58) - 1.0).abs() < 0.15);
    assert!(total < 3.26 && total > 0.85 * 3.156, "{total}");
}

/// Reference: seed 002 §IV-C, Table I — two stations at 11 Mb/s, policy 5:1: 3.879 and
/// 0.776 Mb/s (ratio 5.0). Tolerance 5 % on the ratio (issue 14).
#[test]
fn table1_policy_5_to_1_within_5_percent() {
    let on = run(TABLE1, "100s", "50s", false);
    let (a, b) = (mbit(&on, "sta1"), mbit(&on, "sta2"));
    println!(
        "sta1 {a:.3}, sta2 {b:.3}, ratio {:.3}, total {:.3}",
        a / b,
        a + b
    );
    assert!((a / b / 5.0 - 1.0).abs() < 0.05, "{a} / {b}");
}

const FIG20: &str = include_str!("../../../scenarios/adwiser/fig20-wan-lan.toml");
const FIG26: &str = include_str!("../../../scenarios/adwiser/fig26-gold-bronze.toml");

/// Reference: seed 002 §II-D (Fig. 9) and §IV-A.3 (Fig. 20) — two WAN downloads (8 Mb/s,
/// 300 ms RTT) beside two LAN downloads: bypassed, the LAN transfers starve the WAN link;
/// with the box the WAN transfers rise "close to 8 Mb/s" (the A-WAN server runs at
/// 7.2 Mb/s). Tolerances: bypassed, the WAN pair gets less than half the LAN pair; with
/// the box, the WAN pair within 10 % of 7.2 Mb/s of IP packets (goodput ×1500/1460).
#[test]
fn fig20_the_box_lets_wan_transfers_reach_the_a_wan_rate_beside_lan_transfers() {
    let off = run(FIG20, "120s", "60s", true);
    let wan = |r: &RunResults| mbit(r, "wan0") + mbit(r, "wan1");
    let lan = |r: &RunResults| mbit(r, "lan0") + mbit(r, "lan1");
    println!("bypassed: WAN {:.3}, LAN {:.3} Mb/s", wan(&off), lan(&off));
    let on = run(FIG20, "120s", "60s", false);
    println!("box: WAN {:.3}, LAN {:.3} Mb/s", wan(&on), lan(&on));
    print_box(&on);
    assert!(wan(&off) < lan(&off) / 2.0);
    assert!((wan(&on) * 1500.0 / 1460.0 / 7.2 - 1.0).abs() < 0.1);
}

/// Reference: seed 002 §IV-C (Fig. 26) — gold and bronze stations (RTT 300 and 200 ms)
/// downloading over the 8 Mb/s WAN with a 4:1 policy: "the total throughput of 7.2 Mb/s is
/// shared in the ratio of 4:1". Tolerances (issue 14): ratio within 10 % of 4, total
/// within 10 % of 7.2 Mb/s of IP packets.
#[test]
fn fig26_gold_and_bronze_share_the_a_wan_rate_4_to_1() {
    let on = run(FIG26, "150s", "75s", false);
    let gold = mbit(&on, "gold0") + mbit(&on, "gold1");
    let bronze = mbit(&on, "bronze0") + mbit(&on, "bronze1");
    println!(
        "gold {gold:.3}, bronze {bronze:.3}, ratio {:.3}",
        gold / bronze
    );
    assert!((gold / bronze / 4.0 - 1.0).abs() < 0.1);
    assert!(((gold + bronze) * 1500.0 / 1460.0 / 7.2 - 1.0).abs() < 0.1);
}

const FIG16: &str = include_str!("../../../scenarios/adwiser/fig16-join-leave.toml");
const FIG21: &str = include_str!("../../../scenarios/adwiser/fig21-voip-cac.toml");

/// Fig. 16's scenario with its 20-min periods shortened to `period` seconds (stations
/// leaving and joining, downloads stopping and starting, scaled alike), run for
/// `duration` s, averages after `warmup` s, the box in the path throughout.
fn fig16_scaled(period: u64, duration: u64, warmup: u64) -> RunResults {
    let mut v: toml::Table = toml::from_str(&pre_profile(FIG16, "256KiB")).unwrap();
    let scale =
        |t: &str| -> u64 { t.trim_end_matches('s').parse::<u64>().unwrap() * period / 1200 };
    // Scaled, and what falls after the end left out (an entry must be before it).
    let at = v["at"].as_array_mut().unwrap();
    for a in at.iter_mut() {
        let a = a.as_table_mut().unwrap();
        let t = scale(a["at"].as_str().unwrap());
        a.insert("at".into(), format!("{t}s").into());
    }
    at.retain(|a| scale_back(a["at"].as_str().unwrap()) < duration);
    let flows = v["flows"].as_array_mut().unwrap();
    for f in flows.iter_mut() {
        let f = f.as_table_mut().unwrap();
        if let Some(t) = f.get("start").and_then(|s| s.as_str()).map(scale) {
            f.insert("start".into(), format!("{t}s").into());
        }
    }
    flows.retain(|f| {
        f.get("start")
            .is_none_or(|t| scale_back(t.as_str().unwrap()) < duration)
    });
    let run = v["run"].as_table_mut().unwrap();
    run.insert("duration".into(), format!("{duration}s").into());
    run.insert("warmup".into(), format!("{warmup}s").into());
    let s = load_toml_str(&toml::to_string(&v).unwrap()).unwrap();
    let r = run_scenario(&s, Default::default());
    assert_conserved(&r);
    r
}

/// Seconds of a "<n>s" duration.
fn scale_back(t: &str) -> u64 {
    t.trim_end_matches('s').parse().unwrap()
}

/// C* of eq. (3) for `m` stations at 54, 24 and 6 Mb/s (802.11a), from the same C_i
/// helper as the box (rate.rs), Mb/s.
fn c_star_80211a(m: [u32; 3]) -> f64 {
    use airqueue::link::wifi::rate::{tcp_rate_bps, TcpWorkload};
    use airqueue::link::wifi::{Phy, Standard};
    let phy = Phy::new(Standard::A);
    let w = TcpWorkload::default();
    let c: Vec<f64> = [54_000, 24_000, 6_000]
        .iter()
        .map(|&k| tcp_rate_bps(&phy, k, &w))
        .collect();
    (0..3).map(|i| m[i] as f64 * c[i]).sum::<f64>() / m.iter().sum::<u32>() as f64 / 1e6
}

/// Reference: seed 002 §III-C.1.c, step 3 ("the AP continues to be polled in order to
/// obtain the most current information about STA association. If there is any change,
/// then C* is recomputed") and Fig. 16 (3/3/3, then 1/2/3, then 4/4/4 stations at
/// 54/24/6 Mb/s; "the aggregate throughput tracks (but falls a little short of) the
/// computed value of C*"). Stations leave and join the AP by the timeline; the box learns
/// it only from its poll of the AP's association table. Checks, with the periods
/// shortened to 100 s: the C* the box reports at the end of the second period is eq. (3)'s
/// for 1/2/3 and at the end of the third for 4/4/4 (0.1 %: the same C_i helper); over the
/// last 40 s of each the aggregate, in C's units (goodput × 1520/1460), lies between 85 %
/// of C* and C* (the paper's Fig. 17 ratio is 0.968).
#[test]
fn fig16_the_box_learns_stations_joining_and_leaving_by_polling_the_ap() {
    // The second period ends just before the third's changes (an entry must be before the
    // end of the run).
    for (end, m) in [(199, [1, 2, 3]), (300, [4, 4, 4])] {
        let r = fig16_scaled(100, end, end - 40);
        let want = c_star_80211a(m);
        let i = r
            .classes
            .row_of("class", "wlan")
            .expect("the box's A-WLAN class");
        let row = Row {
            table: &r.classes,
            index: i,
        };
        let c_star = row.u("ceil_bps") as f64 / 1e6;
        let c = row.u("rate_bps") as f64 / 1e6;
        let total = r.flows.f64s("goodput_bps").iter().sum::<f64>() / 1e6 * 1520.0 / 1460.0;
        println!("{m:?}: C* {c_star:.3} (eq. 3: {want:.3}), C {c:.3}, aggregate {total:.3} Mb/s");
        assert!((c_star / want - 1.0).abs() < 1e-3, "{c_star} vs {want}");
        assert!(
            total <= want && total >= 0.85 * want,
            "{total} vs C* {want}"
        );
    }
}

/// Reference: seed 002 §IV-A.4, Fig. 21 — a TCP download from the LAN, then a G.711 call
/// every 5 s from 50 s: with a CAC limit of 12, "after admitting 12 calls (at about 110 s),
/// no more VoIP calls are admitted ... the TCP download throughput drops only to about
/// 14 Mb/s and stays there"; without the box "all the VoIP calls are admitted, and the
/// TCP throughput drops to as low as 3 Mb/s". Each phone answers the first packet of its
/// call (`answers`), so a refused call never reaches the air. Checks: with the box calls
/// 0–11 flow both ways and calls 12–39 send nothing from the phone (exact); TCP over
/// 150–300 s above 14 Mb/s × 0.85; without the box every call flows and TCP over
/// 250–300 s is below half of the box's.
#[test]
fn fig21_call_admission_stops_at_12_calls_and_tcp_keeps_its_throughput() {
    let run21 = |bypass: bool, warmup: &str| {
        let mut v: toml::Table = toml::from_str(FIG21).unwrap();
        v["run"]
            .as_table_mut()
            .unwrap()
            .insert("warmup".into(), warmup.into());
        for q in v["qdiscs"].as_array_mut().unwrap() {
            let q = q.as_table_mut().unwrap();
            if q.get("name").and_then(|n| n.as_str()) == Some("box") {
                q.insert("bypass".into(), bypass.into());
            }
        }
        let s = load_toml_str(&toml::to_string(&v).unwrap()).unwrap();
        let r = run_scenario(&s, Default::default());
        assert_conserved(&r);
        r
    };
    let on = run21(false, "150s");
    for i in 0..40 {
        let up = flow(&on, &format!("up{i}")).u("tx_packets");
        let down = flow(&on, &format!("down{i}")).u("rx_packets");
        assert_eq!(up > 0, i < 12, "call {i}: phone sent {up}");
        assert_eq!(down > 0, i < 12, "call {i}: phone got {down}");
    }
    let tcp_on = mbit(&on, "tcp");
    let off = run21(true, "250s");
    let tcp_off = mbit(&off, "tcp");
    println!("TCP with the box (150-300 s) {tcp_on:.3}, without (250-300 s) {tcp_off:.3} Mb/s");
    print_box(&on);
    for i in 0..40 {
        assert!(
            flow(&off, &format!("up{i}")).u("rx_packets") > 0,
            "call {i}"
        );
    }
    assert!(tcp_on > 0.85 * 14.0, "{tcp_on}");
    assert!(tcp_off < tcp_on / 2.0, "{tcp_off} vs {tcp_on}");
}

const FIG1: &str = include_str!("../../../scenarios/adwiser/fig1-anomaly.toml");

/// Reference: seed 002 §III-C.1.c (C initialized below C*, here C*/2; C* from the
/// association table the box polls) and eq. (3) with 15 stations at 54 Mb/s: C* = C_54.
/// Regression: the first poll fell during an enqueue, where a qdisc cannot reach the AP's
/// driver, so it read an empty table and C* was the lowest rate's C_i (4.85 Mb/s), C its
/// half. Checks after 3 s: the C* the box reports is C_54 (0.1 %: the same helper), and C
/// is within three steps Δ of C*/2.
#[test]
fn the_first_poll_reads_the_association_table_and_c_starts_at_half_c_star() {
    let mut v: toml::Table = toml::from_str(FIG1).unwrap();
    let run = v["run"].as_table_mut().unwrap();
    run.insert("duration".into(), "3s".into());
    run.insert("warmup".into(), "0s".into());
    let cell = &mut v["cells"].as_array_mut().unwrap()[0];
    for st in cell["stations"].as_array_mut().unwrap() {
        st.as_table_mut()
            .unwrap()
            .insert("rate".into(), "54Mbit".into());
    }
    for q in v["qdiscs"].as_array_mut().unwrap() {
        let q = q.as_table_mut().unwrap();
        if q.get("name").and_then(|n| n.as_str()) == Some("box") {
            q.insert("bypass".into(), false.into());
        }
    }
    let s = load_toml_str(&toml::to_string(&v).unwrap()).unwrap();
    let r = run_scenario(&s, Default::default());
    assert_conserved(&r);
    let want = c_star_80211a([1, 0, 0]);
    let i = r.classes.row_of("class", "wlan").unwrap();
    let row = Row {
        table: &r.classes,
        index: i,
    };
    let (c_star, c) = (
        row.u("ceil_bps") as f64 / 1e6,
        row.u("rate_bps") as f64 / 1e6,
    );
    println!("C* {c_star:.3} (C_54 {want:.3}), C {c:.3} Mb/s");
    assert!((c_star / want - 1.0).abs() < 1e-3, "{c_star} vs {want}");
    assert!((c - want / 2.0).abs() <= 0.3 + 1e-9, "{c}");
}

const FIG22: &str = include_str!("../../../scenarios/adwiser/fig22-up-down-54.toml");

/// Reference: seed 002 §III-C.1.c and §III-C.2 — C rises while "the measured TCP
/// throughput over the WLAN is equal to C" and "if C is set too high, then the queueing
/// will shift from ADWISER back to the AP". Fig. 22's download and upload at 54 Mb/s (the
/// box in the path from the start, 120 s, statistics after 60 s): measuring what the box
/// released (the default), C climbs to C* (within Δ) although the medium carries less,
/// and the AP's buffer overflows. Measuring what came back from the WLAN (`measure =
/// "carried"`, the WLAN meter hook) holds C below C* by more than 3 Δ only while the
/// upload loses segments at its own station's full queue (`local_congestion = "loss"`,
/// ns-3's TCP): those losses and their recovery make the returning bits fall short of
/// what was released. With the testbed's Linux TCP (`"cwr"`, the default: the refused
/// segment stays unsent) nothing is lost there, the carried bits match the released ones,
/// and C climbs to within 3 Δ of C* as well. Every run keeps the packet ledger exact (the
/// meter only counts).
#[test]
fn fig22_carried_measurement_keeps_c_below_c_star_only_while_the_upload_loses_at_its_station() {
    let mut results = Vec::new();
    for (measure, local) in [("released", "cwr"), ("carried", "loss"), ("carried", "cwr")] {
        let mut v: toml::Table = toml::from_str(&pre_profile(FIG22, "8MiB")).unwrap();
        for q in v["qdiscs"].as_array_mut().unwrap() {
            let q = q.as_table_mut().unwrap();
            if q.get("name").and_then(|n| n.as_str()) == Some("box") {
                q.insert("measure".into(), measure.into());
            }
        }
        let mut flows = v["flows"].as_array().unwrap().clone();
        flows[1].as_table_mut().unwrap().remove("start");
        for f in &mut flows {
            let t = f.as_table_mut().unwrap()["transport"]
                .as_table_mut()
                .unwrap();
            t.insert("local_congestion".into(), local.into());
        }
        v.insert("flows".into(), flows.into());
        let r = run(&toml::to_string(&v).unwrap(), "120s", "60s", false);
        let row = Row {
            table: &r.classes,
            index: r.classes.row_of("class", "wlan").unwrap(),
        };
        let (c, c_star) = (row.u("rate_bps") as f64, row.u("ceil_bps") as f64);
        let ap_drops = queue(&r, "ap.wlan").u("drops");
        println!(
            "{measure} ({local}): C {:.3} C* {:.3} Mb/s, down {:.3} up {:.3} Mb/s, AP drops {ap_drops}",
            c / 1e6,
            c_star / 1e6,
            mbit(&r, "down"),
            mbit(&r, "up")
        );
        results.push((c, c_star));
    }
    let delta = 0.1e6;
    let (released, carried_loss, carried_cwr) = (results[0], results[1], results[2]);
    assert!(
        released.0 >= released.1 - delta,
        "released: C {:?}",
        released
    );
    assert!(
        carried_loss.0 < carried_loss.1 - 3.0 * delta,
        "carried, loss: C {:?}",
        carried_loss
    );
    assert!(
        carried_cwr.0 >= carried_cwr.1 - 3.0 * delta,
        "carried, cwr: C {:?}",
        carried_cwr
    );
}
