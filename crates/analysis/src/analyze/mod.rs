//! Analysis: where each kernel stands against what its GPU can do.
//!
//! [`specs`] is the GPU database (peaks and bandwidths with their sources) and the device a
//! trace ran on. The conventions behind every number (what a FLOP is, how packed and matrix
//! instructions count, how partitions divide a part) are in this folder's README.md.

pub mod bottleneck;
pub mod busy_time;
pub mod dataset;
pub mod diff;
pub mod kept;
pub mod measured;
pub mod occupancy;
pub mod reason;
pub mod report;
pub mod roofline;
pub mod sm_occupancy;
pub mod specs;
pub mod timings;

pub use report::{Analysis, KernelAnalysis, Options, Streamed, analyze, analyze_streamed};
pub mod fitness;
pub mod measure;
#[cfg(test)]
mod noise;
pub mod svg;
