//! `rocprof-rs run` as a user meets it: exit codes, signals, start failures, the environment
//! the application sees, refused values and madengine profiles. The applications are `sh` and
//! `env`, not HIP programs, so the tool library never starts and no GPU is needed.

use std::borrow::BorrowMut;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PROFILES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/madengine");

/// `rocprof-rs run ARGS`, with none of the caller's tool or rocprof-rs variables.
fn run(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"));
    command.arg("run").args(args).env_remove("ROCP_TOOL_LIBRARIES").env_remove("LD_PRELOAD");
    command.env_remove("CUDA_INJECTION64_PATH").env_remove("NVTX_INJECTION64_PATH");
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("ROCPROF_RS_") {
            command.env_remove(name);
        }
    }
    command
}

fn output(mut command: impl BorrowMut<Command>) -> Output {
    command.borrow_mut().output().expect("rocprof-rs runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The environment `/usr/bin/env` printed under `rocprof-rs run ARGS -- /usr/bin/env`.
fn child_env(mut command: impl BorrowMut<Command>) -> BTreeMap<String, String> {
    let out = output(command.borrow_mut().args(["--", "/usr/bin/env"]));
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// The library `cargo` built beside the binary (or, after `cargo test` alone, in `deps/`), which
/// `run` is expected to find, in the same order `run` searches.
fn tool_library() -> PathBuf {
    let dir = Path::new(env!("CARGO_BIN_EXE_rocprof-rs")).parent().expect("target/<profile>");
    let found = [dir.join("librocprof_rs.so"), dir.join("deps/librocprof_rs.so")].into_iter().find(|p| p.is_file());
    let found = found.unwrap_or_else(|| panic!("librocprof_rs.so is not built in {}", dir.display()));
    std::fs::canonicalize(&found).unwrap_or_else(|e| panic!("{}: {e}", found.display()))
}

/// What `run` says after an application that started no GPU runtime, so the tool never ran.
const NO_RUNTIME: &str =
    "the application started no GPU runtime, or the tool turned itself off (its message above says why)";

#[test]
fn the_exit_code_passes_through_and_the_output_is_named() {
    let out = output(run(&["--", "/bin/sh", "-c", "exit 7"]));
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(stderr(&out), format!("rocprof-rs: nothing written to rocprof-rs-output: {NO_RUNTIME}\n"));

    let out = output(run(&["-d", "/tmp/rocprof-rs-test/%pid%", "--", "/bin/sh", "-c", "echo $$"]));
    assert_eq!(out.status.code(), Some(0));
    let pid = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert_eq!(
        stderr(&out),
        format!("rocprof-rs: nothing written to /tmp/rocprof-rs-test/{pid}: {NO_RUNTIME}\n"),
        "the app's own pid"
    );
}

#[test]
fn death_by_signal_is_reported_as_128_plus_the_signal() {
    let out = output(run(&["--", "/bin/sh", "-c", "kill -9 $$"]));
    assert_eq!(out.status.code(), Some(137));
    let text = stderr(&out);
    assert!(text.contains("rocprof-rs: /bin/sh was killed by signal 9 (SIGKILL)\n"), "{text}");
    assert!(text.contains("rocprof-rs: nothing written to "), "{text}");
}

#[test]
fn an_app_that_cannot_start_gets_the_shells_codes() {
    let out = output(run(&["--", "/nonexistent/app", "arg"]));
    assert_eq!(out.status.code(), Some(127));
    let text = stderr(&out);
    assert!(text.starts_with("rocprof-rs: cannot run /nonexistent/app: "), "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");

    let plain = Path::new(env!("CARGO_TARGET_TMPDIR")).join("not-executable");
    std::fs::write(&plain, "#!/bin/sh\n").unwrap();
    let out = output(run(&["--", plain.to_str().unwrap()]));
    assert_eq!(out.status.code(), Some(126), "{}", stderr(&out));
}

#[test]
fn the_app_sees_the_tool_and_the_options_as_variables() {
    let env = child_env(run(&[
        "--sys-trace",
        "--kernel-include-regex",
        "gemm.*",
        "--kernel-exclude-regex",
        "copy",
        "--kernel-iteration-range",
        "[2-4]",
        "-d",
        "/tmp/out",
        "-o",
        "stem",
        "--policy",
        "drop",
        "--quiet",
    ]));
    let tool = tool_library();
    assert_eq!(env["ROCP_TOOL_LIBRARIES"], tool.to_str().unwrap());
    assert!(env["ROCP_TOOL_LIBRARIES"].ends_with("/librocprof_rs.so"));
    assert!(!env.contains_key("LD_PRELOAD"));
    let ours: Vec<(&str, &str)> =
        env.iter().filter(|(k, _)| k.starts_with("ROCPROF_RS_")).map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        ours,
        [
            ("ROCPROF_RS_DOMAINS", "sys"),
            ("ROCPROF_RS_KERNEL_EXCLUDE_REGEX", "copy"),
            ("ROCPROF_RS_KERNEL_INCLUDE_REGEX", "gemm.*"),
            ("ROCPROF_RS_KERNEL_ITERATION_RANGE", "[2-4]"),
            ("ROCPROF_RS_OUTPUT_DIR", "/tmp/out"),
            ("ROCPROF_RS_OUTPUT_NAME", "stem"),
            ("ROCPROF_RS_POLICY", "drop"),
            ("ROCPROF_RS_SUMMARY", "0"),
        ]
    );
}

/// `--backend` names the injection; NVTX's only with markers, since it routes NVTX to CUPTI.
#[test]
fn the_backend_option_chooses_the_injection_variables() {
    let tool = tool_library();
    let tool = tool.to_str().unwrap();
    let cuda = child_env(run(&["--backend", "cupti", "--kernel-trace", "--marker-trace", "--cuda-api-trace"]));
    assert_eq!((cuda["CUDA_INJECTION64_PATH"].as_str(), cuda["NVTX_INJECTION64_PATH"].as_str()), (tool, tool));
    assert!(!cuda.contains_key("ROCP_TOOL_LIBRARIES"));
    assert_eq!(cuda["ROCPROF_RS_DOMAINS"], "kernel,marker,cuda_api");
    let kernels_only = child_env(run(&["--backend", "cupti"]));
    assert!(kernels_only.contains_key("CUDA_INJECTION64_PATH") && !kernels_only.contains_key("NVTX_INJECTION64_PATH"));
    let amd = child_env(run(&["--backend", "rocprofiler-sdk", "--marker-trace"]));
    assert_eq!(amd["ROCP_TOOL_LIBRARIES"], tool);
    assert!(!amd.contains_key("CUDA_INJECTION64_PATH") && !amd.contains_key("NVTX_INJECTION64_PATH"));
}

#[test]
fn another_cuda_injection_is_refused_before_the_app_starts_and_counters_on_nvidia_are_not() {
    let out =
        output(run(&["--backend", "cupti", "--", "/bin/true"]).env("CUDA_INJECTION64_PATH", "/opt/nsys/libinject.so"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("CUDA_INJECTION64_PATH is already set to /opt/nsys/libinject.so"),
        "{}",
        stderr(&out)
    );
    // Counters go to the tool, which checks the names against the GPU's metrics.
    let env = child_env(run(&["--backend", "cupti", "--pmc", "dram__bytes_read.sum"]));
    assert_eq!(env["ROCPROF_RS_PMC"], "dram__bytes_read.sum");
    assert!(env.contains_key("CUDA_INJECTION64_PATH"));
}

#[test]
fn no_option_leaves_the_environment_and_options_override_it() {
    let env = child_env(run(&[]).env("ROCPROF_RS_POLICY", "drop").env("ROCPROF_RS_DOMAINS", "marker"));
    assert_eq!(env["ROCPROF_RS_POLICY"], "drop");
    assert_eq!(env["ROCPROF_RS_DOMAINS"], "marker");
    let env = child_env(run(&["--policy", "lossless", "--kernel-trace"]).env("ROCPROF_RS_POLICY", "drop"));
    assert_eq!(env["ROCPROF_RS_POLICY"], "lossless");
    assert_eq!(env["ROCPROF_RS_DOMAINS"], "kernel");
    let env = child_env(run(&[]));
    assert!(!env.contains_key("ROCPROF_RS_DOMAINS"), "no trace option means the tool's default");
}

#[test]
fn other_tools_are_kept_ahead_of_ours_with_a_protecting_colon() {
    let env = child_env(run(&[]).env("ROCP_TOOL_LIBRARIES", "/x/a.so"));
    assert_eq!(env["ROCP_TOOL_LIBRARIES"], format!("/x/a.so:{}:", tool_library().display()));
}

#[test]
fn preloading_the_tool_into_a_program_without_hip_is_harmless() {
    let tool = tool_library();
    let tool = tool.to_str().unwrap();
    let out = output(run(&["--preload", "--tool", tool, "--", "/usr/bin/env"]));
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!("rocprof-rs: nothing written to rocprof-rs-output: {NO_RUNTIME}\n"),
        "nothing from the loader or the tool"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.lines().any(|l| l == format!("LD_PRELOAD={tool}")), "{stdout}");
    assert!(stdout.lines().any(|l| l == format!("ROCP_TOOL_LIBRARIES={tool}")), "{stdout}");
}

#[test]
fn a_bad_value_is_named_in_one_line_and_nothing_runs() {
    let marker = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad-value-ran");
    let _ = std::fs::remove_file(&marker);
    let out = output(run(&["--policy", "maybe", "--", "/usr/bin/touch", marker.to_str().unwrap()]));
    assert_eq!(out.status.code(), Some(2));
    let text = stderr(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("rocprof-rs: ") && text.contains("ROCPROF_RS_POLICY"), "{text}");
    assert!(!marker.exists(), "the application ran despite the bad value");

    let out = output(run(&["--", "/bin/true"]).env("ROCPROF_RS_DOMIANS", "kernel"));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("ROCPROF_RS_DOMIANS is not a rocprof-rs variable"), "{}", stderr(&out));
}

#[test]
fn a_missing_tool_is_named() {
    let out = output(run(&["--tool", "/nonexistent/librocprof_rs.so", "--", "/bin/true"]));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), "rocprof-rs: --tool /nonexistent/librocprof_rs.so: no such file\n");
}

#[test]
fn a_profile_sets_what_it_can_names_what_it_cannot_and_options_override_it() {
    let file = format!("{PROFILES}/rocprofv3_multi_gpu.json");
    let out = output(run(&["--profile", &file, "--", "/usr/bin/env"]));
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in [
        "ROCPROF_RS_DOMAINS=kernel,memory_copy,hip_api,hsa_api,rccl_api,scratch_memory",
        "ROCPROF_RS_OUTPUT_DIR=./rocprof_output",
        "RCCL_DEBUG=INFO",
        "OMP_NUM_THREADS=8",
        // madengine's power and VRAM samplers at 0.1 s, as the device sampler.
        "ROCPROF_RS_DEVICE_SAMPLE_MS=100",
    ] {
        assert!(stdout.lines().any(|l| l == line), "no {line} in:\n{stdout}");
    }
    let text = stderr(&out);
    let prefix = format!("rocprof-rs: profile {file}: cannot honour ");
    let items: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix(&prefix)).collect();
    assert_eq!(items.len(), 3, "{text}");
    assert!(!items.iter().any(|i| i.starts_with("tool gpu_info_power_profiler (")), "{text}");
    assert!(items.iter().any(|i| i.starts_with("distributed launcher torchrun (")), "{text}");
    assert!(text.ends_with(&format!("rocprof-rs: nothing written to ./rocprof_output: {NO_RUNTIME}\n")), "{text}");

    let env = child_env(run(&["--profile", &file, "--kernel-trace", "-d", "/tmp/mine"]));
    assert_eq!(env["ROCPROF_RS_DOMAINS"], "kernel");
    assert_eq!(env["ROCPROF_RS_OUTPUT_DIR"], "/tmp/mine");
    assert_eq!(env["RCCL_DEBUG"], "INFO");
}

#[test]
fn a_broken_profile_is_refused_naming_the_file_and_the_place() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (name, text, expected) in [
        ("syntax.json", "{\"tools\": [", "not valid JSON"),
        (
            "shape.json",
            r#"{"tools": [{"name": "rocprofv3", "env_vars": []}]}"#,
            "$.tools[0].env_vars: expected an object",
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let out = output(run(&["--profile", path.to_str().unwrap(), "--", "/bin/true"]));
        assert_eq!(out.status.code(), Some(2));
        let text = stderr(&out);
        assert!(text.starts_with(&format!("rocprof-rs: profile {}: {expected}", path.display())), "{text}");
        assert_eq!(text.lines().count(), 1, "{text}");
    }
}

#[test]
fn the_long_help_lists_every_variable() {
    let out = output(run(&["--help"]));
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for name in [
        "ROCPROF_RS_OUTPUT_DIR",
        "ROCPROF_RS_OUTPUT_NAME",
        "ROCPROF_RS_DOMAINS",
        "ROCPROF_RS_KERNEL_INCLUDE_REGEX",
        "ROCPROF_RS_KERNEL_EXCLUDE_REGEX",
        "ROCPROF_RS_KERNEL_ITERATION_RANGE",
        "ROCPROF_RS_DEMANGLE",
        "ROCPROF_RS_TRUNCATE_KERNELS",
        "ROCPROF_RS_BUFFER_SIZE",
        "ROCPROF_RS_POLICY",
        "ROCPROF_RS_QUEUE_BATCHES",
        "ROCPROF_RS_COMPRESSION",
        "ROCPROF_RS_ROW_GROUP_ROWS",
        "ROCPROF_RS_ROTATE_ROWS",
        "ROCPROF_RS_ROTATE_SECONDS",
        "ROCPROF_RS_SUMMARY",
    ] {
        assert!(help.contains(name), "{name} missing from run --help");
    }
    for flag in ["--kernel-trace", "--hip-runtime-trace", "--sys-trace", "--profile", "--preload", "--tool"] {
        assert!(help.contains(flag), "{flag} missing from run --help");
    }
}
