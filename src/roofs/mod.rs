//! `rocprof-rs doctor --measure-roofs`: the roofs of the NVIDIA GPUs at hand, measured by short
//! microbenchmarks launched through the CUDA driver (PTX compiled by it, no toolkit needed),
//! and kept for `analyze` ([`rocprof_rs_analysis::analyze::kept`]).
//!
//! Each roof is the best of [`TIMED_LAUNCHES`] launches after [`WARM_LAUNCHES`] untimed ones
//! (the median is kept beside it): DRAM and L2 bandwidth by 16-byte loads over a window 4 GiB
//! (at most half the free memory, at least 4× the L2) or a third of the L2, cached in L2 only;
//! L1 by the same loads over 16 KiB cached in L1; shared memory by conflict-free 16-byte loads
//! from a 16 KiB tile; FP32 and FP64 by independent FMA chains. Tensor-core peaks are not
//! measured (`mma.sync` reaches only part of Hopper's `wgmma` peak), so those stay the datasheet's.

mod gpu;
mod kernels;
mod render;

use std::collections::BTreeMap;
use std::ffi::{c_int, c_uint, c_void};
use std::path::Path;

use rocprof_rs_analysis::analyze::kept::Kept;
use rocprof_rs_analysis::analyze::measured::{Roof, Roofs};
use rocprof_rs_analysis::analyze::specs::{Level, Pipe, Precision};
use rocprofiler_sdk_sys::cuda_launch as cu;
use serde::Serialize;

pub use gpu::GpuError;
use gpu::{Device, Driver, Module, Shape};

/// Launches before timing: the first compiles caches and warms L2.
pub const WARM_LAUNCHES: usize = 2;
/// Timed launches per roof.
pub const TIMED_LAUNCHES: usize = 10;
/// Threads per block of every kernel.
const BLOCK_THREADS: c_uint = 256;

/// How one roof was measured.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Run {
    /// The roof's name in the kept file (`dram`, `fp32-vector`).
    pub roof: String,
    pub kernel: &'static str,
    /// `TB/s` or `TFLOP/s`.
    pub unit: &'static str,
    /// Bytes or FLOPs one launch moves or does.
    pub work_per_launch: f64,
    /// For the memory roofs, the bytes the loads sweep.
    pub window_bytes: Option<u64>,
    pub blocks: c_uint,
    pub threads_per_block: c_uint,
    pub best_seconds: f64,
    pub median_seconds: f64,
    /// Work over the best time, in the unit.
    pub best: f64,
    pub median: f64,
}

/// `doctor --measure-roofs --format json`: each GPU measured.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct RoofsBody {
    pub gpus: Vec<MeasuredGpu>,
}

/// One GPU's measurement as printed: the kept file's fields, where it was kept, what was not
/// measured and the datasheet's figures.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct MeasuredGpu {
    /// The kept file's format (`rocprof-rs.measured-roofs/1`).
    pub format: &'static str,
    pub gpu: GpuIdentity,
    /// The rocprof-rs that measured.
    pub measured_by: String,
    /// When, in seconds since the epoch.
    pub measured_at_unix: u64,
    /// Each roof kept, by name (`dram`, `fp32-vector`): TB/s or TFLOP/s.
    pub roofs: BTreeMap<String, f64>,
    /// How each roof was measured, kept or not.
    pub runs: Vec<Run>,
    /// The kept file.
    pub kept_at: String,
    /// The roofs not measured, and why.
    pub not_measured: Vec<String>,
    /// The datasheet's figure of each roof, by name, where the GPU is known.
    pub datasheet: BTreeMap<String, f64>,
}

/// The GPU a measurement is of.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct GpuIdentity {
    pub name: String,
    pub uuid: String,
    pub sm_count: u32,
}

impl MeasuredGpu {
    fn of(measurement: &Measurement, kept_at: &Path) -> MeasuredGpu {
        let kept = &measurement.kept;
        let roofs = kept.roofs.to_json();
        let roofs = roofs.as_object().into_iter().flatten().filter_map(|(n, v)| Some((n.clone(), v.as_f64()?)));
        MeasuredGpu {
            format: rocprof_rs_analysis::analyze::kept::FORMAT,
            gpu: GpuIdentity { name: kept.gpu_name.clone(), uuid: kept.uuid.clone(), sm_count: kept.sm_count },
            measured_by: measured_by(),
            measured_at_unix: kept.measured_at_unix,
            roofs: roofs.collect(),
            runs: measurement.runs.clone(),
            kept_at: kept_at.display().to_string(),
            not_measured: measurement.skipped.clone(),
            datasheet: render::datasheet(measurement),
        }
    }
}

/// One GPU's measurement.
#[derive(Debug, Clone)]
pub struct Measurement {
    pub ordinal: c_int,
    pub kept: Kept,
    pub runs: Vec<Run>,
    /// Roofs not measured, and why.
    pub skipped: Vec<String>,
}

/// Measures CUDA device `ordinal`.
pub fn measure(driver: &Driver, ordinal: c_int) -> Result<Measurement, GpuError> {
    let device = driver.open(ordinal)?;
    let sms = device.attribute(cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let l2_bytes = u64::try_from(device.attribute(cu::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?).unwrap_or(0);
    let per_sm = device.attribute(cu::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?;
    if sms <= 0 || per_sm < i64::from(BLOCK_THREADS) {
        return Err(GpuError::Refused(format!("device {ordinal} reports {sms} SMs of {per_sm} threads")));
    }
    let module = device.load(&kernels::module())?;
    let sink = device.alloc(64, 0)?;
    let sms = c_uint::try_from(sms).unwrap_or(c_uint::MAX);
    let mut bench = Bench { module: &module, sms, sink: sink.address, runs: Vec::new() };
    let mut skipped = Vec::new();

    let free = u64::try_from(device.free_memory()?).unwrap_or(0);
    let dram_window = prev_power_of_two((free / 2).min(4 << 30));
    if l2_bytes > 0 && dram_window >= 4 * l2_bytes {
        bench.read(&device, Level::Dram, "read_global_cg", dram_window, dram_window)?;
    } else {
        skipped.push(format!("dram: {free} bytes free, too few for a window 4x the L2's {l2_bytes}"));
    }
    if l2_bytes >= 3 << 20 {
        bench.read(&device, Level::L2, "read_global_cg", prev_power_of_two(l2_bytes / 3), 16 << 30)?;
    } else {
        skipped.push(format!("l2: the driver reports an L2 of {l2_bytes} bytes"));
    }
    bench.read(&device, Level::L1, "read_global_ca", 16 << 10, 64 << 30)?;
    bench.shared(8192)?;
    bench.fma::<f32>(1024)?;
    bench.fma::<f64>(512)?;

    let mut roofs = Roofs::default();
    for run in &bench.runs {
        if let Some(roof) = Roof::parse(&run.roof) {
            roofs.set(roof, run.best);
        }
    }
    let kept = Kept {
        path: Default::default(),
        gpu_name: device.name()?,
        uuid: device.uuid()?,
        sm_count: sms,
        measured_at_unix: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        roofs,
    };
    let runs = std::mem::take(&mut bench.runs);
    Ok(Measurement { ordinal, kept, runs, skipped })
}

/// Writes `measurement` into `dir` under its GPU's UUID, replacing an older one; its path.
pub fn keep(measurement: &Measurement, dir: &Path) -> std::io::Result<std::path::PathBuf> {
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    let path = dir.join(measurement.kept.file_name());
    let by = measured_by();
    let runs = serde_json::to_value(&measurement.runs).unwrap_or_default();
    let text = serde_json::to_string_pretty(&measurement.kept.document(&by, runs)).map_err(std::io::Error::other)?;
    let mut output = rocprof_rs_format::publish::OutputFile::create(&path)?;
    output.write_all(text.as_bytes())?;
    output.write_all(b"\n")?;
    output.commit()?;
    Ok(path)
}

/// Runs `doctor --measure-roofs`: measures `device` (or every CUDA device), keeps each
/// measurement in `dir` (or the default folder) and prints them.
pub fn command(json: bool, device: Option<c_int>, dir: Option<std::path::PathBuf>) -> std::process::ExitCode {
    use std::process::ExitCode;
    let fail = |e: &dyn std::fmt::Display| {
        eprintln!("rocprof-rs: doctor --measure-roofs: {e}");
        ExitCode::FAILURE
    };
    let Some(dir) = dir.or_else(rocprof_rs_analysis::analyze::kept::default_dir) else {
        return fail(&"neither XDG_CACHE_HOME nor HOME is an absolute path: say where with --roofs-dir");
    };
    // The folder first: a measurement that cannot be kept is not worth taking.
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return fail(&format!("--roofs-dir {}: {e}", dir.display()));
    }
    let driver = match Driver::load() {
        Ok(d) => d,
        Err(e) => return fail(&e),
    };
    let ordinals = match device {
        Some(n) => vec![n],
        None => match driver.device_count() {
            Ok(0) => return fail(&"the CUDA driver sees no GPU"),
            Ok(n) => (0..n).collect(),
            Err(e) => return fail(&e),
        },
    };
    let mut documents = Vec::new();
    for ordinal in ordinals {
        let mut measurement = match measure(&driver, ordinal) {
            Ok(m) => m,
            Err(e) => return fail(&format!("CUDA device {ordinal}: {e}")),
        };
        for why in implausible(&mut measurement) {
            eprintln!("rocprof-rs: doctor --measure-roofs: CUDA device {ordinal}: {why}");
        }
        if measurement.kept.roofs.is_empty() {
            return fail(&format!("CUDA device {ordinal}: no roof measured is plausible: nothing kept"));
        }
        let target = dir.join(measurement.kept.file_name());
        let path = match keep(&measurement, &dir) {
            Ok(p) => p,
            Err(e) => return fail(&format!("{}: {e}", target.display())),
        };
        if json {
            documents.push(MeasuredGpu::of(&measurement, &path));
        } else {
            print!("{}", render::text(&measurement, Some(&path)));
        }
    }
    if json && let Err(e) = crate::cli::JsonOutput::Roofs.print(None, RoofsBody { gpus: documents }) {
        return fail(&format!("standard output: {e}"));
    }
    ExitCode::SUCCESS
}

/// Drops from what is kept each roof under half or over 105% of the datasheet's: a GPU busy
/// with other work, throttled or misread, whose figure would mislead every later analysis.
/// Says why for each; the run itself stays in `runs`.
fn implausible(m: &mut Measurement) -> Vec<String> {
    let sheet = render::datasheet(m);
    let mut said = Vec::new();
    for run in &m.runs {
        let Some(paper) = sheet.get(&run.roof) else { continue };
        // L1 hits return through shared memory's data pipe: its figure is the bound.
        let paper = if run.roof == "l1" { sheet.get("lds").unwrap_or(paper) } else { paper };
        let share = run.best / paper;
        if (0.5..=1.05).contains(&share) {
            continue;
        }
        said.push(format!(
            "{} {:.2} {} is {:.0}% of the datasheet's {paper:.2}: not kept (a busy or throttled GPU?)",
            run.roof,
            run.best,
            run.unit,
            100.0 * share
        ));
        match Roof::parse(&run.roof) {
            Some(Roof::Bandwidth(level)) => m.kept.roofs.bandwidth.remove(&level),
            Some(Roof::Peak(precision, pipe)) => m.kept.roofs.peaks.remove(&(precision, pipe)),
            None => None,
        };
    }
    said
}

fn measured_by() -> String {
    format!("rocprof-rs {} doctor --measure-roofs", env!("CARGO_PKG_VERSION"))
}

fn prev_power_of_two(n: u64) -> u64 {
    if n == 0 { 0 } else { 1 << (63 - n.leading_zeros()) }
}

struct Bench<'m, 'a, 'd> {
    module: &'m Module<'a, 'd>,
    /// The device's SMs.
    sms: c_uint,
    sink: cu::CUdeviceptr,
    runs: Vec<Run>,
}

/// The float type of an FMA kernel: the kernel, its precision and the `b` and `c` it takes.
trait FmaFloat: Copy {
    const KERNEL: &'static str;
    const PRECISION: Precision;
    const B: Self;
    const C: Self;
}

impl FmaFloat for f32 {
    const KERNEL: &'static str = "fma_f32";
    const PRECISION: Precision = Precision::Fp32;
    const B: f32 = 0.999_999_9;
    const C: f32 = 1e-7;
}

impl FmaFloat for f64 {
    const KERNEL: &'static str = "fma_f64";
    const PRECISION: Precision = Precision::Fp64;
    const B: f64 = 0.999_999_999_999_9;
    const C: f64 = 1e-7;
}

fn threads(shape: Shape) -> u64 {
    u64::from(shape.blocks) * u64::from(shape.threads)
}

impl Bench<'_, '_, '_> {
    /// A full GPU of `function`'s blocks resident at once, as many as its registers and shared
    /// memory let an SM hold, so no launch ends in a partial wave.
    fn shape(&self, function: cu::CUfunction) -> Result<Shape, GpuError> {
        let per_sm = self.module.blocks_per_sm(function, BLOCK_THREADS)?;
        Ok(Shape { blocks: self.sms.saturating_mul(per_sm), threads: BLOCK_THREADS })
    }

    /// Times `launch` [`TIMED_LAUNCHES`] times after warming up; the best and median seconds.
    fn time(mut launch: impl FnMut() -> Result<f64, GpuError>) -> Result<(f64, f64), GpuError> {
        for _ in 0..WARM_LAUNCHES {
            launch()?;
        }
        let mut times = (0..TIMED_LAUNCHES).map(|_| launch()).collect::<Result<Vec<f64>, _>>()?;
        times.sort_by(f64::total_cmp);
        Ok((times[0], times[times.len() / 2]))
    }

    #[allow(clippy::too_many_arguments, reason = "one run's facts, recorded once")]
    fn record(
        &mut self,
        shape: Shape,
        roof: String,
        kernel: &'static str,
        unit: &'static str,
        work: f64,
        window: Option<u64>,
        times: (f64, f64),
    ) {
        // TB/s and TFLOP/s alike.
        let scale = 1e12;
        let (best_seconds, median_seconds) = times;
        self.runs.push(Run {
            roof,
            kernel,
            unit,
            work_per_launch: work,
            window_bytes: window,
            blocks: shape.blocks,
            threads_per_block: shape.threads,
            best_seconds,
            median_seconds,
            best: work / best_seconds.max(f64::MIN_POSITIVE) / scale,
            median: work / median_seconds.max(f64::MIN_POSITIVE) / scale,
        });
    }

    /// `level`'s bandwidth: `kernel` sweeping a `window`-byte buffer (a power of two) for about
    /// `bytes` per launch.
    fn read(
        &mut self,
        device: &Device<'_>,
        level: Level,
        kernel: &'static str,
        window: u64,
        bytes: u64,
    ) -> Result<(), GpuError> {
        let buffer = device.alloc(usize::try_from(window).unwrap_or(usize::MAX), 0x0101_0101)?;
        let function = self.module.function(kernel)?;
        let shape = self.shape(function)?;
        let per_trip = threads(shape) * u64::from(kernels::LOADS_PER_TRIP) * kernels::LOAD_BYTES;
        let mut trips = c_uint::try_from((bytes / per_trip).max(1)).unwrap_or(c_uint::MAX);
        let (mut base, mut mask, mut sink) = (buffer.address, window.saturating_sub(1), self.sink);
        let mut parameters: [*mut c_void; 4] =
            [(&raw mut base).cast(), (&raw mut mask).cast(), (&raw mut trips).cast(), (&raw mut sink).cast()];
        // SAFETY: read_global_*(u64 base, u64 mask, u32 trips, u64 sink): the values are of those
        // types; every load is at base + (offset & mask), inside the window's allocation, and
        // `buffer` and the sink outlive the synchronous launch.
        let times = Bench::time(|| unsafe { self.module.timed(function, shape, &mut parameters) })?;
        let work = (u64::from(trips) * per_trip) as f64;
        self.record(shape, level.name().to_owned(), kernel, "TB/s", work, Some(window), times);
        Ok(())
    }

    /// Shared memory's bandwidth.
    fn shared(&mut self, trips: c_uint) -> Result<(), GpuError> {
        let function = self.module.function("read_shared")?;
        let shape = self.shape(function)?;
        let (mut trips, mut sink) = (trips, self.sink);
        let mut parameters: [*mut c_void; 2] = [(&raw mut trips).cast(), (&raw mut sink).cast()];
        // SAFETY: read_shared(u32 trips, u64 sink): the values are of those types; the sink
        // outlives the synchronous launch.
        let times = Bench::time(|| unsafe { self.module.timed(function, shape, &mut parameters) })?;
        let per_trip = threads(shape) * u64::from(kernels::LOADS_PER_TRIP) * kernels::LOAD_BYTES;
        let work = (u64::from(trips) * per_trip) as f64;
        let window = Some(u64::from(kernels::SHARED_TILE_BYTES));
        self.record(shape, Level::Lds.name().to_owned(), "read_shared", "TB/s", work, window, times);
        Ok(())
    }

    /// `T`'s FMA peak on the vector pipes.
    fn fma<T: FmaFloat>(&mut self, trips: c_uint) -> Result<(), GpuError> {
        let function = self.module.function(T::KERNEL)?;
        let shape = self.shape(function)?;
        let (mut trips, mut b, mut c, mut sink) = (trips, T::B, T::C, self.sink);
        let mut parameters: [*mut c_void; 4] =
            [(&raw mut trips).cast(), (&raw mut b).cast(), (&raw mut c).cast(), (&raw mut sink).cast()];
        // SAFETY: fma_f32(u32 trips, f32 b, f32 c, u64 sink) and fma_f64(u32, f64, f64, u64):
        // `T` is the kernel's type by FmaFloat; the sink outlives the synchronous launch.
        let times = Bench::time(|| unsafe { self.module.timed(function, shape, &mut parameters) })?;
        let flops = 2.0 * f64::from(kernels::FMAS_PER_TRIP) * f64::from(trips) * threads(shape) as f64;
        let roof = format!("{}-{}", T::PRECISION.name(), Pipe::Vector.name());
        self.record(shape, roof, T::KERNEL, "TFLOP/s", flops, None, times);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_powers_of_two_at_or_under_the_bound() {
        assert_eq!(prev_power_of_two(0), 0);
        assert_eq!(prev_power_of_two(1), 1);
        assert_eq!(prev_power_of_two((50 << 20) / 3), 16 << 20);
        assert_eq!(prev_power_of_two(u64::MAX), 1 << 63);
    }

    #[test]
    fn the_module_declares_every_kernel_the_benchmarks_launch() {
        let ptx = kernels::module();
        for kernel in ["read_global_cg", "read_global_ca", "read_shared", "fma_f32", "fma_f64"] {
            assert_eq!(ptx.matches(&format!(".visible .entry {kernel}(")).count(), 1, "{kernel}");
        }
        // Every register a kernel names is declared: %r up to 25 in the read kernels.
        assert!(ptx.contains(".reg .b32 %r<32>;") && !ptx.contains("%r32"));
        assert_eq!(ptx.matches("fma.rn.f32").count(), kernels::FMAS_PER_TRIP as usize);
    }
}
