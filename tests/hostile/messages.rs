//! Round trips and messages: what the CLI writes reads back, every refusal is one line that
//! names what and where, and nothing is left behind or replaced that the user did not ask for.

use std::time::Duration;

use super::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// The kernel trace header rocprofv3 writes.
fn kernel_header() -> String {
    let text = std::fs::read_to_string(Path::new(FIXTURES).join("rocprofv3/kernel_trace.csv")).unwrap();
    text.lines().next().unwrap().to_owned()
}

/// One kernel_trace.csv row of kernel `name` (already a CSV field), dispatch `id`.
fn kernel_row(id: u64, name: &str) -> String {
    format!(
        "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,7,{id},10,{name},{id},{},{},0,0,8,0,16,64,1,1,1024,1,1",
        1000 * id,
        1000 * id + 500
    )
}

fn import(input: &Path, out: &Path) -> Output {
    cli().arg("import").arg(input).arg("-o").arg(out).output().unwrap()
}

/// The kernel names of a dataset, as `stats --format json` gives them, sorted.
fn kernel_names(data: &Path) -> Vec<String> {
    let output = cli().arg("stats").arg(data).args(["--format", "json", "--section", "kernel"]).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rows = json["sections"][0]["rows"].as_array().unwrap();
    let mut names: Vec<String> = rows.iter().map(|r| r["name"].as_str().unwrap().to_owned()).collect();
    names.sort();
    names
}

/// A kernel name with a quote, a comma and a newline, as a CSV field quotes it (the quote
/// doubled), reads in, exports with a warning, and reads back the same.
#[test]
fn a_name_with_a_quote_a_comma_and_a_newline_round_trips_through_the_csv_export() {
    let dir = scratch("hostile-csv-round-trip");
    let input = dir.join("run");
    std::fs::create_dir_all(&input).unwrap();
    let awkward = "say \"hi\", then\nleave";
    let rows = [kernel_header(), kernel_row(1, "\"say \"\"hi\"\", then\nleave\""), kernel_row(2, "\"plain\"")];
    std::fs::write(input.join("4242_kernel_trace.csv"), rows.join("\n") + "\n").unwrap();
    let data = dir.join("data");
    let output = import(&input, &data);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(kernel_names(&data), ["plain", awkward]);
    let exported = dir.join("exported");
    let output =
        cli().arg("export").arg(&data).args(["--format", "rocprofv3-csv", "-o"]).arg(&exported).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let warnings: Vec<&str> = std::str::from_utf8(&output.stderr).unwrap().lines().collect();
    assert_eq!(warnings.len(), 1, "one warning: {warnings:?}");
    assert!(warnings[0].contains("1 field holds a quote"), "{warnings:?}");
    let back = dir.join("back");
    let output = import(&exported, &back);
    assert!(output.status.success(), "the export does not import: {}", stderr(&output));
    assert_eq!(kernel_names(&back), ["plain", awkward]);
}

/// The error named line N - 1 for a bad value on line N of a file with CR LF line ends (as
/// Python's csv module writes them) or a blank line before it.
#[test]
fn a_bad_csv_value_is_named_with_its_own_line() {
    let dir = scratch("hostile-csv-line");
    let input = dir.join("run");
    std::fs::create_dir_all(&input).unwrap();
    let good: Vec<String> = (1..=3).map(|id| kernel_row(id, "\"k\"")).collect();
    let bad_queue = |row: &str| row.replacen("\"Agent 4\",1,", "\"Agent 4\",x1,", 1);
    let cases: [(Vec<String>, &str, &str); 4] = [
        // Line 4 (the header is line 1).
        (
            [vec![kernel_header()], good[..2].to_vec(), vec![bad_queue(&good[2])]].concat(),
            "\r\n",
            ":4: column Queue_Id",
        ),
        // A blank line 3, then line 4.
        (vec![kernel_header(), good[0].clone(), String::new(), bad_queue(&good[1])], "\n", ":4: column Queue_Id"),
        // A name over lines 3 and 4, then line 5.
        (
            vec![kernel_header(), good[0].clone(), kernel_row(2, "\"two\nlines\""), bad_queue(&good[2])],
            "\r\n",
            ":5: column Queue_Id",
        ),
        // A row of the wrong width, line 3.
        (vec![kernel_header(), good[0].clone(), good[1].clone() + ",9"], "\r\n", ":3: column (row)"),
    ];
    for (rows, end, says) in cases {
        std::fs::write(input.join("kernel_trace.csv"), rows.join(end) + end).unwrap();
        let output = import(&input, &dir.join("out"));
        assert!(!output.status.success());
        let text = stderr(&output);
        assert!(text.contains(&format!("kernel_trace.csv{says}")), "{says:?} with {end:?}: {text}");
        assert!(!text.contains("line: "), "csv's own line in the message: {text}");
    }
}

#[test]
fn a_v1_trace_with_nothing_to_import_is_one_error_and_no_folder() {
    let dir = scratch("hostile-v1-empty");
    let file = dir.join("results.json");
    let trace = r#"{"traceEvents":[{"ph":"M","pid":6,"name":"process_name","args":{"name":"GPU0"}},
        {"ph":"X","pid":99,"name":"elsewhere","args":{"BeginNs":"1","EndNs":"2"}}]}"#;
    std::fs::write(&file, trace).unwrap();
    let out = dir.join("out");
    let output = import(&file, &out);
    assert!(!output.status.success(), "an import of nothing succeeded: {}", stderr(&output));
    assert_eq!(stderr(&output).lines().count(), 1, "{}", stderr(&output));
    assert!(stderr(&output).contains("results.json") && stderr(&output).contains("nothing to import"));
    assert!(!out.exists(), "an empty folder was left");
}

/// A kernel-optimisation results JSON whose one kernel has a roofline point (on the MI300X
/// `analyze` holds such files against).
fn charted(dir: &Path) -> std::path::PathBuf {
    let file = dir.join("results.json");
    let json = r#"{"components": {"gemm": {"mean_us": 10.0, "bytes_transferred": 1.0e6, "flops_estimated": 1.0e9}}}"#;
    std::fs::write(&file, json).unwrap();
    file
}

/// `--svg /dev/null` wrote into the device and exited 0; a FIFO hung it.
#[test]
fn analyze_refuses_a_special_file_for_its_chart() {
    let dir = scratch("hostile-svg-special");
    let data = charted(&dir);
    let fifo = dir.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let dev: Vec<_> = std::fs::read_dir("/dev").unwrap().flatten().map(|e| e.file_name()).collect();
    for special in [Path::new("/dev/null"), &fifo, &dir] {
        let output = finish_within(cli().arg("analyze").arg(&data).arg("--svg").arg(special), Duration::from_secs(60));
        assert!(!output.status.success(), "--svg {} succeeded", special.display());
        let text = stderr(&output);
        assert!(text.contains("not a regular file") && text.contains(&*special.to_string_lossy()), "{text}");
    }
    let after: Vec<_> = std::fs::read_dir("/dev").unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(after.iter().all(|n| dev.contains(n)), "files appeared in /dev");
    let chart = dir.join("roofline.svg");
    let output = cli().arg("analyze").arg(&data).arg("--svg").arg(&chart).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(std::fs::read_to_string(&chart).unwrap().starts_with("<svg"), "a regular file still takes the chart");
}

/// Folders named `.import-*` under `dir`.
fn staging_folders(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(".import-"))
                .collect()
        })
        .unwrap_or_default()
}

/// SIGTERM and SIGINT during an import left its staging folder (56 MB) behind.
#[test]
fn an_import_ended_by_a_signal_removes_its_staging_folder() {
    let dir = scratch("hostile-import-signal");
    let input = dir.join("run");
    std::fs::create_dir_all(&input).unwrap();
    // Enough rows that the import is still staging when the signal comes.
    let mut text = kernel_header() + "\n";
    for id in 1..=400_000u64 {
        text += &kernel_row(id, &format!("\"kernel_{}\"", id % 1000));
        text.push('\n');
    }
    std::fs::write(input.join("kernel_trace.csv"), text).unwrap();
    // Every catchable signal that ends a process, not only the usual two (SIGUSR1 and SIGALRM
    // left the folder).
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGUSR1, libc::SIGALRM] {
        let out = dir.join("out");
        let mut child =
            cli().arg("import").arg(&input).arg("-o").arg(&out).stderr(std::process::Stdio::piped()).spawn().unwrap();
        let started = std::time::Instant::now();
        while staging_folders(&out).is_empty() {
            assert!(started.elapsed() < Duration::from_secs(60), "no staging folder appeared");
            assert!(child.try_wait().unwrap().is_none(), "the import ended before it was signalled");
            std::thread::sleep(Duration::from_millis(5));
        }
        // SAFETY: kill with the id of the child this test started and waits for.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let output = child.wait_with_output().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(output.status.signal(), Some(signal), "it dies of the signal: {}", stderr(&output));
        assert!(staging_folders(&out).is_empty(), "signal {signal} left {:?}", staging_folders(&out));
        assert!(!out.exists(), "the folder the import created is gone too");
    }
}

/// A staging folder SIGKILL left goes with the next import into the same folder; a running
/// import's is left alone.
#[test]
fn the_next_import_removes_a_killed_imports_staging_folder() {
    let dir = scratch("hostile-import-killed");
    let out = dir.join("out");
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    std::fs::create_dir_all(out.join(format!(".import-{dead}/kernel_dispatch"))).unwrap();
    std::fs::write(out.join(format!(".import-{dead}/kernel_dispatch/x.parquet")), b"left").unwrap();
    let running = format!(".import-{}", std::process::id());
    std::fs::create_dir_all(out.join(&running)).unwrap();
    let output = import(Path::new(&format!("{FIXTURES}/rocprofv3")), &out);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(staging_folders(&out), [running], "the dead import's folder goes, the live one's stays");
}

#[test]
fn a_name_with_a_control_character_is_refused_in_one_line() {
    let dir = scratch("hostile-name-control");
    for name in ["two\nlines", "bell\u{7}", "esc\u{1b}[2J"] {
        let out = dir.join("out");
        let output =
            cli().args(["import", &format!("{FIXTURES}/rocprofv3"), "--name", name, "-o"]).arg(&out).output().unwrap();
        assert!(!output.status.success(), "--name {name:?} was taken");
        let text = stderr(&output);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.contains("--name") && text.contains("control character"), "{text}");
        assert!(!out.exists());
    }
}

/// `report` and `analyze` on a folder of `.partial` files alone said "holds no rocprof-rs
/// table", as if nothing had been written.
#[test]
fn a_folder_of_incomplete_files_is_named_as_such() {
    let dir = scratch("hostile-only-partial");
    let data = dir.join("data");
    let output = import(&Path::new(FIXTURES).join("rocprof-compute/vcopy-MI300X_A1_rocpd"), &data);
    assert!(output.status.success(), "{}", stderr(&output));
    // One file of a killed writer beside complete ones: analyze says it skipped it, as stats does.
    let stray = data.join("kernel_dispatch/.other-00000.parquet.partial");
    std::fs::write(&stray, b"PAR1").unwrap();
    let output = cli().arg("analyze").arg(&data).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("1 incomplete file was skipped"), "{}", stderr(&output));
    std::fs::remove_file(stray).unwrap();
    let mut hidden = 0;
    for table in std::fs::read_dir(&data).unwrap().flatten().filter(|e| e.path().is_dir()) {
        for file in std::fs::read_dir(table.path()).unwrap().flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            std::fs::rename(file.path(), table.path().join(format!(".{name}.partial"))).unwrap();
            hidden += 1;
        }
    }
    for command in [&["report", "-o"][..], &["analyze"], &["stats"], &["export", "--format", "perfetto", "-o"]] {
        let mut cmd = cli();
        cmd.arg(command[0]).arg(&data).args(&command[1..]);
        if command.len() > 1 {
            cmd.arg(dir.join("out"));
        }
        let output = cmd.output().unwrap();
        let text = stderr(&output);
        assert!(!output.status.success(), "{command:?}: {text}");
        let said = format!("{hidden} incomplete");
        assert!(text.contains(&said) && text.contains("killed"), "{command:?} should say {said:?}: {text}");
    }
}

/// Exporting into the folder a dataset was imported from replaced the user's own rocprofv3
/// files.
#[test]
fn an_export_replaces_only_files_an_export_wrote() {
    let dir = scratch("hostile-export-overwrite");
    let run = dir.join("run");
    std::fs::create_dir_all(&run).unwrap();
    // As another tool may write it: the kind unquoted, which the export quotes.
    let original = [kernel_header(), kernel_row(1, "\"mine\"").replacen("\"KERNEL_DISPATCH\"", "KERNEL_DISPATCH", 1)]
        .join("\n")
        + "\n";
    std::fs::write(run.join("4242_kernel_trace.csv"), &original).unwrap();
    let data = dir.join("data");
    assert!(import(&run, &data).status.success());
    let export = |to: &Path, more: &[&str]| {
        cli().arg("export").arg(&data).args(["--format", "rocprofv3-csv", "-o"]).arg(to).args(more).output().unwrap()
    };
    let output = export(&run, &[]);
    let text = stderr(&output);
    assert!(!output.status.success(), "the user's file was replaced");
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("4242_kernel_trace.csv") && text.contains("--overwrite"), "{text}");
    assert_eq!(std::fs::read_to_string(run.join("4242_kernel_trace.csv")).unwrap(), original);
    let listed: Vec<_> = std::fs::read_dir(&run).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(listed.len(), 1, "a refused export writes nothing: {listed:?}");
    // Its own files, again: replaced without asking, where the filesystem keeps the mark.
    let elsewhere = dir.join("elsewhere");
    assert!(export(&elsewhere, &[]).status.success());
    let exported: Vec<_> = std::fs::read_dir(&elsewhere).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(exported.iter().all(|n| !n.to_string_lossy().starts_with('.')), "only the export's files: {exported:?}");
    let again = export(&elsewhere, &[]);
    assert_eq!(again.status.success(), keeps_user_attributes(&elsewhere), "{}", stderr(&again));
    // One the user changed since is theirs.
    std::fs::write(elsewhere.join("4242_kernel_trace.csv"), "edited\n").unwrap();
    assert!(!export(&elsewhere, &[]).status.success(), "a file changed since the export was replaced");
    // Asked to.
    let output = export(&run, &["--overwrite"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_ne!(std::fs::read_to_string(run.join("4242_kernel_trace.csv")).unwrap(), original);
}

/// Whether the filesystem of `dir` keeps user extended attributes (tmpfs before Linux 6.6 and
/// some network mounts do not).
fn keeps_user_attributes(dir: &Path) -> bool {
    let probe = dir.join("attribute-probe");
    std::fs::write(&probe, b"").unwrap();
    let path = std::ffi::CString::new(probe.to_str().unwrap()).unwrap();
    // SAFETY: setxattr with NUL-terminated path and name, and a one-byte value.
    let set = unsafe { libc::setxattr(path.as_ptr(), c"user.probe".as_ptr(), b"1".as_ptr().cast(), 1, 0) };
    std::fs::remove_file(probe).unwrap();
    set == 0
}

/// The rocpd export moves its databases out of a staging folder: it too replaces only the
/// databases an export wrote, and refuses before moving any.
#[test]
fn a_rocpd_export_replaces_only_databases_an_export_wrote() {
    let dir = scratch("hostile-export-overwrite-rocpd");
    let run = dir.join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("4242_kernel_trace.csv"), [kernel_header(), kernel_row(1, "k")].join("\n") + "\n").unwrap();
    let data = dir.join("data");
    assert!(import(&run, &data).status.success());
    let out = dir.join("rocpd");
    let export = |more: &[&str]| {
        cli().arg("export").arg(&data).args(["--format", "rocpd", "-o"]).arg(&out).args(more).output().unwrap()
    };
    assert!(export(&[]).status.success());
    let database = out.join("4242_results.db");
    assert!(database.is_file());
    let again = export(&[]);
    assert_eq!(again.status.success(), keeps_user_attributes(&out), "{}", stderr(&again));
    std::fs::write(&database, "the user's own\n").unwrap();
    let output = export(&[]);
    let text = stderr(&output);
    assert!(!output.status.success(), "the user's database was replaced");
    assert!(text.contains("4242_results.db") && text.contains("--overwrite"), "{text}");
    assert_eq!(std::fs::read_to_string(&database).unwrap(), "the user's own\n");
    let hidden: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "a refused export leaves no staging folder: {hidden:?}");
    let output = export(&["--overwrite"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_ne!(std::fs::read(&database).unwrap(), b"the user's own\n");
}

/// A bad value is quoted in its error, cut to a line a reader can take: a 100 KB field made a
/// 100 KB line.
#[test]
fn a_bad_value_of_any_length_is_quoted_in_a_short_line() {
    let dir = scratch("hostile-csv-long-value");
    let input = dir.join("run");
    std::fs::create_dir_all(&input).unwrap();
    let huge = format!("x{}", "A".repeat(100_000));
    let row = kernel_row(1, "\"k\"").replacen("\"Agent 4\",1,", &format!("\"Agent 4\",{huge},"), 1);
    std::fs::write(input.join("kernel_trace.csv"), [kernel_header(), row].join("\n") + "\n").unwrap();
    let output = import(&input, &dir.join("out"));
    assert!(!output.status.success());
    let text = stderr(&output);
    assert_eq!(text.lines().count(), 1, "{}", &text[..text.len().min(300)]);
    assert!(text.contains("kernel_trace.csv:2: column Queue_Id"), "{}", &text[..text.len().min(300)]);
    assert!(text.len() < 2_000, "a {}-byte line", text.len());
    assert!(text.contains("bytes in all"), "{text}");
}

/// A file-name stem is printable text wherever it is given: `run -o`, `ROCPROF_RS_OUTPUT_NAME`
/// and `import --name` refuse newlines, escape sequences and bidirectional or invisible marks
/// (a file named with them spoofs every listing), each with one line.
#[test]
fn a_stem_with_a_control_or_invisible_character_is_refused_everywhere() {
    let dir = scratch("hostile-stem-characters");
    for stem in ["a\nb", "a\u{1b}[2J", "a\u{202e}b", "a\u{200b}b"] {
        let out = dir.join("run");
        let output = finish_within(
            cli()
                .args(["run", "--kernel-trace", "-d"])
                .arg(&out)
                .args(["-o", stem, "--tool"])
                .arg(tool())
                .arg("--")
                .arg(built("rocprof-sim"))
                .args(["--dispatches", "10", "--threads", "1", "--agents", "1", "--no-truth", "--sdk"])
                .arg(built("librocprofiler_sdk_sim.so"))
                .env_remove("ROCP_TOOL_LIBRARIES"),
            Duration::from_secs(60),
        );
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "run -o {stem:?} ran: {text}");
        assert!(text.contains("ROCPROF_RS_OUTPUT_NAME") && text.contains("printable"), "{stem:?}: {text}");
        assert!(!out.exists(), "run -o {stem:?} wrote {}", out.display());
        let output = cli()
            .arg("import")
            .arg(format!("{FIXTURES}/rocprofv3"))
            .args(["--name", stem, "-o"])
            .arg(dir.join("named"))
            .output()
            .unwrap();
        let text = stderr(&output);
        assert!(!output.status.success(), "import --name {stem:?} imported");
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.contains("--name") && text.contains("printable"), "{stem:?}: {text}");
    }
    let dir_for_app = scratch("hostile-stem-app");
    let mut cmd = app(&dir_for_app, 2_000);
    cmd.args(["--no-truth", "--exit-code", "7"]).env("ROCPROF_RS_OUTPUT_NAME", "run\u{202e}gpj.exe");
    let output = finish_within(&mut cmd, Duration::from_secs(60));
    assert_unharmed(&output, "ROCPROF_RS_OUTPUT_NAME");
}
