//! PC samples to `pc_sample` rows, aggregated: samples are summed per kernel, agent, PC,
//! reason, instruction type and method until the writer flushes (or holds too many sums),
//! and only then become rows, so a run that samples for hours writes a row per hot
//! instruction and reason per flush rather than one per sample.
//!
//! A sample names its dispatch, rarely its kernel: the kernel comes from the dispatch's
//! `kernel_dispatch` record, which may arrive after the samples (a dispatch's record comes
//! when it ends). Samples of a dispatch not yet seen wait, summed per dispatch, until a flush
//! finds their kernel, or the flush after that writes them under kernel 0. Samples of a
//! kernel the filters leave out (`--kernel-include-regex`, `--kernel-exclude-regex`) are
//! counted as taken and not written, as its dispatches are not.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Arc, LazyLock};

use parquet::file::metadata::KeyValue;

use super::kernels::Kernel;
use super::records::{PcInstruction, PcSample, PcSampleNames};
use rocprof_rs_format::columns::AddressHasher;
use rocprof_rs_format::pc_sample::{ReasonCategory, SampleMethod};
use rocprof_rs_format::writer::TableWriter;
use rocprof_rs_format::{self as tables, Table};

/// Sums held before they are written without waiting for a flush: bounds the writer's memory
/// whatever the code sampled (a few MB).
const MAX_SUMS: usize = 1 << 16;

/// Dispatches remembered per generation: the map of dispatches to kernels keeps the current
/// generation and the one before, so it stays bounded over millions of dispatches while a
/// sample arriving a little after its dispatch's record still finds it.
const DISPATCHES_PER_GENERATION: usize = 1 << 16;

/// The name of the kernel of samples no dispatch record placed.
static UNKNOWN_KERNEL: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from("<unknown kernel>"));

/// What a row aggregates over: `kernel` is the kernel id, or the dispatch id while the sample
/// waits for its kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    kernel: u64,
    agent_id: u64,
    code_object_id: u64,
    pc_offset: u64,
    reason: Option<u32>,
    instruction_type: Option<u32>,
    category: ReasonCategory,
    method: SampleMethod,
}

/// A row's count, and the first sample's dispatch and correlation ids.
/// What a dispatch's record says of it, for the samples that name only the dispatch.
#[derive(Debug, Clone, Copy)]
struct Launch {
    kernel_id: u64,
    agent_id: u64,
}

#[derive(Debug, Clone, Copy)]
struct Sum {
    samples: u64,
    dispatch_id: u64,
    correlation_id: u64,
    /// Flushes this waiting sum has lived through without its dispatch being found.
    waited: u8,
}

/// Where an instruction came from, as its rows name it.
#[derive(Debug, Clone)]
struct Instruction {
    text: Option<Box<str>>,
    source_file: Option<Arc<str>>,
    source_line: Option<u32>,
}

type IdMap<V> = HashMap<u64, V, BuildHasherDefault<AddressHasher>>;

/// The writer's kernels, by id.
pub type Kernels = IdMap<Kernel>;

/// The `pc_sample` table's writer and what its rows are made from.
#[derive(Debug)]
pub struct PcRows {
    pub(crate) writer: TableWriter<tables::PcSample>,
    /// Whether a backend said it samples: only then does each dispatch record its kernel.
    enabled: bool,
    reasons: HashMap<(SampleMethod, u32), Box<str>>,
    instruction_types: HashMap<(SampleMethod, u32), Box<str>>,
    /// By kernel (0 for offsets from the code object's start), code object and offset.
    instructions: HashMap<(u64, u64, u64), Instruction>,
    /// The dispatches' kernels, this generation's and the one before.
    dispatches: [IdMap<Launch>; 2],
    sums: HashMap<Key, Sum>,
    /// Sums whose dispatch's kernel is not known yet, keyed by the dispatch.
    waiting: HashMap<Key, Sum>,
    /// Samples received.
    pub(crate) taken: u64,
    /// Samples written under kernel 0: their dispatch was never seen.
    pub(crate) unresolved: u64,
}

impl PcRows {
    pub fn new(options: &rocprof_rs_format::files::WriteOptions, metadata: &[KeyValue]) -> PcRows {
        PcRows {
            writer: TableWriter::new(options, Table::PcSample, metadata.to_vec()),
            enabled: false,
            reasons: HashMap::new(),
            instruction_types: HashMap::new(),
            instructions: HashMap::new(),
            dispatches: Default::default(),
            sums: HashMap::new(),
            waiting: HashMap::new(),
            taken: 0,
            unresolved: 0,
        }
    }

    /// Whether dispatches must be told ([`Self::launched`]): a backend samples.
    #[inline]
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// A sampling method's names.
    pub fn name(&mut self, names: &PcSampleNames) {
        self.enabled = true;
        for (code, name) in &names.reasons {
            self.reasons.insert((names.method, *code), name.clone());
        }
        for (code, name) in &names.instruction_types {
            self.instruction_types.insert((names.method, *code), name.clone());
        }
    }

    /// An instruction's text and source.
    pub fn instruction(&mut self, i: &PcInstruction) {
        let instruction =
            Instruction { text: i.text.clone(), source_file: i.source_file.clone(), source_line: i.source_line };
        self.instructions.insert((i.kernel_id, i.code_object_id, i.pc_offset), instruction);
    }

    /// A dispatch's kernel and agent.
    pub fn launched(&mut self, dispatch_id: u64, kernel_id: u64, agent_id: u64) {
        if self.dispatches[0].len() >= DISPATCHES_PER_GENERATION {
            self.dispatches[1] = std::mem::take(&mut self.dispatches[0]);
        }
        self.dispatches[0].insert(dispatch_id, Launch { kernel_id, agent_id });
    }

    fn launch_of(&self, dispatch_id: u64) -> Option<Launch> {
        self.dispatches.iter().find_map(|d| d.get(&dispatch_id).copied())
    }

    /// A sample, summed into its row's count; returns whether the sums are many enough to be
    /// written now ([`Self::flush`]).
    pub fn add(&mut self, s: &PcSample) -> bool {
        self.enabled = true;
        self.taken += u64::from(s.samples);
        let launch = self.launch_of(s.dispatch_id);
        // A library whose samples name their dispatch alone leaves the kernel and
        // the agent to the dispatch's record.
        let agent_id = if s.agent_id != 0 { s.agent_id } else { launch.map_or(0, |l| l.agent_id) };
        let kernel = if s.kernel_id != 0 { Some(s.kernel_id) } else { launch.map(|l| l.kernel_id) };
        let (map, kernel) = match kernel {
            Some(kernel) => (&mut self.sums, kernel),
            None => (&mut self.waiting, s.dispatch_id),
        };
        let key = Key {
            kernel,
            agent_id,
            code_object_id: s.code_object_id,
            pc_offset: s.pc_offset,
            reason: s.reason,
            instruction_type: s.instruction_type,
            category: s.category,
            method: s.method,
        };
        let sum = map.entry(key).or_insert(Sum {
            samples: 0,
            dispatch_id: s.dispatch_id,
            correlation_id: s.correlation_id,
            waited: 0,
        });
        sum.samples += u64::from(s.samples);
        self.sums.len() + self.waiting.len() >= MAX_SUMS
    }

    /// Writes the sums as rows: those waiting for their dispatch take its kernel if it came,
    /// else wait one more flush; at the `last` flush, or after one, they are written under
    /// kernel 0 and counted as unresolved.
    pub fn flush(&mut self, kernels: &Kernels, pid: u32, vendor: &Arc<str>, last: bool) {
        for (mut key, mut sum) in std::mem::take(&mut self.waiting) {
            match self.launch_of(key.kernel) {
                Some(launch) => {
                    key.kernel = launch.kernel_id;
                    if key.agent_id == 0 {
                        key.agent_id = launch.agent_id;
                    }
                }
                None if !last && sum.waited == 0 && self.sums.len() + self.waiting.len() < MAX_SUMS => {
                    sum.waited += 1;
                    self.waiting.insert(key, sum);
                    continue;
                }
                None => {
                    self.unresolved += sum.samples;
                    key.kernel = 0;
                }
            }
            self.sums.entry(key).or_insert(Sum { samples: 0, ..sum }).samples += sum.samples;
        }
        let mut sums: Vec<(Key, Sum)> = std::mem::take(&mut self.sums).into_iter().collect();
        // Rows in a stable order (kernel, PC, reason), whatever the hash map's.
        sums.sort_unstable_by_key(|(k, _)| (k.kernel, k.agent_id, k.code_object_id, k.pc_offset, k.method, k.reason));
        for (key, sum) in sums {
            self.push(&key, &sum, kernels, pid, vendor);
        }
    }

    fn push(&mut self, key: &Key, sum: &Sum, kernels: &Kernels, pid: u32, vendor: &Arc<str>) {
        let kernel = kernels.get(&key.kernel);
        if kernel.is_some_and(|k| !k.selected) {
            return;
        }
        let instruction = self
            .instructions
            .get(&(key.kernel, key.code_object_id, key.pc_offset))
            .or_else(|| self.instructions.get(&(0, key.code_object_id, key.pc_offset)));
        let named = |names: &HashMap<(SampleMethod, u32), Box<str>>, code: Option<u32>| {
            code.map(|code| names.get(&(key.method, code)).map_or_else(|| format!("UNKNOWN_{code}"), |n| n.to_string()))
        };
        let reason = named(&self.reasons, key.reason);
        let instruction_type = named(&self.instruction_types, key.instruction_type);
        self.writer.rows.push(tables::PcSampleRow {
            kernel_name: kernel.map_or(&*UNKNOWN_KERNEL, |k| &k.name),
            kernel_id: key.kernel,
            agent_id: key.agent_id,
            dispatch_id: sum.dispatch_id,
            correlation_id: sum.correlation_id,
            code_object_id: key.code_object_id,
            pc_offset: key.pc_offset,
            instruction: instruction.and_then(|i| i.text.as_deref()),
            source_file: instruction.and_then(|i| i.source_file.as_deref()),
            source_line: instruction.and_then(|i| i.source_line),
            reason: reason.as_deref(),
            category: key.category.name(),
            instruction_type: instruction_type.as_deref(),
            method: key.method.name(),
            samples: sum.samples,
            pid,
            vendor,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocprof_rs_format::columns::Rows as _;

    fn sample(dispatch_id: u64, pc_offset: u64) -> PcSample {
        PcSample {
            agent_id: 0,
            dispatch_id,
            correlation_id: 0,
            kernel_id: 0,
            code_object_id: 1,
            pc_offset,
            reason: None,
            instruction_type: None,
            category: ReasonCategory::Unknown,
            method: SampleMethod::HostTrap,
            samples: 1,
        }
    }

    /// However many PCs a run samples, the sums held stay under their bound: the writer is told
    /// to write them once there are [`MAX_SUMS`], and nothing is lost.
    #[test]
    fn the_sums_held_stay_bounded_and_lose_nothing() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-pc-rows-{}", std::process::id()));
        let options = rocprof_rs_format::files::WriteOptions::new(&dir, "t");
        let mut rows = PcRows::new(&options, &[]);
        rows.launched(5, 9, 2);
        let (kernels, vendor) = (Kernels::default(), Arc::from("test"));
        let mut flushes = 0;
        for pc in 0..(MAX_SUMS as u64 + 10) {
            if rows.add(&sample(5, pc)) {
                rows.flush(&kernels, 1, &vendor, false);
                flushes += 1;
            }
            assert!(rows.sums.len() < MAX_SUMS);
        }
        rows.flush(&kernels, 1, &vendor, true);
        assert_eq!(flushes, 1);
        assert_eq!((rows.writer.rows.len(), rows.taken, rows.unresolved), (MAX_SUMS + 10, MAX_SUMS as u64 + 10, 0));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The map of dispatches keeps two generations: an old dispatch is forgotten, a recent one
    /// found.
    #[test]
    fn dispatches_are_remembered_for_two_generations() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-pc-gen-{}", std::process::id()));
        let mut rows = PcRows::new(&rocprof_rs_format::files::WriteOptions::new(&dir, "t"), &[]);
        for d in 0..(2 * DISPATCHES_PER_GENERATION as u64 + 1) {
            rows.launched(d, d + 1_000_000, 7);
        }
        assert!(rows.launch_of(0).is_none());
        let recent = DISPATCHES_PER_GENERATION as u64 + 3;
        let launch = rows.launch_of(recent).expect("a recent dispatch is known");
        assert_eq!((launch.kernel_id, launch.agent_id), (recent + 1_000_000, 7));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
