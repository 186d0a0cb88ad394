//! madengine profiling profiles (`--profile FILE.json`), mapped onto rocprof-rs's variables.
//!
//! A profile names madengine tools; each rocprofv3 tool stands for a rocprofv3 command line in
//! madengine's `tools.json`, copied below, and those options are read as `run` reads its own.
//! Counter files (`-i`) are read where they exist, and otherwise taken by name for the preset
//! of that name (madengine's compute_bound.txt and the rest are presets here). The rest of a
//! profile (job launchers, library call logs, thread trace) has no rocprof-rs equivalent: each
//! such part becomes one "cannot honour" item rather than an error,
//! so a profile written for rocprofv3 still gives the trace rocprof-rs can take. Only JSON that
//! is not a profile at all (bad syntax, wrong types) is refused, naming where it went wrong.

use std::collections::BTreeMap;
use std::path::Path;

use rocprof_rs::config::{self, Domains};
use serde_json::{Map, Value};

use super::flags::{domains_text, trace_flag};
use super::output_formats::{OutputFormat, Outputs};

/// A madengine tool that runs rocprofv3: its options and the environment it sets.
struct Rocprofv3Tool {
    name: &'static str,
    options: &'static str,
    env: &'static [(&'static str, &'static str)],
}

/// madengine's rocprofv3 tools, from `src/madengine/scripts/common/tools.json` at ROCm/madengine
/// ef87d05e: each `cmd` less its wrapper script and the trailing `--`.
const ROCPROFV3_TOOLS: &[Rocprofv3Tool] = &[
    Rocprofv3Tool { name: "rocprof", options: "--runtime-trace", env: &[] },
    Rocprofv3Tool { name: "rocprof_hip_only", options: "--hip-trace", env: &[] },
    Rocprofv3Tool { name: "rocprof_sys", options: "--sys-trace", env: &[] },
    Rocprofv3Tool { name: "rocprofv3", options: "--runtime-trace", env: &[] },
    Rocprofv3Tool {
        name: "rocprofv3_compute",
        options: "--hip-trace --kernel-trace -i ../scripts/common/tools/counters/compute_bound.txt \
                  --output-format pftrace -d ./rocprof_output",
        env: &[],
    },
    Rocprofv3Tool {
        name: "rocprofv3_memory",
        options: "--hip-trace --kernel-trace --memory-copy-trace --memory-allocation-trace \
                  -i ../scripts/common/tools/counters/memory_bound.txt \
                  --output-format pftrace -d ./rocprof_output",
        env: &[],
    },
    Rocprofv3Tool {
        name: "rocprofv3_communication",
        options: "--hip-trace --hsa-trace --kernel-trace --memory-copy-trace --rccl-trace --scratch-memory-trace \
                  --output-format pftrace -d ./rocprof_output",
        env: &[("RCCL_DEBUG", "INFO")],
    },
    Rocprofv3Tool {
        name: "rocprofv3_full",
        options: "--hip-trace --hsa-trace --kernel-trace --memory-copy-trace --memory-allocation-trace --rccl-trace \
                  --scratch-memory-trace --marker-trace --runtime-trace \
                  -i ../scripts/common/tools/counters/full_profile.txt --output-format pftrace --stats \
                  -d ./rocprof_output",
        env: &[("RCCL_DEBUG", "INFO"), ("HSA_ENABLE_SDMA", "0")],
    },
    Rocprofv3Tool {
        name: "rocprofv3_lightweight",
        options: "--hip-trace --kernel-trace --output-format json -d ./rocprof_output",
        env: &[],
    },
    Rocprofv3Tool {
        name: "rocprofv3_agent",
        options: "--runtime-trace --stats --kernel-trace --output-format csv -d ./rocprof_output -o rocprofv3_output",
        env: &[],
    },
    Rocprofv3Tool {
        name: "rocprofv3_agent_counter",
        options: "--runtime-trace --stats --kernel-trace --output-format csv -d ./rocprof_output -o rocprofv3_output \
                  -i ../scripts/common/tools/counters/instruction_mix.txt",
        env: &[],
    },
    Rocprofv3Tool {
        name: "rocprofv3_perfetto",
        options: "--hip-trace --kernel-trace --memory-copy-trace --output-format pftrace \
                  --perfetto-trace-filename model_trace.pftrace -d ./rocprof_output",
        env: &[],
    },
    Rocprofv3Tool {
        name: "rocprofv3_api_overhead",
        options: "--hip-trace --hsa-trace --marker-trace --runtime-trace --stats --output-format json \
                  -d ./rocprof_output",
        env: &[],
    },
    Rocprofv3Tool {
        name: "rocprofv3_pc_sampling",
        options: "--hip-trace --kernel-trace --pc-sampling-beta-enabled --pc-sampling-unit time \
                  --pc-sampling-method stochastic --pc-sampling-interval 1000 \
                  --output-format pftrace -d ./rocprof_output",
        env: &[],
    },
];

const LIBRARY_LOG: &str =
    "library call logging collected by madengine's scripts; rocprof-rs does not trace library calls";

/// madengine's other tools, and why rocprof-rs cannot stand in for them.
const OTHER_TOOLS: &[(&str, &str)] = &[
    ("rpd", "rocmProfileData's tracer, a different profiler"),
    ("rocm_trace_lite", "rocm-trace-lite, a different tracer"),
    ("rocm_trace_lite_default", "rocm-trace-lite, a different tracer"),
    ("rocblas_trace", LIBRARY_LOG),
    ("hipblaslt_trace", LIBRARY_LOG),
    ("miopen_trace", LIBRARY_LOG),
    ("tensile_trace", LIBRARY_LOG),
    ("rccl_trace", "RCCL's own call logging collected by madengine's scripts; --rccl-trace traces the RCCL API"),
    ("therock_check", "a check of the ROCm installation by madengine's scripts, not profiling"),
];

/// madengine's sampling tools, which the device sampler stands in for, and the prefix of their
/// variables (`POWER_SAMPLING_RATE`; the bare `SAMPLING_RATE` is read too).
const MADENGINE_SAMPLERS: &[(&str, &str)] = &[("gpu_info_power_profiler", "POWER"), ("gpu_info_vram_profiler", "VRAM")];

/// What a profile asks of rocprof-rs.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// The application's variables: `ROCPROF_RS_*` from the rocprofv3 options, and the
    /// environment the profile's tools and `env_vars` set.
    pub vars: BTreeMap<String, String>,
    /// Each part rocprof-rs cannot do, as "what (why)", in the order the profile asks.
    pub unhonoured: Vec<String>,
    /// The files rocprofv3 would have written (`--output-format`, `--stats`), written from the
    /// dataset when the application ends.
    pub outputs: Outputs,
}

/// What is wrong with a profile, by the JSON path of the value (`$.tools[0].cmd`).
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file cannot be read.
    #[error("profile {file}: cannot read it: {source}")]
    Unreadable { file: String, source: std::io::Error },
    /// A readable file with something wrong in it.
    #[error("profile {file}: {error}")]
    In { file: String, error: Box<ProfileError> },
    /// Not JSON at all.
    #[error("not valid JSON: {0}")]
    NotJson(serde_json::Error),
    /// A value of the wrong JSON type.
    #[error("{path}: expected {expected}, found {found}")]
    Wrong { path: String, expected: &'static str, found: &'static str },
    /// A required key is absent.
    #[error("{0}: missing")]
    Missing(String),
    /// An environment variable the shell could not hold.
    #[error("{0}: not a valid environment variable name")]
    VariableName(String),
    /// A value with a NUL character.
    #[error("{0}: contains a NUL character")]
    Nul(String),
}

/// Reads and maps the profile at `path`; the error names the file.
pub fn load(path: &Path) -> Result<Profile, ProfileError> {
    let file = || path.display().to_string();
    let text = rocprof_rs_format::input::read_text(path, rocprof_rs_format::input::JSON_LIMIT)
        .map_err(|source| ProfileError::Unreadable { file: file(), source })?;
    parse(&text).map_err(|error| ProfileError::In { file: file(), error: Box::new(error) })
}

/// Maps a profile's text; the error names the JSON path of what is wrong.
pub fn parse(text: &str) -> Result<Profile, ProfileError> {
    let root: Value = serde_json::from_str(text).map_err(ProfileError::NotJson)?;
    let mut mapper = Mapper::default();
    mapper.root(object(&root, "$")?)?;
    Ok(mapper.finish())
}

#[derive(Default)]
struct Mapper {
    domains: Domains,
    options: BTreeMap<String, String>,
    tool_env: BTreeMap<String, String>,
    profile_env: BTreeMap<String, String>,
    unhonoured: Vec<String>,
    outputs: Outputs,
}

/// Top-level keys in the order they are read, so items come out in a fixed order; keys starting
/// with '_' are comments.
const KEYS: &[&str] = &["gpu_vendor", "guest_os", "tools", "env_vars", "slurm", "distributed", "debug"];

impl Mapper {
    fn root(&mut self, root: &Map<String, Value>) -> Result<(), ProfileError> {
        for &key in KEYS {
            let Some(value) = root.get(key) else { continue };
            let path = format!("$.{key}");
            match key {
                "gpu_vendor" => {
                    let vendor = string(value, &path)?;
                    if !vendor.eq_ignore_ascii_case("AMD") {
                        self.cannot(format!("gpu_vendor {vendor}"), "rocprof-rs profiles AMD GPUs");
                    }
                }
                // The OS of madengine's container image: the application runs where we do.
                "guest_os" => _ = string(value, &path)?,
                "tools" => self.tools(value, &path)?,
                "env_vars" => self.profile_env = env_vars(value, &path)?,
                "slurm" => {
                    object(value, &path)?;
                    self.cannot(
                        "slurm",
                        "rocprof-rs submits no jobs; run it inside the allocation: srun rocprof-rs run -- APP",
                    );
                }
                "distributed" => self.distributed(object(value, &path)?, &path)?,
                "debug" => {
                    let debug = value.as_bool().ok_or_else(|| wrong(&path, "true or false", value))?;
                    if debug {
                        self.cannot("debug", "madengine's debug mode has no rocprof-rs equivalent");
                    }
                }
                _ => {} // KEYS names only the keys above.
            }
        }
        for key in root.keys().filter(|k| !k.starts_with('_') && !KEYS.contains(&k.as_str())) {
            self.cannot(format!("$.{key}"), "not a profiling setting rocprof-rs knows");
        }
        Ok(())
    }

    fn tools(&mut self, value: &Value, path: &str) -> Result<(), ProfileError> {
        let tools = value.as_array().ok_or_else(|| wrong(path, "an array of tools", value))?;
        for (i, entry) in tools.iter().enumerate() {
            let path = format!("{path}[{i}]");
            let fields = object(entry, &path)?;
            let name_path = format!("{path}.name");
            let name = string(fields.get("name").ok_or_else(|| ProfileError::Missing(name_path.clone()))?, &name_path)?;
            let cmd = fields.get("cmd").map(|v| string(v, &format!("{path}.cmd"))).transpose()?;
            let env = fields.get("env_vars").map(|v| env_vars(v, &format!("{path}.env_vars"))).transpose()?;
            for key in fields.keys().filter(|k| !["name", "cmd", "env_vars"].contains(&k.as_str())) {
                self.cannot(format!("{path}.{key}"), "not a tool setting rocprof-rs knows");
            }
            self.tool(name, cmd, env.unwrap_or_default());
        }
        Ok(())
    }

    /// As madengine applies a tool: its `cmd` replaces the tool's command line, its `env_vars`
    /// are added to the tool's own.
    fn tool(&mut self, name: &str, cmd: Option<&str>, env: BTreeMap<String, String>) {
        if let Some(prefix) = MADENGINE_SAMPLERS.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
            && cmd.is_none()
        {
            return self.sampler(name, prefix, &env);
        }
        let known = ROCPROFV3_TOOLS.iter().find(|t| t.name == name);
        let options = match cmd {
            Some(cmd) => rocprofv3_options(cmd),
            None => known.map(|t| t.options.split_whitespace().collect()),
        };
        let Some(options) = options else {
            let why = match (cmd, OTHER_TOOLS.iter().find(|(n, _)| *n == name)) {
                (Some(_), _) => "its cmd is not a rocprofv3 command line",
                (None, Some((_, why))) => why,
                (None, None) => "not a madengine tool rocprof-rs knows",
            };
            return self.cannot(format!("tool {name}"), why);
        };
        let defaults = known.map_or(&[][..], |t| t.env);
        self.tool_env.extend(defaults.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        self.tool_env.extend(env);
        self.rocprofv3(&options);
    }

    /// Reads rocprofv3 options as `run` reads its own flags; a value is every following word up
    /// to the next option, as rocprofv3's multi-value options take them.
    fn rocprofv3(&mut self, words: &[&str]) {
        let mut thread_trace = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let (flag, mut values) = match words[i].split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => (flag, vec![value]),
                _ => (words[i], Vec::new()),
            };
            i += 1;
            if values.is_empty() {
                while i < words.len() && !words[i].starts_with('-') {
                    values.push(words[i]);
                    i += 1;
                }
            }
            let given = std::iter::once(flag).chain(values.iter().copied()).collect::<Vec<_>>().join(" ");
            let off = values.first().is_some_and(|v| ["0", "false", "False", "no"].contains(v));
            match flag {
                _ if trace_flag(flag).is_some() => {
                    if off {
                        continue;
                    }
                    trace_flag(flag).unwrap_or_default().iter().for_each(|d| self.domains.insert(*d));
                    if flag == "--hip-trace" || flag == "--sys-trace" {
                        self.cannot(
                            format!("the HIP compiler API of {flag}"),
                            "rocprof-rs traces the HIP runtime API only",
                        );
                    }
                }
                "-d" | "--output-directory" => self.option(config::OUTPUT_DIR, &given, &values),
                "-o" | "--output-file" => self.option(config::OUTPUT_NAME, &given, &values),
                "--kernel-include-regex" => self.option(config::KERNEL_INCLUDE, &given, &values),
                "--kernel-exclude-regex" => self.option(config::KERNEL_EXCLUDE, &given, &values),
                "--kernel-iteration-range" => {
                    let ranges = values.join(",");
                    self.option(config::KERNEL_ITERATIONS, &given, &[ranges.as_str()]);
                }
                "--truncate-kernels" => self.option(config::TRUNCATE, &given, &[if off { "0" } else { "1" }]),
                "-i" | "--input" => self.counter_file(&given, &values),
                "--pmc" if !values.is_empty() => _ = self.options.insert(config::PMC.to_owned(), values.join(",")),
                "--output-format" => {
                    for format in values.iter().flat_map(|v| v.split(',')).filter(|v| !v.is_empty()) {
                        match OutputFormat::parse(format) {
                            Ok(format) => _ = self.outputs.formats.insert(format),
                            Err(why) => self.cannot(format!("--output-format {format}"), &why.to_string()),
                        }
                    }
                }
                "--stats" => self.outputs.stats |= !off,
                "--perfetto-trace-filename" => match values.as_slice() {
                    [name] if Outputs::check_pftrace_name(name).is_ok() => {
                        self.outputs.pftrace_name = Some((*name).into())
                    }
                    _ => self.cannot(given, "it needs one file name, without a folder"),
                },
                // Perfetto's own buffers and backend: the trace is written from the dataset.
                _ if flag.starts_with("--perfetto") => {}
                "--pc-sampling-beta-enabled" => {}
                "--pc-sampling-method" => self.option(config::PC_SAMPLING_METHOD, &given, &values),
                "--pc-sampling-unit" => self.option(config::PC_SAMPLING_UNIT, &given, &values),
                "--pc-sampling-interval" => self.option(config::PC_SAMPLING_INTERVAL, &given, &values),
                _ if flag.starts_with("--att") => thread_trace.push(given),
                _ => self.cannot(given, "no rocprof-rs equivalent"),
            }
        }
        if !thread_trace.is_empty() {
            self.cannot(thread_trace.join(" "), "thread trace (ATT) is not supported");
        }
    }

    /// A counter input file: read where it is; where it is not (madengine's paths are relative
    /// to its own scripts), its name is taken for the preset of that name, which carries the
    /// same counters resolved for each GPU.
    fn counter_file(&mut self, given: &str, values: &[&str]) {
        let [path] = values else { return self.cannot(given, "it needs exactly one file") };
        let path = std::path::Path::new(path);
        if path.is_file() {
            let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
            self.options.insert(config::PMC_FILE.to_owned(), absolute.display().to_string());
            return;
        }
        match path.file_stem().and_then(|s| s.to_str()).and_then(rocprof_rs::counters::presets::by_name) {
            Some(preset) => _ = self.options.insert(config::COUNTER_PRESET.to_owned(), preset.name.to_owned()),
            None => self.cannot(given, "the file is not there, and its name is no rocprof-rs preset"),
        }
    }

    fn option(&mut self, variable: &str, given: &str, values: &[&str]) {
        match values {
            [value] if !value.is_empty() => _ = self.options.insert(variable.to_owned(), (*value).to_owned()),
            _ => self.cannot(given, "it needs exactly one value"),
        }
    }

    fn distributed(&mut self, fields: &Map<String, Value>, path: &str) -> Result<(), ProfileError> {
        let launcher = match fields.get("launcher") {
            Some(value) => string(value, &format!("{path}.launcher"))?,
            None => "its launcher",
        };
        let nodes = match fields.get("nnodes") {
            Some(value) => value.as_u64().ok_or_else(|| wrong(&format!("{path}.nnodes"), "a whole number", value))?,
            None => 1,
        };
        let run = format!("run rocprof-rs run -- {launcher} ... and every worker inherits the tool");
        let why = match nodes {
            1 => format!("rocprof-rs launches nothing itself; {run}"),
            n => format!("rocprof-rs launches nothing itself; on each of the {n} nodes {run}"),
        };
        self.cannot(format!("distributed launcher {launcher}"), &why);
        Ok(())
    }

    /// madengine's power or VRAM sampler, as the device sampler: its interval (`SAMPLING_RATE`,
    /// seconds; madengine's default 0.1) in milliseconds, the shorter where both are asked for.
    /// Its `DEVICE` list is not honoured: every GPU is sampled.
    fn sampler(&mut self, name: &str, prefix: &str, env: &BTreeMap<String, String>) {
        let setting = |key: &str| env.get(&format!("{prefix}_{key}")).or_else(|| env.get(key)).map(|v| v.trim());
        let rate = setting("SAMPLING_RATE").unwrap_or("0.1");
        let Some(ms) = rate
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(|s| (s * 1e3).round().clamp(1.0, 60_000.0) as u64)
        else {
            return self.cannot(format!("tool {name} SAMPLING_RATE {rate}"), "not a number of seconds above 0");
        };
        let interval =
            self.options.get(config::DEVICE_SAMPLE_MS).and_then(|v| v.parse::<u64>().ok()).map_or(ms, |v| v.min(ms));
        self.options.insert(config::DEVICE_SAMPLE_MS.to_owned(), interval.to_string());
        if let Some(devices) = setting("DEVICE").filter(|d| !d.eq_ignore_ascii_case("all")) {
            self.cannot(
                format!("tool {name} DEVICE {devices}"),
                "rocprof-rs samples every GPU, and `export madengine` writes a column for each",
            );
        }
    }

    fn cannot(&mut self, what: impl AsRef<str>, why: &str) {
        let item = format!("{} ({why})", what.as_ref());
        if !self.unhonoured.contains(&item) {
            self.unhonoured.push(item);
        }
    }

    fn finish(mut self) -> Profile {
        if !self.domains.is_empty() {
            self.options.insert(config::DOMAINS.to_owned(), domains_text(self.domains));
        }
        let mut vars = self.profile_env;
        vars.extend(self.tool_env);
        vars.extend(self.options);
        Profile { vars, unhonoured: self.unhonoured, outputs: self.outputs }
    }
}

/// The rocprofv3 options in a madengine `cmd`: the words after `rocprofv3` or madengine's
/// `rocprof_wrapper.sh`, up to `--`. None if it runs neither.
fn rocprofv3_options(cmd: &str) -> Option<Vec<&str>> {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let program = |word: &&str| matches!(word.rsplit('/').next(), Some("rocprofv3" | "rocprof_wrapper.sh"));
    let start = words.iter().position(program)? + 1;
    Some(words[start..].iter().take_while(|w| **w != "--").copied().collect())
}

fn object<'a>(value: &'a Value, path: &str) -> Result<&'a Map<String, Value>, ProfileError> {
    value.as_object().ok_or_else(|| wrong(path, "an object", value))
}

fn string<'a>(value: &'a Value, path: &str) -> Result<&'a str, ProfileError> {
    value.as_str().ok_or_else(|| wrong(path, "a string", value))
}

/// An `env_vars` object; numbers are taken as their text, as a shell would see them.
fn env_vars(value: &Value, path: &str) -> Result<BTreeMap<String, String>, ProfileError> {
    let mut env = BTreeMap::new();
    for (name, value) in object(value, path)? {
        let path = format!("{path}.{name}");
        if name.is_empty() || name.contains(['=', '\0']) {
            return Err(ProfileError::VariableName(path));
        }
        let text = match value {
            Value::String(text) => text.clone(),
            Value::Number(number) => number.to_string(),
            other => return Err(wrong(&path, "a string", other)),
        };
        if text.contains('\0') {
            return Err(ProfileError::Nul(path));
        }
        env.insert(name.clone(), text);
    }
    Ok(env)
}

fn wrong(path: &str, expected: &'static str, found: &Value) -> ProfileError {
    let found = match found {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    ProfileError::Wrong { path: path.to_owned(), expected, found }
}

#[cfg(test)]
mod tests;
