//! rocprofv3's output flags on `run` (`--output-format`, `--stats`, `--perfetto-trace-filename`):
//! the dataset is written as always, and when the application has ended the files asked for are
//! written from it into the output directory, as `export` and `stats --format csv` write them.
//! A file that cannot be written is said in one line; the application's exit code stays its own.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rocprof_rs_analysis::stats::{self, Options, Section, render};
use rocprof_rs_format::exports::{self, Replace};

use super::listing::{self, PrintError};

/// rocprofv3's `--output-format` values rocprof-rs writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OutputFormat {
    /// The dataset itself, always written.
    Parquet,
    /// rocprofv3's CSV files (`<pid>_kernel_trace.csv`, ...).
    Csv,
    /// rocprofv3's JSON (`<pid>_results.json`).
    Json,
    /// A Perfetto trace.
    Pftrace,
    /// rocpd SQLite databases (`<pid>_results.db`).
    Rocpd,
}

/// The formats, by rocprofv3's names.
const FORMATS: &[(&str, OutputFormat)] = &[
    ("parquet", OutputFormat::Parquet),
    ("csv", OutputFormat::Csv),
    ("json", OutputFormat::Json),
    ("pftrace", OutputFormat::Pftrace),
    ("rocpd", OutputFormat::Rocpd),
];

/// rocprofv3's formats rocprof-rs does not write, and why.
const NOT_WRITTEN: &[(&str, &str)] =
    &[("otf2", "rocprof-rs writes no OTF2 archive; export a Perfetto trace (pftrace)")];

/// An `--output-format` value rocprof-rs does not write.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("{0}: {1}")]
    NotWritten(String, &'static str),
    #[error("{0:?}: not an output format (parquet, csv, json, pftrace or rocpd)")]
    Unknown(String),
}

impl OutputFormat {
    /// rocprofv3's name of a format, any case.
    pub fn parse(name: &str) -> Result<OutputFormat, FormatError> {
        let lower = name.trim().to_ascii_lowercase();
        if let Some((_, format)) = FORMATS.iter().find(|(n, _)| *n == lower) {
            return Ok(*format);
        }
        match NOT_WRITTEN.iter().find(|(n, _)| *n == lower) {
            Some((_, why)) => Err(FormatError::NotWritten(lower, why)),
            None => Err(FormatError::Unknown(name.to_owned())),
        }
    }

    fn name(self) -> &'static str {
        FORMATS.iter().find(|(_, f)| *f == self).map_or("parquet", |(n, _)| n)
    }
}

/// What is written besides the dataset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outputs {
    pub formats: BTreeSet<OutputFormat>,
    /// rocprofv3's `--stats`: its statistics files (`kernel_stats.csv`, ...).
    pub stats: bool,
    /// The Perfetto trace's file name (`--perfetto-trace-filename`; default `trace.pftrace`).
    pub pftrace_name: Option<String>,
}

impl Outputs {
    /// Whether anything is written besides the dataset.
    pub fn any(&self) -> bool {
        self.stats || self.formats.iter().any(|f| *f != OutputFormat::Parquet)
    }

    /// These, with `other`'s added (a profile's and the command line's).
    pub fn merged(&self, other: &Outputs) -> Outputs {
        Outputs {
            formats: self.formats.union(&other.formats).copied().collect(),
            stats: self.stats || other.stats,
            pftrace_name: other.pftrace_name.clone().or_else(|| self.pftrace_name.clone()),
        }
    }

    /// Checks a Perfetto file name: a bare name, so the trace lands in the output directory.
    pub fn check_pftrace_name(name: &str) -> Result<(), String> {
        let path = Path::new(name);
        let bare = path.file_name().is_some_and(|n| n == path.as_os_str()) && name != "." && name != "..";
        if name.is_empty() || !bare {
            return Err(format!(
                "{name:?}: give a file name, without a folder (the trace goes in the output directory)"
            ));
        }
        Ok(())
    }

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

    fn names(&self) -> String {
        let mut names: Vec<String> = self
            .formats
            .iter()
            .filter(|f| **f != OutputFormat::Parquet)
            .map(|f| format!("--output-format {}", f.name()))
            .collect();
        if self.stats {
            names.push("--stats".into());
        }
        names.join(", ")
    }

    fn export(&self, format: OutputFormat, dir: &Path) -> Result<Vec<PathBuf>, String> {
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
                .map_err(|e| e.to_string()),
            OutputFormat::Json => {
                rocprof_rs_analysis::export::results_json::export(dir, dir).map(in_dir).map_err(|e| e.to_string())
            }
            OutputFormat::Rocpd => {
                rocprof_rs_analysis::export::rocpd::export(dir, dir).map(in_dir).map_err(|e| e.to_string())
            }
            OutputFormat::Pftrace => {
                let file = dir.join(self.pftrace_name.as_deref().unwrap_or("trace.pftrace"));
                rocprof_rs_analysis::export::perfetto::export(dir, &file).map(|_| vec![file]).map_err(|e| e.to_string())
            }
        }
    }
}

/// One line for what was written, or why not.
fn said(what: &str, result: Result<Vec<PathBuf>, String>) -> bool {
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
fn write_stats(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let options = Options { pid: None, rank: None, by_rank: false, top: None, threads: 0 };
    let result = stats::compute(dir, &Section::ALL, &options).map_err(|e| e.to_string())?;
    let mut written = Vec::new();
    for section in &result {
        let path = dir.join(section.section.rocprofv3_file());
        listing::publish(&path, |file| render::csv(section, file))
            .map_err(|e: PrintError<std::io::Error>| e.to_string())?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_rocprofv3s_names_and_otf2_says_why_not() {
        assert_eq!(OutputFormat::parse("PFTRACE"), Ok(OutputFormat::Pftrace));
        assert_eq!(OutputFormat::parse(" csv"), Ok(OutputFormat::Csv));
        assert!(matches!(OutputFormat::parse("otf2"), Err(FormatError::NotWritten(..))));
        let unknown = OutputFormat::parse("xml").unwrap_err().to_string();
        assert!(unknown.contains("\"xml\"") && unknown.contains("pftrace"), "{unknown}");
    }

    #[test]
    fn outputs_merge_and_only_parquet_writes_nothing_more() {
        let parquet = Outputs { formats: [OutputFormat::Parquet].into(), ..Outputs::default() };
        assert!(!parquet.any());
        let profile =
            Outputs { formats: [OutputFormat::Csv].into(), stats: true, pftrace_name: Some("a.pftrace".into()) };
        let command =
            Outputs { formats: [OutputFormat::Json].into(), stats: false, pftrace_name: Some("b.pftrace".into()) };
        let merged = profile.merged(&command);
        assert_eq!(merged.formats, [OutputFormat::Csv, OutputFormat::Json].into());
        assert!(merged.stats && merged.any());
        assert_eq!(merged.pftrace_name.as_deref(), Some("b.pftrace"));
        assert!(Outputs::check_pftrace_name("model_trace.pftrace").is_ok());
        for bad in ["", "..", "a/b.pftrace", "/tmp/x.pftrace"] {
            assert!(Outputs::check_pftrace_name(bad).is_err(), "{bad}");
        }
    }
}
