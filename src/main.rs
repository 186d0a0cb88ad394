//! The `rocprof-rs` command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

// First: its print macros shadow the standard ones in the modules after it.
#[macro_use]
mod say;

mod cli;
mod doctor;
mod roofs;
mod workload;

/// A Rust-native GPU kernel profiler for AMD's rocprofiler-sdk (ROCm 7.0+).
#[derive(Debug, Parser)]
#[command(name = "rocprof-rs", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show rocprof-rs at work. With ROCm and a GPU it profiles a small real HIP program
    /// (compiled with hiprtc); without one (here, and in CI) it runs a built-in workload through
    /// the real tool library and the simulated rocprofiler-sdk, labelled SIMULATED. Then it
    /// prints the statistics and where the dataset and Perfetto trace are. Needs the workspace
    /// built (cargo build --release --workspace).
    Demo(cli::DemoArgs),
    /// The real HIP program `demo` profiles where a GPU exists.
    #[command(hide = true)]
    DemoWorkload(cli::WorkloadArgs),
    /// Report what this machine has for profiling (ROCm, rocprofiler-sdk, HIP, GPUs, CUDA and
    /// CUPTI) and what to do about anything missing.
    Doctor {
        /// Print the report as JSON (the same as --format json).
        #[arg(long)]
        json: bool,
        /// text or json.
        #[arg(long, value_name = "text|json", default_value = "text")]
        format: cli::TextOrJson,
        /// Measure the roofs of the NVIDIA GPUs at hand (DRAM, L2, L1 and shared-memory
        /// bandwidth, FP32 and FP64 FMA peaks; well under a second per GPU) and keep them for
        /// `analyze`, which then judges workloads that ran on a GPU of that kind against them. A
        /// roof under half or over 105% of the datasheet's is said and not kept.
        #[arg(long)]
        measure_roofs: bool,
        /// With --measure-roofs: only this CUDA device (ordinal).
        #[arg(long, value_name = "N", requires = "measure_roofs")]
        device: Option<i32>,
        /// With --measure-roofs: keep the measurements here instead of
        /// $XDG_CACHE_HOME/rocprof-rs/roofs (or ~/.cache/rocprof-rs/roofs).
        #[arg(long, value_name = "DIR", requires = "measure_roofs")]
        roofs_dir: Option<std::path::PathBuf>,
    },
    /// Trace an application with the rocprof-rs tool library, writing Parquet.
    ///
    /// rocprof-rs run [OPTIONS] -- APP [ARGS...] checks every setting before the application
    /// starts (a bad one is named and nothing runs), loads the tool through ROCP_TOOL_LIBRARIES,
    /// runs the application directly (no shell), and exits with its exit code, or 128 + N if
    /// signal N killed it. Ctrl-C reaches the application; rocprof-rs still reports where the
    /// output is. Options follow rocprofv3's names where they mean the same.
    #[command(after_long_help = cli::variables_help())]
    Run(Box<cli::RunArgs>),
    /// List the agents, their hardware counters (with descriptions, derived or not, and their
    /// hardware instances), and which counter presets each GPU runs in full.
    Avail(cli::AvailArgs),
    /// Per-kernel, HIP API, memory-copy and marker statistics of a dataset: calls, total, mean,
    /// min, max, stddev, p50, p95, p99 and share of the total, largest first. --format csv
    /// writes rocprofv3's stats files, column for column.
    Stats(cli::StatsArgs),
    /// Turn rocprofv3 CSV output directories, rocpd databases (rocprofv3's default from ROCm
    /// 7.0), and rocprof v1 results.csv and results.json files into a rocprof-rs dataset, so
    /// every other command works on them. A malformed input is named with its file, line and
    /// column, and nothing is written.
    Import(cli::ImportArgs),
    /// Write a dataset as rocprofv3's CSV files (one set per process), so scripts written for
    /// rocprofv3 run unchanged; as rocpd databases, which AMD's rocpd tools open; or as a
    /// Perfetto trace for ui.perfetto.dev.
    Export(cli::ExportArgs),
    /// Compare two runs kernel by kernel: the change in median time, the confidence of a rank
    /// test over the per-dispatch durations, and kernels new or missing. Exits 1 when any
    /// kernel regressed beyond --threshold, for CI (2 on an error).
    Diff(cli::DiffArgs),
    /// Each kernel's roofline position (from counters: collect --preset roofline), bottleneck
    /// class (MEMORY, CACHE, LDS, COMPUTE, ISSUE near a roof; LAUNCH, TAIL, SYNC, OCCUPANCY, LATENCY far from all) with the evidence, and recommendations
    /// with their expected gain; --svg writes the roofline chart. Reads a dataset, or a
    /// kernel-optimisation results JSON.
    Analyze(cli::AnalyzeArgs),
    /// Where inside each kernel the time goes, from its PC samples: per kernel, its share of
    /// the samples and its stall mix, then its hottest instructions, each with its reasons
    /// (the vendor's names) and source line where known.
    Hotspots(cli::HotspotsArgs),
    /// One fitness number for an evolutionary optimiser (OpenEvolve's evaluator):
    /// latency against --target-us, judged by the median plus its standard error so noise and
    /// few repeats do not flatter a candidate; correctness as a gate; roofline efficiency where
    /// known. Reads a dataset, a kernel-optimisation results JSON, or a JSON array of latencies (µs).
    Score(cli::ScoreArgs),
    /// Compare the ranks of a distributed job (torchrun, MPI, SLURM) that wrote into one run
    /// directory: each rank's busy, idle, compute and communication time and their overlap;
    /// step times from markers (--step-marker) and the ranks that straggle; per collective
    /// (NCCL/RCCL kernels and API calls), the spread of arrivals, who came last and how long the
    /// others waited.
    Ranks(cli::RanksArgs),
    /// One self-contained HTML page of a dataset (no network, scripts and styles inline): the
    /// run's summary, the top kernels (sortable), a zoomable timeline of GPU busy time and API
    /// and marker density, the roofline per GPU, the bottlenecks with their evidence and
    /// recommendations, counter coverage, device telemetry, the cross-rank view, and with
    /// --baseline the diff against another run. A section without data says why.
    Report(cli::ReportArgs),
    /// Serve the datasets in --folder over the Model Context Protocol on stdio, for agents:
    /// list_datasets, stats, analyze, diff, ranks and report (JSON as --format json gives it),
    /// and with --allow-run, run for the programs named. Read-only by default; a path outside
    /// the folders is refused.
    Mcp(cli::McpArgs),
    /// The JSON Schema of every --format json output (each one envelope: schema,
    /// schema_version, tool_version, command, dataset, then its fields): --out DIR writes them,
    /// --check DIR fails on any that differs from what this build prints (docs/schemas).
    JsonSchemas(cli::JsonSchemasArgs),
}

/// Prints clap's help, version or error and gives its exit code. An error quotes the arguments,
/// which may hold escape sequences or bidirectional controls (a pasted command line, a script's
/// variable): it is printed as plain text through the escaping `eprint!`. Help and version are
/// our own text, printed by clap as usual.
fn refuse_arguments(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    eprint!("{}", e.render());
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return refuse_arguments(&e),
    };
    if !matches!(cli.command, Command::Run(_) | Command::Demo(_) | Command::DemoWorkload(_)) {
        // Beyond `ulimit -f`, an output's write then fails with EFBIG, and the output is
        // abandoned whole with one line, rather than the process being killed half-way. Not
        // for the commands that start applications: an ignored signal is inherited by them.
        // SAFETY: setting a standard signal's disposition to ignore, before any thread starts.
        unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    }
    match cli.command {
        Command::Doctor { json, format, measure_roofs: true, device, roofs_dir } => {
            roofs::command(json || format == cli::TextOrJson::Json, device, roofs_dir)
        }
        Command::Doctor { json, format, .. } => doctor(json || format == cli::TextOrJson::Json),
        Command::Run(args) => cli::run(*args),
        Command::Avail(args) => cli::avail(args),
        Command::Demo(args) => cli::demo(args),
        Command::DemoWorkload(args) => cli::workload(args),
        Command::Stats(args) => cli::stats(args),
        Command::Import(args) => cli::import(args),
        Command::Export(args) => cli::export(args),
        Command::Diff(args) => cli::diff(args),
        Command::Analyze(args) => cli::analyze(args),
        Command::Hotspots(args) => cli::hotspots(args),
        Command::Score(args) => cli::score(args),
        Command::Ranks(args) => cli::ranks(args),
        Command::Report(args) => cli::report(args),
        Command::Mcp(args) => cli::mcp(args),
        Command::JsonSchemas(args) => cli::json_schemas(args),
    }
}

fn doctor(json: bool) -> ExitCode {
    let report = doctor::gather();
    if json {
        if let Err(e) = cli::JsonOutput::Doctor.print(None, &report) {
            eprintln!("rocprof-rs: standard output: {e}");
            return ExitCode::FAILURE;
        }
    } else {
        print!("{}", doctor::render_text(&report));
    }
    ExitCode::SUCCESS
}
