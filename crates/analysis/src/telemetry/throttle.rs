//! Kernels during which the GPU's clock fell: throttling, told by the samples' SM clock below
//! [`FALL`] of the GPU's highest clock while kernels ran, and, where the library reports them
//! (NVML), a slowdown among its throttle reasons (a low clock without one is an idle GPU ramping
//! up). AMD SMI reports no reasons: there the clock alone tells.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::attribute::DispatchEnergy;
use super::series::{DeviceKey, Series};
use super::summary::is_idle;

/// A clock below this share of the GPU's highest clock under load is a fall.
pub const FALL: f64 = 0.95;

/// One kernel's dispatches that ran while the clock was down.
#[derive(Debug, Clone, Serialize, PartialEq, schemars::JsonSchema)]
pub struct ThrottledKernel {
    pub kernel_name: String,
    pub pid: u32,
    pub agent_id: u64,
    /// Dispatches with a sample in or around them, and of those, the ones with a fall.
    pub sampled: u64,
    pub throttled: u64,
    /// The lowest SM clock sampled during a throttled dispatch, and the GPU's highest under load.
    pub lowest_mhz: u32,
    pub peak_mhz: u32,
    /// The library's reasons seen during them (idleness left out).
    pub reasons: Vec<String>,
}

/// The kernels whose clocks fell, most throttled dispatches first.
pub fn kernels(series: &BTreeMap<DeviceKey, Series>, dispatches: &[DispatchEnergy]) -> Vec<ThrottledKernel> {
    let by_agent: HashMap<(u32, u64), &Series> =
        series.iter().filter_map(|(key, s)| Some(((key.pid, s.agent_id?), s))).collect();
    // The highest clock sampled while any kernel ran: the GPU's clock under load.
    let mut peak: HashMap<(u32, u64), u32> = HashMap::new();
    let mut found: BTreeMap<(String, u32, u64), ThrottledKernel> = BTreeMap::new();
    let around = |s: &Series, d: &DispatchEnergy| {
        // The samples inside the dispatch, or the last one before it for a short one.
        let first = s.samples.partition_point(|x| x.time_ns < d.start_ns);
        let end = s.samples.partition_point(|x| x.time_ns <= d.end_ns);
        if first < end { first..end } else { first.saturating_sub(1)..first.min(s.samples.len()) }
    };
    for d in dispatches {
        let Some(s) = by_agent.get(&(d.pid, d.agent_id)) else { continue };
        let top = s.samples[around(s, d)].iter().filter_map(|x| x.sm_clock_mhz).max().unwrap_or(0);
        let entry = peak.entry((d.pid, d.agent_id)).or_default();
        *entry = (*entry).max(top);
    }
    for d in dispatches {
        let Some(s) = by_agent.get(&(d.pid, d.agent_id)) else { continue };
        let range = around(s, d);
        if range.is_empty() {
            continue;
        }
        let peak_mhz = peak[&(d.pid, d.agent_id)];
        let key = (d.kernel_name.to_string(), d.pid, d.agent_id);
        let entry = found.entry(key).or_insert_with(|| ThrottledKernel {
            kernel_name: d.kernel_name.to_string(),
            pid: d.pid,
            agent_id: d.agent_id,
            sampled: 0,
            throttled: 0,
            lowest_mhz: u32::MAX,
            peak_mhz,
            reasons: Vec::new(),
        });
        entry.sampled += 1;
        let lowest = s.samples[range.clone()].iter().filter_map(|x| x.sm_clock_mhz).min();
        // Where the library says why clocks are where they are, a low clock with no slowdown
        // among its reasons is a GPU idling or ramping up, not throttled.
        let reported = s.samples[range.clone()].iter().any(|x| x.throttle_reasons.is_some());
        let slowed = s.throttle[range.clone()].iter().flatten().any(|names| names.split(',').any(|n| !is_idle(n)));
        if let Some(lowest) = lowest.filter(|&l| f64::from(l) < FALL * f64::from(peak_mhz) && (slowed || !reported)) {
            entry.throttled += 1;
            entry.lowest_mhz = entry.lowest_mhz.min(lowest);
            for names in s.throttle[range].iter().flatten() {
                for name in names.split(',').filter(|n| !is_idle(n)) {
                    if !entry.reasons.iter().any(|r| r == name) {
                        entry.reasons.push(name.to_owned());
                    }
                }
            }
        }
    }
    let mut throttled: Vec<ThrottledKernel> = found.into_values().filter(|k| k.throttled > 0).collect();
    throttled.sort_by(|a, b| b.throttled.cmp(&a.throttled).then_with(|| a.kernel_name.cmp(&b.kernel_name)));
    throttled
}
