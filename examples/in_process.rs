//! A Rust HIP application that profiles itself: it links rocprof-rs, starts the profiler before
//! its first HIP call, keeps its warm-up out of the trace, and profiles one region.
//!
//! ```sh
//! cargo run --example in_process                 # a real GPU if there is one, else the simulator
//! cargo run --example in_process -- --simulate   # the simulated SDK and application (no GPU)
//! ```
//!
//! On a machine with ROCm and an AMD GPU it runs a vector add through HIP. Elsewhere it plays a
//! simulated HIP application against the simulated rocprofiler-sdk (`tests/sdk-sim`, built by
//! `cargo build --workspace`), whose ground truth it writes with `--truth`, so the tests can check
//! that the in-process profiler recorded exactly what the SDK emitted. Simulated output is
//! labelled as such and is never a hardware result.

use std::path::PathBuf;

use clap::Parser;
use rocprof_rs::config::Domain;
// The demo's HIP program, which the `rocprof-rs demo` command runs too.
#[path = "../src/workload.rs"]
mod workload;
use rocprof_rs::{Error, Profiler, ProfilerBuilder};
use rocprof_sim::app::{Machine, default_sdk_path};
use rocprof_sim::workload::{Workload, mix};

/// Profile this process from the inside.
#[derive(Parser, Debug)]
struct Args {
    /// Use the simulated SDK and application even where HIP and a GPU exist.
    #[arg(long)]
    simulate: bool,
    /// The simulated SDK library (default: the one cargo built next to this example).
    #[arg(long)]
    sdk: Option<PathBuf>,
    /// Where the tables go.
    #[arg(long, default_value = "rocprof-rs-in-process")]
    output: PathBuf,
    /// Simulated dispatches inside the profiled region.
    #[arg(long, default_value_t = 100_000)]
    dispatches: u64,
    /// Simulated dispatches of the warm-up, before the region (not traced).
    #[arg(long, default_value_t = 10_000)]
    warmup: u64,
    /// Simulated application threads.
    #[arg(long, default_value_t = 4)]
    threads: u32,
    /// Simulated GPUs.
    #[arg(long, default_value_t = 2)]
    agents: u32,
    /// Write the simulator's ground truth of the region here.
    #[arg(long)]
    truth: Option<PathBuf>,
}

fn main() {
    let args = Args::parse();
    let outcome = if args.simulate { simulated(&args, "--simulate") } else { real_or_simulated(&args) };
    if let Err(e) = outcome {
        eprintln!("in_process: {e}");
        std::process::exit(1);
    }
}

fn builder(args: &Args) -> ProfilerBuilder {
    Profiler::builder().output_dir(&args.output).start_paused()
}

/// A real HIP application where ROCm is installed: the profiler starts first, because the SDK
/// accepts a tool only until a runtime has registered with it, which loading HIP does.
fn real_or_simulated(args: &Args) -> Result<(), String> {
    let profiler = match builder(args).sys_trace().start() {
        Ok(profiler) => profiler,
        Err(Error::Load(why)) => return simulated(args, &format!("no rocprofiler-sdk: {why}")),
        Err(e) => return Err(e.to_string()),
    };
    let hip = match workload::gpu() {
        Ok(hip) => hip,
        Err(why) => {
            println!("{why}; nothing to profile");
            return Ok(());
        }
    };
    let (api, rtc) = (hip.api(), hip.rtc().ok_or("no hiprtc")?);
    let warmup = workload::run(api, rtc, 2).map_err(|e| e.to_string())?;
    let region = profiler.region().map_err(|e| e.to_string())?;
    let measured = workload::run(api, rtc, 20).map_err(|e| e.to_string())?;
    drop(region);
    let summary = profiler.finish().map_err(|e| e.to_string())?;
    println!("warm-up {warmup:.3} ms (not traced); region {measured:.3} ms over 20 launches");
    println!("{} records in {}", summary.total_rows(), args.output.display());
    Ok(())
}

/// The simulated application, in this process, against the simulated SDK.
fn simulated(args: &Args, why: &str) -> Result<(), String> {
    println!("SIMULATED run ({why}): no GPU is used and nothing here is a hardware result");
    let sdk = args.sdk.clone().map_or_else(default_sdk_path, Ok)?;
    // The simulator stands in for the ROCm runtime libraries, which an application loads first.
    let mut machine = Machine::open(&sdk, args.agents, false).map_err(|e| e.to_string())?;
    let profiler = builder(args)
        .sdk_library(&sdk)
        // Everything the simulator emits (it has no HSA or RCCL API).
        .domains([
            Domain::Kernel,
            Domain::HipApi,
            Domain::MemoryCopy,
            Domain::Marker,
            Domain::ScratchMemory,
            Domain::MemoryAllocation,
        ])
        .start()
        .map_err(|e| e.to_string())?;
    machine.start_runtime();
    let workload = |dispatches, seed| Workload {
        dispatches,
        threads: args.threads,
        gpus: args.agents,
        seed,
        weights: mix("default").expect("the default mix exists"),
        range_every: 64,
        copy_every: 32,
    };
    machine.play(&workload(args.warmup, 1), None)?;
    let about =
        format!("in_process region: dispatches={} threads={} agents={}", args.dispatches, args.threads, args.agents);
    let truth = args.truth.as_deref().map(|path| (path, about.as_str()));
    let region = profiler.region().map_err(|e| e.to_string())?;
    let elapsed = machine.play(&workload(args.dispatches, 2), truth)?;
    drop(region);
    let summary = profiler.finish().map_err(|e| e.to_string())?;
    println!(
        "SIMULATED: warm-up of {} dispatches not traced; region of {} dispatches in {:.2} s; {} records in {}",
        args.warmup,
        args.dispatches,
        elapsed.as_secs_f64(),
        summary.total_rows(),
        args.output.display()
    );
    Ok(())
}
