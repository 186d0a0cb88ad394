//! A **simulated** `librocprofiler-sdk.so.1`: the SDK 1.0 C API with its documented semantics,
//! for running tools end to end where no AMD GPU exists. Nothing it produces is a hardware
//! result; it says so on stderr when it initializes.
//!
//! What is faithful to SDK 1.0 (`rocm-systems@1b1610fc`, `lib/rocprofiler-sdk`):
//! - client discovery ([`registration`]): forced configure, `ROCP_TOOL_LIBRARIES` with its
//!   dropped-last-token bug and abort on a failed `dlopen`, `RTLD_DEFAULT` and `RTLD_NEXT`;
//!   configure, then initialize, with configuration locked outside initialize; finalize once;
//! - contexts and services ([`context`]), one configuration per kind per context;
//! - buffers ([`buffer`]): byte arenas of `{header, payload}`, watermark flushes on a callback
//!   thread, LOSSLESS double buffering that blocks the producer, DISCARD with `drop_count`;
//! - records in the 1.0 layouts of `rocprofiler-sdk-sys` (no second copy of any layout), with
//!   SDK-owned memory poisoned ([`buffer::POISON`]) as soon as each callback returns;
//! - agents, counters and dispatch counting ([`agents`], [`counters`]).
//!
//! What stands in for the runtimes: [`runtime`] exports `rocprofiler_sim_*` functions that the
//! `rocprof-sim` driver calls where HIP would hit the SDK's intercept tables.

// Test fixtures driving C APIs: FFI sequences read better as one commented block per call site.
#![allow(clippy::multiple_unsafe_ops_per_block)]
#![allow(non_upper_case_globals)]

mod agents;
mod buffer;
mod clock;
mod context;
mod counters;
mod dispatch;
mod exports;
mod ffi;
mod gpu;
mod names;
mod pc_samples;
mod pc_sampling;
mod registration;
mod runtime;
mod stats;
mod threads;
