//! Where each loaded code object's kernels start, from the code-object callbacks: a PC sample
//! names its code object and an offset into it, and the kernel whose code starts last at or
//! before that offset is the one sampled (the SDK lays a code object's kernels out one after
//! another). The agent is the code object's. This places a sample without its dispatch's
//! record, which the writer uses only where this map has nothing.

use parking_lot::Mutex;

/// One loaded code object.
#[derive(Debug, Default)]
struct CodeObject {
    agent_id: u64,
    load_base: u64,
    /// (offset of the kernel's first instruction from `load_base`, kernel id), sorted.
    kernels: Vec<(u64, u64)>,
}

/// Code objects by id. Written on the rare load, read by the samples' buffer callback with
/// `try_lock` (a sample it cannot place now is placed by the writer), and held across a fork
/// ([`hold_across_fork`]).
static CODE_OBJECTS: Mutex<Vec<(u64, CodeObject)>> = Mutex::new(Vec::new());

/// A code object loaded at `load_base` on `agent_id`.
pub(super) fn loaded(code_object_id: u64, agent_id: u64, load_base: u64) {
    let mut objects = CODE_OBJECTS.lock();
    match objects.iter_mut().find(|(id, _)| *id == code_object_id) {
        Some((_, object)) => (object.agent_id, object.load_base) = (agent_id, load_base),
        None => objects.push((code_object_id, CodeObject { agent_id, load_base, kernels: Vec::new() })),
    }
}

/// A kernel of a loaded code object, whose first instruction is at `entry` (an address).
pub(super) fn kernel(code_object_id: u64, kernel_id: u64, entry: u64) {
    let mut objects = CODE_OBJECTS.lock();
    let Some((_, object)) = objects.iter_mut().find(|(id, _)| *id == code_object_id) else { return };
    let Some(offset) = entry.checked_sub(object.load_base) else { return };
    if let Err(at) = object.kernels.binary_search(&(offset, kernel_id)) {
        object.kernels.insert(at, (offset, kernel_id));
    }
}

/// Places samples: `place(code_object_id, offset)` gives (kernel id, agent id) where known.
/// `None` where the map is being written this instant: nothing waits for it.
pub(super) fn placer() -> Option<Placer> {
    CODE_OBJECTS.try_lock().map(Placer)
}

/// The map, held while a buffer of samples is placed.
pub(super) struct Placer(parking_lot::MutexGuard<'static, Vec<(u64, CodeObject)>>);

impl Placer {
    /// The kernel and agent of the instruction at `offset` in `code_object_id`, where known.
    pub(super) fn place(&self, code_object_id: u64, offset: u64) -> Option<(u64, u64)> {
        let (_, object) = self.0.iter().find(|(id, _)| *id == code_object_id)?;
        let after = object.kernels.partition_point(|&(start, _)| start <= offset);
        let (_, kernel_id) = object.kernels.get(after.checked_sub(1)?)?;
        Some((*kernel_id, object.agent_id))
    }
}

/// Takes the lock and forgets its guard, so that it is held across a fork; [`release_after_fork`]
/// gives it back on both sides.
pub(super) fn hold_across_fork() {
    std::mem::forget(CODE_OBJECTS.lock());
}

/// Releases what [`hold_across_fork`] took.
///
/// # Safety
/// This thread (the one that forked, or its image in the child) called [`hold_across_fork`], and
/// nothing released it since.
pub(super) unsafe fn release_after_fork() {
    // SAFETY: the caller's promise: this thread locked it and forgot the guard.
    unsafe { CODE_OBJECTS.force_unlock() };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pc_is_placed_in_the_kernel_that_starts_last_before_it() {
        loaded(9001, 4, 0x1000_0000);
        kernel(9001, 20, 0x1000_2000);
        kernel(9001, 10, 0x1000_1000);
        kernel(9002, 30, 0x5000); // an unknown code object: ignored
        let placer = placer().expect("no one else holds the map");
        assert_eq!(placer.place(9001, 0x1000), Some((10, 4)));
        assert_eq!(placer.place(9001, 0x1fff), Some((10, 4)));
        assert_eq!(placer.place(9001, 0x2004), Some((20, 4)));
        assert_eq!(placer.place(9001, 0x0fff), None, "before the first kernel");
        assert_eq!(placer.place(9002, 0x10), None);
    }
}
