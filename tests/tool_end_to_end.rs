//! The tool library end to end against the simulated SDK (SIMULATED: no GPU is involved).
//!
//! Each test plays an application with `rocprof-sim`, which writes the ground truth of every
//! record the SDK emitted, and reads what the tool wrote with pyarrow, never with our own
//! code (`tests/verify/compare_with_truth.py`). Needs `pip install -r tests/verify/requirements.txt`.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;
use std::time::{Duration, Instant};

/// The simulated application: `dispatches` over 8 threads and 2 GPUs, writing its truth.
fn app(dir: &Path, dispatches: u64) -> Command {
    let mut cmd = Command::new(built("rocprof-sim"));
    cmd.args(["--dispatches", &dispatches.to_string(), "--threads", "8", "--agents", "2", "--seed", "11"])
        .arg("--truth")
        .arg(dir.join("truth.csv"))
        .arg("--sdk")
        .arg(built("librocprofiler_sdk_sim.so"))
        .env_remove("ROCP_TOOL_LIBRARIES")
        .env_remove("LD_PRELOAD")
        .env("ROCPROF_RS_OUTPUT_DIR", dir.join("out"))
        .env("ROCPROF_RS_DOMAINS", DOMAINS);
    cmd
}

/// Everything the simulator produces (it has no HSA or RCCL API).
const DOMAINS: &str = "kernel,hip_api,memory_copy,marker,scratch_memory,memory_allocation";

fn run_and_compare(name: &str, dispatches: u64, setup: impl FnOnce(&mut Command, &Path)) {
    let dir = scratch(name);
    let mut cmd = app(&dir, dispatches);
    setup(&mut cmd, &dir);
    assert_exact(&dir, &cmd.output().unwrap());
    std::fs::remove_dir_all(dir).unwrap();
}

/// The application succeeded, the tool said one line with nothing dropped, and the dataset
/// equals the truth.
fn assert_exact(dir: &Path, output: &Output) {
    assert!(output.status.success(), "the application failed: {}", stderr(output));
    let lines = tool_lines(output);
    assert_eq!(lines.len(), 1, "one summary line: {lines:?}");
    assert!(lines[0].contains("nothing dropped"), "{}", lines[0]);
    assert_matches_truth(dir);
}

#[test]
fn rocp_tool_libraries_writes_exactly_the_truth() {
    run_and_compare("rocp-tool-libraries", 2_000_000, |cmd, _| {
        cmd.env("ROCP_TOOL_LIBRARIES", tool());
    });
}

#[test]
fn ld_preload_writes_exactly_the_truth() {
    run_and_compare("ld-preload", 2_000_000, |cmd, _| {
        cmd.env("LD_PRELOAD", tool());
    });
}

#[test]
fn rocprof_rs_run_writes_exactly_the_truth() {
    let dir = scratch("run");
    let mut sim = app(&dir, 2_000_000);
    let traces = [
        "--kernel-trace",
        "--hip-runtime-trace",
        "--memory-copy-trace",
        "--marker-trace",
        "--scratch-memory-trace",
        "--memory-allocation-trace",
    ];
    let mut cmd = under_rocprof_rs_run(&sim, &traces, &dir.join("out"));
    cmd.env_remove("LD_PRELOAD").env_remove("ROCPROF_RS_DOMAINS");
    sim.env_clear();
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("nothing dropped"), "{}", stderr(&output));
    assert_matches_truth(&dir);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The in-process example (`examples/in_process.rs`): the profiler linked into the application,
/// configured through `rocprofiler_force_configure`, paused through a warm-up and collecting in
/// one region. Its truth covers the region only, so a warm-up record in the output fails too.
#[test]
fn the_in_process_example_writes_exactly_the_truth_of_its_region() {
    let dir = scratch("in-process");
    let example = target_dir().join("examples/in_process");
    assert!(example.exists(), "{} is not built: run `cargo test --workspace`", example.display());
    let output = Command::new(example)
        .args(["--simulate", "--dispatches", "2000000", "--warmup", "50000", "--threads", "8", "--agents", "2"])
        .arg("--sdk")
        .arg(built("librocprofiler_sdk_sim.so"))
        .arg("--truth")
        .arg(dir.join("truth.csv"))
        .arg("--output")
        .arg(dir.join("out"))
        .env_remove("ROCP_TOOL_LIBRARIES")
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap();
    assert_exact(&dir, &output);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A forked child writes its own files, next to the parent's, and each process's files hold
/// exactly its own truth: nothing of the parent's in the child, nothing lost in either.
#[test]
fn forked_children_write_their_own_files_with_exactly_their_own_truth() {
    let dir = scratch("fork");
    let child = app(&dir, 300_000)
        .args(["--fork", "2"])
        .env("ROCP_TOOL_LIBRARIES", tool())
        .env("ROCPROF_RS_OUTPUT_NAME", "app-%pid%")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let parent = child.id();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let lines = tool_lines(&output);
    assert_eq!(lines.len(), 3, "one summary line per process: {lines:?}");
    assert!(lines.iter().all(|l| l.contains("nothing dropped")), "{lines:?}");
    let mut truths = vec![(dir.join("truth.csv"), parent)];
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(pid) = name.strip_prefix("truth.").and_then(|n| n.strip_suffix(".csv")) {
            truths.push((path.clone(), pid.parse().unwrap()));
        }
    }
    assert_eq!(truths.len(), 3, "the parent's truth and two children's");
    for (truth, pid) in truths {
        assert_matches_truth_of(&dir, &truth, Some(&format!("app-{pid}")));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn sigterm_keeps_everything_emitted_before_it() {
    let dir = scratch("sigterm");
    let output = app(&dir, 300_000).args(["--raise", "TERM"]).env("ROCP_TOOL_LIBRARIES", tool()).output().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(output.status.signal(), Some(libc::SIGTERM), "the application must still die by SIGTERM");
    assert_matches_truth(&dir);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn after_sigkill_every_file_on_disk_is_readable() {
    let dir = scratch("sigkill");
    let mut child = app(&dir, 50_000_000)
        .env("ROCP_TOOL_LIBRARIES", tool())
        .env("ROCPROF_RS_ROTATE_ROWS", "50000")
        .env("ROCPROF_RS_ROW_GROUP_ROWS", "16384")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let complete = || complete_files(&dir.join("out/kernel_dispatch"));
    let started = Instant::now();
    while complete() < 3 && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(complete() >= 3, "the run rotated fewer than 3 files in 2 minutes");
    let check = r#"
import os, sys, pyarrow.parquet as pq, pyarrow.dataset as ds
root = sys.argv[1]
n = 0
for d, _, files in os.walk(root):
    for f in files:
        if f.endswith(".parquet"):
            pq.read_table(os.path.join(d, f)); n += 1
rows = ds.dataset(os.path.join(root, "kernel_dispatch"), format="parquet").count_rows()
assert rows >= 150000, rows
print(n, rows)
"#;
    let output = Command::new("python3").arg("-c").arg(check).arg(dir.join("out")).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    std::fs::remove_dir_all(dir).unwrap();
}

/// Runs the application with `env`, expecting its own exit code (7) and one line from the tool.
fn assert_harmless(name: &str, env: &[(&str, &str)], expect: &str) {
    let dir = scratch(name);
    let mut cmd = app(&dir, 20_000);
    cmd.args(["--exit-code", "7"]).env("ROCP_TOOL_LIBRARIES", tool());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let output = cmd.output().unwrap();
    assert_eq!(output.status.code(), Some(7), "the exit code must be the application's: {}", stderr(&output));
    let lines = tool_lines(&output);
    assert_eq!(lines.len(), 1, "exactly one line from the tool: {lines:?}");
    assert!(lines[0].contains(expect), "{:?} should mention {expect:?}", lines[0]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_bad_variable_disables_the_tool_with_one_line() {
    assert_harmless("bad-variable", &[("ROCPROF_RS_POLICY", "maybe")], "ROCPROF_RS_POLICY=\"maybe\"");
}

#[test]
fn an_unwritable_directory_disables_the_tool_with_one_line() {
    assert_harmless("unwritable", &[("ROCPROF_RS_OUTPUT_DIR", "/proc/rocprof-rs-cannot-write-here")], "/proc/");
}

#[test]
fn a_panic_in_the_ingest_path_disables_the_tool_with_one_line() {
    assert_harmless("panic", &[("ROCPROF_RS_TEST_FAULT", "panic-in-ingest")], "injected fault");
}
