//! Any bytes as the Parquet files of the tables the HTML report reads beyond `stats` (kernels,
//! markers, device samples, processes), through `report::build` and the page's rendering: a
//! corrupt file may make a section say why it is empty, or the report fail naming the file,
//! never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocprof_rs_analysis::report;
use rocprof_rs_format::Table;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("rocprof-rs-fuzz-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for table in [Table::KernelDispatch, Table::Marker, Table::DeviceSample, Table::Process] {
        std::fs::create_dir_all(dir.join(table.name())).unwrap();
        std::fs::write(dir.join(table.name()).join("fuzz-00000.parquet"), data).unwrap();
    }
    let options = report::Options { bins: 100, ..report::Options::default() };
    if let Ok(page) = report::build(&dir, &options) {
        let html = report::html::render(&page);
        assert!(html.ends_with("</html>\n"));
    }
    let _ = std::fs::remove_dir_all(&dir);
});
