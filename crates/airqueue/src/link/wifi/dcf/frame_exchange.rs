//! Frame exchanges of the shared-slot medium: what goes on the air when a back-off
//! expires, how the exchange ends, and what the sender does then (retry, discard, deliver,
//! continue its TXOP) — ns-3's `FrameExchangeManager` and the retry half of its `Txop`.
//!
//! **Exchanges.** A lone transmitter's frame exchange is `DATA SIFS ACK`, or `RTS SIFS CTS
//! SIFS DATA SIFS ACK` when the MPDU is longer than `rts_threshold` (§10.3.2.6). Everyone
//! hears the whole exchange (carrier sense, and the NAV that RTS/CTS and the Duration field
//! set, §10.3.2.4, cover the same interval in one collision domain), so its duration is
//! known when it starts. Several transmitters at once collide: the medium is busy for the
//! longest of their first frames (RTS or DATA), none is acknowledged, and everyone resumes
//! after EIFS. The colliding senders themselves would resume after their ACKTimeout
//! (§10.3.2.9), which ends before EIFS; this model aligns them to EIFS (one shared slot
//! reference, the assumption of Bianchi's model as well), which differs from ns-3 by at
//! most one slot per collision. A data frame is corrupted with the probability of the
//! station's bit-error model (`ber`, applied to the MPDU's bits; control frames are not
//! corrupted): the receiver sends no ACK and the others resume after EIFS.
//!
//! **Retries.** Failed attempts of a frame no longer than `rts_threshold` and failed RTS
//! count on the short retry counter, failed data frames sent after an RTS on the long one;
//! a frame is discarded when a counter reaches its limit (`short_retry_limit` 7,
//! `long_retry_limit` 4; §10.3.4.4). Its drop reason is `collision` when every attempt
//! collided, `channel_error` when every attempt was corrupted, `retry_limit` when both
//! happened.
//!
//! **Delivery.** The receiver gets the packet at the end of the data frame; the sender's
//! buffer frees its slot then too.

use super::{Cell, Outcome, Sta, NO_AP, OUTCOME};
use crate::engine::SimTime;
use crate::link::wifi::phy::{CTS_BYTES, RTS_BYTES};
use crate::link::wifi::txq::ApQueues;
use crate::link::{LinkCtx, LinkEffect};
use crate::packet::{DropReason, PacketId};

impl Cell {
    /// Function `k`'s head frame: the packet, its MPDU bytes, its receiver (the sender
    /// itself when the next hop is no neighbour) and the PHY rate.
    pub(super) fn head(&self, k: usize, cx: &LinkCtx<'_>) -> (PacketId, u32, usize, u32) {
        let p = self.fns[k].port as usize;
        let pkt = *self.fns[k].buf.front().expect("a transmitter has a frame");
        let (size, next_hop) = {
            let k = cx.packets.get(pkt);
            (k.size_bytes, k.next_hop)
        };
        let q = self.peer_of(p, next_hop).unwrap_or(p);
        (pkt, size + self.sta[p].overhead, q, self.rate(p, q))
    }

    /// Air time of a whole exchange of an `mpdu`-byte frame at `kbps`: [RTS SIFS CTS
    /// SIFS] DATA SIFS ACK.
    pub(super) fn exchange(&self, mpdu: u32, kbps: u32) -> SimTime {
        let t = self.phy.duration(mpdu, kbps) + self.phy.sifs + self.phy.ack_duration(kbps);
        t + self.handshake(mpdu, kbps)
    }

    /// Air time of the RTS/CTS handshake before an `mpdu`-byte frame at `kbps` with the
    /// SIFS after each, `RTS SIFS CTS SIFS` (§10.3.2.6); none when the MPDU is not longer
    /// than `rts_threshold`.
    fn handshake(&self, mpdu: u32, kbps: u32) -> SimTime {
        if mpdu <= self.conf.rts_threshold {
            return SimTime::ZERO;
        }
        let ctl = self.phy.response_kbps(kbps);
        let sifs = self.phy.sifs;
        self.phy.duration(RTS_BYTES, ctl) + sifs + self.phy.duration(CTS_BYTES, ctl) + sifs
    }

    /// The timer fired: every function whose back-off expires now transmits (one: its
    /// exchange; several: a collision), and the medium is busy until the exchange's end.
    pub(super) fn transmit(&mut self, cx: &mut LinkCtx<'_>) {
        let now = cx.now;
        if !self.seize(now) {
            return;
        }
        if self.on_air.len() > 1 {
            self.internal_collisions(cx);
        }
        let counting = now >= self.stats_from;
        for &k in &self.on_air {
            let f = &mut self.fns[k as usize];
            if f.txop_from.is_none() {
                f.txop_from = Some(now);
                if counting {
                    f.stats.txops += 1;
                }
            }
        }
        self.air.clear();
        let (decide, busy_end, outcome) = if self.on_air.len() == 1 {
            if self.aggregates(self.on_air[0] as usize) {
                self.ampdu_exchange(now, cx)
            } else {
                self.lone_exchange(now, cx)
            }
        } else {
            self.collide(now, counting, cx)
        };
        if outcome != Outcome::Collision {
            let p = self.fns[self.on_air[0] as usize].port as usize;
            let air = busy_end
                - now
                - if outcome == Outcome::Success {
                    self.ifs.difs
                } else {
                    self.ifs.eifs
                };
            self.air.push(air);
            if counting {
                self.sta[p].stats.airtime += air.0;
            }
        }
        self.outcome = outcome;
        self.idle_from = busy_end;
        cx.schedule(decide, OUTCOME);
    }

    /// The one function on the air starts its exchange at `now`: [RTS SIFS CTS SIFS] DATA,
    /// then SIFS ACK unless the data frame is corrupted (its bit errors, drawn now, decide).
    /// Returns the end of the data frame (when the outcome is known), the end of the busy
    /// period plus DIFS (EIFS after a corrupted frame) and the outcome.
    fn lone_exchange(&mut self, now: SimTime, cx: &mut LinkCtx<'_>) -> (SimTime, SimTime, Outcome) {
        let sifs = self.phy.sifs;
        let k = self.on_air[0] as usize;
        let p = self.fns[k].port as usize;
        let (pkt, mpdu, q, _) = self.head(k, cx);
        let kbps = self.attempt_kbps(k, q, cx);
        cx.tx_start(self.ports[p], pkt);
        let ctl = self.phy.response_kbps(kbps);
        let t = now + self.handshake(mpdu, kbps);
        let data_end = t + self.phy.duration(mpdu, kbps);
        let own_lost = self.link_errors(p, q, kbps).lost(8 * mpdu as u64);
        if let Some(a) = self.coex.as_deref_mut() {
            let rts = mpdu > self.conf.rts_threshold;
            let rts_end = if rts {
                now + self.phy.duration(RTS_BYTES, ctl)
            } else {
                now
            };
            let cts = rts_end + sifs;
            let cts = (cts, cts + self.phy.duration(CTS_BYTES, ctl));
            let bits = 8 * mpdu as u64;
            a.exchange(
                p,
                q,
                now,
                rts_end,
                cts,
                (t, data_end),
                bits,
                kbps,
                !own_lost,
            );
        }
        if own_lost {
            (
                data_end,
                self.ifs.idle_from(data_end, true),
                Outcome::Corrupted,
            )
        } else {
            let ack_end = data_end + sifs + self.phy.ack_duration(kbps);
            (
                data_end,
                self.ifs.idle_from(ack_end, false),
                Outcome::Success,
            )
        }
    }

    /// Several functions transmit at `now`: each sends its first frame (RTS or DATA), none
    /// is answered, and everyone resumes EIFS after the longest. Returns its end, that end
    /// plus EIFS, and [`Outcome::Collision`].
    fn collide(
        &mut self,
        now: SimTime,
        counting: bool,
        cx: &mut LinkCtx<'_>,
    ) -> (SimTime, SimTime, Outcome) {
        // A collision: each sends its first frame; the longest decides.
        let mut end = now;
        for j in 0..self.on_air.len() {
            let k = self.on_air[j] as usize;
            let p = self.fns[k].port as usize;
            let first = if self.aggregates(k) {
                self.ampdu_start(k, now, cx).0
            } else {
                self.first_frame(k, cx)
            };
            if counting {
                self.sta[p].stats.airtime += first.0;
            }
            if let Some(a) = self.coex.as_deref() {
                a.frame(p, now, now + first);
            }
            self.air.push(first);
            end = end.max(now + first);
        }
        let idle_from = match self.agg.is_some() {
            true => self.ampdu_tail_reception(now),
            false => None,
        };
        (
            end,
            idle_from.unwrap_or_else(|| self.ifs.idle_from(end, true)),
            Outcome::Collision,
        )
    }

    /// The first frame (RTS or DATA) of function `k`'s single-MPDU exchange, sent into a
    /// collision: its air time.
    fn first_frame(&mut self, k: usize, cx: &mut LinkCtx<'_>) -> SimTime {
        let p = self.fns[k].port as usize;
        let (pkt, mpdu, q, _) = self.head(k, cx);
        let kbps = self.attempt_kbps(k, q, cx);
        cx.tx_start(self.ports[p], pkt);
        if mpdu > self.conf.rts_threshold {
            self.phy.duration(RTS_BYTES, self.phy.response_kbps(kbps))
        } else {
            self.phy.duration(mpdu, kbps)
        }
    }

    /// Several functions of one port expired in the same slot (§10.22.2.4): the highest
    /// AC keeps the slot; each lower one fails as on a collision and backs off again.
    /// `on_air` is in function order: port by port, ACs ascending.
    fn internal_collisions(&mut self, cx: &mut LinkCtx<'_>) {
        let counting = cx.now >= self.stats_from;
        let mut j = 0;
        while j + 1 < self.on_air.len() {
            let (k, next) = (self.on_air[j] as usize, self.on_air[j + 1] as usize);
            if self.fns[k].port != self.fns[next].port {
                j += 1;
                continue;
            }
            self.on_air.remove(j);
            if counting {
                self.fns[k].stats.internal += 1;
            }
            if self.aggregates(k) {
                // Its A-MPDU was not sent: CW doubles, no MPDU counts a failure.
                self.fns[k].backoff.double_cw();
                self.draw(k);
                self.fns[k].txop_from = None;
                continue;
            }
            let (pkt, _, q, _) = self.head(k, cx);
            let done = self.fail(k, pkt, Outcome::Collision, false, false, counting, cx);
            if done {
                let peer = (q != self.fns[k].port as usize).then_some(q);
                self.finish(k, peer, cx);
            }
            self.draw(k);
            self.fns[k].txop_from = None;
        }
    }

    /// Function `k`'s attempt at `pkt` failed with `o` (`on_air`: on the medium, not an
    /// internal collision): count it on the long retry counter (`long`: a data frame sent
    /// after a CTS) or the short one, double CW or discard the frame at the retry limit
    /// (§10.3.4.4). Returns whether the frame was discarded. A frame the receiver already
    /// has (its ACK was lost) is discarded without a drop.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fail(
        &mut self,
        k: usize,
        pkt: PacketId,
        o: Outcome,
        long: bool,
        on_air: bool,
        counting: bool,
        cx: &mut LinkCtx<'_>,
    ) -> bool {
        let (short_limit, long_limit) = (self.conf.short_retry_limit, self.conf.long_retry_limit);
        let delivered = self.hx.as_deref().is_some_and(|h| h.delivered(k));
        let p = self.fns[k].port as usize;
        let f = &mut self.fns[k];
        let st = &mut self.sta[p].stats;
        match o {
            Outcome::Collision => f.collided = true,
            Outcome::Corrupted => f.corrupted = true,
            _ => {}
        }
        if counting && on_air {
            match o {
                Outcome::Collision => {
                    st.collisions += 1;
                    f.stats.collisions += 1;
                }
                Outcome::Corrupted => st.errors += 1,
                _ => {}
            }
        }
        // An RTS failure or a short frame: the short counter; a long data frame after a
        // CTS: the long one.
        let exhausted = if long {
            f.lrc += 1;
            f.lrc >= long_limit
        } else {
            f.src += 1;
            f.src >= short_limit
        };
        if exhausted {
            let reason = match (f.collided, f.corrupted) {
                (true, false) => DropReason::Collision,
                (false, true) => DropReason::ChannelError,
                _ => DropReason::RetryLimit,
            };
            if delivered {
                return true;
            }
            f.discarded = Some(reason);
            if counting {
                f.stats.drops += 1;
                match reason {
                    DropReason::Collision => st.drops_collision += 1,
                    DropReason::ChannelError => st.drops_channel += 1,
                    _ => st.drops_retry += 1,
                }
            }
            cx.emit(LinkEffect::Drop { pkt, reason });
        } else {
            f.backoff.double_cw();
            if counting {
                st.retries += 1;
            }
        }
        exhausted
    }

    /// Function `k`'s head frame is done (acknowledged or discarded): the next one comes
    /// to the head, the counters reset, the buffer has room again.
    pub(super) fn finish(&mut self, k: usize, peer: Option<usize>, cx: &mut LinkCtx<'_>) {
        let now = cx.now;
        let p = self.fns[k].port as usize;
        let f = &mut self.fns[k];
        let pkt = f
            .buf
            .pop_front()
            .expect("a finished function has a head frame");
        let discarded = f.discarded.take();
        let size = cx.packets.get(pkt).size_bytes;
        self.dq.leave(p, pkt, size, now, discarded);
        f.chain = None;
        f.backoff.reset_cw();
        f.src = 0;
        f.lrc = 0;
        f.collided = false;
        f.corrupted = false;
        f.head_since = now;
        if let Some(h) = self.hx.as_deref_mut() {
            h.new_head(k);
        }
        let s = &mut self.sta[p];
        let was_full = s.len == s.cap;
        s.len -= 1;
        if self.ap_of[p] as usize == p {
            if let Some(q) = peer {
                self.ap_backlog[q] -= 1;
            }
        }
        if was_full {
            cx.emit(LinkEffect::Ready(self.ports[p]));
        }
        self.refill(k, cx);
    }

    /// An AP with mac80211 queues: if function `k`'s hardware queue is empty, the airtime
    /// scheduler hands it the next frame, or with aggregation the driver forms the next
    /// aggregate ([`Cell::txq_build`]) (without contending: the caller does).
    pub(super) fn refill(&mut self, k: usize, cx: &mut LinkCtx<'_>) {
        let p = self.fns[k].port as usize;
        if !self.fns[k].buf.is_empty() {
            return;
        }
        if self.aggregates(k) && self.sta[p].txq.is_some() {
            self.txq_build(k, cx);
            return;
        }
        let fi = k - self.sta[p].first as usize;
        let counting = cx.now >= self.stats_from;
        let Some(txq) = self.sta[p].txq.as_mut() else {
            return;
        };
        let dq = (&mut self.dq, p);
        if let Some((pkt, _)) = txq.dequeue(fi, cx, &mut self.ap_backlog, dq, counting) {
            self.fns[k].buf.push_back(pkt);
            self.fns[k].head_since = cx.now;
            self.sta[p].len += 1;
        }
    }

    /// Charges function `k`'s part `air` of the exchange to the airtime scheduler of its
    /// AP: the AP's frames to a station always, a station's frames when they succeeded.
    #[inline(always)]
    pub(super) fn charge(
        &mut self,
        k: usize,
        peer: Option<usize>,
        air: SimTime,
        ok: bool,
        counting: bool,
    ) {
        let p = self.fns[k].port as usize;
        let fi = k - self.sta[p].first as usize;
        if self.ap_of[p] == NO_AP {
            return; // an IBSS has no AP queues
        }
        let ap = self.ap_of[p] as usize;
        let sta = if ap == p {
            match peer {
                Some(q) => q,
                None => return,
            }
        } else if ok {
            p
        } else {
            return;
        };
        if let Some(txq) = self.sta[ap].txq.as_mut() {
            txq.charge(sta, fi.min(txq_fns(txq) - 1), air, counting);
        }
    }

    /// The exchange's deciding frame ended: deliver or count the failure, then contend.
    pub(super) fn settle(&mut self, cx: &mut LinkCtx<'_>) {
        let now = cx.now;
        let counting = now >= self.stats_from;
        self.settle_air(now, counting);
        // The function whose TXOP continues, and when its next frame starts.
        let mut txop_next: Option<(usize, SimTime)> = None;
        for j in 0..self.on_air.len() {
            let k = self.on_air[j] as usize;
            if self.aggregates(k) {
                let air = self.air[j];
                let o = self.ampdu_outcome(k, self.outcome);
                match self.ampdu_settle(k, o, air, counting, cx) {
                    Some(next) => txop_next = Some((k, next)),
                    None => {
                        self.draw(k);
                        self.fns[k].txop_from = None;
                    }
                }
                continue;
            }
            let p = self.fns[k].port as usize;
            let pkt = *self.fns[k].buf.front().expect("a transmitter has a frame");
            let (size, next_hop) = {
                let k = cx.packets.get(pkt);
                (k.size_bytes, k.next_hop)
            };
            let q = self.peer_of(p, next_hop);
            let link = match q {
                Some(q) if self.is_ap(p) => q,
                _ => p,
            };
            let up = !self.is_ap(p);
            let long = size + self.sta[p].overhead > self.conf.rts_threshold;
            let air = self.air[j];
            self.charge(k, q, air, self.outcome == Outcome::Success, counting);
            self.rc_report(k, q.unwrap_or(p), self.outcome == Outcome::Success, cx);
            let done = match self.outcome {
                Outcome::Success => {
                    ewma(&mut self.sta[link], up, 1.0);
                    let f = &mut self.fns[k];
                    let s = &mut self.sta[p];
                    if counting {
                        s.stats.sent += 1;
                        s.stats.access_delay += (now - f.head_since).0;
                        f.stats.sent += 1;
                        f.stats.access_delay += (now - f.head_since).0;
                    }
                    match q {
                        Some(q) => cx.emit(LinkEffect::Deliver {
                            pkt,
                            to: self.ports[q],
                        }),
                        None => {
                            self.fns[k].discarded = Some(DropReason::NoRoute);
                            cx.emit(LinkEffect::Drop {
                                pkt,
                                reason: DropReason::NoRoute,
                            })
                        }
                    }
                    true
                }
                o => {
                    ewma(&mut self.sta[link], up, 0.0);
                    self.fail(
                        k,
                        pkt,
                        o,
                        long && o == Outcome::Corrupted,
                        true,
                        counting,
                        cx,
                    )
                }
            };
            if done {
                self.finish(k, q, cx);
            }
            // The TXOP goes on if the next frame's exchange ends within the limit.
            let f = &self.fns[k];
            if self.outcome == Outcome::Success && f.txop > SimTime::ZERO && !f.buf.is_empty() {
                let start = f.txop_from.expect("a transmitter holds a TXOP");
                let next = self.idle_from - self.ifs.difs + self.ifs.sifs;
                let (_, mpdu, _, kbps) = self.head(k, cx);
                if next + self.exchange(mpdu, kbps) <= start + f.txop {
                    txop_next = Some((k, next));
                    continue;
                }
            }
            // A new back-off after every attempt (post-back-off if the queue is empty).
            self.draw(k);
            self.fns[k].txop_from = None;
        }
        self.on_air.clear();
        // Only the TXOP holder (set below) has a frame and no back-off: every other
        // function with a frame transmitted or kept a counter.
        self.resume();
        if let Some((k, at)) = txop_next {
            self.cont.file_at(k, at);
        }
        self.rearm(cx);
    }

    /// With a spectrum: the data frame that just ended is asked whether the interference
    /// destroyed it; if so, the exchange ends here (no ACK; EIFS), as for a frame its own
    /// channel corrupted.
    fn settle_air(&mut self, now: SimTime, counting: bool) {
        let Some(a) = self.coex.as_deref_mut() else {
            return;
        };
        let Some(kbps) = a.pending_kbps() else {
            return;
        };
        let ack = self.phy.ack_duration(kbps);
        if a.settle(now + self.phy.sifs, ack, counting) == Some(true) {
            let cut = (self.idle_from - self.ifs.difs).saturating_sub(now);
            self.outcome = Outcome::Corrupted;
            self.idle_from = self.ifs.idle_from(now, true);
            self.air[0] = self.air[0].saturating_sub(cut);
            let p = self.fns[self.on_air[0] as usize].port as usize;
            let st = &mut self.sta[p].stats;
            st.airtime = st.airtime.saturating_sub(cut.0);
        }
    }
}

/// Functions per port an AP's queues were made for.
fn txq_fns(t: &ApQueues) -> usize {
    t.functions()
}

/// Folds an attempt outcome into a link's delivery estimate (EWMA, weight ¼ on the new
/// outcome, as Minstrel's default EWMA level of 75 % on the old).
pub(super) fn ewma(s: &mut Sta, up: bool, outcome: f64) {
    let q = if up {
        &mut s.quality_up
    } else {
        &mut s.quality_down
    };
    *q = Some(q.map_or(outcome, |x| 0.75 * x + 0.25 * outcome));
}
