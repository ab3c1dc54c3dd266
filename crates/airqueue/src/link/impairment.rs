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
//! corruption — is [`super::netem::Netem`], on a stream of its own per direction, present
//! only when one of those options is on. A packet's fate is decided in two steps, in
//! netem's order: [`Impairment::admit`] (duplicate and loss draws: none, one or two
//! copies go on) and [`Impairment::finish`] (corruption, then reorder-or-delay) for each
//! copy that goes on, the copy first (netem re-enqueues it before the original goes on).

use super::netem::{Delay, Netem};
use crate::channel::{BitErrorModel, BitErrors, GeModel};
use crate::engine::{stream, SimRng, SimTime};
use crate::packet::FlowId;
use crate::scenario::ImpairmentSpec;
use rand::Rng;

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
    pub corrupted: bool,
    pub delay: SimTime,
    pub reordered: bool,
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
            netem: Netem::new(spec, seed, direction),
        }
    }

    /// Takes the parameters of `spec` (a timeline change; netem's `change` replaces every
    /// parameter). The random streams continue where they were; a Gilbert-Elliott chain
    /// restarts in the good state (`get_loss_clg`); one that was off gets a chain on its
    /// stream (`link:<link>:<a>-><b>:gemodel`) from the stream's start.
    pub fn set(&mut self, spec: &ImpairmentSpec) {
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
        self.netem = Netem::new(spec, self.seed, &self.direction);
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

    /// Corruption, then reorder-or-delay, for a copy of a `size`-byte packet of `flow`
    /// that went on at `now`.
    #[inline]
    pub fn finish(&mut self, flow: FlowId, now: SimTime, size: u32) -> Finish {
        let Some(netem) = &mut self.netem else {
            return Finish {
                corrupted: false,
                delay: self.extra_delay(flow),
                reordered: false,
            };
        };
        let corrupted = netem.corrupted();
        let (delay, jitter) = (self.delay, self.jitter);
        let per_flow = &mut self.per_flow[flow.0 as usize].jitter;
        let Delay { delay, reordered } = netem.delay(now, size, delay, jitter, || {
            uniform_delay(delay, jitter, per_flow)
        });
        Finish {
            corrupted,
            delay,
            reordered,
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
