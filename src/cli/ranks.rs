//! `rocprof-rs ranks`: a distributed job's ranks compared (busy, idle, compute and
//! communication time, stragglers in steps, waits at collectives).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::Args;
use rocprof_rs_analysis::ranks::render::{self, RenderError, Section};
use rocprof_rs_analysis::ranks::{self, Options, Report};
use rocprof_rs_analysis::terminal::Escaped;

use super::listing::{self, Format, ListingArgs, Order, PrintError, Wording};

/// Steps and collectives a table lists when --top is not given (CSV and JSON list all).
const TABLE_TOP: usize = 10;

/// `ranks`' words for the options it shares with `stats`.
#[derive(Debug)]
pub struct RanksWording;

impl Wording for RanksWording {
    const DIR: &'static str = "The run directory every rank wrote into";
    const SECTION: &'static str = "Only these sections (ranks, steps, stragglers, collectives, operations, hangs); \
        with --format csv and no --csv-dir, the first one (default: ranks)";
    const TOP: &'static str = "Only the N steps with the largest excess and the N collectives with the longest wait \
        (default: all, or 10 in a table)";
    const FORMAT: &'static str = "table, csv or json";
    const CSV_DIR: &'static str = "With --format csv: write every section to its file in this directory (ranks.csv, \
        steps.csv, stragglers.csv, collectives.csv, operations.csv, hangs.csv)";
    const WIDTH: &'static str = "Cut rank and host names to this many characters in the tables";
    const WIDTH_DEFAULT: &'static str = "40";
    const MEMORY: &'static str = "Memory for the external sorts that keep ranks within bounds on any run (bytes, or \
        with K, M or G; at least 4K). Beyond it, rows go to temporary files under TMPDIR; the output is the same";
    const ORDER: Order = Order { section: 3, top: 2, format: 1, csv_dir: 4, width: 5, memory: 6 };
    const SECTIONS: &'static str = "ranks, steps, stragglers, collectives, operations or hangs";
}

/// The options of `rocprof-rs ranks`.
#[derive(Debug, Args)]
pub struct RanksArgs {
    #[command(flatten)]
    listing: ListingArgs<RanksWording>,
    /// Markers whose message matches this regular expression are steps: the k-th on each rank
    /// is step k (e.g. '^train_step', 'ProfilerStep#').
    #[arg(long, value_name = "REGEX", value_parser = regex::Regex::new, display_order = 0)]
    step_marker: Option<regex::Regex>,
}

/// Runs `ranks`.
pub fn ranks(args: RanksArgs) -> ExitCode {
    let list = &args.listing;
    list.set_memory();
    let mut sections = match list.sections(&[], Section::by_name) {
        Ok(sections) => sections,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::from(2);
        }
    };
    if sections.is_empty() {
        sections = Section::ALL.to_vec();
    }
    // What makes the figures partial: a flight recorder's dump (and what triggered it), files
    // never completed, records dropped.
    if let Ok(warnings) = rocprof_rs_analysis::stats::health::warnings(&list.dir) {
        warnings.iter().for_each(|w| eprintln!("rocprof-rs: warning: {w}"));
    }
    let top = list.top(Some(TABLE_TOP));
    let options = Options { step_marker: args.step_marker.clone(), top, threads: 0 };
    let report = match ranks::compute(&list.dir, &options) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::FAILURE;
        }
    };
    if list.format != Format::Table {
        // CSV has no place for them, and JSON carries them for programs, not people.
        report.notes.iter().for_each(|note| eprintln!("rocprof-rs: note: {note}"));
    }
    match print(list, &sections, &report) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints (or, with --csv-dir, writes) the sections in the format asked for.
fn print(
    list: &ListingArgs<RanksWording>,
    sections: &[Section],
    report: &Report,
) -> Result<(), PrintError<RenderError>> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match (list.format, &list.csv_dir) {
        (Format::Json, _) => {
            super::envelope::Output::Ranks.write(Some(&list.dir), report, &mut out).map_err(RenderError::from)
        }
        (Format::Table, _) => {
            let mut out = Escaped::new(&mut out);
            render::table(report, sections, list.width, &mut out).and_then(|()| out.flush().map_err(RenderError::from))
        }
        (Format::Csv, None) => render::csv(report, sections[0], &mut out),
        (Format::Csv, Some(dir)) => return write_csv_files(dir, sections, report),
    };
    written.and_then(|()| out.flush().map_err(RenderError::from)).map_err(PrintError::Stdout)
}

/// Each section to its file in `dir`, each whole or not at all.
fn write_csv_files(dir: &Path, sections: &[Section], report: &Report) -> Result<(), PrintError<RenderError>> {
    std::fs::create_dir_all(dir).map_err(|e| PrintError::at(dir)(e.into()))?;
    for &section in sections {
        let path = dir.join(section.file_name());
        listing::publish(&path, |file| render::csv(report, section, file))?;
    }
    Ok(())
}
