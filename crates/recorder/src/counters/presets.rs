//! Named counter sets, resolved per agent.
//!
//! Counter names differ between architectures for the same quantity: gfx90a's `TCC_EA_*` are
//! `TCC_EA0_*` on gfx94x/gfx950, RDNA's L2 is `GL2C_*`, and a derived counter such as
//! `L2CacheHit` is defined for some architectures only. So a preset is a list of entries, each
//! a quantity with the counter names that measure it in order of preference, and an agent gets
//! the first name it supports. Nothing here is keyed by architecture name: what an agent
//! supports comes from the SDK, so a new architecture with familiar names just works.

/// One quantity a preset measures.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// The counter names that measure it, most preferred first.
    pub names: &'static [&'static str],
    /// Collected where the architecture has it, and not missed where it does not (FP8 on an
    /// architecture without FP8, say).
    pub optional: bool,
}

/// A named counter set.
#[derive(Debug)]
pub struct Preset {
    pub name: &'static str,
    /// One line on what it is for.
    pub about: &'static str,
    pub entries: &'static [Entry],
}

pub(crate) const fn one(names: &'static [&'static str]) -> Entry {
    Entry { names, optional: false }
}

pub(crate) const fn optional(names: &'static [&'static str]) -> Entry {
    Entry { names, optional: true }
}

const L2_HIT: &[&str] = &["TCC_HIT_sum", "GL2C_HIT_sum"];
const L2_MISS: &[&str] = &["TCC_MISS_sum", "GL2C_MISS_sum"];
const L2_HIT_RATE: &[&str] = &["L2CacheHit", "TCC_HIT_sum", "GL2C_HIT_sum"];
const HBM_READ_32B: &[&str] = &["TCC_EA0_RDREQ_32B_sum", "TCC_EA_RDREQ_32B_sum", "GL2C_EA_RDREQ_32B_sum"];
const HBM_WRITE_64B: &[&str] = &["TCC_EA0_WRREQ_64B_sum", "TCC_EA_WRREQ_64B_sum", "GL2C_EA_WRREQ_64B_sum"];
const HBM_READ: &[&str] = &["TCC_EA0_RDREQ_sum", "TCC_EA_RDREQ_sum"];
const HBM_WRITE: &[&str] = &["TCC_EA0_WRREQ_sum", "TCC_EA_WRREQ_sum", "GL2C_MC_WRREQ_sum"];
const HBM_READ_LEVEL: &[&str] = &["TCC_EA0_RDREQ_LEVEL_sum", "TCC_EA_RDREQ_LEVEL_sum"];
const HBM_WRITE_LEVEL: &[&str] = &["TCC_EA0_WRREQ_LEVEL_sum", "TCC_EA_WRREQ_LEVEL_sum"];
const LDS_CONFLICT: &[&str] = &["SQ_LDS_BANK_CONFLICT", "SQC_LDS_BANK_CONFLICT"];
const ATOMICS: &[&str] = &["TCP_TCC_ATOMIC_REQ_sum", "TCP_TCC_ATOMIC_WITH_RET_REQ_sum"];

/// Every preset, in the order `avail` lists them.
pub static PRESETS: &[Preset] = &[
    Preset {
        name: "compute_bound",
        about: "wave execution, VALU and SALU instruction mix, wait states (madengine compute_bound.txt)",
        entries: &[
            one(&["SQ_WAVES"]),
            one(&["SQ_WAVE_CYCLES"]),
            one(&["SQ_INSTS_VALU"]),
            one(&["SQ_ACTIVE_INST_VALU"]),
            one(&["SQ_INSTS_VALU_ADD_F32"]),
            one(&["SQ_INSTS_VALU_MUL_F32"]),
            one(&["SQ_INSTS_VALU_FMA_F32"]),
            one(&["SQ_INSTS_VALU_TRANS_F32"]),
            one(&["SQ_INSTS_SALU"]),
            one(&["SQ_INSTS_VMEM_RD"]),
            one(&["SQ_INSTS_VMEM_WR"]),
            one(&["SQ_WAIT_INST_ANY"]),
        ],
    },
    Preset {
        name: "memory_bound",
        about: "L1 to L2 traffic, L2 hits and misses, HBM requests and latency, LDS conflicts (madengine memory_bound.txt)",
        entries: &[
            one(L2_HIT_RATE),
            one(&["TCP_TCC_READ_REQ_sum"]),
            one(&["TCP_TCC_WRITE_REQ_sum"]),
            one(ATOMICS),
            one(L2_HIT),
            one(L2_MISS),
            one(HBM_READ_32B),
            one(HBM_WRITE_64B),
            one(HBM_READ_LEVEL),
            one(HBM_WRITE_LEVEL),
            one(&["FETCH_SIZE"]),
            one(&["WRITE_SIZE"]),
            one(&["SQ_INSTS_SMEM"]),
            one(LDS_CONFLICT),
        ],
    },
    Preset {
        name: "communication_bound",
        about: "HBM transfers, atomics and synchronisation waits, for multi-GPU work (madengine communication_bound.txt)",
        entries: &[
            one(HBM_WRITE_64B),
            one(HBM_READ_32B),
            one(&["TCC_ATOMIC_sum"]),
            one(ATOMICS),
            one(&["SQ_WAIT_INST_ANY"]),
            one(&["SQ_WAVES"]),
            one(&["TCP_TCC_READ_REQ_sum"]),
            one(&["TCP_TCC_WRITE_REQ_sum"]),
        ],
    },
    Preset {
        name: "instruction_mix",
        about: "instructions issued per kind (madengine instruction_mix.txt, with LDS and SMEM)",
        entries: &[
            one(&["SQ_INSTS_VALU"]),
            one(&["SQ_INSTS_SALU"]),
            one(&["SQ_INSTS_VMEM_RD"]),
            one(&["SQ_INSTS_VMEM_WR"]),
            one(&["SQ_INSTS_LDS"]),
            one(&["SQ_INSTS_SMEM"]),
            one(&["SQ_WAIT_INST_ANY"]),
        ],
    },
    Preset {
        name: "full_profile",
        about: "execution, memory, cache, waits and LDS together (madengine full_profile.txt)",
        entries: &[
            one(&["SQ_WAVES"]),
            one(&["SQ_WAVE_CYCLES"]),
            one(&["SQ_INSTS_VALU"]),
            one(&["SQ_INSTS_SALU"]),
            one(&["SQ_ACTIVE_INST_VALU"]),
            one(L2_HIT_RATE),
            one(L2_HIT),
            one(L2_MISS),
            one(&["TCP_TCC_READ_REQ_sum"]),
            one(&["TCP_TCC_WRITE_REQ_sum"]),
            one(HBM_READ_32B),
            one(HBM_WRITE_64B),
            one(&["SQ_WAIT_INST_ANY"]),
            // Not on gfx94x, as madengine's file notes.
            optional(&["SQ_WAIT_INST_VALU"]),
            one(LDS_CONFLICT),
        ],
    },
    Preset {
        name: "roofline",
        about: "FLOPs per precision (VALU and MFMA) and bytes per memory level, as rocprof-compute's roofline counts them",
        entries: &[
            one(&["SQ_INSTS_VALU_ADD_F16"]),
            one(&["SQ_INSTS_VALU_MUL_F16"]),
            one(&["SQ_INSTS_VALU_FMA_F16"]),
            one(&["SQ_INSTS_VALU_TRANS_F16"]),
            one(&["SQ_INSTS_VALU_ADD_F32"]),
            one(&["SQ_INSTS_VALU_MUL_F32"]),
            one(&["SQ_INSTS_VALU_FMA_F32"]),
            one(&["SQ_INSTS_VALU_TRANS_F32"]),
            one(&["SQ_INSTS_VALU_ADD_F64"]),
            one(&["SQ_INSTS_VALU_MUL_F64"]),
            one(&["SQ_INSTS_VALU_FMA_F64"]),
            one(&["SQ_INSTS_VALU_TRANS_F64"]),
            optional(&["SQ_INSTS_VALU_INT32"]),
            optional(&["SQ_INSTS_VALU_INT64"]),
            one(&["SQ_INSTS_VALU_MFMA_MOPS_F16"]),
            one(&["SQ_INSTS_VALU_MFMA_MOPS_BF16"]),
            one(&["SQ_INSTS_VALU_MFMA_MOPS_F32"]),
            one(&["SQ_INSTS_VALU_MFMA_MOPS_F64"]),
            optional(&["SQ_INSTS_VALU_MFMA_MOPS_I8"]),
            // FP8 from gfx94x on, FP6/FP4 on gfx950.
            optional(&["SQ_INSTS_VALU_MFMA_MOPS_F8"]),
            optional(&["SQ_INSTS_VALU_MFMA_MOPS_F6F4"]),
            one(&["SQ_LDS_IDX_ACTIVE"]),
            one(LDS_CONFLICT),
            one(&["TCP_TOTAL_CACHE_ACCESSES_sum"]),
            one(&["TCP_TCC_READ_REQ_sum"]),
            one(&["TCP_TCC_WRITE_REQ_sum"]),
            one(&["TCP_TCC_ATOMIC_WITH_RET_REQ_sum"]),
            one(&["TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum"]),
            one(HBM_READ),
            one(HBM_READ_32B),
            one(HBM_WRITE),
            one(HBM_WRITE_64B),
            // 128-byte reads, counted apart from gfx94x on: TCC_BUBBLE on gfx94x, by size on
            // gfx950 (where TCC_BUBBLE counts none of a copy's reads).
            optional(&["TCC_BUBBLE_sum"]),
            optional(&["TCC_EA0_RDREQ_128B_sum"]),
        ],
    },
    Preset {
        name: "basic",
        about: "wavefronts, instruction mix and L2 hits: the quick look (the gfx1151 guide's counters_basic)",
        entries: &[
            one(&["SQ_WAVES"]),
            one(&["SQ_INSTS_VALU"]),
            one(&["SQ_INSTS_SALU"]),
            one(&["SQ_INSTS_LDS"]),
            one(&["SQ_INSTS_VMEM_RD"]),
            one(&["SQ_INSTS_VMEM_WR"]),
            one(L2_HIT),
            one(L2_MISS),
        ],
    },
    Preset {
        name: "extended",
        about: "LDS conflicts, the cache hierarchy and memory-controller traffic (the gfx1151 guide's counters_extended)",
        entries: &[
            one(&["SQ_WAVES"]),
            one(&["SQ_INSTS_VALU"]),
            one(&["SQ_INSTS_LDS"]),
            one(LDS_CONFLICT),
            one(&["SQ_WAIT_INST_LDS"]),
            one(&["TCP_TOTAL_CACHE_ACCESSES_sum"]),
            one(&["TCP_TCC_READ_REQ_sum"]),
            one(&["TCP_TCC_WRITE_REQ_sum"]),
            one(L2_HIT),
            one(L2_MISS),
            one(&["TCC_REQ_sum"]),
            one(&["FETCH_SIZE"]),
            one(&["WRITE_SIZE"]),
            one(HBM_READ_LEVEL),
            one(HBM_WRITE_LEVEL),
            optional(&["SQ_INSTS_VALU_MFMA_MOPS_F16"]),
        ],
    },
];

/// The preset named `name`.
pub fn by_name(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The names of every preset, for error messages.
pub fn names() -> String {
    PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

/// A preset as one agent can run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The counters to collect, each once, in the preset's order.
    pub counters: Vec<String>,
    /// Required entries the agent has no counter for (each named by its first choice).
    pub missing: Vec<&'static str>,
}

impl Resolved {
    /// Whether the agent runs the preset in full.
    pub fn complete(&self) -> bool {
        self.missing.is_empty()
    }
}

impl Preset {
    /// The counters of this preset on an agent that supports the counters `has` accepts.
    pub fn resolve(&self, has: impl Fn(&str) -> bool) -> Resolved {
        let mut resolved = Resolved { counters: Vec::new(), missing: Vec::new() };
        for entry in self.entries {
            match entry.names.iter().find(|n| has(n)) {
                Some(name) => {
                    if !resolved.counters.iter().any(|c| c == name) {
                        resolved.counters.push((*name).to_owned());
                    }
                }
                None if entry.optional => {}
                None => resolved.missing.push(entry.names[0]),
            }
        }
        resolved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocprof_sim::hw::{self, Arch};

    fn on(arch: Arch) -> impl Fn(&str) -> bool {
        move |name| hw::by_name(arch, name).is_some()
    }

    #[test]
    fn every_preset_runs_in_full_on_the_simulated_data_centre_gpus() {
        for arch in [Arch::Gfx942, Arch::Gfx90a] {
            for preset in PRESETS {
                let resolved = preset.resolve(on(arch));
                assert!(resolved.complete(), "{} on {}: missing {:?}", preset.name, arch.name(), resolved.missing);
            }
        }
    }

    #[test]
    fn architectures_get_their_own_names_for_one_quantity() {
        let roofline = by_name("roofline").unwrap();
        let gfx942 = roofline.resolve(on(Arch::Gfx942)).counters;
        let gfx90a = roofline.resolve(on(Arch::Gfx90a)).counters;
        assert!(gfx942.iter().any(|c| c == "TCC_EA0_RDREQ_sum") && gfx942.iter().any(|c| c == "TCC_BUBBLE_sum"));
        assert!(gfx90a.iter().any(|c| c == "TCC_EA_RDREQ_sum") && !gfx90a.iter().any(|c| c.starts_with("TCC_EA0")));
        assert!(gfx942.iter().any(|c| c == "SQ_INSTS_VALU_MFMA_MOPS_F8"));
        assert!(!gfx90a.iter().any(|c| c == "SQ_INSTS_VALU_MFMA_MOPS_F8"), "no FP8 on gfx90a, and not missed");
    }

    #[test]
    fn derived_counters_only_where_the_agent_defines_them() {
        let memory = by_name("memory_bound").unwrap();
        let gfx90a = memory.resolve(on(Arch::Gfx90a)).counters;
        let gfx942 = memory.resolve(on(Arch::Gfx942)).counters;
        assert_eq!(gfx90a[0], "L2CacheHit");
        assert!(!gfx942.iter().any(|c| c == "L2CacheHit"), "SDK 1.0 has no L2CacheHit on gfx94x");
        assert_eq!(gfx942[0], "TCC_HIT_sum", "the hit rate comes from hits and misses there");
        assert_eq!(gfx942.iter().filter(|c| *c == "TCC_HIT_sum").count(), 1, "each counter once");
    }

    #[test]
    fn an_agent_without_counters_misses_every_required_entry() {
        let basic = by_name("basic").unwrap().resolve(|_| false);
        assert!(basic.counters.is_empty());
        assert_eq!(basic.missing.len(), 8);
        assert!(!basic.complete());
    }
}
