//! The hostile suite: what an attacker, a full disk, a limit, a signal, a second process or a
//! corrupt file does to the tool and the CLI. Each test reproduces a failure a hostile test of
//! commit 47d76a8 found, and holds the promise it broke: the application is never harmed, and
//! data is never lost or corrupted without one line saying so.
//!
//! The application is the simulator (`rocprof-sim`, SIMULATED: no GPU is involved), whose
//! ground truth pyarrow compares with what was written (`pip install -r
//! tests/verify/requirements.txt`).

#[path = "../common/mod.rs"]
mod common;

mod always_on;
mod databases;
mod drops;
mod growth;
mod inputs;
mod libraries;
mod memory;
mod messages;
mod outputs;
mod parquet;
mod settings;
mod terminal;
mod values;
mod writers;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::*;

/// The simulated application: `dispatches` over 8 threads and 2 GPUs, with the tool loaded as
/// the SDK loads it, writing under `dir/out`. Tests add `--truth FILE` or `--no-truth`.
fn app(dir: &Path, dispatches: u64) -> Command {
    let mut cmd = Command::new(built("rocprof-sim"));
    cmd.args(["--dispatches", &dispatches.to_string(), "--threads", "8", "--agents", "2"])
        .arg("--sdk")
        .arg(built("librocprofiler_sdk_sim.so"))
        .env_remove("LD_PRELOAD")
        .env("ROCP_TOOL_LIBRARIES", tool())
        .env("ROCPROF_RS_OUTPUT_DIR", dir.join("out"))
        .env("ROCPROF_RS_DOMAINS", "kernel,hip_api,memory_copy,marker,scratch_memory,memory_allocation");
    cmd
}

/// The CLI.
fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
}

/// Runs `cmd` to its end, failing the test if it takes longer than `limit` (a hang).
fn finish_within(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!("{cmd:?} hung for {limit:?}; stderr: {}", stderr(&output));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Sets `RLIMIT_FSIZE = bytes` in the process `cmd` starts: a file that would grow beyond it
/// gets SIGXFSZ (default action: death) or, with the signal blocked or ignored, EFBIG.
fn limit_file_size(cmd: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    let set = move || {
        let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
        // SAFETY: setrlimit with a valid rlimit.
        if unsafe { libc::setrlimit(libc::RLIMIT_FSIZE, &limit) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    // SAFETY: the closure only calls setrlimit (async-signal-safe) between fork and exec.
    unsafe { cmd.pre_exec(set) };
}

/// Sets `RLIMIT_AS = bytes` in the process `cmd` starts: an allocation beyond it fails in the
/// child (Rust aborts it), not in a machine out of memory.
fn limit_address_space(cmd: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    let set = move || {
        let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
        // SAFETY: setrlimit with a valid rlimit.
        if unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    // SAFETY: the closure only calls setrlimit (async-signal-safe) between fork and exec.
    unsafe { cmd.pre_exec(set) };
}

/// The application ran to its own exit code (7) and the tool said exactly one line, naming
/// `expect`.
fn assert_unharmed(output: &Output, expect: &str) {
    assert_eq!(output.status.code(), Some(7), "the exit code must be the application's: {}", stderr(output));
    let lines = tool_lines(output);
    assert_eq!(lines.len(), 1, "exactly one line from the tool: {lines:?}");
    assert!(lines[0].contains(expect), "{:?} should mention {expect:?}", lines[0]);
}
