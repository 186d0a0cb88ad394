//! The report's timeline overview, reduced here so the page carries bins, never rows: each GPU
//! queue's (or CUDA stream's) busy share per bin, each process's copies likewise, and API calls
//! and markers started per bin. A fixed number of bins covers the run, whatever its length or
//! its number of records; the page zooms down to one bin.
//!
//! Each interval adds its exact overlap to the two bins at its ends and a whole bin to every
//! bin between, through a difference array, so a kernel that spans the run costs what a short
//! one does: one pass, O(rows + bins) per lane.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use rocprof_rs_format::Table;
use serde::Serialize;

use crate::error::Result;
use crate::read::batches;

/// The bins the page gets unless asked otherwise.
pub const DEFAULT_BINS: usize = 4000;

/// Lanes of each kind kept apart while the rows go by; the rest are summed into one "other"
/// lane of their kind, so memory stays bounded however many streams a run has.
const TRACKED_PER_KIND: usize = 256;

/// Lanes of each kind drawn apart: the busiest kernel queues, and the processes' copies, API
/// calls and markers.
fn shown_per_kind(kind: LaneKind) -> usize {
    match kind {
        LaneKind::Kernel => 48,
        LaneKind::Copy | LaneKind::Api | LaneKind::Marker => 8,
    }
}

/// What a lane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Lane {
    pub kind: LaneKind,
    pub label: String,
    /// Per bin: busy per mille (kernels, copies) or calls started (API, markers).
    pub values: Vec<u32>,
    /// Busy nanoseconds, or calls, over the run.
    pub total: f64,
}

/// The timeline of a run.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
    /// The host, as [`Hosts`] numbers it.
    pub host: u32,
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
    /// The lanes beyond [`shown_per_kind`].
    Other,
}

/// The API tables, in the order their lanes are drawn.
pub const API_TABLES: [Table; 4] = [Table::HipApi, Table::HsaApi, Table::RcclApi, Table::CudaApi];

/// The hosts the rows name, numbered in order of appearance (0: rows without one): the same
/// pid on two hosts is two processes.
#[derive(Debug, Clone, Default)]
pub struct Hosts {
    names: Vec<Option<String>>,
    last: Option<(String, u32)>,
}

impl Hosts {
    pub fn id(&mut self, host: Option<&str>) -> u32 {
        let Some(host) = host else { return self.none() };
        if let Some((name, id)) = &self.last
            && name == host
        {
            return *id;
        }
        let id = match self.names.iter().position(|n| n.as_deref() == Some(host)) {
            Some(id) => id as u32,
            None => {
                self.names.push(Some(host.to_owned()));
                (self.names.len() - 1) as u32
            }
        };
        self.last = Some((host.to_owned(), id));
        id
    }

    fn none(&mut self) -> u32 {
        match self.names.iter().position(Option::is_none) {
            Some(id) => id as u32,
            None => {
                self.names.push(None);
                (self.names.len() - 1) as u32
            }
        }
    }

    pub fn name(&self, id: u32) -> Option<&str> {
        self.names.get(id as usize).and_then(|n| n.as_deref())
    }

    /// The ids of the hosts of `batch`'s rows, one per row.
    fn of(&mut self, batch: &crate::read::Batch<'_>) -> Result<Vec<u32>> {
        let column = batch.col_opt("host")?;
        Ok((0..batch.rows()).map(|i| self.id(column.as_ref().and_then(|c| c.opt_text(i)))).collect())
    }
}

/// Bins over `[start, end)`.
#[derive(Debug, Clone, Copy)]
struct Bins {
    start: i64,
    width: f64,
    count: usize,
}

impl Bins {
    fn position(&self, t: i64) -> f64 {
        ((t as f64 - self.start as f64) / self.width).clamp(0.0, self.count as f64)
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

/// The lanes' sums: up to [`TRACKED_PER_KIND`] of each kind apart, the rest in one per kind.
#[derive(Debug)]
struct Lanes {
    bins: Bins,
    kept: HashMap<LaneKey, Accumulator>,
    tracked: BTreeMap<LaneKind, usize>,
    /// Per kind: the distinct lanes folded, and their sum.
    other: BTreeMap<LaneKind, (HashSet<LaneKey>, Accumulator)>,
}

impl Lanes {
    fn lane(&mut self, key: LaneKey) -> &mut Accumulator {
        let (kind, bins) = (key.kind, self.bins.count);
        let tracked = self.tracked.entry(kind).or_default();
        if self.kept.contains_key(&key) || *tracked < TRACKED_PER_KIND {
            if !self.kept.contains_key(&key) {
                *tracked += 1;
            }
            return self.kept.entry(key).or_insert_with(|| Accumulator::new(kind, bins));
        }
        let entry = self.other.entry(kind).or_insert_with(|| (HashSet::new(), Accumulator::new(kind, bins)));
        entry.0.insert(key);
        &mut entry.1
    }
}

/// Whether a record has a time: imports of counter files without times leave 0, and nothing
/// the SDK or CUPTI stamps is at or before the clock's origin.
fn timed(start: i64) -> bool {
    start > 0
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
                if !timed(s) {
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

/// One kernel dispatch as the timeline's pass hands it on: its host (as [`Hosts`] numbers it),
/// process, agent, and its start and end where it has times.
#[derive(Debug, Clone, Copy)]
pub struct Dispatch {
    pub host: u32,
    pub pid: u32,
    pub agent: u64,
    pub span: Option<(i64, i64)>,
}

/// The timeline of the dataset under `dir` in `bins` bins, with `label` naming each lane (told
/// whether the lanes come from several processes); each dispatch goes to `each_kernel` too, for
/// the summary's busy times. `hosts` numbers the hosts the rows name.
pub fn compute(
    dir: &Path,
    bins: usize,
    hosts: &mut Hosts,
    mut each_kernel: impl FnMut(Dispatch) -> Result<()>,
) -> Result<Option<Unlabelled>> {
    let Some((start, end)) = extent(dir)? else { return Ok(None) };
    let count = bins.max(1);
    // In f64: hostile times at i64's ends would overflow the difference.
    let width = (end as f64 - start as f64).max(1.0) / count as f64;
    let mut lanes = Lanes {
        bins: Bins { start, width, count },
        kept: HashMap::new(),
        tracked: BTreeMap::new(),
        other: BTreeMap::new(),
    };
    batches(dir, Table::KernelDispatch, |b| {
        let (s, e, pid, agent) = (b.col("start_ns")?, b.col("end_ns")?, b.col("pid")?, b.col("agent_id")?);
        let (queue, stream, row_hosts) = (b.col("queue_id")?, b.col_opt("stream_id")?, hosts.of(b)?);
        for (i, &host) in row_hosts.iter().enumerate() {
            let (t0, t1) = (s.i64(i), e.i64(i));
            let (pid, agent) = (pid.u64(i) as u32, agent.u64(i));
            let span = timed(t0).then_some((t0, t1.max(t0)));
            each_kernel(Dispatch { host, pid, agent, span })?;
            let Some((t0, t1)) = span else { continue };
            let place = match stream.as_ref().and_then(|c| c.opt_i64(i)) {
                Some(stream) => Place::Stream(stream as i32),
                None => Place::Queue(queue.u64(i)),
            };
            let key = LaneKey { kind: LaneKind::Kernel, host, pid, agent, place };
            let bins = lanes.bins;
            lanes.lane(key).add_interval(&bins, t0, t1);
        }
        Ok(())
    })?;
    batches(dir, Table::MemoryCopy, |b| {
        let (s, e, pid, row_hosts) = (b.col("start_ns")?, b.col("end_ns")?, b.col("pid")?, hosts.of(b)?);
        for (i, &host) in row_hosts.iter().enumerate() {
            if !timed(s.i64(i)) {
                continue;
            }
            let key = LaneKey { kind: LaneKind::Copy, host, pid: pid.u64(i) as u32, agent: 0, place: Place::None };
            let bins = lanes.bins;
            lanes.lane(key).add_interval(&bins, s.i64(i), e.i64(i));
        }
        Ok(())
    })?;
    for (position, table) in API_TABLES.into_iter().enumerate() {
        count_starts(dir, table, LaneKind::Api, position as u64, &mut lanes, hosts)?;
    }
    count_starts(dir, Table::Marker, LaneKind::Marker, 0, &mut lanes, hosts)?;
    Ok(Some(finish(lanes, start, end)))
}

fn count_starts(
    dir: &Path,
    table: Table,
    kind: LaneKind,
    agent: u64,
    lanes: &mut Lanes,
    hosts: &mut Hosts,
) -> Result<()> {
    batches(dir, table, |b| {
        let (s, pid, row_hosts) = (b.col("start_ns")?, b.col("pid")?, hosts.of(b)?);
        for (i, &host) in row_hosts.iter().enumerate() {
            if !timed(s.i64(i)) {
                continue;
            }
            let key = LaneKey { kind, host, pid: pid.u64(i) as u32, agent, place: Place::None };
            let bins = lanes.bins;
            lanes.lane(key).add_event(&bins, s.i64(i));
        }
        Ok(())
    })
}

/// The timeline before its lanes are named: each lane's key (a kind's "other" lane has
/// [`Place::Other`]) and how many lanes the other lanes sum.
#[derive(Debug, Clone)]
pub struct Unlabelled {
    start_ns: i64,
    end_ns: i64,
    bin_ns: f64,
    lanes: Vec<(LaneKey, usize, Lane)>,
}

impl Unlabelled {
    /// Names the lanes; `label` is told whether they come from more than one process.
    pub fn label(self, label: impl Fn(&LaneKey, bool) -> String) -> Timeline {
        let processes: HashSet<(u32, u32)> =
            self.lanes.iter().filter(|(k, ..)| k.place != Place::Other).map(|(k, ..)| (k.host, k.pid)).collect();
        let several = processes.len() > 1;
        let mut merged_lanes = 0;
        let lanes = self
            .lanes
            .into_iter()
            .map(|(key, merged, mut lane)| {
                lane.label = if key.place == Place::Other {
                    merged_lanes += merged;
                    format!("{merged} other {} lane{}", kind_name(key.kind), if merged == 1 { "" } else { "s" })
                } else {
                    label(&key, several)
                };
                lane
            })
            .collect();
        Timeline { start_ns: self.start_ns, end_ns: self.end_ns, bin_ns: self.bin_ns, lanes, merged_lanes }
    }
}

/// The lanes in drawing order (kind, host, process, agent, place): of each kind the busiest
/// [`shown_per_kind`] apart, the rest summed into the kind's "other" lane.
fn finish(lanes: Lanes, start_ns: i64, end_ns: i64) -> Unlabelled {
    let bins = lanes.bins;
    let mut by_kind: BTreeMap<LaneKind, Vec<(LaneKey, Accumulator, f64)>> = BTreeMap::new();
    for (key, acc) in lanes.kept {
        let total = acc.finish(&bins).1;
        by_kind.entry(key.kind).or_default().push((key, acc, total));
    }
    let mut other = lanes.other;
    let mut out: Vec<(LaneKey, usize, Lane)> = Vec::new();
    for (kind, mut kept) in by_kind {
        // Busy nanoseconds are compared with busy nanoseconds, calls with calls.
        kept.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        for (key, acc, _) in kept.drain(shown_per_kind(kind).min(kept.len())..) {
            let entry = other.entry(kind).or_insert_with(|| (HashSet::new(), Accumulator::new(kind, bins.count)));
            entry.0.insert(key);
            entry.1.merge(&acc);
        }
        for (key, acc, _) in kept {
            let (values, total) = acc.finish(&bins);
            out.push((key, 0, Lane { kind, label: String::new(), values, total }));
        }
    }
    for (kind, (keys, acc)) in other {
        let (values, total) = acc.finish(&bins);
        let key = LaneKey { kind, host: u32::MAX, pid: u32::MAX, agent: u64::MAX, place: Place::Other };
        out.push((key, keys.len(), Lane { kind, label: String::new(), values, total }));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Unlabelled { start_ns, end_ns, bin_ns: bins.width, lanes: out }
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
    fn lanes_past_the_budget_fold_into_other_each_kind_apart() {
        let b = bins(2);
        let mut lanes = Lanes { bins: b, kept: HashMap::new(), tracked: BTreeMap::new(), other: BTreeMap::new() };
        let queues = TRACKED_PER_KIND as u64 + 10;
        for q in 0..queues {
            let key = LaneKey { kind: LaneKind::Kernel, host: 0, pid: 1, agent: 1, place: Place::Queue(q) };
            // Many rows per lane: the folded count is of lanes, not rows.
            for _ in 0..3 {
                lanes.lane(key.clone()).add_interval(&b, 1000, 1000 + (q as i64 % 20) + 1);
            }
        }
        // One marker lane of a few calls: never folded away by the busy kernel lanes.
        let marker = LaneKey { kind: LaneKind::Marker, host: 0, pid: 1, agent: 0, place: Place::None };
        lanes.lane(marker).add_event(&b, 1001);
        let timeline = finish(lanes, 1000, 1020).label(|k, _| format!("{:?}", k.place));
        let kernel_lanes = shown_per_kind(LaneKind::Kernel);
        assert_eq!(timeline.lanes.len(), kernel_lanes + 2, "the kernels shown, their other lane, the markers");
        assert_eq!(timeline.merged_lanes, queues as usize - kernel_lanes);
        let other = &timeline.lanes[kernel_lanes];
        assert_eq!(other.label, format!("{} other kernel lanes", queues as usize - kernel_lanes));
        assert_eq!(timeline.lanes.last().unwrap().kind, LaneKind::Marker);
        assert_eq!(timeline.lanes.last().unwrap().label, "None");
    }

    #[test]
    fn the_same_pid_on_two_hosts_is_two_lanes() {
        let mut hosts = Hosts::default();
        let (a, none, b) = (hosts.id(Some("nodeA")), hosts.id(None), hosts.id(Some("nodeB")));
        assert_eq!((hosts.id(Some("nodeA")), hosts.id(None)), (a, none));
        assert!(a != b && a != none && b != none);
        assert_eq!((hosts.name(a), hosts.name(none), hosts.name(b)), (Some("nodeA"), None, Some("nodeB")));
    }

    #[test]
    fn times_at_the_ends_of_i64_stay_in_range() {
        let b = Bins { start: 1, width: (i64::MAX as f64 - 1.0) / 10.0, count: 10 };
        let mut acc = Accumulator::new(LaneKind::Kernel, 10);
        acc.add_interval(&b, 1, i64::MAX);
        acc.add_interval(&b, i64::MAX, i64::MIN);
        let (values, _) = acc.finish(&b);
        assert!(values.iter().all(|&v| v <= 1000), "{values:?}");
        assert!(!timed(0) && !timed(-5) && timed(1));
    }
}
