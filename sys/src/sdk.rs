//! The rocprofiler-sdk functions the project calls, resolved at run time.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::path::PathBuf;

use crate::dylib::{self, LoadError, OpenLibrary, Origin, dynamic_api};
use crate::*;

/// The SONAME of SDK ABI 1.x. 0.x (`.so.0`) has a different ABI and is never opened.
pub const SONAME: &str = "librocprofiler-sdk.so.1";

/// The lowest `version` argument of `rocprofiler_configure` this ABI accepts (1.0.0).
pub const MIN_VERSION: u32 = 10000;

/// Splits the SDK's `10000 * major + 100 * minor + patch` encoding.
pub const fn split_version(version: u32) -> (u32, u32, u32) {
    (version / 10000, version / 100 % 100, version % 100)
}

dynamic_api! {
    /// The SDK's functions, one pointer each.
    pub struct SdkApi;
    check = rocprofiler_sdk_sys_bindgen, generated;

    fn rocprofiler_get_version(major: *mut u32, minor: *mut u32, patch: *mut u32) -> rocprofiler_status_t;
    fn rocprofiler_get_version_triplet(info: *mut rocprofiler_version_triplet_t) -> rocprofiler_status_t;
    fn rocprofiler_get_status_name(status: rocprofiler_status_t) -> *const c_char;
    fn rocprofiler_get_status_string(status: rocprofiler_status_t) -> *const c_char;
    fn rocprofiler_get_timestamp(ts: *mut rocprofiler_timestamp_t) -> rocprofiler_status_t;
    fn rocprofiler_get_thread_id(tid: *mut rocprofiler_thread_id_t) -> rocprofiler_status_t;
    fn rocprofiler_is_initialized(status: *mut c_int) -> rocprofiler_status_t;
    fn rocprofiler_is_finalized(status: *mut c_int) -> rocprofiler_status_t;
    fn rocprofiler_force_configure(configure_func: rocprofiler_configure_func_t) -> rocprofiler_status_t;

    fn rocprofiler_create_context(context_id: *mut rocprofiler_context_id_t) -> rocprofiler_status_t;
    fn rocprofiler_start_context(context_id: rocprofiler_context_id_t) -> rocprofiler_status_t;
    fn rocprofiler_stop_context(context_id: rocprofiler_context_id_t) -> rocprofiler_status_t;
    fn rocprofiler_context_is_active(context_id: rocprofiler_context_id_t, status: *mut c_int) -> rocprofiler_status_t;
    fn rocprofiler_context_is_valid(context_id: rocprofiler_context_id_t, status: *mut c_int) -> rocprofiler_status_t;

    fn rocprofiler_create_buffer(
        context: rocprofiler_context_id_t,
        size: usize,
        watermark: usize,
        policy: rocprofiler_buffer_policy_t,
        callback: rocprofiler_buffer_tracing_cb_t,
        callback_data: *mut c_void,
        buffer_id: *mut rocprofiler_buffer_id_t,
    ) -> rocprofiler_status_t;
    fn rocprofiler_flush_buffer(buffer_id: rocprofiler_buffer_id_t) -> rocprofiler_status_t;
    fn rocprofiler_destroy_buffer(buffer_id: rocprofiler_buffer_id_t) -> rocprofiler_status_t;
    fn rocprofiler_create_callback_thread(cb_thread_id: *mut rocprofiler_callback_thread_t) -> rocprofiler_status_t;
    fn rocprofiler_assign_callback_thread(
        buffer_id: rocprofiler_buffer_id_t,
        cb_thread_id: rocprofiler_callback_thread_t,
    ) -> rocprofiler_status_t;

    fn rocprofiler_configure_buffer_tracing_service(
        context_id: rocprofiler_context_id_t,
        kind: rocprofiler_buffer_tracing_kind_t,
        operations: *const rocprofiler_tracing_operation_t,
        operations_count: usize,
        buffer_id: rocprofiler_buffer_id_t,
    ) -> rocprofiler_status_t;
    fn rocprofiler_configure_callback_tracing_service(
        context_id: rocprofiler_context_id_t,
        kind: rocprofiler_callback_tracing_kind_t,
        operations: *const rocprofiler_tracing_operation_t,
        operations_count: usize,
        callback: rocprofiler_callback_tracing_cb_t,
        callback_args: *mut c_void,
    ) -> rocprofiler_status_t;

    fn rocprofiler_query_buffer_tracing_kind_name(
        kind: rocprofiler_buffer_tracing_kind_t,
        name: *mut *const c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t;
    fn rocprofiler_query_buffer_tracing_kind_operation_name(
        kind: rocprofiler_buffer_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        name: *mut *const c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t;
    fn rocprofiler_query_callback_tracing_kind_name(
        kind: rocprofiler_callback_tracing_kind_t,
        name: *mut *const c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t;
    fn rocprofiler_query_callback_tracing_kind_operation_name(
        kind: rocprofiler_callback_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        name: *mut *const c_char,
        name_len: *mut u64,
    ) -> rocprofiler_status_t;
    fn rocprofiler_iterate_buffer_tracing_kinds(
        callback: rocprofiler_buffer_tracing_kind_cb_t,
        data: *mut c_void,
    ) -> rocprofiler_status_t;
    fn rocprofiler_iterate_buffer_tracing_kind_operations(
        kind: rocprofiler_buffer_tracing_kind_t,
        callback: rocprofiler_buffer_tracing_kind_operation_cb_t,
        data: *mut c_void,
    ) -> rocprofiler_status_t;
    fn rocprofiler_iterate_callback_tracing_kinds(
        callback: rocprofiler_callback_tracing_kind_cb_t,
        data: *mut c_void,
    ) -> rocprofiler_status_t;
    fn rocprofiler_iterate_callback_tracing_kind_operations(
        kind: rocprofiler_callback_tracing_kind_t,
        callback: rocprofiler_callback_tracing_kind_operation_cb_t,
        data: *mut c_void,
    ) -> rocprofiler_status_t;

    fn rocprofiler_query_available_agents(
        version: rocprofiler_agent_version_t,
        callback: rocprofiler_query_available_agents_cb_t,
        agent_size: usize,
        user_data: *mut c_void,
    ) -> rocprofiler_status_t;

    fn rocprofiler_iterate_agent_supported_counters(
        agent_id: rocprofiler_agent_id_t,
        cb: rocprofiler_available_counters_cb_t,
        user_data: *mut c_void,
    ) -> rocprofiler_status_t;
    fn rocprofiler_query_counter_info(
        counter_id: rocprofiler_counter_id_t,
        version: rocprofiler_counter_info_version_id_t,
        info: *mut c_void,
    ) -> rocprofiler_status_t;
    fn rocprofiler_query_record_counter_id(
        id: rocprofiler_counter_instance_id_t,
        counter_id: *mut rocprofiler_counter_id_t,
    ) -> rocprofiler_status_t;
    fn rocprofiler_query_record_dimension_position(
        id: rocprofiler_counter_instance_id_t,
        dim: rocprofiler_counter_dimension_id_t,
        pos: *mut usize,
    ) -> rocprofiler_status_t;
    fn rocprofiler_create_counter_config(
        agent_id: rocprofiler_agent_id_t,
        counters_list: *mut rocprofiler_counter_id_t,
        counters_count: usize,
        config_id: *mut rocprofiler_counter_config_id_t,
    ) -> rocprofiler_status_t;
    fn rocprofiler_destroy_counter_config(config_id: rocprofiler_counter_config_id_t) -> rocprofiler_status_t;
    fn rocprofiler_configure_buffer_dispatch_counting_service(
        context_id: rocprofiler_context_id_t,
        buffer_id: rocprofiler_buffer_id_t,
        callback: rocprofiler_dispatch_counting_service_cb_t,
        callback_data_args: *mut c_void,
    ) -> rocprofiler_status_t;
    fn rocprofiler_configure_callback_dispatch_counting_service(
        context_id: rocprofiler_context_id_t,
        dispatch_callback: rocprofiler_dispatch_counting_service_cb_t,
        dispatch_callback_args: *mut c_void,
        record_callback: rocprofiler_dispatch_counting_record_cb_t,
        record_callback_args: *mut c_void,
    ) -> rocprofiler_status_t;

    fn rocprofiler_query_pc_sampling_agent_configurations(
        agent_id: rocprofiler_agent_id_t,
        cb: rocprofiler_available_pc_sampling_configurations_cb_t,
        user_data: *mut c_void,
    ) -> rocprofiler_status_t;
    fn rocprofiler_configure_pc_sampling_service(
        context_id: rocprofiler_context_id_t,
        agent_id: rocprofiler_agent_id_t,
        method: rocprofiler_pc_sampling_method_t,
        unit: rocprofiler_pc_sampling_unit_t,
        interval: u64,
        buffer_id: rocprofiler_buffer_id_t,
        flags: c_int,
    ) -> rocprofiler_status_t;
}

/// The loaded SDK: its functions and where they came from.
#[derive(Debug)]
pub struct Sdk {
    api: SdkApi,
    library: OpenLibrary,
}

impl std::fmt::Debug for SdkApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SdkApi").field("functions", &Self::SYMBOLS.len()).finish()
    }
}

impl Sdk {
    /// The SDK already in this process (the one that loaded our tool), else the one the dynamic
    /// loader finds by SONAME.
    pub fn load() -> Result<Self, LoadError> {
        Self::from_library(dylib::open_first("librocprofiler-sdk (SDK ABI 1.x)", &[SONAME])?)
    }

    /// The SDK at `path` (a ROCm install's `lib/librocprofiler-sdk.so.1`, say).
    pub fn load_from(path: &std::path::Path) -> Result<Self, LoadError> {
        let path = path.to_string_lossy();
        Self::from_library(dylib::open_first("librocprofiler-sdk (SDK ABI 1.x)", &[path.as_ref()])?)
    }

    fn from_library(library: OpenLibrary) -> Result<Self, LoadError> {
        // SAFETY: the library was opened by the 1.x SONAME (or a path the caller chose as such),
        // so its exports have the 1.x signatures declared above; `library` is kept alongside.
        let api = unsafe { SdkApi::resolve(&library.library, &library.name) }?;
        Ok(Self { api, library })
    }

    /// The function table.
    pub fn api(&self) -> &SdkApi {
        &self.api
    }

    /// Whether the SDK was already loaded or opened by us.
    pub fn origin(&self) -> Origin {
        self.library.origin
    }

    /// The file the SDK was loaded from.
    pub fn path(&self) -> Option<PathBuf> {
        dylib::file_of(self.api.rocprofiler_get_version as usize)
    }

    /// `(major, minor, patch)` as the library reports it.
    pub fn version(&self) -> Result<(u32, u32, u32), rocprofiler_status_t> {
        let (mut major, mut minor, mut patch) = (0, 0, 0);
        // SAFETY: three valid out-pointers to u32.
        let status = unsafe { (self.api.rocprofiler_get_version)(&mut major, &mut minor, &mut patch) };
        if status == ROCPROFILER_STATUS_SUCCESS { Ok((major, minor, patch)) } else { Err(status) }
    }

    /// The SDK's own message for `status`, if it knows the code.
    pub fn status_string(&self, status: rocprofiler_status_t) -> Option<&'static str> {
        // SAFETY: the function takes any value and returns null or a static string.
        static_str(unsafe { (self.api.rocprofiler_get_status_string)(status) })
    }

    /// The SDK's name for `status` (`ROCPROFILER_STATUS_ERROR_...`), if it knows the code.
    pub fn status_name(&self, status: rocprofiler_status_t) -> Option<&'static str> {
        // SAFETY: as for `status_string`.
        static_str(unsafe { (self.api.rocprofiler_get_status_name)(status) })
    }
}

/// Reads a string the SDK documents as living for the whole process.
fn static_str(ptr: *const c_char) -> Option<&'static str> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: non-null, NUL-terminated and static per the SDK's contract for these queries.
    unsafe { CStr::from_ptr(ptr) }.to_str().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_split_as_the_sdk_encodes_them() {
        assert_eq!(split_version(10000), (1, 0, 0));
        assert_eq!(split_version(10305), (1, 3, 5));
        assert_eq!(split_version(600), (0, 6, 0));
    }

    #[test]
    fn the_table_covers_every_declared_function_once() {
        let mut names = SdkApi::SYMBOLS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SdkApi::SYMBOLS.len());
        assert!(names.iter().all(|n| n.starts_with("rocprofiler_")));
    }
}
