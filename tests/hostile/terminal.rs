//! Names that attack the terminal: a dataset (anyone's, shared) whose kernel, marker and API
//! names hold `ESC[2J` (clear the screen), NUL, BEL, CR, C1 controls, DEL and bidirectional
//! controls (U+202E shows the text after it reversed: a spoofed name). Every command's table,
//! note, warning and error must show them escaped (`\x1b`, `\u{202e}`), never raw. Before,
//! `stats`, `analyze`, `diff` and `ranks` printed them as they were.

use std::ffi::OsStr;
use std::sync::Arc;
use std::time::Duration;

use rocprof_rs_format::files::WriteOptions;
use rocprof_rs_format::origin::Origin;
use rocprof_rs_format::writer::{AnyTableWriter, TableWriter};
use rocprof_rs_format::{self as format, Table, keys};

use super::*;

/// Kernel names, each with a different attack.
const KERNELS: [&str; 4] = [
    "gemm\x1b[2J\x1b[3J\x1b[31mred",
    "spoof\u{202e}4pm.exe",
    "nul\0bel\x07cr\rend",
    "c1\u{9b}31m\u{2066}iso\u{2069}\u{200f}del\x7f",
];

/// A marker and an RCCL call with attacks of their own.
const MARKER: &str = "step\x1b]0;owned\x07\u{202b}0";
const RCCL: &str = "ncclAllReduce\x1b[2K\u{200e}";

/// Writes one rank's tables into `dir`: every kernel of `kernels` three times on two queues,
/// a marker around them and an RCCL call.
fn write_rank(dir: &Path, rank: i32, kernels: &[&str]) {
    let pid = 100 + rank as u32;
    let stem = format!("node-{pid}");
    let mut options = WriteOptions::new(dir, stem.clone());
    options.origin = Origin { host: Some("node".into()), rank: Some(rank), ..Origin::default() };
    let mut dispatch = TableWriter::<format::KernelDispatch>::new(&options, Table::KernelDispatch, Vec::new());
    let names: Vec<Arc<str>> = kernels.iter().map(|&n| n.into()).collect();
    for (i, name) in names.iter().cycle().take(3 * names.len()).enumerate() {
        let start = 10_000 + 5_000 * i as i64;
        let end = start + 1_000 + 700 * (i % names.len()) as i64 + 100 * i64::from(rank);
        dispatch.rows.push(format::KernelDispatchRow {
            kernel_name: name,
            start_ns: start,
            duration_ns: end - start,
            grid_x: 65536,
            grid_y: 1,
            grid_z: 1,
            block_x: 256,
            block_y: 1,
            block_z: 1,
            regs: 32,
            shared_mem: 0,
            stream_id: None,
            end_ns: end,
            dispatch_id: i as u64 + 1,
            correlation_id: i as u64 + 1,
            external_id: 0,
            kernel_id: 1 + (i % names.len()) as u64,
            agent_id: 1,
            queue_id: 1 + (i % 2) as u64,
            thread_id: 1,
            pid,
            mangled_name: name,
            accum_vgpr: 0,
            sgpr: 16,
            scratch_size: 0,
            kernarg_size: 0,
            pipe_id: None,
            vendor: &format::vendor::AMD,
            graph_id: 0,
            graph_node_id: 0,
            cluster_x: 0,
            cluster_y: 0,
            cluster_z: 0,
        });
    }
    let end = 10_000 + 5_000 * 3 * names.len() as i64;
    let mut marker = TableWriter::<format::Marker>::new(&options, Table::Marker, Vec::new());
    marker.rows.push(format::MarkerRow {
        message: MARKER,
        operation: "roctxRangePushA",
        start_ns: 9_000,
        end_ns: end,
        duration_ns: end - 9_000,
        depth: Some(0),
        correlation_id: 1,
        thread_id: 1,
        pid,
        vendor: &format::vendor::AMD,
        domain: None,
    });
    let mut api = TableWriter::<format::ApiCall>::new(&options, Table::RcclApi, Vec::new());
    let operation: Arc<str> = RCCL.into();
    api.rows.push(format::ApiCallRow {
        operation: &operation,
        start_ns: end - 2_000,
        end_ns: end - 1_000,
        duration_ns: 1_000,
        correlation_id: 99,
        ancestor_id: 0,
        thread_id: 1,
        pid,
    });
    for writer in [&mut dispatch as &mut dyn AnyTableWriter, &mut marker, &mut api] {
        writer.write_if(1, &Vec::new).unwrap();
        writer.files_mut().close(Vec::new()).unwrap();
    }
    let meta = serde_json::json!({ keys::PID: pid.to_string(), keys::HOST: "node" });
    std::fs::write(dir.join(keys::metadata_file_name(&stem)), meta.to_string()).unwrap();
}

/// What reaches a terminal that must not: a control character other than the newline and the
/// tab, or a bidirectional control.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

/// Runs the CLI with `args`; asserts nothing raw reached its output; returns stdout and stderr.
fn printed(args: &[&OsStr]) -> (String, String) {
    let output = finish_within(cli().args(args), Duration::from_secs(60));
    let (out, err) = (String::from_utf8(output.stdout.clone()), String::from_utf8(output.stderr.clone()));
    let (out, err) = (out.expect("UTF-8 on stdout"), err.expect("UTF-8 on stderr"));
    assert!(raw_controls(&out).is_empty(), "{args:?}: raw {:?} on stdout:\n{out:?}", raw_controls(&out));
    assert!(raw_controls(&err).is_empty(), "{args:?}: raw {:?} on stderr:\n{err:?}", raw_controls(&err));
    (out, err)
}

fn os(text: &str) -> &OsStr {
    OsStr::new(text)
}

#[test]
fn names_reach_every_terminal_output_escaped() {
    let dir = scratch("hostile-terminal");
    let (base, head) = (dir.join("base"), dir.join("head"));
    for rank in 0..2 {
        write_rank(&base, rank, &KERNELS);
        // The head run lacks the last kernel and has a new one: diff names both.
        write_rank(&head, rank, &[KERNELS[0], KERNELS[1], KERNELS[2], "new\x1b[1Akernel"]);
    }
    let (stats, _) = printed(&[os("stats"), base.as_os_str()]);
    for escaped in ["gemm\\x1b[2J", "spoof\\u{202e}4pm.exe", "nul\\x00bel\\x07cr\\x0dend", "\\u{9b}31m\\u{2066}iso"] {
        assert!(stats.contains(escaped), "stats should show {escaped:?}:\n{stats}");
    }
    assert!(stats.contains("step\\x1b]0;owned\\x07\\u{202b}0"), "the marker, escaped:\n{stats}");
    let (analyze, _) = printed(&[os("analyze"), base.as_os_str()]);
    assert!(analyze.contains("gemm\\x1b[2J"), "analyze:\n{analyze}");
    let (diff, _) = printed(&[os("diff"), base.as_os_str(), head.as_os_str()]);
    assert!(diff.contains("new\\x1b[1Akernel") && diff.contains("\\u{9b}31m"), "diff:\n{diff}");
    let (ranks, ranks_err) = printed(&[os("ranks"), base.as_os_str()]);
    assert!(!ranks.is_empty(), "ranks printed nothing: {ranks_err}");
    printed(&[os("ranks"), base.as_os_str(), os("--step-marker"), os("step")]);
    printed(&[os("score"), base.as_os_str(), os("--target-us"), os("1")]);
    printed(&[os("score"), base.as_os_str(), os("--target-us"), os("1"), os("--kernel"), os("spoof")]);
    // An error names what it was given: a path, escaped too.
    let (_, error) = printed(&[os("stats"), dir.join("no\x1b[2Jsuch\u{202e}dir").as_os_str()]);
    assert!(error.contains("no\\x1b[2Jsuch\\u{202e}dir"), "{error}");
}

/// The tool library's one line inside the application is escaped too: it names the output
/// directory and the variables as the environment gave them.
#[test]
fn the_tools_own_lines_reach_the_applications_terminal_escaped() {
    let dir = scratch("hostile-terminal-tool");
    let mut cmd = app(&dir, 2_000);
    cmd.args(["--no-truth", "--exit-code", "7"]).env("ROCPROF_RS_OUTPUT_DIR", dir.join("o\u{1b}[2Jx\u{202e}"));
    let output = finish_within(&mut cmd, Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(7), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(raw_controls(&text).is_empty(), "raw {:?} from the tool: {text:?}", raw_controls(&text));
    assert!(text.contains("o\\x1b[2Jx\\u{202e}"), "{text}");
    let mut cmd = app(&dir, 2_000);
    cmd.args(["--no-truth", "--exit-code", "7"]).env("ROCPROF_RS_X\u{1b}[2J", "1");
    let output = finish_within(&mut cmd, Duration::from_secs(60));
    assert_unharmed(&output, "ROCPROF_RS_X\\x1b[2J");
    assert!(raw_controls(&stderr(&output)).is_empty(), "{:?}", stderr(&output));
}

/// The argument parser's errors quote what was typed: escaped as every other error.
#[test]
fn argument_errors_quote_the_arguments_escaped() {
    for args in [
        vec![os("stats"), os("x"), os("--memory"), os("4\u{1b}[2J\u{202e}")],
        vec![os("st\u{1b}]0;pwn\u{7}ats")],
        vec![os("report"), os("--top"), os("\u{202e}9")],
    ] {
        let output = finish_within(cli().args(&args), Duration::from_secs(60));
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let text = stderr(&output);
        assert!(raw_controls(&text).is_empty(), "{args:?}: raw {:?} in {text:?}", raw_controls(&text));
        // The parser drops escape sequences itself where not on a terminal; a bidi control it
        // keeps, and that is shown escaped.
        let bidi = args.iter().any(|a| a.to_string_lossy().contains('\u{202e}'));
        assert!(!bidi || text.contains("\\u{202e}"), "{args:?}: {text}");
    }
    let help = finish_within(cli().arg("--help"), Duration::from_secs(60));
    assert!(help.status.success() && String::from_utf8_lossy(&help.stdout).contains("Usage"));
}
