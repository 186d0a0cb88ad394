//! rocprofv3's CSV output directories: `kernel_trace.csv`, `hip_api_trace.csv` (or 0.x's
//! `hip_trace.csv`), `hsa_api_trace.csv`, `memory_copy_trace.csv`, `marker_api_trace.csv`,
//! `memory_allocation_trace.csv` (6.3's `memory_allocation.csv`), `scratch_memory_trace.csv`,
//! `counter_collection.csv`, `agent_info.csv` and the PC sampling files
//! (`pc_sampling_host_trap.csv`, `pc_sampling_stochastic.csv`: [`super::rocprofv3_pc`]), each
//! optionally prefixed with the process id (`1234_kernel_trace.csv`).
//!
//! Every generation from ROCm 6.2 (SDK 0.4) to 7.x is read; the README's table lists them.
//! Columns are found by name, so their order does not matter and columns a later rocprofv3
//! adds are ignored. Where a generation spells a fact differently, each spelling is read:
//! - kernel_trace: 6.2 has no `Thread_Id` or `Dispatch_Id` (dispatches are then numbered by
//!   their correlation ids, and the directory's counter rows join on theirs), and 6.2 to 6.4
//!   give `Private_Segment_Size` and `Group_Segment_Size` where 7.0 gives `Scratch_Size`,
//!   `LDS_Block_Size` and the register counts;
//! - counter_collection: 6.2 has no `Kernel_Id`, no timestamps (its dispatches get none) and
//!   whole-number values, 6.3 no `Accum_VGPR_Count`;
//! - `Agent_Id` is a bare logical node id before 7.0 and `Agent N` from it;
//! - scratch_memory_trace: `Alloc_flags` before 6.4; memory allocations: a decimal
//!   `Starting_Address` in 6.3's first form.
//!
//! A column the table needs that is missing, or a value that does not parse, is an error
//! naming the file, line and column.

use std::path::{Path, PathBuf};

use super::csv_table::{Table, prefix_pid};
use super::sink::{CounterRow, DispatchRow, Sink};
use crate::error::{Error, Result};
use rocprof_rs_format::launch::KernelLaunch;
use rocprof_rs_format::pc_sample::SampleMethod;

/// The CSV files of a rocprofv3 output directory that this reads, by kind.
pub fn files(dir: &Path) -> Result<Vec<(Kind, PathBuf)>> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io { path: dir.display().to_string(), source })?;
    let mut found: Vec<(Kind, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_owned();
            Kind::ALL
                .into_iter()
                .find(|k| k.suffixes().iter().any(|s| name == *s || name.ends_with(&format!("_{s}"))))
                .map(|k| (k, path))
        })
        .collect();
    // Kernels first: counter rows of a dispatch the kernel trace lacks bring their own.
    found.sort_by(|a, b| (a.0 != Kind::Kernel, &a.1).cmp(&(b.0 != Kind::Kernel, &b.1)));
    Ok(found)
}

/// The kinds of file read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Kernel,
    HipApi,
    HsaApi,
    MemoryCopy,
    Marker,
    MemoryAllocation,
    ScratchMemory,
    Counter,
    AgentInfo,
    PcHostTrap,
    PcStochastic,
}

impl Kind {
    const ALL: [Kind; 11] = [
        Kind::Kernel,
        Kind::HipApi,
        Kind::HsaApi,
        Kind::MemoryCopy,
        Kind::Marker,
        Kind::MemoryAllocation,
        Kind::ScratchMemory,
        Kind::Counter,
        Kind::AgentInfo,
        Kind::PcHostTrap,
        Kind::PcStochastic,
    ];

    fn suffixes(self) -> &'static [&'static str] {
        match self {
            Kind::Kernel => &["kernel_trace.csv"],
            Kind::HipApi => &["hip_api_trace.csv", "hip_trace.csv"],
            Kind::HsaApi => &["hsa_api_trace.csv", "hsa_trace.csv"],
            Kind::MemoryCopy => &["memory_copy_trace.csv"],
            Kind::Marker => &["marker_api_trace.csv"],
            Kind::MemoryAllocation => &["memory_allocation_trace.csv", "memory_allocation.csv"],
            Kind::ScratchMemory => &["scratch_memory_trace.csv"],
            Kind::Counter => &["counter_collection.csv"],
            Kind::AgentInfo => &["agent_info.csv"],
            Kind::PcHostTrap => &["pc_sampling_host_trap.csv"],
            Kind::PcStochastic => &["pc_sampling_stochastic.csv"],
        }
    }
}

/// The one process the files of a directory that name their process agree on, if they do: the
/// process of the files that do not (rocprofv3's kernel trace has no `Process_Id` column, and
/// `-o NAME` drops the pid from file names).
pub fn directory_pid(files: &[(Kind, PathBuf)]) -> Option<u32> {
    let mut seen = std::collections::BTreeSet::new();
    for (_, path) in files {
        if let Some(pid) = prefix_pid(path) {
            seen.insert(pid);
            continue;
        }
        let Ok(mut t) = Table::open(path, None) else { continue };
        if t.has("Process_Id") && t.next().unwrap_or(false) {
            seen.extend(t.u64("Process_Id").ok().map(|p| p as u32));
        }
    }
    if seen.len() == 1 { seen.into_iter().next() } else { None }
}

/// How a directory's dispatches are numbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DispatchIds {
    /// By their `Dispatch_Id` (ROCm 6.3 on).
    Own,
    /// By their `Correlation_Id`: 6.2's kernel trace has no dispatch id, so its counter rows
    /// join its dispatches on the correlation id both carry.
    Correlation,
}

/// How the directory's dispatches are numbered: by correlation id where a kernel trace has no
/// `Dispatch_Id`.
pub fn dispatch_ids(files: &[(Kind, PathBuf)]) -> DispatchIds {
    let lacks = |path: &PathBuf| Table::open(path, None).is_ok_and(|t| !t.has("Dispatch_Id"));
    if files.iter().any(|(kind, path)| *kind == Kind::Kernel && lacks(path)) {
        DispatchIds::Correlation
    } else {
        DispatchIds::Own
    }
}

/// Reads one file of `kind` into `sink`, files without a process of their own taking
/// `default_pid`; returns the rows read.
pub fn read(kind: Kind, path: &Path, default_pid: Option<u32>, ids: DispatchIds, sink: &mut Sink) -> Result<u64> {
    let mut t = Table::open(path, default_pid)?;
    let mut rows = 0;
    while t.next()? {
        rows += 1;
        match kind {
            Kind::Kernel => kernel(&t, ids, sink)?,
            Kind::HipApi => {
                let name = sink.name(t.text("Function")?);
                api(&t, name, &mut sink.hip_api.rows)?
            }
            Kind::HsaApi => {
                let name = sink.name(t.text("Function")?);
                api(&t, name, &mut sink.hsa_api.rows)?
            }
            Kind::MemoryCopy => copy(&t, sink)?,
            Kind::Marker => marker(&t, sink)?,
            Kind::MemoryAllocation => allocation(&t, sink)?,
            Kind::ScratchMemory => scratch(&t, sink)?,
            Kind::Counter => counter(&t, ids, sink)?,
            Kind::AgentInfo => super::rocprofv3_agents::agent(&t, sink)?,
            Kind::PcHostTrap => sink.pc_sums.read(&t, SampleMethod::HostTrap, &sink.dispatch_kernels)?,
            Kind::PcStochastic => sink.pc_sums.read(&t, SampleMethod::Stochastic, &sink.dispatch_kernels)?,
        }
        sink.write_full()?;
    }
    Ok(rows)
}

fn kernel(t: &Table, ids: DispatchIds, sink: &mut Sink) -> Result<()> {
    let (start_ns, end_ns) = t.span()?;
    let name = sink.name(t.text("Kernel_Name")?);
    // Read one by one in a fixed order, so of a row's bad values the same one is reported.
    let grid = [t.i64("Grid_Size_X")?, t.i64("Grid_Size_Y")?, t.i64("Grid_Size_Z")?];
    let block = [t.i32("Workgroup_Size_X")?, t.i32("Workgroup_Size_Y")?, t.i32("Workgroup_Size_Z")?];
    // 6.2 to 6.4 give no registers, and the packet's LDS and scratch rather than the
    // symbol's LDS rounded to its 512-byte blocks.
    let vgpr = t.i32_or("VGPR_Count")?;
    let shared_mem = t.i32_either("LDS_Block_Size", "Group_Segment_Size")?;
    let stream_id = if t.has("Stream_Id") { Some(t.i32("Stream_Id")?) } else { None };
    let (dispatch_id, correlation_id) = (dispatch_id(t, ids)?, t.u64("Correlation_Id")?);
    let (kernel_id, agent_id, queue_id) = (t.u64("Kernel_Id")?, t.agent("Agent_Id")?, t.u64("Queue_Id")?);
    let (thread_id, pid) = (t.u64_or("Thread_Id", 0)?, t.pid()?);
    let (accum_vgpr, sgpr) = (t.i32_or("Accum_VGPR_Count")?, t.i32_or("SGPR_Count")?);
    let scratch_size = t.i32_either("Scratch_Size", "Private_Segment_Size")?;
    sink.push_dispatch(DispatchRow {
        launch: KernelLaunch {
            start_ns,
            end_ns,
            grid,
            block,
            shared_mem,
            stream_id,
            dispatch_id,
            correlation_id,
            kernel_id,
            agent_id,
            queue_id,
            thread_id,
            scratch_size,
            ..KernelLaunch::default()
        },
        name,
        pid,
        vgpr,
        accum_vgpr,
        sgpr,
        ..DispatchRow::default()
    });
    Ok(())
}

/// The row's dispatch id as the directory numbers them.
fn dispatch_id(t: &Table, ids: DispatchIds) -> Result<u64> {
    match ids {
        DispatchIds::Own => t.u64("Dispatch_Id"),
        DispatchIds::Correlation => t.u64("Correlation_Id"),
    }
}

fn api(t: &Table, name: std::sync::Arc<str>, a: &mut rocprof_rs_format::ApiCall) -> Result<()> {
    let (start, end) = t.span()?;
    a.push(rocprof_rs_format::ApiCallRow {
        operation: &name,
        start_ns: start,
        end_ns: end,
        duration_ns: end - start,
        correlation_id: t.u64("Correlation_Id")?,
        ancestor_id: t.u64_or("Ancestor_Id", 0)?,
        thread_id: t.u64("Thread_Id")?,
        pid: t.pid()?,
    });
    Ok(())
}

fn copy(t: &Table, sink: &mut Sink) -> Result<()> {
    let (start, end) = t.span()?;
    let (src, dst) = (t.agent("Source_Agent_Id")?, t.agent("Destination_Agent_Id")?);
    let pid = t.pid()?;
    sink.agent_seen(pid, src);
    sink.agent_seen(pid, dst);
    let c = &mut sink.copy.rows;
    c.push(rocprof_rs_format::MemoryCopyRow {
        operation: t.text("Direction")?,
        start_ns: start,
        end_ns: end,
        duration_ns: end - start,
        bytes: t.u64_or("Copy_Bytes", 0)?,
        src_agent_id: src,
        dst_agent_id: dst,
        src_address: if t.has("Source_Address") { t.address("Source_Address")? } else { 0 },
        dst_address: if t.has("Destination_Address") { t.address("Destination_Address")? } else { 0 },
        correlation_id: t.u64("Correlation_Id")?,
        thread_id: t.u64_or("Thread_Id", 0)?,
        pid: t.pid()?,
        vendor: &rocprof_rs_format::vendor::AMD,
        stream_id: None,
    });
    Ok(())
}

fn marker(t: &Table, sink: &mut Sink) -> Result<()> {
    let (start, end) = t.span()?;
    let m = &mut sink.marker.rows;
    m.push(rocprof_rs_format::MarkerRow {
        message: t.text("Function")?,
        operation: t.text("Domain")?,
        start_ns: start,
        end_ns: end,
        duration_ns: end - start,
        depth: None,
        correlation_id: t.u64("Correlation_Id")?,
        thread_id: t.u64("Thread_Id")?,
        pid: t.pid()?,
        vendor: &rocprof_rs_format::vendor::AMD,
        domain: None,
    });
    Ok(())
}

fn allocation(t: &Table, sink: &mut Sink) -> Result<()> {
    let (start, end) = t.span()?;
    let agent = t.agent("Agent_Id")?;
    sink.agent_seen(t.pid()?, agent);
    let a = &mut sink.allocation.rows;
    a.push(rocprof_rs_format::MemoryAllocationRow {
        operation: t.text("Operation")?,
        start_ns: start,
        end_ns: end,
        duration_ns: end - start,
        address: t.address(if t.has("Address") { "Address" } else { "Starting_Address" })?,
        bytes: t.u64("Allocation_Size")?,
        agent_id: agent,
        correlation_id: t.u64("Correlation_Id")?,
        thread_id: t.u64_or("Thread_Id", 0)?,
        pid: t.pid()?,
    });
    Ok(())
}

fn scratch(t: &Table, sink: &mut Sink) -> Result<()> {
    let (start, end) = t.span()?;
    let agent = t.agent("Agent_Id")?;
    sink.agent_seen(t.pid()?, agent);
    let s = &mut sink.scratch.rows;
    s.push(rocprof_rs_format::ScratchMemoryRow {
        operation: t.text("Operation")?,
        start_ns: start,
        end_ns: end,
        duration_ns: end - start,
        bytes: t.u64_or("Allocation_Size", 0)?,
        flags: t.u64(if t.has("Alloc_Flags") { "Alloc_Flags" } else { "Alloc_flags" })? as u32,
        agent_id: agent,
        queue_id: t.u64("Queue_Id")?,
        correlation_id: t.u64_or("Correlation_Id", 0)?,
        thread_id: t.u64("Thread_Id")?,
        pid: t.pid()?,
    });
    Ok(())
}

fn counter(t: &Table, ids: DispatchIds, sink: &mut Sink) -> Result<()> {
    let agent = t.agent("Agent_Id")?;
    sink.agent_seen(t.pid()?, agent);
    let kernel = sink.name(t.text("Kernel_Name")?);
    let dispatch = dispatch_id(t, ids)?;
    // 6.2 writes no timestamps: its dispatches have none (start and end 0). Later versions'
    // rows with both 0 are counters whose dispatch the kernel trace has, or lost.
    let timed = t.has("Start_Timestamp");
    let unknown_times = timed && t.u64("Start_Timestamp")? == 0 && t.u64("End_Timestamp")? == 0;
    if !unknown_times && !sink.dispatches.contains(&(t.pid()?, dispatch)) {
        // A dispatch only the counter file knows: its row carries the dispatch's facts (grid and
        // workgroup as their products), which would otherwise be lost.
        let (start_ns, end_ns) = if timed { t.span()? } else { (0, 0) };
        let (grid, block) = ([t.i64("Grid_Size")?, 1, 1], [t.i32("Workgroup_Size")?, 1, 1]);
        let (vgpr, shared_mem) = (t.i32("VGPR_Count")?, t.i32("LDS_Block_Size")?);
        let (correlation_id, kernel_id) = (t.u64("Correlation_Id")?, t.u64_or("Kernel_Id", 0)?);
        let (queue_id, thread_id, pid) = (t.u64("Queue_Id")?, t.u64("Thread_Id")?, t.pid()?);
        let (accum_vgpr, sgpr) = (t.i32_or("Accum_VGPR_Count")?, t.i32("SGPR_Count")?);
        let scratch_size = t.i32("Scratch_Size")?;
        sink.push_dispatch(DispatchRow {
            launch: KernelLaunch {
                start_ns,
                end_ns,
                grid,
                block,
                shared_mem,
                dispatch_id: dispatch,
                correlation_id,
                kernel_id,
                agent_id: agent,
                queue_id,
                thread_id,
                scratch_size,
                ..KernelLaunch::default()
            },
            name: kernel.clone(),
            pid,
            vgpr,
            accum_vgpr,
            sgpr,
            ..DispatchRow::default()
        });
    }
    let counter = sink.name(t.text("Counter_Name")?);
    sink.push_counter(CounterRow {
        dispatch_id: dispatch,
        correlation_id: t.u64("Correlation_Id")?,
        agent_id: agent,
        kernel_id: t.u64_or("Kernel_Id", 0)?,
        kernel,
        counter,
        value: t.f64("Counter_Value")?,
        pid: t.pid()?,
        ..CounterRow::default()
    });
    Ok(())
}
