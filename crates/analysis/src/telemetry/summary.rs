//! Per-GPU figures of a run's samples: `stats`' device section.

use std::collections::BTreeMap;

use serde::Serialize;

use super::energy::{integrate, power_points};
use super::series::{DeviceKey, Series};

/// One GPU's figures over the run.
#[derive(Debug, Clone, Serialize, PartialEq, schemars::JsonSchema)]
pub struct DeviceStats {
    pub pid: u32,
    pub device_index: u32,
    pub device_uuid: String,
    pub library: String,
    pub agent_id: Option<u64>,
    pub host: Option<String>,
    pub rank: Option<i32>,
    pub samples: usize,
    /// From the first sample to the last.
    pub span_ns: i64,
    /// Time-weighted: the power integral over the span.
    pub mean_power_w: Option<f64>,
    pub peak_power_w: Option<f64>,
    /// The energy counter's rise over the span, where the GPU has one.
    pub energy_counter_j: Option<f64>,
    /// The integral of the sampled power over the span.
    pub energy_integral_j: Option<f64>,
    pub mean_sm_clock_mhz: Option<f64>,
    pub min_sm_clock_mhz: Option<u32>,
    pub max_sm_clock_mhz: Option<u32>,
    pub mean_memory_clock_mhz: Option<f64>,
    pub peak_memory_used_bytes: Option<u64>,
    pub memory_total_bytes: Option<u64>,
    pub mean_gpu_busy_pct: Option<f64>,
    pub peak_temperature_c: Option<i32>,
    /// Samples with a throttle reason other than idleness, and the reasons seen.
    pub throttled_samples: usize,
    pub throttle_reasons: Vec<String>,
}

/// The figures of every GPU.
pub fn devices(series: &BTreeMap<DeviceKey, Series>) -> Vec<DeviceStats> {
    series.iter().filter(|(_, s)| !s.samples.is_empty()).map(|(key, s)| one(key, s)).collect()
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(sum, n), v| (sum + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

fn one(key: &DeviceKey, s: &Series) -> DeviceStats {
    let samples = &s.samples;
    let (first, last) = (samples[0], samples[samples.len() - 1]);
    let points = power_points(samples);
    let integral = points.first().zip(points.last()).and_then(|(a, b)| integrate(&points, a.0, b.0));
    let powered_ns = points.last().map_or(0, |b| b.0.saturating_sub(points[0].0));
    // A counter that went back (a driver reload or GPU reset between samples) says nothing.
    let energy_counter_j = {
        let energies: Vec<f64> = samples.iter().filter_map(|x| x.energy_j).collect();
        let monotonic = energies.windows(2).all(|w| w[1] >= w[0]);
        energies.first().zip(energies.last()).filter(|_| monotonic).map(|(a, b)| b - a)
    };
    let mut reasons: Vec<String> = s
        .throttle
        .iter()
        .flatten()
        .flat_map(|names| names.split(','))
        .filter(|n| !is_idle(n))
        .map(str::to_owned)
        .collect();
    reasons.sort();
    reasons.dedup();
    DeviceStats {
        pid: key.pid,
        device_index: key.device_index,
        device_uuid: s.device_uuid.clone(),
        library: s.library.clone(),
        agent_id: s.agent_id,
        host: s.host.clone(),
        rank: s.rank,
        samples: samples.len(),
        span_ns: last.time_ns.saturating_sub(first.time_ns),
        mean_power_w: match integral {
            Some(e) if powered_ns > 0 => Some(e.joules / (powered_ns as f64 * 1e-9)),
            _ => points.first().map(|p| p.1),
        },
        peak_power_w: points.iter().map(|p| p.1).reduce(f64::max),
        energy_counter_j,
        energy_integral_j: integral.map(|e| e.joules),
        mean_sm_clock_mhz: mean(samples.iter().filter_map(|x| x.sm_clock_mhz).map(f64::from)),
        min_sm_clock_mhz: samples.iter().filter_map(|x| x.sm_clock_mhz).min(),
        max_sm_clock_mhz: samples.iter().filter_map(|x| x.sm_clock_mhz).max(),
        mean_memory_clock_mhz: mean(samples.iter().filter_map(|x| x.memory_clock_mhz).map(f64::from)),
        peak_memory_used_bytes: samples.iter().filter_map(|x| x.memory_used_bytes).max(),
        memory_total_bytes: samples.iter().filter_map(|x| x.memory_total_bytes).max(),
        mean_gpu_busy_pct: mean(samples.iter().filter_map(|x| x.gpu_busy_pct).map(f64::from)),
        peak_temperature_c: samples.iter().filter_map(|x| x.temperature_c).max(),
        throttled_samples: s
            .throttle
            .iter()
            .filter(|t| t.as_deref().is_some_and(|names| names.split(',').any(|n| !is_idle(n))))
            .count(),
        throttle_reasons: reasons,
    }
}

/// A reason that is no slowdown: the GPU idles, or the clocks are where the user set them.
pub fn is_idle(reason: &str) -> bool {
    matches!(reason, "gpu_idle" | "applications_clocks_setting" | "display_clock_setting" | "")
}
