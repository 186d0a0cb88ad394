//! The report's counter coverage: for each hardware counter, the kernels that have it and the
//! share of their dispatches that collected it. With counter groups taking turns over a
//! kernel's dispatches each counter sees only some of them; a kernel none of whose dispatches
//! collected a counter has no roofline point.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use rocprof_rs_format::Table;
use serde::Serialize;

use crate::error::Result;
use crate::read::batches;

/// One counter's coverage.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CounterCoverage {
    pub counter: String,
    /// The pass (group) that collected it, where one did.
    pub groups: Vec<u32>,
    pub kernels: usize,
    /// Dispatches that collected it, of the dispatches of the kernels that have it.
    pub samples: u64,
    pub dispatches: u64,
}

impl CounterCoverage {
    pub fn share(&self) -> f64 {
        if self.dispatches == 0 { 0.0 } else { self.samples as f64 / self.dispatches as f64 }
    }
}

/// The coverage section.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Coverage {
    pub counters: Vec<CounterCoverage>,
    /// Kernels (by name) with at least one counter, of all kernels.
    pub kernels_with_counters: usize,
    pub kernels: usize,
    /// Which table it came from.
    pub source: &'static str,
}

/// The coverage of `dir`'s counters; `calls` is each kernel name's dispatches (from `stats`),
/// for the long-form `counter` table, which has no per-kernel totals. None without counters.
pub fn compute(dir: &Path, calls: &HashMap<String, u64>) -> Result<Option<Coverage>> {
    let mut by_counter: BTreeMap<String, (BTreeSet<u32>, BTreeSet<String>, u64, u64)> = BTreeMap::new();
    let mut kernels: BTreeSet<String> = BTreeSet::new();
    batches(dir, Table::KernelCounter, |b| {
        let (name, counter, group) = (b.col("kernel_name")?, b.col("counter")?, b.col("counter_group")?);
        let (samples, dispatches) = (b.col("samples")?, b.col("dispatches")?);
        for i in 0..b.rows() {
            let entry = by_counter.entry(counter.text(i).to_owned()).or_default();
            entry.0.insert(group.u64(i) as u32);
            entry.1.insert(name.text(i).to_owned());
            entry.2 = entry.2.saturating_add(samples.u64(i));
            entry.3 = entry.3.saturating_add(dispatches.u64(i));
            kernels.insert(name.text(i).to_owned());
        }
        Ok(())
    })?;
    let mut source = "kernel_counter";
    if by_counter.is_empty() {
        source = "counter";
        batches(dir, Table::Counter, |b| {
            let (name, counter, group) = (b.col("kernel_name")?, b.col("counter")?, b.col("counter_group")?);
            let instance = b.col_opt("instance")?;
            for i in 0..b.rows() {
                // Per-instance rows: one sample is the dispatch's first instance.
                if instance.as_ref().and_then(|c| c.opt_i64(i)).is_some_and(|n| n != 0) {
                    continue;
                }
                let entry = by_counter.entry(counter.text(i).to_owned()).or_default();
                entry.0.insert(group.u64(i) as u32);
                entry.1.insert(name.text(i).to_owned());
                entry.2 = entry.2.saturating_add(1);
                kernels.insert(name.text(i).to_owned());
            }
            Ok(())
        })?;
        for entry in by_counter.values_mut() {
            entry.3 =
                entry.1.iter().map(|k| calls.get(k).copied().unwrap_or(0)).fold(0u64, u64::saturating_add).max(entry.2);
        }
    }
    if by_counter.is_empty() {
        return Ok(None);
    }
    let counters = by_counter
        .into_iter()
        .map(|(counter, (groups, names, samples, dispatches))| CounterCoverage {
            counter,
            groups: groups.into_iter().collect(),
            kernels: names.len(),
            samples,
            dispatches,
        })
        .collect();
    Ok(Some(Coverage {
        counters,
        kernels_with_counters: kernels.len(),
        kernels: calls.len().max(kernels.len()),
        source,
    }))
}
