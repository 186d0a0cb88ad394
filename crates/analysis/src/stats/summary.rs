//! One name's durations, summarised in constant memory: count, sum, sum of squares (integers,
//! so the variance is exact and summaries merge across threads in any order), min, max, and a
//! log-linear histogram for percentiles.
//!
//! Percentiles come from the histogram, so they hold for traces of any length; each is the
//! midpoint of its bucket, within 1/512 (0.2 %) of a duration that occurred. Everything
//! rocprofv3's stats files carry is exact.

/// Sub-buckets per power of two: relative bucket width 1/256.
const SUB_BITS: u32 = 8;
const SUB: usize = 1 << SUB_BITS;

/// The summary of one name.
#[derive(Debug, Clone)]
pub struct Summary {
    pub count: u64,
    pub sum: u128,
    pub min: u64,
    pub max: u64,
    /// Exact while every duration is under about 50 hours (`u128` holds 10^8 squares of
    /// 1.8 * 10^14 ns); saturates beyond.
    sum_squares: u128,
    /// `buckets[e]` covers [2^e, 2^(e+1)) split into `SUB` parts; `small` counts 0..SUB exactly.
    small: Box<[u64; SUB]>,
    buckets: Vec<Option<Box<[u64; SUB]>>>,
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            count: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
            sum_squares: 0,
            small: Box::new([0; SUB]),
            buckets: vec![None; 64],
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
        self.sum_squares = self.sum_squares.saturating_add(u128::from(value) * u128::from(value));
        if value < SUB as u64 {
            self.small[value as usize] += 1;
        } else {
            let exponent = 63 - value.leading_zeros();
            let sub = ((value >> (exponent - SUB_BITS)) as usize) & (SUB - 1);
            self.buckets[exponent as usize].get_or_insert_with(|| Box::new([0; SUB]))[sub] += 1;
        }
    }

    /// Folds `other` in.
    pub fn merge(&mut self, other: &Summary) {
        if other.count == 0 {
            return;
        }
        self.sum_squares = self.sum_squares.saturating_add(other.sum_squares);
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        for (a, b) in self.small.iter_mut().zip(other.small.iter()) {
            *a += b;
        }
        for (mine, theirs) in self.buckets.iter_mut().zip(&other.buckets) {
            if let Some(theirs) = theirs {
                let mine = mine.get_or_insert_with(|| Box::new([0; SUB]));
                for (a, b) in mine.iter_mut().zip(theirs.iter()) {
                    *a += b;
                }
            }
        }
    }

    /// The mean, as rocprofv3 computes it (sum over count).
    pub fn mean(&self) -> f64 {
        if self.count == 0 { 0.0 } else { self.sum as f64 / self.count as f64 }
    }

    /// n² times the population variance, `n Σx² − (Σx)²`, exactly where it fits in 128 bits.
    fn scaled_variance(&self) -> f64 {
        let n = u128::from(self.count);
        match (n.checked_mul(self.sum_squares), self.sum.checked_mul(self.sum)) {
            (Some(a), Some(b)) => a.saturating_sub(b) as f64,
            _ => {
                let mean = self.sum as f64 / self.count as f64;
                ((self.sum_squares as f64 / self.count as f64 - mean * mean) * (self.count as f64).powi(2)).max(0.0)
            }
        }
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
        let small = self.small.iter().enumerate().map(|(value, &n)| (value as u64, n));
        let large = self.buckets.iter().enumerate().flat_map(|(exponent, bucket)| {
            let width = 1u64 << (exponent as u32).saturating_sub(SUB_BITS);
            bucket.iter().flat_map(move |b| {
                b.iter().enumerate().map(move |(sub, &n)| ((1u64 << exponent) + sub as u64 * width, n))
            })
        });
        small.chain(large).filter(|&(_, n)| n > 0)
    }

    /// The `q`-quantile (0..=1): the smallest bucket whose cumulative count reaches `q`, as its
    /// midpoint, clamped to the observed range.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (value, &n) in self.small.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return value as u64;
            }
        }
        for (exponent, bucket) in self.buckets.iter().enumerate() {
            let Some(bucket) = bucket else { continue };
            for (sub, &n) in bucket.iter().enumerate() {
                seen += n;
                if seen >= rank {
                    let width = 1u64 << (exponent as u32 - SUB_BITS);
                    let low = (1u64 << exponent) + sub as u64 * width;
                    return (low + width / 2).clamp(self.min, self.max);
                }
            }
        }
        self.max
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
}
