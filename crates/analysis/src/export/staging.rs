//! An export of several files that appears whole or not at all: the files are written into a
//! hidden staging folder beside the target, `.<name>.<kind>-<pid>.staging`, which is renamed
//! to the target when every file is complete. A failure removes the staging folder; a killed
//! export leaves it behind, hidden, and the next export to the same target removes it.

use std::io;
use std::path::{Path, PathBuf};

use rocprof_rs_format::exports;

/// A staging folder, removed when dropped unless [`Staging::publish`] moved it into place.
#[derive(Debug)]
pub struct Staging {
    path: PathBuf,
    target: PathBuf,
}

/// `.<name>.<kind>-` and `.staging`: the staging folders of `target`, less the pid between.
fn affixes(target: &Path, kind: &str) -> io::Result<(String, &'static str)> {
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "an output folder needs a name"))?
        .to_string_lossy();
    Ok((format!(".{name}.{kind}-"), ".staging"))
}

/// The folder `target` is in.
fn parent(target: &Path) -> &Path {
    target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

impl Staging {
    /// A fresh staging folder for `target`, after removing those that killed exports of the
    /// same kind left beside it (their pid no longer runs).
    pub fn create(target: &Path, kind: &str) -> io::Result<Staging> {
        if std::fs::metadata(target).is_ok_and(|m| !m.is_dir()) {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, "exists and is not a folder"));
        }
        let dir = parent(target);
        std::fs::create_dir_all(dir)?;
        let (prefix, suffix) = affixes(target, kind)?;
        for entry in std::fs::read_dir(dir)?.flatten() {
            let name = entry.file_name();
            let pid = name.to_str().and_then(|n| n.strip_prefix(&prefix)?.strip_suffix(suffix)?.parse::<u32>().ok());
            if let Some(pid) = pid
                && !Path::new("/proc").join(pid.to_string()).exists()
            {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        let path = dir.join(format!("{prefix}{}{suffix}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir(&path)?;
        Ok(Staging { path, target: target.to_path_buf() })
    }

    /// Where the files are written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Syncs every file and moves them into place: the folder itself where the target is
    /// missing or empty (one rename: all or nothing), else file by file into the target.
    /// A file of the target that the export may not replace (one the user wrote, see
    /// [`exports`]) stops the export before anything moves, naming the file.
    pub fn publish(mut self) -> io::Result<()> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.path)? {
            let entry = entry?;
            std::fs::File::open(entry.path())?.sync_all()?;
            names.push(entry.file_name());
        }
        for name in &names {
            let target = self.target.join(name);
            exports::may_replace(&target)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", target.display())))?;
        }
        std::fs::File::open(&self.path)?.sync_all()?;
        let empty = std::fs::read_dir(&self.target).map(|mut d| d.next().is_none());
        match empty {
            Err(e) if e.kind() == io::ErrorKind::NotFound => std::fs::rename(&self.path, &self.target)?,
            // rename(2) replaces an empty folder.
            Ok(true) => std::fs::rename(&self.path, &self.target)?,
            Ok(false) => {
                for entry in std::fs::read_dir(&self.path)? {
                    let entry = entry?;
                    std::fs::rename(entry.path(), self.target.join(entry.file_name()))?;
                }
                std::fs::remove_dir(&self.path)?;
            }
            Err(e) => return Err(e),
        }
        std::fs::File::open(parent(&self.target))?.sync_all()?;
        for name in &names {
            exports::mark(&self.target.join(name));
        }
        // Published: nothing is left for Drop to remove.
        self.path = PathBuf::new();
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}
