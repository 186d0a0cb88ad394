//! A dataset as a Perfetto trace (`.pftrace`) for ui.perfetto.dev.
//!
//! Tracks: per process, its threads' API calls and ROCTx ranges; per GPU, one track per queue
//! for kernels and one for memory copies; per GPU and counter, a counter track with each counted
//! dispatch's value at its start. Flows join each API call to the kernels it launched
//! (correlation id).
//!
//! Perfetto nests slices on a track by begin and end; two slices that overlap without nesting
//! (two copies on one engine's track, a ROCTx process range crossing a thread range) would
//! break a track. So each logical track is split into lanes: a slice goes to the first lane it
//! nests in, and lanes after the first are named `… (2)`, `… (3)`.

use rocprof_rs_format::Table;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;

use rocprof_rs_format::publish::OutputFile;
use std::path::Path;

use super::proto::Msg;
use crate::error::{Error, Result};
use crate::read::batches;

/// The API tables drawn on thread tracks, with flows to the kernels their calls launched
/// (CUDA's launch calls share a kernel's correlation id as HIP's do).
const API_TABLES: [Table; 4] = [Table::HipApi, Table::HsaApi, Table::RcclApi, Table::CudaApi];

const SLICE_BEGIN: u64 = 1;
const SLICE_END: u64 = 2;
const COUNTER: u64 = 4;
const SEQUENCE: u64 = 1;

/// One slice waiting to be placed.
#[derive(Debug, Clone)]
struct Slice {
    start: u64,
    end: u64,
    name: u32,
    /// Flow started here (an API call) or ended here (a kernel).
    flow_out: Option<u64>,
    flow_in: Option<u64>,
}

impl Slice {
    /// A slice that no flow touches.
    fn plain(start: u64, end: u64, name: u32) -> Slice {
        Slice { start, end, name, flow_out: None, flow_in: None }
    }
}

/// A logical track: a name, a parent (process or GPU) and its slices.
#[derive(Debug, Default)]
struct Track {
    name: String,
    parent: u64,
    thread: Option<(u32, u64)>,
    slices: Vec<Slice>,
}

/// A counter track: its name, its GPU's track, and (time, value) points.
#[derive(Debug, Default)]
struct CounterTrack {
    name: String,
    parent: u64,
    points: Vec<(u64, f64)>,
}

/// The trace under construction.
#[derive(Debug, Default)]
struct Builder {
    names: Vec<String>,
    name_ids: HashMap<String, u32>,
    tracks: BTreeMap<u64, Track>,
    /// Process and GPU group tracks: uuid → (name, pid if a process).
    groups: BTreeMap<u64, (String, Option<u32>)>,
    counters: BTreeMap<u64, CounterTrack>,
}

fn uuid(parts: &[u64]) -> u64 {
    parts.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &p| (h ^ p).wrapping_mul(0x1000_0000_01b3).rotate_left(29)) | 1
}

impl Builder {
    fn name(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.name_ids.get(text) {
            return id;
        }
        self.names.push(text.to_owned());
        self.name_ids.insert(text.to_owned(), self.names.len() as u32 - 1);
        self.names.len() as u32 - 1
    }

    fn process(&mut self, pid: u32) -> u64 {
        let id = uuid(&[1, u64::from(pid)]);
        self.groups.entry(id).or_insert_with(|| (format!("process {pid}"), Some(pid)));
        id
    }

    fn gpu(&mut self, agent: u64, label: &str) -> u64 {
        let id = uuid(&[2, agent]);
        self.groups.entry(id).or_insert_with(|| (label.to_owned(), None));
        id
    }

    fn track(&mut self, id: u64, parent: u64, name: String, thread: Option<(u32, u64)>) -> &mut Track {
        self.tracks.entry(id).or_insert_with(|| Track { name, parent, thread, slices: Vec::new() })
    }
}

/// Writes `dir`'s dataset to `out` as a Perfetto trace; returns the slices written.
pub fn export(dir: &Path, out: &Path) -> Result<u64> {
    rocprof_rs_format::dataset::require_tables(dir)?;
    let progress = crate::progress::bar(5 + 2 * API_TABLES.len() as u64, "writing the Perfetto trace");
    let mut b = Builder::default();
    let mut gpu_names: HashMap<u64, String> = HashMap::new();
    batches(dir, Table::Agent, |t| {
        let (id, node, name, kind) = (t.col("agent_id")?, t.col("node_id")?, t.col("name")?, t.col("agent_type")?);
        for i in 0..t.rows() {
            gpu_names.insert(id.u64(i), format!("{} {} ({})", kind.text(i), node.u64(i), name.text(i)));
        }
        Ok(())
    })?;
    progress.inc(1);
    let gpu_label = |id: u64| gpu_names.get(&id).cloned().unwrap_or_else(|| format!("agent {id}"));
    // Correlation ids of API calls, per process, to draw only flows with both ends.
    let mut calls: HashSet<(u32, u64)> = HashSet::new();
    for table in API_TABLES {
        batches(dir, table, |t| {
            let (pid, corr) = (t.col("pid")?, t.col("correlation_id")?);
            for i in 0..t.rows() {
                calls.insert((pid.u64(i) as u32, corr.u64(i)));
            }
            Ok(())
        })?;
        progress.inc(1);
    }
    let mut launched: HashSet<(u32, u64)> = HashSet::new();
    let mut dispatch_start: HashMap<(u32, u64), u64> = HashMap::new();
    let with_counters = !rocprof_rs_format::dataset::table_files(dir, Table::Counter)?.is_empty();
    batches(dir, Table::KernelDispatch, |t| {
        let c = |n| t.col(n);
        let (name, start, end, pid, agent, queue, corr, dispatch) = (
            c("kernel_name")?,
            c("start_ns")?,
            c("end_ns")?,
            c("pid")?,
            c("agent_id")?,
            c("queue_id")?,
            c("correlation_id")?,
            c("dispatch_id")?,
        );
        for i in 0..t.rows() {
            let (p, a, q) = (pid.u64(i) as u32, agent.u64(i), queue.u64(i));
            let flow = calls.contains(&(p, corr.u64(i))).then(|| uuid(&[3, u64::from(p), corr.u64(i)]));
            if flow.is_some() {
                launched.insert((p, corr.u64(i)));
            }
            if with_counters {
                dispatch_start.insert((p, dispatch.u64(i)), start.u64(i));
            }
            let n = b.name(name.text(i));
            let parent = b.gpu(a, &gpu_label(a));
            b.track(uuid(&[4, a, q, u64::from(p)]), parent, format!("queue {q} (process {p})"), None)
                .slices
                .push(Slice { start: start.u64(i), end: end.u64(i), name: n, flow_out: None, flow_in: flow });
        }
        Ok(())
    })?;
    progress.inc(1);
    for table in API_TABLES {
        batches(dir, table, |t| {
            let c = |n| t.col(n);
            let (op, start, end, pid, tid, corr) =
                (c("operation")?, c("start_ns")?, c("end_ns")?, c("pid")?, c("thread_id")?, c("correlation_id")?);
            for i in 0..t.rows() {
                let (p, th) = (pid.u64(i) as u32, tid.u64(i));
                let flow = launched.contains(&(p, corr.u64(i))).then(|| uuid(&[3, u64::from(p), corr.u64(i)]));
                let n = b.name(op.text(i));
                let parent = b.process(p);
                b.track(uuid(&[5, u64::from(p), th]), parent, format!("thread {th}"), Some((p, th)))
                    .slices
                    .push(Slice { start: start.u64(i), end: end.u64(i), name: n, flow_out: flow, flow_in: None });
            }
            Ok(())
        })?;
        progress.inc(1);
    }
    batches(dir, Table::Marker, |t| {
        let c = |n| t.col(n);
        let (message, start, end, pid, tid) = (c("message")?, c("start_ns")?, c("end_ns")?, c("pid")?, c("thread_id")?);
        for i in 0..t.rows() {
            let (p, th) = (pid.u64(i) as u32, tid.u64(i));
            let n = b.name(message.text(i));
            let parent = b.process(p);
            let track = b.track(uuid(&[6, u64::from(p), th]), parent, format!("ROCTx, thread {th}"), None);
            track.slices.push(Slice::plain(start.u64(i), end.u64(i), n));
        }
        Ok(())
    })?;
    progress.inc(1);
    batches(dir, Table::MemoryCopy, |t| {
        let c = |n| t.col(n);
        let (op, start, end, dst, src) =
            (c("operation")?, c("start_ns")?, c("end_ns")?, c("dst_agent_id")?, c("src_agent_id")?);
        for i in 0..t.rows() {
            let n = b.name(op.text(i));
            let agent = if dst.u64(i) != 0 { dst.u64(i) } else { src.u64(i) };
            let parent = b.gpu(agent, &gpu_label(agent));
            let track = b.track(uuid(&[7, agent]), parent, "memory copies".into(), None);
            track.slices.push(Slice::plain(start.u64(i), end.u64(i), n));
        }
        Ok(())
    })?;
    progress.inc(1);
    batches(dir, Table::Counter, |t| {
        let c = |n| t.col(n);
        let (name, value, agent, pid, dispatch) =
            (c("counter")?, c("value")?, c("agent_id")?, c("pid")?, c("dispatch_id")?);
        for i in 0..t.rows() {
            let Some(&at) = dispatch_start.get(&(pid.u64(i) as u32, dispatch.u64(i))) else { continue };
            let a = agent.u64(i);
            let parent = b.gpu(a, &gpu_label(a));
            let track = uuid(&[8, a, b.name(name.text(i)).into()]);
            let entry = b.counters.entry(track).or_insert_with(|| CounterTrack {
                name: name.text(i).to_owned(),
                parent,
                points: Vec::new(),
            });
            // Per-instance rows of one dispatch add up to its value.
            match entry.points.last_mut() {
                Some((t0, v)) if *t0 == at => *v += value.f64(i),
                _ => entry.points.push((at, value.f64(i))),
            }
        }
        Ok(())
    })?;
    progress.inc(1);
    progress.finish_and_clear();
    write(&b, out)
}

/// Splits slices into lanes where each nests, and writes everything.
fn write(b: &Builder, out: &Path) -> Result<u64> {
    let io = |source| Error::Io { path: out.display().to_string(), source };
    let mut w = OutputFile::create(out).map_err(io)?;
    let mut packets = 0u64;
    let mut emit = |w: &mut OutputFile, packet: &Msg| -> Result<()> {
        let mut trace = Msg::default();
        trace.message(1, packet);
        packets += 1;
        w.write_all(&trace.0).map_err(|e| Error::Io { path: out.display().to_string(), source: e })
    };
    let descriptor = |uuid: u64, parent: Option<u64>, name: &str| {
        let mut d = Msg::default();
        d.uint(1, uuid).string(2, name);
        if let Some(parent) = parent {
            d.uint(5, parent);
        }
        d
    };
    let mut first = Msg::default();
    first.uint(10, SEQUENCE).uint(13, 1);
    emit(&mut w, &first)?;
    for (&id, (name, pid)) in &b.groups {
        let mut d = descriptor(id, None, name);
        if let Some(pid) = pid {
            let mut process = Msg::default();
            process.uint(1, u64::from(*pid)).string(6, name);
            d.message(3, &process);
        }
        let mut packet = Msg::default();
        packet.uint(10, SEQUENCE).message(60, &d);
        emit(&mut w, &packet)?;
    }
    let mut slices = 0u64;
    for (&id, track) in &b.tracks {
        let mut order: Vec<&Slice> = track.slices.iter().collect();
        // By start, the longer first, so a slice that encloses another opens before it.
        order.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        let mut lanes: Vec<Vec<&Slice>> = Vec::new();
        let mut open: Vec<Vec<u64>> = Vec::new();
        for s in order {
            let lane = (0..lanes.len()).find(|&l| {
                while open[l].last().is_some_and(|&e| e <= s.start && !(e == s.start && s.end == s.start)) {
                    open[l].pop();
                }
                open[l].last().is_none_or(|&e| s.end <= e)
            });
            let lane = lane.unwrap_or_else(|| {
                lanes.push(Vec::new());
                open.push(Vec::new());
                lanes.len() - 1
            });
            open[lane].push(s.end);
            lanes[lane].push(s);
        }
        for (l, lane) in lanes.iter().enumerate() {
            let lane_id = if l == 0 { id } else { uuid(&[9, id, l as u64]) };
            let name = if l == 0 { track.name.clone() } else { format!("{} ({})", track.name, l + 1) };
            // A thread's own track hangs off its thread, not a parent track.
            let parent = if l == 0 && track.thread.is_some() { None } else { Some(track.parent) };
            let mut d = descriptor(lane_id, parent, &name);
            if let (0, Some((pid, tid))) = (l, track.thread) {
                let mut thread = Msg::default();
                thread.uint(1, u64::from(pid)).uint(2, tid).string(5, &format!("thread {tid}"));
                d.message(4, &thread);
            }
            let mut packet = Msg::default();
            packet.uint(10, SEQUENCE).message(60, &d);
            emit(&mut w, &packet)?;
            // Ends are written in order, before the begin that follows them.
            let mut stack: Vec<u64> = Vec::new();
            for s in lane {
                while stack.last().is_some_and(|&e| e <= s.start && !(e == s.start && s.end == s.start)) {
                    let end = stack.pop().expect("checked");
                    emit(&mut w, &event(end, lane_id, SLICE_END, None, None, None))?;
                }
                emit(
                    &mut w,
                    &event(s.start, lane_id, SLICE_BEGIN, Some(&b.names[s.name as usize]), s.flow_out, s.flow_in),
                )?;
                stack.push(s.end);
                slices += 1;
            }
            while let Some(end) = stack.pop() {
                emit(&mut w, &event(end, lane_id, SLICE_END, None, None, None))?;
            }
        }
    }
    for (&id, CounterTrack { name, parent, points }) in &b.counters {
        let mut d = descriptor(id, Some(*parent), name);
        d.message(8, &Msg::default());
        let mut packet = Msg::default();
        packet.uint(10, SEQUENCE).message(60, &d);
        emit(&mut w, &packet)?;
        let mut points = points.clone();
        points.sort_by_key(|v| v.0);
        for (at, value) in points {
            let mut e = Msg::default();
            e.uint(9, COUNTER).uint(11, id).double(44, value);
            let mut packet = Msg::default();
            packet.uint(8, at).uint(10, SEQUENCE).message(11, &e);
            emit(&mut w, &packet)?;
        }
    }
    w.commit().map_err(io)?;
    Ok(slices)
}

fn event(at: u64, track: u64, kind: u64, name: Option<&str>, flow_out: Option<u64>, flow_in: Option<u64>) -> Msg {
    let mut e = Msg::default();
    e.uint(9, kind).uint(11, track);
    if let Some(name) = name {
        e.string(23, name);
    }
    if let Some(flow) = flow_out {
        e.fixed64(47, flow);
    }
    if let Some(flow) = flow_in {
        e.fixed64(48, flow);
    }
    let mut packet = Msg::default();
    packet.uint(8, at).uint(10, SEQUENCE).message(11, &e);
    packet
}
