//! One context's range profiler: a session per counted dispatch, decoded at once.
//!
//! The image holds one range (AutoRange makes each kernel launch a range; a session holds one
//! launch). `GetCounterDataSize` binds the object to a metric list and is called before every
//! image initialisation, as CUPTI lays the image out by the last binding
//! (`bench/gpu/range_probe`, pitfall 1).

use std::ffi::{CString, c_char};

use rocprofiler_sdk_sys::cupti::{self as sys, Cupti};

use super::super::error::CuptiError;
use super::profiler::api;
use super::{Context, check};

/// What a session's Stop said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped {
    /// The pass the next session runs.
    pub next_pass: usize,
    /// Whether the pass just run was the configuration's last.
    pub all_passes: bool,
}

/// An enabled range profiler and its image.
pub struct RangeObject {
    cupti: &'static Cupti,
    object: *mut sys::CUpti_RangeProfiler_Object,
    config: Vec<u8>,
    metrics: Vec<CString>,
    image: Vec<u8>,
}

impl std::fmt::Debug for RangeObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RangeObject").field("image", &self.image.len()).finish()
    }
}

// SAFETY: the object is used only under the counting mutex, one thread at a time; CUPTI does
// not tie it to the thread that enabled it (sessions run on whichever thread launches).
unsafe impl Send for RangeObject {}

impl RangeObject {
    /// Enables range profiling on `ctx` for `config` (of `metrics`).
    pub fn enable(
        cupti: &'static Cupti,
        ctx: Context,
        config: Vec<u8>,
        metrics: Vec<CString>,
    ) -> Result<RangeObject, CuptiError> {
        let api = api(cupti)?;
        let mut p = params!(CUpti_RangeProfiler_Enable_Params, CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
        p.ctx = ctx.raw();
        // SAFETY: a params struct of the size it declares, and the context CUPTI reported.
        let rc = unsafe { (api.cuptiRangeProfilerEnable)(&mut p) };
        check(cupti, "cuptiRangeProfilerEnable", rc, "the range profiler")?;
        Ok(RangeObject { cupti, object: p.pRangeProfilerObject, config, metrics, image: Vec::new() })
    }

    fn api(&self) -> &sys::RangeProfilerApi {
        self.cupti.profiler.as_ref().expect("an object exists only with the profiler API")
    }

    /// Prepares a fresh image and starts a session: the next launch on the context is its range.
    pub fn start(&mut self) -> Result<(), CuptiError> {
        let mut names: Vec<*const c_char> = self.metrics.iter().map(|m| m.as_ptr()).collect();
        let mut size = params!(
            CUpti_RangeProfiler_GetCounterDataSize_Params,
            CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE
        );
        size.pRangeProfilerObject = self.object;
        size.pMetricNames = names.as_mut_ptr();
        size.numMetrics = names.len();
        size.maxNumOfRanges = 1;
        size.maxNumRangeTreeNodes = 1;
        // SAFETY: as above; the names outlive the call.
        let rc = unsafe { (self.api().cuptiRangeProfilerGetCounterDataSize)(&mut size) };
        check(self.cupti, "cuptiRangeProfilerGetCounterDataSize", rc, "an image")?;
        self.image.clear();
        self.image.resize(size.counterDataSize, 0);
        let mut init = params!(
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE
        );
        init.pRangeProfilerObject = self.object;
        init.counterDataSize = self.image.len();
        init.pCounterData = self.image.as_mut_ptr();
        // SAFETY: as above, with a buffer of the size CUPTI gave.
        let rc = unsafe { (self.api().cuptiRangeProfilerCounterDataImageInitialize)(&mut init) };
        check(self.cupti, "cuptiRangeProfilerCounterDataImageInitialize", rc, "an image")?;
        let mut set = params!(CUpti_RangeProfiler_SetConfig_Params, CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
        set.pRangeProfilerObject = self.object;
        set.configSize = self.config.len();
        set.pConfig = self.config.as_ptr();
        set.counterDataImageSize = self.image.len();
        set.pCounterDataImage = self.image.as_mut_ptr();
        set.range = sys::CUPTI_AutoRange;
        set.replayMode = sys::CUPTI_UserReplay;
        set.maxRangesPerPass = 1;
        set.numNestingLevels = 1;
        set.minNestingLevel = 1;
        set.passIndex = 0;
        set.targetNestingLevel = 1;
        // SAFETY: as above; the config and image live in `self` as long as the session.
        let rc = unsafe { (self.api().cuptiRangeProfilerSetConfig)(&mut set) };
        check(self.cupti, "cuptiRangeProfilerSetConfig", rc, "a session")?;
        let mut start = params!(CUpti_RangeProfiler_Start_Params, CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
        start.pRangeProfilerObject = self.object;
        // SAFETY: as above.
        let rc = unsafe { (self.api().cuptiRangeProfilerStart)(&mut start) };
        check(self.cupti, "cuptiRangeProfilerStart", rc, "a session")
    }

    /// Ends the session (waiting for its kernel) and decodes its image.
    pub fn stop(&mut self) -> Result<Stopped, CuptiError> {
        let mut stop = params!(CUpti_RangeProfiler_Stop_Params, CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
        stop.pRangeProfilerObject = self.object;
        // SAFETY: as above.
        let rc = unsafe { (self.api().cuptiRangeProfilerStop)(&mut stop) };
        check(self.cupti, "cuptiRangeProfilerStop", rc, "a session's end")?;
        let mut decode =
            params!(CUpti_RangeProfiler_DecodeData_Params, CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
        decode.pRangeProfilerObject = self.object;
        // SAFETY: as above.
        let rc = unsafe { (self.api().cuptiRangeProfilerDecodeData)(&mut decode) };
        check(self.cupti, "cuptiRangeProfilerDecodeData", rc, "a session's data")?;
        Ok(Stopped { next_pass: stop.passIndex, all_passes: stop.isAllPassSubmitted != 0 })
    }

    /// The ranges the decoded image holds.
    pub fn ranges(&self) -> Result<usize, CuptiError> {
        ranges(self.cupti, &self.image)
    }

    /// The decoded image.
    pub fn image(&self) -> &[u8] {
        &self.image
    }
}

/// The ranges a decoded image holds.
pub fn ranges(cupti: &Cupti, image: &[u8]) -> Result<usize, CuptiError> {
    let api = api(cupti)?;
    let mut info = params!(
        CUpti_RangeProfiler_GetCounterDataInfo_Params,
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE
    );
    info.pCounterDataImage = image.as_ptr();
    info.counterDataImageSize = image.len();
    // SAFETY: as above; the image outlives the call.
    let rc = unsafe { (api.cuptiRangeProfilerGetCounterDataInfo)(&mut info) };
    check(cupti, "cuptiRangeProfilerGetCounterDataInfo", rc, "an image's ranges")?;
    Ok(info.numTotalRanges)
}

impl Drop for RangeObject {
    fn drop(&mut self) {
        let mut p = params!(CUpti_RangeProfiler_Disable_Params, CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
        p.pRangeProfilerObject = self.object;
        // SAFETY: our object, disabled once.
        unsafe { (self.api().cuptiRangeProfilerDisable)(&mut p) };
    }
}
