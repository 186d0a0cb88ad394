//! PC sampling on NVIDIA: CUPTI's PC Sampling API, continuous, beside activity tracing.
//!
//! - **Per context.** Sampling is switched on and configured in the context's creation
//!   callback (every 2^k cycles, the stall reasons without their `_not_issued` twins, so a
//!   PC's reasons sum to its samples), and off when it is destroyed or the run ends; CUPTI
//!   then writes what it still holds into the context's configured buffer, which is read last.
//! - **Draining.** The flush thread drains every context into a buffer of its own each flush
//!   (`ROCPROF_RS_FLUSH_MS`), and a module load drains its context first, as CUPTI asks: after
//!   a module is unloaded, a PC may name another function.
//! - **Placing.** A PC record names its cubin (by CRC), function and offset, not its launch:
//!   the kernel is found by the function's name among the kernels traced (kernel tracing is
//!   on whenever sampling is), and each new PC is described once ([`describe`]).
//! - **Limits.** CUPTI's PC sampling and its range profiler cannot share a process: counting
//!   wins and sampling is refused with one line. A request CUPTI cannot take
//!   ([`choice::period`]) likewise turns sampling off, and tracing goes on.
//!
//! `functionName` strings belong to the client once returned, but CUPTI may hand the same
//! pointer out again in later calls, so none is freed: they are one per sampled function.

pub mod buffer;
pub mod choice;
pub mod describe;
pub mod disasm;

use std::collections::HashMap;
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use rocprofiler_sdk_sys::cupti::{self as sys, Cupti, PcSamplingApi};

use super::api::load::cupti;
use super::api::{Context, Failed, activity, pc_sampling as api};
use crate::config::Config;
use crate::lifecycle::running;
use crate::pipeline::records::{PcSample, PcSampleNames, Record, Symbol, Tally};
use buffer::Buffer;
use choice::Period;
use describe::{Cubins, Describer, Pc};
use rocprof_rs_format::keys;
use rocprof_rs_format::pc_sample::{ReasonCategory, SampleMethod};

/// PCs one drain takes at once (CUPTI's sample takes 500 to 5000).
const PCS_PER_DRAIN: usize = 4096;
/// PCs the configured buffer holds: what CUPTI writes at a module unload and at the end.
const PCS_CONFIGURED: usize = 8192;
/// PCs held for their kernel's first activity record at most: past it they get a stand-in.
const MAX_PENDING: usize = 1 << 16;
/// Drains of one context per flush at most.
const DRAINS_PER_FLUSH: usize = 64;
/// CUPTI's buffer of decoded PCs between two drains (1 MB, about 5500 PCs with every reason,
/// by default): a full one stops CUPTI decoding the hardware's buffer, which then overflows.
const SCRATCH_BYTES: u64 = 16 << 20;

/// One context's sampling.
struct Sampled {
    context: Context,
    device: u32,
    /// The stall reason indices configured: CUPTI keeps the pointer.
    _indices: Box<[u32]>,
    /// The buffer given at configuration.
    configured: Buffer,
    /// The buffer drains fill.
    drain: Buffer,
}

/// A PC as drained, before it is placed.
struct Drained {
    device: u32,
    crc: u64,
    offset: u64,
    function_index: u32,
    function: Option<CString>,
    reasons: Vec<(u32, u32)>,
}

/// What placing and describing keep.
struct State {
    describer: Describer,
    /// Kernels not (yet) traced, given an id of their own.
    stand_ins: HashMap<Arc<str>, u64>,
    /// Each stall reason index's category.
    categories: HashMap<u32, ReasonCategory>,
    dropped: u64,
    hardware_full: u64,
    /// PCs whose kernel is not traced yet: its record comes with the next activity flush
    /// (samples are drained at module loads too, between flushes).
    pending: Vec<Drained>,
}

impl State {
    fn new(describer: Describer) -> State {
        State {
            describer,
            stand_ins: HashMap::new(),
            categories: HashMap::new(),
            dropped: 0,
            hardware_full: 0,
            pending: Vec::new(),
        }
    }
}

/// The sampler, while sampling is on.
pub(super) struct Sampler {
    period: Period,
    contexts: Mutex<Vec<Sampled>>,
    /// Contexts whose sampling stopped, kept for the life of the process: CUPTI may still
    /// write records it collected late into a configured buffer after sampling is disabled
    /// (its PC sampling sample reads the buffer after `cuptiPCSamplingDisable` for that).
    retired: Mutex<Vec<Sampled>>,
    cubins: Mutex<Cubins>,
    /// Traced kernels' ids by name, as the activity records name them.
    kernel_ids: Mutex<HashMap<Arc<str>, u64>>,
    state: Mutex<State>,
    /// Whether a failure was said: one line per run.
    said: AtomicBool,
}

static SAMPLER: OnceLock<Sampler> = OnceLock::new();

/// Whether PCs are sampled.
pub(super) fn active() -> bool {
    SAMPLER.get().is_some()
}

/// Sets sampling up where `config` asks for it and CUPTI can: returns whether it is on, and
/// says in one line why not where it was asked for.
pub(super) fn set_up(cupti: &Cupti, config: &Config, counting: bool) -> bool {
    let Some(request) = config.pc_sampling else { return false };
    let off = |why: &dyn std::fmt::Display| {
        crate::say!("rocprof-rs: PC sampling is off: {why}; tracing goes on");
        false
    };
    if counting {
        return off(&"CUPTI cannot sample PCs while its range profiler counts (ask for one of the two)");
    }
    if api::api(cupti).is_none() {
        return off(&"this libcupti has no PC Sampling API");
    }
    let period = match choice::period(&request) {
        Ok(period) => period,
        Err(refused) => return off(&refused),
    };
    if !period.changes.is_empty() {
        crate::say!(
            "rocprof-rs: PC sampling every {} {} is sampled every 2^{} = {} cycles ({})",
            request.interval,
            request.unit.label(),
            period.exponent,
            period.cycles(),
            period.changes.join("; ")
        );
    }
    let setting = std::env::var(crate::config::NVDISASM).ok();
    let scratch = config.output_dir.join(format!(".rocprof-rs-cubins-{}", std::process::id()));
    let state = State::new(Describer::new(disasm::Disassembler::find(setting.as_deref(), scratch)));
    let sampler = Sampler {
        period,
        contexts: Mutex::new(Vec::new()),
        retired: Mutex::new(Vec::new()),
        cubins: Mutex::new(Cubins::default()),
        kernel_ids: Mutex::new(HashMap::new()),
        state: Mutex::new(state),
        said: AtomicBool::new(false),
    };
    SAMPLER.set(sampler).is_ok()
}

/// A traced kernel's name and id, for the PCs that name its function.
pub(super) fn kernel_named(name: &Arc<str>, kernel_id: u64) {
    if let Some(s) = SAMPLER.get() {
        s.kernel_ids.lock().entry(name.clone()).or_insert(kernel_id);
    }
}

impl Sampler {
    fn say_once(&self, line: &str) {
        if !self.said.swap(true, Ordering::Relaxed) {
            crate::say!("rocprof-rs: {line}");
        }
    }
}

/// A context was created: sampling starts on it.
pub(super) fn context_created(context: Context) {
    let (Some(s), Some(cupti)) = (SAMPLER.get(), cupti()) else { return };
    let Some(api) = api::api(cupti) else { return };
    match start(cupti, api, &s.period, context) {
        Ok((sampled, reasons)) => {
            let mut state = s.state.lock();
            for (index, name) in &reasons {
                state.categories.insert(*index, ReasonCategory::of_vendor_reason(name));
            }
            drop(state);
            s.contexts.lock().push(sampled);
            send(vec![Record::PcSampleNames(Box::new(PcSampleNames {
                method: SampleMethod::Cupti,
                reasons: reasons.into_iter().map(|(i, n)| (i, n.into_boxed_str())).collect(),
                instruction_types: Vec::new(),
            }))]);
        }
        Err(failed) => s.say_once(&format!("PC sampling is off for a context: {failed}; tracing goes on")),
    }
}

/// Enables and configures sampling on `context`.
fn start(
    cupti: &Cupti,
    api: &PcSamplingApi,
    period: &Period,
    context: Context,
) -> Result<(Sampled, Vec<(u32, String)>), Failed> {
    api::enable(cupti, api, context)?;
    let configured = api::stall_reasons(cupti, api, context).and_then(|reasons| {
        // Room for every reason the device has, not only those selected, as CUPTI's own
        // sample gives: CUPTI may write a PC's reasons past a smaller room.
        let room = reasons.len();
        let selected: Vec<(u32, String)> = reasons.into_iter().filter(|(_, n)| !n.ends_with("_not_issued")).collect();
        let mut indices: Box<[u32]> = selected.iter().map(|(i, _)| *i).collect();
        let mut configured = Buffer::new(PCS_CONFIGURED, room);
        let mut attributes = [
            attribute(sys::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD, [u64::from(period.exponent), 0]),
            attribute(
                sys::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON,
                [indices.len() as u64, indices.as_mut_ptr() as u64],
            ),
            attribute(
                sys::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE,
                [u64::from(sys::CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS), 0],
            ),
            attribute(
                sys::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER,
                [configured.raw() as u64, 0],
            ),
            attribute(sys::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE, [SCRATCH_BYTES, 0]),
        ];
        api::configure(cupti, api, context, &mut attributes)?;
        let device = activity::device_of(cupti, context).unwrap_or(0);
        let drain = Buffer::new(PCS_PER_DRAIN, room);
        Ok((Sampled { context, device, _indices: indices, configured, drain }, selected))
    });
    if configured.is_err() {
        let _ = api::disable(cupti, api, context);
    }
    configured
}

/// One configuration attribute; `data` is the first two words of the header's union.
fn attribute(kind: u32, data: [u64; 2]) -> sys::CUpti_PCSamplingConfigurationInfo {
    sys::CUpti_PCSamplingConfigurationInfo {
        attributeType: kind,
        attributeStatus: 0,
        attributeData: [data[0], data[1], 0],
    }
}

/// A module was loaded into `context`: its cubin is kept, and the context drained first.
pub(super) fn module_loaded(context: Context, module: *const sys::CUpti_ModuleResourceData) {
    let (Some(s), Some(cupti)) = (SAMPLER.get(), cupti()) else { return };
    let Some(api) = api::api(cupti) else { return };
    if !module.is_null() {
        // SAFETY: the MODULE_LOADED callback's resource descriptor, live during the callback.
        let module = unsafe { &*module };
        if !module.pCubin.is_null() && module.cubinSize > 0 && module.cubinSize <= describe::MAX_CUBIN {
            // SAFETY: CUPTI's pointer to the module's cubin of `cubinSize` bytes, live during
            // the callback; copied before it returns.
            let cubin = unsafe { std::slice::from_raw_parts(module.pCubin.cast::<u8>(), module.cubinSize) };
            match api::cubin_crc(cupti, api, cubin) {
                Ok(crc) => {
                    s.cubins.lock().add(crc, cubin);
                }
                Err(_) => s.cubins.lock().skipped += 1,
            }
        } else {
            s.cubins.lock().skipped += 1;
        }
    }
    let mut drained = Vec::new();
    if let Some(sampled) = s.contexts.lock().iter_mut().find(|c| c.context == context) {
        drain(s, cupti, api, sampled, &mut drained);
    }
    place(s, api, drained, false);
}

/// A context is going away: drained, then sampling stops and its configured buffer is read.
pub(super) fn context_destroying(context: Context) {
    let (Some(s), Some(cupti)) = (SAMPLER.get(), cupti()) else { return };
    let Some(api) = api::api(cupti) else { return };
    let mut drained = Vec::new();
    let mut contexts = s.contexts.lock();
    if let Some(at) = contexts.iter().position(|c| c.context == context) {
        let mut sampled = contexts.swap_remove(at);
        drop(contexts);
        stop(s, cupti, api, &mut sampled, &mut drained);
        s.retired.lock().push(sampled);
    } else {
        drop(contexts);
    }
    place(s, api, drained, false);
}

/// Every context drained into the tables: at every flush.
pub(super) fn collect() {
    let (Some(s), Some(cupti)) = (SAMPLER.get(), cupti()) else { return };
    let Some(api) = api::api(cupti) else { return };
    let mut drained = Vec::new();
    for sampled in s.contexts.lock().iter_mut() {
        drain(s, cupti, api, sampled, &mut drained);
    }
    place(s, api, drained, false);
}

/// At the end of the run: sampling stops on every context, and all it held is placed.
pub(super) fn finish() {
    let (Some(s), Some(cupti)) = (SAMPLER.get(), cupti()) else { return };
    let Some(api) = api::api(cupti) else { return };
    let mut drained = Vec::new();
    let contexts: Vec<Sampled> = std::mem::take(&mut *s.contexts.lock());
    for mut sampled in contexts {
        stop(s, cupti, api, &mut sampled, &mut drained);
        s.retired.lock().push(sampled);
    }
    place(s, api, drained, true);
    let skipped = s.cubins.lock().skipped;
    if skipped > 0 {
        crate::say!(
            "rocprof-rs: {skipped} modules' cubins were not kept (empty, unreadable, or past {} MiB in all): their sampled PCs have no instruction text or source line",
            describe::MAX_CUBIN_BYTES >> 20
        );
    }
    let state = s.state.lock();
    state.describer.clean();
    if state.hardware_full > 0 {
        crate::say!(
            "rocprof-rs: CUPTI's PC sampling hardware buffer filled {} times: samples were lost (sample less often)",
            state.hardware_full
        );
    }
}

fn stop(s: &Sampler, cupti: &Cupti, api: &PcSamplingApi, sampled: &mut Sampled, into: &mut Vec<Drained>) {
    drain(s, cupti, api, sampled, into);
    sampled.configured.reset();
    if let Err(failed) = api::disable(cupti, api, sampled.context) {
        s.say_once(&format!("PC samples at the end may be lost: {failed}"));
        return;
    }
    read(s, &sampled.configured, sampled.device, into);
}

/// Moves what CUPTI holds for one context into `into`.
fn drain(s: &Sampler, cupti: &Cupti, api: &PcSamplingApi, sampled: &mut Sampled, into: &mut Vec<Drained>) {
    for _ in 0..DRAINS_PER_FLUSH {
        sampled.drain.reset();
        // SAFETY: the context's drain buffer, made with room for its PCs and reasons.
        let got = unsafe { api::get_data(cupti, api, sampled.context, sampled.drain.raw()) };
        match got {
            Ok(()) => {}
            Err(failed) if failed.result == sys::CUPTI_ERROR_OUT_OF_MEMORY => s.state.lock().hardware_full += 1,
            Err(failed) => {
                s.say_once(&format!("PC samples could not be read: {failed}"));
                return;
            }
        }
        read(s, &sampled.drain, sampled.device, into);
        let header = sampled.drain.header();
        if header.totalNumPcs == 0 || header.remainingNumPcs == 0 {
            return;
        }
    }
}

fn read(s: &Sampler, buffer: &Buffer, device: u32, into: &mut Vec<Drained>) {
    s.state.lock().dropped += buffer.header().droppedSamples;
    into.extend(buffer.records().map(|r| Drained {
        device,
        crc: r.cubin_crc,
        offset: r.pc_offset,
        function_index: r.function_index,
        function: r.function.map(CString::from),
        reasons: r.reasons,
    }));
}

/// Drained PCs as samples of their kernels, and each new PC's description.
fn place(s: &Sampler, api: &PcSamplingApi, drained: Vec<Drained>, last: bool) {
    let mut records = Vec::new();
    let mut state = s.state.lock();
    if drained.is_empty() && state.pending.is_empty() {
        return;
    }
    let kernel_ids = s.kernel_ids.lock().clone();
    let cubins = &s.cubins;
    let mut todo = std::mem::take(&mut state.pending);
    todo.extend(drained);
    for pc in todo {
        let name: Arc<str> = match &pc.function {
            Some(f) => Arc::from(f.to_string_lossy().as_ref()),
            None => Arc::from("<unknown function>"),
        };
        let Some(kernel_id) = kernel_of(&mut state, &kernel_ids, &name, last, &mut records) else {
            state.pending.push(pc);
            continue;
        };
        for &(reason, samples) in &pc.reasons {
            // Only the reasons asked for: a `_not_issued` twin would count its samples twice.
            let Some(&category) = state.categories.get(&reason) else { continue };
            records.push(Record::PcSample(PcSample {
                agent_id: u64::from(pc.device),
                dispatch_id: 0,
                correlation_id: 0,
                kernel_id,
                code_object_id: pc.crc,
                pc_offset: pc.offset,
                reason: Some(reason),
                instruction_type: None,
                category,
                method: SampleMethod::Cupti,
                samples,
            }));
        }
        let Some(function) = pc.function.as_deref() else { continue };
        let at = Pc { kernel_id, crc: pc.crc, function_index: pc.function_index, function, offset: pc.offset };
        if state.describer.is_new(&at) {
            let cubin = cubins.lock().get(pc.crc);
            if let Some(instruction) = state.describer.describe(api, &at, cubin.as_ref()) {
                records.push(Record::PcInstruction(Box::new(instruction)));
            }
        }
    }
    records.push(Record::Tally(Tally { key: keys::PC_SAMPLES_DROPPED, count: state.dropped }));
    drop(state);
    send(records);
}

/// The kernel a PC of `function` is in: the traced kernel of that name; where none is traced
/// yet, `None` (the PC waits for the next placing, which comes after the next activity flush)
/// or, at the `last` placing or when too many wait, an id of its own.
fn kernel_of(
    state: &mut State,
    kernel_ids: &HashMap<Arc<str>, u64>,
    function: &Arc<str>,
    last: bool,
    records: &mut Vec<Record>,
) -> Option<u64> {
    if let Some(id) = kernel_ids.get(function) {
        return Some(*id);
    }
    if !last && state.pending.len() < MAX_PENDING {
        return None;
    }
    Some(stand_in(state, function, records))
}

/// An id for a kernel sampled but never traced, told to the writer once.
fn stand_in(state: &mut State, name: &Arc<str>, records: &mut Vec<Record>) -> u64 {
    if let Some(id) = state.stand_ins.get(name) {
        return *id;
    }
    // Never a traced kernel's id, which is an address CUPTI's strings live at.
    let id = (1 << 63) | (state.stand_ins.len() as u64 + 1);
    state.stand_ins.insert(name.clone(), id);
    records.push(Record::Symbol(Box::new(Symbol::named(id, name.clone()))));
    id
}

fn send(records: Vec<Record>) {
    let Some(tool) = running() else { return };
    let queue = tool.queue();
    let mut batch = queue.batch();
    for record in records {
        queue.push(&mut batch, record);
    }
    queue.send(batch);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stand_in_ids_are_stable_per_name_and_never_an_address() {
        let mut state = State::new(Describer::new(None));
        let mut records = Vec::new();
        let a = stand_in(&mut state, &Arc::from("a"), &mut records);
        let b = stand_in(&mut state, &Arc::from("b"), &mut records);
        assert_eq!(stand_in(&mut state, &Arc::from("a"), &mut records), a);
        assert_ne!(a, b);
        assert!(a >> 63 == 1 && b >> 63 == 1);
        assert_eq!(records.len(), 2);
    }

    #[test]
    fn a_pc_waits_for_its_kernels_record_until_the_last_placing() {
        let mut state = State::new(Describer::new(None));
        let traced: HashMap<Arc<str>, u64> = [(Arc::from("traced"), 0x5000)].into();
        let mut records = Vec::new();
        assert_eq!(kernel_of(&mut state, &traced, &Arc::from("traced"), false, &mut records), Some(0x5000));
        assert_eq!(kernel_of(&mut state, &traced, &Arc::from("later"), false, &mut records), None);
        assert!(records.is_empty());
        let stand_in = kernel_of(&mut state, &traced, &Arc::from("later"), true, &mut records).unwrap();
        assert_eq!(stand_in >> 63, 1);
        assert!(matches!(&records[..], [Record::Symbol(s)] if &*s.mangled == "later"));
    }
}
