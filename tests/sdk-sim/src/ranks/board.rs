//! The board the ranks of one run share: a small file every rank maps, holding one atomic slot
//! per rank for each thing they wait on together (joining, each step's arrival) and the end each
//! rank gave its collective, for the launcher's truth.
//!
//! The ranks are separate processes, so the board is a file mapped `MAP_SHARED` (under
//! `/dev/shm` where it exists: memory, never written back to a disk). Its slots are 64-bit
//! words read and written only atomically; a slot is 0 until its value is set, and the values
//! (pids, `CLOCK_BOOTTIME` nanoseconds, which one clock gives every process of a machine) are
//! never 0. A rank that waits sleeps between looks, and gives up after a bound, when the
//! launcher says a peer failed, or when the launcher is gone.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::RanksError;

/// The first word: "RSIMRNK1".
const MAGIC: u64 = u64::from_le_bytes(*b"RSIMRNK1");
/// Words before the slots: magic, world size, steps, the launcher's pid, the failed rank + 1.
const HEADER: usize = 5;
const FAILED: usize = 4;
const LAUNCHER: usize = 3;

/// Between two looks at the board, a waiting rank sleeps this long at first, doubling up to
/// [`MAX_NAP`]: an arrival is noticed within a quarter of a millisecond at worst, at a few
/// thousand wake-ups a second, instead of a core spinning per rank.
const FIRST_NAP: Duration = Duration::from_micros(20);
const MAX_NAP: Duration = Duration::from_micros(250);

/// A group of slots, one per rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slots {
    /// Each rank's pid, once it has joined (`ncclCommInitRank`).
    Joined,
    /// Each rank's arrival at the collective of a step: its kernel's start.
    Arrival(u32),
    /// The end each rank gave the collective of a step.
    End(u32),
}

/// A mapped board.
#[derive(Debug)]
pub struct Board {
    words: NonNull<AtomicU64>,
    len: usize,
    world: u32,
    steps: u32,
    path: PathBuf,
    /// The launcher created the file and removes it.
    owner: bool,
}

// SAFETY: the mapping is shared memory accessed only through atomics; moving or sharing the
// handle between threads is as safe as sharing a `&[AtomicU64]`.
unsafe impl Send for Board {}
// SAFETY: as above.
unsafe impl Sync for Board {}

fn words_for(world: u32, steps: u32) -> usize {
    HEADER + world as usize * (1 + 2 * steps as usize)
}

impl Board {
    /// The launcher's board for `world` ranks of `steps` steps, in `/dev/shm` (or the temporary
    /// directory where there is none).
    pub fn create(world: u32, steps: u32) -> Result<Board, RanksError> {
        let shm = Path::new("/dev/shm");
        let dir = if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() };
        // The time makes the name unique even where an earlier run with this pid left its file.
        let nanos = std::time::SystemTime::UNIX_EPOCH.elapsed().map_or(0, |d| d.as_nanos());
        let path = dir.join(format!("rocprof-sim-ranks-{}-{nanos}.board", std::process::id()));
        let err = |source| RanksError::Board { path: path.clone(), source };
        let file = OpenOptions::new().read(true).write(true).create_new(true).open(&path).map_err(err)?;
        let len = words_for(world, steps);
        // A new file's bytes read as zeros: every slot starts unset.
        file.set_len((len * 8) as u64).map_err(err)?;
        let board = Board::map(file, path.clone(), world, steps, true).inspect_err(|_| {
            let _ = std::fs::remove_file(&path);
        })?;
        let header = [MAGIC, u64::from(world), u64::from(steps), u64::from(std::process::id())];
        for (word, value) in board.words().iter().zip(header) {
            word.store(value, Ordering::Release);
        }
        Ok(board)
    }

    /// A rank's view of the launcher's board at `path`, which must be for `world` and `steps`.
    pub fn open(path: &Path, world: u32, steps: u32) -> Result<Board, RanksError> {
        let err = |source| RanksError::Board { path: path.to_path_buf(), source };
        let file = OpenOptions::new().read(true).write(true).open(path).map_err(err)?;
        let len = file.metadata().map_err(err)?.len();
        if len != (words_for(world, steps) * 8) as u64 {
            return Err(RanksError::BoardShape { path: path.to_path_buf(), world, steps });
        }
        let board = Board::map(file, path.to_path_buf(), world, steps, false)?;
        let w = board.words();
        let shape = [MAGIC, u64::from(world), u64::from(steps)];
        if w.iter().zip(shape).any(|(word, value)| word.load(Ordering::Acquire) != value) {
            return Err(RanksError::BoardShape { path: path.to_path_buf(), world, steps });
        }
        Ok(board)
    }

    fn map(file: File, path: PathBuf, world: u32, steps: u32, owner: bool) -> Result<Board, RanksError> {
        let len = words_for(world, steps);
        // SAFETY: a fresh shared read-write mapping of `len * 8` bytes of an open file of that
        // size; the kernel picks the address. The mapping outlives the descriptor, which is
        // closed when `file` drops.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len * 8,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(RanksError::Board { path, source: std::io::Error::last_os_error() });
        }
        let words = NonNull::new(base.cast::<AtomicU64>()).expect("mmap never maps page 0");
        Ok(Board { words, len, world, steps, path, owner })
    }

    fn words(&self) -> &[AtomicU64] {
        // SAFETY: `words` is a page-aligned mapping of `len` u64 words, alive until `drop`;
        // `AtomicU64` has u64's layout, and every process touches the words only atomically.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr(), self.len) }
    }

    /// The file every rank maps.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn world(&self) -> u32 {
        self.world
    }

    pub fn steps(&self) -> u32 {
        self.steps
    }

    fn slot(&self, slots: Slots, rank: u32) -> &AtomicU64 {
        assert!(rank < self.world, "rank {rank} of {}", self.world);
        let world = self.world as usize;
        let step = |step: u32| {
            assert!(step < self.steps, "step {step} of {}", self.steps);
            step as usize * world
        };
        let index = match slots {
            Slots::Joined => 0,
            Slots::Arrival(s) => world + step(s),
            Slots::End(s) => world * (1 + self.steps as usize) + step(s),
        };
        &self.words()[HEADER + index + rank as usize]
    }

    /// Sets `rank`'s slot of `slots` to `value` (non-zero).
    pub fn set(&self, slots: Slots, rank: u32, value: u64) {
        debug_assert!(value != 0, "0 means unset");
        self.slot(slots, rank).store(value, Ordering::Release);
    }

    /// Every rank's slot of `slots`, 0 where unset.
    pub fn get(&self, slots: Slots) -> Vec<u64> {
        (0..self.world).map(|r| self.slot(slots, r).load(Ordering::Acquire)).collect()
    }

    /// The launcher: rank `rank` failed, so the others should stop waiting for it. The first
    /// failure is the one the board keeps.
    pub fn fail(&self, rank: u32) {
        let _ = self.words()[FAILED].compare_exchange(0, u64::from(rank) + 1, Ordering::AcqRel, Ordering::Acquire);
    }

    /// The rank the launcher saw fail first, if any.
    pub fn failed(&self) -> Option<u32> {
        self.words()[FAILED].load(Ordering::Acquire).checked_sub(1).map(|r| r as u32)
    }

    /// Waits, as `rank` doing `what`, until every slot of `slots` is set, and returns them.
    /// Gives up after `bound`, once a peer has failed, or once the launcher is gone (an orphan
    /// would otherwise wait for ranks nobody will restart).
    pub fn wait_all(&self, rank: u32, what: &str, slots: Slots, bound: Duration) -> Result<Vec<u64>, RanksError> {
        let started = Instant::now();
        let launcher = self.words()[LAUNCHER].load(Ordering::Acquire) as u32;
        let mut nap = FIRST_NAP;
        loop {
            let values = self.get(slots);
            if values.iter().all(|&v| v != 0) {
                return Ok(values);
            }
            if let Some(failed) = self.failed() {
                return Err(RanksError::PeerFailed { rank, what: what.to_owned(), failed });
            }
            if std::os::unix::process::parent_id() != launcher {
                return Err(RanksError::Orphaned { rank, what: what.to_owned(), launcher });
            }
            let waited = started.elapsed();
            if waited >= bound {
                let missing = (0..self.world).filter(|&r| values[r as usize] == 0).collect();
                return Err(RanksError::Timeout { rank, what: what.to_owned(), missing, waited });
            }
            std::thread::sleep(nap.min(bound - waited));
            nap = (nap * 2).min(MAX_NAP);
        }
    }
}

impl Drop for Board {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly the mapping `map` made; no reference into it outlives
        // `self` (every accessor borrows `self`).
        unsafe { libc::munmap(self.words.as_ptr().cast(), self.len * 8) };
        if self.owner {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_shared_through_the_file_and_waits_are_bounded() {
        let launcher = Board::create(3, 2).unwrap();
        // This test process stands in for a rank: its parent is not the launcher (itself), so
        // the orphan check must be told otherwise; write the parent's pid as the launcher's.
        launcher.words()[LAUNCHER].store(u64::from(std::os::unix::process::parent_id()), Ordering::Release);
        let rank = Board::open(launcher.path(), 3, 2).unwrap();
        assert!(matches!(Board::open(launcher.path(), 3, 3), Err(RanksError::BoardShape { .. })));
        rank.set(Slots::Arrival(1), 2, 42);
        assert_eq!(launcher.get(Slots::Arrival(1)), [0, 0, 42]);
        assert_eq!(launcher.get(Slots::Arrival(0)), [0, 0, 0]);
        assert_eq!(launcher.get(Slots::End(1)), [0, 0, 0]);
        let started = Instant::now();
        let err = rank.wait_all(0, "step 1", Slots::Arrival(1), Duration::from_millis(30)).unwrap_err();
        assert!(started.elapsed() >= Duration::from_millis(30));
        assert!(matches!(err, RanksError::Timeout { ref missing, .. } if *missing == [0, 1]), "{err}");
        launcher.set(Slots::Arrival(1), 0, 7);
        launcher.set(Slots::Arrival(1), 1, 8);
        assert_eq!(rank.wait_all(0, "step 1", Slots::Arrival(1), Duration::from_secs(1)).unwrap(), [7, 8, 42]);
        launcher.fail(1);
        launcher.fail(2);
        let err = rank.wait_all(0, "step 0", Slots::Arrival(0), Duration::from_secs(60)).unwrap_err();
        assert!(matches!(err, RanksError::PeerFailed { failed: 1, .. }), "{err}");
        let path = launcher.path().to_path_buf();
        drop(rank);
        drop(launcher);
        assert!(!path.exists(), "the launcher removes its board");
    }
}
