//! The page's building blocks, which every section's writer uses: text made safe for HTML,
//! kernel names' cells, and the sortable table.

use std::fmt::Write as _;

use crate::names::ellipsised;

/// Text made safe inside HTML elements and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The longest kernel name written whole; longer ones are cut, wherever they appear. C++
/// template kernels (PyTorch's, CUTLASS's) reach a few thousand characters; a dataset's names
/// may be megabytes.
pub const NAME_CHARS: usize = 8192;

/// A kernel name's cell: the name (cut to [`NAME_CHARS`]) in a span that ellipsises it, the
/// whole of what is kept as its tooltip.
pub fn name_cell(name: &str) -> Cell {
    Cell::Html(format!("<span class=\"name\" title=\"{0}\">{0}</span>", escape(&ellipsised(name, NAME_CHARS))))
}

/// A sortable table: each column a heading and whether it sorts as numbers; each cell its text
/// and the value it sorts by.
#[derive(Debug)]
pub struct Table {
    id: String,
    columns: Vec<(&'static str, bool)>,
    rows: Vec<String>,
    attributes: String,
}

/// One cell: what it shows, and its sort value where that is a number.
#[derive(Debug)]
pub enum Cell {
    Text(String),
    Number(String, f64),
    /// HTML written as is (already escaped).
    Html(String),
}

impl Table {
    pub fn new(id: &str, columns: &[(&'static str, bool)]) -> Table {
        Table { id: id.to_owned(), columns: columns.to_vec(), rows: Vec::new(), attributes: String::new() }
    }

    /// Adds `name="value"` to the table element.
    pub fn attribute(&mut self, name: &str, value: &str) {
        let _ = write!(self.attributes, " {name}=\"{}\"", escape(value));
    }

    /// Adds a row; `name` (cut to [`NAME_CHARS`]) goes into its `data-name`.
    pub fn row(&mut self, name: Option<&str>, cells: Vec<Cell>) {
        let mut row = match name {
            Some(name) => format!("<tr data-name=\"{}\">", escape(&ellipsised(name, NAME_CHARS))),
            None => "<tr>".to_owned(),
        };
        for cell in cells {
            match cell {
                Cell::Text(text) => {
                    let _ = write!(row, "<td data-v=\"{0}\">{0}</td>", escape(&ellipsised(&text, NAME_CHARS)));
                }
                // A missing figure (NaN) has no sort value: it sorts after every number.
                Cell::Number(text, value) if !value.is_finite() => {
                    let _ = write!(row, "<td class=\"num\" data-v=\"\">{}</td>", escape(&text));
                }
                Cell::Number(text, value) => {
                    let _ = write!(row, "<td class=\"num\" data-v=\"{value}\">{}</td>", escape(&text));
                }
                Cell::Html(html) => {
                    let _ = write!(row, "<td>{html}</td>");
                }
            }
        }
        row.push_str("</tr>\n");
        self.rows.push(row);
    }

    pub fn html(&self) -> String {
        let mut out = format!(
            "<div class=\"scroll\"><table class=\"sortable\" id=\"{}\"{}>\n<thead><tr>",
            self.id, self.attributes
        );
        for (heading, numeric) in &self.columns {
            let kind = if *numeric { "num" } else { "text" };
            let _ = write!(out, "<th data-type=\"{kind}\" tabindex=\"0\">{}</th>", escape(heading));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        self.rows.iter().for_each(|r| out.push_str(r));
        out.push_str("</tbody></table></div>\n");
        out
    }
}
