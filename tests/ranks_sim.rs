//! Four ranks of a simulated training job under `rocprof-rs run`, all writing into one output
//! directory (SIMULATED: no GPU is involved): each rank's files hold exactly its own truth,
//! kernels, ROCTx step ranges and RCCL calls, read with pyarrow (`tests/verify/
//! compare_with_truth.py`), never with our own code. Needs `pip install -r
//! tests/verify/requirements.txt`.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};

use common::*;

const WORLD: usize = 4;

/// The file-name stem of process `pid` in `out` (`<host>-<pid>` by default), from the metadata
/// file each process claims its stem with.
fn stem_of(out: &Path, pid: u64) -> String {
    let suffix = format!("-{pid}");
    let stems: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().to_string_lossy().strip_suffix(".metadata.json").map(str::to_owned))
        .filter(|stem| stem.ends_with(&suffix))
        .collect();
    assert_eq!(stems.len(), 1, "one stem for pid {pid} in {}: {stems:?}", out.display());
    stems.into_iter().next().unwrap()
}

/// Where the format has origin columns (format 3 on), every row of a rank's files names it.
/// Arguments: the output directory, the world size, then each rank's stem in rank order.
const ORIGIN_CHECK: &str = r#"
import os, sys, pyarrow.dataset as ds
out, world, stems = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for rank, stem in enumerate(stems):
    for table in ("kernel_dispatch", "marker", "rccl_api"):
        folder = os.path.join(out, table)
        files = [os.path.join(folder, f) for f in sorted(os.listdir(folder))
                 if f.endswith(".parquet") and f[: -len("-00000.parquet")] == stem]
        t = ds.dataset(files, format="parquet").to_table()
        for column, expected in (("rank", rank), ("local_rank", rank), ("world_size", world)):
            if column in t.column_names:
                values = set(t.column(column).to_pylist())
                assert values == {expected}, (stem, table, column, values, expected)
print("ok")
"#;

#[test]
fn four_ranks_into_one_directory_each_write_exactly_their_truth() {
    let dir = scratch("ranks");
    let out = dir.join("out");
    let truth = dir.join("truth.csv");
    let output = traced_ranks(
        ["--ranks", "4", "--steps", "6", "--straggler", "1:2:30", "--agents", "2", "--truth"]
            .map(std::ffi::OsStr::new)
            .into_iter()
            .chain([truth.as_os_str()]),
        &out,
    );
    let text = stderr(&output);
    assert_eq!(text.matches("nothing dropped").count(), WORLD, "one summary per rank, nothing dropped:\n{text}");

    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("ranks-truth.json")).unwrap()).unwrap();
    assert_eq!(truth["world_size"], 4);
    assert_eq!(truth["collectives"][2]["last_rank"], 1, "the straggler arrives last");
    let ranks = truth["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), WORLD);
    let stems: Vec<String> = ranks.iter().map(|entry| stem_of(&out, entry["pid"].as_u64().unwrap())).collect();
    // Every check at once: each python run spends most of its time importing pyarrow.
    let piped = |cmd: &mut Command| cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let origin =
        piped(Command::new("python3").args(["-c", ORIGIN_CHECK]).arg(&out).arg(WORLD.to_string()).args(&stems));
    let compare = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/verify/compare_with_truth.py");
    let checks: Vec<Child> = stems
        .iter()
        .enumerate()
        .map(|(rank, stem)| {
            piped(
                Command::new("python3").arg(&compare).arg(&out).arg(dir.join(format!("truth.rank{rank}.csv"))).args([
                    "--tables",
                    "kernel_dispatch,marker,rccl_api,kernel_symbol",
                    "--stem",
                    stem,
                ]),
            )
        })
        .collect();
    for (rank, check) in checks.into_iter().enumerate() {
        let output = check.wait_with_output().unwrap();
        let report = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "rank {rank}'s files differ from its truth (or pyarrow is missing: pip install -r \
             tests/verify/requirements.txt):\n{report}{}",
            stderr(&output)
        );
        let report: serde_json::Value = serde_json::from_str(&report).unwrap();
        // Three compute kernels, the collective and the optimizer per step; ncclCommInitRank
        // and one ncclAllReduce per step.
        assert_eq!(report["kernel_dispatch"]["got"], 6 * 5, "rank {rank}: {report}");
        assert_eq!(report["marker"]["got"], 6, "rank {rank}: {report}");
        assert_eq!(report["rccl_api"]["got"], 7, "rank {rank}: {report}");
    }
    let origin = origin.wait_with_output().unwrap();
    assert!(origin.status.success(), "the ranks' origin columns: {}", stderr(&origin));
    std::fs::remove_dir_all(dir).unwrap();
}
