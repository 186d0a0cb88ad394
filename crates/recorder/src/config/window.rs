//! Always-on settings: tracing windows (`ROCPROF_RS_WINDOW`) and the level CUDA graphs are
//! traced at (`ROCPROF_RS_GRAPH_TRACE`).

use std::collections::BTreeMap;
use std::time::Duration;

use super::{GRAPH_TRACE, WINDOW, accepts, invalid};
use crate::error::Result;

/// Collection on for `on` out of every `every`, the first window opening when the run starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// How long each window stays open.
    pub on: Duration,
    /// From one window's opening to the next one's.
    pub every: Duration,
}

impl Window {
    /// The shortest window: switching CUPTI's activity kinds or the SDK's context takes tens
    /// of microseconds, and a window must be long against that to mean anything.
    pub const MIN_ON: Duration = Duration::from_millis(1);
    /// The longest period: a day.
    pub const MAX_EVERY: Duration = Duration::from_secs(86_400);

    /// `ROCPROF_RS_WINDOW`, if set.
    pub fn from_env(env: &BTreeMap<String, String>) -> Result<Option<Window>> {
        let Some(text) = env.get(WINDOW).map(|v| v.trim()).filter(|v| !v.is_empty()) else { return Ok(None) };
        Window::parse(text).map(Some).ok_or_else(|| invalid(WINDOW, text, accepts(WINDOW)))
    }

    /// `ON/EVERY`, each a number with a unit (`us`, `ms`, `s`, `m`, `h`): `200ms/20s`.
    pub fn parse(text: &str) -> Option<Window> {
        let (on, every) = text.split_once('/')?;
        let window = Window { on: duration(on)?, every: duration(every)? };
        (window.on >= Self::MIN_ON && window.on < window.every && window.every <= Self::MAX_EVERY).then_some(window)
    }

    /// The share of the run's time the windows cover, in the limit of a long run.
    pub fn duty(&self) -> f64 {
        self.on.as_secs_f64() / self.every.as_secs_f64()
    }

    /// As the variable takes it, for the metadata and messages.
    pub fn text(&self) -> String {
        format!("{}/{}", short(self.on), short(self.every))
    }
}

/// A duration as `NUMBER UNIT`; the number may have a fraction (`0.5s`).
pub(crate) fn duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(split);
    let seconds_per_unit = match unit.trim() {
        "us" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return None,
    };
    if number.is_empty() || number.starts_with('.') || number.ends_with('.') {
        return None;
    }
    let seconds = number.parse::<f64>().ok()? * seconds_per_unit;
    // Finite and under a day by far: no overflow in `from_secs_f64`.
    (seconds.is_finite() && seconds <= 1e6).then(|| Duration::from_nanos((seconds * 1e9).round() as u64))
}

fn short(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns.is_multiple_of(1_000_000_000) {
        format!("{}s", ns / 1_000_000_000)
    } else if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else {
        format!("{}us", ns / 1_000)
    }
}

/// The level CUDA graph launches are traced at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GraphTrace {
    /// A row per kernel node of every replay, in `kernel_dispatch` (CUPTI's kernel records).
    #[default]
    Node,
    /// A row per graph launch, in `graph_launch` (CUPTI's graph-level records); kernel rows
    /// only inside windows, where windows are asked for too.
    Graph,
}

impl GraphTrace {
    /// `ROCPROF_RS_GRAPH_TRACE`.
    pub fn from_env(env: &BTreeMap<String, String>) -> Result<GraphTrace> {
        match env.get(GRAPH_TRACE).map(|v| v.trim()) {
            None | Some("" | "node") => Ok(GraphTrace::Node),
            Some("graph") => Ok(GraphTrace::Graph),
            Some(other) => Err(invalid(GRAPH_TRACE, other, accepts(GRAPH_TRACE))),
        }
    }

    /// Its name, as the variable takes it.
    pub fn name(self) -> &'static str {
        match self {
            GraphTrace::Node => "node",
            GraphTrace::Graph => "graph",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_parse_with_units_and_refuse_what_cannot_be_a_window() {
        let w = Window::parse("200ms/20s").unwrap();
        assert_eq!((w.on, w.every), (Duration::from_millis(200), Duration::from_secs(20)));
        assert_eq!(w.text(), "200ms/20s");
        assert!((w.duty() - 0.01).abs() < 1e-12);
        assert_eq!(Window::parse("0.5s/1m").unwrap().on, Duration::from_millis(500));
        assert_eq!(Window::parse(" 1500us / 2h ").unwrap().every, Duration::from_secs(7200));
        for bad in [
            "",
            "200ms",
            "200/20s",
            "200ms/",
            "/20s",
            "20s/200ms",
            "1s/1s",
            "500us/1s",
            "1ms/25h",
            "-1ms/1s",
            "1e3ms/2s",
            "nanms/1s",
            "infs/1s",
            ".5s/1s",
            "5.s/10s",
            "1ms/1s/2s",
            "1 ms/1 s x",
            "1ms/99999999999999h",
        ] {
            assert_eq!(Window::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn graph_trace_takes_node_or_graph() {
        let env = |v: &str| BTreeMap::from([(GRAPH_TRACE.to_owned(), v.to_owned())]);
        assert_eq!(GraphTrace::from_env(&BTreeMap::new()).unwrap(), GraphTrace::Node);
        assert_eq!(GraphTrace::from_env(&env("graph")).unwrap(), GraphTrace::Graph);
        let message = GraphTrace::from_env(&env("nodes")).unwrap_err().to_string();
        assert!(message.contains(GRAPH_TRACE) && message.contains("nodes"), "{message}");
    }
}
