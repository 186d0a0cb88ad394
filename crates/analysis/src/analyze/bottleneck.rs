//! What limits a kernel, with the evidence that decided it, and what to do about it: every roof
//! first, then the reason.
//!
//! Each class rests on a measurement that its evidence names:
//!
//! - a kernel within [`NEAR_ROOF`] of a roof is bound by it: MEMORY (a memory level's
//!   bandwidth: the roofline's binding level, a busier one, or with zero FLOPs its busiest),
//!   CACHE (DRAM binds and few accesses hit in L2), LDS (the LDS roof binds and bank conflicts
//!   are many), COMPUTE (a compute roof) or ISSUE (NVIDIA's issue slots, where warp instructions
//!   were counted);
//! - a kernel under it for every roof it has is bound by none, and [`reason`] says why: TAIL,
//!   SYNC, ISSUE, OCCUPANCY or LATENCY, from its waves, its PC samples' stall mix and its
//!   occupancy;
//! - LAUNCH takes a kernel near no roof whose GPU waits on the host before its dispatches (the
//!   idle time of its queue before each, measured from the trace: [`Idle`]); its class by its
//!   work alone is kept beside (`kernel_class`);
//! - a short dispatch, low occupancy or bank conflicts alone decide nothing; without a
//!   measurement that decides, a kernel is UNKNOWN and its evidence says what it lacks.
//!
//! Every other class whose evidence holds is listed too. A recommendation appears only with the
//! measurement it rests on, and they come in order: the primary class's first, then the rest,
//! each by expected gain, the share of the kernel's time it could save at best, computed from
//! the measured numbers: raising the intensity to the ridge (fusion, where DRAM bytes were
//! measured) up to `1 - achieved/peak`; keeping DRAM's bytes in the L2 (tiling) up to
//! `1 - achieved/the lowest other roof`; running vector work on the matrix units up to
//! `1 - achieved/the matrix roof at its intensities`; removing the idle before each dispatch up
//! to `idle/(idle + dispatch)`; removing LDS bank conflicts up to their share of LDS cycles.
//! They are bounds, not predictions.

use serde::Serialize;

use super::occupancy::Occupancy;
use super::reason::{self, NEAR_ROOF, StallMix};
use super::roofline::{self, Point, ZeroFlops};
use super::specs::{Device, Level, Pipe};
use crate::units::{micros, whole_percent};

/// Idle time before dispatches, as a share of their run time, from which the host's launches
/// bound the kernel: a third of each launch, or more, waits on the host.
pub const IDLE_SHARE: f64 = 0.5;
/// Launch-boundness is a pattern over a kernel's launches: fewer measured gaps than this decide
/// nothing, as one gap cannot tell launch overhead from a pause of the host.
pub const MIN_GAPS: u64 = 2;
/// Above this share of its roof a kernel's numbers are inconsistent (a wrong device, a lower
/// real clock, counters of another run): said in the evidence, never hidden.
pub const ABOVE_ROOF: f64 = 1.05;
/// LDS bank-conflict cycles per active LDS cycle from which conflicts matter.
pub const LDS_CONFLICTS: f64 = 0.1;
/// L2 hit rates below this, on a memory-bound kernel, mean the working set thrashes the cache.
pub const LOW_L2_HIT: f64 = 0.5;

/// The bottleneck classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Class {
    Memory,
    Compute,
    Latency,
    Lds,
    Cache,
    /// Far from every roof, waiting on results with its warps held low by its registers,
    /// shared memory or LDS.
    Occupancy,
    /// Far from every roof, its schedulers busy issuing or choosing.
    Issue,
    /// Its grid fills under one wave.
    Tail,
    /// Its GPU waits on the host before its dispatches.
    Launch,
    /// Far from every roof, its warps waiting at barriers.
    Sync,
    /// Nothing measured decides it: no roofline and no bandwidth bound, and its GPU is not seen
    /// waiting on the host.
    Unknown,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Memory => "MEMORY",
            Class::Compute => "COMPUTE",
            Class::Latency => "LATENCY",
            Class::Lds => "LDS",
            Class::Cache => "CACHE",
            Class::Occupancy => "OCCUPANCY",
            Class::Issue => "ISSUE",
            Class::Tail => "TAIL",
            Class::Launch => "LAUNCH",
            Class::Sync => "SYNC",
            Class::Unknown => "UNKNOWN",
        }
    }
}

/// How long a kernel's GPU waited on the host before its dispatches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Idle {
    /// Over its dispatches that follow another on their queue (`gaps` of them): the median time
    /// between the queue's previous dispatch's end and its start in which no kernel ran on its
    /// GPU, ns. `counted`: in a run that collected counters per dispatch, which serializes the
    /// dispatches and lengthens the gaps with the profiler's own time.
    Measured { median_ns: f64, gaps: u64, counted: bool },
    /// Not measured, and why.
    Unmeasured(&'static str),
}

impl Default for Idle {
    fn default() -> Idle {
        Idle::Unmeasured("no dispatch timestamps")
    }
}

/// What is known about one kernel (on one device): its timing, its roofline points, the
/// counter ratios that explain them, its occupancy.
#[derive(Debug, Clone, Default)]
pub struct Kernel {
    pub name: String,
    pub calls: u64,
    /// Mean run time of a dispatch, ns.
    pub mean_ns: f64,
    /// How long its GPU sat idle before its dispatches.
    pub idle: Idle,
    pub occupancy: Option<Occupancy>,
    /// Its PC samples by reason, where it was sampled ([`reason`]).
    pub stalls: Option<StallMix>,
    /// From [`roofline::position`], largest first.
    pub points: Vec<Point>,
    /// The share of its LDS work lost to bank conflicts ([`roofline::lds_conflicts`]).
    pub lds_conflicts: Option<f64>,
    /// Whether its LDS bytes leave the conflict cycles out (AMD's `(active − conflict) × 128`)
    /// rather than count the replays (NVIDIA's wavefronts × 128).
    pub lds_bytes_without_conflicts: bool,
    /// `TCC_HIT / (TCC_HIT + TCC_MISS)`.
    pub l2_hit: Option<f64>,
    /// Each level's bandwidth share of its peak, where both are known.
    pub levels: Vec<(Level, f64)>,
    /// Its schedulers' issue slots, where its instructions were counted.
    pub issue: Option<Issue>,
    /// Where FLOP counters were all collected and all zero: the memory level that bounds it.
    pub zero_flops: Option<ZeroFlops>,
    /// What its rows held, for saying what an UNKNOWN verdict lacks.
    pub inputs: Inputs,
}

/// How busy its schedulers were: the issue-slot roof.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Issue {
    /// Warp instructions issued over what its schedulers could issue in its time (one per
    /// scheduler per clock).
    pub share: f64,
    /// Of its instructions, the share that are floating-point arithmetic (its FLOP counters'
    /// thread instructions over 32 lanes), where counted.
    pub arithmetic: Option<f64>,
}

impl Kernel {
    /// The level whose bandwidth it uses most, and the share of its peak: what decides a kernel
    /// whose bytes are counted but not its FLOPs.
    pub fn busiest(&self) -> Option<(Level, f64)> {
        self.levels.iter().copied().filter(|l| l.1.is_finite()).max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// What a kernel's rows held.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// Distinct counters its dispatches carry.
    pub counters: usize,
    /// Whether they gave any FLOPs or bytes.
    pub measured: bool,
    /// What they could not give ([`roofline::Work::missing`]).
    pub missing: Vec<String>,
    /// The agent it ran on as the trace names it (`agent 2 (gfx942)`), for saying which one no
    /// GPU of the database matched.
    pub agent: String,
    /// Its work comes from a results JSON's estimates, not from counters.
    pub estimates: bool,
    /// `--timings` was given and had no kernel of its name.
    pub timings_unmatched: bool,
}

/// One class's case.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Finding {
    pub class: Class,
    pub evidence: Vec<String>,
}

/// One thing to try.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Recommendation {
    pub class: Class,
    pub action: String,
    pub why: String,
    /// The share of the kernel's time it could save, at best (0 to 1).
    pub expected_gain: f64,
}

/// A kernel's class, the other classes that apply, and what to try, best first.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Diagnosis {
    pub class: Class,
    /// Its class by its work alone, without the host's launches: what a profiler that replays
    /// each kernel by itself (Nsight Compute) can see. The same as `class` unless that is
    /// LAUNCH.
    pub kernel_class: Class,
    pub evidence: Vec<String>,
    pub also: Vec<Finding>,
    pub recommendations: Vec<Recommendation>,
}

/// Classifies `k`; `device` gives the matrix peaks for the matrix-core recommendation.
pub fn diagnose(k: &Kernel, device: Option<&Device<'_>>) -> Diagnosis {
    let mut findings: Vec<Finding> = Vec::new();
    let mut recs: Vec<Recommendation> = Vec::new();
    let top = k.points.first();
    // Against the roof that binds at its intensity: the top point's, or for a kernel that did
    // no FLOPs, its busiest memory level's.
    let efficiency = top.and_then(|p| p.efficiency).or(k.zero_flops.as_ref().map(|z| z.efficiency));
    let launches = launches(k);
    launch(k, &launches, device, &mut findings, &mut recs);
    // Any roof passed, not only the one binding at its intensity (a level's bandwidth, the
    // issue slots).
    let above = closest_roof(k, efficiency).filter(|&e| e > ABOVE_ROOF).map(|e| {
        format!(
            "at {} of its roof, above it: the counters, the clock or the device named do not match the run",
            whole_percent(e)
        )
    });

    // The roofline: MEMORY, CACHE, LDS or COMPUTE by the roof that binds at its intensity.
    if let Some(p) = top {
        roofline(k, p, device, &mut findings, &mut recs);
    } else if let Some(z) = &k.zero_flops {
        no_flops(k, z, &mut findings, &mut recs);
    }
    // A level whose bandwidth it uses more of than of the roof that binds at its intensity (or
    // with no FLOPs known, any level it uses NEAR_ROOF of): that level binds it.
    let binding = top.and_then(|p| p.bound_by).or(k.zero_flops.as_ref().map(|z| z.level));
    let compute = nearest_compute(k);
    let beats = |share: f64, rivals: &[Option<f64>]| rivals.iter().flatten().all(|&r| share > r);
    let issue_share = k.issue.map(|i| i.share);
    let level_bound = k
        .busiest()
        .filter(|&(level, share)| share >= NEAR_ROOF && Some(level) != binding)
        .filter(|&(_, share)| {
            beats(share, &[efficiency, compute.map(|c| c.1)]) && issue_share.is_none_or(|i| share >= i)
        })
        .map(|(level, share)| {
            let flops = if top.is_none() && k.zero_flops.is_none() { " (no FLOP counters)" } else { "" };
            let why = format!("{} at {} of its peak bandwidth{flops}", level.name(), whole_percent(share));
            Finding { class: bandwidth_class(k, level), evidence: vec![why] }
        });
    // Its schedulers nearer their issue roof than any other roof: instruction issue binds it.
    let level_bound = level_bound.or_else(|| issue_bound(k, efficiency, &mut recs));
    // A compute roof other than the top point's, nearer than every other roof.
    let level_bound = level_bound.or_else(|| {
        let (at, share) = compute.filter(|&(at, share)| at > 0 && share >= NEAR_ROOF)?;
        if !beats(share, &[efficiency, k.busiest().map(|b| b.1), issue_share]) {
            return None;
        }
        let mut near = Vec::new();
        compute_bound(&k.points[at], device, &mut near, &mut recs);
        near.pop()
    });
    // Bank conflicts: removing them saves their share of the LDS's busy cycles, and the LDS is
    // busy for its share of its bandwidth over the kernel's time (AMD's bytes leave the conflict
    // cycles out, so its busy share is that over 1 − c): that product bounds the time saved,
    // whether or not the LDS binds. They decide the class only where the LDS binds; elsewhere
    // they are another finding.
    let mut conflicts = None;
    if let Some(c) = k.lds_conflicts.filter(|&c| c >= LDS_CONFLICTS) {
        let busy = k.levels.iter().find(|(l, _)| *l == Level::Lds).map(|&(_, share)| {
            let busy = if k.lds_bytes_without_conflicts { share / (1.0 - c).max(f64::EPSILON) } else { share };
            busy.clamp(0.0, 1.0)
        });
        let why = match busy {
            Some(busy) => format!(
                "{} of active LDS cycles are bank conflicts (measured), with the LDS busy {} of the time",
                whole_percent(c),
                whole_percent(busy)
            ),
            None => format!("{} of active LDS cycles are bank conflicts (measured)", whole_percent(c)),
        };
        let gain = c * busy.unwrap_or(1.0);
        recs.push(rec(Class::Lds, "Pad LDS arrays (one extra element per row)", &why, gain));
        recs.push(rec(Class::Lds, "Change the LDS layout (swizzle) so lanes hit distinct banks", &why, gain));
        conflicts = Some(Finding { class: Class::Lds, evidence: vec![why] });
    }

    let closest = closest_roof(k, efficiency);
    let near = closest.is_some_and(|c| c >= NEAR_ROOF);
    // Far from every roof needs every roof known: FLOPs counted (or all counted and zero), and
    // none of its counters missing.
    let roofs_known = (top.is_some() || k.zero_flops.is_some()) && k.inputs.missing.is_empty();
    let far = match closest {
        Some(c) if !near && roofs_known => Some(reason::far(k, c, &roofs(k), &mut recs)),
        _ => None,
    };
    // By its work alone: the roof it is near, or why it is far from all of them.
    let own = if let Some(f) = &level_bound {
        f.class
    } else if near {
        findings.iter().find(|f| f.class != Class::Launch).map_or(Class::Unknown, |f| f.class)
    } else if let Some(f) = &far {
        f.class
    } else {
        Class::Unknown
    };
    // Its GPU waiting on the host comes first where its work is near no roof: the time is the
    // host's.
    let primary = if launches.idle.is_some() && !near { Class::Launch } else { own };
    findings.extend(level_bound);
    findings.extend(far);
    let (main, mut also): (Vec<Finding>, Vec<Finding>) = findings.into_iter().partition(|f| f.class == primary);
    also.extend(conflicts.filter(|_| primary != Class::Lds));
    // Every finding of the primary class is its case, the nearest roof's first.
    let mut evidence: Vec<String> = Vec::new();
    for f in main.into_iter().rev() {
        for e in f.evidence {
            if !evidence.contains(&e) {
                evidence.push(e);
            }
        }
    }
    if evidence.is_empty() {
        evidence = unknown(k, device);
    }
    // Where its GPU waits on the host, what its work alone would say.
    if primary == Class::Launch {
        if own == Class::Unknown {
            evidence.extend(unknown(k, device).into_iter().map(|e| format!("by its work alone, unknown: {e}")));
        } else {
            evidence.push(format!("by its work alone, {}", own.name()));
        }
    }
    // Where launches did not decide, what the trace said of them.
    if primary != Class::Launch
        && launches.idle.is_none()
        && !matches!(primary, Class::Memory | Class::Compute | Class::Cache | Class::Lds)
    {
        evidence.extend(launches.said);
    }
    evidence.extend(above);
    recs.retain(|r| r.expected_gain > 0.005);
    // The primary class's remedies first, each group by expected gain.
    recs.sort_by(|a, b| {
        (a.class != primary).cmp(&(b.class != primary)).then(b.expected_gain.total_cmp(&a.expected_gain))
    });
    Diagnosis { class: primary, kernel_class: own, evidence, also, recommendations: recs }
}

/// ISSUE where the issue slots are its nearest roof, at [`NEAR_ROOF`] or more.
fn issue_bound(k: &Kernel, efficiency: Option<f64>, recs: &mut Vec<Recommendation>) -> Option<Finding> {
    let issue = k.issue.filter(|i| i.share >= NEAR_ROOF)?;
    let others = efficiency.into_iter().chain(k.busiest().map(|b| b.1));
    if others.into_iter().any(|o| o > issue.share) {
        return None;
    }
    let mut evidence = vec![format!(
        "its schedulers issue an instruction in {} of their cycles (warp instructions counted), nearer that roof than \
         any other",
        whole_percent(issue.share)
    )];
    if let Some(a) = issue.arithmetic {
        evidence.push(format!("{} of its instructions are floating-point arithmetic", whole_percent(a)));
        // Only instructions that are not its arithmetic can go without changing its results,
        // and fewer of them bring it no further than its next roof.
        let next = k.levels.iter().map(|l| l.1).chain(efficiency).fold(0.0f64, f64::max);
        let why = format!(
            "{} of its issue slots go to other instructions than its FLOPs; its next roof is at {}",
            whole_percent(1.0 - a),
            whole_percent(next)
        );
        let action = "Cut instructions per result (index math, conversions, predication)";
        recs.push(rec(Class::Issue, action, &why, (1.0 - a).min(1.0 - next)));
    }
    Some(Finding { class: Class::Issue, evidence })
}

/// The share of its nearest roof: the roof binding at its intensity, each compute roof it
/// does FLOPs on, each memory level's bandwidth; `None` where none is measured.
fn closest_roof(k: &Kernel, efficiency: Option<f64>) -> Option<f64> {
    let compute = nearest_compute(k).map(|(_, share)| share);
    let levels = k.levels.iter().map(|(_, share)| *share);
    let issue = k.issue.map(|i| i.share);
    // A share that is not a number (a zero time) is no roof, and hides none of the others.
    efficiency.into_iter().chain(compute).chain(levels).chain(issue).filter(|s| s.is_finite()).max_by(f64::total_cmp)
}

/// The compute point nearest its peak: its index and share.
fn nearest_compute(k: &Kernel) -> Option<(usize, f64)> {
    k.points
        .iter()
        .enumerate()
        .filter_map(|(at, p)| p.peak_tflops.filter(|&peak| peak > 0.0).map(|peak| (at, p.achieved_tflops / peak)))
        .filter(|(_, share)| share.is_finite())
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// Each roof's share, largest first: `dram 38%, l2 52%, fp32 vector 3%`.
fn roofs(k: &Kernel) -> String {
    let mut parts: Vec<(String, f64)> =
        k.levels.iter().map(|(level, share)| (level.name().to_owned(), *share)).collect();
    for p in &k.points {
        if let Some(peak) = p.peak_tflops.filter(|&peak| peak > 0.0) {
            parts.push((format!("{} {}", p.precision.name(), p.pipe.name()), p.achieved_tflops / peak));
        }
    }
    if let Some(i) = k.issue {
        parts.push(("issue slots".to_owned(), i.share));
    }
    parts.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut said: Vec<String> = parts.iter().take(5).map(|(name, s)| format!("{name} {}", whole_percent(*s))).collect();
    if k.zero_flops.is_some() {
        said.push("no FLOPs (every FLOP counter collected)".to_owned());
    }
    said.join(", ")
}

/// Why nothing decides `k`: each thing it lacks, what it has otherwise.
fn unknown(k: &Kernel, device: Option<&Device<'_>>) -> Vec<String> {
    let inputs = &k.inputs;
    let mut lacks = Vec::new();
    if inputs.estimates {
        if k.points.is_empty() && k.busiest().is_none() {
            lacks.push("no estimates: the results JSON gives it no flops_estimated or bytes_transferred".to_owned());
        }
    } else if inputs.counters == 0 {
        lacks.push("no counters: collect the roofline preset (--preset roofline) to classify it".to_owned());
    } else if !inputs.measured {
        lacks.push(format!(
            "{} counters, but none the roofline needs: no {} (collect the roofline preset, --preset roofline)",
            inputs.counters,
            families(&inputs.missing)
        ));
    }
    if k.mean_ns <= 0.0 {
        let work = if inputs.counters > 0 { ", so its counters give its work but not its rate" } else { "" };
        let remedy = if inputs.timings_unmatched {
            "--timings found no kernel of its name (the notes say why)"
        } else {
            "take the times from a timed run of the same program with --timings DIR"
        };
        lacks.push(format!("no dispatch time: every start and end in its rows is 0{work}; {remedy}"));
    }
    if device.is_none() {
        let agent = if inputs.agent.is_empty() { "its agent" } else { inputs.agent.as_str() };
        lacks.push(format!("no device: {agent} matches no GPU in the database; name one with --gpu ID"));
    }
    if lacks.is_empty() {
        lacks.push(undecided(k));
    }
    lacks
}

/// The families of what `missing` lists: `fp32 VALU FLOPs`, `DRAM bytes`, ...
fn families(missing: &[String]) -> String {
    let heads: Vec<&str> = missing.iter().map(|m| m.split_once(':').map_or(m.as_str(), |(head, _)| head)).collect();
    heads.join(", ")
}

/// Why a kernel with counters, a time and a device is still undecided: its FLOPs were not
/// counted and its bytes do not bound it alone.
fn undecided(k: &Kernel) -> String {
    let flops = if k.inputs.missing.is_empty() {
        "no FLOPs counted".to_owned()
    } else {
        format!("no {}", families(&k.inputs.missing))
    };
    match k.busiest() {
        Some((level, share)) => format!(
            "{flops}, and its busiest level, {}, at {} of its bandwidth, is under the {} that decides by bytes alone",
            level.name(),
            whole_percent(share),
            whole_percent(NEAR_ROOF)
        ),
        None => format!("{flops}, and no level with both bytes and a bandwidth"),
    }
}

/// What the trace says of the host's launches of a kernel.
struct Launches {
    /// The median idle before each dispatch, where it bounds the kernel.
    idle: Option<f64>,
    /// The evidence: why they bound it, or why not, or why it cannot be told.
    said: Option<String>,
}

/// Whether the host's launches bound `k`: its GPU sits idle before each of its dispatches,
/// [`IDLE_SHARE`] of their run time or more, over [`MIN_GAPS`] of them or more, in a run that
/// did not count (and so serialize) them. Never by the dispatch time alone: a short kernel that
/// runs back to back on a busy queue is not.
fn launches(k: &Kernel) -> Launches {
    let (median, gaps, counted) = match k.idle {
        Idle::Unmeasured(why) => {
            // A kernel without dispatch times says so already.
            let said = (k.mean_ns > 0.0).then(|| format!("launches not judged: its idle time is not measured ({why})"));
            return Launches { idle: None, said };
        }
        Idle::Measured { median_ns, gaps, counted } => (median_ns, gaps, counted),
    };
    let said = if k.mean_ns <= 0.0 {
        None
    } else if counted {
        Some(format!(
            "launches not judged: its GPU idles a median {} before each {} dispatch in a run that collected counters \
             per dispatch, which serializes dispatches; take the times from a run without counters (--timings DIR)",
            micros(median),
            micros(k.mean_ns)
        ))
    } else if gaps < MIN_GAPS {
        Some(format!(
            "launches not judged from {gaps} gap: its GPU ran no kernel for {} before its {} dispatch; one gap \
             cannot tell launch overhead from a pause of the host",
            micros(median),
            micros(k.mean_ns)
        ))
    } else {
        let measured = format!(
            "its GPU idles a median {} before each {} dispatch ({} of {} dispatches follow another on its queue)",
            micros(median),
            micros(k.mean_ns),
            gaps,
            k.calls.max(gaps)
        );
        if median >= IDLE_SHARE * k.mean_ns {
            let share = median / (median + k.mean_ns);
            let said = format!("{measured}: {} of each launch waits on the host", whole_percent(share));
            return Launches { idle: Some(median), said: Some(said) };
        }
        Some(format!("not launch-bound: {measured}, under {} of its run time", whole_percent(IDLE_SHARE)))
    };
    Launches { idle: None, said }
}

/// LAUNCH's evidence and remedies: a GPU waiting on the host before each dispatch.
fn launch(
    k: &Kernel,
    launches: &Launches,
    device: Option<&Device<'_>>,
    findings: &mut Vec<Finding>,
    recs: &mut Vec<Recommendation>,
) {
    let (Some(idle), Some(said)) = (launches.idle, &launches.said) else { return };
    // Each launch takes its idle and its run: removing the idle saves its share, at best.
    let gain = idle / (idle + k.mean_ns);
    let why =
        format!("{} idle before each {} dispatch, {} dispatches (measured)", micros(idle), micros(k.mean_ns), k.calls);
    recs.push(rec(Class::Launch, "Fuse it with the kernels around it", &why, gain));
    recs.push(rec(Class::Launch, "Make it a persistent kernel that loops over the work", &why, gain));
    let graph = match device.map(|d| d.gpu.vendor.as_str()) {
        Some("NVIDIA") => "Capture the launches in a CUDA graph",
        _ => "Capture the launches in a HIP graph",
    };
    recs.push(rec(Class::Launch, graph, &why, gain));
    findings.push(Finding { class: Class::Launch, evidence: vec![said.clone()] });
}

/// The roofline's verdict on the kernel's top point.
fn roofline(
    k: &Kernel,
    p: &Point,
    device: Option<&Device<'_>>,
    findings: &mut Vec<Finding>,
    recs: &mut Vec<Recommendation>,
) {
    let Some(l) = p.levels.iter().find(|l| Some(l.level) == p.bound_by) else {
        compute_bound(p, device, findings, recs);
        return;
    };
    let mut evidence = vec![format!(
        "{} {}: intensity {:.2} FLOP/B against {}, under its ridge {:.2}; {:.2} of {:.2} TFLOP/s attainable ({})",
        p.precision.name(),
        p.pipe.name(),
        l.intensity,
        l.level.name(),
        l.ridge,
        p.achieved_tflops,
        l.attainable_tflops,
        whole_percent(p.achieved_tflops / l.attainable_tflops.max(f64::MIN_POSITIVE))
    )];
    let reach = 1.0 - p.achieved_tflops / l.attainable_tflops.max(f64::MIN_POSITIVE);
    let raise = p.peak_tflops.map_or(0.0, |peak| 1.0 - p.achieved_tflops / peak);
    if l.level == Level::Lds {
        let class = match k.lds_conflicts {
            Some(c) => {
                evidence.push(format!("LDS bank conflicts: {} of active LDS cycles", whole_percent(c)));
                if c >= LDS_CONFLICTS { Class::Lds } else { Class::Memory }
            }
            None => {
                evidence.push("LDS bank conflicts not counted".to_owned());
                Class::Memory
            }
        };
        findings.push(Finding { class, evidence });
        return;
    }
    let cache = k.l2_hit.filter(|&h| h < LOW_L2_HIT && l.level == Level::Dram);
    if let Some(hit) = cache {
        evidence.push(format!("L2 hit rate {}", whole_percent(hit)));
        // Its DRAM bytes kept in the L2, the next roof binds: the lowest of the others.
        if let Some(roof) = roof_without(p, Level::Dram) {
            let why = format!(
                "L2 hits {}; without its DRAM traffic the next roof is {:.2} TFLOP/s",
                whole_percent(hit),
                roof
            );
            let gain = 1.0 - p.achieved_tflops / roof;
            recs.push(rec(Class::Cache, "Tile or block the loops so each tile's data stays in L2", &why, gain));
        }
        // Prefetching hides latency but moves the same bytes: at best it reaches the DRAM roof.
        let why = format!(
            "L2 hits {}; {} of the DRAM roof at intensity {:.2}",
            whole_percent(hit),
            whole_percent(1.0 - reach),
            l.intensity
        );
        recs.push(rec(Class::Cache, "Prefetch the next tile while computing on this one", &why, reach));
    }
    findings.push(Finding { class: if cache.is_some() { Class::Cache } else { Class::Memory }, evidence });
    // Fusion keeps bytes that go through DRAM on chip: only where DRAM's bytes were measured.
    if let Some(dram) = p.levels.iter().find(|d| d.level == Level::Dram) {
        // Its DRAM bytes kept on chip, the next roof binds: the other levels' and the peak.
        let next = roof_without(p, Level::Dram).unwrap_or(f64::INFINITY);
        let gain = (1.0 - p.achieved_tflops / next).min(raise.max(0.0));
        let next = if next.is_finite() { format!("{next:.2} TFLOP/s") } else { "its peak".to_owned() };
        let why = format!(
            "intensity {:.2} FLOP/B against DRAM (measured bytes), ridge {:.2}: without its DRAM bytes the next roof is \
             {next}",
            dram.intensity, dram.ridge
        );
        recs.push(rec(Class::Memory, "Fuse it with its producer or consumer to keep data on chip", &why, gain));
    }
}

/// The roof `p` would meet without `level`'s traffic: the lowest of the other levels' and the
/// peak; None where there is neither.
fn roof_without(p: &Point, level: Level) -> Option<f64> {
    let others = p.levels.iter().filter(|l| l.level != level).map(|l| l.attainable_tflops);
    others.chain(p.peak_tflops).min_by(f64::total_cmp).filter(|&r| r > 0.0)
}

fn compute_bound(p: &Point, device: Option<&Device<'_>>, findings: &mut Vec<Finding>, recs: &mut Vec<Recommendation>) {
    let mut evidence = vec![format!(
        "{} {}: compute-bound, {:.2} of {:.2} TFLOP/s{}",
        p.precision.name(),
        p.pipe.name(),
        p.achieved_tflops,
        p.peak_tflops.unwrap_or(f64::NAN),
        p.efficiency.map_or(String::new(), |e| format!(" ({})", whole_percent(e)))
    )];
    if let Some((gain, matrix, roof)) = matrix_gain(p, device) {
        evidence.push(format!("the matrix units run {} at {:.1} TFLOP/s", p.precision.name(), matrix));
        let why = format!(
            "{} runs on the vector units; on the matrix units its bytes allow {:.1} TFLOP/s (where its work is matrix \
             products)",
            p.precision.name(),
            roof
        );
        recs.push(rec(Class::Compute, "Use matrix cores (MFMA/WMMA intrinsics, or a library that does)", &why, gain));
    }
    // Under the peak, its issue goes to other instructions than its FLOPs, or to stalls: at best
    // cutting them reaches the peak. Fewer FLOPs (a cheaper algorithm) go further, by how much
    // nothing here measures.
    if let Some(e) = p.efficiency {
        let why = format!("{} of peak: the rest of its issue is other instructions and stalls", whole_percent(e));
        let action = "Issue FLOPs closer to the peak: fewer other instructions and stalls between them";
        recs.push(rec(Class::Compute, action, &why, 1.0 - e));
    }
    findings.push(Finding { class: Class::Compute, evidence });
}

/// A kernel whose FLOP counters are all zero: at intensity 0 its busiest memory level bounds it.
fn no_flops(k: &Kernel, z: &ZeroFlops, findings: &mut Vec<Finding>, recs: &mut Vec<Recommendation>) {
    let evidence = format!(
        "zero FLOPs measured (every FLOP counter collected), so intensity 0: {} bounds it, at {:.2} of {:.2} TB/s ({})",
        z.level.name(),
        z.achieved_tbps,
        z.bandwidth_tbps,
        whole_percent(z.efficiency)
    );
    findings.push(Finding { class: bandwidth_class(k, z.level), evidence: vec![evidence] });
    // All it does is move data: fused, its bytes need not leave the chip at all.
    if z.level == Level::Dram {
        // Fused, its DRAM bytes stay on chip; its other levels' bytes still take their time.
        let rest = k.levels.iter().filter(|l| l.0 != Level::Dram).map(|l| l.1).fold(0.0f64, f64::max).min(1.0);
        let why = format!(
            "it only moves data (zero FLOPs, measured DRAM bytes): fused, those bytes can stay on chip; its other \
             levels' bytes would still take {} of its time",
            whole_percent(rest)
        );
        recs.push(rec(Class::Memory, "Fuse it with its producer or consumer to keep data on chip", &why, 1.0 - rest));
    }
}

/// MEMORY, or LDS where LDS binds and its bank conflicts matter.
fn bandwidth_class(k: &Kernel, level: Level) -> Class {
    if level == Level::Lds && k.lds_conflicts.is_some_and(|c| c >= LDS_CONFLICTS) { Class::Lds } else { Class::Memory }
}

pub(super) fn rec(class: Class, action: &str, why: &str, gain: f64) -> Recommendation {
    Recommendation { class, action: action.to_owned(), why: why.to_owned(), expected_gain: gain.clamp(0.0, 0.99) }
}

/// Where `p` runs on the vector units a precision the device's matrix units run faster: the
/// gain bound (`1 - achieved / the matrix roof at its intensities`), the matrix peak and that
/// roof.
fn matrix_gain(p: &Point, device: Option<&Device<'_>>) -> Option<(f64, f64, f64)> {
    if p.pipe != Pipe::Vector {
        return None;
    }
    let device = device?;
    let matrix = device.peak(p.precision, Pipe::Matrix)?;
    let vector = roofline::counted_peak(device, p.precision, Pipe::Vector)?;
    if matrix <= vector * 1.2 {
        return None;
    }
    let roof = p.levels.iter().map(|l| l.intensity * l.bandwidth_tbps).fold(matrix, f64::min);
    Some((1.0 - p.achieved_tflops / roof, matrix, roof))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::occupancy::{Limiter, Unit};
    use crate::analyze::roofline::{Work, position};
    use crate::analyze::specs::{Agent, Database, Precision};

    fn mi300x() -> Device<'static> {
        Device::new(Database::builtin().unwrap().get("mi300x").unwrap(), &Agent::default())
    }

    /// Its GPU idle `ns` before each of 99 of its 100 dispatches.
    fn idle(ns: f64) -> Idle {
        Idle::Measured { median_ns: ns, gaps: 99, counted: false }
    }

    /// A kernel of `ms` milliseconds doing `flops` of `precision` on `pipe` and moving
    /// `bytes` at each level given.
    fn kernel(ms: f64, precision: Precision, pipe: Pipe, flops: f64, bytes: &[(Level, f64)]) -> Kernel {
        let mut w = Work::default();
        w.ops.insert((precision, pipe), flops);
        w.bytes.extend(bytes.iter().copied());
        Kernel {
            name: "k".into(),
            calls: 100,
            mean_ns: ms * 1e6,
            points: position(&w, ms / 1e3, &mi300x()),
            ..Kernel::default()
        }
    }

    /// 1 ms at 4 TB/s of HBM: memory-bound near its roof. Fusion rests on its measured DRAM
    /// bytes; vectorizing and coalescing would need measured sectors per request, which no
    /// counter here gives, so they are not offered.
    #[test]
    fn a_streaming_kernel_is_memory_bound() {
        let k = kernel(1.0, Precision::Fp32, Pipe::Vector, 1e9, &[(Level::Dram, 4e9)]);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Memory, "{d:#?}");
        assert_eq!(d.kernel_class, Class::Memory);
        assert!(d.evidence[0].contains("against dram"));
        assert_eq!(d.recommendations[0].action, "Fuse it with its producer or consumer to keep data on chip");
        assert!(d.recommendations[0].why.contains("measured bytes"), "{:?}", d.recommendations[0]);
        assert!(
            !d.recommendations.iter().any(|r| r.action.starts_with("Vectorize") || r.action.starts_with("Coalesce"))
        );
    }

    #[test]
    fn a_memory_bound_kernel_that_misses_in_l2_is_cache_bound() {
        let mut k = kernel(1.0, Precision::Fp32, Pipe::Vector, 1e9, &[(Level::Dram, 4e9)]);
        k.l2_hit = Some(0.2);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Cache);
        // Its only bytes are DRAM's: kept in the L2, the FP32 peak is the next roof.
        let tile = d.recommendations.iter().find(|r| r.action.starts_with("Tile")).unwrap();
        assert!((tile.expected_gain - (1.0 - 1.0 / 81.72)).abs() < 1e-3, "{tile:?}");
    }

    /// FP16 on the VALU at 60 TFLOP/s: compute-bound, and the matrix cores run FP16 16×
    /// faster; its few bytes would let it reach their peak.
    #[test]
    fn valu_fp16_near_peak_is_compute_bound_and_wants_matrix_cores() {
        let k = kernel(1.0, Precision::Fp16, Pipe::Vector, 60e9, &[(Level::Dram, 1e6)]);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Compute, "{d:#?}");
        let top = &d.recommendations[0];
        assert!(top.action.starts_with("Use matrix cores"), "{top:?}");
        assert!((top.expected_gain - (1.0 - 60.0 / 1307.44)).abs() < 1e-3, "{top:?}");
        let cut = d.recommendations.iter().find(|r| r.action.starts_with("Issue FLOPs")).unwrap();
        assert!((cut.expected_gain - (1.0 - 60.0 / 81.72)).abs() < 1e-3, "{cut:?}");
    }

    /// Where its bytes bound it on the matrix units, the matrix cores promise that roof, not
    /// their peak: 60 TFLOP/s at 100 FLOP/B against 5.3 TB/s of HBM is a roof of 530.
    #[test]
    fn the_matrix_core_gain_stops_at_the_memory_roof() {
        let k = kernel(1.0, Precision::Fp16, Pipe::Vector, 60e9, &[(Level::Dram, 0.6e9)]);
        let d = diagnose(&k, Some(&mi300x()));
        let matrix = d.recommendations.iter().find(|r| r.action.starts_with("Use matrix cores")).unwrap();
        assert!((matrix.expected_gain - (1.0 - 60.0 / 530.0)).abs() < 1e-3, "{matrix:?}");
    }

    /// A 3 µs kernel whose GPU sat idle 6 µs before each dispatch, far under its roof.
    #[test]
    fn a_kernel_whose_gpu_waits_on_the_host_is_launch_bound() {
        let mut k = kernel(0.003, Precision::Fp32, Pipe::Vector, 1e6, &[(Level::Dram, 1e6)]);
        k.idle = idle(6_000.0);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Launch);
        assert!(d.evidence[0].contains("idles a median 6.0 µs before each 3.0 µs dispatch"), "{:?}", d.evidence);
        assert!(d.recommendations[0].action.starts_with("Fuse it with the kernels"), "{d:#?}");
        // 6 µs idle on a 3 µs dispatch: 6/9 at best.
        assert!((d.recommendations[0].expected_gain - 6.0 / 9.0).abs() < 1e-9);
    }

    /// Issue 22: cuDNN convolutions of 13 µs back to back on an H100, no counters. Short, but
    /// nothing waits: UNKNOWN, with what to collect and the idle that ruled launches out.
    #[test]
    fn a_short_kernel_back_to_back_without_counters_is_unknown() {
        let k = Kernel { name: "conv".into(), calls: 100, mean_ns: 13_000.0, idle: idle(0.0), ..Kernel::default() };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Unknown, "{d:#?}");
        assert!(d.evidence[0].contains("--preset roofline"), "{:?}", d.evidence);
        assert!(d.evidence[1].starts_with("not launch-bound: its GPU idles a median 0.0 µs"), "{:?}", d.evidence);
        assert!(d.also.is_empty() && d.recommendations.is_empty(), "{d:#?}");
    }

    /// A 2 µs kernel launched in a loop that synchronizes each time: its GPU waits 8 µs on the
    /// host before each dispatch, so LAUNCH without counters, and removing the wait saves 8/10.
    #[test]
    fn a_tiny_kernel_in_a_synchronizing_loop_is_launch_bound() {
        let k = Kernel { name: "tiny".into(), calls: 100, mean_ns: 2_000.0, idle: idle(8_000.0), ..Kernel::default() };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Launch, "{d:#?}");
        assert_eq!(d.kernel_class, Class::Unknown, "its work alone is not measured");
        assert_eq!(
            d.evidence[0],
            "its GPU idles a median 8.0 µs before each 2.0 µs dispatch (99 of 100 dispatches follow another on its \
             queue): 80% of each launch waits on the host"
        );
        assert_eq!(d.recommendations.len(), 3, "{d:#?}");
        for r in &d.recommendations {
            assert!((r.expected_gain - 8.0 / (8.0 + 2.0)).abs() < 1e-9, "{r:?}");
        }
        assert_eq!(d.recommendations[2].action, "Capture the launches in a HIP graph");
        let h100 = Device::new(Database::builtin().unwrap().get("h100_sxm5").unwrap(), &Agent::default());
        let d = diagnose(&k, Some(&h100));
        assert_eq!(d.recommendations[2].action, "Capture the launches in a CUDA graph");
    }

    /// One gap is no pattern of launches: a kernel run once after a pause of the host is not
    /// launch-bound, and where idle time was not measured the evidence says why.
    #[test]
    fn launches_are_not_judged_without_a_pattern_of_gaps() {
        let once = Idle::Measured { median_ns: 50_000.0, gaps: 1, counted: false };
        let k = Kernel { name: "once".into(), calls: 1, mean_ns: 1_000.0, idle: once, ..Kernel::default() };
        let d = diagnose(&k, None);
        assert_eq!(d.class, Class::Unknown, "{d:#?}");
        assert!(d.evidence.iter().any(|e| e.starts_with("launches not judged from 1 gap")), "{:?}", d.evidence);
        let k = Kernel { idle: Idle::Unmeasured("its rows have no timestamps"), ..k };
        let d = diagnose(&k, None);
        assert_eq!(d.class, Class::Unknown, "{d:#?}");
        let said = "launches not judged: its idle time is not measured (its rows have no timestamps)";
        assert!(d.evidence.iter().any(|e| e == said), "{:?}", d.evidence);
    }

    /// Counting serializes dispatches: the gaps of a run that counted are partly the profiler's,
    /// so they decide nothing, and the evidence says where to take times from.
    #[test]
    fn the_gaps_of_a_counting_run_do_not_judge_launches() {
        let counted = Idle::Measured { median_ns: 8_000.0, gaps: 99, counted: true };
        let k = Kernel { name: "tiny".into(), calls: 100, mean_ns: 2_000.0, idle: counted, ..Kernel::default() };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Unknown, "{d:#?}");
        assert!(d.evidence.iter().any(|e| e.contains("collected counters") && e.contains("--timings")), "{d:#?}");
        assert!(d.recommendations.is_empty());
    }

    #[test]
    fn lds_bank_conflicts_on_an_lds_bound_kernel_make_it_lds_bound() {
        let mut k = kernel(1.0, Precision::Fp32, Pipe::Vector, 10e9, &[(Level::Dram, 1e6), (Level::Lds, 70e9)]);
        k.lds_conflicts = Some(0.3);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Lds, "{d:#?}");
        assert!(d.recommendations.iter().any(|r| r.action.starts_with("Pad LDS")));
    }

    /// LDS bank conflicts where the LDS does not bind: a finding beside the roof's class, never
    /// the class.
    #[test]
    fn lds_bank_conflicts_alone_do_not_make_a_kernel_lds_bound() {
        let mut k = kernel(1.0, Precision::Fp32, Pipe::Vector, 1e9, &[(Level::Dram, 4e9)]);
        k.lds_conflicts = Some(0.3);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Memory, "{d:#?}");
        assert!(d.also.iter().any(|f| f.class == Class::Lds));
        let pad = d.recommendations.iter().find(|r| r.action.starts_with("Pad LDS")).unwrap();
        assert!((pad.expected_gain - 0.3).abs() < 1e-9, "no LDS bytes measured: the conflicts' share alone");
        // With the LDS busy a fifth of the time, removing 30% of its cycles saves 6% at most.
        k.levels.push((Level::Lds, 0.2));
        let d = diagnose(&k, Some(&mi300x()));
        let pad = d.recommendations.iter().find(|r| r.action.starts_with("Pad LDS")).unwrap();
        assert!((pad.expected_gain - 0.06).abs() < 1e-9, "{pad:?}");
        assert!(pad.why.contains("LDS busy 20% of the time"), "{pad:?}");
        // AMD's LDS bytes leave the conflict cycles out: busy 0.2 / 0.7 of the time.
        k.lds_bytes_without_conflicts = true;
        let d = diagnose(&k, Some(&mi300x()));
        let pad = d.recommendations.iter().find(|r| r.action.starts_with("Pad LDS")).unwrap();
        assert!((pad.expected_gain - 0.3 * 0.2 / 0.7).abs() < 1e-9, "{pad:?}");
        let k = Kernel { mean_ns: 1e6, lds_conflicts: Some(0.3), ..Kernel::default() };
        assert_eq!(diagnose(&k, Some(&mi300x())).class, Class::Unknown);
    }

    fn one_wave() -> Option<Occupancy> {
        Some(Occupancy {
            waves_per_simd: 1,
            max_waves_per_simd: 8,
            unit: Unit::WavesPerSimd,
            waves: None,
            limiter: Limiter::Vgpr,
            next: Some((2, 256)),
        })
    }

    /// 1 TFLOP/s at 5 FLOP/B: 4% of its 26.5 TFLOP/s roof, with one wave of eight per SIMD
    /// that its VGPRs set. No PC samples: the occupancy decides, and the evidence says what
    /// would tell. More waves save at best the way to the roof.
    #[test]
    fn low_occupancy_far_below_every_roof_is_occupancy() {
        let mut k = kernel(1.0, Precision::Fp32, Pipe::Vector, 1e9, &[(Level::Dram, 0.2e9)]);
        k.occupancy = one_wave();
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Occupancy, "{d:#?}");
        assert!(d.evidence[0].starts_with("under 60% of every roof it has"), "{:?}", d.evidence);
        assert!(d.evidence.iter().any(|e| e.starts_with("no PC samples")), "{:?}", d.evidence);
        let vgprs = d.recommendations.iter().find(|r| r.action == "Use fewer VGPRs: 2 waves per SIMD need at most 256");
        assert!(vgprs.is_some_and(|r| (r.expected_gain - (1.0 - 1.0 / 26.5)).abs() < 1e-3), "{d:#?}");
        assert_eq!(d.also[0].class, Class::Memory);
    }

    /// Low occupancy without a roofline is no evidence of latency: high-performance kernels run
    /// at one or two waves per SIMD.
    #[test]
    fn low_occupancy_alone_decides_nothing() {
        let k = Kernel { calls: 10, mean_ns: 1e6, occupancy: one_wave(), idle: idle(0.0), ..Kernel::default() };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Unknown, "{d:#?}");
        assert!(d.recommendations.is_empty(), "{d:#?}");
    }

    /// Bytes and time without FLOPs: 71 % of HBM decides it. Nothing measured says what would
    /// help (no FLOPs for fusion's roof, no sectors per request for coalescing), so nothing is
    /// offered.
    #[test]
    fn bandwidth_alone_makes_a_kernel_memory_bound() {
        let k = Kernel {
            name: "laplacian".into(),
            calls: 1001,
            mean_ns: 2.6e6,
            levels: vec![(Level::Dram, 0.71)],
            ..Kernel::default()
        };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Memory);
        assert!(d.evidence[0].contains("dram at 71% of its peak bandwidth"));
        assert!(d.recommendations.is_empty(), "{d:#?}");
    }

    /// The real MI300X copy (tests/fixtures/analysis-real, vcopy-MI300X_A1_rocpd, first dispatch):
    /// zero FLOPs, 16,791,360 bytes of HBM in 8,653 ns, 37% of the 5.3 TB/s roof. Were its GPU
    /// idle 20 µs before each dispatch, LAUNCH: it is near no roof, and its GPU waits on the
    /// host; by its work alone, LATENCY (no samples to say more), with MEMORY beside.
    #[test]
    fn a_short_copy_with_zero_flops_far_from_the_hbm_roof_waits_on_the_host() {
        let mut w = Work { flops_counted: true, ..Work::default() };
        w.ops.insert((Precision::Fp64, Pipe::Vector), 0.0);
        w.ops.insert((Precision::Fp16, Pipe::Matrix), 0.0);
        w.bytes.insert(Level::Dram, 16_791_360.0);
        w.bytes.insert(Level::L2, 16_777_216.0);
        let k = Kernel {
            name: "vecCopy".into(),
            calls: 3,
            mean_ns: 8_653.0,
            zero_flops: roofline::zero_flops(&w, 8_653e-9, &mi300x()),
            idle: Idle::Measured { median_ns: 20_000.0, gaps: 2, counted: false },
            ..Kernel::default()
        };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Launch, "{d:#?}");
        assert_eq!(d.kernel_class, Class::Latency, "{d:#?}");
        assert!(d.evidence[0].contains("waits on the host"), "{:?}", d.evidence);
        let share = 16_791_360.0 / 8_653.0 / 5.3e3;
        let memory = d.also.iter().find(|f| f.class == Class::Memory).unwrap();
        assert!(memory.evidence[0].contains("zero FLOPs") && memory.evidence[0].contains(&whole_percent(share)));
        assert_eq!(d.recommendations[0].class, Class::Launch);
    }

    /// Zero FLOPs far below every memory roof: it reaches none, so it waits.
    #[test]
    fn a_zero_flop_kernel_far_below_the_memory_roofs_waits() {
        let mut w = Work { flops_counted: true, ..Work::default() };
        w.ops.insert((Precision::Fp32, Pipe::Vector), 0.0);
        w.bytes.insert(Level::Dram, 1e6);
        let k = Kernel { mean_ns: 5e3, zero_flops: roofline::zero_flops(&w, 5e-6, &mi300x()), ..Kernel::default() };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Latency, "{d:#?}");
        assert_eq!(d.also[0].class, Class::Memory);
    }

    /// FLOPs not collected (only bytes): the zero-FLOP rule does not apply, and a short kernel
    /// under the bandwidth line is UNKNOWN, not LATENCY by its duration; with its GPU waiting
    /// on the host before each dispatch it is LAUNCH.
    #[test]
    fn uncollected_flops_are_not_zero_flops() {
        let mut w = Work::default();
        w.bytes.insert(Level::Dram, 16_791_360.0);
        assert!(roofline::zero_flops(&w, 8_653e-9, &mi300x()).is_none());
        let k = Kernel { calls: 3, mean_ns: 8_653.0, levels: vec![(Level::Dram, 0.37)], ..Kernel::default() };
        assert_eq!(diagnose(&k, Some(&mi300x())).class, Class::Unknown);
        let k = Kernel { idle: idle(10_000.0), ..k };
        assert_eq!(diagnose(&k, Some(&mi300x())).class, Class::Launch);
    }

    /// A short kernel with FLOPs that reaches its memory roof is MEMORY, even with its GPU idle
    /// before each dispatch.
    #[test]
    fn a_short_kernel_at_its_roof_is_in_the_roofs_class() {
        // 8 µs, intensity 0.25 against HBM: 1.325 TFLOP/s attainable, 0.8 achieved (60%).
        let mut k = kernel(0.008, Precision::Fp32, Pipe::Vector, 6.4e6, &[(Level::Dram, 25.6e6)]);
        k.idle = idle(10_000.0);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Memory, "{d:#?}");
        assert!(d.also.iter().any(|f| f.class == Class::Launch));
    }

    /// ncu's Triton batch-norm kernel on an H200: 10% of its FP32 roof and 38% of DRAM, but its
    /// schedulers issue in 74% of their cycles, 21% of them FP instructions: ISSUE, by the
    /// issue-slot roof, and cutting the other instructions saves 79% at most.
    #[test]
    fn a_kernel_nearest_its_issue_slots_is_issue_bound() {
        let mut k = kernel(1.0, Precision::Fp32, Pipe::Vector, 8e9, &[(Level::Dram, 2e9)]);
        k.issue = Some(Issue { share: 0.74, arithmetic: Some(0.21) });
        k.levels = vec![(Level::Dram, 2.0 / 5.3)];
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Issue, "{d:#?}");
        assert!(
            d.evidence[0].starts_with("its schedulers issue an instruction in 74% of their cycles"),
            "{:?}",
            d.evidence
        );
        // At most 79%, the non-FP instructions; and no further than its next roof.
        let cut = &d.recommendations[0];
        let next = k.points[0].efficiency.unwrap();
        assert!(cut.action.starts_with("Cut instructions per result"), "{cut:?}");
        assert!((cut.expected_gain - 0.79f64.min(1.0 - next)).abs() < 1e-9, "{cut:?}");
        // A memory level busier than the issue slots binds instead.
        k.levels = vec![(Level::L2, 0.8)];
        assert_eq!(diagnose(&k, Some(&mi300x())).class, Class::Memory);
    }

    /// A level's bandwidth past its peak is as inconsistent as FLOPs past theirs.
    #[test]
    fn a_bandwidth_above_its_roof_says_so() {
        let k = Kernel { calls: 10, mean_ns: 1e6, levels: vec![(Level::Dram, 1.2)], ..Kernel::default() };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Memory, "{d:#?}");
        assert!(d.evidence.iter().any(|e| e.starts_with("at 120% of its roof, above it")), "{:?}", d.evidence);
    }

    #[test]
    fn a_kernel_above_its_roof_says_so() {
        // 100 TFLOP/s of FP64 on the vector units: above MI300X's 81.7.
        let k = kernel(1.0, Precision::Fp64, Pipe::Vector, 100e9, &[(Level::Dram, 1e6)]);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Compute);
        assert!(d.evidence.iter().any(|e| e.contains("above it")), "{:?}", d.evidence);
    }

    #[test]
    fn without_counters_a_long_kernel_is_unknown_and_says_what_to_collect() {
        let k = Kernel { name: "k".into(), calls: 1, mean_ns: 5e6, ..Kernel::default() };
        let d = diagnose(&k, None);
        assert_eq!(d.class, Class::Unknown);
        assert!(d.evidence[0].contains("--preset roofline"));
        assert!(d.evidence[1].starts_with("no device: its agent matches no GPU"), "{:?}", d.evidence);
    }

    /// The real MI300X counters whose timestamps were lost (tests/fixtures/analysis-real,
    /// vcopy-MI300X_A1): 31 counters, every one the roofline needs but FP8 MFMA, no time.
    #[test]
    fn unknown_with_counters_but_no_time_says_so() {
        let inputs = Inputs {
            counters: 31,
            measured: true,
            missing: vec!["fp8 MFMA FLOPs: SQ_INSTS_VALU_MFMA_MOPS_F8 missing".into()],
            agent: "agent 2".into(),
            estimates: false,
            timings_unmatched: false,
        };
        let k = Kernel { name: "vecCopy".into(), calls: 3, inputs, ..Kernel::default() };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Unknown);
        assert_eq!(d.evidence.len(), 1, "{:?}", d.evidence);
        assert!(d.evidence[0].starts_with("no dispatch time") && d.evidence[0].contains("--timings"));
        let d = diagnose(&k, None);
        assert!(d.evidence[1].starts_with("no device: agent 2 matches no GPU"), "{:?}", d.evidence);
    }

    /// Counters, time and a device, but only bytes, under the bandwidth line.
    #[test]
    fn unknown_with_bytes_alone_says_how_far_from_deciding() {
        let inputs = Inputs {
            counters: 4,
            measured: true,
            missing: vec!["fp32 VALU FLOPs: SQ_INSTS_VALU_ADD_F32, ... missing".into()],
            ..Inputs::default()
        };
        let k = Kernel { mean_ns: 1e6, levels: vec![(Level::Dram, 0.4)], inputs, ..Kernel::default() };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Unknown);
        assert_eq!(
            d.evidence[0],
            "no fp32 VALU FLOPs, and its busiest level, dram, at 40% of its bandwidth, is under the 60% that decides \
             by bytes alone"
        );
    }
}
