//! The vocabulary of the `pc_sample` table ([`crate::PcSample`]): how a sample was taken
//! ([`SampleMethod`]) and the one reason category both vendors' reasons map to
//! ([`ReasonCategory`]). The mapping from each vendor's own reason names is written down once,
//! here ([`VENDOR_REASONS`]), for the backends that fill the table and the importers that read
//! rocprofv3's outputs alike.

/// How a PC sample was taken: the `method` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SampleMethod {
    /// rocprofiler-sdk's host-trap method: a PC only, no reason.
    HostTrap,
    /// rocprofiler-sdk's stochastic (hardware) method: issued or the reason it was not.
    Stochastic,
    /// CUPTI's PC sampling: the warp's stall reason at the sampled PC.
    Cupti,
}

impl SampleMethod {
    /// Every method, in the order of the enum.
    pub const ALL: [SampleMethod; 3] = [SampleMethod::HostTrap, SampleMethod::Stochastic, SampleMethod::Cupti];

    /// The `method` column's value.
    pub const fn name(self) -> &'static str {
        match self {
            SampleMethod::HostTrap => "host_trap",
            SampleMethod::Stochastic => "stochastic",
            SampleMethod::Cupti => "cupti",
        }
    }

    /// The method a `method` value names.
    pub fn from_name(name: &str) -> Option<SampleMethod> {
        SampleMethod::ALL.into_iter().find(|m| m.name() == name)
    }
}

impl std::fmt::Display for SampleMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What kept a wave (warp) at a sampled PC, in one vocabulary for both vendors: the
/// `category` column. The vendor's own name stays in the `reason` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReasonCategory {
    /// The instruction issued (CUPTI `selected`; the SDK's `wave_issued`).
    Issued,
    /// Waiting on a global, local, texture or constant memory result (CUPTI
    /// `long_scoreboard`, `imc_miss`; the SDK's `WAITCNT`).
    MemoryDependency,
    /// Waiting on an earlier arithmetic instruction's result (CUPTI `wait`; the SDK's
    /// `ALU_DEPENDENCY`).
    ExecutionDependency,
    /// Shared memory (LDS) and the MIO queue: its throttle and its results (CUPTI
    /// `mio_throttle`, `short_scoreboard`).
    SharedMemory,
    /// A barrier or memory fence (CUPTI `barrier`, `membar`; the SDK's `BARRIER_WAIT`).
    Synchronization,
    /// No instruction fetched yet (CUPTI `no_instructions`; the SDK's
    /// `NO_INSTRUCTION_AVAILABLE`).
    InstructionFetch,
    /// Waiting for a branch target to resolve (CUPTI `branch_resolving`).
    Branch,
    /// Ready, but another wave was chosen (CUPTI `not_selected`; the SDK's `ARBITER_NOT_WIN`).
    NotSelected,
    /// A pipeline or memory queue was full (CUPTI `lg_throttle`, `tex_throttle`,
    /// `math_pipe_throttle`; the SDK's `ARBITER_WIN_EX_STALL`).
    Throttle,
    /// The wave slept (CUPTI `sleeping`; the SDK's `SLEEP_WAIT`).
    Sleep,
    /// A named reason of none of the above (CUPTI `misc`, `dispatch_stall`, `drain`; the
    /// SDK's `OTHER_WAIT`, `INTERNAL_INSTRUCTION`).
    Other,
    /// No reason reported (host-trap samples) or a name this table does not know.
    Unknown,
}

impl ReasonCategory {
    /// Every category, in the order of the enum.
    pub const ALL: [ReasonCategory; 12] = [
        ReasonCategory::Issued,
        ReasonCategory::MemoryDependency,
        ReasonCategory::ExecutionDependency,
        ReasonCategory::SharedMemory,
        ReasonCategory::Synchronization,
        ReasonCategory::InstructionFetch,
        ReasonCategory::Branch,
        ReasonCategory::NotSelected,
        ReasonCategory::Throttle,
        ReasonCategory::Sleep,
        ReasonCategory::Other,
        ReasonCategory::Unknown,
    ];

    /// The `category` column's value.
    pub const fn name(self) -> &'static str {
        match self {
            ReasonCategory::Issued => "issued",
            ReasonCategory::MemoryDependency => "memory_dependency",
            ReasonCategory::ExecutionDependency => "execution_dependency",
            ReasonCategory::SharedMemory => "shared_memory",
            ReasonCategory::Synchronization => "synchronization",
            ReasonCategory::InstructionFetch => "instruction_fetch",
            ReasonCategory::Branch => "branch",
            ReasonCategory::NotSelected => "not_selected",
            ReasonCategory::Throttle => "throttle",
            ReasonCategory::Sleep => "sleep",
            ReasonCategory::Other => "other",
            ReasonCategory::Unknown => "unknown",
        }
    }

    /// The category a `category` value names.
    pub fn from_name(name: &str) -> Option<ReasonCategory> {
        ReasonCategory::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether the samples of this category are a wave waiting (rather than issuing, or
    /// unknown): what a stall mix is made of.
    pub const fn is_stall(self) -> bool {
        !matches!(self, ReasonCategory::Issued | ReasonCategory::Unknown)
    }

    /// The category of a vendor's reason name, as either vendor spells it: CUPTI's stall
    /// reason names (`smsp__pcsamp_warps_issue_stalled_long_scoreboard`, with or without
    /// `_not_issued`, or the activity API's short ones), the SDK's not-issued reasons
    /// (`ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT`, or its last part).
    /// A name of neither is [`ReasonCategory::Unknown`].
    pub fn of_vendor_reason(name: &str) -> ReasonCategory {
        let short = reason_key(name);
        VENDOR_REASONS
            .iter()
            .find(|(vendor, _)| vendor.eq_ignore_ascii_case(short))
            .map_or(ReasonCategory::Unknown, |&(_, category)| category)
    }
}

impl std::fmt::Display for ReasonCategory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The part of a vendor's reason name that [`VENDOR_REASONS`] lists: without the SDK's enum
/// prefix, CUPTI's metric prefix and its `_not_issued` twin.
fn reason_key(name: &str) -> &str {
    const PREFIXES: [&str; 3] = [
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_",
        "smsp__pcsamp_warps_issue_stalled_",
        "CUPTI_ACTIVITY_PC_SAMPLING_STALL_",
    ];
    let name = name.trim();
    let name = PREFIXES.iter().find_map(|p| name.strip_prefix(p)).unwrap_or(name);
    name.strip_suffix("_not_issued").unwrap_or(name)
}

/// Every vendor reason this format knows, by the short name [`reason_key`] leaves, and its
/// category: the one mapping table. CUPTI's names are those `cuptiPCSamplingGetStallReasons`
/// returns (sm_70 on) and the activity API's older `CUpti_ActivityPCSamplingStallReason`
/// ones; the SDK's are `rocprofiler_pc_sampling_instruction_not_issued_reason_t`'s.
pub const VENDOR_REASONS: &[(&str, ReasonCategory)] = &[
    // CUPTI, PC Sampling API.
    ("selected", ReasonCategory::Issued),
    ("long_scoreboard", ReasonCategory::MemoryDependency),
    ("imc_miss", ReasonCategory::MemoryDependency),
    ("wait", ReasonCategory::ExecutionDependency),
    ("mio_throttle", ReasonCategory::SharedMemory),
    ("short_scoreboard", ReasonCategory::SharedMemory),
    ("barrier", ReasonCategory::Synchronization),
    ("membar", ReasonCategory::Synchronization),
    ("warpgroup_arrive", ReasonCategory::Synchronization),
    ("no_instructions", ReasonCategory::InstructionFetch),
    ("branch_resolving", ReasonCategory::Branch),
    ("not_selected", ReasonCategory::NotSelected),
    ("lg_throttle", ReasonCategory::Throttle),
    ("tex_throttle", ReasonCategory::Throttle),
    ("math_pipe_throttle", ReasonCategory::Throttle),
    ("sleeping", ReasonCategory::Sleep),
    ("misc", ReasonCategory::Other),
    ("dispatch_stall", ReasonCategory::Other),
    ("drain", ReasonCategory::Other),
    // CUPTI, the activity API's reasons (before sm_70).
    ("NONE", ReasonCategory::Issued),
    ("INST_FETCH", ReasonCategory::InstructionFetch),
    ("EXEC_DEPENDENCY", ReasonCategory::ExecutionDependency),
    ("MEMORY_DEPENDENCY", ReasonCategory::MemoryDependency),
    ("TEXTURE", ReasonCategory::MemoryDependency),
    ("SYNC", ReasonCategory::Synchronization),
    ("CONSTANT_MEMORY_DEPENDENCY", ReasonCategory::MemoryDependency),
    ("PIPE_BUSY", ReasonCategory::Throttle),
    ("MEMORY_THROTTLE", ReasonCategory::Throttle),
    ("NOT_SELECTED", ReasonCategory::NotSelected),
    ("OTHER", ReasonCategory::Other),
    ("SLEEPING", ReasonCategory::Sleep),
    // rocprofiler-sdk, stochastic sampling's not-issued reasons (`NONE`, above: it issued).
    ("NO_INSTRUCTION_AVAILABLE", ReasonCategory::InstructionFetch),
    ("ALU_DEPENDENCY", ReasonCategory::ExecutionDependency),
    ("WAITCNT", ReasonCategory::MemoryDependency),
    ("INTERNAL_INSTRUCTION", ReasonCategory::Other),
    ("BARRIER_WAIT", ReasonCategory::Synchronization),
    ("ARBITER_NOT_WIN", ReasonCategory::NotSelected),
    ("ARBITER_WIN_EX_STALL", ReasonCategory::Throttle),
    ("OTHER_WAIT", ReasonCategory::Other),
    ("SLEEP_WAIT", ReasonCategory::Sleep),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_vendor_spelling_maps_to_its_category() {
        let cases = [
            ("smsp__pcsamp_warps_issue_stalled_mio_throttle", ReasonCategory::SharedMemory),
            ("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued", ReasonCategory::MemoryDependency),
            ("smsp__pcsamp_warps_issue_stalled_selected", ReasonCategory::Issued),
            ("CUPTI_ACTIVITY_PC_SAMPLING_STALL_EXEC_DEPENDENCY", ReasonCategory::ExecutionDependency),
            ("ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT", ReasonCategory::MemoryDependency),
            ("ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NONE", ReasonCategory::Issued),
            ("ARBITER_NOT_WIN", ReasonCategory::NotSelected),
            ("smsp__pcsamp_warps_issue_stalled_something_new", ReasonCategory::Unknown),
            ("", ReasonCategory::Unknown),
        ];
        for (name, category) in cases {
            assert_eq!(ReasonCategory::of_vendor_reason(name), category, "{name}");
        }
    }

    #[test]
    fn names_read_back_and_a_vendor_name_means_one_category() {
        for c in ReasonCategory::ALL {
            assert_eq!(ReasonCategory::from_name(c.name()), Some(c));
        }
        for m in SampleMethod::ALL {
            assert_eq!(SampleMethod::from_name(m.name()), Some(m));
        }
        assert_eq!(ReasonCategory::from_name("stalled"), None);
        // A name two vendors spell alike (`NONE`, `not_selected`) must mean one category.
        for (key, category) in VENDOR_REASONS {
            let mut same = VENDOR_REASONS.iter().filter(|(k, _)| k.eq_ignore_ascii_case(key));
            assert!(same.all(|(_, c)| c == category), "{key}");
        }
    }
}
