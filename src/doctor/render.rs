//! The human-readable form of a doctor [`Report`].

use std::fmt::Write;

use super::{Component, Report};

/// The report as a person reads it: one line per thing, found or missing, then next steps.
pub fn render_text(report: &Report) -> String {
    let mut out = String::new();
    let tool = &report.tool;
    let _ = writeln!(
        out,
        "rocprof-rs {} ({}), speaks rocprofiler-sdk {}; declarations: SDK {}, HIP {}",
        tool.version, tool.build, tool.sdk_abi, tool.sdk_declarations, tool.hip_declarations
    );
    let library = &report.tool_library;
    match &library.path {
        Some(path) if library.note.is_empty() => {
            let _ = writeln!(out, "  injects  {} ({})", path.display(), library.source);
        }
        Some(path) => {
            let _ = writeln!(out, "  injects  {} ({}: {})", path.display(), library.source, library.note);
        }
        None => {
            let _ =
                writeln!(out, "  missing  the tool library librocprof_rs.so: {} (pass run --tool PATH)", library.note);
        }
    }

    let _ = writeln!(out, "\nROCm");
    match &report.rocm.path {
        Some(path) => {
            let version = report.rocm.version.as_deref().unwrap_or("version unknown");
            let how = report.rocm.found_by.as_deref().unwrap_or("?");
            let _ = writeln!(out, "  found    {} ({version}, via {how})", path.display());
        }
        None => {
            let _ = writeln!(out, "  missing  no ROCm installation (ROCM_PATH, /opt/rocm, /opt/rocm-*)");
        }
    }
    for component in &report.components {
        line(&mut out, component);
    }

    let _ = writeln!(out, "\nLoaded into this process");
    let sdk = &report.sdk;
    match (&sdk.version, &sdk.error) {
        (Some(version), _) => {
            let path = sdk.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
            let _ = writeln!(out, "  ok       rocprofiler-sdk {version} {path}");
        }
        (None, error) => {
            let _ = writeln!(out, "  missing  rocprofiler-sdk: {}", error.as_deref().unwrap_or("not loadable"));
        }
    }
    let hip = &report.hip;
    match (&hip.version, &hip.error) {
        (Some(version), _) => {
            let path = hip.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
            let rtc = if hip.hiprtc { "with hiprtc" } else { "without hiprtc" };
            let _ = writeln!(out, "  ok       HIP runtime {version} {rtc} {path}");
        }
        (None, error) => {
            let _ = writeln!(out, "  missing  HIP runtime: {}", error.as_deref().unwrap_or("not loadable"));
        }
    }

    let _ = writeln!(out, "\nAMD GPUs (kernel driver)");
    if report.amd_gpus.is_empty() {
        let _ = writeln!(out, "  none     no GPU node in /sys/class/kfd/kfd/topology");
    }
    for gpu in &report.amd_gpus {
        let cus = gpu.compute_units.map(|n| format!(", {n} CUs")).unwrap_or_default();
        let clock = gpu.max_clock_mhz.map(|n| format!(", {n} MHz")).unwrap_or_default();
        let _ = writeln!(out, "  node {:<3} {}{cus}{clock}", gpu.node, gpu.gfx);
    }

    let _ = writeln!(out, "\nNVIDIA (CUPTI backend)");
    for component in &report.cuda.components {
        line(&mut out, component);
    }
    for gpu in &report.cuda.gpus {
        let _ = writeln!(out, "  gpu      {gpu}");
    }

    let _ = writeln!(out, "\nNext steps");
    for step in &report.next_steps {
        let _ = writeln!(out, "  - {step}");
    }
    out
}

fn line(out: &mut String, component: &Component) {
    match &component.path {
        Some(path) => {
            let version = component.version.as_deref().map(|v| format!(" {v}")).unwrap_or_default();
            let _ = writeln!(out, "  found    {}{version}  {}", component.name, path.display());
        }
        None => {
            let _ = writeln!(out, "  missing  {:<24} {}", component.name, component.role);
        }
    }
}
