//! Hostile values in what is imported and analysed: counter values that are not finite numbers,
//! durations near `i64::MAX`, and a rocprof v1 trace whose tracks are not numbered.

use super::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// Copies the fixture folder `name` into `dir`, returning the copy.
fn copy_fixture(name: &str, dir: &Path) -> std::path::PathBuf {
    let from = Path::new(FIXTURES).join(name);
    let to = dir.join(name);
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(&from).unwrap().flatten() {
        if entry.path().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    to
}

/// Sets the `column` field of the record on line `line` (1-based; the header is line 1) of the
/// CSV `file` to `value`.
fn set_field(file: &Path, line: usize, column: &str, value: &str) {
    let mut reader = csv::Reader::from_path(file).unwrap();
    let header = reader.headers().unwrap().clone();
    let at = header.iter().position(|h| h == column).unwrap_or_else(|| panic!("no {column} in {}", file.display()));
    let mut records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let mut fields: Vec<String> = records[line - 2].iter().map(str::to_owned).collect();
    fields[at] = value.to_owned();
    records[line - 2] = csv::StringRecord::from(fields);
    let mut writer = csv::Writer::from_path(file).unwrap();
    writer.write_record(&header).unwrap();
    records.iter().for_each(|r| writer.write_record(r).unwrap());
    writer.flush().unwrap();
}

/// The import of `input` into `dir/out` fails with one line holding every one of `says`, and
/// leaves no folder.
fn assert_import_refused(input: &Path, dir: &Path, says: &[&str]) {
    let out = dir.join("out");
    let output = cli().arg("import").arg(input).arg("-o").arg(&out).output().unwrap();
    let text = stderr(&output);
    assert!(!output.status.success(), "{} was imported: {text}", input.display());
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    for said in says {
        assert!(text.contains(said), "{said:?} missing from {text}");
    }
    assert!(!out.exists(), "a refused import leaves no folder");
}

#[test]
fn non_finite_counter_values_are_refused_by_every_importer_with_their_place() {
    let dir = scratch("hostile-non-finite-import");
    for value in ["inf", "NaN", "-inf", "1e999"] {
        // rocprofv3 CSV: line 3's Counter_Value.
        let v3 = copy_fixture("rocprofv3", &dir);
        set_field(&v3.join("counter_collection.csv"), 3, "Counter_Value", value);
        assert_import_refused(&v3, &dir, &["counter_collection.csv:3: column Counter_Value", "finite"]);
        // rocprof v1 CSV: line 2's SQ_WAVES.
        let v1 = copy_fixture("rocprof-v1-csv", &dir);
        let file = v1.join("omniperf_SQ_IFETCH_LEVEL.csv");
        set_field(&file, 2, "SQ_WAVES", value);
        assert_import_refused(&file, &dir, &["omniperf_SQ_IFETCH_LEVEL.csv:2: column SQ_WAVES", "finite"]);
        // rocprof-compute, long layout: line 2's Counter_Value.
        let long = copy_fixture("rocprof-compute/vcopy-MI300X_A1_rocpd", &dir);
        set_field(&long.join("pmc_perf.csv"), 2, "Counter_Value", value);
        assert_import_refused(&long, &dir, &["pmc_perf.csv:2: column Counter_Value", "finite"]);
        // rocprof-compute, wide layout: line 2's first counter.
        let wide = copy_fixture("rocprof-compute/vcopy-MI300X_A1", &dir);
        set_field(&wide.join("pmc_perf.csv"), 2, "SQC_DCACHE_INPUT_VALID_READYB", value);
        assert_import_refused(&wide, &dir, &["pmc_perf.csv:2: column SQC_DCACHE_INPUT_VALID_READYB", "finite"]);
        std::fs::remove_dir_all(dir.join("rocprof-compute")).unwrap();
    }
    // rocprofv3 JSON holds no NaN or infinity, but instances near f64's largest sum to one.
    let json = copy_fixture("rocprofv3-json", &dir).join("4242_results.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for record in
        v["rocprofiler-sdk-tool"][0]["callback_records"]["counter_collection"][0]["records"].as_array_mut().unwrap()
    {
        record["value"] = serde_json::json!(1.0e308);
    }
    std::fs::write(&json, v.to_string()).unwrap();
    assert_import_refused(&json, &dir, &["counter_collection[0].records", "not a finite number"]);
}

/// A dataset written by someone else (pyarrow here) whose counter values are not finite: the
/// analysis must not print `inf%` or `NaN%`, nor score an efficiency of 1 from them.
#[test]
fn analyze_and_score_never_show_a_non_finite_counter_as_a_result() {
    let dir = scratch("hostile-non-finite-analyze");
    let data = dir.join("data");
    let imported = cli()
        .arg("import")
        .arg(Path::new(FIXTURES).join("rocprof-compute/vcopy-MI300X_A1_rocpd"))
        .arg("-o")
        .arg(&data)
        .output()
        .unwrap();
    assert!(imported.status.success(), "{}", stderr(&imported));
    let before = cli().arg("analyze").arg(&data).output().unwrap();
    assert!(before.status.success(), "{}", stderr(&before));
    assert!(String::from_utf8_lossy(&before.stdout).contains('%'), "the fixture has a roofline position");
    for value in ["inf", "nan", "-inf"] {
        let poison = r#"
import sys, glob, pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq
value = float(sys.argv[2])
for table in ("counter", "kernel_counter"):
    for path in glob.glob(f"{sys.argv[1]}/{table}/*.parquet"):
        t = pq.read_table(path)
        for column in ("value", "mean", "sum", "min", "max"):
            if column in t.column_names:
                i = t.schema.get_field_index(column)
                t = t.set_column(i, t.schema.field(i), pa.array([value] * t.num_rows, t.schema.field(i).type))
        pq.write_table(t, path)
"#;
        let output = Command::new("python3").arg("-c").arg(poison).arg(&data).arg(value).output().unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        for format in ["table", "csv", "json"] {
            let output = cli().arg("analyze").arg(&data).args(["--format", format]).output().unwrap();
            let text = String::from_utf8_lossy(&output.stdout).to_lowercase();
            for shown in ["inf%", "nan%", "infinity", "nan,", "inf,"] {
                assert!(!text.contains(shown), "{value}: analyze --format {format} shows {shown:?}:\n{text}");
            }
        }
        let output = cli().arg("score").arg(&data).args(["--format", "json"]).output().unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        let score: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let efficiency = score["efficiency"].as_f64();
        assert!(efficiency.is_none_or(|e| e < 1.0), "{value}: score reports efficiency {efficiency:?}");
        let text = cli().arg("score").arg(&data).output().unwrap();
        let text = String::from_utf8_lossy(&text.stdout).to_lowercase();
        assert!(!text.contains("efficiency 100%") && !text.contains("nan"), "{value}: {text}");
    }
}

#[test]
fn the_standard_deviation_holds_for_durations_near_i64_max() {
    let dir = scratch("hostile-huge-durations");
    let input = dir.join("run");
    std::fs::create_dir_all(&input).unwrap();
    let header = std::fs::read_to_string(Path::new(FIXTURES).join("rocprofv3/kernel_trace.csv")).unwrap();
    let header = header.lines().next().unwrap().to_owned();
    let top = i64::MAX as u64;
    let mut text = header + "\n";
    for (id, end) in [(1, top - 1_000), (2, top - 3_000), (3, top - 1_000), (4, top - 3_000)] {
        text +=
            &format!("\"KERNEL_DISPATCH\",\"Agent 4\",1,1,7,{id},10,\"k\",{id},1,{end},0,0,8,0,16,64,1,1,1024,1,1\n");
    }
    std::fs::write(input.join("4242_kernel_trace.csv"), text).unwrap();
    let data = dir.join("data");
    let output = cli().arg("import").arg(&input).arg("-o").arg(&data).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let output = cli().arg("stats").arg(&data).args(["--format", "json", "--section", "kernel"]).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let row = &json["sections"][0]["rows"][0];
    // Durations d, d - 2000, d, d - 2000 (mean d - 1000): the sample deviation is
    // sqrt(4 * 1000^2 / 3).
    let want = (4.0f64 * 1000.0 * 1000.0 / 3.0).sqrt();
    let got = row["stddev_ns"].as_f64().unwrap_or_else(|| panic!("no stddev_ns in {text}"));
    assert!((got - want).abs() < 1e-6 * want, "stddev {got}, expected {want}: {text}");
}

/// A trace whose pids are not numbers put all 157 events of five kinds on the last-named track
/// (GPU0): they became kernel dispatches.
#[test]
fn a_v1_trace_whose_tracks_are_not_numbered_is_refused_not_read_as_kernels() {
    let dir = scratch("hostile-v1-pids");
    let fixture = std::fs::read_to_string(Path::new(FIXTURES).join("rocprof-v1/results.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&fixture).unwrap();
    let with_pids = |pid: &dyn Fn(&serde_json::Value) -> Option<serde_json::Value>| {
        let mut v = json.clone();
        for event in v["traceEvents"].as_array_mut().unwrap() {
            if let Some(p) = pid(event) {
                event["pid"] = p;
            }
        }
        v
    };
    let every = with_pids(&|e| e.get("pid").map(|_| serde_json::json!("x")));
    let file = dir.join("every.json");
    std::fs::write(&file, every.to_string()).unwrap();
    assert_import_refused(&file, &dir, &["every.json", ".pid", "\"x\""]);
    // Tracks that are numbers, events that are not.
    let events = with_pids(&|e| (e["ph"] == "X").then(|| serde_json::json!({"a": 1})));
    let file = dir.join("events.json");
    std::fs::write(&file, events.to_string()).unwrap();
    assert_import_refused(&file, &dir, &["events.json", ".pid"]);
    // Two names for one track: which kind its events are is not known.
    let twice = with_pids(&|e| (e["ph"] == "M").then(|| serde_json::json!(6)));
    let file = dir.join("twice.json");
    std::fs::write(&file, twice.to_string()).unwrap();
    assert_import_refused(&file, &dir, &["twice.json", "track 6 is named both"]);
}
