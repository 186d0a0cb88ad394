//! rocprof-rs: a Rust-native GPU kernel profiler for AMD's rocprofiler-sdk (ROCm 7.0 and later).
//!
//! This crate is both the library Rust applications link for in-process profiling and the tool
//! library (`librocprof_rs.so`) that the SDK loads through `ROCP_TOOL_LIBRARIES` or `LD_PRELOAD`.
//! It has no link-time dependency on ROCm: the SDK and HIP are resolved at run time through
//! [`rocprofiler_sdk_sys`], so the library and the `rocprof-rs` CLI load on any Linux machine.
//!
//! Layers, after cudarc: `rocprofiler_sdk_sys` (declarations and function tables) → [`error`]
//! and [`handles`] (checked results and typed ids) → the services built on them.

pub mod analysis;
pub mod compat;
pub mod config;
pub mod counters;
pub mod doctor;
pub mod error;
pub mod export;
pub mod handles;
pub mod import;
pub mod profiler;
pub mod progress;
pub mod rocpd;
pub mod sdk;
pub mod stats;
pub mod tables;
pub mod tool;
pub mod workload;

pub use error::{Error, Result, Status};
pub use profiler::{Profiler, ProfilerBuilder, Region};
pub use tool::writer::Summary;
