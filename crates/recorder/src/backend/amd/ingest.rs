//! The callbacks the SDK calls: each copies what it needs out of SDK-owned memory into
//! [`Record`]s and hands them to the writer's queue. They never take a lock, and allocate only
//! a batch when the pool has none to reuse (see [`crate::pipeline::queue`]).

use std::cell::Cell;
use std::ffi::{CStr, c_void};

use rocprofiler_sdk_sys as sys;

use super::operations::MARKER_RANGE_KIND;
use super::sdk::compat;
use super::sdk::handles::BufferId;
use crate::lifecycle::{Tool, running, trampoline};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::pipeline::clock;
use crate::pipeline::records::{Allocation, Api, Copy, Kernel, Marker, Record, Scratch, Symbol, Tally, narrow_u16};
use rocprof_rs_format::keys;

/// Decodes one buffer record, or `None` for kinds this tool does not trace.
///
/// # Safety
/// `header` must be a record header the SDK passed to the current buffer callback.
#[inline(always)]
pub unsafe fn decode(header: *const sys::rocprofiler_record_header_t) -> Option<Record> {
    // SAFETY: per the contract, a live header.
    let header = unsafe { &*header };
    // SAFETY: every header's first union member is the category/kind pair.
    let pair = unsafe { header.__bindgen_anon_1.__bindgen_anon_1 };
    let (category, kind) = (pair.category, pair.kind);
    if category != sys::ROCPROFILER_BUFFER_CATEGORY_TRACING || header.payload.is_null() {
        return None;
    }
    let p = header.payload;
    Some(match kind {
        sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH => {
            // SAFETY: the kind names the payload type, live for the callback.
            let r = unsafe { &*p.cast::<sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t>() };
            let i = &r.dispatch_info;
            let pipe_id = compat::kernel_dispatch_pipe_id(r);
            let w = &i.workgroup_size;
            Record::Kernel(Kernel {
                thread_id: r.thread_id,
                correlation_id: r.correlation_id.internal,
                // SAFETY: the external id is plain data in every union member.
                external_id: unsafe { r.correlation_id.external.value },
                start_ns: r.start_timestamp,
                end_ns: r.end_timestamp,
                agent_id: i.agent_id.handle,
                queue_id: i.queue_id.handle,
                kernel_id: i.kernel_id,
                dispatch_id: i.dispatch_id,
                scratch_size: i.private_segment_size,
                shared_mem: i.group_segment_size,
                block: [narrow_u16(w.x), narrow_u16(w.y), narrow_u16(w.z)],
                grid_x: u64::from(i.grid_size.x),
                grid_yz: [i.grid_size.y, i.grid_size.z],
                has_pipe: pipe_id.is_some(),
                pipe_id: pipe_id.map_or(0, |p| i16::try_from(p).unwrap_or(i16::MAX)),
                // No streams, graphs or clusters; registers come with the kernel's symbol.
                ..Kernel::default()
            })
        }
        sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API
        | sys::ROCPROFILER_BUFFER_TRACING_HSA_CORE_API
        | sys::ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API
        | sys::ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API
        | sys::ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API
        | sys::ROCPROFILER_BUFFER_TRACING_RCCL_API => {
            // SAFETY: the HIP, HSA and RCCL API records share one layout (checked in sys).
            let r = unsafe { &*p.cast::<sys::rocprofiler_buffer_tracing_hip_api_record_t>() };
            Record::Api(Api {
                kind,
                operation: r.operation,
                thread_id: r.thread_id,
                correlation_id: r.correlation_id.internal,
                ancestor_id: r.correlation_id.ancestor,
                start_ns: r.start_timestamp,
                end_ns: r.end_timestamp,
            })
        }
        sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY => {
            // SAFETY: the kind names the payload type.
            let r = unsafe { &*p.cast::<sys::rocprofiler_buffer_tracing_memory_copy_record_t>() };
            Record::Copy(Copy {
                kind,
                operation: r.operation as i32,
                thread_id: r.thread_id,
                correlation_id: r.correlation_id.internal,
                start_ns: r.start_timestamp,
                end_ns: r.end_timestamp,
                src_agent_id: r.src_agent_id.handle,
                dst_agent_id: r.dst_agent_id.handle,
                bytes: r.bytes,
                // SAFETY: addresses are plain integers in every union member.
                src_address: unsafe { r.src_address.value },
                // SAFETY: as above.
                dst_address: unsafe { r.dst_address.value },
                stream_id: None,
            })
        }
        sys::ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY => {
            // SAFETY: the kind names the payload type.
            let r = unsafe { &*p.cast::<sys::rocprofiler_buffer_tracing_scratch_memory_record_t>() };
            Record::Scratch(Scratch {
                kind,
                operation: r.operation as i32,
                thread_id: r.thread_id,
                correlation_id: r.correlation_id.internal,
                start_ns: r.start_timestamp,
                end_ns: r.end_timestamp,
                agent_id: r.agent_id.handle,
                queue_id: r.queue_id.handle,
                flags: r.flags,
                bytes: r.allocation_size,
            })
        }
        sys::ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION => {
            // SAFETY: the kind names the payload type.
            let r = unsafe { &*p.cast::<sys::rocprofiler_buffer_tracing_memory_allocation_record_t>() };
            Record::Allocation(Allocation {
                kind,
                operation: r.operation as i32,
                thread_id: r.thread_id,
                correlation_id: r.correlation_id.internal,
                start_ns: r.start_timestamp,
                end_ns: r.end_timestamp,
                agent_id: r.agent_id.handle,
                // SAFETY: plain integer.
                address: unsafe { r.address.value },
                bytes: r.allocation_size,
            })
        }
        _ => return None,
    })
}

/// How many records ahead of the one being decoded the callback asks for payloads. The SDK's
/// producers wrote them on other cores, so each arrives as cache misses, and the decode of a
/// record otherwise waits on its loads; asking early overlaps those misses with the decoding
/// and copying of the records before it (16 measured best of 0, 8, 16, 32 and 96: about 3 ns
/// a record less than none, on the development VM).
const PREFETCH_AHEAD: usize = 16;

/// Starts loading the first three cache lines of a header's payload (a kernel-dispatch record
/// spans three) without waiting for them. A hint only: it cannot fault, whatever the address.
#[inline(always)]
fn prefetch_payload(header: &sys::rocprofiler_record_header_t) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let payload = header.payload.cast::<i8>();
        for line in 0..3 {
            // SAFETY: a prefetch is a hint that never faults and reads nothing into the program.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(payload.wrapping_add(line * 64)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = header;
}

/// The SDK's buffer callback.
pub(super) extern "C" fn on_buffer(
    _context: sys::rocprofiler_context_id_t,
    buffer: sys::rocprofiler_buffer_id_t,
    headers: *mut *mut sys::rocprofiler_record_header_t,
    count: usize,
    _data: *mut c_void,
    drop_count: u64,
) {
    trampoline("the buffer callback", (), || {
        let Some(tool) = running() else { return };
        if headers.is_null() || count == 0 {
            return;
        }
        tool.fault_point();
        // SAFETY: the SDK passes `count` header pointers, live until we return.
        let headers = unsafe { std::slice::from_raw_parts(headers, count) };
        let queue = tool.queue();
        let mut batch = queue.batch();
        let mut counters = super::counting::Accumulator::default();
        let per_instance = tool.config.counters.as_ref().is_some_and(|c| c.per_instance);
        let mut invalid_samples = 0;
        // Taken at the first sample, if no code object is loading this instant.
        let mut placer = None;
        for (i, &header) in headers.iter().enumerate() {
            if let Some(&ahead) = headers.get(i + PREFETCH_AHEAD) {
                // SAFETY: a header of this callback.
                prefetch_payload(unsafe { &*ahead });
            }
            // SAFETY: a header of this callback.
            if let Some(record) = unsafe { decode(header) } {
                queue.push(&mut batch, record);
                continue;
            }
            // SAFETY: as above.
            let h = unsafe { &*header };
            // SAFETY: every header's first union member is the category/kind pair.
            let pair = unsafe { h.__bindgen_anon_1.__bindgen_anon_1 };
            if pair.category == sys::ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING && !h.payload.is_null() {
                // SAFETY: a header of this callback, of the PC sampling category.
                match unsafe { super::pc_decode::decode(pair.kind, h.payload) } {
                    Some(mut sample) => {
                        let placer = placer.get_or_insert_with(super::code_objects::placer);
                        if let (Some(placer), Record::PcSample(s)) = (placer, &mut sample)
                            && let Some((kernel_id, agent_id)) = placer.place(s.code_object_id, s.pc_offset)
                        {
                            (s.kernel_id, s.agent_id) = (kernel_id, agent_id);
                        }
                        queue.push(&mut batch, sample);
                    }
                    None => invalid_samples += 1,
                }
                continue;
            }
            if pair.category == sys::ROCPROFILER_BUFFER_CATEGORY_COUNTERS
                && !h.payload.is_null()
                && let Some(sdk) = super::sdk::loaded()
            {
                // SAFETY: a header of this callback, of the counters category.
                unsafe { counters.take(sdk.api(), per_instance, h, pair.kind, queue, &mut batch) };
            }
        }
        counters.flush(queue, &mut batch);
        if let Some(count) = pc_samples_lost(buffer.handle, invalid_samples, drop_count) {
            queue.push(&mut batch, Record::Tally(Tally { key: keys::PC_SAMPLES_DROPPED, count }));
        }
        // The samples' buffer's drops are samples, counted in `pc_samples_dropped` above, not
        // trace records.
        if drop_count > 0 && !is_pc_samples_buffer(buffer.handle) {
            queue.note_cumulative_drops(buffer.handle, drop_count);
        }
        queue.send(batch);
    })
}

/// PC samples the SDK delivered that named no PC it could attribute, or that were too small
/// to be their kind.
static INVALID_PC_SAMPLES: AtomicU64 = AtomicU64::new(0);

/// The PC samples lost so far, where this callback changed the count: the invalid ones, and
/// those the SDK dropped from the samples' buffer (its count is cumulative per buffer).
fn pc_samples_lost(buffer: u64, invalid: u64, sdk_dropped: u64) -> Option<u64> {
    let sdk_dropped = if is_pc_samples_buffer(buffer) { sdk_dropped } else { 0 };
    if invalid == 0 && sdk_dropped == 0 {
        return None;
    }
    let invalid = INVALID_PC_SAMPLES.fetch_add(invalid, Ordering::Relaxed) + invalid;
    Some(invalid + sdk_dropped)
}

/// Whether `buffer` is the one PC samples go to.
fn is_pc_samples_buffer(buffer: u64) -> bool {
    super::amd().and_then(|amd| amd.pc_samples()).map(BufferId::raw) == Some(buffer)
}

thread_local! {
    /// Open thread ranges on this thread: the nesting level of the next push.
    static DEPTH: Cell<i32> = const { Cell::new(0) };
}

fn send_one(tool: &Tool, record: Record) {
    let queue = tool.queue();
    let mut batch = queue.batch();
    batch.push(record);
    queue.send(batch);
}

/// ROCTx ranges and marks (`MARKER_CORE_RANGE_API`), on the application's threads.
pub(super) extern "C" fn on_marker(
    record: sys::rocprofiler_callback_tracing_record_t,
    user_data: *mut sys::rocprofiler_user_data_t,
    _data: *mut c_void,
) {
    trampoline("the marker callback", (), || {
        let Some(tool) = running() else { return };
        if user_data.is_null() {
            return;
        }
        // SAFETY: the SDK's per-call slot, live for this callback and handed back at exit.
        let slot = unsafe { &mut *user_data };
        let thread_range = record.operation == sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA;
        if record.phase == sys::ROCPROFILER_CALLBACK_PHASE_ENTER {
            if thread_range {
                DEPTH.with(|d| d.set(d.get() + 1));
            }
            slot.value = clock::now_ns();
            return;
        }
        let end_ns = clock::now_ns();
        // SAFETY: the slot's integer member, written at enter.
        let start_ns = unsafe { slot.value };
        let depth = if thread_range {
            Some(DEPTH.with(|d| {
                d.set((d.get() - 1).max(0));
                d.get()
            }))
        } else if record.operation == sys::ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA {
            Some(DEPTH.with(Cell::get))
        } else {
            None
        };
        let message = if record.payload.is_null() {
            String::new()
        } else {
            // SAFETY: marker payloads carry the message first in every message-bearing member.
            let data = unsafe { &*record.payload.cast::<sys::rocprofiler_callback_tracing_marker_api_data_t>() };
            // SAFETY: as above.
            let ptr = unsafe { data.args.roctxMarkA.message };
            if ptr.is_null() {
                String::new()
            } else {
                // SAFETY: a NUL-terminated message, live during the callback.
                unsafe { CStr::from_ptr(ptr) }.to_string_lossy().into_owned()
            }
        };
        send_one(
            tool,
            Record::Marker(Box::new(Marker {
                kind: MARKER_RANGE_KIND,
                operation: record.operation,
                thread_id: record.thread_id,
                correlation_id: record.correlation_id.internal,
                start_ns,
                end_ns,
                depth,
                message: message.into(),
                domain: None,
            })),
        );
    })
}

/// Code objects: kernel symbols and their resource use, on whichever thread loads them.
pub(super) extern "C" fn on_code_object(
    record: sys::rocprofiler_callback_tracing_record_t,
    _user_data: *mut sys::rocprofiler_user_data_t,
    _data: *mut c_void,
) {
    trampoline("the code-object callback", (), || {
        let Some(tool) = running() else { return };
        if record.kind != sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT
            || record.phase != sys::ROCPROFILER_CALLBACK_PHASE_LOAD
            || record.payload.is_null()
        {
            return;
        }
        if record.operation == sys::ROCPROFILER_CODE_OBJECT_LOAD as i32 {
            // SAFETY: the operation names the payload type.
            let o = unsafe { &*record.payload.cast::<sys::rocprofiler_callback_tracing_code_object_load_data_t>() };
            // SAFETY: both union members are the same agent id.
            let agent = unsafe { o.__bindgen_anon_1.agent_id };
            super::code_objects::loaded(o.code_object_id, agent.handle, o.load_base);
            return;
        }
        if record.operation != sys::ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER as i32 {
            return;
        }
        // SAFETY: the operation names the payload type.
        let s = unsafe {
            &*record.payload.cast::<sys::rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t>()
        };
        let mangled = if s.kernel_name.is_null() {
            format!("<kernel {}>", s.kernel_id)
        } else {
            // SAFETY: a NUL-terminated name, live during the callback.
            unsafe { CStr::from_ptr(s.kernel_name) }.to_string_lossy().into_owned()
        };
        let symbol = Symbol {
            kernel_id: s.kernel_id,
            code_object_id: s.code_object_id,
            mangled: mangled.into(),
            kernarg_size: s.kernarg_segment_size,
            group_segment_size: s.group_segment_size,
            private_segment_size: s.private_segment_size,
            sgpr: s.sgpr_count,
            arch_vgpr: s.arch_vgpr_count,
            accum_vgpr: s.accum_vgpr_count,
        };
        let entry = s.kernel_object.wrapping_add_signed(s.kernel_code_entry_byte_offset);
        super::code_objects::kernel(s.code_object_id, s.kernel_id, entry);
        // Kept for a forked child, whose SDK will not announce the parent's code objects again.
        super::symbols::remember(&symbol);
        super::counting::register_kernel(&tool.config, symbol.kernel_id, &symbol.mangled);
        send_one(tool, Record::Symbol(Box::new(symbol)));
    })
}
