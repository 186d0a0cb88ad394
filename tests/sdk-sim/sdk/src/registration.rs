//! Client discovery and the SDK lifecycle, after `registration.cpp` of SDK 1.0.
//!
//! Order of discovery: the forced configure function; each library in `ROCP_TOOL_LIBRARIES`
//! (split on ':', where 1.0 drops the entry after the last ':' when there is more than one, and
//! aborts the process if one cannot be opened); then `rocprofiler_configure` through
//! `RTLD_DEFAULT` and `RTLD_NEXT`. Duplicates (same function address) are skipped. (1.0 also
//! walks the link map for further preloaded tools; the simulator does not.)
//!
//! Lifecycle: init status 0 → -1 (configure, initialize: the only window for creating contexts,
//! buffers and services) → 1. Finalize runs once, from `atexit` or a client's `finalize_func`.

use std::ffi::{CStr, CString, c_void};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Mutex, Once};

use rocprofiler_sdk_sys::*;

use crate::ffi::log;
use crate::{context, gpu, runtime, threads};

type RawConfigure = unsafe extern "C" fn(
    u32,
    *const std::ffi::c_char,
    u32,
    *mut rocprofiler_client_id_t,
) -> *mut rocprofiler_tool_configure_result_t;

static INIT: AtomicI32 = AtomicI32::new(0);
static FINI: AtomicI32 = AtomicI32::new(0);
static FORCED: Mutex<rocprofiler_configure_func_t> = Mutex::new(None);
static CURRENT_CLIENT: AtomicU64 = AtomicU64::new(0);
static CLIENTS: Mutex<Vec<Client>> = Mutex::new(Vec::new());

/// Client handles start at an arbitrary offset, as in 1.0 (which draws it at random).
const CLIENT_OFFSET: u32 = 0x5100;

struct Client {
    name: String,
    configure: unsafe extern "C" fn(
        u32,
        *const std::ffi::c_char,
        u32,
        *mut rocprofiler_client_id_t,
    ) -> *mut rocprofiler_tool_configure_result_t,
    id: rocprofiler_client_id_t,
    result: Option<rocprofiler_tool_configure_result_t>,
}

// SAFETY: `Client` holds C function pointers and the tool's `tool_data` pointer, which the SDK
// contract lets any SDK thread pass back to the tool.
unsafe impl Send for Client {}

pub fn init_status() -> i32 {
    INIT.load(Ordering::Acquire)
}

pub fn fini_status() -> i32 {
    FINI.load(Ordering::Acquire)
}

/// Whether configuration calls are allowed now (inside `initialize`).
pub fn configuring() -> bool {
    init_status() == -1
}

/// The client whose `initialize` is running.
pub fn current_client() -> u64 {
    CURRENT_CLIENT.load(Ordering::Acquire)
}

/// `rocprofiler_force_configure`.
pub fn force(configure: rocprofiler_configure_func_t) -> rocprofiler_status_t {
    if init_status() != 0 {
        return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    }
    {
        let mut forced = FORCED.lock().unwrap();
        if forced.is_some() {
            return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        *forced = configure;
    }
    initialize();
    ROCPROFILER_STATUS_SUCCESS
}

fn configure_symbol(handle: *mut c_void) -> rocprofiler_configure_func_t {
    // SAFETY: dlsym with a valid handle (or pseudo-handle) and a NUL-terminated name.
    let symbol = unsafe { libc::dlsym(handle, c"rocprofiler_configure".as_ptr()) };
    if symbol.is_null() {
        None
    } else {
        // SAFETY: a tool's `rocprofiler_configure` has this signature by contract.
        Some(unsafe { std::mem::transmute::<*mut c_void, RawConfigure>(symbol) })
    }
}

/// `ROCP_TOOL_LIBRARIES` as 1.0 parses it: with no ':' the whole value; otherwise each token
/// before a ':', so the one after the last ':' is lost.
pub fn tool_libraries(value: &str) -> Vec<String> {
    if value.is_empty() {
        return Vec::new();
    }
    if !value.contains(':') {
        return vec![value.to_owned()];
    }
    let mut tokens: Vec<String> = value.split(':').map(str::to_owned).collect();
    tokens.pop();
    tokens.retain(|t| !t.is_empty());
    tokens
}

fn find_clients() -> Vec<Client> {
    let mut clients: Vec<Client> = Vec::new();
    let add = |clients: &mut Vec<Client>, name: String, configure: rocprofiler_configure_func_t| {
        let Some(configure) = configure else { return };
        if clients.iter().any(|c| c.configure as usize == configure as usize) {
            return;
        }
        let handle = CLIENT_OFFSET + clients.len() as u32;
        let id = rocprofiler_client_id_t {
            size: std::mem::size_of::<rocprofiler_client_id_t>(),
            name: std::ptr::null(),
            handle,
        };
        clients.push(Client { name, configure, id, result: None });
    };
    let forced = *FORCED.lock().unwrap();
    add(&mut clients, "(forced)".into(), forced);
    for path in tool_libraries(&std::env::var("ROCP_TOOL_LIBRARIES").unwrap_or_default()) {
        let Ok(c_path) = CString::new(path.as_str()) else { continue };
        // SAFETY: dlopen with a NUL-terminated path; RTLD_NOLOAD loads nothing.
        let mut handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOLOAD | libc::RTLD_LAZY) };
        if handle.is_null() {
            // SAFETY: as above; the tool's initialisers run, as they do under the real SDK.
            handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_LOCAL | libc::RTLD_LAZY) };
        }
        if handle.is_null() {
            // SAFETY: dlerror returns the loader's last message or null.
            let reason = unsafe { libc::dlerror() };
            let reason = if reason.is_null() {
                String::new()
            } else {
                // SAFETY: dlerror's message is NUL-terminated.
                unsafe { CStr::from_ptr(reason) }.to_string_lossy().into_owned()
            };
            log!("[ROCP_TOOL_LIBRARIES] error dlopening '{path}': {reason}; aborting, as rocprofiler-sdk 1.0 does");
            std::process::abort();
        }
        let configure = configure_symbol(handle);
        if configure.is_none() {
            log!("[ROCP_TOOL_LIBRARIES] tool library '{path}' did not contain rocprofiler_configure symbol");
        }
        add(&mut clients, path, configure);
    }
    add(&mut clients, "(RTLD_DEFAULT)".into(), configure_symbol(libc::RTLD_DEFAULT));
    add(&mut clients, "(RTLD_NEXT)".into(), configure_symbol(libc::RTLD_NEXT));
    clients
}

/// The SDK's threads (and the simulated GPUs' completion thread) in a forked child.
extern "C" fn recreate_threads_in_child() {
    crate::ffi::guard("fork child handler", (), || {
        gpu::reset_after_fork();
        threads::recreate_after_fork();
    });
}

extern "C" fn finalize_at_exit() {
    crate::ffi::guard("atexit finalize", (), finalize);
}

extern "C" fn finalize_everything(_client: rocprofiler_client_id_t) {
    crate::ffi::guard("finalize_func", (), finalize);
}

extern "C" fn finalize_one(client: rocprofiler_client_id_t) {
    crate::ffi::guard("finalize_func", (), || finalize_client(client.handle));
}

/// `registration::initialize`: discovery, configure, initialize; once.
pub fn initialize() {
    static ONCE: Once = Once::new();
    if init_status() != 0 {
        return;
    }
    ONCE.call_once(|| {
        INIT.store(-1, Ordering::Release);
        // SAFETY: registering a plain `extern "C" fn()` with atexit.
        unsafe { libc::atexit(finalize_at_exit) };
        // SAFETY: registering a plain `extern "C" fn()` as a child handler, as 1.0's
        // `internal_threading::initialize` does (before any tool's handlers).
        unsafe { libc::pthread_atfork(None, None, Some(recreate_threads_in_child)) };
        let mut clients = find_clients();
        for client in &mut clients {
            // SAFETY: the tool's configure function, called as the SDK does; the version string
            // is a static NUL-terminated literal and `id` outlives the call.
            let result = unsafe {
                (client.configure)(MIN_SDK_VERSION, c"1.0.0".as_ptr(), client.id.handle - CLIENT_OFFSET, &mut client.id)
            };
            if result.is_null() {
                for ctx in context::of_client(u64::from(client.id.handle)) {
                    ctx.set_active(false);
                }
            } else {
                // SAFETY: a non-null result points to the tool's configure result, which the SDK
                // copies.
                client.result = Some(unsafe { *result });
            }
        }
        let active = clients.iter().filter(|c| c.result.is_some()).count();
        if active > 0 {
            threads::create();
            runtime::announce(
                active,
                &clients.iter().filter(|c| c.result.is_some()).map(|c| c.name.as_str()).collect::<Vec<_>>(),
            );
        }
        let finalize_func: rocprofiler_client_finalize_t =
            if clients.len() == 1 { Some(finalize_everything) } else { Some(finalize_one) };
        let initializers: Vec<_> = clients
            .iter_mut()
            .filter_map(|c| Some((c.id.handle, c.result.as_mut()?)))
            .filter_map(|(handle, r)| Some((handle, r.initialize.take()?, r.tool_data)))
            .collect();
        *CLIENTS.lock().unwrap() = clients;
        for (handle, initialize, tool_data) in initializers {
            CURRENT_CLIENT.store(u64::from(handle), Ordering::Release);
            // SAFETY: the tool's initialize, with the finalize function and its own data.
            unsafe { initialize(finalize_func, tool_data) };
        }
        CURRENT_CLIENT.store(0, Ordering::Release);
        context::freeze();
        INIT.store(1, Ordering::Release);
    });
}

/// The SDK version passed to `rocprofiler_configure`: 1.0.0.
pub const MIN_SDK_VERSION: u32 = 10000;

fn finalize_client(handle: u32) {
    let finalize = {
        let mut clients = CLIENTS.lock().unwrap();
        let Some(client) = clients.iter_mut().find(|c| c.id.handle == handle) else { return };
        client.result.as_mut().and_then(|r| Some((r.finalize.take()?, r.tool_data)))
    };
    for ctx in context::of_client(u64::from(handle)) {
        ctx.set_active(false);
    }
    if let Some((finalize, tool_data)) = finalize {
        gpu::drain();
        let was = FINI.load(Ordering::Acquire);
        if was == 0 {
            FINI.store(-1, Ordering::Release);
        }
        // SAFETY: the tool's finalize, called once with its own data.
        unsafe { finalize(tool_data) };
        if was == 0 {
            FINI.store(0, Ordering::Release);
        }
    }
}

/// `registration::finalize`: once, whoever asks first.
pub fn finalize() {
    static STARTED: AtomicBool = AtomicBool::new(false);
    if fini_status() != 0 || STARTED.swap(true, Ordering::AcqRel) {
        return;
    }
    FINI.store(-1, Ordering::Release);
    gpu::drain();
    runtime::unload_code_objects();
    if init_status() > 0 {
        let handles: Vec<u32> = CLIENTS.lock().unwrap().iter().map(|c| c.id.handle).collect();
        for handle in handles {
            finalize_client(handle);
        }
    }
    threads::shutdown();
    FINI.store(1, Ordering::Release);
}

#[cfg(test)]
mod tests {
    use super::tool_libraries;

    #[test]
    fn rocp_tool_libraries_drops_the_last_token_as_1_0_does() {
        assert_eq!(tool_libraries("/a.so"), ["/a.so"]);
        assert_eq!(tool_libraries("/a.so:/b.so"), ["/a.so"]);
        assert_eq!(tool_libraries("/a.so:/b.so:"), ["/a.so", "/b.so"]);
        assert_eq!(tool_libraries("::/a.so:"), ["/a.so"]);
        assert!(tool_libraries("").is_empty());
    }
}
