//! `rocprof-rs ranks`: a distributed job's ranks compared (busy, idle, compute and
//! communication time, stragglers in steps, waits at collectives).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use rocprof_rs_analysis::ranks::render::{self, RenderError, Section};
use rocprof_rs_analysis::ranks::{self, Options, Report};
use rocprof_rs_analysis::terminal::Escaped;
use rocprof_rs_format::publish::OutputFile;

use super::stats::Format;

/// Steps and collectives a table lists when --top is not given (CSV and JSON list all).
const TABLE_TOP: usize = 10;

/// The options of `rocprof-rs ranks`.
#[derive(Debug, Args)]
pub struct RanksArgs {
    /// The run directory every rank wrote into.
    dir: PathBuf,
    /// Markers whose message matches this regular expression are steps: the k-th on each rank
    /// is step k (e.g. '^train_step', 'ProfilerStep#').
    #[arg(long, value_name = "REGEX", value_parser = regex::Regex::new)]
    step_marker: Option<regex::Regex>,
    /// table, csv or json.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Only the N steps with the largest excess and the N collectives with the longest wait
    /// (default: all, or 10 in a table).
    #[arg(long, value_name = "N")]
    top: Option<usize>,
    /// Only these sections (ranks, steps, stragglers, collectives, operations); with --format
    /// csv and no --csv-dir, the first one (default: ranks).
    #[arg(long, value_delimiter = ',')]
    section: Vec<String>,
    /// With --format csv: write every section to its file in this directory (ranks.csv,
    /// steps.csv, stragglers.csv, collectives.csv, operations.csv).
    #[arg(long, value_name = "DIR")]
    csv_dir: Option<PathBuf>,
    /// Cut rank and host names to this many characters in the tables.
    #[arg(long, default_value_t = 40)]
    width: usize,
    /// Memory for the external sorts that keep ranks within bounds on any run (bytes, or with
    /// K, M or G; at least 4K). Beyond it, rows go to temporary files under TMPDIR; the output is
    /// the same.
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = rocprof_rs_analysis::spill::parse_size)]
    memory: usize,
}

/// Runs `ranks`.
pub fn ranks(args: RanksArgs) -> ExitCode {
    rocprof_rs_analysis::spill::set_memory(args.memory);
    let mut sections = Vec::new();
    for name in &args.section {
        match Section::by_name(name) {
            Some(s) => sections.push(s),
            None => {
                eprintln!(
                    "rocprof-rs: --section {name:?}: expected ranks, steps, stragglers, collectives or operations"
                );
                return ExitCode::from(2);
            }
        }
    }
    if sections.is_empty() {
        sections = Section::ALL.to_vec();
    }
    let top = args.top.or((args.format == Format::Table).then_some(TABLE_TOP));
    let options = Options { step_marker: args.step_marker.clone(), top, threads: 0 };
    let report = match ranks::compute(&args.dir, &options) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.format != Format::Table {
        // CSV has no place for them, and JSON carries them for programs, not people.
        report.notes.iter().for_each(|note| eprintln!("rocprof-rs: note: {note}"));
    }
    match print(&args, &sections, &report) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What printing the comparison can run into.
#[derive(Debug, thiserror::Error)]
enum PrintError {
    #[error("standard output: {0}")]
    Stdout(RenderError),
    #[error("{}: {source}", path.display())]
    File { path: PathBuf, source: RenderError },
}

/// Prints (or, with --csv-dir, writes) the sections in the format asked for.
fn print(args: &RanksArgs, sections: &[Section], report: &Report) -> Result<(), PrintError> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match (args.format, &args.csv_dir) {
        (Format::Json, _) => serde_json::to_writer_pretty(&mut out, report)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out))
            .map_err(RenderError::from),
        (Format::Table, _) => {
            let mut out = Escaped::new(&mut out);
            render::table(report, sections, args.width, &mut out).and_then(|()| out.flush().map_err(RenderError::from))
        }
        (Format::Csv, None) => render::csv(report, sections[0], &mut out),
        (Format::Csv, Some(dir)) => return write_csv_files(dir, sections, report),
    };
    written.and_then(|()| out.flush().map_err(RenderError::from)).map_err(PrintError::Stdout)
}

/// Each section to its file in `dir`, each whole or not at all.
fn write_csv_files(dir: &Path, sections: &[Section], report: &Report) -> Result<(), PrintError> {
    let failed = |path: &Path| {
        let path = path.to_owned();
        move |source: RenderError| PrintError::File { path, source }
    };
    std::fs::create_dir_all(dir).map_err(|e| failed(dir)(e.into()))?;
    for &section in sections {
        let path = dir.join(section.file_name());
        let mut file = OutputFile::create(&path).map_err(|e| failed(&path)(e.into()))?;
        render::csv(report, section, &mut file).map_err(failed(&path))?;
        file.complete().map_err(|e| failed(&path)(e.into()))?;
        file.commit().map_err(|e| failed(&path)(e.into()))?;
    }
    Ok(())
}
