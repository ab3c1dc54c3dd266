//! The seeds' schedulers on a modern cell (issue 36 item 6): the striping trunk (seed 004)
//! and the NAP's CAWN (seed 000) take their inputs from the link view, so they run over
//! 802.11n cells unchanged. The shipped scenarios are loaded with their 802.11b cells
//! turned into 802.11n MCS 7 cells (20 MHz, one stream, A-MPDU at its defaults).
//!
//! References: the striping paper's claim that a trunk over N channels carries N times
//! what one channel carries (Wang, Hwang, Chou 2005, §4.2.1), with ±10 %; for CAWN, that
//! both of the NAP's radios keep being served and every packet is accounted for.

mod common;

use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, RunResults};
use common::*;

/// A shipped scenario with every 802.11b cell made an 802.11n MCS 7 cell (the cells' own
/// `rate` lines give way to the MCS) and the lines `drop` names taken out.
fn on_ht(path: &str, drop: &[&str]) -> String {
    let text = std::fs::read_to_string(format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR")))
        .expect("shipped scenario");
    text.lines()
        .filter(|l| !drop.iter().any(|d| l.starts_with(d)))
        .map(|l| match l {
            "standard = \"802.11b\"" => "standard = \"802.11n\"",
            "rate = \"11Mbit\"" => "mcs = 7",
            other => other,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn run(text: &str) -> RunResults {
    let r = run_scenario(&load_toml_str(text).unwrap(), BuildOptions::default());
    assert_conserved(&r);
    r
}

fn goodput(r: &RunResults, name: &str) -> f64 {
    flow(r, name).f("goodput_bps")
}

#[test]
fn a_trunk_over_three_ht_channels_carries_three_times_one() {
    let one = run(&on_ht("scenarios/striping/one-channel.toml", &[]));
    let three = run(&on_ht("scenarios/striping/ideal-3ch.toml", &[]));
    let (g1, g3) = (goodput(&one, "stcp"), goodput(&three, "stcp"));
    assert!(
        g1 > 15e6,
        "one 802.11n MCS 7 channel carries more than 802.11b: {g1}"
    );
    let ratio = g3 / g1;
    assert!(
        (2.7..=3.3).contains(&ratio),
        "three channels {g3} / one {g1} = {ratio} (§4.2.1: 3 ± 10 %)"
    );
}

#[test]
fn cawn_serves_both_radios_over_an_ht_cell() {
    // The shared Bluetooth spectrum takes 802.11b/g cells only: it goes, with its powers.
    let drop = [
        "[spectrum]",
        "members = ",
        "positions = ",
        "bluetooth_power_dbm",
        "wlan_power_dbm",
    ];
    let r = run(&on_ht("scenarios/nap/ftp-wlan-first-cawn.toml", &drop));
    let (bt, wlan) = (goodput(&r, "ftp-bt"), goodput(&r, "ftp-wlan"));
    assert!(bt > 200e3, "the Bluetooth client is still served: {bt}");
    assert!(
        wlan > 11e6,
        "the WLAN client gets more than 802.11b's PHY rate: {wlan}"
    );
}
