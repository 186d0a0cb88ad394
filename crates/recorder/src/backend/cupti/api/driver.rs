//! The CUDA driver, for a command-line listing (`avail`) that has no CUDA context of its own.

/// How many GPUs the CUDA driver has, if it loads and initialises (`cuInit`, then
/// `cuDeviceGetCount`, from `libcuda.so.1` loaded at run time).
pub fn device_count() -> Option<u32> {
    type Init = unsafe extern "C" fn(u32) -> i32;
    type Count = unsafe extern "C" fn(*mut i32) -> i32;
    // SAFETY: a NUL-terminated name; the driver stays loaded for the process.
    let lib = unsafe { libc::dlopen(c"libcuda.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    if lib.is_null() {
        return None;
    }
    // SAFETY: an open library and a NUL-terminated symbol name.
    let init = unsafe { libc::dlsym(lib, c"cuInit".as_ptr()) };
    // SAFETY: as above.
    let count = unsafe { libc::dlsym(lib, c"cuDeviceGetCount".as_ptr()) };
    if init.is_null() || count.is_null() {
        return None;
    }
    // SAFETY: the driver API's `CUresult cuInit(unsigned int)`, resolved from libcuda itself.
    let init = unsafe { std::mem::transmute::<*mut libc::c_void, Init>(init) };
    // SAFETY: the driver API's `CUresult cuDeviceGetCount(int *)`, likewise.
    let count = unsafe { std::mem::transmute::<*mut libc::c_void, Count>(count) };
    let mut n = 0;
    // SAFETY: as above, with a valid out-pointer.
    (unsafe { init(0) } == 0 && unsafe { count(&mut n) } == 0 && n > 0).then_some(n as u32)
}

/// Whether the CUDA driver (`libcuda.so.1`) loads in this process; it stays loaded, as CUPTI
/// loads it anyway.
pub fn present() -> bool {
    // SAFETY: a NUL-terminated name; the library, NVIDIA's driver, is left loaded for the process.
    !unsafe { libc::dlopen(c"libcuda.so.1".as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL) }.is_null()
}
