//! The file format does not change by accident: the same input gives the same bytes as the
//! files in `tests/golden/`, which the code of commit 47d76a8 wrote (before the crates were
//! split). Two producers are held to it:
//! - the tool's writer, fed a fixed stream of every record kind of both backends;
//! - the importers, fed the committed fixtures.
//!
//! Only what a run cannot repeat is masked: the values (never the keys) of the key-value
//! metadata that name the process, its command line, its clock readings and the input's path.
//! Every data page, dictionary and statistic, and every byte of the footer's schema and row
//! groups, must be equal.
//!
//! `ROCPROF_RS_BLESS=1 cargo test --test format_identity` writes the golden files anew; do that
//! only for a change of the format that bumps its version.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::file::metadata::ParquetMetaDataReader;
use rocprof_rs::backend::amd::operations::MARKER_RANGE_KIND;
use rocprof_rs::backend::cupti::decode::{CudaDevice, CudaKernel, NvtxEdge};
use rocprof_rs::backend::cupti::nvtx::Pairing;
use rocprof_rs::backend::cupti::operations::{COPY_KIND, CUDA_RUNTIME_API, NVTX_KIND, NVTX_MARK, NVTX_RANGE};
use rocprof_rs::backend::{amd, cupti};
use rocprof_rs::config::{Config, Placeholders};
use rocprof_rs::pipeline::records::{
    Allocation, Api, Copy, CounterDispatch, CounterValue, Kernel, Marker, Record, Scratch, Symbol,
};
use rocprof_rs::pipeline::rows::Tables;
use rocprof_rs::pipeline::run::{CounterNames, Library, Seed};
use rocprofiler_sdk_sys as sys;

mod common;

/// Key-value metadata whose values differ from run to run.
const VOLATILE: [&str; 8] = [
    // What the queue and the library's buffers held at their fullest depends on scheduling.
    "memory",
    "rocprof_rs.pid",
    "rocprof_rs.command_line",
    "rocprof_rs.start_ns",
    "rocprof_rs.start_unix_ns",
    "rocprof_rs.end_ns",
    "rocprof_rs.imported_from",
    "rocprof_rs.cupti_library",
];

fn golden(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(case)
}

fn config(dir: &Path) -> Config {
    let vars: BTreeMap<String, String> = [
        ("ROCPROF_RS_OUTPUT_DIR", dir.display().to_string()),
        ("ROCPROF_RS_OUTPUT_NAME", "golden".into()),
        ("ROCPROF_RS_ROW_GROUP_ROWS", "1024".into()),
        ("ROCPROF_RS_ROTATE_ROWS", "2500".into()),
        // The origin columns, fixed: a rank of a job on a host of a fixed name.
        ("RANK", "3".into()),
        ("LOCAL_RANK", "1".into()),
        ("WORLD_SIZE", "8".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let placeholders = Placeholders { hostname: "golden-host".into(), ..Placeholders::of_this_process(&vars) };
    Config::from_vars(&vars, &placeholders).unwrap()
}

const KERNELS: [&str; 4] = [
    "_Z10vector_addPfS_S_i",
    "_Z6reduceILi256EEvPKfPfi",
    "triton_poi_fused_add_0",
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
];

fn symbols() -> Vec<Record> {
    KERNELS
        .iter()
        .enumerate()
        .map(|(i, mangled)| {
            Record::Symbol(Box::new(Symbol {
                kernel_id: i as u64 + 1,
                code_object_id: 1 + i as u64 / 2,
                mangled: Arc::from(*mangled),
                kernarg_size: 24 + 8 * i as u32,
                group_segment_size: 1024 * i as u32,
                private_segment_size: 16 * (i as u32 % 2),
                sgpr: 16 + i as u32,
                arch_vgpr: 32 + 4 * i as u32,
                accum_vgpr: 8 * (i as u32 % 3),
            }))
        })
        .collect()
}

/// A stream of every AMD record kind, as the ingest thread hands them over.
fn amd_records(n: usize) -> Vec<Record> {
    let mut records = symbols();
    let api_kinds = [
        sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
        sys::ROCPROFILER_BUFFER_TRACING_HSA_CORE_API,
        sys::ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API,
        sys::ROCPROFILER_BUFFER_TRACING_RCCL_API,
    ];
    for i in 0..n {
        let t = 1_000_000 + i as u64 * 3_000;
        let id = i as u64 + 1;
        records.push(Record::Api(Api {
            kind: api_kinds[i % 4],
            operation: (i % 7) as i32,
            thread_id: 100 + (i % 3) as u64,
            correlation_id: id,
            ancestor_id: id / 5,
            start_ns: t,
            end_ns: t + 400 + (i as u64 * 37) % 900,
        }));
        records.push(Record::Kernel(Kernel {
            thread_id: 100 + (i % 3) as u64,
            correlation_id: id,
            external_id: if i % 50 == 0 { id } else { 0 },
            start_ns: t + 800,
            end_ns: t + 1_800 + (i as u64 * 7919) % 50_000,
            agent_id: 1 + (i % 2) as u64,
            queue_id: 1 + (i % 4) as u64,
            kernel_id: 1 + (i % KERNELS.len()) as u64,
            dispatch_id: id,
            scratch_size: 0,
            shared_mem: 4096,
            block: [256, 1, 1],
            grid_x: 1 << (8 + i % 12),
            grid_yz: [1 + (i % 3) as u32, 1],
            has_pipe: i % 9 == 0,
            pipe_id: if i % 9 == 0 { i as i16 % 4 } else { 0 },
            ..Kernel::default()
        }));
        if i % 3 == 0 {
            records.push(Record::CounterDispatch(CounterDispatch {
                dispatch_id: id,
                agent_id: 1 + (i % 2) as u64,
                kernel_id: 1 + (i % KERNELS.len()) as u64,
                correlation_id: id,
                records: 2,
                join: None,
                site: 0,
                shape: 0,
                site_launches: 0,
            }));
            for counter_id in [1, 2] {
                records.push(Record::CounterValue(CounterValue {
                    dispatch_id: id,
                    agent_id: 1 + (i % 2) as u64,
                    counter_id,
                    value: (i as f64) * 1.5 + counter_id as f64,
                    instances: 4,
                    group: (i % 2) as u32,
                    instance: None,
                }));
            }
        }
        if i % 4 == 0 {
            records.push(Record::Copy(Copy {
                kind: sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
                operation: (i % 3) as i32 + 1,
                thread_id: 100,
                correlation_id: id,
                start_ns: t + 50,
                end_ns: t + 2_050,
                src_agent_id: 0,
                dst_agent_id: 1,
                bytes: 4096 * (i as u64 % 64 + 1),
                src_address: 0x7f00_0000_0000 + i as u64 * 4096,
                dst_address: 0x7e00_0000_0000 + i as u64 * 4096,
                stream_id: None,
            }));
        }
        if i % 10 == 0 {
            records.push(Record::Scratch(Scratch {
                kind: sys::ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY,
                operation: (i % 3) as i32,
                thread_id: 101,
                correlation_id: id,
                start_ns: t,
                end_ns: t + 100,
                agent_id: 1,
                queue_id: 2,
                flags: (i % 2) as u32,
                bytes: 65536,
            }));
            records.push(Record::Allocation(Allocation {
                kind: sys::ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION,
                operation: (i % 2) as i32 + 1,
                thread_id: 101,
                correlation_id: id,
                start_ns: t + 10,
                end_ns: t + 60,
                agent_id: 1,
                address: 0x1000 * i as u64,
                bytes: 1 << (i % 20),
            }));
        }
        if i % 5 == 0 {
            records.push(Record::Marker(Box::new(Marker {
                kind: MARKER_RANGE_KIND,
                operation: (i % 3) as i32,
                thread_id: 100,
                correlation_id: id,
                start_ns: t,
                end_ns: t + 2_500,
                depth: (i % 2 == 0).then_some((i % 3) as i32),
                message: format!("step {}", i / 5).into(),
                domain: None,
            })));
        }
    }
    records
}

/// What CUPTI's decoder hands the backend: a record in the pipeline's terms, or an NVTX edge
/// the backend pairs first.
enum Decoded {
    Record(Record),
    Edge(NvtxEdge),
}

impl From<Record> for Decoded {
    fn from(record: Record) -> Decoded {
        Decoded::Record(record)
    }
}

/// A stream of every CUPTI record kind, in batches of 1,000 decoded records, as the backend
/// hands them over (its NVTX edges paired into ranges).
fn cuda_records(n: usize) -> Vec<Vec<Record>> {
    let mut pairing = Pairing::default();
    let decoded = cuda_decoded(n);
    decoded
        .chunks(1000)
        .map(|chunk| {
            chunk
                .iter()
                .filter_map(|d| match d {
                    Decoded::Record(r) => Some(r.clone()),
                    Decoded::Edge(edge) => pairing.add(edge).map(|range| Record::Marker(Box::new(range.into_marker()))),
                })
                .collect()
        })
        .collect()
}

fn cuda_decoded(n: usize) -> Vec<Decoded> {
    let mut records: Vec<Decoded> = vec![
        Record::Device(Box::new(
            CudaDevice {
                id: 0,
                name: "NVIDIA H100 80GB HBM3".into(),
                compute_capability: (9, 0),
                multiprocessors: 132,
                threads_per_warp: 32,
                max_warps_per_multiprocessor: 64,
                shared_memory_per_multiprocessor: 233_472,
                core_clock_khz: 1_980_000,
                global_memory_bytes: 85_520_809_984,
            }
            .device(),
        ))
        .into(),
    ];
    records.extend(symbols().into_iter().map(Decoded::from));
    let domain: Arc<str> = Arc::from("torch");
    for i in 0..n {
        let t = 5_000_000 + i as u64 * 2_000;
        let id = i as u64 + 1;
        records.push(
            Record::Api(Api {
                kind: CUDA_RUNTIME_API,
                operation: 211,
                thread_id: 7,
                correlation_id: id,
                ancestor_id: 0,
                start_ns: t,
                end_ns: t + 300,
            })
            .into(),
        );
        records.push(
            Record::Kernel(
                CudaKernel {
                    start_ns: t + 500,
                    end_ns: t + 1_500 + (i as u64 * 131) % 4_000,
                    correlation_id: id,
                    grid_id: id,
                    graph_node_id: if i % 7 == 0 { 9 } else { 0 },
                    kernel_id: 1 + (i % KERNELS.len()) as u64,
                    device_id: 0,
                    stream_id: 7 + (i % 2) as u32,
                    graph_id: if i % 7 == 0 { 3 } else { 0 },
                    grid: [132, 1 + (i % 2) as i32, 1],
                    block: [128, 1, 1],
                    cluster: if i % 11 == 0 { [2, 1, 1] } else { [0, 0, 0] },
                    static_shared: 1024,
                    dynamic_shared: 8192 * (i as i32 % 3),
                    local_per_thread: 0,
                    registers: 64 + (i % 4) as u16,
                }
                .launch(),
            )
            .into(),
        );
        if i % 6 == 0 {
            records.push(Decoded::Record(Record::Copy(Copy {
                kind: COPY_KIND,
                operation: 1,
                thread_id: 7,
                correlation_id: id,
                start_ns: t + 100,
                end_ns: t + 900,
                src_agent_id: 0,
                dst_agent_id: 1,
                bytes: 1 << 20,
                src_address: 0,
                dst_address: 0,
                stream_id: Some(7),
            })));
        }
        if i % 8 == 0 {
            let range = i as u32 / 8 + 1;
            for (flags, at, name) in [(2, t, Some(format!("step {range}").into())), (4, t + 1_900, None)] {
                records.push(Decoded::Edge(NvtxEdge {
                    flags,
                    id: range,
                    timestamp_ns: at,
                    thread_id: 7,
                    name,
                    domain: range.is_multiple_of(2).then(|| domain.clone()),
                }));
            }
        }
    }
    records
}

/// `batches` through the writer's tables, as the writer thread hands them over.
fn write_tool_dataset(dir: &Path, library: Library, batches: &[Vec<Record>], counters: Option<CounterNames>) {
    let operations = [
        (sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, 0, "hipLaunchKernel"),
        (CUDA_RUNTIME_API, 211, "cudaLaunchKernel"),
        (NVTX_KIND, NVTX_RANGE, "nvtx_range"),
        (NVTX_KIND, NVTX_MARK, "nvtx_mark"),
    ]
    .into_iter()
    .map(|(kind, op, name)| ((kind, op), Arc::from(name)))
    .collect();
    let seed = Seed { operations, library, counters };
    let mut tables = Tables::new(config(dir), seed, rocprof_rs::pipeline::rows::no_agents(), 0).unwrap();
    for batch in batches {
        tables.add(batch).unwrap();
    }
    tables.complete(&[]).unwrap();
}

fn counter_names() -> CounterNames {
    let names: HashMap<(u64, u64), Arc<str>> =
        [(1, 1, "SQ_WAVES"), (1, 2, "GRBM_COUNT"), (2, 1, "SQ_WAVES"), (2, 2, "GRBM_COUNT")]
            .into_iter()
            .map(|(agent, id, name)| ((agent, id), Arc::from(name)))
            .collect();
    CounterNames {
        names,
        plan_json: r#"{"gfx942":[["SQ_WAVES"],["GRBM_COUNT"]]}"#.into(),
        passes: 2,
        deferred: false,
        join_launches: false,
    }
}

/// Every file under `dir`, by path relative to it.
fn files(dir: &Path) -> BTreeMap<String, PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.insert(path.strip_prefix(root).unwrap().display().to_string(), path);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The column that holds the writing process's id: the one value of a file that the same
/// input cannot repeat in another process.
const PID: &str = "pid";

/// The `process` table's columns that describe the writing process itself (its id, command
/// line, clock readings and metadata): compared by shape only.
const PROCESS_VOLATILE: [&str; 6] = ["pid", "command_line", "start_ns", "end_ns", "start_unix_ns", "metadata"];

/// A Parquet file as the comparison sees it: the bytes of every column chunk (pages,
/// dictionaries) with its encodings, sizes and statistics, and the footer's schema and
/// key-value metadata with volatile values masked. The `pid` column's chunks are compared by
/// their encodings and value count only, and checked to hold one process id throughout.
fn comparable_parquet(bytes: &[u8], name: &str) -> Vec<String> {
    assert!(bytes.len() > 12 && &bytes[bytes.len() - 4..] == b"PAR1", "{name}: not a Parquet file");
    let footer_len = u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap()) as usize;
    let data_end = bytes.len() - 8 - footer_len;
    let metadata = ParquetMetaDataReader::decode_metadata(&bytes[data_end..bytes.len() - 8])
        .unwrap_or_else(|e| panic!("{name}: footer: {e}"));
    let file = metadata.file_metadata();
    let masked: Vec<(String, Option<String>)> = file
        .key_value_metadata()
        .map(|kvs| {
            kvs.iter()
                .map(|kv| {
                    let volatile = VOLATILE.contains(&kv.key.as_str());
                    (kv.key.clone(), if volatile { Some("<masked>".to_owned()) } else { kv.value.clone() })
                })
                .collect()
        })
        .unwrap_or_default();
    let mut parts = vec![format!(
        "version {} rows {} created_by {:?}\nschema {:?}\nkv {:?}",
        file.version(),
        file.num_rows(),
        file.created_by(),
        file.schema_descr(),
        masked,
    )];
    for (g, group) in metadata.row_groups().iter().enumerate() {
        parts.push(format!("row group {g}: {} rows, {} columns", group.num_rows(), group.num_columns()));
        for column in group.columns() {
            let path = column.column_path().string();
            let shape = format!(
                "{g}/{path}: {:?} {:?} {} values",
                column.encodings().collect::<Vec<_>>(),
                column.compression(),
                column.num_values()
            );
            let process_table = name.contains("/process/") || name.starts_with("process/");
            if path == PID || (process_table && PROCESS_VOLATILE.contains(&path.as_str())) {
                parts.push(shape);
                continue;
            }
            let (start, len) = column.byte_range();
            let chunk = &bytes[start as usize..(start + len) as usize];
            parts.push(format!(
                "{shape}, {} bytes ({} uncompressed), statistics {:?}, pages {:02x?}",
                column.compressed_size(),
                column.uncompressed_size(),
                column.statistics(),
                chunk,
            ));
        }
    }
    parts
}

/// The process ids a file's `pid` column holds.
fn pids(path: &Path) -> std::collections::BTreeSet<u32> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::UInt32Type;
    let reader =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap())
            .unwrap()
            .build()
            .unwrap();
    let mut pids = std::collections::BTreeSet::new();
    for batch in reader {
        let batch = batch.unwrap();
        if let Some(column) = batch.column_by_name(PID) {
            pids.extend(column.as_primitive::<UInt32Type>().values().iter().copied());
        }
    }
    pids
}

fn comparable_json(bytes: &[u8], name: &str) -> String {
    let mut value: serde_json::Value = serde_json::from_slice(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    if let Some(object) = value.as_object_mut() {
        for (key, v) in object.iter_mut() {
            if VOLATILE.contains(&format!("rocprof_rs.{key}").as_str()) || VOLATILE.contains(&key.as_str()) {
                *v = serde_json::Value::String("<masked>".into());
            }
        }
    }
    serde_json::to_string_pretty(&value).unwrap()
}

/// Compares the dataset in `written` with the golden case, or writes the case when blessing.
fn assert_same_as_golden(case: &str, written: &Path) {
    let golden = golden(case);
    if std::env::var_os("ROCPROF_RS_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(&golden);
        for (relative, path) in files(written) {
            let to = golden.join(&relative);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(path, to).unwrap();
        }
        return;
    }
    let (ours, theirs) = (files(written), files(&golden));
    assert!(
        !theirs.is_empty(),
        "{}: no golden files (run with ROCPROF_RS_BLESS=1 on the reference commit)",
        golden.display()
    );
    assert_eq!(ours.keys().collect::<Vec<_>>(), theirs.keys().collect::<Vec<_>>(), "{case}: the same files");
    for (relative, path) in &ours {
        let (a, b) = (std::fs::read(path).unwrap(), std::fs::read(&theirs[relative]).unwrap());
        let name = format!("{case}/{relative}");
        if relative.ends_with(".parquet") {
            let (parts, golden_parts) = (comparable_parquet(&a, &name), comparable_parquet(&b, &name));
            assert_eq!(parts.len(), golden_parts.len(), "{name}: as many row groups and columns as the golden file");
            for (a, b) in parts.iter().zip(&golden_parts) {
                assert!(a == b, "{name}: differs from the golden file:\n ours: {a:.600}\n golden: {b:.600}");
            }
            // The tool's rows carry the writing process's id; an import's, the imported one's.
            let (written_pids, golden_pids) = (pids(path), pids(&theirs[relative]));
            let this_process = std::collections::BTreeSet::from([std::process::id()]);
            assert!(
                written_pids == golden_pids || (written_pids == this_process && golden_pids.len() == 1),
                "{name}: process ids {written_pids:?}, golden {golden_pids:?}"
            );
        } else if relative.ends_with(".json") {
            assert_eq!(comparable_json(&a, &name), comparable_json(&b, &name), "{name}");
        } else {
            assert!(a == b, "{name}: differs from the golden file");
        }
    }
}

#[test]
fn the_tool_writes_the_same_bytes_for_amd_records() {
    let dir = common::scratch("golden-amd");
    let batches: Vec<Vec<Record>> = amd_records(6000).chunks(1000).map(<[Record]>::to_vec).collect();
    write_tool_dataset(&dir, amd::operations::library((1, 0, 0)), &batches, Some(counter_names()));
    assert_same_as_golden("tool-amd", &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_tool_writes_the_same_bytes_for_cupti_records() {
    let dir = common::scratch("golden-cuda");
    let backend = cupti::operations::library(130_000, "libcupti.so.13".into());
    write_tool_dataset(&dir, backend, &cuda_records(3000), None);
    assert_same_as_golden("tool-cupti", &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_importers_write_the_same_bytes() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases: [(&str, Vec<PathBuf>); 5] = [
        ("import-rocprofv3-csv", vec![fixtures.join("rocprofv3")]),
        ("import-rocprofv3-json", vec![fixtures.join("rocprofv3-json/4242_results.json")]),
        ("import-rocprof-v1-csv", vec![fixtures.join("rocprof-v1-csv/gunrock_results.csv")]),
        ("import-rocprof-v1-pmc", vec![fixtures.join("rocprof-v1-pmc/results.csv")]),
        ("import-rocpd", vec![root.join("fuzz/seeds/import_rocpd/4242_results.db")]),
    ];
    for (case, inputs) in cases {
        let dir = common::scratch(case);
        let out = dir.join("out");
        rocprof_rs_analysis::import::import(&inputs, &out, "golden").unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_same_as_golden(case, &out);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
