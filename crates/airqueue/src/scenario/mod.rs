//! Scenarios: the TOML/JSON format (see `docs/scenario-reference.md`), its parsing with
//! field paths in every error, `count` expansion, semantic validation and JSON Schema.
//!
//! Pipeline: value → [`parse::parse_value`] (types, units, unknown keys; every problem
//! of every entry) → [`expand::expand`] (`count`) → [`validate::validate`] (names,
//! references, ranges; every problem). [`load_value`] runs all three.

mod expand;
mod markers;
mod parse;
mod schema;
pub mod spec;
pub mod tcp_profile;
mod text;
mod validate;

/// The units, problems and kind enums live below every model (`crate::conf`); the
/// format re-exports them under their old paths.
pub use crate::conf::{kind_enum, units, words};
pub use crate::conf::{Problem, ScenarioError};
pub use expand::expand;
pub use parse::parse_value;
pub use schema::scenario_schema;
pub use spec::*;
pub use tcp_profile::TcpProfile;
pub use text::{prepare_toml, resolved_toml};
pub use validate::validate;

/// Parses, expands and validates a scenario given as a JSON value.
///
/// Every stage runs even when an earlier one found problems, on what the earlier stages
/// could read, so that one pass reports every problem it can: an entry that failed to parse
/// is left out, and later problems that only follow from its absence are not reported.
pub fn load_value(v: serde_json::Value) -> Result<Scenario, ScenarioError> {
    let (s, errs) = load_value_all(v);
    match s {
        Some(s) if errs.is_empty() => Ok(s),
        _ => Err(errs),
    }
}

/// [`load_value`] for a caller that checks further (the build, `sim::load_and_build`):
/// every problem found, and the scenario when it holds every entry as written or with
/// only unknown keys taken out, so that the caller's own problems with it are real ones
/// (a path's MTU needs every link on the path). `None` when an entry was left out or
/// `count` could not be expanded.
pub fn load_value_all(v: serde_json::Value) -> (Option<Scenario>, ScenarioError) {
    let mut partial = parse::parse_partial(v);
    // Taken, not cloned: a copy of a 10 000-host scenario costs more than its checks.
    let mut errs = std::mem::take(&mut partial.errs);
    let Some(raw) = partial.scenario.take() else {
        return (None, errs);
    };
    let later = |e: ScenarioError, errs: &mut ScenarioError| {
        let mut e = e;
        e.problems.retain(|p| !partial.is_consequence(p));
        errs.problems.append(&mut e.problems);
    };
    let s = match expand(raw) {
        Ok(s) => s,
        Err(e) => {
            later(e, &mut errs);
            return (None, errs);
        }
    };
    if let Err(e) = validate(&s) {
        later(e, &mut errs);
        // Problems of validation mean the scenario cannot be built as it stands.
        return (None, errs);
    }
    (partial.failed.is_empty().then_some(s), errs)
}

/// Parses, expands and validates a scenario written as JSON text.
pub fn load_json_str(text: &str) -> Result<Scenario, ScenarioError> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| ScenarioError::single("(file)", format!("not valid JSON: {e}")))?;
    load_value(v)
}

/// Parses, expands and validates a scenario written as TOML text.
pub fn load_toml_str(text: &str) -> Result<Scenario, ScenarioError> {
    let v: serde_json::Value = toml::from_str(text)
        .map_err(|e| ScenarioError::single("(file)", format!("not valid TOML: {e}")))?;
    load_value(v)
}

/// The resolved scenario (counts expanded, defaults filled in) as JSON.
pub fn to_resolved_json(s: &Scenario) -> String {
    serde_json::to_string(s).expect("a scenario always serializes")
}
