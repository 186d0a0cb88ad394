//! Garbage and special files in every input: the tool's variables and counter file inside the
//! application, and the CLI's files.

use std::time::Duration;

use super::*;

fn fifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
}

/// Runs the application with `env`, expecting it unharmed and one line naming `expect`,
/// within 60 s (a FIFO once blocked it for good; `/dev/zero` grew it to 12 GB).
fn assert_refused(name: &str, env: &[(&str, &str)], expect: &str) {
    let dir = scratch(name);
    let mut cmd = app(&dir, 20_000);
    cmd.args(["--no-truth", "--exit-code", "7"]);
    for (k, v) in env {
        cmd.env(k, v.replace("{dir}", dir.to_str().unwrap()));
    }
    if env.iter().any(|(_, v)| v.contains("{dir}/fifo")) {
        fifo(&dir.join("fifo"));
    }
    let output = finish_within(&mut cmd, Duration::from_secs(60));
    assert_unharmed(&output, expect);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_counter_file_that_is_not_a_regular_file_is_refused_not_read() {
    assert_refused("hostile-pmc-zero", &[("ROCPROF_RS_PMC_FILE", "/dev/zero")], "character device");
    assert_refused("hostile-pmc-fifo", &[("ROCPROF_RS_PMC_FILE", "{dir}/fifo")], "FIFO");
    assert_refused("hostile-pmc-dir", &[("ROCPROF_RS_PMC_FILE", "/tmp")], "directory");
}

#[test]
fn every_variable_is_checked_on_every_backend_and_with_or_without_counters() {
    for (variable, value) in [
        ("ROCPROF_RS_FLUSH_MS", "xxx"),
        ("ROCPROF_RS_FLUSH_MS", "5"),
        ("ROCPROF_RS_CUPTI_DUMP_MAX", "-1"),
        ("ROCPROF_RS_CUPTI_BUFFER_RECORDS", "many"),
        ("ROCPROF_RS_COUNTER_PASSES", "sometimes"),
        ("ROCPROF_RS_COUNTER_INSTANCES", "2"),
        ("ROCPROF_RS_COUNTER_PASS", "first"),
    ] {
        assert_refused(&format!("hostile-var-{}", variable.to_lowercase()), &[(variable, value)], variable);
    }
}

#[test]
fn a_stem_that_readers_would_hide_is_refused() {
    for stem in [".hidden", "_hidden"] {
        assert_refused("hostile-hidden-stem", &[("ROCPROF_RS_OUTPUT_NAME", stem)], "ROCPROF_RS_OUTPUT_NAME");
    }
    let dir = scratch("hostile-import-hidden-stem");
    let output = cli()
        .args(["import", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rocprofv3"), "--name", "_x", "-o"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(stderr(&output).contains("--name \"_x\""), "{}", stderr(&output));
    assert!(!dir.join("out").exists(), "a failed import leaves no folder");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every file the CLI reads is refused, quickly and with its name, if it is a special file.
#[test]
fn the_cli_refuses_special_files_without_hanging() {
    let dir = scratch("hostile-cli-special");
    fifo(&dir.join("fifo"));
    let fifo = dir.join("fifo");
    let fifo = fifo.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", "-i", "/dev/zero", "--", "/bin/true"],
        vec!["run", "-i", fifo, "--", "/bin/true"],
        vec!["run", "--profile", "/dev/zero", "--", "/bin/true"],
        vec!["run", "--profile", fifo, "--", "/bin/true"],
        vec!["analyze", "/dev/zero"],
        vec!["analyze", fifo],
        vec!["score", fifo],
        vec!["import", fifo, "-o", "/tmp/rocprof-rs-hostile-never"],
        vec!["import", "/dev/zero", "-o", "/tmp/rocprof-rs-hostile-never"],
    ];
    for args in cases {
        let output = finish_within(cli().args(&args), Duration::from_secs(30));
        assert!(!output.status.success(), "{args:?} succeeded");
        let text = stderr(&output);
        let named = ["not a regular file", "not a directory", "not a dataset directory", "neither a dataset directory"];
        assert!(named.iter().any(|n| text.contains(n)), "{args:?}: {text}");
        assert!(!text.contains("panicked"), "{args:?}: {text}");
    }
    assert!(!Path::new("/tmp/rocprof-rs-hostile-never").exists());
    std::fs::remove_dir_all(dir).unwrap();
}

/// rocprofv3 writes header-only CSV files for a run without kernels: they import as nothing,
/// not as an error that names an internal staging folder.
#[test]
fn header_only_rocprofv3_files_import_as_an_empty_run() {
    let dir = scratch("hostile-header-only");
    let input = dir.join("run");
    std::fs::create_dir_all(&input).unwrap();
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rocprofv3/");
    for file in ["kernel_trace.csv", "memory_copy_trace.csv"] {
        let text = std::fs::read_to_string(format!("{fixture}{file}")).unwrap_or_default();
        let header = text.lines().next().expect("a fixture with a header");
        std::fs::write(input.join(format!("4242_{file}")), format!("{header}\n")).unwrap();
    }
    let output = cli().arg("import").arg(&input).arg("-o").arg(dir.join("out")).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!stderr(&output).contains(".import-"), "{}", stderr(&output));
    std::fs::remove_dir_all(dir).unwrap();
}
