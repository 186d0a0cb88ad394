//! Which files `rocprof-rs export` wrote, so that an export replaces its own earlier files and
//! nothing else: not the rocprofv3 files a dataset was imported from when it is exported back
//! into their folder, nor any other file of a name the export uses.
//!
//! Each file an export publishes carries an extended attribute, [`MARK`], holding its size and
//! modification time (ns) as the export left it. An existing file is replaced only if its mark
//! matches what it is now (an export wrote it and nobody changed it since), or when the user
//! said `--overwrite`. The mark travels with the file and adds nothing to the folder, whose
//! files stay exactly the export's. Where the filesystem keeps no user attributes (some NFS and
//! FUSE mounts), files go unmarked and a later export refuses them too: the safe side.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::OnceLock;

/// The extended attribute that marks a file an export wrote.
pub const MARK: &str = "user.rocprof-rs.export";

/// Whether this process exports, and if so what it may replace.
static EXPORTING: OnceLock<Replace> = OnceLock::new();

/// What an export may replace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// Only files an earlier export marked, unchanged since.
    OwnFiles,
    /// Any file (`--overwrite`).
    Anything,
}

/// Makes every output of this process an export's: marked once published, and refused (before
/// anything is written) where it would replace a file that `replace` does not allow. Outputs of
/// a process that never calls this (a report, a stats file the user names) replace their
/// target as before. The first call's choice holds.
pub fn guard(replace: Replace) {
    let _ = EXPORTING.set(replace);
}

/// Whether an output may be written to `target`: Ok unless this process exports only over its
/// own files, `target` exists, and it carries no mark that matches it.
pub fn may_replace(target: &Path) -> io::Result<()> {
    if EXPORTING.get() != Some(&Replace::OwnFiles) {
        return Ok(());
    }
    let Ok(found) = std::fs::symlink_metadata(target) else { return Ok(()) };
    if found.is_file() && read_mark(target).is_some_and(|mark| mark == stamp(&found)) {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "exists, and no rocprof-rs export wrote it (or it changed since): left as it is; give --overwrite to \
         replace it, or export into another directory",
    ))
}

/// Marks `target`, just published, when this process exports. A mark that cannot be set (a
/// filesystem without user attributes) loses nothing: a later export refuses the file unless
/// told --overwrite.
pub fn mark(target: &Path) {
    if EXPORTING.get().is_none() {
        return;
    }
    let (Ok(found), Ok(path)) = (std::fs::symlink_metadata(target), c_path(target)) else { return };
    let (name, value) = (c_name(), stamp(&found));
    // SAFETY: lsetxattr with a NUL-terminated path and name and a value of the length given;
    // it reads them and returns.
    let _ = unsafe { libc::lsetxattr(path.as_ptr(), name.as_ptr(), value.as_ptr().cast(), value.len(), 0) };
}

/// The mark `target` carries, if any.
fn read_mark(target: &Path) -> Option<String> {
    let path = c_path(target).ok()?;
    let name = c_name();
    let mut value = [0u8; 64];
    // SAFETY: lgetxattr with a NUL-terminated path and name, and a buffer of the length given,
    // which it writes at most that much of.
    let length = unsafe { libc::lgetxattr(path.as_ptr(), name.as_ptr(), value.as_mut_ptr().cast(), value.len()) };
    let length = usize::try_from(length).ok()?;
    String::from_utf8(value.get(..length)?.to_vec()).ok()
}

/// A file's size and modification time (ns), as its mark holds them.
fn stamp(found: &std::fs::Metadata) -> String {
    let modified = i128::from(found.mtime()) * 1_000_000_000 + i128::from(found.mtime_nsec());
    format!("{} {modified}", found.len())
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)
}

fn c_name() -> CString {
    CString::new(MARK).expect("no NUL in the attribute's name")
}
