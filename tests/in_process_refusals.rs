//! What the in-process profiler refuses, and how it says so (against the SIMULATED SDK).
//!
//! One test function: the SDK and the tool are process-wide, so the steps must run in order.

use std::path::PathBuf;

use rocprof_rs::{Error, Profiler};
use rocprof_sim::app::Machine;

fn simulated_sdk() -> PathBuf {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    [deps.join("librocprofiler_sdk_sim.so"), deps.parent().unwrap().join("librocprofiler_sdk_sim.so")]
        .into_iter()
        .find(|p| p.exists())
        .expect("the simulated SDK is built by `cargo test --workspace`")
}

#[test]
fn bad_settings_and_a_late_start_are_errors_that_say_why() {
    // A bad value is refused before anything touches the SDK, naming the variable.
    let error = Profiler::builder().ignore_environment().var("ROCPROF_RS_POLICY", "maybe").start().unwrap_err();
    assert!(matches!(error, Error::Config { variable: "ROCPROF_RS_POLICY", .. }), "{error}");
    let error = Profiler::builder().ignore_environment().var("ROCPROF_RS_POLCY", "drop").start().unwrap_err();
    assert!(error.to_string().contains("ROCPROF_RS_POLCY"), "{error}");

    // A runtime that registered first has initialized the SDK: too late for a tool.
    let sdk = simulated_sdk();
    let mut machine = Machine::open(&sdk, 1, false).unwrap();
    machine.start_runtime();
    let output = std::env::temp_dir().join(format!("rocprof-rs-late-{}", std::process::id()));
    let error = Profiler::builder().ignore_environment().sdk_library(&sdk).output_dir(&output).start().unwrap_err();
    assert!(matches!(error, Error::TooLate(_)), "{error}");
    assert!(error.to_string().contains("before the first HIP"), "{error}");
    assert!(!output.exists(), "a refused profiler writes nothing");
}
