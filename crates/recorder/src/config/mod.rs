//! The tool's configuration, read once from `ROCPROF_RS_*` variables.
//!
//! The tool runs inside someone else's process, so configuration cannot come from flags: the
//! `rocprof-rs run` command turns its flags into these same variables, and an application that
//! links the crate sets them through [`crate::Profiler`]'s builder. Every value is checked up
//! front; a bad one yields an error naming the variable and what it accepts, and the tool stays
//! off rather than guess.

pub mod counters;
pub mod flight;
pub mod pc_sampling;
pub mod window;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

use regex_lite::Regex;

use crate::error::{Error, Result};

/// What can be traced; each is a table of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Domain {
    /// Kernel dispatches (`kernel_dispatch`).
    Kernel,
    /// Asynchronous memory copies (`memory_copy`).
    MemoryCopy,
    /// The HIP runtime API (`hip_api`).
    HipApi,
    /// The HSA API, core and AMD extensions (`hsa_api`).
    HsaApi,
    /// The RCCL API (`rccl_api`).
    RcclApi,
    /// ROCTx markers and ranges (`marker`).
    Marker,
    /// Scratch-memory allocations (`scratch_memory`).
    ScratchMemory,
    /// Device memory allocations (`memory_allocation`).
    MemoryAllocation,
    /// CUDA launch calls, from CUPTI's callbacks (`cuda_api`); NVIDIA only.
    CudaApi,
}

impl Domain {
    /// Every domain, in table order.
    pub const ALL: [Domain; 9] = [
        Domain::Kernel,
        Domain::MemoryCopy,
        Domain::HipApi,
        Domain::HsaApi,
        Domain::RcclApi,
        Domain::Marker,
        Domain::ScratchMemory,
        Domain::MemoryAllocation,
        Domain::CudaApi,
    ];

    /// The name used in `ROCPROF_RS_DOMAINS`.
    pub fn name(self) -> &'static str {
        match self {
            Domain::Kernel => "kernel",
            Domain::MemoryCopy => "memory_copy",
            Domain::HipApi => "hip_api",
            Domain::HsaApi => "hsa_api",
            Domain::RcclApi => "rccl_api",
            Domain::Marker => "marker",
            Domain::ScratchMemory => "scratch_memory",
            Domain::MemoryAllocation => "memory_allocation",
            Domain::CudaApi => "cuda_api",
        }
    }

    /// The table the domain writes.
    pub fn table(self) -> Table {
        match self {
            Domain::Kernel => Table::KernelDispatch,
            Domain::MemoryCopy => Table::MemoryCopy,
            Domain::HipApi => Table::HipApi,
            Domain::HsaApi => Table::HsaApi,
            Domain::RcclApi => Table::RcclApi,
            Domain::Marker => Table::Marker,
            Domain::ScratchMemory => Table::ScratchMemory,
            Domain::MemoryAllocation => Table::MemoryAllocation,
            Domain::CudaApi => Table::CudaApi,
        }
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// A set of domains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Domains(u16);

impl Domains {
    /// `--sys-trace` in rocprofv3: HIP and HSA API, markers, kernels, copies, scratch and
    /// allocations; every domain there is.
    pub const SYS: Domains = Domains(0x1ff);

    /// Whether `domain` is in the set.
    pub fn contains(self, domain: Domain) -> bool {
        self.0 & domain.bit() != 0
    }

    /// Adds `domain`.
    pub fn insert(&mut self, domain: Domain) {
        self.0 |= domain.bit();
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The domains in the set, in table order.
    pub fn iter(self) -> impl Iterator<Item = Domain> {
        Domain::ALL.into_iter().filter(move |d| self.contains(*d))
    }
}

/// What to do when records arrive faster than they can be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Slow the application down (the SDK's LOSSLESS policy and our bounded queues block).
    Lossless,
    /// Never slow the application down; count every record dropped (the SDK's DISCARD policy).
    Drop,
}

use rocprof_rs_format::Table;
pub use rocprof_rs_format::files::Compression;
use rocprof_rs_format::files::{Layout, Rotation, WriteOptions};
use rocprof_rs_format::origin::Origin;

/// Inclusive ranges of 1-based kernel iterations to keep, per kernel name (rocprofv3's
/// `--kernel-iteration-range`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IterationRange(Vec<(u64, u64)>);

impl IterationRange {
    /// Whether the `n`-th dispatch (1-based) of a kernel is kept; an empty range keeps all.
    pub fn contains(&self, n: u64) -> bool {
        self.0.is_empty() || self.0.iter().any(|&(lo, hi)| (lo..=hi).contains(&n))
    }

    /// Whether the range keeps everything.
    pub fn is_all(&self) -> bool {
        self.0.is_empty()
    }
}

/// The whole configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The output directory, placeholders expanded.
    pub output_dir: PathBuf,
    /// The file-name stem of this process's files, placeholders expanded.
    pub output_name: String,
    /// The stem as given, for a forked child to expand with its own pid.
    pub output_name_template: String,
    /// What to trace.
    pub domains: Domains,
    /// Keep only kernels whose name matches.
    pub kernel_include: Option<Regex>,
    /// Drop kernels whose name matches.
    pub kernel_exclude: Option<Regex>,
    /// Keep only these iterations of each kernel.
    pub kernel_iterations: IterationRange,
    /// Demangle kernel names (the mangled name is kept in its own column).
    pub demangle: bool,
    /// Cut demangled names to the bare function name, as rocprofv3's `--truncate-kernels`.
    pub truncate_kernels: bool,
    /// Bytes of each SDK record buffer.
    pub buffer_bytes: usize,
    /// Bytes of each CUPTI activity buffer: `ROCPROF_RS_BUFFER_SIZE` where it is set, else
    /// [`CUPTI_BUFFER_BYTES`].
    pub cupti_buffer_bytes: usize,
    /// Backpressure or drops.
    pub policy: Policy,
    /// Batches the queue to the writer holds.
    pub queue_batches: usize,
    /// Parquet compression.
    pub compression: Compression,
    /// Rows per Parquet row group.
    pub row_group_rows: usize,
    /// Rotate a table's file after this many rows (0: never).
    pub rotate_rows: u64,
    /// Rotate a table's file after this many seconds (0: never).
    pub rotate_seconds: u64,
    /// Print the one-line summary at exit.
    pub summary: bool,
    /// Where each table's files go under its folder.
    pub layout: Layout,
    /// This process's host and place in a distributed job: the columns every table ends with.
    pub origin: Origin,
    /// Hardware counters to collect per dispatch, if any.
    pub counters: Option<counters::CounterRequest>,
    /// PC sampling, if asked for.
    pub pc_sampling: Option<pc_sampling::PcSampling>,
    /// NVIDIA: milliseconds between flushes of CUPTI's buffers.
    pub flush_ms: u64,
    /// Start with collection off, for an in-process profile to turn on around its regions.
    pub start_paused: bool,
    /// Milliseconds between device samples (0: no sampler).
    pub device_sample_ms: u64,
    /// The management library to sample through, where not found by SONAME.
    pub device_sample_library: Option<String>,
    /// NVIDIA, for test fixtures: where to dump CUPTI's buffers, if anywhere.
    pub cupti_dump: Option<PathBuf>,
    /// Bytes the CUPTI dump may write in all.
    pub cupti_dump_max: u64,
    /// Records per CUPTI buffer while dumping (0: no limit).
    pub cupti_buffer_records: u64,
    /// Tracing windows, if collection is to be on only part of the time.
    pub window: Option<window::Window>,
    /// Whether CUDA graph launches are traced node by node or as one row per launch.
    pub graph_trace: window::GraphTrace,
    /// The flight recorder, if records are to be kept in memory and written on a trigger.
    pub flight_recorder: Option<flight::FlightRecorder>,
    /// A fault to inject (tests only).
    pub fault: Option<Fault>,
}

impl Config {
    /// Whether the backend collects from its start: not where the run starts paused (regions
    /// turn it on) or records in windows (the window thread does).
    pub fn starts_collecting(&self) -> bool {
        !self.start_paused && self.window.is_none()
    }
}

/// One documented variable: its name, what it accepts, and its default.
#[derive(Debug, Clone, Copy)]
pub struct Variable {
    /// The environment variable.
    pub name: &'static str,
    /// The accepted values, as the error message and the README state them.
    pub accepts: &'static str,
    /// The default, as text.
    pub default: &'static str,
}

macro_rules! variables {
    ($($id:ident = $name:literal, $accepts:literal, $default:literal;)*) => {
        $(#[doc = concat!("`", $name, "`: ", $accepts, ".")] pub const $id: &str = $name;)*
        /// Every variable the tool reads, for the README and `rocprof-rs run --help`.
        pub const VARIABLES: &[Variable] = &[$(Variable { name: $name, accepts: $accepts, default: $default }),*];
    };
}

variables! {
    OUTPUT_DIR = "ROCPROF_RS_OUTPUT_DIR", "a directory; placeholders %pid% %ppid% %hostname% %rank% %timestamp%", "rocprof-rs-output";
    OUTPUT_NAME = "ROCPROF_RS_OUTPUT_NAME", "a file-name stem; the same placeholders", "%hostname%-%pid%";
    DOMAINS = "ROCPROF_RS_DOMAINS", "comma-separated kernel, memory_copy, hip_api, hsa_api, rccl_api, marker, scratch_memory, memory_allocation, cuda_api, or sys (all)", "kernel";
    KERNEL_INCLUDE = "ROCPROF_RS_KERNEL_INCLUDE_REGEX", "a regular expression over kernel names", "(all)";
    KERNEL_EXCLUDE = "ROCPROF_RS_KERNEL_EXCLUDE_REGEX", "a regular expression over kernel names", "(none)";
    KERNEL_ITERATIONS = "ROCPROF_RS_KERNEL_ITERATION_RANGE", "ranges of 1-based iterations such as [1-5],[10],[20-30]", "(all)";
    DEMANGLE = "ROCPROF_RS_DEMANGLE", "1 or 0", "1";
    TRUNCATE = "ROCPROF_RS_TRUNCATE_KERNELS", "1 or 0", "0";
    BUFFER_SIZE = "ROCPROF_RS_BUFFER_SIZE", "bytes, with an optional K, M or G suffix, at least 64K", "8M (NVIDIA: 1M per CUPTI buffer)";
    POLICY = "ROCPROF_RS_POLICY", "lossless or drop", "lossless";
    QUEUE_BATCHES = "ROCPROF_RS_QUEUE_BATCHES", "an integer from 2 to 65536", "one SDK buffer of API records: buffer size / 64K + 8, at least 64";
    COMPRESSION = "ROCPROF_RS_COMPRESSION", "zstd, zstd:LEVEL (1-22), snappy or none", "zstd:3";
    ROW_GROUP_ROWS = "ROCPROF_RS_ROW_GROUP_ROWS", "an integer from 1024 to 16777216", "131072";
    ROTATE_ROWS = "ROCPROF_RS_ROTATE_ROWS", "rows per file, 0 for no limit", "10000000";
    ROTATE_SECONDS = "ROCPROF_RS_ROTATE_SECONDS", "seconds per file, 0 for no limit", "0";
    SUMMARY = "ROCPROF_RS_SUMMARY", "1 or 0", "1";
    LAYOUT = "ROCPROF_RS_LAYOUT", "flat (every process's files in the table's folder) or hive (under host=…/rank=… folders)", "flat";
    PMC = "ROCPROF_RS_PMC", "counter names separated by commas", "(none)";
    PMC_FILE = "ROCPROF_RS_PMC_FILE", "a rocprof counter input file: one pass per `pmc:` line", "(none)";
    COUNTER_PRESET = "ROCPROF_RS_COUNTER_PRESET", "compute_bound, memory_bound, communication_bound, instruction_mix, full_profile, roofline, basic or extended", "(none)";
    COUNTER_INSTANCES = "ROCPROF_RS_COUNTER_INSTANCES", "1 (a row per hardware instance) or 0 (their sum)", "0";
    COUNTER_PASSES = "ROCPROF_RS_COUNTER_PASSES", "rotate (passes taken by successive dispatches of a kernel, one run) or application (one run per pass)", "rotate";
    COUNTER_PASS = "ROCPROF_RS_COUNTER_PASS", "the 0-based pass this run takes with application passes (rocprof-rs run sets it)", "0";
    CUPTI_LIBRARY = "ROCPROF_RS_CUPTI_LIBRARY", "NVIDIA: the libcupti to load when the process has none and the SONAMEs are not on the search path", "(search)";
    FLUSH_MS = "ROCPROF_RS_FLUSH_MS", "milliseconds from 10 to 86400000 between flushes of CUPTI's buffers (NVIDIA) and, with the flight recorder, of the SDK's (AMD): what a killed process can lose, and how late a dump may be", "1000";
    START_PAUSED = "ROCPROF_RS_START_PAUSED", "1 or 0: start with collection off, for the in-process API (the C entry points, the Python package's rocprof_rs.start) to turn on around its regions", "0";
    PC_SAMPLING_METHOD = "ROCPROF_RS_PC_SAMPLING_METHOD", "host_trap or stochastic: sample where each kernel's waves are (rocprofv3's --pc-sampling-method), into pc_sample", "(off)";
    PC_SAMPLING_UNIT = "ROCPROF_RS_PC_SAMPLING_UNIT", "time (microseconds), cycles or instructions: what the interval counts", "the method's own: time for host_trap, cycles for stochastic";
    PC_SAMPLING_INTERVAL = "ROCPROF_RS_PC_SAMPLING_INTERVAL", "an integer from 1 to 2^42 in the unit (a power of two where the GPU asks for one)", "1000 (time), 1048576 (cycles, instructions)";
    NVDISASM = "ROCPROF_RS_NVDISASM", "NVIDIA: the nvdisasm that gives sampled PCs their instruction text, or off", "(search: PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)";
    DEVICE_SAMPLE_MS = "ROCPROF_RS_DEVICE_SAMPLE_MS", "milliseconds between samples of every GPU's power, energy, clocks, memory, busy % and temperature (NVML, AMD SMI) into device_sample, from 1 to 60000; 0 for none", "0";
    DEVICE_SAMPLE_LIBRARY = "ROCPROF_RS_DEVICE_SAMPLE_LIBRARY", "the path of libamd_smi.so or libnvidia-ml.so.1 to sample through", "(search: libamd_smi.so in $ROCM_PATH/lib and /opt/rocm/lib; libnvidia-ml.so.1)";
    WINDOW = "ROCPROF_RS_WINDOW", "ON/EVERY, each a number with a unit (us, ms, s, m, h), ON at least 1ms and shorter than EVERY, EVERY at most 24h: record only in windows of ON every EVERY, the first opening at the start (for example 200ms/20s)", "(always on)";
    GRAPH_TRACE = "ROCPROF_RS_GRAPH_TRACE", "node (a kernel_dispatch row per kernel of every CUDA graph replay) or graph (a graph_launch row per graph launch; with ROCPROF_RS_WINDOW, kernel rows inside windows only); NVIDIA only", "node";
    FLIGHT_RECORDER = "ROCPROF_RS_FLIGHT_RECORDER", "seconds (or a duration such as 30s, 2m) from 1s to 1h: keep the last SECONDS of records in memory, write nothing until a trigger (the dump signal, a request file, rocprof_rs.dump(), a slow step, a hang, the exit if asked) writes them as a dataset under OUTPUT_DIR/dump-*", "(off)";
    FLIGHT_RECORDER_MEMORY = "ROCPROF_RS_FLIGHT_RECORDER_MEMORY", "bytes, with an optional K, M or G suffix, from 16M to 64G: the most the flight recorder keeps (older records go first)", "256M";
    DUMP_SIGNAL = "ROCPROF_RS_DUMP_SIGNAL", "usr2, usr1 or off: the signal that asks the flight recorder for a dump", "usr2";
    DUMP_ON_EXIT = "ROCPROF_RS_DUMP_ON_EXIT", "1 or 0: the flight recorder dumps when the run ends", "0";
    STEP_MARKER = "ROCPROF_RS_STEP_MARKER", "a regular expression over marker (NVTX, ROCTx) range messages: each match is a step, and a step slower than ROCPROF_RS_SLOW_STEP_FACTOR times the running median dumps", "(none)";
    SLOW_STEP_FACTOR = "ROCPROF_RS_SLOW_STEP_FACTOR", "a number from 1.1 to 1000", "3";
    HANG_SECONDS = "ROCPROF_RS_HANG_SECONDS", "seconds (or a duration) from 1s to 24h, or 0: dump when no kernel has finished for that long while launched work is outstanding (NVIDIA; turns on launch callbacks)", "0 (off)";
    CUPTI_DUMP = "ROCPROF_RS_CUPTI_DUMP", "NVIDIA, for test fixtures: a directory to write each CUPTI buffer into, raw, with a JSON sidecar", "(none)";
    CUPTI_DUMP_MAX = "ROCPROF_RS_CUPTI_DUMP_MAX", "an integer: bytes the dump may write in all", "1048576";
    CUPTI_BUFFER_RECORDS = "ROCPROF_RS_CUPTI_BUFFER_RECORDS", "an integer: records per CUPTI buffer while dumping, for small fixtures (0: no limit)", "0";
    TEST_FAULT = "ROCPROF_RS_TEST_FAULT", "panic-in-ingest (testing only: proves a fault cannot harm the application)", "(none)";
}

/// A fault injected on purpose, for tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Panic in the SDK buffer callback.
    PanicInIngest,
}

/// Values the placeholders expand to, gathered once; tests pass their own.
#[derive(Debug, Clone)]
pub struct Placeholders {
    /// `%pid%`.
    pub pid: u32,
    /// `%ppid%`.
    pub ppid: u32,
    /// `%hostname%`.
    pub hostname: String,
    /// `%rank%`: the first of OMPI, PMI, SLURM and torchrun ranks found, else 0.
    pub rank: String,
    /// `%timestamp%`: local-free UTC seconds since the epoch, as `YYYYmmdd-HHMMSS`.
    pub timestamp: String,
}

impl Placeholders {
    /// The values for this process.
    pub fn of_this_process(env: &BTreeMap<String, String>) -> Self {
        let rank = ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "RANK", "LOCAL_RANK"]
            .iter()
            .find_map(|k| env.get(*k).cloned())
            .unwrap_or_else(|| "0".into());
        Placeholders {
            pid: std::process::id(),
            // SAFETY: getppid cannot fail.
            ppid: unsafe { libc::getppid() } as u32,
            hostname: hostname(),
            rank,
            timestamp: utc_stamp(std::time::SystemTime::now()),
        }
    }

    /// `template` with every placeholder replaced; each value is sanitised so a hostile
    /// hostname or rank cannot add path components.
    pub fn expand(&self, template: &str) -> String {
        template
            .replace("%pid%", &self.pid.to_string())
            .replace("%ppid%", &self.ppid.to_string())
            .replace("%hostname%", &sanitise(&self.hostname))
            .replace("%rank%", &sanitise(&self.rank))
            .replace("%timestamp%", &self.timestamp)
    }
}

impl Placeholders {
    /// `template` expanded as a file-name stem. Where the template itself starts with neither
    /// `.` nor `_` but the value of its leading placeholder does (a host named `_gpu01` or
    /// `.local`), the placeholder's name goes first (`hostname_gpu01-42`): readers skip files
    /// whose stem starts so, and the default stem, which the user never wrote, must always be
    /// valid.
    pub fn expand_stem(&self, template: &str) -> String {
        let stem = self.expand(template);
        if template.starts_with(['.', '_']) || !stem.starts_with(['.', '_']) {
            return stem;
        }
        let placeholder = template.strip_prefix('%').and_then(|rest| rest.split('%').next()).unwrap_or("x");
        format!("{placeholder}{stem}")
    }
}

/// Keeps `[A-Za-z0-9._-]`, maps the rest to `_`, and never yields `.` or `..`.
pub fn sanitise(value: &str) -> String {
    let clean: String =
        value.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
    if clean.is_empty() || clean.chars().all(|c| c == '.') { clean.replace('.', "_") + "_" } else { clean }
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is writable for its length.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "unknown-host".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// `YYYYmmdd-HHMMSS` in UTC, without a time-zone database.
pub fn utc_stamp(time: std::time::SystemTime) -> String {
    let secs = time.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}{month:02}{day:02}-{:02}{:02}{:02}", rem / 3600, rem % 3600 / 60, rem % 60)
}

pub(crate) fn invalid(variable: &'static str, value: &str, accepts: &str) -> Error {
    Error::Config { variable, value: value.to_owned(), accepts: accepts.to_owned() }
}

/// What variable `name` accepts, as its documentation states it.
pub fn accepts(name: &str) -> &'static str {
    VARIABLES.iter().find(|v| v.name == name).map_or("", |v| v.accepts)
}

fn flag(env: &BTreeMap<String, String>, name: &'static str, default: bool) -> Result<bool> {
    match env.get(name).map(|v| v.trim()) {
        None | Some("") => Ok(default),
        Some("1" | "true" | "yes" | "on") => Ok(true),
        Some("0" | "false" | "no" | "off") => Ok(false),
        Some(other) => Err(invalid(name, other, accepts(name))),
    }
}

/// Bytes of each CUPTI activity buffer unless `ROCPROF_RS_BUFFER_SIZE` says otherwise. The SDK
/// has one buffer per record family whatever the application does, but CUPTI 13 fills one per
/// thread that launches work and hands out new ones while filled ones wait for completion: on
/// the H100, a program launching from 8 threads had 16 to 18 buffers out at once (issue 20).
/// At 8 MiB each, that made the tool's peak RSS 68-74 MiB above a floor that only counts
/// records, and it rose in steps of 8 MiB from run to run; at 1 MiB the buffers are 17 MiB and
/// the tool is 20-24 MiB above the same floor given the same buffer size, for the same kernels
/// per second. A 1 MiB buffer still holds about 4,800 kernel records per completion.
pub const CUPTI_BUFFER_BYTES: usize = 1 << 20;

/// Records per queue batch, at most: the queue's unit of hand-off, and what its default depth
/// ([`Config::queue_batches`]) is counted in. A batch is kept under 128 KiB, glibc's threshold
/// for serving an allocation by `mmap`: at 1,024 records of 128 bytes every new batch was a
/// mapping of its own, whose pages the kernel zeroes on first touch inside the callback (22%
/// more of the callback thread's samples in `clear_page_erms` with counters on).
pub const BATCH_RECORDS: usize = 1020;

/// Batches enough for every record of one full SDK buffer of the smallest records (64-byte API
/// records), and a few more: the SDK's callback then never waits for the writer unless the
/// writer is a whole buffer behind. In SDK 1.0 the application's threads wait while the
/// callback runs, so a callback held up by the writer is held up for them too.
fn default_queue_batches(buffer_bytes: usize) -> u64 {
    const SMALLEST_RECORD: usize = 64;
    ((buffer_bytes / SMALLEST_RECORD).div_ceil(BATCH_RECORDS) as u64 + 8).max(64)
}

fn integer(env: &BTreeMap<String, String>, name: &'static str, default: u64, range: (u64, u64)) -> Result<u64> {
    let Some(text) = env.get(name).map(|v| v.trim()).filter(|v| !v.is_empty()) else { return Ok(default) };
    text.parse::<u64>()
        .ok()
        .filter(|v| (range.0..=range.1).contains(v))
        .ok_or_else(|| invalid(name, text, accepts(name)))
}

fn bytes(env: &BTreeMap<String, String>, name: &'static str, default: usize) -> Result<usize> {
    let Some(text) = env.get(name).map(|v| v.trim()).filter(|v| !v.is_empty()) else { return Ok(default) };
    parse_bytes(text).filter(|&v| (64 << 10..=16 << 30).contains(&v)).ok_or_else(|| invalid(name, text, accepts(name)))
}

/// Bytes, with an optional K, M or G suffix.
pub(crate) fn parse_bytes(text: &str) -> Option<usize> {
    let (digits, shift) = match text.as_bytes().last().map(u8::to_ascii_uppercase) {
        Some(b'K') => (&text[..text.len() - 1], 10),
        Some(b'M') => (&text[..text.len() - 1], 20),
        Some(b'G') => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    digits.parse::<usize>().ok().and_then(|v| v.checked_mul(1 << shift))
}

fn regex(env: &BTreeMap<String, String>, name: &'static str) -> Result<Option<Regex>> {
    let Some(text) = env.get(name).filter(|v| !v.is_empty()) else { return Ok(None) };
    Regex::new(text).map(Some).map_err(|e| {
        let why = e.to_string().lines().last().unwrap_or("invalid").trim().to_owned();
        invalid(name, text, &format!("{} ({why})", accepts(name)))
    })
}

/// Parses `[1-5],[10],[20-30]` (brackets optional).
pub fn parse_iterations(text: &str) -> Option<IterationRange> {
    let mut ranges = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let inner = part.strip_prefix('[').and_then(|p| p.strip_suffix(']')).unwrap_or(part).trim();
        let (lo, hi) = match inner.split_once('-') {
            Some((lo, hi)) => (lo.trim().parse::<u64>().ok()?, hi.trim().parse::<u64>().ok()?),
            None => {
                let n = inner.parse::<u64>().ok()?;
                (n, n)
            }
        };
        if lo == 0 || hi < lo {
            return None;
        }
        ranges.push((lo, hi));
    }
    if ranges.is_empty() { None } else { Some(IterationRange(ranges)) }
}

/// Parses `ROCPROF_RS_DOMAINS`.
pub fn parse_domains(text: &str) -> Option<Domains> {
    let mut domains = Domains::default();
    for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        match word {
            "sys" | "all" => domains = Domains::SYS,
            _ => domains.insert(*Domain::ALL.iter().find(|d| d.name() == word)?),
        }
    }
    (!domains.is_empty()).then_some(domains)
}

impl Config {
    /// How the tables' files are written: all that the format's writer needs of the settings.
    pub fn write_options(&self) -> WriteOptions {
        WriteOptions {
            dir: self.output_dir.clone(),
            stem: self.output_name.clone(),
            compression: self.compression,
            row_group_rows: self.row_group_rows,
            rotation: Rotation { rows: self.rotate_rows, seconds: self.rotate_seconds },
            origin: self.origin.clone(),
            layout: self.layout,
        }
    }

    /// The configuration from this process's environment.
    pub fn from_process_env() -> Result<Config> {
        let env = process_vars()?;
        let placeholders = Placeholders::of_this_process(&env);
        Config::from_vars(&env, &placeholders)
    }

    /// The configuration from `env`, with `placeholders` for file names. Unknown
    /// `ROCPROF_RS_*` variables are refused too: a typo must not silently trace nothing.
    pub fn from_vars(env: &BTreeMap<String, String>, placeholders: &Placeholders) -> Result<Config> {
        // The build script's input, which cargo also exports to the processes it runs.
        const NOT_FOR_THE_TOOL: [&str; 1] = ["ROCPROF_RS_BUILD_ID"];
        if let Some(unknown) = env.keys().find(|k| {
            k.starts_with("ROCPROF_RS_")
                && !VARIABLES.iter().any(|v| v.name == *k)
                && !NOT_FOR_THE_TOOL.contains(&k.as_str())
        }) {
            return Err(Error::UnknownVariable {
                variable: unknown.clone(),
                known: VARIABLES.iter().map(|v| v.name).collect::<Vec<_>>().join(", "),
            });
        }
        let text =
            |name: &str, default: &str| env.get(name).filter(|v| !v.is_empty()).cloned().unwrap_or(default.into());
        let dir = text(OUTPUT_DIR, "rocprof-rs-output");
        let name_template = text(OUTPUT_NAME, "%hostname%-%pid%");
        let name = placeholders.expand_stem(&name_template);
        if !rocprof_rs_format::dataset::is_visible_stem(&name) {
            // Only a stem the user wrote can be invalid: it is named as written.
            return Err(invalid(
                OUTPUT_NAME,
                &name_template,
                &format!(
                    "a file-name stem of printable text, without '/', that does not start with '.' or '_' (readers skip such files); it expands to {name:?}"
                ),
            ));
        }
        let domains_text = text(DOMAINS, "kernel");
        let domains = parse_domains(&domains_text).ok_or_else(|| invalid(DOMAINS, &domains_text, accepts(DOMAINS)))?;
        let kernel_iterations = match env.get(KERNEL_ITERATIONS).filter(|v| !v.trim().is_empty()) {
            None => IterationRange::default(),
            Some(v) => parse_iterations(v).ok_or_else(|| invalid(KERNEL_ITERATIONS, v, accepts(KERNEL_ITERATIONS)))?,
        };
        let policy = match text(POLICY, "lossless").as_str() {
            "lossless" => Policy::Lossless,
            "drop" | "discard" => Policy::Drop,
            other => return Err(invalid(POLICY, other, accepts(POLICY))),
        };
        let compression_text = text(COMPRESSION, "zstd:3");
        let compression = match compression_text.as_str() {
            "zstd" => Compression::Zstd(3),
            "snappy" => Compression::Snappy,
            "none" => Compression::None,
            other => match other.strip_prefix("zstd:").and_then(|l| l.parse::<i32>().ok()) {
                Some(level @ 1..=22) => Compression::Zstd(level),
                _ => return Err(invalid(COMPRESSION, other, accepts(COMPRESSION))),
            },
        };
        let buffer_bytes = bytes(env, BUFFER_SIZE, 8 << 20)?;
        let window = window::Window::from_env(env)?;
        let start_paused = flag(env, START_PAUSED, false)?;
        if let Some(w) = window.filter(|_| start_paused) {
            return Err(invalid(
                WINDOW,
                &w.text(),
                "no windows in a run that starts paused: windows decide when collection is on, regions and \
                 pauses cannot (unset ROCPROF_RS_START_PAUSED, or use regions without windows)",
            ));
        }
        let flight_recorder = flight::FlightRecorder::from_env(env)?;
        let mut domains = domains;
        if flight_recorder.as_ref().is_some_and(|f| f.hang.is_some()) {
            // A hang is launches without kernels: the launch calls must be seen, and its report
            // names the marker ranges a stuck thread is inside.
            domains.insert(Domain::CudaApi);
            domains.insert(Domain::Marker);
        }
        let cupti_buffer_bytes = bytes(env, BUFFER_SIZE, CUPTI_BUFFER_BYTES)?;
        Ok(Config {
            output_dir: PathBuf::from(expand_dir(&dir, placeholders)),
            output_name: name,
            output_name_template: name_template,
            domains,
            kernel_include: regex(env, KERNEL_INCLUDE)?,
            kernel_exclude: regex(env, KERNEL_EXCLUDE)?,
            kernel_iterations,
            demangle: flag(env, DEMANGLE, true)?,
            truncate_kernels: flag(env, TRUNCATE, false)?,
            buffer_bytes,
            cupti_buffer_bytes,
            policy,
            queue_batches: integer(env, QUEUE_BATCHES, default_queue_batches(buffer_bytes), (2, 65_536))? as usize,
            compression,
            row_group_rows: integer(env, ROW_GROUP_ROWS, WriteOptions::DEFAULT_ROW_GROUP_ROWS as u64, (1024, 1 << 24))?
                as usize,
            // A Parquet writer holds every row group's metadata until its file is closed, so
            // one endless file grows its writer's memory with the trace; files of 10M rows keep
            // it flat (and stay easy to move around).
            rotate_rows: integer(env, ROTATE_ROWS, WriteOptions::DEFAULT_ROTATION.rows, (0, u64::MAX))?,
            rotate_seconds: integer(env, ROTATE_SECONDS, 0, (0, u64::MAX))?,
            summary: flag(env, SUMMARY, true)?,
            layout: {
                let name = text(LAYOUT, "flat");
                Layout::from_name(&name).ok_or_else(|| invalid(LAYOUT, &name, accepts(LAYOUT)))?
            },
            origin: Origin::from_variables(&placeholders.hostname, |name| env.get(name).cloned()),
            counters: counters::CounterRequest::from_env(env)?,
            pc_sampling: pc_sampling::PcSampling::from_env(env)?,
            flush_ms: integer(env, FLUSH_MS, 1000, (10, 86_400_000))?,
            start_paused,
            device_sample_ms: integer(env, DEVICE_SAMPLE_MS, 0, (0, 60_000))?,
            device_sample_library: env.get(DEVICE_SAMPLE_LIBRARY).filter(|v| !v.trim().is_empty()).cloned(),
            cupti_dump: env.get(CUPTI_DUMP).filter(|v| !v.is_empty()).map(PathBuf::from),
            cupti_dump_max: integer(env, CUPTI_DUMP_MAX, 1 << 20, (0, u64::MAX))?,
            cupti_buffer_records: integer(env, CUPTI_BUFFER_RECORDS, 0, (0, u64::MAX))?,
            window,
            graph_trace: window::GraphTrace::from_env(env)?,
            flight_recorder,
            fault: match env.get(TEST_FAULT).map(String::as_str) {
                None | Some("") => None,
                Some("panic-in-ingest") => Some(Fault::PanicInIngest),
                Some(other) => return Err(invalid(TEST_FAULT, other, accepts(TEST_FAULT))),
            },
        })
    }
}

/// The process's `ROCPROF_RS_*` variables and the rank variables `%rank%` reads; a
/// `ROCPROF_RS_*` variable that is not UTF-8 is refused.
pub fn process_vars() -> Result<BTreeMap<String, String>> {
    let vars = utf8_vars(std::env::vars_os())?;
    Ok(vars.into_iter().filter(|(k, _)| k.starts_with("ROCPROF_RS_") || is_rank_variable(k)).collect())
}

/// The variables of `vars` that are UTF-8, name and value. A `ROCPROF_RS_*` one that is not is
/// an error naming it: skipped, it would trace with the default the user did not choose (an
/// output directory with a 0xff byte wrote to `./rocprof-rs-output`). Other variables are not
/// the tool's to judge and are left out.
pub fn utf8_vars(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Result<BTreeMap<String, String>> {
    let mut kept = BTreeMap::new();
    for (key, value) in vars {
        match (key.into_string(), value.into_string()) {
            (Ok(key), Ok(value)) => {
                kept.insert(key, value);
            }
            (key, value) => {
                let lossy = |text: std::result::Result<String, OsString>| {
                    text.unwrap_or_else(|raw| raw.to_string_lossy().into_owned())
                };
                let variable = lossy(key);
                if variable.starts_with("ROCPROF_RS_") {
                    return Err(Error::NotUtf8 { variable, value: lossy(value) });
                }
            }
        }
    }
    Ok(kept)
}

impl Config {
    /// This configuration for a process forked from the one it was made for: the same
    /// directory, and a file-name stem of the child's own, so the two never share a file.
    pub fn for_forked_child(&self, placeholders: &Placeholders) -> Config {
        let mut name = placeholders.expand_stem(&self.output_name_template);
        if name == self.output_name {
            name = format!("{name}-{}", placeholders.pid);
        }
        Config { output_name: name, ..self.clone() }
    }
}

fn is_rank_variable(key: &str) -> bool {
    use rocprof_rs_format::origin::{LOCAL_RANK_VARIABLES, RANK_VARIABLES, WORLD_SIZE_VARIABLES};
    RANK_VARIABLES.contains(&key) || LOCAL_RANK_VARIABLES.contains(&key) || WORLD_SIZE_VARIABLES.contains(&key)
}

/// Expands placeholders component by component, so a placeholder's value can never be `..` or
/// contain a separator, while the user's own directory path is kept as written.
fn expand_dir(template: &str, placeholders: &Placeholders) -> String {
    template
        .split('/')
        .map(|part| if part.contains('%') { sanitise(&placeholders.expand(part)) } else { part.to_owned() })
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placeholders() -> Placeholders {
        Placeholders {
            pid: 42,
            ppid: 1,
            hostname: "node/../evil".into(),
            rank: "3".into(),
            timestamp: "20261122-101010".into(),
        }
    }

    fn parse(pairs: &[(&str, &str)]) -> Result<Config> {
        let env = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_vars(&env, &placeholders())
    }

    #[test]
    fn defaults_trace_kernels_losslessly_with_zstd() {
        let c = parse(&[]).unwrap();
        assert_eq!(c.domains.iter().collect::<Vec<_>>(), vec![Domain::Kernel]);
        assert_eq!(c.policy, Policy::Lossless);
        assert_eq!(c.compression, Compression::Zstd(3));
        assert_eq!(c.output_name, "node_.._evil-42");
        assert_eq!(c.output_dir, PathBuf::from("rocprof-rs-output"));
    }

    #[test]
    fn placeholders_cannot_escape_the_directory() {
        let c = parse(&[(OUTPUT_DIR, "/tmp/out/%hostname%/rank%rank%")]).unwrap();
        assert_eq!(c.output_dir, PathBuf::from("/tmp/out/node_.._evil/rank3"));
        let p = Placeholders { hostname: "..".into(), ..placeholders() };
        assert_eq!(expand_dir("out/%hostname%", &p), "out/___");
        assert!(parse(&[(OUTPUT_NAME, "a/b")]).is_err());
    }

    #[test]
    fn bad_values_name_the_variable_and_what_it_accepts() {
        for (var, value) in [
            (DOMAINS, "kernel,gpu"),
            (POLICY, "maybe"),
            (COMPRESSION, "zstd:99"),
            (BUFFER_SIZE, "12"),
            (KERNEL_ITERATIONS, "[5-2]"),
            (KERNEL_INCLUDE, "(unclosed"),
            (DEMANGLE, "perhaps"),
            (ROW_GROUP_ROWS, "-1"),
            (DEVICE_SAMPLE_MS, "60001"),
            (DEVICE_SAMPLE_MS, "10ms"),
            (START_PAUSED, "paused"),
        ] {
            let message = parse(&[(var, value)]).unwrap_err().to_string();
            assert!(message.contains(var) && message.contains(value), "{message}");
            assert!(message.contains(accepts(var).split(' ').next().unwrap()), "{message}");
        }
        let message = parse(&[("ROCPROF_RS_DOMIANS", "kernel")]).unwrap_err().to_string();
        assert!(message.contains("ROCPROF_RS_DOMIANS") && message.contains(DOMAINS), "{message}");
    }

    #[test]
    fn domains_iterations_and_sizes_parse() {
        let c = parse(&[
            (DOMAINS, "kernel, hip_api,marker"),
            (KERNEL_ITERATIONS, "[1-3],[10]"),
            (BUFFER_SIZE, "4M"),
            (COMPRESSION, "zstd:9"),
        ])
        .unwrap();
        assert!(c.domains.contains(Domain::HipApi) && !c.domains.contains(Domain::MemoryCopy));
        assert!(
            c.kernel_iterations.contains(2) && c.kernel_iterations.contains(10) && !c.kernel_iterations.contains(4)
        );
        assert_eq!((c.buffer_bytes, c.cupti_buffer_bytes), (4 << 20, 4 << 20), "one setting for both libraries");
        let defaults = parse(&[]).unwrap();
        assert_eq!((defaults.buffer_bytes, defaults.cupti_buffer_bytes), (8 << 20, CUPTI_BUFFER_BYTES));
        assert_eq!(defaults.queue_batches, 137, "counted from the SDK's buffer, whichever library");
        assert_eq!(c.compression, Compression::Zstd(9));
        assert_eq!(parse(&[(DOMAINS, "sys")]).unwrap().domains.iter().count(), 9);
    }

    #[test]
    fn the_device_sampler_is_off_unless_asked_for() {
        let defaults = parse(&[]).unwrap();
        assert_eq!((defaults.device_sample_ms, defaults.device_sample_library.as_deref()), (0, None));
        let c = parse(&[(DEVICE_SAMPLE_MS, " 1 "), (DEVICE_SAMPLE_LIBRARY, "/opt/x/libamd_smi.so")]).unwrap();
        assert_eq!((c.device_sample_ms, c.device_sample_library.as_deref()), (1, Some("/opt/x/libamd_smi.so")));
        assert_eq!(parse(&[(DEVICE_SAMPLE_LIBRARY, "  ")]).unwrap().device_sample_library, None);
        assert!(parse(&[(START_PAUSED, "1")]).unwrap().start_paused);
    }

    #[test]
    fn a_forked_child_gets_a_stem_of_its_own() {
        let parent = parse(&[(OUTPUT_NAME, "run-%pid%")]).unwrap();
        let child = Placeholders { pid: 43, ..placeholders() };
        assert_eq!(parent.for_forked_child(&child).output_name, "run-43");
        let fixed = parse(&[(OUTPUT_NAME, "run")]).unwrap();
        assert_eq!(fixed.for_forked_child(&child).output_name, "run-43");
        assert_eq!(fixed.for_forked_child(&child).output_dir, fixed.output_dir);
    }

    #[test]
    fn a_variable_that_is_not_utf8_is_refused_by_name() {
        use std::os::unix::ffi::OsStringExt;
        let one = |k: &[u8], v: &[u8]| [(OsString::from_vec(k.to_vec()), OsString::from_vec(v.to_vec()))];
        let message = utf8_vars(one(b"ROCPROF_RS_POLICY", b"drop\xff")).unwrap_err().to_string();
        assert!(message.contains("ROCPROF_RS_POLICY=\"drop\u{fffd}\"") && message.contains("UTF-8"), "{message}");
        let message = utf8_vars(one(b"ROCPROF_RS_DOMAINS\xff", b"kernel")).unwrap_err().to_string();
        assert!(message.contains("ROCPROF_RS_DOMAINS\u{fffd}"), "{message}");
        assert!(utf8_vars(one(b"LANG", b"\xff")).unwrap().is_empty(), "not the tool's to judge");
        assert_eq!(utf8_vars(one(b"ROCPROF_RS_POLICY", b"drop")).unwrap()[POLICY], "drop");
    }

    #[test]
    fn a_hostname_never_makes_the_default_stem_invalid() {
        for host in ["_gpu01", ".local", "..", "", "-ok"] {
            let p = Placeholders { hostname: host.into(), ..placeholders() };
            let c = Config::from_vars(&BTreeMap::new(), &p).unwrap_or_else(|e| panic!("host {host:?}: {e}"));
            assert!(rocprof_rs_format::dataset::is_visible_stem(&c.output_name), "{host:?}: {}", c.output_name);
            assert!(c.output_name.ends_with("-42"), "{}", c.output_name);
            let child = c.for_forked_child(&Placeholders { pid: 43, ..p.clone() });
            assert!(rocprof_rs_format::dataset::is_visible_stem(&child.output_name), "{}", child.output_name);
        }
        let p = Placeholders { hostname: "_gpu01".into(), ..placeholders() };
        assert_eq!(p.expand_stem("%hostname%-%pid%"), "hostname_gpu01-42");
        assert_eq!(p.expand_stem("run-%hostname%"), "run-_gpu01");
        let env = [(OUTPUT_NAME.to_owned(), "_%hostname%".to_owned())].into_iter().collect();
        let message = Config::from_vars(&env, &p).unwrap_err().to_string();
        assert!(message.contains("\"_%hostname%\"") && message.contains("__gpu01"), "{message}");
    }

    #[test]
    fn utc_stamps_are_civil_dates() {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_000_000);
        assert_eq!(utc_stamp(t), "20261118-110640");
    }
}
