//! `rocprof-rs demo`: the whole product in one command.
//!
//! Where HIP finds a GPU (and hiprtc), it profiles a small real HIP program
//! ([`crate::workload`], a hiprtc vector add) through `rocprof-rs run`, so the real
//! rocprofiler-sdk loads the real tool library. Elsewhere (here, and in CI) it runs the simulated
//! application (`rocprof-sim`, built with the workspace) under the real tool library and the
//! simulated rocprofiler-sdk, and everything it prints says SIMULATED: those are a model's
//! numbers, not a GPU's. Either way it then prints the statistics and writes a Perfetto trace.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Args;
use rocprof_rs_analysis::stats::{self, Options, Section, render};

/// The options of `rocprof-rs demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Kernel dispatches the simulated application makes.
    #[arg(long, default_value_t = 200_000)]
    dispatches: u64,
    /// Kernel launches of the real HIP program, where a GPU exists.
    #[arg(long, default_value_t = 50)]
    launches: u32,
    /// Run the simulated SDK and application even where a GPU exists.
    #[arg(long)]
    simulate: bool,
    /// Where the dataset goes.
    #[arg(short = 'd', long, value_name = "DIR", default_value = "rocprof-rs-demo")]
    output_directory: PathBuf,
    /// Names per table.
    #[arg(long, default_value_t = 8)]
    top: usize,
    /// text, or json: one JSON object on standard output (what ran, where the files are, the
    /// statistics), everything else on standard error.
    #[arg(long, value_name = "text|json", default_value = "text")]
    format: super::TextOrJson,
}

/// What `demo --format json` prints.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(super) struct Report<'a> {
    /// True when the numbers come from the simulator, not a GPU.
    simulated: bool,
    /// Why no GPU was profiled, where none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    no_gpu: Option<&'a str>,
    perfetto: &'a Path,
    /// The HTML report (`rocprof-rs report`).
    report: &'a Path,
    stats: &'a [stats::SectionStats],
}

/// The options of the hidden `demo-workload` command: the real HIP program the demo profiles.
#[derive(Debug, Args)]
pub struct WorkloadArgs {
    /// Kernel launches.
    #[arg(long, default_value_t = 50)]
    launches: u32,
}

const BANNER: &str = "SIMULATED: no GPU here, so this runs rocprof-rs's real tool library against a simulated \
rocprofiler-sdk and application (tests/sdk-sim). Every number below is the model's, not a GPU's.";

/// The output's name inside the demo directory.
const NAME: &str = "demo";

/// Which run the demo makes, and the word its lines carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Gpu,
    Simulated,
}

impl Mode {
    fn label(self) -> &'static str {
        match self {
            Mode::Gpu => "",
            Mode::Simulated => "SIMULATED ",
        }
    }
}

/// Runs `demo`.
pub fn demo(args: DemoArgs) -> ExitCode {
    let Ok(exe) = std::env::current_exe() else {
        eprintln!("rocprof-rs: cannot find this command's own path");
        return ExitCode::FAILURE;
    };
    let out = &args.output_directory;
    // Only a previous demo's output is replaced; anything else is the user's.
    let previous = out.join(rocprof_rs_format::keys::metadata_file_name(NAME)).exists();
    let empty = std::fs::read_dir(out).map_or(true, |mut d| d.next().is_none());
    if !previous && !empty {
        eprintln!("rocprof-rs: {} is not empty and holds no earlier demo: choose another with -d", out.display());
        return ExitCode::FAILURE;
    }
    let (mode, why) = match (args.simulate, crate::workload::gpu()) {
        (false, Ok(_)) => (Mode::Gpu, None),
        (true, _) => (Mode::Simulated, None),
        (false, Err(why)) => (Mode::Simulated, Some(why.to_string())),
    };
    let _ = std::fs::remove_dir_all(out);
    let json = args.format == super::TextOrJson::Json;
    let ran = match mode {
        Mode::Gpu => real(&exe, &args),
        Mode::Simulated => simulated(&exe, &args, why.as_deref()),
    };
    if let Err(e) = ran {
        eprintln!("rocprof-rs: {e}");
        return ExitCode::FAILURE;
    }
    let label = mode.label();
    let options = Options { top: Some(args.top), ..Options::default() };
    let sections = match stats::compute(out, &Section::ALL, &options) {
        Ok(sections) => sections,
        Err(e) => {
            eprintln!("rocprof-rs: cannot summarise {}: {e}", out.display());
            return ExitCode::FAILURE;
        }
    };
    let trace = out.join(format!("{NAME}.pftrace"));
    if let Err(e) = rocprof_rs_analysis::export::perfetto::export(out, &trace) {
        eprintln!("rocprof-rs: cannot write the Perfetto trace: {e}");
        return ExitCode::FAILURE;
    }
    let page = out.join("report.html");
    if let Err(e) = write_report(out, &page) {
        eprintln!("rocprof-rs: cannot write the HTML report: {e}");
        return ExitCode::FAILURE;
    }
    if json {
        let report = Report {
            simulated: mode == Mode::Simulated,
            no_gpu: why.as_deref(),
            perfetto: &trace,
            report: &page,
            stats: &sections,
        };
        return match super::envelope::Output::Demo.print(Some(out), &report) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("rocprof-rs: standard output: {e}");
                ExitCode::FAILURE
            }
        };
    }
    println!();
    let mut stdout = rocprof_rs_analysis::terminal::Escaped::new(std::io::stdout().lock());
    let printed = sections.iter().try_for_each(|section| render::table(section, 60, &mut stdout));
    if let Err(e) = printed.and_then(|()| std::io::Write::flush(&mut stdout)) {
        eprintln!("rocprof-rs: standard output: {e}");
        return ExitCode::FAILURE;
    }
    drop(stdout);
    println!("{label}dataset (Parquet, one folder per table): {}", out.display());
    println!("{label}Perfetto trace (open it in ui.perfetto.dev): {}", trace.display());
    println!("{label}report (open it in a browser; no network needed): {}", page.display());
    println!("  read it with pandas:  pd.read_parquet(\"{}/kernel_dispatch\")", out.display());
    println!("  counters per dispatch: {}/counter, per kernel: {}/kernel_counter", out.display(), out.display());
    println!("  as rocprofv3's CSV:   rocprof-rs export {} --format rocprofv3-csv -o csv", out.display());
    ExitCode::SUCCESS
}

/// The dataset's HTML report, as `rocprof-rs report` writes it.
fn write_report(dataset: &Path, page: &Path) -> Result<(), DemoError> {
    let report = rocprof_rs_analysis::report::build(dataset, &rocprof_rs_analysis::report::Options::default())
        .map_err(DemoError::Report)?;
    super::report::write(page, rocprof_rs_analysis::report::html::render(&report).as_bytes())
        .map_err(DemoError::ReportFile)
}

/// Why the demo's run did not complete.
#[derive(Debug, thiserror::Error)]
enum DemoError {
    #[error("cannot start {program}: {source}")]
    Start { program: String, source: std::io::Error },
    #[error("the profiled HIP program failed ({0})")]
    HipProgram(std::process::ExitStatus),
    #[error("the demo needs {missing} next to {exe}: build the workspace (cargo build --release --workspace)")]
    NotBuilt { missing: String, exe: String },
    #[error("the simulated application failed ({0})")]
    Simulation(std::process::ExitStatus),
    #[error("{0}")]
    Report(rocprof_rs_analysis::Error),
    #[error(transparent)]
    ReportFile(super::report::WriteError),
}

/// Profiles the real HIP program through `rocprof-rs run`, as a user would.
fn real(exe: &Path, args: &DemoArgs) -> Result<(), DemoError> {
    let say = Say(args.format);
    say.line(&format!(
        "Profiling a real HIP program (a hiprtc vector add, {} launches) on this machine's GPU.\n",
        args.launches
    ));
    let status = Command::new(exe)
        .args(["run", "--kernel-trace", "--hip-trace", "--memory-copy-trace", "--preset", "basic", "--quiet", "-d"])
        .arg(&args.output_directory)
        .args(["-o", NAME, "--"])
        .arg(exe)
        .args(["demo-workload", "--launches", &args.launches.to_string()])
        .stdout(say.child())
        .status()
        .map_err(|source| DemoError::Start { program: exe.display().to_string(), source })?;
    if status.success() { Ok(()) } else { Err(DemoError::HipProgram(status)) }
}

/// Runs the simulated application under the real tool and the simulated SDK.
fn simulated(exe: &Path, args: &DemoArgs, why: Option<&str>) -> Result<(), DemoError> {
    let say = Say(args.format);
    let dir = exe.parent().unwrap_or(Path::new(".")).to_path_buf();
    let needed = ["rocprof-sim", "librocprofiler_sdk_sim.so", "librocprof_rs.so"];
    let found: Vec<Option<PathBuf>> = needed.iter().map(|n| built(&dir, n)).collect();
    let missing: Vec<&str> = needed.iter().zip(&found).filter(|(_, f)| f.is_none()).map(|(n, _)| *n).collect();
    let [Some(sim), Some(sdk), Some(tool)] = [&found[0], &found[1], &found[2]] else {
        return Err(DemoError::NotBuilt { missing: missing.join(", "), exe: exe.display().to_string() });
    };
    say.line(BANNER);
    if let Some(why) = why {
        say.line(&format!("(No GPU to profile: {why}.)"));
    }
    say.line("");
    let status = Command::new(sim)
        .args(["--dispatches", &args.dispatches.to_string(), "--threads", "4", "--agents", "2", "--no-truth"])
        .arg("--sdk")
        .arg(sdk)
        .env("ROCP_TOOL_LIBRARIES", tool)
        .env("ROCPROF_RS_OUTPUT_DIR", &args.output_directory)
        .env("ROCPROF_RS_OUTPUT_NAME", NAME)
        .env("ROCPROF_RS_DOMAINS", "kernel,hip_api,memory_copy,marker,scratch_memory,memory_allocation")
        .env("ROCPROF_RS_COUNTER_PRESET", "basic")
        .env_remove("LD_PRELOAD")
        .stdout(say.child())
        .status()
        .map_err(|source| DemoError::Start { program: "the simulated application".into(), source })?;
    if status.success() { Ok(()) } else { Err(DemoError::Simulation(status)) }
}

/// Where the demo's running commentary goes: standard output, or standard error when standard
/// output is kept for the JSON report.
#[derive(Debug, Clone, Copy)]
struct Say(super::TextOrJson);

impl Say {
    fn line(self, text: &str) {
        match self.0 {
            super::TextOrJson::Json => eprintln!("{text}"),
            super::TextOrJson::Text => println!("{text}"),
        }
    }

    /// A child's standard output.
    fn child(self) -> std::process::Stdio {
        use std::os::fd::AsFd as _;
        match self.0 {
            super::TextOrJson::Json => match std::io::stderr().as_fd().try_clone_to_owned() {
                Ok(fd) => fd.into(),
                Err(_) => std::process::Stdio::null(),
            },
            super::TextOrJson::Text => std::process::Stdio::inherit(),
        }
    }
}

/// Runs `demo-workload`: the real HIP program, in the process `rocprof-rs run` profiles.
pub fn workload(args: WorkloadArgs) -> ExitCode {
    let outcome = crate::workload::gpu().and_then(|hip| {
        let rtc = hip.rtc().ok_or(crate::workload::WorkloadError::NoHiprtc)?;
        crate::workload::run(hip.api(), rtc, args.launches)
    });
    match outcome {
        Ok(ms) => {
            println!(
                "vector_add over 2^24 floats, {} launches: {ms:.3} ms of GPU time, results checked",
                args.launches
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rocprof-rs: the HIP program failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `name` next to this executable, or in `deps/` below it where `cargo test` leaves libraries;
/// the newer where both are.
fn built(dir: &Path, name: &str) -> Option<PathBuf> {
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    [dir.join(name), dir.join("deps").join(name)].into_iter().filter(|p| p.exists()).max_by_key(modified)
}
