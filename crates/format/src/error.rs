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
}

/// A result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
