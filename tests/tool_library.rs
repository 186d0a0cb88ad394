//! The tool library must load on machines without ROCm and must not race rocprofiler-register's
//! search for `rocprofiler_configure` by linking the SDK: no ROCm library may be a `DT_NEEDED`.

use std::path::PathBuf;
use std::process::Command;

/// `cargo test` builds the cdylib next to the test binaries (`target/<profile>/deps`); `cargo
/// build` puts it one level up.
fn tool_library() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("target/<profile>/deps");
    [deps.join("librocprof_rs.so"), deps.parent().expect("target/<profile>").join("librocprof_rs.so")]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("librocprof_rs.so not found next to {}", exe.display()))
}

fn needed(library: &PathBuf) -> Vec<String> {
    let out = Command::new("readelf").arg("-d").arg(library).output().expect("readelf (binutils) is installed");
    assert!(out.status.success(), "readelf -d {} failed: {}", library.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|line| line.contains("(NEEDED)"))
        .filter_map(|line| Some(line.split_once('[')?.1.split_once(']')?.0.to_owned()))
        .collect()
}

#[test]
fn the_tool_library_needs_no_rocm_library() {
    let library = tool_library();
    let needed = needed(&library);
    assert!(needed.iter().any(|n| n.starts_with("libc.so")), "readelf output parsed: {needed:?}");
    let rocm = ["rocprofiler", "amdhip", "hiprtc", "hsa-runtime", "hsakmt", "roctx", "roctracer", "rocm", "amd_comgr"];
    let offending: Vec<&String> = needed.iter().filter(|n| rocm.iter().any(|r| n.contains(r))).collect();
    assert!(offending.is_empty(), "{} links ROCm: {offending:?} (all of DT_NEEDED: {needed:?})", library.display());
}
