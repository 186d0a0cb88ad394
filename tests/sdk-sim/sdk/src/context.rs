//! Contexts and the services configured on them.
//!
//! Contexts and services can only be made during `initialize`, so when initialization ends the
//! set is frozen ([`freeze`]) and the hot path reads it without locks; only each context's
//! active flag changes afterwards.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use rocprofiler_sdk_sys::*;

use crate::buffer::Buffer;

/// How a context collects dispatch counters.
#[derive(Clone, Copy)]
pub enum Counting {
    Buffer {
        buffer: &'static Buffer,
        callback: rocprofiler_dispatch_counting_service_cb_t,
        data: usize,
    },
    Callback {
        callback: rocprofiler_dispatch_counting_service_cb_t,
        data: usize,
        record_callback: rocprofiler_dispatch_counting_record_cb_t,
        record_data: usize,
    },
}

/// A callback-tracing service.
#[derive(Clone)]
pub struct CallbackService {
    pub kind: rocprofiler_callback_tracing_kind_t,
    ops: Option<Vec<i32>>,
    pub callback: rocprofiler_callback_tracing_cb_t,
    pub data: usize,
}

/// A buffer-tracing service.
#[derive(Clone)]
pub struct BufferService {
    pub kind: rocprofiler_buffer_tracing_kind_t,
    ops: Option<Vec<i32>>,
    pub buffer: &'static Buffer,
}

/// What a context collects.
#[derive(Clone, Default)]
pub struct Services {
    pub buffer: Vec<BufferService>,
    pub callback: Vec<CallbackService>,
    pub counting: Option<Counting>,
    /// PC sampling, one service per agent.
    pub pc_sampling: Vec<crate::pc_sampling::Service>,
}

/// One context.
pub struct Context {
    pub id: u64,
    pub client: u64,
    active: AtomicBool,
    building: Mutex<Services>,
    frozen: OnceLock<Services>,
}

static CONTEXTS: Mutex<Vec<&'static Context>> = Mutex::new(Vec::new());
static FROZEN: OnceLock<Vec<&'static Context>> = OnceLock::new();

/// Context handles start above zero, so `ROCPROFILER_CONTEXT_NONE` is never valid.
const OFFSET: u64 = 0x1000;

fn wants(ops: &Option<Vec<i32>>, op: i32) -> bool {
    ops.as_ref().is_none_or(|ops| ops.contains(&op))
}

/// `rocprofiler_create_context` for client `client`.
pub fn create(client: u64) -> u64 {
    let mut contexts = CONTEXTS.lock().unwrap();
    let id = OFFSET + contexts.len() as u64;
    contexts.push(Box::leak(Box::new(Context {
        id,
        client,
        active: AtomicBool::new(false),
        building: Mutex::new(Services::default()),
        frozen: OnceLock::new(),
    })));
    id
}

/// The context with handle `id`.
pub fn get(id: u64) -> Option<&'static Context> {
    let index = id.checked_sub(OFFSET)?;
    CONTEXTS.lock().unwrap().get(index as usize).copied()
}

/// Ends configuration: services can no longer change.
pub fn freeze() {
    let contexts = CONTEXTS.lock().unwrap().clone();
    for context in &contexts {
        let _ = context.frozen.set(context.building.lock().unwrap().clone());
    }
    let _ = FROZEN.set(contexts);
}

/// Every context, once configuration has ended.
pub fn frozen() -> &'static [&'static Context] {
    FROZEN.get().map_or(&[], Vec::as_slice)
}

/// The active contexts, once configuration has ended.
pub fn active() -> impl Iterator<Item = &'static Context> {
    frozen().iter().copied().filter(|c| c.is_active())
}

/// Every context of `client`.
pub fn of_client(client: u64) -> Vec<&'static Context> {
    CONTEXTS.lock().unwrap().iter().copied().filter(|c| c.client == client).collect()
}

impl Context {
    pub fn is_active(&self) -> bool {
        self.active.load(Ordering::Acquire)
    }

    pub fn set_active(&self, active: bool) {
        self.active.store(active, Ordering::Release);
    }

    fn services(&self) -> Option<&Services> {
        self.frozen.get()
    }

    /// Changes services during configuration.
    pub fn configure<R>(&self, f: impl FnOnce(&mut Services) -> R) -> R {
        f(&mut self.building.lock().unwrap())
    }

    /// The callback service for `kind` and `op`, if configured.
    pub fn callback_for(&self, kind: rocprofiler_callback_tracing_kind_t, op: i32) -> Option<&CallbackService> {
        self.services()?.callback.iter().find(|s| s.kind == kind && wants(&s.ops, op))
    }

    /// The buffer of the service for `kind` and `op`, if configured.
    pub fn buffer_for(&self, kind: rocprofiler_buffer_tracing_kind_t, op: i32) -> Option<&'static Buffer> {
        self.services()?.buffer.iter().find(|s| s.kind == kind && wants(&s.ops, op)).map(|s| s.buffer)
    }

    /// The PC sampling service of `agent`, if configured.
    pub fn pc_sampling_for(&self, agent: u64) -> Option<crate::pc_sampling::Service> {
        self.services()?.pc_sampling.iter().find(|s| s.agent == agent).copied()
    }

    /// The dispatch counting service, if configured.
    pub fn counting(&self) -> Option<Counting> {
        self.services()?.counting
    }
}

/// Operations as passed to a `configure_*` call (null or empty: all of them).
pub fn operations(ops: *const rocprofiler_tracing_operation_t, count: usize) -> Option<Vec<i32>> {
    if ops.is_null() || count == 0 {
        return None;
    }
    // SAFETY: the tool passes `count` operations at `ops`, per the API.
    Some(unsafe { std::slice::from_raw_parts(ops, count) }.to_vec())
}

impl Services {
    pub fn add_callback(
        &mut self,
        kind: rocprofiler_callback_tracing_kind_t,
        ops: Option<Vec<i32>>,
        callback: rocprofiler_callback_tracing_cb_t,
        data: usize,
    ) -> rocprofiler_status_t {
        if self.callback.iter().any(|s| s.kind == kind) {
            return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
        }
        self.callback.push(CallbackService { kind, ops, callback, data });
        ROCPROFILER_STATUS_SUCCESS
    }

    pub fn add_buffer(
        &mut self,
        kind: rocprofiler_buffer_tracing_kind_t,
        ops: Option<Vec<i32>>,
        buffer: &'static Buffer,
    ) -> rocprofiler_status_t {
        if self.buffer.iter().any(|s| s.kind == kind) {
            return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
        }
        self.buffer.push(BufferService { kind, ops, buffer });
        ROCPROFILER_STATUS_SUCCESS
    }
}
