//! Memory that grew with names (issue 38, item 4): `analyze`, `diff`, `score` and `report` held
//! every distinct kernel name (and `stats` and `report` every byte of a huge one), so a dataset
//! of many names, or of a few names of tens of megabytes, took gigabytes. Each command here runs
//! under an address-space limit (`RLIMIT_AS`) well below what it took, on a dataset that builds
//! in seconds, and must succeed within it. (The figures, peak memory against the number of
//! names and of rows, are benchmarks: BENCHMARKS.md.)

use std::sync::Arc;

use rocprof_rs_analysis::import::sink::{DispatchRow, Sink};

use super::*;

/// Writes `rows` dispatches, `names` distinct kernel names each `name_bytes` long (the first
/// `names` rows each a new name, the rest over them), on two GPUs and eight queues.
fn dataset(dir: &Path, rows: u64, names: u64, name_bytes: usize) {
    let mut sink = Sink::new(dir, "growth", "test").unwrap();
    let mut start = 1_000_000_000i64;
    for n in 0..rows {
        let k = n % names;
        let mut name = format!("void kernel_{k:07}<float, 256>(float const*, float*, int)");
        let filler = name_bytes.saturating_sub(name.len());
        name.extend(std::iter::repeat_n('x', filler));
        let name: Arc<str> = name.into();
        start += 2_000;
        let duration = 800 + (n * 7_919 % 50_000) as i64;
        sink.push_dispatch(DispatchRow {
            name,
            start_ns: start,
            end_ns: start + duration,
            grid: [1 << 16, 1, 1],
            workgroup: [256, 1, 1],
            vgpr: 32,
            dispatch_id: n + 1,
            correlation_id: n + 1,
            kernel_id: k + 1,
            agent_id: 1 + n % 2,
            queue_id: 1 + n % 8,
            pid: 7,
            ..DispatchRow::default()
        });
        if n % 4_096 == 0 {
            sink.write_full().unwrap();
        }
    }
    sink.finish().unwrap();
}

/// Sets `RLIMIT_AS = bytes` in the process `cmd` starts: an allocation beyond it fails, and
/// Rust aborts the process.
fn limit_address_space(cmd: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    let set = move || {
        let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
        // SAFETY: setrlimit with a valid rlimit.
        if unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    // SAFETY: the closure only calls setrlimit (async-signal-safe) between fork and exec.
    unsafe { cmd.pre_exec(set) };
}

/// Runs the CLI with `args` and `--memory 16M` under an address space of `limit` bytes, its
/// output to `scratch/stdout` (a pipe would fill and stall it), asserts it succeeded, and
/// returns its output.
fn within(args: &[&std::ffi::OsStr], limit: u64, scratch: &Path) -> String {
    let mut cmd = cli();
    cmd.args(args).args(["--memory", "16M"]).env("TMPDIR", scratch);
    limit_address_space(&mut cmd, limit);
    let (stdout, stderr) = (scratch.join("stdout"), scratch.join("stderr"));
    cmd.stdout(std::fs::File::create(&stdout).unwrap()).stderr(std::fs::File::create(&stderr).unwrap());
    let mut child = cmd.spawn().unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} hung for 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let said = std::fs::read_to_string(&stderr).unwrap_or_default();
    assert!(status.success(), "{args:?} within {} MiB of address space: {status:?} {said}", limit >> 20);
    std::fs::read_to_string(&stdout).unwrap()
}

/// 250,000 distinct names of 200 bytes: 50 MB of names, which each command held several times
/// over (in maps, sorts and every kernel's analysis); now each holds what `--memory` allows.
#[test]
fn commands_hold_many_names_within_their_memory() {
    let dir = scratch("hostile-growth-names");
    let data = dir.join("names");
    dataset(&data, 250_000, 250_000, 200);
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let page = dir.join("report.html");
    // Each took 520-740 MiB of memory before (and failed within 512 MiB of address space);
    // each now runs within 256.
    let limit = 384 << 20;
    let csv = |command: &'static str| [command.as_ref(), data.as_os_str(), "--format".as_ref(), "csv".as_ref()];
    let listed = |out: String| out.lines().count();
    assert_eq!(listed(within(&csv("stats"), limit, &tmp)), 250_001, "stats: a header and every name");
    assert_eq!(listed(within(&csv("analyze"), limit, &tmp)), 250_001, "analyze: a header and every kernel");
    let diff = ["diff".as_ref(), data.as_os_str(), data.as_os_str(), "--format".as_ref(), "csv".as_ref()];
    assert_eq!(listed(within(&diff, limit, &tmp)), 250_001, "diff: a header and every name");
    assert!(within(&["score".as_ref(), data.as_os_str()], limit, &tmp).starts_with("score "));
    within(&["report".as_ref(), data.as_os_str(), "-o".as_ref(), page.as_os_str()], limit, &tmp);
    assert!(std::fs::metadata(&page).unwrap().len() < 4 << 20, "the page does not grow with the names");
}

/// Four kernels with names of 64 MB each: `stats` and `report` held each
/// such name several times (in the reading thread's map, the sort, the rows); now a name is kept
/// as its first 16 KiB and a hash, and the output says so.
#[test]
fn huge_names_are_kept_as_a_prefix_and_a_hash() {
    let dir = scratch("hostile-growth-huge");
    let data = dir.join("huge");
    dataset(&data, 8, 4, 64 << 20);
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let page = dir.join("report.html");
    // `report` took 1.9 GiB before (and failed within 1.5 GiB of address space), now 0.8; the
    // floor, for both, is the reader's decoded column, which holds every name whole.
    let limit = 1280 << 20;
    let csv = within(&["stats".as_ref(), data.as_os_str(), "--format".as_ref(), "csv".as_ref()], limit, &tmp);
    assert_eq!(csv.lines().count(), 5, "a header and four names");
    assert!(csv.lines().all(|l| l.len() < 17 << 10), "every name is cut to its prefix and hash");
    assert_eq!(csv.matches("…#").count(), 4, "{}", &csv[..200]);
    let table = within(&["stats".as_ref(), data.as_os_str()], limit, &tmp);
    assert!(table.contains("note: 4 names longer than 16384 bytes are shown as their first 16384 bytes"), "{table}");
    within(&["report".as_ref(), data.as_os_str(), "-o".as_ref(), page.as_os_str()], limit, &tmp);
    let page = std::fs::read_to_string(&page).unwrap();
    assert!(page.len() < 4 << 20, "{} bytes", page.len());
    assert!(page.contains("names longer than 16384 bytes"), "the page says the names were cut");
}
