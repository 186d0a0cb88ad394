//! A kernel's mean over its calls from counters that sampled its launch sites unevenly.
//!
//! With groups taking turns (a backend that rotates passes), a counter samples each place a kernel is launched from a
//! few times, not in proportion to its launches: a layer sampled 3 times and another 5 would
//! weigh 3 to 5 in a plain mean of two layers launched equally often. So each site's own mean
//! is weighted by the site's launches (counted or not, as the launch callback counts them). A
//! site where a counter never sampled takes the mean of its shape (the same kernel and grid at
//! other sites: a warm-up iteration reached from other kernels does the same work), and is
//! left out only where its shape has no sample either. Without sites (a backend that reports
//! none) every dispatch is
//! site 0, and the mean is the plain one, `sum / samples` to the bit.
//!
//! Two approximations keep memory bounded. The sites of a kernel beyond [`MAX_SITES`] share one
//! stratum, which weighs its counted dispatches (it has no launch count of its own) and has no
//! shape to fall back on; so does a site the callback's table had no room for (launch count 0).

/// Sites kept apart per kernel and agent; later ones share one stratum, so memory stays
/// bounded whatever the application launches.
pub const MAX_SITES: usize = 64;
/// The stratum of the sites beyond [`MAX_SITES`] (no shape of its own).
pub const OTHER_SITES: u64 = u64::MAX;

/// A place a kernel is launched from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site {
    pub id: u64,
    /// The kernel and grid launched there (0: unknown).
    pub shape: u64,
    /// Its launches, counted or not.
    pub launches: u64,
}

/// One kernel's sites on one agent.
#[derive(Debug, Default, Clone)]
pub struct KernelSites {
    sites: Vec<Site>,
}

impl KernelSites {
    /// Counts a dispatch at `id` of `shape`, where `launches` had been made so far (0: unknown,
    /// the dispatch weighs one); returns the stratum the dispatch falls in.
    pub fn weigh(&mut self, id: u64, shape: u64, launches: u64) -> u64 {
        let known = self.sites.iter().any(|s| s.id == id);
        let (stratum, shape) = if known || self.sites.len() < MAX_SITES { (id, shape) } else { (OTHER_SITES, 0) };
        let at = match self.sites.iter().position(|s| s.id == stratum) {
            Some(i) => i,
            None => {
                self.sites.push(Site { id: stratum, shape, launches: 0 });
                self.sites.len() - 1
            }
        };
        let site = &mut self.sites[at];
        // The callback's count is the site's launches so far: keep the latest. The shared
        // stratum adds its dispatches.
        site.launches =
            if launches == 0 || stratum == OTHER_SITES { site.launches + 1 } else { site.launches.max(launches) };
        stratum
    }

    /// Takes the sites' final launch counts, where they are higher.
    pub fn launched(&mut self, launches: &std::collections::HashMap<u64, u64>) {
        for site in &mut self.sites {
            if let Some(&n) = launches.get(&site.id) {
                site.launches = site.launches.max(n);
            }
        }
    }

    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    fn shape_of(&self, id: u64) -> u64 {
        self.sites.iter().find(|s| s.id == id).map_or(0, |s| s.shape)
    }
}

/// One counter's values of one kernel: over all, and per site.
#[derive(Debug, Clone)]
pub struct Samples {
    pub samples: u64,
    pub sum: f64,
    pub min: f64,
    pub max: f64,
    /// Per site (stratum): samples and their sum.
    sites: Vec<(u64, u64, f64)>,
}

impl Samples {
    pub fn new(value: f64) -> Samples {
        Samples { samples: 0, sum: 0.0, min: value, max: value, sites: Vec::new() }
    }

    pub fn add(&mut self, site: u64, value: f64) {
        self.samples += 1;
        self.sum += value;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        match self.sites.iter_mut().find(|(s, _, _)| *s == site) {
            Some((_, n, sum)) => {
                *n += 1;
                *sum += value;
            }
            None => self.sites.push((site, 1, value)),
        }
    }

    /// The mean over the kernel's calls ([the module's](self) weighting).
    pub fn mean(&self, kernel: &KernelSites) -> f64 {
        let own = |id: u64| self.sites.iter().find(|(s, _, _)| *s == id).map(|&(_, n, sum)| sum / n as f64);
        let of_shape = |shape: u64| {
            let (n, sum) = self
                .sites
                .iter()
                .filter(|(s, _, _)| shape != 0 && kernel.shape_of(*s) == shape)
                .fold((0, 0.0), |(n, sum), &(_, k, v)| (n + k, sum + v));
            (n > 0).then(|| sum / n as f64)
        };
        if kernel.sites().len() <= 1 && self.sites.len() <= 1 {
            return self.sum / self.samples as f64;
        }
        let (mut total, mut weight) = (0.0, 0.0);
        for site in kernel.sites() {
            if let Some(mean) = own(site.id).or_else(|| of_shape(site.shape)) {
                total += site.launches as f64 * mean;
                weight += site.launches as f64;
            }
        }
        // Samples of sites the kernel does not know (none, as the writer builds them) weigh
        // their count.
        for &(id, n, sum) in &self.sites {
            if !kernel.sites().iter().any(|s| s.id == id) {
                total += sum;
                weight += n as f64;
            }
        }
        if weight > 0.0 { total / weight } else { self.sum / self.samples as f64 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sites(list: &[(u64, u64, u64)]) -> KernelSites {
        KernelSites { sites: list.iter().map(|&(id, shape, launches)| Site { id, shape, launches }).collect() }
    }

    /// Two layers of one kernel, launched 6 times each; the counter sampled the first 3 times
    /// (value 10) and the second 5 times (value 30). The kernel's mean is 20, as over its calls,
    /// not 22.5 as over the samples.
    #[test]
    fn each_site_weighs_its_launches_not_its_samples() {
        let mut a = Samples::new(10.0);
        (0..3).for_each(|_| a.add(1, 10.0));
        (0..5).for_each(|_| a.add(2, 30.0));
        assert_eq!(a.mean(&sites(&[(1, 7, 6), (2, 8, 6)])), 20.0);
        assert_eq!(a.sum / a.samples as f64, 22.5);
        // One site (no sites reported, or a kernel launched from one place): the plain mean, to the bit
        // (9 samples of 28 dispatches would give 0.11111111111111109 by weighting).
        let mut one = Samples::new(1.0);
        [1.0, 2.0, 6.0].iter().for_each(|v| one.add(0, *v));
        assert_eq!(one.mean(&sites(&[(0, 0, 7)])), 3.0);
        let mut ninth = Samples::new(0.0);
        (0..9).for_each(|i| ninth.add(0, if i == 0 { 1.0 } else { 0.0 }));
        assert_eq!(ninth.mean(&sites(&[(0, 0, 28)])), 1.0 / 9.0);
        // Sites the kernel does not know weigh their samples.
        assert_eq!(a.mean(&KernelSites::default()), 22.5);
    }

    /// A warm-up launch of the first layer comes after other kernels (another site) and this
    /// counter never sampled it: it takes its shape's mean rather than dropping out, so the
    /// layers still weigh 2 to 2. A site of a shape never sampled drops out.
    #[test]
    fn an_unsampled_site_takes_its_shape_s_mean() {
        let mut a = Samples::new(10.0);
        a.add(1, 10.0);
        a.add(2, 30.0);
        let kernel = sites(&[(1, 7, 1), (2, 8, 2), (3, 7, 1), (4, 9, 5)]);
        assert_eq!(a.mean(&kernel), 20.0);
    }

    /// Launches after a site's last counted one (left uncounted) come at the end of the run.
    #[test]
    fn the_final_launch_counts_raise_the_weights() {
        let mut kernel = KernelSites::default();
        kernel.weigh(1, 7, 12);
        kernel.weigh(2, 8, 14);
        kernel.launched(&[(1, 13), (2, 3), (9, 99)].into());
        assert_eq!(kernel.sites(), [Site { id: 1, shape: 7, launches: 13 }, Site { id: 2, shape: 8, launches: 14 }]);
    }

    /// Past MAX_SITES a kernel's new sites share one stratum: memory stays bounded.
    #[test]
    fn sites_beyond_the_bound_share_one_stratum() {
        let mut kernel = KernelSites::default();
        for id in 0..MAX_SITES as u64 {
            assert_eq!(kernel.weigh(id, 1, 1), id);
        }
        assert_eq!(kernel.weigh(1 << 40, 1, 5), OTHER_SITES);
        assert_eq!(kernel.weigh(1 << 41, 1, 9), OTHER_SITES);
        assert_eq!(kernel.weigh(3, 1, 4), 3, "a known site keeps its own");
        assert_eq!(kernel.sites().len(), MAX_SITES + 1);
        assert!(kernel.sites().contains(&Site { id: 3, shape: 1, launches: 4 }), "its latest launch count");
        assert!(
            kernel.sites().contains(&Site { id: OTHER_SITES, shape: 0, launches: 2 }),
            "the shared one, its dispatches"
        );
    }
}
