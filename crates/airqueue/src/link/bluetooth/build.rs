//! Building Bluetooth media from validated `[[piconets]]` and `[[bridges]]` entries
//! ([`super::spec`], checked by [`super::checks`]): each piconet's parameters
//! ([`piconet_conf`]), which piconets a bridge joins into one medium ([`piconet_groups`])
//! and the scatternet of a bridge ([`build_scatternet`]). The builders take the specs and
//! the seed and times, never the simulation's types, so the simulation (`crate::sim`) only
//! calls them.

use super::spec::{BridgeSpec, PiconetSpec};
use super::{Piconet, PiconetConf, Scatternet};
use crate::engine::SimTime;

/// Which medium each piconet is in, counted from the first piconet medium: a piconet
/// alone is one; the piconets a bridge joins share the first one's.
pub fn piconet_groups(piconets: &[PiconetSpec], bridges: &[BridgeSpec]) -> Vec<usize> {
    let mut group: Vec<usize> = Vec::with_capacity(piconets.len());
    let mut next = 0;
    for p in piconets {
        let joined = bridges
            .iter()
            .filter(|b| b.piconets.contains(&p.name))
            .flat_map(|b| b.piconets.iter())
            .filter_map(|q| piconets.iter().position(|x| x.name == *q))
            .find(|&q| q < group.len());
        match joined {
            Some(q) => group.push(group[q]),
            None => {
                group.push(next);
                next += 1;
            }
        }
    }
    group
}

/// A scatternet from its bridge and its piconets (scenario order): each piconet learns
/// which slave is the bridge, its M_b and buffer; the bridge starts in its first piconet,
/// and its second piconet's clock runs `clock_offset` behind (default: uniform in
/// [0, 2T) from stream `bridge:<node>:clock`, microsecond steps).
pub fn build_scatternet(
    b: &BridgeSpec,
    members: Vec<(&PiconetSpec, Piconet)>,
    seed: u64,
    warmup: SimTime,
) -> Scatternet {
    use super::{polling::IDLE_FRAME, Residence, WalkIn};
    use rand::RngCore;
    let offset = b.clock_offset.map_or_else(
        || {
            let us = crate::engine::stream(seed, &format!("bridge:{}:clock", b.node)).next_u64()
                % (IDLE_FRAME.0 / 1000);
            SimTime(us * 1000)
        },
        |d| d.0,
    );
    let mut names = Vec::new();
    let mut piconets = Vec::new();
    for (p, mut piconet) in members {
        let j = p.slaves.iter().position(|n| *n == b.node).unwrap_or(0);
        let m_b = b.m_b(p).unwrap_or(u32::MAX);
        let conf = piconet_conf(p, warmup);
        let segs = conf.sar.count(conf.mtu + conf.overhead, conf.types);
        let buffer = b.buffer_in(p, segs).unwrap_or(u32::MAX);
        let first = b.piconets.first() == Some(&p.name);
        let mut walk_in = WalkIn::new(j, m_b.saturating_add(1), buffer, first, warmup);
        walk_in.set_residence(match b.residence.as_deref() {
            Some("visit") => Residence::Visit,
            _ => Residence::Cycle,
        });
        piconet.set_bridge(walk_in);
        if !first {
            piconet.set_clock_phase(offset);
        }
        names.push(p.name.clone());
        piconets.push(piconet);
    }
    Scatternet::new(piconets, names, b.node.clone())
}

/// The medium parameters of a validated `[[piconets]]` entry.
pub fn piconet_conf(p: &PiconetSpec, warmup: SimTime) -> PiconetConf {
    use super::{ChannelKind, FlowControl, PacketType, Polling, Sar, TypeSet};
    let types: Vec<PacketType> = p
        .packet_types
        .iter()
        .filter_map(|t| PacketType::parse(t))
        .collect();
    let channel = match &p.channel {
        Some(c) => match (&c.gilbert_elliott, c.ber) {
            (Some(ge), _) if p.channel_state.as_deref() == Some("per-packet") => {
                ChannelKind::GilbertElliottPerPacket(ge.params())
            }
            (Some(ge), _) => ChannelKind::GilbertElliott(ge.params()),
            (None, Some(b)) => ChannelKind::Ber(b.0),
            (None, None) => ChannelKind::Perfect,
        },
        None => ChannelKind::Perfect,
    };
    PiconetConf {
        polling: Polling::parse(&p.polling, p.limit, p.max_priority)
            .unwrap_or(Polling::ONE_LIMITED),
        sar: Sar::parse(&p.sar).unwrap_or(Sar::Osu),
        types: TypeSet::of(&types),
        overhead: p.overhead,
        mtu: p.mtu,
        slave_buffer: p.slave_buffer,
        master_buffer: p.master_buffer,
        flow: p.flow_control.as_ref().map(|f| FlowControl {
            rate_bps: f.token_rate.bps(),
            depth_bytes: f.token_depth.0,
            buffer: f.buffer,
        }),
        arq: p.arq,
        channel,
        warmup,
    }
}
