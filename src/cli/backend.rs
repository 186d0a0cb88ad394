//! Which tracing library `rocprof-rs run` injects the tool into: rocprofiler-sdk on AMD,
//! CUPTI on NVIDIA. The two injections do not disturb each other (each runtime reads only its
//! own variable), so when the drivers present do not settle it, both are set and whichever
//! runtime the application uses loads the tool.

use std::ffi::OsString;
use std::path::Path;

use rocprof_rs::config::{Config, Domain};

use super::flags::Backend;

/// How libcuda finds an injection library.
pub const CUDA_INJECTION: &str = "CUDA_INJECTION64_PATH";
/// How NVTX finds one.
pub const NVTX_INJECTION: &str = "NVTX_INJECTION64_PATH";

/// The injections to set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backends {
    pub cupti: bool,
    pub rocprofiler_sdk: bool,
}

/// The backends for `--backend`, `auto` looking at the drivers present.
pub fn choose(backend: Backend) -> Backends {
    match backend {
        Backend::Cupti => Backends { cupti: true, rocprofiler_sdk: false },
        Backend::RocprofilerSdk => Backends { cupti: false, rocprofiler_sdk: true },
        Backend::Auto => from_drivers(nvidia_driver(), amd_driver()),
    }
}

fn from_drivers(nvidia: bool, amd: bool) -> Backends {
    match (nvidia, amd) {
        (true, false) => Backends { cupti: true, rocprofiler_sdk: false },
        (false, true) => Backends { cupti: false, rocprofiler_sdk: true },
        _ => Backends { cupti: true, rocprofiler_sdk: true },
    }
}

/// The NVIDIA kernel driver is loaded.
fn nvidia_driver() -> bool {
    Path::new("/proc/driver/nvidia/version").exists() || Path::new("/dev/nvidiactl").exists()
}

/// The AMD compute driver (KFD) is there.
fn amd_driver() -> bool {
    Path::new("/dev/kfd").exists()
}

/// Another CUDA injection library is set already.
#[derive(Debug, thiserror::Error)]
#[error(
    "{variable} is already set to {value} and only one injection library can be loaded; unset it to trace with rocprof-rs"
)]
pub struct InjectionTaken {
    /// `CUDA_INJECTION64_PATH` or `NVTX_INJECTION64_PATH`.
    pub variable: &'static str,
    /// What it is set to.
    pub value: String,
}

/// The variables that inject `tool` into CUDA (and NVTX, when markers are traced). Only one
/// injection library can be loaded, so a different one already set is refused rather than
/// silently replaced.
pub fn cuda_injection(
    tool: &Path,
    config: &Config,
    existing: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Vec<(&'static str, OsString)>, InjectionTaken> {
    let mut names = vec![CUDA_INJECTION];
    if config.domains.contains(Domain::Marker) {
        names.push(NVTX_INJECTION);
    }
    for name in &names {
        if let Some(value) = existing(name)
            && !value.is_empty()
            && value != "none"
            && Path::new(&value) != tool
        {
            return Err(InjectionTaken { variable: name, value: value.to_string_lossy().into_owned() });
        }
    }
    Ok(names.into_iter().map(|name| (name, tool.as_os_str().to_owned())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_driver_picks_its_backend_and_otherwise_both_are_injected() {
        assert_eq!(from_drivers(true, false), Backends { cupti: true, rocprofiler_sdk: false });
        assert_eq!(from_drivers(false, true), Backends { cupti: false, rocprofiler_sdk: true });
        assert_eq!(from_drivers(true, true), Backends { cupti: true, rocprofiler_sdk: true });
        assert_eq!(from_drivers(false, false), Backends { cupti: true, rocprofiler_sdk: true });
    }

    #[test]
    fn another_injection_library_is_refused_by_name() {
        let vars = [("ROCPROF_RS_DOMAINS".to_owned(), "kernel,marker".to_owned())].into();
        let config = Config::from_vars(&vars, &rocprof_rs::config::Placeholders::of_this_process(&vars)).unwrap();
        let tool = Path::new("/opt/rocprof-rs/librocprof_rs.so");
        let set = cuda_injection(tool, &config, &|_| None).unwrap();
        assert_eq!(set.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [CUDA_INJECTION, NVTX_INJECTION]);
        let other = |name: &str| (name == NVTX_INJECTION).then(|| OsString::from("/usr/lib/libnsys.so"));
        let error = cuda_injection(tool, &config, &other).unwrap_err().to_string();
        assert!(error.contains("NVTX_INJECTION64_PATH is already set to /usr/lib/libnsys.so"), "{error}");
        assert!(cuda_injection(tool, &config, &|_| Some(OsString::from("none"))).is_ok());
    }
}
