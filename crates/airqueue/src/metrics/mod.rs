//! Measurements: per-flow and per-queue counters, fixed-interval time series, and the
//! columnar tables they become at the end of a run.

mod flow_stats;
mod histogram;
mod latency;
mod queue_stats;
mod table;
mod timeseries;

pub use flow_stats::FlowStats;
pub use histogram::DurationHistogram;
pub use latency::LatencyStats;
pub use queue_stats::{QueueLedger, QueueStats};
pub use table::{Column, Table};
pub use timeseries::{SeriesKind, SeriesMetric, TimeSeries};
