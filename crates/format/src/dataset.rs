//! A dataset on disk: a folder per table, each holding that table's Parquet files, and one
//! metadata file per process (`<stem>.metadata.json`).

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::Table;
use crate::error::{Error, Result};

/// A table's files on disk.
#[derive(Debug, Default)]
pub struct Listing {
    /// Complete files, sorted by name.
    pub files: Vec<PathBuf>,
    /// Files still being written, or left by a process that was killed: hidden
    /// `.<name>.parquet.partial` files, which no reader reads.
    pub incomplete: Vec<PathBuf>,
}

/// The Parquet files of `table` under `dir`, hidden (incomplete) ones left out, sorted.
pub fn table_files(dir: &Path, table: Table) -> Result<Vec<PathBuf>> {
    Ok(list(dir, table)?.files)
}

/// Levels of hive partition folders (`host=…/rank=…`) read under a table's folder: the
/// tool writes two; a few more allow a dataset re-partitioned by an engine.
const PARTITION_DEPTH: usize = 4;

/// The complete and incomplete files of `table` under `dir`: in the table's folder, and in
/// hive partition folders (`key=value`) under it, as the hive layout and engines write them.
pub fn list(dir: &Path, table: Table) -> Result<Listing> {
    let mut listing = Listing::default();
    collect(&dir.join(table.name()), PARTITION_DEPTH, &mut listing)?;
    listing.files.sort();
    listing.incomplete.sort();
    Ok(listing)
}

fn collect(folder: &Path, depth: usize, listing: &mut Listing) -> Result<()> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(Error::Io { path: folder.display().to_string(), source }),
    };
    for entry in entries {
        let entry = entry.map_err(|source| Error::Io { path: folder.display().to_string(), source })?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && name.ends_with(".parquet.partial") {
            listing.incomplete.push(entry.path());
        } else if name.ends_with(".parquet") && !name.starts_with(['.', '_']) {
            listing.files.push(entry.path());
        } else if depth > 0 && is_partition(&name) && entry.file_type().is_ok_and(|t| t.is_dir()) {
            collect(&entry.path(), depth - 1, listing)?;
        }
    }
    Ok(())
}

/// Whether a folder name is a hive partition, `key=value`, that readers descend into (not a
/// hidden or `_`-prefixed one, which engines skip too).
fn is_partition(name: &str) -> bool {
    !name.starts_with(['.', '_']) && name.split_once('=').is_some_and(|(key, _)| !key.is_empty())
}

/// Refuses a `dir` that is not a dataset: missing, not a folder, or without a single table
/// file. What reads a dataset calls this first, so a mistyped path is an error, not an empty
/// output.
pub fn require_tables(dir: &Path) -> Result<()> {
    let path = || dir.display().to_string();
    let metadata = std::fs::metadata(dir).map_err(|source| Error::Io { path: path(), source })?;
    if !metadata.is_dir() {
        return Err(Error::NotADataset {
            path: path(),
            reason: "not a directory (a dataset is the folder a run writes)",
        });
    }
    let mut incomplete = Vec::new();
    for table in Table::ALL {
        let listing = list(dir, *table)?;
        if !listing.files.is_empty() {
            return Ok(());
        }
        incomplete.extend(listing.incomplete);
    }
    if let Some(first) = incomplete.first() {
        return Err(Error::OnlyIncomplete {
            path: path(),
            count: incomplete.len(),
            first: first.display().to_string(),
        });
    }
    Err(Error::NotADataset {
        path: path(),
        reason: "holds no rocprof-rs table (no <table>/*.parquet file); `rocprof-rs import` converts other tools' output",
    })
}

/// Whether `stem` names files that readers see: pyarrow, polars, DuckDB and Spark skip names
/// that start with `.` or `_`, and a stem must be one file name of printable text (a newline,
/// an escape sequence or a bidirectional control in a file name spoofs every listing of it).
pub fn is_visible_stem(stem: &str) -> bool {
    !stem.is_empty() && !stem.starts_with(['.', '_']) && !stem.contains('/') && stem != ".." && printable(stem)
}

/// Whether `text` holds no control character (tab and newline included), no bidirectional
/// control and no invisible separator.
pub fn printable(text: &str) -> bool {
    !text.chars().any(|c| {
        c.is_control()
            || crate::terminal::is_unsafe(c)
            || matches!(c, '\u{200b}'..='\u{200d}' | '\u{2028}' | '\u{2029}' | '\u{feff}')
    })
}

/// Claims a file-name stem under `dir` for one process: the first of `stem`, `stem.2`,
/// `stem.3`, … whose metadata file this call creates, exclusively. Two processes given one
/// name (a fixed `ROCPROF_RS_OUTPUT_NAME`, `%hostname%` for ranks of one node, a run repeated
/// into the same folder) so write files of their own, and each metadata file speaks for one
/// process. Returns the stem and its (empty) metadata file.
pub fn claim_stem(dir: &Path, stem: &str) -> Result<(String, File)> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.display().to_string(), source })?;
    for attempt in 1..=10_000u32 {
        let candidate = if attempt == 1 { stem.to_owned() } else { format!("{stem}.{attempt}") };
        let path = dir.join(crate::keys::metadata_file_name(&candidate));
        match crate::publish::create_exclusive(&path) {
            Ok(file) => return Ok((candidate, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(Error::Io { path: path.display().to_string(), source }),
        }
    }
    Err(Error::Io {
        path: dir.join(crate::keys::metadata_file_name(stem)).display().to_string(),
        source: std::io::Error::new(std::io::ErrorKind::AlreadyExists, "this stem and 9,999 variants are taken"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_stem_gives_the_next_free_one() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-claim-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let names: Vec<String> = (0..3).map(|_| claim_stem(&dir, "fixed").unwrap().0).collect();
        assert_eq!(names, ["fixed", "fixed.2", "fixed.3"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn hidden_stems_are_not_visible() {
        for stem in [".x", "_x", "", "a/b", ".."] {
            assert!(!is_visible_stem(stem), "{stem:?}");
        }
        assert!(is_visible_stem("host-42"));
    }
}
