//! airqueue: a deterministic discrete-event laboratory for packet scheduling over wireless
//! and hybrid networks. This crate is the pure-Rust core; `airqueue-py` binds it to Python.
//!
//! Layers, bottom first (`docs/architecture.md`, checked by `tests/layering.rs`): [`engine`]
//! (time, event queue, timers, RNG streams); [`conf`] (units, problems with their paths,
//! kind enums); [`packet`] (arena and headers); [`event`] (the event and timer contract);
//! [`app`], [`channel`], [`metrics`], [`topology`], [`transport`] (sources, channel models,
//! result tables, nodes and routes, TCP as state machines); [`hook`] (the node-hook
//! contract); [`qdisc`] (the queueing disciplines); [`link`] (the media, one folder each);
//! [`stripe`] (striping trunks); [`scenario`] (the format) and [`sim`] (build and run loop).
//! A module uses only lower layers; the one exception, `qdisc` reading a link view, is
//! named in `docs/architecture.md`.

pub mod app;
pub mod channel;
pub mod conf;
pub mod engine;
pub mod event;
pub mod hook;
pub mod link;
pub mod live;
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
