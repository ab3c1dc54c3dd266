//! The radio channel of one master–slave link (thesis, seed 001, §3.1.3 and §4.2): each
//! link has its own channel, used by both directions, as the thesis models "each master
//! slave channel ... independently" (§4.1.1).
//!
//! - perfect (the thesis's PPL): nothing is lost;
//! - a constant bit error rate;
//! - the continuous-time Gilbert-Elliott chain of [`crate::channel::gilbert_elliott`]
//!   (the thesis's IPL), evaluated lazily: each state applies to its share of a packet's
//!   bits (`channel_state = "per-bit"`), or — as the thesis's simulator does, §4.2 — the
//!   state when the packet reaches its receiver sets the error rate of the whole packet
//!   (`"per-packet"`; then the per-hop success is exactly Tables 5.2/6.2's closed form
//!   `(1 − PER_G)·P_g + (1 − PER_B)·P_b`, while per bit a packet that straddles a change
//!   of state fares worse than that average).
//!
//! A DH packet is lost with probability `1 − (1 − BER)^bits` over its payload bits
//! ([`PacketType::error_bits`], thesis §4.2.1); a DM packet's 2/3 FEC corrects one bit
//! error per (15,10) codeword, so it survives with probability
//! `((1 − b)^15 + 15 b (1 − b)^14)^codewords` at the bit error rate `b` of the state
//! when it starts. POLL and NULL carry no payload and are never lost here; on a shared
//! spectrum, interference can destroy them ([`super::coexist`]).

use super::baseband::PacketType;
use crate::channel::{GilbertElliott, GilbertElliottParams};
use crate::engine::{stream, SimRng, SimTime};
use rand::Rng;

/// How a piconet's links lose packets.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ChannelKind {
    Perfect,
    Ber(f64),
    GilbertElliott(GilbertElliottParams),
    /// The chain, its state at the packet's arrival deciding the whole packet (§4.2).
    GilbertElliottPerPacket(GilbertElliottParams),
}

/// One link's channel state.
pub struct AclChannel {
    kind: ChannelKind,
    ge: Option<GilbertElliott>,
    rng: SimRng,
}

impl AclChannel {
    /// The channel of link `name`, with streams `<name>:ge` and `<name>:draw`.
    pub fn new(kind: ChannelKind, seed: u64, name: &str) -> Self {
        let ge = match kind {
            ChannelKind::GilbertElliott(p) | ChannelKind::GilbertElliottPerPacket(p) => Some(
                GilbertElliott::new(p, stream(seed, &format!("{name}:ge")), SimTime::ZERO),
            ),
            _ => None,
        };
        AclChannel {
            kind,
            ge,
            rng: stream(seed, &format!("{name}:draw")),
        }
    }

    /// Draws whether a packet of type `ty` on the air during `[t0, t1)` is corrupted.
    #[inline]
    pub fn corrupted(&mut self, t0: SimTime, t1: SimTime, ty: PacketType) -> bool {
        if ty.payload() == 0 {
            return false;
        }
        match self.kind {
            ChannelKind::Perfect => false,
            ChannelKind::Ber(b) if !ty.fec_2_3() => {
                let s = (1.0 - b).powf(ty.error_bits() as f64);
                self.rng.random::<f64>() >= s
            }
            ChannelKind::GilbertElliott(_) if !ty.fec_2_3() => self
                .ge
                .as_mut()
                .expect("a chain")
                .lost(t0, t1, ty.error_bits()),
            ChannelKind::GilbertElliottPerPacket(p) => {
                let b = match self.ge.as_mut().expect("a chain").state_at(t1) {
                    crate::channel::GeState::Good => p.ber_good,
                    crate::channel::GeState::Bad => p.ber_bad,
                };
                if ty.fec_2_3() {
                    self.fec_lost(b, ty)
                } else {
                    let s = (1.0 - b).powf(ty.error_bits() as f64);
                    self.rng.random::<f64>() >= s
                }
            }
            ChannelKind::Ber(b) => self.fec_lost(b, ty),
            ChannelKind::GilbertElliott(p) => {
                let b = match self.ge.as_mut().expect("a chain").state_at(t0) {
                    crate::channel::GeState::Good => p.ber_good,
                    crate::channel::GeState::Bad => p.ber_bad,
                };
                self.fec_lost(b, ty)
            }
        }
    }

    fn fec_lost(&mut self, b: f64, ty: PacketType) -> bool {
        let q = 1.0 - b;
        let cw = q.powi(15) + 15.0 * b * q.powi(14);
        let s = cw.powf(ty.codewords() as f64);
        self.rng.random::<f64>() >= s
    }

    /// The chain, for tests of its sojourns.
    pub fn chain(&mut self) -> Option<&mut GilbertElliott> {
        self.ge.as_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::GeState;

    /// Thesis Table 5.1: for each of its seven (ρG, ρB) rows, the mean good and bad
    /// sojourns of the slave1–master and slave2–master channels (each link's own stream)
    /// equal the input within 2 % (50 000 sojourns of each).
    #[test]
    fn thesis_table_5_1_mean_sojourns_per_link_within_2_percent() {
        let rows = [
            (0.4375, 0.0558),
            (0.4475, 0.0458),
            (0.4575, 0.0358),
            (0.4675, 0.0258),
            (0.4775, 0.0158),
            (0.4875, 0.0058),
            (0.4923, 0.001),
        ];
        for (rg, rb) in rows {
            let p = GilbertElliottParams {
                mean_good: SimTime::from_secs_f64(rg),
                mean_bad: SimTime::from_secs_f64(rb),
                ber_good: 6.8979e-5,
                ber_bad: 1.263e-3,
            };
            for link in ["piconet:bt:s1", "piconet:bt:s2"] {
                let mut ch = AclChannel::new(ChannelKind::GilbertElliott(p), 1, link);
                let ge = ch.chain().expect("a chain");
                let (_, _, end) = ge.sojourn();
                ge.advance(end);
                let mut sum = [0f64; 2];
                let mut n = [0u32; 2];
                while n[0] < 50_000 || n[1] < 50_000 {
                    let (s, since, until) = ge.sojourn();
                    let i = usize::from(s == GeState::Bad);
                    sum[i] += (until.0 - since.0) as f64 * 1e-9;
                    n[i] += 1;
                    ge.advance(until);
                }
                for (i, mean) in [rg, rb].into_iter().enumerate() {
                    let m = sum[i] / f64::from(n[i]);
                    assert!(
                        (m / mean - 1.0).abs() < 0.02,
                        "{link} ({rg}, {rb}) state {i}: {m}"
                    );
                }
            }
        }
    }
}
