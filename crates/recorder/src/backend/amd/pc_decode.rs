//! The SDK's PC sampling records (`ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING`) as the pipeline's
//! [`PcSample`]s, and the names of their codes, told to the writer once.
//!
//! A sample names its dispatch and its PC (code object, offset) but not its agent or kernel:
//! the buffer callback places it by its code object's kernels ([`super::code_objects`]), and
//! the writer by its dispatch's record where that could not (kernel dispatches are traced
//! whenever samples are taken, [`super::session::buffer_kinds`]).

use rocprofiler_sdk_sys as sys;

use crate::pipeline::records::{PcSample, PcSampleNames, Record};
use rocprof_rs_format::pc_sample::{ReasonCategory, SampleMethod};

/// Decodes one PC sampling record; `None` for an invalid sample (the SDK marks those it could
/// not attribute), a record smaller than its kind's (v0) struct, or a kind this build does not
/// know.
///
/// # Safety
/// `payload` must be the payload of a PC-sampling record of `kind` that the SDK passed to the
/// current buffer callback.
pub unsafe fn decode(kind: u32, payload: *const std::ffi::c_void) -> Option<Record> {
    let sample = match kind {
        sys::ROCPROFILER_PC_SAMPLING_RECORD_HOST_TRAP_V0_SAMPLE => {
            // SAFETY: the kind names the payload type, live for the callback.
            let r = unsafe { &*payload.cast::<sys::rocprofiler_pc_sampling_record_host_trap_v0_t>() };
            if (r.size as usize) < std::mem::size_of_val(r) {
                return None;
            }
            let mut sample = placed_at(r.dispatch_id, &r.correlation_id, r.pc, SampleMethod::HostTrap);
            sample.category = ReasonCategory::Unknown;
            sample
        }
        sys::ROCPROFILER_PC_SAMPLING_RECORD_STOCHASTIC_V0_SAMPLE => {
            // SAFETY: as above.
            let r = unsafe { &*payload.cast::<sys::rocprofiler_pc_sampling_record_stochastic_v0_t>() };
            if (r.size as usize) < std::mem::size_of_val(r) {
                return None;
            }
            let issued = r.wave_issued() != 0;
            let reason = r.snapshot.reason_not_issued();
            let mut sample = placed_at(r.dispatch_id, &r.correlation_id, r.pc, SampleMethod::Stochastic);
            sample.category = if issued { ReasonCategory::Issued } else { reason_category(reason) };
            sample.reason = (!issued).then_some(reason);
            sample.instruction_type = Some(u32::from(r.inst_type()));
            sample
        }
        _ => return None,
    };
    Some(Record::PcSample(sample))
}

/// One sample at `pc` of `dispatch`, with no reason yet; agent and kernel left to be placed.
fn placed_at(
    dispatch_id: u64,
    correlation: &sys::rocprofiler_async_correlation_id_t,
    pc: sys::rocprofiler_pc_t,
    method: SampleMethod,
) -> PcSample {
    PcSample {
        agent_id: 0,
        dispatch_id,
        correlation_id: correlation.internal,
        kernel_id: 0,
        code_object_id: pc.code_object_id,
        pc_offset: pc.code_object_offset,
        reason: None,
        instruction_type: None,
        category: ReasonCategory::Unknown,
        method,
        samples: 1,
    }
}

/// The SDK's not-issued reasons, by code, and their categories.
const REASONS: [(u32, &str); 10] = [
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NONE, "NONE"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NO_INSTRUCTION_AVAILABLE, "NO_INSTRUCTION_AVAILABLE"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ALU_DEPENDENCY, "ALU_DEPENDENCY"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT, "WAITCNT"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_INTERNAL_INSTRUCTION, "INTERNAL_INSTRUCTION"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_BARRIER_WAIT, "BARRIER_WAIT"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ARBITER_NOT_WIN, "ARBITER_NOT_WIN"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ARBITER_WIN_EX_STALL, "ARBITER_WIN_EX_STALL"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_OTHER_WAIT, "OTHER_WAIT"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_SLEEP_WAIT, "SLEEP_WAIT"),
];

/// The SDK's instruction types, by code.
const INSTRUCTION_TYPES: [(u32, &str); 17] = [
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_NONE, "NONE"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_VALU, "VALU"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_MATRIX, "MATRIX"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_SCALAR, "SCALAR"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_TEX, "TEX"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS, "LDS"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS_DIRECT, "LDS_DIRECT"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_FLAT, "FLAT"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_EXPORT, "EXPORT"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_MESSAGE, "MESSAGE"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BARRIER, "BARRIER"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BRANCH_NOT_TAKEN, "BRANCH_NOT_TAKEN"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BRANCH_TAKEN, "BRANCH_TAKEN"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_JUMP, "JUMP"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_OTHER, "OTHER"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_NO_INST, "NO_INST"),
    (sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_DUAL_VALU, "DUAL_VALU"),
];

fn reason_category(code: u32) -> ReasonCategory {
    REASONS
        .iter()
        .find(|(c, _)| *c == code)
        .map_or(ReasonCategory::Unknown, |(_, name)| ReasonCategory::of_vendor_reason(name))
}

/// The names of `method`'s codes, for the writer (sent once, before the method's samples).
pub fn names(method: SampleMethod) -> Record {
    let named = |list: &[(u32, &str)]| list.iter().map(|&(code, name)| (code, Box::from(name))).collect();
    Record::PcSampleNames(Box::new(PcSampleNames {
        method,
        reasons: if method == SampleMethod::Stochastic { named(&REASONS) } else { Vec::new() },
        instruction_types: if method == SampleMethod::Stochastic { named(&INSTRUCTION_TYPES) } else { Vec::new() },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sdk_reason_has_a_category_of_its_own_name() {
        for (code, name) in REASONS {
            let category = reason_category(code);
            if name == "NONE" {
                continue;
            }
            assert_ne!(category, ReasonCategory::Unknown, "{name}");
        }
        assert_eq!(
            reason_category(sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT),
            ReasonCategory::MemoryDependency
        );
        assert_eq!(reason_category(99), ReasonCategory::Unknown);
    }

    #[test]
    fn a_stochastic_sample_keeps_its_reason_unless_it_issued() {
        let mut r: sys::rocprofiler_pc_sampling_record_stochastic_v0_t = Default::default();
        r.size = std::mem::size_of_val(&r) as u64;
        r.dispatch_id = 7;
        r.pc.code_object_id = 3;
        r.pc.code_object_offset = 0x140;
        r.set_inst_type(sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS as u8);
        r.snapshot.set_reason_not_issued(sys::ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ALU_DEPENDENCY);
        let kind = sys::ROCPROFILER_PC_SAMPLING_RECORD_STOCHASTIC_V0_SAMPLE;
        // SAFETY: a live record of the kind.
        let Some(Record::PcSample(s)) = (unsafe { decode(kind, (&raw const r).cast()) }) else { panic!("no sample") };
        assert_eq!((s.dispatch_id, s.code_object_id, s.pc_offset), (7, 3, 0x140));
        assert_eq!((s.category, s.reason, s.instruction_type), (ReasonCategory::ExecutionDependency, Some(2), Some(5)));
        r.set_wave_issued(1);
        // SAFETY: as above.
        let Some(Record::PcSample(s)) = (unsafe { decode(kind, (&raw const r).cast()) }) else { panic!("no sample") };
        assert_eq!((s.category, s.reason), (ReasonCategory::Issued, None));
        // SAFETY: an unknown kind reads nothing.
        assert!(unsafe { decode(99, (&raw const r).cast()) }.is_none());
    }
}
