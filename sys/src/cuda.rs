//! The few CUDA driver functions the device sampler needs to name NVML's GPUs by their CUDA
//! ordinals (the `agent_id` of every CUDA row): checked declarations from `cuda.h`, resolved in
//! the libcuda already in the process.

use std::ffi::c_int;

use crate::dylib::{self, LoadError, OpenLibrary, dynamic_api};

/// `CUresult`: 0 is success.
pub type CUresult = c_int;
/// `CUDA_SUCCESS`.
pub const CUDA_SUCCESS: CUresult = 0;
/// `CUdevice`: an ordinal.
pub type CUdevice = c_int;

/// `CUuuid`: 16 bytes, as NVML prints them after `GPU-`.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CUuuid {
    pub bytes: [u8; 16],
}

dynamic_api! {
    /// The driver functions the sampler calls.
    pub struct CudaDriverApi;
    check = any(), unused;

    fn cuInit(flags: u32) -> CUresult;
    fn cuDeviceGetCount(count: *mut c_int) -> CUresult;
    fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult;
    fn cuDeviceGetUuid(uuid: *mut CUuuid, device: CUdevice) -> CUresult;
}

/// The CUDA driver and its functions.
#[allow(missing_debug_implementations)]
pub struct CudaDriver {
    /// The functions.
    pub api: CudaDriverApi,
    _library: OpenLibrary,
}

impl CudaDriver {
    /// The driver, as `libcuda.so.1`: the one in the process when there is one.
    pub fn load() -> Result<CudaDriver, LoadError> {
        let library = dylib::open_first("the CUDA driver (libcuda.so.1)", &["libcuda.so.1"])?;
        // SAFETY: the library is libcuda by name, and it stays open as long as the table.
        let api = unsafe { CudaDriverApi::resolve(&library.library, &library.name)? };
        Ok(CudaDriver { api, _library: library })
    }

    /// The most devices [`CudaDriver::device_uuids`] believes the driver: more than any machine
    /// has, few enough that asking each costs nothing.
    pub const MAX_DEVICES: c_int = 1024;

    /// The UUID of every device CUDA sees, by ordinal; empty where the driver fails or reports
    /// a count beyond [`CudaDriver::MAX_DEVICES`].
    pub fn device_uuids(&self) -> Vec<[u8; 16]> {
        let mut count: c_int = 0;
        // SAFETY: cuInit is idempotent and thread-safe.
        let initialised = unsafe { (self.api.cuInit)(0) } == CUDA_SUCCESS;
        // SAFETY: a valid out-pointer.
        if !initialised || unsafe { (self.api.cuDeviceGetCount)(&mut count) } != CUDA_SUCCESS {
            return Vec::new();
        }
        if !(0..=Self::MAX_DEVICES).contains(&count) {
            return Vec::new();
        }
        let mut uuids = Vec::new();
        for ordinal in 0..count {
            let (mut device, mut uuid): (CUdevice, CUuuid) = (0, CUuuid::default());
            // SAFETY: both out-pointers are valid; `ordinal` is below the count.
            let ok = unsafe { (self.api.cuDeviceGet)(&mut device, ordinal) } == CUDA_SUCCESS
                && unsafe { (self.api.cuDeviceGetUuid)(&mut uuid, device) } == CUDA_SUCCESS;
            uuids.push(if ok { uuid.bytes } else { [0; 16] });
        }
        uuids
    }
}
