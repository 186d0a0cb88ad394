//! `rocprof-rs import` of every rocprofv3 CSV generation from ROCm 6.2 (issue 21): a real
//! MI300A kernel trace and agent_info.csv of ROCm 6.2.1, and hand-made directories in the
//! exact headers of 6.2, 6.3 and 6.4 (`tests/fixtures/rocprofv3-6.*`, provenance in
//! tests/fixtures/rocprofv3-6.x.md). `stats` must equal a count by hand of the raw rows.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{scratch, stderr};
use rocprof_rs_analysis::read::batches;
use rocprof_rs_format::Table;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn rocprof_rs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap()
}

fn import(test: &str, input: &Path) -> PathBuf {
    // Kept: the dataset outlives this helper.
    let out = scratch(test).keep().join("dataset");
    let output = rocprof_rs(&["import", "-o", out.to_str().unwrap(), input.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    out
}

/// The raw rows of the one file in `dir` whose name ends with `suffix`.
fn raw(dir: &Path, suffix: &str) -> Vec<BTreeMap<String, String>> {
    let path = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_str().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("no {suffix} in {}", dir.display()));
    let mut reader = csv::Reader::from_path(&path).unwrap();
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| header.iter().zip(r.unwrap().iter()).map(|(h, v)| (h.to_owned(), v.to_owned())).collect())
        .collect()
}

/// Calls and total ns per name, counted from raw rows.
fn by_hand(rows: &[BTreeMap<String, String>], name: &str) -> BTreeMap<String, (u64, u64)> {
    let mut out: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for row in rows {
        let ns = |c: &str| row[c].parse::<u64>().unwrap();
        let entry = out.entry(row[name].clone()).or_default();
        entry.0 += 1;
        entry.1 += ns("End_Timestamp") - ns("Start_Timestamp");
    }
    out
}

/// Calls and total ns per name of one `stats` section.
fn stats(dir: &Path, section: &str) -> BTreeMap<String, (u64, u64)> {
    let output = rocprof_rs(&["stats", dir.to_str().unwrap(), "--format", "json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rows = doc["sections"].as_array().unwrap().iter().find(|s| s["section"] == section).map(|s| s["rows"].clone());
    rows.unwrap_or_else(|| panic!("no {section} section"))
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (r["name"].as_str().unwrap().to_owned(), (r["calls"].as_u64().unwrap(), r["total_ns"].as_u64().unwrap()))
        })
        .collect()
}

/// (dispatch id, counter) → value, and the dispatch ids of kernel_dispatch.
fn counters_and_dispatches(dir: &Path) -> (BTreeMap<(u64, String), f64>, Vec<u64>) {
    let mut values = BTreeMap::new();
    batches(dir, Table::Counter, |b| {
        let (id, counter, value) = (b.col("dispatch_id")?, b.col("counter")?, b.col("value")?);
        for i in 0..b.rows() {
            values.insert((id.u64(i), counter.text(i).to_owned()), value.f64(i));
        }
        Ok(())
    })
    .unwrap();
    let mut ids = Vec::new();
    batches(dir, Table::KernelDispatch, |b| {
        let id = b.col("dispatch_id")?;
        ids.extend((0..b.rows()).map(|i| id.u64(i)));
        Ok(())
    })
    .unwrap();
    ids.sort_unstable();
    (values, ids)
}

/// ROCm 6.2.1 on an MI300A, as AMD's training material shows it: kernel stats by hand, and
/// agent_info.csv's agents with their logical node ids.
#[test]
fn a_real_rocm_6_2_mi300a_trace_imports_with_its_agents() {
    let input = fixture("rocprofv3-6.2-mi300a");
    let dir = import("v3-62-mi300a", &input);
    assert_eq!(stats(&dir, "kernel"), by_hand(&raw(&input, "kernel_trace.csv"), "Kernel_Name"));
    let mut agents = Vec::new();
    batches(&dir, Table::Agent, |b| {
        let (id, kind, name, cus) = (b.col("agent_id")?, b.col("agent_type")?, b.col("name")?, b.col("cu_count")?);
        for i in 0..b.rows() {
            agents.push((id.u64(i), kind.text(i).to_owned(), name.text(i).to_owned(), cus.u64(i)));
        }
        Ok(())
    })
    .unwrap();
    agents.sort();
    let expected: Vec<(u64, String, String, u64)> = raw(&input, "agent_info.csv")
        .iter()
        .map(|r| {
            let n = |c: &str| r[c].parse::<u64>().unwrap();
            (n("Logical_Node_Id"), r["Agent_Type"].clone(), r["Name"].clone(), n("Cu_Count"))
        })
        .collect();
    assert_eq!(agents, expected);
}

/// 6.2: no Dispatch_Id in the kernel trace, no timestamps or Kernel_Id in the counters, bare
/// agent ids, `Alloc_flags`. Counter rows join their dispatches on the correlation id.
#[test]
fn rocm_6_2_directories_import_and_their_stats_equal_a_count_by_hand() {
    let input = fixture("rocprofv3-6.2");
    let dir = import("v3-62", &input);
    assert_eq!(stats(&dir, "kernel"), by_hand(&raw(&input, "kernel_trace.csv"), "Kernel_Name"));
    assert_eq!(stats(&dir, "hip_api"), by_hand(&raw(&input, "hip_api_trace.csv"), "Function"));
    assert_eq!(stats(&dir, "memory_copy"), by_hand(&raw(&input, "memory_copy_trace.csv"), "Direction"));
    let (values, ids) = counters_and_dispatches(&dir);
    let kernels = raw(&input, "kernel_trace.csv");
    assert_eq!(ids.len(), kernels.len(), "counter rows made no dispatches of their own");
    for row in raw(&input, "counter_collection.csv") {
        let correlation: u64 = row["Correlation_Id"].parse().unwrap();
        assert!(ids.contains(&correlation));
        assert_eq!(values[&(correlation, row["Counter_Name"].clone())], row["Counter_Value"].parse::<f64>().unwrap());
    }
}

/// A 6.2 counter collection alone: its dispatches come without times, and stats still counts
/// their calls.
#[test]
fn rocm_6_2_counters_alone_give_dispatches_without_times() {
    let folder = scratch("v3-62-counters");
    let input = folder.join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(fixture("rocprofv3-6.2/4242_counter_collection.csv"), input.join("4242_counter_collection.csv"))
        .unwrap();
    let dir = import("v3-62-counters-out", &input);
    let (values, ids) = counters_and_dispatches(&dir);
    assert_eq!(ids, vec![1, 2, 3], "one dispatch per Dispatch_Id");
    assert_eq!(values.len(), 6);
    let kernel = stats(&dir, "kernel");
    assert_eq!(kernel["matrixTranspose(float*, float*, int)"], (2, 0));
}

/// 6.3: the first memory allocation file (`memory_allocation.csv`, decimal addresses), and
/// counters with Kernel_Id and timestamps but no Accum_VGPR_Count.
#[test]
fn rocm_6_3_directories_import_and_their_stats_equal_a_count_by_hand() {
    let input = fixture("rocprofv3-6.3");
    let dir = import("v3-63", &input);
    assert_eq!(stats(&dir, "kernel"), by_hand(&raw(&input, "kernel_trace.csv"), "Kernel_Name"));
    let mut addresses = Vec::new();
    batches(&dir, Table::MemoryAllocation, |b| {
        let address = b.col("address")?;
        addresses.extend((0..b.rows()).map(|i| address.u64(i)));
        Ok(())
    })
    .unwrap();
    assert_eq!(addresses, vec![0x8000_0000_0000, 0x8000_0000_0000]);
    let (values, _) = counters_and_dispatches(&dir);
    assert_eq!(values[&(2, "SQ_WAVES".to_owned())], 1_562_500.0);
}

/// 6.4: `memory_allocation_trace.csv` with hex addresses, `Alloc_Flags`, Accum_VGPR_Count.
#[test]
fn rocm_6_4_directories_import_and_their_stats_equal_a_count_by_hand() {
    let input = fixture("rocprofv3-6.4");
    let dir = import("v3-64", &input);
    assert_eq!(stats(&dir, "kernel"), by_hand(&raw(&input, "kernel_trace.csv"), "Kernel_Name"));
    let mut flags = Vec::new();
    batches(&dir, Table::ScratchMemory, |b| {
        let f = b.col("flags")?;
        flags.extend((0..b.rows()).map(|i| f.u64(i)));
        Ok(())
    })
    .unwrap();
    assert_eq!(flags, vec![1, 1]);
    let (values, ids) = counters_and_dispatches(&dir);
    assert_eq!(ids, vec![1, 2, 3, 4]);
    assert_eq!(values.len(), 3);
}
