//! `cargo install` gives a working CLI (issue 43): the installed `rocprof-rs` has no tool
//! library beside it, so it writes the copy it carries to its cache folder and injects that;
//! `doctor` says so; the simulated application's dataset is written. SIMULATED: no GPU.
//!
//! The install reuses this test build's folder and profile (`--debug`, `CARGO_TARGET_DIR`), so
//! it links rather than compiles.

mod common;

use std::process::Command;

use common::*;

#[test]
fn an_installed_cli_carries_its_tool_library_and_says_which_it_injects() {
    let dir = scratch("cargo-install");
    let root = dir.join("root");
    let target = common::target_dir().parent().unwrap().to_path_buf();
    let install = Command::new(env!("CARGO"))
        .args(["install", "--debug", "--locked", "--offline", "--path"])
        .arg(env!("CARGO_MANIFEST_DIR"))
        .arg("--root")
        .arg(&root)
        .env("CARGO_TARGET_DIR", &target)
        // Cargo hands the build script's ROCPROF_RS_BUILD_ID to this test; seen by the install,
        // it would rerun that script and rebuild what the test build made.
        .env_remove("ROCPROF_RS_BUILD_ID")
        .output()
        .unwrap();
    assert!(install.status.success(), "cargo install: {}", stderr(&install));
    let cli = root.join("bin/rocprof-rs");
    let installed: Vec<_> = std::fs::read_dir(root.join("bin")).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(!root.join("bin/librocprof_rs.so").exists() && !root.join("lib").exists(), "{installed:?}");

    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let doctor = Command::new(&cli)
        .args(["doctor", "--format", "json"])
        .env("HOME", &home)
        .env_remove("XDG_CACHE_HOME")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).expect("doctor's JSON");
    assert_eq!(report["tool_library"]["source"], "embedded", "{}", report["tool_library"]);
    let cached = home.join(".cache/rocprof-rs/tool");
    assert!(report["tool_library"]["path"].as_str().unwrap().starts_with(cached.to_str().unwrap()));

    let out = dir.join("out");
    let run = Command::new(&cli)
        .args(["run", "--backend", "rocprofiler-sdk", "--kernel-trace", "-d"])
        .arg(&out)
        .arg("--")
        .arg(built("rocprof-sim"))
        .args(["--dispatches", "300", "--threads", "2", "--no-truth", "--sdk"])
        .arg(built("librocprofiler_sdk_sim.so"))
        .env("HOME", &home)
        .env_remove("XDG_CACHE_HOME")
        .env_remove("ROCP_TOOL_LIBRARIES")
        .current_dir(&*dir)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(complete_files(&out.join("kernel_dispatch")) >= 1, "{}", stderr(&run));
    let libraries: Vec<_> = std::fs::read_dir(&cached).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(libraries.len(), 1, "one cached library: {libraries:?}");
    // The copy is the library this build made, byte for byte.
    let built_library = common::target_dir().join("deps/librocprof_rs.so");
    let built_library =
        if built_library.is_file() { built_library } else { common::target_dir().join("librocprof_rs.so") };
    assert_eq!(std::fs::read(&libraries[0]).unwrap(), std::fs::read(&built_library).unwrap());
    let doctor = Command::new(&cli).arg("doctor").env("HOME", &home).env_remove("XDG_CACHE_HOME").output().unwrap();
    assert!(String::from_utf8_lossy(&doctor.stdout).contains("(embedded: the embedded copy, already written)"));
}
