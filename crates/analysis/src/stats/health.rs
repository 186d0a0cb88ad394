//! What a dataset's readers should know before trusting its figures: files that were never
//! completed, and records the tool dropped.

use std::path::Path;

use rocprof_rs_format::Table;
use rocprof_rs_format::input::{JSON_LIMIT, read_text};
use rocprof_rs_format::keys::{self, METADATA_FILE_SUFFIX};

use crate::error::Result;

/// Lines to print before a dataset's statistics, each one thing that makes them incomplete.
pub fn warnings(dir: &Path) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    let mut incomplete = Vec::new();
    for table in Table::ALL {
        incomplete.extend(rocprof_rs_format::dataset::list(dir, *table)?.incomplete);
    }
    if let Some(first) = incomplete.first() {
        warnings.push(format!(
            "{} incomplete file{} skipped (a process still writing, or killed before it completed them), such as {}",
            incomplete.len(),
            if incomplete.len() == 1 { " was" } else { "s were" },
            first.display()
        ));
    }
    let runs = metadata_files(dir);
    let untraced: u64 = runs
        .iter()
        .filter_map(|json| json.get(keys::COUNTER_DISPATCHES_UNTRACED)?.as_u64())
        .fold(0, u64::saturating_add);
    if untraced > 0 {
        warnings.push(format!(
            "{untraced} counted launches ran with kernel activity off (SASS metric passes: SASS metrics read 0 beside kernel tracing): they have counter rows but no kernel_dispatch row, so kernel calls and times leave them out"
        ));
    }
    for json in &runs {
        if let Some(trigger) = json.get("trigger") {
            warnings.push(dump_line(json, trigger));
        }
    }
    let (rows, dropped) = losses(&runs);
    if dropped > 0 {
        let share = dropped as f64 / (rows + dropped) as f64 * 100.0;
        warnings.push(format!(
            "the tool dropped {dropped} of {} records ({share:.1}%), as its run metadata says: these figures undercount",
            rows + dropped
        ));
    }
    Ok(warnings)
}

/// What a flight recorder's dump is: which process, what triggered it, how far back it reaches.
fn dump_line(json: &serde_json::Value, trigger: &serde_json::Value) -> String {
    let reason = trigger.get("reason").and_then(|r| r.as_str()).unwrap_or("an unknown trigger");
    let pid = json.get(keys::PID).and_then(|p| p.as_str()).unwrap_or("?");
    let keep = json.get("flight_recorder").and_then(|f| f.get("keep_s")?.as_f64()).unwrap_or(0.0);
    let detail = trigger.get("detail");
    let why = match reason {
        "slow-step" => detail
            .map(|d| {
                let ms = |key: &str| d.get(key).and_then(serde_json::Value::as_f64).unwrap_or(0.0) / 1e6;
                let step = d.get("step").and_then(|s| s.as_str()).unwrap_or("?");
                format!(": {step:?} took {:.1} ms against a median of {:.1} ms", ms("duration_ns"), ms("median_ns"))
            })
            .unwrap_or_default(),
        "hang" => detail
            .map(|d| {
                let quiet = d.get("quiet_ns").and_then(serde_json::Value::as_f64).unwrap_or(0.0) / 1e9;
                format!(
                    ": no kernel finished for {quiet:.1} s with {} launches outstanding{} (the metadata lists them)",
                    crate::ranks::hangs::launches(d).len(),
                    crate::ranks::hangs::oldest(d).map(|o| o.in_words()).unwrap_or_default()
                )
            })
            .unwrap_or_default(),
        "api" => detail.and_then(|d| d.get("reason")?.as_str().map(|r| format!(": {r:?}"))).unwrap_or_default(),
        _ => String::new(),
    };
    format!(
        "a flight recorder's dump of process {pid}, on a {reason} trigger{why}: the last {keep:.0} s before it at most, not the whole run"
    )
}

/// Rows written and records dropped, summed over the run metadata of every process.
fn losses(runs: &[serde_json::Value]) -> (u64, u64) {
    runs.iter().fold((0, 0), |(rows, dropped), json| (rows + total(json, "records"), dropped + total(json, "dropped")))
}

/// The run metadata of every process under `dir` (one JSON file each); a file that cannot be
/// read or parsed is left out, as the tables' warnings already name incomplete runs.
pub fn metadata_files(dir: &Path) -> Vec<serde_json::Value> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .flatten()
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.ends_with(METADATA_FILE_SUFFIX) && !name.starts_with('.')
        })
        .filter_map(|entry| {
            let text = read_text(&entry.path(), JSON_LIMIT).ok()?;
            serde_json::from_str::<serde_json::Value>(&text).ok()
        })
        .collect()
}

/// The sum of the numbers of a metadata object such as `records` or `dropped`.
pub fn total(json: &serde_json::Value, key: &str) -> u64 {
    json.get(key).and_then(|v| v.as_object()).map_or(0, |o| o.values().filter_map(|v| v.as_u64()).sum::<u64>())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counted launches without a kernel row (CUPTI's SASS passes) are said before the figures,
    /// summed over the processes.
    #[test]
    fn untraced_counted_launches_are_said() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-health-untraced-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (pid, n) in [(1, 92), (2, 8)] {
            let json = format!("{{\"{}\":{n},\"records\":{{}},\"dropped\":{{}}}}", keys::COUNTER_DISPATCHES_UNTRACED);
            std::fs::write(dir.join(keys::metadata_file_name(&format!("vm-{pid}"))), json).unwrap();
        }
        let said = warnings(&dir).unwrap();
        assert!(said.iter().any(|w| w.starts_with("100 counted launches ran with kernel activity off")), "{said:?}");
        std::fs::remove_file(dir.join(keys::metadata_file_name("vm-2"))).unwrap();
        std::fs::write(dir.join(keys::metadata_file_name("vm-1")), "{\"records\":{}}").unwrap();
        assert!(warnings(&dir).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
