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
}

impl Default for TxqConf {
    fn default() -> Self {
        TxqConf {
            quantum: SimTime::from_micros(256),
            airtime_fair: true,
        }
    }
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

    /// Charges `airtime` to station `sta`'s deficit for function `fi`.
    pub fn charge(&mut self, sta: usize, fi: usize, airtime: SimTime, counting: bool) {
        let t = sta * self.nfn + fi;
        self.deficit[t] -= airtime.0 as i64;
        if counting {
            self.stats[t].airtime += airtime.0;
        }
    }
}
