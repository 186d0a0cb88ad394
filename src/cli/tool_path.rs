//! Where the tool library is. It ships beside the command, so it is found from the command's own
//! path rather than from the environment: the `rocprof-rs` that runs is the one whose tool loads.

use std::path::{Path, PathBuf};

/// The library's file name.
pub const LIBRARY: &str = "librocprof_rs.so";

/// The places to look for a command at `exe`: beside it (`cargo build`, a tarball), in
/// `../lib` (an installed prefix), and in cargo's `target/<profile>`, also `deps/` (where
/// `cargo test` leaves the library without copying it up), or one level up for a test binary.
pub fn candidates(exe: &Path) -> Vec<PathBuf> {
    let Some(dir) = exe.parent() else { return Vec::new() };
    let mut places = vec![dir.join(LIBRARY), dir.join("..").join("lib").join(LIBRARY)];
    if dir.file_name().is_some_and(|name| name == "deps")
        && let Some(up) = dir.parent()
    {
        places.push(up.join(LIBRARY));
    } else {
        places.push(dir.join("deps").join(LIBRARY));
    }
    places
}

/// Why the tool library was not found.
#[derive(Debug, thiserror::Error)]
pub enum ToolPathError {
    /// `--tool` names a file whose absolute path cannot be had.
    #[error("--tool {path}: {source}")]
    Unreadable { path: String, source: std::io::Error },
    /// `--tool` names nothing.
    #[error("--tool {0}: no such file")]
    Missing(String),
    /// The library found cannot be resolved.
    #[error("{path}: {source}")]
    Unresolvable { path: String, source: std::io::Error },
    /// No candidate exists; the places looked in.
    #[error("cannot find the tool library {LIBRARY}: looked in {0}; pass --tool PATH")]
    NotFound(String),
}

/// The absolute path of the tool: `explicit` if given, else the first candidate that exists.
/// The error says where it looked.
pub fn locate(explicit: Option<&Path>, exe: &Path) -> Result<PathBuf, ToolPathError> {
    if let Some(path) = explicit {
        return if path.is_file() {
            std::path::absolute(path)
                .map_err(|source| ToolPathError::Unreadable { path: path.display().to_string(), source })
        } else {
            Err(ToolPathError::Missing(path.display().to_string()))
        };
    }
    let places = candidates(exe);
    match places.iter().find(|p| p.is_file()) {
        Some(found) => std::fs::canonicalize(found)
            .map_err(|source| ToolPathError::Unresolvable { path: found.display().to_string(), source }),
        None => {
            Err(ToolPathError::NotFound(places.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installed_layouts_are_searched_in_order() {
        assert_eq!(
            candidates(Path::new("/opt/r/bin/rocprof-rs")),
            [
                PathBuf::from("/opt/r/bin/librocprof_rs.so"),
                PathBuf::from("/opt/r/bin/../lib/librocprof_rs.so"),
                PathBuf::from("/opt/r/bin/deps/librocprof_rs.so"),
            ]
        );
        assert_eq!(
            candidates(Path::new("/t/debug/deps/run-1234")),
            [
                PathBuf::from("/t/debug/deps/librocprof_rs.so"),
                PathBuf::from("/t/debug/deps/../lib/librocprof_rs.so"),
                PathBuf::from("/t/debug/librocprof_rs.so"),
            ]
        );
    }

    #[test]
    fn a_missing_library_names_every_place_searched() {
        let error = locate(None, Path::new("/nonexistent/bin/rocprof-rs")).unwrap_err().to_string();
        assert!(error.contains("/nonexistent/bin/librocprof_rs.so"), "{error}");
        assert!(error.contains("/nonexistent/bin/../lib/librocprof_rs.so"), "{error}");
        assert!(error.contains("--tool"), "{error}");
        let error = locate(Some(Path::new("/nonexistent/x.so")), Path::new("/bin/rocprof-rs")).unwrap_err().to_string();
        assert!(error.contains("/nonexistent/x.so"), "{error}");
    }

    #[test]
    fn an_explicit_tool_is_made_absolute() {
        let exe = std::env::current_exe().unwrap();
        let found = locate(Some(&exe), Path::new("/bin/rocprof-rs")).unwrap();
        assert!(found.is_absolute() && found.is_file());
    }
}
