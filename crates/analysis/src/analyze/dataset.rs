//! A dataset read for analysis: per kernel (process, agent, name), its dispatches' timing and
//! resources, the idle time of its queue before each dispatch, and its counters per dispatch.
//!
//! Counters come from `kernel_counter`, per counted dispatch (`mean`): with counter groups
//! rotating over a kernel's dispatches each counter sees a share of them, so the roofline is
//! the average dispatch's, held against the average dispatch time.
//!
//! Idle time needs each queue's dispatches in order: they are kept as 16 bytes each (start,
//! duration, kernel), so a 10M-dispatch trace takes about 160 MB here.

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
    /// Idle time of its queue before each dispatch (after the queue's previous dispatch ended).
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
        for mut dispatches in queues.into_values() {
            dispatches.sort_unstable_by_key(|d| d.0);
            let mut previous_end: Option<i64> = None;
            for (start, duration, k) in dispatches {
                if let Some(end) = previous_end {
                    let idle = (start - end).max(0) as u64;
                    if let Some(rows) = data.kernels.get_mut(&names[k as usize]) {
                        rows.idle.add(idle);
                    }
                }
                let end = start + i64::from(duration);
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
