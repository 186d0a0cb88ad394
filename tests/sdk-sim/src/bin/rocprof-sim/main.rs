//! `rocprof-sim`: plays a GPU application against the **simulated** rocprofiler-sdk and writes
//! the ground truth of every record the SDK emitted. No GPU is involved.

// Test fixtures driving C APIs: FFI sequences read better as one commented block per call site.
#![allow(clippy::multiple_unsafe_ops_per_block)]
#![allow(non_upper_case_globals)]

use std::ffi::CString;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Parser;
use rocprof_sim::hw::{self, Arch, Counter};
use rocprof_sim::kernels::{CATALOG, Launch, MEMSET_KERNEL};
use rocprof_sim::ops::{MARKER_CORE, MEMORY_COPY, hip_name};
use rocprof_sim::runtime_abi::*;
use rocprof_sim::truth::{HEADER, Row, banner_line};
use rocprof_sim::workload::{MIXES, Step, Workload, mix};
use rocprofiler_sdk_sys::*;

/// Play a simulated HIP application against the simulated rocprofiler-sdk (SIMULATED: no GPU).
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// Kernel dispatches in total.
    #[arg(long, default_value_t = 10_000)]
    dispatches: u64,
    /// Application threads.
    #[arg(long, default_value_t = 4)]
    threads: u32,
    /// GPU agents (the first an MI300X-like gfx942, the second an MI210-like gfx90a).
    #[arg(long, default_value_t = 2)]
    agents: u32,
    /// Add a gfx1151-like consumer GPU, on which counter collection fails as in SDK 1.0.
    #[arg(long)]
    consumer_gpu: bool,
    /// Kernel mix: default, gemm, pointwise or triton.
    #[arg(long, default_value = "default")]
    mix: String,
    /// Seed of the workload; the same seed replays the same application.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// About one ROCTx range per this many dispatches (0: none).
    #[arg(long, default_value_t = 64)]
    range_every: u64,
    /// About one extra memory copy per this many dispatches (0: only uploads and downloads).
    #[arg(long, default_value_t = 32)]
    copy_every: u64,
    /// Where to write the ground-truth CSV.
    #[arg(long, default_value = "rocprof-sim-truth.csv")]
    truth: PathBuf,
    /// The simulated SDK library (default: next to this executable).
    #[arg(long)]
    sdk: Option<PathBuf>,
    /// Load this tool and hand its `rocprofiler_configure` to `rocprofiler_force_configure`.
    #[arg(long)]
    force_configure: Option<PathBuf>,
    /// Counters a tool collects on every dispatch (comma-separated): the truth gets one `counter`
    /// row per dispatch and counter, the sum over its instances. An agent gets none if it lacks
    /// counter support or the set needs more than one hardware pass there.
    #[arg(long, value_delimiter = ',')]
    counters: Vec<String>,
    /// Exit with this status when done (to check that a tool leaves it unchanged).
    #[arg(long, default_value_t = 0)]
    exit_code: u8,
    /// When done and the truth is written, die by this signal (TERM, INT or KILL) instead of
    /// exiting: no atexit handler runs, so only a tool's signal handling can save its records.
    #[arg(long)]
    raise: Option<String>,
}

/// What each GPU was set up with: the kernel id of every catalog kernel, and the counters a tool
/// collecting `--counters` reads there.
struct Loaded {
    kernel_ids: Vec<Vec<u64>>,
    counters: Vec<Vec<Counter>>,
}

/// The counters of `names` that `arch` has, if they fit in one pass there.
fn counters_on(arch: Arch, names: &[String]) -> Vec<Counter> {
    let counters: Vec<Counter> = names.iter().filter_map(|n| hw::by_name(arch, n)).collect();
    if hw::fits_one_pass(&counters).is_err() { Vec::new() } else { counters }
}

struct Runtime {
    api: SimRuntimeApi,
}

fn sdk_path(arg: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(p) = arg {
        return Ok(p);
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    for candidate in [dir.join("librocprofiler_sdk_sim.so"), dir.join("deps/librocprofiler_sdk_sim.so")] {
        if candidate.exists() {
            return Ok(candidate);
        }
    }
    Err(format!(
        "no simulated SDK next to {} (build it with `cargo build -p rocprofiler-sdk-sim`, or pass --sdk)",
        exe.display()
    ))
}

fn check(what: &str, status: rocprofiler_status_t) {
    if status != ROCPROFILER_STATUS_SUCCESS {
        eprintln!("rocprof-sim: {what} failed with status {status}");
        std::process::exit(2);
    }
}

fn force_configure(rt: &libloading::os::unix::Library, tool: &Path) {
    // SAFETY: loading a tool library, as an application that wants to configure before any
    // runtime loads does; its initialisers are the tool's.
    let lib = unsafe { libloading::os::unix::Library::open(Some(tool), libc::RTLD_NOW | libc::RTLD_LOCAL) }
        .unwrap_or_else(|e| {
            eprintln!("rocprof-sim: cannot load {}: {e}", tool.display());
            std::process::exit(2)
        });
    // SAFETY: a tool's `rocprofiler_configure` has the SDK's configure signature.
    let configure =
        unsafe { lib.get::<rocprofiler_configure_func_t>(b"rocprofiler_configure\0") }.unwrap_or_else(|e| {
            eprintln!("rocprof-sim: {} has no rocprofiler_configure: {e}", tool.display());
            std::process::exit(2)
        });
    // SAFETY: the simulator exports the SDK's force_configure with this signature.
    let force = unsafe {
        rt.get::<unsafe extern "C" fn(rocprofiler_configure_func_t) -> rocprofiler_status_t>(
            b"rocprofiler_force_configure\0",
        )
    }
    .expect("the simulated SDK exports rocprofiler_force_configure");
    // SAFETY: calling force_configure with the tool's configure function.
    check("rocprofiler_force_configure", unsafe { force(*configure) });
    std::mem::forget(lib);
}

impl Runtime {
    fn api_call(
        &self,
        kind: u32,
        operation: i32,
        message: Option<&CString>,
        range_id: u64,
    ) -> (SimApiCall, SimApiSpan) {
        let call = SimApiCall { kind, operation, message: message.map_or(std::ptr::null(), |m| m.as_ptr()), range_id };
        let mut span = SimApiSpan::default();
        // SAFETY: valid call and span structs.
        check("api enter", unsafe { (self.api.rocprofiler_sim_api_enter)(&call, &mut span) });
        (call, span)
    }

    fn api_end(&self, call: &SimApiCall, span: &mut SimApiSpan) {
        // SAFETY: the call and span enter returned.
        check("api exit", unsafe { (self.api.rocprofiler_sim_api_exit)(call, span) });
    }
}

fn thread_id() -> u64 {
    // SAFETY: gettid takes no arguments.
    unsafe { libc::syscall(libc::SYS_gettid) as u64 }
}

fn api_rows(out: &mut String, record: &str, span: &SimApiSpan, op: &str) {
    Row {
        record,
        thread_id: Some(span.thread_id),
        correlation_id: Some(span.correlation_id),
        ancestor_id: Some(span.ancestor_id),
        operation: Some(op),
        start_ns: Some(span.start_ns),
        end_ns: Some(span.end_ns),
        ..Row::default()
    }
    .write_to(out);
    if record == "hip_api" {
        Row {
            record: "hip_api_callback",
            thread_id: Some(span.thread_id),
            correlation_id: Some(span.correlation_id),
            ancestor_id: Some(span.ancestor_id),
            operation: Some(op),
            ..Row::default()
        }
        .write_to(out);
    }
}

const HIP: u32 = ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API;
const MARKER: u32 = ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API;

#[allow(clippy::too_many_lines)]
fn play(rt: &Runtime, workload: &Workload, thread: u32, loaded: &Loaded, part: &Path) -> std::io::Result<()> {
    let mut file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(part)?);
    let mut out = String::with_capacity(1 << 16);
    let tid = thread_id();
    let mut addresses = [0u64; rocprof_sim::workload::SLOTS];
    let mut ranges: Vec<CString> = Vec::new();
    let mut process_range: Option<(u64, CString)> = None;
    for step in workload.thread(thread) {
        let (op, kind) = match &step {
            Step::SetDevice { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice, HIP),
            Step::Malloc { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, HIP),
            Step::Free { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipFree, HIP),
            Step::Copy { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync, HIP),
            Step::Launch { kernel, .. } if CATALOG[*kernel].launch == Launch::Module => {
                (ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel, HIP)
            }
            Step::Launch { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel, HIP),
            Step::Memset { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync, HIP),
            Step::StreamSynchronize { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize, HIP),
            Step::DeviceSynchronize => (ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize, HIP),
            Step::Mark { .. } => (ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA, MARKER),
            Step::Push { .. } => (ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, MARKER),
            Step::Pop => (ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, MARKER),
            Step::StartRange { .. } => (ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA, MARKER),
            Step::StopRange => (ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop, MARKER),
        };
        let message = match &step {
            Step::Mark { message } | Step::Push { message } | Step::StartRange { message } => {
                Some(CString::new(message.as_str()).expect("messages have no NUL"))
            }
            _ => None,
        };
        let stop_id = process_range.as_ref().map_or(0, |(id, _)| *id);
        let (call, mut span) =
            rt.api_call(kind, op, message.as_ref(), if matches!(step, Step::StopRange) { stop_id } else { 0 });
        match &step {
            Step::Malloc { gpu, slot, .. } | Step::Free { gpu, slot } => {
                let (operation, size) = match &step {
                    Step::Malloc { bytes, .. } => (ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, *bytes),
                    _ => (ROCPROFILER_MEMORY_ALLOCATION_FREE, 0),
                };
                if operation == ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE {
                    addresses[*slot] = 0x7ff0_0000_0000 + (u64::from(thread) << 36) + ((*slot as u64) << 32);
                }
                let a = SimAllocation { operation, gpu: *gpu, address: addresses[*slot], size };
                let mut r = SimAllocationResult::default();
                // SAFETY: valid structs.
                check("allocation", unsafe { (rt.api.rocprofiler_sim_memory_allocation)(&a, &mut r) });
                Row {
                    record: "memory_allocation",
                    thread_id: Some(tid),
                    correlation_id: Some(r.correlation_id),
                    operation: Some(if size > 0 { "MEMORY_ALLOCATION_ALLOCATE" } else { "MEMORY_ALLOCATION_FREE" }),
                    agent_id: Some(r.agent_id),
                    start_ns: Some(r.start_ns),
                    end_ns: Some(r.end_ns),
                    bytes: Some(size),
                    dst_address: Some(a.address),
                    ..Row::default()
                }
                .write_to(&mut out);
            }
            Step::Copy { src, dst, slot, bytes, stream } => {
                let host = 0x5500_0000_0000 + (u64::from(thread) << 32) + ((*slot as u64) << 28);
                let c = SimCopy {
                    src_gpu: src.unwrap_or(SIM_HOST),
                    dst_gpu: dst.unwrap_or(SIM_HOST),
                    stream: *stream,
                    bytes: *bytes,
                    src_address: if src.is_some() { addresses[*slot] } else { host },
                    dst_address: if dst.is_some() {
                        addresses[*slot] + if src.is_some() { bytes / 2 } else { 0 }
                    } else {
                        host
                    },
                    duration_ns: 2_000 + bytes / 50,
                };
                let mut r = SimCopyResult::default();
                // SAFETY: valid structs.
                check("memory copy", unsafe { (rt.api.rocprofiler_sim_memory_copy)(&c, &mut r) });
                Row {
                    record: "memory_copy",
                    thread_id: Some(tid),
                    correlation_id: Some(r.correlation_id),
                    operation: Some(MEMORY_COPY[r.operation as usize]),
                    start_ns: Some(r.start_ns),
                    end_ns: Some(r.end_ns),
                    bytes: Some(c.bytes),
                    src_agent_id: Some(r.src_agent_id),
                    dst_agent_id: Some(r.dst_agent_id),
                    src_address: Some(c.src_address),
                    dst_address: Some(c.dst_address),
                    ..Row::default()
                }
                .write_to(&mut out);
            }
            Step::Launch { kernel, gpu, stream, grid, workgroup, dynamic_lds } => {
                dispatch(rt, &mut out, tid, *kernel, *gpu, *stream, *grid, *workgroup, *dynamic_lds, loaded);
            }
            Step::Memset { gpu, stream, bytes, .. } => {
                let items = (*bytes / 16).clamp(256, 1 << 24) as u32;
                dispatch(rt, &mut out, tid, MEMSET_KERNEL, *gpu, *stream, [items, 1, 1], [256, 1, 1], 0, loaded);
            }
            _ => {}
        }
        rt.api_end(&call, &mut span);
        let record = if kind == HIP { "hip_api" } else { "marker_api" };
        let name = if kind == HIP { hip_name(op).unwrap_or("unknown") } else { MARKER_CORE[op as usize] };
        api_rows(&mut out, record, &span, name);
        let range_row = |out: &mut String, corr: u64, op: &str, message: &CString| {
            Row {
                record: "marker_range",
                correlation_id: Some(corr),
                operation: Some(op),
                name: Some(&message.to_string_lossy()),
                ..Row::default()
            }
            .write_to(out);
        };
        match step {
            Step::Mark { .. } => range_row(&mut out, span.correlation_id, "roctxMarkA", message.as_ref().unwrap()),
            Step::Push { .. } => ranges.push(message.clone().unwrap()),
            Step::Pop => {
                if let Some(m) = ranges.pop() {
                    // The range's correlation id is the push's; the truth keeps it with the name.
                    range_row(
                        &mut out,
                        RANGE_CORR.with(|r| r.borrow_mut().pop().unwrap_or(0)),
                        "roctxThreadRangeA",
                        &m,
                    );
                }
            }
            Step::StartRange { .. } => process_range = Some((span.range_id, message.clone().unwrap())),
            Step::StopRange => {
                if let Some((_, m)) = process_range.take() {
                    range_row(&mut out, PROCESS_CORR.with(|c| c.take()), "roctxProcessRangeA", &m);
                }
            }
            _ => {}
        }
        if matches!(step, Step::Push { .. }) {
            RANGE_CORR.with(|r| r.borrow_mut().push(span.correlation_id));
        }
        if matches!(step, Step::StartRange { .. }) {
            PROCESS_CORR.with(|c| c.set(span.correlation_id));
        }
        if out.len() > 1 << 16 {
            file.write_all(out.as_bytes())?;
            out.clear();
        }
    }
    file.write_all(out.as_bytes())?;
    file.flush()
}

thread_local! {
    static RANGE_CORR: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    static PROCESS_CORR: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[allow(clippy::too_many_arguments)]
fn dispatch(
    rt: &Runtime,
    out: &mut String,
    tid: u64,
    kernel: usize,
    gpu: u32,
    stream: u32,
    grid: [u32; 3],
    workgroup: [u32; 3],
    dynamic_lds: u32,
    loaded: &Loaded,
) {
    let spec = &CATALOG[kernel];
    let items = grid.iter().map(|&g| u64::from(g)).product::<u64>();
    let duration = spec.duration_ns(items);
    let d = SimDispatch {
        gpu,
        stream,
        kernel_id: loaded.kernel_ids[gpu as usize][kernel],
        grid,
        workgroup,
        group_segment_size: spec.lds + dynamic_lds,
        private_segment_size: spec.scratch,
        duration_ns: duration,
        activity: spec.activity(items, workgroup.iter().product(), duration),
    };
    let mut r = SimDispatchResult::default();
    // SAFETY: valid structs.
    check("dispatch", unsafe { (rt.api.rocprofiler_sim_dispatch)(&d, &mut r) });
    Row {
        record: "kernel_dispatch",
        thread_id: Some(tid),
        correlation_id: Some(r.correlation_id),
        agent_id: Some(r.agent_id),
        queue_id: Some(r.queue_id),
        kernel_id: Some(d.kernel_id),
        dispatch_id: Some(r.dispatch_id),
        start_ns: Some(r.start_ns),
        end_ns: Some(r.end_ns),
        grid: Some(grid),
        workgroup: Some(workgroup),
        lds_bytes: Some(u64::from(d.group_segment_size)),
        scratch_bytes: Some(u64::from(d.private_segment_size)),
        ..Row::default()
    }
    .write_to(out);
    for &counter in &loaded.counters[gpu as usize] {
        Row {
            record: "counter",
            correlation_id: Some(r.correlation_id),
            agent_id: Some(r.agent_id),
            dispatch_id: Some(r.dispatch_id),
            value: Some(hw::total(counter, &d.activity)),
            name: Some(counter.name()),
            ..Row::default()
        }
        .write_to(out);
    }
    if r.scratch_bytes > 0 {
        Row {
            record: "scratch_memory",
            thread_id: Some(tid),
            correlation_id: Some(r.correlation_id),
            operation: Some("SCRATCH_MEMORY_ALLOC"),
            agent_id: Some(r.agent_id),
            queue_id: Some(r.queue_id),
            start_ns: Some(r.scratch_start_ns),
            end_ns: Some(r.scratch_end_ns),
            bytes: Some(r.scratch_bytes),
            ..Row::default()
        }
        .write_to(out);
    }
}

fn main() {
    let args = Args::parse();
    let Some(weights) = mix(&args.mix) else {
        eprintln!("rocprof-sim: unknown --mix {:?}; choose one of {}", args.mix, MIXES.join(", "));
        std::process::exit(2);
    };
    if args.threads == 0 || args.agents == 0 {
        eprintln!("rocprof-sim: --threads and --agents must be at least 1");
        std::process::exit(2);
    }
    let path = sdk_path(args.sdk.clone()).unwrap_or_else(|e| {
        eprintln!("rocprof-sim: {e}");
        std::process::exit(2)
    });
    let (library, api) = SimRuntimeApi::open(&path).unwrap_or_else(|e| {
        eprintln!("rocprof-sim: {e}");
        std::process::exit(2)
    });
    let rt = Runtime { api };
    eprintln!("rocprof-sim: {}", rocprof_sim::SIMULATED_BANNER);
    // SAFETY: plain integers.
    check("configure machine", unsafe {
        (rt.api.rocprofiler_sim_configure_machine)(args.agents, u32::from(args.consumer_gpu))
    });
    if let Some(tool) = &args.force_configure {
        force_configure(&library, tool);
    }
    // SAFETY: a static NUL-terminated name.
    check("register runtime", unsafe { (rt.api.rocprofiler_sim_register_runtime)(c"hip".as_ptr()) });

    let mut truth = String::new();
    truth.push_str(&banner_line());
    truth.push_str(&format!(
        "# seed={} dispatches={} threads={} agents={} consumer_gpu={} mix={} counters={}\n",
        args.seed,
        args.dispatches,
        args.threads,
        args.agents,
        args.consumer_gpu,
        args.mix,
        args.counters.join(",")
    ));
    truth.push_str(HEADER);
    truth.push('\n');
    // One code object per GPU holding the whole catalog, as a fat binary registers on each device.
    let names: Vec<CString> = CATALOG.iter().map(|k| CString::new(k.mangled).unwrap()).collect();
    let symbols: Vec<SimKernelSymbol> = CATALOG
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
    let archs = hw::machine(args.agents, args.consumer_gpu);
    let mut kernel_ids = Vec::new();
    for gpu in 0..archs.len() as u32 {
        let uri =
            CString::new(format!("memory://{}#offset=0x{:x}&size=1048576", std::process::id(), 0x1000 * (gpu + 1)))
                .unwrap();
        let mut ids = vec![0u64; symbols.len()];
        // SAFETY: valid arrays of `symbols.len()` entries.
        check("load code object", unsafe {
            (rt.api.rocprofiler_sim_load_code_object)(
                gpu,
                uri.as_ptr(),
                symbols.as_ptr(),
                symbols.len() as u64,
                ids.as_mut_ptr(),
            )
        });
        let mut agent = rocprofiler_agent_id_t { handle: 0 };
        // SAFETY: valid output.
        check("gpu agent", unsafe { (rt.api.rocprofiler_sim_gpu_agent)(gpu, &mut agent) });
        // Code objects are numbered in load order and the driver is the only loader.
        let object_id = u64::from(gpu) + 1;
        Row {
            record: "code_object",
            agent_id: Some(agent.handle),
            object_id: Some(object_id),
            name: Some(&uri.to_string_lossy()),
            ..Row::default()
        }
        .write_to(&mut truth);
        for (k, id) in CATALOG.iter().zip(&ids) {
            Row {
                record: "kernel_symbol",
                object_id: Some(object_id),
                kernel_id: Some(*id),
                lds_bytes: Some(u64::from(k.lds)),
                scratch_bytes: Some(u64::from(k.scratch)),
                name: Some(k.mangled),
                ..Row::default()
            }
            .write_to(&mut truth);
        }
        kernel_ids.push(ids);
    }
    std::mem::forget(names);
    let loaded = Loaded { kernel_ids, counters: archs.iter().map(|&a| counters_on(a, &args.counters)).collect() };
    let workload = Workload {
        dispatches: args.dispatches,
        threads: args.threads,
        gpus: archs.len() as u32,
        seed: args.seed,
        weights,
        range_every: args.range_every,
        copy_every: args.copy_every,
    };
    let parts: Vec<PathBuf> = (0..args.threads).map(|t| args.truth.with_extension(format!("part{t}"))).collect();
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        for (t, part) in parts.iter().enumerate() {
            let (rt, workload, loaded) = (&rt, &workload, &loaded);
            std::thread::Builder::new()
                .name(format!("sim-app-{t}"))
                .spawn_scoped(scope, move || {
                    if let Err(e) = play(rt, workload, t as u32, loaded, part) {
                        eprintln!("rocprof-sim: thread {t}: cannot write {}: {e}", part.display());
                        std::process::exit(2);
                    }
                })
                .expect("cannot spawn an application thread");
        }
    });
    // SAFETY: no arguments.
    check("synchronize", unsafe { (rt.api.rocprofiler_sim_synchronize)() });
    let elapsed = started.elapsed();
    if let Err(e) = write_truth(&args.truth, &truth, &parts) {
        eprintln!("rocprof-sim: cannot write {}: {e}", args.truth.display());
        std::process::exit(2);
    }
    eprintln!(
        "rocprof-sim: SIMULATED {} dispatches over {} threads and {} GPUs in {:.2} s ({:.0} dispatches/s); truth in {}",
        args.dispatches,
        args.threads,
        args.agents,
        elapsed.as_secs_f64(),
        args.dispatches as f64 / elapsed.as_secs_f64(),
        args.truth.display()
    );
    std::mem::forget(library);
    if let Some(name) = &args.raise {
        let signal = match name.trim_start_matches("SIG") {
            "TERM" => libc::SIGTERM,
            "INT" => libc::SIGINT,
            "KILL" => libc::SIGKILL,
            other => {
                eprintln!("rocprof-sim: --raise {other:?}: expected TERM, INT or KILL");
                std::process::exit(2)
            }
        };
        // SAFETY: signalling our own process.
        unsafe { libc::kill(libc::getpid(), signal) };
        // A tool's handler may take a moment; the signal ends the process meanwhile.
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
    std::process::exit(i32::from(args.exit_code));
}

fn write_truth(path: &Path, head: &str, parts: &[PathBuf]) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    out.write_all(head.as_bytes())?;
    for part in parts {
        std::io::copy(&mut std::fs::File::open(part)?, &mut out)?;
        std::fs::remove_file(part)?;
    }
    out.flush()
}
