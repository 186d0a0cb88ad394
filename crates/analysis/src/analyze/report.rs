//! `analyze`: each kernel's roofline position, bottleneck class and recommendations, from our
//! dataset or from a kernel-optimisation results JSON.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::bottleneck::{self, Diagnosis, Idle, Inputs, Kernel};
use super::dataset::{self, AgentRow, Agents, Dataset, KernelKey, KernelRows};
use super::occupancy::{self, Occupancy, Resources, Target};
use super::roofline::{self, Family, Point, Work, ZeroFlops};
use super::sm_occupancy;
use super::specs::{Database, Device, Gpu, Level, Pipe, Precision};
use super::timings::{self, Join};
use crate::error::{Error, Result};
use crate::spill::{Key, Sorted, Sorter};

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
    /// Another run of the same program whose PC samples stand in for this one's, matched by
    /// kernel name: a run that counts cannot also sample on NVIDIA.
    pub samples: Option<std::path::PathBuf>,
    /// The measured roofs to judge against, beside the datasheet's.
    pub roofs: super::kept::RoofChoice,
}

/// One kernel's analysis.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
    /// The share of its LDS (shared-memory) cycles that were bank-conflict replays, where
    /// counted: what a padding or swizzling recommendation rests on.
    pub lds_conflicts: Option<f64>,
    pub diagnosis: Diagnosis,
}

/// One level's achieved bandwidth.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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

/// A device's ceilings, for the chart and the report.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Ceilings {
    pub gpu: String,
    pub name: String,
    /// TFLOP/s (TOP/s) per precision and pipe, as counters can reach them.
    pub peaks: Vec<(Precision, Pipe, f64)>,
    /// TB/s per level.
    pub bandwidths: Vec<(Level, f64)>,
}

/// The whole analysis.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub kernels: Vec<KernelAnalysis>,
    /// Kernels analysed, `kernels` or not (it may hold the first of them only).
    pub analysed: usize,
    pub devices: Vec<Ceilings>,
    pub notes: Vec<String>,
    /// How `--timings` matched its kernels, where it was given.
    pub timings: Option<Join>,
    /// The kernels during which their GPU's clock fell, from the device samples.
    pub throttled: Vec<crate::telemetry::throttle::ThrottledKernel>,
}

/// How an analysis reads in JSON, in memory ([`Analysis`]) or read out one kernel at a time
/// ([`Streamed`]): one declaration, so the two and their schema cannot part.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(rename = "Analysis")]
struct AnalysisJson<'a, K> {
    kernels: K,
    devices: &'a [Ceilings],
    notes: &'a [String],
    /// How `--timings` matched its kernels, where it was given.
    timings: &'a Option<Join>,
    /// The kernels during which their GPU's clock fell, from the device samples.
    throttled: &'a [crate::telemetry::throttle::ThrottledKernel],
}

impl Serialize for Analysis {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let json = AnalysisJson {
            kernels: &self.kernels,
            devices: &self.devices,
            notes: &self.notes,
            timings: &self.timings,
            throttled: &self.throttled,
        };
        json.serialize(serializer)
    }
}

impl schemars::JsonSchema for Analysis {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Analysis".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        AnalysisJson::<'static, Vec<KernelAnalysis>>::json_schema(generator)
    }
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

/// Analyses the dataset in `dir`, or a kernel-optimisation results JSON if `dir` is such a file,
/// every kernel in memory (see [`analyze_streamed`] for a dataset of any number of kernels).
pub fn analyze(path: &Path, options: &Options) -> Result<Analysis> {
    analyze_streamed(path, options)?.into_analysis(usize::MAX)
}

/// Analyses the dataset in `dir`, or a kernel-optimisation results JSON if `dir` is such a file.
/// A dataset's kernels are read, analysed and sorted within `--memory` ([`dataset::each_kernel`],
/// [`crate::spill`]), however many there are, and analysed again as they are read out.
pub fn analyze_streamed(path: &Path, options: &Options) -> Result<Streamed> {
    let db = Database::builtin()?;
    let forced = match &options.gpu {
        Some(id) => Some(db.get(id).ok_or_else(|| {
            let known: Vec<&str> = db.gpus.iter().map(|g| g.id.as_str()).collect();
            Error::Invalid(format!("--gpu {id}: not in the database ({})", known.join(", ")))
        })?),
        None => None,
    };
    if !path.is_file() {
        return dataset(path, db, forced, options);
    }
    if let Some(samples) = &options.samples {
        return Err(Error::Invalid(format!(
            "--samples {}: a results JSON has no kernels to join PC samples to",
            samples.display()
        )));
    }
    if let super::kept::RoofChoice::Given(kept) = &options.roofs {
        return Err(Error::Invalid(format!(
            "--roofs {}: a results JSON names no GPU of its own to judge against measured roofs (use --gpu)",
            kept.path.display()
        )));
    }
    let mut analysis = results_json(path, forced.or_else(|| db.get("mi300x")), options)?;
    let total: f64 = analysis.kernels.iter().map(|k| k.total_ns).sum();
    for k in &mut analysis.kernels {
        k.share = if total > 0.0 { k.total_ns / total } else { 0.0 };
    }
    analysis.kernels.sort_by(|a, b| b.total_ns.total_cmp(&a.total_ns).then(a.name.cmp(&b.name)));
    Ok(Streamed {
        devices: analysis.devices,
        notes: analysis.notes,
        timings: analysis.timings,
        throttled: analysis.throttled,
        kernels: Kernels::Memory(analysis.kernels),
    })
}

/// The analysis with its kernels, largest total first, read out one at a time: in memory (a
/// results JSON), or in an external sort of their rows, each analysed as it is read.
#[derive(Debug)]
pub struct Streamed {
    pub devices: Vec<Ceilings>,
    pub notes: Vec<String>,
    pub timings: Option<Join>,
    pub throttled: Vec<crate::telemetry::throttle::ThrottledKernel>,
    kernels: Kernels,
}

#[derive(Debug)]
enum Kernels {
    Memory(Vec<KernelAnalysis>),
    Sorted { sorted: Sorted, len: usize, total_ns: f64, judge: Box<Judge> },
}

impl Streamed {
    /// How many kernels were analysed.
    pub fn len(&self) -> usize {
        match &self.kernels {
            Kernels::Memory(kernels) => kernels.len(),
            Kernels::Sorted { len, .. } => *len,
        }
    }

    /// Whether none were.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hands each kernel's analysis to `f`, largest total first, until it returns false.
    pub fn for_each<E: From<Error>>(
        &self,
        mut f: impl FnMut(KernelAnalysis) -> std::result::Result<bool, E>,
    ) -> std::result::Result<(), E> {
        let (sorted, total_ns, judge) = match &self.kernels {
            Kernels::Memory(kernels) => {
                for k in kernels {
                    if !f(k.clone())? {
                        break;
                    }
                }
                return Ok(());
            }
            Kernels::Sorted { sorted, total_ns, judge, .. } => (sorted, *total_ns, judge),
        };
        let broken = || Error::Invalid("analyze: a kernel did not come back from the external sort".into());
        let mut reader = sorted.reader()?;
        while let Some((_, value)) = reader.next()? {
            let (key, rows) = decode_kernel(value).ok_or_else(broken)?;
            let mut kernel = judge.analyse(&key, &rows, self.timings.as_ref());
            kernel.share = if total_ns > 0.0 { kernel.total_ns / total_ns } else { 0.0 };
            if !f(kernel)? {
                break;
            }
        }
        Ok(())
    }

    /// The first `n` kernels, in memory.
    pub fn first(&self, n: usize) -> Result<Vec<KernelAnalysis>> {
        let mut kernels = Vec::with_capacity(n.min(self.len()).min(1 << 16));
        self.for_each(|k| {
            if kernels.len() < n {
                kernels.push(k);
            }
            Ok::<bool, Error>(kernels.len() < n)
        })?;
        Ok(kernels)
    }

    /// The analysis with its first `n` kernels in memory (`analysed` counts them all).
    pub fn into_analysis(self, n: usize) -> Result<Analysis> {
        let kernels = self.first(n)?;
        Ok(Analysis {
            analysed: self.len(),
            kernels,
            devices: self.devices,
            notes: self.notes,
            timings: self.timings,
            throttled: self.throttled,
        })
    }
}

impl Serialize for Streamed {
    /// As [`Analysis`] serialises, its kernels read out one at a time.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let json = AnalysisJson {
            kernels: KernelsJson(self),
            devices: &self.devices,
            notes: &self.notes,
            timings: &self.timings,
            throttled: &self.throttled,
        };
        json.serialize(serializer)
    }
}

impl schemars::JsonSchema for Streamed {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        Analysis::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Analysis::json_schema(generator)
    }
}

struct KernelsJson<'a>(&'a Streamed);

impl Serialize for KernelsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeSeq};
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        let mut failed = None;
        let read = self.0.for_each(|kernel| match seq.serialize_element(&kernel) {
            Ok(()) => Ok(true),
            Err(e) => {
                failed = Some(e);
                Ok::<bool, Error>(false)
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        read.map_err(S::Error::custom)?;
        seq.end()
    }
}

/// What the analysis of one kernel needs beyond its rows: the GPUs, and where each agent is one.
#[derive(Debug)]
struct Judge {
    db: &'static Database,
    forced: Option<&'static Gpu>,
    agents: Agents,
    /// The kernels' PC samples, by name: their stall mix is evidence beside the class.
    hotspots: std::collections::HashMap<String, crate::hotspots::KernelHotspots>,
    /// The kernels' PC samples by reason, by name: what tells a kernel far from every roof.
    stalls: std::collections::HashMap<String, super::reason::StallMix>,
    /// Roofs measured on the machine, by (process, agent).
    measured: std::collections::HashMap<(u32, u64), std::sync::Arc<super::measured::Roofs>>,
}

impl Judge {
    /// The kernel's agent and its GPU in the database, where known.
    fn place(&self, pid: u32, agent_id: u64) -> (AgentRow, Option<&'static Gpu>) {
        let agent = self.agents.get(&(pid, agent_id)).cloned().unwrap_or_default();
        let gpu = self.forced.or_else(|| self.db.find(&agent.agent));
        (agent, gpu)
    }

    /// The device of `gpu` as agent `agent_id` of `pid` reports it, with the roofs measured on it.
    fn device(&self, pid: u32, agent_id: u64, gpu: Option<&'static Gpu>, agent: &AgentRow) -> Option<Device<'static>> {
        let measured = self.measured.get(&(pid, agent_id)).cloned();
        gpu.map(|g| Device::new(g, &agent.agent).with_measured(measured))
    }

    /// The kernel's time: its dispatches', or where they have no timestamps, an estimate from its
    /// busy cycles.
    fn busy(rows: &KernelRows, agent: &AgentRow, device: Option<&Device<'_>>) -> Option<super::busy_time::BusyTime> {
        (rows.durations.mean() <= 0.0).then(|| super::busy_time::estimate(&rows.counters, agent, device)).flatten()
    }

    /// The kernel's total time, as its analysis gives it.
    fn total_ns(rows: &KernelRows, agent: &AgentRow, device: Option<&Device<'_>>) -> f64 {
        match Judge::busy(rows, agent, device) {
            Some(b) => b.mean_ns * rows.durations.count as f64,
            None => rows.durations.sum as f64,
        }
    }

    /// The kernel's analysis (its `share` left at 0).
    fn analyse(&self, key: &KernelKey, rows: &KernelRows, joined: Option<&Join>) -> KernelAnalysis {
        let (pid, agent_id, name) = key;
        let (agent, gpu) = self.place(*pid, *agent_id);
        let device = self.device(*pid, *agent_id, gpu, &agent);
        let occupancy = occupancy_of(&agent, self.forced, rows);
        let family = Family::of(gpu.and_then(|g| g.gfx_target.as_deref()).unwrap_or(&agent.agent.target));
        let work = (!rows.counters.is_empty())
            .then(|| roofline::work(family, f64::from(agent.wave_size.max(1)), &rows.counters));
        // Rows without timestamps take their time from their busy cycles where they can.
        let busy = Judge::busy(rows, &agent, device.as_ref());
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
        let lds_conflicts = roofline::lds_conflicts(family, &rows.counters);
        let l2_hit = match (get(&["TCC_HIT_sum", "GL2C_HIT_sum"]), get(&["TCC_MISS_sum", "GL2C_MISS_sum"])) {
            (Some(h), Some(m)) if h + m > 0.0 => Some(h / (h + m)),
            _ => None,
        };
        let bandwidth = bandwidths(work.as_ref(), mean_ns, device.as_ref());
        // Its times, idle included, came from the run --timings named.
        let timed_elsewhere = joined.is_some_and(|j| !j.unmatched.contains(name));
        let kernel = Kernel {
            levels: bandwidth.iter().filter_map(|b| Some((b.level, b.share?))).collect(),
            issue: issue(&rows.counters, mean_ns, device.as_ref()),
            stalls: self.stalls.get(name.as_str()).cloned(),
            name: name.clone(),
            calls: rows.durations.count,
            mean_ns,
            idle: idle(rows, !rows.counters.is_empty() && !timed_elsewhere),
            occupancy: occupancy.clone(),
            points: points.clone(),
            lds_conflicts,
            lds_bytes_without_conflicts: family != roofline::Family::Nvidia,
            l2_hit,
            zero_flops: zero_flops.clone(),
            inputs: Inputs {
                counters: rows.counters.len(),
                measured: work.as_ref().is_some_and(|w| !w.ops.is_empty() || !w.bytes.is_empty()),
                missing: work.as_ref().map_or_else(Vec::new, |w| w.missing.clone()),
                agent: agent_text(*agent_id, &agent),
                estimates: false,
                timings_unmatched: joined.is_some_and(|j| j.unmatched.contains(name)),
            },
        };
        let mut diagnosis = bottleneck::diagnose(&kernel, device.as_ref());
        if let Some(b) = &busy {
            diagnosis.evidence.push(b.how.clone());
        }
        let stalls = self.hotspots.get(name.as_str());
        // A launch-bound kernel's samples speak to its work: to the class its work alone has,
        // which the mix decided already where it is far from every roof.
        let judged =
            if diagnosis.class == bottleneck::Class::Launch { diagnosis.kernel_class } else { diagnosis.class };
        if let Some(said) = stalls.and_then(|h| crate::hotspots::evidence::stall_evidence(judged, h)) {
            diagnosis.evidence.extend(said);
        }
        let total_ns = if busy.is_some() { mean_ns * rows.durations.count as f64 } else { rows.durations.sum as f64 };
        KernelAnalysis {
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
            lds_conflicts,
            diagnosis,
        }
    }
}

/// Its schedulers' issue slots: warp instructions over what its device issues in its time.
fn issue(counters: &BTreeMap<String, f64>, mean_ns: f64, device: Option<&Device<'_>>) -> Option<bottleneck::Issue> {
    let instructions = roofline::any(counters, &["smsp__inst_executed.sum", "sm__inst_executed.sum"])?;
    let slots = device?.issue_per_second()? * mean_ns / 1e9;
    if slots <= 0.0 || instructions <= 0.0 {
        return None;
    }
    // Thread-level FP instructions (an FMA is one) over 32 lanes: warp instructions.
    let sass: f64 = crate::analyze::roofline::SASS_FP_OPS
        .iter()
        .filter_map(|op| counters.get(&format!("smsp__sass_thread_inst_executed_op_{op}_pred_on.sum")))
        .sum();
    let counted = crate::analyze::roofline::SASS_FP_OPS
        .iter()
        .all(|op| counters.contains_key(&format!("smsp__sass_thread_inst_executed_op_{op}_pred_on.sum")));
    Some(bottleneck::Issue {
        share: instructions / slots,
        arithmetic: counted.then(|| (sass / 32.0 / instructions).min(1.0)),
    })
}

/// What agent `agent_id` is judged against: each measured roof, with the datasheet's beside.
fn measured_note(agent_id: u64, d: &Device<'_>, m: &super::measured::Roofs) -> String {
    let mut said: Vec<String> = m
        .bandwidth
        .iter()
        .map(|(level, tbps)| {
            let paper = d.datasheet_bandwidth(*level).map_or(String::new(), |p| format!(" (datasheet {p:.2})"));
            format!("{} {tbps:.2} TB/s{paper}", level.name())
        })
        .collect();
    said.extend(m.peaks.iter().map(|((precision, pipe), tflops)| {
        let paper = d.datasheet_peak(*precision, *pipe).map_or(String::new(), |p| format!(" (datasheet {p:.1})"));
        format!("{} {} {tflops:.1} TFLOP/s{paper}", precision.name(), pipe.name())
    }));
    format!(
        "agent {agent_id} is judged against the roofs measured by {}, not the datasheet's: {}",
        m.source,
        said.join(", ")
    )
}

/// Each kernel's PC samples by reason category, a full memory queue (CUPTI's `lg_throttle` and
/// `tex_throttle`) counted as waiting on memory: only the pipes' own throttles are the
/// schedulers' side.
fn stall_mixes(rows: &[crate::hotspots::PcSampleRow]) -> std::collections::HashMap<String, super::reason::StallMix> {
    use rocprof_rs_format::pc_sample::ReasonCategory;
    let mut by: std::collections::HashMap<String, BTreeMap<ReasonCategory, u64>> = std::collections::HashMap::new();
    for row in rows {
        let memory_queue =
            row.reason.as_deref().is_some_and(|r| r.contains("lg_throttle") || r.contains("tex_throttle"));
        let category = if memory_queue { ReasonCategory::MemoryDependency } else { row.category };
        *by.entry(row.kernel_name.clone()).or_default().entry(category).or_default() += row.samples;
    }
    by.into_iter()
        .map(|(name, counts)| (name, super::reason::StallMix { samples: counts.into_iter().collect() }))
        .collect()
}

/// A kernel's place in the sort: largest total first, then by name, process and agent (the
/// name's bytes escaped so that a shorter name sorts before its extensions).
fn sort_key(key: &KernelKey, total_ns: f64) -> Key {
    let bits = total_ns.to_bits();
    let ascending = if bits >> 63 == 1 { !bits } else { bits | 1 << 63 };
    let mut out = Key::new().u64(u64::MAX - ascending);
    for &b in key.2.as_bytes() {
        out.0.push(b);
        if b == 0 {
            out.0.push(0xff);
        }
    }
    out.0.extend_from_slice(&[0, 0]);
    out.u64(u64::from(key.0)).u64(key.1)
}

fn encode_kernel(key: &KernelKey, rows: &KernelRows, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&key.0.to_le_bytes());
    out.extend_from_slice(&key.1.to_le_bytes());
    out.extend_from_slice(&(key.2.len() as u32).to_le_bytes());
    out.extend_from_slice(key.2.as_bytes());
    rows.encode(out);
}

fn decode_kernel(bytes: &[u8]) -> Option<(KernelKey, KernelRows)> {
    let pid = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?);
    let agent = u64::from_le_bytes(bytes.get(4..12)?.try_into().ok()?);
    let len = u32::from_le_bytes(bytes.get(12..16)?.try_into().ok()?) as usize;
    let name = std::str::from_utf8(bytes.get(16..16 + len)?).ok()?.to_owned();
    Some(((pid, agent, name), KernelRows::decode(bytes.get(16 + len..)?)?))
}

fn dataset(dir: &Path, db: &'static Database, forced: Option<&'static Gpu>, options: &Options) -> Result<Streamed> {
    if !dir.is_dir() {
        return Err(Error::Invalid(format!("{}: neither a dataset directory nor a results JSON file", dir.display())));
    }
    rocprof_rs_format::dataset::require_tables(dir)?;
    let mut notes = Vec::new();
    // The stall mix is evidence beside the class, not what decides it: samples that cannot be
    // read cost a note, not the analysis.
    let samples = match &options.samples {
        // Asked for by name: a folder without samples is an error, not a note.
        Some(from) => {
            let refused = |why: String| Error::Invalid(format!("--samples {}: {why}", from.display()));
            if !from.is_dir() {
                return Err(refused("not a dataset directory".into()));
            }
            if rocprof_rs_format::dataset::table_files(from, rocprof_rs_format::Table::PcSample)?.is_empty() {
                return Err(refused("no pc_sample table (a run with --pc-sampling-method)".into()));
            }
            crate::hotspots::read_pc_samples(from).map_err(|e| refused(e.to_string()))?
        }
        None => crate::hotspots::read_pc_samples(dir).unwrap_or_else(|e| {
            notes.push(format!("PC samples not used: {e}"));
            Vec::new()
        }),
    };
    let hotspots: std::collections::HashMap<String, crate::hotspots::KernelHotspots> =
        crate::hotspots::hotspots(&samples, 0).into_iter().map(|k| (k.kernel_name.clone(), k)).collect();
    let sampled_kernels = hotspots.len();
    let agents = dataset::agents(dir)?;
    let measured = super::kept::choose(&options.roofs, super::measured::read(dir)?, &agents)?;
    let stalls = stall_mixes(&samples);
    let judge = Judge { db, forced, agents, hotspots, stalls, measured };
    let mut devices: BTreeMap<String, Ceilings> = BTreeMap::new();
    // Agents the database does not know, in the order of the kernels they ran (process, agent).
    let mut unknown: BTreeMap<(u32, u64), String> = BTreeMap::new();
    // Agents judged against roofs measured on them, and what those were.
    let mut measured_notes: BTreeMap<(u32, u64), String> = BTreeMap::new();
    let mut sorter = Sorter::with_budget(crate::spill::share(4));
    let (mut len, mut total_ns, mut counted, mut cut) = (0usize, 0.0f64, false, 0u64);
    let mut value = Vec::new();
    let mut non_finite = NonFinite::default();
    let mut sampled = 0usize;
    let mut add = |key: KernelKey, rows: KernelRows| -> Result<()> {
        if options.kernel.as_ref().is_some_and(|re| !re.is_match(&key.2)) {
            return Ok(());
        }
        non_finite.count(&key.2, &rows.counters);
        let (agent, gpu) = judge.place(key.0, key.1);
        if gpu.is_none() {
            unknown.entry((key.0, key.1)).or_insert_with(|| {
                format!(
                    "agent {} ({}) is not in the GPU database: no ceilings; name one with --gpu",
                    key.1,
                    if agent.agent.target.is_empty() { "unnamed" } else { &agent.agent.target }
                )
            });
        }
        let device = judge.device(key.0, key.1, gpu, &agent);
        if let Some(d) = &device {
            devices.entry(d.gpu.id.clone()).or_insert_with(|| ceilings(d));
            if let Some(m) = &d.measured {
                measured_notes.entry((key.0, key.1)).or_insert_with(|| measured_note(key.1, d, m));
            }
        }
        let kernel_ns = Judge::total_ns(&rows, &agent, device.as_ref());
        total_ns += kernel_ns;
        len += 1;
        sampled += usize::from(judge.hotspots.contains_key(&key.2));
        counted |= !rows.counters.is_empty();
        cut += u64::from(crate::names::is_cut(&key.2));
        encode_kernel(&key, &rows, &mut value);
        sorter.push(&sort_key(&key, kernel_ns).0, &value)
    };
    let joined = match &options.timings {
        // Two runs joined by name, in memory: a counters-only import and the run that timed it.
        Some(from) => {
            let mut data = Dataset::read(dir, options.pid)?;
            let j = timings::join(&mut data, &Dataset::read(from, None)?, from);
            notes.extend(j.notes());
            data.kernels.into_iter().try_for_each(|(key, rows)| add(key, rows))?;
            Some(j)
        }
        None => {
            dataset::each_kernel(dir, options.pid, &mut add)?;
            None
        }
    };
    notes.extend(measured_notes.into_values());
    if let Some(from) = &options.samples {
        notes.push(format!(
            "PC samples of {sampled} of {len} kernels from {} ({sampled_kernels} kernels sampled there), matched by name",
            from.display()
        ));
    }
    for note in unknown.into_values() {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    if !counted && len > 0 {
        notes.push("no counters in this dataset: run with --preset roofline for roofline positions".into());
    }
    if cut > 0 {
        notes.push(crate::names::cut_note(cut));
    }
    notes.extend(non_finite.note());
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
    Ok(Streamed {
        devices: devices.into_values().collect(),
        notes,
        timings: joined,
        throttled,
        kernels: Kernels::Sorted { sorted: sorter.finish()?, len, total_ns, judge: Box::new(judge) },
    })
}

/// The counter values that are not finite numbers (a dataset someone else wrote: our imports
/// refuse them), which the analysis leaves out as if not collected: how many, and the first.
#[derive(Debug, Default)]
struct NonFinite {
    found: u64,
    first: Option<(String, String, f64)>,
}

impl NonFinite {
    fn count(&mut self, kernel: &str, counters: &BTreeMap<String, f64>) {
        for (counter, value) in counters.iter().filter(|(_, v)| !v.is_finite()) {
            self.found += 1;
            self.first.get_or_insert_with(|| (kernel.to_owned(), counter.clone(), *value));
        }
    }

    fn note(&self) -> Option<String> {
        let (kernel, counter, value) = self.first.as_ref()?;
        Some(format!(
            "{} counter value{}, such as {counter} of {kernel} ({value}): left out, as if not collected",
            self.found,
            if self.found == 1 { " is not a finite number" } else { "s are not finite numbers" },
        ))
    }
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
fn idle(rows: &KernelRows, counted: bool) -> Idle {
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

fn occupancy_of(agent: &AgentRow, forced: Option<&Gpu>, rows: &KernelRows) -> Option<Occupancy> {
    let target = forced.and_then(|g| g.gfx_target.as_deref()).unwrap_or(&agent.agent.target);
    if rows.workgroup == 0 {
        return None;
    }
    let cus = agent.agent.compute_units.filter(|&c| c > 0);
    let waves = |o: &Occupancy, wave_size: u32, simds: u32| {
        let at_once = u64::from(o.groups_per_cu(rows.workgroup, wave_size, simds)) * u64::from(cus?);
        (at_once > 0 && rows.grid_groups > 0).then(|| rows.grid_groups as f64 / at_once as f64)
    };
    let Some(target) = Target::of(target, agent.wave_size) else {
        // NVIDIA: the SM of the agent's compute capability (`sm_90`).
        let sm = sm_occupancy::Sm::of(target)?;
        let launch = sm_occupancy::Launch {
            threads_per_block: rows.workgroup,
            registers_per_thread: rows.arch_vgprs,
            shared_bytes: rows.lds_bytes,
        };
        let mut o = sm_occupancy::as_occupancy(&sm, &launch)?;
        o.waves = waves(&o, 32, 1);
        return Some(o);
    };
    let resources = Resources {
        workgroup: rows.workgroup,
        arch_vgprs: rows.arch_vgprs,
        accum_vgprs: rows.accum_vgprs,
        sgprs: rows.sgprs,
        lds_bytes: rows.lds_bytes,
    };
    let mut o = occupancy::occupancy(&target, &resources);
    o.waves = waves(&o, target.wave_size, target.simds);
    Some(o)
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
            levels: bandwidth.iter().filter_map(|b| Some((b.level, b.share?))).collect(),
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
            lds_conflicts: None,
            diagnosis: bottleneck::diagnose(&kernel, device.as_ref()),
        });
    }
    let devices = device.iter().map(ceilings).collect();
    Ok(Analysis { analysed: kernels.len(), kernels, devices, notes, timings: None, throttled: Vec::new() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocprof_rs_format::pc_sample::ReasonCategory;

    fn row(reason: &str, samples: u64) -> crate::hotspots::PcSampleRow {
        crate::hotspots::PcSampleRow {
            pid: 1,
            kernel_name: "k".into(),
            kernel_id: 1,
            agent_id: 0,
            dispatch_id: 1,
            correlation_id: 1,
            code_object_id: 3,
            pc_offset: 0x40,
            instruction: None,
            source_file: None,
            source_line: None,
            reason: Some(reason.into()),
            category: ReasonCategory::of_vendor_reason(reason),
            instruction_type: None,
            method: rocprof_rs_format::pc_sample::SampleMethod::Cupti,
            samples,
        }
    }

    /// A full load/store or texture queue waits on memory; a full math pipe is the schedulers'.
    #[test]
    fn a_full_memory_queue_counts_as_waiting_on_memory() {
        let rows = [
            row("smsp__pcsamp_warps_issue_stalled_lg_throttle", 30),
            row("smsp__pcsamp_warps_issue_stalled_tex_throttle", 5),
            row("smsp__pcsamp_warps_issue_stalled_math_pipe_throttle", 20),
        ];
        let mix = &stall_mixes(&rows)["k"].samples;
        assert_eq!(mix, &vec![(ReasonCategory::MemoryDependency, 35), (ReasonCategory::Throttle, 20)]);
    }
}
