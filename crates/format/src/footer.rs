//! A Parquet footer checked before the parquet crate decodes it.
//!
//! The footer is Thrift (compact protocol), and its lists carry their own element counts. The
//! decoder reserves room for that many elements before reading one, so a flipped bit in a
//! count asks for gigabytes: a fuzzed file asked for 3.9 GB of schema elements, and a larger
//! count fails the allocation, which aborts the process rather than returning an error. Every
//! element takes at least one byte, so a count beyond the bytes left cannot be right.
//!
//! The decoder reads each field it knows as the type parquet.thrift gives it, whatever type
//! the bytes announce (that fuzzed file's schema field announced a double), so this walk does
//! the same: it follows parquet.thrift's declarations of the footer's structs ([`FILE`]), and
//! skips by the announced type only the fields the decoder skips. It allocates nothing, and it
//! bounds nesting, which a decoder follows on its stack.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::error::{Error, Result};

/// The most a footer may take: far beyond any table's (a few KiB per row group).
const MAX_FOOTER: u64 = 64 << 20;
/// Structs within structs and lists: the format nests a handful deep.
const MAX_DEPTH: u32 = 64;

/// Checks the footer of the Parquet file `file` (named `path` in errors), leaving the file's
/// position where it was not relied on (callers reopen or seek).
pub fn check(file: &mut File, path: &Path) -> Result<()> {
    let bad = |why: String| Error::Io {
        path: path.display().to_string(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, format!("corrupt Parquet file ({why})")),
    };
    let io = |source: std::io::Error| Error::Io { path: path.display().to_string(), source };
    let size = file.metadata().map_err(io)?.len();
    if size < 12 {
        return Err(bad(format!("{size} bytes, shorter than a Parquet file's header and footer")));
    }
    let mut tail = [0u8; 8];
    file.seek(SeekFrom::Start(size - 8)).map_err(io)?;
    file.read_exact(&mut tail).map_err(io)?;
    if &tail[4..] != b"PAR1" {
        return Err(bad("no PAR1 at its end".into()));
    }
    let length = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if length > size - 12 || length > MAX_FOOTER {
        return Err(bad(format!("a footer of {length} bytes in a file of {size}")));
    }
    let mut footer = vec![0u8; length as usize];
    file.seek(SeekFrom::Start(size - 8 - length)).map_err(io)?;
    file.read_exact(&mut footer).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut walk = Walk { bytes: &footer, at: 0 };
    walk.structure(FILE, 0).map_err(|why| bad(format!("footer: {why} at byte {}", walk.at)))
}

/// Thrift compact-protocol types.
mod kind {
    pub const STOP: u8 = 0;
    pub const TRUE: u8 = 1;
    pub const FALSE: u8 = 2;
    pub const BYTE: u8 = 3;
    pub const I16: u8 = 4;
    pub const I32: u8 = 5;
    pub const I64: u8 = 6;
    pub const DOUBLE: u8 = 7;
    pub const BINARY: u8 = 8;
    pub const LIST: u8 = 9;
    pub const SET: u8 = 10;
    pub const MAP: u8 = 11;
    pub const STRUCT: u8 = 12;
    pub const UUID: u8 = 13;
}

/// A field's type as parquet.thrift declares it (enums are i32, unions are structs).
#[derive(Debug)]
enum Ty {
    Bool,
    Byte,
    I16,
    I32,
    I64,
    Double,
    Binary,
    Struct(&'static [(i16, Ty)]),
    List(&'static Ty),
}

use Ty::*;

const EMPTY: &[(i16, Ty)] = &[];
const KEY_VALUE: &[(i16, Ty)] = &[(1, Binary), (2, Binary)];
const TIME_UNIT: &[(i16, Ty)] = &[(1, Struct(EMPTY)), (2, Struct(EMPTY)), (3, Struct(EMPTY))];
const LOGICAL_TYPE: &[(i16, Ty)] = &[
    (1, Struct(EMPTY)),
    (2, Struct(EMPTY)),
    (3, Struct(EMPTY)),
    (4, Struct(EMPTY)),
    (5, Struct(&[(1, I32), (2, I32)])),
    (6, Struct(EMPTY)),
    (7, Struct(&[(1, Bool), (2, Struct(TIME_UNIT))])),
    (8, Struct(&[(1, Bool), (2, Struct(TIME_UNIT))])),
    (10, Struct(&[(1, Byte), (2, Bool)])),
    (11, Struct(EMPTY)),
    (12, Struct(EMPTY)),
    (13, Struct(EMPTY)),
    (14, Struct(EMPTY)),
    (15, Struct(EMPTY)),
    (16, Struct(&[(1, Byte)])),
    (17, Struct(&[(1, Binary)])),
    (18, Struct(&[(1, Binary), (2, I32)])),
];
const SCHEMA_ELEMENT: &[(i16, Ty)] = &[
    (1, I32),
    (2, I32),
    (3, I32),
    (4, Binary),
    (5, I32),
    (6, I32),
    (7, I32),
    (8, I32),
    (9, I32),
    (10, Struct(LOGICAL_TYPE)),
];
const STATISTICS: &[(i16, Ty)] =
    &[(1, Binary), (2, Binary), (3, I64), (4, I64), (5, Binary), (6, Binary), (7, Bool), (8, Bool)];
const BOUNDING_BOX: &[(i16, Ty)] =
    &[(1, Double), (2, Double), (3, Double), (4, Double), (5, Double), (6, Double), (7, Double), (8, Double)];
const COLUMN_META_DATA: &[(i16, Ty)] = &[
    (1, I32),
    (2, List(&I32)),
    (3, List(&Binary)),
    (4, I32),
    (5, I64),
    (6, I64),
    (7, I64),
    (8, List(&Struct(KEY_VALUE))),
    (9, I64),
    (10, I64),
    (11, I64),
    (12, Struct(STATISTICS)),
    (13, List(&Struct(&[(1, I32), (2, I32), (3, I32)]))),
    (14, I64),
    (15, I32),
    (16, Struct(&[(1, I64), (2, List(&I64)), (3, List(&I64))])),
    (17, Struct(&[(1, Struct(BOUNDING_BOX)), (2, List(&I32))])),
];
const CRYPTO_META_DATA: &[(i16, Ty)] = &[(1, Struct(EMPTY)), (2, Struct(&[(1, List(&Binary)), (2, Binary)]))];
const COLUMN_CHUNK: &[(i16, Ty)] = &[
    (1, Binary),
    (2, I64),
    (3, Struct(COLUMN_META_DATA)),
    (4, I64),
    (5, I32),
    (6, I64),
    (7, I32),
    (8, Struct(CRYPTO_META_DATA)),
    (9, Binary),
];
const ROW_GROUP: &[(i16, Ty)] = &[
    (1, List(&Struct(COLUMN_CHUNK))),
    (2, I64),
    (3, I64),
    (4, List(&Struct(&[(1, I32), (2, Bool), (3, Bool)]))),
    (5, I64),
    (6, I64),
    (7, I16),
];
const AES: &[(i16, Ty)] = &[(1, Binary), (2, Binary), (3, Bool)];
/// `FileMetaData`, the footer.
const FILE: &[(i16, Ty)] = &[
    (1, I32),
    (2, List(&Struct(SCHEMA_ELEMENT))),
    (3, I64),
    (4, List(&Struct(ROW_GROUP))),
    (5, List(&Struct(KEY_VALUE))),
    (6, Binary),
    (7, List(&Struct(&[(1, Struct(EMPTY))]))),
    (8, Struct(&[(1, Struct(AES)), (2, Struct(AES))])),
    (9, Binary),
];

struct Walk<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Walk<'_> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn byte(&mut self) -> Result<u8, &'static str> {
        let b = *self.bytes.get(self.at).ok_or("truncated")?;
        self.at += 1;
        Ok(b)
    }

    fn skip(&mut self, n: usize) -> Result<(), &'static str> {
        if n > self.left() {
            return Err("a length beyond the footer");
        }
        self.at += n;
        Ok(())
    }

    fn varint(&mut self) -> Result<u64, &'static str> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift.min(63);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("a varint longer than ten bytes")
    }

    fn binary(&mut self) -> Result<(), &'static str> {
        let n = self.varint()?;
        self.skip(usize::try_from(n).map_err(|_| "a length beyond the footer")?)
    }

    /// A count of elements that each take at least a byte.
    fn count(&mut self, count: u64) -> Result<usize, &'static str> {
        usize::try_from(count).ok().filter(|&n| n <= self.left()).ok_or("a list longer than the bytes left")
    }

    /// A list header as the decoder reads it: 0 is an empty list, a size nibble of 15 means
    /// the size follows as a varint. Returns the count and the announced element type.
    fn list_header(&mut self) -> Result<(usize, u8), &'static str> {
        let header = self.byte()?;
        if header == 0 {
            return Ok((0, 0));
        }
        let short = u64::from(header >> 4);
        let n = if short == 15 { self.varint()? } else { short };
        Ok((self.count(n)?, header & 0x0f))
    }

    /// A struct of `fields`: known fields as declared, others skipped as announced.
    fn structure(&mut self, fields: &[(i16, Ty)], depth: u32) -> Result<(), &'static str> {
        if depth > MAX_DEPTH {
            return Err("structures nested too deep");
        }
        let mut id: i64 = 0;
        loop {
            let header = self.byte()?;
            let wire = header & 0x0f;
            if wire == kind::STOP {
                return Ok(());
            }
            id = match header >> 4 {
                0 => {
                    let z = self.varint()?;
                    (z >> 1) as i64 ^ -((z & 1) as i64)
                }
                delta => id + i64::from(delta),
            };
            match fields.iter().find(|(f, _)| i64::from(*f) == id) {
                Some((_, ty)) => self.declared(ty, depth)?,
                None => self.announced(wire, depth)?,
            }
        }
    }

    /// A value of its declared type.
    fn declared(&mut self, ty: &Ty, depth: u32) -> Result<(), &'static str> {
        match ty {
            Bool => Ok(()), // in the field header
            Byte => self.skip(1),
            I16 | I32 | I64 => self.varint().map(drop),
            Double => self.skip(8),
            Binary => self.binary(),
            Struct(fields) => self.structure(fields, depth + 1),
            List(element) => {
                let (n, _) = self.list_header()?;
                for _ in 0..n {
                    match element {
                        Bool => self.skip(1)?,
                        _ => self.declared(element, depth + 1)?,
                    }
                }
                Ok(())
            }
        }
    }

    /// A value of the type its bytes announce, as the decoder skips an unknown field.
    fn announced(&mut self, wire: u8, depth: u32) -> Result<(), &'static str> {
        if depth > MAX_DEPTH {
            return Err("structures nested too deep");
        }
        match wire {
            kind::TRUE | kind::FALSE => Ok(()),
            kind::BYTE => self.skip(1),
            kind::I16 | kind::I32 | kind::I64 => self.varint().map(drop),
            kind::DOUBLE => self.skip(8),
            kind::BINARY => self.binary(),
            kind::UUID => self.skip(16),
            kind::LIST | kind::SET => {
                let (n, element) = self.list_header()?;
                for _ in 0..n {
                    match element {
                        kind::TRUE | kind::FALSE => self.skip(1)?,
                        _ => self.announced(element, depth + 1)?,
                    }
                }
                Ok(())
            }
            kind::MAP => {
                let n = self.varint()?;
                let n = self.count(n)?;
                if n > 0 {
                    let types = self.byte()?;
                    for _ in 0..n {
                        self.announced(types >> 4, depth + 1)?;
                        self.announced(types & 0x0f, depth + 1)?;
                    }
                }
                Ok(())
            }
            kind::STRUCT => self.structure(EMPTY, depth + 1),
            _ => Err("an unknown Thrift type"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(bytes: &[u8]) -> (tempfile_path::Path, File) {
        let path = tempfile_path::new("footer");
        std::fs::write(&path.0, bytes).unwrap();
        let f = File::open(&path.0).unwrap();
        (path, f)
    }

    /// A temporary file removed on drop (no dependency for one test helper).
    mod tempfile_path {
        pub struct Path(pub std::path::PathBuf);
        impl Drop for Path {
            fn drop(&mut self) {
                let _ = std::fs::remove_file(&self.0);
            }
        }
        pub fn new(name: &str) -> Path {
            use std::sync::atomic::{AtomicU32, Ordering};
            static N: AtomicU32 = AtomicU32::new(0);
            let n = N.fetch_add(1, Ordering::Relaxed);
            Path(std::env::temp_dir().join(format!("rocprof-rs-{name}-{}-{n}", std::process::id())))
        }
    }

    fn parquet(footer: &[u8]) -> Vec<u8> {
        let mut bytes = b"PAR1".to_vec();
        bytes.extend_from_slice(footer);
        bytes.extend_from_slice(&(footer.len() as u32).to_le_bytes());
        bytes.extend_from_slice(b"PAR1");
        bytes
    }

    #[test]
    fn a_written_table_passes() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-footer-ok-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet");
        let schema = std::sync::Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
            "x",
            arrow_schema::DataType::Int64,
            false,
        )]));
        let batch = arrow_array::RecordBatch::try_new(
            schema.clone(),
            vec![std::sync::Arc::new(arrow_array::Int64Array::from(vec![1, 2, 3]))],
        )
        .unwrap();
        let mut writer = parquet::arrow::ArrowWriter::try_new(File::create(&path).unwrap(), schema, None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        check(&mut File::open(&path).unwrap(), &path).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_list_longer_than_its_bytes_is_refused() {
        // Field 1, the version; field 2, the schema, announced as a double (the decoder reads
        // it as the list it is declared), whose count is a varint of 40 million.
        let footer = [0x15, 0x02, 0x17, 0xfc, 0x80, 0xb4, 0x89, 0x13, 0x00, 0x00];
        let (path, mut f) = file(&parquet(&footer));
        let message = check(&mut f, &path.0).unwrap_err().to_string();
        assert!(message.contains("a list longer than the bytes left"), "{message}");
    }

    #[test]
    fn the_fuzzed_file_is_refused() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/fuzz/read_dataset-footer-list-count.parquet");
        let message = check(&mut File::open(&path).unwrap(), &path).unwrap_err().to_string();
        assert!(message.contains("a list longer than the bytes left"), "{message}");
    }

    #[test]
    fn lengths_and_nesting_are_bounded() {
        // Field 6, created_by, a string longer than the footer.
        let (path, mut f) = file(&parquet(&[0x68, 0xff, 0xff, 0x03, 0x00]));
        assert!(check(&mut f, &path.0).unwrap_err().to_string().contains("a length beyond the footer"));
        // Field 15, which no footer struct declares, announced as a struct, 200 deep.
        let deep: Vec<u8> = std::iter::repeat_n(0xfc, 200).collect();
        let (path, mut f) = file(&parquet(&deep));
        assert!(check(&mut f, &path.0).unwrap_err().to_string().contains("nested too deep"));
        let (path, mut f) = file(b"PAR1\xff\xff\xff\x7fPAR1");
        assert!(check(&mut f, &path.0).unwrap_err().to_string().contains("a footer of"));
    }
}
