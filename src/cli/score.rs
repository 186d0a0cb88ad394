//! `rocprof-rs score`: one fitness number for an optimiser, from a run, a kernel-optimisation
//! results JSON, or a list of latencies.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use rocprof_rs_analysis::analyze::fitness::{self, Config};
use rocprof_rs_analysis::analyze::measure;

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
    /// Memory for the external sorts that keep it within bounds on any number of kernels (bytes,
    /// or with K, M or G; at least 4K). Beyond it, summaries go to temporary files under TMPDIR
    /// and are merged; the output is the same.
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = rocprof_rs_analysis::spill::parse_size)]
    memory: usize,
}

/// Runs `score`.
pub fn score(args: ScoreArgs) -> ExitCode {
    rocprof_rs_analysis::spill::set_memory(args.memory);
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
    let inputs = measure::Inputs {
        path: args.path.clone(),
        correctness: args.correctness,
        energy: args.energy_weight > 0.0,
        kernel,
        gpu: args.gpu.clone(),
        repeats: args.repeats,
    };
    let measurement = match measure::measure(&inputs) {
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
        if let Err(e) = super::envelope::Output::Score.print(Some(&args.path), &f) {
            eprintln!("rocprof-rs: standard output: {e}");
            return ExitCode::FAILURE;
        }
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
