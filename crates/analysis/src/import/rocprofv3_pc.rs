//! rocprofv3's PC sampling files (`pc_sampling_host_trap.csv`, `pc_sampling_stochastic.csv`,
//! the pinned SDK's columns: [`crate::export::pc_sampling`]) into `pc_sample` rows, summed as
//! the tool sums them: per process, kernel, instruction and reason.
//!
//! A sample names its dispatch, whose kernel the directory's kernel trace gives (read first);
//! without it the kernel is `<unknown kernel>`. The files carry no PC offsets: a decoded
//! instruction's `pc_offset` is its order of first appearance within its kernel (0, 1, ...),
//! and an undecoded one's is the address rocprofv3's comment gives; `code_object_id` is 0.
//! The `Instruction_Comment` `file:line` becomes the source file and line.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use super::csv_table::Table;
use crate::error::Result;
use crate::export::pc_sampling::UNDECODED;
use rocprof_rs_format::pc_sample::{ReasonCategory, SampleMethod};

/// The kernel of samples whose dispatch the kernel trace lacks.
static UNKNOWN_KERNEL: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from("<unknown kernel>"));

/// What a `pc_sample` row is summed over.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    pid: u32,
    kernel: Arc<str>,
    kernel_id: u64,
    agent_id: u64,
    pc_offset: u64,
    instruction: Option<String>,
    source_file: Option<String>,
    source_line: Option<u32>,
    reason: Option<String>,
    category: ReasonCategory,
    instruction_type: Option<String>,
    method: SampleMethod,
}

/// A row's count and its first sample's ids.
#[derive(Debug, Clone, Copy)]
struct Sum {
    samples: u64,
    dispatch_id: u64,
    correlation_id: u64,
}

/// The dispatches' kernels, as the kernel trace gave them: (process, dispatch) to (name,
/// kernel id, agent).
pub type DispatchKernels = HashMap<(u32, u64), (Arc<str>, u64, u64)>;

/// The samples read so far, summed.
#[derive(Debug, Default)]
pub struct PcSums {
    sums: HashMap<Key, Sum>,
    /// Each kernel's decoded instructions in their order of first appearance.
    places: HashMap<(u32, Arc<str>, String, String), u64>,
    /// Instructions placed so far per (process, kernel).
    placed: HashMap<(u32, Arc<str>), u64>,
}

/// The source file and line of an `Instruction_Comment` (`/path/k.cpp:42`), or the PC of
/// rocprofv3's comment on an undecoded instruction.
pub fn parse_comment(comment: &str) -> (Option<String>, Option<u32>, Option<u64>) {
    if let Some(pc) = comment.strip_prefix(UNDECODED) {
        return (None, None, pc.trim().parse().ok());
    }
    if comment.is_empty() || comment == "nullptr" {
        return (None, None, None);
    }
    match comment.rsplit_once(':') {
        Some((file, line)) if !file.is_empty() && line.parse::<u32>().is_ok() => {
            (Some(file.to_owned()), line.parse().ok(), None)
        }
        _ => (Some(comment.to_owned()), None, None),
    }
}

impl PcSums {
    /// One line of a PC sampling file of `method`.
    pub(super) fn read(&mut self, t: &Table, method: SampleMethod, kernels: &DispatchKernels) -> Result<()> {
        let pid = t.pid()?;
        let (dispatch_id, correlation_id) = (t.u64("Dispatch_Id")?, t.u64("Correlation_Id")?);
        let (_, _) = (t.u64("Sample_Timestamp")?, t.u64("Exec_Mask")?);
        let instruction = Some(t.text("Instruction")?).filter(|i| !i.is_empty()).map(str::to_owned);
        let comment = t.text("Instruction_Comment")?;
        let (source_file, source_line, undecoded_pc) = parse_comment(comment);
        let (reason, category, instruction_type) = match method {
            SampleMethod::Stochastic => {
                let issued = match t.u64("Wave_Issued_Instruction")? {
                    0 => false,
                    1 => true,
                    other => return Err(t.error("Wave_Issued_Instruction", format!("expected 0 or 1, found {other}"))),
                };
                let reason = t.text("Stall_Reason")?;
                let category = if issued { ReasonCategory::Issued } else { ReasonCategory::of_vendor_reason(reason) };
                t.u64("Wave_Count")?;
                (Some(reason.to_owned()), category, Some(t.text("Instruction_Type")?.to_owned()))
            }
            _ => (None, ReasonCategory::Unknown, None),
        };
        let (kernel, kernel_id, agent_id) =
            kernels.get(&(pid, dispatch_id)).cloned().unwrap_or_else(|| (UNKNOWN_KERNEL.clone(), 0, 0));
        let pc_offset = match undecoded_pc {
            Some(pc) => pc,
            None => {
                let place = (pid, kernel.clone(), instruction.clone().unwrap_or_default(), comment.to_owned());
                let placed = self.placed.entry((pid, kernel.clone())).or_default();
                *self.places.entry(place).or_insert_with(|| {
                    *placed += 1;
                    *placed - 1
                })
            }
        };
        let key = Key {
            pid,
            kernel,
            kernel_id,
            agent_id,
            pc_offset,
            instruction,
            source_file,
            source_line,
            reason,
            category,
            instruction_type,
            method,
        };
        self.sums.entry(key).or_insert(Sum { samples: 0, dispatch_id, correlation_id }).samples += 1;
        Ok(())
    }

    /// The sums as `pc_sample` rows, in a stable order.
    pub fn finish(self, rows: &mut rocprof_rs_format::PcSample) {
        let mut sums: Vec<(Key, Sum)> = self.sums.into_iter().collect();
        sums.sort_by(|(a, _), (b, _)| {
            (a.pid, &a.kernel, a.pc_offset, a.method, &a.reason).cmp(&(
                b.pid,
                &b.kernel,
                b.pc_offset,
                b.method,
                &b.reason,
            ))
        });
        for (k, s) in &sums {
            rows.push(rocprof_rs_format::PcSampleRow {
                kernel_name: &k.kernel,
                kernel_id: k.kernel_id,
                agent_id: k.agent_id,
                dispatch_id: s.dispatch_id,
                correlation_id: s.correlation_id,
                code_object_id: 0,
                pc_offset: k.pc_offset,
                instruction: k.instruction.as_deref(),
                source_file: k.source_file.as_deref(),
                source_line: k.source_line,
                reason: k.reason.as_deref(),
                category: k.category.name(),
                instruction_type: k.instruction_type.as_deref(),
                method: k.method.name(),
                samples: s.samples,
                pid: k.pid,
                vendor: &rocprof_rs_format::vendor::AMD,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_give_a_source_line_or_an_undecoded_pc() {
        assert_eq!(parse_comment("/src/k.cpp:42"), (Some("/src/k.cpp".into()), Some(42), None));
        assert_eq!(parse_comment(&format!("{UNDECODED}4096")), (None, None, Some(4096)));
        assert_eq!(parse_comment(""), (None, None, None));
        assert_eq!(parse_comment("C:\\k.cpp"), (Some("C:\\k.cpp".into()), None, None));
    }
}
