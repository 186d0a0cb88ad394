//! `rocprof-sim`: plays a GPU application against the **simulated** rocprofiler-sdk and writes
//! the ground truth of every record the SDK emitted. No GPU is involved.

mod ranks;

use std::path::{Path, PathBuf};

use clap::Parser;
use rocprof_sim::app::{Machine, default_sdk_path};
use rocprof_sim::ranks::{RankExit, Straggler};
use rocprof_sim::workload::{MIXES, Workload, mix};
use rocprofiler_sdk_sys::*;

/// Play a simulated HIP application against the simulated rocprofiler-sdk (SIMULATED: no GPU).
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// Microseconds each thread waits after a kernel launch (0: none), so the GPUs keep up
    /// with the host rather than fall ever further behind.
    #[arg(long, default_value_t = 0)]
    launch_gap_us: u64,
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
    /// The GPUs' architectures in agent order, comma-separated (gfx942: MI300X-like, host trap
    /// and stochastic PC sampling; gfx90a: MI210-like, host trap only); replaces --agents.
    /// Default: ROCPROF_SIM_GPU_ARCHS, which tools' own processes read too.
    #[arg(long)]
    gpu_archs: Option<String>,
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
    /// Write no truth (benchmarks: the rows are still built, so the cost is the same).
    #[arg(long)]
    no_truth: bool,
    /// When done, print one line `rocprof-sim-stats {json}` to stderr: the play's wall time and
    /// the simulator's counters (API calls, dispatches, buffer-callback records and time).
    #[arg(long)]
    stats: bool,
    /// The simulated SDK library (default: next to this executable).
    #[arg(long)]
    sdk: Option<PathBuf>,
    /// Load this tool and hand its `rocprofiler_configure` to `rocprofiler_force_configure`.
    #[arg(long)]
    force_configure: Option<PathBuf>,
    /// Fork this many children once the runtime is loaded; each plays its own workload (seed
    /// + 1 + its index) and writes its truth to TRUTH with its pid before the extension.
    #[arg(long, default_value_t = 0)]
    fork: u32,
    /// Exit with this status when done (to check that a tool leaves it unchanged).
    #[arg(long, default_value_t = 0)]
    exit_code: u8,
    /// When done and the truth is written, die by this signal (TERM, INT or KILL) instead of
    /// exiting: no atexit handler runs, so only a tool's signal handling can save its records.
    #[arg(long)]
    raise: Option<String>,
    /// Play a data-parallel training job of this many ranks, as as many processes (with RANK,
    /// LOCAL_RANK and WORLD_SIZE set as torchrun sets them), instead of the --dispatches
    /// workload: each writes its truth to TRUTH with `rank<k>` before the extension, and this
    /// process, once all are done, writes --ranks-truth.
    #[arg(long, default_value_t = 0)]
    ranks: u32,
    /// Training steps each rank plays: compute kernels in a ROCTx range `step <k>`, then an
    /// all-reduce.
    #[arg(long, default_value_t = 8)]
    steps: u32,
    /// RANK:STEP:DELAY_MS: that rank sleeps DELAY_MS before enqueuing that step's all-reduce,
    /// so its peers wait for it.
    #[arg(long)]
    straggler: Option<Straggler>,
    /// RANK:STEP:CODE: that rank exits with CODE when it reaches that step's all-reduce, as a
    /// crashed rank would (tests: its peers must give up rather than wait).
    #[arg(long)]
    rank_exit: Option<RankExit>,
    /// How long a rank waits for its peers at most (plus any straggler delay) before it gives
    /// up with an error.
    #[arg(long, default_value_t = 60.0)]
    rank_timeout: f64,
    /// Where to write the ranks truth (default: ranks-truth.json beside TRUTH).
    #[arg(long)]
    ranks_truth: Option<PathBuf>,
    /// Set by the launcher for each rank it starts: the board the ranks meet on.
    #[arg(long, hide = true)]
    rank_board: Option<PathBuf>,
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

fn check(what: &str, status: rocprofiler_status_t) {
    if status != ROCPROFILER_STATUS_SUCCESS {
        eprintln!("rocprof-sim: {what} failed with status {status}");
        std::process::exit(2);
    }
}

fn fail(message: &str) -> ! {
    eprintln!("rocprof-sim: {message}");
    std::process::exit(2)
}

/// The GPUs' architectures `--gpu-archs` (else `ROCPROF_SIM_GPU_ARCHS`) asks for, if any.
fn gpu_archs(args: &Args) -> Option<Vec<rocprof_sim::hw::Arch>> {
    let parsed = match &args.gpu_archs {
        Some(list) => Some(rocprof_sim::hw::parse_archs(list)),
        None => rocprof_sim::hw::archs_from_env(),
    };
    parsed.map(|archs| archs.unwrap_or_else(|e| fail(&e.to_string())))
}

fn main() {
    let args = Args::parse();
    if args.ranks > 0 {
        ranks::main(&args);
    }
    let Some(weights) = mix(&args.mix) else {
        fail(&format!("unknown --mix {:?}; choose one of {}", args.mix, MIXES.join(", ")));
    };
    if args.threads == 0 || args.agents == 0 {
        fail("--threads and --agents must be at least 1");
    }
    let path = args.sdk.clone().map_or_else(default_sdk_path, Ok).unwrap_or_else(|e| fail(&e));
    let archs = gpu_archs(&args);
    rocprof_sim::app::set_launch_gap(args.launch_gap_us);
    let mut machine = Machine::open_with_archs(&path, args.agents, args.consumer_gpu, archs.as_deref())
        .unwrap_or_else(|e| fail(&e.to_string()));
    if let Some(tool) = &args.force_configure {
        force_configure(machine.library(), tool);
    }
    machine.start_runtime();
    let workload = Workload {
        dispatches: args.dispatches,
        threads: args.threads,
        gpus: machine.archs().len() as u32,
        seed: args.seed,
        weights,
        range_every: args.range_every,
        copy_every: args.copy_every,
    };
    let about = format!(
        "seed={} dispatches={} threads={} agents={} consumer_gpu={} mix={}",
        args.seed, args.dispatches, args.threads, args.agents, args.consumer_gpu, args.mix,
    );
    let mut children = Vec::new();
    for i in 0..args.fork {
        // SAFETY: fork(2); the child goes on with this thread only, as a forked application does.
        match unsafe { libc::fork() } {
            0 => {
                let pid = std::process::id();
                let truth = args.truth.with_extension(format!("{pid}.csv"));
                let child = Workload { seed: args.seed + 1 + u64::from(i), ..workload.clone() };
                let about = format!("{about} forked child {i} pid={pid} seed={}", child.seed);
                machine.play(&child, Some((&truth, &about))).unwrap_or_else(|e| fail(&e));
                std::process::exit(0);
            }
            pid if pid > 0 => children.push(pid),
            _ => fail(&format!("fork failed: {}", std::io::Error::last_os_error())),
        }
    }
    let truth = (!args.no_truth).then_some((args.truth.as_path(), about.as_str()));
    let elapsed = machine.play(&workload, truth).unwrap_or_else(|e| fail(&e));
    for pid in children {
        let mut status = 0;
        // SAFETY: waiting for our own child with a valid status pointer.
        let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
        if waited != pid || !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
            fail(&format!("forked child {pid} failed (wait status {status})"));
        }
    }
    let truth_note =
        if args.no_truth { "no truth written".to_owned() } else { format!("truth in {}", args.truth.display()) };
    eprintln!(
        "rocprof-sim: SIMULATED {} dispatches over {} threads and {} GPUs in {:.2} s ({:.0} dispatches/s); {truth_note}",
        args.dispatches,
        args.threads,
        args.agents,
        elapsed.as_secs_f64(),
        args.dispatches as f64 / elapsed.as_secs_f64(),
    );
    if args.stats {
        let s = machine.stats();
        eprintln!(
            "rocprof-sim-stats {{\"play_ns\":{},\"api_calls\":{},\"dispatches\":{},\"buffer_callbacks\":{},\"buffer_callback_records\":{},\"buffer_callback_ns\":{},\"buffer_callback_cpu_ns\":{},\"emplace_ns\":{},\"buffer_drops\":{}}}",
            elapsed.as_nanos(),
            s.api_calls,
            s.dispatches,
            s.buffer_callbacks,
            s.buffer_callback_records,
            s.buffer_callback_ns,
            s.buffer_callback_cpu_ns,
            s.emplace_ns,
            s.buffer_drops
        );
    }
    std::mem::forget(machine);
    if let Some(name) = &args.raise {
        let signal = match name.trim_start_matches("SIG") {
            "TERM" => libc::SIGTERM,
            "INT" => libc::SIGINT,
            "KILL" => libc::SIGKILL,
            other => fail(&format!("--raise {other:?}: expected TERM, INT or KILL")),
        };
        // SAFETY: getpid cannot fail.
        let pid = unsafe { libc::getpid() };
        // SAFETY: signalling our own process.
        unsafe { libc::kill(pid, signal) };
        // A tool's handler may take a moment; the signal ends the process meanwhile.
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
    std::process::exit(i32::from(args.exit_code));
}
