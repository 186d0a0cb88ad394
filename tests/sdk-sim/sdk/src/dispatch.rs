//! Kernel dispatches on the simulated GPUs: each application thread's queues, the start and end
//! of every kernel, and the records and counters delivered when it completes.
//!
//! A kernel normally ends `duration_ns` after its start. One enqueued with `open_end` (a
//! collective, which ends when its last peer arrives, and its peers are other processes) gets
//! its end later from `rocprofiler_sim_dispatch_end`; its queue holds everything else until then.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use rocprof_sim::runtime_abi::*;
use rocprofiler_sdk_sys::*;

use crate::buffer::{Buffer, Item, POISON, bytes_of};
use crate::context::{self, Counting};
use crate::ffi::log;
use crate::runtime::{LAUNCH_LATENCY_NS, buffers_for, current_correlation};
use crate::{agents, clock, counters, gpu, pc_samples, pc_sampling, runtime};
use rocprof_sim::pc_model::{DispatchInput, Sampling};

static NEXT_DISPATCH: AtomicU64 = AtomicU64::new(1);
static NEXT_QUEUE: AtomicU64 = AtomicU64::new(1);

/// Where a queue's next work can start.
#[derive(Debug, Clone, Copy)]
pub enum Tail {
    /// Once the work enqueued so far has ended, at this time.
    At(u64),
    /// Only once an open dispatch has been given its end.
    Open,
}

/// One application stream's queue on one GPU.
struct Queue {
    id: u64,
    tail: Tail,
    scratch: u64,
}

/// A dispatch whose records are written when it ends.
struct Pending {
    gpu: u32,
    stream: u32,
    /// The queue's scratch once this kernel has run.
    scratch: u64,
    agent_tail: &'static AtomicU64,
    record: rocprofiler_buffer_tracing_kernel_dispatch_record_t,
    targets: Vec<&'static Buffer>,
    counting: Vec<(Counting, &'static counters::Config, rocprofiler_user_data_t)>,
    activity: SimActivity,
    /// The agent's PC sampling service and the dispatch as the sample model sees it (its end
    /// filled in when known).
    pc_sampling: Option<(pc_sampling::Service, DispatchInput)>,
}

thread_local! {
    static QUEUES: RefCell<HashMap<(u32, u32), Queue>> = RefCell::new(HashMap::new());
    /// This thread's dispatches waiting for `rocprofiler_sim_dispatch_end`.
    static OPEN: RefCell<Vec<Pending>> = const { RefCell::new(Vec::new()) };
}

/// The queue of (`gpu`, `stream`) on this thread: its id, the time its next work can start,
/// and its scratch bytes; `None` while an open dispatch holds it.
pub fn queue_for(gpu: u32, stream: u32) -> Option<(u64, u64, u64)> {
    QUEUES.with(|q| {
        let mut queues = q.borrow_mut();
        let queue = queues.entry((gpu, stream)).or_insert(Queue { id: 0, tail: Tail::At(0), scratch: 0 });
        if queue.id == 0 {
            queue.id = NEXT_QUEUE.fetch_add(1, Ordering::Relaxed);
        }
        match queue.tail {
            Tail::At(tail) => Some((queue.id, tail, queue.scratch)),
            Tail::Open => None,
        }
    })
}

/// Sets the tail and scratch of a queue [`queue_for`] created.
pub fn set_queue(gpu: u32, stream: u32, tail: Tail, scratch: u64) {
    QUEUES.with(|q| {
        if let Some(queue) = q.borrow_mut().get_mut(&(gpu, stream)) {
            queue.tail = tail;
            queue.scratch = scratch;
        }
    });
}

/// `rocprofiler_sim_dispatch`.
pub fn dispatch(d: &SimDispatch, result: &mut SimDispatchResult) -> rocprofiler_status_t {
    let Some(agent) = agents::gpu(d.gpu) else { return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND };
    let Some((queue_id, tail, scratch)) = queue_for(d.gpu, d.stream) else {
        log!("dispatch on GPU {} stream {}: its queue waits for an open dispatch to end", d.gpu, d.stream);
        return ROCPROFILER_STATUS_ERROR;
    };
    crate::stats::DISPATCHES.fetch_add(1, Ordering::Relaxed);
    let correlation = rocprofiler_async_correlation_id_t {
        internal: current_correlation(),
        external: rocprofiler_user_data_t { value: 0 },
    };
    let dispatch_id = NEXT_DISPATCH.fetch_add(1, Ordering::Relaxed);
    let info = rocprofiler_kernel_dispatch_info_t {
        size: std::mem::offset_of!(rocprofiler_kernel_dispatch_info_t, reserved_padding) as u64,
        agent_id: agent.info.id,
        queue_id: rocprofiler_queue_id_t { handle: queue_id },
        kernel_id: d.kernel_id,
        dispatch_id,
        private_segment_size: d.private_segment_size,
        group_segment_size: d.group_segment_size,
        workgroup_size: rocprofiler_dim3_t { x: d.workgroup[0], y: d.workgroup[1], z: d.workgroup[2] },
        grid_size: rocprofiler_dim3_t { x: d.grid[0], y: d.grid[1], z: d.grid[2] },
        ..Default::default()
    };
    // Dispatch counting: each counting context's callback chooses a config, on this thread.
    let mut counting: Vec<(Counting, &'static counters::Config, rocprofiler_user_data_t)> = Vec::new();
    for ctx in context::active() {
        let Some(service) = ctx.counting() else { continue };
        let callback = match service {
            Counting::Buffer { callback, .. } | Counting::Callback { callback, .. } => callback,
        };
        let data = match service {
            Counting::Buffer { data, .. } | Counting::Callback { data, .. } => data,
        };
        let Some(callback) = callback else { continue };
        let mut config = rocprofiler_counter_config_id_t { handle: 0 };
        let mut user_data = rocprofiler_user_data_t { value: 0 };
        let dispatch_data = rocprofiler_dispatch_counting_service_data_t {
            size: std::mem::size_of::<rocprofiler_dispatch_counting_service_data_t>() as u64,
            correlation_id: correlation,
            start_timestamp: 0,
            end_timestamp: 0,
            dispatch_info: info,
        };
        // SAFETY: the tool's dispatch callback; `config` and `user_data` outlive it.
        unsafe { callback(dispatch_data, &mut config, &mut user_data, data as *mut std::ffi::c_void) };
        if config.handle == 0 {
            continue;
        }
        match counters::config(config.handle) {
            Some(cfg) if cfg.agent == agent.info.id.handle => counting.push((service, cfg, user_data)),
            Some(_) => log!("dispatch {dispatch_id}: counter config is for another agent; not collected"),
            None => log!("dispatch {dispatch_id}: unknown counter config {}; not collected", config.handle),
        }
    }
    let now = clock::now_ns();
    let agent_tail = &gpu::AGENT_TAIL[agents::index_of(agent) % gpu::AGENT_TAIL.len()];
    let mut start = (now + LAUNCH_LATENCY_NS).max(tail);
    if !counting.is_empty() {
        start = start.max(agent_tail.load(Ordering::Acquire));
    }
    // Scratch: the runtime grows the queue's scratch when a kernel needs more than it has.
    let items = u64::from(d.grid[0]) * u64::from(d.grid[1]) * u64::from(d.grid[2]);
    let need = u64::from(d.private_segment_size) * items.min(u64::from(agent.info.cu_count) * 32 * 64);
    let mut new_scratch = scratch;
    *result = SimDispatchResult::default();
    if need > scratch {
        new_scratch = need;
        let (s_start, s_end) = (now, now + 20_000);
        let record = rocprofiler_buffer_tracing_scratch_memory_record_t {
            size: std::mem::size_of::<rocprofiler_buffer_tracing_scratch_memory_record_t>() as u64,
            kind: ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY,
            operation: ROCPROFILER_SCRATCH_MEMORY_ALLOC,
            correlation_id: rocprofiler_correlation_id_t { internal: correlation.internal, ..Default::default() },
            agent_id: agent.info.id,
            queue_id: info.queue_id,
            thread_id: clock::thread_id(),
            start_timestamp: s_start,
            end_timestamp: s_end,
            flags: ROCPROFILER_SCRATCH_ALLOC_FLAG_NONE,
            allocation_size: need,
        };
        for buffer in buffers_for(ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY, ROCPROFILER_SCRATCH_MEMORY_ALLOC as i32) {
            buffer.emplace(&[Item {
                category: ROCPROFILER_BUFFER_CATEGORY_TRACING,
                kind: record.kind,
                payload: bytes_of(&record),
            }]);
        }
        result.scratch_bytes = need;
        result.scratch_start_ns = s_start;
        result.scratch_end_ns = s_end;
    }
    let record = rocprofiler_buffer_tracing_kernel_dispatch_record_t {
        size: std::mem::size_of::<rocprofiler_buffer_tracing_kernel_dispatch_record_t>() as u64,
        kind: ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
        operation: ROCPROFILER_KERNEL_DISPATCH_COMPLETE,
        correlation_id: correlation,
        thread_id: clock::thread_id(),
        start_timestamp: start,
        end_timestamp: 0,
        dispatch_info: info,
    };
    let targets = buffers_for(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, ROCPROFILER_KERNEL_DISPATCH_COMPLETE as i32);
    result.counters_collected = u32::from(!counting.is_empty());
    let mut collected: Vec<u64> = Vec::new();
    for (id, _) in counting.iter().flat_map(|(_, config, _)| &config.counters) {
        if !collected.contains(id) {
            collected.push(*id);
        }
    }
    collected.truncate(result.counter_ids.len());
    result.counter_ids[..collected.len()].copy_from_slice(&collected);
    result.counter_count = collected.len() as u32;
    result.dispatch_id = dispatch_id;
    result.agent_id = agent.info.id.handle;
    result.queue_id = queue_id;
    result.correlation_id = correlation.internal;
    result.start_ns = start;
    // Collectives (open ends) are not sampled: their samples would need an end the driver
    // learns only later.
    let pc_sampling = pc_sampling::active_for(agent.info.id.handle)
        .filter(|_| d.open_end == 0)
        .zip(agent.arch)
        .and_then(|(service, arch)| {
            let (code_object_id, kernel_offset) = runtime::kernel_code(d.kernel_id)?;
            result.pc_sampling_method = service.method;
            result.pc_sampling_interval = service.interval;
            result.code_object_id = code_object_id;
            result.kernel_offset = kernel_offset;
            let input = DispatchInput {
                arch,
                kernel_id: d.kernel_id,
                code_object_id,
                kernel_offset,
                dispatch_id,
                correlation_id: correlation.internal,
                start_ns: start,
                end_ns: start,
                grid: d.grid,
                workgroup: d.workgroup,
                activity: d.activity,
            };
            Some((service, input))
        });
    let pending = Pending {
        gpu: d.gpu,
        stream: d.stream,
        scratch: new_scratch,
        agent_tail,
        record,
        targets,
        counting,
        activity: d.activity,
        pc_sampling,
    };
    if d.open_end != 0 {
        // The queue keeps the kernel until its end is known: nothing after it can start.
        set_queue(d.gpu, d.stream, Tail::Open, new_scratch);
        OPEN.with(|open| open.borrow_mut().push(pending));
        return ROCPROFILER_STATUS_SUCCESS;
    }
    result.end_ns = finish(pending, start + d.duration_ns.max(1));
    ROCPROFILER_STATUS_SUCCESS
}

/// `rocprofiler_sim_dispatch_end`: the end the dispatch got.
pub fn dispatch_end(dispatch_id: u64, end_ns: u64) -> Result<u64, rocprofiler_status_t> {
    let pending = OPEN.with(|open| {
        let mut open = open.borrow_mut();
        let index = open.iter().position(|p| p.record.dispatch_info.dispatch_id == dispatch_id)?;
        Some(open.swap_remove(index))
    });
    let Some(pending) = pending else {
        log!("dispatch_end: dispatch {dispatch_id} is not open on this thread");
        return Err(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    };
    Ok(finish(pending, end_ns))
}

/// Ends a dispatch at `end_ns` (never before its start): the queue moves on, and its records go
/// to the completion thread. Returns the end.
fn finish(pending: Pending, end_ns: u64) -> u64 {
    let Pending { gpu, stream, scratch, agent_tail, mut record, targets, counting, activity, mut pc_sampling } =
        pending;
    let end = end_ns.max(record.start_timestamp + 1);
    record.end_timestamp = end;
    agent_tail.fetch_max(end, Ordering::AcqRel);
    set_queue(gpu, stream, Tail::At(end), scratch);
    if let Some((_, input)) = pc_sampling.as_mut() {
        input.end_ns = end;
    }
    let payload = gpu::Plain((record, counting));
    gpu::complete(gpu::Completion {
        end_ns: end,
        deliver: Box::new(move || {
            let (record, counting) = payload.into_inner();
            for buffer in targets {
                buffer.emplace(&[Item {
                    category: ROCPROFILER_BUFFER_CATEGORY_TRACING,
                    kind: record.kind,
                    payload: bytes_of(&record),
                }]);
            }
            for (service, config, user_data) in counting {
                deliver_counters(service, config, &record, &activity, user_data);
            }
            if let Some((service, input)) = pc_sampling {
                let sampling = Sampling { method: service.method, interval: service.interval };
                pc_samples::deliver(service.buffer, &input, sampling);
            }
        }),
    });
    end
}

fn deliver_counters(
    service: Counting,
    config: &counters::Config,
    record: &rocprofiler_buffer_tracing_kernel_dispatch_record_t,
    activity: &SimActivity,
    user_data: rocprofiler_user_data_t,
) {
    let mut values = counters::records(config, activity, record.dispatch_info.dispatch_id, user_data);
    match service {
        Counting::Buffer { buffer, .. } => {
            let header = rocprofiler_dispatch_counting_service_record_t {
                size: std::mem::size_of::<rocprofiler_dispatch_counting_service_record_t>() as u64,
                num_records: values.len() as u64,
                correlation_id: record.correlation_id,
                start_timestamp: record.start_timestamp,
                end_timestamp: record.end_timestamp,
                dispatch_info: record.dispatch_info,
            };
            let mut items = vec![Item {
                category: ROCPROFILER_BUFFER_CATEGORY_COUNTERS,
                kind: ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER,
                payload: bytes_of(&header),
            }];
            items.extend(values.iter().map(|v| Item {
                category: ROCPROFILER_BUFFER_CATEGORY_COUNTERS,
                kind: ROCPROFILER_COUNTER_RECORD_VALUE,
                payload: bytes_of(v),
            }));
            buffer.emplace(&items);
        }
        Counting::Callback { record_callback: Some(callback), record_data, .. } => {
            let data = rocprofiler_dispatch_counting_service_data_t {
                size: std::mem::size_of::<rocprofiler_dispatch_counting_service_data_t>() as u64,
                correlation_id: record.correlation_id,
                start_timestamp: record.start_timestamp,
                end_timestamp: record.end_timestamp,
                dispatch_info: record.dispatch_info,
            };
            // SAFETY: the tool's record callback; the records live until it returns.
            unsafe {
                callback(data, values.as_mut_ptr(), values.len(), user_data, record_data as *mut std::ffi::c_void)
            };
            // SAFETY: the records are SDK-owned and dead now.
            unsafe { std::ptr::write_bytes(values.as_mut_ptr(), POISON, values.len()) };
        }
        Counting::Callback { record_callback: None, .. } => {}
    }
}
