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
    }

    /// Whether packets may overtake each other on the wire (the delay varies per packet).
    #[inline]
    pub fn reorders(&self) -> bool {
        self.jitter.0 > 0
    }

    /// Whether this packet of `flow`, `wire_bits` bits on the wire, is lost. Each model
    /// that is on draws for every packet (the Gilbert-Elliott chain advances even when
    /// another model already lost the packet), so its stream does not depend on the others.
    #[inline]
    pub fn lost(&mut self, flow: FlowId, wire_bits: u64) -> bool {
        let mut lost =
            self.loss > 0.0 && self.per_flow[flow.0 as usize].loss.random::<f64>() < self.loss;
        if let Some(ge) = &mut self.gemodel {
            lost |= ge.lost();
        }
        lost |= self.bit_errors.lost(wire_bits);
        lost
    }

    /// Extra one-way delay for this packet of `flow`.
    #[inline]
    pub fn extra_delay(&mut self, flow: FlowId) -> SimTime {
        if self.jitter.0 == 0 {
            return self.delay;
        }
        let j = self.jitter.0 as i128;
        let r = self.per_flow[flow.0 as usize].jitter.random_range(-j..=j);
        SimTime((self.delay.0 as i128 + r).max(0) as u64)
    }
}
