//! NVML, NVIDIA's management library (`libnvidia-ml.so.1`, part of the driver): the subset the
//! device sampler reads. Checked declarations from `nvml.h` (the driver's headers; the API has
//! kept these signatures since NVML 10, and the `_v2` names since CUDA 9), resolved at run time.

use std::ffi::{CStr, c_char, c_int, c_uint, c_ulonglong, c_void};

use crate::dylib::{self, LoadError, OpenLibrary, dynamic_api};

/// The SONAMEs tried: the driver installs the versioned one; the unversioned one is a
/// development link.
pub const SONAMES: [&str; 2] = ["libnvidia-ml.so.1", "libnvidia-ml.so"];

/// `nvmlReturn_t`.
pub type nvmlReturn_t = c_uint;
/// `NVML_SUCCESS`.
pub const NVML_SUCCESS: nvmlReturn_t = 0;
/// `NVML_ERROR_NOT_SUPPORTED`: the device does not report this.
pub const NVML_ERROR_NOT_SUPPORTED: nvmlReturn_t = 3;
/// `NVML_ERROR_FUNCTION_NOT_FOUND`: the driver lacks the function.
pub const NVML_ERROR_FUNCTION_NOT_FOUND: nvmlReturn_t = 13;

/// `nvmlDevice_t`: an opaque handle.
pub type nvmlDevice_t = *mut c_void;

/// `nvmlClockType_t`.
pub type nvmlClockType_t = c_uint;
/// `NVML_CLOCK_SM`.
pub const NVML_CLOCK_SM: nvmlClockType_t = 1;
/// `NVML_CLOCK_MEM`.
pub const NVML_CLOCK_MEM: nvmlClockType_t = 2;

/// `nvmlTemperatureSensors_t`: `NVML_TEMPERATURE_GPU`, the die.
pub const NVML_TEMPERATURE_GPU: c_uint = 0;

/// `NVML_DEVICE_UUID_V2_BUFFER_SIZE`.
pub const NVML_DEVICE_UUID_V2_BUFFER_SIZE: usize = 96;

/// `nvmlMemory_t`, in bytes. `used` counts what the driver reserves as well.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct nvmlMemory_t {
    pub total: c_ulonglong,
    pub free: c_ulonglong,
    pub used: c_ulonglong,
}

/// `nvmlUtilization_t`: percent of the last sample period (1/6 s to 1 s, by product) in which
/// a kernel ran, and in which device memory was read or written.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct nvmlUtilization_t {
    pub gpu: c_uint,
    pub memory: c_uint,
}

/// `nvmlFieldValue_t`: one field of `nvmlDeviceGetFieldValues`, 40 bytes.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct nvmlFieldValue_t {
    /// `NVML_FI_*`.
    pub fieldId: c_uint,
    pub scopeId: c_uint,
    /// Microseconds since the epoch when the value was read.
    pub timestamp: i64,
    pub latencyUsec: i64,
    /// `nvmlValueType_t`: 1 is `unsigned int`, the power fields' type.
    pub valueType: c_uint,
    /// This field's own result.
    pub nvmlReturn: nvmlReturn_t,
    /// `nvmlValue_t`, a union of 8 bytes: read through `valueType`.
    pub value: u64,
}

/// `NVML_FI_DEV_POWER_AVERAGE`: milliwatts, averaged over a second (what
/// `nvmlDeviceGetPowerUsage` returns on Ampere and later).
pub const NVML_FI_DEV_POWER_AVERAGE: c_uint = 185;
/// `NVML_FI_DEV_POWER_INSTANT`: milliwatts, now (driver 535 and later).
pub const NVML_FI_DEV_POWER_INSTANT: c_uint = 186;
/// `NVML_VALUE_TYPE_UNSIGNED_INT`.
pub const NVML_VALUE_TYPE_UNSIGNED_INT: c_uint = 1;

/// `nvmlDeviceGetFieldValues`: fills each `values[i]` whose `fieldId` is set.
pub type GetFieldValues = unsafe extern "C" fn(nvmlDevice_t, c_int, *mut nvmlFieldValue_t) -> nvmlReturn_t;

/// The `nvmlClocksEventReasons` bits (`nvmlClocksThrottleReasons` before driver 535), by name.
pub const CLOCKS_EVENT_REASONS: [(u64, &str); 9] = [
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
];

dynamic_api! {
    /// The NVML functions the sampler reads, one pointer each.
    pub struct NvmlApi;
    check = any(), unused;

    fn nvmlInit_v2() -> nvmlReturn_t;
    fn nvmlShutdown() -> nvmlReturn_t;
    fn nvmlErrorString(result: nvmlReturn_t) -> *const c_char;
    fn nvmlDeviceGetCount_v2(count: *mut c_uint) -> nvmlReturn_t;
    fn nvmlDeviceGetHandleByIndex_v2(index: c_uint, device: *mut nvmlDevice_t) -> nvmlReturn_t;
    fn nvmlDeviceGetUUID(device: nvmlDevice_t, uuid: *mut c_char, length: c_uint) -> nvmlReturn_t;
    /// Milliwatts.
    fn nvmlDeviceGetPowerUsage(device: nvmlDevice_t, milliwatts: *mut c_uint) -> nvmlReturn_t;
    /// Millijoules since the driver was last loaded (Volta and later).
    fn nvmlDeviceGetTotalEnergyConsumption(device: nvmlDevice_t, millijoules: *mut c_ulonglong) -> nvmlReturn_t;
    /// MHz.
    fn nvmlDeviceGetClockInfo(device: nvmlDevice_t, kind: nvmlClockType_t, mhz: *mut c_uint) -> nvmlReturn_t;
    fn nvmlDeviceGetMemoryInfo(device: nvmlDevice_t, memory: *mut nvmlMemory_t) -> nvmlReturn_t;
    fn nvmlDeviceGetUtilizationRates(device: nvmlDevice_t, utilization: *mut nvmlUtilization_t) -> nvmlReturn_t;
    /// Degrees Celsius.
    fn nvmlDeviceGetTemperature(device: nvmlDevice_t, sensor: c_uint, celsius: *mut c_uint) -> nvmlReturn_t;
}

/// `nvmlDeviceGetCurrentClocksEventReasons` (driver 535 and later), or its older name
/// `nvmlDeviceGetCurrentClocksThrottleReasons`: one signature.
pub type GetClocksEventReasons = unsafe extern "C" fn(nvmlDevice_t, *mut c_ulonglong) -> nvmlReturn_t;

/// An open NVML and its functions.
#[allow(missing_debug_implementations)]
pub struct Nvml {
    /// The functions.
    pub api: NvmlApi,
    /// The clock-event (throttle) reasons, under whichever name the driver has.
    pub clocks_event_reasons: Option<GetClocksEventReasons>,
    /// `nvmlDeviceGetFieldValues`, where the driver has it.
    pub field_values: Option<GetFieldValues>,
    library: OpenLibrary,
}

impl Nvml {
    /// Opens NVML: `path` where given, else by SONAME.
    pub fn load(path: Option<&str>) -> Result<Nvml, LoadError> {
        let names: Vec<&str> = path.map_or_else(|| SONAMES.to_vec(), |p| vec![p]);
        let library = dylib::open_first("NVML (libnvidia-ml.so.1, from the NVIDIA driver)", &names)?;
        // SAFETY: the library is NVML by name, and it stays open as long as `Nvml`.
        let api = unsafe { NvmlApi::resolve(&library.library, &library.name)? };
        let clocks_event_reasons =
            [&b"nvmlDeviceGetCurrentClocksEventReasons\0"[..], b"nvmlDeviceGetCurrentClocksThrottleReasons\0"]
                .into_iter()
                // SAFETY: both names have this signature in nvml.h.
                .find_map(|name| unsafe { library.library.get::<GetClocksEventReasons>(name) }.ok().map(|f| *f));
        // SAFETY: the name has this signature in nvml.h.
        let field_values =
            unsafe { library.library.get::<GetFieldValues>(b"nvmlDeviceGetFieldValues\0") }.ok().map(|f| *f);
        Ok(Nvml { api, clocks_event_reasons, field_values, library })
    }

    /// The name the library was opened by.
    pub fn library_name(&self) -> &str {
        &self.library.name
    }

    /// NVML's text for a return code.
    pub fn error_string(&self, code: nvmlReturn_t) -> String {
        // SAFETY: nvmlErrorString takes any code and returns a static string or null.
        let text = unsafe { (self.api.nvmlErrorString)(code) };
        if text.is_null() {
            return format!("NVML error {code}");
        }
        // SAFETY: non-null, NUL-terminated and static, as NVML documents.
        unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structs_have_the_header_layout() {
        assert_eq!(std::mem::size_of::<nvmlMemory_t>(), 24);
        assert_eq!(std::mem::offset_of!(nvmlMemory_t, used), 16);
        assert_eq!(std::mem::size_of::<nvmlUtilization_t>(), 8);
        // Checked against the driver on an H100 (bench/gpu/telemetry/nvml_fields.py).
        assert_eq!(std::mem::size_of::<nvmlFieldValue_t>(), 40);
        assert_eq!(std::mem::offset_of!(nvmlFieldValue_t, valueType), 24);
        assert_eq!(std::mem::offset_of!(nvmlFieldValue_t, value), 32);
    }

    #[test]
    fn a_missing_library_is_an_error_not_a_panic() {
        let error = Nvml::load(Some("/nonexistent/libnvidia-ml.so.1")).err().expect("no such library");
        assert!(error.to_string().contains("NVML"), "{error}");
    }
}
