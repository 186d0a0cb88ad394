//! Any bytes as one rocprofiler-sdk buffer record of any tracing kind, or one PC sample,
//! decoded as the tool's buffer callback decodes the SDK's records. The payload is as large as the largest record
//! the SDK writes, as the SDK's own are; the values are anything. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocprofiler_sdk_sys as sys;

/// Bytes of the largest payload the decoder reads, with room to spare, 8-aligned.
const PAYLOAD_WORDS: usize = 128;

fuzz_target!(|data: &[u8]| {
    let Some((head, body)) = data.split_at_checked(4) else { return };
    let mut payload = [0u64; PAYLOAD_WORDS];
    for (i, &byte) in body.iter().take(PAYLOAD_WORDS * 8).enumerate() {
        payload[i / 8] |= u64::from(byte) << ((i % 8) * 8);
    }
    let mut header = sys::rocprofiler_record_header_t::default();
    header.__bindgen_anon_1.__bindgen_anon_1 = sys::rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1 {
        // Mostly the tracing category, so the kinds are reached.
        category: if head[0] < 240 { sys::ROCPROFILER_BUFFER_CATEGORY_TRACING } else { u32::from(head[1]) },
        kind: u32::from(u16::from_le_bytes([head[2], head[3]]) % 64),
    };
    header.payload = payload.as_mut_ptr().cast();
    if (200..240).contains(&head[0]) {
        // A PC sample of any kind (the host-trap and stochastic v0 records and beyond).
        let kind = u32::from(head[1] % 8);
        // SAFETY: as below: a live, 8-aligned payload larger than either sample record.
        let _ = unsafe { rocprof_rs::backend::amd::pc_decode::decode(kind, header.payload) };
        return;
    }
    // SAFETY: a header whose payload is a live, 8-aligned buffer at least as large as every
    // record type the decoder reads, holding only plain data, as the SDK's do.
    let _ = unsafe { rocprof_rs::backend::amd::ingest::decode(&header) };
});
