//! Agents (`agent.h`) and the hsakmt and HSA types they embed.
//!
//! `rocprofiler_agent_v0_t` is 312 bytes in 1.0; 1.3 appends `firmware_info`. The project passes
//! the 1.0 size to `rocprofiler_query_available_agents` (a larger one gets `INCOMPATIBLE_ABI` from
//! an older SDK) and reads each agent's `size` before any later field.

use std::os::raw::{c_char, c_uint};

use super::{
    __BindgenBitfieldUnit, rocprofiler_agent_id_t, rocprofiler_agent_type_t, rocprofiler_dim3_t, rocprofiler_uuid_t,
    zeroed_default,
};

/// An HSA agent handle (`hsa.h`).
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct hsa_agent_s {
    pub handle: u64,
}
/// `typedef struct hsa_agent_s hsa_agent_t`.
pub type hsa_agent_t = hsa_agent_s;

/// hsakmt's 32-bit unsigned integer.
pub type HSAuint32 = u32;

/// hsakmt `HSA_HEAPTYPE`: the kind of a memory bank.
pub type _HSA_HEAPTYPE = c_uint;
pub use self::_HSA_HEAPTYPE as HSA_HEAPTYPE;
/// hsakmt `HSA_IOLINKTYPE`: the kind of an IO link.
pub type _HSA_IOLINKTYPE = c_uint;
pub use self::_HSA_IOLINKTYPE as HSA_IOLINKTYPE;

macro_rules! bitfield_u32 {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        $(
            $(#[$doc])*
            #[repr(C)]
            #[derive(Debug, Default, Copy, Clone)]
            pub struct $name {
                pub _bindgen_align: [u32; 0],
                pub _bitfield_1: __BindgenBitfieldUnit<[u8; 4]>,
            }
        )*
    };
}

bitfield_u32! {
    /// The bitfield view of [`HSA_ENGINE_ID`] (ucode, major, minor, stepping).
    HSA_ENGINE_ID__bindgen_ty_1,
    /// The bitfield view of [`HSA_ENGINE_VERSION`].
    HSA_ENGINE_VERSION__bindgen_ty_1,
    /// The bitfield view of [`HSA_CAPABILITY`].
    HSA_CAPABILITY__bindgen_ty_1,
    /// The bitfield view of [`HSA_MEMORYPROPERTY`].
    HSA_MEMORYPROPERTY__bindgen_ty_1,
    /// The bitfield view of [`HsaCacheType`].
    HsaCacheType__bindgen_ty_1,
    /// The bitfield view of [`HSA_LINKPROPERTY`].
    HSA_LINKPROPERTY__bindgen_ty_1,
}

/// Firmware engine id; the project reads `.Value`.
#[repr(C)]
#[derive(Copy, Clone)]
pub union HSA_ENGINE_ID {
    pub Value: HSAuint32,
    pub ui32: HSA_ENGINE_ID__bindgen_ty_1,
}

/// Engine firmware version; the project reads `.Value`.
#[repr(C)]
#[derive(Copy, Clone)]
pub union HSA_ENGINE_VERSION {
    pub Value: HSAuint32,
    pub __bindgen_anon_1: HSA_ENGINE_VERSION__bindgen_ty_1,
}

/// Node capability flags; the project reads `.Value`.
#[repr(C)]
#[derive(Copy, Clone)]
pub union HSA_CAPABILITY {
    pub Value: HSAuint32,
    pub ui32: HSA_CAPABILITY__bindgen_ty_1,
}

/// Memory bank property flags.
#[repr(C)]
#[derive(Copy, Clone)]
pub union HSA_MEMORYPROPERTY {
    pub MemoryProperty: HSAuint32,
    pub ui32: HSA_MEMORYPROPERTY__bindgen_ty_1,
}

/// Cache type flags (data, instruction, CPU, HSA cu).
#[repr(C)]
#[derive(Copy, Clone)]
pub union HsaCacheType {
    pub Value: HSAuint32,
    pub ui32: HsaCacheType__bindgen_ty_1,
}

/// IO link property flags.
#[repr(C)]
#[derive(Copy, Clone)]
pub union HSA_LINKPROPERTY {
    pub LinkProperty: HSAuint32,
    pub ui32: HSA_LINKPROPERTY__bindgen_ty_1,
}

/// One cache of an agent.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_agent_cache_t {
    pub processor_id_low: u64,
    /// Bytes.
    pub size: u64,
    pub level: u32,
    pub cache_line_size: u32,
    pub cache_lines_per_tag: u32,
    pub association: u32,
    pub latency: u32,
    pub type_: HsaCacheType,
}

/// One IO link of an agent.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_agent_io_link_t {
    pub type_: HSA_IOLINKTYPE,
    pub version_major: u32,
    pub version_minor: u32,
    pub node_from: u32,
    pub node_to: u32,
    pub weight: u32,
    pub min_latency: u32,
    pub max_latency: u32,
    pub min_bandwidth: u32,
    pub max_bandwidth: u32,
    pub recommended_transfer_size: u32,
    pub flags: HSA_LINKPROPERTY,
}

/// One memory bank of an agent.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_agent_mem_bank_t {
    pub heap_type: HSA_HEAPTYPE,
    pub flags: HSA_MEMORYPROPERTY,
    /// Bits.
    pub width: u32,
    /// MHz.
    pub mem_clk_max: u32,
    pub size_in_bytes: u64,
}

/// Which runtimes would see this agent, estimated from the `*_VISIBLE_DEVICES` variables.
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_agent_runtime_visiblity_t {
    pub _bindgen_align: [u32; 0],
    pub _bitfield_1: __BindgenBitfieldUnit<[u8; 4]>,
}

impl rocprofiler_agent_runtime_visiblity_t {
    /// Visible to HSA (ROCr).
    pub fn hsa(&self) -> u32 {
        self._bitfield_1.get(0, 1) as u32
    }
    /// Visible to HIP.
    pub fn hip(&self) -> u32 {
        self._bitfield_1.get(1, 1) as u32
    }
    /// Visible to RCCL.
    pub fn rccl(&self) -> u32 {
        self._bitfield_1.get(2, 1) as u32
    }
    /// Visible to rocDecode.
    pub fn rocdecode(&self) -> u32 {
        self._bitfield_1.get(3, 1) as u32
    }
}

/// A CPU or GPU agent, as of SDK 1.0 (312 bytes).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_agent_v0_t {
    pub size: u64,
    pub id: rocprofiler_agent_id_t,
    pub type_: rocprofiler_agent_type_t,
    pub cpu_cores_count: u32,
    pub simd_count: u32,
    pub mem_banks_count: u32,
    pub caches_count: u32,
    pub io_links_count: u32,
    pub cpu_core_id_base: u32,
    pub simd_id_base: u32,
    pub max_waves_per_simd: u32,
    pub lds_size_in_kb: u32,
    pub gds_size_in_kb: u32,
    pub num_gws: u32,
    /// 64 on CDNA, 32 on RDNA.
    pub wave_front_size: u32,
    pub num_xcc: u32,
    pub cu_count: u32,
    pub array_count: u32,
    pub num_shader_banks: u32,
    pub simd_arrays_per_engine: u32,
    pub cu_per_simd_array: u32,
    pub simd_per_cu: u32,
    pub max_slots_scratch_cu: u32,
    /// For example 90402: major = v / 10000 % 100, minor = v / 100 % 100, stepping = v % 100.
    pub gfx_target_version: u32,
    pub vendor_id: u16,
    pub device_id: u16,
    pub location_id: u32,
    pub domain: u32,
    pub drm_render_minor: u32,
    pub num_sdma_engines: u32,
    pub num_sdma_xgmi_engines: u32,
    pub num_sdma_queues_per_engine: u32,
    pub num_cp_queues: u32,
    /// MHz (CPU).
    pub max_engine_clk_ccompute: u32,
    /// MHz (GPU).
    pub max_engine_clk_fcompute: u32,
    pub sdma_fw_version: HSA_ENGINE_VERSION,
    pub fw_version: HSA_ENGINE_ID,
    pub capability: HSA_CAPABILITY,
    pub cu_per_engine: u32,
    pub max_waves_per_cu: u32,
    pub family_id: u32,
    pub workgroup_max_size: u32,
    pub grid_max_size: u32,
    pub local_mem_size: u64,
    pub hive_id: u64,
    pub gpu_id: u64,
    pub workgroup_max_dim: rocprofiler_dim3_t,
    pub grid_max_dim: rocprofiler_dim3_t,
    pub mem_banks: *const rocprofiler_agent_mem_bank_t,
    pub caches: *const rocprofiler_agent_cache_t,
    pub io_links: *const rocprofiler_agent_io_link_t,
    /// `gfx942` and the like for GPUs; the marketing name for CPUs.
    pub name: *const c_char,
    pub vendor_name: *const c_char,
    pub product_name: *const c_char,
    pub model_name: *const c_char,
    pub node_id: u32,
    pub logical_node_id: i32,
    pub logical_node_type_id: i32,
    pub runtime_visibility: rocprofiler_agent_runtime_visiblity_t,
    pub uuid: rocprofiler_uuid_t,
}

/// The agent struct of the current ABI.
pub type rocprofiler_agent_t = rocprofiler_agent_v0_t;

zeroed_default!(
    HSA_ENGINE_ID,
    HSA_ENGINE_VERSION,
    HSA_CAPABILITY,
    HSA_MEMORYPROPERTY,
    HsaCacheType,
    HSA_LINKPROPERTY,
    rocprofiler_agent_cache_t,
    rocprofiler_agent_io_link_t,
    rocprofiler_agent_mem_bank_t,
    rocprofiler_agent_v0_t,
);
