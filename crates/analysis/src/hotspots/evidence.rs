//! The stall mix as evidence beside a roof's class: a kernel near the memory roof should spend
//! its stalls waiting on memory, an LDS one on shared memory, a COMPUTE one on its arithmetic.
//! Near a roof the mix never decides the class (sampled stalls say where waves wait, not what
//! bounds the kernel's throughput); it is said beside it, and where the two disagree, that is
//! said too. Far from every roof the mix decides (`analyze::reason`), and says so itself.

use crate::analyze::bottleneck::Class;
use rocprof_rs_format::pc_sample::ReasonCategory;

use super::KernelHotspots;

/// Stall samples below this decide nothing: the mix is said, no agreement judged.
pub const MIN_STALL_SAMPLES: u64 = 50;

/// The class a stall category points to, where one does: the others (barriers, fetch,
/// branches, arbitration, throttles) are waits any class may show.
pub fn class_of(category: ReasonCategory) -> Option<Class> {
    match category {
        ReasonCategory::MemoryDependency => Some(Class::Memory),
        ReasonCategory::SharedMemory => Some(Class::Lds),
        ReasonCategory::ExecutionDependency => Some(Class::Compute),
        _ => None,
    }
}

/// Whether a stall pointing to `pointed` agrees with the class `class` (CACHE is a memory
/// class: its stalls are memory waits too).
fn agrees(class: Class, pointed: Class) -> bool {
    pointed == class || (class == Class::Cache && pointed == Class::Memory)
}

/// What the kernel's stall mix says of its class: the mix's largest stalls, and, where enough
/// were sampled and the largest points to another class than `class`, the disagreement.
/// `None` for a kernel with no stall samples.
pub fn stall_evidence(class: Class, kernel: &KernelHotspots) -> Option<Vec<String>> {
    // These classes are decided by the mix, and their evidence says it already.
    if matches!(class, Class::Latency | Class::Occupancy | Class::Issue | Class::Sync) {
        return None;
    }
    let stalls: Vec<_> = kernel.categories.iter().filter(|c| c.category.is_stall()).collect();
    let stalled: u64 = stalls.iter().map(|c| c.samples).sum();
    if stalled == 0 {
        return None;
    }
    let mix: Vec<String> = stalls
        .iter()
        .take(3)
        .map(|c| format!("{} {}", crate::units::whole_percent(c.samples as f64 / stalled as f64), c.category))
        .collect();
    let mut said = vec![format!("PC samples: {stalled} stalled of {}, {}", kernel.samples, mix.join(", "))];
    let largest = stalls[0].category;
    if stalled < MIN_STALL_SAMPLES {
        said.push(format!("too few stall samples to judge the class by ({stalled}, under {MIN_STALL_SAMPLES})"));
        return Some(said);
    }
    match class_of(largest) {
        Some(pointed) if matches!(class, Class::Unknown | Class::Launch | Class::Tail) => {
            said.push(format!("its largest stall, {largest}, points to {}", pointed.name()));
        }
        Some(pointed) if !agrees(class, pointed) => said.push(format!(
            "the stall mix disagrees with {}: its largest stall, {largest}, points to {}",
            class.name(),
            pointed.name()
        )),
        Some(_) => said.push(format!("the stall mix agrees with {}", class.name())),
        None => {}
    }
    Some(said)
}

#[cfg(test)]
mod tests {
    use super::super::tests::row;
    use super::*;

    fn kernel(rows: &[super::super::PcSampleRow]) -> KernelHotspots {
        super::super::hotspots(rows, 5).remove(0)
    }

    #[test]
    fn a_mix_that_points_elsewhere_is_said_to_disagree() {
        let lds = kernel(&[
            row("k", 0x40, "smsp__pcsamp_warps_issue_stalled_mio_throttle", 80),
            row("k", 0x40, "WAITCNT", 20),
        ]);
        let said = stall_evidence(Class::Memory, &lds).unwrap();
        assert_eq!(said[0], "PC samples: 100 stalled of 100, 80% shared_memory, 20% memory_dependency");
        assert_eq!(said[1], "the stall mix disagrees with MEMORY: its largest stall, shared_memory, points to LDS");
        let agreed = stall_evidence(Class::Lds, &lds).unwrap();
        assert_eq!(agreed[1], "the stall mix agrees with LDS");
        let unknown = stall_evidence(Class::Unknown, &lds).unwrap();
        assert_eq!(unknown[1], "its largest stall, shared_memory, points to LDS");
    }

    #[test]
    fn few_or_no_stalls_judge_nothing() {
        let few = kernel(&[row("k", 0x40, "WAITCNT", 10), row("k", 0x40, "NONE", 500)]);
        let said = stall_evidence(Class::Compute, &few).unwrap();
        assert!(said[1].starts_with("too few stall samples"), "{said:?}");
        assert_eq!(stall_evidence(Class::Compute, &kernel(&[row("k", 0, "NONE", 5)])), None);
    }
}
