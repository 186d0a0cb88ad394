//! The roofline of one kernel: its operations per precision and its bytes per memory level,
//! from hardware counters, placed against the device's ceilings.
//!
//! The counting conventions are rocprofiler-compute's where they are right, and are written out
//! in this folder's README.md (§1, §4). In short:
//!
//! - A VALU instruction counts 64 lanes (the execution mask is ignored, as the counters cannot
//!   see it); FMA is 2 operations, add, multiply and transcendental 1. A packed instruction is
//!   counted once, so VALU FLOPs are held against the non-packed ceiling, the one counters can
//!   reach.
//! - MFMA operations are 512 per `SQ_INSTS_VALU_MFMA_MOPS_*` count.
//! - DRAM bytes come from the L2's requests to the fabric by request size (32, 64 and, from
//!   gfx94x on, 128 bytes); L2 bytes are the vector L1's requests to the L2, reads at the L1's
//!   line (64 bytes up to gfx90a, 128 from gfx94x) and writes and atomics at 64 bytes (not
//!   rocprofiler-compute's roofline, which takes every request as 64 bytes and so puts a
//!   streaming kernel's L2 traffic below its HBM traffic on gfx94x); vector L1 bytes are its tag
//!   accesses times its line; LDS bytes are its active, conflict-free cycles times 128 bytes, an
//!   upper bound.
//! - NVIDIA is counted as Nsight Compute's roofline counts (README.md §4.6): predicated thread
//!   instructions, half ones as packed pairs; tensor-core ops from `sm__ops_path_tensor_src_*`,
//!   one a FLOP; shared-memory bytes are its wavefronts times 128 bytes, conflict replays
//!   included.
//!
//! A quantity whose counters were not collected is reported missing, never taken as zero. FLOP
//! counters that were all collected and are all zero are a measurement, though: such a kernel
//! sits at intensity 0, where its bytes alone bound it ([`zero_flops`]).

use std::collections::BTreeMap;

use serde::Serialize;

use super::specs::{Device, Level, Pipe, Precision};

/// Which counter formulas an architecture takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub enum Family {
    /// gfx908 (MI100): no per-precision FLOP counters.
    Cdna1,
    /// gfx90a (MI200).
    Cdna2,
    /// gfx940, gfx941, gfx942 (MI300).
    Cdna3,
    /// gfx950 (MI350).
    Cdna4,
    /// gfx10, gfx11, gfx12: VALU instructions without their precision.
    Rdna,
    /// An NVIDIA compute capability: CUPTI's metrics.
    Nvidia,
    Unknown,
}

impl Family {
    /// The family of an LLVM target (`gfx942`) or a compute capability (`9.0`).
    pub fn of(target: &str) -> Family {
        let target = target.trim().to_ascii_lowercase();
        match target.as_str() {
            "gfx908" => Family::Cdna1,
            "gfx90a" => Family::Cdna2,
            "gfx940" | "gfx941" | "gfx942" => Family::Cdna3,
            "gfx950" => Family::Cdna4,
            t if t.starts_with("gfx10") || t.starts_with("gfx11") || t.starts_with("gfx12") => Family::Rdna,
            t if t.split('.').count() == 2 && t.split('.').all(|p| p.parse::<u32>().is_ok()) => Family::Nvidia,
            // The CUPTI backend's agent rows name the target as CUDA does: `sm_90`.
            t if t
                .strip_prefix("sm_")
                .is_some_and(|cc| !cc.is_empty() && cc.trim_end_matches(['a', 'f']).parse::<u32>().is_ok()) =>
            {
                Family::Nvidia
            }
            _ => Family::Unknown,
        }
    }

    /// The vector L1's line: what one tag access moves.
    fn l1_line_bytes(self) -> f64 {
        match self {
            Family::Cdna3 | Family::Cdna4 => 128.0,
            _ => 64.0,
        }
    }

    /// What one vector-L1 read request to the L2 (`TCP_TCC_READ_REQ`) carries: a whole L1 line.
    /// Measured on a copy that reads 8 MiB: 131,072 requests on gfx90a (64 B each), 65,536 on
    /// gfx942 and gfx950 (128 B), whose write requests stay at 131,072 for 8 MiB (64 B); the
    /// rocprofiler-compute workloads in tests/fixtures/analysis-real. rocprofiler-compute's own
    /// gfx942 and gfx950 speed-of-light panels count L1 and L2 lines at 128 B too.
    fn l2_read_bytes(self) -> f64 {
        self.l1_line_bytes()
    }
}

/// What one vector-L1 write or atomic request to the L2 carries, on every CDNA part.
const L2_WRITE_BYTES: f64 = 64.0;

/// A kernel's work: operations per precision and pipe, bytes per level.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Work {
    /// FLOPs (operations, for integer precisions), by precision and pipe.
    #[serde(serialize_with = "ops_list")]
    #[schemars(with = "Vec<OpsEntry>")]
    pub ops: BTreeMap<(Precision, Pipe), f64>,
    /// Bytes moved at each level.
    #[schemars(schema_with = "level_map")]
    pub bytes: BTreeMap<Level, f64>,
    /// What could not be counted, and why.
    pub missing: Vec<String>,
    /// Caveats on what was counted.
    pub notes: Vec<String>,
    /// Every FLOP counter the architecture has was collected, so that zero operations are
    /// measured, not unknown.
    pub flops_counted: bool,
    /// Tensor-core instructions ran whose FLOPs the counters cannot give (HMMA with an FP32
    /// accumulator on GH100, per dispatch): the kernel's FLOPs are unknown, so it has no point.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uncounted_tensor: Option<f64>,
}

impl Work {
    /// Whether the counters measured no floating-point (or matrix integer) work at all.
    pub fn measured_no_flops(&self) -> bool {
        self.flops_counted && self.ops.values().all(|&ops| ops == 0.0)
    }
}

/// [`Work::bytes`]'s schema: an object whose keys are levels.
fn level_map(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let level = generator.subschema_for::<Level>();
    schemars::json_schema!({ "type": "object", "propertyNames": level, "additionalProperties": { "type": "number" } })
}

/// One entry of [`Work::ops`] as JSON gives it.
#[derive(Serialize, schemars::JsonSchema)]
struct OpsEntry {
    precision: Precision,
    pipe: Pipe,
    ops: f64,
}

/// `ops` as JSON can hold it: a list of `{precision, pipe, ops}`.
fn ops_list<S: serde::Serializer>(ops: &BTreeMap<(Precision, Pipe), f64>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq as _;
    let mut seq = s.serialize_seq(Some(ops.len()))?;
    for (&(precision, pipe), &ops) in ops {
        seq.serialize_element(&OpsEntry { precision, pipe, ops })?;
    }
    seq.end()
}

/// Counter values by name (summed over instances and over the kernel's dispatches). A value
/// that is not a finite number (a dataset someone else wrote) is no value: it would put the
/// kernel at `inf%` of its roof, or at an efficiency of 1 once capped.
pub trait Counters {
    fn get(&self, name: &str) -> Option<f64>;
}

impl<S: std::hash::BuildHasher> Counters for std::collections::HashMap<String, f64, S> {
    fn get(&self, name: &str) -> Option<f64> {
        std::collections::HashMap::get(self, name).copied().filter(|v| v.is_finite())
    }
}

impl Counters for BTreeMap<String, f64> {
    fn get(&self, name: &str) -> Option<f64> {
        BTreeMap::get(self, name).copied().filter(|v| v.is_finite())
    }
}

/// The first of `names` the counters hold, each also tried with and without the SDK's `_sum`
/// suffix (the sum over a block's instances, which is what our rows hold either way).
pub fn any(c: &dyn Counters, names: &[&str]) -> Option<f64> {
    names.iter().find_map(|name| {
        c.get(name).or_else(|| match name.strip_suffix("_sum") {
            Some(bare) => c.get(bare),
            None => c.get(&format!("{name}_sum")),
        })
    })
}

/// Every one of `names` (with the same fallbacks), or None if any is missing.
fn all<const N: usize>(c: &dyn Counters, names: [&[&str]; N]) -> Option<[f64; N]> {
    let mut out = [0.0; N];
    for (slot, alternatives) in out.iter_mut().zip(names) {
        *slot = any(c, alternatives)?;
    }
    Some(out)
}

/// Counts a kernel's work from its counters, on an architecture of `family` whose waves are
/// `wave_size` lanes wide.
pub fn work(family: Family, wave_size: f64, c: &dyn Counters) -> Work {
    let mut w = Work::default();
    let gaps = w.missing.len();
    match family {
        Family::Cdna2 | Family::Cdna3 | Family::Cdna4 => {
            cdna_valu(&mut w, c);
            cdna_mfma(&mut w, c, family);
        }
        Family::Cdna1 => {
            w.missing.push("FLOPs: gfx908 has no per-precision VALU or MFMA counters".into());
        }
        Family::Rdna => match any(c, &["SQ_INSTS_VALU"]) {
            Some(valu) => {
                w.ops.insert((Precision::Fp32, Pipe::Vector), wave_size * valu);
                w.notes.push(format!(
                    "RDNA counts VALU instructions without their precision: every one is taken as one \
                     {wave_size}-lane FP32 operation (WMMA is not broken out)"
                ));
            }
            None => w.missing.push("FLOPs: SQ_INSTS_VALU was not collected".into()),
        },
        Family::Nvidia => nvidia_flops(&mut w, c),
        Family::Unknown => w.missing.push("FLOPs: an architecture this analysis does not know".into()),
    }
    // Each FLOP counter missing left a line in `missing`.
    w.flops_counted = !w.ops.is_empty() && w.missing.len() == gaps;
    match family {
        Family::Nvidia => nvidia_bytes(&mut w, c),
        Family::Unknown => w.missing.push("bytes: an architecture this analysis does not know".into()),
        _ => amd_bytes(&mut w, c, family),
    }
    // Finite counters near f64's largest still overflow once scaled.
    let (ops, bytes) = (w.ops.len(), w.bytes.len());
    w.ops.retain(|_, v| v.is_finite());
    w.bytes.retain(|_, v| v.is_finite());
    if (ops, bytes) != (w.ops.len(), w.bytes.len()) {
        w.flops_counted &= ops == w.ops.len();
        w.missing.push("FLOPs or bytes: counter values too large for a number (beyond 1.8e308)".into());
    }
    w
}

fn cdna_valu(w: &mut Work, c: &dyn Counters) {
    for (precision, suffix) in [(Precision::Fp16, "F16"), (Precision::Fp32, "F32"), (Precision::Fp64, "F64")] {
        let name = |op: &str| format!("SQ_INSTS_VALU_{op}_{suffix}");
        let (add, mul, fma, trans) = (name("ADD"), name("MUL"), name("FMA"), name("TRANS"));
        match all(c, [&[add.as_str()], &[mul.as_str()], &[fma.as_str()], &[trans.as_str()]]) {
            Some([add, mul, fma, trans]) => {
                w.ops.insert((precision, Pipe::Vector), 64.0 * (add + mul + 2.0 * fma + trans));
            }
            None => w.missing.push(format!("{} VALU FLOPs: {add}, {mul}, {fma} or {trans} missing", precision.name())),
        }
    }
}

fn cdna_mfma(w: &mut Work, c: &dyn Counters, family: Family) {
    let mut kinds = vec![
        (Precision::Fp16, "F16"),
        (Precision::Bf16, "BF16"),
        (Precision::Fp32, "F32"),
        (Precision::Fp64, "F64"),
        (Precision::Int8, "I8"),
    ];
    if matches!(family, Family::Cdna3 | Family::Cdna4) {
        kinds.push((Precision::Fp8, "F8"));
    }
    if family == Family::Cdna4 {
        // One counter for FP6 and FP4, which run at the same rate on gfx950.
        kinds.push((Precision::Fp6, "F6F4"));
    }
    for (precision, suffix) in kinds {
        let name = format!("SQ_INSTS_VALU_MFMA_MOPS_{suffix}");
        match any(c, &[name.as_str()]) {
            Some(mops) => {
                w.ops.insert((precision, Pipe::Matrix), 512.0 * mops);
            }
            None => w.missing.push(format!("{} MFMA FLOPs: {name} missing", precision.name())),
        }
    }
}

fn amd_bytes(w: &mut Work, c: &dyn Counters, family: Family) {
    let dram = match family {
        // gfx950 counts its reads by size; TCC_BUBBLE, gfx942's count of 128-byte reads, stays
        // 0 there (a real MI350 copy: 65,640 reads for 8 MiB, TCC_BUBBLE 0), so without
        // TCC_EA0_RDREQ_128B the bytes are not known rather than a quarter of them.
        Family::Cdna4 => all(
            c,
            [
                &["TCC_EA0_RDREQ_128B_sum"],
                &["TCC_EA0_RDREQ_32B_sum"],
                &["TCC_EA0_RDREQ_sum"],
                &["TCC_EA0_WRREQ_sum"],
                &["TCC_EA0_WRREQ_64B_sum"],
            ],
        )
        .map(|[rd128, rd32, rd, wr, wr64]| {
            128.0 * rd128 + 32.0 * rd32 + 64.0 * (rd - rd128 - rd32) + 32.0 * (wr - wr64) + 64.0 * wr64
        }),
        Family::Cdna3 => all(
            c,
            [
                &["TCC_BUBBLE_sum"],
                &["TCC_EA0_RDREQ_32B_sum"],
                &["TCC_EA0_RDREQ_sum"],
                &["TCC_EA0_WRREQ_sum"],
                &["TCC_EA0_WRREQ_64B_sum"],
            ],
        )
        .map(|[bubble, rd32, rd, wr, wr64]| {
            128.0 * bubble + 32.0 * rd32 + 64.0 * (rd - bubble - rd32) + 32.0 * (wr - wr64) + 64.0 * wr64
        }),
        Family::Cdna1 | Family::Cdna2 => all(
            c,
            [
                &["TCC_EA_RDREQ_32B_sum", "TCC_EA0_RDREQ_32B_sum"],
                &["TCC_EA_RDREQ_sum", "TCC_EA0_RDREQ_sum"],
                &["TCC_EA_WRREQ_sum", "TCC_EA0_WRREQ_sum"],
                &["TCC_EA_WRREQ_64B_sum", "TCC_EA0_WRREQ_64B_sum"],
            ],
        )
        .map(|[rd32, rd, wr, wr64]| 32.0 * rd32 + 64.0 * (rd - rd32) + 32.0 * (wr - wr64) + 64.0 * wr64),
        _ => all(
            c,
            [
                &["GL2C_EA_RDREQ_32B_sum"],
                &["GL2C_EA_RDREQ_64B_sum"],
                &["GL2C_EA_RDREQ_96B_sum"],
                &["GL2C_EA_RDREQ_128B_sum"],
                &["GL2C_MC_WRREQ_sum"],
                &["GL2C_EA_WRREQ_64B_sum"],
            ],
        )
        .map(|[r32, r64, r96, r128, wr, wr64]| {
            32.0 * r32 + 64.0 * r64 + 96.0 * r96 + 128.0 * r128 + 32.0 * (wr - wr64) + 64.0 * wr64
        }),
    };
    // rocprof v1's derived FETCH_SIZE and WRITE_SIZE are the same sums, in KiB.
    let dram = dram.or_else(|| all(c, [&["FETCH_SIZE"], &["WRITE_SIZE"]]).map(|[f, w]| 1024.0 * (f + w)));
    let what = if family == Family::Cdna4 {
        "DRAM bytes: the L2's read and write requests by size (gfx950's 128-byte reads are TCC_EA0_RDREQ_128B)"
    } else {
        "DRAM bytes: the L2's read and write requests by size"
    };
    put(w, Level::Dram, dram, what);
    if family == Family::Rdna {
        w.missing.push("L2, L1 and LDS bytes: RDNA's counters do not give them".into());
        return;
    }
    let l2 = all(
        c,
        [
            &["TCP_TCC_READ_REQ_sum"],
            &["TCP_TCC_WRITE_REQ_sum"],
            &["TCP_TCC_ATOMIC_WITH_RET_REQ_sum"],
            &["TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum"],
        ],
    )
    .map(|[read, write, atomic, atomic_no_ret]| {
        family.l2_read_bytes() * read + L2_WRITE_BYTES * (write + atomic + atomic_no_ret)
    });
    put(w, Level::L2, l2, "L2 bytes: TCP_TCC_{READ,WRITE,ATOMIC_WITH_RET,ATOMIC_WITHOUT_RET}_REQ");
    let l1 = any(c, &["TCP_TOTAL_CACHE_ACCESSES_sum"]).map(|a| a * family.l1_line_bytes());
    put(w, Level::L1, l1, "L1 bytes: TCP_TOTAL_CACHE_ACCESSES");
    let lds = all(c, [&["SQ_LDS_IDX_ACTIVE"], &["SQ_LDS_BANK_CONFLICT"]])
        .map(|[active, conflict]| (active - conflict).max(0.0) * 128.0);
    put(w, Level::Lds, lds, "LDS bytes: SQ_LDS_IDX_ACTIVE and SQ_LDS_BANK_CONFLICT");
}

/// NVIDIA's tensor-core FLOP metrics every architecture the CUPTI preset serves collects. One op
/// of `sm__ops_path_tensor_src_*` is one FLOP: on an H100, ncu counted 2·2048³ of them for a
/// GEMM of 2·2048³ FLOPs in bf16, fp16, tf32 and fp64 alike (bench/gpu/range_probe,
/// gemm_probe.py). `sm__inst_executed_pipe_tensor_op_hmma` is no FLOP count: it also counts
/// non-tensor `HFMA2.MMA` instructions.
///
/// Each precision has alternatives, each a set of metrics summed, the first fully collected
/// taken. FP16 comes by path where the total cannot be had: `sm__ops_path_tensor_src_fp16`
/// needs two passes by itself on GH100, so the CUPTI preset collects Hopper's HGMMA and the HMMA
/// of either accumulator instead, and GA100 names its two HMMA paths by destination.
const NVIDIA_TENSOR: [(Precision, &[&[&str]]); 4] = [
    (
        Precision::Fp16,
        &[
            &["sm__ops_path_tensor_src_fp16.sum"],
            &[
                "sm__ops_path_tensor_op_hgmma_src_fp16.sum",
                "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum",
                "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum",
            ],
            &["sm__ops_path_tensor_src_fp16_dst_fp16.sum", "sm__ops_path_tensor_src_fp16_dst_fp32.sum"],
            // GH100 per dispatch (the CUPTI preset): HMMA with an FP32 accumulator is not
            // countable there, so Ampere-style FP16 MMA is left out (see NVIDIA_PARTIAL_PATHS).
            &["sm__ops_path_tensor_op_hgmma_src_fp16.sum", "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum"],
        ],
    ),
    (
        Precision::Bf16,
        &[&["sm__ops_path_tensor_src_bf16_dst_fp32.sum"], &["sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum"]],
    ),
    (
        Precision::Tf32,
        &[&["sm__ops_path_tensor_src_tf32_dst_fp32.sum"], &["sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum"]],
    ),
    (Precision::Fp64, &[&["sm__ops_path_tensor_src_fp64.sum"]]),
];

/// Where a precision's tensor FLOPs were counted by Hopper's HGMMA path alone (what the CUPTI
/// preset can count per dispatch on GH100): HMMA (`mma.sync`) kernels of that precision are not
/// in it, which the work's notes say.
const NVIDIA_PARTIAL_PATHS: [&str; 3] = [
    "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum",
    "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum",
    "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum",
];

/// The sum of the first of `alternatives` whose every metric was collected.
fn first_sum(c: &dyn Counters, alternatives: &[&[&str]]) -> Option<f64> {
    alternatives.iter().find_map(|set| set.iter().map(|name| any(c, &[name])).sum::<Option<f64>>())
}

/// The tensor-core metrics only some architectures have (FP8 from Ada and Hopper on), taken when
/// collected. One op is assumed to be one FLOP (one operation for INT8), as for the others: not
/// measured.
const NVIDIA_TENSOR_OPTIONAL: [(Precision, &str); 2] =
    [(Precision::Fp8, "sm__ops_path_tensor_src_fp8.sum"), (Precision::Int8, "sm__ops_path_tensor_src_int8.sum")];

/// The SASS floating-point operations NVIDIA's FLOP counters count, one counter each
/// (`smsp__sass_thread_inst_executed_op_{op}_pred_on.sum`).
pub const SASS_FP_OPS: [&str; 9] = ["dfma", "dadd", "dmul", "ffma", "fadd", "fmul", "hfma", "hadd", "hmul"];

/// NVIDIA, as Nsight Compute's roofline sections count: per-thread instruction counts that
/// honour predication (`_pred_on`), FMA as two. A half-precision instruction is taken as packed
/// (`HADD2`, `HMUL2`, `HFMA2`: two lanes), so HADD and HMUL count 2 and HFMA 4, as ncu's
/// `derived__smsp__sass_thread_inst_executed_op_{hadd,hmul}_pred_on_x2` and `..._hfma_pred_on_x4`
/// do in `sections/SpeedOfLight_HierarchicalHalfRooflineChart.section` (the copy read:
/// github.com/xingxerx/Qallow@e3efc6f). A scalar half instruction is counted as two. Tensor-core
/// FLOPs come from [`NVIDIA_TENSOR`] and, where collected, [`NVIDIA_TENSOR_OPTIONAL`].
fn nvidia_flops(w: &mut Work, c: &dyn Counters) {
    let metric = |op: &str| format!("smsp__sass_thread_inst_executed_op_{op}_pred_on.sum");
    for (precision, lanes, [fma, add, mul]) in [
        (Precision::Fp64, 1.0, ["dfma", "dadd", "dmul"]),
        (Precision::Fp32, 1.0, ["ffma", "fadd", "fmul"]),
        (Precision::Fp16, 2.0, ["hfma", "hadd", "hmul"]),
    ] {
        let (f, a, m) = (metric(fma), metric(add), metric(mul));
        match all(c, [&[f.as_str()], &[a.as_str()], &[m.as_str()]]) {
            Some([f, a, m]) => {
                w.ops.insert((precision, Pipe::Vector), lanes * (2.0 * f + a + m));
            }
            None => w.missing.push(format!("{} FLOPs: {f}, {a} or {m} missing", precision.name())),
        }
    }
    if NVIDIA_PARTIAL_PATHS.iter().any(|m| c.get(m).is_some())
        && any(c, &["sm__ops_path_tensor_src_bf16_dst_fp32.sum"]).is_none()
    {
        w.notes.push(
            "bf16, tf32 and FP32-accumulate fp16 tensor FLOPs are Hopper's HGMMA path alone (the only one \
             countable per dispatch on GH100): mma.sync (HMMA) kernels' tensor work in them is not counted"
                .to_owned(),
        );
    }
    let partial = any(c, &["sm__ops_path_tensor_src_bf16_dst_fp32.sum"]).is_none()
        && any(c, &["sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum"]).is_some();
    // `..._op_hmma` counts warpgroup GMMA and the non-tensor HFMA2.MMA too (a bf16 nvjet GEMM
    // shows as many HMMA as GMMA instructions on an H100): what is left is mma.sync. Without the
    // GMMA count, only a kernel whose HGMMA paths counted nothing is taken for HMMA work.
    let hgmma_flops: f64 = ["bf16_dst_fp32", "tf32_dst_fp32", "fp16"]
        .iter()
        .filter_map(|p| any(c, &[&format!("sm__ops_path_tensor_op_hgmma_src_{p}.sum")]))
        .sum();
    let hmma = all(
        c,
        [&["sm__inst_executed_pipe_tensor_op_hmma.sum"], &["sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum"]],
    )
    .and_then(|[hmma, hfma2]| match any(c, &["sm__inst_executed_pipe_tensor_op_gmma.sum"]) {
        Some(gmma) => Some((hmma - hfma2 - gmma).max(0.0)),
        None => (hgmma_flops == 0.0).then_some((hmma - hfma2).max(0.0)),
    });
    if partial && let Some(n) = hmma.filter(|&n| n > 0.0) {
        w.uncounted_tensor = Some(n);
        w.missing.push(format!(
            "tensor FLOPs: {n:.0} HMMA (mma.sync) instructions ran, whose FP32-accumulate FLOPs CUPTI cannot count \
             per dispatch on this GPU"
        ));
    }
    for (precision, alternatives) in NVIDIA_TENSOR {
        match first_sum(c, alternatives) {
            Some(ops) => {
                w.ops.insert((precision, Pipe::Matrix), ops);
            }
            None => {
                w.missing.push(format!("{} tensor FLOPs: {} missing", precision.name(), alternatives[0].join(" + ")))
            }
        }
    }
    let mut absent = Vec::new();
    for (precision, name) in NVIDIA_TENSOR_OPTIONAL {
        match any(c, &[name]) {
            Some(ops) => {
                w.ops.insert((precision, Pipe::Matrix), ops);
            }
            None => absent.push(name),
        }
    }
    if !absent.is_empty() {
        w.notes.push(format!(
            "{} not collected (not every architecture has it): its tensor work, if any, is not counted",
            absent.join(" and ")
        ));
    }
}

/// NVIDIA's shared-memory wavefronts: one moves at most 128 bytes (32 banks of 4 bytes) and the
/// pipe takes one a cycle per SM; a bank conflict replays the access as more wavefronts.
const SHARED_WAVEFRONTS: &str = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum";

/// The shared-memory wavefronts that were bank-conflict replays: the excess over the
/// conflict-free count (NVIDIA forum, "Clarification: bank_conflicts metric vs wavefronts for
/// shared memory LDS.128": 247,645,440 conflicts = 283,023,360 − 35,377,920 ideal wavefronts).
const SHARED_CONFLICTS: &str = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum";

/// NVIDIA: DRAM reads and writes, the L2 slices' and the L1's tag-stage bytes, and the
/// shared-memory pipe's wavefronts × 128 bytes. The last is the bandwidth the shared pipe
/// spent, conflict replays included (AMD's LDS bytes leave its conflict cycles out): what binds a
/// conflicted kernel, and an upper bound on the bytes it asked for.
fn nvidia_bytes(w: &mut Work, c: &dyn Counters) {
    let dram = all(c, [&["dram__bytes_read.sum"], &["dram__bytes_write.sum"]]).map(|[r, w]| r + w);
    put(w, Level::Dram, dram, "DRAM bytes: dram__bytes_read.sum and dram__bytes_write.sum");
    put(w, Level::L2, any(c, &["lts__t_bytes.sum"]), "L2 bytes: lts__t_bytes.sum");
    put(w, Level::L1, any(c, &["l1tex__t_bytes.sum"]), "L1 bytes: l1tex__t_bytes.sum");
    let shared = any(c, &[SHARED_WAVEFRONTS]).map(|wavefronts| 128.0 * wavefronts);
    put(w, Level::Lds, shared, &format!("shared-memory bytes: {SHARED_WAVEFRONTS}"));
}

/// The share of LDS (shared-memory) work lost to bank conflicts, where the counters give it. AMD:
/// `SQ_LDS_BANK_CONFLICT / SQ_LDS_IDX_ACTIVE`, conflict cycles over active cycles (`SQC_` on
/// RDNA). NVIDIA: conflict wavefronts over all shared wavefronts, `l1tex__data_bank_conflicts_
/// pipe_lsu_mem_shared / l1tex__data_pipe_lsu_wavefronts_mem_shared`.
pub fn lds_conflicts(family: Family, c: &dyn Counters) -> Option<f64> {
    let (conflicts, active) = match family {
        Family::Nvidia => (any(c, &[SHARED_CONFLICTS])?, any(c, &[SHARED_WAVEFRONTS])?),
        _ => (
            any(c, &["SQ_LDS_BANK_CONFLICT", "SQC_LDS_BANK_CONFLICT"])?,
            any(c, &["SQ_LDS_IDX_ACTIVE", "SQC_LDS_IDX_ACTIVE"])?,
        ),
    };
    (active > 0.0).then(|| conflicts / active)
}

fn put(w: &mut Work, level: Level, bytes: Option<f64>, what: &str) {
    match bytes {
        Some(b) => {
            w.bytes.insert(level, b.max(0.0));
        }
        None => w.missing.push(format!("{what}: not collected")),
    }
}

/// The ceiling counters can reach for `precision` on `pipe`: VALU FP16 and FP32 at the
/// non-packed FP32 rate (a packed instruction counts once), the rest at their own peaks.
pub fn counted_peak(device: &Device<'_>, precision: Precision, pipe: Pipe) -> Option<f64> {
    let amd = device.gpu.vendor == "AMD";
    match (pipe, precision) {
        (Pipe::Vector, Precision::Fp16 | Precision::Fp32) if amd => device.peak(Precision::Fp32, Pipe::Vector),
        _ => device.peak(precision, pipe),
    }
}

/// One kernel at one precision against one memory level.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LevelPoint {
    pub level: Level,
    pub bytes: f64,
    /// FLOP (operation) per byte.
    pub intensity: f64,
    /// The level's bandwidth, TB/s.
    pub bandwidth_tbps: f64,
    /// min(peak, intensity × bandwidth), TFLOP/s.
    pub attainable_tflops: f64,
    /// The intensity from which the peak, not this level, bounds the kernel.
    pub ridge: f64,
}

/// One kernel's position for one precision and pipe.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Point {
    pub precision: Precision,
    pub pipe: Pipe,
    pub ops: f64,
    /// TFLOP/s (TOP/s) achieved over the kernel's time.
    pub achieved_tflops: f64,
    /// The ceiling counters can reach (see [`counted_peak`]).
    pub peak_tflops: Option<f64>,
    /// Against each level with bytes and a bandwidth.
    pub levels: Vec<LevelPoint>,
    /// The level whose roof is lowest at this intensity, or None when the compute roof is.
    pub bound_by: Option<Level>,
    /// achieved / the lowest attainable roof.
    pub efficiency: Option<f64>,
}

/// Where a kernel whose FLOP counters were all collected and all zero stands. Its intensity is 0
/// against every level, where the chart's roofs are 0 too, so it has no [`Point`]: what bounds
/// it is the memory level it drives hardest, and its efficiency is the share of that level's
/// bandwidth it reaches.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ZeroFlops {
    pub level: Level,
    /// Bytes a dispatch moves there.
    pub bytes: f64,
    /// TB/s achieved over the kernel's time.
    pub achieved_tbps: f64,
    /// The level's bandwidth, TB/s.
    pub bandwidth_tbps: f64,
    /// achieved / bandwidth.
    pub efficiency: f64,
}

/// The memory bound of a kernel that measurably did no FLOPs in `seconds`, at the level whose
/// bandwidth it uses the largest share of; None if it did FLOPs, they were not all counted, or
/// no level has both bytes and a bandwidth.
pub fn zero_flops(work: &Work, seconds: f64, device: &Device<'_>) -> Option<ZeroFlops> {
    if !work.measured_no_flops() || seconds <= 0.0 {
        return None;
    }
    work.bytes
        .iter()
        .filter(|&(_, &bytes)| bytes > 0.0)
        .filter_map(|(&level, &bytes)| {
            let bandwidth = device.bandwidth(level).filter(|&b| b > 0.0)?;
            let achieved = bytes / seconds / 1e12;
            let efficiency = achieved / bandwidth;
            let zero = ZeroFlops { level, bytes, achieved_tbps: achieved, bandwidth_tbps: bandwidth, efficiency };
            efficiency.is_finite().then_some(zero)
        })
        .max_by(|a, b| a.efficiency.total_cmp(&b.efficiency))
}

/// The kernel's points: one per precision and pipe that did work, largest first.
pub fn position(work: &Work, seconds: f64, device: &Device<'_>) -> Vec<Point> {
    if work.uncounted_tensor.is_some() {
        // Its FLOPs are not all counted: any point would understate its intensity.
        return Vec::new();
    }
    let mut points: Vec<Point> = work
        .ops
        .iter()
        .filter(|&(_, &ops)| ops > 0.0)
        .map(|(&(precision, pipe), &ops)| {
            let peak = counted_peak(device, precision, pipe);
            let achieved = if seconds > 0.0 { ops / seconds / 1e12 } else { 0.0 };
            let levels: Vec<LevelPoint> = work
                .bytes
                .iter()
                .filter(|&(_, &bytes)| bytes > 0.0)
                .filter_map(|(&level, &bytes)| {
                    let bandwidth = device.bandwidth(level)?;
                    let intensity = ops / bytes;
                    let roof = intensity * bandwidth;
                    Some(LevelPoint {
                        level,
                        bytes,
                        intensity,
                        bandwidth_tbps: bandwidth,
                        attainable_tflops: peak.map_or(roof, |p| roof.min(p)),
                        ridge: peak.map_or(f64::INFINITY, |p| p / bandwidth),
                    })
                })
                .collect();
            let lowest = levels.iter().min_by(|a, b| a.attainable_tflops.total_cmp(&b.attainable_tflops));
            let bound_by = lowest.filter(|l| peak.is_none_or(|p| l.attainable_tflops < p)).map(|l| l.level);
            let roof = lowest.map(|l| l.attainable_tflops).or(peak);
            let efficiency = roof.filter(|&r| r > 0.0).map(|r| achieved / r).filter(|e| e.is_finite());
            Point { precision, pipe, ops, achieved_tflops: achieved, peak_tflops: peak, levels, bound_by, efficiency }
        })
        .collect();
    points.sort_by(|a, b| b.ops.total_cmp(&a.ops));
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::specs::{Agent, Database};

    fn counters(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|&(k, v)| (k.to_owned(), v)).collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// The VALU and LDS counters every CDNA family from gfx90a on shares, and `more`.
    fn cdna(more: &[(&str, f64)]) -> BTreeMap<String, f64> {
        let mut c = counters(&[
            ("SQ_INSTS_VALU_ADD_F32", 10.0),
            ("SQ_INSTS_VALU_MUL_F32", 0.0),
            ("SQ_INSTS_VALU_FMA_F32", 1000.0),
            ("SQ_INSTS_VALU_TRANS_F32", 0.0),
            ("SQ_INSTS_VALU_MFMA_MOPS_F16", 2.0),
            ("SQ_INSTS_VALU_MFMA_MOPS_BF16", 0.0),
            ("SQ_INSTS_VALU_MFMA_MOPS_F32", 0.0),
            ("SQ_INSTS_VALU_MFMA_MOPS_F64", 0.0),
            ("SQ_INSTS_VALU_MFMA_MOPS_I8", 0.0),
            ("SQ_LDS_IDX_ACTIVE", 50.0),
            ("SQ_LDS_BANK_CONFLICT", 10.0),
            ("TCP_TOTAL_CACHE_ACCESSES_sum", 100.0),
            ("TCP_TCC_READ_REQ_sum", 10.0),
            ("TCP_TCC_WRITE_REQ_sum", 5.0),
            ("TCP_TCC_ATOMIC_WITH_RET_REQ_sum", 1.0),
            ("TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum", 1.0),
        ]);
        for p in ["F16", "F64"] {
            for op in ["ADD", "MUL", "FMA", "TRANS"] {
                c.insert(format!("SQ_INSTS_VALU_{op}_{p}"), 0.0);
            }
        }
        c.extend(counters(more));
        c
    }

    /// Every FLOP metric the CUPTI preset collects, all zero (no FP8 or INT8), and `more`.
    fn nvidia(more: &[(&str, f64)]) -> BTreeMap<String, f64> {
        let mut c: BTreeMap<String, f64> = ["dfma", "dadd", "dmul", "ffma", "fadd", "fmul", "hfma", "hadd", "hmul"]
            .iter()
            .map(|op| (format!("smsp__sass_thread_inst_executed_op_{op}_pred_on.sum"), 0.0))
            .collect();
        c.extend(
            NVIDIA_TENSOR.iter().flat_map(|&(_, alternatives)| alternatives[0].iter().map(|n| ((*n).to_owned(), 0.0))),
        );
        c.extend(counters(more));
        c
    }

    fn h100() -> Device<'static> {
        Device::datasheet(Database::builtin().unwrap().get("h100_sxm5").unwrap())
    }

    /// HMMA instructions beyond the non-tensor HFMA2.MMA ones, where only the HGMMA paths were
    /// counted: the FLOPs are unknown and the kernel gets no point.
    #[test]
    fn uncounted_hmma_work_leaves_a_kernel_without_a_point() {
        let mut c = nvidia(&[
            ("sm__inst_executed_pipe_tensor_op_hmma.sum", 1_000_000.0),
            ("sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum", 8_448.0),
            ("dram__bytes_read.sum", 1e6),
            ("dram__bytes_write.sum", 1e6),
            ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 1e6),
        ]);
        for total in ["sm__ops_path_tensor_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_src_tf32_dst_fp32.sum"] {
            c.remove(total);
        }
        c.insert("sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum".into(), 0.0);
        c.insert("sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum".into(), 0.0);
        let w = work(Family::Nvidia, 32.0, &c);
        assert_eq!(w.uncounted_tensor, Some(991_552.0));
        assert!(!w.flops_counted);
        assert!(position(&w, 1e-3, &h100()).is_empty());
        c.insert("sm__inst_executed_pipe_tensor_op_hmma.sum".into(), 8_448.0);
        let w = work(Family::Nvidia, 32.0, &c);
        assert_eq!(w.uncounted_tensor, None, "HFMA2.MMA alone is no tensor work");
        assert!(!position(&w, 1e-3, &h100()).is_empty());
        // A Hopper GEMM: its HMMA count is its GMMA instructions, and its HGMMA paths counted.
        c.insert("sm__inst_executed_pipe_tensor_op_hmma.sum".into(), 2_097_152.0);
        c.insert("sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum".into(), 0.0);
        c.insert("sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum".into(), 137_438_953_472.0);
        assert_eq!(work(Family::Nvidia, 32.0, &c).uncounted_tensor, None);
        c.insert("sm__inst_executed_pipe_tensor_op_gmma.sum".into(), 2_000_000.0);
        assert_eq!(work(Family::Nvidia, 32.0, &c).uncounted_tensor, Some(97_152.0), "mixed: the GMMA count tells");
    }

    /// GH100's FP16 tensor work by path (the total needs two passes there), GA100's by
    /// destination: each sums to the same FLOPs.
    #[test]
    fn fp16_tensor_flops_sum_their_paths_where_the_total_is_not_collected() {
        let mut c = nvidia(&[]);
        c.remove("sm__ops_path_tensor_src_fp16.sum");
        c.insert("sm__ops_path_tensor_op_hgmma_src_fp16.sum".into(), 3e9);
        c.insert("sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum".into(), 1e9);
        c.insert("sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum".into(), 2e9);
        let w = work(Family::Nvidia, 32.0, &c);
        assert_eq!(w.ops[&(Precision::Fp16, Pipe::Matrix)], 6e9);
        assert!(w.flops_counted, "{:?}", w.missing);
        let mut c = nvidia(&[]);
        c.remove("sm__ops_path_tensor_src_fp16.sum");
        c.insert("sm__ops_path_tensor_src_fp16_dst_fp16.sum".into(), 1e9);
        c.insert("sm__ops_path_tensor_src_fp16_dst_fp32.sum".into(), 4e9);
        assert_eq!(work(Family::Nvidia, 32.0, &c).ops[&(Precision::Fp16, Pipe::Matrix)], 5e9);
        let mut c = nvidia(&[]);
        c.remove("sm__ops_path_tensor_src_fp16.sum");
        let w = work(Family::Nvidia, 32.0, &c);
        assert!(!w.flops_counted && w.missing.iter().any(|m| m.contains("fp16 tensor FLOPs")), "{:?}", w.missing);
    }

    #[test]
    fn families_come_from_targets_and_compute_capabilities() {
        assert_eq!(Family::of("sm_90"), Family::Nvidia);
        assert_eq!(Family::of("sm_90a"), Family::Nvidia);
        assert_eq!(Family::of("sm_"), Family::Unknown);
        assert_eq!(Family::of("gfx942"), Family::Cdna3);
        assert_eq!(Family::of("gfx950"), Family::Cdna4);
        assert_eq!(Family::of("gfx90a"), Family::Cdna2);
        assert_eq!(Family::of("gfx908"), Family::Cdna1);
        assert_eq!(Family::of("gfx1100"), Family::Rdna);
        assert_eq!(Family::of("gfx1151"), Family::Rdna);
        assert_eq!(Family::of("9.0"), Family::Nvidia);
        assert_eq!(Family::of("gfx803"), Family::Unknown);
    }

    /// gfx942: 64 × (10 + 2 × 1000) VALU FP32 FLOPs, 512 × 2 MFMA FP16 FLOPs; DRAM with the
    /// 128-byte reads; 128-byte L1 lines, which L2 reads carry whole.
    #[test]
    fn cdna3_counts_by_hand() {
        let c = cdna(&[
            ("SQ_INSTS_VALU_MFMA_MOPS_F8", 0.0),
            ("TCC_BUBBLE_sum", 10.0),
            ("TCC_EA0_RDREQ_32B_sum", 20.0),
            ("TCC_EA0_RDREQ_sum", 100.0),
            ("TCC_EA0_WRREQ_sum", 50.0),
            ("TCC_EA0_WRREQ_64B_sum", 30.0),
        ]);
        let w = work(Family::Cdna3, 64.0, &c);
        assert!(w.missing.is_empty(), "{:?}", w.missing);
        assert!(close(w.ops[&(Precision::Fp32, Pipe::Vector)], 128_640.0));
        assert!(close(w.ops[&(Precision::Fp16, Pipe::Matrix)], 1024.0));
        // 128×10 + 32×20 + 64×(100−10−20) reads, 32×(50−30) + 64×30 writes.
        assert!(close(w.bytes[&Level::Dram], 6400.0 + 2560.0));
        // 10 reads of a 128-byte line, 5 writes and 2 atomics of 64 bytes.
        assert!(close(w.bytes[&Level::L2], 128.0 * 10.0 + 64.0 * 7.0));
        assert!(close(w.bytes[&Level::L1], 12_800.0));
        assert!(close(w.bytes[&Level::Lds], 40.0 * 128.0));
    }

    /// gfx90a: no 128-byte reads, `TCC_EA_*` names (or rocprof-compute's `TCC_EA0_*`), 64-byte
    /// L1 lines, no FP8.
    #[test]
    fn cdna2_counts_by_hand() {
        let c = cdna(&[
            ("TCC_EA_RDREQ_32B_sum", 20.0),
            ("TCC_EA_RDREQ_sum", 100.0),
            ("TCC_EA0_WRREQ_sum", 50.0),
            ("TCC_EA_WRREQ_64B", 30.0),
        ]);
        let w = work(Family::Cdna2, 64.0, &c);
        assert!(w.missing.is_empty(), "{:?}", w.missing);
        assert!(!w.ops.contains_key(&(Precision::Fp8, Pipe::Matrix)));
        assert!(close(w.bytes[&Level::Dram], 32.0 * 20.0 + 64.0 * 80.0 + 32.0 * 20.0 + 64.0 * 30.0));
        assert!(close(w.bytes[&Level::L1], 6400.0));
        assert!(close(w.bytes[&Level::L2], 64.0 * 17.0), "gfx90a reads 64-byte lines");
    }

    /// The first dispatch of a real copy on each CDNA generation (tests/fixtures/analysis-real):
    /// 8 MiB read and 8 MiB written, so 16 MiB through the L2 whether a read request carries 64
    /// bytes (gfx90a: 131,072 of them) or 128 (gfx942, gfx950: 65,536). HBM also counts a few
    /// hundred 64-byte reads of other L2 clients, and gfx942's is 16,791,360 bytes by hand:
    /// 128 × 65,536 + 64 × (65,757 − 65,536) + 64 × 131,072.
    #[test]
    fn a_real_copy_moves_its_16_mib_through_the_l2_on_every_cdna() {
        let stores = [
            ("TCP_TCC_WRITE_REQ_sum", 131_072.0),
            ("TCP_TCC_ATOMIC_WITH_RET_REQ_sum", 0.0),
            ("TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum", 0.0),
        ];
        let ea = |prefix: &str, rd: f64| {
            [
                (format!("{prefix}_RDREQ_32B_sum"), 0.0),
                (format!("{prefix}_RDREQ_sum"), rd),
                (format!("{prefix}_WRREQ_sum"), 131_072.0),
                (format!("{prefix}_WRREQ_64B_sum"), 131_072.0),
            ]
        };
        let copy = |read_req: f64, big_reads: Option<(&str, f64)>, prefix: &str, rd: f64| {
            let mut c = counters(&stores);
            c.insert("TCP_TCC_READ_REQ_sum".into(), read_req);
            c.extend(ea(prefix, rd));
            c.extend(big_reads.map(|(name, n)| (name.to_owned(), n)));
            c
        };
        let copies = [
            (Family::Cdna2, copy(131_072.0, None, "TCC_EA", 131_086.0)),
            (Family::Cdna3, copy(65_536.0, Some(("TCC_BUBBLE_sum", 65_536.0)), "TCC_EA0", 65_757.0)),
            (Family::Cdna4, copy(65_536.0, Some(("TCC_EA0_RDREQ_128B_sum", 65_536.0)), "TCC_EA0", 65_640.0)),
        ];
        for (family, c) in copies {
            let w = work(family, 64.0, &c);
            let (l2, dram) = (w.bytes[&Level::L2], w.bytes[&Level::Dram]);
            assert!(close(l2, 16.0 * 1024.0 * 1024.0), "{family:?}: L2 {l2}");
            assert!(l2 >= 0.999 * dram, "{family:?}: L2 {l2} below HBM {dram}");
            if family == Family::Cdna3 {
                assert!(close(dram, 16_791_360.0), "{dram}");
            }
            if family == Family::Cdna4 {
                // 8 MiB of 128-byte reads, 104 stray 64-byte ones, 8 MiB of 64-byte writes.
                assert!(close(dram, 16_777_216.0 + 64.0 * 104.0), "{dram}");
            }
        }
    }

    /// A real MI350 copy counts no 128-byte reads in TCC_BUBBLE: without TCC_EA0_RDREQ_128B its
    /// DRAM bytes are missing, not a quarter of the copy's.
    #[test]
    fn gfx950_dram_bytes_need_the_128_byte_read_count() {
        let c = counters(&[
            ("TCC_BUBBLE_sum", 0.0),
            ("TCC_EA0_RDREQ_32B_sum", 0.0),
            ("TCC_EA0_RDREQ_sum", 65_640.0),
            ("TCC_EA0_WRREQ_sum", 131_072.0),
            ("TCC_EA0_WRREQ_64B_sum", 131_072.0),
        ]);
        let w = work(Family::Cdna4, 64.0, &c);
        assert!(!w.bytes.contains_key(&Level::Dram), "{:?}", w.bytes);
        assert!(w.missing.iter().any(|m| m.contains("TCC_EA0_RDREQ_128B")), "{:?}", w.missing);
    }

    /// gfx950: FP6/FP4 MFMA through one counter.
    #[test]
    fn cdna4_counts_fp6_fp4_mfma() {
        let c = cdna(&[("SQ_INSTS_VALU_MFMA_MOPS_F8", 1.0), ("SQ_INSTS_VALU_MFMA_MOPS_F6F4", 3.0)]);
        let w = work(Family::Cdna4, 64.0, &c);
        assert!(close(w.ops[&(Precision::Fp8, Pipe::Matrix)], 512.0));
        assert!(close(w.ops[&(Precision::Fp6, Pipe::Matrix)], 1536.0));
        assert!(w.missing.iter().any(|m| m.starts_with("DRAM bytes")), "no EA counters given: {:?}", w.missing);
    }

    /// rocprof v1's FETCH_SIZE and WRITE_SIZE (KiB) where the request counters are absent.
    #[test]
    fn fetch_and_write_size_stand_in_for_the_requests() {
        let c = counters(&[("FETCH_SIZE", 2.0), ("WRITE_SIZE", 1.5), ("TCP_TOTAL_CACHE_ACCESSES_sum", 10.0)]);
        let w = work(Family::Cdna2, 64.0, &c);
        assert!(close(w.bytes[&Level::Dram], 3584.0));
        assert!(close(w.bytes[&Level::L1], 640.0));
    }

    #[test]
    fn cdna1_says_it_cannot_count_flops() {
        let c = counters(&[
            ("TCC_EA0_RDREQ_32B", 4.0),
            ("TCC_EA0_RDREQ", 4.0),
            ("TCC_EA0_WRREQ", 2.0),
            ("TCC_EA0_WRREQ_64B", 2.0),
        ]);
        let w = work(Family::Cdna1, 64.0, &c);
        assert!(w.ops.is_empty());
        assert!(w.missing[0].contains("gfx908 has no per-precision"));
        assert!(close(w.bytes[&Level::Dram], 32.0 * 4.0 + 64.0 * 2.0));
    }

    /// gfx1100: wave32 VALU instructions, GL2C request sizes.
    #[test]
    fn rdna_counts_by_hand() {
        let c = counters(&[
            ("SQ_INSTS_VALU", 1000.0),
            ("GL2C_EA_RDREQ_32B_sum", 1.0),
            ("GL2C_EA_RDREQ_64B_sum", 1.0),
            ("GL2C_EA_RDREQ_96B_sum", 1.0),
            ("GL2C_EA_RDREQ_128B_sum", 1.0),
            ("GL2C_MC_WRREQ_sum", 3.0),
            ("GL2C_EA_WRREQ_64B_sum", 1.0),
        ]);
        let w = work(Family::Rdna, 32.0, &c);
        assert!(close(w.ops[&(Precision::Fp32, Pipe::Vector)], 32_000.0));
        assert!(close(w.bytes[&Level::Dram], 320.0 + 64.0 + 64.0));
        assert!(!w.notes.is_empty());
    }

    #[test]
    fn nvidia_counts_by_hand() {
        let c = counters(&[
            ("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", 100.0),
            ("smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", 10.0),
            ("smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", 5.0),
            ("dram__bytes_read.sum", 1000.0),
            ("dram__bytes_write.sum", 500.0),
        ]);
        let w = work(Family::Nvidia, 32.0, &c);
        assert!(close(w.ops[&(Precision::Fp64, Pipe::Vector)], 215.0));
        assert!(close(w.bytes[&Level::Dram], 1500.0));
        assert!(w.missing.iter().any(|m| m.starts_with("fp32 FLOPs")));
    }

    /// MI300X, FP64 VALU: 1 TFLOP of work and 1 TB of HBM traffic in 1 s sits at intensity 1,
    /// under the ridge (81.7 / 5.3 = 15.4), so HBM bounds it at 5.3 TFLOP/s.
    #[test]
    fn a_memory_bound_kernel_on_mi300x() {
        let db = Database::builtin().unwrap();
        let device = Device::new(db.get("mi300x").unwrap(), &Agent::default());
        let mut w = Work::default();
        w.ops.insert((Precision::Fp64, Pipe::Vector), 1e12);
        w.bytes.insert(Level::Dram, 1e12);
        let points = position(&w, 1.0, &device);
        let p = &points[0];
        assert_eq!(p.bound_by, Some(Level::Dram));
        assert!(close(p.achieved_tflops, 1.0));
        let dram = &p.levels[0];
        assert!(close(dram.intensity, 1.0));
        assert!(close(dram.attainable_tflops, 5.3));
        assert!((dram.ridge - 81.7 / 5.3).abs() < 0.01);
        assert!(close(p.efficiency.unwrap(), 1.0 / 5.3));
    }

    /// The real MI300X copy's first dispatch (tests/fixtures/analysis-real, vcopy-MI300X_A1_rocpd):
    /// every FLOP counter collected and zero, 16,791,360 bytes of HBM in 8,653 ns. HBM is the level
    /// it uses the largest share of: 1.94 of 5.3 TB/s, by hand.
    #[test]
    fn a_real_copy_with_zero_flops_is_bound_by_hbm() {
        let mut c = cdna(&[
            ("SQ_INSTS_VALU_MFMA_MOPS_F8", 0.0),
            ("TCC_BUBBLE_sum", 65_536.0),
            ("TCC_EA0_RDREQ_32B_sum", 0.0),
            ("TCC_EA0_RDREQ_sum", 65_757.0),
            ("TCC_EA0_WRREQ_sum", 131_072.0),
            ("TCC_EA0_WRREQ_64B_sum", 131_072.0),
            ("TCP_TCC_READ_REQ_sum", 65_536.0),
            ("TCP_TCC_WRITE_REQ_sum", 131_072.0),
            ("TCP_TCC_ATOMIC_WITH_RET_REQ_sum", 0.0),
            ("TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum", 0.0),
            ("TCP_TOTAL_CACHE_ACCESSES_sum", 524_288.0),
            ("SQ_LDS_IDX_ACTIVE", 0.0),
            ("SQ_LDS_BANK_CONFLICT", 0.0),
        ]);
        c.iter_mut().filter(|(name, _)| name.starts_with("SQ_INSTS_VALU")).for_each(|(_, v)| *v = 0.0);
        let w = work(Family::Cdna3, 64.0, &c);
        assert!(w.flops_counted && w.measured_no_flops());
        let db = Database::builtin().unwrap();
        let device = Device::new(db.get("mi300x").unwrap(), &Agent::default());
        let seconds = 8_653e-9;
        assert!(position(&w, seconds, &device).is_empty(), "no FLOPs, no point on the chart");
        let z = zero_flops(&w, seconds, &device).unwrap();
        assert_eq!(z.level, Level::Dram);
        let achieved = 16_791_360.0 / seconds / 1e12;
        assert!(close(z.achieved_tbps, achieved));
        assert!(close(z.efficiency, achieved / 5.3), "{}", z.efficiency);
    }

    /// Zero in the counters collected is not zero FLOPs when some were not collected.
    #[test]
    fn zero_flops_needs_every_flop_counter() {
        let mut c = cdna(&[("TCC_BUBBLE_sum", 1.0)]);
        c.iter_mut().filter(|(name, _)| name.starts_with("SQ_INSTS_VALU")).for_each(|(_, v)| *v = 0.0);
        let w = work(Family::Cdna3, 64.0, &c);
        assert!(!w.flops_counted, "gfx942 has SQ_INSTS_VALU_MFMA_MOPS_F8, not collected here");
        assert!(!w.measured_no_flops());
        let mut nvidia = nvidia(&[("dram__bytes_read.sum", 2e9), ("dram__bytes_write.sum", 1e9)]);
        let w = work(Family::Nvidia, 32.0, &nvidia);
        assert!(w.measured_no_flops(), "the same rule with NVIDIA's metrics");
        let z = zero_flops(&w, 1e-3, &h100()).unwrap();
        assert_eq!(z.level, Level::Dram);
        assert!(close(z.efficiency, 3.0 / 3.35));
        nvidia.remove("sm__ops_path_tensor_src_bf16_dst_fp32.sum");
        let w = work(Family::Nvidia, 32.0, &nvidia);
        assert!(!w.flops_counted, "a kernel's bf16 GEMM would hide in the tensor metric not collected");
        assert!(w.missing.iter().any(|m| m.starts_with("bf16 tensor FLOPs")), "{:?}", w.missing);
    }

    /// Half-precision instructions count as packed, as ncu's half roofline does: HADD2 and HMUL2
    /// two FLOPs, HFMA2 four.
    #[test]
    fn nvidia_half_instructions_count_as_packed() {
        let c = nvidia(&[
            ("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", 10.0),
            ("smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", 3.0),
            ("smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", 1.0),
            ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 10.0),
        ]);
        let w = work(Family::Nvidia, 32.0, &c);
        assert!(close(w.ops[&(Precision::Fp16, Pipe::Vector)], 4.0 * 10.0 + 2.0 * 3.0 + 2.0 * 1.0));
        assert!(close(w.ops[&(Precision::Fp32, Pipe::Vector)], 20.0));
        // ncu's half roof on an H100 SXM, `derived__sm__sass_thread_inst_executed_op_hfma_pred_on_x4`
        // = 67,584 FLOP a cycle (a third-party ncu report, not our run), at 1980 MHz: the 133.8
        // TFLOP/s of the vector FP16 roof.
        let peak = counted_peak(&h100(), Precision::Fp16, Pipe::Vector).unwrap();
        assert!((peak - 67_584.0 * 1980e6 / 1e12).abs() < 0.01, "{peak}");
    }

    /// A bf16 GEMM of 2·2048³ FLOPs: ncu counted exactly that many
    /// `sm__ops_path_tensor_src_bf16_dst_fp32` ops on an H100. Its bytes are by hand, for 128×256
    /// tiles: A and B read once from HBM and C written; each of the 128 tiles reads its
    /// (128 + 256) × 2048 bf16 through the L2, plus C; the epilogue's stores through the L1 and
    /// shared memory. 24.54 µs makes 700 TFLOP/s. Its intensity is past every level's ridge (the
    /// L2's is 989.4 / 13.12 = 75.4 FLOP/B), so the dense bf16 tensor peak is its roof, 132 SMs ×
    /// 1830 MHz × 4,096.
    #[test]
    fn a_bf16_gemm_sits_under_the_bf16_tensor_roof_on_h100() {
        let flops = 2.0 * 2048f64.powi(3);
        let c = nvidia(&[
            ("sm__ops_path_tensor_src_bf16_dst_fp32.sum", flops),
            ("sm__ops_path_tensor_src_fp8.sum", 0.0),
            ("sm__ops_path_tensor_src_int8.sum", 0.0),
            ("dram__bytes_read.sum", 2.0 * 2048.0 * 2048.0 * 2.0),
            ("dram__bytes_write.sum", 2048.0 * 2048.0 * 2.0),
            ("lts__t_bytes.sum", 128.0 * 384.0 * 2048.0 * 2.0 + 2048.0 * 2048.0 * 2.0),
            ("l1tex__t_bytes.sum", 2048.0 * 2048.0 * 2.0),
            (SHARED_WAVEFRONTS, 65_536.0),
            (SHARED_CONFLICTS, 0.0),
        ]);
        let w = work(Family::Nvidia, 32.0, &c);
        assert!(w.missing.is_empty() && w.flops_counted, "{:?}", w.missing);
        assert!(w.notes.is_empty(), "FP8 and INT8 were collected: {:?}", w.notes);
        assert!(close(w.ops[&(Precision::Bf16, Pipe::Matrix)], 17_179_869_184.0));
        assert!(close(w.bytes[&Level::Lds], 128.0 * 65_536.0));
        let seconds = flops / 700e12;
        let points = position(&w, seconds, &h100());
        assert_eq!(points.len(), 1, "only the bf16 tensor work is non-zero: {points:?}");
        let p = &points[0];
        assert_eq!((p.precision, p.pipe), (Precision::Bf16, Pipe::Matrix));
        let roof = 132.0 * 1830.0 * 4096.0 / 1e6;
        assert!(close(p.peak_tflops.unwrap(), roof), "{:?}", p.peak_tflops);
        assert_eq!(p.bound_by, None, "compute-bound: {:?}", p.levels);
        assert_eq!(p.levels.len(), 4, "DRAM, L2, L1 and shared memory: {:?}", p.levels);
        assert!(close(p.achieved_tflops, 700.0));
        assert!(close(p.efficiency.unwrap(), 700.0 / roof));
    }

    /// Shared memory: wavefronts × 128 bytes, conflict replays included, and the share of them
    /// that were replays; AMD's ratio stays conflict cycles over active cycles.
    #[test]
    fn nvidia_shared_memory_bytes_and_bank_conflicts() {
        let c = nvidia(&[(SHARED_WAVEFRONTS, 1000.0), (SHARED_CONFLICTS, 750.0)]);
        let w = work(Family::Nvidia, 32.0, &c);
        assert!(close(w.bytes[&Level::Lds], 128_000.0));
        assert!(close(lds_conflicts(Family::Nvidia, &c).unwrap(), 0.75));
        let amd = cdna(&[]);
        assert!(close(lds_conflicts(Family::Cdna3, &amd).unwrap(), 10.0 / 50.0));
        assert_eq!(lds_conflicts(Family::Nvidia, &amd), None, "NVIDIA takes its own metrics");
        assert_eq!(lds_conflicts(Family::Nvidia, &nvidia(&[(SHARED_WAVEFRONTS, 0.0), (SHARED_CONFLICTS, 0.0)])), None);
        let missing = work(Family::Nvidia, 32.0, &nvidia(&[]));
        assert!(missing.missing.iter().any(|m| m.contains(SHARED_WAVEFRONTS)), "{:?}", missing.missing);
    }

    /// The H100 copy of bench/gpu/range_probe (268,435,456 bytes read and written): every FLOP
    /// metric collected and zero, its bytes from the CUPTI run X12 and its time from run A
    /// (README there). FP8 and INT8 were not collected, which says so and does not stop the
    /// zero-FLOP verdict: DRAM bounds it, at 539 MB in 188.3 µs, 85% of 3.35 TB/s.
    #[test]
    fn a_real_h100_copy_with_zero_flops_is_bound_by_dram() {
        let c = nvidia(&[
            ("dram__bytes_read.sum", 268_455_424.0),
            ("dram__bytes_write.sum", 270_876_800.0),
            ("lts__t_bytes.sum", 814_335_952.0),
            ("l1tex__t_bytes.sum", 536_870_912.0),
            (SHARED_WAVEFRONTS, 0.0),
        ]);
        let w = work(Family::Nvidia, 32.0, &c);
        assert!(w.missing.is_empty(), "{:?}", w.missing);
        assert!(w.flops_counted && w.measured_no_flops());
        assert!(w.notes.iter().any(|n| n.contains("sm__ops_path_tensor_src_fp8.sum")), "{:?}", w.notes);
        let seconds = 188_304e-9;
        assert!(position(&w, seconds, &h100()).is_empty());
        let z = zero_flops(&w, seconds, &h100()).unwrap();
        assert_eq!(z.level, Level::Dram);
        let achieved = (268_455_424.0 + 270_876_800.0) / seconds / 1e12;
        assert!(close(z.efficiency, achieved / 3.35), "{}", z.efficiency);
        assert!((z.efficiency - 0.855).abs() < 0.001, "{}", z.efficiency);
    }

    /// FP8 and INT8 tensor ops count where collected.
    #[test]
    fn nvidia_fp8_and_int8_tensor_ops_count_where_collected() {
        let c = nvidia(&[("sm__ops_path_tensor_src_fp8.sum", 4096.0), ("sm__ops_path_tensor_src_int8.sum", 0.0)]);
        let w = work(Family::Nvidia, 32.0, &c);
        assert!(w.flops_counted && !w.measured_no_flops());
        assert!(close(w.ops[&(Precision::Fp8, Pipe::Matrix)], 4096.0));
        assert!(close(w.ops[&(Precision::Int8, Pipe::Matrix)], 0.0));
        assert!(w.notes.is_empty(), "{:?}", w.notes);
    }

    /// FP32 VALU on MI300X is held against the non-packed 81.7, not AMD's packed 163.4.
    #[test]
    fn valu_fp32_uses_the_ceiling_counters_can_reach() {
        let db = Database::builtin().unwrap();
        let device = Device::new(db.get("mi300x").unwrap(), &Agent::default());
        let peak = counted_peak(&device, Precision::Fp32, Pipe::Vector).unwrap();
        assert!((peak - 81.72).abs() < 0.01);
        let mut w = Work::default();
        w.ops.insert((Precision::Fp32, Pipe::Vector), 40e12);
        w.bytes.insert(Level::Dram, 1e9);
        let p = &position(&w, 1.0, &device)[0];
        assert_eq!(p.bound_by, None, "compute-bound at intensity 40,000");
        assert!((p.efficiency.unwrap() - 40.0 / 81.72).abs() < 1e-3);
    }
}
