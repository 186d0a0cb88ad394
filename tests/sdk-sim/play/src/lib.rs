//! SIMULATED: the simulated application (`rocprof_sim::app::Machine`) behind three C functions,
//! for tests of in-process profiling from another language (the Python package's
//! `rocprof_rs.start`): open the machine (which loads the simulated SDK, as an application loads
//! ROCm), register its runtime (as loading HIP does, after which the SDK takes no new tool), and
//! play a workload on it. No GPU is involved.
//!
//! Each returns 0, or -1 after printing the reason on stderr.

use std::ffi::{CStr, c_char, c_int};
use std::path::Path;
use std::sync::Mutex;

use rocprof_sim::app::Machine;
use rocprof_sim::workload::{Workload, mix};

static MACHINE: Mutex<Option<Machine>> = Mutex::new(None);

fn outcome(what: &str, result: Result<(), String>) -> c_int {
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("rocprof-sim-play: {what}: {e}");
            -1
        }
    }
}

/// Opens the simulated machine with `agents` GPUs over the simulated SDK at `sdk`.
///
/// # Safety
/// `sdk` is a NUL-terminated path.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rocprof_sim_play_open(sdk: *const c_char, agents: u32) -> c_int {
    if sdk.is_null() {
        return outcome("open", Err("no SDK path".into()));
    }
    // SAFETY: a NUL-terminated path, as the caller promises.
    let path = unsafe { CStr::from_ptr(sdk) }.to_string_lossy().into_owned();
    let opened = Machine::open(Path::new(&path), agents, false)
        .map(|machine| {
            *MACHINE.lock().unwrap_or_else(|p| p.into_inner()) = Some(machine);
        })
        .map_err(|e| e.to_string());
    outcome("open", opened)
}

/// Registers the simulated runtime: from here on the SDK takes no new tool.
#[unsafe(no_mangle)]
pub extern "C" fn rocprof_sim_play_start_runtime() -> c_int {
    let mut machine = MACHINE.lock().unwrap_or_else(|p| p.into_inner());
    let started = machine.as_mut().map(Machine::start_runtime).ok_or_else(|| "open the machine first".to_owned());
    outcome("start the runtime", started)
}

/// Plays `dispatches` kernels over `threads` threads and every GPU, from `seed`, with ROCTx
/// ranges and copies; returns when every dispatch has completed.
#[unsafe(no_mangle)]
pub extern "C" fn rocprof_sim_play(dispatches: u64, threads: u32, seed: u64) -> c_int {
    let machine = MACHINE.lock().unwrap_or_else(|p| p.into_inner());
    let played = match machine.as_ref() {
        None => Err("open the machine first".to_owned()),
        Some(machine) => {
            let workload = Workload {
                dispatches,
                threads: threads.max(1),
                gpus: machine.archs().len() as u32,
                seed,
                weights: mix("default").unwrap_or_default(),
                range_every: 64,
                copy_every: 32,
            };
            machine.play(&workload, None).map(|_| ())
        }
    };
    outcome("play", played)
}
