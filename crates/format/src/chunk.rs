//! One column's chunk of the open row group, encoded page by page as batches arrive.
//!
//! The writer's own encoder for the flat tables this crate declares: every column is one of
//! the few types `tables::columns` has, so a page is a plain slice (numbers), a run of
//! length-prefixed strings, DELTA_BINARY_PACKED ids and timestamps (and batches of one
//! repeated number), or dictionary keys. A dictionary column's strings are interned once per
//! batch and key (not once per row, as parquet-rs's column writers do), and its keys are
//! remapped through an array. Pages are compressed as they fill and kept, compressed, until
//! the row group closes; then the dictionary page goes first and the chunk is spliced into the
//! file.

use std::collections::HashMap;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use bytes::Bytes;
use parquet::basic::{Compression as ParquetCompression, Encoding};
use parquet::column::page::{CompressedPage, Page, PageWriter};
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{ColumnChunkMetaData, ColumnIndexBuilder, OffsetIndexBuilder};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::page_index::offset_index::OffsetIndexMetaData;
use parquet::file::statistics::Statistics;
use parquet::file::writer::{SerializedPageWriter, TrackedWrite};
use parquet::schema::types::ColumnDescPtr;

use crate::encoding;

#[cfg(target_endian = "big")]
compile_error!("PLAIN pages are copied from memory as little-endian bytes");

/// How a column's values are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// PLAIN fixed-width numbers, copied as they lie in memory.
    Fixed,
    /// DELTA_BINARY_PACKED 64-bit integers: timestamps and ids, which mostly rise.
    Delta,
    /// PLAIN strings, each after its 4-byte length.
    Strings,
    /// Strings through the chunk's dictionary: keys in the RLE/bit-packing hybrid.
    Dictionary,
}

impl Kind {
    /// The encoding for a column of `data_type`; `delta` for integers that are mostly distinct.
    /// `None` for types no table declares.
    pub fn of(data_type: &DataType, delta: bool) -> Option<Kind> {
        Some(match data_type {
            DataType::Int64 | DataType::UInt64 if delta => Kind::Delta,
            DataType::Int64 | DataType::UInt64 | DataType::Int32 | DataType::UInt32 | DataType::Float64 => Kind::Fixed,
            DataType::Utf8 => Kind::Strings,
            DataType::Dictionary(key, value) if **key == DataType::Int32 && **value == DataType::Utf8 => {
                Kind::Dictionary
            }
            _ => return None,
        })
    }
}

/// Parquet page compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// zstd at the given level (1 to 22).
    Zstd(i32),
    /// Snappy.
    Snappy,
    /// None.
    None,
}

/// The page compression, with its context and output buffer kept from page to page (a fresh
/// buffer per page is a fresh mapping of a quarter megabyte, and page faults to fill it).
pub enum Codec {
    None,
    Snappy(Box<snap::raw::Encoder>, Vec<u8>),
    Zstd(zstd::bulk::Compressor<'static>, i32, Vec<u8>),
}

impl std::fmt::Debug for Codec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Codec::None => "none",
            Codec::Snappy(..) => "snappy",
            Codec::Zstd(..) => "zstd",
        })
    }
}

impl Codec {
    /// The codec for the configured compression.
    pub fn new(compression: Compression) -> std::io::Result<Codec> {
        Ok(match compression {
            Compression::None => Codec::None,
            Compression::Snappy => Codec::Snappy(Box::new(snap::raw::Encoder::new()), Vec::new()),
            Compression::Zstd(level) => Codec::Zstd(zstd::bulk::Compressor::new(level)?, level, Vec::new()),
        })
    }

    /// What the chunk metadata calls it.
    pub fn parquet(&self) -> ParquetCompression {
        match self {
            Codec::None => ParquetCompression::UNCOMPRESSED,
            Codec::Snappy(..) => ParquetCompression::SNAPPY,
            Codec::Zstd(_, level, _) => {
                ParquetCompression::ZSTD(parquet::basic::ZstdLevel::try_new(*level).unwrap_or_default())
            }
        }
    }

    /// `page` compressed (or copied as it is, uncompressed).
    fn compress(&mut self, page: &[u8]) -> Result<Bytes> {
        let external = |e: std::io::Error| ParquetError::External(Box::new(e));
        Ok(match self {
            Codec::None => Bytes::copy_from_slice(page),
            Codec::Snappy(encoder, out) => {
                out.resize(snap::raw::max_compress_len(page.len()), 0);
                let n = encoder.compress(page, out).map_err(|e| external(std::io::Error::other(e)))?;
                Bytes::copy_from_slice(&out[..n])
            }
            Codec::Zstd(compressor, _, out) => {
                out.reserve(zstd::zstd_safe::compress_bound(page.len()));
                compressor.compress_to_buffer(page, out).map_err(external)?;
                Bytes::copy_from_slice(out)
            }
        })
    }
}

/// Compresses `bytes`, a data page's levels and values for `rows` rows, and appends the page
/// with its header to `out`; the bytes it takes before compression, header included.
fn write_data_page(
    out: &mut Vec<u8>,
    codec: &mut Codec,
    bytes: &[u8],
    encoding: Encoding,
    rows: usize,
) -> Result<usize> {
    let page = Page::DataPage {
        buf: codec.compress(bytes)?,
        num_values: rows as u32,
        encoding,
        def_level_encoding: Encoding::RLE,
        rep_level_encoding: Encoding::RLE,
        statistics: None,
    };
    write_page(out, page, bytes.len())
}

/// Appends `page` with its header to `out`; the bytes it takes before compression, header
/// included, as the chunk metadata counts them.
fn write_page(out: &mut Vec<u8>, page: Page, uncompressed: usize) -> Result<usize> {
    let mut sink = TrackedWrite::new(out);
    let spec = SerializedPageWriter::new(&mut sink).write_page(CompressedPage::new(page, uncompressed))?;
    sink.into_inner()?;
    Ok(spec.uncompressed_size)
}

/// The chunk key of `value`, which is added to the dictionary page if it is new.
#[cold]
fn intern(keys: &mut HashMap<Box<[u8]>, u32>, page: &mut Vec<u8>, value: &[u8]) -> u32 {
    let next = keys.len() as u32;
    *keys.entry(value.into()).or_insert_with(|| {
        page.extend_from_slice(&(value.len() as u32).to_le_bytes());
        page.extend_from_slice(value);
        next
    })
}

/// Adds `encoding` to a chunk's list of the encodings its pages use.
fn note(encodings: &mut Vec<Encoding>, encoding: Encoding) {
    if !encodings.contains(&encoding) {
        encodings.push(encoding);
    }
}

/// Min and max of an integer column, in the column's own order (unsigned ones unsigned).
#[derive(Debug, Clone, Copy)]
struct Range {
    min: i128,
    max: i128,
}

impl Range {
    fn widen(range: &mut Option<Range>, batch: Option<Range>) {
        let Some(b) = batch else { return };
        *range = Some(match *range {
            Some(r) => Range { min: r.min.min(b.min), max: r.max.max(b.max) },
            None => b,
        });
    }
}

/// The min and max of an integer array's valid values; without nulls, over four independent
/// pairs, since one running pair is a chain of dependent compares, one per value.
fn bounds<T>(array: &arrow_array::PrimitiveArray<T>) -> Option<Range>
where
    T: arrow_array::ArrowPrimitiveType,
    T::Native: Ord + Into<i128>,
{
    let fold = |(min, max): (T::Native, T::Native), v: T::Native| (min.min(v), max.max(v));
    let first = array.iter().flatten().next()?;
    let (min, max) = if array.null_count() == 0 {
        let quads = array.values().chunks_exact(4);
        let rest = quads.remainder().iter().copied().fold((first, first), fold);
        let mut lanes = [(first, first); 4];
        for quad in quads {
            for (lane, &v) in lanes.iter_mut().zip(quad) {
                *lane = fold(*lane, v);
            }
        }
        lanes.into_iter().fold(rest, |bounds, (min, max)| fold(fold(bounds, min), max))
    } else {
        array.iter().flatten().fold((first, first), fold)
    };
    Some(Range { min: min.into(), max: max.into() })
}

/// A min or max as the column index stores it: the physical type's little-endian bytes (an
/// unsigned column's in its signed type's bits, as its chunk statistics are).
fn physical_bytes(physical: parquet::basic::Type, value: i128) -> Vec<u8> {
    match physical {
        parquet::basic::Type::INT32 => (value as i32).to_le_bytes().to_vec(),
        _ => (value as i64).to_le_bytes().to_vec(),
    }
}

/// A column chunk in progress.
pub struct ColumnChunk {
    descr: ColumnDescPtr,
    data_type: DataType,
    kind: Kind,
    nullable: bool,
    /// The open page: PLAIN bytes (`Fixed`, `Strings`), values (`Delta`) or keys.
    plain: Vec<u8>,
    deltas: Vec<i64>,
    keys: Vec<u32>,
    /// Definition levels of the open page (nullable columns): 1 for a value, 0 for a null.
    levels: Vec<u32>,
    page_rows: usize,
    page_limit: usize,
    /// The chunk's dictionary: key by string, and the dictionary page's PLAIN bytes.
    dictionary: HashMap<Box<[u8]>, u32>,
    dictionary_page: Vec<u8>,
    /// Per batch: the chunk key of each of the batch dictionary's keys (u32::MAX: not yet).
    batch_keys: Vec<u32>,
    /// Where a page with levels or an encoding is assembled, kept from page to page.
    scratch: Vec<u8>,
    /// Data pages written so far, with their headers.
    pages: Vec<u8>,
    /// The encodings of the chunk's pages so far, for its metadata.
    encodings: Vec<Encoding>,
    uncompressed: u64,
    rows: u64,
    nulls: u64,
    range: Option<Range>,
    statistics: bool,
    /// The page index: each data page's place in `pages` and first row (the offset index),
    /// and, for columns with statistics, its min, max and nulls (the column index), so that
    /// engines skip pages inside a row group as they skip row groups.
    page_places: Vec<PagePlace>,
    page_nulls: u64,
    page_range: Option<Range>,
}

/// A data page's place in its chunk's data pages, its rows and what the column index says of it.
#[derive(Debug, Clone, Copy)]
struct PagePlace {
    offset: usize,
    size: usize,
    rows: usize,
    nulls: u64,
    range: Option<Range>,
}

impl std::fmt::Debug for ColumnChunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColumnChunk").field("column", &self.descr.path()).field("rows", &self.rows).finish()
    }
}

impl ColumnChunk {
    /// An empty chunk of column `descr`, holding Arrow `data_type`, encoded as `kind`; pages end
    /// once they hold `page_limit` bytes before compression. `statistics`: whether the chunk's
    /// metadata carries its integer min and max.
    pub fn new(
        descr: ColumnDescPtr,
        data_type: DataType,
        kind: Kind,
        nullable: bool,
        page_limit: usize,
        statistics: bool,
    ) -> ColumnChunk {
        ColumnChunk {
            descr,
            data_type,
            kind,
            nullable,
            plain: Vec::new(),
            deltas: Vec::new(),
            keys: Vec::new(),
            levels: Vec::new(),
            page_rows: 0,
            page_limit,
            dictionary: HashMap::new(),
            dictionary_page: Vec::new(),
            batch_keys: Vec::new(),
            scratch: Vec::new(),
            pages: Vec::new(),
            encodings: Vec::new(),
            uncompressed: 0,
            rows: 0,
            nulls: 0,
            range: None,
            statistics,
            page_places: Vec::new(),
            page_nulls: 0,
            page_range: None,
        }
    }

    /// Widens the chunk's and the open page's min and max by a batch's.
    fn widen(&mut self, batch: Option<Range>) {
        Range::widen(&mut self.range, batch);
        Range::widen(&mut self.page_range, batch);
    }

    /// Compresses and appends a data page of `rows` rows, and notes its place for the page index.
    fn push_page(&mut self, codec: &mut Codec, encoding: Encoding, rows: usize, from_scratch: bool) -> Result<()> {
        let offset = self.pages.len();
        let bytes = if from_scratch { &self.scratch } else { &self.plain };
        note(&mut self.encodings, encoding);
        self.uncompressed += write_data_page(&mut self.pages, codec, bytes, encoding, rows)? as u64;
        self.page_places.push(PagePlace {
            offset,
            size: self.pages.len() - offset,
            rows,
            nulls: std::mem::take(&mut self.page_nulls),
            range: self.page_range.take(),
        });
        Ok(())
    }

    /// Rows in the chunk so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Appends `array` (of this column's type), compressing a page whenever one fills.
    pub fn append(&mut self, array: &ArrayRef, codec: &mut Codec) -> Result<()> {
        if array.is_empty() {
            return Ok(());
        }
        if self.nullable {
            // A column the backend never fills (AMD's stream ids) is all nulls: no bits to read.
            let (rows, nulls) = (array.len(), array.null_count());
            match array.logical_nulls() {
                Some(valid) if nulls < rows => self.levels.extend(valid.iter().map(u32::from)),
                _ => self.levels.resize(self.levels.len() + rows, u32::from(nulls == 0)),
            }
        }
        self.nulls += array.null_count() as u64;
        self.page_nulls += array.null_count() as u64;
        let integers = matches!(self.kind, Kind::Fixed | Kind::Delta) && self.data_type != DataType::Float64;
        if integers && self.page_rows == 0 && !self.nullable {
            return self.append_page(array, codec);
        }
        match self.kind {
            Kind::Fixed => self.append_fixed(array),
            Kind::Delta => self.append_delta(array),
            Kind::Strings => {
                for value in array.as_string::<i32>().iter().flatten() {
                    self.plain.extend_from_slice(&(value.len() as u32).to_le_bytes());
                    self.plain.extend_from_slice(value.as_bytes());
                }
            }
            Kind::Dictionary => self.append_keys(array),
        }
        self.rows += array.len() as u64;
        self.page_rows += array.len();
        let page_bytes = self.plain.len() + self.deltas.len() * 8 + self.keys.len() * 4;
        if page_bytes >= self.page_limit {
            self.flush_page(codec)?;
        }
        Ok(())
    }

    /// A batch of a required integer column as a page of its own, encoded (delta) or compressed
    /// (plain) straight from the array's buffer: the copy into a page buffer was a twentieth of
    /// the writer's time, more than the few extra page headers and zstd frames of batch-sized
    /// pages cost.
    ///
    /// A batch of one repeated number (a process id, a block's height, the graph and cluster
    /// columns that are zero on AMD) is written as a DELTA_BINARY_PACKED page of zero deltas
    /// instead: a few hundred bytes rather than the whole buffer for zstd to scan, which is
    /// where most of the compressor's time went. Pages of one chunk may differ in encoding;
    /// readers decode each page by its header (as they do after a writer's dictionary falls
    /// back to PLAIN).
    fn append_page(&mut self, array: &ArrayRef, codec: &mut Codec) -> Result<()> {
        macro_rules! page {
            ($t:ty, $bits:expr) => {{
                let values = array.as_primitive::<$t>();
                let all = values.values();
                let first = all[0];
                let constant = encoding::is_constant(all);
                if self.statistics {
                    let range =
                        if constant { Some(Range { min: first.into(), max: first.into() }) } else { bounds(values) };
                    self.widen(range);
                }
                (all.inner(), constant.then(|| $bits(first)))
            }};
        }
        // The number's bits as the page's physical type holds them: unsigned columns are
        // stored in the signed type of their width.
        let (plain, constant) = match self.data_type {
            DataType::Int64 => page!(Int64Type, |v: i64| v),
            DataType::UInt64 => page!(UInt64Type, |v: u64| v as i64),
            DataType::Int32 => page!(Int32Type, i64::from),
            _ => page!(UInt32Type, |v: u32| i64::from(v as i32)),
        };
        let rows = array.len();
        self.rows += rows as u64;
        self.scratch.clear();
        let encoding = match (constant, self.kind) {
            (Some(value), _) => {
                encoding::delta_constant(&mut self.scratch, value, rows);
                Encoding::DELTA_BINARY_PACKED
            }
            (None, Kind::Delta) => {
                // Delta columns are 64-bit (`Kind::of`), and u64's bits are INT64's.
                encoding::delta_binary_packed(&mut self.scratch, plain.typed_data::<i64>());
                Encoding::DELTA_BINARY_PACKED
            }
            (None, _) => {
                // The page is the array's buffer itself: compressed from it, never copied.
                let offset = self.pages.len();
                note(&mut self.encodings, Encoding::PLAIN);
                self.uncompressed +=
                    write_data_page(&mut self.pages, codec, plain.as_slice(), Encoding::PLAIN, rows)? as u64;
                self.page_places.push(PagePlace {
                    offset,
                    size: self.pages.len() - offset,
                    rows,
                    nulls: std::mem::take(&mut self.page_nulls),
                    range: self.page_range.take(),
                });
                return Ok(());
            }
        };
        self.push_page(codec, encoding, rows, true)
    }

    fn append_fixed(&mut self, array: &ArrayRef) {
        macro_rules! plain {
            ($t:ty) => {{
                let values = array.as_primitive::<$t>();
                if values.null_count() == 0 {
                    self.plain.extend_from_slice(values.values().inner().as_slice());
                } else {
                    for value in values.iter().flatten() {
                        self.plain.extend_from_slice(&value.to_le_bytes());
                    }
                }
                if self.statistics {
                    self.widen(bounds(values));
                }
            }};
        }
        match self.data_type {
            DataType::Int64 => plain!(Int64Type),
            DataType::UInt64 => plain!(UInt64Type),
            DataType::Int32 => plain!(Int32Type),
            DataType::UInt32 => plain!(UInt32Type),
            _ => {
                // Floats: no statistics (NaN ordering is more than readers need here).
                let values = array.as_primitive::<Float64Type>();
                for value in values.iter().flatten() {
                    self.plain.extend_from_slice(&value.to_le_bytes());
                }
            }
        }
    }

    fn append_delta(&mut self, array: &ArrayRef) {
        macro_rules! delta {
            ($t:ty, $bits:expr) => {{
                let values = array.as_primitive::<$t>();
                if values.null_count() == 0 {
                    self.deltas.extend(values.values().iter().map($bits));
                } else {
                    self.deltas.extend(values.iter().flatten().map(|v| $bits(&v)));
                }
                if self.statistics {
                    self.widen(bounds(values));
                }
            }};
        }
        match self.data_type {
            // The format stores unsigned 64-bit integers in INT64's bits.
            DataType::UInt64 => delta!(UInt64Type, |&v: &u64| v as i64),
            _ => delta!(Int64Type, |&v: &i64| v),
        }
    }

    /// Maps the batch's keys to the chunk's. The map is an array indexed by the batch key,
    /// filled the first time a key is met; the loop is written so the common case (a key
    /// already met) is a load and a store.
    fn append_keys(&mut self, array: &ArrayRef) {
        let dictionary = array.as_dictionary::<Int32Type>();
        let strings = dictionary.values().as_string::<i32>();
        let Self { batch_keys, dictionary: chunk_keys, dictionary_page, keys, .. } = self;
        batch_keys.clear();
        batch_keys.resize(strings.len(), u32::MAX);
        let mut key_of = |key: i32| {
            let slot = &mut batch_keys[key as usize];
            if *slot == u32::MAX {
                *slot = intern(chunk_keys, dictionary_page, strings.value(key as usize).as_bytes());
            }
            *slot
        };
        let batch = dictionary.keys();
        keys.reserve(batch.len());
        if batch.null_count() == 0 {
            keys.extend(batch.values().iter().map(|&key| key_of(key)));
        } else {
            keys.extend(batch.iter().flatten().map(key_of));
        }
    }

    /// Encodes, compresses and stores the open page, if it has rows.
    fn flush_page(&mut self, codec: &mut Codec) -> Result<()> {
        if self.page_rows == 0 {
            return Ok(());
        }
        let page = &mut self.scratch;
        page.clear();
        if self.nullable {
            page.extend_from_slice(&[0; 4]);
            encoding::rle_hybrid(page, &self.levels, 1);
            let levels = (page.len() - 4) as u32;
            page[..4].copy_from_slice(&levels.to_le_bytes());
            self.levels.clear();
        }
        let (encoding, from_scratch) = match self.kind {
            // Numbers and strings are their own page when there are no levels: no copy.
            Kind::Fixed | Kind::Strings if page.is_empty() => (Encoding::PLAIN, false),
            Kind::Fixed | Kind::Strings => {
                page.extend_from_slice(&self.plain);
                (Encoding::PLAIN, true)
            }
            Kind::Delta => {
                encoding::delta_binary_packed(page, &self.deltas);
                self.deltas.clear();
                (Encoding::DELTA_BINARY_PACKED, true)
            }
            Kind::Dictionary => {
                let width = encoding::bit_width(self.dictionary.len().saturating_sub(1) as u64);
                page.push(width);
                encoding::rle_hybrid(page, &self.keys, width);
                self.keys.clear();
                // What parquet-rs writes by default (format 1.0 pages), which every reader takes.
                (Encoding::PLAIN_DICTIONARY, true)
            }
        };
        self.push_page(codec, encoding, self.page_rows, from_scratch)?;
        self.plain.clear();
        self.page_rows = 0;
        Ok(())
    }

    /// The chunk's offset index (every column) and column index (columns with statistics),
    /// its pages placed after `data_offset` bytes of dictionary page.
    fn page_index(&mut self, data_offset: i64) -> Result<(Option<ColumnIndexMetaData>, OffsetIndexMetaData)> {
        let mut offsets = OffsetIndexBuilder::new();
        let physical = self.descr.physical_type();
        let mut column_index = self.statistics.then(|| ColumnIndexBuilder::new(physical));
        for page in self.page_places.drain(..) {
            offsets.append_offset_and_size(data_offset + page.offset as i64, page.size as i32);
            offsets.append_row_count(page.rows as i64);
            let Some(index) = column_index.as_mut() else { continue };
            let (min, max) = match page.range {
                Some(r) => (physical_bytes(physical, r.min), physical_bytes(physical, r.max)),
                None => (Vec::new(), Vec::new()),
            };
            index.append(page.range.is_none(), min, max, page.nulls as i64);
        }
        let column_index = column_index.map(ColumnIndexBuilder::build).transpose()?;
        Ok((column_index, offsets.build()))
    }

    /// Closes the chunk: its bytes (dictionary page first) and the metadata that splices them
    /// into a row group. The chunk is left empty for the next row group.
    pub fn finish(&mut self, codec: &mut Codec) -> Result<(Bytes, ColumnCloseResult)> {
        self.flush_page(codec)?;
        let mut uncompressed = self.uncompressed;
        let mut encodings = vec![Encoding::RLE];
        encodings.append(&mut self.encodings);
        // The next chunk's pages start with room for as many bytes as this one's.
        let room = self.pages.len();
        let data = std::mem::replace(&mut self.pages, Vec::with_capacity(room));
        let (bytes, data_offset, dictionary_offset) = if self.kind == Kind::Dictionary {
            let page = Page::DictionaryPage {
                buf: codec.compress(&self.dictionary_page)?,
                num_values: self.dictionary.len() as u32,
                encoding: Encoding::PLAIN_DICTIONARY,
                is_sorted: false,
            };
            let mut chunk = Vec::with_capacity(data.len() + self.dictionary_page.len() + 64);
            uncompressed += write_page(&mut chunk, page, self.dictionary_page.len())? as u64;
            self.dictionary.clear();
            self.dictionary_page.clear();
            let data_offset = chunk.len() as i64;
            chunk.extend_from_slice(&data);
            (chunk, data_offset, Some(0))
        } else {
            (data, 0, None)
        };
        let mut metadata = ColumnChunkMetaData::builder(self.descr.clone())
            .set_compression(codec.parquet())
            .set_encodings(encodings)
            .set_total_compressed_size(bytes.len() as i64)
            .set_total_uncompressed_size(uncompressed as i64)
            .set_num_values(self.rows as i64)
            .set_data_page_offset(data_offset)
            .set_dictionary_page_offset(dictionary_offset);
        if let Some(statistics) = self.statistics() {
            metadata = metadata.set_statistics(statistics);
        }
        let (column_index, offset_index) = self.page_index(data_offset)?;
        let result = ColumnCloseResult {
            bytes_written: bytes.len() as u64,
            rows_written: self.rows,
            metadata: metadata.build()?,
            bloom_filter: None,
            column_index,
            offset_index: Some(offset_index),
        };
        self.uncompressed = 0;
        self.rows = 0;
        self.nulls = 0;
        self.range = None;
        Ok((bytes.into(), result))
    }

    /// The chunk's min, max and null count, as Parquet stores them: an unsigned column's bounds
    /// in its physical type's bits.
    fn statistics(&self) -> Option<Statistics> {
        if !self.statistics {
            return None;
        }
        let (min, max) = self.range.map_or((None, None), |r| (Some(r.min), Some(r.max)));
        let nulls = Some(self.nulls);
        Some(match self.data_type {
            DataType::Int64 | DataType::UInt64 => {
                Statistics::int64(min.map(|v| v as i64), max.map(|v| v as i64), None, nulls, false)
            }
            DataType::Int32 | DataType::UInt32 => {
                Statistics::int32(min.map(|v| v as i32), max.map(|v| v as i32), None, nulls, false)
            }
            _ => return None,
        })
    }
}
