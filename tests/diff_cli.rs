//! `rocprof-rs diff` on two imported runs: a 5 % regression of one kernel in 1000 noisy
//! dispatches is found and fails the command; the same kernel unchanged passes.

mod common;

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

use common::{scratch, stderr};

fn rocprof_rs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap()
}

/// A rocprofv3 kernel trace of 1000 `gemm` dispatches around `median_ns` (seeded log-normal
/// noise of 10 %, 2 % of them delayed up to 3×) and 200 steady `copy` dispatches, imported
/// into `out`.
fn run(dir: &Path, out: &str, seed: u64, median_ns: f64) {
    let mut state = seed;
    let mut uniform = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut csv = String::from(
        "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\
         \"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\
         \"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\
         \"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n",
    );
    let mut t = 1_000_000_000u64;
    for i in 0..1200u64 {
        let (name, ns) = if i % 6 == 5 {
            ("copy", 20_000.0)
        } else {
            let normal = (-2.0 * uniform().max(1e-300).ln()).sqrt() * (2.0 * std::f64::consts::PI * uniform()).cos();
            let mut ns = median_ns * (0.1 * normal).exp();
            if uniform() < 0.02 {
                ns *= 1.0 + 2.0 * uniform();
            }
            ("gemm", ns)
        };
        let end = t + ns as u64;
        let _ = writeln!(
            csv,
            "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,7,{},1,\"{name}\",{},{t},{end},0,0,8,0,16,256,1,1,65536,1,1",
            i + 1,
            i + 1
        );
        t = end + 1_000;
    }
    let input = dir.join(format!("{out}-csv"));
    std::fs::create_dir_all(&input).unwrap();
    std::fs::write(input.join("kernel_trace.csv"), csv).unwrap();
    let output = rocprof_rs(&["import", input.to_str().unwrap(), "-o", dir.join(out).to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn a_5_percent_regression_fails_the_diff_and_no_change_passes() {
    let dir = scratch("diff-cli");
    run(&dir, "a", 1, 50_000.0);
    run(&dir, "same", 2, 50_000.0);
    run(&dir, "slower", 3, 52_500.0);
    let path = |name: &str| dir.join(name).to_str().unwrap().to_owned();

    let output = rocprof_rs(&["diff", &path("a"), &path("slower"), "--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "a regression exits 1: {}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let gemm = report["kernels"].as_array().unwrap().iter().find(|k| k["name"] == "gemm").unwrap();
    assert_eq!(gemm["verdict"], "regressed");
    assert!((gemm["change"].as_f64().unwrap() - 0.05).abs() < 0.015, "{gemm}");
    let copy = report["kernels"].as_array().unwrap().iter().find(|k| k["name"] == "copy").unwrap();
    assert_eq!(copy["verdict"], "unchanged");

    let output = rocprof_rs(&["diff", &path("a"), &path("same")]);
    assert_eq!(output.status.code(), Some(0), "no change exits 0: {}", String::from_utf8_lossy(&output.stdout));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("0 regressed beyond 2.0%"), "{text}");

    // A looser threshold forgives the 5 %.
    let output = rocprof_rs(&["diff", &path("a"), &path("slower"), "--threshold", "10%", "--format", "csv"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("Kernel_Name,Verdict,Change"));

    let output = rocprof_rs(&["diff", &path("a"), dir.join("nowhere").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("nowhere: not a directory"));
    std::fs::remove_dir_all(dir).unwrap();
}
