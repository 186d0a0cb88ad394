//! Step times across ranks: each rank's marker ranges that match `--step-marker`, numbered in
//! order of their starts, the k-th of every rank taken as step k; per step the median over the
//! ranks, the slowest rank and its excess over the others' median; per rank, the steps it was
//! slowest in.
//!
//! The ranges go through an external sort twice, by (rank, start) to number them and by (step,
//! rank) to compare them, so a step's times are held one step at a time.

use serde::Serialize;

use super::collectives::RankRef;
use super::identity::RankTable;
use crate::error::{Error, Result};
use crate::spill::{Sorter, biased};

/// Every rank's step ranges, collected for [`summarise`].
#[derive(Debug, Default)]
pub struct StepRanges {
    sorter: Sorter,
    key: Vec<u8>,
}

impl StepRanges {
    /// Rank `rank` had a matching range `[start_ns, end_ns)` with `message`.
    pub fn push(&mut self, rank: u32, start_ns: i64, end_ns: i64, message: &str) -> Result<()> {
        self.key.clear();
        self.key.extend_from_slice(&rank.to_be_bytes());
        // Ranges of one start are numbered by their end: a deterministic order for the rare tie.
        self.key.extend_from_slice(&biased(start_ns).to_be_bytes());
        self.key.extend_from_slice(&biased(end_ns).to_be_bytes());
        let mut value = Vec::with_capacity(8 + message.len());
        value.extend_from_slice(&end_ns.wrapping_sub(start_ns).to_le_bytes());
        value.extend_from_slice(message.as_bytes());
        self.sorter.push(&self.key, &value)
    }
}

/// One step across the ranks.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepRow {
    /// The 1-based step number: the step's position on each rank.
    pub step: u64,
    /// The step's marker text, as the first rank in rank order that has it named it.
    pub marker: String,
    /// Ranks that had it.
    pub ranks: u32,
    /// Whether every rank had it.
    pub complete: bool,
    /// The median step time over those ranks.
    pub median_ns: f64,
    /// The rank with the longest time.
    pub slowest: RankRef,
    pub slowest_ns: i64,
    /// How much later the slowest finished than the others: its time − the median of the other
    /// ranks' times (0 for a step of one rank). Over the others, so that a delay reads as
    /// itself whatever the number of ranks: with two, a median over both would halve it.
    pub excess_ns: f64,
}

/// A rank that was the slowest in at least one step.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Straggler {
    pub rank: RankRef,
    /// Steps it was the slowest in.
    pub slowest_steps: u64,
    /// Its excess over those steps: summed, mean and largest.
    pub excess_total_ns: f64,
    pub excess_mean_ns: f64,
    pub excess_max_ns: f64,
    /// Which steps, in order.
    pub steps: Vec<u64>,
    /// Their marker texts, as the steps' rows name them.
    pub step_markers: Vec<String>,
}

/// A rank's steps.
#[derive(Debug, Clone, Copy, Default)]
pub struct RankSteps {
    /// Matching ranges.
    pub steps: u64,
    /// Steps it was the slowest in.
    pub slowest: u64,
    /// Its excess over those, summed.
    pub excess_ns: f64,
}

/// The steps of a run.
#[derive(Debug, Clone, Default)]
pub struct Steps {
    /// In step order; with `top`, the largest excess only, the largest first.
    pub rows: Vec<StepRow>,
    /// Steps left out by `--top`.
    pub omitted: usize,
    /// Steps not seen on every rank.
    pub incomplete: u64,
    /// The largest total excess first.
    pub stragglers: Vec<Straggler>,
    /// By rank index.
    pub per_rank: Vec<RankSteps>,
}

/// Summarises the step ranges.
pub fn summarise(ranges: StepRanges, ranks: &RankTable, top: Option<usize>) -> Result<Steps> {
    let broken = || Error::Invalid("ranks: a step did not come back from the external sort".into());
    let mut per_rank = vec![RankSteps::default(); ranks.len()];
    // By (rank, start): each range's number on its rank.
    let mut by_step = Sorter::default();
    {
        let sorted = ranges.sorter.finish()?;
        let mut reader = sorted.reader()?;
        let mut current: Option<u32> = None;
        let mut k = 0u64;
        while let Some((key, value)) = reader.next()? {
            let rank = u32::from_be_bytes(key.get(..4).ok_or_else(broken)?.try_into().expect("4 bytes"));
            if current != Some(rank) {
                current = Some(rank);
                k = 0;
            }
            k += 1;
            per_rank.get_mut(rank as usize).ok_or_else(broken)?.steps += 1;
            let mut key = [0u8; 12];
            key[..8].copy_from_slice(&k.to_be_bytes());
            key[8..].copy_from_slice(&rank.to_be_bytes());
            by_step.push(&key, value)?;
        }
    }
    let sorted = by_step.finish()?;
    let mut reader = sorted.reader()?;
    let mut rows: Vec<StepRow> = Vec::new();
    let mut slowest_in: Vec<Vec<(u64, f64, String)>> = vec![Vec::new(); ranks.len()];
    let mut group: Vec<(u32, i64)> = Vec::new();
    let mut messages: Vec<String> = Vec::new();
    let mut step = 0u64;
    loop {
        let record = reader.next()?;
        let next_step = record.map(|(key, _)| key.get(..8).map(|k| u64::from_be_bytes(k.try_into().expect("8 bytes"))));
        if next_step != Some(Some(step)) && !group.is_empty() {
            let row = step_row(step, &group, &messages, ranks);
            let slowest_index = group_slowest(&group, ranks);
            slowest_in[slowest_index as usize].push((step, row.excess_ns, row.marker.clone()));
            rows.push(row);
            group.clear();
            messages.clear();
        }
        let Some((key, value)) = record else { break };
        if key.len() != 12 || value.len() < 8 {
            return Err(broken());
        }
        step = u64::from_be_bytes(key[..8].try_into().expect("8 bytes"));
        let rank = u32::from_be_bytes(key[8..].try_into().expect("4 bytes"));
        group.push((rank, i64::from_le_bytes(value[..8].try_into().expect("8 bytes"))));
        messages.push(String::from_utf8_lossy(&value[8..]).into_owned());
    }
    let incomplete = rows.iter().filter(|r| !r.complete).count() as u64;
    let mut stragglers: Vec<(u32, Straggler)> = slowest_in
        .into_iter()
        .enumerate()
        .filter(|(_, steps)| !steps.is_empty())
        .map(|(index, steps)| {
            let total: f64 = steps.iter().map(|(_, e, _)| e).sum();
            let rank = &mut per_rank[index];
            rank.slowest = steps.len() as u64;
            rank.excess_ns = total;
            let straggler = Straggler {
                rank: RankRef::of(ranks, index as u32),
                slowest_steps: steps.len() as u64,
                excess_total_ns: total,
                excess_mean_ns: total / steps.len() as f64,
                excess_max_ns: steps.iter().map(|(_, e, _)| *e).fold(f64::MIN, f64::max),
                steps: steps.iter().map(|(s, _, _)| *s).collect(),
                step_markers: steps.iter().map(|(_, _, m)| m.clone()).collect(),
            };
            (index as u32, straggler)
        })
        .collect();
    stragglers.sort_by(|(a, x), (b, y)| {
        y.excess_total_ns.total_cmp(&x.excess_total_ns).then(ranks.order[*a as usize].cmp(&ranks.order[*b as usize]))
    });
    if top.is_some() {
        rows.sort_by(|a, b| b.excess_ns.total_cmp(&a.excess_ns).then(a.step.cmp(&b.step)));
    }
    let shown = top.map_or(rows.len(), |n| n.min(rows.len()));
    let omitted = rows.len() - shown;
    rows.truncate(shown);
    Ok(Steps { rows, omitted, incomplete, stragglers: stragglers.into_iter().map(|(_, s)| s).collect(), per_rank })
}

/// The slowest of a step's (rank, time): ties go to the rank first in order.
fn group_slowest(group: &[(u32, i64)], ranks: &RankTable) -> u32 {
    let mut slowest = group[0];
    for &(rank, time) in &group[1..] {
        if time > slowest.1 || (time == slowest.1 && ranks.before(rank, slowest.0)) {
            slowest = (rank, time);
        }
    }
    slowest.0
}

/// Step `step`'s row from its ranks' times and marker texts (`messages`, as `group`).
fn step_row(step: u64, group: &[(u32, i64)], messages: &[String], ranks: &RankTable) -> StepRow {
    let slowest = group_slowest(group, ranks);
    let first = (0..group.len()).min_by_key(|&i| ranks.order[group[i].0 as usize]).unwrap_or(0);
    let slowest_ns = group.iter().find(|(r, _)| *r == slowest).map_or(0, |(_, t)| *t);
    let mut times: Vec<i64> = group.iter().map(|(_, t)| *t).collect();
    times.sort_unstable();
    let n = times.len();
    // The slowest's time is the largest: the others are the rest.
    let others = &times[..n - 1];
    let excess_ns =
        if others.is_empty() { 0.0 } else { (2 * i128::from(slowest_ns) - twice_median(others)) as f64 / 2.0 };
    StepRow {
        step,
        marker: messages.get(first).cloned().unwrap_or_default(),
        ranks: n as u32,
        complete: n == ranks.len(),
        median_ns: twice_median(&times) as f64 / 2.0,
        slowest: RankRef::of(ranks, slowest),
        slowest_ns,
        excess_ns,
    }
}

/// Twice the median of sorted, non-empty `times`, exactly: for an even count the sum of the two
/// middle values (two i64 in an i128), whose half is their mean.
fn twice_median(times: &[i64]) -> i128 {
    let n = times.len();
    if n % 2 == 1 { 2 * i128::from(times[n / 2]) } else { i128::from(times[n / 2 - 1]) + i128::from(times[n / 2]) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranks::identity::Ranks;

    #[test]
    fn medians_slowest_and_a_missing_step() {
        let ranks = Ranks::default();
        let r: Vec<u32> = (0..4).map(|i| ranks.index(Some(i), None, 100 + i as u32)).collect();
        let table = ranks.table();
        let mut ranges = StepRanges::default();
        // Three steps of 100 ns on ranks 0, 1 and 2 with rank 2 late by 40 ns in step 2; rank 3
        // has only two steps (110 and 90 ns), so step 3 is seen on three ranks.
        for (rank, start, length) in [
            (r[2], 0, 100),
            (r[0], 0, 100),
            (r[1], 0, 100),
            (r[0], 1000, 100),
            (r[1], 1000, 100),
            (r[2], 1000, 140),
            (r[0], 2000, 100),
            (r[1], 2000, 100),
            (r[2], 2000, 100),
            (r[3], 5, 110),
            (r[3], 1005, 90),
        ] {
            ranges.push(rank, start, start + length, &format!("step {}", start / 1000 + 7)).unwrap();
        }
        let steps = summarise(ranges, &table, Some(3)).unwrap();
        let brief: Vec<_> =
            steps.rows.iter().map(|s| (s.step, s.ranks, s.median_ns, s.slowest.name.as_str(), s.excess_ns)).collect();
        // Step 2: 90, 100, 100, 140 has median 100 and rank 2 40 ns over it; step 1: 100, 100,
        // 100, 110, median 100, rank 3 10 over; step 3: the three 100s tie, and rank 0 comes first.
        assert_eq!(brief, [(2, 4, 100.0, "2", 40.0), (1, 4, 100.0, "3", 10.0), (3, 3, 100.0, "0", 0.0)]);
        // Steps keep their position and say their own text (the job's steps start at 7).
        let named: Vec<_> = steps.rows.iter().map(|s| (s.step, s.marker.as_str())).collect();
        assert_eq!(named, [(2, "step 8"), (1, "step 7"), (3, "step 9")]);
        assert_eq!(steps.incomplete, 1);
        let s = &steps.stragglers[0];
        assert_eq!(
            (s.rank.name.as_str(), s.slowest_steps, s.excess_total_ns, s.steps.as_slice()),
            ("2", 1, 40.0, &[2][..])
        );
        assert_eq!(s.step_markers, ["step 8"]);
        assert_eq!(steps.per_rank[r[3] as usize].steps, 2);
        let top = summarise(StepRanges::default(), &table, Some(1)).unwrap();
        assert!(top.rows.is_empty() && top.stragglers.is_empty());
    }

    #[test]
    fn an_even_median_is_the_mean_of_the_middle_two() {
        let ranks = Ranks::default();
        let r: Vec<u32> = (0..3).map(|i| ranks.index(Some(i), None, 1)).collect();
        let row = step_row(1, &[(r[0], 101), (r[1], 100)], &[], &ranks.table());
        // With two ranks, the excess is over the other one: the whole delay, not half of it.
        assert_eq!((row.median_ns, row.excess_ns, row.slowest.name.as_str()), (100.5, 1.0, "0"));
        // The others' median is the mean of their middle two: 100 and 102 for rank 2's 110.
        let row = step_row(1, &[(r[0], 100), (r[1], 102), (r[2], 110)], &[], &ranks.table());
        assert_eq!((row.median_ns, row.excess_ns, row.slowest.name.as_str()), (102.0, 9.0, "2"));
        let row = step_row(1, &[(r[0], 100)], &[], &ranks.table());
        assert_eq!(row.excess_ns, 0.0, "one rank: no one to be late against");
    }
}
