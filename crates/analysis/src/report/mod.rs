//! `rocprof-rs report`: one self-contained HTML page of a dataset, for people who look at a
//! profile before they read it.
//!
//! [`build`] gathers each section from the analyses the other commands run (`stats`, `analyze`,
//! `ranks`, the device section, `diff`), so the page's numbers are theirs; [`html::render`]
//! writes the page. Large datasets are reduced here ([`timeline`]): the page carries bins and
//! summaries, never rows, so its size does not grow with the number of dispatches.
//!
//! A section without data is still on the page, saying why it is empty.

pub mod coverage;
pub mod html;
pub mod summary;
pub mod timeline;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use regex::Regex;

use crate::analyze::{self, Analysis};
use crate::error::{Error, Result};
use crate::stats::{self, Row, Section};
use crate::telemetry::report::DeviceReport;
use crate::telemetry::series::{DeviceKey, Series};

/// What the page shows, and of what.
#[derive(Debug, Clone)]
pub struct Options {
    /// A second run to compare with: the page's diff section shows what changed since it.
    pub baseline: Option<PathBuf>,
    /// The GPU to hold kernels against where the trace does not name it (imports).
    pub gpu: Option<String>,
    /// Kernels listed in the tables.
    pub top: usize,
    /// The timeline's bins.
    pub bins: usize,
    /// The markers that are a distributed job's steps, for the cross-rank view.
    pub step_marker: Option<Regex>,
    /// Whether the roofs `doctor --measure-roofs` keeps in the user's cache may be read (the
    /// MCP server reads nothing outside its folders: the dataset's roofs and the datasheet's).
    pub kept_roofs: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            baseline: None,
            gpu: None,
            top: 50,
            bins: timeline::DEFAULT_BINS,
            step_marker: None,
            kept_roofs: true,
        }
    }
}

/// Instructions listed per kernel in the hotspots section.
const HOTSPOT_INSTRUCTIONS: usize = 10;

/// A section's content, or why it has none.
#[derive(Debug, Clone)]
pub enum Part<T> {
    Shown(T),
    Empty(String),
}

impl<T> Part<T> {
    fn from_result(result: Result<Option<T>>, none: &str, failed: &str) -> Part<T> {
        match result {
            Ok(Some(value)) => Part::Shown(value),
            Ok(None) => Part::Empty(none.to_owned()),
            Err(e) => Part::Empty(format!("{failed}: {e}")),
        }
    }

    /// The content made into something else; an empty part stays empty, for the same reason.
    pub fn map<U>(&self, f: impl FnOnce(&T) -> U) -> Part<U> {
        match self {
            Part::Shown(value) => Part::Shown(f(value)),
            Part::Empty(why) => Part::Empty(why.clone()),
        }
    }

    pub fn shown(&self) -> Option<&T> {
        match self {
            Part::Shown(value) => Some(value),
            Part::Empty(_) => None,
        }
    }
}

/// The top kernels, as `stats` lists them.
#[derive(Debug, Clone)]
pub struct Kernels {
    pub rows: Vec<Row>,
    /// Distinct kernel names, and their dispatches.
    pub names: usize,
    pub dispatches: u64,
    pub total_ns: u128,
    pub notes: Vec<String>,
}

/// One GPU's roofline chart.
#[derive(Debug, Clone)]
pub struct Roofline {
    pub gpu: String,
    pub name: String,
    pub svg: String,
    /// Kernels drawn as points.
    pub points: usize,
}

/// The device section: the figures `stats` prints, and the samples to draw.
#[derive(Debug, Clone)]
pub struct Device {
    pub report: DeviceReport,
    pub series: BTreeMap<DeviceKey, Series>,
}

/// The comparison with a baseline run.
#[derive(Debug)]
pub struct Diff {
    pub baseline: String,
    pub report: analyze::diff::Report,
}

/// Everything on the page.
#[derive(Debug)]
pub struct Report {
    pub dataset: String,
    pub title: String,
    /// The run came from the simulator (its SDK or its application), not a GPU.
    pub simulated: bool,
    /// Rows per table of kernels.
    pub top: usize,
    pub summary: summary::Summary,
    pub warnings: Vec<String>,
    pub kernels: Part<Kernels>,
    pub timeline: Part<timeline::Timeline>,
    pub roofline: Part<Vec<Roofline>>,
    pub bottlenecks: Part<Analysis>,
    /// The sampled kernels' hottest instructions.
    pub hotspots: Part<Vec<crate::hotspots::KernelHotspots>>,
    pub coverage: Part<coverage::Coverage>,
    pub device: Part<Device>,
    pub ranks: Part<crate::ranks::Report>,
    pub diff: Part<Diff>,
}

/// Gathers the page of the dataset under `dir`.
pub fn build(dir: &Path, options: &Options) -> Result<Report> {
    rocprof_rs_format::dataset::require_tables(dir)?;
    let mut summary = summary::read(dir)?;
    let warnings = stats::health::warnings(dir)?;

    let mut busy = summary::BusyTimes::default();
    let mut hosts = timeline::Hosts::default();
    let pass = timeline::compute(dir, options.bins, &mut hosts, |dispatch| busy.add(dispatch));
    // The busy times come from the same pass: where it failed, they are unknown, not zero.
    if pass.is_ok() {
        busy.finish(&mut summary, &hosts)?;
    }
    let timeline = Part::from_result(
        pass.map(|t| t.map(|t| t.label(|key, several| lane_label(key, several, &summary, &hosts)))),
        "no timed records: nothing ran, or the import had no timestamps",
        "cannot draw the timeline",
    );
    if summary.wall_ns.is_none() {
        summary.wall_ns = timeline.shown().map(|t| t.end_ns.saturating_sub(t.start_ns));
    }

    // The counters first: the long-form table's coverage needs the calls of its kernels, and
    // only theirs are kept from the kernels' pass.
    let counted = coverage::read(dir);
    let all = stats::compute(dir, &[Section::Kernel], &stats::Options::default())?;
    let mut calls: HashMap<String, u64> = HashMap::new();
    let wanted = |name: &str| counted.as_ref().ok().and_then(Option::as_ref).is_some_and(|c| c.kernels_wanted(name));
    let kernels = match all.into_iter().next() {
        Some(section) => Part::Shown(kernels(section, options.top, &mut calls, wanted)?),
        None => Part::Empty("no kernel dispatches (trace with --kernel-trace)".to_owned()),
    };
    let names = kernels.shown().map_or(0, |k| k.names);
    crate::release_freed_memory();

    // The tables list the first `top` kernels and the charts draw the longest CHART_KERNELS:
    // only those are kept in memory, however many kernels the dataset has.
    let keep = options.top.max(1).max(analyze::svg::CHART_KERNELS);
    // The roofs `analyze` would use by default (the dataset's, else a kept measurement of its
    // GPU), so the page and `analyze` agree; a kept file that cannot be read is passed over.
    let roofs = if options.kept_roofs {
        analyze::kept::choice(None).map(|(choice, _)| choice).unwrap_or_default()
    } else {
        analyze::kept::RoofChoice::Carried
    };
    let analysis =
        analyze::analyze_streamed(dir, &analyze::Options { gpu: options.gpu.clone(), roofs, ..Default::default() })
            .and_then(|a| a.into_analysis(keep));
    crate::release_freed_memory();
    // A GPU asked for by name that the analysis cannot take is the user's error, as in `analyze`.
    if let (Some(_), Err(e)) = (&options.gpu, &analysis) {
        return Err(Error::Invalid(format!("--gpu: {e}")));
    }
    let (roofline, bottlenecks) = match analysis {
        Ok(a) if a.kernels.is_empty() => {
            (Part::Empty("no kernels to analyse".into()), Part::Empty("no kernels to analyse".into()))
        }
        Ok(a) => (rooflines(&a), Part::Shown(a)),
        Err(e) => (Part::Empty(format!("no analysis: {e}")), Part::Empty(format!("no analysis: {e}"))),
    };

    let hotspots = Part::from_result(
        crate::hotspots::read_pc_samples(dir).map(|rows| {
            let mut kernels = crate::hotspots::hotspots(&rows, HOTSPOT_INSTRUCTIONS);
            kernels.truncate(options.top.max(1));
            Some(kernels).filter(|k| !k.is_empty())
        }),
        "no PC samples (run with --pc-sampling-beta-enabled)",
        "cannot read the PC samples",
    );
    let coverage = Part::from_result(
        counted.map(|c| c.map(|c| c.finish(&calls, names))),
        "no hardware counters collected (run with --pmc or --preset roofline)",
        "cannot read the counters",
    );
    let device = match crate::telemetry::report::report(dir, None) {
        Ok(Some(report)) => match crate::telemetry::series::read(dir) {
            Ok(series) => Part::Shown(Device { report, series }),
            Err(e) => Part::Empty(format!("cannot read the device samples: {e}")),
        },
        Ok(None) => Part::Empty("no device samples (record them with `rocprof-rs run --device-sample`)".into()),
        Err(e) => Part::Empty(format!("cannot read the device samples: {e}")),
    };
    let ranks = ranks(dir, options, &summary);
    let diff = match &options.baseline {
        None => Part::Empty("no baseline: `rocprof-rs report DIR --baseline OTHER` compares with another run".into()),
        Some(baseline) => Part::Shown(diff(dir, baseline)?),
    };
    Ok(Report {
        dataset: dir.display().to_string(),
        title: title(dir, &summary),
        simulated: simulated(&summary),
        top: options.top.max(1),
        summary,
        warnings,
        kernels,
        timeline,
        roofline,
        bottlenecks,
        hotspots,
        coverage,
        device,
        ranks,
        diff,
    })
}

/// The top `top` kernels and the section's totals, in one pass over its rows (which may be
/// on disk, for millions of names); the calls of the names `wanted` go into `calls`, for the
/// coverage.
fn kernels(
    section: stats::SectionStats,
    top: usize,
    calls: &mut HashMap<String, u64>,
    wanted: impl Fn(&str) -> bool,
) -> Result<Kernels> {
    let mut kernels = Kernels { rows: Vec::new(), names: 0, dispatches: 0, total_ns: 0, notes: section.notes };
    section.rows.for_each(|row| {
        kernels.names += 1;
        kernels.dispatches = kernels.dispatches.saturating_add(row.calls);
        kernels.total_ns = kernels.total_ns.saturating_add(row.total_ns);
        if wanted(&row.name) {
            calls.insert(row.name.clone(), row.calls);
        }
        if kernels.rows.len() < top.max(1) {
            kernels.rows.push(row);
        }
        Ok::<(), Error>(())
    })?;
    Ok(kernels)
}

fn rooflines(analysis: &Analysis) -> Part<Vec<Roofline>> {
    let charts: Vec<Roofline> = analysis
        .devices
        .iter()
        .filter_map(|device| {
            let svg = analyze::svg::roofline(analysis, device)?;
            let points = analysis
                .kernels
                .iter()
                .filter(|k| k.gpu.as_deref() == Some(device.gpu.as_str()) && !k.points.is_empty())
                .count();
            Some(Roofline { gpu: device.gpu.clone(), name: device.name.clone(), svg, points })
        })
        .collect();
    if charts.is_empty() {
        let why = if analysis.devices.is_empty() {
            "no GPU of the GPU database: name one with --gpu ID"
        } else {
            "no kernel has FLOP and byte counters: collect them with --preset roofline"
        };
        return Part::Empty(why.to_owned());
    }
    Part::Shown(charts)
}

fn ranks(dir: &Path, options: &Options, summary: &summary::Summary) -> Part<crate::ranks::Report> {
    // A rank is a process: one process has nothing to compare, and `ranks` would read every
    // kernel again to say so.
    if summary.processes.len() == 1 {
        return Part::Empty(ONE_RANK.into());
    }
    let ranks_options = crate::ranks::Options { step_marker: options.step_marker.clone(), top: Some(20), threads: 0 };
    match crate::ranks::compute(dir, &ranks_options) {
        Ok(report) if report.ranks.len() > 1 => Part::Shown(report),
        Ok(_) => {
            Part::Empty("one process and no ranks: a distributed run (several ranks) has a cross-rank view".into())
        }
        Err(e) => Part::Empty(format!("no ranks to compare: {e}")),
    }
}

fn diff(dir: &Path, baseline: &Path) -> Result<Diff> {
    let read = |d: &Path| analyze::diff::read_run(d, None).map_err(|e| Error::Invalid(format!("--baseline: {e}")));
    let (before, after) = (read(baseline)?, read(dir)?);
    let report = analyze::diff::compare(&before, &after, analyze::diff::Options::default())?;
    Ok(Diff { baseline: baseline.display().to_string(), report })
}

const ONE_RANK: &str = "one process and no ranks: a distributed run (several ranks) has a cross-rank view";

/// Lane labels are cut here: a GPU's product name is the dataset's, and may be of any length.
const LABEL_CHARS: usize = 60;

/// The lane's name: where its records ran, as the summary names GPUs; the process first where
/// the lanes come from several.
fn lane_label(key: &timeline::LaneKey, several: bool, summary: &summary::Summary, hosts: &timeline::Hosts) -> String {
    use timeline::{LaneKind, Place};
    let host = hosts.name(key.host);
    let process = match (several, host) {
        (false, _) => String::new(),
        (true, Some(host)) if summary.several_hosts() => format!("{host}:{} · ", key.pid),
        (true, _) => format!("pid {} · ", key.pid),
    };
    let label = match key.kind {
        LaneKind::Kernel => {
            let gpu = summary
                .gpus
                .iter()
                .find(|g| g.host.as_deref() == host && g.pid == key.pid && g.agent_id == key.agent)
                .map_or_else(
                    || format!("agent {}", key.agent),
                    |g| if g.index >= 0 { format!("GPU {}", g.index) } else { g.name.clone() },
                );
            match key.place {
                Place::Stream(s) => format!("{process}{gpu} stream {s}"),
                Place::Queue(q) => format!("{process}{gpu} queue {q:#x}"),
                Place::None | Place::Other => format!("{process}{gpu}"),
            }
        }
        LaneKind::Copy => format!("{process}copies"),
        LaneKind::Api => {
            let table = timeline::API_TABLES.get(key.agent as usize).map_or("API", |t| t.name());
            format!("{process}{table} calls")
        }
        LaneKind::Marker => format!("{process}markers"),
    };
    crate::names::ellipsised(&label, LABEL_CHARS).into_owned()
}

fn title(dir: &Path, summary: &summary::Summary) -> String {
    let command = summary.processes.iter().map(|p| p.command_line.as_str()).find(|c| !c.is_empty());
    let name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    let Some(command) = command else { return name };
    // The program, and for an interpreter (python3 train.py) its script too.
    let words: Vec<&str> = command.split_whitespace().collect();
    let base = |word: &str| word.rsplit('/').next().unwrap_or(word).to_owned();
    let program = match words.as_slice() {
        [interpreter, script, ..] if base(interpreter).starts_with("python") && !script.starts_with('-') => {
            format!("{} {}", base(interpreter), base(script))
        }
        [program, ..] => base(program),
        [] => return name,
    };
    crate::names::ellipsised(&format!("{name}: {program}"), 200).into_owned()
}

/// Whether the run is the simulator's: its backend or its application says so.
fn simulated(summary: &summary::Summary) -> bool {
    summary.processes.iter().any(|p| p.backend.contains("sim") || p.command_line.contains("rocprof-sim"))
}
