//! tc fidelity: behaviours found by running the same trees on a real kernel (issue 20's
//! netns testbed, Linux 6.1 and 6.18) beside airqueue.

mod common;

use airqueue::sim::RunResults;
use common::*;

/// sender → router (100 Mbit) → sink (10 Mbit): a 6 Mbit/s band-0 flow (DSCP 4 = TOS 0x10,
/// skb->priority 6) beside a 10 Mbit/s band-2 flow (DSCP 2 = TOS 0x08, priority 2) into
/// the router's pfifo_fast.
fn bands(pfifo_fast: &str) -> RunResults {
    let s = ScenarioToml::new("21s")
        .warmup("1s")
        .nodes(&["sender", "router", "sink"])
        .link("access", "sender", "router", "100Mbit", "1ms", "")
        .link("out", "router", "sink", "10Mbit", "1ms", "")
        .qdisc("router.out", pfifo_fast)
        .flow("hi", "sender", "sink", &cbr_rate(1000, "6Mbit"), "dscp = 4")
        .flow(
            "lo",
            "sender",
            "sink",
            &cbr_rate(1000, "10Mbit"),
            "dscp = 2",
        );
    let r = s.run();
    assert_conserved(&r);
    r
}

#[test]
fn pfifo_fast_band_0_keeps_its_rate_beside_a_full_band_2() {
    // Reference: the kernel (issue 20, Linux 6.1/6.18 netns testbed): the band-0 flow kept
    // its 6 Mbit/s. Since 4.16 each band has its own ring of txqueuelen packets, so band 2
    // being full never refuses band 0, and strict priority serves all of band 0: goodput
    // 6 Mbit/s within 1 %, no band-0 drops; band 2 gets the rest of the 10 Mbit/s link
    // (in IP bytes: 10 − 6 × 1028/1000 Mbit/s).
    let r = bands("kind = \"pfifo_fast\"");
    let hi = flow(&r, "hi").f("goodput_bps");
    let lo = flow(&r, "lo").f("goodput_bps");
    println!("per band: hi {hi:.0} lo {lo:.0}");
    assert!((hi - 6e6).abs() / 6e6 < 0.01, "{hi}");
    assert_eq!(flow(&r, "hi").u("drops"), 0);
    let lo_want = (10e6 - 6e6 * 1028.0 / 1000.0) * 1000.0 / 1028.0;
    assert!((lo - lo_want).abs() / lo_want < 0.01, "{lo} vs {lo_want}");
    // The pre-4.16 shared limit (the seeds' kernels), asked for explicitly: the queue is
    // full of band-2 packets and refuses band-0 arrivals too, so band 0 loses most of its
    // rate (≈ 2.2 Mbit/s here; the issue's comparison of the old default measured 1.97).
    let r = bands("kind = \"pfifo_fast\"\nshared_limit = true");
    let hi_shared = flow(&r, "hi").f("goodput_bps");
    println!("shared: hi {hi_shared:.0}");
    assert!(hi_shared < 0.5 * 6e6, "{hi_shared}");
    assert!(flow(&r, "hi").u("drops_qdisc_overflow") > 0);
}

/// IP output rate of a tbf at 5 Mbit/s fed 8 Mbit/s of 1500 B datagrams, over 20 s after a
/// 1 s warm-up; `link_extra` configures the link under the tbf, `stab` the qdisc entry.
fn tbf_ip_output(link_extra: &str, stab: &str) -> f64 {
    shaped_ip_output(
        link_extra,
        &format!("kind = \"tbf\"\nrate = \"5Mbit\"\nburst = 10000\nlimit = 100000\n{stab}"),
    )
}

fn shaped_ip_output(link_extra: &str, qdisc: &str) -> f64 {
    let s = ScenarioToml::new("21s")
        .warmup("1s")
        .nodes(&["sender", "router", "sink"])
        .link("access", "sender", "router", "100Mbit", "1ms", "")
        .link("out", "router", "sink", "10Mbit", "1ms", link_extra)
        .qdisc("router.out", qdisc)
        .flow("f", "sender", "sink", &cbr_rate(1472, "8Mbit"), "");
    let r = s.run();
    assert_conserved(&r);
    (flow(&r, "f").u("rx_packets") * 1500 * 8) as f64 / 20.0
}

#[test]
fn tbf_charges_skb_len_with_the_link_header_and_stab() {
    // Reference: the kernel (issue 20's testbed): tbf charges skb->len, which includes the
    // 14 B Ethernet header, so 5 Mbit/s of tokens let 5 × 1500/1514 = 4.954 Mbit/s of IP
    // datagrams through. The same from a raw-IP device with `stab overhead 14`
    // (tc-stab(8)); both together charge 1528 B (4.908 Mbit/s); neither, 1500 B (5 Mbit/s).
    // Tolerance 0.5 %.
    let cases = [
        ("link_header = 14", "", 1514.0),
        ("", "stab = { overhead = 14 }", 1514.0),
        (
            "link_header = 14",
            "stab = { overhead = 14, linklayer = \"ethernet\" }",
            1528.0,
        ),
        ("", "", 1500.0),
    ];
    for (link, stab, charged) in cases {
        let got = tbf_ip_output(link, stab);
        let want = 5e6 * 1500.0 / charged;
        println!("{link:?} {stab:?}: {got:.0} bit/s (want {want:.0})");
        assert!(
            (got - want).abs() / want < 0.005,
            "{link} {stab}: {got} vs {want}"
        );
    }
}

#[test]
fn htb_charges_skb_len_with_the_link_header() {
    // Reference: as for tbf (issue 20: "tbf and htb charge the IP datagram; the kernel
    // charges skb->len"): one HTB class at rate = ceil = 5 Mbit/s on an Ethernet-like link
    // (link_header 14) passes 5 × 1500/1514 Mbit/s of IP datagrams, within 0.5 %.
    let htb = "kind = \"htb\"\ndefault = \"all\"\nclasses = [{ name = \"all\", rate = \"5Mbit\", ceil = \"5Mbit\" }]";
    let got = shaped_ip_output("link_header = 14", htb);
    let want = 5e6 * 1500.0 / 1514.0;
    println!("htb: {got:.0} bit/s (want {want:.0})");
    assert!((got - want).abs() / want < 0.005, "{got} vs {want}");
}

/// sender → router (100 Mbit) → sink (100 Mbit) with `qdisc` on the router's egress and
/// one CBR flow of 1500 B datagrams at `offered`.
fn shaped(qdisc: &str, offered: &str) -> RunResults {
    let r = ScenarioToml::new("11s")
        .warmup("1s")
        .nodes(&["sender", "router", "sink"])
        .link("access", "sender", "router", "100Mbit", "1ms", "")
        .link("out", "router", "sink", "100Mbit", "1ms", "")
        .qdisc("router.out", qdisc)
        .flow("f", "sender", "sink", &cbr_rate(1472, offered), "")
        .run();
    assert_conserved(&r);
    r
}

/// Reference: `tc -s qdisc show`'s `overlimits` as the kernel counts it. `tbf_dequeue`
/// counts one per dequeue refused for lack of tokens, and a throttled tbf is asked at
/// every arrival (`__dev_xmit_skb` runs the qdisc after each enqueue, accepted or not)
/// and after every departure (`__qdisc_run` asks again): overlimits ≈ arrivals while the
/// device is idle + departures. Here the device is busy 120 µs of each 2.4 ms gap between
/// departures (5 %), so ≈ 0.95 × arrivals + departures (2 %); below its rate, never.
/// `htb_change_class_mode` counts a class going into CAN'T SEND: a saturated leaf does so
/// again and again, an unsaturated one never. No requeues: the medium pulls only when it
/// can send.
#[test]
fn overlimits_count_throttle_events_as_tc_s_shows_them() {
    let tbf = "kind = \"tbf\"\nrate = \"5Mbit\"\nburst = 3000\nlimit = 30000";
    let r = shaped(tbf, "8Mbit");
    let q = queue(&r, "router.out");
    let (over, sent) = (q.u("overlimits"), q.u("dequeued_packets"));
    let arrivals = q.u("enqueued_packets") + q.u("drops");
    let busy = 1500.0 * 8.0 / 100e6 / (1500.0 * 8.0 / 5e6);
    let want = arrivals as f64 * (1.0 - busy) + sent as f64;
    eprintln!("tbf saturated: overlimits {over}, arrivals {arrivals}, departures {sent}, expected {want:.0}");
    assert!((over as f64 - want).abs() / want < 0.02);
    assert_eq!(q.u("requeues"), 0);
    let r = shaped(tbf, "2Mbit");
    assert_eq!(queue(&r, "router.out").u("overlimits"), 0);

    let htb = r#"kind = "htb"
default = "a"
classes = [ { name = "a", rate = "5Mbit", ceil = "5Mbit" } ]"#;
    let r = shaped(htb, "8Mbit");
    let over = queue(&r, "router.out").u("overlimits");
    eprintln!("htb saturated: overlimits {over}");
    assert!(over > 100, "{over}");
    let r = shaped(htb, "2Mbit");
    assert_eq!(queue(&r, "router.out").u("overlimits"), 0);
}
