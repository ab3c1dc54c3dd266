//! Bluetooth BR: the baseband, L2CAP and the piconet medium (issue 13; thesis, seed 001).
//! One model per file:
//!
//! - [`baseband`]: packet types, slots, payloads, the specification's maximum rates;
//! - [`sar`]: L2CAP segmentation, OSU and Best Fit;
//! - [`token_bucket`]: L2CAP flow control (token rate tb, bucket depth), evaluated lazily;
//! - [`polling`]: 1-limited, exhaustive and E-limited(M) polling, and the closed-form idle
//!   cycle;
//! - [`hopping`]: the 79-channel hop sequence, the AFH channel map, channel
//!   classification (AFH, BIAS);
//! - [`acl_channel`]: each master–slave link's channel (perfect, BER, Gilbert-Elliott);
//! - [`coexist`]: a piconet on the shared spectrum, AFH and BIAS;
//! - [`piconet`]: the medium. See `docs/bluetooth.md`;
//! - [`scatternet`]: piconets joined by a walk-in slave/slave bridge.
//!
//! The folder holds the whole medium: what the scenario format writes (`[[piconets]]`,
//! `[[bridges]]`: [`spec`], re-exported by `crate::scenario`), its checks (`checks`, called
//! by `crate::scenario::validate`), its builder (`build`, called by `crate::sim`) and the
//! model with its unit tests, so a change to Bluetooth stays in one place and needs nothing
//! above the link layer.

pub mod acl_channel;
pub mod baseband;
pub(crate) mod build;
pub(crate) mod checks;
pub mod coexist;
pub mod hopping;
pub mod piconet;
pub mod polling;
pub mod sar;
pub mod scatternet;
pub mod spec;
pub mod token_bucket;

pub use acl_channel::ChannelKind;
pub use baseband::{PacketType, TypeSet, SLOT};
pub use piconet::{FlowControl, Piconet, PiconetConf};
pub use polling::Polling;
pub use sar::Sar;
pub use scatternet::{Residence, Scatternet, WalkIn};
