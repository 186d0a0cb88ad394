//! `rocprof-rs mcp`: the CLI's functions served over the Model Context Protocol on stdio
//! (JSON-RPC 2.0, one message a line), for agents. Read-only unless `--allow-run` names
//! programs; nothing outside the `--folder`s is read or written.

mod folders;
mod tools;

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use serde_json::{Map, Value, json};

use folders::Folders;
use tools::{Output, Powers};

/// The options of `rocprof-rs mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// A folder whose datasets the server serves (repeatable); every path a client names must
    /// lie inside one, relative paths from the first.
    #[arg(long = "folder", value_name = "DIR", required = true)]
    folders: Vec<PathBuf>,
    /// A program the `run` tool may start under the tool (repeatable; a name on PATH or a
    /// path). Without one, the server is read-only: no `run` tool, nothing written.
    #[arg(long = "allow-run", value_name = "PROGRAM")]
    allow_run: Vec<String>,
    /// The most seconds a `run` may take before it is killed.
    #[arg(long, value_name = "SECONDS", default_value = "600", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    run_timeout: u64,
}

/// The protocol versions this server speaks, newest first.
const PROTOCOL_VERSIONS: &[&str] = &["2025-06-18", "2025-03-26", "2024-11-05"];

/// The longest message read; a longer line is refused and skipped.
const LINE_LIMIT: usize = 4 << 20;

/// The most messages one batch may hold.
const BATCH_LIMIT: usize = 64;

/// Runs the server until stdin closes.
pub fn mcp(args: McpArgs) -> ExitCode {
    // An ignored SIGCHLD, inherited from whatever started the server, would have the kernel reap
    // a run before its process group is stopped and its exit code read.
    // SAFETY: setting a standard signal's disposition to its default, before any thread starts.
    unsafe { libc::signal(libc::SIGCHLD, libc::SIG_DFL) };
    let folders = match Folders::new(&args.folders) {
        Ok(folders) => folders,
        Err(e) => {
            eprintln!("rocprof-rs: mcp: {e}");
            return ExitCode::from(2);
        }
    };
    let mut programs = Vec::new();
    for given in &args.allow_run {
        match resolve_program(given) {
            Some(path) => programs.push((given.clone(), path)),
            None => {
                eprintln!("rocprof-rs: mcp: --allow-run {given}: no such program (not a file, nor on PATH)");
                return ExitCode::from(2);
            }
        }
    }
    let server = Server { folders, powers: Powers { programs, run_timeout: Duration::from_secs(args.run_timeout) } };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match server.serve(&mut stdin.lock(), &mut stdout.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rocprof-rs: mcp: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The absolute path `run` starts for `given`: a path as given (made absolute, links kept, so a
/// virtual environment's `python` stays itself), or the first executable of that name on an
/// absolute PATH entry.
fn resolve_program(given: &str) -> Option<PathBuf> {
    if given.contains('/') {
        return std::path::absolute(given).ok().filter(|p| executable(p));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(given))
        .find(|p| executable(p))
}

fn executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

struct Server {
    folders: Folders,
    powers: Powers,
}

impl Server {
    /// Reads messages from `input` and answers each request on `output` until `input` ends.
    fn serve(&self, input: &mut impl BufRead, output: &mut impl Write) -> std::io::Result<()> {
        let mut line = Vec::new();
        loop {
            line.clear();
            let read =
                <&mut _ as std::io::Read>::take(&mut *input, LINE_LIMIT as u64 + 1).read_until(b'\n', &mut line)?;
            if read == 0 {
                return Ok(());
            }
            if line.len() > LINE_LIMIT {
                if !line.ends_with(b"\n") {
                    skip_line(input)?;
                }
                reply(output, &error(Value::Null, -32700, &format!("a message over {LINE_LIMIT} bytes")))?;
                continue;
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            self.answer(&line, output)?;
        }
    }

    /// Answers one line: a message, or a batch (JSON-RPC 2.0, as MCP before 2025-06-18 allows),
    /// whose responses are written as they come rather than held (a `report` may be 32 MiB).
    fn answer(&self, line: &[u8], output: &mut impl Write) -> std::io::Result<()> {
        let message: Value = match serde_json::from_slice(line) {
            Ok(message) => message,
            Err(e) => return reply(output, &error(Value::Null, -32700, &format!("not JSON: {e}"))),
        };
        let batch = match message {
            Value::Array(batch) => batch,
            message => return self.handle(message).map_or(Ok(()), |response| reply(output, &response)),
        };
        if batch.is_empty() || batch.len() > BATCH_LIMIT {
            let why = format!("a batch holds 1 to {BATCH_LIMIT} messages, not {}", batch.len());
            return reply(output, &error(Value::Null, -32600, &why));
        }
        let mut opened = false;
        for response in batch.into_iter().filter_map(|m| self.handle(m)) {
            output.write_all(if opened { b"," } else { b"[" })?;
            opened = true;
            serde_json::to_writer(&mut *output, &response)?;
        }
        if opened {
            output.write_all(b"]\n")?;
            output.flush()?;
        }
        Ok(())
    }

    /// The response to one message; none for a notification or a response.
    fn handle(&self, message: Value) -> Option<Value> {
        let Value::Object(message) = message else {
            return Some(error(Value::Null, -32600, "a message is a JSON object"));
        };
        let id = message.get("id").cloned();
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            // A response to a request of ours (we make none), or garbage with an id.
            return id
                .filter(|_| !message.contains_key("result") && !message.contains_key("error"))
                .map(|id| error(id, -32600, "a request needs a method"));
        };
        let id = id?; // A notification: nothing to answer.
        if !matches!(id, Value::String(_) | Value::Number(_)) {
            return Some(error(Value::Null, -32600, "an id is a string or a number"));
        }
        let params = match message.get("params") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(params)) => params.clone(),
            Some(_) => return Some(error(id, -32602, "params must be an object")),
        };
        Some(match method {
            "initialize" => result(id, self.initialize(&params)),
            "ping" => result(id, json!({})),
            "tools/list" => result(id, json!({"tools": tools::list(&self.powers)})),
            "tools/call" => self.call(id, &params),
            _ => error(id, -32601, &format!("no method {method}")),
        })
    }

    fn initialize(&self, params: &Map<String, Value>) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
        let version = PROTOCOL_VERSIONS.iter().find(|v| **v == asked).unwrap_or(&PROTOCOL_VERSIONS[0]);
        let folders: Vec<String> = self.folders.roots().iter().map(|r| r.display().to_string()).collect();
        let mode = if self.powers.programs.is_empty() { "read-only" } else { "read-only but for `run`" };
        json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "rocprof-rs", "version": env!("CARGO_PKG_VERSION")},
            "instructions": format!(
                "rocprof-rs datasets (GPU kernel traces as Parquet) in {}; {mode}. Start with list_datasets, then stats, analyze, ranks, diff or report on a dataset's path.",
                folders.join(", ")
            ),
        })
    }

    fn call(&self, id: Value, params: &Map<String, Value>) -> Value {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return error(id, -32602, "tools/call needs a tool name");
        };
        let empty = Map::new();
        let args = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(args)) => args,
            Some(_) => return error(id, -32602, "arguments must be an object"),
        };
        // A panic in a tool is one failed call, never the end of the server.
        let called = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tools::call(name, args, &self.folders, &self.powers)
        }));
        match called {
            Ok(None) => error(id, -32602, &format!("no tool {name}")),
            Ok(Some(Ok(Output::Json(value)))) => {
                let text = serde_json::to_string(&value).unwrap_or_default();
                result(id, json!({"content": [{"type": "text", "text": text}], "isError": false}))
            }
            Ok(Some(Ok(Output::Html { uri, text }))) => result(
                id,
                json!({"content": [{"type": "resource", "resource": {"uri": uri, "mimeType": "text/html", "text": text}}], "isError": false}),
            ),
            Ok(Some(Err(e))) => result(id, json!({"content": [{"type": "text", "text": e.0}], "isError": true})),
            Err(_) => result(
                id,
                json!({"content": [{"type": "text", "text": format!("{name}: an internal error (a panic)")}], "isError": true}),
            ),
        }
    }
}

fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Reads and drops what is left of a line, a buffer at a time: nothing of it is kept.
fn skip_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|b| *b == b'\n') {
            Some(end) => {
                input.consume(end + 1);
                return Ok(());
            }
            None => {
                let n = buffer.len();
                input.consume(n);
            }
        }
    }
}

/// Answers every message in `input` as the server over `folders` would, with nothing allowed
/// to run: the entry of the fuzz target (`fuzz/fuzz_targets/mcp_messages.rs`).
#[allow(dead_code)]
pub fn answer_all(folders: &[PathBuf], input: &[u8]) -> std::io::Result<Vec<u8>> {
    let folders = Folders::new(folders).map_err(std::io::Error::other)?;
    let server = Server { folders, powers: Powers::default() };
    let mut out = Vec::new();
    server.serve(&mut &*input, &mut out)?;
    Ok(out)
}

fn reply(output: &mut impl Write, message: &Value) -> std::io::Result<()> {
    serde_json::to_writer(&mut *output, message)?;
    output.write_all(b"\n")?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(dir: &std::path::Path) -> Server {
        Server { folders: Folders::new(&[dir.to_owned()]).unwrap(), powers: Powers::default() }
    }

    fn exchange(server: &Server, input: &str) -> Vec<Value> {
        let mut out = Vec::new();
        server.serve(&mut input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    #[test]
    fn the_protocol_answers_requests_and_refuses_what_is_not_one() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-mcp-protocol-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let s = server(&dir);
        let replies = exchange(
            &s,
            concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                "\n\n",
                r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#,
                "\nnot json\n",
                r#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":3,"method":"resources/list"}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"stats","arguments":{"dataset":"../../etc"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"stats","arguments":{"dataset":".","bogus":1}}}"#,
                "\n",
            ),
        );
        assert_eq!(replies.len(), 8, "{replies:?}");
        assert_eq!(replies[0]["result"]["protocolVersion"], "2024-11-05");
        let names: Vec<&str> =
            replies[1]["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["list_datasets", "stats", "analyze", "diff", "ranks", "report"], "read-only: no run");
        assert_eq!(replies[2]["error"]["code"], -32700);
        assert_eq!(replies[3][0]["result"], json!({}), "a batch is answered as one");
        assert_eq!(replies[4]["error"]["code"], -32601);
        assert_eq!(replies[5]["result"]["isError"], true);
        assert!(
            replies[5]["result"]["content"][0]["text"].as_str().unwrap().contains("outside the folders"),
            "{}",
            replies[5]
        );
        assert_eq!(replies[6]["error"]["code"], -32602);
        assert!(replies[7]["result"]["content"][0]["text"].as_str().unwrap().contains("no argument \"bogus\""));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn garbage_gets_one_json_answer_per_line_and_batches_one_between_them() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-mcp-garbage-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut input = Vec::new();
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            input.push(b"{}[]\":,0a\n \x00\xff"[(seed % 13) as usize]);
        }
        input.extend_from_slice(b"\n[{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]\n[]\n");
        let answers = answer_all(std::slice::from_ref(&dir), &input).unwrap();
        let lines: Vec<Value> = String::from_utf8(answers)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON value a line"))
            .collect();
        assert!(!lines.is_empty());
        assert_eq!(lines.last().unwrap()["error"]["code"], -32600, "an empty batch is refused");
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let batch = |n: usize| format!("[{}]\n", vec![ping; n].join(","));
        let answers = answer_all(std::slice::from_ref(&dir), batch(BATCH_LIMIT).as_bytes()).unwrap();
        let answers: Value = serde_json::from_slice(&answers).unwrap();
        assert_eq!(answers.as_array().map(Vec::len), Some(BATCH_LIMIT));
        let answers = answer_all(std::slice::from_ref(&dir), batch(BATCH_LIMIT + 1).as_bytes()).unwrap();
        let answers: Value = serde_json::from_slice(&answers).unwrap();
        assert_eq!(answers["error"]["code"], -32600, "{answers}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_message_over_the_limit_is_refused_and_the_next_one_answered() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-mcp-limit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = format!("{}\n{}\n", "x".repeat(LINE_LIMIT + 10), r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        let replies = exchange(&server(&dir), &input);
        assert_eq!(replies.len(), 2);
        assert_eq!(replies[0]["error"]["code"], -32700);
        assert_eq!(replies[1]["result"], json!({}));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
