//! Applications: traffic sources (UDP now; bulk, web, voice and video with TCP later).

mod udp;

pub use udp::{Pattern, UdpSource};
