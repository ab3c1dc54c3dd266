//! An 802.11b/g cell on the shared 2.4 GHz spectrum (Bluetooth coexistence, seed 000
//! §5.4; Golmie, Van Dyck and Soltanian, MSWiM 2001): the cell's frames are registered on
//! its channel's 22 MHz band, and a data frame that its own channel let through is asked
//! at its end whether the interference destroyed it.
//!
//! The hook is small on purpose and inert unless a cell is attached: the medium calls
//! [`CellAir::exchange`] when an exchange starts (registering RTS, CTS and DATA, or the
//! first frames of a collision) and [`CellAir::settle`] when the data frame has ended —
//! then every Bluetooth packet that overlapped it has been registered (each is registered
//! when it starts). A destroyed frame is not acknowledged: the exchange ends at the data
//! frame, the others resume after EIFS, and the sender retries, exactly as after a frame
//! its own channel corrupted. A frame that survives is followed by its ACK, which is
//! registered then. The survival is `Π_seg (1 − BER(SINR_seg))^(bits·share_seg)` over the
//! MPDU's bits with the BER curve of the frame's rate (ns-3's DSSS/CCK curves, the channel
//! module's [`Modulation`]); a Bluetooth hop inside the 22 MHz band adds all its power.
//! Control frames (RTS, CTS, ACK) interfere but are not themselves checked (as the cell's
//! own error models leave them intact). Draws come from the stream
//! `cell:<name>:air`.

use crate::channel::{Band, Modulation};
use crate::engine::SimTime;
use crate::link::air::Air;

/// A data frame waiting for its verdict.
#[derive(Copy, Clone, Debug)]
struct Pending {
    from: usize,
    to: usize,
    start: SimTime,
    end: SimTime,
    bits: u64,
    kbps: u32,
}

/// A cell's radios on the spectrum.
pub struct CellAir {
    pub air: Air,
    band: Band,
    pending: Option<Pending>,
    /// BERs computed so far, `(kbps, SINR bits, BER)`: radios stand still, so a run meets
    /// few distinct SINRs, and the CCK curves integrate numerically (no recomputation on
    /// the hot path; at most [`BER_CACHE`] entries, then computed each time).
    cache: Vec<(u32, u64, f64)>,
}

const BER_CACHE: usize = 256;

/// The modulation of an 802.11b/g rate (kbit/s).
fn modulation(kbps: u32) -> Modulation {
    match kbps {
        1_000 => Modulation::Dsss1,
        2_000 => Modulation::Dsss2,
        5_500 => Modulation::Cck5_5,
        11_000 => Modulation::Cck11,
        k => Modulation::Ofdm((k / 1000) as u8),
    }
}

impl CellAir {
    /// The cell on 2.4 GHz channel `channel` (1 … 14).
    pub fn new(air: Air, channel: u8) -> Self {
        CellAir {
            air,
            band: Band::wlan_11b(channel),
            pending: None,
            cache: Vec::with_capacity(BER_CACHE),
        }
    }

    /// Port `p` sends a frame on `[start, end)`.
    pub fn frame(&self, p: usize, start: SimTime, end: SimTime) {
        self.air.register(p, start, end, self.band);
    }

    /// A lone exchange from `p` to `q` starts: the RTS and CTS (if `cts_end` is past
    /// `start`, the RTS ending at `rts_end`) and the data frame on `[data_start,
    /// data_end)` are registered; `check`: the data frame's own channel let it through,
    /// so it is asked about at its end.
    #[allow(clippy::too_many_arguments)]
    pub fn exchange(
        &mut self,
        p: usize,
        q: usize,
        start: SimTime,
        rts_end: SimTime,
        cts: (SimTime, SimTime),
        data: (SimTime, SimTime),
        bits: u64,
        kbps: u32,
        check: bool,
    ) {
        if rts_end > start {
            self.frame(p, start, rts_end);
            self.frame(q, cts.0, cts.1);
        }
        self.frame(p, data.0, data.1);
        self.pending = check.then_some(Pending {
            from: p,
            to: q,
            start: data.0,
            end: data.1,
            bits,
            kbps,
        });
    }

    /// The data frame of the exchange ended (now): `Some(true)` if the interference
    /// destroyed it, `Some(false)` if it survived (its ACK, from `ack_start` for
    /// `ack_len`, is registered), `None` if nothing was waiting.
    pub fn settle(&mut self, ack_start: SimTime, ack_len: SimTime, counting: bool) -> Option<bool> {
        let w = self.pending.take()?;
        let m = modulation(w.kbps);
        let bits = w.bits as f64;
        let cache = &mut self.cache;
        let p = self
            .air
            .survival(w.from, w.to, w.start, w.end, self.band, |sinr, share| {
                let key = (w.kbps, sinr.to_bits());
                let ber = match cache.iter().find(|c| (c.0, c.1) == key) {
                    Some(c) => c.2,
                    None => {
                        let b = m.ber(sinr);
                        if cache.len() < BER_CACHE {
                            cache.push((key.0, key.1, b));
                        }
                        b
                    }
                };
                (1.0 - ber).powf(bits * share)
            });
        let ok = self.air.draw(p, counting);
        if ok {
            self.frame(w.to, ack_start, ack_start + ack_len);
        }
        Some(!ok)
    }

    /// The ACK rate's frame length lookup needs the data rate of the waiting frame.
    pub fn pending_kbps(&self) -> Option<u32> {
        self.pending.map(|w| w.kbps)
    }
}
