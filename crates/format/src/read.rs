//! Reading a dataset's tables back, batch by batch, with typed access to columns by name:
//! what exporters need, whatever the column's physical encoding (a name may be a dictionary
//! or plain text).

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, RecordBatch, RecordBatchReader};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};

use crate::Table;
use crate::error::{Error, Result};

/// Calls `each` with every batch of `table` under `dir`, file by file in name order.
pub fn batches<E: From<Error>>(
    dir: &Path,
    table: Table,
    mut each: impl FnMut(&Batch<'_>) -> Result<(), E>,
) -> Result<(), E> {
    for path in crate::dataset::table_files(dir, table)? {
        let mut file = crate::input::open_regular(&path)
            .map_err(|source| Error::Io { path: path.display().to_string(), source })?;
        crate::footer::check(&mut file, &path)?;
        let mut reader = contained(&path, || {
            ParquetRecordBatchReaderBuilder::try_new(file)
                .and_then(|b| b.with_batch_size(32 * 1024).build())
                .map_err(|e| bad(&path, e))
        })?;
        check_types(&path, table, &reader.schema())?;
        while let Some(batch) = contained(&path, || reader.next().transpose().map_err(|e| bad(&path, e)))? {
            each(&Batch { batch: &batch, path: &path })?;
        }
    }
    Ok(())
}

thread_local! {
    /// Set while [`contained`] runs a decode, so its panic is not printed: it becomes an error.
    static CONTAINING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `decode`, a Parquet or Arrow decode of the file `path`, turning a panic inside those
/// libraries into an error naming the file: bit flips in a file reach asserts and
/// out-of-range slices there, and a corrupt file must cost one line, not the process.
///
/// Only the libraries' calls go in here, never this project's own code, so a bug of ours still
/// panics as one.
pub fn contained<T>(path: &Path, decode: impl FnOnce() -> Result<T>) -> Result<T> {
    static QUIET_HOOK: std::sync::Once = std::sync::Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CONTAINING.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    let was = CONTAINING.with(|c| c.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(decode));
    CONTAINING.with(|c| c.set(was));
    result.unwrap_or_else(|payload| {
        let why = crate::panic::text(&*payload).unwrap_or("a decoder failed");
        Err(bad(path, format!("corrupt Parquet file ({why})")))
    })
}

/// The footer of the Parquet file `path`, read within the reader's guards: a regular file, a
/// trailer that holds together ([`crate::footer::check`]), a panic in the decoder made an error.
/// Readers that split a file's row groups over threads share it.
pub fn footer(path: &Path) -> Result<ArrowReaderMetadata> {
    let mut file =
        crate::input::open_regular(path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
    crate::footer::check(&mut file, path)?;
    contained(path, || ArrowReaderMetadata::load(&file, ArrowReaderOptions::default()).map_err(|e| bad(path, e)))
}

fn bad(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io { path: path.display().to_string(), source: std::io::Error::other(e.to_string()) }
}

/// One batch of a table, with the file it came from for errors.
#[derive(Debug)]
pub struct Batch<'a> {
    pub batch: &'a RecordBatch,
    path: &'a PathBuf,
}

/// A column read as one Rust type, whatever its Arrow type among the tables' own.
#[derive(Debug)]
pub enum Col<'a> {
    U64(&'a arrow_array::UInt64Array),
    I64(&'a arrow_array::Int64Array),
    U32(&'a arrow_array::UInt32Array),
    I32(&'a arrow_array::Int32Array),
    F64(&'a arrow_array::Float64Array),
    Text(&'a arrow_array::StringArray),
    Dict(&'a arrow_array::DictionaryArray<Int32Type>, &'a arrow_array::StringArray),
}

/// How a column a table declares is read back from a batch: the value its row struct takes,
/// so what a reader gets is what the producer put. Nullable columns only, whose value a column
/// the file lacks reads as (`None`).
pub trait ReadBack: crate::columns::Column {
    /// Row `i` of `column`; `None` (null) where the file lacks the column.
    fn read(column: Option<&Col<'_>>, i: usize) -> Self::Value<'static>;
}

impl ReadBack for crate::columns::OptF64 {
    fn read(column: Option<&Col<'_>>, i: usize) -> Option<f64> {
        column.and_then(|c| c.opt_f64(i))
    }
}

impl ReadBack for crate::columns::OptU64 {
    fn read(column: Option<&Col<'_>>, i: usize) -> Option<u64> {
        column.and_then(|c| c.opt_u64(i))
    }
}

impl ReadBack for crate::columns::OptU32 {
    fn read(column: Option<&Col<'_>>, i: usize) -> Option<u32> {
        // The reader refused a file whose column is not `UInt32`: the value fits.
        column.and_then(|c| c.opt_u64(i)).map(|v| v as u32)
    }
}

impl ReadBack for crate::columns::OptI32 {
    fn read(column: Option<&Col<'_>>, i: usize) -> Option<i32> {
        // The reader refused a file whose column is not `Int32`: the value fits.
        column.and_then(|c| c.opt_i64(i)).map(|v| v as i32)
    }
}

impl<'a> Batch<'a> {
    #[inline]
    pub fn rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// The column `name` where the file has it: `None` for a column newer than the file (the
    /// origin columns of format 3 in a format 2 file).
    pub fn col_opt(&self, name: &str) -> Result<Option<Col<'a>>> {
        if self.batch.column_by_name(name).is_none() {
            return Ok(None);
        }
        self.col(name).map(Some)
    }

    /// The column `name`, or an error naming the file.
    pub fn col(&self, name: &str) -> Result<Col<'a>> {
        let array = self
            .batch
            .column_by_name(name)
            .ok_or_else(|| bad(self.path, format!("no column {name} (not a rocprof-rs table?)")))?;
        Col::of(array).ok_or_else(|| bad(self.path, format!("column {name} has type {}", array.data_type())))
    }
}

/// Refuses a file whose columns have other types than `table` declares (a file written by
/// something else under a table's name): read as numbers, text would be zeros.
fn check_types(path: &Path, table: Table, found: &arrow_schema::Schema) -> Result<()> {
    let declared = table.schema();
    for field in found.fields() {
        let Ok(expected) = declared.field_with_name(field.name()) else { continue };
        if !same_kind(field.data_type(), expected.data_type()) {
            return Err(bad(
                path,
                format!(
                    "column {} is {}, but {table} declares {}",
                    field.name(),
                    field.data_type(),
                    expected.data_type()
                ),
            ));
        }
    }
    Ok(())
}

/// Whether a column of type `found` reads as one of type `declared`: the same type, or text
/// as a dictionary or plain (an importer may write either).
fn same_kind(found: &DataType, declared: &DataType) -> bool {
    let text =
        |t: &DataType| matches!(t, DataType::Utf8) || matches!(t, DataType::Dictionary(_, v) if **v == DataType::Utf8);
    found == declared || (text(found) && text(declared))
}

impl<'a> Col<'a> {
    /// `array` as the column type the format's tables use; `None` for any other type (a
    /// dictionary of other keys or of non-text values among them).
    pub fn of(array: &'a arrow_array::ArrayRef) -> Option<Col<'a>> {
        Some(match array.data_type() {
            DataType::UInt64 => Col::U64(array.as_primitive::<UInt64Type>()),
            DataType::Int64 => Col::I64(array.as_primitive::<Int64Type>()),
            DataType::UInt32 => Col::U32(array.as_primitive::<UInt32Type>()),
            DataType::Int32 => Col::I32(array.as_primitive::<Int32Type>()),
            DataType::Float64 => Col::F64(array.as_primitive::<Float64Type>()),
            DataType::Utf8 => Col::Text(array.as_string::<i32>()),
            DataType::Dictionary(key, _) if **key == DataType::Int32 => {
                let dict = array.as_dictionary::<Int32Type>();
                Col::Dict(dict, dict.values().as_string_opt::<i32>()?)
            }
            _ => return None,
        })
    }
}

impl Col<'_> {
    /// The value at `i` as an unsigned integer (0 for null).
    #[inline]
    pub fn u64(&self, i: usize) -> u64 {
        match self {
            Col::U64(a) => a.value(i),
            Col::I64(a) => a.value(i).max(0) as u64,
            Col::U32(a) => u64::from(a.value(i)),
            Col::I32(a) => a.value(i).max(0) as u64,
            Col::F64(a) => a.value(i) as u64,
            Col::Text(_) | Col::Dict(..) => 0,
        }
    }

    /// The value at `i` as a signed integer, bit for bit from an unsigned one (0 for null).
    #[inline]
    pub fn i64(&self, i: usize) -> i64 {
        match self {
            Col::U64(a) => a.value(i) as i64,
            Col::I64(a) => a.value(i),
            Col::U32(a) => i64::from(a.value(i)),
            Col::I32(a) => i64::from(a.value(i)),
            Col::F64(a) => a.value(i) as i64,
            Col::Text(_) | Col::Dict(..) => 0,
        }
    }

    fn is_valid(&self, i: usize) -> bool {
        match self {
            Col::U64(a) => a.is_valid(i),
            Col::I64(a) => a.is_valid(i),
            Col::U32(a) => a.is_valid(i),
            Col::I32(a) => a.is_valid(i),
            Col::F64(a) => a.is_valid(i),
            Col::Text(a) => a.is_valid(i),
            Col::Dict(a, _) => a.is_valid(i),
        }
    }

    /// The value at `i`, or `None` where null.
    #[inline]
    pub fn opt_u64(&self, i: usize) -> Option<u64> {
        self.is_valid(i).then(|| self.u64(i))
    }

    /// The value at `i`, or `None` where null.
    #[inline]
    pub fn opt_i64(&self, i: usize) -> Option<i64> {
        self.is_valid(i).then(|| self.i64(i))
    }

    /// The value at `i`, or `None` where null.
    #[inline]
    pub fn opt_f64(&self, i: usize) -> Option<f64> {
        self.is_valid(i).then(|| self.f64(i))
    }

    #[inline]
    pub fn f64(&self, i: usize) -> f64 {
        match self {
            Col::F64(a) => a.value(i),
            other => other.u64(i) as f64,
        }
    }

    /// The text at `i`, or `None` where null.
    #[inline]
    pub fn opt_text(&self, i: usize) -> Option<&str> {
        self.is_valid(i).then(|| self.text(i))
    }

    /// The text at `i` (empty for a number column).
    #[inline]
    pub fn text(&self, i: usize) -> &str {
        match self {
            Col::Text(a) => a.value(i),
            Col::Dict(d, values) => values.value(d.keys().value(i) as usize),
            _ => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::columns::Rows as _;
    use crate::{DeviceSample, DeviceSampleRow, Readings};

    /// A batch of `rows` with the columns of `device_sample` named in `keep`.
    fn batch(rows: &[DeviceSampleRow<'_>], keep: impl Fn(&str) -> bool) -> RecordBatch {
        let mut table = DeviceSample::default();
        for &row in rows {
            table.push(row);
        }
        let schema = DeviceSample::schema();
        let (fields, arrays): (Vec<_>, Vec<_>) = schema
            .fields()
            .iter()
            .zip(table.finish())
            .filter(|(f, _)| keep(f.name()))
            .map(|(f, a)| (f.clone(), a))
            .unzip();
        RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), arrays).unwrap()
    }

    #[test]
    fn readings_read_back_as_they_were_written_and_a_column_the_file_lacks_as_null() {
        let (uuid, library): (Arc<str>, Arc<str>) = ("GPU-0".into(), "nvml".into());
        let readings = Readings {
            power_w: Some(212.5),
            energy_j: Some(1e6),
            sm_clock_mhz: Some(1980),
            memory_used_bytes: Some(1 << 36),
            gpu_busy_pct: Some(97),
            temperature_c: Some(-3),
            throttle_reasons: Some(4),
            ..Readings::default()
        };
        let row = DeviceSampleRow {
            time_ns: 1,
            agent_id: None,
            device_index: 0,
            device_uuid: &uuid,
            library: &library,
            readings,
            throttle: None,
            pid: 7,
        };
        let path = PathBuf::from("t.parquet");
        let whole = batch(&[row, DeviceSampleRow { readings: Readings::default(), ..row }], |_| true);
        let b = Batch { batch: &whole, path: &path };
        let columns = Readings::columns(&b).unwrap();
        assert_eq!((Readings::read(&columns, 0), Readings::read(&columns, 1)), (readings, Readings::default()));
        let older = batch(&[row], |name| name != "power_w");
        let b = Batch { batch: &older, path: &path };
        assert_eq!(Readings::read(&Readings::columns(&b).unwrap(), 0), Readings { power_w: None, ..readings });
    }
}
