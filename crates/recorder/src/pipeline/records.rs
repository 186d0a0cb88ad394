//! The contract between a backend and the pipeline: what a backend hands over, whatever the
//! library it decodes. A backend copies its library's records out of library-owned memory
//! (reused the moment a callback returns) into these plain values, in its own decode, and
//! tells the pipeline once, when it starts, what its operation ids are called and which table
//! each of its API kinds fills ([`super::run::Seed`]).
//!
//! Names stay ids here (kind and operation, kernel id); the writer turns them into strings, so
//! the callback threads copy fixed-size values and nothing else. The exceptions carry owned
//! text: a marker's message, a kernel symbol's name and a device's, all rare and bounded by
//! the queue.
//!
//! Adding a record kind touches this file, the backend that produces it and its table's
//! declaration in `rocprof_rs_format`, nothing else: the kind implements [`OwnRow`] here, is
//! named in [`own_records!`]'s list and travels as [`Record::Row`], and the writer holds a
//! writer for every table of the format.
//! (The kinds above `Row` in [`Record`] are the ones the writer resolves names or joins for,
//! aggregates (PC samples), or that come often enough to travel unboxed.)

use std::sync::Arc;

use rocprof_rs_format::Table;
use rocprof_rs_format::writer::AnyTableWriter;

use super::run::OperationNames;

/// A kernel launch: grid in work-items, the queue or stream, optional per-launch registers,
/// graph and cluster. One comes per dispatch, so it travels compact (128 bytes; a record is
/// written into a batch on the library's callback thread, and every byte costs there): the
/// writer widens it into the format's one launch type, [`Kernel::launch`]. The narrow fields
/// hold what any GPU allows (a block of at most 65,535 work-items a side, a cluster of at
/// most 65,535 blocks, a pipe id under 32,768); a backend saturates a value beyond that.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Kernel {
    pub start_ns: u64,
    pub end_ns: u64,
    pub dispatch_id: u64,
    pub correlation_id: u64,
    pub external_id: u64,
    /// The kernel, as the backend's symbols name it.
    pub kernel_id: u64,
    pub agent_id: u64,
    /// The queue or stream the launch went to.
    pub queue_id: u64,
    pub thread_id: u64,
    pub graph_node_id: u64,
    /// The grid in work-items along x: blocks times their size can pass 32 bits there.
    pub grid_x: u64,
    /// The grid in work-items along y and z.
    pub grid_yz: [u32; 2],
    /// Static and dynamic shared memory together, bytes.
    pub shared_mem: u32,
    /// Per work-item scratch (private, local) memory, bytes.
    pub scratch_size: u32,
    /// The graph the launch was replayed from (0 outside graphs).
    pub graph_id: u32,
    pub block: [u16; 3],
    /// A thread-block cluster's shape in blocks (0 without clusters).
    pub cluster: [u16; 3],
    /// Registers per work-item, where `has_registers` says the launch reports them (else the
    /// kernel's symbol does).
    pub registers: u16,
    /// The hardware pipe, where `has_pipe` says the library reports one.
    pub pipe_id: i16,
    pub has_registers: bool,
    pub has_pipe: bool,
    /// Whether the queue is a stream the application named (the `stream_id` column).
    pub queue_is_stream: bool,
}

impl Kernel {
    /// The launch in the format's terms, from which the `kernel_dispatch` row is made.
    #[inline(always)]
    pub fn launch(&self) -> rocprof_rs_format::launch::KernelLaunch {
        rocprof_rs_format::launch::KernelLaunch {
            start_ns: self.start_ns as i64,
            end_ns: self.end_ns as i64,
            dispatch_id: self.dispatch_id,
            correlation_id: self.correlation_id,
            external_id: self.external_id,
            kernel_id: self.kernel_id,
            agent_id: self.agent_id,
            queue_id: self.queue_id,
            thread_id: self.thread_id,
            graph_node_id: self.graph_node_id,
            grid: [self.grid_x as i64, i64::from(self.grid_yz[0]), i64::from(self.grid_yz[1])],
            block: self.block.map(i32::from),
            shared_mem: self.shared_mem as i32,
            scratch_size: self.scratch_size as i32,
            cluster: self.cluster.map(i32::from),
            graph_id: self.graph_id,
            registers: self.has_registers.then_some(self.registers),
            stream_id: self.queue_is_stream.then_some(self.queue_id as i32),
            pipe_id: self.has_pipe.then_some(i32::from(self.pipe_id)),
        }
    }
}

/// `value` in 16 bits, saturated: for the fields of [`Kernel`] no GPU fills past them.
pub fn narrow_u16(value: u32) -> u16 {
    u16::try_from(value).unwrap_or(u16::MAX)
}

/// A call of a traced API.
#[derive(Debug, Clone, Copy)]
pub struct Api {
    /// The backend's API kind: names the domain, and through the seed's table map, the table.
    pub kind: u32,
    pub operation: i32,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub ancestor_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// An asynchronous memory copy (or a memory set, which the copy table holds too).
#[derive(Debug, Clone, Copy)]
pub struct Copy {
    /// The backend's kind for copies, under which its operation names are kept.
    pub kind: u32,
    pub operation: i32,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub src_agent_id: u64,
    pub dst_agent_id: u64,
    pub bytes: u64,
    pub src_address: u64,
    pub dst_address: u64,
    /// The stream, where the queue is one the application named.
    pub stream_id: Option<u32>,
}

/// A scratch-memory event.
#[derive(Debug, Clone, Copy)]
pub struct Scratch {
    pub kind: u32,
    pub operation: i32,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub agent_id: u64,
    pub queue_id: u64,
    pub flags: u32,
    pub bytes: u64,
}

/// A device-memory allocation or free.
#[derive(Debug, Clone, Copy)]
pub struct Allocation {
    pub kind: u32,
    pub operation: i32,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub agent_id: u64,
    pub address: u64,
    pub bytes: u64,
}

/// A marker range or an instant mark, complete: a backend whose library reports a range's
/// two ends apart pairs them before handing it over.
#[derive(Debug, Clone)]
pub struct Marker {
    /// The backend's marker kind, under which its operation names are kept.
    pub kind: u32,
    pub operation: i32,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Nesting level of a thread range (0 = outermost); none for process ranges.
    pub depth: Option<i32>,
    pub message: Box<str>,
    /// The marker's domain, where the library has domains.
    pub domain: Option<Arc<str>>,
}

/// A GPU, as the agent table describes it. What the library does not say is zero.
#[derive(Debug, Clone)]
pub struct Device {
    pub agent_id: u64,
    /// The library's index of the GPU: its node id, logical index and device id.
    pub index: u32,
    /// The instruction-set architecture (the agent table's `name`).
    pub architecture: Box<str>,
    pub product_name: Box<str>,
    pub vendor_name: &'static str,
    pub model_name: Box<str>,
    pub compute_units: u32,
    pub lanes_per_wave: u32,
    pub max_waves_per_compute_unit: u32,
    pub shared_memory_per_compute_unit_bytes: u32,
    pub max_clock_mhz: u32,
    pub memory_bytes: u64,
}

/// A kernel symbol's static facts, from the code-object callback.
#[derive(Debug, Clone)]
pub struct Symbol {
    pub kernel_id: u64,
    pub code_object_id: u64,
    /// Shared, so every dispatch row refers to one copy (see `tables::columns::Dict`).
    pub mangled: std::sync::Arc<str>,
    pub kernarg_size: u32,
    pub group_segment_size: u32,
    pub private_segment_size: u32,
    pub sgpr: u32,
    pub arch_vgpr: u32,
    pub accum_vgpr: u32,
}

impl Symbol {
    /// A symbol known only by its name (no code object, sizes or registers).
    pub fn named(kernel_id: u64, mangled: std::sync::Arc<str>) -> Symbol {
        Symbol {
            kernel_id,
            code_object_id: 0,
            mangled,
            kernarg_size: 0,
            group_segment_size: 0,
            private_segment_size: 0,
            sgpr: 0,
            arch_vgpr: 0,
            accum_vgpr: 0,
        }
    }
}

/// A counted dispatch, from the counting service's header record: how many value records
/// belong to it, and the kernel they are joined to.
#[derive(Debug, Clone, Copy)]
pub struct CounterDispatch {
    pub dispatch_id: u64,
    pub agent_id: u64,
    pub kernel_id: u64,
    pub correlation_id: u64,
    /// Value records (one per counter instance) the library reports for the dispatch.
    pub records: u64,
    /// Set where the counter records come before the kernel's own record: the correlation
    /// ids of the launch (the outermost API call's, then the inner call's), by which the
    /// writer finds the dispatch and kernel ids of its `kernel_dispatch` row.
    pub join: Option<[u64; 2]>,
    /// Where in the application the kernel was launched (its shape and the kernel launched
    /// before it, as a pass rotation balances them; 0 where unknown): the per-kernel mean
    /// weighs each site by its launches ([`crate::pipeline::sites`]).
    pub site: u64,
    /// The kernel and grid launched (0 where unknown): a site never sampled by a counter
    /// takes its shape's mean there.
    pub shape: u64,
    /// The launches at `site` on this context so far, counted or not (0 where unknown): the
    /// site's weight, until the run's final counts ([`Record::CounterSites`]) come.
    pub site_launches: u64,
}

/// Kernel ids a backend gives the kernels of counted dispatches that ran with kernel activity
/// off (passes that replay a launch): ids apart from the library's own, with no
/// `kernel_dispatch` row.
pub const UNTRACED_KERNEL: u64 = 3 << 62;

/// Whether a counted dispatch's kernel is one of [`UNTRACED_KERNEL`]'s.
pub fn is_untraced(kernel_id: u64) -> bool {
    kernel_id & UNTRACED_KERNEL == UNTRACED_KERNEL
}

/// The counters one GPU collects, told to the writer once they are known (where the library
/// knows them only at the first launch on a context, after the tables began).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CounterPlan {
    pub agent_id: u64,
    /// How messages name the GPU, with its model: `GPU 0 (...)`.
    pub label: String,
    /// The counters, indexed by the `counter_id` of its values.
    pub metrics: Vec<String>,
    /// The groups that each take one pass (one application run each, in whole-application mode).
    pub groups: Vec<Vec<String>>,
}

/// A counter's value for a dispatch: the sum of `instances` consecutive instance records, or
/// one instance's value (`instance` set) when per-instance values are kept.
#[derive(Debug, Clone, Copy)]
pub struct CounterValue {
    pub dispatch_id: u64,
    pub agent_id: u64,
    pub counter_id: u64,
    pub value: f64,
    pub instances: u32,
    /// The group (pass) that collected it.
    pub group: u32,
    pub instance: Option<u32>,
}

/// The management library a device sample came from: its name (the `library` column) and
/// what the bits of its throttle mask mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TelemetryLibrary {
    pub name: &'static str,
    /// Each known bit of the throttle mask and its name.
    pub throttle_reasons: &'static [(u64, &'static str)],
}

/// A GPU the device sampler reads, told to the writer once before its first sample.
#[derive(Debug, Clone)]
pub struct SampledDevice {
    /// The library's index of the GPU, which its samples carry.
    pub index: u32,
    /// The library's own name for the GPU (a UUID, a PCI address).
    pub uuid: Box<str>,
    pub library: TelemetryLibrary,
    /// The GPU's agent, where the process uses it.
    pub agent_id: Option<u64>,
}

/// What a management library reported of one GPU at one time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DeviceSample {
    pub time_ns: u64,
    pub index: u32,
    pub readings: rocprof_rs_format::device::Readings,
}

/// A program-counter sample, or a count of like ones (a library may report a count per PC
/// and reason): what the backend decoded, names kept as the vendor's codes. The writer
/// aggregates them per kernel, PC and reason ([`super::pc_rows`]); a backend that samples
/// sends its [`PcSampleNames`] before its first dispatch, which is what turns on the
/// writer's map of dispatches to kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcSample {
    pub agent_id: u64,
    /// The dispatch sampled (0 where the library does not say).
    pub dispatch_id: u64,
    pub correlation_id: u64,
    /// The kernel, where the backend placed the PC itself (by its code object's symbols);
    /// 0 leaves it to the writer, which finds it from `dispatch_id`.
    pub kernel_id: u64,
    pub code_object_id: u64,
    /// Bytes from the code object's start (or from the function's, where the library places
    /// PCs by function).
    pub pc_offset: u64,
    /// The vendor's reason code, named by [`PcSampleNames::reasons`]; `None` where the method
    /// reports no reason (host trap).
    pub reason: Option<u32>,
    /// The vendor's instruction-type code, named by [`PcSampleNames::instruction_types`].
    pub instruction_type: Option<u32>,
    /// The reason's category ([`rocprof_rs_format::pc_sample::ReasonCategory::of_vendor_reason`]
    /// of its name, or `Issued` where the library says the wave issued).
    pub category: rocprof_rs_format::pc_sample::ReasonCategory,
    pub method: rocprof_rs_format::pc_sample::SampleMethod,
    /// Samples this record counts (1 for a library that reports each one).
    pub samples: u32,
}

/// The names of a sampling method's reason and instruction-type codes, told to the writer
/// once before the method's first sample (a library may know its reasons only once the
/// application made a context, so they cannot be in the [`super::run::Seed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcSampleNames {
    pub method: rocprof_rs_format::pc_sample::SampleMethod,
    pub reasons: Vec<(u32, Box<str>)>,
    pub instruction_types: Vec<(u32, Box<str>)>,
}

/// What a backend knows of one instruction: its text and where in the source it came from,
/// told once per (code object, offset) before or after the samples that land on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcInstruction {
    /// The kernel whose function the offset is in, where a library counts offsets from each
    /// function's start; 0 where they count from the code object's, which then names the
    /// instruction whatever the kernel.
    pub kernel_id: u64,
    pub code_object_id: u64,
    pub pc_offset: u64,
    /// The disassembled instruction, where a disassembler was at hand.
    pub text: Option<Box<str>>,
    /// Shared: the instructions of one source file name it once.
    pub source_file: Option<Arc<str>>,
    pub source_line: Option<u32>,
}

/// A count a backend keeps of its own, for the run's metadata under `key`: the latest value
/// told is the one written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub key: &'static str,
    pub count: u64,
}

/// The kernel a launch call names, for a flight recorder's hang report: sent only where hangs
/// are watched, and never a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchName {
    pub correlation_id: u64,
    /// Shared: a kernel launched often is named once.
    pub name: Arc<str>,
}

/// A thread's marker range as it opens, for a flight recorder's hang report (which says the
/// ranges a stuck thread is inside): sent only where hangs are watched, and never a row. Its
/// [`Marker`] comes when it closes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkerOpen {
    /// The range's id, which its [`Marker`]'s `correlation_id` repeats.
    pub id: u64,
    pub thread_id: u64,
    pub start_ns: u64,
    pub message: Arc<str>,
}

/// What the writer tells a record that makes its own row.
#[derive(Debug, Clone, Copy)]
pub struct RowContext<'a> {
    /// The profiled process.
    pub pid: u32,
    /// The `vendor` column's value.
    pub vendor: &'a Arc<str>,
    /// The backend's operation names.
    pub operations: &'a OperationNames,
}

impl RowContext<'_> {
    /// An operation's name; an id the backend did not name is kept visible rather than guessed.
    pub fn operation(&self, kind: u32, operation: i32) -> &Arc<str> {
        static UNKNOWN: std::sync::LazyLock<Arc<str>> = std::sync::LazyLock::new(|| Arc::from("UNKNOWN_OPERATION"));
        self.operations.get(&(kind, operation)).unwrap_or(&UNKNOWN)
    }
}

/// A record that is one row of a table of its own, which the writer needs to know nothing
/// about: it names its table and pushes its row into that table's writer
/// (`rocprof_rs_format::writer::rows_of` finds the rows).
pub trait OwnRow: std::fmt::Debug + Send + Sync {
    /// The table its row goes to.
    fn table(&self) -> Table;
    /// When its activity began, if it is activity (what a forked child leaves to the parent).
    fn start_ns(&self) -> Option<u64>;
    /// Whether the drop policy must deliver it (see [`Record::must_keep`]).
    fn must_keep(&self) -> bool {
        false
    }
    /// Pushes its row into `writer`, its table's.
    fn push(&self, writer: &mut dyn AnyTableWriter, context: &RowContext<'_>);
}

/// Declares [`OwnRecord`], the kinds of their own, from one list of types that implement
/// [`OwnRow`]. A closed enum of boxes rather than a `dyn` pointer in [`Record`]: a trait object
/// there (as `Arc<dyn OwnRow>`, even behind a thin pointer) made the drop of every record a
/// call, and building and dropping kernel records half as fast (65 against 128 M/s in a loop
/// of 5M, `Vec::clear` included).
macro_rules! own_records {
    ($($kind:ident),* $(,)?) => {
        /// A record of a kind of its own: one row of a table the writer holds by its
        /// [`Table`] alone.
        #[derive(Debug, Clone)]
        pub enum OwnRecord {
            $($kind(Box<$kind>),)*
        }

        impl OwnRecord {
            /// The record as its kind.
            pub fn row(&self) -> &dyn OwnRow {
                match *self {
                    $(OwnRecord::$kind(ref row) => &**row,)*
                }
            }
        }

        $(
            impl From<$kind> for OwnRecord {
                fn from(row: $kind) -> OwnRecord {
                    OwnRecord::$kind(Box::new(row))
                }
            }
        )*
    };
}

// The kinds of their own; none yet (a new one is added here).
own_records! { WindowBounds, GraphLaunch }

/// A tracing window the backend recorded in: the `window` table's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowBounds {
    /// Counted from 0 in the process.
    pub window: u32,
    /// Read before collection was switched on.
    pub start_ns: u64,
    /// Read after collection was switched off.
    pub end_ns: u64,
    /// Read after collection was switched on: everything launched from here is recorded.
    pub opened_ns: u64,
    /// Read before collection was switched off: everything launched until here is recorded.
    pub closing_ns: u64,
}

impl OwnRow for WindowBounds {
    fn table(&self) -> Table {
        Table::Window
    }
    fn start_ns(&self) -> Option<u64> {
        Some(self.start_ns)
    }
    /// The windows say what share of the run the rows stand for: a dataset without them
    /// would pass for a whole trace.
    fn must_keep(&self) -> bool {
        true
    }
    fn push(&self, writer: &mut dyn AnyTableWriter, context: &RowContext<'_>) {
        if let Some(rows) = rocprof_rs_format::writer::rows_of::<rocprof_rs_format::Window>(writer) {
            rows.push(rocprof_rs_format::WindowRow {
                window: self.window,
                start_ns: self.start_ns as i64,
                end_ns: self.end_ns as i64,
                opened_ns: self.opened_ns as i64,
                closing_ns: self.closing_ns as i64,
                pid: context.pid,
            });
        }
    }
}

/// One launch of a graph (a captured sequence of kernels), traced as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphLaunch {
    pub graph_id: u32,
    pub stream_id: i32,
    pub start_ns: u64,
    pub end_ns: u64,
    pub correlation_id: u64,
    pub agent_id: u64,
}

impl OwnRow for GraphLaunch {
    fn table(&self) -> Table {
        Table::GraphLaunch
    }
    fn start_ns(&self) -> Option<u64> {
        Some(self.start_ns)
    }
    fn push(&self, writer: &mut dyn AnyTableWriter, context: &RowContext<'_>) {
        if let Some(rows) = rocprof_rs_format::writer::rows_of::<rocprof_rs_format::GraphLaunch>(writer) {
            rows.push(rocprof_rs_format::GraphLaunchRow {
                graph_id: self.graph_id,
                stream_id: self.stream_id,
                start_ns: self.start_ns as i64,
                end_ns: self.end_ns as i64,
                duration_ns: self.end_ns.saturating_sub(self.start_ns) as i64,
                correlation_id: self.correlation_id,
                agent_id: self.agent_id,
                pid: context.pid,
                vendor: context.vendor,
            });
        }
    }
}

/// One record on its way to the writer.
#[derive(Debug, Clone)]
pub enum Record {
    Kernel(Kernel),
    Api(Api),
    Copy(Copy),
    Scratch(Scratch),
    Allocation(Allocation),
    Marker(Box<Marker>),
    Symbol(Box<Symbol>),
    Device(Box<Device>),
    LaunchName(Box<LaunchName>),
    MarkerOpen(Box<MarkerOpen>),
    CounterDispatch(CounterDispatch),
    CounterValue(CounterValue),
    CounterPlan(Box<CounterPlan>),
    /// At the end of a run: each launch site's launches, counted or not, as (agent, site,
    /// launches): the final weights, which count the launches after a site's last counted one
    /// ([`crate::pipeline::sites`]).
    CounterSites(Box<Vec<(u64, u64, u64)>>),
    SampledDevice(Box<SampledDevice>),
    DeviceSample(Box<DeviceSample>),
    PcSample(PcSample),
    PcSampleNames(Box<PcSampleNames>),
    PcInstruction(Box<PcInstruction>),
    Tally(Tally),
    /// Any other kind: one row of its own table ([`Record::row`] makes one).
    Row(OwnRecord),
}

impl Record {
    /// A record of a kind of its own ([`OwnRow`]).
    pub fn row(row: impl Into<OwnRecord>) -> Record {
        Record::Row(row.into())
    }

    /// Whether the drop policy must still deliver this record: it names what other records
    /// refer to (a kernel symbol, a device), or counts, and there are few of them (one per
    /// kernel or device, sent when code is loaded). Dropped, a run's dispatches would lose
    /// their names. (The libraries' drop counts never travel as records: see
    /// [`super::queue::Queue`].)
    pub fn must_keep(&self) -> bool {
        matches!(
            self,
            Record::Symbol(_)
                | Record::Device(_)
                | Record::CounterPlan(_)
                | Record::CounterSites(_)
                | Record::SampledDevice(_)
                | Record::PcSampleNames(_)
                | Record::PcInstruction(_)
                | Record::Tally(_)
        ) || matches!(self, Record::Row(row) if row.row().must_keep())
    }

    /// Whether this record is traced activity, which becomes a row, rather than a name or a
    /// count: what a drop count counts.
    pub fn is_activity(&self) -> bool {
        !self.must_keep()
    }

    /// When the activity began, for records of one.
    pub fn start_ns(&self) -> Option<u64> {
        match self {
            Record::Kernel(r) => Some(r.start_ns),
            Record::Api(r) => Some(r.start_ns),
            Record::Copy(r) => Some(r.start_ns),
            Record::Scratch(r) => Some(r.start_ns),
            Record::Allocation(r) => Some(r.start_ns),
            Record::Marker(r) => Some(r.start_ns),
            Record::DeviceSample(r) => Some(r.time_ns),
            Record::Row(r) => r.row().start_ns(),
            Record::Symbol(_)
            | Record::Device(_)
            | Record::CounterDispatch(_)
            | Record::CounterValue(_)
            | Record::CounterPlan(_)
            | Record::CounterSites(_)
            | Record::SampledDevice(_)
            | Record::PcSample(_)
            | Record::PcSampleNames(_)
            | Record::PcInstruction(_)
            | Record::LaunchName(_)
            | Record::MarkerOpen(_)
            | Record::Tally(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    /// Batches are vectors of records; a small record keeps a batch's memory small.
    #[test]
    fn a_record_stays_small() {
        assert!(std::mem::size_of::<super::Record>() <= 136, "{}", std::mem::size_of::<super::Record>());
    }
}
