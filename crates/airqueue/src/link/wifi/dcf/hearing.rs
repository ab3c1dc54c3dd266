//! Partial hearing in an 802.11 medium: hidden terminals, exposed stations, co-channel
//! pairs out of each other's range, stations walking out of range.
//!
//! # Who hears whom ([`Hearing`])
//!
//! For each (transmitter, receiver) pair a level: the receiver **decodes** the frame (its
//! received power reaches the receive threshold: it locks on, and if nothing else overlaps
//! it reads the frame, honours its Duration field and answers it), only **senses** it
//! (above the carrier-sense threshold: the medium is busy for it and, the frame being
//! undecodable, it waits EIFS afterwards, IEEE 802.11-2016 §10.3.2.3.7), or does not hear
//! it at all. The levels come from an explicit graph (`hears`, `senses`) or from positions:
//! P_rx = P_tx − L(d) with the channel module's path loss, computed at each frame's start
//! when nodes move (no tick events).
//!
//! # The medium, per station
//!
//! With partial hearing there is no shared slot reference: each port keeps its own view
//! of the medium, as a real radio does.
//!
//! - **Carrier sense** (§10.3.2.1): a port is busy while it transmits or senses any frame;
//!   the **NAV** (§10.3.2.4) is set from the Duration field of every frame it decodes that
//!   is addressed to another port (RTS: CTS + DATA + ACK + 3 SIFS; CTS: DATA + ACK + 2 SIFS;
//!   DATA: SIFS + ACK), and a NAV set by an RTS is reset when no reception starts within
//!   2 SIFS + CTS + the PLCP preamble and header + 2 slots after the RTS (§10.3.2.4, as
//!   ns-3's `NavResetTimeout`).
//! - **Back-off**, event-driven as in the shared-slot model: a port's reference is the end
//!   of its last busy period (physical or NAV) plus DIFS, or EIFS after a frame it sensed
//!   but did not decode correctly; a counter `b` expires at `reference + b·slot`; when the
//!   port becomes busy the wholly idle slots are subtracted and the counter freezes. One
//!   timer at the earliest expiry of all ports; no event per slot.
//! - **Reception**: a port locks onto a decodable frame that starts while it is idle (not
//!   transmitting, sensing nothing). Any other frame it senses while locked, or its own
//!   transmission starting, destroys the locked frame (no capture: the first frame is
//!   lost however strong it is, and the later one is never locked onto). A data frame
//!   received cleanly may still be corrupted by the link's bit errors (`ber`, `snr_db`, or
//!   with positions the SNR of the frame at its PHY rate); control frames are not.
//! - **Reception with capture** (`capture = "sinr"`, [`Capture`]), as ns-3 3.37's
//!   `PhyEntity` and `InterferenceHelper`: a port that is not transmitting and not locked
//!   locks onto a decodable frame even while it senses others (they are interference);
//!   among frames starting within the 4 µs preamble detection window it keeps the
//!   strongest (equal powers starting together: one drawn uniformly). Every later frame
//!   (and every frame below the thresholds whose power is known) is interference. At the
//!   frame's end the PLCP header and then the payload survive with probability
//!   Π (1 − BER(SINR_i))^bits_i over the intervals i between the starts and ends of the
//!   overlapping frames, SINR = S / (N + Σ I), the BER of the field's modulation (the
//!   channel module's curves, ns-3's DSSS and NIST models), one uniform draw each from
//!   the port's stream `cell:<cell>:capture:<interface>`. A failed header is no
//!   reception (ns-3 aborts: no EIFS, and the port may lock onto a frame starting after
//!   the header: the header is judged when such a frame starts, its overlaps being known
//!   by then), a failed payload is (EIFS); a port's own transmission aborts its reception
//!   (no EIFS). Optionally ns-3's frame capture: a frame
//!   ≥ 5 dB stronger than the locked one, starting within 16 µs after its preamble
//!   detection, takes over.
//! - **Exchanges** frame by frame: RTS → (receiver answers with CTS after SIFS if it
//!   decoded the RTS and its NAV is idle, §10.3.2.7) → DATA after SIFS → ACK after SIFS
//!   (always sent for a decoded data frame). A receiver in the middle of its own exchange
//!   (waiting for its CTS or ACK) answers neither. The sender's **CTS/ACK timeout** is
//!   SIFS, a slot and the response's PLCP preamble and header (§10.3.2.7, §10.3.2.9;
//!   ns-3's timeouts); it fails then if no response comes, or at the end of a response it
//!   could not decode. After a timeout it backs off from timeout + DIFS (ns-3's
//!   `ChannelAccessManager`).
//! - **Delivery** at the end of the decoded data frame; if the ACK is then lost the sender
//!   retransmits and the receiver discards the duplicate (§10.3.2.14), acknowledging it
//!   again: a packet is delivered once, and its later discard at the retry limit is no
//!   drop.
//! - **Failures** are counted as the model knows their cause: an overlap at the receiver
//!   (or a receiver that could not answer: busy, transmitting, its NAV set) is a
//!   `collision`, a bit error a `channel_error`, a receiver that does not decode the sender
//!   at all (out of range) is neither; a frame discarded after a mix of causes, or after
//!   attempts that went unanswered, is dropped as `retry_limit`.
//!
//! Not modelled here: EDCA (QoS cells), the shared Bluetooth spectrum and propagation
//! delay (0, as in the shared-slot model); validation refuses the first two. With capture,
//! when nodes move a frame's power at a port is taken once (when it starts, or when the
//! port locks onto another frame while it is on the air), not per chunk.

use super::channel_access::Deferral;
use super::{Cell, Outcome, NO_AP};
use crate::channel::modulation::Modulation;
use crate::channel::{BitErrors, PathLoss, Track};
use crate::engine::{stream, SimRng, SimTime};
use crate::link::wifi::phy::{Phy, CTS_BYTES, RTS_BYTES};
use crate::link::{LinkCtx, LinkEffect};
use crate::packet::PacketId;
use rand::Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The event key of the per-station medium's agenda.
pub(super) const HX_EVENT: u16 = u16::MAX;

const NONE: u32 = u32::MAX;

/// Agenda phases at one instant: frame ends first, then timeouts and NAV resets, then the
/// frames that start (responses and expired back-offs together).
const END: u8 = 0;
const TIMEOUT: u8 = 1;
const NAV_RESET: u8 = 2;
const START: u8 = 3;

/// ns-3's default radio one metre away: 16.0206 dBm − 46.6777 dB (its
/// `YansWifiPhy` and `LogDistancePropagationLossModel` defaults), the received power of
/// every frame under capture when the map has no powers (no positions). The geometry of
/// `tools/ns3/wifi_saturation.cc` (stations on a 1 m circle round the AP).
pub const NOMINAL_RX_DBM: f64 = 16.0206 - 46.6777;

/// ns-3's preamble detection window (`WifiPhy::GetPreambleDetectionDuration`, 4 µs): of
/// the frames that start within it, a receiver keeps the strongest.
const PREAMBLE_DETECTION: SimTime = SimTime(4_000);

/// SINR-based reception (see the module doc): noise powers and the power of frames whose
/// power the map does not know, in mW, and ns-3's frame capture (margin dB, window).
#[derive(Clone, Copy, Debug)]
pub struct Capture {
    pub noise_dsss_mw: f64,
    pub noise_ofdm_mw: f64,
    pub nominal_mw: f64,
    /// `SimpleFrameCaptureModel`: (`Margin` 5 dB, `CaptureWindow` 16 µs) when on.
    pub frame_capture: Option<(f64, SimTime)>,
}

/// dBm to mW.
pub fn dbm_to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

/// How a receiver hears a transmitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Not at all.
    None,
    /// Busy, not decodable (EIFS afterwards).
    Sense,
    /// Decodable.
    Decode,
}

/// Radio parameters for levels from positions.
#[derive(Clone, Copy, Debug)]
pub struct RadioModel {
    pub tx_power_dbm: f64,
    pub path_loss: PathLoss,
    pub rx_threshold_dbm: f64,
    pub cs_threshold_dbm: f64,
    /// Noise floor, dBm, of a DSSS (22 MHz) and an OFDM (20 MHz) receiver.
    pub noise_dsss_dbm: f64,
    pub noise_ofdm_dbm: f64,
}

impl RadioModel {
    fn level(&self, dbm: f64) -> Level {
        if dbm >= self.rx_threshold_dbm {
            Level::Decode
        } else if dbm >= self.cs_threshold_dbm {
            Level::Sense
        } else {
            Level::None
        }
    }
}

/// Who hears whom among a medium's ports.
pub struct Hearing {
    n: usize,
    /// Per (transmitter · n + receiver): the level and the received power (dBm; NaN from a
    /// graph). Unused when nodes move.
    fixed: Vec<(Level, f64)>,
    /// Per port: its node's track, when some node moves.
    tracks: Option<Vec<Track>>,
    radio: Option<RadioModel>,
}

impl Hearing {
    /// An explicit graph: `level(p, r)` for ports `p` → `r`.
    pub fn graph(n: usize, level: impl Fn(usize, usize) -> Level) -> Hearing {
        let mut fixed = Vec::with_capacity(n * n);
        for p in 0..n {
            for r in 0..n {
                fixed.push((level(p, r), f64::NAN));
            }
        }
        Hearing {
            n,
            fixed,
            tracks: None,
            radio: None,
        }
    }

    /// Levels from each port's track and the radio model.
    pub fn positions(tracks: Vec<Track>, radio: RadioModel) -> Hearing {
        let n = tracks.len();
        let mut h = Hearing {
            n,
            fixed: Vec::new(),
            tracks: None,
            radio: Some(radio),
        };
        if tracks.iter().any(|t| t.moves()) {
            h.tracks = Some(tracks);
        } else {
            for p in 0..n {
                for r in 0..n {
                    h.fixed.push(h.compute(&tracks, p, r, SimTime::ZERO));
                }
            }
        }
        h
    }

    fn compute(&self, tracks: &[Track], p: usize, r: usize, t: SimTime) -> (Level, f64) {
        let radio = self.radio.as_ref().expect("positions have a radio model");
        let d = tracks[p].position_at(t).distance(&tracks[r].position_at(t));
        let dbm = radio.tx_power_dbm - radio.path_loss.loss_db(d);
        (radio.level(dbm), dbm)
    }

    /// The level and received power of `p`'s frame at `r` at `t`.
    #[inline]
    pub fn at(&self, p: usize, r: usize, t: SimTime) -> (Level, f64) {
        match &self.tracks {
            None => self.fixed[p * self.n + r],
            Some(tr) => self.compute(tr, p, r, t),
        }
    }

    /// Whether every port decodes every other, always (then the shared-slot model applies).
    pub fn complete(&self) -> bool {
        self.tracks.is_none()
            && (0..self.n).all(|p| {
                (0..self.n).all(|r| p == r || self.fixed[p * self.n + r].0 == Level::Decode)
            })
    }

    /// Whether received powers are known (positions): frame errors can follow the SNR.
    pub fn has_powers(&self) -> bool {
        self.radio.is_some()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Rts,
    Cts,
    Data,
    Ack,
}

/// A port that heard a frame: whether it was not transmitting when the frame began (so
/// its PHY tried to receive it) and whether it could decode it.
#[derive(Clone, Copy, Debug)]
struct Hear {
    r: u32,
    tried: bool,
    level: Level,
}

/// A frame's received power at a port, mW (capture): the map's, or the nominal power for a
/// pair that hears without a known power.
#[inline]
fn power_mw(cap: &Capture, level: Level, dbm: f64) -> f64 {
    if dbm.is_finite() {
        dbm_to_mw(dbm)
    } else if level != Level::None {
        cap.nominal_mw
    } else {
        0.0
    }
}

/// A frame on the air (or scheduled to start).
struct Frame {
    kind: Kind,
    from: u32,
    to: u32,
    start: SimTime,
    end: SimTime,
    /// Its PHY rate (capture: the payload's modulation).
    kbps: u32,
    /// End of the NAV its Duration field sets.
    nav_end: SimTime,
    audience: Vec<Hear>,
    /// Received power at `to` (NaN from a graph).
    to_dbm: f64,
}

/// The frame exchange a port has started.
#[derive(Clone, Copy, Debug)]
struct Exch {
    k: u32,
    q: u32,
    pkt: PacketId,
    mpdu: u32,
    kbps: u32,
    rts: bool,
    /// The data frame has been sent (failures count on the long retry counter after RTS).
    data_stage: bool,
    /// What a timeout will count as.
    cause: Outcome,
    /// Air time of the exchange so far.
    air: SimTime,
}

/// One port's view of the medium.
#[derive(Clone, Debug)]
struct Radio {
    /// Frames on the air it senses (not its own).
    sensed: u32,
    tx_until: SimTime,
    /// The frame it is locked onto, and whether nothing has overlapped it.
    rx: u32,
    rx_clean: bool,
    /// The last frame it tried to receive was not decoded: EIFS.
    eifs: bool,
    /// A NAV set by an RTS that ended at `.0`, reset at `.1` if no reception starts.
    nav_rts: Option<(SimTime, SimTime)>,
    last_rx_start: SimTime,
    /// Capture: the locked frame's start, end and power (mW), how many frames of equal
    /// power started with it (a uniform pick among them), and the frames overlapping it
    /// (start, end, power at this port, mW).
    rx_start: SimTime,
    rx_end: SimTime,
    rx_mw: f64,
    rx_ties: u32,
    /// The locked frame's PLCP header has been judged (and survived).
    rx_hdr_ok: bool,
    intf: Vec<(SimTime, SimTime, f64)>,
    /// Back-off reference: physically idle since + DIFS/EIFS, and the NAV.
    access: Deferral,
    /// Its back-off counters are running (idle).
    counting: bool,
    exch: Option<Exch>,
}

impl Default for Radio {
    fn default() -> Self {
        Radio {
            sensed: 0,
            tx_until: SimTime::ZERO,
            rx: NONE,
            rx_clean: false,
            eifs: false,
            nav_rts: None,
            last_rx_start: SimTime::ZERO,
            rx_start: SimTime::ZERO,
            rx_end: SimTime::ZERO,
            rx_mw: 0.0,
            rx_ties: 0,
            rx_hdr_ok: false,
            intf: Vec::new(),
            access: Deferral::default(),
            counting: true,
            exch: None,
        }
    }
}

/// The per-station medium state of a [`Cell`] with partial hearing.
pub struct Spatial {
    map: Hearing,
    radios: Vec<Radio>,
    frames: Vec<Frame>,
    free: Vec<u32>,
    agenda: BinaryHeap<Reverse<(SimTime, u8, u64, u32)>>,
    seq: u64,
    starting: Vec<u32>,
    /// Per port: its link's data-frame errors follow the SNR at its distance (positions,
    /// and no `ber`/`snr_db` of its own).
    auto_snr: Vec<bool>,
    /// BER(SNR) of each rate on a 0.01 dB grid, filled when first asked.
    ber: BerGrid,
    /// Per channel-access function: its head frame as read once.
    heads: Vec<Head>,
    /// SINR-based reception, if on; then the frames on the air, each port's draws and a
    /// scratch list of interval boundaries.
    capture: Option<Capture>,
    on_air: Vec<u32>,
    rx_rng: Vec<SimRng>,
    cuts: Vec<SimTime>,
}

/// A function's head frame: its MPDU bytes and receiver port, read from the packet once
/// (the packet leaves the arena when it is delivered, before its ACK comes back), and
/// whether it has been delivered (a retransmission after a lost ACK is a duplicate).
#[derive(Clone, Copy, Debug, Default)]
struct Head {
    cached: Option<(u32, u32)>,
    delivered: bool,
}

/// BER(SNR) per PHY rate on a 0.01 dB grid from −20 to 60 dB, each point computed when
/// first needed (the CCK curves integrate numerically: far too slow per frame), and
/// interpolated log-linearly between points (relative error below 1 %: a fraction of a
/// percent of a PER).
#[derive(Default)]
struct BerGrid {
    tables: Vec<(u32, Vec<f64>)>,
    /// ln(1 − BER) per bit by (rate, SINR as a power ratio's bits): the chunks of a
    /// saturated cell repeat a few SINRs (one per sender, and per overlap), and this
    /// skips the log10, the two grid logarithms and the exp of each. A memo of a pure
    /// function: the values are those computed without it, bit for bit. Cleared when it
    /// reaches [`MEMO_MAX`] (moving stations give ever new SINRs).
    memo: rustc_hash::FxHashMap<(u32, u64), f64>,
}

/// Entries of [`BerGrid::memo`] before it starts afresh (~0.5 MB).
const MEMO_MAX: usize = 16_384;

const GRID_MIN_DB: f64 = -20.0;
const GRID_STEPS_PER_DB: f64 = 100.0;
const GRID_POINTS: usize = 8001;

impl BerGrid {
    fn point(&mut self, kbps: u32, i: usize) -> f64 {
        let t = match self.tables.iter().position(|(k, _)| *k == kbps) {
            Some(t) => t,
            None => {
                self.tables.push((kbps, vec![f64::NAN; GRID_POINTS]));
                self.tables.len() - 1
            }
        };
        let v = &mut self.tables[t].1[i];
        if v.is_nan() {
            let db = GRID_MIN_DB + i as f64 / GRID_STEPS_PER_DB;
            *v = modulation_of(kbps).ber(10f64.powf(db / 10.0));
        }
        *v
    }

    /// ln(1 − BER) of one bit at rate `kbps` and signal-to-interference-plus-noise power
    /// ratio `ratio` (memoized, see [`BerGrid::memo`]).
    fn ln_survive_per_bit(&mut self, kbps: u32, ratio: f64) -> f64 {
        let key = (kbps, ratio.to_bits());
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let e = self.ber(kbps, 10.0 * ratio.log10());
        let v = (-e).ln_1p();
        if self.memo.len() >= MEMO_MAX {
            self.memo.clear();
        }
        self.memo.insert(key, v);
        v
    }

    /// The BER of rate `kbps` at `snr_db`.
    fn ber(&mut self, kbps: u32, snr_db: f64) -> f64 {
        let x = ((snr_db - GRID_MIN_DB) * GRID_STEPS_PER_DB).clamp(0.0, (GRID_POINTS - 1) as f64);
        let i = (x.floor() as usize).min(GRID_POINTS - 2);
        let f = x - i as f64;
        let (a, b) = (self.point(kbps, i), self.point(kbps, i + 1));
        if a > 0.0 && b > 0.0 {
            (a.ln() * (1.0 - f) + b.ln() * f).exp()
        } else {
            a * (1.0 - f) + b * f
        }
    }
}

/// The probability that the `kbps` field between `from` and `to` of a frame received at
/// `s` mW survives noise `noise` mW and the frames `intf` (start, end, mW): the product
/// over the intervals between the frames' starts and ends of (1 − BER(SINR))^bits, SINR =
/// s / (noise + Σ overlapping powers), bits = the interval's duration × the rate (ns-3's
/// `InterferenceHelper::CalculatePayloadPer`, chunk by chunk, without its truncation of
/// each chunk's bits to an integer). `cuts` is scratch.
#[allow(clippy::too_many_arguments)]
fn success(
    intf: &[(SimTime, SimTime, f64)],
    cuts: &mut Vec<SimTime>,
    ber: &mut BerGrid,
    s: f64,
    noise: f64,
    from: SimTime,
    to: SimTime,
    kbps: u32,
) -> f64 {
    if to <= from {
        return 1.0;
    }
    if !intf.iter().any(|x| x.0 < to && x.1 > from) {
        // No frame overlaps: one chunk at the SNR (the general case below gives the same
        // value, bit for bit; most frames of a cell are received clean).
        let bits = (to - from).0 as f64 * kbps as f64 / 1e6;
        return (bits * ber.ln_survive_per_bit(kbps, s / noise)).exp();
    }
    cuts.clear();
    cuts.push(from);
    cuts.push(to);
    for &(a, b, _) in intf {
        for t in [a, b] {
            if t > from && t < to {
                cuts.push(t);
            }
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    let mut ln_p = 0.0;
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let i: f64 = intf
            .iter()
            .filter(|x| x.0 < b && x.1 > a)
            .map(|x| x.2)
            .sum();
        let per_bit = ber.ln_survive_per_bit(kbps, s / (noise + i));
        let bits = (b - a).0 as f64 * kbps as f64 / 1e6;
        ln_p += bits * per_bit;
    }
    ln_p.exp()
}

impl Spatial {
    /// The medium of `map`'s ports with `fns` channel-access functions.
    pub fn new(map: Hearing, auto_snr: Vec<bool>, fns: usize) -> Spatial {
        let n = map.n;
        Spatial {
            map,
            radios: vec![Radio::default(); n],
            frames: Vec::new(),
            free: Vec::new(),
            agenda: BinaryHeap::new(),
            seq: 0,
            starting: Vec::new(),
            auto_snr,
            ber: BerGrid::default(),
            heads: vec![Head::default(); fns],
            capture: None,
            on_air: Vec::new(),
            rx_rng: Vec::new(),
            cuts: Vec::new(),
        }
    }

    /// Turns on SINR-based reception; port `p` draws from `cell:<cell>:capture:<names[p]>`.
    pub fn set_capture(&mut self, cap: Capture, cell: &str, names: &[String], seed: u64) {
        self.capture = Some(cap);
        self.rx_rng = names
            .iter()
            .map(|n| stream(seed, &format!("cell:{cell}:capture:{n}")))
            .collect();
    }

    /// Whether port `p` senses the medium idle and is in no exchange.
    pub fn idle(&self, p: usize) -> bool {
        self.radios[p].counting
    }

    /// Whether function `k`'s head frame has been delivered (its ACK was lost).
    pub fn delivered(&self, k: usize) -> bool {
        self.heads[k].delivered
    }

    /// Function `k` has a new head frame (or none).
    pub fn new_head(&mut self, k: usize) {
        self.heads[k] = Head::default();
    }

    /// Whether function `k` of port `p` is in an exchange.
    pub fn busy_fn(&self, p: usize, k: usize) -> bool {
        self.radios[p].exch.is_some_and(|e| e.k as usize == k)
    }
}

/// The modulation of 802.11 rate `kbps`.
pub(super) fn modulation_of(kbps: u32) -> Modulation {
    match kbps {
        1_000 => Modulation::Dsss1,
        2_000 => Modulation::Dsss2,
        5_500 => Modulation::Cck5_5,
        11_000 => Modulation::Cck11,
        k => Modulation::Ofdm((k / 1000) as u8),
    }
}

fn frame_durations(phy: &Phy, mpdu: u32, kbps: u32) -> [SimTime; 4] {
    let ctl = phy.response_kbps(kbps);
    [
        phy.duration(RTS_BYTES, ctl),
        phy.duration(CTS_BYTES, ctl),
        phy.duration(mpdu, kbps),
        phy.ack_duration(kbps),
    ]
}

impl Cell {
    #[inline]
    fn hx(&mut self) -> &mut Spatial {
        self.hx.as_deref_mut().expect("a per-station medium")
    }

    fn hx_push(&mut self, cx: &mut LinkCtx<'_>, at: SimTime, phase: u8, id: u32) {
        let hx = self.hx();
        hx.seq += 1;
        let seq = hx.seq;
        hx.agenda.push(Reverse((at, phase, seq, id)));
        cx.schedule(at, HX_EVENT);
    }

    /// A frame of the exchange `ex` from `from` to `to` starting at `start`.
    fn hx_frame(&mut self, kind: Kind, from: usize, to: usize, start: SimTime, ex: &Exch) -> u32 {
        let [rts, cts, data, ack] = frame_durations(&self.phy, ex.mpdu, ex.kbps);
        let sifs = self.phy.sifs;
        let (dur, nav) = match kind {
            Kind::Rts => (rts, sifs + cts + sifs + data + sifs + ack),
            Kind::Cts => (cts, sifs + data + sifs + ack),
            Kind::Data => (data, sifs + ack),
            Kind::Ack => (ack, SimTime::ZERO),
        };
        let end = start + dur;
        let fkbps = if kind == Kind::Data {
            ex.kbps
        } else {
            self.phy.response_kbps(ex.kbps)
        };
        let hx = self.hx();
        let f = Frame {
            kind,
            from: from as u32,
            to: to as u32,
            start,
            end,
            kbps: fkbps,
            nav_end: end + nav,
            audience: Vec::new(),
            to_dbm: f64::NAN,
        };
        match hx.free.pop() {
            Some(id) => {
                let aud = std::mem::take(&mut hx.frames[id as usize].audience);
                hx.frames[id as usize] = Frame { audience: aud, ..f };
                id
            }
            None => {
                hx.frames.push(f);
                hx.frames.len() as u32 - 1
            }
        }
    }

    /// Function `k`'s head frame arrived at `now`: when does it send? (Never while its
    /// port is not counting: [`Self::hx_resume`] sets it then.)
    pub(super) fn hx_contend(&mut self, k: usize, now: SimTime) {
        let p = self.fns[k].port as usize;
        let rad = &self.hx.as_deref().unwrap().radios[p];
        let (idle, idle_from) = (rad.counting, rad.access.idle_from());
        let at =
            self.fns[k]
                .backoff
                .on_frame(&self.ifs, idle_from, now, idle, &mut self.sta[p].rng);
        self.fns[k].tx_at = if idle { at } else { SimTime::MAX };
    }

    /// Port `p` becomes busy at `now`: its counters lose the wholly idle slots and freeze.
    fn hx_freeze(&mut self, p: usize, now: SimTime) {
        let rad = &mut self.hx.as_deref_mut().unwrap().radios[p];
        if !rad.counting {
            return;
        }
        rad.counting = false;
        let idle_from = rad.access.idle_from();
        let s = &self.sta[p];
        for f in &mut self.fns[s.first as usize..(s.first + s.count) as usize] {
            f.backoff.freeze(&self.ifs, idle_from, now);
            f.tx_at = SimTime::MAX;
        }
    }

    /// Port `p` may count again (idle, in no exchange): its counters run from `idle_from`.
    fn hx_resume(&mut self, p: usize, now: SimTime) {
        let rad = &mut self.hx.as_deref_mut().unwrap().radios[p];
        if rad.sensed > 0 || rad.tx_until > now || rad.exch.is_some() {
            return;
        }
        rad.counting = true;
        let idle_from = rad.access.idle_from();
        let s = &self.sta[p];
        for f in &mut self.fns[s.first as usize..(s.first + s.count) as usize] {
            if !f.buf.is_empty() {
                f.tx_at = f.backoff.expiry(&self.ifs, idle_from);
            }
        }
    }

    /// Port `r`'s medium went idle at `now` (DIFS, or EIFS after an undecoded frame).
    fn hx_set_idle(&mut self, r: usize, now: SimTime, eifs: bool) {
        let ifs = self.ifs;
        self.hx().radios[r].access.medium_idle(&ifs, now, eifs);
        self.hx_resume(r, now);
    }

    /// An engine event or the timer: everything due now, in phase order.
    pub(super) fn hx_step(&mut self, cx: &mut LinkCtx<'_>) {
        let now = cx.now;
        loop {
            let hx = self.hx();
            let Some(&Reverse((t, phase, _, id))) = hx.agenda.peek() else {
                break;
            };
            if t > now || phase == START {
                break;
            }
            hx.agenda.pop();
            match phase {
                END => self.hx_end(id, cx),
                TIMEOUT => self.hx_timeout(id as usize, cx),
                _ => self.hx_nav_reset(id as usize, now),
            }
        }
        let mut starting = std::mem::take(&mut self.hx().starting);
        starting.clear();
        {
            let hx = self.hx();
            while let Some(&Reverse((t, START, _, id))) = hx.agenda.peek() {
                if t != now {
                    break;
                }
                hx.agenda.pop();
                starting.push(id);
            }
        }
        for k in 0..self.fns.len() {
            if self.fns[k].tx_at == now {
                self.fns[k].tx_at = SimTime::MAX;
                self.fns[k].backoff.clear();
                let id = self.hx_open(k, cx);
                starting.push(id);
            }
        }
        // Every frame starting now is on the air before any is heard: simultaneous
        // starters do not receive each other (they collide where both are heard).
        for &id in &starting {
            let hx = self.hx();
            let (from, end) = {
                let f = &hx.frames[id as usize];
                (f.from as usize, f.end)
            };
            let capture = hx.capture.is_some();
            let rad = &mut hx.radios[from];
            rad.tx_until = end;
            if rad.rx != NONE {
                rad.rx_clean = false;
                if capture {
                    // ns-3 aborts the reception (no EIFS follows).
                    rad.rx = NONE;
                    rad.intf.clear();
                }
            }
        }
        for &id in &starting {
            self.hx_begin(id, cx);
        }
        self.hx().starting = starting;
        self.rearm(cx);
    }

    /// Function `k`'s back-off expired: its exchange begins (RTS or DATA).
    fn hx_open(&mut self, k: usize, cx: &mut LinkCtx<'_>) -> u32 {
        let now = cx.now;
        let p = self.fns[k].port as usize;
        let pkt = *self.fns[k].buf.front().expect("a transmitter has a frame");
        let (mpdu, q) = match self.hx().heads[k].cached {
            Some(c) => c,
            None => {
                let (_, mpdu, q, _) = self.head(k, cx);
                let c = (mpdu, q as u32);
                self.hx().heads[k].cached = Some(c);
                c
            }
        };
        let q = q as usize;
        let kbps = self.attempt_kbps(k, q, cx);
        if !self.hx().heads[k].delivered {
            cx.tx_start(self.ports[p], pkt);
        }
        if self.fns[k].txop_from.is_none() && now >= self.stats_from {
            self.fns[k].stats.txops += 1;
        }
        let rts = mpdu > self.conf.rts_threshold;
        let ex = Exch {
            k: k as u32,
            q: q as u32,
            pkt,
            mpdu,
            kbps,
            rts,
            data_stage: !rts,
            cause: Outcome::Collision,
            air: SimTime::ZERO,
        };
        self.hx().radios[p].exch = Some(ex);
        self.hx_frame(if rts { Kind::Rts } else { Kind::Data }, p, q, now, &ex)
    }

    /// Frame `id` starts: it is heard (or sensed) by every port in range.
    fn hx_begin(&mut self, id: u32, cx: &mut LinkCtx<'_>) {
        let now = cx.now;
        let (kind, from, to, end) = {
            let f = &self.hx().frames[id as usize];
            (f.kind, f.from as usize, f.to as usize, f.end)
        };
        // Air time of the exchange: its frames and the SIFS before each response.
        let init = if matches!(kind, Kind::Rts | Kind::Data) {
            from
        } else {
            to
        };
        let gap = match kind {
            Kind::Rts => SimTime::ZERO,
            Kind::Data => {
                if self.hx().radios[init].exch.is_some_and(|e| e.rts) {
                    self.phy.sifs
                } else {
                    SimTime::ZERO
                }
            }
            _ => self.phy.sifs,
        };
        let air = (end - now) + gap;
        if let Some(e) = self.hx().radios[init].exch.as_mut() {
            e.air += air;
        }
        if now >= self.stats_from {
            self.sta[init].stats.airtime += air.0;
        }
        self.hx_freeze(from, now);
        self.hx_push(cx, end, END, id);
        let n = self.ports.len();
        let mut aud = std::mem::take(&mut self.hx().frames[id as usize].audience);
        aud.clear();
        let mut to_dbm = f64::NAN;
        let capture = self.hx().capture;
        for r in 0..n {
            if r == from {
                continue;
            }
            let (level, dbm) = self.hx().map.at(from, r, now);
            if level == Level::None {
                if let Some(cap) = &capture {
                    let mw = power_mw(cap, level, dbm);
                    let rad = &mut self.hx().radios[r];
                    if rad.rx != NONE && mw > 0.0 {
                        rad.intf.push((now, end, mw));
                    }
                }
                continue;
            }
            if r == to {
                to_dbm = dbm;
            }
            let transmitting = self.hx().radios[r].tx_until > now;
            if let (Some(cap), false) = (&capture, transmitting) {
                let mw = power_mw(cap, level, dbm);
                self.hx_capture_start(r, id, level, mw, *cap, now, end);
                self.hx().radios[r].last_rx_start = now;
            } else if !transmitting {
                let rad = &mut self.hx().radios[r];
                if rad.rx != NONE {
                    rad.rx_clean = false;
                } else if rad.sensed == 0 && level == Level::Decode {
                    rad.rx = id;
                    rad.rx_clean = true;
                }
                rad.last_rx_start = now;
            }
            let rad = &mut self.hx().radios[r];
            rad.sensed += 1;
            aud.push(Hear {
                r: r as u32,
                tried: !transmitting,
                level,
            });
            self.hx_freeze(r, now);
        }
        let hx = self.hx();
        if hx.capture.is_some() {
            hx.on_air.push(id);
        }
        let f = &mut hx.frames[id as usize];
        f.audience = aud;
        f.to_dbm = to_dbm;
    }

    /// Capture: frame `id` (received at `mw`, ending at `end`) starts at port `r`, which is
    /// not transmitting. An unlocked port locks onto it if it can decode it, the frames
    /// already on the air being interference; a locked port keeps the strongest of the
    /// frames starting within the preamble detection window (a uniform pick among equal
    /// ones), or with frame capture switches to one `margin` dB stronger within the
    /// capture window; every other frame is interference.
    #[allow(clippy::too_many_arguments)]
    fn hx_capture_start(
        &mut self,
        r: usize,
        id: u32,
        level: Level,
        mw: f64,
        cap: Capture,
        now: SimTime,
        end: SimTime,
    ) {
        if level == Level::Decode {
            self.hx_capture_header(r, now);
        }
        let hx = self.hx();
        let rad = &hx.radios[r];
        if rad.rx == NONE {
            if level != Level::Decode {
                return;
            }
            let mut intf = std::mem::take(&mut hx.radios[r].intf);
            intf.clear();
            for &o in &hx.on_air {
                let f = &hx.frames[o as usize];
                if f.from as usize == r {
                    continue;
                }
                let (l, dbm) = hx.map.at(f.from as usize, r, now);
                let p = power_mw(&cap, l, dbm);
                if p > 0.0 {
                    intf.push((f.start, f.end, p));
                }
            }
            let rad = &mut hx.radios[r];
            rad.intf = intf;
            rad.rx = id;
            rad.rx_clean = true;
            rad.rx_start = now;
            rad.rx_end = end;
            rad.rx_mw = mw;
            rad.rx_ties = 1;
            rad.rx_hdr_ok = false;
            return;
        }
        let in_window = now < rad.rx_start + PREAMBLE_DETECTION;
        let switch = if level != Level::Decode {
            false
        } else if in_window && mw > rad.rx_mw {
            hx.radios[r].rx_ties = 1;
            true
        } else if in_window && mw == rad.rx_mw {
            let rad = &mut hx.radios[r];
            rad.rx_ties += 1;
            let ties = rad.rx_ties;
            hx.rx_rng[r].random_range(0..ties) == 0
        } else if let Some((margin_db, window)) = cap.frame_capture {
            now <= rad.rx_start + PREAMBLE_DETECTION + window
                && 10.0 * (mw / rad.rx_mw).log10() >= margin_db
        } else {
            false
        };
        let rad = &mut hx.radios[r];
        if switch {
            let old = (rad.rx_start, rad.rx_end, rad.rx_mw);
            rad.intf.push(old);
            if !in_window {
                rad.rx_ties = 1;
            }
            rad.rx = id;
            rad.rx_start = now;
            rad.rx_end = end;
            rad.rx_mw = mw;
            rad.rx_hdr_ok = false;
        } else {
            rad.intf.push((now, end, mw));
        }
    }

    /// Capture: port `r`, locked onto a frame whose PLCP header ended by `now`, judges the
    /// header now if it has not yet (its overlaps are all known: no event at the header's
    /// end is needed). A failed header aborts the reception, as ns-3's `DsssPhy`/`OfdmPhy`
    /// do (`L_SIG_FAILURE`, ABORT): no EIFS follows and the port may lock onto a new frame.
    fn hx_capture_header(&mut self, r: usize, now: SimTime) {
        let (id, start, hdr_ok) = {
            let rad = &self.hx().radios[r];
            (rad.rx, rad.rx_start, rad.rx_hdr_ok)
        };
        if id == NONE || hdr_ok {
            return;
        }
        let kbps = self.hx().frames[id as usize].kbps;
        let (off, hdur, hkbps) = self.phy.header_field(kbps);
        if now < start + off + hdur {
            return;
        }
        let noise = self.capture_noise(hkbps);
        let Spatial {
            radios,
            cuts,
            ber,
            rx_rng,
            ..
        } = self.hx();
        let rad = &mut radios[r];
        let (h0, h1) = (start + off, start + off + hdur);
        let p_hdr = success(&rad.intf, cuts, ber, rad.rx_mw, noise, h0, h1, hkbps);
        if rx_rng[r].random::<f64>() < p_hdr {
            rad.rx_hdr_ok = true;
        } else {
            rad.rx = NONE;
            rad.intf.clear();
        }
    }

    /// Capture: the noise power (mW) a receiver of rate `kbps` sees.
    fn capture_noise(&self, kbps: u32) -> f64 {
        let cap = self
            .hx
            .as_deref()
            .and_then(|h| h.capture)
            .expect("capture on");
        if self.phy.is_ofdm(kbps) {
            cap.noise_ofdm_mw
        } else {
            cap.noise_dsss_mw
        }
    }

    /// Capture: port `r`'s reception of frame `id` ends. Returns whether the PLCP header
    /// and the whole frame were received, and whether any frame overlapped it. The header
    /// and the payload each survive with their probability of success over the intervals
    /// of overlap (see [`success`]), one uniform draw each from the port's stream.
    fn hx_capture_judge(&mut self, r: usize, id: u32) -> (bool, bool, bool) {
        let (start, end, kbps) = {
            let f = &self.hx().frames[id as usize];
            (f.start, f.end, f.kbps)
        };
        let (off, hdur, hkbps) = self.phy.header_field(kbps);
        let ext = self.phy.signal_extension(kbps);
        let noise = self.capture_noise(kbps);
        let hx = self.hx();
        let Spatial {
            radios,
            cuts,
            ber,
            rx_rng,
            ..
        } = hx;
        let rad = &mut radios[r];
        let s = rad.rx_mw;
        let interfered = rad.intf.iter().any(|&(a, b, _)| a < end && b > start);
        let (h0, h1) = (start + off, start + off + hdur);
        let rng = &mut rx_rng[r];
        // The header may have been judged already (a frame started after it).
        let hdr_ok = rad.rx_hdr_ok
            || rng.random::<f64>() < success(&rad.intf, cuts, ber, s, noise, h0, h1, hkbps);
        let ok = hdr_ok
            && rng.random::<f64>() < success(&rad.intf, cuts, ber, s, noise, h1, end - ext, kbps);
        rad.intf.clear();
        (hdr_ok, ok, interfered)
    }

    /// Whether the link's bit errors corrupt a data frame `from` → `to` that arrived at
    /// `dbm` (the link's `ber`, its SNR table, or with positions the SNR at this power).
    fn hx_corrupted(&mut self, from: usize, to: usize, ex: &Exch, dbm: f64) -> bool {
        let ap = self.ap_of[from] != NO_AP && self.is_ap(from);
        let link = if ap { to } else { from };
        let idx = self.rates.iter().position(|&r| r == ex.kbps).unwrap_or(0);
        let ber = match &self.sta[link].ber_of_rate {
            Some(t) => Some(t[idx]),
            // Under capture the SINR of the frame already judged its noise.
            None if self.hx.as_deref().unwrap().auto_snr[link]
                && dbm.is_finite()
                && self.hx.as_deref().unwrap().capture.is_none() =>
            {
                let hx = self.hx.as_deref_mut().unwrap();
                let radio = hx.map.radio.unwrap();
                let noise = match modulation_of(ex.kbps) {
                    Modulation::Ofdm(_) => radio.noise_ofdm_dbm,
                    _ => radio.noise_dsss_dbm,
                };
                Some(hx.ber.ber(ex.kbps, dbm - noise))
            }
            None => None,
        };
        let errors = if ap {
            &mut self.sta[to].errors_down
        } else {
            &mut self.sta[from].errors_up
        };
        if let Some(ber) = ber {
            errors.set_kind(BitErrors::Ber(ber));
        }
        errors.lost(8 * ex.mpdu as u64)
    }

    /// Frame `id` ends: every port that heard it updates its view; the receiver answers,
    /// or the sender learns the outcome.
    fn hx_end(&mut self, id: u32, cx: &mut LinkCtx<'_>) {
        let now = cx.now;
        let (kind, from, to, nav_end, to_dbm) = {
            let f = &self.hx().frames[id as usize];
            (f.kind, f.from as usize, f.to as usize, f.nav_end, f.to_dbm)
        };
        let init = if matches!(kind, Kind::Rts | Kind::Data) {
            from
        } else {
            to
        };
        let ex = self.hx().radios[init].exch;
        let aud = std::mem::take(&mut self.hx().frames[id as usize].audience);
        self.hx().radios[from].tx_until = now;
        let mut to_ok = false;
        let mut to_level = Level::None;
        let mut to_corrupted = false;
        let reset_delay = {
            let ctl = ex.map_or(1_000, |e| self.phy.response_kbps(e.kbps));
            self.phy.sifs
                + self.phy.sifs
                + self.phy.duration(CTS_BYTES, ctl)
                + self.phy.plcp(ctl)
                + SimTime(2 * self.ifs.slot.0)
        };
        let capture = self.hx().capture.is_some();
        if capture {
            let on_air = &mut self.hx().on_air;
            if let Some(i) = on_air.iter().position(|&o| o == id) {
                on_air.swap_remove(i);
            }
        }
        for h in &aud {
            let r = h.r as usize;
            let rad = &mut self.hx().radios[r];
            rad.sensed -= 1;
            let mut ok = false;
            // Capture: the EIFS flag after this frame (None: unchanged).
            let mut eifs = h.tried.then_some(true);
            if rad.rx == id {
                rad.rx = NONE;
                if capture {
                    let (hdr_ok, rx_ok, interfered) = self.hx_capture_judge(r, id);
                    ok = rx_ok;
                    // A failed PLCP header is no reception (ns-3 aborts it: no EIFS).
                    eifs = if ok || hdr_ok { Some(!ok) } else { None };
                    if r == to && !ok && !interfered {
                        to_corrupted = true;
                    }
                } else {
                    ok = rad.rx_clean;
                }
            } else if capture && h.level == Level::Decode {
                // Decodable but not locked onto (interference): nothing was received.
                eifs = None;
            }
            if r == to {
                to_level = h.level;
                if ok && kind == Kind::Data {
                    if let Some(e) = ex.as_ref() {
                        to_corrupted = self.hx_corrupted(from, to, e, to_dbm);
                        ok = !to_corrupted;
                    }
                }
                to_ok = ok;
            }
            let rad = &mut self.hx().radios[r];
            if let Some(e) = eifs {
                rad.eifs = if capture { e } else { !ok };
            }
            let mut nav_reset = false;
            // The NAV takes a later Duration (the update comes first: it is not only a test).
            if ok && r != to && rad.access.update_nav(nav_end) && kind == Kind::Rts {
                rad.nav_rts = Some((now, now + reset_delay));
                nav_reset = true;
            }
            let idle = rad.sensed == 0 && rad.tx_until <= now;
            let eifs = rad.eifs;
            if nav_reset {
                self.hx_push(cx, now + reset_delay, NAV_RESET, r as u32);
            }
            if idle {
                self.hx_set_idle(r, now, eifs);
            }
        }
        self.hx().frames[id as usize].audience = aud;
        self.hx().free.push(id);
        if self.hx().radios[from].sensed == 0 {
            self.hx_set_idle(from, now, false);
        }
        let Some(mut ex) = ex else {
            return;
        };
        let cause = if to_level != Level::Decode {
            Outcome::Unanswered
        } else if to_corrupted {
            Outcome::Corrupted
        } else {
            Outcome::Collision
        };
        let sifs = self.phy.sifs;
        let ctl = self.phy.response_kbps(ex.kbps);
        match kind {
            Kind::Rts => {
                let q = &self.hx().radios[to];
                if to_ok && q.access.nav_end() <= now && q.tx_until <= now && q.exch.is_none() {
                    let f = self.hx_frame(Kind::Cts, to, from, now + sifs, &ex);
                    self.hx_push(cx, now + sifs, START, f);
                } else {
                    ex.cause = cause;
                    self.hx().radios[from].exch = Some(ex);
                    let t = now + sifs + self.ifs.slot + self.phy.plcp(ctl);
                    self.hx_push(cx, t, TIMEOUT, from as u32);
                }
            }
            Kind::Cts => {
                if to_ok {
                    ex.data_stage = true;
                    self.hx().radios[to].exch = Some(ex);
                    let f = self.hx_frame(Kind::Data, to, from, now + sifs, &ex);
                    self.hx_push(cx, now + sifs, START, f);
                } else {
                    self.hx_conclude(to, Outcome::Collision, cx);
                }
            }
            Kind::Data => {
                // A receiver waiting for its own CTS or ACK does not answer (nor take the
                // frame): the sender retries.
                if to_ok && self.hx().radios[to].exch.is_none() {
                    let k = ex.k as usize;
                    if !self.hx().heads[k].delivered {
                        self.hx().heads[k].delivered = true;
                        cx.emit(LinkEffect::Deliver {
                            pkt: ex.pkt,
                            to: self.ports[to],
                        });
                    }
                    let f = self.hx_frame(Kind::Ack, to, from, now + sifs, &ex);
                    self.hx_push(cx, now + sifs, START, f);
                } else {
                    ex.cause = cause;
                    self.hx().radios[from].exch = Some(ex);
                    let t = now + sifs + self.ifs.slot + self.phy.plcp(ctl);
                    self.hx_push(cx, t, TIMEOUT, from as u32);
                }
            }
            Kind::Ack => {
                let o = if to_ok {
                    Outcome::Success
                } else {
                    Outcome::Collision
                };
                self.hx_conclude(to, o, cx);
            }
        }
    }

    /// Port `p`'s CTS or ACK timeout: its exchange failed; it backs off from now + DIFS.
    fn hx_timeout(&mut self, p: usize, cx: &mut LinkCtx<'_>) {
        let now = cx.now;
        let ifs = self.ifs;
        let Some(ex) = self.hx().radios[p].exch else {
            return;
        };
        self.hx().radios[p].access.timeout(&ifs, now);
        self.hx_conclude(p, ex.cause, cx);
    }

    /// A NAV set by an RTS is reset if no reception started since the RTS ended.
    fn hx_nav_reset(&mut self, r: usize, now: SimTime) {
        let ifs = self.ifs;
        let rad = &mut self.hx().radios[r];
        let Some((rts_end, at)) = rad.nav_rts else {
            return;
        };
        if at != now {
            return;
        }
        rad.nav_rts = None;
        if rad.last_rx_start > rts_end || rad.access.nav_end() <= now {
            return;
        }
        rad.access.reset_nav(&ifs, now);
        if rad.counting {
            rad.counting = false;
            self.hx_resume(r, now);
        }
    }

    /// Port `p`'s exchange ends with `o`: count it, finish or retry the frame, back off.
    fn hx_conclude(&mut self, p: usize, o: Outcome, cx: &mut LinkCtx<'_>) {
        let now = cx.now;
        let counting = now >= self.stats_from;
        let Some(ex) = self.hx().radios[p].exch.take() else {
            return;
        };
        let (k, q) = (ex.k as usize, ex.q as usize);
        let ap = self.ap_of[p] != NO_AP && self.is_ap(p);
        let link = if ap { q } else { p };
        let ok = o == Outcome::Success;
        self.charge(k, Some(q), ex.air, ok, counting);
        self.rc_report(k, q, ok, cx);
        let done = if ok {
            super::ewma(&mut self.sta[link], !ap, 1.0);
            if counting {
                let f = &mut self.fns[k];
                let s = &mut self.sta[p];
                s.stats.sent += 1;
                s.stats.access_delay += (now - f.head_since).0;
                f.stats.sent += 1;
                f.stats.access_delay += (now - f.head_since).0;
            }
            true
        } else {
            super::ewma(&mut self.sta[link], !ap, 0.0);
            let long = ex.rts && ex.data_stage;
            self.fail(k, ex.pkt, o, long, true, counting, cx)
        };
        if done {
            self.finish(k, Some(q), cx);
        }
        self.draw(k);
        self.fns[k].txop_from = None;
        self.hx_resume(p, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cached grid against the modulation's exact curve (the channel module's, itself
    /// checked against mpmath): relative error below 1 % at SNRs off the grid points, for
    /// the four 802.11b rates and two OFDM ones, wherever the BER is above 1e-12 (below, a
    /// 12 000-bit frame's PER is under 1e-8, and the numerically integrated CCK curves
    /// themselves wobble by a few percent).
    #[test]
    fn the_ber_grid_follows_the_exact_curves() {
        let mut g = BerGrid::default();
        for kbps in [1_000, 2_000, 5_500, 11_000, 6_000, 54_000] {
            for k in 0..400 {
                let snr_db = -5.0 + k as f64 * 0.0737;
                let exact = modulation_of(kbps).ber(10f64.powf(snr_db / 10.0));
                let got = g.ber(kbps, snr_db);
                if exact > 1e-12 {
                    assert!(
                        (got / exact - 1.0).abs() < 1e-2,
                        "{kbps} kb/s at {snr_db} dB: {got} vs {exact}"
                    );
                }
            }
        }
    }

    /// ns-3's DSSS error rates in closed form (`DsssErrorRateModel`, independent of the
    /// channel module): DBPSK ½·exp(−Eb/N0), Eb/N0 = 22·SINR; DQPSK its `DqpskFunction`,
    /// Eb/N0 = 11·SINR.
    fn dbpsk(sinr: f64) -> f64 {
        0.5 * (-22.0 * sinr).exp()
    }
    fn dqpsk(sinr: f64) -> f64 {
        let x = 11.0 * sinr;
        let r2 = std::f64::consts::SQRT_2;
        (r2 + 1.0) / (8.0 * std::f64::consts::PI * r2).sqrt() / x.sqrt() * (-(2.0 - r2) * x).exp()
    }

    /// Reference: the closed form of a frame's success under overlap, Π (1 − BER(SINR_i))^bits_i
    /// with ns-3's DSSS formulas. (1) Two equal-power RTS frames (20 B at 2 Mb/s, long
    /// preamble) starting together, as in a saturation collision: the receiver's header (48
    /// bits at 1 Mb/s) and payload (160 bits at 2 Mb/s) at SINR = S/(N + S) ≈ 0 dB; (2) a
    /// 2 Mb/s payload overlapped in its middle by a frame 7 dB weaker (three intervals, two
    /// clean) and at its end by a second one (a fourth with both). Tolerance: 1 % of the
    /// frame error rate (the BER grid's interpolation).
    #[test]
    fn two_frame_overlap_per_matches_the_closed_form() {
        let mut g = BerGrid::default();
        let mut cuts = Vec::new();
        let us = SimTime::from_micros;
        let noise = dbm_to_mw(-93.97);
        let s = dbm_to_mw(NOMINAL_RX_DBM);
        let phy = Phy::new(crate::link::wifi::phy::Standard::B);
        // (1) Two RTS frames from 0 to 272 µs.
        let end = phy.duration(RTS_BYTES, 2_000);
        assert_eq!(end, us(272));
        let (off, hdur, hkbps) = phy.header_field(2_000);
        assert_eq!((off, hdur, hkbps), (us(144), us(48), 1_000));
        let intf = [(SimTime::ZERO, end, s)];
        let ph = success(&intf, &mut cuts, &mut g, s, noise, off, off + hdur, hkbps);
        let pp = success(&intf, &mut cuts, &mut g, s, noise, off + hdur, end, 2_000);
        let sinr = s / (noise + s);
        let want_h = (1.0 - dbpsk(sinr)).powi(48);
        let want_p = (1.0 - dqpsk(sinr)).powi(160);
        let per = 1.0 - ph * pp;
        let want = 1.0 - want_h * want_p;
        assert!((per / want - 1.0).abs() < 1e-2, "{per} vs {want}");
        // About 3 % of such RTS are lost: 97 % of RTS collisions still get a CTS.
        assert!(want > 0.02 && want < 0.04, "{want}");
        // (2) Payload 200..1200 µs at 2 Mb/s; i1 7 dB weaker over 400..700 µs, i2 as
        // strong as the frame over 1100..1500 µs.
        let i1 = s * 10f64.powf(-0.7);
        let intf = [(us(400), us(700), i1), (us(1100), us(1500), s)];
        let p = success(&intf, &mut cuts, &mut g, s, noise, us(200), us(1200), 2_000);
        let ln = |sinr: f64, micros: f64| micros * 2.0 * (1.0 - dqpsk(sinr)).ln();
        let want = (ln(s / noise, 200.0 + 400.0)
            + ln(s / (noise + i1), 300.0)
            + ln(s / (noise + s), 100.0))
        .exp();
        assert!(
            ((1.0 - p) / (1.0 - want) - 1.0).abs() < 1e-2,
            "{p} vs {want}"
        );
        // Without interference the frame survives the noise at 63 dB SNR.
        assert!(success(&[], &mut cuts, &mut g, s, noise, us(200), us(1200), 2_000) > 0.999_999);
    }

    /// Levels from positions: ns-3's defaults decode to 51.45 m (−82 dBm), nothing beyond;
    /// with a lower carrier-sense threshold the band between is sensed only.
    #[test]
    fn levels_follow_the_thresholds() {
        let radio = RadioModel {
            tx_power_dbm: 16.0206,
            path_loss: PathLoss::LogDistance {
                reference_m: 1.0,
                reference_loss_db: 46.6777,
                exponent: 3.0,
            },
            rx_threshold_dbm: -82.0,
            cs_threshold_dbm: -90.0,
            noise_dsss_dbm: -93.56,
            noise_ofdm_dbm: -93.97,
        };
        let at = |x: f64| Track::new(crate::channel::Position::new(x, 0.0, 0.0), &[]);
        let h = Hearing::positions(vec![at(0.0), at(51.4), at(51.5), at(100.0)], radio);
        assert_eq!(h.at(0, 1, SimTime::ZERO).0, Level::Decode);
        assert_eq!(h.at(0, 2, SimTime::ZERO).0, Level::Sense);
        assert_eq!(h.at(0, 3, SimTime::ZERO).0, Level::None);
        assert!(!h.complete());
        let g = Hearing::graph(3, |p, r| {
            if p + r == 2 {
                Level::None
            } else {
                Level::Decode
            }
        });
        assert!(!g.complete());
        assert!(Hearing::graph(3, |_, _| Level::Decode).complete());
    }
}
