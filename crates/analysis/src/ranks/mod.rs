//! `rocprof-rs ranks`: a distributed job's ranks side by side (issue 23). A torchrun, MPI or
//! SLURM job writes every rank's tables into one run directory; this compares them: where each
//! rank's time went, which ranks hold the steps up, and whom the collectives wait for.
//!
//! # Definitions
//!
//! These are the contract shared with the Spark SQL version of the analysis: both must give the
//! same numbers. Times are the tables' nanoseconds.
//!
//! - **Ranks.** A row's rank is its `rank` column; where that is null, or the file has no such
//!   column (formats 1 and 2), its process, (host, pid): the `host` column, else the host that
//!   the process's `<stem>.metadata.json` names (`rocprof_rs.host`), else none, when the pid
//!   alone names it. A run's ranks are those with rows in `kernel_dispatch` or `rccl_api`, or
//!   `marker` rows that match `--step-marker`. Ranks are ordered by rank number, then host (none first)
//!   and pid; wherever two ranks tie for first, slowest or last, the first in this order is
//!   taken.
//! - **Collective kernels** are those whose name matches `nccl|rccl`, case-insensitively. The
//!   operation is the first of ReduceScatter, AllReduce, AllGather, Broadcast, AllToAll,
//!   SendRecv, Reduce, Send, Recv that the name contains, case-insensitively (the longest names
//!   first, so ReduceScatter and AllReduce are not taken for Reduce; Send and Recv are
//!   SendRecv), else Other. `rccl_api` calls are classified by their `operation` the same way.
//! - **Per rank**, over its `kernel_dispatch` rows (every agent, queue and stream together),
//!   each kernel being the interval `[start_ns, end_ns)`, where an `end_ns` before `start_ns`
//!   counts as `start_ns` (an empty interval):
//!   - span = max(`end_ns`) − min(`start_ns`);
//!   - busy = the length of the union of its kernels' intervals; idle = span − busy;
//!   - communication = the length of the union of its collective kernels' intervals; compute =
//!     the length of the union of its other kernels' intervals;
//!   - overlap = the length of the intersection of those two unions (which is communication +
//!     compute − busy); overlap share = overlap / communication, none without communication.
//! - **Steps** are the `marker` rows whose `message` matches `--step-marker` (a regular
//!   expression matched anywhere in the message, as Spark's `rlike`). On each rank, ordered by
//!   `start_ns` (then `end_ns`), the k-th is step k, from 1; its time is `end_ns − start_ns`;
//!   its marker text is the message of the first rank in order that has it (so a job whose
//!   steps are named from 0, or that joins late, shows each position beside its own name).
//!   Per step, over the ranks that have it: the median time (for an even count, the mean of the
//!   two middle values), the slowest rank (the longest time) and its excess = its time − the
//!   median of the other ranks' times (0 where it is alone). A step that some rank lacks is incomplete, and summarised over the ranks that have
//!   it. Per rank: its steps, the steps it was slowest in, and its excess summed over those.
//!   The stragglers are the ranks slowest in at least one step, with those steps and their
//!   excess over them (summed, mean, largest), the largest sum first.
//! - **Collectives.** On each rank, its collective kernels ordered by `start_ns` (then
//!   `end_ns`) are numbered per operation from 1: the n-th of an operation on every rank is one
//!   collective. Arrival = `start_ns`, shifted as below. Per collective, over the ranks that
//!   have it: spread = max arrival − min arrival; last = the rank with the max arrival (first:
//!   the min); each rank's wait = last arrival − its arrival; others' wait = the sum of the
//!   other ranks' waits. A collective that some rank lacks is incomplete, and summarised over
//!   the ranks that have it. Per rank, over the complete collectives only (an incomplete one's
//!   last may be a rank that lacks it): how often it was last, its waits summed, and the
//!   others' wait summed over the collectives it was last to. The `rccl_api` calls are
//!   numbered and summarised the same way, as a list of their own (`api_collectives`): they
//!   are the same collectives seen from the host, so no per-rank figure counts them.
//! - **Hangs.** Where processes' metadata hold a flight recorder's hang report (the process
//!   that saw the hang: `trigger.detail`; the others it asked to dump: `in_flight`), per rank:
//!   the launches outstanding, the oldest of them (its kernel, the kernel's collective
//!   operation as above, its thread's open marker ranges) and how long nothing had finished.
//! - **Clocks.** Where the ranks ran on more than one host, each rank's arrivals are shifted by
//!   its host's median of (`start_unix_ns − start_ns`) over the host's rows of the `process`
//!   table, an even count's mean of the two middle values rounded down to the nanosecond
//!   (shifts are taken relative to the least, which changes no difference). Ranks of one host
//!   are not shifted. Where a host has no such row, nothing is shifted and a note says so. Step
//!   times and the per-rank figures are differences on one rank's clock, never shifted.
//!
//! # Memory
//!
//! Only the columns needed are read ([`read`]), on every core. Kernels, collective arrivals and
//! step ranges go through external sorts ([`crate::spill`]), so a union is one pass over a
//! rank's kernels in order ([`intervals`]) and a collective's arrivals are held one collective
//! at a time: a run of 64 ranks of a million kernels each takes `--memory`, and what does not
//! fit goes to temporary files.

pub mod clock;
pub mod collectives;
pub mod hangs;
pub mod identity;
pub mod intervals;
pub mod notes;
pub mod operation;
pub mod passes;
pub mod read;
pub mod render;
pub mod steps;

use std::path::Path;

use regex::Regex;
use rocprof_rs_format::Table;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::spill::share;
use collectives::{Arrivals, CollectiveRows, Collectives, OperationRow};
use identity::{Hosts, RankId, RankTable, Ranks};
use intervals::BusyFigures;
use read::Seen;
use steps::{StepRow, Steps, Straggler};

/// What `ranks` compares, and how much it lists.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The markers that are steps; no steps without it.
    pub step_marker: Option<Regex>,
    /// Only the N steps with the largest excess and the N collectives with the longest wait.
    pub top: Option<usize>,
    /// Threads to read with (0: one per core).
    pub threads: usize,
}

/// One rank's figures.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RankRow {
    /// How the other sections name it.
    pub name: String,
    /// The `rank` column's value; none where the rank is its process.
    pub rank: Option<i32>,
    pub host: Option<String>,
    /// Its process (the lowest pid, where several wrote as this rank).
    pub pid: u32,
    #[serde(flatten)]
    pub busy: BusyFigures,
    /// Its step ranges.
    pub steps: u64,
    /// Steps it was the slowest in.
    pub slowest_steps: u64,
    /// Its excess over those steps, summed.
    pub step_excess_ns: f64,
    /// Complete kernel collectives it arrived last at.
    pub last_arrivals: u64,
    /// Its waits at complete kernel collectives, summed.
    pub collective_wait_ns: i64,
    /// The others' wait at the complete kernel collectives it arrived last at, summed.
    pub kept_waiting_ns: i64,
}

/// The comparison of a run's ranks; its JSON is `rocprof-rs ranks --format json`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// In rank order.
    pub ranks: Vec<RankRow>,
    /// The step marker asked for.
    pub step_marker: Option<String>,
    /// `--top`: steps and collectives are then the worst N, worst first.
    pub top: Option<usize>,
    /// In step order; with `--top`, the largest excess first.
    pub steps: Vec<StepRow>,
    /// Steps left out by `--top`.
    pub steps_omitted: usize,
    /// Steps not seen on every rank.
    pub steps_incomplete: u64,
    /// The ranks slowest in some step, the largest total excess first.
    pub stragglers: Vec<Straggler>,
    /// The kernel collectives, in order of operation and number; with `--top`, the longest
    /// others' wait first.
    pub collectives: CollectiveRows,
    pub collectives_omitted: u64,
    /// Kernel collectives not seen on every rank.
    pub collectives_incomplete: u64,
    /// The RCCL API calls' collectives, likewise.
    pub api_collectives: CollectiveRows,
    pub api_collectives_omitted: u64,
    /// Per source and operation.
    pub operations: Vec<OperationRow>,
    /// Where hosts' clocks were aligned, each host's shift.
    pub host_shifts_ns: std::collections::BTreeMap<String, i64>,
    /// Where the run holds a flight recorder's hang reports (a hang dump's folder), what each
    /// rank waited on, in rank order. Absent from the JSON where there are none (the Spark
    /// version reads tables only, and has no such list).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hangs: Vec<hangs::HungRank>,
    /// What a reader of the figures must know: what is missing, what was not aligned.
    pub notes: Vec<String>,
}

/// Compares the ranks of the run in `dir`.
pub fn compute(dir: &Path, options: &Options) -> Result<Report> {
    rocprof_rs_format::dataset::require_tables(dir)?;
    let threads = if options.threads == 0 {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        options.threads
    };
    let hosts = Hosts::read(dir);
    let ranks = Ranks::default();
    let mut notes = Vec::new();
    let mut arrivals = Arrivals::with_budget(share(4));
    let mut seen = Seen::default();

    let files = rocprof_rs_format::dataset::table_files(dir, Table::KernelDispatch)?;
    let busy = passes::kernels(&files, &hosts, &ranks, threads, &mut arrivals, &mut seen)?;
    if files.is_empty() {
        notes.push(
            "no kernel_dispatch table: no busy, compute or communication time (trace with --kernel-trace)".into(),
        );
    }
    let files = rocprof_rs_format::dataset::table_files(dir, Table::RcclApi)?;
    passes::api_calls(&files, &hosts, &ranks, threads, &mut arrivals, &mut seen)?;
    let mut ranges = None;
    if let Some(marker) = &options.step_marker {
        let files = rocprof_rs_format::dataset::table_files(dir, Table::Marker)?;
        let found = passes::step_ranges(&files, marker, &hosts, &ranks, threads, &mut seen)?;
        if files.is_empty() {
            notes.push("no marker table: no step times (trace with --marker-trace)".into());
        } else if found.matched == 0 {
            notes.push(format!(
                "no marker message matches --step-marker {:?} (of {} marker rows): no step times",
                marker.as_str(),
                found.rows
            ));
        } else {
            ranges = Some(found.ranges);
        }
    }

    let table = ranks.table();
    if table.is_empty() {
        return Err(Error::Invalid(format!(
            "{}: no kernel_dispatch, rccl_api or matching marker rows: no ranks to compare",
            dir.display()
        )));
    }
    notes.extend(notes::origin(&seen, &table));
    let shifts = clock::shifts(dir, &table)?;
    notes.extend(shifts.note.clone());
    let collectives = collectives::summarise(arrivals, &table, &shifts, options.top)?;
    let steps = ranges.map(|r| steps::summarise(r, &table, options.top)).transpose()?;
    notes.extend(notes::missing(&table, &busy, &collectives, steps.as_ref()));
    let ranks = rank_rows(&table, &busy, &collectives, steps.as_ref());
    let steps = steps.unwrap_or_default();
    Ok(Report {
        ranks,
        step_marker: options.step_marker.as_ref().map(|m| m.as_str().to_owned()),
        top: options.top,
        steps: steps.rows,
        steps_omitted: steps.omitted,
        steps_incomplete: steps.incomplete,
        stragglers: steps.stragglers,
        collectives_omitted: collectives.kernels.omitted() as u64,
        collectives_incomplete: collectives.incomplete,
        collectives: collectives.kernels,
        api_collectives_omitted: collectives.api.omitted() as u64,
        api_collectives: collectives.api,
        operations: collectives.operations,
        host_shifts_ns: shifts.hosts.iter().map(|(h, s)| (h.clone(), *s as i64)).collect(),
        hangs: hangs::read(dir, &table),
        notes,
    })
}

/// The per-rank rows, in rank order.
fn rank_rows(
    table: &RankTable,
    busy: &[BusyFigures],
    collectives: &Collectives,
    steps: Option<&Steps>,
) -> Vec<RankRow> {
    table
        .sorted
        .iter()
        .map(|&i| {
            let info = &table.info[i as usize];
            let waits = collectives.per_rank[i as usize];
            let step = steps.map(|s| s.per_rank[i as usize]).unwrap_or_default();
            RankRow {
                name: info.id.to_string(),
                rank: match info.id {
                    RankId::Rank(r) => Some(r),
                    RankId::Process { .. } => None,
                },
                host: info.host.clone(),
                pid: info.pid,
                busy: busy.get(i as usize).cloned().unwrap_or_default(),
                steps: step.steps,
                slowest_steps: step.slowest,
                step_excess_ns: step.excess_ns,
                last_arrivals: waits.last,
                collective_wait_ns: clamp(waits.waited_ns),
                kept_waiting_ns: clamp(waits.kept_waiting_ns),
            }
        })
        .collect()
}

/// An `i128` of nanoseconds as the rows hold it; beyond `i64` only from garbage timestamps.
fn clamp(value: i128) -> i64 {
    value.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, UInt32Array};
    use rocprof_rs_format::keys;

    /// A `kernel_dispatch` file as formats 1 and 2 wrote them, without the origin columns, and
    /// its process's metadata file naming the host.
    #[test]
    fn files_without_origin_columns_count_by_the_metadata_host_and_pid() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-ranks-format2-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("kernel_dispatch")).unwrap();
        let columns: Vec<(&str, ArrayRef)> = vec![
            ("kernel_name", Arc::new(StringArray::from(vec!["gemm", "ncclKernel_AllGather"]))),
            ("start_ns", Arc::new(Int64Array::from(vec![0, 50]))),
            ("end_ns", Arc::new(Int64Array::from(vec![100, 120]))),
            ("pid", Arc::new(UInt32Array::from(vec![5, 5]))),
        ];
        let batch = RecordBatch::try_from_iter(columns).unwrap();
        let file = std::fs::File::create(dir.join("kernel_dispatch/x-5-00000.parquet")).unwrap();
        let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let meta = serde_json::json!({ keys::PID: "5", keys::HOST: "x" });
        std::fs::write(dir.join(keys::metadata_file_name("x-5")), meta.to_string()).unwrap();

        let report = compute(&dir, &Options::default()).unwrap();
        let r = &report.ranks[0];
        assert_eq!((r.name.as_str(), r.rank, r.host.as_deref(), r.pid), ("x:5", None, Some("x"), 5));
        assert_eq!((r.busy.busy_ns, r.busy.communication_ns, r.busy.overlap_ns), (120, 70, 50));
        assert!(report.notes[0].starts_with("no rank column (files of format 1 or 2)"), "{:?}", report.notes);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
