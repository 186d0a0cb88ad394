//! The kernels a simulated application launches: real-world name shapes (templated C++, lambdas,
//! anonymous namespaces, Triton, Tensile, runtime blits) with plausible descriptors and costs.
//!
//! Names are mangled as the code object stores them; tools demangle. The mix is what stresses a
//! profiler's name handling: very long names, `{lambda()#7}` closures, unmangled Triton names.

use crate::runtime_abi::SimActivity;

/// How a kernel is launched, which decides the HIP API call that carries its dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launch {
    /// `hipLaunchKernel`: HIP C++ kernels.
    Runtime,
    /// `hipModuleLaunchKernel`: code objects loaded at run time (Triton, Tensile).
    Module,
    /// Internal runtime kernels behind `hipMemsetAsync` and friends.
    Blit,
}

/// One kernel symbol and its cost model.
#[derive(Debug, Clone, Copy)]
pub struct KernelSpec {
    pub mangled: &'static str,
    pub launch: Launch,
    pub kernarg_size: u32,
    /// Static LDS bytes per workgroup.
    pub lds: u32,
    /// Static scratch bytes per work-item.
    pub scratch: u32,
    pub sgpr: u32,
    pub arch_vgpr: u32,
    pub accum_vgpr: u32,
    pub workgroup: u32,
    /// Work-items: a power of two drawn from this range of exponents.
    pub grid_log2: (u32, u32),
    /// Nanoseconds per million work-items, plus a fixed launch cost.
    pub ns_per_mitem: u64,
    pub fixed_ns: u64,
    /// Relative frequency in the default mix.
    pub weight: u32,
    /// Instructions per work-item: VALU, SALU, VMEM read, VMEM write, LDS, MFMA.
    pub insts: [u16; 6],
    /// L2 hit rate in percent.
    pub l2_hit_pct: u8,
}

#[allow(clippy::too_many_arguments)]
const fn k(
    mangled: &'static str,
    launch: Launch,
    regs: (u32, u32, u32),
    lds: u32,
    scratch: u32,
    grid_log2: (u32, u32),
    cost: (u64, u64),
    weight: u32,
    insts: [u16; 6],
    l2_hit_pct: u8,
) -> KernelSpec {
    KernelSpec {
        mangled,
        launch,
        kernarg_size: 64,
        lds,
        scratch,
        sgpr: regs.0,
        arch_vgpr: regs.1,
        accum_vgpr: regs.2,
        workgroup: 256,
        grid_log2,
        ns_per_mitem: cost.0,
        fixed_ns: cost.1,
        weight,
        insts,
        l2_hit_pct,
    }
}

/// The default catalog.
pub const CATALOG: &[KernelSpec] = &[
    k(
        "_Z15addition_kernelIfEvPT_PKS0_S3_ii",
        Launch::Runtime,
        (16, 8, 0),
        0,
        0,
        (16, 22),
        (900, 2_000),
        20,
        [6, 4, 2, 1, 0, 0],
        35,
    ),
    k(
        "_Z14vector_add_f32PKfS0_Pfi",
        Launch::Runtime,
        (16, 8, 0),
        0,
        0,
        (16, 24),
        (800, 2_000),
        20,
        [5, 4, 2, 1, 0, 0],
        30,
    ),
    k(
        "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
        Launch::Runtime,
        (24, 12, 0),
        0,
        0,
        (14, 22),
        (500, 2_500),
        12,
        [4, 6, 0, 1, 0, 0],
        10,
    ),
    k(
        "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE0_clEvENKUlvE5_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_",
        Launch::Runtime,
        (24, 16, 0),
        0,
        0,
        (14, 22),
        (700, 2_500),
        12,
        [6, 6, 1, 1, 0, 0],
        20,
    ),
    k(
        "_ZN7rocprim6detail19block_reduce_kernelILj256ELj8EPKfPfNS_4plusIfEEEEvT1_mT2_T3_",
        Launch::Runtime,
        (32, 24, 0),
        2_048,
        0,
        (18, 24),
        (600, 3_000),
        6,
        [12, 8, 8, 0, 4, 0],
        60,
    ),
    k(
        "_ZN2ck27kernel_gemm_xdl_cshuffle_v3INS_36GridwiseGemm_xdl_cshuffle_v3_multi_dILi256ELi128ELi128ELi64EEELb1ELNS_25InMemoryDataOperationEnumE0ELi1ELNS_10TailNumberE2EEEvNT_8ArgumentE",
        Launch::Runtime,
        (96, 128, 128),
        65_536,
        0,
        (20, 24),
        (9_000, 6_000),
        8,
        [40, 24, 16, 4, 32, 64],
        85,
    ),
    k(
        "_Z20softmax_warp_forwardIN3c104HalfES1_fLi10ELb0ELb0EEvPT0_PKT_iiiPKbib",
        Launch::Runtime,
        (40, 64, 0),
        0,
        0,
        (16, 22),
        (1_500, 3_000),
        6,
        [30, 10, 4, 2, 0, 0],
        55,
    ),
    k(
        "_ZN12_GLOBAL__N_113layernorm_fwdIfLi4EEEvPKT_S3_S3_PS1_ifi",
        Launch::Runtime,
        (48, 40, 0),
        4_096,
        256,
        (16, 22),
        (1_800, 3_500),
        4,
        [36, 12, 6, 2, 8, 0],
        50,
    ),
    k(
        "triton_poi_fused_add_mul_0",
        Launch::Module,
        (32, 20, 0),
        0,
        0,
        (16, 22),
        (700, 2_000),
        10,
        [8, 4, 2, 1, 0, 0],
        25,
    ),
    k(
        "triton_red_fused__softmax_1",
        Launch::Module,
        (40, 36, 0),
        1_024,
        0,
        (16, 21),
        (1_300, 2_500),
        6,
        [20, 8, 4, 1, 6, 0],
        45,
    ),
    k(
        "matmul_kernel_0d1d2d3d4d5d6d7c8d9c10d11c",
        Launch::Module,
        (88, 128, 64),
        32_768,
        0,
        (18, 22),
        (7_000, 5_000),
        4,
        [48, 20, 12, 4, 24, 48],
        80,
    ),
    k(
        "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB1_AFC1_AFEM1_ASEM1_CLR1_CADS0_EPS1_GRVWA8_GRVWB8_GSU1_GSUASB_ISA942_K1_LBSPPA128_LPA16_LPB16_LDL1_MIAV1_MDA2_NTn_PGR2_PLR1_SIA3_SS1_SU32_SVW4_TT4_64_TLDS1_VWA4_VWB1_WG32_4_1_WGM8",
        Launch::Module,
        (102, 128, 128),
        49_152,
        0,
        (20, 24),
        (8_000, 6_000),
        6,
        [44, 22, 14, 4, 28, 56],
        82,
    ),
    k(
        "__amd_rocclr_fillBufferAligned",
        Launch::Blit,
        (16, 8, 0),
        0,
        0,
        (12, 20),
        (300, 1_500),
        0,
        [2, 2, 0, 1, 0, 0],
        5,
    ),
    k("__amd_rocclr_copyBuffer", Launch::Blit, (16, 12, 0), 0, 0, (12, 20), (400, 1_500), 0, [3, 2, 1, 1, 0, 0], 5),
];

/// The collective kernels of the RCCL code object `rocprof-sim --ranks` loads, as RCCL's device
/// code names them (one kernel per operation, reduction, type, algorithm and protocol).
/// Launched only by a collective, never drawn into a mix.
pub const RCCL_CATALOG: &[KernelSpec] = &[k(
    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
    Launch::Runtime,
    (32, 64, 0),
    0,
    0,
    (12, 14),
    (0, 0),
    0,
    [12, 8, 4, 4, 0, 0],
    40,
)];

/// The blit kernel `hipMemsetAsync` dispatches.
pub const MEMSET_KERNEL: usize = CATALOG.len() - 2;

impl KernelSpec {
    /// Modeled run time for `items` work-items.
    pub fn duration_ns(&self, items: u64) -> u64 {
        self.fixed_ns + items * self.ns_per_mitem / 1_000_000
    }

    /// Modeled counter activity for `items` work-items in workgroups of `wg`, lasting `ns`.
    pub fn activity(&self, items: u64, wg: u32, ns: u64) -> SimActivity {
        let waves = items.div_ceil(64);
        let per_wave = |n: u16| u64::from(n) * waves;
        let mem = per_wave(self.insts[2]) * 64 * 4 / 64 + per_wave(self.insts[3]) * 64 * 4 / 64;
        let hits = mem * u64::from(self.l2_hit_pct) / 100;
        let cycles = ns * 21 / 10; // 2.1 GHz
        SimActivity {
            waves,
            wave_cycles: waves * (cycles / waves.max(1)).max(64),
            busy_cycles: cycles,
            valu_insts: per_wave(self.insts[0]),
            salu_insts: per_wave(self.insts[1]),
            smem_insts: per_wave(self.insts[1]) / 2,
            vmem_read_insts: per_wave(self.insts[2]),
            vmem_write_insts: per_wave(self.insts[3]),
            lds_insts: per_wave(self.insts[4]),
            lds_bank_conflicts: per_wave(self.insts[4]) * u64::from(wg) / 1024,
            mfma_insts: per_wave(self.insts[5]),
            wait_cycles: cycles / 3,
            l2_hits: hits,
            l2_misses: mem - hits,
            l2_atomics: waves / 16,
            dram_read_32b: (mem - hits) / 4,
            dram_read_64b: (mem - hits) - (mem - hits) / 4,
            dram_write_64b: per_wave(self.insts[3]) * 4,
            dram_write_32b: per_wave(self.insts[3]) / 2,
        }
    }
}
