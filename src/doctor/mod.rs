//! `rocprof-rs doctor`: what this machine has for profiling, what is missing, and what to do.
//!
//! Nothing here assumes ROCm or CUDA exist. Every probe either finds a thing or records that it
//! is absent, and the report ends with next steps derived from what was missing.

mod probe;
mod render;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use render::render_text;

/// Everything `doctor` found.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// This build of rocprof-rs.
    pub tool: ToolInfo,
    /// The tool library `run` injects: found beside the command, or the copy it carries.
    pub tool_library: crate::cli::tool_path::ToolChoice,
    /// The ROCm installation, if any.
    pub rocm: RocmInstall,
    /// Libraries and programs of the AMD stack, each found or not.
    pub components: Vec<Component>,
    /// Whether librocprofiler-sdk could be loaded, and its version.
    pub sdk: SdkStatus,
    /// Whether the HIP runtime could be loaded.
    pub hip: HipStatus,
    /// AMD GPUs the kernel driver (KFD) exposes.
    pub amd_gpus: Vec<AmdGpu>,
    /// The NVIDIA side, for the CUPTI backend.
    pub cuda: CudaStatus,
    /// What to do next, most important first.
    pub next_steps: Vec<String>,
}

/// This build.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ToolInfo {
    /// The crate version.
    pub version: &'static str,
    /// `git describe` of the source it was built from.
    pub build: &'static str,
    /// Where the SDK declarations came from: `bindgen` or `checked`.
    pub sdk_declarations: &'static str,
    /// Where the HIP declarations came from: `bindgen` or `checked`.
    pub hip_declarations: &'static str,
    /// The SDK ABI this build speaks.
    pub sdk_abi: String,
}

/// A ROCm installation.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RocmInstall {
    /// Its root, e.g. `/opt/rocm`.
    pub path: Option<PathBuf>,
    /// Its version, e.g. `7.0.1`.
    pub version: Option<String>,
    /// How the root was found (`ROCM_PATH`, `/opt/rocm`, ...).
    pub found_by: Option<String>,
}

/// One library or program.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Component {
    /// What it is called, e.g. `rocprofv3`.
    pub name: &'static str,
    /// `library` or `program`.
    pub kind: &'static str,
    /// Where it is, if found.
    pub path: Option<PathBuf>,
    /// Its version, if it could be told.
    pub version: Option<String>,
    /// What it is for, in a few words.
    pub role: &'static str,
}

/// The SDK as loaded into this process.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SdkStatus {
    /// Whether it loaded with every function rocprof-rs uses.
    pub loadable: bool,
    /// `major.minor.patch` it reports.
    pub version: Option<String>,
    /// The file it came from.
    pub path: Option<PathBuf>,
    /// Why it could not be used.
    pub error: Option<String>,
}

/// The HIP runtime as loaded into this process.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct HipStatus {
    /// Whether it loaded with every function rocprof-rs uses.
    pub loadable: bool,
    /// The runtime's `HIP_VERSION`, as `major.minor.patch`.
    pub version: Option<String>,
    /// The file it came from.
    pub path: Option<PathBuf>,
    /// Whether hiprtc (run-time compilation) is available.
    pub hiprtc: bool,
    /// Why it could not be used.
    pub error: Option<String>,
}

/// An AMD GPU node of the KFD topology.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct AmdGpu {
    /// The KFD node number.
    pub node: u32,
    /// The target, e.g. `gfx942`.
    pub gfx: String,
    /// Compute units.
    pub compute_units: Option<u64>,
    /// Peak engine clock, MHz.
    pub max_clock_mhz: Option<u64>,
}

/// The NVIDIA side.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CudaStatus {
    /// The driver library and CUPTI, each found or not.
    pub components: Vec<Component>,
    /// GPUs `nvidia-smi` lists, as `name, driver version`.
    pub gpus: Vec<String>,
}

/// Probes the machine. Takes a few seconds at most: external programs run with a deadline.
pub fn gather() -> Report {
    let rocm = find_rocm();
    let rocm_dirs: Vec<PathBuf> = rocm
        .path
        .iter()
        .flat_map(|root| [root.join("lib"), root.join("lib64"), root.join("lib/rocprofiler-sdk")])
        .collect();
    let rocm_bins: Vec<PathBuf> = rocm.path.iter().map(|root| root.join("bin")).collect();
    let lib_dirs = probe::library_dirs(&rocm_dirs);

    let mut components = Vec::new();
    for (name, files, role) in AMD_LIBRARIES {
        components.push(library(&lib_dirs, name, files, role));
    }
    for (name, programs, args, hint, role) in AMD_PROGRAMS {
        components.push(program(&rocm_bins, name, programs, args, *hint, role));
    }

    let sdk = sdk_status();
    let hip = hip_status();
    let amd_gpus = amd_gpus(Path::new("/sys/class/kfd/kfd/topology/nodes"));
    let cuda = cuda_status();
    let mut report = Report {
        tool: ToolInfo {
            version: env!("CARGO_PKG_VERSION"),
            build: env!("ROCPROF_RS_BUILD_ID"),
            sdk_declarations: rocprofiler_sdk_sys::DECLARATIONS,
            hip_declarations: rocprofiler_sdk_sys::hip::DECLARATIONS,
            sdk_abi: format!("{}.x (ROCm 7.0 and later)", rocprofiler_sdk_sys::ABI_MAJOR),
        },
        tool_library: match std::env::current_exe() {
            Ok(exe) => crate::cli::tool_path::choice(&exe),
            Err(e) => crate::cli::tool_path::ToolChoice {
                path: None,
                source: "none",
                note: format!("cannot find this command's own path: {e}"),
            },
        },
        rocm,
        components,
        sdk,
        hip,
        amd_gpus,
        cuda,
        next_steps: Vec::new(),
    };
    report.next_steps = next_steps(&report, Path::new("/dev/kfd"));
    report
}

type LibrarySpec = (&'static str, &'static [&'static str], &'static str);
type ProgramSpec = (&'static str, &'static [&'static str], &'static [&'static str], Option<&'static str>, &'static str);

const AMD_LIBRARIES: &[LibrarySpec] = &[
    ("librocprofiler-sdk", &["librocprofiler-sdk.so.1"], "the profiling SDK rocprof-rs is a tool of (ABI 1.x)"),
    ("libamdhip64", &["libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"], "the HIP runtime"),
    ("libhsa-runtime64", &["libhsa-runtime64.so.1"], "the HSA runtime (ROCr) under HIP"),
    ("librocprofiler-register", &["librocprofiler-register.so.0"], "how runtimes find the SDK and its tools"),
];

const AMD_PROGRAMS: &[ProgramSpec] = &[
    ("rocprofv3", &["rocprofv3"], &["--version"], None, "AMD's tracing and counter profiler"),
    ("rocprof", &["rocprof"], &["--version"], None, "the legacy profiler (v1)"),
    ("rocprof-compute", &["rocprof-compute"], &["--version"], None, "AMD's kernel analysis (Omniperf)"),
    ("rocprof-sys", &["rocprof-sys-run", "rocprof-sys-instrument"], &["--version"], None, "AMD's system profiler"),
    ("rocminfo", &["rocminfo"], &[], None, "lists HSA agents"),
    ("amd-smi", &["amd-smi"], &["version"], Some("amdsmi tool"), "GPU management and monitoring"),
];

fn library(dirs: &[PathBuf], name: &'static str, files: &[&str], role: &'static str) -> Component {
    let found = probe::find_library(dirs, files);
    Component {
        name,
        kind: "library",
        version: found.as_ref().and_then(|(_, real)| probe::version_from_soname(real)),
        path: found.map(|(_, real)| real),
        role,
    }
}

fn program(
    dirs: &[PathBuf],
    name: &'static str,
    programs: &[&str],
    args: &[&str],
    hint: Option<&str>,
    role: &'static str,
) -> Component {
    let path = probe::find_executable(dirs, programs);
    let version = match &path {
        Some(path) if !args.is_empty() => {
            probe::run_with_deadline(path, args).and_then(|out| probe::first_version(&out, hint))
        }
        _ => None,
    };
    Component { name, kind: "program", path, version, role }
}

/// The ROCm root: `ROCM_PATH`, `ROCM_HOME`, the parent of `HIP_PATH`, `/opt/rocm`, then the
/// newest `/opt/rocm-*`.
fn find_rocm() -> RocmInstall {
    let mut candidates: Vec<(PathBuf, String)> = Vec::new();
    for var in ["ROCM_PATH", "ROCM_HOME"] {
        if let Some(value) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            candidates.push((PathBuf::from(value), var.to_owned()));
        }
    }
    if let Some(hip) = std::env::var_os("HIP_PATH").filter(|v| !v.is_empty())
        && let Some(parent) = Path::new(&hip).parent()
    {
        candidates.push((parent.to_path_buf(), "HIP_PATH".to_owned()));
    }
    candidates.push((PathBuf::from("/opt/rocm"), "/opt/rocm".to_owned()));
    let mut versioned: Vec<PathBuf> = std::fs::read_dir("/opt")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("rocm-")))
        .collect();
    versioned.sort();
    candidates.extend(versioned.into_iter().rev().map(|p| (p, "/opt/rocm-*".to_owned())));

    for (path, how) in candidates {
        if path.join("lib").is_dir() || path.join("bin").is_dir() {
            let version = rocm_version(&path);
            return RocmInstall { path: Some(path), version, found_by: Some(how) };
        }
    }
    RocmInstall { path: None, version: None, found_by: None }
}

/// ROCm's version from `.info/version`, `rocm_version.h`, or the directory name.
fn rocm_version(root: &Path) -> Option<String> {
    if let Ok(text) = std::fs::read_to_string(root.join(".info/version"))
        && let Some(version) = probe::first_version(&text, None)
    {
        return Some(version);
    }
    if let Ok(text) = std::fs::read_to_string(root.join("include/rocm-core/rocm_version.h")) {
        let field = |name: &str| {
            text.lines().find_map(|l| l.trim().strip_prefix("#define ")?.strip_prefix(name)?.trim().parse::<u32>().ok())
        };
        if let (Some(major), Some(minor), Some(patch)) =
            (field("ROCM_VERSION_MAJOR"), field("ROCM_VERSION_MINOR"), field("ROCM_VERSION_PATCH"))
        {
            return Some(format!("{major}.{minor}.{patch}"));
        }
    }
    let canonical = std::fs::canonicalize(root).ok()?;
    let name = canonical.file_name()?.to_str()?;
    name.strip_prefix("rocm-").map(str::to_owned)
}

fn sdk_status() -> SdkStatus {
    match rocprof_rs::backend::amd::sdk::sdk()
        .map_err(rocprof_rs::Error::from)
        .and_then(|sdk| rocprof_rs::backend::amd::sdk::compat::abi_checked_version(sdk).map(|v| (sdk, v)))
    {
        Ok((sdk, (major, minor, patch))) => SdkStatus {
            loadable: true,
            version: Some(format!("{major}.{minor}.{patch}")),
            path: sdk.path(),
            error: None,
        },
        Err(e) => SdkStatus { loadable: false, version: None, path: None, error: Some(e.to_string()) },
    }
}

fn hip_status() -> HipStatus {
    match rocprofiler_sdk_sys::hip::Hip::load() {
        Ok(hip) => {
            let version =
                hip.runtime_version().ok().map(|v| format!("{}.{}.{}", v / 10_000_000, v / 100_000 % 100, v % 100_000));
            HipStatus { loadable: true, version, path: hip.path(), hiprtc: hip.rtc().is_some(), error: None }
        }
        Err(e) => HipStatus { loadable: false, version: None, path: None, hiprtc: false, error: Some(e.to_string()) },
    }
}

/// GPU nodes of the KFD topology. CPU nodes have `gfx_target_version 0` and are skipped.
fn amd_gpus(nodes: &Path) -> Vec<AmdGpu> {
    let mut gpus: Vec<AmdGpu> = std::fs::read_dir(nodes)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let node: u32 = entry.file_name().to_str()?.parse().ok()?;
            let properties = std::fs::read_to_string(entry.path().join("properties")).ok()?;
            parse_kfd_node(node, &properties)
        })
        .collect();
    gpus.sort_by_key(|gpu| gpu.node);
    gpus
}

fn parse_kfd_node(node: u32, properties: &str) -> Option<AmdGpu> {
    let field = |name: &str| {
        properties.lines().find_map(|line| {
            let (key, value) = line.split_once(' ')?;
            (key == name).then(|| value.trim().parse::<u64>().ok()).flatten()
        })
    };
    let target = field("gfx_target_version").filter(|v| *v != 0)?;
    let simds = field("simd_count");
    let simds_per_cu = field("simd_per_cu").filter(|v| *v != 0);
    Some(AmdGpu {
        node,
        gfx: gfx_name(target),
        compute_units: simds.zip(simds_per_cu).map(|(s, per)| s / per),
        max_clock_mhz: field("max_engine_clk_fcompute"),
    })
}

/// `90402` → `gfx942`; `110501` → `gfx1151`. Minor and stepping are hexadecimal digits.
pub fn gfx_name(target_version: u64) -> String {
    let major = target_version / 10000;
    let minor = target_version / 100 % 100;
    let stepping = target_version % 100;
    format!("gfx{major}{minor:x}{stepping:x}")
}

fn cuda_status() -> CudaStatus {
    let mut roots: Vec<PathBuf> = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(value) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            roots.push(PathBuf::from(value));
        }
    }
    roots.push(PathBuf::from("/usr/local/cuda"));
    let mut extra: Vec<PathBuf> = roots
        .iter()
        .flat_map(|r| [r.join("lib64"), r.join("extras/CUPTI/lib64"), r.join("targets/x86_64-linux/lib")])
        .collect();
    extra.extend(python_nvidia_lib_dirs());
    let dirs = probe::library_dirs(&extra);
    let components = vec![
        library(&dirs, "libcuda", &["libcuda.so.1"], "the NVIDIA driver API"),
        library(
            &dirs,
            "libcupti",
            &["libcupti.so.13", "libcupti.so.12"],
            "NVIDIA's profiling interface (second backend)",
        ),
        program(&[], "nvidia-smi", &["nvidia-smi"], &["--version"], Some("driver version"), "lists NVIDIA GPUs"),
    ];
    let gpus = probe::find_executable(&[], &["nvidia-smi"])
        .and_then(|smi| probe::run_with_deadline(&smi, &["--query-gpu=name,driver_version", "--format=csv,noheader"]))
        .map(|out| {
            out.lines().map(str::trim).filter(|l| !l.is_empty() && !l.contains("failed")).map(str::to_owned).collect()
        })
        .unwrap_or_default();
    CudaStatus { components, gpus }
}

/// Where pip's NVIDIA wheels put their libraries (`site-packages/nvidia/*/lib`), which ship
/// CUPTI without a CUDA toolkit.
fn python_nvidia_lib_dirs() -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::from("/usr/lib"), PathBuf::from("/usr/local/lib")];
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(Path::new(&home).join(".local/lib"));
    }
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        roots.push(Path::new(&venv).join("lib"));
    }
    let mut dirs = Vec::new();
    for root in roots {
        for python in std::fs::read_dir(&root).into_iter().flatten().flatten() {
            let name = python.file_name();
            if !name.to_string_lossy().starts_with("python3") {
                continue;
            }
            for packages in ["site-packages", "dist-packages"] {
                let nvidia = python.path().join(packages).join("nvidia");
                for sub in std::fs::read_dir(&nvidia).into_iter().flatten().flatten() {
                    dirs.push(sub.path().join("lib"));
                }
            }
        }
    }
    dirs
}

fn next_steps(report: &Report, kfd: &Path) -> Vec<String> {
    let mut steps = Vec::new();
    let has = |name: &str| report.components.iter().any(|c| c.name == name && c.path.is_some());
    let cuda_has = |name: &str| report.cuda.components.iter().any(|c| c.name == name && c.path.is_some());

    if report.rocm.path.is_none() && !has("librocprofiler-sdk") {
        steps.push(
            "No ROCm installation found. To profile AMD GPUs, install ROCm 7.0 or later (it ships \
             rocprofiler-sdk 1.x); if it is installed elsewhere, set ROCM_PATH to its root."
                .to_owned(),
        );
    } else if !report.sdk.loadable {
        let why = report.sdk.error.as_deref().unwrap_or("unknown reason");
        steps.push(format!(
            "rocprofiler-sdk 1.x cannot be loaded ({why}). ROCm 7.0+ provides it as the \
             rocprofiler-sdk package; add its lib directory to LD_LIBRARY_PATH if it is not in the \
             loader's path."
        ));
    }
    if report.sdk.loadable && report.amd_gpus.is_empty() {
        steps
            .push("rocprofiler-sdk is present but the kernel driver exposes no AMD GPU (no KFD GPU nodes).".to_owned());
    }
    if !report.amd_gpus.is_empty() && std::fs::OpenOptions::new().read(true).write(true).open(kfd).is_err() {
        steps.push(format!(
            "{} is not accessible to this user: add it to the `render` and `video` groups \
             (sudo usermod -aG render,video $USER) and log in again.",
            kfd.display()
        ));
    }
    if report.amd_gpus.iter().any(|g| g.gfx.starts_with("gfx11")) {
        steps.push(
            "Consumer RDNA GPUs (gfx11xx) expose few or no hardware counters through rocprofiler-sdk: \
             expect timing-only traces there."
                .to_owned(),
        );
    }
    if cuda_has("libcuda") && !cuda_has("libcupti") {
        steps.push(
            "An NVIDIA driver is present but CUPTI was not found: install the CUDA toolkit's CUPTI or \
             `pip install nvidia-cuda-cupti-cu12`, and set CUDA_HOME or LD_LIBRARY_PATH to it."
                .to_owned(),
        );
    }
    if steps.is_empty() {
        steps.push("Everything rocprof-rs needs is here.".to_owned());
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx_names_decode_hex_minor_and_stepping() {
        assert_eq!(gfx_name(90402), "gfx942");
        assert_eq!(gfx_name(90010), "gfx90a");
        assert_eq!(gfx_name(110501), "gfx1151");
        assert_eq!(gfx_name(110000), "gfx1100");
        assert_eq!(gfx_name(90500), "gfx950");
    }

    #[test]
    fn kfd_gpu_nodes_are_read_and_cpu_nodes_skipped() {
        let gpu = "cpu_cores_count 0\nsimd_count 1216\ngfx_target_version 90402\nsimd_per_cu 4\nmax_engine_clk_fcompute 2100\n";
        let parsed = parse_kfd_node(2, gpu).expect("a GPU node");
        assert_eq!(parsed.gfx, "gfx942");
        assert_eq!(parsed.compute_units, Some(304));
        assert_eq!(parsed.max_clock_mhz, Some(2100));
        assert!(parse_kfd_node(0, "cpu_cores_count 64\nsimd_count 0\ngfx_target_version 0\n").is_none());
    }

    #[test]
    fn a_machine_without_rocm_is_told_to_install_it() {
        let report = gather();
        if report.rocm.path.is_none() && report.sdk.error.is_some() {
            assert!(report.next_steps[0].contains("ROCm 7.0"), "{:?}", report.next_steps);
        }
        assert!(!report.next_steps.is_empty());
    }
}
