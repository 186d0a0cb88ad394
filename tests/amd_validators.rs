//! AMD's own rocprofv3 validators (tests/amd-validators: rocprofiler-sdk's `validate.py` and
//! `conftest.py` with the workload's constants taken from a file, see its README) run against
//! our rocprofv3 CSV and JSON exports of simulated runs, with the constants set to the
//! simulator's ground truth.

mod common;

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{built, scratch, stderr, tool};

fn validators() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/amd-validators")
}

/// Whether Python can run the validators; outside CI a machine without pytest skips them
/// (saying why), in CI it fails.
fn pytest_ready() -> bool {
    let probe = Command::new("python3").args(["-c", "import pytest"]).output();
    if probe.as_ref().is_ok_and(|o| o.status.success()) {
        return true;
    }
    let why = match probe {
        Ok(o) => stderr(&o),
        Err(e) => format!("python3: {e}"),
    };
    assert!(std::env::var_os("CI").is_none(), "CI must run AMD's validators: {why}");
    eprintln!(
        "SKIPPED: AMD's validators need python3 with pytest (pip install -r tests/verify/requirements.txt): {why}"
    );
    false
}

/// Runs AMD's `validate.py` of `suite` with `args`, as its CMake test does, and asserts that
/// every selected test passed.
fn validate(suite: &str, args: &[&OsStr], select: &str) {
    let dir = validators().join(suite);
    let output = Command::new("python3")
        .arg("validate.py")
        .args(["-p", "no:cacheprovider", "-k", select])
        .args(args)
        .current_dir(&dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), stderr(&output));
    assert!(output.status.success(), "AMD's {suite} validators failed:\n{text}");
    let summary = text.lines().rev().find(|l| l.contains(" passed")).unwrap_or_default();
    assert!(!summary.contains("failed") && !summary.contains("error"), "{text}");
    eprintln!("{suite}: {summary}");
}

fn rocprof_rs(args: &[&OsStr]) {
    let output = Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap();
    assert!(output.status.success(), "rocprof-rs {args:?}: {}", stderr(&output));
}

/// Exports `dataset` into `out` as `format`.
fn export(dataset: &Path, format: &str, out: &Path) {
    rocprof_rs(&[
        OsStr::new("export"),
        dataset.as_os_str(),
        "--format".as_ref(),
        format.as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
}

/// Plays the simulated application (one thread, one GPU) under the tool into `out`, its
/// ground truth into `truth`.
fn simulate(out: &Path, truth: &Path, args: &[&str], vars: &[(&str, &str)]) {
    let output = Command::new(built("rocprof-sim"))
        .args(["--threads", "1", "--agents", "1", "--truth"])
        .arg(truth)
        .args(args)
        .arg("--sdk")
        .arg(built("librocprofiler_sdk_sim.so"))
        .env("ROCP_TOOL_LIBRARIES", tool())
        .env("ROCPROF_RS_OUTPUT_DIR", out)
        .envs(vars.iter().copied())
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap();
    assert!(output.status.success(), "the simulated run failed: {}", stderr(&output));
}

/// The ground truth's records (`rocprof-sim --truth`), each a map of column to value.
fn truth(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let body: String = text.lines().filter(|l| !l.starts_with('#')).map(|l| format!("{l}\n")).collect();
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(body.as_bytes());
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| header.iter().zip(r.unwrap().iter()).map(|(k, v)| (k.into(), v.into())).collect())
        .collect()
}

/// The one file of `dir` whose name ends with `suffix`.
fn file(dir: &Path, suffix: &str) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    assert_eq!(found.len(), 1, "one *{suffix} in {}: {found:?}", dir.display());
    found[0].clone()
}

/// `-k` without `test_agent_info` where the simulator's CPU reports no cores, saying why; the
/// test runs on a real machine's agents in `agent_info_of_a_real_mi300a_passes`.
fn agent_info_selection(agent_info: &Path, select: &str) -> String {
    let text = std::fs::read_to_string(agent_info).unwrap();
    let coreless_cpu = text.lines().skip(1).any(|l| {
        let f: Vec<&str> = l.split(',').collect();
        f.get(2) == Some(&"\"CPU\"") && f.get(3) == Some(&"0")
    });
    if !coreless_cpu {
        return select.to_owned();
    }
    eprintln!(
        "NOTE: test_agent_info deselected for the simulated run: its CPU agent has cu_count 0, which \
         the export writes as Cpu_Cores_Count (rocprofiler-sdk sets a CPU's cu_count to its core \
         count, agent.cpp; tests/sdk-sim/sdk/src/agents.rs sets only cpu_cores_count, which the tool \
         does not record)"
    );
    format!("{select} and not test_agent_info")
}

#[test]
fn tracing_validators_pass_on_the_csv_and_json_exports_of_a_simulated_run() {
    if !pytest_ready() {
        return;
    }
    let dir = scratch("amd-tracing");
    let (data, truth_file) = (dir.join("data"), dir.join("truth.csv"));
    // One dispatch and one ROCTx range: simple-transpose's shape. Every upload and download
    // of the thread's four buffers is a copy.
    simulate(
        &data,
        &truth_file,
        &["--dispatches", "1", "--copy-every", "0", "--range-every", "1"],
        &[("ROCPROF_RS_DOMAINS", "kernel,hip_api,memory_copy,marker,memory_allocation")],
    );
    let records = truth(&truth_file);
    let of = |kind: &'static str| records.iter().filter(move |r| r["record"] == kind);
    let dispatches: Vec<_> = of("kernel_dispatch").collect();
    assert_eq!(dispatches.len(), 1);
    let d = dispatches[0];
    let mangled = &of("kernel_symbol").find(|s| s["kernel_id"] == d["kernel_id"]).unwrap()["name"];
    let number = |k: &str| d[k].parse::<u64>().unwrap();
    // Copy records come as the SDK delivers them, as copies complete (rocprofv3's order too):
    // simple-transpose's upload, then its download. The simulated application uploads four
    // buffers on one stream and downloads them on another, and which of a download and a late
    // upload is delivered first races with the host (the truth's end times alone do not say:
    // an upload whose end passed before the download was issued is delivered first). So the
    // expected directions are the first two in delivery order, which is the dataset's; the
    // validator still checks each row's agents against its direction, and the truth checks
    // that the dataset holds exactly the simulated copies.
    let copies: Vec<_> = of("memory_copy").collect();
    let mut delivered: Vec<String> = Vec::new();
    rocprof_rs_analysis::read::batches(&data, rocprof_rs_format::Table::MemoryCopy, |b| {
        let operation = b.col("operation")?;
        delivered.extend((0..b.rows()).map(|i| operation.text(i).to_owned()));
        Ok(())
    })
    .unwrap();
    let (mut simulated, mut recorded): (Vec<&str>, Vec<&str>) =
        (copies.iter().map(|c| c["operation"].as_str()).collect(), delivered.iter().map(String::as_str).collect());
    simulated.sort_unstable();
    recorded.sort_unstable();
    assert_eq!(recorded, simulated, "the dataset holds the simulated copies");
    let ground_truth = serde_json::json!({
        "kernel_dispatches": dispatches.len(),
        "kernel_names": [
            mangled,
            format!("{mangled}.kd"),
            rocprof_rs_format::kernel_names::display_name(mangled, true, false),
        ],
        "workgroup_size": [number("workgroup_x"), number("workgroup_y"), number("workgroup_z")],
        "grid_size": [number("grid_x"), number("grid_y"), number("grid_z")],
        "memory_copies": copies.len(),
        "first_copies": [&delivered[0], &delivered[1]],
        "marker_message": of("marker_range").next().unwrap()["name"],
    });
    let truth_json = dir.join("ground_truth.json");
    std::fs::write(&truth_json, ground_truth.to_string()).unwrap();

    let (csv, json, rocpd) = (dir.join("csv"), dir.join("json"), dir.join("rocpd"));
    export(&data, "rocprofv3-csv", &csv);
    export(&data, "rocprofv3-json", &json);
    export(&data, "rocpd", &rocpd);
    let csv_file = |kind: &str| file(&csv, &format!("_{kind}.csv"));
    let (agent_info, results) = (csv_file("agent_info"), file(&json, "_results.json"));
    let (kernels, copies, markers) =
        (csv_file("kernel_trace"), csv_file("memory_copy_trace"), csv_file("marker_api_trace"));
    let (allocations, database) = (csv_file("memory_allocation_trace"), file(&rocpd, "_results.db"));
    // Not selected: the HSA tests (the simulator makes no HSA calls), the Perfetto test (no
    // rocprofv3 .pftrace is written) and host functions (the tool records none, so the file
    // holds only the empty entry, on which AMD's test checks nothing).
    let select = agent_info_selection(&agent_info, "not hsa and not perfetto and not host_functions");
    let args: Vec<&OsStr> = [
        ("--agent-input", &agent_info),
        ("--kernel-input", &kernels),
        ("--memory-copy-input", &copies),
        ("--marker-input", &markers),
        ("--json-input", &results),
        ("--rocpd-input", &database),
        ("--ground-truth", &truth_json),
    ]
    .iter()
    .flat_map(|(name, path)| [OsStr::new(*name), path.as_os_str()])
    .collect();
    validate("tracing", &args, &select);
    let args: Vec<&OsStr> = [
        ("--csv-kernel-input", &kernels),
        ("--csv-memory-copy-input", &copies),
        ("--csv-memory-allocation-input", &allocations),
        ("--json-input", &results),
    ]
    .iter()
    .flat_map(|(name, path)| [OsStr::new(*name), path.as_os_str()])
    .chain(["--agent-index".as_ref(), "relative".as_ref()])
    .collect();
    validate("agent-index", &args, "test_validate");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn counter_collection_validators_pass_on_the_csv_export_of_a_simulated_counter_run() {
    if !pytest_ready() {
        return;
    }
    let dir = scratch("amd-counters");
    let data = dir.join("data");
    // input2's input.txt: SQ_WAVES and GRBM_COUNT, both in one pass here.
    let counters = ["SQ_WAVES", "GRBM_COUNT"];
    simulate(
        &data,
        &dir.join("truth.csv"),
        &["--dispatches", "16"],
        &[("ROCPROF_RS_DOMAINS", "kernel"), ("ROCPROF_RS_PMC", &counters.join(","))],
    );
    let truth_json = dir.join("ground_truth.json");
    std::fs::write(&truth_json, serde_json::json!({ "counter_names": counters }).to_string()).unwrap();
    let csv = dir.join("csv");
    export(&data, "rocprofv3-csv", &csv);
    let agent_info = file(&csv, "_agent_info.csv");
    let counter_file = file(&csv, "_counter_collection.csv");
    let select = agent_info_selection(&agent_info, "test_");
    let args = [
        OsStr::new("--agent-input"),
        agent_info.as_os_str(),
        "--counter-input".as_ref(),
        counter_file.as_os_str(),
        "--ground-truth".as_ref(),
        truth_json.as_os_str(),
    ];
    validate("counter-collection-input2", &args, &select);
    std::fs::remove_dir_all(dir).unwrap();
}

/// `test_agent_info` on the agents of a real ROCm 6.2.1 MI300A run (four CPU and four GPU
/// agents: tests/fixtures/rocprofv3-6.2-mi300a), imported and exported again.
#[test]
fn agent_info_of_a_real_mi300a_passes() {
    if !pytest_ready() {
        return;
    }
    let dir = scratch("amd-agent-info");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rocprofv3-6.2-mi300a");
    rocprof_rs(&[OsStr::new("import"), fixture.as_os_str(), "-o".as_ref(), dir.join("data").as_os_str()]);
    export(&dir.join("data"), "rocprofv3-csv", &dir.join("csv"));
    let agent_info = file(&dir.join("csv"), "_agent_info.csv");
    validate("tracing", &[OsStr::new("--agent-input"), agent_info.as_os_str()], "test_agent_info");
    std::fs::remove_dir_all(dir).unwrap();
}
