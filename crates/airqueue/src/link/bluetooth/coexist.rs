//! A piconet on the shared 2.4 GHz spectrum: its hops, its packets' interference losses,
//! and the two coexistence mechanisms of seed 000 §5.4 — AFH and BIAS.
//!
//! Every baseband packet (POLL and NULL too) is registered on its hop's 1 MHz band
//! ([`Band::bluetooth_hop`]) for its air time ([`PacketType::air_time`]); the master's
//! packet is on the channel of its first slot, the slave's answer on the channel of its
//! own first slot, or on the master's with AFH (same-channel mechanism). A data packet's
//! survival is asked at its receiver: GFSK's BER at each segment's SINR
//! ([`Modulation::Gfsk`]) on its payload bits (the thesis's §4.2.1 rule, which the
//! piconet's own channel uses too), or per (15,10) codeword for DM; the interference loss
//! is drawn independently of the link's own channel (the piconet's stream
//! `piconet:<name>:air`). POLL/NULL are never lost, as on the link's own channel.
//!
//! **Modes** (`coexistence` of a piconet):
//! - plain hopping over all 79 channels;
//! - **AFH**: the [`Classifier`] (window, PER threshold) feeds a channel map of the good
//!   channels (at least 20) that the hop sequence is remapped onto as soon as a window
//!   closes (the LMP exchange and the AFH instant are not modelled);
//! - **BIAS** (Golmie et al., ref. [20] of seed 000; ALGORITHMS.md §7): the hop set stays
//!   79 channels; the master does not start a frame whose own hop or whose reply hop is
//!   classified bad: it stays silent for that slot pair and tries again at the next even
//!   slot. The classification is the piconet's (its members are colocated, so one map
//!   serves every slave): serving another slave instead, as BIAS may, would meet the same
//!   bad hops, so idling is what BIAS does here.

use super::baseband::PacketType;
use super::hopping::{Classifier, Hopping};
use crate::channel::{Band, Modulation};
use crate::engine::SimTime;
use crate::link::air::Air;
use crate::metrics::{Column, Table};

/// How a piconet on a spectrum avoids interference.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Avoidance {
    /// Plain 79-channel hopping.
    None,
    /// Adaptive frequency hopping (Core 1.2).
    Afh,
    /// Interference-aware master scheduling.
    Bias,
}

impl Avoidance {
    pub fn parse(s: &str) -> Option<Avoidance> {
        match s {
            "none" => Some(Avoidance::None),
            "afh" => Some(Avoidance::Afh),
            "bias" => Some(Avoidance::Bias),
            _ => None,
        }
    }
}

/// The classifier's defaults: a channel is bad when more than half its packets over 2 s
/// were lost. With saturated 802.11b traffic an overlapped channel loses most packets and
/// a clean one only its own channel's share, so any threshold between them separates
/// the two; one half is the midpoint.
pub const DEFAULT_THRESHOLD: f64 = 0.5;
pub const DEFAULT_INTERVAL: SimTime = SimTime::from_secs(2);

/// Counters of the piconet's air (from the warm-up on).
#[derive(Copy, Clone, Debug, Default)]
pub struct AirStats {
    /// Data packets received, and those the interference destroyed.
    pub packets: u64,
    pub interfered: u64,
    /// Frames BIAS kept silent.
    pub deferred: u64,
}

/// A piconet's radios on the spectrum.
pub struct PiconetAir {
    pub air: Air,
    pub hopping: Hopping,
    pub classifier: Classifier,
    pub mode: Avoidance,
    /// The channel of the current frame's master packet.
    master_ch: u8,
    pub stats: AirStats,
}

impl PiconetAir {
    pub fn new(air: Air, hopping: Hopping, classifier: Classifier, mode: Avoidance) -> Self {
        PiconetAir {
            air,
            hopping,
            classifier,
            mode,
            master_ch: 0,
            stats: AirStats::default(),
        }
    }

    /// BIAS: whether the master should keep the frame starting at `t` silent (its hop or
    /// the reply hop after `master_slots` slots is classified bad).
    pub fn defer(&mut self, t: SimTime, master_slots: u64, counting: bool) -> bool {
        if self.mode != Avoidance::Bias {
            return false;
        }
        let n = Hopping::slot_of(t);
        let bad = self.classifier.is_bad(self.hopping.channel(n))
            || self
                .classifier
                .is_bad(self.hopping.channel(n + master_slots));
        if bad && counting {
            self.stats.deferred += 1;
        }
        bad
    }

    /// The master (port 0) starts its packet `ty` of `bytes` at `t`.
    pub fn master_sends(&mut self, t: SimTime, ty: PacketType, bytes: u32) {
        let ch = self.hopping.channel(Hopping::slot_of(t));
        self.master_ch = ch;
        self.air
            .register(0, t, t + ty.air_time(bytes), Band::bluetooth_hop(ch));
    }

    /// The channel of the slave's answer starting at `t`.
    fn answer_channel(&self, t: SimTime) -> u8 {
        if self.mode == Avoidance::Afh {
            self.master_ch
        } else {
            self.hopping.channel(Hopping::slot_of(t))
        }
    }

    /// Slave port `port` answers at `t` with `ty` of `bytes`.
    pub fn slave_sends(&mut self, port: usize, t: SimTime, ty: PacketType, bytes: u32) {
        let ch = self.answer_channel(t);
        self.air
            .register(port, t, t + ty.air_time(bytes), Band::bluetooth_hop(ch));
    }

    /// A data packet from port `from` to port `to` sent at `t` (the master's if `from` is
    /// 0) was received at `now`; `own_loss`: the link's own channel lost it. Returns
    /// whether the interference destroyed it, and feeds the classification.
    #[allow(clippy::too_many_arguments)]
    pub fn received(
        &mut self,
        from: usize,
        to: usize,
        t: SimTime,
        ty: PacketType,
        bytes: u32,
        own_loss: bool,
        now: SimTime,
        counting: bool,
    ) -> bool {
        let ch = if from == 0 {
            self.master_ch
        } else {
            self.answer_channel(t)
        };
        let band = Band::bluetooth_hop(ch);
        let end = t + ty.air_time(bytes);
        let (bits, cws) = (ty.error_bits() as f64, ty.codewords() as f64);
        let fec = ty.fec_2_3();
        let p = self.air.survival(from, to, t, end, band, |sinr, share| {
            let b = Modulation::Gfsk.ber(sinr);
            if fec {
                let q = 1.0 - b;
                let cw = q.powi(15) + 15.0 * b * q.powi(14);
                cw.powf(cws * share)
            } else {
                (1.0 - b).powf(bits * share)
            }
        });
        let lost = !self.air.draw(p, counting);
        if counting {
            self.stats.packets += 1;
            self.stats.interfered += u64::from(lost);
        }
        if self.mode != Avoidance::None
            && self.classifier.observe(ch, lost || own_loss, now)
            && self.mode == Avoidance::Afh
        {
            let map = self.classifier.afh_map();
            self.hopping.set_map(&map);
        }
        lost
    }

    /// One row of the `piconet_air` table: the mode, channels in use and classified bad
    /// at the end, data packets received and lost to interference, frames BIAS deferred.
    pub fn append_row(&self, name: &str, t: &mut Table) {
        let mode = match self.mode {
            Avoidance::None => "none",
            Avoidance::Afh => "afh",
            Avoidance::Bias => "bias",
        };
        let cols: Vec<(&str, Column)> = vec![
            ("piconet", Column::Str(vec![name.to_string()])),
            ("coexistence", Column::Str(vec![mode.to_string()])),
            (
                "used_channels",
                Column::U64(vec![self.hopping.used() as u64]),
            ),
            (
                "bad_channels",
                Column::U64(vec![self.classifier.bad_count() as u64]),
            ),
            ("packets", Column::U64(vec![self.stats.packets])),
            ("interfered", Column::U64(vec![self.stats.interfered])),
            ("deferred_frames", Column::U64(vec![self.stats.deferred])),
        ];
        if t.columns.is_empty() {
            for (n, c) in cols {
                t.push(n, c);
            }
            return;
        }
        for ((_, dst), (_, src)) in t.columns.iter_mut().zip(cols) {
            match (dst, src) {
                (Column::Str(a), Column::Str(b)) => a.extend(b),
                (Column::U64(a), Column::U64(b)) => a.extend(b),
                _ => unreachable!("piconet_air columns agree"),
            }
        }
    }
}
