//! `stats`' device section: each GPU's figures, and energy by kernel and by marker range.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{CellAlignment, ContentArrangement, Table};
use serde::Serialize;

use super::attribute::{self, DispatchEnergy, RangeEnergy};
use super::energy::{Energy, METHOD};
use super::series;
use super::summary::{self, DeviceStats};
use crate::error::Result;

/// One name's energy over its dispatches (or ranges).
#[derive(Debug, Clone, Serialize, PartialEq, schemars::JsonSchema)]
pub struct NamedEnergy {
    pub name: String,
    pub calls: u64,
    /// Calls with samples around them: the energy is theirs.
    pub covered: u64,
    pub time_ns: i64,
    pub joules: f64,
    pub uncertainty_j: f64,
    /// `joules` over the covered calls' time.
    pub mean_power_w: f64,
}

/// The device section of a dataset.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DeviceReport {
    pub devices: Vec<DeviceStats>,
    pub kernels: Vec<NamedEnergy>,
    pub ranges: Vec<NamedEnergy>,
    pub method: &'static str,
    /// Each dispatch's energy, for `dispatch_energy.csv`.
    #[serde(skip)]
    pub dispatches: Vec<DispatchEnergy>,
}

/// The device section of the dataset under `dir` (only process `pid`, where given); `None`
/// where it has no device samples.
pub fn report(dir: &Path, pid: Option<u32>) -> Result<Option<DeviceReport>> {
    let mut all = series::read(dir)?;
    all.retain(|key, _| pid.is_none_or(|p| p == key.pid));
    if all.is_empty() {
        return Ok(None);
    }
    let dispatches = attribute::dispatches(dir, &all)?;
    let ranges = attribute::ranges(dir, &all)?;
    let kernels = by_name(dispatches.iter().map(|d| (&*d.kernel_name, d.end_ns - d.start_ns, d.energy)));
    let ranges = by_name(ranges.iter().map(|r: &RangeEnergy| (r.message.as_str(), r.end_ns - r.start_ns, r.energy)));
    Ok(Some(DeviceReport { devices: summary::devices(&all), kernels, ranges, method: METHOD, dispatches }))
}

fn by_name<'a>(rows: impl Iterator<Item = (&'a str, i64, Option<Energy>)>) -> Vec<NamedEnergy> {
    let mut named: BTreeMap<&str, NamedEnergy> = BTreeMap::new();
    for (name, time, energy) in rows {
        let entry = named.entry(name).or_insert_with(|| NamedEnergy {
            name: name.to_owned(),
            calls: 0,
            covered: 0,
            time_ns: 0,
            joules: 0.0,
            uncertainty_j: 0.0,
            mean_power_w: 0.0,
        });
        entry.calls += 1;
        if let Some(e) = energy {
            entry.covered += 1;
            entry.time_ns += time;
            entry.joules += e.joules;
            entry.uncertainty_j += e.uncertainty_j;
        }
    }
    let mut rows: Vec<NamedEnergy> = named
        .into_values()
        .map(|mut n| {
            n.mean_power_w = if n.time_ns > 0 { n.joules / (n.time_ns as f64 * 1e-9) } else { 0.0 };
            n
        })
        .collect();
    rows.sort_by(|a, b| b.joules.total_cmp(&a.joules).then_with(|| a.name.cmp(&b.name)));
    rows
}

/// A CSV field in quotes, with its quotes doubled.
fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

fn optional<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

fn table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    table.set_header(header.to_vec());
    table
}

fn right_align(table: &mut Table, from: usize) {
    for column in from..table.column_count() {
        if let Some(c) = table.column_mut(column) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// The section as terminal tables: the GPUs, then the `top` names by energy.
pub fn render(report: &DeviceReport, top: usize, width: usize, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "Devices")?;
    let mut gpus = table(&[
        "GPU",
        "pid",
        "samples",
        "mean W",
        "peak W",
        "energy J",
        "counter J",
        "SM MHz",
        "min SM",
        "mem MHz",
        "peak mem",
        "busy %",
        "max °C",
        "throttled",
    ]);
    for d in &report.devices {
        let gib = |b: u64| format!("{:.2} GiB", b as f64 / f64::from(1u32 << 30));
        gpus.add_row(vec![
            format!("{} {}", d.device_index, d.device_uuid),
            d.pid.to_string(),
            d.samples.to_string(),
            optional(d.mean_power_w.map(|w| format!("{w:.1}"))),
            optional(d.peak_power_w.map(|w| format!("{w:.1}"))),
            optional(d.energy_integral_j.map(|j| format!("{j:.1}"))),
            optional(d.energy_counter_j.map(|j| format!("{j:.1}"))),
            optional(d.mean_sm_clock_mhz.map(|m| format!("{m:.0}"))),
            optional(d.min_sm_clock_mhz),
            optional(d.mean_memory_clock_mhz.map(|m| format!("{m:.0}"))),
            optional(d.peak_memory_used_bytes.map(gib)),
            optional(d.mean_gpu_busy_pct.map(|b| format!("{b:.0}"))),
            optional(d.peak_temperature_c),
            if d.throttle_reasons.is_empty() {
                d.throttled_samples.to_string()
            } else {
                format!("{} ({})", d.throttled_samples, d.throttle_reasons.join(","))
            },
        ]);
    }
    right_align(&mut gpus, 1);
    writeln!(out, "{gpus}")?;
    for (title, rows) in [("Energy by kernel", &report.kernels), ("Energy by marker range", &report.ranges)] {
        if rows.is_empty() {
            continue;
        }
        writeln!(out, "{title}")?;
        let mut t = table(&["name", "calls", "with samples", "energy J", "± J", "mean W"]);
        for n in rows.iter().take(top) {
            let name = if n.name.chars().count() > width {
                format!("{}…", n.name.chars().take(width.saturating_sub(1)).collect::<String>())
            } else {
                n.name.clone()
            };
            t.add_row(vec![
                name,
                n.calls.to_string(),
                n.covered.to_string(),
                format!("{:.4}", n.joules),
                format!("{:.4}", n.uncertainty_j),
                format!("{:.1}", n.mean_power_w),
            ]);
        }
        right_align(&mut t, 1);
        writeln!(out, "{t}")?;
        if rows.len() > top {
            writeln!(out, "({} more not shown; --top shows more)", rows.len() - top)?;
        }
    }
    writeln!(out, "method: {}", report.method)?;
    writeln!(out)
}

/// `device_stats.csv`, `kernel_energy.csv`, `marker_energy.csv` and `dispatch_energy.csv`.
pub fn csv_files(report: &DeviceReport) -> Vec<(&'static str, String)> {
    let mut files = Vec::new();
    let mut text = String::from(
        "pid,device_index,device_uuid,agent_id,samples,span_ns,mean_power_w,peak_power_w,energy_integral_j,energy_counter_j,\
         mean_sm_clock_mhz,min_sm_clock_mhz,max_sm_clock_mhz,mean_memory_clock_mhz,peak_memory_used_bytes,memory_total_bytes,\
         mean_gpu_busy_pct,peak_temperature_c,throttled_samples,throttle_reasons\n",
    );
    for d in &report.devices {
        let o = |v: Option<String>| v.unwrap_or_default();
        text.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            d.pid,
            d.device_index,
            quote(&d.device_uuid),
            o(d.agent_id.map(|v| v.to_string())),
            d.samples,
            d.span_ns,
            o(d.mean_power_w.map(|v| v.to_string())),
            o(d.peak_power_w.map(|v| v.to_string())),
            o(d.energy_integral_j.map(|v| v.to_string())),
            o(d.energy_counter_j.map(|v| v.to_string())),
            o(d.mean_sm_clock_mhz.map(|v| v.to_string())),
            o(d.min_sm_clock_mhz.map(|v| v.to_string())),
            o(d.max_sm_clock_mhz.map(|v| v.to_string())),
            o(d.mean_memory_clock_mhz.map(|v| v.to_string())),
            o(d.peak_memory_used_bytes.map(|v| v.to_string())),
            o(d.memory_total_bytes.map(|v| v.to_string())),
            o(d.mean_gpu_busy_pct.map(|v| v.to_string())),
            o(d.peak_temperature_c.map(|v| v.to_string())),
            d.throttled_samples,
            quote(&d.throttle_reasons.join(","))
        ));
    }
    files.push(("device_stats.csv", text));
    for (file, rows) in [("kernel_energy.csv", &report.kernels), ("marker_energy.csv", &report.ranges)] {
        let mut text = String::from("name,calls,covered,time_ns,energy_j,uncertainty_j,mean_power_w\n");
        for n in rows {
            text.push_str(&format!(
                "{},{},{},{},{},{},{}\n",
                quote(&n.name),
                n.calls,
                n.covered,
                n.time_ns,
                n.joules,
                n.uncertainty_j,
                n.mean_power_w
            ));
        }
        files.push((file, text));
    }
    let mut text = String::from("pid,agent_id,dispatch_id,kernel_name,start_ns,end_ns,energy_j,uncertainty_j\n");
    for d in &report.dispatches {
        let (j, u) =
            d.energy.map_or((String::new(), String::new()), |e| (e.joules.to_string(), e.uncertainty_j.to_string()));
        text.push_str(&format!(
            "{},{},{},{},{},{},{j},{u}\n",
            d.pid,
            d.agent_id,
            d.dispatch_id,
            quote(&d.kernel_name),
            d.start_ns,
            d.end_ns
        ));
    }
    files.push(("dispatch_energy.csv", text));
    files
}
