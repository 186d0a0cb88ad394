//! `rocprof-rs stats` over a 100M-row kernel_dispatch table, against a floor measured in the
//! same run: decoding the same two columns with the Parquet reader and doing nothing else.
//!
//! ```sh
//! cargo bench --bench stats                 # 100M rows (the dataset is written once, ~1.6 GB)
//! cargo bench --bench stats -- --rows 10    # 10M rows
//! ```
//!
//! The dataset is the tool's own writer's output (`Tables`, zstd, default row groups and
//! rotation), kept under `target/bench-data/` between runs. Medians of 5 runs.

use rocprof_rs_format::Table;
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use rocprof_rs::config::{Config, Placeholders};
use rocprof_rs::pipeline::records::{Kernel, Record};
use rocprof_rs::pipeline::rows::Tables;
use rocprof_rs::pipeline::run::Seed;
use rocprof_rs_analysis::stats::{self, Options, Section};
use rocprof_sim::kernels::CATALOG;

mod common;

const RUNS: usize = 5;

fn main() {
    let millions: u64 =
        std::env::args().skip_while(|a| a != "--rows").nth(1).and_then(|n| n.parse().ok()).unwrap_or(100);
    let rows = millions * 1_000_000;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("target/bench-data/stats-{millions}M-random"));
    dataset(&dir, rows);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    println!("machine: {threads} cores; dataset: {rows} kernel_dispatch rows in {}", dir.display());
    let mut ours = Vec::new();
    let mut floor = Vec::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        let result = stats::compute(&dir, &[Section::Kernel], &Options::default()).unwrap();
        ours.push(started.elapsed().as_secs_f64());
        let calls: u64 = result[0].rows.to_vec().unwrap().iter().map(|r| r.calls).sum();
        assert_eq!(calls, rows, "every row counted");
        let started = Instant::now();
        decode_only(&dir, threads);
        floor.push(started.elapsed().as_secs_f64());
    }
    let (ours, floor) = (median(ours), median(floor));
    println!(
        "stats over {millions}M rows: {ours:.2} s ({:.0} M rows/s); decoding the two columns alone: {floor:.2} s; ratio {:.2} (goal <= 5 s)",
        rows as f64 / ours / 1e6,
        ours / floor
    );
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Writes `rows` dispatch rows with the tool's own writer, unless a complete copy is there.
fn dataset(dir: &Path, rows: u64) {
    let done = dir.join(".complete");
    if done.exists() {
        return;
    }
    let _ = std::fs::remove_dir_all(dir);
    eprintln!("writing {rows} rows to {} (once)...", dir.display());
    let vars = BTreeMap::from([
        ("ROCPROF_RS_OUTPUT_DIR".to_owned(), dir.display().to_string()),
        ("ROCPROF_RS_OUTPUT_NAME".to_owned(), "bench".to_owned()),
    ]);
    let config = Config::from_vars(&vars, &Placeholders::of_this_process(&vars)).unwrap();
    let seed = Seed {
        operations: Default::default(),
        library: rocprof_rs::backend::amd::operations::library((1, 0, 0)),
        counters: None,
    };
    let mut tables = Tables::new(config, seed, rocprof_rs::pipeline::rows::no_agents(), 0).unwrap();
    let symbols = common::symbols();
    tables.add(&symbols).unwrap();
    let mut batch = Vec::with_capacity(1024);
    // Irregular like a real trace (kernels in no pattern, durations spread over four orders of
    // magnitude, uneven gaps), so the columns compress and decode as real ones do.
    let mut random = common::xorshift();
    let mut start = 1_000_000_000u64;
    for n in 0..rows {
        let (r1, r2) = (random(), random());
        start += 200 + r1 % 4_000;
        let duration = 800 + (r2 % 1_000) * (1 + (r2 >> 20) % 1_000);
        batch.push(Record::Kernel(Kernel {
            thread_id: 4242 + n % 4,
            correlation_id: n + 1,
            external_id: 0,
            start_ns: start,
            end_ns: start + duration,
            agent_id: 1 + n % 2,
            queue_id: 1 + n % 8,
            kernel_id: 1 + (r1 >> 32) % CATALOG.len() as u64,
            dispatch_id: n + 1,
            scratch_size: 0,
            shared_mem: 16_384,
            block: [256, 1, 1],
            grid_x: 1 << (10 + n % 10),
            grid_yz: [1, 1],
            ..Kernel::default()
        }));
        if batch.len() == 1024 {
            tables.add(&batch).unwrap();
            batch.clear();
        }
    }
    tables.add(&batch).unwrap();
    tables.finish(&[], &rocprof_rs::pipeline::summary::Summary::default()).unwrap();
    std::fs::write(done, "").unwrap();
}

/// Decodes `kernel_name` and `duration_ns` of every row group, on `threads` threads, and
/// nothing else.
fn decode_only(dir: &Path, threads: usize) {
    let files: Vec<PathBuf> = rocprof_rs_format::dataset::table_files(dir, Table::KernelDispatch).unwrap();
    let mut work = Vec::new();
    let mut footers = Vec::new();
    for (f, path) in files.iter().enumerate() {
        let footer = ArrowReaderMetadata::load(&File::open(path).unwrap(), ArrowReaderOptions::default()).unwrap();
        work.extend((0..footer.metadata().num_row_groups()).map(|g| (f, g)));
        footers.push(footer);
    }
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut rows = 0;
                while let Some(&(f, g)) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(
                        File::open(&files[f]).unwrap(),
                        footers[f].clone(),
                    );
                    let schema = builder.parquet_schema();
                    let columns = ["kernel_name", "duration_ns"]
                        .map(|c| schema.columns().iter().position(|d| d.name() == c).unwrap());
                    let mask = ProjectionMask::leaves(schema, columns);
                    let reader = builder
                        .with_projection(mask)
                        .with_row_groups(vec![g])
                        .with_batch_size(64 * 1024)
                        .build()
                        .unwrap();
                    for batch in reader {
                        rows += batch.unwrap().num_rows();
                    }
                }
                std::hint::black_box(rows);
            });
        }
    });
}
