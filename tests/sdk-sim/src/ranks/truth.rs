//! `ranks-truth.json`: what the launcher knows, once every rank is done, about the job as a
//! whole. Its per-collective figures follow the definitions the `ranks` analysis uses, so an
//! analysis of the tool's output can be held to them: arrival = the collective kernel's start;
//! spread = last arrival - first; a rank's wait = last arrival - its arrival; others' wait = the
//! sum of every rank's wait but the last's (whose own is 0).

use std::path::PathBuf;

use serde::Serialize;

use super::board::{Board, Slots};
use super::{OPERATION, RanksError, Straggler};
use crate::kernels::RCCL_CATALOG;

/// The whole file. Arrays per rank are indexed by rank.
#[derive(Debug, Serialize)]
pub struct RanksTruth {
    pub simulated: &'static str,
    pub world_size: u32,
    pub steps: u32,
    pub straggler: Option<Straggler>,
    pub ranks: Vec<RankEntry>,
    pub collectives: Vec<Collective>,
}

/// One rank's process.
#[derive(Debug, Serialize)]
pub struct RankEntry {
    pub rank: u32,
    pub local_rank: u32,
    pub pid: u32,
    /// Its ground-truth CSV, if one was written.
    pub truth: Option<PathBuf>,
}

/// One collective: the `index`-th of its operation on every rank (here the one of step `step`).
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Collective {
    pub step: u32,
    pub operation: &'static str,
    pub index: u32,
    /// The RCCL call that enqueued it.
    pub api: &'static str,
    /// Its kernel, as the code object names it.
    pub kernel: &'static str,
    pub arrival_ns: Vec<u64>,
    pub end_ns: Vec<u64>,
    /// The rank that arrived last (the lowest such rank on a tie).
    pub last_rank: u32,
    pub spread_ns: u64,
    pub wait_ns: Vec<u64>,
    pub others_wait_ns: u64,
}

impl Collective {
    /// The all-reduce of `step`, from every rank's arrival and end.
    pub fn all_reduce(step: u32, arrival_ns: Vec<u64>, end_ns: Vec<u64>) -> Collective {
        let last = arrival_ns.iter().copied().max().unwrap_or(0);
        let first = arrival_ns.iter().copied().min().unwrap_or(0);
        let last_rank = arrival_ns.iter().position(|&a| a == last).unwrap_or(0) as u32;
        let wait_ns: Vec<u64> = arrival_ns.iter().map(|&a| last - a).collect();
        let others_wait_ns = wait_ns.iter().enumerate().filter(|&(r, _)| r as u32 != last_rank).map(|(_, &w)| w).sum();
        Collective {
            step,
            operation: OPERATION,
            index: step,
            api: "ncclAllReduce",
            kernel: RCCL_CATALOG[0].mangled,
            arrival_ns,
            end_ns,
            last_rank,
            spread_ns: last - first,
            wait_ns,
            others_wait_ns,
        }
    }
}

impl RanksTruth {
    /// The truth of a finished run from its board; `truths` are the ranks' CSVs, if written.
    pub fn from_board(
        board: &Board,
        straggler: Option<Straggler>,
        truths: Option<Vec<PathBuf>>,
    ) -> Result<RanksTruth, RanksError> {
        let world = board.world();
        let complete = |slots: Slots, step: u32, what: &'static str| {
            let values = board.get(slots);
            match values.iter().position(|&v| v == 0) {
                Some(rank) => Err(RanksError::Incomplete { rank: rank as u32, step, what }),
                None => Ok(values),
            }
        };
        let pids = complete(Slots::Joined, 0, "pid")?;
        let ranks = (0..world)
            .map(|rank| RankEntry {
                rank,
                // One node: the launcher gives every rank its own rank as local rank.
                local_rank: rank,
                pid: pids[rank as usize] as u32,
                truth: truths.as_ref().map(|t| t[rank as usize].clone()),
            })
            .collect();
        let collectives = (0..board.steps())
            .map(|step| {
                let arrivals = complete(Slots::Arrival(step), step, "arrival")?;
                let ends = complete(Slots::End(step), step, "end")?;
                Ok(Collective::all_reduce(step, arrivals, ends))
            })
            .collect::<Result<_, RanksError>>()?;
        Ok(RanksTruth {
            simulated: crate::SIMULATED_BANNER,
            world_size: world,
            steps: board.steps(),
            straggler,
            ranks,
            collectives,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_follow_the_last_arrival() {
        let c = Collective::all_reduce(3, vec![100, 160, 130, 160], vec![900; 4]);
        assert_eq!(c.last_rank, 1, "the lowest of the ranks tied last");
        assert_eq!(c.spread_ns, 60);
        assert_eq!(c.wait_ns, [60, 0, 30, 0]);
        assert_eq!(c.others_wait_ns, 90);
        assert_eq!((c.operation, c.index), ("AllReduce", 3));
    }
}
