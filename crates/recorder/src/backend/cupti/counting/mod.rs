//! Per-dispatch metrics on NVIDIA GPUs through CUPTI's range profiler, into the same `counter`
//! and `kernel_counter` tables as AMD's counters.
//!
//! - **Set-up, per chip, at the first launch on a context** (no context exists when the driver
//!   calls the injection): the chip's metric list checks the request ([`choose`]), the metrics
//!   are packed into groups that each need one pass (the host API counts passes), and one
//!   configuration of every group is made. Its passes are the groups.
//! - **Per counted launch**, on the application's thread: a session opens at the driver call's
//!   ENTER and closes at its EXIT (Stop waits for the kernel), and its image is decoded at once.
//!   CUPTI runs the configuration's passes in turn, one per session, so the session's pass is
//!   the group of its values; [`turns`] steers the pass so that each kernel and grid collects
//!   the groups in turn, as on AMD.
//! - Sessions serialise launches on a context: a mutex is taken at ENTER and released at EXIT.
//!   Another thread waits at most [`WAIT`] for it, then launches uncounted.
//! - The counter records come before the kernel's activity record: the writer joins them to
//!   its `kernel_dispatch` row by the launch's correlation id.
//! - SASS metrics (`smsp__sass_*`, instrumented) read 0 while kernel activity tracing is on
//!   (`bench/gpu/range_probe`, the callbacks mode): a pass that counts them runs with
//!   CONCURRENT_KERNEL activity off, so its dispatch has no `kernel_dispatch` row (its
//!   instrumented run time would not be the kernel's anyway). Its counter rows name the kernel
//!   through a symbol of their own, and the run metadata counts these dispatches. A pass is taken
//!   for one until its first decode shows otherwise.
//!
//! What could not be counted is counted: `uncounted` in the closing line.

pub mod avail;
pub mod choose;
mod dump;
pub mod launch;
pub mod presets;
pub mod turns;

use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use rocprofiler_sdk_sys::cupti::{self as sys, Cupti};

use super::api::profiler::{self, Host};
use super::api::range::RangeObject;
use super::api::{self, activity};
use super::error::CuptiError;
use crate::config::Config;
use crate::config::counters::CounterRequest;
use crate::counters::PassMode;
use crate::counters::plan::{self, Refusal};
use crate::lifecycle::running;
use crate::pipeline::records::{CounterDispatch, CounterPlan, CounterValue, Record, UNTRACED_KERNEL};
use turns::{Plan, Turns};

/// How long a launch waits for another thread's counted launch before going uncounted.
pub const WAIT: Duration = Duration::from_secs(5);
/// Names kept for the iteration range of `--kernel-iterations`: beyond them, no more counting.
const MAX_NAMES: usize = 1 << 16;

/// The counting set-up of the process.
pub struct Counting {
    cupti: &'static Cupti,
    request: CounterRequest,
    config: Config,
    state: Mutex<State>,
    /// Launches left uncounted: waited too long, too many shapes, or a failed session.
    uncounted: AtomicU64,
    /// Counted launches that ran with kernel activity off (SASS passes): no `kernel_dispatch` row.
    untraced: AtomicU64,
    /// Launches left uncounted right after a SASS pass, which needed only DRAM passes.
    rested: AtomicU64,
    /// The process that set CUPTI up: a forked child must never call it.
    pid: u32,
}

impl std::fmt::Debug for Counting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counting").field("uncounted", &self.uncounted).finish()
    }
}

#[derive(Default)]
struct State {
    initialized: bool,
    /// Set once counting failed for good: launches run uncounted.
    broken: bool,
    chips: Vec<Chip>,
    contexts: Vec<Context>,
    /// Numbers for counted dispatches until the writer joins them to their kernel rows.
    next_dispatch: u64,
    iterations: HashMap<String, u64>,
    /// Kernel names announced as symbols for dispatches without an activity record.
    announced: std::collections::HashSet<u64>,
    /// `ROCPROF_RS_CUPTI_DUMP`: images for test fixtures.
    dump: Option<dump::Dump>,
}

/// One chip's metrics and configuration.
struct Chip {
    name: String,
    /// A host object with no metrics: it evaluates every image of the chip.
    evaluator: Host<'static>,
    metrics: Vec<CString>,
    config: Vec<u8>,
    passes: usize,
    /// The group number of a pass (the application pass taken, in whole-application mode).
    first_group: usize,
    /// Per pass, whether it counts SASS metrics (and so must run with kernel activity off);
    /// `None` until its first decode.
    sass: Vec<Option<bool>>,
    /// Which metrics are SASS metrics.
    is_sass: Vec<bool>,
    /// Which metrics count DRAM traffic.
    is_dram: Vec<bool>,
}

struct Context {
    ctx: usize,
    device: u32,
    chip: usize,
    object: RangeObject,
    turns: Turns,
    /// The last session ran a SASS pass: its dirty L2 lines are still there ([`turns`]).
    after_sass: bool,
    /// The shape of the last launch planned here: the next one's site ([`turns`]).
    last_shape: u64,
}

/// A session open on this thread, between a launch's ENTER and EXIT.
#[derive(Clone, Copy)]
struct Open {
    context: usize,
    shape: u64,
    site: u64,
    /// Launches at the site so far, this one included.
    site_launches: u64,
    pass: usize,
    correlation: [u64; 2],
    /// Kernel activity was turned off for this session.
    activity_off: bool,
}

thread_local! {
    static OPEN: Cell<Option<Open>> = const { Cell::new(None) };
    /// Launch calls made inside the open session's launch (the driver's own): their EXITs are
    /// not the session's.
    static NESTED: Cell<u32> = const { Cell::new(0) };
    /// Inside our own profiler calls, whose driver calls come back to the callback.
    static INSIDE: Cell<bool> = const { Cell::new(false) };
}

static COUNTING: OnceLock<Counting> = OnceLock::new();

/// Sets counting up for the process if the settings ask for counters. Checks only what needs
/// no GPU: that this libcupti has the range profiler.
pub fn setup(cupti: &'static Cupti, config: &Config) -> Result<bool, CuptiError> {
    let Some(request) = &config.counters else { return Ok(false) };
    profiler::api(cupti)?;
    let counting = Counting {
        cupti,
        request: request.clone(),
        config: config.clone(),
        state: Mutex::new(State { dump: dump::Dump::from_config(config), ..State::default() }),
        uncounted: AtomicU64::new(0),
        untraced: AtomicU64::new(0),
        rested: AtomicU64::new(0),
        pid: std::process::id(),
    };
    Ok(COUNTING.set(counting).is_ok())
}

/// Whether launches are counted (the launch callbacks must be on).
pub fn enabled() -> bool {
    COUNTING.get().is_some()
}

/// Launches left uncounted so far.
pub fn uncounted() -> u64 {
    COUNTING.get().map_or(0, |c| c.uncounted.load(Ordering::Relaxed))
}

/// At a driver launch's ENTER: opens a session around it when it is counted.
pub fn enter(cbid: u32, data: &sys::CUpti_CallbackData, outer_correlation: Option<u32>) {
    let Some(counting) = COUNTING.get() else { return };
    if INSIDE.with(Cell::get) {
        return;
    }
    if OPEN.with(Cell::get).is_some() {
        NESTED.with(|n| n.set(n.get() + 1));
        return;
    }
    // A tool turned off (or a forked child, where CUPTI is unusable) serialises nothing.
    if running().is_none() || std::process::id() != counting.pid {
        return;
    }
    // SAFETY: the callback data of a driver launch callback of `cbid`, live for the call.
    let launch = unsafe { launch::launch(cbid, data) };
    if !launch.single {
        return;
    }
    let Some(mut state) = counting.state.try_lock_for(WAIT) else {
        counting.uncounted.fetch_add(1, Ordering::Relaxed);
        return;
    };
    if state.broken || !counting.selected(&mut state, data) {
        return;
    }
    let correlation = [u64::from(outer_correlation.unwrap_or(data.correlationId)), u64::from(data.correlationId)];
    INSIDE.with(|i| i.set(true));
    let opened = counting.open(&mut state, data.context, launch.shape, correlation);
    INSIDE.with(|i| i.set(false));
    match opened {
        Ok(Some(open)) => {
            OPEN.with(|o| o.set(Some(open)));
            // Held until this launch's EXIT, which releases it.
            std::mem::forget(state);
        }
        Ok(None) => {
            counting.uncounted.fetch_add(1, Ordering::Relaxed);
        }
        Err(e) => {
            state.broken = true;
            counting.uncounted.fetch_add(1, Ordering::Relaxed);
            crate::say!("rocprof-rs: NVIDIA counters are off from here on: {e}; tracing goes on");
        }
    }
}

/// At a driver launch's EXIT: closes this thread's session, if any, and sends its values.
pub fn exit(data: &sys::CUpti_CallbackData) {
    let Some(counting) = COUNTING.get() else { return };
    if INSIDE.with(Cell::get) || OPEN.with(Cell::get).is_none() {
        return;
    }
    if NESTED.with(|n| n.replace(n.get().saturating_sub(1))) > 0 {
        return;
    }
    let Some(open) = OPEN.with(Cell::take) else { return };
    // SAFETY: this thread took the lock at the launch's ENTER and forgot its guard (`OPEN` is
    // set only then); the guard made here releases it.
    let mut state = unsafe { counting.state.make_guard_unchecked() };
    INSIDE.with(|i| i.set(true));
    let closed = counting.close(&mut state, open, data);
    INSIDE.with(|i| i.set(false));
    if let Err(e) = closed {
        state.broken = true;
        crate::say!("rocprof-rs: NVIDIA counters are off from here on: {e}; tracing goes on");
    }
}

/// At the end of the run: tells the writer every launch site's launches (the weights of
/// `kernel_counter`'s means, [`crate::pipeline::sites`]), disables every range profiler (their
/// Drop) and says what was left uncounted.
pub fn finish() {
    let Some(counting) = COUNTING.get() else { return };
    if let Some(mut state) = counting.state.try_lock_for(WAIT) {
        let sites: Vec<(u64, u64, u64)> = state
            .contexts
            .iter()
            .flat_map(|c| c.turns.site_launches().into_iter().map(|(site, n)| (u64::from(c.device), site, n)))
            .collect();
        if let Some(tool) = running().filter(|_| !sites.is_empty()) {
            let queue = tool.queue();
            let mut batch = queue.batch();
            queue.push(&mut batch, Record::CounterSites(Box::new(sites)));
            queue.send(batch);
        }
        INSIDE.with(|i| i.set(true));
        state.contexts.clear();
        INSIDE.with(|i| i.set(false));
    }
    let uncounted = counting.uncounted.load(Ordering::Relaxed);
    let rested = counting.rested.load(Ordering::Relaxed);
    if uncounted > 0 {
        crate::say!(
            "rocprof-rs: {uncounted} kernel launches were not counted ({rested} of them right after a SASS pass, whose dirty L2 lines a DRAM pass would have charged to them)"
        );
    }
    let untraced = counting.untraced.load(Ordering::Relaxed);
    if untraced > 0 {
        crate::say!(
            "rocprof-rs: {untraced} counted launches ran with kernel activity off (SASS metrics read 0 beside it): they have counter rows but no kernel_dispatch row"
        );
    }
}

/// Turns CONCURRENT_KERNEL activity on or off.
fn set_kernel_activity(cupti: &Cupti, on: bool) {
    let kind = sys::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    if on {
        if let Err(failed) = activity::enable(cupti, kind) {
            crate::say!("rocprof-rs: CUPTI would not turn kernel activity back on: {}", failed.text);
        }
    } else {
        let _ = activity::disable(cupti, kind);
    }
}

/// The kernel id that names this launch's kernel, announcing it once.
fn untraced_symbol(
    announced: &mut std::collections::HashSet<u64>,
    data: &sys::CUpti_CallbackData,
    queue: &crate::pipeline::queue::Queue,
    batch: &mut crate::pipeline::queue::Batch,
) -> u64 {
    let name = if data.symbolName.is_null() {
        String::from("<unnamed kernel>")
    } else {
        // SAFETY: CUPTI's NUL-terminated symbol name, live during the callback.
        unsafe { std::ffi::CStr::from_ptr(data.symbolName) }.to_string_lossy().into_owned()
    };
    let id = UNTRACED_KERNEL | (launch::shape(name.as_bytes(), [0; 3]) >> 2);
    if announced.len() < turns::MAX_SHAPES && announced.insert(id) {
        let symbol = crate::pipeline::records::Symbol::named(id, name.into());
        queue.push(batch, Record::Symbol(Box::new(symbol)));
    }
    id
}

impl Counting {
    /// Whether the kernel filters and iteration range admit this launch.
    fn selected(&self, state: &mut State, data: &sys::CUpti_CallbackData) -> bool {
        let c = &self.config;
        if c.kernel_include.is_none() && c.kernel_exclude.is_none() && c.kernel_iterations.is_all() {
            return true;
        }
        if data.symbolName.is_null() {
            return c.kernel_include.is_none();
        }
        // SAFETY: CUPTI's NUL-terminated symbol name, live during the callback.
        let mangled = unsafe { std::ffi::CStr::from_ptr(data.symbolName) }.to_string_lossy();
        let name = rocprof_rs_format::kernel_names::display_name(&mangled, c.demangle, c.truncate_kernels);
        if !c.kernel_include.as_ref().is_none_or(|re| re.is_match(&name))
            || c.kernel_exclude.as_ref().is_some_and(|re| re.is_match(&name))
        {
            return false;
        }
        if c.kernel_iterations.is_all() {
            return true;
        }
        if !state.iterations.contains_key(&name) && state.iterations.len() >= MAX_NAMES {
            return false;
        }
        let n = state.iterations.entry(name).or_default();
        *n += 1;
        c.kernel_iterations.contains(*n)
    }

    /// Opens a session for a launch of `shape` on `ctx`: the empty sessions that move the pass
    /// on first. `None` when the launch is not counted.
    fn open(
        &self,
        state: &mut State,
        ctx: *mut c_void,
        shape: u64,
        correlation: [u64; 2],
    ) -> Result<Option<Open>, CuptiError> {
        let context = self.context(state, ctx)?;
        let c = &mut state.contexts[context];
        let site = turns::site(shape, std::mem::replace(&mut c.last_shape, shape));
        let site_launches = c.turns.launched(site);
        let (skip, pass) = match c.turns.plan(shape, site, std::mem::take(&mut c.after_sass)) {
            Plan::Count { skip, pass } => (skip, pass),
            Plan::Rest => {
                self.rested.fetch_add(1, Ordering::Relaxed);
                return Ok(None);
            }
            Plan::Full => return Ok(None),
        };
        for _ in 0..skip {
            c.object.start()?;
            let stopped = c.object.stop()?;
            c.turns.resync(stopped.next_pass);
        }
        debug_assert_eq!(c.turns.cursor(), pass);
        let activity_off = state.chips[c.chip].sass.get(pass).copied().flatten() != Some(false);
        if activity_off {
            set_kernel_activity(self.cupti, false);
        }
        if let Err(e) = c.object.start() {
            if activity_off {
                set_kernel_activity(self.cupti, true);
            }
            return Err(e);
        }
        Ok(Some(Open { context, shape, site, site_launches, pass, correlation, activity_off }))
    }

    /// Ends the session, evaluates its range and sends the values.
    fn close(&self, state: &mut State, open: Open, data: &sys::CUpti_CallbackData) -> Result<(), CuptiError> {
        let dispatch_id = {
            state.next_dispatch += 1;
            COUNTED_DISPATCH | state.next_dispatch
        };
        let c = &mut state.contexts[open.context];
        let stopped = c.object.stop();
        if open.activity_off {
            set_kernel_activity(self.cupti, true);
        }
        let stopped = stopped?;
        c.turns.resync(stopped.next_pass);
        if c.object.ranges()? == 0 {
            // The launch failed, or its kernel never ran: the pass went by with nothing in it.
            self.uncounted.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        c.turns.collected(open.shape, open.site, open.pass);
        let (device, chip_index) = (c.device, c.chip);
        let chip = &mut state.chips[chip_index];
        let values = chip.evaluator.evaluate(state.contexts[open.context].object.image(), 0, &chip.metrics)?;
        let counts_sass = values.iter().zip(&chip.is_sass).any(|(v, sass)| *sass && v.is_finite());
        if values.iter().all(|v| !v.is_finite()) {
            state.contexts[open.context].turns.silence(open.pass);
        }
        if let Some(known) = chip.sass.get_mut(open.pass) {
            *known = Some(counts_sass);
        }
        let counts_dram = values.iter().zip(&chip.is_dram).any(|(v, dram)| *dram && v.is_finite());
        let context = &mut state.contexts[open.context];
        context.after_sass = counts_sass;
        if counts_dram {
            context.turns.counts_dram(open.pass);
        }
        if open.activity_off {
            self.untraced.fetch_add(1, Ordering::Relaxed);
        }
        let c = &state.contexts[open.context];
        let chip = &state.chips[chip_index];
        let group = (chip.first_group + open.pass) as u32;
        if let Some(dump) = &state.dump {
            dump.session(chip, c.object.image(), open.pass, data, &values);
        }
        let Some(tool) = running() else { return Ok(()) };
        let queue = tool.queue();
        let mut batch = queue.batch();
        let measured: Vec<(usize, f64)> = values.iter().copied().enumerate().filter(|(_, v)| v.is_finite()).collect();
        // Without an activity record there is no row to join: the kernel is named by a symbol
        // of the tool's own.
        let kernel_id =
            if open.activity_off { untraced_symbol(&mut state.announced, data, queue, &mut batch) } else { 0 };
        queue.push(
            &mut batch,
            Record::CounterDispatch(CounterDispatch {
                dispatch_id,
                agent_id: u64::from(device),
                kernel_id,
                correlation_id: open.correlation[0],
                records: measured.len() as u64,
                join: (!open.activity_off).then_some(open.correlation),
                site: open.site,
                shape: open.shape,
                site_launches: open.site_launches,
            }),
        );
        for (index, value) in measured {
            queue.push(
                &mut batch,
                Record::CounterValue(CounterValue {
                    dispatch_id,
                    agent_id: u64::from(device),
                    counter_id: index as u64,
                    value,
                    instances: 1,
                    group,
                    instance: None,
                }),
            );
        }
        queue.send(batch);
        Ok(())
    }

    /// The context's index, set up at its first counted launch.
    fn context(&self, state: &mut State, ctx: *mut c_void) -> Result<usize, CuptiError> {
        // SAFETY: the context of the launch CUPTI is calling back for, alive during the call;
        // the handle does not outlive this function.
        let ctx = unsafe { api::Context::from_raw(ctx) };
        if let Some(i) = state.contexts.iter().position(|c| c.ctx == ctx.addr()) {
            return Ok(i);
        }
        if !state.initialized {
            profiler::initialize(self.cupti)?;
            state.initialized = true;
        }
        let device = activity::device_of(self.cupti, ctx).map_err(|f| f.setting_up("the context's device"))?;
        if let Some(why) = profiler::unsupported(self.cupti, device) {
            return Err(CuptiError::Refused { what: "counters", text: format!("GPU {device}: {why}") });
        }
        let name = profiler::chip_name(self.cupti, device)?;
        let chip = match state.chips.iter().position(|c| c.name == name) {
            Some(i) => i,
            None => {
                let availability = profiler::counter_availability(self.cupti, ctx)?;
                let chip = self.chip(&name, device, &availability, state.dump.as_ref())?;
                state.chips.push(chip);
                state.chips.len() - 1
            }
        };
        let spec = &state.chips[chip];
        let object = RangeObject::enable(self.cupti, ctx, spec.config.clone(), spec.metrics.clone())?;
        let turns = Turns::new(spec.passes);
        state.contexts.push(Context { ctx: ctx.addr(), device, chip, object, turns, after_sass: false, last_shape: 0 });
        Ok(state.contexts.len() - 1)
    }

    /// A chip's metrics, groups and configuration; tells the writer the plan.
    fn chip(
        &self,
        name: &str,
        device: u32,
        availability: &[u8],
        dump: Option<&dump::Dump>,
    ) -> Result<Chip, CuptiError> {
        let evaluator = Host::new(self.cupti, name, Some(availability))?;
        let known = evaluator.base_metrics()?;
        let (metrics, notes) = choose::metrics(&self.request.selection, name, &known)
            .map_err(|e| CuptiError::Refused { what: "counters", text: e.to_string() })?;
        for note in notes {
            crate::say!("rocprof-rs: {note}");
        }
        let groups = self.groups(name, availability, &metrics)?;
        let (taken, first_group) = match self.request.mode {
            PassMode::Rotate => (groups.clone(), 0),
            PassMode::Application => (groups.get(self.request.pass).cloned().into_iter().collect(), self.request.pass),
        };
        let ordered: Vec<String> = taken.iter().flatten().cloned().collect();
        let cstrings = |names: &[String]| -> Result<Vec<CString>, CuptiError> {
            names
                .iter()
                .map(|n| {
                    CString::new(n.as_str()).map_err(|_| CuptiError::Refused { what: "a metric", text: n.clone() })
                })
                .collect()
        };
        let metrics = cstrings(&ordered)?;
        let host = Host::new(self.cupti, name, Some(availability))?;
        host.add_metrics(&metrics)?;
        let config = host.config_image()?;
        let passes = if ordered.is_empty() { 0 } else { profiler::passes(self.cupti, &config)? };
        if passes != taken.len() {
            crate::say!(
                "rocprof-rs: CUPTI schedules the {} metrics in {passes} passes, not the {} groups packed: each value's group is the pass CUPTI ran",
                ordered.len(),
                taken.len()
            );
        }
        if let Some(dump) = dump {
            dump.chip(name, availability, &ordered, &config);
        }
        let is_sass = ordered.iter().map(|m| m.starts_with("smsp__sass_")).collect();
        let is_dram = ordered.iter().map(|m| m.starts_with("dram__") || m.starts_with("fbpa__")).collect();
        let plan = CounterPlan {
            agent_id: u64::from(device),
            label: format!("GPU {device} ({name})"),
            metrics: ordered,
            groups: groups.clone(),
        };
        if let Some(tool) = running() {
            let queue = tool.queue();
            let mut batch = queue.batch();
            queue.push(&mut batch, Record::CounterPlan(Box::new(plan)));
            queue.send(batch);
        }
        let sass = vec![None; passes.max(1)];
        Ok(Chip {
            name: name.to_owned(),
            evaluator,
            metrics,
            config,
            passes: passes.max(1),
            first_group,
            sass,
            is_sass,
            is_dram,
        })
    }

    /// Packs `metrics` into groups that each need one pass, first fit in order.
    fn groups(&self, chip: &str, availability: &[u8], metrics: &[String]) -> Result<Vec<Vec<String>>, CuptiError> {
        let fits = |set: &[String]| {
            let names: Vec<CString> = set.iter().filter_map(|n| CString::new(n.as_str()).ok()).collect();
            match profiler::passes_of(self.cupti, chip, Some(availability), &names) {
                Ok(1) => Ok(0),
                Ok(_) => Err(Refusal::TooLarge),
                Err(e) => Err(Refusal::Other(e.to_string())),
            }
        };
        // A metric CUPTI spreads over passes by itself never decodes from one session: left out.
        let mut single = Vec::new();
        for metric in metrics {
            match fits(std::slice::from_ref(metric)) {
                Ok(_) => single.push(metric.clone()),
                Err(Refusal::TooLarge) => crate::say!(
                    "rocprof-rs: {metric} needs more than one pass by itself on {chip}; one dispatch cannot count it: left out"
                ),
                Err(Refusal::Other(why)) => return Err(CuptiError::Refused { what: "counters", text: why }),
            }
        }
        let groups = plan::pack(&[single], fits, |_| {})
            .map_err(|e| CuptiError::Refused { what: "counters", text: e.to_string() })?;
        Ok(groups.into_iter().map(|g| g.counters).collect())
    }
}

/// Dispatch ids the tool gives counted dispatches until their kernel rows are known.
pub const COUNTED_DISPATCH: u64 = 1 << 62;
