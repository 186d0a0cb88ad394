//! What every backend shares, from a record to a Parquet file: [`records`] (what a backend
//! decodes its library's records into), [`queue`] (callbacks to the writer, bounded),
//! [`writer`] (the one writer thread), [`rows`] (records to table rows, through the format's
//! row types) and [`run`] (the run's metadata). It calls no library and names none: a
//! backend hands it records in the contract's terms, and when it starts, what its operation
//! ids are called and which table each API kind fills ([`run::Seed`]).

pub mod clock;
pub mod counter_rows;
pub mod device_rows;
pub mod dump;
pub mod flight;
pub mod hang;
pub mod kernels;
pub mod pc_rows;
mod process_row;
pub mod queue;
pub mod records;
pub mod rows;
pub mod run;
pub mod sites;
pub mod summary;
pub mod writer;
