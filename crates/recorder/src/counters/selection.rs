//! What a counter request selects, and how its passes are taken: what the settings ask for
//! ([`crate::config::counters`]) and what packing and the tool act on.

use super::presets::Preset;

/// Which counters.
#[derive(Debug, Clone)]
pub enum Selection {
    /// Names, packed into as few passes as the hardware allows.
    Names(Vec<String>),
    /// Passes as an input file's `pmc:` lines give them; a line too large for one pass is
    /// split further.
    Passes(Vec<Vec<String>>),
    /// A preset, resolved per agent.
    Preset(&'static Preset),
}

/// How the passes a set needs are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassMode {
    /// One application run: successive dispatches of a kernel (same grid) take the passes in
    /// turn.
    Rotate,
    /// One application run per pass, as rocprofv3 does; `rocprof-rs run` repeats the run.
    Application,
}
