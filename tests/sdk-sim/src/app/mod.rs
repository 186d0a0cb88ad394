//! A simulated HIP application, as a library: the `rocprof-sim` driver plays it against a tool
//! the SDK loads, and the in-process example plays it under a profiler linked into the same
//! binary. Either way the ground truth of every record the SDK emitted is written beside it.
//!
//! Everything here is **simulated**: no GPU is involved.

mod play;
mod rank;

use std::ffi::CString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use libloading::os::unix::Library;
use rocprofiler_sdk_sys::*;

use crate::hw::{self, Arch};
use crate::kernels::{CATALOG, KernelSpec};
use crate::pc_model::{DispatchInput, Sampling};
use crate::runtime_abi::*;
use crate::truth::{HEADER, Row, banner_line};
use crate::workload::Workload;

/// A simulator call failed: a bug in the simulator or its use, so the application stops.
fn check(what: &str, status: rocprofiler_status_t) {
    if status != ROCPROFILER_STATUS_SUCCESS {
        eprintln!("rocprof-sim: {what} failed with status {status}");
        std::process::exit(2);
    }
}

struct Runtime {
    api: SimRuntimeApi,
}

/// What each GPU was set up with: the kernel id of every catalog kernel.
struct Loaded {
    kernel_ids: Vec<Vec<u64>>,
    archs: Vec<Arch>,
    /// The dispatches the SDK took PC samples of, for the PC-sample truth.
    pc_sampled: Mutex<Vec<(DispatchInput, Sampling)>>,
}

/// The simulated SDK next to the running executable (or in `deps/` below it, where cargo leaves
/// it for tests and examples).
pub fn default_sdk_path() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut dirs: Vec<&Path> = exe.ancestors().skip(1).take(2).collect();
    dirs.dedup();
    for dir in dirs {
        for candidate in [dir.join("librocprofiler_sdk_sim.so"), dir.join("deps/librocprofiler_sdk_sim.so")] {
            if candidate.exists() {
                return Ok(candidate);
            }
        }
    }
    Err(format!(
        "no simulated SDK next to {} (build it with `cargo build -p rocprofiler-sdk-sim`, or pass --sdk)",
        exe.display()
    ))
}

/// Why a simulated machine could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// No GPU was asked for (0 agents, or an empty architecture list).
    #[error("a machine needs at least one GPU")]
    NoGpu,
    /// The simulated SDK could not be loaded or lacks a function (the loader's message).
    #[error("{0}")]
    Sdk(String),
}

/// Microseconds each thread waits after a launch (0: none), so the simulated GPUs keep up with
/// the host as a real application's do: unpaced, the play launches far faster than the GPUs
/// run, and a kernel starts long after its launch.
static LAUNCH_GAP_US: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Sets the wait after each launch, for every thread that plays from now on.
pub fn set_launch_gap(micros: u64) {
    LAUNCH_GAP_US.store(micros, std::sync::atomic::Ordering::Relaxed);
}

/// The wait after a launch.
fn pace() {
    let micros = LAUNCH_GAP_US.load(std::sync::atomic::Ordering::Relaxed);
    if micros > 0 {
        std::thread::sleep(Duration::from_micros(micros));
    }
}

/// The simulated machine and runtime in this process.
pub struct Machine {
    library: Library,
    rt: Runtime,
    archs: Vec<Arch>,
    /// Truth rows of the code objects and kernel symbols loaded so far.
    head: String,
    /// Code objects loaded so far: the simulator numbers them from 1 in load order, and this is
    /// its only loader.
    code_objects: u64,
    loaded: Option<Loaded>,
}

impl std::fmt::Debug for Machine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Machine").field("archs", &self.archs).finish_non_exhaustive()
    }
}

impl Machine {
    /// Opens the simulated SDK at `sdk` (global, so tools find it by SONAME) and sets up its
    /// machine: `agents` GPUs, plus a gfx1151-like APU if `consumer_gpu`.
    pub fn open(sdk: &Path, agents: u32, consumer_gpu: bool) -> Result<Self, OpenError> {
        Self::open_with_archs(sdk, agents, consumer_gpu, None)
    }

    /// [`Machine::open`], with the GPUs' architectures `archs` (in agent order) instead of the
    /// default list of `agents`.
    pub fn open_with_archs(
        sdk: &Path,
        agents: u32,
        consumer_gpu: bool,
        archs: Option<&[Arch]>,
    ) -> Result<Self, OpenError> {
        if agents == 0 || archs.is_some_and(<[Arch]>::is_empty) {
            return Err(OpenError::NoGpu);
        }
        let (library, api) = SimRuntimeApi::open(sdk).map_err(OpenError::Sdk)?;
        eprintln!("rocprof-sim: {}", crate::SIMULATED_BANNER);
        if let Some(archs) = archs {
            let list = CString::new(archs.iter().map(|a| a.name()).collect::<Vec<_>>().join(",")).unwrap();
            // SAFETY: a NUL-terminated list that outlives the call.
            check("configure archs", unsafe { (api.rocprofiler_sim_configure_archs)(list.as_ptr()) });
        }
        // SAFETY: plain integers.
        check("configure machine", unsafe { (api.rocprofiler_sim_configure_machine)(agents, u32::from(consumer_gpu)) });
        Ok(Machine {
            library,
            rt: Runtime { api },
            archs: hw::machine(agents, consumer_gpu, archs),
            head: String::new(),
            code_objects: 0,
            loaded: None,
        })
    }

    /// The simulated SDK library.
    pub fn library(&self) -> &Library {
        &self.library
    }

    /// The architectures of the GPUs, in agent order.
    pub fn archs(&self) -> &[Arch] {
        &self.archs
    }

    /// "Loads HIP": the SDK initializes (finding its tools, unless one was forced already), and
    /// one code object holding the whole catalog is loaded on each GPU, as a fat binary registers
    /// on every device.
    pub fn start_runtime(&mut self) {
        // SAFETY: a static NUL-terminated name.
        check("register runtime", unsafe { (self.rt.api.rocprofiler_sim_register_runtime)(c"hip".as_ptr()) });
        let mut kernel_ids = Vec::new();
        for gpu in 0..self.archs.len() as u32 {
            let uri = format!("memory://{}#offset=0x{:x}&size=1048576", std::process::id(), 0x1000 * (gpu + 1));
            kernel_ids.push(self.load_code_object(gpu, &uri, CATALOG));
        }
        self.loaded = Some(Loaded { kernel_ids, archs: self.archs.clone(), pc_sampled: Mutex::new(Vec::new()) });
    }

    /// Loads a code object holding `kernels` on GPU `gpu`, with its truth rows; returns the
    /// kernel id of each.
    fn load_code_object(&mut self, gpu: u32, uri: &str, kernels: &[KernelSpec]) -> Vec<u64> {
        let names: Vec<CString> = kernels.iter().map(|k| CString::new(k.mangled).unwrap()).collect();
        let symbols: Vec<SimKernelSymbol> = kernels
            .iter()
            .zip(&names)
            .map(|(k, n)| SimKernelSymbol {
                name: n.as_ptr(),
                kernarg_size: k.kernarg_size,
                group_segment_size: k.lds,
                private_segment_size: k.scratch,
                sgpr_count: k.sgpr,
                arch_vgpr_count: k.arch_vgpr,
                accum_vgpr_count: k.accum_vgpr,
            })
            .collect();
        let c_uri = CString::new(uri).unwrap();
        let mut ids = vec![0u64; symbols.len()];
        // SAFETY: valid arrays of `symbols.len()` entries.
        check("load code object", unsafe {
            (self.rt.api.rocprofiler_sim_load_code_object)(
                gpu,
                c_uri.as_ptr(),
                symbols.as_ptr(),
                symbols.len() as u64,
                ids.as_mut_ptr(),
            )
        });
        // The simulator keeps the names' pointers for the process lifetime.
        std::mem::forget(names);
        let mut agent = rocprofiler_agent_id_t { handle: 0 };
        // SAFETY: valid output.
        check("gpu agent", unsafe { (self.rt.api.rocprofiler_sim_gpu_agent)(gpu, &mut agent) });
        self.code_objects += 1;
        let object_id = self.code_objects;
        Row {
            record: "code_object",
            agent_id: Some(agent.handle),
            object_id: Some(object_id),
            name: Some(uri),
            ..Row::default()
        }
        .write_to(&mut self.head);
        for (k, id) in kernels.iter().zip(&ids) {
            Row {
                record: "kernel_symbol",
                object_id: Some(object_id),
                kernel_id: Some(*id),
                lds_bytes: Some(u64::from(k.lds)),
                scratch_bytes: Some(u64::from(k.scratch)),
                name: Some(k.mangled),
                ..Row::default()
            }
            .write_to(&mut self.head);
        }
        ids
    }

    /// Plays `workload` on its threads and waits for the GPUs (`hipDeviceSynchronize`). With a
    /// `truth` path, writes there the truth of every record the SDK emitted during the play,
    /// after the code objects loaded so far and a comment line `about`.
    pub fn play(&self, workload: &Workload, truth: Option<(&Path, &str)>) -> Result<Duration, String> {
        let loaded = self.loaded.as_ref().ok_or("start the runtime before playing a workload")?;
        if workload.gpus as usize > self.archs.len() {
            return Err(format!("the workload uses {} GPUs; the machine has {}", workload.gpus, self.archs.len()));
        }
        let parts: Vec<Option<PathBuf>> =
            (0..workload.threads).map(|t| truth.map(|(path, _)| path.with_extension(format!("part{t}")))).collect();
        let started = Instant::now();
        std::thread::scope(|scope| {
            for (t, part) in parts.iter().enumerate() {
                std::thread::Builder::new()
                    .name(format!("sim-app-{t}"))
                    .spawn_scoped(scope, move || {
                        if let Err(e) = play::play(&self.rt, workload, t as u32, loaded, part.as_deref()) {
                            eprintln!("rocprof-sim: thread {t}: cannot write its truth: {e}");
                            std::process::exit(2);
                        }
                    })
                    .expect("cannot spawn an application thread");
            }
        });
        // SAFETY: no arguments.
        check("synchronize", unsafe { (self.rt.api.rocprofiler_sim_synchronize)() });
        let elapsed = started.elapsed();
        if let Some((path, about)) = truth {
            let parts: Vec<PathBuf> = parts.into_iter().flatten().collect();
            write_truth(path, &self.head, about, &parts)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let sampled = std::mem::take(&mut *loaded.pc_sampled.lock().unwrap());
            if !sampled.is_empty() {
                let pc_path = crate::pc_truth::path_beside(path);
                self.write_pc_truth(&pc_path, &sampled)
                    .map_err(|e| format!("cannot write {}: {e}", pc_path.display()))?;
            }
        }
        Ok(elapsed)
    }

    /// Writes the PC-sample truth of `sampled`: every sample of each dispatch but those the SDK
    /// reports its buffer dropped, then their count.
    fn write_pc_truth(&self, path: &Path, sampled: &[(DispatchInput, Sampling)]) -> std::io::Result<()> {
        let mut out = crate::pc_truth::file_head();
        let mut dropped_total = 0;
        for (input, sampling) in sampled {
            let mut count = 0u64;
            // SAFETY: a null index array asks for the count only.
            check("pc samples dropped", unsafe {
                (self.rt.api.rocprofiler_sim_pc_samples_dropped)(input.dispatch_id, std::ptr::null_mut(), 0, &mut count)
            });
            let mut dropped = vec![0u64; count as usize];
            // SAFETY: room for `count` indices.
            check("pc samples dropped", unsafe {
                (self.rt.api.rocprofiler_sim_pc_samples_dropped)(
                    input.dispatch_id,
                    dropped.as_mut_ptr(),
                    count,
                    &mut count,
                )
            });
            dropped_total += dropped.len() as u64;
            for (index, sample) in crate::pc_model::samples(input, *sampling).iter().enumerate() {
                if !dropped.contains(&(index as u64)) {
                    crate::pc_truth::sample_row(sample, &mut out);
                }
            }
        }
        crate::pc_truth::dropped_row(dropped_total, &mut out);
        std::fs::write(path, out)
    }

    /// What the simulated SDK has done so far.
    pub fn stats(&self) -> SimStats {
        let mut stats = SimStats::default();
        // SAFETY: a valid output struct.
        check("stats", unsafe { (self.rt.api.rocprofiler_sim_stats)(&mut stats) });
        stats
    }
}

/// A truth file with its banner, `about` line, header and the code-object rows `head`, ready
/// for the rows of the play.
fn truth_file(path: &Path, head: &str, about: &str) -> std::io::Result<std::io::BufWriter<std::fs::File>> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    out.write_all(banner_line().as_bytes())?;
    writeln!(out, "# {about}")?;
    writeln!(out, "{HEADER}")?;
    out.write_all(head.as_bytes())?;
    Ok(out)
}

fn write_truth(path: &Path, head: &str, about: &str, parts: &[PathBuf]) -> std::io::Result<()> {
    let mut out = truth_file(path, head, about)?;
    for part in parts {
        std::io::copy(&mut std::fs::File::open(part)?, &mut out)?;
        std::fs::remove_file(part)?;
    }
    out.flush()
}
