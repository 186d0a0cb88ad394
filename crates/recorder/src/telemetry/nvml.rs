//! NVML as a sample source.

use std::ffi::{CStr, c_char, c_int, c_uint, c_ulonglong};

use rocprofiler_sdk_sys::cuda::CudaDriver;
use rocprofiler_sdk_sys::nvml::{self as sys, Nvml, nvmlDevice_t};

use super::{Source, TelemetryError, bounded_count, stamp};
use crate::pipeline::clock;
use crate::pipeline::records::{DeviceSample, SampledDevice, TelemetryLibrary};

/// NVML, as its samples' rows name it.
pub const NVML: TelemetryLibrary =
    TelemetryLibrary { name: "nvml", throttle_reasons: &rocprofiler_sdk_sys::nvml::CLOCKS_EVENT_REASONS };

pub(crate) struct NvmlSource {
    nvml: Nvml,
    handles: Vec<nvmlDevice_t>,
    devices: Vec<SampledDevice>,
}

// SAFETY: NVML's handles are plain identifiers, valid on any thread (NVML is thread-safe);
// only the sampler thread uses them.
unsafe impl Send for NvmlSource {}

impl NvmlSource {
    pub(crate) fn open(path: Option<&str>) -> Result<NvmlSource, TelemetryError> {
        let nvml = Nvml::load(path)?;
        let call = |call: &'static str, code: c_uint| {
            if code == sys::NVML_SUCCESS {
                Ok(())
            } else {
                Err(TelemetryError::Call { library: "NVML", call, text: nvml.error_string(code) })
            }
        };
        // SAFETY: nvmlInit_v2 takes nothing; it may be called any number of times.
        call("nvmlInit_v2", unsafe { (nvml.api.nvmlInit_v2)() })?;
        let mut count: c_uint = 0;
        // SAFETY: a valid out-pointer.
        call("nvmlDeviceGetCount_v2", unsafe { (nvml.api.nvmlDeviceGetCount_v2)(&mut count) })?;
        // Each index below the count is a call and a handle kept: a hostile count is refused.
        let count = bounded_count("NVML", "nvmlDeviceGetCount_v2", "devices", count)? as c_uint;
        // CUDA's ordinals are the agents of every CUDA row; a GPU CUDA does not see (hidden by
        // CUDA_VISIBLE_DEVICES) is sampled all the same, with no agent.
        let cuda = CudaDriver::load().map(|driver| driver.device_uuids()).unwrap_or_default();
        let (mut handles, mut devices) = (Vec::new(), Vec::new());
        for index in 0..count {
            let mut handle: nvmlDevice_t = std::ptr::null_mut();
            // SAFETY: `index` is below the count; a valid out-pointer.
            call("nvmlDeviceGetHandleByIndex_v2", unsafe {
                (nvml.api.nvmlDeviceGetHandleByIndex_v2)(index, &mut handle)
            })?;
            let mut text = [0 as c_char; sys::NVML_DEVICE_UUID_V2_BUFFER_SIZE];
            // SAFETY: the buffer holds the length given.
            let named = unsafe { (nvml.api.nvmlDeviceGetUUID)(handle, text.as_mut_ptr(), text.len() as c_uint) };
            let uuid = if named == sys::NVML_SUCCESS {
                // SAFETY: NVML wrote a NUL-terminated string into the buffer.
                unsafe { CStr::from_ptr(text.as_ptr()) }.to_string_lossy().into_owned()
            } else {
                format!("NVML GPU {index}")
            };
            let agent_id = parse_uuid(&uuid).and_then(|bytes| cuda.iter().position(|u| *u == bytes)).map(|o| o as u64);
            handles.push(handle);
            devices.push(SampledDevice { index, uuid: uuid.into(), library: NVML, agent_id });
        }
        if devices.is_empty() {
            return Err(TelemetryError::NoDevice("NVML"));
        }
        Ok(NvmlSource { nvml, handles, devices })
    }
}

impl NvmlSource {
    /// The instant and the averaged power, watts, in one call where the driver has the fields
    /// (the instant one since driver 535).
    fn power_fields(&self, device: nvmlDevice_t) -> (Option<f64>, Option<f64>) {
        let Some(get) = self.nvml.field_values else { return (None, None) };
        let mut fields = [sys::NVML_FI_DEV_POWER_INSTANT, sys::NVML_FI_DEV_POWER_AVERAGE]
            .map(|field_id| sys::nvmlFieldValue_t { fieldId: field_id, ..Default::default() });
        // SAFETY: a handle NVML gave, and an array of as many fields as the count says.
        if unsafe { get(device, fields.len() as c_int, fields.as_mut_ptr()) } != sys::NVML_SUCCESS {
            return (None, None);
        }
        let watts = |f: &sys::nvmlFieldValue_t| {
            (f.nvmlReturn == sys::NVML_SUCCESS && f.valueType == sys::NVML_VALUE_TYPE_UNSIGNED_INT)
                .then(|| f64::from(f.value as u32) / 1e3)
        };
        (watts(&fields[0]), watts(&fields[1]))
    }
}

impl Source for NvmlSource {
    fn devices(&self) -> &[SampledDevice] {
        &self.devices
    }

    fn read(&mut self, position: usize, sample: &mut DeviceSample, energy: bool) {
        let (api, device) = (&self.nvml.api, self.handles[position]);
        let ok = |code: c_uint| code == sys::NVML_SUCCESS;
        // Each reading on its own: a GPU that lacks one (NOT_SUPPORTED) still gives the rest.
        // Every call below passes a handle NVML gave this process and a valid local out-pointer.
        let (mut milliwatts, mut millijoules, mut sm, mut mem, mut celsius): (
            c_uint,
            c_ulonglong,
            c_uint,
            c_uint,
            c_uint,
        ) = (0, 0, 0, 0, 0);
        let before = clock::now_ns();
        let (instant, average) = self.power_fields(device);
        sample.time_ns = stamp(before);
        sample.readings.power_average_w = average.or_else(|| {
            // SAFETY: as above.
            ok(unsafe { (api.nvmlDeviceGetPowerUsage)(device, &mut milliwatts) }).then(|| f64::from(milliwatts) / 1e3)
        });
        sample.readings.power_w = instant.or(sample.readings.power_average_w);
        if energy {
            // SAFETY: as above.
            let counted = ok(unsafe { (api.nvmlDeviceGetTotalEnergyConsumption)(device, &mut millijoules) });
            sample.readings.energy_j = counted.then(|| millijoules as f64 / 1e3);
        }
        // SAFETY: as above.
        sample.readings.sm_clock_mhz =
            ok(unsafe { (api.nvmlDeviceGetClockInfo)(device, sys::NVML_CLOCK_SM, &mut sm) }).then_some(sm);
        // SAFETY: as above.
        let clocked = ok(unsafe { (api.nvmlDeviceGetClockInfo)(device, sys::NVML_CLOCK_MEM, &mut mem) });
        sample.readings.memory_clock_mhz = clocked.then_some(mem);
        let mut memory = sys::nvmlMemory_t::default();
        // SAFETY: as above.
        if ok(unsafe { (api.nvmlDeviceGetMemoryInfo)(device, &mut memory) }) {
            (sample.readings.memory_used_bytes, sample.readings.memory_total_bytes) =
                (Some(memory.used), Some(memory.total));
        }
        let mut busy = sys::nvmlUtilization_t::default();
        // SAFETY: as above.
        if ok(unsafe { (api.nvmlDeviceGetUtilizationRates)(device, &mut busy) }) {
            (sample.readings.gpu_busy_pct, sample.readings.memory_busy_pct) = (Some(busy.gpu), Some(busy.memory));
        }
        // SAFETY: as above.
        let warm = ok(unsafe { (api.nvmlDeviceGetTemperature)(device, sys::NVML_TEMPERATURE_GPU, &mut celsius) });
        sample.readings.temperature_c = warm.then_some(celsius as i32);
        if let Some(reasons) = self.nvml.clocks_event_reasons {
            let mut bits: c_ulonglong = 0;
            // SAFETY: as above; the pointer was resolved from NVML under one of its two names.
            sample.readings.throttle_reasons = ok(unsafe { reasons(device, &mut bits) }).then_some(bits);
        }
    }
}

/// NVML's `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` as CUDA's 16 bytes.
fn parse_uuid(text: &str) -> Option<[u8; 16]> {
    let hex: String = text.strip_prefix("GPU-")?.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 {
        return None;
    }
    let mut bytes = [0u8; 16];
    for (i, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(bytes)
}

impl Drop for NvmlSource {
    fn drop(&mut self) {
        // SAFETY: NVML was initialised by `open`; nothing uses the handles after this.
        unsafe { (self.nvml.api.nvmlShutdown)() };
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_nvml_uuid_reads_as_cudas_bytes() {
        let bytes = super::parse_uuid("GPU-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0").expect("a uuid");
        assert_eq!(bytes[0], 0x0f);
        assert_eq!(bytes[15], 0xf0);
        assert_eq!(super::parse_uuid("MIG-0f1e2d3c"), None);
        assert_eq!(super::parse_uuid("GPU-zz"), None);
    }
}
