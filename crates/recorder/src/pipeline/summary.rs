//! What the writer did, for the run's metadata and its exit summary.

/// What the writer did, for the metadata and the exit summary.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Rows written per table.
    pub rows: Vec<(rocprof_rs_format::Table, u64)>,
    /// Completed files.
    pub files: usize,
    /// Records the tracing library dropped (its own count, summed over buffers).
    pub library_dropped: u64,
    /// Records our queue dropped (drop policy with a full queue).
    pub queue_dropped: u64,
    /// Records discarded after an I/O error.
    pub discarded: u64,
    /// Dispatches left out by the kernel filters (not a loss: what was asked for).
    pub filtered: u64,
    /// The first I/O error, if any.
    pub error: Option<String>,
    /// The file-name stem the files were written under (the asked-for one, or the next free
    /// variant of it if another process held it).
    pub stem: String,
    /// What the queue and the library's buffers held at their fullest.
    pub holding: super::queue::Holding,
    /// A flight recorder's dumps written.
    pub dumps: usize,
}

impl Summary {
    /// Rows per table as a JSON object.
    pub fn rows_json(&self) -> String {
        let fields: Vec<String> = self.rows.iter().map(|(t, n)| format!("\"{t}\":{n}")).collect();
        format!("{{{}}}", fields.join(","))
    }

    /// Drops as a JSON object: ours (queue full, writer failed) and the library's.
    pub fn dropped_json(&self) -> String {
        format!(
            "{{\"queue\":{},{:?}:{},\"after_io_error\":{}}}",
            self.queue_dropped,
            rocprof_rs_format::keys::DROPPED_BY_LIBRARY,
            self.library_dropped,
            self.discarded
        )
    }

    /// Every record lost, whoever lost it.
    pub fn total_dropped(&self) -> u64 {
        self.queue_dropped + self.library_dropped + self.discarded
    }

    /// Total rows.
    pub fn total_rows(&self) -> u64 {
        self.rows.iter().map(|(_, n)| n).sum()
    }
}
