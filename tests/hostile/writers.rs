//! Processes and limits against the tool's files: two writers of one stem, a busy run killed
//! while rotating by time, and a file-size limit.

use std::time::{Duration, Instant};

use super::*;

/// Two processes given one file-name stem (`ROCPROF_RS_OUTPUT_NAME=fixed`, or `%hostname%`
/// for ranks of one node) each keep their own files, whole: the second takes `fixed.2`.
#[test]
fn two_processes_with_one_stem_each_write_exactly_their_own_truth() {
    let dir = scratch("hostile-same-stem");
    let start = |n: u32| {
        app(&dir, 300_000)
            .arg("--truth")
            .arg(dir.join(format!("truth-{n}.csv")))
            .args(["--seed", &(20 + n).to_string()])
            .env("ROCPROF_RS_OUTPUT_NAME", "fixed")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (start(1), start(2));
    let outputs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let mut stems = Vec::new();
    for (n, output) in outputs.iter().enumerate() {
        assert!(output.status.success(), "{}", stderr(output));
        let lines = tool_lines(output);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("nothing dropped"), "{}", lines[0]);
        let stem = if lines[0].contains(" as fixed.2 (fixed was taken)") { "fixed.2" } else { "fixed" };
        stems.push(stem);
        assert_matches_truth_of(&dir, &dir.join(format!("truth-{}.csv", n + 1)), Some(stem));
    }
    assert_ne!(stems[0], stems[1], "the two processes wrote under one stem");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A run that never pauses still rotates by time, so a SIGKILL costs at most the open files:
/// after 4 s of a busy run with `ROCPROF_RS_ROTATE_SECONDS=1`, completed files are on disk and
/// read; `stats` names the incomplete files it skipped.
#[test]
fn rotation_by_time_happens_while_records_keep_coming_and_survives_sigkill() {
    let dir = scratch("hostile-rotate-busy");
    let mut child = app(&dir, 500_000_000)
        .arg("--no-truth")
        .env("ROCPROF_RS_ROTATE_SECONDS", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let complete = || complete_files(&dir.join("out/kernel_dispatch"));
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(4) && child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(child.try_wait().unwrap().is_none(), "the run must still be busy when killed");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(complete() >= 2, "a busy 4 s run rotating every second completed {} files", complete());
    let stats = cli().arg("stats").arg(dir.join("out")).output().unwrap();
    assert!(stats.status.success(), "{}", stderr(&stats));
    assert!(stderr(&stats).contains("incomplete file"), "stats must name what it skipped: {}", stderr(&stats));
    std::fs::remove_dir_all(dir).unwrap();
}

/// Runs the application under `RLIMIT_FSIZE = bytes`.
fn under_file_size_limit(dir: &Path, bytes: u64) -> Output {
    let mut cmd = app(dir, 200_000);
    cmd.args(["--no-truth", "--exit-code", "7"]);
    limit_file_size(&mut cmd, bytes);
    finish_within(&mut cmd, Duration::from_secs(120))
}

/// Beyond `ulimit -f`, a write raises SIGXFSZ, whose default action killed the application
/// (exit 153). The tool's writes now fail instead, and it turns itself off with one line:
/// for the Parquet writer (64 KiB) and for the run metadata written on the application's own
/// thread at start (512 bytes).
#[test]
fn a_file_size_limit_turns_the_tool_off_not_the_application() {
    for bytes in [64 << 10, 512] {
        let dir = scratch(&format!("hostile-fsize-{bytes}"));
        let output = under_file_size_limit(&dir, bytes);
        assert_unharmed(&output, "File too large");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
