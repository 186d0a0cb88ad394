//! NVIDIA theoretical occupancy: how many blocks, and so warps, of a kernel one SM holds, given
//! its registers per thread, shared memory per block and block size, and which resource limits
//! it. The rules are those of CUDA's occupancy calculator (`cuda_occupancy.h` of CUDA 13.0,
//! `cudaOccMaxActiveBlocksPerMultiprocessor`) for Volta and later, re-derived here:
//!
//! - **Warps:** the SM's warp slots over the block's warps (rounded up to whole warps).
//! - **Registers:** allocated per warp, `regs × 32` rounded up to 256, in each of the SM's four
//!   sub-partitions: `floor(16384 / per warp) × 4` warps, over the block's warps. A block
//!   whose warps, rounded up to a multiple of four, need more than the block's 64K registers,
//!   or a kernel of more than 256 registers, does not launch.
//! - **Shared memory:** per block, the kernel's (static and dynamic) plus what the driver
//!   reserves per block (1 KB from Ampere on), rounded up to 128 bytes, against the SM's
//!   largest carveout, which the default preference (no `cudaFuncAttributePreferredShared
//!   MemoryCarveout`) gives. A block over the opt-in per-block limit does not launch.
//! - **Blocks:** the SM's block slots (16 to 32 by architecture).
//!
//! Block barriers (named barriers beyond the first) and virtual resources also limit blocks in
//! the calculator, but a kernel record says nothing of them; neither limits the kernels of
//! CUDA C++ compiled as usual.

use serde::Serialize;

use super::occupancy::{Limiter, Occupancy, Unit};

/// One SM of an architecture, as the calculator describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sm {
    pub major: u32,
    pub minor: u32,
    pub max_warps: u32,
    pub max_blocks: u32,
    /// The largest shared-memory carveout, bytes.
    pub shared_per_sm: u32,
    /// A block's shared memory with the opt-in attribute, bytes.
    pub shared_per_block_optin: u32,
    /// Shared memory the driver reserves per block, bytes.
    pub reserved_per_block: u32,
}

const REGISTERS_PER_SM: u32 = 65_536;
const REGISTERS_PER_BLOCK: u32 = 65_536;
const REGISTER_GRANULE: u32 = 256;
const SUB_PARTITIONS: u32 = 4;
/// The calculator's limit (the compiler gives at most 255).
const MAX_REGISTERS_PER_THREAD: u32 = 256;
const SHARED_GRANULE: u32 = 128;
const MAX_THREADS_PER_BLOCK: u32 = 1024;
const WARP: u32 = 32;

impl Sm {
    /// The SM of a compute capability, written `sm_90`, `sm_90a`, `9.0` or `90`; `None` for
    /// one before Volta or not known.
    pub fn of(arch: &str) -> Option<Sm> {
        let (major, minor) = compute_capability(arch)?;
        let kb = |k: u32| k * 1024;
        let sm = |max_warps, max_blocks, shared_kb, optin_kb, reserved| Sm {
            major,
            minor,
            max_warps,
            max_blocks,
            shared_per_sm: kb(shared_kb),
            shared_per_block_optin: kb(optin_kb),
            reserved_per_block: reserved,
        };
        Some(match (major, minor) {
            (7, 0) | (7, 2) => sm(64, 32, 96, 96, 0),
            (7, 5) => sm(32, 16, 64, 64, 0),
            (8, 0) => sm(64, 32, 164, 163, 1024),
            (8, 7) => sm(48, 16, 164, 163, 1024),
            (8, 6) => sm(48, 16, 100, 99, 1024),
            (8, 9) => sm(48, 24, 100, 99, 1024),
            (9, 0) => sm(64, 32, 228, 227, 1024),
            (10, 0) | (10, 3) => sm(64, 32, 228, 227, 1024),
            (12, 0) | (12, 1) => sm(48, 24, 100, 99, 1024),
            _ => return None,
        })
    }

    /// The name `sm_90`.
    pub fn name(&self) -> String {
        format!("sm_{}{}", self.major, self.minor)
    }
}

/// `sm_90a` → (9, 0); `9.0` → (9, 0); `100` → (10, 0).
fn compute_capability(arch: &str) -> Option<(u32, u32)> {
    let arch = arch.trim();
    if let Some((major, minor)) = arch.split_once('.') {
        return Some((major.parse().ok()?, minor.parse().ok()?));
    }
    let digits = arch.strip_prefix("sm_").or_else(|| arch.strip_prefix("compute_")).unwrap_or(arch);
    let digits = digits.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// What one kernel launch uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Launch {
    pub threads_per_block: u32,
    pub registers_per_thread: u32,
    /// Static and dynamic shared memory per block, bytes.
    pub shared_bytes: u32,
}

/// What limits the blocks an SM holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SmLimiter {
    Warps,
    Registers,
    SharedMemory,
    Blocks,
    /// The block cannot launch at all (too many threads, registers or shared memory).
    Unlaunchable,
}

/// Blocks an SM holds by each resource, and in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SmOccupancy {
    pub blocks: u32,
    pub warps: u32,
    pub max_warps: u32,
    pub limiter: SmLimiter,
    pub by_warps: u32,
    pub by_registers: u32,
    pub by_shared_memory: u32,
    pub by_blocks: u32,
}

impl SmOccupancy {
    /// Warps held over the SM's warp slots, 0 to 1 (Nsight Compute's theoretical occupancy).
    pub fn share(&self) -> f64 {
        f64::from(self.warps) / f64::from(self.max_warps.max(1))
    }
}

/// The occupancy of `launch` on `sm`.
pub fn occupancy(sm: &Sm, launch: &Launch) -> SmOccupancy {
    let warps_per_block = launch.threads_per_block.max(1).div_ceil(WARP);
    let by_warps = if launch.threads_per_block > MAX_THREADS_PER_BLOCK { 0 } else { sm.max_warps / warps_per_block };
    let by_registers = by_registers(launch.registers_per_thread, warps_per_block);
    let by_shared_memory = by_shared_memory(sm, launch.shared_bytes);
    let by_blocks = sm.max_blocks;
    let blocks = by_warps.min(by_registers).min(by_shared_memory).min(by_blocks);
    // The calculator's order of precedence among equal limits.
    let limiter = if blocks == 0 {
        SmLimiter::Unlaunchable
    } else if blocks == by_warps {
        SmLimiter::Warps
    } else if blocks == by_registers {
        SmLimiter::Registers
    } else if blocks == by_shared_memory {
        SmLimiter::SharedMemory
    } else {
        SmLimiter::Blocks
    };
    SmOccupancy {
        blocks,
        warps: blocks * warps_per_block,
        max_warps: sm.max_warps,
        limiter,
        by_warps,
        by_registers,
        by_shared_memory,
        by_blocks,
    }
}

fn by_registers(registers: u32, warps_per_block: u32) -> u32 {
    if registers > MAX_REGISTERS_PER_THREAD {
        return 0;
    }
    let per_warp = (registers * WARP).div_ceil(REGISTER_GRANULE) * REGISTER_GRANULE;
    if per_warp == 0 {
        return u32::MAX;
    }
    // The launch check assumes every sub-partition gets the block's warps at once.
    let assumed = per_warp * warps_per_block.div_ceil(SUB_PARTITIONS) * SUB_PARTITIONS;
    if assumed > REGISTERS_PER_BLOCK || per_warp * warps_per_block > REGISTERS_PER_BLOCK {
        return 0;
    }
    let warps_per_sub_partition = REGISTERS_PER_SM / SUB_PARTITIONS / per_warp;
    warps_per_sub_partition * SUB_PARTITIONS / warps_per_block
}

fn by_shared_memory(sm: &Sm, shared: u32) -> u32 {
    let per_block = (shared + sm.reserved_per_block).div_ceil(SHARED_GRANULE) * SHARED_GRANULE;
    if per_block > sm.shared_per_block_optin + sm.reserved_per_block {
        return 0;
    }
    sm.shared_per_sm.checked_div(per_block).unwrap_or(u32::MAX)
}

/// The occupancy of `launch` on `sm` as the analysis reports every vendor's: warps per SM, the
/// limiting resource, and the next step up where registers or shared memory limit (the most of
/// either that holds one more block).
pub fn as_occupancy(sm: &Sm, launch: &Launch) -> Option<Occupancy> {
    let o = occupancy(sm, launch);
    let limiter = match o.limiter {
        SmLimiter::Unlaunchable => return None,
        _ if o.warps == o.max_warps => Limiter::None,
        SmLimiter::Registers => Limiter::Registers,
        SmLimiter::SharedMemory => Limiter::SharedMemory,
        SmLimiter::Warps | SmLimiter::Blocks => Limiter::Blocks,
    };
    let more = |l: Launch| {
        let n = occupancy(sm, &l);
        (n.warps > o.warps).then_some(n.warps)
    };
    let next = match limiter {
        Limiter::Registers => (1..launch.registers_per_thread)
            .rev()
            .find_map(|r| more(Launch { registers_per_thread: r, ..*launch }).map(|w| (w, r))),
        Limiter::SharedMemory => (0..launch.shared_bytes.div_ceil(SHARED_GRANULE))
            .rev()
            .map(|g| g * SHARED_GRANULE)
            .find_map(|b| more(Launch { shared_bytes: b, ..*launch }).map(|w| (w, b))),
        _ => None,
    };
    Some(Occupancy {
        waves_per_simd: o.warps,
        max_waves_per_simd: o.max_warps,
        unit: Unit::WarpsPerSm,
        waves: None,
        limiter,
        next,
    })
}

/// The grid in waves: its blocks over what `sms` SMs hold at once (`blocks_per_sm` each).
/// A fractional part is a partial last wave: the tail.
pub fn waves(grid_blocks: u64, blocks_per_sm: u32, sms: u32) -> Option<f64> {
    let at_once = u64::from(blocks_per_sm) * u64::from(sms);
    (at_once > 0).then(|| grid_blocks as f64 / at_once as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(arch: &str, threads: u32, registers: u32, shared: u32) -> SmOccupancy {
        let launch = Launch { threads_per_block: threads, registers_per_thread: registers, shared_bytes: shared };
        occupancy(&Sm::of(arch).unwrap(), &launch)
    }

    #[test]
    fn architectures_are_read_in_every_spelling() {
        for arch in ["sm_90", "sm_90a", "9.0", "90", "compute_90"] {
            assert_eq!(Sm::of(arch).map(|s| (s.major, s.minor)), Some((9, 0)), "{arch}");
        }
        assert_eq!(Sm::of("sm_100a").map(|s| s.max_warps), Some(64));
        assert_eq!(Sm::of("8.6").map(|s| (s.max_warps, s.max_blocks)), Some((48, 16)));
        assert!(Sm::of("sm_61").is_none() && Sm::of("gfx942").is_none() && Sm::of("").is_none());
    }

    /// Worked by hand with the calculator's rules.
    #[test]
    fn each_resource_limits_as_the_calculator_says() {
        // 256 threads, 32 registers, no shared memory on sm_90: 8 warps a block; registers
        // allow 16 warps a sub-partition, 64 in all: 8 blocks by warps and by registers; full.
        let o = on("sm_90", 256, 32, 0);
        assert_eq!((o.blocks, o.warps, o.limiter, o.by_registers), (8, 64, SmLimiter::Warps, 8));
        assert_eq!(o.share(), 1.0);
        // 128 registers: 4096 a warp, 4 warps a sub-partition, 16 in all: 2 blocks of 8 warps.
        let o = on("sm_90", 256, 128, 0);
        assert_eq!((o.blocks, o.warps, o.limiter), (2, 16, SmLimiter::Registers));
        // 168 registers round to 5376 a warp: 3 warps a sub-partition, 12 in all.
        let o = on("sm_90", 128, 168, 0);
        assert_eq!((o.by_registers, o.warps), (3, 12));
        // 48 KB of shared memory: 49152 + 1024 = 50176 a block, 233472 / 50176 = 4 blocks.
        let o = on("sm_90", 128, 32, 48 * 1024);
        assert_eq!((o.blocks, o.limiter), (4, SmLimiter::SharedMemory));
        // 32 threads and nothing else: the 32 block slots limit, at 32 of 64 warps.
        let o = on("sm_90", 32, 16, 0);
        assert_eq!((o.blocks, o.warps, o.limiter), (32, 32, SmLimiter::Blocks));
        // Ada: 24 blocks, 48 warps.
        let o = on("8.9", 32, 16, 0);
        assert_eq!((o.blocks, o.warps), (24, 24));
    }

    /// Nsight Compute 2025.3 on an H200 (`bench/gpu/run.sh pcsampling`, 2026-11-29): each
    /// `pcs_app` kernel and cuBLAS's SGEMM, as (threads, registers, static + dynamic shared
    /// bytes, grid blocks) → (`launch__occupancy_limit_warps`, `_registers`, theoretical
    /// warps per SM, `launch__waves_per_multiprocessor`). Its shared-memory limit is taken at
    /// the carveout the driver chose (32 KB for a kernel without shared memory), which never
    /// limited these; ours at the largest.
    #[test]
    fn agrees_with_nsight_compute_on_an_h200() {
        for (threads, registers, shared, grid, want) in [
            (256, 16, 0, 1056, (8, 16, 64, 1.0)),
            (256, 16, 4096, 528, (8, 16, 64, 0.5)),
            (32, 16, 0, 528, (64, 128, 32, 0.125)),
            (256, 254, 67_584, 512, (8, 1, 8, 512.0 / 132.0)),
        ] {
            let o = on("sm_90", threads, registers, shared);
            let waves = waves(grid, o.blocks, 132).unwrap();
            assert_eq!((o.by_warps, o.by_registers, o.warps, waves), want, "{threads} threads, {registers} registers");
        }
        // The SGEMM's 66 KB: 3 blocks by shared memory, as ncu says at the 228 KB it chose.
        assert_eq!(on("sm_90", 256, 254, 67_584).by_shared_memory, 3);
    }

    #[test]
    fn blocks_that_cannot_launch_hold_nothing() {
        assert_eq!(on("sm_90", 2048, 32, 0).limiter, SmLimiter::Unlaunchable);
        assert_eq!(on("sm_90", 1024, 255, 0).blocks, 0, "1024 threads x 255 registers > 64K");
        assert_eq!(on("sm_90", 128, 257, 0).blocks, 0, "over 256 registers");
        assert_eq!(on("sm_90", 128, 256, 0).blocks, 2);
        assert_eq!(on("sm_90", 128, 32, 228 * 1024).blocks, 0, "over the opt-in limit");
        assert_eq!(on("sm_90", 128, 32, 227 * 1024).blocks, 1);
    }

    #[test]
    fn the_next_step_names_the_most_that_holds_one_more_block() {
        let launch = |r, b| Launch { threads_per_block: 256, registers_per_thread: r, shared_bytes: b };
        let sm = Sm::of("sm_90").unwrap();
        // 128 registers: 2 blocks (16 warps); 3 blocks need 96 a thread (3072 a warp, 5 a
        // sub-partition, 20 in all: 2 blocks of 8 warps... so 80: 2560, 6, 24 warps, 3 blocks).
        let o = as_occupancy(&sm, &launch(128, 0)).unwrap();
        assert_eq!((o.waves_per_simd, o.limiter, o.unit), (16, Limiter::Registers, Unit::WarpsPerSm));
        assert_eq!(o.next, Some((24, 80)));
        // 64 KB a block: 65536 + 1024 → 3 blocks; 4 need at most 233472 / 4 − 1024 = 57344.
        let o = as_occupancy(&sm, &launch(32, 64 * 1024)).unwrap();
        assert_eq!((o.waves_per_simd, o.limiter, o.next), (24, Limiter::SharedMemory, Some((32, 57344))));
        let full = as_occupancy(&sm, &launch(32, 0)).unwrap();
        assert_eq!((full.waves_per_simd, full.limiter, full.next), (64, Limiter::None, None));
        assert!(as_occupancy(&sm, &Launch { threads_per_block: 4096, ..launch(32, 0) }).is_none());
    }

    #[test]
    fn waves_count_the_grid_over_what_the_gpu_holds_at_once() {
        assert_eq!(waves(264, 2, 132), Some(1.0));
        assert_eq!(waves(300, 2, 132), Some(300.0 / 264.0));
        assert_eq!(waves(300, 0, 132), None);
    }
}
