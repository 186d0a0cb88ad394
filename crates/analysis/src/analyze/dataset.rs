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
//! copy reads as waiting on the host. It needs each queue's dispatches in order, kept as 24
//! bytes each (start, duration, kernel's hash), and each GPU's busy spans, merged from 16 bytes
//! a dispatch: a 10M-dispatch trace takes about 400 MB here at most. Everything kept per kernel
//! stays within `--memory` ([`each_kernel`]).

use rocprof_rs_format::Table;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::specs::Agent;
use crate::error::Result;
use crate::grouped::{Finished, Grouped, Partial};
use crate::read::batches;
use crate::stats::summary::Summary;

/// Which kernel: process, agent, display name.
pub type KernelKey = (u32, u64, String);

/// A GPU queue: process, agent, queue id.
type QueueKey = (u32, u64, u64);

/// One dispatch on its queue: start, duration (ns, saturated at 2^32), and its kernel's hash
/// ([`kernel_key`]).
type Slot = (i64, u32, u64);

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
            ..KernelRows::default()
        };
        let mut at = 20;
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
/// summaries, idle times and counters go through external sorts beyond their shares of it.
/// What grows with the trace is each queue's dispatches (24 bytes each) and each GPU's busy
/// spans (16 bytes each), for the idle times.
pub fn each_kernel(
    dir: &Path,
    pid: Option<u32>,
    mut each: impl FnMut(KernelKey, KernelRows) -> Result<()>,
) -> Result<()> {
    use crate::spill::share;
    let keep = |p: u32| pid.is_none_or(|want| want == p);
    let mut kernels: Grouped<Dispatches> = Grouped::with_budget(share(4), share(8));
    let mut queues: HashMap<QueueKey, Vec<Slot>> = HashMap::new();
    let mut key = Vec::new();
    batches(dir, Table::KernelDispatch, |b| {
        let (name, start, duration) = (b.col("kernel_name")?, b.col("start_ns")?, b.col("duration_ns")?);
        let (p, agent, queue) = (b.col("pid")?, b.col("agent_id")?, b.col("queue_id")?);
        let (bx, by, bz) = (b.col("block_x")?, b.col("block_y")?, b.col("block_z")?);
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
                    ..KernelRows::default()
                })
            };
            kernels.update(&key, first, |k| k.0.durations.add(ns))?;
            let q = (process, agent.u64(i), queue.u64(i));
            queues.entry(q).or_default().push((start.i64(i), ns.min(u64::from(u32::MAX)) as u32, hash));
        }
        Ok(())
    })?;
    let kernels = kernels.finish()?;
    let idle = idle_times(queues)?;
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

/// Each dispatch's idle time before it (where it follows another timed one on its queue), by
/// its kernel's hash.
fn idle_times(queues: HashMap<QueueKey, Vec<Slot>>) -> Result<Finished<Summary>> {
    let mut spans: HashMap<(u32, u64), Vec<(i64, i64)>> = HashMap::new();
    for (&(process, agent, _), dispatches) in &queues {
        let timed = dispatches
            .iter()
            .filter(|d| timed(d))
            .map(|&(start, duration, _)| (start, start.saturating_add(i64::from(duration))));
        spans.entry((process, agent)).or_default().extend(timed);
    }
    let busy: HashMap<(u32, u64), Busy> = spans.into_iter().map(|(agent, spans)| (agent, Busy::new(spans))).collect();
    let mut idle: Grouped<Summary> = Grouped::with_budget(crate::spill::share(16), crate::spill::share(16));
    for ((process, agent, _), mut dispatches) in queues {
        let Some(busy) = busy.get(&(process, agent)) else { continue };
        dispatches.sort_unstable_by_key(|d| d.0);
        let mut previous_end: Option<i64> = None;
        for d @ (start, duration, hash) in dispatches {
            // Where a dispatch has no time, the queue's timeline breaks: the next has no gap.
            if !timed(&d) {
                previous_end = None;
                continue;
            }
            if let Some(end) = previous_end {
                let gap = if start > end { busy.idle(end, start) } else { 0 };
                idle.update(&hash.to_be_bytes(), Summary::default, |s| s.add(gap))?;
            }
            let end = start.saturating_add(i64::from(duration));
            previous_end = Some(previous_end.map_or(end, |e| e.max(end)));
        }
    }
    idle.finish()
}

/// Whether the dispatch has timestamps (rows that lost theirs hold 0 for both).
fn timed(&(start, duration, _): &Slot) -> bool {
    start != 0 || duration != 0
}

/// One GPU's busy time: the union of its dispatches' spans, in order, with the busy time before
/// each.
struct Busy {
    spans: Vec<(i64, i64)>,
    before: Vec<i64>,
}

impl Busy {
    fn new(mut spans: Vec<(i64, i64)>) -> Busy {
        spans.sort_unstable();
        let mut merged: Vec<(i64, i64)> = Vec::new();
        for (start, end) in spans {
            match merged.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        let mut total = 0;
        let before = merged
            .iter()
            .map(|&(start, end)| {
                let b = total;
                total = end.saturating_sub(start).saturating_add(total);
                b
            })
            .collect();
        Busy { spans: merged, before }
    }

    /// Busy time before `t`.
    fn until(&self, t: i64) -> i64 {
        let i = self.spans.partition_point(|&(start, _)| start < t);
        match i.checked_sub(1) {
            Some(i) => self.before[i].saturating_add(self.spans[i].1.min(t).saturating_sub(self.spans[i].0)),
            None => 0,
        }
    }

    /// The time in `from..to` when nothing ran.
    fn idle(&self, from: i64, to: i64) -> u64 {
        // Hostile times reach i64's ends: the difference of differences is taken in i128.
        let busy = i128::from(self.until(to)) - i128::from(self.until(from));
        (i128::from(to) - i128::from(from) - busy).clamp(0, i128::from(u64::MAX)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_time_is_what_no_span_covers() {
        let busy = Busy::new(vec![(10, 20), (15, 30), (40, 50), (60, 61)]);
        assert_eq!(busy.spans, [(10, 30), (40, 50), (60, 61)]);
        assert_eq!(busy.idle(0, 100), 100 - 20 - 10 - 1);
        assert_eq!(busy.idle(30, 40), 10);
        assert_eq!(busy.idle(25, 45), 10);
        assert_eq!(busy.idle(12, 18), 0);
    }
}
