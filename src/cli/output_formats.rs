//! rocprofv3's output flags on `run` as values: `--output-format`'s formats, `--stats` and
//! `--perfetto-trace-filename`, parsed and checked before anything starts. Writing them is
//! [`super::outputs`]'s.

use std::collections::BTreeSet;
use std::path::Path;

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
    #[error("{0:?}: give a file name, without a folder (the trace goes in the output directory)")]
    PftraceName(String),
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

    pub fn name(self) -> &'static str {
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
    pub fn check_pftrace_name(name: &str) -> Result<(), FormatError> {
        let path = Path::new(name);
        let bare = path.file_name().is_some_and(|n| n == path.as_os_str()) && name != "." && name != "..";
        if name.is_empty() || !bare {
            return Err(FormatError::PftraceName(name.to_owned()));
        }
        Ok(())
    }

    /// The flags asked for, as the command line names them.
    pub fn names(&self) -> String {
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
