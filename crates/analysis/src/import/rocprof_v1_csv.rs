//! rocprof v1's `results.csv` (and the per-input CSVs `-i` runs name after their input file):
//! one row per kernel dispatch, the kernel's properties, then its hardware counters, then its
//! timestamps. The rocprof-wrapping profiler's parser, done here as raw CSV, timestamp alignment, kernel extraction
//! and Parquet.
//!
//! Both of rocprof's writers are read: the plain one (`rocprof -i`, header unquoted, counters
//! as integers or `%.10f`, `None` where a pass lacked a value) and the one `--stats` and the
//! trace options go through (every header name quoted, `sig`/`obj` quoted from ROCm 5.3,
//! `DurationNs` last). Columns before ROCm 5.3 (`vgpr`, `fbar`) and after (`arch_vgpr`,
//! `accum_vgpr`, `wave_size`) are both understood; every column that is not a property is a
//! counter, and `NAME[i]` is instance `i` of counter `NAME`.

use std::path::Path;
use std::sync::Arc;

use super::csv_table::Table;
use super::sink::{CounterRow, DispatchRow, Sink};
use crate::error::{Error, Result};
use rocprof_rs_format::launch::KernelLaunch;

/// The columns rocprof v1 writes that describe a dispatch rather than count something.
const PROPERTIES: [&str; 23] = [
    "Index",
    "KernelName",
    "gpu-id",
    "queue-id",
    "queue-index",
    "pid",
    "tid",
    "grd",
    "wgr",
    "lds",
    "scr",
    "arch_vgpr",
    "vgpr",
    "accum_vgpr",
    "sgpr",
    "fbar",
    "wave_size",
    "sig",
    "obj",
    "DispatchNs",
    "BeginNs",
    "EndNs",
    "CompleteNs",
];

/// Whether a file's first line is rocprof v1's dispatch header, quoted or not.
pub fn looks_like(head: &str) -> bool {
    let first = head.lines().next().unwrap_or("").replace('"', "");
    first.starts_with("Index,KernelName,")
}

/// The most columns a rocprof v1 CSV may have: its 23 properties and a few hundred counter
/// instances at most (every instance of a counter is a column), with room to spare. Each column
/// costs its name and a counter per row, so a header of millions is refused rather than read.
pub const MAX_COLUMNS: usize = 8192;

/// The longest header line read: [`MAX_COLUMNS`] names of 64 bytes.
const MAX_HEADER_BYTES: usize = MAX_COLUMNS * 64;

/// Reads `path` into `sink`; returns the dispatches read.
pub fn read(path: &Path, sink: &mut Sink) -> Result<u64> {
    check_header(path)?;
    let mut t = Table::open(path, None)?;
    let counters: Vec<(String, Arc<str>, Option<i32>)> = t
        .header()
        .filter(|c| !PROPERTIES.contains(c) && *c != "DurationNs")
        .map(|c| {
            let (name, instance) = instance(c);
            (c.to_owned(), sink.name(name), instance)
        })
        .collect();
    let mut rows = 0;
    while t.next()? {
        rows += 1;
        let (start, end) = span(&t)?;
        let name = sink.name(t.text("KernelName")?);
        let pid = t.u64_or("pid", 0)? as u32;
        let (index, agent) = (t.u64("Index")?, t.u64_or("gpu-id", 0)?);
        let vgpr = if t.has("arch_vgpr") { t.i32("arch_vgpr")? } else { t.i32_or("vgpr")? };
        let (grid, block, shared_mem) = ([t.i64("grd")?, 1, 1], [t.i32("wgr")?, 1, 1], t.i32_or("lds")?);
        let (queue_id, thread_id) = (t.u64_or("queue-id", 0)?, t.u64_or("tid", 0)?);
        let (accum_vgpr, sgpr, scratch_size) = (t.i32_or("accum_vgpr")?, t.i32_or("sgpr")?, t.i32_or("scr")?);
        sink.push_dispatch(DispatchRow {
            launch: KernelLaunch {
                start_ns: start,
                end_ns: end,
                grid,
                block,
                shared_mem,
                dispatch_id: index,
                agent_id: agent,
                queue_id,
                thread_id,
                scratch_size,
                ..KernelLaunch::default()
            },
            name: name.clone(),
            pid,
            vgpr,
            accum_vgpr,
            sgpr,
            ..DispatchRow::default()
        });
        for (column, counter, instance) in &counters {
            let text = t.text(column)?.trim();
            if text == "None" || text.is_empty() {
                continue; // this dispatch's pass did not collect it (rocprof 6.1+ writes None)
            }
            sink.push_counter(CounterRow {
                dispatch_id: index,
                agent_id: agent,
                kernel: name.clone(),
                counter: counter.clone(),
                value: t.f64(column)?,
                instances: 1,
                instance: *instance,
                pid,
                ..CounterRow::default()
            });
        }
        sink.write_full()?;
    }
    Ok(rows)
}

/// Refuses a header of more than [`MAX_COLUMNS`] columns (or longer than [`MAX_HEADER_BYTES`])
/// before the CSV reader takes it whole.
fn check_header(path: &Path) -> Result<()> {
    use std::io::Read;
    let shown = || path.display().to_string();
    let file = rocprof_rs_format::input::open_regular(path).map_err(|source| Error::Io { path: shown(), source })?;
    let mut head = Vec::with_capacity(64 << 10);
    file.take(MAX_HEADER_BYTES as u64 + 1)
        .read_to_end(&mut head)
        .map_err(|source| Error::Io { path: shown(), source })?;
    let refuse = |message: String| Error::Parse { path: shown(), line: 1, column: "header".into(), message };
    let line = match head.iter().position(|&b| b == b'\n') {
        Some(end) => &head[..end],
        None if head.len() > MAX_HEADER_BYTES => {
            return Err(refuse(format!(
                "the header line is longer than {MAX_HEADER_BYTES} bytes: not a rocprof v1 CSV (at most {MAX_COLUMNS} columns)"
            )));
        }
        None => &head[..],
    };
    let columns = line.iter().filter(|&&b| b == b',').count() + 1;
    if columns > MAX_COLUMNS {
        return Err(refuse(format!(
            "{columns} columns: a rocprof v1 CSV has its properties and a few hundred counters (at most {MAX_COLUMNS} columns are read)"
        )));
    }
    Ok(())
}

/// The kernel's execution, BeginNs to EndNs, where the run had timestamps (`--timestamp on`,
/// `--stats`); none (0, 0) otherwise. Both are the HSA system clock's nanoseconds, which the
/// profiler took from the same dispatch, so they need no shifting against each other.
fn span(t: &Table) -> Result<(i64, i64)> {
    if !t.has("BeginNs") {
        return Ok((0, 0));
    }
    let (begin, end) = (t.i64("BeginNs")?, t.i64("EndNs")?);
    if end < begin {
        return Err(t.error("EndNs", format!("{end} is before BeginNs {begin}")));
    }
    Ok((begin, end))
}

/// `TCC_HIT[3]` as (`TCC_HIT`, instance 3); other names as they are.
pub(super) fn instance(column: &str) -> (&str, Option<i32>) {
    if let Some(open) = column.strip_suffix(']').and_then(|c| c.rfind('[').map(|i| (c, i))) {
        let (name, i) = open;
        if let Ok(index) = name[i + 1..].parse() {
            return (&name[..i], Some(index));
        }
    }
    (column, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_headers_are_recognised() {
        assert!(looks_like("Index,KernelName,gpu-id,queue-id\n0,\"k\",0,0\n"));
        assert!(looks_like("\"Index\",\"KernelName\",\"gpu-id\"\n"));
        assert!(!looks_like("\"Kind\",\"Agent_Id\"\n"));
    }

    #[test]
    fn instance_columns_name_their_counter() {
        assert_eq!(instance("TCC_HIT[3]"), ("TCC_HIT", Some(3)));
        assert_eq!(instance("SQ_WAVES"), ("SQ_WAVES", None));
        assert_eq!(instance("odd[x]"), ("odd[x]", None));
    }
}
