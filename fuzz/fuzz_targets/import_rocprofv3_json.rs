//! Any bytes as a rocprofv3 results.json, through the whole import: it may refuse them, never
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("rocprof-rs-fuzz-v3-json-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("results.json");
    std::fs::write(&input, data).unwrap();
    let _ = rocprof_rs_analysis::import::import(&[input], &dir.join("out"), "fuzz");
    let _ = std::fs::remove_dir_all(&dir);
});
