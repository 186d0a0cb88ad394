//! The flight recorder on the AMD path, against the simulated SDK's truth (SIMULATED: no GPU is
//! involved): nothing is written until a trigger; the dump signal, the request file and a slow
//! step each write a dump that is a whole dataset whose rows are the truth's
//! (`tests/verify/check_dump.py`, pyarrow only); two triggers at once give two whole dumps; a
//! kill during dumps leaves every visible dump whole; the application's exit code is its own.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// The simulated application, paced (about 3 s), under the flight recorder with `vars`.
fn recorded_app(dir: &Path, dispatches: u64, vars: &[(&str, &str)]) -> Child {
    let dispatches = dispatches.to_string();
    let args =
        ["--dispatches", &dispatches, "--threads", "4", "--agents", "2", "--launch-gap-us", "40", "--seed", "17"];
    sim_with_tool(dir, &args)
        .args(["--exit-code", "3"])
        .env("ROCPROF_RS_DOMAINS", "kernel,hip_api")
        .env("ROCPROF_RS_FLUSH_MS", "100")
        .envs(vars.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The visible dump folders under `out`, oldest name first.
fn dumps(out: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(out)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("dump-") && p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
}

/// Waits until `out` has `n` dumps, at most 10 s.
fn wait_for_dumps(out: &Path, n: usize) {
    let started = Instant::now();
    while dumps(out).len() < n && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn check(dump: &Path, truth: &Path, trigger: &str) -> String {
    python("check_dump.py", &[dump.as_os_str(), truth.as_os_str(), "--trigger".as_ref(), trigger.as_ref()])
}

#[test]
fn the_signal_and_the_request_file_each_write_a_whole_dump_and_the_run_goes_on() {
    let dir = scratch("flight-signal");
    let out = dir.join("out");
    let child = recorded_app(&dir, 80_000, &[("ROCPROF_RS_FLIGHT_RECORDER", "30")]);
    std::thread::sleep(Duration::from_millis(1200));
    let files_before: Vec<_> =
        std::fs::read_dir(&out).map(|d| d.flatten().map(|e| e.file_name()).collect()).unwrap_or_default();
    assert!(
        files_before.iter().all(|f| f.to_string_lossy().ends_with(".metadata.json")),
        "nothing but the run's metadata before a trigger: {files_before:?}"
    );
    signal(&child, libc::SIGUSR2);
    wait_for_dumps(&out, 1);
    std::fs::write(out.join("dump-request"), b"").unwrap();
    wait_for_dumps(&out, 2);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(3), "the exit code is the application's: {}", stderr(&output));
    let lines = tool_lines(&output);
    assert!(lines.iter().any(|l| l.contains("signal dump written")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("request dump written")), "{lines:?}");
    assert!(
        lines.last().unwrap().contains("2 dumps") && lines.last().unwrap().contains("nothing dropped"),
        "{lines:?}"
    );
    let found = dumps(&out);
    assert_eq!(found.len(), 2, "{found:?}");
    let truth = dir.join("truth.csv");
    for dump in &found {
        let name = dump.file_name().unwrap().to_string_lossy().into_owned();
        let trigger = if name.starts_with("dump-request-") { "request" } else { "signal" };
        eprintln!("{name}: {}", check(dump, &truth, trigger));
    }
    // A dump reads like any dataset.
    let stats = Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).arg("stats").arg(&found[0]).output().unwrap();
    assert!(stats.status.success(), "{}", stderr(&stats));
    assert!(
        stderr(&stats).contains("a flight recorder's dump of process") && stderr(&stats).contains("trigger"),
        "{}",
        stderr(&stats)
    );
    let metadata = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".metadata.json"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .unwrap();
    assert!(metadata.contains("\"dumps\":[") && metadata.matches("dump-").count() >= 2, "{metadata}");
}

#[test]
fn two_triggers_at_once_give_two_whole_dumps() {
    let dir = scratch("flight-two");
    let out = dir.join("out");
    let child = recorded_app(&dir, 60_000, &[("ROCPROF_RS_FLIGHT_RECORDER", "30")]);
    std::thread::sleep(Duration::from_millis(1000));
    std::fs::write(out.join("dump-request"), b"").unwrap();
    signal(&child, libc::SIGUSR2);
    wait_for_dumps(&out, 2);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let found = dumps(&out);
    assert_eq!(found.len(), 2, "{found:?}");
    let truth = dir.join("truth.csv");
    let reports: Vec<String> = found
        .iter()
        .map(|d| {
            let request = d.file_name().unwrap().to_string_lossy().starts_with("dump-request-");
            check(d, &truth, if request { "request" } else { "signal" })
        })
        .collect();
    eprintln!("{reports:?}");
}

#[test]
fn a_slow_step_dumps_once_and_names_the_step() {
    let dir = scratch("flight-slow-step");
    let out = dir.join("out");
    let mut sim = Command::new(built("rocprof-sim"));
    sim.args(["--ranks", "2", "--steps", "24", "--straggler", "1:15:800", "--truth"])
        .arg(dir.join("truth.csv"))
        .arg("--ranks-truth")
        .arg(dir.join("ranks-truth.json"))
        .arg("--sdk")
        .arg(built("librocprofiler_sdk_sim.so"));
    let mut cmd = under_rocprof_rs_run(&sim, &["--kernel-trace", "--marker-trace"], &out);
    cmd.env_remove("LD_PRELOAD")
        .env_remove("ROCPROF_RS_DOMAINS")
        .env_remove("ROCPROF_RS_OUTPUT_NAME")
        .env("ROCPROF_RS_FLIGHT_RECORDER", "60")
        .env("ROCPROF_RS_STEP_MARKER", "^step ")
        .env("ROCPROF_RS_SLOW_STEP_FACTOR", "1000");
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let found = dumps(&out);
    // Rank 1 slept in step 15; rank 0 waited for it in the all-reduce, inside its own step 15.
    // Steps of a dump's span after it do not dump again.
    assert!(!found.is_empty() && found.len() <= 2, "one slow-step dump per rank at most: {found:?}");
    let ranks = Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).arg("ranks").arg(&found[0]).output().unwrap();
    assert!(ranks.status.success(), "{}", stderr(&ranks));
    assert!(
        stderr(&ranks).contains("on a slow-step trigger: \"step 15"),
        "ranks says what triggered the dump: {}",
        stderr(&ranks)
    );
    for dump in &found {
        let metadata = std::fs::read_dir(dump)
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().ends_with(".metadata.json"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .unwrap();
        assert!(metadata.contains("\"reason\":\"slow-step\"") && metadata.contains("\"step\":\"step 15"), "{metadata}");
    }
}

#[test]
fn a_kill_while_dumping_leaves_every_visible_dump_whole() {
    let dir = scratch("flight-kill");
    let out = dir.join("out");
    let child = recorded_app(&dir, 80_000, &[("ROCPROF_RS_FLIGHT_RECORDER", "30")]);
    std::thread::sleep(Duration::from_millis(900));
    signal(&child, libc::SIGUSR2);
    wait_for_dumps(&out, 1);
    std::thread::sleep(Duration::from_millis(400));
    signal(&child, libc::SIGUSR2);
    // Somewhere in the second dump, or just before or after it: every case must hold.
    std::thread::sleep(Duration::from_millis(3));
    signal(&child, libc::SIGKILL);
    let _ = child.wait_with_output().unwrap();
    let found = dumps(&out);
    assert!(!found.is_empty(), "the first dump is there");
    // The application was killed before writing its truth: each dump is read whole instead.
    for dump in &found {
        let report = python("check_dump.py", &[dump.as_os_str(), "-".as_ref()]);
        eprintln!("{}: {report}", dump.display());
    }
}

#[test]
fn bad_flight_recorder_settings_turn_the_tool_off_with_one_line() {
    let dir = scratch("flight-bad");
    for (name, value) in [
        ("ROCPROF_RS_FLIGHT_RECORDER", "forever"),
        ("ROCPROF_RS_FLIGHT_RECORDER", "0"),
        ("ROCPROF_RS_HANG_SECONDS", "10"),
        ("ROCPROF_RS_DUMP_SIGNAL", "usr2"),
    ] {
        let output = recorded_app(&dir, 200, &[(name, value)]).wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(3), "{name}={value}: {}", stderr(&output));
        let lines = tool_lines(&output);
        assert_eq!(lines.len(), 1, "{name}={value}: {lines:?}");
        assert!(lines[0].contains(name) && lines[0].contains("profiling is off"), "{lines:?}");
    }
}
