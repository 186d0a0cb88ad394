//! Records which source the binaries were built from, for `doctor` and the run metadata.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
    println!("cargo:rerun-if-env-changed=ROCPROF_RS_BUILD_ID");
    let id = std::env::var("ROCPROF_RS_BUILD_ID").ok().filter(|id| !id.is_empty()).or_else(git_describe);
    println!("cargo:rustc-env=ROCPROF_RS_BUILD_ID={}", id.as_deref().unwrap_or("unknown"));
}

fn git_describe() -> Option<String> {
    let out = Command::new("git").args(["describe", "--always", "--dirty", "--abbrev=12"]).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}
