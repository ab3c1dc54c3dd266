//! airqueue: a deterministic discrete-event laboratory for packet scheduling over wireless
//! and hybrid networks. This crate is the pure-Rust core; `airqueue-py` binds it to Python.
//!
//! Layers (see `ARCHITECTURE.md`): [`engine`] (time, events, RNG streams), [`packet`]
//! (arena and headers), [`qdisc`] (the queueing disciplines), [`link`] (wired links and
//! impairments), [`topology`] (nodes, interfaces, routes), [`app`] (traffic sources),
//! [`metrics`] (columnar results), [`scenario`] (the format) and [`sim`] (the run loop).

pub mod app;
pub mod channel;
pub mod conf;
pub mod engine;
pub mod event;
pub mod hook;
pub mod link;
pub mod metrics;
pub mod packet;
pub mod qdisc;
pub mod scenario;
pub mod sim;
pub mod stripe;
pub mod topology;
pub mod transport;

/// The crate version, recorded in every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A hash of the core's sources and locked dependencies (`build.rs`): two builds with the
/// same id give the same results; the result store keys runs by it beside [`VERSION`].
pub const SOURCE_ID: &str = env!("AIRQUEUE_SOURCE_ID");
