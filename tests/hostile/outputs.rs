//! What the CLI writes, against bad datasets and a disk that fills: an error is one line and
//! a non-zero exit, and an output is whole or absent.

use super::*;

/// A small real dataset: rocprofv3's CSV fixtures, imported.
pub(crate) fn dataset(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("dataset");
    let output = cli()
        .args(["import", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rocprofv3"), "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    out
}

const EXPORTS: [&str; 4] = ["rocprofv3-csv", "rocprofv3-json", "perfetto", "rocpd"];

fn export(from: &Path, format: &str, to: &Path) -> Command {
    let mut cmd = cli();
    cmd.arg("export").arg(from).args(["--format", format, "-o"]).arg(to);
    cmd
}

/// Every file under `dir`, hidden ones included.
fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.path().is_dir() {
                found.extend(files_under(&entry.path()));
            } else {
                found.push(entry.path().display().to_string());
            }
        }
    }
    found
}

#[test]
fn exporting_or_analysing_what_is_not_a_dataset_fails_with_its_name() {
    let dir = scratch("hostile-not-a-dataset");
    std::fs::create_dir_all(dir.join("empty/kernel_dispatch")).unwrap();
    for (input, says) in [("missing", "No such file"), ("empty", "holds no rocprof-rs table")] {
        let input = dir.join(input);
        for format in EXPORTS {
            let out = dir.join(format!("out-{format}"));
            let output = export(&input, format, &out).output().unwrap();
            assert!(!output.status.success(), "export {format} of {}", input.display());
            assert!(stderr(&output).contains(says), "{format}: {}", stderr(&output));
            assert!(!out.exists(), "a failed export leaves no output folder");
        }
        let output = cli().arg("analyze").arg(&input).output().unwrap();
        assert!(!output.status.success(), "analyze {}", input.display());
        let says = if says == "No such file" { "neither a dataset directory nor a results JSON file" } else { says };
        assert!(stderr(&output).contains(says), "{}", stderr(&output));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A table file whose columns have other types than the table's (written by something else):
/// `stats` refused it, and `analyze` and `export` wrote zeros. All refuse it now.
#[test]
fn columns_of_the_wrong_type_are_refused_by_every_reader() {
    let dir = scratch("hostile-wrong-types");
    let real = dataset(&dir);
    let data = dir.join("data");
    // Every column of a real kernel_dispatch file, with the times and ids as text.
    let write = r#"
import sys, os, glob, pyarrow as pa, pyarrow.parquet as pq
t = pq.read_table(glob.glob(os.path.join(sys.argv[1], "kernel_dispatch", "*.parquet"))[0])
for name in ["start_ns", "end_ns", "duration_ns", "pid", "agent_id"]:
    i = t.schema.get_field_index(name)
    t = t.set_column(i, name, pa.array([str(v) for v in t.column(name).to_pylist()]))
d = os.path.join(sys.argv[2], "kernel_dispatch"); os.makedirs(d)
pq.write_table(t, os.path.join(d, "other-00000.parquet"))
"#;
    let output = Command::new("python3").arg("-c").arg(write).arg(&real).arg(&data).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    for format in EXPORTS {
        let out = dir.join(format!("out-{format}"));
        let output = export(&data, format, &out).output().unwrap();
        assert!(!output.status.success(), "export {format} read text as numbers");
        assert!(stderr(&output).contains("other-00000.parquet"), "{format}: {}", stderr(&output));
        assert!(files_under(&out).is_empty(), "{format} left {:?}", files_under(&out));
    }
    for command in ["analyze", "stats"] {
        let output = cli().arg(command).arg(&data).output().unwrap();
        assert!(!output.status.success(), "{command} read text as numbers");
        assert!(stderr(&output).contains("other-00000.parquet"), "{command}: {}", stderr(&output));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Runs `cmd` with `RLIMIT_FSIZE = bytes`: a disk that fills after `bytes` of each file.
fn with_file_size_limit(cmd: &mut Command, bytes: u64) -> Output {
    limit_file_size(cmd, bytes);
    cmd.output().unwrap()
}

/// An export onto a disk that fills leaves no truncated file under a final name, no partial
/// database or journal, and no folder it created: for a file-size limit (every machine) and a
/// full tmpfs (where this machine lets the test mount one).
#[test]
fn an_export_onto_a_full_disk_leaves_nothing_behind() {
    let dir = scratch("hostile-full-disk");
    let data = dataset(&dir);
    for format in EXPORTS {
        let out = dir.join(format!("limited-{format}"));
        let output = with_file_size_limit(&mut export(&data, format, &out), 256);
        assert!(!output.status.success(), "{format} under a 256-byte limit succeeded");
        // SQLite says "disk I/O error" for what the system calls EFBIG.
        let named = ["File too large", "disk I/O error"];
        assert!(named.iter().any(|n| stderr(&output).contains(n)), "{format}: {}", stderr(&output));
        assert!(!stderr(&output).contains("panicked"), "{format}: {}", stderr(&output));
        assert!(!out.exists(), "{format} left {:?}", files_under(&out));
    }
    let mount = dir.join("tmpfs");
    std::fs::create_dir_all(&mount).unwrap();
    let mounted = Command::new("mount").args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"]).arg(&mount).output();
    match mounted {
        Ok(m) if m.status.success() => {
            let _unmount = Unmount(&mount);
            fill_but_one_page(&mount.join("filler"));
            for format in EXPORTS {
                let out = mount.join(format);
                let output = export(&data, format, &out).output().unwrap();
                assert!(!output.status.success(), "{format} onto a full tmpfs succeeded");
                let named = ["No space left", "disk is full", "disk I/O error"];
                assert!(named.iter().any(|n| stderr(&output).contains(n)), "{format}: {}", stderr(&output));
                assert!(!out.exists(), "{format} left {:?}", files_under(&out));
            }
        }
        Ok(m) => eprintln!("skipped the full tmpfs: mount refused: {}", String::from_utf8_lossy(&m.stderr).trim()),
        Err(e) => eprintln!("skipped the full tmpfs: no mount command: {e}"),
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Unmounts the test's tmpfs however the test ends, so that a failure leaves no mount behind.
struct Unmount<'a>(&'a Path);

impl Drop for Unmount<'_> {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0).status();
    }
}

/// Fills the filesystem of `filler` with it, then frees one page: the next export runs out.
fn fill_but_one_page(filler: &Path) {
    use std::io::Write;
    let mut file = std::fs::File::create(filler).unwrap();
    let page = [0u8; 4096];
    let mut written = 0u64;
    while file.write_all(&page).and_then(|()| file.sync_all()).is_ok() {
        written += page.len() as u64;
    }
    file.set_len(written.saturating_sub(4096)).unwrap();
}

/// `run` said "output in X" when the tool had turned itself off and written nothing.
#[test]
fn run_does_not_claim_an_output_the_tool_did_not_write() {
    let dir = scratch("hostile-run-off");
    let sim = built("rocprof-sim");
    let sdk = built("librocprofiler_sdk_sim.so");
    let output = cli()
        .args(["run", "--kernel-trace", "-d", "/proc/rocprof-rs-cannot-write-here", "--"])
        .arg(sim)
        .args(["--dispatches", "1000", "--no-truth", "--sdk"])
        .arg(sdk)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(!text.contains("output in"), "{text}");
    assert!(text.contains("nothing written to /proc/rocprof-rs-cannot-write-here"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}
