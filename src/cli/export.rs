//! `rocprof-rs export`: a dataset as other tools' files.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

/// The formats `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// rocprofv3 1.0's CSV files (kernel_trace.csv, hip_api_trace.csv, ...), one set per process.
    Rocprofv3Csv,
}

/// The options of `rocprof-rs export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The dataset: the directory a run (or `rocprof-rs import`) wrote.
    dir: PathBuf,
    /// What to write.
    #[arg(long, value_enum)]
    format: ExportFormat,
    /// Where to write it.
    #[arg(short = 'o', long, value_name = "DIR")]
    output: PathBuf,
}

/// Runs `export`.
pub fn export(args: ExportArgs) -> ExitCode {
    let result = match args.format {
        ExportFormat::Rocprofv3Csv => rocprof_rs::export::rocprofv3::export(&args.dir, &args.output),
    };
    match result {
        Ok(files) => {
            for (file, rows) in files {
                println!("{} ({rows} rows)", args.output.join(file).display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rocprof-rs: export failed: {e}");
            ExitCode::FAILURE
        }
    }
}
