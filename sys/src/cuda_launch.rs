//! The CUDA driver functions that load PTX and launch it: declarations written from `cuda.h`
//! (CUDA 12 ABI, the `_v2` entry points where the header maps a name to one; no CUDA header is
//! at hand to check them against at build time), resolved in `libcuda.so.1` at run time. `rocprof-rs doctor --measure-roofs` launches its microbenchmarks
//! through them; nothing inside a profiled process does.

use std::ffi::{c_char, c_int, c_uint, c_void};

use crate::cuda::{CUdevice, CUresult, CUuuid};
use crate::dylib::{self, LoadError, OpenLibrary, dynamic_api};

/// `CUcontext`: an opaque handle.
pub type CUcontext = *mut c_void;
/// `CUmodule`: an opaque handle.
pub type CUmodule = *mut c_void;
/// `CUfunction`: an opaque handle.
pub type CUfunction = *mut c_void;
/// `CUevent`: an opaque handle.
pub type CUevent = *mut c_void;
/// `CUstream`: an opaque handle; null is the legacy default stream.
pub type CUstream = *mut c_void;
/// `CUdeviceptr`: a device address (`unsigned long long` on 64-bit hosts).
pub type CUdeviceptr = u64;
/// `CUdevice_attribute`: an enum, passed as `int`.
pub type CUdevice_attribute = c_int;

/// `CU_DEVICE_ATTRIBUTE_CLOCK_RATE`: the peak SM clock, kHz.
pub const CU_DEVICE_ATTRIBUTE_CLOCK_RATE: CUdevice_attribute = 13;
/// `CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`.
pub const CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: CUdevice_attribute = 16;
/// `CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE`: bytes.
pub const CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: CUdevice_attribute = 38;
/// `CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR`.
pub const CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: CUdevice_attribute = 39;
/// `CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR`.
pub const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: CUdevice_attribute = 75;
/// `CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR`.
pub const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: CUdevice_attribute = 76;
/// `CU_EVENT_DEFAULT`.
pub const CU_EVENT_DEFAULT: c_uint = 0;

dynamic_api! {
    /// The driver functions that load a module and time its kernels.
    pub struct CudaLaunchApi;
    check = any(), unused;

    fn cuInit(flags: c_uint) -> CUresult;
    fn cuGetErrorName(error: CUresult, name: *mut *const c_char) -> CUresult;
    fn cuDeviceGetCount(count: *mut c_int) -> CUresult;
    fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult;
    fn cuDeviceGetName(name: *mut c_char, len: c_int, device: CUdevice) -> CUresult;
    fn cuDeviceGetUuid_v2(uuid: *mut CUuuid, device: CUdevice) -> CUresult;
    fn cuDeviceGetAttribute(value: *mut c_int, attribute: CUdevice_attribute, device: CUdevice) -> CUresult;
    fn cuDeviceTotalMem_v2(bytes: *mut usize, device: CUdevice) -> CUresult;
    fn cuDevicePrimaryCtxRetain(context: *mut CUcontext, device: CUdevice) -> CUresult;
    fn cuDevicePrimaryCtxRelease_v2(device: CUdevice) -> CUresult;
    fn cuCtxSetCurrent(context: CUcontext) -> CUresult;
    fn cuCtxSynchronize() -> CUresult;
    fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult;
    fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> CUresult;
    fn cuModuleUnload(module: CUmodule) -> CUresult;
    fn cuModuleGetFunction(function: *mut CUfunction, module: CUmodule, name: *const c_char) -> CUresult;
    fn cuMemAlloc_v2(address: *mut CUdeviceptr, bytes: usize) -> CUresult;
    fn cuMemFree_v2(address: CUdeviceptr) -> CUresult;
    fn cuMemsetD32_v2(address: CUdeviceptr, value: c_uint, count: usize) -> CUresult;
    fn cuLaunchKernel(
        function: CUfunction,
        grid_x: c_uint,
        grid_y: c_uint,
        grid_z: c_uint,
        block_x: c_uint,
        block_y: c_uint,
        block_z: c_uint,
        shared_bytes: c_uint,
        stream: CUstream,
        parameters: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> CUresult;
    fn cuEventCreate(event: *mut CUevent, flags: c_uint) -> CUresult;
    fn cuEventDestroy_v2(event: CUevent) -> CUresult;
    fn cuEventRecord(event: CUevent, stream: CUstream) -> CUresult;
    fn cuEventSynchronize(event: CUevent) -> CUresult;
    fn cuEventElapsedTime(milliseconds: *mut f32, start: CUevent, end: CUevent) -> CUresult;
    fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks: *mut c_int,
        function: CUfunction,
        block_size: c_int,
        dynamic_shared_bytes: usize,
    ) -> CUresult;
}

/// The CUDA driver, opened to launch kernels.
#[allow(missing_debug_implementations)]
pub struct CudaLaunch {
    /// The functions.
    pub api: CudaLaunchApi,
    _library: OpenLibrary,
}

impl CudaLaunch {
    /// The driver, as `libcuda.so.1`.
    pub fn load() -> Result<CudaLaunch, LoadError> {
        let library = dylib::open_first("the CUDA driver (libcuda.so.1)", &["libcuda.so.1"])?;
        // SAFETY: the library is libcuda by name, and it stays open as long as the table.
        let api = unsafe { CudaLaunchApi::resolve(&library.library, &library.name)? };
        Ok(CudaLaunch { api, _library: library })
    }
}
