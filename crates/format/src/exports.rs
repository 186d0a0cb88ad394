//! Which files of a folder `rocprof-rs export` wrote, so that an export replaces its own earlier
//! files and nothing else: not the rocprofv3 files a dataset was imported from when it is
//! exported back into their folder, nor any other file of a name the export uses.
//!
//! Each export records the files it published in a hidden manifest in their folder,
//! [`MANIFEST`], one line per file: its size, its modification time (ns) and its name. An
//! existing file is replaced only if the manifest lists it with the size and time it has now
//! (an export wrote it and nobody changed it since), or when the user said `--overwrite`. A file
//! not listed (the manifest lost, say) is refused, naming it: the safe side.

use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::OnceLock;

/// The manifest's name in each folder an export wrote into.
pub const MANIFEST: &str = ".rocprof-rs-exported";

/// Whether this process exports, and if so whether it may replace any file (`--overwrite`).
static EXPORTING: OnceLock<Replace> = OnceLock::new();

/// What an export may replace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// Only files an earlier export recorded writing, unchanged since.
    OwnFiles,
    /// Any file (`--overwrite`).
    Anything,
}

/// Makes every output of this process an export's: recorded in its folder's manifest once
/// published, and refused (before anything is written) where it would replace a file that
/// `replace` does not allow. Outputs of a process that never calls this (a report, a stats
/// file the user names) replace their target as before. The first call's choice holds.
pub fn guard(replace: Replace) {
    let _ = EXPORTING.set(replace);
}

/// Whether an output may be written to `target`: Ok unless this process exports, `target`
/// exists, and no export wrote it (or it changed since).
pub(crate) fn may_replace(target: &Path) -> io::Result<()> {
    if EXPORTING.get() != Some(&Replace::OwnFiles) {
        return Ok(());
    }
    let Ok(found) = std::fs::symlink_metadata(target) else { return Ok(()) };
    if listed(target).is_some_and(|(size, modified)| (size, modified) == stamp(&found)) {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "exists, and no rocprof-rs export wrote it (or it changed since): left as it is; give --overwrite to \
         replace it, or export into another directory",
    ))
}

/// Records `target`, just published, in its folder's manifest, when this process exports. A
/// manifest that cannot be written loses nothing: the file is then refused by a later export
/// without --overwrite.
pub(crate) fn record(target: &Path) {
    if EXPORTING.get().is_none() {
        return;
    }
    let (Some(name), Ok(found)) = (target.file_name().and_then(|n| n.to_str()), std::fs::metadata(target)) else {
        return;
    };
    if name.contains('\n') {
        return;
    }
    let manifest = folder(target).join(MANIFEST);
    let mut lines: Vec<String> = std::fs::read_to_string(&manifest)
        .unwrap_or_default()
        .lines()
        .filter(|line| parse(line).is_some_and(|(_, _, listed)| listed != name))
        .map(str::to_owned)
        .collect();
    let (size, modified) = stamp(&found);
    lines.push(format!("{size} {modified} {name}"));
    let _ = write_manifest(&manifest, &(lines.join("\n") + "\n"));
}

/// The manifest's new text, written beside it and renamed over it.
fn write_manifest(manifest: &Path, text: &str) -> io::Result<()> {
    let partial = manifest.with_file_name(format!("{MANIFEST}.{}.partial", std::process::id()));
    std::fs::write(&partial, text)?;
    std::fs::rename(&partial, manifest).inspect_err(|_| {
        let _ = std::fs::remove_file(&partial);
    })
}

/// The size and modification time (ns) the manifest lists for `target`.
fn listed(target: &Path) -> Option<(u64, i128)> {
    let name = target.file_name()?.to_str()?;
    let text = std::fs::read_to_string(folder(target).join(MANIFEST)).ok()?;
    text.lines().filter_map(parse).find(|&(_, _, listed)| listed == name).map(|(size, modified, _)| (size, modified))
}

fn parse(line: &str) -> Option<(u64, i128, &str)> {
    let mut fields = line.splitn(3, ' ');
    Some((fields.next()?.parse().ok()?, fields.next()?.parse().ok()?, fields.next()?))
}

fn stamp(found: &std::fs::Metadata) -> (u64, i128) {
    (found.len(), i128::from(found.mtime()) * 1_000_000_000 + i128::from(found.mtime_nsec()))
}

fn folder(target: &Path) -> &Path {
    target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}
