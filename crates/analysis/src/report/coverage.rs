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
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
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

/// The most counters the section lists: a GPU has a few hundred; a dataset with more lists the
/// first of them by name and says how many it leaves out, so the page does not grow with them.
pub const MAX_COUNTERS: usize = 500;

/// The coverage section.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Coverage {
    /// The first [`MAX_COUNTERS`] counters by name.
    pub counters: Vec<CounterCoverage>,
    /// Every counter the dataset has, listed or not.
    pub all_counters: usize,
    /// Kernels (by name) with at least one counter, of all kernels.
    pub kernels_with_counters: usize,
    pub kernels: usize,
    /// Which table it came from.
    pub source: &'static str,
}

/// The counters of a dataset as read, before the long-form `counter` table's dispatches are
/// known: [`Counted::kernels_wanted`] says whose calls [`Counted::finish`] needs.
#[derive(Debug, Default)]
pub struct Counted {
    by_counter: BTreeMap<String, (BTreeSet<u32>, BTreeSet<String>, u64, u64)>,
    kernels: BTreeSet<String>,
    source: &'static str,
}

/// Reads `dir`'s counters; None without any.
pub fn read(dir: &Path) -> Result<Option<Counted>> {
    let mut by_counter: BTreeMap<String, (BTreeSet<u32>, BTreeSet<String>, u64, u64)> = BTreeMap::new();
    let mut kernels: BTreeSet<String> = BTreeSet::new();
    batches(dir, Table::KernelCounter, |b| {
        let (name, counter, group) = (b.col("kernel_name")?, b.col("counter")?, b.col("counter_group")?);
        let (samples, dispatches) = (b.col("samples")?, b.col("dispatches")?);
        for i in 0..b.rows() {
            let name = crate::names::bounded(name.text(i));
            let entry = by_counter.entry(crate::names::bounded(counter.text(i)).into_owned()).or_default();
            entry.0.insert(group.u64(i) as u32);
            entry.1.insert(name.clone().into_owned());
            entry.2 = entry.2.saturating_add(samples.u64(i));
            entry.3 = entry.3.saturating_add(dispatches.u64(i));
            kernels.insert(name.into_owned());
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
                let name = crate::names::bounded(name.text(i));
                let entry = by_counter.entry(crate::names::bounded(counter.text(i)).into_owned()).or_default();
                entry.0.insert(group.u64(i) as u32);
                entry.1.insert(name.clone().into_owned());
                entry.2 = entry.2.saturating_add(1);
                kernels.insert(name.into_owned());
            }
            Ok(())
        })?;
    }
    Ok((!by_counter.is_empty()).then_some(Counted { by_counter, kernels, source }))
}

impl Counted {
    /// Whether [`Counted::finish`] needs the calls of kernel `name`: those of the long-form
    /// `counter` table's kernels, which has no per-kernel totals.
    pub fn kernels_wanted(&self, name: &str) -> bool {
        self.source == "counter" && self.kernels.contains(name)
    }

    /// The coverage, given the calls of the kernels [`Counted::kernels_wanted`] named (from
    /// `stats`) and how many kernel names the dataset has.
    pub fn finish(mut self, calls: &HashMap<String, u64>, names: usize) -> Coverage {
        if self.source == "counter" {
            for entry in self.by_counter.values_mut() {
                entry.3 = entry
                    .1
                    .iter()
                    .map(|k| calls.get(k).copied().unwrap_or(0))
                    .fold(0u64, u64::saturating_add)
                    .max(entry.2);
            }
        }
        let all_counters = self.by_counter.len();
        let counters = self
            .by_counter
            .into_iter()
            .take(MAX_COUNTERS)
            .map(|(counter, (groups, names, samples, dispatches))| CounterCoverage {
                counter,
                groups: groups.into_iter().collect(),
                kernels: names.len(),
                samples,
                dispatches,
            })
            .collect();
        Coverage {
            counters,
            all_counters,
            kernels_with_counters: self.kernels.len(),
            kernels: names.max(self.kernels.len()),
            source: self.source,
        }
    }
}
