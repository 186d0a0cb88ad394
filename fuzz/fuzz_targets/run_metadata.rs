//! Any bytes as a run's metadata file (`<stem>.metadata.json`), as `stats` reads it for the
//! records and drops of a run: never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("rocprof-rs-fuzz-metadata-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("fuzz.metadata.json"), data).unwrap();
    let _ = rocprof_rs_analysis::stats::health::warnings(&dir);
    let _ = std::fs::remove_dir_all(&dir);
});
