//! Hardware counters per dispatch: what the user asks for ([`request`]), named sets resolved
//! per architecture ([`presets`]), what each agent offers ([`catalog`]), and the split into
//! groups that each fit one hardware pass ([`plan`]).
//!
//! A set too large for one pass is split into groups, and successive dispatches of a kernel
//! (same grid) take the groups in turn, so one application run collects everything; the tool's
//! side of that lives in `tool::counting`.

pub mod avail;
pub mod catalog;
pub mod plan;
pub mod presets;
pub mod request;
pub mod suggest;

pub use request::{CounterRequest, PassMode, Selection};
