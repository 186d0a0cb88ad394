//! The commands on a dataset rocprof-rs wrote on an H100 through CUPTI
//! (`tests/fixtures/cupti/rocprof-rs-13.0-h100/dataset`: `bench/gpu/capp.cu` under every trace
//! flag; `capp.stdout` is the application's own account).

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn dataset() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cupti/rocprof-rs-13.0-h100/dataset"))
}

fn rocprof_rs(args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", common::stderr(&output));
    output
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&rocprof_rs(args).stdout).unwrap()
}

#[test]
fn stats_sum_what_the_application_launched() {
    let dir = dataset().to_str().unwrap();
    let stats = json(&["stats", dir, "--format", "json"]);
    let sections = stats["sections"].as_array().unwrap();
    let section = |name: &str| {
        sections.iter().find(|s| s["section"] == name).unwrap_or_else(|| panic!("{name}"))["rows"]
            .as_array()
            .unwrap()
            .clone()
    };
    let kernels = section("kernel");
    let calls: u64 = kernels.iter().map(|k| k["calls"].as_u64().unwrap()).sum();
    assert_eq!(calls, 11);
    let k1 = kernels.iter().find(|k| k["name"] == "k1(float*)").unwrap();
    assert_eq!(k1["calls"], 8);
    let copies = section("memory_copy");
    assert!(copies.iter().any(|c| c["name"] == "MEMORY_SET" && c["calls"] == 2), "{copies:?}");
}

/// capp's kernels are 1 to 3 µs, without counters: k1's eight run back to back (six from a
/// graph), the three others once each after a gap of the host. None is launch-bound by its
/// duration: all are UNKNOWN, saying what to collect and what the trace said of their launches.
/// (The CUDA graph wording of a launch-bound kernel is bottleneck.rs's unit test's.)
#[test]
fn analyze_finds_the_h100_from_the_agent_row_and_judges_launches_by_idle_time() {
    let dir = dataset().to_str().unwrap();
    let report = json(&["analyze", dir, "--roofs", "datasheet", "--format", "json"]);
    let kernels = report["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 4);
    assert!(kernels.iter().all(|k| k["gpu"] == "h100_sxm5"), "{kernels:?}");
    for k in kernels {
        assert_eq!(k["diagnosis"]["class"], "UNKNOWN", "{}: {:#}", k["name"], k["diagnosis"]);
        let evidence = k["diagnosis"]["evidence"].to_string();
        assert!(evidence.contains("--preset roofline"), "{evidence}");
        let launches = if k["calls"] == 1 { "launches not judged from 1 gap" } else { "not launch-bound" };
        assert!(evidence.contains(launches), "{}: {evidence}", k["name"]);
    }
    let text = String::from_utf8(rocprof_rs(&["analyze", dir, "--roofs", "datasheet"]).stdout).unwrap();
    assert!(!text.contains("HIP graph"), "{text}");
}

#[test]
fn exports_take_nvidia_rows() {
    let dir = dataset().to_str().unwrap();
    let out = common::scratch("cupti-exports");
    let csv = out.join("csv");
    rocprof_rs(&["export", dir, "--format", "rocprofv3-csv", "-o", csv.to_str().unwrap()]);
    let trace = std::fs::read_dir(&csv)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with("_kernel_trace.csv"))
        .unwrap();
    assert_eq!(std::fs::read_to_string(trace.path()).unwrap().lines().count(), 1 + 11);
    let perfetto = out.join("trace.pftrace");
    let done = rocprof_rs(&["export", dir, "--format", "perfetto", "-o", perfetto.to_str().unwrap()]);
    // 11 kernels, 6 copies and sets, 4 markers, and the 10 launch calls with flows to them.
    let said = format!("{}{}", String::from_utf8_lossy(&done.stdout), common::stderr(&done));
    assert!(said.contains("(31 slices)"), "{said}");
}
