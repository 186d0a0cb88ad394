//! Counters for benchmarks: application work seen, and time tools spent in buffer callbacks.

use std::sync::atomic::{AtomicU64, Ordering};

use rocprof_sim::runtime_abi::SimStats;

pub static API_CALLS: AtomicU64 = AtomicU64::new(0);
pub static DISPATCHES: AtomicU64 = AtomicU64::new(0);
static CALLBACKS: AtomicU64 = AtomicU64::new(0);
static CALLBACK_RECORDS: AtomicU64 = AtomicU64::new(0);
static CALLBACK_NS: AtomicU64 = AtomicU64::new(0);
static CALLBACK_CPU_NS: AtomicU64 = AtomicU64::new(0);
/// Wall time producers spent placing records (waits for a flush in progress included).
pub static EMPLACE_NS: AtomicU64 = AtomicU64::new(0);
/// Records dropped by every buffer.
pub static BUFFER_DROPS: AtomicU64 = AtomicU64::new(0);

/// Counts one buffer callback of `records` records that took `ns` of wall time and `cpu_ns` of
/// the callback thread's CPU time.
pub fn buffer_callback(records: usize, ns: u64, cpu_ns: u64) {
    CALLBACKS.fetch_add(1, Ordering::Relaxed);
    CALLBACK_RECORDS.fetch_add(records as u64, Ordering::Relaxed);
    CALLBACK_NS.fetch_add(ns, Ordering::Relaxed);
    CALLBACK_CPU_NS.fetch_add(cpu_ns, Ordering::Relaxed);
}

/// The counters now.
pub fn snapshot() -> SimStats {
    SimStats {
        api_calls: API_CALLS.load(Ordering::Relaxed),
        dispatches: DISPATCHES.load(Ordering::Relaxed),
        buffer_callbacks: CALLBACKS.load(Ordering::Relaxed),
        buffer_callback_records: CALLBACK_RECORDS.load(Ordering::Relaxed),
        buffer_callback_ns: CALLBACK_NS.load(Ordering::Relaxed),
        buffer_callback_cpu_ns: CALLBACK_CPU_NS.load(Ordering::Relaxed),
        emplace_ns: EMPLACE_NS.load(Ordering::Relaxed),
        buffer_drops: BUFFER_DROPS.load(Ordering::Relaxed),
    }
}
