//! A SIMULATED `libamd_smi.so`: the AMD SMI functions the device sampler calls, over the GPUs of
//! the simulated SDK in the process (or two stand-in GPUs without one). No GPU is involved.
//!
//! Each GPU's readings are a known function of the time since `amdsmi_init` ([`model`]). A
//! sample is taken when `amdsmi_get_power_info` is called, and every other reading of the GPU
//! returns that sample's values until the next, so a sample's readings are one instant's. Every
//! sample is logged, and written at `amdsmi_shut_down` to the CSV named by
//! `ROCPROF_SIM_AMDSMI_TRUTH`: the ground truth the `device_sample` table must equal.
//!
//! `ROCPROF_SIM_AMDSMI_VERSION` sets the version it reports (default `26.5.0`); a version
//! before 25 lays out `amdsmi_power_info_t` and `amdsmi_version_t` as 24.x did.
//! `ROCPROF_SIM_AMDSMI_FAIL=init` makes `amdsmi_init` fail; `=hang` makes every power reading
//! after the fifth block for good, as a hung driver's would. A hostile library's counts:
//! `=sockets` reports 0xFFFFFFFF sockets, `=processors` 0xFFFFFFFF processors on the socket, and
//! `=overfill` has each fill call claim one entry more than the room it was given.

#![allow(
    clippy::multiple_unsafe_ops_per_block,
    reason = "a stand-in C library: each entry fills its caller's out-pointers together"
)]

use std::ffi::{c_char, c_void};
use std::io::Write;
use std::sync::Mutex;

use rocprofiler_sdk_sys::amdsmi::{amdsmi_clk_info_t, amdsmi_engine_usage_t, amdsmi_power_info_t, amdsmi_version_t};

const SUCCESS: u32 = 0;
const INVAL: u32 = 1;
const NOT_SUPPORTED: u32 = 2;
const NOT_INIT: u32 = 32;
const INIT_ERROR: u32 = 18;

/// The energy counter's unit, in microjoules, as the real library hard-codes it.
pub const RESOLUTION_UJ: f32 = 15.3;

/// The readings of a GPU at `t` seconds after `amdsmi_init`: a load that rises and falls with a
/// period of [`PERIOD`] seconds (short, so a simulated run of a few tens of milliseconds sees
/// both), power that follows it, and a clock that drops above 450 W (a power cap).
pub mod model {
    /// Seconds.
    pub const PERIOD: f64 = 0.1;

    /// Busy share, 0 to 1.
    pub fn busy(gpu: usize, t: f64) -> f64 {
        0.5 + 0.5 * (std::f64::consts::TAU * t / PERIOD + gpu as f64).sin()
    }
    /// Watts.
    pub fn power(gpu: usize, t: f64) -> f64 {
        90.0 + 450.0 * busy(gpu, t)
    }
    /// Joules since `amdsmi_init`: the exact integral of [`power`].
    pub fn energy(gpu: usize, t: f64) -> f64 {
        let w = std::f64::consts::TAU / PERIOD;
        let phase = gpu as f64;
        90.0 * t + 225.0 * t - 225.0 / w * ((w * t + phase).cos() - phase.cos())
    }
    /// MHz.
    pub fn gfx_clock(gpu: usize, t: f64) -> u32 {
        if power(gpu, t) > 450.0 { 1700 } else { 2100 }
    }
    /// Bytes of VRAM in use: 1 GiB and 64 MiB more every 50 ms, to 16 GiB.
    pub fn vram_used(gpu: usize, t: f64) -> u64 {
        ((1u64 << 30) + (gpu as u64) * (512 << 20) + ((t / 0.05) as u64) * (64 << 20)).min(16 << 30)
    }
}

/// One GPU: its PCI address as `amdsmi_bdf_t` packs it.
#[derive(Clone, Copy)]
struct Gpu {
    bdf: u64,
}

/// What one call of `amdsmi_get_power_info` latched.
#[derive(Clone, Copy, Default)]
struct Sample {
    time_ns: u64,
    power_w: u32,
    energy_accumulator: u64,
    gfx_mhz: u32,
    mem_mhz: u32,
    vram_used: u64,
    gfx_busy: u32,
    umc_busy: u32,
    hotspot_c: i64,
}

struct State {
    start_ns: u64,
    major: u32,
    version: std::ffi::CString,
    gpus: Vec<Gpu>,
    latest: Vec<Sample>,
    log: Vec<(usize, Sample)>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);
const VRAM_TOTAL: u64 = 192 << 30;
const MEM_MHZ: u32 = 1300;

fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The simulated SDK's GPU agents' PCI addresses, where it is in the process.
fn sdk_gpus() -> Vec<Gpu> {
    use rocprofiler_sdk_sys as sys;
    // SAFETY: RTLD_NOLOAD opens nothing new.
    let Ok(sdk) = (unsafe {
        libloading::os::unix::Library::open(Some("librocprofiler-sdk.so.1"), libc::RTLD_LAZY | libc::RTLD_NOLOAD)
    }) else {
        return Vec::new();
    };
    type Query = unsafe extern "C" fn(u32, sys::rocprofiler_query_available_agents_cb_t, usize, *mut c_void) -> u32;
    // SAFETY: the SDK's signature for this function.
    let Ok(query) = (unsafe { sdk.get::<Query>(b"rocprofiler_query_available_agents\0") }) else { return Vec::new() };
    unsafe extern "C" fn each(_version: u32, agents: *mut *const c_void, count: usize, data: *mut c_void) -> u32 {
        // SAFETY: `data` is the Vec below; the SDK passes `count` agent pointers of the 1.0 layout.
        let found = unsafe { &mut *data.cast::<Vec<Gpu>>() };
        for i in 0..count {
            // SAFETY: as above.
            let agent = unsafe { &*(*agents.add(i)).cast::<sys::rocprofiler_agent_t>() };
            if agent.type_ == sys::ROCPROFILER_AGENT_TYPE_GPU {
                found.push(Gpu { bdf: (u64::from(agent.domain) << 16) | u64::from(agent.location_id & 0xffff) });
            }
        }
        0
    }
    let mut found: Vec<Gpu> = Vec::new();
    // SAFETY: the callback matches the SDK's type and `found` outlives the call.
    unsafe {
        query(
            sys::ROCPROFILER_AGENT_INFO_VERSION_0,
            Some(each),
            std::mem::size_of::<sys::rocprofiler_agent_t>(),
            (&mut found as *mut Vec<Gpu>).cast(),
        )
    };
    std::mem::forget(sdk);
    found
}

fn with_gpu<R>(handle: *mut c_void, f: impl FnOnce(&mut State, usize) -> R) -> Result<R, u32> {
    let mut state = STATE.lock().unwrap_or_else(|p| p.into_inner());
    let state = state.as_mut().ok_or(NOT_INIT)?;
    let gpu = (handle as usize).checked_sub(1).filter(|&g| g < state.gpus.len()).ok_or(INVAL)?;
    Ok(f(state, gpu))
}

fn status<R>(result: Result<R, u32>, write: impl FnOnce(R)) -> u32 {
    match result {
        Ok(value) => {
            write(value);
            SUCCESS
        }
        Err(code) => code,
    }
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_init(_flags: u64) -> u32 {
    if std::env::var("ROCPROF_SIM_AMDSMI_FAIL").is_ok_and(|v| v == "init") {
        return INIT_ERROR;
    }
    let version = std::env::var("ROCPROF_SIM_AMDSMI_VERSION").unwrap_or_else(|_| "26.5.0".into());
    let major = version.split('.').next().and_then(|m| m.parse().ok()).unwrap_or(26);
    let mut gpus = sdk_gpus();
    if gpus.is_empty() {
        gpus = vec![Gpu { bdf: 0x1000 }, Gpu { bdf: 0x2000 }];
    }
    let latest = vec![Sample::default(); gpus.len()];
    let mut state = STATE.lock().unwrap_or_else(|p| p.into_inner());
    if state.is_none() {
        *state = Some(State {
            start_ns: now_ns(),
            major,
            version: std::ffi::CString::new(version).unwrap_or_default(),
            gpus,
            latest,
            log: Vec::new(),
        });
    }
    SUCCESS
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_shut_down() -> u32 {
    let Some(state) = STATE.lock().unwrap_or_else(|p| p.into_inner()).take() else { return NOT_INIT };
    if let Some(path) = std::env::var_os("ROCPROF_SIM_AMDSMI_TRUTH") {
        let write = || -> std::io::Result<()> {
            let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
            writeln!(
                out,
                "device_index,bdf,time_ns,power_w,energy_accumulator,resolution_uj,gfx_mhz,mem_mhz,vram_used,vram_total,gfx_busy,umc_busy,hotspot_c"
            )?;
            for (gpu, s) in &state.log {
                writeln!(
                    out,
                    "{gpu},{},{},{},{},{RESOLUTION_UJ},{},{},{},{VRAM_TOTAL},{},{},{}",
                    state.gpus[*gpu].bdf,
                    s.time_ns,
                    s.power_w,
                    s.energy_accumulator,
                    s.gfx_mhz,
                    s.mem_mhz,
                    s.vram_used,
                    s.gfx_busy,
                    s.umc_busy,
                    s.hotspot_c
                )?;
            }
            out.flush()
        };
        if let Err(e) = write() {
            eprintln!("rocprof-sim-amdsmi: cannot write the truth to {}: {e}", path.to_string_lossy());
        }
    }
    SUCCESS
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_status_code_to_string(status: u32, text: *mut *const c_char) -> u32 {
    let message: &'static std::ffi::CStr = match status {
        SUCCESS => c"AMDSMI_STATUS_SUCCESS: Call succeeded",
        NOT_SUPPORTED => c"AMDSMI_STATUS_NOT_SUPPORTED: Command not supported",
        NOT_INIT => c"AMDSMI_STATUS_NOT_INIT: Device not initialized",
        INIT_ERROR => c"AMDSMI_STATUS_INIT_ERROR: An error occurred during initialization (simulated)",
        _ => c"AMDSMI_STATUS_INVAL: Invalid parameters",
    };
    if text.is_null() {
        return INVAL;
    }
    // SAFETY: a valid out-pointer, as the caller promises.
    unsafe { *text = message.as_ptr() };
    SUCCESS
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_get_lib_version(version: *mut amdsmi_version_t) -> u32 {
    let state = STATE.lock().unwrap_or_else(|p| p.into_inner());
    let Some(state) = state.as_ref() else { return NOT_INIT };
    if version.is_null() {
        return INVAL;
    }
    let numbers = if state.major < 25 { [2024, state.major, 0, 0] } else { [state.major, 0, 0, 0] };
    // SAFETY: a valid out-pointer; the string lives in the state until shut-down, as the real one
    // lives in the library.
    unsafe { *version = amdsmi_version_t { numbers, build: state.version.as_ptr() } };
    SUCCESS
}

/// Which hostile count `ROCPROF_SIM_AMDSMI_FAIL` asks for, if any.
fn hostile(what: &str) -> bool {
    std::env::var("ROCPROF_SIM_AMDSMI_FAIL").is_ok_and(|v| v == what)
}

/// The count a call returns: `real`, or the hostile one asked for. A count-only call (`filling`
/// unset) with `huge` says 0xFFFFFFFF; a fill with `overfill` claims one more than `room`.
fn reported(real: usize, room: u32, filling: bool, huge: &str) -> u32 {
    if filling && hostile("overfill") {
        room.saturating_add(1)
    } else if !filling && hostile(huge) {
        u32::MAX
    } else {
        real as u32
    }
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_get_socket_handles(count: *mut u32, sockets: *mut *mut c_void) -> u32 {
    if count.is_null() {
        return INVAL;
    }
    if STATE.lock().unwrap_or_else(|p| p.into_inner()).is_none() {
        return NOT_INIT;
    }
    // One socket; its handle is 1.
    // SAFETY: valid pointers, as the caller promises; the array holds `*count` handles.
    unsafe {
        if !sockets.is_null() && *count >= 1 {
            *sockets = std::ptr::without_provenance_mut(1);
        }
        *count = reported(1, *count, !sockets.is_null(), "sockets");
    }
    SUCCESS
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_get_processor_handles(
    socket: *mut c_void,
    count: *mut u32,
    processors: *mut *mut c_void,
) -> u32 {
    let gpus = match STATE.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
        Some(state) => state.gpus.len(),
        None => return NOT_INIT,
    };
    if count.is_null() || socket as usize != 1 {
        return INVAL;
    }
    // SAFETY: valid pointers, as the caller promises; the array holds `*count` handles.
    unsafe {
        if !processors.is_null() {
            for gpu in 0..gpus.min(*count as usize) {
                *processors.add(gpu) = std::ptr::without_provenance_mut(gpu + 1);
            }
        }
        *count = reported(gpus, *count, !processors.is_null(), "processors");
    }
    SUCCESS
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_get_processor_type(handle: *mut c_void, kind: *mut u32) -> u32 {
    // SAFETY: a valid out-pointer, as the caller promises.
    status(with_gpu(handle, |_, _| 1), |k| unsafe { *kind = k })
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_get_gpu_device_bdf(handle: *mut c_void, bdf: *mut u64) -> u32 {
    // SAFETY: as above.
    status(with_gpu(handle, |s, g| s.gpus[g].bdf), |b| unsafe { *bdf = b })
}

/// Takes GPU `gpu`'s sample now.
fn latch(state: &mut State, gpu: usize) -> Sample {
    let time_ns = now_ns();
    let t = time_ns.saturating_sub(state.start_ns) as f64 * 1e-9;
    let power = model::power(gpu, t);
    let sample = Sample {
        time_ns,
        power_w: power.round() as u32,
        energy_accumulator: (model::energy(gpu, t) * 1e6 / f64::from(RESOLUTION_UJ)) as u64,
        gfx_mhz: model::gfx_clock(gpu, t),
        mem_mhz: MEM_MHZ,
        vram_used: model::vram_used(gpu, t),
        gfx_busy: (model::busy(gpu, t) * 100.0).round() as u32,
        umc_busy: (model::busy(gpu, t) * 60.0).round() as u32,
        hotspot_c: 35 + (power / 10.0) as i64,
    };
    state.latest[gpu] = sample;
    state.log.push((gpu, sample));
    sample
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_get_power_info(handle: *mut c_void, info: *mut amdsmi_power_info_t) -> u32 {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    if std::env::var("ROCPROF_SIM_AMDSMI_FAIL").is_ok_and(|v| v == "hang")
        && CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= 5
    {
        loop {
            std::thread::park();
        }
    }
    let taken = with_gpu(handle, |state, gpu| (latch(state, gpu), state.major));
    status(taken, |(sample, major)| {
        let mut bytes = [0u8; 256];
        let (current, average, size) = if major < 25 { (0, 4, 68) } else { (8, 12, 192) };
        bytes[current..current + 4].copy_from_slice(&sample.power_w.to_ne_bytes());
        // The average is not reported on this (MI300-like) part, as the real library marks it.
        bytes[average..average + 4].copy_from_slice(&u32::from(u16::MAX).to_ne_bytes());
        // SAFETY: the caller's struct holds this release's size.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), info.cast::<u8>(), size) };
    })
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_get_energy_count(
    handle: *mut c_void,
    energy: *mut u64,
    resolution: *mut f32,
    timestamp: *mut u64,
) -> u32 {
    // SAFETY: valid out-pointers, as the caller promises.
    status(with_gpu(handle, |s, g| s.latest[g]), |sample| unsafe {
        *energy = sample.energy_accumulator;
        *resolution = RESOLUTION_UJ;
        *timestamp = sample.time_ns;
    })
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_get_clock_info(handle: *mut c_void, kind: u32, info: *mut amdsmi_clk_info_t) -> u32 {
    let read = with_gpu(handle, |s, g| s.latest[g]).and_then(|sample| match kind {
        0 => Ok((sample.gfx_mhz, 500, 2100)),
        4 => Ok((sample.mem_mhz, 900, MEM_MHZ)),
        _ => Err(NOT_SUPPORTED),
    });
    // SAFETY: a valid out-pointer, as the caller promises.
    status(read, |(clk, min_clk, max_clk)| unsafe {
        *info = amdsmi_clk_info_t { clk, min_clk, max_clk, ..Default::default() }
    })
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_get_gpu_memory_usage(handle: *mut c_void, kind: u32, used: *mut u64) -> u32 {
    let read =
        with_gpu(handle, |s, g| s.latest[g].vram_used).and_then(|v| if kind == 0 { Ok(v) } else { Err(NOT_SUPPORTED) });
    // SAFETY: a valid out-pointer, as the caller promises.
    status(read, |v| unsafe { *used = v })
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_get_gpu_memory_total(handle: *mut c_void, kind: u32, total: *mut u64) -> u32 {
    let read = with_gpu(handle, |_, _| VRAM_TOTAL).and_then(|v| if kind == 0 { Ok(v) } else { Err(NOT_SUPPORTED) });
    // SAFETY: a valid out-pointer, as the caller promises.
    status(read, |v| unsafe { *total = v })
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_get_gpu_activity(handle: *mut c_void, usage: *mut amdsmi_engine_usage_t) -> u32 {
    // SAFETY: a valid out-pointer, as the caller promises.
    status(with_gpu(handle, |s, g| s.latest[g]), |sample| unsafe {
        *usage = amdsmi_engine_usage_t {
            gfx_activity: sample.gfx_busy,
            umc_activity: sample.umc_busy,
            mm_activity: u32::from(u16::MAX),
            ..Default::default()
        }
    })
}

/// # Safety
/// As AMD SMI's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amdsmi_get_temp_metric(handle: *mut c_void, sensor: u32, metric: u32, value: *mut i64) -> u32 {
    let read = with_gpu(handle, |s, g| s.latest[g].hotspot_c)
        .and_then(|c| if sensor == 1 && metric == 0 { Ok(c) } else { Err(NOT_SUPPORTED) });
    // SAFETY: a valid out-pointer, as the caller promises.
    status(read, |c| unsafe { *value = c })
}
