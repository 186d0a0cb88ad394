//! `rocprof-rs import DB.db`: a rocpd database (rocprofv3's, or ours) into a dataset.
//!
//! AMD's tools read the un-suffixed views every rocpd database has (`rocpd_kernel_dispatch`,
//! ...). A view is code the file brings, so this reader runs none: it checks that the views are
//! exactly rocpd's ([`crate::rocpd::schema_check`]) and reads the UUID-suffixed tables they
//! name, through a connection that bounds SQLite's memory and work ([`crate::sqlite`]). One
//! reader serves rocprofv3's files and ours alike. What rocprofv3 stores per hardware instance
//! (`rocpd_pmc_event`) becomes one summed counter row per dispatch, as our tool writes them;
//! what we stored under `extdata.rocprof_rs` is restored.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use rusqlite::Row;
use serde_json::Value;

use super::sink::{CounterRow, DispatchRow, Sink, SymbolRow};
use crate::error::{Error, Result};
use crate::rocpd::EXTRA;
use crate::rocpd::agent::{AgentRow, Columns};
use crate::sqlite::{Refusal, Untrusted};
use rocprof_rs_format::launch::KernelLaunch;

/// Whether a file's first bytes are SQLite's.
pub fn looks_like(head: &[u8]) -> bool {
    head.starts_with(b"SQLite format 3\0")
}

pub use super::Read;

/// Reads the database at `path` into `sink`.
pub fn read(path: &Path, sink: &mut Sink) -> Result<Read> {
    let shown = path.display().to_string();
    let db = Untrusted::open(path).map_err(|source| Error::Untrusted {
        path: shown.clone(),
        what: "open".into(),
        source,
    })?;
    let suffix = crate::rocpd::schema_check::check(db.conn()).map_err(|source| match source {
        crate::rocpd::schema_check::Mismatch::Sql(e) => {
            Error::Untrusted { path: shown.clone(), what: "reading the schema".into(), source: db.explain(e) }
        }
        source => Error::Schema { path: shown.clone(), source },
    })?;
    let mut reader = Reader {
        db,
        suffix,
        path: shown,
        pids: HashMap::new(),
        agents: HashMap::new(),
        symbols: HashMap::new(),
        dispatches: HashMap::new(),
        read: Read::default(),
    };
    reader.check()?;
    reader.processes()?;
    reader.agents(sink)?;
    reader.symbols(sink)?;
    reader.dispatches(sink)?;
    reader.counters(sink)?;
    reader.regions(sink)?;
    reader.markers(sink)?;
    reader.copies(sink)?;
    reader.memory(sink)?;
    Ok(reader.read)
}

/// What the reader has learnt so far, to resolve later rows' references.
struct Reader {
    db: Untrusted,
    /// The tables' suffix, checked to be a guid's characters.
    suffix: String,
    path: String,
    /// `rocpd_info_process.id` to pid.
    pids: HashMap<i64, u32>,
    /// (process id, rocpd agent id) to the SDK agent handle.
    agents: HashMap<(i64, i64), u64>,
    symbols: HashMap<(i64, i64), Symbol>,
    /// Dispatch events: what their counters need.
    dispatches: HashMap<i64, Dispatch>,
    read: Read,
}

struct Symbol {
    name: Arc<str>,
    mangled: Arc<str>,
    vgpr: i32,
    accum: i32,
    sgpr: i32,
    kernarg: i32,
}

struct Dispatch {
    pid: u32,
    dispatch_id: u64,
    kernel_id: u64,
    name: Arc<str>,
    agent: u64,
    correlation: u64,
}

/// Why reading rows stopped: SQLite's error or a value we cannot take (both named with the
/// database, table and row by [`Reader::each`]), or ours (a table file that could not be written).
enum Stop {
    Sql(rusqlite::Error),
    Value { column: &'static str, message: String },
    Ours(Error),
}

/// A process id as datasets keep it, 0 to `u32::MAX`; anything else is refused.
fn process_id(column: &'static str, value: i64) -> Result<u32, Stop> {
    u32::try_from(value)
        .map_err(|_| Stop::Value { column, message: format!("{value} is not a process id (0 to {})", u32::MAX) })
}

/// `end` before `start` is refused, as the other importers refuse it.
fn span(start: i64, end: i64) -> Result<(i64, i64), Stop> {
    if end < start {
        return Err(Stop::Value { column: "end", message: format!("{end} is before start {start}") });
    }
    Ok((start, end))
}

impl From<rusqlite::Error> for Stop {
    fn from(e: rusqlite::Error) -> Stop {
        Stop::Sql(e)
    }
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        Stop::Ours(e)
    }
}

/// Column `i` of a row as a name: text whose bytes stay SQLite's, and past
/// [`crate::names::MAX_NAME_BYTES`] only its prefix and hash are copied ([`crate::names::bounded`]),
/// so a database of many names near SQLite's value limit costs what names of 16 KiB do. A value
/// that is not UTF-8 text is read as before, for its error.
fn name_at(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<String>> {
    match r.get_ref(i)? {
        rusqlite::types::ValueRef::Null => Ok(None),
        rusqlite::types::ValueRef::Text(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => Ok(Some(crate::names::bounded(text).into_owned())),
            Err(_) => r.get(i),
        },
        _ => r.get(i),
    }
}

/// [`name_at`] for a column that must hold one: NULL is the error it was.
fn required_name_at(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<String> {
    match name_at(r, i)? {
        Some(name) => Ok(name),
        None => r.get(i),
    }
}

fn json(text: Option<String>) -> Value {
    text.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(Value::Null)
}

fn extra<'a>(data: &'a Value, key: &str) -> Option<&'a Value> {
    data.get(EXTRA).and_then(|e| e.get(key))
}

fn synthesized(data: &Value) -> bool {
    extra(data, "synthesized").and_then(Value::as_bool).unwrap_or(false)
}

impl Reader {
    fn error(&self, what: &str, e: rusqlite::Error) -> Error {
        match self.db.explain(e) {
            Refusal::Sql(source) => Error::Database { path: self.path.clone(), what: what.to_owned(), source },
            source => Error::Untrusted { path: self.path.clone(), what: what.to_owned(), source },
        }
    }

    /// Runs `sql`, with `{t}` as the tables' suffix, and calls `each` per row. The query's last
    /// column is the row's id in `table`, which an error names.
    fn each(&self, table: &str, sql: &str, mut each: impl FnMut(&Row) -> Result<(), Stop>) -> Result<u64> {
        let what = format!("reading {table}");
        let sql = sql.replace("{t}", &self.suffix);
        let mut statement = self.db.conn().prepare(&sql).map_err(|e| self.error(&what, e))?;
        let last = statement.column_count() - 1;
        let mut rows = statement.query([]).map_err(|e| self.error(&what, e))?;
        let mut n = 0;
        while let Some(row) = rows.next().map_err(|e| self.error(&what, e))? {
            let id = || row.get::<_, Option<i64>>(last).ok().flatten().unwrap_or(-1);
            match each(row) {
                Ok(()) => n += 1,
                Err(Stop::Sql(e)) => return Err(self.error(&format!("reading {table} row {}", id()), e)),
                Err(Stop::Value { column, message }) => {
                    let (path, table, row) = (self.path.clone(), table.to_owned(), id());
                    return Err(Error::Row { path, table, row, column: column.into(), message });
                }
                Err(Stop::Ours(e)) => return Err(e),
            }
        }
        Ok(n)
    }

    fn count(&mut self, kind: &str, n: u64) {
        if n > 0 {
            self.read.rows.push((kind.to_owned(), n));
        }
    }

    fn check(&self) -> Result<()> {
        let sql = format!("SELECT value FROM rocpd_metadata{} WHERE tag = 'schema_version'", self.suffix);
        let version: rusqlite::Result<String> = self.db.conn().query_row(&sql, [], |r| r.get(0));
        match version {
            Ok(v) if v.parse::<u32>().is_ok_and(|v| v >= 3) => Ok(()),
            Ok(v) => Err(Error::Invalid(format!(
                "{}: rocpd schema version {v}; rocprof-rs reads version 3 (ROCm 7.0)",
                self.path
            ))),
            Err(e) => Err(self.error("not a rocpd database (no rocpd_metadata schema_version)", e)),
        }
    }

    /// The pid of rocpd's process `id`: its `pid`, or where the process has no row, its id.
    fn pid(&self, id: i64) -> Result<u32, Stop> {
        match self.pids.get(&id) {
            Some(&pid) => Ok(pid),
            None => process_id("pid", id),
        }
    }

    fn processes(&mut self) -> Result<()> {
        let mut pids = HashMap::new();
        self.each("rocpd_info_process", "SELECT id, pid, id FROM rocpd_info_process{t}", |r| {
            pids.insert(r.get::<_, i64>(0)?, process_id("pid", r.get(1)?)?);
            Ok(())
        })?;
        self.pids = pids;
        Ok(())
    }

    fn agents(&mut self, sink: &mut Sink) -> Result<()> {
        let mut rows = Vec::new();
        self.each(
            "rocpd_info_agent",
            "SELECT pid, id, logical_index, type, name, product_name, vendor_name, model_name, extdata, id \
             FROM rocpd_info_agent{t} ORDER BY id",
            |r| {
                let columns = Columns {
                    node_id: r.get::<_, i64>(1)? as u32,
                    logical_index: r.get::<_, Option<i64>>(2)?.unwrap_or(-1) as i32,
                    agent_type: r.get(3)?,
                    name: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
                    product_name: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                    vendor_name: r.get::<_, Option<String>>(6)?.unwrap_or_default(),
                    model_name: r.get::<_, Option<String>>(7)?.unwrap_or_default(),
                };
                let process = r.get::<_, i64>(0)?;
                rows.push((process, self.pid(process)?, r.get::<_, i64>(1)?, columns, json(r.get(8)?)));
                Ok(())
            },
        )?;
        let n = rows.len() as u64;
        for (process, pid, id, columns, data) in rows {
            let agent = AgentRow::from_rocpd(columns, &data, pid);
            self.agents.insert((process, id), agent.agent_id);
            if !synthesized(&data) {
                sink.push_agent(&agent);
            }
        }
        self.count("agents", n);
        Ok(())
    }

    fn agent(&self, process: i64, id: Option<i64>) -> u64 {
        id.map_or(0, |id| self.agents.get(&(process, id)).copied().unwrap_or(id as u64))
    }

    fn symbols(&mut self, sink: &mut Sink) -> Result<()> {
        let mut symbols = HashMap::new();
        let n = self.each(
            "rocpd_info_kernel_symbol",
            "SELECT pid, id, code_object_id, kernel_name, display_name, kernarg_segment_size, group_segment_size, \
             private_segment_size, sgpr_count, arch_vgpr_count, accum_vgpr_count, extdata, id \
             FROM rocpd_info_kernel_symbol{t} ORDER BY id",
            |r| {
                let int = |i| r.get::<_, Option<i64>>(i).map(|v| v.unwrap_or(0));
                let mangled: String = name_at(r, 3)?.unwrap_or_default();
                let name: String = name_at(r, 4)?.unwrap_or_else(|| mangled.clone());
                let (process, kernel_id) = (r.get::<_, i64>(0)?, r.get::<_, i64>(1)?);
                let symbol = Symbol {
                    name: name.as_str().into(),
                    mangled: mangled.as_str().into(),
                    vgpr: int(9)? as i32,
                    accum: int(10)? as i32,
                    sgpr: int(8)? as i32,
                    kernarg: int(5)? as i32,
                };
                if !synthesized(&json(r.get(11)?)) {
                    sink.push_symbol(&SymbolRow {
                        kernel_id: kernel_id as u64,
                        code_object_id: int(2)? as u64,
                        name,
                        mangled,
                        kernarg: int(5)? as u32,
                        lds: int(6)? as u32,
                        scratch: int(7)? as u32,
                        sgpr: int(8)? as u32,
                        vgpr: int(9)? as u32,
                        accum: int(10)? as u32,
                        pid: self.pid(process)?,
                    });
                }
                symbols.insert((process, kernel_id), symbol);
                Ok(())
            },
        )?;
        self.symbols = symbols;
        self.count("kernel symbols", n);
        Ok(())
    }

    fn dispatches(&mut self, sink: &mut Sink) -> Result<()> {
        let mut dispatches = HashMap::new();
        let mut written = 0;
        self.each(
            "rocpd_kernel_dispatch",
            "SELECT K.pid, K.tid, K.agent_id, K.kernel_id, K.dispatch_id, K.queue_id, K.stream_id, K.start, K.end, \
             K.private_segment_size, K.group_segment_size, K.workgroup_size_x, K.workgroup_size_y, \
             K.workgroup_size_z, K.grid_size_x, K.grid_size_y, K.grid_size_z, K.extdata, E.id, E.stack_id, \
             E.correlation_id, K.id FROM rocpd_kernel_dispatch{t} K JOIN rocpd_event{t} E ON E.id = K.event_id \
             ORDER BY K.id",
            |r| {
                let int = |i| r.get::<_, Option<i64>>(i).map(|v| v.unwrap_or(0));
                let (process, kernel_id) = (r.get::<_, i64>(0)?, r.get::<_, i64>(3)?);
                let data = json(r.get(17)?);
                let symbol = self.symbols.get(&(process, kernel_id));
                let text = |key: &str, default: Option<&Arc<str>>| -> Arc<str> {
                    match extra(&data, key).and_then(Value::as_str) {
                        Some(t) => t.into(),
                        None => default.cloned().unwrap_or_else(|| "".into()),
                    }
                };
                let number =
                    |key: &str, default: i32| extra(&data, key).and_then(Value::as_i64).map_or(default, |v| v as i32);
                let name = sink.name(&text("kernel_name", symbol.map(|s| &s.name)));
                let agent = self.agent(process, r.get(2)?);
                let pid = self.pid(process)?;
                let (start_ns, end_ns) = span(int(7)?, int(8)?)?;
                let (dispatch_id, correlation) = (int(4)? as u64, int(19)? as u64);
                dispatches.insert(
                    r.get::<_, i64>(18)?,
                    Dispatch { pid, dispatch_id, kernel_id: kernel_id as u64, name: name.clone(), agent, correlation },
                );
                if synthesized(&data) {
                    return Ok(());
                }
                let stream = (!extra(&data, "no_stream").is_some_and(|v| v == true)).then(|| int(6).map(|s| s as i32));
                let mangled = sink.name(&text("mangled_name", symbol.map(|s| &s.mangled)));
                sink.push_dispatch(DispatchRow {
                    launch: KernelLaunch {
                        start_ns,
                        end_ns,
                        grid: [int(14)?, int(15)?, int(16)?],
                        block: [int(11)? as i32, int(12)? as i32, int(13)? as i32],
                        shared_mem: int(10)? as i32,
                        stream_id: stream.transpose()?,
                        dispatch_id,
                        correlation_id: correlation,
                        kernel_id: kernel_id as u64,
                        agent_id: agent,
                        queue_id: int(5)? as u64,
                        thread_id: int(1)? as u64,
                        scratch_size: int(9)? as i32,
                        external_id: int(20)? as u64,
                        pipe_id: extra(&data, "pipe_id").and_then(Value::as_i64).map(|p| p as i32),
                        ..KernelLaunch::default()
                    },
                    mangled: Some(mangled),
                    name,
                    pid,
                    vgpr: number("regs", symbol.map_or(0, |s| s.vgpr)),
                    accum_vgpr: number("accum_vgpr", symbol.map_or(0, |s| s.accum)),
                    sgpr: number("sgpr", symbol.map_or(0, |s| s.sgpr)),
                    kernarg: number("kernarg_size", symbol.map_or(0, |s| s.kernarg)),
                });
                written += 1;
                sink.write_full()?;
                Ok(())
            },
        )?;
        self.dispatches = dispatches;
        sink.write_full()?;
        self.count("kernel dispatches", written);
        Ok(())
    }

    /// Counter values. rocprofv3 stores one row per hardware instance; consecutive rows of a
    /// dispatch and counter become one row, their sum, with `instances` saying how many.
    fn counters(&mut self, sink: &mut Sink) -> Result<()> {
        let mut open: Option<(i64, String, CounterRow)> = None;
        let mut rows = Vec::new();
        self.each(
            "rocpd_pmc_event",
            "SELECT P.event_id, I.name, P.value, P.extdata, P.id FROM rocpd_pmc_event{t} P \
             JOIN rocpd_info_pmc{t} I ON I.id = P.pmc_id ORDER BY P.id",
            |r| {
                let (event, counter, value): (i64, String, f64) =
                    (r.get(0)?, r.get(1)?, r.get::<_, Option<f64>>(2)?.unwrap_or(0.0));
                let data = json(r.get(3)?);
                let Some(d) = self.dispatches.get(&event) else { return Ok(()) };
                if extra(&data, "instances").is_some() {
                    // Ours: one row as the tool wrote it.
                    rows.extend(open.take().map(|(_, _, row)| row));
                    let u = |key: &str| extra(&data, key).and_then(Value::as_u64);
                    rows.push(CounterRow {
                        dispatch_id: d.dispatch_id,
                        correlation_id: u("correlation_id").unwrap_or(d.correlation),
                        agent_id: u("agent_id").unwrap_or(d.agent),
                        kernel_id: u("kernel_id").unwrap_or(d.kernel_id),
                        kernel: extra(&data, "kernel_name").and_then(Value::as_str).map_or(d.name.clone(), Into::into),
                        counter: counter.as_str().into(),
                        value,
                        group: u("counter_group").unwrap_or(0) as u32,
                        instances: u("instances").unwrap_or(1) as u32,
                        instance: extra(&data, "instance").and_then(Value::as_i64).map(|i| i as i32),
                        pid: d.pid,
                    });
                    return Ok(());
                }
                match &mut open {
                    Some((e, c, row)) if *e == event && *c == counter => {
                        row.value += value;
                        row.instances += 1;
                    }
                    _ => {
                        rows.extend(open.take().map(|(_, _, row)| row));
                        let row = CounterRow {
                            dispatch_id: d.dispatch_id,
                            correlation_id: d.correlation,
                            agent_id: d.agent,
                            kernel_id: d.kernel_id,
                            kernel: d.name.clone(),
                            counter: counter.as_str().into(),
                            value,
                            instances: 1,
                            pid: d.pid,
                            ..CounterRow::default()
                        };
                        open = Some((event, counter, row));
                    }
                }
                Ok(())
            },
        )?;
        rows.extend(open.map(|(_, _, row)| row));
        let n = rows.len() as u64;
        for mut row in rows {
            row.kernel = sink.name(&row.kernel);
            row.counter = sink.name(&row.counter);
            sink.push_counter(row);
        }
        sink.write_full()?;
        self.count("counter values", n);
        Ok(())
    }

    /// API calls: regions whose category is not a marker's, by their category's prefix.
    fn regions(&mut self, sink: &mut Sink) -> Result<()> {
        let mut skipped: HashMap<String, u64> = HashMap::new();
        let mut n = 0;
        self.each(
            "rocpd_region",
            "SELECT R.pid, R.tid, R.start, R.end, S.string, C.string, E.stack_id, E.parent_stack_id, R.id \
             FROM rocpd_region{t} R JOIN rocpd_event{t} E ON E.id = R.event_id \
             JOIN rocpd_string{t} S ON S.id = R.name_id LEFT JOIN rocpd_string{t} C ON C.id = E.category_id \
             WHERE C.string IS NULL OR C.string NOT LIKE 'MARKER%' ORDER BY R.id",
            |r| {
                let category: String = r.get::<_, Option<String>>(5)?.unwrap_or_default();
                let table = if category.starts_with("HIP_") {
                    &mut sink.hip_api.rows
                } else if category.starts_with("HSA_") {
                    &mut sink.hsa_api.rows
                } else if category.starts_with("RCCL_") {
                    &mut sink.rccl_api.rows
                } else {
                    *skipped
                        .entry(if category.is_empty() { "regions without a category".into() } else { category })
                        .or_default() += 1;
                    return Ok(());
                };
                let (start, end) = span(r.get(2)?, r.get(3)?)?;
                let pid = self.pid(r.get(0)?)?;
                let operation: String = required_name_at(r, 4)?;
                table.push(rocprof_rs_format::ApiCallRow {
                    operation: &Arc::from(operation.as_str()),
                    start_ns: start,
                    end_ns: end,
                    duration_ns: end - start,
                    correlation_id: r.get::<_, Option<i64>>(6)?.unwrap_or(0) as u64,
                    ancestor_id: r.get::<_, Option<i64>>(7)?.unwrap_or(0) as u64,
                    thread_id: r.get::<_, i64>(1)? as u64,
                    pid,
                });
                n += 1;
                sink.write_full()?;
                Ok(())
            },
        )?;
        sink.write_full()?;
        self.count("API calls", n);
        let mut skipped: Vec<(String, u64)> = skipped.into_iter().collect();
        skipped.sort();
        self.read.skipped.extend(skipped);
        Ok(())
    }

    /// ROCTx: ranges are regions, marks are samples; both in the order they were recorded.
    fn markers(&mut self, sink: &mut Sink) -> Result<()> {
        let n = self.each(
            "rocpd_event",
            "SELECT pid, tid, start, end, name, category, stack_id, extdata, event FROM ( \
               SELECT R.pid AS pid, R.tid AS tid, R.start AS start, R.end AS end, S.string AS name, \
                 C.string AS category, E.stack_id AS stack_id, E.extdata AS extdata, E.id AS event \
               FROM rocpd_region{t} R JOIN rocpd_event{t} E ON E.id = R.event_id \
               JOIN rocpd_string{t} S ON S.id = R.name_id JOIN rocpd_string{t} C ON C.id = E.category_id \
               WHERE C.string LIKE 'MARKER%' \
             UNION ALL \
               SELECT T.pid, T.tid, M.timestamp, M.timestamp, NULL, C.string, E.stack_id, E.extdata, E.id \
               FROM rocpd_sample{t} M JOIN rocpd_track{t} T ON T.id = M.track_id \
               JOIN rocpd_event{t} E ON E.id = M.event_id LEFT JOIN rocpd_string{t} C ON C.id = E.category_id \
               WHERE C.string LIKE 'MARKER%') ORDER BY event",
            |r| {
                let data = json(r.get(7)?);
                let name: Option<String> = name_at(r, 4)?;
                let operation = match extra(&data, "operation").and_then(Value::as_str) {
                    Some(op) => op.to_owned(),
                    None => name.unwrap_or_else(|| "roctxMarkA".to_owned()),
                };
                let end = extra(&data, "end_ns").and_then(Value::as_i64).unwrap_or(r.get(3)?);
                let (start, end) = span(r.get(2)?, end)?;
                let pid = self.pid(r.get(0)?)?;
                let m = &mut sink.marker.rows;
                m.push(rocprof_rs_format::MarkerRow {
                    message: data.get("message").and_then(Value::as_str).unwrap_or(""),
                    operation: &operation,
                    start_ns: start,
                    end_ns: end,
                    duration_ns: end - start,
                    depth: extra(&data, "depth").and_then(Value::as_i64).map(|d| d as i32),
                    correlation_id: r.get::<_, Option<i64>>(6)?.unwrap_or(0) as u64,
                    thread_id: r.get::<_, i64>(1)? as u64,
                    pid,
                    vendor: &rocprof_rs_format::vendor::AMD,
                    domain: None,
                });
                Ok(())
            },
        )?;
        sink.write_full()?;
        self.count("markers", n);
        Ok(())
    }

    fn copies(&mut self, sink: &mut Sink) -> Result<()> {
        let n = self.each(
            "rocpd_memory_copy",
            "SELECT M.pid, M.tid, M.start, M.end, S.string, M.src_agent_id, M.dst_agent_id, M.src_address, \
             M.dst_address, M.size, E.stack_id, M.id FROM rocpd_memory_copy{t} M \
             JOIN rocpd_event{t} E ON E.id = M.event_id JOIN rocpd_string{t} S ON S.id = M.name_id ORDER BY M.id",
            |r| {
                let process: i64 = r.get(0)?;
                let (src, dst) = (self.agent(process, r.get(5)?), self.agent(process, r.get(6)?));
                let pid = self.pid(process)?;
                sink.agent_seen(pid, src);
                sink.agent_seen(pid, dst);
                let int = |i| r.get::<_, Option<i64>>(i).map(|v| v.unwrap_or(0));
                let (start, end) = span(int(2)?, int(3)?)?;
                let c = &mut sink.copy.rows;
                c.push(rocprof_rs_format::MemoryCopyRow {
                    operation: &required_name_at(r, 4)?,
                    start_ns: start,
                    end_ns: end,
                    duration_ns: end - start,
                    bytes: int(9)? as u64,
                    src_agent_id: src,
                    dst_agent_id: dst,
                    src_address: int(7)? as u64,
                    dst_address: int(8)? as u64,
                    correlation_id: int(10)? as u64,
                    thread_id: int(1)? as u64,
                    pid,
                    vendor: &rocprof_rs_format::vendor::AMD,
                    stream_id: None,
                });
                Ok(())
            },
        )?;
        sink.write_full()?;
        self.count("memory copies", n);
        Ok(())
    }

    /// `rocpd_memory_allocate`: scratch rows (level SCRATCH) to `scratch_memory`, the rest to
    /// `memory_allocation`, with rocprofv3's operation names.
    fn memory(&mut self, sink: &mut Sink) -> Result<()> {
        let (mut allocations, mut scratch) = (0, 0);
        self.each(
            "rocpd_memory_allocate",
            "SELECT M.pid, M.tid, M.agent_id, M.type, M.level, M.start, M.end, M.address, M.size, M.queue_id, \
             M.extdata, E.stack_id, M.id FROM rocpd_memory_allocate{t} M JOIN rocpd_event{t} E ON E.id = M.event_id \
             ORDER BY M.id",
            |r| {
                let process: i64 = r.get(0)?;
                let (agent, pid) = (self.agent(process, r.get(2)?), self.pid(process)?);
                let int = |i| r.get::<_, Option<i64>>(i).map(|v| v.unwrap_or(0));
                let (kind, level): (Option<String>, Option<String>) = (r.get(3)?, r.get(4)?);
                let data = json(r.get(10)?);
                let (start, end) = span(int(5)?, int(6)?)?;
                let scratch_row = level.as_deref() == Some("SCRATCH");
                let operation = match extra(&data, "operation").and_then(Value::as_str) {
                    Some(op) => op.to_owned(),
                    None => operation(scratch_row, kind.as_deref(), level.as_deref()),
                };
                if agent != 0 {
                    sink.agent_seen(pid, agent);
                }
                if scratch_row {
                    let flags = data.get("flags").and_then(|f| f.as_str().and_then(|s| s.parse().ok()).or(f.as_u64()));
                    let s = &mut sink.scratch.rows;
                    s.push(rocprof_rs_format::ScratchMemoryRow {
                        operation: &operation,
                        start_ns: start,
                        end_ns: end,
                        duration_ns: end - start,
                        bytes: int(8)? as u64,
                        flags: flags.unwrap_or(0) as u32,
                        agent_id: agent,
                        queue_id: int(9)? as u64,
                        correlation_id: int(11)? as u64,
                        thread_id: int(1)? as u64,
                        pid,
                    });
                    scratch += 1;
                } else {
                    let a = &mut sink.allocation.rows;
                    a.push(rocprof_rs_format::MemoryAllocationRow {
                        operation: &operation,
                        start_ns: start,
                        end_ns: end,
                        duration_ns: end - start,
                        address: int(7)? as u64,
                        bytes: int(8)? as u64,
                        agent_id: agent,
                        correlation_id: int(11)? as u64,
                        thread_id: int(1)? as u64,
                        pid,
                    });
                    allocations += 1;
                }
                Ok(())
            },
        )?;
        sink.write_full()?;
        self.count("memory allocations", allocations);
        self.count("scratch memory operations", scratch);
        Ok(())
    }
}

/// rocprofv3's operation name for a `rocpd_memory_allocate` row.
fn operation(scratch: bool, kind: Option<&str>, level: Option<&str>) -> String {
    match (scratch, kind, level) {
        (true, Some("ALLOC"), _) => "SCRATCH_MEMORY_ALLOC",
        (true, Some("FREE"), _) => "SCRATCH_MEMORY_FREE",
        (true, _, _) => "SCRATCH_MEMORY_ASYNC_RECLAIM",
        (false, Some("FREE"), Some("VIRTUAL")) => "MEMORY_ALLOCATION_VMEM_FREE",
        (false, _, Some("VIRTUAL")) => "MEMORY_ALLOCATION_VMEM_ALLOCATE",
        (false, Some("FREE"), _) => "MEMORY_ALLOCATION_FREE",
        (false, _, _) => "MEMORY_ALLOCATION_ALLOCATE",
    }
    .to_owned()
}
