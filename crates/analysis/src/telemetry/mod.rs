//! The device samples (`device_sample`): per-GPU figures, energy per dispatch, kernel and marker
//! range, and the kernels during which clocks fell.

pub mod attribute;
pub mod energy;
pub mod report;
pub mod series;
pub mod summary;
pub mod throttle;
