//! One JSON contract (SIMULATED datasets: no GPU is involved). Every `--format json` output of
//! the commands, run on simulated and imported datasets, is validated against its published
//! schema in docs/schemas by the `jsonschema` package; the published schemas are exactly what
//! this build derives from its types (`json-schemas --check`), so a field changed without its
//! schema fails here; and a schema that lacks a field the output has refuses the output.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

const SCHEMAS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/schemas");
const CHECKER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/verify/check_json_schemas.py");

fn rocprof_rs<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).env_remove("ROCP_TOOL_LIBRARIES").output().unwrap()
}

/// The JSON documents the commands printed, one file each.
struct Documents {
    dir: PathBuf,
    count: usize,
}

impl Documents {
    /// Runs `rocprof-rs ARGS` and keeps what it printed; it must exit with one of `codes`.
    fn keep<S: AsRef<OsStr>>(&mut self, args: impl IntoIterator<Item = S>, codes: &[i32]) -> serde_json::Value {
        let args: Vec<_> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let output = rocprof_rs(&args);
        assert!(codes.contains(&output.status.code().unwrap_or(-1)), "{args:?}: {}", stderr(&output));
        let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
            panic!("{args:?}: not one JSON document ({e}): {}", String::from_utf8_lossy(&output.stdout))
        });
        self.count += 1;
        let name = document["schema"].as_str().unwrap_or("none").replace('/', "_");
        std::fs::write(self.dir.join(format!("{:03}-{name}.json", self.count)), &output.stdout).unwrap();
        document
    }
}

/// `check_json_schemas.py SCHEMAS DOCUMENTS [--expect ...]`: its output, asserted to succeed or
/// fail; none where python3 has no jsonschema (outside CI).
fn check(schemas: &Path, documents: &Path, expect: &[&str], succeed: bool) -> Option<String> {
    let mut command = Command::new("python3");
    command.arg(CHECKER).arg(schemas).arg(documents);
    if !expect.is_empty() {
        command.arg("--expect").args(expect);
    }
    let output = command.output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), stderr(&output));
    if said.contains("No module named 'jsonschema'") {
        assert!(std::env::var_os("CI").is_none(), "CI must have jsonschema (tests/verify/requirements.txt)");
        eprintln!("skipped: python3 has no jsonschema module");
        return None;
    }
    assert_eq!(output.status.success(), succeed, "{said}");
    Some(said)
}

#[test]
fn the_published_schemas_are_what_this_build_prints() {
    let output = rocprof_rs(["json-schemas", "--check", SCHEMAS]);
    assert!(output.status.success(), "{}", stderr(&output));
    // A schema edited by hand, or one an output outgrew, is named.
    let dir = scratch("json-schemas-stale");
    let written = rocprof_rs([OsStr::new("json-schemas"), OsStr::new("--out"), dir.as_os_str()]);
    assert!(written.status.success(), "{}", stderr(&written));
    let stats = dir.join("stats.schema.json");
    let text = std::fs::read_to_string(&stats).unwrap().replace("\"sections\"", "\"section_list\"");
    std::fs::write(&stats, text).unwrap();
    std::fs::remove_file(dir.join("score.schema.json")).unwrap();
    // Writing over a schema whose fields changed at the same version is refused: the version
    // must be raised first.
    let rewrite = rocprof_rs([OsStr::new("json-schemas"), OsStr::new("--out"), dir.as_os_str()]);
    assert_eq!(rewrite.status.code(), Some(1));
    assert!(
        stderr(&rewrite).contains("stats.schema.json changed") && stderr(&rewrite).contains("raise SCHEMA_VERSION")
    );
    assert!(!dir.join("score.schema.json").exists(), "none is written when one is refused");
    let output = rocprof_rs([OsStr::new("json-schemas"), OsStr::new("--check"), dir.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    let said = stderr(&output);
    assert!(said.contains("stats.schema.json: differs") && said.contains("schema_version"), "{said}");
    assert!(said.contains("score.schema.json"), "{said}");
    // A FIFO in a schema's place is named, not waited on.
    std::fs::remove_file(dir.join("diff.schema.json")).unwrap();
    let fifo = std::ffi::CString::new(dir.join("diff.schema.json").to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path that lives across the call.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let output = rocprof_rs([OsStr::new("json-schemas"), OsStr::new("--check"), dir.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("diff.schema.json: a FIFO"), "{}", stderr(&output));
}

/// The arguments, each a string or a path.
macro_rules! args {
    ($($arg:expr),* $(,)?) => { vec![$(OsStr::new(&$arg).to_owned()),*] };
}

#[test]
fn every_json_output_validates_against_its_schema() {
    let dir = scratch("json-contract");
    let documents = dir.join("documents");
    std::fs::create_dir_all(&documents).unwrap();
    let mut docs = Documents { dir: documents.clone(), count: 0 };

    // Two traced runs, the first with device samples.
    let (a, b) = (dir.join("a"), dir.join("b"));
    let domains = "kernel,hip_api,memory_copy,marker";
    let smi = built("libamd_smi.so");
    let sampled = [("ROCPROF_RS_DEVICE_SAMPLE_MS", "2"), ("ROCPROF_RS_DEVICE_SAMPLE_LIBRARY", smi.to_str().unwrap())];
    traced_run(&a, 3000, domains, &["--seed", "5"], &sampled);
    traced_run(&b, 3000, domains, &["--seed", "6"], &[]);
    let stats = docs.keep(args!["stats", a, "--format", "json"], &[0]);
    assert_eq!(stats["schema"], "rocprof-rs/stats");
    assert_eq!(stats["schema_version"], "1.0");
    assert_eq!(stats["command"], "stats");
    assert_eq!(stats["dataset"], a.to_str().unwrap());
    assert!(stats["sections"].as_array().is_some_and(|s| s.len() == 4), "{stats}");
    let device = docs.keep(args!["stats", a, "--section", "kernel", "--section", "device", "--format", "json"], &[0]);
    assert!(device["device"].is_object() && device["sections"].as_array().is_some_and(|s| s.len() == 1), "{device}");
    docs.keep(args!["stats", a, "--by-rank", "--format", "json"], &[0]);
    docs.keep(args!["analyze", a, "--format", "json"], &[0]);
    let diff = docs.keep(args!["diff", a, b, "--format", "json"], &[0, 1]);
    assert_eq!((diff["baseline"].as_str(), diff["dataset"].as_str()), (a.to_str(), b.to_str()));
    docs.keep(args!["score", a, "--format", "json"], &[0]);
    docs.keep(args!["export", a, "--format", "rocprofv3-csv", "-o", dir.join("csv"), "--report", "json"], &[0]);

    // A distributed job with step markers.
    let job = dir.join("job");
    traced_ranks(["--ranks", "2", "--steps", "4", "--dispatches", "400", "--no-truth"], &job);
    docs.keep(args!["ranks", job, "--step-marker", "step", "--format", "json"], &[0]);

    // PC samples.
    let pc = dir.join("pc");
    std::fs::create_dir_all(&pc).unwrap();
    let mut sim =
        sim_with_tool(&pc, &["--dispatches", "400", "--threads", "2", "--seed", "11", "--gpu-archs", "gfx942"]);
    sim.env("ROCPROF_RS_DOMAINS", "kernel")
        .env("ROCPROFILER_PC_SAMPLING_BETA_ENABLED", "ON")
        .env("ROCPROF_RS_PC_SAMPLING_METHOD", "host_trap")
        .env("ROCPROF_RS_PC_SAMPLING_INTERVAL", "2");
    let ran = sim.output().unwrap();
    assert!(ran.status.success(), "{}", stderr(&ran));
    docs.keep(args!["hotspots", pc.join("out"), "--format", "json"], &[0]);

    // An import, the simulated SDK's counters, the machine, the demo.
    let imported = dir.join("imported");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rocprofv3");
    docs.keep(args!["import", fixture, "-o", imported, "--format", "json"], &[0]);
    docs.keep(args!["stats", imported, "--format", "json"], &[0]);
    docs.keep(args!["avail", "--format", "json", "--sdk", built("librocprofiler_sdk_sim.so")], &[0]);
    let doctor = docs.keep(args!["doctor", "--format", "json"], &[0]);
    assert!(doctor["dataset"].is_null(), "{doctor}");
    docs.keep(args!["demo", "--dispatches", "500", "--format", "json", "-d", dir.join("demo")], &[0]);
    let mut expected =
        vec!["stats", "analyze", "diff", "score", "ranks", "hotspots", "avail", "doctor", "import", "export", "demo"];
    // An NVIDIA chip's metrics, from CUPTI's host API without a GPU (NVIDIA's wheel).
    if let Some(cupti) = wheel_libcupti() {
        let output = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
            .args(["avail", "--chip", "GH100", "--filter", "dram__", "--format", "json"])
            .env("ROCPROF_RS_CUPTI_LIBRARY", cupti)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        std::fs::write(documents.join("900-rocprof-rs_avail-nvidia.json"), &output.stdout).unwrap();
        expected.push("avail-nvidia");
    }
    let Some(said) = check(Path::new(SCHEMAS), &documents, &expected, true) else { return };
    eprintln!("{said}");
    // What only a GPU gives (CUPTI, NVML, PC samples with SASS, measured roofs), as the `json`
    // stage kept it from an H200 (bench/gpu/json).
    for kept in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/gpu/json/results")).unwrap() {
        let mut command = Command::new("python3");
        command.arg(CHECKER).arg(SCHEMAS).arg(kept.unwrap().path()).arg("--current-only");
        let output = command.output().unwrap();
        assert!(output.status.success(), "{}{}", String::from_utf8_lossy(&output.stdout), stderr(&output));
    }

    // A schema that lacks a field the output carries refuses it.
    let narrowed = dir.join("narrowed");
    std::fs::create_dir_all(&narrowed).unwrap();
    for entry in std::fs::read_dir(SCHEMAS).unwrap().flatten() {
        std::fs::copy(entry.path(), narrowed.join(entry.file_name())).unwrap();
    }
    let path = narrowed.join("diff.schema.json");
    let mut schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    schema["properties"].as_object_mut().unwrap().remove("baseline");
    std::fs::write(&path, serde_json::to_vec(&schema).unwrap()).unwrap();
    let said = check(&narrowed, &documents, &[], false).unwrap_or_default();
    assert!(said.contains("baseline"), "{said}");
}
