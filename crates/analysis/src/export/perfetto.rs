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
//!
//! Memory is bounded whatever the trace's length or its number of names (issue 20): slices go
//! through external sorts ([`crate::spill`]), first by (process, correlation id) to join API
//! calls to their kernels, then by (track, start) to place them in lanes; counter values are
//! joined to their dispatches' starts the same way. What stays in memory is one entry per
//! track (thread, queue, counter), the open slices of each lane, and the sorts' buffers.

use rocprof_rs_format::Table;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use rocprof_rs_format::publish::OutputFile;
use std::path::Path;

use super::proto::Msg;
use crate::error::{Error, Result};
use crate::read::batches;
use crate::spill::{Key, Sorter};

/// The API tables drawn on thread tracks, with flows to the kernels their calls launched
/// (CUDA's launch calls share a kernel's correlation id as HIP's do).
const API_TABLES: [Table; 4] = [Table::HipApi, Table::HsaApi, Table::RcclApi, Table::CudaApi];

const SLICE_BEGIN: u64 = 1;
const SLICE_END: u64 = 2;
const COUNTER: u64 = 4;
const SEQUENCE: u64 = 1;

/// Each external sort's part of `--memory`: four sorts may hold theirs at once, and a
/// finished one's records stay in memory while the next fills.
fn sort_budget() -> usize {
    crate::spill::share(6)
}

/// In the join of calls to kernels, a kernel sorts before the calls of its correlation id.
const KERNEL: u64 = 0;
const CALL: u64 = 1;

fn uuid(parts: &[u64]) -> u64 {
    parts.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &p| (h ^ p).wrapping_mul(0x1000_0000_01b3).rotate_left(29)) | 1
}

/// A logical track: its name, its parent (process or GPU) and, for a thread's, the thread.
#[derive(Debug)]
struct Track {
    name: String,
    parent: u64,
    thread: Option<(u32, u64)>,
}

/// One slice between the sorts: where it goes, when, its name and its flows (0: none).
#[derive(Debug, Clone, Copy)]
struct Slice<'a> {
    track: u64,
    start: u64,
    end: u64,
    name: &'a str,
    flow_out: u64,
    flow_in: u64,
}

impl Slice<'_> {
    /// The fields after the key, for the join: the track, start, end, then the name.
    fn encode_for_join(&self, out: &mut Vec<u8>) {
        out.clear();
        for v in [self.track, self.start, self.end] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(self.name.as_bytes());
    }

    fn decode_from_join(value: &[u8]) -> Option<Slice<'_>> {
        let u = |i: usize| value.get(i * 8..i * 8 + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
        let name = std::str::from_utf8(value.get(24..)?).ok()?;
        Some(Slice { track: u(0)?, start: u(1)?, end: u(2)?, name, flow_out: 0, flow_in: 0 })
    }

    /// Into the placement sort: by track, by start, the longer first (a slice that encloses
    /// another opens before it).
    fn place(&self, sorter: &mut Sorter, value: &mut Vec<u8>) -> Result<()> {
        let key = Key::new().u64(self.track).u64(self.start).u64(u64::MAX - self.end);
        value.clear();
        value.extend_from_slice(&self.flow_out.to_le_bytes());
        value.extend_from_slice(&self.flow_in.to_le_bytes());
        value.extend_from_slice(self.name.as_bytes());
        sorter.push(&key.0, value)
    }

    fn from_placement<'a>(key: &[u8], value: &'a [u8]) -> Option<Slice<'a>> {
        let k = |i: usize| key.get(i * 8..i * 8 + 8).map(|b| u64::from_be_bytes(b.try_into().expect("8 bytes")));
        let v = |i: usize| value.get(i * 8..i * 8 + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
        let name = std::str::from_utf8(value.get(16..)?).ok()?;
        Some(Slice { track: k(0)?, start: k(1)?, end: u64::MAX - k(2)?, name, flow_out: v(0)?, flow_in: v(1)? })
    }
}

fn broken(what: &str) -> Error {
    Error::Invalid(format!("perfetto export: {what} did not come back from the external sort"))
}

/// The trace's tracks and the sorts its rows go through.
struct Builder {
    /// Process and GPU group tracks: uuid → (name, pid if a process).
    groups: BTreeMap<u64, (String, Option<u32>)>,
    tracks: BTreeMap<u64, Track>,
    /// Counter tracks: uuid → (counter name, its GPU's track).
    counters: BTreeMap<u64, (String, u64)>,
    /// API calls and kernels by (process, correlation id, kernel first).
    join: Sorter,
    /// Slices by (track, start).
    placement: Sorter,
    /// Kernels' starts and counter values by (process, dispatch id, the kernel first).
    dispatch_join: Sorter,
    value: Vec<u8>,
    /// Process names by pid: a distributed job's rank and host where the run recorded them.
    process_names: HashMap<u32, String>,
}

/// A process track's name: `rank 3 · node1 · pid 4242` for a rank of a distributed job,
/// `process 4242 · node1` for a process without a rank, `process 4242` where nothing more is known.
fn process_name(pid: u32, run: &super::runs::Run) -> String {
    match (run.rank, &run.host) {
        (Some(rank), Some(host)) => format!("rank {rank} · {host} · pid {pid}"),
        (Some(rank), None) => format!("rank {rank} · pid {pid}"),
        (None, Some(host)) => format!("process {pid} · {host}"),
        (None, None) => format!("process {pid}"),
    }
}

impl Builder {
    fn new(runs: &HashMap<u32, super::runs::Run>) -> Builder {
        Builder {
            process_names: runs.iter().map(|(&pid, run)| (pid, process_name(pid, run))).collect(),
            groups: BTreeMap::new(),
            tracks: BTreeMap::new(),
            counters: BTreeMap::new(),
            join: Sorter::with_budget(sort_budget()),
            placement: Sorter::with_budget(sort_budget()),
            dispatch_join: Sorter::with_budget(sort_budget()),
            value: Vec::new(),
        }
    }

    fn process(&mut self, pid: u32) -> u64 {
        let id = uuid(&[1, u64::from(pid)]);
        let name = self.process_names.get(&pid).cloned();
        self.groups.entry(id).or_insert_with(|| (name.unwrap_or_else(|| format!("process {pid}")), Some(pid)));
        id
    }

    fn gpu(&mut self, agent: u64, label: impl FnOnce() -> String) -> u64 {
        let id = uuid(&[2, agent]);
        self.groups.entry(id).or_insert_with(|| (label(), None));
        id
    }

    fn track(&mut self, id: u64, parent: u64, name: impl FnOnce() -> String, thread: Option<(u32, u64)>) -> u64 {
        self.tracks.entry(id).or_insert_with(|| Track { name: name(), parent, thread });
        id
    }

    /// A kernel or an API call, to be joined on (process, correlation id).
    fn joined(&mut self, pid: u32, correlation: u64, kind: u64, slice: &Slice<'_>) -> Result<()> {
        let key = Key::new().u64(u64::from(pid)).u64(correlation).u64(kind);
        slice.encode_for_join(&mut self.value);
        self.join.push(&key.0, &self.value)
    }

    fn plain(&mut self, slice: &Slice<'_>) -> Result<()> {
        slice.place(&mut self.placement, &mut self.value)
    }
}

/// Writes `dir`'s dataset to `out` as a Perfetto trace; returns the slices written.
pub fn export(dir: &Path, out: &Path) -> Result<u64> {
    rocprof_rs_format::dataset::require_tables(dir)?;
    let progress = crate::progress::bar(7 + API_TABLES.len() as u64, "writing the Perfetto trace");
    let mut b = Builder::new(&super::runs::read(dir)?);
    let mut gpu_names: HashMap<u64, String> = HashMap::new();
    batches(dir, Table::Agent, |t| {
        let (id, node, name, kind) = (t.col("agent_id")?, t.col("node_id")?, t.col("name")?, t.col("agent_type")?);
        for i in 0..t.rows() {
            gpu_names.insert(id.u64(i), format!("{} {} ({})", kind.text(i), node.u64(i), name.text(i)));
        }
        Ok(())
    })?;
    progress.inc(1);
    let gpu_names = &gpu_names;
    let gpu_label = |id: u64| move || gpu_names.get(&id).cloned().unwrap_or_else(|| format!("agent {id}"));
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
            let parent = b.gpu(a, gpu_label(a));
            let track = b.track(uuid(&[4, a, q, u64::from(p)]), parent, || format!("queue {q} (process {p})"), None);
            let slice =
                Slice { track, start: start.u64(i), end: end.u64(i), name: name.text(i), flow_out: 0, flow_in: 0 };
            b.joined(p, corr.u64(i), KERNEL, &slice)?;
            if with_counters {
                let key = Key::new().u64(u64::from(p)).u64(dispatch.u64(i)).u64(0);
                b.dispatch_join.push(&key.0, &start.u64(i).to_le_bytes())?;
            }
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
                let parent = b.process(p);
                let track = b.track(uuid(&[5, u64::from(p), th]), parent, || format!("thread {th}"), Some((p, th)));
                let slice =
                    Slice { track, start: start.u64(i), end: end.u64(i), name: op.text(i), flow_out: 0, flow_in: 0 };
                b.joined(p, corr.u64(i), CALL, &slice)?;
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
            let parent = b.process(p);
            let track = b.track(uuid(&[6, u64::from(p), th]), parent, || format!("ROCTx, thread {th}"), None);
            b.plain(&Slice {
                track,
                start: start.u64(i),
                end: end.u64(i),
                name: message.text(i),
                flow_out: 0,
                flow_in: 0,
            })?;
        }
        Ok(())
    })?;
    progress.inc(1);
    batches(dir, Table::MemoryCopy, |t| {
        let c = |n| t.col(n);
        let (op, start, end, dst, src) =
            (c("operation")?, c("start_ns")?, c("end_ns")?, c("dst_agent_id")?, c("src_agent_id")?);
        for i in 0..t.rows() {
            let agent = if dst.u64(i) != 0 { dst.u64(i) } else { src.u64(i) };
            let parent = b.gpu(agent, gpu_label(agent));
            let track = b.track(uuid(&[7, agent]), parent, || "memory copies".into(), None);
            b.plain(&Slice { track, start: start.u64(i), end: end.u64(i), name: op.text(i), flow_out: 0, flow_in: 0 })?;
        }
        Ok(())
    })?;
    progress.inc(1);
    let mut counter_values = Sorter::with_budget(sort_budget());
    if with_counters {
        batches(dir, Table::Counter, |t| {
            let c = |n| t.col(n);
            let (name, value, agent, pid, dispatch) =
                (c("counter")?, c("value")?, c("agent_id")?, c("pid")?, c("dispatch_id")?);
            for i in 0..t.rows() {
                let a = agent.u64(i);
                let parent = b.gpu(a, gpu_label(a));
                let track = uuid(&[8, a, name_hash(name.text(i))]);
                b.counters.entry(track).or_insert_with(|| (name.text(i).to_owned(), parent));
                let key = Key::new().u64(pid.u64(i)).u64(dispatch.u64(i)).u64(1);
                let mut v = Vec::with_capacity(16);
                v.extend_from_slice(&track.to_le_bytes());
                v.extend_from_slice(&value.f64(i).to_bits().to_le_bytes());
                b.dispatch_join.push(&key.0, &v)?;
            }
            Ok(())
        })?;
        place_counter_values(std::mem::take(&mut b.dispatch_join), &mut counter_values)?;
    }
    device_counters(dir, &mut b, &mut counter_values, gpu_names)?;
    progress.inc(1);
    join_flows(&mut b)?;
    progress.inc(1);
    let slices = write(&b.groups, &b.tracks, &b.counters, std::mem::take(&mut b.placement), counter_values, out)?;
    progress.inc(1);
    progress.finish_and_clear();
    Ok(slices)
}

/// The device samples' readings, as they are drawn: name (with unit) and value.
type Reading = (&'static str, fn(&crate::telemetry::series::Sample) -> Option<f64>);

/// What a GPU's device samples draw, each a counter track under the GPU.
const READINGS: [Reading; 6] = [
    ("power (W)", |s| s.power_w),
    ("SM clock (MHz)", |s| s.sm_clock_mhz.map(f64::from)),
    ("memory clock (MHz)", |s| s.memory_clock_mhz.map(f64::from)),
    ("memory used (GiB)", |s| s.memory_used_bytes.map(|b| b as f64 / f64::from(1u32 << 30))),
    ("GPU busy (%)", |s| s.gpu_busy_pct.map(f64::from)),
    ("temperature (°C)", |s| s.temperature_c.map(f64::from)),
];

/// Each sampled GPU's readings (`device_sample`) as counter tracks: under the GPU's own group
/// where the process used it, else under a group of the GPU the process only sampled.
fn device_counters(dir: &Path, b: &mut Builder, values: &mut Sorter, gpu_names: &HashMap<u64, String>) -> Result<()> {
    for (key, series) in crate::telemetry::series::read(dir)? {
        let parent = match series.agent_id {
            Some(agent) => b.gpu(agent, || gpu_names.get(&agent).cloned().unwrap_or_else(|| format!("agent {agent}"))),
            None => {
                let id = uuid(&[9, u64::from(key.pid), u64::from(key.device_index)]);
                let name = format!("GPU {} {} (sampled by process {})", key.device_index, series.device_uuid, key.pid);
                b.groups.entry(id).or_insert_with(|| (name, None));
                id
            }
        };
        for (metric, (name, read)) in READINGS.iter().enumerate() {
            let track = uuid(&[10, u64::from(key.pid), u64::from(key.device_index), metric as u64]);
            let mut any = false;
            for sample in &series.samples {
                let Some(value) = read(sample) else { continue };
                any = true;
                let at = u64::try_from(sample.time_ns).unwrap_or(0);
                values.push(&Key::new().u64(track).u64(at).0, &value.to_bits().to_le_bytes())?;
            }
            if any {
                b.counters.entry(track).or_insert_with(|| ((*name).to_owned(), parent));
            }
        }
    }
    Ok(())
}

/// A counter name's part of its track's id (the same name, the same track on one GPU).
fn name_hash(name: &str) -> u64 {
    uuid(&name.bytes().map(u64::from).collect::<Vec<_>>())
}

/// Gives each counter value its dispatch's start: the dispatch join holds, per (process,
/// dispatch id), the kernel's start first and then its counters' values. Values of a dispatch
/// that has no kernel row have no time and are left out, as before.
fn place_counter_values(join: Sorter, out: &mut Sorter) -> Result<()> {
    let sorted = join.finish()?;
    let mut reader = sorted.reader()?;
    let mut at: Option<(Vec<u8>, u64)> = None;
    let mut value = Vec::with_capacity(8);
    while let Some((key, v)) = reader.next()? {
        let (dispatch, kind) = key.split_at(key.len().saturating_sub(8));
        if kind == 0u64.to_be_bytes() {
            let start = v.try_into().map(u64::from_le_bytes).map_err(|_| broken("a dispatch's start"))?;
            at = Some((dispatch.to_vec(), start));
            continue;
        }
        let Some((_, start)) = at.as_ref().filter(|(d, _)| d.as_slice() == dispatch) else { continue };
        let (track, counter) = v.split_at_checked(8).ok_or_else(|| broken("a counter value"))?;
        let track = u64::from_le_bytes(track.try_into().map_err(|_| broken("a counter track"))?);
        // By track, time and dispatch, so the instance rows of one dispatch come together.
        let key = Key::new().u64(track).u64(*start).0.into_iter().chain(dispatch.iter().copied()).collect::<Vec<u8>>();
        value.clear();
        value.extend_from_slice(counter);
        out.push(&key, &value)?;
    }
    Ok(())
}

/// Joins API calls to the kernels they launched: where one (process, correlation id) has both,
/// the calls start a flow that the kernels end. Everything goes on to the placement sort.
fn join_flows(b: &mut Builder) -> Result<()> {
    let sorted = std::mem::take(&mut b.join).finish()?;
    // The lookahead reader finds where each group ends and whether it holds both kinds; the
    // main reader then hands the group's slices on with what it found.
    let mut ahead = sorted.reader()?;
    let mut main = sorted.reader()?;
    let mut pending: Option<(Vec<u8>, u64)> = None;
    let mut value = Vec::new();
    loop {
        let (group, first_kind) = match pending.take() {
            Some(first) => first,
            None => match ahead.next()? {
                Some((key, _)) => split_join_key(key)?,
                None => break,
            },
        };
        let mut count = 1u64;
        let mut last_kind = first_kind;
        while let Some((key, _)) = ahead.next()? {
            let (g, kind) = split_join_key(key)?;
            if g != group {
                pending = Some((g, kind));
                break;
            }
            count += 1;
            last_kind = kind;
        }
        let flow = if first_kind == KERNEL && last_kind == CALL {
            let (pid, corr) = group.split_at(8);
            uuid(&[3, be(pid)?, be(corr)?])
        } else {
            0
        };
        for _ in 0..count {
            let (key, v) = main.next()?.ok_or_else(|| broken("a slice"))?;
            let (_, kind) = split_join_key(key)?;
            let mut slice = Slice::decode_from_join(v).ok_or_else(|| broken("a slice"))?;
            if kind == KERNEL {
                slice.flow_in = flow
            } else {
                slice.flow_out = flow
            }
            slice.place(&mut b.placement, &mut value)?;
        }
    }
    Ok(())
}

fn be(bytes: &[u8]) -> Result<u64> {
    bytes.try_into().map(u64::from_be_bytes).map_err(|_| broken("a key"))
}

/// A join key's (process, correlation id) bytes and its kind.
fn split_join_key(key: &[u8]) -> Result<(Vec<u8>, u64)> {
    if key.len() != 24 {
        return Err(broken("a join key"));
    }
    Ok((key[..16].to_vec(), be(&key[16..])?))
}

/// Writes one packet after another.
struct Packets<'a> {
    out: OutputFile,
    path: &'a Path,
}

impl Packets<'_> {
    fn emit(&mut self, packet: &Msg) -> Result<()> {
        let mut trace = Msg::default();
        trace.message(1, packet);
        self.out.write_all(&trace.0).map_err(|source| Error::Io { path: self.path.display().to_string(), source })
    }

    fn descriptor(&mut self, uuid: u64, parent: Option<u64>, name: &str, extra: impl FnOnce(&mut Msg)) -> Result<()> {
        let mut d = Msg::default();
        d.uint(1, uuid).string(2, name);
        if let Some(parent) = parent {
            d.uint(5, parent);
        }
        extra(&mut d);
        let mut packet = Msg::default();
        packet.uint(10, SEQUENCE).message(60, &d);
        self.emit(&packet)
    }
}

/// One lane of a track: its id and the ends of its open slices, innermost last.
struct Lane {
    id: u64,
    open: Vec<u64>,
}

/// Whether a slice ending at `end` has closed by `start` (a zero-length slice at the very
/// end of another nests in it rather than following it).
fn closed_by(end: u64, start: u64, zero_length: bool) -> bool {
    end <= start && !(end == start && zero_length)
}

/// Writes the descriptors, then each track's slices lane by lane as they come out of the
/// placement sort, then the counter tracks.
fn write(
    groups: &BTreeMap<u64, (String, Option<u32>)>,
    tracks: &BTreeMap<u64, Track>,
    counters: &BTreeMap<u64, (String, u64)>,
    placement: Sorter,
    counter_values: Sorter,
    out: &Path,
) -> Result<u64> {
    let io = |source| Error::Io { path: out.display().to_string(), source };
    let mut w = Packets { out: OutputFile::create(out).map_err(io)?, path: out };
    let mut first = Msg::default();
    first.uint(10, SEQUENCE).uint(13, 1);
    w.emit(&first)?;
    for (&id, (name, pid)) in groups {
        w.descriptor(id, None, name, |d| {
            if let Some(pid) = pid {
                let mut process = Msg::default();
                process.uint(1, u64::from(*pid)).string(6, name);
                d.message(3, &process);
            }
        })?;
    }
    let placed = placement.finish()?;
    let mut reader = placed.reader()?;
    let mut slices = 0u64;
    let mut current: Option<u64> = None;
    let mut lanes: Vec<Lane> = Vec::new();
    while let Some((key, value)) = reader.next()? {
        let s = Slice::from_placement(key, value).ok_or_else(|| broken("a slice"))?;
        if current != Some(s.track) {
            close_lanes(&mut w, &mut lanes)?;
            current = Some(s.track);
        }
        let track = tracks.get(&s.track).ok_or_else(|| broken("a track"))?;
        let zero_length = s.end == s.start;
        let mut chosen = None;
        for lane in lanes.iter_mut() {
            while let Some(&end) = lane.open.last().filter(|&&e| closed_by(e, s.start, zero_length)) {
                lane.open.pop();
                w.emit(&event(end, lane.id, SLICE_END, None, 0, 0))?;
            }
            if lane.open.last().is_none_or(|&e| s.end <= e) {
                chosen = Some(lane);
                break;
            }
        }
        let lane = match chosen {
            Some(lane) => lane,
            None => {
                let l = lanes.len();
                let id = if l == 0 { s.track } else { uuid(&[9, s.track, l as u64]) };
                let name = if l == 0 { track.name.clone() } else { format!("{} ({})", track.name, l + 1) };
                // A thread's own track hangs off its thread, not a parent track.
                let parent = if l == 0 && track.thread.is_some() { None } else { Some(track.parent) };
                let thread = if l == 0 { track.thread } else { None };
                w.descriptor(id, parent, &name, |d| {
                    if let Some((pid, tid)) = thread {
                        let mut t = Msg::default();
                        t.uint(1, u64::from(pid)).uint(2, tid).string(5, &format!("thread {tid}"));
                        d.message(4, &t);
                    }
                })?;
                lanes.push(Lane { id, open: Vec::new() });
                lanes.last_mut().expect("pushed")
            }
        };
        w.emit(&event(s.start, lane.id, SLICE_BEGIN, Some(s.name), s.flow_out, s.flow_in))?;
        lane.open.push(s.end);
        slices += 1;
    }
    close_lanes(&mut w, &mut lanes)?;
    drop(reader);
    drop(placed);
    write_counters(&mut w, counters, counter_values)?;
    w.out.commit().map_err(io)?;
    Ok(slices)
}

/// Ends every open slice of a track's lanes, innermost first.
fn close_lanes(w: &mut Packets<'_>, lanes: &mut Vec<Lane>) -> Result<()> {
    for lane in lanes.iter_mut() {
        while let Some(end) = lane.open.pop() {
            w.emit(&event(end, lane.id, SLICE_END, None, 0, 0))?;
        }
    }
    lanes.clear();
    Ok(())
}

/// Each counter track's descriptor, then its values in time order; the instance rows of one
/// dispatch add up to its value.
fn write_counters(w: &mut Packets<'_>, counters: &BTreeMap<u64, (String, u64)>, values: Sorter) -> Result<()> {
    let sorted = values.finish()?;
    let mut reader = sorted.reader()?;
    // (track, time, the dispatch's key) of the point being summed, and its sum.
    let mut point: Option<(Vec<u8>, f64)> = None;
    let mut described: Option<u64> = None;
    let flush = |w: &mut Packets<'_>, point: Option<(Vec<u8>, f64)>, described: &mut Option<u64>| -> Result<()> {
        let Some((key, value)) = point else { return Ok(()) };
        let (track, at) = (be(&key[..8])?, be(&key[8..16])?);
        if *described != Some(track) {
            let (name, parent) = counters.get(&track).ok_or_else(|| broken("a counter track"))?;
            w.descriptor(track, Some(*parent), name, |d| {
                d.message(8, &Msg::default());
            })?;
            *described = Some(track);
        }
        let mut e = Msg::default();
        e.uint(9, COUNTER).uint(11, track).double(44, value);
        let mut packet = Msg::default();
        packet.uint(8, at).uint(10, SEQUENCE).message(11, &e);
        w.emit(&packet)
    };
    while let Some((key, v)) = reader.next()? {
        if key.len() < 16 {
            return Err(broken("a counter key"));
        }
        let value = f64::from_bits(u64::from_le_bytes(v.try_into().map_err(|_| broken("a counter value"))?));
        match &mut point {
            Some((k, sum)) if k.as_slice() == key => *sum += value,
            _ => flush(w, point.replace((key.to_vec(), value)), &mut described)?,
        }
    }
    flush(w, point, &mut described)
}

fn event(at: u64, track: u64, kind: u64, name: Option<&str>, flow_out: u64, flow_in: u64) -> Msg {
    let mut e = Msg::default();
    e.uint(9, kind).uint(11, track);
    if let Some(name) = name {
        e.string(23, name);
    }
    if flow_out != 0 {
        e.fixed64(47, flow_out);
    }
    if flow_in != 0 {
        e.fixed64(48, flow_in);
    }
    let mut packet = Msg::default();
    packet.uint(8, at).uint(10, SEQUENCE).message(11, &e);
    packet
}
