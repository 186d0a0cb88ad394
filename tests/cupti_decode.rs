//! The CUPTI decoder on real activity buffers captured on an H100 (`tests/fixtures/cupti`), with
//! no CUDA here: offsets, fields, names, and the tables they become.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rocprof_rs::backend::cupti::decode::{self, Activity, Names, Walker};
use rocprof_rs::backend::cupti::decode::{CudaKernel, Decoded};
use rocprof_rs::config::{Config, Placeholders};
use rocprof_rs::pipeline::records::Record;
use rocprof_rs::pipeline::rows::Tables;
use rocprof_rs::pipeline::run::Seed;

/// A fixture: the buffer's bytes and its sidecar, as the capture wrote them.
struct Fixture {
    name: String,
    bytes: Vec<u8>,
    version: u32,
    records: Vec<(usize, u32)>,
    names: HashMap<u64, Arc<str>>,
}

fn fixtures() -> Vec<Fixture> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cupti");
    let mut all = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap().flatten().filter(|e| e.path().is_dir()) {
        let mut sidecars: Vec<PathBuf> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        sidecars.sort();
        for sidecar in sidecars {
            let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&sidecar).unwrap()).unwrap();
            let bytes = std::fs::read(sidecar.with_extension("bin")).unwrap();
            assert_eq!(json["bytes"].as_u64().unwrap() as usize, bytes.len(), "{}", sidecar.display());
            let records = json["records"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (r["offset"].as_u64().unwrap() as usize, r["kind"].as_u64().unwrap() as u32))
                .collect();
            let names = json["names"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| {
                    (u64::from_str_radix(k.trim_start_matches("0x"), 16).unwrap(), Arc::from(v.as_str().unwrap()))
                })
                .collect();
            all.push(Fixture {
                name: sidecar.strip_prefix(&root).unwrap().display().to_string(),
                bytes,
                version: json["cupti_api_version"].as_u64().unwrap() as u32,
                records,
                names,
            });
        }
    }
    assert!(all.len() >= 3, "fixtures found: {}", all.len());
    all
}

/// Names from the sidecar: pointers are the capturing process's and are never dereferenced.
struct FixtureNames<'a>(&'a HashMap<u64, Arc<str>>);

impl Names for FixtureNames<'_> {
    fn name(&mut self, pointer: u64) -> Option<Arc<str>> {
        self.0.get(&pointer).cloned()
    }
}

fn decoded(f: &Fixture) -> Vec<(Decoded, Option<Arc<str>>)> {
    let mut names = FixtureNames(&f.names);
    let mut out = Vec::new();
    for (i, &(at, _)) in f.records.iter().enumerate() {
        let end = f.records.get(i + 1).map_or(f.bytes.len(), |r| r.0);
        match decode::decode(&f.bytes[at..end], &mut names) {
            Activity::Record(record, name) => out.push((record, name)),
            other => panic!("{}: record at {at} did not decode: {other:?}", f.name),
        }
    }
    out
}

fn kernels(records: &[(Decoded, Option<Arc<str>>)]) -> Vec<(CudaKernel, String)> {
    records
        .iter()
        .filter_map(|(r, n)| match r {
            Decoded::Kernel(k) => Some((*k, n.as_deref().unwrap_or("?").to_owned())),
            _ => None,
        })
        .collect()
}

#[test]
fn our_record_sizes_walk_every_buffer_as_cupti_did() {
    for f in fixtures() {
        let walked: Vec<(usize, u32)> = Walker::new(&f.bytes, f.version)
            .map(|r| r.unwrap())
            .map(|(at, b)| (at, decode::kind(b).unwrap()))
            .collect();
        assert_eq!(walked, f.records, "{}", f.name);
    }
}

#[test]
fn every_record_decodes_and_every_kernel_has_its_name() {
    for f in fixtures() {
        let records = decoded(&f);
        assert_eq!(records.len(), f.records.len(), "{}", f.name);
        for (k, name) in kernels(&records) {
            assert_ne!(name, "?", "{}: kernel at {:#x} unnamed", f.name, k.kernel_id);
            assert!(k.end_ns > k.start_ns && k.start_ns > 0, "{}: {k:?}", f.name);
            assert!(k.grid.iter().chain(&k.block).all(|v| *v >= 1), "{}: {k:?}", f.name);
        }
    }
}

fn seed(name: &str) -> Fixture {
    fixtures().into_iter().find(|f| f.name.ends_with(name)).unwrap_or_else(|| panic!("no fixture {name}"))
}

#[test]
fn the_seed_app_decodes_to_what_it_launched() {
    let f = seed("seed-13.0-h100/capp.json");
    let records = decoded(&f);
    let kernels = kernels(&records);
    assert_eq!(kernels.len(), 10);
    // ks<<<dim3(3,2), 256, 128>>> with a __shared__ float[256].
    let (ks, _) = kernels.iter().find(|(_, n)| n == "_Z2ksPf").unwrap();
    assert_eq!((ks.grid, ks.block), ([3, 2, 1], [256, 1, 1]));
    assert_eq!((ks.static_shared, ks.dynamic_shared, ks.registers), (1024, 128, 16));
    let (kc, _) = kernels.iter().find(|(_, n)| n == "_Z2kcPf").unwrap();
    assert_eq!(kc.cluster, [2, 1, 1]);
    // Two replays of a three-kernel graph: each replay's kernels share its launch's correlation.
    let graph: Vec<&CudaKernel> = kernels.iter().map(|(k, _)| k).filter(|k| k.graph_id != 0).collect();
    assert_eq!(graph.len(), 6);
    let mut correlations: Vec<u64> = graph.iter().map(|k| k.correlation_id).collect();
    correlations.dedup();
    assert_eq!(correlations.len(), 2);
    assert!(graph.iter().all(|k| k.graph_node_id != 0));
    let direct: Vec<u64> =
        kernels.iter().map(|(k, _)| k).filter(|k| k.graph_id == 0).map(|k| k.correlation_id).collect();
    assert_eq!(direct, [1, 2, 3, 4]);
    let copies: Vec<(i32, u64)> = records
        .iter()
        .filter_map(|(r, _)| match r {
            Decoded::Copy(c) => Some((c.operation, c.bytes)),
            _ => None,
        })
        .collect();
    // HtoD, DtoH, HtoD (async, pinned), DtoD, then the memset: 1 MiB each.
    assert_eq!(copies, [(0x101, 1 << 20), (0x102, 1 << 20), (0x101, 1 << 20), (0x108, 1 << 20), (0x200, 1 << 20)]);
}

fn read(dir: &Path, table: &str) -> Vec<RecordBatch> {
    let mut batches = Vec::new();
    for file in std::fs::read_dir(dir.join(table)).unwrap().flatten() {
        if file.path().extension().is_some_and(|e| e == "parquet") {
            let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(file.path()).unwrap())
                .unwrap()
                .build()
                .unwrap();
            batches.extend(reader.map(Result::unwrap));
        }
    }
    batches
}

fn strings(batches: &[RecordBatch], column: &str) -> Vec<Option<String>> {
    use arrow_array::cast::AsArray;
    let mut out = Vec::new();
    for batch in batches {
        let array = batch.column_by_name(column).unwrap();
        match array.data_type() {
            arrow_schema::DataType::Dictionary(..) => {
                let dict = array.as_dictionary::<arrow_array::types::Int32Type>();
                let values = dict.values().as_string::<i32>();
                out.extend(dict.keys().iter().map(|k| k.map(|k| values.value(k as usize).to_owned())));
            }
            _ => out.extend(array.as_string::<i32>().iter().map(|v| v.map(str::to_owned))),
        }
    }
    out
}

fn ints(batches: &[RecordBatch], column: &str) -> Vec<i64> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type, UInt32Type, UInt64Type};
    let mut out = Vec::new();
    for batch in batches {
        let array = batch.column_by_name(column).unwrap();
        match array.data_type() {
            arrow_schema::DataType::Int64 => out.extend(array.as_primitive::<Int64Type>().values().iter().copied()),
            arrow_schema::DataType::Int32 => {
                out.extend(array.as_primitive::<Int32Type>().values().iter().map(|v| i64::from(*v)))
            }
            arrow_schema::DataType::UInt32 => {
                out.extend(array.as_primitive::<UInt32Type>().values().iter().map(|v| i64::from(*v)))
            }
            arrow_schema::DataType::UInt64 => {
                out.extend(array.as_primitive::<UInt64Type>().values().iter().map(|v| *v as i64))
            }
            other => panic!("{column}: {other}"),
        }
    }
    out
}

/// Decoded records through the writer's tables into Parquet, as the tool does with CUPTI's.
#[test]
fn the_seed_app_becomes_the_same_tables_as_an_amd_run() {
    let f = seed("seed-13.0-h100/capp.json");
    let dir = common::scratch("cupti-tables");
    let vars: std::collections::BTreeMap<String, String> = [
        ("ROCPROF_RS_OUTPUT_DIR".to_owned(), dir.display().to_string()),
        ("ROCPROF_RS_OUTPUT_NAME".to_owned(), "capp".to_owned()),
        ("ROCPROF_RS_DOMAINS".to_owned(), "kernel,memory_copy,marker".to_owned()),
        ("ROCPROF_RS_SUMMARY".to_owned(), "0".to_owned()),
    ]
    .into();
    let config = Config::from_vars(&vars, &Placeholders::of_this_process(&vars)).unwrap();
    let seed = Seed {
        operations: rocprof_rs::backend::cupti::operations::operations(),
        library: rocprof_rs::backend::cupti::operations::library(f.version, "fixture".into()),
        counters: None,
    };
    let mut tables = Tables::new(config, seed, rocprof_rs::pipeline::rows::no_agents(), 0).unwrap();
    let mut batch = Vec::new();
    let mut announced = std::collections::HashSet::new();
    let mut pairing = rocprof_rs::backend::cupti::nvtx::Pairing::default();
    for (decoded, name) in decoded(&f) {
        if let Decoded::Kernel(k) = &decoded
            && announced.insert(k.kernel_id)
        {
            batch.push(Record::Symbol(Box::new(rocprof_rs::pipeline::records::Symbol {
                kernel_id: k.kernel_id,
                code_object_id: 0,
                mangled: name.unwrap(),
                kernarg_size: 0,
                group_segment_size: k.static_shared as u32,
                private_segment_size: k.local_per_thread,
                sgpr: 0,
                arch_vgpr: u32::from(k.registers),
                accum_vgpr: 0,
            })));
        }
        // As the backend hands them over: kernels as launches, NVTX edges paired.
        batch.extend(match decoded {
            Decoded::Kernel(k) => Some(Record::Kernel(k.launch())),
            Decoded::Copy(c) => Some(Record::Copy(c)),
            Decoded::Device(d) => Some(Record::Device(Box::new(d.device()))),
            Decoded::NvtxEdge(e) => pairing.add(&e).map(|range| Record::Marker(Box::new(range.into_marker()))),
            Decoded::Graph(g) => Some(Record::row(g)),
        });
    }
    // A kernel CUPTI could not time has no row.
    let mut bad = f.bytes[f.records[3].0..f.records[4].0].to_vec();
    bad[16..24].copy_from_slice(&0u64.to_le_bytes());
    assert!(matches!(decode::decode(&bad, &mut FixtureNames(&f.names)), Activity::BadTimestamps));
    tables.add(&batch).unwrap();
    tables.finish(&[], &rocprof_rs::pipeline::summary::Summary::default()).unwrap();

    let dispatch = read(&dir, "kernel_dispatch");
    let names = strings(&dispatch, "kernel_name");
    assert_eq!(names.len(), 10);
    assert!(
        names.iter().all(|n| n
            .as_deref()
            .is_some_and(|n| n.starts_with("k1(") || n.starts_with("ks(") || n.starts_with("kc("))),
        "{names:?}"
    );
    assert!(strings(&dispatch, "vendor").iter().all(|v| v.as_deref() == Some("nvidia")));
    let ks = names.iter().position(|n| n.as_deref() == Some("ks(float*)")).unwrap();
    // The table's grid is in work-items: 3 x 2 blocks of 256.
    assert_eq!([ints(&dispatch, "grid_x")[ks], ints(&dispatch, "grid_y")[ks]], [768, 2]);
    assert_eq!([ints(&dispatch, "shared_mem")[ks], ints(&dispatch, "regs")[ks]], [1152, 16]);
    assert_eq!(ints(&dispatch, "graph_id").iter().filter(|g| **g != 0).count(), 6);
    let kc = names.iter().position(|n| n.as_deref() == Some("kc(float*)")).unwrap();
    assert_eq!(ints(&dispatch, "cluster_x")[kc], 2);

    let copies = read(&dir, "memory_copy");
    assert_eq!(
        strings(&copies, "operation").into_iter().flatten().collect::<Vec<_>>(),
        [
            "MEMORY_COPY_HOST_TO_DEVICE",
            "MEMORY_COPY_DEVICE_TO_HOST",
            "MEMORY_COPY_HOST_TO_DEVICE",
            "MEMORY_COPY_DEVICE_TO_DEVICE",
            "MEMORY_SET"
        ]
    );

    let markers = read(&dir, "marker");
    let mut found: Vec<(String, Option<String>, String)> = strings(&markers, "message")
        .into_iter()
        .zip(strings(&markers, "domain"))
        .zip(strings(&markers, "operation"))
        .map(|((m, d), o)| (m.unwrap(), d, o.unwrap()))
        .collect();
    found.sort();
    let expected = [
        ("dr", Some("dom"), "nvtx_range"),
        ("mark", None, "nvtx_mark"),
        ("outer", None, "nvtx_range"),
        ("se", None, "nvtx_range"),
    ]
    .map(|(m, d, o)| (m.to_owned(), d.map(str::to_owned), o.to_owned()));
    assert_eq!(found, expected);
    let durations = ints(&markers, "duration_ns");
    assert!(durations.iter().all(|d| *d >= 0));
}

#[test]
fn truncated_and_garbage_buffers_never_panic() {
    let mut names = FixtureNames(&HashMap::new());
    for f in fixtures() {
        for cut in 0..f.bytes.len().min(400) {
            let _ = decode::decode(&f.bytes[..cut], &mut names);
            let _ = Walker::new(&f.bytes[..cut], f.version).count();
        }
    }
    let mut noise = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..2000 {
        let mut bytes = vec![0u8; 256];
        for b in &mut bytes {
            noise ^= noise << 13;
            noise ^= noise >> 7;
            noise ^= noise << 17;
            *b = noise as u8;
        }
        bytes[0..4].copy_from_slice(&[1u32, 2, 8, 10, 12, 22][(noise % 6) as usize].to_le_bytes());
        let _ = decode::decode(&bytes, &mut names);
    }
}

/// The same capp run, dumped by rocprof-rs itself: once in one buffer, once cut into buffers of
/// eight records (a range's ends then sit in different buffers).
fn capture(prefix: &str) -> Vec<(Decoded, Option<Arc<str>>)> {
    let mut all = Vec::new();
    for f in fixtures().into_iter().filter(|f| f.name.starts_with(&format!("rocprof-rs-13.0-h100/{prefix}-0"))) {
        all.extend(decoded(&f));
    }
    all
}

/// What capp says it did (its `EXPECT` line, printed on the H100 by the run the fixture dumped).
fn expect() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cupti/rocprof-rs-13.0-h100/capp.expect");
    serde_json::from_str(std::fs::read_to_string(path).unwrap().trim_start_matches("EXPECT ")).unwrap()
}

fn short(mangled: &str) -> String {
    rocprof_rs_format::kernel_names::display_name(mangled, true, true)
}

#[test]
fn a_dumped_run_decodes_to_what_the_application_says_it_did() {
    let expect = expect();
    for prefix in ["capp", "capp-small"] {
        let records = capture(prefix);
        let kernels = kernels(&records);
        assert_eq!(kernels.len() as u64, expect["kernels"].as_u64().unwrap(), "{prefix}");
        let mut by_name: HashMap<String, u64> = HashMap::new();
        for (_, name) in &kernels {
            *by_name.entry(short(name)).or_default() += 1;
        }
        let want: HashMap<String, u64> = expect["kernels_by_name"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
            .collect();
        assert_eq!(by_name, want, "{prefix}");
        let graph = kernels.iter().filter(|(k, _)| k.graph_id != 0).count() as u64;
        assert_eq!(graph, expect["graph_kernels"].as_u64().unwrap());
        let copies =
            records.iter().filter(|(r, _)| matches!(r, Decoded::Copy(c) if c.operation != 0x200)).count() as u64;
        let memsets =
            records.iter().filter(|(r, _)| matches!(r, Decoded::Copy(c) if c.operation == 0x200)).count() as u64;
        assert_eq!((copies, memsets), (expect["copies"].as_u64().unwrap(), expect["memsets"].as_u64().unwrap()));
        let mut pairing = rocprof_rs::backend::cupti::nvtx::Pairing::default();
        let mut markers: Vec<String> = records
            .iter()
            .filter_map(|(r, _)| match r {
                Decoded::NvtxEdge(e) => pairing.add(e).map(|range| range.marker.message.to_string()),
                _ => None,
            })
            .collect();
        markers.sort();
        assert_eq!(markers, ["dr", "mark", "outer", "se"], "{prefix}");
        assert_eq!(pairing.unclosed(), 0);
        let devices: Vec<String> = records
            .iter()
            .filter_map(|(r, _)| match r {
                Decoded::Device(d) => Some(format!(
                    "{} sm_{}{} {} SMs",
                    d.name, d.compute_capability.0, d.compute_capability.1, d.multiprocessors
                )),
                _ => None,
            })
            .collect();
        assert_eq!(devices, ["NVIDIA H100 80GB HBM3 sm_90 132 SMs"]);
    }
}

/// Kernel names as c++filt spells them on the GPU machine (libiberty, the family of the
/// `__cxa_demangle` that torch.profiler and rocprofv3 use), against ours (cpp_demangle). One
/// difference is known and left: for a function template named as a template argument,
/// cpp_demangle prints its return type (`<float, void f<...>(...)>`) and libiberty does not.
#[test]
fn kernel_names_demangle_as_the_toolchain_does() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cupti/rocprof-rs-13.0-h100/demangled.tsv");
    let text = std::fs::read_to_string(path).unwrap();
    let mut differ = Vec::new();
    for line in text.lines().skip(1) {
        let [mangled, cxxfilt, cxa] = line.split('\t').collect::<Vec<_>>()[..] else { panic!("{line}") };
        assert_eq!(cxxfilt, cxa, "the two toolchain demanglers agree");
        let ours = rocprof_rs_format::kernel_names::display_name(mangled, true, false);
        let known = ours.replace("<void ", "<").replace(", void ", ", ");
        if known != cxxfilt {
            differ.push((ours, cxxfilt.to_owned()));
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}

/// A CUDA 13 graph-level record (`CUpti_ActivityGraphTrace2`, 56 bytes), laid out by hand at the
/// offsets `sys/tests/cupti_layout.rs` pins, decodes to the launch it describes; one cut before
/// its prefix, or with no end, does not.
#[test]
fn a_graph_trace_record_decodes_to_its_launch() {
    let mut bytes = vec![0u8; 56];
    let put32 = |b: &mut Vec<u8>, at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let put64 = |b: &mut Vec<u8>, at: usize, v: u64| b[at..at + 8].copy_from_slice(&v.to_le_bytes());
    put32(&mut bytes, 0, 51);
    put32(&mut bytes, 4, 777);
    put64(&mut bytes, 8, 1_000);
    put64(&mut bytes, 16, 5_000);
    put32(&mut bytes, 24, 1);
    put32(&mut bytes, 28, 42);
    put32(&mut bytes, 32, 3);
    put32(&mut bytes, 36, 7);
    assert_eq!(decode::record_size(51, 130_001), Some(56));
    match decode::decode(&bytes, &mut FixtureNames(&HashMap::new())) {
        Activity::Record(Decoded::Graph(g), None) => {
            assert_eq!((g.graph_id, g.stream_id, g.start_ns, g.end_ns), (42, 7, 1_000, 5_000));
            assert_eq!((g.correlation_id, g.agent_id), (777, 1));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(decode::decode(&bytes[..39], &mut FixtureNames(&HashMap::new())), Activity::Skipped(51)));
    put64(&mut bytes, 16, 0);
    assert!(matches!(decode::decode(&bytes, &mut FixtureNames(&HashMap::new())), Activity::BadTimestamps));
}
