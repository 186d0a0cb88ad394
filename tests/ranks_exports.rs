//! A multi-rank run directory through `stats` and the exports (SIMULATED: four ranks of
//! `rocprof-sim --ranks`, no GPU): `stats --by-rank` and `--rank` split the figures by rank and
//! add up to the whole; a rocpd database per process carries its host and ranks; the Perfetto
//! trace names each process by its rank; and two processes of one pid on two hosts are refused,
//! not merged.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use common::*;
use serde_json::Value;

const WORLD: i64 = 4;

fn rocprof_rs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap()
}

fn ok_json(args: &[&str]) -> Value {
    let output = rocprof_rs(args);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Four ranks, each with its kernels, markers and RCCL calls, into `out`.
fn four_ranks(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("out");
    traced_ranks(["--ranks", "4", "--steps", "4", "--agents", "2", "--no-truth"], &out);
    out
}

/// Per name: (calls, total) over a stats JSON's kernel sections of `rank` (None: any).
fn kernels(report: &Value, rank: Option<i64>) -> BTreeMap<String, (u64, u64)> {
    let mut by_name = BTreeMap::new();
    for section in report["sections"].as_array().unwrap() {
        if section["section"] != "kernel" || rank.is_some_and(|r| section["rank"] != r) {
            continue;
        }
        for row in section["rows"].as_array().unwrap() {
            let entry = by_name.entry(row["name"].as_str().unwrap().to_owned()).or_insert((0, 0));
            entry.0 += row["calls"].as_u64().unwrap();
            entry.1 += row["total_ns"].as_u64().unwrap();
        }
    }
    by_name
}

#[test]
fn stats_exports_and_names_say_which_rank() {
    let dir = scratch("ranks-exports");
    let out = four_ranks(&dir);
    let out_text = out.to_str().unwrap();

    // stats: one kernel section per rank, which add up to the whole; --rank R is --by-rank's R.
    let whole = ok_json(&["stats", out_text, "--section", "kernel", "--format", "json"]);
    let notes = whole["sections"][0]["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n.as_str().unwrap().contains("4 ranks 0-3")), "{notes:?}");
    let by_rank = ok_json(&["stats", out_text, "--section", "kernel", "--by-rank", "--format", "json"]);
    let ranks: Vec<i64> = by_rank["sections"].as_array().unwrap().iter().map(|s| s["rank"].as_i64().unwrap()).collect();
    assert_eq!(ranks, (0..WORLD).collect::<Vec<_>>());
    let mut summed: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for rank in 0..WORLD {
        let one = ok_json(&["stats", out_text, "--section", "kernel", "--rank", &rank.to_string(), "--format", "json"]);
        assert_eq!(one["sections"].as_array().unwrap().len(), 1);
        assert_eq!(kernels(&one, Some(rank)), kernels(&by_rank, Some(rank)), "rank {rank}");
        for (name, (calls, total)) in kernels(&one, Some(rank)) {
            let entry = summed.entry(name).or_insert((0, 0));
            entry.0 += calls;
            entry.1 += total;
        }
    }
    assert_eq!(summed, kernels(&whole, None), "the ranks add up to the whole");
    let none = rocprof_rs(&["stats", out_text, "--rank", "9"]);
    assert!(!none.status.success());
    assert!(stderr(&none).contains("no rows of rank 9"), "{}", stderr(&none));
    let csv_dir = dir.join("stats-csv");
    let csv = rocprof_rs(&["stats", out_text, "--by-rank", "--format", "csv", "--csv-dir", csv_dir.to_str().unwrap()]);
    assert!(csv.status.success(), "{}", stderr(&csv));
    for rank in 0..WORLD {
        assert!(csv_dir.join(format!("rank_{rank}/kernel_stats.csv")).is_file(), "rank {rank}'s kernel_stats.csv");
    }

    // rocpd: a database per process, each naming its host and rank.
    let rocpd = dir.join("rocpd");
    let output = rocprof_rs(&["export", out_text, "--format", "rocpd", "-o", rocpd.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(&rocpd).unwrap() {
        let path = entry.unwrap().path();
        let db = rusqlite::Connection::open(&path).unwrap();
        let hostname: Option<String> = db.query_row("SELECT hostname FROM rocpd_info_node", [], |r| r.get(0)).unwrap();
        assert!(hostname.is_some_and(|h| !h.is_empty()), "{}: no host name", path.display());
        let (pid, extdata): (i64, String) =
            db.query_row("SELECT pid, extdata FROM rocpd_info_process", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        let extdata: Value = serde_json::from_str(&extdata).unwrap();
        assert_eq!(extdata["world_size"], WORLD, "{}", path.display());
        assert_eq!(extdata["local_rank"], extdata["rank"], "one host: the local rank is the rank");
        let kernels: i64 = db.query_row("SELECT count(*) FROM rocpd_kernel_dispatch", [], |r| r.get(0)).unwrap();
        assert!(kernels > 0, "{}: no kernels", path.display());
        seen.push((extdata["rank"].as_i64().unwrap(), pid));
    }
    seen.sort_unstable();
    assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), (0..WORLD).collect::<Vec<_>>(), "{seen:?}");

    // Perfetto: each process's track is named by its rank.
    let trace = dir.join("trace.pftrace");
    let output = rocprof_rs(&["export", out_text, "--format", "perfetto", "-o", trace.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let bytes = std::fs::read(&trace).unwrap();
    for (rank, pid) in &seen {
        let prefix = format!("rank {rank} · ");
        let suffix = format!(" · pid {pid}");
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.match_indices(&prefix).any(|(at, _)| text[at..].split('\u{FFFD}').next().unwrap().contains(&suffix)),
            "no process track named rank {rank} (pid {pid})"
        );
    }

    // One pid on two hosts: refused, naming both, with nothing written.
    let metadata: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".metadata.json"))
        .collect();
    let text = |p: &Path| std::fs::read_to_string(p).unwrap();
    let first: Value = serde_json::from_str(&text(&metadata[0])).unwrap();
    let mut second: Value = serde_json::from_str(&text(&metadata[1])).unwrap();
    second["rocprof_rs.pid"] = first["rocprof_rs.pid"].clone();
    // One host, one pid, two ranks (pid namespaces): two processes, refused as well.
    std::fs::write(&metadata[1], second.to_string()).unwrap();
    let target = dir.join("collide-one-host");
    let output = rocprof_rs(&["export", out_text, "--format", "rocpd", "-o", target.to_str().unwrap()]);
    assert!(!output.status.success(), "two ranks of one pid on one host were merged");
    assert!(stderr(&output).contains(" as rank "), "{}", stderr(&output));
    second["rocprof_rs.host"] = Value::from("another-host");
    std::fs::write(&metadata[1], second.to_string()).unwrap();
    for format in ["rocpd", "perfetto", "rocprofv3-json", "rocprofv3-csv"] {
        let target = dir.join(format!("collide-{format}"));
        let output = rocprof_rs(&["export", out_text, "--format", format, "-o", target.to_str().unwrap()]);
        assert!(!output.status.success(), "{format}: two processes of one pid were merged");
        assert!(stderr(&output).contains("another-host"), "{format}: {}", stderr(&output));
        assert!(!target.exists() || std::fs::read_dir(&target).unwrap().next().is_none(), "{format} wrote something");
    }
}
