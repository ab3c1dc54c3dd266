//! A-MPDU exchanges under block ack on the shared-slot medium: the glue between the
//! cell's channel-access functions and the models of [`crate::link::wifi::ampdu`] (what
//! goes into one PPDU) and [`crate::link::wifi::block_ack`] (windows, responses, the
//! reordering buffer) — ns-3's `HtFrameExchangeManager` and `BlockAckManager`.
//!
//! **Exchange.** A function that aggregates and wins the medium sends either a
//! BlockAckReq (`BAR SIFS BlockAck`, when one is due to the receiver of its head frame)
//! or an A-MPDU to that receiver (`A-MPDU SIFS BlockAck`): the MPDUs for that receiver in
//! queue order — the outstanding ones (failed before) first, as they are older — within
//! the window and the limits of `ampdu.rs`. One event per PPDU: the outcomes of all its
//! MPDUs are drawn when it starts, each from the link's bit-error model for its own length
//! (the same stream as single MPDUs), and settled at its end. The BlockAck follows SIFS
//! after the PPDU if at least one MPDU arrived (then everyone resumes DIFS after it);
//! otherwise nothing answers and everyone resumes EIFS after the PPDU. A collision loses
//! the whole PPDU (no BlockAck).
//!
//! **After the BlockAck** (ns-3's `NotifyGotBlockAck`): acknowledged MPDUs leave the
//! sender's queue and wait in the recipient's reordering buffer until every older one has
//! arrived or been discarded; the others count a failed transmission and stay at their
//! place in the queue (ahead of newer MPDUs for the receiver); an MPDU that has failed
//! `short_retry_limit` times (ns-3's `FrameRetryLimit`, 7) is discarded with a reason as
//! for single frames (`collision`, `channel_error`, `retry_limit` for mixed causes). CW
//! returns to CWmin whenever a BlockAck arrives, even one reporting losses (ns-3's
//! `ResetCw` on any BlockAck); a missed BlockAck doubles it, counts a failure on every
//! MPDU of the PPDU and makes a BlockAckReq due (ns-3's explicit BAR). Packets in the
//! reordering buffer stay counted in the sender's driver buffer until they are passed up
//! (they are in flight).
//!
//! **From mac80211's TXQs.** At an AP with `ap_queues = "mac80211"` the frames are not
//! in a FIFO: the driver forms each aggregate from the TXQs ([`Cell::txq_build`], ath9k's
//! `ath_tx_sched_aggr`/`ath_tx_form_aggr`): the air-time scheduler picks a station, its
//! frames already in the driver (failed MPDUs waiting in the window, ath9k's `retry_q`)
//! come first, then its TXQ hands out MPDUs one by one while the aggregate stays within
//! the limits above (window, bytes, aPPDUMaxTime or the TXOP, counting the station's
//! frames in the driver) and AQL lets it (`txq.rs`). The MPDU that does not fit stays in
//! the driver, first in the station's next aggregate (ath9k puts it back at the head of
//! its retry queue). The aggregate is formed when the function's previous PPDU is
//! settled (or when a packet reaches an idle AP): the hardware holds one aggregate per AC.
//! Its station's frames go to the head of the function's queue, so the PPDU assembled at
//! transmission is that aggregate.
//!
//! **TXOP.** With EDCA an A-MPDU (with SIFS and the BlockAck) fits the TXOP's time left;
//! a TXOP continues SIFS after a BlockAck if the next head MPDU's exchange fits. AC_VO
//! does not aggregate (ns-3's `VO_MaxAmpduSize` default 0) and uses the single-MPDU
//! exchange of `frame_exchange.rs`.

use super::{Cell, Outcome};
use crate::channel::{BitErrorModel, BitErrors};
use crate::engine::{stream, SimRng, SimTime};
use crate::link::wifi::ampdu::{self, Limits, PPDU_MAX_TIME};
use crate::link::wifi::block_ack::{self, Agreement, Outstanding, BLOCK_ACK_REQ_BYTES};
use crate::link::wifi::edca::Ac;
use crate::link::{LinkCtx, LinkEffect};
use crate::packet::{DropReason, PacketId};
use rand::Rng;
use std::collections::VecDeque;

/// A cell's aggregation settings (`aggregation` of an HT/VHT/HE cell).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AggConf {
    /// The largest A-MPDU, octets (the scenario's, within the standard's).
    pub max_bytes: u32,
    /// The block ack window (buffer size), MPDUs.
    pub window: u32,
    /// ns-3's reception through a collision (`tail_reception`, see
    /// [`Cell::ampdu_tail_reception`]); off: every PPDU of a collision is lost.
    pub tail_reception: bool,
}

/// Aggregation state of a cell: the settings and, per channel-access function, its
/// agreements (`None`: the function sends single MPDUs, e.g. AC_VO).
pub(super) struct Aggregation {
    conf: AggConf,
    /// Octets of the BlockAck under the cell's window.
    ba_bytes: u32,
    fns: Vec<Option<FnAgg>>,
    /// With `tail_reception`: which of a collision's PPDUs the receiver locks onto (the
    /// stream `cell:<name>:ampdu-lock`), and the function whose PPDU it received through
    /// the collision on the air, if any.
    lock_rng: SimRng,
    captured: Option<u32>,
}

/// One function's agreements, its outstanding MPDUs, the recipients' reordering buffers
/// and the PPDU it has on the air.
struct FnAgg {
    /// Per receiver port.
    agreements: Vec<Agreement>,
    /// MPDUs sent and neither acknowledged nor discarded, oldest first (all receivers):
    /// for each receiver, its entries are its first packets in the function's queue.
    outstanding: VecDeque<Outstanding>,
    /// Acknowledged MPDUs in the recipient's reordering buffer: (receiver, sn, packet).
    held: Vec<(u32, u32, PacketId)>,
    /// The PPDU on the air: its receiver, whether it is a BlockAckReq, and for an A-MPDU
    /// its MPDUs' queue positions (ascending), lengths and whether each arrived.
    peer: u32,
    bar: bool,
    /// The rate it goes at.
    kbps: u32,
    sel: Vec<u32>,
    sizes: Vec<u32>,
    ok: Vec<bool>,
    /// Scratch: the A-MPDU's positions among the outstanding.
    idx: Vec<usize>,
}

impl FnAgg {
    fn new(ports: usize, window: u32) -> FnAgg {
        let w = window as usize;
        FnAgg {
            agreements: vec![Agreement::default(); ports],
            outstanding: VecDeque::with_capacity(w),
            held: Vec::with_capacity(w),
            peer: 0,
            bar: false,
            kbps: 0,
            sel: Vec::with_capacity(w),
            sizes: Vec::with_capacity(w),
            ok: Vec::with_capacity(w),
            idx: Vec::with_capacity(w),
        }
    }
}

impl Cell {
    /// Turns on A-MPDU aggregation under block ack: every function but a QoS port's
    /// AC_VO aggregates; data frames become QoS data frames (+2 octets).
    pub fn set_aggregation(&mut self, conf: AggConf, seed: u64) {
        let ports = self.ports.len();
        let fns = self
            .fns
            .iter()
            .map(|f| {
                let qos = self.sta[f.port as usize].count > 1;
                (!(qos && f.ac == Ac::Vo)).then(|| FnAgg::new(ports, conf.window))
            })
            .collect();
        for s in &mut self.sta {
            if s.count == 1 {
                s.overhead += super::QOS_CONTROL_BYTES;
            }
        }
        self.agg = Some(Box::new(Aggregation {
            conf,
            ba_bytes: block_ack::block_ack_bytes(conf.window),
            fns,
            lock_rng: stream(seed, &format!("cell:{}:ampdu-lock", self.name)),
            captured: None,
        }));
    }

    /// Whether function `k` sends A-MPDUs.
    #[inline(always)]
    pub(super) fn aggregates(&self, k: usize) -> bool {
        match self.agg.as_deref() {
            None => false,
            Some(a) => a.fns[k].is_some(),
        }
    }

    fn fa(&mut self, k: usize) -> &mut FnAgg {
        self.agg.as_deref_mut().unwrap().fns[k].as_mut().unwrap()
    }

    /// The receiver port of packet `pkt` sent by port `p` (itself if none).
    fn receiver(&self, p: usize, pkt: PacketId, cx: &LinkCtx<'_>) -> usize {
        if !self.is_ap(p) && self.ap_of[p] != super::NO_AP {
            return self.ap_of[p] as usize;
        }
        let hop = cx.packets.get(pkt).next_hop;
        self.peer_of(p, hop).unwrap_or(p)
    }

    /// Air time of the BlockAck answering a PPDU at `kbps`.
    fn block_ack_time(&self, kbps: u32) -> SimTime {
        let ba = self.agg.as_deref().unwrap().ba_bytes;
        self.phy.duration(ba, self.phy.response_kbps(kbps))
    }

    /// Function `k` starts a PPDU at `now`: a BlockAckReq if one is due to its head
    /// frame's receiver, else the A-MPDU it assembles (registering new MPDUs as
    /// outstanding). Returns the PPDU's air time and rate.
    pub(super) fn ampdu_start(
        &mut self,
        k: usize,
        now: SimTime,
        cx: &mut LinkCtx<'_>,
    ) -> (SimTime, u32) {
        let p = self.fns[k].port as usize;
        let head = *self.fns[k].buf.front().expect("a transmitter has a frame");
        let q = self.receiver(p, head, cx);
        let kbps = self.attempt_kbps(k, q, cx);
        cx.tx_start(self.ports[p], head);
        let bar = self.fa(k).agreements[q].bar_due;
        let fa = self.fa(k);
        fa.peer = q as u32;
        fa.bar = bar;
        fa.kbps = kbps;
        fa.sel.clear();
        fa.sizes.clear();
        fa.ok.clear();
        if bar {
            let ctl = self.phy.response_kbps(kbps);
            return (self.phy.duration(BLOCK_ACK_REQ_BYTES, ctl), kbps);
        }
        self.select(k, q, cx);
        let budget = self.ppdu_budget(k, now, kbps);
        let lim = Limits {
            max_mpdus: u32::MAX,
            max_time: budget,
            ..self.limits()
        };
        let phy = &self.phy;
        let fa = self.agg.as_deref_mut().unwrap().fns[k].as_mut().unwrap();
        let (n, bytes) = ampdu::assemble(
            &lim,
            |b| phy.psdu_duration(b, kbps),
            fa.sizes.iter().copied(),
        );
        fa.sel.truncate(n as usize);
        fa.sizes.truncate(n as usize);
        self.register(k, q);
        (self.phy.psdu_duration(bytes, kbps), kbps)
    }

    /// The cell's A-MPDU limits (the time limit aPPDUMaxTime).
    fn limits(&self) -> Limits {
        let c = self.agg.as_deref().unwrap().conf;
        Limits {
            max_bytes: c.max_bytes,
            max_mpdus: c.window,
            max_time: PPDU_MAX_TIME,
        }
    }

    /// The longest PPDU function `k` may send at `now`: aPPDUMaxTime, and within a TXOP
    /// the time it has left less SIFS and the BlockAck.
    fn ppdu_budget(&self, k: usize, now: SimTime, kbps: u32) -> SimTime {
        let f = &self.fns[k];
        if f.txop == SimTime::ZERO {
            return PPDU_MAX_TIME;
        }
        let end = f.txop_from.unwrap_or(now) + f.txop;
        let left = end.saturating_sub(now + self.phy.sifs + self.block_ack_time(kbps));
        left.min(PPDU_MAX_TIME)
    }

    /// Candidates for function `k`'s A-MPDU to `q`: its packets for `q` in queue order
    /// whose sequence numbers fall in the window, at most a window's worth (`sel`, `sizes`).
    fn select(&mut self, k: usize, q: usize, cx: &LinkCtx<'_>) {
        let p = self.fns[k].port as usize;
        let overhead = self.sta[p].overhead;
        let window = self.agg.as_deref().unwrap().conf.window;
        let mut sel = std::mem::take(&mut self.fa(k).sel);
        let mut sizes = std::mem::take(&mut self.fa(k).sizes);
        {
            let fa = self.agg.as_deref().unwrap().fns[k].as_ref().unwrap();
            let a = fa.agreements[q];
            let mut outs = fa.outstanding.iter().filter(|o| o.peer == q as u32);
            let oldest = outs.clone().next().map(|o| o.sn);
            let start = a.win_start_o(oldest);
            let mut new = 0;
            for (i, &pkt) in self.fns[k].buf.iter().enumerate() {
                if sel.len() as u32 >= window {
                    break;
                }
                if self.receiver(p, pkt, cx) != q {
                    continue;
                }
                let sn = match outs.next() {
                    Some(o) => o.sn,
                    None => {
                        new += 1;
                        a.next_sn + new - 1
                    }
                };
                if !Agreement::in_window(start, window, sn) {
                    break;
                }
                sel.push(i as u32);
                sizes.push(cx.packets.get(pkt).size_bytes + overhead);
            }
        }
        let fa = self.fa(k);
        fa.sel = sel;
        fa.sizes = sizes;
    }

    /// The selected MPDUs beyond the outstanding ones for `q` are new: they get the next
    /// sequence numbers and become outstanding.
    fn register(&mut self, k: usize, q: usize) {
        let fa = self.fa(k);
        let old = fa.outstanding.iter().filter(|o| o.peer == q as u32).count();
        for _ in old..fa.sel.len() {
            let sn = fa.agreements[q].next_sn;
            fa.agreements[q].next_sn += 1;
            fa.outstanding.push_back(Outstanding {
                peer: q as u32,
                sn,
                failures: 0,
                collided: false,
                corrupted: false,
            });
        }
    }

    /// The bit-error model of frames from `p` to `q` at `kbps`: the station's link (its
    /// downlink when `p` is the AP, else its uplink), set to the BER of `kbps` where the
    /// station has a BER per rate. Used by single frames and A-MPDUs alike.
    pub(super) fn link_errors(&mut self, p: usize, q: usize, kbps: u32) -> &mut BitErrorModel {
        let link = if self.is_ap(p) { q } else { p };
        let ber = self.sta[link]
            .ber_of_rate
            .as_ref()
            .map(|t| t[self.rates.iter().position(|&r| r == kbps).unwrap_or(0)]);
        let errors = if self.is_ap(p) {
            &mut self.sta[q].errors_down
        } else {
            &mut self.sta[p].errors_up
        };
        if let Some(ber) = ber {
            errors.set_kind(BitErrors::Ber(ber));
        }
        errors
    }

    /// The one function on the air aggregates: its PPDU starts at `now` and each MPDU's
    /// fate is drawn. Returns the PPDU's end, the end of the busy period plus DIFS (EIFS
    /// when nothing arrived: no BlockAck) and the outcome (`Success`: a BlockAck came).
    pub(super) fn ampdu_exchange(
        &mut self,
        now: SimTime,
        cx: &mut LinkCtx<'_>,
    ) -> (SimTime, SimTime, Outcome) {
        let k = self.on_air[0] as usize;
        let p = self.fns[k].port as usize;
        let (ppdu, kbps) = self.ampdu_start(k, now, cx);
        let end = now + ppdu;
        let q = self.fa(k).peer as usize;
        let mut ok = std::mem::take(&mut self.fa(k).ok);
        let sizes = std::mem::take(&mut self.fa(k).sizes);
        let bar = self.fa(k).bar;
        let errors = self.link_errors(p, q, kbps);
        for &s in &sizes {
            ok.push(!errors.lost(8 * s as u64));
        }
        let any = bar || ok.iter().any(|&x| x);
        let f = self.fa(k);
        f.ok = ok;
        f.sizes = sizes;
        if any {
            let ba_end = end + self.phy.sifs + self.block_ack_time(kbps);
            (end, self.ifs.idle_from(ba_end, false), Outcome::Success)
        } else {
            (end, self.ifs.idle_from(end, true), Outcome::Corrupted)
        }
    }

    /// ns-3 3.44's reception through a collision (`tail_reception = true`; off by default,
    /// when every PPDU of a collision is lost). The PPDUs of `on_air` all started at `now`
    /// with equal power at the receiver (`self.air`: each one's air time). As ns-3's
    /// `PhyEntity` without a preamble detection model does, the receiver locks onto one of
    /// them (equal powers: ns-3 keeps the first created; here one drawn uniformly from the
    /// stream `cell:<name>:ampdu-lock`) and treats the others as interference. Its PHY
    /// header (L-SIG and the HT/VHT/HE signal fields, BPSK ½) is decoded if at most one
    /// other frame overlaps it, a signal-to-interference ratio of 0 dB (ns-3's AWGN BCC
    /// table for MCS 0 gives a 32-octet frame a PER of 3.4 % at 0 dB and 99.5 % at −3 dB,
    /// `error-rate-tables.cc`; the header's few octets fare better: taken as certain and
    /// as lost). Then ns-3 judges each MPDU of an A-MPDU over its own stretch of the
    /// payload (`PhyEntity::EndOfMpdu`): an MPDU that any other frame overlaps is lost (MCS
    /// 7 and above cannot be decoded at 0 dB), one sent after they all ended arrives unless
    /// the link's bit errors take it. So an A-MPDU that collided with a BlockAckReq (32 µs
    /// at 24 Mb/s, within the 36–44 µs HT/VHT/HE preamble) arrives whole, and a longer
    /// A-MPDU keeps the MPDUs past a shorter one's end. If any arrived the receiver
    /// answers with a BlockAck SIFS after the PPDU (everyone decodes it: DIFS after it);
    /// the others fail as in any collision. Returns the end of that busy period plus DIFS,
    /// if a BlockAck answers.
    ///
    /// IEEE 802.11-2020 leaves a receiver's behaviour under interference to the
    /// implementation (§10.3.2.1 and the PHYs' receive procedures only say when CCA is
    /// busy and when a PHY-RXEND.indication reports an error); a real receiver that
    /// synchronised and estimated the channel on a preamble overlapped at 0 dB would
    /// usually lose the payload as well, which is why this is not the default.
    pub(super) fn ampdu_tail_reception(&mut self, now: SimTime) -> Option<SimTime> {
        let agg = self.agg.as_deref_mut()?;
        agg.captured = None;
        if !agg.conf.tail_reception {
            return None;
        }
        let n = self.on_air.len();
        let j = agg.lock_rng.random_range(0..n);
        let k = self.on_air[j] as usize;
        // The header: decodable with one interferer (0 dB), not with two (−3 dB).
        if n > 2 || !self.aggregates(k) || self.fa(k).bar {
            return None;
        }
        let others_end = (0..n)
            .filter(|&i| i != j)
            .map(|i| now + self.air[i])
            .max()
            .expect("a collision has another frame");
        let p = self.fns[k].port as usize;
        let q = self.fa(k).peer as usize;
        let kbps = self.fa(k).kbps;
        let sym = SimTime(match crate::link::wifi::phy::mcs_of(kbps) {
            Some((nss, m)) => self.phy.mcs_symbol(nss, m).1,
            None => 4_000,
        });
        let mut ok = std::mem::take(&mut self.fa(k).ok);
        let sizes = std::mem::take(&mut self.fa(k).sizes);
        ok.clear();
        let mut prefix = 0u32;
        for &s in &sizes {
            // The MPDU's first bits go in the symbol after the prefix's.
            let first = now + self.phy.psdu_duration(prefix, kbps) - sym;
            let clean = first >= others_end;
            let lost = self.link_errors(p, q, kbps).lost(8 * s as u64);
            ok.push(clean && !lost);
            prefix = ampdu::with_subframe(prefix, s);
        }
        let any = ok.iter().any(|&x| x);
        let f = self.fa(k);
        f.ok = ok;
        f.sizes = sizes;
        if !any {
            return None;
        }
        self.agg.as_deref_mut().unwrap().captured = Some(k as u32);
        let end = now + self.air[j];
        let ba_end = end + self.phy.sifs + self.block_ack_time(kbps);
        Some(self.ifs.idle_from(ba_end, false))
    }

    /// The outcome of function `k`'s part in the exchange that ended with `o`: a collision
    /// the receiver nevertheless answered ([`Self::ampdu_tail_reception`]) is a success.
    pub(super) fn ampdu_outcome(&self, k: usize, o: Outcome) -> Outcome {
        match self.agg.as_deref() {
            Some(a) if o == Outcome::Collision && a.captured == Some(k as u32) => Outcome::Success,
            _ => o,
        }
    }

    /// Function `k`'s PPDU ended with `o` (for the whole exchange; each MPDU's own fate
    /// is in `ok`). Settles it and returns when its TXOP continues, if it does.
    pub(super) fn ampdu_settle(
        &mut self,
        k: usize,
        o: Outcome,
        air: SimTime,
        counting: bool,
        cx: &mut LinkCtx<'_>,
    ) -> Option<SimTime> {
        let q = self.fa(k).peer as usize;
        let got_ba = o == Outcome::Success;
        if got_ba {
            self.fns[k].backoff.reset_cw();
        } else {
            self.fns[k].backoff.double_cw();
        }
        self.charge(k, Some(q), air, got_ba, counting);
        self.rc_report(k, q, got_ba, cx);
        if counting {
            let p = self.fns[k].port as usize;
            let (bar, n) = (self.fa(k).bar, self.fa(k).sel.len() as u64);
            let st = &mut self.sta[p].stats;
            if bar {
                st.bars += 1;
                st.failed_bars += u64::from(!got_ba);
            } else {
                st.data_ppdus += 1;
                st.data_mpdus += n;
                st.failed_data_ppdus += u64::from(!got_ba);
            }
        }
        if self.fa(k).bar {
            if got_ba {
                self.fa(k).agreements[q].bar_due = false;
            }
        } else {
            self.settle_mpdus(k, q, o, counting, cx);
        }
        if counting && o == Outcome::Collision {
            let p = self.fns[k].port as usize;
            self.sta[p].stats.collisions += 1;
            self.fns[k].stats.collisions += 1;
        }
        self.fns[k].head_since = cx.now;
        if self.sta[self.fns[k].port as usize].txq.is_some() {
            self.txq_build(k, cx);
        }
        self.txop_goes_on(k, got_ba, cx)
    }

    /// The MPDUs of function `k`'s A-MPDU to `q`: acknowledged ones leave the queue for
    /// the reordering buffer, failed ones count a failure and stay (or are discarded at
    /// the retry limit); then the recipient passes up what it can.
    fn settle_mpdus(
        &mut self,
        k: usize,
        q: usize,
        o: Outcome,
        counting: bool,
        cx: &mut LinkCtx<'_>,
    ) {
        let p = self.fns[k].port as usize;
        let limit = self.conf.short_retry_limit;
        let link = if self.is_ap(p) { q } else { p };
        let fa = self.agg.as_deref_mut().unwrap().fns[k].as_mut().unwrap();
        let (sel, ok) = (std::mem::take(&mut fa.sel), std::mem::take(&mut fa.ok));
        // This A-MPDU's entries among the outstanding: the first ones for q.
        let mut idx = std::mem::take(&mut fa.idx);
        idx.clear();
        idx.extend(
            fa.outstanding
                .iter()
                .enumerate()
                .filter(|(_, x)| x.peer == q as u32)
                .map(|(i, _)| i)
                .take(sel.len()),
        );
        let mut acked = 0u64;
        // Backwards, so removals keep the earlier positions valid.
        for n in (0..sel.len()).rev() {
            let (bi, oi) = (sel[n] as usize, idx[n]);
            let arrived = o == Outcome::Success && ok.get(n).copied().unwrap_or(false);
            let fa = self.agg.as_deref_mut().unwrap().fns[k].as_mut().unwrap();
            if arrived {
                let out = fa.outstanding.remove(oi).unwrap();
                let pkt = self.fns[k].buf.remove(bi).unwrap();
                fa.held.push((q as u32, out.sn, pkt));
                acked += 1;
                self.txq_completed(k, q, pkt);
                continue;
            }
            let out = &mut fa.outstanding[oi];
            out.failures += 1;
            match o {
                Outcome::Collision => out.collided = true,
                _ => out.corrupted = true,
            }
            if counting && o != Outcome::Collision {
                self.sta[p].stats.errors += 1;
            }
            if out.failures < limit {
                if counting {
                    self.sta[p].stats.retries += 1;
                }
                continue;
            }
            let reason = match (out.collided, out.corrupted) {
                (true, false) => DropReason::Collision,
                (false, true) => DropReason::ChannelError,
                _ => DropReason::RetryLimit,
            };
            fa.outstanding.remove(oi);
            fa.agreements[q].bar_due = true;
            let pkt = self.fns[k].buf.remove(bi).unwrap();
            self.txq_completed(k, q, pkt);
            if counting {
                let st = &mut self.sta[p].stats;
                match reason {
                    DropReason::Collision => st.drops_collision += 1,
                    DropReason::ChannelError => st.drops_channel += 1,
                    _ => st.drops_retry += 1,
                }
                self.fns[k].stats.drops += 1;
            }
            self.release(k, q, pkt, Some(reason), cx);
        }
        if o == Outcome::Collision {
            // ns-3's explicit BlockAckReq after a missed BlockAck.
            self.fa(k).agreements[q].bar_due = true;
        }
        let n = sel.len().max(1) as f64;
        let up = !self.is_ap(p);
        super::ewma(&mut self.sta[link], up, acked as f64 / n);
        if counting {
            let delay = (cx.now - self.fns[k].head_since).0;
            let (s, f) = (&mut self.sta[p].stats, &mut self.fns[k].stats);
            s.sent += acked;
            f.sent += acked;
            s.access_delay += acked * delay;
            f.access_delay += acked * delay;
        }
        let fa = self.fa(k);
        fa.sel = sel;
        fa.ok = ok;
        fa.idx = idx;
        self.pass_up(k, q, cx);
    }

    /// The recipient `q` of function `k` passes up, in sequence order, every MPDU in its
    /// reordering buffer below the originator's WinStartO (all older ones are there or
    /// were discarded).
    fn pass_up(&mut self, k: usize, q: usize, cx: &mut LinkCtx<'_>) {
        let fa = self.fa(k);
        let oldest = fa
            .outstanding
            .iter()
            .find(|o| o.peer == q as u32)
            .map(|o| o.sn);
        let start = fa.agreements[q].win_start_o(oldest);
        fa.held
            .sort_unstable_by_key(|&(peer, sn, _)| (peer != q as u32, sn));
        let ready = fa
            .held
            .iter()
            .take_while(|&&(peer, sn, _)| peer == q as u32 && sn < start)
            .count();
        for i in 0..ready {
            let pkt = self.fa(k).held[i].2;
            self.release(k, q, pkt, None, cx);
        }
        self.fa(k).held.drain(..ready);
    }

    /// Packet `pkt` of function `k` leaves the sender's buffer: delivered to `q`, or
    /// dropped for `reason`.
    fn release(
        &mut self,
        k: usize,
        q: usize,
        pkt: PacketId,
        reason: Option<DropReason>,
        cx: &mut LinkCtx<'_>,
    ) {
        let p = self.fns[k].port as usize;
        let size = cx.packets.get(pkt).size_bytes;
        let reason = reason.or((q == p).then_some(DropReason::NoRoute));
        self.dq.leave(p, pkt, size, cx.now, reason);
        match reason {
            None => cx.emit(LinkEffect::Deliver {
                pkt,
                to: self.ports[q],
            }),
            Some(reason) => cx.emit(LinkEffect::Drop { pkt, reason }),
        }
        let s = &mut self.sta[p];
        let was_full = s.len == s.cap;
        s.len -= 1;
        if self.is_ap(p) && q != p {
            self.ap_backlog[q] -= 1;
        }
        if was_full {
            cx.emit(LinkEffect::Ready(self.ports[p]));
        }
    }

    /// After a BlockAck, function `k`'s TXOP goes on SIFS after it if the exchange of its
    /// head MPDU alone fits the time left (§10.22.2.8).
    fn txop_goes_on(&mut self, k: usize, got_ba: bool, cx: &LinkCtx<'_>) -> Option<SimTime> {
        let f = &self.fns[k];
        if !got_ba || f.txop == SimTime::ZERO || f.buf.is_empty() {
            return None;
        }
        let start = f.txop_from?;
        let next = self.idle_from - self.ifs.difs + self.ifs.sifs;
        let p = f.port as usize;
        let head = *f.buf.front().unwrap();
        let q = self.receiver(p, head, cx);
        let kbps = self.rate(p, q);
        let mpdu = cx.packets.get(head).size_bytes + self.sta[p].overhead;
        let ppdu = self.phy.psdu_duration(ampdu::with_subframe(0, mpdu), kbps);
        let t = ppdu + self.phy.sifs + self.block_ack_time(kbps);
        (next + t <= start + f.txop).then_some(next)
    }

    /// Packet `pkt` of AP function `k` to `q` completed (acknowledged or discarded): with
    /// mac80211 TXQs it leaves the driver and AQL releases its charge.
    fn txq_completed(&mut self, k: usize, q: usize, pkt: PacketId) {
        let p = self.fns[k].port as usize;
        let fi = k - self.sta[p].first as usize;
        if let Some(t) = self.sta[p].txq.as_mut() {
            t.completed(q, fi, pkt);
        }
    }

    /// An AP with mac80211 TXQs forms function `k`'s next aggregate (see the module
    /// documentation): the scheduler's station, its frames in the driver first, then
    /// MPDUs from its TXQ until the limits or AQL stop it; its frames go to the head of
    /// the function's queue.
    pub(super) fn txq_build(&mut self, k: usize, cx: &mut LinkCtx<'_>) {
        let p = self.fns[k].port as usize;
        let fi = k - self.sta[p].first as usize;
        let counting = cx.now >= self.stats_from;
        let was_empty = self.fns[k].buf.is_empty();
        let Some(q) = self.sta[p].txq.as_mut().and_then(|t| t.pick(fi)) else {
            return;
        };
        let kbps = self.rate(p, q);
        let overhead = self.sta[p].overhead;
        let ba = self.block_ack_time(kbps);
        let f = &self.fns[k];
        let max_time = if f.txop == SimTime::ZERO {
            PPDU_MAX_TIME
        } else {
            f.txop.saturating_sub(self.phy.sifs + ba).min(PPDU_MAX_TIME)
        };
        let lim = Limits {
            max_time,
            ..self.limits()
        };
        let window = lim.max_mpdus;
        let (start, next_sn, outs) = {
            let fa = self.agg.as_deref().unwrap().fns[k].as_ref().unwrap();
            let it = fa.outstanding.iter().filter(|o| o.peer == q as u32);
            let oldest = it.clone().next().map(|o| o.sn);
            let a = fa.agreements[q];
            (a.win_start_o(oldest), a.next_sn, it.count() as u32)
        };
        // The station's frames in the driver, in order: outstanding ones, then those
        // not sent yet. `m` counts them; `n`, `bytes` the aggregate so far.
        let (mut n, mut bytes, mut m) = (0u32, 0u32, 0u32);
        let mut full = false;
        let fits = |n: u32, next: u32| {
            n == 0
                || (n < lim.max_mpdus
                    && next <= lim.max_bytes
                    && self.phy.psdu_duration(next, kbps) <= lim.max_time)
        };
        let sn_of = |m: u32, outs_sn: Option<u32>| outs_sn.unwrap_or(next_sn + (m - outs));
        {
            let fa = self.agg.as_deref().unwrap().fns[k].as_ref().unwrap();
            let mut outs_it = fa.outstanding.iter().filter(|o| o.peer == q as u32);
            for &pkt in &self.fns[k].buf {
                if self.receiver(p, pkt, cx) != q {
                    continue;
                }
                let sn = sn_of(m, outs_it.next().map(|o| o.sn));
                m += 1;
                if full {
                    continue;
                }
                let next = ampdu::with_subframe(bytes, cx.packets.get(pkt).size_bytes + overhead);
                if !Agreement::in_window(start, window, sn) || !fits(n, next) {
                    full = true;
                    continue;
                }
                n += 1;
                bytes = next;
            }
        }
        let phy = &self.phy;
        let txq = self.sta[p].txq.as_deref_mut().unwrap();
        let est = |pkt: PacketId, a: &crate::packet::PacketArena| {
            let len = a.get(pkt).size_bytes + overhead;
            crate::link::wifi::txq::expected_tx_airtime_us(phy, kbps, len, true) * 1000
        };
        let mut added = 0;
        // The driver dequeues unless the frames already in it fill the aggregate.
        let dequeues = if full { 0 } else { u32::MAX };
        for _ in 0..dequeues {
            let sn = next_sn + (m - outs);
            if !Agreement::in_window(start, window, sn) || !txq.may_transmit(q, fi) {
                break;
            }
            let Some(pkt) = txq.pull(
                q,
                fi,
                est,
                cx,
                &mut self.ap_backlog,
                (&mut self.dq, p),
                counting,
            ) else {
                break;
            };
            self.fns[k].buf.push_back(pkt);
            added += 1;
            m += 1;
            let next = ampdu::with_subframe(bytes, cx.packets.get(pkt).size_bytes + overhead);
            if !(n == 0
                || (n < lim.max_mpdus
                    && next <= lim.max_bytes
                    && phy.psdu_duration(next, kbps) <= lim.max_time))
            {
                break; // it waits in the driver for the station's next aggregate
            }
            n += 1;
            bytes = next;
        }
        txq.formed(q, fi, counting);
        self.sta[p].len += added;
        // The station's frames to the head, each station's order kept.
        let mut first = 0;
        for i in 0..self.fns[k].buf.len() {
            let pkt = self.fns[k].buf[i];
            if self.receiver(p, pkt, cx) == q {
                let buf = &mut self.fns[k].buf;
                buf.remove(i);
                buf.insert(first, pkt);
                first += 1;
            }
        }
        if was_empty {
            self.fns[k].head_since = cx.now;
        }
    }
}
