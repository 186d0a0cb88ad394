//! Text for a terminal: the format crate's escaping (the recorder prints through it too), and
//! how many rows one table holds.

pub use rocprof_rs_format::terminal::*;

/// Rows per terminal table: a listing with more is printed as several tables one after the
/// other, so a million names print in bounded memory.
pub const TABLE_ROWS: usize = 10_000;
