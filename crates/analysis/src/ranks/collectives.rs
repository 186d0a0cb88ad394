//! Collectives across ranks: each rank's collective kernels (and RCCL API calls) numbered per
//! operation in order of their starts, the n-th of an operation on every rank taken as one
//! collective, and for each its spread of arrivals, the rank that came last and the time the
//! others waited for it.
//!
//! Arrivals go through an external sort keyed by (source, operation, number, rank), so any
//! number of collectives is summarised in bounded memory, one collective's arrivals at a time;
//! the rows themselves go through a second sort, by the others' wait, for `--top`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::clock::Shifts;
use super::identity::RankTable;
pub use super::operation::{Numbering, Operation, Source};
use crate::error::{Error, Result};
use crate::sorted_rows::{Decode, SortedRows};
use crate::spill::Sorter;

/// Every rank's arrivals, collected for [`summarise`].
#[derive(Debug, Default)]
pub struct Arrivals {
    sorter: Sorter,
    key: Vec<u8>,
}

/// The key's bytes that name one collective: source, operation, number.
const COLLECTIVE_KEY: usize = 1 + 1 + 8;

impl Arrivals {
    /// Arrivals in a sort of `budget` bytes.
    pub fn with_budget(budget: usize) -> Arrivals {
        Arrivals { sorter: Sorter::with_budget(budget), key: Vec::with_capacity(COLLECTIVE_KEY + 4) }
    }

    /// Rank `rank` arrived at the `n`-th `op` of `source` at `start_ns` (its own clock).
    pub fn push(&mut self, source: Source, op: Operation, n: u64, rank: u32, start_ns: i64) -> Result<()> {
        self.key.clear();
        self.key.push(source as u8);
        self.key.push(op.code());
        self.key.extend_from_slice(&n.to_be_bytes());
        self.key.extend_from_slice(&rank.to_be_bytes());
        self.sorter.push(&self.key, &start_ns.to_le_bytes())
    }
}

/// A rank as the rows name it: by its name in the tables, and by what identifies it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RankRef {
    /// As [`super::identity::RankId`] prints it.
    pub name: String,
    pub rank: Option<i32>,
    pub host: Option<String>,
    pub pid: u32,
}

impl RankRef {
    /// Rank `index` of `ranks`.
    pub fn of(ranks: &RankTable, index: u32) -> RankRef {
        let info = &ranks.info[index as usize];
        RankRef {
            name: info.id.to_string(),
            rank: match info.id {
                super::identity::RankId::Rank(rank) => Some(rank),
                super::identity::RankId::Process { .. } => None,
            },
            host: info.host.clone(),
            pid: info.pid,
        }
    }
}

/// One collective.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CollectiveRow {
    pub source: Source,
    pub operation: Operation,
    /// Its 1-based number among the operation's collectives of each rank.
    pub index: u64,
    /// Ranks it was seen on.
    pub ranks: u32,
    /// Whether every rank had it.
    pub complete: bool,
    /// Last arrival − first arrival.
    pub spread_ns: i64,
    /// The rank that arrived first.
    pub first: RankRef,
    /// The rank that arrived last.
    pub last: RankRef,
    /// The time the other ranks waited for the last: the sum of their waits.
    pub others_wait_ns: i64,
}

/// One operation's collectives.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OperationRow {
    pub source: Source,
    pub operation: Operation,
    pub collectives: u64,
    /// Collectives not seen on every rank.
    pub incomplete: u64,
    pub mean_spread_ns: f64,
    pub max_spread_ns: i64,
    /// The others' wait, summed over the collectives.
    pub others_wait_ns: i64,
}

/// A rank's part in the complete kernel collectives: the API calls are the same collectives
/// seen from the host, and an incomplete one's last rank may be one that lacks it.
#[derive(Debug, Clone, Copy, Default)]
pub struct RankWaits {
    /// Complete collectives it arrived last at.
    pub last: u64,
    /// Its waits, summed.
    pub waited_ns: i128,
    /// The others' waits at the complete collectives it came last to.
    pub kept_waiting_ns: i128,
}

/// Every collective of a run.
#[derive(Debug)]
pub struct Collectives {
    /// The kernels' collectives.
    pub kernels: CollectiveRows,
    /// The RCCL API calls' collectives.
    pub api: CollectiveRows,
    /// Per operation, kernels first.
    pub operations: Vec<OperationRow>,
    /// Kernel collectives not seen on every rank.
    pub incomplete: u64,
    /// By rank index.
    pub per_rank: Vec<RankWaits>,
}

#[derive(Debug, Default)]
struct OperationTotals {
    collectives: u64,
    incomplete: u64,
    spread: i128,
    max_spread: i128,
    others: i128,
}

/// A collective row's fields in the second sort, after the key.
const ROW_VALUE_BYTES: usize = 4 + 1 + 8 + 8 + 4 + 4;

/// An `i128` of nanoseconds as the rows hold it; beyond `i64` only from garbage timestamps.
fn clamp(value: i128) -> i64 {
    value.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// One source's rows: in order of their names, or with `top`, the longest wait first.
#[derive(Debug)]
struct RowSort {
    sorter: Sorter,
    count: usize,
    top: Option<usize>,
}

impl RowSort {
    fn push(&mut self, name: &[u8], value: &[u8], others: i128) -> Result<()> {
        self.count += 1;
        match self.top {
            Some(_) => {
                let key = crate::spill::Key::new().u64(u64::MAX - others.clamp(0, i128::from(u64::MAX)) as u64).0;
                self.sorter.push(&[&key[..], name].concat(), value)
            }
            None => self.sorter.push(name, value),
        }
    }

    fn finish(self, ranks: &RankTable) -> Result<CollectiveRows> {
        let shown = self.top.map_or(self.count, |n| n.min(self.count));
        let refs = (0..ranks.len() as u32).map(|i| RankRef::of(ranks, i)).collect();
        Ok(SortedRows::new(self.sorter.finish()?, shown, self.count - shown, CollectiveDecoder { refs }))
    }
}

/// Summarises the arrivals: every collective, per operation and per rank.
pub fn summarise(arrivals: Arrivals, ranks: &RankTable, shifts: &Shifts, top: Option<usize>) -> Result<Collectives> {
    let sorted = arrivals.sorter.finish()?;
    let mut reader = sorted.reader()?;
    let mut per_rank = vec![RankWaits::default(); ranks.len()];
    let mut totals: BTreeMap<(Source, Operation), OperationTotals> = BTreeMap::new();
    let budget = crate::spill::share(8);
    let mut rows =
        [Source::Kernel, Source::Api].map(|_| RowSort { sorter: Sorter::with_budget(budget), count: 0, top });
    let mut group: Vec<(u32, i128)> = Vec::new();
    let mut name = [0u8; COLLECTIVE_KEY];
    let broken = || Error::Invalid("ranks: an arrival did not come back from the external sort".into());
    loop {
        let record = reader.next()?;
        let same = record.is_some_and(|(key, _)| key.get(..COLLECTIVE_KEY) == Some(&name[..]));
        if !same && !group.is_empty() {
            let (source, op, _) = decode_name(&name).ok_or_else(broken)?;
            let figures = Figures::of(&group, ranks);
            let complete = group.len() == ranks.len();
            let t = totals.entry((source, op)).or_default();
            t.collectives += 1;
            t.incomplete += u64::from(!complete);
            t.spread += figures.spread;
            t.max_spread = t.max_spread.max(figures.spread);
            t.others += figures.others;
            if source == Source::Kernel && complete {
                for &(rank, arrival) in &group {
                    per_rank[rank as usize].waited_ns += figures.latest - arrival;
                }
                per_rank[figures.last as usize].last += 1;
                per_rank[figures.last as usize].kept_waiting_ns += figures.others;
            }
            let mut value = Vec::with_capacity(ROW_VALUE_BYTES);
            value.extend_from_slice(&(group.len() as u32).to_le_bytes());
            value.push(u8::from(complete));
            value.extend_from_slice(&clamp(figures.spread).to_le_bytes());
            value.extend_from_slice(&clamp(figures.others).to_le_bytes());
            value.extend_from_slice(&figures.first.to_le_bytes());
            value.extend_from_slice(&figures.last.to_le_bytes());
            rows[source as usize].push(&name, &value, figures.others)?;
            group.clear();
        }
        let Some((key, value)) = record else { break };
        if key.len() != COLLECTIVE_KEY + 4 || value.len() != 8 {
            return Err(broken());
        }
        name.copy_from_slice(&key[..COLLECTIVE_KEY]);
        let rank = u32::from_be_bytes(key[COLLECTIVE_KEY..].try_into().expect("4 bytes"));
        let start = i64::from_le_bytes(value.try_into().expect("8 bytes"));
        if rank as usize >= ranks.len() {
            return Err(broken());
        }
        group.push((rank, shifts.arrival(rank, start)));
    }
    let operations = totals
        .into_iter()
        .map(|((source, operation), t)| OperationRow {
            source,
            operation,
            collectives: t.collectives,
            incomplete: t.incomplete,
            mean_spread_ns: t.spread as f64 / t.collectives as f64,
            max_spread_ns: clamp(t.max_spread),
            others_wait_ns: clamp(t.others),
        })
        .collect::<Vec<_>>();
    let incomplete = operations.iter().filter(|o| o.source == Source::Kernel).map(|o| o.incomplete).sum();
    let [kernels, api] = rows;
    Ok(Collectives { kernels: kernels.finish(ranks)?, api: api.finish(ranks)?, operations, incomplete, per_rank })
}

fn decode_name(name: &[u8]) -> Option<(Source, Operation, u64)> {
    let source = Source::from_code(name[0])?;
    let op = Operation::from_code(name[1])?;
    Some((source, op, u64::from_be_bytes(name[2..COLLECTIVE_KEY].try_into().ok()?)))
}

/// One collective's figures.
#[derive(Debug, PartialEq)]
struct Figures {
    /// The latest arrival.
    latest: i128,
    spread: i128,
    /// The sum of every rank's wait (the last's is 0).
    others: i128,
    first: u32,
    last: u32,
}

impl Figures {
    /// The figures of the arrivals `group` (rank, arrival): ties go to the rank first in order.
    fn of(group: &[(u32, i128)], ranks: &RankTable) -> Figures {
        let (mut first, mut last) = (group[0], group[0]);
        for &(rank, arrival) in &group[1..] {
            if arrival < first.1 || (arrival == first.1 && ranks.before(rank, first.0)) {
                first = (rank, arrival);
            }
            if arrival > last.1 || (arrival == last.1 && ranks.before(rank, last.0)) {
                last = (rank, arrival);
            }
        }
        let others = group.iter().map(|&(_, arrival)| last.1 - arrival).sum();
        Figures { latest: last.1, spread: last.1 - first.1, others, first: first.0, last: last.0 }
    }
}

/// One source's collectives, from the second sort: read them with [`SortedRows::for_each`], in
/// order of operation and number, or with `--top`, the longest others' wait first.
pub type CollectiveRows = SortedRows<CollectiveDecoder>;

/// A collective from the second sort: its name from the key's end, its figures from the value.
#[derive(Debug)]
pub struct CollectiveDecoder {
    /// Each rank index's reference.
    refs: Vec<RankRef>,
}

impl Decode for CollectiveDecoder {
    type Row = CollectiveRow;

    fn decode(&self, key: &[u8], value: &[u8]) -> Result<CollectiveRow> {
        let broken = || Error::Invalid("ranks: a collective did not come back from the external sort".into());
        if key.len() < COLLECTIVE_KEY || value.len() != ROW_VALUE_BYTES {
            return Err(broken());
        }
        let (source, operation, index) = decode_name(&key[key.len() - COLLECTIVE_KEY..]).ok_or_else(broken)?;
        let u32_at = |at: usize| u32::from_le_bytes(value[at..at + 4].try_into().expect("4 bytes"));
        let i64_at = |at: usize| i64::from_le_bytes(value[at..at + 8].try_into().expect("8 bytes"));
        let rank = |index: u32| self.refs.get(index as usize).cloned().ok_or_else(broken);
        Ok(CollectiveRow {
            source,
            operation,
            index,
            ranks: u32_at(0),
            complete: value[4] == 1,
            spread_ns: i64_at(5),
            others_wait_ns: i64_at(13),
            first: rank(u32_at(21))?,
            last: rank(u32_at(25))?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranks::identity::Ranks;

    #[test]
    fn spread_last_and_waits_with_ties_to_the_first_rank() {
        let ranks = Ranks::default();
        let (a, b, c) = (ranks.index(Some(0), None, 1), ranks.index(Some(1), None, 2), ranks.index(Some(2), None, 3));
        let table = ranks.table();
        let f = Figures::of(&[(c, 100), (a, 40), (b, 100)], &table);
        assert_eq!(f, Figures { latest: 100, spread: 60, others: 60, first: a, last: b });
    }

    #[test]
    fn collectives_matched_by_order_per_operation() {
        let ranks = Ranks::default();
        let (r0, r1) = (ranks.index(Some(0), None, 1), ranks.index(Some(1), None, 2));
        let table = ranks.table();
        let mut arrivals = Arrivals::default();
        // Two all-reduces, rank 1 late to the second by 30 ns; a broadcast on rank 0 only.
        for (rank, n, start) in [(r0, 1, 100), (r1, 1, 110), (r0, 2, 500), (r1, 2, 530)] {
            arrivals.push(Source::Kernel, Operation::AllReduce, n, rank, start).unwrap();
        }
        arrivals.push(Source::Kernel, Operation::Broadcast, 1, r0, 700).unwrap();
        arrivals.push(Source::Api, Operation::AllReduce, 1, r0, 90).unwrap();
        let brief = |rows: &CollectiveRows| -> Vec<(Operation, u64, i64, String, i64, bool)> {
            let rows = rows.to_vec().unwrap();
            rows.into_iter()
                .map(|r| (r.operation, r.index, r.spread_ns, r.last.name, r.others_wait_ns, r.complete))
                .collect()
        };
        let all = summarise(arrivals, &table, &Shifts::default(), None).unwrap();
        assert_eq!(
            brief(&all.kernels),
            [
                (Operation::AllReduce, 1, 10, "1".into(), 10, true),
                (Operation::AllReduce, 2, 30, "1".into(), 30, true),
                (Operation::Broadcast, 1, 0, "0".into(), 0, false),
            ]
        );
        assert_eq!(brief(&all.api), [(Operation::AllReduce, 1, 0, "0".into(), 0, false)]);
        assert_eq!(all.incomplete, 1, "the API call is no kernel collective");
        let w = all.per_rank[r1 as usize];
        assert_eq!((w.last, w.waited_ns, w.kept_waiting_ns), (2, 0, 40));
        assert_eq!(all.per_rank[r0 as usize].waited_ns, 40, "the incomplete broadcast counts for no rank");

        let mut arrivals = Arrivals::default();
        for (rank, n, start) in [(r0, 1, 100), (r1, 1, 110), (r0, 2, 500), (r1, 2, 530)] {
            arrivals.push(Source::Kernel, Operation::AllReduce, n, rank, start).unwrap();
        }
        let top = summarise(arrivals, &table, &Shifts::default(), Some(1)).unwrap();
        assert_eq!(brief(&top.kernels), [(Operation::AllReduce, 2, 30, "1".into(), 30, true)]);
        assert_eq!(top.kernels.omitted(), 1);
    }
}
