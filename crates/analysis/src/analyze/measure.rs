//! What `score` measures of a candidate: a dataset's kernels as one pipeline (and its energy),
//! a kernel-optimisation results JSON, or a list of latencies. One implementation for the CLI
//! and the Python API.

use std::path::{Path, PathBuf};

use rocprof_rs_format::Table;

use super::Options;
use super::fitness::Measurement;
use crate::stats::scan;

/// Why there is nothing to score.
#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    #[error("{path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path}: not JSON: {source}")]
    NotJson { path: String, source: serde_json::Error },
    #[error("{path}: [{index}] is not a latency in µs")]
    NotALatency { path: String, index: usize },
    #[error("{path}: full_pipeline has no p50_us or mean_us")]
    NoPipelineLatency { path: String },
    #[error("{path}: neither full_pipeline nor components")]
    NoPipeline { path: String },
    #[error("{path}: components.{name} has no mean_us")]
    NoComponentLatency { path: String, name: String },
    #[error("{path}: not a dataset directory or a JSON file")]
    NotADataset { path: String },
    #[error("{path}: no kernel dispatches{}", if *.filtered { " match --kernel" } else { "" })]
    NoDispatches { path: String, filtered: bool },
    #[error(
        "{path}: --energy-weight needs device samples (record with `rocprof-rs run --device-sample`) on the scored kernels"
    )]
    NoEnergy { path: String },
    #[error("{path}: no device samples around any dispatch of {kernels}: their energy is not known")]
    Unsampled { path: String, kernels: String },
    #[error(transparent)]
    Dataset(#[from] crate::Error),
    #[error(transparent)]
    Files(#[from] rocprof_rs_format::Error),
}

/// What to measure, as `score`'s options say.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// A dataset directory, a results JSON, or a JSON array of latencies.
    pub path: PathBuf,
    /// The share of correctness checks passed.
    pub correctness: f64,
    /// Whether energy is weighed (then a dataset must have device samples).
    pub energy: bool,
    /// Only kernels whose name matches (datasets).
    pub kernel: Option<regex::Regex>,
    /// The GPU for efficiency, by database id.
    pub gpu: Option<String>,
    /// Repeats behind a results JSON's summary numbers.
    pub repeats: usize,
}

/// Measures the candidate `inputs` names.
pub fn measure(inputs: &Inputs) -> Result<Measurement, ScoreError> {
    let kernel = inputs.kernel.clone();
    let mut m = Measurement { correctness: inputs.correctness, ..Measurement::default() };
    let options = Options { kernel: kernel.clone(), gpu: inputs.gpu.clone(), ..Options::default() };
    if inputs.path.is_file() {
        let path = || inputs.path.display().to_string();
        if inputs.energy {
            return Err(ScoreError::NoEnergy { path: path() });
        }
        let text = rocprof_rs_format::input::read_text(&inputs.path, rocprof_rs_format::input::JSON_LIMIT)
            .map_err(|source| ScoreError::Read { path: path(), source })?;
        let json: serde_json::Value =
            serde_json::from_str(&text).map_err(|source| ScoreError::NotJson { path: path(), source })?;
        if let Some(samples) = json.as_array() {
            m.samples_us = samples
                .iter()
                .enumerate()
                .map(|(index, v)| v.as_f64().ok_or_else(|| ScoreError::NotALatency { path: path(), index }))
                .collect::<Result<_, _>>()?;
            return Ok(m);
        }
        m.summary = Some(results_pipeline(&json, &inputs.path, inputs.repeats)?);
    } else {
        m.summary = Some(dataset_pipeline(&inputs.path, kernel.as_ref())?);
        crate::release_freed_memory();
        if inputs.energy {
            m.joules = Some(
                joules_per_iteration(&inputs.path, kernel.as_ref())?
                    .ok_or_else(|| ScoreError::NoEnergy { path: inputs.path.display().to_string() })?,
            );
        }
    }
    m.efficiency = efficiency(&inputs.path, &options);
    Ok(m)
}

/// A kernel-optimisation results JSON's `full_pipeline` (its p50 where given, else its mean),
/// or the sum of its components.
fn results_pipeline(json: &serde_json::Value, path: &Path, repeats: usize) -> Result<(f64, f64, usize), ScoreError> {
    let shown = || path.display().to_string();
    let number = |v: &serde_json::Value, key: &str| v.get(key).and_then(serde_json::Value::as_f64);
    if let Some(p) = json.get("full_pipeline") {
        let center = number(p, "p50_us").or_else(|| number(p, "mean_us"));
        let center = center.ok_or_else(|| ScoreError::NoPipelineLatency { path: shown() })?;
        return Ok((center, number(p, "std_us").unwrap_or(0.0), repeats));
    }
    let components = json
        .get("components")
        .and_then(serde_json::Value::as_object)
        .ok_or_else(|| ScoreError::NoPipeline { path: shown() })?;
    let (mut center, mut variance) = (0.0, 0.0);
    for (name, c) in components {
        center += number(c, "p50_us")
            .or_else(|| number(c, "mean_us"))
            .ok_or_else(|| ScoreError::NoComponentLatency { path: shown(), name: name.clone() })?;
        variance += number(c, "std_us").unwrap_or(0.0).powi(2);
    }
    Ok((center, variance.sqrt(), repeats))
}

/// A dataset's kernels as one pipeline: each selected kernel once per iteration, so the
/// latency is the sum of their medians; the spread adds in quadrature (from each kernel's
/// interquartile range), over the fewest dispatches any of them had.
fn dataset_pipeline(dir: &Path, kernel: Option<&regex::Regex>) -> Result<(f64, f64, usize), ScoreError> {
    if !dir.is_dir() {
        return Err(ScoreError::NotADataset { path: dir.display().to_string() });
    }
    let files = rocprof_rs_format::dataset::table_files(dir, Table::KernelDispatch)?;
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let (mut center, mut variance, mut repeats) = (0.0, 0.0, usize::MAX);
    // Names arrive in byte order, so the float sums come out the same on every run; no name is
    // held beyond the external sort's budget.
    scan::summarise_each(&files, "kernel_name", None, threads, |name, s| {
        if kernel.is_some_and(|re| !re.is_match(name)) || s.count == 0 {
            return Ok(());
        }
        center += s.quantile(0.5) as f64 / 1e3;
        variance += ((s.quantile(0.75) as f64 - s.quantile(0.25) as f64) / 1.349 / 1e3).powi(2);
        repeats = repeats.min(s.count as usize);
        Ok(())
    })?;
    if repeats == usize::MAX {
        return Err(ScoreError::NoDispatches { path: dir.display().to_string(), filtered: kernel.is_some() });
    }
    Ok((center, variance.sqrt(), repeats))
}

/// Each selected kernel's mean energy per dispatch (over the dispatches with samples around
/// them), summed: one iteration's joules, as the latency is one iteration's. A selected kernel
/// none of whose dispatches had samples around it is an error naming it: leaving it out would
/// make the candidate look cheaper than it is.
fn joules_per_iteration(dir: &Path, kernel: Option<&regex::Regex>) -> Result<Option<f64>, ScoreError> {
    let Some(report) = crate::telemetry::report::report(dir, None)? else { return Ok(None) };
    let selected: Vec<_> = report.kernels.iter().filter(|k| kernel.is_none_or(|re| re.is_match(&k.name))).collect();
    let unsampled: Vec<&str> = selected.iter().filter(|k| k.covered == 0).map(|k| k.name.as_str()).collect();
    if !unsampled.is_empty() {
        return Err(ScoreError::Unsampled { path: dir.display().to_string(), kernels: unsampled.join(", ") });
    }
    let joules: f64 = selected.iter().map(|k| k.joules / k.covered as f64).sum();
    Ok((!selected.is_empty() && joules.is_finite()).then_some(joules))
}

/// Time-weighted roofline efficiency of the analysed kernels that have one (each capped at 1),
/// summed largest total first, one kernel at a time.
fn efficiency(path: &Path, options: &Options) -> Option<f64> {
    let analysis = super::analyze_streamed(path, options).ok()?;
    let (mut weighted, mut time) = (0.0, 0.0);
    analysis
        .for_each(|k| {
            // A non-finite efficiency capped at 1 would score a perfect kernel.
            if let Some(e) = k.points.first().and_then(|p| p.efficiency).filter(|e| e.is_finite()) {
                weighted += e.min(1.0) * k.total_ns;
                time += k.total_ns;
            }
            Ok::<bool, crate::Error>(true)
        })
        .ok()?;
    (time > 0.0 && time.is_finite()).then(|| weighted / time).filter(|e: &f64| e.is_finite())
}
