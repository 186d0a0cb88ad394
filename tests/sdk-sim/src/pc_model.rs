//! The simulated kernels' instruction streams and the PC samples taken from them.
//!
//! Both halves of the simulator use this one model: the simulated SDK turns each [`Sample`] into
//! a `rocprofiler_pc_sampling_record_*` in the tool's buffer, and the driver turns the same
//! samples into ground-truth rows. Everything is a pure function of the dispatch (its kernel id,
//! dispatch id, times and instruction mix, which the seeded workload decides), so the two halves
//! agree without exchanging samples.
//!
//! A kernel's [`Program`] follows its instruction mix (VALU, SALU, VMEM, LDS, MFMA per work-item):
//! a prologue of scalar loads, a shuffled body of about 24 instructions in the mix's proportions,
//! and `s_endpgm`. One instruction is the known hot spot, holding as many samples as all others
//! together: the first of the kind that dominates the mix among global loads, LDS accesses, MFMA
//! and VALU ops (the first three counting four times a VALU op, as they cost more). Each instruction has an issue rate and a not-issued reason mix typical of its kind
//! (loads wait on `s_waitcnt` dependencies, MFMA on ALU dependencies, conflicted LDS on the pipe).
//!
//! Samples come at the configured interval over the dispatch (host trap: microseconds; stochastic:
//! cycles at 2.1 GHz, one per XCC per interval), at most [`MAX_SAMPLES_PER_DISPATCH`] per dispatch
//! (past that the interval stretches) so that long kernels stay cheap to simulate.

use rocprofiler_sdk_sys::*;

use crate::hw::Arch;
use crate::rng::Rng;
use crate::runtime_abi::SimActivity;

/// The most samples one dispatch yields.
pub const MAX_SAMPLES_PER_DISPATCH: u64 = 4096;

/// Where each kernel's code starts inside its code object, and how far apart kernels are: the
/// simulated loader places kernel `i`'s descriptor at `KERNEL_REGION + i * KERNEL_STRIDE` and its
/// code [`ENTRY_OFFSET`] bytes after it.
pub const KERNEL_REGION: u64 = 0x1000;
pub const KERNEL_STRIDE: u64 = 0x1000;
pub const ENTRY_OFFSET: u64 = 256;

/// The code-object offset of the first instruction of the `index`-th kernel of a code object.
pub fn kernel_code_offset(index: u64) -> u64 {
    KERNEL_REGION + index * KERNEL_STRIDE + ENTRY_OFFSET
}

/// One instruction of a simulated kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// Bytes from the kernel's first instruction.
    pub offset: u64,
    pub size: u64,
    /// A `ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_*` value.
    pub inst_type: rocprofiler_pc_sampling_instruction_type_t,
    /// The instruction, as a disassembler would print it.
    pub text: &'static str,
    /// Relative share of the kernel's samples.
    pub weight: u32,
    /// Of the samples on it, the share (percent) whose wave issued it.
    pub issued_pct: u8,
    /// Relative weights of `ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_*` values
    /// (index = value) when the wave did not issue.
    pub reasons: [u32; 10],
}

/// A kernel's instruction stream and its hot spot.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub instructions: Vec<Instruction>,
    /// The index of the hot instruction.
    pub hot: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Valu,
    Salu,
    Load,
    Store,
    Lds,
    Mfma,
}

fn instruction(
    kind: Kind,
    lds_conflicted: bool,
) -> (u64, rocprofiler_pc_sampling_instruction_type_t, &'static str, u8, [u32; 10]) {
    // Reason indices: 1 no instruction, 2 ALU dependency, 3 waitcnt, 4 internal, 5 barrier,
    // 6 arbiter not won, 7 arbiter won but the pipe stalled, 8 other, 9 sleep.
    match kind {
        Kind::Valu => {
            (4, ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_VALU, "v_fma_f32", 60, [0, 1, 5, 1, 0, 0, 3, 1, 0, 0])
        }
        Kind::Salu => {
            (4, ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_SCALAR, "s_add_u32", 70, [0, 1, 1, 1, 0, 0, 5, 0, 0, 0])
        }
        Kind::Load => (
            8,
            ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_FLAT,
            "global_load_dwordx4",
            20,
            [0, 1, 0, 12, 0, 0, 3, 2, 1, 0],
        ),
        Kind::Store => (
            8,
            ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_FLAT,
            "global_store_dwordx4",
            40,
            [0, 1, 0, 6, 0, 0, 3, 3, 1, 0],
        ),
        Kind::Lds if lds_conflicted => {
            (8, ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS, "ds_read_b128", 25, [0, 0, 0, 4, 0, 1, 2, 10, 0, 0])
        }
        Kind::Lds => {
            (8, ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS, "ds_read_b128", 45, [0, 0, 0, 6, 0, 2, 3, 2, 0, 0])
        }
        Kind::Mfma => (
            8,
            ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_MATRIX,
            "v_mfma_f32_32x32x8_f16",
            35,
            [0, 0, 10, 1, 0, 0, 2, 4, 0, 0],
        ),
    }
}

impl Program {
    /// The program of kernel `kernel_id`, shaped by the per-wave instruction mix of `activity`.
    pub fn of(kernel_id: u64, activity: &SimActivity) -> Program {
        let waves = activity.waves.max(1);
        let mix = [
            (Kind::Valu, activity.valu_insts / waves),
            (Kind::Salu, activity.salu_insts / waves),
            (Kind::Load, activity.vmem_read_insts / waves),
            (Kind::Store, activity.vmem_write_insts / waves),
            (Kind::Lds, activity.lds_insts / waves),
            (Kind::Mfma, activity.mfma_insts / waves),
        ];
        let total: u64 = mix.iter().map(|(_, n)| n).sum::<u64>().max(1);
        let lds_conflicted = activity.lds_bank_conflicts * 4 > activity.lds_insts;
        let mut rng = Rng::new(kernel_id, 0x5043_5341);
        // About 24 body instructions, each kind present with at least one if it occurs at all.
        let mut body: Vec<Kind> = Vec::new();
        for &(kind, n) in &mix {
            let count = if n == 0 { 0 } else { (n * 24 / total).clamp(1, 16) };
            body.extend(std::iter::repeat_n(kind, count as usize));
        }
        // A deterministic shuffle, so kinds interleave as compiled code does.
        for i in (1..body.len()).rev() {
            body.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut instructions = Vec::new();
        let mut offset = 0;
        let mut push = |size: u64, inst_type, text, weight, issued_pct, reasons| {
            instructions.push(Instruction { offset, size, inst_type, text, weight, issued_pct, reasons });
            offset += size;
        };
        push(
            8,
            ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_SCALAR,
            "s_load_dwordx4",
            1,
            50,
            [0, 2, 0, 1, 0, 0, 1, 0, 0, 0],
        );
        push(
            4,
            ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_OTHER,
            "s_waitcnt lgkmcnt(0)",
            1,
            10,
            [0, 0, 0, 9, 0, 0, 1, 0, 0, 0],
        );
        for &kind in &body {
            let (size, inst_type, text, issued_pct, reasons) = instruction(kind, lds_conflicted);
            push(size, inst_type, text, 1 + rng.below(3) as u32, issued_pct, reasons);
        }
        push(4, ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_OTHER, "s_endpgm", 1, 90, [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
        let dominant = [Kind::Load, Kind::Lds, Kind::Mfma, Kind::Valu].into_iter().max_by_key(|&k| {
            mix.iter().find(|(m, _)| *m == k).map_or(0, |(_, n)| *n) * if k == Kind::Valu { 1 } else { 4 }
        });
        let body_start = 2;
        let hot = body
            .iter()
            .position(|&k| Some(k) == dominant && mix.iter().any(|(m, n)| *m == k && *n > 0))
            .map_or(body_start, |i| body_start + i);
        let others: u32 = instructions.iter().map(|i| i.weight).sum::<u32>() - instructions[hot].weight;
        instructions[hot].weight = others.max(1);
        Program { instructions, hot }
    }

    /// The code bytes the program spans.
    pub fn len(&self) -> u64 {
        self.instructions.last().map_or(0, |i| i.offset + i.size)
    }

    /// Whether the program has no instructions (never, for a built one).
    pub fn is_empty(&self) -> bool {
        self.instructions.is_empty()
    }
}

/// How the service was configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampling {
    pub method: rocprofiler_pc_sampling_method_t,
    /// Microseconds for host trap, cycles for stochastic.
    pub interval: u64,
}

/// One dispatch, as both halves of the simulator know it.
#[derive(Debug, Clone, Copy)]
pub struct DispatchInput {
    pub arch: Arch,
    pub kernel_id: u64,
    pub code_object_id: u64,
    /// The code-object offset of the kernel's first instruction.
    pub kernel_offset: u64,
    pub dispatch_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub grid: [u32; 3],
    pub workgroup: [u32; 3],
    pub activity: SimActivity,
}

/// Where a sampled wave ran (the fields of `rocprofiler_pc_sampling_hw_id_v0_t`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HwId {
    pub chiplet: u64,
    pub wave_id: u64,
    pub simd_id: u64,
    pub pipe_id: u64,
    pub cu_or_wgp_id: u64,
    pub shader_array_id: u64,
    pub shader_engine_id: u64,
    pub workgroup_id: u64,
    pub vm_id: u64,
    pub queue_id: u64,
    pub microengine_id: u64,
}

/// What only stochastic sampling sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Issue {
    pub wave_issued: bool,
    pub inst_type: rocprofiler_pc_sampling_instruction_type_t,
    /// `NONE` when the wave issued.
    pub reason_not_issued: rocprofiler_pc_sampling_instruction_not_issued_reason_t,
    pub wave_count: u32,
}

/// One PC sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub dispatch_id: u64,
    pub correlation_id: u64,
    pub timestamp: u64,
    pub code_object_id: u64,
    pub code_object_offset: u64,
    /// The sampled instruction's index in its [`Program`].
    pub instruction: usize,
    pub hw_id: HwId,
    pub workgroup: [u32; 3],
    pub wave_in_group: u8,
    pub exec_mask: u64,
    /// `None` for host trap, which has no issue state.
    pub issue: Option<Issue>,
}

/// Chiplets and compute units per chiplet of `arch`, as the simulated agents report them.
fn shape(arch: Arch) -> (u64, u64) {
    match arch {
        Arch::Gfx942 => (8, 38),
        Arch::Gfx90a => (1, 104),
        Arch::Gfx1151 => (1, 40),
    }
}

/// Picosecond period between samples and how many samples fit the dispatch.
fn schedule(arch: Arch, sampling: Sampling, duration_ns: u64) -> (u128, u64) {
    let duration_ps = u128::from(duration_ns) * 1000;
    let period_ps = match sampling.method {
        ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP => u128::from(sampling.interval) * 1_000_000,
        // One sampler per chiplet, each firing every `interval` cycles at 2.1 GHz.
        _ => u128::from(sampling.interval) * 10_000 / 21 / u128::from(shape(arch).0),
    }
    .max(1);
    let count = (duration_ps / period_ps).min(u128::from(MAX_SAMPLES_PER_DISPATCH)) as u64;
    if count == 0 {
        return (period_ps, 0);
    }
    (duration_ps / u128::from(count), count)
}

/// Every sample `sampling` takes of `dispatch`, in time order.
pub fn samples(dispatch: &DispatchInput, sampling: Sampling) -> Vec<Sample> {
    let program = Program::of(dispatch.kernel_id, &dispatch.activity);
    let weights: Vec<u32> = program.instructions.iter().map(|i| i.weight).collect();
    let (chiplets, cus) = shape(dispatch.arch);
    let duration = dispatch.end_ns.saturating_sub(dispatch.start_ns);
    let (period_ps, count) = schedule(dispatch.arch, sampling, duration);
    let wg_items = dispatch.workgroup.iter().map(|&w| u64::from(w.max(1))).product::<u64>();
    let waves_per_group = wg_items.div_ceil(64);
    let groups: Vec<u64> =
        (0..3).map(|d| u64::from(dispatch.grid[d]).div_ceil(u64::from(dispatch.workgroup[d].max(1))).max(1)).collect();
    let stochastic = sampling.method == ROCPROFILER_PC_SAMPLING_METHOD_STOCHASTIC;
    (0..count)
        .map(|i| {
            let mut rng = Rng::new(dispatch.dispatch_id, i);
            let index = rng.weighted(&weights);
            let inst = &program.instructions[index];
            let wave_in_group = rng.below(waves_per_group);
            let lanes = (wg_items - wave_in_group * 64).min(64);
            let hw_id = HwId {
                chiplet: rng.below(chiplets),
                wave_id: rng.below(32),
                simd_id: rng.below(4),
                pipe_id: 0,
                cu_or_wgp_id: rng.below(cus.min(16)),
                shader_array_id: rng.below(2),
                shader_engine_id: rng.below(4),
                workgroup_id: rng.below(16),
                vm_id: 8,
                queue_id: 0,
                microengine_id: 0,
            };
            let workgroup = [0, 1, 2].map(|d| rng.below(groups[d]) as u32);
            let issue = stochastic.then(|| {
                let wave_issued = rng.below(100) < u64::from(inst.issued_pct);
                let reason = if wave_issued { 0 } else { rng.weighted(&inst.reasons) as u32 };
                Issue {
                    wave_issued,
                    inst_type: inst.inst_type,
                    reason_not_issued: reason,
                    wave_count: 1 + rng.below(32) as u32,
                }
            });
            let offset_ps = u128::from(i) * period_ps + period_ps / 2;
            Sample {
                dispatch_id: dispatch.dispatch_id,
                correlation_id: dispatch.correlation_id,
                timestamp: dispatch.start_ns + (offset_ps / 1000) as u64,
                code_object_id: dispatch.code_object_id,
                code_object_offset: dispatch.kernel_offset + inst.offset,
                instruction: index,
                hw_id,
                workgroup,
                wave_in_group: wave_in_group as u8,
                exec_mask: if lanes >= 64 { u64::MAX } else { (1u64 << lanes) - 1 },
                issue,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn activity(valu: u64, load: u64, lds: u64, conflicts: u64) -> SimActivity {
        SimActivity {
            waves: 10,
            valu_insts: valu * 10,
            salu_insts: 20,
            vmem_read_insts: load * 10,
            vmem_write_insts: 10,
            lds_insts: lds * 10,
            lds_bank_conflicts: conflicts * 10,
            ..SimActivity::default()
        }
    }

    fn dispatch(activity: SimActivity, start_ns: u64, end_ns: u64) -> DispatchInput {
        DispatchInput {
            arch: Arch::Gfx942,
            kernel_id: 7,
            code_object_id: 3,
            kernel_offset: kernel_code_offset(2),
            dispatch_id: 11,
            correlation_id: 5,
            start_ns,
            end_ns,
            grid: [4096, 1, 1],
            workgroup: [256, 1, 1],
            activity,
        }
    }

    #[test]
    fn the_hot_spot_is_the_dominant_memory_instruction_and_holds_half_the_weight() {
        let streaming = Program::of(7, &activity(4, 8, 0, 0));
        assert_eq!(streaming.instructions[streaming.hot].text, "global_load_dwordx4");
        let conflicted = Program::of(7, &activity(4, 0, 8, 8));
        let hot = &conflicted.instructions[conflicted.hot];
        assert_eq!(hot.inst_type, ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS);
        assert_eq!(hot.reasons.iter().enumerate().max_by_key(|(_, w)| **w).map(|(i, _)| i), Some(7));
        let total: u32 = conflicted.instructions.iter().map(|i| i.weight).sum();
        assert_eq!(hot.weight * 2, total);
        assert!(conflicted.len() < KERNEL_STRIDE - ENTRY_OFFSET, "a program fits its kernel's region");
    }

    #[test]
    fn samples_are_deterministic_inside_the_dispatch_and_follow_the_interval() {
        let d = dispatch(activity(4, 8, 0, 0), 1_000_000, 1_100_000);
        let host_trap = Sampling { method: ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP, interval: 1 };
        let a = samples(&d, host_trap);
        assert_eq!(a, samples(&d, host_trap));
        assert_eq!(a.len(), 100, "100 us at one sample per us");
        assert!(a.iter().all(|s| (d.start_ns..d.end_ns).contains(&s.timestamp) && s.issue.is_none()));
        assert!(a.windows(2).all(|w| w[0].timestamp < w[1].timestamp));
        let stochastic = Sampling { method: ROCPROFILER_PC_SAMPLING_METHOD_STOCHASTIC, interval: 1 << 16 };
        let b = samples(&d, stochastic);
        // 100 us is 210,000 cycles: 3.2 intervals of 65,536 on each of 8 chiplets.
        assert_eq!(b.len(), 25);
        assert!(b.iter().all(|s| s.issue.is_some_and(|i| i.wave_issued == (i.reason_not_issued == 0))));
        let long = dispatch(activity(4, 8, 0, 0), 0, 1_000_000_000);
        assert_eq!(samples(&long, host_trap).len() as u64, MAX_SAMPLES_PER_DISPATCH);
    }

    #[test]
    fn most_samples_land_on_the_hot_spot() {
        let d = dispatch(activity(4, 8, 0, 0), 0, 4_000_000);
        let program = Program::of(d.kernel_id, &d.activity);
        let all = samples(&d, Sampling { method: ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP, interval: 1 });
        let hot = all.iter().filter(|s| s.instruction == program.hot).count();
        assert!((0.4..0.6).contains(&(hot as f64 / all.len() as f64)), "{hot} of {}", all.len());
        let offset = d.kernel_offset + program.instructions[program.hot].offset;
        assert!(all.iter().filter(|s| s.instruction == program.hot).all(|s| s.code_object_offset == offset));
    }
}
