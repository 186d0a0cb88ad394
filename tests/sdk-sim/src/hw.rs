//! The simulated hardware counters: which exist on which architecture, how they are laid out in
//! dimensions, how many fit in one pass, and what they read for a dispatch.
//!
//! Values derive from a dispatch's [`SimActivity`]. A base counter's total is split over its
//! instances so that the instances sum back to the total exactly (integers held in `f64`), which
//! is what lets tests compare a tool's per-dispatch sums with the ground truth. Derived counters
//! are single-instance and evaluate their expression on the base totals.

use crate::runtime_abi::SimActivity;

/// GPU architectures the simulator models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arch {
    /// MI300X-like (CDNA 3): 8 XCCs.
    Gfx942,
    /// MI210-like (CDNA 2).
    Gfx90a,
    /// Strix Halo-like consumer APU (RDNA 3.5): no counter definitions in SDK 1.0.
    Gfx1151,
}

impl Arch {
    pub fn name(self) -> &'static str {
        match self {
            Arch::Gfx942 => "gfx942",
            Arch::Gfx90a => "gfx90a",
            Arch::Gfx1151 => "gfx1151",
        }
    }

    fn bit(self) -> u8 {
        match self {
            Arch::Gfx942 => 1,
            Arch::Gfx90a => 2,
            Arch::Gfx1151 => 4,
        }
    }

    /// All architectures, in id order.
    pub const ALL: [Arch; 3] = [Arch::Gfx942, Arch::Gfx90a, Arch::Gfx1151];
}

/// Dimension kinds, numbered as the SDK 1.0 instance-id encoding numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Dim {
    Xcc = 1,
    ShaderEngine = 3,
    Instance = 7,
}

impl Dim {
    /// The name `rocprofiler_counter_record_dimension_info_t` carries.
    pub fn name(self) -> &'static str {
        match self {
            Dim::Xcc => "DIMENSION_XCC",
            Dim::ShaderEngine => "DIMENSION_SHADER_ENGINE",
            Dim::Instance => "DIMENSION_INSTANCE",
        }
    }
}

/// Bits per dimension position in a 1.0 instance id; the counter id sits above bit 48.
pub const DIM_BITS: u64 = 6;
pub const COUNTER_SHIFT: u64 = 48;

/// Encodes a counter instance id as SDK 1.0 does.
pub fn encode_instance(counter_id: u64, positions: &[(Dim, u64)]) -> u64 {
    positions.iter().fold(counter_id << COUNTER_SHIFT, |id, &(dim, pos)| id | (pos << ((dim as u64 - 1) * DIM_BITS)))
}

/// The counter id in an instance id.
pub fn decode_counter(instance: u64) -> u64 {
    instance >> COUNTER_SHIFT
}

/// The position of dimension `dim` (its numeric id) in an instance id.
pub fn decode_position(instance: u64, dim: u64) -> Option<u64> {
    if dim == 0 {
        return Some(instance & ((1 << COUNTER_SHIFT) - 1));
    }
    if dim > 7 {
        return None;
    }
    Some((instance >> ((dim - 1) * DIM_BITS)) & ((1 << DIM_BITS) - 1))
}

type Source = fn(&SimActivity) -> u64;
/// Evaluates a derived counter from a lookup of base totals by name.
type Eval = fn(&dyn Fn(&str) -> f64) -> f64;

/// A hardware block, its per-pass limit and its dimensions per architecture.
#[derive(Debug)]
pub struct Block {
    pub name: &'static str,
    /// Counters of this block that one pass can collect.
    pub per_pass: usize,
}

pub const SQ: Block = Block { name: "SQ", per_pass: 8 };
pub const TCC: Block = Block { name: "TCC", per_pass: 4 };
pub const TCP: Block = Block { name: "TCP", per_pass: 4 };
pub const GRBM: Block = Block { name: "GRBM", per_pass: 2 };

/// The dimensions of `block`'s counters on `arch`.
pub fn dims(block: &Block, arch: Arch) -> &'static [(Dim, u64)] {
    match (arch, block.name) {
        (Arch::Gfx942, "SQ" | "GRBM") => &[(Dim::Xcc, 8)],
        (Arch::Gfx942, "TCC") => &[(Dim::Xcc, 8), (Dim::Instance, 16)],
        (Arch::Gfx942, "TCP") => &[(Dim::Xcc, 8), (Dim::Instance, 38)],
        (Arch::Gfx90a, "SQ") => &[(Dim::ShaderEngine, 8)],
        (Arch::Gfx90a, "TCC") => &[(Dim::Instance, 16)],
        (Arch::Gfx90a, "TCP") => &[(Dim::Instance, 104)],
        _ => &[],
    }
}

/// A base (hardware) counter.
#[derive(Debug)]
pub struct BaseCounter {
    pub name: &'static str,
    pub block: &'static Block,
    pub description: &'static str,
    archs: u8,
    source: Source,
}

/// A derived counter: an expression over base counters.
#[derive(Debug)]
pub struct DerivedCounter {
    pub name: &'static str,
    pub description: &'static str,
    pub expression: &'static str,
    /// The base counters the expression reads, which is what occupies hardware.
    pub inputs: &'static [&'static str],
    archs: u8,
    eval: Eval,
}

const CDNA: u8 = 1 | 2;
const GFX942: u8 = 1;
const GFX90A: u8 = 2;

macro_rules! base {
    ($name:literal, $block:ident, $archs:expr, $desc:literal, |$a:ident| $e:expr) => {
        BaseCounter { name: $name, block: &$block, description: $desc, archs: $archs, source: |$a| $e }
    };
}

/// Every base counter.
pub static BASE: &[BaseCounter] = &[
    base!("SQ_WAVES", SQ, CDNA, "Count number of waves sent to SQs. (per-simd, emulated, global)", |a| a.waves),
    base!(
        "SQ_WAVE_CYCLES",
        SQ,
        CDNA,
        "Number of clock cycles spent by waves in the CUs (per-simd, nondeterministic).",
        |a| a.wave_cycles
    ),
    base!("SQ_BUSY_CYCLES", SQ, CDNA, "Clock cycles while SQ is reporting that it is busy.", |a| a.busy_cycles),
    base!("SQ_INSTS_VALU", SQ, CDNA, "Number of VALU instructions issued. (per-simd, emulated)", |a| a.valu_insts),
    base!("SQ_INSTS_SALU", SQ, CDNA, "Number of SALU instructions issued. (per-simd, emulated)", |a| a.salu_insts),
    base!("SQ_INSTS_SMEM", SQ, CDNA, "Number of SMEM instructions issued. (per-simd, emulated)", |a| a.smem_insts),
    base!(
        "SQ_INSTS_VMEM_RD",
        SQ,
        CDNA,
        "Number of VMEM read instructions issued (including FLAT). (per-simd, emulated)",
        |a| a.vmem_read_insts
    ),
    base!(
        "SQ_INSTS_VMEM_WR",
        SQ,
        CDNA,
        "Number of VMEM write instructions issued (including FLAT). (per-simd, emulated)",
        |a| a.vmem_write_insts
    ),
    base!("SQ_INSTS_LDS", SQ, CDNA, "Number of LDS instructions issued (including FLAT). (per-simd, emulated)", |a| a
        .lds_insts),
    base!("SQ_INSTS_MFMA", SQ, CDNA, "Number of MFMA instructions issued. (per-simd, emulated)", |a| a.mfma_insts),
    base!("SQ_ACTIVE_INST_VALU", SQ, CDNA, "Number of cycles each wave spends working on a VALU instructions.", |a| a
        .valu_insts
        * 4),
    base!("SQ_INSTS_VALU_ADD_F32", SQ, CDNA, "Number of VALU F32 ADD instructions issued.", |a| a.valu_insts / 4),
    base!("SQ_INSTS_VALU_MUL_F32", SQ, CDNA, "Number of VALU F32 MUL instructions issued.", |a| a.valu_insts / 8),
    base!("SQ_INSTS_VALU_FMA_F32", SQ, CDNA, "Number of VALU F32 FMA instructions issued.", |a| a.valu_insts / 4),
    base!("SQ_INSTS_VALU_TRANS_F32", SQ, CDNA, "Number of VALU F32 transcendental instructions issued.", |a| a
        .valu_insts
        / 32),
    base!("SQ_INSTS_VALU_ADD_F16", SQ, CDNA, "Number of VALU F16 ADD instructions issued.", |a| a.valu_insts / 16),
    base!("SQ_INSTS_VALU_MUL_F16", SQ, CDNA, "Number of VALU F16 MUL instructions issued.", |a| a.valu_insts / 16),
    base!("SQ_INSTS_VALU_FMA_F16", SQ, CDNA, "Number of VALU F16 FMA instructions issued.", |a| a.valu_insts / 8),
    base!("SQ_INSTS_VALU_TRANS_F16", SQ, CDNA, "Number of VALU F16 transcendental instructions issued.", |a| a
        .valu_insts
        / 64),
    base!("SQ_INSTS_VALU_ADD_F64", SQ, CDNA, "Number of VALU F64 ADD instructions issued.", |a| a.valu_insts / 32),
    base!("SQ_INSTS_VALU_MUL_F64", SQ, CDNA, "Number of VALU F64 MUL instructions issued.", |a| a.valu_insts / 32),
    base!("SQ_INSTS_VALU_FMA_F64", SQ, CDNA, "Number of VALU F64 FMA instructions issued.", |a| a.valu_insts / 16),
    base!("SQ_INSTS_VALU_TRANS_F64", SQ, CDNA, "Number of VALU F64 transcendental instructions issued.", |a| a
        .valu_insts
        / 128),
    base!("SQ_INSTS_VALU_INT32", SQ, CDNA, "Number of VALU 32-bit integer instructions issued.", |a| a.valu_insts / 6),
    base!("SQ_INSTS_VALU_INT64", SQ, CDNA, "Number of VALU 64-bit integer instructions issued.", |a| a.valu_insts / 20),
    base!("SQ_INSTS_VALU_MFMA_MOPS_F16", SQ, CDNA, "Number of F16 MFMA ops, in units of 512.", |a| a.mfma_insts * 8),
    base!("SQ_INSTS_VALU_MFMA_MOPS_BF16", SQ, CDNA, "Number of BF16 MFMA ops, in units of 512.", |a| a.mfma_insts * 4),
    base!("SQ_INSTS_VALU_MFMA_MOPS_F32", SQ, CDNA, "Number of F32 MFMA ops, in units of 512.", |a| a.mfma_insts * 2),
    base!("SQ_INSTS_VALU_MFMA_MOPS_F64", SQ, CDNA, "Number of F64 MFMA ops, in units of 512.", |a| a.mfma_insts),
    base!("SQ_INSTS_VALU_MFMA_MOPS_I8", SQ, CDNA, "Number of I8 MFMA ops, in units of 512.", |a| a.mfma_insts * 16),
    base!("SQ_INSTS_VALU_MFMA_MOPS_F8", SQ, GFX942, "Number of F8 MFMA ops, in units of 512.", |a| a.mfma_insts * 16),
    base!("SQ_VALU_MFMA_BUSY_CYCLES", SQ, CDNA, "Number of cycles the MFMA ALU is busy.", |a| a.mfma_insts * 16),
    base!("SQ_LDS_IDX_ACTIVE", SQ, CDNA, "Number of cycles LDS is used for indexed operations.", |a| a.lds_insts * 2
        + a.lds_bank_conflicts),
    base!("SQ_WAIT_INST_LDS", SQ, CDNA, "Number of wave-cycles spent waiting for LDS instruction issue.", |a| a
        .lds_bank_conflicts
        * 2),
    base!("SQ_WAIT_INST_ANY", SQ, CDNA, "Number of wave-cycles spent waiting for any instruction issue.", |a| a
        .wait_cycles),
    base!("SQ_WAIT_INST_VALU", SQ, GFX90A, "Number of wave-cycles spent waiting for VALU instruction issue.", |a| a
        .wait_cycles
        / 4),
    base!("SQ_LDS_BANK_CONFLICT", SQ, CDNA, "Number of cycles LDS is stalled by bank conflicts. (emulated)", |a| a
        .lds_bank_conflicts),
    base!("TCC_HIT", TCC, CDNA, "Number of cache hits.", |a| a.l2_hits),
    base!("TCC_MISS", TCC, CDNA, "Number of cache misses. UC reads count as misses.", |a| a.l2_misses),
    base!("TCC_REQ", TCC, CDNA, "Number of requests of all types.", |a| a.l2_hits + a.l2_misses),
    base!("TCC_ATOMIC", TCC, CDNA, "Number of atomic requests of all types.", |a| a.l2_atomics),
    base!("TCC_EA_RDREQ", TCC, GFX90A, "Number of TCC/EA read requests (either 32-byte or 64-byte)", |a| a
        .dram_read_32b
        + a.dram_read_64b),
    base!("TCC_EA_RDREQ_32B", TCC, GFX90A, "Number of 32-byte TCC/EA read requests", |a| a.dram_read_32b),
    base!(
        "TCC_EA_WRREQ",
        TCC,
        GFX90A,
        "Number of transactions (either 32-byte or 64-byte) going over the TC_EA_wrreq interface.",
        |a| a.dram_write_32b + a.dram_write_64b
    ),
    base!(
        "TCC_EA_WRREQ_64B",
        TCC,
        GFX90A,
        "Number of 64-byte transactions going over the TC_EA_wrreq interface.",
        |a| a.dram_write_64b
    ),
    base!("TCC_EA_RDREQ_LEVEL", TCC, GFX90A, "The sum of the number of EA read requests in flight.", |a| (a
        .dram_read_32b
        + a.dram_read_64b)
        * 12),
    base!("TCC_EA_WRREQ_LEVEL", TCC, GFX90A, "The sum of the number of EA write requests in flight.", |a| (a
        .dram_write_32b
        + a.dram_write_64b)
        * 9),
    // gfx94x names its single EA interface EA0 and counts 128-byte reads apart (TCC_BUBBLE).
    base!("TCC_EA0_RDREQ", TCC, GFX942, "Number of TCC/EA read requests (32-, 64- or 128-byte)", |a| a.dram_read_32b
        + a.dram_read_64b),
    base!("TCC_EA0_RDREQ_32B", TCC, GFX942, "Number of 32-byte TCC/EA read requests", |a| a.dram_read_32b),
    base!("TCC_BUBBLE", TCC, GFX942, "Number of 128-byte read requests to EA", |a| a.dram_read_64b / 5),
    base!(
        "TCC_EA0_WRREQ",
        TCC,
        GFX942,
        "Number of 32- or 64-byte transactions going over the TC_EA_wrreq interface.",
        |a| a.dram_write_32b + a.dram_write_64b
    ),
    base!(
        "TCC_EA0_WRREQ_64B",
        TCC,
        GFX942,
        "Number of 64-byte transactions going over the TC_EA_wrreq interface.",
        |a| a.dram_write_64b
    ),
    base!("TCC_EA0_RDREQ_LEVEL", TCC, GFX942, "The sum of the number of EA read requests in flight.", |a| (a
        .dram_read_32b
        + a.dram_read_64b)
        * 12),
    base!("TCC_EA0_WRREQ_LEVEL", TCC, GFX942, "The sum of the number of EA write requests in flight.", |a| (a
        .dram_write_32b
        + a.dram_write_64b)
        * 9),
    base!("TCP_TCC_READ_REQ", TCP, CDNA, "Total read requests from TCP to all TCCs", |a| a.vmem_read_insts * 4),
    base!("TCP_TCC_WRITE_REQ", TCP, CDNA, "Total write requests from TCP to all TCCs", |a| a.vmem_write_insts * 4),
    base!("TCP_TCC_ATOMIC_REQ", TCP, CDNA, "Total atomic requests from TCP to all TCCs", |a| a.l2_atomics),
    base!("TCP_TCC_ATOMIC_WITH_RET_REQ", TCP, CDNA, "Total atomic requests with return from TCP to all TCCs", |a| a
        .l2_atomics
        / 2),
    base!(
        "TCP_TCC_ATOMIC_WITHOUT_RET_REQ",
        TCP,
        CDNA,
        "Total atomic requests without return from TCP to all TCCs",
        |a| a.l2_atomics - a.l2_atomics / 2
    ),
    base!("TCP_TOTAL_CACHE_ACCESSES", TCP, CDNA, "Total vector L1 cache accesses", |a| (a.vmem_read_insts
        + a.vmem_write_insts)
        * 16),
    base!("GRBM_COUNT", GRBM, CDNA, "Tie High - Count Number of Clocks", |a| a.busy_cycles + a.busy_cycles / 20),
    base!("GRBM_GUI_ACTIVE", GRBM, CDNA, "The GUI is Active", |a| a.busy_cycles),
];

macro_rules! sum_of {
    ($name:literal, $base:literal, $desc:literal) => {
        sum_of!(CDNA, $name, $base, $desc)
    };
    ($archs:expr, $name:literal, $base:literal, $desc:literal) => {
        DerivedCounter {
            name: $name,
            description: $desc,
            expression: concat!("reduce(", $base, ",sum)"),
            inputs: &[$base],
            archs: $archs,
            eval: |v| v($base),
        }
    };
}

/// Every derived counter.
pub static DERIVED: &[DerivedCounter] = &[
    sum_of!("TCC_HIT_sum", "TCC_HIT", "Number of cache hits. Sum over TCC instances."),
    sum_of!("TCC_MISS_sum", "TCC_MISS", "Number of cache misses. Sum over TCC instances."),
    sum_of!("TCC_REQ_sum", "TCC_REQ", "Number of requests. Sum over TCC instances."),
    sum_of!("TCC_ATOMIC_sum", "TCC_ATOMIC", "Number of atomic requests. Sum over TCC instances."),
    sum_of!(GFX90A, "TCC_EA_RDREQ_sum", "TCC_EA_RDREQ", "TCC/EA read requests. Sum over TCC instances."),
    sum_of!(
        GFX90A,
        "TCC_EA_RDREQ_32B_sum",
        "TCC_EA_RDREQ_32B",
        "32-byte TCC/EA read requests. Sum over TCC instances."
    ),
    sum_of!(GFX90A, "TCC_EA_WRREQ_sum", "TCC_EA_WRREQ", "TCC/EA write requests. Sum over TCC instances."),
    sum_of!(
        GFX90A,
        "TCC_EA_WRREQ_64B_sum",
        "TCC_EA_WRREQ_64B",
        "64-byte TCC/EA write requests. Sum over TCC instances."
    ),
    sum_of!(
        GFX90A,
        "TCC_EA_RDREQ_LEVEL_sum",
        "TCC_EA_RDREQ_LEVEL",
        "EA read requests in flight. Sum over TCC instances."
    ),
    sum_of!(
        GFX90A,
        "TCC_EA_WRREQ_LEVEL_sum",
        "TCC_EA_WRREQ_LEVEL",
        "EA write requests in flight. Sum over TCC instances."
    ),
    sum_of!(GFX942, "TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ", "TCC/EA read requests. Sum over TCC instances."),
    sum_of!(
        GFX942,
        "TCC_EA0_RDREQ_32B_sum",
        "TCC_EA0_RDREQ_32B",
        "32-byte TCC/EA read requests. Sum over TCC instances."
    ),
    sum_of!(GFX942, "TCC_BUBBLE_sum", "TCC_BUBBLE", "128-byte read requests to EA. Sum over TCC instances."),
    sum_of!(GFX942, "TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ", "TCC/EA write requests. Sum over TCC instances."),
    sum_of!(
        GFX942,
        "TCC_EA0_WRREQ_64B_sum",
        "TCC_EA0_WRREQ_64B",
        "64-byte TCC/EA write requests. Sum over TCC instances."
    ),
    sum_of!(
        GFX942,
        "TCC_EA0_RDREQ_LEVEL_sum",
        "TCC_EA0_RDREQ_LEVEL",
        "EA read requests in flight. Sum over TCC instances."
    ),
    sum_of!(
        GFX942,
        "TCC_EA0_WRREQ_LEVEL_sum",
        "TCC_EA0_WRREQ_LEVEL",
        "EA write requests in flight. Sum over TCC instances."
    ),
    sum_of!(
        "TCP_TCC_READ_REQ_sum",
        "TCP_TCC_READ_REQ",
        "Total read requests from TCP to all TCCs. Sum over TCP instances."
    ),
    sum_of!(
        "TCP_TCC_WRITE_REQ_sum",
        "TCP_TCC_WRITE_REQ",
        "Total write requests from TCP to all TCCs. Sum over TCP instances."
    ),
    sum_of!(
        "TCP_TCC_ATOMIC_REQ_sum",
        "TCP_TCC_ATOMIC_REQ",
        "Total atomic requests from TCP to all TCCs. Sum over TCP instances."
    ),
    sum_of!(
        "TCP_TCC_ATOMIC_WITH_RET_REQ_sum",
        "TCP_TCC_ATOMIC_WITH_RET_REQ",
        "Total atomic requests with return from TCP to all TCCs. Sum over TCP instances."
    ),
    sum_of!(
        "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum",
        "TCP_TCC_ATOMIC_WITHOUT_RET_REQ",
        "Total atomic requests without return from TCP to all TCCs. Sum over TCP instances."
    ),
    sum_of!(
        "TCP_TOTAL_CACHE_ACCESSES_sum",
        "TCP_TOTAL_CACHE_ACCESSES",
        "Total vector L1 cache accesses. Sum over TCP instances."
    ),
    // Defined for gfx90a and earlier; SDK 1.0 has no L2CacheHit for gfx94x.
    DerivedCounter {
        name: "L2CacheHit",
        description: "The percentage of fetch, write, atomic, and other instructions that hit the data in L2 cache.",
        expression: "100*reduce(TCC_HIT,sum)/(reduce(TCC_HIT,sum)+reduce(TCC_MISS,sum))",
        inputs: &["TCC_HIT", "TCC_MISS"],
        archs: GFX90A,
        eval: |v| {
            let total = v("TCC_HIT") + v("TCC_MISS");
            if total == 0.0 { 0.0 } else { 100.0 * v("TCC_HIT") / total }
        },
    },
    DerivedCounter {
        name: "GPU_UTIL",
        description: "Percentage of the time that GUI is active",
        expression: "100*reduce(GRBM_GUI_ACTIVE,max)/reduce(GRBM_COUNT,max)",
        inputs: &["GRBM_GUI_ACTIVE", "GRBM_COUNT"],
        archs: CDNA,
        eval: |v| if v("GRBM_COUNT") == 0.0 { 0.0 } else { 100.0 * v("GRBM_GUI_ACTIVE") / v("GRBM_COUNT") },
    },
    DerivedCounter {
        name: "FETCH_SIZE",
        description: "The total kilobytes fetched from the video memory. This is measured with all extra fetches and any cache or memory effects taken into account.",
        expression: "(reduce(TCC_EA_RDREQ_32B,sum)*32+(reduce(TCC_EA_RDREQ,sum)-reduce(TCC_EA_RDREQ_32B,sum))*64)/1024",
        inputs: &["TCC_EA_RDREQ_32B", "TCC_EA_RDREQ"],
        archs: GFX90A,
        eval: |v| (v("TCC_EA_RDREQ_32B") * 32.0 + (v("TCC_EA_RDREQ") - v("TCC_EA_RDREQ_32B")) * 64.0) / 1024.0,
    },
    DerivedCounter {
        name: "WRITE_SIZE",
        description: "The total kilobytes written to the video memory. This is measured with all extra fetches and any cache or memory effects taken into account.",
        expression: "((reduce(TCC_EA_WRREQ,sum)-reduce(TCC_EA_WRREQ_64B,sum))*32+reduce(TCC_EA_WRREQ_64B,sum)*64)/1024",
        inputs: &["TCC_EA_WRREQ", "TCC_EA_WRREQ_64B"],
        archs: GFX90A,
        eval: |v| ((v("TCC_EA_WRREQ") - v("TCC_EA_WRREQ_64B")) * 32.0 + v("TCC_EA_WRREQ_64B") * 64.0) / 1024.0,
    },
    DerivedCounter {
        name: "FETCH_SIZE",
        description: "The total kilobytes fetched from the video memory. This is measured with all extra fetches and any cache or memory effects taken into account.",
        expression: "(reduce(TCC_BUBBLE,sum)*128+(reduce(TCC_EA0_RDREQ,sum)-reduce(TCC_BUBBLE,sum)-reduce(TCC_EA0_RDREQ_32B,sum))*64+reduce(TCC_EA0_RDREQ_32B,sum)*32)/1024",
        inputs: &["TCC_BUBBLE", "TCC_EA0_RDREQ", "TCC_EA0_RDREQ_32B"],
        archs: GFX942,
        eval: |v| {
            (v("TCC_BUBBLE") * 128.0
                + (v("TCC_EA0_RDREQ") - v("TCC_BUBBLE") - v("TCC_EA0_RDREQ_32B")) * 64.0
                + v("TCC_EA0_RDREQ_32B") * 32.0)
                / 1024.0
        },
    },
    DerivedCounter {
        name: "WRITE_SIZE",
        description: "The total kilobytes written to the video memory. This is measured with all extra fetches and any cache or memory effects taken into account.",
        expression: "((reduce(TCC_EA0_WRREQ,sum)-reduce(TCC_EA0_WRREQ_64B,sum))*32+reduce(TCC_EA0_WRREQ_64B,sum)*64)/1024",
        inputs: &["TCC_EA0_WRREQ", "TCC_EA0_WRREQ_64B"],
        archs: GFX942,
        eval: |v| ((v("TCC_EA0_WRREQ") - v("TCC_EA0_WRREQ_64B")) * 32.0 + v("TCC_EA0_WRREQ_64B") * 64.0) / 1024.0,
    },
];

/// A counter as a tool sees it: base or derived, on one architecture.
#[derive(Debug, Clone, Copy)]
pub enum Counter {
    Base(&'static BaseCounter),
    Derived(&'static DerivedCounter),
}

impl Counter {
    pub fn name(self) -> &'static str {
        match self {
            Counter::Base(b) => b.name,
            Counter::Derived(d) => d.name,
        }
    }

    /// The base counters this one occupies in hardware.
    pub fn inputs(self) -> Vec<&'static BaseCounter> {
        match self {
            Counter::Base(b) => vec![b],
            Counter::Derived(d) => d.inputs.iter().filter_map(|n| base_by_name(n)).collect(),
        }
    }
}

fn base_by_name(name: &str) -> Option<&'static BaseCounter> {
    BASE.iter().find(|b| b.name == name)
}

/// The counters `arch` supports, in a stable order (the order of their ids).
pub fn supported(arch: Arch) -> Vec<Counter> {
    let bit = arch.bit();
    BASE.iter()
        .filter(|b| b.archs & bit != 0)
        .map(Counter::Base)
        .chain(DERIVED.iter().filter(|d| d.archs & bit != 0).map(Counter::Derived))
        .collect()
}

/// The variable that picks the GPUs' architectures in a process that does not set up the
/// machine itself (a tool's own, such as `rocprof-rs avail`), as `rocprof-sim --gpu-archs` does
/// in the driver: a comma-separated list of `gfx942` and `gfx90a`, one per GPU in agent order
/// (`gfx90a` alone: an MI200-only machine).
pub const ARCHS_VAR: &str = "ROCPROF_SIM_GPU_ARCHS";

/// A GPU architecture list that names an architecture the simulator does not model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ROCPROF_SIM_GPU_ARCHS: `{name}` (item {position}) is not a modelled GPU architecture (gfx942, gfx90a)")]
pub struct UnknownArch {
    pub name: String,
    pub position: usize,
}

/// Parses a list as [`ARCHS_VAR`] holds it.
pub fn parse_archs(list: &str) -> Result<Vec<Arch>, UnknownArch> {
    list.split(',')
        .enumerate()
        .map(|(i, name)| match name.trim() {
            "gfx942" => Ok(Arch::Gfx942),
            "gfx90a" => Ok(Arch::Gfx90a),
            other => Err(UnknownArch { name: other.to_owned(), position: i + 1 }),
        })
        .collect()
}

/// The architectures [`ARCHS_VAR`] asks for: `None` when it is unset.
pub fn archs_from_env() -> Option<Result<Vec<Arch>, UnknownArch>> {
    std::env::var(ARCHS_VAR).ok().map(|list| parse_archs(&list))
}

/// The GPUs of a simulated machine in agent order: `archs` if given, else an MI300X-like gfx942,
/// an MI210-like gfx90a and more gfx942s up to `gpus`; then the gfx1151-like consumer APU if
/// asked for.
pub fn machine(gpus: u32, consumer_gpu: bool, archs: Option<&[Arch]>) -> Vec<Arch> {
    let mut archs: Vec<Arch> = archs.map_or_else(
        || (0..gpus).map(|i| if i == 1 { Arch::Gfx90a } else { Arch::Gfx942 }).collect(),
        <[Arch]>::to_vec,
    );
    if consumer_gpu {
        archs.push(Arch::Gfx1151);
    }
    archs
}

/// The SDK id of the `index`-th counter [`supported`] lists for `arch`: ids are per
/// (architecture, counter), as the SDK's metric tables are per architecture.
pub fn counter_id(arch: Arch, index: usize) -> u64 {
    Arch::ALL.iter().position(|a| *a == arch).expect("a modelled arch") as u64 * 256 + index as u64 + 1
}

/// The counter with SDK id `id`.
pub fn counter_by_id(id: u64) -> Option<(Arch, Counter)> {
    let arch = *Arch::ALL.get(((id.checked_sub(1)?) / 256) as usize)?;
    let counter = *supported(arch).get(((id - 1) % 256) as usize)?;
    Some((arch, counter))
}

/// Looks a counter up by name on `arch`.
pub fn by_name(arch: Arch, name: &str) -> Option<Counter> {
    supported(arch).into_iter().find(|c| c.name() == name)
}

/// The dimensions of `counter` on `arch`: derived counters are reduced to one instance.
pub fn counter_dims(counter: Counter, arch: Arch) -> &'static [(Dim, u64)] {
    match counter {
        Counter::Base(b) => dims(b.block, arch),
        Counter::Derived(_) => &[],
    }
}

/// Whether `counters` fit in one hardware pass on `arch`: per block, the distinct base counters
/// they need must not exceed the block's limit.
pub fn fits_one_pass(counters: &[Counter]) -> Result<(), String> {
    let mut per_block: Vec<(&'static str, Vec<&'static str>, usize)> = Vec::new();
    for counter in counters {
        for base in counter.inputs() {
            match per_block.iter_mut().find(|(block, _, _)| *block == base.block.name) {
                Some((_, names, _)) => {
                    if !names.contains(&base.name) {
                        names.push(base.name);
                    }
                }
                None => per_block.push((base.block.name, vec![base.name], base.block.per_pass)),
            }
        }
    }
    match per_block.iter().find(|(_, names, limit)| names.len() > *limit) {
        Some((block, names, limit)) => Err(format!("block {block} needs {} counters, limit {limit}", names.len())),
        None => Ok(()),
    }
}

/// The total of a counter for one dispatch: what a tool gets by summing its instances.
pub fn total(counter: Counter, activity: &SimActivity) -> f64 {
    match counter {
        Counter::Base(b) => (b.source)(activity) as f64,
        Counter::Derived(d) => (d.eval)(&|name| base_by_name(name).map_or(0.0, |b| (b.source)(activity) as f64)),
    }
}

/// Splits a counter's total over its instances. Base counters split an integer total so the
/// parts sum back exactly; `salt` (the dispatch id) varies the split between dispatches.
pub fn instance_values(counter: Counter, arch: Arch, activity: &SimActivity, salt: u64) -> Vec<(Vec<(Dim, u64)>, f64)> {
    let dims = counter_dims(counter, arch);
    let count: u64 = dims.iter().map(|(_, n)| n).product();
    let whole = total(counter, activity);
    if dims.is_empty() {
        return vec![(Vec::new(), whole)];
    }
    let total_int = whole as u64;
    let base = total_int / count;
    let extra = total_int % count;
    let offset = salt % count;
    (0..count)
        .map(|i| {
            let mut rest = i;
            let positions = dims
                .iter()
                .map(|&(dim, n)| {
                    let pos = rest % n;
                    rest /= n;
                    (dim, pos)
                })
                .collect();
            let share = base + u64::from((i + count - offset) % count < extra);
            (positions, share as f64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_values_sum_to_the_total() {
        let activity = crate::kernels::CATALOG[5].activity(1 << 20, 256, 100_000);
        for arch in [Arch::Gfx942, Arch::Gfx90a] {
            for counter in supported(arch) {
                let parts = instance_values(counter, arch, &activity, 12_345);
                let sum: f64 = parts.iter().map(|(_, v)| v).sum();
                assert_eq!(sum, total(counter, &activity), "{} on {}", counter.name(), arch.name());
            }
        }
    }

    #[test]
    fn instance_ids_round_trip() {
        let id = encode_instance(77, &[(Dim::Xcc, 5), (Dim::Instance, 15)]);
        assert_eq!(decode_counter(id), 77);
        assert_eq!(decode_position(id, Dim::Xcc as u64), Some(5));
        assert_eq!(decode_position(id, Dim::Instance as u64), Some(15));
        assert_eq!(decode_position(id, Dim::ShaderEngine as u64), Some(0));
    }

    #[test]
    fn pass_limits_count_distinct_base_counters() {
        let arch = Arch::Gfx942;
        let tcc: Vec<Counter> = ["TCC_HIT_sum", "TCC_MISS_sum", "L2CacheHit", "TCC_REQ"]
            .iter()
            .map(|n| by_name(Arch::Gfx90a, n).unwrap())
            .collect();
        assert!(fits_one_pass(&tcc).is_ok(), "L2CacheHit reuses TCC_HIT and TCC_MISS");
        let five: Vec<Counter> = ["TCC_HIT", "TCC_MISS", "TCC_REQ", "TCC_ATOMIC", "TCC_EA0_RDREQ"]
            .iter()
            .map(|n| by_name(arch, n).unwrap())
            .collect();
        assert!(fits_one_pass(&five).is_err());
        assert!(supported(Arch::Gfx1151).is_empty());
        assert!(by_name(Arch::Gfx942, "SQ_WAIT_INST_VALU").is_none(), "not on gfx942, as madengine notes");
        assert!(by_name(Arch::Gfx942, "L2CacheHit").is_none(), "SDK 1.0 defines it up to gfx90a only");
        assert_eq!(parse_archs("gfx90a, gfx942"), Ok(vec![Arch::Gfx90a, Arch::Gfx942]));
        let bad = parse_archs("gfx90a,gfx1030").unwrap_err();
        assert_eq!((bad.name.as_str(), bad.position), ("gfx1030", 2));
        assert!(by_name(Arch::Gfx942, "TCC_EA_RDREQ").is_none() && by_name(Arch::Gfx90a, "TCC_EA0_RDREQ").is_none());
    }
}
