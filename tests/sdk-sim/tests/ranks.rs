//! `rocprof-sim --ranks`: N rank processes meet on their board, each delivers exactly its own
//! truth to a test tool, and the launcher's ranks truth agrees with the ranks' own: the
//! straggler is last by its delay, every rank's collective ends at once, and the waits add up.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use rocprof_sim::ranks::{GRADIENT_BYTES, all_reduce_ns};
use rocprof_sim::truth::compare;
use serde_json::Value;

fn artifact(name: &str) -> PathBuf {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    let path = deps.join(name);
    assert!(path.exists(), "{} was not built", path.display());
    path
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rocprof-sim-ranks-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `rocprof-sim --ranks ...` with the check tool, each rank writing `received.<rank>.csv`.
fn ranks(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-sim"))
        .args(args)
        .arg("--truth")
        .arg(dir.join("truth.csv"))
        .arg("--sdk")
        .arg(artifact("librocprofiler_sdk_sim.so"))
        .env("ROCP_TOOL_LIBRARIES", artifact("librocprof_sim_check_tool.so"))
        .env("ROCPROF_SIM_CHECK_OUT", dir.join("received.%rank%.csv"))
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn u64s(value: &Value) -> Vec<u64> {
    value.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect()
}

/// The collective kernel's rows in a rank's truth, in start order: (start_ns, end_ns).
fn collective_rows(truth: &Path) -> Vec<(u64, u64)> {
    let text = std::fs::read_to_string(truth).unwrap();
    let cells = |line: &str| line.split(',').map(str::to_owned).collect::<Vec<_>>();
    // kernel_symbol rows: column 8 is the kernel id, the last the name.
    let kernel_id = text
        .lines()
        .filter(|l| l.starts_with("kernel_symbol,") && l.contains("ncclDevKernel_AllReduce"))
        .map(|l| cells(l)[8].clone())
        .next()
        .expect("the RCCL code object's kernel");
    let mut rows: Vec<(u64, u64)> = text
        .lines()
        .filter(|l| l.starts_with("kernel_dispatch,"))
        .map(cells)
        .filter(|c| c[8] == kernel_id)
        .map(|c| (c[10].parse().unwrap(), c[11].parse().unwrap()))
        .collect();
    rows.sort_unstable();
    rows
}

#[test]
fn four_ranks_with_a_straggler_deliver_their_truths_and_the_launcher_names_the_straggler() {
    let dir = scratch("straggler");
    // A delay far above what a loaded machine's scheduling adds (tens of ms on 2 busy cores),
    // so the spreads below judge the straggler, not the load.
    let (world, steps, delay_ms) = (4usize, 6usize, 200u64);
    let output = ranks(&dir, &["--ranks", "4", "--steps", "6", "--straggler", "2:3:200", "--agents", "2"]);
    assert!(output.status.success(), "the launcher failed: {}", stderr(&output));
    assert!(stderr(&output).contains("SIMULATED"), "the run must say it is simulated");

    for rank in 0..world {
        let truth = dir.join(format!("truth.rank{rank}.csv"));
        let cmp = compare(&truth, &dir.join(format!("received.{rank}.csv"))).unwrap();
        assert!(cmp.is_exact(), "rank {rank}: {}", cmp.report());
        // ncclCommInitRank, then one ncclAllReduce per step.
        assert_eq!(cmp.truth_rows.get("rccl_api"), Some(&(steps as u64 + 1)), "rank {rank}");
        // Three kernels before the all-reduce, its collective and the optimizer's.
        assert_eq!(cmp.truth_rows.get("kernel_dispatch"), Some(&(steps as u64 * 5)), "rank {rank}");
        assert_eq!(cmp.truth_rows.get("marker_range"), Some(&(steps as u64)), "rank {rank}");
        let text = std::fs::read_to_string(&truth).unwrap();
        let ranges: Vec<&str> = text.lines().filter(|l| l.starts_with("marker_range,")).collect();
        for k in 0..steps {
            let step = format!(",step {k}");
            assert_eq!(ranges.iter().filter(|l| l.contains(",roctxThreadRangeA,") && l.ends_with(&step)).count(), 1);
        }
    }

    let truth: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("ranks-truth.json")).unwrap()).unwrap();
    assert_eq!(truth["world_size"], 4);
    assert_eq!(truth["steps"], 6);
    assert_eq!(truth["straggler"], serde_json::json!({"rank": 2, "step": 3, "delay_ms": 200}));
    let pids: Vec<u64> = truth["ranks"].as_array().unwrap().iter().map(|r| r["pid"].as_u64().unwrap()).collect();
    assert_eq!(pids.len(), world);
    for (rank, pid) in pids.iter().enumerate() {
        let text = std::fs::read_to_string(dir.join(format!("truth.rank{rank}.csv"))).unwrap();
        assert!(text.contains(&format!(" pid={pid}\n")), "rank {rank}'s truth is pid {pid}'s");
    }
    let collectives = truth["collectives"].as_array().unwrap();
    assert_eq!(collectives.len(), steps);
    let per_rank: Vec<Vec<(u64, u64)>> =
        (0..world).map(|r| collective_rows(&dir.join(format!("truth.rank{r}.csv")))).collect();
    let duration = all_reduce_ns(4, GRADIENT_BYTES);
    for (step, c) in collectives.iter().enumerate() {
        assert_eq!((c["step"].as_u64(), c["index"].as_u64()), (Some(step as u64), Some(step as u64)));
        assert_eq!((c["operation"].as_str(), c["api"].as_str()), (Some("AllReduce"), Some("ncclAllReduce")));
        let (arrivals, ends, waits) = (u64s(&c["arrival_ns"]), u64s(&c["end_ns"]), u64s(&c["wait_ns"]));
        let (first, last) = (*arrivals.iter().min().unwrap(), *arrivals.iter().max().unwrap());
        let last_rank = c["last_rank"].as_u64().unwrap() as usize;
        assert_eq!(arrivals[last_rank], last);
        assert_eq!(c["spread_ns"].as_u64(), Some(last - first));
        assert!(
            ends.iter().all(|&e| e == last + duration),
            "step {step}: every rank ends at the last arrival + {duration} ns: {ends:?}"
        );
        for rank in 0..world {
            assert_eq!(waits[rank], last - arrivals[rank], "step {step} rank {rank}");
            assert_eq!(per_rank[rank][step], (arrivals[rank], ends[rank]), "rank {rank}'s kernel of step {step}");
        }
        let others: u64 = (0..world).filter(|&r| r != last_rank).map(|r| waits[r]).sum();
        assert_eq!(c["others_wait_ns"].as_u64(), Some(others));
        let (spread_ms, delay) = ((last - first) as f64 / 1e6, delay_ms as f64);
        if step == 3 {
            assert_eq!((last_rank, waits[2]), (2, 0), "the straggler arrives last");
            // It sleeps the delay where its peers do not; they can only be late by what the
            // machine's load makes them (the queued work of the step before hides up to about 1 ms).
            assert!(
                spread_ms > delay - 2.0 && spread_ms < delay * 1.5,
                "step 3's spread {spread_ms} ms, delay {delay} ms"
            );
        } else {
            // The ranks leave each collective (and, before step 0, ncclCommInitRank) together.
            assert!(spread_ms < delay / 2.0, "step {step}'s spread {spread_ms} ms");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_rank_that_dies_ends_the_run_with_its_status_without_waiting_out_the_timeout() {
    let dir = scratch("dies");
    let started = Instant::now();
    let output = ranks(&dir, &["--ranks", "3", "--steps", "4", "--rank-exit", "1:2:7", "--rank-timeout", "60"]);
    assert_eq!(output.status.code(), Some(7), "the first failure's status: {}", stderr(&output));
    assert!(started.elapsed() < Duration::from_secs(30), "the others stopped waiting once rank 1 was gone");
    let text = stderr(&output);
    assert!(text.contains("rank 1 exited with status 7"), "{text}");
    for rank in [0, 2] {
        assert!(text.contains(&format!("rank {rank}: step 2's ncclAllReduce: rank 1 failed")), "{text}");
    }
    assert!(!dir.join("ranks-truth.json").exists(), "no truth of a failed run");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_straggler_outside_the_run_is_refused() {
    let dir = scratch("outside");
    let output = ranks(&dir, &["--ranks", "4", "--steps", "2", "--straggler", "4:0:10"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--straggler names rank 4 and step 0, but the run has 4 ranks of 2 steps"));
    std::fs::remove_dir_all(dir).unwrap();
}
