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

/// Every row of `table` under `dir` as text, with the columns in `skip` left out and agent
/// handles put through `agent` (by process and handle), counted.
fn rows(
    dir: &Path,
    table: rocprof_rs_format::Table,
    skip: &[&str],
    agent: &dyn Fn(u64, u64) -> u64,
) -> std::collections::BTreeMap<String, usize> {
    use arrow_array::Array;
    use rocprof_rs_format::read::Col;
    let mut rows = std::collections::BTreeMap::new();
    rocprof_rs_format::read::batches::<rocprof_rs_format::Error>(dir, table, |b| {
        let schema = b.batch.schema();
        let mut names: Vec<&str> =
            schema.fields().iter().map(|f| f.name().as_str()).filter(|n| !skip.contains(n)).collect();
        names.sort_unstable();
        let pid = b.col("pid")?;
        let columns = names.iter().map(|n| b.col(n)).collect::<Result<Vec<_>, _>>()?;
        for i in 0..b.rows() {
            let mut row = String::new();
            for (name, column) in names.iter().zip(&columns) {
                let value = match column {
                    Col::Text(a) if a.is_null(i) => "null".to_owned(),
                    Col::Dict(a, _) if a.is_null(i) => "null".to_owned(),
                    Col::Text(_) | Col::Dict(..) => column.text(i).to_owned(),
                    Col::F64(_) => column.f64(i).to_string(),
                    _ if name.ends_with("agent_id") => agent(pid.u64(i), column.u64(i)).to_string(),
                    _ => column.opt_i64(i).map_or("null".to_owned(), |v| v.to_string()),
                };
                row.push_str(&format!("{name}={value} "));
            }
            *rows.entry(row).or_default() += 1;
        }
        Ok(())
    })
    .unwrap();
    rows
}

/// Asserts that `copy` holds `original`'s rows in every table but `tables_not_held`, less the
/// columns `not_carried` names per table.
fn assert_same_rows(
    original: &Path,
    copy: &Path,
    not_carried: &[(&str, &[&str])],
    tables_not_held: &[&str],
    agent: &dyn Fn(u64, u64) -> u64,
) {
    use rocprof_rs_format::Table;
    for &table in Table::ALL {
        // rocprofv3's outputs carry no host or rank, and an import knows its processes by id alone.
        if tables_not_held.contains(&table.name()) || table == Table::Process {
            continue;
        }
        let mut skip = not_carried.iter().find(|(t, _)| *t == table.name()).map_or(&[][..], |(_, c)| c).to_vec();
        skip.extend(rocprof_rs_format::origin::Origin::COLUMNS);
        let (a, b) = (rows(original, table, &skip, agent), rows(copy, table, &skip, &|_, id| id));
        let only_a: Vec<_> = a.iter().filter(|(r, n)| b.get(*r) != Some(n)).take(2).collect();
        let only_b: Vec<_> = b.iter().filter(|(r, n)| a.get(*r) != Some(n)).take(2).collect();
        assert!(only_a.is_empty() && only_b.is_empty(), "{table}: not the same rows:\n{only_a:#?}\n{only_b:#?}");
        eprintln!("{table}: {} rows, the same", a.values().sum::<usize>());
    }
}

fn rocprof_rs(args: &[&OsStr]) {
    let output = Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap();
    assert!(output.status.success(), "rocprof-rs {args:?}: {}", stderr(&output));
}

/// What rocprofv3's `results.json` cannot carry (see the export's documentation).
const NOT_IN_JSON: &[(&str, &[&str])] = &[
    ("kernel_dispatch", &["stream_id"]),
    ("marker", &["depth"]),
    ("memory_copy", &["src_address", "dst_address"]),
    ("counter", &["instances"]),
];

/// What rocprofv3's CSV files cannot carry; agents come back under their logical node ids (a
/// free's as none: rocprofv3 writes `""`).
const NOT_IN_CSV: &[(&str, &[&str])] = &[
    ("agent", &["logical_index"]),
    ("kernel_dispatch", &["stream_id", "kernarg_size", "mangled_name"]),
    ("marker", &["depth", "operation"]),
    ("memory_copy", &["bytes", "src_address", "dst_address", "thread_id"]),
    ("memory_allocation", &["thread_id", "agent_id"]),
    ("scratch_memory", &["bytes", "correlation_id"]),
    ("counter", &["instances"]),
];

#[test]
fn a_traced_run_comes_back_through_its_json_and_csv_exports() {
    let dir = scratch("v3-export-round-trip");
    let data = dir.join("traced");
    let domains = "kernel,hip_api,memory_copy,marker,scratch_memory,memory_allocation";
    common::traced_run(&data, 3_000, domains, &[], &[("ROCPROF_RS_PMC", "SQ_WAVES,GRBM_COUNT")]);
    for format in ["rocprofv3-json", "rocprofv3-csv"] {
        let out = dir.join(format);
        rocprof_rs(&[
            OsStr::new("export"),
            data.as_os_str(),
            "--format".as_ref(),
            format.as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
    }
    let json: Vec<PathBuf> =
        std::fs::read_dir(dir.join("rocprofv3-json")).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(json.len(), 1, "one process, one file: {json:?}");
    // Within 4K of memory the sorts spill to disk, and the file is the same.
    let tight = dir.join("tight");
    let output = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .arg("export")
        .arg(&data)
        .args(["--format", "rocprofv3-json", "--memory", "4K", "-o"])
        .arg(&tight)
        .env("TMPDIR", &dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let name = json[0].file_name().unwrap();
    assert!(std::fs::read(tight.join(name)).unwrap() == std::fs::read(&json[0]).unwrap(), "the same within 4K");
    let imported = dir.join("from-json");
    rocprof_rs(&[OsStr::new("import"), json[0].as_os_str(), "-o".as_ref(), imported.as_os_str()]);
    assert_same_rows(&data, &imported, NOT_IN_JSON, &[], &|_, id| id);

    // The CSV names agents by logical node id, their rank by node id.
    let mut agents = Vec::new();
    rocprof_rs_format::read::batches::<rocprof_rs_format::Error>(&data, rocprof_rs_format::Table::Agent, |b| {
        let (pid, id, node) = (b.col("pid")?, b.col("agent_id")?, b.col("node_id")?);
        agents.extend((0..b.rows()).map(|i| (pid.u64(i), node.u64(i), id.u64(i))));
        Ok(())
    })
    .unwrap();
    agents.sort_unstable();
    let logical = |pid: u64, id: u64| {
        let mine = agents.iter().filter(|a| a.0 == pid);
        mine.clone().position(|a| a.2 == id).map_or(id, |rank| rank as u64)
    };
    let imported = dir.join("from-csv");
    rocprof_rs(&[OsStr::new("import"), dir.join("rocprofv3-csv").as_os_str(), "-o".as_ref(), imported.as_os_str()]);
    // The CSV files have no kernel symbols.
    assert_same_rows(&data, &imported, NOT_IN_CSV, &["kernel_symbol"], &logical);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn kernel_ids_that_are_addresses_are_refused_and_nothing_is_written() {
    let dir = scratch("v3-json-sparse");
    let cupti = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cupti/rocprof-rs-13.0-h100/dataset");
    let out = dir.join("json");
    let output = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .arg("export")
        .arg(&cupti)
        .args(["--format", "rocprofv3-json", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let text = stderr(&output);
    assert!(
        text.contains("kernel_symbols id 94823346909136 would need") && text.contains("indexes kernel_symbols by id"),
        "{text}"
    );
    assert!(!out.exists(), "a failed export leaves no output folder");
    std::fs::remove_dir_all(dir).unwrap();
}
