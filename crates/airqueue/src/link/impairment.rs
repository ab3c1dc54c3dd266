//! A netem-like impairment on a wired link direction: extra delay with uniform jitter, and
//! Bernoulli loss (netem `delay D J` and `loss random P`).
//!
//! Every flow has its own loss stream and its own jitter stream on each impaired link
//! direction, derived from (seed, link, direction, flow name): adding a flow, or turning
//! jitter on, never changes which packets of another flow are lost. The loss is decided when
//! the packet has finished serialization (it used the wire, then was corrupted), which is
//! where a lossy cable or radio loses it; netem decides at enqueue, a difference that only
//! shifts queue occupancy. Jitter follows netem's default uniform table on [D−J, D+J]
//! (floored at zero) and, as netem without `rate`, may reorder packets.

use crate::engine::{stream, SimRng, SimTime};
use crate::packet::FlowId;
use crate::scenario::ImpairmentSpec;
use rand::Rng;

struct FlowStreams {
    loss: SimRng,
    jitter: SimRng,
}

pub struct Impairment {
    delay: SimTime,
    jitter: SimTime,
    loss: f64,
    per_flow: Vec<FlowStreams>,
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
        Impairment {
            delay: spec.delay.time(),
            jitter: spec.jitter.time(),
            loss: spec.loss.0,
            per_flow,
        }
    }

    /// Whether packets may overtake each other on the wire (the delay varies per packet).
    #[inline]
    pub fn reorders(&self) -> bool {
        self.jitter.0 > 0
    }

    /// Whether this packet of `flow` is lost.
    #[inline]
    pub fn lost(&mut self, flow: FlowId) -> bool {
        self.loss > 0.0 && self.per_flow[flow.0 as usize].loss.random::<f64>() < self.loss
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
