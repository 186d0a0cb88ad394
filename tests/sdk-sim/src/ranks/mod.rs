//! A data-parallel training job of N ranks, as N processes (`rocprof-sim --ranks N`).
//!
//! The launcher ([`launch`]) starts N copies of its own executable with the rank variables a
//! torchrun launch sets, and waits for them. Each rank plays the same loop (see
//! `app::Machine::play_rank`): a few compute kernels per step inside a ROCTx range `step <k>`,
//! then one `ncclAllReduce` whose collective kernel starts on each rank when that rank arrives
//! and ends, on every rank, when the last one has arrived plus the time the reduction takes.
//! The ranks find each other's arrivals on a shared [`Board`]. Once all are done the launcher
//! writes `ranks-truth.json` ([`RanksTruth`]): who arrived when, who was last, who waited.
//!
//! Everything here is **simulated**: no GPU and no network are involved.

mod board;
mod launch;
mod truth;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

pub use board::{Board, Slots};
pub use launch::{Launch, launch};
pub use truth::{Collective, RankEntry, RanksTruth};

/// Bytes of gradients each rank all-reduces per step: 16 MiB of f32.
pub const GRADIENT_BYTES: u64 = 16 << 20;

/// The operation of the step's collective, as the contract's analysis classifies kernel names.
pub const OPERATION: &str = "AllReduce";

/// The compute kernels of a step before its all-reduce (forward, softmax, backward), then after
/// it (the optimizer, which needs the reduced gradients), by catalog name.
pub const BEFORE_ALL_REDUCE: &[&str] = &[
    "_ZN2ck27kernel_gemm_xdl_cshuffle_v3INS_36GridwiseGemm_xdl_cshuffle_v3_multi_dILi256ELi128ELi128ELi64EEELb1ELNS_25InMemoryDataOperationEnumE0ELi1ELNS_10TailNumberE2EEEvNT_8ArgumentE",
    "_Z20softmax_warp_forwardIN3c104HalfES1_fLi10ELb0ELb0EEvPT0_PKT_iiiPKbib",
    "_ZN2ck27kernel_gemm_xdl_cshuffle_v3INS_36GridwiseGemm_xdl_cshuffle_v3_multi_dILi256ELi128ELi128ELi64EEELb1ELNS_25InMemoryDataOperationEnumE0ELi1ELNS_10TailNumberE2EEEvNT_8ArgumentE",
];
/// See [`BEFORE_ALL_REDUCE`].
pub const AFTER_ALL_REDUCE: &[&str] = &["_Z14vector_add_f32PKfS0_Pfi"];

/// Work-items of every compute kernel: small, so the GPU never runs ahead of the host by more
/// than microseconds, and a rank's arrival is when its host enqueued the collective (a
/// straggler's delay then shows in full rather than hidden behind queued work).
pub const COMPUTE_ITEMS: u32 = 1 << 16;

/// What can go wrong in a multi-rank play.
#[derive(Debug, thiserror::Error)]
pub enum RanksError {
    #[error("{0} {1:?}: expected three non-negative integers separated by colons")]
    Triple(&'static str, String),
    #[error("{what} names rank {rank} and step {step}, but the run has {world} ranks of {steps} steps")]
    Outside { what: &'static str, rank: u32, step: u32, world: u32, steps: u32 },
    #[error("{name}={value:?}: a rank needs RANK and LOCAL_RANK below WORLD_SIZE, as its launcher sets them")]
    RankVariable { name: &'static str, value: String },
    #[error("the rank board {}: {source}", path.display())]
    Board { path: PathBuf, source: std::io::Error },
    #[error("the rank board {} is not that of {world} ranks and {steps} steps", path.display())]
    BoardShape { path: PathBuf, world: u32, steps: u32 },
    #[error("rank {rank}: {what}: rank(s) {missing:?} did not arrive within {waited:?} (did they die?)")]
    Timeout { rank: u32, what: String, missing: Vec<u32>, waited: Duration },
    #[error("rank {rank}: {what}: rank {failed} failed, so the launcher ended the run")]
    PeerFailed { rank: u32, what: String, failed: u32 },
    #[error("rank {rank}: {what}: its launcher (pid {launcher}) is gone")]
    Orphaned { rank: u32, what: String, launcher: u32 },
    #[error("cannot start rank {rank}: {source}")]
    Spawn { rank: u32, source: std::io::Error },
    #[error("cannot wait for rank {rank}: {source}")]
    Wait { rank: u32, source: std::io::Error },
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error("rank {rank} wrote no {what} for step {step}")]
    Incomplete { rank: u32, step: u32, what: &'static str },
}

/// `--straggler RANK:STEP:DELAY_MS`: that rank sleeps before enqueuing that step's collective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Straggler {
    pub rank: u32,
    pub step: u32,
    pub delay_ms: u64,
}

/// `--rank-exit RANK:STEP:CODE`: that rank exits with CODE when it reaches that step's
/// collective, as a rank that crashes there would leave its peers (for tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankExit {
    pub rank: u32,
    pub step: u32,
    pub code: u8,
}

/// `A:B:C`, three non-negative integers.
fn triple<C: FromStr>(s: &str) -> Option<(u32, u32, C)> {
    let mut parts = s.split(':');
    let (Some(a), Some(b), Some(c), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return None;
    };
    Some((a.parse().ok()?, b.parse().ok()?, c.parse().ok()?))
}

impl FromStr for Straggler {
    type Err = RanksError;

    fn from_str(s: &str) -> Result<Self, RanksError> {
        let (rank, step, delay_ms) = triple(s).ok_or_else(|| RanksError::Triple("--straggler", s.to_owned()))?;
        Ok(Straggler { rank, step, delay_ms })
    }
}

impl FromStr for RankExit {
    type Err = RanksError;

    fn from_str(s: &str) -> Result<Self, RanksError> {
        let (rank, step, code) = triple(s).ok_or_else(|| RanksError::Triple("--rank-exit", s.to_owned()))?;
        Ok(RankExit { rank, step, code })
    }
}

/// Checks that `what` names one of `world` ranks and `steps` steps.
pub fn check_place(what: &'static str, rank: u32, step: u32, world: u32, steps: u32) -> Result<(), RanksError> {
    if rank < world && step < steps { Ok(()) } else { Err(RanksError::Outside { what, rank, step, world, steps }) }
}

/// Who this process is in the job, from the variables a torchrun launch sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankIdentity {
    pub rank: u32,
    pub local_rank: u32,
    pub world_size: u32,
}

impl RankIdentity {
    /// `RANK`, `LOCAL_RANK` and `WORLD_SIZE`, read as a torchrun application reads them.
    pub fn from_env() -> Result<Self, RanksError> {
        let var = |name: &'static str| {
            let value = std::env::var(name).unwrap_or_default();
            value.parse::<u32>().map_err(|_| RanksError::RankVariable { name, value })
        };
        let (rank, local_rank, world_size) = (var("RANK")?, var("LOCAL_RANK")?, var("WORLD_SIZE")?);
        for (name, value) in [("RANK", rank), ("LOCAL_RANK", local_rank)] {
            if value >= world_size {
                return Err(RanksError::RankVariable { name, value: value.to_string() });
            }
        }
        Ok(RankIdentity { rank, local_rank, world_size })
    }
}

/// What one rank plays.
#[derive(Debug, Clone, Copy)]
pub struct RankPlay {
    pub me: RankIdentity,
    pub steps: u32,
    pub straggler: Option<Straggler>,
    pub exit: Option<RankExit>,
    /// How long a rank waits for its peers, at most, beyond any straggler delay.
    pub timeout: Duration,
}

impl RankPlay {
    /// How long this rank sleeps before enqueuing the collective of `step`.
    pub fn delay_before(&self, step: u32) -> Option<Duration> {
        self.straggler.filter(|s| s.rank == self.me.rank && s.step == step).map(|s| Duration::from_millis(s.delay_ms))
    }

    /// The status this rank exits with when it reaches the collective of `step`, if it does.
    pub fn exit_at(&self, step: u32) -> Option<u8> {
        self.exit.filter(|e| e.rank == self.me.rank && e.step == step).map(|e| e.code)
    }

    /// The bound on any one wait: a straggler's peers wait for its delay too.
    pub fn wait_bound(&self) -> Duration {
        self.timeout + self.straggler.map_or(Duration::ZERO, |s| Duration::from_millis(s.delay_ms))
    }
}

/// The truth file of rank `rank`: `TRUTH` with `rank<k>` before its extension.
pub fn rank_truth_path(truth: &Path, rank: u32) -> PathBuf {
    truth.with_extension(format!("rank{rank}.csv"))
}

/// The modeled time a ring all-reduce of `bytes` over `world` ranks takes once its last rank
/// has arrived: each rank sends and receives 2(n-1)/n of the bytes at 50 GB/s (an Infinity
/// Fabric link), in 2(n-1) ring steps of 5 µs latency each.
pub fn all_reduce_ns(world: u32, bytes: u64) -> u64 {
    let n = u64::from(world.max(1));
    let moved = 2 * (n - 1) * bytes / n;
    moved / 50 + 2 * (n - 1) * 5_000
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::CATALOG;

    #[test]
    fn stragglers_parse_and_refuse_anything_else() {
        assert_eq!("2:3:50".parse::<Straggler>().unwrap(), Straggler { rank: 2, step: 3, delay_ms: 50 });
        for bad in ["", "2:3", "2:3:50:1", "a:3:50", "2:-1:50", "2:3:5.5"] {
            assert!(bad.parse::<Straggler>().is_err(), "{bad:?}");
        }
        assert_eq!("1:0:3".parse::<RankExit>().unwrap(), RankExit { rank: 1, step: 0, code: 3 });
        assert!("1:0:256".parse::<RankExit>().is_err(), "exit codes are bytes");
        assert!(check_place("--straggler", 3, 1, 4, 2).is_ok());
        assert!(check_place("--straggler", 3, 1, 3, 2).is_err() && check_place("--straggler", 3, 1, 4, 1).is_err());
    }

    #[test]
    fn step_kernels_are_in_the_catalog() {
        for name in BEFORE_ALL_REDUCE.iter().chain(AFTER_ALL_REDUCE) {
            assert!(CATALOG.iter().any(|k| k.mangled == *name), "{name}");
        }
    }

    #[test]
    fn an_all_reduce_of_one_rank_moves_nothing_and_more_ranks_take_longer() {
        assert_eq!(all_reduce_ns(1, GRADIENT_BYTES), 0);
        // 4 ranks: 1.5 x 16 MiB at 50 GB/s, plus 6 ring steps.
        assert_eq!(all_reduce_ns(4, GRADIENT_BYTES), 25_165_824 / 50 + 30_000);
        assert!(all_reduce_ns(8, GRADIENT_BYTES) > all_reduce_ns(4, GRADIENT_BYTES));
    }

    #[test]
    fn rank_truths_sit_beside_the_truth() {
        assert_eq!(rank_truth_path(Path::new("/t/truth.csv"), 3), Path::new("/t/truth.rank3.csv"));
    }
}
