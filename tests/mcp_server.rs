//! `rocprof-rs mcp` driven by the reference MCP client (the `mcp` Python package, through
//! `tests/verify/mcp_client.py`) against datasets of the simulated application (SIMULATED: no
//! GPU): every tool answers as the CLI's JSON does, paths outside the served folder are refused
//! with a clear error, arguments are checked as the CLI checks them, and `run` exists only with
//! --allow-run and writes only inside the folder.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

fn client(args: &[&std::ffi::OsStr]) -> Option<serde_json::Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/verify/mcp_client.py");
    let out = Command::new("python3").arg(script).args(args).output().unwrap();
    let err = stderr(&out);
    if !out.status.success() && err.contains("No module named 'mcp'") {
        assert!(std::env::var_os("CI").is_none(), "CI must test the MCP server: {err}");
        eprintln!("SKIPPED: the MCP test needs the mcp package (pip install -r tests/verify/requirements.txt)");
        return None;
    }
    assert!(out.status.success(), "mcp_client.py: {err}");
    Some(serde_json::from_slice(&out.stdout).expect("the client's JSON"))
}

#[test]
fn an_mcp_client_gets_every_tool_and_nothing_outside_the_folder() {
    let dir = scratch("mcp");
    let served = dir.join("served");
    for (name, seed) in [("a", "1"), ("b", "2")] {
        traced_run(&served.join(name), 1500, "kernel,hip_api", &["--seed", seed], &[]);
    }
    let outside = dir.join("outside");
    traced_run(&outside, 300, "kernel", &[], &[]);
    let cli = Path::new(env!("CARGO_BIN_EXE_rocprof-rs"));
    let sim = built("rocprof-sim");
    let sdk = built("librocprofiler_sdk_sim.so");
    let Some(got) = client(&[
        cli.as_os_str(),
        served.as_os_str(),
        "a".as_ref(),
        "b".as_ref(),
        outside.as_os_str(),
        "--allow-run".as_ref(),
        sim.as_os_str(),
        "--dispatches".as_ref(),
        "200".as_ref(),
        "--threads".as_ref(),
        "1".as_ref(),
        "--no-truth".as_ref(),
        "--sdk".as_ref(),
        sdk.as_os_str(),
    ]) else {
        return;
    };
    assert_eq!(got["server"], "rocprof-rs");
    let tools: Vec<&str> = got["tools"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(tools, ["analyze", "diff", "list_datasets", "ranks", "report", "run", "stats"]);
    let datasets: Vec<&str> = got["datasets"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    assert_eq!(datasets.len(), 2, "{datasets:?}");
    assert!(datasets.iter().all(|d| !d.contains("outside")), "{datasets:?}");

    // stats is the CLI's, section for section.
    let cli_stats = Command::new(cli)
        .args(["stats", "--format", "json", "--section", "kernel", "--top", "3"])
        .arg(served.join("a"))
        .output()
        .unwrap();
    let cli_stats: serde_json::Value = serde_json::from_slice(&cli_stats.stdout).unwrap();
    assert_eq!(got["stats"]["sections"], cli_stats["sections"], "the tool's stats are the CLI's");
    assert_eq!(got["stats"]["schema"], cli_stats["schema"], "the tool's envelope is the CLI's");
    assert!(got["analyze_keys"].as_array().unwrap().iter().any(|k| k == "kernels"), "{}", got["analyze_keys"]);
    assert!(got["diff_keys"].is_array(), "{}", got["diff_keys"]);
    assert!(got["ranks_keys"].is_array(), "{}", got["ranks_keys"]);
    assert_eq!(got["report"]["error"], false);
    assert_eq!(got["report"]["mime"], "text/html");
    assert_eq!(got["report"]["starts"], "<!DOCTYPE html>");

    for (call, refusal) in got["refused"].as_object().unwrap() {
        assert_eq!(refusal["error"], true, "{call} was not refused: {refusal}");
        let text = refusal["text"].as_str().unwrap();
        let expected = if call.contains("nonsense") {
            "section \"nonsense\""
        } else if call.contains("unclosed") {
            "kernel \"(unclosed\""
        } else if call.contains("threshold") {
            "threshold 7"
        } else {
            "outside the folders this server serves"
        };
        assert!(text.contains(expected), "{call}: {text}");
    }

    assert_eq!(got["run"]["exit_code"], 0, "{}", got["run"]);
    assert!(complete_files(&served.join("mcp-run/kernel_dispatch")) >= 1, "{}", got["run"]);
    assert_eq!(got["run_outside"]["error"], true);
    assert!(got["run_outside"]["text"].as_str().unwrap().contains("outside the folders"), "{}", got["run_outside"]);
    assert_eq!(got["run_unlisted"]["error"], true);
    assert!(got["run_unlisted"]["text"].as_str().unwrap().contains("not on the allow-list"), "{}", got["run_unlisted"]);
    assert!(!dir.join("escape").exists());
}

#[test]
fn a_server_without_folders_or_with_a_missing_program_does_not_start() {
    let cli = env!("CARGO_BIN_EXE_rocprof-rs");
    let none = Command::new(cli).arg("mcp").output().unwrap();
    assert_eq!(none.status.code(), Some(2), "{}", stderr(&none));
    let dir = scratch("mcp-refusals");
    let missing = Command::new(cli).args(["mcp", "--folder"]).arg(dir.join("nothing")).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("--folder"), "{}", stderr(&missing));
    let program = Command::new(cli)
        .args(["mcp", "--folder"])
        .arg(&*dir)
        .args(["--allow-run", "no-such-program-here"])
        .output()
        .unwrap();
    assert_eq!(program.status.code(), Some(2));
    assert!(stderr(&program).contains("--allow-run no-such-program-here: no such program"), "{}", stderr(&program));
}

/// The JSON-RPC answers of `rocprof-rs mcp ARGS` to `requests`, one a line, by id.
fn exchange(args: &[&std::ffi::OsStr], requests: &[serde_json::Value]) -> Vec<serde_json::Value> {
    use std::io::Write;
    let mut server = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .arg("mcp")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
    }
    drop(stdin);
    let out = server.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The text of the tool result answering request `id`, and whether it is an error.
fn tool_text(answers: &[serde_json::Value], id: u64) -> (bool, String) {
    let answer = answers.iter().find(|a| a["id"] == id).unwrap_or_else(|| panic!("no answer {id}: {answers:?}"));
    let result = &answer["result"];
    (result["isError"] == true, result["content"][0]["text"].as_str().unwrap_or_default().to_owned())
}

#[test]
fn a_run_past_its_timeout_is_stopped_with_its_application_and_bad_outputs_are_refused() {
    use serde_json::json;
    let dir = scratch("mcp-timeout");
    let served = dir.join("served");
    std::fs::create_dir_all(&served).unwrap();
    std::os::unix::fs::symlink(dir.join("elsewhere"), served.join("dangling")).unwrap();
    let call = |id: u64, output: &str, seconds: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "run", "arguments": {"program": "sleep", "args": [seconds], "output": output}}})
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}});
    let args = ["--folder".as_ref(), served.as_os_str(), "--allow-run".as_ref(), "sleep".as_ref()];
    let args = [&args[..], &["--run-timeout".as_ref(), "1".as_ref()]].concat();
    let began = std::time::Instant::now();
    let answers = exchange(
        &args,
        &[init, call(2, "slow", "37.25"), call(3, "dangling", "0"), call(4, "run-%pid%", "0"), call(5, "quick", "0")],
    );
    assert!(began.elapsed() < std::time::Duration::from_secs(20), "the timeout held: {:?}", began.elapsed());
    let (failed, text) = tool_text(&answers, 2);
    assert!(failed && text.contains("stopped after 1 s"), "{text}");
    // The application went with `rocprof-rs run`: the whole process group was stopped.
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.starts_with("sleep 37.25") || c.contains("/sleep 37.25"))
        .collect();
    assert!(left.is_empty(), "left running: {left:?}");
    let (failed, text) = tool_text(&answers, 3);
    assert!(failed && text.contains("exists"), "a dangling link is an existing entry: {text}");
    let (failed, text) = tool_text(&answers, 4);
    assert!(failed && text.contains("placeholders"), "{text}");
    let (failed, text) = tool_text(&answers, 5);
    assert!(!failed, "{text}");
    // Its output was kept privately beside the dataset, and removed.
    let scratch: Vec<_> = std::fs::read_dir(&served)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".rocprof-rs-mcp"))
        .collect();
    assert!(scratch.is_empty(), "{scratch:?}");
}
