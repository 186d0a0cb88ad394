//! The tools `rocprof-rs mcp` offers: the CLI's functions over datasets in the served folders,
//! and `run` for the programs on the allow-list. Arguments are checked as the CLI checks its
//! options; a tool that fails says why in its result (`isError`), never by ending the server.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rocprof_rs_analysis::analyze::{self, diff};
use rocprof_rs_analysis::stats::{self, Section};
use rocprof_rs_analysis::{ranks, report};
use serde_json::{Map, Value, json};

use super::folders::{self, Folders};
use crate::cli::bodies::{DiffBody, StatsBody};
use crate::cli::envelope::Output as JsonOutput;

/// What the server may do beyond reading.
#[derive(Debug, Clone, Default)]
pub struct Powers {
    /// Programs `run` may start, as given (a name on PATH, or a path) and resolved.
    pub programs: Vec<(String, PathBuf)>,
    /// How long a run may take.
    pub run_timeout: Duration,
}

/// A tool's failure: said to the client in the result.
#[derive(Debug)]
pub struct ToolError(pub String);

impl<E: std::fmt::Display> From<E> for ToolError {
    fn from(e: E) -> Self {
        ToolError(e.to_string())
    }
}

/// A tool's result: JSON for the client, or a page.
pub enum Output {
    Json(Value),
    Html { uri: String, text: String },
}

/// The tools' descriptions and input schemas, as `tools/list` gives them.
pub fn list(powers: &Powers) -> Vec<Value> {
    let dataset = json!({"type": "string", "description": "A dataset's folder, relative to the first served folder or absolute, inside a served folder"});
    let mut tools = vec![
        tool(
            "list_datasets",
            "The datasets (folders a rocprof-rs run or import wrote) in the served folders, with their tables.",
            json!({"folder": {"type": "string", "description": "Only under this folder (inside a served one)"}}),
            &[],
        ),
        tool(
            "stats",
            "Per-name statistics of a dataset, as `rocprof-rs stats --format json`: per section (kernel, hip_api, memory_copy, marker) and name, calls, total, mean, min, max, stddev, percentiles in ns, and share.",
            json!({"dataset": dataset, "sections": {"type": "array", "items": {"type": "string", "enum": ["kernel", "hip_api", "memory_copy", "marker"]}},
                   "top": {"type": "integer", "minimum": 1, "description": "Only the N names with the largest total per section"},
                   "rank": {"type": "integer", "description": "Only this rank's rows"}}),
            &["dataset"],
        ),
        tool(
            "analyze",
            "Each kernel's roofline position, bottleneck class with its evidence, and recommendations, as `rocprof-rs analyze --format json`.",
            json!({"dataset": dataset, "kernel": {"type": "string", "description": "Only kernels whose name matches this regular expression"},
                   "gpu": {"type": "string", "description": "The GPU database's part to use where the trace does not name it (e.g. mi300x, h100-sxm)"}}),
            &["dataset"],
        ),
        tool(
            "diff",
            "Two runs kernel by kernel, as `rocprof-rs diff --format json`: the change in median time, its confidence, kernels new or missing.",
            json!({"baseline": dataset, "candidate": dataset,
                   "threshold": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "description": "The smallest change that counts (0.02: 2%)"},
                   "confidence": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "description": "The confidence a change must have (0.99)"}}),
            &["baseline", "candidate"],
        ),
        tool(
            "ranks",
            "The ranks of a distributed job compared, as `rocprof-rs ranks --format json`: busy, idle, compute and communication per rank, steps and stragglers (with step_marker), collectives and who waited.",
            json!({"dataset": dataset, "step_marker": {"type": "string", "description": "Markers matching this regular expression are steps"}}),
            &["dataset"],
        ),
        tool(
            "report",
            "The self-contained HTML report of a dataset (`rocprof-rs report`), as an embedded text/html resource.",
            json!({"dataset": dataset, "top": {"type": "integer", "minimum": 1, "maximum": 100000, "description": "Kernels in the tables (50)"}}),
            &["dataset"],
        ),
    ];
    if !powers.programs.is_empty() {
        let names: Vec<&str> = powers.programs.iter().map(|(given, _)| given.as_str()).collect();
        tools.push(tool(
            "run",
            &format!(
                "Run a program under the tool (`rocprof-rs run`), writing a new dataset into a served folder. Allowed programs: {}.",
                names.join(", ")
            ),
            json!({"program": {"type": "string", "enum": names},
                   "args": {"type": "array", "items": {"type": "string"}},
                   "output": {"type": "string", "description": "The new dataset's folder, inside a served folder"},
                   "trace": {"type": "array", "items": {"type": "string", "enum": TRACES.iter().map(|(n, _)| *n).collect::<Vec<_>>()},
                             "description": "What to trace (kernel by default)"}}),
            &["program", "output"],
        ));
    }
    tools
}

/// `run`'s trace names and the flag each stands for.
const TRACES: &[(&str, &str)] = &[
    ("kernel", "--kernel-trace"),
    ("hip", "--hip-trace"),
    ("hsa", "--hsa-trace"),
    ("memory_copy", "--memory-copy-trace"),
    ("marker", "--marker-trace"),
    ("rccl", "--rccl-trace"),
    ("cuda_api", "--cuda-api-trace"),
];

fn tool(name: &str, description: &str, properties: Value, required: &[&str]) -> Value {
    json!({"name": name, "description": description,
           "inputSchema": {"type": "object", "properties": properties, "required": required, "additionalProperties": false}})
}

/// Calls tool `name`; `None` for a tool this server does not have.
pub fn call(
    name: &str,
    args: &Map<String, Value>,
    folders: &Folders,
    powers: &Powers,
) -> Option<Result<Output, ToolError>> {
    let known = ["list_datasets", "stats", "analyze", "diff", "ranks", "report"];
    let offered = known.contains(&name) || (name == "run" && !powers.programs.is_empty());
    if !offered {
        return None;
    }
    Some(Args { args, name }.check_keys(name, powers).and_then(|a| match name {
        "list_datasets" => list_datasets(&a, folders),
        "stats" => stats_tool(&a, folders),
        "analyze" => analyze_tool(&a, folders),
        "diff" => diff_tool(&a, folders),
        "ranks" => ranks_tool(&a, folders),
        "report" => report_tool(&a, folders),
        _ => run_tool(&a, folders, powers),
    }))
}

/// A call's arguments, read as their schema says.
struct Args<'a> {
    args: &'a Map<String, Value>,
    name: &'a str,
}

impl<'a> Args<'a> {
    fn check_keys(self, name: &str, powers: &Powers) -> Result<Args<'a>, ToolError> {
        let tools = list(powers);
        let schema = tools.iter().find(|t| t["name"] == name).map(|t| &t["inputSchema"]["properties"]);
        for key in self.args.keys() {
            if schema.and_then(|s| s.get(key)).is_none() {
                return Err(ToolError(format!("{name}: no argument {key:?}")));
            }
        }
        Ok(self)
    }

    fn text(&self, key: &str) -> Result<Option<&'a str>, ToolError> {
        match self.args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(ToolError(format!("{}: {key} must be a string, not {other}", self.name))),
        }
    }

    fn required(&self, key: &str) -> Result<&'a str, ToolError> {
        self.text(key)?.ok_or_else(|| ToolError(format!("{}: {key} is required", self.name)))
    }

    fn integer(&self, key: &str) -> Result<Option<i64>, ToolError> {
        match self.args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| ToolError(format!("{}: {key} must be a whole number, not {v}", self.name))),
        }
    }

    fn number(&self, key: &str) -> Result<Option<f64>, ToolError> {
        match self.args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => {
                v.as_f64().map(Some).ok_or_else(|| ToolError(format!("{}: {key} must be a number, not {v}", self.name)))
            }
        }
    }

    fn strings(&self, key: &str) -> Result<Vec<&'a str>, ToolError> {
        match self.args.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str().ok_or_else(|| ToolError(format!("{}: {key} must hold strings, not {v}", self.name)))
                })
                .collect(),
            Some(other) => Err(ToolError(format!("{}: {key} must be an array of strings, not {other}", self.name))),
        }
    }

    fn regex(&self, key: &str) -> Result<Option<regex::Regex>, ToolError> {
        self.text(key)?
            .map(|re| regex::Regex::new(re).map_err(|e| ToolError(format!("{}: {key} {re:?}: {e}", self.name))))
            .transpose()
    }

    fn dataset(&self, key: &str, folders: &Folders) -> Result<PathBuf, ToolError> {
        let given = self.required(key)?;
        let path = folders.existing(given)?;
        folders::plain(given, &path)?;
        if !path.is_dir() {
            return Err(ToolError(format!(
                "{}: not a directory (give the directory a run or an import wrote)",
                path.display()
            )));
        }
        Ok(path)
    }
}

fn list_datasets(a: &Args, folders: &Folders) -> Result<Output, ToolError> {
    let roots = match a.text("folder")? {
        Some(folder) => vec![folders.existing(folder)?],
        None => folders.roots().to_vec(),
    };
    let mut out = Vec::new();
    for root in roots {
        for dataset in folders::datasets(&root, 4) {
            let tables: Vec<String> = std::fs::read_dir(&dataset)
                .map(|d| {
                    let mut names: Vec<String> = d
                        .flatten()
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .filter(|n| !n.starts_with('.') && !n.starts_with("dump-"))
                        .collect();
                    names.sort();
                    names
                })
                .unwrap_or_default();
            out.push(json!({"path": dataset, "tables": tables}));
        }
    }
    Ok(Output::Json(json!({"datasets": out})))
}

fn stats_tool(a: &Args, folders: &Folders) -> Result<Output, ToolError> {
    let dir = a.dataset("dataset", folders)?;
    let sections = match a.strings("sections")? {
        names if names.is_empty() => Section::ALL.to_vec(),
        names => names
            .iter()
            .map(|n| {
                Section::by_name(n).ok_or_else(|| {
                    ToolError(format!("stats: section {n:?}: expected kernel, hip_api, memory_copy or marker"))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let top = match a.integer("top")? {
        Some(n) if n < 1 => return Err(ToolError(format!("stats: top {n}: expected 1 or more"))),
        n => n.map(|n| n as usize),
    };
    let rank = match a.integer("rank")? {
        Some(r) => Some(i32::try_from(r).map_err(|_| ToolError(format!("stats: rank {r}: out of range")))?),
        None => None,
    };
    let options = stats::Options { pid: None, rank, by_rank: false, top, threads: 0 };
    let sections = stats::compute(&dir, &sections, &options)?;
    enveloped(JsonOutput::Stats, &dir, StatsBody { sections: &sections, device: None })
}

fn analyze_tool(a: &Args, folders: &Folders) -> Result<Output, ToolError> {
    let given = a.required("dataset")?;
    let path = folders.existing(given)?;
    folders::plain(given, &path)?;
    // The roofs the dataset carries, and the datasheet's: the measurements `doctor` keeps in
    // the user's cache lie outside the served folders.
    let options =
        analyze::Options { kernel: a.regex("kernel")?, gpu: a.text("gpu")?.map(str::to_owned), ..Default::default() };
    enveloped(JsonOutput::Analyze, &path, analyze::analyze(&path, &options)?)
}

fn diff_tool(a: &Args, folders: &Folders) -> Result<Output, ToolError> {
    let (base, new) = (a.dataset("baseline", folders)?, a.dataset("candidate", folders)?);
    let share = |key: &str, default: f64| -> Result<f64, ToolError> {
        match a.number(key)?.unwrap_or(default) {
            v if v > 0.0 && v < 1.0 => Ok(v),
            v => Err(ToolError(format!("diff: {key} {v}: expected a number between 0 and 1"))),
        }
    };
    let options = diff::Options { threshold: share("threshold", 0.02)?, confidence: share("confidence", 0.99)? };
    let report = diff::compare(&diff::read_run(&base, None)?, &diff::read_run(&new, None)?, options)?;
    enveloped(JsonOutput::Diff, &new, DiffBody { baseline: base.display().to_string(), report })
}

fn ranks_tool(a: &Args, folders: &Folders) -> Result<Output, ToolError> {
    let dir = a.dataset("dataset", folders)?;
    let options = ranks::Options { step_marker: a.regex("step_marker")?, top: None, threads: 0 };
    enveloped(JsonOutput::Ranks, &dir, ranks::compute(&dir, &options)?)
}

/// `body` in the envelope its CLI command prints it in (`--format json`).
fn enveloped(output: JsonOutput, dataset: &Path, body: impl serde::Serialize) -> Result<Output, ToolError> {
    Ok(Output::Json(serde_json::to_value(output.envelope(Some(dataset), body))?))
}

/// The most HTML `report` hands back.
const REPORT_LIMIT: usize = 32 << 20;

fn report_tool(a: &Args, folders: &Folders) -> Result<Output, ToolError> {
    let dir = a.dataset("dataset", folders)?;
    let top = match a.integer("top")? {
        None => 50,
        Some(n) if (1..=100_000).contains(&n) => n as usize,
        Some(n) => return Err(ToolError(format!("report: top {n}: expected 1 to 100000"))),
    };
    // As `analyze`: the roofs in the user's cache lie outside the served folders.
    let options = report::Options { top, bins: 4000, kept_roofs: false, ..Default::default() };
    let text = report::html::render(&report::build(&dir, &options)?);
    if text.len() > REPORT_LIMIT {
        return Err(ToolError(format!(
            "report: the page is {} bytes, over the {REPORT_LIMIT} this server hands back; run `rocprof-rs report`",
            text.len()
        )));
    }
    Ok(Output::Html { uri: format!("file://{}/report.html", dir.display()), text })
}

fn run_tool(a: &Args, folders: &Folders, powers: &Powers) -> Result<Output, ToolError> {
    let program = a.required("program")?;
    let Some((_, resolved)) = powers.programs.iter().find(|(given, _)| given == program) else {
        let allowed: Vec<&str> = powers.programs.iter().map(|(g, _)| g.as_str()).collect();
        return Err(ToolError(format!("run: {program:?} is not on the allow-list ({})", allowed.join(", "))));
    };
    let given = a.required("output")?;
    if given.contains('%') {
        // `run` would expand it into a name of its own choosing, unchecked here.
        return Err(ToolError(format!("run: output {given:?}: no % placeholders; name the folder itself")));
    }
    let output = folders.new_child(given)?;
    // A dangling link counts: the run would write where it leads.
    if output.symlink_metadata().is_ok() {
        return Err(ToolError(format!("run: {}: exists; name a new folder", output.display())));
    }
    let parent = output.parent().map(Path::to_path_buf).unwrap_or_else(|| output.clone());
    let mut flags = Vec::new();
    for trace in a.strings("trace")? {
        let flag = TRACES.iter().find(|(n, _)| *n == trace).map(|(_, f)| *f);
        flags.push(flag.ok_or_else(|| ToolError(format!("run: trace {trace:?}: not one of the trace names")))?);
    }
    let exe = std::env::current_exe()?;
    let mut command = Command::new(exe);
    command.arg("run").args(&flags).arg("-d").arg(&output).arg("--").arg(resolved).args(a.strings("args")?);
    command.stdin(std::process::Stdio::null()).current_dir(&parent);
    let (code, stdout, stderr) = run_with_timeout(&mut command, &parent, powers.run_timeout)?;
    Ok(Output::Json(json!({
        "exit_code": code, "dataset": output.is_dir().then_some(&output),
        "stdout_tail": tail(&stdout), "stderr_tail": tail(&stderr),
    })))
}

/// The last 4,000 characters of a program's output.
fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let start = text.char_indices().rev().nth(3999).map_or(0, |(i, _)| i);
    text[start..].to_owned()
}

/// The bytes read back of each of a run's outputs: enough for [`tail`]'s characters.
const TAIL_BYTES: u64 = 16 << 10;

/// The last [`TAIL_BYTES`] of `file`, read through the handle the program was given (its name
/// could have been swapped for a link meanwhile): a program may write gigabytes.
fn read_tail(mut file: std::fs::File) -> Vec<u8> {
    use std::io::{Read, Seek, SeekFrom};
    let length = file.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(length.saturating_sub(TAIL_BYTES))).is_ok() {
        let _ = file.take(TAIL_BYTES).read_to_end(&mut bytes);
    }
    bytes
}

/// A finished program: its exit code (none if a signal ended it), its stdout and its stderr.
type Finished = (Option<i32>, Vec<u8>, Vec<u8>);

/// How long a run that outlived its timeout has between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(5);

/// Runs `command` in a process group of its own to its end or `timeout` (then the whole group,
/// the application too, is stopped and the call fails). The output goes to private files in
/// `beside` (a served folder), so a chatty program never blocks on a full pipe.
fn run_with_timeout(command: &mut Command, beside: &Path, timeout: Duration) -> Result<Finished, ToolError> {
    use std::os::unix::process::CommandExt;
    let scratch = scratch_dir(beside)?;
    let create = |name: &str| {
        let file = std::fs::File::options().read(true).write(true).create_new(true).open(scratch.join(name))?;
        Ok::<_, std::io::Error>((file.try_clone()?, file))
    };
    let files = create("stdout").and_then(|out| Ok((out, create("stderr")?)));
    let spawned = files.and_then(|((out, out_kept), (err, err_kept))| {
        Ok((command.stdout(out).stderr(err).process_group(0).spawn()?, out_kept, err_kept))
    });
    let (mut child, out, err) = match spawned {
        Ok(spawned) => spawned,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&scratch);
            return Err(e.into());
        }
    };
    let group = child.id() as libc::pid_t;
    let began = std::time::Instant::now();
    let mut stopping: Option<std::time::Instant> = None;
    loop {
        if crate::cli::launch::ended_unreaped(group, false) {
            break;
        }
        match stopping {
            None if began.elapsed() > timeout => {
                // SAFETY: signalling a process group we created; no memory is involved.
                unsafe { libc::kill(-group, libc::SIGTERM) };
                stopping = Some(std::time::Instant::now());
            }
            Some(since) if since.elapsed() > GRACE => break,
            _ => {}
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // Whatever of the group is left (a worker that ignored SIGTERM, a daemon) goes too. The
    // leader is not reaped yet, so the group's id cannot have passed to another group.
    // SAFETY: as above.
    unsafe { libc::kill(-group, libc::SIGKILL) };
    let status = child.wait().ok();
    let timed_out = stopping.is_some();
    let result = (status.and_then(|s| s.code()), read_tail(out), read_tail(err));
    let _ = std::fs::remove_dir_all(&scratch);
    if timed_out {
        return Err(ToolError(format!("run: stopped after {} s (--run-timeout)", timeout.as_secs())));
    }
    Ok(result)
}

/// A new folder only we can read, hidden in `parent`, for a run's output.
fn scratch_dir(parent: &Path) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = parent.join(format!(
        ".rocprof-rs-mcp-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
    ));
    std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
    Ok(dir)
}
