//! The Spark SQL package (`spark/rocprof_rs_spark`) in Spark's local mode, against the Rust
//! commands on the same simulated multi-process run (SIMULATED: no GPU is involved).
//!
//! - `stats`: the same sections and names in the same order; calls, totals, minima, maxima,
//!   means and shares equal; the standard deviation within 1e-9 (Spark's is floating point,
//!   ours exact); each percentile within 1/512 of Spark's exact nearest-rank one (ours is the
//!   midpoint of a log-linear histogram's bucket, a 1/256 wide);
//! - `counters`, by process, GPU and pass: the tool's own `kernel_counter` table, row for row;
//! - `ranks`: `rocprof-rs ranks` where the command exists; and always each rank's span, busy,
//!   idle, compute and communication time and the steps, against a plain sweep over the rows
//!   here.
//!
//! One Python process (one Spark session) answers all three. Needs Java and pyspark (pip
//! install -r tests/verify/requirements.txt): skipped without them, except under CI.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use common::{built, scratch, stderr, tool};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Map, Value};

/// Spark for a short run on small data: few partitions, no UI, and the JIT's first tier and
/// interpreted plans, which cost a third of the CPU time that full compilation does.
const SPARK_SETTINGS: [&str; 4] = [
    "spark.sql.shuffle.partitions=4",
    "spark.ui.enabled=false",
    "spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
    "spark.sql.codegen.wholeStage=false",
];

/// Whether Java and pyspark are there; outside CI their absence skips the test, saying so.
fn spark_ready() -> bool {
    let probe = Command::new("python3")
        .args(["-c", "import pyspark, shutil, sys; sys.exit(0 if shutil.which('java') else 'no java on PATH')"])
        .output();
    if probe.as_ref().is_ok_and(|o| o.status.success()) {
        return true;
    }
    let why = probe.map_or_else(|e| format!("python3: {e}"), |o| stderr(&o));
    assert!(std::env::var_os("CI").is_none(), "CI must run the Spark SQL package: {why}");
    eprintln!(
        "SKIPPED: the Spark SQL tests need Java and pyspark (pip install -r tests/verify/requirements.txt): {why}"
    );
    false
}

/// A simulated run, and the markers that are its steps.
#[derive(Debug)]
struct Run {
    dir: PathBuf,
    step_marker: &'static str,
}

/// The run: `rocprof-sim --ranks 4`, a data-parallel job whose rank 2 straggles in step 3,
/// where the simulator has it; else the simulated application with two forked children. Kernels,
/// API calls, copies, markers and two counters are traced.
fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = scratch("spark-sql").keep();
        let help = Command::new(built("rocprof-sim")).arg("--help").output().unwrap();
        let ranks = String::from_utf8_lossy(&help.stdout).contains("--ranks");
        let (processes, step_marker): (&[&str], _) = if ranks {
            (&["--ranks", "4", "--steps", "6", "--straggler", "2:3:5"], "^step ")
        } else {
            (&["--fork", "2"], "^epoch ")
        };
        let output = Command::new(built("rocprof-sim"))
            .args(["--dispatches", "4000", "--threads", "2", "--agents", "2", "--seed", "23", "--no-truth"])
            .args(processes)
            .arg("--sdk")
            .arg(built("librocprofiler_sdk_sim.so"))
            .env("ROCP_TOOL_LIBRARIES", tool())
            .env("ROCPROF_RS_OUTPUT_DIR", dir.join("out"))
            .env("ROCPROF_RS_DOMAINS", "kernel,hip_api,rccl_api,memory_copy,marker")
            .env("ROCPROF_RS_PMC", "SQ_WAVES,SQ_INSTS_VALU")
            .env_remove("LD_PRELOAD")
            .output()
            .unwrap();
        assert!(output.status.success(), "the simulated run failed: {}", stderr(&output));
        Run { dir, step_marker }
    })
}

/// What the Spark package printed for each command, from one Python process.
#[derive(Debug)]
struct Spark {
    stats: Value,
    counters: Value,
    ranks: Value,
}

fn spark() -> &'static Spark {
    static SPARK: OnceLock<Spark> = OnceLock::new();
    SPARK.get_or_init(|| {
        let Run { dir, step_marker } = run();
        let out = dir.join("out");
        let commands: [(&str, &[&str]); 3] = [
            ("stats", &[]),
            ("counters", &["--by", "pid,agent_id,counter_group"]),
            ("ranks", &["--step-marker", step_marker]),
        ];
        let mut script = String::from("from rocprof_rs_spark.__main__ import main\n");
        for (command, extra) in commands {
            let mut args = vec![command.to_owned(), out.display().to_string(), "--format".into(), "json".into()];
            args.extend(extra.iter().map(|a| (*a).to_owned()));
            args.extend(["--master".into(), "local[2]".into(), "--output".into()]);
            args.push(dir.join(format!("{command}.json")).display().to_string());
            args.extend(SPARK_SETTINGS.iter().flat_map(|s| ["--conf", *s]).map(String::from));
            script.push_str(&format!("assert main({}) == 0\n", serde_json::to_string(&args).unwrap()));
        }
        let output = Command::new("python3")
            .args(["-c", &script])
            .env("PYTHONPATH", Path::new(env!("CARGO_MANIFEST_DIR")).join("spark"))
            .env("SPARK_LOCAL_IP", "127.0.0.1")
            .env("PYSPARK_PYTHON", "python3")
            .output()
            .unwrap();
        assert!(output.status.success(), "the Spark package failed:\n{}", stderr(&output));
        let read = |command: &str| {
            let text = std::fs::read_to_string(dir.join(format!("{command}.json"))).unwrap();
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{command}.json: {e}"))
        };
        Spark { stats: read("stats"), counters: read("counters"), ranks: read("ranks") }
    })
}

/// `rocprof-rs ARGS DIR --format json`, parsed; `None` where the command does not exist.
fn rocprof_rs(args: &[&str]) -> Option<Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .args(args)
        .arg(run().dir.join("out"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    if !output.status.success() && stderr(&output).contains("unrecognized subcommand") {
        return None;
    }
    assert!(output.status.success(), "rocprof-rs {args:?}: {}", stderr(&output));
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

/// Whether two JSON values are equal, integers as integers and other numbers as `f64`.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn f64_of(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn spark_sql_stats_equal_rocprof_rs_stats() {
    if !spark_ready() {
        return;
    }
    let ours = rocprof_rs(&["stats"]).expect("rocprof-rs stats exists");
    let theirs = &spark().stats;
    let (ours, theirs) = (ours["sections"].as_array().unwrap(), theirs.as_array().unwrap());
    let names = |sections: &[Value]| sections.iter().map(|s| s["section"].clone()).collect::<Vec<_>>();
    assert_eq!(names(ours), names(theirs), "sections");
    assert!(names(ours).iter().any(|s| s == "kernel"), "no kernel section");
    for (a, b) in ours.iter().zip(theirs) {
        let section = &a["section"];
        assert_eq!((&a["omitted"], &a["notes"]), (&b["omitted"], &b["notes"]), "{section}");
        let (rows, spark_rows) = (a["rows"].as_array().unwrap(), b["rows"].as_array().unwrap());
        assert_eq!(rows.len(), spark_rows.len(), "{section}: names");
        assert!(!rows.is_empty(), "{section}: no rows");
        for (row, spark_row) in rows.iter().zip(spark_rows) {
            let at = format!("{section} {}", row["name"]);
            for exact in ["name", "calls", "total_ns", "min_ns", "max_ns", "mean_ns", "percent"] {
                assert!(
                    same(&row[exact], &spark_row[exact]),
                    "{at} {exact}: {} vs Spark's {}",
                    row[exact],
                    spark_row[exact]
                );
            }
            let (sd, spark_sd) = (f64_of(&row["stddev_ns"]), f64_of(&spark_row["stddev_ns"]));
            assert!((sd - spark_sd).abs() <= 1e-9 * sd.max(1.0), "{at} stddev: {sd} vs Spark's {spark_sd}");
            for p in ["p50_ns", "p95_ns", "p99_ns"] {
                let (ours, exact) = (f64_of(&row[p]), f64_of(&spark_row[p]));
                assert!((ours - exact).abs() <= exact / 512.0, "{at} {p}: {ours}, exactly {exact}");
            }
        }
    }
}

/// Every row of `table` under `dir` (flat or in partition folders), as JSON objects of the
/// columns `columns` the files have, read with parquet-rs.
fn table_rows(dir: &Path, table: &str, columns: &[&str]) -> Vec<Map<String, Value>> {
    let mut files = Vec::new();
    let mut folders = vec![dir.join(table)];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(['.', '_']) {
                continue;
            }
            if entry.file_type().unwrap().is_dir() {
                folders.push(entry.path());
            } else if name.ends_with(".parquet") {
                files.push(entry.path());
            }
        }
    }
    let mut rows = Vec::new();
    for file in files {
        let reader =
            ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&file).unwrap()).unwrap().build().unwrap();
        for batch in reader {
            let batch = batch.unwrap();
            let present: Vec<(&str, &ArrayRef)> =
                columns.iter().filter_map(|c| batch.column_by_name(c).map(|a| (*c, a))).collect();
            for i in 0..batch.num_rows() {
                rows.push(present.iter().map(|(c, a)| ((*c).to_owned(), cell(a, i))).collect());
            }
        }
    }
    rows
}

/// One value of an array of the tables' types, as JSON.
fn cell(array: &ArrayRef, i: usize) -> Value {
    if array.is_null(i) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::UInt64 => array.as_primitive::<UInt64Type>().value(i).into(),
        DataType::Int64 => array.as_primitive::<Int64Type>().value(i).into(),
        DataType::UInt32 => array.as_primitive::<UInt32Type>().value(i).into(),
        DataType::Int32 => array.as_primitive::<Int32Type>().value(i).into(),
        DataType::Float64 => array.as_primitive::<Float64Type>().value(i).into(),
        DataType::Utf8 => array.as_string::<i32>().value(i).into(),
        DataType::Dictionary(..) => {
            let dict = array.as_dictionary::<Int32Type>();
            dict.values().as_string::<i32>().value(dict.keys().value(i) as usize).into()
        }
        other => panic!("a column of type {other}"),
    }
}

#[test]
fn spark_sql_counters_equal_the_kernel_counter_table() {
    if !spark_ready() {
        return;
    }
    let columns = [
        "kernel_name",
        "counter",
        "pid",
        "agent_id",
        "counter_group",
        "samples",
        "dispatches",
        "sum",
        "mean",
        "min",
        "max",
    ];
    let key = |row: &Map<String, Value>| {
        ["kernel_name", "counter", "pid", "agent_id", "counter_group"].map(|k| row[k].to_string()).join("/")
    };
    let table: BTreeMap<String, Map<String, Value>> =
        table_rows(&run().dir.join("out"), "kernel_counter", &columns).into_iter().map(|r| (key(&r), r)).collect();
    let spark: BTreeMap<String, Map<String, Value>> = spark()
        .counters
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (key(r.as_object().unwrap()), r.as_object().unwrap().clone()))
        .collect();
    assert!(table.len() >= 4, "the run counted too little: {} kernel_counter rows", table.len());
    assert_eq!(
        table.keys().collect::<Vec<_>>(),
        spark.keys().collect::<Vec<_>>(),
        "kernels, counters, processes, GPUs, passes"
    );
    for (k, row) in &table {
        assert!(
            same(&Value::Object(row.clone()), &Value::Object(spark[k].clone())),
            "{k}:\n{row:?}\nSpark: {:?}",
            spark[k]
        );
    }
}

/// A rank's identity as the definitions have it: its `rank`, else its host and pid.
fn rank_of(row: &Map<String, Value>) -> String {
    match row.get("rank").filter(|r| !r.is_null()) {
        Some(rank) => format!("rank {rank}"),
        None => format!("{} {}", row.get("host").unwrap_or(&Value::Null), row["pid"]),
    }
}

/// The length of the union of intervals.
fn union_length(mut intervals: Vec<(i64, i64)>) -> i64 {
    intervals.sort_unstable();
    let (mut total, mut open): (i64, Option<(i64, i64)>) = (0, None);
    for (start, end) in intervals {
        open = match open {
            Some((s, e)) if start <= e => Some((s, e.max(end))),
            Some((s, e)) => {
                total += e - s;
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    total + open.map_or(0, |(s, e)| e - s)
}

/// Each rank's span, busy, idle, compute and communication time and step times, by a sweep
/// over the rows: what Spark's window functions must give.
fn expected_ranks(dir: &Path, step_marker: &str) -> BTreeMap<String, (Map<String, Value>, Vec<i64>)> {
    let collective = regex::Regex::new("nccl|rccl").unwrap();
    let mut intervals: BTreeMap<String, Vec<(i64, i64, bool)>> = BTreeMap::new();
    for row in table_rows(dir, "kernel_dispatch", &["kernel_name", "start_ns", "end_ns", "pid", "host", "rank"]) {
        let (start, end) = (row["start_ns"].as_i64().unwrap(), row["end_ns"].as_i64().unwrap());
        let comm = collective.is_match(&row["kernel_name"].as_str().unwrap().to_lowercase());
        intervals.entry(rank_of(&row)).or_default().push((start, end.max(start), comm));
    }
    let step = regex::Regex::new(step_marker).unwrap();
    let mut steps: BTreeMap<String, Vec<(i64, i64)>> = BTreeMap::new();
    for row in table_rows(dir, "marker", &["message", "start_ns", "end_ns", "pid", "host", "rank"]) {
        if step.is_match(row["message"].as_str().unwrap()) {
            let (start, end) = (row["start_ns"].as_i64().unwrap(), row["end_ns"].as_i64().unwrap());
            steps.entry(rank_of(&row)).or_default().push((start, end));
        }
    }
    let mut out = BTreeMap::new();
    for (rank, rows) in intervals {
        let pick = |keep: &dyn Fn(bool) -> bool| -> Vec<(i64, i64)> {
            rows.iter().filter(|r| keep(r.2)).map(|r| (r.0, r.1)).collect()
        };
        let span = rows.iter().map(|r| r.1).max().unwrap() - rows.iter().map(|r| r.0).min().unwrap();
        let (busy, comm, compute) =
            (union_length(pick(&|_| true)), union_length(pick(&|c| c)), union_length(pick(&|c| !c)));
        let mut figures = Map::new();
        for (name, value) in [
            ("kernels", rows.len() as i64),
            ("span_ns", span),
            ("busy_ns", busy),
            ("idle_ns", span - busy),
            ("communication_ns", comm),
            ("compute_ns", compute),
            ("overlap_ns", comm + compute - busy),
        ] {
            figures.insert(name.into(), value.into());
        }
        let mut mine = steps.remove(&rank).unwrap_or_default();
        mine.sort_unstable();
        out.insert(rank, (figures, mine.iter().map(|(s, e)| e - s).collect()));
    }
    out
}

#[test]
fn spark_sql_ranks_agree_with_a_sweep_and_with_rocprof_rs_ranks() {
    if !spark_ready() {
        return;
    }
    let ranks = &spark().ranks;
    let Run { dir, step_marker } = run();
    let expected = expected_ranks(&dir.join("out"), step_marker);
    let spark_ranks: BTreeMap<String, &Map<String, Value>> = ranks["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (rank_of(r.as_object().unwrap()), r.as_object().unwrap()))
        .collect();
    assert!(expected.len() >= 3, "ranks: {:?}", expected.keys());
    assert_eq!(expected.keys().collect::<Vec<_>>(), spark_ranks.keys().collect::<Vec<_>>(), "ranks");
    let mut step_times: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
    for (rank, (figures, steps)) in &expected {
        for (name, value) in figures {
            assert_eq!(&spark_ranks[rank][name], value, "{rank} {name}");
        }
        assert_eq!(spark_ranks[rank]["steps"], steps.len(), "{rank} steps");
        for (k, time) in steps.iter().enumerate() {
            step_times.entry(k + 1).or_default().push(*time);
        }
    }
    let spark_steps = ranks["steps"].as_array().unwrap();
    assert!(!spark_steps.is_empty(), "no steps matched {step_marker}");
    assert_eq!(spark_steps.len(), step_times.len(), "steps");
    for (step, mut times) in step_times {
        times.sort_unstable();
        let n = times.len();
        let median = if n % 2 == 1 { times[n / 2] as f64 } else { (times[n / 2 - 1] + times[n / 2]) as f64 / 2.0 };
        let found = &spark_steps[step - 1];
        assert_eq!((found["step"].as_u64(), found["ranks"].as_u64()), (Some(step as u64), Some(n as u64)));
        assert_eq!(
            (f64_of(&found["median_ns"]), found["slowest_ns"].as_i64()),
            (median, times.last().copied()),
            "step {step}"
        );
        let others = &times[..n - 1];
        let m = others.len();
        let others_median = match m {
            0 => *times.last().unwrap() as f64,
            _ if m % 2 == 1 => others[m / 2] as f64,
            _ => (others[m / 2 - 1] + others[m / 2]) as f64 / 2.0,
        };
        assert_eq!(f64_of(&found["excess_ns"]), *times.last().unwrap() as f64 - others_median, "step {step}");
    }
    // Field by field, but for the notes, which are prose, and rocprof-rs's envelope.
    let without_notes = |report: &Value| {
        let mut report = report.as_object().unwrap().clone();
        for key in ["notes", "schema", "schema_version", "tool_version", "command", "dataset"] {
            report.remove(key);
        }
        Value::Object(report)
    };
    match rocprof_rs(&["ranks", "--step-marker", step_marker]) {
        Some(ours) => {
            let (ours, theirs) = (without_notes(&ours), without_notes(ranks));
            assert!(same(&ours, &theirs), "rocprof-rs ranks:\n{ours:#}\nSpark:\n{theirs:#}");
        }
        None => eprintln!("SKIPPED: no `rocprof-rs ranks` command yet to compare with; the sweep agrees"),
    }
}
