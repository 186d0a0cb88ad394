//! Energy from sampled power: the integral of the power samples, linearly interpolated between
//! them and at an interval's edges (the trapezoid rule).
//!
//! The samples say nothing of the power between two of them, so each result carries the share
//! that depends on it: over a stretch between samples `p₀` and `p₁`, the linear reading and a
//! step at either end differ by `|p₁ − p₀| · t / 2`, and the sum of those is the
//! `uncertainty_j`. A kernel much shorter than the interval is attributed the interpolated power
//! at its time, whatever it drew itself; and the power readings are not instantaneous (NVML's
//! instant field still follows the board's sensor, and where the driver lacks it the reading is
//! a one-second average), which smooths short bursts further. Totals over many dispatches are
//! what this is good for.

use super::series::Sample;

/// Energy over an interval.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Energy {
    pub joules: f64,
    /// What the result depends on the power between samples: see the module's text.
    pub uncertainty_j: f64,
}

impl std::ops::AddAssign for Energy {
    fn add_assign(&mut self, other: Energy) {
        self.joules += other.joules;
        self.uncertainty_j += other.uncertainty_j;
    }
}

impl std::ops::Div<f64> for Energy {
    type Output = Energy;
    fn div(self, by: f64) -> Energy {
        Energy { joules: self.joules / by, uncertainty_j: self.uncertainty_j / by }
    }
}

/// The samples that have a power reading, as `(time_ns, watts)`.
pub fn power_points(samples: &[Sample]) -> Vec<(i64, f64)> {
    samples.iter().filter_map(|s| Some((s.time_ns, s.power_w?))).collect()
}

/// The energy over `[start_ns, end_ns]`, or `None` where the interval is not within the
/// samples' span (a kernel before the first sample or after the last).
pub fn integrate(points: &[(i64, f64)], start_ns: i64, end_ns: i64) -> Option<Energy> {
    let (first, last) = (points.first()?.0, points.last()?.0);
    if start_ns < first || end_ns > last || end_ns < start_ns {
        return None;
    }
    // The piece holding `start_ns`: the last sample at or before it.
    let mut i = points.partition_point(|&(t, _)| t <= start_ns).saturating_sub(1);
    let mut energy = Energy::default();
    while i + 1 < points.len() && points[i].0 < end_ns {
        let ((t0, p0), (t1, p1)) = (points[i], points[i + 1]);
        let (a, b) = (start_ns.max(t0), end_ns.min(t1));
        if b > a && t1 > t0 {
            // In f64: hostile stamps at i64's ends would overflow a difference of i64s.
            let at = |t: i64| p0 + (p1 - p0) * (t as f64 - t0 as f64) / (t1 as f64 - t0 as f64);
            let seconds = (b as f64 - a as f64) * 1e-9;
            energy.joules += (at(a) + at(b)) / 2.0 * seconds;
            energy.uncertainty_j += (p1 - p0).abs() * seconds / 2.0;
        }
        i += 1;
    }
    Some(energy)
}

/// How an energy figure was reached, for the outputs that print one.
pub const METHOD: &str = "energy = the trapezoid integral of the sampled power, linearly interpolated between samples; \
     concurrent kernels on one GPU share each stretch equally; ± is the part that depends on the power between samples \
     (|Δp|·t/2 per stretch); the power is NVML's instant reading (a 1 s average where the driver lacks it) or AMD SMI's \
     socket power, itself smoothed by the board's sensor";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linear_ramp_integrates_exactly_and_says_its_uncertainty() {
        // 100 W at 0 s rising to 200 W at 1 s, then flat to 2 s.
        let points = [(0, 100.0), (1_000_000_000, 200.0), (2_000_000_000, 200.0)];
        let whole = integrate(&points, 0, 2_000_000_000).expect("inside");
        assert!((whole.joules - 350.0).abs() < 1e-9, "{whole:?}");
        assert!((whole.uncertainty_j - 50.0).abs() < 1e-9, "{whole:?}");
        // Half a second inside the ramp, from 0.25 s: 125 W to 175 W.
        let part = integrate(&points, 250_000_000, 750_000_000).expect("inside");
        assert!((part.joules - 75.0).abs() < 1e-9, "{part:?}");
        let flat = integrate(&points, 1_200_000_000, 1_300_000_000).expect("inside");
        assert_eq!(flat, Energy { joules: 200.0 * 0.1, uncertainty_j: 0.0 });
    }

    #[test]
    fn outside_the_samples_there_is_no_figure() {
        let points = [(10, 1.0), (20, 1.0)];
        assert_eq!(integrate(&points, 5, 15), None);
        assert_eq!(integrate(&points, 15, 25), None);
        assert_eq!(integrate(&[], 0, 1), None);
        assert_eq!(integrate(&points, 12, 12), Some(Energy::default()));
    }
}
