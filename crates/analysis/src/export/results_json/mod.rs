//! A dataset as rocprofv3's `--output-format json` writes it: `<pid>_results.json`, one per
//! process, in the layout of `generateJSON.cpp` at ROCm/rocm-systems 1b1610fc (ROCm 7.0's):
//! one line of JSON, `{"rocprofiler-sdk-tool":[{metadata, agents, counters, strings,
//! code_objects, kernel_symbols, host_functions, summary, callback_records, buffer_records}]}`,
//! maps as arrays of `{key, value}`, enums as integers, ids as `{handle}`.
//!
//! What is written where:
//! - `agents`, `metadata`: `process.rs`; `counters`, `code_objects`, `kernel_symbols`:
//!   `catalog.rs`; `strings.buffer_records`: `names.rs`; `strings.marker_api`: each ROCTx
//!   message by its record's correlation id;
//! - `buffer_records`: `kernel_dispatch`, `hip_api`, `hsa_api`, `marker_api`, `rccl_api`,
//!   `memory_copy`, `memory_allocation`, `scratch_memory` (`records.rs`); the rest (`rocdecode_api`,
//!   `rocjpeg_api`, PC samples) are `[]`, as the dataset has no such rows;
//! - `callback_records.counter_collection`: `counters.rs`;
//! - `host_functions` is the empty entry rocprofv3 writes when no host function was
//!   registered (the tool does not record them), and `summary` is `[]` (rocprofv3 without
//!   `--summary`).
//!
//! Not carried: CUDA API calls (`cuda_api`: rocprofv3 has no place for them) and the per-kernel
//! counter aggregates (`kernel_counter`, which an import computes again).
//!
//! Importing the files gives back the dataset's rows but for what the format cannot carry:
//! a dispatch's null stream comes back as 0, its kernel name and register counts as its
//! symbol's; marker depth, copies' addresses, counter groups and instance counts (each row is
//! one value) are not written; a dispatch whose kernel has no symbol row gains one.
//!
//! The export streams: a pass over the tables gathers the names the header sections need (in
//! memory: operation names, counters, code objects; through external sorts: kernel symbols
//! and the counter join), then each table is read once more and its records written as they
//! come. Every file is written under a hidden name and renamed when all are complete.

mod catalog;
mod counters;
mod names;
mod out;
mod process;
mod records;

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use rocprof_rs_format::Table;
use rocprof_rs_format::publish::OutputDir;
use serde::Serialize;

use super::agents::Agents;
use crate::error::{Error, Result};
use crate::read::batches;
use catalog::Catalog;
use counters::Join;
use names::Names;
use out::Outputs;

/// Writes `dir` as `<pid>_results.json` files into `out`; returns each file and its records.
pub fn export(dir: &Path, out: &Path) -> Result<Vec<(String, u64)>> {
    rocprof_rs_format::dataset::require_tables(dir)?;
    let folder = OutputDir::create(out).map_err(|source| Error::Io { path: out.display().to_string(), source })?;
    let written = export_into(dir, out)?;
    folder.keep();
    Ok(written)
}

/// What the first pass gathers.
#[derive(Debug, Default)]
struct Gathered {
    pids: BTreeSet<u32>,
    names: Names,
    catalog: Catalog,
    join: Join,
}

fn export_into(dir: &Path, out: &Path) -> Result<Vec<(String, u64)>> {
    let progress = crate::progress::bar(4, "writing rocprofv3 JSON");
    let agents = Agents::read(dir)?;
    let runs = super::runs::read(dir)?;
    let mut g = gather(dir)?;
    g.pids.extend(agents.pids());
    progress.inc(1);
    let mut files = Outputs::create(out, g.pids.iter().copied())?;
    files.value("metadata", |pid| process::metadata(pid, runs.get(&pid)))?;
    files.begin_array("agents")?;
    for pid in g.pids.iter().copied() {
        for a in agents.of(pid, false) {
            files.item(pid, &process::agent(a), false)?;
        }
    }
    files.end_array()?;
    g.catalog.write_counters(&mut files)?;
    strings(dir, &g.names, &mut files)?;
    g.catalog.write_code_objects(&mut files)?;
    g.catalog.write_symbols(&mut files)?;
    progress.inc(1);
    files.begin_array("host_functions")?;
    for pid in g.pids.iter().copied() {
        files.item(pid, &HostFunction::default(), false)?;
    }
    files.end_array()?;
    files.empty_array("summary")?;
    files.begin_object("callback_records")?;
    g.join.write(&g.catalog, &mut files)?;
    files.end_object()?;
    progress.inc(1);
    buffer_records(dir, &g.names, &mut files)?;
    progress.finish_and_clear();
    files.finish()
}

/// The first pass: processes, operation names, kernel symbols, counters and the counter join.
fn gather(dir: &Path) -> Result<Gathered> {
    let mut g = Gathered::default();
    for table in names::NAMED_TABLES {
        batches(dir, table, |b| {
            let (op, pid) = (b.col("operation")?, b.col("pid")?);
            for i in 0..b.rows() {
                g.pids.insert(pid.u64(i) as u32);
                let name = op.text(i);
                g.names.saw(names::kind_of(table, name), name);
            }
            Ok(())
        })?;
    }
    g.names.number();
    crate::export::symbols::for_each(dir, |pid, s| {
        g.pids.insert(pid);
        g.catalog.symbol(pid, &s)
    })?;
    let counted = counters::any(dir)?;
    let mut seen = HashSet::new();
    batches(dir, Table::KernelDispatch, |b| {
        let pid = b.col("pid")?;
        g.pids.extend((0..b.rows()).map(|i| pid.u64(i) as u32));
        g.catalog.dispatch_symbols(b, &mut seen)?;
        if counted { g.join.dispatches(b) } else { Ok(()) }
    })?;
    batches(dir, Table::Counter, |b| {
        let pid = b.col("pid")?;
        g.pids.extend((0..b.rows()).map(|i| pid.u64(i) as u32));
        g.join.counters(b, &mut g.catalog)
    })?;
    g.catalog.number_counters();
    Ok(g)
}

/// `strings`: the name tables. Callback-tracing names are `[]` (the export has no callback
/// records but counters, which need none), as are the sections of services the dataset has no
/// rows of (kernel renames, counter dimensions, PC sampling, thread traces).
fn strings(dir: &Path, names: &Names, out: &mut Outputs) -> Result<()> {
    out.begin_object("strings")?;
    out.empty_array("callback_records")?;
    let entries = names.entries();
    out.value("buffer_records", |_| &entries)?;
    out.begin_array("marker_api")?;
    batches(dir, Table::Marker, |b| {
        let (message, correlation, pid) = (b.col("message")?, b.col("correlation_id")?, b.col("pid")?);
        for i in 0..b.rows() {
            if !message.text(i).is_empty() {
                let entry = Entry { key: correlation.u64(i), value: message.text(i) };
                out.item(pid.u64(i) as u32, &entry, false)?;
            }
        }
        Ok(())
    })?;
    out.end_array()?;
    out.begin_object("correlation_id")?;
    out.empty_array("external")?;
    out.end_object()?;
    out.begin_object("counters")?;
    out.empty_array("dimension_ids")?;
    out.end_object()?;
    for empty in ["pc_sample_instructions", "pc_sample_comments", "att_filenames", "code_object_snapshot_filenames"] {
        out.empty_array(empty)?;
    }
    out.end_object()
}

/// `buffer_records`, every list rocprofv3 writes, in its order.
fn buffer_records(dir: &Path, names: &Names, out: &mut Outputs) -> Result<()> {
    out.begin_object("buffer_records")?;
    records::dispatches(dir, out)?;
    records::calls(dir, Table::HipApi, "hip_api", names, out)?;
    records::calls(dir, Table::HsaApi, "hsa_api", names, out)?;
    records::calls(dir, Table::Marker, "marker_api", names, out)?;
    records::calls(dir, Table::RcclApi, "rccl_api", names, out)?;
    records::copies(dir, names, out)?;
    records::allocations(dir, names, out)?;
    records::scratch(dir, names, out)?;
    for empty in ["rocdecode_api", "rocjpeg_api", "pc_sample_host_trap", "pc_sample_stochastic"] {
        out.empty_array(empty)?;
    }
    out.end_object()
}

/// A map entry, as cereal writes `std::map`s.
#[derive(Debug, Serialize)]
struct Entry<'a> {
    key: u64,
    value: &'a str,
}

/// The `host_function_info` rocprofv3 writes at index 0, all empty.
#[derive(Debug, Default, Serialize)]
struct HostFunction {
    size: u64,
    host_function_id: u64,
    kernel_id: u64,
    code_object_id: u64,
    host_function: records::Handle,
    modules: records::Handle,
    device_function: &'static str,
    thread_limit: u64,
    thread_ids: records::Dim3,
    block_ids: records::Dim3,
    block_dims: records::Dim3,
    grid_dims: records::Dim3,
    workgroup_size: u64,
    formatted_host_function_name: &'static str,
    demangled_host_function_name: &'static str,
    truncated_host_function_name: &'static str,
}
