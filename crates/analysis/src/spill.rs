//! An external sort: records of any number, in bounded memory.
//!
//! Post-processing must hold whatever the trace's length (issue 20): an export that keeps every
//! slice, or `stats` that keeps every distinct name, needs memory in proportion to the input.
//! A [`Sorter`] keeps records in one buffer up to its budget, then writes them sorted to a run
//! file in a private temporary folder, and in the end merges the runs. Keys compare as bytes,
//! so callers build them with [`Key`] (big-endian integers, then strings), and records with
//! equal keys come out in the order they went in.
//!
//! Memory: the budget (a share of `--memory`, [`set_memory`]), plus a 64 KiB read buffer per run while merging, at most [`FAN_IN`]
//! runs at a time (merged in passes beyond). Disk: the records once, twice in a second pass.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};

use crate::error::{Error, Result};

/// The memory post-processing gives its external sorts and summaries by default.
pub const DEFAULT_MEMORY: usize = 256 << 20;

/// The least memory that can be set: below, every record would be a run of its own.
pub const MIN_MEMORY: usize = 4 << 10;

static MEMORY: AtomicUsize = AtomicUsize::new(DEFAULT_MEMORY);

/// Sets the memory that [`share`] divides (`--memory`), at least [`MIN_MEMORY`].
pub fn set_memory(bytes: usize) {
    MEMORY.store(bytes.max(MIN_MEMORY), AtomicOrdering::Relaxed);
}

/// `1/parts` of the memory set for post-processing: a command that holds several sorts (or
/// summaries beside a sort) at once gives each its part.
pub fn share(parts: usize) -> usize {
    MEMORY.load(AtomicOrdering::Relaxed) / parts.max(1)
}

/// A `--memory` value that is not a size this can take.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SizeError {
    /// Not a number, or a number with an unknown unit.
    #[error("{0:?} is not a size (bytes, or a number with K, M or G)")]
    NotASize(String),
    /// More bytes than this machine can count.
    #[error("{0:?} is too large")]
    TooLarge(String),
    /// Below [`MIN_MEMORY`].
    #[error("{0:?} is less than the least, 4K")]
    TooSmall(String),
}

/// Parses a size as `--memory` takes it: bytes, or a number with K, M or G (powers of 1024).
pub fn parse_size(text: &str) -> std::result::Result<usize, SizeError> {
    let trimmed = text.trim();
    let (digits, shift) = match trimmed.char_indices().last() {
        Some((at, 'k' | 'K')) => (&trimmed[..at], 10),
        Some((at, 'm' | 'M')) => (&trimmed[..at], 20),
        Some((at, 'g' | 'G')) => (&trimmed[..at], 30),
        _ => (trimmed, 0),
    };
    let number: usize = digits.parse().map_err(|_| SizeError::NotASize(text.to_owned()))?;
    let bytes = number.checked_mul(1 << shift).ok_or_else(|| SizeError::TooLarge(text.to_owned()))?;
    if bytes < MIN_MEMORY {
        return Err(SizeError::TooSmall(text.to_owned()));
    }
    Ok(bytes)
}

/// Runs merged at once; more are first merged into longer runs.
pub const FAN_IN: usize = 64;

const READ_BUFFER: usize = 64 << 10;

/// A sort key built from parts that compare in order: `u64`s big-endian, strings as bytes.
#[derive(Debug, Default, Clone)]
pub struct Key(pub Vec<u8>);

impl Key {
    /// An empty key.
    pub fn new() -> Key {
        Key(Vec::with_capacity(32))
    }

    /// Appends an unsigned integer, so that smaller sorts first.
    pub fn u64(mut self, value: u64) -> Key {
        self.0.extend_from_slice(&value.to_be_bytes());
        self
    }

    /// Appends a signed integer, so that smaller sorts first.
    pub fn i64(self, value: i64) -> Key {
        self.u64(biased(value))
    }

    /// Appends an unsigned 128-bit integer, so that larger sorts first.
    pub fn u128_descending(mut self, value: u128) -> Key {
        self.0.extend_from_slice(&(u128::MAX - value).to_be_bytes());
        self
    }

    /// Appends a string; it must be the key's last part, since it has no terminator.
    pub fn text(mut self, text: &str) -> Key {
        self.0.extend_from_slice(text.as_bytes());
        self
    }
}

/// `value` as an unsigned integer of the same order (its sign bit flipped), which a key holds
/// big-endian so that the bytes compare as the numbers do.
pub fn biased(value: i64) -> u64 {
    (value as u64) ^ (1 << 63)
}

/// The signed integer [`biased`] made `value` of.
pub fn unbiased(value: u64) -> i64 {
    (value ^ (1 << 63)) as i64
}

/// A private folder for run files, removed with everything in it when dropped.
#[derive(Debug)]
struct Scratch {
    dir: PathBuf,
    files: u64,
}

impl Scratch {
    fn create() -> Result<Scratch> {
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let serial = SERIAL.fetch_add(1, AtomicOrdering::Relaxed);
        let dir = base.join(format!("rocprof-rs-sort-{}-{serial}-{nanos:x}", std::process::id()));
        let mut builder = std::fs::DirBuilder::new();
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&dir).map_err(|source| io(&dir, source))?;
        Ok(Scratch { dir, files: 0 })
    }

    fn next_path(&mut self) -> PathBuf {
        self.files += 1;
        self.dir.join(format!("run-{}", self.files))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn io(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: format!("{} (a temporary file of the external sort; set TMPDIR to move it)", path.display()),
        source,
    }
}

/// Records waiting in memory: their bytes in one buffer, and where each lies.
#[derive(Debug, Default)]
struct Buffer {
    bytes: Vec<u8>,
    /// (start, key length, value length) of each record, in arrival order.
    records: Vec<(usize, u32, u32)>,
}

impl Buffer {
    fn footprint(&self) -> usize {
        self.bytes.len() + self.records.len() * std::mem::size_of::<(usize, u32, u32)>()
    }

    fn push(&mut self, key: &[u8], value: &[u8]) {
        self.records.push((self.bytes.len(), key.len() as u32, value.len() as u32));
        self.bytes.extend_from_slice(key);
        self.bytes.extend_from_slice(value);
    }

    fn key(&self, &(start, key, _): &(usize, u32, u32)) -> &[u8] {
        &self.bytes[start..start + key as usize]
    }

    fn value(&self, &(start, key, value): &(usize, u32, u32)) -> &[u8] {
        &self.bytes[start + key as usize..start + key as usize + value as usize]
    }

    /// Sorts by key; a stable sort, so equal keys keep their arrival order.
    fn sort(&mut self) {
        let mut records = std::mem::take(&mut self.records);
        records.sort_by(|a, b| self.key(a).cmp(self.key(b)));
        self.records = records;
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.records.clear();
    }
}

/// Collects records and gives them back sorted by key.
#[derive(Debug)]
pub struct Sorter {
    budget: usize,
    buffer: Buffer,
    runs: Vec<PathBuf>,
    scratch: Option<Scratch>,
}

impl Default for Sorter {
    /// A sorter with a quarter of the memory set for post-processing.
    fn default() -> Self {
        Sorter::with_budget(share(4))
    }
}

impl Sorter {
    /// A sorter that writes a run whenever its buffered records pass `budget` bytes.
    pub fn with_budget(budget: usize) -> Sorter {
        Sorter { budget: budget.max(1), buffer: Buffer::default(), runs: Vec::new(), scratch: None }
    }

    /// Adds a record.
    pub fn push(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        if key.len() > u32::MAX as usize || value.len() > u32::MAX as usize {
            return Err(Error::Invalid(format!("a record of {} bytes is too large to sort", key.len() + value.len())));
        }
        self.buffer.push(key, value);
        if self.buffer.footprint() >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// Whether records have gone to disk.
    pub fn spilled(&self) -> bool {
        !self.runs.is_empty()
    }

    fn scratch(&mut self) -> Result<&mut Scratch> {
        if self.scratch.is_none() {
            self.scratch = Some(Scratch::create()?);
        }
        Ok(self.scratch.as_mut().expect("created above"))
    }

    fn spill(&mut self) -> Result<()> {
        self.buffer.sort();
        let path = self.scratch()?.next_path();
        let mut out = RunWriter::create(&path)?;
        for record in &self.buffer.records {
            out.write(self.buffer.key(record), self.buffer.value(record))?;
        }
        out.finish()?;
        self.runs.push(path);
        self.buffer.clear();
        self.buffer.bytes.shrink_to(self.budget);
        Ok(())
    }

    /// The records in key order.
    pub fn finish(mut self) -> Result<Sorted> {
        if self.runs.is_empty() {
            self.buffer.sort();
            return Ok(Sorted { source: Source::Memory(std::mem::take(&mut self.buffer)), _scratch: None });
        }
        if !self.buffer.records.is_empty() {
            self.spill()?;
        }
        let mut runs = std::mem::take(&mut self.runs);
        while runs.len() > FAN_IN {
            let mut longer = Vec::new();
            for group in runs.chunks(FAN_IN) {
                let path = self.scratch()?.next_path();
                let mut out = RunWriter::create(&path)?;
                let mut merge = Merge::open(group)?;
                while let Some((key, value)) = merge.next()? {
                    out.write(key, value)?;
                }
                out.finish()?;
                group.iter().for_each(|p| drop(std::fs::remove_file(p)));
                longer.push(path);
            }
            runs = longer;
        }
        Ok(Sorted { source: Source::Runs(runs), _scratch: self.scratch.take() })
    }
}

/// Writes one run: `[key length u32][value length u32][key][value]` per record.
struct RunWriter {
    path: PathBuf,
    out: BufWriter<File>,
}

impl RunWriter {
    fn create(path: &Path) -> Result<RunWriter> {
        let file = File::options().write(true).create_new(true).open(path).map_err(|source| io(path, source))?;
        Ok(RunWriter { path: path.to_owned(), out: BufWriter::with_capacity(1 << 20, file) })
    }

    fn write(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let lengths = [(key.len() as u32).to_le_bytes(), (value.len() as u32).to_le_bytes()];
        let mut write = || -> std::io::Result<()> {
            self.out.write_all(&lengths[0])?;
            self.out.write_all(&lengths[1])?;
            self.out.write_all(key)?;
            self.out.write_all(value)
        };
        write().map_err(|source| io(&self.path, source))
    }

    fn finish(mut self) -> Result<()> {
        self.out.flush().map_err(|source| io(&self.path, source))
    }
}

/// Reads one run back.
struct RunReader {
    path: PathBuf,
    input: BufReader<File>,
    key: Vec<u8>,
    value: Vec<u8>,
}

impl RunReader {
    fn open(path: &Path) -> Result<RunReader> {
        let file = File::open(path).map_err(|source| io(path, source))?;
        Ok(RunReader {
            path: path.to_owned(),
            input: BufReader::with_capacity(READ_BUFFER, file),
            key: Vec::new(),
            value: Vec::new(),
        })
    }

    /// Loads the next record; false at the end of the run.
    fn advance(&mut self) -> Result<bool> {
        let mut lengths = [0u8; 8];
        match self.input.read_exact(&mut lengths) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(false),
            Err(source) => return Err(io(&self.path, source)),
        }
        let key = u32::from_le_bytes(lengths[..4].try_into().expect("4 bytes")) as usize;
        let value = u32::from_le_bytes(lengths[4..].try_into().expect("4 bytes")) as usize;
        self.key.resize(key, 0);
        self.value.resize(value, 0);
        let mut read = || -> std::io::Result<()> {
            self.input.read_exact(&mut self.key)?;
            self.input.read_exact(&mut self.value)
        };
        read().map_err(|source| io(&self.path, source))?;
        Ok(true)
    }
}

/// A run in the merge heap, ordered so the smallest key (then the earliest run) pops first.
struct Head {
    run: usize,
    reader: RunReader,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        other.reader.key.cmp(&self.reader.key).then_with(|| other.run.cmp(&self.run))
    }
}

/// A k-way merge of sorted runs.
struct Merge {
    heap: BinaryHeap<Head>,
    /// The run whose record was handed out last, to advance before the next.
    current: Option<Head>,
}

impl Merge {
    fn open(runs: &[PathBuf]) -> Result<Merge> {
        let mut heap = BinaryHeap::with_capacity(runs.len());
        for (run, path) in runs.iter().enumerate() {
            let mut reader = RunReader::open(path)?;
            if reader.advance()? {
                heap.push(Head { run, reader });
            }
        }
        Ok(Merge { heap, current: None })
    }

    fn next(&mut self) -> Result<Option<(&[u8], &[u8])>> {
        if let Some(mut head) = self.current.take()
            && head.reader.advance()?
        {
            self.heap.push(head);
        }
        self.current = self.heap.pop();
        Ok(self.current.as_ref().map(|h| (h.reader.key.as_slice(), h.reader.value.as_slice())))
    }
}

/// Where sorted records lie: still in memory, or in runs on disk.
enum Source {
    Memory(Buffer),
    Runs(Vec<PathBuf>),
}

/// Sorted records, to be read once or more; the run files go when this is dropped.
pub struct Sorted {
    source: Source,
    _scratch: Option<Scratch>,
}

impl std::fmt::Debug for Sorted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.source {
            Source::Memory(buffer) => write!(f, "Sorted({} records in memory)", buffer.records.len()),
            Source::Runs(runs) => write!(f, "Sorted({} runs)", runs.len()),
        }
    }
}

impl Sorted {
    /// A reader from the first record.
    pub fn reader(&self) -> Result<Reader<'_>> {
        Ok(match &self.source {
            Source::Memory(buffer) => Reader(ReaderKind::Memory { buffer, next: 0 }),
            Source::Runs(runs) => Reader(ReaderKind::Merge(Merge::open(runs)?)),
        })
    }
}

/// Reads sorted records one at a time.
pub struct Reader<'a>(ReaderKind<'a>);

enum ReaderKind<'a> {
    Memory { buffer: &'a Buffer, next: usize },
    Merge(Merge),
}

impl std::fmt::Debug for Reader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reader")
    }
}

impl Reader<'_> {
    /// The next record as (key, value), or `None` after the last.
    #[allow(clippy::should_implement_trait)] // it lends its buffers, which Iterator cannot
    pub fn next(&mut self) -> Result<Option<(&[u8], &[u8])>> {
        match &mut self.0 {
            ReaderKind::Memory { buffer, next } => {
                let Some(record) = buffer.records.get(*next) else { return Ok(None) };
                *next += 1;
                Ok(Some((buffer.key(record), buffer.value(record))))
            }
            ReaderKind::Merge(merge) => merge.next(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(budget: usize, records: &[(u64, u64)]) -> Vec<(u64, u64)> {
        let mut sorter = Sorter::with_budget(budget);
        for &(k, v) in records {
            sorter.push(&Key::new().u64(k).0, &v.to_le_bytes()).unwrap();
        }
        assert_eq!(sorter.spilled(), budget < records.len() * 32, "budget {budget}");
        let sorted = sorter.finish().unwrap();
        let mut sorted = sorted.reader().unwrap();
        let mut out = Vec::new();
        while let Some((k, v)) = sorted.next().unwrap() {
            out.push((u64::from_be_bytes(k.try_into().unwrap()), u64::from_le_bytes(v.try_into().unwrap())));
        }
        out
    }

    #[test]
    fn spilled_and_in_memory_sorts_agree_and_are_stable() {
        // A pseudo-random sequence with many equal keys; the value records the arrival order.
        let mut x = 12345u64;
        let records: Vec<(u64, u64)> = (0..20_000)
            .map(|i| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((x >> 33) % 500, i)
            })
            .collect();
        let mut want = records.clone();
        want.sort_by_key(|&(k, _)| k);
        assert_eq!(sorted(1 << 30, &records), want);
        // 32 bytes a record in memory, so 3 records per run: 6,667 runs, merged in three passes.
        assert_eq!(sorted(100, &records), want);
        assert_eq!(sorted(64 << 10, &records), want);
    }

    #[test]
    fn run_files_are_removed() {
        let mut sorter = Sorter::with_budget(16);
        for i in 0..100u64 {
            sorter.push(&Key::new().u64(100 - i).0, b"v").unwrap();
        }
        let dir = sorter.scratch.as_ref().unwrap().dir.clone();
        assert!(dir.is_dir());
        let sorted = sorter.finish().unwrap();
        assert_eq!(sorted.reader().unwrap().next().unwrap().unwrap().0, Key::new().u64(1).0.as_slice());
        assert_eq!(sorted.reader().unwrap().next().unwrap().unwrap().0, Key::new().u64(1).0.as_slice(), "read twice");
        drop(sorted);
        assert!(!dir.exists());
    }

    #[test]
    fn sizes_parse_with_their_units_and_bad_ones_are_named() {
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        for bad in ["", "M", "12X", "-5M", "1K", "99999999999999999999G"] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn keys_order_integers_then_text() {
        assert!(Key::new().u64(2).text("a").0 < Key::new().u64(10).text("").0);
        assert!(Key::new().u128_descending(10).0 < Key::new().u128_descending(2).0);
        assert!(Key::new().text("ab").0 < Key::new().text("b").0);
    }
}
