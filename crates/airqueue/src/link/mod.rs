//! Links: wired point-to-point transmitters and their netem-like impairments. 802.11 cells
//! and Bluetooth piconets join here in later issues.

mod impairment;
mod p2p;
mod wire;

pub use impairment::Impairment;
pub use p2p::P2pTransmitter;
pub use wire::Wire;
