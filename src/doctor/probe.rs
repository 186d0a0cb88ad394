//! Finding things on a machine without trusting that any of them exist: files, libraries,
//! executables and their versions. Every external command runs with a deadline.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long an external `--version` may take before it is killed.
const COMMAND_DEADLINE: Duration = Duration::from_secs(5);

/// The directories a library may be in, most specific first: `extra` (a ROCm or CUDA install),
/// `LD_LIBRARY_PATH`, the loader's cache and the standard directories.
pub fn library_dirs(extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = extra.to_vec();
    if let Some(path) = std::env::var_os("LD_LIBRARY_PATH") {
        dirs.extend(std::env::split_paths(&path).filter(|p| !p.as_os_str().is_empty()));
    }
    dirs.extend(ldconfig_dirs());
    for dir in ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib", "/lib/x86_64-linux-gnu"] {
        dirs.push(PathBuf::from(dir));
    }
    dedup(dirs)
}

/// The directories of the loader's cache, from `ldconfig -p`, read once per process.
fn ldconfig_dirs() -> Vec<PathBuf> {
    static DIRS: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    DIRS.get_or_init(|| {
        let Some(out) = run_with_deadline(Path::new("/sbin/ldconfig"), &["-p"]) else { return Vec::new() };
        let dirs = out
            .lines()
            .filter_map(|line| line.rsplit_once("=> ").map(|(_, path)| path.trim()))
            .filter_map(|path| Path::new(path).parent().map(Path::to_path_buf));
        dedup(dirs.collect())
    })
    .clone()
}

/// The first of `names` found in `dirs`, with its resolved path.
pub fn find_library(dirs: &[PathBuf], names: &[&str]) -> Option<(PathBuf, PathBuf)> {
    names.iter().find_map(|name| {
        dirs.iter().map(|dir| dir.join(name)).find(|path| path.exists()).map(|path| {
            let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            (path, real)
        })
    })
}

/// The version a shared library's file name carries: `libamdhip64.so.6.4.60400` → `6.4.60400`.
pub fn version_from_soname(real: &Path) -> Option<String> {
    let name = real.file_name()?.to_str()?;
    let (_, version) = name.split_once(".so.")?;
    (!version.is_empty()).then(|| version.to_owned())
}

/// The first of `names` found in `dirs` or on `PATH`.
pub fn find_executable(dirs: &[PathBuf], names: &[&str]) -> Option<PathBuf> {
    let mut search: Vec<PathBuf> = dirs.to_vec();
    if let Some(path) = std::env::var_os("PATH") {
        search.extend(std::env::split_paths(&path));
    }
    names.iter().find_map(|name| search.iter().map(|dir| dir.join(name)).find(|path| is_executable(path)))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

/// Runs `program args`, returning its stdout and stderr if it exits within the deadline. The
/// program gets no stdin, so it cannot wait for input.
pub fn run_with_deadline(program: &Path, args: &[&str]) -> Option<String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < COMMAND_DEADLINE => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut text = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut text);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut text);
    }
    Some(text)
}

/// The first `N.N[.N...]` in `text`, optionally only on a line containing `hint`.
pub fn first_version(text: &str, hint: Option<&str>) -> Option<String> {
    text.lines().filter(|line| hint.is_none_or(|h| line.to_ascii_lowercase().contains(h))).find_map(|line| {
        line.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .find(|word| {
                let parts: Vec<&str> = word.split('.').collect();
                parts.len() >= 2 && parts.iter().all(|p| !p.is_empty())
            })
            .map(str::to_owned)
    })
}

fn dedup(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    paths.into_iter().filter(|p| seen.insert(p.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_come_from_the_real_file_name() {
        assert_eq!(
            version_from_soname(Path::new("/opt/rocm/lib/libamdhip64.so.6.4.60400")).as_deref(),
            Some("6.4.60400")
        );
        assert_eq!(version_from_soname(Path::new("/x/librocprofiler-sdk.so.1.0.0")).as_deref(), Some("1.0.0"));
        assert_eq!(version_from_soname(Path::new("/x/libfoo.so")), None);
    }

    #[test]
    fn the_first_dotted_number_is_the_version() {
        assert_eq!(first_version("rocprofv3 1.0.0 (abc)\n", None).as_deref(), Some("1.0.0"));
        assert_eq!(
            first_version("AMDSMI Tool: 24.7.1+0012a68 | AMDSMI Library version: 24.7.1.0 | ROCm version: 6.4.0", None)
                .as_deref(),
            Some("24.7.1")
        );
        assert_eq!(first_version("line one\nROCm version: 7.0.1\n", Some("rocm")).as_deref(), Some("7.0.1"));
        assert_eq!(first_version("no numbers. here 3.", None), None);
    }

    #[test]
    fn a_command_that_hangs_is_cut_off() {
        let start = Instant::now();
        assert!(run_with_deadline(Path::new("/bin/sleep"), &["30"]).is_none());
        assert!(start.elapsed() < COMMAND_DEADLINE + Duration::from_secs(2));
    }

    #[test]
    fn a_missing_program_is_none_not_a_panic() {
        assert!(run_with_deadline(Path::new("/nonexistent/tool"), &["--version"]).is_none());
    }
}
