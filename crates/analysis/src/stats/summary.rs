//! One name's durations, summarised in bounded memory: count, sum, sum of squares (integers,
//! 256 bits wide, so the variance is exact for any durations and summaries merge across threads
//! in any order), min, max, and a log-linear histogram for percentiles.
//!
//! Percentiles come from the histogram, so they hold for traces of any length; each is the
//! midpoint of its bucket, within 1/512 (0.2 %) of a duration that occurred. Everything
//! rocprofv3's stats files carry is exact.
//!
//! The histogram is sparse while a name has few distinct buckets (a marker named `step 123`
//! occurs once): at most [`SPARSE_BUCKETS`] pairs, about 100 bytes for a name seen once, where
//! a dense histogram costs kilobytes. Beyond, it turns dense, as fast to add to as an array.
//! Either form gives the same buckets, so the percentiles do not depend on which is used.

use crate::grouped::Partial;

/// Sub-buckets per power of two: relative bucket width 1/256.
const SUB_BITS: u32 = 8;
const SUB: usize = 1 << SUB_BITS;

/// Distinct buckets a sparse histogram holds before it turns dense.
pub const SPARSE_BUCKETS: usize = 24;

/// A bucket: values 0..SUB are their own buckets; above, `SUB` per power of two.
type Bucket = u16;

fn bucket_of(value: u64) -> Bucket {
    if value < SUB as u64 {
        return value as Bucket;
    }
    let exponent = 63 - value.leading_zeros();
    let sub = ((value >> (exponent - SUB_BITS)) as usize) & (SUB - 1);
    (SUB + (exponent - SUB_BITS) as usize * SUB + sub) as Bucket
}

/// A bucket's lowest duration and its width.
fn range_of(bucket: Bucket) -> (u64, u64) {
    let bucket = bucket as usize;
    if bucket < SUB {
        return (bucket as u64, 1);
    }
    let exponent = ((bucket - SUB) / SUB) as u32 + SUB_BITS;
    let sub = ((bucket - SUB) % SUB) as u64;
    let width = 1u64 << (exponent - SUB_BITS);
    ((1u64 << exponent) + sub * width, width)
}

/// A bucket's range, if the bucket is one [`bucket_of`] can give.
fn range_of_checked(bucket: Bucket) -> Option<(u64, u64)> {
    ((bucket as usize) < SUB + (64 - SUB_BITS as usize) * SUB).then(|| range_of(bucket))
}

/// Counts per bucket.
#[derive(Debug, Clone)]
enum Histogram {
    /// (bucket, count) pairs, unordered, at most [`SPARSE_BUCKETS`].
    Sparse(Vec<(Bucket, u64)>),
    /// Every bucket: the `SUB` small ones, then one array per power of two, made when used.
    Dense(Box<[u64; SUB]>, Vec<Option<Box<[u64; SUB]>>>),
}

impl Histogram {
    #[inline]
    fn bump(&mut self, bucket: Bucket, n: u64) {
        match self {
            Histogram::Dense(small, powers) => {
                let b = bucket as usize;
                if b < SUB {
                    small[b] += n;
                } else {
                    powers[(b - SUB) / SUB].get_or_insert_with(|| Box::new([0; SUB]))[(b - SUB) % SUB] += n;
                }
            }
            Histogram::Sparse(pairs) => {
                if let Some(pair) = pairs.iter_mut().find(|(b, _)| *b == bucket) {
                    pair.1 += n;
                } else if pairs.len() < SPARSE_BUCKETS {
                    pairs.push((bucket, n));
                } else {
                    self.make_dense();
                    self.bump(bucket, n);
                }
            }
        }
    }

    #[cold]
    fn make_dense(&mut self) {
        let mut dense = Histogram::Dense(Box::new([0; SUB]), vec![None; 64 - SUB_BITS as usize]);
        if let Histogram::Sparse(pairs) = self {
            for &(bucket, n) in pairs.iter() {
                dense.bump(bucket, n);
            }
        }
        *self = dense;
    }

    /// Every non-empty bucket with its count, in ascending order.
    fn ascending(&self) -> Vec<(Bucket, u64)> {
        match self {
            Histogram::Sparse(pairs) => {
                let mut sorted = pairs.clone();
                sorted.sort_unstable_by_key(|&(b, _)| b);
                sorted
            }
            Histogram::Dense(small, powers) => {
                let small = small.iter().enumerate().map(|(b, &n)| (b as Bucket, n));
                let large = powers.iter().enumerate().flat_map(|(power, counts)| {
                    counts.iter().flat_map(move |counts| {
                        counts.iter().enumerate().map(move |(sub, &n)| ((SUB + power * SUB + sub) as Bucket, n))
                    })
                });
                small.chain(large).filter(|&(_, n)| n > 0).collect()
            }
        }
    }
}

/// An unsigned 256-bit integer: `n Σx²` and `(Σx)²` of up to 2^64 durations of up to 2^64 ns
/// each fit it, so the variance is exact however long the durations (a `u128` sum of squares
/// saturated after four durations near `i64::MAX`, and the variance then read 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct U256 {
    high: u128,
    low: u128,
}

impl U256 {
    /// `a * b`, in full.
    fn product(a: u128, b: u128) -> U256 {
        const HALF: u32 = 64;
        let mask = u128::from(u64::MAX);
        let (a1, a0, b1, b0) = (a >> HALF, a & mask, b >> HALF, b & mask);
        let (cross1, cross2) = (a0 * b1, a1 * b0);
        let (low, carry1) = (a0 * b0).overflowing_add(cross1 << HALF);
        let (low, carry2) = low.overflowing_add(cross2 << HALF);
        let high = a1 * b1 + (cross1 >> HALF) + (cross2 >> HALF) + u128::from(carry1) + u128::from(carry2);
        U256 { high, low }
    }

    /// `self + other`, saturating (no sum of 2^64 squares reaches it).
    fn plus(self, other: U256) -> U256 {
        let (low, carry) = self.low.overflowing_add(other.low);
        match self.high.checked_add(other.high).and_then(|h| h.checked_add(u128::from(carry))) {
            Some(high) => U256 { high, low },
            None => U256 { high: u128::MAX, low: u128::MAX },
        }
    }

    /// `self * n`, saturating.
    fn times(self, n: u64) -> U256 {
        let low = U256::product(self.low, u128::from(n));
        match self.high.checked_mul(u128::from(n)).and_then(|h| h.checked_add(low.high)) {
            Some(high) => U256 { high, low: low.low },
            None => U256 { high: u128::MAX, low: u128::MAX },
        }
    }

    /// `self - other`, or 0 below it.
    fn minus(self, other: U256) -> U256 {
        if self <= other {
            return U256::default();
        }
        let (low, borrow) = self.low.overflowing_sub(other.low);
        U256 { high: self.high - other.high - u128::from(borrow), low }
    }

    fn to_f64(self) -> f64 {
        self.high as f64 * 2f64.powi(128) + self.low as f64
    }
}

/// The summary of one name.
#[derive(Debug, Clone)]
pub struct Summary {
    pub count: u64,
    pub sum: u128,
    pub min: u64,
    pub max: u64,
    sum_squares: U256,
    histogram: Histogram,
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            count: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
            sum_squares: U256::default(),
            histogram: Histogram::Sparse(Vec::new()),
        }
    }
}

impl Summary {
    /// Adds one duration.
    #[inline]
    pub fn add(&mut self, value: u64) {
        self.count += 1;
        self.sum += u128::from(value);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        let square = u128::from(value) * u128::from(value);
        self.sum_squares = self.sum_squares.plus(U256 { high: 0, low: square });
        self.histogram.bump(bucket_of(value), 1);
    }

    /// Folds `other` in.
    pub fn merge(&mut self, other: &Summary) {
        if other.count == 0 {
            return;
        }
        self.sum_squares = self.sum_squares.plus(other.sum_squares);
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        if let (Histogram::Dense(small, powers), Histogram::Dense(other_small, other_powers)) =
            (&mut self.histogram, &other.histogram)
        {
            // Array by array: merging dense histograms is what a spilled or row-group summary
            // does most.
            small.iter_mut().zip(other_small.iter()).for_each(|(a, b)| *a += b);
            for (mine, theirs) in powers.iter_mut().zip(other_powers) {
                if let Some(theirs) = theirs {
                    let mine = mine.get_or_insert_with(|| Box::new([0; SUB]));
                    mine.iter_mut().zip(theirs.iter()).for_each(|(a, b)| *a += b);
                }
            }
            return;
        }
        for (bucket, n) in other.histogram.ascending() {
            self.histogram.bump(bucket, n);
        }
    }

    /// Whether the histogram is dense (kilobytes, where a sparse one is about a hundred bytes).
    pub fn is_dense(&self) -> bool {
        matches!(self.histogram, Histogram::Dense(..))
    }

    /// About the bytes this summary holds on the heap (with the allocator's header on each
    /// block), for callers that bound their memory.
    pub fn footprint(&self) -> usize {
        const HEADER: usize = 16;
        match &self.histogram {
            Histogram::Sparse(pairs) if pairs.capacity() == 0 => 0,
            Histogram::Sparse(pairs) => pairs.capacity() * std::mem::size_of::<(Bucket, u64)>() + HEADER,
            Histogram::Dense(_, powers) => {
                (1 + powers.iter().flatten().count()) * (SUB * 8 + HEADER)
                    + powers.len() * std::mem::size_of::<usize>()
                    + HEADER
            }
        }
    }

    /// Appends the summary's bytes, for an external sort to carry; [`Summary::decode`] reads
    /// them back, equal in every figure.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.count.to_le_bytes());
        out.extend_from_slice(&self.sum.to_le_bytes());
        out.extend_from_slice(&self.min.to_le_bytes());
        out.extend_from_slice(&self.max.to_le_bytes());
        out.extend_from_slice(&self.sum_squares.high.to_le_bytes());
        out.extend_from_slice(&self.sum_squares.low.to_le_bytes());
        for (bucket, n) in self.histogram.ascending() {
            out.extend_from_slice(&bucket.to_le_bytes());
            out.extend_from_slice(&n.to_le_bytes());
        }
    }

    /// A summary from [`Summary::encode`]'s bytes; `None` if they are not such bytes.
    pub fn decode(bytes: &[u8]) -> Option<Summary> {
        const FIXED: usize = 8 + 16 + 8 + 8 + 32;
        const PAIR: usize = 2 + 8;
        if bytes.len() < FIXED || !(bytes.len() - FIXED).is_multiple_of(PAIR) {
            return None;
        }
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let u128_at = |at: usize| u128::from_le_bytes(bytes[at..at + 16].try_into().expect("16 bytes"));
        let mut summary = Summary {
            count: u64_at(0),
            sum: u128_at(8),
            min: u64_at(24),
            max: u64_at(32),
            sum_squares: U256 { high: u128_at(40), low: u128_at(56) },
            histogram: Histogram::Sparse(Vec::new()),
        };
        for pair in bytes[FIXED..].chunks_exact(PAIR) {
            let bucket = Bucket::from_le_bytes([pair[0], pair[1]]);
            range_of_checked(bucket)?;
            summary.histogram.bump(bucket, u64::from_le_bytes(pair[2..].try_into().expect("8 bytes")));
        }
        Some(summary)
    }

    /// The mean, as rocprofv3 computes it (sum over count).
    pub fn mean(&self) -> f64 {
        if self.count == 0 { 0.0 } else { self.sum as f64 / self.count as f64 }
    }

    /// n² times the population variance, `n Σx² − (Σx)²`, computed exactly in 256 bits and
    /// rounded once.
    fn scaled_variance(&self) -> f64 {
        self.sum_squares.times(self.count).minus(U256::product(self.sum, self.sum)).to_f64()
    }

    /// The population standard deviation.
    pub fn stddev(&self) -> f64 {
        if self.count < 2 { 0.0 } else { self.scaled_variance().sqrt() / self.count as f64 }
    }

    /// The sample standard deviation (divided by n - 1).
    pub fn sample_stddev(&self) -> f64 {
        if self.count < 2 {
            0.0
        } else {
            (self.scaled_variance() / (self.count as f64 * (self.count - 1) as f64)).sqrt()
        }
    }

    /// Every non-empty bucket in ascending order of duration, as (its lowest duration, its
    /// count): what a rank test needs. Two summaries' buckets of the same lowest duration are
    /// the same range.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.histogram.ascending().into_iter().map(|(bucket, n)| (range_of(bucket).0, n))
    }

    /// The `q`-quantile (0..=1): the smallest bucket whose cumulative count reaches `q`, as its
    /// midpoint, clamped to the observed range.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (bucket, n) in self.histogram.ascending() {
            seen += n;
            if seen >= rank {
                let (low, width) = range_of(bucket);
                return if width == 1 { low } else { (low + width / 2).clamp(self.min, self.max) };
            }
        }
        self.max
    }
}

/// A name's summary is what [`crate::grouped`] folds per key where `analyze` groups kernels.
impl Partial for Summary {
    fn merge(&mut self, later: Self) {
        Summary::merge(self, &later);
    }

    fn encode(&self, out: &mut Vec<u8>) {
        Summary::encode(self, out);
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        Summary::decode(bytes)
    }

    fn footprint(&self) -> usize {
        Summary::footprint(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_moments_and_close_percentiles() {
        let mut s = Summary::default();
        let values: Vec<u64> = (1..=10_000u64).map(|i| i * 1_000).collect();
        for &v in &values {
            s.add(v);
        }
        assert_eq!((s.count, s.sum, s.min, s.max), (10_000, 50_005_000_000, 1_000, 10_000_000));
        assert_eq!(s.mean(), 5_000_500.0);
        let exact = (values.iter().map(|&v| (v as f64 - 5_000_500.0).powi(2)).sum::<f64>() / 10_000.0).sqrt();
        assert!((s.stddev() - exact).abs() / exact < 1e-12);
        for (q, want) in [(0.5, 5_000_000.0), (0.95, 9_500_000.0), (0.99, 9_900_000.0)] {
            let got = s.quantile(q) as f64;
            assert!((got - want).abs() / want < 1.0 / 256.0, "p{q}: {got} vs {want}");
        }
    }

    #[test]
    fn merging_equals_adding_everything_to_one() {
        let (mut a, mut b, mut all) = (Summary::default(), Summary::default(), Summary::default());
        for v in [5u64, 17, 300, 4_000, 65_000, 1 << 40] {
            a.add(v);
            all.add(v);
        }
        for v in [1u64, 2, 900, 77_777] {
            b.add(v);
            all.add(v);
        }
        a.merge(&b);
        assert_eq!((a.count, a.sum, a.min, a.max), (all.count, all.sum, all.min, all.max));
        assert!((a.stddev() - all.stddev()).abs() / all.stddev() < 1e-9);
        assert_eq!(a.quantile(0.5), all.quantile(0.5));
        assert_eq!(a.quantile(0.99), all.quantile(0.99));
    }

    #[test]
    fn buckets_ascend_and_hold_every_duration() {
        let mut s = Summary::default();
        for v in [3u64, 3, 255, 256, 257, 1_000_000, 999_999, 1 << 40] {
            s.add(v);
        }
        let buckets: Vec<(u64, u64)> = s.buckets().collect();
        assert!(buckets.windows(2).all(|w| w[0].0 < w[1].0), "{buckets:?}");
        assert_eq!(buckets.iter().map(|b| b.1).sum::<u64>(), s.count);
        assert_eq!(buckets[0], (3, 2));
    }

    #[test]
    fn sparse_and_dense_histograms_give_the_same_buckets() {
        let values: Vec<u64> = (0..5_000u64).map(|i| (i * 7_919) % 3_000_000 + i % 5).collect();
        let mut dense = Summary::default();
        dense.histogram.make_dense();
        let mut sparse_then_dense = Summary::default();
        for &v in &values {
            dense.add(v);
            sparse_then_dense.add(v);
        }
        assert!(matches!(sparse_then_dense.histogram, Histogram::Dense(..)));
        assert_eq!(dense.buckets().collect::<Vec<_>>(), sparse_then_dense.buckets().collect::<Vec<_>>());
        let mut few = Summary::default();
        let mut few_dense = Summary::default();
        few_dense.histogram.make_dense();
        for v in [5u64, 300, 300, 70_000, 1 << 33] {
            few.add(v);
            few_dense.add(v);
        }
        assert!(matches!(few.histogram, Histogram::Sparse(_)), "a few buckets stay sparse");
        for q in [0.0, 0.2, 0.5, 0.9, 1.0] {
            assert_eq!(few.quantile(q), few_dense.quantile(q), "q {q}");
        }
        assert_eq!(few.buckets().collect::<Vec<_>>(), few_dense.buckets().collect::<Vec<_>>());
    }

    #[test]
    fn a_summary_comes_back_from_its_bytes() {
        for values in [vec![], vec![7u64], (0..5_000u64).map(|i| i * i * 31 + 1).collect::<Vec<_>>()] {
            let mut s = Summary::default();
            values.iter().for_each(|&v| s.add(v));
            let mut bytes = Vec::new();
            s.encode(&mut bytes);
            let back = Summary::decode(&bytes).expect("decodes");
            assert_eq!(
                (back.count, back.sum, back.min, back.max, back.sum_squares),
                (s.count, s.sum, s.min, s.max, s.sum_squares)
            );
            assert_eq!(back.buckets().collect::<Vec<_>>(), s.buckets().collect::<Vec<_>>());
            assert!(Summary::decode(&bytes[..bytes.len() - 1]).is_none());
        }
    }

    #[test]
    fn bucket_ranges_hold_their_values() {
        for v in [0u64, 1, 255, 256, 257, 511, 512, 1_000_000, u64::MAX] {
            let (low, width) = range_of(bucket_of(v));
            assert!(low <= v && v - low < width, "{v}: [{low}, +{width})");
        }
    }

    #[test]
    fn small_values_are_exact() {
        let mut s = Summary::default();
        for v in [0u64, 1, 2, 3, 200] {
            s.add(v);
        }
        assert_eq!(s.quantile(0.5), 2);
        assert_eq!(s.quantile(1.0), 200);
        let mean = 206.0 / 5.0;
        let exact = ([0.0f64, 1.0, 2.0, 3.0, 200.0].iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 5.0).sqrt();
        assert!((s.stddev() - exact).abs() < 1e-9);
    }

    #[test]
    fn the_variance_holds_for_durations_near_the_largest() {
        let mut s = Summary::default();
        let top = i64::MAX as u64;
        for v in [top - 10, top - 1_010, top - 10, top - 1_010] {
            s.add(v);
        }
        assert_eq!(s.stddev(), 500.0, "four squares near 2^126 overflowed 128 bits");
        let mut huge = Summary::default();
        [u64::MAX, 0].iter().for_each(|&v| huge.add(v));
        let exact = u64::MAX as f64 / 2.0;
        assert!((huge.stddev() - exact).abs() / exact < 1e-15, "{}", huge.stddev());
    }

    #[test]
    fn wide_products_are_exact() {
        let max = U256::product(u128::MAX, u128::MAX);
        assert_eq!(max, U256 { high: u128::MAX - 1, low: 1 });
        assert_eq!(U256::product(1 << 64, 1 << 64), U256 { high: 1, low: 0 });
        let big = U256 { high: 3, low: 5 };
        assert_eq!(big.times(7), U256 { high: 21, low: 35 });
        assert_eq!(big.minus(U256 { high: 1, low: 6 }), U256 { high: 1, low: u128::MAX });
        assert_eq!(U256 { high: 0, low: 1 }.minus(big), U256::default());
    }
}
