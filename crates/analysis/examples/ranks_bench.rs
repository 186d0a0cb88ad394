//! How long `rocprof-rs ranks` takes on a synthetic run, and the memory it holds: 16 ranks of
//! 100,000 kernels each by default, every rank a process of its own files (as the tool writes
//! them, eight ranks a host with a process row each), with a step marker around every 50
//! kernels, an all-reduce per step on a second queue overlapping the compute, and rank 5 late
//! to every tenth step's all-reduce.
//!
//! ```sh
//! cargo run --release -p rocprof-rs-analysis --example ranks_bench
//! cargo run --release -p rocprof-rs-analysis --example ranks_bench -- --ranks 64 --kernels 1000000 --memory 256M
//! ```
//!
//! The dataset is written once under the temporary folder and reused. Times are the median of
//! `--runs` runs (3) of [`rocprof_rs_analysis::ranks::compute`] with one thread per core; the
//! peak is the process's resident high-water mark (`VmHWM`), the dataset's writing included.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use rocprof_rs_analysis::ranks::{self, Options};
use rocprof_rs_format::files::WriteOptions;
use rocprof_rs_format::origin::Origin;
use rocprof_rs_format::writer::{AnyTableWriter, TableWriter};
use rocprof_rs_format::{self as format, Table};

fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}

const KERNELS_PER_STEP: u64 = 50;
const STRAGGLER: u32 = 5;
const DELAY_NS: i64 = 200_000;

/// Writes rank `rank`'s tables: `kernels` kernels in steps of [`KERNELS_PER_STEP`].
fn write_rank(dir: &Path, rank: u32, ranks: u32, kernels: u64) {
    let pid = 1000 + rank;
    let mut options = WriteOptions::new(dir, format!("node{}-{pid}", rank / 8));
    options.origin = Origin {
        host: Some(format!("node{}", rank / 8)),
        rank: Some(rank as i32),
        local_rank: Some((rank % 8) as i32),
        world_size: Some(ranks as i32),
    };
    let mut dispatch = TableWriter::<format::KernelDispatch>::new(&options, Table::KernelDispatch, Vec::new());
    // Its process row: the two hosts' clocks 1 ms apart, so arrivals are shifted.
    let mut process = TableWriter::<format::Process>::new(&options, Table::Process, Vec::new());
    process.rows.push(format::ProcessRow {
        pid,
        command_line: "train.py",
        tool_version: env!("CARGO_PKG_VERSION"),
        format_version: format::FORMAT_VERSION,
        backend: "rocprofiler-sdk",
        vendor: "amd",
        start_ns: 1_000_000_000,
        end_ns: 2_000_000_000,
        start_unix_ns: 1_700_000_000_000_000_000 + i64::from(rank / 8) * 1_000_000,
        records: kernels,
        dropped: 0,
        metadata: "{}",
    });
    let mut marker = TableWriter::<format::Marker>::new(&options, Table::Marker, Vec::new());
    let names: Vec<Arc<str>> = ["gemm_fwd", "softmax", "gemm_bwd", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"]
        .into_iter()
        .map(Arc::from)
        .collect();
    let mut t = 1_000_000_000i64 + i64::from(rank) * 1_000;
    for step in 0..kernels / KERNELS_PER_STEP {
        let start = t;
        for k in 0..KERNELS_PER_STEP {
            let collective = k == KERNELS_PER_STEP - 1;
            let late = if collective && rank == STRAGGLER && step % 10 == 0 { DELAY_NS } else { 0 };
            let (name, queue, length) =
                if collective { (&names[3], 2, 30_000) } else { (&names[(k % 3) as usize], 1, 8_000) };
            // The all-reduce starts before the last compute kernels end: they overlap.
            let begin = if collective { t - 20_000 + late } else { t };
            dispatch.rows.push(format::KernelDispatchRow {
                kernel_name: name,
                start_ns: begin,
                duration_ns: length,
                grid_x: 65_536,
                grid_y: 1,
                grid_z: 1,
                block_x: 256,
                block_y: 1,
                block_z: 1,
                regs: 32,
                shared_mem: 0,
                stream_id: None,
                end_ns: begin + length,
                dispatch_id: step * KERNELS_PER_STEP + k + 1,
                correlation_id: step * KERNELS_PER_STEP + k + 1,
                external_id: 0,
                kernel_id: 1,
                agent_id: 1,
                queue_id: queue,
                thread_id: 1,
                pid,
                mangled_name: name,
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
            t = begin + length + 500;
            dispatch.write_if(64 * 1024, &Vec::new).expect("write kernels");
        }
        marker.rows.push(format::MarkerRow {
            message: "train_step",
            operation: "roctxRangePushA",
            start_ns: start,
            end_ns: t,
            duration_ns: t - start,
            depth: Some(0),
            correlation_id: step,
            thread_id: 1,
            pid,
            vendor: &format::vendor::AMD,
            domain: None,
        });
    }
    for writer in [&mut dispatch as &mut dyn AnyTableWriter, &mut marker, &mut process] {
        writer.write_if(1, &Vec::new).expect("write");
        writer.files_mut().close(Vec::new()).expect("close");
    }
}

fn dataset(ranks: u32, kernels: u64) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rocprof-rs-ranks-bench-v2-{ranks}x{kernels}"));
    if dir.join("done").exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let started = Instant::now();
    for rank in 0..ranks {
        write_rank(&dir, rank, ranks, kernels);
    }
    std::fs::write(dir.join("done"), b"").expect("mark the dataset complete");
    eprintln!("wrote {} in {:.1} s", dir.display(), started.elapsed().as_secs_f64());
    dir
}

/// The process's peak resident memory, MiB, from `/proc/self/status`.
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    let ranks: u32 = arg("--ranks").and_then(|v| v.parse().ok()).unwrap_or(16);
    let kernels: u64 = arg("--kernels").and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let runs: usize = arg("--runs").and_then(|v| v.parse().ok()).unwrap_or(3);
    if let Some(memory) = arg("--memory") {
        let bytes = rocprof_rs_analysis::spill::parse_size(&memory).expect("--memory: a size such as 256M");
        rocprof_rs_analysis::spill::set_memory(bytes);
    }
    let dir = dataset(ranks, kernels);
    let before = peak_mib();
    let options =
        Options { step_marker: Some(regex::Regex::new("^train_step$").expect("a regex")), top: Some(10), threads: 0 };
    let mut seconds = Vec::new();
    let mut report = None;
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        report = Some(ranks::compute(&dir, &options).expect("ranks"));
        seconds.push(started.elapsed().as_secs_f64());
    }
    seconds.sort_by(f64::total_cmp);
    let report = report.expect("one run at least");
    let straggler = report.stragglers.first().map_or_else(|| "none".to_owned(), |s| s.rank.name.clone());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "ranks: {ranks} ranks x {kernels} kernels ({} rows), {threads} threads: median {:.3} s of {} runs ({:?}); \
         {:.1} M kernels/s; peak RSS {:.0} MiB (after writing: {:.0} MiB); straggler found: rank {straggler}",
        u64::from(ranks) * kernels,
        seconds[seconds.len() / 2],
        seconds.len(),
        seconds.iter().map(|s| format!("{s:.3}")).collect::<Vec<_>>(),
        (u64::from(ranks) * kernels) as f64 / seconds[seconds.len() / 2] / 1e6,
        peak_mib().unwrap_or(f64::NAN),
        before.unwrap_or(f64::NAN),
    );
}
