//! Records to table rows, on the writer thread: names resolved, kernel filters applied, rows
//! buffered per table and written as a row group when a table has enough of them.

use rocprof_rs_format::Table;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::path::PathBuf;
use std::sync::Arc;

use parquet::file::metadata::KeyValue;

use super::counter_rows::CounterRows;
use super::kernels::Kernel;
use super::records::{Api, OwnRecord, OwnRow, Record, RowContext, Symbol, Tally};
use super::run::OperationNames;
use super::summary::Summary;
use crate::config::Config;
use crate::error::{Error, Result};
use rocprof_rs_format::columns::AddressHasher;
use rocprof_rs_format::files::TableFiles;
use rocprof_rs_format::keys;
use rocprof_rs_format::launch::{KernelFacts, KernelLaunch as Launch};
use rocprof_rs_format::writer::{AnyTableWriter, TableWriter};
use rocprof_rs_format::{self as tables, kernel_names};

/// Rows a table buffers before handing them to its Parquet writer.
const WRITE_ROWS: usize = 8192;

/// Every table writer of [`Tables`], listed once, as shared or (`mut`) mutable references.
macro_rules! every_writer {
    ($tables:expr $(, $mutable:tt)?) => {{
        let t = $tables;
        let mut all: Vec<&$($mutable)? dyn AnyTableWriter> = vec![
            &$($mutable)? t.dispatch,
            &$($mutable)? t.copy,
            &$($mutable)? t.scratch,
            &$($mutable)? t.allocation,
            &$($mutable)? t.marker,
            &$($mutable)? t.symbol,
            &$($mutable)? t.agent,
            &$($mutable)? t.process,
            &$($mutable)? t.counters.values,
            &$($mutable)? t.counters.kernels,
            &$($mutable)? t.devices.writer,
            &$($mutable)? t.pc.writer,
        ];
        for api in &$($mutable)? t.apis {
            all.push(api);
        }
        for other in &$($mutable)? t.others {
            all.push(&$($mutable)? **other);
        }
        all
    }};
}

/// The per-table column buffers and files.
pub struct Tables {
    config: Config,
    pid: u32,
    operations: OperationNames,
    kernels: HashMap<u64, Kernel, BuildHasherDefault<AddressHasher>>,
    /// Dispatches seen per kernel display name, for the iteration range.
    iterations: HashMap<Arc<str>, u64>,
    filtered: u64,
    /// In a forked child, when it was born: records that started earlier are the parent's.
    born_ns: u64,
    inherited: u64,
    /// The `vendor` column's value: one backend per process.
    vendor: Arc<str>,
    /// Which of `apis` each of the backend's API kinds fills.
    api_tables: Vec<(u32, usize)>,
    /// The backend's own counts, for the run metadata.
    tallies: std::collections::BTreeMap<&'static str, u64>,
    /// Windows recorded so far, and their time together.
    windows: (u64, u64),
    /// When the run started (its metadata's start), what the windows' share is of.
    started_ns: u64,
    /// What these tables were made from, for tables of the same run elsewhere (a dump's).
    kept: (super::run::Seed, Agents),
    /// Further objects of the run's metadata file, by key (a dump's trigger).
    notes: Vec<(String, String)>,
    metadata_path: PathBuf,
    static_metadata: Vec<KeyValue>,
    dispatch: TableWriter<tables::KernelDispatch>,
    /// One writer per table of [`Table::API_CALLS`], in its order.
    apis: [TableWriter<tables::ApiCall>; 4],
    /// The tables of [`Record::Row`]s: every table of the format the fields here do not hold.
    others: Vec<Box<dyn AnyTableWriter + Send>>,
    copy: TableWriter<tables::MemoryCopy>,
    scratch: TableWriter<tables::ScratchMemory>,
    allocation: TableWriter<tables::MemoryAllocation>,
    marker: TableWriter<tables::Marker>,
    symbol: TableWriter<tables::KernelSymbol>,
    agent: TableWriter<tables::Agent>,
    process: TableWriter<tables::Process>,
    counters: CounterRows,
    devices: super::device_rows::DeviceRows,
    pc: super::pc_rows::PcRows,
}

impl std::fmt::Debug for Tables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tables").field("pid", &self.pid).field("kernels", &self.kernels.len()).finish()
    }
}

/// An operation's name; an id the backend did not name is kept visible rather than guessed.
fn op_name(names: &OperationNames, kind: u32, operation: i32) -> &Arc<str> {
    static UNKNOWN: std::sync::LazyLock<Arc<str>> = std::sync::LazyLock::new(|| Arc::from("UNKNOWN_OPERATION"));
    names.get(&(kind, operation)).unwrap_or(&UNKNOWN)
}

fn dur(start: u64, end: u64) -> i64 {
    end.saturating_sub(start) as i64
}

/// What builds the agent table, once per set of tables (a flight recorder's dumps each have
/// their own): the backend's agents, known when it starts.
pub type Agents = Arc<dyn Fn() -> tables::Agent + Send + Sync>;

/// No agents known at the start (for a backend that names its GPUs in its records instead).
pub fn no_agents() -> Agents {
    Arc::new(tables::Agent::default)
}

impl Tables {
    /// Tables for `config`, with the run's metadata in every file and the agent table filled.
    /// `born_ns` is when a forked child began (0 for a process that was not forked).
    ///
    /// The file-name stem is claimed first ([`rocprof_rs_format::dataset::claim_stem`]): if
    /// another process holds `config.output_name`, these tables take the next free variant,
    /// so no two processes ever write one file.
    pub fn new(mut config: Config, seed: super::run::Seed, agents: Agents, born_ns: u64) -> Result<Tables> {
        let (stem, _claimed) = rocprof_rs_format::dataset::claim_stem(&config.output_dir, &config.output_name)?;
        config.output_name = stem;
        let kept = (seed.clone(), agents.clone());
        let super::run::Seed { operations, library, counters } = seed;
        let mut metadata = super::run::run_metadata(&config, &library);
        let counters = counters.unwrap_or_default();
        if !counters.names.is_empty() {
            metadata.push(KeyValue::new(keys::COUNTER_GROUPS.into(), counters.plan_json.clone()));
            metadata.push(KeyValue::new(keys::COUNTER_PASSES.into(), counters.passes.to_string()));
        }
        let options = config.write_options();
        let api = |i: usize| TableWriter::new(&options, Table::API_CALLS[i], metadata.clone());
        let api_tables = library
            .api_tables
            .iter()
            .filter_map(|&(kind, table)| Some((kind, Table::API_CALLS.iter().position(|&t| t == table)?)))
            .collect();
        let mut tables = Tables {
            others: Vec::new(),
            pid: std::process::id(),
            metadata_path: config.output_dir.join(keys::metadata_file_name(&config.output_name)),
            static_metadata: metadata.clone(),
            dispatch: TableWriter::new(&options, Table::KernelDispatch, metadata.clone()),
            apis: [api(0), api(1), api(2), api(3)],
            copy: TableWriter::new(&options, Table::MemoryCopy, metadata.clone()),
            scratch: TableWriter::new(&options, Table::ScratchMemory, metadata.clone()),
            allocation: TableWriter::new(&options, Table::MemoryAllocation, metadata.clone()),
            marker: TableWriter::new(&options, Table::Marker, metadata.clone()),
            symbol: TableWriter::new(&options, Table::KernelSymbol, metadata.clone()),
            agent: TableWriter::with_rows(&options, Table::Agent, metadata.clone(), agents()),
            kept,
            notes: Vec::new(),
            process: TableWriter::new(&options, Table::Process, metadata.clone()),
            counters: CounterRows::new(&config, counters.names, &metadata)
                .deferred(counters.deferred, counters.join_launches),
            devices: super::device_rows::DeviceRows::new(&options, &metadata),
            pc: super::pc_rows::PcRows::new(&options, &metadata),
            operations,
            kernels: HashMap::default(),
            iterations: HashMap::new(),
            filtered: 0,
            born_ns,
            inherited: 0,
            vendor: library.vendor.clone(),
            api_tables,
            tallies: Default::default(),
            windows: (0, 0),
            started_ns: metadata
                .iter()
                .find(|kv| kv.key == keys::START_NS)
                .and_then(|kv| kv.value.as_deref()?.parse().ok())
                .unwrap_or(0),
            config,
        };
        let held: Vec<Table> = tables.files().into_iter().map(|(table, _)| table).collect();
        tables.others = Table::ALL
            .iter()
            .filter(|table| !held.contains(table))
            .map(|table| table.writer(&options, metadata.clone()))
            .collect();
        tables.write_run_metadata(&Summary::default())?;
        Ok(tables)
    }

    /// The run's configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Empty tables of the same run under `dir` (a flight recorder's dump): the same seed,
    /// agents and stem.
    pub fn for_dump(&self, dir: &std::path::Path) -> Result<Tables> {
        let mut config = self.config.clone();
        config.output_dir = dir.to_path_buf();
        let (seed, agents) = self.kept.clone();
        Tables::new(config, seed, agents, self.born_ns)
    }

    /// Adds `json` under `key` to the run's metadata file.
    pub fn note(&mut self, key: &str, json: String) {
        self.notes.retain(|(k, _)| k != key);
        self.notes.push((key.to_owned(), json));
    }

    /// An operation's name, as the tables write it.
    pub fn operation_name(&self, kind: u32, operation: i32) -> String {
        op_name(&self.operations, kind, operation).to_string()
    }

    /// A kernel's display name, once its symbol is known.
    pub fn kernel_name(&self, kernel_id: u64) -> Option<String> {
        self.kernels.get(&kernel_id).map(|k| k.name.to_string())
    }

    /// The file-name stem these tables claimed.
    pub fn stem(&self) -> &str {
        &self.config.output_name
    }

    /// Adds a batch of records, writing row groups as tables fill.
    pub fn add(&mut self, batch: &[Record]) -> Result<()> {
        for record in batch {
            self.add_one(record);
        }
        self.write_full()
    }

    fn add_one(&mut self, record: &Record) {
        if self.born_ns > 0 && record.start_ns().is_some_and(|start| start < self.born_ns) {
            // Copied into a forked child's library buffer before the fork: the parent writes it.
            self.inherited += 1;
            return;
        }
        let pid = self.pid;
        match record {
            Record::Kernel(k) => {
                if self.pc.enabled() {
                    self.pc.launched(k.dispatch_id, k.kernel_id, k.agent_id);
                }
                if self.counters.joins_launches() {
                    self.counters.launched(k.correlation_id, k.dispatch_id, k.kernel_id, &self.kernels);
                }
                self.add_dispatch(&k.launch());
            }
            Record::Api(a) => self.add_api(a),
            Record::Copy(c) => {
                let op = op_name(&self.operations, c.kind, c.operation);
                let t = &mut self.copy.rows;
                t.push(tables::MemoryCopyRow {
                    operation: op,
                    start_ns: c.start_ns as i64,
                    end_ns: c.end_ns as i64,
                    duration_ns: dur(c.start_ns, c.end_ns),
                    bytes: c.bytes,
                    src_agent_id: c.src_agent_id,
                    dst_agent_id: c.dst_agent_id,
                    src_address: c.src_address,
                    dst_address: c.dst_address,
                    correlation_id: c.correlation_id,
                    thread_id: c.thread_id,
                    pid,
                    vendor: &self.vendor,
                    stream_id: c.stream_id.map(|s| s as i32),
                });
            }
            Record::Scratch(s) => {
                let op = op_name(&self.operations, s.kind, s.operation);
                let t = &mut self.scratch.rows;
                t.push(tables::ScratchMemoryRow {
                    operation: op,
                    start_ns: s.start_ns as i64,
                    end_ns: s.end_ns as i64,
                    duration_ns: dur(s.start_ns, s.end_ns),
                    bytes: s.bytes,
                    flags: s.flags,
                    agent_id: s.agent_id,
                    queue_id: s.queue_id,
                    correlation_id: s.correlation_id,
                    thread_id: s.thread_id,
                    pid,
                });
            }
            Record::Allocation(a) => {
                let op = op_name(&self.operations, a.kind, a.operation);
                let t = &mut self.allocation.rows;
                t.push(tables::MemoryAllocationRow {
                    operation: op,
                    start_ns: a.start_ns as i64,
                    end_ns: a.end_ns as i64,
                    duration_ns: dur(a.start_ns, a.end_ns),
                    address: a.address,
                    bytes: a.bytes,
                    agent_id: a.agent_id,
                    correlation_id: a.correlation_id,
                    thread_id: a.thread_id,
                    pid,
                });
            }
            Record::Marker(m) => self.add_marker(m),
            Record::Device(device) => self.add_device(device),
            Record::Symbol(s) => self.add_symbol(s),
            Record::CounterDispatch(h) => self.counters.header(h, &self.kernels),
            Record::CounterValue(v) => self.counters.value(v, &self.kernels),
            Record::CounterPlan(plan) => self.add_counter_plan(plan),
            Record::CounterSites(sites) => self.counters.site_launches(sites),
            Record::SampledDevice(device) => self.devices.name(device),
            Record::DeviceSample(sample) => self.devices.add(sample, pid),
            Record::PcSample(sample) => {
                if self.pc.add(sample) {
                    self.pc.flush(&self.kernels, pid, &self.vendor, false);
                }
            }
            Record::PcSampleNames(names) => self.pc.name(names),
            Record::PcInstruction(instruction) => self.pc.instruction(instruction),
            // The flight recorder's alone.
            Record::LaunchName(_) | Record::MarkerOpen(_) => {}
            Record::Tally(Tally { key, count }) => {
                self.tallies.insert(key, *count);
            }
            Record::Row(row) => {
                if let OwnRecord::WindowBounds(w) = row {
                    self.windows.0 += 1;
                    self.windows.1 += w.end_ns.saturating_sub(w.start_ns);
                }
                self.add_own_row(row.row());
            }
        }
    }

    /// A GPU's counter plan: names for its values, and the groups and passes in the run
    /// metadata (replacing what an earlier plan said).
    fn add_counter_plan(&mut self, plan: &super::records::CounterPlan) {
        self.counters.plan(plan);
        let Some((groups, passes)) = self.counters.plans_json() else { return };
        self.static_metadata.retain(|kv| kv.key != keys::COUNTER_GROUPS && kv.key != keys::COUNTER_PASSES);
        self.static_metadata.push(KeyValue::new(keys::COUNTER_GROUPS.into(), groups));
        self.static_metadata.push(KeyValue::new(keys::COUNTER_PASSES.into(), passes.to_string()));
    }

    /// Inlined into the writer's match, so the row's values go from the record into the
    /// columns with nothing in memory between them.
    #[inline(always)]
    fn add_dispatch(&mut self, d: &Launch) {
        // Borrowed, not cloned: this runs once per dispatch.
        let Some(kernel) = self.kernels.get_mut(&d.kernel_id) else {
            self.add_unannounced_dispatch(d);
            return;
        };
        if !kernel.selected || !next_iteration_selected(&self.config, &mut self.iterations, &kernel.name) {
            self.filtered += 1;
            return;
        }
        if self.counters.enabled() {
            self.counters.count_dispatch(d.kernel_id, d.agent_id);
        }
        let s = &kernel.symbol;
        let facts = KernelFacts {
            name: &kernel.name,
            mangled: &s.mangled,
            vgpr: s.arch_vgpr as i32,
            accum_vgpr: s.accum_vgpr as i32,
            sgpr: s.sgpr as i32,
            kernarg_size: s.kernarg_size as i32,
        };
        self.dispatch.rows.push(d.row(facts, self.pid, &self.vendor));
    }

    fn add_marker(&mut self, m: &super::records::Marker) {
        let operation = op_name(&self.operations, m.kind, m.operation);
        let t = &mut self.marker.rows;
        t.push(tables::MarkerRow {
            message: &m.message,
            operation,
            start_ns: m.start_ns as i64,
            end_ns: m.end_ns as i64,
            duration_ns: dur(m.start_ns, m.end_ns),
            depth: m.depth,
            correlation_id: m.correlation_id,
            thread_id: m.thread_id,
            pid: self.pid,
            vendor: &self.vendor,
            domain: m.domain.as_deref(),
        });
    }

    fn add_device(&mut self, d: &super::records::Device) {
        let t = &mut self.agent.rows;
        t.push(tables::AgentRow {
            agent_id: d.agent_id,
            node_id: d.index,
            logical_index: d.index as i32,
            agent_type: "GPU",
            name: &d.architecture,
            product_name: &d.product_name,
            vendor_name: d.vendor_name,
            model_name: &d.model_name,
            gfx_target_version: 0,
            cu_count: d.compute_units,
            simd_count: 0,
            simd_per_cu: 0,
            wave_front_size: d.lanes_per_wave,
            max_waves_per_cu: d.max_waves_per_compute_unit,
            num_xcc: 0,
            lds_size_kb: d.shared_memory_per_compute_unit_bytes / 1024,
            max_engine_clock_mhz: d.max_clock_mhz,
            local_mem_bytes: d.memory_bytes,
            device_id: d.index,
            pid: self.pid,
        });
    }

    fn add_own_row(&mut self, row: &dyn OwnRow) {
        let context = RowContext { pid: self.pid, vendor: &self.vendor, operations: &self.operations };
        if let Some(writer) = self.others.iter_mut().find(|w| w.table() == row.table()) {
            row.push(&mut **writer, &context);
        }
    }

    fn add_api(&mut self, a: &Api) {
        let Some(&(_, index)) = self.api_tables.iter().find(|(kind, _)| *kind == a.kind) else { return };
        let op = op_name(&self.operations, a.kind, a.operation);
        let t = &mut self.apis[index].rows;
        t.push(tables::ApiCallRow {
            operation: op,
            start_ns: a.start_ns as i64,
            end_ns: a.end_ns as i64,
            duration_ns: dur(a.start_ns, a.end_ns),
            correlation_id: a.correlation_id,
            ancestor_id: a.ancestor_id,
            thread_id: a.thread_id,
            pid: self.pid,
        });
    }

    fn add_symbol(&mut self, s: &Symbol) {
        if self.kernels.get(&s.kernel_id).is_some_and(|k| k.announced) {
            // A backend's concurrent decoders can each announce a kernel they meet first.
            return;
        }
        let name: Arc<str> =
            kernel_names::display_name(&s.mangled, self.config.demangle, self.config.truncate_kernels).into();
        let selected = self.config.kernel_include.as_ref().is_none_or(|re| re.is_match(&name))
            && !self.config.kernel_exclude.as_ref().is_some_and(|re| re.is_match(&name));
        let t = &mut self.symbol.rows;
        t.push(tables::KernelSymbolRow {
            kernel_id: s.kernel_id,
            code_object_id: s.code_object_id,
            kernel_name: &name,
            mangled_name: &s.mangled,
            kernarg_size: s.kernarg_size,
            lds_size: s.group_segment_size,
            scratch_size: s.private_segment_size,
            sgpr: s.sgpr,
            arch_vgpr: s.arch_vgpr,
            accum_vgpr: s.accum_vgpr,
            pid: self.pid,
        });
        self.kernels.insert(s.kernel_id, Kernel { name, symbol: s.clone(), selected, announced: true });
    }

    /// A dispatch of a kernel not yet known: its stand-in registered first.
    #[cold]
    #[inline(never)]
    fn add_unannounced_dispatch(&mut self, d: &Launch) {
        self.register_unannounced(d.kernel_id);
        if self.kernels.contains_key(&d.kernel_id) {
            self.add_dispatch(d);
        }
    }

    /// Registers a stand-in for a kernel the backend never announced (it always does), so its
    /// dispatches still get rows, named by id.
    #[cold]
    fn register_unannounced(&mut self, kernel_id: u64) {
        let symbol = Symbol::named(kernel_id, format!("<unregistered kernel {kernel_id}>").into());
        self.add_symbol(&symbol);
        if let Some(kernel) = self.kernels.get_mut(&kernel_id) {
            kernel.announced = false;
        }
    }

    /// Hands every table with enough rows to its writer.
    fn write_full(&mut self) -> Result<()> {
        self.write_tables(false, &[])
    }

    fn write_tables(&mut self, all: bool, closing: &[KeyValue]) -> Result<()> {
        if all {
            // A flush: the PC samples' sums so far become rows.
            self.pc.flush(&self.kernels, self.pid, &self.vendor, false);
        }
        // Rows go to the Parquet writer in small batches, which it encodes and compresses into
        // the open row group at once: memory holds a row group compressed, not as raw arrays.
        let limit = if all { 1 } else { self.config.row_group_rows.min(WRITE_ROWS) };
        let closing = || closing.to_vec();
        for writer in self.writers_mut() {
            writer.write_if(limit, &closing)?;
        }
        Ok(())
    }

    /// Rotates files open longer than the rotation period.
    pub fn rotate_due(&mut self) -> Result<()> {
        if self.config.rotate_seconds == 0 {
            return Ok(());
        }
        let closing = vec![KeyValue::new(keys::END_NS.into(), super::clock::now_ns().to_string())];
        for files in self.files_mut() {
            if files.due_by_time() {
                files.close(closing.clone())?;
            }
        }
        Ok(())
    }

    /// At the end of the run: what only the whole run gives (the per-kernel counter
    /// aggregates, the process's row), then every buffered row, and every file completed.
    pub fn finish(&mut self, closing: &[KeyValue], summary: &Summary) -> Result<()> {
        self.counters.finish(&self.kernels);
        self.pc.flush(&self.kernels, self.pid, &self.vendor, true);
        let end_ns = super::clock::now_ns();
        let json = self.run_metadata_json(summary, end_ns);
        super::process_row::push(&mut self.process, &self.static_metadata, &json, summary, end_ns);
        self.complete(closing)
    }

    /// Writes every buffered row and completes every open file.
    pub fn complete(&mut self, closing: &[KeyValue]) -> Result<()> {
        self.write_tables(true, closing)?;
        for files in self.files_mut() {
            files.close(closing.to_vec())?;
        }
        Ok(())
    }

    /// After an I/O error: forgets buffered rows, returning how many records they held (the
    /// catalog tables and the per-kernel aggregates are not records).
    pub fn abandon(&mut self) -> u64 {
        self.writers_mut()
            .into_iter()
            .filter(|w| !w.table().is_catalog() && w.table() != Table::KernelCounter)
            .map(|w| w.discard())
            .sum()
    }

    fn writers_mut(&mut self) -> Vec<&mut dyn AnyTableWriter> {
        every_writer!(self, mut)
    }

    fn files_mut(&mut self) -> Vec<&mut TableFiles> {
        self.writers_mut().into_iter().map(|w| w.files_mut()).collect()
    }

    fn files(&self) -> Vec<(Table, &TableFiles)> {
        let all: Vec<&dyn AnyTableWriter> = every_writer!(self);
        all.into_iter().map(|w| (w.table(), w.files())).collect()
    }

    /// Rows written per table, for tables the configuration traces (plus symbols and agents).
    pub fn rows_written(&self) -> Vec<(Table, u64)> {
        let traced = |table: Table| match table {
            Table::KernelSymbol | Table::Agent => true,
            Table::Counter | Table::KernelCounter => self.counters.enabled(),
            // The process's own row is no record of the run.
            Table::Process => false,
            Table::DeviceSample => self.config.device_sample_ms > 0,
            Table::PcSample => self.pc.enabled(),
            _ => self.config.domains.iter().any(|d| d.table() == table),
        };
        // A table of `Record::Row`s is reported once it has any.
        let own = |table: Table| self.others.iter().any(|w| w.table() == table);
        let reported = |table: Table, files: &TableFiles| traced(table) || (own(table) && files.rows_written > 0);
        self.files().into_iter().filter(|&(t, f)| reported(t, f)).map(|(t, f)| (t, f.rows_written)).collect()
    }

    /// Completed files.
    pub fn files_written(&self) -> usize {
        self.files().iter().map(|(_, f)| f.files.len()).sum()
    }

    /// Dispatches the filters left out.
    pub fn filtered(&self) -> u64 {
        self.filtered
    }

    /// The run's metadata as the metadata file holds it: the files' key-value metadata, the
    /// end, and the run's totals.
    fn run_metadata_json(&self, summary: &Summary, end_ns: u64) -> String {
        let mut fields: Vec<String> = self
            .static_metadata
            .iter()
            .map(|kv| format!("{:?}:{}", kv.key, json_string(kv.value.as_deref())))
            .collect();
        fields.push(format!("\"{}\":\"{}\"", keys::END_NS, end_ns));
        fields.push(format!("\"records\":{}", summary.rows_json()));
        fields.push(format!("\"dropped\":{}", summary.dropped_json()));
        fields.push(format!("\"filtered\":{}", summary.filtered));
        fields.push(format!("\"memory\":{}", summary.holding.json()));
        if self.counters.enabled() {
            fields.push(format!("\"counter_samples\":{}", self.counters.coverage_json()));
            fields.push(format!("\"counter_dispatches_incomplete\":{}", self.counters.incomplete));
            if self.counters.unjoined > 0 {
                fields.push(format!("\"counter_dispatches_unjoined\":{}", self.counters.unjoined));
            }
            if self.counters.untraced > 0 {
                fields.push(format!("\"{}\":{}", keys::COUNTER_DISPATCHES_UNTRACED, self.counters.untraced));
            }
        }
        if self.pc.enabled() {
            fields.push(format!("\"{}\":{}", keys::PC_SAMPLES, self.pc.taken));
            fields.push(format!("\"{}\":{}", keys::PC_SAMPLES_UNRESOLVED, self.pc.unresolved));
            // The library's losses, which its backend tallies; zero said rather than left out.
            let dropped = self.tallies.get(keys::PC_SAMPLES_DROPPED).copied().unwrap_or(0);
            fields.push(format!("\"{}\":{dropped}", keys::PC_SAMPLES_DROPPED));
        }
        if self.devices.unnamed > 0 {
            fields.push(format!("\"device_samples_unnamed\":{}", self.devices.unnamed));
        }
        let said = |key: &str| self.pc.enabled() && key == keys::PC_SAMPLES_DROPPED;
        for (key, count) in self.tallies.iter().filter(|&(&key, &count)| count > 0 && !said(key)) {
            fields.push(format!("{}:{count}", json_string(Some(key))));
        }
        if let Some(window) = self.config.window {
            let run_ns = end_ns.saturating_sub(self.started_ns);
            let (windows, recorded_ns) = self.windows;
            let share = if run_ns == 0 { 0.0 } else { (recorded_ns as f64 / run_ns as f64).min(1.0) };
            fields.push(format!(
                "\"{}\":{{\"setting\":\"{}\",\"windows\":{windows},\"recorded_ns\":{recorded_ns},\"run_ns\":{run_ns},\"recorded_share\":{share:.6}}}",
                keys::WINDOWS,
                window.text()
            ));
        }
        if self.config.graph_trace != crate::config::window::GraphTrace::Node {
            fields.push(format!("\"{}\":\"{}\"", keys::GRAPH_TRACE, self.config.graph_trace.name()));
        }
        if self.born_ns > 0 {
            fields.push(format!("\"forked_at_ns\":{}", self.born_ns));
            fields.push(format!("\"left_to_the_parent\":{}", self.inherited));
        }
        for (key, json) in &self.notes {
            fields.push(format!("{}:{json}", json_string(Some(key))));
        }
        fields.push(format!("\"error\":{}", json_string(summary.error.as_deref())));
        format!("{{\n  {}\n}}\n", fields.join(",\n  "))
    }

    /// The run's metadata file, `<stem>.metadata.json`, rewritten whole each time.
    pub fn write_run_metadata(&self, summary: &Summary) -> Result<()> {
        let text = self.run_metadata_json(summary, super::clock::now_ns());
        let io = |e| Error::Io { path: self.metadata_path.display().to_string(), source: e };
        std::fs::create_dir_all(&self.config.output_dir).map_err(io)?;
        // The stem is this process's, so the hidden name is too; one left by a write that
        // failed half-way is ours to replace.
        let partial = self.config.output_dir.join(format!(".{}.partial", keys::metadata_file_name(self.stem())));
        let _ = std::fs::remove_file(&partial);
        // Written on the application's thread at start, where a write beyond `ulimit -f`
        // would raise SIGXFSZ in the application.
        crate::threads::without_write_signals(|| {
            let mut file = rocprof_rs_format::publish::create_exclusive(&partial)?;
            std::io::Write::write_all(&mut file, text.as_bytes())?;
            drop(file);
            std::fs::rename(&partial, &self.metadata_path)
        })
        .map_err(io)
    }
}

/// Counts the dispatch against its kernel's iterations and says whether the range keeps it.
fn next_iteration_selected(config: &Config, iterations: &mut HashMap<Arc<str>, u64>, name: &Arc<str>) -> bool {
    if config.kernel_iterations.is_all() {
        return true;
    }
    let n = iterations.entry(name.clone()).or_default();
    *n += 1;
    config.kernel_iterations.contains(*n)
}

pub(super) fn json_string(value: Option<&str>) -> String {
    match value {
        None => "null".into(),
        Some(v) => serde_json::Value::String(v.to_owned()).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::run::{Library, Seed};

    /// A library no backend is: the pipeline's tests name none.
    fn library() -> Library {
        Library { backend: "test", vendor: Arc::from("test"), versions: Vec::new(), api_tables: &[] }
    }

    #[test]
    fn the_writer_holds_every_table_of_the_format() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-rows-tables-{}", std::process::id()));
        let vars = [("ROCPROF_RS_OUTPUT_DIR".to_owned(), dir.display().to_string())].into();
        let config = Config::from_vars(&vars, &crate::config::Placeholders::of_this_process(&vars)).unwrap();
        let seed = Seed { operations: OperationNames::new(), library: library(), counters: None };
        let tables = Tables::new(config, seed, no_agents(), 0).unwrap();
        let mut held: Vec<Table> = tables.files().iter().map(|(t, _)| *t).collect();
        held.sort();
        assert_eq!(held, Table::ALL, "a table of the format the tool never writes");
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn symbol(kernel_id: u64, mangled: &str) -> Record {
        Record::Symbol(Box::new(Symbol::named(kernel_id, mangled.into())))
    }

    fn kernel(kernel_id: u64, correlation_id: u64, dispatch_id: u64) -> Record {
        Record::Kernel(super::super::records::Kernel {
            start_ns: 1_000 * dispatch_id,
            end_ns: 1_000 * dispatch_id + 500,
            correlation_id,
            dispatch_id,
            kernel_id,
            queue_id: 7,
            queue_is_stream: true,
            grid_x: 32,
            grid_yz: [1, 1],
            block: [32, 1, 1],
            registers: 16,
            has_registers: true,
            ..Default::default()
        })
    }

    /// A writer of a run with counters whose dispatches name their launch, writing under a
    /// folder of its own (`name`).
    fn counting_tables(name: &str) -> (Tables, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-rows-{name}-{}", std::process::id()));
        let vars = [("ROCPROF_RS_OUTPUT_DIR".to_owned(), dir.display().to_string())].into();
        let config = Config::from_vars(&vars, &crate::config::Placeholders::of_this_process(&vars)).unwrap();
        let seed = Seed {
            operations: OperationNames::new(),
            library: library(),
            counters: Some(super::super::run::CounterNames {
                deferred: true,
                join_launches: true,
                ..Default::default()
            }),
        };
        (Tables::new(config, seed, no_agents(), 0).unwrap(), dir)
    }

    /// GPU 0's plan of one metric in one group.
    fn plan(metric: &str) -> Record {
        Record::CounterPlan(Box::new(super::super::records::CounterPlan {
            agent_id: 0,
            label: "GPU 0".into(),
            metrics: vec![metric.into()],
            groups: vec![vec![metric.into()]],
        }))
    }

    use super::super::counter_rows::testing::counted_at;

    fn counted(dispatch_id: u64, correlation: u64, value: f64) -> [Record; 2] {
        counted_at(dispatch_id, [correlation, correlation + 1000], value, (0, 0))
    }

    /// Counter records that come before or after the kernel's record: either way the row goes
    /// to the kernel with the launch's correlation id (the outer one or the inner one).
    #[test]
    fn counter_rows_join_their_kernel_before_or_after_it() {
        use rocprof_rs_format::columns::Rows as _;
        let (mut tables, dir) = counting_tables("join");
        let mut records = vec![plan("dram__bytes_read.sum"), symbol(0xa, "copy")];
        // Counters first, then the kernel.
        records.extend(counted(1 << 62 | 1, 5, 111.0));
        records.push(kernel(0xa, 5, 11));
        // The kernel first, then its counters (joined by the inner correlation).
        records.push(kernel(0xa, 1006, 12));
        records.extend(counted(1 << 62 | 2, 6, 222.0));
        records.extend(counted(1 << 62 | 3, 7, 333.0));
        records.push(kernel(0xa, 7, 14));
        tables.add(&records).unwrap();
        assert_eq!(tables.dispatch.rows.len(), 3);
        let kernels = tables.kernels.clone();
        tables.counters.finish(&kernels);
        let rows = &tables.counters.values.rows;
        assert_eq!(rows.len(), 3);
        assert_eq!(tables.counters.unjoined, 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A kernel launched from two sites (layers) three times each; the counter sampled the
    /// first once and the second three times, and the first's dispatch completes only after
    /// the run's final launch counts came (its kernel row was in the last activity buffer).
    /// `kernel_counter`'s mean is over the calls: (3 x 10 + 3 x 30) / 6.
    #[test]
    fn kernel_counter_means_weigh_sites_by_their_final_launch_counts() {
        let (mut tables, dir) = counting_tables("sites");
        let at = |n: u64, correlation: u64, site: u64, site_launches: u64, value: f64| {
            counted_at(1 << 62 | n, [correlation, correlation], value, (site, site_launches))
        };
        let mut records = vec![plan("lts__t_bytes.sum"), symbol(0xa, "conv")];
        for (i, corr) in [20u64, 21, 22].into_iter().enumerate() {
            records.extend(at(i as u64, corr, 2, i as u64 + 1, 30.0));
            records.push(kernel(0xa, corr, corr));
        }
        records.extend(at(9, 10, 1, 1, 10.0));
        records.push(Record::CounterSites(Box::new(vec![(0, 1, 3), (0, 2, 3)])));
        records.push(kernel(0xa, 10, 10));
        tables.add(&records).unwrap();
        let kernels = tables.kernels.clone();
        tables.counters.finish(&kernels);
        use arrow_array::cast::AsArray as _;
        use rocprof_rs_format::columns::Rows as _;
        let rows = &mut tables.counters.kernels.rows;
        assert_eq!(rows.len(), 1);
        let columns = rows.finish();
        let f64_at = |i: usize| columns[i].as_primitive::<arrow_array::types::Float64Type>().value(0);
        // The columns in order: kernel_name, agent_id, counter, counter_group, samples,
        // dispatches, sum, mean.
        assert_eq!((f64_at(6), f64_at(7)), (100.0, 20.0), "the mean over the calls, not the samples' 25");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Counter records whose kernel rows never come (lost activity records) are written
    /// unjoined once too many wait: the writer's memory stays bounded.
    #[test]
    fn counter_rows_waiting_for_lost_kernel_rows_do_not_pile_up() {
        let (mut tables, dir) = counting_tables("waiting");
        for i in 0..10_000u64 {
            tables.add(&counted(1 << 62 | i, 4_000 * i + 1, 1.0)).unwrap();
        }
        assert!(tables.counters.unjoined > 0, "the waiting ones were written");
        assert!(tables.counters.unjoined < 10_000, "only once too many waited");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
