//! The presets on NVIDIA GPUs: the same names and purposes as AMD's, in CUPTI's metrics.
//!
//! Entries resolve against the chip's own metric list (CUPTI's host API), so one list serves
//! sm_80 (GA100) and sm_90 (GH100): a metric a chip lacks falls to the next name, and optional
//! entries (FP8 tensor ops before Hopper) are not missed. Every name is a base metric with its
//! `.sum` rollup: what one dispatch did, summed over the units that count it.
//!
//! Measured on the H100 (`bench/gpu/range_probe`): one `sm__ops_path_tensor_src_*` op is one
//! FLOP (a 2048³ GEMM reads 2·2048³ in bf16, fp16, tf32 and fp64), while
//! `sm__inst_executed_pipe_tensor_op_hmma` also counts non-tensor `HFMA2.MMA` and is not used for
//! FLOPs; `smsp__sass_*` metrics are instrumented and take their own pass.

use crate::counters::presets::{Preset, one, optional};

const SASS_OPS: [&str; 9] = ["dadd", "dmul", "dfma", "fadd", "fmul", "ffma", "hadd", "hmul", "hfma"];

/// Every NVIDIA preset, in the order `avail` lists them.
pub static PRESETS: &[Preset] = &[
    Preset {
        name: "roofline",
        about: "FLOPs per precision (vector FP64/FP32/FP16 by SASS op; tensor FP64, FP16, BF16, TF32, FP8) and bytes at DRAM, L2, L1 and shared memory",
        entries: &[
            one(&["smsp__sass_thread_inst_executed_op_dadd_pred_on.sum"]),
            one(&["smsp__sass_thread_inst_executed_op_dmul_pred_on.sum"]),
            one(&["smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"]),
            one(&["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"]),
            one(&["smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"]),
            one(&["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"]),
            one(&["smsp__sass_thread_inst_executed_op_hadd_pred_on.sum"]),
            one(&["smsp__sass_thread_inst_executed_op_hmul_pred_on.sum"]),
            one(&["smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"]),
            one(&["sm__ops_path_tensor_src_fp64.sum"]),
            // Tensor ops by path where the total cannot be counted per dispatch: on GH100
            // `sm__ops_path_tensor_src_fp16` needs two passes by itself, and CUPTI spreads
            // `src_bf16_dst_fp32`, `src_tf32_dst_fp32` and every HMMA FP32-accumulate path over
            // several passes, so no single session decodes them (`bench/gpu/range_probe`, X18b,
            // X22). Hopper's warpgroup HGMMA paths decode alone; GA100 has no HGMMA and names its
            // paths by source and destination.
            optional(&["sm__ops_path_tensor_op_hgmma_src_fp16.sum"]),
            one(&["sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum", "sm__ops_path_tensor_src_fp16_dst_fp16.sum"]),
            optional(&["sm__ops_path_tensor_src_fp16_dst_fp32.sum"]),
            one(&["sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum"]),
            one(&["sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum", "sm__ops_path_tensor_src_tf32_dst_fp32.sum"]),
            // HMMA instructions (less the non-tensor HFMA2.MMA among them): tensor work whose
            // FLOPs the paths above cannot count on GH100, which analyze must know of.
            optional(&["sm__inst_executed_pipe_tensor_op_hmma.sum"]),
            optional(&["sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum"]),
            // ... and warpgroup GMMA, which the HMMA count includes on GH100.
            optional(&["sm__inst_executed_pipe_tensor_op_gmma.sum"]),
            // Not INT8: `sm__ops_path_tensor_src_int8` needs two passes by itself.
            optional(&["sm__ops_path_tensor_src_fp8.sum"]),
            one(&["dram__bytes_read.sum"]),
            one(&["dram__bytes_write.sum"]),
            one(&["lts__t_bytes.sum"]),
            one(&["l1tex__t_bytes.sum"]),
            one(&["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"]),
            one(&["l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"]),
            // Warp instructions issued: the issue-slot roof (one per scheduler per cycle), which
            // Nsight Compute's compute Speed of Light counts beside the pipes.
            optional(&["smsp__inst_executed.sum", "sm__inst_executed.sum"]),
        ],
    },
    Preset {
        name: "memory_bound",
        about: "bytes and hit rates at each level, shared-memory wavefronts and bank conflicts",
        entries: &[
            one(&["dram__bytes_read.sum"]),
            one(&["dram__bytes_write.sum"]),
            one(&["lts__t_bytes.sum"]),
            one(&["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"]),
            one(&["lts__t_sectors_srcunit_tex_op_read.sum"]),
            one(&["l1tex__t_bytes.sum"]),
            one(&["l1tex__t_sector_hit_rate.pct"]),
            one(&["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"]),
            one(&["l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"]),
            one(&["smsp__inst_executed_op_global_ld.sum"]),
            one(&["smsp__inst_executed_op_global_st.sum"]),
        ],
    },
    Preset {
        name: "compute_bound",
        about: "warps, instructions issued and executed, FP32/FP64 SASS ops and tensor-pipe instructions",
        entries: &[
            one(&["smsp__warps_launched.sum"]),
            one(&["sm__cycles_elapsed.avg"]),
            one(&["smsp__inst_executed.sum"]),
            one(&["smsp__inst_issued.sum"]),
            one(&["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"]),
            one(&["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"]),
            one(&["smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"]),
            one(&["smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"]),
            one(&["sm__inst_executed_pipe_tensor.sum"]),
        ],
    },
    Preset {
        name: "basic",
        about: "warps, instructions, DRAM and L2 bytes: the quick look",
        entries: &[
            one(&["smsp__warps_launched.sum"]),
            one(&["smsp__inst_executed.sum"]),
            one(&["dram__bytes_read.sum"]),
            one(&["dram__bytes_write.sum"]),
            one(&["lts__t_bytes.sum"]),
        ],
    },
];

/// The NVIDIA preset named `name`.
pub fn by_name(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The SASS op counted by each vector-FLOP entry, for tests and docs.
pub fn sass_ops() -> &'static [&'static str] {
    &SASS_OPS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roofline_preset_counts_every_sass_op_and_each_level() {
        let roofline = by_name("roofline").unwrap();
        let names: Vec<&str> = roofline.entries.iter().map(|e| e.names[0]).collect();
        for op in sass_ops() {
            assert!(names.contains(&format!("smsp__sass_thread_inst_executed_op_{op}_pred_on.sum").as_str()));
        }
        for level in ["dram__bytes_read.sum", "lts__t_bytes.sum", "l1tex__t_bytes.sum"] {
            assert!(names.contains(&level));
        }
        assert!(
            !names.iter().any(|n| n.starts_with("sm__ops_path") && n.contains("int8")),
            "INT8 tensor ops need two passes by themselves on GH100"
        );
    }

    #[test]
    fn a_chip_without_fp8_runs_the_roofline_in_full() {
        let roofline = by_name("roofline").unwrap();
        let resolved = roofline.resolve(|n| !n.contains("fp8") && !n.contains("int8"));
        assert!(resolved.complete(), "{:?}", resolved.missing);
    }
}
