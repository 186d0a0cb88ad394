//! The PC sampling declarations (`pc_sampling.h`) against the SDK 1.0.0 ABI as read from the
//! header at ROCm/rocm-systems 1b1610fc (x86_64 LP64): sizes, alignments, field offsets, the bit
//! position of every bitfield and every enumerator. The numbers are worked out by hand from the
//! header and written here; nothing is read from outside the crate.

#![allow(non_camel_case_types)]

use rocprofiler_sdk_sys::checked::*;

mod common;

#[test]
fn configuration() {
    common::check_layout!(rocprofiler_pc_sampling_configuration_t, size = 40, align = 8, {
        size: (0, 8),
        method: (8, 4),
        unit: (12, 4),
        min_interval: (16, 8),
        max_interval: (24, 8),
        flags: (32, 8),
    });
}

#[test]
fn pc() {
    common::check_layout!(rocprofiler_pc_t, size = 16, align = 8, {
        code_object_id: (0, 8),
        code_object_offset: (8, 8),
    });
}

#[test]
fn bitfield_structs() {
    common::check_layout!(rocprofiler_pc_sampling_hw_id_v0_t, size = 8, align = 8, {});
    common::check_layout!(rocprofiler_pc_sampling_record_stochastic_header_t, size = 1, align = 1, {});
    common::check_layout!(rocprofiler_pc_sampling_snapshot_v0_t, size = 4, align = 4, {});
    common::check_layout!(rocprofiler_pc_sampling_memory_counters_t, size = 4, align = 4, {});
}

#[test]
fn host_trap_record() {
    common::check_layout!(rocprofiler_pc_sampling_record_host_trap_v0_t, size = 88, align = 8, {
        size: (0, 8),
        hw_id: (8, 8),
        pc: (16, 16),
        exec_mask: (32, 8),
        timestamp: (40, 8),
        dispatch_id: (48, 8),
        correlation_id: (56, 16),
        workgroup_id: (72, 12),
        _bitfield_1: (84, 4),
    });
}

#[test]
fn stochastic_record() {
    common::check_layout!(rocprofiler_pc_sampling_record_stochastic_v0_t, size = 104, align = 8, {
        size: (0, 8),
        flags: (8, 1),
        wave_in_group: (9, 1),
        _bitfield_1: (10, 1),
        hw_id: (16, 8),
        pc: (24, 16),
        exec_mask: (40, 8),
        workgroup_id: (48, 12),
        wave_count: (60, 4),
        timestamp: (64, 8),
        dispatch_id: (72, 8),
        correlation_id: (80, 16),
        snapshot: (96, 4),
        memory_counters: (100, 4),
    });
}

#[test]
fn invalid_record() {
    common::check_layout!(rocprofiler_pc_sampling_record_invalid_t, size = 8, align = 8, { size: (0, 8) });
}

/// Sets one field to all ones and returns the storage as an integer: the field's mask.
macro_rules! masks {
    ($ty:ty, $storage:ty, { $($setter:ident: $mask:expr),* $(,)? }) => {
        let mut covered: $storage = 0;
        $(
            let mut value = <$ty>::default();
            value.$setter(!0);
            let bits = value._bitfield_1.get(0, <$storage>::BITS as u8) as $storage;
            assert_eq!(bits, $mask, "{}::{}", stringify!($ty), stringify!($setter));
            assert_eq!(covered & bits, 0, "{}::{} overlaps an earlier field", stringify!($ty), stringify!($setter));
            covered |= bits;
        )*
        assert_eq!(covered, <$storage>::MAX, "{}: some bits belong to no field", stringify!($ty));
    };
}

#[test]
fn hw_id_bits() {
    masks!(rocprofiler_pc_sampling_hw_id_v0_t, u64, {
        set_chiplet: 0x3f,
        set_wave_id: 0x7f << 6,
        set_simd_id: 0x3 << 13,
        set_pipe_id: 0xf << 15,
        set_cu_or_wgp_id: 0xf << 19,
        set_shader_array_id: 0x1 << 23,
        set_shader_engine_id: 0x1f << 24,
        set_workgroup_id: 0x7f << 29,
        set_vm_id: 0x3f << 36,
        set_queue_id: 0xf << 42,
        set_microengine_id: 0x3 << 46,
        set_reserved0: 0xffff << 48,
    });
}

#[test]
fn record_bits() {
    masks!(rocprofiler_pc_sampling_record_host_trap_v0_t, u32, {
        set_wave_in_group: 0xff,
        set_reserved0: 0xff_ffff << 8,
    });
    masks!(rocprofiler_pc_sampling_record_stochastic_v0_t, u8, {
        set_wave_issued: 0x1,
        set_inst_type: 0x1f << 1,
        set_reserved: 0x3 << 6,
    });
    masks!(rocprofiler_pc_sampling_record_stochastic_header_t, u8, {
        set_has_memory_counter: 0x1,
        set_reserved_type: 0x7f << 1,
    });
    masks!(rocprofiler_pc_sampling_memory_counters_t, u32, {
        set_load_cnt: 0x3f,
        set_store_cnt: 0x3f << 6,
        set_bvh_cnt: 0x7 << 12,
        set_sample_cnt: 0x3f << 15,
        set_ds_cnt: 0x3f << 21,
        set_km_cnt: 0x1f << 27,
    });
}

#[test]
fn snapshot_bits() {
    masks!(rocprofiler_pc_sampling_snapshot_v0_t, u32, {
        set_reason_not_issued: 0xf,
        set_reserved0: 1 << 4,
        set_arb_state_issue_valu: 1 << 5,
        set_arb_state_issue_matrix: 1 << 6,
        set_arb_state_issue_lds: 1 << 7,
        set_arb_state_issue_lds_direct: 1 << 8,
        set_arb_state_issue_scalar: 1 << 9,
        set_arb_state_issue_vmem_tex: 1 << 10,
        set_arb_state_issue_flat: 1 << 11,
        set_arb_state_issue_exp: 1 << 12,
        set_arb_state_issue_misc: 1 << 13,
        set_arb_state_issue_brmsg: 1 << 14,
        set_arb_state_issue_reserved: 1 << 15,
        set_arb_state_stall_valu: 1 << 16,
        set_arb_state_stall_matrix: 1 << 17,
        set_arb_state_stall_lds: 1 << 18,
        set_arb_state_stall_lds_direct: 1 << 19,
        set_arb_state_stall_scalar: 1 << 20,
        set_arb_state_stall_vmem_tex: 1 << 21,
        set_arb_state_stall_flat: 1 << 22,
        set_arb_state_stall_exp: 1 << 23,
        set_arb_state_stall_misc: 1 << 24,
        set_arb_state_stall_brmsg: 1 << 25,
        set_arb_state_state_reserved: 1 << 26,
        set_dual_issue_valu: 1 << 27,
        set_reserved1: 1 << 28,
        set_reserved2: 0x7 << 29,
    });
}

#[test]
fn configuration_flags() {
    common::check_enum!(rocprofiler_pc_sampling_configuration_flags_t, signed = false, sequential, {
        ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_NONE = 0,
        ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_INTERVAL_POW2 = 1,
        ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_LAST = 2,
    });
}

#[test]
fn instruction_type() {
    common::check_enum!(rocprofiler_pc_sampling_instruction_type_t, signed = false, sequential, {
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_NONE = 0,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_VALU = 1,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_MATRIX = 2,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_SCALAR = 3,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_TEX = 4,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS = 5,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS_DIRECT = 6,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_FLAT = 7,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_EXPORT = 8,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_MESSAGE = 9,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BARRIER = 10,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BRANCH_NOT_TAKEN = 11,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BRANCH_TAKEN = 12,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_JUMP = 13,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_OTHER = 14,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_NO_INST = 15,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_DUAL_VALU = 16,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LAST = 17,
    });
}

#[test]
fn not_issued_reason() {
    common::check_enum!(rocprofiler_pc_sampling_instruction_not_issued_reason_t, signed = false, sequential, {
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NONE = 0,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NO_INSTRUCTION_AVAILABLE = 1,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ALU_DEPENDENCY = 2,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT = 3,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_INTERNAL_INSTRUCTION = 4,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_BARRIER_WAIT = 5,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ARBITER_NOT_WIN = 6,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ARBITER_WIN_EX_STALL = 7,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_OTHER_WAIT = 8,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_SLEEP_WAIT = 9,
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_LAST = 10,
    });
}
