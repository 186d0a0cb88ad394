//! Opening a file a user named: only a regular file, never blocking, and read whole only up to
//! a size that the caller says is sane.
//!
//! A path can name `/dev/zero` (endless), a FIFO (an open that blocks until a writer comes), a
//! terminal, a directory. Inside a profiled application any of these would grow it without
//! bound or hang it; in the CLI, hang the user. Errors are `io::Error`s of kind
//! `InvalidInput`, whose text says what the path is instead; callers name the path.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The largest JSON document read whole (results, profiles, metadata): far beyond any real one,
/// far below what would exhaust memory.
pub const JSON_LIMIT: u64 = 256 << 20;

/// Opens `path` for reading if it is a regular file (after links). A FIFO is opened without
/// waiting for a writer, then refused.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a directory"
        } else if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_char_device() {
            "a character device"
        } else if kind.is_block_device() {
            "a block device"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "a special file"
        };
        return Err(invalid(format!("{what}, not a regular file")));
    }
    // O_NONBLOCK stays set: it changes nothing for a regular file, whose reads never wait.
    Ok(file)
}

/// The bytes of the regular file `path`, refused beyond `limit` bytes (what it holds, not what
/// it claims: `/proc` files say 0).
pub fn read_bytes(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let claimed = file.metadata()?.len();
    if claimed > limit {
        return Err(too_large(claimed, limit));
    }
    let mut bytes = Vec::with_capacity(claimed as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64, limit));
    }
    Ok(bytes)
}

/// The text of the regular file `path`, refused beyond `limit` bytes or if not UTF-8.
pub fn read_text(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read_bytes(path, limit)?).map_err(|e| {
        invalid(format!("not UTF-8 text (byte {} is not part of a UTF-8 character)", e.utf8_error().valid_up_to()))
    })
}

fn too_large(size: u64, limit: u64) -> io::Error {
    invalid(format!("{size} bytes or more; files over {limit} bytes are not read here"))
}

fn invalid(text: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_files_are_refused_without_blocking_or_growing() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-input-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for (path, says) in
            [(Path::new("/dev/zero"), "character device"), (fifo.as_path(), "FIFO"), (dir.as_path(), "directory")]
        {
            let e = read_text(path, 1 << 20).unwrap_err();
            assert!(e.to_string().contains(says), "{}: {e}", path.display());
        }
        std::fs::write(dir.join("big"), vec![b'a'; 100]).unwrap();
        assert!(read_text(&dir.join("big"), 99).unwrap_err().to_string().contains("over 99 bytes"));
        assert_eq!(read_text(&dir.join("big"), 100).unwrap().len(), 100);
        std::fs::write(dir.join("binary"), [b'a', 0xff]).unwrap();
        assert!(read_text(&dir.join("binary"), 100).unwrap_err().to_string().contains("byte 1"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
