//! `rocprof-rs stats`: per-name duration statistics of a dataset.

use std::path::PathBuf;
use std::process::ExitCode;

use std::io::Write;

use clap::{Args, ValueEnum};
use rocprof_rs_analysis::stats::{self, Options, Section, render};
use rocprof_rs_analysis::terminal::Escaped;
use rocprof_rs_format::publish::OutputFile;

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
    /// Only these sections (kernel, hip_api, memory_copy, marker, device); default: every one
    /// with rows. device: each GPU's sampled power, energy, clocks and memory, and energy by
    /// kernel and marker range (from `run --device-sample`); with --format json, it alone.
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
    /// Only this rank (of a distributed job: the `rank` column the launcher's variables gave).
    #[arg(long, value_name = "R")]
    rank: Option<i32>,
    /// Each rank's statistics apart, a section per rank (with --format csv and --csv-dir, a
    /// folder `rank_<R>` per rank, and `no_rank` for processes without one).
    #[arg(long)]
    by_rank: bool,
    /// With --format csv: write each section to its rocprofv3 file (kernel_stats.csv,
    /// hip_api_stats.csv, memory_copy_stats.csv, marker_api_stats.csv) in this directory,
    /// rather than the first section to stdout.
    #[arg(long, value_name = "DIR")]
    csv_dir: Option<PathBuf>,
    /// Cut names to this many characters in the table.
    #[arg(long, default_value_t = 60)]
    width: usize,
    /// Memory for the external sorts that keep stats and export within bounds on any trace
    /// (bytes, or with K, M or G; at least 4K). Beyond it, rows go to temporary files under
    /// TMPDIR and are merged; the output is the same.
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = rocprof_rs_analysis::spill::parse_size)]
    memory: usize,
}

/// Runs `stats`.
pub fn stats(args: StatsArgs) -> ExitCode {
    rocprof_rs_analysis::spill::set_memory(args.memory);
    let mut sections = Vec::new();
    let device_asked = args.section.iter().any(|s| s == DEVICE);
    for name in args.section.iter().filter(|s| *s != DEVICE) {
        match Section::by_name(name) {
            Some(s) => sections.push(s),
            None => {
                eprintln!("rocprof-rs: --section {name:?}: expected kernel, hip_api, memory_copy, marker or device");
                return ExitCode::from(2);
            }
        }
    }
    if sections.is_empty() && !device_asked {
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
    if args.by_rank && args.format == Format::Csv && args.csv_dir.is_none() {
        eprintln!("rocprof-rs: --by-rank --format csv: give --csv-dir DIR, where each rank's files go to DIR/rank_<R>");
        return ExitCode::from(2);
    }
    let options = Options { pid: args.pid, rank: args.rank, by_rank: args.by_rank, top: args.top, threads: 0 };
    let result = match stats::compute(&args.dir, &sections, &options) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The GPUs' samples belong to processes, not ranks' sections: --pid narrows them, and a
    // --by-rank run prints them once.
    // JSON prints the device section only when asked for it by name.
    let wanted = device_asked || (args.section.is_empty() && args.format != Format::Json);
    let device = if wanted {
        match rocprof_rs_analysis::telemetry::report::report(&args.dir, args.pid) {
            Ok(device) => device,
            Err(e) if device_asked => {
                eprintln!("rocprof-rs: {e}");
                return ExitCode::FAILURE;
            }
            // Not asked for by name: the other sections stand without it.
            Err(e) => {
                eprintln!("rocprof-rs: note: no device section: {e}");
                None
            }
        }
    } else {
        None
    };
    if device_asked && device.is_none() {
        eprintln!(
            "rocprof-rs: {}: no device samples (record them with `rocprof-rs run --device-sample`)",
            args.dir.display()
        );
        return ExitCode::FAILURE;
    }
    if device_asked && sections.is_empty() {
        return match print_device(&args, device.as_ref()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("rocprof-rs: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if result.is_empty() && device.is_some() {
        return match print_device(&args, device.as_ref()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("rocprof-rs: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if result.is_empty() {
        match args.rank {
            Some(rank) => eprintln!("rocprof-rs: {}: no rows of rank {rank} to summarise", args.dir.display()),
            None => eprintln!("rocprof-rs: {}: no kernel, API, copy or marker rows to summarise", args.dir.display()),
        }
        return ExitCode::FAILURE;
    }
    match print(&args, &result)
        .and_then(|()| if args.format == Format::Json { Ok(()) } else { print_device(&args, device.as_ref()) })
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What printing the statistics can run into.
#[derive(Debug, thiserror::Error)]
enum PrintError {
    #[error("standard output: {0}")]
    Stdout(std::io::Error),
    #[error("{}: {source}", path.display())]
    File { path: PathBuf, source: std::io::Error },
}

/// Prints (or, with --csv-dir, writes) the sections in the format asked for, a row at a time.
fn print(args: &StatsArgs, result: &[stats::SectionStats]) -> Result<(), PrintError> {
    if args.format == Format::Csv {
        // rocprofv3's stats files have no place for them.
        result.iter().flat_map(|s| &s.notes).for_each(|note| eprintln!("rocprof-rs: note: {note}"));
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match (args.format, &args.csv_dir) {
        (Format::Json, _) => {
            serde_json::to_writer_pretty(&mut out, result).map_err(std::io::Error::from).and_then(|()| writeln!(out))
        }
        (Format::Table, _) => {
            let mut out = Escaped::new(&mut out);
            result
                .iter()
                .try_for_each(|section| render::table(section, args.width, &mut out))
                .and_then(|()| out.flush())
        }
        (Format::Csv, None) => render::csv(&result[0], &mut out),
        (Format::Csv, Some(dir)) => return write_csv_files(args, dir, result),
    };
    written.and_then(|()| out.flush()).map_err(PrintError::Stdout)
}

/// The `--section` name of the device section.
const DEVICE: &str = "device";

/// The device section, where the dataset has one: tables, JSON, or CSV files under --csv-dir.
fn print_device(
    args: &StatsArgs,
    device: Option<&rocprof_rs_analysis::telemetry::report::DeviceReport>,
) -> Result<(), PrintError> {
    let Some(device) = device else { return Ok(()) };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match (args.format, &args.csv_dir) {
        (Format::Json, _) => {
            serde_json::to_writer_pretty(&mut out, device).map_err(std::io::Error::from).and_then(|()| writeln!(out))
        }
        (Format::Table, _) => {
            let mut out = Escaped::new(&mut out);
            rocprof_rs_analysis::telemetry::report::render(device, args.top.unwrap_or(20), args.width, &mut out)
                .and_then(|()| out.flush())
        }
        (Format::Csv, None) => {
            eprintln!("rocprof-rs: note: the device section's CSV files need --csv-dir");
            Ok(())
        }
        (Format::Csv, Some(dir)) => {
            for (name, text) in rocprof_rs_analysis::telemetry::report::csv_files(device) {
                let path = dir.join(name);
                let failed = |source| PrintError::File { path: path.clone(), source };
                std::fs::create_dir_all(dir).map_err(failed)?;
                let mut file = OutputFile::create(&path).map_err(failed)?;
                file.write_all(text.as_bytes()).map_err(failed)?;
                file.complete().map_err(failed)?;
                file.commit().map_err(failed)?;
            }
            Ok(())
        }
    };
    written.and_then(|()| out.flush()).map_err(PrintError::Stdout)
}

/// Each section to its rocprofv3 file in `dir`, each whole or not at all.
fn write_csv_files(args: &StatsArgs, dir: &std::path::Path, result: &[stats::SectionStats]) -> Result<(), PrintError> {
    let failed = |path: &std::path::Path| {
        let path = path.to_owned();
        move |source| PrintError::File { path, source }
    };
    for section in result {
        let folder = match section.rank {
            Some(rank) => dir.join(format!("rank_{rank}")),
            None if args.by_rank => dir.join("no_rank"),
            None => dir.to_path_buf(),
        };
        std::fs::create_dir_all(&folder).map_err(failed(&folder))?;
        let path = folder.join(section.section.rocprofv3_file());
        let mut file = OutputFile::create(&path).map_err(failed(&path))?;
        render::csv(section, &mut file).map_err(failed(&path))?;
        file.complete().map_err(failed(&path))?;
        file.commit().map_err(failed(&path))?;
    }
    Ok(())
}
