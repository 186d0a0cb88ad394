//! Hardware counters per dispatch: named sets resolved per architecture ([`presets`]), and the
//! split into groups that each fit one hardware pass ([`plan`]). What each agent offers is asked
//! of its library by its backend (`backend::amd::catalog`, `backend::cupti::counting`).
//!
//! A set too large for one pass is split into groups, and successive dispatches of a kernel
//! (same grid) take the groups in turn, so one application run collects everything; the tool's
//! side of that lives in `backend::amd::counting`. What the user asks for is read with the
//! rest of the settings ([`crate::config::counters`]).

pub mod plan;
pub mod presets;
pub mod selection;
pub mod suggest;

pub use selection::{PassMode, Selection};
