//! A safe layer over the driver calls the microbenchmarks make: a device's primary context,
//! a module of PTX, device memory and timed launches, each released when dropped.

use std::ffi::{CStr, CString, c_int, c_uint, c_void};

use rocprofiler_sdk_sys::cuda::{CUDA_SUCCESS, CUdevice, CUresult, CUuuid};
use rocprofiler_sdk_sys::cuda_launch::{self as cu, CUcontext, CUdeviceptr, CUevent, CUfunction, CUmodule, CudaLaunch};

/// Why a measurement could not be made.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    #[error("{0}")]
    Load(#[from] rocprofiler_sdk_sys::LoadError),
    #[error("{call} failed: {name} ({code})")]
    Driver { call: &'static str, code: CUresult, name: String },
    #[error("CUDA device {0} does not exist (the driver sees {1})")]
    NoDevice(c_int, c_int),
    #[error("{0}")]
    Refused(String),
}

/// The driver, initialised.
pub struct Driver {
    cuda: CudaLaunch,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Driver")
    }
}

impl Driver {
    pub fn load() -> Result<Driver, GpuError> {
        let driver = Driver { cuda: CudaLaunch::load()? };
        // SAFETY: cuInit takes flags 0 and is idempotent.
        driver.check("cuInit", unsafe { (driver.cuda.api.cuInit)(0) })?;
        Ok(driver)
    }

    fn check(&self, call: &'static str, code: CUresult) -> Result<(), GpuError> {
        if code == CUDA_SUCCESS {
            return Ok(());
        }
        let mut name: *const std::ffi::c_char = std::ptr::null();
        // SAFETY: a valid out-pointer; the driver returns a static string or leaves it null.
        let named = unsafe { (self.cuda.api.cuGetErrorName)(code, &mut name) } == CUDA_SUCCESS && !name.is_null();
        // SAFETY: cuGetErrorName succeeded, so `name` is a NUL-terminated static string.
        let name = if named { unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned() } else { "?".into() };
        Err(GpuError::Driver { call, code, name })
    }

    /// How many devices CUDA sees.
    pub fn device_count(&self) -> Result<c_int, GpuError> {
        let mut count = 0;
        // SAFETY: a valid out-pointer.
        self.check("cuDeviceGetCount", unsafe { (self.cuda.api.cuDeviceGetCount)(&mut count) })?;
        Ok(count)
    }

    /// Device `ordinal`, with its primary context current on this thread.
    pub fn open(&self, ordinal: c_int) -> Result<Device<'_>, GpuError> {
        let count = self.device_count()?;
        if !(0..count).contains(&ordinal) {
            return Err(GpuError::NoDevice(ordinal, count));
        }
        let mut device: CUdevice = 0;
        // SAFETY: a valid out-pointer; the ordinal is below the count.
        self.check("cuDeviceGet", unsafe { (self.cuda.api.cuDeviceGet)(&mut device, ordinal) })?;
        let mut context: CUcontext = std::ptr::null_mut();
        // SAFETY: a valid out-pointer and device; released in Device's drop.
        self.check("cuDevicePrimaryCtxRetain", unsafe {
            (self.cuda.api.cuDevicePrimaryCtxRetain)(&mut context, device)
        })?;
        let mut opened = Device { driver: self, device, current: false };
        // SAFETY: the context was just retained and stays alive until the drop releases it.
        self.check("cuCtxSetCurrent", unsafe { (self.cuda.api.cuCtxSetCurrent)(context) })?;
        opened.current = true;
        Ok(opened)
    }
}

/// A device whose primary context is retained and current.
#[derive(Debug)]
pub struct Device<'d> {
    driver: &'d Driver,
    device: CUdevice,
    /// Whether its context was made current on this thread (and so must be left).
    current: bool,
}

impl Drop for Device<'_> {
    fn drop(&mut self) {
        if self.current {
            // SAFETY: the context retained in `open` is current on this thread.
            unsafe { (self.driver.cuda.api.cuCtxSynchronize)() };
            // SAFETY: no context is always a valid current context; a released one never is.
            unsafe { (self.driver.cuda.api.cuCtxSetCurrent)(std::ptr::null_mut()) };
        }
        // SAFETY: retained once in `open`; its work is done.
        unsafe { (self.driver.cuda.api.cuDevicePrimaryCtxRelease_v2)(self.device) };
    }
}

impl<'d> Device<'d> {
    fn api(&self) -> &'d cu::CudaLaunchApi {
        &self.driver.cuda.api
    }

    pub fn name(&self) -> Result<String, GpuError> {
        let mut name = [0 as std::ffi::c_char; 256];
        // SAFETY: the buffer holds `len` bytes, and the driver NUL-terminates within them.
        let code = unsafe { (self.api().cuDeviceGetName)(name.as_mut_ptr(), 255, self.device) };
        self.driver.check("cuDeviceGetName", code)?;
        // SAFETY: NUL-terminated by the driver, and the last byte is never written.
        Ok(unsafe { CStr::from_ptr(name.as_ptr()) }.to_string_lossy().into_owned())
    }

    /// `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`: the `_v2` call gives a MIG instance its own
    /// UUID, so a slice's measurement never takes the whole GPU's file.
    pub fn uuid(&self) -> Result<String, GpuError> {
        let mut uuid = CUuuid::default();
        // SAFETY: a valid out-pointer.
        let code = unsafe { (self.api().cuDeviceGetUuid_v2)(&mut uuid, self.device) };
        self.driver.check("cuDeviceGetUuid_v2", code)?;
        let hex: String = uuid.bytes.iter().map(|b| format!("{b:02x}")).collect();
        Ok(format!("GPU-{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32]))
    }

    pub fn attribute(&self, attribute: cu::CUdevice_attribute) -> Result<i64, GpuError> {
        let mut value: c_int = 0;
        // SAFETY: a valid out-pointer; an unknown attribute is an error code, not UB.
        self.driver.check("cuDeviceGetAttribute", unsafe {
            (self.api().cuDeviceGetAttribute)(&mut value, attribute, self.device)
        })?;
        Ok(i64::from(value))
    }

    /// Free device memory, bytes.
    pub fn free_memory(&self) -> Result<usize, GpuError> {
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: valid out-pointers; the device's context is current.
        self.driver.check("cuMemGetInfo", unsafe { (self.api().cuMemGetInfo_v2)(&mut free, &mut total) })?;
        Ok(free)
    }

    /// Loads `ptx`, compiled for this device by the driver.
    pub fn load(&self, ptx: &str) -> Result<Module<'_, 'd>, GpuError> {
        let text = CString::new(ptx).map_err(|_| GpuError::Refused("PTX with a NUL byte".into()))?;
        let mut module: CUmodule = std::ptr::null_mut();
        // SAFETY: a NUL-terminated PTX image, alive for the call; the context is current.
        let code = unsafe { (self.api().cuModuleLoadData)(&mut module, text.as_ptr().cast()) };
        self.driver.check("cuModuleLoadData", code)?;
        Ok(Module { device: self, module })
    }

    /// `bytes` of device memory, every 32-bit word set to `word`.
    pub fn alloc(&self, bytes: usize, word: u32) -> Result<Buffer<'_, 'd>, GpuError> {
        let mut address: CUdeviceptr = 0;
        // SAFETY: a valid out-pointer; the context is current.
        self.driver.check("cuMemAlloc", unsafe { (self.api().cuMemAlloc_v2)(&mut address, bytes.max(4)) })?;
        let buffer = Buffer { device: self, address };
        // SAFETY: the allocation holds at least bytes / 4 words.
        self.driver.check("cuMemsetD32", unsafe { (self.api().cuMemsetD32_v2)(address, word, bytes / 4) })?;
        Ok(buffer)
    }

    /// Waits for everything launched in the context: after a failure mid-launch, nothing may
    /// still run when its buffers are freed.
    fn synchronize(&self) {
        // SAFETY: the context is current (only a current device launches).
        unsafe { (self.api().cuCtxSynchronize)() };
    }

    fn event(&self) -> Result<Event<'_, 'd>, GpuError> {
        let mut event: CUevent = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the context is current.
        self.driver.check("cuEventCreate", unsafe { (self.api().cuEventCreate)(&mut event, cu::CU_EVENT_DEFAULT) })?;
        Ok(Event { device: self, event })
    }
}

/// A loaded module.
#[derive(Debug)]
pub struct Module<'a, 'd> {
    device: &'a Device<'d>,
    module: CUmodule,
}

impl Drop for Module<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: loaded in `Device::load`; no launch from it is pending (timed launches
        // synchronise on their end event).
        unsafe { (self.device.api().cuModuleUnload)(self.module) };
    }
}

/// A kernel's launch: its grid and block sizes.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub blocks: c_uint,
    pub threads: c_uint,
}

impl<'a, 'd> Module<'a, 'd> {
    /// How many blocks of `threads` threads of `function` one SM holds at once.
    pub fn blocks_per_sm(&self, function: CUfunction, threads: c_uint) -> Result<c_uint, GpuError> {
        let mut blocks: c_int = 0;
        let threads = c_int::try_from(threads).unwrap_or(c_int::MAX);
        // SAFETY: a valid out-pointer and a function of this loaded module.
        let code = unsafe {
            (self.device.api().cuOccupancyMaxActiveBlocksPerMultiprocessor)(&mut blocks, function, threads, 0)
        };
        self.device.driver.check("cuOccupancyMaxActiveBlocksPerMultiprocessor", code)?;
        c_uint::try_from(blocks)
            .ok()
            .filter(|b| *b > 0)
            .ok_or_else(|| GpuError::Refused(format!("{blocks} blocks fit an SM")))
    }

    pub fn function(&self, name: &str) -> Result<CUfunction, GpuError> {
        let text = CString::new(name).map_err(|_| GpuError::Refused(format!("{name:?}: a NUL byte")))?;
        let mut function: CUfunction = std::ptr::null_mut();
        // SAFETY: a valid out-pointer and NUL-terminated name; the module is loaded.
        self.device.driver.check("cuModuleGetFunction", unsafe {
            (self.device.api().cuModuleGetFunction)(&mut function, self.module, text.as_ptr())
        })?;
        Ok(function)
    }

    /// Launches `function` of this module and waits for it; its time on the GPU, seconds.
    ///
    /// # Safety
    /// `parameters` must point at one value of each of the kernel's parameters, in order and
    /// of their types, and every device address among them must stay allocated for the call.
    pub unsafe fn timed(
        &self,
        function: CUfunction,
        shape: Shape,
        parameters: &mut [*mut c_void],
    ) -> Result<f64, GpuError> {
        let (start, end) = (self.device.event()?, self.device.event()?);
        // SAFETY: the caller's contract, passed on.
        let timed = unsafe { self.launch_timed(function, shape, parameters, &start, &end) };
        if timed.is_err() {
            self.device.synchronize();
        }
        timed
    }

    /// [`Module::timed`] between `start` and `end`.
    ///
    /// # Safety
    /// As [`Module::timed`].
    unsafe fn launch_timed(
        &self,
        function: CUfunction,
        shape: Shape,
        parameters: &mut [*mut c_void],
        start: &Event<'_, 'd>,
        end: &Event<'_, 'd>,
    ) -> Result<f64, GpuError> {
        let api = self.device.api();
        let check = |call, code| self.device.driver.check(call, code);
        // SAFETY: the event belongs to the current context; the null stream is the default.
        check("cuEventRecord", unsafe { (api.cuEventRecord)(start.event, std::ptr::null_mut()) })?;
        // SAFETY: the caller vouches for the parameters; the function is this module's.
        check("cuLaunchKernel", unsafe {
            (api.cuLaunchKernel)(
                function,
                shape.blocks,
                1,
                1,
                shape.threads,
                1,
                1,
                0,
                std::ptr::null_mut(),
                parameters.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })?;
        // SAFETY: as for `start`.
        check("cuEventRecord", unsafe { (api.cuEventRecord)(end.event, std::ptr::null_mut()) })?;
        // SAFETY: a recorded event of the current context.
        check("cuEventSynchronize", unsafe { (api.cuEventSynchronize)(end.event) })?;
        let mut ms = 0f32;
        // SAFETY: both events are recorded and complete.
        check("cuEventElapsedTime", unsafe { (api.cuEventElapsedTime)(&mut ms, start.event, end.event) })?;
        Ok(f64::from(ms) / 1e3)
    }
}

/// Device memory, freed when dropped.
#[derive(Debug)]
pub struct Buffer<'a, 'd> {
    device: &'a Device<'d>,
    pub address: CUdeviceptr,
}

impl Drop for Buffer<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: allocated in `Device::alloc`; launches that used it were waited for.
        unsafe { (self.device.api().cuMemFree_v2)(self.address) };
    }
}

struct Event<'a, 'd> {
    device: &'a Device<'d>,
    event: CUevent,
}

impl Drop for Event<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: created in `Device::event`; its work has completed or failed.
        unsafe { (self.device.api().cuEventDestroy_v2)(self.event) };
    }
}
