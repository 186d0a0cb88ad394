//! Databases (issue 38, items 1, 5 and 6): a rocpd database is code as much as data, so
//! `import` runs none of it: a view that is not rocpd's, a table that is really a view, a
//! computed column, a value of the wrong type, an end before its start or a pid that is not a
//! process id gets one line naming the file and what was wrong, within seconds and bounded
//! memory. A rocpd export is all or nothing, and its memory does not grow with the number of
//! processes.

use std::path::PathBuf;
use std::time::Duration;

use super::*;

/// rocprof-rs' own rocpd database of a small traced run (one process, pid 4242).
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rocpd/4242_results.db")
}

/// A copy of the fixture in `dir`, changed by `sql`, in which `{t}` is the tables' suffix.
fn hostile(dir: &Path, sql: &str) -> PathBuf {
    let db = dir.join("4242_results.db");
    std::fs::copy(fixture(), &db).unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let suffix: String =
        conn.query_row("SELECT value FROM rocpd_metadata WHERE tag = 'uuid'", [], |r| r.get(0)).unwrap();
    // A renamed table keeps the views over it (as a hand-edited file would): no view rewrite.
    let prelude = "PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = ON;";
    conn.execute_batch(&format!("{prelude} {}", sql.replace("{t}", &suffix))).unwrap();
    db
}

/// `rocprof-rs import DB -o DIR/imported`, within a minute, 4 GiB of address space and 256 MiB
/// of file (SQLite's temporary files go under `dir`).
fn import(dir: &Path, db: &Path) -> Output {
    let mut cmd = cli();
    cmd.arg("import").arg(db).arg("-o").arg(dir.join("imported")).env("SQLITE_TMPDIR", dir);
    limit_address_space(&mut cmd, 4 << 30);
    limit_file_size(&mut cmd, 256 << 20);
    finish_within(&mut cmd, Duration::from_secs(60))
}

/// The import failed with one line naming the database and each of `expect`, and wrote nothing.
fn assert_refused(dir: &Path, output: &Output, expect: &[&str]) {
    let message = stderr(output);
    assert!(output.status.code().is_some_and(|c| c != 0), "refused with an exit code: {:?} {message}", output.status);
    let lines: Vec<&str> = message.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "exactly one line: {message}");
    for needle in ["4242_results.db"].iter().chain(expect) {
        assert!(lines[0].contains(needle), "{:?} should name {needle:?}", lines[0]);
    }
    let imported = dir.join("imported");
    assert!(std::fs::read_dir(&imported).map_or(true, |mut d| d.next().is_none()), "nothing written");
}

#[test]
fn a_view_that_never_ends_is_refused_not_run() {
    let dir = scratch("db-recursive-view");
    let db = hostile(
        &dir,
        "DROP VIEW rocpd_kernel_dispatch; CREATE VIEW rocpd_kernel_dispatch AS \
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
         SELECT K.* FROM n, rocpd_kernel_dispatch{t} K",
    );
    assert_refused(&dir, &import(&dir, &db), &["view rocpd_kernel_dispatch", "not rocpd's own"]);
}

#[test]
fn a_view_of_huge_strings_is_refused_not_run() {
    let dir = scratch("db-huge-view");
    // 800 MB names from a 150 KB file.
    let db = hostile(
        &dir,
        "DROP VIEW rocpd_string; CREATE VIEW rocpd_string AS \
         SELECT id, guid, printf('%800000000s', string) AS string FROM rocpd_string{t}",
    );
    assert_refused(&dir, &import(&dir, &db), &["view rocpd_string", "not rocpd's own"]);
}

#[test]
fn a_view_whose_sql_differs_is_refused() {
    let dir = scratch("db-other-view");
    // Half the dispatches, silently, if the view were believed.
    let db = hostile(
        &dir,
        "DROP VIEW rocpd_kernel_dispatch; CREATE VIEW rocpd_kernel_dispatch AS \
         SELECT * FROM rocpd_kernel_dispatch{t} WHERE id % 2 = 0",
    );
    assert_refused(&dir, &import(&dir, &db), &["view rocpd_kernel_dispatch", "not rocpd's own"]);
}

#[test]
fn a_table_that_is_really_an_endless_view_is_refused() {
    let dir = scratch("db-table-view");
    // rocpd's own view over a "table" that is itself a view.
    let db = hostile(
        &dir,
        "ALTER TABLE rocpd_region{t} RENAME TO hidden; CREATE VIEW rocpd_region{t} AS \
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT R.* FROM n, hidden R",
    );
    assert_refused(&dir, &import(&dir, &db), &["rocpd_region_", "not an ordinary table"]);
}

#[test]
fn a_computed_column_is_refused() {
    let dir = scratch("db-generated");
    let db = hostile(
        &dir,
        "ALTER TABLE rocpd_string{t} RENAME TO hidden; \
         CREATE TABLE rocpd_string{t} (id INTEGER PRIMARY KEY, guid TEXT, raw TEXT, \
           string TEXT GENERATED ALWAYS AS (printf('%800000000s', raw)) VIRTUAL); \
         INSERT INTO rocpd_string{t} (id, guid, raw) SELECT id, guid, string FROM hidden;",
    );
    assert_refused(&dir, &import(&dir, &db), &["rocpd_string_", "generated column string"]);
}

#[test]
fn a_trigger_in_the_database_never_runs_and_the_rest_imports() {
    let dir = scratch("db-trigger");
    // Triggers fire on writes; the import writes nothing to the database, so this one, which
    // would take all its time, never runs.
    let db = hostile(
        &dir,
        "CREATE TRIGGER endless AFTER INSERT ON rocpd_string{t} BEGIN \
           WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n; END",
    );
    let output = import(&dir, &db);
    assert!(output.status.success(), "{}", stderr(&output));
    let plain = dir.join("plain");
    let output = cli().arg("import").arg(fixture()).arg("-o").arg(&plain).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    // The process table names the file each was imported from.
    python("compare_datasets.py", &[plain.as_ref(), dir.join("imported").as_ref(), "--without-origin".as_ref()]);
}

#[test]
fn a_value_of_the_wrong_type_names_its_table_row_and_column() {
    let dir = scratch("db-wrong-type");
    let db = hostile(&dir, "UPDATE rocpd_kernel_dispatch{t} SET start = 'soon' WHERE id = 2");
    assert_refused(&dir, &import(&dir, &db), &["rocpd_kernel_dispatch row 2", "start"]);
}

#[test]
fn an_end_before_its_start_is_refused_with_its_row() {
    let dir = scratch("db-end-before-start");
    let db = hostile(&dir, "UPDATE rocpd_kernel_dispatch{t} SET end = start - 5 WHERE id = 2");
    assert_refused(&dir, &import(&dir, &db), &["rocpd_kernel_dispatch row 2", "column end", "is before start"]);
    let dir = scratch("db-region-end-before-start");
    let db = hostile(
        &dir,
        "UPDATE rocpd_region{t} SET end = start - 1 WHERE id = (SELECT R.id FROM rocpd_region{t} R \
         JOIN rocpd_event{t} E ON E.id = R.event_id JOIN rocpd_string{t} C ON C.id = E.category_id \
         WHERE C.string LIKE 'HIP%' LIMIT 1)",
    );
    assert_refused(&dir, &import(&dir, &db), &["rocpd_region", "column end", "is before start"]);
}

#[test]
fn a_negative_pid_is_refused_not_wrapped() {
    let dir = scratch("db-negative-pid");
    let db = hostile(&dir, "UPDATE rocpd_info_process{t} SET pid = -7");
    assert_refused(&dir, &import(&dir, &db), &["rocpd_info_process row 4242", "column pid", "-7 is not a process id"]);
}

/// A dataset of `processes` processes, ten dispatches each, imported from a rocprofv3 kernel
/// trace with a `Process_Id` column.
fn processes(dir: &Path, processes: u32) -> PathBuf {
    use std::fmt::Write as _;
    let csv = dir.join("csv");
    std::fs::create_dir_all(&csv).unwrap();
    let mut text = String::from(
        "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Process_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\
         \"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\
         \"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\
         \"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n",
    );
    let mut t = 1_000_000u64;
    for p in 0..processes {
        for d in 1..=10 {
            t += 1_000;
            writeln!(
                text,
                "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,{},{},{d},{},\"kernel_{}(float*)\",{d},{t},{},0,0,8,0,16,64,1,1,1024,1,1",
                10_000 + p,
                20_000 + p,
                d % 3,
                d % 3,
                t + 500
            )
            .unwrap();
        }
    }
    std::fs::write(csv.join("kernel_trace.csv"), text).unwrap();
    let dataset = dir.join("dataset");
    let output = cli().arg("import").arg(&csv).arg("-o").arg(&dataset).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    dataset
}

/// The databases (visible `*_results.db`) in `dir`.
fn databases_in(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().filter(|e| e.file_name().to_string_lossy().ends_with("_results.db")).count())
        .unwrap_or(0)
}

/// Hidden staging folders beside `out`.
fn staging_beside(out: &Path) -> Vec<PathBuf> {
    let name = out.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(&format!(".{name}.rocpd-")))
        .collect()
}

/// Starts `export DATASET --format rocpd -o OUT`, SIGKILLs it once `ready` holds (polled), and
/// returns whether it was still running when killed.
fn kill_export_when(dataset: &Path, out: &Path, ready: impl Fn() -> bool) -> bool {
    let mut child = cli()
        .arg("export")
        .arg(dataset)
        .args(["--format", "rocpd", "-o"])
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if ready() {
            child.kill().unwrap();
            child.wait().unwrap();
            return true;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "the export hung");
        std::thread::sleep(Duration::from_micros(200));
    }
}

#[test]
fn a_killed_rocpd_export_leaves_no_folder_that_looks_complete() {
    const PROCESSES: usize = 300;
    let dir = scratch("db-killed-export");
    let dataset = processes(&dir, PROCESSES as u32);
    // Killed the moment the first database is visible: the set is either all there or none.
    let out = dir.join("rocpd");
    kill_export_when(&dataset, &out, || databases_in(&out) > 0);
    let seen = databases_in(&out);
    assert!(seen == 0 || seen == PROCESSES, "a killed export left {seen} of {PROCESSES} databases in place");
    // Killed while writing: nothing in place, and only a hidden staging folder beside it,
    // which the next export removes.
    let out = dir.join("again");
    let killed =
        kill_export_when(&dataset, &out, || staging_beside(&out).iter().any(|s| databases_in(s) > PROCESSES / 2));
    assert!(killed, "the export was still writing when killed");
    assert_eq!(databases_in(&out), 0, "no database of a killed export is in place");
    assert_eq!(staging_beside(&out).len(), 1, "the killed export's staging folder is left, hidden");
    let output = cli().arg("export").arg(&dataset).args(["--format", "rocpd", "-o"]).arg(&out).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(databases_in(&out), PROCESSES);
    assert!(staging_beside(&out).is_empty(), "the next export removed the staging folder");
}

#[test]
fn a_rocpd_export_of_many_processes_stays_within_a_fixed_memory() {
    let dir = scratch("db-many-processes");
    let dataset = processes(&dir, 1_000);
    let out = dir.join("rocpd");
    // 1,000 processes at the 640 KB each they once cost would take 640 MB.
    let mut cmd = cli();
    let errors = dir.join("stderr");
    cmd.arg("export").arg(&dataset).args(["--format", "rocpd", "-o"]).arg(&out);
    // A line per database: to a file, not a pipe nobody reads while waiting.
    cmd.stdout(std::process::Stdio::null()).stderr(std::fs::File::create(&errors).unwrap());
    limit_address_space(&mut cmd, 256 << 20);
    let mut child = cmd.spawn().unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "the export hung");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{}", std::fs::read_to_string(&errors).unwrap());
    assert_eq!(databases_in(&out), 1_000);
}

/// Names of up to SQLite's value limit are read as the prefix and hash every other reader
/// keeps ([`rocprof_rs_analysis::names`]), never copied whole: 20 names of 60 MB aborted the
/// import within 4 GiB (and took 6.5 GB without a limit).
#[test]
fn long_kernel_names_in_a_database_are_kept_as_a_prefix_and_a_hash() {
    let dir = scratch("hostile-rocpd-long-names");
    let db = hostile(
        &dir,
        "UPDATE rocpd_info_kernel_symbol{t} SET kernel_name = kernel_name || hex(zeroblob(1000000)), \
         display_name = display_name || hex(zeroblob(1000000));",
    );
    let output = import(&dir, &db);
    assert!(output.status.success(), "{}", stderr(&output));
    let names = python_names(&dir.join("imported/kernel_dispatch"));
    assert!(!names.is_empty());
    for name in names {
        assert!(name.len() < 17_000, "a name of {} bytes was kept", name.len());
        assert!(name.contains("…#"), "{}", &name[..100.min(name.len())]);
    }
}

/// The distinct kernel names of a table, through pyarrow.
fn python_names(table: &Path) -> Vec<String> {
    let script = "import sys, pyarrow.parquet as pq\n\
                  for n in sorted(set(pq.read_table(sys.argv[1]).column('kernel_name').to_pylist())): print(n)";
    let output = Command::new("python3").args(["-c", script]).arg(table).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap().lines().map(str::to_owned).collect()
}
