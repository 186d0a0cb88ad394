//! `rocprof-rs stats`: per-name duration statistics of a dataset.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use rocprof_rs_analysis::stats::{self, Options, Section, render};

/// How a command that prints rows prints them (stats, diff, analyze).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Csv,
    Json,
}

/// The options of `rocprof-rs stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The dataset: the directory a run (or `rocprof-rs import`) wrote.
    dir: PathBuf,
    /// Only these sections (kernel, hip_api, memory_copy, marker); default: every one with rows.
    #[arg(long, value_delimiter = ',')]
    section: Vec<String>,
    /// Only the N names with the largest total per section.
    #[arg(long, value_name = "N")]
    top: Option<usize>,
    /// table, csv (rocprofv3's stats files, column for column) or json.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Only this process (every process under DIR by default).
    #[arg(long)]
    pid: Option<u32>,
    /// With --format csv: write each section to its rocprofv3 file (kernel_stats.csv,
    /// hip_api_stats.csv, memory_copy_stats.csv, marker_api_stats.csv) in this directory,
    /// rather than the first section to stdout.
    #[arg(long, value_name = "DIR")]
    csv_dir: Option<PathBuf>,
    /// Cut names to this many characters in the table.
    #[arg(long, default_value_t = 60)]
    width: usize,
}

/// Runs `stats`.
pub fn stats(args: StatsArgs) -> ExitCode {
    let mut sections = Vec::new();
    for name in &args.section {
        match Section::by_name(name) {
            Some(s) => sections.push(s),
            None => {
                eprintln!("rocprof-rs: --section {name:?}: expected kernel, hip_api, memory_copy or marker");
                return ExitCode::from(2);
            }
        }
    }
    if sections.is_empty() {
        sections = Section::ALL.to_vec();
    }
    if !args.dir.is_dir() {
        eprintln!("rocprof-rs: {}: not a directory (give the directory a run or an import wrote)", args.dir.display());
        return ExitCode::FAILURE;
    }
    match stats::health::warnings(&args.dir) {
        Ok(warnings) => warnings.iter().for_each(|w| eprintln!("rocprof-rs: warning: {w}")),
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::FAILURE;
        }
    }
    let options = Options { pid: args.pid, top: args.top, threads: 0 };
    let result = match stats::compute(&args.dir, &sections, &options) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::FAILURE;
        }
    };
    if result.is_empty() {
        eprintln!("rocprof-rs: {}: no kernel, API, copy or marker rows to summarise", args.dir.display());
        return ExitCode::FAILURE;
    }
    match args.format {
        Format::Json => match serde_json::to_string_pretty(&result) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("rocprof-rs: cannot encode the statistics as JSON: {e}");
                return ExitCode::FAILURE;
            }
        },
        Format::Table => {
            for section in &result {
                println!("{}", render::table(section, args.width));
            }
        }
        Format::Csv => match &args.csv_dir {
            None => print!("{}", render::csv(&result[0])),
            Some(dir) => {
                if let Err(e) = std::fs::create_dir_all(dir) {
                    eprintln!("rocprof-rs: {}: {e}", dir.display());
                    return ExitCode::FAILURE;
                }
                for section in &result {
                    let path = dir.join(section.section.rocprofv3_file());
                    if let Err(e) = std::fs::write(&path, render::csv(section)) {
                        eprintln!("rocprof-rs: {}: {e}", path.display());
                        return ExitCode::FAILURE;
                    }
                }
            }
        },
    }
    ExitCode::SUCCESS
}
