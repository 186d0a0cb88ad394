//! `rocprof_rs._native`: what the Python package computes in Rust, as the CLI computes it.
//!
//! Each function takes plain arguments, runs with the GIL released (reads and analysis of a
//! large dataset take seconds), and returns the CLI's JSON text, which the Python side parses:
//! one encoding, so `Dataset.stats()` equals the `sections` of `rocprof-rs stats --format json` by
//! construction (the CLI's document adds its envelope: docs/schemas).
//! Errors raise `RocprofError` with the message the CLI would print; a panic is caught and
//! raised the same way, never unwinding into the interpreter.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use rocprof_rs_analysis::analyze::{self, diff, fitness, measure};
use rocprof_rs_analysis::report;
use rocprof_rs_analysis::stats::{self, Section};
use rocprof_rs_analysis::telemetry;

create_exception!(
    _native,
    RocprofError,
    PyException,
    "An error rocprof-rs reports: bad input, a dataset it cannot read."
);

/// What the native functions can fail with; its text is the CLI's message.
#[derive(Debug, thiserror::Error)]
enum NativeError {
    /// An argument out of its range, or a dataset missing.
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Analysis(#[from] rocprof_rs_analysis::Error),
    #[error(transparent)]
    Diff(#[from] diff::InputError),
    #[error(transparent)]
    Score(#[from] measure::ScoreError),
    #[error("{option}: {source}")]
    Regex { option: &'static str, source: regex::Error },
    #[error("cannot encode the result as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// Runs `work` without the GIL; its error or panic becomes a `RocprofError`.
fn detached(py: Python<'_>, work: impl FnOnce() -> Result<String, NativeError> + Send) -> PyResult<String> {
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(work)));
    match outcome {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(error)) => Err(RocprofError::new_err(error.to_string())),
        Err(payload) => Err(RocprofError::new_err(rocprof_rs_format::panic::internal_error(None, &*payload))),
    }
}

fn json(value: &impl serde::Serialize) -> Result<String, NativeError> {
    Ok(serde_json::to_string(value)?)
}

fn regex(pattern: Option<&str>, option: &'static str) -> Result<Option<regex::Regex>, NativeError> {
    pattern.map(regex::Regex::new).transpose().map_err(|source| NativeError::Regex { option, source })
}

/// The `sections` of `rocprof-rs stats DIR --format json`: the duration sections, as a JSON list.
#[pyfunction]
#[pyo3(signature = (dir, sections=None, pid=None, rank=None, by_rank=false, top=None))]
fn stats_json(
    py: Python<'_>,
    dir: PathBuf,
    sections: Option<Vec<String>>,
    pid: Option<u32>,
    rank: Option<i32>,
    by_rank: bool,
    top: Option<usize>,
) -> PyResult<String> {
    detached(py, move || {
        let sections = match sections {
            None => Section::ALL.to_vec(),
            Some(names) => names
                .iter()
                .map(|n| {
                    Section::by_name(n).ok_or_else(|| {
                        NativeError::Input(format!("section {n:?}: expected kernel, hip_api, memory_copy or marker"))
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        if !dir.is_dir() {
            return Err(NativeError::Input(format!(
                "{}: not a directory (give the directory a run or an import wrote)",
                dir.display()
            )));
        }
        let options = stats::Options { pid, rank, by_rank, top, threads: 0 };
        let result = stats::compute(&dir, &sections, &options)?;
        json(&result)
    })
}

/// The `device` of `rocprof-rs stats DIR --section device --format json`, or `None` without
/// device samples.
#[pyfunction]
#[pyo3(signature = (dir, pid=None))]
fn device_json(py: Python<'_>, dir: PathBuf, pid: Option<u32>) -> PyResult<Option<String>> {
    let text = detached(py, move || match telemetry::report::report(&dir, pid)? {
        Some(report) => json(&report),
        None => Ok(String::new()),
    })?;
    Ok((!text.is_empty()).then_some(text))
}

/// `rocprof-rs analyze PATH --format json`, without its envelope.
#[pyfunction]
#[pyo3(signature = (path, kernel=None, gpu=None, pid=None, timings=None, samples=None, roofs=None))]
#[allow(clippy::too_many_arguments, reason = "the CLI's options, one keyword each")]
fn analyze_json(
    py: Python<'_>,
    path: PathBuf,
    kernel: Option<String>,
    gpu: Option<String>,
    pid: Option<u32>,
    timings: Option<PathBuf>,
    samples: Option<PathBuf>,
    roofs: Option<PathBuf>,
) -> PyResult<String> {
    detached(py, move || {
        let kernel = regex(kernel.as_deref(), "kernel")?;
        // Unreadable kept files are passed over, as the CLI does, and said on stderr as it says.
        let (roofs, problems) = analyze::kept::choice(roofs.as_deref())?;
        for problem in problems {
            eprintln!("rocprof-rs: {problem}");
        }
        let options = analyze::Options { kernel, gpu, pid, timings, samples, roofs, ..Default::default() };
        json(&analyze::analyze(&path, &options)?)
    })
}

/// `rocprof-rs diff BASE NEW --format json`, without its envelope (and `baseline`).
#[pyfunction]
#[pyo3(signature = (base, new, threshold=0.02, confidence=0.99, pid=None))]
fn diff_json(
    py: Python<'_>,
    base: PathBuf,
    new: PathBuf,
    threshold: f64,
    confidence: f64,
    pid: Option<u32>,
) -> PyResult<String> {
    detached(py, move || {
        if !(0.0..1.0).contains(&threshold) {
            return Err(NativeError::Input(format!(
                "threshold {threshold}: expected a share between 0 and 1, such as 0.02"
            )));
        }
        if !(0.0..1.0).contains(&confidence) {
            return Err(NativeError::Input(format!(
                "confidence {confidence}: expected a probability below 1, such as 0.99"
            )));
        }
        let a = diff::read_run(&base, pid)?;
        let b = diff::read_run(&new, pid)?;
        json(&diff::compare(&a, &b, diff::Options { threshold, confidence })?)
    })
}

/// `rocprof-rs score PATH --format json`, without its envelope.
#[pyfunction]
#[pyo3(signature = (
    path, target_us=20.0, correctness=1.0, correctness_weight=0.5, efficiency_weight=0.25,
    energy_weight=0.0, energy_target_j=1.0, kernel=None, gpu=None, repeats=100
))]
#[allow(clippy::too_many_arguments, reason = "the CLI's options, one keyword each")]
fn score_json(
    py: Python<'_>,
    path: PathBuf,
    target_us: f64,
    correctness: f64,
    correctness_weight: f64,
    efficiency_weight: f64,
    energy_weight: f64,
    energy_target_j: f64,
    kernel: Option<String>,
    gpu: Option<String>,
    repeats: usize,
) -> PyResult<String> {
    detached(py, move || {
        for (name, value) in [
            ("correctness", correctness),
            ("correctness_weight", correctness_weight),
            ("efficiency_weight", efficiency_weight),
            ("energy_weight", energy_weight),
            ("efficiency_weight plus energy_weight", efficiency_weight + energy_weight),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(NativeError::Input(format!("{name} {value}: expected a share between 0 and 1")));
            }
        }
        if !target_us.is_finite() || target_us <= 0.0 {
            return Err(NativeError::Input(format!("target_us {target_us}: expected a positive latency")));
        }
        if !energy_target_j.is_finite() || energy_target_j <= 0.0 {
            return Err(NativeError::Input(format!("energy_target_j {energy_target_j}: expected a positive energy")));
        }
        let inputs = measure::Inputs {
            path: path.clone(),
            correctness,
            energy: energy_weight > 0.0,
            kernel: regex(kernel.as_deref(), "kernel")?,
            gpu,
            repeats,
        };
        let measurement = measure::measure(&inputs)?;
        let config =
            fitness::Config { target_us, correctness_weight, efficiency_weight, energy_weight, energy_target_j };
        let scored = fitness::score(&measurement, &config)
            .ok_or_else(|| NativeError::Input(format!("{}: no latency to score", path.display())))?;
        json(&scored)
    })
}

/// `rocprof-rs report DIR -o -`: the self-contained HTML page, as text.
#[pyfunction]
#[pyo3(signature = (dir, baseline=None, gpu=None, top=50, bins=4000, step_marker=None))]
fn report_html(
    py: Python<'_>,
    dir: PathBuf,
    baseline: Option<PathBuf>,
    gpu: Option<String>,
    top: usize,
    bins: usize,
    step_marker: Option<String>,
) -> PyResult<String> {
    detached(py, move || {
        if !(100..=100_000).contains(&bins) {
            return Err(NativeError::Input(format!("bins {bins}: expected 100 to 100000")));
        }
        for (what, path) in [("", Some(&dir)), ("baseline ", baseline.as_ref())] {
            if let Some(path) = path.filter(|p| !p.is_dir()) {
                return Err(NativeError::Input(format!(
                    "{what}{}: not a directory (give the directory a run or an import wrote)",
                    path.display()
                )));
            }
        }
        let options = report::Options {
            baseline,
            gpu,
            top,
            bins,
            step_marker: regex(step_marker.as_deref(), "step_marker")?,
            kept_roofs: true,
        };
        Ok(report::html::render(&report::build(&dir, &options)?))
    })
}

/// The version of the library the module was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("RocprofError", m.py().get_type::<RocprofError>())?;
    m.add_function(wrap_pyfunction!(stats_json, m)?)?;
    m.add_function(wrap_pyfunction!(device_json, m)?)?;
    m.add_function(wrap_pyfunction!(analyze_json, m)?)?;
    m.add_function(wrap_pyfunction!(diff_json, m)?)?;
    m.add_function(wrap_pyfunction!(score_json, m)?)?;
    m.add_function(wrap_pyfunction!(report_html, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
