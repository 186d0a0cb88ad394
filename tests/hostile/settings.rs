//! Settings that are not what they seem: `ROCPROF_RS_*` values that are not UTF-8, and a host
//! whose name would hide the default file-name stem. Before, a value that was not UTF-8 was
//! skipped as if unset (an output directory with a 0xff byte wrote to `./rocprof-rs-output`,
//! `POLICY=drop\xff` ran lossless, a domains list lost its last entry), and a host named `_x`
//! turned profiling off blaming `ROCPROF_RS_OUTPUT_NAME`, which the user never set.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::time::Duration;

use super::*;

/// `text` with the byte 0xff after it: not UTF-8.
fn with_ff(text: &[u8]) -> OsString {
    OsStr::from_bytes(&[text, b"\xff"].concat()).to_owned()
}

#[test]
fn a_value_that_is_not_utf8_is_refused_by_name_not_skipped() {
    let dir = scratch("hostile-not-utf8");
    let out_with_ff = [dir.join("out").as_os_str().as_bytes(), b"\xff"].concat();
    for (variable, value) in [
        ("ROCPROF_RS_OUTPUT_DIR", OsStr::from_bytes(&out_with_ff).to_owned()),
        ("ROCPROF_RS_POLICY", with_ff(b"drop")),
        ("ROCPROF_RS_DOMAINS", with_ff(b"kernel,marker")),
        ("ROCPROF_RS_OUTPUT_NAME", with_ff(b"run")),
    ] {
        let mut cmd = app(&dir, 2_000);
        // Where the default output directory would be written, were the value skipped.
        cmd.current_dir(&dir).args(["--no-truth", "--exit-code", "7"]).env(variable, &value);
        let output = finish_within(&mut cmd, Duration::from_secs(60));
        assert_unharmed(&output, variable);
        let line = &tool_lines(&output)[0];
        assert!(line.contains("UTF-8"), "{line}");
        assert!(!dir.join("rocprof-rs-output").exists(), "{variable}: nothing may be written to the default");
    }
    // The command line refuses it too, before the application starts.
    let run = cli()
        .args(["run", "--kernel-trace", "-d"])
        .arg(dir.join("cli"))
        .args(["--", "true"])
        .env("ROCPROF_RS_POLICY", with_ff(b"drop"))
        .output()
        .unwrap();
    assert!(!run.status.success(), "{}", stderr(&run));
    let lines = tool_lines(&run);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("ROCPROF_RS_POLICY") && lines[0].contains("UTF-8"), "{}", lines[0]);
}

/// Whether this machine lets an unprivileged user namespace set its own host name.
fn can_set_hostname() -> bool {
    Command::new("unshare")
        .args(["-U", "-r", "-u", "sh", "-c", "printf _probe > /proc/sys/kernel/hostname"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_hostname_that_would_hide_the_default_stem_does_not_turn_profiling_off() {
    if !can_set_hostname() {
        // The stem builder's own test (config::tests) covers the same hosts without one.
        eprintln!("skipped: no user namespace to set a host name in (unshare -U -r -u)");
        return;
    }
    for (host, stem) in [("_gpu01", "hostname_gpu01-"), (".local", "hostname.local-")] {
        let dir = scratch("hostile-hostname");
        let sim = app(&dir, 2_000);
        let mut cmd = Command::new("unshare");
        cmd.args(["-U", "-r", "-u", "sh", "-c"])
            .arg(format!("printf '{host}' > /proc/sys/kernel/hostname && exec \"$@\""))
            .arg("sh")
            .arg(sim.get_program())
            .args(sim.get_args())
            .args(["--no-truth", "--exit-code", "7"]);
        for (key, value) in sim.get_envs() {
            match value {
                Some(value) => cmd.env(key, value),
                None => cmd.env_remove(key),
            };
        }
        let output = finish_within(&mut cmd, Duration::from_secs(60));
        assert_eq!(output.status.code(), Some(7), "{}", stderr(&output));
        let said = stderr(&output);
        assert!(!said.contains("ROCPROF_RS_OUTPUT_NAME") && !said.contains("rocprof-rs is off"), "{said}");
        let written: Vec<String> = std::fs::read_dir(dir.join("out/kernel_dispatch"))
            .unwrap_or_else(|e| panic!("host {host:?}: no kernel_dispatch folder ({e}): {said}"))
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            written.iter().any(|name| name.starts_with(stem) && name.ends_with(".parquet")),
            "host {host:?}: {written:?}"
        );
    }
}
