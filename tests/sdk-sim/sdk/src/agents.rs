//! The simulated machine's agents: one CPU, then GPUs (an MI300X-like gfx942, an MI210-like
//! gfx90a, more gfx942s if asked), and optionally a gfx1151-like consumer APU whose counter
//! collection fails as it does under SDK 1.0, which has no counter definitions for it.
//!
//! Agent handles are the addresses of the agent structs, as in the real SDK.

use std::ffi::CString;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

use rocprof_sim::hw::Arch;
use rocprofiler_sdk_sys::*;

/// One agent and what the simulator knows about it.
pub struct Agent {
    pub info: rocprofiler_agent_t,
    pub arch: Option<Arch>,
}

// SAFETY: the agent struct's pointers point to leaked, immutable strings.
unsafe impl Sync for Agent {}
// SAFETY: as above.
unsafe impl Send for Agent {}

static GPUS: AtomicU32 = AtomicU32::new(2);
static CONSUMER: AtomicU32 = AtomicU32::new(0);
static CONFIGURED: AtomicBool = AtomicBool::new(false);
static AGENTS: OnceLock<Vec<&'static Agent>> = OnceLock::new();
/// The GPUs' architectures, when the driver or `ROCPROF_SIM_GPU_ARCHS` chose them.
static ARCHS: Mutex<Option<Vec<Arch>>> = Mutex::new(None);

/// Sets the GPUs' architectures before anything queries the agents.
pub fn configure_archs(archs: Vec<Arch>) {
    *ARCHS.lock().unwrap() = Some(archs);
}

/// Sets the machine before anything queries it; later calls have no effect.
pub fn configure(gpus: u32, consumer_gpu: bool) {
    CONFIGURED.store(true, Ordering::Release);
    GPUS.store(gpus.clamp(1, 15), Ordering::Release);
    CONSUMER.store(u32::from(consumer_gpu), Ordering::Release);
}

fn leak(s: &str) -> *const std::ffi::c_char {
    CString::new(s).unwrap().into_raw()
}

fn make(node: u32, arch: Option<Arch>, gpu_index: i32) -> &'static Agent {
    let mut info =
        rocprofiler_agent_t { size: std::mem::size_of::<rocprofiler_agent_t>() as u64, ..Default::default() };
    info.node_id = node;
    info.logical_node_id = node as i32;
    info.logical_node_type_id = gpu_index.max(0);
    info.vendor_name = leak(if arch.is_some() { "AMD" } else { "AuthenticAMD" });
    info.runtime_visibility._bitfield_1 = __BindgenBitfieldUnit::new([0b11, 0, 0, 0]);
    let (name, product, model, target, cus, xcc, device, wave) = match arch {
        None => ("AMD EPYC 9654 96-Core Processor", "AMD EPYC 9654 96-Core Processor", "", 0, 0, 0, 0, 0),
        Some(Arch::Gfx942) => ("gfx942", "AMD Instinct MI300X", "aqua_vanjaram", 90402, 304, 8, 0x74a1, 64),
        Some(Arch::Gfx90a) => ("gfx90a", "AMD Instinct MI210", "aldebaran", 90010, 104, 1, 0x740f, 64),
        Some(Arch::Gfx1151) => ("gfx1151", "AMD Radeon 8060S Graphics", "strix_halo", 110501, 40, 1, 0x1586, 32),
    };
    info.name = leak(name);
    info.product_name = leak(product);
    info.model_name = leak(model);
    if arch.is_none() {
        info.type_ = ROCPROFILER_AGENT_TYPE_CPU;
        info.cpu_cores_count = 192;
        // The SDK reports a CPU's cores as its compute units too (rocprofiler-sdk
        // source/lib/rocprofiler-sdk/agent.cpp), and rocprofv3's agent_info.csv reads them so.
        info.cu_count = info.cpu_cores_count;
        info.max_engine_clk_ccompute = 3700;
    } else {
        info.type_ = ROCPROFILER_AGENT_TYPE_GPU;
        info.gfx_target_version = target;
        info.cu_count = cus;
        info.num_xcc = xcc;
        info.simd_per_cu = 4;
        info.simd_count = cus * 4;
        info.wave_front_size = wave;
        info.max_waves_per_simd = 8;
        info.max_waves_per_cu = 32;
        info.lds_size_in_kb = 64;
        info.vendor_id = 0x1002;
        info.device_id = device;
        info.max_engine_clk_fcompute = 2100;
        info.workgroup_max_size = 1024;
        info.grid_max_size = u32::MAX;
        info.workgroup_max_dim = rocprofiler_dim3_t { x: 1024, y: 1024, z: 1024 };
        info.grid_max_dim = rocprofiler_dim3_t { x: u32::MAX, y: u32::MAX, z: u32::MAX };
        info.local_mem_size = 192 << 30;
        info.gpu_id = 0x4000 + u64::from(node) * 0x111;
        info.drm_render_minor = 127 + node;
        info.location_id = 0x1000 * node;
        info.num_sdma_engines = 2;
        info.num_cp_queues = 24;
        info.uuid.bytes[..8].copy_from_slice(&info.gpu_id.to_le_bytes());
        // The L2 (per XCD on gfx942) and the last-level cache behind it, as KFD lists them.
        let (l2, l3): (u64, u64) = match arch {
            Some(Arch::Gfx942) => (4 << 20, 256 << 20),
            Some(Arch::Gfx90a) => (8 << 20, 0),
            _ => (2 << 20, 32 << 20),
        };
        let caches: Vec<rocprofiler_agent_cache_t> = [(1, 16 << 10), (2, l2), (3, l3)]
            .into_iter()
            .filter(|&(_, size)| size > 0)
            .map(|(level, size)| rocprofiler_agent_cache_t {
                size,
                level,
                cache_line_size: if level == 1 { 64 } else { 128 },
                ..Default::default()
            })
            .collect();
        info.caches_count = caches.len() as u32;
        info.caches = caches.leak().as_ptr();
    }
    let agent: &'static mut Agent = Box::leak(Box::new(Agent { info, arch }));
    agent.info.id = rocprofiler_agent_id_t { handle: agent as *const Agent as u64 };
    agent
}

/// Every agent, CPU first; fixed at first use. A process that never configures the machine
/// (a tool's own process, such as `rocprof-rs avail`) reads `ROCPROF_SIM_GPUS`,
/// `ROCPROF_SIM_GPU_ARCHS` and `ROCPROF_SIM_CONSUMER_GPU=1`.
pub fn all() -> &'static [&'static Agent] {
    AGENTS.get_or_init(|| {
        if !CONFIGURED.load(Ordering::Acquire) {
            let gpus = std::env::var("ROCPROF_SIM_GPUS").ok().and_then(|v| v.parse().ok()).unwrap_or(2);
            configure(gpus, std::env::var("ROCPROF_SIM_CONSUMER_GPU").is_ok_and(|v| v == "1"));
            match rocprof_sim::hw::archs_from_env() {
                Some(Ok(archs)) => configure_archs(archs),
                Some(Err(e)) => crate::ffi::log!("{e}; using the default machine"),
                None => {}
            }
        }
        let mut agents = vec![make(0, None, -1)];
        let chosen = ARCHS.lock().unwrap().clone();
        let archs = rocprof_sim::hw::machine(
            GPUS.load(Ordering::Acquire),
            CONSUMER.load(Ordering::Acquire) == 1,
            chosen.as_deref(),
        );
        for (i, arch) in archs.into_iter().enumerate() {
            agents.push(make(i as u32 + 1, Some(arch), i as i32));
        }
        agents
    })
}

/// GPU agents, in order.
pub fn gpus() -> impl Iterator<Item = &'static Agent> {
    all().iter().copied().filter(|a| a.arch.is_some())
}

/// GPU number `index`.
pub fn gpu(index: u32) -> Option<&'static Agent> {
    gpus().nth(index as usize)
}

/// The host agent.
pub fn cpu() -> &'static Agent {
    all()[0]
}

/// The agent with `handle`.
pub fn by_id(handle: u64) -> Option<&'static Agent> {
    all().iter().copied().find(|a| a.info.id.handle == handle)
}

/// Index of an agent in [`all`], for per-agent tables.
pub fn index_of(agent: &Agent) -> usize {
    all().iter().position(|a| std::ptr::eq(*a, agent)).unwrap_or(0)
}
