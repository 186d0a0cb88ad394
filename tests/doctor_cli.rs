//! `rocprof-rs doctor` runs anywhere and names what is missing. The child gets an environment
//! that points at no ROCm and no CUDA, so the test means the same on any machine.

use std::process::{Command, Output};

fn doctor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .arg("doctor")
        .args(args)
        .env("ROCM_PATH", "/nonexistent/rocm")
        .env("CUDA_HOME", "/nonexistent/cuda")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("the rocprof-rs binary runs")
}

#[test]
fn json_names_every_component_and_why_the_sdk_is_unusable() {
    let out = doctor(&["--json"]);
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("doctor --json prints JSON");

    let names: Vec<&str> =
        report["components"].as_array().expect("components").iter().filter_map(|c| c["name"].as_str()).collect();
    for expected in [
        "librocprofiler-sdk",
        "libamdhip64",
        "rocprofv3",
        "rocprof",
        "rocprof-compute",
        "rocprof-sys",
        "rocminfo",
        "amd-smi",
    ] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    let cuda: Vec<&str> =
        report["cuda"]["components"].as_array().expect("cuda").iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(cuda, ["libcuda", "libcupti", "nvidia-smi"]);

    let sdk = &report["sdk"];
    if sdk["loadable"] == false {
        let error = sdk["error"].as_str().expect("an unloadable SDK says why");
        assert!(error.contains("librocprofiler-sdk.so.1"), "{error}");
    } else {
        assert!(sdk["version"].as_str().expect("a version").starts_with('1'));
    }
    assert!(!report["next_steps"].as_array().expect("next_steps").is_empty());
    assert_eq!(report["tool"]["sdk_abi"], "1.x (ROCm 7.0 and later)");
}

#[test]
fn text_says_what_is_missing_and_what_to_do() {
    let out = doctor(&[]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    for section in ["ROCm", "Loaded into this process", "AMD GPUs", "NVIDIA (CUPTI backend)", "Next steps"] {
        assert!(text.contains(section), "no {section:?} section in:\n{text}");
    }
    let loaded = text.split("Loaded into this process").nth(1).expect("the loaded section");
    let sdk_line = loaded.lines().find(|l| l.contains("rocprofiler-sdk")).expect("a line about the SDK");
    let verdict = sdk_line.split_whitespace().next();
    assert!(matches!(verdict, Some("missing" | "ok")), "{sdk_line}");
}
