//! A flight recorder's dump: the kept records written as a dataset of their own, under
//! `OUTPUT_DIR/dump-ID/`, readable by every command like any other.
//!
//! It is written under a hidden folder of this process and its files moved into the dump's
//! folder once all are complete, so a reader never sees half a dump, and a process killed while
//! dumping leaves earlier dumps whole. A request-file dump's ID is the request's (its file's
//! modification time), so every process that shares the output directory dumps into one folder,
//! each under its own stem; other dumps are this process's alone.

use std::path::{Path, PathBuf};

use super::flight::{Flight, Pending, Trigger};
use super::rows::Tables;
use super::summary::Summary;
use crate::error::{Error, Result};

/// Writes `flight`'s records as a dump for `trigger`, the `seq`-th of this process; returns
/// its folder.
pub fn write(tables: &Tables, flight: &Flight, trigger: &Trigger, seq: u32) -> Result<PathBuf> {
    let out = tables.config().output_dir.clone();
    let pid = std::process::id();
    let id = match trigger {
        Trigger::Request { id } | Trigger::Hang { request: Some(id), .. } => format!("request-{id}"),
        _ => format!("{}-{}-p{pid}-{seq}", crate::config::utc_stamp(std::time::SystemTime::now()), trigger.name()),
    };
    let done = out.join(format!("dump-{id}"));
    let partial = out.join(format!(".dump-{id}.{pid}.partial"));
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| Error::Io { path, source }
    };
    let _ = std::fs::remove_dir_all(&partial);
    std::fs::create_dir_all(&partial).map_err(io(&partial))?;
    let mut dump = tables.for_dump(&partial)?;
    for records in flight.records() {
        dump.add(records)?;
    }
    dump.note("trigger", trigger_json(trigger, &dump, flight));
    if !matches!(trigger, Trigger::Hang { .. })
        && let Some((quiet_ns, pending)) = flight.outstanding()
    {
        // Hangs are watched: what this process waits on, had another process hung.
        dump.note("in_flight", hang_json(quiet_ns, &pending, &dump, flight));
    }
    dump.note("flight_recorder", flight.stats_json());
    dump.finish(&[], &Summary::default())?;
    let summary = Summary { rows: dump.rows_written(), files: dump.files_written(), ..Summary::default() };
    dump.write_run_metadata(&summary)?;
    drop(dump);
    move_files(&partial, &done)?;
    let _ = std::fs::remove_dir_all(&partial);
    Ok(done)
}

/// Moves every file under `from` to the same place under `to`.
fn move_files(from: &Path, to: &Path) -> Result<()> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| Error::Io { path, source }
    };
    std::fs::create_dir_all(to).map_err(io(to))?;
    for entry in std::fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        let target = to.join(entry.file_name());
        if entry.file_type().map_err(io(&entry.path()))?.is_dir() {
            move_files(&entry.path(), &target)?;
        } else if target.exists() {
            // Never over another process's file: stems are claimed per process, so this is a
            // second dump of one request, which keeps the first.
            continue;
        } else {
            std::fs::rename(entry.path(), &target).map_err(io(&target))?;
        }
    }
    Ok(())
}

/// The metadata file's `trigger` object: why, when, and what a reader needs to know of it.
fn trigger_json(trigger: &Trigger, tables: &Tables, flight: &Flight) -> String {
    let at = super::clock::now_ns();
    let detail = match trigger {
        Trigger::Request { id } => format!("{{\"request\":{}}}", json(id)),
        Trigger::Api { reason } => format!("{{\"reason\":{}}}", json(reason)),
        Trigger::SlowStep { message, duration_ns, median_ns } => format!(
            "{{\"step\":{},\"duration_ns\":{duration_ns},\"median_ns\":{median_ns},\"factor\":{}}}",
            json(message),
            flight.settings.slow_factor
        ),
        Trigger::Hang { quiet_ns, pending, .. } => hang_json(*quiet_ns, pending, tables, flight),
        Trigger::Signal | Trigger::Exit => "{}".to_owned(),
    };
    format!("{{\"reason\":\"{}\",\"at_ns\":{at},\"detail\":{detail}}}", trigger.name())
}

/// A hang: the launches outstanding (each with its thread's open marker ranges, outermost
/// first), and per GPU and stream the last kernels that finished.
fn hang_json(quiet_ns: u64, pending: &[Pending], tables: &Tables, flight: &Flight) -> String {
    let outstanding: Vec<String> = pending
        .iter()
        .map(|p| {
            let markers: Vec<String> = p
                .open_markers
                .iter()
                .map(|m| format!("{{\"message\":{},\"start_ns\":{}}}", json(&m.message), m.start_ns))
                .collect();
            format!(
                "{{\"correlation_id\":{},\"thread_id\":{},\"launched_ns\":{},\"call\":{},\"kernel\":{},\"open_markers\":[{}]}}",
                p.correlation_id,
                p.thread_id,
                p.launched_ns,
                json(&tables.operation_name(p.api_kind, p.operation)),
                p.kernel.as_deref().map_or_else(|| "null".to_owned(), |k| json(&display_name(tables, k))),
                markers.join(",")
            )
        })
        .collect();
    let mut last: std::collections::BTreeMap<(u64, u64), Vec<(u64, u64)>> = Default::default();
    for records in flight.records() {
        for record in records {
            if let super::records::Record::Kernel(k) = record {
                let finished = last.entry((k.agent_id, k.queue_id)).or_default();
                finished.push((k.end_ns, k.kernel_id));
                if finished.len() > 6 {
                    finished.sort_unstable();
                    finished.drain(..finished.len() - 3);
                }
            }
        }
    }
    let streams: Vec<String> = last
        .into_iter()
        .map(|((agent, stream), mut finished)| {
            finished.sort_unstable();
            let names: Vec<String> = finished
                .iter()
                .rev()
                .take(3)
                .map(|(end, id)| {
                    let name = tables.kernel_name(*id).unwrap_or_else(|| format!("kernel {id:#x}"));
                    format!("{{\"kernel\":{},\"end_ns\":{end}}}", json(&name))
                })
                .collect();
            format!("{{\"agent_id\":{agent},\"stream\":{stream},\"last_finished\":[{}]}}", names.join(","))
        })
        .collect();
    format!(
        "{{\"quiet_ns\":{quiet_ns},\"outstanding\":[{}],\"streams\":[{}]}}",
        outstanding.join(","),
        streams.join(",")
    )
}

/// A launched kernel's name as the tables write names (the launch callback has it mangled).
fn display_name(tables: &Tables, mangled: &str) -> String {
    let config = tables.config();
    rocprof_rs_format::kernel_names::display_name(mangled, config.demangle, config.truncate_kernels)
}

fn json(text: &str) -> String {
    super::rows::json_string(Some(text))
}
