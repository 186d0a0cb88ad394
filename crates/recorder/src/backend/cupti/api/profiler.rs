//! CUPTI's range profiler as safe calls: initialisation and the chip, host objects (metric
//! catalogue, config images, pass counts, evaluation), and the per-context range profiler.
//!
//! Each call zeroes its params struct, sets `structSize` and turns a non-success result into a
//! [`CuptiError::Call`] naming the call, with CUPTI's own text.

use std::ffi::{CStr, CString, c_char};

use rocprofiler_sdk_sys::cupti::{self as sys, Cupti, RangeProfilerApi};

use super::super::error::CuptiError;
use super::{Context, check};

/// The profiler functions of `cupti`, or why there are none.
pub fn api(cupti: &Cupti) -> Result<&RangeProfilerApi, CuptiError> {
    cupti.profiler.as_ref().ok_or(CuptiError::Refused {
        what: "counters",
        text: format!(
            "this libcupti (API {}) has no range profiler (CUDA 12.6 update 3 or later has it)",
            cupti.version()
        ),
    })
}

/// `cuptiProfilerInitialize`: once per process, before anything else here.
pub fn initialize(cupti: &Cupti) -> Result<(), CuptiError> {
    let api = api(cupti)?;
    let mut p = params!(CUpti_Profiler_Initialize_Params, CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    // SAFETY: a params struct of the size it declares.
    let rc = unsafe { (api.cuptiProfilerInitialize)(&mut p) };
    check(cupti, "cuptiProfilerInitialize", rc, "the profiler")
}

/// The chip of CUDA device `device` (`GH100`, `GA100`, ...).
pub fn chip_name(cupti: &Cupti, device: u32) -> Result<String, CuptiError> {
    let api = api(cupti)?;
    let mut p = params!(CUpti_Device_GetChipName_Params, CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    p.deviceIndex = device as usize;
    // SAFETY: as above; CUPTI fills `pChipName` with a static string.
    let rc = unsafe { (api.cuptiDeviceGetChipName)(&mut p) };
    check(cupti, "cuptiDeviceGetChipName", rc, "the chip name")?;
    if p.pChipName.is_null() {
        return Err(CuptiError::Refused { what: "the chip name", text: "no name returned".into() });
    }
    // SAFETY: CUPTI's NUL-terminated static string.
    Ok(unsafe { CStr::from_ptr(p.pChipName) }.to_string_lossy().into_owned())
}

/// Why device `device` cannot be profiled, if it cannot (a vGPU, MIG, confidential computing...).
pub fn unsupported(cupti: &Cupti, device: u32) -> Option<String> {
    let api = api(cupti).ok()?;
    let mut p = params!(CUpti_Profiler_DeviceSupported_Params, CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
    p.cuDevice = device as i32;
    p.api = sys::CUPTI_PROFILER_RANGE_PROFILING;
    // SAFETY: as above.
    let rc = unsafe { (api.cuptiProfilerDeviceSupported)(&mut p) };
    if rc != sys::CUPTI_SUCCESS {
        return Some(cupti.result_text(rc));
    }
    let fields = [
        ("the architecture", p.architecture),
        ("SLI", p.sli),
        ("a vGPU", p.vGpu),
        ("confidential computing", p.confidentialCompute),
        ("a CMP part", p.cmp),
        ("WSL", p.wsl),
    ];
    (p.isSupported != sys::CUPTI_PROFILER_CONFIGURATION_SUPPORTED).then(|| {
        let why: Vec<&str> = fields
            .iter()
            .filter(|(_, level)| *level == sys::CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
            .map(|(what, _)| *what)
            .collect();
        if why.is_empty() { "not supported".to_owned() } else { format!("not supported on {}", why.join(", ")) }
    })
}

/// The largest counter availability or config image believed: CUPTI's are kilobytes to a few
/// megabytes; a size past this is a broken library, and must not size an allocation.
const MAX_IMAGE_BYTES: usize = 256 << 20;

/// The most base metrics of one kind believed (a chip has a few thousand).
const MAX_BASE_METRICS: usize = 1 << 20;

/// `value`, which CUPTI reported as `what`, where it is at most `limit`.
fn believed(what: &'static str, value: usize, limit: usize) -> Result<usize, CuptiError> {
    if value > limit {
        return Err(CuptiError::Implausible { what, value, limit });
    }
    Ok(value)
}

/// The counter availability image of context `ctx` (needs no session active).
pub fn counter_availability(cupti: &Cupti, ctx: Context) -> Result<Vec<u8>, CuptiError> {
    let api = api(cupti)?;
    let mut p =
        params!(CUpti_Profiler_GetCounterAvailability_Params, CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    p.ctx = ctx.raw();
    // SAFETY: as above; a null image asks for the size.
    let rc = unsafe { (api.cuptiProfilerGetCounterAvailability)(&mut p) };
    check(cupti, "cuptiProfilerGetCounterAvailability", rc, "counter availability")?;
    let mut image =
        vec![0u8; believed("counterAvailabilityImageSize", p.counterAvailabilityImageSize, MAX_IMAGE_BYTES)?];
    p.pCounterAvailabilityImage = image.as_mut_ptr();
    // SAFETY: as above, with a buffer of the size CUPTI asked for.
    let rc = unsafe { (api.cuptiProfilerGetCounterAvailability)(&mut p) };
    check(cupti, "cuptiProfilerGetCounterAvailability", rc, "counter availability")?;
    Ok(image)
}

/// A metric's properties, from its base name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetricProperties {
    pub description: String,
    /// The hardware unit that counts it (`dram`, `lts`, `smsp`...).
    pub hw_unit: String,
    /// Its unit (`byte`, `inst`, `cycle`...).
    pub unit: String,
    /// `CUPTI_METRIC_TYPE_*`: a counter, a ratio or a throughput.
    pub kind: u32,
}

/// A host object: one chip's metric catalogue, and the metrics added to it for one config.
pub struct Host<'a> {
    cupti: &'a Cupti,
    object: *mut sys::CUpti_Profiler_Host_Object,
}

impl std::fmt::Debug for Host<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Host")
    }
}

// SAFETY: a host object is plain host memory that CUPTI does not tie to a thread; every use
// goes through `&self` of one owner at a time (the tool keeps it behind a mutex).
unsafe impl Send for Host<'_> {}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: CUPTI's NUL-terminated strings, alive with the host object.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

impl<'a> Host<'a> {
    /// A host object for `chip`, with the device's counter availability where known.
    pub fn new(cupti: &'a Cupti, chip: &str, availability: Option<&[u8]>) -> Result<Host<'a>, CuptiError> {
        let api = api(cupti)?;
        let chip = CString::new(chip).map_err(|_| CuptiError::Refused { what: "the chip", text: chip.into() })?;
        let mut p = params!(CUpti_Profiler_Host_Initialize_Params, CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
        p.profilerType = sys::CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        p.pChipName = chip.as_ptr();
        p.pCounterAvailabilityImage = availability.map_or(std::ptr::null(), <[u8]>::as_ptr);
        // SAFETY: as above; the strings and image outlive the call (CUPTI copies what it keeps).
        let rc = unsafe { (api.cuptiProfilerHostInitialize)(&mut p) };
        check(cupti, "cuptiProfilerHostInitialize", rc, "a metric host object")?;
        Ok(Host { cupti, object: p.pHostObject })
    }

    fn api(&self) -> &RangeProfilerApi {
        self.cupti.profiler.as_ref().expect("a host object exists only with the profiler API")
    }

    /// Every base metric of the chip (counters, ratios and throughputs), sorted.
    pub fn base_metrics(&self) -> Result<Vec<String>, CuptiError> {
        let mut names = Vec::new();
        for kind in [sys::CUPTI_METRIC_TYPE_COUNTER, sys::CUPTI_METRIC_TYPE_RATIO, sys::CUPTI_METRIC_TYPE_THROUGHPUT] {
            let mut p = params!(
                CUpti_Profiler_Host_GetBaseMetrics_Params,
                CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE
            );
            p.pHostObject = self.object;
            p.metricType = kind;
            // SAFETY: as above; CUPTI points `ppMetricNames` at its own array of strings.
            let rc = unsafe { (self.api().cuptiProfilerHostGetBaseMetrics)(&mut p) };
            check(self.cupti, "cuptiProfilerHostGetBaseMetrics", rc, "the metric list")?;
            if p.ppMetricNames.is_null() {
                continue;
            }
            let count = believed("numMetrics", p.numMetrics, MAX_BASE_METRICS)?;
            // SAFETY: CUPTI's array of `numMetrics` string pointers, alive with the object.
            let list = unsafe { std::slice::from_raw_parts(p.ppMetricNames, count) };
            names.extend(list.iter().map(|&n| text(n)));
        }
        names.sort_unstable();
        names.dedup();
        Ok(names)
    }

    /// The properties of base metric `base` (no rollup suffix).
    pub fn properties(&self, base: &str) -> Result<MetricProperties, CuptiError> {
        let name = CString::new(base).map_err(|_| CuptiError::Refused { what: "a metric", text: base.into() })?;
        let mut p = params!(
            CUpti_Profiler_Host_GetMetricProperties_Params,
            CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE
        );
        p.pHostObject = self.object;
        p.pMetricName = name.as_ptr();
        // SAFETY: as above.
        let rc = unsafe { (self.api().cuptiProfilerHostGetMetricProperties)(&mut p) };
        check(self.cupti, "cuptiProfilerHostGetMetricProperties", rc, "a metric's properties")?;
        Ok(MetricProperties {
            description: text(p.pDescription),
            hw_unit: text(p.pHwUnit),
            unit: text(p.pDimUnit),
            kind: p.metricType,
        })
    }

    /// Adds `metrics` (full names, `dram__bytes_read.sum`) to the object's config.
    pub fn add_metrics(&self, metrics: &[CString]) -> Result<(), CuptiError> {
        let mut names: Vec<*const c_char> = metrics.iter().map(|m| m.as_ptr()).collect();
        let mut p = params!(
            CUpti_Profiler_Host_ConfigAddMetrics_Params,
            CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE
        );
        p.pHostObject = self.object;
        p.ppMetricNames = names.as_mut_ptr();
        p.numMetrics = names.len();
        // SAFETY: as above; the names outlive the call.
        let rc = unsafe { (self.api().cuptiProfilerHostConfigAddMetrics)(&mut p) };
        check(self.cupti, "cuptiProfilerHostConfigAddMetrics", rc, "the metrics")
    }

    /// The config image of the metrics added so far.
    pub fn config_image(&self) -> Result<Vec<u8>, CuptiError> {
        let mut p = params!(
            CUpti_Profiler_Host_GetConfigImageSize_Params,
            CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE
        );
        p.pHostObject = self.object;
        // SAFETY: as above.
        let rc = unsafe { (self.api().cuptiProfilerHostGetConfigImageSize)(&mut p) };
        check(self.cupti, "cuptiProfilerHostGetConfigImageSize", rc, "a config image")?;
        let mut image = vec![0u8; believed("configImageSize", p.configImageSize, MAX_IMAGE_BYTES)?];
        let mut q =
            params!(CUpti_Profiler_Host_GetConfigImage_Params, CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
        q.pHostObject = self.object;
        q.configImageSize = image.len();
        q.pConfigImage = image.as_mut_ptr();
        // SAFETY: as above, with a buffer of the size CUPTI gave.
        let rc = unsafe { (self.api().cuptiProfilerHostGetConfigImage)(&mut q) };
        check(self.cupti, "cuptiProfilerHostGetConfigImage", rc, "a config image")?;
        Ok(image)
    }

    /// Evaluates `metrics` for range `range` of a decoded counter data image.
    pub fn evaluate(&self, image: &[u8], range: usize, metrics: &[CString]) -> Result<Vec<f64>, CuptiError> {
        let mut names: Vec<*const c_char> = metrics.iter().map(|m| m.as_ptr()).collect();
        let mut values = vec![f64::NAN; names.len()];
        let mut p = params!(
            CUpti_Profiler_Host_EvaluateToGpuValues_Params,
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE
        );
        p.pHostObject = self.object;
        p.pCounterDataImage = image.as_ptr();
        p.counterDataImageSize = image.len();
        p.rangeIndex = range;
        p.ppMetricNames = names.as_mut_ptr();
        p.numMetrics = names.len();
        p.pMetricValues = values.as_mut_ptr();
        // SAFETY: as above; `values` has room for one value per name.
        let rc = unsafe { (self.api().cuptiProfilerHostEvaluateToGpuValues)(&mut p) };
        check(self.cupti, "cuptiProfilerHostEvaluateToGpuValues", rc, "metric values")?;
        Ok(values)
    }
}

impl Drop for Host<'_> {
    fn drop(&mut self) {
        let mut p =
            params!(CUpti_Profiler_Host_Deinitialize_Params, CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
        p.pHostObject = self.object;
        // SAFETY: our object, destroyed once.
        unsafe { (self.api().cuptiProfilerHostDeinitialize)(&mut p) };
    }
}

/// The passes a config image needs.
pub fn passes(cupti: &Cupti, config: &[u8]) -> Result<usize, CuptiError> {
    let api = api(cupti)?;
    let mut config = config.to_vec();
    let mut p =
        params!(CUpti_Profiler_Host_GetNumOfPasses_Params, CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    p.configImageSize = config.len();
    p.pConfigImage = config.as_mut_ptr();
    // SAFETY: as above.
    let rc = unsafe { (api.cuptiProfilerHostGetNumOfPasses)(&mut p) };
    check(cupti, "cuptiProfilerHostGetNumOfPasses", rc, "a pass count")?;
    Ok(p.numOfPasses)
}

/// The passes `metrics` need together on `chip` (a fresh host object: metrics accumulate in one).
pub fn passes_of(
    cupti: &Cupti,
    chip: &str,
    availability: Option<&[u8]>,
    metrics: &[CString],
) -> Result<usize, CuptiError> {
    let host = Host::new(cupti, chip, availability)?;
    host.add_metrics(metrics)?;
    passes(cupti, &host.config_image()?)
}
