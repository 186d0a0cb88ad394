//! rocpd, rocprofv3's SQLite database: `export --format rocpd` opened as AMD's tools open it,
//! and `import` of our databases and of one shaped as rocprofv3 writes them.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{python, scratch, stderr};

fn rocprof_rs(args: &[&OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap()
}

fn databases(dir: &Path) -> Vec<PathBuf> {
    let mut dbs: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    dbs.sort();
    dbs
}

#[test]
fn a_traced_run_survives_rocpd_export_and_import_whole() {
    let dir = scratch("rocpd-round-trip");
    let traced = dir.join("traced");
    let domains = "kernel,hip_api,memory_copy,marker,scratch_memory,memory_allocation";
    let vars = [("ROCPROF_RS_COUNTER_PRESET", "basic"), ("ROCPROF_RS_COUNTER_INSTANCES", "1")];
    common::traced_run(&traced, 4_000, domains, &[], &vars);
    let db = dir.join("db");
    let output =
        rocprof_rs(&["export".as_ref(), traced.as_ref(), "--format=rocpd".as_ref(), "-o".as_ref(), db.as_ref()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let dbs = databases(&db);
    assert_eq!(dbs.len(), 1, "one database per process: {dbs:?}");
    assert!(dbs[0].to_string_lossy().ends_with("_results.db"), "rocprofv3's name: {dbs:?}");

    let mut args: Vec<&OsStr> = vec![traced.as_ref()];
    args.extend(dbs.iter().map(|p| p.as_os_str()));
    python("rocpd_check.py", &args);

    let imported = dir.join("imported");
    let mut args: Vec<&OsStr> = vec!["import".as_ref()];
    args.extend(dbs.iter().map(|p| p.as_os_str()));
    args.extend(["-o".as_ref(), imported.as_os_str()]);
    let output = rocprof_rs(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    // rocpd has no place for the host and ranks of a row, nor for the `process` table.
    let report = python("compare_datasets.py", &[traced.as_ref(), imported.as_ref(), "--without-origin".as_ref()]);
    for table in [
        "agent",
        "counter",
        "hip_api",
        "kernel_counter",
        "kernel_dispatch",
        "kernel_symbol",
        "marker",
        "memory_allocation",
        "memory_copy",
        "scratch_memory",
    ] {
        assert!(report.contains(&format!("{table}: ")), "{table} compared:\n{report}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_database_shaped_as_rocprofv3_writes_them_imports() {
    let dir = scratch("rocpd-rocprofv3");
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("4242_results.db");
    python("rocprofv3_rocpd.py", &["make".as_ref(), db.as_ref()]);
    let out = dir.join("imported");
    let output = rocprof_rs(&["import".as_ref(), db.as_ref(), "-o".as_ref(), out.as_ref(), "--format=json".as_ref()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let skipped = &report["inputs"][0]["skipped"];
    assert_eq!(skipped, &serde_json::json!([["ROCDECODE_API", 1]]), "rocDecode has no table here, and says so");
    python("rocprofv3_rocpd.py", &["check".as_ref(), out.as_ref()]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_sqlite_file_that_is_not_rocpd_is_named_and_nothing_is_written() {
    let dir = scratch("rocpd-not");
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("other.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);").unwrap();
    drop(conn);
    let out = dir.join("imported");
    let output = rocprof_rs(&["import".as_ref(), db.as_ref(), "-o".as_ref(), out.as_ref()]);
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(message.contains("other.db") && message.contains("not a rocpd database"), "{message}");
    assert!(std::fs::read_dir(&out).map_or(true, |mut d| d.next().is_none()), "nothing written");
    std::fs::remove_dir_all(dir).unwrap();
}
