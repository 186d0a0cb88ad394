//! A dataset on disk: a folder per table, each holding that table's Parquet files.

use std::path::{Path, PathBuf};

use crate::Table;
use crate::error::{Error, Result};

/// The Parquet files of `table` under `dir`, hidden (incomplete) ones left out, sorted.
pub fn table_files(dir: &Path, table: Table) -> Result<Vec<PathBuf>> {
    let folder = dir.join(table.name());
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(Error::Io { path: folder.display().to_string(), source }),
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            name.ends_with(".parquet") && !name.starts_with('.')
        })
        .collect();
    files.sort();
    Ok(files)
}
