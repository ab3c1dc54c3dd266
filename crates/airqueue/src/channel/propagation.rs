//! Path loss, noise and the link budget: free space (Friis), log-distance, thermal noise
//! with a noise figure, transmit power and antenna gains.
//!
//! - Friis free-space loss (Friis 1946; Rappaport, *Wireless Communications*, 2nd ed.,
//!   eq. 4.5): `L = 20·log10(4π d f / c)` dB. The striping paper (seed 004, §4.2.5) uses it
//!   for its moving trunk.
//! - Log-distance (Rappaport eq. 4.68): `L(d) = L(d0) + 10 n log10(d/d0)`, with `L(d0)`
//!   the Friis loss at the reference distance `d0` unless given.
//! - Noise: `N = 10 log10(k T0 B · 1000) + NF` dBm with k Boltzmann's constant and
//!   T0 = 290 K (−173.98 dBm/Hz), B the receiver bandwidth and NF its noise figure.
//! - Received power: `P_rx = P_tx + G_tx + G_rx − L` (dBm, dBi, dB).
//!
//! Losses are floored at 0 dB: in the near field (d < λ/4π) the far-field formulas would
//! promise a gain.

/// Speed of light in vacuum, m/s.
pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;
/// Boltzmann's constant, J/K (exact since the 2019 SI).
pub const BOLTZMANN: f64 = 1.380_649e-23;
/// Reference noise temperature T0, K.
pub const T0_KELVIN: f64 = 290.0;

/// Friis free-space path loss in dB at `distance_m` and `frequency_hz`.
pub fn friis_loss_db(distance_m: f64, frequency_hz: f64) -> f64 {
    let l =
        20.0 * (4.0 * std::f64::consts::PI * distance_m * frequency_hz / SPEED_OF_LIGHT).log10();
    l.max(0.0)
}

/// Log-distance path loss in dB: `reference_loss_db + 10 · exponent · log10(d / d0)`,
/// constant (= the reference loss) below `d0`.
pub fn log_distance_loss_db(
    distance_m: f64,
    reference_m: f64,
    reference_loss_db: f64,
    exponent: f64,
) -> f64 {
    let d = distance_m.max(reference_m);
    (reference_loss_db + 10.0 * exponent * (d / reference_m).log10()).max(0.0)
}

/// Thermal noise power in dBm over `bandwidth_hz` behind a receiver of noise figure
/// `noise_figure_db`.
pub fn noise_floor_dbm(bandwidth_hz: f64, noise_figure_db: f64) -> f64 {
    10.0 * (BOLTZMANN * T0_KELVIN * bandwidth_hz * 1000.0).log10() + noise_figure_db
}

/// dBm → mW.
#[inline]
pub fn dbm_to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

/// mW → dBm.
#[inline]
pub fn mw_to_dbm(mw: f64) -> f64 {
    10.0 * mw.log10()
}

/// dB → linear ratio.
#[inline]
pub fn db_to_ratio(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// A path-loss model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PathLoss {
    /// Free space at this carrier frequency.
    Friis { frequency_hz: f64 },
    /// Log-distance with this exponent; `reference_loss_db` at `reference_m`.
    LogDistance {
        reference_m: f64,
        reference_loss_db: f64,
        exponent: f64,
    },
}

impl PathLoss {
    /// The loss in dB at `distance_m`.
    pub fn loss_db(&self, distance_m: f64) -> f64 {
        match *self {
            PathLoss::Friis { frequency_hz } => friis_loss_db(distance_m, frequency_hz),
            PathLoss::LogDistance {
                reference_m,
                reference_loss_db,
                exponent,
            } => log_distance_loss_db(distance_m, reference_m, reference_loss_db, exponent),
        }
    }
}

/// A radio link budget: what a receiver at some distance from a transmitter gets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkBudget {
    pub tx_power_dbm: f64,
    pub tx_gain_dbi: f64,
    pub rx_gain_dbi: f64,
    pub path_loss: PathLoss,
    /// Noise floor at the receiver (see [`noise_floor_dbm`]).
    pub noise_dbm: f64,
}

impl LinkBudget {
    /// Received signal power in dBm at `distance_m`.
    pub fn rx_power_dbm(&self, distance_m: f64) -> f64 {
        self.tx_power_dbm + self.tx_gain_dbi + self.rx_gain_dbi - self.path_loss.loss_db(distance_m)
    }

    /// Signal-to-noise ratio (linear) at `distance_m`.
    pub fn snr(&self, distance_m: f64) -> f64 {
        db_to_ratio(self.rx_power_dbm(distance_m) - self.noise_dbm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Friis at 2.437 GHz (802.11b channel 6) and 2.402 GHz: the closed form written out
    /// independently as (λ / 4πd)² in linear units.
    #[test]
    fn friis_equals_the_free_space_equation_exactly() {
        for f in [2.402e9, 2.437e9, 5.18e9] {
            for d in [1.0, 2.0, 10.0, 37.5, 100.0, 1000.0] {
                let lambda = SPEED_OF_LIGHT / f;
                let gain = (lambda / (4.0 * std::f64::consts::PI * d)).powi(2);
                let expect = -10.0 * gain.log10();
                assert!((friis_loss_db(d, f) - expect).abs() < 1e-9, "{d} m {f} Hz");
            }
        }
        // The usual rule of thumb: 40.05 dB at 1 m, 2.4 GHz.
        assert!((friis_loss_db(1.0, 2.4e9) - 40.052).abs() < 1e-3);
    }

    #[test]
    fn log_distance_equals_its_formula_and_friis_when_n_is_2() {
        let f = 2.437e9;
        let l0 = friis_loss_db(1.0, f);
        for d in [1.0, 3.0, 10.0, 250.0] {
            let ld = log_distance_loss_db(d, 1.0, l0, 2.0);
            assert!((ld - friis_loss_db(d, f)).abs() < 1e-9);
            let l3 = log_distance_loss_db(d, 1.0, l0, 3.0);
            assert!((l3 - (l0 + 30.0 * d.log10())).abs() < 1e-12);
        }
    }

    #[test]
    fn noise_floor_is_minus_174_dbm_per_hz_plus_bandwidth_and_noise_figure() {
        // kT0 = 4.00e-21 W/Hz = −173.98 dBm/Hz; 22 MHz → −100.56 dBm.
        assert!((noise_floor_dbm(1.0, 0.0) + 173.975).abs() < 1e-3);
        assert!((noise_floor_dbm(22e6, 0.0) + 100.551).abs() < 1e-3);
        assert!((noise_floor_dbm(1e6, 10.0) + 103.975).abs() < 1e-3);
    }
}
