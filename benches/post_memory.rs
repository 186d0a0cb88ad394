//! Peak memory of `rocprof-rs stats` and of each export, against the number of records and of
//! distinct names (issue 20: post-processing streams, bounded whatever the trace).
//!
//! ```sh
//! cargo bench --bench post_memory                              # 1M and 10M records, 10k and 1M names
//! cargo bench --bench post_memory -- --records 1 --names 10000 # one dataset
//! cargo bench --bench post_memory -- --commands stats,analyze,diff,score,report --memory 64M
//! ```
//!
//! `--commands` picks among stats, the exports (rocprofv3-csv, perfetto, rocpd) and analyze,
//! diff (the dataset against itself), score and report; `--memory` is given to each (default:
//! the commands' own, 256M).
//!
//! Each dataset holds N `kernel_dispatch` rows over D distinct kernel names (every name at least
//! once) and N `hip_api` rows, one launch per kernel with its correlation id, written by the
//! importers' writer and kept under `target/bench-data/` between runs. Each command runs as a
//! child process; its peak RSS is the kernel's account (`wait4`'s `ru_maxrss`). The floor,
//! measured in the same run, is `stats` of a one-row dataset: the process, its libraries and
//! its threads, with no records to hold. Medians of `--runs` runs (3 by default).

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use rocprof_rs_analysis::import::sink::{DispatchRow, Sink};
use rocprof_rs_format::launch::KernelLaunch;

mod common;

fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}

fn list(name: &str, default: &[u64]) -> Vec<u64> {
    arg(name).map_or(default.to_vec(), |v| v.split(',').filter_map(|n| n.parse().ok()).collect())
}

fn main() {
    // Datasets are written by a child of this process, so that this one stays small: a child's
    // peak RSS counts the memory its parent had when it was started.
    if let Some(spec) = arg("--write-dataset") {
        let parts: Vec<&str> = spec.split(',').collect();
        dataset(Path::new(parts[0]), parts[1].parse().unwrap(), parts[2].parse().unwrap());
        return;
    }
    let records = list("--records", &[1, 10]);
    let names = list("--names", &[10_000, 1_000_000]);
    let runs: usize = arg("--runs").and_then(|r| r.parse().ok()).unwrap_or(3);
    let commands: Vec<String> = arg("--commands")
        .map_or(COMMANDS.iter().map(|c| (*c).to_owned()).collect(), |c| c.split(',').map(str::to_owned).collect());
    let memory = arg("--memory");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let floor_dir = data.join("post-floor");
    write_dataset(&floor_dir, 1, 1);
    println!(
        "| records | names | command | peak RSS, MiB (median) | over the floor, MiB | runs, MiB | seconds (median) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for &millions in &records {
        for &distinct in &names {
            let rows = millions * 1_000_000;
            let dir = data.join(format!("post-{millions}M-{distinct}"));
            write_dataset(&dir, rows, distinct);
            for command in &commands {
                let mut peaks = Vec::new();
                let mut floors = Vec::new();
                let mut seconds = Vec::new();
                for _ in 0..runs {
                    floors.push(peak(&floor_dir, "stats", &data, None).0);
                    let (kib, s) = peak(&dir, command, &data, memory.as_deref());
                    peaks.push(kib);
                    seconds.push(s);
                }
                let (p, f) = (median(&peaks), median(&floors));
                let each: Vec<String> = peaks.iter().map(|k| format!("{:.1}", k / 1024.0)).collect();
                println!(
                    "| {millions}M | {distinct} | {command} | {:.1} | {:.1} | {} | {:.1} |",
                    p / 1024.0,
                    (p - f) / 1024.0,
                    each.join(", "),
                    median(&seconds)
                );
            }
        }
    }
}

const COMMANDS: [&str; 4] = ["stats", "rocprofv3-csv", "perfetto", "rocpd"];

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// Runs `command` on `dir` and returns its peak RSS in KiB and its wall time in seconds.
// The child is reaped by wait4, which gives its resource usage; `Child::wait` cannot.
#[allow(clippy::zombie_processes)]
fn peak(dir: &Path, command: &str, data: &Path, memory: Option<&str>) -> (f64, f64) {
    let out = data.join(match command {
        "perfetto" => "post-out.pftrace",
        "report" => "post-out.html",
        _ => "post-out",
    });
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_file(&out);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"));
    match command {
        "stats" | "analyze" => {
            cmd.arg(command).arg(dir).args(["--format", "csv"]);
        }
        "diff" => {
            cmd.arg("diff").arg(dir).arg(dir).args(["--format", "csv"]);
        }
        "score" => {
            cmd.arg("score").arg(dir);
        }
        "report" => {
            cmd.arg("report").arg(dir).arg("-o").arg(&out);
        }
        _ => {
            cmd.arg("export").arg(dir).args(["--format", command, "-o"]).arg(&out);
        }
    }
    if let Some(memory) = memory {
        cmd.args(["--memory", memory]);
    }
    let log = data.join("post-stderr.txt");
    cmd.stdout(std::process::Stdio::null()).stderr(std::fs::File::create(&log).unwrap());
    let started = std::time::Instant::now();
    let child = cmd.spawn().unwrap();
    let (status, peak_kib) = common::wait_peak_rss(child.id() as libc::pid_t);
    let seconds = started.elapsed().as_secs_f64();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{command} on {} failed: {}",
        dir.display(),
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_file(&out);
    (peak_kib as f64, seconds)
}

/// Has a child write the dataset (see `main`).
fn write_dataset(dir: &Path, rows: u64, names: u64) {
    let status = Command::new(std::env::current_exe().unwrap())
        .arg("--write-dataset")
        .arg(format!("{},{rows},{names}", dir.display()))
        .status()
        .unwrap();
    assert!(status.success(), "writing {}", dir.display());
}

/// Writes `rows` dispatches over `names` distinct kernel names, and as many launch calls,
/// unless a complete copy is there.
fn dataset(dir: &Path, rows: u64, names: u64) {
    let done = dir.join(".complete");
    if done.exists() {
        return;
    }
    let _ = std::fs::remove_dir_all(dir);
    eprintln!("writing {rows} dispatches over {names} names to {} (once)...", dir.display());
    let mut sink = Sink::new(dir, "bench", "bench").unwrap();
    let mut random = common::xorshift();
    let mut start = 1_000_000_000i64;
    let mut cached: Vec<Arc<str>> = Vec::new();
    let launch: Arc<str> = "hipLaunchKernel".into();
    for n in 0..rows {
        let (r1, r2) = (random(), random());
        start += 200 + (r1 % 4_000) as i64;
        let duration = 800 + ((r2 % 1_000) * (1 + (r2 >> 20) % 1_000)) as i64;
        let k = if n < names { n } else { (r1 >> 32) % names };
        // A bounded cache of shared names, so writing 1M names does not hold them all.
        let slot = (k % 4096) as usize;
        if cached.len() <= slot {
            cached.resize(slot + 1, Arc::from(""));
        }
        let name = format!("void kernel_{k:07}<float, 256>(float const*, float*, int)");
        if *cached[slot] != *name {
            cached[slot] = name.into();
        }
        let correlation = n + 1;
        sink.push_dispatch(DispatchRow {
            launch: KernelLaunch {
                start_ns: start + 5_000,
                end_ns: start + 5_000 + duration,
                grid: [1 << (10 + n % 10), 1, 1],
                block: [256, 1, 1],
                shared_mem: 16_384,
                stream_id: Some(0),
                dispatch_id: n + 1,
                correlation_id: correlation,
                kernel_id: k + 1,
                agent_id: 1 + n % 2,
                queue_id: 1 + n % 8,
                thread_id: 4242 + n % 4,
                ..KernelLaunch::default()
            },
            name: cached[slot].clone(),
            vgpr: 32,
            pid: 7,
            ..DispatchRow::default()
        });
        sink.hip_api.rows.push(rocprof_rs_format::ApiCallRow {
            operation: &launch,
            start_ns: start,
            end_ns: start + 3_000,
            duration_ns: 3_000,
            thread_id: 4242 + n % 4,
            correlation_id: correlation,
            ancestor_id: 0,
            pid: 7,
        });
        if n % 65_536 == 0 {
            sink.write_full().unwrap();
        }
    }
    sink.finish().unwrap();
    std::fs::write(done, "").unwrap();
}
