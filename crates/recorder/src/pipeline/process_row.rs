//! The `process` table's one row: this process as the run's metadata file describes it, so a
//! directory many ranks wrote into describes its processes as a table.

use parquet::file::metadata::KeyValue;
use rocprof_rs_format::keys;
use rocprof_rs_format::writer::TableWriter;
use rocprof_rs_format::{Process, ProcessRow};

use super::summary::Summary;

/// Adds this process's row: `metadata` is the files' key-value metadata, `json` the metadata
/// file's text, `summary` the run's totals.
pub fn push(writer: &mut TableWriter<Process>, metadata: &[KeyValue], json: &str, summary: &Summary, end_ns: u64) {
    let value = |key: &str| metadata.iter().find(|kv| kv.key == key).and_then(|kv| kv.value.as_deref()).unwrap_or("");
    let number = |key: &str| value(key).parse::<i64>().unwrap_or(0);
    writer.rows.push(ProcessRow {
        pid: std::process::id(),
        command_line: value(keys::COMMAND_LINE),
        tool_version: value(keys::TOOL_VERSION),
        format_version: value(keys::FORMAT_VERSION),
        backend: value(keys::BACKEND),
        vendor: value(keys::VENDOR),
        start_ns: number(keys::START_NS),
        end_ns: end_ns as i64,
        start_unix_ns: number(keys::START_UNIX_NS),
        records: summary.rows.iter().map(|(_, n)| n).sum(),
        dropped: summary.total_dropped(),
        metadata: json,
    });
}
