//! 802.11 cells (issue 12): DCF saturation throughput against Bianchi's model, a lone
//! station against the contention-free closed form, drops and conservation.

mod common;

use airqueue::link::wifi::phy::{CTS_BYTES, RTS_BYTES};
use airqueue::link::wifi::{Phy, Standard};
use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, RunResults};
use common::*;

/// IP packet size of the saturating UDP flows (1472 B payload + 28 B headers).
const IP_BYTES: u32 = 1500;

/// `n` stations, each a CBR source at the PHY rate towards the AP (saturated: the driver
/// buffer never empties), in a cell of `standard` at `rate`.
fn saturated_cell(n: usize, standard: &str, rate: &str, rts: bool, dur: &str) -> String {
    let mut s = format!("[run]\nduration = \"{dur}\"\nwarmup = \"1s\"\n[[nodes]]\nname = \"ap\"\n[[nodes]]\nname = \"sta{{i}}\"\ncount = {n}\n");
    s += &format!(
        "[[cells]]\nname = \"wlan\"\nstandard = \"{standard}\"\nap = \"ap\"\nrate = \"{rate}\"\nstations = [{{ node = \"sta{{i}}\", count = {n} }}]\n"
    );
    if rts {
        s += "rts_threshold = 500\n";
    }
    s += &format!(
        "[[flows]]\nname = \"up{{i}}\"\ncount = {n}\nfrom = \"sta{{i}}\"\nto = \"ap\"\napp = {{ kind = \"cbr\", size = 1472, rate = \"{rate}\" }}\n"
    );
    s
}

/// Aggregate MAC payload throughput (IP bytes) of the `n` flows, bit/s.
fn mac_throughput(r: &RunResults, n: usize) -> f64 {
    (0..n)
        .map(|i| flow(r, &format!("up{i}")).f("goodput_bps"))
        .sum::<f64>()
        * IP_BYTES as f64
        / 1472.0
}

/// Bianchi (IEEE JSAC 18(3), 2000), eq. 7 (τ given p), p = 1 − (1 − τ)^(n−1), eq. 13
/// (throughput), with W = CWmin + 1 and m = log2((CWmax + 1)/W) back-off stages. T_s and
/// T_c from the same PHY as the simulator: basic access T_s = DATA + SIFS + ACK + DIFS,
/// RTS/CTS T_s = RTS + SIFS + CTS + SIFS + DATA + SIFS + ACK + DIFS; a collision lasts
/// the colliding frame (DATA or RTS) + EIFS (the interval after which every station counts
/// again in the simulated cell; Bianchi's paper writes DIFS, for stations that ignore
/// EIFS). Propagation delay 0. Returns bit/s of IP payload.
fn bianchi(phy: &Phy, kbps: u32, n: usize, rts: bool) -> f64 {
    let w = (phy.cw_min + 1) as f64;
    let m = ((phy.cw_max + 1) / (phy.cw_min + 1)).ilog2() as i32;
    // Eq. 7 divided through by (1 − 2p), which has no singularity at p = ½:
    // τ = 2 / (W + 1 + p·W·Σ_{k<m} (2p)^k).
    let tau_of = |p: f64| {
        let sum: f64 = (0..m).map(|k| (2.0 * p).powi(k)).sum();
        2.0 / (w + 1.0 + p * w * sum)
    };
    // Bisection on p: f(p) = p − (1 − (1 − τ(p))^(n−1)) is increasing.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let f = |p: f64| p - (1.0 - (1.0 - tau_of(p)).powi(n as i32 - 1));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let tau = if n == 1 {
        tau_of(0.0)
    } else {
        tau_of(0.5 * (lo + hi))
    };
    let ptr = 1.0 - (1.0 - tau).powi(n as i32);
    let ps = n as f64 * tau * (1.0 - tau).powi(n as i32 - 1) / ptr;
    let ns = |t: airqueue::engine::SimTime| t.0 as f64 * 1e-9;
    let data = ns(phy.data_duration(IP_BYTES, kbps));
    let ack = ns(phy.ack_duration(kbps));
    let ctl = phy.response_kbps(kbps);
    let (sifs, difs, eifs) = (ns(phy.sifs), ns(phy.difs()), ns(phy.eifs()));
    let (ts, tc) = if rts {
        let rts_t = ns(phy.duration(RTS_BYTES, ctl));
        let cts_t = ns(phy.duration(CTS_BYTES, ctl));
        (
            rts_t + sifs + cts_t + sifs + data + sifs + ack + difs,
            rts_t + eifs,
        )
    } else {
        (data + sifs + ack + difs, data + eifs)
    };
    let sigma = ns(phy.slot);
    ps * ptr * (IP_BYTES as f64 * 8.0)
        / ((1.0 - ptr) * sigma + ptr * ps * ts + ptr * (1.0 - ps) * tc)
}

fn check_against_bianchi(standard: Standard, name: &str, rate: &str, kbps: u32, dur: &str) {
    let phy = Phy::new(standard);
    for rts in [false, true] {
        for n in [2usize, 5, 10, 20, 35, 50] {
            let s = load_toml_str(&saturated_cell(n, name, rate, rts, dur)).unwrap();
            let r = run_scenario(&s, BuildOptions::default());
            assert_conserved(&r);
            let got = mac_throughput(&r, n);
            let want = bianchi(&phy, kbps, n, rts);
            let err = got / want - 1.0;
            let tol = if n <= 20 { 0.03 } else { 0.05 };
            println!(
                "{name} {rate} rts={rts} n={n}: sim {:.4} Mb/s, Bianchi {:.4} Mb/s ({:+.2} %)",
                got / 1e6,
                want / 1e6,
                100.0 * err
            );
            assert!(err.abs() < tol, "{name} rts={rts} n={n}: {got} vs {want}");
        }
    }
}

/// Reference: Bianchi's saturation throughput (see [`bianchi`]) for 802.11b at 11 Mb/s
/// (long preamble, ACK/RTS/CTS at 2 Mb/s), basic access and RTS/CTS, n = 2 … 50.
/// Tolerance: 3 % for n ≤ 20, 5 % beyond (issue 12).
#[test]
fn saturation_80211b_11mbit_matches_bianchi() {
    check_against_bianchi(Standard::B, "802.11b", "11Mbit", 11_000, "21s");
}

/// Reference: as above, 802.11a at 54 Mb/s (ACK/RTS/CTS at 24 Mb/s, 9 µs slot, CWmin 15).
#[test]
fn saturation_80211a_54mbit_matches_bianchi() {
    check_against_bianchi(Standard::A, "802.11a", "54Mbit", 54_000, "11s");
}

/// Reference: one saturated station alone sends one frame per DIFS + mean back-off
/// (CWmin/2 slots) + DATA + SIFS + ACK: 1500 B at 11 Mb/s (802.11b, long preamble) =
/// 12000 bits / (50 + 310 + 1310 + 10 + 248 µs) = 6.224 Mb/s; at 54 Mb/s (802.11a) =
/// 12000 / (34 + 67.5 + 248 + 16 + 28 µs) = 30.50 Mb/s. Tolerance 1 % (issue 12).
#[test]
fn one_station_alone_gets_the_contention_free_rate() {
    for (std, name, rate, kbps) in [
        (Standard::B, "802.11b", "11Mbit", 11_000),
        (Standard::A, "802.11a", "54Mbit", 54_000),
    ] {
        let phy = Phy::new(std);
        let ns = |t: airqueue::engine::SimTime| t.0 as f64 * 1e-9;
        let cycle = ns(phy.difs())
            + phy.cw_min as f64 / 2.0 * ns(phy.slot)
            + ns(phy.data_duration(IP_BYTES, kbps))
            + ns(phy.sifs)
            + ns(phy.ack_duration(kbps));
        let want = IP_BYTES as f64 * 8.0 / cycle;
        let s = load_toml_str(&saturated_cell(1, name, rate, false, "31s")).unwrap();
        let r = run_scenario(&s, BuildOptions::default());
        assert_conserved(&r);
        let got = mac_throughput(&r, 1);
        println!("{name} alone: {:.4} vs {:.4} Mb/s", got / 1e6, want / 1e6);
        assert!((got / want - 1.0).abs() < 0.01, "{name}: {got} vs {want}");
    }
}
