//! What a `results.json` names before its records: `kernel_symbols` and `code_objects` (arrays
//! indexed by id, an empty entry at 0 and in every gap, as `metadata.cpp` builds them), and
//! `counters` (one entry per agent and counter collected).
//!
//! Symbols go through an external sort by process and kernel id, so any number of kernels fit
//! in bounded memory. A dispatch whose kernel has no `kernel_symbol` row gets an entry made
//! from the dispatch itself, since readers look every dispatch's name up there. The dataset
//! records no code objects beyond their ids, so their entries hold the id alone.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;

use super::out::Outputs;
use super::records::Handle;
use crate::error::{Error, Result};
use crate::read::Batch;
use crate::spill::{Key, Sorter};

/// The most empty entries an id array may need before one id: kernel ids that are pointers
/// (CUPTI's) would make an array of billions.
const MAX_GAP: u64 = 1 << 20;

/// A kernel symbol, as the sort carries it.
pub(super) use crate::export::symbols::KernelSymbol as Symbol;

impl Symbol {
    fn encode(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(72 + self.name.len() + self.mangled.len());
        for v in [self.code_object_id, self.name.len() as u64].iter().chain(&self.sizes) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        bytes.extend_from_slice(self.name.as_bytes());
        bytes.extend_from_slice(self.mangled.as_bytes());
        bytes
    }

    fn decode(kernel_id: u64, bytes: &[u8]) -> Option<Symbol> {
        let word = |i: usize| bytes.get(i * 8..i * 8 + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
        let name_len = usize::try_from(word(1)?).ok()?;
        let texts = bytes.get(64..)?;
        let sizes = [word(2)?, word(3)?, word(4)?, word(5)?, word(6)?, word(7)?];
        Some(Symbol {
            kernel_id,
            code_object_id: word(0)?,
            name: String::from_utf8(texts.get(..name_len)?.to_vec()).ok()?,
            mangled: String::from_utf8(texts.get(name_len..)?.to_vec()).ok()?,
            sizes,
        })
    }
}

/// `kernel_symbols[i]` (`kernel_symbol_info`: the SDK's symbol, then the tool's three names).
#[derive(Debug, Serialize)]
struct KernelSymbol<'a> {
    size: u64,
    kernel_id: u64,
    code_object_id: u64,
    kernel_name: &'a str,
    kernel_object: u64,
    kernarg_segment_size: u64,
    kernarg_segment_alignment: u64,
    group_segment_size: u64,
    private_segment_size: u64,
    sgpr_count: u64,
    arch_vgpr_count: u64,
    accum_vgpr_count: u64,
    kernel_code_entry_byte_offset: u64,
    kernel_address: Handle,
    formatted_kernel_name: &'a str,
    demangled_kernel_name: &'a str,
    truncated_kernel_name: &'a str,
}

impl<'a> KernelSymbol<'a> {
    /// The entry; the dataset's name is the formatted and the demangled one (it is demangled
    /// unless the run asked otherwise), and the mangled one is written as the dataset keeps it.
    fn of(s: &'a Symbol) -> KernelSymbol<'a> {
        let [kernarg, lds, scratch, sgpr, vgpr, accum] = s.sizes;
        KernelSymbol {
            size: 0,
            kernel_id: s.kernel_id,
            code_object_id: s.code_object_id,
            kernel_name: &s.mangled,
            kernel_object: 0,
            kernarg_segment_size: kernarg,
            kernarg_segment_alignment: 0,
            group_segment_size: lds,
            private_segment_size: scratch,
            sgpr_count: sgpr,
            arch_vgpr_count: vgpr,
            accum_vgpr_count: accum,
            kernel_code_entry_byte_offset: 0,
            kernel_address: Handle { handle: 0 },
            formatted_kernel_name: &s.name,
            demangled_kernel_name: &s.name,
            truncated_kernel_name: rocprof_rs_format::kernel_names::truncated(&s.name),
        }
    }
}

/// `code_objects[i]`: `rocprofiler_callback_tracing_code_object_load_data_t`, storage NONE.
#[derive(Debug, Serialize)]
struct CodeObject {
    size: u64,
    code_object_id: u64,
    agent_id: Handle,
    uri: &'static str,
    load_base: u64,
    load_size: u64,
    load_delta: u64,
    storage_type: u64,
}

/// `counters[i]`: the agent, then `rocprofiler_counter_info_v1_t`.
#[derive(Debug, Serialize)]
struct CounterInfo<'a> {
    agent_id: Handle,
    id: Handle,
    is_constant: u64,
    is_derived: u64,
    name: &'a str,
    description: &'static str,
    block: &'static str,
    expression: &'static str,
    dimensions: [(); 0],
    instances: [(); 0],
}

/// Source of a symbol in the sort: the symbol table first, a dispatch's stand-in after.
const FROM_TABLE: u64 = 0;
const FROM_DISPATCH: u64 = 1;

/// The catalog, gathered in one pass over the tables before anything is written.
#[derive(Debug, Default)]
pub(super) struct Catalog {
    symbols: Sorter,
    code_objects: BTreeSet<(u32, u64)>,
    /// Per process, each counter's agents.
    counters: BTreeMap<u32, BTreeMap<String, BTreeSet<u64>>>,
    /// Per process, each counter's id: its place in name order, from 1.
    counter_ids: HashMap<u32, HashMap<String, u64>>,
}

impl Catalog {
    pub fn symbol(&mut self, pid: u32, s: &Symbol) -> Result<()> {
        self.code_objects.insert((pid, s.code_object_id));
        self.symbols.push(&Key::new().u64(u64::from(pid)).u64(s.kernel_id).u64(FROM_TABLE).0, &s.encode())
    }

    /// A stand-in for each kernel of a `kernel_dispatch` batch, `seen` keeping one per kernel
    /// and batch.
    pub fn dispatch_symbols(&mut self, b: &Batch<'_>, seen: &mut HashSet<(u32, u64)>) -> Result<()> {
        let c = |n| b.col(n);
        let (pid, kernel, name, mangled, kernarg) =
            (c("pid")?, c("kernel_id")?, c("kernel_name")?, c("mangled_name")?, c("kernarg_size")?);
        let (lds, scratch, sgpr, vgpr, accum) =
            (c("shared_mem")?, c("scratch_size")?, c("sgpr")?, c("regs")?, c("accum_vgpr")?);
        seen.clear();
        for i in 0..b.rows() {
            let (p, id) = (pid.u64(i) as u32, kernel.u64(i));
            if !seen.insert((p, id)) {
                continue;
            }
            let s = Symbol {
                kernel_id: id,
                code_object_id: 0,
                name: name.text(i).to_owned(),
                mangled: mangled.text(i).to_owned(),
                sizes: [kernarg.u64(i), lds.u64(i), scratch.u64(i), sgpr.u64(i), vgpr.u64(i), accum.u64(i)],
            };
            self.symbols.push(&Key::new().u64(u64::from(p)).u64(id).u64(FROM_DISPATCH).0, &s.encode())?;
        }
        Ok(())
    }

    pub fn counter(&mut self, pid: u32, agent: u64, name: &str) {
        let agents = self.counters.entry(pid).or_default();
        match agents.get_mut(name) {
            Some(set) => {
                set.insert(agent);
            }
            None => {
                agents.insert(name.to_owned(), BTreeSet::from([agent]));
            }
        }
    }

    /// Numbers the counters, once all are known.
    pub fn number_counters(&mut self) {
        self.counter_ids = self
            .counters
            .iter()
            .map(|(&pid, names)| (pid, names.keys().zip(1..).map(|(n, id)| (n.clone(), id)).collect()))
            .collect();
    }

    /// Counter `name`'s id in process `pid`.
    pub fn counter_id(&self, pid: u32, name: &str) -> u64 {
        self.counter_ids.get(&pid).and_then(|ids| ids.get(name)).copied().unwrap_or(0)
    }

    /// `counters`.
    pub fn write_counters(&self, out: &mut Outputs) -> Result<()> {
        out.begin_array("counters")?;
        for (&pid, names) in &self.counters {
            for (name, agents) in names {
                for &agent in agents {
                    let info = CounterInfo {
                        agent_id: Handle { handle: agent },
                        id: Handle { handle: self.counter_id(pid, name) },
                        is_constant: 0,
                        is_derived: 0,
                        name,
                        description: "",
                        block: "",
                        expression: "",
                        dimensions: [],
                        instances: [],
                    };
                    out.item(pid, &info, false)?;
                }
            }
        }
        out.end_array()
    }

    /// `code_objects`.
    pub fn write_code_objects(&self, out: &mut Outputs) -> Result<()> {
        out.begin_array("code_objects")?;
        let mut next: HashMap<u32, u64> = HashMap::new();
        for &(pid, id) in &self.code_objects {
            let slot = next.entry(pid).or_insert(0);
            fill(out, pid, slot, id, "code_objects", &code_object(0))?;
            if *slot == id {
                out.item(pid, &code_object(id), false)?;
                *slot = id + 1;
            }
        }
        for pid in out.pids().collect::<Vec<_>>() {
            if !next.contains_key(&pid) {
                out.item(pid, &code_object(0), false)?;
            }
        }
        out.end_array()
    }

    /// `kernel_symbols`, in id order, from the sort; a kernel's entry is its symbol's where it
    /// has one.
    pub fn write_symbols(&mut self, out: &mut Outputs) -> Result<()> {
        out.begin_array("kernel_symbols")?;
        let sorted = std::mem::take(&mut self.symbols).finish()?;
        let mut reader = sorted.reader()?;
        let mut next: HashMap<u32, u64> = HashMap::new();
        let mut last = None;
        while let Some((key, value)) = reader.next()? {
            let word = |i: usize| key.get(i * 8..i * 8 + 8).map(|b| u64::from_be_bytes(b.try_into().expect("8 bytes")));
            let (pid, id) = match (word(0), word(1)) {
                (Some(pid), Some(id)) => (pid as u32, id),
                _ => return Err(broken()),
            };
            if last.replace((pid, id)) == Some((pid, id)) {
                continue;
            }
            let symbol = Symbol::decode(id, value).ok_or_else(broken)?;
            let slot = next.entry(pid).or_insert(0);
            fill(out, pid, slot, id, "kernel_symbols", &KernelSymbol::of(&EMPTY))?;
            out.item(pid, &KernelSymbol::of(&symbol), false)?;
            *slot = id + 1;
        }
        for pid in out.pids().collect::<Vec<_>>() {
            if !next.contains_key(&pid) {
                out.item(pid, &KernelSymbol::of(&EMPTY), false)?;
            }
        }
        out.end_array()
    }
}

static EMPTY: Symbol =
    Symbol { kernel_id: 0, code_object_id: 0, name: String::new(), mangled: String::new(), sizes: [0; 6] };

fn code_object(id: u64) -> CodeObject {
    CodeObject {
        size: 0,
        code_object_id: id,
        agent_id: Handle { handle: 0 },
        uri: "",
        load_base: 0,
        load_size: 0,
        load_delta: 0,
        storage_type: 0,
    }
}

/// Writes empty entries of an id array from `*next` up to `id`; refuses ids too sparse for
/// an array.
fn fill<T: Serialize>(out: &mut Outputs, pid: u32, next: &mut u64, id: u64, array: &str, empty: &T) -> Result<()> {
    if id.saturating_sub(*next) > MAX_GAP {
        return Err(Error::Invalid(format!(
            "process {pid}: {array} id {id} would need {} empty entries before it: rocprofv3 indexes {array} \
             by id, and ids this sparse (CUPTI's kernel ids are addresses) do not fit it",
            id - *next
        )));
    }
    while *next < id {
        out.item(pid, empty, false)?;
        *next += 1;
    }
    Ok(())
}

fn broken() -> Error {
    Error::Invalid("rocprofv3 JSON export: a kernel symbol did not come back from the external sort".into())
}
