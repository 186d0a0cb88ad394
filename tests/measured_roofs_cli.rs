//! The GPU's own roofs (issue 41, item 4): `doctor --measure-roofs` keeps a measurement per
//! GPU, and `analyze` judges workloads of a GPU of that kind against it, by default or with
//! `--roofs FILE`, and says so; `--roofs datasheet` leaves it out. The measurement itself is
//! checked on an H200 against ncu (`bash bench/gpu/run.sh roofs`); its file here is the one
//! that run kept (tests/fixtures/sol-h200/roofs-h200.json).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sol-h200").join(name)
}

/// `analyze` of the H200 fixture's counted run, with `cache` as XDG_CACHE_HOME and `args`.
fn analyze(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .arg("analyze")
        .arg(fixture("counted"))
        .args(["--timings"])
        .arg(fixture("timed"))
        .args(args)
        .args(["--format", "json"])
        .env("XDG_CACHE_HOME", cache)
        .output()
        .unwrap()
}

fn notes(out: &Output) -> String {
    assert!(out.status.success(), "{}", common::stderr(out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["notes"].to_string()
}

const JUDGED: &str = "judged against the roofs measured by rocprof-rs doctor --measure-roofs on NVIDIA H200";

#[test]
fn a_kept_measurement_of_the_same_gpu_is_used_by_default_and_datasheet_turns_it_off() {
    let cache = common::scratch("kept-default");
    let kept = cache.join("rocprof-rs/roofs");
    std::fs::create_dir_all(&kept).unwrap();
    let none = notes(&analyze(&cache, &[]));
    assert!(!none.contains("judged against the roofs"), "{none}");

    std::fs::copy(fixture("roofs-h200.json"), kept.join("GPU-d72301d5.json")).unwrap();
    // A file that is not a measurement is said and passed over, and a FIFO never blocks.
    std::fs::write(kept.join("broken.json"), "{\"format\": 3}").unwrap();
    let fifo = std::ffi::CString::new(kept.join("fifo.json").to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let out = analyze(&cache, &[]);
    let said = notes(&out);
    assert!(said.contains(JUDGED) && said.contains("GPU-d72301d5.json"), "{said}");
    assert!(said.contains("l2 9.18 TB/s (datasheet 13.12)"), "{said}");
    let stderr = common::stderr(&out);
    assert!(stderr.contains("kept roofs not used: ") && stderr.contains("broken.json: \"format\""), "{stderr}");
    assert!(stderr.contains("fifo.json: not a regular file"), "{stderr}");

    let paper = notes(&analyze(&cache, &["--roofs", "datasheet"]));
    assert!(!paper.contains("judged against the roofs"), "{paper}");
}

#[test]
fn roofs_given_are_used_and_a_measurement_of_another_gpu_is_refused_by_name() {
    let cache = common::scratch("kept-given");
    let given = fixture("roofs-h200.json");
    let said = notes(&analyze(&cache, &["--roofs", given.to_str().unwrap()]));
    assert!(said.contains(JUDGED), "{said}");

    let mut other: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&given).unwrap()).unwrap();
    other["gpu"]["name"] = "NVIDIA H100 80GB HBM3".into();
    let path = cache.join("h100.json");
    std::fs::write(&path, other.to_string()).unwrap();
    let out = analyze(&cache, &["--roofs", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let error = common::stderr(&out);
    assert!(
        error.contains("h100.json: measured a NVIDIA H100 80GB HBM3 with 132 SMs")
            && error.contains("it has NVIDIA H200 (132 SMs/CUs)"),
        "{error}"
    );
    assert_eq!(error.lines().count(), 1, "{error}");

    for (bad, says) in [
        (cache.join("missing.json"), "missing.json: No such file"),
        (PathBuf::from("/dev/zero"), "/dev/zero: not a regular file"),
    ] {
        let out = analyze(&cache, &["--roofs", bad.to_str().unwrap()]);
        assert!(!out.status.success());
        let error = common::stderr(&out);
        assert!(error.starts_with("rocprof-rs: --roofs: ") && error.contains(says), "{error}");
    }
}

/// Without a CUDA driver (CI), one line says so; with one, the measurement is kept and reads back.
#[test]
fn doctor_measures_and_keeps_the_roofs_or_says_why_not() {
    // A folder that cannot be made is refused by name before anything is measured.
    let out = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .args(["doctor", "--measure-roofs", "--roofs-dir", "/dev/null/roofs"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let error = common::stderr(&out);
    assert!(error.starts_with("rocprof-rs: doctor --measure-roofs: --roofs-dir /dev/null/roofs: "), "{error}");

    let dir = common::scratch("doctor-roofs");
    let out = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .args(["doctor", "--measure-roofs", "--roofs-dir"])
        .arg(dir.join("kept"))
        .output()
        .unwrap();
    if out.status.success() {
        let kept: Vec<PathBuf> = std::fs::read_dir(dir.join("kept")).unwrap().map(|e| e.unwrap().path()).collect();
        assert!(!kept.is_empty());
        for path in kept {
            let read = rocprof_rs_analysis::analyze::kept::Kept::read(&path).unwrap();
            assert!(read.roofs.bandwidth.len() >= 3, "{path:?}");
        }
    } else {
        let error = common::stderr(&out);
        assert!(error.starts_with("rocprof-rs: doctor --measure-roofs: "), "{error}");
        assert_eq!(error.lines().count(), 1, "{error}");
        let kept = std::fs::read_dir(dir.join("kept")).map_or(0, |d| d.count());
        assert_eq!(kept, 0, "nothing is kept from a measurement not made");
    }
}
