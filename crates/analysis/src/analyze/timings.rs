//! `analyze --timings DIR`: another run's dispatch times for a dataset whose counters came
//! without them (rocprof v1 and rocprof-compute count and time in separate runs), joined by
//! kernel name.
//!
//! Tools spell one kernel several ways: rocprof v1 `vecCopy(double*, ...) [clone .kd]`,
//! rocprofv2 `vecCopy(double*, ...) (.kd)`, rocprofv3 the bare signature, or with
//! `--truncate-kernels` (`--basenames`) `vecCopy`; some keep the mangled symbol. Names meet
//! demangled and without the `.kd` suffixes; a name that meets no signature there is tried by its
//! base name, but only where that base name is a single signature's: two overloads are never
//! merged.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use rocprof_rs_format::kernel_names;
use serde::Serialize;

use super::dataset::Dataset;
use crate::stats::summary::Summary;

/// The suffixes tools leave from the code object's kernel descriptor symbol.
const DESCRIPTOR_SUFFIXES: [&str; 3] = [" [clone .kd]", " (.kd)", ".kd"];

/// A kernel name as every tool's spelling of it agrees: demangled, without the `.kd` suffixes.
pub fn full_name(name: &str) -> String {
    let name = name.trim();
    let bare = DESCRIPTOR_SUFFIXES.iter().find_map(|s| name.strip_suffix(s)).unwrap_or(name);
    kernel_names::display_name(bare.trim_end(), true, false)
}

/// The function name alone (`vecCopy`), as `--truncate-kernels` writes it.
pub fn base_name(full: &str) -> &str {
    kernel_names::truncated(full)
}

/// How the join went, for the report.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Join {
    /// The dataset the times came from.
    pub from: String,
    /// Kernels given times.
    pub matched: usize,
    /// Kernels analysed.
    pub kernels: usize,
    /// Names matched by their base name alone: (the name here, the signature there).
    pub by_base_name: Vec<(String, String)>,
    /// Names given no times, ambiguous ones included.
    pub unmatched: Vec<String>,
    /// Names whose base name is several signatures' there: (the name, those signatures).
    pub ambiguous: Vec<(String, Vec<String>)>,
}

/// One kernel's times in the other dataset: durations and its queue's idle time.
type Times = (Summary, Summary);

/// Gives each kernel of `data` the dispatch times of its namesake in `other` (read from `from`).
pub fn join(data: &mut Dataset, other: &Dataset, from: &Path) -> Join {
    let mut by_full: BTreeMap<String, Times> = BTreeMap::new();
    for ((_, _, name), rows) in &other.kernels {
        let times = by_full.entry(full_name(name)).or_default();
        times.0.merge(&rows.durations);
        times.1.merge(&rows.idle);
    }
    let mut by_base: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for full in by_full.keys() {
        by_base.entry(base_name(full)).or_default().push(full);
    }
    let mut join = Join { from: from.display().to_string(), kernels: data.kernels.len(), ..Join::default() };
    let mut unmatched = BTreeSet::new();
    for ((_, _, name), rows) in &mut data.kernels {
        match find(name, &by_full, &by_base, &mut join) {
            Some((durations, idle)) => {
                rows.durations = durations.clone();
                rows.idle = idle.clone();
                join.matched += 1;
            }
            None => {
                unmatched.insert(name.clone());
            }
        }
    }
    join.unmatched = unmatched.into_iter().collect();
    join
}

/// The most specific match first: the full name, then the base name where it is one
/// signature's. A match by base name, or an ambiguity, is recorded in `join`.
fn find<'t>(
    name: &str,
    by_full: &'t BTreeMap<String, Times>,
    by_base: &BTreeMap<&str, Vec<&str>>,
    join: &mut Join,
) -> Option<&'t Times> {
    let full = full_name(name);
    if let Some(times) = by_full.get(&full) {
        return Some(times);
    }
    match by_base.get(base_name(&full)).map(Vec::as_slice) {
        Some([only]) => {
            join.by_base_name.push((name.to_owned(), (*only).to_owned()));
            by_full.get(*only)
        }
        Some(several) => {
            let signatures = several.iter().map(|s| (*s).to_owned()).collect();
            if !join.ambiguous.iter().any(|(n, _)| n == name) {
                join.ambiguous.push((name.to_owned(), signatures));
            }
            None
        }
        None => None,
    }
}

/// Names listed in a note before the rest are only counted.
const LISTED: usize = 10;

impl Join {
    /// What the report says of it: how many matched, how, and which did not.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = vec![format!(
            "dispatch times of {} of {} kernels from {}, matched by name (demangled, without .kd suffixes)",
            self.matched, self.kernels, self.from
        )];
        for (name, signature) in &self.by_base_name {
            notes.push(format!(
                "{name}: matched by its base name alone to {signature}, the only kernel of that name there"
            ));
        }
        for (name, signatures) in &self.ambiguous {
            notes.push(format!(
                "{name}: not merged, its base name is that of {} kernels there ({}); it has no dispatch times",
                signatures.len(),
                signatures.join("; ")
            ));
        }
        let missing: Vec<&str> = self
            .unmatched
            .iter()
            .filter(|n| !self.ambiguous.iter().any(|(a, _)| a == *n))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            let more = missing.len().saturating_sub(LISTED);
            let listed = missing[..missing.len().min(LISTED)].join("; ");
            let more = if more > 0 { format!("; and {more} more") } else { String::new() };
            notes.push(format!(
                "no dispatch times for {} kernels, not in {}: {listed}{more}",
                missing.len(),
                self.from
            ));
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::dataset::KernelRows;

    fn rows(durations: &[u64]) -> KernelRows {
        let mut rows = KernelRows::default();
        durations.iter().for_each(|&d| rows.durations.add(d));
        rows
    }

    fn dataset(kernels: &[(&str, &[u64])]) -> Dataset {
        let mut data = Dataset::default();
        for (i, (name, durations)) in kernels.iter().enumerate() {
            data.kernels.insert((1, i as u64, (*name).to_owned()), rows(durations));
        }
        data
    }

    /// The spellings of rocprofiler-compute's vcopy workloads (tests/fixtures/analysis-real):
    /// rocprof v1 on MI200, rocprofv2 on MI300X, rocprofv3, `--truncate-kernels`, the symbol.
    #[test]
    fn every_spelling_of_a_kernel_has_one_full_name() {
        let signature = "vecCopy(double*, double*, double*, int, int)";
        for spelling in [
            format!("{signature} [clone .kd]"),
            format!("{signature} (.kd)"),
            signature.to_owned(),
            "_Z7vecCopyPdS_S_ii".to_owned(),
            "_Z7vecCopyPdS_S_ii.kd".to_owned(),
        ] {
            assert_eq!(full_name(&spelling), signature, "{spelling}");
        }
        assert_eq!(base_name(signature), "vecCopy");
        assert_eq!(full_name("vecCopy"), "vecCopy");
    }

    #[test]
    fn the_full_name_first_then_a_unique_base_name() {
        let other = dataset(&[("f(int) [clone .kd]", &[10, 20]), ("g(float)", &[5])]);
        let mut data = dataset(&[("f(int) (.kd)", &[0]), ("g", &[0]), ("h(int)", &[0])]);
        let j = join(&mut data, &other, Path::new("timed"));
        assert_eq!((j.matched, j.kernels), (2, 3));
        assert_eq!(j.by_base_name, vec![("g".to_owned(), "g(float)".to_owned())]);
        assert_eq!(j.unmatched, vec!["h(int)".to_owned()]);
        let f = &data.kernels[&(1, 0, "f(int) (.kd)".to_owned())];
        assert_eq!((f.durations.count, f.durations.sum), (2, 30));
        let notes = j.notes();
        assert!(notes[0].starts_with("dispatch times of 2 of 3 kernels from timed"));
        assert!(notes.iter().any(|n| n.starts_with("no dispatch times for 1 kernels, not in timed: h(int)")));
    }

    /// Two overloads with one base name: a kernel known only by that base name gets neither.
    #[test]
    fn an_ambiguous_base_name_is_not_merged() {
        let other = dataset(&[("f(int)", &[10]), ("f(float)", &[20])]);
        let mut data = dataset(&[("f", &[0]), ("f(float) [clone .kd]", &[0])]);
        let j = join(&mut data, &other, Path::new("timed"));
        assert_eq!(j.matched, 1);
        assert_eq!(j.unmatched, vec!["f".to_owned()]);
        assert_eq!(j.ambiguous, vec![("f".to_owned(), vec!["f(float)".to_owned(), "f(int)".to_owned()])]);
        assert_eq!(data.kernels[&(1, 0, "f".to_owned())].durations.sum, 0);
        assert_eq!(data.kernels[&(1, 1, "f(float) [clone .kd]".to_owned())].durations.sum, 20);
        let notes = j.notes();
        assert!(notes.iter().any(|n| n.starts_with("f: not merged") && n.contains("f(float); f(int)")), "{notes:?}");
        assert!(!notes.iter().any(|n| n.starts_with("no dispatch times")), "said once, as ambiguous: {notes:?}");
    }
}
