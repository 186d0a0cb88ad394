//! Post-processing in bounded memory (issue 20, item 10): `stats` and every export hold at
//! most `--memory` in their sorts and summaries, spilling the rest to temporary files, and the
//! output is the same byte for byte whichever way it went. (The figures, memory against the
//! number of records and of names, are benchmarks: `BENCHMARKS.md`.)

use super::*;

/// Runs the CLI with `args`, asserting success, and returns its standard output.
fn ok(args: &[&std::ffi::OsStr]) -> Vec<u8> {
    let output = cli().args(args).output().unwrap();
    assert!(output.status.success(), "{:?}: {}", args, stderr(&output));
    output.stdout
}

/// Every file under `dir` (one level), by name, with its bytes.
fn contents(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

#[test]
fn stats_and_exports_give_the_same_bytes_in_4k_of_memory() {
    let dir = scratch("hostile-memory");
    let traced = dir.join("traced");
    // Every table the exports draw, counters too, over 2 processes' worth of names.
    traced_run(
        &traced,
        6_000,
        "kernel,hip_api,memory_copy,marker",
        &["--range-every", "8"],
        &[("ROCPROF_RS_COUNTER_PRESET", "basic")],
    );
    let spill_dir = dir.join("tmp");
    std::fs::create_dir_all(&spill_dir).unwrap();
    let run = |memory: &str, what: &str| -> std::collections::BTreeMap<String, Vec<u8>> {
        let out = dir.join(format!("{what}-{memory}"));
        let mut found = std::collections::BTreeMap::new();
        for format in ["table", "csv", "json"] {
            let stdout = ok(&[
                "stats".as_ref(),
                traced.as_os_str(),
                "--format".as_ref(),
                format.as_ref(),
                "--memory".as_ref(),
                memory.as_ref(),
            ]);
            found.insert(format!("stats.{format}"), stdout);
        }
        for format in ["rocprofv3-csv", "rocprofv3-json", "perfetto", "rocpd"] {
            let to = out.join(format);
            let output = cli()
                .arg("export")
                .arg(&traced)
                .args(["--format", format, "--memory", memory, "-o"])
                .arg(&to)
                .env("TMPDIR", &spill_dir)
                .output()
                .unwrap();
            assert!(output.status.success(), "{format} within {memory}: {}", stderr(&output));
            if to.is_dir() {
                for (name, bytes) in contents(&to) {
                    found.insert(format!("{format}/{name}"), bytes);
                }
            } else {
                found.insert(format.to_owned(), std::fs::read(&to).unwrap());
            }
        }
        found
    };
    let roomy = run("256M", "roomy");
    let tight = run("4K", "tight");
    assert_eq!(roomy.keys().collect::<Vec<_>>(), tight.keys().collect::<Vec<_>>());
    for (name, bytes) in &roomy {
        if name.starts_with("rocpd/") {
            continue; // compared by content below: SQLite's page layout may differ
        }
        assert!(
            bytes == &tight[name],
            "{name} differs when spilled ({} against {} bytes)",
            bytes.len(),
            tight[name].len()
        );
    }
    assert!(roomy.keys().any(|k| k.starts_with("rocpd/")), "a rocpd database was written");
    let dumps = |which: &str| python("rocpd_dump.py", &[dir.join(format!("{which}/rocpd")).as_os_str()]);
    let (roomy, tight) = (dumps("roomy-256M"), dumps("tight-4K"));
    let differ = roomy.lines().zip(tight.lines()).find(|(a, b)| a != b);
    assert!(differ.is_none() && roomy.len() == tight.len(), "the rocpd databases differ when spilled: {differ:?}");
    assert_eq!(std::fs::read_dir(&spill_dir).unwrap().count(), 0, "the sorts' temporary files are gone");
    let bad = cli().args(["stats"]).arg(&traced).args(["--memory", "12X"]).output().unwrap();
    assert!(!bad.status.success() && stderr(&bad).contains("12X"), "{}", stderr(&bad));
    std::fs::remove_dir_all(dir).unwrap();
}
