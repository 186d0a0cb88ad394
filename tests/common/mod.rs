//! Helpers the end-to-end test binaries share: built artefacts, scratch folders, the tool's
//! stderr lines, and the comparison with the simulator's truth through pyarrow.

#![allow(dead_code, reason = "each test binary uses a part of these")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `target/<profile>`, from this test binary's `target/<profile>/deps`.
pub fn target_dir() -> PathBuf {
    std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().to_path_buf()
}

pub fn built(name: &str) -> PathBuf {
    let dir = target_dir();
    // `cargo test` refreshes `deps/`, `cargo build` the copy above it: take the newer.
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    [dir.join(name), dir.join("deps").join(name)]
        .into_iter()
        .filter(|p| p.exists())
        .max_by_key(modified)
        .unwrap_or_else(|| {
            panic!("{name} is not built in {}: run the workspace's tests (`cargo test --workspace`)", dir.display())
        })
}

pub fn tool() -> PathBuf {
    built("librocprof_rs.so")
}

/// A test's own folder under the system's temporary folder. It is removed when the test passes
/// and kept when it fails, for the one reading the failure: a full test run writes gigabytes
/// (simulated truths, datasets), which must not pile up on a CI machine's disk.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Scratch {
    /// The folder, kept after the test: for a run that tests share through a static.
    pub fn keep(self) -> PathBuf {
        let dir = self.0.clone();
        std::mem::forget(self);
        dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept the failed test's folder {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

pub fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("rocprof-rs-e2e-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The complete (visible) Parquet files of a table folder.
pub fn complete_files(table: &Path) -> usize {
    std::fs::read_dir(table)
        .map(|d| d.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".parquet")).count())
        .unwrap_or(0)
}

/// Lines the tool printed.
pub fn tool_lines(output: &Output) -> Vec<String> {
    stderr(output).lines().filter(|l| l.starts_with("rocprof-rs:")).map(str::to_owned).collect()
}

/// Compares the dataset with the truth through pyarrow.
pub fn assert_matches_truth(dir: &Path) {
    assert_matches_truth_of(dir, &dir.join("truth.csv"), None);
}

/// Compares the files of the process with file-name stem `stem` (all files if none) with `truth`.
pub fn assert_matches_truth_of(dir: &Path, truth: &Path, stem: Option<&str>) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/verify/compare_with_truth.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script).arg(dir.join("out")).arg(truth);
    if let Some(stem) = stem {
        cmd.args(["--stem", stem]);
    }
    let output = cmd.output().unwrap();
    assert!(
        output.status.success(),
        "the dataset differs from the truth (or pyarrow is missing: pip install -r tests/verify/requirements.txt):\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        stderr(&output)
    );
}

/// Runs `tests/verify/<script>` with `args` and asserts it succeeded; returns its stdout.
pub fn python(script: &str, args: &[&std::ffi::OsStr]) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/verify").join(script);
    let output = Command::new("python3").arg(path).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{script} failed (pyarrow missing? pip install -r tests/verify/requirements.txt):\n{stdout}{}",
        stderr(&output)
    );
    stdout
}

/// `rocprof-rs run ARGS --tool <the built tool> -d OUT -- <sim>`: `sim` (program and arguments,
/// not its environment) launched by the CLI, as a user would.
pub fn under_rocprof_rs_run(sim: &Command, args: &[&str], out: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"));
    cmd.arg("run")
        .args(args)
        .arg("--tool")
        .arg(tool())
        .arg("-d")
        .arg(out)
        .arg("--")
        .arg(sim.get_program())
        .args(sim.get_args())
        .env_remove("ROCP_TOOL_LIBRARIES");
    cmd
}

/// Traces the simulated application (`dispatches` over 4 threads and 2 GPUs, no truth) into
/// `out`, with `domains` and the extra simulator arguments and tool variables given.
pub fn traced_run(out: &Path, dispatches: u64, domains: &str, args: &[&str], vars: &[(&str, &str)]) {
    let output = Command::new(built("rocprof-sim"))
        .args(["--dispatches", &dispatches.to_string(), "--threads", "4", "--agents", "2", "--no-truth"])
        .args(args)
        .arg("--sdk")
        .arg(built("librocprofiler_sdk_sim.so"))
        .env("ROCP_TOOL_LIBRARIES", tool())
        .env("ROCPROF_RS_OUTPUT_DIR", out)
        .env("ROCPROF_RS_DOMAINS", domains)
        .envs(vars.iter().copied())
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap();
    assert!(output.status.success(), "the traced run failed: {}", stderr(&output));
}

/// A simulated distributed job, `rocprof-sim SIM_ARGS --sdk <the simulated SDK>`, under `rocprof-rs
/// run --kernel-trace --marker-trace --rccl-trace -d OUT`: every rank writes into `out` under
/// the name its launcher variables give it. Asserts it succeeded; returns its output.
pub fn traced_ranks<S: AsRef<std::ffi::OsStr>>(sim_args: impl IntoIterator<Item = S>, out: &Path) -> Output {
    let mut sim = Command::new(built("rocprof-sim"));
    sim.args(sim_args).arg("--sdk").arg(built("librocprofiler_sdk_sim.so"));
    let mut cmd = under_rocprof_rs_run(&sim, &["--kernel-trace", "--marker-trace", "--rccl-trace"], out);
    cmd.env_remove("LD_PRELOAD").env_remove("ROCPROF_RS_DOMAINS").env_remove("ROCPROF_RS_OUTPUT_NAME");
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    output
}

/// `rocprof-sim ARGS` with the tool loaded as the SDK loads it (`ROCP_TOOL_LIBRARIES`),
/// writing its truth to `dir/truth.csv` and its dataset under `dir/out`.
pub fn sim_with_tool(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(built("rocprof-sim"));
    cmd.args(args)
        .arg("--truth")
        .arg(dir.join("truth.csv"))
        .arg("--sdk")
        .arg(built("librocprofiler_sdk_sim.so"))
        .env_remove("LD_PRELOAD")
        .env("ROCP_TOOL_LIBRARIES", tool())
        .env("ROCPROF_RS_OUTPUT_DIR", dir.join("out"));
    cmd
}

/// NVIDIA's libcupti from its pip wheel (tests/verify/requirements.txt), whose host API lists a
/// chip's metrics without a GPU; CI must have it, elsewhere its tests skip.
pub fn wheel_libcupti() -> Option<PathBuf> {
    let out =
        Command::new("python3").args(["-c", "import nvidia; print('\\n'.join(nvidia.__path__))"]).output().ok()?;
    let found = String::from_utf8(out.stdout)
        .ok()?
        .lines()
        .map(|dir| Path::new(dir).join("cu13/lib/libcupti.so.13"))
        .find(|lib| lib.exists());
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have NVIDIA's libcupti wheel (tests/verify/requirements.txt)"
        );
    }
    found
}
