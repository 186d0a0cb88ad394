//! What can go wrong reading or writing a dataset's files.

/// A dataset file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or folder could not be read or written, or a file is not a table this format
    /// reads (the source says why).
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: String,
        /// The underlying failure.
        source: std::io::Error,
    },
    /// A folder that was to be read as a dataset is not one.
    #[error("{path}: {reason}")]
    NotADataset {
        /// The folder.
        path: String,
        /// What it is instead.
        reason: &'static str,
    },
    /// A folder that holds no complete table file, only files a process never completed.
    #[error(
        "{path}: holds no complete table file, only {count} incomplete one{} (a run still in progress, or \
         killed before it completed them), such as {first}: skipped, as every reader skips them",
        if *count == 1 { "" } else { "s" }
    )]
    OnlyIncomplete {
        /// The folder.
        path: String,
        /// How many hidden `.<name>.parquet.partial` files it holds.
        count: usize,
        /// One of them.
        first: String,
    },
}

/// A result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
