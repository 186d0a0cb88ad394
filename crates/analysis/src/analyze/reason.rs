//! Why a kernel far from every roof is slow, from the evidence that can tell: the grid's waves,
//! the stall mix of its PC samples, its theoretical occupancy.
//!
//! A kernel under [`NEAR_ROOF`] of every roof it has (each compute roof it does FLOPs on, each
//! memory level's bandwidth) is bound by none: its warps (waves) are not kept busy. Which of
//! these is why, in this order:
//!
//! - TAIL: its grid fills under one wave of the GPU (blocks over what its SMs or CUs hold at
//!   once), so SMs sit idle from the start; more, smaller blocks change the verdict.
//! - With at least [`MIN_STALL_SAMPLES`] PC samples, the largest of three groups of them:
//!   SYNC (barriers and fences), ISSUE (issued, ready but not selected, pipe throttles, fetch,
//!   dispatch: the schedulers have the warps but not the slots), or waiting on results (memory,
//!   a full memory queue, shared memory, arithmetic dependencies): OCCUPANCY where its
//!   registers, shared memory or LDS hold it under [`LOW_THEORETICAL`] of the warps an SM
//!   takes, else LATENCY.
//! - Without samples, OCCUPANCY on the same occupancy evidence, else LATENCY, and the evidence
//!   says to sample PCs to tell latency from issue or barriers.
//!
//! Nsight Compute's Speed of Light rule draws the same line (its "below 60.0% of peak typically
//! indicate latency issues", and "grid is too small to fill the available resources" under one
//! wave); `bench/gpu/sol/README.md` maps its findings to these classes.

use rocprof_rs_format::pc_sample::ReasonCategory;

use super::bottleneck::{Class, Finding, Kernel, Recommendation, rec};
use super::occupancy::{Limiter, Occupancy, Unit};
use crate::units::whole_percent;

/// From this share of a roof, a kernel is bound by it; under it for every roof, by none.
pub const NEAR_ROOF: f64 = 0.6;
/// Theoretical occupancy under this share of an SM's (SIMD's) warps, set by registers, shared
/// memory or LDS, leaves too few warps to hide the latency its samples wait on.
pub const LOW_THEORETICAL: f64 = 0.5;
/// PC samples under this decide nothing.
pub const MIN_STALL_SAMPLES: u64 = 50;

/// A kernel's PC samples per normalised reason.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StallMix {
    pub samples: Vec<(ReasonCategory, u64)>,
}

/// The three groups the classes are told by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Waiting,
    Issue,
    Sync,
}

fn group(category: ReasonCategory) -> Option<Group> {
    match category {
        ReasonCategory::MemoryDependency | ReasonCategory::SharedMemory | ReasonCategory::ExecutionDependency => {
            Some(Group::Waiting)
        }
        ReasonCategory::Issued
        | ReasonCategory::NotSelected
        | ReasonCategory::Throttle
        | ReasonCategory::InstructionFetch
        | ReasonCategory::Branch
        | ReasonCategory::Other => Some(Group::Issue),
        ReasonCategory::Synchronization | ReasonCategory::Sleep => Some(Group::Sync),
        ReasonCategory::Unknown => None,
    }
}

impl StallMix {
    /// Samples of each group, and of all that have a reason.
    fn groups(&self) -> ([u64; 3], u64) {
        let mut by = [0u64; 3];
        for (category, n) in &self.samples {
            if let Some(g) = group(*category) {
                by[g as usize] += n;
            }
        }
        (by, by.iter().sum())
    }

    /// The largest group and its share, where enough samples have a reason.
    fn largest(&self) -> Option<(Group, f64)> {
        let (by, total) = self.groups();
        if total < MIN_STALL_SAMPLES {
            return None;
        }
        let (g, n) =
            [Group::Waiting, Group::Issue, Group::Sync].into_iter().map(|g| (g, by[g as usize])).max_by_key(|x| x.1)?;
        Some((g, n as f64 / total as f64))
    }

    /// `1234 with a reason: waiting on results 62% (memory dependency 51%, ...), issuing or
    /// ready to 30% (...), at barriers 8%`; `None` where none has a reason.
    fn said(&self) -> Option<String> {
        let (by, total) = self.groups();
        if total == 0 {
            return None;
        }
        let count = total;
        let total = total as f64;
        let top = |g: Group| {
            let mut members: Vec<_> = self.samples.iter().filter(|(c, _)| group(*c) == Some(g)).collect();
            members.sort_by_key(|m| std::cmp::Reverse(m.1));
            let named: Vec<String> = members
                .iter()
                .take(2)
                .map(|(c, n)| format!("{} {}", c.name().replace('_', " "), whole_percent(*n as f64 / total)))
                .collect();
            if named.is_empty() { String::new() } else { format!(" ({})", named.join(", ")) }
        };
        Some(format!(
            "{count} with a reason: waiting on results {}{}, issuing or ready to {}{}, at barriers {}{}",
            whole_percent(by[Group::Waiting as usize] as f64 / total),
            top(Group::Waiting),
            whole_percent(by[Group::Issue as usize] as f64 / total),
            top(Group::Issue),
            whole_percent(by[Group::Sync as usize] as f64 / total),
            top(Group::Sync)
        ))
    }
}

/// Whether `o` is held low by a resource the kernel sets (registers, shared memory, LDS).
fn resource_limited(o: &Occupancy) -> bool {
    o.share() < LOW_THEORETICAL
        && matches!(
            o.limiter,
            Limiter::Registers | Limiter::SharedMemory | Limiter::Vgpr | Limiter::Sgpr | Limiter::Lds
        )
}

/// The class of a kernel whose nearest roof is `closest` of it (under [`NEAR_ROOF`]), its case
/// (`roofs` says each roof's share) and what to try.
pub fn far(k: &Kernel, closest: f64, roofs: &str, recs: &mut Vec<Recommendation>) -> Finding {
    let mut evidence = vec![format!("under {} of every roof it has: {roofs}", whole_percent(NEAR_ROOF))];
    // At best, busier warps bring it to its nearest roof.
    let to_roof = 1.0 - closest;
    let occupancy = k.occupancy.as_ref();
    if let Some((o, w)) = occupancy.and_then(|o| o.waves.map(|w| (o, w))).filter(|(_, w)| *w < 1.0) {
        let (slots, action) = if o.unit == Unit::WarpsPerSm {
            ("SMs' block slots", "Split the work into more, smaller blocks to fill every SM's block slots")
        } else {
            ("CUs' workgroup slots", "Split the work into more, smaller workgroups to fill every CU's slots")
        };
        let idle = whole_percent(1.0 - w);
        evidence.push(format!("its grid fills {w:.2} of one wave: {idle} of the {slots} hold no work"));
        evidence.push("a grid of a full wave or more would change the verdict".to_owned());
        let why = format!("{w:.2} waves: {idle} of the {slots} hold no work for the whole dispatch");
        recs.push(rec(Class::Tail, action, &why, (1.0 - w).min(to_roof)));
        return Finding { class: Class::Tail, evidence };
    }
    let mix = k.stalls.as_ref().filter(|m| !m.samples.is_empty());
    let largest = mix.and_then(StallMix::largest);
    if let Some(said) = mix.and_then(StallMix::said) {
        evidence.push(format!("PC samples: {said}"));
    }
    let class = match largest {
        Some((Group::Sync, share)) => {
            evidence.push(format!(
                "the largest share of its samples, {}, waits at barriers or fences",
                whole_percent(share)
            ));
            let why = format!("{} of its samples wait at barriers", whole_percent(share));
            recs.push(rec(
                Class::Sync,
                "Do less between barriers, or overlap the wait (split producer and consumer warps)",
                &why,
                share.min(to_roof),
            ));
            Class::Sync
        }
        Some((Group::Issue, share)) => {
            evidence.push(format!(
                "the largest share of its samples, {}, issue or are ready to: its schedulers have warps but not issue slots",
                whole_percent(share)
            ));
            // Where its instructions were counted, how busy the schedulers really were.
            if let Some(issue) = k.issue {
                evidence.push(format!(
                    "its schedulers issue in {} of their cycles (warp instructions counted){}",
                    whole_percent(issue.share),
                    if issue.share < 0.3 { ": the samples' issue share is not borne out by the count" } else { "" }
                ));
            }
            let why = format!("{} of its samples issue or wait to issue", whole_percent(share));
            recs.push(rec(
                Class::Issue,
                "Cut instructions per result (index math, conversions, predication)",
                &why,
                share.min(to_roof),
            ));
            Class::Issue
        }
        Some((Group::Waiting, share)) => {
            evidence.push(format!("the largest share of its samples, {}, waits on results", whole_percent(share)));
            waiting(occupancy, Some(share), to_roof, &mut evidence, recs)
        }
        None => {
            let why = match mix {
                Some(_) => format!("under {MIN_STALL_SAMPLES} samples with a reason"),
                None => "no PC samples".to_owned(),
            };
            evidence.push(format!(
                "{why}, so latency cannot be told from issue or barriers: sample them (--pc-sampling-method stochastic, \
                 or analyze --samples DIR of such a run)"
            ));
            waiting(occupancy, None, to_roof, &mut evidence, recs)
        }
    };
    Finding { class, evidence }
}

/// OCCUPANCY where a resource holds its warps low, else LATENCY; `share` of its samples wait,
/// where it was sampled.
fn waiting(
    occupancy: Option<&Occupancy>,
    share: Option<f64>,
    to_roof: f64,
    evidence: &mut Vec<String>,
    recs: &mut Vec<Recommendation>,
) -> Class {
    if let Some(o) = occupancy.filter(|o| resource_limited(o)) {
        let wait =
            if share.is_some() { "too few to hide that wait" } else { "too few to hide latency, if its warps wait" };
        evidence.push(format!(
            "{} of {} {} ({}), limited by {}: {wait}",
            o.waves_per_simd,
            o.max_waves_per_simd,
            o.unit.label(),
            whole_percent(o.share()),
            o.limiter.name()
        ));
        recs.push(occupancy_rec(o, share.unwrap_or(1.0).min(to_roof)));
        return Class::Occupancy;
    }
    if let Some(o) = occupancy {
        evidence.push(format!(
            "{} of {} {}: occupancy does not hold it back{}",
            o.waves_per_simd,
            o.max_waves_per_simd,
            o.unit.label(),
            if o.share() < LOW_THEORETICAL { format!(" (limited by {})", o.limiter.name()) } else { String::new() }
        ));
    }
    // Without samples nothing says its warps wait, so nothing is advised.
    if let Some(share) = share {
        let why = format!("{} of its samples wait on results", whole_percent(share));
        let action =
            "Keep more independent loads in flight per thread (unroll, load the next tile before using this one)";
        recs.push(rec(Class::Latency, action, &why, share.min(to_roof)));
    }
    Class::Latency
}

/// More warps for `o`: what limits it and the most of that resource the next step allows.
pub fn occupancy_rec(o: &Occupancy, gain: f64) -> Recommendation {
    let step = |resource: &str, unit: &str| match o.next {
        Some((warps, limit)) => format!("{resource}: {warps} {} need at most {limit}{unit}", o.unit.label()),
        None => format!("{resource}: no step of it alone adds a warp (another resource limits at the same point)"),
    };
    let action = match o.limiter {
        Limiter::Vgpr => step("Use fewer VGPRs", ""),
        Limiter::Sgpr => step("Use fewer SGPRs", ""),
        Limiter::Lds => step("Use less LDS per workgroup", " bytes"),
        Limiter::Registers => step("Use fewer registers per thread", ""),
        Limiter::SharedMemory => step("Use less shared memory per block", " bytes"),
        Limiter::Workgroup => "Use larger workgroups, or more of them per CU".to_owned(),
        Limiter::Blocks => "Use larger blocks: the SM's block slots run out before its warp slots".to_owned(),
        Limiter::None if o.unit == Unit::WarpsPerSm => "Launch more blocks to fill the SMs".to_owned(),
        Limiter::None => "Launch more workgroups to fill the CUs".to_owned(),
    };
    let why =
        format!("{} of {} {}, limited by {}", o.waves_per_simd, o.max_waves_per_simd, o.unit.label(), o.limiter.name());
    rec(Class::Occupancy, &action, &why, gain)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix(of: &[(ReasonCategory, u64)]) -> StallMix {
        StallMix { samples: of.to_vec() }
    }

    fn occupancy(warps: u32, limiter: Limiter, waves: f64) -> Occupancy {
        Occupancy {
            waves_per_simd: warps,
            max_waves_per_simd: 64,
            unit: Unit::WarpsPerSm,
            waves: Some(waves),
            limiter,
            next: (limiter == Limiter::Registers).then_some((warps + 8, 96)),
        }
    }

    fn kernel(stalls: Option<StallMix>, o: Option<Occupancy>) -> Kernel {
        Kernel { name: "k".into(), calls: 10, mean_ns: 1e4, stalls, occupancy: o, ..Kernel::default() }
    }

    fn class(k: &Kernel) -> (Class, Vec<String>, Vec<Recommendation>) {
        let mut recs = Vec::new();
        let f = far(k, 0.4, "dram 40%", &mut recs);
        (f.class, f.evidence, recs)
    }

    #[test]
    fn a_grid_under_one_wave_is_a_tail_whatever_its_stalls() {
        let k =
            kernel(Some(mix(&[(ReasonCategory::Synchronization, 900)])), Some(occupancy(12, Limiter::Registers, 0.74)));
        let (c, evidence, recs) = class(&k);
        assert_eq!(c, Class::Tail);
        assert!(evidence[1].contains("fills 0.74 of one wave: 26%"), "{evidence:?}");
        assert!((recs[0].expected_gain - 0.26).abs() < 1e-9);
    }

    #[test]
    fn the_largest_group_of_samples_names_the_class() {
        let o = Some(occupancy(64, Limiter::None, 4.0));
        let sync = kernel(
            Some(mix(&[(ReasonCategory::Synchronization, 60), (ReasonCategory::MemoryDependency, 40)])),
            o.clone(),
        );
        assert_eq!(class(&sync).0, Class::Sync);
        let issue = kernel(
            Some(mix(&[
                (ReasonCategory::NotSelected, 40),
                (ReasonCategory::Issued, 30),
                (ReasonCategory::MemoryDependency, 50),
            ])),
            o.clone(),
        );
        assert_eq!(class(&issue).0, Class::Issue);
        let waiting = kernel(Some(mix(&[(ReasonCategory::MemoryDependency, 80), (ReasonCategory::Issued, 20)])), o);
        let (c, evidence, _) = class(&waiting);
        assert_eq!(c, Class::Latency);
        assert!(
            evidence[1].starts_with("PC samples: 100 with a reason: waiting on results 80% (memory dependency 80%)"),
            "{evidence:?}"
        );
    }

    #[test]
    fn waiting_with_resource_limited_occupancy_is_occupancy() {
        let k = kernel(
            Some(mix(&[(ReasonCategory::MemoryDependency, 90), (ReasonCategory::Issued, 10)])),
            Some(occupancy(16, Limiter::Registers, 3.0)),
        );
        let (c, _, recs) = class(&k);
        assert_eq!(c, Class::Occupancy);
        assert_eq!(recs[0].action, "Use fewer registers per thread: 24 warps per SM need at most 96");
        // Low occupancy that the block size sets is not a resource the kernel can give back.
        let blocks =
            kernel(Some(mix(&[(ReasonCategory::MemoryDependency, 90)])), Some(occupancy(16, Limiter::Blocks, 3.0)));
        assert_eq!(class(&blocks).0, Class::Latency);
    }

    #[test]
    fn without_samples_the_evidence_says_what_to_collect() {
        let (c, evidence, _) = class(&kernel(None, Some(occupancy(64, Limiter::None, 3.0))));
        assert_eq!(c, Class::Latency);
        assert!(evidence.iter().any(|e| e.starts_with("no PC samples, so latency cannot be told")), "{evidence:?}");
        let few = kernel(
            Some(mix(&[(ReasonCategory::Synchronization, 10)])),
            Some(occupancy(16, Limiter::SharedMemory, 3.0)),
        );
        assert_eq!(class(&few).0, Class::Occupancy, "too few samples: occupancy decides");
    }

    #[test]
    fn an_occupancy_without_a_single_step_says_so_without_a_number() {
        let mut o = occupancy(12, Limiter::Registers, 3.0);
        o.next = None;
        let r = occupancy_rec(&o, 0.3);
        assert!(
            r.action.starts_with("Use fewer registers per thread: no step of it alone adds a warp"),
            "{}",
            r.action
        );
    }
}
