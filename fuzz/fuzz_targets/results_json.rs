//! Any bytes as the kernel-optimisation results JSON that `analyze` and `score` read: refused
//! with the JSON path of what is wrong, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("rocprof-rs-fuzz-results-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("results.json");
    std::fs::write(&file, data).unwrap();
    let _ = rocprof_rs_analysis::analyze::analyze(&file, &Default::default());
});
