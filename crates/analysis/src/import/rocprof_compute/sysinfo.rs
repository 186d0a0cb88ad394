//! `sysinfo.csv`: rocprof-compute's one-row description of the machine a workload ran on,
//! which becomes the agent row of every GPU the workload's dispatches name, so `analyze` finds
//! the part (`gfx942`, `MI300X_A1`, 304 CUs) without `--gpu`.
//!
//! Its columns changed over versions (`gpu_series` and `gpu_chip_id` arrived with 3.x, `hbm_bw`
//! left), so each is read by name and an absent or empty one is unknown (0).

use std::path::Path;

use super::super::csv_table::Table;
use crate::error::Result;
use crate::rocpd::agent::AgentRow;

/// What `sysinfo.csv` says about the GPU.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SysInfo {
    /// `gfx942`.
    pub arch: String,
    /// `MI300X_A1`.
    pub model: String,
    /// `MI300` (3.x only).
    pub series: String,
    pub compute_units: u32,
    pub simd_per_cu: u32,
    pub wave_size: u32,
    pub max_waves_per_cu: u32,
    /// The engine clock's maximum, MHz (0 where the workload left it empty).
    pub max_sclk_mhz: u32,
    pub xcds: u32,
    /// The PCI device id (3.x only).
    pub chip_id: u32,
}

/// Whether a file's first line is `sysinfo.csv`'s header.
pub fn looks_like(first_line: &str) -> bool {
    let columns: Vec<&str> = first_line.split(',').map(str::trim).collect();
    columns.contains(&"workload_name") && columns.contains(&"gpu_arch")
}

/// Reads the first row of `path`.
pub fn read(path: &Path) -> Result<SysInfo> {
    let mut t = Table::open(path, None)?;
    if !t.next()? {
        return Err(t.error("(row)", "no row after the header"));
    }
    let text = |c: &str| if t.has(c) { t.text(c).map(|v| v.trim().to_owned()) } else { Ok(String::new()) };
    let number = |c: &str| -> Result<u32> {
        let v = text(c)?;
        if v.is_empty() {
            return Ok(0);
        }
        // `2100`, or `2100.0` where a later version wrote floats.
        v.parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && *n >= 0.0 && *n <= f64::from(u32::MAX) && n.fract() == 0.0)
            .map(|n| n as u32)
            .ok_or_else(|| t.error(c, format!("expected a whole number, found {v:?}")))
    };
    let arch = text("gpu_arch")?;
    if arch.is_empty() {
        return Err(t.error("gpu_arch", "empty: the GPU's architecture is what the workload is analysed by"));
    }
    Ok(SysInfo {
        arch,
        model: text("gpu_model")?,
        series: text("gpu_series")?,
        compute_units: number("cu_per_gpu")?,
        simd_per_cu: number("simd_per_cu")?,
        wave_size: number("wave_size")?,
        max_waves_per_cu: number("max_waves_per_cu")?,
        max_sclk_mhz: number("max_sclk")?,
        xcds: number("num_xcd")?,
        chip_id: number("gpu_chip_id")?,
    })
}

impl SysInfo {
    /// The agent row of GPU `gpu_id` in process `pid`.
    pub fn agent(&self, gpu_id: u64, pid: u32) -> AgentRow {
        AgentRow {
            agent_id: gpu_id,
            node_id: u32::try_from(gpu_id).unwrap_or(u32::MAX),
            logical_index: -1,
            agent_type: "GPU".into(),
            name: self.arch.clone(),
            product_name: self.model.clone(),
            vendor_name: "AMD".into(),
            model_name: if self.series.is_empty() { self.model.clone() } else { self.series.clone() },
            gfx_target_version: gfx_target_version(&self.arch).unwrap_or(0),
            cu_count: self.compute_units,
            simd_count: self.compute_units.saturating_mul(self.simd_per_cu),
            simd_per_cu: self.simd_per_cu,
            wave_front_size: self.wave_size,
            max_waves_per_cu: self.max_waves_per_cu,
            num_xcc: self.xcds,
            lds_size_kb: 0,
            max_engine_clock_mhz: self.max_sclk_mhz,
            local_mem_bytes: 0,
            device_id: self.chip_id,
            pid,
        }
    }
}

/// HSA's `gfx_target_version` of an LLVM target: `gfx942` is 90402, `gfx90a` 90010, `gfx1151`
/// 110501 (major, minor and stepping, the stepping a hex digit).
pub fn gfx_target_version(arch: &str) -> Option<u32> {
    let digits = arch.strip_prefix("gfx")?.split(':').next()?;
    if !(3..=4).contains(&digits.len()) || !digits.is_ascii() {
        return None;
    }
    let (major, rest) = digits.split_at(digits.len() - 2);
    let major: u32 = major.parse().ok()?;
    let minor = rest[..1].parse::<u32>().ok()?;
    let stepping = u32::from_str_radix(&rest[1..], 16).ok()?;
    Some(major * 10_000 + minor * 100 + stepping)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_become_hsa_versions() {
        assert_eq!(gfx_target_version("gfx942"), Some(90402));
        assert_eq!(gfx_target_version("gfx90a"), Some(90010));
        assert_eq!(gfx_target_version("gfx908"), Some(90008));
        assert_eq!(gfx_target_version("gfx950"), Some(90500));
        assert_eq!(gfx_target_version("gfx1151"), Some(110501));
        assert_eq!(gfx_target_version("gfx942:sramecc+:xnack-"), Some(90402));
        assert_eq!(gfx_target_version("MI300"), None);
        assert_eq!(gfx_target_version("gfx"), None);
    }

    #[test]
    fn the_header_is_recognised() {
        assert!(looks_like("workload_name,command,ip_blocks,timestamp,version,hostname,gpu_model,gpu_arch"));
        assert!(!looks_like("Dispatch_ID,Kernel_Name,GPU_ID"));
    }
}
