//! `rocprof-rs analyze`: seed 001's results JSON as it stands, and a SIMULATED traced run with
//! the roofline preset on two GPUs; the SVG charts' structure is checked by
//! `tests/verify/roofline_svg_check.py`.

mod common;

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

use common::{python, scratch, stderr};

fn rocprof_rs(args: &[&OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap()
}

fn analyze(path: &Path, more: &[&str]) -> Output {
    let mut args: Vec<&OsStr> = vec![OsStr::new("analyze"), path.as_os_str()];
    args.extend(more.iter().map(OsStr::new));
    rocprof_rs(&args)
}

const SEED_RESULTS: &str = r#"{
  "config": {"batch": 8, "heads": 16},
  "components": {
    "attention": {"type": "triton", "mean_us": 120.0, "std_us": 3.0, "min_us": 110.0, "max_us": 130.0,
                  "p50_us": 119.0, "p95_us": 126.0, "p99_us": 129.0,
                  "bytes_transferred": 200000000, "flops_estimated": 100000000000},
    "layernorm": {"type": "hip", "mean_us": 40.0, "std_us": 1.0, "bytes_transferred": 160000000, "flops_estimated": 80000000},
    "bias_add": {"type": "torch", "mean_us": 4.0, "std_us": 0.2, "bytes_transferred": 4000000, "flops_estimated": 1000000}
  },
  "full_pipeline": {"mean_us": 180.0, "std_us": 4.0}
}"#;

fn kernel<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["kernels"].as_array().unwrap().iter().find(|k| k["name"] == name).unwrap()
}

/// Against MI300X (5.3 TB/s, FP16 matrix 1307 TFLOP/s): attention at 500 FLOP/B and 833
/// TFLOP/s is compute-bound; layernorm at 0.5 FLOP/B is memory-bound at 75 % of the HBM roof;
/// bias_add at 0.25 FLOP/B reaches 19 % of its HBM roof, under 60 % of every roof: LATENCY,
/// not by its 4 µs (a results JSON does not say the gap before each component, so launches are
/// not judged, and it has no PC samples to tell latency from issue).
#[test]
fn seed_results_are_classified_and_charted() {
    let dir = scratch("analyze-seed");
    let results = dir.join("results.json");
    std::fs::write(&results, SEED_RESULTS).unwrap();
    let svg = dir.join("roofline.svg");
    let output = analyze(&results, &["--format", "json", "--svg", svg.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["devices"][0]["gpu"], "mi300x");
    let attention = kernel(&report, "attention");
    assert_eq!(attention["diagnosis"]["class"], "COMPUTE");
    assert!((attention["points"][0]["achieved_tflops"].as_f64().unwrap() - 833.33).abs() < 0.01);
    let layernorm = kernel(&report, "layernorm");
    assert_eq!(layernorm["diagnosis"]["class"], "MEMORY");
    let dram = &layernorm["points"][0]["levels"][0];
    assert_eq!(dram["level"], "dram");
    assert!((dram["intensity"].as_f64().unwrap() - 0.5).abs() < 1e-9);
    assert!((layernorm["points"][0]["efficiency"].as_f64().unwrap() - 2.0 / 2.65).abs() < 1e-3);
    let bias = kernel(&report, "bias_add");
    assert_eq!(bias["diagnosis"]["class"], "LATENCY");
    let evidence = bias["diagnosis"]["evidence"].to_string();
    assert!(evidence.contains("under 60% of every roof it has: dram 19%"), "{evidence}");
    assert!(evidence.contains("launches not judged") && evidence.contains("results JSON"), "{evidence}");
    // Without PC samples nothing says its warps wait, so no latency advice; fusion rests on its
    // (estimated) DRAM bytes.
    let recs = bias["diagnosis"]["recommendations"].as_array().unwrap();
    assert!(recs.iter().all(|r| r["class"] != "LATENCY"), "{recs:#?}");
    assert_eq!(recs[0]["action"], "Fuse it with its producer or consumer to keep data on chip");
    let notes = report["notes"].to_string();
    assert!(notes.contains("the full pipeline takes 16.0 µs (9% of its 180.0 µs) beyond its 3 components"), "{notes}");
    assert!((kernel(&report, "attention")["share"].as_f64().unwrap() - 120.0 / 164.0).abs() < 1e-9);
    python(
        "roofline_svg_check.py",
        &[svg.as_os_str(), OsStr::new("3"), OsStr::new("COMPUTE"), OsStr::new("MEMORY"), OsStr::new("LATENCY")],
    );

    let only = analyze(&results, &["--kernel", "norm$", "--format", "csv"]);
    let text = String::from_utf8_lossy(&only.stdout);
    assert!(text.starts_with("Kernel_Name,Pid,Agent_Id,GPU,Calls"), "{text}");
    assert_eq!(text.lines().count(), 2, "the header and layernorm: {text}");
    assert!(text.contains("\"layernorm\""));
    std::fs::remove_dir_all(dir).unwrap();
}

/// SIMULATED: the simulator's MI300X-like and MI210-like agents, counters of the roofline
/// preset on every dispatch.
#[test]
fn a_traced_run_with_the_roofline_preset_is_analysed_on_both_gpus() {
    let dir = scratch("analyze-traced");
    let traced = dir.join("traced");
    common::traced_run(&traced, 3_000, "kernel", &[], &[("ROCPROF_RS_COUNTER_PRESET", "roofline")]);
    let svg = dir.join("roofline.svg");
    let output = analyze(&traced, &["--format", "json", "--svg", svg.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let gpus: Vec<&str> = report["devices"].as_array().unwrap().iter().map(|d| d["gpu"].as_str().unwrap()).collect();
    assert_eq!(gpus, ["mi210", "mi300x"]);
    let kernels = report["kernels"].as_array().unwrap();
    assert!(kernels.len() > 10);
    for k in kernels {
        assert!(k["work"]["ops"].as_array().is_some_and(|o| !o.is_empty()), "{}: no FLOPs", k["name"]);
        assert!(!k["points"].as_array().unwrap().is_empty(), "{}: no roofline point", k["name"]);
        assert!(k["occupancy"]["waves_per_simd"].as_u64().is_some(), "{}: no occupancy", k["name"]);
        assert_ne!(k["diagnosis"]["class"], "UNKNOWN");
    }
    let shares: f64 = kernels.iter().map(|k| k["share"].as_f64().unwrap()).sum();
    assert!((shares - 1.0).abs() < 1e-9);
    for gpu in gpus {
        let on: usize = kernels.iter().filter(|k| k["gpu"] == gpu).count();
        let file = dir.join(format!("roofline-{gpu}.svg"));
        python("roofline_svg_check.py", &[file.as_os_str(), OsStr::new(&on.to_string())]);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Launch-boundness from the trace (issue 22): a rocprofv3 kernel trace of one MI300X with
/// a 2 µs kernel whose queue and GPU sit idle 8 µs before each dispatch (a loop that synchronizes
/// each time), then 13 µs kernels back to back, then a 2 µs kernel with the same 8 µs gaps on
/// its queue while a long kernel on another queue keeps the GPU busy. No counters.
#[test]
fn launch_bound_is_the_idle_gpu_before_each_dispatch_not_a_short_one() {
    let dir = scratch("analyze-launches");
    let csv = dir.join("rocprofv3");
    std::fs::create_dir_all(&csv).unwrap();
    let mut text = String::from(
        "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\
         \"Start_Timestamp\",\"End_Timestamp\",\"Private_Segment_Size\",\"Group_Segment_Size\",\"Workgroup_Size_X\",\
         \"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n",
    );
    let mut id = 0;
    let mut dispatch = |text: &mut String, queue: u32, kernel: &str, start: u64, ns: u64| {
        id += 1;
        text.push_str(&format!(
            "\"KERNEL_DISPATCH\",8,{queue},7,{id},{queue},\"{kernel}\",{id},{start},{},0,0,256,1,1,65536,1,1\n",
            start + ns
        ));
    };
    let t0 = 1_000_000_000_000;
    for i in 0..10 {
        dispatch(&mut text, 1, "tiny", t0 + i * 10_000, 2_000);
    }
    let t1 = t0 + 1_000_000;
    for i in 0..10 {
        dispatch(&mut text, 2, "conv", t1 + i * 13_000, 13_000);
    }
    let t2 = t1 + 1_000_000;
    dispatch(&mut text, 4, "long", t2, 100_000);
    for i in 0..5 {
        dispatch(&mut text, 3, "waiter", t2 + 1_000 + i * 10_000, 2_000);
    }
    std::fs::write(csv.join("7_kernel_trace.csv"), text).unwrap();
    let out = dir.join("dataset");
    let output = rocprof_rs(&[OsStr::new("import"), csv.as_os_str(), OsStr::new("-o"), out.as_os_str()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let output = analyze(&out, &["--gpu", "mi300x", "--format", "json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();

    let tiny = &kernel(&report, "tiny")["diagnosis"];
    assert_eq!(tiny["class"], "LAUNCH", "{tiny:#}");
    assert_eq!(
        tiny["evidence"][0],
        "its GPU idles a median 8.0 µs before each 2.0 µs dispatch (9 of 10 dispatches follow another on its queue): \
         80% of each launch waits on the host"
    );
    assert_eq!(tiny["recommendations"][0]["action"], "Fuse it with the kernels around it");
    assert!((tiny["recommendations"][0]["expected_gain"].as_f64().unwrap() - 0.8).abs() < 1e-9);

    for name in ["conv", "waiter"] {
        let d = &kernel(&report, name)["diagnosis"];
        assert_eq!(d["class"], "UNKNOWN", "{name}: {d:#}");
        let evidence = d["evidence"].to_string();
        assert!(evidence.contains("--preset roofline"), "{name}: {evidence}");
        assert!(evidence.contains("not launch-bound: its GPU idles a median 0.0 µs"), "{name}: {evidence}");
    }
    let long = kernel(&report, "long")["diagnosis"]["evidence"].to_string();
    assert!(
        long.contains("launches not judged") && long.contains("its one dispatch is the first on its queue"),
        "{long}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_input_is_named() {
    let dir = scratch("analyze-bad");
    let results = dir.join("results.json");
    std::fs::write(&results, SEED_RESULTS.replace("\"mean_us\": 40.0", "\"mean_us\": \"forty\"")).unwrap();
    let output = analyze(&results, &[]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("components.layernorm.mean_us"), "{}", stderr(&output));
    std::fs::write(&results, SEED_RESULTS).unwrap();
    let output = analyze(&results, &["--gpu", "mi999"]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("--gpu mi999: not in the database (mi300x"), "{}", stderr(&output));
    let output = analyze(&results, &["--kernel", "("]);
    assert_eq!(output.status.code(), Some(2));
    let output = analyze(&dir.join("nowhere"), &[]);
    assert!(
        stderr(&output).contains("nowhere: neither a dataset directory nor a results JSON file"),
        "{}",
        stderr(&output)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Real rocprof v1 counters (FETCH_SIZE, WRITE_SIZE) from one run and timestamps from another
/// of the same program (tests/fixtures/rocprof-v1-pmc): the Laplacian moves about 1170 GB/s,
/// 71 % of an MI250 GCD's HBM, as the hand computation in the fixture's README says.
#[test]
fn a_rocprof_v1_pmc_run_gives_a_plausible_bandwidth() {
    let dir = scratch("analyze-v1-pmc");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rocprof-v1-pmc");
    for (file, out) in [("data_movement.csv", "counters"), ("results.csv", "trace")] {
        let output = rocprof_rs(&[
            OsStr::new("import"),
            fixtures.join(file).as_os_str(),
            OsStr::new("-o"),
            dir.join(out).as_os_str(),
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let timings = dir.join("trace");
    let output = analyze(
        &dir.join("counters"),
        &["--timings", timings.to_str().unwrap(), "--gpu", "mi250x", "--format", "json"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let laplacian = kernel(&report, "laplacian_kernel");
    assert_eq!(laplacian["calls"], 1001);
    let dram = laplacian["bandwidth"].as_array().unwrap().iter().find(|b| b["level"] == "dram").unwrap();
    let gbps = dram["gbps"].as_f64().unwrap();
    assert!((1164.0..=1177.0).contains(&gbps), "{gbps} GB/s");
    assert!((dram["share"].as_f64().unwrap() - gbps / 1638.4).abs() < 1e-9);
    assert_eq!(laplacian["diagnosis"]["class"], "MEMORY");
    assert!(
        report["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().starts_with("dispatch times of 4 of 4 kernels"))
    );
    std::fs::remove_dir_all(dir).unwrap();
}
