//! A dataset read for analysis: per kernel (process, agent, name), its dispatches' timing and
//! resources, the idle time of its queue before each dispatch, and its counters per dispatch.
//!
//! Counters come from `kernel_counter`, per counted dispatch (`mean`): with counter groups
//! rotating over a kernel's dispatches each counter sees a share of them, so the roofline is
//! the average dispatch's, held against the average dispatch time.
//!
//! Idle time before a dispatch is the time, after its queue's previous dispatch ended, in which
//! no kernel ran on its GPU: its queue waited, and no other queue of the GPU had work, so the GPU
//! waited on the host. Only dispatches with timestamps that follow another timed one on their
//! queue have one; the first on a queue has none. Copies are not seen: a queue that waits on a
//! copy reads as waiting on the host. It needs each GPU's dispatches in start order: they go
//! through an external sort (40 bytes each), and one pass keeps each queue's last end and the
//! GPU's busy time so far. Everything kept per kernel or per dispatch stays within `--memory`
//! ([`each_kernel`]).

use rocprof_rs_format::Table;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::path::Path;

use super::specs::Agent;
use crate::error::Result;
use crate::grouped::{Finished, Grouped, Partial};
use crate::read::batches;
use crate::spill::{Key, Sorter, biased, unbiased};
use crate::stats::summary::Summary;

/// Which kernel: process, agent, display name.
pub type KernelKey = (u32, u64, String);

/// What the dispatches of one kernel say.
#[derive(Debug, Clone, Default)]
pub struct KernelRows {
    pub durations: Summary,
    /// Work-items per work-group, and the code object's registers and LDS, from its first
    /// dispatch.
    pub workgroup: u32,
    pub arch_vgprs: u32,
    pub accum_vgprs: u32,
    pub sgprs: u32,
    pub lds_bytes: u32,
    /// Work-groups (blocks) in its first dispatch's grid.
    pub grid_groups: u64,
    /// Idle time of its GPU before each dispatch that follows another on its queue: after the
    /// queue's previous dispatch ended, the time no kernel ran on the GPU.
    pub idle: Summary,
    /// Counter values per counted dispatch, by counter name.
    pub counters: BTreeMap<String, f64>,
}

impl KernelRows {
    /// Appends its bytes, for an external sort to carry; [`KernelRows::decode`] reads them back.
    pub fn encode(&self, out: &mut Vec<u8>) {
        for field in [self.workgroup, self.arch_vgprs, self.accum_vgprs, self.sgprs, self.lds_bytes] {
            out.extend_from_slice(&field.to_le_bytes());
        }
        out.extend_from_slice(&self.grid_groups.to_le_bytes());
        for summary in [&self.durations, &self.idle] {
            let at = out.len();
            out.extend_from_slice(&[0; 4]);
            summary.encode(out);
            let len = (out.len() - at - 4) as u32;
            out[at..at + 4].copy_from_slice(&len.to_le_bytes());
        }
        encode_counters(&self.counters, out);
    }

    /// Rows from [`KernelRows::encode`]'s bytes.
    pub fn decode(bytes: &[u8]) -> Option<KernelRows> {
        let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
        let mut rows = KernelRows {
            workgroup: u32_at(0)?,
            arch_vgprs: u32_at(4)?,
            accum_vgprs: u32_at(8)?,
            sgprs: u32_at(12)?,
            lds_bytes: u32_at(16)?,
            grid_groups: u64::from_le_bytes(bytes.get(20..28)?.try_into().ok()?),
            ..KernelRows::default()
        };
        let mut at = 28;
        for summary in [&mut rows.durations, &mut rows.idle] {
            let len = u32_at(at)? as usize;
            *summary = Summary::decode(bytes.get(at + 4..at + 4 + len)?)?;
            at += 4 + len;
        }
        rows.counters = Counters::decode(bytes.get(at..)?)?.0;
        Some(rows)
    }
}

/// A kernel's dispatches as a partial summary: their durations, and the first one's resources.
struct Dispatches(KernelRows);

impl Partial for Dispatches {
    fn merge(&mut self, later: Self) {
        // The earlier part keeps its resources: they are the first dispatch's.
        self.0.durations.merge(&later.0.durations);
    }

    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        KernelRows::decode(bytes).map(Dispatches)
    }

    fn footprint(&self) -> usize {
        self.0.durations.footprint()
    }
}

/// A kernel's counters as a partial summary: a later value of a counter replaces an earlier.
#[derive(Debug, Default)]
struct Counters(BTreeMap<String, f64>);

impl Partial for Counters {
    fn merge(&mut self, later: Self) {
        self.0.extend(later.0);
    }

    fn encode(&self, out: &mut Vec<u8>) {
        encode_counters(&self.0, out);
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize);
        let mut counters = BTreeMap::new();
        let mut at = 4;
        for _ in 0..u32_at(0)? {
            let len = u32_at(at)?;
            let name = std::str::from_utf8(bytes.get(at + 4..at + 4 + len)?).ok()?.to_owned();
            at += 4 + len;
            let value = f64::from_bits(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
            at += 8;
            counters.insert(name, value);
        }
        Some(Counters(counters))
    }

    fn footprint(&self) -> usize {
        self.0.keys().map(|k| k.len() + 64).sum()
    }
}

fn encode_counters(counters: &BTreeMap<String, f64>, out: &mut Vec<u8>) {
    out.extend_from_slice(&(counters.len() as u32).to_le_bytes());
    for (name, value) in counters {
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&value.to_bits().to_le_bytes());
    }
}

/// An agent as the dataset describes it.
#[derive(Debug, Clone, Default)]
pub struct AgentRow {
    pub agent: Agent,
    pub wave_size: u32,
    pub gpu: bool,
    /// XCDs (0: not said).
    pub xcc: u32,
}

/// The dataset's agents, by process and agent id.
pub type Agents = HashMap<(u32, u64), AgentRow>;

/// The dataset, by kernel and agent, in memory: for `--timings`, which joins two of them by name.
#[derive(Debug, Default)]
pub struct Dataset {
    pub kernels: BTreeMap<KernelKey, KernelRows>,
    pub agents: Agents,
}

impl Dataset {
    /// Reads `dir` (one process's rows if `pid` is given).
    pub fn read(dir: &Path, pid: Option<u32>) -> Result<Dataset> {
        let mut data = Dataset { agents: agents(dir)?, ..Dataset::default() };
        each_kernel(dir, pid, |key, rows| {
            data.kernels.insert(key, rows);
            Ok(())
        })?;
        Ok(data)
    }
}

/// The agents of `dir`.
pub fn agents(dir: &Path) -> Result<Agents> {
    let mut agents = Agents::new();
    batches(dir, Table::Agent, |b| {
        let (id, p, kind, name, product) =
            (b.col("agent_id")?, b.col("pid")?, b.col("agent_type")?, b.col("name")?, b.col("product_name")?);
        let (cus, clock, wave) = (b.col("cu_count")?, b.col("max_engine_clock_mhz")?, b.col("wave_front_size")?);
        let xcc = b.col("num_xcc")?;
        for i in 0..b.rows() {
            let agent = Agent {
                target: name.text(i).to_owned(),
                product_name: product.text(i).to_owned(),
                compute_units: Some(cus.u64(i) as u32).filter(|&c| c > 0),
                max_clock_mhz: Some(clock.u64(i) as u32).filter(|&c| c > 0),
            };
            let row =
                AgentRow { agent, wave_size: wave.u64(i) as u32, gpu: kind.text(i) == "GPU", xcc: xcc.u64(i) as u32 };
            agents.insert((p.u64(i) as u32, id.u64(i)), row);
        }
        Ok(())
    })?;
    Ok(agents)
}

/// A kernel's key in the sorts: a hash of it first, then process, agent and name, so that its
/// dispatches, its idle times (which know it by its hash alone) and its counters meet in one
/// order. Returns the hash.
fn kernel_key(out: &mut Vec<u8>, pid: u32, agent: u64, name: &str) -> u64 {
    out.clear();
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(&pid.to_be_bytes());
    out.extend_from_slice(&agent.to_be_bytes());
    out.extend_from_slice(name.as_bytes());
    let hash =
        out[8..].iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    out[..8].copy_from_slice(&hash.to_be_bytes());
    hash
}

/// The kernel a [`kernel_key`] names.
fn key_of(bytes: &[u8]) -> Option<KernelKey> {
    let pid = u32::from_be_bytes(bytes.get(8..12)?.try_into().ok()?);
    let agent = u64::from_be_bytes(bytes.get(12..20)?.try_into().ok()?);
    Some((pid, agent, std::str::from_utf8(bytes.get(20..)?).ok()?.to_owned()))
}

/// Hands each kernel of `dir` (of process `pid` only, where given) with its rows to `each`, in
/// no particular order. Memory stays within `--memory` whatever the number of kernels: their
/// summaries, idle times and counters, and the dispatches in start order for the idle times,
/// go through external sorts beyond their shares of it.
pub fn each_kernel(
    dir: &Path,
    pid: Option<u32>,
    mut each: impl FnMut(KernelKey, KernelRows) -> Result<()>,
) -> Result<()> {
    use crate::spill::share;
    let keep = |p: u32| pid.is_none_or(|want| want == p);
    let mut kernels: Grouped<Dispatches> = Grouped::with_budget(share(4), share(8));
    // Every dispatch by GPU and start, for the idle times: through an external sort, so a trace
    // of any length holds its budget.
    let mut timeline = Sorter::with_budget(share(8));
    let mut key = Vec::new();
    batches(dir, Table::KernelDispatch, |b| {
        let (name, start, duration) = (b.col("kernel_name")?, b.col("start_ns")?, b.col("duration_ns")?);
        let (p, agent, queue) = (b.col("pid")?, b.col("agent_id")?, b.col("queue_id")?);
        let (bx, by, bz) = (b.col("block_x")?, b.col("block_y")?, b.col("block_z")?);
        let (gx, gy, gz) = (b.col("grid_x")?, b.col("grid_y")?, b.col("grid_z")?);
        let (regs, accum, sgpr, lds) = (b.col("regs")?, b.col("accum_vgpr")?, b.col("sgpr")?, b.col("shared_mem")?);
        for i in 0..b.rows() {
            let process = p.u64(i) as u32;
            if !keep(process) {
                continue;
            }
            let hash = kernel_key(&mut key, process, agent.u64(i), &crate::names::bounded(name.text(i)));
            let ns = duration.u64(i);
            let first = || {
                Dispatches(KernelRows {
                    workgroup: (bx.u64(i) * by.u64(i).max(1) * bz.u64(i).max(1)) as u32,
                    arch_vgprs: regs.u64(i) as u32,
                    accum_vgprs: accum.u64(i) as u32,
                    sgprs: sgpr.u64(i) as u32,
                    lds_bytes: lds.u64(i) as u32,
                    // The grid counts work-items (`gridDim * blockDim` on NVIDIA).
                    grid_groups: [(&gx, &bx), (&gy, &by), (&gz, &bz)]
                        .iter()
                        .map(|(g, b)| (g.i64(i).max(1) as u64).div_ceil(b.u64(i).max(1)))
                        .product(),
                    ..KernelRows::default()
                })
            };
            kernels.update(&key, first, |k| k.0.durations.add(ns))?;
            let place = Key::new().u64(u64::from(process) << 32).u64(agent.u64(i)).u64(biased(start.i64(i)));
            let mut slot = [0u8; 20];
            slot[..8].copy_from_slice(&queue.u64(i).to_le_bytes());
            slot[8..12].copy_from_slice(&(ns.min(u64::from(u32::MAX)) as u32).to_le_bytes());
            slot[12..].copy_from_slice(&hash.to_le_bytes());
            timeline.push(&place.0, &slot)?;
        }
        Ok(())
    })?;
    let kernels = kernels.finish()?;
    let idle = idle_times(&timeline.finish()?)?;
    let mut counters: Grouped<Counters> = Grouped::with_budget(share(8), share(8));
    batches(dir, Table::KernelCounter, |b| {
        let (name, agent, p, counter, mean) =
            (b.col("kernel_name")?, b.col("agent_id")?, b.col("pid")?, b.col("counter")?, b.col("mean")?);
        for i in 0..b.rows() {
            let process = p.u64(i) as u32;
            if !keep(process) {
                continue;
            }
            kernel_key(&mut key, process, agent.u64(i), &crate::names::bounded(name.text(i)));
            let counter = crate::names::bounded(counter.text(i)).into_owned();
            let value = mean.f64(i);
            counters.update(&key, Counters::default, |c| {
                c.0.insert(counter, value);
            })?;
        }
        Ok(())
    })?;
    let counters = counters.finish()?;
    let broken = || crate::Error::Invalid("analyze: a kernel did not come back from the external sort".into());
    let (mut kernels, mut idle, mut counters) = (kernels.reader()?, idle.reader()?, counters.reader()?);
    let (mut next_idle, mut next_counters) = (idle.next()?, counters.next()?);
    while let Some((key, Dispatches(mut rows))) = kernels.next()? {
        while next_idle.as_ref().is_some_and(|(hash, _)| hash.as_slice() < &key[..8]) {
            next_idle = idle.next()?;
        }
        if next_idle.as_ref().is_some_and(|(hash, _)| hash.as_slice() == &key[..8]) {
            rows.idle = next_idle.take().map(|(_, s)| s).unwrap_or_default();
            next_idle = idle.next()?;
        }
        while next_counters.as_ref().is_some_and(|(k, _)| k.as_slice() < key.as_slice()) {
            next_counters = counters.next()?;
        }
        if next_counters.as_ref().is_some_and(|(k, _)| k.as_slice() == key.as_slice()) {
            rows.counters = next_counters.take().map(|(_, c)| c.0).unwrap_or_default();
            next_counters = counters.next()?;
        }
        each(key_of(&key).ok_or_else(broken)?, rows)?;
    }
    Ok(())
}

/// A dispatch as the timeline sort holds it: its GPU (process, agent), start, queue, duration
/// (ns, saturated at 2^32) and its kernel's hash ([`kernel_key`]).
struct Slot {
    gpu: (u32, u64),
    start: i64,
    queue: u64,
    duration: u32,
    hash: u64,
}

impl Slot {
    fn decode(key: &[u8], value: &[u8]) -> Option<Slot> {
        let u64_at = |bytes: &[u8], at: usize| Some(u64::from_be_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
        let le64 = |at: usize| Some(u64::from_le_bytes(value.get(at..at + 8)?.try_into().ok()?));
        Some(Slot {
            gpu: ((u64_at(key, 0)? >> 32) as u32, u64_at(key, 8)?),
            start: unbiased(u64_at(key, 16)?),
            queue: le64(0)?,
            duration: u32::from_le_bytes(value.get(8..12)?.try_into().ok()?),
            hash: le64(12)?,
        })
    }

    /// Whether it has timestamps (rows that lost theirs hold 0 for both).
    fn timed(&self) -> bool {
        self.start != 0 || self.duration != 0
    }

    fn end(&self) -> i64 {
        self.start.saturating_add(i64::from(self.duration))
    }
}

/// Each dispatch's idle time before it (where it follows another timed one on its queue), by
/// its kernel's hash: one pass over each GPU's dispatches in start order, holding each queue's
/// last end and the GPU's busy time so far.
fn idle_times(timeline: &crate::spill::Sorted) -> Result<Finished<Summary>> {
    let broken = || crate::Error::Invalid("analyze: a dispatch did not come back from the external sort".into());
    let mut idle: Grouped<Summary> = Grouped::with_budget(crate::spill::share(16), crate::spill::share(16));
    let mut reader = timeline.reader()?;
    let mut gpu: Option<(u32, u64)> = None;
    let mut busy = BusyTime::default();
    // Per queue: the end of its timed dispatches so far, and the GPU's busy time before it once
    // the pass has reached it.
    let mut queues: HashMap<u64, (i64, Option<i64>)> = HashMap::new();
    // The queues' last ends not yet reached, earliest first (an entry is stale where its queue
    // has ended later since).
    let mut pending: BinaryHeap<Reverse<(i64, u64)>> = BinaryHeap::new();
    while let Some((key, value)) = reader.next()? {
        let d = Slot::decode(key, value).ok_or_else(broken)?;
        if gpu != Some(d.gpu) {
            gpu = Some(d.gpu);
            busy = BusyTime::default();
            queues.clear();
            pending.clear();
        }
        // Every span that starts before this dispatch has been added, and none after: the busy
        // time before the queues' last ends that it passes is known now.
        while let Some(&Reverse((end, queue))) = pending.peek().filter(|Reverse((end, _))| *end <= d.start) {
            pending.pop();
            if let Some((last, before)) = queues.get_mut(&queue).filter(|(last, _)| *last == end) {
                *before = Some(busy.until(*last));
            }
        }
        // Where a dispatch has no time, the queue's timeline breaks: the next has no gap.
        if !d.timed() {
            queues.remove(&d.queue);
            continue;
        }
        if let Some(&(end, before)) = queues.get(&d.queue) {
            let gap = if d.start > end {
                let busy_between = i128::from(busy.until(d.start)) - i128::from(before.unwrap_or(0));
                (i128::from(d.start) - i128::from(end) - busy_between).clamp(0, i128::from(u64::MAX)) as u64
            } else {
                0
            };
            idle.update(&d.hash.to_be_bytes(), Summary::default, |s| s.add(gap))?;
        }
        busy.add(d.start, d.end());
        let end = queues.get(&d.queue).map_or(d.end(), |&(e, _)| e.max(d.end()));
        let before = if end <= d.start {
            Some(busy.until(end))
        } else {
            pending.push(Reverse((end, d.queue)));
            None
        };
        queues.insert(d.queue, (end, before));
    }
    idle.finish()
}

/// One GPU's busy time as its dispatches arrive in start order: the union of their spans so far,
/// as the closed part's total and the span still open.
#[derive(Debug, Default)]
struct BusyTime {
    closed: i64,
    open: Option<(i64, i64)>,
}

impl BusyTime {
    /// Adds a span that starts no earlier than any before it.
    fn add(&mut self, start: i64, end: i64) {
        match &mut self.open {
            Some(open) if start <= open.1 => open.1 = open.1.max(end),
            _ => {
                if let Some((s, e)) = self.open.replace((start, end)) {
                    self.closed = e.saturating_sub(s).saturating_add(self.closed);
                }
            }
        }
    }

    /// Busy time before `t`, where every span that starts before `t` has been added and none
    /// that starts later.
    fn until(&self, t: i64) -> i64 {
        match self.open {
            Some((s, e)) if s < t => self.closed.saturating_add(e.min(t).saturating_sub(s)),
            _ => self.closed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_time_is_the_union_of_the_spans_so_far() {
        let mut busy = BusyTime::default();
        for (start, end) in [(10, 20), (15, 30), (40, 50), (60, 61)] {
            busy.add(start, end);
        }
        assert_eq!(busy.until(100), 20 + 10 + 1);
        assert_eq!(busy.until(61), 31);
        assert_eq!(busy.until(60), 30);
        let mut busy = BusyTime::default();
        busy.add(10, 20);
        busy.add(15, 30);
        assert_eq!((busy.until(12), busy.until(18), busy.until(40)), (2, 8, 20));
    }

    /// Two queues on one GPU: a gap on queue 1 is idle only where queue 2 ran nothing; an untimed
    /// dispatch breaks its queue's timeline.
    #[test]
    fn idle_time_is_what_no_dispatch_of_the_gpu_covers() {
        let mut timeline = Sorter::with_budget(64);
        // (queue, start, duration, kernel)
        for (queue, start, duration, kernel) in
            [(1, 0, 10, 1), (2, 15, 10, 2), (1, 40, 5, 1), (2, 100, 0, 3), (2, 0, 0, 3), (1, 60, 5, 1)]
        {
            let place = Key::new().u64(7u64 << 32).u64(1).u64(biased(start));
            let mut slot = [0u8; 20];
            slot[..8].copy_from_slice(&(queue as u64).to_le_bytes());
            slot[8..12].copy_from_slice(&(duration as u32).to_le_bytes());
            slot[12..].copy_from_slice(&(kernel as u64).to_le_bytes());
            timeline.push(&place.0, &slot).unwrap();
        }
        let idle = idle_times(&timeline.finish().unwrap()).unwrap();
        let mut reader = idle.reader().unwrap();
        let mut found = Vec::new();
        while let Some((hash, summary)) = reader.next().unwrap() {
            found.push((u64::from_be_bytes(hash.try_into().unwrap()), summary.count, summary.sum));
        }
        // Kernel 1: 10..40 less queue 2's 15..25 (20), then 45..60 (15). Kernel 3 at 100, after
        // queue 2's end at 25: 75 less queue 1's 40..45 and 60..65 (65). Kernel 2 follows queue
        // 2's untimed dispatch: no gap.
        assert_eq!(found, [(1, 2, 35), (3, 1, 65)]);
    }
}
