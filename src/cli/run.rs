//! `rocprof-rs run`: check the whole configuration first, because once the application runs the
//! tool can only refuse a bad value by tracing nothing; then launch and report.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::process::{Command, ExitCode};

use std::path::Path;

use rocprof_rs::config::{self, Config, Placeholders};
use rocprof_rs::counters::PassMode;

use super::env::{self, LD_PRELOAD, TOOL_LIBRARIES};
use super::flags::RunArgs;
use super::output_formats::Outputs;
use super::{backend, launch, profile, tool_path};

/// Nothing was started: bad options, a bad value or no tool. The code clap gives bad usage.
const NOT_STARTED: u8 = 2;

/// Runs the application under the tool and returns its exit code (128 + N for signal N). With
/// whole-application counter passes, the application runs once per pass, each run writing its
/// own files (`<name>-passN`); the first run's metadata says how many passes there are.
pub fn run(args: RunArgs) -> ExitCode {
    let app = args.command[0].to_string_lossy().into_owned();
    let (prepared, env) = match prepare(&args) {
        Ok(prepared) => prepared,
        Err(message) => {
            eprintln!("rocprof-rs: {message}");
            return ExitCode::from(NOT_STARTED);
        }
    };
    let application_passes = Config::from_vars(&env, &Placeholders::of_this_process(&env))
        .is_ok_and(|c| c.counters.is_some_and(|r| r.mode == PassMode::Application));
    if !application_passes {
        let (code, dir) = run_once(&app, prepared.command(&[]), &env, std::time::SystemTime::now());
        write_outputs(&prepared.outputs, dir.as_deref());
        return code;
    }
    let template = env.get(config::OUTPUT_NAME).cloned().unwrap_or_else(|| "%hostname%-%pid%".into());
    let (mut pass, mut passes) = (0, 1);
    let mut last_dir = None;
    while pass < passes {
        let extra = [(config::COUNTER_PASS, pass.to_string()), (config::OUTPUT_NAME, format!("{template}-pass{pass}"))];
        let started = std::time::SystemTime::now();
        let (code, dir) = run_once(&app, prepared.command(&extra), &env, started);
        if code != ExitCode::SUCCESS {
            write_outputs(&prepared.outputs, dir.as_deref());
            return code;
        }
        last_dir = dir.clone();
        if pass == 0 {
            passes = match dir.as_deref().and_then(|d| counter_passes(Path::new(d), started)) {
                Some(n) => n.max(1),
                None => {
                    eprintln!(
                        "rocprof-rs: cannot tell how many counter passes there are (no run metadata found in the output directory since the run began); ran pass 0 only"
                    );
                    return ExitCode::from(NOT_STARTED);
                }
            };
            if passes > 1 {
                let more = passes - 1;
                let times = if more == 1 { "time" } else { "times" };
                eprintln!("rocprof-rs: the counters take {passes} passes: running the application {more} more {times}");
            }
        }
        pass += 1;
    }
    write_outputs(&prepared.outputs, last_dir.as_deref());
    ExitCode::SUCCESS
}

/// The files rocprofv3's output flags ask for, from the dataset the run wrote; a failure is
/// said and leaves the exit code alone.
fn write_outputs(outputs: &Outputs, dir: Option<&str>) {
    if let Some(dir) = dir.filter(|_| outputs.any()) {
        // One line, ours: the default hook's two (and its backtrace note) are held back.
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| outputs.write(Path::new(dir))));
        std::panic::set_hook(hook);
        if let Err(payload) = written {
            let why = rocprof_rs_format::panic::text(&*payload).unwrap_or("a panic");
            eprintln!("rocprof-rs: {} not written: an internal error ({why})", outputs.names());
        }
    }
}

/// Runs one command to its end; its exit code and the output directory, where it wrote one.
fn run_once(
    app: &str,
    mut command: Command,
    env: &BTreeMap<String, String>,
    started: std::time::SystemTime,
) -> (ExitCode, Option<String>) {
    let (pid, status) = match launch::run(&mut command) {
        Ok(finished) => finished,
        Err(error) => {
            let (code, line) = launch::not_started(app, &error);
            eprintln!("{line}");
            return (ExitCode::from(code), None);
        }
    };
    let (code, line) = launch::outcome(app, status);
    if let Some(line) = line {
        eprintln!("{line}");
    }
    let dir = output_dir(env, pid);
    let runs = runs_since(Path::new(&dir), started);
    if runs.is_empty() {
        eprintln!(
            "rocprof-rs: nothing written to {dir}: the application started no GPU runtime, or the tool turned itself off (its message above says why)"
        );
        return (ExitCode::from(code), None);
    } else if let Some(error) = runs.iter().find_map(|run| run.get("error")?.as_str()) {
        eprintln!("rocprof-rs: output in {dir} is incomplete: the tool stopped: {error}");
    } else {
        eprintln!("rocprof-rs: output in {dir}");
    }
    (ExitCode::from(code), Some(dir))
}

/// The run metadata the tool wrote in `dir` since `since`: one object per process that
/// started the tool (each claims its metadata file first).
fn runs_since(dir: &Path, since: std::time::SystemTime) -> Vec<serde_json::Value> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(rocprof_rs_format::keys::METADATA_FILE_SUFFIX))
        .filter(|e| e.metadata().and_then(|m| m.modified()).is_ok_and(|t| t >= since))
        .filter_map(|e| rocprof_rs_format::input::read_text(&e.path(), rocprof_rs_format::input::JSON_LIMIT).ok())
        .filter_map(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .collect()
}

/// The passes the counters need, from the run metadata the tool wrote since `since`; `None`
/// when there is none to read.
fn counter_passes(dir: &Path, since: std::time::SystemTime) -> Option<usize> {
    runs_since(dir, since)
        .into_iter()
        .map(|json| {
            json.get(rocprof_rs_format::keys::COUNTER_PASSES)
                .and_then(|p| p.as_str()?.parse::<usize>().ok())
                .unwrap_or(1)
        })
        .max()
}

/// Builds the command to run, with extra variables for one run.
type Build<'a> = Box<dyn Fn(&[(&str, String)]) -> Command + 'a>;

/// The command to run, and what to write from its dataset when it ends.
struct Prepared<'a> {
    command: Build<'a>,
    outputs: Outputs,
}

impl Prepared<'_> {
    fn command(&self, extra: &[(&str, String)]) -> Command {
        (self.command)(extra)
    }
}

/// Why the application was not started.
#[derive(Debug, thiserror::Error)]
enum NotStarted {
    #[error(transparent)]
    Profile(#[from] profile::ProfileError),
    #[error(transparent)]
    Settings(#[from] rocprof_rs::Error),
    #[error("cannot find this command's own path: {0}")]
    OwnPath(std::io::Error),
    #[error(transparent)]
    ToolPath(#[from] tool_path::ToolPathError),
    #[error("cannot use the tool {tool}: {why}")]
    UnlistableTool { tool: String, why: &'static str },
    #[error(transparent)]
    Injection(#[from] backend::InjectionTaken),
}

/// The command to run and the variables it will see (for naming its output afterwards).
fn prepare(args: &RunArgs) -> Result<(Prepared<'_>, BTreeMap<String, String>), NotStarted> {
    let parent = rocprof_rs::config::utf8_vars(std::env::vars_os())?;
    let (from_profile, profile_outputs) = match &args.profile {
        None => (BTreeMap::new(), Outputs::default()),
        Some(path) => {
            let profile = profile::load(path)?;
            for item in &profile.unhonoured {
                eprintln!("rocprof-rs: profile {}: cannot honour {item}", path.display());
            }
            (profile.vars, profile.outputs)
        }
    };
    let outputs = profile_outputs.merged(&args.outputs());
    let overrides = env::layered(&from_profile, &[&args.vars()]);
    let seen = env::layered(&parent, &[&overrides]);
    Config::from_vars(&seen, &Placeholders::of_this_process(&seen))?;

    let exe = std::env::current_exe().map_err(NotStarted::OwnPath)?;
    let tool = tool_path::locate(args.tool.as_deref(), &exe)?;
    if let Some(why) = env::unlistable(&tool, args.preload) {
        return Err(NotStarted::UnlistableTool { tool: tool.display().to_string(), why });
    }
    // Values the profile set win over the inherited ones, and may not be UTF-8 when inherited.
    let existing = |name: &str| overrides.get(name).map(OsString::from).or_else(|| std::env::var_os(name));

    let backends = backend::choose(args.backend);
    let config = Config::from_vars(&seen, &Placeholders::of_this_process(&seen))?;
    let injection = if backends.cupti { backend::cuda_injection(&tool, &config, &existing)? } else { Vec::new() };
    let libraries = backends.rocprofiler_sdk.then(|| env::tool_libraries(existing(TOOL_LIBRARIES).as_deref(), &tool));
    let preload = args.preload.then(|| env::ld_preload(existing(LD_PRELOAD).as_deref(), &tool));
    let pc_sampling_beta = config.pc_sampling.is_some() && existing(PC_SAMPLING_BETA).is_none();
    let build = move |extra: &[(&str, String)]| {
        let mut command = Command::new(&args.command[0]);
        command.args(&args.command[1..]).envs(&overrides);
        command.envs(extra.iter().map(|(k, v)| (*k, v)));
        command.envs(injection.iter().map(|(k, v)| (*k, v)));
        if let Some(libraries) = &libraries {
            command.env(TOOL_LIBRARIES, libraries);
            // The SDK serves PC sampling only with its beta switch on, as rocprofv3's
            // --pc-sampling-beta-enabled sets it; one already in the environment is kept.
            if pc_sampling_beta {
                command.env(PC_SAMPLING_BETA, "ON");
            }
        }
        if let Some(preload) = &preload {
            command.env(LD_PRELOAD, preload);
        }
        command
    };
    Ok((Prepared { command: Box::new(build), outputs }, seen))
}

/// The SDK's switch for its (beta) PC sampling service.
const PC_SAMPLING_BETA: &str = "ROCPROFILER_PC_SAMPLING_BETA_ENABLED";

/// The directory the tool wrote to, as the application's own placeholders expand it. Only
/// `%timestamp%` can differ: the tool stamps the moment it starts, a little later.
fn output_dir(env: &BTreeMap<String, String>, child: u32) -> String {
    let mut placeholders = Placeholders::of_this_process(env);
    placeholders.pid = child;
    placeholders.ppid = std::process::id();
    match Config::from_vars(env, &placeholders) {
        Ok(config) => config.output_dir.display().to_string(),
        Err(e) => format!("an unknown directory ({e})"),
    }
}
