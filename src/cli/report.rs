//! `rocprof-rs report`: one self-contained HTML page of a dataset.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use rocprof_rs_analysis::report::{self, Options};
use rocprof_rs_format::publish::OutputFile;

/// The options of `rocprof-rs report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The dataset: the directory a run (or `rocprof-rs import`) wrote.
    dir: PathBuf,
    /// Where the page goes (`-` for standard output). Written under a temporary name and
    /// renamed when complete.
    #[arg(short = 'o', long, value_name = "FILE", default_value = "report.html")]
    output: PathBuf,
    /// Another run of the same program: the page's diff section shows what changed since it,
    /// regressions first.
    #[arg(long, value_name = "DIR")]
    baseline: Option<PathBuf>,
    /// The GPU to hold kernels against where the trace does not name it (imports), by database
    /// id (see `analyze --gpu`).
    #[arg(long, value_name = "ID")]
    gpu: Option<String>,
    /// Kernels listed in the top-kernels table.
    #[arg(long, value_name = "N", default_value_t = 50)]
    top: usize,
    /// The timeline's bins: the finest detail the page can zoom to is the run over this many.
    #[arg(long, value_name = "N", default_value_t = report::timeline::DEFAULT_BINS as u32,
          value_parser = clap::value_parser!(u32).range(100..=100_000))]
    bins: u32,
    /// The markers that are a distributed job's steps (a regular expression), for the cross-rank
    /// view's stragglers.
    #[arg(long, value_name = "REGEX")]
    step_marker: Option<String>,
    /// Memory for the external sorts (bytes, or with K, M or G; at least 4K).
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = rocprof_rs_analysis::spill::parse_size)]
    memory: usize,
}

/// What writing the page can run into.
#[derive(Debug, thiserror::Error)]
pub(super) enum WriteError {
    #[error("standard output: {0}")]
    Stdout(std::io::Error),
    #[error("{}: {source}", path.display())]
    File { path: PathBuf, source: std::io::Error },
}

/// Runs `report`.
pub fn report(args: ReportArgs) -> ExitCode {
    rocprof_rs_analysis::spill::set_memory(args.memory);
    let step_marker = match args.step_marker.as_deref().map(regex::Regex::new).transpose() {
        Ok(re) => re,
        Err(e) => {
            eprintln!("rocprof-rs: --step-marker: {e}");
            return ExitCode::from(2);
        }
    };
    for (flag, dir) in [("", Some(&args.dir)), ("--baseline ", args.baseline.as_ref())] {
        if let Some(dir) = dir.filter(|d| !d.is_dir()) {
            eprintln!(
                "rocprof-rs: {flag}{}: not a directory (give the directory a run or an import wrote)",
                dir.display()
            );
            return ExitCode::FAILURE;
        }
    }
    let options = Options {
        baseline: args.baseline.clone(),
        gpu: args.gpu.clone(),
        top: args.top,
        bins: args.bins as usize,
        step_marker,
        kept_roofs: true,
    };
    let page = match report::build(&args.dir, &options) {
        Ok(report) => report::html::render(&report),
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::FAILURE;
        }
    };
    match write(&args.output, page.as_bytes()) {
        Ok(()) if args.output == Path::new("-") => ExitCode::SUCCESS,
        Ok(()) => {
            eprintln!("rocprof-rs: report in {} ({:.0} KiB)", args.output.display(), page.len() as f64 / 1024.0);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The page to `path`, whole or not at all (`-`: standard output).
pub(super) fn write(path: &Path, page: &[u8]) -> Result<(), WriteError> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return out.write_all(page).and_then(|()| out.flush()).map_err(WriteError::Stdout);
    }
    let failed = |source| WriteError::File { path: path.to_owned(), source };
    let mut file = OutputFile::create(path).map_err(failed)?;
    file.write_all(page).map_err(failed)?;
    file.complete().map_err(failed)?;
    file.commit().map_err(failed)
}
