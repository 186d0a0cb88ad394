//! Any bytes as what an MCP client sends `rocprof-rs mcp` on stdin: every line answered or
//! refused with a JSON-RPC error, never a panic, never a path outside the served folder. The
//! CLI's own modules are compiled in, since the server lives in the command-line package, which
//! has no library.
#![no_main]

// `crate::cli`, as the server's modules name it: a file of its own, so that its paths are
// relative to this folder (an inline module's would be relative to a folder that does not exist).
#[path = "mcp_cli.rs"]
mod cli;

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// An empty served folder: the messages' paths are resolved against it, and nothing is in it.
static FOLDER: OnceLock<PathBuf> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let folder = FOLDER.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-fuzz-mcp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        dir
    });
    let answers = cli::mcp::answer_all(std::slice::from_ref(folder), data).expect("answers to memory");
    for line in answers.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        serde_json::from_slice::<serde_json::Value>(line).expect("every answer is one JSON line");
    }
});
