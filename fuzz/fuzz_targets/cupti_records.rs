//! Any bytes as a CUPTI activity buffer, walked record by record and decoded as the tool does
//! on CUPTI's thread: an unknown kind, a short record or a bad size is skipped or refused,
//! never read out of bounds, never a panic.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use rocprof_rs::backend::cupti::decode::{self, Names};

struct NoNames;

impl Names for NoNames {
    fn name(&mut self, pointer: u64) -> Option<Arc<str>> {
        (pointer % 3 == 0).then(|| Arc::from("kernel"))
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, data)) = data.split_first() else { return };
    let _ = decode::decode(data, &mut NoNames);
    // The CUPTI versions whose record sizes differ: 12.x and 13.x.
    let version = if selector & 1 == 0 { 120_000 } else { 130_001 };
    for record in decode::Walker::new(data, version).take(10_000) {
        match record {
            Ok((_, bytes)) => _ = decode::decode(bytes, &mut NoNames),
            Err(_) => break,
        }
    }
});
