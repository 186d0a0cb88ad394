//! `analyze` on counters rocprof-rs collected on an H100 (`bash bench/gpu/run.sh counters`,
//! tests/fixtures/cupti-counters/h100): each known kernel of `bench/gpu/counters` in the class
//! worked out by hand, with the evidence that decides it, from a counted run with the times of an
//! uncounted one (`--timings`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cupti-counters/h100").join(name)
}

fn analyze(counted: &str, timed: &str) -> Vec<serde_json::Value> {
    let (counted, timed) = (fixture(counted), fixture(timed));
    let out = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .args(["analyze", counted.to_str().unwrap(), "--timings", timed.to_str().unwrap(), "--gpu", "h100_sxm5"])
        .args(["--roofs", "datasheet"])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["kernels"].as_array().unwrap().clone()
}

fn find<'a>(kernels: &'a [serde_json::Value], prefix: &str) -> &'a serde_json::Value {
    kernels.iter().find(|k| k["name"].as_str().unwrap().starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}"))
}

fn class(k: &serde_json::Value) -> (&str, String) {
    let d = &k["diagnosis"];
    let evidence: Vec<&str> = d["evidence"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
    (d["class"].as_str().unwrap(), evidence.join("; "))
}

#[test]
fn the_known_kernels_get_the_classes_worked_out_by_hand() {
    let kernels = analyze("known_counted", "known_timed");
    let (copy, evidence) = class(find(&kernels, "copy("));
    assert_eq!(copy, "MEMORY", "{evidence}");
    assert!(evidence.contains("zero FLOPs measured") && evidence.contains("dram"), "{evidence}");
    let dram = find(&kernels, "copy(")["bandwidth"].as_array().unwrap().iter().find(|b| b["level"] == "dram").unwrap()
        ["share"]
        .as_f64()
        .unwrap();
    assert!(dram >= 0.8, "the copy at {dram} of the DRAM roof");
    let (fma, evidence) = class(find(&kernels, "fma("));
    assert_eq!(fma, "COMPUTE", "{evidence}");
    assert!(evidence.starts_with("fp32 vector: compute-bound"), "{evidence}");
    let (shared, evidence) = class(find(&kernels, "shared_conf("));
    assert_eq!(shared, "LDS", "{evidence}");
    assert!(evidence.contains("bank conflicts"), "{evidence}");
    // Its L2 bytes reach 57% of the datasheet's L2 bandwidth: under 60% of every roof, so
    // LATENCY, with the L2 roof that binds it beside. Against the L2 bandwidth an H100 really
    // sustains (issue 41's measured roofs) it is near its roof; until then the hand's MEMORY
    // is not this fixture's answer.
    let l2_kernel = find(&kernels, "l2_reuse(");
    let (l2, evidence) = class(l2_kernel);
    assert_eq!(l2, "LATENCY", "{evidence}");
    assert!(evidence.contains("under 60% of every roof it has: l2 57%"), "{evidence}");
    let also = l2_kernel["diagnosis"]["also"].as_array().unwrap();
    assert!(also.iter().any(|f| f["class"] == "MEMORY" && f["evidence"].to_string().contains("against l2")));
    let (tiny, evidence) = class(find(&kernels, "tiny("));
    assert_eq!(tiny, "LAUNCH", "{evidence}");
    assert!(evidence.contains("idles a median"), "{evidence}");
    assert!(!kernels.iter().any(|k| k["name"] == "WaitNs"), "the range profiler's own kernel is no row");
}

#[test]
fn a_bf16_gemm_is_compute_bound_on_the_tensor_roof() {
    let kernels = analyze("gemm_counted", "gemm_timed");
    let gemm = find(&kernels, "nvjet");
    let (class, evidence) = class(gemm);
    assert_eq!(class, "COMPUTE", "{evidence}");
    assert!(evidence.starts_with("bf16 matrix: compute-bound"), "{evidence}");
    let ops: f64 = gemm["work"]["ops"].as_array().unwrap().iter().map(|o| o["ops"].as_f64().unwrap()).sum();
    assert!((ops - 2.0 * 4096f64.powi(3)).abs() / ops < 0.01, "{ops} FLOPs a GEMM, 2 x 4096^3 by construction");
}

/// The launches of SASS passes ran with kernel activity off (their SASS metrics would read 0
/// beside it): the run metadata counts them, and `stats` says its calls leave them out.
#[test]
fn stats_says_which_counted_launches_have_no_kernel_row() {
    let counted = fixture("known_counted");
    let out =
        Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(["stats", counted.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let said = common::stderr(&out);
    assert!(said.contains("105 counted launches ran with kernel activity off"), "{said}");
}
