//! Hardware counters end to end against the simulated SDK (SIMULATED: no GPU is involved).
//!
//! The simulator's truth has, for every dispatch the tool chose to count, the value of each
//! counter of the chosen config, computed from the dispatch's modelled activity; the tool's
//! `counter` table must equal it. Coverage (every counter of the set collected in one run) is
//! checked by `tests/verify/counter_coverage.py`. Both read the Parquet with pyarrow only.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

/// The simulated application over 4 threads on a gfx942 and a gfx90a, tracing kernels.
fn app(dir: &Path, dispatches: u64, extra: &[&str]) -> Command {
    let dispatches = dispatches.to_string();
    let mut cmd = sim_with_tool(dir, &["--dispatches", &dispatches, "--threads", "4", "--agents", "2", "--seed", "5"]);
    cmd.args(extra).env("ROCPROF_RS_DOMAINS", "kernel");
    for var in ["ROCPROF_RS_PMC", "ROCPROF_RS_PMC_FILE", "ROCPROF_RS_COUNTER_PRESET", "ROCPROF_RS_COUNTER_PASSES"] {
        cmd.env_remove(var);
    }
    cmd
}

fn verify(script: &str) -> Command {
    let mut cmd = Command::new("python3");
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/verify").join(script));
    cmd
}

fn assert_ran(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed (pyarrow missing? pip install -r tests/verify/requirements.txt):\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        stderr(output)
    );
}

/// `rocprof-rs avail --json` against the simulator, parsed.
fn avail(consumer_gpu: bool) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .args(["avail", "--json", "--sdk"])
        .arg(built("librocprofiler_sdk_sim.so"))
        .env("ROCPROF_SIM_CONSUMER_GPU", if consumer_gpu { "1" } else { "0" })
        .env_remove("ROCP_TOOL_LIBRARIES")
        .output()
        .unwrap();
    assert_ran(&output, "rocprof-rs avail");
    serde_json::from_slice(&output.stdout).expect("avail prints JSON")
}

/// What `preset` collects on each GPU architecture, as `avail` resolves it.
fn preset_counters(preset: &str) -> serde_json::Value {
    let inventory = avail(false);
    let report = inventory["presets"].as_array().unwrap().iter().find(|p| p["name"] == preset).unwrap();
    let mut expected = serde_json::Map::new();
    for on in report["agents"].as_array().unwrap() {
        let label = on["agent"].as_str().unwrap();
        let arch = label[label.find('(').unwrap() + 1..label.len() - 1].to_owned();
        expected.insert(arch, on["counters"].clone());
    }
    serde_json::Value::Object(expected)
}

/// Checks coverage of `expected` (architecture → counters) in `dir/out`.
fn assert_covered(dir: &Path, expected: &serde_json::Value, min_samples: u32) {
    let path: PathBuf = dir.join("expected.json");
    std::fs::write(&path, expected.to_string()).unwrap();
    let output = verify("counter_coverage.py")
        .arg(dir.join("out"))
        .arg(&path)
        .args(["--min-samples", &min_samples.to_string()])
        .output()
        .unwrap();
    assert_ran(&output, "the coverage check");
}

fn assert_counters_match_truth(dir: &Path, extra: &[&str]) {
    let output = verify("compare_with_truth.py")
        .arg(dir.join("out"))
        .arg(dir.join("truth.csv"))
        .args(["--tables", "kernel_dispatch,counter"])
        .args(extra)
        .output()
        .unwrap();
    assert_ran(&output, "the comparison with the truth");
}

#[test]
fn a_preset_collects_every_counter_in_one_run_and_the_values_equal_the_truth() {
    let dir = scratch("preset");
    let output = app(&dir, 40_000, &[]).env("ROCPROF_RS_COUNTER_PRESET", "roofline").output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let lines = tool_lines(&output);
    assert_eq!(lines.len(), 1, "only the summary: {lines:?}");
    assert!(lines[0].contains("nothing dropped"), "{}", lines[0]);
    assert_counters_match_truth(&dir, &[]);
    let expected = preset_counters("roofline");
    assert!(expected["gfx942"].as_array().unwrap().len() > 20, "the roofline needs several passes");
    assert_covered(&dir, &expected, 5);
    let metadata = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".metadata.json"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .unwrap();
    let metadata: serde_json::Value = serde_json::from_str(&metadata).unwrap();
    let passes: u32 = metadata["rocprof_rs.counter_passes"].as_str().unwrap().parse().unwrap();
    assert!(passes >= 3, "{passes} passes");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Counters the simulated gfx942 and gfx90a both have: more SQ and TCC counters than one pass
/// holds (eight and four).
const TOO_MANY: &str = "SQ_WAVES,SQ_WAVE_CYCLES,SQ_BUSY_CYCLES,SQ_INSTS_VALU,SQ_INSTS_SALU,SQ_INSTS_SMEM,\
SQ_INSTS_VMEM_RD,SQ_INSTS_VMEM_WR,SQ_INSTS_LDS,SQ_INSTS_MFMA,SQ_WAIT_INST_ANY,TCC_HIT,TCC_MISS,TCC_REQ,\
TCC_ATOMIC,TCC_HIT_sum";

fn too_many() -> serde_json::Value {
    let list: Vec<&str> = TOO_MANY.split(',').collect();
    serde_json::json!({ "gfx942": list, "gfx90a": list })
}

#[test]
fn a_set_too_large_for_one_pass_completes_in_one_run_through_rocprof_rs_run() {
    let dir = scratch("too-many");
    let sim = app(&dir, 30_000, &[]);
    let mut cmd = under_rocprof_rs_run(&sim, &["--kernel-trace", "--pmc", TOO_MANY], &dir.join("out"));
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("nothing dropped"), "{}", stderr(&output));
    assert_counters_match_truth(&dir, &[]);
    assert_covered(&dir, &too_many(), 3);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn application_passes_run_the_application_once_per_group() {
    let dir = scratch("passes");
    let sim = app(&dir, 2_000, &[]);
    let args = ["--kernel-trace", "--counter-passes", "application", "--pmc", TOO_MANY, "-o", "app"];
    let output = under_rocprof_rs_run(&sim, &args, &dir.join("out")).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stderr(&output);
    let runs = text.matches("rocprof-rs: output in").count();
    assert!(runs >= 2, "one run per group: {text}");
    assert!(text.contains(&format!("the counters take {runs} passes")), "{text}");
    let mut seen = std::collections::BTreeSet::new();
    for pass in 0..runs {
        let metadata = dir.join("out").join(format!("app-pass{pass}.metadata.json"));
        let metadata: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&metadata).unwrap()).unwrap();
        let samples = metadata["counter_samples"].as_object().expect("counters in every pass");
        assert!(!samples.is_empty(), "pass {pass} collected nothing");
        for counter in samples.keys() {
            assert!(seen.insert(counter.clone()), "{counter} collected in two passes");
        }
    }
    let wanted: std::collections::BTreeSet<String> = TOO_MANY.split(',').map(str::to_owned).collect();
    assert_eq!(seen, wanted, "the passes together collect the whole set");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_consumer_gpu_yields_a_timing_only_trace_and_one_message() {
    let dir = scratch("consumer");
    let output = app(&dir, 6_000, &["--consumer-gpu"]).env("ROCPROF_RS_COUNTER_PRESET", "basic").output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let lines = tool_lines(&output);
    assert_eq!(lines.len(), 2, "one message and the summary: {lines:?}");
    assert_eq!(
        lines[0],
        "rocprof-rs: no hardware counters on GPU 2 (gfx1151) (AGENT_ARCH_NOT_SUPPORTED): it is traced for timing only"
    );
    // Every dispatch, the gfx1151's included, and counters for the other two.
    assert_counters_match_truth(&dir, &[]);
    let basic = serde_json::json!({ "gfx942": preset_counters("basic")["gfx942"], "gfx1151": [] });
    assert_covered(&dir, &basic, 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn misspelled_counters_get_suggestions_and_the_application_runs_on() {
    let dir = scratch("misspelled");
    let output = app(&dir, 500, &[]).env("ROCPROF_RS_PMC", "SQ_WAVSE,TCC_HITT,SQ_INSTS_VALU").output().unwrap();
    assert!(output.status.success(), "the application's exit code is its own: {}", stderr(&output));
    let lines = tool_lines(&output);
    assert_eq!(
        lines,
        ["rocprof-rs: unknown counter SQ_WAVSE (did you mean SQ_WAVES?); unknown counter TCC_HITT (did you mean \
             TCC_HIT?); `rocprof-rs avail` lists each agent's counters; profiling is off, the application \
             continues"]
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn per_instance_values_sum_to_the_truth_and_filters_and_iterations_choose_what_is_counted() {
    let dir = scratch("instances");
    let output = app(&dir, 4_000, &[])
        .env("ROCPROF_RS_PMC", "SQ_WAVES,TCC_HIT,FETCH_SIZE")
        .env("ROCPROF_RS_COUNTER_INSTANCES", "1")
        .env("ROCPROF_RS_KERNEL_INCLUDE_REGEX", "gemm|vector_add")
        .env("ROCPROF_RS_KERNEL_ITERATION_RANGE", "[3-40]")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    // The truth counts only what the tool chose to count; rows per instance add up to it.
    let compare = verify("compare_with_truth.py")
        .arg(dir.join("out"))
        .arg(dir.join("truth.csv"))
        .args(["--tables", "counter", "--sum-instances"])
        .output()
        .unwrap();
    assert_ran(&compare, "the comparison with the truth");
    let check = verify("counter_rows.py")
        .arg(dir.join("out"))
        .args(["--kernels", "gemm|vector_add", "--max-per-kernel", "38"])
        .output()
        .unwrap();
    assert_ran(&check, "the per-instance check");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn avail_lists_agents_counters_and_which_presets_run_in_full() {
    let inventory = avail(true);
    let agents = inventory["agents"].as_array().unwrap();
    let gpus: Vec<&serde_json::Value> = agents.iter().filter(|a| a["gpu"] == true).collect();
    assert_eq!(gpus.iter().map(|a| a["name"].as_str().unwrap()).collect::<Vec<_>>(), ["gfx942", "gfx90a", "gfx1151"]);
    assert_eq!(gpus[0]["cu_count"], 304);
    assert_eq!(gpus[0]["num_xcc"], 8);
    assert_eq!(gpus[0]["l2_bytes"], 4 << 20);
    assert_eq!(gpus[2]["counters"]["unavailable"], "AGENT_ARCH_NOT_SUPPORTED");
    let counters = gpus[0]["counters"].as_array().unwrap();
    let fetch = counters.iter().find(|c| c["name"] == "FETCH_SIZE").unwrap();
    assert_eq!(fetch["derived"], true);
    assert!(fetch["expression"].as_str().unwrap().contains("TCC_BUBBLE"));
    let waves = counters.iter().find(|c| c["name"] == "SQ_WAVES").unwrap();
    assert_eq!((waves["block"].as_str(), waves["instances"].as_u64()), (Some("SQ"), Some(8)));
    for preset in inventory["presets"].as_array().unwrap() {
        let on = preset["agents"].as_array().unwrap();
        assert_eq!(on[0]["complete"], true, "{} on gfx942", preset["name"]);
        assert_eq!(on[2]["complete"], false, "{} on gfx1151", preset["name"]);
    }
    let text = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .args(["avail", "--filter", "tcc_ea0", "--sdk"])
        .arg(built("librocprofiler_sdk_sim.so"))
        .env("ROCPROF_SIM_CONSUMER_GPU", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("GPU 2 (gfx1151)") && text.contains("no counters"), "{text}");
    assert!(text.contains("TCC_EA0_RDREQ_sum") && !text.contains("SQ_WAVES "), "{text}");
}

#[test]
fn avail_without_an_sdk_says_what_is_missing() {
    let output = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .args(["avail", "--sdk", "/nonexistent/librocprofiler-sdk.so.1"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let text = stderr(&output);
    assert!(text.starts_with("rocprof-rs: cannot list counters:") && text.contains("rocprof-rs doctor"), "{text}");
}
