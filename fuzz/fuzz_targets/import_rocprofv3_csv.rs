//! Any bytes as one of rocprofv3's CSV files (the first byte picks which), through the whole
//! import: it may refuse them, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 10] = [
    "kernel_trace.csv",
    "hip_api_trace.csv",
    "hsa_api_trace.csv",
    "memory_copy_trace.csv",
    "marker_api_trace.csv",
    "memory_allocation_trace.csv",
    "scratch_memory_trace.csv",
    "counter_collection.csv",
    "agent_info.csv",
    "memory_allocation.csv",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let dir = std::env::temp_dir().join(format!("rocprof-rs-fuzz-csv-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::write(input.join(NAMES[pick as usize % NAMES.len()]), body).unwrap();
    let _ = rocprof_rs_analysis::import::import(&[input], &dir.join("out"), "fuzz");
    let _ = std::fs::remove_dir_all(&dir);
});
