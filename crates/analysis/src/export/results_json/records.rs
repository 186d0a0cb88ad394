//! `buffer_records`: each table's rows as rocprofv3's serializer writes the SDK's records
//! (`save.hpp` and the tool's `*_ext` records at ROCm/rocm-systems 1b1610fc), field for field
//! and in its order, streamed a batch at a time.
//!
//! A record's `size` is the SDK struct's size in rocprofv3; it says nothing about the record,
//! and is 0 here. What the dataset does not record is written as the SDK's neutral value:
//! a HIP call's `args` (`[]`) and `retval` (0), a stream (0, rocprofv3's "no stream").

use std::path::Path;

use rocprof_rs_format::Table;
use serde::Serialize;

use super::names::{self, Names};
use super::out::Outputs;
use crate::error::{Error, Result};
use crate::read::{Batch, batches};
use rocprof_rs_format::read::Col;

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(super) struct Handle {
    pub handle: u64,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(super) struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

/// The correlation id of an asynchronous record (a dispatch, a copy): no ancestor.
#[derive(Debug, Clone, Copy, Serialize)]
pub(super) struct AsyncCorrelation {
    pub internal: u64,
    pub external: u64,
}

#[derive(Debug, Clone, Copy, Serialize)]
struct Correlation {
    internal: u64,
    external: u64,
    ancestor: u64,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub(super) struct DispatchInfo {
    pub size: u64,
    pub agent_id: Handle,
    pub queue_id: Handle,
    pub kernel_id: u64,
    pub dispatch_id: u64,
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub workgroup_size: Dim3,
    /// In work-items.
    pub grid_size: Dim3,
}

#[derive(Debug, Serialize)]
struct KernelDispatch {
    size: u64,
    kind: usize,
    operation: usize,
    thread_id: u64,
    correlation_id: AsyncCorrelation,
    start_timestamp: u64,
    end_timestamp: u64,
    dispatch_info: DispatchInfo,
    stream_id: Handle,
}

/// An HSA or RCCL call, or a ROCTx record.
#[derive(Debug, Serialize)]
struct Api {
    size: u64,
    kind: usize,
    operation: usize,
    correlation_id: Correlation,
    start_timestamp: u64,
    end_timestamp: u64,
    thread_id: u64,
}

/// A HIP call (`rocprofiler_buffer_tracing_hip_api_ext_record_t`).
#[derive(Debug, Serialize)]
struct HipApi {
    size: u64,
    kind: usize,
    operation: usize,
    correlation_id: Correlation,
    start_timestamp: u64,
    end_timestamp: u64,
    thread_id: u64,
    args: [(); 0],
    retval: Retval,
    stream_id: Handle,
}

#[derive(Debug, Serialize)]
struct Retval {
    uint64_t_retval: u64,
}

#[derive(Debug, Serialize)]
struct MemoryCopy {
    size: u64,
    kind: usize,
    operation: usize,
    thread_id: u64,
    correlation_id: AsyncCorrelation,
    start_timestamp: u64,
    end_timestamp: u64,
    dst_agent_id: Handle,
    src_agent_id: Handle,
    bytes: u64,
    stream_id: Handle,
}

#[derive(Debug, Serialize)]
struct MemoryAllocation {
    size: u64,
    kind: usize,
    operation: usize,
    thread_id: u64,
    correlation_id: Correlation,
    start_timestamp: u64,
    end_timestamp: u64,
    agent_id: Handle,
    /// `0x%016x`, as rocprofv3 writes it.
    address: String,
    allocation_size: u64,
    stream_id: Handle,
}

#[derive(Debug, Serialize)]
struct ScratchMemory {
    size: u64,
    kind: usize,
    operation: usize,
    agent_id: Handle,
    queue_id: Handle,
    thread_id: u64,
    start_timestamp: u64,
    end_timestamp: u64,
    correlation_id: Correlation,
    flags: u64,
    allocation_size: u64,
}

/// The columns of a `kernel_dispatch` batch that make a record's `dispatch_info`.
pub(super) struct DispatchColumns<'a> {
    agent: Col<'a>,
    queue: Col<'a>,
    kernel: Col<'a>,
    dispatch: Col<'a>,
    scratch: Col<'a>,
    lds: Col<'a>,
    block: [Col<'a>; 3],
    grid: [Col<'a>; 3],
    stream: Col<'a>,
}

impl<'a> DispatchColumns<'a> {
    pub fn of(b: &Batch<'a>) -> Result<DispatchColumns<'a>> {
        let c = |n| b.col(n);
        Ok(DispatchColumns {
            agent: c("agent_id")?,
            queue: c("queue_id")?,
            kernel: c("kernel_id")?,
            dispatch: c("dispatch_id")?,
            scratch: c("scratch_size")?,
            lds: c("shared_mem")?,
            block: [c("block_x")?, c("block_y")?, c("block_z")?],
            grid: [c("grid_x")?, c("grid_y")?, c("grid_z")?],
            stream: c("stream_id")?,
        })
    }

    /// Row `i`'s `dispatch_info`; a size beyond the SDK's 32 bits (a CUDA grid can be) is an
    /// error naming the dispatch.
    pub fn info(&self, i: usize) -> Result<DispatchInfo> {
        let dispatch_id = self.dispatch.u64(i);
        let field = |col: &Col<'_>, name: &str| -> Result<u32> {
            let value = col.i64(i);
            u32::try_from(value).map_err(|_| {
                Error::Invalid(format!(
                    "kernel_dispatch: dispatch {dispatch_id}: {name} {value} does not fit rocprofv3's 32-bit field; \
                     the JSON export cannot write it"
                ))
            })
        };
        let dim = |cols: &[Col<'_>; 3], name: &str| -> Result<Dim3> {
            Ok(Dim3 { x: field(&cols[0], name)?, y: field(&cols[1], name)?, z: field(&cols[2], name)? })
        };
        Ok(DispatchInfo {
            size: 0,
            agent_id: Handle { handle: self.agent.u64(i) },
            queue_id: Handle { handle: self.queue.u64(i) },
            kernel_id: self.kernel.u64(i),
            dispatch_id,
            private_segment_size: field(&self.scratch, "private_segment_size")?,
            group_segment_size: field(&self.lds, "group_segment_size")?,
            workgroup_size: dim(&self.block, "workgroup_size")?,
            grid_size: dim(&self.grid, "grid_size")?,
        })
    }

    /// Row `i`'s stream: the dataset's (CUDA's), or 0.
    pub fn stream(&self, i: usize) -> Handle {
        Handle { handle: self.stream.opt_i64(i).map_or(0, |s| s as u64) }
    }
}

/// `buffer_records.kernel_dispatch`.
pub(super) fn dispatches(dir: &Path, out: &mut Outputs) -> Result<()> {
    out.begin_array("kernel_dispatch")?;
    batches(dir, Table::KernelDispatch, |b| {
        let c = |n| b.col(n);
        let (pid, thread, correlation, external, start, end) =
            (c("pid")?, c("thread_id")?, c("correlation_id")?, c("external_id")?, c("start_ns")?, c("end_ns")?);
        let columns = DispatchColumns::of(b)?;
        for i in 0..b.rows() {
            let record = KernelDispatch {
                size: 0,
                kind: names::KERNEL_DISPATCH,
                operation: names::KERNEL_DISPATCH_COMPLETE,
                thread_id: thread.u64(i),
                correlation_id: AsyncCorrelation { internal: correlation.u64(i), external: external.u64(i) },
                start_timestamp: start.u64(i),
                end_timestamp: end.u64(i),
                dispatch_info: columns.info(i)?,
                stream_id: columns.stream(i),
            };
            out.item(pid.u64(i) as u32, &record, true)?;
        }
        Ok(())
    })?;
    out.end_array()
}

/// `buffer_records.hip_api`, `hsa_api`, `rccl_api` or `marker_api`, from `table`.
pub(super) fn calls(dir: &Path, table: Table, section: &str, names: &Names, out: &mut Outputs) -> Result<()> {
    out.begin_array(section)?;
    batches(dir, table, |b| {
        let c = |n| b.col(n);
        let (op, pid, thread, correlation, start, end) =
            (c("operation")?, c("pid")?, c("thread_id")?, c("correlation_id")?, c("start_ns")?, c("end_ns")?);
        // Markers have no ancestor column: their calls are the application's own.
        let ancestor = if table == Table::Marker { None } else { Some(c("ancestor_id")?) };
        for i in 0..b.rows() {
            let name = op.text(i);
            let kind = names::kind_of(table, name);
            let correlation_id = Correlation {
                internal: correlation.u64(i),
                external: 0,
                ancestor: ancestor.as_ref().map_or(0, |a| a.u64(i)),
            };
            let (operation, start, end, thread) =
                (names.operation(kind, name), start.u64(i), end.u64(i), thread.u64(i));
            let pid = pid.u64(i) as u32;
            if table == Table::HipApi {
                let record = HipApi {
                    size: 0,
                    kind,
                    operation,
                    correlation_id,
                    start_timestamp: start,
                    end_timestamp: end,
                    thread_id: thread,
                    args: [],
                    retval: Retval { uint64_t_retval: 0 },
                    stream_id: Handle { handle: 0 },
                };
                out.item(pid, &record, true)?;
            } else {
                let record = Api {
                    size: 0,
                    kind,
                    operation,
                    correlation_id,
                    start_timestamp: start,
                    end_timestamp: end,
                    thread_id: thread,
                };
                out.item(pid, &record, true)?;
            }
        }
        Ok(())
    })?;
    out.end_array()
}

/// `buffer_records.memory_copy`.
pub(super) fn copies(dir: &Path, names: &Names, out: &mut Outputs) -> Result<()> {
    out.begin_array("memory_copy")?;
    batches(dir, Table::MemoryCopy, |b| {
        let c = |n| b.col(n);
        let (op, pid, thread, correlation, start, end) =
            (c("operation")?, c("pid")?, c("thread_id")?, c("correlation_id")?, c("start_ns")?, c("end_ns")?);
        let (src, dst, bytes, stream) = (c("src_agent_id")?, c("dst_agent_id")?, c("bytes")?, c("stream_id")?);
        for i in 0..b.rows() {
            let record = MemoryCopy {
                size: 0,
                kind: names::MEMORY_COPY,
                operation: names.operation(names::MEMORY_COPY, op.text(i)),
                thread_id: thread.u64(i),
                correlation_id: AsyncCorrelation { internal: correlation.u64(i), external: 0 },
                start_timestamp: start.u64(i),
                end_timestamp: end.u64(i),
                dst_agent_id: Handle { handle: dst.u64(i) },
                src_agent_id: Handle { handle: src.u64(i) },
                bytes: bytes.u64(i),
                stream_id: Handle { handle: stream.opt_i64(i).map_or(0, |s| s as u64) },
            };
            out.item(pid.u64(i) as u32, &record, true)?;
        }
        Ok(())
    })?;
    out.end_array()
}

/// `buffer_records.memory_allocation`.
pub(super) fn allocations(dir: &Path, names: &Names, out: &mut Outputs) -> Result<()> {
    out.begin_array("memory_allocation")?;
    batches(dir, Table::MemoryAllocation, |b| {
        let c = |n| b.col(n);
        let (op, pid, thread, correlation, start, end) =
            (c("operation")?, c("pid")?, c("thread_id")?, c("correlation_id")?, c("start_ns")?, c("end_ns")?);
        let (agent, address, bytes) = (c("agent_id")?, c("address")?, c("bytes")?);
        for i in 0..b.rows() {
            let record = MemoryAllocation {
                size: 0,
                kind: names::MEMORY_ALLOCATION,
                operation: names.operation(names::MEMORY_ALLOCATION, op.text(i)),
                thread_id: thread.u64(i),
                correlation_id: Correlation { internal: correlation.u64(i), external: 0, ancestor: 0 },
                start_timestamp: start.u64(i),
                end_timestamp: end.u64(i),
                agent_id: Handle { handle: agent.u64(i) },
                address: format!("0x{:016x}", address.u64(i)),
                allocation_size: bytes.u64(i),
                stream_id: Handle { handle: 0 },
            };
            out.item(pid.u64(i) as u32, &record, true)?;
        }
        Ok(())
    })?;
    out.end_array()
}

/// `buffer_records.scratch_memory`, with HEAD's `allocation_size`.
pub(super) fn scratch(dir: &Path, names: &Names, out: &mut Outputs) -> Result<()> {
    out.begin_array("scratch_memory")?;
    batches(dir, Table::ScratchMemory, |b| {
        let c = |n| b.col(n);
        let (op, pid, thread, correlation, start, end) =
            (c("operation")?, c("pid")?, c("thread_id")?, c("correlation_id")?, c("start_ns")?, c("end_ns")?);
        let (agent, queue, flags, bytes) = (c("agent_id")?, c("queue_id")?, c("flags")?, c("bytes")?);
        for i in 0..b.rows() {
            let record = ScratchMemory {
                size: 0,
                kind: names::SCRATCH_MEMORY,
                operation: names.operation(names::SCRATCH_MEMORY, op.text(i)),
                agent_id: Handle { handle: agent.u64(i) },
                queue_id: Handle { handle: queue.u64(i) },
                thread_id: thread.u64(i),
                start_timestamp: start.u64(i),
                end_timestamp: end.u64(i),
                correlation_id: Correlation { internal: correlation.u64(i), external: 0, ancestor: 0 },
                flags: flags.u64(i),
                allocation_size: bytes.u64(i),
            };
            out.item(pid.u64(i) as u32, &record, true)?;
        }
        Ok(())
    })?;
    out.end_array()
}
