//! A hostile management library: counts no machine has, and fills that claim more than the room
//! they were given. The device sampler must turn itself off with one line naming the library,
//! the call and the value; the application keeps its exit code and the trace is written whole.
//! Before, 0xFFFFFFFF sockets or processors from AMD SMI sized a 32 GiB allocation and the
//! application aborted (134).

use std::time::Duration;

use super::*;

const DISPATCHES: u64 = 20_000;

/// The application sampled every 2 ms through the simulated AMD SMI, told by
/// `ROCPROF_SIM_AMDSMI_FAIL` to be `hostile`.
fn sampled_by_a_hostile_library(dir: &Path, hostile: &str) -> Output {
    let mut cmd = app(dir, DISPATCHES);
    cmd.args(["--no-truth", "--exit-code", "7"])
        .env("ROCPROF_RS_DEVICE_SAMPLE_MS", "2")
        .env("ROCPROF_RS_DEVICE_SAMPLE_LIBRARY", built("libamd_smi.so"))
        .env("ROCPROF_SIM_AMDSMI_FAIL", hostile);
    finish_within(&mut cmd, Duration::from_secs(60))
}

/// Kernel rows `stats` counts in `dir`'s dataset.
fn kernel_rows(dir: &Path) -> u64 {
    let stats = cli().args(["stats", "--format", "json"]).arg(dir).output().unwrap();
    assert!(stats.status.success(), "the trace must be readable: {}", stderr(&stats));
    let doc: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    let kernels =
        doc["sections"].as_array().unwrap().iter().find(|s| s["section"] == "kernel").expect("a kernel section");
    kernels["rows"].as_array().expect("rows").iter().map(|row| row["calls"].as_u64().unwrap()).sum()
}

fn assert_sampler_off_and_run_unharmed(name: &str, hostile: &str, call: &str, value: &str) {
    let dir = scratch(name);
    let output = sampled_by_a_hostile_library(&dir, hostile);
    assert_eq!(output.status.code(), Some(7), "the exit code must be the application's: {}", stderr(&output));
    let lines: Vec<String> = tool_lines(&output).into_iter().filter(|l| l.contains("device sampler")).collect();
    assert_eq!(lines.len(), 1, "one line about the sampler: {}", stderr(&output));
    for expect in ["AMD SMI", call, value, "tracing goes on"] {
        assert!(lines[0].contains(expect), "{:?} should name {expect:?}", lines[0]);
    }
    assert_eq!(kernel_rows(&dir.join("out")), DISPATCHES, "the trace is whole");
}

#[test]
fn a_library_reporting_four_billion_sockets_costs_the_samples_alone() {
    let value = u32::MAX.to_string();
    assert_sampler_off_and_run_unharmed("hostile-amdsmi-sockets", "sockets", "amdsmi_get_socket_handles", &value);
}

#[test]
fn a_library_reporting_four_billion_processors_costs_the_samples_alone() {
    let value = u32::MAX.to_string();
    assert_sampler_off_and_run_unharmed(
        "hostile-amdsmi-processors",
        "processors",
        "amdsmi_get_processor_handles",
        &value,
    );
}

#[test]
fn a_fill_claiming_more_than_its_room_costs_the_samples_alone() {
    // The socket fill is the first: one socket asked for, two claimed.
    assert_sampler_off_and_run_unharmed("hostile-amdsmi-overfill", "overfill", "amdsmi_get_socket_handles", "2");
}
