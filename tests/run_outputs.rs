//! rocprofv3's output flags on `run` (SIMULATED: no GPU is involved): every madengine profile
//! in tests/fixtures runs the simulated application under `run --profile`, and the files each
//! promises (`--output-format`, `--stats`) are there when it ends and read back; nothing is
//! left unhonoured but the parts the README lists as out of reach. A failed export is one line
//! and leaves the application's exit code alone.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

const PROFILES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/madengine");

/// What a profile may leave unhonoured: the README's "out of reach" list.
const OUT_OF_REACH: &[&str] = &[
    "the HIP compiler API of ",
    "slurm (",
    "distributed launcher ",
    "tool miopen_trace (",
    "tool rocblas_trace (",
    "thread trace",
];

/// `rocprof-rs run ARGS -- rocprof-sim` writing to `out`, with the simulator's tool variables
/// removed so the options alone decide.
fn run(dir: &Path, args: &[&str], sim_extra: &[&str]) -> Output {
    let mut sim = sim_with_tool(dir, &["--dispatches", "600", "--threads", "2", "--agents", "2", "--seed", "3"]);
    sim.args(sim_extra);
    let mut cmd = under_rocprof_rs_run(&sim, args, &dir.join("out"));
    cmd.env_remove("ROCPROF_RS_OUTPUT_DIR").current_dir(dir);
    cmd.output().unwrap()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    files
}

fn ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    files(dir).into_iter().filter(|p| p.is_file() && p.to_string_lossy().ends_with(suffix)).collect()
}

/// Each promised file is there and reads back as what it claims to be.
fn assert_outputs(out: &Path, formats: &[&str], stats: bool, pftrace: &str, what: &str) {
    let listing = format!("{what}: {:?}", files(out));
    for format in formats {
        match *format {
            "csv" => {
                let traces = ending(out, "_kernel_trace.csv");
                assert!(!traces.is_empty(), "{listing}");
                let text = std::fs::read_to_string(&traces[0]).unwrap();
                assert!(
                    text.starts_with("\"Kind\"") || text.starts_with("Kind"),
                    "{what}: {}",
                    &text[..80.min(text.len())]
                );
                assert!(text.lines().count() > 1, "{what}: a header and no rows");
            }
            "json" => {
                let results = ending(out, "_results.json");
                assert!(!results.is_empty(), "{listing}");
                let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&results[0]).unwrap()).unwrap();
                assert!(json.get("rocprofiler-sdk-tool").is_some(), "{what}: not rocprofv3's JSON layout");
            }
            "pftrace" => {
                let trace = out.join(pftrace);
                let bytes = std::fs::read(&trace).unwrap_or_else(|e| panic!("{listing}: {e}"));
                // A Trace message: field 1 (packet), length-delimited.
                assert!(bytes.len() > 100 && bytes[0] == 0x0a, "{what}: {} bytes", bytes.len());
            }
            "rocpd" => {
                let dbs = ending(out, "_results.db");
                assert!(!dbs.is_empty(), "{listing}");
                assert!(std::fs::read(&dbs[0]).unwrap().starts_with(b"SQLite format 3\0"), "{what}");
            }
            other => panic!("no check for {other}"),
        }
    }
    let kernel_stats = out.join("kernel_stats.csv");
    assert_eq!(kernel_stats.is_file(), stats, "{listing}");
    if stats {
        let text = std::fs::read_to_string(&kernel_stats).unwrap();
        assert!(text.starts_with("\"Name\",\"Calls\",\"TotalDurationNs\""), "{what}: {text}");
        assert!(text.lines().count() > 1, "{what}: no kernel in the statistics");
    }
}

#[test]
fn every_madengine_profile_writes_the_files_it_promises() {
    // Per profile: the formats and statistics its rocprofv3 tool asks for.
    let promised: &[(&str, &[&str], bool)] = &[
        ("rocprofv3_lightweight", &["json"], false),
        ("rocprofv3_compute_bound", &["pftrace"], false),
        ("rocprofv3_memory_bound", &["pftrace"], false),
        ("rocprofv3_multi_gpu", &["pftrace"], false),
        ("rocprofv3_multi_node", &["pftrace"], false),
        ("rocprofv3_comprehensive", &["pftrace"], true),
    ];
    let fixtures: Vec<String> = std::fs::read_dir(PROFILES)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".json").map(str::to_owned))
        .collect();
    assert_eq!(fixtures.len(), promised.len(), "a fixture without its promise here: {fixtures:?}");
    for (name, formats, stats) in promised {
        let dir = scratch(&format!("outputs-{name}"));
        let profile = format!("{PROFILES}/{name}.json");
        let output = run(&dir, &["--profile", &profile], &[]);
        let text = stderr(&output);
        assert!(output.status.success(), "{name}: {text}");
        let prefix = format!("rocprof-rs: profile {profile}: cannot honour ");
        for item in text.lines().filter_map(|l| l.strip_prefix(&prefix)) {
            assert!(
                OUT_OF_REACH.iter().any(|o| item.starts_with(o)),
                "{name}: {item} is not documented as out of reach"
            );
        }
        assert!(!text.contains("not written"), "{name}: {text}");
        assert_outputs(&dir.join("out"), formats, *stats, "trace.pftrace", name);
        // The dataset stays the source of truth: its tables are there too.
        assert!(dir.join("out/kernel_dispatch").is_dir(), "{name}: {:?}", files(&dir.join("out")));
    }
}

#[test]
fn output_flags_on_the_command_line_write_each_format_and_the_statistics() {
    let dir = scratch("outputs-flags");
    let output = run(
        &dir,
        &[
            "--kernel-trace",
            "--hip-trace",
            "--output-format",
            "csv",
            "json",
            "pftrace",
            "rocpd",
            "--stats",
            "--perfetto-trace-filename",
            "model_trace.pftrace",
        ],
        &[],
    );
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    assert_outputs(&dir.join("out"), &["csv", "json", "pftrace", "rocpd"], true, "model_trace.pftrace", "flags");
    assert!(dir.join("out/hip_api_stats.csv").is_file(), "{:?}", files(&dir.join("out")));
    for what in ["--output-format csv: wrote", "--output-format pftrace: wrote", "--stats: wrote"] {
        assert!(text.contains(what), "{what}: {text}");
    }
}

#[test]
fn bad_output_flags_are_refused_before_the_application_starts() {
    for (args, expected) in [
        (&["--output-format", "otf2"][..], "otf2: rocprof-rs writes no OTF2 archive"),
        (&["--output-format", "xml"][..], "\"xml\": not an output format"),
        (&["--perfetto-trace-filename", "../up.pftrace"][..], "without a folder"),
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"));
        cmd.arg("run").args(args).args(["--", "/bin/sh", "-c", "echo started"]);
        let output = cmd.output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}: the application started");
        assert!(stderr(&output).contains(expected), "{args:?}: {}", stderr(&output));
    }
}

#[test]
fn an_export_that_cannot_be_written_is_one_line_and_the_exit_code_stays_the_applications() {
    let dir = scratch("outputs-fail");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    // A directory where the Perfetto trace must go: the export fails; the run does not.
    std::fs::create_dir(out.join("trace.pftrace")).unwrap();
    let output = run(&dir, &["--kernel-trace", "--output-format", "pftrace", "csv"], &["--exit-code", "7"]);
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(7), "{text}");
    let failed: Vec<&str> = text.lines().filter(|l| l.contains("not written")).collect();
    assert_eq!(failed.len(), 1, "{text}");
    assert!(failed[0].starts_with("rocprof-rs: --output-format pftrace: not written: "), "{text}");
    assert!(!ending(&out, "_kernel_trace.csv").is_empty(), "the other format is still written: {text}");
}
