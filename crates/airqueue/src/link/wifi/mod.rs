//! IEEE 802.11 cells (issue 12): PHY timing ([`phy`]), the DCF/EDCA medium ([`dcf`]), rate
//! control ([`minstrel`], [`arf`]: ARF/AARF), EDCA
//! parameters and DSCP classification ([`edca`]), and the
//! effective-rate helper of seed 002 ([`rate`]); a cell on the shared 2.4 GHz spectrum
//! ([`coexist`]). docs/wifi.md describes the model.
//!
//! The folder holds the whole medium: what the scenario format writes (`[[cells]]`,
//! `[propagation]`: [`spec`], re-exported by `crate::scenario`), its checks (`checks`,
//! called by `crate::scenario::validate`), its builder (`build`, called by `crate::sim`)
//! and the model with its unit tests, so a change to 802.11 stays in one place and needs
//! nothing above the link layer.

pub mod ampdu;
pub mod arf;
pub mod block_ack;
pub(crate) mod build;
pub(crate) mod checks;
pub mod coexist;
pub mod dcf;
pub mod edca;
pub mod minstrel;
pub mod phy;
pub mod rate;
pub mod spec;
pub mod txq;

pub use dcf::{AggConf, BssConf, Cell, DcfConf, PortConf, RateControl};
pub use edca::{Ac, EdcaParams};
pub use phy::{Phy, Standard};
