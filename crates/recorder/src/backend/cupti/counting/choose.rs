//! From a counter request to the metrics one chip collects: names checked against the chip's
//! base metrics (with did-you-mean), presets resolved in CUPTI's names.

use super::presets as nvidia;
use crate::counters::Selection;
use crate::counters::suggest::suggestions;

/// The base metric of a full name: `dram__bytes_read` of `dram__bytes_read.sum`.
pub fn base(metric: &str) -> &str {
    metric.split_once('.').map_or(metric, |(base, _)| base)
}

/// Why a request cannot be collected on a chip.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChooseError {
    /// Names the chip does not have, each with the closest it does.
    #[error("{}; `rocprof-rs avail` lists the GPU's metrics", .0.join("; "))]
    Unknown(Vec<String>),
    /// A preset with no NVIDIA version.
    #[error("preset {0} has no NVIDIA version; on NVIDIA GPUs the presets are {1}")]
    NoPreset(String, String),
}

/// What one chip collects for `selection`, in order, each once, and a note per preset entry the
/// chip has no metric for. `has` answers for base names.
pub fn metrics(selection: &Selection, chip: &str, known: &[String]) -> Result<(Vec<String>, Vec<String>), ChooseError> {
    let has = |name: &str| known.binary_search_by(|k| k.as_str().cmp(base(name))).is_ok();
    let mut notes = Vec::new();
    let requested: Vec<String> = match selection {
        Selection::Preset(preset) => {
            let Some(preset) = nvidia::by_name(preset.name) else {
                let names: Vec<&str> = nvidia::PRESETS.iter().map(|p| p.name).collect();
                return Err(ChooseError::NoPreset(preset.name.to_owned(), names.join(", ")));
            };
            let resolved = preset.resolve(has);
            if !resolved.complete() {
                notes.push(format!(
                    "preset {} on {chip}: no metric for {}; collecting the other {}",
                    preset.name,
                    resolved.missing.join(", "),
                    resolved.counters.len()
                ));
            }
            resolved.counters
        }
        Selection::Names(names) => names.clone(),
        Selection::Passes(passes) => passes.iter().flatten().cloned().collect(),
    };
    let unknown: Vec<String> = requested
        .iter()
        .filter(|name| !has(name))
        .map(|name| match suggestions(base(name), known.iter().map(String::as_str)).as_slice() {
            [] => format!("{chip} has no metric {name}"),
            close => format!("{chip} has no metric {name} (did you mean {}?)", close.join(", ")),
        })
        .collect();
    if !unknown.is_empty() {
        return Err(ChooseError::Unknown(unknown));
    }
    let mut metrics: Vec<String> = Vec::new();
    for name in requested {
        if !metrics.contains(&name) {
            metrics.push(name);
        }
    }
    Ok((metrics, notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::presets;

    fn gh100() -> Vec<String> {
        let mut k: Vec<String> = [
            "dram__bytes_read",
            "dram__bytes_write",
            "lts__t_bytes",
            "l1tex__t_bytes",
            "smsp__warps_launched",
            "smsp__inst_executed",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        k.sort();
        k
    }

    #[test]
    fn misspelled_metrics_get_suggestions() {
        let e = metrics(&Selection::Names(vec!["dram__bytes_reda.sum".into()]), "GH100", &gh100()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "GH100 has no metric dram__bytes_reda.sum (did you mean dram__bytes_read, dram__bytes_write?); `rocprof-rs avail` lists the GPU's metrics"
        );
    }

    #[test]
    fn presets_resolve_in_cupti_names_and_say_what_is_missing() {
        let basic = presets::by_name("basic").unwrap();
        let (m, notes) = metrics(&Selection::Preset(basic), "GH100", &gh100()).unwrap();
        assert_eq!(m[0], "smsp__warps_launched.sum");
        assert!(notes.is_empty(), "{notes:?}");
        let extended = presets::by_name("extended").unwrap();
        let e = metrics(&Selection::Preset(extended), "GH100", &gh100()).unwrap_err();
        assert!(matches!(e, ChooseError::NoPreset(..)));
    }

    #[test]
    fn input_file_lines_are_merged_each_metric_once() {
        let lines = vec![vec!["lts__t_bytes.sum".into()], vec!["lts__t_bytes.sum".into(), "l1tex__t_bytes.sum".into()]];
        let (m, _) = metrics(&Selection::Passes(lines), "GH100", &gh100()).unwrap();
        assert_eq!(m, ["lts__t_bytes.sum", "l1tex__t_bytes.sum"]);
    }
}
