//! What the benches share: the simulator's kernel catalog as the symbol records a run starts
//! with, so dispatch rows get real names, and the random numbers their datasets are made of.

// Each bench compiles this module as its own and uses part of it.
#![allow(dead_code)]

use rocprof_rs::pipeline::records::{Record, Symbol};
use rocprof_sim::kernels::CATALOG;

/// One symbol record per catalog kernel, kernel ids from 1.
pub fn symbols() -> Vec<Record> {
    CATALOG
        .iter()
        .enumerate()
        .map(|(i, k)| {
            Record::Symbol(Box::new(Symbol {
                kernel_id: i as u64 + 1,
                code_object_id: 1,
                mangled: k.mangled.into(),
                kernarg_size: k.kernarg_size,
                group_segment_size: k.lds,
                private_segment_size: k.scratch,
                sgpr: k.sgpr,
                arch_vgpr: k.arch_vgpr,
                accum_vgpr: k.accum_vgpr,
            }))
        })
        .collect()
}

/// A xorshift generator: irregular enough that columns compress and decode as a real trace's.
pub fn xorshift() -> impl FnMut() -> u64 {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// Waits for the child `pid` to end: its wait status and its peak resident set, KiB
/// (`ru_maxrss`, which only `wait4` reports per child).
pub fn wait_peak_rss(pid: libc::pid_t) -> (libc::c_int, u64) {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing its status and usage into the locals above.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    (status, usage.ru_maxrss as u64)
}
