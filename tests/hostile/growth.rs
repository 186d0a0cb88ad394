//! Memory that grew with names (issue 38, item 4): `analyze`, `diff`, `score` and `report` held
//! every distinct kernel name (and `stats` and `report` every byte of a huge one), so a dataset
//! of many names, or of a few names of tens of megabytes, took gigabytes. Each command here runs
//! under an address-space limit (`RLIMIT_AS`) well below what it took, on a dataset that builds
//! in seconds, and must succeed within it. (The figures, peak memory against the number of
//! names and of rows, are benchmarks: BENCHMARKS.md.)

use std::sync::Arc;

use rocprof_rs_analysis::import::sink::{DispatchRow, Sink};
use rocprof_rs_format::launch::KernelLaunch;

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
            launch: KernelLaunch {
                start_ns: start,
                end_ns: start + duration,
                grid: [1 << 16, 1, 1],
                block: [256, 1, 1],
                dispatch_id: n + 1,
                correlation_id: n + 1,
                kernel_id: k + 1,
                agent_id: 1 + n % 2,
                queue_id: 1 + n % 8,
                ..KernelLaunch::default()
            },
            name,
            vgpr: 32,
            pid: 7,
            ..DispatchRow::default()
        });
        if n % 4_096 == 0 {
            sink.write_full().unwrap();
        }
    }
    sink.finish().unwrap();
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

/// A rocprof v1 CSV's header and rows: the dispatch properties, then `counters` counter
/// columns, and `rows` dispatches of one kernel.
fn v1_csv(path: &Path, counters: usize, rows: usize) {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    out.write_all(b"Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,")
        .unwrap();
    out.write_all(b"wave_size,sig,obj").unwrap();
    for c in 0..counters {
        write!(out, ",C{c:07}").unwrap();
    }
    out.write_all(b",DispatchNs,BeginNs,EndNs,CompleteNs\n").unwrap();
    for r in 0..rows {
        write!(out, "{r},\"k(int) [clone .kd]\",0,0,{r},7,7,256,64,0,0,8,0,16,64,0x0,0x0").unwrap();
        for c in 0..counters {
            write!(out, ",{}", c % 10).unwrap();
        }
        let t = 1_000 * (r as u64 + 1);
        writeln!(out, ",{t},{},{},{}", t + 10, t + 500, t + 510).unwrap();
    }
    out.flush().unwrap();
}

/// A rocprof v1 CSV of 2M columns took 0.7 KB a column to import (1.4 GB here); one of more
/// columns than rocprof writes is now refused with one line, before its header is read whole.
#[test]
fn a_rocprof_v1_csv_of_millions_of_columns_is_refused_with_one_line() {
    let dir = scratch("hostile-growth-columns");
    let file = dir.join("results.csv");
    v1_csv(&file, 2_000_000, 1);
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut cmd = cli();
    cmd.arg("import").arg(&file).arg("-o").arg(dir.join("data")).env("TMPDIR", &tmp);
    limit_address_space(&mut cmd, 512 << 20);
    let output = finish_within(&mut cmd, Duration::from_secs(60));
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "refused, not killed: {:?} {said}", output.status);
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 1, "{said}");
    assert!(lines[0].contains("results.csv:1: column header") && lines[0].contains("at most 8192 columns"), "{said}");
}

/// The report's counter coverage listed every counter (1M counters: a 217 MB page); it lists
/// the first 500 by name now, and says how many more there are.
#[test]
fn the_reports_counter_coverage_lists_500_counters_and_counts_the_rest() {
    let dir = scratch("hostile-growth-coverage");
    let file = dir.join("results.csv");
    v1_csv(&file, 600, 3);
    let data = dir.join("data");
    let output = cli().arg("import").arg(&file).arg("-o").arg(&data).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let page = dir.join("report.html");
    let output = cli().arg("report").arg(&data).arg("-o").arg(&page).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let page = std::fs::read_to_string(&page).unwrap();
    assert!(page.contains("data-counters=\"600\"") && page.contains("data-shown=\"500\""), "the table's counts");
    assert!(page.contains("The first 500 counters by name are listed; 100 more are not."));
    assert!(page.contains("C0000499") && !page.contains("C0000500"), "the first 500 by name");
}
