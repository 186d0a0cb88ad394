//! Any text as a rocprof counter input file (`ROCPROF_RS_PMC_FILE`, `run -i`): parsed inside
//! the profiled application, so it may be refused with its line, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = rocprof_rs::config::counters::parse_input(text, "fuzz.txt");
        let _ = rocprof_rs::config::counters::parse_names(text);
    }
});
