//! Corrupt Parquet files against every reader: bit flips and truncations reached panics
//! inside parquet and arrow-ipc (exit 101, no file named), and one export panicked after
//! writing part of its output. Every read now turns a bad file into one error that names it.

use std::path::PathBuf;

use rocprof_rs_analysis::stats::{Options, Section};

use super::*;

/// A small deterministic generator (splitmix64), so a failing variant can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for table in std::fs::read_dir(dir).unwrap().flatten() {
        if table.path().is_dir() {
            for file in std::fs::read_dir(table.path()).unwrap().flatten() {
                if file.file_name().to_string_lossy().ends_with(".parquet") {
                    found.push(file.path());
                }
            }
        }
    }
    found.sort();
    found
}

fn copy_dataset(from: &Path, to: &Path) {
    for file in parquet_files(from) {
        let relative = file.strip_prefix(from).unwrap();
        std::fs::create_dir_all(to.join(relative).parent().unwrap()).unwrap();
        std::fs::copy(&file, to.join(relative)).unwrap();
    }
}

/// Damages `file` as variant `seed`: bits flipped (half the time in the footer, where the
/// schema and offsets are), or the file cut short.
fn corrupt(file: &Path, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut bytes = std::fs::read(file).unwrap();
    let len = bytes.len() as u64;
    if rng.below(5) == 0 {
        let keep = rng.below(len);
        bytes.truncate(keep as usize);
        std::fs::write(file, bytes).unwrap();
        return format!("cut to {keep} of {len} bytes");
    }
    let mut flips = Vec::new();
    for _ in 0..=rng.below(4) {
        let at = if rng.below(2) == 0 { len - 1 - rng.below(len.min(2048)) } else { rng.below(len) };
        let bit = rng.below(8);
        bytes[at as usize] ^= 1 << bit;
        flips.push(format!("{at}:{bit}"));
    }
    std::fs::write(file, bytes).unwrap();
    format!("bits flipped at {}", flips.join(", "))
}

/// Every reader of the analysis crate on one damaged dataset: each returns, and an error names
/// the damaged file.
fn read_everything(data: &Path, damaged: &Path, out: &Path, what: &str) {
    let name = damaged.file_name().unwrap().to_string_lossy().into_owned();
    let check = |reader: &str, result: Result<(), rocprof_rs_analysis::Error>| {
        if let Err(e) = result {
            let text = e.to_string();
            assert!(text.contains(&name) || !text.contains(".parquet"), "{reader} ({what}): {text}");
        }
    };
    let options = Options { threads: 1, ..Options::default() };
    check("stats", rocprof_rs_analysis::stats::compute(data, &Section::ALL, &options).map(drop));
    check("analyze", rocprof_rs_analysis::analyze::analyze(data, &Default::default()).map(drop));
    check("perfetto", rocprof_rs_analysis::export::perfetto::export(data, &out.join("t.pftrace")).map(drop));
    check("csv", rocprof_rs_analysis::export::rocprofv3::export(data, &out.join("csv")).map(drop));
    check("rocpd", rocprof_rs_analysis::export::rocpd::export(data, &out.join("rocpd")).map(drop));
    check("json", rocprof_rs_analysis::export::results_json::export(data, &out.join("json")).map(drop));
    let page = rocprof_rs_analysis::report::build(data, &Default::default());
    check("report", page.map(|page| drop(rocprof_rs_analysis::report::html::render(&page))));
}

#[test]
fn a_thousand_corrupt_files_never_panic_a_reader() {
    let dir = scratch("hostile-corrupt");
    let clean = super::outputs::dataset(&dir);
    let files = parquet_files(&clean);
    assert!(!files.is_empty());
    // Each variant is read by every reader and exporter in turn; the variants are independent,
    // so they share out over the cores (each worker in folders of its own).
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8) as u64;
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let (dir, clean, files) = (&dir, &clean, &files);
            scope.spawn(move || {
                for seed in (worker..1000u64).step_by(workers as usize) {
                    let data = dir.join(format!("variant-{worker}"));
                    let out = dir.join(format!("out-{worker}"));
                    let _ = std::fs::remove_dir_all(&data);
                    let _ = std::fs::remove_dir_all(&out);
                    copy_dataset(clean, &data);
                    let target = data.join(files[(seed as usize) % files.len()].strip_prefix(clean).unwrap());
                    let what = format!("variant {seed}: {} {}", target.display(), corrupt(&target, seed));
                    let outcome = std::panic::catch_unwind(|| read_everything(&data, &target, &out, &what));
                    assert!(outcome.is_ok(), "a reader panicked on {what}");
                }
            });
        }
    });
    std::fs::remove_dir_all(dir).unwrap();
}

/// From the command line: one line naming the file, exit 1 (not a panic's 101), and no output
/// left half-written.
#[test]
fn the_cli_names_a_corrupt_file_in_one_line_and_writes_nothing() {
    let dir = scratch("hostile-corrupt-cli");
    let data = super::outputs::dataset(&dir);
    let target = parquet_files(&data).into_iter().find(|f| f.to_string_lossy().contains("kernel_dispatch")).unwrap();
    let mut bytes = std::fs::read(&target).unwrap();
    let (from, to) = (bytes.len() - 40, bytes.len() - 8);
    bytes[from..to].iter_mut().for_each(|b| *b = !*b);
    std::fs::write(&target, bytes).unwrap();
    let name = target.file_name().unwrap().to_string_lossy().into_owned();
    let commands: [&[&str]; 5] = [
        &["stats"],
        &["export", "--format", "perfetto", "-o"],
        &["export", "--format", "rocprofv3-csv", "-o"],
        &["export", "--format", "rocpd", "-o"],
        &["export", "--format", "rocprofv3-json", "-o"],
    ];
    for args in commands {
        let out = dir.join("out");
        let mut cmd = cli();
        cmd.arg(args[0]).arg(&data).args(&args[1..]);
        if args.len() > 1 {
            cmd.arg(&out);
        }
        let output = cmd.output().unwrap();
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {text}");
        assert!(text.contains(&name) && !text.contains("panicked"), "{args:?}: {text}");
        assert_eq!(text.lines().filter(|l| !l.contains("warning")).count(), 1, "{args:?}: {text}");
        assert!(!out.exists(), "{args:?} left an output");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Found by the `read_dataset` fuzz target: a footer whose Thrift list count asks the decoder
/// to reserve 3.9 GB of schema elements before reading one. Under a 1 GiB address-space limit
/// that allocation fails, which aborts a process; now the footer is checked first and the file
/// is refused by name.
#[test]
fn a_footer_that_claims_billions_of_elements_is_refused_without_allocating() {
    let dir = scratch("hostile-footer-count");
    let table = dir.join("data").join("kernel_dispatch");
    std::fs::create_dir_all(&table).unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz/read_dataset-footer-list-count.parquet");
    std::fs::copy(&fixture, table.join("run-00000.parquet")).unwrap();
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg("ulimit -v 1048576 && exec \"$0\" stats \"$1\"").arg(cli().get_program()).arg(dir.join("data"));
    let output = cmd.output().unwrap();
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("run-00000.parquet") && text.contains("a list longer than the bytes left"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}
