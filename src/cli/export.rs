//! `rocprof-rs export`: a dataset as other tools' files.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use rocprof_rs_format::exports::{self, Replace};

/// The formats `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// rocprofv3 1.0's CSV files (kernel_trace.csv, hip_api_trace.csv, ..., agent_info.csv),
    /// one set per process.
    Rocprofv3Csv,
    /// rocprofv3's JSON output (`<pid>_results.json`, one per process), in ROCm 7.0's layout.
    Rocprofv3Json,
    /// A Perfetto trace (.pftrace) for ui.perfetto.dev: tracks per thread, GPU queue and
    /// counter, with flows from each API call to its kernels.
    Perfetto,
    /// rocpd SQLite databases (`<pid>_results.db`), rocprofv3's default output from ROCm 7.0:
    /// AMD's schema and views, so the `rocpd` tools open them.
    Rocpd,
    /// madengine's sampler files (gpu_info_power_profiler_output.csv and
    /// gpu_info_vram_profiler_output.csv) from the device samples, with madengine's columns.
    Madengine,
}

/// The options of `rocprof-rs export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The dataset: the directory a run (or `rocprof-rs import`) wrote.
    dir: PathBuf,
    /// What to write.
    #[arg(long, value_enum)]
    format: ExportFormat,
    /// Where to write it: a directory for CSV (rocprofv3's, madengine's), JSON and rocpd files, a file (or a directory
    /// to hold trace.pftrace) for Perfetto.
    #[arg(short = 'o', long, value_name = "PATH")]
    output: PathBuf,
    /// text, or json: the files written as one JSON object (`--format` names what is written).
    #[arg(long, value_name = "text|json", default_value = "text")]
    report: super::TextOrJson,
    /// Memory for the external sorts that keep stats and export within bounds on any trace
    /// (bytes, or with K, M or G; at least 4K). Beyond it, rows go to temporary files under
    /// TMPDIR and are merged; the output is the same.
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = rocprof_rs_analysis::spill::parse_size)]
    memory: usize,
    /// Replace existing files of the names written even where no export wrote them (the
    /// rocprofv3 files a dataset was imported from, say). Without it, only files an earlier
    /// export recorded writing (in the folder's hidden `.rocprof-rs-exported`) are replaced.
    #[arg(long)]
    overwrite: bool,
}

/// One file `export` wrote, as `--report json` prints it.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(super) struct Written {
    path: PathBuf,
    /// Rows, slices or events, as `unit` says.
    count: u64,
    unit: &'static str,
}

/// Runs `export`.
pub fn export(args: ExportArgs) -> ExitCode {
    rocprof_rs_analysis::spill::set_memory(args.memory);
    exports::guard(if args.overwrite { Replace::Anything } else { Replace::OwnFiles });
    let result = match args.format {
        ExportFormat::Rocprofv3Csv => rocprof_rs_analysis::export::rocprofv3::export_warning(&args.dir, &args.output)
            .map(|exported| {
                if let Some(warning) = &exported.warning {
                    eprintln!("rocprof-rs: warning: {warning}");
                }
                exported.files
            }),
        ExportFormat::Rocprofv3Json => rocprof_rs_analysis::export::results_json::export(&args.dir, &args.output),
        ExportFormat::Rocpd => rocprof_rs_analysis::export::rocpd::export(&args.dir, &args.output),
        ExportFormat::Madengine => rocprof_rs_analysis::export::madengine::export(&args.dir, &args.output),
        ExportFormat::Perfetto => {
            let file = if args.output.is_dir() { args.output.join("trace.pftrace") } else { args.output.clone() };
            rocprof_rs_analysis::export::perfetto::export(&args.dir, &file).map(|slices| {
                vec![(file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(), slices)]
            })
        }
    };
    match result {
        Ok(files) => {
            let unit = match args.format {
                ExportFormat::Perfetto => "slices",
                ExportFormat::Rocpd => "events",
                ExportFormat::Rocprofv3Csv | ExportFormat::Madengine => "rows",
                ExportFormat::Rocprofv3Json => "records",
            };
            let written: Vec<Written> = files
                .into_iter()
                .map(|(file, count)| Written {
                    path: if args.output.is_dir() { args.output.join(file) } else { args.output.clone() },
                    count,
                    unit,
                })
                .collect();
            if args.report == super::TextOrJson::Json {
                let format = args.format.to_possible_value().map(|v| v.get_name().to_owned()).unwrap_or_default();
                let body = super::bodies::ExportBody { format, files: written };
                if let Err(e) = super::envelope::Output::Export.print(Some(&args.dir), body) {
                    eprintln!("rocprof-rs: standard output: {e}");
                    return ExitCode::FAILURE;
                }
            } else {
                for w in &written {
                    println!("{} ({} {})", w.path.display(), w.count, w.unit);
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rocprof-rs: export failed: {e}");
            ExitCode::FAILURE
        }
    }
}
