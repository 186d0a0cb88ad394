//! Counters and dispatch counting (`counters.h`, `fwd.h`, `dispatch_counting_service.h`).
//! All marked experimental in 1.0, and all used by rocprofv3.

use std::os::raw::{c_char, c_void};

use super::{
    __BindgenBitfieldUnit, rocprofiler_agent_id_t, rocprofiler_async_correlation_id_t, rocprofiler_counter_config_id_t,
    rocprofiler_counter_dimension_id_t, rocprofiler_counter_id_t, rocprofiler_counter_instance_id_t,
    rocprofiler_dispatch_id_t, rocprofiler_kernel_dispatch_info_t, rocprofiler_status_t, rocprofiler_timestamp_t,
    rocprofiler_user_data_t, zeroed_default,
};

/// Counter description, version 0 (48 bytes).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct rocprofiler_counter_info_v0_t {
    pub id: rocprofiler_counter_id_t,
    pub name: *const c_char,
    pub description: *const c_char,
    /// Hardware block (`SQ`, `TCC`, ...) of a base counter.
    pub block: *const c_char,
    /// The expression of a derived counter.
    pub expression: *const c_char,
    pub _bitfield_1: __BindgenBitfieldUnit<[u8; 1]>,
    pub __bindgen_padding_0: [u8; 7],
}

/// Counter description, version 1 (88 bytes in 1.0; newer SDKs append `spm_support`, so the
/// project hands the SDK a larger buffer than this).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct rocprofiler_counter_info_v1_t {
    pub size: u64,
    pub id: rocprofiler_counter_id_t,
    pub name: *const c_char,
    pub description: *const c_char,
    pub block: *const c_char,
    pub expression: *const c_char,
    pub _bitfield_1: __BindgenBitfieldUnit<[u8; 1]>,
    pub dimensions_count: u64,
    pub dimensions: *mut *const rocprofiler_counter_record_dimension_info_t,
    pub dimensions_instances_count: u64,
    pub dimensions_instances: *mut *const rocprofiler_counter_record_dimension_instance_info_t,
}

macro_rules! counter_flags {
    ($($ty:ty),*) => {
        $(
            impl $ty {
                /// Non-zero when the counter is a constant of the agent.
                pub fn is_constant(&self) -> u8 {
                    self._bitfield_1.get(0, 1) as u8
                }
                /// Non-zero when the counter is derived from others by an expression.
                pub fn is_derived(&self) -> u8 {
                    self._bitfield_1.get(1, 1) as u8
                }
                /// Sets `is_constant` (bindgen's setter).
                pub fn set_is_constant(&mut self, value: u8) {
                    self._bitfield_1.set(0, 1, u64::from(value))
                }
                /// Sets `is_derived` (bindgen's setter).
                pub fn set_is_derived(&mut self, value: u8) {
                    self._bitfield_1.set(1, 1, u64::from(value))
                }
            }
        )*
    };
}
counter_flags!(rocprofiler_counter_info_v0_t, rocprofiler_counter_info_v1_t);

/// One dimension of a counter's instances.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct rocprofiler_counter_record_dimension_info_t {
    pub name: *const c_char,
    pub instance_size: usize,
    pub id: rocprofiler_counter_dimension_id_t,
}

/// A dimension's position within one instance.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct rocprofiler_counter_dimension_info_t {
    pub size: u64,
    pub dimension_name: *const c_char,
    pub index: usize,
}

/// One instance of a counter and its position along every dimension.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct rocprofiler_counter_record_dimension_instance_info_t {
    pub size: u64,
    pub instance_id: rocprofiler_counter_instance_id_t,
    pub counter_id: u64,
    pub dimensions_count: u64,
    pub dimensions: *mut *const rocprofiler_counter_dimension_info_t,
}

/// One counter value of one instance (40 bytes).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_counter_record_t {
    pub id: rocprofiler_counter_instance_id_t,
    pub counter_value: f64,
    pub dispatch_id: rocprofiler_dispatch_id_t,
    pub user_data: rocprofiler_user_data_t,
    pub agent_id: rocprofiler_agent_id_t,
}

/// The dispatch a counting callback is about (168 bytes; passed by value).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_dispatch_counting_service_data_t {
    pub size: u64,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    /// Zero in the dispatch callback; set in the record callback.
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dispatch_info: rocprofiler_kernel_dispatch_info_t,
}

/// The header record in a buffer before `num_records` counter values (176 bytes).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_dispatch_counting_service_record_t {
    pub size: u64,
    pub num_records: u64,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dispatch_info: rocprofiler_kernel_dispatch_info_t,
}

/// Lists an agent's supported counters.
pub type rocprofiler_available_counters_cb_t = Option<
    unsafe extern "C" fn(
        agent_id: rocprofiler_agent_id_t,
        counters: *mut rocprofiler_counter_id_t,
        num_counters: usize,
        user_data: *mut c_void,
    ) -> rocprofiler_status_t,
>;

/// Runs on the launching thread before a dispatch; setting `*config` asks for its counters.
pub type rocprofiler_dispatch_counting_service_cb_t = Option<
    unsafe extern "C" fn(
        dispatch_data: rocprofiler_dispatch_counting_service_data_t,
        config: *mut rocprofiler_counter_config_id_t,
        user_data: *mut rocprofiler_user_data_t,
        callback_data_args: *mut c_void,
    ),
>;

/// Delivers a dispatch's counter values (callback mode).
pub type rocprofiler_dispatch_counting_record_cb_t = Option<
    unsafe extern "C" fn(
        dispatch_data: rocprofiler_dispatch_counting_service_data_t,
        record_data: *mut rocprofiler_counter_record_t,
        record_count: usize,
        user_data: rocprofiler_user_data_t,
        callback_data_args: *mut c_void,
    ),
>;

zeroed_default!(
    rocprofiler_counter_info_v0_t,
    rocprofiler_counter_info_v1_t,
    rocprofiler_counter_record_dimension_info_t,
    rocprofiler_counter_dimension_info_t,
    rocprofiler_counter_record_dimension_instance_info_t,
    rocprofiler_counter_record_t,
    rocprofiler_dispatch_counting_service_data_t,
    rocprofiler_dispatch_counting_service_record_t,
);
