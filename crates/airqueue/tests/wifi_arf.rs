//! ARF and AARF rate control in an 802.11 cell (issue 12; Lacage, Manshaei and Turletti,
//! MSWiM 2004; ns-3's `ArfWifiManager`/`AarfWifiManager` as the reference behaviour): the
//! climb to the top rate on a clean channel, and the cost of the periodic failed probes
//! one rate above the best, closed form, on a channel where that rate always fails.

mod common;

use airqueue::channel::modulation::Modulation;
use airqueue::link::wifi::{Phy, Standard};
use airqueue::metrics::Column;
use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, RunResults};
use common::*;

const RATES: [u32; 8] = [6, 9, 12, 18, 24, 36, 48, 54];
/// MPDU of a 1500-B IP packet (24 B header, 4 B FCS, 8 B LLC/SNAP).
const MPDU_BITS: i32 = 8 * 1536;

fn cell(rc: &str, snr_db: f64) -> String {
    format!(
        "[run]\nduration = \"21s\"\nwarmup = \"1s\"\n\
         [[nodes]]\nname = \"ap\"\n[[nodes]]\nname = \"sta\"\n\
         [[cells]]\nname = \"wlan\"\nstandard = \"802.11a\"\nap = \"ap\"\nrate_control = \"{rc}\"\n\
         stations = [{{ node = \"sta\", snr_db = {snr_db} }}]\n\
         [[flows]]\nname = \"down\"\nfrom = \"ap\"\nto = \"sta\"\napp = {{ kind = \"cbr\", size = 1472, rate = \"54Mbit\" }}\n"
    )
}

/// The AP's row of the stations table: (frames sent, corrupted attempts), and the
/// station's reported PHY rate, Mb/s.
fn ap_counts(r: &RunResults) -> (u64, u64, u32) {
    let t = &r.more.iter().find(|(n, _)| n == "stations").unwrap().1;
    let names = match t.column("station") {
        Some(Column::Str(v)) => v.clone(),
        _ => unreachable!(),
    };
    let ap = names.iter().position(|n| n == "ap.wlan").unwrap();
    let sta = names.iter().position(|n| n == "sta.wlan").unwrap();
    (
        t.u64s("frames_sent")[ap],
        t.u64s("channel_errors")[ap],
        (t.f64s("phy_rate_bps")[sta] / 1e6).round() as u32,
    )
}

fn ip_rate(r: &RunResults) -> f64 {
    flow(r, "down").f("goodput_bps") * 1500.0 / 1472.0
}

fn per(rate: u32, snr_db: f64) -> f64 {
    let ber = Modulation::Ofdm(rate as u8).ber(10f64.powf(snr_db / 10.0));
    1.0 - (1.0 - ber).powi(MPDU_BITS)
}

fn secs(t: airqueue::engine::SimTime) -> f64 {
    t.0 as f64 * 1e-9
}

/// Reference: on a clean channel (30 dB: PER < 1e-6 at every 802.11a rate) ARF and AARF
/// climb from 6 Mb/s to 54 Mb/s (7 rises of 10 successes) and stay, never probing above
/// the top: the reported rate is 54 Mb/s and the goodput the contention-free rate at 54
/// Mb/s (DIFS + CWmin/2 slots + DATA + SIFS + ACK), 1 %.
#[test]
fn arf_and_aarf_climb_to_the_top_rate_on_a_clean_channel() {
    let phy = Phy::new(Standard::A);
    let t = secs(phy.difs())
        + 7.5 * secs(phy.slot)
        + secs(phy.data_duration(1500, 54_000) + phy.sifs + phy.ack_duration(54_000));
    let want = 12000.0 / t;
    for rc in ["arf", "aarf"] {
        let r = run_scenario(
            &load_toml_str(&cell(rc, 30.0)).unwrap(),
            BuildOptions::default(),
        );
        assert_conserved(&r);
        let (_, errors, rate) = ap_counts(&r);
        let got = ip_rate(&r);
        println!(
            "{rc} at 30 dB: {rate} Mb/s, {:.3} vs {:.3} Mb/s",
            got / 1e6,
            want / 1e6
        );
        assert_eq!(rate, 54, "{rc}");
        assert_eq!(errors, 0, "{rc}");
        assert!((got / want - 1.0).abs() < 0.01, "{rc}: {got} vs {want}");
    }
}

/// Reference: at an SNR where one rate `lo` is clean (PER < 1e-3) and the next `hi`
/// always fails (PER > 0.999), ARF and AARF settle in a cycle of T successes at `lo`
/// (the retry of the failed frame included) and one failed probe at `hi`, T = 10 for ARF
/// and 60 for AARF (its success threshold doubles 10 → 20 → 40 → 60, the cap, after
/// each failed probe; Lacage et al. §4). Closed form per cycle: the failed fraction of
/// attempts 1/(T + 1), and the throughput T·L over (T − 1) clean exchanges at `lo`
/// (DIFS + 7.5 slots + DATA + SIFS + ACK), plus the probe (DIFS + 7.5 slots + DATA at
/// `hi`), plus the retry after EIFS with CW 31 (EIFS + 15.5 slots + DATA + SIFS + ACK at
/// `lo`).
/// Tolerance: failed fraction 10 %, throughput 2 %; AARF beats ARF.
#[test]
fn arf_probes_every_ten_successes_and_aarf_every_sixty() {
    let phy = Phy::new(Standard::A);
    // The lowest SNR (0.25 dB steps) where some rate is clean and the next one fails.
    let (snr, lo) = (0..200)
        .map(|k| 5.0 + 0.25 * k as f64)
        .find_map(|snr| {
            (0..RATES.len() - 1)
                .find(|&i| per(RATES[i], snr) < 1e-3 && per(RATES[i + 1], snr) > 0.999)
                .map(|i| (snr, i))
        })
        .expect("an SNR separates two adjacent rates");
    let (klo, khi) = (RATES[lo] * 1000, RATES[lo + 1] * 1000);
    let slot = secs(phy.slot);
    let exch_lo = secs(phy.data_duration(1500, klo) + phy.sifs + phy.ack_duration(klo));
    let clean = secs(phy.difs()) + 7.5 * slot + exch_lo;
    let probe = secs(phy.difs()) + 7.5 * slot + secs(phy.data_duration(1500, khi));
    let retry = secs(phy.eifs()) + 15.5 * slot + exch_lo;
    let mut goodput = Vec::new();
    for (rc, t) in [("arf", 10.0), ("aarf", 60.0)] {
        let r = run_scenario(
            &load_toml_str(&cell(rc, snr)).unwrap(),
            BuildOptions::default(),
        );
        assert_conserved(&r);
        let (sent, errors, _) = ap_counts(&r);
        let failed = errors as f64 / (sent + errors) as f64;
        let want_failed = 1.0 / (t + 1.0);
        let want = t * 12000.0 / ((t - 1.0) * clean + probe + retry);
        let got = ip_rate(&r);
        println!(
            "{rc} at {snr} dB ({} / {} Mb/s): failed {failed:.4} vs {want_failed:.4}, {:.3} vs {:.3} Mb/s",
            RATES[lo],
            RATES[lo + 1],
            got / 1e6,
            want / 1e6
        );
        assert!((failed / want_failed - 1.0).abs() < 0.10, "{rc}: {failed}");
        assert!((got / want - 1.0).abs() < 0.02, "{rc}: {got} vs {want}");
        goodput.push(got);
    }
    assert!(goodput[1] > goodput[0]);
}
