//! Where the tool library is. It ships beside the command, so it is found from the command's own
//! path rather than from the environment: the `rocprof-rs` that runs is the one whose tool loads.
//! A command installed alone (`cargo install`) carries the library's bytes and writes them to a
//! private cache folder once ([`super::embedded`]).

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
    /// No candidate exists and the embedded copy cannot be had; the places looked in.
    #[error("cannot find the tool library {LIBRARY}: looked in {places}, and {embedded}; pass --tool PATH")]
    NotFound { places: String, embedded: super::embedded::EmbeddedError },
}

/// Where the library `run` injects comes from, as `doctor` says it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ToolChoice {
    /// The library, or where the embedded copy is (or will be) written.
    pub path: Option<PathBuf>,
    /// `beside the command`, `installed prefix`, `cargo target folder`, `embedded` or `none`.
    pub source: &'static str,
    /// For the embedded copy: whether it is already written; else why nothing is found.
    pub note: String,
}

/// What `run` would inject, without writing anything.
pub fn choice(exe: &Path) -> ToolChoice {
    let sources = ["beside the command", "installed prefix", "cargo target folder"];
    let places = candidates(exe);
    if let Some((found, source)) = places.iter().zip(sources).find(|(p, _)| p.is_file()) {
        let path = std::fs::canonicalize(found).unwrap_or_else(|_| found.clone());
        return ToolChoice { path: Some(path), source, note: String::new() };
    }
    let Some(bytes) = super::embedded::bytes() else {
        return ToolChoice { path: None, source: "none", note: "this rocprof-rs carries no tool library".into() };
    };
    match super::embedded::cache_dir() {
        Ok(dir) => {
            let path = super::embedded::cached_path(&dir, bytes);
            let note = if super::embedded::cached_copy_is(&path, bytes) {
                "the embedded copy, already written".to_owned()
            } else {
                format!("the embedded copy ({} bytes), written there on the first run", bytes.len())
            };
            ToolChoice { path: Some(path), source: "embedded", note }
        }
        Err(e) => ToolChoice { path: None, source: "embedded", note: e.to_string() },
    }
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
        None => super::embedded::extract().map_err(|embedded| ToolPathError::NotFound {
            places: places.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
            embedded,
        }),
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
        assert!(error.contains("--tool") && error.contains("carries no tool library"), "{error}");
        assert_eq!(choice(Path::new("/nonexistent/bin/rocprof-rs")).source, "none");
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
