//! The launcher: starts the ranks as a torchrun launch on one node would (without its
//! rendezvous: the ranks meet on the board, so no `MASTER_ADDR`), waits for every one, and
//! writes the run's `ranks-truth.json`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus};
use std::time::Duration;

use super::board::Board;
use super::truth::RanksTruth;
use super::{RanksError, Straggler, rank_truth_path};

/// The hidden option that makes `rocprof-sim` play one rank on the board it names.
pub const RANK_BOARD_OPTION: &str = "--rank-board";

/// Variables of other launchers that a profiler reads before torchrun's (OpenMPI, PMI, PMIx,
/// Slurm): inherited from a shell that runs inside one of them, they would give every rank the
/// shell's rank, so the ranks never see them.
const OTHER_LAUNCHERS: &[&str] = &[
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK",
    "PMI_SIZE",
    "PMIX_RANK",
    "MPI_LOCALRANKID",
    "SLURM_PROCID",
    "SLURM_LOCALID",
    "SLURM_NTASKS",
];

/// How often the launcher looks at its ranks.
const POLL: Duration = Duration::from_millis(5);

/// A run of ranks.
#[derive(Debug)]
pub struct Launch {
    pub world: u32,
    pub steps: u32,
    pub straggler: Option<Straggler>,
    /// This program's arguments, which every rank gets too.
    pub args: Vec<OsString>,
    /// The truth CSV path the ranks derive theirs from (`None`: they write none).
    pub truth: Option<PathBuf>,
    /// Where the launcher writes `ranks-truth.json`.
    pub ranks_truth: PathBuf,
}

/// A rank's exit status as a shell reports it: its code, or 128 + the signal that ended it.
fn status_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// Starts the ranks of `launch`, waits for all of them and, if all succeeded, writes the ranks
/// truth. Returns the exit status for the launcher: 0, or the status of the first rank that
/// failed (after which the board tells the others to stop waiting for it).
pub fn launch(launch: &Launch) -> Result<i32, RanksError> {
    let board = Board::create(launch.world, launch.steps)?;
    let exe = std::env::current_exe().map_err(|source| RanksError::Spawn { rank: 0, source })?;
    let mut children: Vec<(u32, Child)> = Vec::new();
    for rank in 0..launch.world {
        let mut cmd = Command::new(&exe);
        cmd.args(&launch.args).arg(RANK_BOARD_OPTION).arg(board.path());
        for name in OTHER_LAUNCHERS {
            cmd.env_remove(name);
        }
        let (rank_s, world_s) = (rank.to_string(), launch.world.to_string());
        cmd.env("RANK", &rank_s)
            .env("LOCAL_RANK", &rank_s)
            .env("GROUP_RANK", "0")
            .env("ROLE_RANK", &rank_s)
            .env("WORLD_SIZE", &world_s)
            .env("LOCAL_WORLD_SIZE", &world_s)
            .env("ROLE_WORLD_SIZE", &world_s);
        match cmd.spawn() {
            Ok(child) => children.push((rank, child)),
            Err(source) => {
                // The ranks started so far would wait for this one: tell them, and let them go.
                board.fail(rank);
                let _ = wait_all(&mut children, &board);
                return Err(RanksError::Spawn { rank, source });
            }
        }
    }
    if let Some((rank, code)) = wait_all(&mut children, &board)? {
        eprintln!("rocprof-sim: rank {rank} exited with status {code}; no ranks truth written");
        return Ok(code);
    }
    let truths = launch.truth.as_ref().map(|t| (0..launch.world).map(|r| rank_truth_path(t, r)).collect());
    let truth = RanksTruth::from_board(&board, launch.straggler, truths)?;
    let path = &launch.ranks_truth;
    let write = |source| RanksError::Write { path: path.clone(), source };
    let text = serde_json::to_string_pretty(&truth).map_err(|e| write(e.into()))?;
    std::fs::write(path, text + "\n").map_err(write)?;
    eprintln!(
        "rocprof-sim: SIMULATED {} ranks of {} steps; ranks truth in {}",
        launch.world,
        launch.steps,
        path.display()
    );
    Ok(0)
}

/// Waits for every child; the first that fails is put on the board at once. Returns that
/// rank and its status, if any failed.
fn wait_all(children: &mut Vec<(u32, Child)>, board: &Board) -> Result<Option<(u32, i32)>, RanksError> {
    let mut first_failure = None;
    while !children.is_empty() {
        let mut i = 0;
        while i < children.len() {
            let (rank, child) = &mut children[i];
            let rank = *rank;
            match child.try_wait().map_err(|source| RanksError::Wait { rank, source })? {
                Some(status) => {
                    let code = status_code(status);
                    if code != 0 && first_failure.is_none() {
                        board.fail(rank);
                        first_failure = Some((rank, code));
                    }
                    children.swap_remove(i);
                }
                None => i += 1,
            }
        }
        if !children.is_empty() {
            std::thread::sleep(POLL);
        }
    }
    Ok(first_failure)
}
