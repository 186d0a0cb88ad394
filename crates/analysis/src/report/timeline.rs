//! The report's timeline overview, reduced here so the page carries bins, never rows: each GPU
//! queue's (or CUDA stream's) busy share per bin, each process's copies likewise, and API calls
//! and markers started per bin. A fixed number of bins covers the run, whatever its length or
//! its number of records; the page zooms down to one bin.
//!
//! Each interval adds its exact overlap to the two bins at its ends and a whole bin to every
//! bin between, through a difference array, so a kernel that spans the run costs what a short
//! one does: one pass, O(rows + bins) per lane.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rocprof_rs_format::Table;
use serde::Serialize;

use crate::error::Result;
use crate::read::batches;

/// The bins the page gets unless asked otherwise.
pub const DEFAULT_BINS: usize = 4000;

/// Lanes kept apart; the rest of each kind are summed into one "other" lane.
const MAX_LANES: usize = 64;

/// What a lane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LaneKind {
    /// A queue's or stream's kernels: busy per mille of each bin.
    Kernel,
    /// A process's copies and memsets: busy per mille.
    Copy,
    /// A process's API calls of one table: calls started per bin.
    Api,
    /// A process's markers: marks and ranges started per bin.
    Marker,
}

impl LaneKind {
    /// Whether its values are busy shares (else counts).
    pub fn is_busy(self) -> bool {
        matches!(self, LaneKind::Kernel | LaneKind::Copy)
    }
}

/// One row of the timeline.
#[derive(Debug, Clone, Serialize)]
pub struct Lane {
    pub kind: LaneKind,
    pub label: String,
    /// Per bin: busy per mille (kernels, copies) or calls started (API, markers).
    pub values: Vec<u32>,
    /// Busy nanoseconds, or calls, over the run.
    pub total: f64,
}

/// The timeline of a run.
#[derive(Debug, Clone, Serialize)]
pub struct Timeline {
    /// The first start and the last end of any timed record.
    pub start_ns: i64,
    pub end_ns: i64,
    pub bin_ns: f64,
    pub lanes: Vec<Lane>,
    /// Lanes summed into an "other" lane, beyond the ones kept apart.
    pub merged_lanes: usize,
}

/// How a lane is named before labels are given: its kind, process and place.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LaneKey {
    pub kind: LaneKind,
    pub pid: u32,
    /// The agent (kernels), or the API table's position in [`API_TABLES`].
    pub agent: u64,
    /// Kernels: the stream where CUDA gives one, else the queue.
    pub place: Place,
}

/// Where on a GPU a kernel ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Place {
    None,
    Stream(i32),
    Queue(u64),
    /// The lanes beyond [`MAX_LANES`].
    Other,
}

/// The API tables, in the order their lanes are drawn.
pub const API_TABLES: [Table; 4] = [Table::HipApi, Table::HsaApi, Table::RcclApi, Table::CudaApi];

/// Bins over `[start, end)`.
#[derive(Debug, Clone, Copy)]
struct Bins {
    start: i64,
    width: f64,
    count: usize,
}

impl Bins {
    fn position(&self, t: i64) -> f64 {
        ((t.saturating_sub(self.start)) as f64 / self.width).clamp(0.0, self.count as f64)
    }

    fn index(&self, t: i64) -> usize {
        (self.position(t) as usize).min(self.count - 1)
    }
}

/// One lane's sums while the rows go by.
#[derive(Debug, Clone)]
enum Accumulator {
    /// Exact overlaps of the end bins, in bin widths; and +1/−1 where whole bins begin and end.
    Busy {
        partial: Vec<f64>,
        whole: Vec<i64>,
    },
    Count(Vec<u64>),
}

impl Accumulator {
    fn new(kind: LaneKind, bins: usize) -> Accumulator {
        if kind.is_busy() {
            Accumulator::Busy { partial: vec![0.0; bins], whole: vec![0; bins + 1] }
        } else {
            Accumulator::Count(vec![0; bins])
        }
    }

    fn add_interval(&mut self, bins: &Bins, start: i64, end: i64) {
        let Accumulator::Busy { partial, whole } = self else { return };
        let (from, to) = (bins.position(start), bins.position(end.max(start)));
        let (first, last) = (from as usize, (to as usize).min(bins.count - 1));
        if first >= bins.count {
            return;
        }
        if first >= last {
            partial[first] += to - from;
            return;
        }
        partial[first] += (first + 1) as f64 - from;
        partial[last] += to - last as f64;
        whole[first + 1] += 1;
        whole[last] -= 1;
    }

    fn add_event(&mut self, bins: &Bins, time: i64) {
        if let Accumulator::Count(counts) = self {
            counts[bins.index(time)] += 1;
        }
    }

    fn merge(&mut self, other: &Accumulator) {
        match (self, other) {
            (Accumulator::Busy { partial, whole }, Accumulator::Busy { partial: p, whole: w }) => {
                partial.iter_mut().zip(p).for_each(|(a, b)| *a += b);
                whole.iter_mut().zip(w).for_each(|(a, b)| *a += b);
            }
            (Accumulator::Count(counts), Accumulator::Count(c)) => counts.iter_mut().zip(c).for_each(|(a, b)| *a += b),
            _ => {}
        }
    }

    /// Per-bin values and the lane's total (busy ns, or events).
    fn finish(&self, bins: &Bins) -> (Vec<u32>, f64) {
        match self {
            Accumulator::Busy { partial, whole } => {
                let mut running = 0i64;
                let shares: Vec<f64> = partial
                    .iter()
                    .zip(whole)
                    .map(|(p, w)| {
                        running += w;
                        p + running as f64
                    })
                    .collect();
                let total = shares.iter().sum::<f64>() * bins.width;
                // A lane's kernels may overlap (concurrent kernels on an AMD queue): a bin is at
                // most wholly busy.
                (shares.iter().map(|s| (s.min(1.0) * 1000.0).round() as u32).collect(), total)
            }
            Accumulator::Count(counts) => {
                (counts.iter().map(|&c| c.min(u64::from(u32::MAX)) as u32).collect(), counts.iter().sum::<u64>() as f64)
            }
        }
    }
}

/// The lanes' sums, at most [`MAX_LANES`] apart and the rest in one per kind.
#[derive(Debug)]
struct Lanes {
    bins: Bins,
    kept: HashMap<LaneKey, Accumulator>,
    other: BTreeMap<LaneKind, (usize, Accumulator)>,
}

impl Lanes {
    fn lane(&mut self, key: LaneKey) -> &mut Accumulator {
        if self.kept.len() < MAX_LANES * 4 || self.kept.contains_key(&key) {
            let bins = self.bins.count;
            let kind = key.kind;
            return self.kept.entry(key).or_insert_with(|| Accumulator::new(kind, bins));
        }
        // Memory stays bounded however many queues a run has: the lanes past the budget go to
        // the kind's "other" lane as they come.
        let bins = self.bins.count;
        let entry = self.other.entry(key.kind).or_insert_with(|| (0, Accumulator::new(key.kind, bins)));
        entry.0 += 1;
        &mut entry.1
    }
}

/// The extent of every timed record: (first start, last end), or None without one.
fn extent(dir: &Path) -> Result<Option<(i64, i64)>> {
    let mut span: Option<(i64, i64)> = None;
    let tables = [Table::KernelDispatch, Table::MemoryCopy, Table::Marker].into_iter().chain(API_TABLES);
    for table in tables {
        batches(dir, table, |b| {
            let (start, end) = (b.col("start_ns")?, b.col("end_ns")?);
            for i in 0..b.rows() {
                let (s, e) = (start.i64(i), end.i64(i));
                // Imports of counter files without times leave both 0.
                if s <= 0 && e <= 0 {
                    continue;
                }
                let e = e.max(s);
                span = Some(span.map_or((s, e), |(a, z)| (a.min(s), z.max(e))));
            }
            Ok(())
        })?;
    }
    Ok(span)
}

/// The timeline of the dataset under `dir` in `bins` bins, with `label` naming each lane; and
/// each GPU's dispatches in time order for [`crate::report::summary`], through `each_kernel`.
pub fn compute(
    dir: &Path,
    bins: usize,
    label: impl Fn(&LaneKey) -> String,
    mut each_kernel: impl FnMut(u32, u64, i64, i64) -> Result<()>,
) -> Result<Option<Timeline>> {
    let Some((start, end)) = extent(dir)? else { return Ok(None) };
    let count = bins.max(1);
    let width = ((end - start).max(1) as f64) / count as f64;
    let mut lanes = Lanes { bins: Bins { start, width, count }, kept: HashMap::new(), other: BTreeMap::new() };
    batches(dir, Table::KernelDispatch, |b| {
        let (s, e, pid, agent) = (b.col("start_ns")?, b.col("end_ns")?, b.col("pid")?, b.col("agent_id")?);
        let (queue, stream) = (b.col("queue_id")?, b.col_opt("stream_id")?);
        for i in 0..b.rows() {
            let (t0, t1) = (s.i64(i), e.i64(i));
            if t0 <= 0 && t1 <= 0 {
                continue;
            }
            let place = match stream.as_ref().and_then(|c| c.opt_i64(i)) {
                Some(stream) => Place::Stream(stream as i32),
                None => Place::Queue(queue.u64(i)),
            };
            let (pid, agent) = (pid.u64(i) as u32, agent.u64(i));
            each_kernel(pid, agent, t0, t1.max(t0))?;
            let key = LaneKey { kind: LaneKind::Kernel, pid, agent, place };
            let bins = lanes.bins;
            lanes.lane(key).add_interval(&bins, t0, t1);
        }
        Ok(())
    })?;
    batches(dir, Table::MemoryCopy, |b| {
        let (s, e, pid) = (b.col("start_ns")?, b.col("end_ns")?, b.col("pid")?);
        for i in 0..b.rows() {
            let key = LaneKey { kind: LaneKind::Copy, pid: pid.u64(i) as u32, agent: 0, place: Place::None };
            let bins = lanes.bins;
            lanes.lane(key).add_interval(&bins, s.i64(i), e.i64(i));
        }
        Ok(())
    })?;
    for (position, table) in API_TABLES.into_iter().enumerate() {
        count_starts(dir, table, LaneKind::Api, position as u64, &mut lanes)?;
    }
    count_starts(dir, Table::Marker, LaneKind::Marker, 0, &mut lanes)?;
    Ok(Some(finish(lanes, start, end, label)))
}

fn count_starts(dir: &Path, table: Table, kind: LaneKind, agent: u64, lanes: &mut Lanes) -> Result<()> {
    batches(dir, table, |b| {
        let (s, pid) = (b.col("start_ns")?, b.col("pid")?);
        for i in 0..b.rows() {
            let key = LaneKey { kind, pid: pid.u64(i) as u32, agent, place: Place::None };
            let bins = lanes.bins;
            lanes.lane(key).add_event(&bins, s.i64(i));
        }
        Ok(())
    })
}

/// The lanes in drawing order (kind, process, agent, place), the least busy of each kind past
/// [`MAX_LANES`] overall summed into the kind's "other" lane.
fn finish(mut lanes: Lanes, start_ns: i64, end_ns: i64, label: impl Fn(&LaneKey) -> String) -> Timeline {
    let bins = lanes.bins;
    let mut kept: Vec<(LaneKey, Accumulator, Vec<u32>, f64)> = lanes
        .kept
        .drain()
        .map(|(key, acc)| {
            let (values, total) = acc.finish(&bins);
            (key, acc, values, total)
        })
        .collect();
    // The busiest lanes stay apart: sort by total, keep MAX_LANES, fold the rest.
    kept.sort_by(|a, b| b.3.total_cmp(&a.3).then_with(|| a.0.cmp(&b.0)));
    for (key, acc, _, _) in kept.drain(MAX_LANES.min(kept.len())..) {
        let entry = lanes.other.entry(key.kind).or_insert_with(|| (0, Accumulator::new(key.kind, bins.count)));
        entry.0 += 1;
        entry.1.merge(&acc);
    }
    let mut merged_lanes = 0;
    let mut out: Vec<(LaneKey, Lane)> = kept
        .into_iter()
        .map(|(key, _, values, total)| (key.clone(), Lane { kind: key.kind, label: label(&key), values, total }))
        .collect();
    for (kind, (merged, acc)) in lanes.other {
        merged_lanes += merged;
        let (values, total) = acc.finish(&bins);
        let key = LaneKey { kind, pid: u32::MAX, agent: u64::MAX, place: Place::Other };
        let label = format!("{merged} other {} lanes", kind_name(kind));
        out.push((key, Lane { kind, label, values, total }));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Timeline {
        start_ns,
        end_ns,
        bin_ns: bins.width,
        lanes: out.into_iter().map(|(_, lane)| lane).collect(),
        merged_lanes,
    }
}

fn kind_name(kind: LaneKind) -> &'static str {
    match kind {
        LaneKind::Kernel => "kernel",
        LaneKind::Copy => "copy",
        LaneKind::Api => "API",
        LaneKind::Marker => "marker",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bins(count: usize) -> Bins {
        Bins { start: 1000, width: 10.0, count }
    }

    #[test]
    fn an_interval_fills_its_bins_exactly() {
        let b = bins(10);
        let mut acc = Accumulator::new(LaneKind::Kernel, 10);
        // 1005..1035: half of bin 0, bins 1 and 2 whole, half of bin 3.
        acc.add_interval(&b, 1005, 1035);
        let (values, total) = acc.finish(&b);
        assert_eq!(values, [500, 1000, 1000, 500, 0, 0, 0, 0, 0, 0]);
        assert!((total - 30.0).abs() < 1e-9);
    }

    #[test]
    fn an_interval_inside_one_bin_and_one_past_the_end() {
        let b = bins(4);
        let mut acc = Accumulator::new(LaneKind::Copy, 4);
        acc.add_interval(&b, 1012, 1014);
        acc.add_interval(&b, 1035, 5000);
        acc.add_interval(&b, 900, 1001);
        let (values, _) = acc.finish(&b);
        assert_eq!(values, [100, 200, 0, 500]);
    }

    #[test]
    fn overlapping_intervals_are_at_most_wholly_busy() {
        let b = bins(2);
        let mut acc = Accumulator::new(LaneKind::Kernel, 2);
        acc.add_interval(&b, 1000, 1020);
        acc.add_interval(&b, 1000, 1020);
        assert_eq!(acc.finish(&b).0, [1000, 1000]);
    }

    #[test]
    fn events_count_in_their_bin() {
        let b = bins(3);
        let mut acc = Accumulator::new(LaneKind::Api, 3);
        for t in [1000, 1009, 1010, 1029, 99_999] {
            acc.add_event(&b, t);
        }
        assert_eq!(acc.finish(&b).0, [2, 1, 2]);
    }

    #[test]
    fn lanes_past_the_budget_fold_into_other() {
        let b = bins(2);
        let mut lanes = Lanes { bins: b, kept: HashMap::new(), other: BTreeMap::new() };
        for q in 0..(MAX_LANES as u64 * 4 + 10) {
            let key = LaneKey { kind: LaneKind::Kernel, pid: 1, agent: 1, place: Place::Queue(q) };
            lanes.lane(key).add_interval(&b, 1000, 1000 + (q as i64 % 20) + 1);
        }
        let timeline = finish(lanes, 1000, 1020, |k| format!("{k:?}"));
        assert_eq!(timeline.lanes.len(), MAX_LANES + 1);
        assert_eq!(timeline.merged_lanes, MAX_LANES * 3 + 10);
        assert!(timeline.lanes.last().is_some_and(|l| l.label.starts_with(&format!("{} other", MAX_LANES * 3 + 10))));
    }
}
