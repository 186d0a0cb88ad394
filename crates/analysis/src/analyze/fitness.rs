//! One number for an evolutionary optimiser (an OpenEvolve-style fitness): latency against a
//! target, correctness, roofline efficiency, and (where asked for) energy.
//!
//! `score = correctness × (w_c + (1 − w_c) × performance)`, with
//! `performance = (1 − w_e − w_j) × target / (target + latency) + w_e × efficiency +
//! w_j × target_J / (target_J + joules)`.
//!
//! The energy term, of the joules per iteration against an energy target, is weighed only where
//! `w_j` > 0, and the efficiency term only where efficiency is known: an unweighed term's weight
//! goes to latency.
//!
//! - A wrong candidate scores 0 however fast it is, and a correct one never less than `w_c`: an
//!   optimiser cannot trade correctness for speed.
//! - The latency term is 1/2 at the target, rises towards 1 below it and falls smoothly above
//!   it, so candidates past the target still rank by speed.
//! - Noise: the latency is the median of the repeats plus one standard error of the median
//!   (from the median absolute deviation), so a candidate measured few times or noisily is
//!   judged by what it reliably does, not by a lucky run; `uncertainty` says how much the score
//!   would move within that error.

use serde::Serialize;

/// The weights and the target.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub struct Config {
    /// The latency to beat, µs.
    pub target_us: f64,
    /// `w_c`: the share of the score a correct candidate gets for being correct.
    pub correctness_weight: f64,
    /// `w_e`: the share of performance that is roofline efficiency (where known).
    pub efficiency_weight: f64,
    /// `w_j`: the share of performance that is energy per iteration (0: not weighed).
    pub energy_weight: f64,
    /// The joules per iteration to beat.
    pub energy_target_j: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            target_us: 20.0,
            correctness_weight: 0.5,
            efficiency_weight: 0.25,
            energy_weight: 0.0,
            energy_target_j: 1.0,
        }
    }
}

/// What was measured of one candidate.
#[derive(Debug, Clone, Default)]
pub struct Measurement {
    /// One latency per repeat, µs.
    pub samples_us: Vec<f64>,
    /// Where only a summary exists (a kernel-optimisation results JSON): the median (or mean), its spread and the
    /// repeats it came from.
    pub summary: Option<(f64, f64, usize)>,
    /// The share of correctness checks passed, 0 to 1.
    pub correctness: f64,
    /// Time-weighted roofline efficiency of its kernels, 0 to 1, where counters give it.
    pub efficiency: Option<f64>,
    /// Joules per iteration, where device samples give it.
    pub joules: Option<f64>,
}

/// The score and how it was made.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Fitness {
    /// 0 (wrong) to 1; higher is better.
    pub score: f64,
    /// Within one standard error of the latency, the score moves by at most this much.
    pub uncertainty: f64,
    /// The latency judged: the median plus one standard error, µs.
    pub latency_us: f64,
    pub median_us: f64,
    pub standard_error_us: f64,
    pub repeats: usize,
    pub latency_term: f64,
    pub correctness: f64,
    pub efficiency: Option<f64>,
    /// Joules per iteration and its term, where energy is weighed.
    pub joules: Option<f64>,
    pub energy_term: Option<f64>,
    pub config: Config,
}

/// The median and its standard error (1.2533 σ/√n, σ from the median absolute deviation).
pub fn median_and_error(samples: &[f64]) -> Option<(f64, f64)> {
    let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let median = middle(&v);
    let mut deviations: Vec<f64> = v.iter().map(|x| (x - median).abs()).collect();
    deviations.sort_by(f64::total_cmp);
    let sigma = 1.4826 * middle(&deviations);
    Some((median, 1.2533 * sigma / (v.len() as f64).sqrt()))
}

fn middle(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 }
}

/// The energy term: 1/2 at the energy target, as the latency term is at its own.
fn energy_term(config: &Config, joules: Option<f64>) -> Option<f64> {
    let joules = joules.filter(|j| config.energy_weight > 0.0 && j.is_finite())?;
    Some(config.energy_target_j / (config.energy_target_j + joules.max(0.0)))
}

fn score_at(
    config: &Config,
    latency_us: f64,
    correctness: f64,
    efficiency: Option<f64>,
    joules: Option<f64>,
) -> (f64, f64) {
    let latency_term = config.target_us / (config.target_us + latency_us.max(0.0));
    let mut performance = latency_term;
    if let Some(e) = efficiency {
        performance += config.efficiency_weight * (e.clamp(0.0, 1.0) - latency_term);
    }
    if let Some(j) = energy_term(config, joules) {
        performance += config.energy_weight * (j - latency_term);
    }
    let c = correctness.clamp(0.0, 1.0);
    (c * (config.correctness_weight + (1.0 - config.correctness_weight) * performance), latency_term)
}

/// Scores `m`; None when it has no latency.
pub fn score(m: &Measurement, config: &Config) -> Option<Fitness> {
    let (median, error, repeats) = match (median_and_error(&m.samples_us), m.summary) {
        (Some((median, error)), _) => (median, error, m.samples_us.len()),
        (None, Some((center, spread, n))) => (center, 1.2533 * spread / (n.max(1) as f64).sqrt(), n),
        (None, None) => return None,
    };
    let latency = median + error;
    let (score, latency_term) = score_at(config, latency, m.correctness, m.efficiency, m.joules);
    let (best, _) = score_at(config, median - error, m.correctness, m.efficiency, m.joules);
    let (worst, _) = score_at(config, median + 2.0 * error, m.correctness, m.efficiency, m.joules);
    Some(Fitness {
        score,
        uncertainty: (best - score).max(score - worst).max(0.0),
        latency_us: latency,
        median_us: median,
        standard_error_us: error,
        repeats,
        latency_term,
        correctness: m.correctness.clamp(0.0, 1.0),
        efficiency: m.efficiency,
        joules: m.joules,
        energy_term: energy_term(config, m.joules),
        config: *config,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::noise::Noise;

    /// `n` repeats around `median` µs: 5 % jitter and 5 % of runs hit by a 2× stall.
    fn runs(seed: u64, n: usize, median: f64) -> Vec<f64> {
        let mut noise = Noise(seed);
        let mut u = || noise.next();
        (0..n)
            .map(|_| {
                let t = median * (1.0 + 0.05 * (u() - 0.5) * 2.0);
                if u() < 0.05 { t * 2.0 } else { t }
            })
            .collect()
    }

    #[test]
    fn the_formula_by_hand() {
        let config = Config { target_us: 20.0, correctness_weight: 0.5, efficiency_weight: 0.25, ..Config::default() };
        // At the target, correct, 60 % efficient: 0.5 + 0.5 × (0.75 × 0.5 + 0.25 × 0.6) = 0.7625.
        let m = Measurement {
            summary: Some((20.0, 0.0, 100)),
            correctness: 1.0,
            efficiency: Some(0.6),
            ..Default::default()
        };
        let f = score(&m, &config).unwrap();
        assert!((f.score - 0.7625).abs() < 1e-12, "{f:?}");
        assert!((f.latency_term - 0.5).abs() < 1e-12);
        // Twice the target, no counters: 0.5 + 0.5 × 20/60.
        let m = Measurement { summary: Some((40.0, 0.0, 100)), correctness: 1.0, ..Default::default() };
        assert!((score(&m, &config).unwrap().score - (0.5 + 0.5 / 3.0)).abs() < 1e-12);
    }

    #[test]
    fn a_wrong_candidate_scores_zero_and_a_right_one_at_least_the_correctness_weight() {
        let config = Config::default();
        let fast_wrong = Measurement { samples_us: vec![1.0; 50], correctness: 0.0, ..Default::default() };
        assert_eq!(score(&fast_wrong, &config).unwrap().score, 0.0);
        let slow_right = Measurement { samples_us: vec![10_000.0; 50], correctness: 1.0, ..Default::default() };
        assert!(score(&slow_right, &config).unwrap().score >= config.correctness_weight);
    }

    /// Two measurements of the same candidate score alike; a 10 % faster one scores higher on
    /// every seed.
    #[test]
    fn stable_under_noise_and_ranks_a_10_percent_gain() {
        let config = Config::default();
        let at = |seed, median| {
            let m = Measurement { samples_us: runs(seed, 200, median), correctness: 1.0, ..Default::default() };
            score(&m, &config).unwrap()
        };
        for seed in 1..=20 {
            let (a, b) = (at(seed, 25.0), at(seed + 100, 25.0));
            assert!((a.score - b.score).abs() < 0.005, "seed {seed}: {} vs {}", a.score, b.score);
            assert!(a.uncertainty < 0.01);
            assert!(at(seed + 200, 22.5).score > a.score, "seed {seed}");
        }
    }

    /// Few repeats are judged more cautiously than many of the same runs.
    #[test]
    fn few_repeats_cost_a_little() {
        let config = Config::default();
        let samples = runs(9, 400, 25.0);
        let many = score(&Measurement { samples_us: samples.clone(), correctness: 1.0, ..Default::default() }, &config);
        let few =
            score(&Measurement { samples_us: samples[..8].to_vec(), correctness: 1.0, ..Default::default() }, &config);
        let (many, few) = (many.unwrap(), few.unwrap());
        assert!(few.standard_error_us > many.standard_error_us);
        assert!(few.uncertainty > many.uncertainty);
    }

    #[test]
    fn energy_is_weighed_only_when_asked_and_a_frugal_candidate_wins() {
        let base = Measurement { summary: Some((20.0, 0.0, 100)), correctness: 1.0, ..Default::default() };
        let config = Config { efficiency_weight: 0.0, energy_weight: 0.5, energy_target_j: 2.0, ..Config::default() };
        // At both targets: 0.5 + 0.5 × (0.5 × 0.5 + 0.5 × 0.5).
        let at_target = score(&Measurement { joules: Some(2.0), ..base.clone() }, &config).unwrap();
        assert!((at_target.score - 0.75).abs() < 1e-12, "{at_target:?}");
        let frugal = score(&Measurement { joules: Some(1.0), ..base.clone() }, &config).unwrap();
        assert!(frugal.score > at_target.score);
        // Not weighed: the joules change nothing.
        let unweighed = Config { efficiency_weight: 0.0, ..Config::default() };
        let a = score(&Measurement { joules: Some(1.0), ..base.clone() }, &unweighed).unwrap();
        let b = score(&Measurement { joules: Some(100.0), ..base }, &unweighed).unwrap();
        assert_eq!(a.score, b.score);
        assert_eq!(a.energy_term, None);
    }

    #[test]
    fn median_and_error_by_hand() {
        // Median 3; deviations 2,1,0,1,97 → MAD 1; σ 1.4826; error 1.2533 × 1.4826 / √5.
        let (m, e) = median_and_error(&[1.0, 2.0, 3.0, 4.0, 100.0]).unwrap();
        assert_eq!(m, 3.0);
        assert!((e - 1.2533 * 1.4826 / 5f64.sqrt()).abs() < 1e-12);
        assert!(median_and_error(&[]).is_none());
    }
}
