//! Every kernel symbol the code-object callback has seen, kept for a forked child: the SDK will
//! not announce code objects loaded before the fork again. Below both of its users ([`super::ingest`]
//! keeps, [`super::fork`] replays), so neither reaches for the other.

use parking_lot::{Mutex, MutexGuard};

use crate::pipeline::records::Symbol;

/// Few (one per kernel), and taken on the rare code-object load, never on a record path.
static SYMBOLS: Mutex<Vec<Symbol>> = Mutex::new(Vec::new());

/// Keeps `symbol` for a forked child.
pub(super) fn remember(symbol: &Symbol) {
    SYMBOLS.lock().push(symbol.clone());
}

/// The symbols kept so far.
pub(super) fn kept() -> MutexGuard<'static, Vec<Symbol>> {
    SYMBOLS.lock()
}

/// Takes the lock and forgets its guard, so that it is held across a fork; [`release_after_fork`]
/// gives it back on both sides.
pub(super) fn hold_across_fork() {
    std::mem::forget(SYMBOLS.lock());
}

/// Releases what [`hold_across_fork`] took.
///
/// # Safety
/// This thread (the one that forked, or its image in the child) called [`hold_across_fork`], and
/// nothing released it since.
pub(super) unsafe fn release_after_fork() {
    // SAFETY: the caller's promise: this thread locked it and forgot the guard.
    unsafe { SYMBOLS.force_unlock() };
}
