//! `rocprof-rs demo`: the whole product in one command, where no GPU exists.
//!
//! It runs the simulated application (`rocprof-sim`, built with the workspace) under the real
//! tool library and the simulated rocprofiler-sdk, then prints the statistics of what it
//! wrote. Everything it prints says SIMULATED: these are a model's numbers, not a GPU's.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Args;
use rocprof_rs::stats::{self, Options, Section, render};

/// The options of `rocprof-rs demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Kernel dispatches the simulated application makes.
    #[arg(long, default_value_t = 200_000)]
    dispatches: u64,
    /// Where the dataset goes.
    #[arg(short = 'd', long, value_name = "DIR", default_value = "rocprof-rs-demo")]
    output_directory: PathBuf,
    /// Names per table.
    #[arg(long, default_value_t = 8)]
    top: usize,
}

const BANNER: &str = "SIMULATED: no GPU here, so this runs rocprof-rs's real tool library against a simulated \
rocprofiler-sdk and application (tests/sdk-sim). Every number below is the model's, not a GPU's.";

/// Runs `demo`.
pub fn demo(args: DemoArgs) -> ExitCode {
    let Ok(exe) = std::env::current_exe() else {
        eprintln!("rocprof-rs: cannot find this command's own path");
        return ExitCode::FAILURE;
    };
    let dir = exe.parent().unwrap_or(Path::new(".")).to_path_buf();
    let needed = ["rocprof-sim", "librocprofiler_sdk_sim.so", "librocprof_rs.so"];
    let found: Vec<Option<PathBuf>> = needed.iter().map(|n| built(&dir, n)).collect();
    let missing: Vec<&str> = needed.iter().zip(&found).filter(|(_, f)| f.is_none()).map(|(n, _)| *n).collect();
    if !missing.is_empty() {
        eprintln!(
            "rocprof-rs: the demo needs {} next to {}: build the workspace (cargo build --release --workspace)",
            missing.join(", "),
            exe.display()
        );
        return ExitCode::FAILURE;
    }
    let [Some(sim), Some(sdk), Some(tool)] = [found[0].clone(), found[1].clone(), found[2].clone()] else {
        return ExitCode::FAILURE;
    };
    println!("{BANNER}\n");
    let out = &args.output_directory;
    // Only a previous demo's output is replaced; anything else is the user's.
    let previous = out.join("demo.metadata.json").exists();
    let empty = std::fs::read_dir(out).map_or(true, |mut d| d.next().is_none());
    if !previous && !empty {
        eprintln!("rocprof-rs: {} is not empty and holds no earlier demo: choose another with -d", out.display());
        return ExitCode::FAILURE;
    }
    let _ = std::fs::remove_dir_all(out);
    let status = Command::new(sim)
        .args(["--dispatches", &args.dispatches.to_string(), "--threads", "4", "--agents", "2", "--no-truth"])
        .arg("--sdk")
        .arg(sdk)
        .env("ROCP_TOOL_LIBRARIES", tool)
        .env("ROCPROF_RS_OUTPUT_DIR", out)
        .env("ROCPROF_RS_OUTPUT_NAME", "demo")
        .env("ROCPROF_RS_DOMAINS", "kernel,hip_api,memory_copy,marker,scratch_memory,memory_allocation")
        .env("ROCPROF_RS_COUNTER_PRESET", "basic")
        .env_remove("LD_PRELOAD")
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            eprintln!("rocprof-rs: the simulated application failed ({s})");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("rocprof-rs: cannot start the simulated application: {e}");
            return ExitCode::FAILURE;
        }
    }
    let options = Options { top: Some(args.top), ..Options::default() };
    match stats::compute(out, &Section::ALL, &options) {
        Ok(sections) => {
            println!();
            for section in &sections {
                println!("{}", render::table(section, 60));
            }
        }
        Err(e) => {
            eprintln!("rocprof-rs: cannot summarise {}: {e}", out.display());
            return ExitCode::FAILURE;
        }
    }
    let trace = out.join("demo.pftrace");
    if let Err(e) = rocprof_rs::export::perfetto::export(out, &trace) {
        eprintln!("rocprof-rs: cannot write the Perfetto trace: {e}");
        return ExitCode::FAILURE;
    }
    println!("SIMULATED dataset (Parquet, one folder per table): {}", out.display());
    println!("SIMULATED Perfetto trace (open it in ui.perfetto.dev): {}", trace.display());
    println!("  read it with pandas:  pd.read_parquet(\"{}/kernel_dispatch\")", out.display());
    println!("  counters per dispatch: {}/counter, per kernel: {}/kernel_counter", out.display(), out.display());
    println!("  as rocprofv3's CSV:   rocprof-rs export {} --format rocprofv3-csv -o csv", out.display());
    ExitCode::SUCCESS
}

/// `name` next to this executable, or in `deps/` below it where `cargo test` leaves libraries;
/// the newer where both are.
fn built(dir: &Path, name: &str) -> Option<PathBuf> {
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    [dir.join(name), dir.join("deps").join(name)].into_iter().filter(|p| p.exists()).max_by_key(modified)
}
