//! One table's sequence of Parquet files.
//!
//! A file is written under a hidden name (`.<stem>-00000.parquet.partial`) and renamed to its
//! final name only once Parquet's footer is written. So every visible `*.parquet` file is
//! complete, whatever happens to the process, and readers that list the folder (pyarrow,
//! polars, DuckDB, Spark all skip dot-files) never see a torn one. Both names are taken
//! exclusively ([`crate::publish`]): a process whose stem another shares takes the next free
//! file number rather than opening or renaming over the other's file.
//!
//! Columns are encoded by [`super::chunk`], this crate's own page encoder; parquet-rs writes
//! the file around them (schema, row groups' metadata, footer) and splices the finished
//! chunks in with `append_column`.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Schema};
use parquet::arrow::{ArrowSchemaConverter, add_encoded_arrow_schema_to_metadata};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::SchemaDescPtr;

use crate::Table;
// Declared with the codecs it picks; named here too, where a writer's options choose it.
pub use crate::chunk::Compression;
use crate::chunk::{Codec, ColumnChunk, Kind};
use crate::error::{Error, Result};
use crate::origin::Origin;

/// Where a dataset's tables go and how their files are cut: what the recorder's settings and
/// an import each decide, and all that [`TableFiles`] needs of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOptions {
    /// The dataset's root: each table is a folder under it.
    pub dir: PathBuf,
    /// File-name stem: files are `<stem>-NNNNN.parquet`.
    pub stem: String,
    /// Page compression.
    pub compression: Compression,
    /// Rows per row group.
    pub row_group_rows: usize,
    /// When a table's file is closed and the next one begun.
    pub rotation: Rotation,
    /// The process the rows come from: the columns every table ends with.
    pub origin: Origin,
    /// Whether each table's files sit in its folder or in hive partitions under it.
    pub layout: Layout,
}

/// Where a table's files go under its folder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Layout {
    /// `<table>/<stem>-NNNNN.parquet`: every process's files side by side. The default: one
    /// level for every reader (a glob, pyarrow, pandas), and the origin is in the columns.
    #[default]
    Flat,
    /// `<table>/host=<host>/rank=<rank>/<stem>-NNNNN.parquet`: engines that read partitions
    /// (Spark, DuckDB, DataFusion, polars) skip other hosts' and ranks' files unread.
    Hive,
}

impl Layout {
    /// The layout called `name` (`flat`, `hive`).
    pub fn from_name(name: &str) -> Option<Layout> {
        match name {
            "flat" => Some(Layout::Flat),
            "hive" => Some(Layout::Hive),
            _ => None,
        }
    }
}

impl WriteOptions {
    /// zstd level 3, as the recorder writes by default.
    pub const DEFAULT_COMPRESSION: Compression = Compression::Zstd(3);
    /// Rows per row group by default: large enough for zstd and readers' statistics, small
    /// enough that a table's open row group stays a few MiB.
    pub const DEFAULT_ROW_GROUP_ROWS: usize = 131_072;
    /// A new file every 10M rows by default, so a crash loses at most one file's rows.
    pub const DEFAULT_ROTATION: Rotation = Rotation { rows: 10_000_000, seconds: 0 };

    /// Files under `dir` named `<stem>-NNNNN.parquet`, with the defaults above.
    pub fn new(dir: impl Into<PathBuf>, stem: impl Into<String>) -> WriteOptions {
        WriteOptions {
            dir: dir.into(),
            stem: stem.into(),
            compression: Self::DEFAULT_COMPRESSION,
            row_group_rows: Self::DEFAULT_ROW_GROUP_ROWS,
            rotation: Self::DEFAULT_ROTATION,
            origin: Origin::default(),
            layout: Layout::Flat,
        }
    }
}

/// When to start a new file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rotation {
    /// After this many rows (0: never).
    pub rows: u64,
    /// After this many seconds (0: never).
    pub seconds: u64,
}

/// Bytes a column's page holds before it is compressed and a new one begins: small pages keep
/// a table's memory small (each column's open page is held uncompressed) and give readers finer
/// statistics; much smaller ones would pay for a page header and a fresh zstd frame too often.
const PAGE_BYTES: usize = 256 << 10;

/// How one column is written.
#[derive(Debug, Clone, Copy)]
struct ColumnPlan {
    kind: Kind,
    nullable: bool,
    statistics: bool,
}

/// A table's files: the open one, if any, and how many have been completed.
pub struct TableFiles {
    dir: PathBuf,
    origin: Origin,
    stem: String,
    schema: Arc<Schema>,
    parquet_schema: SchemaDescPtr,
    properties: Arc<WriterProperties>,
    columns: Vec<ColumnPlan>,
    compression: Compression,
    row_group_rows: u64,
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
    writer: SerializedFileWriter<BufWriter<File>>,
    /// The open row group's column chunks, in schema order.
    chunks: Vec<ColumnChunk>,
    codec: Codec,
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

/// Integer columns written as DELTA_BINARY_PACKED: timestamps, durations and addresses, which
/// rise, and ids, which rise (correlations, dispatches) or take a few small values (kernels,
/// agents, queues, threads), so that their deltas pack into a few bits where PLAIN would give
/// zstd eight bytes a row to scan. (Every column delta-encoded measured slower: a column that
/// is one value for a whole batch, such as grid_y, is cheaper as a page of zero deltas.)
fn is_delta_encoded(column: &str) -> bool {
    column.ends_with("_ns")
        || column.ends_with("address")
        || matches!(
            column,
            "correlation_id"
                | "dispatch_id"
                | "external_id"
                | "ancestor_id"
                | "kernel_id"
                | "agent_id"
                | "queue_id"
                | "thread_id"
        )
}

impl TableFiles {
    /// The files of `table` under the options' folder, named `<stem>-NNNNN.parquet`;
    /// `metadata` goes into every file's key-value metadata.
    pub fn new(options: &WriteOptions, table: Table, metadata: Vec<KeyValue>) -> TableFiles {
        TableFiles::with_schema(options, table.name(), table.schema(), metadata)
    }

    /// The files of a folder `name` of rows of `schema`: a table's, or a test's own.
    ///
    /// # Panics
    /// If `schema` has a column type that [`crate::columns`] does not declare: a table's schema
    /// is fixed at compile time, and every table's is tested.
    pub(crate) fn with_schema(
        options: &WriteOptions,
        name: &str,
        schema: Schema,
        metadata: Vec<KeyValue>,
    ) -> TableFiles {
        let mut metadata = metadata;
        metadata.push(KeyValue::new(crate::keys::TABLE.into(), name.to_owned()));
        let mut properties = WriterProperties::builder()
            .set_created_by(format!("rocprof-rs {}", env!("CARGO_PKG_VERSION")))
            .set_key_value_metadata(Some(metadata))
            .build();
        // Arrow readers restore dictionary and unsigned types from it, as from ArrowWriter's.
        add_encoded_arrow_schema_to_metadata(&schema, &mut properties);
        let parquet_schema = ArrowSchemaConverter::new().convert(&schema).expect("every table's schema converts");
        let columns = schema
            .fields()
            .iter()
            .map(|field| {
                let name = field.name();
                let kind = Kind::of(field.data_type(), is_delta_encoded(name))
                    .unwrap_or_else(|| panic!("column {name} of {}: no encoder", field.data_type()));
                // Min/max per row group where readers filter (time windows, id ranges, ranks).
                let integer = matches!(
                    field.data_type(),
                    DataType::Int64 | DataType::UInt64 | DataType::Int32 | DataType::UInt32
                );
                let statistics = integer && (name.ends_with("_ns") || name.ends_with("_id") || name == "rank");
                ColumnPlan { kind, nullable: field.is_nullable(), statistics }
            })
            .collect();
        let mut dir = options.dir.join(name);
        if options.layout == Layout::Hive {
            dir.extend(options.origin.partition());
        }
        TableFiles {
            dir,
            origin: options.origin.clone(),
            stem: options.stem.clone(),
            schema: Arc::new(schema),
            parquet_schema: Arc::new(parquet_schema),
            properties: Arc::new(properties),
            columns,
            compression: options.compression,
            row_group_rows: options.row_group_rows.max(1) as u64,
            rotation: options.rotation,
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

    /// The process the rows come from.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// Adds `batch` to the open row group, opening a file first if none is open, closing row
    /// groups as they fill, and rotates afterwards if the file reached its limit.
    pub fn write(&mut self, batch: &RecordBatch, closing_metadata: impl FnOnce() -> Vec<KeyValue>) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if self.open.is_none() {
            self.open()?;
        }
        let open = self.open.as_mut().expect("opened above");
        let mut offset = 0;
        while offset < batch.num_rows() {
            let in_group = open.chunks.first().map_or(0, ColumnChunk::rows);
            let take = (self.row_group_rows - in_group).min((batch.num_rows() - offset) as u64) as usize;
            let part = batch.slice(offset, take);
            for (chunk, column) in open.chunks.iter_mut().zip(part.columns()) {
                chunk.append(column, &mut open.codec).map_err(|e| parquet(&open.partial, e))?;
            }
            offset += take;
            if in_group + take as u64 == self.row_group_rows {
                open.close_row_group()?;
            }
        }
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

    /// Completes the open file, if any: the last row group, the footer with `metadata`
    /// appended, then the rename that makes it visible.
    pub fn close(&mut self, metadata: Vec<KeyValue>) -> Result<()> {
        let Some(mut open) = self.open.take() else { return Ok(()) };
        open.close_row_group()?;
        for kv in metadata {
            open.writer.append_key_value_metadata(kv);
        }
        let file = open.writer.into_inner().map_err(|e| parquet(&open.partial, e))?;
        let file = file.into_inner().map_err(|e| io(&open.partial, e.into_error()))?;
        file.sync_all().map_err(|e| io(&open.partial, e))?;
        let complete = self.publish(&open.partial, open.complete)?;
        self.files.push(complete);
        Ok(())
    }

    /// Renames the completed `partial` to `complete`, or, if another process has taken that
    /// name meanwhile, to the next free one: a file is never replaced.
    fn publish(&mut self, partial: &Path, complete: PathBuf) -> Result<PathBuf> {
        let mut complete = complete;
        loop {
            if crate::publish::rename_no_replace(partial, &complete).map_err(|e| io(&complete, e))? {
                return Ok(complete);
            }
            complete = self.free_names()?.1;
        }
    }

    /// The next sequence number's hidden and final names, skipping numbers whose final name
    /// another process (or an earlier run with the same stem) holds.
    fn free_names(&mut self) -> Result<(PathBuf, PathBuf)> {
        loop {
            let sequence = self.next_sequence;
            self.next_sequence = sequence.checked_add(1).ok_or_else(|| {
                io(&self.dir, std::io::Error::other(format!("every file number of stem {} is taken", self.stem)))
            })?;
            let name = format!("{}-{:05}.parquet", self.stem, sequence);
            let complete = self.dir.join(&name);
            if std::fs::symlink_metadata(&complete).is_err() {
                return Ok((self.dir.join(format!(".{name}.partial")), complete));
            }
        }
    }

    fn open(&mut self) -> Result<()> {
        std::fs::create_dir_all(&self.dir).map_err(|e| io(&self.dir, e))?;
        let (partial, complete, file) = loop {
            let (partial, complete) = self.free_names()?;
            match crate::publish::create_exclusive(&partial) {
                Ok(file) => break (partial, complete, file),
                // Another process writes this number: take the next.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io(&partial, e)),
            }
        };
        let writer = SerializedFileWriter::new(
            BufWriter::with_capacity(1 << 20, file),
            self.parquet_schema.root_schema_ptr(),
            self.properties.clone(),
        )
        .map_err(|e| parquet(&partial, e))?;
        let codec = Codec::new(self.compression).map_err(|e| io(&partial, e))?;
        let chunks = (self.columns.iter().zip(self.schema.fields()).enumerate())
            .map(|(i, (plan, field))| {
                let descr = self.parquet_schema.column(i);
                ColumnChunk::new(
                    descr,
                    field.data_type().clone(),
                    plan.kind,
                    plan.nullable,
                    PAGE_BYTES,
                    plan.statistics,
                )
            })
            .collect();
        self.open = Some(OpenFile { writer, chunks, codec, partial, complete, rows: 0, opened: Instant::now() });
        Ok(())
    }
}

impl OpenFile {
    /// Writes the open row group's chunks into the file, if it has rows.
    fn close_row_group(&mut self) -> Result<()> {
        if self.chunks.first().is_none_or(|c| c.rows() == 0) {
            return Ok(());
        }
        let partial = &self.partial;
        let mut group = self.writer.next_row_group().map_err(|e| parquet(partial, e))?;
        for chunk in &mut self.chunks {
            let (bytes, close) = chunk.finish(&mut self.codec).map_err(|e| parquet(partial, e))?;
            group.append_column(&bytes, close).map_err(|e| parquet(partial, e))?;
        }
        group.close().map_err(|e| parquet(partial, e))?;
        start_writeback(self.writer.inner().get_ref());
        Ok(())
    }
}

/// Starts writing the file's dirty pages to disk without waiting for them, so that the fsync
/// which completes the file waits for its last row group only. Otherwise that fsync writes the
/// whole file (10M rows, about 150 MB) at once, and the thread that writes rows waits for it
/// while a recorder's producers pile records up (issue 20: on the development VM, 0.4 s and a
/// full queue at every rotation; 0.13 s and half of it with this). Linux only; elsewhere the
/// fsync does it all, as before.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: a syscall on a descriptor the file keeps open; offset 0 and length 0 name the
    // whole file, and SYNC_FILE_RANGE_WRITE only starts writeback. Its result is a hint's: an
    // I/O error surfaces at the fsync that completes the file.
    unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_: &File) {}

#[cfg(test)]
mod tests {

    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type, UInt32Type, UInt64Type};
    use arrow_array::{
        ArrayRef, DictionaryArray, Float64Array, Int32Array, Int64Array, StringArray, UInt32Array, UInt64Array,
    };
    use arrow_schema::Field;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::basic::Encoding;
    use parquet::file::statistics::Statistics;

    use super::*;

    fn config(dir: &Path, compression: &str, row_group_rows: u32) -> WriteOptions {
        let compression = match compression {
            "none" => Compression::None,
            "snappy" => Compression::Snappy,
            "zstd:3" => Compression::Zstd(3),
            other => panic!("no compression {other} in these tests"),
        };
        WriteOptions { compression, row_group_rows: row_group_rows as usize, ..WriteOptions::new(dir, "t") }
    }

    /// Rows `from..to` of a table with every column kind the writer has: delta-encoded ids
    /// (rising, falling, beyond `i64::MAX`), plain numbers, nullable numbers, strings, a
    /// dictionary whose batch dictionaries grow, as `columns::Dict` makes them, and numbers that
    /// repeat for whole batches (written as zero deltas) but for one row (written plain), in
    /// both widths and beyond the signed types' range, and nullable delta-encoded timestamps.
    fn batch(schema: &Arc<Schema>, names: &[&str], from: u64, to: u64) -> RecordBatch {
        let n = from..to;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from_iter_values(n.clone().map(|i| 1_000_000 + (i * i % 977) as i64 - 500))),
            Arc::new(UInt64Array::from_iter_values(n.clone().map(|i| u64::MAX - 3 * i))),
            Arc::new(UInt64Array::from_iter_values(n.clone().map(|i| i % 5))),
            Arc::new(Int32Array::from_iter(n.clone().map(|i| (i % 3 != 0).then_some(i as i32)))),
            Arc::new(Float64Array::from_iter_values(n.clone().map(|i| i as f64 / 4.0))),
            Arc::new(StringArray::from_iter_values(n.clone().map(|i| format!("m{}", i % 11)))),
            {
                let keys = Int32Array::from_iter_values(n.clone().map(|i| ((i / 7) % names.len() as u64) as i32));
                Arc::new(
                    DictionaryArray::<Int32Type>::try_new(keys, Arc::new(StringArray::from(names.to_vec()))).unwrap(),
                )
            },
            Arc::new(UInt32Array::from_iter_values(n.clone().map(|_| u32::MAX - (from % 3) as u32))),
            Arc::new(Int32Array::from_iter_values(n.clone().map(|i| if i == 3_500 { 9 } else { -2 }))),
            Arc::new(UInt64Array::from_iter_values(n.clone().map(|_| u64::MAX - 1))),
            Arc::new(Int64Array::from_iter(n.clone().map(|i| (i % 4 != 0).then_some(i as i64 * 3 - 7)))),
        ];
        RecordBatch::try_new(schema.clone(), columns).unwrap()
    }

    fn schema() -> Schema {
        Schema::new(vec![
            Field::new("start_ns", DataType::Int64, false),
            Field::new("correlation_id", DataType::UInt64, false),
            Field::new("grid_x", DataType::UInt64, false),
            Field::new("stream_id", DataType::Int32, true),
            Field::new("value", DataType::Float64, false),
            Field::new("message", DataType::Utf8, false),
            Field::new("kernel_name", DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)), false),
            Field::new("pid", DataType::UInt32, false),
            Field::new("cluster_x", DataType::Int32, false),
            Field::new("graph_node_id", DataType::UInt64, false),
            Field::new("end_ns", DataType::Int64, true),
        ])
    }

    #[test]
    fn what_the_writer_encodes_parquet_rs_reads_back_exactly() {
        for compression in ["zstd:3", "snappy", "none"] {
            let dir = std::env::temp_dir().join(format!("rocprof-rs-files-{}-{compression}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let mut files = TableFiles::with_schema(&config(&dir, compression, 1024), "t", schema(), vec![]);
            let schema = files.schema();
            let names = ["a", "bb", "ccc", "kernel<float>(int)"];
            // Batches that straddle row groups (1024 rows) and pages, with a dictionary that grows.
            let mut expected = Vec::new();
            let mut at = 0;
            for (i, len) in [1000u64, 3000, 1, 70_000, 24].into_iter().enumerate() {
                let batch = batch(&schema, &names[..(i + 1).min(names.len())], at, at + len);
                files.write(&batch, Vec::new).unwrap();
                expected.push(batch);
                at += len;
            }
            files.close(vec![KeyValue::new("closing".to_owned(), "yes".to_owned())]).unwrap();
            let expected = arrow_select_concat(&schema, &expected);

            let file = File::open(&files.files[0]).unwrap();
            let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
            let metadata = builder.metadata().clone();
            assert_eq!(metadata.num_row_groups(), at.div_ceil(1024) as usize, "{compression}");
            let kv = metadata.file_metadata().key_value_metadata().unwrap();
            assert!(kv.iter().any(|k| k.key == "closing"), "closing metadata");
            assert!(kv.iter().any(|k| k.key == crate::keys::TABLE), "table metadata");
            let got: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
            let got = arrow_select_concat(&got[0].schema(), &got);
            assert_eq!(got.schema(), schema, "Arrow types come back (dictionary, unsigned)");
            for (c, (g, e)) in got.columns().iter().zip(expected.columns()).enumerate() {
                let (g, e) = (cast_plain(g), cast_plain(e));
                assert_eq!(g.len(), e.len());
                assert!(g == e, "{compression}: column {c} differs");
            }
            // Chunk statistics in the column's own order: unsigned ids compare unsigned.
            let group = metadata.row_group(0);
            match group.column(1).statistics() {
                Some(Statistics::Int64(s)) => {
                    assert_eq!(*s.min_opt().unwrap() as u64, u64::MAX - 3 * 1023);
                    assert_eq!(*s.max_opt().unwrap() as u64, u64::MAX);
                }
                other => panic!("correlation_id statistics: {other:?}"),
            }
            assert_eq!(group.column(3).statistics().and_then(|s| s.null_count_opt()), Some(342), "stream_id nulls");
            match group.column(9).statistics() {
                Some(Statistics::Int64(s)) => {
                    assert_eq!([*s.min_opt().unwrap(), *s.max_opt().unwrap()].map(|v| v as u64), [u64::MAX - 1; 2]);
                }
                other => panic!("graph_node_id statistics: {other:?}"),
            }
            // Repeated numbers are zero deltas. Row group 3 holds a page with the one other
            // value (plain) and two pages without it (zero deltas).
            let encodings = |g: usize, c: usize| {
                let mut e: Vec<Encoding> = metadata.row_group(g).column(c).encodings().collect();
                e.sort_by_key(|e| *e as u8);
                e
            };
            assert_eq!(encodings(0, 7), [Encoding::RLE, Encoding::DELTA_BINARY_PACKED], "pid");
            assert_eq!(encodings(3, 8), [Encoding::PLAIN, Encoding::RLE, Encoding::DELTA_BINARY_PACKED], "cluster_x");
            page_index_agrees_with(&files.files[0], &got);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    /// The page index agrees with the rows: every column's pages cover its row group's rows in
    /// order, and each page of a column with statistics has the min, max and null count of
    /// exactly its rows (unsigned columns in unsigned order), as engines that skip pages need.
    fn page_index_agrees_with(path: &Path, got: &RecordBatch) {
        use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
        use parquet::file::page_index::column_index::ColumnIndexMetaData;
        let options = ArrowReaderOptions::new().with_page_index(true);
        let metadata = ArrowReaderMetadata::load(&File::open(path).unwrap(), options).unwrap().metadata().clone();
        let (columns, offsets) = (metadata.column_index().unwrap(), metadata.offset_index().unwrap());
        let mut group_start = 0usize;
        let mut pages_checked = 0;
        for (g, group) in metadata.row_groups().iter().enumerate() {
            let rows = group.num_rows() as usize;
            for c in 0..got.num_columns() {
                let pages = offsets[g][c].page_locations();
                let firsts: Vec<usize> = pages.iter().map(|p| p.first_row_index as usize).collect();
                assert_eq!(firsts.first(), Some(&0), "group {g} column {c}");
                assert!(firsts.windows(2).all(|w| w[0] < w[1]), "group {g} column {c}: {firsts:?}");
                let mut ends = firsts[1..].to_vec();
                ends.push(rows);
                let page_rows = |p: usize| group_start + firsts[p]..group_start + ends[p];
                let column = got.column(c);
                let values = |p: usize| -> Vec<Option<i128>> {
                    page_rows(p)
                        .map(|i| match column.data_type() {
                            DataType::Int64 => {
                                column.as_primitive::<Int64Type>().iter().nth(i).unwrap().map(i128::from)
                            }
                            DataType::UInt64 => {
                                column.as_primitive::<UInt64Type>().iter().nth(i).unwrap().map(i128::from)
                            }
                            DataType::Int32 => {
                                column.as_primitive::<Int32Type>().iter().nth(i).unwrap().map(i128::from)
                            }
                            other => panic!("column {c} of type {other} has a column index"),
                        })
                        .collect()
                };
                // Per page: (min, max, nulls), in the column's own order.
                type Entry = (Option<i128>, Option<i128>, Option<i64>);
                let entries: Vec<Entry> = match &columns[g][c] {
                    ColumnIndexMetaData::NONE => continue,
                    ColumnIndexMetaData::INT64(index) => {
                        let unsigned = column.data_type() == &DataType::UInt64;
                        let wide =
                            |v: Option<&i64>| v.map(|&v| if unsigned { i128::from(v as u64) } else { i128::from(v) });
                        (0..pages.len())
                            .map(|p| (wide(index.min_value(p)), wide(index.max_value(p)), index.null_count(p)))
                            .collect()
                    }
                    ColumnIndexMetaData::INT32(index) => (0..pages.len())
                        .map(|p| {
                            let wide = |v: Option<&i32>| v.map(|&v| i128::from(v));
                            (wide(index.min_value(p)), wide(index.max_value(p)), index.null_count(p))
                        })
                        .collect(),
                    other => panic!("column {c}: unexpected column index {other:?}"),
                };
                for (p, &(min, max, nulls)) in entries.iter().enumerate() {
                    let v = values(p);
                    let present: Vec<i128> = v.iter().flatten().copied().collect();
                    assert_eq!(min, present.iter().min().copied(), "group {g} column {c} page {p} min");
                    assert_eq!(max, present.iter().max().copied(), "group {g} column {c} page {p} max");
                    assert_eq!(nulls, Some((v.len() - present.len()) as i64), "group {g} column {c} page {p} nulls");
                    pages_checked += 1;
                }
            }
            group_start += rows;
        }
        assert_eq!(group_start, got.num_rows());
        assert!(pages_checked > metadata.num_row_groups() * 5, "{pages_checked} pages with a column index");
    }

    /// Two writers of one stem in one folder (two processes given one name): neither opens
    /// nor renames over the other's file, and both files read back whole.
    #[test]
    fn two_writers_of_one_stem_never_touch_each_others_files() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-files-same-stem-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let options = config(&dir, "zstd:3", 1024);
        let mut a = TableFiles::with_schema(&options, "t", schema(), vec![]);
        let mut b = TableFiles::with_schema(&options, "t", schema(), vec![]);
        let names = ["a", "b"];
        a.write(&batch(&a.schema(), &names, 0, 3000), Vec::new).unwrap();
        b.write(&batch(&b.schema(), &names, 0, 5000), Vec::new).unwrap();
        b.close(vec![]).unwrap();
        a.close(vec![]).unwrap();
        assert_ne!(a.files, b.files);
        for (files, rows) in [(&a.files, 3000), (&b.files, 5000)] {
            let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(&files[0]).unwrap()).unwrap();
            assert_eq!(reader.metadata().file_metadata().num_rows(), rows, "{}", files[0].display());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Dictionary columns as plain strings, so batches with different dictionaries compare.
    fn cast_plain(array: &ArrayRef) -> Vec<String> {
        (0..array.len())
            .map(|i| match array.data_type() {
                DataType::Dictionary(..) => {
                    let d = array.as_dictionary::<Int32Type>();
                    d.values().as_string::<i32>().value(d.keys().value(i) as usize).to_owned()
                }
                DataType::Int64 => format!("{:?}", array.as_primitive::<Int64Type>().iter().nth(i).unwrap()),
                DataType::UInt64 => array.as_primitive::<UInt64Type>().value(i).to_string(),
                DataType::UInt32 => array.as_primitive::<UInt32Type>().value(i).to_string(),
                DataType::Int32 => format!("{:?}", array.as_primitive::<Int32Type>().iter().nth(i).unwrap()),
                DataType::Float64 => array.as_primitive::<arrow_array::types::Float64Type>().value(i).to_string(),
                _ => array.as_string::<i32>().value(i).to_owned(),
            })
            .collect()
    }

    fn arrow_select_concat(schema: &Arc<Schema>, batches: &[RecordBatch]) -> RecordBatch {
        let columns = (0..schema.fields().len())
            .map(|c| {
                let parts: Vec<ArrayRef> = batches.iter().map(|b| b.column(c).clone()).collect();
                concat(&parts)
            })
            .collect();
        RecordBatch::try_new(schema.clone(), columns).unwrap()
    }

    /// Concatenation without arrow-select: dictionaries become one dictionary of all values.
    fn concat(parts: &[ArrayRef]) -> ArrayRef {
        match parts[0].data_type() {
            DataType::Dictionary(..) => {
                let values: Vec<String> = parts.iter().flat_map(cast_plain).collect();
                let distinct: Vec<&String> = {
                    let mut d: Vec<&String> = values.iter().collect();
                    d.sort();
                    d.dedup();
                    d
                };
                let keys =
                    Int32Array::from_iter_values(values.iter().map(|v| distinct.binary_search(&v).unwrap() as i32));
                let dictionary = StringArray::from_iter_values(distinct);
                Arc::new(DictionaryArray::<Int32Type>::try_new(keys, Arc::new(dictionary)).unwrap())
            }
            DataType::Int64 => {
                Arc::new(Int64Array::from_iter(parts.iter().flat_map(|p| p.as_primitive::<Int64Type>().iter())))
            }
            DataType::UInt64 => {
                Arc::new(UInt64Array::from_iter(parts.iter().flat_map(|p| p.as_primitive::<UInt64Type>().iter())))
            }
            DataType::Int32 => {
                Arc::new(Int32Array::from_iter(parts.iter().flat_map(|p| p.as_primitive::<Int32Type>().iter())))
            }
            DataType::UInt32 => {
                Arc::new(UInt32Array::from_iter(parts.iter().flat_map(|p| p.as_primitive::<UInt32Type>().iter())))
            }
            DataType::Float64 => Arc::new(Float64Array::from_iter(
                parts.iter().flat_map(|p| p.as_primitive::<arrow_array::types::Float64Type>().iter()),
            )),
            _ => Arc::new(StringArray::from_iter(parts.iter().flat_map(|p| p.as_string::<i32>().iter()))),
        }
    }
}
