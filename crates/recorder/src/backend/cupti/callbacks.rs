//! The Callback API: the subscriber slot, launch calls for `cuda_api`, and the moments a flush
//! must not wait (a device reset, a context going away).
//!
//! Only launch callbacks are enabled, never whole domains: a callback on every runtime call
//! (`cudaGetDevice` included) is what makes tracing tools slow.

use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};

use rocprofiler_sdk_sys::cupti::{self as sys, Cupti};

use super::api::Context;
use super::api::callback::{self as api, Subscriber};
use super::error::CuptiError;
use super::operations::{CUDA_DRIVER_API, CUDA_RUNTIME_API};
use crate::lifecycle::{running, trampoline};
use crate::pipeline::clock;
use crate::pipeline::records::{Api, LaunchName, Record};

/// Claims CUPTI's single subscriber slot, before anything else: without it, registering buffer
/// callbacks would silently take another tool's records.
pub(super) fn subscribe(cupti: &Cupti) -> Result<Subscriber, CuptiError> {
    // SAFETY: a trampoline that takes every domain and id, and cannot unwind.
    let refused = match unsafe { api::subscribe(cupti, on_callback) } {
        Ok(subscriber) => return Ok(subscriber),
        Err(refused) => refused,
    };
    match refused.result {
        sys::CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED => {
            let name = refused.holder;
            let holder = if name.is_empty() { "another CUPTI client".to_owned() } else { format!("`{name}`") };
            Err(CuptiError::SlotTaken { holder })
        }
        sys::CUPTI_ERROR_NOT_INITIALIZED => Err(CuptiError::DriverMismatch { version: cupti.version() }),
        sys::CUPTI_ERROR_INSUFFICIENT_PRIVILEGES | sys::CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES => {
            Err(CuptiError::Privileges { text: refused.text })
        }
        _ => Err(CuptiError::Subscribe { text: refused.text }),
    }
}

/// Whether launch calls become `cuda_api` rows (they may be on for counting alone).
static TRACE_LAUNCHES: AtomicBool = AtomicBool::new(false);

/// Whether launch calls also say the kernel they launch (a flight recorder watching for hangs).
static NAME_LAUNCHES: AtomicBool = AtomicBool::new(false);

/// Whether a flight recorder watches for hangs: launches then name their kernel, and NVTX
/// ranges say when they open.
pub(super) fn watches_hangs() -> bool {
    NAME_LAUNCHES.load(Ordering::Relaxed)
}

/// Whether launch calls become rows now: off while an in-process profile is paused.
static COLLECTING: AtomicBool = AtomicBool::new(true);

/// Starts or stops making rows of launch calls (the callbacks stay subscribed: counters still
/// need their correlation).
pub(super) fn set_collecting(on: bool) {
    COLLECTING.store(on, Ordering::Relaxed);
}

/// Turns the callbacks on: always the two that must flush, and the launch calls when traced or
/// counted.
pub(super) fn enable(cupti: &Cupti, subscriber: Subscriber, launches: bool) {
    TRACE_LAUNCHES.store(launches, Ordering::Relaxed);
    let hangs =
        crate::lifecycle::installed().and_then(|t| t.config.flight_recorder.as_ref()).is_some_and(|f| f.hang.is_some());
    NAME_LAUNCHES.store(hangs, Ordering::Relaxed);
    set(cupti, subscriber, true, launches || super::counting::enabled());
}

/// Turns every callback off, at the end of the run.
pub(super) fn disable(cupti: &Cupti, subscriber: Subscriber) {
    set(cupti, subscriber, false, true);
}

fn set(cupti: &Cupti, subscriber: Subscriber, on: bool, launches: bool) {
    // A context going away (a device reset destroys the primary context too) flushes. The
    // resource domain is off the launch path; a runtime-API callback, even on a call never
    // made, may not be (CUPTI then routes runtime calls through its callback machinery: see
    // BENCHMARKS.md for what dropping it changed). So `cudaDeviceReset` gets its own flush
    // only when launch calls are traced anyway.
    let mut callbacks = vec![(sys::CUPTI_CB_DOMAIN_RESOURCE, sys::CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)];
    if super::pc_sampling::active() {
        // Sampling starts on each context as it is made, and a module load drains it.
        callbacks.push((sys::CUPTI_CB_DOMAIN_RESOURCE, sys::CUPTI_CBID_RESOURCE_CONTEXT_CREATED));
        callbacks.push((sys::CUPTI_CB_DOMAIN_RESOURCE, sys::CUPTI_CBID_RESOURCE_MODULE_LOADED));
    }
    if launches {
        callbacks.push((sys::CUPTI_CB_DOMAIN_RUNTIME_API, sys::CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020));
        callbacks.extend(sys::RUNTIME_LAUNCH_CBIDS.iter().map(|(cbid, _)| (sys::CUPTI_CB_DOMAIN_RUNTIME_API, *cbid)));
        callbacks.extend(sys::DRIVER_LAUNCH_CBIDS.iter().map(|(cbid, _)| (sys::CUPTI_CB_DOMAIN_DRIVER_API, *cbid)));
    }
    for (domain, cbid) in callbacks {
        // An id this release lacks is refused, which is harmless.
        let _ = api::enable_callback(cupti, subscriber, on, domain, cbid);
    }
}

thread_local! {
    /// Runtime launch calls open on this thread: the driver launch inside one is the same call.
    static RUNTIME_DEPTH: Cell<u32> = const { Cell::new(0) };
    /// The correlation id of the runtime launch call open on this thread, which the kernel's
    /// activity record carries.
    static RUNTIME_CORRELATION: Cell<Option<u32>> = const { Cell::new(None) };
}

/// `CUpti_CallbackFunc`, on the application's threads.
unsafe extern "C" fn on_callback(_userdata: *mut c_void, domain: u32, cbid: u32, data: *const c_void) {
    trampoline("the CUPTI callback", (), || {
        if data.is_null() {
            return;
        }
        match domain {
            sys::CUPTI_CB_DOMAIN_RESOURCE => resource(cbid, data),
            sys::CUPTI_CB_DOMAIN_RUNTIME_API | sys::CUPTI_CB_DOMAIN_DRIVER_API => {
                // SAFETY: the API domains' `cbdata` is a CUpti_CallbackData, live during the call.
                let data = unsafe { &*data.cast::<sys::CUpti_CallbackData>() };
                api_call(domain, cbid, data);
            }
            _ => {}
        }
    })
}

/// A resource callback: a context going away flushes; with PC sampling, a context made starts
/// sampling and a module loaded is kept.
fn resource(cbid: u32, data: *const c_void) {
    // SAFETY: the resource domain's `cbdata` is a CUpti_ResourceData, live during the call.
    let data = unsafe { &*data.cast::<sys::CUpti_ResourceData>() };
    // SAFETY: the context the callback is about, alive during it.
    let context = unsafe { Context::from_raw(data.context) };
    match cbid {
        sys::CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING => {
            super::flush(true);
            super::pc_sampling::context_destroying(context);
        }
        sys::CUPTI_CBID_RESOURCE_CONTEXT_CREATED => super::pc_sampling::context_created(context),
        sys::CUPTI_CBID_RESOURCE_MODULE_LOADED => {
            super::pc_sampling::module_loaded(context, data.resourceDescriptor.cast());
        }
        _ => {}
    }
}

fn api_call(domain: u32, cbid: u32, data: &sys::CUpti_CallbackData) {
    let runtime = domain == sys::CUPTI_CB_DOMAIN_RUNTIME_API;
    if runtime && cbid == sys::CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020 {
        if data.callbackSite == sys::CUPTI_API_ENTER {
            super::flush(true);
        }
        return;
    }
    let enter = data.callbackSite == sys::CUPTI_API_ENTER;
    if runtime {
        RUNTIME_DEPTH.with(|d| d.set(if enter { d.get() + 1 } else { d.get().saturating_sub(1) }));
        RUNTIME_CORRELATION.with(|c| c.set(enter.then_some(data.correlationId)));
    } else {
        // Counting opens its session around the driver call, the one that launches; a paused
        // run counts nothing (exit closes only a session enter opened).
        if enter {
            if COLLECTING.load(Ordering::Relaxed) {
                super::counting::enter(cbid, data, RUNTIME_CORRELATION.with(Cell::get));
            }
        } else {
            super::counting::exit(data);
        }
        if RUNTIME_DEPTH.with(Cell::get) > 0 {
            return;
        }
    }
    if !TRACE_LAUNCHES.load(Ordering::Relaxed) || data.correlationData.is_null() {
        return;
    }
    if enter {
        // A call entered while paused is marked 0, so a resume before its exit makes no row
        // with a start it never had.
        let start = if COLLECTING.load(Ordering::Relaxed) { clock::now_ns() } else { 0 };
        // SAFETY: CUPTI's per-call slot, shared by this call's ENTER and EXIT.
        unsafe { *data.correlationData = start };
        return;
    }
    let Some(tool) = running() else { return };
    // SAFETY: as above; ENTER wrote it.
    let start_ns = unsafe { *data.correlationData };
    if start_ns == 0 || !COLLECTING.load(Ordering::Relaxed) {
        return;
    }
    let record = Api {
        kind: if runtime { CUDA_RUNTIME_API } else { CUDA_DRIVER_API },
        operation: cbid as i32,
        // SAFETY: gettid has no preconditions.
        thread_id: unsafe { libc::gettid() } as u64,
        correlation_id: u64::from(data.correlationId),
        ancestor_id: 0,
        start_ns,
        end_ns: clock::now_ns(),
    };
    let queue = tool.queue();
    let mut batch = queue.batch();
    batch.push(Record::Api(record));
    if NAME_LAUNCHES.load(Ordering::Relaxed)
        && let Some(name) = launched_kernel(data)
    {
        batch.push(Record::LaunchName(Box::new(LaunchName { correlation_id: u64::from(data.correlationId), name })));
    }
    queue.send(batch);
}

thread_local! {
    /// Kernel names this thread launched, by CUDA's pointer to the name: a kernel launched in
    /// a loop is copied once.
    static LAUNCHED: std::cell::RefCell<std::collections::HashMap<usize, std::sync::Arc<str>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// The kernel a launch call names (`symbolName`, valid during the callback).
fn launched_kernel(data: &sys::CUpti_CallbackData) -> Option<std::sync::Arc<str>> {
    if data.symbolName.is_null() {
        return None;
    }
    // SAFETY: CUPTI's NUL-terminated name of the launched function, live during the callback.
    let text = unsafe { std::ffi::CStr::from_ptr(data.symbolName) }.to_bytes();
    let key = data.symbolName as usize;
    LAUNCHED.with(|names| {
        let mut names = names.borrow_mut();
        // The pointer may be reused by a later module for another name: the text decides.
        if let Some(name) = names.get(&key).filter(|n| n.as_bytes() == text) {
            return Some(name.clone());
        }
        if names.len() >= 4096 {
            names.clear();
        }
        let name: std::sync::Arc<str> = String::from_utf8_lossy(text).into();
        names.insert(key, name.clone());
        Some(name)
    })
}
