//! Legacy rocprof (v1) `results.json`: a Chrome trace whose process-name metadata says what each
//! pid holds (`GPU0`…: kernels, `CPU HIP API`: HIP calls, `COPY`: copies, `Markers and
//! Ranges`: ROCTx), with the exact nanosecond bounds in each event's `args.BeginNs`/`EndNs`.
//!
//! This is the rocprof-wrapping profiler's path: raw events, then the timestamps (rocprof's own nanoseconds, not the
//! microsecond `ts`), then kernels, then Parquet.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::sink::{DispatchRow, Sink};
use crate::error::{Error, Result};
use rocprof_rs_format::launch::KernelLaunch;

/// What a Chrome-trace process of a rocprof v1 trace holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Track {
    Gpu(u64),
    HipApi,
    Copy,
    Markers,
    Other,
}

fn track(name: &str) -> Track {
    if let Some(n) = name.strip_prefix("GPU").and_then(|n| n.trim().parse().ok()) {
        return Track::Gpu(n);
    }
    match name {
        "CPU HIP API" | "HIP API" => Track::HipApi,
        "COPY" => Track::Copy,
        "Markers and Ranges" => Track::Markers,
        _ => Track::Other,
    }
}

/// Whether `text` looks like a rocprof v1 trace (and not rocprofv3's JSON).
pub fn looks_like(text: &str) -> bool {
    text.trim_start().starts_with('{') && text.contains("\"traceEvents\"") && text.contains("\"BeginNs\"")
}

fn field<'a>(event: &'a Value, key: &str) -> Option<&'a Value> {
    event.get("args").and_then(|a| a.get(key)).or_else(|| event.get(key))
}

/// A number that rocprof v1 writes as a string or a number.
fn number(value: Option<&Value>) -> Option<u64> {
    match value? {
        Value::String(s) => s.trim().parse().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

/// Reads `path` into `sink`; returns the events read.
pub fn read(path: &Path, sink: &mut Sink) -> Result<u64> {
    let shown = path.display().to_string();
    let text = rocprof_rs_format::input::read_text(path, rocprof_rs_format::input::JSON_LIMIT)
        .map_err(|source| Error::Io { path: shown.clone(), source })?;
    let json: Value = serde_json::from_str(&text).map_err(|e| Error::Parse {
        path: shown.clone(),
        line: e.line() as u64,
        column: format!("character {}", e.column()),
        message: e.to_string(),
    })?;
    let events = json.get("traceEvents").and_then(Value::as_array).ok_or_else(|| Error::Json {
        path: shown.clone(),
        at: "traceEvents".into(),
        message: "no traceEvents array: not a rocprof v1 trace".into(),
    })?;
    // Each event's track is its Chrome-trace pid's process name: a pid that is not a number
    // (or a pid named twice, differently) would put events of every kind on one track.
    let track_pid = |index: usize, event: &Value| {
        number(event.get("pid")).ok_or_else(|| Error::Json {
            path: shown.clone(),
            at: format!("traceEvents[{index}].pid"),
            message: format!(
                "expected a track id (a whole number), found {}",
                event.get("pid").map_or_else(|| "none".to_owned(), Value::to_string)
            ),
        })
    };
    let mut tracks: HashMap<u64, (Track, &str)> = HashMap::new();
    for (index, event) in events.iter().enumerate() {
        if event.get("ph").and_then(Value::as_str) == Some("M")
            && event.get("name").and_then(Value::as_str) == Some("process_name")
            && let Some(name) = event.get("args").and_then(|a| a.get("name")).and_then(Value::as_str)
        {
            let pid = track_pid(index, event)?;
            match tracks.insert(pid, (track(name), name)) {
                Some((_, before)) if before != name => {
                    return Err(Error::Json {
                        path: shown.clone(),
                        at: format!("traceEvents[{index}].args.name"),
                        message: format!("track {pid} is named both {before:?} and {name:?}"),
                    });
                }
                _ => {}
            }
        }
    }
    let mut read = 0;
    for (index, event) in events.iter().enumerate() {
        if event.get("ph").and_then(Value::as_str) != Some("X") {
            continue;
        }
        let error = |key: &str, message: &str| Error::Json {
            path: shown.clone(),
            at: format!("traceEvents[{index}].{key}"),
            message: message.to_owned(),
        };
        let Some(&(kind, _)) = tracks.get(&track_pid(index, event)?) else { continue };
        let begin = number(field(event, "BeginNs")).ok_or_else(|| error("args.BeginNs", "missing or not a number"))?;
        let end = number(field(event, "EndNs")).ok_or_else(|| error("args.EndNs", "missing or not a number"))?;
        if end < begin {
            return Err(error("args.EndNs", &format!("{end} is before BeginNs {begin}")));
        }
        if end > i64::MAX as u64 {
            return Err(error("args.EndNs", &format!("{end} is beyond 2^63 ns")));
        }
        let name = field(event, "Name").or_else(|| event.get("name")).and_then(Value::as_str).unwrap_or("");
        let tid = number(field(event, "tid")).unwrap_or(0);
        let process = number(field(event, "proc-id")).unwrap_or(0) as u32;
        let (start, stop) = (begin as i64, end as i64);
        read += 1;
        match kind {
            Track::Gpu(gpu) => {
                let name = sink.name(name);
                sink.push_dispatch(DispatchRow {
                    launch: KernelLaunch {
                        start_ns: start,
                        end_ns: stop,
                        dispatch_id: read,
                        agent_id: gpu,
                        queue_id: number(field(event, "queue-id")).unwrap_or(0),
                        ..KernelLaunch::default()
                    },
                    name,
                    pid: process,
                    ..DispatchRow::default()
                });
            }
            Track::HipApi => {
                let name = sink.name(name);
                let a = &mut sink.hip_api.rows;
                a.push(rocprof_rs_format::ApiCallRow {
                    operation: &name,
                    start_ns: start,
                    end_ns: stop,
                    duration_ns: stop - start,
                    correlation_id: 0,
                    ancestor_id: 0,
                    thread_id: tid,
                    pid: process,
                });
            }
            Track::Copy => {
                sink.copy.rows.push(rocprof_rs_format::MemoryCopyRow {
                    operation: name,
                    start_ns: start,
                    end_ns: stop,
                    duration_ns: stop - start,
                    bytes: 0,
                    src_agent_id: 0,
                    dst_agent_id: 0,
                    src_address: 0,
                    dst_address: 0,
                    correlation_id: 0,
                    thread_id: tid,
                    pid: process,
                    vendor: &rocprof_rs_format::vendor::AMD,
                    stream_id: None,
                });
            }
            Track::Markers => {
                let m = &mut sink.marker.rows;
                m.push(rocprof_rs_format::MarkerRow {
                    message: name,
                    operation: "MARKER",
                    start_ns: start,
                    end_ns: stop,
                    duration_ns: stop - start,
                    depth: None,
                    correlation_id: 0,
                    thread_id: tid,
                    pid: process,
                    vendor: &rocprof_rs_format::vendor::AMD,
                    domain: None,
                });
            }
            Track::Other => read -= 1,
        }
        sink.write_full()?;
    }
    if read == 0 {
        // An empty dataset would read as a run without kernels, which it was not said to be.
        return Err(Error::Json {
            path: shown,
            at: "traceEvents".into(),
            message: "no event on a track rocprof-rs imports (GPU<n> kernels, CPU HIP API, COPY, \
                      Markers and Ranges): nothing to import"
                .into(),
        });
    }
    Ok(read)
}
