//! The discrete-event engine: integer-nanosecond time, a deterministic event queue and
//! per-component random-number streams. The run loop itself lives in [`crate::sim`].

pub mod prefetch;
pub mod queue;
pub mod rng;
pub mod time;
pub mod timers;

pub use queue::{EventId, EventQueue};
pub use rng::{stream, SimRng};
pub use time::SimTime;
pub use timers::{Next, Surfaced, TimerId, Timers};
