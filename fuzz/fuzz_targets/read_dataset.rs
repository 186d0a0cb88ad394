//! Any bytes as a table's Parquet file, through every reader of a dataset: `stats`, the typed
//! batch reader every export uses, the health check, and the PC samples' reader and hotspots. A corrupt footer, page or schema may
//! be refused with an error naming the file, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocprof_rs_analysis::stats::{Options, Section};
use rocprof_rs_format::Table;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("rocprof-rs-fuzz-dataset-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for table in [Table::KernelDispatch, Table::Marker, Table::PcSample] {
        std::fs::create_dir_all(dir.join(table.name())).unwrap();
        std::fs::write(dir.join(table.name()).join("fuzz-00000.parquet"), data).unwrap();
    }
    let options = Options { threads: 1, ..Options::default() };
    let _ = rocprof_rs_analysis::stats::compute(&dir, &Section::ALL, &options);
    let _ = rocprof_rs_analysis::stats::health::warnings(&dir);
    let _ = rocprof_rs_format::read::batches(&dir, Table::KernelDispatch, |b| {
        let (name, start, grid) = (b.col("kernel_name")?, b.col("start_ns")?, b.col("grid_x")?);
        for i in 0..b.rows() {
            std::hint::black_box((name.text(i), start.opt_i64(i), grid.f64(i)));
        }
        Ok::<(), rocprof_rs_format::Error>(())
    });
    if let Ok(rows) = rocprof_rs_analysis::hotspots::read_pc_samples(&dir) {
        std::hint::black_box(rocprof_rs_analysis::hotspots::hotspots(&rows, 10));
    }
    let _ = std::fs::remove_dir_all(&dir);
});
