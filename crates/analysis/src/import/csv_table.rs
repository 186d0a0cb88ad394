//! One CSV file read by column name, with errors naming the file, line and column: what the
//! CSV importers (rocprofv3, rocprof v1, rocprof-compute) read their files with.

use std::collections::HashMap;
use std::path::Path;

use csv::StringRecord;

use crate::error::{Error, Result};

/// How much of a value error's message (it quotes the value) is kept.
const MESSAGE_BYTES: usize = 512;

/// One CSV file being read: its header, and the record in hand.
pub(super) struct Table {
    path: String,
    columns: HashMap<String, usize>,
    record: StringRecord,
    reader: csv::Reader<std::fs::File>,
    /// The process id from a `<pid>_` file-name prefix, for files without a `Process_Id`.
    pid: u32,
}

impl Table {
    pub(super) fn open(path: &Path, default_pid: Option<u32>) -> Result<Table> {
        let shown = path.display().to_string();
        let file =
            rocprof_rs_format::input::open_regular(path).map_err(|source| Error::Io { path: shown.clone(), source })?;
        let mut reader = csv::ReaderBuilder::new().flexible(false).from_reader(file);
        let headers = reader.headers().map_err(|e| csv_error(&shown, &e))?.clone();
        let columns = headers.iter().enumerate().map(|(i, h)| (h.trim().to_owned(), i)).collect();
        let pid = prefix_pid(path).or(default_pid).unwrap_or(0);
        Ok(Table { path: shown, columns, record: StringRecord::new(), reader, pid })
    }

    /// The header's column names.
    pub(super) fn header(&self) -> impl Iterator<Item = &str> {
        let mut columns: Vec<(&str, usize)> = self.columns.iter().map(|(c, &i)| (c.as_str(), i)).collect();
        columns.sort_by_key(|&(_, i)| i);
        columns.into_iter().map(|(c, _)| c)
    }

    /// Reads the next record; false at the end.
    pub(super) fn next(&mut self) -> Result<bool> {
        self.reader.read_record(&mut self.record).map_err(|e| csv_error(&self.path, &e))
    }

    /// The error for `column` of this record. The message quotes the bad value, which may be a
    /// field of any length: past [`MESSAGE_BYTES`] it is cut, so the error stays one line.
    pub(super) fn error(&self, column: &str, message: impl Into<String>) -> Error {
        let line = self.record.position().map_or(0, |p| line_at(&self.path, p));
        let mut message = message.into();
        if message.len() > MESSAGE_BYTES {
            let length = message.len();
            let cut = (0..=MESSAGE_BYTES).rev().find(|&i| message.is_char_boundary(i)).unwrap_or(0);
            message.truncate(cut);
            message.push_str(&format!("… ({length} bytes in all)"));
        }
        Error::Parse { path: self.path.clone(), line, column: column.to_owned(), message }
    }

    pub(super) fn has(&self, column: &str) -> bool {
        self.columns.contains_key(column)
    }

    pub(super) fn text(&self, column: &str) -> Result<&str> {
        let index = *self.columns.get(column).ok_or_else(|| self.error(column, "missing from the header"))?;
        Ok(self.record.get(index).unwrap_or(""))
    }

    pub(super) fn u64(&self, column: &str) -> Result<u64> {
        let text = self.text(column)?.trim();
        text.parse().map_err(|_| self.error(column, format!("expected an unsigned integer, found {text:?}")))
    }

    /// An unsigned integer that fits a 32-bit column.
    pub(super) fn i32(&self, column: &str) -> Result<i32> {
        let value = self.u64(column)?;
        i32::try_from(value).map_err(|_| self.error(column, format!("{value} is too large (at most {})", i32::MAX)))
    }

    /// An unsigned integer that fits a 64-bit signed column.
    pub(super) fn i64(&self, column: &str) -> Result<i64> {
        let value = self.u64(column)?;
        i64::try_from(value).map_err(|_| self.error(column, format!("{value} is too large (at most {})", i64::MAX)))
    }

    pub(super) fn i32_or(&self, column: &str) -> Result<i32> {
        if self.has(column) { self.i32(column) } else { Ok(0) }
    }

    /// `column`, or `older` where a generation spelled it so; 0 where neither is given.
    pub(super) fn i32_either(&self, column: &str, older: &str) -> Result<i32> {
        if self.has(column) { self.i32(column) } else { self.i32_or(older) }
    }

    pub(super) fn u64_or(&self, column: &str, default: u64) -> Result<u64> {
        if self.has(column) { self.u64(column) } else { Ok(default) }
    }

    /// A finite number: NaN and the infinities (`inf`, `1e999`) are refused, as every analysis
    /// of them would print them (`inf%`) or rank them as a perfect result.
    pub(super) fn f64(&self, column: &str) -> Result<f64> {
        let text = self.text(column)?.trim();
        let value: f64 = text.parse().map_err(|_| self.error(column, format!("expected a number, found {text:?}")))?;
        if !value.is_finite() {
            return Err(self.error(column, format!("expected a finite number, found {text:?}")));
        }
        Ok(value)
    }

    /// `Agent 4` (rocprofv3's form) or a bare number; empty (rocprofv3 leaves it so for frees)
    /// is agent 0.
    pub(super) fn agent(&self, column: &str) -> Result<u64> {
        let text = self.text(column)?.trim();
        if text.is_empty() {
            return Ok(0);
        }
        text.strip_prefix("Agent ")
            .unwrap_or(text)
            .trim()
            .parse()
            .map_err(|_| self.error(column, format!("expected `Agent N`, found {text:?}")))
    }

    /// `0x00007ffb26354000` or decimal.
    pub(super) fn address(&self, column: &str) -> Result<u64> {
        let text = self.text(column)?.trim();
        let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => text.parse().ok(),
        };
        parsed.ok_or_else(|| self.error(column, format!("expected an address, found {text:?}")))
    }

    pub(super) fn pid(&self) -> Result<u32> {
        Ok(if self.has("Process_Id") { self.u64("Process_Id")? as u32 } else { self.pid })
    }

    pub(super) fn span(&self) -> Result<(i64, i64)> {
        let start = self.u64("Start_Timestamp")?;
        let end = self.u64("End_Timestamp")?;
        if end < start {
            return Err(self.error("End_Timestamp", format!("{end} is before Start_Timestamp {start}")));
        }
        let end = i64::try_from(end).map_err(|_| self.error("End_Timestamp", format!("{end} is beyond 2^63 ns")))?;
        Ok((start as i64, end))
    }
}

/// The process id in a `<pid>_` file-name prefix.
pub(super) fn prefix_pid(path: &Path) -> Option<u32> {
    path.file_name()?.to_str()?.split_once('_')?.0.parse().ok()
}

/// The 1-based line of the record that starts at or after `at`. csv's own line is that of
/// where the reader stood before the record: after a CR LF line end (Python's csv module
/// writes them), or blank lines, that is the line before it. So the line is counted from the
/// file's bytes, once, for the error that needs it.
fn line_at(path: &str, at: &csv::Position) -> u64 {
    use std::io::Read;
    let count = || -> std::io::Result<u64> {
        let file = std::io::BufReader::new(std::fs::File::open(path)?);
        let mut line = 1;
        for (offset, byte) in file.bytes().enumerate() {
            let byte = byte?;
            // Up to the record's position, then the line ends csv skips before the record.
            if offset as u64 >= at.byte() && byte != b'\r' && byte != b'\n' {
                break;
            }
            line += u64::from(byte == b'\n');
        }
        Ok(line)
    };
    count().unwrap_or(at.line())
}

/// A malformed row, with its own line.
fn csv_error(path: &str, e: &csv::Error) -> Error {
    let line = e.position().map_or(0, |p| line_at(path, p));
    // csv's own messages name its (earlier) line: say what is wrong without them.
    let message = match e.kind() {
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
            format!("{len} fields where the header has {expected_len}")
        }
        csv::ErrorKind::Utf8 { err, .. } => format!("field {} is not UTF-8 text", err.field() + 1),
        csv::ErrorKind::Io(io) => io.to_string(),
        _ => e.to_string(),
    };
    Error::Parse { path: path.to_owned(), line, column: "(row)".into(), message }
}
