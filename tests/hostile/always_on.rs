//! The always-on modes under abuse: a flight recorder whose dumps cannot be written, a request
//! file that is a directory or a FIFO, a signal storm, and windows on a run killed mid-window.
//! The application's exit code stays its own, nothing visible is half-written, and each fault
//! is said in one line.

use super::*;

/// The simulated application under the flight recorder, with `vars`; exits with 5.
fn recorded(dir: &Path, dispatches: u64, vars: &[(&str, &str)]) -> Command {
    let mut cmd = app(dir, dispatches);
    cmd.args(["--no-truth", "--launch-gap-us", "20", "--exit-code", "5"])
        .env("ROCPROF_RS_DOMAINS", "kernel")
        .env("ROCPROF_RS_FLIGHT_RECORDER", "30")
        .env("ROCPROF_RS_FLUSH_MS", "50")
        .envs(vars.iter().copied());
    cmd
}

fn visible_dumps(out: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(out)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("dump-") && p.is_dir())
                .collect()
        })
        .unwrap_or_default()
}

/// A file-size limit that no dump fits under: each dump fails with one line, nothing visible
/// is left of it, and the application runs to its own exit code.
#[test]
fn a_dump_onto_a_full_disk_fails_in_one_line_and_leaves_no_visible_dump() {
    let dir = scratch("hostile-dump-full");
    let mut cmd = recorded(&dir, 40_000, &[("ROCPROF_RS_DUMP_ON_EXIT", "1")]);
    limit_file_size(&mut cmd, 4096);
    let output = finish_within(&mut cmd, Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
    let lines = tool_lines(&output);
    assert!(lines.iter().any(|l| l.contains("exit dump failed")), "{lines:?}");
    for dump in visible_dumps(&dir.join("out")) {
        assert!(
            std::fs::read_dir(&dump).unwrap().next().is_none() || dump.join("kernel_dispatch").exists(),
            "a visible dump is whole or empty: {}",
            dump.display()
        );
    }
}

/// The request file as a directory or a FIFO: the recorder reads its time stamp, never opens
/// it, so neither blocks nor breaks the run.
#[test]
fn a_request_file_that_is_a_directory_or_a_fifo_neither_blocks_nor_breaks_the_run() {
    for kind in ["directory", "fifo"] {
        let dir = scratch(&format!("hostile-request-{kind}"));
        let out = dir.join("out");
        std::fs::create_dir_all(&out).unwrap();
        let request = out.join("dump-request");
        if kind == "directory" {
            std::fs::create_dir(&request).unwrap();
        } else {
            let path = std::ffi::CString::new(request.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
        }
        let output = finish_within(&mut recorded(&dir, 5_000, &[]), Duration::from_secs(60));
        assert_eq!(output.status.code(), Some(5), "{kind}: {}", stderr(&output));
        let lines = tool_lines(&output);
        assert_eq!(lines.len(), 1, "{kind}: only the exit line: {lines:?}");
    }
}

/// A storm of dump signals: the application is never killed by one, and every visible dump is
/// whole.
#[test]
fn a_storm_of_dump_signals_never_kills_the_application() {
    let dir = scratch("hostile-signal-storm");
    let mut child = recorded(&dir, 60_000, &[])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..200 {
        // SAFETY: signalling our own child, which may have exited (then ESRCH, ignored).
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGUSR2) };
        std::thread::sleep(Duration::from_micros(500));
    }
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
    for dump in visible_dumps(&dir.join("out")) {
        assert!(dump.join("kernel_dispatch").exists() || dump.join("agent").exists(), "{}", dump.display());
    }
}

/// Windows on a run killed in the middle: what was completed stays readable, the exit is the
/// kill's, and no file under a final name is half-written.
#[test]
fn a_windowed_run_killed_mid_window_leaves_only_whole_files() {
    let dir = scratch("hostile-window-kill");
    let mut child = app(&dir, 2_000_000)
        .args(["--no-truth", "--launch-gap-us", "5"])
        .env("ROCPROF_RS_WINDOW", "20ms/40ms")
        .env("ROCPROF_RS_ROTATE_ROWS", "2000")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    child.kill().unwrap();
    let _ = child.wait();
    let out = dir.join("out");
    for table in ["kernel_dispatch", "window"] {
        let folder = out.join(table);
        if folder.exists() && complete_files(&folder) > 0 {
            let read = cli().args(["stats"]).arg(&out).output().unwrap();
            assert!(read.status.success(), "{table}: {}", stderr(&read));
        }
    }
}
