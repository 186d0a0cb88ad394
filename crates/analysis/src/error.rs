//! What can go wrong reading, analysing, importing or exporting a dataset.

/// A post-processing failure, naming the file and, where it can, the place in it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A JSON input has a value the reader cannot take; `at` is its JSON path.
    #[error("{path}: {at}: {message}")]
    Json {
        /// The file.
        path: String,
        /// Where in the file, as a JSON path (`rocprofiler-sdk-tool[0].buffer_records...`).
        at: String,
        /// What is wrong, with the line and column where the parser knew them.
        message: String,
    },
    /// An input file (an import, a profile) has a value the reader cannot take.
    #[error("{path}:{line}: column {column}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// The 1-based line.
        line: u64,
        /// The column's name.
        column: String,
        /// What is wrong with it.
        message: String,
    },
    /// A request that cannot be carried out as given (nothing to import, say).
    #[error("{0}")]
    Invalid(String),
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// What was being accessed.
        path: String,
        /// The underlying failure.
        source: std::io::Error,
    },
    /// A SQLite database (rocpd) could not be read or written.
    #[error("{path}: {what}: {source}")]
    Database {
        /// The database file.
        path: String,
        /// What was being done (which table, which statement).
        what: String,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// A database we did not write reached one of the bounds it is read within.
    #[error("{path}: {what}: {source}")]
    Untrusted {
        /// The database file.
        path: String,
        /// What was being done.
        what: String,
        /// The bound, or SQLite's error.
        source: crate::sqlite::Refusal,
    },
    /// A rocpd database whose schema is not rocpd's.
    #[error("{path}: {source}")]
    Schema {
        /// The database file.
        path: String,
        /// What differs.
        source: crate::rocpd::schema_check::Mismatch,
    },
    /// A database row has a value the reader cannot take.
    #[error("{path}: {table} row {row}: column {column}: {message}")]
    Row {
        /// The database file.
        path: String,
        /// The table, as rocpd's view names it.
        table: String,
        /// The row's id.
        row: i64,
        /// The column's name.
        column: String,
        /// What is wrong with it.
        message: String,
    },
    /// A dataset's table file could not be read or written.
    #[error(transparent)]
    Format(#[from] rocprof_rs_format::Error),
}

/// A result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// For writers that stream rows read from a dataset: the read's failure ends the write.
impl From<Error> for std::io::Error {
    fn from(e: Error) -> std::io::Error {
        let kind = match &e {
            Error::Io { source, .. } => source.kind(),
            _ => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, e)
    }
}
