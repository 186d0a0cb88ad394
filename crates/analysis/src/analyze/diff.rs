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

use serde::Serialize;

use crate::spill::{Key, Sorted, Sorter};
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Report {
    pub threshold: f64,
    pub confidence: f64,
    /// Every kernel: regressions first, largest change first.
    pub kernels: Kernels,
    pub total_a_ns: u128,
    pub total_b_ns: u128,
    /// What a reader must know: names cut to their prefix and hash ([`crate::names`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Report {
    /// How many kernels regressed.
    pub fn regressions(&self) -> usize {
        self.kernels.regressed
    }
}

/// Every kernel's verdict in the report's order, in memory or in an external sort's runs
/// ([`crate::spill`]): read them with [`Kernels::for_each`], as many times as needed.
pub struct Kernels {
    sorted: Sorted,
    len: usize,
    regressed: usize,
}

impl std::fmt::Debug for Kernels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Kernels({} in {:?})", self.len, self.sorted)
    }
}

impl Kernels {
    /// How many kernels the runs have between them.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether neither run has a kernel.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Hands each kernel to `f`, in the report's order, until it returns false.
    pub fn for_each<E: From<crate::Error>>(
        &self,
        mut f: impl FnMut(KernelDiff) -> std::result::Result<bool, E>,
    ) -> std::result::Result<(), E> {
        let mut reader = self.sorted.reader()?;
        while let Some((_, value)) = reader.next()? {
            let kernel = KernelDiff::decode(value).ok_or_else(|| {
                crate::Error::Invalid("diff: a kernel did not come back from the external sort".into())
            })?;
            if !f(kernel)? {
                break;
            }
        }
        Ok(())
    }

    /// The first `n` kernels, in memory.
    pub fn first(&self, n: usize) -> crate::Result<Vec<KernelDiff>> {
        let mut out = Vec::with_capacity(n.min(self.len));
        self.for_each(|k| {
            if out.len() < n {
                out.push(k);
            }
            Ok::<bool, crate::Error>(out.len() < n)
        })?;
        Ok(out)
    }

    /// Every kernel, in memory: for tests and small runs.
    pub fn to_vec(&self) -> crate::Result<Vec<KernelDiff>> {
        self.first(self.len)
    }
}

impl Serialize for Kernels {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeSeq};
        let mut seq = serializer.serialize_seq(Some(self.len))?;
        let mut failed = None;
        let read = self.for_each(|kernel| match seq.serialize_element(&kernel) {
            Ok(()) => Ok(true),
            Err(e) => {
                failed = Some(e);
                Ok::<bool, crate::Error>(false)
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        read.map_err(S::Error::custom)?;
        seq.end()
    }
}

/// Serialised as the list of its kernels.
impl schemars::JsonSchema for Kernels {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "KernelDiffs".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Vec::<KernelDiff>::json_schema(generator)
    }
}

impl KernelDiff {
    fn encode(&self, out: &mut Vec<u8>) {
        let verdict = match self.verdict {
            Verdict::Regressed => 0u8,
            Verdict::New => 1,
            Verdict::Missing => 2,
            Verdict::Improved => 3,
            Verdict::Unchanged => 4,
        };
        out.push(verdict);
        for field in [self.calls_a, self.calls_b, self.median_a_ns, self.median_b_ns] {
            out.extend_from_slice(&field.to_le_bytes());
        }
        for field in [self.total_a_ns, self.total_b_ns] {
            out.extend_from_slice(&field.to_le_bytes());
        }
        for field in [self.change, self.confidence] {
            out.push(u8::from(field.is_some()));
            out.extend_from_slice(&field.unwrap_or(0.0).to_bits().to_le_bytes());
        }
        out.extend_from_slice(self.name.as_bytes());
    }

    fn decode(bytes: &[u8]) -> Option<KernelDiff> {
        const FIXED: usize = 1 + 4 * 8 + 2 * 16 + 2 * 9;
        let fixed = bytes.get(..FIXED)?;
        let verdict = match fixed[0] {
            0 => Verdict::Regressed,
            1 => Verdict::New,
            2 => Verdict::Missing,
            3 => Verdict::Improved,
            4 => Verdict::Unchanged,
            _ => return None,
        };
        let u64_at = |at: usize| u64::from_le_bytes(fixed[at..at + 8].try_into().expect("8 bytes"));
        let u128_at = |at: usize| u128::from_le_bytes(fixed[at..at + 16].try_into().expect("16 bytes"));
        let f64_at = |at: usize| (fixed[at] == 1).then(|| f64::from_bits(u64_at(at + 1)));
        Some(KernelDiff {
            name: std::str::from_utf8(&bytes[FIXED..]).ok()?.to_owned(),
            verdict,
            calls_a: u64_at(1),
            calls_b: u64_at(9),
            median_a_ns: u64_at(17),
            median_b_ns: u64_at(25),
            total_a_ns: u128_at(33),
            total_b_ns: u128_at(49),
            change: f64_at(65),
            confidence: f64_at(74),
        })
    }
}

/// One run's kernels by name, as [`read_run`] reads them: summaries in name order, in memory or
/// in an external sort's runs.
pub struct Run {
    sorted: Sorted,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Run({:?})", self.sorted)
    }
}

impl Run {
    /// A run of the given kernels (for tests and callers that hold summaries already).
    pub fn from_summaries<'a>(kernels: impl IntoIterator<Item = (&'a str, &'a Summary)>) -> crate::Result<Run> {
        let mut sorter = Sorter::with_budget(crate::spill::share(8));
        let mut bytes = Vec::new();
        for (name, summary) in kernels {
            bytes.clear();
            summary.encode(&mut bytes);
            sorter.push(name.as_bytes(), &bytes)?;
        }
        Ok(Run { sorted: sorter.finish()? })
    }
}

/// The next (name, summary) of a run's reader.
fn next_kernel(reader: &mut crate::spill::Reader<'_>) -> crate::Result<Option<(String, Summary)>> {
    let broken = || crate::Error::Invalid("diff: a kernel's summary did not come back from the external sort".into());
    let Some((name, summary)) = reader.next()? else { return Ok(None) };
    let name = std::str::from_utf8(name).map_err(|_| broken())?.to_owned();
    Ok(Some((name, Summary::decode(summary).ok_or_else(broken)?)))
}

/// Compares run A's kernels with run B's. Both are read in name order side by side, and the
/// verdicts go through an external sort into the report's order: memory stays within
/// `--memory` whatever the number of kernels.
pub fn compare(a: &Run, b: &Run, options: Options) -> crate::Result<Report> {
    let (mut ra, mut rb) = (a.sorted.reader()?, b.sorted.reader()?);
    let (mut next_a, mut next_b) = (next_kernel(&mut ra)?, next_kernel(&mut rb)?);
    let mut sorter = Sorter::with_budget(crate::spill::share(4));
    let (mut total_a_ns, mut total_b_ns, mut len, mut regressed, mut cut) = (0u128, 0u128, 0usize, 0usize, 0u64);
    let mut bytes = Vec::new();
    loop {
        let (name, sa, sb) = match (&next_a, &next_b) {
            (None, None) => break,
            (Some((x, _)), Some((y, _))) if x == y => {
                let (name, sa) = next_a.take().expect("matched");
                let (_, sb) = next_b.take().expect("matched");
                (name, Some(sa), Some(sb))
            }
            (Some((x, _)), Some((y, _))) if x > y => {
                let (name, sb) = next_b.take().expect("matched");
                (name, None, Some(sb))
            }
            (Some(_), _) => {
                let (name, sa) = next_a.take().expect("matched");
                (name, Some(sa), None)
            }
            (None, Some(_)) => {
                let (name, sb) = next_b.take().expect("matched");
                (name, None, Some(sb))
            }
        };
        if next_a.is_none() {
            next_a = next_kernel(&mut ra)?;
        }
        if next_b.is_none() {
            next_b = next_kernel(&mut rb)?;
        }
        let kernel = kernel_diff(name, sa.as_ref(), sb.as_ref(), options);
        total_a_ns += sa.as_ref().map_or(0, |s| s.sum);
        total_b_ns += sb.as_ref().map_or(0, |s| s.sum);
        len += 1;
        regressed += usize::from(kernel.verdict == Verdict::Regressed);
        cut += u64::from(crate::names::is_cut(&kernel.name));
        bytes.clear();
        kernel.encode(&mut bytes);
        // Regressions first, then new, missing, improved and unchanged; in each, the largest
        // change first; among equal changes, name order (the order they arrive in).
        let change = kernel.change.unwrap_or(0.0).abs();
        sorter.push(&Key::new().u64(u64::from(bytes[0])).u64(u64::MAX - change.to_bits()).0, &bytes)?;
    }
    Ok(Report {
        threshold: options.threshold,
        confidence: options.confidence,
        kernels: Kernels { sorted: sorter.finish()?, len, regressed },
        total_a_ns,
        total_b_ns,
        notes: if cut > 0 { vec![crate::names::cut_note(cut)] } else { Vec::new() },
    })
}

/// One kernel's verdict from its summaries in A and in B (either may be missing).
fn kernel_diff(name: String, sa: Option<&Summary>, sb: Option<&Summary>, options: Options) -> KernelDiff {
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
        name,
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

/// A run's kernels by name, as `diff` compares them (only process `pid`, where given), in
/// bounded memory: their summaries go through an external sort beyond an eighth of `--memory`.
pub fn read_run(dir: &std::path::Path, pid: Option<u32>) -> Result<Run, InputError> {
    if !dir.is_dir() {
        return Err(InputError::NotADirectory(dir.display().to_string()));
    }
    let files = rocprof_rs_format::dataset::table_files(dir, rocprof_rs_format::Table::KernelDispatch)?;
    if files.is_empty() {
        return Err(InputError::NoKernelTable(dir.display().to_string()));
    }
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut sorter = Sorter::with_budget(crate::spill::share(8));
    let mut bytes = Vec::new();
    crate::stats::scan::summarise_each(&files, "kernel_name", pid, threads, |name, summary| {
        bytes.clear();
        summary.encode(&mut bytes);
        sorter.push(name.as_bytes(), &bytes)
    })?;
    Ok(Run { sorted: sorter.finish()? })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::noise::Noise;
    use std::collections::HashMap;

    /// The report of runs A and B given as summaries by name, and its kernels in order.
    fn compare_maps(a: &HashMap<String, Summary>, b: &HashMap<String, Summary>) -> (Report, Vec<KernelDiff>) {
        let run = |m: &HashMap<String, Summary>| Run::from_summaries(m.iter().map(|(k, v)| (k.as_str(), v))).unwrap();
        let report = compare(&run(a), &run(b), Options::default()).unwrap();
        let kernels = report.kernels.to_vec().unwrap();
        (report, kernels)
    }

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
            let (_, kernels) = compare_maps(&a, &b);
            let k = &kernels[0];
            assert_eq!(k.verdict, Verdict::Regressed, "seed {seed}: {k:?}");
            assert!((k.change.unwrap() - 0.05).abs() < 0.015, "seed {seed}: {k:?}");
            assert!(k.confidence.unwrap() > 0.999);
        }
    }

    #[test]
    fn no_change_is_reported_as_none() {
        for seed in 1..=20 {
            let (a, b) = runs(seed, 0.0);
            let (report, kernels) = compare_maps(&a, &b);
            assert_eq!(report.regressions(), 0, "seed {seed}: {:?}", kernels[0]);
            assert_eq!(kernels[0].verdict, Verdict::Unchanged);
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
        let (_, kernels) = compare_maps(&a, &b);
        let verdict = |name: &str| kernels.iter().find(|k| k.name == name).unwrap().verdict;
        assert_eq!(verdict("k"), Verdict::Improved);
        assert_eq!(verdict("gone"), Verdict::Missing);
        assert_eq!(verdict("fresh"), Verdict::New);
        assert_eq!(kernels[0].verdict, Verdict::New, "new kernels lead, after regressions");
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
