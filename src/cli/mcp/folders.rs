//! The folders an MCP server serves: every path a client names is resolved (symbolic links
//! and `..` included) and must lie inside one of them, or it is refused naming the folders.

use std::path::{Path, PathBuf};

/// A path a client named that the server will not touch.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FolderError {
    #[error("{0:?}: not a path (empty, or with a NUL character)")]
    NotAPath(String),
    #[error("{path}: no such file or folder inside the served folders ({folders})")]
    Missing { path: String, folders: String },
    #[error("{path}: outside the folders this server serves ({folders})")]
    Outside { path: String, folders: String },
}

/// The served folders, resolved once.
#[derive(Debug, Clone)]
pub struct Folders {
    roots: Vec<PathBuf>,
}

impl Folders {
    /// The folders given on the command line, each resolved; a missing one is an error.
    pub fn new(folders: &[PathBuf]) -> Result<Folders, String> {
        let mut roots = Vec::new();
        for folder in folders {
            let root = std::fs::canonicalize(folder).map_err(|e| format!("--folder {}: {e}", folder.display()))?;
            if !root.is_dir() {
                return Err(format!("--folder {}: not a folder", folder.display()));
            }
            roots.push(root);
        }
        if roots.is_empty() {
            return Err("give at least one --folder: the server reads nothing outside the folders named".into());
        }
        Ok(Folders { roots })
    }

    /// The served folders.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn listed(&self) -> String {
        self.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
    }

    /// `given` resolved: relative to the first folder, and inside one of them.
    pub fn existing(&self, given: &str) -> Result<PathBuf, FolderError> {
        if given.is_empty() || given.contains('\0') {
            return Err(FolderError::NotAPath(given.to_owned()));
        }
        let joined = self.roots[0].join(given);
        let resolved = std::fs::canonicalize(&joined)
            .map_err(|_| FolderError::Missing { path: given.to_owned(), folders: self.listed() })?;
        self.check(given, resolved)
    }

    /// A path to write, `given`, that need not exist yet: its parent must, inside a folder, and
    /// its name must be a plain name.
    pub fn new_child(&self, given: &str) -> Result<PathBuf, FolderError> {
        if given.is_empty() || given.contains('\0') {
            return Err(FolderError::NotAPath(given.to_owned()));
        }
        let joined = self.roots[0].join(given);
        let name = joined.file_name().filter(|n| *n != ".." && *n != ".");
        let parent = joined.parent().and_then(|p| std::fs::canonicalize(p).ok());
        match (name, parent) {
            (Some(name), Some(parent)) => {
                let resolved = parent.join(name);
                // An existing link is followed to where it leads, which must be inside too.
                let resolved = std::fs::canonicalize(&resolved).unwrap_or(resolved);
                self.check(given, resolved)
            }
            _ => Err(FolderError::Missing { path: given.to_owned(), folders: self.listed() }),
        }
    }

    fn check(&self, given: &str, resolved: PathBuf) -> Result<PathBuf, FolderError> {
        if self.roots.iter().any(|root| resolved.starts_with(root)) {
            Ok(resolved)
        } else {
            Err(FolderError::Outside { path: given.to_owned(), folders: self.listed() })
        }
    }
}

/// The datasets under `root`, at most `depth` folders down: folders holding a run's metadata
/// file or a table folder.
pub fn datasets(root: &Path, depth: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    walk(root, depth, &mut found);
    found.sort();
    found
}

fn walk(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let entries: Vec<_> = entries.flatten().take(10_000).collect();
    let is_dataset = entries.iter().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        name.ends_with(rocprof_rs_format::keys::METADATA_FILE_SUFFIX)
            || (name == "kernel_dispatch" && e.file_type().is_ok_and(|t| t.is_dir()))
    });
    if is_dataset {
        found.push(dir.to_owned());
    }
    if depth == 0 {
        return;
    }
    for entry in entries {
        // Links are not followed: a dataset is listed where it is.
        if entry.file_type().is_ok_and(|t| t.is_dir()) && !entry.file_name().to_string_lossy().starts_with('.') {
            walk(&entry.path(), depth - 1, found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_folders_are_refused_however_they_are_written() {
        let base = std::env::temp_dir().join(format!("rocprof-rs-mcp-folders-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let served = base.join("served");
        std::fs::create_dir_all(served.join("run/kernel_dispatch")).unwrap();
        std::fs::create_dir_all(base.join("secret")).unwrap();
        std::os::unix::fs::symlink(base.join("secret"), served.join("link")).unwrap();
        let folders = Folders::new(std::slice::from_ref(&served)).unwrap();
        assert!(folders.existing("run").unwrap().ends_with("served/run"));
        for outside in ["../secret", "/etc", "link", "run/../../secret"] {
            assert!(matches!(folders.existing(outside), Err(FolderError::Outside { .. })), "{outside}");
        }
        assert!(matches!(folders.existing("nothing"), Err(FolderError::Missing { .. })));
        assert!(matches!(folders.existing(""), Err(FolderError::NotAPath(_))));
        assert!(folders.new_child("new-run").unwrap().ends_with("served/new-run"));
        assert!(matches!(folders.new_child("../new"), Err(FolderError::Outside { .. })));
        assert!(matches!(folders.new_child("link/x"), Err(FolderError::Outside { .. })));
        assert_eq!(datasets(&served, 3), vec![served.join("run")]);
        assert!(Folders::new(&[]).is_err() && Folders::new(&[base.join("missing")]).is_err());
        let _ = std::fs::remove_dir_all(&base);
    }
}
