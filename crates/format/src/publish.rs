//! How a file comes into being without touching anyone else's.
//!
//! Every file this project writes is first written under a hidden name that this process
//! created exclusively, and becomes visible only once it is complete:
//! - [`create_exclusive`] never opens over an existing file, so two processes given the same
//!   name (`ROCPROF_RS_OUTPUT_NAME=fixed`, `%hostname%` for several ranks on one node) never
//!   truncate each other's work;
//! - [`rename_no_replace`] publishes a dataset file without ever replacing one, so a dataset
//!   only grows;
//! - [`OutputFile`] is a user's chosen output (an export), replaced whole or not at all: a
//!   full disk or an error leaves the previous file, or none, never half of one; in an export,
//!   only a file an earlier export wrote is replaced ([`crate::exports`]).

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Creates `path` for writing; fails with `AlreadyExists` if anything is there, a dangling
/// link included (`O_CREAT | O_EXCL`).
pub fn create_exclusive(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// Renames `from` to `to` unless `to` exists. Returns `Ok(false)`, having changed nothing, if
/// it does.
///
/// `renameat2(RENAME_NOREPLACE)` where the filesystem has it (atomic); else a hard link, which
/// fails on an existing name, and the unlink of `from`; on a filesystem with neither (some
/// FUSE and network mounts), a check then a rename, which two writers racing on one name
/// within microseconds could still get wrong.
pub fn rename_no_replace(from: &Path, to: &Path) -> io::Result<bool> {
    match renameat2_noreplace(from, to) {
        Ok(()) => return Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
        Err(e) if !is_unsupported(&e) => return Err(e),
        Err(_) => {}
    }
    match std::fs::hard_link(from, to) {
        Ok(()) => {
            std::fs::remove_file(from)?;
            return Ok(true);
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
        Err(e) if !is_unsupported(&e) => return Err(e),
        Err(_) => {}
    }
    if std::fs::symlink_metadata(to).is_ok() {
        return Ok(false);
    }
    std::fs::rename(from, to).map(|()| true)
}

fn is_unsupported(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP | libc::EPERM | libc::EXDEV))
}

fn renameat2_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
    let (from, to) = (c(from)?, c(to)?);
    // SAFETY: renameat2 through syscall(2) (glibc's wrapper is 2.28+), with two valid
    // NUL-terminated paths relative to the working directory; it reads them and returns.
    let status = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if status == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// A user's chosen output file, written under a hidden name beside it and renamed over it only
/// by [`OutputFile::commit`]; dropped uncommitted, it removes what it wrote.
#[derive(Debug)]
pub struct OutputFile {
    target: PathBuf,
    partial: PathBuf,
    writer: Option<BufWriter<File>>,
}

impl OutputFile {
    /// Starts `target`'s replacement, opened for writing.
    pub fn create(target: &Path) -> io::Result<OutputFile> {
        let (partial, file) = reserve(target, create_exclusive)?;
        Ok(OutputFile { target: target.to_path_buf(), partial, writer: Some(BufWriter::with_capacity(1 << 20, file)) })
    }

    /// Starts `target`'s replacement without opening it, for a writer that opens paths itself
    /// (SQLite): the hidden path is reserved (created empty) and is [`OutputFile::path`].
    pub fn reserve(target: &Path) -> io::Result<OutputFile> {
        let (partial, _file) = reserve(target, create_exclusive)?;
        Ok(OutputFile { target: target.to_path_buf(), partial, writer: None })
    }

    /// Where the output is being written.
    pub fn path(&self) -> &Path {
        &self.partial
    }

    /// The output's final name.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Writes out what is buffered and syncs it, without making it visible: an output of
    /// several files completes them all before it commits any.
    pub fn complete(&mut self) -> io::Result<()> {
        let file = match self.writer.take() {
            Some(writer) => writer.into_inner().map_err(io::IntoInnerError::into_error)?,
            None => File::open(&self.partial)?,
        };
        file.sync_all()
    }

    /// Completes the output and renames it to its final name (replacing what was there).
    pub fn commit(mut self) -> io::Result<()> {
        self.complete()?;
        std::fs::rename(&self.partial, &self.target)?;
        // The rename is done: nothing is left for Drop to remove.
        self.partial = PathBuf::new();
        crate::exports::mark(&self.target);
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.as_mut().ok_or_else(not_open)?.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer.as_mut().ok_or_else(not_open)?.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.as_mut().ok_or_else(not_open)?.flush()
    }
}

fn not_open() -> io::Error {
    io::Error::other("a reserved output is written through its path, not as a stream")
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if self.partial.as_os_str().is_empty() {
            return;
        }
        drop(self.writer.take());
        let _ = std::fs::remove_file(&self.partial);
        // SQLite's companions of an unfinished database.
        for suffix in ["-journal", "-wal", "-shm"] {
            let mut companion = self.partial.clone().into_os_string();
            companion.push(suffix);
            let _ = std::fs::remove_file(companion);
        }
    }
}

/// An output folder, created if it was not there; dropped without [`OutputDir::keep`] (a
/// failed export or import), a folder this created is removed again if it is empty, so a
/// failure leaves nothing behind.
#[derive(Debug)]
#[must_use = "a dropped OutputDir removes the folder it created"]
pub struct OutputDir {
    path: PathBuf,
    created: Vec<PathBuf>,
}

impl OutputDir {
    /// `path` and any missing parents, created.
    pub fn create(path: &Path) -> io::Result<OutputDir> {
        let created: Vec<PathBuf> =
            path.ancestors().take_while(|p| !p.as_os_str().is_empty() && !p.exists()).map(Path::to_path_buf).collect();
        std::fs::create_dir_all(path)?;
        Ok(OutputDir { path: path.to_path_buf(), created })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the folder: the output is complete.
    pub fn keep(mut self) {
        self.created.clear();
    }
}

impl Drop for OutputDir {
    fn drop(&mut self) {
        // Innermost first; remove_dir leaves a folder that is not empty.
        for dir in &self.created {
            if std::fs::remove_dir(dir).is_err() {
                break;
            }
        }
    }
}

/// A hidden name beside `target` that nobody else holds, created by `create`.
fn reserve(target: &Path, create: impl Fn(&Path) -> io::Result<File>) -> io::Result<(PathBuf, File)> {
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "an output needs a file name"))?
        .to_string_lossy();
    // The rename would put a file in place of a device, a FIFO or a folder (as root, over
    // /dev/null): only a regular file, or nothing yet, is an output's place.
    if std::fs::metadata(target).is_ok_and(|found| !found.is_file()) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a device, FIFO, socket or folder is never replaced by an output)",
        ));
    }
    crate::exports::may_replace(target)?;
    let dir = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let pid = std::process::id();
    for attempt in 0..1000u32 {
        let partial = dir.join(format!(".{name}.{pid}-{attempt}.partial"));
        match create(&partial) {
            Ok(file) => return Ok((partial, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(io::ErrorKind::AlreadyExists, "1000 hidden names beside it are taken"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt as _;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-publish-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn exclusive_creation_never_opens_over_a_file_or_a_link() {
        let dir = scratch("exclusive");
        std::fs::write(dir.join("taken"), b"theirs").unwrap();
        std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("dangling")).unwrap();
        for name in ["taken", "dangling"] {
            let e = create_exclusive(&dir.join(name)).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::AlreadyExists, "{name}");
        }
        assert_eq!(std::fs::read(dir.join("taken")).unwrap(), b"theirs");
        assert!(!dir.join("nowhere").exists(), "the link was not followed");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_output_never_replaces_a_special_file_or_a_folder() {
        let dir = scratch("special");
        std::fs::create_dir(dir.join("folder")).unwrap();
        for target in [Path::new("/dev/null"), &dir.join("folder")] {
            let e = OutputFile::create(target).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{}", target.display());
        }
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "nothing left beside them");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_rename_never_replaces_a_file() {
        let dir = scratch("no-replace");
        std::fs::write(dir.join("a"), b"mine").unwrap();
        std::fs::write(dir.join("b"), b"theirs").unwrap();
        assert!(!rename_no_replace(&dir.join("a"), &dir.join("b")).unwrap());
        assert_eq!(std::fs::read(dir.join("b")).unwrap(), b"theirs");
        assert_eq!(std::fs::read(dir.join("a")).unwrap(), b"mine");
        assert!(rename_no_replace(&dir.join("a"), &dir.join("c")).unwrap());
        assert_eq!(std::fs::read(dir.join("c")).unwrap(), b"mine");
        assert!(!dir.join("a").exists());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_failed_output_removes_the_folders_it_created() {
        let dir = scratch("output-dir");
        let out = OutputDir::create(&dir.join("a/b")).unwrap();
        assert!(dir.join("a/b").is_dir());
        drop(out);
        assert!(!dir.join("a").exists(), "both created folders are gone");
        OutputDir::create(&dir.join("a/b")).unwrap().keep();
        assert!(dir.join("a/b").is_dir(), "a completed output keeps them");
        let again = OutputDir::create(&dir.join("a/b")).unwrap();
        drop(again);
        assert!(dir.join("a/b").is_dir(), "folders that were there stay");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_output_appears_whole_on_commit_and_not_at_all_without() {
        let dir = scratch("output");
        let target = dir.join("out.csv");
        std::fs::write(&target, b"previous").unwrap();
        let mut out = OutputFile::create(&target).unwrap();
        out.write_all(b"half").unwrap();
        drop(out);
        assert_eq!(std::fs::read(&target).unwrap(), b"previous", "an abandoned output leaves the old one");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "and nothing beside it");
        let mut out = OutputFile::create(&target).unwrap();
        out.write_all(b"whole").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"whole");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
