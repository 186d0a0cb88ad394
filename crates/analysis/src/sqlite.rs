//! Opening a SQLite database someone else wrote. A database is code as much as data: its views,
//! generated columns and query-planner statistics run inside our process when we read it, so a
//! hostile file could make a read never end, fill the disk with temporary sorts or take all the
//! memory. [`Untrusted::open`] reads it read-only, with SQLite's defensive settings, no views,
//! triggers or extensions, and with its memory, the length of a value and the work done bounded
//! by the size of the file; a database past a bound stops with one line saying which.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rusqlite::config::DbConfig;
use rusqlite::limits::Limit;
use rusqlite::{Connection, OpenFlags};

/// SQLite's work is checked every this many virtual-machine steps.
const STEPS_PER_CHECK: i32 = 10_000;

/// Work for any database, however small: opening, the schema, a few empty tables.
const BASE_STEPS: u64 = 200_000_000;

/// Work per byte of the file: reading a row costs tens of steps per column, and a row takes
/// several bytes per column, so a legitimate read stays far below this.
const STEPS_PER_BYTE: u64 = 1_000;

/// SQLite's memory (its page cache, sorts and temporary tables, which stay in memory so that
/// this bound covers them) for any database, and per byte of the file.
const BASE_MEMORY: u64 = 256 << 20;
const MEMORY_PER_BYTE: u64 = 2;

/// The longest string or blob a query may make; a name or an `extdata` is far shorter.
pub const MAX_VALUE_BYTES: i32 = 64 << 20;

/// The page cache, in KiB (SQLite takes a negative `cache_size` as KiB).
const CACHE_KIB: u32 = 16 << 10;

/// Why an untrusted database was given up on, besides what SQLite itself says.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The work budget ran out: the database asked for more than its size can explain.
    #[error(
        "stopped after {steps} steps of SQLite work, more than a database of {bytes} bytes needs (a hostile or \
         corrupt database?)"
    )]
    Work { steps: u64, bytes: u64 },
    /// SQLite reached its memory bound.
    #[error("SQLite needed more than {mib} MiB of memory to read a database of {bytes} bytes")]
    Memory { mib: u64, bytes: u64 },
    /// A value longer than [`MAX_VALUE_BYTES`].
    #[error("a value longer than {} MiB", MAX_VALUE_BYTES >> 20)]
    Length,
    /// SQLite's own error.
    #[error(transparent)]
    Sql(rusqlite::Error),
}

/// A read-only connection to a database we did not write, with its bounds in force.
#[derive(Debug)]
pub struct Untrusted {
    conn: Connection,
    bytes: u64,
    steps: u64,
    memory: u64,
    /// Set by the progress handler when it stops SQLite for running out of work.
    exhausted: Arc<AtomicBool>,
}

/// SQLite's heap limit is the process's, not a connection's: while untrusted databases are
/// open it is the largest of their bounds, and when the last closes it is what it was before.
struct HeapLimit {
    open: usize,
    before: i64,
    limit: i64,
}

static HEAP_LIMIT: std::sync::Mutex<HeapLimit> = std::sync::Mutex::new(HeapLimit { open: 0, before: 0, limit: 0 });

/// Sets SQLite's process-wide heap limit to `n` bytes (0: none); returns the one before.
fn set_heap_limit(n: i64) -> i64 {
    // SAFETY: sqlite3_hard_heap_limit64 only reads and sets SQLite's global limit, under its own
    // mutex, and initialises SQLite first if it must.
    unsafe { rusqlite::ffi::sqlite3_hard_heap_limit64(n) }
}

impl HeapLimit {
    fn enter(memory: u64) {
        let mut h = HEAP_LIMIT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let memory = i64::try_from(memory).unwrap_or(i64::MAX);
        if h.open == 0 {
            h.before = set_heap_limit(memory);
            h.limit = memory;
        } else if memory > h.limit {
            set_heap_limit(memory);
            h.limit = memory;
        }
        h.open += 1;
    }

    fn leave() {
        let mut h = HEAP_LIMIT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        h.open -= 1;
        if h.open == 0 {
            set_heap_limit(h.before);
        }
    }
}

impl Untrusted {
    /// Opens `path` read-only with the bounds of a file of its size.
    pub fn open(path: &Path) -> Result<Untrusted, Refusal> {
        let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(path, flags).map_err(Refusal::Sql)?;
        let steps = BASE_STEPS.saturating_add(STEPS_PER_BYTE.saturating_mul(bytes));
        let memory = BASE_MEMORY.saturating_add(MEMORY_PER_BYTE.saturating_mul(bytes));
        let exhausted = Arc::new(AtomicBool::new(false));
        defend(&conn).map_err(Refusal::Sql)?;
        let flag = exhausted.clone();
        let mut left = steps / STEPS_PER_CHECK as u64;
        conn.progress_handler(
            STEPS_PER_CHECK,
            Some(move || {
                if left == 0 {
                    flag.store(true, Ordering::Relaxed);
                    return true;
                }
                left -= 1;
                false
            }),
        )
        .map_err(Refusal::Sql)?;
        HeapLimit::enter(memory);
        Ok(Untrusted { conn, bytes, steps, memory, exhausted })
    }

    /// The connection, for queries.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// `e` with what it meant for this database: a bound reached, or SQLite's own error.
    pub fn explain(&self, e: rusqlite::Error) -> Refusal {
        if self.exhausted.load(Ordering::Relaxed) {
            return Refusal::Work { steps: self.steps, bytes: self.bytes };
        }
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::OutOfMemory) => Refusal::Memory { mib: self.memory >> 20, bytes: self.bytes },
            Some(rusqlite::ErrorCode::TooBig) => Refusal::Length,
            _ => Refusal::Sql(e),
        }
    }
}

impl Drop for Untrusted {
    fn drop(&mut self) {
        HeapLimit::leave();
    }
}

/// SQLite's settings for a file that may be hostile: nothing in the file runs (no views,
/// triggers, or functions a schema is not trusted with), nothing loads, nothing writes, and
/// temporary data stays in memory, under the heap limit, instead of filling the disk.
fn defend(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_VIEW, false)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_TRIGGER, false)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_WRITABLE_SCHEMA, false)?;
    // SAFETY: the handle of an open connection, valid while `conn` is borrowed here.
    let handle = unsafe { conn.handle() };
    // SAFETY: `handle` is open; ENABLE_LOAD_EXTENSION takes an int (0: off) and an optional
    // int pointer for the new setting, which may be null.
    let rc = unsafe {
        rusqlite::ffi::sqlite3_db_config(
            handle,
            rusqlite::ffi::SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION,
            0 as std::ffi::c_int,
            std::ptr::null_mut::<std::ffi::c_int>(),
        )
    };
    if rc != rusqlite::ffi::SQLITE_OK {
        return Err(rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rc), None));
    }
    conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)?;
    conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
    conn.execute_batch(&format!(
        "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -{CACHE_KIB}; PRAGMA mmap_size = 0; \
         PRAGMA cell_size_check = ON; PRAGMA query_only = ON;"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database made of `sql`, in a file named after the test.
    fn database(test: &str, sql: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-sqlite-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.db");
        Connection::open(&path).unwrap().execute_batch(sql).unwrap();
        path
    }

    #[test]
    fn unbounded_work_stops_with_the_budget() {
        let path = database("work", "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
        let db = Untrusted::open(&path).unwrap();
        let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n";
        let e = db.conn().query_row(endless, [], |r| r.get::<_, i64>(0)).unwrap_err();
        assert!(matches!(db.explain(e), Refusal::Work { .. }));
    }

    #[test]
    fn a_huge_value_is_refused() {
        let path = database("length", "CREATE TABLE t (x INTEGER);");
        let db = Untrusted::open(&path).unwrap();
        let e = db.conn().query_row("SELECT length(zeroblob(100000000))", [], |r| r.get::<_, i64>(0)).unwrap_err();
        let refusal = db.explain(e);
        assert!(matches!(refusal, Refusal::Length), "{refusal:?}");
    }

    #[test]
    fn views_and_writes_do_not_run() {
        let path = database("views", "CREATE TABLE t (x INTEGER); CREATE VIEW v AS SELECT x FROM t;");
        let db = Untrusted::open(&path).unwrap();
        assert!(db.conn().query_row("SELECT count(*) FROM v", [], |r| r.get::<_, i64>(0)).is_err());
        assert!(db.conn().execute("INSERT INTO t VALUES (1)", []).is_err());
        assert!(db.conn().query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0)).is_ok());
    }
}
