//! The simulated SDK end to end: a test tool loaded through each discovery path receives exactly
//! the ground truth; a tool that keeps record pointers is caught; DISCARD counts its drops.

use std::path::{Path, PathBuf};
use std::process::Command;

use rocprof_sim::truth::compare;

fn artifact(name: &str) -> PathBuf {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    let path = deps.join(name);
    assert!(path.exists(), "{} was not built", path.display());
    path
}

fn sdk() -> PathBuf {
    artifact("librocprofiler_sdk_sim.so")
}

fn check_tool() -> PathBuf {
    artifact("librocprof_sim_check_tool.so")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rocprof-sim-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the driver with `dispatches` over `threads`; `setup` picks the discovery path.
fn run(dir: &Path, dispatches: u64, threads: u32, setup: impl FnOnce(&mut Command)) -> (PathBuf, PathBuf) {
    let truth = dir.join("truth.csv");
    let got = dir.join("received.csv");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rocprof-sim"));
    cmd.args(["--dispatches", &dispatches.to_string(), "--threads", &threads.to_string(), "--seed", "7"])
        .arg("--truth")
        .arg(&truth)
        .arg("--sdk")
        .arg(sdk())
        .env("ROCPROF_SIM_CHECK_OUT", &got)
        .env_remove("ROCP_TOOL_LIBRARIES")
        .env_remove("LD_PRELOAD");
    setup(&mut cmd);
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "driver failed: {}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("SIMULATED"), "the run must say it is simulated");
    (truth, got)
}

fn assert_exact(dir: &Path, truth: &Path, got: &Path) {
    let cmp = compare(truth, got).unwrap();
    assert!(cmp.is_exact(), "{}", cmp.report());
    assert_eq!(cmp.truth_rows.get("kernel_dispatch"), Some(&1_000_000));
    let text = std::fs::read_to_string(got).unwrap();
    assert!(text.contains("# drop_count=0\n"), "LOSSLESS must drop nothing");
    assert!(!text.contains("lifecycle_violation") && !text.contains("check-tool:"), "tool saw an SDK error");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn rocp_tool_libraries_delivers_exactly_the_truth() {
    let dir = scratch("rocp-tool-libraries");
    let (truth, got) = run(&dir, 1_000_000, 8, |cmd| {
        cmd.env("ROCP_TOOL_LIBRARIES", check_tool());
    });
    assert_exact(&dir, &truth, &got);
}

#[test]
fn ld_preload_delivers_exactly_the_truth() {
    let dir = scratch("ld-preload");
    let (truth, got) = run(&dir, 1_000_000, 8, |cmd| {
        cmd.env("LD_PRELOAD", check_tool());
    });
    assert_exact(&dir, &truth, &got);
}

#[test]
fn force_configure_delivers_exactly_the_truth() {
    let dir = scratch("force-configure");
    let (truth, got) = run(&dir, 1_000_000, 8, |cmd| {
        cmd.arg("--force-configure").arg(check_tool());
    });
    assert_exact(&dir, &truth, &got);
}

#[test]
fn a_tool_that_keeps_record_pointers_reads_poison() {
    let dir = scratch("retain");
    let (truth, got) = run(&dir, 50_000, 4, |cmd| {
        cmd.env("ROCP_TOOL_LIBRARIES", check_tool()).env("ROCPROF_SIM_CHECK_RETAIN", "1");
    });
    let cmp = compare(&truth, &got).unwrap();
    assert!(!cmp.is_exact(), "retained pointers must not read back the records");
    assert!(cmp.missing_count > 0, "{}", cmp.report());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn discard_counts_every_record_it_drops() {
    let dir = scratch("discard");
    let (truth, got) = run(&dir, 100_000, 8, |cmd| {
        cmd.env("ROCP_TOOL_LIBRARIES", check_tool())
            .env("ROCPROF_SIM_CHECK_POLICY", "discard")
            .env("ROCPROF_SIM_CHECK_BUFFER", "4096");
    });
    let cmp = compare(&truth, &got).unwrap();
    let text = std::fs::read_to_string(&got).unwrap();
    let comment = |key: &str| -> u64 {
        let prefix = format!("# {key}=");
        text.lines().find_map(|l| l.strip_prefix(prefix.as_str())).unwrap().parse().unwrap()
    };
    let (reported, drops) = (comment("drop_count"), comment("sim_drop_count"));
    assert_eq!(cmp.unexpected_count, 0, "{}", cmp.report());
    assert!(drops > 0, "a 4 KiB buffer must drop records");
    // Buffer-traced records are the ones that can be dropped; callbacks are never buffered.
    let buffered =
        ["hip_api", "marker_api", "rccl_api", "kernel_dispatch", "memory_copy", "memory_allocation", "scratch_memory"];
    let truth_buffered: u64 = buffered.iter().map(|k| cmp.truth_rows.get(*k).copied().unwrap_or(0)).sum();
    let got_buffered: u64 = buffered.iter().map(|k| cmp.received_rows.get(*k).copied().unwrap_or(0)).sum();
    assert_eq!(drops, truth_buffered - got_buffered, "drop_count = truth - delivered");
    // The SDK reports the cumulative count with each callback, so drops after the last one stay
    // unreported; what was reported can lag, never lead.
    assert!(reported > 0 && reported <= drops, "reported {reported} of {drops} drops");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn rocp_tool_libraries_that_cannot_load_aborts_like_the_sdk() {
    let dir = scratch("abort");
    let output = Command::new(env!("CARGO_BIN_EXE_rocprof-sim"))
        .args(["--dispatches", "10"])
        .arg("--truth")
        .arg(dir.join("t.csv"))
        .arg("--sdk")
        .arg(sdk())
        .env("ROCP_TOOL_LIBRARIES", "/nonexistent/libtool.so")
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("error dlopening '/nonexistent/libtool.so'"));
    std::fs::remove_dir_all(dir).unwrap();
}

/// Runs a counting workload with `counters` on two data-centre GPUs plus the consumer APU.
fn run_counting(name: &str, counters: &str) -> (PathBuf, rocprof_sim::truth::Comparison, String) {
    let dir = scratch(name);
    let (truth, got) = run(&dir, 30_000, 4, |cmd| {
        cmd.arg("--consumer-gpu").env("ROCP_TOOL_LIBRARIES", check_tool()).env("ROCPROF_SIM_CHECK_COUNTERS", counters);
    });
    let cmp = compare(&truth, &got).unwrap();
    let text = std::fs::read_to_string(&got).unwrap();
    (dir, cmp, text)
}

#[test]
fn counter_values_sum_to_the_truth_of_every_dispatch() {
    // Base counters over several blocks and dimensions, and derived ones (a sum, a ratio).
    let counters = "SQ_WAVES,SQ_INSTS_VALU,GRBM_GUI_ACTIVE,TCC_HIT_sum,TCP_TCC_READ_REQ,L2CacheHit,FETCH_SIZE";
    let (dir, cmp, text) = run_counting("counters", counters);
    assert!(cmp.is_exact(), "{}", cmp.report());
    let dispatches = cmp.truth_rows["kernel_dispatch"];
    let rows = cmp.truth_rows["counter"];
    // Dispatches go round-robin over the three GPUs; the gfx1151 third gets none, and gfx942
    // has no L2CacheHit (SDK 1.0 defines it up to gfx90a).
    assert!(rows > 0 && rows < dispatches * 7, "{rows} counter rows for {dispatches} dispatches");
    let gfx90a = text.lines().filter(|l| l.contains("L2CacheHit")).count() as u64;
    assert!(gfx90a > 0 && gfx90a < rows / 6, "L2CacheHit only on the gfx90a: {gfx90a} of {rows}");
    assert!(
        text.contains("# check-tool: counters on gfx1151: iterate_agent_supported_counters: ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED"),
        "the consumer GPU must refuse counters as SDK 1.0 does"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_counter_set_beyond_one_pass_is_refused_with_exceeds_hw_limit() {
    // Nine SQ counters; the SQ block counts eight per pass.
    let counters = "SQ_WAVES,SQ_BUSY_CYCLES,SQ_INSTS_VALU,SQ_INSTS_SALU,SQ_INSTS_SMEM,SQ_INSTS_LDS,SQ_INSTS_MFMA,SQ_ACTIVE_INST_VALU,SQ_WAIT_INST_ANY";
    let (dir, cmp, text) = run_counting("exceeds", counters);
    assert!(cmp.is_exact(), "{}", cmp.report());
    assert_eq!(cmp.truth_rows.get("counter"), None, "no agent can collect the set");
    for arch in ["gfx942", "gfx90a"] {
        assert!(
            text.contains(&format!(
                "# check-tool: counters on {arch}: create_counter_config: ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT"
            )),
            "{arch} must refuse the set"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}
