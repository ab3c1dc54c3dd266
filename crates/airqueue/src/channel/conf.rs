//! Scenario configuration of the channel models: the serde types that wireless media embed
//! (`ChannelConf`) and that a wired link's `impairment` uses (`GeModelConf`). Their doc
//! comments become the JSON Schema and `docs/scenario-reference.md`.

use super::bit_error::BitErrors;
use super::gemodel::GeModelParams;
use super::gilbert_elliott::GilbertElliottParams;
use super::modulation::Modulation;
use super::propagation::{friis_loss_db, noise_floor_dbm, LinkBudget, PathLoss};
use crate::conf::ScenarioError;
use crate::conf::{Duration, Probability};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

fn one() -> Probability {
    Probability(1.0)
}

/// netem's Gilbert-Elliott loss model, `gemodel p r 1-h 1-k` (tc-netem(8)): a two-state
/// chain advanced once per packet; the packet is lost with `loss_bad` in the bad state and
/// `loss_good` in the good state. Long-run loss rate `π_G·loss_good + π_B·loss_bad` with
/// `π_B = p/(p + r)`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GeModelConf {
    /// Probability of moving from the good to the bad state, per packet (netem `p`).
    pub p: Probability,
    /// Probability of moving from the bad to the good state, per packet (netem `r`).
    pub r: Probability,
    /// Loss probability in the bad state (netem `1-h`); default 1.
    #[serde(default = "one")]
    pub loss_bad: Probability,
    /// Loss probability in the good state (netem `1-k`); default 0.
    #[serde(default)]
    pub loss_good: Probability,
}

impl GeModelConf {
    pub fn params(&self) -> GeModelParams {
        GeModelParams {
            p: self.p.0,
            r: self.r.0,
            loss_bad: self.loss_bad.0,
            loss_good: self.loss_good.0,
        }
    }
}

/// The continuous-time Gilbert-Elliott channel: good and bad states with exponentially
/// distributed sojourns and a bit error rate per state (thesis, seed 001, §3.1.3).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottConf {
    /// ρG: mean time in the good state, e.g. "437.5ms".
    pub mean_good: Duration,
    /// ρB: mean time in the bad state, e.g. "55.8ms"; "0s" means never bad.
    pub mean_bad: Duration,
    /// P_G: bit error rate in the good state, e.g. 6.8979e-5.
    pub ber_good: Probability,
    /// P_B: bit error rate in the bad state, e.g. 1.263e-3.
    pub ber_bad: Probability,
}

impl GilbertElliottConf {
    pub fn params(&self) -> GilbertElliottParams {
        GilbertElliottParams {
            mean_good: self.mean_good.time(),
            mean_bad: self.mean_bad.time(),
            ber_good: self.ber_good.0,
            ber_bad: self.ber_bad.0,
        }
    }
}

/// How a wireless link's packets get corrupted. Set at most one of `ber`, `per`,
/// `gilbert_elliott`, `gemodel`; with none, only the radio budget (if any) decides.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ChannelConf {
    /// Constant bit error rate: PER = 1 − (1 − ber)^bits over the bits on the air.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ber: Option<Probability>,
    /// Constant packet error rate, whatever the length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<Probability>,
    /// Continuous-time Gilbert-Elliott channel (one chain per link direction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gilbert_elliott: Option<GilbertElliottConf>,
    /// netem's per-packet Gilbert-Elliott model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gemodel: Option<GeModelConf>,
    /// Radio budget: SNR from transmit power, path loss and noise, then BER(SNR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radio: Option<RadioConf>,
}

/// A path-loss model.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum PathLossConf {
    /// Free space (Friis): 20·log10(4π d f / c) dB at the radio's frequency.
    Friis,
    /// Log-distance: L(d0) + 10·exponent·log10(d/d0); L(d0) defaults to Friis at d0.
    LogDistance {
        /// Path-loss exponent n (2 free space, 2.7–3.5 urban, 4–6 indoors obstructed).
        exponent: f64,
        /// Reference distance d0 in metres; default 1.
        #[serde(default = "one_metre")]
        reference_distance_m: f64,
        /// Loss at d0 in dB; default the Friis loss at d0.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reference_loss_db: Option<f64>,
    },
}

fn one_metre() -> f64 {
    1.0
}

/// A radio's link budget and modulation.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RadioConf {
    /// "dsss1", "dsss2", "cck5.5", "cck11" (802.11b), "ofdm6" … "ofdm54" (802.11a/g),
    /// "gfsk" (Bluetooth).
    pub modulation: String,
    /// Carrier frequency in MHz, e.g. 2437 (802.11b channel 6).
    pub frequency_mhz: f64,
    /// Transmit power in dBm, e.g. 14 (25 mW) or 0 (1 mW, Bluetooth class 3).
    pub tx_power_dbm: f64,
    /// Transmit antenna gain, dBi.
    #[serde(default)]
    pub tx_gain_dbi: f64,
    /// Receive antenna gain, dBi.
    #[serde(default)]
    pub rx_gain_dbi: f64,
    /// Receiver noise figure in dB; default 7.
    #[serde(default = "default_nf")]
    pub noise_figure_db: f64,
    /// Receiver bandwidth in MHz; default 22 (802.11b), 20 (OFDM) or 1 (GFSK).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_mhz: Option<f64>,
    /// Path-loss model; default free space.
    #[serde(default = "friis")]
    pub path_loss: PathLossConf,
}

fn default_nf() -> f64 {
    7.0
}

fn friis() -> PathLossConf {
    PathLossConf::Friis
}

/// What a [`RadioConf`] builds into.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Radio {
    pub modulation: Modulation,
    pub budget: LinkBudget,
}

impl RadioConf {
    /// Checks the values and builds the radio; problems are reported at `path`.
    pub fn build(&self, path: &str, errs: &mut ScenarioError) -> Option<Radio> {
        let before = errs.problems.len();
        let modulation = match Modulation::parse(&self.modulation) {
            Ok(m) => Some(m),
            Err(e) => {
                errs.push(format!("{path}.modulation"), e);
                None
            }
        };
        let positive = |v: f64, key: &str, example: &str, errs: &mut ScenarioError| {
            if !(v.is_finite() && v > 0.0) {
                errs.push(
                    format!("{path}.{key}"),
                    format!("{v} must be a positive number; write e.g. {example}"),
                );
            }
        };
        positive(self.frequency_mhz, "frequency_mhz", "2437", errs);
        for (v, key) in [
            (self.tx_power_dbm, "tx_power_dbm"),
            (self.tx_gain_dbi, "tx_gain_dbi"),
            (self.rx_gain_dbi, "rx_gain_dbi"),
            (self.noise_figure_db, "noise_figure_db"),
        ] {
            if !v.is_finite() {
                errs.push(format!("{path}.{key}"), "must be a finite number of dB");
            }
        }
        if let Some(b) = self.bandwidth_mhz {
            positive(b, "bandwidth_mhz", "22", errs);
        }
        let f_hz = self.frequency_mhz * 1e6;
        let path_loss = match &self.path_loss {
            PathLossConf::Friis => PathLoss::Friis { frequency_hz: f_hz },
            PathLossConf::LogDistance {
                exponent,
                reference_distance_m,
                reference_loss_db,
            } => {
                positive(*exponent, "path_loss.exponent", "3", errs);
                positive(
                    *reference_distance_m,
                    "path_loss.reference_distance_m",
                    "1",
                    errs,
                );
                PathLoss::LogDistance {
                    reference_m: *reference_distance_m,
                    reference_loss_db: reference_loss_db
                        .unwrap_or_else(|| friis_loss_db(*reference_distance_m, f_hz)),
                    exponent: *exponent,
                }
            }
        };
        let modulation = modulation?;
        if errs.problems.len() > before {
            return None;
        }
        let bw_mhz = self.bandwidth_mhz.unwrap_or(match modulation {
            Modulation::Dsss1 | Modulation::Dsss2 | Modulation::Cck5_5 | Modulation::Cck11 => 22.0,
            Modulation::Ofdm(_) | Modulation::Mcs(_) => 20.0,
            Modulation::Gfsk => 1.0,
        });
        Some(Radio {
            modulation,
            budget: LinkBudget {
                tx_power_dbm: self.tx_power_dbm,
                tx_gain_dbi: self.tx_gain_dbi,
                rx_gain_dbi: self.rx_gain_dbi,
                path_loss,
                noise_dbm: noise_floor_dbm(bw_mhz * 1e6, self.noise_figure_db),
            },
        })
    }
}

impl ChannelConf {
    /// The bit-error process this configuration asks for, after checking that at most one
    /// of `ber`, `per`, `gilbert_elliott`, `gemodel` is set; problems at `path`.
    pub fn check(&self, path: &str, errs: &mut ScenarioError) {
        let set: Vec<&str> = [
            ("ber", self.ber.is_some()),
            ("per", self.per.is_some()),
            ("gilbert_elliott", self.gilbert_elliott.is_some()),
            ("gemodel", self.gemodel.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, on)| on.then_some(k))
        .collect();
        if set.len() > 1 {
            errs.push(
                format!("{path}.{}", set[1]),
                format!(
                    "{} are alternative error models; keep one of them",
                    set.join(" and ")
                ),
            );
        }
        if let Some(ge) = &self.gilbert_elliott {
            if ge.mean_good.time().0 == 0 && ge.mean_bad.time().0 == 0 {
                errs.push(
                    format!("{path}.gilbert_elliott.mean_good"),
                    "mean_good and mean_bad are both zero; give the good state a mean sojourn, e.g. \"437.5ms\"",
                );
            }
        }
        if let Some(r) = &self.radio {
            r.build(&format!("{path}.radio"), errs);
        }
    }

    /// The constant error process (`ber`, `per` or none).
    pub fn bit_errors(&self) -> BitErrors {
        match (self.ber, self.per) {
            (Some(b), _) => BitErrors::Ber(b.0),
            (None, Some(p)) => BitErrors::Per(p.0),
            _ => BitErrors::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(toml_text: &str) -> ChannelConf {
        let v: toml::Value = toml::from_str(toml_text).unwrap();
        serde_json::from_value(serde_json::to_value(v).unwrap()).unwrap()
    }

    #[test]
    fn a_thesis_channel_and_a_radio_parse_and_check() {
        let c = parse(
            r#"
            gilbert_elliott = { mean_good = "437.5ms", mean_bad = "55.8ms", ber_good = 6.8979e-5, ber_bad = 1.263e-3 }
            radio = { modulation = "cck11", frequency_mhz = 2437, tx_power_dbm = 14, path_loss = { model = "log_distance", exponent = 3 } }
            "#,
        );
        let mut errs = ScenarioError::default();
        c.check("links.bt", &mut errs);
        assert!(errs.is_empty(), "{errs:?}");
        let p = c.gilbert_elliott.unwrap().params();
        assert_eq!(p.mean_bad.0, 55_800_000);
    }

    #[test]
    fn two_error_models_or_a_bad_modulation_are_problems_with_a_path() {
        let c = parse(
            r#"
            ber = 1e-5
            gemodel = { p = 0.01, r = 0.1 }
            radio = { modulation = "qam", frequency_mhz = -1, tx_power_dbm = 0 }
            "#,
        );
        let mut errs = ScenarioError::default();
        c.check("cells.c1.channel", &mut errs);
        let paths: Vec<&str> = errs.problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "cells.c1.channel.gemodel",
                "cells.c1.channel.radio.modulation",
                "cells.c1.channel.radio.frequency_mhz"
            ]
        );
    }
}
