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
//! `piconet:<name>:air`).
//!
//! **POLL and NULL** (Core v1.1 Vol. 2 Part B §4.4.1: one-slot packets of access code
//! and header only, 126 µs) are on the air too — in data frames and in the idle
//! POLL/NULL cycle (see the piconet's docs) — and can be destroyed
//! ([`PiconetAir::control_survives`]): the receiver must find the 72-bit access code
//! (*choice*: all of it intact; the correlator's tolerance is left to implementations,
//! §6.3.3) and decode the header, 18 bits each sent three times and decoded by majority
//! (§7.4: a bit is wrong when two or three of its copies are, `3b² − 2b³`), at each
//! segment's SINR with GFSK's BER, the bits shared out over the segments by time as for
//! data. Their draws come from a stream of their own (`piconet:<name>:air-control`), so
//! data packets see the same draws as before. The link's own channel never loses them
//! (its errors are payload bit errors). The AFH/BIAS classification counts data packets
//! only, as before.
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
use crate::engine::{SimRng, SimTime};
use crate::link::air::Air;
use crate::metrics::{Column, Table};
use rand::Rng;

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
    /// POLLs and NULLs sent to a receiver, and those the interference destroyed.
    pub polls: u64,
    pub polls_interfered: u64,
    pub nulls: u64,
    pub nulls_interfered: u64,
}

/// A piconet's radios on the spectrum.
pub struct PiconetAir {
    pub air: Air,
    pub hopping: Hopping,
    pub classifier: Classifier,
    pub mode: Avoidance,
    /// The channel of the current frame's master packet.
    master_ch: u8,
    /// Draws for POLL/NULL survival.
    control_rng: SimRng,
    pub stats: AirStats,
}

impl PiconetAir {
    pub fn new(
        air: Air,
        hopping: Hopping,
        classifier: Classifier,
        mode: Avoidance,
        control_rng: SimRng,
    ) -> Self {
        PiconetAir {
            air,
            hopping,
            classifier,
            mode,
            master_ch: 0,
            control_rng,
            stats: AirStats::default(),
        }
    }

    /// BIAS: whether the frame starting at `t` has a hop classified bad (its master slot
    /// or the reply slot after it), without counting it: an idle POLL/NULL frame the
    /// master keeps silent.
    pub fn idle_frame_silent(&self, t: SimTime) -> bool {
        if self.mode != Avoidance::Bias {
            return false;
        }
        let n = Hopping::slot_of(t);
        self.classifier.is_bad(self.hopping.channel(n))
            || self.classifier.is_bad(self.hopping.channel(n + 1))
    }

    /// The channel of the master's packet at `t` and of the answer in the next slot
    /// (AFH's same-channel mechanism: the master's).
    pub fn frame_channels(&self, t: SimTime) -> (u8, u8) {
        let n = Hopping::slot_of(t);
        let m = self.hopping.channel(n);
        let a = if self.mode == Avoidance::Afh {
            m
        } else {
            self.hopping.channel(n + 1)
        };
        (m, a)
    }

    /// Registers an idle POLL (master, at `t`) and NULL (slave port `port`, one slot
    /// later) on their channels.
    pub fn register_idle_frame(&mut self, port: usize, t: SimTime) {
        let (m, a) = self.frame_channels(t);
        let poll = PacketType::Poll.air_time(0);
        self.air.register(0, t, t + poll, Band::bluetooth_hop(m));
        let t1 = t + super::baseband::SLOT;
        self.air
            .register(port, t1, t1 + poll, Band::bluetooth_hop(a));
    }

    /// Forgets the piconet's registered transmissions that start at or after `from`
    /// (idle POLL/NULL frames registered ahead that a data frame replaces).
    pub fn retract_from(&mut self, from: SimTime) {
        self.air.retract_all(from);
    }

    /// Whether a POLL (from the master, port 0) or NULL from port `from` to port `to`, sent
    /// at `t` on channel `ch`, survives the interference (module docs); counted when
    /// `counting`.
    pub fn control_survives(
        &mut self,
        from: usize,
        to: usize,
        t: SimTime,
        ch: u8,
        counting: bool,
    ) -> bool {
        let end = t + PacketType::Poll.air_time(0);
        let p = self
            .air
            .survival(from, to, t, end, Band::bluetooth_hop(ch), |sinr, share| {
                let b = Modulation::Gfsk.ber(sinr);
                let h = 3.0 * b * b - 2.0 * b * b * b;
                ((1.0 - b).powf(72.0) * (1.0 - h).powf(18.0)).powf(share)
            });
        let ok = p >= 1.0 || self.control_rng.random::<f64>() < p;
        if counting {
            let (n, lost) = if from == 0 {
                (&mut self.stats.polls, &mut self.stats.polls_interfered)
            } else {
                (&mut self.stats.nulls, &mut self.stats.nulls_interfered)
            };
            *n += 1;
            *lost += u64::from(!ok);
        }
        ok
    }

    /// The channel of the current frame's master packet.
    pub fn master_channel(&self) -> u8 {
        self.master_ch
    }

    /// The channel of the slave's answer starting at `t`.
    pub fn reply_channel(&self, t: SimTime) -> u8 {
        self.answer_channel(t)
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
            ("polls", Column::U64(vec![self.stats.polls])),
            (
                "polls_interfered",
                Column::U64(vec![self.stats.polls_interfered]),
            ),
            ("nulls", Column::U64(vec![self.stats.nulls])),
            (
                "nulls_interfered",
                Column::U64(vec![self.stats.nulls_interfered]),
            ),
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
