//! `analyze` and `stats` on real counters (issue 21): rocprofiler-compute's vcopy workloads on
//! MI200 (gfx90a), MI300X (gfx942) and MI350 (gfx950), excerpts in
//! `tests/fixtures/analysis-real` (provenance in its README). Each test writes the real rows out
//! as a rocprofv3 CSV directory, imports it and holds the report against numbers computed here
//! from the raw columns.

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{scratch, stderr};

fn rocprof_rs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap()
}

fn fixture(workload: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/analysis-real").join(workload).join("pmc_perf.csv")
}

/// One dispatch as a workload's pmc_perf.csv gives it.
#[derive(Debug, Clone)]
struct Dispatch {
    id: u64,
    agent: u64,
    kernel: String,
    facts: BTreeMap<String, String>,
    /// Start and end, ns, where the file kept them.
    span: Option<(u64, u64)>,
    counters: BTreeMap<String, f64>,
}

impl Dispatch {
    fn c(&self, name: &str) -> f64 {
        *self.counters.get(name).unwrap_or_else(|| panic!("dispatch {}: no {name}", self.id))
    }

    fn ns(&self) -> f64 {
        let (start, end) = self.span.expect("a timed dispatch");
        (end - start) as f64
    }
}

const FACTS: [&str; 7] =
    ["Grid_Size", "Workgroup_Size", "LDS_Per_Workgroup", "Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR"];

fn rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| header.iter().zip(r.unwrap().iter()).map(|(h, v)| (h.to_owned(), v.to_owned())).collect())
        .collect()
}

/// A timestamp as the file wrote it: whole or fractional ns (rounded), or lost to a
/// spreadsheet's exponent form (`8.1097E+14`).
fn timestamp(text: &str) -> Option<u64> {
    if text.contains(['E', 'e']) {
        return None;
    }
    text.parse::<f64>().ok().map(|t| t.round() as u64)
}

fn dispatch_of(row: &BTreeMap<String, String>) -> Dispatch {
    let span = match (row.get("Start_Timestamp"), row.get("End_Timestamp")) {
        (Some(s), Some(e)) => timestamp(s).zip(timestamp(e)),
        _ => None,
    };
    Dispatch {
        id: row["Dispatch_ID"].parse().unwrap(),
        agent: row["GPU_ID"].parse().unwrap(),
        kernel: row["Kernel_Name"].clone(),
        facts: FACTS.iter().map(|f| ((*f).to_owned(), row[*f].clone())).collect(),
        span,
        counters: BTreeMap::new(),
    }
}

/// The dispatches of a wide pmc_perf.csv: one row each, a column per counter.
fn wide(workload: &str) -> Vec<Dispatch> {
    rows(&fixture(workload))
        .iter()
        .map(|row| {
            let mut d = dispatch_of(row);
            for (column, value) in row {
                if column.starts_with("SQ_") || column.starts_with("TC") {
                    d.counters.insert(column.clone(), value.parse().unwrap());
                }
            }
            d
        })
        .collect()
}

/// The dispatches of a long pmc_perf.csv: a row per counter, each with its own pass's
/// timestamps; a dispatch is given its first row's.
fn long(workload: &str) -> Vec<Dispatch> {
    let mut out: BTreeMap<u64, Dispatch> = BTreeMap::new();
    for row in rows(&fixture(workload)) {
        let d = out.entry(row["Dispatch_ID"].parse().unwrap()).or_insert_with(|| dispatch_of(&row));
        d.counters.insert(row["Counter_Name"].clone(), row["Counter_Value"].parse().unwrap());
    }
    out.into_values().collect()
}

/// Writes `dispatches` as a rocprofv3 counter_collection.csv in `dir`: ROCm 7's 19 columns with
/// each dispatch's timestamps where every dispatch has them, ROCm 6.2's 15 (no timestamps)
/// otherwise. The queue, process and thread are not in pmc_perf.csv: 1, 1000 and 1000.
fn write_counters(dir: &Path, dispatches: &[Dispatch]) {
    std::fs::create_dir_all(dir).unwrap();
    let timed = dispatches.iter().all(|d| d.span.is_some());
    let mut text = String::from(
        "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\",\"Grid_Size\",",
    );
    text.push_str(if timed { "\"Kernel_Id\",\"Kernel_Name\"," } else { "\"Kernel_Name\"," });
    text.push_str("\"Workgroup_Size\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",");
    text.push_str(if timed { "\"Accum_VGPR_Count\",\"SGPR_Count\"," } else { "\"SGPR_Count\"," });
    text.push_str("\"Counter_Name\",\"Counter_Value\"");
    text.push_str(if timed { ",\"Start_Timestamp\",\"End_Timestamp\"\n" } else { "\n" });
    for d in dispatches {
        let f = |name: &str| d.facts[name].as_str();
        for (counter, value) in &d.counters {
            let _ = write!(text, "{},{},{},1,1000,1000,{},", d.id + 1, d.id + 1, d.agent, f("Grid_Size"));
            if timed {
                let _ = write!(text, "1,");
            }
            let _ = write!(
                text,
                "\"{}\",{},{},{},{},",
                d.kernel,
                f("Workgroup_Size"),
                f("LDS_Per_Workgroup"),
                f("Scratch_Per_Workitem"),
                f("Arch_VGPR")
            );
            if timed {
                let _ = write!(text, "{},", f("Accum_VGPR"));
            }
            let _ = write!(text, "{},\"{counter}\",{value}", f("SGPR"));
            match d.span {
                Some((start, end)) if timed => {
                    let _ = writeln!(text, ",{start},{end}");
                }
                _ => text.push('\n'),
            }
        }
    }
    std::fs::write(dir.join("1000_counter_collection.csv"), text).unwrap();
}

/// The real rows written out and imported: the dataset's folder.
fn dataset(test: &str, dispatches: &[Dispatch]) -> PathBuf {
    // Kept: the dataset outlives this helper.
    let root = scratch(test).keep();
    let csv = root.join("rocprofv3");
    write_counters(&csv, dispatches);
    let out = root.join("dataset");
    let output = rocprof_rs(&["import", csv.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    out
}

fn analyze(dir: &Path, more: &[&str]) -> serde_json::Value {
    let mut args = vec!["analyze", dir.to_str().unwrap(), "--format", "json"];
    args.extend(more);
    let output = rocprof_rs(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn only_kernel(report: &serde_json::Value) -> &serde_json::Value {
    let kernels = report["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 1, "{report:#}");
    &kernels[0]
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let values: Vec<f64> = values.collect();
    values.iter().sum::<f64>() / values.len() as f64
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// HBM bytes of a dispatch as rocprofiler-compute's roofline counts them: gfx94x on splits the
/// 128-byte reads out (TCC_BUBBLE); gfx90a's reads are 32 or 64 bytes.
fn hbm_bytes(d: &Dispatch) -> f64 {
    let writes = |wr: f64, wr64: f64| 32.0 * (wr - wr64) + 64.0 * wr64;
    if d.counters.contains_key("TCC_BUBBLE_sum") {
        let (bubble, rd32, rd) = (d.c("TCC_BUBBLE_sum"), d.c("TCC_EA0_RDREQ_32B_sum"), d.c("TCC_EA0_RDREQ_sum"));
        128.0 * bubble
            + 32.0 * rd32
            + 64.0 * (rd - bubble - rd32)
            + writes(d.c("TCC_EA0_WRREQ_sum"), d.c("TCC_EA0_WRREQ_64B_sum"))
    } else {
        let (rd32, rd) = (d.c("TCC_EA_RDREQ_32B_sum"), d.c("TCC_EA_RDREQ_sum"));
        32.0 * rd32 + 64.0 * (rd - rd32) + writes(d.c("TCC_EA_WRREQ_sum"), d.c("TCC_EA_WRREQ_64B_sum"))
    }
}

/// vcopy -n 1048576 copies 1,048,576 doubles: each dispatch reads 8 MiB and writes 8 MiB
/// through the vector L1.
const COPY_BYTES: f64 = 2.0 * 1_048_576.0 * 8.0;

/// Every FLOP counter of the roofline is collected, and every one is zero.
fn assert_no_flops(dispatches: &[Dispatch]) {
    for d in dispatches {
        let flops: Vec<(&String, &f64)> =
            d.counters.iter().filter(|(name, _)| name.starts_with("SQ_INSTS_VALU_")).collect();
        assert!(flops.len() >= 17, "dispatch {}: {flops:?}", d.id);
        assert!(flops.iter().all(|(_, v)| **v == 0.0), "dispatch {}: {flops:?}", d.id);
    }
}

/// MI300X: a copy with every FLOP counter at zero moves about 16.8 MB per dispatch in under
/// 10 µs, about a third of the 5.3 TB/s HBM roof. Intensity 0 puts it under the memory roof,
/// which binds it (a MEMORY finding), but at a third of it the copy is near no roof: LATENCY,
/// as Nsight Compute's Speed of Light rule says under 60% of every peak. Its GPU idles between
/// dispatches, but in a run that counted them, which serializes dispatches: its launches are
/// not judged, so not LAUNCH.
#[test]
fn a_short_copy_with_zero_flops_far_under_the_hbm_roof_waits_on_latency() {
    let dispatches = long("vcopy-MI300X_A1_rocpd");
    assert_eq!(dispatches.len(), 3);
    assert_no_flops(&dispatches);
    let bytes = mean(dispatches.iter().map(hbm_bytes));
    let ns = mean(dispatches.iter().map(Dispatch::ns));
    let share = bytes / ns / 5.3e3;
    assert!(ns < 10_000.0 && share >= 0.2, "the case: short, and at {share} of the HBM roof");

    let report = analyze(&dataset("real-zero-flops-mi300x", &dispatches), &["--gpu", "mi300x"]);
    let k = only_kernel(&report);
    assert!(close(k["work"]["bytes"]["dram"].as_f64().unwrap(), bytes));
    assert_eq!(k["diagnosis"]["class"], "LATENCY", "{:#}", k["diagnosis"]);
    assert_eq!(k["zero_flops"]["level"], "dram");
    let efficiency = k["zero_flops"]["efficiency"].as_f64().unwrap();
    assert!((efficiency - share).abs() < 1e-9, "{efficiency} against {share} by hand");
    let evidence = k["diagnosis"]["evidence"].to_string();
    assert!(evidence.contains("under 60% of every roof") && evidence.contains("no PC samples"), "{evidence}");
    let also = k["diagnosis"]["also"].as_array().unwrap();
    let memory = also.iter().find(|f| f["class"] == "MEMORY").expect("the roof that binds, beside");
    assert!(memory["evidence"].to_string().contains("zero"), "{memory:#}");
    assert!(also.iter().all(|f| f["class"] != "LAUNCH"), "{:#}", k["diagnosis"]);
}

/// MI200 (an MI210, 1.64 TB/s on paper): the same copy at about half the HBM roof, its queue
/// idle between dispatches (rocprof-compute replays each pass, so launches are not judged):
/// against the paper roof it is near none, LATENCY, with MEMORY beside.
#[test]
fn an_idle_queue_does_not_make_a_replayed_copy_launch_bound() {
    let dispatches = wide("vcopy-MI200");
    assert_no_flops(&dispatches);
    let bytes = mean(dispatches.iter().map(hbm_bytes));
    let share = bytes / mean(dispatches.iter().map(Dispatch::ns)) / 1.6384e3;
    assert!(share >= 0.2, "{share}");
    let report = analyze(&dataset("real-zero-flops-mi200", &dispatches), &["--gpu", "mi210"]);
    let k = only_kernel(&report);
    assert_eq!(k["diagnosis"]["class"], "LATENCY", "{:#}", k["diagnosis"]);
    assert!(k["diagnosis"]["also"].as_array().unwrap().iter().any(|f| f["class"] == "MEMORY"));
    assert!((k["zero_flops"]["efficiency"].as_f64().unwrap() - share).abs() < 1e-9);
}

/// The L2 bytes of the copy on three architectures: each read request carries an L1 line (64 B
/// on gfx90a, 128 B on gfx942 and gfx950), each write 64 B, so the L2 sees the copy's own
/// 16 MiB, and never less than HBM save the few hundred 64-byte reads of other L2 clients
/// (scalar and instruction fetches) that HBM also counts.
#[test]
fn l2_bytes_are_the_copys_own_traffic_on_gfx90a_gfx942_and_gfx950() {
    for (workload, gpu, read_bytes, dispatches) in [
        ("mi200", "mi210", 64.0, wide("vcopy-MI200")),
        ("mi300x", "mi300x", 128.0, long("vcopy-MI300X_A1_rocpd")),
        ("mi350", "mi350x", 128.0, wide("vcopy-MI350")),
    ] {
        let by_hand = |d: &Dispatch| {
            read_bytes * d.c("TCP_TCC_READ_REQ_sum")
                + 64.0
                    * (d.c("TCP_TCC_WRITE_REQ_sum")
                        + d.c("TCP_TCC_ATOMIC_WITH_RET_REQ_sum")
                        + d.c("TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum"))
        };
        for d in &dispatches {
            assert_eq!(by_hand(d), COPY_BYTES, "{workload} dispatch {}", d.id);
        }
        let report = analyze(&dataset(&format!("real-l2-{workload}"), &dispatches), &["--gpu", gpu]);
        let bytes = &only_kernel(&report)["work"]["bytes"];
        let l2 = bytes["l2"].as_f64().unwrap();
        assert!(close(l2, COPY_BYTES), "{workload}: L2 {l2}, by hand {COPY_BYTES}");
        if workload == "mi350" {
            // gfx950's 128-byte reads are TCC_EA0_RDREQ_128B, which this workload did not collect
            // (its TCC_BUBBLE is 0): the DRAM bytes are missing, not undercounted.
            assert!(bytes["dram"].is_null(), "{workload}: {bytes}");
            let missing = only_kernel(&report)["work"]["missing"].to_string();
            assert!(missing.contains("TCC_EA0_RDREQ_128B"), "{missing}");
            continue;
        }
        let dram = bytes["dram"].as_f64().unwrap();
        assert!(close(dram, mean(dispatches.iter().map(hbm_bytes))), "{workload}: DRAM {dram}");
        assert!(l2 >= 0.999 * dram, "{workload}: L2 {l2} below HBM {dram}");
    }
}

fn evidence(k: &serde_json::Value) -> String {
    k["diagnosis"]["evidence"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect::<Vec<_>>().join("; ")
}

/// MI300X under ROCm 6.2: the counters came through, every timestamp was lost. UNKNOWN says that
/// it lacks the dispatch time (not that it lacks counters), and without --gpu which agent no
/// device matched.
#[test]
fn unknown_says_the_time_is_missing_not_the_counters() {
    let dispatches = wide("vcopy-MI300X_A1");
    assert!(dispatches.iter().all(|d| d.span.is_none()), "the timestamps were lost in the file");
    let dir = dataset("real-unknown-untimed", &dispatches);
    let k = only_kernel(&analyze(&dir, &["--gpu", "mi300x"])).clone();
    assert_eq!(k["diagnosis"]["class"], "UNKNOWN");
    let said = evidence(&k);
    assert!(said.contains("no dispatch time") && said.contains("--timings"), "{said}");
    assert!(!said.contains("no counters"), "{said}");

    let k = only_kernel(&analyze(&dir, &[])).clone();
    let said = evidence(&k);
    let agent = dispatches[0].agent;
    assert!(said.contains("no device") && said.contains(&format!("agent {agent}")), "{said}");
    assert!(said.contains("--gpu"), "{said}");
}

/// MI200, one dispatch of 20 µs with only its L2 hit and miss counters: counters are there, but
/// none the roofline needs, and UNKNOWN lists what is missing.
#[test]
fn unknown_lists_the_counters_the_roofline_lacks() {
    let mut first = wide("vcopy-MI200").swap_remove(0);
    first.counters.retain(|name, _| name.starts_with("TCC_HIT") || name.starts_with("TCC_MISS"));
    assert_eq!(first.counters.len(), 2);
    let k = only_kernel(&analyze(&dataset("real-unknown-counters", &[first]), &["--gpu", "mi210"])).clone();
    assert_eq!(k["diagnosis"]["class"], "UNKNOWN");
    let said = evidence(&k);
    assert!(said.contains("2 counters"), "{said}");
    for family in ["fp64 VALU FLOPs", "fp16 MFMA FLOPs", "DRAM bytes", "L2 bytes"] {
        assert!(said.contains(family), "{family}: {said}");
    }
    assert!(!said.contains("no counters"), "{said}");
}

/// `analyze --timings`: MI300X counters without timestamps, named `vecCopy(...) (.kd)`, take the
/// times of the rocpd run of the same workload under every spelling of the kernel's name.
#[test]
fn timings_join_every_spelling_of_a_kernel() {
    let counters = dataset("real-timings-counters", &wide("vcopy-MI300X_A1"));
    let timed = long("vcopy-MI300X_A1_rocpd");
    let ns = mean(timed.iter().map(Dispatch::ns));
    let signature = "vecCopy(double*, double*, double*, int, int)";
    for (i, spelling) in [
        format!("{signature} [clone .kd]"),
        format!("{signature} (.kd)"),
        signature.to_owned(),
        "vecCopy".to_owned(),
        "_Z7vecCopyPdS_S_ii".to_owned(),
    ]
    .iter()
    .enumerate()
    {
        let renamed: Vec<Dispatch> = timed.iter().map(|d| Dispatch { kernel: spelling.clone(), ..d.clone() }).collect();
        let timings = dataset(&format!("real-timings-{i}"), &renamed);
        let report = analyze(&counters, &["--gpu", "mi300x", "--timings", timings.to_str().unwrap()]);
        let k = only_kernel(&report);
        assert_eq!(k["calls"], 3, "{spelling}");
        assert!(close(k["mean_ns"].as_f64().unwrap(), ns), "{spelling}: {} against {ns}", k["mean_ns"]);
        assert_eq!(report["timings"]["matched"], 1, "{spelling}: {:#}", report["timings"]);
        assert_eq!(report["timings"]["kernels"], 1);
        assert!(report["timings"]["unmatched"].as_array().unwrap().is_empty());
        let notes = report["notes"].to_string();
        assert!(notes.contains("dispatch times of 1 of 1 kernels"), "{notes}");
    }
}

/// Two signatures with one base name in the timings: a counter kernel named by the base name
/// alone is not merged with either, and the report says why; the full signatures still match.
#[test]
fn timings_do_not_merge_an_ambiguous_base_name() {
    let timed = long("vcopy-MI300X_A1_rocpd");
    let float = "vecCopy(float*, float*, float*, int, int)";
    let mut both = timed.clone();
    both.extend(timed.iter().map(|d| Dispatch { id: d.id + 100, kernel: float.to_owned(), ..d.clone() }));
    let timings = dataset("real-timings-ambiguous", &both);

    let bare: Vec<Dispatch> =
        wide("vcopy-MI300X_A1").into_iter().map(|d| Dispatch { kernel: "vecCopy".into(), ..d }).collect();
    let counters = dataset("real-timings-bare", &bare);
    let report = analyze(&counters, &["--gpu", "mi300x", "--timings", timings.to_str().unwrap()]);
    assert_eq!(report["timings"]["matched"], 0, "{:#}", report["timings"]);
    assert_eq!(report["timings"]["unmatched"][0], "vecCopy");
    let notes = report["notes"].to_string();
    assert!(notes.contains("vecCopy") && notes.contains(float) && notes.contains("not merged"), "{notes}");
    assert_eq!(only_kernel(&report)["calls"], 3);
    assert_eq!(only_kernel(&report)["mean_ns"], 0.0);
    assert!(evidence(only_kernel(&report)).contains("--timings found no kernel of its name"));

    let full = dataset("real-timings-full", &wide("vcopy-MI300X_A1"));
    let report = analyze(&full, &["--gpu", "mi300x", "--timings", timings.to_str().unwrap()]);
    assert_eq!(report["timings"]["matched"], 1, "{:#}", report["timings"]);
    let ns = mean(timed.iter().map(Dispatch::ns));
    assert!(close(only_kernel(&report)["mean_ns"].as_f64().unwrap(), ns));
}

/// `stats` on the MI300X counters whose timestamps were lost: the figures are the rows' zeros,
/// with a note that says they are unknown, in the table, the JSON and (on stderr) beside the
/// CSV. The timed MI300X run has no such note.
#[test]
fn stats_says_when_rows_have_no_timestamps() {
    let untimed = dataset("real-stats-untimed", &wide("vcopy-MI300X_A1"));
    let dir = untimed.to_str().unwrap();
    let note = "kernel_dispatch: no timestamps in these rows (every start and end is 0)";
    let table = rocprof_rs(&["stats", dir]);
    assert!(table.status.success(), "{}", stderr(&table));
    assert!(String::from_utf8_lossy(&table.stdout).contains(note), "{}", String::from_utf8_lossy(&table.stdout));

    let json = rocprof_rs(&["stats", dir, "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let kernels = &json["sections"][0];
    assert_eq!(kernels["section"], "kernel");
    assert!(kernels["notes"][0].as_str().unwrap().starts_with(note), "{kernels:#}");
    assert_eq!(kernels["rows"][0]["calls"], 3);
    assert_eq!(kernels["rows"][0]["total_ns"], 0);

    let csv = rocprof_rs(&["stats", dir, "--format", "csv"]);
    let text = String::from_utf8_lossy(&csv.stdout);
    assert!(text.starts_with("\"Name\",\"Calls\"") && !text.contains("timestamps"), "{text}");
    assert!(stderr(&csv).contains(note), "{}", stderr(&csv));

    let timed = dataset("real-stats-timed", &long("vcopy-MI300X_A1_rocpd"));
    let json = rocprof_rs(&["stats", timed.to_str().unwrap(), "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(json["sections"][0]["notes"].as_array().is_none_or(|n| n.is_empty()), "{json:#}");
}

/// The whole MI300X workload folder through the rocprof-compute importer
/// (tests/fixtures/rocprof-compute), its GPU from sysinfo.csv: the copy's roof is HBM's (a
/// MEMORY finding), at a third of which it waits on latency.
#[test]
fn the_rocprof_compute_mi300x_workload_is_bound_by_hbm_and_far_under_it() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rocprof-compute/vcopy-MI300X_A1_rocpd");
    let scratch_dir = scratch("real-rpc-mi300x");
    let out = scratch_dir.join("dataset");
    let output = rocprof_rs(&["import", folder.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report = analyze(&out, &[]);
    let k = only_kernel(&report);
    assert_eq!(k["gpu"], "mi300x");
    assert_eq!(k["diagnosis"]["class"], "LATENCY", "{:#}", k["diagnosis"]);
    assert!(k["diagnosis"]["also"].as_array().unwrap().iter().any(|f| f["class"] == "MEMORY"));
}
