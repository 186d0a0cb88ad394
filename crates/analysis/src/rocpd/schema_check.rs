//! Whether a rocpd database's schema is rocpd's own, before anything is read from it.
//!
//! AMD's tools read a rocpd database through its un-suffixed views (`rocpd_kernel_dispatch`,
//! ...), each `SELECT * FROM` the table of the same name with the database's UUID suffix. A
//! view is code the file brings along, so the import runs none: it checks that each view it
//! would read is exactly rocpd's (up to spacing, quoting and case, which SQLite ignores too),
//! learns the suffix from them, and reads the suffixed tables, which must be ordinary tables
//! whose columns are stored, not computed.

use rusqlite::{Connection, OptionalExtension};

/// The rocpd objects the import reads, by their view's name less `rocpd_`.
pub const READ: [&str; 14] = [
    "metadata",
    "string",
    "info_process",
    "info_agent",
    "info_kernel_symbol",
    "info_pmc",
    "event",
    "kernel_dispatch",
    "pmc_event",
    "region",
    "sample",
    "track",
    "memory_copy",
    "memory_allocate",
];

/// What is not rocpd's in a database's schema.
#[derive(Debug, thiserror::Error)]
pub enum Mismatch {
    /// No `rocpd_metadata` view: another SQLite database.
    #[error("not a rocpd database (no rocpd_metadata view)")]
    NotRocpd,
    /// A view the import reads is missing or is not rocpd's `SELECT *` of its table.
    #[error("view {0} is not rocpd's own (its SQL differs from rocprofv3's); rocprof-rs runs no SQL a database brings")]
    View(String),
    /// The table a view names is missing, a view itself, or a virtual table.
    #[error("{0} is not an ordinary table, as rocpd's is")]
    Table(String),
    /// A table has a generated column, computed as it is read.
    #[error("table {table} has a generated column {column}, which rocpd's has not")]
    Generated { table: String, column: String },
    /// SQLite could not read the schema.
    #[error("reading the schema: {0}")]
    Sql(#[from] rusqlite::Error),
}

/// A view's SQL as compared: quotes dropped, whitespace collapsed, ASCII lowercased. What
/// this makes equal is equal to SQLite (its names ignore ASCII case, quoting and spacing), so a
/// rocpd written by another ROCm, with its own layout of the same views, reads as well.
fn normalized(sql: &str) -> String {
    let unquoted: String = sql.chars().filter(|c| !matches!(c, '`' | '"' | '[' | ']')).collect();
    unquoted.split_whitespace().collect::<Vec<_>>().join(" ").to_ascii_lowercase()
}

/// rocpd's view `rocpd_<name>`, normalized, less the table suffix at its end.
fn view_less_suffix(name: &str) -> String {
    format!("create view rocpd_{name} as select * from rocpd_{name}")
}

/// The one entry of the file's schema named `name` (SQLite's names ignore ASCII case).
fn entry(conn: &Connection, name: &str) -> rusqlite::Result<Option<(String, Option<String>)>> {
    conn.query_row("SELECT type, sql FROM sqlite_master WHERE name = ?1 COLLATE NOCASE", [name], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
    .optional()
}

/// A rocpd suffix: `_` and a guid with its `-` as `_`, so it can be spliced into SQL as is.
fn is_suffix(text: &str) -> bool {
    text.len() == 37 && text.starts_with('_') && text.bytes().skip(1).all(|b| b.is_ascii_hexdigit() || b == b'_')
}

/// Checks the views and tables the import reads; returns the table suffix.
pub fn check(conn: &Connection) -> Result<String, Mismatch> {
    let suffix = match entry(conn, "rocpd_metadata")? {
        Some((kind, Some(sql))) if kind == "view" => normalized(&sql)
            .strip_prefix(&view_less_suffix("metadata"))
            .filter(|s| is_suffix(s))
            .map(str::to_owned)
            .ok_or_else(|| Mismatch::View("rocpd_metadata".into()))?,
        Some(_) => return Err(Mismatch::View("rocpd_metadata".into())),
        None => return Err(Mismatch::NotRocpd),
    };
    for name in READ {
        let view = format!("rocpd_{name}");
        let expected = view_less_suffix(name) + &suffix;
        match entry(conn, &view)? {
            Some((kind, Some(sql))) if kind == "view" && normalized(&sql) == expected => {}
            _ => return Err(Mismatch::View(view)),
        }
        let table = format!("rocpd_{name}{suffix}");
        match entry(conn, &table)? {
            Some((kind, Some(sql))) if kind == "table" && sql.starts_with("CREATE TABLE") => {}
            _ => return Err(Mismatch::Table(table)),
        }
        let mut columns = conn.prepare("SELECT name, hidden FROM pragma_table_xinfo(?1)")?;
        let mut rows = columns.query([&table])?;
        while let Some(row) = rows.next()? {
            if row.get::<_, i64>(1)? != 0 {
                return Err(Mismatch::Generated { table, column: row.get(0)? });
            }
        }
    }
    Ok(suffix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rocpd::Identity;

    fn rocpd() -> (Connection, Identity) {
        let conn = Connection::open_in_memory().unwrap();
        let identity = Identity::new(1_700_000_000_000_000_000, 1);
        for (_, sql) in identity.schema() {
            conn.execute_batch(&sql).unwrap();
        }
        (conn, identity)
    }

    #[test]
    fn rocpds_own_schema_passes_and_names_its_suffix() {
        let (conn, identity) = rocpd();
        assert_eq!(check(&conn).unwrap(), identity.suffix);
    }

    #[test]
    fn another_layout_of_the_same_views_passes() {
        let (conn, identity) = rocpd();
        let t = &identity.suffix;
        conn.execute_batch(&format!(
            "DROP VIEW rocpd_region; CREATE VIEW \"rocpd_region\"   AS select *\n\tFROM [ROCPD_REGION{t}]"
        ))
        .unwrap();
        assert_eq!(check(&conn).unwrap(), identity.suffix);
    }

    #[test]
    fn a_view_that_differs_is_named() {
        let (conn, identity) = rocpd();
        let t = &identity.suffix;
        conn.execute_batch(&format!(
            "DROP VIEW rocpd_region; CREATE VIEW rocpd_region AS SELECT * FROM rocpd_region{t} WHERE 1"
        ))
        .unwrap();
        assert!(matches!(check(&conn), Err(Mismatch::View(v)) if v == "rocpd_region"));
    }

    #[test]
    fn a_table_replaced_by_a_view_is_named() {
        let (conn, identity) = rocpd();
        let t = &identity.suffix;
        conn.execute_batch(&format!(
            "PRAGMA foreign_keys = OFF; DROP TABLE rocpd_sample{t}; CREATE VIEW rocpd_sample{t} AS SELECT 1 AS id"
        ))
        .unwrap();
        assert!(matches!(check(&conn), Err(Mismatch::Table(v)) if v == format!("rocpd_sample{t}")));
    }
}
