//! Theoretical occupancy: how many waves of a kernel each SIMD can hold, given the registers
//! and LDS its code object uses, and what limits it.
//!
//! The math is the AMDGPU LLVM backend's (`GCNSubtarget::computeOccupancy`, and upstream's
//! `llvm-calc-occupancy`), checked against `llc`'s own occupancy on 2000 random kernels and the
//! backend's tests (`occupancy-levels.ll`, `llvm-calc-occupancy/basic.test`), whose vectors are
//! the unit tests below. It follows upstream main where it models the hardware more closely
//! than LLVM 22: LDS is allocated in 512-byte granules (1280 on gfx950), and the trap handler's
//! 16 SGPRs count against each wave.
//!
//! - Work-groups per CU: all of a work-group's waves run on one CU (a WGP on RDNA in its
//!   default mode), at most `max waves × SIMDs / waves per group` groups, and 16 groups (32 on
//!   an RDNA WGP) when a group has more than one wave (its barriers).
//! - LDS: the pool divided by the group's rounded LDS bounds the groups.
//! - VGPRs: the SIMD's file over the wave's registers rounded to the allocation granule; on
//!   gfx90a and later arch and accumulation registers share the file (`align4(arch) + acc`),
//!   on gfx908 they have a file each.
//! - SGPRs: 800 per SIMD in granules of 16 plus the trap handler's 16, on gfx9 only.

use serde::Serialize;

/// The resource that limits occupancy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Limiter {
    Vgpr,
    Sgpr,
    Lds,
    /// The workgroup's size or the workgroups a CU takes.
    Workgroup,
    /// NVIDIA: registers per thread.
    Registers,
    /// NVIDIA: shared memory per block.
    SharedMemory,
    /// NVIDIA: the block's warps, or the blocks an SM takes.
    Blocks,
    /// Nothing: the hardware's maximum.
    None,
}

impl Limiter {
    pub fn name(self) -> &'static str {
        match self {
            Limiter::Vgpr => "VGPRs",
            Limiter::Sgpr => "SGPRs",
            Limiter::Lds => "LDS",
            Limiter::Workgroup => "the workgroup size",
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared memory",
            Limiter::Blocks => "the block size",
            Limiter::None => "nothing",
        }
    }
}

/// What an occupancy counts: AMD's waves per SIMD, or NVIDIA's warps per SM (Nsight
/// Compute's "theoretical active warps per SM").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    #[default]
    WavesPerSimd,
    WarpsPerSm,
}

impl Unit {
    pub fn label(self) -> &'static str {
        match self {
            Unit::WavesPerSimd => "waves per SIMD",
            Unit::WarpsPerSm => "warps per SM",
        }
    }
}

/// A kernel's theoretical occupancy.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Occupancy {
    /// Waves per SIMD, or on NVIDIA warps per SM ([`Occupancy::unit`]).
    pub waves_per_simd: u32,
    pub max_waves_per_simd: u32,
    pub unit: Unit,
    /// The first dispatch's grid in waves: its work-groups over what the GPU's CUs (SMs) hold
    /// at once; a fractional part is a partial last wave, the tail. `None` where the trace
    /// does not say how many CUs the device has.
    pub waves: Option<f64>,
    pub limiter: Limiter,
    /// The next step up, where one exists: its waves per SIMD (warps per SM), and the most of
    /// the limiting resource (registers, or LDS or shared-memory bytes per workgroup) that
    /// reaches it.
    pub next: Option<(u32, u32)>,
}

impl Occupancy {
    /// Waves held over the most a SIMD can hold.
    pub fn share(&self) -> f64 {
        f64::from(self.waves_per_simd) / f64::from(self.max_waves_per_simd.max(1))
    }

    pub fn next_waves(&self) -> u32 {
        self.next.map_or(self.waves_per_simd, |(w, _)| w)
    }

    /// Work-groups one CU (SM) holds at once, for a work-group of `workgroup` work-items on
    /// a target running waves of `wave_size` over `simds` SIMDs (NVIDIA: 32 and 1, as warps
    /// count per SM).
    pub fn groups_per_cu(&self, workgroup: u32, wave_size: u32, simds: u32) -> u32 {
        let waves_per_group = workgroup.max(1).div_ceil(wave_size.max(1));
        self.waves_per_simd * simds / waves_per_group
    }

    pub fn next_limit(&self) -> u32 {
        self.next.map_or(0, |(_, limit)| limit)
    }
}

/// What one target's occupancy depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub wave_size: u32,
    pub max_waves_per_simd: u32,
    /// SIMDs a work-group's waves may use: a CU, or an RDNA WGP.
    pub simds: u32,
    /// LDS the work-groups on one CU (WGP) share, bytes.
    pub lds_pool: u32,
    pub lds_granule: u32,
    /// Work-groups per CU (WGP) when a group has more than one wave.
    pub barriers: u32,
    pub vgprs: u32,
    pub vgpr_granule: u32,
    /// Arch and accumulation VGPRs in one file (gfx90a and later).
    pub unified_agprs: bool,
    /// SGPRs limit occupancy (before RDNA).
    pub sgprs_limit: bool,
}

impl Target {
    /// The target of an LLVM processor name, running waves of `wave_size` (RDNA runs 32 or 64;
    /// 0 takes the target's default), in RDNA's default WGP mode.
    pub fn of(gfx: &str, wave_size: u32) -> Option<Target> {
        let cdna = |max_waves, lds_pool, lds_granule, vgprs, vgpr_granule, unified_agprs| Target {
            wave_size: 64,
            max_waves_per_simd: max_waves,
            simds: 4,
            lds_pool,
            lds_granule,
            barriers: 16,
            vgprs,
            vgpr_granule,
            unified_agprs,
            sgprs_limit: true,
        };
        match gfx {
            "gfx908" => Some(cdna(10, 65536, 512, 256, 4, false)),
            "gfx90a" | "gfx940" | "gfx941" | "gfx942" => Some(cdna(8, 65536, 512, 512, 8, true)),
            "gfx950" => Some(cdna(8, 163_840, 1280, 512, 8, true)),
            _ => {
                // RDNA 3 and 3.5: the big parts have a 1.5× register file.
                let wide = matches!(gfx, "gfx1100" | "gfx1101" | "gfx1151");
                let known = wide || matches!(gfx, "gfx1102" | "gfx1103" | "gfx1150" | "gfx1152" | "gfx1153");
                if !known {
                    return None;
                }
                let wave_size = if wave_size == 64 { 64 } else { 32 };
                let (vgprs, vgpr_granule) = match (wide, wave_size) {
                    (true, 32) => (1536, 24),
                    (true, _) => (768, 12),
                    (false, 32) => (1024, 16),
                    (false, _) => (512, 8),
                };
                Some(Target {
                    wave_size,
                    max_waves_per_simd: 16,
                    simds: 4,
                    lds_pool: 131_072,
                    lds_granule: 512,
                    barriers: 32,
                    vgprs,
                    vgpr_granule,
                    unified_agprs: false,
                    sgprs_limit: false,
                })
            }
        }
    }
}

/// What one kernel's code object and launch use.
#[derive(Debug, Clone, Copy, Default)]
pub struct Resources {
    /// Work-items per work-group.
    pub workgroup: u32,
    pub arch_vgprs: u32,
    pub accum_vgprs: u32,
    /// SGPRs, the compiler's reserved ones (VCC, flat scratch) included, as the code object
    /// reports them.
    pub sgprs: u32,
    /// LDS per work-group, bytes (static and dynamic).
    pub lds_bytes: u32,
}

fn align_up(x: u32, to: u32) -> u32 {
    x.div_ceil(to.max(1)) * to.max(1)
}

fn align_down(x: u32, to: u32) -> u32 {
    x / to.max(1) * to.max(1)
}

/// SGPRs the trap handler reserves on every wave.
const TRAP_SGPRS: u32 = 16;
const SGPR_FILE: u32 = 800;
const SGPR_GRANULE: u32 = 16;

/// The occupancy of `r` on `t`.
pub fn occupancy(t: &Target, r: &Resources) -> Occupancy {
    let max = t.max_waves_per_simd;
    let waves_per_group = r.workgroup.max(1).div_ceil(t.wave_size);
    let slot_groups =
        if waves_per_group == 1 { max * t.simds } else { (max * t.simds / waves_per_group).min(t.barriers) };
    let lds = if r.lds_bytes > 0 { align_up(r.lds_bytes, t.lds_granule) } else { 0 };
    let lds_groups = t.lds_pool / lds.max(1);
    let groups = slot_groups.min(lds_groups);
    let by_groups = |groups: u32| (waves_per_group * groups).div_ceil(t.simds).clamp(1, max);
    let group_waves = if groups == 0 { 1 } else { by_groups(groups) };

    let vgprs = if t.unified_agprs && r.accum_vgprs > 0 {
        align_up(r.arch_vgprs, 4) + r.accum_vgprs
    } else {
        r.arch_vgprs.max(r.accum_vgprs)
    };
    let vgpr_waves =
        if vgprs < t.vgpr_granule { max } else { (t.vgprs / align_up(vgprs, t.vgpr_granule)).clamp(1, max) };
    let sgpr_waves = if t.sgprs_limit && r.sgprs > 0 {
        (SGPR_FILE / (align_up(r.sgprs, SGPR_GRANULE) + TRAP_SGPRS)).clamp(1, max)
    } else {
        max
    };

    let waves = group_waves.min(vgpr_waves).min(sgpr_waves);
    let lds_bound = lds_groups < slot_groups;
    let limiter = if waves == max {
        Limiter::None
    } else if vgpr_waves == waves {
        Limiter::Vgpr
    } else if sgpr_waves == waves {
        Limiter::Sgpr
    } else if lds_bound {
        Limiter::Lds
    } else {
        Limiter::Workgroup
    };
    let want = waves + 1;
    let next = match limiter {
        Limiter::Vgpr => Some((want, align_down(t.vgprs / want, t.vgpr_granule))),
        Limiter::Sgpr => (SGPR_FILE / want).checked_sub(TRAP_SGPRS).map(|s| (want, align_down(s, SGPR_GRANULE))),
        Limiter::Lds => {
            let groups = (want * t.simds).div_ceil(waves_per_group);
            (groups <= slot_groups).then(|| (want, align_down(t.lds_pool / groups, t.lds_granule)))
        }
        Limiter::Workgroup | Limiter::None | Limiter::Registers | Limiter::SharedMemory | Limiter::Blocks => None,
    };
    Occupancy { waves_per_simd: waves, max_waves_per_simd: max, unit: Unit::WavesPerSimd, waves: None, limiter, next }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waves(gfx: &str, wave: u32, workgroup: u32, vgprs: (u32, u32), sgprs: u32, lds_bytes: u32) -> Occupancy {
        let t = Target::of(gfx, wave).unwrap();
        let r = Resources { workgroup, arch_vgprs: vgprs.0, accum_vgprs: vgprs.1, sgprs, lds_bytes };
        occupancy(&t, &r)
    }

    /// Vectors from LLVM's tests and `llc`'s own occupancy (the "main" column where LLVM 22
    /// and main differ).
    #[test]
    fn cdna_matches_the_compiler() {
        for (gfx, wg, vgprs, sgprs, lds, want) in [
            ("gfx908", 256, (32, 0), 0, 0, 8),
            ("gfx908", 256, (64, 128), 0, 0, 2),
            ("gfx908", 256, (25, 0), 0, 0, 9),
            ("gfx908", 128, (0, 0), 0, 0, 8),
            ("gfx908", 768, (0, 0), 0, 0, 9),
            ("gfx908", 1024, (0, 0), 0, 0, 8),
            ("gfx908", 256, (0, 0), 0, 16384, 4),
            ("gfx908", 64, (0, 0), 0, 8252, 2),
            ("gfx908", 64, (0, 0), 80, 0, 8),
            ("gfx908", 64, (0, 0), 100, 0, 6),
            ("gfx90a", 512, (50, 0), 30, 0, 8),
            ("gfx90a", 64, (61, 4), 0, 0, 7),
            ("gfx90a", 64, (128, 128), 0, 0, 2),
            ("gfx90a", 256, (0, 0), 0, 40960, 1),
            ("gfx90a", 256, (0, 0), 0, 21845, 2),
            ("gfx90a", 64, (0, 0), 102, 0, 6),
            ("gfx90a", 1024, (80, 0), 0, 0, 6),
            ("gfx942", 64, (5, 128), 0, 0, 3),
            ("gfx942", 1024, (65, 0), 0, 0, 7),
            ("gfx942", 256, (0, 0), 0, 32768, 2),
            ("gfx942", 256, (0, 0), 0, 65536, 1),
            ("gfx942", 64, (0, 0), 96, 0, 7),
            ("gfx950", 256, (0, 0), 0, 65536, 2),
            ("gfx950", 256, (0, 0), 0, 32768, 4),
            ("gfx950", 64, (250, 0), 0, 0, 2),
            ("gfx950", 64, (24, 40), 0, 0, 8),
        ] {
            let o = waves(gfx, 0, wg, vgprs, sgprs, lds);
            assert_eq!(o.waves_per_simd, want, "{gfx} wg {wg} vgprs {vgprs:?} sgprs {sgprs} lds {lds}: {o:?}");
        }
    }

    #[test]
    fn rdna_matches_the_compiler() {
        for (gfx, wave, wg, vgprs, sgprs, lds, want) in [
            ("gfx1100", 32, 64, 96, 0, 0, 16),
            ("gfx1100", 32, 64, 97, 0, 0, 12),
            ("gfx1100", 32, 64, 128, 0, 0, 10),
            ("gfx1100", 32, 256, 0, 0, 32768, 8),
            ("gfx1100", 32, 256, 0, 0, 40000, 6),
            ("gfx1100", 32, 256, 0, 0, 43690, 4),
            ("gfx1100", 32, 1024, 0, 0, 0, 16),
            ("gfx1100", 32, 64, 0, 106, 0, 16),
            ("gfx1100", 64, 64, 49, 0, 0, 12),
            ("gfx1100", 64, 64, 64, 0, 0, 10),
            ("gfx1100", 64, 256, 0, 0, 32768, 4),
            ("gfx1151", 32, 128, 100, 0, 0, 12),
            ("gfx1151", 64, 128, 100, 0, 0, 7),
            ("gfx1151", 32, 64, 256, 0, 0, 5),
        ] {
            let o = waves(gfx, wave, wg, (vgprs, 0), sgprs, lds);
            assert_eq!(o.waves_per_simd, want, "{gfx} w{wave} wg {wg} vgprs {vgprs} lds {lds}: {o:?}");
        }
    }

    /// The next step, as `llvm-calc-occupancy` words it.
    #[test]
    fn the_next_step_names_the_limit() {
        // basic.test NEXT: gfx950, 250 VGPRs → 2 waves; "reach 3: VGPRs <= 168".
        let o = waves("gfx950", 0, 64, (250, 0), 0, 0);
        assert_eq!((o.limiter, o.next), (Limiter::Vgpr, Some((3, 168))));
        // basic.test NEXTLDS: gfx90a, 256 work-items, 40960 bytes → 1 wave; "reach 2: LDS <= 32768".
        let o = waves("gfx90a", 0, 256, (0, 0), 0, 40960);
        assert_eq!((o.limiter, o.next), (Limiter::Lds, Some((2, 32768))));
        // gfx90a, 102 SGPRs → 6 waves; 7 need at most 800/7 − 16 = 98, in granules of 16: 96.
        let o = waves("gfx90a", 0, 64, (0, 0), 102, 0);
        assert_eq!((o.limiter, o.next), (Limiter::Sgpr, Some((7, 96))));
        let o = waves("gfx90a", 0, 64, (40, 0), 20, 0);
        assert_eq!((o.waves_per_simd, o.limiter, o.next), (8, Limiter::None, None));
        assert_eq!(waves("gfx90a", 0, 1024, (0, 0), 0, 0).limiter, Limiter::None);
    }

    #[test]
    fn unknown_targets_have_no_model() {
        assert!(Target::of("gfx803", 0).is_none());
        assert!(Target::of("9.0", 0).is_none());
    }
}
