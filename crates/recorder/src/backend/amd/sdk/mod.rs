//! AMD's safe layer over rocprofiler-sdk (cudarc's result layer over its sys layer): the
//! process's one SDK ([`load`]), every SDK call wrapped once ([`calls`], [`pc_sampling`]), the typed handles
//! those calls take and return ([`handles`]), and the rules for SDKs newer than the 1.0 ABI
//! ([`compat`]). Nothing else in the crate calls the SDK's function table.

pub mod calls;
pub mod compat;
pub mod handles;
pub mod load;
pub mod pc_sampling;

pub use load::{loaded, sdk, sdk_from};
