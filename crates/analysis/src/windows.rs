//! Windowed datasets (`run --window`): each process recorded only inside its windows, and the
//! `window` table says when. Calls and time per name are scaled to the whole run by a ratio
//! estimator over the windows, with a 95% interval from the spread of the windows' rates:
//!
//! N̂ = T · Σcᵢ / Σdᵢ, se = T · s(cᵢ/dᵢ) / √n · √(1 − f), N̂ ± t₀.₉₇₅,ₙ₋₁ · se
//!
//! for n windows of durations dᵢ holding cᵢ calls, in a run of T with f = Σdᵢ/T recorded.
//! Processes are estimated apart and summed (their variances too). Means, percentiles and
//! shares need no scaling: they are what the windows saw. A row belongs to the last window
//! that opened at or before its start, the format's rule.
//!
//! A window whose first kernel started only after it had closed was recorded behind a launch
//! queue the GPU was still draining: the GPU, not the launching thread, set the pace. Tracing
//! makes each launch take more of that queue (on the H200 a traced graph replay took 2.2 ms to
//! launch against 0.73 ms untraced), so such a window holds a third of the launches its span
//! would at the run's pace, and the launches it missed are made, faster, after it. Its rate is
//! then its calls over the GPU time its kernels took (first start to last end), the pace the
//! queue keeps over the run: cᵢ is taken as cᵢ · dᵢ / gᵢ.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rocprof_rs_format::Table;
use serde::Serialize;

use crate::error::Result;

/// A process: its host (where the rows say) and pid.
type ProcessKey = (Option<String>, u32);

/// Calls and time in each of a process's windows.
type PerWindow = Vec<(u64, f64)>;

/// One process's windows and run.
#[derive(Debug, Clone, Default)]
struct Process {
    /// Each window's `start_ns`, by which rows are placed, and how long it recorded (see
    /// [`Windows::read`]), by start.
    windows: Vec<(i64, i64)>,
    /// Each window's sure close (`closing_ns`, or `end_ns` where the table lacks it), in the
    /// order of `windows`.
    closes: Vec<i64>,
    /// What each window's calls and time are multiplied by: its span over the GPU time its
    /// kernels took where they ran behind a launch queue (see the module's notes), else 1.
    paces: Vec<f64>,
    /// The run's length, from its metadata.
    run_ns: f64,
}

/// The windows of every process of a windowed dataset.
#[derive(Debug, Clone, Default)]
pub struct Windows {
    processes: HashMap<ProcessKey, Process>,
}

/// A name's calls and time scaled to the run.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, schemars::JsonSchema)]
pub struct Estimate {
    pub calls: f64,
    pub calls_low: f64,
    pub calls_high: f64,
    pub total_ns: f64,
    pub total_low_ns: f64,
    pub total_high_ns: f64,
}

/// What a windowed section's reader must know, and its estimates by name.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Scaled {
    pub windows: usize,
    /// The windows' time over the runs', all processes together.
    pub recorded_share: f64,
    /// Windows whose kernels all ran after they closed, behind a launch queue: their rates are
    /// their kernels' GPU time's (see the module's notes).
    pub queued_windows: usize,
    pub estimates: BTreeMap<String, Estimate>,
}

impl Windows {
    /// The dataset's windows, or `None` for a dataset recorded whole.
    pub fn read(dir: &Path) -> Result<Option<Windows>> {
        if rocprof_rs_format::dataset::table_files(dir, Table::Window)?.is_empty() {
            return Ok(None);
        }
        // Per process: each window's start, span and sure close.
        let mut read: HashMap<ProcessKey, Vec<(i64, i64, i64)>> = HashMap::new();
        crate::read::batches(dir, Table::Window, |b| {
            let (start, end, pid) = (b.col("start_ns")?, b.col("end_ns")?, b.col("pid")?);
            let (opened, closing) = (b.col_opt("opened_ns")?, b.col_opt("closing_ns")?);
            let host = b.col_opt("host")?;
            for i in 0..b.rows() {
                let key = (host.as_ref().and_then(|h| h.opt_text(i)).map(str::to_owned), pid.u64(i) as u32);
                // Collection was on from a moment between `start` and `opened` to one between
                // `closing` and `end`: the midpoints are the least biased guess of its span (a
                // preempted switch makes the outer bounds too long, the sure ones too short).
                let (from, to) = match (&opened, &closing) {
                    (Some(o), Some(c)) => (start.i64(i) / 2 + o.i64(i) / 2, c.i64(i) / 2 + end.i64(i) / 2),
                    _ => (start.i64(i), end.i64(i)),
                };
                let close = closing.as_ref().map_or(end.i64(i), |c| c.i64(i));
                read.entry(key).or_default().push((start.i64(i), (to - from).max(0), close));
            }
            Ok(())
        })?;
        if read.is_empty() {
            return Ok(None);
        }
        let runs = run_lengths(dir);
        let mut windows = Windows::default();
        for (key, mut list) in read {
            list.sort_unstable();
            let recorded: i64 = list.iter().map(|w| w.1).sum();
            // A process whose metadata is lost: its recorded time is all that is known of it.
            let run_ns = runs.get(&key.1).copied().unwrap_or(recorded as f64).max(recorded as f64);
            let process = Process {
                windows: list.iter().map(|w| (w.0, w.1)).collect(),
                closes: list.iter().map(|w| w.2).collect(),
                paces: vec![1.0; list.len()],
                run_ns,
            };
            windows.processes.insert(key, process);
        }
        windows.pace_queued(dir)?;
        Ok(Some(windows))
    }

    /// Sets the pace of each window whose kernels all started after it closed (see the
    /// module's notes) to its span over their GPU time.
    fn pace_queued(&mut self, dir: &Path) -> Result<()> {
        if rocprof_rs_format::dataset::table_files(dir, Table::KernelDispatch)?.is_empty() {
            return Ok(());
        }
        // Per process and window: the first kernel start and the last end.
        let mut spans: HashMap<(ProcessKey, usize), (i64, i64)> = HashMap::new();
        crate::read::batches(dir, Table::KernelDispatch, |b| {
            let (start, end, pid) = (b.col("start_ns")?, b.col("end_ns")?, b.col("pid")?);
            let host = b.col_opt("host")?;
            for i in 0..b.rows() {
                let key = (host.as_ref().and_then(|h| h.opt_text(i)).map(str::to_owned), pid.u64(i) as u32);
                let Some(process) = self.processes.get(&key) else { continue };
                let (from, to) = (start.i64(i), end.i64(i));
                if from <= 0 || to < from {
                    continue;
                }
                let window = process.windows.partition_point(|(s, _)| *s <= from).saturating_sub(1);
                let span = spans.entry((key, window)).or_insert((from, to));
                *span = (span.0.min(from), span.1.max(to));
            }
            Ok(())
        })?;
        for ((key, window), kernels) in spans {
            let Some(process) = self.processes.get_mut(&key) else { continue };
            if let Some(pace) = queue_pace(process.windows[window].1, process.closes[window], kernels) {
                process.paces[window] = pace;
            }
        }
        Ok(())
    }

    /// How many windows were paced by their GPU time (see the module's notes).
    fn queued(&self) -> usize {
        self.processes.values().flat_map(|p| &p.paces).filter(|pace| **pace != 1.0).count()
    }

    /// How many windows, and the share of the runs they recorded.
    pub fn coverage(&self) -> (usize, f64) {
        let n = self.processes.values().map(|p| p.windows.len()).sum();
        let recorded: f64 = self.processes.values().flat_map(|p| &p.windows).map(|(_, span)| *span as f64).sum();
        let run: f64 = self.processes.values().map(|p| p.run_ns).sum();
        (n, if run > 0.0 { recorded / run } else { 0.0 })
    }

    /// The estimates of every name of `table`'s rows (named by `name_column`).
    pub fn scale(&self, dir: &Path, table: Table, name_column: &str) -> Result<Scaled> {
        // Per name and process: calls and time in each window.
        let mut tallies: HashMap<String, HashMap<ProcessKey, PerWindow>> = HashMap::new();
        crate::read::batches(dir, table, |b| {
            let (name, start, duration, pid) =
                (b.col(name_column)?, b.col("start_ns")?, b.col("duration_ns")?, b.col("pid")?);
            let host = b.col_opt("host")?;
            for i in 0..b.rows() {
                let key = (host.as_ref().and_then(|h| h.opt_text(i)).map(str::to_owned), pid.u64(i) as u32);
                let Some(process) = self.processes.get(&key) else { continue };
                let at = start.i64(i);
                let window = process.windows.partition_point(|(s, _)| *s <= at).saturating_sub(1);
                let per = tallies.entry(name.text(i).to_owned()).or_default();
                let counts = per.entry(key).or_insert_with(|| vec![(0, 0.0); process.windows.len()]);
                counts[window].0 += 1;
                counts[window].1 += duration.i64(i).max(0) as f64;
            }
            Ok(())
        })?;
        let estimates = tallies
            .into_iter()
            .map(|(name, per)| {
                let mut sum = Sums::default();
                for (key, process) in &self.processes {
                    let empty = vec![(0, 0.0); process.windows.len()];
                    let counts = per.get(key).unwrap_or(&empty);
                    sum.add(process, counts);
                }
                (name, sum.estimate())
            })
            .collect();
        let (windows, recorded_share) = self.coverage();
        Ok(Scaled { windows, recorded_share, queued_windows: self.queued(), estimates })
    }
}

/// Estimates and variances summed over processes, with the fewest windows any had (the
/// interval's degrees of freedom).
#[derive(Debug, Default)]
struct Sums {
    calls: (f64, f64, u64),
    time: (f64, f64),
    fewest: Option<usize>,
}

impl Sums {
    fn add(&mut self, process: &Process, counts: &[(u64, f64)]) {
        let durations: Vec<f64> = process.windows.iter().map(|(_, span)| (*span as f64).max(1.0)).collect();
        let calls: Vec<f64> = counts.iter().zip(&process.paces).map(|(c, pace)| c.0 as f64 * pace).collect();
        let time: Vec<f64> = counts.iter().zip(&process.paces).map(|(c, pace)| c.1 * pace).collect();
        let (c, cv) = ratio(&calls, &durations, process.run_ns);
        let (t, tv) = ratio(&time, &durations, process.run_ns);
        self.calls.0 += c;
        self.calls.1 += cv;
        self.calls.2 += counts.iter().map(|c| c.0).sum::<u64>();
        self.time.0 += t;
        self.time.1 += tv;
        self.fewest = Some(self.fewest.map_or(durations.len(), |n| n.min(durations.len())));
    }

    fn estimate(&self) -> Estimate {
        let t = t_975(self.fewest.unwrap_or(1).saturating_sub(1));
        let seen = self.calls.2 as f64;
        let half = |variance: f64| t * variance.sqrt();
        Estimate {
            calls: self.calls.0,
            calls_low: (self.calls.0 - half(self.calls.1)).max(seen),
            calls_high: self.calls.0 + half(self.calls.1),
            total_ns: self.time.0,
            total_low_ns: (self.time.0 - half(self.time.1)).max(0.0),
            total_high_ns: self.time.0 + half(self.time.1),
        }
    }
}

/// The ratio estimate of `values` over a run of `run_ns` sampled by windows of `durations`,
/// and its variance (infinite with one window: nothing says how windows differ).
fn ratio(values: &[f64], durations: &[f64], run_ns: f64) -> (f64, f64) {
    let n = values.len();
    let recorded: f64 = durations.iter().sum();
    let estimate = run_ns * values.iter().sum::<f64>() / recorded;
    if n < 2 {
        return (estimate, f64::INFINITY);
    }
    let rates: Vec<f64> = values.iter().zip(durations).map(|(v, d)| v / d).collect();
    let mean = rates.iter().sum::<f64>() / n as f64;
    let var_rate = rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let unrecorded = (1.0 - recorded / run_ns).max(0.0);
    (estimate, run_ns * run_ns * var_rate / n as f64 * unrecorded)
}

/// A window's pace, where its kernels (`(first start, last end)`) all started at or after its
/// sure close: its span over their GPU time (bounded, so one odd window cannot swamp the
/// estimate). `None` for a window that did not run behind a queue.
fn queue_pace(span_ns: i64, close_ns: i64, (first, last): (i64, i64)) -> Option<f64> {
    (first >= close_ns && last > first && span_ns > 0)
        .then(|| (span_ns as f64 / (last - first) as f64).clamp(0.01, 100.0))
}

/// Student's t at 97.5% for `dof` degrees of freedom (two-sided 95%); infinite for none.
fn t_975(dof: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match dof {
        0 => f64::INFINITY,
        1..=30 => TABLE[dof - 1],
        31..=60 => 2.00,
        61..=120 => 1.98,
        _ => 1.96,
    }
}

/// Each process's run length from its metadata file's `windows` object, by pid.
fn run_lengths(dir: &Path) -> HashMap<u32, f64> {
    let mut runs = HashMap::new();
    for metadata in crate::stats::health::metadata_files(dir) {
        let pid = metadata.get(rocprof_rs_format::keys::PID).and_then(|p| p.as_str()?.parse::<u32>().ok());
        let run = metadata.get(rocprof_rs_format::keys::WINDOWS).and_then(|w| w.get("run_ns")?.as_f64());
        if let (Some(pid), Some(run)) = (pid, run) {
            runs.insert(pid, run);
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_rate_scales_exactly_and_a_varying_one_gets_an_interval_around_the_truth() {
        // 10 windows of 1 ms in a 100 ms run, 50 calls each: 5,000 calls, no spread.
        let durations = vec![1e6; 10];
        let (n, v) = ratio(&[50.0; 10], &durations, 1e8);
        assert!((n - 5000.0).abs() < 1e-6 && v.abs() < 1e-9, "{n} {v}");
        // Rates alternating 40 and 60: the same mean, and an interval holding it.
        let calls: Vec<f64> = (0..10).map(|i| if i % 2 == 0 { 40.0 } else { 60.0 }).collect();
        let (n, v) = ratio(&calls, &durations, 1e8);
        let half = t_975(9) * v.sqrt();
        assert!((n - 5000.0).abs() < 1e-6 && half > 100.0 && half < 2000.0, "{n} ± {half}");
        // A run recorded whole has no sampling error.
        let (_, v) = ratio(&calls, &durations, 1e7);
        assert_eq!(v, 0.0);
        // One window: an estimate, but no interval.
        let (n, v) = ratio(&[7.0], &[1e6], 1e7);
        assert!((n - 70.0).abs() < 1e-9 && v.is_infinite());
        assert!(t_975(0).is_infinite() && (t_975(1) - 12.706).abs() < 1e-9 && (t_975(500) - 1.96).abs() < 1e-9);
    }

    #[test]
    fn a_window_recorded_behind_a_launch_queue_is_paced_by_its_kernels_gpu_time() {
        let ms = 1_000_000;
        // The H200's decode: a 50 ms window closing at 100 ms whose 21 replays ran from 270 ms,
        // back to back at 0.735 ms each: it stands for 50/15.4 times the calls it holds.
        let pace = queue_pace(50 * ms, 100 * ms, (270 * ms, 270 * ms + 21 * 735_000)).unwrap();
        assert!((pace - 50.0 / 15.435).abs() < 1e-3, "{pace}");
        // Work that began inside the window ran at the launching thread's pace: no change.
        assert_eq!(queue_pace(50 * ms, 100 * ms, (99 * ms, 300 * ms)), None);
        // Nothing timed, or a window of no length: no change.
        assert_eq!(queue_pace(50 * ms, 100 * ms, (200 * ms, 200 * ms)), None);
        assert_eq!(queue_pace(0, 100 * ms, (200 * ms, 300 * ms)), None);
        // One odd window is bounded.
        assert_eq!(queue_pace(50 * ms, 100 * ms, (200 * ms, 200 * ms + 1)), Some(100.0));
        // Paced calls, as `Sums::add` takes them: 21 a window at the GPU's pace make 68 a window.
        let durations = vec![50.0 * ms as f64; 4];
        let paced: Vec<f64> = vec![21.0 * pace; 4];
        let (n, _) = ratio(&paced, &durations, 1e9);
        assert!((n / 20.0 - 68.0).abs() < 0.1, "{n}");
    }
}
