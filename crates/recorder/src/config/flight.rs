//! The flight recorder's settings (`ROCPROF_RS_FLIGHT_RECORDER` and the variables that shape
//! it), checked together: a trigger asked for without the recorder is an error, not a no-op.

use std::collections::BTreeMap;
use std::time::Duration;

use regex_lite::Regex;

use super::window::duration;
use super::{
    DUMP_ON_EXIT, DUMP_SIGNAL, FLIGHT_RECORDER, FLIGHT_RECORDER_MEMORY, HANG_SECONDS, SLOW_STEP_FACTOR, STEP_MARKER,
    accepts, invalid,
};
use crate::error::Result;

/// Keep the last `keep` of records in memory, write them when a trigger fires.
#[derive(Debug, Clone)]
pub struct FlightRecorder {
    /// How far back a dump reaches.
    pub keep: Duration,
    /// The most the kept records may take, bytes.
    pub memory_bytes: usize,
    /// The signal that asks for a dump (`None`: no signal does).
    pub signal: Option<libc::c_int>,
    /// Dump when the run ends normally.
    pub on_exit: bool,
    /// Markers whose message matches are steps; a step slower than `slow_factor` times the
    /// running median of the steps before dumps.
    pub step_marker: Option<Regex>,
    pub slow_factor: f64,
    /// Dump when no kernel has finished for this long while launched work is outstanding.
    pub hang: Option<Duration>,
}

impl FlightRecorder {
    /// The shortest and longest spans kept.
    pub const KEEP: (Duration, Duration) = (Duration::from_secs(1), Duration::from_secs(3600));

    /// The settings, if `ROCPROF_RS_FLIGHT_RECORDER` asks for the recorder; an error for a bad
    /// value or for a recorder setting without it.
    pub fn from_env(env: &BTreeMap<String, String>) -> Result<Option<FlightRecorder>> {
        let set = |name: &str| env.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
        let Some(keep_text) = set(FLIGHT_RECORDER) else {
            let shaping =
                [FLIGHT_RECORDER_MEMORY, DUMP_SIGNAL, DUMP_ON_EXIT, STEP_MARKER, SLOW_STEP_FACTOR, HANG_SECONDS];
            if let Some(name) = shaping.into_iter().find(|name| set(name).is_some()) {
                return Err(invalid(
                    name_static(name),
                    set(name).unwrap_or_default(),
                    &format!("{} (it shapes the flight recorder: set ROCPROF_RS_FLIGHT_RECORDER too)", accepts(name)),
                ));
            }
            return Ok(None);
        };
        let keep = seconds_or_duration(keep_text)
            .filter(|d| (Self::KEEP.0..=Self::KEEP.1).contains(d))
            .ok_or_else(|| invalid(FLIGHT_RECORDER, keep_text, accepts(FLIGHT_RECORDER)))?;
        let memory_bytes = match set(FLIGHT_RECORDER_MEMORY) {
            None => 256 << 20,
            Some(text) => super::parse_bytes(text)
                .filter(|&b| (16 << 20..=64 << 30).contains(&b))
                .ok_or_else(|| invalid(FLIGHT_RECORDER_MEMORY, text, accepts(FLIGHT_RECORDER_MEMORY)))?,
        };
        let signal = match set(DUMP_SIGNAL).map(str::to_ascii_lowercase).as_deref() {
            None | Some("usr2" | "sigusr2") => Some(libc::SIGUSR2),
            Some("usr1" | "sigusr1") => Some(libc::SIGUSR1),
            Some("off" | "none") => None,
            Some(_) => return Err(invalid(DUMP_SIGNAL, set(DUMP_SIGNAL).unwrap_or_default(), accepts(DUMP_SIGNAL))),
        };
        let on_exit = match set(DUMP_ON_EXIT) {
            None | Some("0" | "false" | "no" | "off") => false,
            Some("1" | "true" | "yes" | "on") => true,
            Some(other) => return Err(invalid(DUMP_ON_EXIT, other, accepts(DUMP_ON_EXIT))),
        };
        let step_marker = match set(STEP_MARKER) {
            None => None,
            Some(text) => Some(Regex::new(text).map_err(|e| {
                let why = e.to_string().lines().last().unwrap_or("invalid").trim().to_owned();
                invalid(STEP_MARKER, text, &format!("{} ({why})", accepts(STEP_MARKER)))
            })?),
        };
        let slow_factor = match set(SLOW_STEP_FACTOR) {
            None => 3.0,
            Some(text) => text
                .parse::<f64>()
                .ok()
                .filter(|k| (1.1..=1000.0).contains(k))
                .ok_or_else(|| invalid(SLOW_STEP_FACTOR, text, accepts(SLOW_STEP_FACTOR)))?,
        };
        if step_marker.is_none()
            && let Some(text) = set(SLOW_STEP_FACTOR)
        {
            return Err(invalid(
                SLOW_STEP_FACTOR,
                text,
                "a factor that needs ROCPROF_RS_STEP_MARKER to say what a step is",
            ));
        }
        let hang = match set(HANG_SECONDS) {
            None | Some("0") => None,
            Some(text) => Some(
                seconds_or_duration(text)
                    .filter(|d| (Duration::from_secs(1)..=Duration::from_secs(86_400)).contains(d))
                    .ok_or_else(|| invalid(HANG_SECONDS, text, accepts(HANG_SECONDS)))?,
            ),
        };
        Ok(Some(FlightRecorder { keep, memory_bytes, signal, on_exit, step_marker, slow_factor, hang }))
    }
}

/// `30` (seconds) or a duration with a unit (`30s`, `2m`).
fn seconds_or_duration(text: &str) -> Option<Duration> {
    match text.parse::<u64>() {
        Ok(seconds) => Some(Duration::from_secs(seconds.min(1 << 32))),
        Err(_) => duration(text),
    }
}

/// The variable's `&'static` name, as the error type keeps it.
fn name_static(name: &str) -> &'static str {
    super::VARIABLES.iter().find(|v| v.name == name).map_or("ROCPROF_RS_FLIGHT_RECORDER", |v| v.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<Option<FlightRecorder>> {
        FlightRecorder::from_env(&pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect())
    }

    #[test]
    fn the_recorder_takes_seconds_or_durations_and_defaults_the_rest() {
        let f = parse(&[(FLIGHT_RECORDER, "30")]).unwrap().unwrap();
        assert_eq!(f.keep, Duration::from_secs(30));
        assert_eq!((f.memory_bytes, f.signal, f.on_exit, f.hang), (256 << 20, Some(libc::SIGUSR2), false, None));
        let f = parse(&[
            (FLIGHT_RECORDER, "2m"),
            (FLIGHT_RECORDER_MEMORY, "64M"),
            (DUMP_SIGNAL, "off"),
            (DUMP_ON_EXIT, "1"),
            (STEP_MARKER, "^step"),
            (SLOW_STEP_FACTOR, "2.5"),
            (HANG_SECONDS, "10"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!((f.keep, f.memory_bytes, f.signal, f.on_exit), (Duration::from_secs(120), 64 << 20, None, true));
        assert_eq!((f.slow_factor, f.hang), (2.5, Some(Duration::from_secs(10))));
        assert!(parse(&[]).unwrap().is_none());
    }

    #[test]
    fn bad_values_and_orphan_settings_name_their_variable() {
        for (pairs, variable) in [
            (vec![(FLIGHT_RECORDER, "0")], FLIGHT_RECORDER),
            (vec![(FLIGHT_RECORDER, "2h")], FLIGHT_RECORDER),
            (vec![(FLIGHT_RECORDER, "soon")], FLIGHT_RECORDER),
            (vec![(FLIGHT_RECORDER, "30"), (FLIGHT_RECORDER_MEMORY, "1M")], FLIGHT_RECORDER_MEMORY),
            (vec![(FLIGHT_RECORDER, "30"), (DUMP_SIGNAL, "KILL")], DUMP_SIGNAL),
            (vec![(FLIGHT_RECORDER, "30"), (DUMP_ON_EXIT, "maybe")], DUMP_ON_EXIT),
            (vec![(FLIGHT_RECORDER, "30"), (STEP_MARKER, "(")], STEP_MARKER),
            (vec![(FLIGHT_RECORDER, "30"), (STEP_MARKER, "s"), (SLOW_STEP_FACTOR, "1")], SLOW_STEP_FACTOR),
            (vec![(FLIGHT_RECORDER, "30"), (SLOW_STEP_FACTOR, "3")], SLOW_STEP_FACTOR),
            (vec![(FLIGHT_RECORDER, "30"), (HANG_SECONDS, "0.5s")], HANG_SECONDS),
            (vec![(HANG_SECONDS, "10")], HANG_SECONDS),
            (vec![(DUMP_SIGNAL, "usr1")], DUMP_SIGNAL),
        ] {
            let message = parse(&pairs).unwrap_err().to_string();
            assert!(message.contains(variable), "{pairs:?}: {message}");
        }
    }
}
