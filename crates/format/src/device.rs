//! What `device_sample` holds of one GPU at one time, as one type for the recorder that fills
//! the table and the readers that take it back ([`crate::DeviceSample`] is its column list).

/// A GPU's readings: each `None` where the GPU or its library does not report it. Units as the
/// table's columns have them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Readings {
    pub power_w: Option<f64>,
    pub power_average_w: Option<f64>,
    pub energy_j: Option<f64>,
    pub sm_clock_mhz: Option<u32>,
    pub memory_clock_mhz: Option<u32>,
    pub memory_used_bytes: Option<u64>,
    pub memory_total_bytes: Option<u64>,
    pub gpu_busy_pct: Option<u32>,
    pub memory_busy_pct: Option<u32>,
    pub temperature_c: Option<i32>,
    pub throttle_reasons: Option<u64>,
}
