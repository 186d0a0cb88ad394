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
    let again = Kept::parse(std::path::Path::new("fuzz.json"), &kept.document("fuzz", serde_json::Value::Null).to_string());
    assert_eq!(again.map(|k| k.roofs.to_json()).ok(), Some(kept.roofs.to_json()));
});
