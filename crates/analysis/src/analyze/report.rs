//! `analyze`: each kernel's roofline position, bottleneck class and recommendations, from our
//! dataset or from a kernel-optimisation results JSON.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::bottleneck::{self, Diagnosis, Idle, Inputs, Kernel};
use super::dataset::{AgentRow, Dataset};
use super::occupancy::{self, Occupancy, Resources, Target};
use super::roofline::{self, Family, Point, Work, ZeroFlops};
use super::specs::{Database, Device, Gpu, Level, Pipe, Precision};
use super::timings::{self, Join};
use crate::error::{Error, Result};

/// What to analyse, and against what.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only this process.
    pub pid: Option<u32>,
    /// Only kernels whose name matches.
    pub kernel: Option<regex::Regex>,
    /// The database's part to use for every GPU (its id, e.g. `mi300x`), where the trace does
    /// not say or says wrong.
    pub gpu: Option<String>,
    /// The precision and pipe of estimated FLOPs (a results JSON's `flops_estimated`).
    pub estimated: Option<(Precision, Pipe)>,
    /// Another run of the same program whose dispatch times stand in for this one's, matched
    /// by kernel name ([`timings`]): rocprof v1 and rocprof-compute collect counters and
    /// timestamps in separate runs.
    pub timings: Option<std::path::PathBuf>,
}

/// One kernel's analysis.
#[derive(Debug, Clone, Serialize)]
pub struct KernelAnalysis {
    pub name: String,
    pub pid: u32,
    pub agent_id: u64,
    /// The database's part it ran on, where known.
    pub gpu: Option<String>,
    pub calls: u64,
    pub total_ns: f64,
    pub mean_ns: f64,
    /// Where its rows have no timestamps and its time was estimated from its busy cycles: how.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_source: Option<String>,
    /// Its share of all analysed kernels' time.
    pub share: f64,
    pub occupancy: Option<Occupancy>,
    /// One average dispatch's work, where counters (or estimates) give it.
    pub work: Option<Work>,
    /// Achieved bandwidth per level, GB/s, and its share of the level's peak where known.
    pub bandwidth: Vec<Bandwidth>,
    pub points: Vec<Point>,
    /// Where its FLOP counters were all collected and all zero, and it has no point: the memory
    /// level that bounds it.
    pub zero_flops: Option<ZeroFlops>,
    pub diagnosis: Diagnosis,
}

/// One level's achieved bandwidth.
#[derive(Debug, Clone, Serialize)]
pub struct Bandwidth {
    pub level: Level,
    pub gbps: f64,
    /// Of the device's peak for the level.
    pub share: Option<f64>,
}

fn bandwidths(work: Option<&Work>, mean_ns: f64, device: Option<&Device<'_>>) -> Vec<Bandwidth> {
    let Some(w) = work.filter(|_| mean_ns > 0.0) else { return Vec::new() };
    w.bytes
        .iter()
        .map(|(&level, &bytes)| {
            let gbps = bytes / mean_ns;
            let share = device.and_then(|d| d.bandwidth(level)).map(|tbps| gbps / (tbps * 1e3));
            Bandwidth { level, gbps, share }
        })
        .collect()
}

fn busiest(bandwidth: &[Bandwidth]) -> Option<(Level, f64)> {
    bandwidth.iter().filter_map(|b| Some((b.level, b.share?))).max_by(|a, b| a.1.total_cmp(&b.1))
}

/// A device's ceilings, for the chart and the report.
#[derive(Debug, Clone, Serialize)]
pub struct Ceilings {
    pub gpu: String,
    pub name: String,
    /// TFLOP/s (TOP/s) per precision and pipe, as counters can reach them.
    pub peaks: Vec<(Precision, Pipe, f64)>,
    /// TB/s per level.
    pub bandwidths: Vec<(Level, f64)>,
}

/// The whole analysis.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    pub kernels: Vec<KernelAnalysis>,
    pub devices: Vec<Ceilings>,
    pub notes: Vec<String>,
    /// How `--timings` matched its kernels, where it was given.
    pub timings: Option<Join>,
    /// The kernels during which their GPU's clock fell, from the device samples.
    pub throttled: Vec<crate::telemetry::throttle::ThrottledKernel>,
}

fn ceilings(device: &Device<'_>) -> Ceilings {
    let mut peaks = Vec::new();
    for precision in Precision::ALL {
        for pipe in [Pipe::Vector, Pipe::Matrix] {
            if let Some(p) = roofline::counted_peak(device, precision, pipe) {
                peaks.push((precision, pipe, p));
            }
        }
    }
    let bandwidths = Level::ALL.iter().filter_map(|&l| device.bandwidth(l).map(|b| (l, b))).collect();
    Ceilings { gpu: device.gpu.id.clone(), name: device.gpu.name.clone(), peaks, bandwidths }
}

/// Analyses the dataset in `dir`, or a kernel-optimisation results JSON if `dir` is such a file.
pub fn analyze(path: &Path, options: &Options) -> Result<Analysis> {
    let db = Database::builtin()?;
    let forced = match &options.gpu {
        Some(id) => Some(db.get(id).ok_or_else(|| {
            let known: Vec<&str> = db.gpus.iter().map(|g| g.id.as_str()).collect();
            Error::Invalid(format!("--gpu {id}: not in the database ({})", known.join(", ")))
        })?),
        None => None,
    };
    let mut analysis = if path.is_file() {
        results_json(path, forced.or_else(|| db.get("mi300x")), options)?
    } else {
        dataset(path, db, forced, options)?
    };
    let total: f64 = analysis.kernels.iter().map(|k| k.total_ns).sum();
    for k in &mut analysis.kernels {
        k.share = if total > 0.0 { k.total_ns / total } else { 0.0 };
    }
    analysis.kernels.sort_by(|a, b| b.total_ns.total_cmp(&a.total_ns).then(a.name.cmp(&b.name)));
    Ok(analysis)
}

fn dataset(dir: &Path, db: &'static Database, forced: Option<&'static Gpu>, options: &Options) -> Result<Analysis> {
    if !dir.is_dir() {
        return Err(Error::Invalid(format!("{}: neither a dataset directory nor a results JSON file", dir.display())));
    }
    rocprof_rs_format::dataset::require_tables(dir)?;
    let mut data = Dataset::read(dir, options.pid)?;
    let mut notes = Vec::new();
    let joined = match &options.timings {
        Some(from) => {
            let j = timings::join(&mut data, &Dataset::read(from, None)?, from);
            notes.extend(j.notes());
            Some(j)
        }
        None => None,
    };
    notes.extend(non_finite_counters(&data));
    let mut devices: BTreeMap<String, Ceilings> = BTreeMap::new();
    let mut kernels = Vec::new();
    for ((pid, agent_id, name), rows) in &data.kernels {
        if options.kernel.as_ref().is_some_and(|re| !re.is_match(name)) {
            continue;
        }
        let agent = data.agents.get(&(*pid, *agent_id)).cloned().unwrap_or_default();
        let gpu = forced.or_else(|| db.find(&agent.agent));
        if gpu.is_none() {
            let note = format!(
                "agent {agent_id} ({}) is not in the GPU database: no ceilings; name one with --gpu",
                if agent.agent.target.is_empty() { "unnamed" } else { &agent.agent.target }
            );
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        let device = gpu.map(|g| Device::new(g, &agent.agent));
        if let Some(d) = &device {
            devices.entry(d.gpu.id.clone()).or_insert_with(|| ceilings(d));
        }
        let occupancy = occupancy_of(&agent, forced, rows);
        let family = Family::of(gpu.and_then(|g| g.gfx_target.as_deref()).unwrap_or(&agent.agent.target));
        let work = (!rows.counters.is_empty())
            .then(|| roofline::work(family, f64::from(agent.wave_size.max(1)), &rows.counters));
        // Rows without timestamps take their time from their busy cycles where they can.
        let busy = (rows.durations.mean() <= 0.0)
            .then(|| super::busy_time::estimate(&rows.counters, &agent, device.as_ref()))
            .flatten();
        let mean_ns = busy.as_ref().map_or(rows.durations.mean(), |b| b.mean_ns);
        // Without a time there is no rate: no point on the chart, rather than one at 0 TFLOP/s
        // that would read as a kernel waiting on latency.
        let (points, zero_flops) = match (&work, &device) {
            (Some(w), Some(d)) if mean_ns > 0.0 => {
                (roofline::position(w, mean_ns / 1e9, d), roofline::zero_flops(w, mean_ns / 1e9, d))
            }
            _ => (Vec::new(), None),
        };
        let get = |names: &[&str]| roofline::any(&rows.counters, names);
        let l2_hit = match (get(&["TCC_HIT_sum", "GL2C_HIT_sum"]), get(&["TCC_MISS_sum", "GL2C_MISS_sum"])) {
            (Some(h), Some(m)) if h + m > 0.0 => Some(h / (h + m)),
            _ => None,
        };
        let bandwidth = bandwidths(work.as_ref(), mean_ns, device.as_ref());
        // Its times, idle included, came from the run --timings named.
        let timed_elsewhere = joined.as_ref().is_some_and(|j| !j.unmatched.contains(name));
        let kernel = Kernel {
            busiest: busiest(&bandwidth),
            name: name.clone(),
            calls: rows.durations.count,
            mean_ns,
            idle: idle(rows, !rows.counters.is_empty() && !timed_elsewhere),
            occupancy: occupancy.clone(),
            points: points.clone(),
            lds_conflicts: roofline::lds_conflicts(family, &rows.counters),
            l2_hit,
            zero_flops: zero_flops.clone(),
            inputs: Inputs {
                counters: rows.counters.values().filter(|v| v.is_finite()).count(),
                measured: work.as_ref().is_some_and(|w| !w.ops.is_empty() || !w.bytes.is_empty()),
                missing: work.as_ref().map_or_else(Vec::new, |w| w.missing.clone()),
                agent: agent_text(*agent_id, &agent),
                estimates: false,
                timings_unmatched: joined.as_ref().is_some_and(|j| j.unmatched.contains(name)),
            },
        };
        let mut diagnosis = bottleneck::diagnose(&kernel, device.as_ref());
        if let Some(b) = &busy {
            diagnosis.evidence.push(b.how.clone());
        }
        let total_ns = if busy.is_some() { mean_ns * rows.durations.count as f64 } else { rows.durations.sum as f64 };
        kernels.push(KernelAnalysis {
            name: name.clone(),
            pid: *pid,
            agent_id: *agent_id,
            gpu: gpu.map(|g| g.id.clone()),
            calls: rows.durations.count,
            total_ns,
            mean_ns,
            time_source: busy.map(|b| b.how),
            share: 0.0,
            occupancy,
            work,
            bandwidth,
            points,
            zero_flops,
            diagnosis,
        });
    }
    if kernels.iter().all(|k| k.work.is_none()) && !kernels.is_empty() {
        notes.push("no counters in this dataset: run with --preset roofline for roofline positions".into());
    }
    // The device samples are optional: a dataset whose samples cannot be read is analysed without.
    let throttled = throttled(dir, options).unwrap_or_else(|e| {
        notes.push(format!("no throttling from the device samples: {e}"));
        Vec::new()
    });
    if let Some(worst) = throttled.first() {
        notes.push(format!(
            "clocks fell during {} kernels (the device samples' SM clock below {:.0}% of its peak under load); \
             the worst, {}: {} of {} sampled dispatches, down to {} MHz from {}{}",
            throttled.len(),
            100.0 * crate::telemetry::throttle::FALL,
            worst.kernel_name,
            worst.throttled,
            worst.sampled,
            worst.lowest_mhz,
            worst.peak_mhz,
            if worst.reasons.is_empty() { String::new() } else { format!(" ({})", worst.reasons.join(", ")) }
        ));
    }
    Ok(Analysis { kernels, devices: devices.into_values().collect(), notes, timings: joined, throttled })
}

/// A note on the counter values that are not finite numbers (a dataset someone else wrote:
/// our imports refuse them), which the analysis leaves out as if not collected.
fn non_finite_counters(data: &Dataset) -> Option<String> {
    let mut found = data
        .kernels
        .iter()
        .flat_map(|((_, _, kernel), rows)| rows.counters.iter().map(move |(c, v)| (kernel, c, v)))
        .filter(|(_, _, v)| !v.is_finite());
    let (kernel, counter, value) = found.next()?;
    let more = found.count();
    Some(format!(
        "{} counter value{}, such as {counter} of {kernel} ({value}): left out, as if not collected",
        more + 1,
        if more == 0 { " is not a finite number" } else { "s are not finite numbers" },
    ))
}

/// The kernels whose clocks fell, where the dataset has device samples (of `--pid`'s process,
/// and `--kernel`'s names, where given).
fn throttled(dir: &Path, options: &Options) -> Result<Vec<crate::telemetry::throttle::ThrottledKernel>> {
    let mut series = crate::telemetry::series::read(dir)?;
    series.retain(|key, _| options.pid.is_none_or(|p| p == key.pid));
    if series.is_empty() {
        return Ok(Vec::new());
    }
    let dispatches = crate::telemetry::attribute::dispatches(dir, &series)?;
    let mut kernels = crate::telemetry::throttle::kernels(&series, &dispatches);
    kernels.retain(|k| options.kernel.as_ref().is_none_or(|re| re.is_match(&k.kernel_name)));
    Ok(kernels)
}

/// How long a kernel's GPU sat idle before its dispatches, where the trace measures it;
/// `counted`: in a run that collected its counters.
fn idle(rows: &super::dataset::KernelRows, counted: bool) -> Idle {
    if rows.idle.count > 0 {
        Idle::Measured { median_ns: rows.idle.quantile(0.5) as f64, gaps: rows.idle.count, counted }
    } else if rows.durations.mean() <= 0.0 {
        Idle::Unmeasured("its rows have no timestamps")
    } else if rows.durations.count <= 1 {
        Idle::Unmeasured("its one dispatch is the first on its queue")
    } else {
        Idle::Unmeasured("none of its dispatches follows another on its queue")
    }
}

/// An agent as the trace names it: `agent 2 (gfx942, AMD Instinct MI300X)`.
fn agent_text(agent_id: u64, agent: &AgentRow) -> String {
    let names: Vec<&str> = [agent.agent.target.as_str(), agent.agent.product_name.as_str()]
        .into_iter()
        .filter(|n| !n.is_empty())
        .collect();
    if names.is_empty() {
        format!("agent {agent_id}, which the trace does not name")
    } else {
        format!("agent {agent_id} ({})", names.join(", "))
    }
}

fn occupancy_of(agent: &AgentRow, forced: Option<&Gpu>, rows: &super::dataset::KernelRows) -> Option<Occupancy> {
    let target = forced.and_then(|g| g.gfx_target.as_deref()).unwrap_or(&agent.agent.target);
    let target = Target::of(target, agent.wave_size)?;
    if rows.workgroup == 0 {
        return None;
    }
    let resources = Resources {
        workgroup: rows.workgroup,
        arch_vgprs: rows.arch_vgprs,
        accum_vgprs: rows.accum_vgprs,
        sgprs: rows.sgprs,
        lds_bytes: rows.lds_bytes,
    };
    Some(occupancy::occupancy(&target, &resources))
}

/// A kernel-optimisation results JSON: timings per component, with the user's byte and FLOP estimates.
#[derive(Debug, Deserialize)]
struct ResultsJson {
    #[serde(default)]
    components: BTreeMap<String, ResultsComponent>,
    #[serde(default)]
    full_pipeline: Option<ResultsTiming>,
}

#[derive(Debug, Deserialize)]
struct ResultsComponent {
    mean_us: f64,
    #[serde(default)]
    bytes_transferred: Option<f64>,
    #[serde(default)]
    flops_estimated: Option<f64>,
}

#[derive(Debug, Deserialize)]
struct ResultsTiming {
    mean_us: f64,
}

fn results_json(path: &Path, gpu: Option<&'static Gpu>, options: &Options) -> Result<Analysis> {
    let shown = path.display().to_string();
    let text = rocprof_rs_format::input::read_text(path, rocprof_rs_format::input::JSON_LIMIT)
        .map_err(|source| Error::Io { path: shown.clone(), source })?;
    let mut json = serde_json::Deserializer::from_str(&text);
    let results: ResultsJson = serde_path_to_error::deserialize(&mut json).map_err(|e| Error::Json {
        path: shown.clone(),
        at: e.path().to_string(),
        message: e.into_inner().to_string(),
    })?;
    let device = gpu.map(Device::datasheet);
    let (precision, pipe) = options.estimated.unwrap_or((Precision::Fp16, Pipe::Matrix));
    let mut notes = vec![format!(
        "kernel-optimisation results: FLOP estimates taken as {} on the {} units{}",
        precision.name(),
        pipe.name(),
        device.as_ref().map_or(String::new(), |d| format!(", against {}", d.gpu.name))
    )];
    // What the pipeline takes beyond its components is time between them: launches and gaps.
    // It is measured for the whole pipeline, not before each component, so no component is
    // judged launch-bound by it.
    let components_us: f64 = results.components.values().map(|c| c.mean_us).sum();
    if let Some(p) = results.full_pipeline.as_ref().filter(|p| p.mean_us > components_us) {
        let gap = p.mean_us - components_us;
        notes.push(format!(
            "the full pipeline takes {gap:.1} µs ({:.0}% of its {:.1} µs) beyond its {} components: time between them \
             (launches, the host), which fusing them or a graph saves at best; the file does not say before which \
             component",
            100.0 * gap / p.mean_us,
            p.mean_us,
            results.components.len()
        ));
    }
    let mut kernels = Vec::new();
    for (name, c) in &results.components {
        if options.kernel.as_ref().is_some_and(|re| !re.is_match(name)) {
            continue;
        }
        if !(c.mean_us.is_finite() && c.mean_us >= 0.0) {
            return Err(Error::Json {
                path: shown.clone(),
                at: format!("components.{name}.mean_us"),
                message: format!("{} is not a duration", c.mean_us),
            });
        }
        let mut work = Work::default();
        if let Some(f) = c.flops_estimated {
            work.ops.insert((precision, pipe), f);
        }
        if let Some(b) = c.bytes_transferred {
            work.bytes.insert(Level::Dram, b);
        }
        let has_work = !work.ops.is_empty();
        let mean_ns = c.mean_us * 1e3;
        let points = match &device {
            Some(d) if has_work => roofline::position(&work, mean_ns / 1e9, d),
            _ => Vec::new(),
        };
        let bandwidth = bandwidths(Some(&work), mean_ns, device.as_ref());
        let kernel = Kernel {
            name: name.clone(),
            calls: 1,
            mean_ns,
            idle: Idle::Unmeasured("a results JSON times its components, not the gaps before them"),
            points: points.clone(),
            busiest: busiest(&bandwidth),
            inputs: Inputs { estimates: true, ..Inputs::default() },
            ..Kernel::default()
        };
        kernels.push(KernelAnalysis {
            name: name.clone(),
            pid: 0,
            agent_id: 0,
            gpu: device.as_ref().map(|d| d.gpu.id.clone()),
            calls: 1,
            total_ns: mean_ns,
            mean_ns,
            time_source: None,
            share: 0.0,
            occupancy: None,
            work: has_work.then_some(work),
            bandwidth,
            points,
            zero_flops: None,
            diagnosis: bottleneck::diagnose(&kernel, device.as_ref()),
        });
    }
    let devices = device.iter().map(ceilings).collect();
    Ok(Analysis { kernels, devices, notes, timings: None, throttled: Vec::new() })
}
