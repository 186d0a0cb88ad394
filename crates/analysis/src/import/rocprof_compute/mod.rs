//! rocprof-compute (formerly Omniperf) workloads: the folder `rocprof-compute profile` writes,
//! or any CSV file of it.
//!
//! - `pmc_perf.csv`: every dispatch with its counters, in one of two layouts. Wide (every
//!   version up to 3.1, and 3.x's default): one row per dispatch, a column per counter, per
//!   instance `NAME[i]` columns beside `NAME_sum` ones, and the merge of its passes' files
//!   leaving `Wave_Size_1`, `Correlation_ID_1`... behind. Long (3.2's rocpd-backed
//!   output): one row per dispatch and counter, `Counter_Name` and `Counter_Value`, each row
//!   with the timestamps of the pass that counted it.
//! - `timestamps.csv`: the dispatches of a run without counters, for their times.
//! - `pmc_dispatch_info.csv`: dispatch ids and kernel names only.
//! - `SQ_LEVEL_WAVES.csv` and the other single-pass files: counters the merge left out.
//! - `sysinfo.csv`: the machine, which becomes the agent ([`sysinfo`]).
//! - `roofline.csv`: the roofs measured on it ([`roofline`]), which `analyze` uses in place of
//!   the datasheet's.
//!
//! Each pass is a run of its own, so files are joined by the order of their dispatches, as
//! rocprof-compute joins them, after checking that the kernel names agree; dispatch ids are
//! `pmc_perf.csv`'s. A dispatch takes its own row's timestamps where they are exact, else
//! `timestamps.csv`'s. Timestamps written in exponent form (`8.1097E+14`: a spreadsheet saved the
//! file) have lost everything below 10 µs: they are dropped, the dispatch gets no time (start
//! and end 0), and the import says so.

pub mod roofline;
pub mod sysinfo;
mod wide;

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Read;
use super::csv_table::Table;
use super::sink::{CounterRow, DispatchRow, Sink};
use crate::error::{Error, Result};
use rocprof_rs_format::launch::KernelLaunch;
use sysinfo::SysInfo;

/// The layouts of a rocprof-compute CSV file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One row per dispatch (pmc_perf.csv before 3.2, timestamps.csv, the pass files).
    Wide,
    /// One row per dispatch and counter (3.2's rocpd-backed pmc_perf.csv).
    Long,
    /// sysinfo.csv.
    SysInfo,
}

/// The layout of a file whose first line is `first_line`, if it is rocprof-compute's.
pub fn layout(first_line: &str) -> Option<Layout> {
    let line = first_line.trim_start_matches('\u{feff}').replace('"', "");
    let columns: HashSet<&str> = line.split(',').map(str::trim).collect();
    if sysinfo::looks_like(&line) {
        return Some(Layout::SysInfo);
    }
    if !columns.contains("Dispatch_ID") || !columns.contains("Kernel_Name") && !columns.contains("Counter_Name") {
        return None;
    }
    if columns.contains("Counter_Name") && columns.contains("Counter_Value") {
        Some(Layout::Long)
    } else {
        Some(Layout::Wide)
    }
}

/// Whether `dir` is a rocprof-compute workload folder.
pub fn is_workload(dir: &Path) -> bool {
    dir.join("pmc_perf.csv").is_file() || dir.join("sysinfo.csv").is_file() && dir.join("timestamps.csv").is_file()
}

/// What one workload (or file) gave.
#[derive(Debug, Default)]
struct Workload {
    /// Dispatches in the primary file's order: id, kernel name, GPU.
    dispatches: Vec<(u64, Arc<str>, u64)>,
    /// Counters the primary file has (the pass files add only others).
    counters: BTreeSet<String>,
    gpus: BTreeSet<u64>,
    pid: u32,
    read: Read,
}

/// Reads the workload folder `dir` into `sink`.
pub fn read_workload(dir: &Path, sink: &mut Sink) -> Result<Read> {
    let file = |name: &str| Some(dir.join(name)).filter(|p| p.is_file());
    let sysinfo = file("sysinfo.csv").map(|p| sysinfo::read(&p)).transpose()?;
    let timestamps = file("timestamps.csv");
    let primary = file("pmc_perf.csv").or_else(|| timestamps.clone()).or_else(|| file("pmc_dispatch_info.csv"));
    let Some(primary) = primary else {
        return Err(Error::Io {
            path: dir.display().to_string(),
            source: std::io::Error::other(
                "a rocprof-compute workload without pmc_perf.csv, timestamps.csv or pmc_dispatch_info.csv",
            ),
        });
    };
    let times = match &timestamps {
        Some(t) if *t != primary => Some(wide::times(t, sink)?),
        _ => None,
    };
    let mut w = read_primary(&primary, times.as_ref(), sink)?;
    for pass in pass_files(dir, &primary)? {
        let rows = wide::read_pass(&pass, &mut w, sink)?;
        w.read.rows.push((pass.display().to_string(), rows));
    }
    if let Some(path) = file("roofline.csv") {
        let roofs = roofline::read(&path)?;
        w.read.rows.push((path.display().to_string(), roofs.len() as u64));
        sink.set_measured_roofs(roofline::SOURCE, roofs);
    }
    finish(w, sysinfo.as_ref(), dir.join("sysinfo.csv"), sink)
}

/// Reads one CSV file of a workload into `sink`, with the `sysinfo.csv` beside it if there is
/// one.
pub fn read_file(path: &Path, layout: Layout, sink: &mut Sink) -> Result<Read> {
    let beside = path.parent().map(|d| d.join("sysinfo.csv")).filter(|p| p.is_file() && p != path);
    let sysinfo = match layout {
        Layout::SysInfo => Some(sysinfo::read(path)?),
        _ => beside.as_deref().map(sysinfo::read).transpose()?,
    };
    let mut w = match layout {
        Layout::SysInfo => {
            let mut w = Workload::default();
            w.gpus.insert(0);
            w.read.notes.push("sysinfo.csv alone: the agent (GPU 0), no dispatches".into());
            w
        }
        _ => read_primary(path, None, sink)?,
    };
    if let (Some(s), Some(p), false) = (&sysinfo, &beside, layout == Layout::SysInfo) {
        w.read.notes.push(format!("the agent from {} ({}, {})", p.display(), s.model, s.arch));
    }
    finish(w, sysinfo.as_ref(), beside.unwrap_or_else(|| path.to_owned()), sink)
}

fn read_primary(path: &Path, times: Option<&wide::Times>, sink: &mut Sink) -> Result<Workload> {
    let mut w = Workload::default();
    let first = Table::open(path, None)?.header().collect::<Vec<_>>().join(",");
    let rows = match layout(&first) {
        Some(Layout::Long) => read_long(path, &mut w, sink)?,
        Some(Layout::Wide) => wide::read_primary(path, times, &mut w, sink)?,
        _ => {
            return Err(Error::Io {
                path: path.display().to_string(),
                source: std::io::Error::other("not a rocprof-compute dispatch file (no Dispatch_ID and Kernel_Name)"),
            });
        }
    };
    w.read.rows.insert(0, (path.display().to_string(), rows));
    Ok(w)
}

/// The agents, and the notes.
fn finish(w: Workload, sysinfo: Option<&SysInfo>, sysinfo_path: PathBuf, sink: &mut Sink) -> Result<Read> {
    let mut read = w.read;
    for &gpu in &w.gpus {
        match sysinfo {
            Some(s) => sink.push_agent(&s.agent(gpu, w.pid)),
            None => sink.agent_seen(w.pid, gpu),
        }
    }
    if sysinfo.is_some() {
        read.rows.push((sysinfo_path.display().to_string(), 1));
    } else {
        read.notes.push("no sysinfo.csv: the GPU is unknown (name it with analyze --gpu)".into());
    }
    Ok(read)
}

/// The single-pass CSVs of `dir` that hold counters: every `*.csv` but the ones read already,
/// `pmc_perf_N.csv` (the passes `pmc_perf.csv` merged) and `roofline.csv` (the roofline
/// benchmark's results, not dispatches).
fn pass_files(dir: &Path, primary: &Path) -> Result<Vec<PathBuf>> {
    const READ: [&str; 5] = ["pmc_perf.csv", "timestamps.csv", "pmc_dispatch_info.csv", "sysinfo.csv", "roofline.csv"];
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io { path: dir.display().to_string(), source })?;
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != primary && p.is_file())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let merged = name.strip_prefix("pmc_perf_").and_then(|n| n.strip_suffix(".csv"));
            name.ends_with(".csv") && !READ.contains(&name) && merged.is_none_or(|n| n.parse::<u32>().is_err())
        })
        .collect();
    found.sort();
    Ok(found)
}

/// The long layout: a dispatch row at each dispatch's first counter row.
fn read_long(path: &Path, w: &mut Workload, sink: &mut Sink) -> Result<u64> {
    let mut t = Table::open(path, None)?;
    let mut seen: HashSet<u64> = HashSet::new();
    let mut rows = 0;
    while t.next()? {
        rows += 1;
        let id = t.u64("Dispatch_ID")?;
        let gpu = wide::whole(&t, "GPU_ID")?.unwrap_or(0);
        let name = sink.name(wide::kernel_name(&t)?);
        if seen.insert(id) {
            if w.dispatches.is_empty() {
                w.pid = wide::row_pid(&t)?.unwrap_or(0);
            }
            let dispatch = wide::dispatch(&t, id, gpu, name.clone(), w.pid)?;
            let (start, end) = match wide::own_span(&t)? {
                wide::Span::Exact(s, e) => (s, e),
                wide::Span::Rounded(text) => {
                    wide::note_rounded(&mut w.read, path, &text);
                    (0, 0)
                }
                wide::Span::Absent => (0, 0),
            };
            sink.push_dispatch(DispatchRow {
                launch: KernelLaunch { start_ns: start, end_ns: end, ..dispatch.launch },
                ..dispatch
            });
            w.dispatches.push((id, name.clone(), gpu));
            w.gpus.insert(gpu);
        }
        let column = t.text("Counter_Name")?.trim();
        let (counter, instance) = wide::instance(column);
        w.counters.insert(counter.to_owned());
        let text = t.text("Counter_Value")?.trim();
        if text.is_empty() || text == "None" || text == "nan" {
            continue;
        }
        let counter = sink.name(counter);
        sink.push_counter(CounterRow {
            dispatch_id: id,
            correlation_id: wide::whole(&t, "Correlation_ID")?.unwrap_or(0),
            agent_id: gpu,
            kernel_id: wide::whole(&t, "Kernel_ID")?.unwrap_or(0),
            kernel: name,
            counter,
            value: t.f64("Counter_Value")?,
            instances: 1,
            instance,
            pid: w.pid,
            ..CounterRow::default()
        });
        sink.write_full()?;
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_told_by_their_headers() {
        let wide = "Dispatch_ID,GPU_ID,Grid_Size,Workgroup_Size,Kernel_Name,Correlation_ID,SQ_WAVES,TCC_HIT[0]";
        assert_eq!(layout(wide), Some(Layout::Wide));
        let old = "Dispatch_ID,Kernel_Name,GPU_ID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup";
        assert_eq!(layout(old), Some(Layout::Wide));
        let long = "GPU_ID,Dispatch_ID,Grid_Size,Workgroup_Size,Kernel_Name,Start_Timestamp,Counter_Name,Counter_Value";
        assert_eq!(layout(long), Some(Layout::Long));
        assert_eq!(layout("workload_name,command,gpu_model,gpu_arch"), Some(Layout::SysInfo));
        assert_eq!(layout("\"Dispatch_ID\",\"Kernel_Name\",\"GPU_ID\""), Some(Layout::Wide));
        // rocprofv3's and rocprof v1's own files are theirs.
        assert_eq!(layout("Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Kernel_Name,Counter_Name"), None);
        assert_eq!(layout("Index,KernelName,gpu-id"), None);
    }
}
