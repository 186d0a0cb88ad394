//! The HIP runtime and hiprtc subset a Rust HIP application needs: compile a kernel at run time,
//! load it, launch it and time it. Declarations come from bindgen where HIP headers exist and
//! from [`checked`] otherwise; functions are resolved at run time like the SDK's.

pub mod checked;

#[cfg(rocprofiler_sdk_sys_hip_bindgen)]
#[allow(
    clippy::all,
    clippy::restriction,
    clippy::pedantic,
    dead_code,
    missing_debug_implementations,
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/hip.rs"));
}

#[cfg(not(rocprofiler_sdk_sys_hip_bindgen))]
pub use checked::*;
#[cfg(rocprofiler_sdk_sys_hip_bindgen)]
pub use generated::*;

mod api;
pub use api::*;

/// Where this build's HIP declarations came from: `"bindgen"` or `"checked"`.
pub const DECLARATIONS: &str = if cfg!(rocprofiler_sdk_sys_hip_bindgen) { "bindgen" } else { "checked" };
