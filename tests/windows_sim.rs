//! Tracing windows on the AMD path, against the simulated SDK's truth (SIMULATED: no GPU is
//! involved): every dispatch launched inside a window is in the dataset, none launched outside
//! every window is, each row lies in the window the format's rule gives it, and the metadata's
//! share is the windows' time over the run's (`tests/verify/check_windows.py`, pyarrow only).

mod common;

use std::process::{Command, Output};

use common::*;

/// The simulated application, paced so its GPUs keep up, with `vars` for the tool.
fn windowed_app(dir: &std::path::Path, seed: u32, vars: &[(&str, &str)]) -> Output {
    let seed = seed.to_string();
    sim_with_tool(
        dir,
        &["--dispatches", "12000", "--threads", "8", "--agents", "2", "--launch-gap-us", "40", "--seed", &seed],
    )
    .env("ROCPROF_RS_DOMAINS", "kernel,hip_api")
    .envs(vars.iter().copied())
    .output()
    .unwrap()
}

#[test]
fn windows_hold_every_dispatch_launched_inside_them_and_none_outside() {
    for (seed, window) in [(5, "10ms/40ms"), (6, "15ms/50ms")] {
        let dir = scratch(&format!("windows-{seed}"));
        let output = windowed_app(&dir, seed, &[("ROCPROF_RS_WINDOW", window)]);
        assert!(output.status.success(), "{}", stderr(&output));
        let lines = tool_lines(&output);
        assert!(lines.len() == 1 && lines[0].contains("nothing dropped") && lines[0].contains("window "), "{lines:?}");
        let stats = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
            .args(["stats", "--format", "json"])
            .arg(dir.join("out"))
            .output()
            .unwrap();
        assert!(stats.status.success(), "{}", stderr(&stats));
        std::fs::write(dir.join("stats.json"), &stats.stdout).unwrap();
        let table = Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).arg("stats").arg(dir.join("out")).output().unwrap();
        let text = String::from_utf8_lossy(&table.stdout);
        assert!(text.contains("tracing windows") && text.contains("calls in the run (95%)"), "{text}");
        let report = python(
            "check_windows.py",
            &[
                dir.join("out").as_os_str(),
                dir.join("truth.csv").as_os_str(),
                "--stats-json".as_ref(),
                dir.join("stats.json").as_os_str(),
            ],
        );
        eprintln!("{window}: {report}");
    }
}

#[test]
fn rocprof_rs_run_takes_window_and_graph_trace_and_refuses_bad_values_before_launching() {
    let dir = scratch("windows-cli");
    let mut sim = Command::new(built("rocprof-sim"));
    sim.args(["--dispatches", "3000", "--launch-gap-us", "20", "--truth"])
        .arg(dir.join("truth.csv"))
        .arg("--sdk")
        .arg(built("librocprofiler_sdk_sim.so"));
    let run = |args: &[&str]| {
        let mut cmd = under_rocprof_rs_run(&sim, args, &dir.join("out"));
        cmd.env_remove("LD_PRELOAD").env_remove("ROCPROF_RS_DOMAINS").output().unwrap()
    };
    let good = run(&["--kernel-trace", "--window", "2ms/10ms", "--graph-trace", "graph"]);
    assert!(good.status.success(), "{}", stderr(&good));
    let metadata = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".metadata.json"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .expect("a metadata file");
    assert!(
        metadata.contains("\"setting\":\"2ms/10ms\"") && metadata.contains("\"graph_trace\":\"graph\""),
        "{metadata}"
    );
    for (flag, value) in [
        ("--window", "10ms"),
        ("--window", "1s/500ms"),
        ("--window", "0.1ms/1s"),
        ("--window", "1ms/2d"),
        ("--graph-trace", "kernels"),
    ] {
        let bad = run(&["--kernel-trace", flag, value]);
        let err = stderr(&bad);
        assert_eq!(bad.status.code(), Some(2), "{flag} {value}: {err}");
        let variable = if flag == "--window" { "ROCPROF_RS_WINDOW" } else { "ROCPROF_RS_GRAPH_TRACE" };
        assert!(err.contains(variable) && err.contains(value), "{flag} {value}: {err}");
        assert!(!err.contains("SIMULATED 3000"), "the application ran despite {flag} {value}: {err}");
    }
}

#[test]
fn a_bad_window_in_the_environment_turns_the_tool_off_and_leaves_the_application_alone() {
    let dir = scratch("windows-bad-env");
    for value in ["200ms", "nonsense/1s", "5s/1s", "\u{1F600}/1s"] {
        let output = sim_with_tool(&dir, &["--dispatches", "500", "--exit-code", "7"])
            .env("ROCPROF_RS_WINDOW", value)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(7), "{value}: {}", stderr(&output));
        let lines = tool_lines(&output);
        assert_eq!(lines.len(), 1, "{value}: {lines:?}");
        assert!(lines[0].contains("ROCPROF_RS_WINDOW") && lines[0].contains("profiling is off"), "{lines:?}");
    }
}
