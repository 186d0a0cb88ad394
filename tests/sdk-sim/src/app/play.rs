//! One application thread's steps, played against the simulated runtime, with the truth row of
//! every record each step makes the SDK emit.

use std::ffi::CString;
use std::io::Write;
use std::path::Path;

use rocprofiler_sdk_sys::*;

use super::{Loaded, Runtime, check};
use crate::hw;
use crate::kernels::{CATALOG, Launch, MEMSET_KERNEL};
use crate::ops::{MARKER_CORE, MEMORY_COPY, hip_name};
use crate::pc_model::{DispatchInput, Sampling};
use crate::runtime_abi::*;
use crate::truth::Row;
use crate::workload::{Step, Workload};

impl Runtime {
    pub(super) fn api_call(
        &self,
        kind: u32,
        operation: i32,
        message: Option<&CString>,
        range_id: u64,
    ) -> (SimApiCall, SimApiSpan) {
        let call = SimApiCall { kind, operation, message: message.map_or(std::ptr::null(), |m| m.as_ptr()), range_id };
        let mut span = SimApiSpan::default();
        // SAFETY: valid call and span structs.
        check("api enter", unsafe { (self.api.rocprofiler_sim_api_enter)(&call, &mut span) });
        (call, span)
    }

    pub(super) fn api_end(&self, call: &SimApiCall, span: &mut SimApiSpan) {
        // SAFETY: the call and span enter returned.
        check("api exit", unsafe { (self.api.rocprofiler_sim_api_exit)(call, span) });
    }
}

pub(super) fn thread_id() -> u64 {
    // SAFETY: gettid takes no arguments.
    unsafe { libc::syscall(libc::SYS_gettid) as u64 }
}

/// The truth rows of an API call: its record, and for HIP also its callback.
pub(super) fn api_rows(out: &mut String, record: &str, span: &SimApiSpan, op: &str) {
    Row {
        record,
        thread_id: Some(span.thread_id),
        correlation_id: Some(span.correlation_id),
        ancestor_id: Some(span.ancestor_id),
        operation: Some(op),
        start_ns: Some(span.start_ns),
        end_ns: Some(span.end_ns),
        ..Row::default()
    }
    .write_to(out);
    if record == "hip_api" {
        Row {
            record: "hip_api_callback",
            thread_id: Some(span.thread_id),
            correlation_id: Some(span.correlation_id),
            ancestor_id: Some(span.ancestor_id),
            operation: Some(op),
            ..Row::default()
        }
        .write_to(out);
    }
}

pub(super) const HIP: u32 = ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API;
pub(super) const MARKER: u32 = ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API;

#[allow(clippy::too_many_lines)]
pub(super) fn play(
    rt: &Runtime,
    workload: &Workload,
    thread: u32,
    loaded: &Loaded,
    part: Option<&Path>,
) -> std::io::Result<()> {
    // Without a part file the rows are built and thrown away, so the cost stays the same.
    let mut file = match part {
        Some(path) => Some(std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?)),
        None => None,
    };
    let mut out = String::with_capacity(1 << 16);
    let tid = thread_id();
    let mut addresses = [0u64; crate::workload::SLOTS];
    let mut ranges: Vec<CString> = Vec::new();
    let mut process_range: Option<(u64, CString)> = None;
    for step in workload.thread(thread) {
        let (op, kind) = match &step {
            Step::SetDevice { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice, HIP),
            Step::Malloc { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, HIP),
            Step::Free { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipFree, HIP),
            Step::Copy { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync, HIP),
            Step::Launch { kernel, .. } if CATALOG[*kernel].launch == Launch::Module => {
                (ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel, HIP)
            }
            Step::Launch { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel, HIP),
            Step::Memset { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync, HIP),
            Step::StreamSynchronize { .. } => (ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize, HIP),
            Step::DeviceSynchronize => (ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize, HIP),
            Step::Mark { .. } => (ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA, MARKER),
            Step::Push { .. } => (ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, MARKER),
            Step::Pop => (ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, MARKER),
            Step::StartRange { .. } => (ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA, MARKER),
            Step::StopRange => (ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop, MARKER),
        };
        let message = match &step {
            Step::Mark { message } | Step::Push { message } | Step::StartRange { message } => {
                Some(CString::new(message.as_str()).expect("messages have no NUL"))
            }
            _ => None,
        };
        let stop_id = process_range.as_ref().map_or(0, |(id, _)| *id);
        let (call, mut span) =
            rt.api_call(kind, op, message.as_ref(), if matches!(step, Step::StopRange) { stop_id } else { 0 });
        match &step {
            Step::Malloc { gpu, slot, .. } | Step::Free { gpu, slot } => {
                let (operation, size) = match &step {
                    Step::Malloc { bytes, .. } => (ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, *bytes),
                    _ => (ROCPROFILER_MEMORY_ALLOCATION_FREE, 0),
                };
                if operation == ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE {
                    addresses[*slot] = 0x7ff0_0000_0000 + (u64::from(thread) << 36) + ((*slot as u64) << 32);
                }
                let a = SimAllocation { operation, gpu: *gpu, address: addresses[*slot], size };
                let mut r = SimAllocationResult::default();
                // SAFETY: valid structs.
                check("allocation", unsafe { (rt.api.rocprofiler_sim_memory_allocation)(&a, &mut r) });
                Row {
                    record: "memory_allocation",
                    thread_id: Some(tid),
                    correlation_id: Some(r.correlation_id),
                    operation: Some(if size > 0 { "MEMORY_ALLOCATION_ALLOCATE" } else { "MEMORY_ALLOCATION_FREE" }),
                    agent_id: Some(r.agent_id),
                    start_ns: Some(r.start_ns),
                    end_ns: Some(r.end_ns),
                    bytes: Some(size),
                    dst_address: Some(a.address),
                    ..Row::default()
                }
                .write_to(&mut out);
            }
            Step::Copy { src, dst, slot, bytes, stream } => {
                let host = 0x5500_0000_0000 + (u64::from(thread) << 32) + ((*slot as u64) << 28);
                let c = SimCopy {
                    src_gpu: src.unwrap_or(SIM_HOST),
                    dst_gpu: dst.unwrap_or(SIM_HOST),
                    stream: *stream,
                    bytes: *bytes,
                    src_address: if src.is_some() { addresses[*slot] } else { host },
                    dst_address: if dst.is_some() {
                        addresses[*slot] + if src.is_some() { bytes / 2 } else { 0 }
                    } else {
                        host
                    },
                    duration_ns: 2_000 + bytes / 50,
                };
                let mut r = SimCopyResult::default();
                // SAFETY: valid structs.
                check("memory copy", unsafe { (rt.api.rocprofiler_sim_memory_copy)(&c, &mut r) });
                Row {
                    record: "memory_copy",
                    thread_id: Some(tid),
                    correlation_id: Some(r.correlation_id),
                    operation: Some(MEMORY_COPY[r.operation as usize]),
                    start_ns: Some(r.start_ns),
                    end_ns: Some(r.end_ns),
                    bytes: Some(c.bytes),
                    src_agent_id: Some(r.src_agent_id),
                    dst_agent_id: Some(r.dst_agent_id),
                    src_address: Some(c.src_address),
                    dst_address: Some(c.dst_address),
                    ..Row::default()
                }
                .write_to(&mut out);
            }
            Step::Launch { kernel, gpu, stream, grid, workgroup, dynamic_lds } => {
                dispatch(rt, &mut out, tid, *kernel, *gpu, *stream, *grid, *workgroup, *dynamic_lds, loaded);
            }
            Step::Memset { gpu, stream, bytes, .. } => {
                let items = (*bytes / 16).clamp(256, 1 << 24) as u32;
                dispatch(rt, &mut out, tid, MEMSET_KERNEL, *gpu, *stream, [items, 1, 1], [256, 1, 1], 0, loaded);
            }
            _ => {}
        }
        rt.api_end(&call, &mut span);
        if matches!(step, Step::Launch { .. }) {
            super::pace();
        }
        let record = if kind == HIP { "hip_api" } else { "marker_api" };
        let name = if kind == HIP { hip_name(op).unwrap_or("unknown") } else { MARKER_CORE[op as usize] };
        api_rows(&mut out, record, &span, name);
        let range_row = |out: &mut String, corr: u64, op: &str, message: &CString| {
            Row {
                record: "marker_range",
                correlation_id: Some(corr),
                operation: Some(op),
                name: Some(&message.to_string_lossy()),
                ..Row::default()
            }
            .write_to(out);
        };
        match step {
            Step::Mark { .. } => range_row(&mut out, span.correlation_id, "roctxMarkA", message.as_ref().unwrap()),
            Step::Push { .. } => ranges.push(message.clone().unwrap()),
            Step::Pop => {
                if let Some(m) = ranges.pop() {
                    // The range's correlation id is the push's; the truth keeps it with the name.
                    range_row(
                        &mut out,
                        RANGE_CORR.with(|r| r.borrow_mut().pop().unwrap_or(0)),
                        "roctxThreadRangeA",
                        &m,
                    );
                }
            }
            Step::StartRange { .. } => process_range = Some((span.range_id, message.clone().unwrap())),
            Step::StopRange => {
                if let Some((_, m)) = process_range.take() {
                    range_row(&mut out, PROCESS_CORR.with(|c| c.take()), "roctxProcessRangeA", &m);
                }
            }
            _ => {}
        }
        if matches!(step, Step::Push { .. }) {
            RANGE_CORR.with(|r| r.borrow_mut().push(span.correlation_id));
        }
        if matches!(step, Step::StartRange { .. }) {
            PROCESS_CORR.with(|c| c.set(span.correlation_id));
        }
        if out.len() > 1 << 16 {
            if let Some(file) = &mut file {
                file.write_all(out.as_bytes())?;
            }
            out.clear();
        }
    }
    match &mut file {
        Some(file) => {
            file.write_all(out.as_bytes())?;
            file.flush()
        }
        None => Ok(()),
    }
}

thread_local! {
    static RANGE_CORR: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    static PROCESS_CORR: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Launches catalog kernel `kernel` and writes its truth rows.
#[allow(clippy::too_many_arguments)]
pub(super) fn dispatch(
    rt: &Runtime,
    out: &mut String,
    tid: u64,
    kernel: usize,
    gpu: u32,
    stream: u32,
    grid: [u32; 3],
    workgroup: [u32; 3],
    dynamic_lds: u32,
    loaded: &Loaded,
) {
    let spec = &CATALOG[kernel];
    let items = grid.iter().map(|&g| u64::from(g)).product::<u64>();
    let duration = spec.duration_ns(items);
    let d = SimDispatch {
        gpu,
        stream,
        kernel_id: loaded.kernel_ids[gpu as usize][kernel],
        grid,
        workgroup,
        group_segment_size: spec.lds + dynamic_lds,
        private_segment_size: spec.scratch,
        duration_ns: duration,
        activity: spec.activity(items, workgroup.iter().product(), duration),
        open_end: 0,
    };
    let mut r = SimDispatchResult::default();
    // SAFETY: valid structs.
    check("dispatch", unsafe { (rt.api.rocprofiler_sim_dispatch)(&d, &mut r) });
    dispatch_rows(out, tid, &d, &r);
    if r.pc_sampling_method != ROCPROFILER_PC_SAMPLING_METHOD_NONE {
        let input = DispatchInput {
            arch: loaded.archs[gpu as usize],
            kernel_id: d.kernel_id,
            code_object_id: r.code_object_id,
            kernel_offset: r.kernel_offset,
            dispatch_id: r.dispatch_id,
            correlation_id: r.correlation_id,
            start_ns: r.start_ns,
            end_ns: r.end_ns,
            grid,
            workgroup,
            activity: d.activity,
        };
        let sampling = Sampling { method: r.pc_sampling_method, interval: r.pc_sampling_interval };
        loaded.pc_sampled.lock().unwrap().push((input, sampling));
    }
}

/// The truth rows of dispatch `d`, which the SDK recorded as `r`: the dispatch, the counters
/// collected for it and the scratch allocation it triggered.
pub(super) fn dispatch_rows(out: &mut String, tid: u64, d: &SimDispatch, r: &SimDispatchResult) {
    Row {
        record: "kernel_dispatch",
        thread_id: Some(tid),
        correlation_id: Some(r.correlation_id),
        agent_id: Some(r.agent_id),
        queue_id: Some(r.queue_id),
        kernel_id: Some(d.kernel_id),
        dispatch_id: Some(r.dispatch_id),
        start_ns: Some(r.start_ns),
        end_ns: Some(r.end_ns),
        grid: Some(d.grid),
        workgroup: Some(d.workgroup),
        lds_bytes: Some(u64::from(d.group_segment_size)),
        scratch_bytes: Some(u64::from(d.private_segment_size)),
        ..Row::default()
    }
    .write_to(out);
    // The counters the SDK collected for this dispatch (whichever config the tool chose), each
    // with its value computed here from the dispatch's activity, not read back from the SDK.
    for &id in &r.counter_ids[..r.counter_count as usize] {
        let Some((_, counter)) = hw::counter_by_id(id) else { continue };
        Row {
            record: "counter",
            correlation_id: Some(r.correlation_id),
            agent_id: Some(r.agent_id),
            dispatch_id: Some(r.dispatch_id),
            value: Some(hw::total(counter, &d.activity)),
            name: Some(counter.name()),
            ..Row::default()
        }
        .write_to(out);
    }
    if r.scratch_bytes > 0 {
        Row {
            record: "scratch_memory",
            thread_id: Some(tid),
            correlation_id: Some(r.correlation_id),
            operation: Some("SCRATCH_MEMORY_ALLOC"),
            agent_id: Some(r.agent_id),
            queue_id: Some(r.queue_id),
            start_ns: Some(r.scratch_start_ns),
            end_ns: Some(r.scratch_end_ns),
            bytes: Some(r.scratch_bytes),
            ..Row::default()
        }
        .write_to(out);
    }
}
