//! 802.11n/ac/ax cells (issue 36, item 1): a lone saturated station, one MPDU per channel
//! access (`aggregation = { ampdu = false }`; A-MPDUs are in `wifi_ampdu.rs`), against
//! the contention-free closed form with PPDU durations worked by hand
//! from the standard; and the HT/VHT/HE scenario keys' errors.

mod common;

use airqueue::scenario::load_toml_str;
use airqueue::sim::BuildOptions;
use common::*;

/// A lone station with a CBR source above its capacity towards the AP (the driver buffer
/// never empties), in a cell with the PHY keys `phy`.
fn lone_station(phy: &str) -> String {
    format!(
        "[run]\nduration = \"11s\"\nwarmup = \"1s\"\n[[nodes]]\nname = \"ap\"\n[[nodes]]\nname = \"sta\"\n\
         [[cells]]\nname = \"wlan\"\nap = \"ap\"\nstations = [{{ node = \"sta\" }}]\naggregation = {{ ampdu = false }}\n{phy}\n\
         [[flows]]\nname = \"up\"\nfrom = \"sta\"\nto = \"ap\"\napp = {{ kind = \"cbr\", size = 1472, rate = \"150Mbit\" }}\n"
    )
}

/// Reference: a lone saturated station sends one 1500-B IP packet (1536-B MPDU) per DIFS
/// + mean back-off (CWmin/2 = 7.5 slots) + DATA + SIFS + ACK (IEEE 802.11-2020 §10.3.2,
///   basic access), with the PPDU durations worked by hand (5 GHz: slot 9 µs, SIFS 16 µs,
///   DIFS 34 µs, back-off 67.5 µs; ACK 14 B at 24 Mb/s non-HT OFDM = 20 + 4·ceil(134/96)
///   = 28 µs, the highest basic rate ≤ the MCS's non-HT reference rate, §10.6.6.5.2):
///
/// - HT MCS 7, 20 MHz, long GI (§19.4.3): N_DBPS 260, N_SYM = ceil((12288 + 16 + 6)/260)
///   = 48; 36 + 192 = 228 µs. Cycle 34 + 67.5 + 228 + 16 + 28 = 373.5 µs → 12000 bits /
///   373.5 µs = 32.129 Mb/s.
/// - VHT MCS 9, 80 MHz, 2 streams, short GI (§21.4.3), an S-MPDU of 4 + 1536 = 1540 B:
///   N_DBPS 3120, N_ES 2, N_SYM = ceil((12320 + 16 + 12)/3120) = 4; data 4·ceil(3.6) = 16
///   µs; preamble 44 µs → 60 µs. Cycle 34 + 67.5 + 60 + 16 + 28 = 205.5 µs → 58.394 Mb/s.
/// - HE MCS 11, 80 MHz, 2 streams, 0.8 µs GI (§27.4.3), APEP 1540: N_DBPS 16333,
///   N_SYM,init 1, a_init = min(ceil(12336/4000), 4) = 4, N_CW 11, N_shrt 1487, N_punc
///   297 (no extra symbol); 50.4 + 13.6 = 64.0 µs. Cycle 209.5 µs → 57.279 Mb/s.
///
/// Tolerance 1 % (the mean back-off over ~50 000 frames; issue 12's lone-station bound).
#[test]
fn lone_ht_vht_he_stations_get_the_contention_free_rate() {
    let cases = [
        ("standard = \"802.11n\"\nmcs = 7", 373.5),
        (
            "standard = \"802.11ac\"\nchannel_width = 80\nguard_interval = \"400ns\"\nspatial_streams = 2\nmcs = 9",
            205.5,
        ),
        (
            "standard = \"802.11ax\"\nchannel_width = 80\nspatial_streams = 2\nmcs = 11",
            209.5,
        ),
    ];
    for (phy, cycle_us) in cases {
        let s = load_toml_str(&lone_station(phy)).unwrap();
        let r = run_scenario(&s, BuildOptions::default());
        assert_conserved(&r);
        let got = flow(&r, "up").f("goodput_bps") * 1500.0 / 1472.0;
        let want = 12_000.0 / (cycle_us * 1e-6);
        println!(
            "{}: {:.3} vs {:.3} Mb/s",
            phy.replace('\n', " "),
            got / 1e6,
            want / 1e6
        );
        assert!((got / want - 1.0).abs() < 0.01, "{phy}: {got} vs {want}");
    }
}

/// Bad HT/VHT/HE keys name the field and say what to use.
#[test]
fn ht_vht_he_key_errors_name_the_field_and_the_fix() {
    let cases = [
        (
            "standard = \"802.11ac\"\nmcs = 9",
            "cells.wlan.mcs",
            "not a valid combination",
        ),
        (
            "standard = \"802.11ac\"\nchannel_width = 80\nspatial_streams = 3\nstations = [{ node = \"sta\", mcs = 6 }]",
            "cells.wlan.stations.sta.mcs",
            "pick another mcs",
        ),
        ("standard = \"802.11n\"\nchannel_width = 80", "cells.wlan.channel_width", "use one of [20, 40]"),
        ("standard = \"802.11n\"\nspatial_streams = 2", "cells.wlan.spatial_streams", "mcs = 8·(streams − 1)"),
        ("standard = \"802.11n\"\nmcs = 32", "cells.wlan.mcs", "MCS 0 to 31"),
        ("standard = \"802.11ax\"\nguard_interval = \"400ns\"", "cells.wlan.guard_interval", "\"800ns\" or \"1600ns\" or \"3200ns\""),
        ("standard = \"802.11ax\"\nband = \"2.4GHz\"\nchannel_width = 80", "cells.wlan.channel_width", "at 2.4 GHz"),
        ("standard = \"802.11ac\"\nband = \"2.4GHz\"", "cells.wlan.band", "5 GHz PHY"),
        ("standard = \"802.11g\"\nmcs = 7", "cells.wlan.mcs", "remove it or change the standard"),
        ("standard = \"802.11n\"\nrate_control = \"minstrel\"", "cells.wlan.stations.sta.rate_control", "fixed MCSs"),
        ("standard = \"802.11n\"\nrate = \"11Mbit\"", "cells.wlan.rate", "6Mbit"),
    ];
    for (phy, field, words) in cases {
        let text = lone_station(phy).replace("stations = [{ node = \"sta\" }]\n", "");
        let text = if phy.contains("stations") {
            text
        } else {
            text.replace("[[flows]]", "stations = [{ node = \"sta\" }]\n[[flows]]")
        };
        let err = load_toml_str(&text).unwrap_err().to_string();
        assert!(err.contains(field) && err.contains(words), "{field}: {err}");
    }
    // Valid: MCS 9 at 20 MHz with 3 streams; HT at 2.4 GHz with a DSSS rate station.
    load_toml_str(&lone_station(
        "standard = \"802.11ac\"\nspatial_streams = 3\nmcs = 9",
    ))
    .unwrap();
    load_toml_str(&lone_station(
        "standard = \"802.11n\"\nband = \"2.4GHz\"\nrate = \"11Mbit\"",
    ))
    .unwrap();
}
