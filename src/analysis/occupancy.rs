//! Theoretical occupancy: how many waves of a kernel each SIMD can hold, given the registers
//! and LDS its code object uses, and what limits it.

use serde::Serialize;

/// The resource that limits occupancy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Limiter {
    Vgpr,
    Sgpr,
    Lds,
    /// The workgroup's size or the workgroups a CU takes.
    Workgroup,
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
            Limiter::None => "nothing",
        }
    }
}

/// A kernel's theoretical occupancy.
#[derive(Debug, Clone, Serialize)]
pub struct Occupancy {
    pub waves_per_simd: u32,
    pub max_waves_per_simd: u32,
    pub limiter: Limiter,
    /// The next step up, where one exists: its waves per SIMD, and the most of the limiting
    /// resource (registers, or LDS bytes per workgroup) that reaches it.
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

    pub fn next_limit(&self) -> u32 {
        self.next.map_or(0, |(_, limit)| limit)
    }
}
