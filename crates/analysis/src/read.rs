//! The format's table reader, yielding this crate's errors: the one way post-processing reads
//! a dataset's rows.

use std::path::Path;

use rocprof_rs_format::Table;
pub use rocprof_rs_format::read::Batch;

use crate::error::{Error, Result};

/// Calls `each` with every batch of `table` under `dir`, file by file in name order.
pub fn batches(dir: &Path, table: Table, each: impl FnMut(&Batch<'_>) -> Result<()>) -> Result<()> {
    rocprof_rs_format::read::batches::<Error>(dir, table, each)
}
