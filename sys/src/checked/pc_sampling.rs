//! PC sampling (`pc_sampling.h`): the configurations an agent offers and the samples the SDK
//! writes into a buffer of category `ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING`.
//!
//! The whole header is marked experimental in SDK 1.0; these are its 1.0 layouts. Every record
//! starts with `size`, so readers check it before touching fields a later SDK may have moved.
//! Bitfields are read and written through bindgen's accessors (`field()` / `set_field()`), with the
//! same names and return types bindgen gives them.

use std::os::raw::{c_uint, c_void};

use super::{
    __BindgenBitfieldUnit, rocprofiler_async_correlation_id_t, rocprofiler_dim3_t, rocprofiler_pc_sampling_method_t,
    rocprofiler_pc_sampling_unit_t, rocprofiler_status_t, zeroed_default,
};

/// `rocprofiler_pc_sampling_configuration_flags_t`: values of
/// [`rocprofiler_pc_sampling_configuration_t::flags`].
pub type rocprofiler_pc_sampling_configuration_flags_t = c_uint;
pub const ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_NONE: rocprofiler_pc_sampling_configuration_flags_t = 0;
/// The interval must be a power of two.
pub const ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_INTERVAL_POW2: rocprofiler_pc_sampling_configuration_flags_t = 1;
pub const ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_LAST: rocprofiler_pc_sampling_configuration_flags_t = 2;

/// `rocprofiler_pc_sampling_instruction_type_t`: what a stochastic sample's instruction is.
pub type rocprofiler_pc_sampling_instruction_type_t = c_uint;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_NONE: rocprofiler_pc_sampling_instruction_type_t = 0;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_VALU: rocprofiler_pc_sampling_instruction_type_t = 1;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_MATRIX: rocprofiler_pc_sampling_instruction_type_t = 2;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_SCALAR: rocprofiler_pc_sampling_instruction_type_t = 3;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_TEX: rocprofiler_pc_sampling_instruction_type_t = 4;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS: rocprofiler_pc_sampling_instruction_type_t = 5;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS_DIRECT: rocprofiler_pc_sampling_instruction_type_t = 6;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_FLAT: rocprofiler_pc_sampling_instruction_type_t = 7;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_EXPORT: rocprofiler_pc_sampling_instruction_type_t = 8;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_MESSAGE: rocprofiler_pc_sampling_instruction_type_t = 9;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BARRIER: rocprofiler_pc_sampling_instruction_type_t = 10;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BRANCH_NOT_TAKEN: rocprofiler_pc_sampling_instruction_type_t = 11;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BRANCH_TAKEN: rocprofiler_pc_sampling_instruction_type_t = 12;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_JUMP: rocprofiler_pc_sampling_instruction_type_t = 13;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_OTHER: rocprofiler_pc_sampling_instruction_type_t = 14;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_NO_INST: rocprofiler_pc_sampling_instruction_type_t = 15;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_DUAL_VALU: rocprofiler_pc_sampling_instruction_type_t = 16;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LAST: rocprofiler_pc_sampling_instruction_type_t = 17;

/// `rocprofiler_pc_sampling_instruction_not_issued_reason_t`: why a stochastic sample's wave did
/// not issue (in [`rocprofiler_pc_sampling_snapshot_v0_t::reason_not_issued`]).
pub type rocprofiler_pc_sampling_instruction_not_issued_reason_t = c_uint;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NONE:
    rocprofiler_pc_sampling_instruction_not_issued_reason_t = 0;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NO_INSTRUCTION_AVAILABLE:
    rocprofiler_pc_sampling_instruction_not_issued_reason_t = 1;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ALU_DEPENDENCY:
    rocprofiler_pc_sampling_instruction_not_issued_reason_t = 2;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT:
    rocprofiler_pc_sampling_instruction_not_issued_reason_t = 3;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_INTERNAL_INSTRUCTION:
    rocprofiler_pc_sampling_instruction_not_issued_reason_t = 4;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_BARRIER_WAIT:
    rocprofiler_pc_sampling_instruction_not_issued_reason_t = 5;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ARBITER_NOT_WIN:
    rocprofiler_pc_sampling_instruction_not_issued_reason_t = 6;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ARBITER_WIN_EX_STALL:
    rocprofiler_pc_sampling_instruction_not_issued_reason_t = 7;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_OTHER_WAIT:
    rocprofiler_pc_sampling_instruction_not_issued_reason_t = 8;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_SLEEP_WAIT:
    rocprofiler_pc_sampling_instruction_not_issued_reason_t = 9;
pub const ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_LAST:
    rocprofiler_pc_sampling_instruction_not_issued_reason_t = 10;

/// One configuration an agent offers (40 bytes in 1.0).
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_pc_sampling_configuration_t {
    pub size: u64,
    pub method: rocprofiler_pc_sampling_method_t,
    pub unit: rocprofiler_pc_sampling_unit_t,
    /// The shortest interval (highest rate) the method accepts, in `unit`.
    pub min_interval: usize,
    /// The longest interval (lowest rate).
    pub max_interval: usize,
    /// `ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_*` values.
    pub flags: u64,
}

/// Receives an agent's configurations; they live only for the call.
pub type rocprofiler_available_pc_sampling_configurations_cb_t = Option<
    unsafe extern "C" fn(
        configs: *const rocprofiler_pc_sampling_configuration_t,
        num_config: usize,
        user_data: *mut c_void,
    ) -> rocprofiler_status_t,
>;

/// A sampled program counter: an offset from the load base of the code object `code_object_id`
/// (`ROCPROFILER_CODE_OBJECT_ID_NONE`, 0, when unknown: then the offset is the virtual address).
#[repr(C)]
#[derive(Debug, Default, Copy, Clone, PartialEq, Eq, Hash)]
pub struct rocprofiler_pc_t {
    pub code_object_id: u64,
    pub code_object_offset: u64,
}

/// Getter and bindgen-named setter for each `(name, bit offset, width)` of a bitfield struct.
macro_rules! bitfield_accessors {
    ($ty:ty as $field_ty:ty { $($(#[$doc:meta])* $name:ident / $setter:ident: $offset:expr, $width:expr;)* }) => {
        impl $ty {
            $(
                $(#[$doc])*
                pub fn $name(&self) -> $field_ty {
                    self._bitfield_1.get($offset, $width) as $field_ty
                }
                #[doc = concat!("Sets `", stringify!($name), "` to the low bits of `value` (bindgen's setter).")]
                pub fn $setter(&mut self, value: $field_ty) {
                    self._bitfield_1.set($offset, $width, u64::from(value))
                }
            )*
        }
    };
}

/// Where a sampled wave ran (8 bytes, one `uint64_t` of bitfields).
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_pc_sampling_hw_id_v0_t {
    pub _bindgen_align: [u64; 0],
    pub _bitfield_1: __BindgenBitfieldUnit<[u8; 8]>,
}

bitfield_accessors!(rocprofiler_pc_sampling_hw_id_v0_t as u64 {
    /// Chiplet (XCC) index.
    chiplet / set_chiplet: 0, 6;
    /// Wave slot.
    wave_id / set_wave_id: 6, 7;
    simd_id / set_simd_id: 13, 2;
    pipe_id / set_pipe_id: 15, 4;
    /// Compute unit on GFX9, workgroup processor on GFX10+.
    cu_or_wgp_id / set_cu_or_wgp_id: 19, 4;
    shader_array_id / set_shader_array_id: 23, 1;
    shader_engine_id / set_shader_engine_id: 24, 5;
    workgroup_id / set_workgroup_id: 29, 7;
    vm_id / set_vm_id: 36, 6;
    queue_id / set_queue_id: 42, 4;
    /// ACE (micro-engine) index.
    microengine_id / set_microengine_id: 46, 2;
    reserved0 / set_reserved0: 48, 16;
});

/// A host-trap sample (kind `HOST_TRAP_V0_SAMPLE`, 88 bytes in 1.0). Host trap sees only where
/// a wave was, never why it waited.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_pc_sampling_record_host_trap_v0_t {
    pub size: u64,
    pub hw_id: rocprofiler_pc_sampling_hw_id_v0_t,
    pub pc: rocprofiler_pc_t,
    /// Active lanes when sampled.
    pub exec_mask: u64,
    pub timestamp: u64,
    pub dispatch_id: u64,
    /// `internal` is the correlation id of the launching API call.
    pub correlation_id: rocprofiler_async_correlation_id_t,
    /// The workgroup's coordinates in the grid.
    pub workgroup_id: rocprofiler_dim3_t,
    pub _bitfield_1: __BindgenBitfieldUnit<[u8; 4]>,
}

bitfield_accessors!(rocprofiler_pc_sampling_record_host_trap_v0_t as u32 {
    /// The wave's position within its workgroup.
    wave_in_group / set_wave_in_group: 0, 8;
    reserved0 / set_reserved0: 8, 24;
});

/// What a stochastic sample carries besides the basics (1 byte).
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_pc_sampling_record_stochastic_header_t {
    pub _bitfield_1: __BindgenBitfieldUnit<[u8; 1]>,
}

bitfield_accessors!(rocprofiler_pc_sampling_record_stochastic_header_t as u8 {
    /// Non-zero when `memory_counters` is meaningful.
    has_memory_counter / set_has_memory_counter: 0, 1;
    reserved_type / set_reserved_type: 1, 7;
});

/// The issue state of a stochastic sample's wave (4 bytes, one `uint32_t` of bitfields).
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_pc_sampling_snapshot_v0_t {
    pub _bindgen_align: [u32; 0],
    pub _bitfield_1: __BindgenBitfieldUnit<[u8; 4]>,
}

bitfield_accessors!(rocprofiler_pc_sampling_snapshot_v0_t as u32 {
    /// A `ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_*` value.
    reason_not_issued / set_reason_not_issued: 0, 4;
    reserved0 / set_reserved0: 4, 1;
    arb_state_issue_valu / set_arb_state_issue_valu: 5, 1;
    arb_state_issue_matrix / set_arb_state_issue_matrix: 6, 1;
    arb_state_issue_lds / set_arb_state_issue_lds: 7, 1;
    arb_state_issue_lds_direct / set_arb_state_issue_lds_direct: 8, 1;
    arb_state_issue_scalar / set_arb_state_issue_scalar: 9, 1;
    arb_state_issue_vmem_tex / set_arb_state_issue_vmem_tex: 10, 1;
    arb_state_issue_flat / set_arb_state_issue_flat: 11, 1;
    arb_state_issue_exp / set_arb_state_issue_exp: 12, 1;
    arb_state_issue_misc / set_arb_state_issue_misc: 13, 1;
    arb_state_issue_brmsg / set_arb_state_issue_brmsg: 14, 1;
    arb_state_issue_reserved / set_arb_state_issue_reserved: 15, 1;
    arb_state_stall_valu / set_arb_state_stall_valu: 16, 1;
    arb_state_stall_matrix / set_arb_state_stall_matrix: 17, 1;
    arb_state_stall_lds / set_arb_state_stall_lds: 18, 1;
    arb_state_stall_lds_direct / set_arb_state_stall_lds_direct: 19, 1;
    arb_state_stall_scalar / set_arb_state_stall_scalar: 20, 1;
    arb_state_stall_vmem_tex / set_arb_state_stall_vmem_tex: 21, 1;
    arb_state_stall_flat / set_arb_state_stall_flat: 22, 1;
    arb_state_stall_exp / set_arb_state_stall_exp: 23, 1;
    arb_state_stall_misc / set_arb_state_stall_misc: 24, 1;
    arb_state_stall_brmsg / set_arb_state_stall_brmsg: 25, 1;
    arb_state_state_reserved / set_arb_state_state_reserved: 26, 1;
    /// Two VALU instructions issued together (MI300 and later).
    dual_issue_valu / set_dual_issue_valu: 27, 1;
    reserved1 / set_reserved1: 28, 1;
    reserved2 / set_reserved2: 29, 3;
});

/// Issued but not yet completed memory instructions of the sampled wave (4 bytes).
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_pc_sampling_memory_counters_t {
    pub _bindgen_align: [u32; 0],
    pub _bitfield_1: __BindgenBitfieldUnit<[u8; 4]>,
}

bitfield_accessors!(rocprofiler_pc_sampling_memory_counters_t as u32 {
    load_cnt / set_load_cnt: 0, 6;
    store_cnt / set_store_cnt: 6, 6;
    bvh_cnt / set_bvh_cnt: 12, 3;
    sample_cnt / set_sample_cnt: 15, 6;
    ds_cnt / set_ds_cnt: 21, 6;
    km_cnt / set_km_cnt: 27, 5;
});

/// A stochastic sample (kind `STOCHASTIC_V0_SAMPLE`, 104 bytes in 1.0).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_pc_sampling_record_stochastic_v0_t {
    pub size: u64,
    pub flags: rocprofiler_pc_sampling_record_stochastic_header_t,
    /// The wave's position within its workgroup.
    pub wave_in_group: u8,
    /// `wave_issued` (1 bit), `inst_type` (5), `reserved` (2).
    pub _bitfield_1: __BindgenBitfieldUnit<[u8; 1]>,
    pub hw_id: rocprofiler_pc_sampling_hw_id_v0_t,
    pub pc: rocprofiler_pc_t,
    pub exec_mask: u64,
    pub workgroup_id: rocprofiler_dim3_t,
    /// Waves active on the CU when sampled.
    pub wave_count: u32,
    pub timestamp: u64,
    pub dispatch_id: u64,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    pub snapshot: rocprofiler_pc_sampling_snapshot_v0_t,
    pub memory_counters: rocprofiler_pc_sampling_memory_counters_t,
}

bitfield_accessors!(rocprofiler_pc_sampling_record_stochastic_v0_t as u8 {
    /// Non-zero when the wave issued the sampled instruction.
    wave_issued / set_wave_issued: 0, 1;
    /// A `ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_*` value.
    inst_type / set_inst_type: 1, 5;
    reserved / set_reserved: 6, 2;
});

/// A sample the SDK could not decode (kind `INVALID_SAMPLE`, 8 bytes).
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_pc_sampling_record_invalid_t {
    pub size: u64,
}

zeroed_default!(rocprofiler_pc_sampling_record_host_trap_v0_t, rocprofiler_pc_sampling_record_stochastic_v0_t);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_id_fields_round_trip_without_touching_their_neighbours() {
        let mut id = rocprofiler_pc_sampling_hw_id_v0_t::default();
        id.set_chiplet(5);
        id.set_wave_id(0x7f);
        id.set_shader_engine_id(3);
        id.set_microengine_id(2);
        assert_eq!((id.chiplet(), id.wave_id(), id.simd_id()), (5, 0x7f, 0));
        assert_eq!((id.shader_engine_id(), id.microengine_id(), id.reserved0()), (3, 2, 0));
        // chiplet in bits 0..6, wave_id 6..13, shader_engine_id 24..29, microengine_id 46..48.
        assert_eq!(id._bitfield_1.get(0, 64), 5 | (0x7f << 6) | (3 << 24) | (2 << 46));
    }

    #[test]
    fn stochastic_bits_sit_where_the_header_puts_them() {
        let mut record = rocprofiler_pc_sampling_record_stochastic_v0_t::default();
        record.set_wave_issued(1);
        record.set_inst_type(ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS as u8);
        assert_eq!(record._bitfield_1.get(0, 8), 1 | (5 << 1));
        record.snapshot.set_reason_not_issued(ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT);
        record.snapshot.set_dual_issue_valu(1);
        assert_eq!(record.snapshot._bitfield_1.get(0, 32), 3 | (1 << 27));
        record.memory_counters.set_km_cnt(31);
        assert_eq!(record.memory_counters._bitfield_1.get(0, 32), 31 << 27);
    }
}
