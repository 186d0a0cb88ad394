//! Which activity kinds are on as windows open and close, and which records a close spoils.
//!
//! On the H200 (BENCHMARKS.md, issue 42), the decode loop's launch queue was 170 ms deep:
//! the replays launched in a window ran long after it closed, and their records were right,
//! but the kernels of the last launch before the switch off got as their end the time CUPTI
//! next handled its buffers (hundreds of ms later), overlapping the kernels after them on
//! their stream. [`overlapping_launches`] finds such launches; the backend drops them, counted.
//!
//! One lock orders the switches, so a window's open and close never interleave.

use parking_lot::Mutex;
use rocprofiler_sdk_sys::cupti::{self as sys, Cupti};

use super::api::activity;

/// Launches dropped for their kernels' impossible ends, for the run's metadata.
pub(super) static OVERLAPPING: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How far a kernel's end may pass the start of the next kernel on its stream before the end
/// is taken for CUPTI's bookkeeping rather than the GPU's: programmatic dependent launches
/// overlap a kernel's tail by microseconds, the bogus ends by hundreds of milliseconds.
const OVERLAP_NS: u64 = 5_000_000;

/// The launches (correlation ids) among `kernels` (`(stream, start, end, correlation)`, one
/// buffer's) with a kernel whose end passes the next kernel's start on its stream by more than
/// [`OVERLAP_NS`].
pub(super) fn overlapping_launches(kernels: &mut [(u32, u64, u64, u64)]) -> Vec<u64> {
    kernels.sort_unstable();
    let mut bad: Vec<u64> = kernels
        .windows(2)
        .filter(|p| p[0].0 == p[1].0 && p[0].2 > p[1].1.saturating_add(OVERLAP_NS))
        .map(|p| p[0].3)
        .collect();
    bad.sort_unstable();
    bad.dedup();
    bad
}

/// Held through a switch, so a window's open and close never interleave.
static SWITCHING: Mutex<()> = Mutex::new(());

/// The kinds switched, by name; CUPTI's refusals, by name and reason.
type Refused = Vec<String>;

/// Opens or closes collection: the collected kinds, and with graph-level tracing between
/// windows, GRAPH_TRACE the other way. Each switch turns the new level on before the old one
/// off: a graph launched in between is traced whole (graph-level records take precedence),
/// never as a replay with some of its kernels.
pub(super) fn set_collecting(
    cupti: &Cupti,
    on: bool,
    kinds: &[(&'static str, u32)],
    graph_level_between: bool,
) -> Refused {
    let _switching = SWITCHING.lock();
    let mut refused = Vec::new();
    if !on && graph_level_between {
        switch(cupti, "GRAPH_TRACE", sys::CUPTI_ACTIVITY_KIND_GRAPH_TRACE, true, &mut refused);
    }
    for &(name, kind) in kinds {
        switch(cupti, name, kind, on, &mut refused);
    }
    if on && graph_level_between {
        // Inside a window the graphs' kernels are recorded one by one, which CUPTI does only
        // with graph-level records off.
        switch(cupti, "GRAPH_TRACE", sys::CUPTI_ACTIVITY_KIND_GRAPH_TRACE, false, &mut refused);
    }
    refused
}

fn switch(cupti: &Cupti, name: &str, kind: u32, on: bool, refused: &mut Refused) {
    let switched = if on { activity::enable(cupti, kind) } else { activity::disable(cupti, kind) };
    if let Err(failed) = switched {
        refused.push(format!("{name} ({})", failed.text));
    }
}

#[cfg(test)]
mod tests {
    use super::overlapping_launches;

    #[test]
    fn a_launch_whose_kernel_ends_long_after_the_next_one_started_is_found() {
        let ms = 1_000_000;
        let mut kernels = vec![
            // Stream 7: launch 1 sound, launch 2's first kernel ends 800 ms late.
            (7, 0, ms, 1),
            (7, 2 * ms, 3 * ms, 1),
            (7, 4 * ms, 804 * ms, 2),
            (7, 5 * ms, 805 * ms, 2),
            // Stream 9: a tail overlap of 1 µs (a programmatic dependent launch) is no fault.
            (9, 0, 10 * ms + 1000, 3),
            (9, 10 * ms, 11 * ms, 4),
        ];
        assert_eq!(overlapping_launches(&mut kernels), vec![2]);
        assert!(overlapping_launches(&mut []).is_empty());
    }
}
