//! Wireless channel models, one file each, usable without any medium (issue 11):
//!
//! - [`bit_error`]: packet error from bit errors, PER = 1 − (1 − BER)^bits, and the
//!   n-hop closed form (thesis, seed 001, §4.2.1 and §5);
//! - [`gilbert_elliott`]: the continuous-time two-state channel with exponential sojourns
//!   and a BER per state, evaluated lazily (seed 001, §3.1.3);
//! - [`gemodel`]: netem's discrete per-packet Gilbert-Elliott model, also a wired
//!   impairment;
//! - [`propagation`]: Friis and log-distance path loss, noise floor, link budget;
//! - [`mobility`]: positions and constant-velocity motion, computed when asked;
//! - [`modulation`]: BER(SNR) for 802.11b, 802.11a/g and Bluetooth GFSK;
//! - [`spectrum`]: the shared 2.4 GHz spectrum and Bluetooth/802.11b interference
//!   (Golmie et al.);
//! - [`conf`]: the scenario types.
//!
//! Randomness: each model that draws takes its own [`crate::engine::SimRng`], created by
//! its owner with `engine::stream(seed, "link:<link>:<a>-><b>:<model>")`, one per link
//! direction. See `docs/channels.md` for the formulas, references and validation.

pub mod bit_error;
pub mod conf;
pub mod gemodel;
pub mod gilbert_elliott;
pub mod mobility;
pub mod modulation;
pub mod propagation;
pub mod spectrum;

pub use bit_error::{per, success, success_over_hops, BitErrorModel, BitErrors};
pub use conf::{ChannelConf, GeModelConf, GilbertElliottConf, PathLossConf, Radio, RadioConf};
pub use gemodel::{GeModel, GeModelParams};
pub use gilbert_elliott::{
    expected_success, stationary, GeState, GilbertElliott, GilbertElliottParams,
};
pub use mobility::{Motion, Position, Track};
pub use modulation::{snr_for_ber, Modulation};
pub use propagation::{
    db_to_ratio, dbm_to_mw, friis_loss_db, log_distance_loss_db, mw_to_dbm, noise_floor_dbm,
    LinkBudget, PathLoss,
};
pub use spectrum::{overlap_fraction, Band, Reception, Spectrum, Transmission};
