//! Hotspots as text for a terminal: per kernel, its share of the samples and stall mix, then
//! its hottest instructions, each with its reasons and source line. Names and instruction
//! text come from the profiled program, so they reach the terminal through
//! [`crate::terminal`]'s escaping, which the caller's writer applies.

use std::io::Write;

use super::{Instruction, KernelHotspots, ReasonShare};
use crate::units::whole_percent;

/// Reasons listed per instruction; the rest are summed as `other reasons`.
const REASONS_SHOWN: usize = 3;

/// Writes `kernels` (at most `top_kernels` of them) as text.
pub fn text(kernels: &[KernelHotspots], top_kernels: usize, out: &mut impl Write) -> std::io::Result<()> {
    let all: u64 = kernels.iter().map(|k| k.samples).sum();
    writeln!(out, "PC samples: {all} in {} kernels", kernels.len())?;
    for k in kernels.iter().take(top_kernels) {
        writeln!(out, "\n{} — {} samples ({} of all)", k.kernel_name, k.samples, whole_percent(k.share))?;
        writeln!(out, "  mix: {}", shares(&k.categories, |r| r.category.name().to_owned()))?;
        for i in &k.instructions {
            writeln!(out, "  {}", instruction_line(i))?;
        }
        let shown = k.instructions.len();
        if k.instructions_sampled > shown {
            writeln!(out, "  ({} more instructions sampled)", k.instructions_sampled - shown)?;
        }
    }
    if kernels.len() > top_kernels {
        writeln!(out, "\n({} more kernels sampled)", kernels.len() - top_kernels)?;
    }
    Ok(())
}

/// One instruction: its share, place, text, source and reasons.
pub fn instruction_line(i: &Instruction) -> String {
    let text = i.instruction.as_deref().unwrap_or("?");
    let source = match (&i.source_file, i.source_line) {
        (Some(file), Some(line)) => format!(" at {file}:{line}"),
        (None, Some(line)) => format!(" at line {line}"),
        (Some(file), None) => format!(" in {file}"),
        (None, None) => String::new(),
    };
    let reasons = reasons(i);
    format!(
        "{:>4} {:>8}  {:#x}+{:#x}  {text}{source}  [{reasons}]",
        whole_percent(i.share),
        i.samples,
        i.code_object_id,
        i.pc_offset
    )
}

/// An instruction's reasons, the vendor's names (the category where it gave none), largest
/// first: `WAITCNT 60%, ALU_DEPENDENCY 40%`.
pub fn reasons(i: &Instruction) -> String {
    shares(&i.reasons, |r| r.reason.clone().unwrap_or_else(|| r.category.name().to_owned()))
}

/// The first few shares as `name N%`, the rest summed.
fn shares(list: &[ReasonShare], name: impl Fn(&ReasonShare) -> String) -> String {
    let mut parts: Vec<String> =
        list.iter().take(REASONS_SHOWN).map(|r| format!("{} {}", name(r), whole_percent(r.share))).collect();
    let rest: f64 = list.iter().skip(REASONS_SHOWN).map(|r| r.share).sum();
    if list.len() > REASONS_SHOWN {
        parts.push(format!("other reasons {}", whole_percent(rest)));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::super::tests::row;
    use super::*;

    #[test]
    fn a_kernel_prints_its_mix_and_its_hottest_instruction_with_its_source() {
        let rows = [row("lds", 0x40, "WAITCNT", 75), row("lds", 0x44, "ALU_DEPENDENCY", 25)];
        let mut out = Vec::new();
        text(&super::super::hotspots(&rows, 1), 5, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("lds — 100 samples (100% of all)"), "{text}");
        assert!(text.contains("mix: memory_dependency 75%, execution_dependency 25%"), "{text}");
        assert!(text.contains(" 75%       75  0x3+0x40  ds_read_b32 v1, v2 at line 12  [WAITCNT 100%]"), "{text}");
        assert!(text.contains("(1 more instructions sampled)"), "{text}");
    }
}
