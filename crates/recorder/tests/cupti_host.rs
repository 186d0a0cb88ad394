//! CUPTI's host API on this machine, with no GPU: NVIDIA's pip wheel (`nvidia-cuda-cupti`,
//! installed by the test command from tests/verify/requirements.txt) has libcupti and
//! libnvperf_host, which answer metric lists, pass counts and evaluation for a named chip.
//!
//! - the presets resolve on GH100 (sm_90) and GA100 (sm_80) from the chips' real metric lists;
//! - the roofline preset packs into one-pass groups by CUPTI's own pass counts.
//!
//! Where the wheel is missing these tests fail under CI (`CI` set) and are skipped elsewhere.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rocprof_rs::backend::cupti::counting::{choose, profiler};
use rocprof_rs::counters::{Selection, nvidia, presets};
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
    let Some(cupti) = cupti() else { return };
    let known = metrics(cupti, "GH100");
    let e = choose::metrics(&Selection::Names(vec!["dram__byte_read.sum".into()]), "GH100", &known).unwrap_err();
    assert!(e.to_string().contains("did you mean dram__bytes_read"), "{e}");
}

#[test]
fn the_roofline_preset_packs_into_one_pass_groups_sass_apart() {
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
