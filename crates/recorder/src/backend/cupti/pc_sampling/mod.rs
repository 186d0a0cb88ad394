//! PC sampling on NVIDIA: CUPTI's PC Sampling API, continuous, beside activity tracing.
//!
//! - **Per context.** Sampling is switched on and configured in the context's creation
//!   callback (every 2^k cycles, the stall reasons without their `_not_issued` twins, so a
//!   PC's reasons sum to its samples), and off when it is destroyed or the run ends; CUPTI
//!   then writes what it still holds into the context's configured buffer, which is read last
//!   ([`drain`]).
//! - **Draining.** The flush thread drains every context each flush (`ROCPROF_RS_FLUSH_MS`),
//!   and a module load drains its context first, as CUPTI asks: after a module is unloaded, a
//!   PC may name another function. A thread in a driver callback never waits long for a
//!   context another thread is draining.
//! - **Placing.** A PC record names its cubin (by CRC), function and offset, not its launch:
//!   the kernel is found by the function's name among the kernels traced (kernel tracing is on
//!   whenever sampling is; [`place`]).
//! - **Describing.** Each new PC's instruction text and source line ([`describe`]) are looked
//!   up on the flush thread alone (2 s a flush at most, the rest left for the next), with no
//!   lock held that an application thread could wait for, and at the end of the run within
//!   5 s: nvdisasm never runs inside a driver callback, and an exit on SIGINT or SIGTERM
//!   (20 s) is never cut short by it. A PC drained before its kernel's activity record waits
//!   10 s for it at most (a device function's never comes), then takes an id of its own.
//! - **Limits.** CUPTI's PC sampling and its range profiler cannot share a process: counting
//!   wins and sampling is refused with one line. A request CUPTI cannot take
//!   ([`choice::period`]) likewise turns sampling off, and tracing goes on.
//!
//! `functionName` strings belong to the client once returned, but CUPTI may hand the same
//! pointer out again in later calls, so none is freed: they are one per sampled function.

pub mod buffer;
pub mod choice;
pub mod cubin;
pub mod describe;
pub mod disasm;
mod drain;
mod place;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use rocprofiler_sdk_sys::cupti::{self as sys, Cupti, PcSamplingApi};

use super::api::load::cupti;
use super::api::{Context, pc_sampling as api};
use crate::config::Config;
use crate::lifecycle::running;
use crate::pipeline::records::{PcSampleNames, Record, Tally};
use choice::Period;
use describe::{Cubins, Describer, OutOfTime, Pc};
use drain::Sampled;
use place::{Placing, State};
use rocprof_rs_format::keys;
use rocprof_rs_format::pc_sample::{ReasonCategory, SampleMethod};

/// How long a thread inside a driver callback waits for a context another thread is
/// draining: it may be the very thread the drain waits for.
const CALLBACK_WAIT: Duration = Duration::from_millis(20);
/// How long the end of the run may spend describing the PCs not yet described: well within
/// the 20 s a SIGINT or SIGTERM gives the run to end before it is cut short.
const DESCRIBE_AT_EXIT: Duration = Duration::from_secs(5);
/// How long one flush may spend describing: the flush thread's next flush waits for it, and
/// so does the end of the run, which joins the thread.
const DESCRIBE_PER_FLUSH: Duration = Duration::from_secs(2);

/// The sampler, while sampling is on.
pub(super) struct Sampler {
    period: Period,
    contexts: Mutex<Vec<Sampled>>,
    /// Contexts destroyed while another thread held `contexts`: whoever holds it next drops
    /// them before any call to CUPTI, which must never name a destroyed context.
    destroyed: Mutex<Vec<Context>>,
    /// Contexts whose sampling CUPTI would not stop: their buffers stay, as CUPTI may write
    /// into them still.
    retired: Mutex<Vec<Sampled>>,
    cubins: Mutex<Cubins>,
    /// Traced kernels' ids by name, as the activity records name them.
    kernel_ids: Mutex<HashMap<Arc<str>, u64>>,
    state: Mutex<State>,
    /// Locked by the flush thread and the end of the run alone.
    describer: Mutex<Describer>,
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
    let sampler = Sampler {
        period,
        contexts: Mutex::new(Vec::new()),
        destroyed: Mutex::new(Vec::new()),
        retired: Mutex::new(Vec::new()),
        cubins: Mutex::new(Cubins::default()),
        kernel_ids: Mutex::new(HashMap::new()),
        state: Mutex::new(State::default()),
        describer: Mutex::new(Describer::new(disasm::Disassembler::find(setting.as_deref()))),
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
    match drain::start(cupti, api, &s.period, context) {
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
        Err(not_started) => {
            let drain::NotStarted { failed, kept } = *not_started;
            if let Some(kept) = kept {
                s.retired.lock().push(*kept);
            }
            s.say_once(&format!("PC sampling is off for a context: {failed}; tracing goes on"));
        }
    }
}

/// A module was loaded into `context`: its cubin is kept, and the context drained first.
pub(super) fn module_loaded(context: Context, module: *const sys::CUpti_ModuleResourceData) {
    let (Some(s), Some(cupti)) = (SAMPLER.get(), cupti()) else { return };
    let Some(api) = api::api(cupti) else { return };
    keep_cubin(s, cupti, api, module);
    let mut drained = Vec::new();
    if let Some(mut contexts) = s.contexts.try_lock_for(CALLBACK_WAIT) {
        forget_destroyed(s, &mut contexts);
        if let Some(sampled) = contexts.iter_mut().find(|c| c.context == context) {
            drain::drain(s, cupti, api, sampled, &mut drained);
        }
    }
    place::place(s, drained, Placing::Running);
}

fn keep_cubin(s: &Sampler, cupti: &Cupti, api: &PcSamplingApi, module: *const sys::CUpti_ModuleResourceData) {
    if module.is_null() {
        return;
    }
    // SAFETY: the MODULE_LOADED callback's resource descriptor, live during the callback.
    let module = unsafe { &*module };
    if module.pCubin.is_null() || !s.cubins.lock().has_room(module.cubinSize) {
        s.cubins.lock().skipped += 1;
        return;
    }
    // SAFETY: CUPTI's pointer to the module's cubin of `cubinSize` bytes, live during the
    // callback; copied before it returns.
    let cubin = unsafe { std::slice::from_raw_parts(module.pCubin.cast::<u8>(), module.cubinSize) };
    match api::cubin_crc(cupti, api, cubin) {
        Ok(crc) => {
            s.cubins.lock().add(crc, cubin);
        }
        Err(_) => s.cubins.lock().skipped += 1,
    }
}

/// A context is going away: drained, then sampling stops and its configured buffer is read.
pub(super) fn context_destroying(context: Context) {
    let (Some(s), Some(cupti)) = (SAMPLER.get(), cupti()) else { return };
    let Some(api) = api::api(cupti) else { return };
    let mut drained = Vec::new();
    let Some(mut contexts) = s.contexts.try_lock_for(Duration::from_secs(1)) else {
        s.destroyed.lock().push(context);
        s.say_once("PC samples of a context being destroyed were not read (another thread held it)");
        return;
    };
    forget_destroyed(s, &mut contexts);
    if let Some(at) = contexts.iter().position(|c| c.context == context) {
        let sampled = contexts.swap_remove(at);
        drop(contexts);
        stop(s, cupti, api, sampled, &mut drained);
    }
    // The caller flushed the activity buffers first.
    place::place(s, drained, Placing::Running);
}

/// Every context drained into the tables: after every flush of the activity buffers. A
/// context another thread is draining is left to it.
pub(super) fn collect() {
    let (Some(s), Some(cupti)) = (SAMPLER.get(), cupti()) else { return };
    let Some(api) = api::api(cupti) else { return };
    let mut drained = Vec::new();
    if let Some(mut contexts) = s.contexts.try_lock() {
        forget_destroyed(s, &mut contexts);
        for sampled in contexts.iter_mut() {
            drain::drain(s, cupti, api, sampled, &mut drained);
        }
    }
    place::place(s, drained, Placing::Running);
}

/// At the end of the run, while the contexts' destruction callbacks are still on: sampling
/// stops on every context, and all it held is placed.
pub(super) fn finish() {
    let (Some(s), Some(cupti)) = (SAMPLER.get(), cupti()) else { return };
    let Some(api) = api::api(cupti) else { return };
    let mut drained = Vec::new();
    {
        // Held throughout, so a context cannot be destroyed under a stop.
        let mut contexts = s.contexts.lock();
        forget_destroyed(s, &mut contexts);
        while let Some(sampled) = contexts.pop() {
            forget_destroyed(s, &mut contexts);
            stop(s, cupti, api, sampled, &mut drained);
        }
    }
    // Their kernels' last records come with the final flush: [`describe_at_exit`] places what
    // still waits after it.
    place::place(s, drained, Placing::Running);
    let skipped = s.cubins.lock().skipped;
    if skipped > 0 {
        crate::say!(
            "rocprof-rs: {skipped} modules' cubins were not kept (empty, unreadable, or past {} MiB in all): their sampled PCs have no instruction text or source line",
            describe::MAX_CUBIN_BYTES >> 20
        );
    }
    let full = s.state.lock().hardware_full;
    if full > 0 {
        crate::say!(
            "rocprof-rs: CUPTI reported its PC sampling hardware buffer full {full} times: samples were lost (sample less often)"
        );
    }
}

/// Drops the contexts destroyed while another thread held `contexts`, whose guard the caller
/// holds: their buffers are kept, as CUPTI may have written into them to the end.
fn forget_destroyed(s: &Sampler, contexts: &mut Vec<Sampled>) {
    let destroyed = std::mem::take(&mut *s.destroyed.lock());
    for context in destroyed {
        if let Some(at) = contexts.iter().position(|c| c.context == context) {
            s.retired.lock().push(contexts.swap_remove(at));
        }
    }
}

/// Stops sampling on one context; keeps its buffers where CUPTI would not stop.
fn stop(s: &Sampler, cupti: &Cupti, api: &PcSamplingApi, sampled: Sampled, into: &mut Vec<drain::Drained>) {
    if let Some(kept) = drain::stop(s, cupti, api, sampled, into) {
        s.retired.lock().push(kept);
    }
}

/// Describes the PCs placed since the last call for at most `budget`, and tells the writer the
/// samples lost: on the flush thread after each flush, where what the budget leaves waits for
/// the next, and at the end of the run (`at_exit`), where it is left undescribed.
pub(super) fn describe_queued(budget: Duration, at_exit: bool) {
    let (Some(s), Some(cupti)) = (SAMPLER.get(), cupti()) else { return };
    let Some(api) = api::api(cupti) else { return };
    let (mut queued, dropped) = {
        let mut state = s.state.lock();
        (std::mem::take(&mut state.queued), state.dropped)
    };
    let until = Instant::now() + budget;
    let mut records: Vec<Record> = Vec::new();
    let mut describer = s.describer.lock();
    let mut done = 0;
    for q in &queued {
        if Instant::now() > until {
            break;
        }
        let pc = Pc {
            kernel_id: q.kernel_id,
            crc: q.crc,
            function_index: q.function_index,
            function: q.function.as_c_str(),
            offset: q.offset,
        };
        let cubin = s.cubins.lock().get(q.crc);
        match describer.describe(api, &pc, cubin.as_ref(), until) {
            Ok(described) => records.extend(described.map(|i| Record::PcInstruction(Box::new(i)))),
            Err(OutOfTime) => break,
        }
        done += 1;
    }
    if at_exit {
        describer.clean();
    }
    drop(describer);
    let left = queued.split_off(done);
    if at_exit && !left.is_empty() {
        crate::say!(
            "rocprof-rs: {} sampled PCs were left without instruction text: describing them took over {}s at exit",
            left.len(),
            budget.as_secs()
        );
    } else if !left.is_empty() {
        let mut state = s.state.lock();
        let mut left = left;
        left.append(&mut state.queued);
        state.queued = left;
    }
    records.push(Record::Tally(Tally { key: keys::PC_SAMPLES_DROPPED, count: dropped }));
    send(records);
}

/// The flush thread's description of the PCs placed since its last.
pub(super) fn describe_after_flush() {
    describe_queued(DESCRIBE_PER_FLUSH, false);
}

/// At the end of the run, after the final flush: the PCs still waiting are placed, and those
/// not yet described are described.
pub(super) fn describe_at_exit() {
    let Some(s) = SAMPLER.get() else { return };
    place::place(s, Vec::new(), Placing::Last);
    describe_queued(DESCRIBE_AT_EXIT, true);
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
