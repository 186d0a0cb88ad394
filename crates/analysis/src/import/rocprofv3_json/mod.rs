//! rocprofv3's JSON output (`--output-format json`, `<pid>_results.json`): one object per
//! process holding its agents, counters, name tables, kernel symbols and every record, ids in
//! place of names.
//!
//! Names are resolved as rocprofv3's own tests resolve them: an operation through
//! `strings.buffer_records[kind].operations[op]`, a kernel through `kernel_symbols` (or the
//! `--kernel-rename` region its external correlation id names), a counter through `counters`,
//! a ROCTx message through `strings.marker_api`. Counter records hold one value per hardware
//! instance; they are summed into one row per counter, as rocprofv3's CSV does, with
//! `instances` saying how many. A dispatch known only from its counter record (a counter run
//! without kernel tracing) gets its kernel row from the record's dispatch data.
//!
//! The serializer's layout is in [`schema`]; a value of the wrong type, a record that ends
//! before it starts, or an id the tables do not name is an error with the file, its place in
//! the file and the JSON path.

mod schema;

use std::collections::{BTreeMap, HashMap};
use std::io::BufReader;
use std::path::Path;
use std::sync::Arc;

use schema::{Api, Correlation, Process};

use super::Read;
use super::sink::{CounterRow, DispatchRow, Sink, SymbolRow};
use crate::error::{Error, Result};
use crate::rocpd::agent::AgentRow;
use rocprof_rs_format::launch::KernelLaunch;

/// Whether the start of a file looks like rocprofv3's JSON.
pub fn looks_like(head: &str) -> bool {
    head.trim_start().starts_with('{') && head.contains("\"rocprofiler-sdk-tool\"")
}

/// Reads `path` into `sink`.
pub fn read(path: &Path, sink: &mut Sink) -> Result<Read> {
    let shown = path.display().to_string();
    let file =
        rocprof_rs_format::input::open_regular(path).map_err(|source| Error::Io { path: shown.clone(), source })?;
    let mut json = serde_json::Deserializer::from_reader(BufReader::with_capacity(1 << 20, file));
    let parsed: schema::File = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let at = e.path().to_string();
        // serde_json's message ends with the line and column.
        Error::Json { path: shown.clone(), at, message: e.into_inner().to_string() }
    })?;
    let mut read = Read::default();
    for (index, process) in parsed.processes.into_iter().enumerate() {
        let at = format!("rocprofiler-sdk-tool[{index}]");
        Reader::new(&shown, at, &process).read(&process, sink, &mut read)?;
    }
    Ok(read)
}

/// One process's name tables, and what its records become.
struct Reader<'a> {
    file: &'a str,
    /// The process's JSON path, for errors.
    at: String,
    pid: u32,
    /// By id, in id order: rows come out the same for the same file.
    symbols: BTreeMap<u64, &'a schema::KernelSymbol>,
    /// Counter names by (agent, counter id), and by id alone for records of another agent.
    counters: HashMap<(u64, u64), Arc<str>>,
    counter_ids: HashMap<u64, Arc<str>>,
    messages: HashMap<u64, &'a str>,
    renamed: HashMap<u64, &'a str>,
}

impl<'a> Reader<'a> {
    fn new(file: &'a str, at: String, p: &'a Process) -> Reader<'a> {
        let symbols = p.kernel_symbols.iter().filter(|s| s.kernel_id != 0).map(|s| (s.kernel_id, s)).collect();
        let mut counters = HashMap::new();
        let mut counter_ids = HashMap::new();
        for c in &p.counters {
            let name: Arc<str> = c.name.as_str().into();
            counters.insert((c.agent_id.handle, c.id.handle), name.clone());
            counter_ids.entry(c.id.handle).or_insert(name);
        }
        Reader {
            file,
            pid: p.metadata.pid,
            symbols,
            counters,
            counter_ids,
            messages: p.strings.marker_api.iter().map(|e| (e.key, e.value.as_str())).collect(),
            renamed: p.strings.correlation_id.external.iter().map(|e| (e.key, e.value.as_str())).collect(),
            at,
        }
    }

    fn error(&self, record: &str, message: impl Into<String>) -> Error {
        Error::Json { path: self.file.to_owned(), at: format!("{}.{record}", self.at), message: message.into() }
    }

    /// The name of operation `op` of buffer-tracing kind `kind`.
    fn operation<'p>(&self, p: &'p Process, record: &str, kind: usize, op: usize) -> Result<&'p str> {
        p.strings
            .buffer_records
            .get(kind)
            .and_then(|k| k.operations.get(op))
            .filter(|name| !name.is_empty())
            .map(String::as_str)
            .ok_or_else(|| self.error(record, format!("kind {kind} operation {op} is not in strings.buffer_records")))
    }

    fn read(&self, p: &'a Process, sink: &mut Sink, read: &mut Read) -> Result<()> {
        self.agents(p, sink)?;
        for s in self.symbols.values() {
            sink.push_symbol(&SymbolRow {
                kernel_id: s.kernel_id,
                code_object_id: s.code_object_id,
                name: s.formatted_kernel_name.clone(),
                mangled: s.kernel_name.clone(),
                kernarg: s.kernarg_segment_size,
                lds: s.group_segment_size,
                scratch: s.private_segment_size,
                sgpr: s.sgpr_count,
                vgpr: s.arch_vgpr_count,
                accum: s.accum_vgpr_count,
                pid: self.pid,
            });
        }
        let b = &p.buffer_records;
        for (i, d) in b.kernel_dispatch.iter().enumerate() {
            let launch = Launch {
                span: d.span,
                thread_id: d.thread_id,
                correlation: d.correlation_id,
                info: &d.dispatch_info,
                stream: d.stream_id,
            };
            let row = self.dispatch(&format!("buffer_records.kernel_dispatch[{i}]"), &launch, sink)?;
            sink.push_dispatch(row);
            sink.write_full()?;
        }
        count(&mut read.rows, "kernel_dispatch", b.kernel_dispatch.len());
        for (name, records) in [("hip_api", &b.hip_api), ("hsa_api", &b.hsa_api), ("rccl_api", &b.rccl_api)] {
            for (i, r) in records.iter().enumerate() {
                self.api(p, &format!("buffer_records.{name}[{i}]"), name, r, sink)?;
                sink.write_full()?;
            }
            count(&mut read.rows, name, records.len());
        }
        for (i, r) in b.marker_api.iter().enumerate() {
            self.marker(p, &format!("buffer_records.marker_api[{i}]"), r, sink)?;
            sink.write_full()?;
        }
        count(&mut read.rows, "marker_api", b.marker_api.len());
        self.copies(p, sink)?;
        count(&mut read.rows, "memory_copy", b.memory_copy.len());
        self.memory(p, sink)?;
        count(&mut read.rows, "memory_allocation", b.memory_allocation.len());
        count(&mut read.rows, "scratch_memory", b.scratch_memory.len());
        self.counters(p, sink)?;
        count(&mut read.rows, "counter_collection", p.callback_records.counter_collection.len());
        count(&mut read.skipped, "rocdecode_api", b.rocdecode_api.len());
        count(&mut read.skipped, "rocjpeg_api", b.rocjpeg_api.len());
        count(&mut read.skipped, "pc_sample_host_trap", b.pc_sample_host_trap.len());
        count(&mut read.skipped, "pc_sample_stochastic", b.pc_sample_stochastic.len());
        Ok(())
    }

    /// The agents, read from the same object rocpd keeps as an agent's `extdata`.
    fn agents(&self, p: &Process, sink: &mut Sink) -> Result<()> {
        for (i, agent) in p.agents.iter().enumerate() {
            let text = |key: &str| agent.get(key).and_then(serde_json::Value::as_str).unwrap_or("").to_owned();
            if agent.pointer("/id/handle").and_then(serde_json::Value::as_u64).is_none() {
                return Err(self.error(&format!("agents[{i}].id.handle"), "missing or not an unsigned integer"));
            }
            let columns = crate::rocpd::agent::Columns {
                node_id: agent.get("node_id").and_then(serde_json::Value::as_u64).unwrap_or(0) as u32,
                // The dataset's index is the agent's among its type, as the tool records it.
                logical_index: agent.get("logical_node_type_id").and_then(serde_json::Value::as_i64).unwrap_or(-1)
                    as i32,
                agent_type: match agent.get("type").and_then(serde_json::Value::as_u64) {
                    Some(1) => Some("CPU".to_owned()),
                    Some(2) => Some("GPU".to_owned()),
                    _ => None,
                },
                name: text("name"),
                product_name: text("product_name"),
                vendor_name: text("vendor_name"),
                model_name: text("model_name"),
            };
            sink.push_agent(&AgentRow::from_rocpd(columns, agent, self.pid));
        }
        Ok(())
    }

    /// A kernel row from a dispatch record or a counter record's dispatch data.
    fn dispatch(&self, record: &str, launch: &Launch<'_>, sink: &mut Sink) -> Result<DispatchRow> {
        let Launch { span, thread_id, correlation, info, stream } = *launch;
        let symbol = self.symbols.get(&info.kernel_id).copied();
        let name = match (self.renamed.get(&correlation.external), symbol) {
            (Some(region), _) => *region,
            (None, Some(s)) => s.formatted_kernel_name.as_str(),
            (None, None) => {
                return Err(self.error(record, format!("kernel_id {} is not in kernel_symbols", info.kernel_id)));
            }
        };
        let fits = |what: &str, value: u32| {
            i32::try_from(value).map_err(|_| self.error(record, format!("{what} {value} is beyond 2^31")))
        };
        let s = symbol.map(|s| (s.arch_vgpr_count, s.accum_vgpr_count, s.sgpr_count, s.kernarg_segment_size));
        let (vgpr, accum, sgpr, kernarg) = s.unwrap_or_default();
        let stream = match stream {
            Some(h) => Some(i32::try_from(h.handle).map_err(|_| self.error(record, "stream_id beyond 2^31"))?),
            None => None,
        };
        sink.agent_seen(self.pid, info.agent_id.handle);
        let name = sink.name(name);
        let block = [
            fits("workgroup_size.x", info.workgroup_size.x)?,
            fits("workgroup_size.y", info.workgroup_size.y)?,
            fits("workgroup_size.z", info.workgroup_size.z)?,
        ];
        let (vgpr, shared_mem) = (fits("arch_vgpr_count", vgpr)?, fits("group_segment_size", info.group_segment_size)?);
        let (accum_vgpr, sgpr) = (fits("accum_vgpr_count", accum)?, fits("sgpr_count", sgpr)?);
        let scratch_size = fits("private_segment_size", info.private_segment_size)?;
        let mangled = symbol.map(|s| sink.name(&s.kernel_name));
        Ok(DispatchRow {
            launch: KernelLaunch {
                start_ns: span.start,
                end_ns: span.end,
                grid: [info.grid_size.x.into(), info.grid_size.y.into(), info.grid_size.z.into()],
                block,
                shared_mem,
                stream_id: stream,
                dispatch_id: info.dispatch_id,
                correlation_id: correlation.internal,
                kernel_id: info.kernel_id,
                agent_id: info.agent_id.handle,
                queue_id: info.queue_id.handle,
                thread_id,
                scratch_size,
                external_id: correlation.external,
                ..KernelLaunch::default()
            },
            name,
            mangled,
            pid: self.pid,
            vgpr,
            accum_vgpr,
            sgpr,
            kernarg: fits("kernarg_segment_size", kernarg)?,
        })
    }

    fn api(&self, p: &Process, record: &str, table: &str, r: &Api, sink: &mut Sink) -> Result<()> {
        let name = sink.name(self.operation(p, record, r.kind, r.operation)?);
        let a = match table {
            "hip_api" => &mut sink.hip_api.rows,
            "hsa_api" => &mut sink.hsa_api.rows,
            _ => &mut sink.rccl_api.rows,
        };
        a.push(rocprof_rs_format::ApiCallRow {
            operation: &name,
            start_ns: r.span.start,
            end_ns: r.span.end,
            duration_ns: r.span.end - r.span.start,
            correlation_id: r.correlation_id.internal,
            ancestor_id: r.correlation_id.ancestor,
            thread_id: r.thread_id,
            pid: self.pid,
        });
        Ok(())
    }

    /// A ROCTx record: a mark, or a range closed by its pop; nesting is not recorded.
    fn marker(&self, p: &Process, record: &str, r: &Api, sink: &mut Sink) -> Result<()> {
        let operation = self.operation(p, record, r.kind, r.operation)?;
        let m = &mut sink.marker.rows;
        m.push(rocprof_rs_format::MarkerRow {
            message: self.messages.get(&r.correlation_id.internal).copied().unwrap_or(""),
            operation,
            start_ns: r.span.start,
            end_ns: r.span.end,
            duration_ns: r.span.end - r.span.start,
            depth: None,
            correlation_id: r.correlation_id.internal,
            thread_id: r.thread_id,
            pid: self.pid,
            vendor: &rocprof_rs_format::vendor::AMD,
            domain: None,
        });
        Ok(())
    }

    fn copies(&self, p: &Process, sink: &mut Sink) -> Result<()> {
        for (i, r) in p.buffer_records.memory_copy.iter().enumerate() {
            let operation = self.operation(p, &format!("buffer_records.memory_copy[{i}]"), r.kind, r.operation)?;
            sink.agent_seen(self.pid, r.src_agent_id.handle);
            sink.agent_seen(self.pid, r.dst_agent_id.handle);
            let c = &mut sink.copy.rows;
            c.push(rocprof_rs_format::MemoryCopyRow {
                operation,
                start_ns: r.span.start,
                end_ns: r.span.end,
                duration_ns: r.span.end - r.span.start,
                bytes: r.bytes,
                src_agent_id: r.src_agent_id.handle,
                dst_agent_id: r.dst_agent_id.handle,
                src_address: 0,
                dst_address: 0,
                correlation_id: r.correlation_id.internal,
                thread_id: r.thread_id,
                pid: self.pid,
                vendor: &rocprof_rs_format::vendor::AMD,
                stream_id: None,
            });
            sink.write_full()?;
        }
        Ok(())
    }

    /// Memory allocations and scratch memory.
    fn memory(&self, p: &Process, sink: &mut Sink) -> Result<()> {
        for (i, r) in p.buffer_records.memory_allocation.iter().enumerate() {
            let record = format!("buffer_records.memory_allocation[{i}]");
            let operation = self.operation(p, &record, r.kind, r.operation)?;
            if r.agent_id.handle != 0 {
                sink.agent_seen(self.pid, r.agent_id.handle);
            }
            let a = &mut sink.allocation.rows;
            a.push(rocprof_rs_format::MemoryAllocationRow {
                operation,
                start_ns: r.span.start,
                end_ns: r.span.end,
                duration_ns: r.span.end - r.span.start,
                address: r.address.0,
                bytes: r.allocation_size,
                agent_id: r.agent_id.handle,
                correlation_id: r.correlation_id.internal,
                thread_id: r.thread_id,
                pid: self.pid,
            });
            sink.write_full()?;
        }
        for (i, r) in p.buffer_records.scratch_memory.iter().enumerate() {
            let operation = self.operation(p, &format!("buffer_records.scratch_memory[{i}]"), r.kind, r.operation)?;
            sink.agent_seen(self.pid, r.agent_id.handle);
            let s = &mut sink.scratch.rows;
            s.push(rocprof_rs_format::ScratchMemoryRow {
                operation,
                start_ns: r.span.start,
                end_ns: r.span.end,
                duration_ns: r.span.end - r.span.start,
                bytes: r.allocation_size,
                flags: r.flags,
                agent_id: r.agent_id.handle,
                queue_id: r.queue_id.handle,
                correlation_id: r.correlation_id.internal,
                thread_id: r.thread_id,
                pid: self.pid,
            });
            sink.write_full()?;
        }
        Ok(())
    }

    /// Counter records: one row per counter, its instances summed in the SDK's order.
    fn counters(&self, p: &Process, sink: &mut Sink) -> Result<()> {
        for (i, r) in p.callback_records.counter_collection.iter().enumerate() {
            let record = format!("callback_records.counter_collection[{i}]");
            let data = &r.dispatch_data;
            let info = &data.dispatch_info;
            let launch = Launch {
                span: data.span,
                thread_id: r.thread_id,
                correlation: data.correlation_id,
                info,
                stream: r.stream_id,
            };
            let row = self.dispatch(&record, &launch, sink)?;
            let kernel = row.name.clone();
            if !sink.dispatches.contains(&(self.pid, info.dispatch_id)) {
                sink.push_dispatch(row);
            }
            let mut sums: Vec<(u64, f64, u32)> = Vec::new();
            for v in &r.records {
                match sums.iter_mut().find(|(id, _, _)| *id == v.counter_id.handle) {
                    Some((_, sum, n)) => {
                        *sum += v.value;
                        *n += 1;
                    }
                    None => sums.push((v.counter_id.handle, v.value, 1)),
                }
            }
            for (id, value, instances) in sums {
                if !value.is_finite() {
                    // JSON holds no NaN or infinity, but instances near f64's largest sum to one.
                    let what = format!("the {instances} values of counter_id {id} sum to {value}, not a finite number");
                    return Err(self.error(&format!("{record}.records"), what));
                }
                let agent = info.agent_id.handle;
                let counter = self
                    .counters
                    .get(&(agent, id))
                    .or_else(|| self.counter_ids.get(&id))
                    .ok_or_else(|| self.error(&record, format!("counter_id {id} is not in counters")))?
                    .clone();
                sink.push_counter(CounterRow {
                    dispatch_id: info.dispatch_id,
                    correlation_id: data.correlation_id.internal,
                    agent_id: agent,
                    kernel_id: info.kernel_id,
                    kernel: kernel.clone(),
                    counter,
                    value,
                    group: 0,
                    instances,
                    instance: None,
                    pid: self.pid,
                });
            }
            sink.write_full()?;
        }
        Ok(())
    }
}

/// What a kernel row is made from: a dispatch record, or a counter record's dispatch data.
#[derive(Debug, Clone, Copy)]
struct Launch<'r> {
    span: schema::Span,
    thread_id: u64,
    correlation: Correlation,
    info: &'r schema::DispatchInfo,
    stream: Option<schema::Handle>,
}

/// Adds `n` rows of `what` to a report, where there are any.
fn count(list: &mut Vec<(String, u64)>, what: &str, n: usize) {
    if n > 0 {
        list.push((what.to_owned(), n as u64));
    }
}
