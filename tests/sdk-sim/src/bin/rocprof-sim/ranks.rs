//! `rocprof-sim --ranks N`: the launcher, or, started by it with `--rank-board`, one rank.

use std::path::Path;
use std::time::Duration;

use rocprof_sim::app::{Machine, default_sdk_path};
use rocprof_sim::ranks::{self, Board, Launch, RankIdentity, RankPlay, check_place, rank_truth_path};

use super::{Args, fail, force_configure};

/// Runs the launcher or one rank, and exits.
pub fn main(args: &Args) -> ! {
    if args.steps == 0 {
        fail("--steps must be at least 1");
    }
    if args.fork > 0 || args.raise.is_some() {
        fail("--fork and --raise do not go with --ranks");
    }
    if !(args.rank_timeout.is_finite() && args.rank_timeout > 0.0) {
        fail(&format!("--rank-timeout {}: expected a positive number of seconds", args.rank_timeout));
    }
    let places = [
        args.straggler.map(|s| ("--straggler", s.rank, s.step)),
        args.rank_exit.map(|e| ("--rank-exit", e.rank, e.step)),
    ];
    for (what, rank, step) in places.into_iter().flatten() {
        check_place(what, rank, step, args.ranks, args.steps).unwrap_or_else(|e| fail(&e.to_string()));
    }
    match &args.rank_board {
        None => launcher(args),
        Some(board) => rank(args, board),
    }
}

fn launcher(args: &Args) -> ! {
    let launch = Launch {
        world: args.ranks,
        steps: args.steps,
        straggler: args.straggler,
        args: std::env::args_os().skip(1).collect(),
        truth: (!args.no_truth).then(|| args.truth.clone()),
        ranks_truth: args.ranks_truth.clone().unwrap_or_else(|| args.truth.with_file_name("ranks-truth.json")),
    };
    match ranks::launch(&launch) {
        Ok(code) => std::process::exit(code),
        Err(e) => fail(&e.to_string()),
    }
}

fn rank(args: &Args, board: &Path) -> ! {
    let me = RankIdentity::from_env().unwrap_or_else(|e| fail(&e.to_string()));
    if me.world_size != args.ranks {
        fail(&format!("WORLD_SIZE={} but --ranks {}", me.world_size, args.ranks));
    }
    let board = Board::open(board, args.ranks, args.steps).unwrap_or_else(|e| fail(&e.to_string()));
    let sdk = args.sdk.clone().map_or_else(default_sdk_path, Ok).unwrap_or_else(|e| fail(&e));
    let archs = super::gpu_archs(args);
    let mut machine = Machine::open_with_archs(&sdk, args.agents, args.consumer_gpu, archs.as_deref())
        .unwrap_or_else(|e| fail(&e.to_string()));
    if let Some(tool) = &args.force_configure {
        force_configure(machine.library(), tool);
    }
    machine.start_runtime();
    let play = RankPlay {
        me,
        steps: args.steps,
        straggler: args.straggler,
        exit: args.rank_exit,
        timeout: Duration::from_secs_f64(args.rank_timeout),
    };
    let truth = rank_truth_path(&args.truth, me.rank);
    let about = format!(
        "rank={} local_rank={} world_size={} steps={} agents={} straggler={:?} pid={}",
        me.rank,
        me.local_rank,
        me.world_size,
        args.steps,
        args.agents,
        args.straggler,
        std::process::id(),
    );
    let written = (!args.no_truth).then_some((truth.as_path(), about.as_str()));
    let elapsed = machine.play_rank(&play, &board, written).unwrap_or_else(|e| fail(&e.to_string()));
    let truth_note =
        if args.no_truth { "no truth written".to_owned() } else { format!("truth in {}", truth.display()) };
    eprintln!(
        "rocprof-sim: SIMULATED rank {} of {}: {} steps in {:.3} s; {truth_note}",
        me.rank,
        me.world_size,
        args.steps,
        elapsed.as_secs_f64()
    );
    drop(board);
    // As a single play does: the SDK stays loaded until the process is gone.
    std::mem::forget(machine);
    std::process::exit(i32::from(args.exit_code));
}
