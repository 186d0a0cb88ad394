//! The `rocprof-rs` command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A Rust-native GPU kernel profiler for AMD's rocprofiler-sdk (ROCm 7.0+).
#[derive(Debug, Parser)]
#[command(name = "rocprof-rs", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Report what this machine has for profiling (ROCm, rocprofiler-sdk, HIP, GPUs, CUDA and
    /// CUPTI) and what to do about anything missing.
    Doctor {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Doctor { json } => doctor(json),
    }
}

fn doctor(json: bool) -> ExitCode {
    let report = rocprof_rs::doctor::gather();
    if json {
        match serde_json::to_string_pretty(&report) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("rocprof-rs: cannot encode the report as JSON: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{}", rocprof_rs::doctor::render_text(&report));
    }
    ExitCode::SUCCESS
}
