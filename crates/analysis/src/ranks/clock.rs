//! Putting hosts' clocks side by side. The tables' timestamps are each host's CLOCK_BOOTTIME,
//! which starts when the host booted; arrivals of ranks on different hosts compare only once
//! each host's timestamps are shifted by its median of `start_unix_ns - start_ns` over its
//! processes (the `process` table). Ranks of one host are never shifted.
//!
//! A median of an even count is the mean of the two middle values, rounded down to the
//! nanosecond (the Spark version rounds it so too), so arrivals stay whole nanoseconds. Shifts
//! are taken relative to the least, which changes no difference between arrivals and keeps the
//! numbers small.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use arrow_array::Array;
use rocprof_rs_format::Table;

use super::identity::RankTable;
use crate::error::Result;

/// What to add to each rank's timestamps, and what a reader must know.
#[derive(Debug, Clone, Default)]
pub struct Shifts {
    /// By rank index; empty when nothing is shifted.
    by_rank: Vec<i128>,
    /// Why hosts that should have been aligned were not.
    pub note: Option<String>,
    /// The shift of each host, where hosts were aligned.
    pub hosts: BTreeMap<String, i128>,
}

impl Shifts {
    /// `start_ns` of rank `index`, shifted.
    #[inline]
    pub fn arrival(&self, index: u32, start_ns: i64) -> i128 {
        i128::from(start_ns) + self.by_rank.get(index as usize).copied().unwrap_or(0)
    }
}

/// The median of `values` (sorted here): for an even count, the mean of the two middle values
/// rounded down.
fn median(values: &mut [i128]) -> Option<i128> {
    values.sort_unstable();
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]).div_euclid(2)),
    }
}

/// The shifts for `ranks`, from the `process` table of `dir`.
pub fn shifts(dir: &Path, ranks: &RankTable) -> Result<Shifts> {
    let hosts: BTreeSet<Option<&str>> = ranks.info.iter().map(|r| r.host.as_deref()).collect();
    if hosts.len() <= 1 {
        return Ok(Shifts::default());
    }
    let mut offsets: BTreeMap<String, Vec<i128>> = BTreeMap::new();
    if !rocprof_rs_format::dataset::table_files(dir, Table::Process)?.is_empty() {
        crate::read::batches(dir, Table::Process, |batch| {
            let (start, unix) = (batch.col("start_ns")?, batch.col("start_unix_ns")?);
            let Some(host) = batch.col_opt("host")? else { return Ok(()) };
            let valid = batch.batch.column_by_name("host").map(|a| a.logical_nulls());
            for i in 0..batch.rows() {
                let null = valid.as_ref().and_then(|v| v.as_ref()).is_some_and(|v| v.is_null(i));
                if null || unix.opt_i64(i).is_none() {
                    continue;
                }
                let offset = i128::from(unix.i64(i)) - i128::from(start.i64(i));
                offsets.entry(host.text(i).to_owned()).or_default().push(offset);
            }
            Ok(())
        })?;
    }
    let names: Vec<String> = hosts.iter().map(|h| h.unwrap_or("(unknown)").to_owned()).collect();
    let missing: Vec<&String> = hosts
        .iter()
        .zip(&names)
        .filter(|(host, _)| host.is_none_or(|h| !offsets.contains_key(h)))
        .map(|(_, name)| name)
        .collect();
    if !missing.is_empty() {
        let which = missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
        return Ok(Shifts {
            note: Some(format!(
                "the ranks ran on {} hosts, but the process table gives no start_unix_ns for {which}: collective \
                 arrivals are compared on the hosts' own clocks, unaligned",
                hosts.len()
            )),
            ..Shifts::default()
        });
    }
    let mut medians: BTreeMap<String, i128> = BTreeMap::new();
    for host in hosts.iter().flatten() {
        let values = offsets.get_mut(*host).expect("checked above");
        medians.insert((*host).to_owned(), median(values).expect("a host with offsets has one"));
    }
    let least = *medians.values().min().expect("more than one host");
    medians.values_mut().for_each(|m| *m -= least);
    let by_rank = ranks.info.iter().map(|r| r.host.as_deref().and_then(|h| medians.get(h)).map_or(0, |m| *m)).collect();
    Ok(Shifts { by_rank, note: None, hosts: medians })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_an_even_count_round_down() {
        assert_eq!(median(&mut []), None);
        assert_eq!(median(&mut [5, 1, 3]), Some(3));
        assert_eq!(median(&mut [4, 1, 2, 9]), Some(3));
        assert_eq!(median(&mut [1, 2]), Some(1));
        assert_eq!(median(&mut [-1, -2]), Some(-2), "down, not towards zero");
    }
}
