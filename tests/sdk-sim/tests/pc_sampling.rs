//! PC sampling on the simulated SDK: the configuration query and the configure checks answer as
//! SDK 1.0 does, and the samples a tool receives are exactly the PC-sample truth, for host trap
//! on an MI200-only machine and stochastic on an MI300 one, dropped samples included.

use std::path::{Path, PathBuf};
use std::process::Command;

use rocprof_sim::pc_truth::path_beside;
use rocprof_sim::truth::compare;
use rocprofiler_sdk_sys::*;

fn artifact(name: &str) -> PathBuf {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    let path = deps.join(name);
    assert!(path.exists(), "{} was not built", path.display());
    path
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rocprof-sim-pc-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the driver under the check tool with PC sampling `spec`; returns the truth and the
/// tool's output paths.
fn run(dir: &Path, spec: &str, setup: impl FnOnce(&mut Command)) -> (PathBuf, PathBuf) {
    let truth = dir.join("truth.csv");
    let got = dir.join("received.csv");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rocprof-sim"));
    cmd.args(["--dispatches", "3000", "--threads", "3", "--seed", "11"])
        .arg("--truth")
        .arg(&truth)
        .arg("--sdk")
        .arg(artifact("librocprofiler_sdk_sim.so"))
        .env("ROCP_TOOL_LIBRARIES", artifact("librocprof_sim_check_tool.so"))
        .env("ROCPROF_SIM_CHECK_OUT", &got)
        .env("ROCPROF_SIM_CHECK_PC_SAMPLING", spec)
        .env("ROCPROFILER_PC_SAMPLING_BETA_ENABLED", "1")
        .env_remove("LD_PRELOAD")
        .env_remove("ROCPROF_SIM_GPU_ARCHS");
    setup(&mut cmd);
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "driver failed: {}", String::from_utf8_lossy(&output.stderr));
    (truth, got)
}

/// The `# pc_query` and `# pc_probe` / `# pc_configure` comment lines of a tool output, as
/// `(agent, what, value)`.
fn notes(got: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(got).unwrap();
    text.lines()
        .filter_map(|line| {
            let fields: Vec<(&str, &str)> =
                line.strip_prefix("# pc_")?.split(' ').skip(1).filter_map(|f| f.split_once('=')).collect();
            let get = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| (*v).to_owned());
            let agent = get("agent")?;
            if line.starts_with("# pc_query") {
                Some((agent, "query".to_owned(), format!("{} {}", get("status")?, get("configs").unwrap_or_default())))
            } else if line.starts_with("# pc_probe") {
                Some((agent, get("case")?, get("status")?))
            } else {
                Some((agent, "configure".to_owned(), get("status")?))
            }
        })
        .collect()
}

fn note(notes: &[(String, String, String)], agent: &str, what: &str) -> String {
    notes
        .iter()
        .find(|(a, w, _)| a == agent && w == what)
        .map(|(_, _, v)| v.clone())
        .unwrap_or_else(|| panic!("no {what} note for {agent} in {notes:?}"))
}

#[test]
fn agents_answer_the_query_and_refuse_bad_configurations_as_sdk_1_0_does() {
    let dir = scratch("probe");
    let (_, got) = run(&dir, "host_trap:1", |cmd| {
        cmd.arg("--consumer-gpu").env("ROCPROF_SIM_CHECK_PC_PROBE", "1");
    });
    let notes = notes(&got);
    let host_trap = "host_trap/3/1/1000000/0";
    assert_eq!(note(&notes, "gfx942", "query"), format!("0 {host_trap};stochastic/2/256/1048576/1"));
    assert_eq!(note(&notes, "gfx90a", "query"), format!("0 {host_trap}"));
    let not_available = ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE.to_string();
    assert_eq!(note(&notes, "gfx1151", "query"), format!("{not_available} "));
    let cpu = notes.iter().find(|(a, w, _)| a.starts_with("AMD") && w == "query").expect("the CPU agent's answer");
    assert_eq!(cpu.2, format!("{not_available} "));
    let status = |v: u32| v.to_string();
    for gpu in ["gfx942", "gfx90a"] {
        for (case, expected) in [
            ("unit_not_offered", ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT),
            ("below_min_interval", ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT),
            ("above_max_interval", ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT),
            ("method_none", ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT),
            ("unknown_buffer", ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND),
            ("unknown_context", ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND),
            ("unknown_agent", ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND),
            ("configure", ROCPROFILER_STATUS_SUCCESS),
            ("second_configuration", ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED),
            ("second_context", ROCPROFILER_STATUS_ERROR),
        ] {
            assert_eq!(note(&notes, gpu, case), status(expected), "{gpu} {case}");
        }
    }
    assert_eq!(note(&notes, "gfx90a", "method_not_offered"), not_available);
    assert_eq!(note(&notes, "gfx942", "not_a_power_of_two"), status(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn without_the_beta_switch_pc_sampling_is_not_implemented() {
    let dir = scratch("no-beta");
    let (truth, got) = run(&dir, "host_trap:1", |cmd| {
        cmd.env_remove("ROCPROFILER_PC_SAMPLING_BETA_ENABLED");
    });
    let notes = notes(&got);
    let queries: Vec<&String> = notes.iter().filter(|(_, w, _)| w == "query").map(|(_, _, v)| v).collect();
    assert_eq!(queries.len(), 3, "{notes:?}");
    assert!(queries.iter().all(|v| **v == format!("{ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED} ")), "{notes:?}");
    assert!(!path_beside(&truth).exists(), "nothing was sampled, so the truth has no PC samples");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Compares the PC-sample tables exactly and returns the truth's rows per record kind.
fn assert_samples_exact(truth: &Path, got: &Path) -> std::collections::HashMap<String, u64> {
    let cmp = compare(&path_beside(truth), &path_beside(got)).unwrap();
    assert!(cmp.is_exact(), "{}", cmp.report());
    let main = compare(truth, got).unwrap();
    assert!(main.is_exact(), "the other records are unchanged: {}", main.report());
    cmp.truth_rows
}

#[test]
fn host_trap_samples_on_an_mi200_machine_are_exactly_the_truth() {
    let dir = scratch("host-trap");
    let (truth, got) = run(&dir, "host_trap:1", |cmd| {
        cmd.args(["--gpu-archs", "gfx90a,gfx90a"]);
    });
    let rows = assert_samples_exact(&truth, &got);
    assert!(rows.get("host_trap_sample").copied().unwrap_or(0) > 1000, "{rows:?}");
    assert_eq!(rows.get("stochastic_sample"), None);
    let text = std::fs::read_to_string(path_beside(&truth)).unwrap();
    assert!(text.ends_with("pc_samples_dropped,0\n"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn stochastic_samples_on_an_mi300_machine_are_exactly_the_truth() {
    let dir = scratch("stochastic");
    // The gfx90a offers no stochastic sampling: only the gfx942's dispatches are sampled.
    let (truth, got) = run(&dir, "stochastic:4096", |cmd| {
        cmd.args(["--gpu-archs", "gfx942,gfx90a"]);
    });
    let rows = assert_samples_exact(&truth, &got);
    assert!(rows.get("stochastic_sample").copied().unwrap_or(0) > 1000, "{rows:?}");
    assert_eq!(rows.get("host_trap_sample"), None);
    let text = std::fs::read_to_string(path_beside(&truth)).unwrap();
    let issue_columns = text.lines().filter(|l| l.starts_with("stochastic_sample")).map(|l| {
        let cells: Vec<&str> = l.split(',').collect();
        (cells[22] == "1", cells[24] != "0")
    });
    let (mut issued, mut waiting) = (0, 0);
    for (wave_issued, has_reason) in issue_columns {
        assert_ne!(wave_issued, has_reason, "a reason exactly when the wave did not issue");
        if wave_issued { issued += 1 } else { waiting += 1 }
    }
    assert!(issued > 0 && waiting > 0, "{issued} issued, {waiting} not");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn samples_a_discard_buffer_drops_are_left_out_of_the_truth_and_counted() {
    let dir = scratch("discard");
    let (truth, got) = run(&dir, "host_trap:1", |cmd| {
        // The variable, as a tool's own process would read it, instead of --gpu-archs.
        cmd.env("ROCPROF_SIM_GPU_ARCHS", "gfx90a")
            .env("ROCPROF_SIM_CHECK_POLICY", "discard")
            .env("ROCPROF_SIM_CHECK_BUFFER", "8192");
    });
    let cmp = compare(&path_beside(&truth), &path_beside(&got)).unwrap();
    assert!(cmp.is_exact(), "{}", cmp.report());
    let text = std::fs::read_to_string(path_beside(&truth)).unwrap();
    let dropped: u64 = text.lines().find_map(|l| l.strip_prefix("pc_samples_dropped,")).unwrap().parse().unwrap();
    assert!(dropped > 0, "an 8 KiB buffer must drop samples");
    let queries = notes(&got);
    assert!(queries.iter().all(|(agent, _, _)| agent != "gfx942"), "an MI200-only machine: {queries:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_unknown_gpu_architecture_is_one_clear_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_rocprof-sim"))
        .args(["--gpu-archs", "gfx90a,gfx1030", "--no-truth", "--sdk"])
        .arg(artifact("librocprofiler_sdk_sim.so"))
        .env_remove("ROCP_TOOL_LIBRARIES")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`gfx1030` (item 2) is not a modelled GPU architecture"), "{stderr}");
}
