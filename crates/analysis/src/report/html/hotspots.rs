//! The hotspots section: per sampled kernel, its share of the PC samples and stall mix, and a
//! sortable table of its hottest instructions with their reasons and source lines.

use std::fmt::Write as _;

use super::table::{Cell, Table, escape};
use crate::hotspots::{KernelHotspots, render};
use crate::names::ellipsised;
use crate::units::whole_percent;

/// The section's HTML.
pub fn hotspots(kernels: &[KernelHotspots]) -> String {
    let all: u64 = kernels.iter().map(|k| k.samples).sum();
    let mut out = format!("<p>{all} PC samples in {} kernels.</p>\n", kernels.len());
    for (n, k) in kernels.iter().enumerate() {
        let mix: Vec<String> =
            k.categories.iter().take(4).map(|c| format!("{} {}", c.category, whole_percent(c.share))).collect();
        let _ = write!(
            out,
            "<h3><span class=\"name\" title=\"{0}\">{0}</span></h3>\n<p>{1} samples ({2} of all); mix: {3}</p>\n",
            escape(&ellipsised(&k.kernel_name, super::table::NAME_CHARS)),
            k.samples,
            whole_percent(k.share),
            escape(&mix.join(", "))
        );
        let mut table = Table::new(
            &format!("hotspots-{n}"),
            &[
                ("share", true),
                ("samples", true),
                ("pc", false),
                ("instruction", false),
                ("source", false),
                ("reasons", false),
            ],
        );
        for i in &k.instructions {
            let source = match (&i.source_file, i.source_line) {
                (Some(file), Some(line)) => format!("{file}:{line}"),
                (file, line) => file.clone().or(line.map(|l| format!("line {l}"))).unwrap_or_default(),
            };
            table.row(
                None,
                vec![
                    Cell::Number(whole_percent(i.share), i.share),
                    Cell::Number(i.samples.to_string(), i.samples as f64),
                    Cell::Text(format!("{:#x}+{:#x}", i.code_object_id, i.pc_offset)),
                    Cell::Text(i.instruction.clone().unwrap_or_else(|| "?".into())),
                    Cell::Text(source),
                    Cell::Text(render::reasons(i)),
                ],
            );
        }
        out.push_str(&table.html());
    }
    out
}
