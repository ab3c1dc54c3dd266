//! The configuration contract every model shares, below all of them: quantities with units
//! ([`units`]: `Rate`, `Duration`, `Bytes`, `Probability`), the problem type with its field
//! path ([`problem`]: `Problem`, `ScenarioError`), the rules every medium's names and MTU
//! follow ([`names`]: `check_name`, `unique`, `MIN_MTU`), the enums chosen by a `kind` key
//! ([`kind_enum!`](crate::kind_enum), as each qdisc, application or medium registers its
//! `Conf` under its name), serde's errors in words ([`words`]), the checks every section
//! shares ([`checks`]: a name's rule, uniqueness, the MTU floor) and the serde defaults
//! several specs share ([`defaults`]).
//!
//! Like Linux's `include/net/pkt_sched.h` (units, registration) under every `sch_*.c`: a
//! model's parameter struct (`qdisc/tbf.rs::TbfConf`) uses these types and parses its own
//! options; the scenario format (`crate::scenario`) imports the models' `Conf`s, never
//! the reverse. Nothing here imports a model; `units` reads only `engine::SimTime`.

pub mod defaults;
pub mod kind_enum;
pub mod names;
pub mod problem;
pub mod units;
pub mod words;

pub use defaults::{default_mtu, is_zero_u32};
pub use names::{check_name, check_wired_mtu, unique, MIN_MTU};
pub use problem::{Problem, ScenarioError};
pub use units::{Bytes, Duration, Probability, Rate};
