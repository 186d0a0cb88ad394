//! Any bytes as nvdisasm's listing of a function (`nvdisasm -c -g -fun`), read as the CUPTI
//! backend reads it for sampled PCs' instruction text and source lines. Never a panic, and
//! never more instructions than the reader's limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocprof_rs::backend::cupti::pc_sampling::disasm;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let listing = disasm::parse(&text);
    assert!(listing.len() <= disasm::MAX_INSTRUCTIONS);
    for line in listing.values() {
        assert!(!line.text.is_empty());
        assert!(line.source_line.is_none_or(|n| n > 0));
    }
});
