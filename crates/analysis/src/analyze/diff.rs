//! Two runs compared kernel by kernel: the change in time, how sure we are of it, and the
//! kernels one run has and the other does not.
//!
//! GPU timings are skewed and have outliers, so the change is the ratio of medians and the
//! confidence comes from a rank test, not from means: the Mann-Whitney U test over each
//! kernel's per-dispatch durations, with ties counted within the histogram buckets the stats
//! keep (1/256 wide). Both come from [`Summary`]s, so a diff of traces of any length runs in
//! constant memory per kernel. A kernel regresses when it is slower by more than the threshold
//! and the test is confident at the level asked for; a change under the threshold is noise by
//! definition, however sure the test is of it.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::stats::summary::Summary;

/// What counts as a change.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The relative change in median beyond which a kernel has changed (0.02: 2 %).
    pub threshold: f64,
    /// The confidence the rank test must reach (0.99: p < 0.01).
    pub confidence: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options { threshold: 0.02, confidence: 0.99 }
    }
}

/// A kernel's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Regressed,
    Improved,
    Unchanged,
    /// In B only.
    New,
    /// In A only.
    Missing,
}

/// One kernel in both runs.
#[derive(Debug, Clone, Serialize)]
pub struct KernelDiff {
    pub name: String,
    pub verdict: Verdict,
    pub calls_a: u64,
    pub calls_b: u64,
    pub median_a_ns: u64,
    pub median_b_ns: u64,
    pub total_a_ns: u128,
    pub total_b_ns: u128,
    /// median B / median A − 1.
    pub change: Option<f64>,
    /// 1 − the rank test's two-sided p-value.
    pub confidence: Option<f64>,
}

/// The comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub threshold: f64,
    pub confidence: f64,
    /// Every kernel: regressions first, largest change first.
    pub kernels: Vec<KernelDiff>,
    pub total_a_ns: u128,
    pub total_b_ns: u128,
}

impl Report {
    pub fn regressions(&self) -> impl Iterator<Item = &KernelDiff> {
        self.kernels.iter().filter(|k| k.verdict == Verdict::Regressed)
    }
}

/// Compares run A's kernels with run B's.
pub fn compare(a: &HashMap<String, Summary>, b: &HashMap<String, Summary>, options: Options) -> Report {
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut kernels: Vec<KernelDiff> = names
        .into_iter()
        .map(|name| {
            let (sa, sb) = (a.get(name), b.get(name));
            let empty = Summary::default();
            let (x, y) = (sa.unwrap_or(&empty), sb.unwrap_or(&empty));
            let (change, confidence, verdict) = match (sa, sb) {
                (Some(x), Some(y)) if x.count > 0 && y.count > 0 => {
                    let change = y.quantile(0.5) as f64 / (x.quantile(0.5) as f64).max(1.0) - 1.0;
                    let confidence = 1.0 - mann_whitney_p(x, y);
                    let sure = confidence >= options.confidence;
                    let verdict = if sure && change > options.threshold {
                        Verdict::Regressed
                    } else if sure && change < -options.threshold {
                        Verdict::Improved
                    } else {
                        Verdict::Unchanged
                    };
                    (Some(change), Some(confidence), verdict)
                }
                (Some(_), _) => (None, None, Verdict::Missing),
                _ => (None, None, Verdict::New),
            };
            KernelDiff {
                name: name.clone(),
                verdict,
                calls_a: x.count,
                calls_b: y.count,
                median_a_ns: x.quantile(0.5),
                median_b_ns: y.quantile(0.5),
                total_a_ns: x.sum,
                total_b_ns: y.sum,
                change,
                confidence,
            }
        })
        .collect();
    let rank = |v: Verdict| match v {
        Verdict::Regressed => 0,
        Verdict::New => 1,
        Verdict::Missing => 2,
        Verdict::Improved => 3,
        Verdict::Unchanged => 4,
    };
    kernels.sort_by(|p, q| {
        rank(p.verdict)
            .cmp(&rank(q.verdict))
            .then(q.change.unwrap_or(0.0).abs().total_cmp(&p.change.unwrap_or(0.0).abs()))
    });
    Report {
        threshold: options.threshold,
        confidence: options.confidence,
        total_a_ns: a.values().map(|s| s.sum).sum(),
        total_b_ns: b.values().map(|s| s.sum).sum(),
        kernels,
    }
}

/// The two-sided p-value of the Mann-Whitney U test of `a` against `b`, by the normal
/// approximation with the tie correction (durations in one histogram bucket are ties).
pub fn mann_whitney_p(a: &Summary, b: &Summary) -> f64 {
    let (n1, n2) = (a.count as f64, b.count as f64);
    if n1 == 0.0 || n2 == 0.0 {
        return 1.0;
    }
    let n = n1 + n2;
    // Walk both histograms in step: U counts, for each of A's durations, B's below it, and
    // half of B's tied with it.
    let (mut ia, mut ib) = (a.buckets().peekable(), b.buckets().peekable());
    let (mut u, mut b_below, mut ties) = (0.0f64, 0.0f64, 0.0f64);
    loop {
        let key = match (ia.peek(), ib.peek()) {
            (Some(&(x, _)), Some(&(y, _))) => x.min(y),
            (Some(&(x, _)), None) => x,
            (None, Some(&(y, _))) => y,
            (None, None) => break,
        };
        let ca = ia.next_if(|&(k, _)| k == key).map_or(0.0, |(_, c)| c as f64);
        let cb = ib.next_if(|&(k, _)| k == key).map_or(0.0, |(_, c)| c as f64);
        u += ca * (b_below + cb / 2.0);
        b_below += cb;
        let t = ca + cb;
        ties += t * t * t - t;
    }
    let mean = n1 * n2 / 2.0;
    let variance = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if variance <= 0.0 {
        return 1.0;
    }
    let z = (u - mean).abs() / variance.sqrt();
    erfc(z / std::f64::consts::SQRT_2).clamp(0.0, 1.0)
}

/// The complementary error function, to 1.2e-7 everywhere (Numerical Recipes' erfcc, a
/// Chebyshev fit).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// A run that cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{0}: not a directory (give the directory a run or an import wrote)")]
    NotADirectory(String),
    #[error("{0}: no kernel_dispatch table")]
    NoKernelTable(String),
    #[error(transparent)]
    Files(#[from] rocprof_rs_format::Error),
    #[error(transparent)]
    Dataset(#[from] crate::Error),
}

/// A run's kernels by name, as `diff` compares them (only process `pid`, where given).
pub fn read_run(dir: &std::path::Path, pid: Option<u32>) -> Result<crate::stats::scan::ByName, InputError> {
    if !dir.is_dir() {
        return Err(InputError::NotADirectory(dir.display().to_string()));
    }
    let files = rocprof_rs_format::dataset::table_files(dir, rocprof_rs_format::Table::KernelDispatch)?;
    if files.is_empty() {
        return Err(InputError::NoKernelTable(dir.display().to_string()));
    }
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    Ok(crate::stats::scan::summarise(&files, "kernel_name", pid, threads)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::noise::Noise;

    /// `n` dispatches of a kernel whose median is `median_ns`, with GPU-like noise: 10 %
    /// log-normal jitter and 2 % of dispatches delayed by up to 3×.
    fn kernel(noise: &mut Noise, n: usize, median_ns: f64) -> Summary {
        let mut s = Summary::default();
        for _ in 0..n {
            let mut t = median_ns * (0.1 * noise.normal()).exp();
            if noise.next() < 0.02 {
                t *= 1.0 + 2.0 * noise.next();
            }
            s.add(t as u64);
        }
        s
    }

    fn runs(seed: u64, change: f64) -> (HashMap<String, Summary>, HashMap<String, Summary>) {
        let mut noise = Noise(seed);
        let a = HashMap::from([("gemm".to_owned(), kernel(&mut noise, 1000, 50_000.0))]);
        let b = HashMap::from([("gemm".to_owned(), kernel(&mut noise, 1000, 50_000.0 * (1.0 + change)))]);
        (a, b)
    }

    #[test]
    fn a_5_percent_regression_over_1000_noisy_samples_is_found() {
        for seed in 1..=20 {
            let (a, b) = runs(seed, 0.05);
            let report = compare(&a, &b, Options::default());
            let k = &report.kernels[0];
            assert_eq!(k.verdict, Verdict::Regressed, "seed {seed}: {k:?}");
            assert!((k.change.unwrap() - 0.05).abs() < 0.015, "seed {seed}: {k:?}");
            assert!(k.confidence.unwrap() > 0.999);
        }
    }

    #[test]
    fn no_change_is_reported_as_none() {
        for seed in 1..=20 {
            let (a, b) = runs(seed, 0.0);
            let report = compare(&a, &b, Options::default());
            assert_eq!(report.regressions().count(), 0, "seed {seed}: {:?}", report.kernels[0]);
            assert_eq!(report.kernels[0].verdict, Verdict::Unchanged);
        }
    }

    #[test]
    fn improvements_new_and_missing_kernels() {
        let mut noise = Noise(7);
        let a = HashMap::from([
            ("k".to_owned(), kernel(&mut noise, 500, 10_000.0)),
            ("gone".to_owned(), kernel(&mut noise, 10, 10_000.0)),
        ]);
        let b = HashMap::from([
            ("k".to_owned(), kernel(&mut noise, 500, 8_000.0)),
            ("fresh".to_owned(), kernel(&mut noise, 10, 10_000.0)),
        ]);
        let report = compare(&a, &b, Options::default());
        let verdict = |name: &str| report.kernels.iter().find(|k| k.name == name).unwrap().verdict;
        assert_eq!(verdict("k"), Verdict::Improved);
        assert_eq!(verdict("gone"), Verdict::Missing);
        assert_eq!(verdict("fresh"), Verdict::New);
        assert_eq!(report.kernels[0].verdict, Verdict::New, "new kernels lead, after regressions");
    }

    /// Small samples against the exact U distribution: A = {1, 2, 3}, B = {4, 5, 6} gives
    /// U = 0, z = 1.964 (σ² = 5.25), two-sided p = 0.0495.
    #[test]
    fn the_rank_test_against_a_hand_computed_case() {
        let (mut a, mut b) = (Summary::default(), Summary::default());
        for v in [1, 2, 3] {
            a.add(v);
        }
        for v in [4, 5, 6] {
            b.add(v);
        }
        let p = mann_whitney_p(&a, &b);
        assert!((p - 0.0495).abs() < 5e-4, "{p}");
        assert!((mann_whitney_p(&a, &a) - 1.0).abs() < 1e-6, "identical samples");
    }

    #[test]
    fn erfc_matches_known_values() {
        for (x, want) in
            [(0.0, 1.0), (0.5, 0.479_500_122), (1.0, 0.157_299_207), (2.0, 0.004_677_735), (-1.0, 1.842_700_793)]
        {
            assert!((erfc(x) - want).abs() < 2e-7, "erfc({x}) = {}", erfc(x));
        }
    }
}
