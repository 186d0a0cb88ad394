//! The `pc_sample` table as rocprofv3's PC sampling files, `<pid>_pc_sampling_host_trap.csv`
//! and `<pid>_pc_sampling_stochastic.csv`, with the pinned SDK's columns
//! (`source/lib/output/generateCSV.cpp`): a line per sample, as rocprofv3 writes them, so a
//! row of `samples` N is N lines.
//!
//! What the table does not keep is written as rocprofv3 writes its absence or as 0: each
//! sample's `Sample_Timestamp`, `Exec_Mask` and `Wave_Count` (0), its own dispatch and
//! correlation ids (the row's first sample's, a dispatch of the same kernel). The
//! `Instruction_Comment` is the source `file:line` where known, rocprofv3's own comment for an
//! instruction it could not decode where the instruction is unknown. CUPTI's samples have no
//! rocprofv3 file and are not written.

use rocprof_rs_format::Table;
use rocprof_rs_format::pc_sample::{ReasonCategory, SampleMethod};

use crate::csv_field::quoted;
use crate::error::Result;
use crate::read::batches;

/// The host-trap file's header, as rocprofv3 writes it.
pub const HOST_TRAP: &str =
    "\"Sample_Timestamp\",\"Exec_Mask\",\"Dispatch_Id\",\"Instruction\",\"Instruction_Comment\",\"Correlation_Id\"";
/// The stochastic file's header, as rocprofv3 writes it.
pub const STOCHASTIC: &str = "\"Sample_Timestamp\",\"Exec_Mask\",\"Dispatch_Id\",\"Instruction\",\"Instruction_Comment\",\"Correlation_Id\",\"Wave_Issued_Instruction\",\"Instruction_Type\",\"Stall_Reason\",\"Wave_Count\"";

/// The file names' kinds (after `<pid>_`, before `.csv`).
pub const HOST_TRAP_FILE: &str = "pc_sampling_host_trap";
/// See [`HOST_TRAP_FILE`].
pub const STOCHASTIC_FILE: &str = "pc_sampling_stochastic";

/// rocprofv3's comment on a sample whose instruction it could not decode (a blit kernel,
/// self-modifying code): the PC follows it.
pub const UNDECODED: &str = "Unrecognized code object id, physical virtual address of PC:";

/// rocprofv3's names of an absent instruction type and of no not-issued reason.
const NO_TYPE: &str = "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_NONE";
const NO_REASON: &str = "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NONE";

/// The comment of an instruction: its source line where known, else rocprofv3's for an
/// undecoded one where its text is unknown too.
pub fn comment(instruction: Option<&str>, file: Option<&str>, line: Option<u64>, pc_offset: u64) -> String {
    match (file, line) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        (Some(file), None) => file.to_owned(),
        _ if instruction.is_none() => format!("{UNDECODED}{pc_offset}"),
        _ => String::new(),
    }
}

/// Writes every host-trap and stochastic row of `dir`'s `pc_sample` table through `line`,
/// called with the row's process, file kind, header and CSV line, once per sample.
pub fn write(
    dir: &std::path::Path,
    mut line: impl FnMut(u32, &'static str, &'static str, &str) -> Result<()>,
) -> Result<()> {
    batches(dir, Table::PcSample, |b| {
        let c = |n| b.col(n);
        let (pid, dispatch, correlation, pc) = (c("pid")?, c("dispatch_id")?, c("correlation_id")?, c("pc_offset")?);
        let (instruction, file, source_line) = (c("instruction")?, c("source_file")?, c("source_line")?);
        let (reason, category, itype, method, samples) =
            (c("reason")?, c("category")?, c("instruction_type")?, c("method")?, c("samples")?);
        for i in 0..b.rows() {
            let method = SampleMethod::from_name(method.text(i));
            let text = instruction.opt_text(i);
            let head = format!(
                "0,0,{},{},{},{}",
                dispatch.u64(i),
                quoted(text.unwrap_or("")),
                quoted(&comment(text, file.opt_text(i), source_line.opt_u64(i), pc.u64(i))),
                correlation.u64(i)
            );
            let (kind, header, row) = match method {
                Some(SampleMethod::HostTrap) => (HOST_TRAP_FILE, HOST_TRAP, head),
                Some(SampleMethod::Stochastic) => {
                    let issued = ReasonCategory::from_name(category.text(i)) == Some(ReasonCategory::Issued);
                    let tail = format!(
                        "{},{},{},0",
                        u8::from(issued),
                        quoted(itype.opt_text(i).unwrap_or(NO_TYPE)),
                        quoted(reason.opt_text(i).unwrap_or(NO_REASON))
                    );
                    (STOCHASTIC_FILE, STOCHASTIC, format!("{head},{tail}"))
                }
                Some(SampleMethod::Cupti) | None => continue,
            };
            for _ in 0..samples.u64(i) {
                line(pid.u64(i) as u32, kind, header, &row)?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_is_the_source_line_or_rocprofv3s_note_on_an_undecoded_pc() {
        assert_eq!(comment(Some("s_nop 0"), Some("/src/k.cpp"), Some(42), 8), "/src/k.cpp:42");
        assert_eq!(comment(None, None, None, 4096), "Unrecognized code object id, physical virtual address of PC:4096");
        assert_eq!(comment(Some("s_nop 0"), None, None, 8), "");
    }
}
