//! `rocprof-rs import`: other profilers' outputs turned into a rocprof-rs dataset, so `stats`
//! and every other command work on them.
//!
//! Everything is written under a hidden staging folder in the output directory (`.import-<pid>`)
//! and moved into place only once every input has been read: a malformed input (reported with
//! its file, line and column) leaves nothing behind. The CLI removes the folder on SIGTERM,
//! SIGINT and SIGHUP; one a SIGKILL left goes with the next import into the same directory.

pub mod aggregate;
mod csv_table;
pub mod rocpd;
pub mod rocprof_compute;
pub mod rocprof_v1;
pub mod rocprof_v1_csv;
pub mod rocprofv3;
mod rocprofv3_agents;
pub mod rocprofv3_json;
mod rocprofv3_pc;
pub mod sink;

use rocprof_rs_format::publish::OutputDir;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use sink::Sink;

/// What one input was taken for.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Imported {
    pub input: String,
    /// `rocprofv3 CSV`, `rocprofv3 JSON`, `rocpd SQLite`, `rocprof v1 CSV`, `rocprof v1 JSON` or
    /// `rocprof-compute workload`.
    pub format: &'static str,
    /// Rows read per source file (or, for a database, per kind).
    pub files: Vec<(String, u64)>,
    /// Rows of kinds no table of ours holds, which were left out (rocDecode calls, say).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<(String, u64)>,
    /// What the reader could not take as given (timestamps rounded away, files left out).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What one database or JSON file held: rows read per kind, and rows of kinds no table of ours
/// holds (rocDecode calls, say).
#[derive(Debug, Default)]
pub struct Read {
    pub rows: Vec<(String, u64)>,
    pub skipped: Vec<(String, u64)>,
    pub notes: Vec<String>,
}

impl Imported {
    fn from_read(input: String, format: &'static str, read: Read) -> Imported {
        Imported { input, format, files: read.rows, skipped: read.skipped, notes: read.notes }
    }
}

/// Rows written per table.
pub type TableRows = Vec<(&'static str, u64)>;

/// What an import did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Report {
    pub output: String,
    pub inputs: Vec<Imported>,
    /// Rows written per table.
    pub rows: TableRows,
}

/// Imports `inputs` into a dataset under `output` (created if needed), with file stems
/// `<stem>-NNNNN.parquet`.
pub fn import(inputs: &[PathBuf], output: &Path, stem: &str) -> Result<Report> {
    if inputs.is_empty() {
        return Err(Error::Invalid("nothing to import: name a rocprofv3 output directory or a results.json".into()));
    }
    if let Some(c) = stem.chars().find(|c| !rocprof_rs_format::dataset::printable(&c.to_string())) {
        return Err(Error::Invalid(format!(
            "--name {stem:?}: holds U+{:04X}, a control character or an invisible mark; a file-name stem is printable text",
            u32::from(c)
        )));
    }
    if !rocprof_rs_format::dataset::is_visible_stem(stem) {
        return Err(Error::Invalid(format!(
            "--name {stem:?}: a file-name stem without '/' that does not start with '.' or '_' (readers skip such files)"
        )));
    }
    let folder =
        OutputDir::create(output).map_err(|source| Error::Io { path: output.display().to_string(), source })?;
    remove_abandoned_staging(output);
    let staging = staging_folder(output);
    let _ = std::fs::remove_dir_all(&staging);
    let result = import_into(inputs, &staging, stem).and_then(|(imported, rows)| {
        let mut published = PUBLISHING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        commit(&staging, output)?;
        *published = true;
        Ok(Report { output: output.display().to_string(), inputs: imported, rows })
    });
    let _ = std::fs::remove_dir_all(&staging);
    if result.is_ok() {
        folder.keep();
    }
    result
}

/// The hidden folder this process stages an import into `output` in: `.import-<pid>`. A CLI
/// that ends the process on a signal removes it first.
pub fn staging_folder(output: &Path) -> PathBuf {
    output.join(format!("{STAGING_PREFIX}{}", std::process::id()))
}

const STAGING_PREFIX: &str = ".import-";

/// Held while an import moves its staged files into place, and true once one has.
static PUBLISHING: std::sync::Mutex<bool> = std::sync::Mutex::new(false);

/// Waits until no import is moving its files into place; whether one did (its output is then
/// complete). A CLI that ends the process on a signal calls it first, so that a signal never
/// leaves an import half published.
pub fn wait_for_publishing() -> bool {
    *PUBLISHING.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Removes the staging folders of imports into `output` whose process no longer runs (killed
/// with SIGKILL, or by a power cut): an import's leftovers go with the next import there. A
/// folder whose process runs (another import, or a process that took over the id) is left.
fn remove_abandoned_staging(output: &Path) {
    let Ok(entries) = std::fs::read_dir(output) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(STAGING_PREFIX)).and_then(|p| p.parse().ok()) else {
            continue;
        };
        if pid != std::process::id() && !process_runs(pid) && entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether process `pid` exists (signal 0 checks without sending; EPERM: it exists, another
/// user's).
fn process_runs(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    // SAFETY: kill with signal 0 sends nothing; it only checks the process exists.
    let status = unsafe { libc::kill(pid, 0) };
    status == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

fn import_into(inputs: &[PathBuf], staging: &Path, stem: &str) -> Result<(Vec<Imported>, TableRows)> {
    let sources: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    let mut sink = Sink::new(staging, stem, &sources.join(", "))?;
    let mut imported = Vec::new();
    for input in inputs {
        let shown = input.display().to_string();
        let meta = std::fs::metadata(input).map_err(|source| Error::Io { path: shown.clone(), source })?;
        if meta.is_dir() && rocprof_compute::is_workload(input) {
            let read = rocprof_compute::read_workload(input, &mut sink)?;
            imported.push(Imported::from_read(shown, "rocprof-compute workload", read));
        } else if meta.is_dir() {
            let files = rocprofv3::files(input)?;
            if files.is_empty() {
                return Err(Error::Io {
                    path: shown,
                    source: std::io::Error::other(
                        "no rocprofv3 CSV output here (kernel_trace.csv, hip_api_trace.csv, ...)",
                    ),
                });
            }
            let pid = rocprofv3::directory_pid(&files);
            let ids = rocprofv3::dispatch_ids(&files);
            let mut read = Vec::new();
            let progress = crate::progress::bar(files.len() as u64, &format!("importing {shown}"));
            for (kind, path) in files {
                let rows = rocprofv3::read(kind, &path, pid, ids, &mut sink)?;
                progress.inc(1);
                read.push((path.display().to_string(), rows));
            }
            progress.finish_and_clear();
            imported.push(Imported {
                input: shown,
                format: "rocprofv3 CSV",
                files: read,
                skipped: Vec::new(),
                notes: Vec::new(),
            });
        } else {
            let head = read_head(input)?;
            if rocpd::looks_like(head.as_bytes()) {
                let read = rocpd::read(input, &mut sink)?;
                imported.push(Imported::from_read(shown, "rocpd SQLite", read));
            } else if rocprofv3_json::looks_like(&head) {
                let read = rocprofv3_json::read(input, &mut sink)?;
                imported.push(Imported::from_read(shown, "rocprofv3 JSON", read));
            } else if rocprof_v1_csv::looks_like(&head) {
                let rows = rocprof_v1_csv::read(input, &mut sink)?;
                let files = vec![(shown.clone(), rows)];
                imported.push(Imported::from_read(shown, "rocprof v1 CSV", Read { rows: files, ..Read::default() }));
            } else if rocprof_v1::looks_like(&head) {
                let rows = rocprof_v1::read(input, &mut sink)?;
                let files = vec![(shown.clone(), rows)];
                imported.push(Imported::from_read(shown, "rocprof v1 JSON", Read { rows: files, ..Read::default() }));
            } else if let Some(layout) = rocprof_compute::layout(head.lines().next().unwrap_or("")) {
                let read = rocprof_compute::read_file(input, layout, &mut sink)?;
                imported.push(Imported::from_read(shown, "rocprof-compute workload", read));
            } else {
                return Err(Error::Io {
                    path: shown,
                    source: std::io::Error::other(
                        "not a format rocprof-rs imports: a rocprofv3 CSV directory, rocprofv3's results.json, \
                         a rocpd database (.db), rocprof v1's results.csv or results.json, or a rocprof-compute \
                         workload folder or one of its CSV files",
                    ),
                });
            }
        }
    }
    let rows = sink.finish()?;
    Ok((imported, rows.into_iter().map(|(table, n)| (table.name(), n)).collect()))
}

/// The first 64 KiB of a file, to tell formats apart.
fn read_head(path: &Path) -> Result<String> {
    use std::io::Read;
    let shown = path.display().to_string();
    let mut file =
        rocprof_rs_format::input::open_regular(path).map_err(|source| Error::Io { path: shown.clone(), source })?;
    let mut head = vec![0; 64 << 10];
    let n = file.read(&mut head).map_err(|source| Error::Io { path: shown, source })?;
    head.truncate(n);
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// Moves every staged table file into `output`, refusing to overwrite.
fn commit(staging: &Path, output: &Path) -> Result<()> {
    let io = |path: &Path, source| Error::Io { path: path.display().to_string(), source };
    let mut moves = Vec::new();
    // Inputs with no rows (rocprofv3 writes header-only CSVs for a run without kernels)
    // stage nothing.
    if !staging.exists() {
        return Ok(());
    }
    for table in std::fs::read_dir(staging).map_err(|e| io(staging, e))?.flatten() {
        for file in std::fs::read_dir(table.path()).map_err(|e| io(&table.path(), e))?.flatten() {
            let target = output.join(table.file_name()).join(file.file_name());
            if target.exists() {
                return Err(io(&target, std::io::Error::other("already exists; import into another directory")));
            }
            moves.push((file.path(), target));
        }
    }
    for (from, to) in moves {
        let parent = to.parent().expect("a table folder");
        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        if !rocprof_rs_format::publish::rename_no_replace(&from, &to).map_err(|e| io(&to, e))? {
            return Err(io(&to, std::io::Error::other("appeared during the import; import into another directory")));
        }
    }
    Ok(())
}
