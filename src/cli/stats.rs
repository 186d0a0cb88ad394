//! `rocprof-rs stats`: per-name duration statistics of a dataset.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::Args;
use rocprof_rs_analysis::stats::{self, Options, Section, render};
use rocprof_rs_analysis::telemetry::report::DeviceReport;
use rocprof_rs_analysis::terminal::Escaped;

use super::bodies::StatsBody;
use super::envelope::Output;
use super::listing::{self, Format, ListingArgs, Order, PrintError, Wording};

/// `stats`' words for the options it shares with `ranks`.
#[derive(Debug)]
pub struct StatsWording;

impl Wording for StatsWording {
    const DIR: &'static str = "The dataset: the directory a run (or `rocprof-rs import`) wrote";
    const SECTION: &'static str = "Only these sections (kernel, hip_api, memory_copy, marker, device); default: every \
        one with rows. device: each GPU's sampled power, energy, clocks and memory, and energy by kernel and marker \
        range (from `run --device-sample`); with --format json, it alone";
    const TOP: &'static str = "Only the N names with the largest total per section";
    const FORMAT: &'static str = "table, csv (rocprofv3's stats files, column for column) or json";
    const CSV_DIR: &'static str = "With --format csv: write each section to its rocprofv3 file (kernel_stats.csv, \
        hip_api_stats.csv, memory_copy_stats.csv, marker_api_stats.csv) in this directory, rather than the first \
        section to stdout";
    const WIDTH: &'static str = "Cut names to this many characters in the table";
    const WIDTH_DEFAULT: &'static str = "60";
    const MEMORY: &'static str = "Memory for the external sorts that keep stats and export within bounds on any \
        trace (bytes, or with K, M or G; at least 4K). Beyond it, rows go to temporary files under TMPDIR and are \
        merged; the output is the same";
    const ORDER: Order = Order { section: 0, top: 1, format: 2, csv_dir: 6, width: 7, memory: 8 };
    const SECTIONS: &'static str = "kernel, hip_api, memory_copy, marker or device";
}

/// The options of `rocprof-rs stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    listing: ListingArgs<StatsWording>,
    /// Only this process (every process under DIR by default).
    #[arg(long, display_order = 3)]
    pid: Option<u32>,
    /// Only this rank (of a distributed job: the `rank` column the launcher's variables gave).
    #[arg(long, value_name = "R", display_order = 4)]
    rank: Option<i32>,
    /// Each rank's statistics apart, a section per rank (with --format csv and --csv-dir, a
    /// folder `rank_<R>` per rank, and `no_rank` for processes without one).
    #[arg(long, display_order = 5)]
    by_rank: bool,
}

/// Runs `stats`.
pub fn stats(args: StatsArgs) -> ExitCode {
    let list = &args.listing;
    list.set_memory();
    let device_asked = list.section.iter().any(|s| s == DEVICE);
    let mut sections = match list.sections(&[DEVICE], Section::by_name) {
        Ok(sections) => sections,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::from(2);
        }
    };
    if sections.is_empty() && !device_asked {
        sections = Section::ALL.to_vec();
    }
    if !list.dir.is_dir() {
        eprintln!("rocprof-rs: {}: not a directory (give the directory a run or an import wrote)", list.dir.display());
        return ExitCode::FAILURE;
    }
    match stats::health::warnings(&list.dir) {
        Ok(warnings) => warnings.iter().for_each(|w| eprintln!("rocprof-rs: warning: {w}")),
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::FAILURE;
        }
    }
    if args.by_rank && list.format == Format::Csv && list.csv_dir.is_none() {
        eprintln!("rocprof-rs: --by-rank --format csv: give --csv-dir DIR, where each rank's files go to DIR/rank_<R>");
        return ExitCode::from(2);
    }
    let options = Options { pid: args.pid, rank: args.rank, by_rank: args.by_rank, top: list.top(None), threads: 0 };
    let result = match stats::compute(&list.dir, &sections, &options) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The GPUs' samples belong to processes, not ranks' sections: --pid narrows them, and a
    // --by-rank run prints them once.
    // JSON prints the device section only when asked for it by name.
    let wanted = device_asked || (list.section.is_empty() && list.format != Format::Json);
    let device = if wanted {
        match rocprof_rs_analysis::telemetry::report::report(&list.dir, args.pid) {
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
            list.dir.display()
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
            Some(rank) => eprintln!("rocprof-rs: {}: no rows of rank {rank} to summarise", list.dir.display()),
            None => eprintln!("rocprof-rs: {}: no kernel, API, copy or marker rows to summarise", list.dir.display()),
        }
        return ExitCode::FAILURE;
    }
    match print(&args, &result, device.as_ref())
        .and_then(|()| if list.format == Format::Json { Ok(()) } else { print_device(&args, device.as_ref()) })
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints (or, with --csv-dir, writes) the sections in the format asked for, a row at a time.
/// JSON is one document: the device section, where there is one, goes in it.
fn print(
    args: &StatsArgs,
    result: &[stats::SectionStats],
    device: Option<&DeviceReport>,
) -> Result<(), PrintError<std::io::Error>> {
    let list = &args.listing;
    if list.format == Format::Csv {
        // rocprofv3's stats files have no place for them.
        result.iter().flat_map(|s| &s.notes).for_each(|note| eprintln!("rocprof-rs: note: {note}"));
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match (list.format, &list.csv_dir) {
        (Format::Json, _) => Output::Stats.write(Some(&list.dir), StatsBody { sections: result, device }, &mut out),
        (Format::Table, _) => {
            let mut out = Escaped::new(&mut out);
            result
                .iter()
                .try_for_each(|section| render::table(section, list.width, &mut out))
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
fn print_device(args: &StatsArgs, device: Option<&DeviceReport>) -> Result<(), PrintError<std::io::Error>> {
    let Some(device) = device else { return Ok(()) };
    let list = &args.listing;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match (list.format, &list.csv_dir) {
        (Format::Json, _) => {
            Output::Stats.write(Some(&list.dir), StatsBody { sections: &[], device: Some(device) }, &mut out)
        }
        (Format::Table, _) => {
            let mut out = Escaped::new(&mut out);
            rocprof_rs_analysis::telemetry::report::render(device, list.top.unwrap_or(20), list.width, &mut out)
                .and_then(|()| out.flush())
        }
        (Format::Csv, None) => {
            eprintln!("rocprof-rs: note: the device section's CSV files need --csv-dir");
            Ok(())
        }
        (Format::Csv, Some(dir)) => {
            for (name, text) in rocprof_rs_analysis::telemetry::report::csv_files(device) {
                let path = dir.join(name);
                std::fs::create_dir_all(dir).map_err(PrintError::at(&path))?;
                listing::publish(&path, |file| file.write_all(text.as_bytes()))?;
            }
            Ok(())
        }
    };
    written.and_then(|()| out.flush()).map_err(PrintError::Stdout)
}

/// Each section to its rocprofv3 file in `dir`, each whole or not at all.
fn write_csv_files(
    args: &StatsArgs,
    dir: &Path,
    result: &[stats::SectionStats],
) -> Result<(), PrintError<std::io::Error>> {
    for section in result {
        let folder = match section.rank {
            Some(rank) => dir.join(format!("rank_{rank}")),
            None if args.by_rank => dir.join("no_rank"),
            None => dir.to_path_buf(),
        };
        std::fs::create_dir_all(&folder).map_err(PrintError::at(&folder))?;
        let path = folder.join(section.section.rocprofv3_file());
        listing::publish(&path, |file| render::csv(section, file))?;
    }
    Ok(())
}
