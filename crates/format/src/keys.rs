//! The run's metadata keys: every Parquet file carries them in its key-value metadata, and
//! `<stem>.metadata.json` holds the same ones with the run's totals. One constant per key, for
//! writers and readers alike.

/// The format's version ([`crate::FORMAT_VERSION`]).
pub const FORMAT_VERSION: &str = "rocprof_rs.format_version";
/// The writing rocprof-rs's version.
pub const TOOL_VERSION: &str = "rocprof_rs.tool_version";
/// The library that traced: `rocprofiler-sdk` or `cupti`.
pub const BACKEND: &str = "rocprof_rs.backend";
/// The rows' vendor: `amd` or `nvidia`.
pub const VENDOR: &str = "rocprof_rs.vendor";
/// The profiled process's command line.
pub const COMMAND_LINE: &str = "rocprof_rs.command_line";
/// The profiled process's id.
pub const PID: &str = "rocprof_rs.pid";
/// The clock of every `*_ns` column.
pub const CLOCK: &str = "rocprof_rs.clock";
/// The run metadata's `dropped` object: the key of the tracing library's own drops (named
/// when rocprofiler-sdk was the only library).
pub const DROPPED_BY_LIBRARY: &str = "sdk";
/// [`CLOCK`]'s value: every timestamp of the format is on this clock, whichever library took it.
pub const CLOCK_NAME: &str = "CLOCK_BOOTTIME nanoseconds (the rocprofiler-sdk timestamp clock)";
/// When the run started, on that clock.
pub const START_NS: &str = "rocprof_rs.start_ns";
/// CLOCK_REALTIME nanoseconds read at [`START_NS`]: what aligns the clocks of hosts.
pub const START_UNIX_NS: &str = "rocprof_rs.start_unix_ns";
/// The host the process ran on.
pub const HOST: &str = "rocprof_rs.host";
/// The process's rank in a distributed job, where a launcher set one.
pub const RANK: &str = "rocprof_rs.rank";
/// Its rank on its host.
pub const LOCAL_RANK: &str = "rocprof_rs.local_rank";
/// The job's number of ranks.
pub const WORLD_SIZE: &str = "rocprof_rs.world_size";
/// When the file (or the run) ended, on that clock.
pub const END_NS: &str = "rocprof_rs.end_ns";
/// The queue's policy: `lossless` or `drop`.
pub const POLICY: &str = "rocprof_rs.policy";
/// The traced domains, comma-separated.
pub const DOMAINS: &str = "rocprof_rs.domains";
/// rocprofiler-sdk's version, `major.minor.patch`.
pub const SDK_VERSION: &str = "rocprof_rs.sdk_version";
/// CUPTI's `CUPTI_API_VERSION`.
pub const CUPTI_API_VERSION: &str = "rocprof_rs.cupti_api_version";
/// The libcupti file loaded.
pub const CUPTI_LIBRARY: &str = "rocprof_rs.cupti_library";
/// The file's table.
pub const TABLE: &str = "rocprof_rs.table";
/// Rows written per table, as a JSON object.
pub const RECORDS: &str = "rocprof_rs.records";
/// Records lost, by whom, as a JSON object.
pub const DROPPED: &str = "rocprof_rs.dropped";
/// The counter groups per agent, as JSON.
pub const COUNTER_GROUPS: &str = "rocprof_rs.counter_groups";
/// The passes the largest counter plan needs.
pub const COUNTER_PASSES: &str = "rocprof_rs.counter_passes";
/// What an imported dataset came from.
pub const IMPORTED_FROM: &str = "rocprof_rs.imported_from";
/// In a process row's metadata: roofs measured on the machine the process ran on (an import of
/// rocprof-compute's `roofline.csv`), which `analyze` uses in place of the datasheet's.
pub const MEASURED_ROOFS: &str = "rocprof_rs.measured_roofs";

/// The file beside the tables that holds the run's metadata as JSON.
pub fn metadata_file_name(stem: &str) -> String {
    format!("{stem}{METADATA_FILE_SUFFIX}")
}

/// What every run-metadata file's name ends with.
pub const METADATA_FILE_SUFFIX: &str = ".metadata.json";

/// In the run-metadata file: counted launches that ran with kernel activity off (CUPTI's SASS
/// passes), which have counter rows but no `kernel_dispatch` row.
pub const COUNTER_DISPATCHES_UNTRACED: &str = "counter_dispatches_untraced";

/// In the run-metadata file: PC samples taken (the sum of `pc_sample`'s `samples`, with those
/// no kernel was found for).
pub const PC_SAMPLES: &str = "pc_samples";
/// In the run-metadata file: PC samples the sampling library or the tool lost.
pub const PC_SAMPLES_DROPPED: &str = "pc_samples_dropped";
/// In the run-metadata file: PC samples whose dispatch named no kernel the writer knew (their
/// rows have kernel id 0).
pub const PC_SAMPLES_UNRESOLVED: &str = "pc_samples_unresolved";

/// The metadata file's object describing a windowed run: `setting` (`ON/EVERY`), `windows`,
/// `recorded_ns` (the windows' time together), `run_ns` (from the run's start to the file's
/// writing) and `recorded_share` (their ratio). Absent from a run without windows.
pub const WINDOWS: &str = "windows";

/// The metadata file's key for the level CUDA graphs were traced at (`node` or `graph`),
/// where it is not the default `node`.
pub const GRAPH_TRACE: &str = "graph_trace";
