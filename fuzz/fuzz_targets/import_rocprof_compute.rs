//! Any bytes as a rocprof-compute workload folder, through the whole import: it may refuse
//! them, never panic. The input is split at `\n#%#\n` into pmc_perf.csv, timestamps.csv,
//! sysinfo.csv, SQ_LEVEL_WAVES.csv and roofline.csv (missing parts are missing files), so the
//! joins by order, the pass files, the agent and the measured roofs are all reached.
#![no_main]

use libfuzzer_sys::fuzz_target;

const FILES: [&str; 5] = ["pmc_perf.csv", "timestamps.csv", "sysinfo.csv", "SQ_LEVEL_WAVES.csv", "roofline.csv"];

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("rocprof-rs-fuzz-rpc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let workload = dir.join("workload");
    std::fs::create_dir_all(&workload).unwrap();
    let text = String::from_utf8_lossy(data);
    for (name, part) in FILES.iter().zip(text.split("\n#%#\n")) {
        std::fs::write(workload.join(name), part).unwrap();
    }
    let _ = rocprof_rs_analysis::import::import(&[workload.clone()], &dir.join("out"), "fuzz");
    // Any one file of it alone, as a user may name it.
    let _ = rocprof_rs_analysis::import::import(&[workload.join(FILES[0])], &dir.join("out1"), "fuzz");
    let _ = std::fs::remove_dir_all(&dir);
});
