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
//! copy reads as waiting on the host. It needs each queue's dispatches in order, kept as 16
//! bytes each (start, duration, kernel), and each GPU's busy spans, merged from 16 bytes a
//! dispatch: a 10M-dispatch trace takes about 320 MB here at most.

use rocprof_rs_format::Table;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::specs::Agent;
use crate::error::Result;
use crate::read::batches;
use crate::stats::summary::Summary;

/// Which kernel: process, agent, display name.
pub type KernelKey = (u32, u64, String);

/// A GPU queue: process, agent, queue id.
type QueueKey = (u32, u64, u64);

/// One dispatch on its queue: start, duration (ns, saturated at 2^32) and kernel index.
type Slot = (i64, u32, u32);

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

/// An agent as the dataset describes it.
#[derive(Debug, Clone, Default)]
pub struct AgentRow {
    pub agent: Agent,
    pub wave_size: u32,
    pub gpu: bool,
    /// XCDs (0: not said).
    pub xcc: u32,
}

/// The dataset, by kernel and agent.
#[derive(Debug, Default)]
pub struct Dataset {
    pub kernels: BTreeMap<KernelKey, KernelRows>,
    pub agents: HashMap<(u32, u64), AgentRow>,
}

impl Dataset {
    /// Reads `dir` (one process's rows if `pid` is given).
    pub fn read(dir: &Path, pid: Option<u32>) -> Result<Dataset> {
        let mut data = Dataset::default();
        let keep = |p: u32| pid.is_none_or(|want| want == p);
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
                let row = AgentRow {
                    agent,
                    wave_size: wave.u64(i) as u32,
                    gpu: kind.text(i) == "GPU",
                    xcc: xcc.u64(i) as u32,
                };
                data.agents.insert((p.u64(i) as u32, id.u64(i)), row);
            }
            Ok(())
        })?;
        // Dispatches: per queue, in start order, for the idle times.
        let mut names: Vec<KernelKey> = Vec::new();
        let mut index: HashMap<KernelKey, u32> = HashMap::new();
        let mut queues: HashMap<QueueKey, Vec<Slot>> = HashMap::new();
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
                let key = (process, agent.u64(i), name.text(i).to_owned());
                let k = match index.get(&key) {
                    Some(&k) => k,
                    None => {
                        let k = names.len() as u32;
                        index.insert(key.clone(), k);
                        names.push(key.clone());
                        let rows = KernelRows {
                            workgroup: (bx.u64(i) * by.u64(i).max(1) * bz.u64(i).max(1)) as u32,
                            arch_vgprs: regs.u64(i) as u32,
                            accum_vgprs: accum.u64(i) as u32,
                            sgprs: sgpr.u64(i) as u32,
                            lds_bytes: lds.u64(i) as u32,
                            ..KernelRows::default()
                        };
                        data.kernels.insert(key.clone(), rows);
                        k
                    }
                };
                let ns = duration.u64(i);
                if let Some(rows) = data.kernels.get_mut(&key) {
                    rows.durations.add(ns);
                }
                let q = (process, agent.u64(i), queue.u64(i));
                queues.entry(q).or_default().push((start.i64(i), ns.min(u64::from(u32::MAX)) as u32, k));
            }
            Ok(())
        })?;
        let mut spans: HashMap<(u32, u64), Vec<(i64, i64)>> = HashMap::new();
        for (&(process, agent, _), dispatches) in &queues {
            let timed = dispatches
                .iter()
                .filter(|d| timed(d))
                .map(|&(start, duration, _)| (start, start.saturating_add(i64::from(duration))));
            spans.entry((process, agent)).or_default().extend(timed);
        }
        let busy: HashMap<(u32, u64), Busy> =
            spans.into_iter().map(|(agent, spans)| (agent, Busy::new(spans))).collect();
        for ((process, agent, _), mut dispatches) in queues {
            let Some(busy) = busy.get(&(process, agent)) else { continue };
            dispatches.sort_unstable_by_key(|d| d.0);
            let mut previous_end: Option<i64> = None;
            for d @ (start, duration, k) in dispatches {
                // Where a dispatch has no time, the queue's timeline breaks: the next has no gap.
                if !timed(&d) {
                    previous_end = None;
                    continue;
                }
                if let Some(end) = previous_end {
                    let idle = if start > end { busy.idle(end, start) } else { 0 };
                    if let Some(rows) = data.kernels.get_mut(&names[k as usize]) {
                        rows.idle.add(idle);
                    }
                }
                let end = start.saturating_add(i64::from(duration));
                previous_end = Some(previous_end.map_or(end, |e| e.max(end)));
            }
        }
        batches(dir, Table::KernelCounter, |b| {
            let (name, agent, p, counter, mean) =
                (b.col("kernel_name")?, b.col("agent_id")?, b.col("pid")?, b.col("counter")?, b.col("mean")?);
            for i in 0..b.rows() {
                let key = (p.u64(i) as u32, agent.u64(i), name.text(i).to_owned());
                if let Some(rows) = data.kernels.get_mut(&key) {
                    rows.counters.insert(counter.text(i).to_owned(), mean.f64(i));
                }
            }
            Ok(())
        })?;
        Ok(data)
    }
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
