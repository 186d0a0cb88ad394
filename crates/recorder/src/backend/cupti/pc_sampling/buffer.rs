//! A `CUpti_PCSamplingData` of our own: room for a fixed number of PC records, each with room
//! for every stall reason configured. CUPTI writes into it through raw pointers, so nothing in
//! it ever moves or grows once made.

use std::ffi::CStr;

use rocprofiler_sdk_sys::cupti as sys;

/// One PC as CUPTI filled it, read out of the buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcRecord<'a> {
    pub cubin_crc: u64,
    pub pc_offset: u64,
    pub function_index: u32,
    /// CUPTI's `functionName` pointer, which it allocated and the client frees once.
    pub function_pointer: usize,
    pub function: Option<&'a CStr>,
    /// (CUPTI's stall reason index, samples).
    pub reasons: Vec<(u32, u32)>,
}

/// The buffer and the arrays its pointers point into.
pub struct Buffer {
    data: Box<sys::CUpti_PCSamplingData>,
    pcs: Box<[sys::CUpti_PCSamplingPCData]>,
    reasons: Box<[sys::CUpti_PCSamplingStallReason]>,
    reasons_per_pc: usize,
}

// SAFETY: the raw pointers point into the buffer's own boxes (and, once filled, at strings
// CUPTI leaves to the client); whoever holds the buffer holds all of it.
unsafe impl Send for Buffer {}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer").field("pcs", &self.pcs.len()).field("reasons_per_pc", &self.reasons_per_pc).finish()
    }
}

impl Buffer {
    /// Room for `pcs` PCs of `reasons_per_pc` reasons each.
    pub fn new(pcs: usize, reasons_per_pc: usize) -> Buffer {
        let pcs = pcs.max(1);
        let reasons_per_pc = reasons_per_pc.max(1);
        let empty_pc = sys::CUpti_PCSamplingPCData {
            size: size_of::<sys::CUpti_PCSamplingPCData>(),
            cubinCrc: 0,
            pcOffset: 0,
            functionIndex: 0,
            pad: 0,
            functionName: std::ptr::null_mut(),
            stallReasonCount: 0,
            stallReason: std::ptr::null_mut(),
            correlationId: 0,
        };
        let mut buffer = Buffer {
            data: Box::new(sys::CUpti_PCSamplingData {
                size: size_of::<sys::CUpti_PCSamplingData>(),
                collectNumPcs: pcs,
                totalSamples: 0,
                droppedSamples: 0,
                totalNumPcs: 0,
                remainingNumPcs: 0,
                rangeId: 0,
                pPcData: std::ptr::null_mut(),
                nonUsrKernelsTotalSamples: 0,
                hardwareBufferFull: 0,
            }),
            pcs: vec![empty_pc; pcs].into_boxed_slice(),
            reasons: vec![sys::CUpti_PCSamplingStallReason::default(); pcs * reasons_per_pc].into_boxed_slice(),
            reasons_per_pc,
        };
        buffer.data.pPcData = buffer.pcs.as_mut_ptr();
        buffer.reset();
        buffer
    }

    /// Ready for CUPTI to fill: every PC's reason room given back, the counts zeroed.
    pub fn reset(&mut self) {
        let base = self.reasons.as_mut_ptr();
        for (i, pc) in self.pcs.iter_mut().enumerate() {
            // SAFETY: i * reasons_per_pc is within `reasons` (pcs * reasons_per_pc entries).
            pc.stallReason = unsafe { base.add(i * self.reasons_per_pc) };
            pc.stallReasonCount = self.reasons_per_pc;
            pc.functionName = std::ptr::null_mut();
        }
        let d = &mut *self.data;
        d.totalNumPcs = 0;
        d.remainingNumPcs = 0;
        d.totalSamples = 0;
        d.droppedSamples = 0;
        d.nonUsrKernelsTotalSamples = 0;
        d.hardwareBufferFull = 0;
    }

    /// The struct CUPTI fills.
    pub fn raw(&mut self) -> *mut sys::CUpti_PCSamplingData {
        &mut *self.data
    }

    /// What CUPTI counted with the last fill, read as a copy: CUPTI writes the struct through
    /// its own pointer (the configured buffer's, at a module unload, from its threads).
    pub fn header(&self) -> sys::CUpti_PCSamplingData {
        // SAFETY: the buffer's own live, aligned struct; a volatile read of plain integers and
        // pointers, whatever CUPTI wrote.
        unsafe { std::ptr::read_volatile(&raw const *self.data) }
    }

    /// The PCs of the last fill. A count CUPTI reports beyond the room given is cut to it.
    pub fn records(&self) -> impl Iterator<Item = PcRecord<'_>> {
        let filled = self.data.totalNumPcs.min(self.pcs.len());
        self.pcs[..filled].iter().enumerate().map(|(i, pc)| {
            let room = &self.reasons[i * self.reasons_per_pc..(i + 1) * self.reasons_per_pc];
            let count = pc.stallReasonCount.min(self.reasons_per_pc);
            let function = (!pc.functionName.is_null())
                // SAFETY: a NUL-terminated name CUPTI allocated, not freed before the
                // backend's end of run.
                .then(|| unsafe { CStr::from_ptr(pc.functionName) });
            PcRecord {
                cubin_crc: pc.cubinCrc,
                pc_offset: pc.pcOffset,
                function_index: pc.functionIndex,
                function_pointer: pc.functionName as usize,
                function,
                reasons: room[..count]
                    .iter()
                    .filter(|r| r.samples > 0)
                    .map(|r| (r.pcSamplingStallReasonIndex, r.samples))
                    .collect(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fills `buffer` as CUPTI would: PC `i` at offset 16 i, with one reason of i + 1 samples.
    fn fill(buffer: &mut Buffer, pcs: usize, name: &CStr) {
        for i in 0..pcs {
            let reason = buffer.pcs[i].stallReason;
            let pc = &mut buffer.pcs[i];
            pc.cubinCrc = 7;
            pc.pcOffset = 16 * i as u64;
            pc.functionName = name.as_ptr().cast_mut();
            pc.stallReasonCount = 1;
            // SAFETY: the PC's own reason room, given by `reset`.
            unsafe {
                *reason = sys::CUpti_PCSamplingStallReason { pcSamplingStallReasonIndex: 3, samples: i as u32 + 1 }
            };
        }
        buffer.data.totalNumPcs = pcs;
    }

    #[test]
    fn records_read_back_what_cupti_wrote_within_the_room_given() {
        let mut buffer = Buffer::new(4, 2);
        fill(&mut buffer, 3, c"kernel");
        let records: Vec<PcRecord<'_>> = buffer.records().collect();
        assert_eq!(records.len(), 3);
        assert_eq!(records[2].pc_offset, 32);
        assert_eq!(records[2].reasons, vec![(3, 3)]);
        assert_eq!(records[0].function, Some(c"kernel"));
    }

    #[test]
    fn a_count_beyond_the_room_is_cut_and_reset_gives_the_room_back() {
        let mut buffer = Buffer::new(2, 2);
        fill(&mut buffer, 2, c"k");
        buffer.data.totalNumPcs = 1_000_000;
        buffer.pcs[0].stallReasonCount = 99;
        assert_eq!(buffer.records().count(), 2);
        buffer.reset();
        assert_eq!(buffer.records().count(), 0);
        assert!(buffer.pcs.iter().all(|p| p.stallReasonCount == 2 && p.functionName.is_null()));
    }
}
