//! Live mode (issue 34, docs/live.md): a scenario runs in real time with some hosts real —
//! each a network namespace with a TUN interface — and the packets their programs send
//! cross the same qdiscs and media as simulated ones.
//!
//! This module is the real-time side: the clock mapping ([`clock`]), the TUN devices
//! opened inside a namespace ([`tun`]) and read and written ([`tunio`]), the loop that
//! drives a [`Simulation`] built with [`Simulation::build_live`] through its stepping API
//! ([`run`]), the loop thread's scheduling ([`sched`]), its record of its own timing
//! ([`timing`]), the real hosts' captures ([`pcap`]), and the bare forwarder its throughput
//! is measured against ([`bare`]). The namespaces
//! themselves are made and removed by the Python front (`airqueue live`).
//!
//! [`Simulation`]: crate::sim::Simulation
//! [`Simulation::build_live`]: crate::sim::Simulation::build_live

pub mod bare;
pub mod clock;
pub mod pcap;
pub mod run;
pub mod sched;
pub mod timing;
pub mod tun;
pub mod tunio;

pub use clock::Clock;
pub use run::{run, HostCounts, LiveOptions, LiveReport, Timing};
