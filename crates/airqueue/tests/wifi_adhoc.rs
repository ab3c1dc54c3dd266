//! 802.11 ad hoc cells (IBSS) and nodes with several 802.11 interfaces (issue 12; seed 004
//! §4.2.2 co-channel trunks, §4.2.8 multi-hop chains): each channel is a medium of its own,
//! routing and static routes work over several wireless interfaces of one node.

mod common;
mod wifi_reference;

use airqueue::link::wifi::{Phy, Standard};
use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, RunResults};
use common::*;
use wifi_reference::{bianchi, contention_free, IP_BYTES};

/// IP throughput of flow `name`, bit/s (its goodput counts the 1472-B UDP payloads).
fn ip_rate(r: &RunResults, name: &str) -> f64 {
    flow(r, name).f("goodput_bps") * IP_BYTES as f64 / 1472.0
}

fn stations(r: &RunResults) -> &airqueue::metrics::Table {
    &r.more
        .iter()
        .find(|(n, _)| n == "stations")
        .expect("a cell adds the stations table")
        .1
}

/// Two routers `a` and `b` joined by three ad hoc cells `c0`, `c1`, `c2` on `channels`
/// (802.11b, 11 Mb/s); host `h<i>` behind `a` sends saturated UDP to `g<i>` behind `b`,
/// and a static route at `a` sends it over cell `c<i>` (the striping trunk of seed 004,
/// one flow per channel).
fn trunk(channels: [u32; 3]) -> String {
    let mut s = String::from("[run]\nduration = \"21s\"\nwarmup = \"1s\"\n");
    for n in ["a", "b"] {
        s += &format!("[[nodes]]\nname = \"{n}\"\n");
    }
    for (i, ch) in channels.iter().enumerate() {
        s += &format!(
            "[[nodes]]\nname = \"h{i}\"\n[[nodes]]\nname = \"g{i}\"\n\
             [[links]]\nname = \"in{i}\"\nbetween = [\"h{i}\", \"a\"]\nrate = \"100Mbit\"\ndelay = \"1ms\"\n\
             [[links]]\nname = \"out{i}\"\nbetween = [\"b\", \"g{i}\"]\nrate = \"100Mbit\"\ndelay = \"1ms\"\n\
             [[cells]]\nname = \"c{i}\"\nmode = \"adhoc\"\nstandard = \"802.11b\"\nchannel = {ch}\n\
             stations = [{{ node = \"a\" }}, {{ node = \"b\" }}]\n\
             [[routes]]\nnode = \"a\"\nto = \"g{i}\"\nvia = \"c{i}\"\n\
             [[flows]]\nname = \"f{i}\"\nfrom = \"h{i}\"\nto = \"g{i}\"\n\
             app = {{ kind = \"cbr\", size = 1472, rate = \"11Mbit\" }}\n"
        );
    }
    s
}

/// Reference: a node with three 802.11 interfaces on channels 1, 6 and 11 (seed 004's
/// trunk): the channels are independent media, so each flow gets the contention-free rate
/// of a lone sender (DIFS + CWmin/2 slots + DATA + SIFS + ACK; 1 %), and each cell's
/// stations table shows only its own frames. The same three cells on one channel are one
/// collision domain of three saturated senders: together Bianchi's n = 3 throughput (3 %,
/// the tolerance for n ≤ 20), each a third of it (5 %).
#[test]
fn three_adhoc_cells_between_two_nodes_are_independent_on_channels_1_6_11() {
    let phy = Phy::new(Standard::B);
    let r = run_scenario(
        &load_toml_str(&trunk([1, 6, 11])).unwrap(),
        BuildOptions::default(),
    );
    assert_conserved(&r);
    let alone = contention_free(&phy, 11_000);
    for i in 0..3 {
        let x = ip_rate(&r, &format!("f{i}"));
        println!(
            "channels 1/6/11: f{i} {:.4} vs alone {:.4} Mb/s",
            x / 1e6,
            alone / 1e6
        );
        assert!((x / alone - 1.0).abs() < 0.01, "f{i}: {x} vs {alone}");
    }
    let t = stations(&r);
    assert_eq!(t.rows(), 6, "one row per interface: a and b on three cells");
    let strs = |col: &str| match t.column(col) {
        Some(airqueue::metrics::Column::Str(v)) => v.clone(),
        other => panic!("{col}: {other:?}"),
    };
    let names = strs("station");
    let sent = t.u64s("frames_sent");
    let role = strs("role");
    for (k, name) in names.iter().enumerate() {
        assert_eq!(role[k], "adhoc");
        // `a` sends on every cell; `b` sends nothing (UDP, no reverse traffic).
        if name.starts_with("a.") {
            assert!(sent[k] > 10_000, "{name}: {}", sent[k]);
        } else {
            assert_eq!(sent[k], 0, "{name}");
        }
    }

    let r = run_scenario(
        &load_toml_str(&trunk([6, 6, 6])).unwrap(),
        BuildOptions::default(),
    );
    assert_conserved(&r);
    let want = bianchi(&phy, 11_000, 3, false);
    let g: Vec<f64> = (0..3).map(|i| ip_rate(&r, &format!("f{i}"))).collect();
    let total: f64 = g.iter().sum();
    println!(
        "one channel: {:?} Mb/s, total {:.4} vs Bianchi n = 3 {:.4}",
        g.iter().map(|x| x / 1e6).collect::<Vec<_>>(),
        total / 1e6,
        want / 1e6
    );
    assert!((total / want - 1.0).abs() < 0.03, "{total} vs {want}");
    assert!(g.iter().all(|x| (x / (want / 3.0) - 1.0).abs() < 0.05));
}

/// A two-hop chain `a → b → c` (seed 004 §4.2.8), hop 1 on cell `h1`, hop 2 on `h2`.
fn chain(ch1: u32, ch2: u32) -> String {
    let mut s = String::from("[run]\nduration = \"21s\"\nwarmup = \"1s\"\n");
    for n in ["a", "b", "c"] {
        s += &format!("[[nodes]]\nname = \"{n}\"\n");
    }
    for (name, ch, from, to) in [("h1", ch1, "a", "b"), ("h2", ch2, "b", "c")] {
        s += &format!(
            "[[cells]]\nname = \"{name}\"\nmode = \"adhoc\"\nstandard = \"802.11b\"\nchannel = {ch}\n\
             stations = [{{ node = \"{from}\" }}, {{ node = \"{to}\" }}]\n"
        );
    }
    s += "[[flows]]\nname = \"ac\"\nfrom = \"a\"\nto = \"c\"\n\
          app = { kind = \"cbr\", size = 1472, rate = \"11Mbit\" }\n";
    s
}

/// Reference: a two-hop ad hoc chain (seed 004 §4.2.8) routed through the relay's two
/// interfaces. On two channels (1, 6) each hop is a lone sender: the end-to-end rate is the
/// contention-free rate (1 %). On one channel the sender and the relay are two saturated
/// stations of one collision domain (the relay's buffer fills, as a's is always full):
/// the relay gets half of Bianchi's n = 2 throughput end to end, the halving of a chain
/// that 004 §4.2.8 describes (5 %).
#[test]
fn a_two_hop_chain_forwards_through_the_relays_two_interfaces() {
    let phy = Phy::new(Standard::B);
    let r = run_scenario(
        &load_toml_str(&chain(1, 6)).unwrap(),
        BuildOptions::default(),
    );
    assert_conserved(&r);
    let alone = contention_free(&phy, 11_000);
    let x = ip_rate(&r, "ac");
    println!("chain on 1/6: {:.4} vs {:.4} Mb/s", x / 1e6, alone / 1e6);
    assert!((x / alone - 1.0).abs() < 0.01, "{x} vs {alone}");

    let r = run_scenario(
        &load_toml_str(&chain(1, 1)).unwrap(),
        BuildOptions::default(),
    );
    assert_conserved(&r);
    let half = bianchi(&phy, 11_000, 2, false) / 2.0;
    let x = ip_rate(&r, "ac");
    println!("chain on 1/1: {:.4} vs {:.4} Mb/s", x / 1e6, half / 1e6);
    assert!((x / half - 1.0).abs() < 0.05, "{x} vs {half}");
}

/// In one ad hoc cell of three, every member reaches every other directly: two saturated
/// flows a → c and c → a are two senders of one collision domain, each half of Bianchi's
/// n = 2 throughput (5 %); the bystander b sends nothing.
#[test]
fn adhoc_members_reach_each_other_directly() {
    let phy = Phy::new(Standard::B);
    let mut s = String::from("[run]\nduration = \"21s\"\nwarmup = \"1s\"\n");
    for n in ["a", "b", "c"] {
        s += &format!("[[nodes]]\nname = \"{n}\"\n");
    }
    s += "[[cells]]\nname = \"ibss\"\nmode = \"adhoc\"\nstandard = \"802.11b\"\n\
          stations = [{ node = \"a\" }, { node = \"b\" }, { node = \"c\" }]\n";
    for (name, from, to) in [("ac", "a", "c"), ("ca", "c", "a")] {
        s += &format!(
            "[[flows]]\nname = \"{name}\"\nfrom = \"{from}\"\nto = \"{to}\"\n\
             app = {{ kind = \"cbr\", size = 1472, rate = \"11Mbit\" }}\n"
        );
    }
    let r = run_scenario(&load_toml_str(&s).unwrap(), BuildOptions::default());
    assert_conserved(&r);
    let half = bianchi(&phy, 11_000, 2, false) / 2.0;
    for f in ["ac", "ca"] {
        let x = ip_rate(&r, f);
        println!("{f}: {:.4} vs {:.4} Mb/s", x / 1e6, half / 1e6);
        assert!((x / half - 1.0).abs() < 0.05, "{f}: {x} vs {half}");
    }
    let t = stations(&r);
    let k = t.row_of("station", "b.ibss").expect("b's row");
    assert_eq!(t.u64s("frames_sent")[k], 0);
}

/// Bad ad hoc keys name their field and the fix.
#[test]
fn bad_adhoc_cells_are_reported_with_their_field() {
    let base = "[run]\nduration = \"2s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[nodes]]\nname = \"c\"\n";
    let cases = [
        (
            "[[cells]]\nname = \"w\"\nmode = \"adhoc\"\nap = \"a\"\nstandard = \"802.11b\"\nstations = [{ node = \"b\" }, { node = \"c\" }]\n",
            "cells.w.ap",
            "no access point",
        ),
        (
            "[[cells]]\nname = \"w\"\nstandard = \"802.11b\"\nstations = [{ node = \"b\" }]\n",
            "cells.w.ap",
            "mode = \"adhoc\"",
        ),
        (
            "[[cells]]\nname = \"w\"\nmode = \"adhoc\"\nstandard = \"802.11b\"\nstations = [{ node = \"b\" }]\n",
            "cells.w.stations",
            "at least two",
        ),
        (
            "[[cells]]\nname = \"w\"\nmode = \"adhoc\"\nstandard = \"802.11b\"\nrate_control = \"minstrel\"\nstations = [{ node = \"b\" }, { node = \"c\" }]\n",
            "cells.w.stations.b.rate_control",
            "not yet",
        ),
        (
            "[[cells]]\nname = \"w\"\nmode = \"adhoc\"\nstandard = \"802.11b\"\nstations = [{ node = \"a\" }, { node = \"b\" }, { node = \"c\" }]\n\
             [[routes]]\nnode = \"a\"\nto = \"c\"\nvia = \"w\"\n",
            "routes[0].next_hop",
            "2 neighbours",
        ),
        (
            "[[cells]]\nname = \"w\"\nmode = \"adhoc\"\nstandard = \"802.11b\"\nstations = [{ node = \"a\" }, { node = \"b\" }, { node = \"c\" }]\n\
             [[routes]]\nnode = \"a\"\nto = \"c\"\nvia = \"w\"\nnext_hop = \"a\"\n",
            "routes[0].next_hop",
            "not a neighbour",
        ),
    ];
    for (cell, field, words) in cases {
        let err = load_toml_str(&format!("{base}{cell}"))
            .unwrap_err()
            .to_string();
        assert!(err.contains(field) && err.contains(words), "{field}: {err}");
    }
}

/// Reference: seed 004 Fig. 11 (§4.2.1): greedy TCP over one error-free 802.11b ad hoc
/// channel at 11 Mb/s gives "about 5 Mbps" of application throughput (NCTUns 1.0). The
/// shipped `scenarios/striping/single-channel.toml`, shortened to 60 s; tolerance 10 %
/// (the paper gives one rounded number and not its MAC settings).
#[test]
fn single_channel_tcp_gets_about_5_mbit_as_seed_004_fig_11() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/striping/single-channel.toml"
    ))
    .unwrap()
    .replace("duration = \"250s\"", "duration = \"60s\"");
    let r = run_scenario(&load_toml_str(&text).unwrap(), BuildOptions::default());
    assert_conserved(&r);
    let got = flow(&r, "stcp").f("goodput_bps");
    println!("single channel TCP: {:.3} Mb/s (paper ≈ 5)", got / 1e6);
    assert!((got / 5e6 - 1.0).abs() < 0.10, "{got}");
}
