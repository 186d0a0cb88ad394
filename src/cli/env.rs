//! What the application's environment gains: the tool in `ROCP_TOOL_LIBRARIES` (and optionally
//! `LD_PRELOAD`) without losing the tools already there, and the configuration variables layered
//! environment < profile < options.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

/// How rocprofiler-sdk finds tool libraries.
pub const TOOL_LIBRARIES: &str = "ROCP_TOOL_LIBRARIES";
/// How the dynamic loader preloads libraries.
pub const LD_PRELOAD: &str = "LD_PRELOAD";

/// `ROCP_TOOL_LIBRARIES` with the tool added after what is there.
///
/// rocprofiler-sdk 1.0 splits the value on ':' and, when there is a ':' at all, keeps only the
/// entries that a ':' follows: the last one is silently dropped. A lone entry is safe; with
/// others, every entry (ours included) gets a ':' after it. Empty entries and an earlier copy of
/// the tool are dropped, so a nested `rocprof-rs run` does not load it twice.
pub fn tool_libraries(existing: Option<&OsStr>, tool: &Path) -> OsString {
    let tool = tool.as_os_str().as_bytes();
    let others = entries(existing, b":", tool);
    if others.is_empty() {
        return OsStr::from_bytes(tool).to_owned();
    }
    let mut value = Vec::new();
    for entry in others.iter().chain([&tool]) {
        value.extend_from_slice(entry);
        value.push(b':');
    }
    OsString::from_vec(value)
}

/// `LD_PRELOAD` with the tool first, keeping the rest; the loader accepts ' ' and ':' alike.
pub fn ld_preload(existing: Option<&OsStr>, tool: &Path) -> OsString {
    let tool = tool.as_os_str().as_bytes();
    let all: Vec<&[u8]> = [tool].into_iter().chain(entries(existing, b": ", tool)).collect();
    OsString::from_vec(all.join(&b':'))
}

/// Why `tool` cannot be named in these variables, if it cannot: neither has any quoting.
pub fn unlistable(tool: &Path, preload: bool) -> Option<&'static str> {
    let bytes = tool.as_os_str().as_bytes();
    if bytes.contains(&b':') {
        Some("its path contains ':', which separates entries in ROCP_TOOL_LIBRARIES")
    } else if preload && bytes.iter().any(u8::is_ascii_whitespace) {
        Some("its path contains white space, which separates entries in LD_PRELOAD")
    } else {
        None
    }
}

fn entries<'a>(value: Option<&'a OsStr>, separators: &[u8], skip: &[u8]) -> Vec<&'a [u8]> {
    let Some(value) = value else { return Vec::new() };
    value.as_bytes().split(|b| separators.contains(b)).filter(|e| !e.is_empty() && *e != skip).collect()
}

/// `base` with each layer's values written over it in turn.
pub fn layered(base: &BTreeMap<String, String>, layers: &[&BTreeMap<String, String>]) -> BTreeMap<String, String> {
    let mut merged = base.clone();
    for layer in layers {
        merged.extend(layer.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOL: &str = "/opt/rocprof-rs/lib/librocprof_rs.so";

    fn libraries(existing: Option<&str>) -> String {
        tool_libraries(existing.map(OsStr::new), Path::new(TOOL)).into_string().unwrap()
    }

    fn preload(existing: Option<&str>) -> String {
        ld_preload(existing.map(OsStr::new), Path::new(TOOL)).into_string().unwrap()
    }

    #[test]
    fn a_lone_tool_needs_no_separator() {
        assert_eq!(libraries(None), TOOL);
        assert_eq!(libraries(Some("")), TOOL);
        assert_eq!(libraries(Some(":")), TOOL);
        assert_eq!(libraries(Some(TOOL)), TOOL);
    }

    #[test]
    fn other_tools_are_kept_and_every_entry_is_followed_by_a_colon() {
        assert_eq!(libraries(Some("/x/a.so")), format!("/x/a.so:{TOOL}:"));
        assert_eq!(libraries(Some("/x/a.so:/y/b.so:")), format!("/x/a.so:/y/b.so:{TOOL}:"));
        assert_eq!(libraries(Some("/x/a.so::/y/b.so")), format!("/x/a.so:/y/b.so:{TOOL}:"));
        assert_eq!(libraries(Some(&format!("{TOOL}:/x/a.so:"))), format!("/x/a.so:{TOOL}:"));
    }

    #[test]
    fn the_sdk_parse_keeps_every_entry() {
        // rocprofiler-sdk 1.0's reading of a ':'-separated value: only entries a ':' ends.
        fn sdk_entries(value: &str) -> Vec<&str> {
            if !value.contains(':') {
                return vec![value];
            }
            let mut parts: Vec<&str> = value.split(':').collect();
            parts.pop();
            parts.into_iter().filter(|p| !p.is_empty()).collect()
        }
        assert_eq!(sdk_entries(&libraries(None)), [TOOL]);
        assert_eq!(sdk_entries(&libraries(Some("/x/a.so"))), ["/x/a.so", TOOL]);
        assert_eq!(sdk_entries(&libraries(Some("/x/a.so:/y/b.so"))), ["/x/a.so", "/y/b.so", TOOL]);
    }

    #[test]
    fn the_tool_is_preloaded_first_and_the_rest_kept() {
        assert_eq!(preload(None), TOOL);
        assert_eq!(preload(Some("")), TOOL);
        assert_eq!(preload(Some("/x/a.so")), format!("{TOOL}:/x/a.so"));
        assert_eq!(preload(Some("/x/a.so /y/b.so")), format!("{TOOL}:/x/a.so:/y/b.so"));
        assert_eq!(preload(Some("/x/a.so:/y/b.so")), format!("{TOOL}:/x/a.so:/y/b.so"));
        assert_eq!(preload(Some(&format!("/x/a.so {TOOL}"))), format!("{TOOL}:/x/a.so"));
    }

    #[test]
    fn paths_the_variables_cannot_hold_are_refused() {
        assert_eq!(unlistable(Path::new(TOOL), true), None);
        assert!(unlistable(Path::new("/a:b/librocprof_rs.so"), false).is_some());
        assert_eq!(unlistable(Path::new("/a b/librocprof_rs.so"), false), None);
        assert!(unlistable(Path::new("/a b/librocprof_rs.so"), true).is_some());
    }

    #[test]
    fn later_layers_win() {
        let map = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
        };
        let env = map(&[("A", "env"), ("B", "env"), ("C", "env")]);
        let profile = map(&[("B", "profile"), ("C", "profile")]);
        let flags = map(&[("C", "flag")]);
        assert_eq!(layered(&env, &[&profile, &flags]), map(&[("A", "env"), ("B", "profile"), ("C", "flag")]));
    }
}
