//! What a driver launch callback says of the launch: which kernel and grid (the shape whose
//! passes take turns), read from the call's parameters.

use std::ffi::{CStr, c_void};

use rocprofiler_sdk_sys::cupti as sys;

/// A kernel launch seen at a driver callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// The kernel and its grid, hashed: what the rotation keys on.
    pub shape: u64,
    /// Whether the call launches one kernel (a graph launch runs many: never counted).
    pub single: bool,
}

/// The grid of a launch from its parameters (`cuLaunchKernel_params` and its `_ptsz` and
/// cooperative twins start with the function and the three grid dimensions;
/// `cuLaunchKernelEx_params` starts with a pointer to a `CUlaunchConfig`, which starts with
/// them).
///
/// # Safety
/// `params` must be the `functionParams` of a driver callback of `cbid`, live for the call.
pub unsafe fn grid(cbid: u32, params: *const c_void) -> Option<[u32; 3]> {
    if params.is_null() {
        return None;
    }
    match cbid {
        sys::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel
        | sys::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz
        | sys::CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel
        | sys::CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz => {
            #[repr(C)]
            struct Head {
                function: *mut c_void,
                grid: [u32; 3],
            }
            // SAFETY: these calls' parameter structs begin with this layout (generated_cuda_meta.h).
            let head = unsafe { &*params.cast::<Head>() };
            Some(head.grid)
        }
        sys::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx | sys::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz => {
            // SAFETY: `cuLaunchKernelEx_params` begins with `const CUlaunchConfig *config`.
            let config = unsafe { *params.cast::<*const [u32; 3]>() };
            // SAFETY: a CUlaunchConfig begins with gridDimX, gridDimY, gridDimZ; the driver
            // has it for the call's duration, and it is checked non-null.
            (!config.is_null()).then(|| unsafe { *config })
        }
        _ => None,
    }
}

/// The launch a driver callback describes.
///
/// # Safety
/// `data` must be the callback data of a driver callback of `cbid`, live for the call.
pub unsafe fn launch(cbid: u32, data: &sys::CUpti_CallbackData) -> Launch {
    let single =
        !matches!(cbid, sys::CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch | sys::CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz);
    // SAFETY: as the caller vouches.
    let grid = unsafe { grid(cbid, data.functionParams) }.unwrap_or([0; 3]);
    let name = if data.symbolName.is_null() {
        &[][..]
    } else {
        // SAFETY: CUPTI's NUL-terminated symbol name, live during the callback.
        unsafe { CStr::from_ptr(data.symbolName) }.to_bytes()
    };
    Launch { shape: shape(name, grid), single }
}

/// One number for a kernel name and grid (FNV-1a over both).
pub fn shape(name: &[u8], grid: [u32; 3]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.iter().copied().chain(grid.iter().flat_map(|g| g.to_le_bytes())) {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_come_from_each_launch_call_s_parameters() {
        #[repr(C)]
        struct Params {
            f: *mut c_void,
            grid: [u32; 3],
            block: [u32; 3],
        }
        let p = Params { f: std::ptr::null_mut(), grid: [4, 5, 6], block: [1, 1, 1] };
        let at = (&p as *const Params).cast::<c_void>();
        // SAFETY: a struct of the launch parameters' layout.
        assert_eq!(unsafe { grid(sys::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, at) }, Some([4, 5, 6]));
        let config: [u32; 7] = [7, 8, 9, 32, 1, 1, 0];
        let ex: *const [u32; 7] = &config;
        let at = (&ex as *const *const [u32; 7]).cast::<c_void>();
        // SAFETY: a pointer to a CUlaunchConfig-like array, as cuLaunchKernelEx_params holds.
        assert_eq!(unsafe { grid(sys::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, at) }, Some([7, 8, 9]));
        // SAFETY: a null pointer is refused before any read.
        assert_eq!(unsafe { grid(sys::CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, std::ptr::null()) }, None);
    }

    #[test]
    fn a_shape_is_the_name_and_the_grid() {
        assert_eq!(shape(b"k", [1, 2, 3]), shape(b"k", [1, 2, 3]));
        assert_ne!(shape(b"k", [1, 2, 3]), shape(b"k", [1, 2, 4]));
        assert_ne!(shape(b"k", [1, 2, 3]), shape(b"j", [1, 2, 3]));
    }
}
