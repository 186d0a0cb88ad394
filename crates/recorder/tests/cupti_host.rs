//! CUPTI's host API on this machine, with no GPU: NVIDIA's pip wheel (`nvidia-cuda-cupti`,
//! installed by the test command from tests/verify/requirements.txt) has libcupti and
//! libnvperf_host, which answer metric lists, pass counts and evaluation for a named chip.
//!
//! - the presets resolve on GH100 (sm_90) and GA100 (sm_80) from the chips' real metric lists;
//! - the roofline preset packs into one-pass groups by CUPTI's own pass counts;
//! - counter data images captured on an H100 (tests/fixtures/cupti-counters) decode to the
//!   values the tool evaluated there, and to what the kernels did by construction.
//!
//! Where the wheel is missing these tests fail under CI (`CI` set) and are skipped elsewhere.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rocprof_rs::backend::cupti::api::profiler;
use rocprof_rs::backend::cupti::counting::choose;
use rocprof_rs::backend::cupti::counting::presets as nvidia;
use rocprof_rs::counters::{Selection, presets};
use rocprofiler_sdk_sys::cupti::Cupti;

/// The wheel's `lib` folder: `ROCPROF_RS_TEST_CUPTI_LIB`, else where python finds `nvidia`.
fn wheel_lib() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ROCPROF_RS_TEST_CUPTI_LIB") {
        return Some(PathBuf::from(dir));
    }
    let out = std::process::Command::new("python3")
        .args(["-c", "import nvidia, sys; print('\\n'.join(nvidia.__path__))"])
        .output()
        .ok()?;
    String::from_utf8(out.stdout)
        .ok()?
        .lines()
        .map(|dir| Path::new(dir).join("cu13/lib"))
        .find(|lib| lib.join("libcupti.so.13").exists())
}

/// NVIDIA's host library is not safe to call from several threads at once (host objects made
/// concurrently fail with CUPTI_ERROR_UNKNOWN): the tests take turns.
static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn cupti() -> Option<&'static Cupti> {
    static CUPTI: OnceLock<Option<Cupti>> = OnceLock::new();
    let found = CUPTI.get_or_init(|| {
        let lib = wheel_lib()?;
        // libcupti opens libnvperf_host by its bare name: load it first, globally.
        // SAFETY: NVIDIA's library, whose initialisers have no preconditions; it stays loaded.
        let host = unsafe {
            libloading::os::unix::Library::open(
                Some(lib.join("libnvperf_host.so")),
                libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_GLOBAL,
            )
        };
        std::mem::forget(host.ok()?);
        Cupti::load(&[lib.join("libcupti.so.13")]).ok()
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have NVIDIA's libcupti wheel: pip install -r tests/verify/requirements.txt"
        );
        eprintln!("skipped: no nvidia-cuda-cupti wheel (pip install nvidia-cuda-cupti==13.0.85)");
    }
    found.as_ref()
}

fn metrics(cupti: &'static Cupti, chip: &str) -> Vec<String> {
    profiler::Host::new(cupti, chip, None).unwrap().base_metrics().unwrap()
}

#[test]
fn every_nvidia_preset_runs_in_full_on_gh100_and_ga100() {
    let _turn = turn();
    let Some(cupti) = cupti() else { return };
    for chip in ["GH100", "GA100"] {
        let known = metrics(cupti, chip);
        assert!(known.len() > 2000, "{chip}: {} metrics", known.len());
        for preset in nvidia::PRESETS {
            let amd = presets::by_name(preset.name).expect("every NVIDIA preset has an AMD namesake");
            let (chosen, notes) = choose::metrics(&Selection::Preset(amd), chip, &known).unwrap();
            assert!(notes.is_empty(), "{} on {chip}: {notes:?}", preset.name);
            assert!(!chosen.is_empty());
        }
    }
}

#[test]
fn a_misspelled_metric_gets_the_real_names_close_to_it() {
    let _turn = turn();
    let Some(cupti) = cupti() else { return };
    let known = metrics(cupti, "GH100");
    let e = choose::metrics(&Selection::Names(vec!["dram__byte_read.sum".into()]), "GH100", &known).unwrap_err();
    assert!(e.to_string().contains("did you mean dram__bytes_read"), "{e}");
}

#[test]
fn the_roofline_preset_packs_into_one_pass_groups_sass_apart() {
    let _turn = turn();
    let Some(cupti) = cupti() else { return };
    let known = metrics(cupti, "GH100");
    let roofline = presets::by_name("roofline").unwrap();
    let (chosen, _) = choose::metrics(&Selection::Preset(roofline), "GH100", &known).unwrap();
    let c = |names: &[String]| names.iter().map(|n| CString::new(n.as_str()).unwrap()).collect::<Vec<_>>();
    let all = profiler::passes_of(cupti, "GH100", None, &c(&chosen)).unwrap();
    let fits = |set: &[String]| match profiler::passes_of(cupti, "GH100", None, &c(set)) {
        Ok(1) => Ok(0),
        Ok(_) => Err(rocprof_rs::counters::plan::Refusal::TooLarge),
        Err(e) => Err(rocprof_rs::counters::plan::Refusal::Other(e.to_string())),
    };
    let groups = rocprof_rs::counters::plan::pack(std::slice::from_ref(&chosen), fits, |_| {}).unwrap();
    assert_eq!(groups.len(), all, "as many one-pass groups as the whole set takes passes");
    for g in &groups {
        let sass = g.counters.iter().filter(|m| m.starts_with("smsp__sass_")).count();
        assert!(sass == 0 || sass == g.counters.len(), "SASS and hardware metrics never share a pass: {g:?}");
        assert_eq!(profiler::passes_of(cupti, "GH100", None, &c(&g.counters)).unwrap(), 1);
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/cupti-counters")
}

/// What the known kernels did per dispatch by construction (bench/gpu/counters): the metric,
/// the value, and the relative tolerance (0: exact).
fn truth(kernel: &str, metric: &str) -> Option<(f64, f64)> {
    match (kernel, metric) {
        // 132 SMs x 8 blocks x 256 threads x 4096 iterations x 8 FMAs.
        ("_Z3fmaPfiff", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") => Some((8_858_370_048.0, 0.0)),
        // 132 x 4 blocks x 256 threads, one FADD per shared load, 4096 loads each.
        ("_Z11shared_confPfi", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum") => Some((553_648_128.0, 0.0)),
        // 256 MiB read once; L1 sees it read and written.
        ("_Z4copyPK6float4PS_m", "dram__bytes_read.sum") => Some((268_435_456.0, 0.02)),
        ("_Z4copyPK6float4PS_m", "l1tex__t_bytes.sum") => Some((536_870_912.0, 1e-6)),
        // One 4096^3 bf16 GEMM: 2 x 4096^3 FLOPs.
        (k, "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum") if k.starts_with("nvjet") => {
            Some((2.0 * 4096f64.powi(3), 0.0))
        }
        _ => None,
    }
}

#[test]
fn images_captured_on_the_h100_decode_to_what_the_kernels_did() {
    let _turn = turn();
    let Some(cupti) = cupti() else { return };
    let dir = fixtures();
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    let chip: serde_json::Value = serde_json::from_slice(&read("GH100.json")).unwrap();
    let names: Vec<String> =
        chip["metrics"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_owned()).collect();
    let metrics: Vec<CString> = names.iter().map(|n| CString::new(n.as_str()).unwrap()).collect();
    let host = profiler::Host::new(cupti, "GH100", Some(&read("GH100.availability"))).unwrap();
    let (mut sessions, mut truths) = (0, 0);
    let mut passes = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".image.zst")) else {
            continue;
        };
        let image = zstd::decode_all(std::fs::File::open(&path).unwrap()).unwrap();
        let side: serde_json::Value = serde_json::from_slice(&read(&format!("{stem}.json"))).unwrap();
        assert_eq!(rocprof_rs::backend::cupti::api::range::ranges(cupti, &image).unwrap(), 1, "{stem}");
        let values = host.evaluate(&image, 0, &metrics).unwrap();
        let kernel = side["kernel"].as_str().unwrap();
        passes.insert(side["pass"].as_u64().unwrap());
        for ((name, value), there) in names.iter().zip(&values).zip(side["values"].as_array().unwrap()) {
            match there.as_f64() {
                Some(v) => assert_eq!(*value, v, "{stem} {kernel} {name}: decoded here and on the H100"),
                None => assert!(!value.is_finite(), "{stem} {kernel} {name}: not in this session's pass"),
            }
            if let (Some((want, tolerance)), true) = (truth(kernel, name), value.is_finite()) {
                assert!((value - want).abs() <= tolerance * want, "{kernel} {name}: {value}, by construction {want}");
                truths += 1;
            }
        }
        sessions += 1;
    }
    assert_eq!(sessions, 8);
    assert_eq!(passes.len(), 3, "images of every pass: {passes:?}");
    assert_eq!(truths, 5, "values checked against the kernels' own account");
}
