//! Per-dispatch hardware counters through the SDK's dispatch counting service.
//!
//! During initialize, each GPU agent's requested counters are packed into groups that each fit
//! one hardware pass (a counter config per group). Then, on the application's thread at every
//! dispatch, [`on_dispatch`] picks the group: successive dispatches of one kernel with one
//! grid shape take the groups in turn, so a set of any size is collected in one run. The group
//! travels with the records in the SDK's `user_data`, so every value says which pass it came
//! from.
//!
//! The dispatch callback must not block or allocate: the kernel filters and the rotation
//! counters live in fixed-size tables of atomics, filled once per kernel by the code-object
//! callback.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use rocprofiler_sdk_sys as sys;
use sys::sdk::SdkApi;

use super::catalog::{self, AgentInfo};
use super::sdk::calls;
use super::sdk::handles::{AgentId, BufferId, ContextId, CounterConfigId, CounterId};
use crate::config::Config;
use crate::counters::PassMode;
use crate::counters::plan::{self, Group, Offer, Refusal};
use crate::error::{Error, Result, Status};
use crate::lifecycle::{running, trampoline};
use crate::pipeline::queue::{Batch, Queue};
use crate::pipeline::records::{CounterDispatch, CounterValue, Record};
use crate::pipeline::run::CounterNames;

/// One agent's groups, as the dispatch callback uses them.
#[derive(Debug)]
struct AgentGroups {
    agent: u64,
    /// Config handles, indexed by group number.
    configs: Vec<u64>,
    /// The first group number in `configs` (non-zero when one application pass is taken).
    first: usize,
}

#[derive(Debug)]
struct Dispatcher {
    agents: Vec<AgentGroups>,
    gate: Option<Gate>,
}

static DISPATCHER: OnceLock<Dispatcher> = OnceLock::new();

/// Sets counting up on `context`, writing into `buffer`. Prints one line per thing the user
/// should know (an agent without counters, a counter some agents lack). Returns `None` when no
/// agent collects anything.
pub fn setup(api: &SdkApi, config: &Config, context: ContextId, buffer: BufferId) -> Result<Option<CounterNames>> {
    let Some(request) = &config.counters else { return Ok(None) };
    let gpus: Vec<AgentInfo> = catalog::agents(api, crate::lifecycle::disable)?.into_iter().filter(|a| a.gpu).collect();
    let offers: Vec<Offer<'_>> = gpus
        .iter()
        .map(|a| Offer {
            label: a.label(),
            counters: a.counters.as_ref().map(|_| a.counter_names()).map_err(Clone::clone),
        })
        .collect();
    let choice = plan::choose(&request.selection, &offers)?;
    for note in &choice.notes {
        crate::say!("rocprof-rs: {note}");
    }
    let mut names = CounterNames::default();
    let mut agents = Vec::new();
    let mut plan_entries = Vec::new();
    for (agent, passes) in gpus.iter().zip(&choice.passes) {
        if passes.is_empty() {
            continue;
        }
        let ids: HashMap<&str, u64> =
            agent.counters.as_ref().map(|c| c.iter().map(|c| (c.name.as_str(), c.id)).collect()).unwrap_or_default();
        let passes: Vec<Vec<Named>> =
            passes.iter().map(|p| p.iter().map(|n| Named { id: ids[n.as_str()], name: n.clone() }).collect()).collect();
        let groups = pack(api, agent.id, &passes).map_err(|e| Error::Counters(format!("{}: {e}", agent.label())))?;
        for group in &groups {
            for c in &group.counters {
                names.names.insert((agent.id, c.id), c.name.as_str().into());
            }
        }
        plan_entries.push(format!(
            "{}:[{}]",
            json_string(&agent.label()),
            groups
                .iter()
                .map(|g| format!("[{}]", g.counters.iter().map(|c| json_string(&c.name)).collect::<Vec<_>>().join(",")))
                .collect::<Vec<_>>()
                .join(",")
        ));
        names.passes = names.passes.max(groups.len());
        let configs: Vec<u64> = groups.iter().map(|g| g.config).collect();
        let (configs, first) = match request.mode {
            PassMode::Rotate => (configs, 0),
            PassMode::Application => (configs.get(request.pass).map(|c| vec![*c]).unwrap_or_default(), request.pass),
        };
        agents.push(AgentGroups { agent: agent.id, configs, first });
    }
    names.plan_json = format!("{{{}}}", plan_entries.join(","));
    if agents.iter().all(|a| a.configs.is_empty()) {
        return Ok(Some(names).filter(|n| n.passes > 0));
    }
    let gate =
        (config.kernel_include.is_some() || config.kernel_exclude.is_some() || !config.kernel_iterations.is_all())
            .then(Gate::new);
    let _ = DISPATCHER.set(Dispatcher { agents, gate });
    // Built here, not on the first dispatch: the dispatch callback must not allocate.
    let _ = rotation();
    // SAFETY: `on_dispatch` has the SDK's signature, cannot unwind, and takes no data.
    unsafe {
        calls::configure_buffer_dispatch_counting_service(
            api,
            context,
            buffer,
            Some(on_dispatch),
            std::ptr::null_mut(),
        )?;
    }
    Ok(Some(names))
}

/// A counter with its SDK id, as packing handles it.
#[derive(Debug, Clone)]
struct Named {
    id: u64,
    name: String,
}

impl std::fmt::Display for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// Packs an agent's passes into configs, asking the SDK which sets fit.
fn pack(api: &SdkApi, agent: u64, passes: &[Vec<Named>]) -> Result<Vec<Group<Named>>> {
    let fits = |set: &[Named]| {
        let ids: Vec<CounterId> = set.iter().map(|c| CounterId::from_raw(c.id)).collect();
        match calls::create_counter_config(api, AgentId::from_raw(agent), &ids) {
            Ok(config) => Ok(config.raw()),
            Err(Error::Sdk { status: Status::ExceedsHwLimit, .. }) => Err(Refusal::TooLarge),
            Err(Error::Sdk { status, .. }) => Err(Refusal::Other(status.to_string())),
            Err(other) => Err(Refusal::Other(other.to_string())),
        }
    };
    let release = |config: u64| {
        let _ = calls::destroy_counter_config(api, CounterConfigId::from_raw(config));
    };
    plan::pack(passes, fits, release)
}

fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// The SDK's dispatch callback: chooses the config (the group) for this dispatch, or none.
extern "C" fn on_dispatch(
    data: sys::rocprofiler_dispatch_counting_service_data_t,
    config: *mut sys::rocprofiler_counter_config_id_t,
    user_data: *mut sys::rocprofiler_user_data_t,
    _callback_data: *mut std::ffi::c_void,
) {
    trampoline("the counter dispatch callback", (), || {
        if running().is_none() || config.is_null() {
            return;
        }
        let Some(dispatcher) = DISPATCHER.get() else { return };
        let info = &data.dispatch_info;
        let Some(agent) = dispatcher.agents.iter().find(|a| a.agent == info.agent_id.handle) else { return };
        if agent.configs.is_empty() || dispatcher.gate.as_ref().is_some_and(|g| !g.admit(info.kernel_id)) {
            return;
        }
        let grid = [info.grid_size.x, info.grid_size.y, info.grid_size.z];
        let turn = if agent.configs.len() == 1 { 0 } else { rotation().next(info.kernel_id, grid) };
        let index = (turn % agent.configs.len() as u64) as usize;
        // SAFETY: the SDK's output slot for this dispatch's config, checked non-null above.
        unsafe { config.write(sys::rocprofiler_counter_config_id_t { handle: agent.configs[index] }) };
        if !user_data.is_null() {
            // SAFETY: the SDK's per-dispatch user data, which its records carry back to us.
            unsafe { user_data.write(sys::rocprofiler_user_data_t { value: (agent.first + index) as u64 }) };
        }
    })
}

/// Per (kernel, grid shape), how many of its dispatches have been counted: fixed-size, lock-free,
/// shared by every application thread.
struct Rotation {
    keys: Box<[AtomicU64]>,
    turns: Box<[AtomicU64]>,
    /// For keys that found no slot (more shapes than the table holds): still rotates.
    overflow: AtomicU64,
}

const ROTATION_SLOTS: usize = 1 << 14;
const PROBES: usize = 32;

fn rotation() -> &'static Rotation {
    static ROTATION: OnceLock<Rotation> = OnceLock::new();
    ROTATION.get_or_init(|| Rotation {
        keys: (0..ROTATION_SLOTS).map(|_| AtomicU64::new(0)).collect(),
        turns: (0..ROTATION_SLOTS).map(|_| AtomicU64::new(0)).collect(),
        overflow: AtomicU64::new(0),
    })
}

impl Rotation {
    /// The turn of this dispatch of `kernel_id` with `grid`: how many dispatches of that shape
    /// came before, plus where the shape started. Each new shape of a kernel starts one group
    /// further on, so a kernel launched with ever-new shapes still cycles through every group.
    fn next(&self, kernel_id: u64, grid: [u32; 3]) -> u64 {
        let (slot, inserted) = self.slot(kernel_id, grid);
        let Some(slot) = slot else { return self.overflow.fetch_add(1, Ordering::Relaxed) };
        if inserted {
            // Shapes seen so far for this kernel, kept under the grid no dispatch has.
            let start = match self.slot(kernel_id, [0, 0, 0]).0 {
                Some(shapes) => self.turns[shapes].fetch_add(1, Ordering::Relaxed),
                None => 0,
            };
            return self.turns[slot].fetch_add(start + 1, Ordering::Relaxed) + start;
        }
        self.turns[slot].fetch_add(1, Ordering::Relaxed)
    }

    /// The slot of (kernel, grid), and whether this call claimed it.
    fn slot(&self, kernel_id: u64, grid: [u32; 3]) -> (Option<usize>, bool) {
        let key =
            mix(kernel_id ^ mix(u64::from(grid[0]) | u64::from(grid[1]) << 32) ^ u64::from(grid[2]).rotate_left(17))
                | 1;
        let start = (key >> 7) as usize;
        for probe in 0..PROBES {
            let slot = (start + probe) & (ROTATION_SLOTS - 1);
            match self.keys[slot].compare_exchange(0, key, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return (Some(slot), true),
                Err(found) if found == key => return (Some(slot), false),
                Err(_) => {}
            }
        }
        (None, false)
    }
}

fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The kernel filters and iteration range as the dispatch callback applies them: per kernel id
/// (filled by the code-object callback), whether its name passes the filters and which name it
/// counts iterations under. Iterations count in submission order, per display name.
struct Gate {
    kernels: Box<[AtomicU64]>,
    /// Packed `selected << 63 | name slot << 32 | 1`, 0 for an empty slot.
    facts: Box<[AtomicU64]>,
    iterations: Box<[AtomicU64]>,
    /// Set once a kernel found no slot.
    overflowed: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Gate")
    }
}

impl std::fmt::Debug for Rotation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Rotation")
    }
}

/// Kernel symbols the filters can tell apart (a process registers each kernel once per GPU and
/// code object; a large application with eight GPUs registers tens of thousands).
const KERNEL_SLOTS: usize = 1 << 17;

impl Gate {
    fn new() -> Gate {
        Gate {
            kernels: (0..KERNEL_SLOTS).map(|_| AtomicU64::new(0)).collect(),
            facts: (0..KERNEL_SLOTS).map(|_| AtomicU64::new(0)).collect(),
            iterations: (0..KERNEL_SLOTS).map(|_| AtomicU64::new(0)).collect(),
            overflowed: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn slot(&self, kernel_id: u64, insert: bool) -> Option<usize> {
        let start = mix(kernel_id) as usize;
        for probe in 0..PROBES {
            let slot = (start + probe) & (KERNEL_SLOTS - 1);
            let found = self.kernels[slot].load(Ordering::Acquire);
            if found == kernel_id {
                return Some(slot);
            }
            if found == 0 {
                if !insert {
                    return None;
                }
                match self.kernels[slot].compare_exchange(0, kernel_id, Ordering::AcqRel, Ordering::Acquire) {
                    Ok(_) => return Some(slot),
                    Err(other) if other == kernel_id => return Some(slot),
                    Err(_) => {}
                }
            }
        }
        None
    }

    /// Whether this dispatch of `kernel_id` is counted: its name passes the filters, and this
    /// is an iteration in the range. A kernel the code-object callback never announced is
    /// counted unless an include filter is set.
    fn admit(&self, kernel_id: u64) -> bool {
        let config = &crate::lifecycle::installed().expect("the tool runs").config;
        let Some(slot) = self.slot(kernel_id, false) else {
            // Never announced, or beyond the table (warned once): the filters cannot be told,
            // so it is counted only when no filter asks anything of its name.
            return !self.overflowed.load(Ordering::Relaxed)
                && config.kernel_include.is_none()
                && config.kernel_exclude.is_none()
                && config.kernel_iterations.is_all();
        };
        let facts = self.facts[slot].load(Ordering::Acquire);
        if facts >> 63 == 0 {
            return false;
        }
        if config.kernel_iterations.is_all() {
            return true;
        }
        let name_slot = ((facts >> 32) & 0x7fff_ffff) as usize;
        let Some(iterations) = self.iterations.get(name_slot) else { return false };
        let n = iterations.fetch_add(1, Ordering::Relaxed) + 1;
        config.kernel_iterations.contains(n)
    }
}

/// Tells the gate about a kernel symbol (from the code-object callback, which is rare and may
/// take a lock): whether its display name passes the filters, and its name's iteration slot.
pub(super) fn register_kernel(config: &Config, kernel_id: u64, mangled: &str) {
    let Some(gate) = DISPATCHER.get().and_then(|d| d.gate.as_ref()) else { return };
    static NAME_SLOTS: parking_lot::Mutex<Option<HashMap<String, u32>>> = parking_lot::Mutex::new(None);
    let name = rocprof_rs_format::kernel_names::display_name(mangled, config.demangle, config.truncate_kernels);
    let selected = config.kernel_include.as_ref().is_none_or(|re| re.is_match(&name))
        && !config.kernel_exclude.as_ref().is_some_and(|re| re.is_match(&name));
    let name_slot = {
        let mut slots = NAME_SLOTS.lock();
        let slots = slots.get_or_insert_with(HashMap::new);
        let next = slots.len() as u32;
        *slots.entry(name).or_insert(next)
    };
    match gate.slot(kernel_id, true) {
        Some(slot) if (name_slot as usize) < KERNEL_SLOTS => {
            gate.facts[slot].store(u64::from(selected) << 63 | u64::from(name_slot) << 32 | 1, Ordering::Release);
        }
        _ => {
            if !gate.overflowed.swap(true, Ordering::Relaxed) {
                crate::say!(
                    "rocprof-rs: more than {KERNEL_SLOTS} kernels: counters are not collected for kernels beyond that while kernel filters or an iteration range are set"
                );
            }
        }
    }
}

/// Sums of consecutive value records of one counter of one dispatch, as the buffer callback
/// meets them, so a dispatch's hundreds of instance values reach the writer as a few records.
#[derive(Debug, Default)]
pub(super) struct Accumulator {
    current: Option<CounterValue>,
}

impl Accumulator {
    /// Takes one buffer record of the counters category.
    ///
    /// # Safety
    /// `header` must be a live record header of the current buffer callback.
    pub(super) unsafe fn take(
        &mut self,
        api: &SdkApi,
        per_instance: bool,
        header: &sys::rocprofiler_record_header_t,
        kind: u32,
        queue: &Queue,
        batch: &mut Batch,
    ) {
        let p = header.payload;
        match kind {
            sys::ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER => {
                self.flush(queue, batch);
                // SAFETY: the kind names the payload type, live for the callback.
                let r = unsafe { &*p.cast::<sys::rocprofiler_dispatch_counting_service_record_t>() };
                queue.push(
                    batch,
                    Record::CounterDispatch(CounterDispatch {
                        dispatch_id: r.dispatch_info.dispatch_id,
                        agent_id: r.dispatch_info.agent_id.handle,
                        kernel_id: r.dispatch_info.kernel_id,
                        correlation_id: r.correlation_id.internal,
                        records: r.num_records,
                        join: None,
                        site: 0,
                        shape: 0,
                        site_launches: 0,
                    }),
                );
            }
            sys::ROCPROFILER_COUNTER_RECORD_VALUE => {
                // SAFETY: as above.
                let r = unsafe { &*p.cast::<sys::rocprofiler_counter_record_t>() };
                let Ok(counter) = calls::record_counter_id(api, r.id) else { return };
                // SAFETY: the group number is what `on_dispatch` stored.
                let group = unsafe { r.user_data.value } as u32;
                let value = CounterValue {
                    dispatch_id: r.dispatch_id,
                    agent_id: r.agent_id.handle,
                    counter_id: counter.raw(),
                    value: r.counter_value,
                    instances: 1,
                    group,
                    instance: None,
                };
                if per_instance {
                    self.push_instance(value, queue, batch);
                    return;
                }
                match &mut self.current {
                    Some(c) if c.dispatch_id == value.dispatch_id && c.counter_id == value.counter_id => {
                        c.value += value.value;
                        c.instances += 1;
                    }
                    _ => {
                        self.flush(queue, batch);
                        self.current = Some(value);
                    }
                }
            }
            _ => {}
        }
    }

    /// One instance's value as its own row; the writer numbers the instances.
    fn push_instance(&mut self, mut value: CounterValue, queue: &Queue, batch: &mut Batch) {
        self.flush(queue, batch);
        value.instance = Some(0);
        queue.push(batch, Record::CounterValue(value));
    }

    /// Hands over the sum being built, if any.
    pub(super) fn flush(&mut self, queue: &Queue, batch: &mut Batch) {
        if let Some(value) = self.current.take()
            && value.instance.is_none()
        {
            queue.push(batch, Record::CounterValue(value));
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_shape_rotates_and_new_shapes_start_further_on() {
        let rotation = super::rotation();
        let kernel = 0xfeed_0001;
        let first: Vec<u64> = (0..3).map(|_| rotation.next(kernel, [64, 1, 1])).collect();
        assert_eq!(first, [0, 1, 2]);
        assert_eq!(rotation.next(kernel, [128, 1, 1]), 1, "a second shape starts one group on");
        assert_eq!(rotation.next(kernel, [256, 1, 1]), 2);
        assert_eq!(rotation.next(kernel, [128, 1, 1]), 2);
        assert_eq!(rotation.next(kernel, [64, 1, 1]), 3);
        assert_eq!(rotation.next(0xfeed_0002, [64, 1, 1]), 0, "another kernel has its own turns");
    }
}
