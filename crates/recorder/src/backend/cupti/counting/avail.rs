//! `rocprof-rs avail` on NVIDIA: each GPU's chip (or a chip named with no GPU at all: CUPTI's
//! host API needs none), its metrics with description, unit and passes, and which presets run in
//! full there and in how many passes.

use std::ffi::CString;

use rocprofiler_sdk_sys::cupti::Cupti;
use serde::Serialize;

use super::super::api::driver;
use super::super::api::profiler::{self, Host};
use super::super::error::CuptiError;
use super::choose;
use super::presets as nvidia;
use crate::counters::{Selection, presets};

/// One metric of a chip.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Metric {
    /// The name to ask for: the base metric with its rollup (`dram__bytes_read.sum`).
    pub name: String,
    pub description: String,
    /// The hardware unit that counts it.
    pub hw_unit: String,
    pub unit: String,
    /// Passes it needs alone (1 for nearly all; a metric of more is never counted per dispatch).
    pub passes: usize,
}

/// One preset on one chip.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PresetOnChip {
    pub name: &'static str,
    pub about: &'static str,
    pub complete: bool,
    pub metrics: Vec<String>,
    /// Passes the whole set takes.
    pub passes: usize,
    pub notes: Vec<String>,
}

/// One GPU (or named chip).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Chip {
    /// `GPU 0 (GH100)`, or the chip alone when named without a GPU.
    pub label: String,
    pub chip: String,
    pub metrics: Vec<Metric>,
    pub presets: Vec<PresetOnChip>,
}

/// The rollup a base metric of `kind` is asked for with: counters `.sum`, ratios and throughputs
/// their own.
fn rollup(base: &str, kind: u32) -> String {
    match kind {
        rocprofiler_sdk_sys::cupti::CUPTI_METRIC_TYPE_RATIO => format!("{base}.ratio"),
        rocprofiler_sdk_sys::cupti::CUPTI_METRIC_TYPE_THROUGHPUT => format!("{base}.avg.pct_of_peak_sustained_elapsed"),
        _ => format!("{base}.sum"),
    }
}

/// What `chip` offers. `filter` keeps the metrics whose name contains it (pass counts take a few
/// ms a metric: all of them, some 3,600 on GH100, take seconds).
pub fn chip(cupti: &Cupti, label: String, chip: &str, filter: Option<&str>) -> Result<Chip, CuptiError> {
    let host = Host::new(cupti, chip, None)?;
    let known = host.base_metrics()?;
    let mut metrics = Vec::new();
    for base in &known {
        if filter.is_some_and(|f| !base.to_ascii_lowercase().contains(&f.to_ascii_lowercase())) {
            continue;
        }
        let p = host.properties(base)?;
        let name = rollup(base, p.kind);
        let passes = CString::new(name.as_str())
            .ok()
            .and_then(|n| profiler::passes_of(cupti, chip, None, &[n]).ok())
            .unwrap_or(0);
        metrics.push(Metric { name, description: p.description, hw_unit: p.hw_unit, unit: p.unit, passes });
    }
    let mut reports = Vec::new();
    for preset in nvidia::PRESETS {
        let amd = presets::by_name(preset.name).expect("every NVIDIA preset has an AMD namesake");
        let (chosen, notes) = match choose::metrics(&Selection::Preset(amd), chip, &known) {
            Ok(found) => found,
            Err(e) => (Vec::new(), vec![e.to_string()]),
        };
        let names: Vec<CString> = chosen.iter().filter_map(|n| CString::new(n.as_str()).ok()).collect();
        let passes = if names.is_empty() { 0 } else { profiler::passes_of(cupti, chip, None, &names)? };
        reports.push(PresetOnChip {
            name: preset.name,
            about: preset.about,
            complete: notes.is_empty() && !chosen.is_empty(),
            metrics: chosen,
            passes,
            notes,
        });
    }
    Ok(Chip { label, chip: chip.to_owned(), metrics, presets: reports })
}

/// The chips of the GPUs the CUDA driver has, as `GPU i (chip)`: `cuInit` and
/// `cuDeviceGetCount` from libcuda (loaded at run time), then CUPTI's profiler, which must be
/// initialised before it names a chip (asked before, CUPTI 13.0 crashes).
pub fn gpus(cupti: &Cupti) -> Result<Vec<(String, String)>, CuptiError> {
    let devices = driver::device_count().ok_or(CuptiError::Refused {
        what: "the GPU list",
        text: "no CUDA driver (libcuda.so.1) or it found no GPU".into(),
    })?;
    profiler::initialize(cupti)?;
    (0..devices)
        .map(|d| {
            let chip = profiler::chip_name(cupti, d)?;
            Ok((format!("GPU {d} ({chip})"), chip))
        })
        .collect()
}
