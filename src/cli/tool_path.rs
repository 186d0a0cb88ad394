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

/// The absolute path of the tool: `explicit` if given, else the first candidate that exists.
/// The error says where it looked.
pub fn locate(explicit: Option<&Path>, exe: &Path) -> Result<PathBuf, String> {
    if let Some(path) = explicit {
        return if path.is_file() {
            std::path::absolute(path).map_err(|e| format!("--tool {}: {e}", path.display()))
        } else {
            Err(format!("--tool {}: no such file", path.display()))
        };
    }
    let places = candidates(exe);
    match places.iter().find(|p| p.is_file()) {
        Some(found) => std::fs::canonicalize(found).map_err(|e| format!("{}: {e}", found.display())),
        None => Err(format!(
            "cannot find the tool library {LIBRARY}: looked in {}; pass --tool PATH",
            places.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        )),
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
        let error = locate(None, Path::new("/nonexistent/bin/rocprof-rs")).unwrap_err();
        assert!(error.contains("/nonexistent/bin/librocprof_rs.so"), "{error}");
        assert!(error.contains("/nonexistent/bin/../lib/librocprof_rs.so"), "{error}");
        assert!(error.contains("--tool"), "{error}");
        let error = locate(Some(Path::new("/nonexistent/x.so")), Path::new("/bin/rocprof-rs")).unwrap_err();
        assert!(error.contains("/nonexistent/x.so"), "{error}");
    }

    #[test]
    fn an_explicit_tool_is_made_absolute() {
        let exe = std::env::current_exe().unwrap();
        let found = locate(Some(&exe), Path::new("/bin/rocprof-rs")).unwrap();
        assert!(found.is_absolute() && found.is_file());
    }
}
