//! A small real HIP program: a vector add through HIP loaded at run time and compiled with
//! hiprtc. `rocprof-rs demo` profiles it where a GPU exists, and the HIP examples share it; it
//! needs no ROCm at build time, so it costs nothing where there is none.

use std::ffi::{CStr, CString, c_void};
use std::ptr;

use rocprofiler_sdk_sys::hip::{self, Hip, HipApi, HiprtcApi};

/// What stops the HIP program.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// No HIP runtime could be loaded.
    #[error("no HIP runtime: {0}")]
    NoHip(rocprofiler_sdk_sys::LoadError),
    /// HIP loaded, but it sees no GPU it can use.
    #[error("HIP {soname} loaded from {path}, but no usable GPU ({status})")]
    NoGpu { soname: String, path: String, status: String },
    /// HIP without hiprtc, which compiles the kernel.
    #[error("HIP is here but hiprtc is not; cannot compile the kernel")]
    NoHiprtc,
    /// A HIP or hiprtc call failed.
    #[error("{call} returned {status}")]
    Call { call: &'static str, status: i64 },
    /// hiprtc could not compile the kernel; its log.
    #[error("compilation failed: {0}")]
    Compilation(String),
    /// The GPU computed wrong sums.
    #[error("{wrong} of {total} results are wrong")]
    WrongResults { wrong: usize, total: usize },
}

/// HIP with a usable GPU and hiprtc, or what is missing.
pub fn gpu() -> Result<Hip, WorkloadError> {
    let hip = Hip::load().map_err(WorkloadError::NoHip)?;
    let api = hip.api();
    // SAFETY: hipInit takes flags 0 and has no other precondition.
    let status = unsafe { (api.hipInit)(0) };
    let mut devices = 0;
    // SAFETY: a valid out-pointer.
    let count_status = unsafe { (api.hipGetDeviceCount)(&mut devices) };
    if status != hip::hipSuccess || count_status != hip::hipSuccess || devices == 0 {
        let path = hip.path().map_or_else(|| "?".to_owned(), |p| p.display().to_string());
        return Err(WorkloadError::NoGpu {
            soname: hip.soname().to_string(),
            path,
            status: hip.error_name(status).to_string(),
        });
    }
    if hip.rtc().is_none() {
        return Err(WorkloadError::NoHiprtc);
    }
    Ok(hip)
}

const SOURCE: &str = r#"
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"#;

fn ok(call: &'static str, status: hip::hipError_t) -> Result<(), WorkloadError> {
    if status == hip::hipSuccess { Ok(()) } else { Err(WorkloadError::Call { call, status: i64::from(status) }) }
}

fn compile(rtc: &HiprtcApi) -> Result<Vec<u8>, WorkloadError> {
    let source = CString::new(SOURCE).expect("the kernel's source has no NUL");
    let name = c"vector_add.hip";
    let mut program: hip::hiprtcProgram = ptr::null_mut();
    // SAFETY: valid out-pointer and NUL-terminated strings; no headers.
    let status = unsafe {
        (rtc.hiprtcCreateProgram)(&mut program, source.as_ptr(), name.as_ptr(), 0, ptr::null_mut(), ptr::null_mut())
    };
    if status != hip::HIPRTC_SUCCESS {
        return Err(WorkloadError::Call { call: "hiprtcCreateProgram", status: i64::from(status) });
    }
    // SAFETY: `program` was created above; no options.
    let compiled = unsafe { (rtc.hiprtcCompileProgram)(program, 0, ptr::null_mut()) };
    let result = if compiled == hip::HIPRTC_SUCCESS {
        let mut size = 0usize;
        // SAFETY: valid program and out-pointer.
        unsafe { (rtc.hiprtcGetCodeSize)(program, &mut size) };
        let mut code = vec![0u8; size];
        // SAFETY: `code` holds the `size` bytes hiprtc reported.
        unsafe { (rtc.hiprtcGetCode)(program, code.as_mut_ptr().cast()) };
        Ok(code)
    } else {
        let mut size = 0usize;
        // SAFETY: valid program and out-pointer.
        unsafe { (rtc.hiprtcGetProgramLogSize)(program, &mut size) };
        let mut log = vec![0u8; size.max(1)];
        // SAFETY: `log` holds the `size` bytes hiprtc reported.
        unsafe { (rtc.hiprtcGetProgramLog)(program, log.as_mut_ptr().cast()) };
        Err(WorkloadError::Compilation(String::from_utf8_lossy(&log).into_owned()))
    };
    // SAFETY: destroys the program created above, once.
    unsafe { (rtc.hiprtcDestroyProgram)(&mut program) };
    result
}

/// Compiles `vector_add`, runs it `launches` times over 2^24 floats, checks the result, and
/// returns the GPU time of all launches in milliseconds.
pub fn run(api: &HipApi, rtc: &HiprtcApi, launches: u32) -> Result<f32, WorkloadError> {
    const N: usize = 1 << 24;
    let code = compile(rtc)?;
    let mut module: hip::hipModule_t = ptr::null_mut();
    // SAFETY: `code` is a code object hiprtc produced; it outlives the call.
    ok("hipModuleLoadData", unsafe { (api.hipModuleLoadData)(&mut module, code.as_ptr().cast()) })?;
    let mut function: hip::hipFunction_t = ptr::null_mut();
    let kernel: &CStr = c"vector_add";
    // SAFETY: `module` was loaded above; the name is NUL-terminated.
    ok("hipModuleGetFunction", unsafe { (api.hipModuleGetFunction)(&mut function, module, kernel.as_ptr()) })?;

    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..N).map(|i| (2 * i) as f32).collect();
    let bytes = N * std::mem::size_of::<f32>();
    let mut device = [ptr::null_mut::<c_void>(); 3];
    for slot in &mut device {
        // SAFETY: a valid out-pointer; the allocations are freed below.
        ok("hipMalloc", unsafe { (api.hipMalloc)(slot, bytes) })?;
    }
    // SAFETY: host buffers hold `bytes` bytes; device buffers were allocated with that size.
    unsafe {
        ok("hipMemcpy", (api.hipMemcpy)(device[0], a.as_ptr().cast(), bytes, hip::hipMemcpyHostToDevice))?;
    }
    // SAFETY: as above.
    unsafe {
        ok("hipMemcpy", (api.hipMemcpy)(device[1], b.as_ptr().cast(), bytes, hip::hipMemcpyHostToDevice))?;
    }

    let mut n = N as u32;
    let mut args: [*mut c_void; 4] =
        [(&raw mut device[0]).cast(), (&raw mut device[1]).cast(), (&raw mut device[2]).cast(), (&raw mut n).cast()];
    let (mut start, mut stop): (hip::hipEvent_t, hip::hipEvent_t) = (ptr::null_mut(), ptr::null_mut());
    // SAFETY: valid out-pointers.
    unsafe {
        ok("hipEventCreate", (api.hipEventCreate)(&mut start))?;
    }
    // SAFETY: valid out-pointer.
    unsafe {
        ok("hipEventCreate", (api.hipEventCreate)(&mut stop))?;
    }
    let blocks = N.div_ceil(256) as u32;
    // SAFETY: the event was created above; null is the default stream.
    ok("hipEventRecord", unsafe { (api.hipEventRecord)(start, ptr::null_mut()) })?;
    for _ in 0..launches {
        // SAFETY: the kernel takes four arguments matching `args`, whose pointees live until the
        // launch has completed (synchronised below).
        let launched = unsafe {
            (api.hipModuleLaunchKernel)(
                function,
                blocks,
                1,
                1,
                256,
                1,
                1,
                0,
                ptr::null_mut(),
                args.as_mut_ptr(),
                ptr::null_mut(),
            )
        };
        ok("hipModuleLaunchKernel", launched)?;
    }
    // SAFETY: as for `start`.
    ok("hipEventRecord", unsafe { (api.hipEventRecord)(stop, ptr::null_mut()) })?;
    // SAFETY: `stop` was recorded above.
    ok("hipEventSynchronize", unsafe { (api.hipEventSynchronize)(stop) })?;
    let mut ms = 0f32;
    // SAFETY: both events have completed.
    ok("hipEventElapsedTime", unsafe { (api.hipEventElapsedTime)(&mut ms, start, stop) })?;

    let mut c = vec![0f32; N];
    // SAFETY: `c` holds `bytes` bytes.
    ok("hipMemcpy", unsafe { (api.hipMemcpy)(c.as_mut_ptr().cast(), device[2], bytes, hip::hipMemcpyDeviceToHost) })?;
    for slot in device {
        // SAFETY: each allocation is released once.
        unsafe { (api.hipFree)(slot) };
    }
    for event in [start, stop] {
        // SAFETY: each event is released once.
        unsafe { (api.hipEventDestroy)(event) };
    }
    // SAFETY: the module is no longer used.
    unsafe { (api.hipModuleUnload)(module) };
    let wrong = c.iter().enumerate().filter(|(i, v)| **v != (3 * i) as f32).count();
    if wrong > 0 {
        return Err(WorkloadError::WrongResults { wrong, total: N });
    }
    Ok(ms)
}
