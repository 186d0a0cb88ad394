//! Any text as a kept measurement of a GPU's roofs (`doctor --measure-roofs`' file, which
//! `analyze --roofs` and the kept folder read): an error or a measurement, never a panic; a
//! measurement read has only positive finite roofs and fits only its own GPU's name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocprof_rs_analysis::analyze::kept::Kept;
use rocprof_rs_analysis::analyze::specs::Agent;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(kept) = Kept::parse(std::path::Path::new("fuzz.json"), text) else { return };
    assert!(!kept.roofs.is_empty() && kept.sm_count > 0);
    for v in kept.roofs.bandwidth.values().chain(kept.roofs.peaks.values()) {
        assert!(v.is_finite() && *v > 0.0);
    }
    assert!(!kept.fits(&Agent::default()));
    // Written and read back, the same roofs: serde_json's parsing is not correctly rounded
    // (no float_roundtrip), so to the last bit or two.
    let again =
        Kept::parse(std::path::Path::new("fuzz.json"), &kept.document("fuzz", serde_json::Value::Null).to_string())
            .expect("a measurement written reads back");
    assert_eq!(again.roofs.bandwidth.len(), kept.roofs.bandwidth.len());
    assert_eq!(again.roofs.peaks.len(), kept.roofs.peaks.len());
    let pairs = again.roofs.bandwidth.values().zip(kept.roofs.bandwidth.values());
    for (a, b) in pairs.chain(again.roofs.peaks.values().zip(kept.roofs.peaks.values())) {
        assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} read back as {b}");
    }
});
