//! The bodies of the `--format json` outputs that are not one of the analysis's own types: a
//! list goes under a key, so that every output is one object beside its envelope.

use schemars::JsonSchema;
use serde::Serialize;

use rocprof_rs_analysis::stats::SectionStats;
use rocprof_rs_analysis::telemetry::report::DeviceReport;

/// `stats --format json`: the sections asked for, and the device section where asked for or
/// present.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StatsBody<'a> {
    pub sections: &'a [SectionStats],
    /// The GPUs' samples (`--section device`, or every section of a run with them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<&'a DeviceReport>,
}

/// `diff --format json`: the comparison of the dataset against `baseline`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DiffBody<R> {
    /// The run compared against (the first path given).
    pub baseline: String,
    #[serde(flatten)]
    pub report: R,
}

/// `hotspots --format json`: the kernels shown, the most sampled first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HotspotsBody<'a> {
    pub kernels: &'a [rocprof_rs_analysis::hotspots::KernelHotspots],
}

/// `avail --format json` on NVIDIA: each GPU's (or named chip's) metrics and presets.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ChipsBody<'a> {
    pub chips: &'a [rocprof_rs::backend::cupti::counting::avail::Chip],
}

/// `export --report json`: what was written.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ExportBody<W> {
    /// The format written (`--format`).
    pub format: String,
    pub files: Vec<W>,
}
