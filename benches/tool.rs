//! The tool library's figures (issues 4 and 5), each against a floor measured in the same run.
//! Everything here drives the **SIMULATED** SDK (`tests/sdk-sim`): no GPU is involved.
//!
//! ```sh
//! cargo build --release --workspace && cargo bench --bench tool            # all figures
//! cargo build --release --workspace && cargo bench --bench tool -- --quick # no 50M-record run
//! ```
//!
//! 1. Ingest per kernel-dispatch record on the SDK's callback thread: the callback thread's CPU
//!    time inside buffer callbacks per record (the simulator measures it around each callback),
//!    rocprof-rs minus the null tool, which configures the same services and discards.
//! 2. Added cost per HIP API enter/exit pair on application threads: their time in the SDK's
//!    record path with only HIP API tracing, rocprof-rs minus the null tool, per API call; over
//!    one application thread and over four.
//! 3. Records/s to Parquet with zstd: the writer thread's own work (rows, Arrow, zstd Parquet)
//!    on 5M dispatch records, in process; its floor is building the same records.
//! 4. Parquet bytes per dispatch record against the same rows as rocprofv3's kernel_trace.csv.
//! 5. Peak RSS over runs of 5M, 20M and 50M records: rocprof-rs minus the null tool (the
//!    simulator, its 2 × 8 MiB record buffers and the application are the same in both).
//! 6. Cost per counted dispatch: rocprof-rs collecting the `basic` preset, minus rocprof-rs
//!    tracing the same dispatches without counters.
//! 7. PC samples ingested (stochastic sampling on two MI300-like agents): the callback thread's
//!    CPU per sample, rocprof-rs sampling minus rocprof-rs tracing the same dispatches alone,
//!    and the samples that CPU could take per second; `pc_sample` bytes on disk per sample.
//!
//! Medians of 5 runs (interleaved) unless a figure says otherwise.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use rocprof_rs::config::{Config, Placeholders};
use rocprof_rs::pipeline::records::{Kernel, Record};
use rocprof_rs::pipeline::rows::Tables;
use rocprof_rs::pipeline::run::Seed;
use rocprof_sim::kernels::CATALOG;

mod common;

const RUNS: usize = 5;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    // `--only N`: figure N alone (while working on one).
    let only: Option<u32> = std::env::args().skip_while(|a| a != "--only").nth(1).and_then(|n| n.parse().ok());
    let wanted = |figure: u32| only.is_none_or(|o| o == figure);
    // `--zstd-only`: figure 3 without its uncompressed comparison (to profile the writer).
    let zstd_only = std::env::args().any(|a| a == "--zstd-only");
    let release = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release");
    let sim = release.join("rocprof-sim");
    for needed in ["rocprof-sim", "librocprofiler_sdk_sim.so", "librocprof_sim_null_tool.so", "librocprof_rs.so"] {
        if !release.join(needed).exists() {
            eprintln!("{needed} is not built in {}: run `cargo build --release --workspace` first", release.display());
            std::process::exit(2);
        }
    }
    let scratch = std::env::temp_dir().join(format!("rocprof-rs-bench-{}", std::process::id()));
    println!("SIMULATED rocprofiler-sdk: every figure below times the simulator, not a GPU.");
    println!("machine: {}", machine());
    let env = Env { sim, release, scratch };

    if wanted(1) {
        let (ingest, ingest_floor, reading) = ingest_per_dispatch(&env);
        println!(
            "1. ingest per dispatch record (callback-thread CPU): rocprof-rs {ingest:.1} ns, null tool {ingest_floor:.1} ns, added {:.1} ns (goal <= 25); null tool reading every record {reading:.1} ns",
            ingest - ingest_floor
        );
    }
    if wanted(2) {
        // One application thread: the SDK's producers do not contend with each other, so what
        // the tool adds (its callback, during which the producer waits) is not lost in their
        // contention. Four threads on two cores: the same, within the SDK's own contention.
        for threads in [1, 4] {
            let ([ours, floor], [play, play_floor, play_none]) = api_pair_cost(&env, threads);
            println!(
                "2. per HIP API enter/exit pair, {threads} application thread(s) in the record path: rocprof-rs {ours:.1} ns, null tool {floor:.1} ns: added {:.1} ns (goal <= 60); whole play per call: rocprof-rs {play:.0} ns, null tool {play_floor:.0} ns, no tool {play_none:.0} ns",
                ours - floor
            );
        }
    }
    if wanted(3) {
        let (rate, floor_rate) = writer_throughput(&env.scratch, "zstd:3");
        let uncompressed = if zstd_only { f64::NAN } else { writer_throughput(&env.scratch, "none").0 };
        println!(
            "3. records/s to Parquet with zstd (writer thread, in process): {:.2} M/s (uncompressed {:.2} M/s); building the records alone {:.1} M/s (goal >= 5 M/s)",
            rate / 1e6,
            uncompressed / 1e6,
            floor_rate / 1e6
        );
    }
    if wanted(4) {
        let (parquet, csv) = bytes_per_record(&env);
        println!(
            "4. bytes per dispatch record: Parquet {parquet:.1} B, rocprofv3 kernel_trace.csv {csv:.1} B: {:.1}x smaller (goal >= 10x)",
            csv / parquet
        );
    }
    if wanted(6) {
        let [cpu, records, play] = counted_dispatch_cost(&env);
        println!(
            "6. per counted dispatch (basic preset, 8 counters, {records:.0} instance values): callback-thread CPU {cpu:.0} ns, application wall {play:.0} ns, over tracing without counters"
        );
    }
    if wanted(7) {
        let [per_sample, samples, bytes, dropped] = pc_sample_cost(&env);
        println!(
            "7. per PC sample ingested (stochastic, {samples:.0} samples): callback-thread CPU {per_sample:.1} ns, {:.1} M samples/s; pc_sample on disk {bytes:.5} B per sample; {dropped:.0} dropped by the simulated SDK",
            1e3 / per_sample
        );
    }
    if !wanted(5) {
        return;
    }
    let sizes: &[u64] = if quick { &[5_000_000, 20_000_000] } else { &[5_000_000, 50_000_000] };
    // glibc's default per-thread arenas fragment with the simulator's cross-thread allocations
    // as much as with ours; one arena shows what the tool itself holds.
    for arenas in [None, Some("1")] {
        for &records in sizes {
            let (ours, floor) = peak_rss(&env, records, arenas);
            println!(
                "5. peak RSS over {}M records ({}): rocprof-rs {:.1} MiB, null tool {:.1} MiB: added {:.1} MiB (goal <= 64, flat)",
                records / 1_000_000,
                arenas.map_or("glibc default arenas".to_owned(), |n| format!("MALLOC_ARENA_MAX={n}")),
                ours as f64 / 1024.0,
                floor as f64 / 1024.0,
                (ours as f64 - floor as f64) / 1024.0
            );
        }
    }
    let _ = std::fs::remove_dir_all(&env.scratch);
}

struct Env {
    sim: PathBuf,
    release: PathBuf,
    scratch: PathBuf,
}

#[derive(Clone, Copy)]
enum Tool {
    None,
    Null,
    /// The null tool reading every word of every record (`ROCPROF_SIM_NULL_READ`).
    NullReading,
    Ours,
    /// rocprof-rs collecting the `basic` counter preset on every dispatch.
    OursCounting,
    /// rocprof-rs sampling PCs (stochastic, every 1024 cycles) besides tracing.
    OursSampling,
}

/// What one simulator run reported, and its peak RSS in KiB.
#[derive(Debug, Default, Clone, Copy)]
struct Run {
    play_ns: f64,
    api_calls: u64,
    records: f64,
    callback_cpu_ns: f64,
    emplace_ns: f64,
    max_rss_kib: u64,
}

impl Env {
    /// One simulator run of `dispatches` over 4 threads and 2 GPUs, tracing `domain` only.
    fn run(&self, tool: Tool, domain: &str, dispatches: u64) -> Run {
        self.run_with(tool, domain, dispatches, None, 4)
    }

    /// As `run`, with `MALLOC_ARENA_MAX` set if `arenas` is, over `threads` application threads.
    fn run_with(&self, tool: Tool, domain: &str, dispatches: u64, arenas: Option<&str>, threads: u32) -> Run {
        let out = self.scratch.join("out");
        let _ = std::fs::remove_dir_all(&out);
        let mut cmd = Command::new(&self.sim);
        cmd.args(["--dispatches", &dispatches.to_string(), "--threads", &threads.to_string()])
            .args(["--agents", "2", "--no-truth", "--stats"])
            .env_remove("ROCP_TOOL_LIBRARIES")
            .env_remove("LD_PRELOAD")
            .env_remove("MALLOC_ARENA_MAX");
        if let Some(arenas) = arenas {
            cmd.env("MALLOC_ARENA_MAX", arenas);
        }
        match tool {
            Tool::None => {}
            Tool::Null | Tool::NullReading => {
                cmd.env("ROCP_TOOL_LIBRARIES", self.release.join("librocprof_sim_null_tool.so"))
                    .env("ROCPROF_SIM_NULL_DOMAINS", domain)
                    .env("ROCPROF_SIM_NULL_READ", if matches!(tool, Tool::NullReading) { "1" } else { "0" });
            }
            Tool::Ours | Tool::OursCounting | Tool::OursSampling => {
                if matches!(tool, Tool::OursCounting) {
                    cmd.env("ROCPROF_RS_COUNTER_PRESET", "basic");
                }
                if matches!(tool, Tool::OursSampling) {
                    cmd.args(["--gpu-archs", "gfx942,gfx942"])
                        .env("ROCPROFILER_PC_SAMPLING_BETA_ENABLED", "ON")
                        .env("ROCPROF_RS_PC_SAMPLING_METHOD", "stochastic")
                        .env("ROCPROF_RS_PC_SAMPLING_INTERVAL", "1024");
                }
                cmd.env("ROCP_TOOL_LIBRARIES", self.release.join("librocprof_rs.so"))
                    .env("ROCPROF_RS_DOMAINS", domain)
                    .env("ROCPROF_RS_OUTPUT_DIR", &out)
                    .env("ROCPROF_RS_OUTPUT_NAME", "bench")
                    .env("ROCPROF_RS_SUMMARY", "0");
            }
        }
        let (stderr, max_rss_kib) = run_measured(cmd);
        let line = stderr.lines().find_map(|l| l.strip_prefix("rocprof-sim-stats ")).unwrap_or_else(|| {
            panic!("the simulator printed no stats:\n{stderr}");
        });
        let field = |name: &str| -> f64 {
            let at = line.find(&format!("\"{name}\":")).unwrap_or_else(|| panic!("no {name} in {line}"));
            let rest = &line[at + name.len() + 3..];
            rest[..rest.find([',', '}']).unwrap()].parse().unwrap()
        };
        Run {
            play_ns: field("play_ns"),
            api_calls: field("api_calls") as u64,
            records: field("buffer_callback_records"),
            callback_cpu_ns: field("buffer_callback_cpu_ns"),
            emplace_ns: field("emplace_ns"),
            max_rss_kib,
        }
    }

    /// `RUNS` runs of each tool, interleaved so drift hits them alike.
    fn runs(&self, tools: &[Tool], domain: &str, dispatches: u64) -> Vec<Vec<Run>> {
        self.runs_over(tools, domain, dispatches, 4)
    }

    /// As `runs`, over `threads` application threads.
    fn runs_over(&self, tools: &[Tool], domain: &str, dispatches: u64, threads: u32) -> Vec<Vec<Run>> {
        let mut all = vec![Vec::new(); tools.len()];
        for _ in 0..RUNS {
            for (i, &tool) in tools.iter().enumerate() {
                all[i].push(self.run_with(tool, domain, dispatches, None, threads));
            }
        }
        all
    }
}

/// Runs `cmd` to completion; its stderr and peak RSS (KiB, from `wait4`).
#[allow(clippy::zombie_processes, reason = "reaped by wait4, which also reports the peak RSS")]
fn run_measured(mut cmd: Command) -> (String, u64) {
    let child = cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    let mut stderr = child.stderr.unwrap();
    let reader = std::thread::Builder::new()
        .name("bench-stderr".into())
        .spawn(move || {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut stderr, &mut text).unwrap();
            text
        })
        .unwrap();
    let (status, peak_kib) = common::wait_peak_rss(pid);
    let stderr = reader.join().unwrap();
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "run failed:\n{stderr}");
    (stderr, peak_kib)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn ingest_per_dispatch(env: &Env) -> (f64, f64, f64) {
    let runs = env.runs(&[Tool::Ours, Tool::Null, Tool::NullReading], "kernel", 2_000_000);
    let per_record = |runs: &[Run]| median(runs.iter().map(|r| r.callback_cpu_ns / r.records).collect());
    (per_record(&runs[0]), per_record(&runs[1]), per_record(&runs[2]))
}

/// Per counted dispatch, over rocprof-rs tracing the same dispatches without counters: the
/// callback thread's CPU (decoding the header and every instance value, summing, handing over),
/// the instance values the SDK delivered, and the application's wall time (the dispatch
/// callback that picks the group, plus the simulated SDK's serialisation of counted dispatches).
fn counted_dispatch_cost(env: &Env) -> [f64; 3] {
    const DISPATCHES: u64 = 200_000;
    let runs = env.runs(&[Tool::OursCounting, Tool::Ours], "kernel", DISPATCHES);
    let per = |f: fn(&Run) -> f64| {
        let counting = median(runs[0].iter().map(f).collect());
        let tracing = median(runs[1].iter().map(f).collect());
        (counting - tracing) / DISPATCHES as f64
    };
    [per(|r| r.callback_cpu_ns), per(|r| r.records), per(|r| r.play_ns)]
}

/// Per PC sample, over rocprof-rs tracing the same dispatches without sampling: the callback
/// thread's CPU (decoding, placing by code object, handing over); then the samples taken, the
/// `pc_sample` table's bytes per sample and the samples the simulated SDK dropped, from the
/// last sampling run.
fn pc_sample_cost(env: &Env) -> [f64; 4] {
    const DISPATCHES: u64 = 100_000;
    let runs = env.runs(&[Tool::OursSampling, Tool::Ours], "kernel", DISPATCHES);
    let per_sample = median(
        runs[0]
            .iter()
            .zip(&runs[1])
            .map(|(sampling, tracing)| {
                (sampling.callback_cpu_ns - tracing.callback_cpu_ns) / (sampling.records - tracing.records)
            })
            .collect(),
    );
    // The last run was a tracing one: sample once more for the table.
    env.run(Tool::OursSampling, "kernel", DISPATCHES);
    let out = env.scratch.join("out");
    let bytes: u64 = std::fs::read_dir(out.join("pc_sample"))
        .unwrap()
        .map(|e| std::fs::metadata(e.unwrap().path()).unwrap().len())
        .sum();
    let metadata = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".metadata.json"))
        .expect("a metadata file");
    let metadata: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(metadata).unwrap()).unwrap();
    let count = |key: &str| metadata[key].as_u64().unwrap_or(0) as f64;
    let samples = count("pc_samples");
    [per_sample, samples, bytes as f64 / samples, count("pc_samples_dropped")]
}

/// Per API call, over `threads` application threads: their time in the SDK's record path
/// (rocprof-rs, null tool), and the play's wall time (rocprof-rs, null tool, no tool).
fn api_pair_cost(env: &Env, threads: u32) -> ([f64; 2], [f64; 3]) {
    let runs = env.runs_over(&[Tool::Ours, Tool::Null, Tool::None], "hip_api", 1_000_000, threads);
    let per_call = |runs: &[Run], f: fn(&Run) -> f64| median(runs.iter().map(|r| f(r) / r.api_calls as f64).collect());
    (
        [per_call(&runs[0], |r| r.emplace_ns), per_call(&runs[1], |r| r.emplace_ns)],
        [per_call(&runs[0], |r| r.play_ns), per_call(&runs[1], |r| r.play_ns), per_call(&runs[2], |r| r.play_ns)],
    )
}

fn bytes_per_record(env: &Env) -> (f64, f64) {
    const DISPATCHES: u64 = 1_000_000;
    env.run(Tool::Ours, "kernel", DISPATCHES);
    let dir = env.scratch.join("out/kernel_dispatch");
    let mut parquet_bytes = 0;
    let mut csv_bytes = 0;
    let mut rows = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        parquet_bytes += std::fs::metadata(&path).unwrap().len();
        let (n, bytes) = kernel_trace_csv_bytes(&path);
        rows += n;
        csv_bytes += bytes;
    }
    // The header line, once.
    csv_bytes += KERNEL_TRACE_HEADER.len() as u64 + 1;
    assert_eq!(rows, DISPATCHES, "every dispatch is in the table");
    (parquet_bytes as f64 / rows as f64, csv_bytes as f64 / rows as f64)
}

const KERNEL_TRACE_HEADER: &str = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"";

/// The rows of one kernel_dispatch file as rocprofv3 1.0 writes them in kernel_trace.csv (the
/// layout of the committed fixture): how many, and their bytes.
fn kernel_trace_csv_bytes(path: &Path) -> (u64, u64) {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type, UInt64Type};
    use std::fmt::Write as _;

    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
    let (mut rows, mut bytes) = (0u64, 0u64);
    let mut line = String::new();
    for batch in reader {
        let batch = batch.unwrap();
        let col = |name: &str| batch.column_by_name(name).unwrap().clone();
        let u64s = |name: &str| col(name).as_primitive::<UInt64Type>().clone();
        let i64s = |name: &str| col(name).as_primitive::<Int64Type>().clone();
        let i32s = |name: &str| col(name).as_primitive::<Int32Type>().clone();
        let names = col("kernel_name");
        let names = names.as_dictionary::<Int32Type>();
        let (name_keys, name_values) = (names.keys(), names.values().as_string::<i32>());
        let (agent, queue, thread, dispatch, kernel, corr) = (
            u64s("agent_id"),
            u64s("queue_id"),
            u64s("thread_id"),
            u64s("dispatch_id"),
            u64s("kernel_id"),
            u64s("correlation_id"),
        );
        let (start, end, gx, gy, gz) =
            (i64s("start_ns"), i64s("end_ns"), i64s("grid_x"), i64s("grid_y"), i64s("grid_z"));
        let (lds, scratch, vgpr, accum, sgpr, bx, by, bz) = (
            i32s("shared_mem"),
            i32s("scratch_size"),
            i32s("regs"),
            i32s("accum_vgpr"),
            i32s("sgpr"),
            i32s("block_x"),
            i32s("block_y"),
            i32s("block_z"),
        );
        for i in 0..batch.num_rows() {
            line.clear();
            // rocprofv3 names agents by node id ("Agent 4"); the simulator's nodes are 1-digit too.
            let _ = writeln!(
                line,
                "\"KERNEL_DISPATCH\",\"Agent {}\",{},0,{},{},{},\"{}\",{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                agent.value(i) % 10,
                queue.value(i),
                thread.value(i),
                dispatch.value(i),
                kernel.value(i),
                name_values.value(name_keys.value(i) as usize).replace('"', "\"\""),
                corr.value(i),
                start.value(i),
                end.value(i),
                lds.value(i),
                scratch.value(i),
                vgpr.value(i),
                accum.value(i),
                sgpr.value(i),
                bx.value(i),
                by.value(i),
                bz.value(i),
                gx.value(i),
                gy.value(i),
                gz.value(i),
            );
            bytes += line.len() as u64;
            rows += 1;
        }
    }
    (rows, bytes)
}

fn peak_rss(env: &Env, records: u64, arenas: Option<&str>) -> (u64, u64) {
    // Kernel dispatches only: one record per dispatch.
    let ours = env.run_with(Tool::Ours, "kernel", records, arenas, 4).max_rss_kib;
    let floor = env.run_with(Tool::Null, "kernel", records, arenas, 4).max_rss_kib;
    (ours, floor)
}

/// The writer's records/s on 5M dispatch records of the simulator's kernel catalog, and the
/// rate of merely building the same records (the floor).
fn writer_throughput(scratch: &Path, compression: &str) -> (f64, f64) {
    const RECORDS: usize = 5_000_000;
    const BATCH: usize = 1024;
    let symbols = common::symbols();
    let dispatch = |n: usize| {
        let start = 1_000_000_000 + n as u64 * 2_500;
        Record::Kernel(Kernel {
            thread_id: 4242 + (n % 4) as u64,
            correlation_id: n as u64 + 1,
            external_id: 0,
            start_ns: start,
            end_ns: start + 1_000 + (n as u64 * 7919) % 50_000,
            agent_id: 1 + (n % 2) as u64,
            queue_id: 1 + (n % 8) as u64,
            kernel_id: 1 + (n * 31 % CATALOG.len()) as u64,
            dispatch_id: n as u64 + 1,
            scratch_size: 0,
            shared_mem: 16_384,
            block: [256, 1, 1],
            grid_x: 1 << (10 + n % 10),
            grid_yz: [1, 1],
            ..Kernel::default()
        })
    };
    let mut rates = Vec::new();
    let mut floors = Vec::new();
    for run in 0..RUNS {
        let started = Instant::now();
        let mut batch = Vec::with_capacity(BATCH);
        let mut checksum = 0u64;
        for n in 0..RECORDS {
            batch.push(dispatch(n));
            if batch.len() == BATCH {
                checksum += batch.len() as u64;
                batch.clear();
            }
        }
        std::hint::black_box(checksum);
        floors.push(RECORDS as f64 / started.elapsed().as_secs_f64());

        let dir = scratch.join(format!("writer-{run}"));
        let vars = BTreeMap::from([
            ("ROCPROF_RS_OUTPUT_DIR".to_owned(), dir.display().to_string()),
            ("ROCPROF_RS_OUTPUT_NAME".to_owned(), "bench".to_owned()),
            ("ROCPROF_RS_COMPRESSION".to_owned(), compression.to_owned()),
        ]);
        let config = Config::from_vars(&vars, &Placeholders::of_this_process(&vars)).unwrap();
        let seed = Seed {
            operations: Default::default(),
            library: rocprof_rs::backend::amd::operations::library((1, 0, 0)),
            counters: None,
        };
        let mut tables = Tables::new(config, seed, rocprof_rs::pipeline::rows::no_agents(), 0).unwrap();
        tables.add(&symbols).unwrap();
        let started = Instant::now();
        for n in 0..RECORDS {
            batch.push(dispatch(n));
            if batch.len() == BATCH {
                tables.add(&batch).unwrap();
                batch.clear();
            }
        }
        tables.add(&batch).unwrap();
        batch.clear();
        tables.complete(&[]).unwrap();
        rates.push(RECORDS as f64 / started.elapsed().as_secs_f64());
        let _ = std::fs::remove_dir_all(&dir);
    }
    (median(rates), median(floors))
}

fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map_or("?", |m| m.trim_start_matches([' ', '\t', ':']));
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{cores} cores, {model}")
}
