//! IEEE 802.11 cells (issue 12): PHY timing ([`phy`]), the DCF medium ([`dcf`]), and the
//! effective-rate helper of seed 002 ([`rate`]). docs/wifi.md describes the model.

pub mod dcf;
pub mod phy;
pub mod rate;

pub use dcf::{Cell, DcfConf, PortConf};
pub use phy::{Phy, Standard};
