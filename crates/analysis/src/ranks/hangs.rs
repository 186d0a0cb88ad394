//! Which rank is stuck where: the flight recorder's hang reports, side by side.
//!
//! A process whose flight recorder sees a hang (launches outstanding, nothing finished for its
//! limit) dumps, and asks every process sharing the output directory to dump into the same
//! folder. Each dump's metadata then lists what its process had outstanding: under `trigger`
//! for the one that saw the hang, under `in_flight` for the others. Per rank this gives the
//! oldest launch not finished, the collective it is (by its kernel's name, as elsewhere in
//! `ranks`), and the marker ranges its thread was inside.

use std::path::Path;

use rocprof_rs_format::keys;
use serde::Serialize;
use serde_json::Value;

use super::identity::{RankId, RankTable};
use super::operation::Operation;

/// One rank's account of what it waits on.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct HungRank {
    /// The rank, as the other sections name it.
    pub name: String,
    /// Its dump's trigger: `hang` where this rank saw the hang itself, else how it was asked.
    pub trigger: String,
    /// How long nothing had finished on it while launches were outstanding.
    pub quiet_ns: u64,
    /// Launches outstanding.
    pub outstanding: usize,
    /// The oldest of them, where there is one.
    pub oldest: Option<Outstanding>,
}

/// A launch that had not finished.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Outstanding {
    /// The kernel it launched, where the library named it.
    pub kernel: Option<String>,
    /// Its collective operation, where the kernel is a collective's.
    pub operation: Option<Operation>,
    /// The launch call.
    pub call: String,
    pub thread_id: u64,
    pub launched_ns: u64,
    /// The marker ranges its thread was inside, outermost first.
    pub open_markers: Vec<String>,
}

/// The hang reports among the process metadata in `dir`, in rank order. A process whose
/// metadata names no rank is the rank its rows belong to in `ranks` (by host and pid), where
/// it has rows.
pub fn read(dir: &Path, ranks: &RankTable) -> Vec<HungRank> {
    let mut hung: Vec<(RankId, HungRank)> = crate::stats::health::metadata_files(dir)
        .iter()
        .filter_map(rank_report)
        .map(|(id, mut report)| {
            let id = match id {
                RankId::Process { host, pid } => {
                    // Only an unambiguous match: without a host, one pid may be on several.
                    let mut matches = ranks.info.iter().filter(|r| r.pid == pid && (host.is_none() || r.host == host));
                    match (matches.next(), matches.next()) {
                        (Some(only), None) => only.id.clone(),
                        _ => RankId::Process { host, pid },
                    }
                }
                id => id,
            };
            report.name = id.to_string();
            (id, report)
        })
        .collect();
    hung.sort_by(|a, b| a.0.cmp(&b.0));
    hung.into_iter().map(|(_, h)| h).collect()
}

/// One process's report, if its metadata has one.
fn rank_report(json: &Value) -> Option<(RankId, HungRank)> {
    let trigger = json.get("trigger")?;
    let reason = trigger.get("reason")?.as_str()?;
    let detail = if reason == "hang" { trigger.get("detail")? } else { json.get("in_flight")? };
    let text = |key: &str| json.get(key).and_then(|v| v.as_str().map(str::to_owned).or_else(|| Some(v.to_string())));
    let pid = text(keys::PID).and_then(|p| p.parse().ok()).unwrap_or(0);
    let id = match text(keys::RANK).and_then(|r| r.parse().ok()) {
        Some(rank) => RankId::Rank(rank),
        None => RankId::Process { host: text(keys::HOST), pid },
    };
    let report = HungRank {
        name: id.to_string(),
        trigger: reason.to_owned(),
        quiet_ns: detail.get("quiet_ns").and_then(Value::as_u64).unwrap_or(0),
        outstanding: launches(detail).len(),
        oldest: oldest(detail),
    };
    Some((id, report))
}

/// A hang report's outstanding launches (its `outstanding` list).
pub fn launches(detail: &Value) -> &[Value] {
    detail.get("outstanding").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

/// A hang report's oldest outstanding launch.
pub fn oldest(detail: &Value) -> Option<Outstanding> {
    launches(detail)
        .iter()
        .min_by_key(|l| l.get("launched_ns").and_then(Value::as_u64).unwrap_or(u64::MAX))
        .map(outstanding)
}

impl Outstanding {
    /// For a line of text: `, the oldest "KERNEL" inside "OUTER > INNER"`.
    pub fn in_words(&self) -> String {
        let kernel = self.kernel.as_deref().unwrap_or("an unnamed kernel");
        let inside = if self.open_markers.is_empty() {
            String::new()
        } else {
            format!(" inside {:?}", self.open_markers.join(" > "))
        };
        format!(", the oldest {kernel:?}{inside}")
    }
}

fn outstanding(launch: &Value) -> Outstanding {
    let kernel = launch.get("kernel").and_then(Value::as_str).map(str::to_owned);
    Outstanding {
        operation: kernel.as_deref().and_then(Operation::of),
        kernel,
        call: launch.get("call").and_then(Value::as_str).unwrap_or_default().to_owned(),
        thread_id: launch.get("thread_id").and_then(Value::as_u64).unwrap_or(0),
        launched_ns: launch.get("launched_ns").and_then(Value::as_u64).unwrap_or(0),
        open_markers: launch
            .get("open_markers")
            .and_then(Value::as_array)
            .map(|m| m.iter().filter_map(|m| m.get("message")?.as_str().map(str::to_owned)).collect())
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Rank 1 saw the hang: its all-reduce never finished. Rank 0, asked through the request
    /// file, is stuck in the same step's all-reduce; a process with no flight recorder's hang
    /// watch says nothing.
    #[test]
    fn each_rank_says_its_oldest_outstanding_collective_and_the_ranges_around_it() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-ranks-hangs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let launch = |kernel: &str, at: u64, markers: &[&str]| {
            json!({"correlation_id": at, "thread_id": 9, "launched_ns": at, "call": "cudaLaunchKernel",
                   "kernel": kernel, "open_markers": markers.iter().map(|m| json!({"message": m, "start_ns": 1})).collect::<Vec<_>>()})
        };
        let hung = json!({"quiet_ns": 3_000_000_000u64, "outstanding": [
            launch("elementwise", 20, &["step 7"]),
            launch("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 10, &["step 7", "all_reduce"]),
        ], "streams": []});
        let asked = json!({"quiet_ns": 2_500_000_000u64, "outstanding": [
            launch("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 12, &["step 7", "all_reduce"])], "streams": []});
        let files = [
            ("a", json!({keys::PID: "11", keys::RANK: "1", "trigger": {"reason": "hang", "detail": hung}})),
            (
                "b",
                json!({keys::PID: "10", keys::RANK: "0", "trigger": {"reason": "request", "detail": {}}, "in_flight": asked}),
            ),
            ("c", json!({keys::PID: "12", keys::RANK: "2", "trigger": {"reason": "request", "detail": {}}})),
        ];
        for (stem, meta) in files {
            std::fs::write(dir.join(keys::metadata_file_name(stem)), meta.to_string()).unwrap();
        }
        let hangs = read(&dir, &RankTable::default());
        assert_eq!(hangs.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(), ["0", "1"]);
        assert_eq!((hangs[1].trigger.as_str(), hangs[1].outstanding, hangs[1].quiet_ns), ("hang", 2, 3_000_000_000));
        let oldest = hangs[1].oldest.as_ref().unwrap();
        assert_eq!(oldest.operation, Some(Operation::AllReduce));
        assert_eq!(oldest.open_markers, ["step 7", "all_reduce"]);
        assert_eq!(hangs[0].trigger, "request");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
