//! Names as post-processing keeps them: a name of any length is read from the dataset, but one
//! longer than [`MAX_NAME_BYTES`] is kept (in memory, in sorts and summaries, and in every
//! output) as its first bytes and a hash of the whole, so that one name of a gigabyte costs
//! what a name of 16 KiB costs, and two long names that differ after their prefix stay apart.
//! C++ template kernels reach a few thousand characters; nothing real comes near the bound.

use std::borrow::Cow;

/// The longest name kept whole, in bytes.
pub const MAX_NAME_BYTES: usize = 16 << 10;

/// What a cut name ends with, before its hash: the prefix is the name's first bytes.
const CUT_MARK: &str = "…#";

/// `name`, or where longer than [`MAX_NAME_BYTES`], its first bytes (on a character boundary)
/// followed by `…#` and the 16 hex digits of a 64-bit FNV-1a hash of the whole name.
pub fn bounded(name: &str) -> Cow<'_, str> {
    if name.len() <= MAX_NAME_BYTES {
        return Cow::Borrowed(name);
    }
    let mut end = MAX_NAME_BYTES;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}{CUT_MARK}{:016x}", &name[..end], fnv1a(name.as_bytes())))
}

/// Whether `name` is longer than [`MAX_NAME_BYTES`], so [`bounded`] cuts it.
pub fn is_cut(name: &str) -> bool {
    name.len() > MAX_NAME_BYTES
}

/// The note an output carries where it holds names that [`bounded`] cut: `count` of them.
pub fn cut_note(count: u64) -> String {
    format!(
        "{count} name{} longer than {MAX_NAME_BYTES} bytes {} shown as {} first {MAX_NAME_BYTES} bytes, `…#` and a \
         64-bit hash of the whole name",
        if count == 1 { "" } else { "s" },
        if count == 1 { "is" } else { "are" },
        if count == 1 { "its" } else { "their" },
    )
}

/// `text` cut to `chars` characters, with an ellipsis where it was cut, for a page or a label
/// that shows a name (or a label built from one) in a bounded width.
pub fn ellipsised(text: &str, chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(chars) {
        Some((at, _)) => Cow::Owned(format!("{}…", &text[..at])),
        None => Cow::Borrowed(text),
    }
}

/// 64-bit FNV-1a: stable across builds and platforms, as a name's hash must be (two runs of the
/// same program cut to the same name, so `diff` matches them).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_stay_and_long_ones_keep_a_prefix_and_a_hash() {
        assert!(matches!(bounded("gemm"), Cow::Borrowed("gemm")));
        let long = "é".repeat(MAX_NAME_BYTES);
        let cut = bounded(&long);
        assert!(cut.len() < MAX_NAME_BYTES + 32, "{}", cut.len());
        assert!(cut.starts_with("éé") && cut.contains("…#"));
        let other = format!("{}x", &long[..long.len() - 2]);
        assert_ne!(bounded(&other), cut, "names that differ past the prefix stay apart");
        assert_eq!(bounded(&long), cut, "the same name cuts the same way");
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn long_text_is_cut_on_a_character() {
        assert_eq!(ellipsised("abc", 3), "abc");
        assert_eq!(ellipsised("abcd", 3), "abc…");
        assert_eq!(ellipsised("ééé", 2), "éé…");
    }
}
