//! In-process profiling: a Rust application that links this crate profiles itself, without
//! `rocprof-rs run`, `ROCP_TOOL_LIBRARIES` or `LD_PRELOAD`.
//!
//! [`ProfilerBuilder::start`] starts a backend through the lifecycle's `Backend` trait, chosen
//! by [`ProfilerBuilder::backend`] or, by default, by the library present (rocprofiler-sdk,
//! else the CUDA driver):
//! - **AMD**: the crate's own `rocprofiler_configure` goes to the SDK through
//!   `rocprofiler_force_configure`, which configures and initializes the tool at once, so it
//!   must run before the first HIP or HSA call (after it the SDK is locked and
//!   [`Error::TooLate`] says so).
//! - **NVIDIA**: CUPTI is set up at once, as the injection sets it up inside the driver's first
//!   `cuInit`, so it should run before the first CUDA call.
//!
//! From then on the tool is exactly the one the library would have loaded: the same tables,
//! files, queue and writer thread.
//!
//! Collection can be narrowed to regions: start paused, then [`Profiler::region`] starts the
//! tracing context and its guard stops it again, so warm-up or set-up stays out of the trace.
//! Kernel names and facts are always collected, so dispatches in a later region are named.
//!
//! ```no_run
//! # fn main() -> rocprof_rs::Result<()> {
//! use rocprof_rs::config::Domain;
//!
//! let profiler = rocprof_rs::Profiler::builder()
//!     .output_dir("traces/%hostname%")
//!     .domains([Domain::Kernel, Domain::HipApi, Domain::Marker])
//!     .start_paused()
//!     .start()?;
//! // ... warm up: not traced ...
//! {
//!     let _region = profiler.region()?;
//!     // ... the work to profile ...
//! }
//! let summary = profiler.finish()?;
//! println!("{} records", summary.total_rows());
//! # Ok(())
//! # }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use parking_lot::Mutex;

use crate::backend::{amd, cupti};
use crate::config::{self, Compression, Config, Domain, Placeholders, Policy};
use crate::error::{Error, Result};
use crate::lifecycle::{self, Backend as _};
use crate::pipeline::summary::Summary;

/// The library an in-process [`Profiler`] profiles through.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Backend {
    /// rocprofiler-sdk where [`ProfilerBuilder::sdk_library`] is given or the SDK loads, else
    /// CUPTI where the CUDA driver loads, else rocprofiler-sdk (whose error then says why).
    #[default]
    Auto,
    /// AMD's rocprofiler-sdk.
    RocprofilerSdk,
    /// NVIDIA's CUPTI.
    Cupti,
}

/// Settings for an in-process [`Profiler`]: the `ROCPROF_RS_*` variables under typed names.
///
/// Precedence: a setting made here, then the process environment (so `ROCPROF_RS_OUTPUT_DIR=…
/// ./app` still works), then the default. Every value is checked in [`ProfilerBuilder::start`]
/// with the same rules and messages as the environment.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct ProfilerBuilder {
    vars: BTreeMap<String, String>,
    ignore_environment: bool,
    paused: bool,
    sdk_library: Option<PathBuf>,
    backend: Backend,
}

impl ProfilerBuilder {
    fn set(mut self, variable: &str, value: impl Into<String>) -> Self {
        self.vars.insert(variable.to_owned(), value.into());
        self
    }

    /// Any `ROCPROF_RS_*` variable by name, for settings without a method of their own.
    pub fn var(self, variable: &str, value: impl Into<String>) -> Self {
        self.set(variable, value)
    }

    /// The output directory; the placeholders `%pid%`, `%ppid%`, `%hostname%`, `%rank%` and
    /// `%timestamp%` are expanded.
    pub fn output_dir(self, dir: impl AsRef<Path>) -> Self {
        let dir = dir.as_ref().to_string_lossy().into_owned();
        self.set(config::OUTPUT_DIR, dir)
    }

    /// The file-name stem of this process's files (placeholders as for the directory).
    pub fn output_name(self, stem: &str) -> Self {
        self.set(config::OUTPUT_NAME, stem)
    }

    /// What to trace.
    pub fn domains(self, domains: impl IntoIterator<Item = Domain>) -> Self {
        let names: Vec<&str> = domains.into_iter().map(Domain::name).collect();
        self.set(config::DOMAINS, names.join(","))
    }

    /// Every domain, as rocprofv3's `--sys-trace`.
    pub fn sys_trace(self) -> Self {
        self.set(config::DOMAINS, "sys")
    }

    /// Keep only kernels whose name matches `regex`.
    pub fn kernel_include_regex(self, regex: &str) -> Self {
        self.set(config::KERNEL_INCLUDE, regex)
    }

    /// Collect these hardware counters per dispatch; a set larger than one hardware pass is
    /// split into groups that successive dispatches of each kernel take in turn.
    pub fn counters<S: AsRef<str>>(self, names: impl IntoIterator<Item = S>) -> Self {
        let names: Vec<String> = names.into_iter().map(|n| n.as_ref().to_owned()).collect();
        self.set(config::PMC, names.join(","))
    }

    /// Collect a named counter set (`roofline`, `memory_bound`, ...), resolved per GPU.
    pub fn counter_preset(self, preset: &str) -> Self {
        self.set(config::COUNTER_PRESET, preset)
    }

    /// Drop kernels whose name matches `regex`.
    pub fn kernel_exclude_regex(self, regex: &str) -> Self {
        self.set(config::KERNEL_EXCLUDE, regex)
    }

    /// Keep only these 1-based iterations of each kernel, such as `[1-5],[10]`.
    pub fn kernel_iteration_range(self, ranges: &str) -> Self {
        self.set(config::KERNEL_ITERATIONS, ranges)
    }

    /// Demangle kernel names (on by default; the mangled name is always kept too).
    pub fn demangle(self, on: bool) -> Self {
        self.set(config::DEMANGLE, if on { "1" } else { "0" })
    }

    /// Cut kernel names to the bare function name, as rocprofv3's `--truncate-kernels`.
    pub fn truncate_kernels(self, on: bool) -> Self {
        self.set(config::TRUNCATE, if on { "1" } else { "0" })
    }

    /// Backpressure (lossless, the default) or counted drops.
    pub fn policy(self, policy: Policy) -> Self {
        self.set(config::POLICY, if policy == Policy::Lossless { "lossless" } else { "drop" })
    }

    /// Parquet compression (zstd level 3 by default).
    pub fn compression(self, compression: Compression) -> Self {
        let text = match compression {
            Compression::Zstd(level) => format!("zstd:{level}"),
            Compression::Snappy => "snappy".into(),
            Compression::None => "none".into(),
        };
        self.set(config::COMPRESSION, text)
    }

    /// Bytes of the SDK's record buffer.
    pub fn buffer_size(self, bytes: usize) -> Self {
        self.set(config::BUFFER_SIZE, bytes.to_string())
    }

    /// Rows per Parquet row group.
    pub fn row_group_rows(self, rows: usize) -> Self {
        self.set(config::ROW_GROUP_ROWS, rows.to_string())
    }

    /// Start a new file per table after this many rows (0: never).
    pub fn rotate_rows(self, rows: u64) -> Self {
        self.set(config::ROTATE_ROWS, rows.to_string())
    }

    /// Start a new file per table after this many seconds (0: never).
    pub fn rotate_seconds(self, seconds: u64) -> Self {
        self.set(config::ROTATE_SECONDS, seconds.to_string())
    }

    /// Sample every GPU's power, energy, clocks, memory, busy % and temperature (NVML or AMD
    /// SMI) into `device_sample` every `interval` (whole milliseconds, 1 ms to 60 s).
    pub fn device_sample(self, interval: std::time::Duration) -> Self {
        let ms = interval.as_millis().clamp(1, 60_000);
        self.set(config::DEVICE_SAMPLE_MS, ms.to_string())
    }

    /// Print the one-line summary when the run ends (on by default).
    pub fn summary(self, on: bool) -> Self {
        self.set(config::SUMMARY, if on { "1" } else { "0" })
    }

    /// Ignore `ROCPROF_RS_*` in the environment: only this builder's settings and the defaults.
    pub fn ignore_environment(mut self) -> Self {
        self.ignore_environment = true;
        self
    }

    /// Collect nothing until [`Profiler::resume`] or [`Profiler::region`].
    pub fn start_paused(mut self) -> Self {
        self.paused = true;
        self
    }

    /// Load the SDK from this file instead of finding `librocprofiler-sdk.so.1` by SONAME
    /// (rocprofiler-sdk only).
    pub fn sdk_library(mut self, path: impl Into<PathBuf>) -> Self {
        self.sdk_library = Some(path.into());
        self
    }

    /// Profile through this library rather than the one present.
    pub fn backend(mut self, backend: Backend) -> Self {
        self.backend = backend;
        self
    }

    /// The configuration these settings give, checked.
    pub fn config(&self) -> Result<Config> {
        let mut vars = if self.ignore_environment { BTreeMap::new() } else { config::process_vars()? };
        vars.extend(self.vars.iter().map(|(k, v)| (k.clone(), v.clone())));
        Config::from_vars(&vars, &Placeholders::of_this_process(&vars))
    }

    /// Records only in tracing windows of `on` every `every` (`ROCPROF_RS_WINDOW`); such a
    /// profile has no regions or pauses.
    pub fn window(self, on: std::time::Duration, every: std::time::Duration) -> Self {
        self.set(config::WINDOW, format!("{}us/{}us", on.as_micros(), every.as_micros()))
    }

    /// Sets the library up with this tool and starts collecting (unless paused). Call it before
    /// the first HIP, HSA or CUDA call.
    pub fn start(self) -> Result<Profiler> {
        let config = self.config()?;
        if self.paused && config.window.is_some() {
            return Err(Error::Windowed);
        }
        if !lifecycle::is_idle() {
            return Err(Error::AlreadyConfigured);
        }
        let output_dir = config.output_dir.clone();
        let library = self.sdk_library.as_deref();
        match self.chosen() {
            Backend::Cupti => cupti::Cuda::start_in_process(config, self.paused, library)?,
            Backend::RocprofilerSdk | Backend::Auto => amd::Amd::start_in_process(config, self.paused, library)?,
        }
        if !lifecycle::is_running() {
            return Err(Error::Disabled(lifecycle::disabled_because().unwrap_or_else(|| "it did not start".into())));
        }
        Ok(Profiler { output_dir, collecting: Mutex::new(Collecting { paused: self.paused, regions: 0 }) })
    }

    /// The library to start: the one asked for, else the first present.
    fn chosen(&self) -> Backend {
        match self.backend {
            Backend::Auto if self.sdk_library.is_some() || amd::sdk::sdk().is_ok() => Backend::RocprofilerSdk,
            Backend::Auto if cupti::api::driver::present() => Backend::Cupti,
            Backend::Auto => Backend::RocprofilerSdk,
            chosen => chosen,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Collecting {
    paused: bool,
    regions: u32,
}

impl Collecting {
    fn on(&self) -> bool {
        !self.paused || self.regions > 0
    }
}

/// The in-process profiler. Dropping it ends the run as [`Profiler::finish`] does; so does the
/// process's exit, through the SDK's finalize.
#[derive(Debug)]
#[must_use = "dropping the profiler ends the run at once"]
pub struct Profiler {
    output_dir: PathBuf,
    collecting: Mutex<Collecting>,
}

impl Profiler {
    /// Settings for a profiler.
    pub fn builder() -> ProfilerBuilder {
        ProfilerBuilder::default()
    }

    /// Where the tables are written.
    pub fn output_dir(&self) -> &Path {
        &self.output_dir
    }

    /// Whether records are being collected now.
    pub fn is_collecting(&self) -> bool {
        lifecycle::is_running() && self.collecting.lock().on()
    }

    fn change(&self, edit: impl FnOnce(&mut Collecting)) -> Result<()> {
        let mut state = self.collecting.lock();
        let before = *state;
        edit(&mut state);
        if before.on() == state.on() {
            return Ok(());
        }
        lifecycle::set_collecting(state.on()).inspect_err(|_| {
            // Nothing changed in the SDK, so nothing changes here.
            *state = before;
        })
    }

    /// Stops collecting (regions still collect while open).
    pub fn pause(&self) -> Result<()> {
        self.change(|s| s.paused = true)
    }

    /// Collects until [`Profiler::pause`].
    pub fn resume(&self) -> Result<()> {
        self.change(|s| s.paused = false)
    }

    /// Collects until the returned guard is dropped. Regions nest and may overlap across
    /// threads: collection stops when the last one ends (and the profiler is paused).
    pub fn region(&self) -> Result<Region<'_>> {
        self.change(|s| s.regions += 1)?;
        Ok(Region { profiler: self })
    }

    /// Writes everything collected so far into complete files, and keeps running.
    pub fn flush(&self) -> Result<()> {
        if lifecycle::flush() { Ok(()) } else { Err(Error::NotRunning) }
    }

    /// Ends the run: stops collecting, writes and closes every file, and says what was written.
    pub fn finish(self) -> Result<Summary> {
        let summary = lifecycle::finish().ok_or(Error::NotRunning)?;
        match &summary.error {
            Some(error) => Err(Error::Disabled(error.clone())),
            None => Ok(summary),
        }
    }
}

impl Drop for Profiler {
    fn drop(&mut self) {
        let _ = lifecycle::finish();
    }
}

/// An open collection region; dropping it ends the region.
#[derive(Debug)]
#[must_use = "dropping the region ends it at once"]
pub struct Region<'p> {
    profiler: &'p Profiler,
}

impl Drop for Region<'_> {
    fn drop(&mut self) {
        let _ = self.profiler.change(|s| s.regions = s.regions.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backend_asked_for_is_kept_and_an_sdk_path_means_amd() {
        assert_eq!(Profiler::builder().backend(Backend::Cupti).sdk_library("/sdk.so").chosen(), Backend::Cupti);
        assert_eq!(Profiler::builder().backend(Backend::RocprofilerSdk).chosen(), Backend::RocprofilerSdk);
        assert_eq!(
            Profiler::builder().sdk_library("/nowhere/librocprofiler-sdk.so.1").chosen(),
            Backend::RocprofilerSdk
        );
    }
}
