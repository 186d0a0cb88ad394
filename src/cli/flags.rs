//! The flags of `rocprof-rs run` and the `ROCPROF_RS_*` variables they stand for.
//!
//! Names follow rocprofv3 wherever they mean the same, so a rocprofv3 command line mostly works
//! with `rocprofv3` replaced by `rocprof-rs run`. Values are kept as text: the library's
//! [`Config::from_vars`](rocprof_rs::config::Config::from_vars) is the one place that judges
//! them, so the flag and the variable can never disagree about what is valid.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use rocprof_rs::config::{self, Domain, Domains};

use super::output_formats::{FormatError, OutputFormat, Outputs};

/// The rocprofv3 trace options and the domains each turns on; madengine profiles are read
/// through the same table, so a flag means the same on the command line and in a profile.
pub(crate) const TRACE_FLAGS: &[(&str, &[Domain])] = &[
    ("--kernel-trace", &[Domain::Kernel]),
    ("--hip-trace", &[Domain::HipApi]),
    ("--hip-runtime-trace", &[Domain::HipApi]),
    ("--hsa-trace", &[Domain::HsaApi]),
    ("--rccl-trace", &[Domain::RcclApi]),
    ("--memory-copy-trace", &[Domain::MemoryCopy]),
    ("--marker-trace", &[Domain::Marker]),
    ("--scratch-memory-trace", &[Domain::ScratchMemory]),
    ("--memory-allocation-trace", &[Domain::MemoryAllocation]),
    ("--cuda-api-trace", &[Domain::CudaApi]),
    (
        "--runtime-trace",
        &[
            Domain::HipApi,
            Domain::Marker,
            Domain::Kernel,
            Domain::MemoryCopy,
            Domain::ScratchMemory,
            Domain::MemoryAllocation,
        ],
    ),
    ("--sys-trace", &Domain::ALL),
];

/// The domains of a rocprofv3 trace option, if it is one.
pub(crate) fn trace_flag(flag: &str) -> Option<&'static [Domain]> {
    TRACE_FLAGS.iter().find(|(name, _)| *name == flag).map(|(_, domains)| *domains)
}

/// The `ROCPROF_RS_DOMAINS` value for a set; `sys` when it is everything, as a user would write.
pub(crate) fn domains_text(domains: Domains) -> String {
    if domains == Domains::SYS {
        return "sys".into();
    }
    domains.iter().map(Domain::name).collect::<Vec<_>>().join(",")
}

/// The tracing library `rocprof-rs run` injects the tool into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// From the drivers present: NVIDIA's or AMD's, or both when both or neither are there.
    Auto,
    /// NVIDIA CUPTI, by `CUDA_INJECTION64_PATH` (and `NVTX_INJECTION64_PATH` for markers).
    Cupti,
    /// AMD rocprofiler-sdk, by `ROCP_TOOL_LIBRARIES`.
    #[value(name = "rocprofiler-sdk")]
    RocprofilerSdk,
}

/// The options of `rocprof-rs run`; the subcommand's own help is on its variant in `main.rs`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Trace kernel dispatches. This is the default when no trace option is given.
    #[arg(long, help_heading = "What to trace")]
    kernel_trace: bool,
    /// Trace the HIP runtime API. rocprofv3's --hip-trace also covers the HIP compiler API,
    /// which rocprof-rs does not trace.
    #[arg(long, visible_alias = "hip-runtime-trace", help_heading = "What to trace")]
    hip_trace: bool,
    /// Trace the HSA API (core and AMD extensions).
    #[arg(long, help_heading = "What to trace")]
    hsa_trace: bool,
    /// Trace the RCCL API.
    #[arg(long, help_heading = "What to trace")]
    rccl_trace: bool,
    /// Trace asynchronous memory copies.
    #[arg(long, help_heading = "What to trace")]
    memory_copy_trace: bool,
    /// Trace ROCTx markers and ranges.
    #[arg(long, help_heading = "What to trace")]
    marker_trace: bool,
    /// Trace scratch-memory allocations.
    #[arg(long, help_heading = "What to trace")]
    scratch_memory_trace: bool,
    /// Trace device memory allocations.
    #[arg(long, help_heading = "What to trace")]
    memory_allocation_trace: bool,
    /// NVIDIA: trace CUDA kernel-launch calls (runtime and driver; cuda_api table), through
    /// CUPTI's callbacks on the launch calls only.
    #[arg(long, help_heading = "What to trace")]
    cuda_api_trace: bool,
    /// As rocprofv3: HIP runtime API, markers, kernels, memory copies, scratch memory and memory
    /// allocations.
    #[arg(long, help_heading = "What to trace")]
    runtime_trace: bool,
    /// Everything rocprof-rs can trace (ROCPROF_RS_DOMAINS=sys); like rocprofv3's, less the HIP
    /// compiler API.
    #[arg(long, help_heading = "What to trace")]
    sys_trace: bool,

    /// Keep only kernels whose name matches this regular expression.
    #[arg(long, value_name = "RE", help_heading = "Which kernels")]
    kernel_include_regex: Option<String>,
    /// Drop kernels whose name matches this regular expression.
    #[arg(long, value_name = "RE", help_heading = "Which kernels")]
    kernel_exclude_regex: Option<String>,
    /// Keep only these 1-based iterations of each kernel, e.g. [1-5],[10].
    #[arg(long, value_name = "RANGES", help_heading = "Which kernels")]
    kernel_iteration_range: Option<String>,
    /// Cut demangled kernel names to the bare function name.
    #[arg(long, help_heading = "Which kernels")]
    truncate_kernels: bool,
    /// Keep kernel names mangled (the mangled name is always kept in its own column).
    #[arg(long, help_heading = "Which kernels")]
    no_demangle: bool,

    /// Where the Parquet files go; placeholders %pid% %ppid% %hostname% %rank% %timestamp%.
    #[arg(short = 'd', long, value_name = "DIR", help_heading = "Output")]
    output_directory: Option<String>,
    /// The file-name stem of each process's files; the same placeholders.
    #[arg(short = 'o', long, value_name = "NAME", help_heading = "Output")]
    output_file: Option<String>,
    /// Parquet compression: zstd, zstd:LEVEL (1-22), snappy or none.
    #[arg(long, value_name = "SPEC", help_heading = "Output")]
    compression: Option<String>,
    /// Rows per Parquet row group.
    #[arg(long, value_name = "N", help_heading = "Output")]
    row_group_rows: Option<String>,
    /// Start a new file for a table after this many rows (0: never).
    #[arg(long, value_name = "N", help_heading = "Output")]
    rotate_rows: Option<String>,
    /// Start a new file for a table after this many seconds (0: never).
    #[arg(long, value_name = "N", help_heading = "Output")]
    rotate_seconds: Option<String>,
    /// flat: every process's files in the table's folder; hive: under host=…/rank=… folders,
    /// which engines prune.
    #[arg(long, value_name = "flat|hive", help_heading = "Output")]
    layout: Option<String>,
    /// Do not print the tool's one-line summary when the application exits.
    #[arg(long, help_heading = "Output")]
    quiet: bool,
    /// rocprofv3's output formats, written from the dataset into the output directory when the
    /// application ends: parquet (the dataset, always written), csv, json, pftrace, rocpd
    /// (spaces or commas between them; rocprofv3's otf2 is not written).
    #[arg(long, value_name = "FORMAT", num_args = 1.., value_delimiter = ',', value_parser = parse_output_format, help_heading = "Output")]
    output_format: Vec<OutputFormat>,
    /// As rocprofv3's --stats: its statistics files (kernel_stats.csv, hip_api_stats.csv,
    /// memory_copy_stats.csv, marker_api_stats.csv) in the output directory when the
    /// application ends.
    #[arg(long, help_heading = "Output")]
    stats: bool,
    /// The name of the Perfetto trace --output-format pftrace writes (default trace.pftrace).
    #[arg(long, value_name = "NAME", value_parser = parse_pftrace_name, help_heading = "Output")]
    perfetto_trace_filename: Option<String>,

    /// lossless slows the application down rather than lose a record; drop never slows it and
    /// counts what it loses.
    #[arg(long, value_name = "lossless|drop", help_heading = "Overhead")]
    policy: Option<String>,
    /// Bytes of each SDK record buffer, with an optional K, M or G suffix.
    #[arg(long, value_name = "SIZE", help_heading = "Overhead")]
    buffer_size: Option<String>,
    /// Batches the queue to the writer thread holds.
    #[arg(long, value_name = "N", help_heading = "Overhead")]
    queue_batches: Option<String>,

    /// Collect these hardware counters on every dispatch (names separated by spaces or
    /// commas). A set larger than one hardware pass is split into groups that successive
    /// dispatches of each kernel take in turn.
    #[arg(long, value_name = "COUNTER", num_args = 1.., value_delimiter = ',', help_heading = "Counters")]
    pmc: Vec<String>,
    /// A rocprof counter input file: one pass per `pmc:` line.
    #[arg(short = 'i', long, value_name = "FILE", help_heading = "Counters")]
    input: Option<PathBuf>,
    /// A named counter set, resolved for each GPU's architecture: compute_bound, memory_bound,
    /// communication_bound, instruction_mix, full_profile, roofline, basic or extended
    /// (`rocprof-rs avail` shows which each GPU runs in full).
    #[arg(long, value_name = "NAME", help_heading = "Counters")]
    preset: Option<String>,
    /// Keep one value per hardware instance (XCC, shader engine, cache channel) instead of their
    /// sum.
    #[arg(long, help_heading = "Counters")]
    counter_instances: bool,
    /// rotate: groups taken in turn by successive dispatches, in one run; application: one run
    /// of the application per group, as rocprofv3 does.
    #[arg(long, value_name = "rotate|application", help_heading = "Counters")]
    counter_passes: Option<String>,

    /// Accepted for rocprofv3's command lines: rocprof-rs's PC sampling needs no opt-in (the
    /// method turns it on).
    #[arg(long, help_heading = "PC sampling")]
    pc_sampling_beta_enabled: bool,
    /// Sample where each kernel's waves are, into the pc_sample table: host_trap (a host
    /// thread interrupts the waves at an interval; no stall reason) or stochastic (the GPU's
    /// sampling hardware, with whether each wave issued and why not). NVIDIA: either one turns
    /// on CUPTI's PC sampling, which samples as stochastic does.
    #[arg(long, value_name = "host_trap|stochastic", help_heading = "PC sampling")]
    pc_sampling_method: Option<String>,
    /// What the interval counts: time (microseconds), cycles or instructions; by default the
    /// method's own (time for host_trap, cycles for stochastic).
    #[arg(long, value_name = "time|cycles|instructions", help_heading = "PC sampling")]
    pc_sampling_unit: Option<String>,
    /// The interval between samples, in the unit (1000 µs, or 2^20 cycles, by default).
    #[arg(long, value_name = "N", help_heading = "PC sampling")]
    pc_sampling_interval: Option<String>,

    /// Sample every GPU's power, energy counter, clocks, memory, busy % and temperature (NVML on
    /// NVIDIA, AMD SMI on AMD) into the device_sample table, every MS milliseconds (1 to 60000;
    /// 10 when given without a value).
    #[arg(long, value_name = "MS", num_args = 0..=1, default_missing_value = "10", help_heading = "Device telemetry")]
    device_sample: Option<String>,
    /// The libamd_smi.so or libnvidia-ml.so.1 to sample through, where not found by its name.
    #[arg(long, value_name = "PATH", help_heading = "Device telemetry")]
    device_sample_library: Option<String>,

    /// Record only in windows of ON every EVERY (for example 200ms/20s; units us, ms, s, m,
    /// h), the first at the start: nearly free between windows. The window table holds each
    /// window, the metadata the share of the run recorded, and stats scale to the run.
    #[arg(long, value_name = "ON/EVERY", help_heading = "Always on")]
    window: Option<String>,
    /// NVIDIA: trace CUDA graph launches node by node (node: a kernel_dispatch row per kernel
    /// of every replay) or as one graph_launch row per launch (graph: CUPTI's graph-level
    /// records, far cheaper; kernel rows only inside --window's windows).
    #[arg(long, value_name = "graph|node", help_heading = "Always on")]
    graph_trace: Option<String>,
    /// Keep the last SECONDS of records in memory and write nothing until a trigger (the dump
    /// signal, OUTPUT_DIR/dump-request, rocprof_rs.dump(), a slow step, a hang, --dump-on-exit)
    /// writes them as a dataset under OUTPUT_DIR/dump-*.
    #[arg(long, value_name = "SECONDS", help_heading = "Always on")]
    flight_recorder: Option<String>,
    /// The most the flight recorder keeps (K, M, G; 16M to 64G).
    #[arg(long, value_name = "BYTES", help_heading = "Always on")]
    flight_recorder_memory: Option<String>,
    /// usr2, usr1 or off: the signal that asks for a dump.
    #[arg(long, value_name = "usr2|usr1|off", help_heading = "Always on")]
    dump_signal: Option<String>,
    /// Dump when the run ends too.
    #[arg(long, help_heading = "Always on")]
    dump_on_exit: bool,
    /// Markers whose message matches are steps: a step slower than --slow-step-factor times the
    /// running median dumps.
    #[arg(long, value_name = "REGEX", help_heading = "Always on")]
    step_marker: Option<String>,
    /// How many times the running median makes a step slow (1.1 to 1000; default 3).
    #[arg(long, value_name = "K", help_heading = "Always on")]
    slow_step_factor: Option<String>,
    /// NVIDIA: dump when no kernel has finished for SECONDS while launches are outstanding.
    #[arg(long, value_name = "SECONDS", help_heading = "Always on")]
    hang_seconds: Option<String>,

    /// Read a madengine profiling profile (JSON) and do what it asks where rocprof-rs can;
    /// every part it cannot do is named on stderr. Options given here override it.
    #[arg(long, value_name = "FILE.json", help_heading = "Launch")]
    pub(crate) profile: Option<PathBuf>,
    /// Also put the tool in LD_PRELOAD, for applications that load HIP in a way
    /// ROCP_TOOL_LIBRARIES does not reach.
    #[arg(long, help_heading = "Launch")]
    pub(crate) preload: bool,
    /// The tool library to load instead of the librocprof_rs.so installed with this command.
    #[arg(long, value_name = "PATH", help_heading = "Launch")]
    pub(crate) tool: Option<PathBuf>,
    /// Which tracing library to inject into: rocprofiler-sdk (AMD, through
    /// ROCP_TOOL_LIBRARIES) or cupti (NVIDIA, through CUDA_INJECTION64_PATH). auto picks from
    /// the GPU drivers present, and injects into both when it cannot tell.
    #[arg(long, value_name = "auto|cupti|rocprofiler-sdk", default_value = "auto", help_heading = "Launch")]
    pub(crate) backend: Backend,

    /// The application and its arguments, after `--`; run directly, not through a shell.
    #[arg(last = true, required = true, value_name = "APP")]
    pub(crate) command: Vec<OsString>,
}

fn parse_output_format(value: &str) -> Result<OutputFormat, FormatError> {
    OutputFormat::parse(value)
}

fn parse_pftrace_name(value: &str) -> Result<String, FormatError> {
    Outputs::check_pftrace_name(value).map(|()| value.to_owned())
}

impl RunArgs {
    /// The files written besides the dataset when the application ends.
    pub fn outputs(&self) -> Outputs {
        Outputs {
            formats: self.output_format.iter().copied().collect(),
            stats: self.stats,
            pftrace_name: self.perfetto_trace_filename.clone(),
        }
    }

    /// The variables the options set; everything not given is left to the environment.
    pub fn vars(&self) -> BTreeMap<String, String> {
        let mut vars = BTreeMap::new();
        let traced = [
            (self.kernel_trace, "--kernel-trace"),
            (self.hip_trace, "--hip-trace"),
            (self.hsa_trace, "--hsa-trace"),
            (self.rccl_trace, "--rccl-trace"),
            (self.memory_copy_trace, "--memory-copy-trace"),
            (self.marker_trace, "--marker-trace"),
            (self.scratch_memory_trace, "--scratch-memory-trace"),
            (self.memory_allocation_trace, "--memory-allocation-trace"),
            (self.cuda_api_trace, "--cuda-api-trace"),
            (self.runtime_trace, "--runtime-trace"),
            (self.sys_trace, "--sys-trace"),
        ];
        let mut domains = Domains::default();
        for (_, flag) in traced.iter().filter(|(on, _)| *on) {
            trace_flag(flag).unwrap_or_default().iter().for_each(|d| domains.insert(*d));
        }
        if !domains.is_empty() {
            vars.insert(config::DOMAINS.to_owned(), domains_text(domains));
        }
        let texts = [
            (config::KERNEL_INCLUDE, &self.kernel_include_regex),
            (config::KERNEL_EXCLUDE, &self.kernel_exclude_regex),
            (config::KERNEL_ITERATIONS, &self.kernel_iteration_range),
            (config::OUTPUT_DIR, &self.output_directory),
            (config::OUTPUT_NAME, &self.output_file),
            (config::COMPRESSION, &self.compression),
            (config::ROW_GROUP_ROWS, &self.row_group_rows),
            (config::ROTATE_ROWS, &self.rotate_rows),
            (config::ROTATE_SECONDS, &self.rotate_seconds),
            (config::LAYOUT, &self.layout),
            (config::POLICY, &self.policy),
            (config::BUFFER_SIZE, &self.buffer_size),
            (config::QUEUE_BATCHES, &self.queue_batches),
            (config::DEVICE_SAMPLE_MS, &self.device_sample),
            (config::PC_SAMPLING_METHOD, &self.pc_sampling_method),
            (config::PC_SAMPLING_UNIT, &self.pc_sampling_unit),
            (config::PC_SAMPLING_INTERVAL, &self.pc_sampling_interval),
            (config::DEVICE_SAMPLE_LIBRARY, &self.device_sample_library),
            (config::WINDOW, &self.window),
            (config::GRAPH_TRACE, &self.graph_trace),
            (config::FLIGHT_RECORDER, &self.flight_recorder),
            (config::FLIGHT_RECORDER_MEMORY, &self.flight_recorder_memory),
            (config::DUMP_SIGNAL, &self.dump_signal),
            (config::STEP_MARKER, &self.step_marker),
            (config::SLOW_STEP_FACTOR, &self.slow_step_factor),
            (config::HANG_SECONDS, &self.hang_seconds),
        ];
        for (name, value) in texts {
            if let Some(value) = value {
                vars.insert(name.to_owned(), value.clone());
            }
        }
        if !self.pmc.is_empty() {
            vars.insert(config::PMC.to_owned(), self.pmc.join(","));
        }
        if let Some(path) = &self.input {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
            vars.insert(config::PMC_FILE.to_owned(), path.display().to_string());
        }
        if let Some(preset) = &self.preset {
            vars.insert(config::COUNTER_PRESET.to_owned(), preset.clone());
        }
        if let Some(passes) = &self.counter_passes {
            vars.insert(config::COUNTER_PASSES.to_owned(), passes.clone());
        }
        let switches = [
            (config::COUNTER_INSTANCES, self.counter_instances, "1"),
            (config::TRUNCATE, self.truncate_kernels, "1"),
            (config::DEMANGLE, self.no_demangle, "0"),
            (config::SUMMARY, self.quiet, "0"),
            (config::DUMP_ON_EXIT, self.dump_on_exit, "1"),
        ];
        for (name, on, value) in switches {
            if on {
                vars.insert(name.to_owned(), value.to_owned());
            }
        }
        vars
    }
}

/// The long help's list of variables, built from the library's own table so it cannot drift.
pub fn variables_help() -> String {
    let mut text = String::from(
        "The tool library reads only these environment variables; the options above set them for the \
         application, and any already in the environment pass through unless an option overrides them. \
         rocprof-rs also sets ROCP_TOOL_LIBRARIES (and LD_PRELOAD with --preload) for the application, \
         keeping what was there.\n\nEnvironment:",
    );
    for variable in config::VARIABLES {
        let _ = write!(text, "\n  {}\n      {} [default: {}]", variable.name, variable.accepts, variable.default);
    }
    text
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        run: RunArgs,
    }

    fn vars(args: &[&str]) -> BTreeMap<String, String> {
        let argv = ["run"].iter().chain(args).chain(&["--", "app"]);
        Cli::try_parse_from(argv).expect("the options parse").run.vars()
    }

    fn pairs(expected: &[(&str, &str)]) -> BTreeMap<String, String> {
        expected.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn no_option_sets_no_variable_so_the_environment_and_defaults_decide() {
        assert!(vars(&[]).is_empty());
    }

    #[test]
    fn trace_options_become_one_domain_list() {
        assert_eq!(vars(&["--kernel-trace"]), pairs(&[(config::DOMAINS, "kernel")]));
        assert_eq!(vars(&["--hip-runtime-trace"]), pairs(&[(config::DOMAINS, "hip_api")]));
        assert_eq!(
            vars(&["--marker-trace", "--hip-trace", "--kernel-trace"]),
            pairs(&[(config::DOMAINS, "kernel,hip_api,marker")])
        );
        assert_eq!(
            vars(&["--runtime-trace"]),
            pairs(&[(config::DOMAINS, "kernel,memory_copy,hip_api,marker,scratch_memory,memory_allocation")])
        );
        // Every AMD domain is not `sys`, which takes CUDA's launch calls too.
        assert_eq!(
            vars(&["--runtime-trace", "--hsa-trace", "--rccl-trace"]),
            pairs(&[(
                config::DOMAINS,
                "kernel,memory_copy,hip_api,hsa_api,rccl_api,marker,scratch_memory,memory_allocation"
            )])
        );
        assert_eq!(vars(&["--sys-trace", "--kernel-trace"]), pairs(&[(config::DOMAINS, "sys")]));
    }

    #[test]
    fn every_value_option_sets_its_variable_verbatim() {
        let got = vars(&[
            "-d",
            "out/%rank%",
            "-o",
            "stem",
            "--kernel-include-regex",
            "gemm|conv",
            "--kernel-exclude-regex",
            "copy",
            "--kernel-iteration-range",
            "[1-5],[10]",
            "--truncate-kernels",
            "--no-demangle",
            "--policy",
            "drop",
            "--buffer-size",
            "4M",
            "--queue-batches",
            "128",
            "--compression",
            "snappy",
            "--row-group-rows",
            "4096",
            "--rotate-rows",
            "1000000",
            "--rotate-seconds",
            "60",
            "--layout",
            "hive",
            "--quiet",
        ]);
        assert_eq!(
            got,
            pairs(&[
                (config::BUFFER_SIZE, "4M"),
                (config::COMPRESSION, "snappy"),
                (config::DEMANGLE, "0"),
                (config::KERNEL_EXCLUDE, "copy"),
                (config::KERNEL_INCLUDE, "gemm|conv"),
                (config::KERNEL_ITERATIONS, "[1-5],[10]"),
                (config::LAYOUT, "hive"),
                (config::OUTPUT_NAME, "stem"),
                (config::OUTPUT_DIR, "out/%rank%"),
                (config::POLICY, "drop"),
                (config::QUEUE_BATCHES, "128"),
                (config::ROTATE_ROWS, "1000000"),
                (config::ROTATE_SECONDS, "60"),
                (config::ROW_GROUP_ROWS, "4096"),
                (config::SUMMARY, "0"),
                (config::TRUNCATE, "1"),
            ])
        );
    }

    #[test]
    fn the_application_needs_the_separator() {
        assert!(Cli::try_parse_from(["run", "app"]).is_err());
        assert!(Cli::try_parse_from(["run", "--"]).is_err());
        let cli = Cli::try_parse_from(["run", "--", "app", "--kernel-trace", "-d"]).expect("parses");
        assert_eq!(cli.run.command, ["app", "--kernel-trace", "-d"]);
        assert!(cli.run.vars().is_empty(), "options after -- belong to the application");
    }

    #[test]
    fn the_help_lists_every_variable() {
        let help = variables_help();
        for variable in config::VARIABLES {
            assert!(help.contains(variable.name) && help.contains(variable.accepts), "{}", variable.name);
        }
    }
}
