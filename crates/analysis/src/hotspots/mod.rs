//! Where inside a kernel the time goes: the `pc_sample` table read back and summed per kernel
//! and instruction, hottest first, each instruction with its reason mix and, where known, its
//! source line ([`hotspots`]); the stall mix as evidence for `analyze`'s class ([`evidence`]).
//!
//! The table holds a row per kernel, PC and reason per flush of the tool's writer, so the
//! readers sum rows: an instruction is its kernel's name, code object and offset, over every
//! process of the dataset.

pub mod evidence;
pub mod render;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};
use rocprof_rs_format::Table;
use rocprof_rs_format::pc_sample::{ReasonCategory, SampleMethod};

/// One `pc_sample` row, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcSampleRow {
    pub pid: u32,
    pub kernel_name: String,
    pub kernel_id: u64,
    pub agent_id: u64,
    pub dispatch_id: u64,
    pub correlation_id: u64,
    pub code_object_id: u64,
    pub pc_offset: u64,
    pub instruction: Option<String>,
    pub source_file: Option<String>,
    pub source_line: Option<u32>,
    pub reason: Option<String>,
    pub category: ReasonCategory,
    pub instruction_type: Option<String>,
    pub method: SampleMethod,
    pub samples: u64,
}

/// Every `pc_sample` row under `dir`, in file order (none for a dataset without samples).
pub fn read_pc_samples(dir: &Path) -> Result<Vec<PcSampleRow>> {
    let mut rows = Vec::new();
    crate::read::batches(dir, Table::PcSample, |b| {
        let col = |name: &str| b.col(name);
        let (pid, kernel, kernel_id, agent, dispatch, correlation) = (
            col("pid")?,
            col("kernel_name")?,
            col("kernel_id")?,
            col("agent_id")?,
            col("dispatch_id")?,
            col("correlation_id")?,
        );
        let (code_object, pc, instruction, file, line) =
            (col("code_object_id")?, col("pc_offset")?, col("instruction")?, col("source_file")?, col("source_line")?);
        let (reason, category, itype, method, samples) =
            (col("reason")?, col("category")?, col("instruction_type")?, col("method")?, col("samples")?);
        for i in 0..b.rows() {
            let bad = |column: &str, value: &str| {
                Error::Invalid(format!("{}: pc_sample column {column}: unknown value {value:?}", dir.display()))
            };
            let category =
                ReasonCategory::from_name(category.text(i)).ok_or_else(|| bad("category", category.text(i)))?;
            let method = SampleMethod::from_name(method.text(i)).ok_or_else(|| bad("method", method.text(i)))?;
            let owned = |c: &rocprof_rs_format::read::Col<'_>| c.opt_text(i).map(str::to_owned);
            rows.push(PcSampleRow {
                pid: pid.u64(i) as u32,
                kernel_name: kernel.text(i).to_owned(),
                kernel_id: kernel_id.u64(i),
                agent_id: agent.u64(i),
                dispatch_id: dispatch.u64(i),
                correlation_id: correlation.u64(i),
                code_object_id: code_object.u64(i),
                pc_offset: pc.u64(i),
                instruction: owned(&instruction),
                source_file: owned(&file),
                source_line: line.opt_u64(i).map(|l| l as u32),
                reason: owned(&reason),
                category,
                instruction_type: owned(&itype),
                method,
                samples: samples.u64(i),
            });
        }
        Ok(())
    })?;
    Ok(rows)
}

/// A reason's samples at an instruction or in a kernel: the vendor's name where it gave one,
/// and its category.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ReasonShare {
    pub reason: Option<String>,
    #[serde(serialize_with = "category_name")]
    #[schemars(schema_with = "category_schema")]
    pub category: ReasonCategory,
    pub samples: u64,
    /// Of the instruction's (or kernel's) samples, 0 to 1.
    pub share: f64,
}

/// One instruction of a kernel and its samples.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Instruction {
    pub code_object_id: u64,
    pub pc_offset: u64,
    pub instruction: Option<String>,
    pub source_file: Option<String>,
    pub source_line: Option<u32>,
    pub samples: u64,
    /// Of its kernel's samples, 0 to 1.
    pub share: f64,
    /// Its reasons, most samples first.
    pub reasons: Vec<ReasonShare>,
}

/// A kernel's hottest instructions.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct KernelHotspots {
    pub kernel_name: String,
    pub samples: u64,
    /// Of every sample of the dataset, 0 to 1.
    pub share: f64,
    /// The kernel's samples per category, most first: its stall mix.
    pub categories: Vec<ReasonShare>,
    /// Instructions the kernel's samples landed on.
    pub instructions_sampled: usize,
    /// The hottest, most samples first, at most the `top` asked for.
    pub instructions: Vec<Instruction>,
}

/// Kernels by their samples, most first, each with its `top` hottest instructions.
pub fn hotspots(rows: &[PcSampleRow], top: usize) -> Vec<KernelHotspots> {
    type Place = (u64, u64);
    let mut kernels: BTreeMap<&str, BTreeMap<Place, Vec<&PcSampleRow>>> = BTreeMap::new();
    for row in rows {
        kernels.entry(&row.kernel_name).or_default().entry((row.code_object_id, row.pc_offset)).or_default().push(row);
    }
    let all: u64 = rows.iter().map(|r| r.samples).sum();
    let mut out: Vec<KernelHotspots> = kernels
        .into_iter()
        .map(|(name, places)| {
            let kernel_rows: Vec<&PcSampleRow> = places.values().flatten().copied().collect();
            let samples: u64 = kernel_rows.iter().map(|r| r.samples).sum();
            let categories = mix(&kernel_rows, samples, |r| (None, r.category));
            let mut instructions: Vec<Instruction> =
                places.into_iter().map(|((co, pc), rows)| instruction(co, pc, &rows, samples)).collect();
            let instructions_sampled = instructions.len();
            instructions.sort_by(|a, b| b.samples.cmp(&a.samples).then(a.pc_offset.cmp(&b.pc_offset)));
            instructions.truncate(top);
            KernelHotspots {
                kernel_name: name.to_owned(),
                samples,
                share: ratio(samples, all),
                categories,
                instructions_sampled,
                instructions,
            }
        })
        .collect();
    out.sort_by(|a, b| b.samples.cmp(&a.samples).then_with(|| a.kernel_name.cmp(&b.kernel_name)));
    out
}

fn instruction(code_object_id: u64, pc_offset: u64, rows: &[&PcSampleRow], kernel_samples: u64) -> Instruction {
    let samples: u64 = rows.iter().map(|r| r.samples).sum();
    // What any row knows of the instruction: rows of an early flush may lack what a later
    // one learnt.
    let known = |f: fn(&PcSampleRow) -> Option<&String>| rows.iter().find_map(|r| f(r).cloned());
    Instruction {
        code_object_id,
        pc_offset,
        instruction: known(|r| r.instruction.as_ref()),
        source_file: known(|r| r.source_file.as_ref()),
        source_line: rows.iter().find_map(|r| r.source_line),
        samples,
        share: ratio(samples, kernel_samples),
        reasons: mix(rows, samples, |r| (r.reason.clone(), r.category)),
    }
}

/// Samples per key, most first (then by key), with their share of `total`.
fn mix(
    rows: &[&PcSampleRow],
    total: u64,
    key: impl Fn(&PcSampleRow) -> (Option<String>, ReasonCategory),
) -> Vec<ReasonShare> {
    let mut sums: BTreeMap<(Option<String>, ReasonCategory), u64> = BTreeMap::new();
    for row in rows {
        *sums.entry(key(row)).or_default() += row.samples;
    }
    let mut shares: Vec<ReasonShare> = sums
        .into_iter()
        .map(|((reason, category), samples)| ReasonShare { reason, category, samples, share: ratio(samples, total) })
        .collect();
    shares.sort_by_key(|s| std::cmp::Reverse(s.samples));
    shares
}

/// `category`'s schema: the one vocabulary's names.
fn category_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = ReasonCategory::ALL.iter().map(|c| c.name()).collect();
    schemars::json_schema!({ "type": "string", "enum": names })
}

/// A category as JSON: its column value (the format crate has no serde).
fn category_name<S: serde::Serializer>(category: &ReasonCategory, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(category.name())
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 { 0.0 } else { part as f64 / whole as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn row(kernel: &str, pc: u64, reason: &str, samples: u64) -> PcSampleRow {
        PcSampleRow {
            pid: 1,
            kernel_name: kernel.into(),
            kernel_id: 1,
            agent_id: 0,
            dispatch_id: 1,
            correlation_id: 1,
            code_object_id: 3,
            pc_offset: pc,
            instruction: (pc == 0x40).then(|| "ds_read_b32 v1, v2".into()),
            source_file: None,
            source_line: (pc == 0x40).then_some(12),
            reason: Some(reason.into()),
            category: ReasonCategory::of_vendor_reason(reason),
            instruction_type: None,
            method: SampleMethod::Stochastic,
            samples,
        }
    }

    #[test]
    fn instructions_are_summed_over_rows_and_ranked_within_their_kernel() {
        let rows = [
            row("lds", 0x40, "ARBITER_WIN_EX_STALL", 30),
            row("lds", 0x40, "WAITCNT", 10),
            row("lds", 0x40, "ARBITER_WIN_EX_STALL", 20), // a second flush's row
            row("lds", 0x10, "NONE", 15),
            row("lds", 0x20, "ALU_DEPENDENCY", 25),
            row("copy", 0x8, "WAITCNT", 90),
        ];
        let h = hotspots(&rows, 2);
        let kernels: Vec<(&str, u64)> = h.iter().map(|k| (k.kernel_name.as_str(), k.samples)).collect();
        assert_eq!(kernels, [("lds", 100), ("copy", 90)]);
        let lds = &h[0];
        assert_eq!((lds.instructions_sampled, lds.instructions.len()), (3, 2));
        let hot = &lds.instructions[0];
        assert_eq!((hot.pc_offset, hot.samples, hot.share), (0x40, 60, 0.6));
        assert_eq!(hot.source_line, Some(12));
        assert_eq!(hot.reasons[0].samples, 50);
        assert_eq!(hot.reasons[0].category, ReasonCategory::Throttle);
        assert_eq!(lds.instructions[1].pc_offset, 0x20);
        assert_eq!(lds.categories[0].category, ReasonCategory::Throttle);
        assert!((lds.share - 100.0 / 190.0).abs() < 1e-12);
    }
}
