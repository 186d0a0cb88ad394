//! One context's sampling: switched on and configured, drained, and stopped.

use std::ffi::CString;
use std::time::Instant;

use rocprofiler_sdk_sys::cupti::{self as sys, Cupti, PcSamplingApi};

use super::Sampler;
use super::buffer::Buffer;
use super::choice::Period;
use crate::backend::cupti::api::{Context, Failed, activity, pc_sampling as api};

/// PCs one drain takes at once (CUPTI's sample takes 500 to 5000).
const PCS_PER_DRAIN: usize = 4096;
/// PCs the configured buffer holds: what CUPTI writes at a module unload and at the end.
const PCS_CONFIGURED: usize = 8192;
/// Drains of one context per flush at most.
const DRAINS_PER_FLUSH: usize = 64;
/// CUPTI's buffer of decoded PCs between two drains (1 MB, about 5500 PCs with every reason,
/// by default): a full one stops CUPTI decoding the hardware's buffer, which then overflows.
const SCRATCH_BYTES: u64 = 16 << 20;

/// One context's sampling.
pub(super) struct Sampled {
    pub(super) context: Context,
    device: u32,
    /// The stall reason indices configured: CUPTI keeps the pointer.
    _indices: Box<[u32]>,
    /// The buffer given at configuration.
    configured: Buffer,
    /// The buffer drains fill.
    drain: Buffer,
}

/// A PC as drained, before it is placed.
pub(super) struct Drained {
    pub(super) device: u32,
    pub(super) crc: u64,
    pub(super) offset: u64,
    pub(super) function_index: u32,
    pub(super) function: Option<CString>,
    pub(super) reasons: Vec<(u32, u32)>,
    /// When it was drained: it waits a while for its kernel's activity record.
    pub(super) drained_at: Instant,
}

/// A context whose sampling would not start: why, and, where CUPTI may hold pointers into
/// them, the buffers to keep alive.
pub(super) struct NotStarted {
    pub(super) failed: Failed,
    pub(super) kept: Option<Box<Sampled>>,
}

/// A context sampling, and the stall reasons selected (CUPTI's index, name).
pub(super) type Started = (Sampled, Vec<(u32, String)>);

/// Enables and configures sampling on `context`.
pub(super) fn start(
    cupti: &Cupti,
    api: &PcSamplingApi,
    period: &Period,
    context: Context,
) -> Result<Started, Box<NotStarted>> {
    let not_started = |failed, kept| Box::new(NotStarted { failed, kept });
    api::enable(cupti, api, context).map_err(|f| not_started(f, None))?;
    let reasons = match api::stall_reasons(cupti, api, context) {
        Ok(reasons) => reasons,
        Err(failed) => {
            let _ = api::disable(cupti, api, context);
            return Err(not_started(failed, None));
        }
    };
    // Room for every reason the device has, not only those selected, as CUPTI's own sample
    // gives: CUPTI may write a PC's reasons past a smaller room.
    let room = reasons.len();
    let selected: Vec<(u32, String)> = reasons.into_iter().filter(|(_, n)| !n.ends_with("_not_issued")).collect();
    let device = activity::device_of(cupti, context).unwrap_or(0);
    let mut sampled = Sampled {
        context,
        device,
        _indices: selected.iter().map(|(i, _)| *i).collect(),
        configured: Buffer::new(PCS_CONFIGURED, room),
        drain: Buffer::new(PCS_PER_DRAIN, room),
    };
    let mut attributes = [
        attribute(sys::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD, [u64::from(period.exponent), 0]),
        attribute(
            sys::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON,
            [sampled._indices.len() as u64, sampled._indices.as_ptr() as u64],
        ),
        attribute(
            sys::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE,
            [u64::from(sys::CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS), 0],
        ),
        attribute(
            sys::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER,
            [sampled.configured.raw() as u64, 0],
        ),
        attribute(sys::CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE, [SCRATCH_BYTES, 0]),
    ];
    if let Err(failed) = api::configure(cupti, api, context, &mut attributes) {
        // CUPTI may have taken some of the attributes, and with them the pointers.
        let disabled = api::disable(cupti, api, context).is_ok();
        return Err(not_started(failed, (!disabled).then(|| Box::new(sampled))));
    }
    Ok((sampled, selected))
}

/// One configuration attribute; `data` is the first two words of the header's union.
fn attribute(kind: u32, data: [u64; 2]) -> sys::CUpti_PCSamplingConfigurationInfo {
    sys::CUpti_PCSamplingConfigurationInfo {
        attributeType: kind,
        attributeStatus: 0,
        attributeData: [data[0], data[1], 0],
    }
}

/// Drains, stops sampling and reads what CUPTI wrote into the configured buffer. Returns the
/// context where CUPTI would not stop, so its buffers stay alive.
pub(super) fn stop(
    s: &Sampler,
    cupti: &Cupti,
    api: &PcSamplingApi,
    mut sampled: Sampled,
    into: &mut Vec<Drained>,
) -> Option<Sampled> {
    drain(s, cupti, api, &mut sampled, into);
    sampled.configured.reset();
    if let Err(failed) = api::disable(cupti, api, sampled.context) {
        s.say_once(&format!("PC samples at the end may be lost: {failed}"));
        return Some(sampled);
    }
    // Disable joined CUPTI's threads and copied what it held: the buffers are ours again.
    read(s, &sampled.configured, sampled.device, into);
    None
}

/// Moves what CUPTI holds for one context into `into`: until a drain comes back empty or
/// CUPTI says it has no more, in its own buffer or in the configured one (which it fills at a
/// module unload, and which draining empties).
pub(super) fn drain(s: &Sampler, cupti: &Cupti, api: &PcSamplingApi, sampled: &mut Sampled, into: &mut Vec<Drained>) {
    let mut full = false;
    for _ in 0..DRAINS_PER_FLUSH {
        sampled.drain.reset();
        // SAFETY: the context's drain buffer, made with room for its PCs and every reason.
        let got = unsafe { api::get_data(cupti, api, sampled.context, sampled.drain.raw()) };
        match got {
            Ok(()) => {}
            // Once per drain, however many calls of it say so.
            Err(failed) if failed.result == sys::CUPTI_ERROR_OUT_OF_MEMORY => {
                if !std::mem::replace(&mut full, true) {
                    s.state.lock().hardware_full += 1;
                }
            }
            Err(failed) => {
                s.say_once(&format!("PC samples could not be read: {failed}"));
                return;
            }
        }
        read(s, &sampled.drain, sampled.device, into);
        let (got, configured) = (sampled.drain.header(), sampled.configured.header());
        let more = got.remainingNumPcs > 0 || configured.totalNumPcs > 0 || configured.remainingNumPcs > 0;
        if got.totalNumPcs == 0 || !more {
            return;
        }
    }
}

fn read(s: &Sampler, buffer: &Buffer, device: u32, into: &mut Vec<Drained>) {
    s.state.lock().dropped += buffer.header().droppedSamples;
    let drained_at = Instant::now();
    into.extend(buffer.records().map(|r| Drained {
        device,
        crc: r.cubin_crc,
        offset: r.pc_offset,
        function_index: r.function_index,
        function: r.function.map(CString::from),
        reasons: r.reasons,
        drained_at,
    }));
}
