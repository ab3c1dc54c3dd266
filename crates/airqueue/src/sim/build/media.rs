//! The third phase of the build: the media, in the order of their ports' places — the
//! links and segments (each medium's builder in its folder), the cell media, the piconets
//! and scatternets — then the caller's replacements, then each medium's timers.

use super::{build_cell, build_scatternet, capture_of, hearing_of, piconet_conf, Builder};
use crate::link::p2p::build::build_link;
use crate::link::segment::build::build_segment;
use crate::link::{AnyMedium, MediumBuild};
use crate::packet::NodeId;
use crate::topology::IfaceId;

impl Builder<'_> {
    /// Every medium, replaced where the caller asked, attached to the timers.
    pub(super) fn media(&mut self) {
        self.media = Vec::with_capacity(self.plans.len());
        self.wired_media();
        // The shared spectrum, if any: its members' radios are attached as they are built.
        let mut air = self
            .s
            .spectrum
            .as_ref()
            .map(|sp| crate::link::air::build::SpectrumBuild::new(sp, self.seed));
        self.cell_media(air.as_mut());
        self.piconet_media(air.as_mut());
        for (name, factory) in std::mem::take(&mut self.opts.media) {
            match self.media.iter().position(|m| m.get().name() == name) {
                Some(m) => {
                    let ends: Vec<(IfaceId, NodeId)> = self
                        .plans
                        .iter()
                        .zip(&self.place)
                        .filter(|(_, pl)| pl.0 as usize == m)
                        .flat_map(|(p, _)| p.ends.iter().copied())
                        .collect();
                    self.media[m] = AnyMedium::Dyn(factory(&ends))
                }
                None => self.errs.push(
                    "(build)",
                    format!("medium override for unknown link \"{name}\""),
                ),
            }
        }
        for (m, medium) in self.media.iter_mut().enumerate() {
            medium.get_mut().attach(&mut MediumBuild {
                medium: m as u32,
                timers: &mut self.timers,
                owners: &mut self.timer_owners,
            });
        }
    }

    /// The links, then the segments (their plans come first, in that order).
    fn wired_media(&mut self) {
        let s = self.s;
        for (l, plan) in s.links.iter().zip(&self.plans) {
            // A link whose impairment the timeline changes gets one (doing nothing until
            // then) even when it starts without.
            let changed = s.at.iter().any(|a| {
                a.link
                    .as_ref()
                    .is_some_and(|c| c.name == l.name && c.impairment.is_some())
            });
            let ends = [plan.ends[0], plan.ends[1]];
            self.media.push(AnyMedium::P2p(build_link(
                l,
                ends,
                changed,
                self.seed,
                &self.flow_names,
            )));
        }
        for (g, plan) in s.segments.iter().zip(&self.plans[s.links.len()..]) {
            self.media
                .push(AnyMedium::Dyn(Box::new(build_segment(g, &plan.ends))));
        }
    }

    /// A medium per channel's cells (or per cell without a channel), with who hears whom
    /// under `[propagation]`, SINR capture, and its radios on the shared spectrum.
    fn cell_media(&mut self, mut air: Option<&mut crate::link::air::build::SpectrumBuild>) {
        let s = self.s;
        let first_cell = self.first_cell();
        for (_, members) in &self.cell_media {
            let bsses: Vec<(&crate::scenario::CellSpec, &[(IfaceId, NodeId)])> = members
                .iter()
                .map(|&k| (&s.cells[k], self.plans[first_cell + k].ends.as_slice()))
                .collect();
            let mut cell = build_cell(&bsses, &self.dev_names, self.seed, s.run.warmup.time());
            if let Some(pr) = &s.propagation {
                let mut at: Vec<(&str, Option<&crate::scenario::CellStationSpec>)> = Vec::new();
                for &(c, ends) in &bsses {
                    for (p, &(_, n)) in ends.iter().enumerate() {
                        let st = match c.ap {
                            Some(_) => (p > 0).then(|| &c.stations[p - 1]),
                            None => Some(&c.stations[p]),
                        };
                        at.push((self.nodes[n.0 as usize].name.as_str(), st));
                    }
                }
                if let Some((map, auto_snr)) = hearing_of(pr, &at) {
                    cell.set_hearing(map, auto_snr);
                }
            }
            if bsses[0].0.capture == crate::scenario::spec::CaptureKind::Sinr {
                cell.set_capture(capture_of(bsses[0].0, s.propagation.as_ref()), self.seed);
            }
            if let Some(sp) = air.as_deref_mut() {
                let c = bsses[0].0;
                let at: Vec<&str> = bsses
                    .iter()
                    .flat_map(|b| b.1.iter())
                    .map(|&(_, n)| self.nodes[n.0 as usize].name.as_str())
                    .collect();
                let names: Vec<&str> = bsses.iter().map(|b| b.0.name.as_str()).collect();
                if let Some(a) = sp.cell(&names, c.channel, &at) {
                    cell.attach_air(a);
                }
            }
            self.media.push(AnyMedium::Dyn(Box::new(cell)));
        }
    }

    /// A medium per piconet, or per scatternet for the piconets a bridge joins.
    fn piconet_media(&mut self, mut air: Option<&mut crate::link::air::build::SpectrumBuild>) {
        let s = self.s;
        let first_piconet = self.first_piconet();
        let groups = self
            .piconet_groups
            .iter()
            .copied()
            .max()
            .map_or(0, |g| g + 1);
        for g in 0..groups {
            let mut members = Vec::new();
            for (k, p) in s.piconets.iter().enumerate() {
                if self.piconet_groups[k] != g {
                    continue;
                }
                let mut piconet = crate::link::bluetooth::Piconet::new(
                    p.name.clone(),
                    piconet_conf(p, s.run.warmup.time()),
                    &self.plans[first_piconet + k].ends,
                    self.seed,
                    &p.slaves,
                );
                if let Some(a) = air.as_deref_mut().and_then(|sp| sp.piconet(p)) {
                    piconet.attach_air(a);
                }
                members.push((p, piconet));
            }
            let bridge = s
                .bridges
                .iter()
                .find(|b| members.iter().any(|(p, _)| b.piconets.contains(&p.name)));
            match bridge {
                None => {
                    for (_, piconet) in members {
                        self.media.push(AnyMedium::Dyn(Box::new(piconet)));
                    }
                }
                Some(b) => self.media.push(AnyMedium::Dyn(Box::new(build_scatternet(
                    b,
                    members,
                    self.seed,
                    s.run.warmup.time(),
                )))),
            }
        }
    }
}
