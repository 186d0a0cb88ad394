//! The roofline chart as SVG: log-log, a ceiling per memory level and per precision, one point
//! per kernel at its DRAM intensity (or the outermost level its counters give).
//!
//! Plain SVG 1.1 with no scripts or external fonts, so browsers, Inkscape and CI artifacts show
//! it as written. Each point carries a `<title>` (the tooltip: name, class, numbers).

use std::fmt::Write as _;

use super::bottleneck::Class;
use super::report::{Analysis, Ceilings};
use super::specs::{Level, Pipe, Precision};

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 640.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 230.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 60.0;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn colour(class: Class) -> &'static str {
    match class {
        Class::Memory => "#1f77b4",
        Class::Compute => "#d62728",
        Class::Latency => "#ff7f0e",
        Class::Lds => "#9467bd",
        Class::Cache => "#2ca02c",
        Class::Occupancy => "#8c564b",
        Class::Issue => "#e377c2",
        Class::Tail => "#bcbd22",
        Class::Launch => "#ff9896",
        Class::Sync => "#17becf",
        Class::Unknown => "#7f7f7f",
    }
}

/// A log-log mapping of data to the plot area.
struct Axes {
    x: (f64, f64),
    y: (f64, f64),
}

impl Axes {
    fn px(&self, x: f64) -> f64 {
        LEFT + (x.log10() - self.x.0) / (self.x.1 - self.x.0) * (WIDTH - LEFT - RIGHT)
    }

    fn py(&self, y: f64) -> f64 {
        HEIGHT - BOTTOM - (y.log10() - self.y.0) / (self.y.1 - self.y.0) * (HEIGHT - TOP - BOTTOM)
    }
}

/// The ceilings drawn: every memory level, and the compute roofs the kernels use plus the
/// device's headline ones (FP64 and FP32 vector, FP16 matrix).
fn compute_roofs(device: &Ceilings, analysis: &Analysis) -> Vec<(Precision, Pipe, f64)> {
    let used: Vec<(Precision, Pipe)> =
        analysis.kernels.iter().flat_map(|k| k.points.iter().map(|p| (p.precision, p.pipe))).collect();
    let headline = [(Precision::Fp64, Pipe::Vector), (Precision::Fp32, Pipe::Vector), (Precision::Fp16, Pipe::Matrix)];
    device.peaks.iter().copied().filter(|&(p, u, _)| used.contains(&(p, u)) || headline.contains(&(p, u))).collect()
}

/// The most kernels a chart is drawn from: callers give it the analysis of the kernels of most
/// time, this many at most, so a chart of a million kernels costs what one of thousands does.
pub const CHART_KERNELS: usize = 2_000;

/// One chart per device with points: (the device's database id, the SVG).
pub fn charts(analysis: &Analysis) -> Vec<(String, String)> {
    analysis.devices.iter().filter_map(|d| Some((d.gpu.clone(), roofline(analysis, d)?))).collect()
}

/// The chart of the kernels of `analysis` that ran on `device` (None when none has a point).
pub fn roofline(analysis: &Analysis, device: &Ceilings) -> Option<String> {
    let points: Vec<(&str, Class, f64, f64, String)> = analysis
        .kernels
        .iter()
        .filter(|k| k.gpu.as_deref() == Some(device.gpu.as_str()))
        .filter_map(|k| {
            let p = k.points.first()?;
            let level = p.levels.iter().find(|l| l.level == Level::Dram).or(p.levels.first())?;
            let tip = format!(
                "{}: {} | {} {} | {:.3} FLOP/B ({}) | {:.3} TFLOP/s",
                k.name,
                k.diagnosis.class.name(),
                p.precision.name(),
                p.pipe.name(),
                level.intensity,
                level.level.name(),
                p.achieved_tflops
            );
            Some((k.name.as_str(), k.diagnosis.class, level.intensity, p.achieved_tflops, tip))
        })
        .collect();
    if points.is_empty() {
        return None;
    }
    let roofs = compute_roofs(device, analysis);
    let top_peak = roofs.iter().map(|r| r.2).fold(0.0f64, f64::max).max(1e-3);
    let lows = points.iter().map(|p| p.3).fold(f64::INFINITY, f64::min);
    let (xs_lo, xs_hi) = points.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), p| (lo.min(p.2), hi.max(p.2)));
    let axes = Axes {
        x: ((xs_lo / 4.0).min(0.01).log10().floor(), (xs_hi * 4.0).max(1e4).log10().ceil()),
        y: ((lows / 4.0).min(top_peak / 1e4).log10().floor(), (top_peak * 3.0).log10().ceil()),
    };
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text class="title" x="{LEFT}" y="28" font-size="16">Roofline: {} ({} kernels)</text>"#,
        escape(&device.name),
        points.len()
    );
    // Decade grid and labels.
    let (plot_left, plot_right, plot_top, plot_bottom) = (LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM);
    let _ = writeln!(svg, r##"<g class="grid" stroke="#e0e0e0">"##);
    for e in axes.x.0 as i32..=axes.x.1 as i32 {
        let x = axes.px(10f64.powi(e));
        let _ = writeln!(svg, r#"<line x1="{x:.1}" y1="{plot_top}" x2="{x:.1}" y2="{plot_bottom}"/>"#);
    }
    for e in axes.y.0 as i32..=axes.y.1 as i32 {
        let y = axes.py(10f64.powi(e));
        let _ = writeln!(svg, r#"<line x1="{plot_left}" y1="{y:.1}" x2="{plot_right}" y2="{y:.1}"/>"#);
    }
    let _ = writeln!(svg, "</g>");
    let _ = writeln!(svg, r#"<g class="axes" fill="black">"#);
    for e in axes.x.0 as i32..=axes.x.1 as i32 {
        let x = axes.px(10f64.powi(e));
        let _ = writeln!(
            svg,
            r#"<text class="tick" x="{x:.1}" y="{:.1}" text-anchor="middle">1e{e}</text>"#,
            plot_bottom + 16.0
        );
    }
    for e in axes.y.0 as i32..=axes.y.1 as i32 {
        let y = axes.py(10f64.powi(e));
        let _ = writeln!(
            svg,
            r#"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">1e{e}</text>"#,
            plot_left - 6.0,
            y + 4.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text class="label" x="{:.1}" y="{:.1}" text-anchor="middle">arithmetic intensity (FLOP/byte)</text>"#,
        (plot_left + plot_right) / 2.0,
        HEIGHT - 18.0
    );
    let _ = writeln!(
        svg,
        r#"<text class="label" transform="translate(20 {:.1}) rotate(-90)" text-anchor="middle">TFLOP/s</text>"#,
        (plot_top + plot_bottom) / 2.0
    );
    let _ = writeln!(
        svg,
        r#"<rect x="{plot_left}" y="{plot_top}" width="{:.1}" height="{:.1}" fill="none" stroke="black"/>"#,
        plot_right - plot_left,
        plot_bottom - plot_top
    );
    let _ = writeln!(svg, "</g>");
    // Memory roofs: up to where they meet the highest compute roof, clipped to the plot.
    let x_lo = 10f64.powf(axes.x.0);
    let y_lo = 10f64.powf(axes.y.0);
    let _ = writeln!(
        svg,
        r#"<clipPath id="plot"><rect x="{plot_left}" y="{plot_top}" width="{:.1}" height="{:.1}"/></clipPath>"#,
        plot_right - plot_left,
        plot_bottom - plot_top
    );
    let _ = writeln!(svg, r#"<g class="memory-roofs" stroke-width="1.5" fill="none" clip-path="url(#plot)">"#);
    // Levels of equal bandwidth (L1 and LDS on CDNA) share one line ("l1/lds").
    let mut levels: Vec<(String, f64)> = Vec::new();
    for &(level, bw) in &device.bandwidths {
        match levels.iter_mut().find(|l| (l.1 - bw).abs() <= 1e-6 * bw) {
            Some(l) => l.0 = format!("{}/{}", l.0, level.name()),
            None => levels.push((level.name().to_owned(), bw)),
        }
    }
    for (i, (level, bw)) in levels.into_iter().enumerate() {
        let ridge = top_peak / bw;
        let (x1, y1) = (axes.px(x_lo), axes.py(bw * x_lo));
        let (x2, y2) = (axes.px(ridge), axes.py(top_peak));
        let shade = ["#444", "#666", "#888", "#aaa", "#ccc"][i.min(4)];
        let _ = writeln!(
            svg,
            r#"<line class="roof memory" data-level="{level}" x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{shade}"><title>{level} {bw:.2} TB/s</title></line>"#
        );
        // Labelled where the roof enters the plot, along its slope.
        let at = x_lo.max(y_lo / bw) * 1.5;
        let (lx, ly) = (axes.px(at), axes.py(bw * at));
        let angle = (y2 - y1).atan2(x2 - x1).to_degrees();
        let _ = writeln!(
            svg,
            r#"<text class="roof-label" x="{lx:.1}" y="{:.1}" transform="rotate({angle:.1} {lx:.1} {ly:.1})" stroke="none" fill="{shade}">{level} {bw:.2} TB/s</text>"#,
            ly - 4.0
        );
    }
    let _ = writeln!(svg, "</g>");
    // Compute roofs: from where the DRAM roof meets them.
    let dram = device.bandwidths.iter().find(|b| b.0 == Level::Dram).or(device.bandwidths.first()).map(|b| b.1);
    let x_hi = 10f64.powf(axes.x.1);
    let _ = writeln!(svg, r#"<g class="compute-roofs" stroke="black" stroke-width="1.5">"#);
    // Roofs of equal height share one line and one label ("fp64/fp32 vector 81.7").
    let mut merged: Vec<(String, Pipe, f64)> = Vec::new();
    for &(precision, pipe, peak) in &roofs {
        match merged.iter_mut().find(|m| m.1 == pipe && (m.2 - peak).abs() <= 1e-6 * peak) {
            Some(m) => m.0 = format!("{}/{}", m.0, precision.name()),
            None => merged.push((precision.name().to_owned(), pipe, peak)),
        }
    }
    for (names, pipe, peak) in merged {
        let from = dram.map_or(x_lo, |bw| peak / bw);
        let (x1, x2, y) = (axes.px(from), axes.px(x_hi), axes.py(peak));
        let label = format!("{names} {} {peak:.1}", pipe.name());
        let _ = writeln!(
            svg,
            r#"<line class="roof compute" x1="{x1:.1}" y1="{y:.1}" x2="{x2:.1}" y2="{y:.1}" stroke-dasharray="{}"><title>{label} TFLOP/s</title></line>"#,
            if pipe == Pipe::Matrix { "none" } else { "6 3" }
        );
        let _ = writeln!(
            svg,
            r#"<text class="roof-label" x="{:.1}" y="{:.1}" stroke="none" fill="black">{label}</text>"#,
            plot_right + 6.0,
            y + 4.0
        );
    }
    let _ = writeln!(svg, "</g>");
    let _ = writeln!(svg, r#"<g class="kernels" stroke="black" stroke-width="0.5">"#);
    for (name, class, x, y, tip) in &points {
        let _ = writeln!(
            svg,
            r#"<circle class="kernel" data-kernel="{}" data-class="{}" cx="{:.1}" cy="{:.1}" r="5" fill="{}"><title>{}</title></circle>"#,
            escape(name),
            class.name(),
            axes.px(*x),
            axes.py(y.max(10f64.powf(axes.y.0))),
            colour(*class),
            escape(tip)
        );
    }
    let _ = writeln!(svg, "</g>");
    // Legend: the classes present.
    let _ = writeln!(svg, r#"<g class="legend">"#);
    let mut classes: Vec<Class> = Vec::new();
    for p in &points {
        if !classes.contains(&p.1) {
            classes.push(p.1);
        }
    }
    for (i, class) in classes.iter().enumerate() {
        let y = HEIGHT - BOTTOM - 16.0 * (classes.len() - i) as f64;
        let _ = writeln!(
            svg,
            r#"<circle cx="{:.1}" cy="{y:.1}" r="5" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            plot_right + 12.0,
            colour(*class),
            plot_right + 22.0,
            y + 4.0,
            class.name()
        );
    }
    let _ = writeln!(svg, "</g>");
    svg.push_str("</svg>\n");
    Some(svg)
}
