//! Which pass each counted dispatch takes.
//!
//! CUPTI's range profiler keeps ONE pass cursor per context: every session (Start..Stop) runs the
//! next pass of the configuration, whatever kernel it holds, and after the last pass the cursor
//! wraps to the first (measured on the H100: `bench/gpu/range_probe`, experiments X13 to X17).
//! A session can be decoded on its own, so a dispatch counted in pass `p` yields exactly the
//! metrics CUPTI scheduled in pass `p`: the pass is the group.
//!
//! So the groups take turns per kernel and grid, as on AMD, by steering the cursor: a dispatch
//! takes the cursor's pass when its kernel and grid have collected that pass no more often than
//! any other, else empty sessions (no launch inside, 2 to 27 ms each) move the cursor on to the
//! pass that shape has collected least. A shape dispatched at least as many times as there are
//! passes therefore collects every pass, whatever else runs between its dispatches.
//!
//! Once a shape has collected every pass, the pass goes by the dispatch's *site*, the kernel
//! launched just before it: the pass that site has collected least, among those the shape has
//! collected at most once more than its least. One kernel and grid is often
//! launched at several places of a model's step, each doing different work (a convolution
//! of the same output size with a different input depth). A model's step repeats the same
//! launches, so the cursor stands at the same pass at each place every step, and a choice by the
//! cursor alone would give each place the same pass every step: the first layer's bytes, the
//! second's FLOPs. A per-kernel mean would then mix layers by the luck of the turns. Balanced
//! per site, every place of the step takes every pass in turn, and each metric's mean is over
//! the same places as the kernel's calls.
//!
//! One exception. A SASS pass (instrumented) leaves dirty lines in L2, about 1 KB per warp of
//! the kernel it ran (`bench/gpu/range_probe`, X23 and X24: 9 MB after a 128 MiB read), and the
//! next kernel that sweeps L2 writes them back: a DRAM pass right after it would charge them to
//! that kernel (a 5 to 9 MB excess of DRAM writes, against ncu). So the dispatch right after a
//! SASS pass takes no pass that counts DRAM: another pass it still needs, or none at all
//! ([`Plan::Rest`]). Coverage then needs a few more dispatches where kernels alternate.

use std::collections::HashMap;

/// Shapes (kernel and grid) whose turns are kept. Beyond this, a new shape is not counted:
/// the table must not grow without bound inside the application.
pub const MAX_SHAPES: usize = 1 << 16;

/// A dispatch's site: its shape and the shape launched just before it on its context.
pub fn site(shape: u64, previous: u64) -> u64 {
    shape ^ previous.rotate_left(29).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The passes collected per shape and per site, the launches per site, and the context's pass
/// cursor.
#[derive(Debug)]
pub struct Turns {
    passes: usize,
    /// The pass the next session runs.
    cursor: usize,
    collected: HashMap<u64, Vec<u32>>,
    /// The same tally per site (a shape and the shape launched before it).
    sites: HashMap<u64, Vec<u32>>,
    /// Launches per site that reached the plan, counted or not (not those that waited too long
    /// for another thread's session, nor those the filters left out): what a site weighs in a
    /// kernel's mean.
    launches: HashMap<u64, u64>,
    /// Passes whose sessions decode no value alone (CUPTI spreads some metrics over several
    /// passes): never worth a dispatch.
    silent: Vec<bool>,
    /// Passes that count DRAM traffic: not taken right after a SASS pass.
    dram: Vec<bool>,
}

/// What to do for one dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// Run `skip` empty sessions first, then count the dispatch in pass `pass`.
    Count { skip: usize, pass: usize },
    /// The shape table is full: leave the dispatch uncounted.
    Full,
    /// Right after a SASS pass, the shape needs only DRAM passes: leave it uncounted this time.
    Rest,
}

impl Turns {
    /// Turns for a configuration of `passes` passes (at least 1).
    pub fn new(passes: usize) -> Turns {
        let passes = passes.max(1);
        Turns {
            passes,
            cursor: 0,
            collected: HashMap::new(),
            sites: HashMap::new(),
            launches: HashMap::new(),
            silent: vec![false; passes],
            dram: vec![false; passes],
        }
    }

    /// The number of passes.
    pub fn passes(&self) -> usize {
        self.passes
    }

    /// The pass the next session runs.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Plans the dispatch of `shape` at `site`: the pass it takes and the empty sessions
    /// before it. `after_sass`: the context's last session was a SASS pass.
    pub fn plan(&mut self, shape: u64, site: u64, after_sass: bool) -> Plan {
        let passes = self.passes;
        if !self.collected.contains_key(&shape) && self.collected.len() >= MAX_SHAPES {
            return Plan::Full;
        }
        let collected = self.collected.entry(shape).or_insert_with(|| vec![0; passes]);
        // A full site table only loses the balance between places, never the coverage.
        let at_site = self.sites.get(&site);
        let at_site = |p: usize| at_site.map_or(0, |tally| tally[p]);
        let (silent, dram) = (&self.silent, &self.dram);
        let least = (0..passes).filter(|&p| !silent[p]).map(|p| collected[p]).min().unwrap_or(0);
        // The first round is strict (coverage); later a pass may run one ahead of the others
        // where the site needs it.
        let slack = u32::from(least > 0);
        // Of the passes this shape may take, the one its site has collected least, the nearest
        // after the cursor among equals (the shape's own least would cost empty sessions for
        // nothing: the slack bounds it).
        let skip = (0..passes)
            .filter(|s| {
                let p = (self.cursor + s) % passes;
                !silent[p] && collected[p] <= least + slack && !(after_sass && dram[p])
            })
            .min_by_key(|s| (at_site((self.cursor + s) % passes), *s));
        match skip {
            Some(skip) => Plan::Count { skip, pass: (self.cursor + skip) % passes },
            None if after_sass => Plan::Rest,
            None => Plan::Count { skip: 0, pass: self.cursor },
        }
    }

    /// Records that `pass` counts DRAM traffic (learnt from its first decode).
    pub fn counts_dram(&mut self, pass: usize) {
        if let Some(d) = self.dram.get_mut(pass) {
            *d = true;
        }
    }

    /// Records that a session ran (empty or not) and moved the cursor on.
    pub fn advance(&mut self) {
        self.cursor = (self.cursor + 1) % self.passes;
    }

    /// Counts a launch at `site`, counted or not; returns the site's launches so far (0 once
    /// the table is full and the site new).
    pub fn launched(&mut self, site: u64) -> u64 {
        if !self.launches.contains_key(&site) && self.launches.len() >= MAX_SHAPES {
            return 0;
        }
        let n = self.launches.entry(site).or_default();
        *n += 1;
        *n
    }

    /// Every site's launches so far.
    pub fn site_launches(&self) -> Vec<(u64, u64)> {
        self.launches.iter().map(|(&site, &n)| (site, n)).collect()
    }

    /// Records that `shape` collected `pass` at `site`.
    pub fn collected(&mut self, shape: u64, site: u64, pass: usize) {
        if let Some(c) = self.collected.get_mut(&shape).and_then(|c| c.get_mut(pass)) {
            *c += 1;
        }
        if !self.sites.contains_key(&site) && self.sites.len() >= MAX_SHAPES {
            return;
        }
        if let Some(c) = self.sites.entry(site).or_insert_with(|| vec![0; self.passes]).get_mut(pass) {
            *c += 1;
        }
    }

    /// Records that `pass` decodes nothing alone: it is skipped from now on (unless every pass
    /// is, which cannot happen for a configuration that counts anything).
    pub fn silence(&mut self, pass: usize) {
        if let Some(s) = self.silent.get_mut(pass) {
            *s = true;
        }
        if self.silent.iter().all(|s| *s) {
            self.silent.iter_mut().for_each(|s| *s = false);
        }
    }

    /// Puts the cursor where CUPTI says it is (a session's Stop reports the next pass).
    pub fn resync(&mut self, next_pass: usize) {
        self.cursor = next_pass % self.passes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `dispatches` (shapes in order) through the turns as the tool does; returns the pass
    /// each took and the empty sessions spent.
    fn simulate(passes: usize, dispatches: &[u64]) -> (Vec<usize>, usize) {
        let mut turns = Turns::new(passes);
        let mut taken = Vec::new();
        let mut empty = 0;
        let mut previous = 0;
        for &shape in dispatches {
            let at = site(shape, std::mem::replace(&mut previous, shape));
            let Plan::Count { skip, pass } = turns.plan(shape, at, false) else { panic!("full") };
            for _ in 0..skip {
                turns.advance();
            }
            empty += skip;
            assert_eq!(turns.cursor(), pass);
            turns.advance();
            turns.collected(shape, at, pass);
            taken.push(pass);
        }
        (taken, empty)
    }

    #[test]
    fn one_shape_alone_takes_the_passes_in_turn_without_empty_sessions() {
        let (taken, empty) = simulate(3, &[7; 7]);
        assert_eq!(taken, [0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(empty, 0);
    }

    /// Two kernels alternating, as in a model's step: each still gets both passes in two
    /// dispatches (a global cursor alone would give A pass 0 and B pass 1 forever), and keeps
    /// taking both.
    #[test]
    fn alternating_shapes_each_collect_every_pass() {
        let (taken, _) = simulate(2, &[1, 2].repeat(20));
        let a: Vec<usize> = taken.iter().step_by(2).copied().collect();
        let b: Vec<usize> = taken.iter().skip(1).step_by(2).copied().collect();
        for got in [a, b] {
            assert!(got[..2].contains(&0) && got[..2].contains(&1), "{taken:?}");
            let ones = got.iter().filter(|&&p| p == 1).count();
            assert!(ones.abs_diff(got.len() - ones) <= 2, "{taken:?}");
        }
    }

    /// Any order: a shape dispatched `passes` times has collected every pass once, and the
    /// passes stay within two of each other after.
    #[test]
    fn every_shape_dispatched_passes_times_is_covered_whatever_runs_between() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut order = Vec::new();
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            order.push(x % 37);
        }
        for passes in 1..=4 {
            let (taken, empty) = simulate(passes, &order);
            let mut per_shape: HashMap<u64, Vec<usize>> = HashMap::new();
            for (shape, pass) in order.iter().zip(&taken) {
                per_shape.entry(*shape).or_default().push(*pass);
            }
            for (shape, got) in per_shape {
                if got.len() >= passes {
                    let mut first = got[..passes].to_vec();
                    first.sort_unstable();
                    assert_eq!(first, (0..passes).collect::<Vec<_>>(), "shape {shape}, {passes} passes");
                }
                // Later, no pass runs more than two ahead of another.
                let mut counts = vec![0; passes];
                for (n, &pass) in got.iter().enumerate() {
                    counts[pass] += 1;
                    let spread = counts.iter().max().unwrap() - counts.iter().min().unwrap();
                    assert!(n < passes || spread <= 2, "shape {shape}, {passes} passes: {counts:?}");
                }
            }
            // Empty sessions cost 2 to 27 ms each: a third of the worst case at most (a pass
            // picked blind to the cursor would cost half of it).
            assert!(empty * 3 <= order.len() * (passes - 1), "{passes} passes: {empty} empty sessions");
        }
    }

    /// Passes that decode nothing alone are skipped: the others still take turns per shape.
    #[test]
    fn silent_passes_are_skipped() {
        let mut turns = Turns::new(5);
        for p in [1, 2, 3] {
            turns.silence(p);
        }
        let mut taken = Vec::new();
        for shape in [7, 8, 7, 8, 7, 8] {
            let Plan::Count { skip, pass } = turns.plan(shape, shape, false) else { panic!("full") };
            for _ in 0..skip {
                turns.advance();
            }
            turns.advance();
            turns.collected(shape, shape, pass);
            taken.push((shape, pass));
        }
        assert!(taken.iter().all(|&(_, p)| p == 0 || p == 4), "{taken:?}");
        for shape in [7, 8] {
            let got: Vec<usize> = taken.iter().filter(|t| t.0 == shape).map(|t| t.1).take(2).collect();
            assert!(got.contains(&0) && got.contains(&4), "{taken:?}");
        }
    }

    /// The dispatch after a SASS pass takes another pass it needs, or rests; the DRAM pass
    /// then comes at a later dispatch, and every shape is still covered.
    #[test]
    fn no_dram_pass_right_after_a_sass_pass() {
        let (dram, sass) = (0, 2);
        let mut turns = Turns::new(3);
        turns.counts_dram(dram);
        // A flush kernel before each of two measured kernels, as in the `counters` stage.
        let order: Vec<u64> = (0..12).flat_map(|_| [100, 1, 100, 2]).collect();
        let mut last_sass = false;
        let mut per_shape: HashMap<u64, Vec<usize>> = HashMap::new();
        let mut rested = 0;
        for &shape in &order {
            match turns.plan(shape, shape, last_sass) {
                Plan::Count { skip, pass } => {
                    assert!(!(last_sass && pass == dram), "a DRAM pass right after a SASS pass");
                    for _ in 0..skip {
                        turns.advance();
                    }
                    turns.advance();
                    turns.collected(shape, shape, pass);
                    per_shape.entry(shape).or_default().push(pass);
                    last_sass = pass == sass;
                }
                Plan::Rest => {
                    rested += 1;
                    last_sass = false;
                }
                Plan::Full => panic!("full"),
            }
        }
        assert!(rested > 0, "the case never arose");
        for shape in [1, 2, 100] {
            let got = &per_shape[&shape];
            for p in 0..3 {
                assert!(got.contains(&p), "shape {shape} never took pass {p}: {got:?}");
            }
        }
        assert!(per_shape[&1].len() >= 6, "{per_shape:?}");
    }

    /// A model's step launches one kernel and grid at two places (layers doing different
    /// work), each after a different kernel, and the same kernels every step: each place takes
    /// every pass equally often (to one), so a per-kernel mean of any metric weighs the layers
    /// as its calls do. By the cursor alone, with 3 passes, the first place took pass 1 seven
    /// times and pass 2 never, the second the other way round.
    #[test]
    fn each_place_of_a_repeated_step_takes_every_pass_in_turn() {
        let conv = 1;
        let step = [10, conv, 12, 13, conv];
        for passes in 2..=4 {
            let order: Vec<u64> = (0..passes * 4).flat_map(|_| step).collect();
            let (taken, _) = simulate(passes, &order);
            // From the second step on: the first place's site is the previous step's last kernel.
            for (place, &shape) in step.iter().enumerate() {
                let mut counts = vec![0; passes];
                for i in (step.len() + place..order.len()).step_by(step.len()) {
                    counts[taken[i]] += 1;
                }
                let spread = counts.iter().max().unwrap() - counts.iter().min().unwrap();
                assert!(spread <= 1, "{passes} passes, place {place} (shape {shape}): {counts:?}");
            }
        }
    }

    #[test]
    fn a_full_table_leaves_new_shapes_uncounted() {
        let mut turns = Turns::new(2);
        for shape in 0..MAX_SHAPES as u64 {
            assert!(matches!(turns.plan(shape, shape, false), Plan::Count { .. }));
        }
        assert_eq!(turns.plan(u64::MAX, 0, false), Plan::Full);
        assert!(matches!(turns.plan(3, 3, false), Plan::Count { .. }), "known shapes still count");
    }
}
