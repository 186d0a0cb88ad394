//! `ROCPROF_RS_CUPTI_DUMP=<dir>` for counters: what CI's fixtures are made of. Per chip, its
//! counter availability and config images with the metric list (`<chip>.json`); per counted
//! session, its decoded counter data image (`<pid>-<seq>.image`) and a sidecar with the pass,
//! the kernel, and the values the tool evaluated. Bounded by `ROCPROF_RS_CUPTI_DUMP_MAX`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use rocprofiler_sdk_sys::cupti as sys;

use super::Chip;
use crate::config::Config;

pub(super) struct Dump {
    dir: PathBuf,
    budget: AtomicU64,
    sequence: AtomicU64,
}

impl Dump {
    pub(super) fn from_config(config: &Config) -> Option<Dump> {
        let dir = config.cupti_dump.as_ref()?.join("counters");
        if let Err(e) = std::fs::create_dir_all(&dir) {
            crate::say!("rocprof-rs: cannot create the counter dump directory {}: {e}", dir.display());
            return None;
        }
        Some(Dump { dir, budget: AtomicU64::new(config.cupti_dump_max), sequence: AtomicU64::new(0) })
    }

    fn take(&self, bytes: usize) -> bool {
        self.budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| left.checked_sub(bytes as u64)).is_ok()
    }

    fn write(&self, files: &[(String, &[u8])]) {
        for (name, bytes) in files {
            if let Err(e) = std::fs::write(self.dir.join(name), bytes) {
                crate::say!("rocprof-rs: cannot write the counter dump in {}: {e}", self.dir.display());
                return;
            }
        }
    }

    /// A chip's images and metrics.
    pub(super) fn chip(&self, chip: &str, availability: &[u8], metrics: &[String], config: &[u8]) {
        if !self.take(availability.len() + config.len()) {
            return;
        }
        let sidecar = serde_json::json!({"chip": chip, "metrics": metrics});
        self.write(&[
            (format!("{chip}.availability"), availability),
            (format!("{chip}.config"), config),
            (format!("{chip}.json"), sidecar.to_string().as_bytes()),
        ]);
    }

    /// One session's decoded image.
    pub(super) fn session(
        &self,
        chip: &Chip,
        image: &[u8],
        pass: usize,
        data: &sys::CUpti_CallbackData,
        values: &[f64],
    ) {
        if !self.take(image.len()) {
            return;
        }
        let stem = format!("{}-{:04}", std::process::id(), self.sequence.fetch_add(1, Ordering::Relaxed));
        let kernel = if data.symbolName.is_null() {
            String::new()
        } else {
            // SAFETY: CUPTI's NUL-terminated symbol name, live during the callback.
            unsafe { std::ffi::CStr::from_ptr(data.symbolName) }.to_string_lossy().into_owned()
        };
        let values: Vec<serde_json::Value> =
            values.iter().map(|v| if v.is_finite() { serde_json::json!(v) } else { serde_json::Value::Null }).collect();
        let sidecar = serde_json::json!({"chip": chip.name, "pass": pass, "kernel": kernel, "values": values});
        self.write(&[(format!("{stem}.image"), image), (format!("{stem}.json"), sidecar.to_string().as_bytes())]);
    }
}
