//! AMD SMI as a sample source.

use rocprofiler_sdk_sys::amdsmi::{self as sys, AmdSmi, amdsmi_processor_handle};

use super::{MAX_LIBRARY_COUNT, Source, TelemetryError, bounded_count, filled, stamp};
use crate::pipeline::clock;
use crate::pipeline::records::{DeviceSample, SampledDevice, TelemetryLibrary};

/// AMD SMI, as its samples' rows name it.
pub const AMD_SMI: TelemetryLibrary =
    TelemetryLibrary { name: "amd-smi", throttle_reasons: &rocprofiler_sdk_sys::amdsmi::THROTTLE_REASONS };

/// The library's name in messages.
const LIBRARY: &str = "AMD SMI";

pub(crate) struct AmdSmiSource {
    smi: AmdSmi,
    power_layout: sys::PowerLayout,
    handles: Vec<amdsmi_processor_handle>,
    devices: Vec<SampledDevice>,
}

// SAFETY: AMD SMI's handles are identifiers valid on any thread; only the sampler uses them.
unsafe impl Send for AmdSmiSource {}

impl AmdSmiSource {
    pub(crate) fn open(path: Option<&str>, agents: &[(u64, u64)]) -> Result<AmdSmiSource, TelemetryError> {
        let smi = AmdSmi::load(path)?;
        let call = |call: &'static str, status: u32| {
            if status == sys::AMDSMI_STATUS_SUCCESS {
                Ok(())
            } else {
                Err(TelemetryError::Call { library: LIBRARY, call, text: smi.error_string(status) })
            }
        };
        // SAFETY: a plain flag argument.
        call("amdsmi_init", unsafe { (smi.api.amdsmi_init)(sys::AMDSMI_INIT_AMD_GPUS) })?;
        // Libraries before 25.x (ROCm 6.4) lay the power info out otherwise; one that does not
        // say its version is taken as current.
        let power_layout = sys::PowerLayout::of_major(smi.major_version().unwrap_or(26));
        const SOCKETS: &str = "amdsmi_get_socket_handles";
        const PROCESSORS: &str = "amdsmi_get_processor_handles";
        // Every count the library returns is bounded before it sizes an array, and every fill
        // checked against its room: a library that reports 0xFFFFFFFF sockets must cost the
        // samples alone, not the application (whose allocation of 32 GiB would abort it).
        let mut sockets = 0u32;
        // SAFETY: a null array asks for the count alone.
        call(SOCKETS, unsafe { (smi.api.amdsmi_get_socket_handles)(&mut sockets, std::ptr::null_mut()) })?;
        let mut socket_handles = vec![std::ptr::null_mut(); bounded_count(LIBRARY, SOCKETS, "sockets", sockets)?];
        // SAFETY: the array holds `sockets` handles.
        call(SOCKETS, unsafe { (smi.api.amdsmi_get_socket_handles)(&mut sockets, socket_handles.as_mut_ptr()) })?;
        socket_handles.truncate(filled(LIBRARY, SOCKETS, "sockets", sockets, socket_handles.len())?);
        let (mut handles, mut devices, mut seen) = (Vec::new(), Vec::new(), 0usize);
        for socket in socket_handles {
            let mut count = 0u32;
            // SAFETY: a null array asks for the count alone.
            call(PROCESSORS, unsafe {
                (smi.api.amdsmi_get_processor_handles)(socket, &mut count, std::ptr::null_mut())
            })?;
            let room = bounded_count(LIBRARY, PROCESSORS, "processors", count)?;
            seen += room;
            if seen > MAX_LIBRARY_COUNT as usize {
                let (value, limit) = (seen as u64, u64::from(MAX_LIBRARY_COUNT));
                let what = "processors over its sockets";
                return Err(TelemetryError::Count { library: LIBRARY, call: PROCESSORS, what, value, limit });
            }
            let mut processors = vec![std::ptr::null_mut(); room];
            // SAFETY: the array holds `count` handles.
            call(PROCESSORS, unsafe {
                (smi.api.amdsmi_get_processor_handles)(socket, &mut count, processors.as_mut_ptr())
            })?;
            processors.truncate(filled(LIBRARY, PROCESSORS, "processors", count, room)?);
            for processor in processors {
                let mut kind = 0u32;
                // SAFETY: a handle from the library and a valid out-pointer.
                let typed = unsafe { (smi.api.amdsmi_get_processor_type)(processor, &mut kind) };
                if typed != sys::AMDSMI_STATUS_SUCCESS || kind != sys::AMDSMI_PROCESSOR_TYPE_AMD_GPU {
                    continue;
                }
                let mut bdf = 0u64;
                // SAFETY: as above; `amdsmi_bdf_t` is one `uint64_t`.
                let located = unsafe { (smi.api.amdsmi_get_gpu_device_bdf)(processor, &mut bdf) };
                let index = devices.len() as u32;
                let (uuid, agent_id) = if located == sys::AMDSMI_STATUS_SUCCESS {
                    let name =
                        format!("{:04x}:{:02x}:{:02x}.{}", bdf >> 16, (bdf >> 8) & 0xff, (bdf >> 3) & 0x1f, bdf & 0x7);
                    (name, agents.iter().find(|(key, _)| *key == bdf).map(|(_, agent)| *agent))
                } else {
                    (format!("AMD SMI GPU {index}"), None)
                };
                handles.push(processor);
                devices.push(SampledDevice { index, uuid: uuid.into(), library: AMD_SMI, agent_id });
            }
        }
        if devices.is_empty() {
            return Err(TelemetryError::NoDevice(LIBRARY));
        }
        Ok(AmdSmiSource { smi, power_layout, handles, devices })
    }
}

impl Source for AmdSmiSource {
    fn devices(&self) -> &[SampledDevice] {
        &self.devices
    }

    fn read(&mut self, position: usize, sample: &mut DeviceSample, energy: bool) {
        let (api, gpu) = (&self.smi.api, self.handles[position]);
        let ok = |status: u32| status == sys::AMDSMI_STATUS_SUCCESS;
        // SAFETY (every call below): `gpu` is a handle the library gave, and each out-pointer
        // is a valid local of the declared type.
        let mut power = sys::amdsmi_power_info_t::default();
        // Before 7.x the call reports the power cap's read, which can fail with the power read:
        // the values are taken whatever it returns, and "not reported" marks are left out.
        let before = clock::now_ns();
        // SAFETY: as above.
        let status = unsafe { (api.amdsmi_get_power_info)(gpu, &mut power) };
        sample.time_ns = stamp(before);
        if ok(status) || power.bytes.iter().any(|b| *b != 0) {
            let (current, average) = self.power_layout.read(&power);
            // `power_w` is the current socket power where the part reports it (MI300 and later), else
            // (Navi, MI200 and earlier) the average, the only reading those give.
            let (current, average) = (watts(current), watts(average));
            (sample.readings.power_w, sample.readings.power_average_w) = (current.or(average), average);
        }
        let (mut accumulator, mut resolution, mut timestamp) = (0u64, 0f32, 0u64);
        let counted = energy && {
            // SAFETY: as above.
            ok(unsafe { (api.amdsmi_get_energy_count)(gpu, &mut accumulator, &mut resolution, &mut timestamp) })
        };
        if counted {
            // The accumulator counts units of `resolution` microjoules.
            sample.readings.energy_j = Some(accumulator as f64 * f64::from(resolution) * 1e-6);
        }
        let clock = |kind: u32| {
            let mut info = sys::amdsmi_clk_info_t::default();
            // SAFETY: as above.
            ok(unsafe { (api.amdsmi_get_clock_info)(gpu, kind, &mut info) }).then_some(info.clk)
        };
        sample.readings.sm_clock_mhz = clock(sys::AMDSMI_CLK_TYPE_GFX);
        sample.readings.memory_clock_mhz = clock(sys::AMDSMI_CLK_TYPE_MEM);
        let (mut used, mut total) = (0u64, 0u64);
        // SAFETY: as above.
        if ok(unsafe { (api.amdsmi_get_gpu_memory_usage)(gpu, sys::AMDSMI_MEM_TYPE_VRAM, &mut used) }) {
            sample.readings.memory_used_bytes = Some(used);
        }
        // SAFETY: as above.
        if ok(unsafe { (api.amdsmi_get_gpu_memory_total)(gpu, sys::AMDSMI_MEM_TYPE_VRAM, &mut total) }) {
            sample.readings.memory_total_bytes = Some(total);
        }
        let mut usage = sys::amdsmi_engine_usage_t::default();
        // SAFETY: as above.
        if ok(unsafe { (api.amdsmi_get_gpu_activity)(gpu, &mut usage) }) {
            sample.readings.gpu_busy_pct = percent(usage.gfx_activity);
            sample.readings.memory_busy_pct = percent(usage.umc_activity);
        }
        let mut celsius = 0i64;
        // SAFETY: as above.
        let read = unsafe {
            (api.amdsmi_get_temp_metric)(
                gpu,
                sys::AMDSMI_TEMPERATURE_TYPE_HOTSPOT,
                sys::AMDSMI_TEMP_CURRENT,
                &mut celsius,
            )
        };
        if ok(read) {
            sample.readings.temperature_c = i32::try_from(celsius).ok();
        }
    }
}

/// An AMD SMI power in watts, where reported: `u32::MAX` or 0xFFFF mark one not reported, and a
/// secondary die reads 0. The current socket power is reported by MI300 and later, the average
/// by Navi and MI200 and earlier.
fn watts(value: u32) -> Option<f64> {
    (value != 0 && value != u32::MAX && value != u32::from(u16::MAX)).then_some(f64::from(value))
}

/// A busy percentage, where reported (`u32::MAX` or 0xFFFF otherwise).
fn percent(value: u32) -> Option<u32> {
    (value <= 100).then_some(value)
}

impl Drop for AmdSmiSource {
    fn drop(&mut self) {
        // SAFETY: the library was initialised by `open`; nothing uses the handles after this.
        unsafe { (self.smi.api.amdsmi_shut_down)() };
    }
}
