//! The shared half of rocprof-rs's simulated rocprofiler-sdk: the runtime interface between the
//! workload driver and the simulated `librocprofiler-sdk.so.1`, the kernel and hardware model
//! both sides use, the workload generator, and the ground-truth CSV.
//!
//! Everything here is **simulated**: no GPU is involved, and nothing it produces may be presented
//! as a hardware measurement. It exists because no AMD GPU is available to the project or its CI;
//! the simulator lets the tool run end to end through the same entry points, record layouts and
//! semantics as the real SDK, against a ground truth.
//!
//! - [`runtime_abi`]: the `rocprofiler_sim_*` functions the driver calls where an application
//!   would call HIP.
//! - [`kernels`], [`hw`]: the kernel catalog (names, descriptors, durations) and the counter
//!   model (catalog, dimensions, hardware limits, per-instance values).
//! - [`workload`]: a deterministic plan of API calls, dispatches, copies and markers per thread.
//! - [`pc_model`]: each kernel's instruction stream and the PC samples taken from it.
//! - [`pc_truth`]: the PC-sample truth table beside the truth CSV.
//! - [`truth`]: the ground-truth CSV, and the comparison tests use.
//! - [`ranks`]: N ranks of a training job as N processes, their shared board of arrivals, and
//!   the launcher's `ranks-truth.json`.

// Test fixtures driving C APIs: FFI sequences read better as one commented block per call site.
#![allow(clippy::multiple_unsafe_ops_per_block)]

pub mod app;
pub mod hw;
pub mod kernels;
pub mod ops;
pub mod pc_model;
pub mod pc_truth;
pub mod ranks;
pub mod rng;
pub mod runtime_abi;
pub mod truth;
pub mod workload;

/// Printed and written wherever the simulator produces output.
pub const SIMULATED_BANNER: &str = "SIMULATED rocprofiler-sdk (rocprof-sim): no GPU was used; not a hardware result";

/// Declares the table of `rocprofiler_sim_*` functions the driver resolves from the simulator.
macro_rules! sim_api {
    ($($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;)*) => {
        /// The simulated runtime interface, one pointer per function.
        #[allow(missing_debug_implementations)]
        pub struct SimRuntimeApi {
            $($(#[$doc])* pub $name: unsafe extern "C" fn($($arg: $ty),*) -> $ret,)*
        }

        impl SimRuntimeApi {
            /// Every symbol name in the table.
            pub const SYMBOLS: &'static [&'static str] = &[$(stringify!($name)),*];

            /// # Safety
            /// `library` must be the simulator, whose exports have these signatures.
            unsafe fn resolve(library: &Library) -> Result<Self, String> {
                Ok(Self {
                    $(
                        // SAFETY: the caller vouches for the signature.
                        $name: *unsafe { library.get::<unsafe extern "C" fn($($ty),*) -> $ret>(
                            concat!(stringify!($name), "\0").as_bytes(),
                        ) }
                        .map_err(|e| format!("the simulated SDK lacks {}: {e}", stringify!($name)))?,
                    )*
                })
            }
        }
    };
}
pub(crate) use sim_api;
