//! Records which source the binaries were built from, for `doctor` and the run metadata; and
//! puts the tool library's bytes into the `rocprof-rs` binary, so that a CLI installed alone
//! (`cargo install`) still has its tool (`src/cli/embedded.rs`).
//!
//! The library is the recorder's cdylib of the same build: a dependency, so cargo has written
//! it to `<profile>/deps/` before the binary links. The linker takes it as a binary input
//! (`--format=binary`), which defines `_binary_<path>_start` and `_end`; the symbols' names are
//! the path's, so they are written into `$OUT_DIR/embedded_tool.rs` for the binary to declare.
//! Only linking reads the file, so `cargo check` and clippy, which link nothing, never need it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
    println!("cargo:rerun-if-env-changed=ROCPROF_RS_BUILD_ID");
    let id = std::env::var("ROCPROF_RS_BUILD_ID").ok().filter(|id| !id.is_empty()).or_else(git_describe);
    println!("cargo:rustc-env=ROCPROF_RS_BUILD_ID={}", id.as_deref().unwrap_or("unknown"));
    embed_tool();
}

fn git_describe() -> Option<String> {
    let out = Command::new("git").args(["describe", "--always", "--dirty", "--abbrev=12"]).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn embed_tool() {
    println!("cargo::rustc-check-cfg=cfg(rocprof_rs_embedded)");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // OUT_DIR is <profile>/build/rocprof-rs-<hash>/out.
    let library = out.ancestors().nth(3).map(|profile| profile.join("deps").join("librocprof_rs.so"));
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    // The path goes into one comma-separated -Wl list, so one with a comma is not embedded.
    let usable = |path: &PathBuf| path.to_str().is_some_and(|p| !p.contains(','));
    let declarations = match library.filter(|l| linux && usable(l)) {
        Some(library) => {
            let symbol = binary_symbol(&library);
            println!("cargo:rustc-link-arg-bins=-Wl,--format=binary,{},--format=default", library.display());
            println!("cargo:rustc-cfg=rocprof_rs_embedded");
            format!(
                "unsafe extern \"C\" {{\n    #[link_name = \"{symbol}_start\"]\n    pub(super) static START: u8;\n    \
                 #[link_name = \"{symbol}_end\"]\n    pub(super) static END: u8;\n}}\n"
            )
        }
        None => {
            println!(
                "cargo:warning=the tool library is not embedded in rocprof-rs (not Linux, or a target path with a comma)"
            );
            String::new()
        }
    };
    let generated = out.join("embedded_tool.rs");
    std::fs::write(&generated, declarations).expect("OUT_DIR is writable");
}

/// The symbol prefix the linker gives a binary input at `path`: `_binary_` and the path as
/// given, every byte but ASCII letters and digits turned to `_`.
fn binary_symbol(path: &Path) -> String {
    let mangled: String = path
        .as_os_str()
        .as_encoded_bytes()
        .iter()
        .map(|&b| if b.is_ascii_alphanumeric() { b as char } else { '_' })
        .collect();
    format!("_binary_{mangled}")
}
