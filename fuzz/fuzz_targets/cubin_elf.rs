//! Any bytes as a cubin, asked for the function at a symbol index (the first four bytes) with a
//! name (the next eight), as the CUPTI backend asks before it lets CUPTI correlate a sampled PC
//! with its source line. Never a panic, and a function found is never empty.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocprof_rs::backend::cupti::pc_sampling::cubin;

fuzz_target!(|data: &[u8]| {
    if data.len() < 12 {
        return;
    }
    let index = u32::from_le_bytes(data[..4].try_into().unwrap());
    let name = &data[4..12];
    let name = &name[..name.iter().position(|b| *b == 0).unwrap_or(name.len())];
    if let Some(function) = cubin::function_with_lines(&data[12..], index, name) {
        assert!(function.size > 0);
    }
});
