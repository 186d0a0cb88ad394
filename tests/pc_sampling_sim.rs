//! PC sampling end to end against the simulated SDK (SIMULATED: no GPU is involved).
//!
//! The simulator's truth lists every sample it delivered (`TRUTH.pc_samples.csv`); the tool's
//! `pc_sample` table sums them per kernel, PC and reason. Each test compares the two exactly:
//! per (code object, PC, method, reason) the table's samples equal the truth's count, every
//! row's kernel is its dispatch's, and the run's metadata counts every sample.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use common::*;
use rocprof_rs_analysis::hotspots::read_pc_samples;
use rocprof_rs_format::Table;
use rocprof_rs_format::pc_sample::{ReasonCategory, SampleMethod};

/// The simulated application on `archs` (one GPU each), with truth, sampling by `vars`.
fn app(dir: &Path, archs: &str, vars: &[(&str, &str)]) -> Command {
    let mut cmd = sim_with_tool(dir, &["--dispatches", "400", "--threads", "2", "--seed", "11", "--gpu-archs", archs]);
    cmd.env("ROCPROF_RS_DOMAINS", "kernel")
        .env("ROCPROFILER_PC_SAMPLING_BETA_ENABLED", "ON")
        .envs(vars.iter().copied());
    for var in ["ROCPROF_RS_PC_SAMPLING_METHOD", "ROCPROF_RS_PC_SAMPLING_UNIT", "ROCPROF_RS_PC_SAMPLING_INTERVAL"] {
        if !vars.iter().any(|(k, _)| *k == var) {
            cmd.env_remove(var);
        }
    }
    cmd
}

fn ran(cmd: &mut Command) -> Output {
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "the run failed:\n{}", stderr(&output));
    output
}

/// (code object, PC offset, method, reason or "issued" or "") -> samples, from the truth.
type Sums = BTreeMap<(u64, u64, String, String), u64>;

/// The truth's samples, summed as the table sums them; and each sample's dispatch.
fn truth_sums(dir: &Path) -> (Sums, Vec<u64>) {
    let text = std::fs::read_to_string(dir.join("truth.pc_samples.csv")).expect("the simulator wrote PC-sample truth");
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no {name} column"));
    let (record, dispatch, code_object, offset) =
        (at("record"), at("dispatch_id"), at("code_object_id"), at("code_object_offset"));
    let (issued, reason) = (at("wave_issued"), at("reason_not_issued"));
    const REASONS: [&str; 10] = [
        "NONE",
        "NO_INSTRUCTION_AVAILABLE",
        "ALU_DEPENDENCY",
        "WAITCNT",
        "INTERNAL_INSTRUCTION",
        "BARRIER_WAIT",
        "ARBITER_NOT_WIN",
        "ARBITER_WIN_EX_STALL",
        "OTHER_WAIT",
        "SLEEP_WAIT",
    ];
    let (mut sums, mut dispatches) = (Sums::new(), Vec::new());
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let method = match cells[record] {
            "host_trap_sample" => "host_trap",
            "stochastic_sample" => "stochastic",
            "pc_samples_dropped" => {
                assert_eq!(cells[1], "0", "the buffer dropped samples: the comparison would not be exact");
                continue;
            }
            other => panic!("unknown truth record {other}"),
        };
        let why = match (method, cells[issued]) {
            ("host_trap", _) => String::new(),
            (_, "1") => "issued".to_owned(),
            _ => REASONS[cells[reason].parse::<usize>().unwrap()].to_owned(),
        };
        let key = (cells[code_object].parse().unwrap(), cells[offset].parse().unwrap(), method.to_owned(), why);
        *sums.entry(key).or_default() += 1;
        dispatches.push(cells[dispatch].parse().unwrap());
    }
    (sums, dispatches)
}

/// The table's samples, summed the same way; asserts each row's kernel is its dispatch's.
fn table_sums(dir: &Path) -> Sums {
    let rows = read_pc_samples(&dir.join("out")).expect("the pc_sample table reads back");
    let kernel_of = kernels_of_dispatches(&dir.join("out"));
    let mut sums = Sums::new();
    for row in rows {
        assert_eq!(kernel_of.get(&row.dispatch_id), Some(&row.kernel_id), "{row:?}: not its dispatch's kernel");
        assert_ne!(row.agent_id, 0, "{row:?}: no agent");
        let why = match (row.method, row.category) {
            (SampleMethod::HostTrap, _) => String::new(),
            (_, ReasonCategory::Issued) => "issued".to_owned(),
            _ => row.reason.clone().expect("a stochastic stall names its reason"),
        };
        *sums.entry((row.code_object_id, row.pc_offset, row.method.name().to_owned(), why)).or_default() += row.samples;
    }
    sums
}

/// dispatch id -> kernel id, from the `kernel_dispatch` table.
fn kernels_of_dispatches(out: &Path) -> BTreeMap<u64, u64> {
    let mut kernels = BTreeMap::new();
    rocprof_rs_analysis::read::batches(out, Table::KernelDispatch, |b| {
        let (dispatch, kernel) = (b.col("dispatch_id")?, b.col("kernel_id")?);
        for i in 0..b.rows() {
            kernels.insert(dispatch.u64(i), kernel.u64(i));
        }
        Ok(())
    })
    .expect("the kernel_dispatch table reads back");
    kernels
}

fn metadata_count(dir: &Path, key: &str) -> u64 {
    let out = dir.join("out");
    let file = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".metadata.json"))
        .expect("a run-metadata file");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    json[key].as_u64().unwrap_or_else(|| panic!("no {key} in {json}"))
}

fn assert_table_is_truth(dir: &Path) {
    let (truth, dispatches) = truth_sums(dir);
    assert!(!dispatches.is_empty(), "the simulator delivered no samples: nothing to compare");
    assert_eq!(table_sums(dir), truth);
    assert_eq!(metadata_count(dir, "pc_samples"), dispatches.len() as u64);
    assert_eq!(metadata_count(dir, "pc_samples_dropped"), 0);
}

#[test]
fn host_trap_samples_equal_the_truth_on_both_generations() {
    let dir = scratch("pc-host-trap");
    ran(&mut app(
        &dir,
        "gfx942,gfx90a",
        &[("ROCPROF_RS_PC_SAMPLING_METHOD", "host_trap"), ("ROCPROF_RS_PC_SAMPLING_INTERVAL", "2")],
    ));
    assert_table_is_truth(&dir);
}

#[test]
fn stochastic_samples_equal_the_truth_and_an_agent_without_it_is_named() {
    let dir = scratch("pc-stochastic");
    let output = ran(&mut app(
        &dir,
        "gfx942,gfx90a",
        &[("ROCPROF_RS_PC_SAMPLING_METHOD", "stochastic"), ("ROCPROF_RS_PC_SAMPLING_INTERVAL", "4096")],
    ));
    assert_table_is_truth(&dir);
    let lines = tool_lines(&output);
    let refused: Vec<&String> = lines.iter().filter(|l| l.contains("no PC sampling")).collect();
    assert_eq!(refused.len(), 1, "{lines:?}");
    assert!(refused[0].contains("gfx90a") && refused[0].contains("host_trap (time"), "{}", refused[0]);
}

#[test]
fn without_the_method_anywhere_tracing_goes_on_and_the_exit_code_is_the_apps() {
    let dir = scratch("pc-refused");
    let output = ran(&mut app(&dir, "gfx90a", &[("ROCPROF_RS_PC_SAMPLING_METHOD", "stochastic")]));
    let lines = tool_lines(&output);
    assert!(lines.iter().any(|l| l.contains("no PC sampling on agent") && l.contains("offers host_trap")), "{lines:?}");
    assert!(complete_files(&dir.join("out/kernel_dispatch")) > 0, "the trace went on");
    assert!(read_pc_samples(&dir.join("out")).unwrap_or_default().is_empty());
}

#[test]
fn without_the_sdks_beta_switch_the_line_says_how_to_turn_it_on() {
    let dir = scratch("pc-beta");
    let mut cmd = app(&dir, "gfx942", &[("ROCPROF_RS_PC_SAMPLING_METHOD", "host_trap")]);
    cmd.env_remove("ROCPROFILER_PC_SAMPLING_BETA_ENABLED");
    let lines = tool_lines(&ran(&mut cmd));
    assert!(lines.iter().any(|l| l.contains("ROCPROFILER_PC_SAMPLING_BETA_ENABLED=ON")), "{lines:?}");
    assert!(complete_files(&dir.join("out/kernel_dispatch")) > 0, "the trace went on");
}

#[test]
fn madengines_pc_sampling_profile_runs_and_fills_the_table() {
    let dir = scratch("pc-madengine");
    let profile = dir.join("profile.json");
    std::fs::write(&profile, r#"{"tools": [{"name": "rocprofv3_pc_sampling"}]}"#).unwrap();
    let mut sim = app(&dir, "gfx942", &[]);
    sim.env_remove("ROCPROFILER_PC_SAMPLING_BETA_ENABLED");
    let mut cmd = under_rocprof_rs_run(&sim, &["--profile", profile.to_str().unwrap()], &dir.join("out"));
    cmd.env_remove("ROCPROFILER_PC_SAMPLING_BETA_ENABLED").env_remove("ROCPROF_RS_OUTPUT_DIR");
    for var in ["ROCPROF_RS_PC_SAMPLING_METHOD", "ROCPROF_RS_PC_SAMPLING_UNIT", "ROCPROF_RS_PC_SAMPLING_INTERVAL"] {
        cmd.env_remove(var);
    }
    let output = ran(&mut cmd);
    let lines = tool_lines(&output);
    // The profile asks for stochastic sampling every 1000 µs; the agent counts cycles.
    assert!(lines.iter().any(|l| l.contains("PC sampling on agent") && l.contains("cycles")), "{lines:?}");
    assert_table_is_truth(&dir);
}
