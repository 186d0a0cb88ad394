//! rocprof-rs's recorder: the tool library that rocprofiler-sdk and CUPTI load into the
//! profiled process (`librocprof_rs.so`), and the in-process [`Profiler`] a Rust program links.
//!
//! It has no link-time dependency on ROCm or CUDA: the SDK, HIP and CUPTI are resolved at run
//! time through [`rocprofiler_sdk_sys`], so the library loads on any Linux machine. It runs
//! inside someone else's process, so it carries nothing of post-processing: records go from
//! the callbacks through one queue to one writer thread, which writes the tables that
//! [`rocprof_rs_format`] declares.
//!
//! Layers, after cudarc: `rocprofiler_sdk_sys` (declarations and function tables) →
//! [`pipeline`] → [`lifecycle`] → [`backend`], each vendor's with its own safe layer over its
//! library (`backend::amd::sdk`, `backend::cupti::api`: each call once, typed handles, an error
//! naming the call) → [`profiler`]. README.md's Architecture section has the map.

pub mod backend;
pub mod c_api;
pub mod config;
pub mod counters;
pub mod error;
pub mod guard;
pub mod lifecycle;
pub mod pipeline;
pub mod profiler;
mod signals;
pub mod telemetry;
mod threads;
mod windows;

pub use error::{Error, Result, Status};
pub use pipeline::summary::Summary;
pub use profiler::{Backend, Profiler, ProfilerBuilder, Region};
