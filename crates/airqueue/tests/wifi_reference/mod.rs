//! Closed-form references shared by the 802.11 tests (`mod wifi_reference;`).

use airqueue::link::wifi::phy::{CTS_BYTES, RTS_BYTES};
use airqueue::link::wifi::Phy;

/// IP packet size of the saturating UDP flows (1472 B payload + 28 B headers).
pub const IP_BYTES: u32 = 1500;

/// A lone saturated sender's throughput (IP bytes, bit/s): one `IP_BYTES` frame per
/// DIFS, mean back-off (CWmin/2 slots), DATA, SIFS and ACK, basic access.
#[allow(dead_code)]
pub fn contention_free(phy: &Phy, kbps: u32) -> f64 {
    let ns = |t: airqueue::engine::SimTime| t.0 as f64 * 1e-9;
    let cycle = ns(phy.difs())
        + phy.cw_min as f64 / 2.0 * ns(phy.slot)
        + ns(phy.data_duration(IP_BYTES, kbps))
        + ns(phy.sifs)
        + ns(phy.ack_duration(kbps));
    IP_BYTES as f64 * 8.0 / cycle
}

/// Bianchi (IEEE JSAC 18(3), 2000), eq. 7 (τ given p), p = 1 − (1 − τ)^(n−1), eq. 13
/// (throughput), with W = CWmin + 1 and m = log2((CWmax + 1)/W) back-off stages. T_s and
/// T_c from the same PHY as the simulator: basic access T_s = DATA + SIFS + ACK + DIFS,
/// RTS/CTS T_s = RTS + SIFS + CTS + SIFS + DATA + SIFS + ACK + DIFS; a collision lasts
/// the colliding frame (DATA or RTS) + EIFS (the interval after which every station counts
/// again in the simulated cell; Bianchi's paper writes DIFS, for stations that ignore
/// EIFS). Propagation delay 0. Returns bit/s of IP payload.
#[allow(dead_code)]
pub fn bianchi(phy: &Phy, kbps: u32, n: usize, rts: bool) -> f64 {
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
