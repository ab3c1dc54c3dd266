//! Test-only "wire": a sender and a receiver joined by a path with a fixed one-way delay,
//! an optional per-segment serialization gap on the data direction, drop lists and extra
//! delays keyed by sequence/ACK number, driven by a deterministic mini event loop over
//! `SimTime`. It follows the driving contract of `crate::transport` exactly, so it is
//! also a reference for the simulator integration.
//!
//! Ordering at equal times: network arrivals first (in the order they were sent), then
//! the sender's timer, then the receiver's timer.

use std::collections::{BTreeMap, HashMap};

use super::{AckInfo, AppData, SackBlocks, Segment, TcpConfig, TcpFlags, TcpReceiver, TcpSender};
use crate::engine::SimTime;

#[derive(Debug)]
enum Event {
    /// A segment and whether it arrives CE-marked.
    Data(Segment, bool),
    /// An ACK and the SACK blocks it carries.
    Ack(AckInfo, SackBlocks),
    Offer(u64),
}

pub(crate) struct Wire {
    cfg: TcpConfig,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub now: SimTime,
    pub one_way: SimTime,
    /// Serialization time per data segment (0: a whole window leaves at once).
    pub data_gap: SimTime,
    link_free: SimTime,
    queue: BTreeMap<(SimTime, u64), Event>,
    next_id: u64,
    started: bool,
    /// Drop the nth (1-based) transmission of the data segment/SYN at this seq.
    drop_data: Vec<(u64, u32)>,
    /// Drop the nth ACK carrying this acknowledgment number.
    drop_acks: Vec<(u64, u32)>,
    /// Extra one-way delay for the first transmission of the segment at this seq.
    extra_delay: Vec<(u64, SimTime)>,
    /// Mark CE on the nth (1-based) transmission of the data segment at this seq, if the
    /// sender sent it ECN-capable (as an AQM marks only ECT packets).
    ce_data: Vec<(u64, u32)>,
    data_tx: HashMap<u64, u32>,
    ack_tx: HashMap<u64, u32>,
    /// Every segment the sender emitted, with its send time (dropped ones included).
    pub sent: Vec<(SimTime, Segment)>,
    pub dropped: Vec<(SimTime, Segment)>,
    /// Every ACK delivered to the sender, with its arrival time.
    pub acks: Vec<(SimTime, AckInfo)>,
    /// The SACK blocks of each of `acks`.
    pub sacks: Vec<SackBlocks>,
    /// Largest `snd_nxt − snd_una` seen after a burst of transmissions.
    pub max_flight: u64,
}

impl Wire {
    pub fn new(cfg: TcpConfig, app: AppData, one_way: SimTime) -> Wire {
        Wire {
            cfg: cfg.clone(),
            sender: TcpSender::new(&cfg, app),
            receiver: TcpReceiver::new(&cfg),
            now: SimTime::ZERO,
            one_way,
            data_gap: SimTime::ZERO,
            link_free: SimTime::ZERO,
            queue: BTreeMap::new(),
            next_id: 0,
            started: false,
            drop_data: Vec::new(),
            drop_acks: Vec::new(),
            extra_delay: Vec::new(),
            ce_data: Vec::new(),
            data_tx: HashMap::new(),
            ack_tx: HashMap::new(),
            sent: Vec::new(),
            dropped: Vec::new(),
            acks: Vec::new(),
            sacks: Vec::new(),
            max_flight: 0,
        }
    }

    /// The configuration both endpoints were built with.
    pub fn sender_config(&self) -> TcpConfig {
        self.cfg.clone()
    }
    pub fn drop_data(&mut self, seq: u64, nth: u32) -> &mut Self {
        self.drop_data.push((seq, nth));
        self
    }
    pub fn drop_ack(&mut self, ack: u64, nth: u32) -> &mut Self {
        self.drop_acks.push((ack, nth));
        self
    }
    pub fn mark_ce(&mut self, seq: u64, nth: u32) -> &mut Self {
        self.ce_data.push((seq, nth));
        self
    }
    pub fn delay_data(&mut self, seq: u64, extra: SimTime) -> &mut Self {
        self.extra_delay.push((seq, extra));
        self
    }
    pub fn offer_at(&mut self, at: SimTime, bytes: u64) -> &mut Self {
        self.push(at, Event::Offer(bytes));
        self
    }

    fn push(&mut self, at: SimTime, ev: Event) {
        self.queue.insert((at, self.next_id), ev);
        self.next_id += 1;
    }

    /// Runs every event at or before `limit` (or until nothing is left to do).
    pub fn run_until(&mut self, limit: SimTime) {
        self.run(limit, false);
    }

    /// Runs until the sender is complete; panics if that does not happen by `limit`.
    /// Returns the completion time.
    pub fn run_to_completion(&mut self, limit: SimTime) -> SimTime {
        self.run(limit, true);
        assert!(
            self.sender.is_complete(),
            "transfer incomplete at {}",
            self.now
        );
        self.sender.completion_time().unwrap()
    }

    fn run(&mut self, limit: SimTime, stop_when_complete: bool) {
        if !self.started {
            self.started = true;
            self.sender.start(self.now);
            self.flush_sender();
            if let Some(syn) = self.receiver.connect(self.now) {
                self.send_ack(syn);
            }
        }
        loop {
            if stop_when_complete && self.sender.is_complete() && self.queue.is_empty() {
                return;
            }
            let net = self.queue.keys().next().map(|k| k.0);
            let st = self.sender.next_timer();
            let rt = self.receiver.next_timer();
            let Some(t) = [net, st, rt].into_iter().flatten().min() else {
                return;
            };
            if t > limit {
                return;
            }
            self.now = t;
            if net == Some(t) {
                let (_, ev) = self.queue.pop_first().unwrap();
                match ev {
                    Event::Data(seg, ce) => {
                        if let Some(ack) = self.receiver.on_segment_ecn(t, &seg, ce) {
                            self.send_ack(ack);
                        }
                    }
                    Event::Ack(ack, sack) => {
                        self.acks.push((t, ack));
                        self.sacks.push(sack);
                        self.sender.on_ack_sack(t, &ack, &sack);
                        self.flush_sender();
                    }
                    Event::Offer(bytes) => {
                        self.sender.offer(bytes);
                        self.flush_sender();
                    }
                }
            } else if st == Some(t) {
                self.sender.on_timer(t);
                self.flush_sender();
            } else if let Some(ack) = self.receiver.on_timer(t) {
                self.send_ack(ack);
            }
        }
    }

    fn flush_sender(&mut self) {
        while let Some(seg) = self.sender.poll_transmit(self.now) {
            self.transmit(seg);
        }
        self.max_flight = self
            .max_flight
            .max(self.sender.snd_nxt() - self.sender.snd_una());
    }

    fn transmit(&mut self, seg: Segment) {
        self.sent.push((self.now, seg));
        let counted = seg.len > 0 || seg.flags.contains(TcpFlags::SYN);
        let mut extra = SimTime::ZERO;
        let mut ce = false;
        if counted {
            let n = self.data_tx.entry(seg.seq).or_insert(0);
            *n += 1;
            let n = *n;
            if self.drop_data.contains(&(seg.seq, n)) {
                self.dropped.push((self.now, seg));
                return;
            }
            ce = self.sender.ect(&seg) && self.ce_data.contains(&(seg.seq, n));
            if n == 1 {
                if let Some(&(_, d)) = self.extra_delay.iter().find(|(s, _)| *s == seg.seq) {
                    extra = d;
                }
            }
        }
        let start = self.now.max(self.link_free);
        self.link_free = start + self.data_gap;
        let at = self.link_free + self.one_way + extra;
        self.push(at, Event::Data(seg, ce));
    }

    fn send_ack(&mut self, ack: AckInfo) {
        let n = self.ack_tx.entry(ack.ack).or_insert(0);
        *n += 1;
        if self.drop_acks.contains(&(ack.ack, *n)) {
            return;
        }
        let sack = self.receiver.sack_blocks();
        self.push(self.now + self.one_way, Event::Ack(ack, sack));
    }

    /// Send times of the data segments (first transmissions and retransmissions).
    pub fn data_sends(&self) -> impl Iterator<Item = &(SimTime, Segment)> {
        self.sent.iter().filter(|(_, s)| s.len > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_delivers_after_the_one_way_delay_and_drops_on_request() {
        let cfg = TcpConfig {
            delayed_ack: false,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(cfg, AppData::Bytes(1448), SimTime::from_millis(30));
        w.drop_data(0, 1);
        w.run_to_completion(SimTime::from_secs(5));
        assert_eq!(w.dropped.len(), 1);
        // Retransmitted after the 1 s initial RTO, acked one RTT later.
        assert_eq!(w.acks[0].0, SimTime::from_millis(1060));
        assert_eq!(w.sender.completion_time(), Some(SimTime::from_millis(1060)));
    }
}
