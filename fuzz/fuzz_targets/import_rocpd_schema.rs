//! A valid rocpd database (the 4242 fixture) whose SCHEMA the input changes, then the whole
//! import: the input's bytes pick statements from a small grammar of what a hostile or broken
//! database can hold (views replaced, tables turned into views or virtual tables, generated
//! columns, triggers, indexes, planner statistics, columns of other types, values of any type)
//! and the import must refuse or read it, never panic, hang or take unbounded memory (libFuzzer's
//! -timeout and -rss_limit_mb are the guards).
#![no_main]

use libfuzzer_sys::fuzz_target;

const SEED: &[u8] = include_bytes!("../../tests/fixtures/rocpd/4242_results.db");

/// The objects the import reads, by their name less `rocpd_`.
const OBJECTS: [&str; 14] = rocprof_rs_analysis::rocpd::schema_check::READ;

/// Columns the import reads, in one table or another.
const COLUMNS: [&str; 16] = [
    "id", "pid", "tid", "start", "end", "string", "name", "extdata", "event_id", "kernel_id", "agent_id",
    "category_id", "value", "timestamp", "track_id", "size",
];

/// Values of every type and size a column can be given.
const VALUES: [&str; 14] = [
    "NULL",
    "-7",
    "0",
    "9223372036854775807",
    "-9223372036854775808",
    "1e308",
    "'text'",
    "x'00ff'",
    "''",
    "'{\"rocprof_rs\":{\"instances\":-1}}'",
    "zeroblob(1000)",
    "printf('%100000s', 'x')",
    "start - 1",
    "id * -1",
];

/// Row sets a replaced view or table can give.
const BODIES: [&str; 8] = [
    "SELECT * FROM {table}",
    "SELECT * FROM {table} WHERE id % 2 = 0",
    "SELECT * FROM {table} UNION ALL SELECT * FROM {table}",
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT T.* FROM n, {table} T",
    "SELECT * FROM {table} ORDER BY random()",
    "SELECT 1 AS id",
    "SELECT * FROM {table} JOIN {table} USING (id)",
    "SELECT *, printf('%1000000s', 'x') AS extra FROM {table}",
];

/// The input's bytes, read as choices.
struct Choices<'a>(&'a [u8]);

impl Choices<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    fn pick<'t>(&mut self, from: &[&'t str]) -> Option<&'t str> {
        Some(from[self.byte()? as usize % from.len()])
    }
}

/// The next statement, `{t}` standing for the tables' suffix.
fn statement(c: &mut Choices) -> Option<String> {
    let object = c.pick(&OBJECTS)?;
    let (view, table) = (format!("rocpd_{object}"), format!("rocpd_{object}{{t}}"));
    let column = c.pick(&COLUMNS)?;
    Some(match c.byte()? % 14 {
        0 => format!("DROP VIEW {view}; CREATE VIEW {view} AS {}", c.pick(&BODIES)?.replace("{table}", &table)),
        1 => format!(
            "ALTER TABLE {table} RENAME TO hidden_{object}; CREATE VIEW {table} AS {}",
            c.pick(&BODIES)?.replace("{table}", &format!("hidden_{object}"))
        ),
        2 => format!(
            "ALTER TABLE {table} RENAME TO hidden_{object}; CREATE TABLE {table} AS SELECT * FROM hidden_{object}; \
             ALTER TABLE {table} ADD COLUMN computed TEXT GENERATED ALWAYS AS (printf('%1000s', {column})) VIRTUAL"
        ),
        3 => format!(
            "CREATE TRIGGER t_{object}_{} AFTER {} ON {table} BEGIN SELECT {}; END",
            c.byte()?,
            c.pick(&["INSERT", "UPDATE", "DELETE"])?,
            c.pick(&VALUES)?
        ),
        4 => format!("CREATE INDEX i_{object}_{} ON {table} ({})", c.byte()?, c.pick(&[column, "-id", "random()"])?),
        5 => format!(
            "ALTER TABLE {table} RENAME TO hidden_{object}; CREATE VIRTUAL TABLE {table} USING {}",
            c.pick(&["fts5(id, string)", "rtree(id, a, b)", "fts3(id)", "dbstat"])?
        ),
        6 => format!("UPDATE {table} SET {column} = {}", c.pick(&VALUES)?),
        7 => format!("UPDATE {table} SET {column} = {} WHERE rowid = {}", c.pick(&VALUES)?, c.byte()? % 8),
        8 => format!("ALTER TABLE {table} ADD COLUMN {column}_{} {}", c.byte()?, c.pick(&["TEXT", "BLOB", "ANY"])?),
        9 => format!("DROP {} {}", c.pick(&["VIEW", "TABLE"])?, c.pick(&[&view, &table])?),
        10 => format!(
            "ANALYZE; INSERT OR REPLACE INTO sqlite_stat1 VALUES ('{table}', NULL, '{}')",
            c.pick(&["1", "18446744073709551615", "0 0", "1000000000 1"])?
        ),
        11 => format!(
            "ALTER TABLE {table} RENAME TO hidden_{object}; CREATE TABLE {table} ({column} {}, id {}) {}; \
             INSERT INTO {table} SELECT {column}, id FROM hidden_{object}",
            c.pick(&["TEXT", "BLOB", "REAL", "INTEGER", "ANY"])?,
            c.pick(&["TEXT", "INTEGER PRIMARY KEY", "REAL"])?,
            c.pick(&["", "STRICT", "WITHOUT ROWID"])?
        ),
        12 => format!("INSERT INTO {table} SELECT * FROM {table}"),
        _ => format!("DELETE FROM {table} WHERE rowid % {} = 0", 1 + c.byte()? % 4),
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("rocprof-rs-fuzz-rocpd-schema-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("4242_results.db");
    std::fs::write(&input, SEED).unwrap();
    {
        let conn = rusqlite::Connection::open(&input).unwrap();
        let suffix: String =
            conn.query_row("SELECT value FROM rocpd_metadata WHERE tag = 'uuid'", [], |r| r.get(0)).unwrap();
        let _ = conn.execute_batch("PRAGMA foreign_keys = OFF");
        let mut choices = Choices(data);
        for _ in 0..8 {
            let Some(sql) = statement(&mut choices) else { break };
            // A statement SQLite refuses (a column the table lacks, say) changes nothing.
            let _ = conn.execute_batch(&sql.replace("{t}", &suffix));
        }
    }
    let _ = rocprof_rs_analysis::import::import(&[input], &dir.join("out"), "fuzz");
    let _ = std::fs::remove_dir_all(&dir);
});
