//! Counter records to rows, on the writer thread.
//!
//! A dispatch's values arrive as a header (how many instance values follow) and value records
//! that other dispatches' records may interleave with, so values wait per dispatch until all
//! its instances are in; then its rows are written and added to the per-kernel aggregates.
//! Whatever is still open at the end (a header lost to a drop, say) is written as it stands.
//!
//! A kernel's `mean` in `kernel_counter` is over its calls, its launch sites weighted
//! ([`super::sites`]).

use rocprof_rs_format::Table;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use parquet::file::metadata::KeyValue;

use super::kernels::Kernel;
use super::records::{CounterDispatch, CounterPlan, CounterValue};
use super::sites::{KernelSites, Samples};
use crate::config::Config;
use rocprof_rs_format as tables;
use rocprof_rs_format::columns::AddressHasher;
use rocprof_rs_format::writer::TableWriter;

/// Recent kernel dispatches kept for joining counter records that arrive after them.
const RECENT_DISPATCHES: usize = 8192;

/// One dispatch's values, waiting for the rest of them.
#[derive(Debug, Default)]
struct Pending {
    header: Option<CounterDispatch>,
    /// The `kernel_dispatch` row's dispatch and kernel ids, once a join found them.
    joined: Option<(u64, u64)>,
    /// Instance values received so far.
    received: u64,
    values: Vec<CounterValue>,
}

type Fast<K, V> = HashMap<K, V, BuildHasherDefault<AddressHasher>>;

/// The `counter` and `kernel_counter` tables and what they are built from.
pub struct CounterRows {
    pid: u32,
    names: HashMap<(u64, u64), Arc<str>>,
    pending: Fast<u64, Pending>,
    aggregates: BTreeMap<(Arc<str>, u64, Arc<str>, u32), Samples>,
    /// Per (kernel, agent), its launch sites: the weights of the mean.
    sites: HashMap<(Arc<str>, u64), KernelSites>,
    /// The callback's final launches per agent and site, summed over contexts.
    final_launches: HashMap<u64, HashMap<u64, u64>>,
    /// Dispatch rows per (kernel id, agent), for coverage.
    dispatches: Fast<(u64, u64), u64>,
    /// Dispatches written before all their values arrived.
    pub incomplete: u64,
    deferred: bool,
    join_launches: bool,
    /// Plans per GPU label, as JSON lists of groups.
    plans: BTreeMap<String, String>,
    passes: usize,
    /// Kernel dispatches by correlation id: (dispatch id, kernel id), the latest few.
    recent: Fast<u64, (u64, u64)>,
    recent_order: std::collections::VecDeque<u64>,
    /// Counted dispatches waiting for their kernel row, by correlation id.
    awaiting: Fast<u64, u64>,
    /// Counted dispatches whose kernel row never came.
    pub unjoined: u64,
    /// Counted dispatches that ran with kernel activity off: no kernel row by design.
    pub untraced: u64,
    pub values: TableWriter<tables::Counter>,
    pub kernels: TableWriter<tables::KernelCounter>,
}

impl std::fmt::Debug for CounterRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CounterRows").field("pending", &self.pending.len()).finish()
    }
}

impl CounterRows {
    pub fn new(config: &Config, names: HashMap<(u64, u64), Arc<str>>, metadata: &[KeyValue]) -> CounterRows {
        let options = config.write_options();
        CounterRows {
            pid: std::process::id(),
            names,
            pending: Fast::default(),
            aggregates: BTreeMap::new(),
            sites: HashMap::new(),
            final_launches: HashMap::new(),
            dispatches: Fast::default(),
            incomplete: 0,
            deferred: false,
            join_launches: false,
            plans: BTreeMap::new(),
            passes: 0,
            recent: Fast::default(),
            recent_order: std::collections::VecDeque::new(),
            awaiting: Fast::default(),
            unjoined: 0,
            untraced: 0,
            values: TableWriter::new(&options, Table::Counter, metadata.to_vec()),
            kernels: TableWriter::new(&options, Table::KernelCounter, metadata.to_vec()),
        }
    }

    /// Counters whose names come later, as [`CounterPlan`] records, and whose dispatches name
    /// their launch by correlation id (see [`super::run::CounterNames`]).
    pub fn deferred(mut self, deferred: bool, join_launches: bool) -> CounterRows {
        self.deferred = deferred;
        self.join_launches = join_launches;
        self
    }

    /// Whether kernel records must be offered to the join ([`Self::launched`]).
    pub fn joins_launches(&self) -> bool {
        self.join_launches && self.enabled()
    }

    /// Whether counters are collected at all (dispatch counts are kept only then).
    pub fn enabled(&self) -> bool {
        !self.names.is_empty() || self.deferred
    }

    /// Takes one GPU's plan: its counters' names, and its groups for the run metadata.
    pub fn plan(&mut self, plan: &CounterPlan) {
        for (i, metric) in plan.metrics.iter().enumerate() {
            self.names.insert((plan.agent_id, i as u64), metric.as_str().into());
        }
        let groups: Vec<String> = plan
            .groups
            .iter()
            .map(|g| format!("[{}]", g.iter().map(|c| json_string(c)).collect::<Vec<_>>().join(",")))
            .collect();
        self.plans.insert(plan.label.clone(), format!("[{}]", groups.join(",")));
        self.passes = self.passes.max(plan.groups.len());
    }

    /// The groups per GPU as JSON, and the passes the largest plan needs: what the plans told.
    pub fn plans_json(&self) -> Option<(String, usize)> {
        if self.plans.is_empty() {
            return None;
        }
        let entries: Vec<String> =
            self.plans.iter().map(|(label, groups)| format!("{}:{groups}", json_string(label))).collect();
        Some((format!("{{{}}}", entries.join(",")), self.passes))
    }

    /// A kernel dispatch: completes the counted dispatch waiting for it, or is kept for one
    /// that comes later.
    pub fn launched(&mut self, correlation_id: u64, dispatch_id: u64, kernel_id: u64, kernels: &Fast<u64, Kernel>) {
        if let Some(pending_id) = self.awaiting.remove(&correlation_id) {
            self.awaiting.retain(|_, id| *id != pending_id);
            if let Some(pending) = self.pending.get_mut(&pending_id) {
                pending.joined = Some((dispatch_id, kernel_id));
                if pending.header.is_some_and(|h| pending.received >= h.records) {
                    self.complete(pending_id, kernels);
                }
            }
            return;
        }
        if self.recent_order.len() >= RECENT_DISPATCHES
            && let Some(old) = self.recent_order.pop_front()
        {
            self.recent.remove(&old);
        }
        self.recent.insert(correlation_id, (dispatch_id, kernel_id));
        self.recent_order.push_back(correlation_id);
    }

    /// Counts a dispatch row of `kernel_id` on `agent`.
    pub fn count_dispatch(&mut self, kernel_id: u64, agent: u64) {
        *self.dispatches.entry((kernel_id, agent)).or_default() += 1;
    }

    pub fn header(&mut self, header: &CounterDispatch, kernels: &Fast<u64, Kernel>) {
        let joined = header.join.map(|ids| ids.iter().find_map(|c| self.recent.get(c).copied()));
        let pending = self.pending.entry(header.dispatch_id).or_default();
        pending.header = Some(*header);
        match joined {
            Some(Some(found)) => pending.joined = Some(found),
            Some(None) => {
                for correlation in header.join.into_iter().flatten() {
                    self.awaiting.insert(correlation, header.dispatch_id);
                }
                if self.awaiting.len() > 2 * RECENT_DISPATCHES {
                    self.give_up_waiting(kernels);
                }
                return;
            }
            None => {}
        }
        if pending.received >= header.records {
            self.complete(header.dispatch_id, kernels);
        }
    }

    /// Writes every dispatch still waiting for its kernel row, unjoined: their activity
    /// records were lost (dropped under the drop policy), and waiting must not grow without
    /// bound.
    fn give_up_waiting(&mut self, kernels: &Fast<u64, Kernel>) {
        let mut waiting: Vec<u64> = self.awaiting.drain().map(|(_, id)| id).collect();
        waiting.sort_unstable();
        waiting.dedup();
        for dispatch_id in waiting {
            self.complete(dispatch_id, kernels);
        }
    }

    /// Whether a dispatch's rows can be written: all its values in, and joined where it must be.
    fn ready(pending: &Pending) -> bool {
        pending.header.is_some_and(|h| pending.received >= h.records && (h.join.is_none() || pending.joined.is_some()))
    }

    pub fn value(&mut self, value: &CounterValue, kernels: &Fast<u64, Kernel>) {
        let pending = self.pending.entry(value.dispatch_id).or_default();
        pending.received += u64::from(value.instances);
        if value.instance.is_some() {
            // Numbered here, in arrival order, rather than by the callback, whose count would
            // restart when a dispatch's values straddle two buffer callbacks.
            let index = pending.values.iter().filter(|v| v.counter_id == value.counter_id).count() as u32;
            pending.values.push(CounterValue { instance: Some(index), ..*value });
        } else {
            match pending.values.iter_mut().find(|v| v.counter_id == value.counter_id) {
                Some(sum) => {
                    sum.value += value.value;
                    sum.instances += value.instances;
                }
                None => pending.values.push(*value),
            }
        }
        if Self::ready(pending) {
            self.complete(value.dispatch_id, kernels);
        }
    }

    /// Writes a dispatch's rows and adds them to the aggregates.
    fn complete(&mut self, dispatch_id: u64, kernels: &Fast<u64, Kernel>) {
        let Some(pending) = self.pending.remove(&dispatch_id) else { return };
        if pending.header.is_none_or(|h| pending.received < h.records) {
            self.incomplete += 1;
        }
        let mut header = pending.header.unwrap_or(CounterDispatch {
            dispatch_id,
            agent_id: pending.values.first().map_or(0, |v| v.agent_id),
            kernel_id: 0,
            correlation_id: 0,
            records: pending.received,
            join: None,
            site: 0,
            shape: 0,
            site_launches: 0,
        });
        if let Some((row_dispatch, kernel)) = pending.joined {
            header.dispatch_id = row_dispatch;
            header.kernel_id = kernel;
        } else if header.join.is_some() {
            self.unjoined += 1;
        } else if super::records::is_untraced(header.kernel_id) {
            self.untraced += 1;
        }
        let dispatch_id = header.dispatch_id;
        let kernel_name: Arc<str> = match kernels.get(&header.kernel_id) {
            Some(kernel) => kernel.name.clone(),
            None => format!("<unregistered kernel {}>", header.kernel_id).into(),
        };
        let mut sums: Vec<(Arc<str>, u32, f64)> = Vec::new();
        for v in &pending.values {
            let counter = self
                .names
                .get(&(v.agent_id, v.counter_id))
                .cloned()
                .unwrap_or_else(|| format!("<counter {}>", v.counter_id).into());
            let t = &mut self.values.rows;
            t.push(rocprof_rs_format::CounterRow {
                dispatch_id,
                correlation_id: header.correlation_id,
                agent_id: v.agent_id,
                kernel_id: header.kernel_id,
                kernel_name: &kernel_name,
                counter: &counter,
                value: v.value,
                counter_group: v.group,
                instances: v.instances,
                instance: v.instance.map(|i| i as i32),
                pid: self.pid,
            });
            match sums.iter_mut().find(|(c, _, _)| Arc::ptr_eq(c, &counter)) {
                Some((_, _, sum)) => *sum += v.value,
                None => sums.push((counter, v.group, v.value)),
            }
        }
        let site = self.sites.entry((kernel_name.clone(), header.agent_id)).or_default().weigh(
            header.site,
            header.shape,
            header.site_launches,
        );
        for (counter, group, value) in sums {
            let key = (kernel_name.clone(), header.agent_id, counter, group);
            self.aggregates.entry(key).or_insert_with(|| Samples::new(value)).add(site, value);
        }
    }

    /// Keeps the final launch counts of sites, (agent, site, launches), for [`Self::finish`]:
    /// they come before the last activity records, which complete dispatches of sites not yet
    /// seen.
    pub fn site_launches(&mut self, launches: &[(u64, u64, u64)]) {
        for &(agent, site, n) in launches {
            let total = self.final_launches.entry(agent).or_default().entry(site).or_default();
            *total = total.saturating_add(n);
        }
    }

    /// At the end of the run: writes what is still open, then the per-kernel aggregates.
    pub fn finish(&mut self, kernels: &Fast<u64, Kernel>) {
        self.awaiting.clear();
        let open: Vec<u64> = self.pending.keys().copied().collect();
        for dispatch_id in open {
            self.complete(dispatch_id, kernels);
        }
        for ((_, agent), sites) in &mut self.sites {
            if let Some(launches) = self.final_launches.get(agent) {
                sites.launched(launches);
            }
        }
        let mut per_name: HashMap<(Arc<str>, u64), u64> = HashMap::new();
        for (&(kernel_id, agent), &n) in &self.dispatches {
            if let Some(kernel) = kernels.get(&kernel_id) {
                *per_name.entry((kernel.name.clone(), agent)).or_default() += n;
            }
        }
        let t = &mut self.kernels.rows;
        for ((kernel, agent, counter, group), a) in &self.aggregates {
            t.push(rocprof_rs_format::KernelCounterRow {
                kernel_name: kernel,
                agent_id: *agent,
                counter,
                counter_group: *group,
                samples: a.samples,
                dispatches: per_name.get(&(kernel.clone(), *agent)).copied().unwrap_or(a.samples),
                sum: a.sum,
                mean: a.mean(self.sites.get(&(kernel.clone(), *agent)).unwrap_or(&KernelSites::default())),
                min: a.min,
                max: a.max,
                pid: self.pid,
            });
        }
    }

    /// Coverage for the run metadata: per counter name, the dispatches that collected it.
    pub fn coverage_json(&self) -> String {
        let mut samples: BTreeMap<&str, u64> = BTreeMap::new();
        for ((_, _, counter, _), a) in &self.aggregates {
            *samples.entry(counter).or_default() += a.samples;
        }
        let fields: Vec<String> = samples.iter().map(|(c, n)| format!("{:?}:{n}", c)).collect();
        format!("{{{}}}", fields.join(","))
    }
}

fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// Records for tests of the counter rows, here and in the backends.
#[cfg(test)]
pub(crate) mod testing {
    use crate::pipeline::records::{CounterDispatch, CounterValue, Record};

    /// A counted dispatch of one value, joined by `join`, at `(site, launches so far)`.
    pub fn counted_at(dispatch_id: u64, join: [u64; 2], value: f64, (site, site_launches): (u64, u64)) -> [Record; 2] {
        [
            Record::CounterDispatch(CounterDispatch {
                dispatch_id,
                agent_id: 0,
                kernel_id: 0,
                correlation_id: join[0],
                records: 1,
                join: Some(join),
                site,
                shape: site,
                site_launches,
            }),
            Record::CounterValue(CounterValue {
                dispatch_id,
                agent_id: 0,
                counter_id: 0,
                value,
                instances: 1,
                group: 0,
                instance: None,
            }),
        ]
    }
}
