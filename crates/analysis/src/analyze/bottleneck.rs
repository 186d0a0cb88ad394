//! What limits a kernel, with the evidence that decided it, and what to do about it.
//!
//! The classes and their remedies are the kernel-optimisation guide's table: MEMORY (vectorization, coalescing,
//! fusion), COMPUTE (matrix cores, algorithm), LATENCY (kernel fusion, persistent kernels,
//! graphs), LDS (padding, layout), CACHE (tiling, blocking, prefetching), plus the occupancy
//! limits the code object's registers and LDS set. A kernel is put in the class of the roof
//! that binds it on the roofline, refined by what the counters say about why; every other
//! class whose evidence holds is listed too.
//!
//! Recommendations come in order: the primary class's first, then the rest, each by expected
//! gain. Each carries an expected gain: the share of the kernel's time it could save
//! at best, read off the roofline. Reaching the roof that binds at the kernel's intensity saves
//! `1 - achieved/attainable`; raising the intensity to the ridge (fusion, tiling, reuse) can
//! save up to `1 - achieved/peak`; moving work from the vector units to the matrix units can
//! save up to `1 - vector peak/matrix peak`. They are bounds, not predictions.

use serde::Serialize;

use super::occupancy::{Limiter, Occupancy};
use super::roofline::{self, Point, ZeroFlops};
use super::specs::{Device, Level, Pipe, Precision};

/// A dispatch shorter than this is dominated by launch overhead (a few µs on ROCm).
pub const LAUNCH_BOUND_NS: f64 = 10_000.0;
/// Idle time before dispatches, as a share of their run time, from which launches are the
/// bottleneck.
pub const IDLE_SHARE: f64 = 0.5;
/// Occupancy below this share of the maximum leaves too few waves to hide memory latency.
pub const LOW_OCCUPANCY: f64 = 0.25;
/// Below this efficiency against the binding roof, the kernel reaches no roof: it waits.
pub const NO_ROOF: f64 = 0.2;
/// Above this share of its roof a kernel's numbers are inconsistent (a wrong device, a lower
/// real clock, counters of another run): said in the evidence, never hidden.
pub const ABOVE_ROOF: f64 = 1.05;
/// A kernel moving bytes at this share of a level's peak bandwidth is bound by it, whatever
/// its FLOPs.
pub const BANDWIDTH_BOUND: f64 = 0.6;
/// LDS bank-conflict cycles per active LDS cycle from which conflicts matter.
pub const LDS_CONFLICTS: f64 = 0.1;
/// L2 hit rates below this, on a memory-bound kernel, mean the working set thrashes the cache.
pub const LOW_L2_HIT: f64 = 0.5;

/// The bottleneck classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Class {
    Memory,
    Compute,
    Latency,
    Lds,
    Cache,
    /// Nothing decides it: no counters and no estimates, and not launch-bound.
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
            Class::Unknown => "UNKNOWN",
        }
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
    /// Median time its queue sat idle before each of its dispatches, ns.
    pub idle_ns: Option<f64>,
    pub occupancy: Option<Occupancy>,
    /// From [`roofline::position`], largest first.
    pub points: Vec<Point>,
    /// `SQ_LDS_BANK_CONFLICT / SQ_LDS_IDX_ACTIVE`.
    pub lds_conflicts: Option<f64>,
    /// `TCC_HIT / (TCC_HIT + TCC_MISS)`.
    pub l2_hit: Option<f64>,
    /// The level whose bandwidth the kernel uses most, and the share of its peak: what decides
    /// a kernel whose bytes are counted but not its FLOPs.
    pub busiest: Option<(Level, f64)>,
    /// Where FLOP counters were all collected and all zero: the memory level that bounds it.
    pub zero_flops: Option<ZeroFlops>,
    /// What its rows held, for saying what an UNKNOWN verdict lacks.
    pub inputs: Inputs,
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
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub class: Class,
    pub evidence: Vec<String>,
}

/// One thing to try.
#[derive(Debug, Clone, Serialize)]
pub struct Recommendation {
    pub class: Class,
    pub action: String,
    pub why: String,
    /// The share of the kernel's time it could save, at best (0 to 1).
    pub expected_gain: f64,
}

/// A kernel's class, the other classes that apply, and what to try, best first.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnosis {
    pub class: Class,
    pub evidence: Vec<String>,
    pub also: Vec<Finding>,
    pub recommendations: Vec<Recommendation>,
}

fn pct(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

fn us(ns: f64) -> String {
    format!("{:.1} µs", ns / 1000.0)
}

/// Classifies `k`; `device` gives the matrix peaks for the matrix-core recommendation.
pub fn diagnose(k: &Kernel, device: Option<&Device<'_>>) -> Diagnosis {
    let mut findings: Vec<Finding> = Vec::new();
    let mut recs: Vec<Recommendation> = Vec::new();
    let top = k.points.first();
    // Against the roof that binds: the top point's, or for a kernel that did no FLOPs, its
    // busiest memory level's.
    let efficiency = top.and_then(|p| p.efficiency).or(k.zero_flops.as_ref().map(|z| z.efficiency));
    let launches = latency(k, device, efficiency, &mut findings, &mut recs);
    let above = efficiency.filter(|&e| e > ABOVE_ROOF).map(|e| {
        format!("at {} of its roof, above it: the counters, the clock or the device named do not match the run", pct(e))
    });

    // The roofline: MEMORY, CACHE, LDS or COMPUTE by the roof that binds.
    if let Some(p) = top {
        roofline(k, p, device, &mut findings, &mut recs);
    } else if let Some(z) = &k.zero_flops {
        no_flops(k, z, &mut findings, &mut recs);
    } else if let Some((level, share)) = k.busiest.filter(|&(_, share)| share >= BANDWIDTH_BOUND) {
        let why = format!("{} at {} of its peak bandwidth (no FLOP counters)", level.name(), pct(share));
        findings.push(Finding { class: bandwidth_class(k, level), evidence: vec![why.clone()] });
        bandwidth_recs(&why, share, &mut recs);
    }
    if let Some(c) = k.lds_conflicts.filter(|&c| c >= LDS_CONFLICTS) {
        let binding = top.is_some_and(|p| p.bound_by == Some(Level::Lds));
        let gain = if binding { c } else { c * 0.5 };
        let why = format!("{} of active LDS cycles are bank conflicts", pct(c));
        recs.push(rec(Class::Lds, "Pad LDS arrays (one extra element per row)", &why, gain));
        recs.push(rec(Class::Lds, "Change the LDS layout (swizzle) so lanes hit distinct banks", &why, gain));
        if !findings.iter().any(|f| f.class == Class::Lds) {
            findings.push(Finding { class: Class::Lds, evidence: vec![why] });
        }
    }

    let primary = primary(&findings, launches, efficiency);
    let (mut main, also): (Vec<Finding>, Vec<Finding>) = findings.into_iter().partition(|f| f.class == primary);
    let mut evidence = match main.pop() {
        Some(f) => f.evidence,
        None => unknown(k, device),
    };
    evidence.extend(above);
    recs.retain(|r| r.expected_gain > 0.005);
    // The primary class's remedies first, each group by expected gain.
    recs.sort_by(|a, b| {
        (a.class != primary).cmp(&(b.class != primary)).then(b.expected_gain.total_cmp(&a.expected_gain))
    });
    Diagnosis { class: primary, evidence, also, recommendations: recs }
}

/// The primary class. A kernel that reaches the roof binding it (`NO_ROOF` of it or more) is in
/// that roof's class even when its dispatches are short or its queue idles between them: its
/// time is its work's, and launches come second. Launches decide the others, then a kernel
/// that reaches no roof waits on latency, then the roofline's verdict.
fn primary(findings: &[Finding], launches: bool, efficiency: Option<f64>) -> Class {
    let latency = findings.iter().any(|f| f.class == Class::Latency);
    let reaches_roof = efficiency.is_some_and(|e| e >= NO_ROOF);
    let waits = efficiency.is_some_and(|e| e < NO_ROOF) && latency;
    if launches && !reaches_roof || waits {
        Class::Latency
    } else if let Some(f) = findings.iter().find(|f| f.class != Class::Latency) {
        f.class
    } else if latency {
        Class::Latency
    } else {
        Class::Unknown
    }
}

/// Why nothing decides `k`: each thing it lacks, what it has otherwise.
fn unknown(k: &Kernel, device: Option<&Device<'_>>) -> Vec<String> {
    let inputs = &k.inputs;
    let mut lacks = Vec::new();
    if inputs.estimates {
        if k.points.is_empty() && k.busiest.is_none() {
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
    match k.busiest {
        Some((level, share)) => format!(
            "{flops}, and its busiest level, {}, at {} of its bandwidth, is under the {} that decides by bytes alone",
            level.name(),
            pct(share),
            pct(BANDWIDTH_BOUND)
        ),
        None => format!("{flops}, and no level with both bytes and a bandwidth"),
    }
}

/// LATENCY's evidence and remedies: launches, idle queues, too few waves, no roof reached.
/// Whether launches (short dispatches or an idle queue) are among them.
fn latency(
    k: &Kernel,
    device: Option<&Device<'_>>,
    efficiency: Option<f64>,
    findings: &mut Vec<Finding>,
    recs: &mut Vec<Recommendation>,
) -> bool {
    let mut latency = Vec::new();
    let launch_bound = k.mean_ns > 0.0 && k.mean_ns < LAUNCH_BOUND_NS;
    if launch_bound {
        latency.push(format!("{} per dispatch, under the {} launch-bound line", us(k.mean_ns), us(LAUNCH_BOUND_NS)));
    }
    let idle = k.idle_ns.filter(|&idle| k.mean_ns > 0.0 && idle >= IDLE_SHARE * k.mean_ns);
    if let Some(idle) = idle {
        latency.push(format!("its queue idles a median {} before each {} dispatch", us(idle), us(k.mean_ns)));
    }
    if launch_bound || idle.is_some() {
        let idle = idle.unwrap_or(0.0).max(LAUNCH_BOUND_NS - k.mean_ns).max(0.0);
        let gain = idle / (idle + k.mean_ns);
        let why = format!("{} dispatches of {} each", k.calls, us(k.mean_ns));
        recs.push(rec(Class::Latency, "Fuse it with the kernels around it", &why, gain));
        recs.push(rec(Class::Latency, "Make it a persistent kernel that loops over the work", &why, gain));
        let graph = match device.map(|d| d.gpu.vendor.as_str()) {
            Some("NVIDIA") => "Capture the launches in a CUDA graph",
            _ => "Capture the launches in a HIP graph",
        };
        recs.push(rec(Class::Latency, graph, &why, gain * 0.5));
    }
    if let Some(o) = &k.occupancy
        && o.share() < LOW_OCCUPANCY
    {
        latency.push(format!(
            "{} of {} waves per SIMD, limited by {}",
            o.waves_per_simd,
            o.max_waves_per_simd,
            o.limiter.name()
        ));
        let gain = efficiency.map_or(1.0 - o.share(), |e| (1.0 - e).min(1.0 - o.share()));
        recs.push(occupancy_rec(o, gain));
    }
    if let Some(e) = efficiency.filter(|&e| e < NO_ROOF) {
        latency.push(format!("{} of the roof that binds it: it waits on latency, not throughput", pct(e)));
    }
    if !latency.is_empty() {
        findings.push(Finding { class: Class::Latency, evidence: latency });
    }
    launch_bound || idle.is_some()
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
        "{} {}: intensity {:.2} FLOP/B against {}, under its ridge {:.2}; {:.2} of {:.2} TFLOP/s attainable",
        p.precision.name(),
        p.pipe.name(),
        l.intensity,
        l.level.name(),
        l.ridge,
        p.achieved_tflops,
        l.attainable_tflops
    )];
    let reach = 1.0 - p.achieved_tflops / l.attainable_tflops.max(f64::MIN_POSITIVE);
    let raise = p.peak_tflops.map_or(0.0, |peak| 1.0 - p.achieved_tflops / peak);
    if l.level == Level::Lds {
        let conflicts = k.lds_conflicts.unwrap_or(0.0);
        evidence.push(format!("LDS bank conflicts: {} of active LDS cycles", pct(conflicts)));
        let class = if conflicts >= LDS_CONFLICTS { Class::Lds } else { Class::Memory };
        findings.push(Finding { class, evidence });
        return;
    }
    let cache = k.l2_hit.filter(|&h| h < LOW_L2_HIT && l.level == Level::Dram);
    if let Some(hit) = cache {
        evidence.push(format!("L2 hit rate {}", pct(hit)));
        let why = format!("L2 hits {}; intensity {:.2} against DRAM", pct(hit), l.intensity);
        let gain = raise.min(1.0 - hit);
        recs.push(rec(Class::Cache, "Tile or block the loops so each tile's data stays in L2", &why, gain));
        recs.push(rec(Class::Cache, "Prefetch the next tile while computing on this one", &why, gain * 0.5));
    }
    findings.push(Finding { class: if cache.is_some() { Class::Cache } else { Class::Memory }, evidence });
    let why = format!("{} of the {} roof at intensity {:.2}", pct(1.0 - reach), l.level.name(), l.intensity);
    recs.push(rec(Class::Memory, "Vectorize loads and stores (16 bytes per lane)", &why, reach));
    recs.push(rec(Class::Memory, "Coalesce accesses: neighbouring lanes, neighbouring addresses", &why, reach));
    let why = format!("intensity {:.2}, ridge {:.2}: fewer bytes per FLOP raise the roof", l.intensity, l.ridge);
    recs.push(rec(Class::Memory, "Fuse it with its producer or consumer to keep data on chip", &why, raise));
}

fn compute_bound(p: &Point, device: Option<&Device<'_>>, findings: &mut Vec<Finding>, recs: &mut Vec<Recommendation>) {
    let mut evidence = vec![format!(
        "{} {}: compute-bound, {:.2} of {:.2} TFLOP/s",
        p.precision.name(),
        p.pipe.name(),
        p.achieved_tflops,
        p.peak_tflops.unwrap_or(f64::NAN)
    )];
    if let Some((gain, matrix)) = matrix_gain(p, device) {
        evidence.push(format!("the matrix units run {} at {:.1} TFLOP/s", p.precision.name(), matrix));
        let why = format!("{} runs on the vector units", p.precision.name());
        recs.push(rec(Class::Compute, "Use matrix cores (MFMA/WMMA intrinsics, or a library that does)", &why, gain));
    }
    let gain = p.efficiency.map_or(0.0, |e| 1.0 - e);
    let why = format!("{} of peak", pct(1.0 - gain));
    recs.push(rec(Class::Compute, "Cut instructions: a cheaper algorithm, less recomputation, fast math", &why, gain));
    findings.push(Finding { class: Class::Compute, evidence });
}

/// A kernel whose FLOP counters are all zero: at intensity 0 its busiest memory level bounds it.
fn no_flops(k: &Kernel, z: &ZeroFlops, findings: &mut Vec<Finding>, recs: &mut Vec<Recommendation>) {
    let evidence = format!(
        "zero FLOPs measured (every FLOP counter collected), so intensity 0: {} bounds it, at {:.2} of {:.2} TB/s ({})",
        z.level.name(),
        z.achieved_tbps,
        z.bandwidth_tbps,
        pct(z.efficiency)
    );
    findings.push(Finding { class: bandwidth_class(k, z.level), evidence: vec![evidence] });
    let why = format!("{} at {} of its bandwidth", z.level.name(), pct(z.efficiency));
    recs.push(rec(Class::Memory, "Vectorize loads and stores (16 bytes per lane)", &why, 1.0 - z.efficiency));
    recs.push(rec(
        Class::Memory,
        "Coalesce accesses: neighbouring lanes, neighbouring addresses",
        &why,
        1.0 - z.efficiency,
    ));
    // All it does is move data: fused, its bytes need not leave the chip at all.
    let why = "it only moves data (zero FLOPs): fused, those bytes can stay on chip";
    recs.push(rec(Class::Memory, "Fuse it with its producer or consumer to keep data on chip", why, 1.0));
}

/// MEMORY, or LDS where LDS binds and its bank conflicts matter.
fn bandwidth_class(k: &Kernel, level: Level) -> Class {
    if level == Level::Lds && k.lds_conflicts.is_some_and(|c| c >= LDS_CONFLICTS) { Class::Lds } else { Class::Memory }
}

/// What to try on a kernel whose bytes alone bound it at `share` of a level's bandwidth.
fn bandwidth_recs(why: &str, share: f64, recs: &mut Vec<Recommendation>) {
    recs.push(rec(Class::Memory, "Vectorize loads and stores (16 bytes per lane)", why, 1.0 - share));
    recs.push(rec(Class::Memory, "Coalesce accesses: neighbouring lanes, neighbouring addresses", why, 1.0 - share));
    recs.push(rec(Class::Memory, "Fuse it with its producer or consumer to keep data on chip", why, 0.5));
}

fn rec(class: Class, action: &str, why: &str, gain: f64) -> Recommendation {
    Recommendation { class, action: action.to_owned(), why: why.to_owned(), expected_gain: gain.clamp(0.0, 0.99) }
}

/// Where `p` runs on the vector units a precision the device's matrix units also run: the gain
/// bound and the matrix peak.
fn matrix_gain(p: &Point, device: Option<&Device<'_>>) -> Option<(f64, f64)> {
    if p.pipe != Pipe::Vector || p.precision == Precision::Fp64 && device.is_none() {
        return None;
    }
    let device = device?;
    let matrix = device.peak(p.precision, Pipe::Matrix)?;
    let vector = roofline::counted_peak(device, p.precision, Pipe::Vector)?;
    (matrix > vector * 1.2).then(|| (1.0 - vector / matrix, matrix))
}

fn occupancy_rec(o: &Occupancy, gain: f64) -> Recommendation {
    let action = match o.limiter {
        Limiter::Vgpr => format!("Use fewer VGPRs: {} waves per SIMD need at most {}", o.next_waves(), o.next_limit()),
        Limiter::Sgpr => format!("Use fewer SGPRs: {} waves per SIMD need at most {}", o.next_waves(), o.next_limit()),
        Limiter::Lds => format!(
            "Use less LDS per workgroup: {} waves per SIMD need at most {} bytes",
            o.next_waves(),
            o.next_limit()
        ),
        Limiter::Workgroup => "Use larger workgroups, or more of them per CU".to_owned(),
        Limiter::None => "Launch more workgroups to fill the CUs".to_owned(),
    };
    let why =
        format!("{} of {} waves per SIMD: too few to hide memory latency", o.waves_per_simd, o.max_waves_per_simd);
    rec(Class::Latency, &action, &why, gain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::roofline::{Work, position};
    use crate::analyze::specs::{Agent, Database};

    fn mi300x() -> Device<'static> {
        Device::new(Database::builtin().unwrap().get("mi300x").unwrap(), &Agent::default())
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

    /// 1 ms at 4 TB/s of HBM: memory-bound near its roof, so fusion (raising the intensity)
    /// promises more than vectorizing.
    #[test]
    fn a_streaming_kernel_is_memory_bound() {
        let k = kernel(1.0, Precision::Fp32, Pipe::Vector, 1e9, &[(Level::Dram, 4e9)]);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Memory, "{d:#?}");
        assert!(d.evidence[0].contains("against dram"));
        assert_eq!(d.recommendations[0].action, "Fuse it with its producer or consumer to keep data on chip");
        let vectorize = d.recommendations.iter().find(|r| r.action.starts_with("Vectorize")).unwrap();
        assert!((vectorize.expected_gain - (1.0 - 4.0 / 5.3)).abs() < 1e-3);
    }

    #[test]
    fn a_memory_bound_kernel_that_misses_in_l2_is_cache_bound() {
        let mut k = kernel(1.0, Precision::Fp32, Pipe::Vector, 1e9, &[(Level::Dram, 2e9)]);
        k.l2_hit = Some(0.2);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Cache);
        assert!(d.recommendations.iter().any(|r| r.action.starts_with("Tile")));
    }

    /// FP16 on the VALU at 60 TFLOP/s: compute-bound, and the matrix cores run FP16 16×
    /// faster.
    #[test]
    fn valu_fp16_near_peak_is_compute_bound_and_wants_matrix_cores() {
        let k = kernel(1.0, Precision::Fp16, Pipe::Vector, 60e9, &[(Level::Dram, 1e6)]);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Compute, "{d:#?}");
        let top = &d.recommendations[0];
        assert!(top.action.starts_with("Use matrix cores"), "{top:?}");
        assert!((top.expected_gain - (1.0 - 81.72 / 1307.44)).abs() < 1e-3);
    }

    #[test]
    fn a_short_kernel_is_launch_bound() {
        let mut k = kernel(0.003, Precision::Fp32, Pipe::Vector, 1e6, &[(Level::Dram, 1e6)]);
        k.idle_ns = Some(6_000.0);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Latency);
        assert!(d.evidence.iter().any(|e| e.contains("launch-bound")));
        assert!(d.recommendations[0].action.starts_with("Fuse it with the kernels"), "{d:#?}");
        // 7 µs to the launch-bound line (more than the 6 µs idle) on a 3 µs dispatch: 7/10 at best.
        assert!((d.recommendations[0].expected_gain - 0.7).abs() < 1e-9);
    }

    #[test]
    fn lds_bank_conflicts_on_an_lds_bound_kernel_make_it_lds_bound() {
        let mut k = kernel(1.0, Precision::Fp32, Pipe::Vector, 10e9, &[(Level::Dram, 1e6), (Level::Lds, 70e9)]);
        k.lds_conflicts = Some(0.3);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Lds, "{d:#?}");
        assert!(d.recommendations.iter().any(|r| r.action.starts_with("Pad LDS")));
    }

    #[test]
    fn low_occupancy_far_below_every_roof_is_latency() {
        let mut k = kernel(1.0, Precision::Fp32, Pipe::Vector, 1e9, &[(Level::Dram, 0.2e9)]);
        k.occupancy =
            Some(Occupancy { waves_per_simd: 1, max_waves_per_simd: 8, limiter: Limiter::Vgpr, next: Some((2, 256)) });
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Latency, "{d:#?}");
        assert!(d.recommendations.iter().any(|r| r.action == "Use fewer VGPRs: 2 waves per SIMD need at most 256"));
        assert_eq!(d.also[0].class, Class::Memory);
    }

    /// Bytes and time without FLOPs: 71 % of HBM decides it.
    #[test]
    fn bandwidth_alone_makes_a_kernel_memory_bound() {
        let k = Kernel {
            name: "laplacian".into(),
            calls: 1001,
            mean_ns: 2.6e6,
            busiest: Some((Level::Dram, 0.71)),
            ..Kernel::default()
        };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Memory);
        assert!(d.evidence[0].contains("dram at 71% of its peak bandwidth"));
        assert!(
            (d.recommendations.iter().find(|r| r.action.starts_with("Vectorize")).unwrap().expected_gain - 0.29).abs()
                < 1e-9
        );
    }

    /// The real MI300X copy (tests/fixtures/analysis-real, vcopy-MI300X_A1_rocpd, first dispatch):
    /// zero FLOPs, 16,791,360 bytes of HBM in 8,653 ns, 37% of the 5.3 TB/s roof. MEMORY, with
    /// its short dispatches a secondary LATENCY finding.
    #[test]
    fn a_short_copy_with_zero_flops_at_the_hbm_roof_is_memory_bound() {
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
            ..Kernel::default()
        };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Memory, "{d:#?}");
        let share = 16_791_360.0 / 8_653.0 / 5.3e3;
        assert!(d.evidence[0].contains("zero FLOPs") && d.evidence[0].contains(&pct(share)), "{:?}", d.evidence);
        assert!(d.also.iter().any(|f| f.class == Class::Latency && f.evidence[0].contains("launch-bound")));
        assert_eq!(d.recommendations[0].class, Class::Memory);
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
    /// under the bandwidth line stays LATENCY, as before.
    #[test]
    fn uncollected_flops_are_not_zero_flops() {
        let mut w = Work::default();
        w.bytes.insert(Level::Dram, 16_791_360.0);
        assert!(roofline::zero_flops(&w, 8_653e-9, &mi300x()).is_none());
        let k = Kernel { mean_ns: 8_653.0, busiest: Some((Level::Dram, 0.37)), ..Kernel::default() };
        assert_eq!(diagnose(&k, Some(&mi300x())).class, Class::Latency);
    }

    /// A short kernel with FLOPs that reaches its memory roof is MEMORY too.
    #[test]
    fn a_short_kernel_at_its_roof_is_in_the_roofs_class() {
        // 8 µs, intensity 0.25 against HBM: 1.325 TFLOP/s attainable, 0.5 achieved (38%).
        let k = kernel(0.008, Precision::Fp32, Pipe::Vector, 4e6, &[(Level::Dram, 16e6)]);
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Memory, "{d:#?}");
        assert!(d.also.iter().any(|f| f.class == Class::Latency));
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
        let k = Kernel { mean_ns: 1e6, busiest: Some((Level::Dram, 0.4)), inputs, ..Kernel::default() };
        let d = diagnose(&k, Some(&mi300x()));
        assert_eq!(d.class, Class::Unknown);
        assert_eq!(
            d.evidence[0],
            "no fp32 VALU FLOPs, and its busiest level, dram, at 40% of its bandwidth, is under the 60% that decides \
             by bytes alone"
        );
    }
}
