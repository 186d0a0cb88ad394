//! The simulated runtimes: the `rocprofiler_sim_*` functions the driver calls where HIP, ROCTx
//! and HSA would hit the SDK's intercept tables, and the records and callbacks they produce.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rocprof_sim::pc_model;
use rocprof_sim::runtime_abi::*;
use rocprofiler_sdk_sys::*;

use crate::buffer::{Buffer, Item, POISON, bytes_of};
use crate::context::{self, Context};
use crate::dispatch::{Tail, queue_for, set_queue};
use crate::ffi::log;
use crate::{agents, clock, gpu, registration};

static NEXT_CORRELATION: AtomicU64 = AtomicU64::new(1);
static NEXT_KERNEL: AtomicU64 = AtomicU64::new(1);
static NEXT_CODE_OBJECT: AtomicU64 = AtomicU64::new(1);
static NEXT_RANGE: AtomicU64 = AtomicU64::new(1);

/// The modeled delay between enqueue and the start of a kernel on an idle queue.
pub(crate) const LAUNCH_LATENCY_NS: u64 = 2_500;

/// Prints the one line that says every record from here on is simulated.
pub fn announce(clients: usize, names: &[&str]) {
    log!("{} ({clients} tool(s): {})", rocprof_sim::SIMULATED_BANNER, names.join(", "));
}

/// An API call in flight on this thread.
struct OpenCall {
    correlation: rocprofiler_correlation_id_t,
    kind: u32,
    /// The buffer-tracing kind of its record.
    record_kind: u32,
    operation: i32,
    /// Contexts that saw enter, with the user data their callback owns.
    callbacks: Vec<(&'static Context, rocprofiler_user_data_t)>,
    buffers: Vec<&'static Buffer>,
    start: u64,
}

/// A ROCTx range open on this thread or process (MARKER_CORE_RANGE_API).
struct OpenRange {
    correlation: rocprofiler_correlation_id_t,
    operation: i32,
    message: CString,
    callbacks: Vec<(&'static Context, rocprofiler_user_data_t)>,
}

// SAFETY: user data is the tool's opaque value, which the SDK hands back on any thread.
unsafe impl Send for OpenRange {}

thread_local! {
    static CALLS: RefCell<Vec<OpenCall>> = const { RefCell::new(Vec::new()) };
    static RANGES: RefCell<Vec<OpenRange>> = const { RefCell::new(Vec::new()) };
}

static PROCESS_RANGES: Mutex<Vec<(u64, OpenRange)>> = Mutex::new(Vec::new());

/// The correlation id of the innermost API call open on this thread (0: none).
pub(crate) fn current_correlation() -> u64 {
    CALLS.with(|c| c.borrow().last().map_or(0, |call| call.correlation.internal))
}

/// Invokes a callback-tracing callback with `payload`, then poisons the payload.
fn invoke<T: Copy>(
    ctx: &Context,
    kind: u32,
    operation: i32,
    phase: rocprofiler_callback_phase_t,
    correlation: rocprofiler_correlation_id_t,
    payload: &mut T,
    user_data: &mut rocprofiler_user_data_t,
) {
    let Some(service) = ctx.callback_for(kind, operation) else { return };
    let Some(callback) = service.callback else { return };
    let record = rocprofiler_callback_tracing_record_t {
        context_id: rocprofiler_context_id_t { handle: ctx.id },
        thread_id: clock::thread_id(),
        correlation_id: correlation,
        kind,
        operation,
        phase,
        payload: (payload as *mut T).cast(),
    };
    // SAFETY: the tool's callback, with a record whose payload lives until it returns.
    unsafe { callback(record, user_data, service.data as *mut std::ffi::c_void) };
    // SAFETY: the payload is SDK-owned and dead now; poisoning catches tools that keep it.
    unsafe { std::ptr::write_bytes((payload as *mut T).cast::<u8>(), POISON, std::mem::size_of::<T>()) };
}

/// The payload of HIP API callbacks: `{size, args, retval}` with the HIP 6.3 argument union
/// (88 bytes) and return union (24 bytes). The simulator does not model arguments: they are zero.
#[repr(C)]
#[derive(Clone, Copy)]
struct HipApiData {
    size: u64,
    args_and_retval: [u64; 14],
}

fn marker_payload(message: *const c_char) -> rocprofiler_callback_tracing_marker_api_data_t {
    let mut data = rocprofiler_callback_tracing_marker_api_data_t {
        size: std::mem::size_of::<rocprofiler_callback_tracing_marker_api_data_t>() as u64,
        ..Default::default()
    };
    data.args.roctxMarkA.message = message;
    data
}

fn call_phase(call: &mut OpenCall, phase: rocprofiler_callback_phase_t, message: *const c_char) {
    let (kind, op, corr) = (call.kind, call.operation, call.correlation);
    for (ctx, user_data) in &mut call.callbacks {
        if kind == ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API {
            let mut data = HipApiData { size: std::mem::size_of::<HipApiData>() as u64, args_and_retval: [0; 14] };
            invoke(ctx, kind, op, phase, corr, &mut data, user_data);
        } else if kind == ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API {
            // The message is copied into SDK memory that dies with the callback, as a real
            // application's string may.
            let copy = (!message.is_null()).then(|| {
                // SAFETY: the driver passes NUL-terminated messages.
                unsafe { CStr::from_ptr(message) }.to_owned()
            });
            let mut data = marker_payload(copy.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()));
            invoke(ctx, kind, op, phase, corr, &mut data, user_data);
            if let Some(copy) = copy {
                let mut bytes = copy.into_bytes_with_nul();
                bytes.fill(POISON);
            }
        }
        // RCCL callbacks cannot be configured (their argument union is not modeled), so no
        // context holds one.
    }
}

fn range_enter(operation: i32, correlation: rocprofiler_correlation_id_t, message: &CStr) -> OpenRange {
    let mut range = OpenRange { correlation, operation, message: message.to_owned(), callbacks: Vec::new() };
    for ctx in context::active() {
        if ctx.callback_for(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API, operation).is_some() {
            let mut user_data = rocprofiler_user_data_t { value: 0 };
            let mut data = marker_payload(range.message.as_ptr());
            invoke(
                ctx,
                ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
                operation,
                ROCPROFILER_CALLBACK_PHASE_ENTER,
                correlation,
                &mut data,
                &mut user_data,
            );
            range.callbacks.push((ctx, user_data));
        }
    }
    range
}

fn range_exit(mut range: OpenRange) {
    let message = range.message.clone();
    for (ctx, user_data) in &mut range.callbacks {
        let mut data = marker_payload(message.as_ptr());
        invoke(
            ctx,
            ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
            range.operation,
            ROCPROFILER_CALLBACK_PHASE_EXIT,
            range.correlation,
            &mut data,
            user_data,
        );
    }
}

/// The buffer-tracing kind of an API call's record, `None` for APIs the simulator has no
/// runtime for.
fn buffer_kind(callback_kind: u32) -> Option<u32> {
    match callback_kind {
        ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API => Some(ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API),
        ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API => Some(ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API),
        ROCPROFILER_CALLBACK_TRACING_RCCL_API => Some(ROCPROFILER_BUFFER_TRACING_RCCL_API),
        _ => None,
    }
}

/// `rocprofiler_sim_api_enter`.
pub fn api_enter(call: &SimApiCall, span: &mut SimApiSpan) -> rocprofiler_status_t {
    let Some(buffer_kind) = buffer_kind(call.kind) else { return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND };
    crate::stats::API_CALLS.fetch_add(1, Ordering::Relaxed);
    let internal = NEXT_CORRELATION.fetch_add(1, Ordering::Relaxed);
    let correlation = rocprofiler_correlation_id_t {
        internal,
        external: rocprofiler_user_data_t { value: 0 },
        ancestor: current_correlation(),
    };
    let mut open = OpenCall {
        correlation,
        kind: call.kind,
        record_kind: buffer_kind,
        operation: call.operation,
        callbacks: Vec::new(),
        buffers: Vec::new(),
        start: 0,
    };
    for ctx in context::active() {
        if ctx.callback_for(call.kind, call.operation).is_some() {
            open.callbacks.push((ctx, rocprofiler_user_data_t { value: 0 }));
        }
        if let Some(buffer) = ctx.buffer_for(buffer_kind, call.operation) {
            open.buffers.push(buffer);
        }
    }
    call_phase(&mut open, ROCPROFILER_CALLBACK_PHASE_ENTER, call.message);
    open.start = clock::now_ns();
    *span = SimApiSpan {
        correlation_id: internal,
        ancestor_id: correlation.ancestor,
        thread_id: clock::thread_id(),
        start_ns: open.start,
        ..SimApiSpan::default()
    };
    if call.kind == ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API {
        marker_enter(call, correlation, span);
    }
    CALLS.with(|c| c.borrow_mut().push(open));
    ROCPROFILER_STATUS_SUCCESS
}

fn message_of(call: &SimApiCall) -> &CStr {
    if call.message.is_null() {
        c""
    } else {
        // SAFETY: the driver passes NUL-terminated messages that outlive the call.
        unsafe { CStr::from_ptr(call.message) }
    }
}

fn marker_enter(call: &SimApiCall, correlation: rocprofiler_correlation_id_t, span: &mut SimApiSpan) {
    match call.operation {
        ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA => {
            range_exit(range_enter(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA, correlation, message_of(call)));
        }
        ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA => {
            let range =
                range_enter(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA, correlation, message_of(call));
            RANGES.with(|r| r.borrow_mut().push(range));
        }
        ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop => {
            if let Some(range) = RANGES.with(|r| r.borrow_mut().pop()) {
                range_exit(range);
            }
        }
        ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA => {
            let id = NEXT_RANGE.fetch_add(1, Ordering::Relaxed);
            span.range_id = id;
            let range =
                range_enter(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA, correlation, message_of(call));
            PROCESS_RANGES.lock().unwrap().push((id, range));
        }
        ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop => {
            let range = {
                let mut ranges = PROCESS_RANGES.lock().unwrap();
                ranges.iter().position(|(id, _)| *id == call.range_id).map(|i| ranges.remove(i).1)
            };
            if let Some(range) = range {
                range_exit(range);
            }
        }
        _ => {}
    }
}

/// `rocprofiler_sim_api_exit`.
pub fn api_exit(call: &SimApiCall, span: &mut SimApiSpan) -> rocprofiler_status_t {
    let Some(mut open) = CALLS.with(|c| c.borrow_mut().pop()) else { return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT };
    if open.correlation.internal != span.correlation_id {
        CALLS.with(|c| c.borrow_mut().push(open));
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    }
    let end = clock::now_ns().max(open.start);
    span.end_ns = end;
    call_phase(&mut open, ROCPROFILER_CALLBACK_PHASE_EXIT, call.message);
    let record = rocprofiler_buffer_tracing_hip_api_record_t {
        size: std::mem::size_of::<rocprofiler_buffer_tracing_hip_api_record_t>() as u64,
        kind: open.record_kind,
        operation: open.operation,
        correlation_id: open.correlation,
        start_timestamp: open.start,
        end_timestamp: end,
        thread_id: clock::thread_id(),
    };
    for buffer in open.buffers {
        buffer.emplace(&[Item {
            category: ROCPROFILER_BUFFER_CATEGORY_TRACING,
            kind: record.kind,
            payload: bytes_of(&record),
        }]);
    }
    ROCPROFILER_STATUS_SUCCESS
}

struct CodeObject {
    id: u64,
    agent: u64,
    uri: CString,
    symbols: Vec<rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t>,
}

// SAFETY: the symbol names point at interned strings that live for the process.
unsafe impl Send for CodeObject {}

static CODE_OBJECTS: Mutex<Vec<CodeObject>> = Mutex::new(Vec::new());

fn code_object_callbacks(object: &CodeObject, phase: rocprofiler_callback_phase_t) {
    let none = rocprofiler_correlation_id_t::default();
    for ctx in context::active() {
        let mut load = rocprofiler_callback_tracing_code_object_load_data_t {
            size: std::mem::size_of::<rocprofiler_callback_tracing_code_object_load_data_t>() as u64,
            code_object_id: object.id,
            uri: object.uri.as_ptr(),
            load_base: 0x7f00_0000_0000 + object.id * 0x100_0000,
            load_size: 0x10_0000,
            storage_type: ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_MEMORY,
            ..Default::default()
        };
        load.__bindgen_anon_1.agent_id = rocprofiler_agent_id_t { handle: object.agent };
        load.hsa_agent = hsa_agent_t { handle: object.agent };
        let mut user_data = rocprofiler_user_data_t { value: 0 };
        invoke(
            ctx,
            ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
            ROCPROFILER_CODE_OBJECT_LOAD as i32,
            phase,
            none,
            &mut load,
            &mut user_data,
        );
        for symbol in &object.symbols {
            let mut symbol = *symbol;
            let mut user_data = rocprofiler_user_data_t { value: 0 };
            invoke(
                ctx,
                ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
                ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER as i32,
                phase,
                none,
                &mut symbol,
                &mut user_data,
            );
        }
    }
}

/// `rocprofiler_sim_load_code_object`.
pub fn load_code_object(gpu: u32, uri: &CStr, symbols: &[SimKernelSymbol], ids: &mut [u64]) -> rocprofiler_status_t {
    let Some(agent) = agents::gpu(gpu) else { return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND };
    let id = NEXT_CODE_OBJECT.fetch_add(1, Ordering::Relaxed);
    let base = 0x7f00_0000_0000 + id * 0x100_0000;
    let symbols = symbols
        .iter()
        .zip(ids.iter_mut())
        .enumerate()
        .map(|(i, (s, out))| {
            let kernel_id = NEXT_KERNEL.fetch_add(1, Ordering::Relaxed);
            *out = kernel_id;
            // Each kernel gets its own 4 KiB, so PC samples fall inside exactly one kernel's code.
            let kernel_object = base + pc_model::kernel_code_offset(i as u64) - pc_model::ENTRY_OFFSET;
            rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t {
                size: std::mem::size_of::<rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t>()
                    as u64,
                kernel_id,
                code_object_id: id,
                kernel_name: s.name,
                kernel_object,
                kernarg_segment_size: s.kernarg_size,
                kernarg_segment_alignment: 16,
                group_segment_size: s.group_segment_size,
                private_segment_size: s.private_segment_size,
                sgpr_count: s.sgpr_count,
                arch_vgpr_count: s.arch_vgpr_count,
                accum_vgpr_count: s.accum_vgpr_count,
                kernel_code_entry_byte_offset: pc_model::ENTRY_OFFSET as i64,
                kernel_address: rocprofiler_address_t { value: kernel_object + pc_model::ENTRY_OFFSET },
            }
        })
        .collect();
    let object = CodeObject { id, agent: agent.info.id.handle, uri: uri.to_owned(), symbols };
    code_object_callbacks(&object, ROCPROFILER_CALLBACK_PHASE_LOAD);
    CODE_OBJECTS.lock().unwrap().push(object);
    ROCPROFILER_STATUS_SUCCESS
}

/// The code object holding kernel `kernel_id` and the offset of the kernel's code in it.
pub fn kernel_code(kernel_id: u64) -> Option<(u64, u64)> {
    let objects = CODE_OBJECTS.lock().unwrap();
    let (object, index) =
        objects.iter().find_map(|o| o.symbols.iter().position(|s| s.kernel_id == kernel_id).map(|i| (o, i)))?;
    Some((object.id, pc_model::kernel_code_offset(index as u64)))
}

/// Finalization: unload callbacks, code object before its symbols.
pub fn unload_code_objects() {
    let objects = std::mem::take(&mut *CODE_OBJECTS.lock().unwrap());
    for object in &objects {
        code_object_callbacks(object, ROCPROFILER_CALLBACK_PHASE_UNLOAD);
    }
}

pub(crate) fn buffers_for(kind: u32, op: i32) -> Vec<&'static Buffer> {
    context::active().filter_map(|ctx| ctx.buffer_for(kind, op)).collect()
}

fn copy_agent(index: u32) -> Option<&'static agents::Agent> {
    if index == SIM_HOST { Some(agents::cpu()) } else { agents::gpu(index) }
}

/// `rocprofiler_sim_memory_copy`.
pub fn memory_copy(c: &SimCopy, result: &mut SimCopyResult) -> rocprofiler_status_t {
    let (Some(src), Some(dst)) = (copy_agent(c.src_gpu), copy_agent(c.dst_gpu)) else {
        return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    };
    let operation = match (c.src_gpu == SIM_HOST, c.dst_gpu == SIM_HOST) {
        (true, true) => ROCPROFILER_MEMORY_COPY_HOST_TO_HOST,
        (true, false) => ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE,
        (false, true) => ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST,
        (false, false) => ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE,
    };
    let gpu_index = if c.dst_gpu == SIM_HOST { c.src_gpu } else { c.dst_gpu };
    let Some((_, tail, scratch)) = queue_for(gpu_index.min(15), c.stream) else {
        return ROCPROFILER_STATUS_ERROR;
    };
    let start = (clock::now_ns() + LAUNCH_LATENCY_NS).max(tail);
    let end = start + c.duration_ns.max(1);
    set_queue(gpu_index.min(15), c.stream, Tail::At(end), scratch);
    let correlation = current_correlation();
    let record = rocprofiler_buffer_tracing_memory_copy_record_t {
        size: std::mem::size_of::<rocprofiler_buffer_tracing_memory_copy_record_t>() as u64,
        kind: ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
        operation,
        correlation_id: rocprofiler_async_correlation_id_t {
            internal: correlation,
            external: rocprofiler_user_data_t { value: 0 },
        },
        thread_id: clock::thread_id(),
        start_timestamp: start,
        end_timestamp: end,
        dst_agent_id: dst.info.id,
        src_agent_id: src.info.id,
        bytes: c.bytes,
        dst_address: rocprofiler_address_t { value: c.dst_address },
        src_address: rocprofiler_address_t { value: c.src_address },
    };
    let targets = buffers_for(ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, operation as i32);
    let payload = gpu::Plain(record);
    gpu::complete(gpu::Completion {
        end_ns: end,
        deliver: Box::new(move || {
            let record = payload.into_inner();
            for buffer in targets {
                buffer.emplace(&[Item {
                    category: ROCPROFILER_BUFFER_CATEGORY_TRACING,
                    kind: record.kind,
                    payload: bytes_of(&record),
                }]);
            }
        }),
    });
    *result = SimCopyResult {
        operation,
        src_agent_id: src.info.id.handle,
        dst_agent_id: dst.info.id.handle,
        correlation_id: correlation,
        start_ns: start,
        end_ns: end,
    };
    ROCPROFILER_STATUS_SUCCESS
}

/// `rocprofiler_sim_memory_allocation`: recorded synchronously, on the calling thread.
pub fn memory_allocation(a: &SimAllocation, result: &mut SimAllocationResult) -> rocprofiler_status_t {
    let Some(agent) = agents::gpu(a.gpu) else { return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND };
    let start = clock::now_ns();
    let end = start + 1_000 + a.size / (1 << 20) * 100;
    let correlation = current_correlation();
    let record = rocprofiler_buffer_tracing_memory_allocation_record_t {
        size: std::mem::size_of::<rocprofiler_buffer_tracing_memory_allocation_record_t>() as u64,
        kind: ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION,
        operation: a.operation,
        correlation_id: rocprofiler_correlation_id_t { internal: correlation, ..Default::default() },
        thread_id: clock::thread_id(),
        start_timestamp: start,
        end_timestamp: end,
        agent_id: agent.info.id,
        address: rocprofiler_address_t { value: a.address },
        allocation_size: a.size,
    };
    for buffer in buffers_for(ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION, a.operation as i32) {
        buffer.emplace(&[Item {
            category: ROCPROFILER_BUFFER_CATEGORY_TRACING,
            kind: record.kind,
            payload: bytes_of(&record),
        }]);
    }
    *result = SimAllocationResult {
        agent_id: agent.info.id.handle,
        correlation_id: correlation,
        start_ns: start,
        end_ns: end,
    };
    ROCPROFILER_STATUS_SUCCESS
}

/// `rocprofiler_sim_register_runtime`.
pub fn register(_name: &CStr) -> rocprofiler_status_t {
    registration::initialize();
    ROCPROFILER_STATUS_SUCCESS
}
