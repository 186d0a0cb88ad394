//! Any bytes as a rocpd SQLite database, through the whole import: a corrupt page, a table of
//! the wrong shape or a value of the wrong type may be refused, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("rocprof-rs-fuzz-rocpd-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("results.db");
    std::fs::write(&input, data).unwrap();
    let _ = rocprof_rs_analysis::import::import(&[input], &dir.join("out"), "fuzz");
    let _ = std::fs::remove_dir_all(&dir);
});
