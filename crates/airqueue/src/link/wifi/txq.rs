//! The AP's queues as mac80211 keeps them (Linux ≥ 4.10 intermediate queues, with the
//! airtime fairness scheduler of Høiland-Jørgensen et al., "Ending the Anomaly",
//! USENIX ATC 2017; `net/mac80211/tx.c` and `sta_info.c`, the deficit-based scheduler of
//! Linux 5.0–5.9): one queue (TXQ) per station and access category, each an FQ-CoDel
//! (mac80211's `fq` with per-flow CoDel), and per access category a deficit round robin
//! over the stations whose deficit is **air time**:
//!
//! - The hardware asks for a frame when its queue for an AC empties (here: one frame per
//!   AC on the air at a time). The scheduler looks at the first station of the AC's
//!   round; if that station's deficit is negative it adds the quantum (mac80211's
//!   `IEEE80211_DEFAULT_AIRTIME_WEIGHT`, 256 µs) and moves it to the end of the round;
//!   otherwise that station's TXQ hands out its next packet (FQ-CoDel's DRR over its
//!   flows, CoDel dropping at dequeue). A station whose TXQ empties leaves the round and
//!   joins its end again with its next packet, its deficit kept (`ieee80211_next_txq`,
//!   `ieee80211_return_txq`).
//! - Every exchange is charged to the station's deficit for that AC: the AP's frames to it,
//!   including failed attempts (`ieee80211_sta_register_airtime`'s tx airtime, which the
//!   drivers report with retries), and its acknowledged frames to the AP (rx airtime).
//!   The charge is the exchange's air time as the stations table measures it (frames,
//!   SIFS, the responses; a collided frame its own duration).
//! - FQ-CoDel parameters as mac80211 sets them (`ieee80211_txq_setup_flows`): quantum
//!   300 B, CoDel target 20 ms, interval 100 ms, ECN on (the 50 ms / 300 ms setting for
//!   "slow" stations was reverted in Linux 6.1), packet limit 8192 and memory limit
//!   16 MiB. mac80211 shares one flow table of 4096 among all TXQs; here each TXQ has 64
//!   flows of its own and its own limits.
//!
//! The port of an AP with these queues is always ready: packets go straight from the
//! qdisc into the TXQs (as mac80211 runs with `noqueue`), so the qdisc above holds nothing.
//!
//! **With A-MPDU aggregation** (an 802.11n/ac/ax cell; ath9k's `ath_txq_schedule` →
//! `ath_tx_sched_aggr` → `ath_tx_form_aggr` over mac80211's `ieee80211_next_txq` /
//! `ieee80211_tx_dequeue`) the driver asks for a station rather than a frame: the
//! scheduler above picks it ([`ApQueues::pick`], the same air-time deficit round), and
//! the driver then dequeues that station's MPDUs one by one from its TXQ
//! ([`ApQueues::pull`], FQ-CoDel's dequeue each, CoDel applying per dequeue) until the
//! aggregate is full (`dcf/aggregate.rs`). MPDUs that failed stay in the driver (ath9k's
//! per-TID `retry_q`) and go first in that station's next aggregate; a station with such
//! frames stays in the round even when its TXQ is empty (`ieee80211_return_txq(…,
//! force)`, ath9k passes `force` while its retry queue is not empty). The whole exchange
//! (PPDU, SIFS, BlockAck) is charged to the station's deficit.
//!
//! **AQL** (airtime queue limits, Linux ≥ 5.5, `net/mac80211/tx.c`
//! `ieee80211_txq_airtime_check`, `sta_info.c` `ieee80211_sta_update_pending_airtime`):
//! each MPDU handed to the driver is charged its *estimated* air time
//! ([`expected_tx_airtime_us`], `ieee80211_calc_expected_tx_airtime`) to its station's
//! pending air time for the AC and to the interface's total; the charge is released
//! when the MPDU completes (acknowledged, or discarded at its retry limit; a retried MPDU
//! stays pending, as Linux reports its status only once). A TXQ may hand out frames while
//! its pending air time is below `txq_limit_low` (Linux's
//! `IEEE80211_DEFAULT_AQL_TXQ_LIMIT_L`, 5 ms), or below `txq_limit_high`
//! (`_H`, 12 ms) while the interface's total is below `threshold`
//! (`IEEE80211_AQL_THRESHOLD`, 24 ms) — Linux 5.5 … 6.x's values; there is no separate
//! interface limit in mainline (`IEEE80211_DEFAULT_AQL_INTERFACE_LIMIT` was only in the
//! patch's first version).
//!
//! **Hardware queue depth.** Here the hardware holds one aggregate per AC: the next one
//! is formed when the previous one's BlockAck (or its absence) is known (ath9k keeps up
//! to `ATH_AGGR_MIN_QDEPTH` = 2 in its hardware queue; with a single shared medium and
//! one PPDU per AC on the air, the second one only waits). With that depth Linux's check,
//! made once per `ieee80211_next_txq`, would never bind (a station picked has nothing
//! pending but its own retries), so the check is made **before each dequeue** of the
//! aggregate: AQL then bounds the estimated air time a station has in the driver (its
//! retries plus the aggregate being formed) to its limit plus one MPDU. With Linux's
//! defaults (≥ 5 ms against aPPDUMaxTime 5.484 ms) it rarely binds; smaller limits
//! shorten the aggregates (`aql` of the cell). AQL is a driver's opt-in in Linux
//! (`NL80211_EXT_FEATURE_AQL`: ath10k, mt76, …; ath9k does not set it), so it is off
//! unless the scenario asks for it.

use crate::conf::{Bytes, Duration};
use crate::engine::{stream, SimTime};
use crate::link::DriverLedger;
use crate::link::{LinkCtx, LinkEffect};
use crate::packet::{PacketArena, PacketId};
use crate::qdisc::{DevInfo, DropSink, FqCodel, FqCodelConf, Qdisc, QdiscCtx};
use rand::Rng;
use std::collections::VecDeque;

/// Settings of the AP's mac80211 queues.
#[derive(Clone, Debug)]
pub struct TxqConf {
    /// Air time added to a station's deficit per round (256 µs).
    pub quantum: SimTime,
    /// Whether stations are scheduled by air time at all; `false` keeps the per-station
    /// FQ-CoDel queues but serves stations in plain round robin of one packet each
    /// (mac80211 without `NL80211_EXT_FEATURE_AIRTIME_FAIRNESS`).
    pub airtime_fair: bool,
    /// Airtime queue limits (`None`: off, as for drivers without
    /// `NL80211_EXT_FEATURE_AQL`).
    pub aql: Option<AqlConf>,
}

impl Default for TxqConf {
    fn default() -> Self {
        TxqConf {
            quantum: SimTime::from_micros(256),
            airtime_fair: true,
            aql: None,
        }
    }
}

/// mac80211's airtime queue limits (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AqlConf {
    /// Per station and AC: hand out frames while the pending air time is below this.
    pub limit_low: SimTime,
    /// … or below this while the interface's total pending is below `threshold`.
    pub limit_high: SimTime,
    pub threshold: SimTime,
}

/// `IEEE80211_DEFAULT_AQL_TXQ_LIMIT_L`: 5000 µs.
pub const AQL_TXQ_LIMIT_L: SimTime = SimTime(5_000_000);
/// `IEEE80211_DEFAULT_AQL_TXQ_LIMIT_H`: 12 000 µs.
pub const AQL_TXQ_LIMIT_H: SimTime = SimTime(12_000_000);
/// `IEEE80211_AQL_THRESHOLD`: 24 000 µs.
pub const AQL_THRESHOLD: SimTime = SimTime(24_000_000);

impl Default for AqlConf {
    fn default() -> Self {
        AqlConf {
            limit_low: AQL_TXQ_LIMIT_L,
            limit_high: AQL_TXQ_LIMIT_H,
            threshold: AQL_THRESHOLD,
        }
    }
}

/// `ieee80211_calc_expected_tx_airtime` (`net/mac80211/airtime.c`) for an MPDU of `len`
/// octets to a station whose last rate is MCS `m` with `nss` streams at `phy`'s width
/// and guard interval, sent in an A-MPDU (`ampdu`; every AC but AC_VO) or alone, in µs.
/// Linux adds 38 octets to the frame, takes the data time of a 1024-octet packet at that
/// rate in units of 1/1024 µs (symbols of 4 µs, 3.6 µs with the short GI, HE 13.6/14.4/16
/// µs, for ⌈8192·1024 / N_DBPS⌉ kilo-symbols, truncated to the rate group's 16-bit table
/// precision), scales it to the length, and adds the PHY overhead 36 + 4·N_SS µs — in an
/// aggregate only a share of it (`agg_shift`: the slower the rate, the fewer MPDUs Linux
/// assumes per A-MPDU), at least 4 µs. N_DBPS is the PHY's (Linux's HT and VHT tables
/// hold the same numbers; its HE table's are up to 2 % lower). A non-HT rate
/// (`nss` = 0, `kbps` its rate): preamble and SIFS 36 µs plus the bits at the rate.
pub fn expected_tx_airtime_us(phy: &super::phy::Phy, rate_id: u32, len: u32, ampdu: bool) -> u64 {
    use super::phy::{mcs_of, Standard};
    let len = len as u64 + 38;
    let Some((nss, m)) = mcs_of(rate_id) else {
        // ieee80211_calc_legacy_rate_duration (OFDM): 20 + 16 µs + bits at the rate.
        let kbps = rate_id as u64;
        return 36 + len * 8 * 1000 / kbps.max(1);
    };
    let he = phy.standard == Standard::Ax;
    let sym = |ksyms: u64| -> u64 {
        if he {
            match phy.gi_ns {
                800 => ksyms * 16 * 17 / 20,
                1600 => ksyms * 16 * 18 / 20,
                _ => ksyms * 16,
            }
        } else if phy.gi_ns == 400 {
            ksyms * 4 * 18 / 20
        } else {
            ksyms * 4
        }
    };
    let dur = |n_dbps: u32| sym(((8192u64) << 10).div_ceil(n_dbps as u64));
    // The rate group's table keeps 16 bits: shift by the bits its MCS 0 needs above 16.
    let base = dur(phy.mcs_symbol(nss, 0).0);
    let shift = (64 - base.leading_zeros()).saturating_sub(16);
    let duration = (dur(phy.mcs_symbol(nss, m).0) >> shift) << shift;
    let overhead = 36 + 4 * nss as u64;
    if !ampdu {
        return duration * len / 1024 / 1024 + overhead;
    }
    let agg_shift = if duration > 400 * 1024 {
        1
    } else if duration > 250 * 1024 {
        2
    } else if duration > 150 * 1024 {
        3
    } else if duration > 70 * 1024 {
        4
    } else if !he || duration > 20 * 1024 {
        5
    } else {
        6
    };
    (duration * len / 1024 / 1024 + (overhead >> agg_shift)).max(4)
}

/// Packets one TXQ holds at most (FQ-CoDel's `limit` as mac80211 sets it).
pub const TXQ_LIMIT: u32 = 8192;

/// mac80211's FQ-CoDel parameters for one TXQ (see the module documentation).
fn fq_conf() -> FqCodelConf {
    FqCodelConf {
        limit: TXQ_LIMIT,
        flows: 64,
        quantum: Some(300),
        target: Duration(SimTime::from_millis(20)),
        interval: Duration(SimTime::from_millis(100)),
        ecn: true,
        memory_limit: Bytes(16 << 20),
        drop_batch: 1,
    }
}

/// Per (station, AC) counters, since the warm-up.
#[derive(Clone, Debug, Default)]
pub struct TxqStats {
    /// Air time charged, ns.
    pub airtime: u64,
    pub aqm_drops: u64,
    pub overlimit_drops: u64,
    /// With aggregation: A-MPDUs formed for the station and MPDUs dequeued into them.
    pub aggregates: u64,
    pub mpdus: u64,
    /// With AQL: the largest pending (estimated) air time seen, ns.
    pub aql_pending_max: u64,
}

/// The TXQs and the airtime scheduler of one AP.
pub struct ApQueues {
    conf: TxqConf,
    /// Functions (ACs) per port: 1 (DCF) or 4 (EDCA).
    nfn: usize,
    /// Per (station port, AC): its TXQ, made at its first packet.
    fq: Vec<Option<Box<FqCodel>>>,
    deficit: Vec<i64>,
    listed: Vec<bool>,
    /// Per AC: the stations with packets, in round order.
    round: Vec<VecDeque<u32>>,
    stats: Vec<TxqStats>,
    /// Packets in all TXQs.
    len: usize,
    dev: DevInfo,
    sink: DropSink,
    /// `cell:<name>:txq:<ap>`: the FQ hash perturbations.
    stream_name: String,
    seed: u64,
    /// With aggregation: per (station, AC) the frames handed to the driver and not yet
    /// completed (its retry queue and the aggregate being formed or sent).
    in_driver: Vec<u32>,
    /// AQL: per (station, AC) the pending estimated air time (ns), the interface's
    /// total, and per frame in the driver its charge (packet, TXQ index, ns).
    pending: Vec<u64>,
    total_pending: u64,
    charges: Vec<(PacketId, u32, u64)>,
}

impl ApQueues {
    /// Queues of an AP on a medium of `ports` ports with `nfn` functions each.
    pub fn new(conf: TxqConf, ports: usize, nfn: usize, name: &str, seed: u64) -> ApQueues {
        ApQueues {
            conf,
            nfn,
            fq: (0..ports * nfn).map(|_| None).collect(),
            deficit: vec![0; ports * nfn],
            listed: vec![false; ports * nfn],
            round: vec![VecDeque::new(); nfn],
            stats: vec![TxqStats::default(); ports * nfn],
            len: 0,
            dev: DevInfo {
                name: name.to_string(),
                rate_bps: 0,
                mtu: 1500,
                psched_mtu: 1500,
                link_header: 0,
                stab: None,
            },
            sink: DropSink::new(),
            stream_name: format!("{name}:txq"),
            seed,
            in_driver: vec![0; ports * nfn],
            pending: vec![0; ports * nfn],
            total_pending: 0,
            charges: Vec::with_capacity(64 * ports),
        }
    }

    /// Functions (ACs) per station the queues were made for.
    pub fn functions(&self) -> usize {
        self.nfn
    }

    /// Packets held in the TXQs.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Counters of station `sta`'s TXQ for function `fi`.
    pub fn stats(&self, sta: usize, fi: usize) -> &TxqStats {
        &self.stats[sta * self.nfn + fi]
    }

    /// Reports the packets the TXQs dropped as link drops, one fewer in `backlog` of
    /// their station each.
    fn flush_drops(
        &mut self,
        sta: usize,
        cx: &mut LinkCtx<'_>,
        backlog: &mut [u32],
        dq: (&mut DriverLedger, usize),
    ) {
        self.sink.take_marks();
        for (pkt, reason) in self.sink.pending.drain(..) {
            self.len -= 1;
            backlog[sta] -= 1;
            let size = cx.packets.get(pkt).size_bytes;
            dq.0.leave(dq.1, pkt, size, cx.now, Some(reason));
            cx.emit(LinkEffect::Drop { pkt, reason });
        }
    }

    fn ctx<'a>(
        dev: &'a DevInfo,
        sink: &'a mut DropSink,
        now: SimTime,
        packets: &'a mut PacketArena,
    ) -> QdiscCtx<'a> {
        QdiscCtx::new(now, packets, dev, sink)
    }

    /// `pkt` for station `sta` in access category (function) `fi` enters its TXQ.
    pub(crate) fn enqueue(
        &mut self,
        sta: usize,
        fi: usize,
        pkt: PacketId,
        cx: &mut LinkCtx<'_>,
        backlog: &mut [u32],
        dq: (&mut DriverLedger, usize),
        counting: bool,
    ) {
        let t = sta * self.nfn + fi;
        if self.fq[t].is_none() {
            let name = format!("{}:{sta}:{fi}", self.stream_name);
            let perturbation = stream(self.seed, &name).random::<u64>();
            self.fq[t] = Some(Box::new(FqCodel::new(&fq_conf(), 1500, perturbation)));
        }
        self.len += 1;
        let before = self.fq[t].as_ref().unwrap().stats().overlimit_drops;
        let mut q = Self::ctx(&self.dev, &mut self.sink, cx.now, cx.packets);
        let fq = self.fq[t].as_mut().unwrap();
        fq.enqueue(pkt, &mut q);
        let after = fq.stats().overlimit_drops;
        if counting {
            self.stats[t].overlimit_drops += after - before;
        }
        if !self.listed[t] {
            self.listed[t] = true;
            self.round[fi].push_back(sta as u32);
        }
        self.flush_drops(sta, cx, backlog, (&mut *dq.0, dq.1));
    }

    /// The next packet for the hardware queue of function `fi`, and its station: the
    /// airtime DRR's choice (see the module documentation).
    pub(crate) fn dequeue(
        &mut self,
        fi: usize,
        cx: &mut LinkCtx<'_>,
        backlog: &mut [u32],
        dq: (&mut DriverLedger, usize),
        counting: bool,
    ) -> Option<(PacketId, usize)> {
        let quantum = self.conf.quantum.0 as i64;
        loop {
            let sta = *self.round[fi].front()? as usize;
            let t = sta * self.nfn + fi;
            if self.conf.airtime_fair && self.deficit[t] < 0 {
                self.deficit[t] += quantum;
                self.round[fi].rotate_left(1);
                continue;
            }
            let fq = self.fq[t].as_mut().expect("a listed TXQ exists");
            let aqm_before = fq.stats().aqm_drops;
            let mut q = Self::ctx(&self.dev, &mut self.sink, cx.now, cx.packets);
            let pkt = fq.dequeue(&mut q);
            let aqm = fq.stats().aqm_drops - aqm_before;
            let empty = fq.len() == 0;
            if counting {
                self.stats[t].aqm_drops += aqm;
            }
            self.flush_drops(sta, cx, backlog, (&mut *dq.0, dq.1));
            if empty {
                self.round[fi].retain(|&s| s as usize != sta);
                self.listed[t] = false;
            } else if !self.conf.airtime_fair {
                self.round[fi].rotate_left(1);
            }
            if let Some(p) = pkt {
                self.len -= 1;
                return Some((p, sta));
            }
        }
    }

    /// `ieee80211_next_txq` for the driver of function `fi` when it forms an aggregate:
    /// the station whose TXQ (or driver retry queue) is served next by the air-time
    /// deficit round, without dequeuing. A station with neither frames in its TXQ nor in
    /// the driver leaves the round here (`ieee80211_return_txq` without `force`).
    pub(crate) fn pick(&mut self, fi: usize) -> Option<usize> {
        let quantum = self.conf.quantum.0 as i64;
        loop {
            let sta = *self.round[fi].front()? as usize;
            let t = sta * self.nfn + fi;
            let queued = self.fq[t].as_ref().is_some_and(|f| f.len() > 0);
            if !queued && self.in_driver[t] == 0 {
                self.round[fi].pop_front();
                self.listed[t] = false;
                continue;
            }
            if self.conf.airtime_fair && self.deficit[t] < 0 {
                self.deficit[t] += quantum;
                self.round[fi].rotate_left(1);
                continue;
            }
            if !self.conf.airtime_fair {
                self.round[fi].rotate_left(1);
            }
            return Some(sta);
        }
    }

    /// Whether AQL lets station `sta`'s TXQ for `fi` hand out a frame now (always
    /// without AQL): `ieee80211_txq_airtime_check`.
    pub(crate) fn may_transmit(&self, sta: usize, fi: usize) -> bool {
        let Some(a) = self.conf.aql else {
            return true;
        };
        let pending = self.pending[sta * self.nfn + fi];
        pending < a.limit_low.0 || (self.total_pending < a.threshold.0 && pending < a.limit_high.0)
    }

    /// `ieee80211_tx_dequeue` for the driver forming an aggregate for station `sta` in
    /// function `fi`: its TXQ's next packet (FQ-CoDel's choice, CoDel dropping at
    /// dequeue), now in the driver, charged `airtime` (its estimate, ns) to AQL if on.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn pull(
        &mut self,
        sta: usize,
        fi: usize,
        airtime: impl Fn(PacketId, &PacketArena) -> u64,
        cx: &mut LinkCtx<'_>,
        backlog: &mut [u32],
        dq: (&mut DriverLedger, usize),
        counting: bool,
    ) -> Option<PacketId> {
        let t = sta * self.nfn + fi;
        let fq = self.fq[t].as_mut()?;
        let aqm_before = fq.stats().aqm_drops;
        let mut q = Self::ctx(&self.dev, &mut self.sink, cx.now, cx.packets);
        let pkt = fq.dequeue(&mut q);
        let aqm = fq.stats().aqm_drops - aqm_before;
        if counting {
            self.stats[t].aqm_drops += aqm;
        }
        self.flush_drops(sta, cx, backlog, (&mut *dq.0, dq.1));
        let pkt = pkt?;
        self.len -= 1;
        self.in_driver[t] += 1;
        if counting {
            self.stats[t].mpdus += 1;
        }
        if self.conf.aql.is_some() {
            let est = airtime(pkt, cx.packets);
            self.pending[t] += est;
            self.total_pending += est;
            self.charges.push((pkt, t as u32, est));
            if counting {
                self.stats[t].aql_pending_max = self.stats[t].aql_pending_max.max(self.pending[t]);
            }
        }
        Some(pkt)
    }

    /// An aggregate was formed for station `sta` in function `fi`.
    pub(crate) fn formed(&mut self, sta: usize, fi: usize, counting: bool) {
        if counting {
            self.stats[sta * self.nfn + fi].aggregates += 1;
        }
    }

    /// Frame `pkt` of station `sta` in function `fi`, handed out by [`Self::pull`],
    /// completed (acknowledged or discarded): it leaves the driver and its AQL charge is
    /// released (`ieee80211_sta_update_pending_airtime`).
    pub(crate) fn completed(&mut self, sta: usize, fi: usize, pkt: PacketId) {
        let t = sta * self.nfn + fi;
        self.in_driver[t] -= 1;
        if self.conf.aql.is_some() {
            if let Some(i) = self.charges.iter().position(|c| c.0 == pkt) {
                let (_, tt, est) = self.charges.swap_remove(i);
                self.pending[tt as usize] -= est;
                self.total_pending -= est;
            }
        }
    }

    /// The pending AQL air time of station `sta` in function `fi`, ns.
    pub fn aql_pending(&self, sta: usize, fi: usize) -> u64 {
        self.pending[sta * self.nfn + fi]
    }

    /// Whether AQL is on.
    pub fn aql(&self) -> bool {
        self.conf.aql.is_some()
    }

    /// Charges `airtime` to station `sta`'s deficit for function `fi`.
    pub fn charge(&mut self, sta: usize, fi: usize, airtime: SimTime, counting: bool) {
        let t = sta * self.nfn + fi;
        self.deficit[t] -= airtime.0 as i64;
        if counting {
            self.stats[t].airtime += airtime.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::wifi::phy::{mcs_id, Phy, Standard};

    /// Linux's `ieee80211_calc_expected_tx_airtime` worked by hand for a 1538-octet MPDU
    /// (+38: 1576) in an A-MPDU, HT 20 MHz, 800 ns GI, one stream:
    ///
    /// - MCS 7 (N_DBPS 260): ⌈8192·1024/260⌉ = 32 264 kilo-symbols · 4 = 129 056; the
    ///   group's MCS 0 needs ⌈8 388 608/26⌉·4 = 1 290 556 (21 bits: shift 5), 129 056 is a
    ///   multiple of 32; 129 056 > 70·1024 gives agg_shift 4: 129 056·1576/1024/1024 = 193
    ///   (integer steps) + (36 + 4) >> 4 = 2 → 195 µs.
    /// - MCS 0: 1 290 556 >> 5 << 5 = 1 290 528 > 400·1024: agg_shift 1; 1 290 528·1576
    ///   /1024/1024 = 1939 + 20 = 1959 µs; outside an A-MPDU (AC_VO) 1939 + 40 = 1979 µs.
    /// - 802.11a 54 Mb/s: 36 + 1576·8/54 = 36 + 233 = 269 µs.
    #[test]
    fn expected_airtime_is_linuxs_estimate() {
        let phy = Phy::new(Standard::N);
        assert_eq!(expected_tx_airtime_us(&phy, mcs_id(1, 7), 1538, true), 195);
        assert_eq!(expected_tx_airtime_us(&phy, mcs_id(1, 0), 1538, true), 1959);
        assert_eq!(
            expected_tx_airtime_us(&phy, mcs_id(1, 0), 1538, false),
            1979
        );
        let a = Phy::new(Standard::A);
        assert_eq!(expected_tx_airtime_us(&a, 54_000, 1538, false), 269);
        // Linux's defaults (include/net/cfg80211.h, 5.5 … 6.x).
        assert_eq!(AQL_TXQ_LIMIT_L, SimTime::from_micros(5000));
        assert_eq!(AQL_TXQ_LIMIT_H, SimTime::from_micros(12000));
        assert_eq!(AQL_THRESHOLD, SimTime::from_micros(24000));
    }
}
