//! Any text as a madengine profile (`rocprof-rs run --profile FILE.json`): mapped or refused with
//! the JSON path of what is wrong, never a panic. The CLI's own modules are compiled in, since
//! the profile parser lives in the command-line package, which has no library.
#![no_main]

#[allow(dead_code)]
#[path = "../../src/cli/flags.rs"]
mod flags;
#[allow(dead_code)]
#[path = "../../src/cli/output_formats.rs"]
mod output_formats;
#[allow(dead_code)]
#[path = "../../src/cli/profile.rs"]
mod profile;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = profile::parse(text);
    }
});
