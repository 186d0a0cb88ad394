//! What a reader of the figures must know: how ranks were told apart, and what some ranks lack.

use super::collectives::Collectives;
use super::identity::{RankId, RankTable};
use super::intervals::BusyFigures;
use super::read::Seen;
use super::steps::Steps;

/// What the files say of how ranks are known.
pub fn origin(seen: &Seen, table: &RankTable) -> Vec<String> {
    let mut notes = Vec::new();
    let files = seen.with_rank_column + seen.without_rank_column;
    if files > 0 && seen.without_rank_column == files {
        notes.push(
            "no rank column (files of format 1 or 2): ranks are identified by host and pid, the host from each \
             process's metadata file where it names one"
                .into(),
        );
    } else if seen.without_rank_column > 0 {
        notes.push(format!(
            "{} of {files} files have no rank column (format 1 or 2): their rows count by host and pid",
            seen.without_rank_column
        ));
    }
    let unranked = table.info.iter().filter(|r| matches!(r.id, RankId::Process { .. })).count();
    if seen.with_rank_column > 0 && unranked > 0 {
        notes.push(format!(
            "{unranked} of {} ranks have no rank (no launcher variable such as RANK was set): they are identified \
             by host and pid",
            table.len()
        ));
    }
    if table.len() == 1 {
        notes.push("one rank: nothing to compare across ranks".into());
    }
    notes
}

/// Ranks' names, shortened after a few.
fn names(table: &RankTable, indices: &[u32]) -> String {
    const SHOWN: usize = 8;
    let mut text = indices.iter().take(SHOWN).map(|&i| table.id(i).to_string()).collect::<Vec<_>>().join(", ");
    if indices.len() > SHOWN {
        text.push_str(&format!(" and {} more", indices.len() - SHOWN));
    }
    text
}

/// What some ranks lack: collectives, steps.
pub fn missing(
    table: &RankTable,
    busy: &[BusyFigures],
    collectives: &Collectives,
    steps: Option<&Steps>,
) -> Vec<String> {
    let mut notes = Vec::new();
    let had = |i: u32| busy.get(i as usize).is_some_and(|b| b.collectives > 0);
    let any_collective = table.sorted.iter().any(|&i| had(i));
    let without: Vec<u32> = table.sorted.iter().copied().filter(|&i| !had(i)).collect();
    if any_collective && !without.is_empty() {
        notes.push(format!(
            "no collective kernel on {}: every kernel collective is incomplete (seen on at most {} of {} ranks)",
            names(table, &without),
            table.len() - without.len(),
            table.len()
        ));
    }
    if !any_collective && busy.iter().any(|b| b.kernels > 0) {
        notes.push("no collective kernel (no kernel name matches nccl or rccl): no communication time".into());
    }
    if collectives.incomplete > 0 {
        notes.push(format!(
            "{} kernel collectives are not seen on every rank (incomplete; the per-rank waits leave them out): \
             collectives are matched by their order per operation, so one a rank lacks shifts the rest",
            collectives.incomplete
        ));
    }
    if let Some(steps) = steps {
        let most = steps.per_rank.iter().map(|s| s.steps).max().unwrap_or(0);
        let fewer: Vec<u32> =
            table.sorted.iter().copied().filter(|&i| steps.per_rank[i as usize].steps < most).collect();
        if !fewer.is_empty() {
            notes.push(format!(
                "fewer steps than the {most} of others on {}: steps are matched by their order, so a missing step \
                 shifts the rest ({} steps incomplete)",
                names(table, &fewer),
                steps.incomplete
            ));
        }
    }
    notes
}
