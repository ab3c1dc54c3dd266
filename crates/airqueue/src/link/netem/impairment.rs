//! A netem-like impairment on a wired link direction: extra delay with uniform jitter,
//! Bernoulli loss (netem `delay D J` and `loss random P`), netem's Gilbert-Elliott loss
//! model (`loss gemodel p r 1-h 1-k`) and bit errors at a constant BER.
//!
//! Every flow has its own loss stream and its own jitter stream on each impaired link
//! direction, derived from (seed, link, direction, flow name): adding a flow, or turning
//! jitter on, never changes which packets of another flow are lost. The Gilbert-Elliott
//! chain and the bit errors describe the wire itself, so each has one stream per link
//! direction (`link:<link>:<a>-><b>:gemodel`, `…:ber`), advanced by every packet of every
//! flow; a model that is off draws nothing, so scenarios without it are unchanged.
//!
//! The loss is decided when the packet has finished serialization (it used the wire, then
//! was corrupted), which is where a lossy cable or radio loses it; netem decides at
//! enqueue, a difference that only shifts queue occupancy. Jitter follows netem's default
//! uniform table on [D−J, D+J] (floored at zero) and, as netem without `rate`, may reorder
//! packets. Bit errors apply to the bits on the wire, (size + link overhead) × 8: PER =
//! 1 − (1 − BER)^bits (`channel::bit_error`).
//!
//! The rest of netem — correlation, delay distributions, reordering, duplication and
//! corruption — is [`super::Netem`], on a stream of its own per direction, present
//! only when one of those options is on. A packet's fate is decided in two steps, in
//! netem's order: [`Impairment::admit`] (duplicate and loss draws: none, one or two
//! copies go on) and [`Impairment::finish`] (corruption, then reorder-or-delay) for each
//! copy that goes on, the copy first (netem re-enqueues it before the original goes on).
//!
//! netem's `limit` (default 1000 packets) caps what it holds while the packets wait for
//! their delay: `sch_netem.c` drops a packet when its time-ordered queue already holds
//! `limit` (`q->t_len >= sch->limit`), after the corruption draw and before the delay
//! draw. Here that queue is counted by the times the delayed packets leave netem
//! (`releases`); with `slot` it is the queue itself (`tfifo`), which the link drains as
//! netem's dequeue does. A packet sent at once (`reorder`) bypasses it, as in netem.

use super::SlotStep;
use super::{Delay, Netem};
use crate::channel::{BitErrorModel, BitErrors, GeModel};
use crate::engine::{stream, SimRng, SimTime};
use crate::link::netem::ImpairmentSpec;
use crate::packet::{FlowId, PacketId};
use rand::Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// netem's default `limit` (tc-netem(8)).
pub const NETEM_DEFAULT_LIMIT: u32 = 1000;

struct FlowStreams {
    loss: SimRng,
    jitter: SimRng,
}

pub struct Impairment {
    /// The run seed and the direction's name, to derive the stream of a model a timeline
    /// change turns on.
    seed: u64,
    direction: String,
    delay: SimTime,
    jitter: SimTime,
    loss: f64,
    per_flow: Vec<FlowStreams>,
    gemodel: Option<GeModel>,
    bit_errors: BitErrorModel,
    netem: Option<Netem>,
    /// netem `limit`.
    limit: u32,
    /// When each delayed packet netem holds (without `slot`) leaves it: the count of
    /// its queue for `limit`.
    releases: BinaryHeap<Reverse<SimTime>>,
    /// netem's time-ordered queue with `slot`: (time to send, arrival order, packet,
    /// size).
    tfifo: BinaryHeap<Reverse<(SimTime, u64, PacketId, u32)>>,
    arrivals: u64,
}

/// What netem's dequeue does next for a slotted direction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dequeue {
    /// This packet leaves now.
    Packet(PacketId),
    /// Nothing leaves before this time.
    WaitUntil(SimTime),
    /// netem holds nothing.
    Empty,
}

/// How many copies of a packet go on after the duplicate and loss draws (netem's `count`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Copies {
    /// Lost.
    None,
    One,
    /// The packet and a duplicate.
    Two,
}

/// What happens to a copy that went on: corrupted (then discarded by the receiver's
/// checksum), or delayed by `delay` (zero and `reordered` when sent at once).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Finish {
    /// netem held `limit` packets already: dropped as `qdisc_overflow`.
    pub over_limit: bool,
    pub corrupted: bool,
    pub delay: SimTime,
    pub reordered: bool,
}

impl Finish {
    const OVER_LIMIT: Finish = Finish {
        over_limit: true,
        corrupted: false,
        delay: SimTime::ZERO,
        reordered: false,
    };
}

impl Impairment {
    /// `direction` names the link direction (`"bottleneck:router->receiver"`).
    pub fn new(spec: &ImpairmentSpec, seed: u64, direction: &str, flow_names: &[String]) -> Self {
        let per_flow = flow_names
            .iter()
            .map(|f| FlowStreams {
                loss: stream(seed, &format!("link:{direction}:loss:flow:{f}")),
                jitter: stream(seed, &format!("link:{direction}:jitter:flow:{f}")),
            })
            .collect();
        let gemodel = spec.gemodel.as_ref().map(|g| {
            GeModel::new(
                g.params(),
                stream(seed, &format!("link:{direction}:gemodel")),
            )
        });
        let kind = if spec.ber.0 > 0.0 {
            BitErrors::Ber(spec.ber.0)
        } else {
            BitErrors::None
        };
        Impairment {
            seed,
            direction: direction.to_string(),
            delay: spec.delay.time(),
            jitter: spec.jitter.time(),
            loss: spec.loss.0,
            per_flow,
            gemodel,
            bit_errors: BitErrorModel::new(kind, stream(seed, &format!("link:{direction}:ber"))),
            netem: Netem::new(spec, seed, direction, SimTime::ZERO),
            limit: spec.limit.unwrap_or(NETEM_DEFAULT_LIMIT),
            releases: BinaryHeap::new(),
            tfifo: BinaryHeap::new(),
            arrivals: 0,
        }
    }

    /// Takes the parameters of `spec` (a timeline change; netem's `change` replaces every
    /// parameter). The random streams continue where they were; a Gilbert-Elliott chain
    /// restarts in the good state (`get_loss_clg`); one that was off gets a chain on its
    /// stream (`link:<link>:<a>-><b>:gemodel`) from the stream's start.
    /// The packets netem holds (its `limit`, a new slot config) stay where they are.
    pub fn set(&mut self, spec: &ImpairmentSpec, now: SimTime) {
        self.delay = spec.delay.time();
        self.jitter = spec.jitter.time();
        self.loss = spec.loss.0;
        self.gemodel = match (spec.gemodel.as_ref(), self.gemodel.take()) {
            (None, _) => None,
            (Some(g), Some(mut old)) => {
                old.set_params(g.params());
                Some(old)
            }
            (Some(g), None) => Some(GeModel::new(
                g.params(),
                stream(self.seed, &format!("link:{}:gemodel", self.direction)),
            )),
        };
        self.bit_errors.set_kind(if spec.ber.0 > 0.0 {
            BitErrors::Ber(spec.ber.0)
        } else {
            BitErrors::None
        });
        // netem `change` rebuilds its options; the direction's netem stream restarts.
        self.netem = Netem::new(spec, self.seed, &self.direction, now);
        self.limit = spec.limit.unwrap_or(NETEM_DEFAULT_LIMIT);
    }

    /// Whether packets may overtake each other on the wire (the delay varies per packet,
    /// or some are sent at once).
    #[inline]
    pub fn reorders(&self) -> bool {
        self.jitter.0 > 0 || self.netem.as_ref().is_some_and(Netem::reorders)
    }

    /// The duplicate and loss draws for a packet of `flow`, `wire_bits` on the wire
    /// (`copy`: netem's re-enqueued duplicate, which is not duplicated again). As in
    /// netem, a loss takes one copy away: a duplicated packet that is "lost" goes on once.
    #[inline]
    pub fn admit(&mut self, flow: FlowId, wire_bits: u64, copy: bool) -> Copies {
        let dup = !copy && self.netem.as_mut().is_some_and(Netem::duplicated);
        let lost = self.lost(flow, wire_bits);
        match (dup, lost) {
            (false, true) => Copies::None,
            (true, false) => Copies::Two,
            _ => Copies::One,
        }
    }

    /// Corruption, netem's `limit`, then reorder-or-delay, for a copy of a `size`-byte
    /// packet of `flow` that went on at `now`.
    #[inline]
    pub fn finish(&mut self, flow: FlowId, now: SimTime, size: u32) -> Finish {
        let Some(netem) = &mut self.netem else {
            if self.full(now) {
                return Finish::OVER_LIMIT;
            }
            let delay = self.extra_delay(flow);
            self.note_release(now, delay);
            return Finish {
                over_limit: false,
                corrupted: false,
                delay,
                reordered: false,
            };
        };
        let corrupted = netem.corrupted();
        if self.full(now) {
            return Finish::OVER_LIMIT;
        }
        let netem = self.netem.as_mut().expect("checked above");
        let (delay, jitter) = (self.delay, self.jitter);
        let per_flow = &mut self.per_flow[flow.0 as usize].jitter;
        let Delay { delay, reordered } = netem.delay(now, size, delay, jitter, || {
            uniform_delay(delay, jitter, per_flow)
        });
        if !reordered && !self.slotted() {
            self.note_release(now, delay);
        }
        Finish {
            over_limit: false,
            corrupted,
            delay,
            reordered,
        }
    }

    /// Whether netem's queue holds `limit` packets at `now` (those whose delay is over
    /// have left it).
    #[inline]
    fn full(&mut self, now: SimTime) -> bool {
        while self.releases.peek().is_some_and(|r| r.0 <= now) {
            self.releases.pop();
        }
        self.releases.len() + self.tfifo.len() >= self.limit as usize
    }

    /// A packet netem delays by `delay` from `now` is in its queue until then.
    #[inline]
    fn note_release(&mut self, now: SimTime, delay: SimTime) {
        if delay > SimTime::ZERO {
            self.releases.push(Reverse(now + delay));
        }
    }

    /// Whether delayed packets wait in netem for slots (`slot`): the link then hands
    /// them to [`Impairment::hold`] and drains them with [`Impairment::dequeue`].
    #[inline]
    pub fn slotted(&self) -> bool {
        self.netem.as_ref().is_some_and(Netem::slotted)
    }

    /// Packets held for slots (those [`Impairment::hold`] took and not yet dequeued).
    pub fn held(&self) -> usize {
        self.tfifo.len()
    }

    /// netem's tfifo takes `pkt` (`size` bytes), due at `due`; ties leave in arrival
    /// order (`tfifo_enqueue`).
    pub fn hold(&mut self, pkt: PacketId, due: SimTime, size: u32) {
        self.arrivals += 1;
        self.tfifo.push(Reverse((due, self.arrivals, pkt, size)));
    }

    /// One step of netem's dequeue at `now` (`netem_dequeue` with `slot`): the head of
    /// the tfifo leaves when it is due and its slot has opened.
    pub fn dequeue(&mut self, now: SimTime) -> Dequeue {
        let Some(&Reverse((due, _, pkt, size))) = self.tfifo.peek() else {
            return Dequeue::Empty;
        };
        let step = match &mut self.netem {
            Some(n) => n.slot_step(now, due),
            None if due <= now => SlotStep::Go,
            None => SlotStep::WaitUntil(due),
        };
        match step {
            SlotStep::WaitUntil(t) => Dequeue::WaitUntil(t),
            SlotStep::Go => {
                self.tfifo.pop();
                if let Some(n) = &mut self.netem {
                    n.slot_sent(now, size);
                }
                Dequeue::Packet(pkt)
            }
        }
    }

    /// Whether this packet of `flow`, `wire_bits` bits on the wire, is lost. Each model
    /// that is on draws for every packet (the Gilbert-Elliott chain advances even when
    /// another model already lost the packet), so its stream does not depend on the others.
    #[inline]
    pub fn lost(&mut self, flow: FlowId, wire_bits: u64) -> bool {
        let mut lost = match &mut self.netem {
            Some(n) if n.decides_loss() => n.lost(),
            _ => self.loss > 0.0 && self.per_flow[flow.0 as usize].loss.random::<f64>() < self.loss,
        };
        if let Some(ge) = &mut self.gemodel {
            lost |= ge.lost();
        }
        lost |= self.bit_errors.lost(wire_bits);
        lost
    }

    /// Extra one-way delay for this packet of `flow`.
    #[inline]
    pub fn extra_delay(&mut self, flow: FlowId) -> SimTime {
        uniform_delay(
            self.delay,
            self.jitter,
            &mut self.per_flow[flow.0 as usize].jitter,
        )
    }
}

/// Uniform on [delay − jitter, delay + jitter] from a flow's jitter stream, floored at 0.
#[inline]
fn uniform_delay(delay: SimTime, jitter: SimTime, rng: &mut SimRng) -> SimTime {
    if jitter.0 == 0 {
        return delay;
    }
    let j = jitter.0 as i128;
    let r = rng.random_range(-j..=j);
    SimTime((delay.0 as i128 + r).max(0) as u64)
}
