//! Building the shared 2.4 GHz spectrum of a scenario (`[spectrum]`, [`super::spec`],
//! checked by [`super::checks`]) and attaching its members — piconets and 802.11b/g cells —
//! to it (the model: [`super::Air`]). The simulation (`crate::sim`) creates one
//! [`SpectrumBuild`] and hands it each medium as it builds it.
//!
//! Each member's radios get source numbers in member order, then port order; positions
//! come from `spectrum.positions` (the origin otherwise). Each member draws its
//! interference losses from a stream of its own (`piconet:<name>:air`, `cell:<name>:air`),
//! so a run without `[spectrum]` is unchanged.

use super::spec::SpectrumSpec;
use super::{Air, AirPort, SharedSpectrum};
use crate::channel::mobility::Position;
use crate::channel::propagation::{friis_loss_db, noise_floor_dbm};
use crate::channel::{PathLoss, PathLossConf, Spectrum};
use crate::engine::stream;
use crate::link::bluetooth::coexist::{Avoidance, PiconetAir, DEFAULT_INTERVAL, DEFAULT_THRESHOLD};
use crate::link::bluetooth::hopping::{Classifier, Hopping};
use crate::link::bluetooth::spec::PiconetSpec;
use crate::link::wifi::coexist::CellAir;
use std::cell::RefCell;
use std::rc::Rc;

/// The centre of the 2.4 GHz ISM band, MHz: the default path loss's frequency.
const CENTRE_MHZ: f64 = 2441.0;

/// A scenario's spectrum while the media are built.
pub(crate) struct SpectrumBuild<'a> {
    spec: &'a SpectrumSpec,
    spectrum: SharedSpectrum,
    path_loss: PathLoss,
    next_source: u32,
    seed: u64,
}

impl<'a> SpectrumBuild<'a> {
    pub fn new(spec: &'a SpectrumSpec, seed: u64) -> Self {
        let f_hz = CENTRE_MHZ * 1e6;
        let path_loss = match spec.path_loss {
            PathLossConf::Friis => PathLoss::Friis { frequency_hz: f_hz },
            PathLossConf::LogDistance {
                exponent,
                reference_distance_m,
                reference_loss_db,
            } => PathLoss::LogDistance {
                reference_m: reference_distance_m,
                reference_loss_db: reference_loss_db
                    .unwrap_or_else(|| friis_loss_db(reference_distance_m, f_hz)),
                exponent,
            },
        };
        let mut s = Spectrum::new(path_loss);
        s.set_min_distance(spec.min_distance);
        SpectrumBuild {
            spec,
            spectrum: Rc::new(RefCell::new(s)),
            path_loss,
            next_source: 0,
            seed,
        }
    }

    fn is_member(&self, name: &str) -> bool {
        self.spec.members.iter().any(|m| m == name)
    }

    /// Radios at the nodes `nodes` (port order), with transmit power `eirp_dbm`.
    fn ports(&mut self, nodes: &[&str], eirp_dbm: f64) -> Vec<AirPort> {
        nodes
            .iter()
            .map(|n| {
                let [x, y] = self.spec.positions.get(*n).copied().unwrap_or([0.0, 0.0]);
                let source = self.next_source;
                self.next_source += 1;
                AirPort {
                    source,
                    position: Position::new(x, y, 0.0),
                    eirp_dbm,
                }
            })
            .collect()
    }

    fn air(&self, ports: Vec<AirPort>, bandwidth_hz: f64, stream_name: &str) -> Air {
        Air::new(
            self.spectrum.clone(),
            ports,
            self.path_loss,
            noise_floor_dbm(bandwidth_hz, self.spec.noise_figure_db),
            self.spec.min_distance,
            stream(self.seed, stream_name),
        )
    }

    /// The air of piconet `p`, if it is a member.
    pub fn piconet(&mut self, p: &PiconetSpec) -> Option<PiconetAir> {
        if !self.is_member(&p.name) {
            return None;
        }
        let nodes: Vec<&str> = std::iter::once(p.master.as_str())
            .chain(p.slaves.iter().map(|s| s.as_str()))
            .collect();
        let ports = self.ports(&nodes, self.spec.bluetooth_power_dbm);
        let air = self.air(ports, 1e6, &format!("piconet:{}:air", p.name));
        let mode = p
            .coexistence
            .as_deref()
            .and_then(Avoidance::parse)
            .unwrap_or(Avoidance::None);
        Some(PiconetAir::new(
            air,
            Hopping::new(self.seed, &p.name),
            Classifier::new(DEFAULT_THRESHOLD, DEFAULT_INTERVAL),
            mode,
            stream(self.seed, &format!("piconet:{}:air-control", p.name)),
        ))
    }

    /// The air of a cell medium (co-channel cells `names` on `channel`, its ports at
    /// `nodes`), if one of its cells is a member; its stream is named after that cell.
    pub fn cell(
        &mut self,
        names: &[&str],
        channel: Option<u32>,
        nodes: &[&str],
    ) -> Option<CellAir> {
        let name = *names.iter().find(|n| self.is_member(n))?;
        let ports = self.ports(nodes, self.spec.wlan_power_dbm);
        let air = self.air(ports, 22e6, &format!("cell:{name}:air"));
        Some(CellAir::new(air, channel.unwrap_or(1) as u8))
    }
}
