//! The wide layout, one row per dispatch, and what every layout's rows share: the dispatch's
//! columns, its timestamps, counter columns and their instances.

use std::path::Path;
use std::sync::Arc;

use super::super::csv_table::Table;
use super::super::sink::{CounterRow, DispatchRow, Sink};
use super::{Read, Workload};
use crate::error::Result;
use rocprof_rs_format::launch::KernelLaunch;

/// Columns that describe a dispatch rather than count something, in every version's spelling.
/// The merge of a workload's passes repeats some with a `_N` suffix (`Wave_Size_1`).
const PROPERTIES: [&str; 30] = [
    "Dispatch_ID",
    "Kernel_Name",
    "GPU_ID",
    "Queue_ID",
    "PID",
    "TID",
    "Grid_Size",
    "Workgroup_Size",
    "LDS_Per_Workgroup",
    "Scratch_Per_Workitem",
    "Arch_VGPR",
    "Accum_VGPR",
    "SGPR",
    "Wave_Size",
    "wave_size",
    "Kernel_ID",
    "Correlation_ID",
    "Start_Timestamp",
    "End_Timestamp",
    "XCC_Index",
    "Node",
    "obj",
    "sig",
    "queue-id",
    "queue-index",
    "pid",
    "tid",
    "DispatchNs",
    "CompleteNs",
    "Queue_Index",
];

/// Whether `column` describes the dispatch (or is a merge's repeat of one that does).
fn is_property(column: &str) -> bool {
    let base = match column.rsplit_once('_') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => column,
    };
    PROPERTIES.contains(&column) || PROPERTIES.contains(&base)
}

/// A dispatch's timestamps as a file gives them.
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    /// Start and end, ns.
    Exact(i64, i64),
    /// Written in exponent form, their low digits lost; the text as written.
    Rounded(String),
    /// The file has none.
    Absent,
}

/// `timestamps.csv`: each dispatch's kernel name and times, in order, and the process.
#[derive(Debug, Default)]
pub struct Times {
    path: String,
    /// Per dispatch: its kernel name (normalised, one shared copy per name) and times.
    rows: Vec<(Arc<str>, Span)>,
    pid: Option<u32>,
}

/// Reads `timestamps.csv` (or any wide file) for its times.
pub fn times(path: &Path, sink: &mut Sink) -> Result<Times> {
    let mut t = Table::open(path, None)?;
    let mut out = Times { path: path.display().to_string(), ..Times::default() };
    while t.next()? {
        if out.pid.is_none() {
            out.pid = row_pid(&t)?;
        }
        out.rows.push((sink.name(normalise(kernel_name(&t)?)), own_span(&t)?));
    }
    Ok(out)
}

/// The start and end of the row in hand.
pub fn own_span(t: &Table) -> Result<Span> {
    if !t.has("Start_Timestamp") || !t.has("End_Timestamp") {
        return Ok(Span::Absent);
    }
    let (start, end) = (t.text("Start_Timestamp")?.trim(), t.text("End_Timestamp")?.trim());
    if start.contains(['e', 'E']) || end.contains(['e', 'E']) {
        return Ok(Span::Rounded(start.to_owned()));
    }
    let ns = |column: &str, text: &str| -> Result<i64> {
        // Integers, or a float with a fraction of a nanosecond (3.x averages passes).
        text.parse::<i64>()
            .ok()
            .or_else(|| {
                text.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0 && *v < 9.2e18).map(|v| v.round() as i64)
            })
            .filter(|v| *v >= 0)
            .ok_or_else(|| t.error(column, format!("expected a timestamp in ns, found {text:?}")))
    };
    let (start, end) = (ns("Start_Timestamp", start)?, ns("End_Timestamp", end)?);
    if end < start {
        return Err(t.error("End_Timestamp", format!("{end} is before Start_Timestamp {start}")));
    }
    Ok(Span::Exact(start, end))
}

/// Notes once per file that its timestamps were rounded away.
pub fn note_rounded(read: &mut Read, path: &Path, example: &str) {
    let note = format!(
        "{}: timestamps written in exponent form ({example}), rounded to 10 µs or worse: dispatches have no \
         time (durations unknown, not zero); analyze estimates GPU time from GRBM_GUI_ACTIVE where it was counted",
        path.display()
    );
    if !read.notes.contains(&note) {
        read.notes.push(note);
    }
}

/// A column's whole number (`12`, or `12.0` as later versions write it); None if the file has
/// no such column or the row leaves it empty.
pub fn whole(t: &Table, column: &str) -> Result<Option<u64>> {
    if !t.has(column) {
        return Ok(None);
    }
    let text = t.text(column)?.trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse::<u64>()
        .ok()
        .or_else(|| text.parse::<f64>().ok().filter(|v| v.fract() == 0.0 && *v >= 0.0 && *v < 1.8e19).map(|v| v as u64))
        .map(Some)
        .ok_or_else(|| t.error(column, format!("expected a whole number, found {text:?}")))
}

fn whole_i32(t: &Table, column: &str) -> Result<i32> {
    let value = whole(t, column)?.unwrap_or(0);
    i32::try_from(value).map_err(|_| t.error(column, format!("{value} is too large (at most {})", i32::MAX)))
}

/// The first of `columns` the file has, as a whole number.
fn first_whole(t: &Table, columns: &[&str]) -> Result<Option<u64>> {
    for c in columns {
        if t.has(c) {
            return whole(t, c);
        }
    }
    Ok(None)
}

/// The process of the row in hand, where the file names it.
pub fn row_pid(t: &Table) -> Result<Option<u32>> {
    Ok(first_whole(t, &["PID", "pid"])?.map(|p| p as u32))
}

pub fn kernel_name(t: &Table) -> Result<&str> {
    t.text("Kernel_Name")
}

/// The kernel name without the suffixes rocprof versions add to the code object's symbol
/// (` [clone .kd]`, ` (.kd)`, `.kd`), for checking that two passes ran the same kernels.
fn normalise(name: &str) -> &str {
    let name = name.trim();
    for suffix in [" [clone .kd]", " (.kd)", ".kd"] {
        if let Some(bare) = name.strip_suffix(suffix) {
            return bare.trim_end();
        }
    }
    name
}

/// The row in hand as a dispatch of `gpu` in `pid`, without its times.
pub fn dispatch(t: &Table, id: u64, gpu: u64, name: Arc<str>, pid: u32) -> Result<DispatchRow> {
    let grid = whole(t, "Grid_Size")?.unwrap_or(0);
    let grid = [i64::try_from(grid).map_err(|_| t.error("Grid_Size", format!("{grid} is too large")))?, 1, 1];
    let (block, vgpr) = ([whole_i32(t, "Workgroup_Size")?, 1, 1], whole_i32(t, "Arch_VGPR")?);
    let shared_mem = whole_i32(t, "LDS_Per_Workgroup")?;
    let correlation_id = whole(t, "Correlation_ID")?.unwrap_or(0);
    let kernel_id = whole(t, "Kernel_ID")?.unwrap_or(0);
    let queue_id = first_whole(t, &["Queue_ID", "queue-id"])?.unwrap_or(0);
    let thread_id = first_whole(t, &["TID", "tid"])?.unwrap_or(0);
    let (accum_vgpr, sgpr) = (whole_i32(t, "Accum_VGPR")?, whole_i32(t, "SGPR")?);
    let scratch_size = whole_i32(t, "Scratch_Per_Workitem")?;
    Ok(DispatchRow {
        launch: KernelLaunch {
            grid,
            block,
            shared_mem,
            dispatch_id: id,
            correlation_id,
            kernel_id,
            agent_id: gpu,
            queue_id,
            thread_id,
            scratch_size,
            ..KernelLaunch::default()
        },
        name,
        pid,
        vgpr,
        accum_vgpr,
        sgpr,
        ..DispatchRow::default()
    })
}

/// `TCC_HIT[3]` as (`TCC_HIT`, instance 3); other names as they are.
pub fn instance(column: &str) -> (&str, Option<i32>) {
    super::super::rocprof_v1_csv::instance(column)
}

/// The counter columns of a wide file: the column, its counter and instance.
fn counter_columns(t: &Table, sink: &mut Sink) -> Vec<(String, Arc<str>, Option<i32>)> {
    t.header()
        .filter(|c| !is_property(c))
        .map(|c| {
            let (name, i) = instance(c);
            (c.to_owned(), sink.name(name), i)
        })
        .collect()
}

/// Pushes the row in hand's counters of dispatch `id`.
fn push_counters(
    t: &Table,
    columns: &[(String, Arc<str>, Option<i32>)],
    dispatch: (u64, &Arc<str>, u64, u32),
    sink: &mut Sink,
) -> Result<()> {
    let (id, name, gpu, pid) = dispatch;
    let correlation = whole(t, "Correlation_ID")?.unwrap_or(0);
    let kernel_id = whole(t, "Kernel_ID")?.unwrap_or(0);
    for (column, counter, instance) in columns {
        let text = t.text(column)?.trim();
        if text.is_empty() || text == "None" || text == "nan" {
            continue; // a pass that did not count it
        }
        sink.push_counter(CounterRow {
            dispatch_id: id,
            correlation_id: correlation,
            agent_id: gpu,
            kernel_id,
            kernel: name.clone(),
            counter: counter.clone(),
            value: t.f64(column)?,
            instances: 1,
            instance: *instance,
            pid,
            ..CounterRow::default()
        });
    }
    Ok(())
}

/// The primary file in the wide layout: a dispatch per row, times from the row or from `times`
/// (by order).
pub fn read_primary(path: &Path, times: Option<&Times>, w: &mut Workload, sink: &mut Sink) -> Result<u64> {
    let mut t = Table::open(path, None)?;
    let columns = counter_columns(&t, sink);
    w.counters.extend(columns.iter().map(|(_, c, _)| c.to_string()));
    let mut rows = 0usize;
    let mut joined = true;
    while t.next()? {
        if rows == 0 {
            w.pid = row_pid(&t)?.or(times.and_then(|s| s.pid)).unwrap_or(0);
        }
        let id = t.u64("Dispatch_ID")?;
        let gpu = whole(&t, "GPU_ID")?.unwrap_or(0);
        let name = sink.name(kernel_name(&t)?);
        let (mut span, mut from) = (own_span(&t)?, path.display().to_string());
        if !matches!(span, Span::Exact(..))
            && let Some(times) = times
        {
            match times.rows.get(rows) {
                Some((other, s)) if **other == *normalise(&name) => (span, from) = (s.clone(), times.path.clone()),
                _ => joined = false,
            }
        }
        let (start, end) = match span {
            Span::Exact(s, e) => (s, e),
            Span::Rounded(text) => {
                note_rounded(&mut w.read, Path::new(&from), &text);
                (0, 0)
            }
            Span::Absent => (0, 0),
        };
        let d = dispatch(&t, id, gpu, name.clone(), w.pid)?;
        sink.push_dispatch(DispatchRow { launch: KernelLaunch { start_ns: start, end_ns: end, ..d.launch }, ..d });
        push_counters(&t, &columns, (id, &name, gpu, w.pid), sink)?;
        w.dispatches.push((id, name, gpu));
        w.gpus.insert(gpu);
        sink.write_full()?;
        rows += 1;
    }
    if let Some(times) = times {
        if !joined || times.rows.len() != rows {
            w.read.notes.push(format!(
                "{}: its {} dispatches do not match the {rows} of {} in order and name; their times were not used",
                times.path,
                times.rows.len(),
                path.display()
            ));
        } else {
            w.read.rows.push((times.path.clone(), times.rows.len() as u64));
        }
    }
    if rows > 0 && !t.has("Start_Timestamp") && times.is_none() {
        w.read.notes.push(format!("{}: no timestamps: durations unknown, not zero", path.display()));
    }
    Ok(rows as u64)
}

/// A single-pass file of the workload: its counters that the primary file lacks, joined to
/// the primary's dispatches by order. A file whose dispatches do not match is left out, with a
/// note.
pub fn read_pass(path: &Path, w: &mut Workload, sink: &mut Sink) -> Result<u64> {
    let mut t = Table::open(path, None)?;
    let has_kernels = t.has("Dispatch_ID") && t.has("Kernel_Name");
    // A level counter's pass (`SQ_LEVEL_WAVES.csv`) counts its accumulation as
    // SQ_ACCUM_PREV_HIRES, which every such pass has: it is that level's `_ACCUM`, as
    // rocprof-compute names it.
    let level = path.file_stem().and_then(|s| s.to_str()).filter(|s| t.has(s)).map(str::to_owned);
    let columns: Vec<_> = counter_columns(&t, sink)
        .into_iter()
        .map(|(column, counter, i)| match &level {
            Some(level) if column == "SQ_ACCUM_PREV_HIRES" => {
                let accum = sink.name(&format!("{level}_ACCUM"));
                (column, accum, i)
            }
            _ => (column, counter, i),
        })
        .filter(|(_, c, _)| !w.counters.contains(c.as_ref()))
        .collect();
    if !has_kernels || columns.is_empty() {
        w.read.notes.push(format!("{}: left out (no counters the workload lacks)", path.display()));
        return Ok(0);
    }
    // Check the order first, so a mismatch writes nothing.
    let mut names = Vec::new();
    while t.next()? {
        names.push(normalise(kernel_name(&t)?).to_owned());
    }
    let expected: Vec<&str> = w.dispatches.iter().map(|(_, n, _)| normalise(n)).collect();
    if names != expected {
        w.read.notes.push(format!(
            "{}: left out: its {} dispatches do not match the workload's {} in order and name",
            path.display(),
            names.len(),
            expected.len()
        ));
        return Ok(0);
    }
    let mut t = Table::open(path, None)?;
    let mut rows = 0;
    for (id, name, gpu) in w.dispatches.clone() {
        if !t.next()? {
            break;
        }
        push_counters(&t, &columns, (id, &name, gpu, w.pid), sink)?;
        sink.write_full()?;
        rows += 1;
    }
    w.counters.extend(columns.into_iter().map(|(_, c, _)| c.to_string()));
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_repeats_are_properties_and_counters_are_not() {
        for p in ["Wave_Size_1", "Correlation_ID_12", "XCC_Index_5", "Kernel_ID_1", "wave_size", "obj"] {
            assert!(is_property(p), "{p}");
        }
        for c in ["SQC_DCACHE_REQ_READ_8", "TCC_HIT[3]", "SQ_WAVES", "TCC_EA0_RDREQ_sum", "GRBM_GUI_ACTIVE"] {
            assert!(!is_property(c), "{c}");
        }
    }

    #[test]
    fn kernel_names_meet_across_versions() {
        let v = "vecCopy(double*, double*, double*, int, int)";
        assert_eq!(normalise(&format!("{v} [clone .kd]")), v);
        assert_eq!(normalise(&format!("{v} (.kd)")), v);
        assert_eq!(normalise(v), v);
        assert_eq!(normalise("kernel.kd"), "kernel");
    }
}
