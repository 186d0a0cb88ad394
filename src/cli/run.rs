//! `rocprof-rs run`: check the whole configuration first, because once the application runs the
//! tool can only refuse a bad value by tracing nothing; then launch and report.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::process::{Command, ExitCode};

use rocprof_rs::config::{Config, Placeholders};

use super::env::{self, LD_PRELOAD, TOOL_LIBRARIES};
use super::flags::RunArgs;
use super::{launch, profile, tool_path};

/// Nothing was started: bad options, a bad value or no tool. The code clap gives bad usage.
const NOT_STARTED: u8 = 2;

/// Runs the application under the tool and returns its exit code (128 + N for signal N).
pub fn run(args: RunArgs) -> ExitCode {
    let app = args.command[0].to_string_lossy().into_owned();
    let (mut command, env) = match prepare(&args) {
        Ok(prepared) => prepared,
        Err(message) => {
            eprintln!("rocprof-rs: {message}");
            return ExitCode::from(NOT_STARTED);
        }
    };
    let (pid, status) = match launch::run(&mut command) {
        Ok(finished) => finished,
        Err(error) => {
            let (code, line) = launch::not_started(&app, &error);
            eprintln!("{line}");
            return ExitCode::from(code);
        }
    };
    let (code, line) = launch::outcome(&app, status);
    if let Some(line) = line {
        eprintln!("{line}");
    }
    eprintln!("rocprof-rs: output in {}", output_dir(&env, pid));
    ExitCode::from(code)
}

/// The command to run and the variables it will see (for naming its output afterwards).
fn prepare(args: &RunArgs) -> Result<(Command, BTreeMap<String, String>), String> {
    let parent: BTreeMap<String, String> =
        std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))).collect();
    let from_profile = match &args.profile {
        None => BTreeMap::new(),
        Some(path) => {
            let profile = profile::load(path)?;
            for item in &profile.unhonoured {
                eprintln!("rocprof-rs: profile {}: cannot honour {item}", path.display());
            }
            profile.vars
        }
    };
    let overrides = env::layered(&from_profile, &[&args.vars()]);
    let seen = env::layered(&parent, &[&overrides]);
    Config::from_vars(&seen, &Placeholders::of_this_process(&seen)).map_err(|e| e.to_string())?;

    let exe = std::env::current_exe().map_err(|e| format!("cannot find this command's own path: {e}"))?;
    let tool = tool_path::locate(args.tool.as_deref(), &exe)?;
    if let Some(why) = env::unlistable(&tool, args.preload) {
        return Err(format!("cannot use the tool {}: {why}", tool.display()));
    }
    // Values the profile set win over the inherited ones, and may not be UTF-8 when inherited.
    let existing = |name: &str| overrides.get(name).map(OsString::from).or_else(|| std::env::var_os(name));

    let mut command = Command::new(&args.command[0]);
    command.args(&args.command[1..]).envs(&overrides);
    command.env(TOOL_LIBRARIES, env::tool_libraries(existing(TOOL_LIBRARIES).as_deref(), &tool));
    if args.preload {
        command.env(LD_PRELOAD, env::ld_preload(existing(LD_PRELOAD).as_deref(), &tool));
    }
    Ok((command, seen))
}

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
