//! Every engine reads the Parquet our own encoder writes (crates/format: chunk.rs,
//! encoding.rs), and what the files say about their values is true (SIMULATED run, plus the
//! dataset the tool wrote on an H100, for `cuda_api`).
//!
//! - Spark (its vectorized reader and parquet-mr's record reader), DuckDB and DataFusion read
//!   each table folder as one table, equal to pyarrow's reading, and filtered queries with
//!   their pushdown on (duration ranges, a start_ns window, kernel_name equality and LIKE)
//!   count what a full scan counts: `tests/verify/engines_check.py`. Needs Java, pyspark,
//!   duckdb and datafusion (pip install -r tests/verify/requirements.txt): skipped without
//!   them, except under CI.
//! - Every row group's statistics (null count, min and max) equal its data's, and where a file
//!   has page indexes, every page's entry in the column index bounds and matches its values
//!   (rows located by the offset index): read here with parquet-rs.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use common::{built, scratch, stderr, tool};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::statistics::Statistics;
use rocprof_rs_format::Table;

/// Tables no run here writes: the simulator has no HSA API, and RCCL calls only with `--ranks`.
const UNWRITTEN: [(&str, &str); 4] = [
    ("hsa_api", "the simulator emits no HSA API records"),
    ("rccl_api", "only `rocprof-sim --ranks` makes RCCL calls"),
    ("pc_sample", "the runs here do not sample PCs"),
    ("graph_launch", "only CUPTI's graph-level records fill it (NVIDIA)"),
];

/// The dataset the tool wrote on an H100 (format 2), the one with `cuda_api`.
fn h100() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cupti/rocprof-rs-13.0-h100/dataset")
}

/// A simulated run writing every table the simulator can give, in row groups of 1,024 rows
/// (the least the tool takes), so that statistics can prune: the application with two forked
/// children, and where the simulator has `--ranks`, a job of two ranks (RCCL calls) beside it.
fn run() -> &'static Path {
    static RUN: OnceLock<PathBuf> = OnceLock::new();
    RUN.get_or_init(|| {
        let out = scratch("engines").keep().join("out");
        let help = Command::new(built("rocprof-sim")).arg("--help").output().unwrap();
        let mut plays: Vec<&[&str]> = vec![&["--dispatches", "3000", "--threads", "2", "--fork", "2"]];
        if String::from_utf8_lossy(&help.stdout).contains("--ranks") {
            plays.push(&["--ranks", "2", "--steps", "2"]);
        }
        for play in plays {
            let output = Command::new(built("rocprof-sim"))
                .args(["--agents", "2", "--seed", "29", "--no-truth"])
                .args(play)
                .arg("--sdk")
                .arg(built("librocprofiler_sdk_sim.so"))
                .env("ROCP_TOOL_LIBRARIES", tool())
                .env("ROCPROF_RS_OUTPUT_DIR", &out)
                .env(
                    "ROCPROF_RS_DOMAINS",
                    "kernel,hip_api,rccl_api,memory_copy,marker,scratch_memory,memory_allocation",
                )
                .env("ROCPROF_RS_PMC", "SQ_WAVES,TCC_HIT")
                .env("ROCPROF_RS_ROW_GROUP_ROWS", "1024")
                // The simulated AMD SMI's samples: device_sample, with its nullable readings.
                .env("ROCPROF_RS_DEVICE_SAMPLE_MS", "1")
                .env("ROCPROF_RS_DEVICE_SAMPLE_LIBRARY", built("libamd_smi.so"))
                // The job records in windows (its whole run is in the first): the window table.
                .envs(play.contains(&"--ranks").then_some(("ROCPROF_RS_WINDOW", "10s/20s")))
                .env_remove("LD_PRELOAD")
                .output()
                .unwrap();
            assert!(output.status.success(), "the simulated run {play:?} failed: {}", stderr(&output));
        }
        out
    })
}

/// The table folders of a run directory.
fn tables(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every visible Parquet file under `dir`, in partition folders too.
fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(['.', '_']) {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            found.extend(parquet_files(&entry.path()));
        } else if name.ends_with(".parquet") {
            found.push(entry.path());
        }
    }
    found.sort();
    found
}

/// Whether Java and the engines are there; outside CI their absence skips, saying so.
fn engines_ready() -> bool {
    let probe = Command::new("python3")
        .args([
            "-c",
            "import pyspark, duckdb, datafusion, shutil, sys; sys.exit(0 if shutil.which('java') else 'no java on PATH')",
        ])
        .output();
    if probe.as_ref().is_ok_and(|o| o.status.success()) {
        return true;
    }
    let why = probe.map_or_else(|e| format!("python3: {e}"), |o| stderr(&o));
    assert!(std::env::var_os("CI").is_none(), "CI must run the engines check: {why}");
    eprintln!(
        "SKIPPED: the engines check needs Java, pyspark, duckdb and datafusion (pip install -r tests/verify/requirements.txt): {why}"
    );
    false
}

#[test]
fn spark_duckdb_and_datafusion_read_every_table_as_pyarrow_does() {
    let written: Vec<String> = [run().to_path_buf(), h100()].iter().flat_map(|d| tables(d)).collect();
    for table in Table::ALL {
        let unwritten = UNWRITTEN.iter().find(|(name, _)| *name == table.name());
        match unwritten {
            Some((name, why)) if !written.iter().any(|w| w == name) => eprintln!("{name}: not checked ({why})"),
            _ => assert!(written.iter().any(|w| w == table.name()), "no run here writes {table}"),
        }
    }
    if !engines_ready() {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/verify/engines_check.py");
    let output = Command::new("python3")
        .arg(script)
        .arg(run())
        .arg(h100())
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .env("PYSPARK_PYTHON", "python3")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "an engine reads a table otherwise:\n{report}{}", stderr(&output));
    eprint!("{report}");
}

/// A value in its column's own order: integers (unsigned ones unsigned) and text as bytes.
/// Floats have no statistics in our files, and are left out.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Ordered {
    Int(i128),
    Bytes(Vec<u8>),
}

/// Row `i` of `array`: `None` for a null, `Some(None)` for a float.
fn ordered(array: &ArrayRef, i: usize) -> Option<Option<Ordered>> {
    if array.is_null(i) {
        return None;
    }
    Some(match array.data_type() {
        DataType::Int32 => Some(Ordered::Int(array.as_primitive::<Int32Type>().value(i).into())),
        DataType::UInt32 => Some(Ordered::Int(array.as_primitive::<UInt32Type>().value(i).into())),
        DataType::Int64 => Some(Ordered::Int(array.as_primitive::<Int64Type>().value(i).into())),
        DataType::UInt64 => Some(Ordered::Int(array.as_primitive::<UInt64Type>().value(i).into())),
        DataType::Utf8 => Some(Ordered::Bytes(array.as_string::<i32>().value(i).as_bytes().to_vec())),
        DataType::Dictionary(..) => {
            let dict = array.as_dictionary::<Int32Type>();
            let key = dict.keys().value(i) as usize;
            Some(Ordered::Bytes(dict.values().as_string::<i32>().value(key).as_bytes().to_vec()))
        }
        _ => None,
    })
}

/// What a run of rows held: nulls, and the least and greatest value.
#[derive(Debug, Default, Clone, PartialEq)]
struct Seen {
    rows: u64,
    nulls: u64,
    bounds: Option<(Ordered, Ordered)>,
}

impl Seen {
    fn add(&mut self, value: Option<Option<Ordered>>) {
        self.rows += 1;
        match value {
            None => self.nulls += 1,
            Some(None) => {}
            Some(Some(v)) => {
                self.bounds = Some(match self.bounds.take() {
                    Some((min, max)) => (min.min(v.clone()), max.max(v)),
                    None => (v.clone(), v),
                });
            }
        }
    }
}

/// A bound as the file stores it, in the column's order (`unsigned`: a UINT logical type).
fn stored_int(v: i64, unsigned_bits: Option<u32>) -> Ordered {
    Ordered::Int(match unsigned_bits {
        Some(32) => i128::from(v as u32),
        Some(_) => i128::from(v as u64),
        None => i128::from(v),
    })
}

fn unsigned_bits(data_type: &DataType) -> Option<u32> {
    match data_type {
        DataType::UInt32 => Some(32),
        DataType::UInt64 => Some(64),
        _ => None,
    }
}

/// A chunk's statistics as (null count, min, max).
fn statistics(s: &Statistics, data_type: &DataType) -> (Option<u64>, Option<(Ordered, Ordered)>) {
    let unsigned = unsigned_bits(data_type);
    let bounds = match s {
        Statistics::Int32(v) => v.min_opt().zip(v.max_opt()).map(|(a, b)| {
            (stored_int(i64::from(*a), unsigned.map(|_| 32)), stored_int(i64::from(*b), unsigned.map(|_| 32)))
        }),
        Statistics::Int64(v) => {
            v.min_opt().zip(v.max_opt()).map(|(a, b)| (stored_int(*a, unsigned), stored_int(*b, unsigned)))
        }
        Statistics::ByteArray(v) => v
            .min_opt()
            .zip(v.max_opt())
            .map(|(a, b)| (Ordered::Bytes(a.data().to_vec()), Ordered::Bytes(b.data().to_vec()))),
        _ => None,
    };
    (s.null_count_opt(), bounds)
}

/// A page's column index entry as (null count, min, max).
fn page_entry(
    index: &ColumnIndexMetaData,
    page: usize,
    data_type: &DataType,
) -> (Option<u64>, Option<(Ordered, Ordered)>) {
    let unsigned = unsigned_bits(data_type);
    let bounds = match index {
        ColumnIndexMetaData::INT32(i) => i.min_value(page).zip(i.max_value(page)).map(|(a, b)| {
            (stored_int(i64::from(*a), unsigned.map(|_| 32)), stored_int(i64::from(*b), unsigned.map(|_| 32)))
        }),
        ColumnIndexMetaData::INT64(i) => {
            i.min_value(page).zip(i.max_value(page)).map(|(a, b)| (stored_int(*a, unsigned), stored_int(*b, unsigned)))
        }
        ColumnIndexMetaData::BYTE_ARRAY(i) => i
            .min_value(page)
            .zip(i.max_value(page))
            .map(|(a, b)| (Ordered::Bytes(a.to_vec()), Ordered::Bytes(b.to_vec()))),
        _ => None,
    };
    (index.null_count(page).map(|n| n as u64), bounds)
}

/// What one file's metadata claimed and how it held up.
#[derive(Debug, Default)]
struct Checked {
    chunks: usize,
    with_statistics: usize,
    with_page_index: usize,
    pages: usize,
    problems: Vec<String>,
}

/// Checks every row group's statistics, and every page index entry, of `path` against its data.
fn check_file(path: &Path, checked: &mut Checked) {
    let open = || std::fs::File::open(path).unwrap();
    let options = ArrowReaderOptions::new().with_page_index(true);
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(open(), options)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let metadata = builder.metadata().clone();
    for (g, group) in metadata.row_groups().iter().enumerate() {
        let batches: Vec<_> = ParquetRecordBatchReaderBuilder::try_new(open())
            .unwrap()
            .with_row_groups(vec![g])
            .build()
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{} row group {g}: {e}", path.display()));
        for (c, chunk) in group.columns().iter().enumerate() {
            checked.chunks += 1;
            let at = format!("{} row group {g} column {}", path.display(), chunk.column_descr().name());
            let pages = metadata.offset_index().map(|o| o[g][c].page_locations().clone());
            let starts: Vec<u64> = pages.iter().flatten().map(|p| p.first_row_index as u64).collect();
            let mut whole = Seen::default();
            let mut per_page = vec![Seen::default(); starts.len()];
            let mut data_type = DataType::Null;
            for batch in &batches {
                let array = batch.column(c);
                data_type = array.data_type().clone();
                for i in 0..array.len() {
                    let value = ordered(array, i);
                    if !starts.is_empty() {
                        let page = starts.partition_point(|&s| s <= whole.rows).saturating_sub(1);
                        per_page[page].add(value.clone());
                    }
                    whole.add(value);
                }
            }
            if whole.rows != group.num_rows() as u64 {
                checked.problems.push(format!("{at}: {} rows decoded of {}", whole.rows, group.num_rows()));
            }
            if let Some(s) = chunk.statistics() {
                checked.with_statistics += 1;
                let (nulls, bounds) = statistics(s, &data_type);
                if nulls.is_some_and(|n| n != whole.nulls) {
                    checked
                        .problems
                        .push(format!("{at}: statistics say {nulls:?} nulls, the data has {}", whole.nulls));
                }
                if bounds.is_some() && bounds != whole.bounds {
                    checked.problems.push(format!("{at}: statistics say {bounds:?}, the data is {:?}", whole.bounds));
                }
            }
            let index = metadata.column_index().map(|i| &i[g][c]);
            let Some(index) = index.filter(|i| !matches!(i, ColumnIndexMetaData::NONE)) else { continue };
            checked.with_page_index += 1;
            if starts.first() != Some(&0) || starts.windows(2).any(|w| w[0] >= w[1]) {
                checked.problems.push(format!("{at}: offset index first rows {starts:?}"));
                continue;
            }
            for (p, seen) in per_page.iter().enumerate() {
                checked.pages += 1;
                let (nulls, bounds) = page_entry(index, p, &data_type);
                if nulls.is_some_and(|n| n != seen.nulls) || index.is_null_page(p) != (seen.nulls == seen.rows) {
                    let found = format!("{} of {}", seen.nulls, seen.rows);
                    checked.problems.push(format!("{at} page {p}: index says {nulls:?} nulls, the page has {found}"));
                }
                if bounds.is_some() && bounds != seen.bounds {
                    checked
                        .problems
                        .push(format!("{at} page {p}: index says {bounds:?}, the page holds {:?}", seen.bounds));
                }
            }
        }
    }
}

#[test]
fn row_group_statistics_and_page_indexes_agree_with_the_data() {
    // The files this build writes carry a column index wherever they carry statistics.
    let mut ours = Checked::default();
    for file in parquet_files(run()) {
        check_file(&file, &mut ours);
    }
    assert!(ours.problems.is_empty(), "{}", ours.problems.join("\n"));
    assert!(ours.with_statistics > 0, "no column chunk has statistics");
    assert_eq!(ours.with_page_index, ours.with_statistics, "column chunks with statistics but no column index");
    let mut checked = Checked::default();
    let files: Vec<PathBuf> = [run().to_path_buf(), h100()].iter().flat_map(|d| parquet_files(d)).collect();
    for file in &files {
        check_file(file, &mut checked);
    }
    eprintln!(
        "{} files: {} column chunks, {} with statistics, {} with a page index ({} pages)",
        files.len(),
        checked.chunks,
        checked.with_statistics,
        checked.with_page_index,
        checked.pages
    );
    assert!(checked.problems.is_empty(), "{}", checked.problems.join("\n"));
    assert!(checked.with_statistics > 0, "no column chunk has statistics");
}
