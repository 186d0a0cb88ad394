//! `rocprof-rs import` of rocprof-compute workloads (issue 21): real MI300X, MI200 and MI350
//! folders (`tests/fixtures/rocprof-compute`, provenance in its README), each checked against
//! numbers computed here from the files' raw columns.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{scratch, stderr};
use rocprof_rs_analysis::read::batches;
use rocprof_rs_format::Table;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rocprof-compute").join(name)
}

fn rocprof_rs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap()
}

/// Imports `inputs` into a fresh folder named after `test`; the folder and the report.
fn import(test: &str, inputs: &[&Path]) -> (PathBuf, serde_json::Value) {
    // Kept: the dataset outlives this helper.
    let out = scratch(test).keep().join("dataset");
    let mut args = vec!["import", "--format", "json", "-o", out.to_str().unwrap()];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    let output = rocprof_rs(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    (out, serde_json::from_slice(&output.stdout).unwrap())
}

/// The raw rows of a CSV file, by column name.
fn raw(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| header.iter().zip(r.unwrap().iter()).map(|(h, v)| (h.to_owned(), v.to_owned())).collect())
        .collect()
}

/// Dispatches as imported: (dispatch id, kernel, start, end, agent).
fn dispatches(dir: &Path) -> Vec<(u64, String, i64, i64, u64)> {
    let mut out = Vec::new();
    batches(dir, Table::KernelDispatch, |b| {
        let (id, name, start, end, agent) =
            (b.col("dispatch_id")?, b.col("kernel_name")?, b.col("start_ns")?, b.col("end_ns")?, b.col("agent_id")?);
        for i in 0..b.rows() {
            out.push((id.u64(i), name.text(i).to_owned(), start.i64(i), end.i64(i), agent.u64(i)));
        }
        Ok(())
    })
    .unwrap();
    out.sort();
    out
}

/// Counter values as imported, summed over instances: (dispatch id, counter) → value.
fn counters(dir: &Path) -> BTreeMap<(u64, String), f64> {
    let mut out = BTreeMap::new();
    batches(dir, Table::Counter, |b| {
        let (id, counter, value) = (b.col("dispatch_id")?, b.col("counter")?, b.col("value")?);
        for i in 0..b.rows() {
            *out.entry((id.u64(i), counter.text(i).to_owned())).or_insert(0.0) += value.f64(i);
        }
        Ok(())
    })
    .unwrap();
    out
}

fn number(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row[column].parse().unwrap_or_else(|_| panic!("{column}: {:?}", row[column]))
}

/// HBM bytes of one gfx942 dispatch, as AMD's roofline counts them: 128-byte reads
/// (TCC_BUBBLE), 32-byte reads, 64-byte reads, 32- and 64-byte writes.
fn gfx942_hbm_bytes(c: &dyn Fn(&str) -> f64) -> f64 {
    let (bubble, rd32, rd) = (c("TCC_BUBBLE_sum"), c("TCC_EA0_RDREQ_32B_sum"), c("TCC_EA0_RDREQ_sum"));
    let (wr, wr64) = (c("TCC_EA0_WRREQ_sum"), c("TCC_EA0_WRREQ_64B_sum"));
    128.0 * bubble + 32.0 * rd32 + 64.0 * (rd - bubble - rd32) + 32.0 * (wr - wr64) + 64.0 * wr64
}

fn analyze_json(dir: &Path) -> serde_json::Value {
    let output = rocprof_rs(&["analyze", dir.to_str().unwrap(), "--format", "json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The acceptance case: the rocpd-backed MI300X workload imports, `analyze` finds the MI300X
/// from sysinfo.csv, and its HBM bytes per dispatch are the hand computation's.
#[test]
fn an_mi300x_workload_gives_the_hbm_bytes_of_its_raw_columns() {
    let folder = fixture("vcopy-MI300X_A1_rocpd");
    let (dir, report) = import("rpc-mi300x-long", &[&folder]);
    assert_eq!(report["inputs"][0]["format"], "rocprof-compute workload");

    let rows = raw(&folder.join("pmc_perf.csv"));
    let mut by_dispatch: BTreeMap<u64, BTreeMap<String, f64>> = BTreeMap::new();
    for row in &rows {
        let id = number(row, "Dispatch_ID") as u64;
        by_dispatch.entry(id).or_default().insert(row["Counter_Name"].clone(), number(row, "Counter_Value"));
    }
    assert_eq!(by_dispatch.len(), 3);
    let per_dispatch: Vec<f64> = by_dispatch.values().map(|c| gfx942_hbm_bytes(&|n: &str| c[n])).collect();
    // Each dispatch reads 8 MiB and writes 8 MiB, plus a few hundred stray 64-byte reads.
    for bytes in &per_dispatch {
        assert!((16_777_216.0..16_900_000.0).contains(bytes), "{bytes}");
    }
    let expected = per_dispatch.iter().sum::<f64>() / per_dispatch.len() as f64;

    let imported = dispatches(&dir);
    assert_eq!(imported.len(), 3);
    // A dispatch takes the timestamps of its first row (the first pass that counted it).
    for (id, _, start, end, agent) in &imported {
        let first = rows.iter().find(|r| number(r, "Dispatch_ID") as u64 == *id).unwrap();
        let ns = |c: &str| first[c].parse::<i64>().unwrap();
        assert_eq!((*start, *end), (ns("Start_Timestamp"), ns("End_Timestamp")));
        assert_eq!(*agent, number(first, "GPU_ID") as u64);
    }
    let imported_counters = counters(&dir);
    let raw_keys: std::collections::BTreeSet<(u64, String)> = rows
        .iter()
        .map(|r| (number(r, "Dispatch_ID") as u64, r["Counter_Name"].split('[').next().unwrap().to_owned()))
        .collect();
    assert_eq!(imported_counters.keys().cloned().collect::<std::collections::BTreeSet<_>>(), raw_keys);
    assert_eq!(imported_counters[&(1, "TCC_BUBBLE_sum".to_owned())], by_dispatch[&1]["TCC_BUBBLE_sum"]);

    let analysis = analyze_json(&dir);
    assert_eq!(analysis["devices"][0]["gpu"], "mi300x", "the GPU comes from sysinfo.csv");
    let kernel = &analysis["kernels"][0];
    let dram = kernel["work"]["bytes"]["dram"].as_f64().unwrap();
    assert!((dram - expected).abs() <= 1e-9 * expected, "analyze {dram}, by hand {expected}");
    // L2 carries at least what HBM does for a streaming copy (reads are 128 B on gfx942).
    let l2 = kernel["work"]["bytes"]["l2"].as_f64().unwrap();
    assert!(l2 >= 16_777_216.0, "L2 {l2} below the 16 MiB the copy moves");

    // HBM binds it: zero FLOPs measured, the bytes over the dispatches' own times (first
    // counted pass) against the MI300X's 5.3 TB/s, the MEMORY finding. At that share it is
    // near no roof, so its class is LATENCY.
    let seconds: f64 = imported.iter().map(|d| (d.3 - d.2) as f64).sum::<f64>() / imported.len() as f64 / 1e9;
    let share = expected / seconds / 5.3e12;
    assert!(share > 0.2 && share < 0.6, "{share}");
    assert_eq!(kernel["diagnosis"]["class"], "LATENCY", "{}", kernel["diagnosis"]);
    let memory = kernel["diagnosis"]["also"].as_array().unwrap().iter().find(|f| f["class"] == "MEMORY").cloned();
    let evidence = memory.expect("the HBM roof's finding").to_string();
    assert!(evidence.contains("zero FLOPs") && evidence.contains(&format!("{:.0}%", 100.0 * share)), "{evidence}");
}

/// The ROCm 6.2 MI300X workload: wide, per-instance columns, single-pass files, and every
/// timestamp rounded by a spreadsheet.
#[test]
fn a_wide_workload_keeps_instances_joins_its_passes_and_says_its_times_are_lost() {
    let folder = fixture("vcopy-MI300X_A1");
    let (dir, report) = import("rpc-mi300x-wide", &[&folder]);
    let notes = report["inputs"][0]["notes"].to_string();
    assert!(notes.contains("exponent form") && notes.contains("8.1097E+14"), "{notes}");

    let rows = raw(&folder.join("pmc_perf.csv"));
    let imported = dispatches(&dir);
    let ids: Vec<u64> = rows.iter().map(|r| number(r, "Dispatch_ID") as u64).collect();
    assert_eq!(imported.iter().map(|d| d.0).collect::<Vec<_>>(), ids);
    assert!(imported.iter().all(|d| d.2 == 0 && d.3 == 0), "no made-up times: {imported:?}");

    let values = counters(&dir);
    for (row, id) in rows.iter().zip(&ids) {
        // The instances of TCC_HIT add up to the file's own TCC_HIT_sum.
        let instances: f64 =
            row.iter().filter(|(c, _)| c.starts_with("TCC_HIT[")).map(|(_, v)| v.parse::<f64>().unwrap()).sum();
        assert_eq!(values[&(*id, "TCC_HIT".to_owned())], instances);
        assert_eq!(values[&(*id, "TCC_HIT_sum".to_owned())], number(row, "TCC_HIT_sum"));
        // A merge's repeated property columns are not counters.
        assert!(!values.contains_key(&(*id, "Wave_Size_1".to_owned())));
    }
    // Each level pass's counter and its accumulation, joined by order and named as
    // rocprof-compute names them.
    for level in ["SQ_LEVEL_WAVES", "SQ_IFETCH_LEVEL", "SQ_INST_LEVEL_LDS", "SQ_INST_LEVEL_SMEM", "SQ_INST_LEVEL_VMEM"]
    {
        let pass = raw(&folder.join(format!("{level}.csv")));
        for (row, id) in pass.iter().zip(&ids) {
            assert_eq!(values[&(*id, level.to_owned())], number(row, level), "{level}");
            assert_eq!(values[&(*id, format!("{level}_ACCUM"))], number(row, "SQ_ACCUM_PREV_HIRES"), "{level}");
        }
    }
    assert!(!values.keys().any(|(_, c)| c == "SQ_ACCUM_PREV_HIRES"), "each pass's accumulation is named for its level");

    // Without times, analyze takes the GPU time from GRBM_GUI_ACTIVE over sysinfo's XCDs and
    // clock, and says so.
    let sysinfo = &raw(&folder.join("sysinfo.csv"))[0];
    let cycles = rows.iter().map(|r| number(r, "GRBM_GUI_ACTIVE")).sum::<f64>() / rows.len() as f64;
    let expected_ns = cycles / number(sysinfo, "num_xcd") / number(sysinfo, "max_sclk") * 1e3;
    let kernel = &analyze_json(&dir)["kernels"][0];
    let mean_ns = kernel["mean_ns"].as_f64().unwrap();
    assert!((mean_ns - expected_ns).abs() < 1e-6 * expected_ns, "{mean_ns} vs {expected_ns}");
    let how = kernel["time_source"].as_str().unwrap();
    assert!(how.contains("GRBM_GUI_ACTIVE") && how.contains("8 XCDs at 2100 MHz"), "{how}");
    assert!(kernel["diagnosis"]["evidence"].to_string().contains("GRBM_GUI_ACTIVE"));
}

/// rocprof v1 under rocprof-compute on gfx90a: `[clone .kd]` names, exact times in the file.
#[test]
fn an_mi200_workload_keeps_its_exact_times() {
    let folder = fixture("vcopy-MI200");
    let (dir, _) = import("rpc-mi200", &[&folder]);
    let rows = raw(&folder.join("pmc_perf.csv"));
    let imported = dispatches(&dir);
    assert_eq!(imported.len(), rows.len());
    for (row, d) in rows.iter().zip(&imported) {
        assert_eq!(d.1, row["Kernel_Name"]);
        assert_eq!((d.2, d.3), (row["Start_Timestamp"].parse().unwrap(), row["End_Timestamp"].parse().unwrap()));
    }
    let analysis = analyze_json(&dir);
    assert_eq!(analysis["kernels"][0]["calls"], 3);
    let stats = rocprof_rs(&["stats", dir.to_str().unwrap(), "--format", "json"]);
    assert!(stats.status.success(), "{}", stderr(&stats));
}

/// Any one file of a workload imports; the sysinfo.csv beside it names the GPU.
#[test]
fn a_single_file_imports_with_the_agent_beside_it() {
    let folder = fixture("vcopy-MI350");
    let (dir, report) = import("rpc-mi350-file", &[&folder.join("pmc_perf.csv")]);
    assert!(report["inputs"][0]["notes"].to_string().contains("sysinfo.csv"), "{report}");
    let rows = raw(&folder.join("pmc_perf.csv"));
    let imported = dispatches(&dir);
    for (row, d) in rows.iter().zip(&imported) {
        // 3.x writes fractional nanoseconds; the nearest is kept.
        assert_eq!(d.2, number(row, "Start_Timestamp").round() as i64);
    }
    let mut agents = Vec::new();
    batches(&dir, Table::Agent, |b| {
        let (name, cus, xcc) = (b.col("name")?, b.col("cu_count")?, b.col("num_xcc")?);
        for i in 0..b.rows() {
            agents.push((name.text(i).to_owned(), cus.u64(i), xcc.u64(i)));
        }
        Ok(())
    })
    .unwrap();
    let sysinfo = &raw(&folder.join("sysinfo.csv"))[0];
    assert_eq!(agents, vec![(sysinfo["gpu_arch"].clone(), number(sysinfo, "cu_per_gpu") as u64, 8)]);
}

/// A timestamps.csv whose kernels do not match pmc_perf.csv's is not joined, and says so.
#[test]
fn mismatched_passes_are_left_out_with_a_note() {
    let folder = scratch("rpc-mismatch");
    let dir = folder.join("workload");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("pmc_perf.csv"),
        "Dispatch_ID,GPU_ID,Grid_Size,Workgroup_Size,Kernel_Name,SQ_WAVES\n0,2,64,64,\"a(int)\",1\n1,2,64,64,\"b(int)\",2\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("timestamps.csv"),
        "Dispatch_ID,GPU_ID,Kernel_Name,Start_Timestamp,End_Timestamp\n0,2,\"b(int)\",100,200\n1,2,\"a(int)\",300,400\n",
    )
    .unwrap();
    let (out, report) = import("rpc-mismatch-out", &[&dir]);
    assert!(report["inputs"][0]["notes"].to_string().contains("do not match"), "{report}");
    assert!(dispatches(&out).iter().all(|d| d.2 == 0 && d.3 == 0));
}

/// A value that is not a number names its file, line and column, and nothing is written.
#[test]
fn a_bad_value_names_its_place() {
    let root = scratch("rpc-bad");
    let dir = root.join("workload");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("pmc_perf.csv"), "Dispatch_ID,GPU_ID,Kernel_Name,Grid_Size\n0,2,\"k\",12x\n").unwrap();
    let out = root.join("dataset");
    let output = rocprof_rs(&["import", "-o", out.to_str().unwrap(), dir.to_str().unwrap()]);
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(message.contains("pmc_perf.csv:2: column Grid_Size"), "{message}");
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().next().is_none());
}

/// The MI200 workload ships rocprof-compute's measured roofs (`roofline.csv`: HBM 1.39 TB/s of
/// the MI210's 1.64 on paper). `analyze` judges the copy against them: at 62% of the measured
/// HBM roof it is MEMORY, where against the paper's 52% it would be near no roof, and a note
/// gives each measured roof with the datasheet's beside it.
#[test]
fn the_mi200_copy_is_memory_bound_against_its_measured_hbm_roof() {
    let (dir, _) = import("rpc-mi200-roofs", &[&fixture("vcopy-MI200")]);
    let analysis = analyze_json(&dir);
    let kernel = &analysis["kernels"][0];
    assert_eq!(kernel["diagnosis"]["class"], "MEMORY", "{}", kernel["diagnosis"]);
    let efficiency = kernel["zero_flops"]["efficiency"].as_f64().unwrap();
    let measured = kernel["zero_flops"]["bandwidth_tbps"].as_f64().unwrap();
    assert!((measured - 1.3890227).abs() < 1e-6, "GPU 2's measured HBM, {measured}");
    assert!(efficiency >= 0.6, "{efficiency} of the measured roof");
    let achieved = kernel["zero_flops"]["achieved_tbps"].as_f64().unwrap();
    assert!(achieved / 1.6384 < 0.6, "against the paper's 1.64 TB/s it would be under 60%");
    let notes = analysis["notes"].to_string();
    assert!(notes.contains("judged against the roofs measured by rocprof-compute's roofline benchmark (roofline.csv), not the datasheet's: dram 1.39 TB/s (datasheet 1.64)"), "{notes}");
}
