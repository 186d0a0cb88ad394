//! Which rank each file's rows belong to, for `stats --rank` and `--by-rank`.
//!
//! A process writes its own files and has one rank, so a file's rank is in its footer: the
//! `rank` column's statistics, which the writer keeps for every row group. No row is decoded.
//! A file with no `rank` column (formats 1 and 2, imports) or only nulls there has no rank.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use parquet::file::statistics::Statistics;

use crate::error::{Error, Result};

/// The rank of a file's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileRank {
    /// No rows at all.
    Empty,
    /// No row has a rank.
    None,
    /// Every row has this rank.
    One(i32),
    /// Rows of several ranks, or of a rank and of none, or row groups without statistics.
    Unknown,
}

/// `files` by the rank of their rows (`None`: rows without a rank), ranks in order; files without
/// rows are in no group.
pub fn group(files: &[PathBuf]) -> Result<BTreeMap<Option<i32>, Vec<PathBuf>>> {
    let mut groups: BTreeMap<Option<i32>, Vec<PathBuf>> = BTreeMap::new();
    for path in files {
        let rank = match file_rank(path)? {
            FileRank::Empty => continue,
            FileRank::None => None,
            FileRank::One(rank) => Some(rank),
            FileRank::Unknown => {
                return Err(Error::Invalid(format!(
                    "{}: its rows' ranks are not one rank per file (several ranks, or row groups without \
                     statistics for `rank`), as --rank and --by-rank need: each process of a run writes files \
                     of its own",
                    path.display()
                )));
            }
        };
        groups.entry(rank).or_default().push(path.clone());
    }
    Ok(groups)
}

/// What the footer of `path` says of its rows' ranks.
fn file_rank(path: &Path) -> Result<FileRank> {
    let footer = rocprof_rs_format::read::footer(path)?;
    let metadata = footer.metadata();
    let Some(column) = metadata.file_metadata().schema_descr().columns().iter().position(|c| c.name() == "rank") else {
        let rows: i64 = metadata.row_groups().iter().map(|g| g.num_rows()).sum();
        return Ok(if rows == 0 { FileRank::Empty } else { FileRank::None });
    };
    // Row groups without rows say nothing; the others must all say the same.
    let mut seen: Option<FileRank> = None;
    for group in metadata.row_groups().iter().filter(|g| g.num_rows() > 0) {
        let rows = group.num_rows() as u64;
        let this = match group.column(column).statistics() {
            Some(Statistics::Int32(s)) if s.null_count_opt() == Some(rows) => FileRank::None,
            Some(Statistics::Int32(s)) if s.null_count_opt() == Some(0) && s.min_opt() == s.max_opt() => {
                s.min_opt().map_or(FileRank::Unknown, |&rank| FileRank::One(rank))
            }
            _ => FileRank::Unknown,
        };
        if this == FileRank::Unknown || seen.is_some_and(|seen| seen != this) {
            return Ok(FileRank::Unknown);
        }
        seen = Some(this);
    }
    Ok(seen.unwrap_or(FileRank::Empty))
}

/// A sentence on the ranks `files` span, where there are several: the figures add them up.
pub fn summed_note(files: &[PathBuf]) -> Option<String> {
    let groups = group(files).ok()?;
    let ranks: Vec<i32> = groups.keys().flatten().copied().collect();
    if ranks.len() < 2 {
        return None;
    }
    let (first, last) = (ranks[0], ranks[ranks.len() - 1]);
    let span = if (last - first) as usize + 1 == ranks.len() {
        format!("ranks {first}-{last}")
    } else {
        format!("ranks {}", ranks.iter().map(i32::to_string).collect::<Vec<_>>().join(","))
    };
    Some(format!(
        "these figures add up {} {span}; --by-rank gives each rank's, --rank R one rank's, and `rocprof-rs ranks` \
         compares them",
        ranks.len()
    ))
}
