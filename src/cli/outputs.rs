//! rocprofv3's output flags on `run` (`--output-format`, `--stats`, `--perfetto-trace-filename`):
//! the dataset is written as always, and when the application has ended the files asked for are
//! written from it into the output directory, as `export` and `stats --format csv` write them.
//! A file that cannot be written is said in one line; the application's exit code stays its own.

use std::path::{Path, PathBuf};

use rocprof_rs_analysis::stats::{self, Options, Section, render};
use rocprof_rs_format::exports::{self, Replace};

use super::listing::{self, PrintError};
use super::output_formats::{OutputFormat, Outputs};

/// Why a file asked for besides the dataset was not written.
#[derive(Debug, thiserror::Error)]
pub enum OutputsError {
    #[error(transparent)]
    Export(#[from] rocprof_rs_analysis::Error),
    #[error(transparent)]
    Publish(#[from] PrintError<std::io::Error>),
}

impl Outputs {
    /// Writes every file asked for from the dataset in `dir`; one line per file or failure.
    /// Returns whether all were written.
    pub fn write(&self, dir: &Path) -> bool {
        if !self.any() {
            return true;
        }
        if !dir.is_dir() {
            eprintln!("rocprof-rs: {} not written: no dataset in {}", self.names(), dir.display());
            return false;
        }
        exports::guard(Replace::OwnFiles);
        let mut ok = true;
        for format in self.formats.iter().filter(|f| **f != OutputFormat::Parquet) {
            ok &= said(&format!("--output-format {}", format.name()), self.export(*format, dir));
        }
        if self.stats {
            ok &= said("--stats", write_stats(dir));
        }
        ok
    }

    fn export(&self, format: OutputFormat, dir: &Path) -> Result<Vec<PathBuf>, OutputsError> {
        let in_dir = |files: Vec<(String, u64)>| files.into_iter().map(|(name, _)| dir.join(name)).collect();
        let analysis = rocprof_rs_analysis::export::rocprofv3::export_warning;
        match format {
            OutputFormat::Parquet => Ok(Vec::new()),
            OutputFormat::Csv => analysis(dir, dir)
                .map(|exported| {
                    if let Some(warning) = &exported.warning {
                        eprintln!("rocprof-rs: --output-format csv: warning: {warning}");
                    }
                    in_dir(exported.files)
                })
                .map_err(OutputsError::from),
            OutputFormat::Json => {
                rocprof_rs_analysis::export::results_json::export(dir, dir).map(in_dir).map_err(OutputsError::from)
            }
            OutputFormat::Rocpd => {
                rocprof_rs_analysis::export::rocpd::export(dir, dir).map(in_dir).map_err(OutputsError::from)
            }
            OutputFormat::Pftrace => {
                let file = dir.join(self.pftrace_name.as_deref().unwrap_or("trace.pftrace"));
                rocprof_rs_analysis::export::perfetto::export(dir, &file)
                    .map(|_| vec![file])
                    .map_err(OutputsError::from)
            }
        }
    }
}

/// One line for what was written, or why not.
fn said(what: &str, result: Result<Vec<PathBuf>, OutputsError>) -> bool {
    match result {
        Ok(files) if files.is_empty() => {
            eprintln!("rocprof-rs: {what}: nothing to write (the dataset has no rows for it)");
            true
        }
        Ok(files) => {
            let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            eprintln!("rocprof-rs: {what}: wrote {}", names.join(", "));
            true
        }
        Err(e) => {
            eprintln!("rocprof-rs: {what}: not written: {e}");
            false
        }
    }
}

/// rocprofv3's statistics files of every section with rows, in `dir`.
fn write_stats(dir: &Path) -> Result<Vec<PathBuf>, OutputsError> {
    let options = Options { pid: None, rank: None, by_rank: false, top: None, threads: 0 };
    let result = stats::compute(dir, &Section::ALL, &options)?;
    let mut written = Vec::new();
    for section in &result {
        let path = dir.join(section.section.rocprofv3_file());
        listing::publish(&path, |file| render::csv(section, file))?;
        written.push(path);
    }
    Ok(written)
}
