//! The tool library's bytes inside the `rocprof-rs` binary (put there by `build.rs`), for a CLI
//! installed without its library (`cargo install`): written once to a private cache folder and
//! used from there. A cached copy is used only if its bytes are exactly these, in a folder that
//! is this user's alone, so no other user can put a library of theirs in its place.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

#[cfg(all(rocprof_rs_embedded, not(test)))]
mod linked {
    include!(concat!(env!("OUT_DIR"), "/embedded_tool.rs"));
}

/// The embedded library, if this binary has one.
pub fn bytes() -> Option<&'static [u8]> {
    #[cfg(all(rocprof_rs_embedded, not(test)))]
    {
        // SAFETY: START and END are the linker's symbols around one binary input, the library
        // file, in this binary's data: END is at or after START, the bytes between them are
        // initialised, nothing writes them, and they live as long as the process.
        let bytes = unsafe {
            let start = &raw const linked::START;
            let end = &raw const linked::END;
            std::slice::from_raw_parts(start, (end as usize).saturating_sub(start as usize))
        };
        if bytes.starts_with(b"\x7fELF") {
            return Some(bytes);
        }
    }
    None
}

/// Why the embedded library could not be used.
#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    #[error("this rocprof-rs carries no tool library")]
    Absent,
    #[error("no cache folder: neither XDG_CACHE_HOME nor HOME is set to an absolute path")]
    NoCacheFolder,
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0}: not this user's alone (owned by another user, or writable by others): not used")]
    Unsafe(PathBuf),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> EmbeddedError + '_ {
    move |source| EmbeddedError::Io { path: path.to_owned(), source }
}

/// The cache folder: `$XDG_CACHE_HOME/rocprof-rs/tool`, else `$HOME/.cache/rocprof-rs/tool`: a
/// folder of its own, so that its mode is ours to set whatever made `rocprof-rs` (the roofs).
pub fn cache_dir() -> Result<PathBuf, EmbeddedError> {
    let absolute = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|p| p.is_absolute());
    absolute("XDG_CACHE_HOME")
        .or_else(|| absolute("HOME").map(|home| home.join(".cache")))
        .map(|base| base.join("rocprof-rs").join("tool"))
        .ok_or(EmbeddedError::NoCacheFolder)
}

/// Where the embedded library of `bytes` goes: named by the version and a checksum of the bytes,
/// so builds never share a file.
pub fn cached_path(dir: &Path, bytes: &[u8]) -> PathBuf {
    dir.join(format!("librocprof_rs-{}-{:016x}.so", env!("CARGO_PKG_VERSION"), fnv1a(bytes)))
}

/// The embedded library's cached copy, written first if it is missing or not these bytes.
pub fn extract() -> Result<PathBuf, EmbeddedError> {
    let bytes = bytes().ok_or(EmbeddedError::Absent)?;
    extract_into(&cache_dir()?, bytes)
}

/// `bytes` as a library file under `dir` (made this user's alone if missing).
pub fn extract_into(dir: &Path, bytes: &[u8]) -> Result<PathBuf, EmbeddedError> {
    private_dir(dir)?;
    let path = cached_path(dir, bytes);
    if cached_copy_is(&path, bytes) {
        return Ok(path);
    }
    // The pid and the time: a partial file a killed process left never blocks another.
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let partial =
        dir.join(format!(".{}.{}-{nanos}.partial", path.file_name().unwrap_or_default().display(), std::process::id()));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o700).open(&partial)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&partial, &path)
    })();
    if let Err(source) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(EmbeddedError::Io { path, source });
    }
    Ok(path)
}

/// Whether `path` is our own copy of `bytes`: a regular file (not a link), this user's, one name
/// only (no hard link another user could hold), writable by no one else, and the same bytes.
pub fn cached_copy_is(path: &Path, bytes: &[u8]) -> bool {
    use std::io::Read;
    // Not following a link, and not waiting on a FIFO put in its place.
    let opened = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path);
    let Ok(mut file) = opened else { return false };
    let Ok(meta) = file.metadata() else { return false };
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if !meta.is_file() || meta.uid() != me || meta.nlink() != 1 || meta.permissions().mode() & 0o022 != 0 {
        return false;
    }
    if meta.len() != bytes.len() as u64 {
        return false;
    }
    let mut cached = Vec::with_capacity(bytes.len());
    file.read_to_end(&mut cached).is_ok() && cached == bytes
}

/// Makes `dir` (mode 0700) if missing, and checks that it is this user's and writable by no one
/// else (an open folder may already hold another user's file or link). Its parent, our own cache
/// folder, is closed to group and others first if it is ours (a umask of 002 or 000 made it
/// open), so that no one else can swap `dir` after the check.
fn private_dir(dir: &Path) -> Result<(), EmbeddedError> {
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(EmbeddedError::Io { path: dir.to_owned(), source: e }),
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if let Some(parent) = dir.parent() {
        let meta = std::fs::symlink_metadata(parent).map_err(io(parent))?;
        let mode = meta.permissions().mode();
        if meta.is_dir() && meta.uid() == me && mode & 0o022 != 0 {
            std::fs::set_permissions(parent, std::fs::Permissions::from_mode(mode & !0o022)).map_err(io(parent))?;
        }
    }
    for folder in [Some(dir), dir.parent()].into_iter().flatten() {
        let meta = std::fs::symlink_metadata(folder).map_err(io(folder))?;
        if !meta.is_dir() || meta.uid() != me || meta.permissions().mode() & 0o022 != 0 {
            return Err(EmbeddedError::Unsafe(folder.to_owned()));
        }
    }
    Ok(())
}

/// FNV-1a, 64 bits: a name for the bytes (their identity is checked byte for byte).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_is_written_once_and_a_changed_copy_is_replaced() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-embedded-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = dir.join("cache").join("rocprof-rs");
        let bytes = b"\x7fELF pretend library".as_slice();
        let path = extract_into(&cache, bytes).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        assert_eq!(std::fs::metadata(&cache).unwrap().permissions().mode() & 0o777, 0o700);
        let written = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert_eq!(extract_into(&cache, bytes).unwrap(), path);
        assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), written, "an equal copy is kept");
        std::fs::write(&path, b"tampered").unwrap();
        assert_eq!(std::fs::read(extract_into(&cache, bytes).unwrap()).unwrap(), bytes, "a changed copy is replaced");
        // Other bytes, another name.
        assert_ne!(cached_path(&cache, b"other"), path);
        // A copy with a second name (a hard link someone could keep) is written again.
        std::fs::hard_link(&path, dir.join("kept")).unwrap();
        assert_eq!(extract_into(&cache, bytes).unwrap(), path);
        assert_eq!(std::fs::metadata(&path).unwrap().nlink(), 1);
        // So is a link in the copy's place, and the link itself is what is replaced.
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(dir.join("kept"), &path).unwrap();
        assert_eq!(extract_into(&cache, bytes).unwrap(), path);
        assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
        // A folder others could write to is refused, and so is one under such a folder.
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(matches!(extract_into(&cache, bytes), Err(EmbeddedError::Unsafe(_))));
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o700)).unwrap();
        // An open parent of ours (a umask of 000) is closed to group and others first.
        std::fs::set_permissions(cache.parent().unwrap(), std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(extract_into(&cache, bytes).unwrap(), path);
        assert_eq!(std::fs::metadata(cache.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o755);
        // A link in its place is refused.
        let link = dir.join("link");
        std::os::unix::fs::symlink(&cache, &link).unwrap();
        assert!(matches!(extract_into(&link, bytes), Err(EmbeddedError::Unsafe(_))));
        assert!(
            std::fs::read_dir(&cache)
                .unwrap()
                .flatten()
                .all(|e| !e.file_name().to_string_lossy().ends_with(".partial"))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
