//! The three tables `ranks` reads, one pass each: `kernel_dispatch` gives each rank's unions
//! and its collective kernels' arrivals, `rccl_api` its API calls' arrivals, `marker` its step
//! ranges. Each pass reads its columns on every core into an external sort keyed by (rank,
//! start, end), then walks each rank's rows in order of their starts.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use arrow_array::Array as _;
use regex::Regex;
use rocprof_rs_format::read::Col;

use super::collectives::{Arrivals, Numbering, Operation, Source};
use super::identity::{Hosts, Ranks};
use super::intervals::{Busy, BusyFigures};
use super::read::{self, Kind, RankedBatch, Seen};
use super::steps::StepRanges;
use crate::error::{Error, Result};
use crate::spill::{Sorter, biased, share, unbiased};

fn unordered(bytes: &[u8]) -> i64 {
    unbiased(u64::from_be_bytes(bytes.try_into().expect("8 bytes")))
}

/// A rank's interval in an external sort: (rank, start, end) as the key, so the sort gives each
/// rank's rows together in order of their starts; the operation code (or [`NOT_COLLECTIVE`]) as
/// the value.
fn interval_key(rank: u32, start: i64, end: i64) -> [u8; 20] {
    let mut key = [0u8; 20];
    key[..4].copy_from_slice(&rank.to_be_bytes());
    key[4..12].copy_from_slice(&biased(start).to_be_bytes());
    key[12..].copy_from_slice(&biased(end).to_be_bytes());
    key
}

/// The value of an interval that is no collective.
const NOT_COLLECTIVE: u8 = u8::MAX;

/// Each row's operation code (or [`NOT_COLLECTIVE`]), a dictionary's names classified once.
fn operation_codes(names: &Col<'_>, rows: usize) -> Vec<u8> {
    let code = |name: &str| Operation::of(name).map_or(NOT_COLLECTIVE, Operation::code);
    match names {
        Col::Dict(dict, values) if values.len() <= rows => {
            let per_key: Vec<u8> = (0..values.len()).map(|i| code(values.value(i))).collect();
            dict.keys().values().iter().map(|&k| per_key.get(k as usize).copied().unwrap_or(NOT_COLLECTIVE)).collect()
        }
        _ => {
            let mut known: HashMap<&str, u8> = HashMap::new();
            (0..rows).map(|i| *known.entry(names.text(i)).or_insert_with_key(|name| code(name))).collect()
        }
    }
}

/// Pushes a batch's intervals into `sorter`, whose lock is taken once per batch.
fn push_intervals(
    rows: &RankedBatch<'_>,
    codes: &[u8],
    keep: impl Fn(u8) -> bool,
    sorter: &Mutex<Sorter>,
) -> Result<()> {
    let (starts, ends) = (&rows.columns[1], &rows.columns[2]);
    let mut sorter = sorter.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for (i, (&rank, &code)) in rows.rank.iter().zip(codes).enumerate() {
        if keep(code) {
            sorter.push(&interval_key(rank, starts.i64(i), ends.i64(i)), &[code])?;
        }
    }
    Ok(())
}

const INTERVAL_COLUMNS: [Kind; 3] = [Kind::Text, Kind::Integer, Kind::Integer];

/// Reads the kernels: each rank's unions (by rank index), and its collectives' arrivals into
/// `arrivals`.
pub fn kernels(
    files: &[PathBuf],
    hosts: &Hosts,
    ranks: &Ranks,
    threads: usize,
    arrivals: &mut Arrivals,
    seen: &mut Seen,
) -> Result<Vec<BusyFigures>> {
    let sorter = Mutex::new(Sorter::with_budget(share(2)));
    let columns: Vec<(&str, Kind)> = ["kernel_name", "start_ns", "end_ns"].into_iter().zip(INTERVAL_COLUMNS).collect();
    let found = read::scan(files, &columns, hosts, ranks, threads, "kernel_dispatch", |rows| {
        let codes = operation_codes(&rows.columns[0], rows.rank.len());
        push_intervals(rows, &codes, |_| true, &sorter)
    })?;
    seen.add(found);
    let sorted = sorter.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()).finish()?;
    let mut reader = sorted.reader()?;
    let mut figures = Vec::new();
    let mut current: Option<(u32, Busy, Numbering)> = None;
    while let Some((key, value)) = reader.next()? {
        let (rank, start, end, code) = decode_interval(key, value)?;
        if current.as_ref().is_none_or(|(r, ..)| *r != rank) {
            if let Some((r, busy, _)) = current.take() {
                set(&mut figures, r, busy.figures());
            }
            current = Some((rank, Busy::default(), Numbering::default()));
        }
        let (_, busy, numbering) = current.as_mut().expect("set above");
        let op = collective(code)?;
        busy.add(start, end, op.is_some());
        if let Some(op) = op {
            arrivals.push(Source::Kernel, op, numbering.next(op), rank, start)?;
        }
    }
    if let Some((r, busy, _)) = current {
        set(&mut figures, r, busy.figures());
    }
    Ok(figures)
}

fn set(figures: &mut Vec<BusyFigures>, rank: u32, value: BusyFigures) {
    if figures.len() <= rank as usize {
        figures.resize(rank as usize + 1, BusyFigures::default());
    }
    figures[rank as usize] = value;
}

fn decode_interval(key: &[u8], value: &[u8]) -> Result<(u32, i64, i64, u8)> {
    if key.len() != 20 || value.len() != 1 {
        return Err(Error::Invalid("ranks: an interval did not come back from the external sort".into()));
    }
    let rank = u32::from_be_bytes(key[..4].try_into().expect("4 bytes"));
    Ok((rank, unordered(&key[4..12]), unordered(&key[12..]), value[0]))
}

fn collective(code: u8) -> Result<Option<Operation>> {
    if code == NOT_COLLECTIVE {
        return Ok(None);
    }
    Operation::from_code(code)
        .map(Some)
        .ok_or_else(|| Error::Invalid("ranks: an operation did not come back from the external sort".into()))
}

/// Reads the RCCL API calls: their arrivals into `arrivals`.
pub fn api_calls(
    files: &[PathBuf],
    hosts: &Hosts,
    ranks: &Ranks,
    threads: usize,
    arrivals: &mut Arrivals,
    seen: &mut Seen,
) -> Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    let sorter = Mutex::new(Sorter::with_budget(share(4)));
    let columns: Vec<(&str, Kind)> = ["operation", "start_ns", "end_ns"].into_iter().zip(INTERVAL_COLUMNS).collect();
    let found = read::scan(files, &columns, hosts, ranks, threads, "rccl_api", |rows| {
        let codes = operation_codes(&rows.columns[0], rows.rank.len());
        push_intervals(rows, &codes, |code| code != NOT_COLLECTIVE, &sorter)
    })?;
    seen.add(found);
    let sorted = sorter.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()).finish()?;
    let mut reader = sorted.reader()?;
    let mut current: Option<(u32, Numbering)> = None;
    while let Some((key, value)) = reader.next()? {
        let (rank, start, _, code) = decode_interval(key, value)?;
        if current.as_ref().is_none_or(|(r, _)| *r != rank) {
            current = Some((rank, Numbering::default()));
        }
        let (_, numbering) = current.as_mut().expect("set above");
        if let Some(op) = collective(code)? {
            arrivals.push(Source::Api, op, numbering.next(op), rank, start)?;
        }
    }
    Ok(())
}

/// Matching marker ranges, with how many marker rows were read and how many matched.
#[derive(Debug)]
pub struct Found {
    pub ranges: StepRanges,
    pub rows: u64,
    pub matched: u64,
}

/// Reads the markers: the ranges whose message matches `marker`.
pub fn step_ranges(
    files: &[PathBuf],
    marker: &Regex,
    hosts: &Hosts,
    ranks: &Ranks,
    threads: usize,
    seen: &mut Seen,
) -> Result<Found> {
    let found = Mutex::new(Found { ranges: StepRanges::default(), rows: 0, matched: 0 });
    let columns: Vec<(&str, Kind)> = ["message", "start_ns", "end_ns"].into_iter().zip(INTERVAL_COLUMNS).collect();
    // Rows are read against ranks of their own, and only matching rows' ranks join the run's:
    // a process whose markers are none of the steps (a data loader's) is no rank to compare.
    let readers = Ranks::default();
    let files_seen = read::scan(files, &columns, hosts, &readers, threads, "marker", |rows| {
        let (messages, starts, ends) = (&rows.columns[0], &rows.columns[1], &rows.columns[2]);
        let mut known: HashMap<&str, bool> = HashMap::new();
        let mut adopted: HashMap<u32, u32> = HashMap::new();
        let mut matching = Vec::new();
        for (i, &reader_rank) in rows.rank.iter().enumerate() {
            let message = messages.text(i);
            if *known.entry(message).or_insert_with(|| marker.is_match(message)) {
                let rank = *adopted.entry(reader_rank).or_insert_with(|| ranks.adopt(&readers.info(reader_rank)));
                matching.push((rank, starts.i64(i), ends.i64(i), message));
            }
        }
        let mut found = found.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        found.rows += rows.rank.len() as u64;
        found.matched += matching.len() as u64;
        matching.into_iter().try_for_each(|(rank, start, end, message)| found.ranges.push(rank, start, end, message))
    })?;
    seen.add(files_seen);
    Ok(found.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()))
}
