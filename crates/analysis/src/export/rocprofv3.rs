//! A dataset as rocprofv3 1.0's CSV files, so scripts written for rocprofv3 run unchanged:
//! the same file names (`<pid>_kernel_trace.csv`, as rocprofv3's default `%pid%` prefix gives),
//! headers, quoting (strings quoted, nothing escaped), number formats and agent names
//! (`Agent <logical node id>`, rocprofv3's default `--agent-index relative`), and
//! `<pid>_agent_info.csv` (`agent_info.rs`).
//!
//! What rocprofv3 knows and a dataset does not is written as rocprofv3 writes its absence:
//! a copy's stream (`0`), a memory-copy or marker domain derived from the operation name.
//!
//! Importing the files gives back the dataset's rows, less what the CSV cannot carry: agent
//! handles (agents come back as their logical node ids, a free's agent as none), the
//! agents' `logical_index` and the fields `agent_info.csv` writes as 0, a null stream (0), the
//! kernel symbols (and so the dispatches' mangled names and kernarg sizes), copies' bytes,
//! addresses and threads, allocations' threads, scratch sizes and correlation ids, marker
//! depth and operation (the CSV has the domain and the message), and counter instance counts
//! (rows are sums). PC samples go to rocprofv3's `pc_sampling_*.csv` ([`super::pc_sampling`]).

use rocprof_rs_format::Table;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;

use rocprof_rs_format::publish::{OutputDir, OutputFile};
use std::path::{Path, PathBuf};

use super::agent_info;
use super::agents::Agents;
use crate::csv_field::{needs_csv_care, quoted};
use crate::error::{Error, Result};
use crate::read::{Batch, batches};
use crate::spill::{Key, Sorter};
use crate::units::c_exp;

const KERNEL: &str = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"";
const API: &str =
    "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"";
const COPY: &str = "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"";
const ALLOCATION: &str = "\"Kind\",\"Operation\",\"Agent_Id\",\"Allocation_Size\",\"Address\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"";
const SCRATCH: &str = "\"Kind\",\"Operation\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Alloc_Flags\",\"Start_Timestamp\",\"End_Timestamp\"";
const COUNTER: &str = "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\",\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"";

/// The files of one export, opened as rows arrive: one per (process, kind).
struct Files {
    dir: PathBuf,
    open: HashMap<(u32, &'static str), (OutputFile, u64)>,
    /// Text fields that hold a quote or a line end, and the first of them.
    careful: (u64, Option<String>),
}

impl Files {
    /// `text` as a quoted field, tallied where CSV tools may not read it back as it was.
    fn text(&mut self, text: &str) -> String {
        self.tally(text);
        quoted(text)
    }

    /// Counts `text`, a field written, if CSV tools may not read it back as it was.
    fn tally(&mut self, text: &str) {
        if needs_csv_care(text) {
            self.careful.0 += 1;
            self.careful.1.get_or_insert_with(|| text.chars().take(80).collect());
        }
    }

    /// One line on the fields [`Files::text`] tallied, if any.
    fn warning(&self) -> Option<String> {
        let (count, first) = (&self.careful.0, self.careful.1.as_ref()?);
        Some(format!(
            "{count} field{} a quote or a line end (the first: {first:?}): written in quotes with each quote doubled \
             (RFC 4180; rocprofv3 leaves quotes as they are, which no CSV reader reads back), so CSV readers and \
             `rocprof-rs import` read {} back whole, while tools that split lines do not",
            if *count == 1 { " holds" } else { "s hold" },
            if *count == 1 { "it" } else { "them" }
        ))
    }

    fn row(&mut self, pid: u32, name: &'static str, header: &str, line: &str) -> Result<()> {
        let key = (pid, name);
        if !self.open.contains_key(&key) {
            let path = self.dir.join(format!("{pid}_{name}.csv"));
            let mut writer = OutputFile::create(&path).map_err(|source| io(&path, source))?;
            writeln!(writer, "{header}").map_err(|source| io(&path, source))?;
            self.open.insert(key, (writer, 0));
        }
        let (writer, rows) = self.open.get_mut(&key).expect("opened above");
        writeln!(writer, "{line}").map_err(|source| io(writer.target(), source))?;
        *rows += 1;
        Ok(())
    }

    /// Renames every file into place, once all are complete: an export that fails leaves none.
    fn finish(&mut self) -> Result<Vec<(String, u64)>> {
        for (writer, _) in self.open.values_mut() {
            writer.complete().map_err(|source| io(writer.target(), source))?;
        }
        let mut written = Vec::new();
        for ((pid, name), (writer, rows)) in std::mem::take(&mut self.open) {
            let path = writer.target().to_path_buf();
            writer.commit().map_err(|source| io(&path, source))?;
            written.push((format!("{pid}_{name}.csv"), rows));
        }
        written.sort();
        Ok(written)
    }
}

fn io(path: &Path, source: std::io::Error) -> Error {
    Error::Io { path: path.display().to_string(), source }
}

/// `Counter_Value` as rocprofv3 prints it: six decimals from 1, `%.8e` below.
fn counter_value(v: f64) -> String {
    if v >= 1.0 { format!("{v:.6}") } else { c_exp(v, 8) }
}

/// The domain rocprofv3 files a HIP, HSA or RCCL function under.
pub(crate) fn domain(table: Table, function: &str) -> &'static str {
    match table {
        Table::HipApi if function.starts_with("__hip") => "HIP_COMPILER_API_EXT",
        Table::HipApi => "HIP_RUNTIME_API_EXT",
        Table::HsaApi if function.starts_with("hsa_amd_") => "HSA_AMD_EXT_API",
        Table::HsaApi if function.starts_with("hsa_ext_image") => "HSA_IMAGE_EXT_API",
        Table::HsaApi if function.starts_with("hsa_ext_program") => "HSA_FINALIZE_EXT_API",
        Table::HsaApi => "HSA_CORE_API",
        _ => "RCCL_API",
    }
}

/// Writes `dir`'s tables as rocprofv3 CSV files into `out`; returns the files and their rows.
pub fn export(dir: &Path, out: &Path) -> Result<Vec<(String, u64)>> {
    export_warning(dir, out).map(|exported| exported.files)
}

/// What [`export_warning`] wrote.
#[derive(Debug)]
pub struct Exported {
    /// The files and their rows.
    pub files: Vec<(String, u64)>,
    /// One line on the fields CSV tools may not read back as they were (a quote, a line end
    /// inside), if any.
    pub warning: Option<String>,
}

/// [`export`], and what CSV tools may not read back as it was.
pub fn export_warning(dir: &Path, out: &Path) -> Result<Exported> {
    rocprof_rs_format::dataset::require_tables(dir)?;
    // Files are named by pid: refuse two processes of one pid on two hosts, before any is written.
    super::runs::read(dir)?;
    let folder = OutputDir::create(out).map_err(|source| io(out, source))?;
    let written = export_into(dir, out)?;
    folder.keep();
    Ok(written)
}

fn export_into(dir: &Path, out: &Path) -> Result<Exported> {
    let progress = crate::progress::bar(6, "writing rocprofv3 CSV");
    let agents = Agents::read(dir)?;
    let mut files = Files { dir: out.to_owned(), open: HashMap::new(), careful: (0, None) };
    for pid in agents.pids() {
        for a in agents.of(pid, true) {
            files.row(pid, "agent_info", agent_info::HEADER, &agent_info::row(a))?;
        }
    }
    progress.inc(1);
    // Each counted dispatch's columns, joined to its counter rows through a sort, so memory
    // stays bounded however many dispatches there are.
    let mut dispatches = Sorter::default();
    let counters = !rocprof_rs_format::dataset::table_files(dir, Table::Counter)?.is_empty();
    batches(dir, Table::KernelDispatch, |b| {
        let c = |n| b.col(n);
        let (name, start, end, pid) = (c("kernel_name")?, c("start_ns")?, c("end_ns")?, c("pid")?);
        let (agent_id, queue, stream, thread) = (c("agent_id")?, c("queue_id")?, c("stream_id")?, c("thread_id")?);
        let (dispatch, kernel, correlation) = (c("dispatch_id")?, c("kernel_id")?, c("correlation_id")?);
        let (lds, scratch, vgpr, accum, sgpr) =
            (c("shared_mem")?, c("scratch_size")?, c("regs")?, c("accum_vgpr")?, c("sgpr")?);
        let (bx, by, bz, gx, gy, gz) =
            (c("block_x")?, c("block_y")?, c("block_z")?, c("grid_x")?, c("grid_y")?, c("grid_z")?);
        for i in 0..b.rows() {
            let lds_block = (lds.u64(i) + 511) & !511;
            let line = format!(
                "\"KERNEL_DISPATCH\",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                agents.label(pid.u64(i) as u32, agent_id.u64(i)),
                queue.u64(i),
                stream.opt_u64(i).unwrap_or(0),
                thread.u64(i),
                dispatch.u64(i),
                kernel.u64(i),
                files.text(name.text(i)),
                correlation.u64(i),
                start.u64(i),
                end.u64(i),
                lds_block,
                scratch.u64(i),
                vgpr.u64(i),
                accum.u64(i),
                sgpr.u64(i),
                bx.u64(i),
                by.u64(i),
                bz.u64(i),
                gx.u64(i),
                gy.u64(i),
                gz.u64(i),
            );
            files.row(pid.u64(i) as u32, "kernel_trace", KERNEL, &line)?;
            if counters {
                let (grid, wg) = (
                    (gx.u64(i) as u32).wrapping_mul(gy.u64(i) as u32).wrapping_mul(gz.u64(i) as u32),
                    (bx.u64(i) as u32).wrapping_mul(by.u64(i) as u32).wrapping_mul(bz.u64(i) as u32),
                );
                let mut context = format!(
                    "{},{},{},{},{},{},",
                    queue.u64(i),
                    pid.u64(i),
                    thread.u64(i),
                    grid,
                    kernel.u64(i),
                    quoted(name.text(i))
                );
                let _ = write!(
                    context,
                    "{wg},{lds_block},{},{},{},{},",
                    scratch.u64(i),
                    vgpr.u64(i),
                    accum.u64(i),
                    sgpr.u64(i)
                );
                let _ = write!(context, "|{},{}", start.u64(i), end.u64(i));
                dispatches
                    .push(&Key::new().u64(pid.u64(i)).u64(dispatch.u64(i)).u64(DISPATCH).0, context.as_bytes())?;
            }
        }
        Ok(())
    })?;
    progress.inc(1);
    for (table, file) in
        [(Table::HipApi, "hip_api_trace"), (Table::HsaApi, "hsa_api_trace"), (Table::RcclApi, "rccl_api_trace")]
    {
        batches(dir, table, |b| api_rows(b, table, file, &mut files))?;
    }
    batches(dir, Table::Marker, |b| {
        let c = |n| b.col(n);
        let (message, operation, pid, thread) = (c("message")?, c("operation")?, c("pid")?, c("thread_id")?);
        let (correlation, start, end) = (c("correlation_id")?, c("start_ns")?, c("end_ns")?);
        for i in 0..b.rows() {
            let op = operation.text(i);
            let domain = if op.starts_with("MARKER_") { op } else { "MARKER_CORE_RANGE_API" };
            let function = if message.text(i).is_empty() { op } else { message.text(i) };
            let line = format!(
                "{},{},{},{},{},{},{}",
                quoted(domain),
                files.text(function),
                pid.u64(i),
                thread.u64(i),
                correlation.u64(i),
                start.u64(i),
                end.u64(i)
            );
            files.row(pid.u64(i) as u32, "marker_api_trace", API, &line)?;
        }
        Ok(())
    })?;
    progress.inc(1);
    batches(dir, Table::MemoryCopy, |b| {
        let c = |n| b.col(n);
        let (op, src, dst, pid) = (c("operation")?, c("src_agent_id")?, c("dst_agent_id")?, c("pid")?);
        let (correlation, start, end) = (c("correlation_id")?, c("start_ns")?, c("end_ns")?);
        for i in 0..b.rows() {
            let line = format!(
                "\"MEMORY_COPY\",{},0,{},{},{},{},{}",
                files.text(op.text(i)),
                agents.label(pid.u64(i) as u32, src.u64(i)),
                agents.label(pid.u64(i) as u32, dst.u64(i)),
                correlation.u64(i),
                start.u64(i),
                end.u64(i)
            );
            files.row(pid.u64(i) as u32, "memory_copy_trace", COPY, &line)?;
        }
        Ok(())
    })?;
    progress.inc(1);
    batches(dir, Table::MemoryAllocation, |b| {
        let c = |n| b.col(n);
        let (op, agent_id, bytes, address, pid) =
            (c("operation")?, c("agent_id")?, c("bytes")?, c("address")?, c("pid")?);
        let (correlation, start, end) = (c("correlation_id")?, c("start_ns")?, c("end_ns")?);
        for i in 0..b.rows() {
            let operation = op.text(i);
            let on_agent = operation.ends_with("_ALLOCATE");
            let line = format!(
                "\"MEMORY_ALLOCATION\",{},{},{},\"0x{:016x}\",{},{},{}",
                files.text(operation),
                if on_agent { agents.label(pid.u64(i) as u32, agent_id.u64(i)) } else { "\"\"".to_owned() },
                bytes.u64(i),
                address.u64(i),
                correlation.u64(i),
                start.u64(i),
                end.u64(i)
            );
            files.row(pid.u64(i) as u32, "memory_allocation_trace", ALLOCATION, &line)?;
        }
        Ok(())
    })?;
    progress.inc(1);
    batches(dir, Table::ScratchMemory, |b| {
        let c = |n| b.col(n);
        let (op, agent_id, queue, thread, flags, pid) =
            (c("operation")?, c("agent_id")?, c("queue_id")?, c("thread_id")?, c("flags")?, c("pid")?);
        let (start, end) = (c("start_ns")?, c("end_ns")?);
        for i in 0..b.rows() {
            let line = format!(
                "\"SCRATCH_MEMORY\",{},{},{},{},{},{},{}",
                files.text(op.text(i)),
                agents.label(pid.u64(i) as u32, agent_id.u64(i)),
                queue.u64(i),
                thread.u64(i),
                flags.u64(i),
                start.u64(i),
                end.u64(i)
            );
            files.row(pid.u64(i) as u32, "scratch_memory_trace", SCRATCH, &line)?;
        }
        Ok(())
    })?;
    progress.inc(1);
    counter_rows(dir, dispatches, &agents, &mut files)?;
    super::pc_sampling::write(dir, |pid, kind, header, line| files.row(pid, kind, header, line))?;
    progress.finish_and_clear();
    Ok(Exported { files: files.finish()?, warning: files.warning() })
}

fn api_rows(b: &Batch<'_>, table: Table, file: &'static str, files: &mut Files) -> Result<()> {
    let c = |n| b.col(n);
    let (op, pid, thread, correlation, start, end) =
        (c("operation")?, c("pid")?, c("thread_id")?, c("correlation_id")?, c("start_ns")?, c("end_ns")?);
    for i in 0..b.rows() {
        let function = op.text(i);
        let line = format!(
            "{},{},{},{},{},{},{}",
            quoted(domain(table, function)),
            files.text(function),
            pid.u64(i),
            thread.u64(i),
            correlation.u64(i),
            start.u64(i),
            end.u64(i)
        );
        files.row(pid.u64(i) as u32, file, API, &line)?;
    }
    Ok(())
}

/// One dispatch's value of one counter, summed over the rows (instances) that hold it.
struct CounterRow {
    pid: u32,
    dispatch: u64,
    counter: String,
    correlation: u64,
    agent: u64,
    kernel_id: u64,
    kernel: String,
    value: f64,
}

/// In the join of counter rows to their dispatches, the dispatch sorts first.
const DISPATCH: u64 = 0;
const COUNTED: u64 = 1;

impl CounterRow {
    /// Into the join, keyed by its dispatch and then its place in the dataset.
    fn push(&self, seq: u64, join: &mut Sorter) -> Result<()> {
        let key = Key::new().u64(u64::from(self.pid)).u64(self.dispatch).u64(COUNTED).u64(seq);
        let mut value = Vec::with_capacity(40 + self.counter.len() + self.kernel.len());
        for v in [self.correlation, self.agent, self.kernel_id, self.value.to_bits(), self.counter.len() as u64] {
            value.extend_from_slice(&v.to_le_bytes());
        }
        value.extend_from_slice(self.counter.as_bytes());
        value.extend_from_slice(self.kernel.as_bytes());
        join.push(&key.0, &value)
    }

    fn from_join(key: &[u8], value: &[u8]) -> Option<(CounterRow, u64)> {
        let k = |i: usize| key.get(i * 8..i * 8 + 8).map(|b| u64::from_be_bytes(b.try_into().expect("8 bytes")));
        let v = |i: usize| value.get(i * 8..i * 8 + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
        let counter_len = usize::try_from(v(4)?).ok()?;
        let texts = value.get(40..)?;
        let (counter, kernel) = (texts.get(..counter_len)?, texts.get(counter_len..)?);
        let row = CounterRow {
            pid: u32::try_from(k(0)?).ok()?,
            dispatch: k(1)?,
            correlation: v(0)?,
            agent: v(1)?,
            kernel_id: v(2)?,
            value: f64::from_bits(v(3)?),
            counter: String::from_utf8(counter.to_vec()).ok()?,
            kernel: String::from_utf8(kernel.to_vec()).ok()?,
        };
        Some((row, k(3)?))
    }

    /// The row's CSV line, with its dispatch's columns (`context|start,end`) if it has one.
    fn line(&self, dispatch: Option<&str>, agents: &Agents) -> String {
        let (context, times) = match dispatch.and_then(|d| d.split_once('|')) {
            Some((context, times)) => (context.to_owned(), times.to_owned()),
            None => (
                format!("0,{},0,0,{},{},0,0,0,0,0,0,", self.pid, self.kernel_id, quoted(&self.kernel)),
                "0,0".to_owned(),
            ),
        };
        format!(
            "{},{},{},{context}{},{},{times}",
            self.correlation,
            self.dispatch,
            agents.label(self.pid, self.agent),
            quoted(&self.counter),
            counter_value(self.value)
        )
    }
}

fn broken(what: &str) -> Error {
    Error::Invalid(format!("rocprofv3 export: {what} did not come back from the external sort"))
}

/// One row per dispatch and counter, instances summed, in the order the dataset has them:
/// joined to their dispatches by one sort, put back in the dataset's order by another.
fn counter_rows(dir: &Path, mut join: Sorter, agents: &Agents, files: &mut Files) -> Result<()> {
    let mut pending: Option<CounterRow> = None;
    let mut seq = 0u64;
    batches(dir, Table::Counter, |b| {
        let c = |n| b.col(n);
        let kernel_id = c("kernel_id")?;
        let (dispatch, correlation, agent_id, kernel, counter, value, pid) = (
            c("dispatch_id")?,
            c("correlation_id")?,
            c("agent_id")?,
            c("kernel_name")?,
            c("counter")?,
            c("value")?,
            c("pid")?,
        );
        for i in 0..b.rows() {
            let (p, d, name) = (pid.u64(i) as u32, dispatch.u64(i), counter.text(i));
            match &mut pending {
                Some(row) if row.pid == p && row.dispatch == d && row.counter == name => row.value += value.f64(i),
                _ => {
                    if let Some(row) = pending.take() {
                        row.push(seq, &mut join)?;
                        seq += 1;
                    }
                    pending = Some(CounterRow {
                        pid: p,
                        dispatch: d,
                        counter: name.to_owned(),
                        correlation: correlation.u64(i),
                        agent: agent_id.u64(i),
                        kernel_id: kernel_id.u64(i),
                        kernel: kernel.text(i).to_owned(),
                        value: value.f64(i),
                    });
                }
            }
        }
        Ok(())
    })?;
    if let Some(row) = pending {
        row.push(seq, &mut join)?;
    }
    let joined = join.finish()?;
    let mut reader = joined.reader()?;
    let mut in_order = Sorter::default();
    // The last dispatch seen: its (process, dispatch id) key bytes and its columns.
    let mut dispatch: Option<(Vec<u8>, String)> = None;
    while let Some((key, value)) = reader.next()? {
        if key.len() == 24 {
            let columns = String::from_utf8(value.to_vec()).map_err(|_| broken("a dispatch"))?;
            dispatch = Some((key[..16].to_vec(), columns));
            continue;
        }
        let (row, seq) = CounterRow::from_join(key, value).ok_or_else(|| broken("a counter row"))?;
        let columns = dispatch.as_ref().filter(|(k, _)| k.as_slice() == &key[..16]).map(|(_, c)| c.as_str());
        // The kernel's name, from its dispatch or the row, and the counter's: two fields.
        files.tally(&row.kernel);
        files.tally(&row.counter);
        let mut line = row.pid.to_le_bytes().to_vec();
        line.extend_from_slice(row.line(columns, agents).as_bytes());
        in_order.push(&Key::new().u64(seq).0, &line)?;
    }
    drop(reader);
    drop(joined);
    let sorted = in_order.finish()?;
    let mut reader = sorted.reader()?;
    while let Some((_, value)) = reader.next()? {
        let (pid, line) = value.split_at_checked(4).ok_or_else(|| broken("a counter line"))?;
        let pid = u32::from_le_bytes(pid.try_into().map_err(|_| broken("a process id"))?);
        let line = std::str::from_utf8(line).map_err(|_| broken("a counter line"))?;
        files.row(pid, "counter_collection", COUNTER, line)?;
    }
    Ok(())
}
