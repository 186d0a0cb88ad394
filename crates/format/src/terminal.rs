//! Text on its way to a terminal. Kernel and marker names come from the profiled program, and a
//! dataset may come from anyone: a name holding `ESC[2J` would clear the reader's screen, one
//! holding U+202E would show its text reversed (a spoofed name), a NUL or CR would hide what
//! precedes it. Every control character but the newline and the tab, and every bidirectional
//! control, is written visibly instead (`\x1b`, `\u{202e}`); bytes that are not UTF-8 as
//! `\xff`. CSV and JSON keep the exact text: their encoders escape what they must.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Whether `c` must not reach a terminal as it is: C0 and C1 controls and DEL (but `\n` and
/// `\t`, which lay out lines and tables), and the bidirectional controls (marks, embeddings,
/// overrides and isolates) that reorder what a reader sees.
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every [`is_unsafe`] character written as its escape: `\x1b` below U+0080,
/// `\u{202e}` above; borrowed where there is none.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(&mut escaped, c);
    }
    Cow::Owned(escaped)
}

/// `text` escaped and cut to `width` characters, an ellipsis marking the cut: a table cell,
/// escaped before the table measures it so its columns line up.
pub fn cell(text: &str, width: usize) -> String {
    let text = escape(text);
    if text.chars().count() > width {
        format!("{}…", text.chars().take(width.saturating_sub(1)).collect::<String>())
    } else {
        text.into_owned()
    }
}

fn push_escaped(out: &mut String, c: char) {
    if !is_unsafe(c) {
        out.push(c);
    } else if c.is_ascii() {
        let _ = write!(out, "\\x{:02x}", c as u32);
    } else {
        let _ = write!(out, "\\u{{{:x}}}", c as u32);
    }
}

/// A writer that escapes what goes through it as [`escape`] does, for tables written a row at
/// a time. A character split across two writes is held until it is whole; bytes that are not
/// UTF-8 are written as `\xNN`.
#[derive(Debug)]
pub struct Escaped<W: Write> {
    inner: W,
    /// The start of a character whose rest has not been written yet (at most 3 bytes).
    pending: Vec<u8>,
}

impl<W: Write> Escaped<W> {
    pub fn new(inner: W) -> Escaped<W> {
        Escaped { inner, pending: Vec::new() }
    }

    /// Writes what is whole of `bytes` (after what was pending), escaped, and keeps an
    /// unfinished last character pending.
    fn escape_through(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut out = String::new();
        let mut rest = bytes;
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    out.push_str(&escape(text));
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // UTF-8 up to here, as `from_utf8` found.
                    out.push_str(&escape(std::str::from_utf8(valid).unwrap_or_default()));
                    match e.error_len() {
                        Some(bad) => {
                            after[..bad].iter().for_each(|b| {
                                let _ = write!(out, "\\x{b:02x}");
                            });
                            rest = &after[bad..];
                        }
                        None => {
                            self.pending = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        self.inner.write_all(out.as_bytes())
    }
}

impl<W: Write> Write for Escaped<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.pending.is_empty() {
            self.escape_through(buf)?;
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(buf);
            self.escape_through(&joined)?;
        }
        Ok(buf.len())
    }

    /// Flushes; a character still unfinished here never will be, and is written as bytes.
    fn flush(&mut self) -> io::Result<()> {
        let unfinished = std::mem::take(&mut self.pending);
        for b in unfinished {
            write!(self.inner, "\\x{b:02x}")?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::{Escaped, cell, escape};

    #[test]
    fn controls_and_bidi_marks_are_written_visibly() {
        assert_eq!(escape("plain_kernel<float>(int) µs"), "plain_kernel<float>(int) µs");
        assert_eq!(escape("a\x1b[2Jb\0c\r\x07\x7f"), "a\\x1b[2Jb\\x00c\\x0d\\x07\\x7f");
        assert_eq!(
            escape("evil\u{202e}fdp.exe\u{2066}\u{200f}\u{85}"),
            "evil\\u{202e}fdp.exe\\u{2066}\\u{200f}\\u{85}"
        );
        assert_eq!(escape("rows\tand\nlines"), "rows\tand\nlines");
        assert_eq!(cell("a\x1bbcdef", 6), "a\\x1b…", "escaped, then cut");
        assert_eq!(cell("short", 6), "short");
    }

    #[test]
    fn the_writer_escapes_across_writes_and_bytes_that_are_not_utf8() {
        let mut out = Escaped::new(Vec::new());
        let text = "x\u{202e}y\x1b".as_bytes();
        // U+202E is three bytes: split it between writes.
        out.write_all(&text[..2]).unwrap();
        out.write_all(&text[2..]).unwrap();
        out.write_all(b"\xff|\xe2\x80").unwrap();
        out.flush().unwrap();
        assert_eq!(String::from_utf8(out.inner).unwrap(), "x\\u{202e}y\\x1b\\xff|\\xe2\\x80");
    }
}
