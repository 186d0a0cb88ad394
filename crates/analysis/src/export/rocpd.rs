//! `rocprof-rs export --format rocpd`: a dataset as rocpd databases, one per process
//! (`<pid>_results.db`, rocprofv3's name), filled the way rocprofv3 fills them.
//!
//! Rows go in parents first, as the schema's immediate foreign keys require: strings, node,
//! process, default stream and queue, agents, code objects and kernel symbols up front; then per
//! record its thread, its event, and the record.
//!
//! The set is all or nothing: every database is written into a hidden staging folder beside
//! the target ([`super::staging`]), renamed into place when all are complete. Its cost does not
//! grow with the number of processes beyond their own rows: at most [`OPEN_DATABASES`]
//! connections are open at once (a database is committed and closed when another needs its
//! place, and opened again when its process's rows come), a batch's rows are written process by
//! process, and a database gets rocpd's views, whose schema is most of what a connection
//! holds, only when it is finished. Within the staging folder SQLite neither journals nor syncs:
//! a failure discards the whole folder, and each file is synced once, when the set is complete.

use rocprof_rs_format::Table;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::read::{Batch, batches};
use crate::rocpd::agent::AgentRow;
use crate::rocpd::{EXTRA, Identity, int};
use rocprof_rs_format::launch::KernelLaunch;

/// Tables in the order they are read; a dispatch precedes its counters.
/// Strings whose ids are kept in memory; beyond, the cache starts again.
const STRINGS_CACHED: usize = 1 << 16;

/// Kernel symbols kept in memory; beyond, the cache starts again.
const SYMBOLS_CACHED: usize = 1 << 14;

/// Databases open at once: beyond, the least recently used is committed and closed.
const OPEN_DATABASES: usize = 16;

/// Each open database's page cache, in KiB (SQLite takes a negative `cache_size` as KiB).
const CACHE_KIB: u32 = 4 << 10;

const RECORD_TABLES: [Table; 9] = [
    Table::KernelDispatch,
    Table::Counter,
    Table::HipApi,
    Table::HsaApi,
    Table::RcclApi,
    Table::Marker,
    Table::MemoryCopy,
    Table::MemoryAllocation,
    Table::ScratchMemory,
];

/// Writes `dir` as rocpd databases into `out`; returns each database and the events in it.
pub fn export(dir: &Path, out: &Path) -> Result<Vec<(String, u64)>> {
    rocprof_rs_format::dataset::require_tables(dir)?;
    let io = |source| Error::Io { path: out.display().to_string(), source };
    let staging = super::staging::Staging::create(out, "rocpd").map_err(io)?;
    let written = export_into(dir, staging.path(), out)?;
    staging.publish().map_err(io)?;
    Ok(written)
}

/// The databases, at most [`OPEN_DATABASES`] of them open.
struct Databases {
    dbs: BTreeMap<u32, Db>,
    /// Open databases' pids, the least recently used first.
    open: VecDeque<u32>,
}

impl Databases {
    /// Process `pid`'s database, opened (closing the least recently used) if it was closed.
    fn get(&mut self, pid: u32) -> Result<&mut Db> {
        if let Some(at) = self.open.iter().position(|&p| p == pid) {
            self.open.remove(at);
        } else {
            if self.open.len() >= OPEN_DATABASES
                && let Some(oldest) = self.open.pop_front()
            {
                self.dbs.get_mut(&oldest).expect("an open database is known").close()?;
            }
            self.dbs.get_mut(&pid).expect("a database per process").open()?;
        }
        self.open.push_back(pid);
        Ok(self.dbs.get_mut(&pid).expect("a database per process"))
    }
}

fn export_into(dir: &Path, staging: &Path, out: &Path) -> Result<Vec<(String, u64)>> {
    let progress = crate::progress::bar(RECORD_TABLES.len() as u64 + 2, "writing rocpd");
    let dataset = Dataset::read(dir)?;
    progress.inc(1);
    let mut dbs = Databases { dbs: BTreeMap::new(), open: VecDeque::new() };
    for &pid in &dataset.pids {
        let mut db = Db::create(staging, out, pid, &dataset)?;
        db.close()?;
        dbs.dbs.insert(pid, db);
    }
    // Symbols a batch at a time, straight into their process's database.
    super::symbols::for_each(dir, |pid, s| {
        let [kernarg, lds, scratch, sgpr, vgpr, accum] = s.sizes.map(|v| v as i64);
        let symbol = Symbol {
            kernel_id: s.kernel_id,
            code_object_id: s.code_object_id,
            name: s.name.into(),
            mangled: s.mangled.into(),
            kernarg,
            lds,
            scratch,
            sgpr,
            vgpr,
            accum,
        };
        dbs.get(pid)?.symbol(&symbol, false)
    })?;
    progress.inc(1);
    for table in RECORD_TABLES {
        batches(dir, table, |b| {
            let pid = b.col("pid")?;
            // Process by process, each in its rows' order, so that a batch opens a database once.
            let mut rows: Vec<usize> = (0..b.rows()).collect();
            rows.sort_by_key(|&i| pid.u64(i));
            for i in rows {
                let db = dbs.get(pid.u64(i) as u32)?;
                let row = Row { b, i };
                match table {
                    Table::KernelDispatch => db.dispatch(&row),
                    Table::Counter => db.counter(&row),
                    Table::HipApi | Table::HsaApi | Table::RcclApi | Table::CudaApi => db.api(table, &row),
                    Table::Marker => db.marker(&row),
                    Table::MemoryCopy => db.copy(&row),
                    Table::MemoryAllocation => db.allocation(&row),
                    Table::ScratchMemory => db.scratch(&row),
                    // Catalogs, aggregates and samples, and any table rocpd has no records of.
                    _ => unreachable!("{table} is not one of RECORD_TABLES"),
                }?;
            }
            Ok(())
        })?;
        progress.inc(1);
    }
    // The device samples, as rocprofiler-systems files its AMD SMI samples.
    for (key, series) in crate::telemetry::series::read(dir)? {
        if dbs.dbs.contains_key(&key.pid) {
            dbs.get(key.pid)?.device_samples(key.device_index, &series)?;
        }
    }
    progress.finish_and_clear();
    let pids: Vec<u32> = dbs.dbs.keys().copied().collect();
    pids.into_iter()
        .map(|pid| {
            let db = dbs.get(pid)?;
            let name = format!("{pid}_results.db");
            let events = db.finish()?;
            dbs.open.retain(|&p| p != pid);
            Ok((name, events))
        })
        .collect()
}

/// What a dataset says beyond its records: processes, agents, kernel symbols, command lines.
#[derive(Debug, Default)]
struct Dataset {
    pids: BTreeSet<u32>,
    agents: Vec<AgentRow>,
    /// Per process: the command line and the run's start and end, from `*.metadata.json`.
    runs: HashMap<u32, super::runs::Run>,
}

impl Dataset {
    fn read(dir: &Path) -> Result<Dataset> {
        let mut d = Dataset::default();
        for row in AgentRow::read_all(dir)? {
            d.pids.insert(row.pid);
            d.agents.push(row);
        }
        batches(dir, Table::KernelSymbol, |b| {
            let pid = b.col("pid")?;
            d.pids.extend((0..b.rows()).map(|i| pid.u64(i) as u32));
            Ok(())
        })?;
        for table in RECORD_TABLES {
            batches(dir, table, |b| {
                let pid = b.col("pid")?;
                d.pids.extend((0..b.rows()).map(|i| pid.u64(i) as u32));
                Ok(())
            })?;
        }
        d.runs = super::runs::read(dir)?;
        Ok(d)
    }
}

/// A kernel symbol as the database holds it.
#[derive(Debug, Clone, PartialEq)]
struct Symbol {
    kernel_id: u64,
    code_object_id: u64,
    name: Arc<str>,
    mangled: Arc<str>,
    kernarg: i64,
    lds: i64,
    scratch: i64,
    sgpr: i64,
    vgpr: i64,
    accum: i64,
}

/// A dispatch already written, for its counters.
#[derive(Debug, Clone)]
struct Dispatch {
    event: i64,
    kernel_id: u64,
    name: Arc<str>,
    agent: u64,
    correlation: u64,
}

/// One row of a batch.
struct Row<'a, 'b> {
    b: &'a Batch<'b>,
    i: usize,
}

impl Row<'_, '_> {
    fn u64(&self, column: &str) -> Result<u64> {
        Ok(self.b.col(column)?.u64(self.i))
    }
    fn i64(&self, column: &str) -> Result<i64> {
        Ok(self.b.col(column)?.i64(self.i))
    }
    fn opt(&self, column: &str) -> Result<Option<i64>> {
        Ok(self.b.col(column)?.opt_i64(self.i))
    }
    /// An `Int32` column's value.
    fn i32(&self, column: &str) -> Result<i32> {
        narrow(column, self.i64(column)?)
    }
    fn opt_i32(&self, column: &str) -> Result<Option<i32>> {
        self.opt(column)?.map(|v| narrow(column, v)).transpose()
    }
    fn text(&self, column: &str) -> Result<String> {
        Ok(self.b.col(column)?.text(self.i).to_owned())
    }
    fn f64(&self, column: &str) -> Result<f64> {
        Ok(self.b.col(column)?.f64(self.i))
    }
}

/// A value of the `Int32` column `column`: the reader refuses a file whose column has another
/// type, so it fits; an error rather than a wrapped value if ever it does not.
fn narrow(column: &str, value: i64) -> Result<i32> {
    i32::try_from(value).map_err(|_| Error::Invalid(format!("{column}: {value} is beyond 32 bits")))
}

/// `extdata` text: rocpd's own keys, plus ours under [`EXTRA`] when there are any.
fn extdata(mut base: Map<String, Value>, extra: Map<String, Value>) -> String {
    if !extra.is_empty() {
        base.insert(EXTRA.into(), Value::Object(extra));
    }
    Value::Object(base).to_string()
}

/// One process's database, open in a transaction.
/// One reading of the device samples in rocpd: rocprofiler-systems' name, symbol, description
/// and units where it files the same reading, and the value it takes.
struct DeviceMetric {
    name: &'static str,
    symbol: &'static str,
    description: &'static str,
    units: &'static str,
    read: fn(&crate::telemetry::series::Sample) -> Option<f64>,
}

const DEVICE_METRICS: [DeviceMetric; 7] = [
    DeviceMetric {
        name: "device_power",
        symbol: "Pow",
        description: "Power consumption of a GPU device",
        units: "w",
        read: |s| s.power_w,
    },
    DeviceMetric {
        name: "device_temp",
        symbol: "Temp",
        description: "Temperature of a GPU device",
        units: "\u{00B0}C",
        read: |s| s.temperature_c.map(f64::from),
    },
    DeviceMetric {
        name: "device_memory_usage",
        symbol: "MemUsg",
        description: "Memory usage of a GPU device",
        units: "MB",
        read: |s| s.memory_used_bytes.map(|b| b as f64 / 1e6),
    },
    DeviceMetric {
        name: "device_busy_gfx",
        symbol: "Busy",
        description: "Busy percentage of a GPU device's graphics/compute engine",
        units: "%",
        read: |s| s.gpu_busy_pct.map(f64::from),
    },
    DeviceMetric {
        name: "device_sm_clock",
        symbol: "SClk",
        description: "SM (GFX) clock of a GPU device",
        units: "MHz",
        read: |s| s.sm_clock_mhz.map(f64::from),
    },
    DeviceMetric {
        name: "device_memory_clock",
        symbol: "MClk",
        description: "Memory clock of a GPU device",
        units: "MHz",
        read: |s| s.memory_clock_mhz.map(f64::from),
    },
    DeviceMetric {
        name: "device_energy",
        symbol: "Energy",
        description: "Energy counter of a GPU device (from an arbitrary origin)",
        units: "J",
        read: |s| s.energy_j,
    },
];

/// The `tracks` key of the device tracks, which have no thread.
const DEVICE_TRACK: u64 = u64::MAX;

struct Db {
    /// Open while its process's rows are being written (see [`Databases`]).
    conn: Option<Connection>,
    identity: Identity,
    /// Each statement with its table names filled in, made once while the database is open.
    expanded: std::cell::RefCell<HashMap<&'static str, std::rc::Rc<str>>>,
    /// The database's file, in the staging folder.
    path: PathBuf,
    /// The dispatches counter rows join to, in a file of their own beside it, removed when
    /// the database is finished.
    dispatches: PathBuf,
    /// The database's name in the target folder, for messages.
    shown: String,
    pid: u32,
    nid: i64,
    /// Recently used strings' ids; the database's own unique index finds the rest, so memory
    /// stays bounded however many distinct names a trace has.
    strings: HashMap<String, i64>,
    next_string: i64,
    threads: BTreeSet<u64>,
    queues: HashMap<u64, ()>,
    streams: HashMap<i64, ()>,
    /// SDK agent handle to the node id rocpd keys agents by.
    agents: HashMap<u64, i64>,
    /// Recently used kernel symbols; the rest are read back from rocpd_info_kernel_symbol.
    symbols: HashMap<u64, Symbol>,
    code_objects: BTreeSet<u64>,
    /// The dispatch counter rows last referred to; the others are in [`Db::dispatches`].
    last_dispatch: Option<(u64, Dispatch)>,
    pmc: HashMap<(i64, String), i64>,
    tracks: HashMap<(u64, i64), i64>,
    events: i64,
    span: (i64, i64),
}

impl Db {
    /// Process `pid`'s database in `staging`, open, with its tables and the rows every
    /// database has; its views come when it is finished.
    fn create(staging: &Path, out: &Path, pid: u32, dataset: &Dataset) -> Result<Db> {
        let name = format!("{pid}_results.db");
        let run = dataset.runs.get(&pid).cloned().unwrap_or_default();
        let (command, start, end) = (run.command.clone(), run.start_ns, run.end_ns);
        let identity = Identity::new(start.unwrap_or(0).max(0) as u64, u64::from(pid));
        let mut db = Db {
            conn: None,
            identity,
            expanded: Default::default(),
            path: staging.join(&name),
            dispatches: staging.join(format!(".{pid}.dispatches")),
            shown: out.join(&name).display().to_string(),
            pid,
            nid: 1,
            strings: HashMap::new(),
            next_string: 1,
            threads: BTreeSet::new(),
            queues: HashMap::new(),
            streams: HashMap::new(),
            agents: HashMap::new(),
            symbols: HashMap::new(),
            code_objects: BTreeSet::new(),
            last_dispatch: None,
            pmc: HashMap::new(),
            tracks: HashMap::new(),
            events: 0,
            span: (start.unwrap_or(i64::MAX), end.unwrap_or(i64::MIN)),
        };
        db.open()?;
        db.schema(|file| file == "rocpd_tables.sql")?;
        db.sql(
            "CREATE TABLE dispatches.rocprof_rs_dispatch (dispatch_id INTEGER PRIMARY KEY, event INTEGER, \
             kernel_id INTEGER, name TEXT, agent INTEGER, correlation INTEGER)",
            [],
        )?;
        db.string("")?;
        // The host is the node's name; a job's rank, local rank and world size are the
        // process's extdata, where rocpd keeps what its columns do not name.
        db.sql(
            "INSERT INTO rocpd_info_node{t} (id, hash, machine_id, hostname) VALUES (?1, ?1, ?2, ?3)",
            params![db.nid, run.host.as_deref().unwrap_or("unknown"), run.host],
        )?;
        db.sql(
            "INSERT INTO rocpd_info_process{t} (id, nid, pid, command, extdata) VALUES (?1, ?2, ?1, ?3, ?4)",
            params![pid, db.nid, command, Value::Object(run.origin_fields()).to_string()],
        )?;
        db.queue(0)?;
        db.stream(0)?;
        let mut per_type: HashMap<Option<&str>, i64> = HashMap::new();
        for agent in dataset.agents.iter().filter(|a| a.pid == pid) {
            let index = per_type.entry(agent.column_type()).or_default();
            db.agent(agent, *index, false)?;
            *index += 1;
        }
        Ok(db)
    }

    fn error(&self, what: impl Into<String>, source: rusqlite::Error) -> Error {
        Error::Database { path: self.shown.clone(), what: what.into(), source }
    }

    /// Opens the database and the dispatches' file beside it, in a transaction. Neither is
    /// journaled nor synced: a failure discards the staging folder they are in.
    fn open(&mut self) -> Result<()> {
        let conn = Connection::open(&self.path).map_err(|e| self.error("opening", e))?;
        conn.execute_batch(&format!(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -{CACHE_KIB}; \
             PRAGMA temp_store = FILE;"
        ))
        .map_err(|e| self.error("opening", e))?;
        conn.execute("ATTACH DATABASE ?1 AS dispatches", [self.dispatches.as_os_str().to_string_lossy()])
            .map_err(|e| self.error("opening its dispatches", e))?;
        conn.execute_batch("PRAGMA dispatches.journal_mode = OFF; PRAGMA dispatches.synchronous = OFF; BEGIN")
            .map_err(|e| self.error("opening its dispatches", e))?;
        self.conn = Some(conn);
        Ok(())
    }

    /// Commits and closes the database, keeping what is needed to open it again; the caches
    /// go, so that a closed database holds little memory.
    fn close(&mut self) -> Result<()> {
        self.sql("COMMIT", [])?;
        // New maps, not cleared ones: a cleared map keeps its capacity.
        self.expanded = Default::default();
        self.strings = HashMap::new();
        self.symbols = HashMap::new();
        if let Some(conn) = self.conn.take() {
            conn.close().map_err(|(_, e)| self.error("closing", e))?;
        }
        Ok(())
    }

    /// Runs the schema files `which` accepts.
    fn schema(&self, which: impl Fn(&str) -> bool) -> Result<()> {
        for (file, sql) in self.identity.schema().filter(|(file, _)| which(file)) {
            self.conn().execute_batch(&sql).map_err(|e| self.error(format!("running {file}"), e))?;
        }
        Ok(())
    }

    fn conn(&self) -> &Connection {
        self.conn.as_ref().expect("Databases opens a database before its rows are written")
    }

    /// Runs `template` with `{t}` as this database's table suffix: the views take no INSERT,
    /// so rows go to the suffixed tables, as rocprofv3 writes them.
    fn sql(&self, template: &'static str, params: impl rusqlite::Params) -> Result<usize> {
        let sql = self
            .expanded
            .borrow_mut()
            .entry(template)
            .or_insert_with(|| template.replace("{t}", &self.identity.suffix).into())
            .clone();
        let result = self.conn().prepare_cached(&sql).and_then(|mut s| s.execute(params));
        result.map_err(|source| self.error(template, source))
    }

    /// A query's one row, or `None`.
    fn query<T>(
        &self,
        template: &'static str,
        params: impl rusqlite::Params,
        row: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Option<T>> {
        let sql = self
            .expanded
            .borrow_mut()
            .entry(template)
            .or_insert_with(|| template.replace("{t}", &self.identity.suffix).into())
            .clone();
        let result = self.conn().prepare_cached(&sql).and_then(|mut s| s.query_row(params, row).optional());
        result.map_err(|source| self.error(template, source))
    }

    fn string(&mut self, text: &str) -> Result<i64> {
        if let Some(&id) = self.strings.get(text) {
            return Ok(id);
        }
        let known = self.query("SELECT id FROM rocpd_string{t} WHERE string = ?1", params![text], |r| r.get(0))?;
        let id = match known {
            Some(id) => id,
            None => {
                let id = self.next_string;
                self.sql("INSERT INTO rocpd_string{t} (id, string) VALUES (?1, ?2)", params![id, text])?;
                self.next_string += 1;
                id
            }
        };
        if self.strings.len() >= STRINGS_CACHED {
            self.strings.clear();
        }
        self.strings.insert(text.to_owned(), id);
        Ok(id)
    }

    fn thread(&mut self, tid: u64) -> Result<i64> {
        if self.threads.insert(tid) {
            self.sql(
                "INSERT INTO rocpd_info_thread{t} (id, nid, pid, tid) VALUES (?1, ?2, ?3, ?1)",
                params![int(tid), self.nid, self.pid],
            )?;
        }
        Ok(int(tid))
    }

    fn queue(&mut self, handle: u64) -> Result<i64> {
        if !self.queues.contains_key(&handle) {
            let name =
                if handle == 0 { "Default Queue".to_owned() } else { format!("Queue {}", self.queues.len() - 1) };
            self.sql(
                "INSERT INTO rocpd_info_queue{t} (id, nid, pid, name) VALUES (?1, ?2, ?3, ?4)",
                params![int(handle), self.nid, self.pid, name],
            )?;
            self.queues.insert(handle, ());
        }
        Ok(int(handle))
    }

    fn stream(&mut self, id: i64) -> Result<i64> {
        if !self.streams.contains_key(&id) {
            let name = if id == 0 { "Default Stream".to_owned() } else { format!("Stream {}", self.streams.len() - 1) };
            self.sql(
                "INSERT INTO rocpd_info_stream{t} (id, nid, pid, name) VALUES (?1, ?2, ?3, ?4)",
                params![id, self.nid, self.pid, name],
            )?;
            self.streams.insert(id, ());
        }
        Ok(id)
    }

    fn agent(&mut self, a: &AgentRow, type_index: i64, synthesized: bool) -> Result<i64> {
        // rocpd keys agents by node id; one that is taken (an import's made-up agents) gets the
        // next free one, and the handle in extdata says which agent it is.
        let mut id = i64::from(a.node_id);
        while self.agents.values().any(|&v| v == id) {
            id += 1;
        }
        let empty = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        self.sql(
            "INSERT INTO rocpd_info_agent{t} (id, nid, pid, type, absolute_index, logical_index, type_index, uuid, \
             name, model_name, vendor_name, product_name, user_name, extdata) \
             VALUES (?1, ?2, ?3, ?4, ?1, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12)",
            params![
                id,
                self.nid,
                self.pid,
                a.column_type(),
                a.logical_index,
                type_index,
                a.device_id,
                empty(&a.name),
                a.model_name,
                a.vendor_name,
                a.product_name,
                a.extdata(type_index, synthesized).to_string()
            ],
        )?;
        self.agents.insert(a.agent_id, id);
        Ok(id)
    }

    /// The node id of agent `handle`, making one up where the dataset has no such agent.
    fn agent_of(&mut self, handle: u64) -> Result<i64> {
        match self.agents.get(&handle) {
            Some(&id) => Ok(id),
            None => {
                let made_up = AgentRow {
                    agent_id: handle,
                    node_id: handle.min(u64::from(u32::MAX)) as u32,
                    logical_index: -1,
                    agent_type: "UNKNOWN".into(),
                    name: format!("Agent {handle}"),
                    pid: self.pid,
                    ..AgentRow::default()
                };
                self.agent(&made_up, 0, true)
            }
        }
    }

    fn symbol(&mut self, s: &Symbol, synthesized: bool) -> Result<()> {
        if self.code_objects.insert(s.code_object_id) {
            self.sql(
                "INSERT INTO rocpd_info_code_object{t} (id, nid, pid) VALUES (?1, ?2, ?3)",
                params![int(s.code_object_id), self.nid, self.pid],
            )?;
        }
        let mut base = Map::new();
        base.insert("kernel_id".into(), json!(s.kernel_id));
        base.insert("code_object_id".into(), json!(s.code_object_id));
        base.insert("kernel_name".into(), json!(&*s.mangled));
        base.insert("formatted_kernel_name".into(), json!(&*s.name));
        base.insert("demangled_kernel_name".into(), json!(&*s.name));
        base.insert("truncated_kernel_name".into(), json!(rocprof_rs_format::kernel_names::truncated(&s.name)));
        let mut extra = Map::new();
        if synthesized {
            extra.insert("synthesized".into(), json!(true));
        }
        self.sql(
            "INSERT INTO rocpd_info_kernel_symbol{t} (id, nid, pid, code_object_id, kernel_name, display_name, \
             kernarg_segment_size, group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count, \
             accum_vgpr_count, extdata) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                int(s.kernel_id),
                self.nid,
                self.pid,
                int(s.code_object_id),
                &*s.mangled,
                &*s.name,
                s.kernarg,
                s.lds,
                s.scratch,
                s.sgpr,
                s.vgpr,
                s.accum,
                extdata(base, extra)
            ],
        )?;
        self.remember_symbol(s.clone());
        Ok(())
    }

    fn remember_symbol(&mut self, s: Symbol) {
        if self.symbols.len() >= SYMBOLS_CACHED {
            self.symbols.clear();
        }
        self.symbols.insert(s.kernel_id, s);
    }

    /// The kernel symbol `kernel_id`, if one was written.
    fn symbol_of(&mut self, kernel_id: u64) -> Result<Option<Symbol>> {
        if let Some(s) = self.symbols.get(&kernel_id) {
            return Ok(Some(s.clone()));
        }
        let found = self.query(
            "SELECT code_object_id, display_name, kernel_name, kernarg_segment_size, group_segment_size, \
             private_segment_size, sgpr_count, arch_vgpr_count, accum_vgpr_count FROM rocpd_info_kernel_symbol{t} \
             WHERE id = ?1",
            params![int(kernel_id)],
            |r| {
                Ok(Symbol {
                    kernel_id,
                    code_object_id: r.get::<_, i64>(0)? as u64,
                    name: r.get::<_, String>(1)?.into(),
                    mangled: r.get::<_, String>(2)?.into(),
                    kernarg: r.get(3)?,
                    lds: r.get(4)?,
                    scratch: r.get(5)?,
                    sgpr: r.get(6)?,
                    vgpr: r.get(7)?,
                    accum: r.get(8)?,
                })
            },
        )?;
        if let Some(s) = &found {
            self.remember_symbol(s.clone());
        }
        Ok(found)
    }

    /// A new event; its id is the next in this database, as rocprofv3 numbers them.
    fn event(
        &mut self,
        category: &str,
        stack: u64,
        parent: u64,
        correlation: u64,
        data: Option<String>,
    ) -> Result<i64> {
        let category = self.string(category)?;
        self.events += 1;
        self.sql(
            "INSERT INTO rocpd_event{t} (id, category_id, stack_id, parent_stack_id, correlation_id, extdata) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![self.events, category, int(stack), int(parent), int(correlation), data.as_deref().unwrap_or("{}")],
        )?;
        Ok(self.events)
    }

    fn widen(&mut self, start: i64, end: i64) {
        self.span = (self.span.0.min(start), self.span.1.max(end));
    }

    fn dispatch(&mut self, r: &Row) -> Result<()> {
        let kernel_id = r.u64("kernel_id")?;
        let name: Arc<str> = r.text("kernel_name")?.into();
        let mangled: Arc<str> = r.text("mangled_name")?.into();
        let (vgpr, accum, sgpr, kernarg) =
            (r.i64("regs")?, r.i64("accum_vgpr")?, r.i64("sgpr")?, r.i64("kernarg_size")?);
        if self.symbol_of(kernel_id)?.is_none() {
            let symbol = Symbol {
                kernel_id,
                code_object_id: 0,
                name: name.clone(),
                mangled: mangled.clone(),
                kernarg,
                lds: 0,
                scratch: 0,
                sgpr,
                vgpr,
                accum,
            };
            self.symbol(&symbol, true)?;
        }
        let s = self
            .symbol_of(kernel_id)?
            .ok_or_else(|| Error::Invalid(format!("kernel {kernel_id}: written, then not found")))?;
        let mut extra = Map::new();
        if *s.name != *name {
            extra.insert("kernel_name".into(), json!(&*name));
        }
        if *s.mangled != *mangled {
            extra.insert("mangled_name".into(), json!(&*mangled));
        }
        for (key, ours, theirs) in [
            ("regs", vgpr, s.vgpr),
            ("accum_vgpr", accum, s.accum),
            ("sgpr", sgpr, s.sgpr),
            ("kernarg_size", kernarg, s.kernarg),
        ] {
            if ours != theirs {
                extra.insert(key.into(), json!(ours));
            }
        }
        if let Some(pipe) = r.opt("pipe_id")? {
            extra.insert("pipe_id".into(), json!(pipe));
        }
        let stream_id = r.opt_i32("stream_id")?;
        if stream_id.is_none() {
            extra.insert("no_stream".into(), json!(true));
        }
        let (start, end) = (r.i64("start_ns")?, r.i64("end_ns")?);
        let launch = KernelLaunch {
            dispatch_id: r.u64("dispatch_id")?,
            kernel_id,
            agent_id: r.u64("agent_id")?,
            queue_id: r.u64("queue_id")?,
            stream_id,
            thread_id: r.u64("thread_id")?,
            start_ns: start,
            end_ns: end,
            shared_mem: r.i32("shared_mem")?,
            scratch_size: r.i32("scratch_size")?,
            block: [r.i32("block_x")?, r.i32("block_y")?, r.i32("block_z")?],
            grid: [r.i64("grid_x")?, r.i64("grid_y")?, r.i64("grid_z")?],
            correlation_id: r.u64("correlation_id")?,
            external_id: r.u64("external_id")?,
            ..KernelLaunch::default()
        };
        self.write_dispatch(&launch, name, extra)
    }

    /// Writes a dispatch; a launch without a stream is written to stream 0.
    fn write_dispatch(&mut self, d: &KernelLaunch, name: Arc<str>, extra: Map<String, Value>) -> Result<()> {
        let tid = self.thread(d.thread_id)?;
        let stream = i64::from(d.stream_id.unwrap_or(0));
        let (agent, queue, stream) = (self.agent_of(d.agent_id)?, self.queue(d.queue_id)?, self.stream(stream)?);
        let region = self.string("")?;
        let event = self.event("KERNEL_DISPATCH", d.correlation_id, d.correlation_id, d.external_id, None)?;
        self.sql(
            "INSERT INTO rocpd_kernel_dispatch{t} (nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, \
             start, end, private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, \
             workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id, event_id, extdata) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
            params![
                self.nid,
                self.pid,
                tid,
                agent,
                int(d.kernel_id),
                int(d.dispatch_id),
                queue,
                stream,
                d.start_ns,
                d.end_ns,
                d.scratch_size,
                d.shared_mem,
                d.block[0],
                d.block[1],
                d.block[2],
                d.grid[0],
                d.grid[1],
                d.grid[2],
                region,
                event,
                extdata(Map::new(), extra)
            ],
        )?;
        if d.end_ns > d.start_ns || d.start_ns != 0 {
            self.widen(d.start_ns, d.end_ns);
        }
        self.sql(
            "INSERT OR REPLACE INTO dispatches.rocprof_rs_dispatch (dispatch_id, event, kernel_id, name, agent, correlation) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![int(d.dispatch_id), event, int(d.kernel_id), &*name, int(d.agent_id), int(d.correlation_id)],
        )?;
        let dispatch =
            Dispatch { event, kernel_id: d.kernel_id, name, agent: d.agent_id, correlation: d.correlation_id };
        self.last_dispatch = Some((d.dispatch_id, dispatch));
        Ok(())
    }

    /// The dispatch `dispatch_id`, if one was written.
    fn dispatch_of(&mut self, dispatch_id: u64) -> Result<Option<Dispatch>> {
        if let Some((id, d)) = &self.last_dispatch
            && *id == dispatch_id
        {
            return Ok(Some(d.clone()));
        }
        let found = self.query(
            "SELECT event, kernel_id, name, agent, correlation FROM dispatches.rocprof_rs_dispatch WHERE dispatch_id = ?1",
            params![int(dispatch_id)],
            |r| {
                Ok(Dispatch {
                    event: r.get(0)?,
                    kernel_id: r.get::<_, i64>(1)? as u64,
                    name: r.get::<_, String>(2)?.into(),
                    agent: r.get::<_, i64>(3)? as u64,
                    correlation: r.get::<_, i64>(4)? as u64,
                })
            },
        )?;
        if let Some(d) = &found {
            self.last_dispatch = Some((dispatch_id, d.clone()));
        }
        Ok(found)
    }

    fn counter(&mut self, r: &Row) -> Result<()> {
        let dispatch_id = r.u64("dispatch_id")?;
        let (kernel_id, name, agent) = (r.u64("kernel_id")?, r.text("kernel_name")?, r.u64("agent_id")?);
        let correlation = r.u64("correlation_id")?;
        if self.dispatch_of(dispatch_id)?.is_none() {
            // Counted without kernel tracing: rocpd reaches counters only through a dispatch, so
            // one is made, as rocprofv3 makes them, and dropped again on import.
            if self.symbol_of(kernel_id)?.is_none() {
                let symbol = Symbol {
                    kernel_id,
                    code_object_id: 0,
                    name: name.as_str().into(),
                    mangled: name.as_str().into(),
                    kernarg: 0,
                    lds: 0,
                    scratch: 0,
                    sgpr: 0,
                    vgpr: 0,
                    accum: 0,
                };
                self.symbol(&symbol, true)?;
            }
            let launch = KernelLaunch {
                dispatch_id,
                kernel_id,
                agent_id: agent,
                correlation_id: correlation,
                ..KernelLaunch::default()
            };
            let mut extra = Map::new();
            extra.insert("synthesized".into(), json!(true));
            self.write_dispatch(&launch, name.as_str().into(), extra)?;
        }
        let d = self
            .dispatch_of(dispatch_id)?
            .ok_or_else(|| Error::Invalid(format!("dispatch {dispatch_id}: written, then not found")))?;
        let mut extra = Map::new();
        extra.insert("counter_group".into(), json!(r.u64("counter_group")?));
        extra.insert("instances".into(), json!(r.u64("instances")?));
        if let Some(instance) = r.opt("instance")? {
            extra.insert("instance".into(), json!(instance));
        }
        if d.kernel_id != kernel_id {
            extra.insert("kernel_id".into(), json!(kernel_id));
        }
        if *d.name != *name {
            extra.insert("kernel_name".into(), json!(name));
        }
        if d.agent != agent {
            extra.insert("agent_id".into(), json!(agent));
        }
        if d.correlation != correlation {
            extra.insert("correlation_id".into(), json!(correlation));
        }
        let event = d.event;
        let node = self.agent_of(agent)?;
        let counter = r.text("counter")?;
        let pmc = match self.pmc.get(&(node, counter.clone())) {
            Some(&id) => id,
            None => {
                let id = self.pmc.len() as i64 + 1;
                self.sql(
                    "INSERT INTO rocpd_info_pmc{t} (id, nid, pid, agent_id, target_arch, name, symbol, component, \
                     value_type) VALUES (?1, ?2, ?3, ?4, 'GPU', ?5, ?5, 'rocm', 'ABS')",
                    params![id, self.nid, self.pid, node, counter],
                )?;
                self.pmc.insert((node, counter), id);
                id
            }
        };
        self.sql(
            "INSERT INTO rocpd_pmc_event{t} (event_id, pmc_id, value, extdata) VALUES (?1, ?2, ?3, ?4)",
            params![event, pmc, r.f64("value")?, extdata(Map::new(), extra)],
        )?;
        Ok(())
    }

    fn api(&mut self, table: Table, r: &Row) -> Result<()> {
        let function = r.text("operation")?;
        let category = super::rocprofv3::domain(table, &function);
        let (correlation, ancestor) = (r.u64("correlation_id")?, r.u64("ancestor_id")?);
        let event = self.event(category, correlation, ancestor, 0, None)?;
        self.region(r.u64("thread_id")?, r.i64("start_ns")?, r.i64("end_ns")?, &function, event)
    }

    fn region(&mut self, thread: u64, start: i64, end: i64, name: &str, event: i64) -> Result<()> {
        let (tid, name) = (self.thread(thread)?, self.string(name)?);
        self.sql(
            "INSERT INTO rocpd_region{t} (nid, pid, tid, start, end, name_id, event_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![self.nid, self.pid, tid, start, end, name, event],
        )?;
        self.widen(start, end);
        Ok(())
    }

    /// A ROCTx range is a region named by its operation; a mark (`roctxMarkA`) is a sample on
    /// the thread's marker track, as rocprofv3 files them. The text is `extdata.message`.
    fn marker(&mut self, r: &Row) -> Result<()> {
        let (message, operation) = (r.text("message")?, r.text("operation")?);
        let (start, end, thread) = (r.i64("start_ns")?, r.i64("end_ns")?, r.u64("thread_id")?);
        let category = if operation.starts_with("MARKER_") { operation.as_str() } else { "MARKER_CORE_RANGE_API" };
        let mark = operation == "roctxMarkA" || (operation.starts_with("MARKER_") && start == end);
        let name = if operation.starts_with("MARKER_") { "roctxMarkA" } else { operation.as_str() };
        let mut base = Map::new();
        if !message.is_empty() {
            base.insert("message".into(), json!(message));
        }
        let mut extra = Map::new();
        if operation.starts_with("MARKER_") || (mark && operation != "roctxMarkA") {
            extra.insert("operation".into(), json!(operation));
        }
        if let Some(depth) = r.opt("depth")? {
            extra.insert("depth".into(), json!(depth));
        }
        if mark && start != end {
            extra.insert("end_ns".into(), json!(end));
        }
        let correlation = r.u64("correlation_id")?;
        let event = self.event(category, correlation, correlation, 0, Some(extdata(base, extra)))?;
        if !mark {
            return self.region(thread, start, end, name, event);
        }
        let tid = self.thread(thread)?;
        let track_name = self.string(category)?;
        let track = match self.tracks.get(&(thread, track_name)) {
            Some(&t) => t,
            None => {
                let id = self.tracks.len() as i64 + 1;
                self.sql(
                    "INSERT INTO rocpd_track{t} (id, nid, pid, tid, name_id) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![id, self.nid, self.pid, tid, track_name],
                )?;
                self.tracks.insert((thread, track_name), id);
                id
            }
        };
        self.sql(
            "INSERT INTO rocpd_sample{t} (track_id, timestamp, event_id) VALUES (?1, ?2, ?3)",
            params![track, start, event],
        )?;
        self.widen(start, end);
        Ok(())
    }

    /// A GPU's device samples, as rocprofiler-systems files its AMD SMI samples: per metric a
    /// track (named as its are: `device_power`, `device_temp`, `device_memory_usage`, and ours
    /// beside them) with no thread, per GPU and metric a `rocpd_info_pmc` row on the GPU's
    /// agent, and per sample one event (category `amd_smi` or `nvml`) holding each metric's
    /// `rocpd_pmc_event` value and a `rocpd_sample` on its track.
    fn device_samples(&mut self, device_index: u32, series: &crate::telemetry::series::Series) -> Result<()> {
        let category = if series.library == "nvml" { "nvml" } else { "amd_smi" };
        // A GPU the process did not use has no agent row: its pmc rows have none, and are kept
        // apart by a key no agent has.
        let node = match series.agent_id {
            Some(agent) => Some(self.agent_of(agent)?),
            None => None,
        };
        let key = node.unwrap_or(-1 - i64::from(device_index));
        let extra = json!({"device_index": device_index, "device_uuid": series.device_uuid, "library": series.library})
            .to_string();
        let mut ids = Vec::with_capacity(DEVICE_METRICS.len());
        for metric in &DEVICE_METRICS {
            let pmc = match self.pmc.get(&(key, metric.name.to_owned())) {
                Some(&id) => id,
                None => {
                    let id = self.pmc.len() as i64 + 1;
                    self.sql(
                        "INSERT INTO rocpd_info_pmc{t} (id, nid, pid, agent_id, target_arch, name, symbol, description, \
                         component, units, value_type, extdata) VALUES (?1, ?2, ?3, ?4, 'GPU', ?5, ?6, ?7, ?8, ?9, 'ABS', ?10)",
                        params![id, self.nid, self.pid, node, metric.name, metric.symbol, metric.description, category, metric.units, extra],
                    )?;
                    self.pmc.insert((key, metric.name.to_owned()), id);
                    id
                }
            };
            let name = self.string(metric.name)?;
            let track = match self.tracks.get(&(DEVICE_TRACK, name)) {
                Some(&t) => t,
                None => {
                    let id = self.tracks.len() as i64 + 1;
                    self.sql(
                        "INSERT INTO rocpd_track{t} (id, nid, pid, tid, name_id) VALUES (?1, ?2, ?3, NULL, ?4)",
                        params![id, self.nid, self.pid, name],
                    )?;
                    self.tracks.insert((DEVICE_TRACK, name), id);
                    id
                }
            };
            ids.push((pmc, track));
        }
        for sample in &series.samples {
            let values: Vec<(usize, f64)> =
                DEVICE_METRICS.iter().enumerate().filter_map(|(i, m)| Some((i, (m.read)(sample)?))).collect();
            if values.is_empty() {
                continue;
            }
            let event = self.event(category, 0, 0, 0, None)?;
            for (i, value) in values {
                let (pmc, track) = ids[i];
                self.sql(
                    "INSERT INTO rocpd_pmc_event{t} (event_id, pmc_id, value) VALUES (?1, ?2, ?3)",
                    params![event, pmc, value],
                )?;
                self.sql(
                    "INSERT INTO rocpd_sample{t} (track_id, timestamp, event_id) VALUES (?1, ?2, ?3)",
                    params![track, sample.time_ns, event],
                )?;
            }
            self.widen(sample.time_ns, sample.time_ns);
        }
        Ok(())
    }

    fn copy(&mut self, r: &Row) -> Result<()> {
        let tid = self.thread(r.u64("thread_id")?)?;
        let (src, dst) = (self.agent_of(r.u64("src_agent_id")?)?, self.agent_of(r.u64("dst_agent_id")?)?);
        let name = self.string(&r.text("operation")?)?;
        let correlation = r.u64("correlation_id")?;
        let event = self.event("MEMORY_COPY", correlation, correlation, 0, None)?;
        let (start, end) = (r.i64("start_ns")?, r.i64("end_ns")?);
        self.sql(
            "INSERT INTO rocpd_memory_copy{t} (nid, pid, tid, start, end, name_id, dst_agent_id, dst_address, \
             src_agent_id, src_address, size, stream_id, event_id) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 0, ?12)",
            params![
                self.nid,
                self.pid,
                tid,
                start,
                end,
                name,
                dst,
                int(r.u64("dst_address")?),
                src,
                int(r.u64("src_address")?),
                int(r.u64("bytes")?),
                event
            ],
        )?;
        self.widen(start, end);
        Ok(())
    }

    fn allocation(&mut self, r: &Row) -> Result<()> {
        let operation = r.text("operation")?;
        let (kind, level) = match operation.as_str() {
            "MEMORY_ALLOCATION_ALLOCATE" => (Some("ALLOC"), "REAL"),
            "MEMORY_ALLOCATION_FREE" => (Some("FREE"), "REAL"),
            "MEMORY_ALLOCATION_VMEM_ALLOCATE" => (Some("ALLOC"), "VIRTUAL"),
            "MEMORY_ALLOCATION_VMEM_FREE" => (Some("FREE"), "VIRTUAL"),
            _ => (None, "REAL"),
        };
        let memory = Memory { category: "MEMORY_ALLOCATION", kind, level, operation: &operation, queue: 0 };
        self.memory(r, memory, r.u64("address")?, Map::new())
    }

    fn scratch(&mut self, r: &Row) -> Result<()> {
        let operation = r.text("operation")?;
        let kind = match operation.as_str() {
            "SCRATCH_MEMORY_ALLOC" => Some("ALLOC"),
            "SCRATCH_MEMORY_FREE" => Some("FREE"),
            "SCRATCH_MEMORY_ASYNC_RECLAIM" => Some("RECLAIM"),
            _ => None,
        };
        let queue = self.queue(r.u64("queue_id")?)?;
        let mut base = Map::new();
        base.insert("flags".into(), json!(r.u64("flags")?.to_string()));
        let memory = Memory { category: "SCRATCH_MEMORY", kind, level: "SCRATCH", operation: &operation, queue };
        self.memory(r, memory, 0, base)
    }

    fn memory(&mut self, r: &Row, m: Memory, address: u64, base: Map<String, Value>) -> Result<()> {
        let tid = self.thread(r.u64("thread_id")?)?;
        let agent = self.agent_of(r.u64("agent_id")?)?;
        let mut extra = Map::new();
        if m.kind.is_none() {
            extra.insert("operation".into(), json!(m.operation));
        }
        let correlation = r.u64("correlation_id")?;
        let event = self.event(m.category, correlation, correlation, 0, None)?;
        let (start, end) = (r.i64("start_ns")?, r.i64("end_ns")?);
        self.sql(
            "INSERT INTO rocpd_memory_allocate{t} (nid, pid, tid, agent_id, type, level, start, end, address, size, \
             queue_id, stream_id, event_id, extdata) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 0, ?12, ?13)",
            params![
                self.nid,
                self.pid,
                tid,
                agent,
                m.kind,
                m.level,
                start,
                end,
                int(address),
                int(r.u64("bytes")?),
                m.queue,
                event,
                extdata(base, extra)
            ],
        )?;
        self.widen(start, end);
        Ok(())
    }

    /// Sets the process's span, adds rocpd's views, commits and closes the database, and
    /// removes its dispatches' file; returns its events.
    fn finish(&mut self) -> Result<u64> {
        let (start, end) =
            if self.span.0 <= self.span.1 { (Some(self.span.0), Some(self.span.1)) } else { (None, None) };
        let pid = self.pid;
        self.sql(
            "UPDATE rocpd_info_process{t} SET init = ?1, start = ?1, fini = ?2, end = ?2 WHERE id = ?3",
            params![start, end, pid],
        )?;
        self.schema(|file| file != "rocpd_tables.sql")?;
        self.close()?;
        std::fs::remove_file(&self.dispatches)
            .map_err(|source| Error::Io { path: self.dispatches.display().to_string(), source })?;
        Ok(self.events as u64)
    }
}

/// What a memory row needs beyond its columns.
struct Memory<'a> {
    category: &'static str,
    kind: Option<&'static str>,
    level: &'static str,
    operation: &'a str,
    queue: i64,
}
