//! Delivering PC samples: each sample of [`rocprof_sim::pc_model::samples`] becomes a record of
//! category `PC_SAMPLING` in the agent's configured buffer when the dispatch completes, and every
//! sample the buffer drops is remembered by index so the driver's truth leaves it out.

use std::collections::HashMap;
use std::sync::Mutex;

use rocprof_sim::pc_model::{DispatchInput, HwId, Sample, Sampling};
use rocprofiler_sdk_sys::*;

use crate::buffer::{Buffer, Item, bytes_of};

/// Dropped sample indices per dispatch.
static DROPPED: Mutex<Option<HashMap<u64, Vec<u64>>>> = Mutex::new(None);

fn hw_id(id: &HwId) -> rocprofiler_pc_sampling_hw_id_v0_t {
    let mut out = rocprofiler_pc_sampling_hw_id_v0_t::default();
    out.set_chiplet(id.chiplet);
    out.set_wave_id(id.wave_id);
    out.set_simd_id(id.simd_id);
    out.set_pipe_id(id.pipe_id);
    out.set_cu_or_wgp_id(id.cu_or_wgp_id);
    out.set_shader_array_id(id.shader_array_id);
    out.set_shader_engine_id(id.shader_engine_id);
    out.set_workgroup_id(id.workgroup_id);
    out.set_vm_id(id.vm_id);
    out.set_queue_id(id.queue_id);
    out.set_microengine_id(id.microengine_id);
    out
}

fn correlation(id: u64) -> rocprofiler_async_correlation_id_t {
    rocprofiler_async_correlation_id_t { internal: id, external: rocprofiler_user_data_t { value: 0 } }
}

fn workgroup(w: [u32; 3]) -> rocprofiler_dim3_t {
    rocprofiler_dim3_t { x: w[0], y: w[1], z: w[2] }
}

fn host_trap(s: &Sample) -> rocprofiler_pc_sampling_record_host_trap_v0_t {
    let mut record = rocprofiler_pc_sampling_record_host_trap_v0_t {
        size: std::mem::size_of::<rocprofiler_pc_sampling_record_host_trap_v0_t>() as u64,
        hw_id: hw_id(&s.hw_id),
        pc: rocprofiler_pc_t { code_object_id: s.code_object_id, code_object_offset: s.code_object_offset },
        exec_mask: s.exec_mask,
        timestamp: s.timestamp,
        dispatch_id: s.dispatch_id,
        correlation_id: correlation(s.correlation_id),
        workgroup_id: workgroup(s.workgroup),
        ..Default::default()
    };
    record.set_wave_in_group(u32::from(s.wave_in_group));
    record
}

/// The arbiter bits of a snapshot: the instruction's pipe issued, or stalled.
fn snapshot(inst_type: u32, issued: bool, reason: u32) -> rocprofiler_pc_sampling_snapshot_v0_t {
    let mut out = rocprofiler_pc_sampling_snapshot_v0_t::default();
    out.set_reason_not_issued(reason);
    let (issue, stall) = (u32::from(issued), u32::from(!issued));
    match inst_type {
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_VALU => {
            out.set_arb_state_issue_valu(issue);
            out.set_arb_state_stall_valu(stall);
        }
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_MATRIX => {
            out.set_arb_state_issue_matrix(issue);
            out.set_arb_state_stall_matrix(stall);
        }
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS => {
            out.set_arb_state_issue_lds(issue);
            out.set_arb_state_stall_lds(stall);
        }
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_SCALAR => {
            out.set_arb_state_issue_scalar(issue);
            out.set_arb_state_stall_scalar(stall);
        }
        ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_FLAT => {
            out.set_arb_state_issue_flat(issue);
            out.set_arb_state_stall_flat(stall);
        }
        _ => {
            out.set_arb_state_issue_misc(issue);
            out.set_arb_state_stall_misc(stall);
        }
    }
    out
}

fn stochastic(s: &Sample) -> rocprofiler_pc_sampling_record_stochastic_v0_t {
    let issue = s.issue.expect("stochastic samples carry their issue state");
    let mut record = rocprofiler_pc_sampling_record_stochastic_v0_t {
        size: std::mem::size_of::<rocprofiler_pc_sampling_record_stochastic_v0_t>() as u64,
        wave_in_group: s.wave_in_group,
        hw_id: hw_id(&s.hw_id),
        pc: rocprofiler_pc_t { code_object_id: s.code_object_id, code_object_offset: s.code_object_offset },
        exec_mask: s.exec_mask,
        workgroup_id: workgroup(s.workgroup),
        wave_count: issue.wave_count,
        timestamp: s.timestamp,
        dispatch_id: s.dispatch_id,
        correlation_id: correlation(s.correlation_id),
        snapshot: snapshot(issue.inst_type, issue.wave_issued, issue.reason_not_issued),
        ..Default::default()
    };
    record.set_wave_issued(u8::from(issue.wave_issued));
    record.set_inst_type(issue.inst_type as u8);
    // gfx94x reports no memory counters (`flags.has_memory_counter` stays 0).
    record
}

/// Places every sample of `dispatch` in `buffer`, one record each, and remembers the dropped.
pub fn deliver(buffer: &'static Buffer, dispatch: &DispatchInput, sampling: Sampling) {
    let mut dropped = Vec::new();
    for (index, sample) in rocprof_sim::pc_model::samples(dispatch, sampling).iter().enumerate() {
        let placed = if sample.issue.is_some() {
            let record = stochastic(sample);
            buffer.emplace(&[Item {
                category: ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING,
                kind: ROCPROFILER_PC_SAMPLING_RECORD_STOCHASTIC_V0_SAMPLE,
                payload: bytes_of(&record),
            }])
        } else {
            let record = host_trap(sample);
            buffer.emplace(&[Item {
                category: ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING,
                kind: ROCPROFILER_PC_SAMPLING_RECORD_HOST_TRAP_V0_SAMPLE,
                payload: bytes_of(&record),
            }])
        };
        if !placed {
            dropped.push(index as u64);
        }
    }
    if !dropped.is_empty() {
        DROPPED.lock().unwrap().get_or_insert_with(HashMap::new).insert(dispatch.dispatch_id, dropped);
    }
}

/// The indices of the samples of `dispatch_id` that were dropped.
pub fn dropped(dispatch_id: u64) -> Vec<u64> {
    DROPPED.lock().unwrap().as_ref().and_then(|m| m.get(&dispatch_id).cloned()).unwrap_or_default()
}
