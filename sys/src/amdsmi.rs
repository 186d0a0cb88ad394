//! AMD SMI (`libamd_smi.so`), AMD's management library: the subset the device sampler reads.
//! Checked declarations from `amd_smi/amdsmi.h`, resolved at run time.

use std::ffi::{CStr, c_char, c_void};

use crate::dylib::{self, LoadError, OpenLibrary, dynamic_api};

/// `amdsmi_status_t`.
pub type amdsmi_status_t = u32;
/// `AMDSMI_STATUS_SUCCESS`.
pub const AMDSMI_STATUS_SUCCESS: amdsmi_status_t = 0;
/// `AMDSMI_STATUS_NOT_SUPPORTED`.
pub const AMDSMI_STATUS_NOT_SUPPORTED: amdsmi_status_t = 2;

/// `amdsmi_init_flags_t`: `AMDSMI_INIT_AMD_GPUS`.
pub const AMDSMI_INIT_AMD_GPUS: u64 = 1 << 1;
/// `processor_type_t`: `AMDSMI_PROCESSOR_TYPE_AMD_GPU`.
pub const AMDSMI_PROCESSOR_TYPE_AMD_GPU: u32 = 1;
/// `amdsmi_clk_type_t`: `AMDSMI_CLK_TYPE_GFX` (= `SYS`).
pub const AMDSMI_CLK_TYPE_GFX: u32 = 0;
/// `amdsmi_clk_type_t`: `AMDSMI_CLK_TYPE_MEM`.
pub const AMDSMI_CLK_TYPE_MEM: u32 = 4;
/// `amdsmi_memory_type_t`: `AMDSMI_MEM_TYPE_VRAM`.
pub const AMDSMI_MEM_TYPE_VRAM: u32 = 0;
/// `amdsmi_temperature_type_t`: `AMDSMI_TEMPERATURE_TYPE_HOTSPOT` (the junction).
pub const AMDSMI_TEMPERATURE_TYPE_HOTSPOT: u32 = 1;
/// `amdsmi_temperature_metric_t`: `AMDSMI_TEMP_CURRENT`.
pub const AMDSMI_TEMP_CURRENT: u32 = 0;

/// `amdsmi_socket_handle`.
pub type amdsmi_socket_handle = *mut c_void;
/// `amdsmi_processor_handle`.
pub type amdsmi_processor_handle = *mut c_void;

/// `amdsmi_power_info_t`, whose layout changed between releases, as a buffer large enough for
/// every one (192 bytes in 7.x and 26.x): read it through [`PowerLayout`].
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy)]
pub struct amdsmi_power_info_t {
    pub bytes: [u8; 256],
}

impl Default for amdsmi_power_info_t {
    fn default() -> Self {
        amdsmi_power_info_t { bytes: [0; 256] }
    }
}

/// Where `current_socket_power` and `average_socket_power` (u32 watts) sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PowerLayout {
    /// Library 23.x and 24.x (ROCm 6.0 to 6.3): all `uint32_t`, current at 0, average at 4.
    Before25,
    /// Library 25.x and later (ROCm 6.4, 7.x): a `uint64_t socket_power` first, current at 8,
    /// average at 12.
    Since25,
}

impl PowerLayout {
    /// The layout of library version `major` (the first number of its build string).
    pub fn of_major(major: u32) -> PowerLayout {
        if major >= 25 { PowerLayout::Since25 } else { PowerLayout::Before25 }
    }

    /// `(current_socket_power, average_socket_power)`, in watts as the library reports them.
    pub fn read(self, info: &amdsmi_power_info_t) -> (u32, u32) {
        let at = |offset: usize| u32::from_ne_bytes(info.bytes[offset..offset + 4].try_into().unwrap_or_default());
        match self {
            PowerLayout::Before25 => (at(0), at(4)),
            PowerLayout::Since25 => (at(8), at(12)),
        }
    }
}

/// `amdsmi_version_t`: `{year, major, minor, release, build}` up to 25.x, `{major, minor,
/// release, build}` since; `build` is at offset 16 in both and is the version as text
/// ("24.7.0.0", "26.5.0").
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct amdsmi_version_t {
    pub numbers: [u32; 4],
    pub build: *const c_char,
}

/// `amdsmi_clk_info_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct amdsmi_clk_info_t {
    /// MHz.
    pub clk: u32,
    pub min_clk: u32,
    pub max_clk: u32,
    pub clk_locked: u8,
    pub clk_deep_sleep: u8,
    pub reserved: [u32; 4],
}

/// `amdsmi_engine_usage_t`: percent.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct amdsmi_engine_usage_t {
    pub gfx_activity: u32,
    pub umc_activity: u32,
    pub mm_activity: u32,
    pub reserved: [u32; 13],
}

/// Throttle-status bits, by name: `amdsmi.h` defines none (its `gpu_metrics` throttle fields are
/// firmware-specific), so AMD rows leave `throttle_reasons` null.
pub const THROTTLE_REASONS: [(u64, &str); 0] = [];

dynamic_api! {
    /// The AMD SMI functions the sampler reads, one pointer each.
    pub struct AmdSmiApi;
    check = any(), unused;

    fn amdsmi_init(flags: u64) -> amdsmi_status_t;
    fn amdsmi_shut_down() -> amdsmi_status_t;
    fn amdsmi_status_code_to_string(status: amdsmi_status_t, text: *mut *const c_char) -> amdsmi_status_t;
    fn amdsmi_get_lib_version(version: *mut amdsmi_version_t) -> amdsmi_status_t;
    fn amdsmi_get_socket_handles(count: *mut u32, sockets: *mut amdsmi_socket_handle) -> amdsmi_status_t;
    fn amdsmi_get_processor_handles(
        socket: amdsmi_socket_handle,
        count: *mut u32,
        processors: *mut amdsmi_processor_handle,
    ) -> amdsmi_status_t;
    fn amdsmi_get_processor_type(processor: amdsmi_processor_handle, kind: *mut u32) -> amdsmi_status_t;
    /// `amdsmi_bdf_t` is a `uint64_t` union: function (3 bits), device (5), bus (8), domain (48).
    fn amdsmi_get_gpu_device_bdf(processor: amdsmi_processor_handle, bdf: *mut u64) -> amdsmi_status_t;
    fn amdsmi_get_power_info(processor: amdsmi_processor_handle, info: *mut amdsmi_power_info_t) -> amdsmi_status_t;
    fn amdsmi_get_energy_count(
        processor: amdsmi_processor_handle,
        energy: *mut u64,
        resolution: *mut f32,
        timestamp: *mut u64,
    ) -> amdsmi_status_t;
    fn amdsmi_get_clock_info(
        processor: amdsmi_processor_handle,
        kind: u32,
        info: *mut amdsmi_clk_info_t,
    ) -> amdsmi_status_t;
    fn amdsmi_get_gpu_memory_usage(processor: amdsmi_processor_handle, kind: u32, used: *mut u64) -> amdsmi_status_t;
    fn amdsmi_get_gpu_memory_total(processor: amdsmi_processor_handle, kind: u32, total: *mut u64) -> amdsmi_status_t;
    fn amdsmi_get_gpu_activity(processor: amdsmi_processor_handle, usage: *mut amdsmi_engine_usage_t) -> amdsmi_status_t;
    fn amdsmi_get_temp_metric(
        processor: amdsmi_processor_handle,
        sensor: u32,
        metric: u32,
        value: *mut i64,
    ) -> amdsmi_status_t;
}

/// The places tried, in order, where no path is given: ROCm puts the library in its `lib`.
pub fn candidates() -> Vec<String> {
    let mut names = vec!["libamd_smi.so".to_owned()];
    if let Some(root) = std::env::var_os("ROCM_PATH").filter(|v| !v.is_empty()) {
        names.push(format!("{}/lib/libamd_smi.so", root.to_string_lossy()));
    }
    names.push("/opt/rocm/lib/libamd_smi.so".to_owned());
    names
}

/// An open AMD SMI and its functions.
#[allow(missing_debug_implementations)]
pub struct AmdSmi {
    /// The functions.
    pub api: AmdSmiApi,
    library: OpenLibrary,
}

impl AmdSmi {
    /// Opens AMD SMI: `path` where given, else [`candidates`].
    pub fn load(path: Option<&str>) -> Result<AmdSmi, LoadError> {
        let names = path.map_or_else(candidates, |p| vec![p.to_owned()]);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let library = dylib::open_first("AMD SMI (libamd_smi.so, from ROCm)", &names)?;
        // SAFETY: the library is AMD SMI by name, and it stays open as long as `AmdSmi`.
        let api = unsafe { AmdSmiApi::resolve(&library.library, &library.name)? };
        Ok(AmdSmi { api, library })
    }

    /// The name the library was opened by.
    pub fn library_name(&self) -> &str {
        &self.library.name
    }

    /// The library's major version (the first number of its build string), after `amdsmi_init`;
    /// `None` where it does not say.
    pub fn major_version(&self) -> Option<u32> {
        let mut version = amdsmi_version_t { numbers: [0; 4], build: std::ptr::null() };
        // SAFETY: a valid out-pointer of the size both layouts have.
        if unsafe { (self.api.amdsmi_get_lib_version)(&mut version) } != AMDSMI_STATUS_SUCCESS
            || version.build.is_null()
        {
            return None;
        }
        // SAFETY: non-null and NUL-terminated, owned by the library.
        let build = unsafe { CStr::from_ptr(version.build) }.to_string_lossy();
        build.split('.').next()?.trim().parse().ok()
    }

    /// AMD SMI's text for a status.
    pub fn error_string(&self, status: amdsmi_status_t) -> String {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: a valid out-pointer; the library returns a static string.
        let ok = unsafe { (self.api.amdsmi_status_code_to_string)(status, &mut text) } == AMDSMI_STATUS_SUCCESS;
        if !ok || text.is_null() {
            return format!("AMD SMI status {status}");
        }
        // SAFETY: non-null, NUL-terminated and static.
        unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_layouts() {
        assert_eq!(std::mem::size_of::<amdsmi_clk_info_t>(), 32);
        assert_eq!(std::mem::size_of::<amdsmi_engine_usage_t>(), 64);
        assert_eq!(std::mem::size_of::<amdsmi_version_t>(), 24);
        assert_eq!(std::mem::offset_of!(amdsmi_version_t, build), 16);
        let mut info = amdsmi_power_info_t::default();
        info.bytes[0..4].copy_from_slice(&300u32.to_ne_bytes());
        info.bytes[8..12].copy_from_slice(&550u32.to_ne_bytes());
        info.bytes[12..16].copy_from_slice(&540u32.to_ne_bytes());
        assert_eq!(PowerLayout::of_major(26).read(&info), (550, 540));
        assert_eq!(PowerLayout::of_major(24).read(&info).0, 300);
    }
}
