//! A CSV field as rocprofv3's files quote one: what the exported files and `stats --format
//! csv` share.

/// A quoted CSV field as rocprofv3 writes one, in quotes, except that a quote inside is
/// doubled (RFC 4180): rocprofv3 writes it as it is, which no CSV reader (ours, Python's,
/// pandas') reads back as the name it was. Commas and line ends inside are the quotes' to hold.
pub fn quoted(text: &str) -> String {
    if text.contains('"') { format!("\"{}\"", text.replace('"', "\"\"")) } else { format!("\"{text}\"") }
}

/// Whether rocprofv3's unescaped quoting and `quoted` differ on `text`, or a line-oriented
/// reader (`grep`, a script splitting lines) would cut it: a quote or a line end inside.
pub fn needs_csv_care(text: &str) -> bool {
    text.contains(['"', '\n', '\r'])
}
