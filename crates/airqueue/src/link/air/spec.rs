//! The shared 2.4 GHz spectrum as the scenario format writes it (`[spectrum]`): the spec of
//! this folder's model ([`super::Air`], a medium's radios on a shared
//! [`crate::channel::Spectrum`]), beside the model, its checks (`checks.rs`) and its
//! builder (`build.rs`); the format (`crate::scenario`) re-exports it. The doc comments
//! are user documentation (the JSON Schema and `docs/scenario-reference.md`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The shared 2.4 GHz spectrum (Golmie, Van Dyck, Soltanian 2001): every member's
/// transmissions are registered on their band (a Bluetooth hop's 1 MHz, an 802.11b
/// channel's 22 MHz) and each received packet's bit errors follow its SINR over time.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpectrumSpec {
    /// Names of the piconets and 802.11b/g cells (with a `channel`) that share the band.
    pub members: Vec<String>,
    /// Node positions in metres, `node = [x, y]`; nodes not listed stand at the origin.
    /// Radios of one node (a dual-mode access point) are `min_distance` apart.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub positions: std::collections::BTreeMap<String, [f64; 2]>,
    /// Path loss between any two radios (wanted signal and interference alike); default
    /// free space at 2441 MHz.
    #[serde(default = "default_spectrum_path_loss")]
    pub path_loss: crate::channel::PathLossConf,
    /// Bluetooth transmit power (EIRP), dBm: 0 (1 mW, class 3, as Golmie et al.).
    #[serde(default)]
    pub bluetooth_power_dbm: f64,
    /// 802.11 transmit power (EIRP), dBm: 14 (25 mW).
    #[serde(default = "default_wlan_power")]
    pub wlan_power_dbm: f64,
    /// Receivers' noise figure, dB (7); the noise is kTB over 1 MHz (Bluetooth) or 22 MHz.
    #[serde(default = "default_spectrum_nf")]
    pub noise_figure_db: f64,
    /// Shortest distance between two radios, metres (two on one node): 0.1.
    #[serde(default = "default_min_distance")]
    pub min_distance: f64,
}

fn default_spectrum_path_loss() -> crate::channel::PathLossConf {
    crate::channel::PathLossConf::Friis
}
fn default_wlan_power() -> f64 {
    14.0
}
/// The receivers' noise figure, dB, of `[spectrum]` and of `[propagation]`.
pub(crate) fn default_spectrum_nf() -> f64 {
    7.0
}
fn default_min_distance() -> f64 {
    0.1
}
