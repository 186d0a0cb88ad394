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
    #[error("{path}: {entry} is {kind}; the server reads only plain files and folders")]
    NotPlain { path: String, entry: String, kind: &'static str },
    #[error("{path}: over {PLAIN_ENTRIES} entries, or folders {PLAIN_DEPTH} deep: not a dataset")]
    TooLarge { path: String },
    #[error("--folder {folder}: {kind}")]
    Unreadable { folder: String, kind: std::io::ErrorKind },
    #[error("--folder {0}: not a folder")]
    NotAFolder(String),
    #[error("give at least one --folder: the server reads nothing outside the folders named")]
    NoFolder,
}

/// How many entries of `path`'s own folder are the file `meta` describes.
fn names_beside(path: &Path, meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Some(folder) = path.parent() else { return 0 };
    let Ok(entries) = std::fs::read_dir(folder) else { return 0 };
    let same = |e: &std::fs::DirEntry| {
        std::fs::symlink_metadata(e.path()).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
    };
    entries.flatten().take(PLAIN_ENTRIES).filter(same).count() as u64
}

/// `path` with `.` and `..` taken as written, without asking the file system (links are
/// resolved afterwards, and checked again).
fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The most entries [`plain`] looks at in one dataset, and how deep.
const PLAIN_ENTRIES: usize = 200_000;
const PLAIN_DEPTH: usize = 8;

/// Checks that `path` (resolved, inside a served folder) is a regular file, or a folder of
/// regular files and folders: a link inside it could lead out of the served folders, and a FIFO
/// or a device would hang or flood a reader.
pub fn plain(given: &str, path: &Path) -> Result<(), FolderError> {
    let mut seen = 0;
    plain_entry(given, path, path, 0, &mut seen)
}

fn plain_entry(given: &str, root: &Path, path: &Path, depth: usize, seen: &mut usize) -> Result<(), FolderError> {
    let not_plain = |kind| FolderError::NotPlain {
        path: given.to_owned(),
        entry: path.strip_prefix(root).unwrap_or(path).display().to_string(),
        kind,
    };
    let meta = std::fs::symlink_metadata(path)
        .map_err(|_| FolderError::Missing { path: given.to_owned(), folders: String::new() })?;
    let kind = meta.file_type();
    *seen += 1;
    if *seen > PLAIN_ENTRIES || depth > PLAIN_DEPTH {
        return Err(FolderError::TooLarge { path: given.to_owned() });
    }
    if kind.is_file() {
        // A second name may be one outside the folders. What the tool writes has one, but for a
        // moment two in one folder (the publishing fallback's link, then unlink): names all in
        // the file's own folder are taken.
        return match std::os::unix::fs::MetadataExt::nlink(&meta) {
            1 => Ok(()),
            n if names_beside(path, &meta) == n => Ok(()),
            _ => Err(not_plain("a file with a name outside its folder (a hard link)")),
        };
    }
    if kind.is_symlink() {
        return Err(not_plain("a symbolic link"));
    }
    if !kind.is_dir() {
        return Err(not_plain("not a regular file (a FIFO, socket or device)"));
    }
    let entries = std::fs::read_dir(path).map_err(|_| not_plain("an unreadable folder"))?;
    for entry in entries {
        let entry = entry.map_err(|_| not_plain("an unreadable folder"))?;
        plain_entry(given, root, &entry.path(), depth + 1, seen)?;
    }
    Ok(())
}

/// The served folders, resolved once.
#[derive(Debug, Clone)]
pub struct Folders {
    roots: Vec<PathBuf>,
    /// Each folder as given, made absolute but not resolved: a client may name a path through
    /// the same links the command line did (`/home` a link to `/var/home`).
    given: Vec<PathBuf>,
}

impl Folders {
    /// The folders given on the command line, each resolved; a missing one is an error.
    pub fn new(folders: &[PathBuf]) -> Result<Folders, FolderError> {
        let mut roots = Vec::new();
        let mut given = Vec::new();
        for folder in folders {
            let root = std::fs::canonicalize(folder)
                .map_err(|e| FolderError::Unreadable { folder: folder.display().to_string(), kind: e.kind() })?;
            if !root.is_dir() {
                return Err(FolderError::NotAFolder(folder.display().to_string()));
            }
            roots.push(root);
            given.push(lexical(&std::path::absolute(folder).unwrap_or_else(|_| folder.clone())));
        }
        if roots.is_empty() {
            return Err(FolderError::NoFolder);
        }
        Ok(Folders { roots, given })
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
        // Written outside before anything is looked up: whether a path outside exists is not
        // the client's to learn.
        self.check_written(given, &joined)?;
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
        self.check_written(given, &joined)?;
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

    /// Whether `joined`, as written (`.` and `..` taken, links not followed), lies in a folder as
    /// resolved or as given.
    fn check_written(&self, given: &str, joined: &Path) -> Result<(), FolderError> {
        let written = lexical(joined);
        if self.roots.iter().chain(&self.given).any(|root| written.starts_with(root)) {
            Ok(())
        } else {
            Err(FolderError::Outside { path: given.to_owned(), folders: self.listed() })
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
    use std::os::unix::ffi::OsStringExt;

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
        // Through a link to the served folder, as the command line may have named it.
        std::os::unix::fs::symlink(&served, base.join("alias")).unwrap();
        let aliased = Folders::new(&[base.join("alias")]).unwrap();
        let through = base.join("alias/run");
        assert!(aliased.existing(through.to_str().unwrap()).unwrap().ends_with("served/run"));
        assert!(matches!(
            aliased.existing(base.join("alias/../secret").to_str().unwrap()),
            Err(FolderError::Outside { .. })
        ));
        for outside in ["../secret", "/etc", "link", "run/../../secret"] {
            assert!(matches!(folders.existing(outside), Err(FolderError::Outside { .. })), "{outside}");
        }
        assert!(matches!(folders.existing("nothing"), Err(FolderError::Missing { .. })));
        assert!(matches!(folders.existing(""), Err(FolderError::NotAPath(_))));
        assert!(folders.new_child("new-run").unwrap().ends_with("served/new-run"));
        assert!(matches!(folders.new_child("../new"), Err(FolderError::Outside { .. })));
        assert!(matches!(folders.new_child("link/x"), Err(FolderError::Outside { .. })));
        assert_eq!(datasets(&served, 3), vec![served.join("run")]);
        assert_eq!(Folders::new(&[]).unwrap_err(), FolderError::NoFolder);
        assert!(matches!(Folders::new(&[base.join("missing")]), Err(FolderError::Unreadable { .. })));
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn a_dataset_with_a_link_or_a_fifo_inside_is_refused() {
        let base = std::env::temp_dir().join(format!("rocprof-rs-mcp-plain-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let run = base.join("run");
        std::fs::create_dir_all(run.join("kernel_dispatch")).unwrap();
        std::fs::write(run.join("kernel_dispatch/a.parquet"), b"x").unwrap();
        assert_eq!(plain("run", &run), Ok(()));
        std::os::unix::fs::symlink("/etc/passwd", run.join("kernel_dispatch/b.parquet")).unwrap();
        let refused = plain("run", &run).unwrap_err();
        assert!(matches!(&refused, FolderError::NotPlain { kind: "a symbolic link", .. }), "{refused}");
        assert!(refused.to_string().contains("kernel_dispatch/b.parquet"), "{refused}");
        std::fs::remove_file(run.join("kernel_dispatch/b.parquet")).unwrap();
        std::fs::hard_link(run.join("kernel_dispatch/a.parquet"), base.join("elsewhere")).unwrap();
        assert!(matches!(plain("run", &run), Err(FolderError::NotPlain { .. })), "a hard link");
        std::fs::remove_file(base.join("elsewhere")).unwrap();
        // A second name beside the first (a publish interrupted between link and unlink) is taken.
        std::fs::hard_link(run.join("kernel_dispatch/a.parquet"), run.join("kernel_dispatch/.a.partial")).unwrap();
        assert_eq!(plain("run", &run), Ok(()));
        std::fs::remove_file(run.join("kernel_dispatch/.a.partial")).unwrap();
        let fifo = std::ffi::CString::new(run.join("kernel_dispatch/c.parquet").into_os_string().into_vec()).unwrap();
        // SAFETY: a NUL-terminated path that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert!(matches!(plain("run", &run), Err(FolderError::NotPlain { .. })));
        let _ = std::fs::remove_dir_all(&base);
    }
}
