//! `kernel_counter` for imported data: the per-kernel aggregates the tool computes at the end
//! of a run (`rocprof_rs::pipeline::counter_rows`), computed the same way from the counter rows an importer
//! writes, so an imported dataset has them too and a dataset exported and imported again gets
//! back the very same values.

use std::collections::HashMap;
use std::sync::Arc;

use rocprof_rs_format::{KernelCounter, KernelCounterRow};

/// (process, kernel display name, agent, counter, group).
type Key = (u32, Arc<str>, u64, Arc<str>, u32);

#[derive(Debug)]
struct Aggregate {
    samples: u64,
    sum: f64,
    min: f64,
    max: f64,
}

/// The aggregates so far, and the dispatch whose instance rows are being summed.
#[derive(Debug, Default)]
pub struct KernelCounters {
    dispatches: HashMap<(u32, Arc<str>, u64), u64>,
    aggregates: HashMap<Key, Aggregate>,
    order: Vec<Key>,
    open: Option<((u32, u64), Key, f64)>,
}

impl KernelCounters {
    /// Counts a dispatch row of `kernel` on `agent` in `pid`.
    pub fn dispatch(&mut self, pid: u32, kernel: &Arc<str>, agent: u64) {
        *self.dispatches.entry((pid, kernel.clone(), agent)).or_default() += 1;
    }

    /// Adds one counter row; consecutive rows of one dispatch and counter (its instances) are
    /// one sample, their sum, as the tool sums them.
    pub fn value(&mut self, pid: u32, dispatch: u64, key: (Arc<str>, u64, Arc<str>, u32), value: f64) {
        let key = (pid, key.0, key.1, key.2, key.3);
        match &mut self.open {
            Some((d, k, sum)) if *d == (pid, dispatch) && *k == key => *sum += value,
            _ => {
                self.close();
                self.open = Some(((pid, dispatch), key, value));
            }
        }
    }

    fn close(&mut self) {
        let Some((_, key, value)) = self.open.take() else { return };
        match self.aggregates.get_mut(&key) {
            Some(a) => {
                a.samples += 1;
                a.sum += value;
                a.min = a.min.min(value);
                a.max = a.max.max(value);
            }
            None => {
                self.aggregates.insert(key.clone(), Aggregate { samples: 1, sum: value, min: value, max: value });
                self.order.push(key);
            }
        }
    }

    /// Appends the rows to `t`, in first-seen order.
    pub fn finish(mut self, t: &mut KernelCounter) {
        self.close();
        for key in &self.order {
            let a = &self.aggregates[key];
            let (pid, kernel, agent, counter, group) = key;
            let dispatches = self.dispatches.get(&(*pid, kernel.clone(), *agent)).copied();
            t.push(KernelCounterRow {
                kernel_name: kernel,
                agent_id: *agent,
                counter,
                counter_group: *group,
                samples: a.samples,
                dispatches: dispatches.unwrap_or(a.samples),
                sum: a.sum,
                mean: a.sum / a.samples as f64,
                min: a.min,
                max: a.max,
                pid: *pid,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use rocprof_rs_format::columns::Rows as _;

    use super::*;

    #[test]
    fn instances_of_a_dispatch_are_one_sample() {
        let mut k = KernelCounters::default();
        let (name, waves): (Arc<str>, Arc<str>) = ("k".into(), "SQ_WAVES".into());
        for _ in 0..3 {
            k.dispatch(1, &name, 9);
        }
        let key = || (name.clone(), 9, waves.clone(), 0);
        k.value(1, 100, key(), 2.0);
        k.value(1, 100, key(), 3.0);
        k.value(1, 101, key(), 1.0);
        let mut t = KernelCounter::default();
        k.finish(&mut t);
        let mut columns = t.finish();
        let rows = columns[0].len();
        columns.extend(rocprof_rs_format::origin::Origin::default().arrays(rows));
        let batch = arrow_array::RecordBatch::try_new(Arc::new(KernelCounter::schema()), columns).unwrap();
        let col = |n: &str| batch.column_by_name(n).unwrap().clone();
        use arrow_array::cast::AsArray;
        use arrow_array::types::{Float64Type, UInt64Type};
        assert_eq!(col("samples").as_primitive::<UInt64Type>().value(0), 2);
        assert_eq!(col("dispatches").as_primitive::<UInt64Type>().value(0), 3);
        assert_eq!(col("sum").as_primitive::<Float64Type>().value(0), 6.0);
        assert_eq!(col("min").as_primitive::<Float64Type>().value(0), 1.0);
        assert_eq!(col("max").as_primitive::<Float64Type>().value(0), 5.0);
    }
}
