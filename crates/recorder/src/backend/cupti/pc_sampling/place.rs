//! Drained PCs as samples of their kernels: a PC names its function, and the kernel is the
//! traced one of that name.

use std::collections::{HashMap, HashSet};
use std::ffi::CString;
use std::sync::Arc;
use std::time::Duration;

use super::drain::Drained;
use super::{Sampler, send};
use crate::pipeline::records::{PcSample, Record, Symbol};
use rocprof_rs_format::pc_sample::{ReasonCategory, SampleMethod};

/// How long a PC waits for its kernel's first activity record: a drain at a module load can
/// come before the flush that brings it, and a flush that is not forced holds back a buffer
/// with a record still open. Past that (a device function, which no launch names), or at the
/// end of the run, it gets an id of its own.
const MAX_WAIT: Duration = Duration::from_secs(10);
/// PCs waiting at most: past it they get their ids at once.
const MAX_PENDING: usize = 1 << 16;
/// PCs queued for description at most, between two descriptions.
const MAX_QUEUED: usize = 1 << 16;
/// PCs described at most.
const MAX_SEEN: usize = 1 << 20;

/// A PC to describe, with its kernel.
pub(super) struct Queued {
    pub(super) kernel_id: u64,
    pub(super) crc: u64,
    pub(super) function_index: u32,
    pub(super) function: CString,
    pub(super) offset: u64,
}

/// What placing keeps.
#[derive(Default)]
pub(super) struct State {
    /// Kernels never traced, given an id of their own.
    stand_ins: HashMap<Arc<str>, u64>,
    /// Each stall reason index asked for, and its category.
    pub(super) categories: HashMap<u32, ReasonCategory>,
    pub(super) dropped: u64,
    pub(super) hardware_full: u64,
    /// PCs whose kernel is not traced yet.
    pending: Vec<Drained>,
    /// PCs placed once already, by kernel, cubin, function and offset.
    seen: HashSet<(u64, u64, u32, u64)>,
    /// New PCs, for the flush thread to describe.
    pub(super) queued: Vec<Queued>,
}

/// When a placing happens, which decides how long a PC may wait for its kernel's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Placing {
    /// At a module load, or after a flush of the activity buffers: a PC waits [`MAX_WAIT`] at
    /// most.
    Running,
    /// At the end of the run: nothing waits any more.
    Last,
}

/// Places `drained` and the PCs still waiting.
pub(super) fn place(s: &Sampler, drained: Vec<Drained>, placing: Placing) {
    let mut state = s.state.lock();
    if drained.is_empty() && state.pending.is_empty() {
        return;
    }
    let mut records = Vec::new();
    let kernel_ids = s.kernel_ids.lock();
    let mut todo = std::mem::take(&mut state.pending);
    todo.extend(drained);
    for pc in todo {
        let name: Arc<str> = match &pc.function {
            Some(f) => Arc::from(f.to_string_lossy().as_ref()),
            None => Arc::from("<unknown function>"),
        };
        let waits =
            placing == Placing::Running && pc.drained_at.elapsed() < MAX_WAIT && state.pending.len() < MAX_PENDING;
        let Some(kernel_id) = kernel_of(&mut state, &kernel_ids, &name, waits, &mut records) else {
            state.pending.push(pc);
            continue;
        };
        for &(reason, samples) in &pc.reasons {
            // Only the reasons asked for: a `_not_issued` twin would count its samples twice.
            let Some(&category) = state.categories.get(&reason) else { continue };
            records.push(Record::PcSample(PcSample {
                agent_id: u64::from(pc.device),
                dispatch_id: 0,
                correlation_id: 0,
                kernel_id,
                code_object_id: pc.crc,
                pc_offset: pc.offset,
                reason: Some(reason),
                instruction_type: None,
                category,
                method: SampleMethod::Cupti,
                samples,
            }));
        }
        let Some(function) = pc.function else { continue };
        let key = (kernel_id, pc.crc, pc.function_index, pc.offset);
        // Seen once queued: a PC the full queue turned away may come again.
        if state.queued.len() < MAX_QUEUED && state.seen.len() < MAX_SEEN && state.seen.insert(key) {
            let (crc, function_index, offset) = (pc.crc, pc.function_index, pc.offset);
            state.queued.push(Queued { kernel_id, crc, function_index, function, offset });
        }
    }
    drop(kernel_ids);
    drop(state);
    send(records);
}

/// The kernel a PC of `function` is in: the traced kernel of that name; where none is traced
/// yet, `None` while it may `wait`, else an id of its own.
fn kernel_of(
    state: &mut State,
    kernel_ids: &HashMap<Arc<str>, u64>,
    function: &Arc<str>,
    wait: bool,
    records: &mut Vec<Record>,
) -> Option<u64> {
    if let Some(id) = kernel_ids.get(function) {
        return Some(*id);
    }
    if wait {
        return None;
    }
    Some(stand_in(state, function, records))
}

/// An id for a kernel sampled but not traced, told to the writer once.
fn stand_in(state: &mut State, name: &Arc<str>, records: &mut Vec<Record>) -> u64 {
    if let Some(id) = state.stand_ins.get(name) {
        return *id;
    }
    // Never a traced kernel's id, which is an address CUPTI's strings live at.
    let id = (1 << 63) | (state.stand_ins.len() as u64 + 1);
    state.stand_ins.insert(name.clone(), id);
    records.push(Record::Symbol(Box::new(Symbol::named(id, name.clone()))));
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stand_in_ids_are_stable_per_name_and_never_an_address() {
        let mut state = State::default();
        let mut records = Vec::new();
        let a = stand_in(&mut state, &Arc::from("a"), &mut records);
        let b = stand_in(&mut state, &Arc::from("b"), &mut records);
        assert_eq!(stand_in(&mut state, &Arc::from("a"), &mut records), a);
        assert_ne!(a, b);
        assert!(a >> 63 == 1 && b >> 63 == 1);
        assert_eq!(records.len(), 2);
    }

    #[test]
    fn a_pc_waits_for_its_kernels_record_while_it_may() {
        let mut state = State::default();
        let traced: HashMap<Arc<str>, u64> = [(Arc::from("traced"), 0x5000)].into();
        let mut records = Vec::new();
        assert_eq!(kernel_of(&mut state, &traced, &Arc::from("traced"), true, &mut records), Some(0x5000));
        assert_eq!(kernel_of(&mut state, &traced, &Arc::from("later"), true, &mut records), None);
        assert!(records.is_empty());
        let stand_in = kernel_of(&mut state, &traced, &Arc::from("later"), false, &mut records).unwrap();
        assert_eq!(stand_in >> 63, 1);
        assert!(matches!(&records[..], [Record::Symbol(s)] if &*s.mangled == "later"));
    }
}
