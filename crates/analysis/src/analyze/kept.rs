//! Roofs rocprof-rs measured on a GPU and kept (`rocprof-rs doctor --measure-roofs`), read
//! back for the workloads that ran on that GPU.
//!
//! One JSON file per GPU, named by its UUID, in [`default_dir`]:
//! `{"format": "rocprof-rs.measured-roofs/1", "gpu": {"name": "NVIDIA H200", "uuid": ...,
//! "sm_count": 132, ...}, "measured_by": ..., "measured_at_unix": ..., "roofs": {"dram": 4.39,
//! "fp32-vector": 61.2, ...}, "runs": [...]}`. `roofs` is [`Roofs::to_json`]'s object; `runs`
//! says how each was measured and is not read back.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::dataset::Agents;
use super::measured::Roofs;
use super::specs::{Agent, normalize};
use crate::error::{Error, Result};

/// The `format` a kept measurement declares.
pub const FORMAT: &str = "rocprof-rs.measured-roofs/1";

/// The largest kept file read: a measurement is a few kilobytes.
const MAX_BYTES: u64 = 1 << 20;

/// One GPU's measured roofs, as kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// The file it was read from (empty before it is written).
    pub path: PathBuf,
    /// The GPU's name as the driver gives it (`NVIDIA H200`), which the trace's agent
    /// `product_name` repeats.
    pub gpu_name: String,
    /// `GPU-xxxxxxxx-...`.
    pub uuid: String,
    /// Its SMs (CUs): a partition (MIG) has fewer than the whole GPU.
    pub sm_count: u32,
    /// When, in seconds since the epoch.
    pub measured_at_unix: u64,
    pub roofs: Roofs,
}

impl Kept {
    /// The file's name in the kept folder: the GPU's UUID, which names one physical GPU.
    pub fn file_name(&self) -> String {
        let safe: String =
            self.uuid.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
        format!("{safe}.json")
    }

    /// Its document, with `runs` (how each roof was measured) beside the roofs.
    pub fn document(&self, measured_by: &str, runs: serde_json::Value) -> serde_json::Value {
        serde_json::json!({
            "format": FORMAT,
            "gpu": { "name": self.gpu_name, "uuid": self.uuid, "sm_count": self.sm_count },
            "measured_by": measured_by,
            "measured_at_unix": self.measured_at_unix,
            "roofs": self.roofs.to_json(),
            "runs": runs,
        })
    }

    /// Reads a kept file; one error naming the file and what in it is wrong.
    pub fn read(path: &Path) -> Result<Kept> {
        use std::io::Read;
        use std::os::unix::fs::OpenOptionsExt;
        let io = |source| Error::Io { path: path.display().to_string(), source };
        // Not blocking on a FIFO put in its place, and judged by what was opened, not the name.
        let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(invalid(path, "not a regular file"));
        }
        let mut bytes = Vec::new();
        file.take(MAX_BYTES + 1).read_to_end(&mut bytes).map_err(io)?;
        if bytes.len() as u64 > MAX_BYTES {
            return Err(invalid(path, &format!("more than a measurement's {MAX_BYTES} bytes")));
        }
        let text = String::from_utf8(bytes).map_err(|_| invalid(path, "not UTF-8 text"))?;
        Kept::parse(path, &text)
    }

    /// Parses a kept document read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Kept> {
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| invalid(path, &format!("not JSON: {e}")))?;
        if json.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(invalid(path, &format!("\"format\" is not \"{FORMAT}\" (not a rocprof-rs measurement)")));
        }
        let gpu = json.get("gpu").ok_or_else(|| invalid(path, "no \"gpu\""))?;
        let text_at = |key: &str| gpu.get(key).and_then(|v| v.as_str()).filter(|s| !s.is_empty()).map(str::to_owned);
        let gpu_name = text_at("name").ok_or_else(|| invalid(path, "gpu.name is missing or empty"))?;
        let uuid = text_at("uuid").ok_or_else(|| invalid(path, "gpu.uuid is missing or empty"))?;
        let sm_count = gpu
            .get("sm_count")
            .and_then(|v| v.as_u64())
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n > 0)
            .ok_or_else(|| invalid(path, "gpu.sm_count is not a positive integer"))?;
        let measured_at_unix = json.get("measured_at_unix").and_then(|v| v.as_u64()).unwrap_or(0);
        let source = format!("rocprof-rs doctor --measure-roofs on {gpu_name} {uuid} ({})", path.display());
        let roofs = Roofs::from_json(&source, json.get("roofs").unwrap_or(&serde_json::Value::Null));
        if roofs.is_empty() {
            return Err(invalid(path, "\"roofs\" holds no roof (positive TB/s or TFLOP/s by known name)"));
        }
        Ok(Kept { path: path.to_owned(), gpu_name, uuid, sm_count, measured_at_unix, roofs })
    }

    /// Whether `agent` is this GPU's kind, whole: the same product name and as many SMs.
    pub fn fits(&self, agent: &Agent) -> bool {
        normalize(&agent.product_name) == normalize(&self.gpu_name)
            && !agent.product_name.is_empty()
            && agent.compute_units.is_none_or(|cu| cu == self.sm_count)
    }
}

fn invalid(path: &Path, what: &str) -> Error {
    Error::Invalid(format!("{}: {what}", path.display()))
}

/// Where measurements are kept: `$XDG_CACHE_HOME/rocprof-rs/roofs`, else
/// `$HOME/.cache/rocprof-rs/roofs`; None where neither is set to an absolute path.
pub fn default_dir() -> Option<PathBuf> {
    let absolute = |var: &str| std::env::var_os(var).map(PathBuf::from).filter(|p| p.is_absolute());
    let cache = absolute("XDG_CACHE_HOME").or_else(|| absolute("HOME").map(|h| h.join(".cache")))?;
    Some(cache.join("rocprof-rs").join("roofs"))
}

/// Every measurement kept in `dir`, newest first, and one line for each file that could not be
/// read; nothing where the folder does not exist.
pub fn all_in(dir: &Path) -> (Vec<Kept>, Vec<String>) {
    let (mut kept, mut problems) = (Vec::new(), Vec::new());
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (kept, problems),
        Err(e) => {
            problems.push(format!("kept roofs not used: {}: {e}", dir.display()));
            return (kept, problems);
        }
    };
    // One file per GPU: a folder of thousands is not ours, and the first 512 by name are read.
    let mut paths: Vec<std::path::PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .take(1 << 16)
        .collect();
    paths.sort_unstable();
    if paths.len() > 512 {
        problems.push(format!(
            "kept roofs: {} files in {}, only the first 512 by name read",
            paths.len(),
            dir.display()
        ));
        paths.truncate(512);
    }
    for path in paths {
        match Kept::read(&path) {
            Ok(k) => kept.push(k),
            Err(e) => problems.push(format!("kept roofs not used: {e}")),
        }
    }
    kept.sort_by(|a, b| b.measured_at_unix.cmp(&a.measured_at_unix).then_with(|| a.path.cmp(&b.path)));
    (kept, problems)
}

/// Which measured roofs a workload's GPUs are judged against.
#[derive(Debug, Clone, Default)]
pub enum RoofChoice {
    /// Those the workload carries (an imported `roofline.csv`), else the newest kept
    /// measurement that fits the GPU.
    #[default]
    Carried,
    /// As [`RoofChoice::Carried`], with these kept measurements to fall back on.
    CarriedThenKept(Vec<Kept>),
    /// This measurement for every GPU it fits, before the workload's own; an error where it
    /// fits none.
    Given(Kept),
    /// The datasheet's alone.
    Datasheet,
}

/// What `--roofs` asks for (a kept file, or `datasheet`); without it, the roofs the workload
/// carries, then those kept in [`default_dir`]. With it, the lines saying which kept files
/// could not be read.
pub fn choice(given: Option<&Path>) -> Result<(RoofChoice, Vec<String>)> {
    match given {
        Some(p) if p.as_os_str() == "datasheet" => Ok((RoofChoice::Datasheet, Vec::new())),
        Some(p) => Ok((RoofChoice::Given(Kept::read(p)?), Vec::new())),
        None => match default_dir() {
            None => Ok((RoofChoice::Carried, Vec::new())),
            Some(dir) => {
                let (kept, problems) = all_in(&dir);
                Ok((RoofChoice::CarriedThenKept(kept), problems))
            }
        },
    }
}

/// The roofs each (process, agent) is judged against: `carried` (the dataset's own) or a kept
/// measurement, as `choice` says.
pub fn choose(
    choice: &RoofChoice,
    carried: HashMap<(u32, u64), Roofs>,
    agents: &Agents,
) -> Result<HashMap<(u32, u64), Arc<Roofs>>> {
    let fitting = |kept: &Kept| -> Vec<(u32, u64)> {
        let mut keys: Vec<(u32, u64)> =
            agents.iter().filter(|(_, a)| a.gpu && kept.fits(&a.agent)).map(|(k, _)| *k).collect();
        keys.sort_unstable();
        keys
    };
    let mut out: HashMap<(u32, u64), Arc<Roofs>> = match choice {
        RoofChoice::Datasheet => return Ok(HashMap::new()),
        _ => carried.into_iter().map(|(k, v)| (k, Arc::new(v))).collect(),
    };
    match choice {
        RoofChoice::Carried | RoofChoice::Datasheet => {}
        RoofChoice::CarriedThenKept(kept) => {
            for k in kept {
                let roofs = Arc::new(k.roofs.clone());
                for key in fitting(k) {
                    out.entry(key).or_insert_with(|| roofs.clone());
                }
            }
        }
        RoofChoice::Given(k) => {
            let keys = fitting(k);
            if keys.is_empty() {
                let mut gpus: Vec<String> = agents
                    .values()
                    .filter(|a| a.gpu)
                    .map(|a| match a.agent.compute_units {
                        Some(cu) => format!("{} ({cu} SMs/CUs)", a.agent.product_name),
                        None => a.agent.product_name.clone(),
                    })
                    .collect();
                gpus.sort_unstable();
                gpus.dedup();
                let had =
                    if gpus.is_empty() { "it has no GPU".to_owned() } else { format!("it has {}", gpus.join(", ")) };
                return Err(invalid(
                    &k.path,
                    &format!(
                        "measured a {} with {} SMs, and no GPU of the dataset is one: {had}",
                        k.gpu_name, k.sm_count
                    ),
                ));
            }
            let roofs = Arc::new(k.roofs.clone());
            for key in keys {
                out.insert(key, roofs.clone());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::specs::Level;

    fn h200() -> Kept {
        let mut roofs = Roofs::default();
        roofs.bandwidth.insert(Level::Dram, 4.3);
        Kept {
            path: PathBuf::new(),
            gpu_name: "NVIDIA H200".into(),
            uuid: "GPU-0b1c/..".into(),
            sm_count: 132,
            measured_at_unix: 1,
            roofs,
        }
    }

    #[test]
    fn a_kept_document_reads_back_and_names_its_file_safely() {
        let kept = h200();
        assert_eq!(kept.file_name(), "GPU-0b1c___.json");
        let text = kept.document("rocprof-rs test", serde_json::json!([])).to_string();
        let read = Kept::parse(Path::new("k.json"), &text).unwrap();
        assert_eq!(read.gpu_name, "NVIDIA H200");
        assert_eq!(read.sm_count, 132);
        assert_eq!(read.roofs.bandwidth[&Level::Dram], 4.3);
        assert!(read.roofs.source.contains("GPU-0b1c/.."), "{}", read.roofs.source);
    }

    #[test]
    fn a_bad_document_is_one_error_naming_the_file_and_the_field() {
        for (text, says) in [
            ("{", "not JSON"),
            ("{\"format\": \"other\"}", "\"format\""),
            (&format!("{{\"format\": \"{FORMAT}\"}}"), "no \"gpu\""),
            (&format!("{{\"format\": \"{FORMAT}\", \"gpu\": {{\"name\": \"x\", \"uuid\": \"u\"}}}}"), "sm_count"),
            (
                &format!(
                    "{{\"format\": \"{FORMAT}\", \"gpu\": {{\"name\": \"x\", \"uuid\": \"u\", \"sm_count\": 2}}, \"roofs\": {{\"dram\": -1}}}}"
                ),
                "no roof",
            ),
        ] {
            let error = Kept::parse(Path::new("bad.json"), text).unwrap_err().to_string();
            assert!(error.starts_with("bad.json: ") && error.contains(says), "{text}: {error}");
        }
    }

    #[test]
    fn a_measurement_fits_only_the_same_whole_gpu() {
        let kept = h200();
        let agent = |name: &str, cus| Agent { product_name: name.into(), compute_units: cus, ..Agent::default() };
        assert!(kept.fits(&agent("NVIDIA H200", Some(132))));
        assert!(kept.fits(&agent("nvidia h200", None)));
        assert!(!kept.fits(&agent("NVIDIA H200", Some(16))), "a MIG slice is not the whole GPU");
        assert!(!kept.fits(&agent("NVIDIA H100 80GB HBM3", Some(132))));
        assert!(!kept.fits(&agent("", Some(132))));
    }
}
