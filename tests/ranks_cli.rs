//! `rocprof-rs ranks` on run directories written here, as many processes of a distributed job
//! write them (one stem each, every table's files side by side, written by the format's own
//! writer), whose answers are worked out by hand in each test: two streams overlapping, a
//! straggler in one step, ranks without collectives, a missing step, files without rank
//! columns, hosts whose clocks differ, and bad input. Then 16 ranks of a SIMULATED training job
//! under `rocprof-rs run`, held to the simulator's truth (`ranks-truth.json`).

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;

use common::{scratch, stderr, traced_ranks};
use rocprof_rs_format::files::WriteOptions;
use rocprof_rs_format::origin::Origin;
use rocprof_rs_format::writer::{AnyTableWriter, TableWriter};
use rocprof_rs_format::{self as format, Table, keys};
use serde_json::{Value, json};

fn rocprof_rs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap()
}

const ALL_REDUCE: &str = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

/// One process of the job, and what it wrote.
#[derive(Default)]
struct Process<'a> {
    host: Option<&'a str>,
    rank: Option<i32>,
    pid: u32,
    /// (name, start, end, queue)
    kernels: Vec<(&'a str, i64, i64, u64)>,
    /// (message, start, end)
    markers: Vec<(&'a str, i64, i64)>,
    /// (operation, start, end)
    api: Vec<(&'a str, i64, i64)>,
    /// Whether its metadata file names its host (files of format 2 have only that).
    host_in_metadata: bool,
}

impl Process<'_> {
    fn stem(&self) -> String {
        format!("{}-{}", self.host.unwrap_or("unknown"), self.pid)
    }

    fn options(&self, dir: &Path, origin: bool) -> WriteOptions {
        let mut options = WriteOptions::new(dir, self.stem());
        if origin {
            options.origin = Origin { host: self.host.map(str::to_owned), rank: self.rank, ..Origin::default() };
        }
        options
    }

    /// Writes its tables into `dir` with the format's writer; with `origin`, its host and rank
    /// in the origin columns (format 3), else only in its metadata file.
    fn write(&self, dir: &Path, origin: bool) {
        let options = self.options(dir, origin);
        let mut dispatch = TableWriter::<format::KernelDispatch>::new(&options, Table::KernelDispatch, Vec::new());
        for (i, &(name, start, end, queue)) in self.kernels.iter().enumerate() {
            let name: Arc<str> = name.into();
            dispatch.rows.push(format::KernelDispatchRow {
                kernel_name: &name,
                start_ns: start,
                duration_ns: end - start,
                grid_x: 1,
                grid_y: 1,
                grid_z: 1,
                block_x: 1,
                block_y: 1,
                block_z: 1,
                regs: 0,
                shared_mem: 0,
                stream_id: None,
                end_ns: end,
                dispatch_id: i as u64 + 1,
                correlation_id: i as u64 + 1,
                external_id: 0,
                kernel_id: 1,
                agent_id: 1,
                queue_id: queue,
                thread_id: 1,
                pid: self.pid,
                mangled_name: &name,
                accum_vgpr: 0,
                sgpr: 0,
                scratch_size: 0,
                kernarg_size: 0,
                pipe_id: None,
                vendor: &format::vendor::AMD,
                graph_id: 0,
                graph_node_id: 0,
                cluster_x: 0,
                cluster_y: 0,
                cluster_z: 0,
            });
        }
        let mut marker = TableWriter::<format::Marker>::new(&options, Table::Marker, Vec::new());
        for (i, &(message, start, end)) in self.markers.iter().enumerate() {
            marker.rows.push(format::MarkerRow {
                message,
                operation: "roctxRangePushA",
                start_ns: start,
                end_ns: end,
                duration_ns: end - start,
                depth: Some(0),
                correlation_id: i as u64,
                thread_id: 1,
                pid: self.pid,
                vendor: &format::vendor::AMD,
                domain: None,
            });
        }
        let mut api = TableWriter::<format::ApiCall>::new(&options, Table::RcclApi, Vec::new());
        for (i, &(operation, start, end)) in self.api.iter().enumerate() {
            let operation: Arc<str> = operation.into();
            api.rows.push(format::ApiCallRow {
                operation: &operation,
                start_ns: start,
                end_ns: end,
                duration_ns: end - start,
                correlation_id: i as u64,
                ancestor_id: 0,
                thread_id: 1,
                pid: self.pid,
            });
        }
        for writer in [&mut dispatch as &mut dyn AnyTableWriter, &mut marker, &mut api] {
            writer.write_if(1, &Vec::new).unwrap();
            writer.files_mut().close(Vec::new()).unwrap();
        }
        let mut meta = json!({ keys::PID: self.pid.to_string() });
        if let (true, Some(host)) = (self.host_in_metadata, self.host) {
            meta[keys::HOST] = Value::from(host);
        }
        std::fs::write(dir.join(keys::metadata_file_name(&self.stem())), meta.to_string()).unwrap();
    }
}

/// A `process` table row of a process on `host` whose CLOCK_REALTIME was `offset` ahead of
/// its CLOCK_BOOTTIME.
fn process_row(dir: &Path, host: &str, rank: Option<i32>, pid: u32, offset: i64) {
    let mut options = WriteOptions::new(dir, format!("{host}-{pid}"));
    options.origin = Origin { host: Some(host.to_owned()), rank, ..Origin::default() };
    let mut process = TableWriter::<format::Process>::new(&options, Table::Process, Vec::new());
    process.rows.push(format::ProcessRow {
        pid,
        command_line: "train.py",
        tool_version: "test",
        format_version: format::FORMAT_VERSION,
        backend: "rocprofiler-sdk",
        vendor: "amd",
        start_ns: 1_000,
        end_ns: 1_000_000,
        start_unix_ns: 1_000 + offset,
        records: 0,
        dropped: 0,
        metadata: "{}",
    });
    process.write_if(1, &Vec::new).unwrap();
    process.files_mut().close(Vec::new()).unwrap();
}

fn json(dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["ranks", dir.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let output = rocprof_rs(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The figures of the rank named `name`.
fn rank<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["ranks"].as_array().unwrap().iter().find(|r| r["name"] == name).unwrap_or_else(|| panic!("{name}: {report}"))
}

/// The fields `names` of `r`, as a JSON array.
fn figures(r: &Value, names: &[&str]) -> Value {
    names.iter().map(|n| r[*n].clone()).collect()
}

/// Three ranks of two steps: a GEMM on queue 1 and an all-reduce on queue 2 that overlaps its
/// end, rank 2 late to the second all-reduce (its step 1 is the long one).
fn three_ranks(dir: &Path) {
    let arrivals = [[300, 1300], [310, 1310], [320, 1700]];
    for (r, arrival) in arrivals.iter().enumerate() {
        let mut kernels = Vec::new();
        for (step, &at) in arrival.iter().enumerate() {
            let base = 1000 * step as i64;
            kernels.push(("gemm", base, base + 400, 1));
            // Every all-reduce ends together, once the last rank has arrived.
            kernels.push((ALL_REDUCE, at, [500, 1800][step], 2));
        }
        let step_1 = if r == 2 { 1000 } else { 800 };
        let process = Process {
            host: Some("node1"),
            rank: Some(r as i32),
            pid: 100 + r as u32,
            kernels,
            markers: vec![("train_step", 0, 500), ("train_step", 1000, 1000 + step_1), ("other", 0, 9_999)],
            api: vec![
                ("ncclCommInitRank", -100 + r as i64, -50),
                ("ncclAllReduce", arrival[0] - 5, arrival[0]),
                ("ncclAllReduce", arrival[1] - 5, arrival[1]),
            ],
            host_in_metadata: true,
        };
        process.write(dir, true);
    }
}

#[test]
fn overlap_on_two_streams_and_a_straggler_in_one_step() {
    let dir = scratch("ranks-three");
    three_ranks(&dir);
    let report = json(&dir, &["--step-marker", "^train_step$"]);
    let names =
        ["kernels", "collectives", "span_ns", "busy_ns", "idle_ns", "compute_ns", "communication_ns", "overlap_ns"];
    // Rank 0: GEMMs [0,400) [1000,1400), all-reduces [300,500) [1300,1800): busy 500 + 800,
    // communication 200 + 500, overlap 100 + 100.
    assert_eq!(figures(rank(&report, "0"), &names), json!([4, 2, 1800, 1300, 500, 800, 700, 200]));
    assert_eq!(rank(&report, "0")["overlap_share"], 200.0 / 700.0);
    assert_eq!(figures(rank(&report, "1"), &names), json!([4, 2, 1800, 1300, 500, 800, 680, 180]));
    // Rank 2's second all-reduce [1700,1800) starts after its GEMM: no overlap, a gap.
    assert_eq!(figures(rank(&report, "2"), &names), json!([4, 2, 1800, 1000, 800, 800, 280, 80]));
    assert_eq!(figures(rank(&report, "2"), &["host", "pid"]), json!(["node1", 102]));

    // Step 0: every rank 500 (a tie: rank 0, the first); step 1: 800, 800, 1000, so rank 2 is
    // 200 over the median.
    let steps: Vec<Value> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| json!([s["step"], s["median_ns"], s["slowest"]["rank"], s["excess_ns"]]))
        .collect();
    assert_eq!(steps, [json!([1, 500.0, 0, 0.0]), json!([2, 800.0, 2, 200.0])]);
    let straggler = &report["stragglers"][0];
    assert_eq!(figures(straggler, &["excess_total_ns", "steps"]), json!([200.0, [2]]));
    assert_eq!(straggler["rank"]["name"], "2");

    // All-reduce 1: arrivals 300, 310, 320; all-reduce 2: 1300, 1310, 1700.
    let collectives: Vec<Value> = report["collectives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| json!([c["operation"], c["index"], c["spread_ns"], c["last"]["rank"], c["others_wait_ns"]]))
        .collect();
    assert_eq!(collectives, [json!(["AllReduce", 1, 20, 2, 30]), json!(["AllReduce", 2, 400, 2, 790])]);
    let waits = ["last_arrivals", "collective_wait_ns", "kept_waiting_ns", "slowest_steps", "step_excess_ns"];
    assert_eq!(figures(rank(&report, "0"), &waits), json!([0, 420, 0, 1, 0.0]));
    assert_eq!(figures(rank(&report, "1"), &waits), json!([0, 400, 0, 0, 0.0]));
    assert_eq!(figures(rank(&report, "2"), &waits), json!([2, 0, 820, 1, 200.0]));

    // The RCCL calls, matched the same way: the init (Other) and the two all-reduces.
    let api: Vec<Value> = report["api_collectives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| json!([c["operation"], c["index"], c["spread_ns"], c["complete"]]))
        .collect();
    assert_eq!(
        api,
        [json!(["AllReduce", 1, 20, true]), json!(["AllReduce", 2, 400, true]), json!(["Other", 1, 2, true])]
    );
    assert_eq!(report["notes"], json!([]));

    // The table names the straggler; --top keeps the worst step and collective.
    let output = rocprof_rs(&["ranks", dir.to_str().unwrap(), "--step-marker", "train_step$", "--top", "1"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("Stragglers") && text.contains("(1 more not shown; --top shows more)"), "{text}");
    let top = json(&dir, &["--step-marker", "train_step", "--top", "1"]);
    assert_eq!(json!([top["steps"][0]["step"], top["steps_omitted"]]), json!([2, 1]));
    assert_eq!(json!([top["collectives"][0]["index"], top["collectives_omitted"]]), json!([2, 1]));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn csv_sections_to_stdout_and_to_files() {
    let dir = scratch("ranks-csv");
    three_ranks(&dir);
    let output = rocprof_rs(&["ranks", dir.to_str().unwrap(), "--format", "csv"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "name,rank,host,pid,kernels,collectives,span_ns,busy_ns,idle_ns,compute_ns,communication_ns,overlap_ns,\
         overlap_share,steps,slowest_steps,step_excess_ns,last_arrivals,collective_wait_ns,kept_waiting_ns"
    );
    assert_eq!(lines[3], "2,2,node1,102,4,2,1800,1000,800,800,280,80,0.2857142857142857,0,0,0,2,0,820");

    let csv = dir.join("csv");
    let output = rocprof_rs(&[
        "ranks",
        dir.to_str().unwrap(),
        "--format",
        "csv",
        "--csv-dir",
        csv.to_str().unwrap(),
        "--step-marker",
        "train_step",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let read = |name: &str| std::fs::read_to_string(csv.join(name)).unwrap();
    assert_eq!(
        read("steps.csv"),
        "step,marker,ranks,complete,median_ns,slowest,slowest_ns,excess_ns\n1,train_step,3,true,500,0,500,0\n2,train_step,3,true,800,2,1000,200\n"
    );
    assert_eq!(
        read("collectives.csv").lines().nth(2),
        Some("kernel,AllReduce,2,3,true,400,0,2,790"),
        "{}",
        read("collectives.csv")
    );
    assert_eq!(read("stragglers.csv").lines().nth(1), Some("2,1,200,200,200,2,train_step"));
    assert!(read("operations.csv").contains("api,Other,1,0,2,2,3"), "{}", read("operations.csv"));
    assert_eq!(read("api_collectives.csv").lines().count(), 4);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn ranks_without_collectives_and_a_missing_step() {
    let dir = scratch("ranks-missing");
    let steps = |times: &[(i64, i64)]| times.iter().map(|&(s, e)| ("step", s, e)).collect::<Vec<_>>();
    let processes = [
        Process {
            host: Some("n1"),
            rank: Some(0),
            pid: 1,
            kernels: vec![("gemm", 0, 100, 1), (ALL_REDUCE, 100, 200, 2)],
            markers: steps(&[(0, 200), (1000, 1200), (2000, 2300)]),
            ..Process::default()
        },
        Process {
            host: Some("n1"),
            rank: Some(1),
            pid: 2,
            kernels: vec![("gemm", 0, 100, 1), (ALL_REDUCE, 150, 200, 2)],
            markers: steps(&[(0, 250), (1000, 1200), (2000, 2200)]),
            ..Process::default()
        },
        // A rank with compute only, and one step fewer.
        Process {
            host: Some("n1"),
            rank: Some(2),
            pid: 3,
            kernels: vec![("gemm", 0, 300, 1)],
            markers: steps(&[(0, 300), (1000, 1100)]),
            ..Process::default()
        },
    ];
    processes.iter().for_each(|p| p.write(&dir, true));
    let report = json(&dir, &["--step-marker", "step"]);
    let r2 = rank(&report, "2");
    assert_eq!(figures(r2, &["collectives", "communication_ns", "overlap_ns", "steps"]), json!([0, 0, 0, 2]));
    assert_eq!(r2["overlap_share"], Value::Null);
    // The all-reduce is seen on two of three ranks: incomplete, still summarised, and left out
    // of the per-rank waits.
    let c = &report["collectives"][0];
    assert_eq!(figures(c, &["ranks", "complete", "spread_ns", "others_wait_ns"]), json!([2, false, 50, 50]));
    assert_eq!(c["last"]["name"], "1");
    assert_eq!(report["collectives_incomplete"], 1);
    assert_eq!(rank(&report, "1")["last_arrivals"], 0);
    assert_eq!(rank(&report, "0")["collective_wait_ns"], 0);
    // Steps 1 (200, 250, 300: rank 2, 75 over the others' median of 225), 2 (200, 200, 100: a
    // tie, rank 0, 50 over the others' 150) and 3, seen on ranks 0 and 1 only (300, 200: median
    // 250, and rank 0 100 over the other).
    let steps: Vec<_> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| json!([s["step"], s["ranks"], s["complete"], s["median_ns"], s["excess_ns"], s["slowest"]["name"]]))
        .collect();
    assert_eq!(
        steps,
        [
            json!([1, 3, true, 250.0, 75.0, "2"]),
            json!([2, 3, true, 200.0, 50.0, "0"]),
            json!([3, 2, false, 250.0, 100.0, "0"]),
        ]
    );
    let notes = report["notes"].to_string();
    assert!(notes.contains("no collective kernel on 2: every kernel collective is incomplete"), "{notes}");
    assert!(notes.contains("fewer steps than the 3 of others on 2"), "{notes}");

    // No marker matches: not an error, a note.
    let output = rocprof_rs(&["ranks", dir.to_str().unwrap(), "--step-marker", "^epoch"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("note: no marker message matches --step-marker \"^epoch\" (of 8 marker rows)"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn without_rank_columns_ranks_are_processes_by_host_and_pid() {
    let dir = scratch("ranks-no-rank");
    // Two hosts' processes of one pid, told apart by their metadata files' hosts; a third with no
    // host anywhere, known by its pid alone.
    for (host, in_metadata, pid, start) in [("a", true, 10, 0), ("b", true, 10, 40), ("c", false, 11, 70)] {
        let process = Process {
            host: Some(host),
            pid,
            kernels: vec![("gemm", start, start + 100, 1), ("rcclKernel_Broadcast", start + 100, start + 150, 1)],
            host_in_metadata: in_metadata,
            ..Process::default()
        };
        process.write(&dir, false);
    }
    let report = json(&dir, &[]);
    let names: Vec<&str> = report["ranks"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["pid:11", "a:10", "b:10"]);
    assert_eq!(rank(&report, "a:10")["rank"], Value::Null);
    let c = &report["collectives"][0];
    assert_eq!(figures(c, &["operation", "spread_ns", "others_wait_ns"]), json!(["Broadcast", 70, 100]));
    assert_eq!(c["last"]["name"], "pid:11");
    assert!(report["notes"].to_string().contains("have no rank (no launcher variable"), "{}", report["notes"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn hosts_clocks_are_aligned_by_the_process_table() {
    let dir = scratch("ranks-hosts");
    // Rank 0 on h1 arrives at 1000 on its clock, rank 1 on h2 at 600 on its own; h2's boot clock
    // is 500 ns behind h1's (the median of its two processes' 1_000_500 and 1_000_501, rounded
    // down), so rank 1 came 100 ns after rank 0.
    for (host, r, pid, at) in [("h1", 0, 1, 1000), ("h2", 1, 2, 600)] {
        let process = Process {
            host: Some(host),
            rank: Some(r),
            pid,
            kernels: vec![(ALL_REDUCE, at, 2000, 1)],
            ..Process::default()
        };
        process.write(&dir, true);
    }
    let unaligned = json(&dir, &[]);
    assert_eq!(unaligned["collectives"][0]["spread_ns"], 400);
    assert!(unaligned["notes"].to_string().contains("no start_unix_ns for h1, h2"), "{}", unaligned["notes"]);

    process_row(&dir, "h1", Some(0), 1, 1_000_000);
    process_row(&dir, "h2", Some(1), 2, 1_000_500);
    process_row(&dir, "h2", None, 3, 1_000_501);
    let report = json(&dir, &[]);
    let c = &report["collectives"][0];
    assert_eq!(figures(c, &["spread_ns", "others_wait_ns"]), json!([100, 100]));
    assert_eq!(c["last"]["rank"], 1);
    assert_eq!(report["host_shifts_ns"], json!({ "h1": 0, "h2": 500 }));
    assert_eq!(report["notes"], json!([]));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_input_is_named() {
    let dir = scratch("ranks-bad");
    let output = rocprof_rs(&["ranks", dir.join("missing").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("missing"), "{}", stderr(&output));

    let output = rocprof_rs(&["ranks", dir.to_str().unwrap(), "--step-marker", "step("]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--step-marker"), "{}", stderr(&output));

    three_ranks(&dir);
    let output = rocprof_rs(&["ranks", dir.to_str().unwrap(), "--section", "everything"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--section \"everything\""), "{}", stderr(&output));

    let bad = dir.join("kernel_dispatch").join("node1-999-00000.parquet");
    std::fs::write(&bad, b"PAR1 not a parquet file PAR1").unwrap();
    let output = rocprof_rs(&["ranks", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(text.contains("node1-999-00000.parquet") && text.lines().count() == 1, "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// 16 ranks of a SIMULATED data-parallel job (no GPU: `rocprof-sim --ranks`, the simulated SDK)
/// traced by `rocprof-rs run` into one directory, rank 11 sleeping 400 ms before step 3's
/// all-reduce. Every collective's spread, last rank and waits must equal the simulator's truth,
/// and `ranks` must name rank 11 as the one the others waited for, by its delay within 5%.
///
/// The simulated ranks wait for each other inside their step ranges (the host waits for the
/// all-reduce before the optimizer), so every rank's step 3 is long: the straggler shows in the
/// collectives, not in the step times.
#[test]
fn sixteen_simulated_ranks_name_the_straggler_and_equal_the_truth() {
    const WORLD: usize = 16;
    const DELAY_NS: f64 = 400e6;
    let dir = scratch("ranks-sim16");
    let out = dir.join("out");
    let truth = dir.join("truth.csv");
    traced_ranks(
        ["--ranks", "16", "--steps", "6", "--straggler", "11:3:400", "--agents", "1", "--truth"]
            .map(std::ffi::OsStr::new)
            .into_iter()
            .chain([truth.as_os_str()]),
        &out,
    );
    let truth: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("ranks-truth.json")).unwrap()).unwrap();
    let report = json(&out, &["--step-marker", r"^step \d+$"]);

    let names: Vec<String> = (0..WORLD).map(|r| r.to_string()).collect();
    let listed: Vec<&str> = report["ranks"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(listed, names, "one rank per process, by its rank column");
    // Every all-reduce as the truth has it: the n-th of every rank is step n - 1's.
    let collectives = report["collectives"].as_array().unwrap();
    let expected = truth["collectives"].as_array().unwrap();
    assert_eq!(collectives.len(), expected.len());
    let mut waited = [0u64; WORLD];
    for (got, want) in collectives.iter().zip(expected) {
        assert_eq!(got["index"].as_u64().unwrap(), want["index"].as_u64().unwrap() + 1);
        assert_eq!(
            json!([
                got["operation"],
                got["ranks"],
                got["complete"],
                got["spread_ns"],
                got["last"]["rank"],
                got["others_wait_ns"]
            ]),
            json!([want["operation"], WORLD, true, want["spread_ns"], want["last_rank"], want["others_wait_ns"]]),
            "step {}",
            want["step"]
        );
        for (r, wait) in want["wait_ns"].as_array().unwrap().iter().enumerate() {
            waited[r] += wait.as_u64().unwrap();
        }
    }
    for (r, wait) in waited.iter().enumerate() {
        assert_eq!(rank(&report, &names[r])["collective_wait_ns"], *wait, "rank {r}'s waits");
    }
    // The RCCL calls too: the init and an all-reduce per step, on every rank.
    let api = report["api_collectives"].as_array().unwrap();
    assert_eq!(api.len(), 7);
    assert!(api.iter().all(|c| c["complete"] == true), "{api:?}");

    // The straggler: the others waited longest for rank 11, at step 3's all-reduce, by about
    // its delay each.
    let top = json(&out, &["--top", "1"]);
    let worst = &top["collectives"][0];
    assert_eq!(json!([worst["index"], worst["last"]["rank"]]), json!([4, 11]), "{worst}");
    let spread = worst["spread_ns"].as_f64().unwrap();
    let per_rank = worst["others_wait_ns"].as_f64().unwrap() / (WORLD - 1) as f64;
    for delay in [spread, per_rank] {
        assert!((delay / DELAY_NS - 1.0).abs() < 0.05, "a delay of {delay} ns for 400 ms: {worst}");
    }
    let most =
        report["ranks"].as_array().unwrap().iter().max_by_key(|r| r["kept_waiting_ns"].as_i64().unwrap()).unwrap();
    assert_eq!(json!([most["rank"], most["last_arrivals"].as_u64() >= Some(1)]), json!([11, true]));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A hang dump of three ranks: rank 1's flight recorder saw the hang (its all-reduce never
/// finished) and asked the others through the request file; rank 0 waits in the same
/// all-reduce, rank 2 had nothing outstanding. The hangs section says so per rank, first in
/// the table, and as CSV.
#[test]
fn a_hang_dump_shows_which_rank_waits_in_which_collective() {
    let dir = scratch("ranks-hang");
    three_ranks(&dir);
    let launch = |kernel: &str, at: u64, markers: &[&str]| {
        json!({"correlation_id": at, "thread_id": 7, "launched_ns": at, "call": "cudaLaunchKernel", "kernel": kernel,
               "open_markers": markers.iter().map(|m| json!({"message": m, "start_ns": 1})).collect::<Vec<_>>()})
    };
    let reports = [
        (
            100,
            json!({"reason": "request", "detail": {}}),
            Some(
                json!({"quiet_ns": 2_000_000_000u64, "outstanding": [launch(ALL_REDUCE, 1900, &["train_step", "all_reduce"])], "streams": []}),
            ),
        ),
        (
            101,
            json!({"reason": "hang", "at_ns": 9, "detail": {"quiet_ns": 3_000_000_000u64, "outstanding": [launch("gemm", 1950, &["train_step"]), launch(ALL_REDUCE, 1910, &["train_step", "all_reduce"])], "streams": []}}),
            None,
        ),
        (
            102,
            json!({"reason": "request", "detail": {}}),
            Some(json!({"quiet_ns": 0, "outstanding": [], "streams": []})),
        ),
    ];
    for (pid, trigger, in_flight) in reports {
        let path = dir.join(keys::metadata_file_name(&format!("node1-{pid}")));
        let mut meta: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        meta["trigger"] = trigger;
        if let Some(in_flight) = in_flight {
            meta["in_flight"] = in_flight;
        }
        std::fs::write(&path, meta.to_string()).unwrap();
    }

    let output = rocprof_rs(&["ranks", dir.to_str().unwrap(), "--section", "hangs", "--format", "csv"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "rank,trigger,quiet_ns,outstanding,kernel,operation,call,thread_id,launched_ns,open_markers");
    assert_eq!(
        lines[1],
        format!("0,request,2000000000,1,{ALL_REDUCE},AllReduce,cudaLaunchKernel,7,1900,train_step > all_reduce")
    );
    assert_eq!(
        lines[2],
        format!("1,hang,3000000000,2,{ALL_REDUCE},AllReduce,cudaLaunchKernel,7,1910,train_step > all_reduce")
    );
    assert_eq!(lines[3], "2,request,0,0,,,,,,");
    assert_eq!(lines.len(), 4);
    assert!(
        stderr(&output).contains("on a hang trigger: no kernel finished for 3.0 s with 2 launches outstanding"),
        "{}",
        stderr(&output)
    );

    let table = rocprof_rs(&["ranks", dir.to_str().unwrap()]);
    assert!(table.status.success(), "{}", stderr(&table));
    let table = String::from_utf8(table.stdout).unwrap();
    let hang = table.find("Hang: what each rank waited on").expect("a hangs section");
    assert!(hang < table.find("Ranks").unwrap_or(usize::MAX), "the hang comes first:\n{table}");

    let report = json(&dir, &[]);
    assert_eq!(report["hangs"][1]["oldest"]["operation"], "AllReduce", "{}", report["hangs"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Steps named from 0, as training loops name them: position 8 is the range named `step 7`,
/// and every table says both, so a straggler is found by the name the user wrote.
#[test]
fn steps_show_their_marker_text_beside_their_position() {
    let dir = scratch("ranks-step-names");
    let names: Vec<String> = (0..20).map(|i| format!("step {i}")).collect();
    for r in 0..2u32 {
        let markers = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let start = 1000 * i as i64;
                // Rank 1 is 300 ns late in the range named `step 7`.
                let length = if r == 1 && i == 7 { 800 } else { 500 };
                (name.as_str(), start, start + length)
            })
            .collect();
        let process = Process {
            host: Some("node1"),
            rank: Some(r as i32),
            pid: 200 + r,
            kernels: vec![("gemm", 0, 100, 1)],
            markers,
            host_in_metadata: true,
            ..Process::default()
        };
        process.write(&dir, true);
    }
    let report = json(&dir, &["--step-marker", "^step "]);
    let step = &report["steps"][7];
    assert_eq!((step["step"].as_u64(), step["marker"].as_str()), (Some(8), Some("step 7")), "{step}");
    assert_eq!(report["stragglers"][0]["step_markers"], json!(["step 7"]));
    let table = rocprof_rs(&["ranks", dir.to_str().unwrap(), "--step-marker", "^step "]);
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains("8 (step 7)"), "the stragglers table names the step:\n{table}");
    std::fs::remove_dir_all(dir).unwrap();
}
