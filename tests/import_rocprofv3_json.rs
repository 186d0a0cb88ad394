//! `rocprof-rs import` of rocprofv3's JSON output, in the ROCm 7.0 layout and the develop one
//! (tests/fixtures/rocprofv3-json: constructed from the serializer; see its README).

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{python, scratch, stderr};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rocprofv3-json").join(name)
}

fn import(input: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .args([OsStr::new("import"), input.as_os_str(), OsStr::new("-o"), out.as_os_str()])
        .args(["--format", "json"])
        .output()
        .unwrap()
}

#[test]
fn every_record_becomes_the_row_its_serializer_meant() {
    let dir = scratch("v3-json");
    for (file, out, flag) in
        [("4242_results.json", "rel", None), ("develop_4242_results.json", "dev", Some("--develop"))]
    {
        let output = import(&fixture(file), &dir.join(out));
        assert!(output.status.success(), "{}", stderr(&output));
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["inputs"][0]["format"], "rocprofv3 JSON");
        let mut args = vec![dir.join(out).into_os_string()];
        args.extend(flag.map(Into::into));
        let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        python("rocprofv3_json_check.py", &args);
    }
    // The layouts differ only in what 7.0 does not write: scratch sizes.
    let tables = "agent,counter,hip_api,hsa_api,kernel_counter,kernel_dispatch,kernel_symbol,marker,memory_allocation,memory_copy";
    python(
        "compare_datasets.py",
        &[dir.join("rel").as_os_str(), dir.join("dev").as_os_str(), OsStr::new("--tables"), OsStr::new(tables)],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// The fixture with one value replaced, written to `dir` (pretty-printed when `pretty`, so
/// lines mean something).
fn altered(dir: &Path, pretty: bool, change: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("4242_results.json")).unwrap()).unwrap();
    change(&mut json["rocprofiler-sdk-tool"][0]);
    let path = dir.join(format!("altered-{}.json", if pretty { "pretty" } else { "flat" }));
    let text = if pretty { serde_json::to_string_pretty(&json) } else { serde_json::to_string(&json) };
    std::fs::write(&path, text.unwrap()).unwrap();
    path
}

/// A change to the fixture's process object.
type Change = fn(&mut serde_json::Value);

#[test]
fn a_bad_value_is_named_by_file_json_path_and_place_and_nothing_is_written() {
    let dir = scratch("v3-json-bad");
    let cases: [(bool, Change, &str); 4] = [
        (
            true,
            |p| p["buffer_records"]["hip_api"][2]["start_timestamp"] = "soon".into(),
            "buffer_records.hip_api[2].start_timestamp: invalid type: string \"soon\", expected u64 at line",
        ),
        (
            false,
            |p| p["buffer_records"]["kernel_dispatch"][1]["end_timestamp"] = 1.into(),
            "buffer_records.kernel_dispatch[1]: end_timestamp 1 is before start_timestamp 5000003400000 at line 1 column",
        ),
        (
            false,
            |p| p["buffer_records"]["kernel_dispatch"][0]["dispatch_info"]["kernel_id"] = 99.into(),
            "rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[0]: kernel_id 99 is not in kernel_symbols",
        ),
        (
            false,
            |p| p["callback_records"]["counter_collection"][1]["records"][4]["counter_id"]["handle"] = 5.into(),
            "callback_records.counter_collection[1]: counter_id 5 is not in counters",
        ),
    ];
    for (pretty, change, expected) in cases {
        let input = altered(&dir, pretty, change);
        let out = dir.join("out");
        let output = import(&input, &out);
        assert!(!output.status.success());
        let text = stderr(&output);
        assert!(text.contains(&input.display().to_string()) && text.contains(expected), "{text}\nwanted: {expected}");
        let left: Vec<_> = std::fs::read_dir(&out).map(|d| d.flatten().collect()).unwrap_or_default();
        assert!(left.is_empty(), "nothing written: {left:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
