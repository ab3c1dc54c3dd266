//! Applications: traffic sources named as the seed papers name them. UDP sources (CBR,
//! Poisson, on/off; voice and video as D-ITG makes them), ping, and the page logic of
//! web-like browsing; bulk transfer and message sources write into a TCP connection
//! directly (`sim::tcp_flow`).

mod ping;
pub mod spec;
mod udp;
mod video;
mod voice;
mod web;

pub use ping::{PingSource, ICMP_ECHO_HEADER_BYTES};
pub use spec::*;
pub use udp::{Pattern, UdpSource};
pub use video::video_interval;
pub use voice::voice_packets;
pub use web::WebSession;
