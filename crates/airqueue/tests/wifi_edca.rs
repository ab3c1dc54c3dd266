//! 802.11 EDCA (issue 12): saturation throughput per access category against a
//! finite-retry Bianchi model, priority of AC_VO over AC_BE, internal collisions, and the
//! DSCP → AC path end to end.

mod common;

use airqueue::engine::SimTime;
use airqueue::link::wifi::edca::default_params;
use airqueue::link::wifi::{Ac, EdcaParams, Phy, Standard};
use airqueue::scenario::load_toml_str;
use airqueue::sim::{BuildOptions, RunResults};
use common::*;

/// IP packet of the saturating UDP flows (1472 B payload + 28 B headers).
const IP_BYTES: u32 = 1500;
/// A QoS data MPDU: IP + 24 B header + 2 B QoS Control + 4 B FCS + 8 B LLC/SNAP.
const MPDU: u32 = IP_BYTES + 38;

/// A QoS cell of `standard` at `rate` with `groups` of saturated uplink stations, each
/// `(name prefix, count, dscp)`; `extra` adds cell keys.
fn qos_cell(
    standard: &str,
    rate: &str,
    groups: &[(&str, usize, u8)],
    dur: &str,
    extra: &str,
) -> String {
    let mut s = format!("[run]\nduration = \"{dur}\"\nwarmup = \"1s\"\n[[nodes]]\nname = \"ap\"\n");
    let mut stations = Vec::new();
    for (g, n, _) in groups {
        s += &format!("[[nodes]]\nname = \"{g}{{i}}\"\ncount = {n}\n");
        stations.push(format!("{{ node = \"{g}{{i}}\", count = {n} }}"));
    }
    s += &format!(
        "[[cells]]\nname = \"wlan\"\nstandard = \"{standard}\"\nap = \"ap\"\nrate = \"{rate}\"\nqos = true\n{extra}stations = [{}]\n",
        stations.join(", ")
    );
    for (g, n, dscp) in groups {
        s += &format!(
            "[[flows]]\nname = \"{g}{{i}}\"\ncount = {n}\nfrom = \"{g}{{i}}\"\nto = \"ap\"\ndscp = {dscp}\n\
             app = {{ kind = \"cbr\", size = 1472, rate = \"{rate}\" }}\n"
        );
    }
    s
}

/// Aggregate MAC payload throughput (IP bits/s) of the flows `prefix0 … prefix{n-1}`.
fn group_throughput(r: &RunResults, prefix: &str, n: usize) -> f64 {
    (0..n)
        .map(|i| flow(r, &format!("{prefix}{i}")).f("goodput_bps"))
        .sum::<f64>()
        * IP_BYTES as f64
        / 1472.0
}

fn secs(t: SimTime) -> f64 {
    t.0 as f64 * 1e-9
}

/// Frames a TXOP of `par` carries back to back when each exchange (DATA SIFS ACK) lasts
/// `exch`: the first always, more while `k·exch + (k − 1)·SIFS` fits the limit.
fn txop_frames(par: &EdcaParams, exch: SimTime, sifs: SimTime) -> u32 {
    if par.txop == SimTime::ZERO {
        return 1;
    }
    ((par.txop.0 + sifs.0) / (exch.0 + sifs.0)).max(1) as u32
}

/// Reference model: Bianchi's saturation analysis (IEEE JSAC 18(3), 2000) in the renewal
/// form of Kumar, Altman, Miorandi & Goyal ("New insights from a fixed-point analysis of
/// single cell IEEE 802.11 WLANs", IEEE/ACM ToN 15(3), 2007), which keeps the retry limit
/// R (here dot11ShortRetryLimit 7) and extends to several classes with their own CWs
/// (the EDCA case with equal AIFSN):
///
/// - per class c: τ_c = Σ_{j<R} p_c^j / Σ_{j<R} p_c^j (1 + CW_j/2), CW_j = min(2^j (CWmin
///   + 1) − 1, CWmax) (back-off uniform in [0, CW_j], one slot for the attempt);
/// - p_c = 1 − (1 − τ_c)^(n_c − 1) Π_{d≠c} (1 − τ_d)^(n_d);
/// - a generic slot is idle (σ), a success of class c (T_s,c = k_c exchanges + (k_c − 1)
///   SIFS + AIFS, k_c frames per TXOP) or a collision (T_c = DATA + EIFS − DIFS + AIFS);
///   S_c = P_s,c · k_c · L / E[slot].
///
/// All classes must share one AIFSN (the model has no AIFS differentiation). Returns
/// IP bit/s per class.
fn edca_model(phy: &Phy, kbps: u32, classes: &[(usize, EdcaParams)]) -> Vec<f64> {
    const R: i32 = 7;
    let aifsn = classes[0].1.aifsn;
    assert!(classes.iter().all(|c| c.1.aifsn == aifsn));
    let tau_of = |par: &EdcaParams, p: f64| {
        let (mut a, mut b) = (0.0, 0.0);
        for j in 0..R {
            let cw = ((par.cw_min as u64 + 1) << j).min(par.cw_max as u64 + 1) - 1;
            let pj = p.powi(j);
            a += pj;
            b += pj * (1.0 + cw as f64 / 2.0);
        }
        a / b
    };
    let mut tau: Vec<f64> = classes.iter().map(|(_, par)| tau_of(par, 0.0)).collect();
    for _ in 0..20_000 {
        let all: f64 = classes
            .iter()
            .zip(&tau)
            .map(|((n, _), t)| (1.0 - t).powi(*n as i32))
            .product();
        let next: Vec<f64> = classes
            .iter()
            .zip(&tau)
            .map(|((_, par), t)| {
                let p = 1.0 - all / (1.0 - t);
                tau_of(par, p)
            })
            .collect();
        for (t, n) in tau.iter_mut().zip(next) {
            *t = 0.9 * *t + 0.1 * n;
        }
    }
    let idle: f64 = classes
        .iter()
        .zip(&tau)
        .map(|((n, _), t)| (1.0 - t).powi(*n as i32))
        .product();
    let data = phy.duration(MPDU, kbps);
    let exch = data + phy.sifs + phy.ack_duration(kbps);
    let aifs = phy.aifs(aifsn);
    let tc = secs(data + phy.eifs() - phy.difs() + aifs);
    let mut ps = Vec::new();
    let mut busy = 0.0;
    for ((n, par), t) in classes.iter().zip(&tau) {
        let p = *n as f64 * t * idle / (1.0 - t);
        let k = txop_frames(par, exch, phy.sifs);
        let ts = k as f64 * secs(exch) + (k - 1) as f64 * secs(phy.sifs) + secs(aifs);
        busy += p * ts;
        ps.push((p, k));
    }
    let pc = 1.0 - idle - ps.iter().map(|x| x.0).sum::<f64>();
    let slot = idle * secs(phy.slot) + busy + pc * tc;
    ps.iter()
        .map(|(p, k)| p * *k as f64 * (IP_BYTES as f64 * 8.0) / slot)
        .collect()
}

/// Reference: [`edca_model`] with one class. n saturated 802.11a stations at 54 Mb/s, all
/// in AC_BE (AIFSN 3, CW 15–1023, one frame per access), AC_VI (AIFSN 2, CW 7–15, TXOP
/// 3.008 ms = 9 frames) or AC_VO (AIFSN 2, CW 3–7, TXOP 1.504 ms = 4 frames), the default
/// parameter set of 802.11-2016 Table 9-137. Tolerance 3 % (issue 12's for n ≤ 20).
///
/// Where the model's decoupling assumption holds: BE up to n = 20, VI up to 10, VO up to
/// 2. With CWs as small as VO's (3–7) and more stations it fails badly — the fixed point
/// predicts 18.9 Mb/s for 10 VO stations where the cell and an independent per-slot
/// Monte Carlo of the same back-off rules both give 26.2 Mb/s; the exact chain of
/// [`exact_two_stations`] covers the small-CW classes instead.
#[test]
fn single_class_saturation_matches_the_finite_retry_model() {
    let phy = Phy::new(Standard::A);
    let params = default_params(&phy);
    for (ac, dscp, ns) in [
        (Ac::Be, 0u8, &[1usize, 2, 5, 10, 20][..]),
        (Ac::Vi, 34, &[1, 2, 5, 10][..]),
        (Ac::Vo, 46, &[1, 2][..]),
    ] {
        for &n in ns {
            let s = load_toml_str(&qos_cell("802.11a", "54Mbit", &[("s", n, dscp)], "11s", ""))
                .unwrap();
            let r = run_scenario(&s, BuildOptions::default());
            assert_conserved(&r);
            let got = group_throughput(&r, "s", n);
            let want = edca_model(&phy, 54_000, &[(n, params[ac as usize])])[0];
            let err = got / want - 1.0;
            println!(
                "{} n={n}: sim {:.3} Mb/s, model {:.3} Mb/s ({:+.2} %)",
                ac.name(),
                got / 1e6,
                want / 1e6,
                100.0 * err
            );
            assert!(err.abs() < 0.03, "{} n={n}: {got} vs {want}", ac.name());
        }
    }
}

/// Reference model: the exact Markov chain of two saturated stations under the slotted
/// EDCA of Bianchi's model (no decoupling assumption, which fails for CWs as small as
/// AC_VO's): per station its retry stage r < R and back-off counter b, plus the idle
/// slots s since the last busy period (capped at the AIFSN difference Δ). At each slot
/// boundary a station is active once s ≥ its AIFSN − the smaller AIFSN (802.11-2016
/// §10.22.2.4: it counts only after its own AIFS); an active station with b = 0
/// transmits. Nobody: an idle slot σ, active counters decrease, s grows. One: a success
/// (k frames in its TXOP, T_s = k exchanges + (k − 1) SIFS + AIFS_min), it draws b
/// uniformly in [0, CWmin]; the other freezes. Both: a collision (T_c = DATA + EIFS −
/// DIFS + AIFS_min), each goes to the next stage (CW_r = min(2^r (CWmin + 1) − 1, CWmax),
/// discarding at R = 7 and restarting at CWmin) and draws in [0, CW_r]. The stationary
/// distribution π (power iteration of the lazy chain) gives
/// S_i = Σ π·[i succeeds]·k_i·L / Σ π·duration. Returns IP bit/s per station.
fn exact_two_stations(phy: &Phy, kbps: u32, st: [EdcaParams; 2]) -> [f64; 2] {
    const R: usize = 7;
    let cw = |p: &EdcaParams, r: usize| {
        (((p.cw_min as u64 + 1) << r).min(p.cw_max as u64 + 1) - 1) as usize
    };
    // Per station: its (stage, counter) states and the index of (r, 0).
    let mut base = [[0usize; R]; 2];
    let mut size = [0usize; 2];
    for (i, p) in st.iter().enumerate() {
        for (r, b) in base[i].iter_mut().enumerate() {
            *b = size[i];
            size[i] += cw(p, r) + 1;
        }
    }
    let min_aifsn = st[0].aifsn.min(st[1].aifsn);
    let delay = [
        (st[0].aifsn - min_aifsn) as usize,
        (st[1].aifsn - min_aifsn) as usize,
    ];
    let cap = delay[0].max(delay[1]);
    let ns = cap + 1;
    let idx = |a: usize, b: usize, s: usize| (a * size[1] + b) * ns + s;
    let total = size[0] * size[1] * ns;
    // Decode a station state into (stage, counter).
    let decode = |i: usize, x: usize| {
        let r = (0..R).rev().find(|&r| base[i][r] <= x).unwrap();
        (r, x - base[i][r])
    };
    let data = phy.duration(MPDU, kbps);
    let exch = data + phy.sifs + phy.ack_duration(kbps);
    let aifs = phy.aifs(min_aifsn);
    let k = [
        txop_frames(&st[0], exch, phy.sifs),
        txop_frames(&st[1], exch, phy.sifs),
    ];
    let ts = |i: usize| k[i] as f64 * secs(exch) + (k[i] - 1) as f64 * secs(phy.sifs) + secs(aifs);
    let tc = secs(data + phy.eifs() - phy.difs() + aifs);
    let mut pi = vec![0.0f64; total];
    pi[idx(0, 0, 0)] = 1.0;
    let mut next = vec![0.0f64; total];
    for _ in 0..200_000 {
        next.iter_mut().for_each(|x| *x = 0.0);
        for a in 0..size[0] {
            let (ra, ba) = decode(0, a);
            for b in 0..size[1] {
                let (rb, bb) = decode(1, b);
                for s in 0..ns {
                    let m = pi[idx(a, b, s)];
                    if m == 0.0 {
                        continue;
                    }
                    let act = [s >= delay[0], s >= delay[1]];
                    let tx = [act[0] && ba == 0, act[1] && bb == 0];
                    match tx {
                        [false, false] => {
                            let a2 = if act[0] { a - 1 } else { a };
                            let b2 = if act[1] { b - 1 } else { b };
                            next[idx(a2, b2, (s + 1).min(cap))] += m;
                        }
                        [true, false] => {
                            let w = m / (st[0].cw_min + 1) as f64;
                            for c in 0..=st[0].cw_min as usize {
                                next[idx(base[0][0] + c, b, 0)] += w;
                            }
                        }
                        [false, true] => {
                            let w = m / (st[1].cw_min + 1) as f64;
                            for c in 0..=st[1].cw_min as usize {
                                next[idx(a, base[1][0] + c, 0)] += w;
                            }
                        }
                        [true, true] => {
                            let (na, nb) = ((ra + 1) % R, (rb + 1) % R);
                            let (wa, wb) = (cw(&st[0], na) + 1, cw(&st[1], nb) + 1);
                            let w = m / (wa * wb) as f64;
                            for x in 0..wa {
                                for y in 0..wb {
                                    next[idx(base[0][na] + x, base[1][nb] + y, 0)] += w;
                                }
                            }
                        }
                    }
                }
            }
        }
        let mut diff = 0.0;
        for (p, n) in pi.iter_mut().zip(&next) {
            let v = 0.5 * *p + 0.5 * n;
            diff += (v - *p).abs();
            *p = v;
        }
        if diff < 1e-13 {
            break;
        }
    }
    // Renewal reward over the chain's steps.
    let (mut time, mut succ) = (0.0, [0.0; 2]);
    for a in 0..size[0] {
        let (_, ba) = decode(0, a);
        for b in 0..size[1] {
            let (_, bb) = decode(1, b);
            for s in 0..ns {
                let m = pi[idx(a, b, s)];
                let act = [s >= delay[0], s >= delay[1]];
                match [act[0] && ba == 0, act[1] && bb == 0] {
                    [false, false] => time += m * secs(phy.slot),
                    [true, false] => {
                        time += m * ts(0);
                        succ[0] += m;
                    }
                    [false, true] => {
                        time += m * ts(1);
                        succ[1] += m;
                    }
                    [true, true] => time += m * tc,
                }
            }
        }
    }
    let bits = IP_BYTES as f64 * 8.0;
    [
        succ[0] * k[0] as f64 * bits / time,
        succ[1] * k[1] as f64 * bits / time,
    ]
}

/// Reference: [`exact_two_stations`] for one station in each of two ACs (802.11a,
/// 54 Mb/s, Table 9-137 defaults): AC_VI against AC_VO (equal AIFSN; CW 7–15 vs 3–7;
/// TXOPs of 9 and 4 frames), AC_BE against AC_VO (AIFSN 3 vs 2: AIFS differentiation;
/// BE's CWmax set to 63 to keep the chain small), AC_BE against AC_BE (equal shares).
/// Tolerance per station: 3 % (issue 12's saturation tolerance) or, for a station with
/// few channel accesses N (BE beside VO gets ≈ 1 200 in 100 s), 4/√N, four standard
/// errors of a count.
#[test]
fn two_access_categories_match_the_exact_two_station_chain() {
    let phy = Phy::new(Standard::A);
    let mut params = default_params(&phy);
    params[Ac::Be as usize].cw_max = 63;
    for (a, b, da, db) in [
        (Ac::Vi, Ac::Vo, 34u8, 46u8),
        (Ac::Be, Ac::Vo, 0, 46),
        (Ac::Be, Ac::Be, 0, 0),
    ] {
        let s = load_toml_str(&qos_cell(
            "802.11a",
            "54Mbit",
            &[("a", 1, da), ("b", 1, db)],
            "101s",
            "edca = { be = { cw_max = 63 } }\n",
        ))
        .unwrap();
        let r = run_scenario(&s, BuildOptions::default());
        assert_conserved(&r);
        let got = [group_throughput(&r, "a", 1), group_throughput(&r, "b", 1)];
        let want = exact_two_stations(&phy, 54_000, [params[a as usize], params[b as usize]]);
        for i in 0..2 {
            let err = got[i] / want[i] - 1.0;
            println!(
                "{} vs {}: station {i} sim {:.3} Mb/s, chain {:.3} Mb/s ({:+.2} %)",
                a.name(),
                b.name(),
                got[i] / 1e6,
                want[i] / 1e6,
                100.0 * err
            );
            let accesses = flow(&r, ["a0", "b0"][i]).u("rx_packets") as f64
                / match [a, b][i] {
                    Ac::Vi => 9.0,
                    Ac::Vo => 4.0,
                    _ => 1.0,
                };
            let tol = 0.03f64.max(4.0 / accesses.sqrt());
            assert!(
                err.abs() < tol,
                "{a:?}/{b:?} {i}: {} vs {} (tolerance {tol})",
                got[i],
                want[i]
            );
        }
    }
}

/// Reference: the 802.11e service differentiation under saturation (Mangold et al.,
/// "Analysis of IEEE 802.11e for QoS support in wireless LANs", IEEE Wireless Commun.
/// 2003: the higher AC takes most of the capacity; quantified for one station per AC by
/// the exact chain above, BE ≈ 0.4 % of the aggregate). 5 AC_VO and 5 AC_BE saturated
/// stations (802.11a, 54 Mb/s): with AIFSN 2 vs 3, CW 3–7 vs 15–1023 and VO's 4-frame
/// TXOP, BE can count down only in the slots VO leaves idle; the bound is VO ≥ 90 % of
/// the aggregate, and the aggregate at least the all-BE cell's (VO's bursts cost less
/// overhead per frame). The same stations all in AC_BE share equally (within 5 %).
#[test]
fn ac_vo_takes_priority_over_ac_be_under_saturation() {
    let n = 5;
    let s = load_toml_str(&qos_cell(
        "802.11a",
        "54Mbit",
        &[("be", n, 0), ("vo", n, 46)],
        "11s",
        "",
    ))
    .unwrap();
    let r = run_scenario(&s, BuildOptions::default());
    assert_conserved(&r);
    let (be, vo) = (group_throughput(&r, "be", n), group_throughput(&r, "vo", n));
    let s = load_toml_str(&qos_cell(
        "802.11a",
        "54Mbit",
        &[("be", n, 0), ("vo", n, 0)],
        "11s",
        "",
    ))
    .unwrap();
    let r = run_scenario(&s, BuildOptions::default());
    let (be2, vo2) = (group_throughput(&r, "be", n), group_throughput(&r, "vo", n));
    println!(
        "VO {:.3} Mb/s, BE {:.3} Mb/s (VO share {:.3}); all BE: {:.3} + {:.3}",
        vo / 1e6,
        be / 1e6,
        vo / (vo + be),
        be2 / 1e6,
        vo2 / 1e6
    );
    assert!(vo / (vo + be) > 0.9);
    assert!(vo + be > be2 + vo2);
    assert!((be2 / vo2 - 1.0).abs() < 0.05);
}

/// Reference: internal collisions (802.11-2016 §10.22.2.4). One station alone with a
/// saturated AC_VO flow and a saturated AC_BE flow: no frame ever collides on the air;
/// when both counters expire in one slot VO transmits and BE backs off as after a
/// collision, so VO never has an internal collision, BE has some, and the
/// `access_categories` table's counts match the flows'.
#[test]
fn internal_collisions_go_to_the_higher_ac() {
    let s = "[run]\nduration = \"11s\"\nwarmup = \"1s\"\n\
        [[nodes]]\nname = \"ap\"\n[[nodes]]\nname = \"sta\"\n\
        [[cells]]\nname = \"wlan\"\nstandard = \"802.11a\"\nap = \"ap\"\nqos = true\nstations = [{ node = \"sta\" }]\n\
        [[flows]]\nname = \"vo\"\nfrom = \"sta\"\nto = \"ap\"\ndscp = 46\napp = { kind = \"cbr\", size = 1472, rate = \"54Mbit\" }\n\
        [[flows]]\nname = \"be\"\nfrom = \"sta\"\nto = \"ap\"\napp = { kind = \"cbr\", size = 1472, rate = \"54Mbit\" }\n";
    let r = run_scenario(&load_toml_str(s).unwrap(), BuildOptions::default());
    assert_conserved(&r);
    let t = r
        .more
        .iter()
        .find(|(n, _)| n == "access_categories")
        .expect("a QoS cell reports its access categories")
        .1
        .clone();
    assert_eq!(t.rows(), 8, "four ACs for each of two ports");
    let strs = |c: &str| match t.column(c) {
        Some(airqueue::metrics::Column::Str(v)) => v.clone(),
        _ => panic!("no text column {c}"),
    };
    let (stations, acs) = (strs("station"), strs("ac"));
    let row = |ac: &str| {
        (0..t.rows())
            .find(|&i| stations[i] == "sta.wlan" && acs[i] == ac)
            .unwrap()
    };
    let (vo, be) = (row("AC_VO"), row("AC_BE"));
    let internal = t.u64s("internal_collisions");
    println!(
        "VO sent {} internal {}; BE sent {} internal {}",
        t.u64s("frames_sent")[vo],
        internal[vo],
        t.u64s("frames_sent")[be],
        internal[be]
    );
    assert_eq!(internal[vo], 0);
    assert!(internal[be] > 0);
    assert_eq!(t.u64s("collisions").iter().sum::<u64>(), 0);
    assert_eq!(t.u64s("frames_sent")[vo], flow(&r, "vo").u("rx_packets"));
    assert_eq!(t.u64s("frames_sent")[be], flow(&r, "be").u("rx_packets"));
    assert!(flow(&r, "vo").f("goodput_bps") > 5.0 * flow(&r, "be").f("goodput_bps"));
}

/// EDCA keys are checked: `edca` without `qos`, an AIFSN out of range, a CW not 2^k − 1.
#[test]
fn bad_edca_keys_are_reported_with_their_field() {
    let base = "[run]\nduration = \"1s\"\n[[nodes]]\nname = \"ap\"\n[[nodes]]\nname = \"sta\"\n[[cells]]\nname = \"wlan\"\nap = \"ap\"\nstandard = \"802.11a\"\nstations = [{ node = \"sta\" }]\n";
    for (extra, field, words) in [
        (
            "edca = { vo = { aifsn = 2 } }\n",
            "cells.wlan.edca",
            "qos = true",
        ),
        (
            "qos = true\nedca = { be = { aifsn = 0 } }\n",
            "cells.wlan.edca.be.aifsn",
            "1…15",
        ),
        (
            "qos = true\nedca = { vi = { cw_min = 6 } }\n",
            "cells.wlan.edca.vi.cw_min",
            "2^k",
        ),
    ] {
        let err = load_toml_str(&format!("{base}{extra}"))
            .unwrap_err()
            .to_string();
        assert!(err.contains(field) && err.contains(words), "{err}");
    }
}

/// A server behind an 802.11b AP (11 Mb/s): three stations downloading with bulk TCP
/// (DSCP 0, AC_BE) and a G.711 call (172-B RTP payload every 20 ms, DSCP EF) between the
/// server and a phone; `cell_keys` set the cell's QoS and AP queues.
fn voip_beside_tcp(cell_keys: &str) -> String {
    let mut s = format!(
        "[run]\nduration = \"31s\"\nwarmup = \"5s\"\n\
         [[nodes]]\nname = \"server\"\n[[nodes]]\nname = \"ap\"\n[[nodes]]\nname = \"phone\"\n\
         [[nodes]]\nname = \"s{{i}}\"\ncount = 3\n\
         [[links]]\nname = \"wan\"\nbetween = [\"server\", \"ap\"]\nrate = \"100Mbit\"\ndelay = \"1ms\"\n\
         [[cells]]\nname = \"wlan\"\nstandard = \"802.11b\"\nap = \"ap\"\nrate = \"11Mbit\"\n{cell_keys}\
         stations = [{{ node = \"phone\" }}, {{ node = \"s{{i}}\", count = 3 }}]\n\
         [[flows]]\nname = \"tcp{{i}}\"\ncount = 3\nfrom = \"server\"\nto = \"s{{i}}\"\n\
         transport = {{ kind = \"tcp\", rcv_buffer = \"256KiB\" }}\napp = {{ kind = \"bulk\" }}\n"
    );
    for (name, from, to) in [
        ("call_down", "server", "phone"),
        ("call_up", "phone", "server"),
    ] {
        s += &format!(
            "[[flows]]\nname = \"{name}\"\nfrom = \"{from}\"\nto = \"{to}\"\ndscp = 46\n\
             app = {{ kind = \"cbr\", size = 172, interval = \"20ms\" }}\n"
        );
    }
    s
}

/// Reference: seed 002 §IV (Fig. 12) and issue 12: with EDCA a G.711 call in AC_VO keeps
/// its one-way delay under 20 ms beside saturated TCP downloads in AC_BE. Here with
/// mac80211's per-AC TXQs at the AP (the voice packets do not wait behind the TCP
/// backlog in one FIFO): mean and 99th-percentile delay of both directions < 20 ms. The
/// same cell without QoS and with the driver FIFO below a 1000-packet pfifo (the anomaly
/// setting) is shown for contrast: its downlink voice delay exceeds 20 ms.
#[test]
fn a_voice_call_in_ac_vo_stays_under_20_ms_beside_tcp() {
    let r = run_scenario(
        &load_toml_str(&voip_beside_tcp("qos = true\nap_queues = \"mac80211\"\n")).unwrap(),
        BuildOptions::default(),
    );
    assert_conserved(&r);
    let r0 = run_scenario(
        &load_toml_str(&voip_beside_tcp("")).unwrap(),
        BuildOptions::default(),
    );
    let tcp: f64 = (0..3)
        .map(|i| flow(&r, &format!("tcp{i}")).f("goodput_bps"))
        .sum();
    for f in ["call_down", "call_up"] {
        let (mean, p99) = (
            flow(&r, f).f("delay_mean_ms"),
            flow(&r, f).f("delay_p99_ms"),
        );
        println!(
            "{f}: EDCA + mac80211 mean {mean:.2} ms, p99 {p99:.2} ms; DCF + FIFO mean {:.2} ms",
            flow(&r0, f).f("delay_mean_ms")
        );
        assert!(mean < 20.0 && p99 < 20.0, "{f}: {mean} / {p99} ms");
        assert!(flow(&r, f).u("rx_packets") > 1200);
    }
    println!("TCP aggregate {:.3} Mb/s", tcp / 1e6);
    assert!(tcp > 2e6);
    assert!(flow(&r0, "call_down").f("delay_mean_ms") > 20.0);
}

/// Seed 002 Fig. 12's setting: one bulk TCP download (AC_BE) from a wired server to a
/// station and `calls` G.711 calls (200-B IP packets every 20 ms, both directions, DSCP EF
/// → AC_VO), one phone each, in an 802.11g cell at 54 Mb/s with EDCA and mac80211 TXQs.
fn calls_beside_tcp(calls: u32) -> String {
    let mut s = String::from(
        "[run]\nduration = \"21s\"\nwarmup = \"3s\"\n\
         [[nodes]]\nname = \"server\"\n[[nodes]]\nname = \"ap\"\n[[nodes]]\nname = \"sta\"\n\
         [[links]]\nname = \"lan\"\nbetween = [\"server\", \"ap\"]\nrate = \"1Gbit\"\ndelay = \"1ms\"\n\
         [[flows]]\nname = \"tcp\"\nfrom = \"server\"\nto = \"sta\"\n\
         transport = { kind = \"tcp\", rcv_buffer = \"256KiB\" }\napp = { kind = \"bulk\" }\n",
    );
    let mut stations = String::from("{ node = \"sta\" }");
    if calls > 0 {
        s += &format!("[[nodes]]\nname = \"phone{{i}}\"\ncount = {calls}\n");
        stations += &format!(", {{ node = \"phone{{i}}\", count = {calls} }}");
        for (name, from, to) in [
            ("down{i}", "server", "phone{i}"),
            ("up{i}", "phone{i}", "server"),
        ] {
            s += &format!(
                "[[flows]]\nname = \"{name}\"\ncount = {calls}\nfrom = \"{from}\"\nto = \"{to}\"\ndscp = 46\n\
                 app = {{ kind = \"voice\", codec = \"g711\", frames_per_packet = 2, phase = \"random\" }}\n"
            );
        }
    }
    s += &format!(
        "[[cells]]\nname = \"wlan\"\nstandard = \"802.11g\"\nap = \"ap\"\nrate = \"54Mbit\"\n\
         qos = true\nap_queues = \"mac80211\"\nstations = [{stations}]\n"
    );
    s
}

/// Reference: seed 002 §II-E, Fig. 12 (and Harsha et al., its [9]): beside a TCP download
/// in AC_BE, each G.711 call in AC_VO takes a fixed share of the air, so TCP's throughput
/// falls linearly with the number of calls — the paper: about 0.45 Mb/s per call from
/// about 20.5 Mb/s (802.11g at 54 Mb/s). Checked over 0–20 calls: the least-squares
/// slope within 20 % of −0.45 Mb/s per call, every point within 4 % of TCP(0) of the
/// fitted line, every call's mean delay < 20 ms. The airtime closed form is printed beside
/// (a call is 2 × 50 frames/s of 200-B IP packets, each exchange AIFS[VO] (SIFS + 2
/// slots) + CWmin[VO]/2 = 1.5 slots + DATA (QoS MPDU, + 6 µs signal extension) + SIFS +
/// ACK, so n calls leave TCP the fraction 1 − n·100·t_v): it leaves out collisions, which
/// in 802.11g cost an EIFS with the ACK at 1 Mb/s (342 µs) each.
///
/// The calls are independent, so each starts at a random phase within its 20 ms (`phase =
/// "random"`). With every call in step (the first form of this test: all calls' packets
/// generated at the same instants) the phones' AC_VO frames collided about twice per
/// frame and TCP fell 0.72 Mb/s per call. Beyond about 25 calls our 802.11g cell's AC_VO
/// collapses into collisions (TCP near 0 at 30 calls, where the paper still has about
/// 7 Mb/s); with 802.11a timing (EIFS 94 µs) it stays linear to 40 calls (−0.36 Mb/s per
/// call): docs/reproductions/hegde-2013.md, Fig. 12.
#[test]
fn tcp_throughput_falls_linearly_with_the_number_of_voice_calls() {
    let phy = Phy::new(Standard::G);
    let t_v = secs(phy.sifs)
        + 2.0 * secs(phy.slot)
        + 1.5 * secs(phy.slot)
        + secs(phy.duration(200 + 38, 54_000) + phy.sifs + phy.ack_duration(54_000));
    let ns = [0u32, 5, 10, 15, 20];
    let mut worst = 0.0f64;
    let tcp: Vec<f64> = ns
        .iter()
        .map(|&n| {
            let r = run_scenario(
                &load_toml_str(&calls_beside_tcp(n)).unwrap(),
                BuildOptions::default(),
            );
            assert_conserved(&r);
            for i in 0..n {
                for f in [format!("down{i}"), format!("up{i}")] {
                    let mean = flow(&r, &f).f("delay_mean_ms");
                    worst = worst.max(flow(&r, &f).f("delay_p99_ms"));
                    assert!(mean < 20.0, "{n} calls, {f}: mean {mean} ms");
                }
            }
            flow(&r, "tcp").f("goodput_bps")
        })
        .collect();
    let x: Vec<f64> = ns.iter().map(|&n| n as f64).collect();
    let (mx, my) = (
        x.iter().sum::<f64>() / x.len() as f64,
        tcp.iter().sum::<f64>() / tcp.len() as f64,
    );
    let slope = x
        .iter()
        .zip(&tcp)
        .map(|(a, b)| (a - mx) * (b - my))
        .sum::<f64>()
        / x.iter().map(|a| (a - mx) * (a - mx)).sum::<f64>();
    let airtime = -tcp[0] * 100.0 * t_v;
    let paper = -0.45e6;
    println!(
        "TCP vs calls {ns:?}: {:?} Mb/s; slope {:.4} Mb/s per call (paper −0.45, airtime closed form {:.4}); worst voice p99 {worst:.2} ms",
        tcp.iter().map(|t| t / 1e6).collect::<Vec<_>>(),
        slope / 1e6,
        airtime / 1e6
    );
    assert!((slope / paper - 1.0).abs() < 0.20, "{slope} vs {paper}");
    for (a, b) in x.iter().zip(&tcp) {
        let fit = my + slope * (a - mx);
        assert!(
            (b - fit).abs() < 0.04 * tcp[0],
            "{a} calls: {b} vs line {fit}"
        );
    }
}
