//! The PC-sample truth table: one row per sample the simulated SDK delivered, and one
//! `pc_samples_dropped` row counting those its buffer dropped. It is its own file (the truth
//! CSV's path with the extension `pc_samples.csv`), since its columns are not the truth CSV's.
//!
//! The driver writes the rows from [`crate::pc_model::samples`] minus the samples the SDK
//! reports dropped; a test tool writes the same rows from the records it received, so equal
//! multisets of rows ([`crate::truth::compare`]) mean every sample arrived exactly.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::pc_model::{HwId, Sample};

/// The columns, in order.
pub const PC_HEADER: &str = "record,dispatch_id,correlation_id,timestamp,code_object_id,code_object_offset,chiplet,shader_engine_id,shader_array_id,cu_or_wgp_id,simd_id,wave_id,hw_workgroup_id,vm_id,queue_id,pipe_id,microengine_id,workgroup_x,workgroup_y,workgroup_z,wave_in_group,exec_mask,wave_issued,inst_type,reason_not_issued,wave_count";

/// Where the PC-sample table of the truth (or of a tool's received rows) at `truth` goes.
pub fn path_beside(truth: &Path) -> PathBuf {
    truth.with_extension("pc_samples.csv")
}

/// Appends the row of one sample (`host_trap_sample` or `stochastic_sample`) to `out`.
pub fn sample_row(sample: &Sample, out: &mut String) {
    let HwId {
        chiplet,
        wave_id,
        simd_id,
        pipe_id,
        cu_or_wgp_id,
        shader_array_id,
        shader_engine_id,
        workgroup_id,
        vm_id,
        queue_id,
        microengine_id,
    } = sample.hw_id;
    let record = if sample.issue.is_some() { "stochastic_sample" } else { "host_trap_sample" };
    let [x, y, z] = sample.workgroup;
    let _ = write!(
        out,
        "{record},{},{},{},{},{},{chiplet},{shader_engine_id},{shader_array_id},{cu_or_wgp_id},{simd_id},{wave_id},\
         {workgroup_id},{vm_id},{queue_id},{pipe_id},{microengine_id},{x},{y},{z},{},{:#x},",
        sample.dispatch_id,
        sample.correlation_id,
        sample.timestamp,
        sample.code_object_id,
        sample.code_object_offset,
        sample.wave_in_group,
        sample.exec_mask,
    );
    match sample.issue {
        Some(issue) => {
            let _ = writeln!(
                out,
                "{},{},{},{}",
                u8::from(issue.wave_issued),
                issue.inst_type,
                issue.reason_not_issued,
                issue.wave_count
            );
        }
        None => out.push_str(",,,\n"),
    }
}

/// Appends the row counting the samples dropped.
pub fn dropped_row(dropped: u64, out: &mut String) {
    let _ = writeln!(out, "pc_samples_dropped,{dropped}");
}

/// The start of a PC-sample file: the simulator's banner and the header.
pub fn file_head() -> String {
    format!("{}{PC_HEADER}\n", crate::truth::banner_line())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pc_model::Issue;

    #[test]
    fn rows_have_every_column_and_leave_host_trap_issue_cells_empty() {
        let mut sample = Sample {
            dispatch_id: 4,
            correlation_id: 9,
            timestamp: 100,
            code_object_id: 1,
            code_object_offset: 0x1108,
            instruction: 2,
            hw_id: HwId { chiplet: 3, ..HwId::default() },
            workgroup: [1, 0, 0],
            wave_in_group: 2,
            exec_mask: u64::MAX,
            issue: None,
        };
        let mut out = String::new();
        sample_row(&sample, &mut out);
        sample.issue = Some(Issue { wave_issued: false, inst_type: 7, reason_not_issued: 3, wave_count: 12 });
        sample_row(&sample, &mut out);
        let lines: Vec<&str> = out.lines().collect();
        let columns = PC_HEADER.split(',').count();
        assert!(lines.iter().all(|l| l.split(',').count() == columns), "{out}");
        assert!(
            lines[0].starts_with("host_trap_sample,4,9,100,1,4360,3,") && lines[0].ends_with(",0xffffffffffffffff,,,,")
        );
        assert!(lines[1].starts_with("stochastic_sample,") && lines[1].ends_with(",0,7,3,12"));
    }
}
