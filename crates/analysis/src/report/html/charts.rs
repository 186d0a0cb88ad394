//! The report's charts: the timeline's frame (the script draws its bins on a canvas), the
//! rooflines `analyze --svg` draws, and the device samples as SVG lines, reduced here to a
//! few hundred points per chart whatever the sampling rate.

use std::fmt::Write as _;

use super::table::{Cell, Table, escape, name_cell};
use crate::report::timeline::Timeline;
use crate::report::{Device, Roofline};
use crate::telemetry::series::Series;
use crate::units::{bytes, grouped, human_ns};

/// The timeline's frame: its canvas and controls; its bins are in `#timeline-data`.
pub fn timeline(t: &Timeline) -> String {
    let merged = if t.merged_lanes > 0 {
        format!(" {} quieter lanes are summed into an \"other\" lane of their kind.", t.merged_lanes)
    } else {
        String::new()
    };
    format!(
        "<p class=\"caption\">{} lanes over {}; one bin is {}. Kernel and copy lanes show the share of each bin \
         busy; API and marker lanes the calls started. Wheel or +/− to zoom, drag to pan, double-click to reset.{merged}</p>\n\
         <div class=\"timeline\" id=\"timeline-view\" data-lanes=\"{}\" data-bins=\"{}\">\n\
         <div class=\"tools\"><button type=\"button\" data-zoom=\"in\" title=\"zoom in\">+</button>\
         <button type=\"button\" data-zoom=\"out\" title=\"zoom out\">−</button>\
         <button type=\"button\" data-zoom=\"reset\">whole run</button>\
         <span class=\"readout\" id=\"timeline-readout\">&nbsp;</span></div>\n\
         <canvas id=\"timeline-canvas\" aria-label=\"timeline of GPU busy time and API and marker density\"></canvas>\n\
         <noscript><p class=\"note\">The timeline is drawn by the page's script.</p></noscript>\n</div>\n",
        t.lanes.len(),
        human_ns(t.end_ns.saturating_sub(t.start_ns) as f64),
        human_ns(t.bin_ns),
        t.lanes.len(),
        t.lanes.first().map_or(0, |l| l.values.len())
    )
}

/// Each GPU's roofline.
pub fn rooflines(charts: &[Roofline]) -> String {
    let mut out = String::from(
        "<p class=\"caption\">Each kernel is a point at its arithmetic intensity and achieved throughput; hover for \
         its numbers. Lines are the GPU's memory and compute ceilings.</p>\n",
    );
    for c in charts {
        // The chart's own XML prologue-free SVG goes in as is: it escapes its text itself.
        let _ = write!(
            out,
            "<figure class=\"roofline\" data-gpu=\"{}\" data-points=\"{}\">\n{}<figcaption>{} ({} kernels with a point)</figcaption>\n</figure>\n",
            escape(&c.gpu),
            c.points,
            c.svg,
            escape(&c.name),
            c.points
        );
    }
    out
}

/// The device section: each GPU's figures, its power, clock and memory over time, and energy
/// by kernel.
pub fn device(d: &Device) -> String {
    let mut out = String::new();
    let mut table = Table::new(
        "device-table",
        &[
            ("pid", true),
            ("GPU", true),
            ("samples", true),
            ("mean power", true),
            ("peak power", true),
            ("energy", true),
            ("SM clock", true),
            ("peak memory", true),
            ("busy", true),
            ("peak temp", true),
            ("throttled samples", true),
        ],
    );
    for s in &d.report.devices {
        let energy = s.energy_counter_j.or(s.energy_integral_j).filter(|j| j.is_finite());
        table.row(
            Some(&s.device_uuid),
            vec![
                Cell::Number(s.pid.to_string(), f64::from(s.pid)),
                Cell::Number(s.device_index.to_string(), f64::from(s.device_index)),
                Cell::Number(grouped(s.samples as u64), s.samples as f64),
                watts(s.mean_power_w),
                watts(s.peak_power_w),
                energy.map_or(Cell::Number("-".into(), f64::NAN), |j| Cell::Number(format!("{j:.1} J"), j)),
                s.mean_sm_clock_mhz.map_or(Cell::Number("-".into(), f64::NAN), |m| {
                    Cell::Number(
                        format!("{m:.0} MHz ({}–{})", s.min_sm_clock_mhz.unwrap_or(0), s.max_sm_clock_mhz.unwrap_or(0)),
                        m,
                    )
                }),
                s.peak_memory_used_bytes.map_or(Cell::Number("-".into(), f64::NAN), |b| {
                    let of = s.memory_total_bytes.map_or(String::new(), |t| format!(" of {}", bytes(t as f64)));
                    Cell::Number(format!("{}{of}", bytes(b as f64)), b as f64)
                }),
                s.mean_gpu_busy_pct.map_or(Cell::Number("-".into(), f64::NAN), |p| Cell::Number(format!("{p:.0}%"), p)),
                s.peak_temperature_c
                    .map_or(Cell::Number("-".into(), f64::NAN), |t| Cell::Number(format!("{t} °C"), f64::from(t))),
                Cell::Number(
                    if s.throttle_reasons.is_empty() {
                        grouped(s.throttled_samples as u64)
                    } else {
                        format!("{} ({})", grouped(s.throttled_samples as u64), s.throttle_reasons.join(", "))
                    },
                    s.throttled_samples as f64,
                ),
            ],
        );
    }
    out.push_str(&table.html());
    let start = d.series.values().filter_map(Series::span_ns).map(|s| s.0).min().unwrap_or(0);
    for (key, series) in &d.series {
        let _ = write!(
            out,
            "<h3>GPU {} of process {} <small>{}</small></h3>\n<div class=\"charts\">\n",
            key.device_index,
            key.pid,
            escape(&series.device_uuid)
        );
        let at = |t: i64| t.saturating_sub(start) as f64 / 1e9;
        let power: Vec<(f64, f64)> = series.samples.iter().filter_map(|s| Some((at(s.time_ns), s.power_w?))).collect();
        let clock: Vec<(f64, f64)> =
            series.samples.iter().filter_map(|s| Some((at(s.time_ns), f64::from(s.sm_clock_mhz?)))).collect();
        let memory: Vec<(f64, f64)> = series
            .samples
            .iter()
            .filter_map(|s| Some((at(s.time_ns), s.memory_used_bytes? as f64 / (1u64 << 30) as f64)))
            .collect();
        out.push_str(&line_chart("power", "Power", "W", &power));
        out.push_str(&line_chart("sm-clock", "SM clock", "MHz", &clock));
        out.push_str(&line_chart("memory", "Memory used", "GiB", &memory));
        out.push_str("</div>\n");
    }
    if !d.report.kernels.is_empty() {
        out.push_str("<h3>Energy by kernel</h3>\n");
        let mut t = Table::new(
            "energy-table",
            &[
                ("kernel", false),
                ("calls", true),
                ("with samples", true),
                ("time", true),
                ("energy", true),
                ("±", true),
                ("mean power", true),
            ],
        );
        for k in d.report.kernels.iter().take(50) {
            t.row(
                Some(&k.name),
                vec![
                    name_cell(&k.name),
                    Cell::Number(grouped(k.calls), k.calls as f64),
                    Cell::Number(grouped(k.covered), k.covered as f64),
                    Cell::Number(human_ns(k.time_ns as f64), k.time_ns as f64),
                    Cell::Number(format!("{:.3} J", k.joules), k.joules),
                    Cell::Number(format!("{:.3} J", k.uncertainty_j), k.uncertainty_j),
                    Cell::Number(format!("{:.1} W", k.mean_power_w), k.mean_power_w),
                ],
            );
        }
        out.push_str(&t.html());
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(d.report.method));
    }
    out
}

fn watts(w: Option<f64>) -> Cell {
    match w.filter(|w| w.is_finite()) {
        Some(w) => Cell::Number(format!("{w:.1} W"), w),
        None => Cell::Number("-".into(), f64::NAN),
    }
}

const CHART_WIDTH: f64 = 420.0;
const CHART_HEIGHT: f64 = 170.0;
const MARGIN_LEFT: f64 = 48.0;
const MARGIN_BOTTOM: f64 = 24.0;
const MARGIN_TOP: f64 = 22.0;
/// Points per chart at most: each a bucket's mean, with its minimum and maximum as a band.
const BUCKETS: usize = 400;

/// The samples that fall in one of a chart's columns.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    min: f64,
    max: f64,
    sum: f64,
    count: usize,
}

impl Default for Bucket {
    fn default() -> Self {
        Bucket { min: f64::INFINITY, max: f64::NEG_INFINITY, sum: 0.0, count: 0 }
    }
}

impl Bucket {
    fn add(&mut self, v: f64) {
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.sum += v;
        self.count += 1;
    }

    fn mean(&self) -> f64 {
        self.sum / self.count.max(1) as f64
    }
}

/// A line over time (seconds), its samples reduced to [`BUCKETS`] means with their extremes.
fn line_chart(class: &str, title: &str, unit: &str, points: &[(f64, f64)]) -> String {
    // A reading the library gave as NaN, infinite or absurd draws nothing rather than a broken
    // chart: SVG takes no NaN, and a 1e308 W peak would flatten every other sample.
    let points: Vec<(f64, f64)> =
        points.iter().copied().filter(|&(t, v)| t.is_finite() && v.is_finite() && v.abs() < 1e15).collect();
    let points = points.as_slice();
    if points.is_empty() {
        return format!("<p class=\"empty chart-{class}\">{title}: not reported by this GPU's library</p>\n");
    }
    let (t0, t1) = (points[0].0, points[points.len() - 1].0.max(points[0].0 + 1e-9));
    let mut buckets = vec![Bucket::default(); BUCKETS];
    for &(t, v) in points {
        let i = (((t - t0) / (t1 - t0)) * (BUCKETS - 1) as f64).round().clamp(0.0, (BUCKETS - 1) as f64) as usize;
        buckets[i].add(v);
    }
    let peak = points.iter().map(|p| p.1).fold(0.0f64, f64::max);
    let top = if peak > 0.0 { nice_ceiling(peak * 1.05) } else { 1.0 };
    let plot_w = CHART_WIDTH - MARGIN_LEFT - 8.0;
    let plot_h = CHART_HEIGHT - MARGIN_TOP - MARGIN_BOTTOM;
    let x = |i: usize| MARGIN_LEFT + i as f64 / (BUCKETS - 1) as f64 * plot_w;
    let y = |v: f64| MARGIN_TOP + plot_h - (v / top).clamp(0.0, 1.0) * plot_h;
    let filled: Vec<(usize, &Bucket)> = buckets.iter().enumerate().filter(|(_, b)| b.count > 0).collect();
    let line: Vec<String> = filled.iter().map(|(i, b)| format!("{:.1},{:.1}", x(*i), y(b.mean()))).collect();
    let band: Vec<String> = filled
        .iter()
        .map(|(i, b)| format!("{:.1},{:.1}", x(*i), y(b.max)))
        .chain(filled.iter().rev().map(|(i, b)| format!("{:.1},{:.1}", x(*i), y(b.min))))
        .collect();
    let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
    let mut svg = format!(
        "<svg class=\"chart chart-{class}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {CHART_WIDTH} {CHART_HEIGHT}\" \
         data-samples=\"{}\" role=\"img\"><title>{title}: mean {mean:.1} {unit}, peak {peak:.1} {unit}, {} samples over {:.2} s</title>\n",
        points.len(),
        points.len(),
        t1 - t0
    );
    let _ = writeln!(svg, "<text x=\"{MARGIN_LEFT}\" y=\"14\" class=\"chart-title\">{title} ({unit})</text>");
    for k in 0..=4 {
        let v = top * f64::from(k) / 4.0;
        let (right, label_x, line_y, text_y) = (MARGIN_LEFT + plot_w, MARGIN_LEFT - 4.0, y(v), y(v) + 4.0);
        let _ = writeln!(
            svg,
            "<line class=\"grid\" x1=\"{MARGIN_LEFT}\" x2=\"{right:.1}\" y1=\"{line_y:.1}\" y2=\"{line_y:.1}\"/>\
             <text class=\"tick\" x=\"{label_x:.1}\" y=\"{text_y:.1}\" text-anchor=\"end\">{}</text>",
            short(v)
        );
    }
    for k in 0..=4 {
        let t = (t1 - t0) * f64::from(k) / 4.0;
        // The last label ends at the plot's edge rather than running past the chart.
        let anchor = if k == 4 { "end" } else { "middle" };
        let _ = writeln!(
            svg,
            "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\">{:.2} s</text>",
            MARGIN_LEFT + plot_w * f64::from(k) / 4.0,
            CHART_HEIGHT - 6.0,
            t0 + t
        );
    }
    let _ = write!(
        svg,
        "<polygon class=\"band\" points=\"{}\"/>\n<polyline class=\"line\" points=\"{}\"/>\n</svg>\n",
        band.join(" "),
        line.join(" ")
    );
    svg
}

/// 1, 2 or 5 times a power of ten, at or above `v`.
fn nice_ceiling(v: f64) -> f64 {
    let power = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0].into_iter().map(|m| m * power).find(|&c| c >= v).unwrap_or(10.0 * power)
}

fn short(v: f64) -> String {
    if v >= 100.0 || v == 0.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_keeps_a_bounded_number_of_points() {
        let points: Vec<(f64, f64)> = (0..100_000).map(|i| (i as f64 * 0.001, (i % 7) as f64)).collect();
        let svg = line_chart("power", "Power", "W", &points);
        let line = svg.split("<polyline class=\"line\" points=\"").nth(1).unwrap().split('"').next().unwrap();
        assert_eq!(line.split(' ').count(), BUCKETS);
        assert!(svg.contains("data-samples=\"100000\""));
    }

    #[test]
    fn ceilings_are_round() {
        assert_eq!(nice_ceiling(0.7), 1.0);
        assert_eq!(nice_ceiling(699.4 * 1.05), 1000.0);
        assert_eq!(nice_ceiling(1365.0), 2000.0);
        assert_eq!(nice_ceiling(210.0), 250.0);
    }
}
