//! `airqueue._native`: the Python binding of the airqueue core.
//!
//! Only conversions live here: scenario JSON text in, result columns out (numeric columns
//! become NumPy arrays that take over the Rust buffers, so no per-row conversion happens).
//! The run itself releases the GIL. No panic crosses into Python: a scenario problem raises
//! `ScenarioError` with every (path, message) pair; anything else raises `InternalError`.

use airqueue::metrics::{Column, Table};
use airqueue::scenario::{self, ScenarioError as CoreScenarioError};
use airqueue::sim::{BuildOptions, CaptureSpec, Simulation};
use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(
    _native,
    ScenarioError,
    PyValueError,
    "A scenario has problems; args[1] lists (path, message) pairs."
);
create_exception!(
    _native,
    InternalError,
    PyRuntimeError,
    "A bug inside airqueue (not a problem with the input)."
);

fn scenario_err(e: CoreScenarioError) -> PyErr {
    let problems: Vec<(String, String)> = e
        .problems
        .iter()
        .map(|p| (p.path.clone(), p.message.clone()))
        .collect();
    ScenarioError::new_err((e.to_string(), problems))
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Runs `f` and turns a panic into `InternalError`.
fn guarded<T>(f: impl FnOnce() -> Result<T, CoreScenarioError>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(scenario_err(e)),
        Err(p) => Err(InternalError::new_err(format!(
            "internal error in the airqueue core: {}; please report it with the scenario",
            panic_message(p)
        ))),
    }
}

fn table_to_py<'py>(py: Python<'py>, t: Table) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for (name, col) in t.columns {
        let value: Bound<'py, PyAny> = match col {
            Column::F64(v) => v.into_pyarray(py).into_any(),
            Column::U64(v) => v.into_pyarray(py).into_any(),
            Column::Str(v) => PyList::new(py, v)?.into_any(),
            Column::Cat { codes, categories } => PyTuple::new(
                py,
                [
                    codes.into_pyarray(py).into_any(),
                    PyList::new(py, categories)?.into_any(),
                ],
            )?
            .into_any(),
        };
        out.append((name, value))?;
    }
    Ok(out)
}

/// The airqueue core version.
#[pyfunction]
fn version() -> &'static str {
    airqueue::VERSION
}

/// The JSON Schema of the scenario format.
#[pyfunction]
fn schema() -> String {
    scenario::scenario_schema()
}

/// Validates a scenario given as JSON text; returns the resolved scenario as JSON text
/// (counts expanded, defaults filled in). Raises ScenarioError listing every problem.
#[pyfunction]
fn validate(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    let text = scenario_json.to_owned();
    py.detach(move || {
        guarded(|| {
            let s = scenario::load_json_str(&text)?;
            // Build too: reachability and path-MTU problems are scenario problems as well.
            Simulation::build(&s, BuildOptions::default())?;
            Ok(scenario::to_resolved_json(&s))
        })
    })
}

/// Runs a scenario given as JSON text. Returns a dict with `summary_json`, `resolved_json`,
/// and `tables`: every result table as (name, columns) — `flows`, `queues`, `classes`,
/// `timeseries`, then whatever tables the scenario's media and systems add — where columns
/// are (column name, column) and a column is a NumPy array, a list of str, or (codes array,
/// categories list).
///
/// With `pcap_links` (link names) and `pcap_dir`, writes `<pcap_dir>/<link>.pcap` for each
/// link and adds `pcap`: a list of (link, path, packets).
#[pyfunction]
#[pyo3(signature = (scenario_json, seed=None, pcap_links=None, pcap_dir=None))]
fn run<'py>(
    py: Python<'py>,
    scenario_json: &str,
    seed: Option<u64>,
    pcap_links: Option<Vec<String>>,
    pcap_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let text = scenario_json.to_owned();
    let capture = pcap_links.map(|links| CaptureSpec {
        links,
        dir: pcap_dir.unwrap_or_else(|| ".".into()),
    });
    let (resolved, results, captured) = py.detach(move || {
        guarded(|| {
            let mut s = scenario::load_json_str(&text)?;
            if let Some(seed) = seed {
                s.run.seed = seed;
            }
            let opts = BuildOptions {
                capture,
                ..Default::default()
            };
            let mut sim = Simulation::build(&s, opts)?;
            sim.run();
            let captured = sim.finish_capture();
            Ok((scenario::to_resolved_json(&s), sim.results(), captured))
        })
    })?;
    let captured =
        captured.map_err(|e| PyOSError::new_err(format!("writing the pcap files failed: {e}")))?;
    let d = PyDict::new(py);
    let (summary, tables) = results.into_tables();
    d.set_item("summary_json", summary.to_json())?;
    d.set_item("resolved_json", resolved)?;
    let named = PyList::empty(py);
    for (name, t) in tables {
        named.append((name, table_to_py(py, t)?))?;
    }
    d.set_item("tables", named)?;
    let pcap: Vec<(String, std::path::PathBuf, u64)> = captured
        .into_iter()
        .map(|c| (c.link, c.path, c.packets))
        .collect();
    d.set_item("pcap", pcap)?;
    Ok(d)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    Ok(())
}
