//! The `pc_sample` table end to end, without a GPU: PC sample records fed straight into the
//! tool's writer are summed per kernel, PC and reason (the kernel found from the dispatch,
//! whether its record comes before the samples or after), read back by `hotspots`, exported
//! as rocprofv3's PC sampling CSVs and imported again.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use rocprof_rs::config::{Config, Placeholders};
use rocprof_rs::pipeline::records::{Kernel, PcInstruction, PcSample, PcSampleNames, Record, Symbol, Tally};
use rocprof_rs::pipeline::rows::Tables;
use rocprof_rs::pipeline::run::{Library, OperationNames, Seed};
use rocprof_rs_analysis::hotspots::{self, PcSampleRow};
use rocprof_rs_format::keys;
use rocprof_rs_format::pc_sample::{ReasonCategory, SampleMethod};

mod common;

const WAITCNT: u32 = 3;
const ALU: u32 = 2;
const LDS_TYPE: u32 = 5;

fn tables(dir: &Path) -> Tables {
    let vars: BTreeMap<String, String> = [
        ("ROCPROF_RS_OUTPUT_DIR".to_owned(), dir.display().to_string()),
        ("ROCPROF_RS_OUTPUT_NAME".to_owned(), "pc".to_owned()),
        ("ROCPROF_RS_SUMMARY".to_owned(), "0".to_owned()),
    ]
    .into();
    let config = Config::from_vars(&vars, &Placeholders::of_this_process(&vars)).unwrap();
    let library = Library { backend: "test", vendor: Arc::from("amd"), versions: Vec::new(), api_tables: &[] };
    let seed = Seed { operations: OperationNames::new(), library, counters: None };
    Tables::new(config, seed, rocprof_rs::pipeline::rows::no_agents(), 0).unwrap()
}

fn names() -> Record {
    let name = |code: u32, name: &str| (code, Box::from(name));
    Record::PcSampleNames(Box::new(PcSampleNames {
        method: SampleMethod::Stochastic,
        reasons: vec![
            name(0, "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NONE"),
            name(ALU, "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ALU_DEPENDENCY"),
            name(WAITCNT, "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT"),
        ],
        instruction_types: vec![name(LDS_TYPE, "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS")],
    }))
}

fn symbol(kernel_id: u64, name: &str) -> Record {
    Record::Symbol(Box::new(Symbol { code_object_id: 9, ..Symbol::named(kernel_id, name.into()) }))
}

fn dispatch(kernel_id: u64, dispatch_id: u64) -> Record {
    Record::Kernel(Kernel {
        start_ns: 1_000 * dispatch_id,
        end_ns: 1_000 * dispatch_id + 500,
        dispatch_id,
        correlation_id: dispatch_id + 100,
        kernel_id,
        grid_x: 64,
        grid_yz: [1, 1],
        block: [64, 1, 1],
        ..Default::default()
    })
}

fn sample(dispatch_id: u64, pc_offset: u64, reason: u32, samples: u32) -> Record {
    let category = match reason {
        WAITCNT => ReasonCategory::MemoryDependency,
        ALU => ReasonCategory::ExecutionDependency,
        _ => ReasonCategory::Issued,
    };
    Record::PcSample(PcSample {
        agent_id: 1,
        dispatch_id,
        correlation_id: dispatch_id + 100,
        kernel_id: 0,
        code_object_id: 9,
        pc_offset,
        reason: Some(reason),
        instruction_type: Some(LDS_TYPE),
        category,
        method: SampleMethod::Stochastic,
        samples,
    })
}

/// The rows summed per (kernel, pc, reason), whatever rows the flushes made.
fn sums(rows: &[PcSampleRow]) -> BTreeMap<(String, u64, Option<String>), u64> {
    let mut sums = BTreeMap::new();
    for r in rows {
        *sums.entry((r.kernel_name.clone(), r.pc_offset, r.reason.clone())).or_default() += r.samples;
    }
    sums
}

fn short(reason: &str) -> Option<String> {
    Some(format!("ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_{reason}"))
}

#[test]
fn samples_are_summed_per_kernel_pc_and_reason_and_come_back_through_rocprofv3s_csv() {
    let dir = common::scratch("pc-sample-table");
    let run = dir.join("run");
    let mut t = tables(&run);
    let instruction = Record::PcInstruction(Box::new(PcInstruction {
        kernel_id: 0,
        code_object_id: 9,
        pc_offset: 0x40,
        text: Some("ds_read_b32 v1, v2".into()),
        source_file: Some(Arc::from("/src/lds.cpp")),
        source_line: Some(12),
    }));
    // Dispatch 1 of `lds` is known before its samples; dispatch 2's record comes after them
    // (a dispatch's record comes when it ends); dispatch 3 of `copy` never comes.
    let mut first = vec![names(), symbol(7, "lds"), symbol(8, "copy"), instruction, dispatch(7, 1)];
    for _ in 0..40 {
        first.push(sample(1, 0x40, WAITCNT, 1));
    }
    first.push(sample(1, 0x40, ALU, 5));
    first.push(sample(2, 0x40, WAITCNT, 10));
    first.push(sample(2, 0x44, 0, 3));
    first.push(sample(3, 0x10, WAITCNT, 4));
    first.push(Record::Tally(Tally { key: keys::PC_SAMPLES_DROPPED, count: 6 }));
    t.add(&first).unwrap();
    // A flush between them: the sums so far become rows, and dispatch 2's wait for its kernel.
    t.complete(&[]).unwrap();
    t.add(&[dispatch(7, 2), sample(1, 0x40, WAITCNT, 2)]).unwrap();
    let summary = rocprof_rs::pipeline::summary::Summary::default();
    t.finish(&[], &summary).unwrap();
    t.write_run_metadata(&summary).unwrap();

    let rows = hotspots::read_pc_samples(&run).unwrap();
    let expected: BTreeMap<(String, u64, Option<String>), u64> = [
        (("lds".to_owned(), 0x40, short("WAITCNT")), 52),
        (("lds".to_owned(), 0x40, short("ALU_DEPENDENCY")), 5),
        (("lds".to_owned(), 0x44, short("NONE")), 3),
        (("<unknown kernel>".to_owned(), 0x10, short("WAITCNT")), 4),
    ]
    .into();
    assert_eq!(sums(&rows), expected);
    // 40 single samples and 2 more summed per flush: one row per flush, not per sample.
    assert!(rows.len() <= 7, "{} rows", rows.len());
    let hot = rows.iter().find(|r| r.pc_offset == 0x40 && r.reason == short("WAITCNT")).unwrap();
    assert_eq!(hot.instruction.as_deref(), Some("ds_read_b32 v1, v2"));
    assert_eq!((hot.source_file.as_deref(), hot.source_line), (Some("/src/lds.cpp"), Some(12)));
    assert_eq!(hot.category, ReasonCategory::MemoryDependency);
    assert_eq!(hot.instruction_type.as_deref(), Some("ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS"));
    assert_eq!((hot.kernel_id, hot.agent_id, hot.code_object_id), (7, 1, 9));

    let metadata: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join(keys::metadata_file_name("pc"))).unwrap()).unwrap();
    assert_eq!(metadata[keys::PC_SAMPLES], 64);
    assert_eq!(metadata[keys::PC_SAMPLES_UNRESOLVED], 4);
    assert_eq!(metadata[keys::PC_SAMPLES_DROPPED], 6);

    let lds = &hotspots::hotspots(&rows, 5)[0];
    assert_eq!((lds.kernel_name.as_str(), lds.samples, lds.instructions[0].pc_offset), ("lds", 60, 0x40));

    // The commands: `hotspots` lists the hot instruction with its reasons and source line, and
    // `analyze` says the stall mix beside the class.
    let cli = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap();
        assert!(output.status.success(), "{args:?}: {}", common::stderr(&output));
        String::from_utf8(output.stdout).unwrap()
    };
    let text = cli(&["hotspots", run.to_str().unwrap(), "--top", "1"]);
    assert!(text.contains("lds — 60 samples (94% of all)"), "{text}");
    assert!(text.contains("ds_read_b32 v1, v2 at /src/lds.cpp:12"), "{text}");
    assert!(text.contains("[ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT 91%"), "{text}");
    let analysis: serde_json::Value =
        serde_json::from_str(&cli(&["analyze", run.to_str().unwrap(), "--format", "json"])).unwrap();
    let evidence = analysis["kernels"][0]["diagnosis"]["evidence"].to_string();
    assert!(
        evidence.contains("PC samples: 57 stalled of 60, 91% memory_dependency, 9% execution_dependency"),
        "{evidence}"
    );

    let json: serde_json::Value =
        serde_json::from_str(&cli(&["hotspots", run.to_str().unwrap(), "--format", "json"])).unwrap();
    assert_eq!(json["kernels"][0]["categories"][0]["category"], "memory_dependency", "{json}");
    assert_eq!(json["kernels"][0]["instructions"][0]["source_line"], 12, "{json}");
    let table = cli(&["analyze", run.to_str().unwrap(), "--top", "1"]);
    assert!(table.contains("  hot:  95%       57  0x9+0x40  ds_read_b32 v1, v2 at /src/lds.cpp:12  ["), "{table}");

    // The HTML report's hotspots section lists the instruction.
    let report = rocprof_rs_analysis::report::build(&run, &Default::default()).unwrap();
    let page = rocprof_rs_analysis::report::html::render(&report);
    let section = page.split("<section id=\"hotspots\"").nth(1).unwrap().split("</section>").next().unwrap();
    assert!(section.starts_with(" data-state=\"shown\""), "{section}");
    assert!(section.contains("ds_read_b32 v1, v2") && section.contains("/src/lds.cpp:12"), "{section}");

    // Out as rocprofv3's CSV, a line per sample, and back.
    let csv = dir.join("csv");
    rocprof_rs_analysis::export::rocprofv3::export(&run, &csv).unwrap();
    let pid = std::process::id();
    let text = std::fs::read_to_string(csv.join(format!("{pid}_pc_sampling_stochastic.csv"))).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(rocprof_rs_analysis::export::pc_sampling::STOCHASTIC));
    assert_eq!(lines.count(), 64);
    assert!(text.contains(
        "0,0,1,\"ds_read_b32 v1, v2\",\"/src/lds.cpp:12\",101,0,\"ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS\",\
         \"ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT\",0"
    ));
    let back = dir.join("back");
    rocprof_rs_analysis::import::import(&[csv], &back, "test").unwrap();
    let imported = hotspots::read_pc_samples(&back).unwrap();
    // What the CSV carries comes back: kernels (through the kernel trace), instructions,
    // source lines, reasons, categories and counts; offsets are the CSV's order, not the PCs.
    let by_text = |rows: &[PcSampleRow]| {
        let mut m: BTreeMap<_, u64> = BTreeMap::new();
        for r in rows {
            let key = (r.kernel_name.clone(), r.instruction.clone(), r.source_line, r.reason.clone(), r.category);
            *m.entry(key).or_default() += r.samples;
        }
        m
    };
    assert_eq!(by_text(&imported), by_text(&rows));
}

#[test]
fn a_run_that_samples_nothing_has_no_pc_sample_rows_and_no_pc_metadata() {
    let dir = common::scratch("pc-sample-none");
    let mut t = tables(&dir);
    t.add(&[symbol(7, "lds"), dispatch(7, 1)]).unwrap();
    let summary = rocprof_rs::pipeline::summary::Summary::default();
    t.finish(&[], &summary).unwrap();
    t.write_run_metadata(&summary).unwrap();
    assert!(hotspots::read_pc_samples(&dir).unwrap().is_empty());
    let metadata = std::fs::read_to_string(dir.join(keys::metadata_file_name("pc"))).unwrap();
    assert!(!metadata.contains(keys::PC_SAMPLES), "{metadata}");
}

/// A malformed PC sampling file is refused with one error naming its file, line and column,
/// and nothing is written.
#[test]
fn a_bad_pc_sampling_value_names_its_file_line_and_column() {
    let dir = common::scratch("pc-sample-bad");
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    let good = "0,0,1,\"s_nop 0\",\"/src/k.cpp:3\",1,1,\"ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_VALU\",\
                \"ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NONE\",0";
    let bad = good.replace("\",1,1,\"", "\",1,2,\"");
    let text = format!("{}\n{good}\n{bad}\n", rocprof_rs_analysis::export::pc_sampling::STOCHASTIC);
    std::fs::write(input.join("7_pc_sampling_stochastic.csv"), text).unwrap();
    let out = dir.join("out");
    let error = rocprof_rs_analysis::import::import(&[input], &out, "test").unwrap_err().to_string();
    assert!(
        error.contains("7_pc_sampling_stochastic.csv:3: column Wave_Issued_Instruction: expected 0 or 1, found 2"),
        "{error}"
    );
    assert!(hotspots::read_pc_samples(&out).unwrap().is_empty(), "nothing written");
}
