//! `rocprof-rs score`: one fitness number for an optimiser, from a run, a kernel-optimisation
//! results JSON, or a list of latencies.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use rocprof_rs_analysis::analyze::fitness::{self, Config, Measurement};
use rocprof_rs_analysis::analyze::{self, Options};
use rocprof_rs_analysis::stats::scan;
use rocprof_rs_format::Table;

/// Why there is nothing to score.
#[derive(Debug, thiserror::Error)]
enum ScoreError {
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
    #[error(transparent)]
    Dataset(#[from] rocprof_rs_analysis::Error),
    #[error(transparent)]
    Files(#[from] rocprof_rs_format::Error),
}

/// The options of `rocprof-rs score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// A dataset directory (each selected kernel once per iteration), a kernel-optimisation
    /// results JSON (its full_pipeline), or a JSON array of latencies in µs, one per repeat.
    path: PathBuf,
    /// The latency to beat, µs.
    #[arg(long, default_value_t = 20.0)]
    target_us: f64,
    /// The share of correctness checks the candidate passed (0 to 1).
    #[arg(long, default_value_t = 1.0)]
    correctness: f64,
    /// The share of the score a correct candidate gets for being correct.
    #[arg(long, default_value_t = 0.5)]
    correctness_weight: f64,
    /// The share of performance that is roofline efficiency (where counters or estimates give it).
    #[arg(long, default_value_t = 0.25)]
    efficiency_weight: f64,
    /// The share of performance that is energy per iteration (datasets with device samples:
    /// each selected kernel's mean joules per dispatch, summed); 0 leaves energy out.
    #[arg(long, default_value_t = 0.0)]
    energy_weight: f64,
    /// The joules per iteration to beat, with --energy-weight.
    #[arg(long, value_name = "J", default_value_t = 1.0)]
    energy_target_j: f64,
    /// Only kernels whose name matches (datasets).
    #[arg(long, value_name = "REGEX")]
    kernel: Option<String>,
    /// The GPU for efficiency, by database id (see `analyze --gpu`).
    #[arg(long, value_name = "ID")]
    gpu: Option<String>,
    /// Repeats behind a results JSON's summary numbers, which the JSON does not record.
    #[arg(long, default_value_t = 100)]
    repeats: usize,
    /// text or json.
    #[arg(long, value_name = "text|json", default_value = "text")]
    format: super::TextOrJson,
}

/// Runs `score`.
pub fn score(args: ScoreArgs) -> ExitCode {
    for (name, value) in [
        ("--correctness", args.correctness),
        ("--correctness-weight", args.correctness_weight),
        ("--efficiency-weight", args.efficiency_weight),
        ("--energy-weight", args.energy_weight),
        ("--efficiency-weight plus --energy-weight", args.efficiency_weight + args.energy_weight),
    ] {
        if !(0.0..=1.0).contains(&value) {
            eprintln!("rocprof-rs: {name} {value}: expected a share between 0 and 1");
            return ExitCode::from(2);
        }
    }
    if !args.energy_target_j.is_finite() || args.energy_target_j <= 0.0 {
        eprintln!("rocprof-rs: --energy-target-j {}: expected a positive energy", args.energy_target_j);
        return ExitCode::from(2);
    }
    if !args.target_us.is_finite() || args.target_us <= 0.0 {
        eprintln!("rocprof-rs: --target-us {}: expected a positive latency", args.target_us);
        return ExitCode::from(2);
    }
    let kernel = match args.kernel.as_deref().map(regex::Regex::new).transpose() {
        Ok(re) => re,
        Err(e) => {
            eprintln!("rocprof-rs: --kernel: {e}");
            return ExitCode::from(2);
        }
    };
    let measurement = match measure(&args, kernel) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::FAILURE;
        }
    };
    let config = Config {
        target_us: args.target_us,
        correctness_weight: args.correctness_weight,
        efficiency_weight: args.efficiency_weight,
        energy_weight: args.energy_weight,
        energy_target_j: args.energy_target_j,
    };
    let Some(f) = fitness::score(&measurement, &config) else {
        eprintln!("rocprof-rs: {}: no latency to score", args.path.display());
        return ExitCode::FAILURE;
    };
    if args.format == super::TextOrJson::Json {
        println!("{}", serde_json::to_string_pretty(&f).unwrap_or_default());
    } else {
        println!(
            "score {:.4} ± {:.4}: latency {:.2} µs judged (median {:.2} ± {:.2} µs over {} repeats; target {} µs), \
             correct {:.0}%, efficiency {}",
            f.score,
            f.uncertainty,
            f.latency_us,
            f.median_us,
            f.standard_error_us,
            f.repeats,
            config.target_us,
            100.0 * f.correctness,
            f.efficiency.map_or_else(|| "not known".to_owned(), |e| format!("{:.0}%", 100.0 * e))
        );
        if let Some(joules) = f.joules.filter(|_| config.energy_weight > 0.0) {
            println!("energy {joules:.6} J per iteration (target {} J)", config.energy_target_j);
        }
    }
    ExitCode::SUCCESS
}

fn measure(args: &ScoreArgs, kernel: Option<regex::Regex>) -> Result<Measurement, ScoreError> {
    let mut m = Measurement { correctness: args.correctness, ..Measurement::default() };
    let options = Options { kernel: kernel.clone(), gpu: args.gpu.clone(), ..Options::default() };
    if args.path.is_file() {
        let path = || args.path.display().to_string();
        if args.energy_weight > 0.0 {
            return Err(ScoreError::NoEnergy { path: path() });
        }
        let text = rocprof_rs_format::input::read_text(&args.path, rocprof_rs_format::input::JSON_LIMIT)
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
        m.summary = Some(results_pipeline(&json, &args.path, args.repeats)?);
    } else {
        m.summary = Some(dataset_pipeline(&args.path, kernel.as_ref())?);
        if args.energy_weight > 0.0 {
            m.joules = Some(
                joules_per_iteration(&args.path, kernel.as_ref())?
                    .ok_or_else(|| ScoreError::NoEnergy { path: args.path.display().to_string() })?,
            );
        }
    }
    m.efficiency = efficiency(&args.path, &options);
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
    let by_name = scan::summarise(&files, "kernel_name", None, threads)?;
    let (mut center, mut variance, mut repeats) = (0.0, 0.0, usize::MAX);
    for (name, s) in &by_name {
        if kernel.is_some_and(|re| !re.is_match(name)) || s.count == 0 {
            continue;
        }
        center += s.quantile(0.5) as f64 / 1e3;
        variance += ((s.quantile(0.75) as f64 - s.quantile(0.25) as f64) / 1.349 / 1e3).powi(2);
        repeats = repeats.min(s.count as usize);
    }
    if repeats == usize::MAX {
        return Err(ScoreError::NoDispatches { path: dir.display().to_string(), filtered: kernel.is_some() });
    }
    Ok((center, variance.sqrt(), repeats))
}

/// Each selected kernel's mean energy per dispatch (over the dispatches with samples around
/// them), summed: one iteration's joules, as the latency is one iteration's.
fn joules_per_iteration(dir: &Path, kernel: Option<&regex::Regex>) -> Result<Option<f64>, ScoreError> {
    let Some(report) = rocprof_rs_analysis::telemetry::report::report(dir, None)? else { return Ok(None) };
    let selected: Vec<_> =
        report.kernels.iter().filter(|k| kernel.is_none_or(|re| re.is_match(&k.name)) && k.covered > 0).collect();
    Ok((!selected.is_empty()).then(|| selected.iter().map(|k| k.joules / k.covered as f64).sum()))
}

/// Time-weighted roofline efficiency of the analysed kernels that have one (each capped at 1).
fn efficiency(path: &Path, options: &Options) -> Option<f64> {
    let analysis = analyze::analyze(path, options).ok()?;
    let (mut weighted, mut time) = (0.0, 0.0);
    for k in &analysis.kernels {
        if let Some(e) = k.points.first().and_then(|p| p.efficiency) {
            weighted += e.min(1.0) * k.total_ns;
            time += k.total_ns;
        }
    }
    (time > 0.0).then(|| weighted / time)
}
