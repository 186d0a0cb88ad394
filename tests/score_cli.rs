//! `rocprof-rs score`: the fitness number from latencies, from seed 001's results JSON and
//! from a dataset, as JSON an optimiser reads.

mod common;

use std::process::{Command, Output};

use common::{scratch, stderr};

fn score(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).arg("score").args(args).output().unwrap()
}

fn json(output: &Output) -> serde_json::Value {
    assert!(output.status.success(), "{}", stderr(output));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn latencies_results_json_and_datasets_all_score() {
    let dir = scratch("score");
    // 101 repeats at exactly the target: median 20, no spread, so 0.5 + 0.5 × 0.5.
    let samples = dir.join("samples.json");
    std::fs::write(&samples, serde_json::to_string(&vec![20.0; 101]).unwrap()).unwrap();
    let f = json(&score(&[samples.to_str().unwrap(), "--target-us", "20", "--format", "json"]));
    assert_eq!(f["score"], 0.75);
    assert_eq!(f["repeats"], 101);
    let wrong = json(&score(&[samples.to_str().unwrap(), "--correctness", "0", "--format", "json"]));
    assert_eq!(wrong["score"], 0.0);
    // Faster scores higher.
    std::fs::write(&samples, serde_json::to_string(&vec![10.0; 101]).unwrap()).unwrap();
    assert!(json(&score(&[samples.to_str().unwrap(), "--format", "json"]))["score"].as_f64().unwrap() > 0.75);

    // Seed 001's results: full_pipeline 180 µs ± 4 over the 100 repeats assumed.
    let results = dir.join("results.json");
    std::fs::write(
        &results,
        r#"{"components": {"gemm": {"type": "hip", "mean_us": 170.0, "bytes_transferred": 1e8, "flops_estimated": 1e11}},
            "full_pipeline": {"mean_us": 180.0, "std_us": 4.0}}"#,
    )
    .unwrap();
    let f = json(&score(&[results.to_str().unwrap(), "--target-us", "150", "--format", "json"]));
    assert_eq!(f["median_us"], 180.0);
    assert!((f["standard_error_us"].as_f64().unwrap() - 1.2533 * 4.0 / 10.0).abs() < 1e-9);
    assert!(f["efficiency"].as_f64().is_some(), "the estimates give a roofline efficiency: {f}");

    // A dataset: the rocprofv3 sample run.
    let data = dir.join("data");
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rocprofv3");
    let output = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .args(["import", fixtures.to_str().unwrap(), "-o", data.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let text = score(&[data.to_str().unwrap(), "--kernel", "addition"]);
    assert!(String::from_utf8_lossy(&text.stdout).starts_with("score 0."), "{}", String::from_utf8_lossy(&text.stdout));
    let none = score(&[data.to_str().unwrap(), "--kernel", "no-such-kernel"]);
    assert!(stderr(&none).contains("no kernel dispatches match --kernel"), "{}", stderr(&none));
    assert_eq!(score(&[samples.to_str().unwrap(), "--correctness", "2"]).status.code(), Some(2));
    std::fs::remove_dir_all(dir).unwrap();
}
