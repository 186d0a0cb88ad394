//! One table's sequence of Parquet files.
//!
//! A file is written under a hidden name (`.<stem>-00000.parquet.partial`) and renamed to its
//! final name only once Parquet's footer is written. So every visible `*.parquet` file is
//! complete, whatever happens to the process, and readers that list the folder (pyarrow,
//! polars, DuckDB, Spark all skip dot-files) never see a torn one.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression as ParquetCompression, Encoding, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use crate::config::{Compression, Config};
use crate::error::{Error, Result};

/// When to start a new file.
#[derive(Debug, Clone, Copy)]
pub struct Rotation {
    /// After this many rows (0: never).
    pub rows: u64,
    /// After this many seconds (0: never).
    pub seconds: u64,
}

/// A table's files: the open one, if any, and how many have been completed.
pub struct TableFiles {
    dir: PathBuf,
    stem: String,
    schema: Arc<Schema>,
    properties: WriterProperties,
    rotation: Rotation,
    open: Option<OpenFile>,
    next_sequence: u32,
    /// Rows in completed files and the open one.
    pub rows_written: u64,
    /// Completed files.
    pub files: Vec<PathBuf>,
}

impl std::fmt::Debug for TableFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableFiles").field("dir", &self.dir).field("rows_written", &self.rows_written).finish()
    }
}

struct OpenFile {
    writer: ArrowWriter<BufWriter<File>>,
    partial: PathBuf,
    complete: PathBuf,
    rows: u64,
    opened: Instant,
}

fn io(path: &Path, source: std::io::Error) -> Error {
    Error::Io { path: path.display().to_string(), source }
}

fn parquet(path: &Path, e: parquet::errors::ParquetError) -> Error {
    match e {
        parquet::errors::ParquetError::External(inner) => match inner.downcast::<std::io::Error>() {
            Ok(source) => io(path, *source),
            Err(other) => io(path, std::io::Error::other(other)),
        },
        other => io(path, std::io::Error::other(other.to_string())),
    }
}

/// Integer columns whose values are mostly distinct: timestamps, durations, ids and addresses.
fn is_high_cardinality(column: &str) -> bool {
    column.ends_with("_ns")
        || column.ends_with("address")
        || matches!(column, "correlation_id" | "dispatch_id" | "external_id" | "ancestor_id")
}

impl TableFiles {
    /// The files of table `name` under `root`, named `<stem>-NNNNN.parquet`; `metadata` goes
    /// into every file's key-value metadata.
    pub fn new(config: &Config, name: &str, schema: Schema, metadata: Vec<KeyValue>) -> TableFiles {
        let (root, stem, row_group_rows) = (&config.output_dir, &config.output_name, config.row_group_rows);
        let rotation = Rotation { rows: config.rotate_rows, seconds: config.rotate_seconds };
        let compression = match config.compression {
            Compression::Zstd(level) => ParquetCompression::ZSTD(ZstdLevel::try_new(level).unwrap_or_default()),
            Compression::Snappy => ParquetCompression::SNAPPY,
            Compression::None => ParquetCompression::UNCOMPRESSED,
        };
        let mut metadata = metadata;
        metadata.push(KeyValue::new("rocprof_rs.table".into(), name.to_owned()));
        let mut properties = WriterProperties::builder()
            .set_compression(compression)
            .set_max_row_group_size(row_group_rows)
            // Each column's open page is held uncompressed: small pages keep a table's memory
            // small (and give readers finer statistics).
            .set_data_page_size_limit(256 << 10)
            // Pages end at that size, not at parquet-rs's default 20,000 rows: a delta-encoded
            // timestamp takes a byte or two a row, and every page pays for a fresh zstd context
            // (a tenth of the writer's time with 20,000-row pages).
            .set_data_page_row_count_limit(1 << 20)
            .set_dictionary_page_size_limit(256 << 10)
            .set_created_by(format!("rocprof-rs {}", env!("CARGO_PKG_VERSION")))
            .set_key_value_metadata(Some(metadata));
        // Parquet dictionaries hash every value they encode, which cost more than the rest of
        // the writer together. Only names get one (already dictionary arrays in memory); numbers
        // are left to zstd, and timestamps and ids, which mostly rise, are delta-encoded first.
        properties = properties.set_dictionary_enabled(false).set_statistics_enabled(EnabledStatistics::None);
        for field in schema.fields() {
            let column = ColumnPath::from(field.name().as_str());
            if matches!(field.data_type(), DataType::Utf8 | DataType::Dictionary(..)) {
                properties = properties.set_column_dictionary_enabled(column.clone(), true);
            } else if is_high_cardinality(field.name()) {
                properties = properties.set_column_encoding(column.clone(), Encoding::DELTA_BINARY_PACKED);
            }
            // Min/max per row group where readers filter (time windows, id ranges); statistics
            // on every column and page cost a quarter of the writer's time.
            if field.name().ends_with("_ns") || field.name().ends_with("_id") {
                properties = properties.set_column_statistics_enabled(column, EnabledStatistics::Chunk);
            }
        }
        let properties = properties.build();
        TableFiles {
            dir: root.join(name),
            stem: stem.to_owned(),
            schema: Arc::new(schema),
            properties,
            rotation,
            open: None,
            next_sequence: 0,
            rows_written: 0,
            files: Vec::new(),
        }
    }

    /// The table's schema.
    pub fn schema(&self) -> Arc<Schema> {
        self.schema.clone()
    }

    /// Adds `batch` to the open row group, opening a file first if none is open, and rotates
    /// afterwards if the file reached its limit.
    pub fn write(&mut self, batch: &RecordBatch, closing_metadata: impl FnOnce() -> Vec<KeyValue>) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if self.open.is_none() {
            self.open()?;
        }
        let open = self.open.as_mut().expect("opened above");
        // The writer closes a row group by itself at `row_group_rows`.
        open.writer.write(batch).map_err(|e| parquet(&open.partial, e))?;
        open.rows += batch.num_rows() as u64;
        self.rows_written += batch.num_rows() as u64;
        if self.rotation.rows > 0 && open.rows >= self.rotation.rows {
            self.close(closing_metadata())?;
        }
        Ok(())
    }

    /// Whether the open file has been open longer than the rotation period.
    pub fn due_by_time(&self) -> bool {
        self.rotation.seconds > 0
            && self.open.as_ref().is_some_and(|o| o.opened.elapsed().as_secs() >= self.rotation.seconds)
    }

    /// Completes the open file, if any: footer with `metadata` appended, then the rename that
    /// makes it visible.
    pub fn close(&mut self, metadata: Vec<KeyValue>) -> Result<()> {
        let Some(mut open) = self.open.take() else { return Ok(()) };
        for kv in metadata {
            open.writer.append_key_value_metadata(kv);
        }
        let file = open.writer.into_inner().map_err(|e| parquet(&open.partial, e))?;
        let file = file.into_inner().map_err(|e| io(&open.partial, e.into_error()))?;
        file.sync_all().map_err(|e| io(&open.partial, e))?;
        std::fs::rename(&open.partial, &open.complete).map_err(|e| io(&open.complete, e))?;
        self.files.push(open.complete);
        Ok(())
    }

    fn open(&mut self) -> Result<()> {
        std::fs::create_dir_all(&self.dir).map_err(|e| io(&self.dir, e))?;
        let name = format!("{}-{:05}.parquet", self.stem, self.next_sequence);
        self.next_sequence += 1;
        let partial = self.dir.join(format!(".{name}.partial"));
        let complete = self.dir.join(name);
        let file = File::create(&partial).map_err(|e| io(&partial, e))?;
        let writer = ArrowWriter::try_new(
            BufWriter::with_capacity(1 << 20, file),
            self.schema.clone(),
            Some(self.properties.clone()),
        )
        .map_err(|e| parquet(&partial, e))?;
        self.open = Some(OpenFile { writer, partial, complete, rows: 0, opened: Instant::now() });
        Ok(())
    }
}
