//! `rocprof-rs report` opened in headless Chromium (tests/verify/browser_check.py, the DevTools
//! protocol over a pipe): for a simulated run (SIMULATED: no GPU), a simulated four-rank job, the
//! committed H100 datasets and an imported rocprof v1 run, the page raises no console error or
//! exception, asks for nothing outside itself, renders every section (or says why it is empty),
//! and shows the numbers `stats`, `analyze`, `ranks` and `diff` print. The facts are read from
//! the DOM by tests/verify/report_facts.js, which also sorts a table and zooms the timeline.
//!
//! It needs Chromium (Debian's `chromium`, which `.ci/run` installs): outside CI its absence
//! skips, saying so; under CI it fails. Screenshots are kept when REPORT_SCREENSHOTS names a
//! folder.

mod common;

use std::collections::BTreeMap;
use std::os::unix::fs::FileTypeExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::Value;

/// The page's tables of kernels hold this many rows (`report --top`'s default).
const TOP: usize = 50;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn rocprof_rs(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(args).output().unwrap()
}

/// A command's JSON output.
fn json_of(args: &[&std::ffi::OsStr]) -> Value {
    let output = rocprof_rs(args);
    assert!(output.status.code().is_some_and(|c| c <= 1), "{args:?}: {}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stderr(&output)))
}

/// `rocprof-rs report DIR -o PAGE EXTRA...`.
fn report(dir: &Path, page: &Path, extra: &[&str]) {
    let output = Command::new(env!("CARGO_BIN_EXE_rocprof-rs"))
        .arg("report")
        .arg(dir)
        .arg("-o")
        .arg(page)
        .args(extra)
        .output()
        .unwrap();
    assert!(output.status.success(), "report of {}: {}", dir.display(), stderr(&output));
    assert!(stderr(&output).contains("report in"), "{}", stderr(&output));
}

/// Whether Chromium is here; outside CI its absence skips.
fn chromium() -> bool {
    let found = ["chromium", "chromium-browser", "google-chrome"].iter().any(|name| {
        Command::new("sh").args(["-c", &format!("command -v {name}")]).output().is_ok_and(|o| o.status.success())
    }) || std::env::var_os("CHROMIUM").is_some();
    if !found {
        assert!(std::env::var_os("CI").is_none(), "CI must test the report in a browser: install chromium");
        eprintln!("SKIPPED: the report's browser test needs Chromium (apt-get install chromium)");
    }
    found
}

/// The page opened in Chromium: what the driver saw, with its DOM facts.
fn open(page: &Path, screenshot: &Path) -> Value {
    let output = Command::new("python3")
        .arg(repo().join("tests/verify/browser_check.py"))
        .arg(page)
        .arg("--screenshot")
        .arg(screenshot)
        .arg("--facts-js")
        .arg(repo().join("tests/verify/report_facts.js"))
        .args(["--timeout", "60"])
        .output()
        .unwrap();
    assert!(output.status.success(), "browser_check.py failed: {}", stderr(&output));
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    if let Some(folder) = std::env::var_os("REPORT_SCREENSHOTS") {
        let name = page.file_stem().unwrap().to_string_lossy().into_owned() + ".png";
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::copy(screenshot, Path::new(&folder).join(name)).unwrap();
    }
    seen
}

/// Whether the page's name is `stats`'s: the same, or its start where the page cut it.
fn same_name(page: &Value, stats: &Value) -> bool {
    let (page, stats) = (page.as_str().unwrap(), stats.as_str().unwrap());
    page == stats
        || page.strip_suffix('…').is_some_and(|start| stats.starts_with(start) && start.chars().count() >= 8192)
}

/// What every page must show: no errors, nothing fetched, every section present and either
/// shown or saying why not, the timeline drawn and zoomable, and its kernels equal to `stats`.
fn assert_sound_page(dir: &Path, seen: &Value) -> Value {
    assert_eq!(seen["ready"], true, "the page's script ran to its end: {seen:#}");
    for key in ["console", "exceptions", "requests", "failed_requests"] {
        assert_eq!(seen[key], serde_json::json!([]), "{key}: {seen:#}");
    }
    let facts = &seen["facts"];
    assert!(facts.is_object(), "facts: {seen:#}");
    assert_eq!(facts["external"], serde_json::json!([]), "no reference outside the page");
    let sections: BTreeMap<String, String> = serde_json::from_value(facts["sections"].clone()).unwrap();
    let expected = [
        "summary",
        "kernels",
        "timeline",
        "roofline",
        "bottlenecks",
        "hotspots",
        "coverage",
        "device",
        "ranks",
        "diff",
    ];
    assert_eq!(sections.keys().map(String::as_str).collect::<Vec<_>>(), {
        let mut sorted = expected.to_vec();
        sorted.sort_unstable();
        sorted
    });
    for (id, state) in &sections {
        match state.as_str() {
            "shown" => {}
            "empty" => {
                assert!(facts["empty"][id].as_str().is_some_and(|why| why.len() > 10), "{id} says why: {facts:#}")
            }
            other => panic!("{id}: state {other}"),
        }
    }
    assert_eq!(sections["summary"], "shown");

    // The kernels, as `stats` lists them.
    let stats = json_of(&[
        "stats".as_ref(),
        dir.as_os_str(),
        "--section".as_ref(),
        "kernel".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let kernels = &stats["sections"][0];
    let rows = kernels["rows"].as_array().unwrap();
    assert_eq!(sections["kernels"], "shown");
    assert_eq!(
        facts["kernel_names"].as_u64().unwrap() as usize,
        rows.len() + kernels["omitted"].as_u64().unwrap() as usize
    );
    let dispatches: u64 = rows.iter().map(|r| r["calls"].as_u64().unwrap()).sum();
    assert_eq!(facts["kernel_dispatches"].as_u64(), Some(dispatches));
    assert_eq!(facts["figures"]["dispatches"].as_f64(), Some(dispatches as f64), "the summary's dispatches");
    assert_eq!(facts["figures"]["kernels"].as_f64(), Some(rows.len() as f64));
    let shown = facts["kernels"].as_array().unwrap();
    assert!(same_name(&shown[0]["name"], &rows[0]["name"]), "the top kernel");
    assert_eq!(shown.len(), rows.len().min(TOP));
    for (page_row, stats_row) in shown.iter().zip(rows) {
        let cells = page_row["cells"].as_array().unwrap();
        assert!(same_name(&page_row["name"], &stats_row["name"]), "{page_row} {stats_row}");
        assert_eq!(cells[1].as_str().unwrap().parse::<u64>().unwrap(), stats_row["calls"].as_u64().unwrap());
        assert_eq!(
            cells[2].as_str().unwrap().parse::<f64>().unwrap(),
            stats_row["total_ns"].as_f64().unwrap(),
            "total"
        );
        assert_eq!(cells[6].as_str().unwrap().parse::<u64>().unwrap(), stats_row["p50_ns"].as_u64().unwrap(), "p50");
    }
    assert_eq!(facts["sorted_by_calls"], true, "a click on 'calls' sorts by calls");

    assert_eq!(sections["timeline"], "shown");
    let t = &facts["timeline"];
    assert!(t["lanes"].as_u64().unwrap() >= 1);
    assert_eq!(t["drawn"], t["lanes"]);
    assert!(t["inked"].as_u64().unwrap() > 100, "the canvas has bars: {t}");
    let (whole, zoomed) = (t["span_before"].as_f64().unwrap(), t["span_zoomed"].as_f64().unwrap());
    assert_eq!(whole, t["bins"].as_f64().unwrap());
    assert!((zoomed - whole / 2.0).abs() < 1e-6, "+ halves the span: {t}");
    facts.clone()
}

/// The bottlenecks and rooflines, as `analyze` gives them.
fn assert_analysis(dir: &Path, facts: &Value, extra: &[&str]) {
    let mut args: Vec<&std::ffi::OsStr> =
        vec!["analyze".as_ref(), dir.as_os_str(), "--format".as_ref(), "json".as_ref()];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    let analysis = json_of(&args);
    let kernels = analysis["kernels"].as_array().unwrap();
    let shown = facts["bottlenecks"].as_array().unwrap();
    assert_eq!(facts["bottleneck_kernels"].as_u64(), Some(kernels.len() as u64));
    assert_eq!(shown.len(), kernels.len().min(TOP), "the first --top of the analysed kernels");
    for (row, kernel) in shown.iter().zip(kernels) {
        assert!(same_name(&row["name"], &kernel["name"]), "{row} {kernel}");
        assert_eq!(row["class"].as_str().unwrap(), kernel["diagnosis"]["class"].as_str().unwrap().to_uppercase());
    }
    let mut points: BTreeMap<String, usize> = BTreeMap::new();
    for k in kernels.iter().filter(|k| !k["points"].as_array().unwrap().is_empty()) {
        *points.entry(k["gpu"].as_str().unwrap().to_owned()).or_default() += 1;
    }
    let charts: BTreeMap<String, usize> = facts["rooflines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert_eq!(f["points"], f["circles"], "each point is drawn: {f}");
            (f["gpu"].as_str().unwrap().to_owned(), f["points"].as_u64().unwrap() as usize)
        })
        .collect();
    assert_eq!(charts, points, "a roofline per GPU with a point per kernel that has one");
    let state = facts["sections"]["roofline"].as_str().unwrap();
    assert_eq!(state == "shown", !points.is_empty());
}

/// The device section, as `stats --section device` gives it: a row and three charts per GPU,
/// and each kernel's energy.
fn assert_device(dir: &Path, facts: &Value) {
    assert_eq!(facts["sections"]["device"], "shown", "{facts:#}");
    let stats = json_of(&[
        "stats".as_ref(),
        dir.as_os_str(),
        "--section".as_ref(),
        "device".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let device = &stats["device"];
    let gpus = device["devices"].as_array().unwrap().len();
    assert!(gpus > 0);
    assert_eq!(facts["devices"].as_u64(), Some(gpus as u64));
    assert_eq!(facts["device_charts"].as_u64(), Some(3 * gpus as u64));
    let energy: Vec<&str> =
        device["kernels"].as_array().unwrap().iter().take(50).map(|k| k["name"].as_str().unwrap()).collect();
    let shown: Vec<&str> = facts["energy_kernels"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
    assert_eq!(shown, energy);
}

/// A simulated run (counters, device samples from the simulated AMD SMI) against a baseline of
/// another seed: every section but the ranks is shown.
#[test]
fn a_simulated_run_with_a_baseline() {
    if !chromium() {
        return;
    }
    let dir = scratch("report-sim");
    let run = |out: &Path, seed: &str| {
        let output = Command::new(built("rocprof-sim"))
            .args(["--dispatches", "6000", "--threads", "4", "--agents", "2", "--no-truth", "--seed", seed])
            .arg("--sdk")
            .arg(built("librocprofiler_sdk_sim.so"))
            .env("ROCP_TOOL_LIBRARIES", tool())
            .env("ROCPROF_RS_OUTPUT_DIR", out)
            .env("ROCPROF_RS_DOMAINS", "kernel,hip_api,memory_copy,marker")
            .env("ROCPROF_RS_COUNTER_PRESET", "basic")
            .env("ROCPROF_RS_DEVICE_SAMPLE_MS", "2")
            .env("ROCPROF_RS_DEVICE_SAMPLE_LIBRARY", built("libamd_smi.so"))
            .env("ROCPROF_SIM_AMDSMI_TRUTH", dir.join(format!("amdsmi-{seed}.csv")))
            .env_remove("LD_PRELOAD")
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
    };
    let (baseline, current) = (dir.join("baseline"), dir.join("current"));
    run(&baseline, "1");
    run(&current, "2");
    let page = dir.join("simulated.html");
    report(&current, &page, &["--baseline", baseline.to_str().unwrap()]);
    let seen = open(&page, &dir.join("simulated.png"));
    let facts = assert_sound_page(&current, &seen);
    assert_eq!(facts["simulated"], true, "a simulated run says so");
    for id in ["summary", "kernels", "timeline", "bottlenecks", "coverage", "device", "diff"] {
        assert_eq!(facts["sections"][id], "shown", "{id}: {facts:#}");
    }
    assert_eq!(facts["sections"]["ranks"], "empty");
    assert_analysis(&current, &facts, &[]);

    assert!(facts["coverage_counters"].as_u64().unwrap() > 0);

    assert_device(&current, &facts);

    // The diff, as `diff BASELINE CURRENT` gives it: regressions first.
    let diff =
        json_of(&["diff".as_ref(), baseline.as_os_str(), current.as_os_str(), "--format".as_ref(), "json".as_ref()]);
    let kernels = diff["kernels"].as_array().unwrap();
    let regressions = kernels.iter().filter(|k| k["verdict"] == "regressed").count();
    assert_eq!(facts["diff"]["regressions"].as_u64(), Some(regressions as u64));
    let rows = facts["diff"]["rows"].as_array().unwrap();
    assert_eq!(facts["diff"]["kernels"].as_u64(), Some(kernels.len() as u64));
    let caption = facts["diff"]["caption"].as_str().unwrap();
    let expected = format!("{regressions} regressed (median change beyond 2% at 99% confidence");
    assert!(caption.contains(&expected), "{caption}");
    assert!(
        caption.contains(&format!("of {} kernels, the first {} shown", kernels.len(), kernels.len().min(TOP))),
        "{caption}"
    );
    assert_eq!(rows.len(), kernels.len().min(TOP));
    for (row, k) in rows.iter().zip(kernels) {
        assert!(same_name(&row["name"], &k["name"]), "{row} {k}");
        assert_eq!(row["verdict"], k["verdict"]);
    }
}

/// Four simulated ranks, one straggling: the cross-rank view shows each rank and names it.
#[test]
fn a_simulated_distributed_job() {
    if !chromium() {
        return;
    }
    let dir = scratch("report-ranks");
    let out = dir.join("out");
    let truth = dir.join("truth.csv");
    traced_ranks(
        ["--ranks", "4", "--steps", "6", "--straggler", "2:3:40", "--agents", "2", "--truth"]
            .map(std::ffi::OsStr::new)
            .into_iter()
            .chain([truth.as_os_str()]),
        &out,
    );
    let page = dir.join("ranks.html");
    report(&out, &page, &["--step-marker", "^step"]);
    let facts = assert_sound_page(&out, &open(&page, &dir.join("ranks.png")));
    assert_eq!(facts["sections"]["ranks"], "shown", "{facts:#}");
    let ranks = json_of(&[
        "ranks".as_ref(),
        out.as_os_str(),
        "--step-marker".as_ref(),
        "^step".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let names: Vec<&Value> = ranks["ranks"].as_array().unwrap().iter().map(|r| &r["name"]).collect();
    let shown: Vec<&Value> = facts["ranks"].as_array().unwrap().iter().collect();
    assert_eq!(shown, names);
    let stragglers: Vec<&Value> = ranks["stragglers"].as_array().unwrap().iter().map(|s| &s["rank"]["name"]).collect();
    assert!(!stragglers.is_empty(), "the sim's straggler: {ranks:#}");
    assert_eq!(facts["stragglers"].as_array().unwrap().iter().collect::<Vec<_>>(), stragglers);
    assert!(facts["collectives"].as_u64().unwrap() > 0);
}

/// The committed H100 datasets: with counters of the roofline preset, a roofline of the H100
/// with every counted kernel, counter coverage, and the diff against the run without counters;
/// a trace without counters; and a PyTorch run with the GPU's NVML samples.
#[test]
fn the_h100_datasets() {
    if !chromium() {
        return;
    }
    let dir = scratch("report-h100");
    let fixtures = repo().join("tests/fixtures/cupti-counters/h100");
    let (counted, timed) = (fixtures.join("known_counted"), fixtures.join("known_timed"));
    let page = dir.join("h100.html");
    report(&counted, &page, &["--baseline", timed.to_str().unwrap()]);
    let facts = assert_sound_page(&counted, &open(&page, &dir.join("h100.png")));
    assert_eq!(facts["simulated"], false);
    for id in ["roofline", "bottlenecks", "coverage", "diff"] {
        assert_eq!(facts["sections"][id], "shown", "{id}: {facts:#}");
    }
    assert_analysis(&counted, &facts, &[]);
    assert_eq!(facts["rooflines"][0]["gpu"], "h100_sxm5");

    // The traced run without counters: no roofline, and the page says why.
    let traced = repo().join("tests/fixtures/cupti/rocprof-rs-13.0-h100/dataset");
    let page = dir.join("h100-trace.html");
    report(&traced, &page, &[]);
    let facts = assert_sound_page(&traced, &open(&page, &dir.join("h100-trace.png")));
    assert_eq!(facts["sections"]["roofline"], "empty");
    assert!(facts["empty"]["roofline"].as_str().unwrap().contains("--preset roofline"), "{facts:#}");
    assert_analysis(&traced, &facts, &[]);

    // A PyTorch training run with NVML samples: the device section from a real GPU.
    let sampled = repo().join("tests/fixtures/cupti/h100-torch-report/dataset");
    let page = dir.join("h100-torch.html");
    report(&sampled, &page, &[]);
    let facts = assert_sound_page(&sampled, &open(&page, &dir.join("h100-torch.png")));
    assert_device(&sampled, &facts);
    assert_analysis(&sampled, &facts, &[]);
    assert!(facts["timeline"]["lanes"].as_u64().unwrap() >= 4, "streams, copies and the NVTX range: {facts:#}");
}

/// An imported rocprof (v1) trace: kernels, HIP calls, copies and markers, without counters.
#[test]
fn an_imported_rocprof_v1_run() {
    if !chromium() {
        return;
    }
    let dir = scratch("report-v1");
    let imported = dir.join("imported");
    let output = rocprof_rs(&[
        "import".as_ref(),
        repo().join("tests/fixtures/rocprof-v1/results.json").as_os_str(),
        "-o".as_ref(),
        imported.as_os_str(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let page = dir.join("rocprof-v1.html");
    report(&imported, &page, &[]);
    let facts = assert_sound_page(&imported, &open(&page, &dir.join("rocprof-v1.png")));
    assert!(facts["timeline"]["lanes"].as_u64().unwrap() >= 4, "kernels, HIP calls, copies and markers: {facts:#}");
    assert_eq!(facts["sections"]["coverage"], "empty");
    assert_analysis(&imported, &facts, &[]);
}

/// The driver sees what a broken page does, so the checks above can fail.
#[test]
fn the_browser_check_sees_errors_and_requests() {
    if !chromium() {
        return;
    }
    let dir = scratch("report-broken");
    let page = dir.join("broken.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><body><img src=\"https://example.invalid/x.png\"><script>\
         console.error('boom'); document.documentElement.dataset.ready = '1'; undefinedFunction();</script></body></html>",
    )
    .unwrap();
    let seen = open(&page, &dir.join("broken.png"));
    assert_eq!(seen["console"][0]["type"], "error", "{seen:#}");
    assert!(seen["exceptions"][0]["description"].as_str().unwrap().contains("undefinedFunction"), "{seen:#}");
    assert!(
        seen["requests"].as_array().unwrap().iter().any(|r| r.as_str().unwrap().contains("example.invalid")),
        "{seen:#}"
    );
}

/// Bad input gets one error naming it, and no page (nor a partial one) is left behind.
#[test]
fn bad_input_writes_nothing() {
    let dir = scratch("report-bad");
    let page = dir.join("page.html");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    for (args, says) in [
        (vec![dir.join("missing").into_os_string()], "not a directory"),
        (vec![empty.clone().into_os_string()], "holds no rocprof-rs table"),
        (
            vec![
                repo().join("tests/fixtures/cupti/rocprof-rs-13.0-h100/dataset").into_os_string(),
                "--baseline".into(),
                dir.join("nowhere").into_os_string(),
            ],
            "--baseline",
        ),
        (vec![empty.clone().into_os_string(), "--bins".into(), "5".into()], "--bins"),
    ] {
        let mut full: Vec<std::ffi::OsString> = vec!["report".into()];
        full.extend(args);
        full.extend(["-o".into(), page.clone().into_os_string()]);
        let output = Command::new(env!("CARGO_BIN_EXE_rocprof-rs")).args(&full).output().unwrap();
        assert!(!output.status.success(), "{full:?}");
        let text = stderr(&output);
        assert!(text.contains(says), "{full:?}: {text}");
        assert!(!page.exists());
    }
    let fixture = repo().join("tests/fixtures/cupti/rocprof-rs-13.0-h100/dataset");
    for target in [PathBuf::from("/dev/null"), dir.join("no-such-folder/page.html"), empty.clone()] {
        let output = rocprof_rs(&["report".as_ref(), fixture.as_os_str(), "-o".as_ref(), target.as_os_str()]);
        assert!(!output.status.success(), "{}", target.display());
        assert!(stderr(&output).contains(&target.display().to_string()), "{}", stderr(&output));
    }
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "only the empty folder: {leftovers:?}");
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
}

/// Kernel names are the application's, so they may hold markup: a dataset whose names try to
/// close the page's script and table elements, and to load an image, renders them as text.
#[test]
fn markup_in_kernel_names_stays_text() {
    if !chromium() {
        return;
    }
    let dir = scratch("report-hostile");
    let dataset = dir.join("dataset");
    let fixture = repo().join("tests/fixtures/cupti/rocprof-rs-13.0-h100/dataset");
    let rename = r#"
import os, shutil, sys, pyarrow as pa, pyarrow.parquet as pq
source, target = sys.argv[1], sys.argv[2]
shutil.copytree(source, target)
hostile = ['</script><script>window.__pwned = 1</script>', '"><img src="https://example.invalid/x.png">',
           "</td></tr></table><h1 id='injected'>x</h1>", '<!-- & \u2028 -->']
folder = os.path.join(target, "kernel_dispatch")
for name in os.listdir(folder):
    path = os.path.join(folder, name)
    table = pq.read_table(path)
    names = table.column("kernel_name").to_pylist()
    distinct = sorted(set(names))
    renamed = [hostile[distinct.index(n) % len(hostile)] for n in names]
    column = pa.array(renamed, pa.string()).dictionary_encode()
    index = table.schema.get_field_index("kernel_name")
    table = table.set_column(index, table.schema.field(index).with_type(column.type), column)
    pq.write_table(table, path)
"#;
    let output = Command::new("python3").args(["-c", rename]).arg(&fixture).arg(&dataset).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let page = dir.join("hostile.html");
    report(&dataset, &page, &[]);
    let seen = open(&page, &dir.join("hostile.png"));
    let facts = assert_sound_page(&dataset, &seen);
    let names: Vec<&str> = facts["kernels"].as_array().unwrap().iter().map(|k| k["name"].as_str().unwrap()).collect();
    assert!(names.iter().any(|n| n.contains("window.__pwned")), "the names are shown as they are: {names:?}");
    let probe = dir.join("probe.js");
    std::fs::write(&probe, "({pwned: typeof window.__pwned, injected: !!document.getElementById('injected')})")
        .unwrap();
    let output = Command::new("python3")
        .arg(repo().join("tests/verify/browser_check.py"))
        .arg(&page)
        .arg("--facts-js")
        .arg(&probe)
        .output()
        .unwrap();
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(seen["facts"], serde_json::json!({"pwned": "undefined", "injected": false}), "{seen:#}");
}
