//! `rocprof-rs avail --chip`: an NVIDIA chip's metrics and presets from CUPTI's host API, with no
//! GPU, through NVIDIA's pip wheel (installed by the test command from tests/verify/requirements.txt;
//! CI must have it, elsewhere the test is skipped without it).

mod common;

use std::process::Command;

#[test]
fn a_chip_s_metrics_and_presets_are_listed_without_a_gpu() {
    let Some(lib) = common::wheel_libcupti() else { return };
    let out = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .args(["avail", "--chip", "GH100", "--filter", "dram__bytes_", "--format", "json"])
        .env("ROCPROF_RS_CUPTI_LIBRARY", &lib)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["schema"], "rocprof-rs/avail-nvidia");
    let chip = &json["chips"][0];
    assert_eq!(chip["chip"], "GH100");
    let metrics: Vec<&str> = chip["metrics"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(metrics, ["dram__bytes_read.sum", "dram__bytes_write.sum"]);
    let read = &chip["metrics"][0];
    assert_eq!(
        (read["unit"].as_str(), read["hw_unit"].as_str(), read["passes"].as_u64()),
        (Some("byte"), Some("dram"), Some(1))
    );
    assert!(read["description"].as_str().unwrap().contains("read from DRAM"));
    let roofline = chip["presets"].as_array().unwrap().iter().find(|p| p["name"] == "roofline").unwrap();
    assert_eq!(roofline["complete"], true, "{roofline}");
    assert!(roofline["passes"].as_u64().unwrap() >= 2, "SASS and hardware metrics never share a pass");
    let out = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .args(["avail", "--chip", "NOSUCHCHIP"])
        .env("ROCPROF_RS_CUPTI_LIBRARY", &lib)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(common::stderr(&out).contains("NOSUCHCHIP"), "{}", common::stderr(&out));
}
