//! SIMULATED: the AMD analysis against the simulator's ground truth. The simulator launches its
//! catalog's kernels (`rocprof_sim::kernels::CATALOG`) on an MI210-like and an MI300X-like
//! agent; each dispatch's counters come from the kernel's cost model (`KernelSpec::activity`),
//! whose quantities are the truth: instructions by kind, DRAM requests by size, and the modelled
//! time. `analyze` sees only the counters rocprof-rs recorded, through the roofline preset.
//!
//! - Each kernel's FP32 vector FLOPs per dispatch, its DRAM bytes (on the MI210, whose request
//!   sizes the model gives exactly) and its time equal the truth's.
//! - Its place under each roof follows: its DRAM share is the truth's bytes over the truth's
//!   time against the datasheet's bandwidth, and its class agrees with that place: MEMORY or
//!   CACHE only within 60% of a memory roof, and near no roof only under 60% of every one.

mod common;

use std::collections::BTreeMap;
use std::process::Command;

use rocprof_rs_format::Table;
use rocprof_sim::hw::{self, Arch};
use rocprof_sim::kernels::CATALOG;
use rocprof_sim::runtime_abi::SimActivity;

/// The truth of one kernel on one agent: its dispatches, their modelled time, and for each
/// counter the sum of its true values over the dispatches that counted it (a preset of several
/// passes counts each dispatch in one of them) and how many those were.
#[derive(Debug, Default)]
struct Truth {
    dispatches: f64,
    ns: f64,
    counters: BTreeMap<String, (f64, f64)>,
}

impl Truth {
    /// The mean true value per dispatch of `counter`, over the dispatches that counted it.
    fn mean(&self, counter: &str) -> f64 {
        let (sum, n) = self.counters[counter];
        sum / n
    }
}

fn truths(dir: &std::path::Path) -> BTreeMap<(String, u64), Truth> {
    let mut arch: BTreeMap<u64, Arch> = BTreeMap::new();
    rocprof_rs_analysis::read::batches(dir, Table::Agent, |b| {
        let (id, name) = (b.col("agent_id")?, b.col("name")?);
        for i in 0..b.rows() {
            if let Some(a) = Arch::ALL.into_iter().find(|a| a.name() == name.text(i)) {
                arch.insert(id.u64(i), a);
            }
        }
        Ok(())
    })
    .unwrap();
    // Each dispatch: its kernel, agent and modelled activity.
    let mut dispatches: BTreeMap<u64, (String, u64, SimActivity)> = BTreeMap::new();
    let mut out: BTreeMap<(String, u64), Truth> = BTreeMap::new();
    rocprof_rs_analysis::read::batches(dir, Table::KernelDispatch, |b| {
        let (name, mangled, agent, id) =
            (b.col("kernel_name")?, b.col("mangled_name")?, b.col("agent_id")?, b.col("dispatch_id")?);
        let (gx, gy, gz) = (b.col("grid_x")?, b.col("grid_y")?, b.col("grid_z")?);
        let (bx, by, bz) = (b.col("block_x")?, b.col("block_y")?, b.col("block_z")?);
        for i in 0..b.rows() {
            let Some(spec) = CATALOG.iter().find(|s| s.mangled == mangled.text(i)) else { continue };
            let items = (gx.i64(i) * gy.i64(i) * gz.i64(i)) as u64;
            let wg = (bx.u64(i) * by.u64(i) * bz.u64(i)) as u32;
            let ns = spec.duration_ns(items);
            let t = out.entry((name.text(i).to_owned(), agent.u64(i))).or_default();
            t.dispatches += 1.0;
            t.ns += ns as f64;
            dispatches.insert(id.u64(i), (name.text(i).to_owned(), agent.u64(i), spec.activity(items, wg, ns)));
        }
        Ok(())
    })
    .unwrap();
    rocprof_rs_analysis::read::batches(dir, Table::Counter, |b| {
        let (id, counter) = (b.col("dispatch_id")?, b.col("counter")?);
        for i in 0..b.rows() {
            let Some((name, agent, activity)) = dispatches.get(&id.u64(i)) else { continue };
            let counter = counter.text(i);
            let Some(c) = arch.get(agent).and_then(|a| hw::by_name(*a, counter)) else { continue };
            let t = out.get_mut(&(name.clone(), *agent)).unwrap();
            let entry = t.counters.entry(counter.to_owned()).or_default();
            entry.0 += hw::total(c, activity);
            entry.1 += 1.0;
        }
        Ok(())
    })
    .unwrap();
    out
}

fn close(ours: f64, truth: f64, tolerance: f64) -> bool {
    (ours - truth).abs() <= tolerance * truth.abs().max(1.0)
}

#[test]
fn the_amd_analysis_follows_the_simulators_ground_truth() {
    let dir = common::scratch("analysis-sim-truth");
    let traced = dir.join("traced");
    common::traced_run(&traced, 3_000, "kernel", &[], &[("ROCPROF_RS_COUNTER_PRESET", "roofline")]);
    let out = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .arg("analyze")
        .arg(&traced)
        .args(["--roofs", "datasheet", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let truth = truths(&traced);
    let (mut checked, mut bytes_checked, mut near) = (0, 0, 0);
    for k in report["kernels"].as_array().unwrap() {
        let name = k["name"].as_str().unwrap();
        let Some(t) = truth.get(&(name.to_owned(), k["agent_id"].as_u64().unwrap())) else { continue };
        let gpu = k["gpu"].as_str().unwrap();
        assert_eq!(k["calls"].as_f64().unwrap(), t.dispatches, "{name} on {gpu}");
        let mean_ns = k["mean_ns"].as_f64().unwrap();
        assert!(
            close(mean_ns, t.ns / t.dispatches, 1e-6),
            "{name} on {gpu}: {mean_ns} ns, truth {}",
            t.ns / t.dispatches
        );
        // FP32 FLOPs: 64 lanes of each ADD, MUL and TRANS, 128 of each FMA (rocprof-compute's).
        let fp32_truth = 64.0
            * (t.mean("SQ_INSTS_VALU_ADD_F32")
                + t.mean("SQ_INSTS_VALU_MUL_F32")
                + 2.0 * t.mean("SQ_INSTS_VALU_FMA_F32")
                + t.mean("SQ_INSTS_VALU_TRANS_F32"));
        let ops = k["work"]["ops"].as_array().unwrap();
        let fp32 =
            ops.iter().find(|o| o["precision"] == "fp32" && o["pipe"] == "vector").unwrap()["ops"].as_f64().unwrap();
        assert!(close(fp32, fp32_truth, 1e-9), "{name} on {gpu}: {fp32} FP32 FLOPs, truth {fp32_truth}");
        let shares: Vec<(String, f64)> = k["bandwidth"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| Some((b["level"].as_str()?.to_owned(), b["share"].as_f64()?)))
            .collect();
        if gpu == "mi210" {
            // Requests of 32 and 64 bytes, read and written.
            let (read, read_32) = (t.mean("TCC_EA_RDREQ_sum"), t.mean("TCC_EA_RDREQ_32B_sum"));
            let (write, write_64) = (t.mean("TCC_EA_WRREQ_sum"), t.mean("TCC_EA_WRREQ_64B_sum"));
            let dram_truth = 32.0 * read_32 + 64.0 * (read - read_32) + 64.0 * write_64 + 32.0 * (write - write_64);
            let dram = k["work"]["bytes"]["dram"].as_f64().unwrap();
            assert!(close(dram, dram_truth, 1e-9), "{name}: {dram} DRAM bytes, truth {dram_truth}");
            // The datasheet's HBM2e bandwidth of the MI210, 1.6384 TB/s.
            let truth_share = dram_truth / (t.ns / t.dispatches) / 1638.4;
            let share = shares.iter().find(|(l, _)| l == "dram").unwrap().1;
            assert!(close(share, truth_share, 1e-6), "{name}: DRAM at {share} of its roof, truth {truth_share}");
            bytes_checked += 1;
        }
        // Its class agrees with its place under the roofs.
        let memory = shares.iter().map(|(_, s)| *s).fold(0.0, f64::max);
        let compute =
            k["points"].as_array().unwrap().iter().filter_map(|p| p["efficiency"].as_f64()).fold(0.0, f64::max);
        let class = k["diagnosis"]["kernel_class"].as_str().unwrap();
        let bound = ["MEMORY", "CACHE", "LDS", "COMPUTE", "ISSUE"].contains(&class);
        if memory.max(compute) < 0.6 {
            assert!(
                !bound || class == "ISSUE",
                "{name} on {gpu}: {class} under 60% of every roof ({memory}, {compute})"
            );
        }
        if ["MEMORY", "CACHE"].contains(&class) {
            assert!(memory >= 0.6 || compute >= 0.6, "{name} on {gpu}: {class} at {memory} of its busiest level");
            near += 1;
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} kernels checked");
    assert!(bytes_checked >= 10, "{bytes_checked} kernels' DRAM bytes checked");
    eprintln!("{checked} kernels against the truth, {bytes_checked} with DRAM bytes, {near} memory-bound");
}
